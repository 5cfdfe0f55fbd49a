//! Deep nesting, as generated code holds it: parentheses, negations, indexing, `if`/`else` and
//! `for` loops nested 90 deep (a parenthesised call takes two of the AST's 200 levels) each
//! parse, lower, infer, differentiate and run on both engines, and hover answers; nested
//! 250 deep, the call gets a located "nested too deeply" error, never a stack overflow.

use std::path::Path;

use zy_ide::{AnalysisHost, Engine, EvalLimits};

/// How deep the accepted programs nest.
const DEPTH: usize = 90;

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
fn programs_nested_90_deep_run_differentiate_and_hover_on_both_engines() {
    for (body, what, value, slope) in programs(DEPTH) {
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
}

#[test]
fn programs_nested_past_the_limit_are_a_located_error() {
    for (body, what, _, _) in programs(250) {
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
}
