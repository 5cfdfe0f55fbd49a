//! Tuples, structs, `Ref`s and arrays compiled by the JIT agree with the interpreter: values,
//! mutation seen through aliases and by the caller, and bounds errors with the same message.

mod support;

use std::sync::Arc;

use support::*;
use zy_interp::{Limits, Value};
use zy_ir::{Block, Op, Operand, Prim, Stmt, StructKind, StructType, Type};

fn vecf() -> Type {
    Type::vector_f64()
}

/// sumsq(x) = s over k in 1:n of x[k] * x[k], reading x[n + extra] at the end.
fn sumsq(extra: i64) -> Fb {
    let mut fb = Fb::new("sumsq", &[vecf()], Type::Float64);
    let x = fb.args[0];
    let e = Block::ENTRY;
    let n = fb.prim(e, Prim::Length, vec![v(x)], Type::Int64, 10);
    let (head, hp) = fb.block(&[Type::Float64, Type::Int64]);
    let (body, _) = fb.block(&[]);
    let (exit, _) = fb.block(&[]);
    fb.jump(e, head, vec![f(0.0), i(1)]);
    let c = fb.prim(head, Prim::Le, vec![v(hp[1]), v(n)], Type::Bool, 11);
    fb.branch(head, v(c), (body, vec![]), (exit, vec![]));
    let xk = fb.prim(
        body,
        Prim::GetIndex,
        vec![v(x), v(hp[1])],
        Type::Float64,
        12,
    );
    let sq = fb.prim(body, Prim::Mul, vec![v(xk), v(xk)], Type::Float64, 13);
    let s = fb.prim(body, Prim::Add, vec![v(hp[0]), v(sq)], Type::Float64, 14);
    let k = fb.prim(body, Prim::Add, vec![v(hp[1]), i(1)], Type::Int64, 15);
    fb.jump(body, head, vec![v(s), v(k)]);
    let last = fb.prim(exit, Prim::Add, vec![v(n), i(extra)], Type::Int64, 16);
    let xl = fb.prim(exit, Prim::GetIndex, vec![v(x), v(last)], Type::Float64, 17);
    let r = fb.prim(exit, Prim::Add, vec![v(hp[0]), v(xl)], Type::Float64, 18);
    fb.ret(exit, v(r));
    fb
}

#[test]
fn vector_loops_and_bounds_errors() {
    let fb = sumsq(0);
    let inst = fb.inst();
    let prog = program(vec![fb]);
    // 1 + 4 + 9 + x[3] = 17
    assert_eq!(
        check(&prog, &inst, vec![Value::vector_f64(vec![1.0, 2.0, 3.0])]),
        "17.0"
    );
    let fb = sumsq(1);
    let inst = fb.inst();
    let prog = program(vec![fb]);
    assert_eq!(
        check(&prog, &inst, vec![Value::vector_f64(vec![1.0, 2.0, 3.0])]),
        "error at 17..18: BoundsError: attempt to access 3-element Vector{Float64} at index [4]"
    );
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

fn point() -> Arc<StructType> {
    Arc::new(StructType {
        name: "P".into(),
        params: vec![],
        fields: vec![("a".into(), Type::Float64), ("v".into(), vecf())],
        mutable: false,
        kind: StructKind::User,
    })
}

fn counter() -> Arc<StructType> {
    Arc::new(StructType {
        name: "C".into(),
        params: vec![],
        fields: vec![("n".into(), Type::Int64), ("x".into(), Type::Float64)],
        mutable: true,
        kind: StructKind::User,
    })
}

#[test]
fn structs_tuples_refs_and_mutable_structs() {
    // h(p::P, c::C, t::Tuple{Float64,Float64}, k::Int) =
    //   r = Ref(p.a); c.x = c.x + t[k]; r[] = r[] * 2.0; c.n = c.n + 1
    //   (P(r[], p.v), c, (a = c.x, b = t[2]))
    let p = Type::Struct(point());
    let c = Type::Struct(counter());
    let t2 = Type::tuple([Type::Float64, Type::Float64]);
    let nt =
        Type::NamedTuple(vec![("a".into(), Type::Float64), ("b".into(), Type::Float64)].into());
    let ret = Type::tuple([p.clone(), c.clone(), nt.clone()]);
    let mut fb = Fb::new(
        "h",
        &[p.clone(), c.clone(), t2.clone(), Type::Int64],
        ret.clone(),
    );
    let (pa, ca, ta, ka) = (fb.args[0], fb.args[1], fb.args[2], fb.args[3]);
    let e = Block::ENTRY;
    let fl = Type::Float64;
    let a = fb.prim(e, Prim::GetField, vec![v(pa), i(1)], fl.clone(), 10);
    let r = fb.prim(
        e,
        Prim::RefNew,
        vec![v(a)],
        Type::Ref(Arc::new(fl.clone())),
        11,
    );
    let cx = fb.prim(e, Prim::GetField, vec![v(ca), i(2)], fl.clone(), 12);
    let tk = fb.prim(e, Prim::TupleIndex, vec![v(ta), v(ka)], fl.clone(), 13);
    let s = fb.prim(e, Prim::Add, vec![v(cx), v(tk)], fl.clone(), 14);
    fb.prim(e, Prim::SetField, vec![v(ca), i(2), v(s)], fl.clone(), 15);
    let rv = fb.prim(e, Prim::RefGet, vec![v(r)], fl.clone(), 16);
    let d = fb.prim(e, Prim::Mul, vec![v(rv), f(2.0)], fl.clone(), 17);
    fb.prim(e, Prim::RefSet, vec![v(r), v(d)], fl.clone(), 18);
    let cn = fb.prim(e, Prim::GetField, vec![v(ca), i(1)], Type::Int64, 19);
    let cn1 = fb.prim(e, Prim::Add, vec![v(cn), i(1)], Type::Int64, 20);
    fb.prim(
        e,
        Prim::SetField,
        vec![v(ca), i(1), v(cn1)],
        Type::Int64,
        21,
    );
    let rv2 = fb.prim(e, Prim::RefGet, vec![v(r)], fl.clone(), 22);
    let pv = fb.prim(e, Prim::GetField, vec![v(pa), i(2)], vecf(), 23);
    let np = fb.f.push_stmt(
        e,
        Stmt {
            op: Op::New(point()),
            args: vec![v(rv2), v(pv)],
        },
        p.clone(),
        sp(24),
    );
    let cx2 = fb.prim(e, Prim::GetField, vec![v(ca), i(2)], fl.clone(), 25);
    let t2v = fb.prim(e, Prim::GetField, vec![v(ta), i(2)], fl.clone(), 26);
    let names = Operand::Const(zy_ir::Const::Tuple(
        vec![
            zy_ir::Const::Symbol("a".into()),
            zy_ir::Const::Symbol("b".into()),
        ]
        .into(),
    ));
    let ntv = fb.prim(e, Prim::NamedTuple, vec![names, v(cx2), v(t2v)], nt, 27);
    let out = fb.prim(e, Prim::Tuple, vec![v(np), v(ca), v(ntv)], ret, 28);
    fb.ret(e, v(out));
    let inst = fb.inst();
    let prog = program(vec![fb]);
    let args = |k: i64| {
        vec![
            Value::new_struct(point(), vec![Value::F64(1.5), Value::vector_f64(vec![7.0])]),
            Value::new_struct(counter(), vec![Value::Int(4), Value::F64(0.25)]),
            Value::tuple([Value::F64(10.0), Value::F64(20.0)]),
            Value::Int(k),
        ]
    };
    assert_eq!(
        check(&prog, &inst, args(2)),
        "(P(3.0, [7.0]), C(5, 20.25), (a = 20.25, b = 20.0))"
    );
    assert_eq!(
        check(&prog, &inst, args(3)),
        "error at 13..14: BoundsError: attempt to access Tuple{Float64, Float64} at index [3]"
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
