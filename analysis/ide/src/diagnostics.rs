//! Diagnostics of a file in editor vocabulary.

use std::time::Duration;

use zy_hir::{RootDatabase, SourceFile};

use crate::check::FileConfig;
use crate::{Analysis, Cancellable, EvalLimits, FileId};

/// How serious a finding is.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Severity {
    Error,
    Warning,
    /// Information that fails nothing (a top-level statement zy skips).
    Note,
}

impl Severity {
    /// `error`, `warning` or `note`.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Note => "note",
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
    /// Other locations that explain the finding (the rule a wrong gradient comes from).
    pub related: Vec<crate::Related>,
}

impl Diagnostic {
    /// A finding with `code` and `severity` over the byte range `start..end` of `file`,
    /// located by line and column, with nothing related.
    pub(crate) fn at(
        db: &RootDatabase,
        file: SourceFile,
        (start, end): (u32, u32),
        code: &str,
        message: String,
        severity: Severity,
    ) -> Diagnostic {
        let lc = zy_hir::line_col(db, file, start);
        Diagnostic {
            start,
            end,
            line: lc.line,
            col: lc.col,
            code: code.to_string(),
            message,
            severity,
            related: Vec::new(),
        }
    }
}

impl Analysis {
    /// Syntax, lowering and `# zy: at` type errors of `file`, and the lints (at their default
    /// levels, without those a `# zy: allow(CODE)` comment suppresses), sorted by position.
    pub fn diagnostics(&self, file: FileId) -> Cancellable<Vec<Diagnostic>> {
        let limits = EvalLimits {
            timeout: Some(LINT_TIME),
            cancel: Some(self.stale_flag()),
            ..EvalLimits::default()
        };
        self.with_db(|db| {
            let mut found = errors(db, file.0);
            found.extend(crate::check::lints(
                db,
                file.0,
                &limits,
                crate::check::DEFAULT_RTOL,
            ));
            self.unwind_if_stale();
            crate::check::finish(db, file.0, found, &FileConfig::default())
        })
    }

    /// The syntax errors of `file` alone (what the editor shows for a file too large to
    /// analyse on every edit): a parse, no lowering or typing.
    pub fn syntax_diagnostics(&self, file: FileId) -> Cancellable<Vec<Diagnostic>> {
        self.with_db(|db| {
            zy_hir::parse(db, file.0)
                .errors
                .iter()
                .map(|e| {
                    let range = (e.range.start, e.range.end);
                    Diagnostic::at(
                        db,
                        file.0,
                        range,
                        e.code,
                        e.message.clone(),
                        Severity::Error,
                    )
                })
                .collect()
        })
    }
}

/// How long the lints that run code (the rrule checks) may take per call in `diagnostics`.
const LINT_TIME: Duration = Duration::from_secs(2);

/// Syntax, lowering and `# zy: at` type errors of `file`, and notes on the top-level
/// statements it skips.
pub(crate) fn errors(db: &RootDatabase, file: SourceFile) -> Vec<Diagnostic> {
    let notes = zy_hir::skipped_statements(db, file)
        .iter()
        .map(|d| (d, Severity::Note));
    zy_hir::diagnostics(db, file)
        .iter()
        .map(|d| (d, Severity::Error))
        .chain(notes)
        .map(|(d, severity)| {
            Diagnostic::at(
                db,
                file,
                (d.start, d.end),
                &d.code,
                d.message.clone(),
                severity,
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use crate::AnalysisHost;

    #[test]
    fn syntax_diagnostics_hold_the_parse_errors_alone() {
        let mut host = AnalysisHost::new();
        let typed = host.set_file_text(
            Path::new("a.jl"),
            "# zy: at f([1.0])\nf(x) = x + 1.0\n".into(),
        );
        let broken = host.set_file_text(Path::new("b.jl"), "g(x) = (x *\n".into());
        let a = host.analysis();
        let codes = |ds: Vec<crate::Diagnostic>| {
            ds.into_iter()
                .map(|d| (d.line, d.col, d.code))
                .collect::<Vec<_>>()
        };
        assert_eq!(
            codes(a.diagnostics(typed).unwrap()),
            [(2, 8, "method-error".to_string())]
        );
        assert_eq!(codes(a.syntax_diagnostics(typed).unwrap()), []);
        // The `(` that is never closed, and the end of input where `*` wants its operand.
        let parse_errors = [
            (1, 8, "syntax-error".to_string()),
            (2, 1, "syntax-error".to_string()),
        ];
        assert_eq!(codes(a.syntax_diagnostics(broken).unwrap()), parse_errors);
    }
}
