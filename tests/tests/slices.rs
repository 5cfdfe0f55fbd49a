//! Property tests of indexing by ranges (issue 13): random slices of vectors and matrices,
//! spelt with `a:b`, `a:s:b`, `end`, `begin` and `:`, read and assigned inside functions whose
//! value and gradient are written down here for every selection (a sum of weighted squares of
//! the selected elements: the gradient is twice the weight times the element where selected,
//! zero elsewhere), and matrix blocks read and written through views. Both engines must give
//! them, so the JIT agrees with the interpreter.

use std::path::Path;

use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use serde_json::Value as Json;
use zy_ide::AnalysisHost;
use zy_tests::engines::{check_both_engines, julia_vector, vector_json};

/// An index range of one dimension of length `len`, as Julia selects it: `lo:step:hi`.
#[derive(Clone, Debug)]
struct Span {
    lo: usize,
    step: i64,
    hi: usize,
    /// Write `hi` as `end - k` and `lo` as `begin + k` where they can be.
    relative: bool,
}

impl Span {
    /// The selected indices (1-based), in order: `lo, lo + step, ...` not past `hi`.
    fn indices(&self) -> Vec<usize> {
        let (mut i, mut out) = (self.lo as i64, Vec::new());
        while (self.step > 0 && i <= self.hi as i64) || (self.step < 0 && i >= self.hi as i64) {
            out.push(i as usize);
            i += self.step;
        }
        out
    }

    /// The Julia text of the range inside brackets of a dimension of length `len`.
    fn text(&self, len: usize) -> String {
        let lo = match self.relative {
            true if self.lo == 1 => "begin".to_string(),
            true => format!("begin + {}", self.lo - 1),
            false => self.lo.to_string(),
        };
        let hi = match self.relative {
            true if self.hi == len => "end".to_string(),
            true => format!("end - {}", len - self.hi),
            false => self.hi.to_string(),
        };
        match self.step {
            1 => format!("{lo}:{hi}"),
            s => format!("{lo}:{s}:{hi}"),
        }
    }
}

fn span(len: usize) -> impl Strategy<Value = Span> {
    (
        1..=len,
        1..=len,
        prop::sample::select(vec![1i64, 1, 2, 3, -1, -2]),
        any::<bool>(),
    )
        .prop_map(|(lo, hi, step, relative)| Span {
            lo,
            step,
            hi,
            relative,
        })
}

/// One index of a matrix dimension: a number, a range or `:`.
#[derive(Clone, Debug)]
enum Index {
    At(usize),
    Range(Span),
    All,
}

impl Index {
    fn indices(&self, len: usize) -> Vec<usize> {
        match self {
            Index::At(i) => vec![*i],
            Index::Range(s) => s.indices(),
            Index::All => (1..=len).collect(),
        }
    }

    fn text(&self, len: usize) -> String {
        match self {
            Index::At(i) => i.to_string(),
            Index::Range(s) => s.text(len),
            Index::All => ":".to_string(),
        }
    }
}

fn index(len: usize) -> impl Strategy<Value = Index> {
    prop_oneof![
        (1..=len).prop_map(Index::At),
        span(len).prop_map(Index::Range),
        Just(Index::All),
    ]
}

/// The input elements: distinct, of both signs.
fn element(k: usize) -> f64 {
    ((k as f64) * 0.7).sin() * 2.0 + 0.1
}

/// A column-major `rows × cols` matrix as a Julia literal.
fn julia_matrix(a: &[f64], rows: usize, cols: usize) -> String {
    let text: Vec<String> = (0..rows)
        .map(|i| {
            (0..cols)
                .map(|j| zy_ir::julia_float(a[i + j * rows]))
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect();
    format!("[{}]", text.join("; "))
}

fn matrix_json(a: &[f64], rows: usize, cols: usize) -> Json {
    Json::Array(
        (0..rows)
            .map(|i| vector_json(&(0..cols).map(|j| a[i + j * rows]).collect::<Vec<_>>()))
            .collect(),
    )
}

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

#[test]
fn vector_slices_read_and_differentiate_as_in_julia() {
    let mut runner = TestRunner::new(Config {
        cases: 12,
        failure_persistence: None,
        ..Config::default()
    });
    let case = (3usize..9).prop_flat_map(|n| (Just(n), span(n), 0.5f64..3.0));
    let batch = prop::collection::vec(case, 8);
    let outcome = runner.run(&batch, |cases| {
        // f_k(x) = c * sum(x[range] .^ 2); g_k(x, z) overwrites the range with z first and
        // squares all of x: the overwritten elements get no gradient, z gets 2z.
        let mut text = String::new();
        for (k, (n, s, c)) in cases.iter().enumerate() {
            let r = s.text(*n);
            let c = zy_ir::julia_float(*c);
            text.push_str(&format!("f{k}(x) = {c} * sum(x[{r}] .^ 2)\n"));
            text.push_str(&format!(
                "function g{k}(x, z)\n    y = copy(x)\n    y[{r}] = z\n    return {c} * sum(y .^ 2)\nend\n"
            ));
        }
        let mut host = AnalysisHost::new();
        let file = host.set_file_text(Path::new("slices.jl"), text.clone());
        let analysis = host.analysis();
        for (k, (n, s, c)) in cases.iter().enumerate() {
            let x: Vec<f64> = (1..=*n).map(element).collect();
            let picked = s.indices();
            let value: f64 = picked.iter().map(|&i| c * x[i - 1] * x[i - 1]).sum();
            let mut grad = vec![0.0; *n];
            for &i in &picked {
                grad[i - 1] = 2.0 * c * x[i - 1];
            }
            let call = format!("f{k}({})", julia_vector(&x));
            check(&analysis, file, &call, value, &[vector_json(&grad)])
                .map_err(|e| TestCaseError::fail(format!("{e}\nin\n{text}")))?;

            let z: Vec<f64> = (0..picked.len()).map(|j| 0.5 - j as f64).collect();
            let mut y = x.clone();
            for (j, &i) in picked.iter().enumerate() {
                y[i - 1] = z[j];
            }
            let value: f64 = y.iter().map(|v| c * v * v).sum();
            let mut gx: Vec<f64> = x.iter().map(|v| 2.0 * c * v).collect();
            for &i in &picked {
                gx[i - 1] = 0.0;
            }
            let gz: Vec<f64> = z.iter().map(|v| 2.0 * c * v).collect();
            let call = format!("g{k}({}, {})", julia_vector(&x), julia_vector(&z));
            check(
                &analysis,
                file,
                &call,
                value,
                &[vector_json(&gx), vector_json(&gz)],
            )
            .map_err(|e| TestCaseError::fail(format!("{e}\nin\n{text}")))?;
        }
        Ok(())
    });
    if let Err(e) = outcome {
        panic!("{e}");
    }
}

#[test]
fn matrix_slices_read_and_differentiate_as_in_julia() {
    let mut runner = TestRunner::new(Config {
        cases: 12,
        failure_persistence: None,
        ..Config::default()
    });
    let case = (2usize..5, 2usize..5)
        .prop_flat_map(|(m, n)| (Just(m), Just(n), index(m), index(n), 0.5f64..3.0));
    let batch = prop::collection::vec(case, 8);
    let outcome = runner.run(&batch, |cases| {
        let mut text = String::new();
        for (k, (m, n, i, j, c)) in cases.iter().enumerate() {
            let c = zy_ir::julia_float(*c);
            let (i, j) = (i.text(*m), j.text(*n));
            text.push_str(&format!("f{k}(A) = {c} * sum(A[{i}, {j}] .^ 2)\n"));
        }
        let mut host = AnalysisHost::new();
        let file = host.set_file_text(Path::new("blocks.jl"), text.clone());
        let analysis = host.analysis();
        for (k, (m, n, i, j, c)) in cases.iter().enumerate() {
            let a: Vec<f64> = (1..=m * n).map(element).collect();
            let mut value = 0.0;
            let mut grad = vec![0.0; m * n];
            for &p in &i.indices(*m) {
                for &q in &j.indices(*n) {
                    let at = (p - 1) + (q - 1) * m;
                    value += c * a[at] * a[at];
                    grad[at] = 2.0 * c * a[at];
                }
            }
            let call = format!("f{k}({})", julia_matrix(&a, *m, *n));
            check(&analysis, file, &call, value, &[matrix_json(&grad, *m, *n)])
                .map_err(|e| TestCaseError::fail(format!("{e}\nin\n{text}")))?;
        }
        Ok(())
    });
    if let Err(e) = outcome {
        panic!("{e}");
    }
}

#[test]
fn matrix_block_views_read_write_and_differentiate_as_in_julia() {
    let mut runner = TestRunner::new(Config {
        cases: 12,
        failure_persistence: None,
        ..Config::default()
    });
    // Two `Int`s would make a 0-dimensional view, which zy refuses by name.
    let case = (2usize..5, 2usize..5)
        .prop_flat_map(|(m, n)| (Just(m), Just(n), index(m), index(n), 0.5f64..3.0))
        .prop_filter("a view of one element", |(_, _, i, j, _)| {
            !matches!((i, j), (Index::At(_), Index::At(_)))
        });
    let batch = prop::collection::vec(case, 8);
    let outcome = runner.run(&batch, |cases| {
        // f_k reads the block through `@views`; g_k zeroes it through a view of a copy and
        // squares the whole copy: the zeroed elements get no gradient.
        let mut text = String::new();
        for (k, (m, n, i, j, c)) in cases.iter().enumerate() {
            let c = zy_ir::julia_float(*c);
            let (i, j) = (i.text(*m), j.text(*n));
            text.push_str(&format!("f{k}(A) = @views {c} * sum(A[{i}, {j}] .^ 2)\n"));
            text.push_str(&format!(
                "function g{k}(A)\n    B = copy(A)\n    V = @view B[{i}, {j}]\n    V .= 0.0\n    return {c} * sum(B .^ 2)\nend\n"
            ));
        }
        let mut host = AnalysisHost::new();
        let file = host.set_file_text(Path::new("block_views.jl"), text.clone());
        let analysis = host.analysis();
        for (k, (m, n, i, j, c)) in cases.iter().enumerate() {
            let a: Vec<f64> = (1..=m * n).map(element).collect();
            let mut picked = vec![false; m * n];
            for &p in &i.indices(*m) {
                for &q in &j.indices(*n) {
                    picked[(p - 1) + (q - 1) * m] = true;
                }
            }
            let read: f64 = (0..m * n).filter(|&t| picked[t]).map(|t| c * a[t] * a[t]).sum();
            let grad: Vec<f64> = (0..m * n)
                .map(|t| if picked[t] { 2.0 * c * a[t] } else { 0.0 })
                .collect();
            let call = format!("f{k}({})", julia_matrix(&a, *m, *n));
            check(&analysis, file, &call, read, &[matrix_json(&grad, *m, *n)])
                .map_err(|e| TestCaseError::fail(format!("{e}\nin\n{text}")))?;

            let kept: f64 = (0..m * n).filter(|&t| !picked[t]).map(|t| c * a[t] * a[t]).sum();
            let grad: Vec<f64> = (0..m * n)
                .map(|t| if picked[t] { 0.0 } else { 2.0 * c * a[t] })
                .collect();
            let call = format!("g{k}({})", julia_matrix(&a, *m, *n));
            check(&analysis, file, &call, kept, &[matrix_json(&grad, *m, *n)])
                .map_err(|e| TestCaseError::fail(format!("{e}\nin\n{text}")))?;
        }
        Ok(())
    });
    if let Err(e) = outcome {
        panic!("{e}");
    }
}
