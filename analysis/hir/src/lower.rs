//! Lowering per item: each top-level definition becomes untyped SSA on its own, with spans
//! relative to the item's start and `Span::file` set to the item's number. Definitions of a
//! prelude module are named `Module.name`; the names they refer to are resolved later, per
//! scope ([`crate::resolve`]).

use std::collections::HashMap;
use std::sync::Arc;

use zy_ir::Name;
use zy_lower::LoweredItem;
use zy_syntax::ast::{FunctionName, Item, TypeExpr};

use crate::input::{Prelude, Workspace};
use crate::item::{item_ast, item_tree, ItemId, ItemKind};
use crate::scope::{file_module, qualify, MAIN, RRULE};

/// For every method item: how many methods of the same generic function come before it in the
/// prelude and the workspace (in file order). It keeps the closure names of different methods
/// apart. Equal across body edits.
#[salsa::tracked(returns(ref))]
pub fn method_ordinals(db: &dyn salsa::Database, ws: Workspace) -> HashMap<ItemId, u32> {
    let mut counts: HashMap<(&'static str, &Name), u32> = HashMap::new();
    let mut out = HashMap::new();
    let files = Prelude::get(db).files(db).iter().chain(ws.files(db));
    for &file in files {
        let module = file_module(db, file);
        for &item in item_tree(db, file) {
            if item.kind(db) == ItemKind::Function {
                let n = counts.entry((module, item.name(db))).or_insert(0);
                out.insert(item, *n);
                *n += 1;
            }
        }
    }
    out
}

/// The untyped SSA of one item: its methods (with those of its closures), struct definitions
/// or binding thunk, and the lowering errors found. Re-runs only when the item's own text
/// changes.
#[salsa::tracked(returns(ref))]
pub fn ssa(db: &dyn salsa::Database, item: ItemId) -> Arc<LoweredItem> {
    let Some(ast) = item_ast(db, item) else {
        return Arc::new(LoweredItem::default());
    };
    let file = item.span_file();
    let module = file_module(db, item.file(db));
    let qualified;
    let ast = if module == MAIN {
        &**ast
    } else {
        qualified = qualified_definition(ast, module);
        &qualified
    };
    let lowered = match ast {
        Item::Function(def) => {
            let ordinal = method_ordinals(db, Workspace::get(db))
                .get(&item)
                .copied()
                .unwrap_or(0);
            zy_lower::lower_method(file, def, ordinal)
        }
        Item::Struct(def) => zy_lower::lower_struct(file, def),
        Item::Global(def) => zy_lower::lower_global(file, def),
        Item::Include(_) => LoweredItem::default(),
    };
    Arc::new(lowered)
}

/// `item` with the name it defines qualified by `module` (`abs2` in Base defines `Base.abs2`;
/// a call method of a struct of the module is a method of `(::Base.S)`). Rules (`rrule`) are
/// methods of one function wherever they are written, as ChainRulesCore's are.
fn qualified_definition(item: &Item, module: &str) -> Item {
    let mut item = item.clone();
    match &mut item {
        Item::Function(def) => match &mut def.name {
            FunctionName::Named(n) if n == RRULE => {}
            FunctionName::Named(n) => *n = qualify(module, n).to_string(),
            FunctionName::Callable {
                ty: TypeExpr::Named { name, .. },
                ..
            } => *name = qualify(module, name).to_string(),
            FunctionName::Callable { .. } | FunctionName::Anonymous => {}
        },
        Item::Struct(def) => def.name = qualify(module, &def.name).to_string(),
        Item::Global(def) => def.name = qualify(module, &def.name).to_string(),
        Item::Include(_) => {}
    }
    item
}
