//! Lowering per item: each top-level definition becomes untyped SSA on its own, with spans
//! relative to the item's start and `Span::file` set to the item's number.

use std::collections::BTreeSet;
use std::sync::Arc;

use zy_lower::LoweredItem;
use zy_syntax::ast::Item;

use crate::input::Workspace;
use crate::item::{item_ast, item_tree, ItemId, ItemKind};

/// The names of the workspace's top-level bindings (what lowering treats as globals). Equal
/// across body edits.
#[salsa::tracked(returns(ref))]
pub fn global_names(db: &dyn salsa::Database, ws: Workspace) -> BTreeSet<String> {
    ws.files(db)
        .iter()
        .flat_map(|&f| item_tree(db, f).iter())
        .filter(|id| id.kind(db) == ItemKind::Global)
        .map(|id| id.name(db).to_string())
        .collect()
}

/// How many methods of the same generic function come before `item` in the workspace (in file
/// order): it keeps the closure names of different methods apart.
#[salsa::tracked(returns(copy))]
pub fn method_ordinal(db: &dyn salsa::Database, item: ItemId) -> u32 {
    let ws = Workspace::get(db);
    let mut n = 0;
    for &file in ws.files(db) {
        for &other in item_tree(db, file) {
            if other == item {
                return n;
            }
            if other.kind(db) == ItemKind::Function && other.name(db) == item.name(db) {
                n += 1;
            }
        }
    }
    n
}

/// The untyped SSA of one item: its methods (with those of its closures), struct definitions
/// or binding thunk, and the lowering errors found. Re-runs only when the item's own text (or
/// the set of global names) changes.
#[salsa::tracked(returns(ref))]
pub fn ssa(db: &dyn salsa::Database, item: ItemId) -> Arc<LoweredItem> {
    let Some(ast) = item_ast(db, item) else {
        return Arc::new(LoweredItem::default());
    };
    let file = item.span_file();
    let lowered = match &**ast {
        Item::Function(def) => {
            let globals = global_names(db, Workspace::get(db));
            zy_lower::lower_method(file, def, globals, method_ordinal(db, item))
        }
        Item::Struct(def) => zy_lower::lower_struct(file, def),
        Item::Global(def) => zy_lower::lower_global(file, def, global_names(db, Workspace::get(db))),
    };
    Arc::new(lowered)
}
