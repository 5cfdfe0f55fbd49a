//! Differential tests of the parser (issue 17): random arithmetic expressions and matrix
//! literals, evaluated by zy for real (the body of `f(x, y) = ...` run through `zy-ide`'s
//! gradient) and by the reference evaluator of [`zy_tests::arith`], which reads the text the
//! way Julia's documented rules do. Values must agree to the bit, the derivative in `x` with
//! the reference's dual numbers.

use std::path::Path;

use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use zy_ide::{AnalysisHost, EvalLimits};
use zy_tests::arith::{
    check_batch, element_value, f64_of, json_f64, matrix_rows, reference, render, same_bits, Gen,
    ELEMENTS, LITERALS, NAMES,
};

fn gen_expr() -> impl Strategy<Value = Gen> {
    let leaf = prop_oneof![
        prop::sample::select(LITERALS.to_vec()).prop_map(Gen::Lit),
        prop::sample::select(NAMES.to_vec()).prop_map(Gen::Name),
    ];
    leaf.prop_recursive(5, 24, 2, |inner| {
        prop_oneof![
            (prop::sample::select(vec!["-", "+", "√"]), inner.clone())
                .prop_map(|(op, e)| Gen::Unary(op, Box::new(e))),
            (
                prop::sample::select(vec!["+", "-", "*", "/"]),
                inner.clone(),
                inner.clone()
            )
                .prop_map(|(op, a, b)| Gen::Bin(op, Box::new(a), Box::new(b))),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| Gen::Pow(Box::new(a), Box::new(b))),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| Gen::Juxt(Box::new(a), Box::new(b))),
            inner.prop_map(|e| Gen::Paren(Box::new(e))),
        ]
    })
}

/// Points where both arguments are evaluated (negative ones exercise the DomainErrors).
fn point() -> impl Strategy<Value = (f64, f64)> {
    let values = vec![0.5, 1.3, 2.0, 3.7, 0.25, -0.7, -2.5];
    (
        prop::sample::select(values.clone()),
        prop::sample::select(values),
    )
}

#[test]
fn arithmetic_reads_as_julia_reads_it() {
    // 40 files of 50 expressions: 2,000 expressions, their values and derivatives (new ones
    // at every run: the seed is random).
    let mut runner = TestRunner::new(Config {
        cases: 40,
        failure_persistence: None,
        ..Config::default()
    });
    let batch = (
        prop::collection::vec((gen_expr(), prop::collection::vec(any::<bool>(), 64)), 50),
        point(),
    );
    let outcome = runner.run(&batch, |(exprs, (x, y))| {
        let texts: Vec<String> = exprs
            .iter()
            .map(|(g, spaces)| render(g, &mut spaces.iter().copied()))
            .collect();
        check_batch(&texts, x, y).map_err(TestCaseError::fail)
    });
    if let Err(e) = outcome {
        panic!("{e}");
    }
}

#[test]
fn the_issue_table_through_zy() {
    // Each of issue 17's misread expressions, with the value Julia gives (checked here
    // against the reference reading as well).
    let cases = [
        ("3-(x + 1.0)", 2.0, 0.0),
        ("0.5-(x)^2", 2.0, -3.5),
        ("2.0+(x+1.0)", 2.0, 5.0),
        ("-(x)^2", 1.7, -2.8899999999999997),
        ("√2x", 1.7, 2.4041630560342617),
        ("exp(1-(x))", 1.0, 1.0),
        ("10-(x)*(y)", 2.0, 8.0),
        ("1+(2)", 0.0, 3.0),
        ("0.5*(x)", 2.0, 1.0),
        ("1/(x)", 2.0, 0.5),
        ("2^(x)", 2.0, 4.0),
        ("(x-1)y", 3.0, 2.0),
        ("(2)(3)x", 2.0, 12.0),
        ("1√x", 4.0, 2.0),
        ("-(16x^2-24x+5)exp(-x)", 0.0, -5.0),
    ];
    let texts: Vec<String> = cases.iter().map(|c| c.0.to_string()).collect();
    let file_text: String = texts
        .iter()
        .enumerate()
        .map(|(i, t)| format!("f{i}(x, y) = {t}\n"))
        .collect();
    let mut host = AnalysisHost::new();
    let file = host.set_file_text(Path::new("issue.jl"), file_text);
    let analysis = host.analysis();
    for (i, (text, x, want)) in cases.iter().enumerate() {
        let call = format!("f{i}({}, 1.0)", zy_ir::julia_float(*x));
        let got = analysis
            .eval(file, &call, EvalLimits::default())
            .expect("not cancelled")
            .unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!(json_f64(&got.json), Some(*want), "{text} at x = {x}");
        if !text.contains("exp") {
            let reference = reference(text, *x, 1.0).expect("the reference reads it");
            assert!(
                same_bits(f64_of(&reference.v), *want),
                "{text}: {reference:?}"
            );
        }
    }
}

#[test]
fn matrix_literals_read_as_julia_reads_them() {
    let mut runner = TestRunner::new(Config {
        cases: 20,
        failure_persistence: None,
        ..Config::default()
    });
    let matrix = prop::collection::vec(
        prop::collection::vec(prop::sample::select(ELEMENTS), 2..4),
        1..4,
    );
    let separators = prop::collection::vec(prop::sample::select(vec![" ", "  "]), 12);
    let row_separators = prop::collection::vec(prop::sample::select(vec!["; ", ";", "\n "]), 4);
    let batch = (
        prop::collection::vec((matrix, separators, row_separators), 40),
        point(),
    );
    let outcome = runner.run(&batch, |(matrices, (x, y))| {
        let mut texts = Vec::new();
        for (rows, seps, row_seps) in &matrices {
            let mut seps = seps.iter().cycle();
            let mut row_seps = row_seps.iter().cycle();
            let inside = rows
                .iter()
                .map(|row| {
                    let mut text = String::new();
                    for (i, e) in row.iter().enumerate() {
                        if i > 0 {
                            text.push_str(seps.next().copied().unwrap_or(" "));
                        }
                        text.push_str(e);
                    }
                    text
                })
                .collect::<Vec<_>>();
            let mut joined = String::new();
            for (i, row) in inside.iter().enumerate() {
                if i > 0 {
                    joined.push_str(row_seps.next().copied().unwrap_or(";"));
                }
                joined.push_str(row);
            }
            let rows = matrix_rows(&joined);
            // Rows of different lengths are an error in Julia and in zy alike (checked
            // elsewhere); leave them out so that every function of the file loads.
            if rows.iter().any(|r| r.len() != rows[0].len()) {
                continue;
            }
            // A column of expressions (`[x - x; y]`, a Vector in Julia) is outside zy's subset
            // (only columns of literals are): reported by name, and left out here.
            if rows.len() > 1 && rows[0].len() == 1 {
                continue;
            }
            texts.push((format!("[{joined}]"), rows));
        }
        let file_text: String = texts
            .iter()
            .enumerate()
            .map(|(i, (t, _))| format!("m{i}(x, y) = {t}\n"))
            .collect();
        let mut host = AnalysisHost::new();
        let file = host.set_file_text(Path::new("matrices.jl"), file_text);
        let analysis = host.analysis();
        let (xs, ys) = (zy_ir::julia_float(x), zy_ir::julia_float(y));
        for (i, (text, rows)) in texts.iter().enumerate() {
            let want: Vec<Vec<Option<f64>>> = rows
                .iter()
                .map(|r| r.iter().map(|e| element_value(e, x, y)).collect())
                .collect();
            let got = analysis
                .eval(file, &format!("m{i}({xs}, {ys})"), EvalLimits::default())
                .map_err(|_| TestCaseError::fail("cancelled"))?;
            if want.iter().flatten().any(Option::is_none) {
                // An element fails (`√x` for a negative `x`): so must the literal.
                prop_assert!(
                    got.as_ref()
                        .is_err_and(|e| e.to_string().contains("DomainError")),
                    "{text} at x = {xs}, y = {ys}: zy gives {:?}, Julia fails",
                    got.map(|v| v.display)
                );
                continue;
            }
            let got = got.map_err(|e| {
                TestCaseError::fail(format!("{text} at x = {xs}, y = {ys}: zy fails: {e}"))
            })?;
            // `[a]` (one element) is a Vector, a flat array; anything else a Matrix.
            let is_vector = rows.len() == 1 && rows[0].len() == 1;
            let got_rows: Vec<Vec<Option<f64>>> = match got.json.as_array() {
                Some(elements) if is_vector => vec![elements.iter().map(json_f64).collect()],
                Some(rows) => rows
                    .iter()
                    .map(|r| {
                        r.as_array()
                            .map(|r| r.iter().map(json_f64).collect())
                            .unwrap_or_default()
                    })
                    .collect(),
                None => Vec::new(),
            };
            let same = got_rows.len() == want.len()
                && got_rows.iter().zip(&want).all(|(g, w)| {
                    g.len() == w.len()
                        && g.iter().zip(w).all(|(a, b)| match (a, b) {
                            (Some(a), Some(b)) => same_bits(*a, *b),
                            _ => false,
                        })
                });
            prop_assert!(
                same,
                "{text} at x = {xs}, y = {ys}: zy {} ({}), Julia {want:?} read as {rows:?}",
                got.display,
                got.ty
            );
        }
        Ok(())
    });
    if let Err(e) = outcome {
        panic!("{e}");
    }
}
