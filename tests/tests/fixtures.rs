//! Runs the expectations written in every `fixtures/**/*.jl` file, one test per file:
//!
//! - `# expect eval: CALL => JSON`: evaluating CALL gives that JSON value (numbers with relative
//!   tolerance 1e-9; integers and floats must not be confused; `"NaN"` etc. exactly);
//! - `# expect error: CALL => "substring"`: evaluating CALL fails with a message containing it;
//! - `# expect diagnostic: LINE:COL CODE substring`: the file's diagnostics contain it.
//!
//! - `# expect grad: CALL => [G1, G2, ...]`: the gradient of CALL with respect to each argument,
//!   through the AD and both the interpreter and the JIT, compared as for `eval`.
//! - `# expect nonfinite: CALL => LINE:COL message`: the gradient of CALL is not finite, and on
//!   both engines its origin is at `LINE:COL` of this file with exactly that message.

use std::path::{Path, PathBuf};

use libtest_mimic::{Arguments, Failed, Trial};
use serde_json::Value as Json;
use zy_ide::{AnalysisHost, Engine, EvalLimits};

fn main() {
    let args = Arguments::from_args();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures");
    let mut files = Vec::new();
    collect(&root, &mut files);
    files.sort();
    let trials = files
        .into_iter()
        .map(|path| {
            let name = path
                .strip_prefix(&root)
                .unwrap_or(&path)
                .display()
                .to_string();
            Trial::test(name, move || on_analysis_stack(move || run_file(&path)))
        })
        .collect();
    libtest_mimic::run(&args, trials).exit();
}

/// Runs `f` on a thread with the stack the CLI and the language server give analyses
/// ([`zy_ide::ANALYSIS_STACK_SIZE`]): typing follows the program's chains of calls.
fn on_analysis_stack(
    f: impl FnOnce() -> Result<(), Failed> + Send + 'static,
) -> Result<(), Failed> {
    std::thread::Builder::new()
        .stack_size(zy_ide::ANALYSIS_STACK_SIZE)
        .spawn(f)
        .map_err(|e| format!("no thread for the analysis: {e}"))?
        .join()
        .unwrap_or_else(|_| Err("the analysis panicked".into()))
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect(&path, out);
        } else if path.extension().is_some_and(|e| e == "jl") {
            out.push(path);
        }
    }
}

/// One expectation line.
enum Expect<'a> {
    Eval {
        call: &'a str,
        want: &'a str,
    },
    Grad {
        call: &'a str,
        want: &'a str,
    },
    Error {
        call: &'a str,
        want: &'a str,
    },
    NonFinite {
        call: &'a str,
        line: u32,
        col: u32,
        message: &'a str,
    },
    Diagnostic {
        line: u32,
        col: u32,
        code: &'a str,
        text: &'a str,
    },
}

fn parse_expect(line: &str) -> Option<Result<Expect<'_>, String>> {
    let rest = line.trim_start().strip_prefix("# expect ")?;
    let (kind, body) = rest.split_once(':')?;
    let body = body.trim();
    Some(match kind {
        "eval" | "error" | "grad" => match body.split_once(" => ") {
            Some((call, want)) if kind == "eval" => Ok(Expect::Eval { call, want }),
            Some((call, want)) if kind == "grad" => Ok(Expect::Grad { call, want }),
            Some((call, want)) => Ok(Expect::Error { call, want }),
            None => Err(format!("malformed expectation (no ` => `): {line}")),
        },
        "nonfinite" => parse_nonfinite(body).ok_or_else(|| format!("malformed: {line}")),
        "diagnostic" => parse_diagnostic(body).ok_or_else(|| format!("malformed: {line}")),
        _ => return None,
    })
}

fn parse_nonfinite(body: &str) -> Option<Expect<'_>> {
    let (call, rest) = body.split_once(" => ")?;
    let (pos, message) = rest.split_once(' ')?;
    let (line, col) = pos.split_once(':')?;
    Some(Expect::NonFinite {
        call,
        line: line.parse().ok()?,
        col: col.parse().ok()?,
        message,
    })
}

fn parse_diagnostic(body: &str) -> Option<Expect<'_>> {
    let (pos, rest) = body.split_once(' ')?;
    let (line, col) = pos.split_once(':')?;
    let (code, text) = rest.split_once(' ').unwrap_or((rest, ""));
    Some(Expect::Diagnostic {
        line: line.parse().ok()?,
        col: col.parse().ok()?,
        code,
        text,
    })
}

fn run_file(path: &Path) -> Result<(), Failed> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    // Compiled as `zy-analyze` compiles (quick code: each call runs once; the JIT's fast code
    // is compared with the interpreter on every fixture in zy-codegen's tests).
    let mut host = AnalysisHost::new();
    host.prefer_quick_code();
    let file = host.set_file_text(path, text.clone());
    // The files it includes, and the package a test file imports (`using P` in `test/` loads
    // `src/P.jl`), as `zy-analyze` loads them.
    host.load_includes(|p| std::fs::read_to_string(p).map_err(|e| e.to_string()));
    let analysis = host.analysis();
    let mut failures = Vec::new();
    let mut diagnostics = None;
    for (i, line) in text.lines().enumerate() {
        let at = format!("{}:{}", path.display(), i + 1);
        let Some(expect) = parse_expect(line) else {
            continue;
        };
        let expect = match expect {
            Ok(e) => e,
            Err(e) => {
                failures.push(format!("{at}: {e}"));
                continue;
            }
        };
        let outcome = match expect {
            Expect::Eval { call, want } => {
                match analysis
                    .eval(file, call, EvalLimits::default())
                    .map_err(|_| "cancelled")?
                {
                    Ok(v) => check_json(want, &v.json),
                    Err(e) => Err(format!("`{call}` failed: {e}")),
                }
            }
            Expect::Grad { call, want } => {
                let mut outcome = Ok(());
                for engine in [Engine::Interp, Engine::Jit] {
                    let r = analysis.grad(file, call, EvalLimits::default(), engine);
                    outcome = outcome.and_then(|()| match r.map_err(|_| "cancelled")? {
                        Ok(g) => {
                            let got =
                                Json::Array(g.gradient().iter().map(|g| g.json.clone()).collect());
                            check_json(want, &got).map_err(|e| format!("{engine:?}: {e}"))
                        }
                        Err(e) => Err(format!("gradient of `{call}` failed ({engine:?}): {e}")),
                    });
                }
                outcome
            }
            Expect::NonFinite {
                call,
                line,
                col,
                message,
            } => {
                let mut outcome = Ok(());
                for engine in [Engine::Interp, Engine::Jit] {
                    let r = analysis.grad(file, call, EvalLimits::default(), engine);
                    outcome = outcome.and_then(|()| match r.map_err(|_| "cancelled")? {
                        Ok(g) => match &g.nonfinite {
                            Some(n)
                                if n.file == path
                                    && (n.line, n.col) == (line, col)
                                    && n.message == message =>
                            {
                                Ok(())
                            }
                            other => Err(format!(
                                "{engine:?}: expected the origin {line}:{col} {message}, got {other:?}"
                            )),
                        },
                        Err(e) => Err(format!("gradient of `{call}` failed ({engine:?}): {e}")),
                    });
                }
                outcome
            }
            Expect::Error { call, want } => {
                let want = want.trim().trim_matches('"');
                match analysis
                    .eval(file, call, EvalLimits::default())
                    .map_err(|_| "cancelled")?
                {
                    Ok(v) => Err(format!("`{call}` gave {} instead of an error", v.json)),
                    Err(e) if e.message.contains(want) => Ok(()),
                    Err(e) => Err(format!("`{call}` failed with `{e}`, which lacks `{want}`")),
                }
            }
            Expect::Diagnostic {
                line,
                col,
                code,
                text,
            } => {
                let diags = match &diagnostics {
                    Some(d) => d,
                    None => {
                        diagnostics.insert(analysis.diagnostics(file).map_err(|_| "cancelled")?)
                    }
                };
                let found = diags.iter().any(|d| {
                    d.line == line && d.col == col && d.code == code && d.message.contains(text)
                });
                if found {
                    Ok(())
                } else {
                    let all: Vec<String> = diags
                        .iter()
                        .map(|d| format!("{}:{} {} {}", d.line, d.col, d.code, d.message))
                        .collect();
                    Err(format!(
                        "no diagnostic `{line}:{col} {code} {text}` among {all:?}"
                    ))
                }
            }
        };
        if let Err(e) = outcome {
            failures.push(format!("{at}: {e}"));
        }
    }
    if failures.is_empty() {
        Ok(())
    } else {
        Err(failures.join("\n").into())
    }
}

fn check_json(want: &str, got: &Json) -> Result<(), String> {
    let want: Json =
        serde_json::from_str(want).map_err(|e| format!("bad expected JSON `{want}`: {e}"))?;
    if json_matches(&want, got) {
        Ok(())
    } else {
        Err(format!("expected {want}, got {got}"))
    }
}

/// Structural equality with numbers compared to a relative tolerance of 1e-9; an integer never
/// matches a float.
fn json_matches(want: &Json, got: &Json) -> bool {
    match (want, got) {
        (Json::Number(a), Json::Number(b)) => {
            if a.is_f64() != b.is_f64() {
                return false;
            }
            match (a.as_i64(), b.as_i64()) {
                (Some(x), Some(y)) => x == y,
                _ => match (a.as_f64(), b.as_f64()) {
                    (Some(x), Some(y)) => x == y || (x - y).abs() <= 1e-9 * x.abs().max(y.abs()),
                    _ => false,
                },
            }
        }
        (Json::Array(a), Json::Array(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(x, y)| json_matches(x, y))
        }
        (Json::Object(a), Json::Object(b)) => {
            a.len() == b.len()
                && a.iter()
                    .all(|(k, v)| b.get(k).is_some_and(|w| json_matches(v, w)))
        }
        _ => want == got,
    }
}
