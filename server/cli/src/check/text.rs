//! rustc-style text: each finding with its source snippet (codespan-reporting), coloured on
//! a terminal, then a summary line.

use codespan_reporting::diagnostic::{Diagnostic as Report, Label, Severity as Level};
use codespan_reporting::files::SimpleFiles;
use codespan_reporting::term::{self, termcolor};
use zy_ide::{Severity, TestCounts};

use super::{FileReport, Summary};

/// The report of every file, the files' tests as Julia's `Test Summary` counts them, then the
/// summary (nothing at all when everything is clean, every function was typed and there are no
/// tests).
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
    text.push_str(&test_summary(reports));
    let tests = summary.tests.total() + summary.tests.not_run;
    if summary.errors + summary.warnings + summary.expected + summary.untyped_functions + tests > 0
    {
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

/// Julia's `Test Summary` table of the files whose tests gave verdicts, one row per file: the
/// `Pass`, `Fail`, `Error` and `Broken` columns that any row fills, and `Total`, each as wide
/// as its heading or its widest number (empty when no file has tests).
pub fn test_summary(reports: &[FileReport]) -> String {
    let rows: Vec<(String, TestCounts)> = reports
        .iter()
        .filter(|r| r.tests.total() > 0)
        .map(|r| (r.relative(), r.tests))
        .collect();
    if rows.is_empty() {
        return String::new();
    }
    type Column = (&'static str, fn(&TestCounts) -> usize);
    let columns: [Column; 5] = [
        ("Pass", |t| t.passed),
        ("Fail", |t| t.failed),
        ("Error", |t| t.errored),
        ("Broken", |t| t.broken),
        ("Total", TestCounts::total),
    ];
    let shown: Vec<(&str, fn(&TestCounts) -> usize, usize)> = columns
        .into_iter()
        .filter(|(name, n)| *name == "Total" || rows.iter().any(|(_, t)| n(t) > 0))
        .map(|(name, n)| {
            let digits = rows.iter().map(|(_, t)| n(t).to_string().len()).max();
            (name, n, digits.unwrap_or(0).max(name.len()))
        })
        .collect();
    let heading = "Test Summary:";
    let label = rows
        .iter()
        .map(|(p, _)| p.chars().count())
        .fold(heading.len(), usize::max);
    let line = |first: &str, cells: Vec<String>| {
        let cells: Vec<String> = cells
            .iter()
            .zip(&shown)
            .map(|(c, (_, _, w))| format!("{c:>w$}"))
            .collect();
        format!("{first:<label$} | {}\n", cells.join("  "))
    };
    let mut out = line(
        heading,
        shown.iter().map(|(name, _, _)| name.to_string()).collect(),
    );
    for (path, t) in &rows {
        out.push_str(&line(
            path,
            shown.iter().map(|(_, n, _)| n(t).to_string()).collect(),
        ));
    }
    out
}

/// `checked 12 files: 1 error, 2 warnings (3 expected findings not counted); 20 functions
/// checked, 3 not typed (no `# zy: at`, no caller, no concrete annotations); 8 tests: 5
/// passed, 1 failed, 1 errored, 1 broken, 2 not run by zy` (the tests' part only when there
/// are some, each count after `passed` only when it is not zero).
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
    let t = s.tests;
    if t.total() + t.not_run > 0 {
        line.push_str(&format!(
            "; {}: {} passed",
            plural(t.total() + t.not_run, "test"),
            t.passed
        ));
        for (n, what) in [
            (t.failed, "failed"),
            (t.errored, "errored"),
            (t.broken, "broken"),
            (t.not_run, "not run by zy"),
        ] {
            if n > 0 {
                line.push_str(&format!(", {n} {what}"));
            }
        }
    }
    line
}
