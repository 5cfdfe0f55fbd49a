//! The crate's integration tests, one module per file, in one test executable (one link
//! instead of one per file).

mod support;

mod data;
mod fixtures;
mod gradients;
mod linalg;
mod objects;
mod property;
mod scalars;
