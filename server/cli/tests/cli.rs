//! The `zy-analyze` binary: exact output lines and exit statuses (0 success, 1 findings or bad
//! input, 2 usage or I/O errors), never a panic, never a hang on a file that is not a regular
//! file, and a quiet end when the reader of its output goes away.

use std::io::Read;
use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use assert_cmd::Command;
use tempfile::TempDir;

const POW: &str = "\
# zy: at pow(2.0, 3)
function pow(x, n)
    r = 1
    while n > 0
        r *= x
        n -= 1
    end
    return r
end

get_at(x, i) = x[i]
";

/// A fresh temporary directory holding `files` (removed when dropped, also when a test
/// fails).
fn dir_with(files: &[(&str, &str)]) -> TempDir {
    let dir = tempfile::Builder::new()
        .prefix("zy-analyze-test-")
        .tempdir()
        .expect("create test dir");
    for (file, text) in files {
        let path = dir.path().join(file);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).expect("create test dir");
        }
        std::fs::write(path, text).expect("write test file");
    }
    dir
}

/// The binary, to run in `dir`, stopped after a minute (a hang fails the test).
fn binary(dir: &Path) -> Command {
    let mut cmd = Command::cargo_bin("zy-analyze").expect("binary built");
    cmd.current_dir(dir).timeout(Duration::from_secs(60));
    cmd
}

/// Run the binary in `dir`: (status, stdout, stderr).
fn run(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = binary(dir).args(args).output().expect("binary runs");
    let text = |b: Vec<u8>| String::from_utf8(b).expect("utf-8 output");
    (
        out.status.code().unwrap_or(-1),
        text(out.stdout),
        text(out.stderr),
    )
}

#[test]
fn eval_in_text_and_json() {
    let dir = dir_with(&[("pow.jl", POW)]);
    assert_eq!(
        run(dir.path(), &["eval", "pow.jl", "pow(2.0, 3)"]),
        (0, "8.0\n".into(), "".into())
    );
    assert_eq!(
        run(
            dir.path(),
            &["eval", "pow.jl", "pow(2.0, 3)", "--format", "json"]
        ),
        (0, "{\"value\":8.0}\n".into(), "".into())
    );
}

#[test]
fn grad_trace_in_text_and_json() {
    let dir = dir_with(&[("pow.jl", POW)]);
    // x^3 at x = 2 by r *= x: r takes 2, 4, 8 with adjoints x^2 = 4, x = 2, 1; x's adjoint is
    // 3x^2 = 12. The first iteration is peeled (`r = 1` is Julia's Int until multiplied), so
    // the loop header's Float64 r starts at 2: the Int 1 has no adjoint to show.
    let text = "\
value: 8.0
gradient: (12.0, nothing)
note: pow.jl:2:17: `n` is of type Int64, which has no gradient (only floating-point values, and arrays, tuples and structs of them, do)
trace:
  where        name  value                             adjoint
  pow.jl:2:14  x     2.0                               12.0
  pow.jl:4:5   r     ×3: 2.0 → 8.0 (min 2.0, max 8.0)  ×3: 4.0 → 1.0 (min 1.0, max 4.0)
  pow.jl:5:9   r     ×3: 2.0 → 8.0 (min 2.0, max 8.0)  ×3: 4.0 → 1.0 (min 1.0, max 4.0)
";
    for engine in ["interp", "jit"] {
        let args = [
            "grad",
            "pow.jl",
            "pow(2.0, 3)",
            "--trace",
            "--engine",
            engine,
        ];
        assert_eq!(run(dir.path(), &args), (0, text.into(), "".into()));
    }
    let json = concat!(
        r#"{"value":8.0,"gradient":[12.0,null],"nonfinite":null,"why":[{"arg":1,"col":17,"file":"pow.jl","line":2,"message":"`n` is of type Int64, which has no gradient (only floating-point values, and arrays, tuples and structs of them, do)","name":"n"}],"trace":["#,
        r#"{"adjoint":12.0,"col":14,"file":"pow.jl","line":2,"name":"x","value":2.0},"#,
        r#"{"adjoint":1.0,"adjoints":{"first":4.0,"last":1.0,"max":4.0,"min":1.0},"col":5,"file":"pow.jl","line":4,"name":"r","runs":3,"value":8.0,"values":{"first":2.0,"last":8.0,"max":8.0,"min":2.0}},"#,
        r#"{"adjoint":1.0,"adjoints":{"first":4.0,"last":1.0,"max":4.0,"min":1.0},"col":9,"file":"pow.jl","line":5,"name":"r","runs":3,"value":8.0,"values":{"first":2.0,"last":8.0,"max":8.0,"min":2.0}}"#,
        "]}\n"
    );
    let args = [
        "grad",
        "pow.jl",
        "pow(2.0, 3)",
        "--trace",
        "--format",
        "json",
    ];
    assert_eq!(run(dir.path(), &args), (0, json.into(), "".into()));
}

#[test]
fn grad_in_json() {
    let dir = dir_with(&[("pow.jl", POW)]);
    // `n` is an Int: its gradient is `nothing`, and `why` says so.
    let expected = concat!(
        r#"{"value":8.0,"gradient":[12.0,null],"nonfinite":null,"why":[{"arg":1,"col":17,"file":"pow.jl","line":2,"message":"`n` is of type Int64, which has no gradient (only floating-point values, and arrays, tuples and structs of them, do)","name":"n"}]}"#,
        "\n"
    );
    for engine in ["interp", "jit"] {
        let args = [
            "grad",
            "pow.jl",
            "pow(2.0, 3)",
            "--format",
            "json",
            "--engine",
            engine,
        ];
        assert_eq!(run(dir.path(), &args), (0, expected.into(), "".into()));
    }
}

#[test]
fn ir_stages() {
    let dir = dir_with(&[("pow.jl", POW)]);
    let (status, out, err) = run(dir.path(), &["ir", "pow.jl", "pow", "--stage", "typed"]);
    assert_eq!((status, err.as_str()), (0, ""));
    assert!(
        out.starts_with("pow(%1::Float64, %2::Int64) :: Union{Float64, Int64}   # x, n\n"),
        "{out}"
    );
    let (status, out, _) = run(
        dir.path(),
        &[
            "ir",
            "pow.jl",
            "pow",
            "--stage",
            "pullback",
            "--at",
            "pow(1.0, 2)",
        ],
    );
    assert_eq!(status, 0);
    assert!(out.starts_with("pow⁻("), "{out}");
    let (status, out, err) = run(
        dir.path(),
        &[
            "ir",
            "pow.jl",
            "pow",
            "--stage",
            "pushforward",
            "--at",
            "pow(1.0, 2)",
        ],
    );
    assert_eq!((status, err.as_str()), (0, ""));
    // Each Float64 argument followed by its tangent; (y, ẏ) returned.
    assert!(
        out.starts_with("∂→pow(%1::Float64, %2::Float64, %3::Int64) :: Tuple{Union{"),
        "{out}"
    );
}

#[test]
fn bad_input_is_one_line_with_a_position() {
    let dir = dir_with(&[
        ("pow.jl", POW),
        ("broken.jl", "function f(x)\n    x * * 2\nend\n"),
    ]);
    let cases: [(&[&str], i32, &str); 6] = [
        (&["eval", "missing.jl", "f()"], 2, "missing.jl:1:1: error: cannot read file: no such file"),
        (&["eval", "broken.jl", "f(1.0)"], 1, "broken.jl:2:9: error: syntax error: unexpected `*`"),
        (&["eval", "pow.jl", "pow(2.0)"], 1, "<call>:1:1: error: MethodError: no method matching pow(::Float64)"),
        (&["eval", "pow.jl", "powx(2.0, 1)"], 1, "<call>:1:1: error: UndefVarError: `powx` not defined"),
        (
            &["eval", "pow.jl", "get_at([1.0, 2.0], 3)"],
            1,
            "pow.jl:11:16: error: BoundsError: attempt to access 2-element Vector{Float64} at index [3]",
        ),
        (&["ir", "pow.jl", "nothere"], 1, "pow.jl:1:1: error: no function `nothere` is defined"),
    ];
    for (args, status, line) in cases {
        assert_eq!(
            run(dir.path(), args),
            (status, String::new(), format!("{line}\n")),
            "{args:?}"
        );
    }
}

#[test]
fn usage_errors_exit_with_2() {
    let dir = dir_with(&[]);
    let (status, out, err) = run(dir.path(), &["bogus"]);
    assert_eq!((status, out.as_str()), (2, ""));
    assert!(
        err.starts_with("error: unrecognized subcommand 'bogus'"),
        "{err}"
    );
}

#[test]
fn check_reports_every_file_under_the_paths() {
    // No findings; the summary says `get_at` (no annotated call, no caller) was not typed.
    let clean = dir_with(&[("a/pow.jl", POW)]);
    assert_eq!(
        run(clean.path(), &["check", "."]),
        (
            0,
            "checked 1 file: 0 errors, 0 warnings; 1 function checked, 1 not typed (no `# zy: at`, no caller, no concrete annotations)\n".into(),
            "".into()
        )
    );
    let dirty = dir_with(&[
        ("pow.jl", POW),
        ("sub/kw.jl", "f(x, (a, b) = 1) = x\n"),
        ("sub/at.jl", "# zy: at g(1.0)\ng(x) = x + undefined_thing\n"),
        ("notes.txt", "not julia"),
    ]);
    let (status, out, err) = run(dirty.path(), &["check", "--format", "short"]);
    assert_eq!((status, err.as_str()), (1, ""));
    assert_eq!(
        out,
        "./sub/at.jl:2:12: error[undefined-name]: UndefVarError: `undefined_thing` not defined\n\
         ./sub/kw.jl:1:6: error[unsupported]: unsupported: this form of optional argument\n"
    );
    let (status, out, _) = run(dirty.path(), &["check", "sub/kw.jl", "--format", "json"]);
    assert_eq!(status, 1);
    assert_eq!(
        out,
        "{\"diagnostics\":[{\"code\":\"unsupported\",\"col\":6,\"end\":15,\"expected\":false,\"file\":\"sub/kw.jl\",\
         \"line\":1,\"message\":\"unsupported: this form of optional argument\",\"related\":[],\"severity\":\"error\",\"start\":5}],\
         \"summary\":{\"checked_functions\":0,\"errors\":1,\"expected\":0,\"files\":1,\
         \"tests\":{\"broken\":0,\"errored\":0,\"failed\":0,\"not_run\":0,\"passed\":0,\"total\":0},\
         \"untyped_functions\":1,\"warnings\":0},\"version\":1}\n"
    );
    assert_eq!(run(dirty.path(), &["check", "nowhere"]).0, 2);
}

const RULES: &str = "\
sq(x) = x^2

function rrule(::typeof(sq), x)
    y = sq(x)
    sq_pullback(ȳ) = (NoTangent(), 3.0 * ȳ)
    return y, sq_pullback
end

# zy: gradcheck twice(2.0)
twice(x) = 2.0 * sq(x)

# zy: gradcheck fine(2.0, [1.0, 2.0])
fine(a, v) = a * v[1] + v[2]^2
";

#[test]
fn check_compares_gradients_with_finite_differences() {
    let dir = dir_with(&[("rules.jl", RULES)]);
    let (status, out, err) = run(dir.path(), &["check", "rules.jl", "--format", "short"]);
    assert_eq!((status, err.as_str()), (1, ""));
    assert_eq!(
        out,
        "rules.jl:9:17: error[gradcheck]: gradcheck `twice(2.0)`: the gradient with respect to `x` \
         is 6.0 by AD but 8.0 by finite differences; at line 3, the in-source `rrule` for `sq` at \
         sq(2.0): the gradient with respect to `x` is 3.0 by the rule but 4.0 by finite differences\n"
    );
    let (status, out, _) = run(dir.path(), &["check", "rules.jl", "--format", "sarif"]);
    assert_eq!(status, 1);
    let log: serde_json::Value = serde_json::from_str(&out).expect("SARIF is JSON");
    let result = &log["runs"][0]["results"][0];
    assert_eq!(log["version"], "2.1.0");
    assert_eq!(result["ruleId"], "gradcheck");
    assert_eq!(
        result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
        "rules.jl"
    );
    assert_eq!(
        result["locations"][0]["physicalLocation"]["region"]["startLine"],
        9
    );
    // The culprit: the rule for `sq`, re-run alone at sq(2.0).
    let related = &result["relatedLocations"][0];
    assert_eq!(related["physicalLocation"]["region"]["startLine"], 3);
    assert_eq!(
        related["message"]["text"],
        "the in-source `rrule` for `sq` at sq(2.0): the gradient with respect to `x` is 3.0 by the rule but 4.0 by finite differences"
    );
}

/// Make a named pipe at `path` (a test of what must not hang).
fn mkfifo(path: &Path) {
    let status = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .expect("run mkfifo");
    assert!(status.success(), "mkfifo {}", path.display());
}

#[test]
fn only_regular_files_are_read() {
    let dir = dir_with(&[("pow.jl", POW)]);
    mkfifo(&dir.path().join("pipe.jl"));
    let pipe = "pipe.jl:1:1: error: cannot read file: not a regular file (a named pipe)\n";
    for args in [
        &["eval", "pipe.jl", "f()"][..],
        &["grad", "pipe.jl", "f(1.0)"],
        &["ir", "pipe.jl", "f"],
    ] {
        assert_eq!(
            run(dir.path(), args),
            (2, String::new(), pipe.to_string()),
            "{args:?}"
        );
    }
    let zero = "/dev/zero:1:1: error: cannot read file: not a regular file (a character device)\n";
    assert_eq!(
        run(dir.path(), &["eval", "/dev/zero", "f()"]),
        (2, String::new(), zero.to_string())
    );
    let directory = ".:1:1: error: cannot read file: not a regular file (a directory)\n";
    assert_eq!(
        run(dir.path(), &["eval", ".", "f()"]),
        (2, String::new(), directory.to_string())
    );
}

#[test]
fn the_size_limit_of_zy_toml_holds_for_every_command() {
    let dir = dir_with(&[
        ("zy.toml", "[files]\nmax-size = 100\n"),
        ("pow.jl", POW),
        ("small.jl", "sq(x) = x^2\n"),
    ]);
    let big = "pow.jl:1:1: error: cannot read file: 142 bytes, more than the limit of 100 (`max-size` under `[files]` in zy.toml)\n";
    assert_eq!(POW.len(), 142);
    assert_eq!(
        run(dir.path(), &["eval", "pow.jl", "pow(2.0, 3)"]),
        (2, String::new(), big.to_string())
    );
    assert_eq!(
        run(dir.path(), &["ir", "pow.jl", "pow"]),
        (2, String::new(), big.to_string())
    );
    assert_eq!(
        run(dir.path(), &["eval", "small.jl", "sq(3.0)"]),
        (0, "9.0\n".into(), String::new())
    );
    std::fs::write(dir.path().join("zy.toml"), "[files]\nmax-size = 142\n").expect("write");
    assert_eq!(
        run(dir.path(), &["eval", "pow.jl", "pow(2.0, 3)"]),
        (0, "8.0\n".into(), String::new())
    );
    std::fs::write(dir.path().join("zy.toml"), "[files]\nmax-size = 0\n").expect("write");
    let invalid = format!(
        "{}:2:1: error: `max-size` must be at least 1 byte\n",
        dir.path().join("zy.toml").display()
    );
    assert_eq!(
        run(dir.path(), &["eval", "pow.jl", "pow(2.0, 3)"]),
        (2, String::new(), invalid)
    );
}

#[test]
fn a_byte_order_mark_is_not_part_of_the_source() {
    let bom = |text: &str| format!("\u{FEFF}{text}");
    let dir = dir_with(&[
        ("pow.jl", &bom(POW)),
        ("try.jl", &bom("f(x) = try\n    x\ncatch\n    0.0\nend\n")),
    ]);
    assert_eq!(
        run(dir.path(), &["eval", "pow.jl", "pow(2.0, 3)"]),
        (0, "8.0\n".into(), String::new())
    );
    assert_eq!(
        run(dir.path(), &["eval", "try.jl", "f(1.0)"]),
        (0, "1.0\n".into(), String::new())
    );
}

#[test]
fn files_that_are_not_utf8_are_refused_where_the_first_bad_byte_is() {
    let dir = dir_with(&[]);
    std::fs::write(dir.path().join("latin1.jl"), b"f(x) = x\n# caf\xe9\n").expect("write");
    assert_eq!(
        run(dir.path(), &["eval", "latin1.jl", "f(1.0)"]),
        (2, String::new(), "latin1.jl:2:6: error: cannot read file: not UTF-8 (byte 0xe9); source files must be UTF-8\n".into())
    );
}

/// Run the binary with its stdout read by nobody (the read end closed at once): (status,
/// stderr).
fn run_into_closed_pipe(dir: &Path, args: &[&str]) -> (i32, String) {
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("zy-analyze"))
        .current_dir(dir)
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("binary runs");
    drop(child.stdout.take());
    let mut err = String::new();
    child
        .stderr
        .take()
        .expect("stderr")
        .read_to_string(&mut err)
        .expect("read stderr");
    (child.wait().expect("binary ends").code().unwrap_or(-1), err)
}

#[test]
fn a_reader_that_goes_away_ends_the_output_quietly() {
    // 500 kB of output: more than a pipe holds, so the write meets the closed pipe.
    let dir = dir_with(&[
        ("big.jl", "big(n) = zeros(n)\n"),
        ("kw.jl", &"f(x, (a, b) = 1) = x\n".repeat(5000)),
    ]);
    assert_eq!(
        run_into_closed_pipe(dir.path(), &["eval", "big.jl", "big(100000)"]),
        (0, String::new())
    );
    // The status of `check` is still its findings'.
    assert_eq!(
        run_into_closed_pipe(dir.path(), &["check", "kw.jl", "--format", "short"]),
        (1, String::new())
    );
}

/// Run `grad` with the JIT under `env`; does a perf map of the process appear in /tmp?
fn writes_perf_map(env: &[(&str, &str)]) -> bool {
    let dir = dir_with(&[("pow.jl", POW)]);
    let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin("zy-analyze"));
    cmd.current_dir(dir.path())
        .args(["grad", "pow.jl", "pow(2.0, 3)", "--engine", "jit"]);
    cmd.env_remove("ZY_PERF_MAP")
        .env_remove("PERF_BUILDID_DIR")
        .envs(env.iter().copied());
    let child = cmd.stdout(Stdio::piped()).spawn().expect("binary runs");
    let map = std::path::PathBuf::from(format!("/tmp/perf-{}.map", child.id()));
    let out = child.wait_with_output().expect("binary ends");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "value: 8.0\ngradient: (12.0, nothing)\nnote: pow.jl:2:17: `n` is of type Int64, which has no gradient (only floating-point values, and arrays, tuples and structs of them, do)\n"
    );
    let written = map.exists();
    let _ = std::fs::remove_file(&map);
    written
}

#[test]
fn perf_maps_are_written_only_on_request() {
    assert!(!writes_perf_map(&[]));
    assert!(
        !writes_perf_map(&[("PERF_BUILDID_DIR", "/tmp")]),
        "PERF_BUILDID_DIR alone writes no map"
    );
    assert!(writes_perf_map(&[("ZY_PERF_MAP", "1")]));
}

#[test]
fn grad_debug_names_the_rule_the_value_and_the_expected_type() {
    let text = include_str!("../../../fixtures/errors/debug_rules.jl");
    let dir = dir_with(&[("rules.jl", text)]);
    // A tangent whose type the AD cannot add into the argument's gradient is refused when the
    // rule is compiled, with or without --debug (it used to be dropped: a silent zero).
    let total = "rules.jl:9:10: error: the rrule for `total` gives a Float64 as the tangent of argument 1 (a Vector{Float64}): it must be a Vector{Float64}, or NoTangent()\n";
    for extra in [&[][..], &["--debug"][..]] {
        let mut args = vec!["grad", "rules.jl", "double_total([1.0, 2.0, 3.0])"];
        args.extend_from_slice(extra);
        assert_eq!(run(dir.path(), &args), (1, String::new(), total.into()));
    }
    assert_eq!(
        run(dir.path(), &["grad", "rules.jl", "plus_first([1.0, 2.0])", "--debug"]),
        (
            1,
            String::new(),
            "rules.jl:24:10: error: debug: the pullback of the in-source `rrule` for `first3` left `x` as [0.0, 2.0], not [1.0, 2.0]: a pullback must leave the arguments as the forward pass left them\n".into()
        )
    );
    // Structs field by field: a missing field and a field with no tangent that is not `nothing`
    // are refused with the rule; a mutable struct a pullback changed is debug mode's to find.
    let debug = |call: &str| run(dir.path(), &["grad", "rules.jl", call, "--debug"]);
    assert_eq!(
        debug("along(3.0)"),
        (
            1,
            String::new(),
            "rules.jl:48:10: error: the rrule for `sqnorm` gives a (a = Float64,) as the tangent of argument 1 (a Point): it must be a (a = Float64, b = Float64), or NoTangent()\n".into()
        )
    );
    assert_eq!(
        debug("cubed(2.0)"),
        (
            1,
            String::new(),
            "rules.jl:64:10: error: the rrule for `powered` gives a (v = Float64, n = Float64) as the tangent of argument 1 (a Scaled): it must be a (v = Float64, n = Nothing), or NoTangent()\n".into()
        )
    );
    assert_eq!(
        debug("weighed(2.0)"),
        (
            1,
            String::new(),
            "rules.jl:79:10: error: debug: the pullback of the in-source `rrule` for `weigh` left `c` as Counter(0.0), not Counter(5.0): a pullback must leave the arguments as the forward pass left them\n".into()
        )
    );
    // A correct gradient passes the checks unchanged.
    let dir = dir_with(&[("pow.jl", POW)]);
    let plain = run(dir.path(), &["grad", "pow.jl", "pow(2.0, 3)"]);
    assert_eq!(
        run(dir.path(), &["grad", "pow.jl", "pow(2.0, 3)", "--debug"]),
        plain
    );
}
