//! Running a read-only request on a snapshot: on a blocking thread, under `catch_unwind`, with a
//! time limit. Cancellation (an edit arrived) becomes `ContentModified`; a panic becomes an
//! `InternalError` response and a log line; the server lives on either way.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::Duration;

use tower_lsp::jsonrpc::{Error, ErrorCode, Result};

/// How long any one request may run before it is answered with an error.
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(10);

/// LSP's `ContentModified` error code: the document changed while the request ran.
const CONTENT_MODIFIED: i64 = -32801;

/// The outcome of a feature: a value, a cancelled read, or a user-facing failure message.
pub enum Outcome<T> {
    Done(T),
    Cancelled,
    Failed(String),
}

/// Run `f` on a blocking thread and turn every way it can end into a response.
pub async fn run<T, F>(what: &'static str, f: F) -> Result<T>
where
    T: Send + 'static,
    F: FnOnce() -> Outcome<T> + Send + 'static,
{
    tracing::debug!(request = what, "start");
    let task = tokio::task::spawn_blocking(move || {
        let r = catch_unwind(AssertUnwindSafe(f));
        tracing::debug!(request = what, "done");
        r
    });
    match tokio::time::timeout(REQUEST_TIMEOUT, task).await {
        Err(_) => {
            tracing::warn!(request = what, "timed out");
            Err(failed(format!(
                "{what} timed out after {} s",
                REQUEST_TIMEOUT.as_secs()
            )))
        }
        Ok(Err(join)) => {
            tracing::error!(request = what, error = %join, "task failed");
            Err(Error::internal_error())
        }
        Ok(Ok(Err(panic))) => {
            let msg = panic_message(&panic);
            tracing::error!(request = what, panic = %msg, "request panicked");
            Err(Error {
                code: ErrorCode::InternalError,
                message: msg.into(),
                data: None,
            })
        }
        Ok(Ok(Ok(Outcome::Done(v)))) => Ok(v),
        Ok(Ok(Ok(Outcome::Cancelled))) => Err(Error {
            code: ErrorCode::ServerError(CONTENT_MODIFIED),
            message: "content modified".into(),
            data: None,
        }),
        Ok(Ok(Ok(Outcome::Failed(msg)))) => Err(failed(msg)),
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
