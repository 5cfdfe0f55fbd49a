//! Running a read-only request on a snapshot: on a blocking thread, under `catch_unwind`,
//! within a [`Budget`] of time (and memory, for gradients). Cancellation (an edit arrived)
//! becomes `ContentModified`; a panic becomes an `InternalError` response and a log line; the
//! server lives on either way. When the request's future is dropped (the client sent
//! `$/cancelRequest`) or its budget runs out, the snapshot's cancel flag stops its run.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use tower_lsp::jsonrpc::{Error, ErrorCode, Result};

/// How long any one request may run before it is answered with an error.
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(10);

/// How often the memory of a run with a memory budget is looked at.
const MEMORY_POLL: Duration = Duration::from_millis(10);

/// LSP's `ContentModified` error code: the document changed while the request ran.
const CONTENT_MODIFIED: i64 = -32801;

/// The outcome of a feature: a value, a cancelled read, or a user-facing failure message.
pub enum Outcome<T> {
    Done(T),
    Cancelled,
    Failed(String),
}

/// What one request may use.
pub struct Budget {
    /// Wall-clock time, from the start of the run.
    pub time: Duration,
    /// Growth of the process's resident memory while it runs, in bytes, and the setting that
    /// raises it (where the platform lets the server measure it).
    pub memory: Option<(u64, &'static str)>,
}

impl Budget {
    /// The budget of an ordinary request.
    pub const REQUEST: Budget = Budget {
        time: REQUEST_TIMEOUT,
        memory: None,
    };
}

/// Raises the cancel flag when dropped: the request was answered, cancelled or abandoned, and
/// whatever still runs for it must stop.
struct StopOnDrop(Arc<AtomicBool>);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

/// Run `f` on a blocking thread within `budget` and turn every way it can end into a
/// response; `cancel` is the flag that stops `f`'s snapshot.
pub async fn run<T, F>(
    what: &'static str,
    cancel: Arc<AtomicBool>,
    budget: Budget,
    f: F,
) -> Result<T>
where
    T: Send + 'static,
    F: FnOnce() -> Outcome<T> + Send + 'static,
{
    tracing::debug!(request = what, "start");
    let _stop = StopOnDrop(cancel);
    let mut task = tokio::task::spawn_blocking(move || {
        let r = catch_unwind(AssertUnwindSafe(f));
        tracing::debug!(request = what, "done");
        r
    });
    let deadline = tokio::time::sleep(budget.time);
    tokio::pin!(deadline);
    let baseline = resident_bytes();
    let mut poll = tokio::time::interval(MEMORY_POLL);
    let joined = loop {
        tokio::select! {
            joined = &mut task => break joined,
            () = &mut deadline => {
                tracing::warn!(request = what, "timed out");
                return Err(failed(format!("{what} timed out after {} s", budget.time.as_secs_f64())));
            }
            _ = poll.tick(), if budget.memory.is_some() => {
                let (Some((limit, setting)), Some(start), Some(now)) = (budget.memory, baseline, resident_bytes()) else {
                    continue;
                };
                if now.saturating_sub(start) > limit {
                    tracing::warn!(request = what, limit, "memory limit reached");
                    return Err(failed(format!(
                        "{what} stopped: the server's memory grew by more than {} MiB while it ran (setting `{setting}`)",
                        limit >> 20
                    )));
                }
            }
        }
    };
    match joined {
        Err(join) => {
            tracing::error!(request = what, error = %join, "task failed");
            Err(Error::internal_error())
        }
        Ok(Err(panic)) => {
            let msg = panic_message(&*panic);
            tracing::error!(request = what, panic = %msg, "request panicked");
            Err(Error {
                code: ErrorCode::InternalError,
                message: msg.into(),
                data: None,
            })
        }
        Ok(Ok(Outcome::Done(v))) => Ok(v),
        Ok(Ok(Outcome::Cancelled)) => Err(Error {
            code: ErrorCode::ServerError(CONTENT_MODIFIED),
            message: "content modified".into(),
            data: None,
        }),
        Ok(Ok(Outcome::Failed(msg))) => Err(failed(msg)),
    }
}

fn failed(message: String) -> Error {
    Error {
        code: ErrorCode::InvalidParams,
        message: message.into(),
        data: None,
    }
}

/// The message of a panic payload.
pub fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "internal error".to_string()
    }
}

/// The process's resident memory in bytes (Linux: from `/proc/self/statm`).
#[cfg(target_os = "linux")]
fn resident_bytes() -> Option<u64> {
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: u64 = statm.split_whitespace().nth(1)?.parse().ok()?;
    // SAFETY: sysconf only reads a configuration value.
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    Some(pages.saturating_mul(u64::try_from(page).ok()?))
}

#[cfg(not(target_os = "linux"))]
fn resident_bytes() -> Option<u64> {
    None
}
