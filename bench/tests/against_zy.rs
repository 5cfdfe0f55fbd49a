//! The hand-written gradients against zy's JIT-compiled gradient, on the fixtures' functions at
//! small sizes; and the pow tape figure read from the forward IR.

use zy_bench::cases::by_key;
use zy_bench::inputs::{flatten, Hand};
use zy_bench::tape::bytes_per_iteration;
use zy_bench::zy::{prepare_call, Prepared, Runner};
use zy_interp::Value;

/// Small inputs for the MLP, generated as the fixture generates its own.
const SMALL: &str = r#"
function small_matrix(m, n, a)
    W = zeros(m, n)
    for i in 1:m
        for j in 1:n
            W[i, j] = a * sin(float(i * j) + a)
        end
    end
    return W
end

function small_vector(n, a)
    v = zeros(n)
    for i in 1:n
        v[i] = a * sin(float(i) + a)
    end
    return v
end
"#;

fn prepared(key: &str, call: &str) -> Prepared {
    let case = by_key(key).unwrap();
    let source = format!("{}\n{SMALL}", case.source);
    prepare_call(case.file, &source, call).unwrap()
}

/// Run the driver; check it was compiled, and that it equals the hand-written gradient.
fn assert_agree(key: &str, call: &str) {
    let p = prepared(key, call);
    assert!(
        matches!(p.gradient, Runner::Jit(_)),
        "{call}: {:?}",
        p.gradient.fallback_reason()
    );
    let out = p.gradient.call(&p.args).unwrap();
    let Value::Tuple(parts) = &out else {
        panic!("{call}: driver returned {}", zy_interp::show(&out))
    };
    let zy: Vec<f64> = parts.iter().flat_map(flatten).collect();
    let (y, g) = Hand::from_values(key, &p.args).unwrap().flat_gradient();
    let hand: Vec<f64> = std::iter::once(y).chain(g).collect();
    assert_eq!(zy.len(), hand.len(), "{call}");
    for (i, (a, b)) in zy.iter().zip(&hand).enumerate() {
        assert!(
            (a - b).abs() <= 1e-12 * b.abs().max(1.0),
            "{call}: number {i}: zy {a}, hand-written {b}"
        );
    }
}

#[test]
fn sin_cos_agrees() {
    assert_agree("sincos", "sin_cos(0.7)");
}

#[test]
fn pow_agrees() {
    assert_agree("loop", "pow(1.1, 7)");
}

#[test]
fn logsumexp_agrees() {
    assert_agree("logsumexp", "logsumexp(lse_input(9))");
}

#[test]
fn logistic_regression_agrees() {
    assert_agree(
        "logistic_regression",
        "logistic_loss([0.3, -0.2, 0.5], logistic_X(7, 3), logistic_y(7))",
    );
}

#[test]
fn mlp_agrees() {
    assert_agree(
        "mlp",
        "mlp_loss(small_matrix(5, 4, 0.3), small_vector(5, 0.1), small_matrix(3, 5, 0.7), small_vector(3, 0.2), small_vector(4, 0.9), 2)",
    );
}

/// Each iteration of pow's loop must keep `r` for the pullback (`x̄ += r̄ r`): one `Float64` at
/// least (the exact figure is the AD's to improve; the benchmark prints it).
#[test]
fn pow_keeps_at_least_r_per_iteration() {
    let p = prepared("loop", "pow(1.1, 7)");
    let bytes = bytes_per_iteration(&p.gradient_program, &p.inst).unwrap();
    assert!(bytes >= 8, "{bytes}");
}

/// sin_cos has no loop: nothing is pushed per iteration.
#[test]
fn a_function_without_loops_pushes_nothing_per_iteration() {
    let p = prepared("sincos", "sin_cos(0.7)");
    assert_eq!(bytes_per_iteration(&p.gradient_program, &p.inst), Some(0));
}
