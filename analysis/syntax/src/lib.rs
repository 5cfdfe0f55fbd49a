//! Parsing of the Julia subset: tree-sitter-julia's tree turned into zy's [`ast`], with Julia's
//! meaning restored where the grammar disagrees. Parsing never fails: it returns the items that
//! parsed and the errors found. No salsa, no LSP, no IR here.

pub mod ast;
