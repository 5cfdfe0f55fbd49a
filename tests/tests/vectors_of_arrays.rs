//! Property tests of vectors of arrays (issue 13): random sequences of `push!` (of a scaled copy
//! or of an element itself, which then has two slots), `pop!`, `xs[i] = c .* xs[k]` and
//! `xs[i][j] = c * xs[i][j]` on a `Vector{Vector{Float64}}` argument, then the weighted sum
//! `Σᵢ i · Σ xs[i] .^ 2`. The value and the gradient with respect to the argument on entry are
//! computed here by following the same steps with dual numbers (a write through one slot is
//! seen through every slot holding that array, as in Julia); both engines must give them.

use std::path::Path;

use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use serde_json::Value as Json;
use zy_ide::AnalysisHost;
use zy_tests::engines::{check_both_engines, julia_vector, vector_json};

/// A number with its derivatives with respect to every input element.
#[derive(Clone, Debug)]
struct Dual {
    v: f64,
    d: Vec<f64>,
}

impl Dual {
    fn scale(&self, c: f64) -> Dual {
        Dual {
            v: c * self.v,
            d: self.d.iter().map(|x| c * x).collect(),
        }
    }
}

/// One step, with raw choices resolved against the sizes at that point.
#[derive(Clone, Debug)]
struct Step {
    kind: u8,
    a: usize,
    b: usize,
    c: f64,
}

/// The steps as Julia statements, and the value and gradient they give for `inputs`.
fn follow(inputs: &[Vec<f64>], steps: &[Step]) -> (Vec<String>, f64, Vec<Vec<f64>>) {
    let total: usize = inputs.iter().map(Vec::len).sum();
    let mut arena: Vec<Vec<Dual>> = Vec::new();
    let mut at = 0;
    for x in inputs {
        arena.push(
            x.iter()
                .map(|&v| {
                    let mut d = vec![0.0; total];
                    d[at] = 1.0;
                    at += 1;
                    Dual { v, d }
                })
                .collect(),
        );
    }
    let mut xs: Vec<usize> = (0..inputs.len()).collect();
    let mut lines = Vec::new();
    let c_text = |c: f64| zy_ir::julia_float(c);
    for s in steps {
        let n = xs.len();
        match s.kind {
            0 => {
                let k = s.a % n;
                let copy = arena[xs[k]].iter().map(|d| d.scale(s.c)).collect();
                arena.push(copy);
                xs.push(arena.len() - 1);
                lines.push(format!("push!(xs, {} .* xs[{}])", c_text(s.c), k + 1));
            }
            1 => {
                let k = s.a % n;
                xs.push(xs[k]);
                lines.push(format!("push!(xs, xs[{}])", k + 1));
            }
            2 if n > 1 => {
                xs.pop();
                lines.push("pop!(xs)".into());
            }
            3 => {
                let (i, k) = (s.a % n, s.b % n);
                let copy = arena[xs[k]].iter().map(|d| d.scale(s.c)).collect();
                arena.push(copy);
                xs[i] = arena.len() - 1;
                lines.push(format!("xs[{}] = {} .* xs[{}]", i + 1, c_text(s.c), k + 1));
            }
            _ => {
                let i = s.a % n;
                let j = s.b % arena[xs[i]].len();
                let id = xs[i];
                arena[id][j] = arena[id][j].scale(s.c);
                lines.push(format!(
                    "xs[{}][{}] = {} * xs[{}][{}]",
                    i + 1,
                    j + 1,
                    c_text(s.c),
                    i + 1,
                    j + 1
                ));
            }
        }
    }
    // Σᵢ i · Σⱼ xs[i][j]², in the program's order.
    let mut value = 0.0;
    let mut grad = vec![0.0; total];
    for (i, &id) in xs.iter().enumerate() {
        let w = (i + 1) as f64;
        let mut sq = 0.0;
        for e in &arena[id] {
            sq += e.v * e.v;
            for (g, d) in grad.iter_mut().zip(&e.d) {
                *g += w * 2.0 * e.v * d;
            }
        }
        value += w * sq;
    }
    let mut shaped = Vec::new();
    let mut at = 0;
    for x in inputs {
        shaped.push(grad[at..at + x.len()].to_vec());
        at += x.len();
    }
    (lines, value, shaped)
}

fn step() -> impl Strategy<Value = Step> {
    (
        0u8..5,
        0usize..8,
        0usize..8,
        prop::sample::select(vec![0.5, 1.5, 2.0, -1.0]),
    )
        .prop_map(|(kind, a, b, c)| Step { kind, a, b, c })
}

#[test]
fn vectors_of_vectors_grow_alias_and_differentiate_as_in_julia() {
    let mut runner = TestRunner::new(Config {
        cases: 12,
        failure_persistence: None,
        ..Config::default()
    });
    let input = prop::collection::vec(prop::collection::vec(-2.0f64..2.0, 1..4), 1..4);
    let case = (input, prop::collection::vec(step(), 0..7));
    let batch = prop::collection::vec(case, 6);
    let outcome = runner.run(&batch, |cases| {
        let mut text = String::new();
        let mut expected = Vec::new();
        for (k, (inputs, steps)) in cases.iter().enumerate() {
            let (lines, value, grad) = follow(inputs, steps);
            text.push_str(&format!("function f{k}(xs)\n"));
            for l in lines {
                text.push_str(&format!("    {l}\n"));
            }
            text.push_str(
                "    s = 0.0\n    for i in eachindex(xs)\n        s += i * sum(abs2, xs[i])\n    end\n    return s\nend\n",
            );
            expected.push((value, grad));
        }
        let mut host = AnalysisHost::new();
        let file = host.set_file_text(Path::new("vectors.jl"), text.clone());
        let analysis = host.analysis();
        for (k, ((inputs, _), (value, grad))) in cases.iter().zip(&expected).enumerate() {
            let arg: Vec<String> = inputs.iter().map(|x| julia_vector(x)).collect();
            let call = format!("f{k}([{}])", arg.join(", "));
            let want = Json::Array(grad.iter().map(|g| vector_json(g)).collect());
            check_both_engines(&analysis, file, &call, *value, &[want], |_, _| false)
                .map_err(|e| TestCaseError::fail(format!("{e}\nin\n{text}")))?;
        }
        Ok(())
    });
    if let Err(e) = outcome {
        panic!("{e}");
    }
}
