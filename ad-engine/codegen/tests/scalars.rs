//! Scalar code compiled by the JIT under limits: deadlines and cancellation stop loops,
//! recursion and nested calls; compiled code is shared across threads; call depth counts like
//! the interpreter's. (Arithmetic, branches, loops, calls and their errors are IR filetests in
//! `fixtures/ir/`.)

use crate::support;

use std::time::{Duration, Instant};

use support::*;
use zy_interp::{Limits, RuntimeError, Value};
use zy_ir::{Block, Instance, Prim, Type, TypedProgram};

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

/// down(n) = n == 0 ? 0 : down(n - 1) + 1
fn down_fn() -> Fb {
    let mut fb = Fb::new("down", &[Type::Int64], Type::Int64);
    let n = fb.args[0];
    let inst = fb.inst();
    let e = Block::ENTRY;
    let (zero, _) = fb.block(&[]);
    let (more, _) = fb.block(&[]);
    let c = fb.prim(e, Prim::Eq, vec![v(n), i(0)], Type::Bool, 10);
    fb.branch(e, v(c), (zero, vec![]), (more, vec![]));
    fb.ret(zero, i(0));
    let m = fb.prim(more, Prim::Sub, vec![v(n), i(1)], Type::Int64, 11);
    let r = fb.invoke(more, inst, vec![v(m)], Type::Int64);
    let s = fb.prim(more, Prim::Add, vec![v(r), i(1)], Type::Int64, 12);
    fb.ret(more, v(s));
    fb
}

#[test]
fn deep_recursion_runs_on_a_large_stack_and_overflows_with_an_error() {
    let fb = down_fn();
    let inst = fb.inst();
    let prog = program(vec![fb]);
    let compiled = zy_codegen::JitSession::new()
        .and_then(|mut jit| jit.compile(&prog, &inst))
        .unwrap();
    let unbounded = Limits {
        max_depth: usize::MAX,
        ..Limits::default()
    };
    let compiled = std::sync::Arc::new(compiled);
    let run = move |n: i64| {
        let r = compiled.call(&[Value::Int(n)], &unbounded);
        render(&r)
    };
    // Threads with small stacks of their own, each calling repeatedly: the recursion runs on
    // the thread's reused deep stack, and past that stack's end it is a StackOverflowError at
    // the recursive call, not a crash.
    let threads: Vec<_> = (0..3)
        .map(|_| {
            let run = run.clone();
            std::thread::Builder::new()
                .stack_size(256 << 10)
                .spawn(move || {
                    (0..3)
                        .map(|_| (run(100_000), run(1_000_000), run(100_000_000)))
                        .collect::<Vec<_>>()
                })
                .unwrap()
        })
        .collect();
    for t in threads {
        for (a, b, c) in t.join().unwrap() {
            assert_eq!(a, "100000");
            assert_eq!(b, "1000000");
            assert_eq!(c, "error at 1..2: StackOverflowError");
        }
    }
    // Under the default limits, the interpreter's depth limit, on both engines.
    assert_eq!(
        check(&prog, &inst, vec![Value::Int(1_000_000)]),
        "error at 1..2: StackOverflowError"
    );
}
