//! `zy-analyze`: the command line over `zy-ide`. Evaluates calls, prints IR and checks files;
//! every failure is one line `path:line:col: error: message` and an exit status (1 for
//! findings and bad input, 2 for usage and I/O errors), never a panic.
//!
//! Each command runs to an [`Outcome`], what it prints and its exit status, which the binary
//! writes out; tests and the fuzz target call [`execute`] (or [`check::run`]) directly.

pub mod check;
pub mod cli;
mod config;
mod load;
mod source;

use cli::{Command, IrFormat};
use zy_ide::{GradOptions, IrStage};

pub use load::{leave_hosts_to_exit, FAILURE, IO_FAILURE};

/// What a command prints and its exit status.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct Outcome {
    pub stdout: String,
    /// Whole lines.
    pub stderr: String,
    /// 0 success, [`FAILURE`], or [`IO_FAILURE`].
    pub status: u8,
}

impl Outcome {
    /// Nothing on stdout, the line `message` on stderr, and `status`.
    pub fn failure(status: u8, message: String) -> Outcome {
        Outcome {
            stdout: String::new(),
            stderr: message + "\n",
            status,
        }
    }
}

/// Run one command. `progress`: `check` may draw a progress bar on stderr.
pub fn execute(command: Command, progress: bool) -> Outcome {
    match command {
        Command::Eval { file, call, format } => load::eval(&file, &call, format),
        Command::Grad {
            file,
            call,
            format,
            engine,
            trace,
            debug,
        } => load::grad(
            &file,
            &call,
            format,
            engine.into(),
            GradOptions { trace, debug },
        ),
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
            verbose,
        } => check::run(&check::CheckArgs {
            format,
            deny_warnings,
            config,
            color,
            timings,
            verbose,
            progress,
            ..check::CheckArgs::new(paths)
        }),
    }
}
