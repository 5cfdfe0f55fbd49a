//! `∂ compute derivative`: the value and the derivative of a call `f(x)` of a function of one
//! Float64 argument, by forward mode (the pushforward along `1.0`) in the interpreter.

use zy_hir::RootDatabase;
use zy_interp::Value;
use zy_ir::Type;

use crate::grad::{result, returned_invoke, Prepared};
use crate::locate::{in_site, CallSite};
use crate::{Analysis, Cancellable, EvalLimits, EvalResult, FileId, UserError};

/// The value of a call `f(x)` and its derivative `df/dx` (a number, or an array of the
/// result's shape).
#[derive(Clone, Debug)]
pub struct DerivativeResult {
    pub value: EvalResult,
    pub derivative: EvalResult,
}

impl Analysis {
    /// Does `call` (a `# zy: at` call) call a function of exactly one Float64 argument? (The
    /// functions the derivative lens is shown for.)
    pub fn takes_one_float(&self, file: FileId, call: &str) -> Cancellable<bool> {
        self.with_db(|db| {
            let Ok(expr) = zy_syntax::parse_expr(call) else {
                return false;
            };
            let Ok(typed) = zy_hir::type_call(db, file.0, &expr) else {
                return false;
            };
            returned_invoke(&typed.body).is_some_and(|i| *i.args == [Type::Float64])
        })
    }

    /// The value of `call` (`f(x)` for a function of one Float64 argument) and its derivative,
    /// by forward mode.
    pub fn derivative(
        &self,
        file: FileId,
        call: &str,
        limits: EvalLimits,
    ) -> Cancellable<Result<DerivativeResult, UserError>> {
        let mut limits = limits;
        limits.cancel.get_or_insert_with(|| self.stale_flag());
        self.with_db(|db| {
            let r = derivative(db, file, call, &limits);
            if r.is_err() {
                self.unwind_if_stale();
            }
            r
        })
    }
}

fn derivative(
    db: &RootDatabase,
    file: FileId,
    call: &str,
    limits: &EvalLimits,
) -> Result<DerivativeResult, UserError> {
    if let Some(e) = crate::eval::load_error(db, file.0) {
        return Err(e);
    }
    let site = CallSite::Text(call);
    let prepared = Prepared::new(db, file.0, call, site, limits)?;
    if prepared.arg_types() != [Type::Float64] {
        let message = format!(
            "the derivative needs a function of one Float64 argument; this call passes ({})",
            prepared
                .arg_types()
                .iter()
                .map(|t| t.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        );
        return Err(in_site(db, site, 0, message));
    }
    let mut args = prepared.arguments(db)?;
    args.push(Value::F64(1.0));
    match prepared.pushforward(db, args)? {
        Value::Tuple(pair) if pair.len() == 2 => Ok(DerivativeResult {
            value: result(&pair[0]),
            derivative: result(&pair[1]),
        }),
        other => Err(in_site(
            db,
            site,
            0,
            format!(
                "internal error: the pushforward returned {}",
                zy_interp::show(&other)
            ),
        )),
    }
}
