//! Long operator chains, as generated code and optimisation test problems hold them: Julia
//! parses `a + b + c + ...` and `a * b * c * ...` as one call `+(a, b, c, ...)` evaluated as a
//! left fold, so a chain of thousands of terms is no deeper than a chain of three. Each must
//! parse, lower, infer, differentiate and run on both engines with the value of that left fold.
//! Deep nesting, the other shape of generated code, is in [`deep_nesting`]; long chains of
//! calls in [`call_chains`]; long straight-line functions in [`huge_functions`].

use std::path::Path;

use zy_ide::{AnalysisHost, Engine, EvalLimits};

#[path = "long_chains/call_chains.rs"]
mod call_chains;
#[path = "long_chains/deep_nesting.rs"]
mod deep_nesting;
#[path = "long_chains/huge_functions.rs"]
mod huge_functions;

/// The coefficient of term `k`.
fn coefficient(k: usize) -> f64 {
    ((k % 13) as f64 - 6.0) * 0.25 + 0.125
}

/// `p(x, y) = c₀*x*y + c₁*x*x + c₂*x*y + ...` with `terms` terms: `c*x*y` for even `k`,
/// `c*x*x` for odd `k`.
fn polynomial(terms: usize) -> String {
    let body: Vec<String> = (0..terms)
        .map(|k| {
            let other = if k % 2 == 0 { "y" } else { "x" };
            format!("{:?}*x*{other}", coefficient(k))
        })
        .collect();
    format!("p(x, y) = {}\n", body.join(" + "))
}

/// Value and gradient by hand: the value is Julia's left fold of the terms, each term the left
/// fold `(c*x)*y`; `∂p/∂x = Σ_even c y + Σ_odd 2 c x`, `∂p/∂y = Σ_even c x`.
fn by_hand(terms: usize, x: f64, y: f64) -> (f64, f64, f64) {
    let term = |k: usize| {
        let other = if k % 2 == 0 { y } else { x };
        coefficient(k) * x * other
    };
    let value = (1..terms).fold(term(0), |acc, k| acc + term(k));
    let (mut dx, mut dy) = (0.0, 0.0);
    for k in 0..terms {
        let c = coefficient(k);
        if k % 2 == 0 {
            dx += c * y;
            dy += c * x;
        } else {
            dx += 2.0 * c * x;
        }
    }
    (value, dx, dy)
}

fn close(got: f64, want: f64) -> bool {
    (got - want).abs() <= 1e-9 * want.abs().max(1.0)
}

/// The value and gradient of `call` in `text` on `engine`.
fn run(text: &str, call: &str, engine: Engine) -> (serde_json::Value, Vec<serde_json::Value>) {
    let mut host = AnalysisHost::new();
    let file = host.set_file_text(Path::new("/chain.jl"), text.to_string());
    let analysis = host.analysis();
    let grad = analysis
        .grad(file, call, EvalLimits::default(), engine)
        .expect("not cancelled")
        .unwrap_or_else(|e| panic!("{engine:?}: gradient of {call} failed: {e}"));
    (
        grad.value().json.clone(),
        grad.gradient().iter().map(|g| g.json.clone()).collect(),
    )
}

#[test]
fn a_5000_term_polynomial_has_the_left_folds_value_and_gradient() {
    let (terms, x, y) = (5000, 1.5, -0.75);
    let text = polynomial(terms);
    let (value, dx, dy) = by_hand(terms, x, y);
    for engine in [Engine::Interp, Engine::Jit] {
        let (got, grad) = run(&text, "p(1.5, -0.75)", engine);
        // The value is the left fold to the bit.
        assert_eq!(got.as_f64(), Some(value), "{engine:?}: value");
        let g: Vec<f64> = grad.iter().filter_map(|g| g.as_f64()).collect();
        assert!(
            g.len() == 2 && close(g[0], dx) && close(g[1], dy),
            "{engine:?}: gradient {g:?}, by hand ({dx}, {dy})"
        );
    }
}

#[test]
fn a_10000_term_sum_and_product() {
    // s(x) = x + 0.5 + x + 0.5 + ...: 5000 x's, value 5000 x + 2500, derivative 5000.
    let sum: Vec<&str> = (0..10_000)
        .map(|k| if k % 2 == 0 { "x" } else { "0.5" })
        .collect();
    // q(x) = x * 1.25 * x * 0.8 * ...: 5000 x's; at x = 1 the value is 1.25^2500 * 0.8^2500
    // (the left fold, in that order) and the derivative 5000 times the value.
    let product: Vec<&str> = (0..10_000)
        .map(|k| match k % 4 {
            1 => "1.25",
            3 => "0.8",
            _ => "x",
        })
        .collect();
    let text = format!(
        "s(x) = {}\nq(x) = {}\n",
        sum.join(" + "),
        product.join(" * ")
    );
    let fold = product
        .iter()
        .skip(1)
        .fold(1.0, |acc: f64, t| acc * t.parse::<f64>().unwrap_or(1.0));
    for engine in [Engine::Interp, Engine::Jit] {
        let (value, grad) = run(&text, "s(3.0)", engine);
        assert_eq!(value.as_f64(), Some(5000.0 * 3.0 + 2500.0), "{engine:?}");
        assert_eq!(grad[0].as_f64(), Some(5000.0), "{engine:?}");
        let (value, grad) = run(&text, "q(1.0)", engine);
        assert_eq!(value.as_f64(), Some(fold), "{engine:?}");
        let d = grad[0].as_f64().unwrap_or(f64::NAN);
        assert!(
            close(d, 5000.0 * fold),
            "{engine:?}: {d} vs {}",
            5000.0 * fold
        );
    }
}

/// The sign before term `k` (from 1) of the mixed chain: runs of one to three equal signs, so
/// that the chain changes sign thousands of times.
fn minus_before(k: usize) -> bool {
    (k * 7 / 3) % 2 == 1
}

#[test]
fn a_10000_term_chain_mixing_minus_and_plus_nests_to_the_left() {
    // m(x, y) = c₀*x*y - c₁*x*x + c₂*x*y + ...: Julia parses it as calls nested 10,000 deep to
    // the left (a `-` ends each `+` chain); by hand, the value is the left fold of the signed
    // terms and ∂m/∂x = Σ_even ±c y + Σ_odd ±2 c x, ∂m/∂y = Σ_even ±c x.
    let (terms, x, y) = (10_000, 1.5, -0.75);
    let mut text = String::from("m(x, y) = ");
    let (mut value, mut dx, mut dy) = (0.0, 0.0, 0.0);
    for k in 0..terms {
        let c = coefficient(k);
        let other = if k % 2 == 0 { "y" } else { "x" };
        let sign = if k > 0 && minus_before(k) { -1.0 } else { 1.0 };
        if k > 0 {
            text.push_str(if sign < 0.0 { " - " } else { " + " });
        }
        text.push_str(&format!("{c:?}*x*{other}"));
        let t = if k % 2 == 0 { c * x * y } else { c * x * x };
        value = if k == 0 {
            t
        } else if sign < 0.0 {
            value - t
        } else {
            value + t
        };
        if k % 2 == 0 {
            dx += sign * c * y;
            dy += sign * c * x;
        } else {
            dx += sign * 2.0 * c * x;
        }
    }
    text.push('\n');
    // r(x) = x / 1.25 * x / 0.8 * x / 1.25 ...: `*` and `/` nest the same way; at x = 1 the
    // value is the left fold, the derivative 5000 (the number of x's) times it.
    let mut r = String::from("r(x) = x");
    let mut fold = 1.0_f64;
    for k in 1..10_000 {
        if k % 2 == 1 {
            let d = if k % 4 == 1 { 1.25 } else { 0.8 };
            r.push_str(&format!(" / {d:?}"));
            fold /= d;
        } else {
            r.push_str(" * x");
        }
    }
    text.push_str(&r);
    text.push('\n');
    for engine in [Engine::Interp, Engine::Jit] {
        let (got, grad) = run(&text, "m(1.5, -0.75)", engine);
        assert_eq!(got.as_f64(), Some(value), "{engine:?}: value");
        let g: Vec<f64> = grad.iter().filter_map(|g| g.as_f64()).collect();
        assert!(
            g.len() == 2 && close(g[0], dx) && close(g[1], dy),
            "{engine:?}: gradient {g:?}, by hand ({dx}, {dy})"
        );
        let (got, grad) = run(&text, "r(1.0)", engine);
        assert_eq!(got.as_f64(), Some(fold), "{engine:?}: value of r");
        let d = grad[0].as_f64().unwrap_or(f64::NAN);
        assert!(
            close(d, 5000.0 * fold),
            "{engine:?}: {d} vs {}",
            5000.0 * fold
        );
    }
}
