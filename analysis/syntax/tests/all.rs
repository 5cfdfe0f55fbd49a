//! The crate's integration tests, one module per file, in one test executable (one link
//! instead of one per file).

mod annotations;
mod budget;
mod constructs;
mod errors;
mod lexer;
mod parse_expr;
mod precedence;
mod precedence_property;
mod ranges;
mod robustness;
mod syntax_tree;
