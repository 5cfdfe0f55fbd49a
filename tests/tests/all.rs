//! The crate's integration tests, one module per file, in one test executable (one link
//! instead of one per file).

mod check;
mod cli;
mod differential;
mod findfirst;
mod generators;
mod incremental;
mod julia_syntax;
mod keywords;
mod long_chains;
mod ndarrays;
mod nested;
mod refusals;
mod slices;
mod vectors_of_arrays;
