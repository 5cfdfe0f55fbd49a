//! The differential test: every call named in an expectation of the fixtures runs in the JIT
//! and in the interpreter, primal and gradient, with the same result or the same error (message
//! and span), bit for bit. Source is parsed, lowered and inferred as the tools do.

mod support;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use support::{deep_copy, render};
use zy_codegen::{JitError, JitSession};
use zy_interp::{Limits, Value};
use zy_ir::{Instance, TypedProgram};
use zy_syntax::ast::ExprKind;

/// A program typed for a call of `name` with `args`.
fn typed(
    text: &str,
    name: &str,
    args: &[zy_ir::Type],
) -> Result<(Arc<Instance>, TypedProgram), String> {
    let src = zy_syntax::parse_file(text);
    let lowered = zy_lower::lower_file(0, &src);
    zy_infer::infer_entry(&lowered.program, name, args).map_err(|e| {
        e.iter()
            .map(|e| e.message.clone())
            .collect::<Vec<_>>()
            .join("; ")
    })
}

/// The file's text with `wrapper() = expr` appended.
fn with_wrapper(text: &str, wrapper: &str, expr: &str) -> String {
    format!("{text}\n\nfunction {wrapper}()\n    return {expr}\nend\n")
}

/// What happened to one engine comparison.
enum Outcome {
    Agreed,
    /// The JIT declined (the caller would use the interpreter).
    Declined(JitError),
}

fn compare(
    prog: &TypedProgram,
    inst: &Instance,
    args: Vec<Value>,
    what: &str,
) -> Result<Outcome, String> {
    let mut jit = JitSession::new().map_err(|e| e.to_string())?;
    let compiled = match jit.compile(prog, inst) {
        Ok(c) => c,
        Err(e) => return Ok(Outcome::Declined(e)),
    };
    let limits = Limits {
        deadline: Some(std::time::Instant::now() + std::time::Duration::from_secs(5)),
        ..Limits::default()
    };
    let copies: Vec<Value> = args.iter().map(deep_copy).collect();
    let by_jit = render(&compiled.call(&args, &limits));
    let by_interp = render(&zy_interp::run(prog, inst, copies, &limits));
    if by_jit == by_interp {
        Ok(Outcome::Agreed)
    } else if by_interp.ends_with("InterruptException: time limit exceeded")
        && !by_jit.contains("Interrupt")
    {
        // The interpreter (a debug build) is too slow for this call within the limit.
        Ok(Outcome::Agreed)
    } else {
        Err(format!("{what}: JIT {by_jit} but interpreter {by_interp}"))
    }
}

/// The calls named by `# expect eval|grad|error:` lines.
fn expected_calls(text: &str) -> BTreeSet<(String, bool)> {
    let mut calls = BTreeSet::new();
    for line in text.lines() {
        for (tag, grad) in [
            ("# expect eval: ", false),
            ("# expect grad: ", true),
            ("# expect error: ", false),
        ] {
            if let Some(rest) = line.trim_start().strip_prefix(tag) {
                if let Some((call, _)) = rest.rsplit_once(" => ") {
                    calls.insert((call.trim().to_string(), grad));
                }
            }
        }
    }
    calls
}

/// Run the primal call and, for `grad`, its gradient in both engines.
fn check_call(
    text: &str,
    call: &str,
    grad: bool,
    declined: &mut Vec<String>,
) -> Result<(), String> {
    let wrapped = with_wrapper(text, "__jit_call__", call);
    let (inst, prog) = typed(&wrapped, "__jit_call__", &[])?;
    // Calls of `gradient`, `derivative`, ... in the code become calls of generated functions;
    // a call the AD refuses to expand is the front end's error, not the engines'.
    let prog = zy_ad::expand(&prog).map_err(|e| format!("{call}: {}", e.message))?;
    if let Outcome::Declined(e) = compare(&prog, &inst, vec![], call)? {
        declined.push(format!("{call}: {e}"));
    }
    if !grad {
        return Ok(());
    }
    let expr = zy_syntax::parse_expr(call).map_err(|e| format!("{call}: {}", e.message))?;
    let ExprKind::Call { callee, args } = &expr.kind else {
        return Ok(());
    };
    let ExprKind::Ident(name) = &callee.kind else {
        return Ok(());
    };
    // Evaluate each argument expression (with the interpreter) to get the values and types.
    let mut values = Vec::new();
    for (k, a) in args.iter().enumerate() {
        let arg_text = &call[a.range.start as usize..a.range.end as usize];
        let wrapper = format!("__jit_arg{k}__");
        let (inst, prog) = typed(&with_wrapper(text, &wrapper, arg_text), &wrapper, &[])?;
        let v = zy_interp::run(&prog, &inst, vec![], &Limits::default()).map_err(|e| e.message)?;
        values.push(v);
    }
    let tys: Vec<zy_ir::Type> = values.iter().map(Value::julia_type).collect();
    let (inst, prog) = typed(text, name, &tys)?;
    if inst.args.len() != values.len() {
        // A call through a global binding (`sq = x -> x^2`): the callee is an extra argument.
        return Ok(());
    }
    let (driver, prog) = match zy_ad::gradient_program(&prog, &inst) {
        Ok(p) => p,
        Err(_) => return Ok(()),
    };
    if let Outcome::Declined(e) = compare(&prog, &driver, values, &format!("gradient of {call}"))? {
        declined.push(format!("gradient of {call}: {e}"));
    }
    Ok(())
}

fn fixture_files() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures");
    let mut files = Vec::new();
    for dir in [root.clone(), root.join("table2"), root.join("errors")] {
        if let Ok(entries) = std::fs::read_dir(&dir) {
            for e in entries.flatten() {
                let p = e.path();
                if p.extension().is_some_and(|x| x == "jl") {
                    files.push(p);
                }
            }
        }
    }
    files.sort();
    files
}

#[test]
fn jit_agrees_with_the_interpreter_on_every_fixture() {
    let mut failures = Vec::new();
    let mut declined = Vec::new();
    let mut checked = 0;
    for path in fixture_files() {
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        let file = path
            .file_name()
            .map(|f| f.to_string_lossy().to_string())
            .unwrap_or_default();
        for (call, grad) in expected_calls(&text) {
            checked += 1;
            match check_call(&text, &call, grad, &mut declined) {
                Ok(()) => {}
                Err(e) if e.contains("JIT ") => failures.push(format!("{file}: {e}")),
                // Calls the front end rejects are other tests' business.
                Err(_) => {}
            }
        }
    }
    eprintln!("{checked} calls; the JIT declined {}:", declined.len());
    for d in &declined {
        eprintln!("  {d}");
    }
    assert!(checked > 100, "only {checked} calls found");
    assert!(
        failures.is_empty(),
        "{} disagreements:\n{}",
        failures.len(),
        failures.join("\n")
    );
    // The only construct the JIT leaves to the interpreter here is one the AD does not expand.
    let unexpected: Vec<&String> = declined
        .iter()
        .filter(|d| !d.contains("`hessian`"))
        .collect();
    assert!(unexpected.is_empty(), "the JIT declined: {unexpected:#?}");
}
