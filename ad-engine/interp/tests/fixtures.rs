//! Every `# expect eval: CALL => JSON` and `# expect error: CALL => "text"` of the fixtures, run
//! through parsing, lowering, inference and the interpreter.

use std::path::Path;
use std::time::{Duration, Instant};

use zy_interp::{run, run_function, to_json, Limits, Value};
use zy_ir::{Program, Type};

fn program(src: &str) -> Result<Program, String> {
    let file = zy_syntax::parse_file(src);
    if !file.errors.is_empty() {
        return Err(format!("syntax errors: {:?}", file.errors));
    }
    let lowered = zy_lower::lower_file(0, &file);
    if !lowered.errors.is_empty() {
        return Err(format!("lowering errors: {:?}", lowered.errors));
    }
    Ok(lowered.program)
}

/// Each run's limits: a deadline well above any fixture's run on a loaded 2-core machine (at 3 s
/// table2/mlp.jl missed it under load), reached only by the loop that never ends
/// (`spin` of errors/runtime.jl).
fn limits() -> Limits {
    Limits {
        deadline: Some(Instant::now() + Duration::from_secs(10)),
        ..Limits::default()
    }
}

/// `name` and the argument text of `name(args...)`.
fn split_call(call: &str) -> Option<(&str, &str)> {
    let open = call.find('(')?;
    let name = &call[..open];
    let ok = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_alphanumeric() || c == '_' || c == '!');
    (ok && call.ends_with(')')).then(|| (name, &call[open + 1..call.len() - 1]))
}

/// JSON text split into its shape (numbers replaced by `#`, whitespace dropped) and its
/// numbers, parsed exactly (serde_json's default float parsing may be off by an ulp).
fn tokens(json: &str) -> (String, Vec<Number>) {
    let (mut shape, mut numbers) = (String::new(), Vec::new());
    let mut chars = json.chars().peekable();
    let mut in_string = false;
    while let Some(c) = chars.next() {
        if in_string {
            in_string = c != '"';
            shape.push(c);
        } else if c == '"' {
            in_string = true;
            shape.push(c);
        } else if c == '-' || c.is_ascii_digit() {
            let mut text = c.to_string();
            while let Some(&d) = chars.peek() {
                if d.is_ascii_digit() || matches!(d, '.' | 'e' | 'E' | '+' | '-') {
                    text.push(d);
                    chars.next();
                } else {
                    break;
                }
            }
            numbers.push(match text.parse::<i64>() {
                Ok(i) => Number::Int(i),
                Err(_) => Number::Float(text.parse::<f64>().map(f64::to_bits).unwrap_or(0)),
            });
            shape.push('#');
        } else if !c.is_whitespace() {
            shape.push(c);
        }
    }
    (shape, numbers)
}

#[derive(PartialEq, Debug)]
enum Number {
    Int(i64),
    /// The bits of a Float64.
    Float(u64),
}

/// Equal shapes and numbers; Ints exactly, Floats to 1e-12 relative (the expectations are
/// hand-derived exact values, which a floating-point computation rounds).
fn same(got: &(String, Vec<Number>), want: &(String, Vec<Number>)) -> bool {
    got.0 == want.0
        && got.1.len() == want.1.len()
        && got.1.iter().zip(&want.1).all(|(g, w)| match (g, w) {
            (Number::Float(a), Number::Float(b)) => {
                let (a, b) = (f64::from_bits(*a), f64::from_bits(*b));
                a == b || (a - b).abs() <= 1e-12 * a.abs().max(b.abs()).max(1.0)
            }
            _ => g == w,
        })
}

/// Run `CALL` in the file's definitions: its value or the error message.
fn eval(src: &str, call: &str) -> Result<Result<Value, String>, String> {
    let (name, args) = split_call(call).ok_or("not a plain call")?;
    let src = if args.is_empty() {
        format!("{src}\nzyargs__() = ()\n")
    } else {
        format!("{src}\nzyargs__() = ({args},)\n")
    };
    let program = program(&src)?;
    let (inst, prog) =
        zy_infer::infer_entry(&program, "zyargs__", &[]).map_err(|e| format!("{e:?}"))?;
    let args = match run(&prog, &inst, vec![], &limits()).map_err(|e| e.message)? {
        Value::Tuple(vs) => vs.to_vec(),
        other => return Err(format!("arguments evaluate to {other:?}")),
    };
    let tys: Vec<Type> = args.iter().map(Value::julia_type).collect();
    let (inst, prog) = zy_infer::infer_entry(&program, name, &tys).map_err(|e| format!("{e:?}"))?;
    // A top-level binding to an anonymous function: its value is the hidden zeroth argument.
    let args = match prog.globals.get(name) {
        Some(thunk) if inst.args.len() == args.len() + 1 => {
            let callee = run_function(&prog, thunk, vec![], &limits()).map_err(|e| e.message)?;
            std::iter::once(callee).chain(args).collect()
        }
        _ => args,
    };
    Ok(run(&prog, &inst, args, &limits()).map_err(|e| e.message))
}

#[test]
fn fixture_values() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures");
    let mut files: Vec<_> = ["", "table2", "errors"]
        .iter()
        .flat_map(|d| {
            std::fs::read_dir(root.join(d))
                .into_iter()
                .flatten()
                .flatten()
        })
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "jl"))
        .collect();
    files.sort();
    let (mut ok, mut failures, mut skipped) = (0, Vec::new(), Vec::new());
    for path in files {
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        // Lowered here without the prelude or zy-hir's scopes: files that need them (or the
        // pipeline's layout of calls) say so or use modules (`import Base: show` names the
        // library's `show`), and `tests/tests/fixtures.rs` checks them (fixtures/README.md).
        if text.lines().any(|l| {
            let l = l.trim_start();
            [
                "module ",
                "using ",
                "import ",
                "# needs: prelude",
                "# needs: pipeline",
            ]
            .iter()
            .any(|k| l.starts_with(k))
        }) {
            continue;
        }
        let file = path
            .file_name()
            .map(|f| f.to_string_lossy().to_string())
            .unwrap_or_default();
        for line in text.lines() {
            let line = line.trim();
            let (is_error, rest) = match (
                line.strip_prefix("# expect eval:"),
                line.strip_prefix("# expect error:"),
            ) {
                (Some(r), _) => (false, r),
                (_, Some(r)) => (true, r),
                _ => continue,
            };
            let Some((call, want)) = rest.rsplit_once(" => ") else {
                continue;
            };
            let (call, want) = (call.trim(), want.trim());
            let got = std::panic::catch_unwind(|| eval(&text, call))
                .unwrap_or_else(|_| Err("panic".into()));
            match (got, is_error) {
                // Not the interpreter's business: the front end or inference rejected it, or
                // the call differentiates (which needs the AD's rewriting first).
                (Err(e), _) => skipped.push(format!("{file}: {call}: {e}")),
                (Ok(Err(e)), _) if e.contains("rewritten by the AD transform") => {
                    skipped.push(format!("{file}: {call}: needs the AD"))
                }
                (Ok(Ok(v)), false) => {
                    let got = to_json(&v).to_string();
                    if same(&tokens(&got), &tokens(want)) {
                        ok += 1;
                    } else {
                        failures.push(format!("{file}: {call}: got {got}, want {want}"));
                    }
                }
                (Ok(Err(e)), true) if e.contains(want.trim_matches('"')) => ok += 1,
                (Ok(Err(e)), _) => failures.push(format!("{file}: {call}: error {e}, want {want}")),
                (Ok(Ok(v)), true) => failures.push(format!(
                    "{file}: {call}: got {}, want error {want}",
                    to_json(&v)
                )),
            }
        }
    }
    eprintln!(
        "{ok} fixture values right; skipped:\n{}",
        skipped.join("\n")
    );
    assert!(
        failures.is_empty(),
        "{} wrong:\n{}",
        failures.len(),
        failures.join("\n")
    );
    // Most expectations need no differentiation: if they stop running, something regressed.
    assert!(ok >= 180, "only {ok} fixture values ran");
}
