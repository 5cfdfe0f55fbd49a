//! Property tests of `findfirst`, `findlast` and `findnext` (issue 13): random vectors and
//! thresholds, the index (or `nothing`) narrowed by a test against `nothing` and used to pick an
//! element, whose value and gradient are computed here from the indices Julia would find. Both
//! engines must give them.

use std::path::Path;

use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use serde_json::Value as Json;
use zy_ide::{AnalysisHost, Engine, EvalLimits};
use zy_tests::engines::{close, julia_vector};

/// The program: `f(x, t)` adds 3 x_i² for the first `x_i > t` (0 if none) and `x_j` for the
/// last `x_j < t` (1 if none); `g(x, t, k)` is `x_m` for the first `x_m > t` from `k` on, read
/// after an early return when there is none (-1).
const PROGRAM: &str = "\
function f(x, t)
    i = findfirst(>(t), x)
    j = findlast(<(t), x)
    a = i === nothing ? 0.0 : 3.0 * x[i]^2
    b = isnothing(j) ? 1.0 : x[j]
    return a + b
end
function g(x, t, k)
    m = findnext(>(t), x, k)
    m === nothing && return -1.0
    return x[m]
end
";

/// The value and the gradient with respect to `x` of `call`, through both engines.
fn check(
    analysis: &zy_ide::Analysis,
    file: zy_ide::FileId,
    call: &str,
    value: f64,
    grad: &[f64],
) -> Result<(), TestCaseError> {
    for engine in [Engine::Interp, Engine::Jit] {
        let got = analysis
            .grad(file, call, EvalLimits::default(), engine)
            .map_err(|_| TestCaseError::fail("cancelled"))?
            .map_err(|e| TestCaseError::fail(format!("{call} ({engine:?}): {e}")))?;
        prop_assert!(
            close(value, &got.value().json),
            "{call} ({engine:?}): value {} instead of {value}",
            got.value().json
        );
        let gx = got.gradient().first().map(|g| g.json.clone());
        let ok = match &gx {
            Some(Json::Array(g)) => {
                g.len() == grad.len() && g.iter().zip(grad).all(|(g, &w)| close(w, g))
            }
            // No element was read: the gradient is zero (or none reaches on this run).
            Some(Json::Number(n)) => n.as_f64() == Some(0.0) && grad.iter().all(|&w| w == 0.0),
            _ => false,
        };
        prop_assert!(
            ok,
            "{call} ({engine:?}): gradient {gx:?} instead of {grad:?}"
        );
    }
    Ok(())
}

#[test]
fn found_indices_read_and_differentiate_as_in_julia() {
    let mut runner = TestRunner::new(Config {
        cases: 24,
        failure_persistence: None,
        ..Config::default()
    });
    let case = (1usize..8)
        .prop_flat_map(|n| (prop::collection::vec(-2.0f64..2.0, n), -2.5f64..2.5, 1..=n));
    let mut host = AnalysisHost::new();
    let file = host.set_file_text(Path::new("findfirst.jl"), PROGRAM.to_string());
    let analysis = host.analysis();
    let outcome = runner.run(&case, |(x, t, k)| {
        let n = x.len();
        let first = x.iter().position(|&v| v > t);
        let last = x.iter().rposition(|&v| v < t);
        let mut grad = vec![0.0; n];
        let mut value = 0.0;
        if let Some(i) = first {
            value += 3.0 * x[i] * x[i];
            grad[i] += 6.0 * x[i];
        }
        match last {
            Some(j) => {
                value += x[j];
                grad[j] += 1.0;
            }
            None => value += 1.0,
        }
        let (xs, ts) = (julia_vector(&x), zy_ir::julia_float(t));
        check(&analysis, file, &format!("f({xs}, {ts})"), value, &grad)?;

        let mut grad = vec![0.0; n];
        let value = match x.iter().skip(k - 1).position(|&v| v > t) {
            Some(m) => {
                grad[k - 1 + m] = 1.0;
                x[k - 1 + m]
            }
            None => -1.0,
        };
        check(
            &analysis,
            file,
            &format!("g({xs}, {ts}, {k})"),
            value,
            &grad,
        )
    });
    if let Err(e) = outcome {
        panic!("{e}");
    }
}
