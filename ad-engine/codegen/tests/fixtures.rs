//! The differential test: every call named in an expectation of the fixtures runs in the JIT
//! and in the interpreter, primal and gradient, with the same result or the same error (message
//! and span), bit for bit. Source is parsed, lowered and inferred as the tools do.
//!
//! And the property test: every differentiated fixture call, at random points near its own
//! arguments, on both engines (bit for bit) and against central finite differences.

use crate::support;

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
        // Strings and symbols known only at run time are the interpreter's by design.
        Err(JitError::Interpreted(_)) => return Ok(Outcome::Agreed),
        Err(e) => return Ok(Outcome::Declined(e)),
    };
    let limits = Limits {
        deadline: Some(std::time::Instant::now() + std::time::Duration::from_secs(5)),
        ..Limits::default()
    };
    let copies: Vec<Value> = args.iter().map(deep_copy).collect();
    let again: Vec<Value> = args.iter().map(deep_copy).collect();
    let shown = |vs: &[Value]| vs.iter().map(zy_interp::show).collect::<Vec<_>>();
    let before = shown(&args);
    let by_jit = render(&compiled.call(&args, &limits));
    let by_interp = render(&zy_interp::run(prog, inst, copies, &limits));
    if by_jit == by_interp {
        // The second run of a bound call finds the first's tape buffers in its arena, so its
        // counted loops take their unchecked copies: the same result, unless the call changed
        // its arguments (which the second run then reads).
        let rerun = render(&run_twice(&compiled, &again, &limits));
        if shown(&args) == before && rerun != by_jit {
            return Err(format!("{what}: JIT {by_jit} but {rerun} when run again"));
        }
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

/// The second of two runs of one bound call of `f`.
fn run_twice(
    f: &zy_codegen::CompiledFn,
    args: &[Value],
    limits: &Limits,
) -> Result<Value, zy_interp::RuntimeError> {
    let mut call = f.bind(args, limits)?;
    call.run()?;
    call.run()?;
    call.result()
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
    // Calls of `gradient`, `derivative`, ... in the code become calls of generated functions,
    // the file's `rrule`s and `frule`s applying as in the pipeline; a call the AD refuses to
    // expand is the front end's error, not the engines'.
    let source = zy_lower::lower_file(0, &zy_syntax::parse_file(&wrapped)).program;
    let prog =
        zy_ad::expand_with_rrules(&source, &prog).map_err(|e| format!("{call}: {}", e.message))?;
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

/// Runs `f` on a thread with a stack as large as the tools give analyses (1 GiB, reserved, not
/// used, until reached): typing and running the fixtures follows their chains of calls (a
/// countdown through 256 specialisations, a 20,000-deep recursion).
fn on_analysis_stack(f: impl FnOnce() + Send + 'static) {
    let joined = std::thread::Builder::new()
        .stack_size(1 << 30)
        .spawn(f)
        .expect("spawning the test's thread")
        .join();
    if let Err(panic) = joined {
        std::panic::resume_unwind(panic);
    }
}

#[test]
fn jit_agrees_with_the_interpreter_on_every_fixture() {
    on_analysis_stack(jit_agrees_with_the_interpreter);
}

fn jit_agrees_with_the_interpreter() {
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
    // The JIT leaves to the interpreter here only a construct the AD does not expand (vectors
    // of arrays, structs and tuples compile: `layout::Elem`).
    let unexpected: Vec<&String> = declined
        .iter()
        .filter(|d| !d.contains("`hessian`"))
        .collect();
    assert!(unexpected.is_empty(), "the JIT declined: {unexpected:#?}");
}

#[test]
fn a_counted_loop_that_pushes_runs_unchecked_once_its_tape_has_room() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/loops.jl");
    let text = std::fs::read_to_string(path).expect("loops.jl");
    let tys = [zy_ir::Type::Float64, zy_ir::Type::Int64];
    let (inst, prog) = typed(&text, "triangle", &tys).expect("types");
    let (driver, prog) = zy_ad::gradient_program(&prog, &inst).expect("differentiable");
    let clif = zy_codegen::clif_text(&prog, &driver).expect("compiles");
    assert!(
        clif.contains(") compiled twice: its pushes unchecked"),
        "{clif}"
    );
    let f = JitSession::new()
        .and_then(|mut s| s.compile(&prog, &driver))
        .expect("compiles");
    let limits = Limits::default();
    let args = [Value::F64(0.5), Value::Int(40)];
    let want = render(&zy_interp::run(&prog, &driver, args.to_vec(), &limits));
    assert!(want.starts_with("(79.0"), "{want}");
    // The first run grows the tape (the inner loop's entries that find no room check each
    // push); the later ones find the room left by the first and skip the checks.
    let mut call = f.bind(&args, &limits).expect("binds");
    for _ in 0..3 {
        call.run().expect("runs");
        assert_eq!(render(&call.result()), want);
    }
}

/// The calls a fixture differentiates: `# expect grad:` lines and the `# zy: at` and
/// `# zy: gradcheck` annotations.
fn differentiated_calls(text: &str) -> BTreeSet<String> {
    let mut calls = BTreeSet::new();
    for line in text.lines().map(str::trim_start) {
        if let Some(rest) = line.strip_prefix("# expect grad: ") {
            if let Some((call, _)) = rest.rsplit_once(" => ") {
                calls.insert(call.trim().to_string());
            }
        }
        for tag in ["# zy: at ", "# zy: gradcheck "] {
            if let Some(call) = line.strip_prefix(tag) {
                calls.insert(call.trim().to_string());
            }
        }
    }
    calls
}

/// A deterministic stream of numbers in [-1, 1) (xorshift), seeded per call.
struct Noise(u64);

impl Noise {
    fn for_call(call: &str) -> Noise {
        let seed = call.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
        });
        Noise(seed | 1)
    }

    fn next(&mut self) -> f64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 11) as f64 / (1u64 << 52) as f64 - 1.0
    }
}

/// A copy of `v` whose Float64 leaves (in order) are replaced by `leaf(old)`.
fn map_leaves(v: &Value, leaf: &mut dyn FnMut(f64) -> f64) -> Value {
    use std::cell::RefCell;
    use std::rc::Rc;
    match v {
        Value::F64(x) => Value::F64(leaf(*x)),
        Value::Tuple(vs) => Value::Tuple(vs.iter().map(|x| map_leaves(x, leaf)).collect()),
        Value::NamedTuple(n, vs) => {
            Value::NamedTuple(n.clone(), vs.iter().map(|x| map_leaves(x, leaf)).collect())
        }
        Value::Struct(t, vs) => {
            Value::Struct(t.clone(), vs.iter().map(|x| map_leaves(x, leaf)).collect())
        }
        Value::Mutable(t, c) => Value::Mutable(
            t.clone(),
            Rc::new(RefCell::new(
                c.borrow().iter().map(|x| map_leaves(x, leaf)).collect(),
            )),
        ),
        Value::Ref(c) => Value::Ref(Rc::new(RefCell::new(map_leaves(&c.borrow(), leaf)))),
        Value::Array(a) | Value::Adjoint(a) => {
            let mut arr = a.borrow().clone();
            if let zy_interp::ArrayData::F64(xs) = &mut arr.data {
                for x in xs.iter_mut() {
                    *x = leaf(*x);
                }
            }
            let fresh = Rc::new(RefCell::new(arr));
            match v {
                Value::Adjoint(_) => Value::Adjoint(fresh),
                _ => Value::Array(fresh),
            }
        }
        other => deep_copy(other),
    }
}

/// The Float64 leaves of `v`, in the order [`map_leaves`] visits them.
fn leaves(v: &Value) -> Vec<f64> {
    let mut out = Vec::new();
    map_leaves(v, &mut |x| {
        out.push(x);
        x
    });
    out
}

/// `args` with leaf `k` of argument `i` moved by `h`.
fn moved(args: &[Value], i: usize, k: usize, h: f64) -> Vec<Value> {
    let mut at = 0;
    args.iter()
        .enumerate()
        .map(|(j, a)| {
            if j != i {
                return deep_copy(a);
            }
            map_leaves(a, &mut |x| {
                at += 1;
                if at - 1 == k {
                    x + h
                } else {
                    x
                }
            })
        })
        .collect()
}

/// What the finite-difference check of one leaf found.
enum Leaf {
    Agrees,
    /// The one-sided differences disagree: a kink (or a jump) at this point.
    NotSmooth,
    Differs(String),
}

/// The AD derivative `ad` of `f` along leaf `k` of argument `i` against central differences:
/// the best of several steps (and their Richardson extrapolation) must be within a relative
/// 1e-6 of it, the tolerance of zy's other finite-difference checks: central differences of a
/// smooth function at these steps and magnitudes are that accurate, and a wrong rule is off
/// by far more. A point where forward and backward differences disagree at every step by more
/// than 1e-3 (relative) is not smooth and is skipped, rather than loosening the tolerance.
fn check_leaf(
    f: &dyn Fn(&[Value]) -> Option<f64>,
    args: &[Value],
    i: usize,
    k: usize,
    x: f64,
    ad: f64,
) -> Leaf {
    let Some(y0) = f(args) else {
        return Leaf::NotSmooth;
    };
    let scale = x.abs().max(1.0);
    let mut best = f64::INFINITY;
    let mut smooth = false;
    for h in [1e-3, 1e-4, 1e-5, 1e-6].map(|h| h * scale) {
        let at = |h: f64| f(&moved(args, i, k, h));
        let (Some(p1), Some(m1), Some(p2), Some(m2)) = (at(h), at(-h), at(h / 2.0), at(-h / 2.0))
        else {
            return Leaf::NotSmooth;
        };
        let (fwd, bwd) = ((p1 - y0) / h, (y0 - m1) / h);
        smooth |= (fwd - bwd).abs() <= 1e-3 * fwd.abs().max(bwd.abs()).max(1.0);
        let (d1, d2) = ((p1 - m1) / (2.0 * h), (p2 - m2) / h);
        for fd in [d1, d2, (4.0 * d2 - d1) / 3.0] {
            best = best.min((fd - ad).abs() / ad.abs().max(1.0));
        }
    }
    if !smooth {
        Leaf::NotSmooth
    } else if best <= 1e-6 {
        Leaf::Agrees
    } else {
        Leaf::Differs(format!(
            "AD {ad} vs finite differences (relative error {best:e})"
        ))
    }
}

/// Counts of one run of [`gradients_near_fixture_points`].
#[derive(Default)]
struct Tally {
    calls: usize,
    points: usize,
    leaves: usize,
    not_smooth: usize,
}

/// Differentiate `call` of `text` at `POINTS` random points near its own arguments: both
/// engines must agree bit for bit, and sampled leaves must match finite differences.
fn gradients_near(text: &str, call: &str, tally: &mut Tally) -> Result<(), String> {
    // A file that needs the prelude may build its arguments with it (`reshape(collect(1.0:12.0),
    // 2, 3, 2)`), which this prelude-free typing cannot: `tests/tests/fixtures.rs` runs those
    // calls through the whole pipeline.
    let needs_prelude = text.lines().any(|l| l.starts_with("# needs: prelude"));
    const POINTS: usize = 3;
    const LEAVES: usize = 6;
    let expr = zy_syntax::parse_expr(call).map_err(|e| e.message)?;
    let ExprKind::Call { callee, args } = &expr.kind else {
        return Ok(());
    };
    let ExprKind::Ident(name) = &callee.kind else {
        return Ok(());
    };
    let mut values = Vec::new();
    for (k, a) in args.iter().enumerate() {
        let arg_text = &call[a.range.start as usize..a.range.end as usize];
        let wrapper = format!("__prop_arg{k}__");
        let (inst, prog) = match typed(&with_wrapper(text, &wrapper, arg_text), &wrapper, &[]) {
            Ok(typed) => typed,
            Err(_) if needs_prelude => return Ok(()),
            Err(e) => return Err(e),
        };
        let prog = zy_ad::expand(&prog).map_err(|e| e.message)?;
        values
            .push(zy_interp::run(&prog, &inst, vec![], &Limits::default()).map_err(|e| e.message)?);
    }
    let tys: Vec<zy_ir::Type> = values.iter().map(Value::julia_type).collect();
    let src = zy_syntax::parse_file(text);
    let source = zy_lower::lower_file(0, &src).program;
    let Ok((inst, prog)) = zy_infer::infer_entry(&source, name, &tys) else {
        return Ok(());
    };
    if inst.args.len() != values.len() {
        return Ok(()); // a global bound to a closure: the callee is a hidden argument
    }
    let prog = zy_ad::expand_with_rrules(&source, &prog).map_err(|e| e.message)?;
    let Ok((driver, gprog)) = zy_ad::gradient_program_with_rrules(&source, &prog, &inst) else {
        return Ok(()); // not differentiable (a vector result): other tests say why
    };
    tally.calls += 1;
    let limits = Limits {
        deadline: Some(std::time::Instant::now() + std::time::Duration::from_secs(60)),
        ..Limits::default()
    };
    let compile =
        |p: &TypedProgram, i: &Instance| JitSession::new().and_then(|mut j| j.compile(p, i)).ok();
    let (jit_grad, jit_primal) = (compile(&gprog, &driver), compile(&prog, &inst));
    let primal = |args: &[Value]| -> Option<f64> {
        let copies: Vec<Value> = args.iter().map(deep_copy).collect();
        let r = match &jit_primal {
            Some(f) => f.call(&copies, &limits),
            None => zy_interp::run(&prog, &inst, copies, &limits),
        };
        r.ok().and_then(|v| v.as_f64()).filter(|y| y.is_finite())
    };
    let mut noise = Noise::for_call(call);
    for _ in 0..POINTS {
        let point: Vec<Value> = values
            .iter()
            .map(|v| map_leaves(v, &mut |x| x + 0.05 * x.abs().max(0.1) * noise.next()))
            .collect();
        let copies = |xs: &[Value]| xs.iter().map(deep_copy).collect::<Vec<_>>();
        let by_interp = zy_interp::run(&gprog, &driver, copies(&point), &limits);
        if by_interp
            .as_ref()
            .is_err_and(|e| e.message.starts_with("InterruptException"))
        {
            continue; // the interpreter (a debug build) is too slow for this call here
        }
        if let Some(f) = &jit_grad {
            let by_jit = render(&f.call(&copies(&point), &limits));
            if by_jit != render(&by_interp) {
                return Err(format!(
                    "JIT {by_jit} but interpreter {}",
                    render(&by_interp)
                ));
            }
        }
        let Ok(Value::Tuple(parts)) = by_interp else {
            continue;
        };
        let Some(Value::Tuple(grads)) = parts.get(1) else {
            continue;
        };
        if primal(&point).is_none() {
            continue; // outside the function's domain, or not finite
        }
        tally.points += 1;
        for (i, a) in point.iter().enumerate() {
            let xs = leaves(a);
            let gs = grads.get(i).map(leaves).unwrap_or_default();
            if gs.len() != xs.len() {
                continue; // `nothing`: no gradient reaches the argument
            }
            let picks: Vec<usize> = if xs.len() <= LEAVES {
                (0..xs.len()).collect()
            } else {
                (0..LEAVES)
                    .map(|_| ((noise.next() + 1.0) / 2.0 * xs.len() as f64) as usize % xs.len())
                    .collect()
            };
            for k in picks {
                match check_leaf(&primal, &point, i, k, xs[k], gs[k]) {
                    Leaf::Agrees => tally.leaves += 1,
                    Leaf::NotSmooth => tally.not_smooth += 1,
                    Leaf::Differs(why) => {
                        return Err(format!(
                            "argument {} leaf {k} at {}: {why}",
                            i + 1,
                            render(&Ok(a.clone()))
                        ));
                    }
                }
            }
        }
    }
    Ok(())
}

/// The standing defence of issue 17: every fixture function that is differentiated (by an
/// expectation or an annotation), at random points near its fixture's arguments, on both
/// engines (which must agree bit for bit) and against central finite differences.
#[test]
fn fixture_gradients_near_their_points_match_finite_differences_on_both_engines() {
    on_analysis_stack(gradients_near_fixture_points);
}

fn gradients_near_fixture_points() {
    let mut tally = Tally::default();
    let mut failures = Vec::new();
    for path in fixture_files()
        .into_iter()
        .filter(|p| !p.to_string_lossy().contains("/errors/"))
    {
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        // Calls with keywords, varargs or splats, laid out as the CLI lays them out:
        // `tests/tests/fixtures.rs` runs them through the whole pipeline.
        if text.lines().any(|l| l.starts_with("# needs: pipeline")) {
            continue;
        }
        let file = path
            .file_name()
            .map(|f| f.to_string_lossy().to_string())
            .unwrap_or_default();
        for call in differentiated_calls(&text) {
            if let Err(e) = gradients_near(&text, &call, &mut tally) {
                failures.push(format!("{file}: {call}: {e}"));
            }
        }
    }
    eprintln!(
        "{} calls, {} points, {} leaves agree with finite differences, {} not smooth (skipped)",
        tally.calls, tally.points, tally.leaves, tally.not_smooth
    );
    assert!(
        tally.calls > 100 && tally.leaves > 300,
        "too little checked"
    );
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
