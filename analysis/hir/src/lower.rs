//! Lowering per item: each top-level definition becomes untyped SSA on its own, with spans
//! relative to the item's start and `Span::file` set to the item's number. Names stay as
//! written: which module a definition belongs to and what the names it uses mean depend on the
//! program the item is part of, and are settled per scope ([`crate::resolve`]).

use std::sync::Arc;

use rustc_hash::FxHashMap;
use zy_ir::Name;
use zy_lower::LoweredItem;
use zy_syntax::ast::Item;

use crate::input::{Prelude, Workspace};
use crate::item::{bundled_lowering, first_load, item_ast, item_tree, ItemId, ItemKind};

/// For every method item: how many methods of a function of the same name come before it in
/// the prelude and the workspace (in file order). It keeps the closure names of different
/// methods apart, in every module. Equal across body edits.
#[salsa::tracked(returns(ref))]
pub fn method_ordinals(db: &dyn salsa::Database, ws: Workspace) -> FxHashMap<ItemId, u32> {
    let mut counts: FxHashMap<&Name, u32> = FxHashMap::default();
    let mut out = FxHashMap::default();
    let files = Prelude::get(db).files(db).iter().chain(ws.files(db));
    for &file in files {
        for &item in item_tree(db, file) {
            if item.kind(db) == ItemKind::Function {
                let n = counts.entry(item.name(db)).or_insert(0);
                out.insert(item, *n);
                *n += 1;
            }
        }
    }
    out
}

/// How far apart the closure ordinals of the loads of one file are ([`crate::item::ItemId::load`]):
/// more than the methods of one name in any workspace.
const COPY_ORDINALS: u32 = 100_000;

/// The untyped SSA of one item: its methods (with those of its closures), struct definitions
/// or binding thunk, and the lowering errors found. Re-runs only when the item's own text
/// changes. A bundled library item's is the build script's lowering, read back.
#[salsa::tracked(returns(ref))]
pub fn ssa(db: &dyn salsa::Database, item: ItemId) -> Arc<LoweredItem> {
    Arc::new(bundled_lowering(db, item).unwrap_or_else(|| lower_item(db, item)))
}

/// `item` lowered from its text (see [`ssa`]).
pub(crate) fn lower_item(db: &dyn salsa::Database, item: ItemId) -> LoweredItem {
    let Some(ast) = item_ast(db, item) else {
        return LoweredItem::default();
    };
    let file = item.span_file();
    match &**ast {
        Item::Function(def) => {
            let ordinal = method_ordinals(db, Workspace::get(db))
                .get(&first_load(db, item))
                .copied()
                .unwrap_or(0);
            // A copy's closures are functions of their own, resolved in its module.
            let ordinal = ordinal + COPY_ORDINALS * item.load(db);
            let mut lowered = zy_lower::lower_method(file, def, ordinal);
            let refused = crate::diag::unsupported_in(db, item);
            lowered.name_refusals(|span| {
                let e = refused.iter().find(|e| e.span == span)?;
                Some(e.message.clone())
            });
            lowered
        }
        Item::Struct(def) => zy_lower::lower_struct(file, def),
        Item::Global(def) => zy_lower::lower_global(file, def),
        Item::Include(_)
        | Item::Module(_)
        | Item::Import(_)
        | Item::Export(_)
        | Item::Script(_)
        | Item::Refused(_) => LoweredItem::default(),
    }
}
