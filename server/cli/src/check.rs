//! `zy-analyze check`: diagnostics of every `.jl` file under the given paths. Each file is
//! analysed as its own program (files are not linked: the subset has no `include`).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use serde_json::json;
use zy_ide::Diagnostic;

use crate::cli::Format;
use crate::load::{io_error, open, FAILURE, IO_FAILURE};

/// Run the check and return the exit status: 0 clean, 1 findings, 2 I/O errors.
pub fn run(paths: &[PathBuf], format: Format) -> ExitCode {
    let roots = if paths.is_empty() { vec![PathBuf::from(".")] } else { paths.to_vec() };
    let mut files = Vec::new();
    for root in &roots {
        if let Err(e) = collect(root, &mut files) {
            eprintln!("{}", io_error(root, &e));
            return ExitCode::from(IO_FAILURE);
        }
    }
    files.sort();
    let mut findings: Vec<(PathBuf, Diagnostic)> = Vec::new();
    for path in &files {
        let (host, file) = match open(path) {
            Ok(x) => x,
            Err(code) => return code,
        };
        match host.analysis().diagnostics(file) {
            Ok(diags) => findings.extend(diags.into_iter().map(|d| (path.clone(), d))),
            Err(_) => {
                eprintln!("zy-analyze: internal error: analysis cancelled");
                return ExitCode::from(IO_FAILURE);
            }
        }
    }
    match format {
        Format::Text => {
            for (path, d) in &findings {
                println!("{}:{}:{}: error[{}]: {}", path.display(), d.line, d.col, d.code, d.message);
            }
        }
        Format::Json => {
            let items: Vec<_> = findings
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
    }
    if findings.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(FAILURE)
    }
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
