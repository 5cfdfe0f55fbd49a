//! The `zy-analyze` binary: parse the command line, run the command on a thread with the
//! analysis stack, and write its output. A reader that stops early (`| head`) ends the output
//! quietly: the exit status stays the command's.

use std::io::{ErrorKind, Write};
use std::process::ExitCode;

use clap::Parser;

use zy_analyze::cli::Cli;
use zy_analyze::{Outcome, IO_FAILURE};

/// mimalloc rather than the system allocator: the front end makes many small short-lived
/// allocations (a first gradient spent about a quarter of its time in glibc's `malloc` and
/// `free`, bench/README.md "First gradient", session 12).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    install_panic_hook();
    // Before any other thread: it may change the environment.
    zy_ide::decide_perf_map();
    let worker = std::thread::Builder::new()
        .name("zy-analyze".into())
        .stack_size(zy_ide::ANALYSIS_STACK_SIZE)
        .spawn(run);
    match worker.map(|w| w.join()) {
        Ok(Ok(code)) => ExitCode::from(code),
        _ => {
            let _ = writeln!(
                std::io::stderr(),
                "zy-analyze: internal error: the analysis thread failed"
            );
            ExitCode::from(IO_FAILURE)
        }
    }
}

fn run() -> u8 {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let usage_error = e.use_stderr();
            let _ = e.print();
            return if usage_error { IO_FAILURE } else { 0 };
        }
    };
    zy_analyze::leave_hosts_to_exit();
    let progress = zy_analyze::check::interactive();
    write(&zy_analyze::execute(cli.command, progress))
}

/// Write `out` and return its status. A closed stdout (`EPIPE`: the reader has what it wanted)
/// stops the writing silently; any other write error is reported, with status 2.
fn write(out: &Outcome) -> u8 {
    let mut stdout = std::io::stdout().lock();
    let written = stdout
        .write_all(out.stdout.as_bytes())
        .and_then(|()| stdout.flush());
    // Errors on stderr cannot be reported anywhere: they are ignored.
    let _ = std::io::stderr().write_all(out.stderr.as_bytes());
    match written {
        Err(e) if e.kind() != ErrorKind::BrokenPipe => {
            let _ = writeln!(
                std::io::stderr(),
                "zy-analyze: cannot write the output: {e}"
            );
            IO_FAILURE
        }
        _ => out.status,
    }
}

/// A last resort: an internal error prints one line (no backtrace) and exits with status 2.
fn install_panic_hook() {
    std::panic::set_hook(Box::new(|info| {
        let location = info
            .location()
            .map(|l| format!(" at {}:{}", l.file(), l.line()));
        let message = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".into());
        let _ = writeln!(
            std::io::stderr(),
            "zy-analyze: internal error{}: {message}",
            location.unwrap_or_default()
        );
        std::process::exit(i32::from(IO_FAILURE));
    }));
}
