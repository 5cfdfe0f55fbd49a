//! Long chains of calls, as generated code holds them: 500 functions each calling the next,
//! and a countdown on `Val` through 200 specialisations of one method, each typed,
//! differentiated and run on both engines on the analysis thread's stack.

use std::path::Path;

use zy_ide::{AnalysisHost, Engine, EvalLimits};

/// `f1(x) = f2(x) + x`, ..., `f{n}(x) = x`: `f1(x) = n x`.
fn chain(n: usize) -> String {
    let mut text = String::new();
    for k in 1..n {
        text.push_str(&format!("f{k}(x) = f{}(x) + x\n", k + 1));
    }
    text.push_str(&format!("f{n}(x) = x\n"));
    text
}

/// The value and gradient of `call` in `text` on `engine`.
fn value_and_gradient(text: &str, call: &str, engine: Engine) -> (Option<f64>, Vec<Option<f64>>) {
    let mut host = AnalysisHost::new();
    let file = host.set_file_text(Path::new("/chain.jl"), text.to_string());
    let grad = host
        .analysis()
        .grad(file, call, EvalLimits::default(), engine)
        .expect("not cancelled")
        .unwrap_or_else(|e| panic!("{call}, {engine:?}: {e}"));
    let g = grad.gradient().iter().map(|g| g.json.as_f64()).collect();
    (grad.value().json.as_f64(), g)
}

/// Run `f` on a thread with the analysis thread's stack, as the CLI and the server do.
pub(super) fn on_analysis_stack(f: impl FnOnce() + Send + 'static) {
    std::thread::Builder::new()
        .stack_size(zy_ide::ANALYSIS_STACK_SIZE)
        .spawn(f)
        .expect("spawning the analysis thread")
        .join()
        .unwrap_or_else(|e| std::panic::resume_unwind(e));
}

#[test]
fn a_chain_of_500_functions_runs_and_differentiates_on_both_engines() {
    on_analysis_stack(|| {
        let text = chain(500);
        for engine in [Engine::Interp, Engine::Jit] {
            // f1(x) = 500x: 1000 at 2, derivative 500.
            let (value, gradient) = value_and_gradient(&text, "f1(2.0)", engine);
            assert_eq!(value, Some(1000.0), "{engine:?}");
            assert_eq!(gradient, [Some(500.0)], "{engine:?}");
        }
    });
}

#[test]
fn a_countdown_through_200_specialisations_runs_on_both_engines() {
    on_analysis_stack(|| {
        let text = "down(::Val{0}) = 0.0\ndown(::Val{N}) where N = N + down(Val(N - 1))\n\
                    g(x) = x * down(Val(200))\n";
        for engine in [Engine::Interp, Engine::Jit] {
            // down(Val(200)) = 200 * 201 / 2 = 20100: g(x) = 20100x, 40200 at 2.
            let (value, gradient) = value_and_gradient(text, "g(2.0)", engine);
            assert_eq!(value, Some(40200.0), "{engine:?}");
            assert_eq!(gradient, [Some(20100.0)], "{engine:?}");
        }
    });
}

#[test]
fn a_chain_of_500_functions_down_to_sin_has_the_chain_rules_gradient() {
    on_analysis_stack(|| {
        // f1(x) = sin(x) + x, fₖ(x) = fₖ₋₁(x) * 1.01: f500(x) = (sin(x) + x) * 1.01 * ... and
        // f500'(x) = (cos(x) + 1) * 1.01 * ..., 499 factors each, multiplied left to right.
        let n = 500;
        let mut text = String::from("f1(x) = sin(x) + x\n");
        for k in 2..=n {
            text.push_str(&format!("f{k}(x) = f{}(x) * 1.01\n", k - 1));
        }
        let x: f64 = 0.3;
        let value = (2..=n).fold(x.sin() + x, |v, _| v * 1.01);
        let slope = (2..=n).fold(x.cos() + 1.0, |d, _| d * 1.01);
        for engine in [Engine::Interp, Engine::Jit] {
            let (got, gradient) = value_and_gradient(&text, &format!("f{n}(0.3)"), engine);
            let got = got.unwrap_or(f64::NAN);
            assert!(
                (got - value).abs() <= 1e-12 * value.abs(),
                "{engine:?}: {got}, by hand {value}"
            );
            let d = gradient.first().copied().flatten().unwrap_or(f64::NAN);
            assert!(
                (d - slope).abs() <= 1e-12 * slope.abs(),
                "{engine:?}: {d}, by hand {slope}"
            );
        }
    });
}
