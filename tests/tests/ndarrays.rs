//! Property tests of arrays of 3 dimensions (issue 13): random shapes, broadcast against a
//! random lower- or equal-dimensional partner whose every dimension is the array's or 1
//! (Julia's shape rule), and reductions with `dims`, inside functions whose value and gradient
//! are computed here: for `sum(A .* W)` the gradient of `A` is `W` extended to `A`'s shape and
//! that of `W` the sums of `A` over the extended dimensions; for `sum(sum(A; dims = d) .^ 2)`
//! each element of `A` gets twice the sum it went into. Both engines must give them.

use std::path::Path;

use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use zy_ide::AnalysisHost;
use zy_tests::engines::{check_both_engines, julia_vector, vector_json};

/// One case: the array's sizes, the partner's (its rank, each size the array's or 1), the
/// dimension reduced by `sum(A; dims)`.
#[derive(Clone, Debug)]
struct Case {
    dims: [usize; 3],
    partner: Vec<usize>,
    reduced: usize,
}

fn case() -> impl Strategy<Value = Case> {
    (1usize..4, 1usize..4, 1usize..4).prop_flat_map(|(a, b, c)| {
        let dims = [a, b, c];
        (
            Just(dims),
            1usize..=3,
            prop::collection::vec(any::<bool>(), 3),
            1usize..=3,
        )
            .prop_map(|(dims, rank, ones, reduced)| Case {
                dims,
                partner: (0..rank)
                    .map(|d| if ones[d] { 1 } else { dims[d] })
                    .collect(),
                reduced,
            })
    })
}

/// The input elements: distinct, of both signs.
fn element(k: usize) -> f64 {
    ((k as f64) * 0.7).sin() * 2.0 + 0.1
}

/// The column-major position of `(i, j, k)` (0-based) in an array of sizes `ds` (missing
/// trailing sizes are 1), each index taken as 0 where its size is 1 (broadcasting).
fn position(ds: &[usize], idx: [usize; 3]) -> usize {
    let (mut at, mut stride) = (0, 1);
    for (d, &i) in idx.iter().enumerate() {
        let n = ds.get(d).copied().unwrap_or(1);
        if n > 1 {
            at += i * stride;
        }
        stride *= n;
    }
    at
}

/// Every index of an array of sizes `ds`, column-major.
fn indices(ds: [usize; 3]) -> Vec<[usize; 3]> {
    let mut out = Vec::new();
    for k in 0..ds[2] {
        for j in 0..ds[1] {
            for i in 0..ds[0] {
                out.push([i, j, k]);
            }
        }
    }
    out
}

fn sizes(ds: &[usize]) -> String {
    ds.iter()
        .map(usize::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

#[test]
fn three_dimensional_broadcasts_and_reductions_differentiate_as_in_julia() {
    let mut runner = TestRunner::new(Config {
        cases: 10,
        failure_persistence: None,
        ..Config::default()
    });
    let batch = prop::collection::vec(case(), 6);
    let outcome = runner.run(&batch, |cases| {
        let mut text = String::new();
        for (c, case) in cases.iter().enumerate() {
            let n: usize = case.dims.iter().product();
            let m: usize = case.partner.iter().product();
            let (a, w) = (sizes(&case.dims), sizes(&case.partner));
            text.push_str(&format!(
                "f{c}(x, y) = sum(reshape(x[1:{n}], {a}) .* reshape(y[1:{m}], {w}))\n\
                 g{c}(x) = sum(sum(reshape(x[1:{n}], {a}); dims = {}) .^ 2)\n",
                case.reduced
            ));
        }
        let mut host = AnalysisHost::new();
        let file = host.set_file_text(Path::new("ndarrays.jl"), text.clone());
        let analysis = host.analysis();
        let fail = |e: String| TestCaseError::fail(format!("{e}\nin\n{text}"));
        for (c, case) in cases.iter().enumerate() {
            let n: usize = case.dims.iter().product();
            let m: usize = case.partner.iter().product();
            let x: Vec<f64> = (1..=n).map(element).collect();
            let y: Vec<f64> = (1..=m).map(|k| element(k + 40)).collect();

            // sum(A .* W): Σ A[I] W[I'], the partner indexed with its extended dimensions at 0.
            let (mut value, mut gx, mut gy) = (0.0, vec![0.0; n], vec![0.0; m]);
            for idx in indices(case.dims) {
                let (p, q) = (position(&case.dims, idx), position(&case.partner, idx));
                value += x[p] * y[q];
                gx[p] += y[q];
                gy[q] += x[p];
            }
            let call = format!("f{c}({}, {})", julia_vector(&x), julia_vector(&y));
            check_both_engines(
                &analysis,
                file,
                &call,
                value,
                &[vector_json(&gx), vector_json(&gy)],
                |_, _| false,
            )
            .map_err(fail)?;

            // sum(sum(A; dims = d) .^ 2): the sums S over dimension d, Σ S²; ∂A[I] = 2 S[I'].
            let mut reduced_dims = case.dims;
            reduced_dims[case.reduced - 1] = 1;
            let mut sums = vec![0.0; reduced_dims.iter().product()];
            for idx in indices(case.dims) {
                sums[position(&reduced_dims, idx)] += x[position(&case.dims, idx)];
            }
            let value: f64 = sums.iter().map(|s| s * s).sum();
            let mut gx = vec![0.0; n];
            for idx in indices(case.dims) {
                gx[position(&case.dims, idx)] = 2.0 * sums[position(&reduced_dims, idx)];
            }
            let call = format!("g{c}({})", julia_vector(&x));
            check_both_engines(
                &analysis,
                file,
                &call,
                value,
                &[vector_json(&gx)],
                |_, _| false,
            )
            .map_err(fail)?;
        }
        Ok(())
    });
    if let Err(e) = outcome {
        panic!("{e}");
    }
}

/// Every gradient the fixtures of N-dimensional arrays state runs compiled: a path that makes
/// no N-d array (`d > ndims(A) && return copy(A)` in `sum(A; dims = 3)`) leaves an empty array
/// of its dimensions in the tape's slot, which the JIT lays out as any array.
#[test]
fn the_fixtures_of_nd_arrays_run_on_the_jit() {
    let (checked, fell_back) = zy_tests::engines::fixture_fallbacks(&[
        "ndarrays.jl",
        "views_nd.jl",
        "broadcast_3d.jl",
        "arrays28.jl",
    ]);
    assert!(checked > 30, "only {checked} gradients found");
    assert!(
        fell_back.is_empty(),
        "run by the interpreter:\n{}",
        fell_back.join("\n")
    );
}
