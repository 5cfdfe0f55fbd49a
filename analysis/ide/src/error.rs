//! The one shape of every user-facing error: a position and a one-line message.

use std::fmt;
use std::path::PathBuf;

/// A problem with the user's input (a file, a call string), located at `file:line:col`
/// (1-based line, column in characters). Prints as `path:line:col: error: message`.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct UserError {
    /// The file the position is in; `<call>` for a position inside a call string.
    pub file: PathBuf,
    pub line: u32,
    pub col: u32,
    pub message: String,
}

impl fmt::Display for UserError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}:{}: error: {}",
            self.file.display(),
            self.line,
            self.col,
            self.message
        )
    }
}

impl std::error::Error for UserError {}

/// The pseudo-path of positions inside a call string given on the command line or in an
/// annotation.
pub const CALL_FILE: &str = "<call>";
