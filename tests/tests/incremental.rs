//! Incrementality: after an edit, the salsa query log shows that only the edited function's
//! queries (and those of the instances whose inputs really changed) re-ran.

use std::path::Path;

use std::time::Duration;

use zy_ide::{AnalysisHost, Engine, EvalLimits, FileId};

const A: &str = "\
function sq(x)
    return x * x
end

function cube(x)
    return x * sq(x)
end
";

const B: &str = "\
include(\"a.jl\")

# zy: at twice(2.0)
function twice(x)
    return 2.0 * cube(x)
end

function other(y)
    y + 1.0
end
";

/// A two-file workspace (`b.jl` includes `a.jl`) with `twice(2.0)` evaluated and diagnostics computed, and the query
/// log switched on.
fn setup() -> (AnalysisHost, FileId, FileId) {
    let mut host = AnalysisHost::with_query_log();
    let a = host.set_file_text(Path::new("a.jl"), A.to_string());
    let b = host.set_file_text(Path::new("b.jl"), B.to_string());
    let analysis = host.analysis();
    let v = analysis
        .eval(b, "twice(2.0)", EvalLimits::default())
        .unwrap()
        .unwrap();
    assert_eq!(v.display, "16.0");
    assert_eq!(analysis.diagnostics(b).unwrap(), vec![]);
    drop(analysis);
    host.raw_database().enable_query_log();
    (host, a, b)
}

/// Recompute what `setup` computed and return the queries that executed, keeping only the
/// per-function ones (`ssa`, `typed`, `ret_type`).
fn rerun(host: &AnalysisHost, b: FileId) -> Vec<String> {
    let analysis = host.analysis();
    let v = analysis
        .eval(b, "twice(2.0)", EvalLimits::default())
        .unwrap()
        .unwrap();
    let _ = analysis.diagnostics(b).unwrap();
    drop((analysis, v));
    let mut log: Vec<String> = host
        .raw_database()
        .take_query_log()
        .into_iter()
        .filter(|q| q.starts_with("ssa(") || q.starts_with("typed(") || q.starts_with("ret_type("))
        .collect();
    log.sort();
    log.dedup();
    log
}

#[test]
fn body_edit_keeping_the_type_reruns_only_that_function() {
    let (mut host, _, b) = setup();
    // An edit that reaches no library function the program did not reach already (`x ^ 2`
    // would: `^` has Julia methods, for complex numbers, which the program then holds).
    host.set_file_text(Path::new("a.jl"), A.replace("x * x", "(x * x) * 1.0"));
    assert_eq!(
        rerun(&host, b),
        ["ret_type(sq(::Float64))", "ssa(sq)", "typed(sq(::Float64))"]
    );
}

#[test]
fn body_edit_changing_the_return_type_reruns_the_callers_until_types_agree() {
    let (mut host, _, b) = setup();
    // `sq` now returns an Int64; `cube` still returns Float64, so `twice` is not re-inferred.
    host.set_file_text(Path::new("a.jl"), A.replace("return x * x", "return 3"));
    assert_eq!(
        rerun(&host, b),
        [
            "ret_type(cube(::Float64))",
            "ret_type(sq(::Float64))",
            "ssa(sq)",
            "typed(cube(::Float64))",
            "typed(sq(::Float64))",
        ]
    );
}

#[test]
fn whitespace_and_comment_edits_rerun_no_function_query() {
    let (mut host, _, b) = setup();
    let edited = format!(
        "\n\n# a comment\n{}",
        A.replace("x * x", "x  *  x   # squared")
    );
    host.set_file_text(Path::new("a.jl"), edited);
    assert_eq!(rerun(&host, b), Vec::<String>::new());
    // The edit moved `sq`: errors in it are still reported at the right place (`y`).
    host.set_file_text(
        Path::new("a.jl"),
        format!("\n\n{}", A.replace("x * x", "x * y")),
    );
    let analysis = host.analysis();
    let e = analysis
        .eval(b, "twice(2.0)", EvalLimits::default())
        .unwrap()
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "a.jl:4:16: error: UndefVarError: `y` not defined"
    );
}

#[test]
fn edit_in_another_file_leaves_this_files_functions_alone() {
    let (mut host, _, b) = setup();
    host.set_file_text(Path::new("b.jl"), B.replace("y + 1.0", "y + 2.0"));
    assert_eq!(rerun(&host, b), ["ssa(other)"]);
}

#[test]
fn an_error_in_another_file_is_reported_at_the_annotation_saying_where() {
    let (mut host, _, b) = setup();
    host.set_file_text(Path::new("a.jl"), A.replace("x * x", "x * z"));
    let diags = host.analysis().diagnostics(b).unwrap();
    let shown: Vec<String> = diags
        .iter()
        .map(|d| format!("{}:{} {} {}", d.line, d.col, d.code, d.message))
        .collect();
    assert_eq!(
        shown,
        ["3:10 undefined-name UndefVarError: `z` not defined (at a.jl:2:16)"]
    );
}

#[test]
fn removing_a_file_removes_its_definitions() {
    let (mut host, _, b) = setup();
    host.remove_file(Path::new("a.jl"));
    let e = host
        .analysis()
        .eval(b, "twice(2.0)", EvalLimits::default())
        .unwrap()
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "b.jl:1:1: error: cannot include `a.jl`: no such file"
    );
    host.set_file_text(Path::new("a.jl"), A.to_string());
    let v = host
        .analysis()
        .eval(b, "twice(2.0)", EvalLimits::default())
        .unwrap()
        .unwrap();
    assert_eq!(v.display, "16.0");
}

/// `call`'s JIT gradient as text, and the `compiled` queries it ran.
fn jit_grad(host: &AnalysisHost, b: FileId, call: &str) -> (String, Vec<String>) {
    let g = host
        .analysis()
        .grad(b, call, EvalLimits::default(), Engine::Jit)
        .unwrap()
        .unwrap();
    assert_eq!(g.jit_fallback, None);
    let mut log: Vec<String> = host
        .raw_database()
        .take_query_log()
        .into_iter()
        .filter(|q| q.starts_with("compiled("))
        .collect();
    log.sort();
    (g.to_text(), log)
}

#[test]
fn a_second_jit_gradient_compiles_nothing_and_only_an_edit_of_what_it_runs_recompiles() {
    let (mut host, _, b) = setup();
    // twice(cube(2.0)) = 2 * 8^3; d/dx 2x^3 = 6x^2 at 8. The argument `cube(2.0)` is quicker
    // to interpret than to compile.
    let call = "twice(cube(2.0))";
    let first = (
        "value: 1024.0\ngradient: (384.0,)".to_string(),
        vec!["compiled(twice(::Float64), gradient)".to_string()],
    );
    // The diagnostics of `setup` ran the gradient of the `# zy: at twice(2.0)` call (the
    // nonfinite-gradient lint), which compiled `twice(::Float64)`: no call compiles it again.
    assert_eq!(jit_grad(&host, b, call), (first.0.clone(), vec![]));
    assert_eq!(jit_grad(&host, b, call), (first.0.clone(), vec![]));
    host.set_file_text(Path::new("b.jl"), B.replace("y + 1.0", "y + 2.0"));
    assert_eq!(jit_grad(&host, b, call), (first.0.clone(), vec![]));
    // sq(x) = x^2 / 2: the argument is 4.0, twice(x) = x^3, d/dx = 3x^2.
    host.set_file_text(Path::new("a.jl"), A.replace("x * x", "0.5 * x * x"));
    assert_eq!(
        jit_grad(&host, b, call),
        ("value: 64.0\ngradient: (48.0,)".to_string(), first.1)
    );
}

/// Arguments whose calls take the interpreter well past its budget.
const C: &str = "\
pair(x, y) = x * y

function spin(x)
    while x > 0.0 end
    x
end

function at(n)
    v = zeros(2)
    for i in 1:200000
        v[1 + i % 2] += 1.0
    end
    return v[n]
end

const W = [1.0, 2.0]

function setw!()
    for i in 1:200000
        W[1] = W[1] + 1.0
    end
    return 0.0
end

firstw(a, v) = a + v[1]

down(n) = n == 0 ? 0.0 : down(n - 1) + 1.0
";

#[test]
fn argument_calls_run_compiled_with_the_interpreters_values_and_errors() {
    let mut host = AnalysisHost::with_query_log();
    let c = host.set_file_text(Path::new("c.jl"), C.to_string());
    host.raw_database().enable_query_log();
    let limits = EvalLimits {
        timeout: Some(Duration::from_secs(5)),
        max_depth: 50,
        ..EvalLimits::default()
    };
    let cases = [
        ("pair(at(2), 3.0)", "value: 300000.0\ngradient: (3.0, 100000.0)"),
        // The depth limit (50 frames) counts the call's own frame: down(48) needs 49 more.
        ("pair(at(2), down(48))", "value: 4.8e6\ngradient: (48.0, 100000.0)"),
        ("pair(at(2), down(49))", "c.jl:27:26: error: StackOverflowError"),
        // The first failing argument is reported, before a later one could loop.
        (
            "pair(at(3), spin(1.0))",
            "c.jl:13:12: error: BoundsError: attempt to access 2-element Vector{Float64} at index [3]",
        ),
        // The binding `W` is one array for the whole call: setw! mutates what firstw reads.
        ("firstw(setw!(), W)", "value: 200001.0\ngradient: (1.0, [1.0, 0.0])"),
    ];
    for (call, expected) in cases {
        for engine in [Engine::Interp, Engine::Jit] {
            let shown = match host
                .analysis()
                .grad(c, call, limits.clone(), engine)
                .unwrap()
            {
                Ok(g) => g.to_text(),
                Err(e) => e.to_string(),
            };
            assert_eq!(shown, expected, "{call} on {engine:?}");
        }
    }
    let primal: Vec<String> = host
        .raw_database()
        .take_query_log()
        .into_iter()
        .filter(|q| q.starts_with("compiled(") && q.ends_with("run once)"))
        .collect();
    // Each compiled once (`at` for the first call, then reused); `setw!` never.
    assert_eq!(
        primal,
        [
            "compiled(at(::Int64), primal, run once)",
            "compiled(down(::Int64), primal, run once)"
        ]
    );
}

#[test]
fn the_time_limit_stops_compiled_arguments() {
    let mut host = AnalysisHost::new();
    let c = host.set_file_text(Path::new("c.jl"), C.to_string());
    let limits = EvalLimits {
        timeout: Some(Duration::from_millis(300)),
        ..EvalLimits::default()
    };
    let start = std::time::Instant::now();
    let e = host
        .analysis()
        .grad(c, "pair(at(2), spin(1.0))", limits, Engine::Jit)
        .unwrap()
        .unwrap_err();
    // `at` ran compiled, `spin` was stopped in its loop.
    assert_eq!(
        e.to_string(),
        "c.jl:4:11: error: InterruptException: time limit exceeded"
    );
    assert!(
        start.elapsed() < Duration::from_secs(3),
        "{:?}",
        start.elapsed()
    );
}

#[test]
fn gradchecks_of_one_function_compile_it_once() {
    let mut host = AnalysisHost::with_query_log();
    let text = "\
# zy: gradcheck cubed(2.0)
# zy: gradcheck cubed(3.0)
cubed(x) = x * x * x

# zy: gradcheck off(2.0)
off(x) = x * x
function rrule(::typeof(off), x)
    back(ȳ) = (NoTangent(), 3.0 * x * ȳ)
    return off(x), back
end
";
    let f = host.set_file_text(Path::new("g.jl"), text.to_string());
    host.raw_database().enable_query_log();
    let found: Vec<String> = host
        .analysis()
        .gradchecks(f, EvalLimits::default())
        .unwrap()
        .into_iter()
        .map(|d| format!("{}:{} {}", d.line, d.col, d.message))
        .collect();
    assert_eq!(
        found,
        ["5:17 gradcheck `off(2.0)`: the gradient with respect to `x` is 6.0 by AD but 4.0 by finite differences"]
    );
    let mut log: Vec<String> = host
        .raw_database()
        .take_query_log()
        .into_iter()
        .filter(|q| q.starts_with("compiled("))
        .collect();
    log.sort();
    assert_eq!(
        log,
        [
            "compiled(cubed(::Float64), gradient)",
            "compiled(cubed(::Float64), primal)",
            "compiled(off(::Float64), gradient)",
            "compiled(off(::Float64), primal)",
        ]
    );
}

/// A first gradient parses no prelude file, nor the library functions it types: the build
/// script indexes the prelude's items and packs their lowering (`analysis/hir/build.rs`).
#[test]
fn first_gradient_parses_no_prelude_file() {
    let mut host = AnalysisHost::with_query_log();
    host.raw_database().enable_query_log();
    let src = "f(x) = sum(exp.(x .- maximum(x)))\n";
    let file = host.set_file_text(Path::new("f.jl"), src.to_string());
    let g = host
        .analysis()
        .grad(file, "f([1.0, 2.0])", EvalLimits::default(), Engine::Jit)
        .unwrap()
        .unwrap();
    // exp(1 - 2) + exp(2 - 2)
    assert!(
        g.value().display.starts_with("1.367879441171"),
        "{}",
        g.value().display
    );
    let log = host.raw_database().take_query_log();
    let parsed: Vec<&String> = log.iter().filter(|q| q.starts_with("parse(")).collect();
    assert_eq!(parsed, vec!["parse(f.jl)"]);
    // Nor the library functions it types: their lowering is read back from the build's
    // packing by `resolved_in_root`, not lowered from text by `ssa` (the scope still parses
    // the library's imports, exports and bindings).
    let lowered: Vec<&String> = log.iter().filter(|q| q.starts_with("ssa(")).collect();
    assert_eq!(lowered, vec!["ssa(f)"]);
    for f in ["sum", "maximum"] {
        assert!(
            !log.contains(&format!("item_encoded({f})")),
            "{f} is parsed"
        );
    }
}

#[test]
fn an_edit_of_a_file_included_into_two_modules_reaches_both() {
    // Each module's copy of `shared.jl` is read from the one file: an edit of it changes both
    // functions, each still reading its own module's `SCALE`.
    let mut host = AnalysisHost::new();
    host.set_file_text(Path::new("shared.jl"), "sq(x) = SCALE * x^2\n".to_string());
    let main = host.set_file_text(
        Path::new("main.jl"),
        "module A\nconst SCALE = 2.0\ninclude(\"shared.jl\")\nend\nmodule B\nconst SCALE = 3.0\ninclude(\"shared.jl\")\nend\nboth(x) = (A.sq(x), B.sq(x))\n".to_string(),
    );
    let both = |host: &AnalysisHost| {
        let v = host
            .analysis()
            .eval(main, "both(2.0)", EvalLimits::default())
            .unwrap();
        v.map(|v| v.display).map_err(|e| e.to_string())
    };
    assert_eq!(both(&host), Ok("(8.0, 12.0)".to_string()));
    host.set_file_text(Path::new("shared.jl"), "sq(x) = SCALE * x^3\n".to_string());
    assert_eq!(both(&host), Ok("(16.0, 24.0)".to_string()));
}
