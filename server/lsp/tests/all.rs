//! The crate's integration tests, one module per file, in one test executable (one link
//! instead of one per file).

mod client;
mod faults;
mod stdio;
