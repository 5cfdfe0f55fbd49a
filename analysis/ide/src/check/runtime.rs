//! Run-time errors of the `# zy: at` calls: the call a function is shown at must run. A call
//! that types but throws (an index out of bounds, a domain error, a runaway loop stopped by the
//! time limit) is reported where it throws, or at the function when that is in another file.

use zy_hir::{RootDatabase, SourceFile};

use crate::outline::outline;
use crate::{Diagnostic, EvalLimits, Severity};

/// The stable code of these findings.
pub(crate) const RUNTIME_ERROR: &str = "runtime-error";

pub(crate) fn check(db: &RootDatabase, file: SourceFile, limits: &EvalLimits) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for f in outline(db, file) {
        let Some(call) = f.at_call else { continue };
        let Ok(expr) = zy_syntax::parse_expr(&call) else {
            continue;
        };
        if zy_hir::type_call(db, file, &expr).is_err() {
            continue; // a type error, reported as such
        }
        let Err(e) = crate::eval::eval(db, file, &call, limits) else {
            continue;
        };
        let here = &e.file == file.path(db);
        let at = zy_hir::LineCol {
            line: e.line,
            col: e.col,
        };
        let (start, end, message) = match zy_hir::offset_of(db, file, at).filter(|_| here) {
            Some(at) => (
                at,
                word_end(file.text(db), at),
                format!("`{call}` throws: {}", e.message),
            ),
            None => (
                f.name_start,
                f.name_end,
                format!(
                    "`{call}` throws at {}:{}:{}: {}",
                    e.file.display(),
                    e.line,
                    e.col,
                    e.message
                ),
            ),
        };
        let range = (start, end);
        out.push(Diagnostic::at(
            db,
            file,
            range,
            RUNTIME_ERROR,
            message,
            Severity::Error,
        ));
    }
    out
}

/// The end of the expression-ish word starting at `at` (at least one character).
fn word_end(text: &str, at: u32) -> u32 {
    let rest = text.get(at as usize..).unwrap_or_default();
    let len: usize = rest
        .chars()
        .take_while(|c| c.is_alphanumeric() || "_[]().,'".contains(*c))
        .map(char::len_utf8)
        .sum();
    at + len.max(rest.chars().next().map_or(0, char::len_utf8)) as u32
}
