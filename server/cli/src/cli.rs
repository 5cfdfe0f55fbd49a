//! The command-line grammar.

use std::path::PathBuf;

use clap::{Parser, Subcommand, ValueEnum};
use zy_ide::IrStage;

/// Inspect and compute derivatives of Julia programs.
#[derive(Parser, Debug)]
#[command(name = "zy-analyze", version, about)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

/// What to do.
#[derive(Subcommand, Debug)]
pub enum Command {
    /// Evaluate a call in FILE's definitions and print its value.
    Eval {
        file: PathBuf,
        /// A Julia call expression, for example 'pow(2.0, 3)'.
        call: String,
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
    },
    /// Print the IR of a function at one stage.
    Ir {
        file: PathBuf,
        function: String,
        /// The call to specialise on (default: the `# zy: at` annotation).
        #[arg(long)]
        at: Option<String>,
        #[arg(long, value_enum, default_value_t = Stage::Primal)]
        stage: Stage,
    },
    /// Report the diagnostics of every `.jl` file under the paths (default: the current
    /// directory). Exit status 0 when clean, 1 on findings.
    Check {
        paths: Vec<PathBuf>,
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
    },
}

/// Output format.
#[derive(Clone, Copy, PartialEq, Eq, Debug, ValueEnum)]
pub enum Format {
    Text,
    Json,
}

/// IR stage, as named on the command line.
#[derive(Clone, Copy, PartialEq, Eq, Debug, ValueEnum)]
pub enum Stage {
    /// Untyped SSA of every method.
    Primal,
    /// The typed specialisation.
    Typed,
}

impl From<Stage> for IrStage {
    fn from(s: Stage) -> IrStage {
        match s {
            Stage::Primal => IrStage::Primal,
            Stage::Typed => IrStage::Typed,
        }
    }
}
