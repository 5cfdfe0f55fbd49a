//! rustc-style text: each finding with its source snippet (codespan-reporting), coloured on
//! a terminal, then a summary line.

use codespan_reporting::diagnostic::{Diagnostic as Report, Label, Severity as Level};
use codespan_reporting::files::SimpleFiles;
use codespan_reporting::term::{self, termcolor};
use zy_ide::Severity;

use super::{FileReport, Summary};

/// The report of every file, then the summary (nothing at all when everything is clean and
/// every function was typed).
pub fn render(reports: &[FileReport], summary: Summary, colour: bool) -> String {
    let bytes = if colour {
        let mut w = termcolor::Ansi::new(Vec::new());
        emit_all(&mut w, reports);
        w.into_inner()
    } else {
        let mut w = termcolor::NoColor::new(Vec::new());
        emit_all(&mut w, reports);
        w.into_inner()
    };
    let mut text = String::from_utf8_lossy(&bytes).into_owned();
    if summary.errors + summary.warnings + summary.expected + summary.untyped_functions > 0 {
        text.push_str(&summary_line(summary));
        text.push('\n');
    }
    text
}

fn emit_all(out: &mut dyn termcolor::WriteColor, reports: &[FileReport]) {
    let config = term::Config::default();
    let mut files = SimpleFiles::new();
    for r in reports.iter().filter(|r| !r.findings.is_empty()) {
        let id = files.add(r.path.display().to_string(), r.text.as_str());
        for d in &r.findings {
            let level = match d.severity {
                Severity::Error => Level::Error,
                Severity::Warning => Level::Warning,
                Severity::Note => Level::Note,
            };
            let start = boundary(&r.text, d.start as usize);
            let end = boundary(&r.text, (d.end as usize).max(start));
            let mut report = Report::new(level)
                .with_code(d.code.as_str())
                .with_message(d.message.as_str())
                .with_labels(labels(id, r, d, start..end));
            if r.expected {
                report = report.with_notes(vec![
                    "expected by zy.toml: does not fail the check".to_string()
                ]);
            }
            // Writing to memory cannot fail, and the file and the clamped range exist.
            let _ = term::emit(out, &config, &files, &report);
        }
    }
}

/// The finding's own range, and each related location in the same file with its message.
fn labels(
    id: usize,
    r: &FileReport,
    d: &zy_ide::Diagnostic,
    range: std::ops::Range<usize>,
) -> Vec<Label<usize>> {
    let mut out = vec![Label::primary(id, range)];
    for x in d.related.iter().filter(|x| x.file == r.path) {
        let start = boundary(&r.text, x.start as usize);
        let end = boundary(&r.text, (x.end as usize).max(start));
        let label = match d.code.as_str() {
            zy_ide::TEST_FAILED | zy_ide::TEST_NOT_RUN => x.message.as_str(),
            _ => "the first rule that disagrees",
        };
        out.push(Label::secondary(id, start..end).with_message(label));
    }
    out
}

/// `offset` clamped to `text` and moved back to a character boundary.
fn boundary(text: &str, offset: usize) -> usize {
    let mut o = offset.min(text.len());
    while !text.is_char_boundary(o) {
        o -= 1;
    }
    o
}

/// One line per finding, `path:line:col: severity[code]: message`, with ` (expected)` after
/// the findings that `zy.toml` expects.
pub fn short(reports: &[FileReport]) -> String {
    let mut out = String::new();
    for r in reports {
        for d in &r.findings {
            let expected = if r.expected { " (expected)" } else { "" };
            let (path, line, col, sev) = (r.path.display(), d.line, d.col, d.severity.as_str());
            out.push_str(&format!(
                "{path}:{line}:{col}: {sev}[{}]: {}{expected}\n",
                d.code, d.message
            ));
        }
    }
    out
}

/// `checked 12 files: 1 error, 2 warnings (3 expected findings not counted); 20 functions
/// checked, 3 not typed (no `# zy: at`, no caller, no concrete annotations)`.
pub fn summary_line(s: Summary) -> String {
    let plural = |n: usize, one: &str| format!("{n} {one}{}", if n == 1 { "" } else { "s" });
    let mut line = format!(
        "checked {}: {}, {}",
        plural(s.files, "file"),
        plural(s.errors, "error"),
        plural(s.warnings, "warning")
    );
    if s.notes > 0 {
        line.push_str(&format!(", {}", plural(s.notes, "note")));
    }
    if s.expected > 0 {
        line.push_str(&format!(
            " ({} not counted)",
            plural(s.expected, "expected finding")
        ));
    }
    line.push_str(&format!(
        "; {} checked",
        plural(s.checked_functions, "function")
    ));
    if s.untyped_functions > 0 {
        line.push_str(&format!(
            ", {} not typed (no `# zy: at`, no caller, no concrete annotations)",
            s.untyped_functions
        ));
    }
    line
}
