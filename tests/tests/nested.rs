//! Property tests of several arrays kept in a tuple and of the `Iterators` module (issue 13):
//! random tuples of vectors of different lengths, iterated with `enumerate` and indexed at run
//! time, and random `take`/`drop`/`reverse` of a vector, with values and gradients written down
//! here; the second-order case differentiates a `gradient` whose loop keeps arrays on its tape.
//! Both engines must give them.

use std::path::Path;

use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use serde_json::Value as Json;
use zy_ide::AnalysisHost;
use zy_tests::engines::{check_both_engines, julia_vector, vector_json};

/// `call`'s value and gradients on both engines ([`check_both_engines`]).
fn check(
    analysis: &zy_ide::Analysis,
    file: zy_ide::FileId,
    call: &str,
    value: f64,
    gradients: &[Json],
) -> Result<(), TestCaseError> {
    check_both_engines(analysis, file, call, value, gradients, |_, _| false)
        .map_err(TestCaseError::fail)
}

fn runner() -> TestRunner {
    TestRunner::new(Config {
        cases: 10,
        failure_persistence: None,
        ..Config::default()
    })
}

/// `f(v₁, ..., vₘ) = Σᵢ i·Σ vᵢ² + vᵢ[1]·vᵢ[end]` over `xs = (v₁, ..., vₘ)` (`h` the same with
/// `v = xs[i]`, an array on its tape), and the sum of `h`'s gradient with respect to `v₁`
/// differentiated again.
#[test]
fn tuples_of_vectors_differentiate_as_in_julia() {
    let vector = prop::collection::vec(-2.0f64..2.0, 1..5);
    let outcome = runner().run(&prop::collection::vec(vector, 1..4), |vs| {
        let m = vs.len();
        let params: Vec<String> = (1..=m).map(|i| format!("v{i}")).collect();
        let params = params.join(", ");
        let text = format!(
            "function f({params})\n    xs = ({params},)\n    s = 0.0\n    for (i, v) in enumerate(xs)\n        s += i * sum(v .^ 2) + v[1] * v[end]\n    end\n    return s\nend\n\
             function g({params})\n    xs = ({params},)\n    s = 0.0\n    for i in 1:length(xs)\n        s += i * xs[i][1] * xs[i][end]\n    end\n    return s\nend\n\
             function h({params})\n    xs = ({params},)\n    s = 0.0\n    for i in 1:length(xs)\n        v = xs[i]\n        s += i * sum(v .^ 2) + v[1] * v[end]\n    end\n    return s\nend\n\
             second({params}) = sum(gradient(h, {params})[1])\n"
        );
        let mut host = AnalysisHost::new();
        let file = host.set_file_text(Path::new("nested.jl"), text.clone());
        let analysis = host.analysis();
        let args: Vec<String> = vs.iter().map(|v| julia_vector(v)).collect();
        let args = args.join(", ");
        let fail = |e: TestCaseError| TestCaseError::fail(format!("{e}\nin\n{text}"));

        // f: v̄ᵢ = 2i·vᵢ, plus vᵢ[end] at the first element and vᵢ[1] at the last.
        let mut value = 0.0;
        let mut grads = Vec::new();
        for (i, v) in vs.iter().enumerate() {
            let w = (i + 1) as f64;
            let n = v.len();
            value += w * v.iter().map(|x| x * x).sum::<f64>() + v[0] * v[n - 1];
            let mut g: Vec<f64> = v.iter().map(|x| 2.0 * w * x).collect();
            g[0] += v[n - 1];
            g[n - 1] += v[0];
            grads.push(vector_json(&g));
        }
        check(&analysis, file, &format!("f({args})"), value, &grads).map_err(fail)?;

        // g: i·vᵢ[1]·vᵢ[end] read through a run-time index.
        let mut value = 0.0;
        let mut grads = Vec::new();
        for (i, v) in vs.iter().enumerate() {
            let w = (i + 1) as f64;
            let n = v.len();
            value += w * v[0] * v[n - 1];
            let mut g = vec![0.0; n];
            g[0] += w * v[n - 1];
            g[n - 1] += w * v[0];
            grads.push(vector_json(&g));
        }
        check(&analysis, file, &format!("g({args})"), value, &grads).map_err(fail)?;

        // second: Σⱼ ∂h/∂v₁ⱼ = 2Σv₁ + v₁[end] + v₁[1]; its gradient: 2 everywhere in v₁, plus 1 at
        // the first and 1 at the last element; nothing else reaches the other vectors.
        let v1 = &vs[0];
        let n = v1.len();
        let value = 2.0 * v1.iter().sum::<f64>() + v1[n - 1] + v1[0];
        let mut g1 = vec![2.0; n];
        g1[0] += 1.0;
        g1[n - 1] += 1.0;
        let mut grads = vec![vector_json(&g1)];
        grads.extend(vs[1..].iter().map(|v| vector_json(&vec![0.0; v.len()])));
        check(&analysis, file, &format!("second({args})"), value, &grads).map_err(fail)?;
        Ok(())
    });
    if let Err(e) = outcome {
        panic!("{e}");
    }
}

/// `c·Σ v² over take(x, k)` plus `Σ drop(reverse(x), d)`.
#[test]
fn iterators_take_drop_reverse_differentiate_as_in_julia() {
    let case = prop::collection::vec(-2.0f64..2.0, 1..7)
        .prop_flat_map(|x| (Just(x), 0usize..8, 0usize..8, 0.5f64..3.0));
    let outcome = runner().run(&prop::collection::vec(case, 6), |cases| {
        let mut text = String::new();
        for (j, (_, k, d, c)) in cases.iter().enumerate() {
            let c = zy_ir::julia_float(*c);
            text.push_str(&format!(
                "function f{j}(x)\n    s = 0.0\n    for v in Iterators.take(x, {k})\n        s += {c} * v^2\n    end\n    for v in Iterators.drop(Iterators.reverse(x), {d})\n        s += v\n    end\n    return s\nend\n"
            ));
        }
        let mut host = AnalysisHost::new();
        let file = host.set_file_text(Path::new("iterators.jl"), text.clone());
        let analysis = host.analysis();
        for (j, (x, k, d, c)) in cases.iter().enumerate() {
            let n = x.len();
            let (taken, kept) = ((*k).min(n), n.saturating_sub(*d));
            let value = c * x[..taken].iter().map(|v| v * v).sum::<f64>()
                + x[..kept].iter().sum::<f64>();
            let grad: Vec<f64> = (0..n)
                .map(|i| {
                    let t = if i < taken { 2.0 * c * x[i] } else { 0.0 };
                    t + if i < kept { 1.0 } else { 0.0 }
                })
                .collect();
            let call = format!("f{j}({})", julia_vector(x));
            check(&analysis, file, &call, value, &[vector_json(&grad)])
                .map_err(|e| TestCaseError::fail(format!("{e}\nin\n{text}")))?;
        }
        Ok(())
    });
    if let Err(e) = outcome {
        panic!("{e}");
    }
}
