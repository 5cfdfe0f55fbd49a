//! `zy-analyze`: the command line over `zy-ide`. Evaluates calls, prints IR and checks files;
//! every failure is one line `path:line:col: error: message` and an exit status (1 for
//! findings and bad input, 2 for usage and I/O errors), never a panic.

mod check;
mod cli;
mod load;

use std::process::ExitCode;

use clap::Parser;

use cli::{Cli, Command, IrFormat};
use zy_ide::IrStage;

fn main() -> ExitCode {
    install_panic_hook();
    let worker = std::thread::Builder::new()
        .name("zy-analyze".into())
        .stack_size(zy_ide::ANALYSIS_STACK_SIZE)
        .spawn(run);
    match worker.map(|w| w.join()) {
        Ok(Ok(code)) => code,
        _ => {
            eprintln!("zy-analyze: internal error: the analysis thread failed");
            ExitCode::from(2)
        }
    }
}

fn run() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let usage_error = e.use_stderr();
            let _ = e.print();
            return ExitCode::from(if usage_error { 2 } else { 0 });
        }
    };
    match cli.command {
        Command::Eval { file, call, format } => load::eval(&file, &call, format),
        Command::Grad {
            file,
            call,
            format,
            engine,
        } => load::grad(&file, &call, format, engine.into()),
        Command::Ir {
            file,
            function,
            at,
            stage,
            format,
        } => {
            let stage = match format {
                IrFormat::Text => stage.into(),
                IrFormat::Dot => IrStage::Dot,
            };
            load::ir(&file, &function, at.as_deref(), stage)
        }
        Command::Check {
            paths,
            format,
            deny_warnings,
            config,
            color,
            timings,
        } => check::run(&check::CheckArgs {
            paths,
            format,
            deny_warnings,
            config,
            color,
            timings,
        }),
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
        eprintln!(
            "zy-analyze: internal error{}: {message}",
            location.unwrap_or_default()
        );
        std::process::exit(2);
    }));
}
