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
}

/// The identity of a top-level item: its file, kind, name and which of the same-named items of
/// that kind in the file it is. Edits to its body (or anywhere else) keep the id; its number
/// goes into the `file` field of the IR spans of everything lowered from it.
#[salsa::interned(unsafe(no_lifetime), revisions = usize::MAX, debug)]
pub struct ItemId {
    #[returns(copy)]
    pub file: SourceFile,
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
    }
}

/// The items of a file, in source order. Equal across edits that add, remove or rename no
/// definition, so queries over names are reused after a body edit.
#[salsa::tracked(returns(ref))]
pub fn item_tree(db: &dyn salsa::Database, file: SourceFile) -> Vec<ItemId> {
    let mut seen: HashMap<(ItemKind, Name), u32> = HashMap::new();
    parse(db, file)
        .items
        .iter()
        .map(|item| {
            let (kind, name) = item_name(item);
            let count = seen.entry((kind, name.clone())).or_insert(0);
            let nth = *count;
            *count += 1;
            ItemId::new(db, file, kind, name, nth)
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
    parse(db, file).items.get(index)
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
