//! The crate's integration tests, one module per file, in one test executable (one link
//! instead of one per file).

mod common;

mod errors;
mod fixtures;
mod lower;
