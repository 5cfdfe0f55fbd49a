//! zy's extensions to the protocol, in one place (docs/lsp.md is the contract).

use serde::{Deserialize, Serialize};
use tower_lsp::lsp_types::{Position, TextDocumentIdentifier, Url};

/// The custom request returning the IR of the function at a position.
pub const VIEW_IR: &str = "zy/viewIr";

/// The server-side command that runs the gradient at a function's `# zy: at` call.
pub const COMPUTE_GRADIENT: &str = "zy.computeGradient";

/// The server-side command that runs forward mode's derivative at the `# zy: at` call of a
/// function of one Float64 argument.
pub const COMPUTE_DERIVATIVE: &str = "zy.computeDerivative";

/// Client-side commands the code lenses name (the editor opens `zy/viewIr` results).
pub const SHOW_ADJOINT_IR: &str = "zy.showAdjointIr";
/// Opens the typed SSA of the function.
pub const SHOW_SSA: &str = "zy.showSsa";

/// The URI scheme of the prelude's read-only files (`zy-prelude:/Base.jl`), which
/// go-to-definition reaches; `zy/preludeText` gives their text.
pub const PRELUDE_SCHEME: &str = "zy-prelude";

/// The custom request returning the text of a prelude file.
pub const PRELUDE_TEXT: &str = "zy/preludeText";

/// Params of `zy/preludeText`.
#[derive(Deserialize, Serialize, Debug)]
pub struct PreludeTextParams {
    pub uri: Url,
}

/// Result of `zy/preludeText`.
#[derive(Deserialize, Serialize, Debug, PartialEq)]
pub struct PreludeTextResult {
    pub text: String,
}

/// Params of `zy/viewIr`.
#[derive(Deserialize, Serialize, Debug)]
#[serde(rename_all = "camelCase")]
pub struct ViewIrParams {
    pub text_document: TextDocumentIdentifier,
    pub position: Position,
    pub stage: String,
}

/// Result of `zy/viewIr`.
#[derive(Deserialize, Serialize, Debug, PartialEq)]
pub struct ViewIrResult {
    pub text: String,
}

/// The argument of `zy.computeGradient` and `zy.computeDerivative`.
#[derive(Deserialize, Serialize, Debug)]
pub struct GradientArgs {
    pub uri: Url,
    pub function: String,
}

/// What `zy.computeGradient` returns (and what the lens and inlay hint then show).
#[derive(Deserialize, Serialize, Debug, Clone, PartialEq)]
pub struct GradientResult {
    pub call: String,
    pub value: String,
    pub gradient: String,
    pub micros: u64,
    /// Where a non-finite gradient came from: `path:line:col: what happened` (absent when the
    /// gradient is finite).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nonfinite: Option<String>,
    /// `"forward"` when forward mode computed the gradient (one pushforward per input
    /// number) because reverse mode cannot take the function (absent otherwise).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<String>,
}

/// What `zy.computeDerivative` returns (and what the lens then shows).
#[derive(Deserialize, Serialize, Debug, Clone, PartialEq)]
pub struct DerivativeResult {
    pub call: String,
    pub value: String,
    pub derivative: String,
    pub micros: u64,
}
