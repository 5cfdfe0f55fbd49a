//! Salsa inputs: the only mutable truth. Source files (path and text), the workspace's file set
//! and the bundled library's files.

use std::collections::BTreeMap;
use std::path::PathBuf;

/// One source file: its path (as the user named it, used in messages) and its text.
#[salsa::input(debug)]
pub struct SourceFile {
    #[returns(ref)]
    pub path: PathBuf,
    #[returns(ref)]
    pub text: String,
}

/// The set of files making up the program, in a stable order (the order they were added).
/// Methods of one function defined in several files are ordered by this order.
#[salsa::input(singleton, debug)]
pub struct Workspace {
    #[returns(ref)]
    pub files: Vec<SourceFile>,
}

/// The prelude: the bundled Julia library every file sees (see [`crate::prelude`]), one file
/// per module, in load order. Set once when the database is made.
#[salsa::input(singleton, debug)]
pub struct Prelude {
    #[returns(ref)]
    pub files: Vec<SourceFile>,
}

/// Files that an `include` names but that could not be read, with the reason (set by the host,
/// which does the reading).
#[salsa::input(singleton, debug)]
pub struct Unreadable {
    #[returns(ref)]
    pub reasons: BTreeMap<PathBuf, String>,
}

/// What the JIT compiles for: fast code for functions called many times (the editor's lenses,
/// benchmarks), or quick compilation for a process that calls each compiled function a few
/// times (`zy-analyze check`, `grad`, `eval`): see [`crate::jit::compiled`]. Set by the host.
#[salsa::input(singleton, debug)]
pub struct CodeGoal {
    /// Compile quickly rather than to fast code.
    pub quick: bool,
}
