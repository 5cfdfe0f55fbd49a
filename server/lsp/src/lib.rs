//! `zy-lsp`: the zy language server. A thin layer over `zy_ide`: handlers convert protocol
//! types, take a snapshot, call one feature, and convert back. The binary serves stdio; the
//! fuzz target serves bytes of its own through the same [`run`].

mod convert;
mod dispatch;
mod envelope;
mod ext;
mod framing;
mod server;
mod settings;
mod summary;
mod transport;

use std::io::{Read, Write};

pub use framing::MAX_BODY_BYTES;

/// Serve LSP on `input` and `output` until the session ends (`exit`, the end of the input,
/// the client process gone) and return the exit code. Requests still running are abandoned:
/// the caller should exit with the code at once.
pub fn run<R, W>(input: R, output: W) -> i32
where
    R: Read + Send + 'static,
    W: Write + Send + 'static,
{
    // Analyses recurse along the analysed program's call chains: run them on threads with the
    // stack the CLI gives them (reserved, not committed), and bound how many run at once.
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_stack_size(zy_ide::ANALYSIS_STACK_SIZE)
        .max_blocking_threads(16)
        .build();
    let runtime = match runtime {
        Ok(rt) => rt,
        Err(e) => {
            tracing::error!("cannot start the runtime: {e}");
            return 1;
        }
    };
    let code = transport::serve(&runtime, input, output, server::serve);
    runtime.shutdown_background();
    code
}
