//! The salsa database of zy: source files in, parsed items, untyped SSA per item, typed SSA per
//! specialisation, and diagnostics out. Every query is keyed by a small id (a file, an item, a
//! function name, an instance), so an edit to one function re-runs only that function's
//! queries and those of the instances whose inputs actually changed.

pub mod call;
pub mod db;
pub mod diag;
mod encode;
mod describe;
pub mod input;
pub mod item;
pub mod lower;
pub mod program;
pub mod span;
pub mod specialise;

pub use call::{type_call, typed_program, CallErrors, TypedCall, CALL_SPAN_FILE};
pub use db::RootDatabase;
pub use diag::{diagnostics, load_errors, locate, workspace_items, Diag};
pub use input::{SourceFile, Workspace};
pub use item::{item_ast, item_boundaries, item_range, item_tree, parse, ItemId, ItemKind};
pub use lower::ssa;
pub use program::{program_index, ProgramIndex};
pub use span::{line_col, FileRange, LineCol};
pub use specialise::{ret_type, typed, InstanceId};
