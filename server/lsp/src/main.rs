//! `zy-lsp`: the zy language server over stdio. A thin layer over `zy_ide`: handlers convert
//! protocol types, take a snapshot, call one feature, and convert back.

mod convert;
mod dispatch;
mod ext;
mod server;

use tower_lsp::{LspService, Server};
use tracing_subscriber::EnvFilter;

fn main() {
    // Analyses recurse along the analysed program's call chains: run them on threads with the
    // stack the CLI gives them (reserved, not committed), and bound how many run at once.
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_stack_size(zy_ide::ANALYSIS_STACK_SIZE)
        .max_blocking_threads(16)
        .build();
    match runtime {
        Ok(rt) => rt.block_on(serve()),
        Err(e) => eprintln!("zy-lsp: cannot start the runtime: {e}"),
    }
}

async fn serve() {
    // stdout is the protocol: logs go to stderr only. salsa logs every query at INFO.
    let filter = EnvFilter::try_from_env("ZY_LOG").unwrap_or_else(|_| EnvFilter::new("warn"));
    let filter = filter.add_directive("salsa=warn".parse().unwrap_or_default());
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .init();

    let (service, socket) = LspService::build(server::Backend::new)
        .custom_method(ext::VIEW_IR, server::Backend::view_ir)
        .finish();
    Server::new(tokio::io::stdin(), tokio::io::stdout(), socket)
        .serve(service)
        .await;
}
