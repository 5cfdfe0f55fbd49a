//! Deep nesting, as generated code holds it: parentheses, negations, calls and indexing nested
//! 1000 deep, `if`/`else` and `for` loops 100 deep (1000 in an `#[ignore]`d test: minutes in a
//! debug build; a parenthesised call takes two of the AST's 10,000 levels) each parse, lower,
//! infer, differentiate and run on both engines on the analysis thread's stack, and hover
//! answers; a chain of 500 `elseif`s (which adds no depth) too, 5000 ignored. Nested past the
//! limit, the call gets a located "nested too deeply" error, never a stack overflow.

use std::path::Path;

use zy_ide::{AnalysisHost, Engine, EvalLimits};

use super::call_chains::on_analysis_stack;

/// How deep the accepted programs nest.
const DEPTH: usize = 1000;

/// How deep the nested `if`s and loops nest in the test that runs on every build: their
/// gradients at [`DEPTH`] take minutes in a debug build (an `#[ignore]`d test runs them).
const CONTROL_DEPTH: usize = 100;

/// Is `what` a program of nested control flow?
fn control(what: &str) -> bool {
    matches!(what, "if/else" | "for loops")
}

/// `f(x)` nested `depth` deep, each program with its value and derivative at `x = 2`, by hand.
fn programs(depth: usize) -> Vec<(String, &'static str, f64, f64)> {
    let n = depth;
    let sign = if n % 2 == 0 { 1.0 } else { -1.0 };
    vec![
        // ((((x)))): x; d/dx 1.
        (
            format!("f(x) = {}x{}\n", "(".repeat(n), ")".repeat(n)),
            "parentheses",
            2.0,
            1.0,
        ),
        // -(-(...(x))): (-1)ⁿ x; d/dx (-1)ⁿ.
        (
            format!("f(x) = {}x{}\n", "-(".repeat(n), ")".repeat(n)),
            "negations",
            2.0 * sign,
            sign,
        ),
        // g(g(...g(x))) with g(y) = y + 1: x + n; d/dx 1.
        (
            format!(
                "f(x) = {}x{}\ng(y) = y + 1.0\n",
                "g(".repeat(n),
                ")".repeat(n)
            ),
            "calls",
            2.0 + n as f64,
            1.0,
        ),
        // x * v[v[...v[1]...]] with v = [1]: every index is 1, so x; d/dx 1.
        (
            format!(
                "f(x) = x * g([1])\ng(v) = {}1{}\n",
                "v[".repeat(n),
                "]".repeat(n)
            ),
            "indexing",
            2.0,
            1.0,
        ),
        // if x > 0 (if x > 0 (... x ...) else 0.0) else 0.0: at 2, x; d/dx 1.
        (
            format!(
                "function f(x)\n{}x\n{}end\n",
                "if x > 0\n".repeat(n),
                "else\n0.0\nend\n".repeat(n)
            ),
            "if/else",
            2.0,
            1.0,
        ),
        // s += x inside n loops of one iteration each: x; d/dx 1.
        (
            format!(
                "function f(x)\ns = 0.0\n{}s += x\n{}return s\nend\n",
                "for i in 1:1\n".repeat(n),
                "end\n".repeat(n)
            ),
            "for loops",
            2.0,
            1.0,
        ),
    ]
}

#[test]
fn programs_nested_1000_deep_run_differentiate_and_hover_on_both_engines() {
    on_analysis_stack(|| {
        let deep = programs(DEPTH).into_iter().filter(|p| !control(p.1));
        let control_flow = programs(CONTROL_DEPTH).into_iter().filter(|p| control(p.1));
        for (body, what, value, slope) in deep.chain(control_flow) {
            nested_program_runs(&body, what, value, slope);
        }
    });
}

#[test]
#[ignore = "minutes in a debug build"]
fn ifs_and_loops_nested_1000_deep_run_differentiate_and_hover_on_both_engines() {
    on_analysis_stack(|| {
        for (body, what, value, slope) in programs(DEPTH).into_iter().filter(|p| control(p.1)) {
            nested_program_runs(&body, what, value, slope);
        }
    });
}

/// `f(2.0)` of `body` has `value` and derivative `slope` on both engines, and hover types `f`.
fn nested_program_runs(body: &str, what: &str, value: f64, slope: f64) {
    let text = format!("# zy: at f(2.0)\n{body}");
    let mut host = AnalysisHost::new();
    let file = host.set_file_text(Path::new("/deep.jl"), text.clone());
    let analysis = host.analysis();
    for engine in [Engine::Interp, Engine::Jit] {
        let grad = analysis
            .grad(file, "f(2.0)", EvalLimits::default(), engine)
            .expect("not cancelled")
            .unwrap_or_else(|e| panic!("{what}, {engine:?}: {e}"));
        assert_eq!(
            grad.value().json.as_f64(),
            Some(value),
            "{what}, {engine:?}"
        );
        let g: Vec<Option<f64>> = grad.gradient().iter().map(|g| g.json.as_f64()).collect();
        assert_eq!(g, vec![Some(slope)], "{what}, {engine:?}");
    }
    let at = text.find("f(x)").map_or(0, |i| i as u32);
    let hover = analysis.hover(file, at).expect("not cancelled");
    assert!(
        hover.is_some_and(|h| h.markdown.contains("f(x::Float64) -> Float64")),
        "{what}: hover"
    );
}

#[test]
fn a_chain_of_500_elseifs_takes_the_branch_that_holds() {
    elseif_chain_runs(500);
}

#[test]
#[ignore = "minutes in a debug build"]
fn a_chain_of_5000_elseifs_takes_the_branch_that_holds() {
    elseif_chain_runs(5000);
}

/// A chain of `n` `elseif`s (the parser once nested them, 128 at most): branch k (from 1)
/// holds for k - 1 <= x < k and gives k x, so at n / 2 + 0.5 the value is (n / 2 + 1) x and
/// the derivative n / 2 + 1, on both engines.
fn elseif_chain_runs(n: usize) {
    let mut body = String::from("function f(x)\n    if x < 1.0\n        y = 1.0 * x\n");
    for k in 2..=n {
        body.push_str(&format!("    elseif x < {k}.0\n        y = {k}.0 * x\n"));
    }
    body.push_str("    else\n        y = -x\n    end\n    return y\nend\n");
    let x = (n / 2) as f64 + 0.5;
    let k = (n / 2 + 1) as f64;
    on_analysis_stack(move || {
        let mut host = AnalysisHost::new();
        let file = host.set_file_text(Path::new("/elseif.jl"), body);
        let analysis = host.analysis();
        for engine in [Engine::Interp, Engine::Jit] {
            let grad = analysis
                .grad(file, &format!("f({x:?})"), EvalLimits::default(), engine)
                .expect("not cancelled")
                .unwrap_or_else(|e| panic!("{engine:?}: {e}"));
            assert_eq!(grad.value().json.as_f64(), Some(k * x), "{engine:?}");
            let g: Vec<Option<f64>> = grad.gradient().iter().map(|g| g.json.as_f64()).collect();
            assert_eq!(g, vec![Some(k)], "{engine:?}");
        }
    });
}

#[test]
fn programs_nested_past_the_limit_are_a_located_error() {
    // One level past the AST's 10,000 (`zy_syntax::MAX_NESTING`); a parenthesised call takes
    // two, and the parser refuses first where its own levels run out.
    on_analysis_stack(|| {
        for (body, what, _, _) in programs(10_001) {
            nested_too_deeply(body, what);
        }
    });
}

/// Asking for a gradient in `body` is a located "nested too deeply" error.
fn nested_too_deeply(body: String, what: &str) {
    let mut host = AnalysisHost::new();
    let file = host.set_file_text(Path::new("/deep.jl"), body);
    let analysis = host.analysis();
    let err = analysis
        .grad(file, "f(2.0)", EvalLimits::default(), Engine::Interp)
        .expect("not cancelled")
        .err()
        .unwrap_or_else(|| panic!("{what}: no error"));
    let text = err.to_string();
    assert!(
        text.starts_with("/deep.jl:") && text.contains("nested too deeply"),
        "{what}: {text}"
    );
}
