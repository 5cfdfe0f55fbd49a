//! The pipeline target's calls again through `zy_ide`, the whole pipeline with the bundled
//! prelude (ranges, slices, comprehensions, concatenation, `Iterators`, `Dict`, rationals,
//! LinearAlgebra...), which the engine-level stages run without. For each call: no message
//! starting with `internal error`; the gradient's value is `eval`'s, and it does not return
//! where `eval` throws (other than at the run's limits); the JIT's value and gradient are the
//! interpreter's (as Julia prints them); and where the input has no `rrule` and no loop that
//! branches, the gradient matches finite differences in each `Float64` argument or element of a
//! `Vector{Float64}` argument.

use std::path::Path;
use std::time::{Duration, Instant};

use zy_ide::{Analysis, AnalysisHost, Engine, EvalLimits, EvalResult, FileId, UserError};
use zy_interp::fd::{Fd, Verdict};

/// One run (eval, or the gradient on one engine).
const RUN_TIME: Duration = Duration::from_millis(20);
/// The deepest call stack of a run.
const MAX_DEPTH: usize = 200;

/// An input loaded into its own analysis host.
pub struct Host {
    /// Kept alive beside its snapshot.
    _host: AnalysisHost,
    analysis: Analysis,
    file: FileId,
    /// Are finite differences of the input's functions their derivative? Not with an in-source
    /// `rrule` (which may disagree with the code on purpose) nor with a loop that branches
    /// (a bisection is differentiated step by step, which finite differences do not see).
    smooth: bool,
}

impl Host {
    /// A host whose one file, `fuzz.jl`, holds `text`.
    pub fn new(text: &str) -> Host {
        let mut host = AnalysisHost::new();
        let file = host.set_file_text(Path::new("fuzz.jl"), text.to_string());
        let branches = ["if", "?", "&&", "||", "break", "min", "max"]
            .iter()
            .any(|b| text.contains(b));
        let smooth = !text.contains("rrule")
            && !text.contains("while")
            && !(text.contains("for") && branches);
        Host {
            analysis: host.analysis(),
            _host: host,
            file,
            smooth,
        }
    }

    /// `name(args...)`: evaluated, differentiated by both engines, and compared.
    pub fn call(&self, name: &str, args: &[String], deadline: Instant) {
        let call = call_text(name, args);
        let Some(value) = self.eval(&call, deadline) else {
            return;
        };
        let Some(interp) = self.grad(&call, Engine::Interp, deadline) else {
            return;
        };
        let ok = match (&value, &interp) {
            (Ok(value), Ok(grad)) => {
                assert_eq!(value, grad.value(), "{call}: the gradient's value differs");
                true
            }
            (Err(e), Ok(grad)) => {
                assert!(
                    is_limit(e),
                    "{call}: eval throws `{e}`, the gradient returns {}",
                    grad.value().display
                );
                false
            }
            _ => false,
        };
        let Some(jit) = self.grad(&call, Engine::Jit, deadline) else {
            return;
        };
        match (&interp, &jit) {
            (Ok(interp), Ok(jit)) => {
                assert_eq!(interp.value(), jit.value(), "{call}: the JIT's value differs");
                assert_eq!(
                    interp.gradient(),
                    jit.gradient(),
                    "{call}: the JIT's gradient differs"
                );
            }
            (Ok(_), Err(e)) | (Err(e), Ok(_)) => assert!(
                is_limit(e),
                "{call}: one engine throws `{e}`, the other returns"
            ),
            (Err(_), Err(_)) => {}
        }
        if let (true, true, Ok(value), Ok(grad)) = (self.smooth, ok, &value, &interp) {
            self.check_derivatives(name, args, value, grad.gradient(), deadline);
        }
    }

    /// `eval` of `call`, `None` when it is cancelled or out of time.
    fn eval(&self, call: &str, deadline: Instant) -> Option<Result<EvalResult, UserError>> {
        let r = self.analysis.eval(self.file, call, limits(deadline)?).ok()?;
        if let Err(e) = &r {
            check(call, e);
        }
        Some(r)
    }

    /// The gradient of `call` on `engine`, `None` when it is cancelled or out of time.
    fn grad(
        &self,
        call: &str,
        engine: Engine,
        deadline: Instant,
    ) -> Option<Result<zy_ide::GradResult, UserError>> {
        let r = self
            .analysis
            .grad(self.file, call, limits(deadline)?, engine)
            .ok()?;
        if let Err(e) = &r {
            check(call, e);
        }
        Some(r)
    }

    /// The gradient of a call of value `value` against finite differences ([`Fd::FUZZ`]) in
    /// each `Float64` leaf of its arguments, when the value is a moderate `Float64`.
    fn check_derivatives(
        &self,
        name: &str,
        args: &[String],
        value: &EvalResult,
        gradient: &[EvalResult],
        deadline: Instant,
    ) {
        let Some(y) = value.json.as_f64().filter(|y| y.is_finite() && y.abs() <= 1e6) else {
            return;
        };
        if value.ty != "Float64" {
            return;
        }
        for leaf in leaves(args) {
            let Some(g) = gradient_at(gradient, leaf) else {
                continue;
            };
            let x = leaf.value;
            let at = |d: f64| -> Result<f64, ()> {
                let moved = call_text(name, &leaf.moved(args, x + d));
                match self.eval(&moved, deadline) {
                    Some(Ok(r)) => r.json.as_f64().ok_or(()),
                    _ => Err(()),
                }
            };
            if let Ok(Verdict::Differs { fd }) = Fd::FUZZ.check(g, x, Some(y), at) {
                let call = call_text(name, args);
                panic!("{call}: derivative in {leaf:?} is {g}, finite differences give {fd}");
            }
        }
    }
}

/// `name(args...)` as text.
fn call_text(name: &str, args: &[String]) -> String {
    format!("{name}({})", args.join(", "))
}

/// The limits of one run, or `None` when the input's time is up.
fn limits(deadline: Instant) -> Option<EvalLimits> {
    let left = deadline.checked_duration_since(Instant::now())?;
    Some(EvalLimits {
        max_depth: MAX_DEPTH,
        timeout: Some(RUN_TIME.min(left)),
        ..EvalLimits::default()
    })
}

/// Fails the run if `e` reports a broken invariant rather than a user error.
fn check(call: &str, e: &UserError) {
    assert!(!e.message.starts_with("internal error"), "{call}: {e}");
}

/// Is this error the run's limits (time, stack depth, memory) rather than the program's own?
fn is_limit(e: &UserError) -> bool {
    ["InterruptException", "StackOverflowError", "OutOfMemoryError"]
        .iter()
        .any(|limit| e.message.contains(limit))
}

/// A `Float64` in the arguments: a scalar argument (`elem` is `None`) or an element of a
/// vector literal.
#[derive(Clone, Copy, Debug)]
struct Leaf {
    arg: usize,
    elem: Option<usize>,
    value: f64,
}

impl Leaf {
    /// The arguments with this leaf set to `x`.
    fn moved(&self, args: &[String], x: f64) -> Vec<String> {
        let mut out = args.to_vec();
        let x = zy_ir::julia_float(x);
        out[self.arg] = match self.elem {
            None => x,
            Some(elem) => {
                let mut elems = vector_elems(&args[self.arg]).unwrap_or_default();
                elems[elem] = x;
                format!("[{}]", elems.join(", "))
            }
        };
        out
    }
}

/// The elements of a vector literal `[a, b, ...]`.
fn vector_elems(arg: &str) -> Option<Vec<String>> {
    let inner = arg.strip_prefix('[')?.strip_suffix(']')?;
    if inner.contains(';') || inner.contains('[') {
        return None;
    }
    Some(inner.split(", ").map(String::from).collect())
}

/// A `Float64` literal (with a decimal point: `3` is an `Int64`).
fn float_literal(text: &str) -> Option<f64> {
    text.contains('.').then(|| text.parse().ok()).flatten()
}

/// The `Float64` leaves of `args`.
fn leaves(args: &[String]) -> Vec<Leaf> {
    let mut out = Vec::new();
    for (arg, text) in args.iter().enumerate() {
        if let Some(value) = float_literal(text) {
            out.push(Leaf {
                arg,
                elem: None,
                value,
            });
        } else if let Some(elems) = vector_elems(text) {
            for (elem, e) in elems.iter().enumerate() {
                if let Some(value) = float_literal(e) {
                    out.push(Leaf {
                        arg,
                        elem: Some(elem),
                        value,
                    });
                }
            }
        }
    }
    out
}

/// The gradient's entry for `leaf` (`nothing` is a zero).
fn gradient_at(gradient: &[EvalResult], leaf: Leaf) -> Option<f64> {
    let g = &gradient.get(leaf.arg)?.json;
    let g = match leaf.elem {
        None => g,
        Some(elem) => g.as_array()?.get(elem)?,
    };
    if g.is_null() {
        Some(0.0)
    } else {
        g.as_f64()
    }
}
