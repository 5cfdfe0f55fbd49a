//! Differentiating code that differentiates: the transform consumes its own output.

use crate::common;

use zy_interp::{run, Limits, Value};

/// Evaluate `call` in `src` after expanding the differentiation builtins.
fn eval(src: &str, call: &str) -> f64 {
    let src = format!("{src}\nzycall__() = {call}\n");
    let program = common::run::program(&src);
    let (inst, prog) =
        zy_infer::infer_entry(&program, "zycall__", &[]).unwrap_or_else(|e| panic!("{e:?}"));
    let prog = zy_ad::expand(&prog).unwrap_or_else(|e| panic!("{}", e.message));
    match run(&prog, &inst, vec![], &Limits::default()) {
        Ok(Value::F64(y)) => y,
        other => panic!("{call}: {other:?}"),
    }
}

const POW: &str = "
function pow(x, n)
    r = 1.0
    for i in 1:n
        r *= x
    end
    return r
end
d1(x) = derivative(z -> pow(z, 3), x)
d2(x) = derivative(d1, x)
d3(x) = derivative(d2, x)";

#[test]
fn derivatives_through_a_loop() {
    // x³: 3x², 6x, 6
    assert!((eval(POW, "d1(2.0)") - 12.0).abs() < 1e-12);
    assert!((eval(POW, "d2(2.0)") - 12.0).abs() < 1e-12);
    assert!((eval(POW, "d3(2.0)") - 6.0).abs() < 1e-12);
}

#[test]
fn hessian_of_a_function_with_a_loop() {
    let src = "
function energy(x)
    e = 0.0
    for i in 1:length(x)
        e += x[i]^2 * x[1]
    end
    return e
end
h12(x) = hessian(energy, x)[1, 2]
h11(x) = hessian(energy, x)[1, 1]";
    // e = x1³ + x1 x2²: ∂²/∂x1∂x2 = 2 x2, ∂²/∂x1² = 6 x1
    assert!((eval(src, "h12([1.5, 2.0])") - 4.0).abs() < 1e-12);
    assert!((eval(src, "h11([1.5, 2.0])") - 9.0).abs() < 1e-12);
}
