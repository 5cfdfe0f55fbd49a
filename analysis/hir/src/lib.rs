//! The salsa database of zy: source files in, parsed items, untyped SSA per item, typed SSA per
//! specialisation, and diagnostics out. Every query is keyed by a small id (a file, an item, an
//! instance), so an edit to one function re-runs only that function's queries and those of the
//! instances whose inputs actually changed.
//!
//! The pipeline and what keeps it incremental:
//!
//! - `parse(file)` -> `item_tree(file)`: one interned [`ItemId`] per top-level definition
//!   (file, kind, name, index among same-named items). Equal across body edits.
//! - `item_ast(item)`: the item's AST with every byte offset replaced by its rank among the
//!   item's range boundaries, so edits elsewhere in the file and whitespace or comment edits
//!   inside the item leave it equal; `item_boundaries(item)` maps ranks back to offsets.
//! - `ssa(item)`: lowering of one item; IR spans carry the item's number in `Span::file` and
//!   ranks as offsets ([`locate`] maps them back to a file range).
//! - `scope_files(root)`: what a file sees (the prelude and itself); `resolved_ssa(root, item)`:
//!   an item's IR with its names resolved in that scope ([`scope`]).
//! - `program_index(root)`: every method, struct and binding of a scope that its code reaches
//!   (the prelude's only as far as reached by name, `reach.rs`); its equality ignores bodies,
//!   so a body edit does not invalidate the instances that merely call the edited function.
//!   A library method that is one plain method is held by its signature from the build-time
//!   index, its body lowered only when `typed` specialises it (`stub.rs`).
//! - `typed(instance)`: `zy_infer::infer_instance` on the index, depending on its own body and
//!   on `ret_type(callee)` of each callee. Recursion is a salsa cycle, iterated to a fixpoint
//!   from `Union{}` (`cycle_initial`), with a bound on the iterations.
//! - `expanded(instance)` -> `adjoint(instance in program)` -> `gradient(instance)`: the one
//!   adjoint path ([`ad`]): the program that runs an instance with differentiation calls
//!   expanded, each instance's forward and pullback functions as its gradient builds them, and
//!   the gradient driver's program. The interpreter's gradient, the JIT, the IR views and hover
//!   all read these.
//! - `compiled(instance, target)`: machine code of an instance or of its gradient driver,
//!   from `expanded` or `gradient`.
//! - `diagnostics(file)`: syntax and lowering errors, and the type errors of the `# zy: at`
//!   calls; [`type_call`] types any call string against the workspace.
//!
//! The database logs executed queries (salsa `WillExecute` events) for tests of reuse.

pub mod ad;
mod binding;
pub mod call;
pub mod db;
mod describe;
pub mod diag;
mod encode;
pub mod input;
pub mod item;
mod item_kind;
pub mod jit;
pub mod lower;
mod mutation;
pub mod prelude;
pub mod program;
mod reach;
mod resolve;
pub mod rule;
pub mod scope;
mod scope_names;
mod signature;
pub mod span;
pub mod specialise;
mod stub;
mod unpack;

pub use ad::{adjoint, expanded, gradient, reaching, AdjointKey, GradientProgram};
pub use call::{
    blocking_errors, type_call, type_call_in, type_call_to_run, typed_program, CallErrors,
    CallFunctions, TypedCall, CALL_NAME, CALL_SPAN_FILE,
};
pub use db::RootDatabase;
pub use diag::{
    diagnostics, fatal_errors, item_of_span, load_errors, locate, skipped_statements, Diag, SKIPPED,
};
pub use input::{Prelude, SourceFile, Workspace};
pub use item::{
    docstrings, item_ast, item_boundaries, item_docstrings, item_range, item_tree, parse, ItemId,
    ItemKind,
};
pub use jit::{compiled, CompileKey, Target};
pub use lower::ssa;
pub use program::{
    needed_names, program_index, resolved_ssa, KnownBindings, ProgramIndex, ProgramKey,
};
pub use resolve::UNKNOWN_BINDING;
pub use rule::Rules;
pub use scope::{
    file_module, includes, is_prelude, item_module, module_at, package_sources, program_items,
    qualify, scope_files, scope_root, MAIN, UNKNOWN_PACKAGE,
};
pub use span::{line_col, offset_of, FileRange, LineCol};
pub use specialise::{ret_type, typed, InstanceId};
