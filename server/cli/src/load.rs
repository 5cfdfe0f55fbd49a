//! `eval` and `ir`: load one file into a fresh analysis host and print one result.

use std::path::Path;
use std::process::ExitCode;

use zy_ide::{Analysis, AnalysisHost, Cancellable, Engine, EvalLimits, FileId, IrStage, UserError};

use crate::cli::Format;

/// Exit status for findings and bad input.
pub const FAILURE: u8 = 1;
/// Exit status for usage and I/O errors.
pub const IO_FAILURE: u8 = 2;

/// Read `path` into a new host, or print the I/O error.
pub fn open(path: &Path) -> Result<(AnalysisHost, FileId), ExitCode> {
    match std::fs::read_to_string(path) {
        Ok(text) => {
            let mut host = AnalysisHost::new();
            let file = host.set_file_text(path, text);
            host.load_includes(read_included);
            Ok((host, file))
        }
        Err(e) => {
            eprintln!("{}", io_error(path, &e));
            Err(ExitCode::from(IO_FAILURE))
        }
    }
}

/// The text of a file that an `include` names, or why it cannot be read.
pub fn read_included(path: &Path) -> Result<String, String> {
    std::fs::read_to_string(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => "no such file".to_string(),
        _ => e.to_string(),
    })
}

/// The one-line message for a file that cannot be read.
pub fn io_error(path: &Path, e: &std::io::Error) -> UserError {
    let reason = match e.kind() {
        std::io::ErrorKind::NotFound => "no such file".to_string(),
        _ => e.to_string(),
    };
    UserError {
        file: path.to_path_buf(),
        line: 1,
        col: 1,
        message: format!("cannot read file: {reason}"),
    }
}

/// Print a query's result, or its error and the failure status.
fn finish(result: Cancellable<Result<String, UserError>>) -> ExitCode {
    match result {
        Ok(Ok(text)) => {
            println!("{text}");
            ExitCode::SUCCESS
        }
        Ok(Err(e)) => {
            eprintln!("{e}");
            ExitCode::from(FAILURE)
        }
        Err(_) => {
            eprintln!("zy-analyze: internal error: analysis cancelled");
            ExitCode::from(IO_FAILURE)
        }
    }
}

/// `zy-analyze eval FILE CALL`.
pub fn eval(path: &Path, call: &str, format: Format) -> ExitCode {
    let (host, file) = match open(path) {
        Ok(x) => x,
        Err(code) => return code,
    };
    let analysis: Analysis = host.analysis();
    let result = analysis.eval(file, call, EvalLimits::default()).map(|r| {
        r.map(|v| match format {
            Format::Text => v.display,
            Format::Json => format!("{{\"value\":{}}}", v.json),
        })
    });
    finish(result)
}

/// `zy-analyze grad FILE CALL`.
pub fn grad(path: &Path, call: &str, format: Format, engine: Engine) -> ExitCode {
    let (host, file) = match open(path) {
        Ok(x) => x,
        Err(code) => return code,
    };
    let result = host
        .analysis()
        .grad(file, call, EvalLimits::default(), engine)
        .map(|r| {
            r.map(|g| {
                if let Some(why) = &g.jit_fallback {
                    eprintln!(
                        "note: the JIT does not compile this call ({why}); the interpreter ran it"
                    );
                }
                match format {
                    Format::Text => g.to_text(),
                    Format::Json => g.to_json_text(),
                }
            })
        });
    finish(result)
}

/// `zy-analyze ir FILE FUNCTION`.
pub fn ir(path: &Path, function: &str, at: Option<&str>, stage: IrStage) -> ExitCode {
    let (host, file) = match open(path) {
        Ok(x) => x,
        Err(code) => return code,
    };
    let text = host.analysis().view_ir(file, function, at, stage);
    finish(text.map(|r| r.map(|t| t.trim_end().to_string())))
}
