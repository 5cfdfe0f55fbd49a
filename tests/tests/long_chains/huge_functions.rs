//! Huge functions, as generated code holds them: a straight-line body of hundreds of
//! assignments, each line calling `sin`, `*` and `+` on the one before, typed (one dispatch per
//! call, over the library's methods), differentiated and run on both engines on the analysis
//! thread's stack, with the value and derivative of the recurrence. The sizes of the
//! benchmark in bench/README.md ("Session 30: size") are `#[ignore]`d tests: minutes in a
//! debug build.

use super::call_chains::on_analysis_stack;
use super::{close, run};
use zy_ide::Engine;

/// `big(x)`: `a1 = x * 1.01`, then `aₖ = sin(aₖ₋₁) * 0.5 + aₖ₋₁ * 0.5` up to `a{lines}`.
fn straight_line(lines: usize) -> String {
    let mut text = String::from("function big(x)\n    a1 = x * 1.01\n");
    for k in 2..=lines {
        text.push_str(&format!(
            "    a{k} = sin(a{}) * 0.5 + a{} * 0.5\n",
            k - 1,
            k - 1
        ));
    }
    text.push_str(&format!("    return a{lines}\nend\n"));
    text
}

/// The value and derivative of `big(x)` by the chain rule: `a₁' = 1.01`, and
/// `aₖ' = (cos(aₖ₋₁) * 0.5 + 0.5) aₖ₋₁'`.
fn by_hand(lines: usize, x: f64) -> (f64, f64) {
    let (mut a, mut d) = (x * 1.01, 1.01);
    for _ in 2..=lines {
        d *= a.cos() * 0.5 + 0.5;
        a = a.sin() * 0.5 + a * 0.5;
    }
    (a, d)
}

/// `big(0.3)` of `lines` lines has the recurrence's value and derivative on both engines.
fn straight_line_runs(lines: usize) {
    on_analysis_stack(move || {
        let text = straight_line(lines);
        let (value, slope) = by_hand(lines, 0.3);
        for engine in [Engine::Interp, Engine::Jit] {
            let (got, grad) = run(&text, "big(0.3)", engine);
            let got = got.as_f64().unwrap_or(f64::NAN);
            let d = grad.first().and_then(|g| g.as_f64()).unwrap_or(f64::NAN);
            assert!(
                close(got, value),
                "{engine:?}: value {got}, by hand {value}"
            );
            assert!(
                close(d, slope),
                "{engine:?}: derivative {d}, by hand {slope}"
            );
        }
    });
}

#[test]
fn a_400_line_function_has_the_recurrences_value_and_derivative() {
    straight_line_runs(400);
}

#[test]
#[ignore = "the benchmark's size: minutes in a debug build"]
fn a_5000_line_function_has_the_recurrences_value_and_derivative() {
    straight_line_runs(5000);
}
