//! Whole functions built with the `zy_ir::Function` API and run by the interpreter: loops,
//! recursion against the depth limit, runaway loops against the deadline, globals, aliasing of
//! mutable values, undefined locals, pullback closures, and where errors point.

// One-element operand lists read better as `&[x.clone()]` than as `slice::from_ref(&x)`.
#![allow(clippy::cloned_ref_to_slice_refs)]

use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant};

use zy_interp::{run, show, Limits, Value};
use zy_ir::{
    Block, BlockCall, Const, Function, Instance, Op, Operand, Prim, Span, Stmt, StructKind,
    StructType, Terminator, Type, TypedProgram,
};

/// A distinct span per statement, so tests can say which one failed.
fn sp(n: u32) -> Span {
    Span::new(0, n, n + 1)
}

fn c_f(x: f64) -> Operand {
    Operand::Const(Const::f64(x))
}

fn c_i(x: i64) -> Operand {
    Operand::Const(Const::Int(x))
}

fn v(x: zy_ir::Value) -> Operand {
    Operand::Value(x)
}

fn prim(
    f: &mut Function,
    b: Block,
    p: Prim,
    args: Vec<Operand>,
    ty: Type,
    span: u32,
) -> zy_ir::Value {
    f.push_stmt(
        b,
        Stmt {
            op: Op::Prim(p),
            args,
        },
        ty,
        sp(span),
    )
}

fn jump(f: &mut Function, from: Block, to: Block, args: Vec<Operand>) {
    f.set_term(
        from,
        Terminator::Jump(BlockCall { block: to, args }),
        Span::default(),
    );
}

fn branch(f: &mut Function, from: Block, cond: zy_ir::Value, then_to: Block, else_to: Block) {
    f.set_term(
        from,
        Terminator::Branch {
            cond: v(cond),
            then_to: BlockCall::new(then_to),
            else_to: BlockCall::new(else_to),
        },
        sp(900),
    );
}

fn ret(f: &mut Function, from: Block, x: Operand) {
    f.set_term(from, Terminator::Return(x), sp(999));
}

fn instance(name: &str, args: &[Type]) -> Arc<Instance> {
    Arc::new(Instance {
        name: name.into(),
        method: 0,
        args: args.into(),
    })
}

/// A typed function named `name` with arguments of types `args`, returning `ret_ty`.
fn function(name: &str, args: &[Type], ret_ty: Type) -> (Function, Vec<zy_ir::Value>) {
    let mut f = Function::new(name, Span::default());
    let params = args
        .iter()
        .map(|t| f.add_param(Block::ENTRY, t.clone(), Span::default(), None))
        .collect();
    f.instance = Some(instance(name, args));
    f.ret = ret_ty;
    (f, params)
}

fn program(fs: Vec<Function>) -> TypedProgram {
    let mut p = TypedProgram::default();
    for f in fs {
        assert!(zy_ir::verify(&f).is_empty(), "{:?}", zy_ir::verify(&f));
        let inst = f.instance.clone().expect("test functions have instances");
        p.functions.insert(inst, Arc::new(f));
    }
    p
}

fn call(
    p: &TypedProgram,
    name: &str,
    arg_types: &[Type],
    args: Vec<Value>,
    limits: &Limits,
) -> Result<String, (Span, String)> {
    run(p, &instance(name, arg_types), args, limits)
        .map(|v| show(&v))
        .map_err(|e| (e.span, e.message))
}

/// `pow(x, n)`: `r = 1.0; i = 1; while i <= n; r *= x; i += 1; end; r`.
fn pow_program() -> TypedProgram {
    let (mut f, a) = function("pow", &[Type::Float64, Type::Int64], Type::Float64);
    let (head, body, exit) = (f.add_block(), f.add_block(), f.add_block());
    let r = f.add_param(head, Type::Float64, Span::default(), Some("r".into()));
    let i = f.add_param(head, Type::Int64, Span::default(), Some("i".into()));
    jump(&mut f, Block::ENTRY, head, vec![c_f(1.0), c_i(1)]);
    let c = prim(&mut f, head, Prim::Le, vec![v(i), v(a[1])], Type::Bool, 1);
    branch(&mut f, head, c, body, exit);
    let r2 = prim(
        &mut f,
        body,
        Prim::Mul,
        vec![v(r), v(a[0])],
        Type::Float64,
        2,
    );
    let i2 = prim(&mut f, body, Prim::Add, vec![v(i), c_i(1)], Type::Int64, 3);
    jump(&mut f, body, head, vec![v(r2), v(i2)]);
    ret(&mut f, exit, v(r));
    program(vec![f])
}

#[test]
fn a_loop_carries_values_through_block_parameters() {
    let p = pow_program();
    let ty = [Type::Float64, Type::Int64];
    let l = Limits::default();
    assert_eq!(
        call(&p, "pow", &ty, vec![Value::F64(2.0), Value::Int(10)], &l),
        Ok("1024.0".into())
    );
    assert_eq!(
        call(&p, "pow", &ty, vec![Value::F64(2.0), Value::Int(0)], &l),
        Ok("1.0".into())
    );
    assert_eq!(
        call(&p, "pow", &ty, vec![Value::F64(1.1), Value::Int(3)], &l),
        Ok(show(&Value::F64(1.1 * 1.1 * 1.1)))
    );
}

/// `count(n) = n == 0 ? 0 : 1 + count(n - 1)`; the recursive call is at span 3.
fn count_program() -> TypedProgram {
    let (mut f, a) = function("count", &[Type::Int64], Type::Int64);
    let (base, rec) = (f.add_block(), f.add_block());
    let c = prim(
        &mut f,
        Block::ENTRY,
        Prim::Eq,
        vec![v(a[0]), c_i(0)],
        Type::Bool,
        1,
    );
    branch(&mut f, Block::ENTRY, c, base, rec);
    ret(&mut f, base, c_i(0));
    let m = prim(
        &mut f,
        rec,
        Prim::Sub,
        vec![v(a[0]), c_i(1)],
        Type::Int64,
        2,
    );
    let r = f.push_stmt(
        rec,
        Stmt {
            op: Op::Invoke(instance("count", &[Type::Int64])),
            args: vec![v(m)],
        },
        Type::Int64,
        sp(3),
    );
    let s = prim(&mut f, rec, Prim::Add, vec![c_i(1), v(r)], Type::Int64, 4);
    ret(&mut f, rec, v(s));
    program(vec![f])
}

#[test]
fn recursion_deeper_than_the_limit_is_a_stack_overflow() {
    let p = count_program();
    let small = Limits {
        max_depth: 100,
        ..Limits::default()
    };
    assert_eq!(
        call(&p, "count", &[Type::Int64], vec![Value::Int(50)], &small),
        Ok("50".into())
    );
    assert_eq!(
        call(&p, "count", &[Type::Int64], vec![Value::Int(200)], &small),
        Err((sp(3), "StackOverflowError".into()))
    );
    // The default limit: deep but fine, then far too deep, without overflowing Rust's stack.
    let l = Limits::default();
    assert_eq!(
        call(&p, "count", &[Type::Int64], vec![Value::Int(5000)], &l),
        Ok("5000".into())
    );
    assert_eq!(
        call(&p, "count", &[Type::Int64], vec![Value::Int(1_000_000)], &l),
        Err((sp(3), "StackOverflowError".into()))
    );
}

/// `spin(x) = while true; x += 1.0; end`.
fn spin_program() -> TypedProgram {
    let (mut f, a) = function("spin", &[Type::Float64], Type::Nothing);
    let head = f.add_block();
    let x = f.add_param(head, Type::Float64, Span::default(), None);
    jump(&mut f, Block::ENTRY, head, vec![v(a[0])]);
    let x2 = prim(
        &mut f,
        head,
        Prim::Add,
        vec![v(x), c_f(1.0)],
        Type::Float64,
        1,
    );
    jump(&mut f, head, head, vec![v(x2)]);
    program(vec![f])
}

#[test]
fn an_infinite_loop_stops_at_the_deadline() {
    let p = spin_program();
    let start = Instant::now();
    let l = Limits {
        deadline: Some(start + Duration::from_millis(50)),
        ..Limits::default()
    };
    let err = call(&p, "spin", &[Type::Float64], vec![Value::F64(0.0)], &l).unwrap_err();
    assert_eq!(err.1, "InterruptException: time limit exceeded");
    assert!(start.elapsed() < Duration::from_secs(5), "stopped promptly");
}

#[test]
fn an_infinite_loop_stops_when_cancelled() {
    let p = spin_program();
    let l = Limits {
        cancel: Some(Arc::new(AtomicBool::new(true))),
        ..Limits::default()
    };
    let err = call(&p, "spin", &[Type::Float64], vec![Value::F64(0.0)], &l).unwrap_err();
    assert_eq!(err, (sp(1), "InterruptException: cancelled".into()));
}

/// `const G = zeros(2)`; `main() = (a = G; a[1] = 5.0; b = G; (b[1], a, b))`.
#[test]
fn a_global_is_evaluated_once_per_run() {
    let mut thunk = Function::new("G", Span::default());
    thunk.ret = Type::vector_f64();
    let z = prim(
        &mut thunk,
        Block::ENTRY,
        Prim::Zeros,
        vec![c_i(2)],
        Type::vector_f64(),
        1,
    );
    ret(&mut thunk, Block::ENTRY, v(z));

    let (mut f, _) = function("main", &[], Type::Any);
    let e = Block::ENTRY;
    let a = f.push_stmt(
        e,
        Stmt {
            op: Op::Global("G".into()),
            args: vec![],
        },
        Type::vector_f64(),
        sp(2),
    );
    prim(
        &mut f,
        e,
        Prim::SetIndex,
        vec![v(a), c_f(5.0), c_i(1)],
        Type::Float64,
        3,
    );
    let b = f.push_stmt(
        e,
        Stmt {
            op: Op::Global("G".into()),
            args: vec![],
        },
        Type::vector_f64(),
        sp(4),
    );
    let x = prim(
        &mut f,
        e,
        Prim::GetIndex,
        vec![v(b), c_i(1)],
        Type::Float64,
        5,
    );
    let t = prim(&mut f, e, Prim::Tuple, vec![v(x), v(a), v(b)], Type::Any, 6);
    ret(&mut f, e, v(t));
    let mut p = program(vec![f]);
    p.globals.insert("G".into(), Arc::new(thunk));

    let out = run(&p, &instance("main", &[]), vec![], &Limits::default()).unwrap();
    assert_eq!(show(&out), "(5.0, [5.0, 0.0], [5.0, 0.0])");
    let Value::Tuple(parts) = &out else {
        panic!("not a tuple")
    };
    assert!(parts[1].egal(&parts[2]), "both reads see one array");
    // A new run evaluates the global afresh.
    let again = run(&p, &instance("main", &[]), vec![], &Limits::default()).unwrap();
    let Value::Tuple(fresh) = &again else {
        panic!("not a tuple")
    };
    assert!(!fresh[1].egal(&parts[1]));
}

fn counter_type() -> Arc<StructType> {
    Arc::new(StructType {
        name: "Counter".into(),
        params: vec![],
        fields: vec![("n".into(), Type::Float64)],
        mutable: true,
        kind: StructKind::User,
    })
}

/// `bump!(c) = (c.n += 1.0; nothing)`;
/// `main() = (c = Counter(0.0); t = (c,); bump!(c); bump!(t[1]); c.n)`.
#[test]
fn a_mutable_struct_is_mutated_through_an_alias() {
    let ct = Type::Struct(counter_type());
    let (mut bump, a) = function("bump!", std::slice::from_ref(&ct), Type::Nothing);
    let e = Block::ENTRY;
    let n = prim(
        &mut bump,
        e,
        Prim::GetField,
        vec![v(a[0]), c_i(1)],
        Type::Float64,
        1,
    );
    let n2 = prim(
        &mut bump,
        e,
        Prim::Add,
        vec![v(n), c_f(1.0)],
        Type::Float64,
        2,
    );
    prim(
        &mut bump,
        e,
        Prim::SetField,
        vec![v(a[0]), c_i(1), v(n2)],
        Type::Float64,
        3,
    );
    ret(&mut bump, e, Operand::Const(Const::Nothing));

    let (mut main, _) = function("main", &[], Type::Float64);
    let c = main.push_stmt(
        e,
        Stmt {
            op: Op::New(counter_type()),
            args: vec![c_i(0)],
        },
        ct.clone(),
        sp(4),
    );
    let t = prim(
        &mut main,
        e,
        Prim::Tuple,
        vec![v(c)],
        Type::tuple([ct.clone()]),
        5,
    );
    let bump_inst = instance("bump!", std::slice::from_ref(&ct));
    main.push_stmt(
        e,
        Stmt {
            op: Op::Invoke(bump_inst.clone()),
            args: vec![v(c)],
        },
        Type::Nothing,
        sp(6),
    );
    let alias = prim(
        &mut main,
        e,
        Prim::GetField,
        vec![v(t), c_i(1)],
        ct.clone(),
        7,
    );
    main.push_stmt(
        e,
        Stmt {
            op: Op::Invoke(bump_inst),
            args: vec![v(alias)],
        },
        Type::Nothing,
        sp(8),
    );
    let r = prim(
        &mut main,
        e,
        Prim::GetField,
        vec![v(c), c_i(1)],
        Type::Float64,
        9,
    );
    ret(&mut main, e, v(r));

    let p = program(vec![bump, main]);
    assert_eq!(
        call(&p, "main", &[], vec![], &Limits::default()),
        Ok("2.0".into())
    );
}

/// `get4(x) = x[4]`, called from `outer(x) = 2 * get4(x)`: the error points into `get4`.
#[test]
fn errors_carry_the_failing_statements_span() {
    let vt = Type::vector_f64();
    let (mut inner, a) = function("get4", std::slice::from_ref(&vt), Type::Float64);
    let x = prim(
        &mut inner,
        Block::ENTRY,
        Prim::GetIndex,
        vec![v(a[0]), c_i(4)],
        Type::Float64,
        7,
    );
    ret(&mut inner, Block::ENTRY, v(x));
    let (mut outer, b) = function("outer", std::slice::from_ref(&vt), Type::Float64);
    let y = outer.push_stmt(
        Block::ENTRY,
        Stmt {
            op: Op::Invoke(instance("get4", std::slice::from_ref(&vt))),
            args: vec![v(b[0])],
        },
        Type::Float64,
        sp(1),
    );
    let z = prim(
        &mut outer,
        Block::ENTRY,
        Prim::Mul,
        vec![c_f(2.0), v(y)],
        Type::Float64,
        2,
    );
    ret(&mut outer, Block::ENTRY, v(z));
    let p = program(vec![inner, outer]);
    let l = Limits::default();
    assert_eq!(
        call(
            &p,
            "outer",
            &[vt.clone()],
            vec![Value::vector_f64(vec![1.0, 2.0, 3.0])],
            &l
        ),
        Err((
            sp(7),
            "BoundsError: attempt to access 3-element Vector{Float64} at index [4]".into()
        ))
    );
    assert_eq!(
        call(
            &p,
            "outer",
            &[vt],
            vec![Value::vector_f64(vec![1.0, 2.0, 3.0, 4.5])],
            &l
        ),
        Ok("9.0".into())
    );
}

/// `f(c) = (if c; y = 1.0; end; y + 1.0)`: `y` is undefined when `c` is false.
#[test]
fn an_undefined_local_fails_where_it_is_used() {
    let (mut f, a) = function("f", &[Type::Bool], Type::Float64);
    let (then_b, join) = (f.add_block(), f.add_block());
    let y = f.add_param(join, Type::Float64, Span::default(), Some("y".into()));
    let u = prim(
        &mut f,
        Block::ENTRY,
        Prim::Undef,
        vec![Operand::Const(Const::Symbol("y".into()))],
        Type::Bottom,
        1,
    );
    f.set_term(
        Block::ENTRY,
        Terminator::Branch {
            cond: v(a[0]),
            then_to: BlockCall::new(then_b),
            else_to: BlockCall {
                block: join,
                args: vec![v(u)],
            },
        },
        sp(900),
    );
    jump(&mut f, then_b, join, vec![c_f(1.0)]);
    let z = prim(
        &mut f,
        join,
        Prim::Add,
        vec![v(y), c_f(1.0)],
        Type::Float64,
        5,
    );
    ret(&mut f, join, v(z));
    let p = program(vec![f]);
    let l = Limits::default();
    assert_eq!(
        call(&p, "f", &[Type::Bool], vec![Value::Bool(true)], &l),
        Ok("2.0".into())
    );
    assert_eq!(
        call(&p, "f", &[Type::Bool], vec![Value::Bool(false)], &l),
        Err((sp(5), "UndefVarError: y not defined".into()))
    );
}

/// `f(c) = c ? 1 : 2.5` with the join typed Float64 (SPEC's join rule): the Int converts.
#[test]
fn an_int_meeting_a_float_at_a_join_becomes_a_float() {
    let (mut f, a) = function("f", &[Type::Bool], Type::Float64);
    let (t, e, join) = (f.add_block(), f.add_block(), f.add_block());
    let r = f.add_param(join, Type::Float64, Span::default(), None);
    branch(&mut f, Block::ENTRY, a[0], t, e);
    jump(&mut f, t, join, vec![c_i(1)]);
    jump(&mut f, e, join, vec![c_f(2.5)]);
    ret(&mut f, join, v(r));
    let p = program(vec![f]);
    let l = Limits::default();
    assert_eq!(
        call(&p, "f", &[Type::Bool], vec![Value::Bool(true)], &l),
        Ok("1.0".into())
    );
    assert_eq!(
        call(&p, "f", &[Type::Bool], vec![Value::Bool(false)], &l),
        Ok("2.5".into())
    );
}

/// `back = make_pullback(f⁻, 0, x)`; `back(2.0)` runs `f⁻(tape, ȳ) = tape * ȳ`.
#[test]
fn a_pullback_closure_runs_its_instance_on_its_tape() {
    let pair = [Type::Float64, Type::Float64];
    let (mut back_fn, a) = function("f⁻", &pair, Type::Float64);
    let g = prim(
        &mut back_fn,
        Block::ENTRY,
        Prim::Mul,
        vec![v(a[0]), v(a[1])],
        Type::Float64,
        1,
    );
    ret(&mut back_fn, Block::ENTRY, v(g));

    let (mut main, x) = function("main", &[Type::Float64], Type::Float64);
    let e = Block::ENTRY;
    let pb_ty = Type::Pullback(pair.to_vec().into());
    let back = prim(
        &mut main,
        e,
        Prim::MakePullback,
        vec![Operand::Const(Const::Func("f⁻".into())), c_i(0), v(x[0])],
        pb_ty,
        2,
    );
    let r = prim(
        &mut main,
        e,
        Prim::CallPullback,
        vec![v(back), c_f(2.0)],
        Type::Float64,
        3,
    );
    let s = prim(
        &mut main,
        e,
        Prim::Add,
        vec![v(r), c_f(0.5)],
        Type::Float64,
        4,
    );
    ret(&mut main, e, v(s));
    let p = program(vec![back_fn, main]);
    assert_eq!(
        call(
            &p,
            "main",
            &[Type::Float64],
            vec![Value::F64(3.0)],
            &Limits::default()
        ),
        Ok("6.5".into())
    );
}

#[test]
fn a_missing_instance_or_wrong_arity_is_an_internal_error() {
    let p = pow_program();
    let l = Limits::default();
    assert_eq!(
        call(&p, "nope", &[], vec![], &l).unwrap_err().1,
        "internal error: no typed body for nope()"
    );
    assert_eq!(
        call(
            &p,
            "pow",
            &[Type::Float64, Type::Int64],
            vec![Value::F64(1.0)],
            &l
        )
        .unwrap_err()
        .1,
        "internal error: pow takes 2 arguments, got 1"
    );
}

/// `mul(A, B) = A * B`: one statement, so only the product itself can notice the deadline.
#[test]
fn a_large_matrix_product_stops_at_the_deadline() {
    let mt = Type::matrix_f64();
    let (mut f, a) = function("mul", &[mt.clone(), mt.clone()], mt.clone());
    let c = prim(
        &mut f,
        Block::ENTRY,
        Prim::MatMul,
        vec![v(a[0]), v(a[1])],
        mt.clone(),
        1,
    );
    ret(&mut f, Block::ENTRY, v(c));
    let p = program(vec![f]);
    let big = || Value::matrix_f64(300, 300, vec![1.0; 90_000]).unwrap();
    let expired = Limits {
        deadline: Some(Instant::now()),
        ..Limits::default()
    };
    assert_eq!(
        call(
            &p,
            "mul",
            &[mt.clone(), mt.clone()],
            vec![big(), big()],
            &expired
        ),
        Err((sp(1), "InterruptException: time limit exceeded".into()))
    );
    let small = || Value::matrix_f64(1, 1, vec![3.0]).unwrap();
    assert_eq!(
        call(
            &p,
            "mul",
            &[mt.clone(), mt],
            vec![small(), small()],
            &Limits::default()
        ),
        Ok("[9.0;;]".into())
    );
}
