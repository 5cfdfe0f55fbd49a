//! `zy-analyze check` end to end, through the binary: the lint fixtures find exactly their
//! lint and the other fixtures none, exit statuses, `zy.toml` and `# zy: allow`, the JSON
//! schema, colours, the SARIF log validated by Microsoft's SARIF Multitool, and hostile trees
//! (links out of the tree, named pipes, devices, huge files, unreadable directories, byte
//! order marks).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use expect_test::expect;
use serde_json::Value as Json;
use tempfile::TempDir;

/// The repository root.
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The `zy-analyze` binary next to this test's executable, built first if it is missing
/// (`cargo test -p zy-tests` alone does not build other packages' binaries).
fn binary() -> PathBuf {
    let exe = std::env::current_exe().expect("test executable path");
    let dir = exe
        .parent()
        .and_then(Path::parent)
        .expect("target profile directory");
    let bin = dir.join(format!("zy-analyze{}", std::env::consts::EXE_SUFFIX));
    if !bin.exists() {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let status = Command::new(cargo)
            .args(["build", "-q", "-p", "zy-analyze"])
            .current_dir(root())
            .status();
        assert!(
            status.is_ok_and(|s| s.success()),
            "cargo build -p zy-analyze failed"
        );
    }
    bin
}

/// Run `zy-analyze args...` in `dir`: (status, stdout, stderr). A run longer than ten minutes
/// is stopped: a hang fails the test. `check fixtures` of a debug build takes about 110 s of
/// CPU (60 s on an idle 2-core machine), and two run at once beside the other tests.
fn run(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = assert_cmd::Command::new(binary())
        .args(args)
        .current_dir(dir)
        .env_remove("NO_COLOR")
        .env("CI", "1")
        .timeout(Duration::from_secs(600))
        .output()
        .expect("run zy-analyze");
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (
        out.status.code().unwrap_or(-1),
        text(&out.stdout),
        text(&out.stderr),
    )
}

/// A fresh temporary directory holding `files` (removed when dropped, also when a test fails).
fn dir_with(files: &[(&str, &str)]) -> TempDir {
    let dir = tempfile::Builder::new()
        .prefix("zy-check-")
        .tempdir()
        .expect("create dir");
    for (path, text) in files {
        let p = dir.path().join(path);
        std::fs::create_dir_all(p.parent().expect("a parent")).expect("create dir");
        std::fs::write(p, text).expect("write file");
    }
    dir
}

fn json(out: &str) -> Json {
    serde_json::from_str(out).unwrap_or_else(|e| panic!("not JSON ({e}): {out}"))
}

/// `file:line:col code` for each diagnostic of a JSON report.
fn positions(report: &Json) -> String {
    let mut lines = Vec::new();
    for d in report["diagnostics"].as_array().expect("diagnostics") {
        lines.push(format!(
            "{}:{}:{} {}",
            d["file"].as_str().unwrap_or("?"),
            d["line"],
            d["col"],
            d["code"].as_str().unwrap_or("?")
        ));
    }
    lines.join("\n") + "\n"
}

#[test]
fn lint_fixtures_find_exactly_their_lint() {
    let (status, out, err) = run(&root(), &["check", "fixtures/lints", "--format", "json"]);
    // zy.toml marks these findings as expected: they do not fail the check.
    assert_eq!((status, err.as_str()), (0, ""), "{out}");
    let report = json(&out);
    expect![[r#"
        fixtures/lints/forward_mismatch.jl:13:17 forward-mismatch
        fixtures/lints/gradient_cut.jl:7:9 gradient-cut
        fixtures/lints/gradient_cut.jl:15:16 gradient-cut
        fixtures/lints/gradient_cut.jl:23:14 gradient-cut
        fixtures/lints/mutation_after_capture.jl:9:5 mutation-after-capture
        fixtures/lints/mutation_after_capture.jl:19:9 mutation-after-capture
        fixtures/lints/nonfinite_gradient.jl:6:17 nonfinite-gradient
        fixtures/lints/nonfinite_gradient.jl:18:14 nonfinite-gradient
        fixtures/lints/rrule_mismatch.jl:15:10 rrule-mismatch
        fixtures/lints/test_failed.jl:9:1 test-failed
        fixtures/lints/test_failed.jl:11:1 test-failed
        fixtures/lints/test_failed.jl:16:5 test-failed
        fixtures/lints/test_failed.jl:18:5 test-failed
        fixtures/lints/test_failed.jl:19:5 test-failed
        fixtures/lints/test_failed.jl:21:5 test-failed
        fixtures/lints/test_failed.jl:23:5 test-failed
        fixtures/lints/test_failed.jl:29:5 test-failed
        fixtures/lints/test_failed.jl:35:5 test-failed
        fixtures/lints/unbounded_tape.jl:8:11 unbounded-tape
        fixtures/lints/unbounded_tape.jl:16:33 unbounded-tape
        fixtures/lints/unknown_package.jl:5:1 unknown-package
        fixtures/lints/zero_gradient.jl:6:27 zero-gradient
    "#]]
    .assert_eq(&positions(&report));
    for d in report["diagnostics"].as_array().expect("diagnostics") {
        let file = d["file"].as_str().unwrap_or("");
        let stem = Path::new(file)
            .file_stem()
            .map(|s| s.to_string_lossy().replace('_', "-"));
        assert_eq!(
            stem.as_deref(),
            d["code"].as_str(),
            "{file} triggers another lint: {d}"
        );
        assert_eq!(d["expected"], true);
    }
}

/// Every finding of the report as `file:line:col severity code message`.
fn messages(report: &Json) -> String {
    let mut lines = Vec::new();
    for d in report["diagnostics"].as_array().expect("diagnostics") {
        lines.push(format!(
            "{}:{}:{} {} {} {}",
            d["file"].as_str().unwrap_or("?"),
            d["line"],
            d["col"],
            d["severity"].as_str().unwrap_or("?"),
            d["code"].as_str().unwrap_or("?"),
            d["message"].as_str().unwrap_or("?"),
        ));
    }
    lines.join("\n") + "\n"
}

#[test]
fn a_files_own_tests_run_and_fail_as_julia_reports() {
    let (_, out, err) = run(
        &root(),
        &[
            "check",
            "fixtures/lints/test_failed.jl",
            "fixtures/testsets.jl",
            "--format",
            "json",
        ],
    );
    assert_eq!(err, "");
    expect![[r#"
        fixtures/lints/test_failed.jl:9:1 error test-failed Test Failed: Expression: sq(2.0) == 5.0, Evaluated: 4.0 == 5.0
        fixtures/lints/test_failed.jl:11:1 error test-failed Test Failed: Expression: sq(2.0) ≈ 4.1, Evaluated: 4.0 ≈ 4.1 (atol=0.01)
        fixtures/lints/test_failed.jl:16:5 error test-failed Error During Test: Expression: root(x) > 0, threw: DomainError with -1.0: sqrt was called with a negative real argument but will only return a complex result if called with a complex argument. Try sqrt(Complex(x)).
        fixtures/lints/test_failed.jl:18:5 error test-failed Test Failed: Expression: root(x), Expected: BoundsError, Thrown: DomainError with -1.0: sqrt was called with a negative real argument but will only return a complex result if called with a complex argument. Try sqrt(Complex(x)).
        fixtures/lints/test_failed.jl:19:5 error test-failed Test Failed: Expression: root(-x), Expected: DomainError, No exception thrown
        fixtures/lints/test_failed.jl:21:5 error test-failed Unexpected Pass: Expression: sq(2.0) == 4.0, Got correct result, please change to @test if no longer broken
        fixtures/lints/test_failed.jl:23:5 error test-failed Error During Test: Expression evaluated to non-Boolean: sq(x), Value: 1.0
        fixtures/lints/test_failed.jl:29:5 error test-failed Error During Test: Expression: grow!(v) == 3, threw: UndefVarError: `grow!` not defined
        fixtures/lints/test_failed.jl:35:5 error test-failed i = 3: Test Failed: Expression: i < 3, Evaluated: 3 < 3
        fixtures/testsets.jl:78:5 note test-not-run zy ran this test in the first 10 iterations of its loop, not the later ones
    "#]]
    .assert_eq(&messages(&json(&out)));
}

#[test]
fn a_passing_test_is_silent_and_its_negation_fails() {
    // Each test beside its negation: exactly the negations fail, so the tests ran.
    let dir = dir_with(&[(
        "t.jl",
        "using Test\ne(x) = sum(abs2, x) / 2\n@testset \"s\" begin\n    x = [1.0, 2.0]\n    @test e(x) == 2.5\n    @test !(e(x) == 2.5)\n    @test gradient(e, x)[1] == x\n    @test !(gradient(e, x)[1] == x)\n    @test_throws MethodError e(\"a\", \"b\")\n    @test_throws DomainError e(\"a\", \"b\")\nend\n@test e([2.0]) == 2.0\n@test e([2.0]) != 2.0\n",
    )]);
    let (status, out, err) = run(dir.path(), &["check", "t.jl", "--format", "json"]);
    assert_eq!((status, err.as_str()), (1, ""));
    expect![[r#"
        t.jl:6:5 error test-failed Test Failed: Expression: !(e(x) == 2.5)
        t.jl:8:5 error test-failed Test Failed: Expression: !(gradient(e, x)[1] == x)
        t.jl:10:5 error test-failed Test Failed: Expression: e("a", "b"), Expected: DomainError, Thrown: MethodError: no method matching e(::String, ::String)
        t.jl:13:1 error test-failed Test Failed: Expression: e([2.0]) != 2.0, Evaluated: 2.0 != 2.0
    "#]]
    .assert_eq(&messages(&json(&out)));
}

#[test]
fn the_summary_counts_tests_as_julias_test_summary_does() {
    // Two passes, a failure, an error, a broken test, a skipped one and a passing
    // `@test_throws` in one testset, two passes in a `@testset for`: Julia's `Pass 5, Fail 1,
    // Error 1, Broken 2, Total 9`; the `@test_nowarn` zy cannot judge is counted apart.
    let dir = dir_with(&[(
        "t.jl",
        "using Test\nsq(x) = x^2\n@testset \"arith\" begin\n    @test sq(2.0) == 4.0\n    @test sq(3.0) == 9.0\n    @test sq(2.0) == 5.0\n    @test sqrt(-1.0) > 0\n    @test_broken sq(2.0) == 5.0\n    @test_skip sq(2.0) == 5.0\n    @test_throws DomainError sqrt(-1.0)\n    @test_nowarn sq(1.0)\nend\n@testset \"n = $n\" for n in 1:2\n    @test sq(n) == n * n\nend\n",
    )]);
    let (status, out, err) = run(dir.path(), &["check", "t.jl"]);
    assert_eq!((status, err.as_str()), (1, ""));
    let table = out.find("Test Summary:").map_or("", |at| &out[at..]);
    expect![[r#"
        Test Summary: | Pass  Fail  Error  Broken  Total
        t.jl          |    5     1      1       2      9
        checked 1 file: 2 errors, 0 warnings, 1 note; 0 functions checked, 1 not typed (no `# zy: at`, no caller, no concrete annotations); 10 tests: 5 passed, 1 failed, 1 errored, 2 broken, 1 not run by zy
    "#]]
    .assert_eq(table);
    let (_, out, _) = run(dir.path(), &["check", "t.jl", "--format", "json"]);
    assert_eq!(
        json(&out)["summary"]["tests"],
        serde_json::json!({
            "passed": 5, "failed": 1, "errored": 1, "broken": 2, "total": 9, "not_run": 1
        })
    );
    // A file without tests has no table and counts none.
    let dir = dir_with(&[("u.jl", "# zy: at f(1.0)\nf(x) = 2x\n")]);
    let (status, out, _) = run(dir.path(), &["check", "u.jl"]);
    assert_eq!((status, out.as_str()), (0, ""));
    let (_, out, _) = run(dir.path(), &["check", "u.jl", "--format", "json"]);
    assert_eq!(json(&out)["summary"]["tests"]["total"], 0);
}

#[test]
fn skipped_tests_count_per_iteration_and_errors_are_raised_where_reached() {
    // Julia's `Test Summary`: a `@test_skip` is `Broken` each time control reaches it (three
    // times in the `for`, twice in the `@testset for`, once at top level); a tuple's index
    // past its end, known where it compiles, is a `BoundsError` a `catch` takes and
    // `@test_throws` sees: Pass 7, Broken 6, Total 13.
    let dir = dir_with(&[(
        "t.jl",
        "using Test\nsq(x) = x^2\nfunction third(t)\n    try\n        return t[3]\n    catch e\n        return e isa BoundsError\n    end\nend\n\
         @testset \"loop\" begin\n    for i in 1:3\n        @test sq(i) == i * i\n        @test_skip sq(i) == 0\n    end\nend\n\
         @testset \"n = $n\" for n in 1:2\n    @test_skip sq(n) == 0\n    @test sq(n) > 0\nend\n\
         @test_skip sq(1) == 0\n@test third((1.0, 2.0))\n@test_throws BoundsError (1.0, 2.0)[3]\n",
    )]);
    let (status, out, err) = run(dir.path(), &["check", "t.jl"]);
    assert_eq!((status, err.as_str()), (0, ""));
    let table = out.find("Test Summary:").map_or("", |at| &out[at..]);
    expect![[r#"
        Test Summary: | Pass  Broken  Total
        t.jl          |    7       6     13
        checked 1 file: 0 errors, 0 warnings; 0 functions checked, 2 not typed (no `# zy: at`, no caller, no concrete annotations); 13 tests: 7 passed, 6 broken
    "#]]
    .assert_eq(table);
}

#[test]
fn tests_under_conditions_and_in_while_loops_run_where_control_reaches_them() {
    // `fixtures/testsets35.jl`: 16 tests reached, all passing; the ones in branches not taken
    // are never seen (Julia's summary has no column for them, and zy adds no note).
    let (status, out, err) = run(&root(), &["check", "fixtures/testsets35.jl"]);
    assert_eq!((status, err.as_str()), (0, ""));
    let table = out.find("Test Summary:").map_or("", |at| &out[at..]);
    expect![[r#"
        Test Summary:          | Pass  Total
        fixtures/testsets35.jl |   16     16
        checked 1 file: 0 errors, 0 warnings; 2 functions checked, 1 not typed (no `# zy: at`, no caller, no concrete annotations); 16 tests: 16 passed
    "#]]
    .assert_eq(table);
    // A failing test in the branch taken, a `while` loop's failing iteration, and a condition
    // zy cannot evaluate: its test is a located note.
    let dir = dir_with(&[(
        "t.jl",
        "using Test\nsq(x) = x^2\non = true\n@testset \"b\" begin\n    if on\n        @test sq(2) == 5\n    else\n        @test sq(2) == 4\n    end\n    k = 0\n    while k < 2\n        k += 1\n        @test sq(k) < 2\n    end\n    if @isdefined(on) && (@__MODULE__) == Main\n        @test true\n    end\nend\n",
    )]);
    let (status, out, err) = run(dir.path(), &["check", "t.jl", "--format", "json"]);
    assert_eq!((status, err.as_str()), (1, ""));
    expect![[r#"
        t.jl:6:9 error test-failed Test Failed: Expression: sq(2) == 5, Evaluated: 4 == 5
        t.jl:13:9 error test-failed Test Failed: Expression: sq(k) < 2, Evaluated: 4 < 2
        t.jl:16:9 note test-not-run zy cannot run this test: unsupported: macro @__MODULE__; write the code it stands for (or a function call) instead
    "#]]
    .assert_eq(&messages(&json(&out)));
    assert_eq!(
        json(&out)["summary"]["tests"],
        serde_json::json!({
            "passed": 1, "failed": 2, "errored": 0, "broken": 0, "total": 3, "not_run": 1
        })
    );
}

#[test]
fn a_refusal_of_the_library_at_run_time_is_a_test_not_run() {
    // `error("unsupported: ...")` raised in Julia's library is where zy stops (a note), never
    // Julia's verdict; the same text thrown by the program is the program's exception.
    let dir = dir_with(&[(
        "t.jl",
        "using Test\nmine() = error(\"unsupported: mine\")\n@testset \"r\" begin\n    @test Iterators.peel(Int[]) === nothing\n    @test mine()\nend\n",
    )]);
    let (status, out, err) = run(dir.path(), &["check", "t.jl", "--format", "json"]);
    assert_eq!((status, err.as_str()), (1, ""));
    expect![[r#"
        t.jl:4:5 note test-not-run zy cannot run this test: ErrorException: unsupported: `Iterators.peel` of an empty iterator (Julia's is `nothing`, which zy does not hold beside a tuple) (raised in Julia's library, in `peel`)
        t.jl:5:5 error test-failed Error During Test: Expression: mine(), threw: ErrorException: unsupported: mine
    "#]]
    .assert_eq(&messages(&json(&out)));
}

#[test]
fn tests_see_what_earlier_tests_and_testsets_changed() {
    // `fixtures/testsets36.jl`: sibling testsets sharing the enclosing testset's objects, a
    // loop of mutating tests, a test whose expression throws after it changed something.
    let (status, out, err) = run(&root(), &["check", "fixtures/testsets36.jl"]);
    assert_eq!((status, err.as_str()), (0, ""));
    let table = out.find("Test Summary:").map_or("", |at| &out[at..]);
    expect![[r#"
        Test Summary:          | Pass  Total
        fixtures/testsets36.jl |   23     23
        checked 1 file: 0 errors, 0 warnings; 0 functions checked, 2 not typed (no `# zy: at`, no caller, no concrete annotations); 23 tests: 23 passed
    "#]]
    .assert_eq(table);
    // An error outside a test ends its testset (after its `push!`), not the enclosing one:
    // the next sibling sees `[1, 2]`; a nested testset's new local stays inside; a loop's
    // failing iteration sees the earlier iterations' pops.
    let dir = dir_with(&[(
        "t.jl",
        "using Test\n@testset \"outer\" begin\n    v = [1]\n    @testset \"throws outside a test\" begin\n        push!(v, 2)\n        error(\"boom\")\n        push!(v, 3)\n    end\n\
         @testset \"later sibling\" begin\n        @test v == [1, 2]\n        @test length(v) == 3\n    end\n\
         @testset \"local\" begin\n        w = 1\n    end\n    @test !@isdefined(w)\n\
         for j in 2:-1:1\n        @test pop!(v) == 1\n    end\nend\n",
    )]);
    let (status, out, err) = run(dir.path(), &["check", "t.jl", "--format", "json"]);
    assert_eq!((status, err.as_str()), (1, ""));
    expect![[r#"
        t.jl:11:9 error test-failed Test Failed: Expression: length(v) == 3, Evaluated: 2 == 3
        t.jl:18:9 error test-failed Test Failed: Expression: pop!(v) == 1, Evaluated: 2 == 1
    "#]]
    .assert_eq(&messages(&json(&out)));
    assert_eq!(
        json(&out)["summary"]["tests"],
        serde_json::json!({
            "passed": 3, "failed": 2, "errored": 0, "broken": 0, "total": 5, "not_run": 0
        })
    );
}

#[test]
fn a_test_sees_the_globals_its_own_statement_changed() {
    // `fixtures/check38.jl`: `global b1 = Bot()` in a testset pops from a `const` pool; the
    // later tests of that top-level statement read the pool and `b1` as it left them.
    let (status, out, err) = run(&root(), &["check", "fixtures/check38.jl"]);
    assert_eq!((status, err.as_str()), (0, ""));
    let table = out.find("Test Summary:").map_or("", |at| &out[at..]);
    expect![[r#"
        Test Summary:       | Pass  Total
        fixtures/check38.jl |   12     12
        checked 1 file: 0 errors, 0 warnings; 1 function checked, 5 not typed (no `# zy: at`, no caller, no concrete annotations); 12 tests: 12 passed
    "#]]
    .assert_eq(table);
    // A binding an earlier top-level statement changes is unknown to a later one's tests,
    // whose text runs only their own statement's code.
    let dir = dir_with(&[(
        "t.jl",
        "using Test\nconst xs = [1]\n@testset \"a\" begin\n    push!(xs, 2)\n    @test length(xs) == 2\nend\n@testset \"b\" begin\n    @test length(xs) == 2\nend\n",
    )]);
    let (status, out, err) = run(dir.path(), &["check", "t.jl", "--format", "json"]);
    assert_eq!((status, err.as_str()), (0, ""));
    expect![[r#"
        t.jl:8:5 note test-not-run zy cannot run this test: ErrorException: `xs` is changed by top-level code that zy does not run (t.jl:3:1): its value here is unknown
    "#]]
    .assert_eq(&messages(&json(&out)));
}

#[test]
fn an_error_outside_a_test_is_its_testsets_one_error() {
    // Julia's testset records one `Error` for an exception its code throws outside a `@test`
    // and goes on to the next testset: its later tests never run, whatever they ask.
    let dir = dir_with(&[(
        "t.jl",
        "using Test\n@testset \"outer\" begin\n    v = [1]\n    @testset \"inner\" begin\n        push!(v, 2)\n        @test length(v) == 2\n        error(\"boom\")\n        @test false\n        @test_throws ErrorException error(\"x\")\n    end\n    @test v == [1, 2]\nend\n@testset \"top\" begin\n    x = sqrt(-1.0)\n    @test true\nend\n",
    )]);
    let (status, out, err) = run(dir.path(), &["check", "t.jl", "--format", "json"]);
    assert_eq!((status, err.as_str()), (1, ""));
    expect![[r#"
        t.jl:4:5 error test-failed Error During Test: Got exception outside of a @test: ErrorException: boom
        t.jl:13:1 error test-failed Error During Test: Got exception outside of a @test: DomainError with -1.0: sqrt was called with a negative real argument but will only return a complex result if called with a complex argument. Try sqrt(Complex(x)).
    "#]]
    .assert_eq(&messages(&json(&out)));
    assert_eq!(
        json(&out)["summary"]["tests"],
        serde_json::json!({
            "passed": 2, "failed": 0, "errored": 2, "broken": 0, "total": 4, "not_run": 0
        })
    );
}

#[test]
fn a_test_throws_leaves_the_state_of_later_tests_as_it_was() {
    // TheAlgorithms' heap tests: `@test_throws ArgumentError pop!(s)` of an empty stack throws
    // before it changes anything, so the test after it reads the stack as Julia's does (zy
    // replayed the `pop!` for the later test, which then errored).
    let dir = dir_with(&[(
        "s.jl",
        "using Test
mutable struct Stk
    v::Vector{Int}
end
         function Base.pop!(s::Stk)
    isempty(s.v) && throw(ArgumentError(\"empty\"))
    pop!(s.v)
end
         Base.length(s::Stk) = length(s.v)
         @testset \"stk\" begin
    s = Stk([1])
    @test pop!(s) == 1
    @test_throws ArgumentError pop!(s)
    @test length(s) == 0
end
",
    )]);
    let (status, out, err) = run(dir.path(), &["check", "s.jl"]);
    assert_eq!((status, err.as_str()), (0, ""));
    let table = out.find("Test Summary:").map_or("", |at| &out[at..]);
    expect![[r#"
        Test Summary: | Pass  Total
        s.jl          |    3      3
        checked 1 file: 0 errors, 0 warnings; 0 functions checked, 2 not typed (no `# zy: at`, no caller, no concrete annotations); 3 tests: 3 passed
    "#]]
    .assert_eq(table);
}

#[test]
fn a_function_typed_at_its_annotations_is_checked_with_its_errors() {
    // `conflicted` types at its concrete annotation: counted as checked, its type conflict
    // reported; `fine` is checked, `generic` has nothing to type at.
    let dir = dir_with(&[(
        "c.jl",
        "function conflicted(x::Float64)\n    y = x > 0 ? [x] : Ref(x)\n    return y[1]\nend\nfine(x::Float64) = 2x\ngeneric(x) = x\n",
    )]);
    let (status, out, _) = run(dir.path(), &["check", "c.jl", "--format", "short"]);
    assert_eq!(status, 1);
    expect![[r#"
        c.jl:2:9: error[type-conflict]: type conflict: `y` is Vector{Float64} on one path and Ref{Float64} on another
    "#]]
    .assert_eq(&out);
    let (_, out, _) = run(dir.path(), &["check", "c.jl", "--format", "json"]);
    let summary = &json(&out)["summary"];
    assert_eq!(
        (&summary["checked_functions"], &summary["untyped_functions"]),
        (&serde_json::json!(2), &serde_json::json!(1))
    );
}

#[test]
fn tests_with_closures_and_in_loops_run_and_their_negations_fail() {
    // Each test beside its negation: exactly the negations fail, once per iteration of a
    // loop (named as Julia names a `@testset for` iteration); a running sum sees the earlier
    // iterations' changes (1, 3, 6); a `@testset let` runs its `let`.
    let dir = dir_with(&[(
        "t.jl",
        "using Test\nsq(x) = x^2\n@test gradient(x -> sq(x), 3.0)[1] == 6.0\n@test gradient(x -> sq(x), 3.0)[1] != 6.0\n@test sum([sq(i) for i in 1:3]) == 14\n@test sum([sq(i) for i in 1:3]) != 14\n@testset \"n = $n\" for n in 1:2\n    @test sq(n) == n * n\n    @test sq(n) != n * n\nend\n@testset \"sum\" begin\n    s = 0\n    for i in 1:3\n        s += i\n        @test s == i * (i + 1) ÷ 2\n        @test s != i * (i + 1) ÷ 2\n    end\nend\n@testset let x = 3.0\n    @test sq(x) == 9.0\n    @test sq(x) != 9.0\nend\n",
    )]);
    let (status, out, err) = run(dir.path(), &["check", "t.jl", "--format", "json"]);
    assert_eq!((status, err.as_str()), (1, ""));
    expect![[r#"
        t.jl:4:1 error test-failed Test Failed: Expression: gradient(x -> sq(x), 3.0)[1] != 6.0, Evaluated: 6.0 != 6.0
        t.jl:6:1 error test-failed Test Failed: Expression: sum([sq(i) for i in 1:3]) != 14, Evaluated: 14 != 14
        t.jl:9:5 error test-failed n = 1: Test Failed: Expression: sq(n) != n * n, Evaluated: 1 != 1
        t.jl:9:5 error test-failed n = 2: Test Failed: Expression: sq(n) != n * n, Evaluated: 4 != 4
        t.jl:16:9 error test-failed Test Failed: Expression: s != i * (i + 1) ÷ 2, Evaluated: 1 != 1
        t.jl:16:9 error test-failed Test Failed: Expression: s != i * (i + 1) ÷ 2, Evaluated: 3 != 3
        t.jl:16:9 error test-failed Test Failed: Expression: s != i * (i + 1) ÷ 2, Evaluated: 6 != 6
        t.jl:21:5 error test-failed Test Failed: Expression: sq(x) != 9.0, Evaluated: 9.0 != 9.0
    "#]]
    .assert_eq(&messages(&json(&out)));
}

#[test]
fn test_throws_reads_the_kind_of_each_exception() {
    // Each of Julia's exceptions zy raises (inference's MethodError and UndefVarError, the
    // runtime's, the library's `throw(OverflowError(...))`, a program's own type thrown):
    // `@test_throws` of its type passes and of another type fails, by the error's kind.
    let dir = dir_with(&[(
        "t.jl",
        "using Test\nstruct Oops <: Exception end\ndeeper(n) = n < 0 ? 0 : deeper(n + 1) + 1\npositive(x) = (@assert x > 0; x)\n@testset \"kinds\" begin\n    @test_throws BoundsError [1.0, 2.0][3]\n    @test_throws ErrorException [1.0, 2.0][3]\n    @test_throws DomainError sqrt(-1.0)\n    @test_throws ErrorException sqrt(-1.0)\n    @test_throws MethodError sqrt(\"a\")\n    @test_throws ErrorException sqrt(\"a\")\n    @test_throws UndefVarError not_defined + 1\n    @test_throws ErrorException not_defined + 1\n    @test_throws ArgumentError parse(Int, \"x\")\n    @test_throws ErrorException parse(Int, \"x\")\n    @test_throws ArgumentError throw(ArgumentError(\"bad\"))\n    @test_throws ErrorException throw(ArgumentError(\"bad\"))\n    @test_throws DimensionMismatch [1.0, 2.0] .+ [1.0, 2.0, 3.0]\n    @test_throws ErrorException [1.0, 2.0] .+ [1.0, 2.0, 3.0]\n    @test_throws KeyError Dict(\"a\" => 1.0)[\"b\"]\n    @test_throws ErrorException Dict(\"a\" => 1.0)[\"b\"]\n    @test_throws InexactError Int(2.5)\n    @test_throws ErrorException Int(2.5)\n    @test_throws DivideError div(1, 0)\n    @test_throws ErrorException div(1, 0)\n    @test_throws OverflowError (typemax(Int) // 1) + (1 // 1)\n    @test_throws ErrorException (typemax(Int) // 1) + (1 // 1)\n    @test_throws StackOverflowError deeper(1)\n    @test_throws ErrorException deeper(1)\n    @test_throws UndefRefError Vector{Vector{Float64}}(undef, 1)[1]\n    @test_throws ErrorException Vector{Vector{Float64}}(undef, 1)[1]\n    @test_throws AssertionError positive(-1.0)\n    @test_throws ErrorException positive(-1.0)\n    @test_throws ErrorException error(\"boom\")\n    @test_throws DomainError error(\"boom\")\n    @test_throws Oops throw(Oops())\n    @test_throws ErrorException throw(Oops())\nend\n",
    )]);
    let (status, out, err) = run(dir.path(), &["check", "t.jl", "--format", "json"]);
    assert_eq!((status, err.as_str()), (1, ""));
    expect![[r#"
        t.jl:7:5 error test-failed Test Failed: Expression: [1.0, 2.0][3], Expected: ErrorException, Thrown: BoundsError: attempt to access 2-element Vector{Float64} at index [3]
        t.jl:9:5 error test-failed Test Failed: Expression: sqrt(-1.0), Expected: ErrorException, Thrown: DomainError with -1.0: sqrt was called with a negative real argument but will only return a complex result if called with a complex argument. Try sqrt(Complex(x)).
        t.jl:11:5 error test-failed Test Failed: Expression: sqrt("a"), Expected: ErrorException, Thrown: MethodError: no method matching sqrt(::String)
        t.jl:13:5 error test-failed Test Failed: Expression: not_defined + 1, Expected: ErrorException, Thrown: UndefVarError: `not_defined` not defined
        t.jl:15:5 error test-failed Test Failed: Expression: parse(Int, "x"), Expected: ErrorException, Thrown: ArgumentError: invalid base 10 digit 'x' in "x" (raised in Julia's library, in `parse`)
        t.jl:17:5 error test-failed Test Failed: Expression: throw(ArgumentError("bad")), Expected: ErrorException, Thrown: ArgumentError: bad
        t.jl:19:5 error test-failed Test Failed: Expression: [1.0, 2.0] .+ [1.0, 2.0, 3.0], Expected: ErrorException, Thrown: DimensionMismatch: arrays could not be broadcast to a common size; got a dimension with lengths 2 and 3
        t.jl:21:5 error test-failed Test Failed: Expression: Dict("a" => 1.0)["b"], Expected: ErrorException, Thrown: KeyError: key "b" not found (raised in Julia's library, in `getindex`)
        t.jl:23:5 error test-failed Test Failed: Expression: Int(2.5), Expected: ErrorException, Thrown: InexactError: Int64(2.5)
        t.jl:25:5 error test-failed Test Failed: Expression: div(1, 0), Expected: ErrorException, Thrown: DivideError: integer division error (raised in Julia's library, in `div`)
        t.jl:27:5 error test-failed Test Failed: Expression: (typemax(Int) // 1) + (1 // 1), Expected: ErrorException, Thrown: OverflowError: 9223372036854775807 + 1 overflowed for type Int64 (raised in Julia's library, in `_checked_add`)
        t.jl:29:5 error test-failed Test Failed: Expression: deeper(1), Expected: ErrorException, Thrown: StackOverflowError
        t.jl:31:5 error test-failed Test Failed: Expression: Vector{Vector{Float64}}(undef, 1)[1], Expected: ErrorException, Thrown: UndefRefError: access to undefined reference
        t.jl:33:5 error test-failed Test Failed: Expression: positive(-1.0), Expected: ErrorException, Thrown: AssertionError: x > 0
        t.jl:35:5 error test-failed Test Failed: Expression: error("boom"), Expected: DomainError, Thrown: ErrorException: boom
        t.jl:37:5 error test-failed Test Failed: Expression: throw(Oops()), Expected: ErrorException, Thrown: Oops()
    "#]]
    .assert_eq(&messages(&json(&out)));
}

#[test]
fn test_throws_reads_a_message_or_an_exception_value() {
    // Julia's other forms of `@test_throws`: a string the exception's `showerror` text
    // contains, and an exception value whose fields (the message) are equal; a form zy does
    // not compare (a regex) is a note.
    let dir = dir_with(&[(
        "t.jl",
        "using Test\nhalf(n) = iseven(n) ? n ÷ 2 : throw(ArgumentError(\"n must be even, got $n\"))\n@testset \"messages\" begin\n    @test_throws \"must be even\" half(3)\n    @test_throws \"must be odd\" half(3)\n    @test_throws ArgumentError(\"n must be even, got 3\") half(3)\n    @test_throws ArgumentError(\"n must be even\") half(3)\n    @test_throws \"boom\" error(\"boom\")\n    @test_throws \"ErrorException\" error(\"boom\")\n    @test_throws ErrorException(\"boom\") error(\"boom\")\n    @test_throws \"even\" half(2)\n    @test_throws r\"even\" half(3)\nend\n",
    )]);
    let (status, out, err) = run(dir.path(), &["check", "t.jl", "--format", "json"]);
    assert_eq!((status, err.as_str()), (1, ""));
    expect![[r#"
        t.jl:5:5 error test-failed Test Failed: Expression: half(3), Expected: "must be odd", Message: "ArgumentError: n must be even, got 3"
        t.jl:7:5 error test-failed Test Failed: Expression: half(3), Expected: ArgumentError("n must be even"), Thrown: ArgumentError: n must be even, got 3
        t.jl:9:5 error test-failed Test Failed: Expression: error("boom"), Expected: "ErrorException", Message: "boom"
        t.jl:11:5 error test-failed Test Failed: Expression: half(2), Expected: "even", No exception thrown
        t.jl:12:5 note test-not-run zy cannot run this test: unsupported: `@test_throws r"even"`; zy compares the exception's type, a message a string is part of, or a value `T("message")` of Base's exceptions of one field
    "#]]
    .assert_eq(&messages(&json(&out)));
}

#[test]
fn a_loop_tests_generated_names_are_none_a_test_can_write() {
    // A loop's test runs in a closure counting the times control reaches it; its names were
    // once `_zy_k` and `_zy_n`, which a test can write too. Here the test's own `_zy_n` and
    // `_zy_k` are its own: the negation fails once per iteration.
    let dir = dir_with(&[(
        "t.jl",
        "using Test\n@testset \"names\" begin\n    _zy_n = 10\n    for _zy_k in 1:2\n        @test _zy_k + _zy_n > 10\n        @test _zy_k + _zy_n <= 10\n    end\nend\n",
    )]);
    let (status, out, err) = run(dir.path(), &["check", "t.jl", "--format", "json"]);
    assert_eq!((status, err.as_str()), (1, ""));
    expect![[r#"
        t.jl:6:9 error test-failed Test Failed: Expression: _zy_k + _zy_n <= 10, Evaluated: 11 <= 10
        t.jl:6:9 error test-failed Test Failed: Expression: _zy_k + _zy_n <= 10, Evaluated: 12 <= 10
    "#]]
    .assert_eq(&messages(&json(&out)));
}

#[test]
fn what_zy_cannot_run_is_a_note_and_what_julia_raises_a_failure() {
    // A binding top-level code changes, an operation outside zy's subset (which a `catch`
    // does not take either) are zy's limits: notes. Julia's own exception fails the test.
    let dir = dir_with(&[(
        "t.jl",
        "using Test\nusing Printf\nxs = [1.0]\npush!(xs, 2.0)\n@test sum(xs) == 3.0\n@test @sprintf(\"%a\", 1.0) == \"x\"\n@test try\n    @sprintf(\"%a\", 1.0)\ncatch\n    \"c\"\nend == \"c\"\n@test try\n    sqrt(-1.0)\ncatch\n    2.0\nend == 2.0\n@test sqrt(-1.0) == 2.0\n",
    )]);
    let (status, out, err) = run(dir.path(), &["check", "t.jl", "--format", "json"]);
    assert_eq!((status, err.as_str()), (1, ""));
    expect![[r#"
        t.jl:4:1 note skipped-statement zy does not run a call of `push!` at top level: only definitions are loaded (it may change `xs`, so a function that reads it is refused)
        t.jl:5:1 note test-not-run zy cannot run this test: ErrorException: `xs` is changed by top-level code that zy does not run (t.jl:4:1): its value here is unknown
        t.jl:6:1 note test-not-run zy cannot run this test: unsupported: `@sprintf` conversion `%a`; zy formats `%d %i %x %o %f %e %g %s %c`
        t.jl:7:1 note test-not-run zy cannot run this test: unsupported: `@sprintf` conversion `%a`; zy formats `%d %i %x %o %f %e %g %s %c`
        t.jl:17:1 error test-failed Error During Test: Expression: sqrt(-1.0) == 2.0, threw: DomainError with -1.0: sqrt was called with a negative real argument but will only return a complex result if called with a complex argument. Try sqrt(Complex(x)).
    "#]]
    .assert_eq(&messages(&json(&out)));
}

#[test]
fn a_push_into_a_new_literal_changes_no_binding_its_parts_came_from() {
    // `verse` is a new vector holding a string read from `NAMES`: pushing into it (a test at
    // top level, which zy does not run as a statement) changes neither `NAMES` nor `LINES`.
    let dir = dir_with(&[(
        "t.jl",
        "using Test\nconst NAMES = [\"fly\", \"spider\"]\nconst LINES = [[\"a\"], [\"b\"]]\nfunction verse(n)\n    v = [\"I know $(NAMES[n]).\", LINES[n]]\n    push!(v, \"end\")\n    v\nend\n@test length(verse(1)) == 3\n@test verse(2)[1] == \"I know spider.\"\n",
    )]);
    let (status, out, err) = run(dir.path(), &["check", "t.jl", "--format", "json"]);
    assert_eq!((status, err.as_str()), (0, ""));
    assert_eq!(messages(&json(&out)).trim(), "", "no finding");
}

/// The README's main job, `zy-analyze check fixtures`: clean (every error and lint in the
/// fixtures is one they expect), and no lint outside `fixtures/lints`. CI runs it here only.
#[test]
fn the_readme_job_is_clean_and_only_lint_fixtures_lint() {
    let (status, out, err) = run(&root(), &["check", "fixtures", "--format", "json"]);
    assert_eq!(err, "");
    assert_eq!(status, 0, "`zy-analyze check fixtures` has findings");
    let report = json(&out);
    let lints: Vec<&str> = zy_ide::LINTS.iter().map(|l| l.code).collect();
    let unexpected: Vec<&Json> = report["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .filter(|d| d["expected"] == false && lints.contains(&d["code"].as_str().unwrap_or("")))
        .collect();
    assert!(
        unexpected.is_empty(),
        "lint findings outside fixtures/lints: {unexpected:#?}"
    );
}

const CLEAN: &str = "# zy: at sq(3.0)\nsq(x) = x^2\n";
const UNUSED: &str = "# zy: at scale(2.0, 1.0)\nscale(x, y) = 2.0 * x\n";

#[test]
fn exit_statuses() {
    let dir = dir_with(&[
        ("clean.jl", CLEAN),
        ("unused.jl", UNUSED),
        ("bad.jl", "f(x, (a, b) = 1) = x\n"),
    ]);
    assert_eq!(
        run(dir.path(), &["check", "clean.jl"]),
        (0, String::new(), String::new())
    );
    let (status, out, _) = run(dir.path(), &["check", "unused.jl", "--format", "short"]);
    assert_eq!(
        (status, out.as_str()),
        (
            0,
            "unused.jl:2:10: warning[zero-gradient]: no gradient can reach `y`: the result does not depend on it, \
             so its gradient is always `nothing`\n"
        )
    );
    assert_eq!(
        run(dir.path(), &["check", "unused.jl", "--deny-warnings"]).0,
        1
    );
    assert_eq!(run(dir.path(), &["check", "bad.jl"]).0, 1);
    let (status, _, err) = run(dir.path(), &["check", "missing.jl"]);
    assert_eq!(
        (status, err.as_str()),
        (2, "missing.jl:1:1: error: cannot read file: no such file\n")
    );
    assert_eq!(run(dir.path(), &["check", "--format", "xml"]).0, 2);
}

#[test]
fn configuration_and_suppression() {
    let allowed = "# zy: at scale(2.0, 1.0)\nscale(x, y) = 2.0 * x  # zy: allow(zero-gradient)\n";
    let dir = dir_with(&[
            ("zy.toml", "[lints]\nzero-gradient = \"error\"\n\n[[overrides]]\npaths = [\"legacy\"]\nexpected = true\n"),
            ("unused.jl", UNUSED),
            ("allowed.jl", allowed),
            ("legacy/old.jl", UNUSED),
        ],
    );
    let (status, out, _) = run(dir.path(), &["check", "--format", "short"]);
    assert_eq!(status, 1, "{out}");
    assert_eq!(
        out,
        "./legacy/old.jl:2:10: error[zero-gradient]: no gradient can reach `y`: the result does not depend on it, \
         so its gradient is always `nothing` (expected)\n\
         ./unused.jl:2:10: error[zero-gradient]: no gradient can reach `y`: the result does not depend on it, \
         so its gradient is always `nothing`\n"
    );
    assert_eq!(run(dir.path(), &["check", "legacy", "allowed.jl"]).0, 0);
    std::fs::write(
        dir.path().join("zy.toml"),
        "[lints]\nzero-gradient = \"loud\"\n",
    )
    .expect("write");
    let (status, out, err) = run(dir.path(), &["check"]);
    assert_eq!((status, out.as_str()), (2, ""));
    assert!(
        err.starts_with(&format!(
            "{}:2:17: error: unknown variant `loud`",
            dir.path().join("zy.toml").display()
        )),
        "{err}"
    );
}

/// A function typed through its caller, one through its annotations, two with nothing to type at.
const COVERAGE: &str = "# zy: at outer(2.0)\nouter(x) = helper(x)\nhelper(x) = 3.0 * x\n\n\
    annotated(x::Float64, v::Vector{Float64}) = x * v[1]\n\n\
    generic(x) = x + 1.0\nabstract(x::Real) = 2x\n";

#[test]
fn the_summary_counts_the_functions_checked_and_not_typed() {
    let dir = dir_with(&[("cover.jl", COVERAGE), ("clean.jl", CLEAN)]);
    // Clean, but two functions were never typed: the summary says so (exit status 0).
    let (status, out, _) = run(dir.path(), &["check", "cover.jl"]);
    assert_eq!(status, 0);
    expect![[r#"
        checked 1 file: 0 errors, 0 warnings; 3 functions checked, 2 not typed (no `# zy: at`, no caller, no concrete annotations)
    "#]]
    .assert_eq(&out);
    // `--verbose` names them.
    let (_, _, err) = run(dir.path(), &["check", "cover.jl", "--verbose"]);
    expect![[r#"
        cover.jl:7:1: note: `generic` not typed (no `# zy: at`, no caller, no concrete annotations)
        cover.jl:8:1: note: `abstract` not typed (no `# zy: at`, no caller, no concrete annotations)
    "#]]
    .assert_eq(&err);
    let (status, out, _) = run(dir.path(), &["check", "--format", "json"]);
    assert_eq!(status, 0);
    assert_eq!(
        json(&out)["summary"],
        json(
            r#"{"files": 2, "errors": 0, "warnings": 0, "expected": 0,
                "checked_functions": 4, "untyped_functions": 2,
                "tests": {"passed": 0, "failed": 0, "errored": 0, "broken": 0, "total": 0, "not_run": 0}}"#
        )
    );
}

#[test]
fn json_schema_version_1() {
    let dir = dir_with(&[("unused.jl", UNUSED), ("clean.jl", CLEAN)]);
    let (status, out, _) = run(dir.path(), &["check", "--format", "json"]);
    assert_eq!(status, 0);
    let report = json(&out);
    assert_eq!(report["version"], 1);
    assert_eq!(
        report["summary"],
        json(
            r#"{"files": 2, "errors": 0, "warnings": 1, "expected": 0,
                "checked_functions": 2, "untyped_functions": 0,
                "tests": {"passed": 0, "failed": 0, "errored": 0, "broken": 0, "total": 0, "not_run": 0}}"#
        )
    );
    let d = &report["diagnostics"][0];
    let mut keys: Vec<&str> = d
        .as_object()
        .expect("object")
        .keys()
        .map(String::as_str)
        .collect();
    keys.sort_unstable();
    assert_eq!(
        keys,
        [
            "code", "col", "end", "expected", "file", "line", "message", "related", "severity",
            "start"
        ]
    );
    assert_eq!(d["related"], json("[]"));
    assert_eq!(
        (d["file"].as_str(), d["line"].as_u64(), d["col"].as_u64()),
        (Some("unused.jl"), Some(2), Some(10))
    );
    assert_eq!(
        (d["start"].as_u64(), d["end"].as_u64()),
        (Some(34), Some(35))
    );
    assert_eq!(
        (d["severity"].as_str(), d["code"].as_str()),
        (Some("warning"), Some("zero-gradient"))
    );
}

#[test]
fn text_is_rustc_style_with_colours_on_request() {
    let dir = dir_with(&[("unused.jl", UNUSED)]);
    let (_, plain, _) = run(dir.path(), &["check", "unused.jl"]);
    expect![[r#"
        warning[zero-gradient]: no gradient can reach `y`: the result does not depend on it, so its gradient is always `nothing`
          ┌─ unused.jl:2:10
          │
        2 │ scale(x, y) = 2.0 * x
          │          ^

        checked 1 file: 0 errors, 1 warning; 1 function checked
    "#]]
    .assert_eq(&plain);
    let (_, coloured, _) = run(dir.path(), &["check", "unused.jl", "--color", "always"]);
    assert!(
        coloured.contains("\u{1b}["),
        "no ANSI escapes: {coloured:?}"
    );
    let (_, never, _) = run(dir.path(), &["check", "unused.jl", "--color", "never"]);
    assert_eq!(never, plain);
}

/// The SARIF Multitool: `$SARIF_MULTITOOL`, `sarif-multitool` on the PATH, or installed from
/// the npm registry into the target directory (once). `None` only when npm is unavailable.
fn multitool() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("SARIF_MULTITOOL") {
        return Some(PathBuf::from(p));
    }
    if Command::new("sarif-multitool")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
    {
        return Some(PathBuf::from("sarif-multitool"));
    }
    let prefix = binary().parent()?.join("sarif-multitool");
    let bin = prefix.join("node_modules/.bin/sarif-multitool");
    if bin.exists() {
        return Some(bin);
    }
    let installed = Command::new("npm")
        .args(["install", "--no-audit", "--no-fund", "--prefix"])
        .arg(&prefix)
        .arg("@microsoft/sarif-multitool")
        .status();
    match installed {
        Ok(s) if s.success() && bin.exists() => Some(bin),
        Ok(s) => panic!("npm install @microsoft/sarif-multitool failed: {s}"),
        Err(_) => None,
    }
}

#[test]
fn sarif_validates_with_the_multitool() {
    // The lints and the error fixtures hold every kind of result (suppressed, with related
    // locations, notes); the whole of `fixtures` is checked once, by the test above.
    let (_, out, _) = run(
        &root(),
        &[
            "check",
            "fixtures/lints",
            "fixtures/errors",
            "--format",
            "sarif",
        ],
    );
    let log = json(&out);
    assert_eq!(log["version"], "2.1.0");
    let results = log["runs"][0]["results"].as_array().expect("results");
    let cut = results
        .iter()
        .find(|r| r["ruleId"] == "gradient-cut")
        .expect("a gradient-cut result");
    assert_eq!(cut["suppressions"][0]["kind"], "external");
    assert_eq!(
        cut["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
        "fixtures/lints/gradient_cut.jl"
    );
    let Some(tool) = multitool() else {
        println!(
            "note: npm is unavailable, so the SARIF log was not validated by the SARIF Multitool"
        );
        return;
    };
    let dir = dir_with(&[("fixtures.sarif", out.as_str())]);
    let file = dir.path().join("fixtures.sarif");
    let output = dir.path().join("validation.sarif");
    let v = Command::new(&tool)
        .arg("validate")
        .arg(&file)
        .arg("--output")
        .arg(&output)
        .output()
        .expect("run the multitool");
    let text =
        String::from_utf8_lossy(&v.stdout).into_owned() + &String::from_utf8_lossy(&v.stderr);
    assert!(
        v.status.success(),
        "sarif-multitool validate failed:\n{text}"
    );
    let report = json(&std::fs::read_to_string(&output).expect("validation output"));
    // Errors break the specification; warnings are best practices, of which one cannot be
    // followed yet: SARIF2005 asks for `informationUri`, a public home page zy does not have.
    let problems: Vec<&Json> = report["runs"][0]["results"]
        .as_array()
        .map(|rs| {
            rs.iter()
                .filter(|r| match r["level"].as_str().unwrap_or("warning") {
                    "error" => true,
                    "warning" => r["ruleId"] != "SARIF2005",
                    _ => false,
                })
                .collect()
        })
        .unwrap_or_default();
    assert!(
        problems.is_empty(),
        "the SARIF log has problems: {problems:#?}"
    );
}

const KW: &str = "f(x, (a, b) = 1) = x\n";
const KW_FINDING: &str = "error[unsupported]: unsupported: this form of optional argument\n";
const LINK_NOTE: &str =
    "note: skipped: a symbolic link inside a directory is not followed (name it on the command line to check it)\n";

#[cfg(unix)]
fn symlink(target: &Path, link: &Path) {
    std::os::unix::fs::symlink(target, link).expect("symlink");
}

#[cfg(unix)]
fn mkfifo(path: &Path) {
    let status = Command::new("mkfifo")
        .arg(path)
        .status()
        .expect("run mkfifo");
    assert!(status.success(), "mkfifo {}", path.display());
}

#[cfg(unix)]
#[test]
fn links_inside_directories_are_not_followed() {
    let outside = dir_with(&[("secret.jl", KW), ("lib/more.jl", KW)]);
    let dir = dir_with(&[("tree/ok.jl", CLEAN)]);
    let tree = dir.path().join("tree");
    symlink(&outside.path().join("secret.jl"), &tree.join("link.jl"));
    symlink(&outside.path().join("lib"), &tree.join("lib"));
    symlink(&tree, &tree.join("loop"));
    assert_eq!(
        run(dir.path(), &["check", "tree"]),
        (0, String::new(), String::new())
    );
    assert_eq!(
        run(dir.path(), &["check", "tree", "--verbose"]),
        (
            0,
            String::new(),
            format!("tree/lib: {LINK_NOTE}tree/link.jl: {LINK_NOTE}tree/loop: {LINK_NOTE}")
        )
    );
    // Named on the command line, a link is read, as a file is.
    assert_eq!(
        run(dir.path(), &["check", "tree/link.jl", "--format", "short"]),
        (1, format!("tree/link.jl:1:6: {KW_FINDING}"), String::new())
    );
}

#[cfg(unix)]
#[test]
fn special_files_are_skipped_inside_directories_and_refused_when_named() {
    let dir = dir_with(&[("tree/ok.jl", CLEAN), ("tree/kw.jl", KW)]);
    let tree = dir.path().join("tree");
    mkfifo(&tree.join("pipe.jl"));
    symlink(Path::new("/dev/zero"), &tree.join("zero.jl"));
    assert_eq!(
        run(dir.path(), &["check", "tree", "--format", "short", "-v"]),
        (
            1,
            format!("tree/kw.jl:1:6: {KW_FINDING}"),
            format!(
                "tree/kw.jl:1:1: note: `f` not typed (no `# zy: at`, no caller, no concrete annotations)\n\
                 tree/pipe.jl: note: skipped: not a regular file\ntree/zero.jl: {LINK_NOTE}"
            )
        )
    );
    assert_eq!(
        run(
            dir.path(),
            &[
                "check",
                "tree/pipe.jl",
                "tree/zero.jl",
                "tree/kw.jl",
                "--format",
                "short"
            ]
        ),
        (
            2,
            format!("tree/kw.jl:1:6: {KW_FINDING}"),
            "tree/pipe.jl:1:1: error: cannot read file: not a regular file (a named pipe)\n\
             tree/zero.jl:1:1: error: cannot read file: not a regular file (a character device)\n"
                .to_string()
        )
    );
}

#[test]
fn files_over_the_size_limit_are_refused_unread() {
    let dir = dir_with(&[
        ("zy.toml", "[files]\nmax-size = 1000\n"),
        ("kw.jl", KW),
        ("long.jl", &"# padding\n".repeat(101)),
    ]);
    // A sparse file of 64 GiB: only its size is looked at.
    let huge = std::fs::File::create(dir.path().join("huge.jl")).expect("create");
    huge.set_len(1 << 36).expect("set_len");
    let limit = "(`max-size` under `[files]` in zy.toml)";
    assert_eq!(
        run(dir.path(), &["check", "--format", "short"]),
        (
            2,
            format!("./kw.jl:1:6: {KW_FINDING}"),
            format!(
                "./huge.jl:1:1: error: cannot read file: 68719476736 bytes, more than the limit of 1000 {limit}\n\
                 ./long.jl:1:1: error: cannot read file: 1010 bytes, more than the limit of 1000 {limit}\n"
            )
        )
    );
}

#[test]
fn an_unreadable_directory_is_reported_and_the_rest_checked() {
    // Root (as in CI here) reads a directory whatever its mode, but no process opens a path
    // longer than the system's limit (4,096 bytes on Linux): a directory 21 levels of 200-byte
    // names down cannot be read by the path the walk reaches it by.
    let dir = dir_with(&[("a.jl", KW), ("z/ok.jl", CLEAN)]);
    let name = "d".repeat(200);
    let half = |n: usize| vec![name.as_str(); n].join("/");
    std::fs::create_dir_all(dir.path().join("deep").join(half(10))).expect("create the first half");
    std::fs::create_dir_all(dir.path().join("stage").join(half(11)))
        .expect("create the second half");
    std::fs::rename(
        dir.path().join("stage").join(&name),
        dir.path().join("deep").join(half(10)).join(&name),
    )
    .expect("join the halves");
    let unreadable = format!("./deep/{}", half(21));
    assert!(unreadable.len() > 4096);
    assert_eq!(
        run(dir.path(), &["check", "--format", "short"]),
        (
            2,
            format!("./a.jl:1:6: {KW_FINDING}"),
            format!(
                "{unreadable}: error: cannot read directory: File name too long (os error 36)\n"
            )
        )
    );
}

#[cfg(unix)]
#[test]
fn a_directory_without_read_permission_is_reported_and_the_rest_checked() {
    use std::os::unix::fs::PermissionsExt;
    let dir = dir_with(&[("a.jl", KW), ("locked/b.jl", KW)]);
    let locked = dir.path().join("locked");
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o000)).expect("chmod 000");
    let readable = std::fs::read_dir(&locked).is_ok();
    let result = run(dir.path(), &["check", "--format", "short"]);
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o755)).expect("chmod 755");
    if readable {
        println!(
            "skipped: this process reads directories without read permission (root); \
             an_unreadable_directory_is_reported_and_the_rest_checked covers the case"
        );
        return;
    }
    assert_eq!(
        result,
        (
            2,
            format!("./a.jl:1:6: {KW_FINDING}"),
            "./locked: error: cannot read directory: Permission denied (os error 13)\n".to_string()
        )
    );
}

#[test]
fn a_byte_order_mark_is_not_part_of_the_source() {
    let dir = dir_with(&[
        ("at.jl", &format!("\u{FEFF}{CLEAN}")),
        ("kw.jl", &format!("\u{FEFF}{KW}")),
    ]);
    assert_eq!(
        run(dir.path(), &["check", "at.jl"]),
        (0, String::new(), String::new())
    );
    // Columns are the editor's (the mark is invisible); offsets are the file's bytes.
    let (status, out, _) = run(dir.path(), &["check", "kw.jl", "--format", "json"]);
    assert_eq!(status, 1);
    let d = &json(&out)["diagnostics"][0];
    assert_eq!((d["line"].as_u64(), d["col"].as_u64()), (Some(1), Some(6)));
    assert_eq!(
        (d["start"].as_u64(), d["end"].as_u64()),
        (Some(8), Some(18))
    );
    let (_, text, _) = run(dir.path(), &["check", "kw.jl"]);
    expect![[r#"
        error[unsupported]: unsupported: this form of optional argument
          ┌─ kw.jl:1:6
          │
        1 │ f(x, (a, b) = 1) = x
          │      ^^^^^^^^^^

        checked 1 file: 1 error, 0 warnings; 0 functions checked, 1 not typed (no `# zy: at`, no caller, no concrete annotations)
    "#]]
    .assert_eq(&text);
}

#[test]
fn a_file_that_is_not_utf8_is_refused_at_its_first_bad_byte() {
    let dir = dir_with(&[("kw.jl", KW)]);
    std::fs::write(dir.path().join("latin1.jl"), b"f(x) = x\n# caf\xe9\n").expect("write");
    assert_eq!(
        run(dir.path(), &["check", "--format", "short"]),
        (
            2,
            format!("./kw.jl:1:6: {KW_FINDING}"),
            "./latin1.jl:2:6: error: cannot read file: not UTF-8 (byte 0xe9); source files must be UTF-8\n".to_string()
        )
    );
}

#[test]
fn included_files_are_checked_in_their_includers_program_and_unrelated_files_apart() {
    let dir = dir_with(&[
        (
            "src/pkg.jl",
            "include(\"model.jl\")\n\n# zy: gradcheck loss(2.0)\nloss(w) = model(w)^2\n",
        ),
        // Uses `scale`, defined by a file it does not include: fine inside pkg.jl's program.
        (
            "src/model.jl",
            "include(\"scale.jl\")\nmodel(w) = scale * w\n",
        ),
        ("src/scale.jl", "const scale = 3.0\n"),
        // A file of its own: defines `model` differently, and does not see pkg.jl.
        (
            "scratch.jl",
            "model(w) = 100w\n# zy: gradcheck g(1.0)\ng(x) = loss(x)\n",
        ),
    ]);
    let (status, out, err) = run(dir.path(), &["check", ".", "--format", "short"]);
    assert_eq!(
        (status, out.as_str(), err.as_str()),
        (
            1,
            "./scratch.jl:2:17: error[gradcheck]: gradcheck `g(1.0)` failed: UndefVarError: `loss` not defined\n",
            ""
        )
    );
}

#[test]
fn checking_a_package_file_checks_the_files_it_includes() {
    // `check src/Pkg.jl` of a package laid out as Julia's: the module file includes the rest,
    // whose findings (and gradchecks) are reported too, once each.
    let dir = dir_with(&[
        (
            "src/Pkg.jl",
            "module Pkg\nexport loss\ninclude(\"model.jl\")\ninclude(\"sub/bad.jl\")\nend\n",
        ),
        (
            "src/model.jl",
            // The gradchecks' calls are written among the module's names.
            "# zy: gradcheck loss(2.0)\nloss(w) = 3.0 * w^2\nstruct P\n    a::Float64\nend\n# zy: gradcheck ploss(P(2.0))\nploss(p) = p.a^2\n",
        ),
        ("src/sub/bad.jl", "bad(x) = x --> 2\n"),
    ]);
    let (status, out, err) = run(dir.path(), &["check", "src/Pkg.jl", "--format", "short"]);
    assert_eq!(
        (status, out.as_str(), err.as_str()),
        (
            1,
            "src/sub/bad.jl:1:10: error[unsupported]: unsupported: operator `-->`\n",
            ""
        )
    );
    let (_, out, _) = run(dir.path(), &["check", "src/Pkg.jl", "--format", "json"]);
    assert_eq!(json(&out)["summary"]["files"], 3);
}

#[test]
fn a_package_test_file_sees_the_package_it_uses() {
    // `using Pkg` in `test/runtests.jl` loads `src/Pkg.jl`, as `Pkg.test` does: its exports
    // and `Pkg.name` are seen, and the gradcheck runs through the package's functions.
    // `using Test` is known (Julia's standard library); its `@testset` runs, and passes.
    let dir = dir_with(&[
        (
            "src/Pkg.jl",
            "module Pkg\nexport loss\ninclude(\"model.jl\")\nend\n",
        ),
        ("src/model.jl", "loss(w) = 3.0 * w^2 + helper(w)\nhelper(w) = sin(w)\n"),
        (
            "test/runtests.jl",
            "using Pkg\nusing Test\nusing Other\n# zy: gradcheck t(2.0)\nt(w) = loss(w) + Pkg.helper(w)\n# zy: gradcheck u(2.0)\nu(w) = Other.f(w)\n@testset \"pkg\" begin\n    @test t(2.0) > 0\nend\n",
        ),
    ]);
    let (status, out, err) = run(
        dir.path(),
        &["check", "test/runtests.jl", "--format", "short"],
    );
    assert_eq!(
        (status, out.as_str(), err.as_str()),
        (
            1,
            "test/runtests.jl:3:1: warning[unknown-package]: package `Other` is not available: zy knows Base, LinearAlgebra, Statistics, Random, SparseArrays, Printf, Dates, Test, ForwardDiff, ReverseDiff and Zygote (their APIs answered by zy's own differentiation), SpecialFunctions, LogExpFunctions, StatsFuns and Distributions, and the modules your files define (`using .Other`); a function that uses a name only `Other` defines is refused\n\
             test/runtests.jl:6:17: error[gradcheck]: gradcheck `u(2.0)` failed: UndefVarError: `Other` not defined: `Other` is a package zy does not have\n",
            ""
        )
    );
}

#[test]
fn a_file_included_into_two_modules_defines_its_functions_in_each() {
    // As TheAlgorithms' `Math` and `ProjectEuler` both include `sieve_of_eratosthenes.jl`:
    // Julia evaluates the file in each module, whose own `SCALE` each copy of `sq` reads and
    // whose own `sq` `B.uses` calls. The file's findings are reported once.
    let dir = dir_with(&[
        (
            "src/P.jl",
            "module P\nmodule A\nconst SCALE = 2.0\ninclude(\"shared.jl\")\nend\nmodule B\nconst SCALE = 3.0\ninclude(\"shared.jl\")\nuses(x) = sq(x) + 1.0\nend\nend\n",
        ),
        (
            "src/shared.jl",
            "# zy: gradcheck sq(3.0)\nsq(x) = SCALE * x^2\nbad(x) = x --> 2\n",
        ),
        (
            "test/runtests.jl",
            "using P, Test\n@testset \"P\" begin\n    @test P.A.sq(3.0) == 18.0\n    @test P.B.sq(3.0) == 27.0\n    @test P.B.uses(1.0) == 4.0\nend\n",
        ),
    ]);
    let (status, out, err) = run(
        dir.path(),
        &["check", "test/runtests.jl", "--format", "short"],
    );
    assert_eq!(
        (status, out.as_str(), err.as_str()),
        (
            1,
            "src/shared.jl:3:10: error[unsupported]: unsupported: operator `-->`\n",
            ""
        )
    );
    let (_, out, _) = run(dir.path(), &["check", ".", "--format", "json"]);
    let summary = &json(&out)["summary"];
    assert_eq!(
        (&summary["tests"]["passed"], &summary["errors"]),
        (&3.into(), &1.into())
    );
}

#[test]
fn constants_of_immutable_values_are_not_changed_by_top_level_code() {
    // A call zy does not run may change what it is handed, but not an immutable struct of
    // numbers (`ORIGIN`): a function reading it runs. A mutable struct in a `const` (`COUNT`)
    // may change, as in Julia, so a function reading it is refused.
    let dir = dir_with(&[(
        "c.jl",
        "struct Point\n    x::Float64\n    y::Float64\nend\nmutable struct Counter\n    n::Float64\nend\nconst ORIGIN = Point(0.0, 0.0)\nconst COUNT = Counter(0.0)\n# zy: at far(Point(3.0, 4.0))\nfar(p) = sqrt((p.x - ORIGIN.x)^2 + (p.y - ORIGIN.y)^2)\n# zy: at counted(1.0)\ncounted(x) = COUNT.n + x\nreset!(x) = (x.n = 0.0; x)\nforeach(reset!, (ORIGIN, COUNT))\n",
    )]);
    let (status, out, err) = run(dir.path(), &["check", "c.jl", "--format", "short"]);
    expect![[r#"
        c.jl:13:14: error[runtime-error]: `counted(1.0)` throws: ErrorException: `COUNT` is changed by top-level code that zy does not run (c.jl:15:1): its value here is unknown
        c.jl:15:1: note[skipped-statement]: zy does not run a call of `foreach` at top level: only definitions are loaded (it may change `COUNT`, so a function that reads it is refused)
    "#]]
    .assert_eq(&format!("{out}{err}"));
    assert_eq!(status, 1);
}

#[test]
fn a_refused_definition_used_through_using_says_why() {
    // `f` is exported by `M` but its definition was refused: a use of it in `Main`, which uses
    // `M`, names the refusal, as `M.f` does, rather than an undefined name.
    let dir = dir_with(&[(
        "r.jl",
        "module M\nexport f\n@generated f(x) = :(x)\nend\nusing .M\n# zy: at h(1.0)\nh(x) = f(x)\n# zy: at k(1.0)\nk(x) = M.f(x)\n",
    )]);
    let (status, out, err) = run(dir.path(), &["check", "r.jl", "--format", "short"]);
    expect![[r#"
        r.jl:3:1: error[unsupported]: unsupported: macro `@generated` on a method definition
        r.jl:7:8: error[unsupported]: unsupported: `f` is not available: its definition (r.jl:3:1) was refused: macro `@generated` on a method definition
        r.jl:9:8: error[unsupported]: unsupported: `f` is not available: its definition (r.jl:3:1) was refused: macro `@generated` on a method definition
    "#]]
    .assert_eq(&format!("{out}{err}"));
    assert_eq!(status, 1);
}

#[test]
fn a_name_from_an_unknown_package_says_which_package_may_define_it() {
    // `using Optim` is a warning; a call of a function using `LBFGS` (which only Optim could
    // define) is an error located at the name, saying so, as is `Optim.` of a qualified name.
    let dir = dir_with(&[(
        "fit.jl",
        "using Optim\nusing LinearAlgebra\n\n# zy: at fit([1.0, 2.0])\nfit(x0) = optimize(norm, x0, LBFGS())\n# zy: at fit_qualified([1.0, 2.0])\nfit_qualified(x0) = Optim.optimize(norm, x0, Optim.LBFGS())\n# zy: at served([1.0, 2.0])\nserved(x0) = norm(x0)\n",
    )]);
    let (status, out, err) = run(dir.path(), &["check", "fit.jl", "--format", "short"]);
    assert_eq!(
        (status, out.as_str(), err.as_str()),
        (
            1,
            "fit.jl:1:1: warning[unknown-package]: package `Optim` is not available: zy knows Base, LinearAlgebra, Statistics, Random, SparseArrays, Printf, Dates, Test, ForwardDiff, ReverseDiff and Zygote (their APIs answered by zy's own differentiation), SpecialFunctions, LogExpFunctions, StatsFuns and Distributions, and the modules your files define (`using .Optim`); a function that uses a name only `Optim` defines is refused\n\
             fit.jl:5:30: error[undefined-name]: UndefVarError: `LBFGS` not defined; it may come from the package `Optim`, which zy does not have\n\
             fit.jl:7:21: error[undefined-name]: UndefVarError: `Optim` not defined: `Optim` is a package zy does not have\n",
            ""
        )
    );
    // Of two unknown packages, either may define it.
    let dir = dir_with(&[(
        "two.jl",
        "using Optim, Plots\n# zy: at fit([1.0, 2.0])\nfit(x0) = optimize(sum, x0, LBFGS())\n",
    )]);
    let (_, out, _) = run(dir.path(), &["check", "two.jl", "--format", "short"]);
    assert!(
        out.contains("two.jl:3:29: error[undefined-name]: UndefVarError: `LBFGS` not defined; it may come from one of the packages `Optim`, `Plots`, which zy does not have\n"),
        "{out}"
    );
}

#[test]
fn test_files_included_from_a_testset_see_the_package() {
    // `runtests.jl` includes its test files from inside the top testset, as packages do: each
    // is checked in runtests.jl's program (it sees `using Pkg`), its failing test reported
    // once. Checked from inside the package's folder, `src/model.jl` is still the package's.
    let dir = dir_with(&[
        (
            "Pkg/src/Pkg.jl",
            "module Pkg\nexport loss\nconst SCALE = 3.0\ninclude(\"model.jl\")\nend\n",
        ),
        ("Pkg/src/model.jl", "# zy: gradcheck loss(2.0)\nloss(w) = SCALE * w^2\n"),
        (
            "Pkg/test/runtests.jl",
            "using Pkg, Test\n@testset \"Pkg\" begin\n    @testset \"a\" begin\n        include(\"test_a.jl\")\n    end\n    include(joinpath(@__DIR__, \"test_b.jl\"))\nend\n",
        ),
        ("Pkg/test/test_a.jl", "@test loss(1.0) == 3.0\n"),
        ("Pkg/test/test_b.jl", "@test loss(2.0) == 11.0\n"),
    ]);
    let (status, out, err) = run(dir.path(), &["check", "Pkg", "--format", "short"]);
    expect![[r#"
        Pkg/test/test_b.jl:1:1: error[test-failed]: Test Failed: Expression: loss(2.0) == 11.0, Evaluated: 12.0 == 11.0
    "#]]
    .assert_eq(&format!("{out}{err}"));
    assert_eq!(status, 1);
    let (status, out, err) = run(
        &dir.path().join("Pkg"),
        &["check", "src/model.jl", "--format", "short"],
    );
    assert_eq!((status, out.as_str(), err.as_str()), (0, "", ""));
}

#[test]
fn test_files_included_in_a_loop_over_their_names_are_the_programs() {
    // `for t in tests; @testset "$t" begin include("$(t).jl") end end` (Calculus.jl's
    // runtests.jl): each file is included once per name, its failing test reported; a loop
    // over what zy cannot fold is refused at its collection.
    let dir = dir_with(&[
        (
            "test/runtests.jl",
            "using Test\ntests = [\"a\", \"b\"]\nfor t in tests\n    @testset \"$t\" begin\n        include(\"$(t).jl\")\n    end\nend\nfor u in (\"c\",)\n    include(joinpath(@__DIR__, \"$(u).jl\"))\nend\nfor v in readdir(\"x\")\n    include(v)\nend\n",
        ),
        ("test/a.jl", "@test 1 + 1 == 2\n"),
        ("test/b.jl", "@test 2 + 2 == 5\n"),
        ("test/c.jl", "@test 3 + 3 == 7\n"),
    ]);
    let (status, out, err) = run(
        dir.path(),
        &["check", "test/runtests.jl", "--format", "short"],
    );
    expect![[r#"
        test/runtests.jl:8:1: note[skipped-statement]: zy does not run a `for` loop at top level: only definitions are loaded (it changes no top-level binding)
        test/runtests.jl:11:1: note[skipped-statement]: zy does not run a `for` loop at top level: only definitions are loaded (it changes no top-level binding)
        test/runtests.jl:11:10: error[unsupported]: unsupported: `include` in a loop over other than a literal vector or tuple of strings (or a top-level binding to one); write the `include`s one by one instead
        test/b.jl:1:1: error[test-failed]: Test Failed: Expression: 2 + 2 == 5, Evaluated: 4 == 5
        test/c.jl:1:1: error[test-failed]: Test Failed: Expression: 3 + 3 == 7, Evaluated: 6 == 7
    "#]]
    .assert_eq(&format!("{out}{err}"));
    assert_eq!(status, 1);
}

#[test]
fn a_package_named_by_its_project_runs_its_tests() {
    // A clone whose folder is not the package's name (`Project.toml` names it), submodules
    // that `using` their own package as Julia's loader allows, and one function holding a
    // literal past Int128 (Julia's BigInt): that function alone is refused, the tests run.
    let dir = dir_with(&[
        ("repo/Project.toml", "name = \"Algos\"\nversion = \"0.1.0\"\n"),
        (
            "repo/src/Algos.jl",
            "module Algos\ninclude(\"math/Math.jl\")\nend\n",
        ),
        (
            "repo/src/math/Math.jl",
            "export Math\nmodule Math\nusing Algos\nexport square, big\nsquare(x) = x^2\nbig() = 1000000000000000000000000000000000000000000\nend\n",
        ),
        (
            "repo/test/runtests.jl",
            "using Algos\nusing Algos.Math\nusing Test\n@testset \"math\" begin\n    @test square(3) == 9\n    @test square(2.0) == 5.0\nend\n",
        ),
    ]);
    let (status, out, err) = run(dir.path(), &["check", "repo", "--format", "short"]);
    expect![[r#"
        repo/src/math/Math.jl:6:9: error[unsupported]: unsupported: integer literal `1000000000000000000000000000000000000000000` (a BigInt); zy's widest integer is Int128
        repo/test/runtests.jl:6:5: error[test-failed]: Test Failed: Expression: square(2.0) == 5.0, Evaluated: 4.0 == 5.0
    "#]]
    .assert_eq(&format!("{out}{err}"));
    assert_eq!(status, 1);
    let (status, out, err) = run(
        &dir.path().join("repo"),
        &["check", "src/math/Math.jl", "--format", "short"],
    );
    expect![[r#"
        src/math/Math.jl:6:9: error[unsupported]: unsupported: integer literal `1000000000000000000000000000000000000000000` (a BigInt); zy's widest integer is Int128
    "#]]
    .assert_eq(&format!("{out}{err}"));
    assert_eq!(status, 1);
}

#[test]
fn tests_and_scripts_keep_the_data_they_only_read() {
    // A package's tests and a training script as users write them: the data they bind are
    // read by `@test` (which pass), `@show` and `println` of the package's functions, which
    // write into nothing, so the gradchecks through them run; `fit!` writes into its first argument,
    // so the weights it trains are refused where read (the gradcheck says where), and the
    // notes say what each statement may change.
    let dir = dir_with(&[
        (
            "src/Pkg.jl",
            "module Pkg\nexport predict, loss, fit!\npredict(w, x) = w .* x\nloss(w, x, y) = sum(abs2, predict(w, x) .- y)\nfunction fit!(w, x, y)\n    w .-= 0.1 .* 2 .* (predict(w, x) .- y) .* x\n    return w\nend\nend\n",
        ),
        (
            "test/runtests.jl",
            "using Pkg\nusing Test\nx = [1.0, 2.0]\ny = [2.0, 4.0]\n@testset \"pkg\" begin\n    @test isapprox(loss([2.0, 2.0], x, y), 0.0; atol = 1e-12)\n    @test_throws MethodError predict(x)\nend\n# zy: gradcheck t([1.0, 1.0])\nt(w) = loss(w, x, y)\n",
        ),
        (
            "examples/train.jl",
            "using Pkg\nw = [1.0, 1.0]\nx = [1.0, 2.0]\ny = [2.0, 4.0]\nfor _ in 1:10\n    fit!(w, x, y)\nend\n@show loss(w, x, y)\nprintln(predict(w, x))\n# zy: gradcheck fresh([1.0, 1.0])\nfresh(v) = loss(v, x, y)\n# zy: gradcheck trained(1.0)\ntrained(a) = a * loss(w, x, y)\n",
        ),
    ]);
    let (_, out, err) = run(
        dir.path(),
        &[
            "check",
            "test/runtests.jl",
            "examples/train.jl",
            "--format",
            "short",
        ],
    );
    expect![[r#"
        examples/train.jl:5:1: note[skipped-statement]: zy does not run a `for` loop at top level: only definitions are loaded (it may change `w`, so a function that reads it is refused)
        examples/train.jl:8:1: note[skipped-statement]: zy does not run a macro call `@show` at top level: only definitions are loaded (it changes no top-level binding)
        examples/train.jl:9:1: note[skipped-statement]: zy does not run a call of `println` at top level: only definitions are loaded (it changes no top-level binding)
        examples/train.jl:12:17: error[gradcheck]: gradcheck `trained(1.0)` failed: ErrorException: `w` is changed by top-level code that zy does not run (examples/train.jl:5:1): its value here is unknown
    "#]].assert_eq(&format!("{out}{err}"));
}

/// `file:line:col code message`, and `  related: file:line:col message` under it, for each
/// finding of a JSON report with one of `codes`.
fn with_related(report: &Json, codes: &[&str]) -> String {
    let mut lines = Vec::new();
    for d in report["diagnostics"].as_array().expect("diagnostics") {
        if !codes.contains(&d["code"].as_str().unwrap_or("")) {
            continue;
        }
        let at = |x: &Json, code: &str| {
            format!(
                "{}:{}:{}{code} {}",
                x["file"].as_str().unwrap_or("?"),
                x["line"],
                x["col"],
                x["message"].as_str().unwrap_or("?")
            )
        };
        let code = format!(" {}", d["code"].as_str().unwrap_or("?"));
        lines.push(at(d, &code));
        for r in d["related"].as_array().expect("related") {
            lines.push(format!("  related: {}", at(r, "")));
        }
    }
    lines.join("\n") + "\n"
}

#[test]
fn a_wrong_rrule_is_named_as_the_culprit() {
    // Under a gradcheck, through a closure; and at a `# zy: at` call (the rrule lint).
    let (_, out, err) = run(
        &root(),
        &[
            "check",
            "fixtures/errors/wrong_rrule.jl",
            "fixtures/lints/rrule_mismatch.jl",
            "--format",
            "json",
        ],
    );
    assert_eq!(err, "");
    expect![[r#"
        fixtures/errors/wrong_rrule.jl:19:17 gradcheck gradcheck `through_closure(2.0)`: the gradient with respect to `x` is 24.0 by AD but 36.0 by finite differences; at line 8, the in-source `rrule` for `cube` at cube(2.0): the gradient with respect to `x` is 8.0 by the rule but 12.0 by finite differences
          related: fixtures/errors/wrong_rrule.jl:8:10 the in-source `rrule` for `cube` at cube(2.0): the gradient with respect to `x` is 8.0 by the rule but 12.0 by finite differences
        fixtures/lints/rrule_mismatch.jl:15:10 rrule-mismatch the in-source rrule for `cube` disagrees with finite differences at `cube_plus(2.0)`: the gradient with respect to `x` is 9.0 by the rule but 13.0 by finite differences; at line 7, the in-source `rrule` for `cube` at cube(2.0): the gradient with respect to `x` is 8.0 by the rule but 12.0 by finite differences
          related: fixtures/lints/rrule_mismatch.jl:7:10 the in-source `rrule` for `cube` at cube(2.0): the gradient with respect to `x` is 8.0 by the rule but 12.0 by finite differences
    "#]].assert_eq(&with_related(&json(&out), &["gradcheck", "rrule-mismatch"]));
    let (_, out, _) = run(
        &root(),
        &[
            "check",
            "fixtures/errors/wrong_rrule.jl",
            "--format",
            "sarif",
        ],
    );
    let log = json(&out);
    let related = &log["runs"][0]["results"][0]["relatedLocations"][0];
    assert_eq!(
        related["physicalLocation"]["artifactLocation"]["uri"],
        "fixtures/errors/wrong_rrule.jl"
    );
    assert_eq!(related["physicalLocation"]["region"]["startLine"], 8);
    assert!(related["message"]["text"]
        .as_str()
        .is_some_and(|m| m.contains("8.0 by the rule but 12.0 by finite differences")));
}

#[test]
fn no_rule_is_blamed_for_a_gradcheck_at_a_kink() {
    // At the kink of a ReLU written as a branch, AD takes the else side (0) and central
    // differences give 1: the gradcheck fails, but every rule on the way (`*`) agrees with
    // finite differences on its operands, so none is named.
    let dir = dir_with(&[(
        "kink.jl",
        "relu(x) = x > 0.0 ? x : 0.0\n\n# zy: gradcheck kink(0.0)\nkink(x) = 2.0 * relu(x)\n",
    )]);
    let (_, out, _) = run(dir.path(), &["check", "kink.jl", "--format", "json"]);
    expect![[r#"
        kink.jl:3:17 gradcheck gradcheck `kink(0.0)`: the gradient with respect to `x` is 0.0 by AD but 1.0 by finite differences
    "#]].assert_eq(&with_related(&json(&out), &["gradcheck"]));
}

#[test]
fn an_unsupported_construct_does_not_silence_the_other_functions_gradchecks() {
    // `bad` is refused; the gradchecks of the other functions still run: `good` passes and
    // `wrong` (a wrong rrule) fails, naming its rule.
    let dir = dir_with(&[(
        "iso.jl",
        "function bad(x)\n    y = 0x1ffffffffffffffffffffffffffffffff * x\n    if x > 0\n        return x\n    end\n    return 0.0\nend\n\n\
         # zy: gradcheck good(2.0)\ngood(x) = x^2\n\n\
         # zy: gradcheck wrong(2.0)\nwrong(x) = cube(x)\ncube(x) = x^3\n\
         function rrule(::typeof(cube), x)\n    return cube(x), ȳ -> (NoTangent(), 2.0 * x^2 * ȳ)\nend\n",
    )]);
    let (status, out, _) = run(dir.path(), &["check", "iso.jl", "--format", "json"]);
    assert_eq!(status, 1);
    expect![[r#"
        iso.jl:2:9 unsupported
        iso.jl:12:17 gradcheck
    "#]]
    .assert_eq(&positions(&json(&out)));
}
