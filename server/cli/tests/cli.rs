//! The `zy-analyze` binary: exact output lines and exit statuses (0 success, 1 findings or bad
//! input, 2 usage or I/O errors), never a panic.

use std::path::{Path, PathBuf};

use assert_cmd::Command;

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

/// A fresh directory under the system temp dir holding `files`.
fn dir_with(name: &str, files: &[(&str, &str)]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("zy-analyze-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create test dir");
    for (file, text) in files {
        let path = dir.join(file);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).expect("create test dir");
        }
        std::fs::write(path, text).expect("write test file");
    }
    dir
}

/// Run the binary in `dir`: (status, stdout, stderr).
fn run(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::cargo_bin("zy-analyze")
        .expect("binary built")
        .current_dir(dir)
        .args(args)
        .output()
        .expect("binary runs");
    let text = |b: Vec<u8>| String::from_utf8(b).expect("utf-8 output");
    (
        out.status.code().unwrap_or(-1),
        text(out.stdout),
        text(out.stderr),
    )
}

#[test]
fn eval_in_text_and_json() {
    let dir = dir_with("eval", &[("pow.jl", POW)]);
    assert_eq!(
        run(&dir, &["eval", "pow.jl", "pow(2.0, 3)"]),
        (0, "8.0\n".into(), "".into())
    );
    assert_eq!(
        run(&dir, &["eval", "pow.jl", "pow(2.0, 3)", "--format", "json"]),
        (0, "{\"value\":8.0}\n".into(), "".into())
    );
}

#[test]
fn grad_in_json() {
    let dir = dir_with("grad", &[("pow.jl", POW)]);
    let expected = "{\"value\":8.0,\"gradient\":[12.0,null]}\n";
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
        assert_eq!(run(&dir, &args), (0, expected.into(), "".into()));
    }
}

#[test]
fn ir_stages() {
    let dir = dir_with("ir", &[("pow.jl", POW)]);
    let (status, out, err) = run(&dir, &["ir", "pow.jl", "pow", "--stage", "typed"]);
    assert_eq!((status, err.as_str()), (0, ""));
    assert!(
        out.starts_with("pow(%1::Float64, %2::Int64) :: Float64   # x, n\n"),
        "{out}"
    );
    let (status, out, _) = run(
        &dir,
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
}

#[test]
fn bad_input_is_one_line_with_a_position() {
    let dir = dir_with(
        "bad",
        &[
            ("pow.jl", POW),
            ("broken.jl", "function f(x)\n    x * * 2\nend\n"),
        ],
    );
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
            run(&dir, args),
            (status, String::new(), format!("{line}\n")),
            "{args:?}"
        );
    }
}

#[test]
fn usage_errors_exit_with_2() {
    let dir = dir_with("usage", &[]);
    let (status, out, err) = run(&dir, &["bogus"]);
    assert_eq!((status, out.as_str()), (2, ""));
    assert!(
        err.starts_with("error: unrecognized subcommand 'bogus'"),
        "{err}"
    );
}

#[test]
fn check_reports_every_file_under_the_paths() {
    let clean = dir_with("clean", &[("a/pow.jl", POW)]);
    assert_eq!(run(&clean, &["check", "."]), (0, "".into(), "".into()));
    let dirty = dir_with(
        "dirty",
        &[
            ("pow.jl", POW),
            ("sub/kw.jl", "f(x; y = 1) = x\n"),
            ("sub/at.jl", "# zy: at g(1.0)\ng(x) = x + undefined_thing\n"),
            ("notes.txt", "not julia"),
        ],
    );
    let (status, out, err) = run(&dirty, &["check", "--format", "short"]);
    assert_eq!((status, err.as_str()), (1, ""));
    assert_eq!(
        out,
        "./sub/at.jl:2:12: error[undefined-name]: UndefVarError: `undefined_thing` not defined\n\
         ./sub/kw.jl:1:6: error[unsupported]: unsupported: keyword arguments\n"
    );
    let (status, out, _) = run(&dirty, &["check", "sub/kw.jl", "--format", "json"]);
    assert_eq!(status, 1);
    assert_eq!(
        out,
        "{\"diagnostics\":[{\"code\":\"unsupported\",\"col\":6,\"end\":10,\"expected\":false,\"file\":\"sub/kw.jl\",\
         \"line\":1,\"message\":\"unsupported: keyword arguments\",\"severity\":\"error\",\"start\":5}],\
         \"summary\":{\"errors\":1,\"expected\":0,\"files\":1,\"warnings\":0},\"version\":1}\n"
    );
    assert_eq!(run(&dirty, &["check", "nowhere"]).0, 2);
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
    let dir = dir_with("gradcheck", &[("rules.jl", RULES)]);
    let (status, out, err) = run(&dir, &["check", "rules.jl", "--format", "short"]);
    assert_eq!((status, err.as_str()), (1, ""));
    assert_eq!(
        out,
        "rules.jl:9:17: error[gradcheck]: gradcheck `twice(2.0)`: the gradient with respect to `x` \
         is 6.0 by AD but 8.0 by finite differences\n"
    );
    let (status, out, _) = run(&dir, &["check", "rules.jl", "--format", "sarif"]);
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
}
