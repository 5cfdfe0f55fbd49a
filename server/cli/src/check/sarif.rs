//! `--format sarif`: a SARIF 2.1.0 log for code-scanning services (GitHub code scanning).
//! Every lint is a rule with its summary and a link to its documentation; findings in files
//! whose findings `zy.toml` expects carry an external suppression.

use serde_json::{json, Value as Json};
use zy_ide::{Severity, FORWARD_MISMATCH, GRADCHECK, LINTS};

use super::FileReport;

/// Where the lint documentation lives, relative to the repository root.
const DOCS: &str = "docs/lints.md";

pub fn render(reports: &[FileReport]) -> String {
    let mut rules: Vec<Json> = LINTS
        .iter()
        .map(|l| {
            json!({
                "id": l.code,
                "shortDescription": { "text": l.summary },
                "help": { "text": format!("See {DOCS}, section `{}`.", l.code) },
                "defaultConfiguration": { "level": level(l.default.severity()) },
            })
        })
        .collect();
    rules.push(json!({
        "id": GRADCHECK,
        "shortDescription": { "text": "a `# zy: gradcheck` call whose AD gradient disagrees with central finite differences" },
        "help": { "text": format!("See {DOCS}, section `{GRADCHECK}`.") },
        "defaultConfiguration": { "level": "error" },
    }));
    rules.push(json!({
        "id": FORWARD_MISMATCH,
        "shortDescription": { "text": "a `# zy: gradcheck` call whose forward-mode derivative disagrees with the reverse gradient or with finite differences" },
        "help": { "text": format!("See {DOCS}, section `{FORWARD_MISMATCH}`.") },
        "defaultConfiguration": { "level": "error" },
    }));
    let mut ids: Vec<String> = rules
        .iter()
        .filter_map(|r| r["id"].as_str().map(str::to_string))
        .collect();
    // Errors that are not lints (syntax-error, type-conflict, ...) become rules as they appear.
    for r in reports {
        for d in &r.findings {
            if !ids.contains(&d.code) {
                ids.push(d.code.clone());
                rules.push(json!({ "id": d.code, "shortDescription": { "text": format!("zy {}", d.code) } }));
            }
        }
    }
    let results: Vec<Json> = reports
        .iter()
        .flat_map(|r| {
            let ids = &ids;
            r.findings.iter().map(move |d| {
                let mut result = json!({
                    "ruleId": d.code,
                    "ruleIndex": ids.iter().position(|i| *i == d.code).unwrap_or(0),
                    "level": level(Some(d.severity)),
                    "message": { "text": d.message },
                    "locations": [{
                        "physicalLocation": {
                            "artifactLocation": { "uri": r.uri() },
                            "region": region(&r.text, d.start, d.end),
                        }
                    }],
                });
                if !d.related.is_empty() {
                    result["relatedLocations"] = d
                        .related
                        .iter()
                        .enumerate()
                        .map(|(i, x)| {
                            let region = match x.file == r.path {
                                true => region(&r.text, x.start, x.end),
                                false => json!({ "startLine": x.line, "startColumn": x.col }),
                            };
                            json!({
                                "id": i,
                                "physicalLocation": {
                                    "artifactLocation": { "uri": super::uri_of(&x.file) },
                                    "region": region,
                                },
                                "message": { "text": x.message },
                            })
                        })
                        .collect();
                }
                if r.expected {
                    result["suppressions"] =
                        json!([{ "kind": "external", "justification": "expected by zy.toml" }]);
                }
                result
            })
        })
        .collect();
    let log = json!({
        "version": "2.1.0",
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "runs": [{
            "tool": {
                "driver": {
                    "name": "zy-analyze",
                    "version": env!("CARGO_PKG_VERSION"),
                    "rules": rules,
                }
            },
            "columnKind": "unicodeCodePoints",
            "results": results,
        }]
    });
    format!("{log:#}\n")
}

fn level(s: Option<Severity>) -> &'static str {
    match s {
        Some(Severity::Error) => "error",
        Some(Severity::Warning) => "warning",
        Some(Severity::Note) => "note",
        None => "none",
    }
}

/// A SARIF region (1-based lines, columns in code points, end column exclusive).
fn region(text: &str, start: u32, end: u32) -> Json {
    let at = |offset: u32| {
        let mut o = (offset as usize).min(text.len());
        while !text.is_char_boundary(o) {
            o -= 1;
        }
        let before = &text[..o];
        let line = before.matches('\n').count() + 1;
        let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
        (line, col)
    };
    let (sl, sc) = at(start);
    let (el, ec) = at(end.max(start));
    json!({ "startLine": sl, "startColumn": sc, "endLine": el, "endColumn": ec })
}
