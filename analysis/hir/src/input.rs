//! Salsa inputs: the only mutable truth. Source files (path and text) and the workspace's file set.

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
