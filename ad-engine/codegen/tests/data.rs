//! Arrays compiled by the JIT are the caller's objects: mutation is seen through aliases and by
//! the caller, and the interpreter agrees. (Values, struct and tuple access and bounds errors
//! are IR filetests in `fixtures/ir/`.)

use crate::support;

use support::*;
use zy_interp::{Limits, Value};
use zy_ir::{Block, Prim, Type};

fn vecf() -> Type {
    Type::vector_f64()
}

#[test]
fn matrices_index_column_major_and_mutation_reaches_the_caller() {
    // g!(A) = (A[2, 1] = A[1, 2] * 10.0; A[3] += 1.0; (A, size(A), A[2, 3]))
    let mat = Type::matrix_f64();
    let ret = Type::tuple([
        mat.clone(),
        Type::tuple([Type::Int64, Type::Int64]),
        Type::Float64,
    ]);
    let mut fb = Fb::new("g!", std::slice::from_ref(&mat), ret.clone());
    let a = fb.args[0];
    let e = Block::ENTRY;
    let a12 = fb.prim(e, Prim::GetIndex, vec![v(a), i(1), i(2)], Type::Float64, 10);
    let t = fb.prim(e, Prim::Mul, vec![v(a12), f(10.0)], Type::Float64, 11);
    fb.prim(
        e,
        Prim::SetIndex,
        vec![v(a), v(t), i(2), i(1)],
        Type::Float64,
        12,
    );
    let a3 = fb.prim(e, Prim::GetIndex, vec![v(a), i(3)], Type::Float64, 13);
    let u = fb.prim(e, Prim::Add, vec![v(a3), f(1.0)], Type::Float64, 14);
    fb.prim(e, Prim::SetIndex, vec![v(a), v(u), i(3)], Type::Float64, 15);
    let sz = fb.prim(
        e,
        Prim::Size,
        vec![v(a)],
        Type::tuple([Type::Int64, Type::Int64]),
        16,
    );
    let a23 = fb.prim(e, Prim::GetIndex, vec![v(a), i(2), i(3)], Type::Float64, 17);
    let r = fb.prim(e, Prim::Tuple, vec![v(a), v(sz), v(a23)], ret, 18);
    fb.ret(e, v(r));
    let inst = fb.inst();
    let prog = program(vec![fb]);
    // [1 3 5; 2 4 6] column-major.
    let m = || Value::matrix_f64(2, 3, vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]).unwrap();
    let arg = m();
    let mut jit = zy_codegen::JitSession::new().unwrap();
    let out = jit
        .compile(&prog, &inst)
        .unwrap()
        .call(std::slice::from_ref(&arg), &Limits::default())
        .unwrap();
    assert_eq!(
        zy_interp::show(&out),
        "([1.0 4.0 5.0; 30.0 4.0 6.0], (2, 3), 6.0)"
    );
    // The caller sees the mutation, and the returned matrix is the argument itself.
    assert_eq!(zy_interp::show(&arg), "[1.0 4.0 5.0; 30.0 4.0 6.0]");
    let Value::Tuple(parts) = &out else {
        panic!("{out:?}")
    };
    assert!(parts[0].egal(&arg));
    assert_eq!(
        check(&prog, &inst, vec![m()]),
        "([1.0 4.0 5.0; 30.0 4.0 6.0], (2, 3), 6.0)"
    );
    // Out of bounds in the second dimension.
    let small = Value::matrix_f64(2, 2, vec![1.0, 2.0, 3.0, 4.0]).unwrap();
    assert_eq!(
        check(&prog, &inst, vec![small]),
        "error at 17..18: BoundsError: attempt to access 2×2 Matrix{Float64} at index [2, 3]"
    );
}

#[test]
fn one_array_passed_twice_is_one_object() {
    // alias!(a, b) = (a[1] = 5.0; b[1] + a[2])
    let fl = Type::Float64;
    let mut fb = Fb::new("alias!", &[vecf(), vecf()], fl.clone());
    let (a, b) = (fb.args[0], fb.args[1]);
    let e = Block::ENTRY;
    fb.prim(e, Prim::SetIndex, vec![v(a), f(5.0), i(1)], fl.clone(), 10);
    let b1 = fb.prim(e, Prim::GetIndex, vec![v(b), i(1)], fl.clone(), 11);
    let a2 = fb.prim(e, Prim::GetIndex, vec![v(a), i(2)], fl.clone(), 12);
    let s = fb.prim(e, Prim::Add, vec![v(b1), v(a2)], fl, 13);
    fb.ret(e, v(s));
    let inst = fb.inst();
    let prog = program(vec![fb]);
    let x = Value::vector_f64(vec![1.0, 2.0]);
    let mut jit = zy_codegen::JitSession::new().unwrap();
    let f = jit.compile(&prog, &inst).unwrap();
    let out = f.call(&[x.clone(), x.clone()], &Limits::default()).unwrap();
    assert_eq!(zy_interp::show(&out), "7.0");
    assert_eq!(zy_interp::show(&x), "[5.0, 2.0]");
    // Two different arrays with the same contents stay apart.
    let (p, q) = (
        Value::vector_f64(vec![1.0, 2.0]),
        Value::vector_f64(vec![1.0, 2.0]),
    );
    assert_eq!(check(&prog, &inst, vec![p, q]), "3.0");
}
