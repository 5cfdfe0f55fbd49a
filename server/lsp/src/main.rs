//! `zy-lsp`: the zy language server over stdio (see the library for what it does).

use tracing_subscriber::EnvFilter;

/// mimalloc rather than the system allocator: the front end makes many small short-lived
/// allocations (a first gradient spent about a quarter of its time in glibc's `malloc` and
/// `free`, bench/README.md "First gradient", session 12).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    // stdout is the protocol: logs go to stderr only. salsa logs every query at INFO.
    let filter = EnvFilter::try_from_env("ZY_LOG").unwrap_or_else(|_| EnvFilter::new("warn"));
    let filter = filter.add_directive("salsa=warn".parse().unwrap_or_default());
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .init();
    let code = zy_lsp::run(std::io::stdin(), std::io::stdout());
    // Without waiting for analyses still running on other threads.
    std::process::exit(code);
}
