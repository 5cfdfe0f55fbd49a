//! Every `# expect grad: CALL => JSON` of the fixtures, differentiated through the transform
//! and the interpreter and compared with the hand-derived expectation (relative 1e-9).
//!
//! A call's arguments are evaluated by appending a zero-argument function returning them to
//! the file. The test reports every mismatch at once.

use crate::common;

use std::path::Path;

use serde_json::Value as Json;
use zy_interp::{run, to_json, Limits, Value};

/// `(call, expected)` pairs of one file for one kind of expectation.
fn expectations(text: &str, kind: &str) -> Vec<(String, String)> {
    let prefix = format!("# expect {kind}:");
    text.lines()
        .filter_map(|l| l.trim().strip_prefix(prefix.as_str()))
        .filter_map(|rest| {
            rest.rsplit_once(" => ")
                .map(|(c, j)| (c.trim().to_string(), j.trim().to_string()))
        })
        .collect()
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

fn close(a: &Json, b: &Json) -> bool {
    match (a, b) {
        (Json::Number(x), Json::Number(y)) => {
            let (x, y) = (
                x.as_f64().unwrap_or(f64::NAN),
                y.as_f64().unwrap_or(f64::NAN),
            );
            (x - y).abs() <= 1e-9 * x.abs().max(y.abs()).max(1.0)
        }
        (Json::Array(xs), Json::Array(ys)) => {
            xs.len() == ys.len() && xs.iter().zip(ys).all(|(x, y)| close(x, y))
        }
        (Json::Object(xs), Json::Object(ys)) => {
            xs.len() == ys.len()
                && xs
                    .iter()
                    .all(|(k, x)| ys.get(k).is_some_and(|y| close(x, y)))
        }
        _ => a == b,
    }
}

/// Differentiate one call; the gradient as JSON or an error message.
fn grad_json(src: &str, call: &str) -> Result<Json, String> {
    let (name, args) = split_call(call).ok_or("not a plain call")?;
    let src = format!("{src}\nzyargs__() = ({args},)\n");
    let (inst, prog) = common::run::typed(&src, "zyargs__", &[]);
    let args = match run(&prog, &inst, vec![], &Limits::default()).map_err(|e| e.message)? {
        Value::Tuple(vs) => vs.to_vec(),
        other => return Err(format!("arguments evaluate to {other:?}")),
    };
    let mut args = args;
    let mut tys: Vec<zy_ir::Type> = args.iter().map(Value::julia_type).collect();
    let program = common::run::program(&src);
    let (mut inst, mut prog) =
        zy_infer::infer_entry(&program, name, &tys).map_err(|e| format!("{e:?}"))?;
    // A global bound to a closure: the closure is argument 0; its gradient is not reported.
    let callee = inst.args.len() == args.len() + 1;
    if callee {
        let src = format!("{src}\nzycallee__() = {name}\n");
        let (cinst, cprog) = common::run::typed(&src, "zycallee__", &[]);
        let f = run(&cprog, &cinst, vec![], &Limits::default()).map_err(|e| e.message)?;
        args.insert(0, f);
        tys = args.iter().map(Value::julia_type).collect();
        (inst, prog) =
            zy_infer::infer_call(&program, &tys[0], &tys[1..]).map_err(|e| format!("{e:?}"))?;
    }
    let prog = zy_ad::expand_with_rrules(&program, &prog).map_err(|e| e.message)?;
    let (driver, prog) =
        zy_ad::gradient_program_with_rrules(&program, &prog, &inst).map_err(|e| e.message)?;
    match run(&prog, &driver, args, &Limits::default()).map_err(|e| e.message)? {
        Value::Tuple(parts) if parts.len() == 2 => match (&parts[1], callee) {
            (Value::Tuple(gs), true) => {
                Ok(to_json(&Value::Tuple(gs[1..].iter().cloned().collect())))
            }
            (g, _) => Ok(to_json(g)),
        },
        other => Err(format!("driver returned {other:?}")),
    }
}

/// Whether a file uses modules (`module`, `using`, `import`), which only zy-hir's scopes and
/// prelude resolve, or is a `prelude_*` file or says `# needs: prelude` (ranges, slices), which
/// call the prelude's functions, or `# needs: pipeline` (calls with keywords or varargs, whose
/// arguments the CLI lays out); `tests/tests/fixtures.rs` checks those files through the whole
/// pipeline.
fn needs_scopes(name: &str, text: &str) -> bool {
    name.starts_with("prelude_")
        || text.lines().any(|l| {
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
        })
}

#[test]
fn fixture_gradients() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures");
    let mut files: Vec<_> = ["", "table2"]
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
    let (mut ok, mut failures) = (0, Vec::new());
    for path in files {
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        let name = path.file_name().map(|f| f.to_string_lossy().to_string());
        if needs_scopes(name.as_deref().unwrap_or_default(), &text) {
            continue;
        }
        for (call, want) in expectations(&text, "grad") {
            let file = path
                .file_name()
                .map(|f| f.to_string_lossy().to_string())
                .unwrap_or_default();
            let Ok(want) = serde_json::from_str::<Json>(&want) else {
                continue;
            };
            let got = std::panic::catch_unwind(|| grad_json(&text, &call))
                .unwrap_or_else(|_| Err("panic".into()));
            match got {
                Ok(g) if close(&g, &want) => ok += 1,
                Ok(g) => failures.push(format!("{file}: {call}: got {g}, want {want}")),
                Err(e) => failures.push(format!("{file}: {call}: {e}")),
            }
        }
    }
    eprintln!("{ok} fixture gradients right");
    assert!(
        failures.is_empty(),
        "{} wrong:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Check the pushforward of one call along the test direction against the reverse gradient's
/// dot product with it (and the JIT against the interpreter); `Ok(false)` for a call it does
/// not apply to (a result other than a Float64, a callee that is a global closure).
fn jvp_agrees(src: &str, call: &str) -> Result<bool, String> {
    let (name, args) = split_call(call).ok_or("not a plain call")?;
    let src = format!("{src}\nzyargs__() = ({args},)\n");
    let (inst, prog) = common::run::typed(&src, "zyargs__", &[]);
    let args = match run(&prog, &inst, vec![], &Limits::default()).map_err(|e| e.message)? {
        Value::Tuple(vs) => vs.to_vec(),
        other => return Err(format!("arguments evaluate to {other:?}")),
    };
    let tys: Vec<zy_ir::Type> = args.iter().map(Value::julia_type).collect();
    let program = common::run::program(&src);
    let (inst, prog) = zy_infer::infer_entry(&program, name, &tys).map_err(|e| format!("{e:?}"))?;
    if inst.args.len() != args.len() || prog.functions[&inst].ret != zy_ir::Type::Float64 {
        return Ok(false);
    }
    let prog = zy_ad::expand(&prog).map_err(|e| e.message)?;
    let (_, dy) = common::forward::jvp(&prog, &inst, &args);
    let Value::F64(dy) = dy else {
        return Err(format!("ẏ = {dy:?}"));
    };
    let dot = common::forward::reverse_dot(&prog, &inst, &args)?;
    if common::forward::agree(dy, dot) {
        Ok(true)
    } else {
        Err(format!("ẏ = {dy}, but ∇f · d = {dot}"))
    }
}

/// Forward mode against reverse mode on every fixture call with an expected gradient: the
/// directional derivative along a pseudo-random direction equals the gradient's dot product
/// with it, on both engines. (Forward mode derives every function, so the reverse gradient it
/// is compared with ignores in-source `rrule`s too.)
#[test]
fn fixture_pushforwards_agree_with_gradients() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures");
    let mut files: Vec<_> = ["", "table2"]
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
    let (mut ok, mut failures) = (0, Vec::new());
    for path in files {
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        let file = path
            .file_name()
            .map(|f| f.to_string_lossy().to_string())
            .unwrap_or_default();
        if needs_scopes(&file, &text) {
            continue;
        }
        for (call, _) in expectations(&text, "grad") {
            let got = std::panic::catch_unwind(|| jvp_agrees(&text, &call))
                .unwrap_or_else(|e| Err(panic_text(&e)));
            match got {
                Ok(true) => ok += 1,
                Ok(false) => {}
                Err(e) => failures.push(format!("{file}: {call}: {e}")),
            }
        }
    }
    eprintln!("{ok} fixture pushforwards agree");
    assert!(ok > 50, "only {ok} fixture calls checked");
    assert!(
        failures.is_empty(),
        "{} wrong:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

fn panic_text(e: &Box<dyn std::any::Any + Send>) -> String {
    e.downcast_ref::<String>()
        .cloned()
        .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_else(|| "panic".into())
}

/// Evaluate `call` after expanding the differentiation builtins.
fn eval_json(src: &str, call: &str) -> Result<Json, String> {
    let src = format!("{src}\nzycall__() = {call}\n");
    let program = common::run::program(&src);
    let (inst, prog) =
        zy_infer::infer_entry(&program, "zycall__", &[]).map_err(|e| format!("{e:?}"))?;
    let prog = zy_ad::expand_with_rrules(&program, &prog).map_err(|e| e.message)?;
    run(&prog, &inst, vec![], &Limits::default())
        .map(|v| to_json(&v))
        .map_err(|e| e.message)
}

/// Every `# expect eval:` of a program that calls `gradient`, `derivative` or `pullback`.
#[test]
fn fixture_values_with_differentiation() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures");
    let (mut ok, mut failures) = (0, Vec::new());
    for name in [
        "nested_ad.jl",
        "rrule.jl",
        "closures.jl",
        "pullbacks.jl",
        "global_writes.jl",
    ] {
        let Ok(text) = std::fs::read_to_string(root.join(name)) else {
            continue;
        };
        for (call, want) in expectations(&text, "eval") {
            let Ok(want) = serde_json::from_str::<Json>(&want) else {
                continue;
            };
            let got = std::panic::catch_unwind(|| eval_json(&text, &call))
                .unwrap_or_else(|_| Err("panic".into()));
            match got {
                Ok(g) if close(&g, &want) => ok += 1,
                Ok(g) => failures.push(format!("{name}: {call}: got {g}, want {want}")),
                Err(e) => failures.push(format!("{name}: {call}: {e}")),
            }
        }
    }
    eprintln!("{ok} values right");
    assert!(
        failures.is_empty(),
        "{} wrong:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
