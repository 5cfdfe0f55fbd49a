//! Parsing and the per-file item tree: one stable id per top-level definition, and each item's
//! AST made relative to its own start.

use std::collections::HashMap;
use std::sync::Arc;

use salsa::plumbing::AsId;
use zy_ir::Name;
use zy_syntax::ast::{self, Item};

use crate::encode::{encode_item, Encoded};
use crate::input::SourceFile;

/// The syntax tree of a file (never fails: errors are inside).
#[salsa::tracked(returns(ref))]
pub fn parse(db: &dyn salsa::Database, file: SourceFile) -> Arc<ast::SourceFile> {
    Arc::new(zy_syntax::parse_file(file.text(db)))
}

/// What kind of definition an item is.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub enum ItemKind {
    /// A method definition (named or a callable struct's call method).
    Function,
    /// A `struct` / `mutable struct`.
    Struct,
    /// A top-level binding.
    Global,
    /// `include("path")`: named by the path as written.
    Include,
    /// `module M ... end`: named `M` (its items are items of their own).
    Module,
    /// `using ...` / `import ...`.
    Import,
    /// `export ...`.
    Export,
    /// A top-level statement zy does not run.
    Script,
}

/// The identity of a top-level item: its file, the module it is written in inside the file, its
/// kind, name and which of the same-named items of that kind there it is. Edits to its body (or anywhere else) keep the id; its number
/// goes into the `file` field of the IR spans of everything lowered from it.
#[salsa::interned(unsafe(no_lifetime), revisions = usize::MAX, debug)]
pub struct ItemId {
    #[returns(copy)]
    pub file: SourceFile,
    /// The path of the `module` blocks around it in its file (`M.N`), empty outside any.
    #[returns(ref)]
    pub module: Name,
    #[returns(copy)]
    pub kind: ItemKind,
    /// The function name (`f`, `(::Dense)` for a callable struct), struct name or binding name.
    #[returns(ref)]
    pub name: Name,
    /// Index among the items of the same kind and name in the file.
    #[returns(copy)]
    pub nth: u32,
}

impl ItemId {
    /// The number stored in `Span::file` for spans relative to this item (never 0, which marks
    /// spans without a source location). [`crate::item_of_span`] maps it back.
    pub fn span_file(self) -> u32 {
        self.as_id().index() + 1
    }
}

/// The name under which a definition is stored.
pub fn item_name(item: &Item) -> (ItemKind, Name) {
    match item {
        Item::Function(f) => (
            ItemKind::Function,
            zy_lower::generic_name(f).map_or_else(|| "#anonymous".into(), |n| n.as_str().into()),
        ),
        Item::Struct(s) => (ItemKind::Struct, s.name.as_str().into()),
        Item::Global(g) => (ItemKind::Global, g.name.as_str().into()),
        Item::Include(i) => (ItemKind::Include, i.path.as_str().into()),
        Item::Module(m) => (ItemKind::Module, m.name.as_str().into()),
        Item::Import(_) => (ItemKind::Import, "import".into()),
        Item::Export(_) => (ItemKind::Export, "export".into()),
        Item::Script(_) => (ItemKind::Script, "script".into()),
    }
}

/// The items of a file with the path of the modules around each, modules flattened: a module
/// item comes first with its items emptied, then its items.
#[salsa::tracked(returns(ref), no_eq)]
fn flat_items(db: &dyn salsa::Database, file: SourceFile) -> Arc<Vec<(Name, Item)>> {
    fn walk(items: &[Item], module: &str, out: &mut Vec<(Name, Item)>) {
        for item in items {
            match item {
                Item::Module(m) => {
                    let mut header = m.clone();
                    header.items = Vec::new();
                    out.push((module.into(), Item::Module(header)));
                    let inner = if module.is_empty() {
                        m.name.clone()
                    } else {
                        format!("{module}.{}", m.name)
                    };
                    walk(&m.items, &inner, out);
                }
                other => out.push((module.into(), other.clone())),
            }
        }
    }
    let mut out = Vec::new();
    walk(&parse(db, file).items, "", &mut out);
    Arc::new(out)
}

/// The items of a file, in source order. Equal across edits that add, remove or rename no
/// definition, so queries over names are reused after a body edit.
#[salsa::tracked(returns(ref))]
pub fn item_tree(db: &dyn salsa::Database, file: SourceFile) -> Vec<ItemId> {
    let mut seen: HashMap<(Name, ItemKind, Name), u32> = HashMap::new();
    flat_items(db, file)
        .iter()
        .map(|(module, item)| {
            let (kind, name) = item_name(item);
            let count = seen
                .entry((module.clone(), kind, name.clone()))
                .or_insert(0);
            let nth = *count;
            *count += 1;
            ItemId::new(db, file, module.clone(), kind, name, nth)
        })
        .collect()
}

/// The position of each item of a file in its parse.
#[salsa::tracked(returns(ref))]
fn item_positions(db: &dyn salsa::Database, file: SourceFile) -> HashMap<ItemId, usize> {
    item_tree(db, file)
        .iter()
        .enumerate()
        .map(|(i, &id)| (id, i))
        .collect()
}

/// The item's definition in its file's current parse.
fn find_item(db: &dyn salsa::Database, id: ItemId) -> Option<&Item> {
    let file = id.file(db);
    let index = *item_positions(db, file).get(&id)?;
    flat_items(db, file).get(index).map(|(_, item)| item)
}

/// The rank encoding of the item (re-computed on every edit of its file).
#[salsa::tracked(returns(ref), no_eq)]
fn item_encoded(db: &dyn salsa::Database, id: ItemId) -> Option<Arc<Encoded>> {
    find_item(db, id).map(|item| Arc::new(encode_item(item)))
}

/// The item's AST with every offset replaced by its rank among the item's range boundaries:
/// unchanged by edits outside the item and by whitespace and comment edits inside it.
#[salsa::tracked(returns(ref))]
pub fn item_ast(db: &dyn salsa::Database, id: ItemId) -> Option<Arc<Item>> {
    item_encoded(db, id)
        .as_ref()
        .map(|e| Arc::new(e.item.clone()))
}

/// The byte offsets in the item's file of the ranks used in [`item_ast`] and in the spans of
/// the IR lowered from it.
#[salsa::tracked(returns(ref))]
pub fn item_boundaries(db: &dyn salsa::Database, id: ItemId) -> Vec<u32> {
    item_encoded(db, id)
        .as_ref()
        .map(|e| e.boundaries.clone())
        .unwrap_or_default()
}

/// The byte range in the file of the ranks `start..end` of `id` (`None` if the item is gone).
pub fn item_range(
    db: &dyn salsa::Database,
    id: ItemId,
    start: u32,
    end: u32,
) -> Option<(u32, u32)> {
    let b = item_boundaries(db, id);
    let at = |r: u32| b.get(r as usize).or(b.last()).copied();
    Some((at(start)?, at(end)?))
}
