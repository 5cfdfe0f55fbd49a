//! Evaluating a call string in a file's definitions with the reference interpreter.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant};

use zy_hir::{RootDatabase, SourceFile};
use zy_ir::{Function, TypedProgram};

use crate::locate::{error_at, in_call, in_file, in_site, CallSite};
use crate::{Analysis, Cancellable, FileId, UserError};

/// Bounds on one evaluation.
#[derive(Clone, Debug)]
pub struct EvalLimits {
    /// The deepest call stack allowed, in frames.
    pub max_depth: usize,
    /// How long the run may take.
    pub timeout: Option<Duration>,
    /// Set from another thread to stop the run (by default: an edit to the host stops it,
    /// and the query returns `Cancelled`).
    pub cancel: Option<Arc<AtomicBool>>,
    /// The most memory the run may take, in bytes (the AD tape in both engines, every
    /// allocation in the JIT; see [`zy_interp::Limits::max_memory`]).
    pub max_memory: usize,
}

impl Default for EvalLimits {
    fn default() -> EvalLimits {
        EvalLimits {
            max_depth: zy_interp::MAX_DEPTH,
            timeout: Some(Duration::from_secs(10)),
            cancel: None,
            max_memory: zy_interp::MAX_MEMORY,
        }
    }
}

impl EvalLimits {
    /// The engines' limits for a run starting now.
    pub(crate) fn start(&self) -> zy_interp::Limits {
        zy_interp::Limits {
            max_depth: self.max_depth,
            deadline: self.timeout.map(|t| Instant::now() + t),
            cancel: self.cancel.clone(),
            max_memory: self.max_memory,
        }
    }
}

/// The value of a call.
#[derive(Clone, PartialEq, Debug)]
pub struct EvalResult {
    /// As Julia's `show` prints it.
    pub display: String,
    /// SPEC's JSON encoding (`"NaN"`, `"Inf"` as strings, matrices as arrays of rows).
    pub json: serde_json::Value,
    /// The Julia type of the value.
    pub ty: String,
}

impl Analysis {
    /// Evaluate `call` (a Julia expression, usually a call like `pow(2.0, 3)`) with the
    /// definitions of `file`'s workspace.
    pub fn eval(
        &self,
        file: FileId,
        call: &str,
        limits: EvalLimits,
    ) -> Cancellable<Result<EvalResult, UserError>> {
        let mut limits = limits;
        limits.cancel.get_or_insert_with(|| self.stale_flag());
        self.with_db(|db| {
            let r = eval(db, file.0, call, &limits);
            if r.is_err() {
                self.unwind_if_stale();
            }
            r
        })
    }
}

/// The first error that keeps `file`, or a file it sees, from being read at all (a syntax
/// error, an include that cannot be read), if any. An unsupported construct refuses only the
/// calls that reach its function.
pub(crate) fn load_error(db: &RootDatabase, file: SourceFile) -> Option<UserError> {
    let scope = zy_hir::scope_files(db, file);
    let others = scope.iter().copied().filter(|&f| f != file);
    std::iter::once(file).chain(others).find_map(|f| {
        zy_hir::fatal_errors(db, f)
            .first()
            .map(|d| in_file(db, f, d.start, d.message.clone()))
    })
}

pub(crate) fn eval(
    db: &RootDatabase,
    file: SourceFile,
    call: &str,
    limits: &EvalLimits,
) -> Result<EvalResult, UserError> {
    eval_at(db, file, call, CallSite::Text(call), None, limits).map_err(Failure::into_error)
}

/// Why an evaluation gave no value.
#[derive(Debug)]
pub(crate) struct Failure {
    /// Whose verdict it is.
    pub(crate) kind: FailureKind,
    pub(crate) error: UserError,
}

/// Whether a failure is what Julia does too, or where zy stops.
#[derive(Clone, PartialEq, Eq, Debug)]
pub(crate) enum FailureKind {
    /// An exception Julia raises too, of this type: a `MethodError` or `UndefVarError` found
    /// by inference, or an exception the run threw.
    Julia(zy_interp::ErrorKind),
    /// zy cannot run the call: a construct outside its subset (inference's `unsupported`, a
    /// call it cannot differentiate), a file it cannot read, a binding whose value top-level
    /// code it does not run changes ([`zy_hir::UNKNOWN_BINDING`]), an error of the engine
    /// itself (internal, its time or memory limit: [`zy_interp::ErrorKind::catchable`]).
    Zy,
}

impl Failure {
    /// A failure before the run, of inference's `code` (`method-error`, `unsupported`, ...;
    /// `load-error` for a file that cannot be read): Julia's where the code is one of the
    /// exceptions Julia raises.
    fn typing(code: &str, error: UserError) -> Failure {
        let kind = match code {
            "method-error" => FailureKind::Julia(zy_interp::ErrorKind::MethodError),
            "undefined-name" => FailureKind::Julia(zy_interp::ErrorKind::UndefVarError),
            _ => FailureKind::Zy,
        };
        Failure { kind, error }
    }

    /// Whose verdict the engine's error `e` of a run at `site` is: zy's for its own stops and
    /// for an `error("unsupported: ...")` of Julia's library (the prelude), where zy refuses
    /// what Julia's own library does.
    fn running(db: &RootDatabase, e: &zy_interp::RuntimeError, site: CallSite<'_>) -> FailureKind {
        let refused = e.kind == zy_interp::ErrorKind::ErrorException
            && e.message.starts_with("ErrorException: unsupported:")
            && crate::locate::in_library(db, e.span, site);
        match e.kind.catchable() && !refused && !e.message.contains(zy_hir::UNKNOWN_BINDING) {
            true => FailureKind::Julia(e.kind.clone()),
            false => FailureKind::Zy,
        }
    }

    /// The error, whatever stage it came from.
    pub(crate) fn into_error(self) -> UserError {
        self.error
    }
}

/// [`eval`] of `call` written at `site`, saying at which stage it failed; run as part of the
/// top-level statement `at` of `file`, if given (a test's text: [`zy_hir::type_call_to_run`]).
pub(crate) fn eval_at(
    db: &RootDatabase,
    file: SourceFile,
    call: &str,
    site: CallSite<'_>,
    at: Option<zy_hir::ItemId>,
    limits: &EvalLimits,
) -> Result<EvalResult, Failure> {
    if let Some(e) = load_error(db, file) {
        return Err(Failure::typing("load-error", e));
    }
    let expr = zy_syntax::parse_expr(call).map_err(|e| {
        Failure::typing("syntax-error", in_site(db, site, e.range.start, e.message))
    })?;
    let typed = zy_hir::type_call_to_run(db, file, zy_hir::MAIN, &expr, at).map_err(|errs| {
        match errs.0.into_iter().next() {
            Some(e) => Failure::typing(e.code, error_at(db, e.span, site, e.message)),
            None => Failure::typing(
                "internal-error",
                in_call(
                    call,
                    0,
                    "internal error: typing failed without a message".into(),
                ),
            ),
        }
    })?;
    let interp_limits = limits.start();
    // Julia's display of a value whose type has a `show` method of the program calls it: the
    // call runs once, giving the value and its text (`repr`); piped, the call keeps its
    // place in the text, where its errors are located.
    let shown = zy_infer::displays(&typed.key.index(db).program, &typed.body.ret);
    let typed = match shown {
        true => {
            let text = format!("{call} |> Base._with_repr");
            let wrapped = zy_syntax::parse_expr(&text).ok();
            let typed_text =
                wrapped.and_then(|e| zy_hir::type_call_to_run(db, file, zy_hir::MAIN, &e, at).ok());
            typed_text.ok_or(typed)
        }
        false => Err(typed),
    };
    let (typed, shown) = match typed {
        Ok(with_text) => (with_text, true),
        Err(plain) => (plain, false),
    };
    let (program, body) = expand(db, typed).map_err(|e| {
        Failure::typing("not-differentiable", error_at(db, e.span, site, e.message))
    })?;
    let value =
        zy_interp::run_function(&program, &body, Vec::new(), &interp_limits).map_err(|e| {
            Failure {
                kind: Failure::running(db, &e, site),
                error: crate::locate::runtime_error_at(db, e, site),
            }
        })?;
    match (shown, &value) {
        (true, zy_interp::Value::Tuple(parts)) => match &parts[..] {
            [value, zy_interp::Value::Str(text)] => Ok(EvalResult {
                display: text.to_string(),
                ..crate::grad::result(value)
            }),
            _ => Ok(crate::grad::result(&value)),
        },
        _ => Ok(crate::grad::result(&value)),
    }
}

/// The call's program and body with the differentiation builtins (`gradient`, `derivative`,
/// `pullback`) rewritten into calls of generated AD functions, as they must be before running.
pub(crate) fn expand(
    db: &RootDatabase,
    typed: zy_hir::TypedCall,
) -> Result<(TypedProgram, Arc<Function>), zy_ad::AdError> {
    let mut program = typed.program;
    program
        .globals
        .insert(zy_hir::CALL_NAME.into(), typed.body.clone());
    let rules = zy_hir::Rules::of(db, typed.key);
    let mut program = zy_ad::expand_with_rrules(&rules, &program)?;
    let body = program
        .globals
        .remove(zy_hir::CALL_NAME)
        .unwrap_or(typed.body);
    Ok((program, body))
}
