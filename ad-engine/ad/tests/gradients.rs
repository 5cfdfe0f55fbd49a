//! Gradients of whole functions from source text, against hand-derived numbers and finite
//! differences.

mod common;

use common::run::{assert_grad, check_fd};
use zy_interp::Value;

fn f(x: f64) -> Value {
    Value::F64(x)
}

fn i(n: i64) -> Value {
    Value::Int(n)
}

#[test]
fn ratio_of_the_paper() {
    let src = "f(a, b) = a / (a + b^2)";
    // a + b² = 7: ∂a = b²/49, ∂b = -2ab/49
    assert_grad(src, "f", vec![f(3.0), f(2.0)], 3.0 / 7.0, &[Some(&[4.0 / 49.0]), Some(&[-12.0 / 49.0])]);
    check_fd(src, "f", vec![f(3.0), f(2.0)]);
}

#[test]
fn pow_loop_accumulates_x_and_gives_n_nothing() {
    let src = "
function pow(x, n)
    r = 1.0
    while n > 0
        n -= 1
        r *= x
    end
    return r
end";
    // d/dx x³ = 3x² = 12
    assert_grad(src, "pow", vec![f(2.0), i(3)], 8.0, &[Some(&[12.0]), None]);
    // n = 0: the loop never runs; the gradient reaches x on other runs, so it is 0.0.
    assert_grad(src, "pow", vec![f(2.0), i(0)], 1.0, &[Some(&[0.0]), None]);
    check_fd(src, "pow", vec![f(1.3), i(5)]);
}

#[test]
fn leaky_relu_takes_either_branch() {
    let src = "relu(x) = x > 0 ? x : 0.01x";
    assert_grad(src, "relu", vec![f(2.0)], 2.0, &[Some(&[1.0])]);
    assert_grad(src, "relu", vec![f(-2.0)], -0.02, &[Some(&[0.01])]);
}
