//! The crate's integration tests, one module per file, in one test executable (one link
//! instead of one per file).

mod common;

mod activity;
mod checkpoint;
mod errors;
mod fixtures;
mod forward;
mod gradients;
mod nested;
mod property;
mod rules;
