//! Diagnostics of a file in editor vocabulary.

use crate::{Analysis, Cancellable, FileId};

/// How serious a finding is.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Severity {
    Error,
    Warning,
}

impl Severity {
    /// `error` or `warning`.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        }
    }
}

/// One finding in a file.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Diagnostic {
    /// Byte offsets in the file.
    pub start: u32,
    pub end: u32,
    /// 1-based line and character column of `start`.
    pub line: u32,
    pub col: u32,
    /// Stable code (`syntax-error`, `unsupported`, `type-conflict`, ...).
    pub code: String,
    pub message: String,
    pub severity: Severity,
}

impl Analysis {
    /// Syntax, lowering and `# zy: at` type errors of `file`, sorted by position.
    pub fn diagnostics(&self, file: FileId) -> Cancellable<Vec<Diagnostic>> {
        self.with_db(|db| {
            zy_hir::diagnostics(db, file.0)
                .iter()
                .map(|d| {
                    let lc = zy_hir::line_col(db, file.0, d.start);
                    Diagnostic {
                        start: d.start,
                        end: d.end,
                        line: lc.line,
                        col: lc.col,
                        code: d.code.clone(),
                        message: d.message.clone(),
                        severity: Severity::Error,
                    }
                })
                .collect()
        })
    }
}
