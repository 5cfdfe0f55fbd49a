//! One `.zyir` filetest: directives, verification, runs on both engines, gradients.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use zy_codegen::JitSession;
use zy_interp::{Limits, RuntimeError, Value};
use zy_ir::{Function, Instance, Location, Module, TypedProgram};

use crate::support::deep_copy;
use crate::values;

/// What a file tests (its `; test:` lines).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    Verify,
    Run,
    Gradient,
}

/// The expectation of a `run:` or `grad:` line.
enum Expect {
    /// `== VALUE`: the result, compared by Julia's `show` (bit for bit).
    Value(String),
    /// `≈ VALUE`: the same structure, and Float64s within a relative 1e-12.
    Approx(String),
    /// `throws "MESSAGE" [at %n]`: an error whose message starts with MESSAGE, raised by the
    /// statement defining `%n`.
    Throws { message: String, at: Option<String> },
}

/// A `; run: CALL ...` or `; grad: CALL ...` line.
struct RunLine {
    line: u32,
    call: String,
    expect: Expect,
}

/// The directives of a file.
#[derive(Default)]
struct Directives {
    kinds: Vec<Kind>,
    runs: Vec<RunLine>,
    grads: Vec<RunLine>,
    /// `; error: TEXT` annotations by line.
    errors: BTreeMap<u32, Vec<String>>,
    /// The `; gradient:` block: the index of its header line and its text.
    gradient: Option<(usize, String)>,
}

/// Run the filetest at `path`.
pub fn run(path: &Path) -> Result<(), String> {
    let shown = crate::shown(path);
    let text = std::fs::read_to_string(path).map_err(|e| format!("{shown}: {e}"))?;
    let at = |line: u32, m: String| format!("{shown}:{line}: {m}");
    let d = directives(&text).map_err(|(l, m)| at(l, m))?;
    let module = zy_ir::parse_module(&text).map_err(|e| format!("{shown}:{e}"))?;
    if d.kinds.is_empty() {
        return Err(at(1, "no `; test:` line (verify, run, gradient)".into()));
    }
    for (kind, what, lines) in [
        (Kind::Run, "run", &d.runs),
        (Kind::Gradient, "grad", &d.grads),
    ] {
        if let Some(r) = lines.first().filter(|_| !d.kinds.contains(&kind)) {
            return Err(at(
                r.line,
                format!("a `{what}:` line in a file without `; test: {kind:?}`"),
            ));
        }
    }
    if let Some((&line, _)) = d
        .errors
        .iter()
        .next()
        .filter(|_| !d.kinds.contains(&Kind::Verify))
    {
        return Err(at(
            line,
            "an `error:` annotation in a file without `; test: verify`".into(),
        ));
    }
    let lines = LineIndex::new(&text);
    verify(&module, &d, &lines).map_err(|(l, m)| at(l, m))?;
    let runs_something = !d.runs.is_empty() || !d.grads.is_empty();
    if !d.errors.is_empty() && runs_something {
        return Err(at(
            1,
            "a file expecting verifier errors runs nothing".into(),
        ));
    }
    let prog = module.program();
    for r in &d.runs {
        let (inst, args) = resolve(&module, &r.call).map_err(|m| at(r.line, m))?;
        check(&prog, &inst, args, &r.expect, &lines, &module.structs)
            .map_err(|m| at(r.line, format!("{}: {m}", r.call)))?;
    }
    if d.kinds.contains(&Kind::Gradient) {
        gradients(path, &text, &module, &prog, &d, &lines).map_err(|(l, m)| at(l, m))?;
    }
    Ok(())
}

/// Read the `;` directives of `text`; errors carry their line.
fn directives(text: &str) -> Result<Directives, (u32, String)> {
    let mut d = Directives::default();
    let lines: Vec<&str> = text.lines().collect();
    let mut i = 0;
    while i < lines.len() {
        let raw = lines[i];
        let number = i as u32 + 1;
        i += 1;
        let start = zy_ir::parse::comment_start(raw);
        let code = raw[..start].trim();
        let Some(comment) = raw.get(start + 1..).map(str::trim) else {
            continue;
        };
        if comment == "gradient:" && code.is_empty() {
            let header = i - 1;
            let mut body = String::new();
            while let Some(l) = lines.get(i).filter(|l| l.starts_with(';')) {
                body.push_str(l.strip_prefix("; ").unwrap_or(l.trim_start_matches(';')));
                body.push('\n');
                i += 1;
            }
            d.gradient = Some((header, body));
            continue;
        }
        let Some((key, rest)) = comment.split_once(':') else {
            continue;
        };
        let rest = rest.trim();
        match key {
            "test" => d.kinds.push(match rest {
                "verify" => Kind::Verify,
                "run" => Kind::Run,
                "gradient" => Kind::Gradient,
                _ => {
                    return Err((
                        number,
                        format!("unknown test `{rest}` (verify, run, gradient)"),
                    ))
                }
            }),
            "run" | "grad" => {
                let r = run_line(number, rest)?;
                if key == "run" {
                    d.runs.push(r)
                } else {
                    d.grads.push(r)
                }
            }
            "error" if code.is_empty() => {
                return Err((
                    number,
                    "an `error:` annotation goes at the end of the IR line it is about".into(),
                ));
            }
            // Several errors on one line: `; error: a ; error: b`.
            "error" => d
                .errors
                .entry(number)
                .or_default()
                .extend(rest.split("; error:").map(|e| e.trim().to_string())),
            _ => {}
        }
    }
    Ok(d)
}

fn run_line(line: u32, text: &str) -> Result<RunLine, (u32, String)> {
    if let Some((call, want)) = text.split_once(" == ") {
        return Ok(RunLine {
            line,
            call: call.trim().into(),
            expect: Expect::Value(want.trim().into()),
        });
    }
    if let Some((call, want)) = text.split_once(" ≈ ") {
        return Ok(RunLine {
            line,
            call: call.trim().into(),
            expect: Expect::Approx(want.trim().into()),
        });
    }
    let bad = || {
        (
            line,
            "expected `CALL == VALUE`, `CALL ≈ VALUE` or `CALL throws \"MESSAGE\" [at %n]`"
                .to_string(),
        )
    };
    let (call, rest) = text.split_once(" throws ").ok_or_else(bad)?;
    let rest = rest.trim().strip_prefix('"').ok_or_else(bad)?;
    let (message, tail) = rest.split_once('"').ok_or_else(bad)?;
    let at = match tail.trim() {
        "" => None,
        t => Some(t.strip_prefix("at ").ok_or_else(bad)?.trim().to_string()),
    };
    Ok(RunLine {
        line,
        call: call.trim().into(),
        expect: Expect::Throws {
            message: message.into(),
            at,
        },
    })
}

/// Line numbers of byte offsets.
struct LineIndex {
    starts: Vec<usize>,
    lines: Vec<String>,
}

impl LineIndex {
    fn new(text: &str) -> LineIndex {
        let mut starts = vec![0];
        starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        LineIndex {
            starts,
            lines: text.split('\n').map(str::to_string).collect(),
        }
    }

    /// The 1-based line holding byte `offset`.
    fn line(&self, offset: u32) -> u32 {
        self.starts.partition_point(|&s| s <= offset as usize) as u32
    }

    /// `%n` if the line holding `offset` defines it, else `line L`.
    fn site(&self, offset: u32) -> String {
        let l = self.line(offset);
        let code = self
            .lines
            .get(l as usize - 1)
            .map_or("", |s| s.trim_start());
        match code.split_once(" = ") {
            Some((v, _)) if v.starts_with('%') => v.to_string(),
            _ => format!("line {l}"),
        }
    }
}

/// Every violation matches an `error:` annotation on its line, and every annotation a
/// violation.
fn verify(module: &Module, d: &Directives, lines: &LineIndex) -> Result<(), (u32, String)> {
    let mut unmatched: BTreeMap<u32, Vec<&str>> = d
        .errors
        .iter()
        .map(|(l, es)| (*l, es.iter().map(String::as_str).collect()))
        .collect();
    for f in &module.functions {
        for v in zy_ir::violations(f) {
            let line = lines.line(location_offset(f, v.at));
            let message = v.to_string();
            let expected = unmatched.get_mut(&line);
            let hit = expected
                .as_ref()
                .and_then(|es| es.iter().position(|e| message.contains(e)));
            match (hit, expected) {
                (Some(k), Some(es)) => {
                    es.remove(k);
                }
                _ => {
                    return Err((
                        line,
                        format!("unexpected verifier error in `{}`: {message}", f.name),
                    ))
                }
            }
        }
    }
    match unmatched.into_iter().find(|(_, es)| !es.is_empty()) {
        Some((line, es)) => Err((
            line,
            format!("expected a verifier error containing `{}` here", es[0]),
        )),
        None => Ok(()),
    }
}

fn location_offset(f: &Function, at: Location) -> u32 {
    match at {
        Location::Function => f.span.start,
        Location::Value(v) => f
            .values
            .get(v.index())
            .map_or(f.span.start, |d| d.span.start),
        Location::Terminator(b) => f
            .blocks
            .get(b.index())
            .map_or(f.span.start, |d| d.term_span.start),
    }
}

/// The instance a call names (by function name and argument types) with its arguments.
fn resolve(module: &Module, call: &str) -> Result<(Arc<Instance>, Vec<Value>), String> {
    let (name, args) = values::call(call, &module.structs)?;
    let tys: Vec<zy_ir::Type> = args.iter().map(Value::julia_type).collect();
    let inst = module
        .functions
        .iter()
        .filter_map(|f| f.instance.clone())
        .find(|i| *i.name == name && *i.args == *tys)
        .ok_or_else(|| format!("no function `{name}` takes arguments of types {tys:?}"))?;
    Ok((inst, args))
}

/// Run `inst` on both engines: they agree, and the result is as expected.
fn check(
    prog: &TypedProgram,
    inst: &Instance,
    args: Vec<Value>,
    want: &Expect,
    lines: &LineIndex,
    structs: &[Arc<zy_ir::StructType>],
) -> Result<(), String> {
    let limits = Limits {
        deadline: Some(std::time::Instant::now() + std::time::Duration::from_secs(20)),
        ..Limits::default()
    };
    let by_interp = zy_interp::run(prog, inst, args.iter().map(deep_copy).collect(), &limits);
    let compiled = JitSession::new()
        .and_then(|mut s| s.compile(prog, inst))
        .map_err(|e| format!("the JIT declines: {e}"))?;
    let by_jit = compiled.call(&args, &limits);
    let render = |r: &Result<Value, RuntimeError>| match r {
        Ok(v) => zy_interp::show(v),
        Err(e) => format!("throws {:?} at {}", e.message, lines.site(e.span.start)),
    };
    let (interp, jit) = (render(&by_interp), render(&by_jit));
    if interp != jit {
        return Err(format!("the interpreter gives {interp} but the JIT {jit}"));
    }
    let ok = match (want, &by_interp) {
        (Expect::Value(text), Ok(v)) => {
            zy_interp::show(&values::value(text, structs)?) == zy_interp::show(v)
        }
        (Expect::Approx(text), Ok(v)) => values::close(&values::value(text, structs)?, v),
        (Expect::Throws { message, at }, Err(e)) => {
            e.message.starts_with(message.as_str())
                && at.as_ref().is_none_or(|a| *a == lines.site(e.span.start))
        }
        _ => false,
    };
    let wanted = match want {
        Expect::Value(v) => format!("== {v}"),
        Expect::Approx(v) => format!("≈ {v}"),
        Expect::Throws {
            message,
            at: Some(at),
        } => format!("throws {message:?} at {at}"),
        Expect::Throws { message, at: None } => format!("throws {message:?}"),
    };
    if ok {
        Ok(())
    } else {
        Err(format!("gives {interp}, not {wanted}"))
    }
}

/// Differentiate every function a `grad:` line names: the forward and pullback text against
/// the `gradient:` block, and each line's value and gradient on both engines.
fn gradients(
    path: &Path,
    text: &str,
    module: &Module,
    prog: &TypedProgram,
    d: &Directives,
    lines: &LineIndex,
) -> Result<(), (u32, String)> {
    let Some(first) = d.grads.first() else {
        return Err((1, "a gradient test needs a `; grad:` line".into()));
    };
    let mut printed: Vec<String> = Vec::new();
    for g in &d.grads {
        let (inst, args) = resolve(module, &g.call).map_err(|m| (g.line, m))?;
        let (driver, gprog) = zy_ad::gradient_program(prog, &inst)
            .map_err(|e| (g.line, format!("{}: {}", g.call, e.message)))?;
        for (k, f) in &gprog.functions {
            let generated = k.name.ends_with('⁺') || k.name.ends_with('⁻');
            let text = zy_ir::print_function(f);
            if generated && !prog.functions.contains_key(k) && !printed.contains(&text) {
                printed.push(text);
            }
        }
        check(&gprog, &driver, args, &g.expect, lines, &module.structs)
            .map_err(|m| (g.line, format!("gradient of {}: {m}", g.call)))?;
    }
    let actual = printed.join("\n");
    let expected = d.gradient.as_ref().map(|(_, body)| body.as_str());
    if expected == Some(actual.as_str()) {
        return Ok(());
    }
    if std::env::var_os("UPDATE_EXPECT").is_some() {
        std::fs::write(
            path,
            bless(text, d.gradient.as_ref().map(|(h, _)| *h), &actual),
        )
        .map_err(|e| (first.line, e.to_string()))?;
        return Ok(());
    }
    let line = d
        .gradient
        .as_ref()
        .map_or(first.line, |(h, _)| *h as u32 + 1);
    Err((line, format!("the forward and pullback functions differ from the `; gradient:` block (rerun with UPDATE_EXPECT=1 to update it):\n{actual}")))
}

/// `text` with the `; gradient:` block (whose header is line index `header`, or appended)
/// holding `body`.
fn bless(text: &str, header: Option<usize>, body: &str) -> String {
    let commented: Vec<String> = body
        .lines()
        .map(|l| {
            if l.is_empty() {
                ";".to_string()
            } else {
                format!("; {l}")
            }
        })
        .collect();
    let lines: Vec<&str> = text.lines().collect();
    let mut out: Vec<String> = Vec::new();
    match header {
        Some(h) => {
            let end = (h + 1..lines.len())
                .find(|&i| !lines[i].starts_with(';'))
                .unwrap_or(lines.len());
            out.extend(lines[..=h].iter().map(|s| s.to_string()));
            out.extend(commented);
            out.extend(lines[end..].iter().map(|s| s.to_string()));
        }
        None => {
            out.extend(lines.iter().map(|s| s.to_string()));
            if out.last().is_some_and(|l| !l.is_empty()) {
                out.push(String::new());
            }
            out.push("; gradient:".into());
            out.extend(commented);
        }
    }
    out.join("\n") + "\n"
}
