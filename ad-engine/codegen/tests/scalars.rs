//! Scalar code compiled by the JIT agrees with the interpreter, bit for bit: integer
//! wrap-around, float operations, elementary functions, comparisons, branches, loops, calls,
//! recursion, and the errors and limits.

mod support;

use std::time::{Duration, Instant};

use support::*;
use zy_interp::{Limits, RuntimeError, Value};
use zy_ir::{Block, Instance, Prim, Type, TypedProgram};

#[test]
fn int_arithmetic_wraps_and_divides_like_julia() {
    // f(a, b) = (a * b + a ÷ b) + a % b
    let mut fb = Fb::new("f", &[Type::Int64, Type::Int64], Type::Int64);
    let (a, b) = (fb.args[0], fb.args[1]);
    let e = Block::ENTRY;
    let m = fb.prim(e, Prim::Mul, vec![v(a), v(b)], Type::Int64, 10);
    let d = fb.prim(e, Prim::IntDiv, vec![v(a), v(b)], Type::Int64, 11);
    let r = fb.prim(e, Prim::Rem, vec![v(a), v(b)], Type::Int64, 12);
    let s = fb.prim(e, Prim::Add, vec![v(m), v(d)], Type::Int64, 13);
    let t = fb.prim(e, Prim::Add, vec![v(s), v(r)], Type::Int64, 14);
    fb.ret(e, v(t));
    let inst = fb.inst();
    let prog = program(vec![fb]);
    // 7 * -2 + (-3) + 1 = -16
    assert_eq!(
        check(&prog, &inst, vec![Value::Int(7), Value::Int(-2)]),
        "-16"
    );
    // typemax * 3 wraps to 2^63 - 3; ÷ 3 = 3074457345618258602, % 3 = 1;
    // (2^63 - 3) + 3074457345618258602 wraps to -6148914691236517209, + 1.
    assert_eq!(
        check(&prog, &inst, vec![Value::Int(i64::MAX), Value::Int(3)]),
        "-6148914691236517208"
    );
    // typemin % -1 is 0, but typemin ÷ -1 is a DivideError at the ÷ statement.
    assert_eq!(
        check(&prog, &inst, vec![Value::Int(i64::MIN), Value::Int(-1)]),
        "error at 11..12: DivideError: integer division error"
    );
    assert_eq!(
        check(&prog, &inst, vec![Value::Int(5), Value::Int(0)]),
        "error at 11..12: DivideError: integer division error"
    );
}

#[test]
fn float_operations_and_elementary_functions_match_bits() {
    // g(x) = sin(cos(x)) + exp(x) * log(x) - sqrt(x) / x^3 + max(x, 1.5) + round(x) + tanh(x)
    let mut fb = Fb::new("g", &[Type::Float64], Type::Float64);
    let x = fb.args[0];
    let e = Block::ENTRY;
    let fl = Type::Float64;
    let c = fb.prim(e, Prim::Cos, vec![v(x)], fl.clone(), 10);
    let s = fb.prim(e, Prim::Sin, vec![v(c)], fl.clone(), 11);
    let ex = fb.prim(e, Prim::Exp, vec![v(x)], fl.clone(), 12);
    let lg = fb.prim(e, Prim::Log, vec![v(x)], fl.clone(), 13);
    let m = fb.prim(e, Prim::Mul, vec![v(ex), v(lg)], fl.clone(), 14);
    let sq = fb.prim(e, Prim::Sqrt, vec![v(x)], fl.clone(), 15);
    let p = fb.prim(e, Prim::Pow, vec![v(x), i(3)], fl.clone(), 16);
    let q = fb.prim(e, Prim::Div, vec![v(sq), v(p)], fl.clone(), 17);
    let mx = fb.prim(e, Prim::Max, vec![v(x), f(1.5)], fl.clone(), 18);
    let rd = fb.prim(e, Prim::Round, vec![v(x)], fl.clone(), 19);
    let th = fb.prim(e, Prim::Tanh, vec![v(x)], fl.clone(), 20);
    let a1 = fb.prim(e, Prim::Add, vec![v(s), v(m)], fl.clone(), 21);
    let a2 = fb.prim(e, Prim::Sub, vec![v(a1), v(q)], fl.clone(), 22);
    let a3 = fb.prim(e, Prim::Add, vec![v(a2), v(mx)], fl.clone(), 23);
    let a4 = fb.prim(e, Prim::Add, vec![v(a3), v(rd)], fl.clone(), 24);
    let a5 = fb.prim(e, Prim::Add, vec![v(a4), v(th)], fl.clone(), 25);
    fb.ret(e, v(a5));
    let inst = fb.inst();
    let prog = program(vec![fb]);
    let expect = |x: f64| {
        let r = x.cos().sin() + x.exp() * x.ln() - x.sqrt() / (x * x * x)
            + x.max(1.5)
            + x.round_ties_even()
            + x.tanh();
        zy_ir::julia_float(r)
    };
    for x in [0.5, 1.0, 2.5, 3.7] {
        assert_eq!(
            check(&prog, &inst, vec![Value::F64(x)]),
            expect(x),
            "at {x}"
        );
    }
    // log of a negative number is the interpreter's DomainError, at the log statement.
    let out = check(&prog, &inst, vec![Value::F64(-1.0)]);
    assert!(
        out.starts_with("error at 13..14: DomainError with -1.0:"),
        "{out}"
    );
}

#[test]
fn comparisons_branches_and_int_to_float_joins() {
    // h(x, n) = x < 1.5 ? n : x * 2.0   (the Int joins a Float64 φ)
    let mut fb = Fb::new("h", &[Type::Float64, Type::Int64], Type::Float64);
    let (x, n) = (fb.args[0], fb.args[1]);
    let e = Block::ENTRY;
    let (t, _) = fb.block(&[]);
    let (el, _) = fb.block(&[]);
    let (join, ps) = fb.block(&[Type::Float64]);
    let c = fb.prim(e, Prim::Lt, vec![v(x), f(1.5)], Type::Bool, 10);
    fb.branch(e, v(c), (t, vec![]), (el, vec![]));
    fb.jump(t, join, vec![v(n)]);
    let d = fb.prim(el, Prim::Mul, vec![v(x), f(2.0)], Type::Float64, 11);
    fb.jump(el, join, vec![v(d)]);
    fb.ret(join, v(ps[0]));
    let inst = fb.inst();
    let prog = program(vec![fb]);
    assert_eq!(
        check(&prog, &inst, vec![Value::F64(1.0), Value::Int(7)]),
        "7.0"
    );
    assert_eq!(
        check(&prog, &inst, vec![Value::F64(2.25), Value::Int(7)]),
        "4.5"
    );
    assert_eq!(
        check(&prog, &inst, vec![Value::F64(f64::NAN), Value::Int(7)]),
        "NaN"
    );
}

#[test]
fn loops_run_to_the_same_result() {
    let fb = pow_fn();
    let inst = fb.inst();
    let prog = program(vec![fb]);
    assert_eq!(
        check(&prog, &inst, vec![Value::F64(2.0), Value::Int(10)]),
        "1024.0"
    );
    assert_eq!(
        check(&prog, &inst, vec![Value::F64(1.1), Value::Int(3)]),
        zy_ir::julia_float(1.1 * 1.1 * 1.1)
    );
    assert_eq!(
        check(&prog, &inst, vec![Value::F64(3.0), Value::Int(-1)]),
        "1.0"
    );
}

#[test]
fn calls_pass_and_return_values() {
    // cube(x) = pow(x, 3) + 1.0
    let p = pow_fn();
    let pow_inst = p.inst();
    let mut fb = Fb::new("cube", &[Type::Float64], Type::Float64);
    let x = fb.args[0];
    let e = Block::ENTRY;
    let c = fb.invoke(e, pow_inst, vec![v(x), i(3)], Type::Float64);
    let r = fb.prim(e, Prim::Add, vec![v(c), f(1.0)], Type::Float64, 10);
    fb.ret(e, v(r));
    let inst = fb.inst();
    let prog = program(vec![fb, p]);
    assert_eq!(check(&prog, &inst, vec![Value::F64(1.5)]), "4.375");
}

/// fib(n) = n < 2 ? n : fib(n - 1) + fib(n - 2)
fn fib_fn() -> Fb {
    let mut fb = Fb::new("fib", &[Type::Int64], Type::Int64);
    let n = fb.args[0];
    let inst = fb.inst();
    let e = Block::ENTRY;
    let (small, _) = fb.block(&[]);
    let (big, _) = fb.block(&[]);
    let c = fb.prim(e, Prim::Lt, vec![v(n), i(2)], Type::Bool, 10);
    fb.branch(e, v(c), (small, vec![]), (big, vec![]));
    fb.ret(small, v(n));
    let a = fb.prim(big, Prim::Sub, vec![v(n), i(1)], Type::Int64, 11);
    let b = fb.prim(big, Prim::Sub, vec![v(n), i(2)], Type::Int64, 12);
    let fa = fb.invoke(big, inst.clone(), vec![v(a)], Type::Int64);
    let fbv = fb.invoke(big, inst, vec![v(b)], Type::Int64);
    let s = fb.prim(big, Prim::Add, vec![v(fa), v(fbv)], Type::Int64, 13);
    fb.ret(big, v(s));
    fb
}

#[test]
fn recursion_works_and_deep_recursion_is_a_stack_overflow() {
    let fb = fib_fn();
    let inst = fb.inst();
    let prog = program(vec![fb]);
    assert_eq!(check(&prog, &inst, vec![Value::Int(20)]), "6765");
    // down(n) = down(n + 1): never returns.
    let mut fb = Fb::new("down", &[Type::Int64], Type::Int64);
    let n = fb.args[0];
    let me = fb.inst();
    let k = fb.prim(Block::ENTRY, Prim::Add, vec![v(n), i(1)], Type::Int64, 10);
    let r = fb.invoke(Block::ENTRY, me.clone(), vec![v(k)], Type::Int64);
    fb.ret(Block::ENTRY, v(r));
    let prog = program(vec![fb]);
    let out = check(&prog, &me, vec![Value::Int(0)]);
    assert!(out.ends_with(": StackOverflowError"), "{out}");
}

/// Run `inst` on `arg` with a deadline 50 ms away: it must end with the interrupt well within
/// 2 s. Returns the error (for its span).
fn stops_at_deadline(prog: &TypedProgram, inst: &Instance, arg: Value) -> RuntimeError {
    let mut jit = zy_codegen::JitSession::new().unwrap();
    let compiled = jit.compile(prog, inst).unwrap();
    let start = Instant::now();
    let limits = Limits {
        deadline: Some(start + Duration::from_millis(50)),
        ..Limits::default()
    };
    let err = compiled.call(&[arg], &limits).unwrap_err();
    assert_eq!(err.message, "InterruptException: time limit exceeded");
    assert!(start.elapsed() < Duration::from_secs(2));
    err
}

#[test]
fn a_runaway_loop_stops_at_the_deadline() {
    // spin(x) = while true; x += 1.0; end
    let mut fb = Fb::new("spin", &[Type::Float64], Type::Float64);
    let x = fb.args[0];
    let (head, hp) = fb.block(&[Type::Float64]);
    fb.jump(Block::ENTRY, head, vec![v(x)]);
    let y = fb.prim(head, Prim::Add, vec![v(hp[0]), f(1.0)], Type::Float64, 10);
    fb.jump(head, head, vec![v(y)]);
    let inst = fb.inst();
    let prog = program(vec![fb]);
    let err = stops_at_deadline(&prog, &inst, Value::F64(0.0));
    assert_eq!((err.span.start, err.span.end), (3, 4));
}

/// `name(x) = (i = 0; while i < 4096; x = step(x); i += 1; end; x)` where `step` is
/// `callee` or `x + 1.0`.
fn loop_of(name: &str, callee: Option<std::sync::Arc<zy_ir::Instance>>) -> Fb {
    let (fl, int) = (Type::Float64, Type::Int64);
    let mut fb = Fb::new(name, std::slice::from_ref(&fl), fl.clone());
    let x = fb.args[0];
    let (head, hp) = fb.block(&[fl.clone(), int.clone()]);
    let (body, _) = fb.block(&[]);
    let (exit, _) = fb.block(&[]);
    fb.jump(Block::ENTRY, head, vec![v(x), i(0)]);
    let more = fb.prim(head, Prim::Lt, vec![v(hp[1]), i(4096)], Type::Bool, 10);
    fb.branch(head, v(more), (body, vec![]), (exit, vec![]));
    let y = match callee {
        Some(c) => fb.invoke(body, c, vec![v(hp[0])], fl),
        None => fb.prim(body, Prim::Add, vec![v(hp[0]), f(1.0)], fl, 11),
    };
    let k = fb.prim(body, Prim::Add, vec![v(hp[1]), i(1)], int, 12);
    fb.jump(body, head, vec![v(y), v(k)]);
    fb.ret(exit, v(hp[0]));
    fb
}

#[test]
fn nested_calls_of_short_loops_share_one_fuel_and_stop_at_the_deadline() {
    // Three levels of 4096 iterations each (2^36 in all): no single activation loops long
    // enough to poll on its own count, so the functions' register fuel must meet in the
    // context (stored before calls and returns, reloaded after) for the deadline to be seen.
    let f3 = loop_of("f3", None);
    let f2 = loop_of("f2", Some(f3.inst()));
    let f1 = loop_of("f1", Some(f2.inst()));
    let inst = f1.inst();
    let prog = program(vec![f3, f2, f1]);
    stops_at_deadline(&prog, &inst, Value::F64(0.0));
}

#[test]
fn max_min_sign_follow_julia_on_nan_and_signed_zeros() {
    // m(x, y) = (max(x, y), min(x, y), sign(x), sin(y))
    let fl = Type::Float64;
    let tup = Type::tuple([fl.clone(), fl.clone(), fl.clone(), fl.clone()]);
    let mut fb = Fb::new("m", &[fl.clone(), fl.clone()], tup.clone());
    let (x, y) = (fb.args[0], fb.args[1]);
    let e = Block::ENTRY;
    let a = fb.prim(e, Prim::Max, vec![v(x), v(y)], fl.clone(), 10);
    let b = fb.prim(e, Prim::Min, vec![v(x), v(y)], fl.clone(), 11);
    let s = fb.prim(e, Prim::Sign, vec![v(x)], fl.clone(), 12);
    let sn = fb.prim(e, Prim::Sin, vec![v(y)], fl.clone(), 13);
    let t = fb.prim(e, Prim::Tuple, vec![v(a), v(b), v(s), v(sn)], tup, 14);
    fb.ret(e, v(t));
    let inst = fb.inst();
    let prog = program(vec![fb]);
    let run = |x: f64, y: f64| check(&prog, &inst, vec![Value::F64(x), Value::F64(y)]);
    assert_eq!(run(-0.0, 0.0), "(0.0, -0.0, -0.0, 0.0)");
    assert_eq!(run(0.0, -0.0), "(0.0, -0.0, 0.0, -0.0)");
    assert_eq!(run(f64::NAN, 1.0), "(NaN, NaN, NaN, 0.8414709848078965)");
    assert_eq!(run(-2.0, f64::NAN), "(NaN, NaN, -1.0, NaN)");
    let out = run(1.0, f64::INFINITY);
    assert!(
        out.starts_with("error at 13..14: DomainError with Inf:"),
        "{out}"
    );
}

#[test]
fn an_undefined_local_is_an_error_only_where_it_is_used() {
    // u(c, x) = (if c; y = x * 2.0; end; z = x + 1.0; y + z)
    let fl = Type::Float64;
    let mut fb = Fb::new("u", &[Type::Bool, fl.clone()], fl.clone());
    let (c, x) = (fb.args[0], fb.args[1]);
    let e = Block::ENTRY;
    let (t, _) = fb.block(&[]);
    let (el, _) = fb.block(&[]);
    let (join, ps) = fb.block(std::slice::from_ref(&fl));
    fb.branch(e, v(c), (t, vec![]), (el, vec![]));
    let y = fb.prim(t, Prim::Mul, vec![v(x), f(2.0)], fl.clone(), 10);
    fb.jump(t, join, vec![v(y)]);
    let sym = zy_ir::Operand::Const(zy_ir::Const::Symbol("y".into()));
    let u = fb.prim(el, Prim::Undef, vec![sym], Type::Bottom, 11);
    fb.jump(el, join, vec![v(u)]);
    let z = fb.prim(join, Prim::Add, vec![v(x), f(1.0)], fl.clone(), 12);
    let s = fb.prim(join, Prim::Add, vec![v(ps[0]), v(z)], fl.clone(), 13);
    fb.ret(join, v(s));
    let inst = fb.inst();
    let prog = program(vec![fb]);
    assert_eq!(
        check(&prog, &inst, vec![Value::Bool(true), Value::F64(1.5)]),
        "5.5"
    );
    assert_eq!(
        check(&prog, &inst, vec![Value::Bool(false), Value::F64(1.5)]),
        "error at 13..14: UndefVarError: y not defined"
    );
}

#[test]
fn compiled_code_is_shared_across_threads_and_reused() {
    fn send_sync<T: Send + Sync>() {}
    fn send<T: Send>() {}
    send_sync::<zy_codegen::CompiledFn>();
    send::<zy_codegen::JitSession>();
    let fb = pow_fn();
    let inst = fb.inst();
    let prog = program(vec![fb]);
    let mut jit = zy_codegen::JitSession::new().unwrap();
    let a = jit.compile(&prog, &inst).unwrap();
    let b = jit.compile(&prog, &inst).unwrap();
    assert_eq!(a, b);
    assert_eq!(jit.compilations(), 1);
    // The code outlives its session.
    drop(jit);
    let run = move || {
        a.call(&[Value::F64(2.0), Value::Int(5)], &Limits::default())
            .map(|v| zy_interp::show(&v))
    };
    let out = std::thread::spawn(run).join().unwrap();
    assert_eq!(out, Ok("32.0".to_string()));
}

#[test]
fn runaway_recursion_stops_at_the_deadline() {
    // fib(60) makes about 10^12 calls but never recurses deeper than 60.
    let fb = fib_fn();
    let inst = fb.inst();
    let prog = program(vec![fb]);
    stops_at_deadline(&prog, &inst, Value::Int(60));
    // The cancel flag stops it too.
    let compiled = zy_codegen::JitSession::new()
        .and_then(|mut jit| jit.compile(&prog, &inst))
        .unwrap();
    let flag = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(true));
    let limits = Limits {
        cancel: Some(flag),
        ..Limits::default()
    };
    let err = compiled.call(&[Value::Int(60)], &limits).unwrap_err();
    assert_eq!(err.message, "InterruptException: cancelled");
}

#[test]
fn a_deep_chain_of_calls_counts_frames_like_the_interpreter() {
    // f0(x) = f1(x) + 1.0, ..., f299(x) = x: no recursion, but 300 frames deep.
    let n = 300;
    let inst = |k: usize| {
        std::sync::Arc::new(zy_ir::Instance {
            name: format!("f{k}").into(),
            method: 0,
            args: vec![Type::Float64].into(),
        })
    };
    let mut fs = Vec::new();
    for k in 0..n {
        let mut fb = Fb::new(&format!("f{k}"), &[Type::Float64], Type::Float64);
        let x = fb.args[0];
        if k + 1 == n {
            fb.ret(Block::ENTRY, v(x));
        } else {
            let y = fb.invoke(Block::ENTRY, inst(k + 1), vec![v(x)], Type::Float64);
            let z = fb.prim(
                Block::ENTRY,
                Prim::Add,
                vec![v(y), f(1.0)],
                Type::Float64,
                10,
            );
            fb.ret(Block::ENTRY, v(z));
        }
        fs.push(fb);
    }
    let prog = program(fs);
    assert_eq!(check(&prog, &inst(0), vec![Value::F64(0.5)]), "299.5");
    let shallow = Limits {
        max_depth: 100,
        ..Limits::default()
    };
    assert_eq!(
        check_with(&prog, &inst(0), vec![Value::F64(0.5)], &shallow),
        "error at 1..2: StackOverflowError"
    );
}
