//! Property tests of generators and comprehensions in reductions: random `sum` and `prod` of a
//! generator, a comprehension or a typed comprehension, over an index range `lo:s:hi` (either
//! direction) with or without an `if` on the index, over `enumerate(x)`, or over `zip(x, y)`;
//! each term `c * v^p + d`. Their value and gradient are written down here (a sum's gradient
//! is each selected term's derivative, a product's that times the other terms), and both
//! engines must give them.

use std::path::Path;

use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use serde_json::Value as Json;
use zy_ide::AnalysisHost;
use zy_tests::engines::{check_both_engines, julia_vector, vector_json};

/// What the terms run over.
#[derive(Clone, Debug)]
enum Source {
    /// `i in lo:step:hi`, `if i % m != r` when `filter` is `Some((m, r))`: terms of `x[i]`.
    Range {
        lo: usize,
        step: i64,
        hi: usize,
        filter: Option<(usize, usize)>,
    },
    /// `(i, v) in enumerate(x)`: terms `i * c * v^p + d`.
    Enumerate,
    /// `(v, b) in zip(x, y)`: terms `c * v^p * b + d`.
    Zip,
}

impl Source {
    /// The indices (1-based) a range selects, in order; none for the other sources.
    fn indices(&self) -> Vec<usize> {
        let Source::Range {
            lo,
            step,
            hi,
            filter,
        } = self
        else {
            return Vec::new();
        };
        let (mut i, mut out) = (*lo as i64, Vec::new());
        while (*step > 0 && i <= *hi as i64) || (*step < 0 && i >= *hi as i64) {
            if filter.is_none_or(|(m, r)| i as usize % m != r) {
                out.push(i as usize);
            }
            i += step;
        }
        out
    }
}

/// How the terms are written.
#[derive(Clone, Copy, Debug)]
enum Form {
    Generator,
    Comprehension,
    Typed,
}

/// One function: `reducer(form of terms over source)` of `x` (and `y` for [`Source::Zip`]).
#[derive(Clone, Debug)]
struct Case {
    x: Vec<f64>,
    y: Vec<f64>,
    source: Source,
    form: Form,
    prod: bool,
    c: f64,
    d: f64,
    p: i32,
}

impl Case {
    /// The Julia definition of `name(x)` (`name(x, y)` over a zip).
    fn text(&self, name: &str) -> String {
        let (c, d, p) = (
            zy_ir::julia_float(self.c),
            zy_ir::julia_float(self.d),
            self.p,
        );
        let (params, term, iteration) = match &self.source {
            Source::Range {
                lo,
                step,
                hi,
                filter,
            } => {
                let range = match step {
                    1 => format!("{lo}:{hi}"),
                    _ => format!("{lo}:{step}:{hi}"),
                };
                let filter = filter
                    .map(|(m, r)| format!(" if i % {m} != {r}"))
                    .unwrap_or_default();
                (
                    "x",
                    format!("{c} * x[i]^{p} + {d}"),
                    format!("i in {range}{filter}"),
                )
            }
            Source::Enumerate => (
                "x",
                format!("i * {c} * v^{p} + {d}"),
                "(i, v) in enumerate(x)".to_string(),
            ),
            Source::Zip => (
                "x, y",
                format!("{c} * v^{p} * b + {d}"),
                "(v, b) in zip(x, y)".to_string(),
            ),
        };
        let reducer = if self.prod { "prod" } else { "sum" };
        let terms = match self.form {
            Form::Generator => format!("{term} for {iteration}"),
            Form::Comprehension => format!("[{term} for {iteration}]"),
            Form::Typed => format!("Float64[{term} for {iteration}]"),
        };
        format!("{name}({params}) = {reducer}({terms})\n")
    }

    /// The call of `name` on the case's arguments.
    fn call(&self, name: &str) -> String {
        match self.source {
            Source::Zip => format!(
                "{name}({}, {})",
                julia_vector(&self.x),
                julia_vector(&self.y)
            ),
            _ => format!("{name}({})", julia_vector(&self.x)),
        }
    }

    /// The selected positions (0-based), each with its term's weight `w` (`w * c * v^p + d`)
    /// for the first argument.
    fn selected(&self) -> Vec<(usize, f64)> {
        match &self.source {
            Source::Range { .. } => self
                .source
                .indices()
                .into_iter()
                .map(|i| (i - 1, 1.0))
                .collect(),
            Source::Enumerate => (0..self.x.len()).map(|k| (k, (k + 1) as f64)).collect(),
            Source::Zip => (0..self.x.len()).map(|k| (k, self.y[k])).collect(),
        }
    }

    /// The value and the gradients, one per argument.
    fn expected(&self) -> (f64, Vec<Json>) {
        let selected = self.selected();
        let pow = |v: f64, p: i32| (0..p).fold(1.0, |acc, _| acc * v);
        let terms: Vec<f64> = selected
            .iter()
            .map(|&(k, w)| w * self.c * pow(self.x[k], self.p) + self.d)
            .collect();
        // The factor of term j in the derivative: 1 for a sum, the other terms for a product.
        let others = |j: usize| -> f64 {
            match self.prod {
                true => terms
                    .iter()
                    .enumerate()
                    .filter(|&(i, _)| i != j)
                    .map(|(_, t)| t)
                    .product(),
                false => 1.0,
            }
        };
        let value = match self.prod {
            true => terms.iter().product(),
            false => terms.iter().sum(),
        };
        let mut gx = vec![0.0; self.x.len()];
        let mut gy = vec![0.0; self.y.len()];
        for (j, &(k, w)) in selected.iter().enumerate() {
            let (v, p) = (self.x[k], self.p);
            gx[k] += others(j) * w * self.c * p as f64 * pow(v, p - 1);
            if let Source::Zip = self.source {
                gy[k] += others(j) * self.c * pow(v, p);
            }
        }
        let mut gradients = vec![vector_json(&gx)];
        if let Source::Zip = self.source {
            gradients.push(vector_json(&gy));
        }
        (value, gradients)
    }
}

/// A source over vectors of length `n`: a range of valid indices (never empty after its
/// filter), `enumerate` or `zip`.
fn source(n: usize) -> impl Strategy<Value = Source> {
    let range = (
        1..=n,
        1..=n,
        prop_oneof![Just(1i64), Just(2), Just(-1), Just(-2)],
        prop::option::of((2usize..4).prop_flat_map(|m| (Just(m), 0..m))),
    )
        .prop_map(|(a, b, step, filter)| {
            let (lo, hi) = match step > 0 {
                true => (a.min(b), a.max(b)),
                false => (a.max(b), a.min(b)),
            };
            Source::Range {
                lo,
                step,
                hi,
                filter,
            }
        })
        .prop_filter("a range that selects something", |s| {
            !s.indices().is_empty()
        });
    prop_oneof![
        3 => range,
        1 => Just(Source::Enumerate),
        1 => Just(Source::Zip),
    ]
}

fn case() -> impl Strategy<Value = Case> {
    (2usize..7)
        .prop_flat_map(|n| {
            (
                prop::collection::vec(0.5f64..2.0, n),
                prop::collection::vec(-1.5f64..1.5, n),
                source(n),
            )
        })
        .prop_flat_map(|(x, y, source)| {
            (
                Just((x, y, source)),
                prop_oneof![
                    Just(Form::Generator),
                    Just(Form::Comprehension),
                    Just(Form::Typed)
                ],
                any::<bool>(),
                0.5f64..2.0,
                0.5f64..1.5,
                1i32..=3,
            )
        })
        .prop_map(|((x, y, source), form, prod, c, d, p)| Case {
            x,
            y,
            source,
            form,
            prod,
            c,
            d,
            p,
        })
}

#[test]
fn reductions_of_generators_and_comprehensions_differentiate_as_in_julia() {
    let mut runner = TestRunner::new(Config {
        cases: 10,
        failure_persistence: None,
        ..Config::default()
    });
    let batch = prop::collection::vec(case(), 8);
    let outcome = runner.run(&batch, |cases| {
        let text: String = cases
            .iter()
            .enumerate()
            .map(|(k, case)| case.text(&format!("f{k}")))
            .collect();
        let mut host = AnalysisHost::new();
        let file = host.set_file_text(Path::new("generators.jl"), text.clone());
        let analysis = host.analysis();
        for (k, case) in cases.iter().enumerate() {
            let (value, gradients) = case.expected();
            check_both_engines(
                &analysis,
                file,
                &case.call(&format!("f{k}")),
                value,
                &gradients,
                |_, _| false,
            )
            .map_err(|e| TestCaseError::fail(format!("{e}\nin\n{text}")))?;
        }
        Ok(())
    });
    if let Err(e) = outcome {
        panic!("{e}");
    }
}
