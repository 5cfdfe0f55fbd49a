//! The crate's integration tests, one module per file, in one test executable (one link
//! instead of one per file).

mod common;

mod builtins;
mod errors;
mod paper;
mod robust;
mod source;
