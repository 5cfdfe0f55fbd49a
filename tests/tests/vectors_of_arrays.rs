//! Property tests of vectors of arrays (issue 13): random sequences of `push!` (of a scaled copy
//! or of an element itself, which then has two slots), `pop!`, `xs[i] = c .* xs[k]` and
//! `xs[i][j] = c * xs[i][j]` on a `Vector{Vector{Float64}}` argument, then the weighted sum
//! `Σᵢ i · Σ xs[i] .^ 2`. The value and the gradient with respect to the argument on entry are
//! computed here by following the same steps with dual numbers (a write through one slot is
//! seen through every slot holding that array, as in Julia); both engines must give them. The
//! same for a `Vector{Body}` of structs holding a number and an array (which a pushed body may
//! share with another): `Σᵢ i · mᵢ · Σ xᵢ .^ 2`. The JIT compiles every one of them.

use std::path::Path;

use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use serde_json::Value as Json;
use zy_ide::AnalysisHost;
use zy_tests::engines::{
    check_both_engines, check_compiled, fixture_fallbacks, julia_vector, vector_json,
};

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
                .and_then(|()| check_compiled(&analysis, file, &call))
                .map_err(|e| TestCaseError::fail(format!("{e}\nin\n{text}")))?;
        }
        Ok(())
    });
    if let Err(e) = outcome {
        panic!("{e}");
    }
}

/// The steps on a `Vector{Body}` (`Body(m, x)`) as Julia statements, and the value and the
/// gradient (per body, `(m̄, x̄)`) they give for `inputs`.
#[allow(clippy::type_complexity)]
fn follow_bodies(
    inputs: &[(f64, Vec<f64>)],
    steps: &[Step],
) -> (Vec<String>, f64, Vec<(f64, Vec<f64>)>) {
    let total: usize = inputs.iter().map(|(_, x)| 1 + x.len()).sum();
    let var = |at: usize, v: f64| {
        let mut d = vec![0.0; total];
        d[at] = 1.0;
        Dual { v, d }
    };
    let mut arena: Vec<Vec<Dual>> = Vec::new();
    let mut bodies: Vec<(Dual, usize)> = Vec::new();
    let mut at = 0;
    for (m, x) in inputs {
        let md = var(at, *m);
        at += 1;
        arena.push(
            x.iter()
                .map(|&v| {
                    let d = var(at, v);
                    at += 1;
                    d
                })
                .collect(),
        );
        bodies.push((md, arena.len() - 1));
    }
    let mut lines = Vec::new();
    let c_text = |c: f64| zy_ir::julia_float(c);
    for s in steps {
        let n = bodies.len();
        match s.kind {
            // A body sharing `bs[k].x`, its mass scaled.
            0 | 1 => {
                let k = s.a % n;
                let (m, x) = (bodies[k].0.scale(s.c), bodies[k].1);
                bodies.push((m, x));
                lines.push(format!(
                    "push!(bs, Body({} * bs[{}].m, bs[{}].x))",
                    c_text(s.c),
                    k + 1,
                    k + 1
                ));
            }
            2 if n > 1 => {
                bodies.pop();
                lines.push("pop!(bs)".into());
            }
            // A new body at slot i: bs[k]'s mass, a scaled copy of its array.
            3 => {
                let (i, k) = (s.a % n, s.b % n);
                let copy = arena[bodies[k].1].iter().map(|d| d.scale(s.c)).collect();
                arena.push(copy);
                bodies[i] = (bodies[k].0.clone(), arena.len() - 1);
                lines.push(format!(
                    "bs[{}] = Body(bs[{}].m, {} .* bs[{}].x)",
                    i + 1,
                    k + 1,
                    c_text(s.c),
                    k + 1
                ));
            }
            _ => {
                let i = s.a % n;
                let id = bodies[i].1;
                let j = s.b % arena[id].len();
                arena[id][j] = arena[id][j].scale(s.c);
                lines.push(format!(
                    "bs[{}].x[{}] = {} * bs[{}].x[{}]",
                    i + 1,
                    j + 1,
                    c_text(s.c),
                    i + 1,
                    j + 1
                ));
            }
        }
    }
    let mut value = 0.0;
    let mut grad = vec![0.0; total];
    for (i, (m, id)) in bodies.iter().enumerate() {
        let w = (i + 1) as f64;
        let sq: f64 = arena[*id].iter().map(|e| e.v * e.v).sum();
        value += w * m.v * sq;
        for (g, d) in grad.iter_mut().zip(&m.d) {
            *g += w * sq * d;
        }
        for e in &arena[*id] {
            for (g, d) in grad.iter_mut().zip(&e.d) {
                *g += w * m.v * 2.0 * e.v * d;
            }
        }
    }
    let mut shaped = Vec::new();
    let mut at = 0;
    for (_, x) in inputs {
        shaped.push((grad[at], grad[at + 1..at + 1 + x.len()].to_vec()));
        at += 1 + x.len();
    }
    (lines, value, shaped)
}

#[test]
fn vectors_of_structs_of_numbers_and_arrays_differentiate_as_in_julia() {
    let mut runner = TestRunner::new(Config {
        cases: 10,
        failure_persistence: None,
        ..Config::default()
    });
    let body = (0.5f64..2.0, prop::collection::vec(-2.0f64..2.0, 1..4));
    let case = (
        prop::collection::vec(body, 1..4),
        prop::collection::vec(step(), 0..7),
    );
    let batch = prop::collection::vec(case, 5);
    let outcome = runner.run(&batch, |cases| {
        let mut text = String::from("struct Body\n    m::Float64\n    x::Vector{Float64}\nend\n");
        let mut expected = Vec::new();
        for (k, (inputs, steps)) in cases.iter().enumerate() {
            let (lines, value, grad) = follow_bodies(inputs, steps);
            text.push_str(&format!("function f{k}(bs)\n"));
            for l in lines {
                text.push_str(&format!("    {l}\n"));
            }
            text.push_str(
                "    s = 0.0\n    for i in eachindex(bs)\n        s += i * bs[i].m * sum(abs2, bs[i].x)\n    end\n    return s\nend\n",
            );
            expected.push((value, grad));
        }
        let mut host = AnalysisHost::new();
        let file = host.set_file_text(Path::new("bodies.jl"), text.clone());
        let analysis = host.analysis();
        for (k, ((inputs, _), (value, grad))) in cases.iter().zip(&expected).enumerate() {
            let arg: Vec<String> = inputs
                .iter()
                .map(|(m, x)| format!("Body({}, {})", zy_ir::julia_float(*m), julia_vector(x)))
                .collect();
            let call = format!("f{k}([{}])", arg.join(", "));
            let want = Json::Array(
                grad.iter()
                    .map(|(m, x)| serde_json::json!({"m": m, "x": vector_json(x)}))
                    .collect(),
            );
            check_both_engines(&analysis, file, &call, *value, &[want], |w, g| same_body(w, g))
                .and_then(|()| check_compiled(&analysis, file, &call))
                .map_err(|e| TestCaseError::fail(format!("{e}\nin\n{text}")))?;
        }
        Ok(())
    });
    if let Err(e) = outcome {
        panic!("{e}");
    }
}

/// Gradients of bodies: objects compared field by field, numbers within 1e-12.
fn same_body(want: &Json, got: &Json) -> bool {
    match (want, got) {
        (Json::Array(w), Json::Array(g)) => {
            w.len() == g.len() && w.iter().zip(g).all(|(w, g)| same_body(w, g))
        }
        (Json::Object(w), Json::Object(g)) => {
            w.len() == g.len()
                && w.iter()
                    .all(|(k, v)| g.get(k).is_some_and(|gv| same_body(v, gv)))
        }
        (Json::Number(w), g) => w.as_f64().is_some_and(|w| zy_tests::engines::close(w, g)),
        (w, g) => w == g,
    }
}

/// Every gradient the fixtures of vectors of arrays, structs and tuples, of arrays of complex
/// numbers (structs of two Float64s, stored in line), and of closures sharing a box with the
/// function making them (Julia's `Core.Box`, empty ones included) state runs compiled: asked
/// for the JIT, the pipeline never hands one to the interpreter (`jit_fallback`).
#[test]
fn the_fixtures_of_vectors_of_objects_and_of_boxes_run_on_the_jit() {
    let (checked, fell_back) = fixture_fallbacks(&[
        "vectors_of_arrays.jl",
        "vectors_of_structs.jl",
        "complex.jl",
        "closures_later.jl",
        "closures_boxed.jl",
    ]);
    assert!(checked > 40, "only {checked} gradients found");
    assert!(
        fell_back.is_empty(),
        "run by the interpreter:\n{}",
        fell_back.join("\n")
    );
}
