//! `zy-analyze check`: diagnostics and gradchecks of every `.jl` file under the given paths.
//! Each file is analysed as its own program (files are not linked: the subset has no
//! `include`).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use serde_json::{json, Value as Json};
use zy_ide::{Diagnostic, EvalLimits, Severity};

use crate::cli::CheckFormat;
use crate::load::{io_error, open, FAILURE, IO_FAILURE};

/// Run the check and return the exit status: 0 clean, 1 findings, 2 I/O errors.
pub fn run(paths: &[PathBuf], format: CheckFormat, deny_warnings: bool) -> ExitCode {
    let roots = if paths.is_empty() { vec![PathBuf::from(".")] } else { paths.to_vec() };
    let mut files = Vec::new();
    for root in &roots {
        if let Err(e) = collect(root, &mut files) {
            eprintln!("{}", io_error(root, &e));
            return ExitCode::from(IO_FAILURE);
        }
    }
    files.sort();
    files.dedup();
    let mut findings: Vec<(PathBuf, Diagnostic)> = Vec::new();
    for path in &files {
        let (host, file) = match open(path) {
            Ok(x) => x,
            Err(code) => return code,
        };
        let analysis = host.analysis();
        let found = analysis.diagnostics(file).and_then(|mut diags| {
            diags.extend(analysis.gradchecks(file, EvalLimits::default())?);
            Ok(diags)
        });
        match found {
            Ok(diags) => findings.extend(diags.into_iter().map(|d| (path.clone(), d))),
            Err(_) => {
                eprintln!("zy-analyze: internal error: analysis cancelled");
                return ExitCode::from(IO_FAILURE);
            }
        }
    }
    match format {
        CheckFormat::Text => {
            for (path, d) in &findings {
                let (line, col, sev, code) = (d.line, d.col, d.severity.as_str(), &d.code);
                println!("{}:{line}:{col}: {sev}[{code}]: {}", path.display(), d.message);
            }
        }
        CheckFormat::Json => {
            let items: Vec<Json> = findings
                .iter()
                .map(|(path, d)| {
                    json!({
                        "file": path.display().to_string(),
                        "line": d.line,
                        "col": d.col,
                        "code": d.code,
                        "severity": d.severity.as_str(),
                        "message": d.message,
                    })
                })
                .collect();
            println!("{}", json!({ "diagnostics": items }));
        }
        CheckFormat::Sarif => println!("{}", sarif(&findings)),
    }
    let failing = findings.iter().any(|(_, d)| d.severity == Severity::Error || deny_warnings);
    if failing {
        ExitCode::from(FAILURE)
    } else {
        ExitCode::SUCCESS
    }
}

/// The findings as a SARIF 2.1.0 log (columns count Unicode code points).
fn sarif(findings: &[(PathBuf, Diagnostic)]) -> Json {
    let mut rules: Vec<&str> = findings.iter().map(|(_, d)| d.code.as_str()).collect();
    rules.sort_unstable();
    rules.dedup();
    let results: Vec<Json> = findings
        .iter()
        .map(|(path, d)| {
            let uri = path.display().to_string().replace('\\', "/");
            let uri = uri.strip_prefix("./").unwrap_or(&uri).to_string();
            json!({
                "ruleId": d.code,
                "level": d.severity.as_str(),
                "message": { "text": d.message },
                "locations": [{
                    "physicalLocation": {
                        "artifactLocation": { "uri": uri },
                        "region": { "startLine": d.line, "startColumn": d.col },
                    }
                }],
            })
        })
        .collect();
    json!({
        "version": "2.1.0",
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "runs": [{
            "tool": {
                "driver": {
                    "name": "zy-analyze",
                    "version": env!("CARGO_PKG_VERSION"),
                    "rules": rules.iter().map(|id| json!({ "id": id })).collect::<Vec<_>>(),
                }
            },
            "columnKind": "unicodeCodePoints",
            "results": results,
        }]
    })
}

/// Every `.jl` file at or under `path` (a file given by name is taken whatever its extension).
fn collect(path: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    let meta = std::fs::metadata(path)?;
    if meta.is_file() {
        out.push(path.to_path_buf());
        return Ok(());
    }
    for entry in std::fs::read_dir(path)? {
        let entry = entry?;
        let p = entry.path();
        if entry.file_type()?.is_dir() {
            collect(&p, out)?;
        } else if p.extension().is_some_and(|e| e == "jl") {
            out.push(p);
        }
    }
    Ok(())
}
