//! `--format json`: one object, schema version 1 (documented in docs/ci.md).

use serde_json::{json, Value as Json};

use super::{FileReport, Summary};

/// The schema version; bumped on any incompatible change.
const VERSION: u32 = 1;

pub fn render(reports: &[FileReport], summary: Summary) -> String {
    let diagnostics: Vec<Json> = reports
        .iter()
        .flat_map(|r| {
            r.findings.iter().map(move |d| {
                json!({
                    "file": r.relative(),
                    "line": d.line,
                    "col": d.col,
                    // Offsets in the file, byte order mark included.
                    "start": d.start + r.bom,
                    "end": d.end + r.bom,
                    "code": d.code,
                    "severity": d.severity.as_str(),
                    "message": d.message,
                    "related": d.related.iter().map(|x| json!({
                        "file": super::relative_of(&x.file),
                        "line": x.line,
                        "col": x.col,
                        "message": x.message,
                    })).collect::<Vec<_>>(),
                    "expected": r.expected,
                })
            })
        })
        .collect();
    let out = json!({
        "version": VERSION,
        "summary": {
            "files": summary.files,
            "errors": summary.errors,
            "warnings": summary.warnings,
            "expected": summary.expected,
            "checked_functions": summary.checked_functions,
            "untyped_functions": summary.untyped_functions,
            "tests": {
                "passed": summary.tests.passed,
                "failed": summary.tests.failed,
                "errored": summary.tests.errored,
                "broken": summary.tests.broken,
                "total": summary.tests.total(),
                "not_run": summary.tests.not_run,
            },
        },
        "diagnostics": diagnostics,
    });
    format!("{out}\n")
}
