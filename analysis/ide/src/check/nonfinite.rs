//! `nonfinite-gradient`: the gradient at a `# zy: at` or `# zy: gradcheck` call holds NaN or
//! ±Inf although the call's arguments are finite. Reported where the first non-finite value was
//! born (see [`crate::nonfinite`]), or at the annotation when that is in another file.

use zy_hir::{RootDatabase, SourceFile};

use super::{diagnostic, Specialisation};
use crate::grad::Prepared;
use crate::locate::CallSite;
use crate::nonfinite::is_finite;
use crate::{Diagnostic, Engine, EvalLimits};

/// The stable code of these findings.
pub const NONFINITE_GRADIENT: &str = "nonfinite-gradient";

pub(crate) fn check(
    db: &RootDatabase,
    file: SourceFile,
    specs: &[Specialisation],
    limits: &EvalLimits,
) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for s in specs.iter().filter(|s| s.func.ret.is_differentiable()) {
        let site = CallSite::InFile {
            file,
            offset: s.call_start,
        };
        let Ok(prepared) = Prepared::new(db, file, &s.call, site, limits) else {
            continue;
        };
        // A call that fails is reported by the runtime check.
        let Ok((_, gradient)) = prepared.gradient(db, Engine::Jit) else {
            continue;
        };
        if gradient.iter().all(is_finite) {
            continue;
        }
        let Some(origin) = prepared.nonfinite_origin(db) else {
            continue;
        };
        let shown: Vec<String> = gradient.iter().map(zy_interp::show).collect();
        let (range, message) = match origin.range {
            (f, start, end) if f == file => (
                (start, end),
                format!(
                    "the gradient of `{}` is not finite ({}): {}",
                    s.call,
                    shown.join(", "),
                    origin.message
                ),
            ),
            _ => (
                (s.call_start, s.call_end),
                format!(
                    "the gradient of `{}` is not finite ({}): at {}:{}:{}, {}",
                    s.call,
                    shown.join(", "),
                    origin.file.display(),
                    origin.line,
                    origin.col,
                    origin.message
                ),
            ),
        };
        out.push(diagnostic(db, file, range, NONFINITE_GRADIENT, message));
    }
    out
}
