//! Forward and pullback functions made by the AD compile like any typed IR: the JIT's gradients
//! equal the interpreter's, bit for bit.

use crate::support;

use support::*;
use zy_interp::Value;
use zy_ir::{Block, Prim, Type};

#[test]
fn a_bound_gradient_runs_again_and_again_on_reused_memory() {
    let fb = pow_fn();
    let inst = fb.inst();
    let prog = program(vec![fb]);
    let (grad, prog) = zy_ad::gradient_program(&prog, &inst).expect("differentiable");
    let f = zy_codegen::JitSession::new()
        .and_then(|mut s| s.compile(&prog, &grad))
        .expect("compiles");
    let limits = zy_interp::Limits::default();
    let args = [Value::F64(1.5), Value::Int(3)];
    let mut call = f.bind(&args, &limits).expect("binds");
    for _ in 0..3 {
        // The tape's stack is reused: each run starts it empty.
        let words = call.run().expect("runs");
        // (y, (x̄, nothing)): two Float64 slots.
        assert_eq!(
            (f64::from_bits(words[0]), f64::from_bits(words[1])),
            (3.375, 6.75)
        );
    }
    assert_eq!(
        zy_interp::show(&call.result().expect("converts")),
        "(3.375, (6.75, nothing))"
    );
    // Another binding of the same code has its own arguments.
    let zero = [Value::F64(2.0), Value::Int(0)];
    let mut call = f.bind(&zero, &limits).expect("binds");
    assert_eq!(call.run().map(|w| f64::from_bits(w[1])), Ok(0.0));
}

#[test]
fn gradient_of_sin_of_cos() {
    // sincos(x) = sin(cos(x))
    let mut fb = Fb::new("sincos", &[Type::Float64], Type::Float64);
    let x = fb.args[0];
    let c = fb.prim(Block::ENTRY, Prim::Cos, vec![v(x)], Type::Float64, 10);
    let s = fb.prim(Block::ENTRY, Prim::Sin, vec![v(c)], Type::Float64, 11);
    fb.ret(Block::ENTRY, v(s));
    let inst = fb.inst();
    let prog = program(vec![fb]);
    let (grad, prog) = zy_ad::gradient_program(&prog, &inst).expect("differentiable");
    let x = 0.7f64;
    let expect = format!(
        "({}, ({},))",
        zy_ir::julia_float(x.cos().sin()),
        zy_ir::julia_float(x.cos().cos() * -x.sin())
    );
    // Products of two factors and negation are exact in any order, so this is bit for bit.
    assert_eq!(check(&prog, &grad, vec![Value::F64(x)]), expect);
    // The forward pass's cos(x) and the pullback's sin(x) are one sincos(x), as are sin(c)
    // and cos(c): two calls where there were four.
    let clif = zy_codegen::clif_text(&prog, &grad).unwrap();
    let driver = clif.split("; sincos").next().unwrap_or_default();
    let sincos = driver
        .lines()
        .find(|l| l.ends_with("; zy_rt_sincos"))
        .and_then(|l| l.split_whitespace().next())
        .unwrap_or("none");
    assert_eq!(
        driver.matches(&format!("call {sincos}(")).count(),
        2,
        "{driver}"
    );
    assert!(!driver.contains("; zy_rt_sin\n") && !driver.contains("; zy_rt_cos\n"));
    // cos(Inf) is the first statement's DomainError.
    let out = check(&prog, &grad, vec![Value::F64(f64::INFINITY)]);
    assert!(out.starts_with("error at 10..11: DomainError"), "{out}");
}

#[test]
fn the_derivative_of_an_affine_function_compiles_to_a_constant() {
    // f(x) = 5x + 3: after inlining f⁺ and f⁻ into ∇f, the gradient is the constant 5.0.
    let mut fb = Fb::new("f", &[Type::Float64], Type::Float64);
    let x = fb.args[0];
    let m = fb.prim(
        Block::ENTRY,
        Prim::Mul,
        vec![f(5.0), v(x)],
        Type::Float64,
        10,
    );
    let s = fb.prim(
        Block::ENTRY,
        Prim::Add,
        vec![v(m), f(3.0)],
        Type::Float64,
        11,
    );
    fb.ret(Block::ENTRY, v(s));
    let inst = fb.inst();
    let prog = program(vec![fb]);
    let (grad, prog) = zy_ad::gradient_program(&prog, &inst).expect("differentiable");
    let clif = zy_codegen::clif_text(&prog, &grad).unwrap();
    let driver = clif.split("\n; ").next().unwrap_or_default();
    assert!(driver.starts_with("; ∇f(::Float64)"), "{clif}");
    assert!(!driver.contains("call"), "calls left in ∇f:\n{driver}");
    // The returned gradient is the literal 5.0 (0x1.4p2), not a product computed at run time.
    let ret = driver
        .lines()
        .find(|l| l.trim_start().starts_with("return v") && !l.contains("0.0"))
        .unwrap_or_default();
    assert!(ret.contains("0x1.4000000000000p2"), "{driver}");
    assert_eq!(check(&prog, &grad, vec![Value::F64(2.0)]), "(13.0, (5.0,))");
}
