//! `eval`, `grad` and `ir`: load one file into a fresh analysis host and print one result.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

use zy_ide::{
    AnalysisHost, Cancellable, Engine, EvalLimits, FileId, GradOptions, IrStage, UserError,
};

use crate::cli::Format;
use crate::Outcome;

/// Exit status for findings and bad input.
pub const FAILURE: u8 = 1;
/// Exit status for usage and I/O errors.
pub const IO_FAILURE: u8 = 2;

/// Whether a command's host is left to the end of the process to free (see
/// [`leave_hosts_to_exit`]).
static LEAVE_HOSTS: AtomicBool = AtomicBool::new(false);

/// Called by the binary, which exits right after one command: `eval`, `grad` and `ir` then
/// leave their analysis host to the end of the process instead of dropping it, which frees the
/// database's many small allocations one by one (about a sixth of a first gradient's process).
/// Tests and other callers of [`crate::execute`] keep dropping it.
pub fn leave_hosts_to_exit() {
    LEAVE_HOSTS.store(true, Ordering::Relaxed);
}

/// The end of a command's host: dropped, or left to the end of the process.
fn release(host: AnalysisHost) {
    if LEAVE_HOSTS.load(Ordering::Relaxed) {
        std::mem::forget(host);
    }
}

/// Read `path` into a new host (with the size limit of `zy.toml`), or the failure to report.
pub fn open(path: &Path) -> Result<(AnalysisHost, FileId), Outcome> {
    let config = crate::config::load(None).map_err(|e| Outcome::failure(IO_FAILURE, e))?;
    let source = crate::source::read(path, config.max_file_size())
        .map_err(|e| Outcome::failure(IO_FAILURE, e.to_string()))?;
    let mut host = AnalysisHost::new();
    host.prefer_quick_code();
    let file = host.set_file_text(path, source.text);
    host.load_includes(include_reader(config.max_file_size()));
    host.load_package_entry(file, include_reader(config.max_file_size()));
    Ok((host, file))
}

/// How files that an `include` names are read: as every source file is (see
/// [`crate::source::read`]), the reason of a refusal given without its "cannot read file".
pub fn include_reader(limit: u64) -> impl FnMut(&Path) -> Result<String, String> {
    move |path| {
        crate::source::read(path, limit)
            .map(|source| source.text)
            .map_err(include_failure)
    }
}

/// Why an included file could not be read, without the "cannot read file" of a given one.
pub fn include_failure(e: UserError) -> String {
    let reason = e.message.strip_prefix("cannot read file: ");
    reason.unwrap_or(&e.message).to_string()
}

/// A query's result, or its error and the failure status.
fn finish(result: Cancellable<Result<String, UserError>>, mut out: Outcome) -> Outcome {
    match result {
        Ok(Ok(text)) => {
            out.stdout = text + "\n";
            out
        }
        Ok(Err(e)) => {
            out.stderr.push_str(&format!("{e}\n"));
            out.status = FAILURE;
            out
        }
        Err(_) => Outcome::failure(
            IO_FAILURE,
            "zy-analyze: internal error: analysis cancelled".into(),
        ),
    }
}

/// `zy-analyze eval FILE CALL`.
pub fn eval(path: &Path, call: &str, format: Format) -> Outcome {
    let (host, file) = match open(path) {
        Ok(x) => x,
        Err(out) => return out,
    };
    let result = host
        .analysis()
        .eval(file, call, EvalLimits::default())
        .map(|r| {
            r.map(|v| match format {
                Format::Text => v.display,
                Format::Json => format!("{{\"value\":{}}}", v.json),
            })
        });
    release(host);
    finish(result, Outcome::default())
}

/// `zy-analyze grad FILE CALL`.
pub fn grad(
    path: &Path,
    call: &str,
    format: Format,
    engine: Engine,
    options: GradOptions,
) -> Outcome {
    let (host, file) = match open(path) {
        Ok(x) => x,
        Err(out) => return out,
    };
    let mut out = Outcome::default();
    let result = host
        .analysis()
        .grad_with(file, call, EvalLimits::default(), engine, options).map(|r| {
        r.map(|g| {
            if let Some(why) = &g.jit_fallback {
                out.stderr = format!("note: the JIT does not compile this call ({why}); the interpreter ran it\n");
            }
            match format {
                Format::Text => g.to_text(),
                Format::Json => g.to_json_text(),
            }
        })
    });
    release(host);
    finish(result, out)
}

/// `zy-analyze ir FILE FUNCTION`.
pub fn ir(path: &Path, function: &str, at: Option<&str>, stage: IrStage) -> Outcome {
    let (host, file) = match open(path) {
        Ok(x) => x,
        Err(out) => return out,
    };
    let text = host.analysis().view_ir(file, function, at, stage);
    release(host);
    finish(
        text.map(|r| r.map(|t| t.trim_end().to_string())),
        Outcome::default(),
    )
}
