//! The command-line grammar.

use std::path::PathBuf;

use clap::{Parser, Subcommand, ValueEnum};
use zy_ide::{Engine, IrStage};

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
        /// A Julia call expression, for example 'pow(2.0, 3)' (it may start with `-`: '-f(x)').
        #[arg(allow_hyphen_values = true)]
        call: String,
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
    },
    /// Evaluate a call and its gradient with respect to every argument.
    Grad {
        file: PathBuf,
        /// A Julia call `f(args...)`, for example 'pow(2.0, 3)'.
        #[arg(allow_hyphen_values = true)]
        call: String,
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
        /// Compiled code by default; `interp` runs the reference interpreter (for checking).
        #[arg(long, value_enum, default_value_t = EngineArg::Jit)]
        engine: EngineArg,
        /// Also print the pullback as a table: each argument's and local's value and adjoint at
        /// this call (a loop's runs summarised), computed by the interpreter.
        #[arg(long)]
        trace: bool,
        /// Debug mode: check, around every rule and derived pullback, that each tangent has
        /// its primal's type and shape and that rules leave their arguments alone; a
        /// violation is an error naming the rule, the value and the expected type.
        #[arg(long)]
        debug: bool,
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
        /// `dot`: the forward and pullback control-flow graphs as one Graphviz graph (the
        /// stage is then ignored).
        #[arg(long, value_enum, default_value_t = IrFormat::Text)]
        format: IrFormat,
    },
    /// Check every `.jl` file under the paths (default: the current directory): errors,
    /// lints and gradchecks, with `zy.toml` applied. Symbolic links inside directories are not
    /// followed, and only regular files are read. Exit status 0 when clean, 1 on findings, 2 on
    /// usage or I/O errors (also when there are findings).
    Check {
        paths: Vec<PathBuf>,
        #[arg(long, value_enum, default_value_t = CheckFormat::Text)]
        format: CheckFormat,
        /// Count warnings as findings for the exit status.
        #[arg(long)]
        deny_warnings: bool,
        /// The configuration (default: `zy.toml` in the current directory or an ancestor).
        #[arg(long)]
        config: Option<PathBuf>,
        /// Colours in text output (auto: on a terminal, unless NO_COLOR is set).
        #[arg(long, value_enum, default_value_t = ColorArg::Auto)]
        color: ColorArg,
        /// Print the wall time and the time per stage to stderr.
        #[arg(long)]
        timings: bool,
        /// Say on stderr which functions could not be typed and which entries of the
        /// directories were skipped (symbolic links, named pipes and other special files).
        #[arg(long, short)]
        verbose: bool,
    },
}

/// Output format.
#[derive(Clone, Copy, PartialEq, Eq, Debug, ValueEnum)]
pub enum Format {
    Text,
    Json,
}

/// Output format of `check`.
#[derive(Clone, Copy, PartialEq, Eq, Debug, ValueEnum)]
pub enum CheckFormat {
    /// rustc-style, with source snippets.
    Text,
    /// One line per finding: `path:line:col: severity[code]: message`.
    Short,
    Json,
    /// SARIF 2.1.0, for code-scanning services.
    Sarif,
}

/// When text output is coloured.
#[derive(Clone, Copy, PartialEq, Eq, Debug, ValueEnum)]
pub enum ColorArg {
    Auto,
    Always,
    Never,
}

/// IR stage, as named on the command line.
#[derive(Clone, Copy, PartialEq, Eq, Debug, ValueEnum)]
pub enum Stage {
    /// Untyped SSA of every method.
    Primal,
    /// The typed specialisation.
    Typed,
    /// The AD's forward function.
    Forward,
    /// The AD's pullback.
    Pullback,
    /// Forward mode's pushforward (value and tangent together).
    Pushforward,
    /// The Cranelift IR of the typed specialisation.
    Clif,
}

/// Output format of `ir`.
#[derive(Clone, Copy, PartialEq, Eq, Debug, ValueEnum)]
pub enum IrFormat {
    /// The IR in the paper's notation.
    Text,
    /// Graphviz: the primal (forward) and adjoint (pullback) control flow side by side.
    Dot,
}

/// Which engine runs a gradient.
#[derive(Clone, Copy, PartialEq, Eq, Debug, ValueEnum)]
pub enum EngineArg {
    /// The Cranelift JIT (with the interpreter for what it does not compile).
    Jit,
    /// The reference interpreter.
    Interp,
}

impl From<EngineArg> for Engine {
    fn from(e: EngineArg) -> Engine {
        match e {
            EngineArg::Jit => Engine::Jit,
            EngineArg::Interp => Engine::Interp,
        }
    }
}

impl From<Stage> for IrStage {
    fn from(s: Stage) -> IrStage {
        match s {
            Stage::Primal => IrStage::Primal,
            Stage::Typed => IrStage::Typed,
            Stage::Forward => IrStage::Forward,
            Stage::Pullback => IrStage::Pullback,
            Stage::Pushforward => IrStage::Pushforward,
            Stage::Clif => IrStage::Clif,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn engine_of(args: &[&str]) -> Option<EngineArg> {
        match Cli::try_parse_from(args).ok()?.command {
            Command::Grad { engine, .. } => Some(engine),
            _ => None,
        }
    }

    #[test]
    fn gradients_run_compiled_unless_the_interpreter_is_asked_for() {
        let call = ["zy-analyze", "grad", "f.jl", "f(1.0)"];
        assert_eq!(engine_of(&call), Some(EngineArg::Jit));
        let interp = [&call[..], &["--engine", "interp"]].concat();
        assert_eq!(engine_of(&interp), Some(EngineArg::Interp));
    }
}
