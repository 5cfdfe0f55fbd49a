//! Parsing and the per-file item tree: one stable id per top-level definition, and each item's
//! AST made relative to its own start.

use std::borrow::Cow;
use std::path::Path;
use std::sync::Arc;

use rustc_hash::FxHashMap;
use salsa::plumbing::AsId;
use zy_ir::Name;
use zy_lower::LoweredItem;
use zy_syntax::ast::{self, Item};

use crate::encode::{encode_item, Encoded};
use crate::input::SourceFile;
use crate::signature::{signature, Signature};
use crate::stub::{BundledMethod, StaticType, Use};

/// The syntax tree of a file (never fails: errors are inside).
#[salsa::tracked(returns(ref))]
pub fn parse(db: &dyn salsa::Database, file: SourceFile) -> Arc<ast::SourceFile> {
    let text = file.text(db);
    Arc::new(match source_path(file.path(db)) {
        Some(path) => zy_syntax::parse_file_at(text, &path),
        None => zy_syntax::parse_file(text),
    })
}

/// The path Julia's `@__FILE__` gives in a file at `path`: absolute (a relative path is taken
/// from the current directory, as `julia path` does) and normalised; `None` if it is not
/// UTF-8.
fn source_path(path: &Path) -> Option<String> {
    let absolute = std::path::absolute(path).ok()?;
    crate::scope::normalize(&absolute)
        .to_str()
        .map(str::to_string)
}

/// The docstrings of a file, with the names they document (read only when asked: hover
/// shows them).
#[salsa::tracked(returns(ref))]
pub fn docstrings(db: &dyn salsa::Database, file: SourceFile) -> Arc<Vec<zy_syntax::Docstring>> {
    Arc::new(zy_syntax::docstrings(file.text(db)))
}

pub use crate::item_kind::ItemKind;

/// The identity of a top-level item: its file, the module it is written in inside the file, its
/// kind, name and which of the same-named items of that kind there it is, and which load of
/// its file it belongs to. Edits to its body (or anywhere else) keep the id; its number goes
/// into the `file` field of the IR spans of everything lowered from it.
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
    /// Which load of its file into a program it is an item of: 0 for the file's own items
    /// ([`item_tree`]), `n` for those of the file's `n`-th further `include` into another
    /// module, which Julia evaluates again there ([`loaded_items_of`]): the same text, a
    /// definition of its own.
    #[returns(copy)]
    pub load: u32,
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
    let (kind, name) = crate::item_kind::kind_and_name(item);
    (kind, name.into())
}

/// A prelude item as the build script found it (`build.rs`): where it is, what it defines,
/// and the byte range of the text that parses to it on its own.
pub(crate) struct BundledItem {
    /// The path of the `module` blocks around it in its file, as [`ItemId::module`].
    pub module: &'static str,
    pub kind: ItemKind,
    /// As [`ItemId::name`].
    pub name: &'static str,
    /// As [`ItemId::nth`]: how many items of its module, kind and name precede it in the file.
    pub same: u32,
    /// Whether it is a `baremodule` (the one fact of a module item that scopes read: its
    /// text is the whole module's, which is not parsed for it).
    pub bare: bool,
    /// The byte range of its text in the file.
    pub start: u32,
    pub end: u32,
    /// Its position among the items its text parses to (an inner constructor follows its
    /// struct; every other item is the only one).
    pub nth: u32,
    /// Its signature's type names, as [`crate::signature::signature`] reads them.
    pub sig: Signature<'static>,
    /// The same names resolved in the prelude's own scope (valid where
    /// [`crate::scope::ScopeNames::library_as_built`]).
    pub resolved_sig: Signature<'static>,
    /// For an item that lowers to one plain method: that method without its body.
    pub method: Option<BundledMethod>,
    /// The byte range in [`LOWERED`] of its packed untyped SSA ([`crate::unpack`]).
    pub lowered: Option<(usize, usize)>,
    /// The byte range in [`LOWERED`] of the same, resolved in the prelude's own scope (valid
    /// where [`crate::scope::ScopeNames::library_as_built`]).
    pub resolved: Option<(usize, usize)>,
    /// For a binding, what [`binding_value`] says of it.
    pub binding: Option<BundledBinding>,
    /// For a struct, what [`is_immutable_struct`] says of it.
    pub immutable: bool,
    /// For an `export`, the names it lists.
    pub exports: &'static [&'static str],
    /// For a function, struct or binding, the name the program's index of library items
    /// finds it by, resolved in the prelude's own scope (`prelude_items` in
    /// [`crate::program`]).
    pub key: Option<&'static str>,
}

/// The items of each file of [`crate::prelude::PRELUDE`], in `flat_items` order.
static BUNDLED: &[&[BundledItem]] = include!(concat!(env!("OUT_DIR"), "/bundled.rs"));

/// The bundled items' untyped SSA, packed by the build script.
static LOWERED: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/lowered.bin"));

/// The build-time index of `file`'s items if it is a prelude file with the bundled text: its
/// items are then parsed one at a time, when read, and the file as a whole never is.
pub(crate) fn bundled(
    db: &dyn salsa::Database,
    file: SourceFile,
) -> Option<&'static [BundledItem]> {
    bundled_index(db, file).and_then(|i| BUNDLED.get(i).copied())
}

#[salsa::tracked]
fn bundled_index(db: &dyn salsa::Database, file: SourceFile) -> Option<usize> {
    let i = crate::input::Prelude::get(db)
        .files(db)
        .iter()
        .position(|&f| f == file)?;
    (crate::prelude::PRELUDE.get(i)?.text == file.text(db).as_str()).then_some(i)
}

/// The build-time index entry of `id`, if it is an item of a prelude file with the bundled text
/// (one query read: a first gradient asks this of its library items ~5,000 times).
fn bundled_item(db: &dyn salsa::Database, id: ItemId) -> Option<&'static BundledItem> {
    let positions = item_positions(db, id.file(db));
    BUNDLED
        .get(positions.bundled?)?
        .get(*positions.at.get(&id)?)
}

/// Each item of `file` with its build-time index entry, if `file` is a prelude file with the
/// bundled text (its [`BundledItem::key`] is the name the program's index of library items
/// finds it by, as resolved in the prelude's own scope).
pub(crate) fn built_items(
    db: &dyn salsa::Database,
    file: SourceFile,
) -> Option<impl Iterator<Item = LibraryItem> + '_> {
    let bundled = bundled(db, file)?;
    Some(
        item_tree(db, file)
            .iter()
            .zip(bundled)
            .map(|(&id, b)| LibraryItem { id, built: Some(b) }),
    )
}

/// A library item as the program's index of library names holds it: its id, and its entry in
/// the build-time index if its file has the bundled text, looked up once (a first gradient
/// reads the entries of ~1,400 items several times each while it follows them).
#[derive(Clone, Copy)]
pub(crate) struct LibraryItem {
    pub id: ItemId,
    pub built: Option<&'static BundledItem>,
}

/// Equal when the ids are and they have the same entry (one table, so compared by address).
impl PartialEq for LibraryItem {
    fn eq(&self, other: &LibraryItem) -> bool {
        self.id == other.id
            && match (self.built, other.built) {
                (Some(a), Some(b)) => std::ptr::eq(a, b),
                (a, b) => a.is_none() && b.is_none(),
            }
    }
}

impl Eq for LibraryItem {}

impl std::fmt::Debug for LibraryItem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LibraryItem")
            .field("id", &self.id)
            .field("built", &self.built.is_some())
            .finish()
    }
}

impl LibraryItem {
    /// `id` with its build-time index entry.
    pub(crate) fn of(db: &dyn salsa::Database, id: ItemId) -> LibraryItem {
        LibraryItem {
            id,
            built: bundled_item(db, id),
        }
    }

    /// The item's kind.
    pub(crate) fn kind(self, db: &dyn salsa::Database) -> ItemKind {
        self.built.map_or_else(|| self.id.kind(db), |b| b.kind)
    }

    /// The type names of the item's signature, unresolved: from the build-time index for a
    /// bundled prelude item (which is then neither parsed nor lowered), else from its lowering.
    pub(crate) fn signature(self, db: &dyn salsa::Database) -> Signature<'_> {
        match self.built {
            Some(b) => borrowed(&b.sig),
            None => signature(crate::lower::ssa(db, self.id)),
        }
    }

    /// The type names of the item's signature resolved in the prelude's own scope by the build
    /// script, if it is a bundled prelude item: its names as resolved in a program whose scope
    /// is [`crate::scope::ScopeNames::library_as_built`].
    pub(crate) fn built_signature<'a>(self) -> Option<Signature<'a>> {
        self.built.map(|b| borrowed(&b.resolved_sig))
    }

    /// The build script's lowering of the item if it is a bundled one plain method (see
    /// [`crate::stub`]).
    pub(crate) fn method(self) -> Option<&'static BundledMethod> {
        self.built?.method.as_ref()
    }
}

/// The docstrings that may document `id`, with offsets in its file: for a bundled prelude item
/// those of its own text, which holds the docstring above it (the file is never parsed
/// whole); else those of its file.
#[salsa::tracked(returns(ref))]
pub fn item_docstrings(db: &dyn salsa::Database, id: ItemId) -> Arc<Vec<zy_syntax::Docstring>> {
    let Some(b) = bundled_item(db, id) else {
        return docstrings(db, id.file(db)).clone();
    };
    let text = id.file(db).text(db);
    let own = text.get(b.start as usize..b.end as usize).unwrap_or("");
    let mut found = zy_syntax::docstrings(own);
    for d in &mut found {
        d.name = ast::TextRange::new(d.name.start + b.start, d.name.end + b.start);
    }
    Arc::new(found)
}

/// A signature of the build-time index, borrowed for as long as the caller needs it.
fn borrowed<'a>(s: &'static Signature<'static>) -> Signature<'a> {
    Signature {
        guards: Cow::Borrowed(&s.guards),
        type_values: Cow::Borrowed(&s.type_values),
        types: Cow::Borrowed(&s.types),
        high_rank: s.high_rank,
        concrete: s.concrete,
        subject: s.subject,
    }
}

/// Whether module item `id` is a `baremodule` (which does not see Base): for a bundled prelude
/// item from the build-time index, else from its parse.
/// A bundled binding's [`BindingValue`], as the build-time index holds it.
pub(crate) struct BundledBinding {
    pub makers: Option<&'static [&'static str]>,
    pub dotted: Option<&'static str>,
}

/// What a binding's value is, as far as scopes need it.
#[derive(PartialEq, Debug)]
pub(crate) struct BindingValue {
    /// The structs constructed to build it if no call can change it in place
    /// ([`crate::binding::settled_makers`]; they must be immutable all through).
    pub makers: Option<Vec<Name>>,
    /// The dotted name it is, if it is one (`const U = A.B`).
    pub dotted: Option<Cow<'static, str>>,
}

impl BindingValue {
    /// Read from the value expression of a binding.
    fn of(value: &zy_syntax::ast::Expr) -> BindingValue {
        BindingValue {
            makers: crate::binding::settled_makers(value)
                .map(|ms| ms.into_iter().map(Name::from).collect()),
            dotted: crate::binding::dotted_name(value).map(Cow::Owned),
        }
    }
}

pub(crate) fn is_bare_module(db: &dyn salsa::Database, id: ItemId) -> bool {
    if let Some(b) = bundled_item(db, id) {
        return b.bare;
    }
    matches!(item_ast(db, id).as_deref(), Some(Item::Module(m)) if m.bare)
}

/// Of binding item `id` (`None` for any other item): its [`BindingValue`], from the
/// build-time index for a bundled prelude item, else from its parse.
pub(crate) fn binding_value(db: &dyn salsa::Database, id: ItemId) -> Option<BindingValue> {
    if let Some(b) = bundled_item(db, id) {
        return b.binding.as_ref().map(|b| BindingValue {
            makers: b
                .makers
                .map(|ms| ms.iter().map(|&m| Name::from(m)).collect()),
            dotted: b.dotted.map(Cow::Borrowed),
        });
    }
    match item_ast(db, id).as_deref() {
        Some(Item::Global(g)) => Some(BindingValue::of(&g.value)),
        _ => None,
    }
}

/// Whether struct item `id` is one whose values no call can change
/// ([`crate::binding::immutable_struct`]): from the build-time index for a bundled prelude
/// item, else from its parse.
pub(crate) fn is_immutable_struct(db: &dyn salsa::Database, id: ItemId) -> bool {
    if let Some(b) = bundled_item(db, id) {
        return b.immutable;
    }
    matches!(item_ast(db, id).as_deref(), Some(Item::Struct(def)) if crate::binding::immutable_struct(def))
}

/// The names export item `id` lists: from the build-time index for a bundled prelude item,
/// else from its parse.
pub(crate) fn exported_names(db: &dyn salsa::Database, id: ItemId) -> Vec<Name> {
    if let Some(b) = bundled_item(db, id) {
        return b.exports.iter().map(|&n| Name::from(n)).collect();
    }
    match item_ast(db, id).as_deref() {
        Some(Item::Export(e)) => e.names.iter().map(|n| Name::from(n.as_str())).collect(),
        _ => Vec::new(),
    }
}

/// The build script's lowering of bundled item `id` (as [`crate::ssa`] lowers it), read back
/// without parsing or lowering.
pub(crate) fn bundled_lowering(db: &dyn salsa::Database, id: ItemId) -> Option<LoweredItem> {
    let (start, end) = bundled_item(db, id)?.lowered?;
    if !prelude_bundled(db, crate::input::Prelude::get(db)) {
        return None;
    }
    crate::unpack::unpack(LOWERED.get(start..end)?, id.span_file())
}

/// [`bundled_lowering`] of `id` resolved in the prelude's own scope by the build script: the
/// item as `crate::resolve` resolves it in a program whose scope is
/// [`crate::scope::ScopeNames::library_as_built`] (which also says that the prelude is
/// bundled).
pub(crate) fn built_resolution(db: &dyn salsa::Database, id: ItemId) -> Option<LoweredItem> {
    let (start, end) = bundled_item(db, id)?.resolved?;
    crate::unpack::unpack(LOWERED.get(start..end)?, id.span_file())
}

/// Whether every prelude file has the bundled text: the names of a packed method's closures
/// count the methods of the same name in the files before its own (`method_ordinals`).
#[salsa::tracked]
pub(crate) fn prelude_bundled(db: &dyn salsa::Database, prelude: crate::input::Prelude) -> bool {
    prelude.files(db).iter().all(|&f| bundled(db, f).is_some())
}

/// The parse of bundled item `id`'s own text, where that text starts in its file, and the
/// item's position among the parse's items.
pub(crate) fn parse_bundled(
    db: &dyn salsa::Database,
    id: ItemId,
) -> Option<(ast::SourceFile, u32, usize)> {
    let b = bundled_item(db, id)?;
    let text = id.file(db).text(db).get(b.start as usize..b.end as usize)?;
    Some((zy_syntax::parse_file(text), b.start, b.nth as usize))
}

/// The items of a file with the path of the modules around each, modules flattened: a module
/// item comes first with its items emptied, then its items.
#[salsa::tracked(returns(ref), no_eq)]
fn flat_items(db: &dyn salsa::Database, file: SourceFile) -> Arc<Vec<(Name, Item)>> {
    let mut out = Vec::new();
    flatten(&parse(db, file).items, "", &mut out);
    Arc::new(out)
}

/// `items` written in `module`, modules flattened as [`flat_items`] lists them.
fn flatten(items: &[Item], module: &str, out: &mut Vec<(Name, Item)>) {
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
                flatten(&m.items, &inner, out);
            }
            other => out.push((module.into(), other.clone())),
        }
    }
}

/// The items of a file, in source order. Equal across edits that add, remove or rename no
/// definition, so queries over names are reused after a body edit.
#[salsa::tracked(returns(ref))]
pub fn item_tree(db: &dyn salsa::Database, file: SourceFile) -> Vec<ItemId> {
    if let Some(bundled) = bundled(db, file) {
        // Counted at build time: a fresh database lists the library's ~3,000 items without
        // parsing them. Consecutive items of one module share its name.
        let mut module = Name::from("");
        return bundled
            .iter()
            .map(|b| {
                if *module != *b.module {
                    module = Name::from(b.module);
                }
                ItemId::new(
                    db,
                    file,
                    module.clone(),
                    b.kind,
                    Name::from(b.name),
                    b.same,
                    0,
                )
            })
            .collect();
    }
    let mut seen: FxHashMap<(Name, ItemKind, Name), u32> = FxHashMap::default();
    flat_items(db, file)
        .iter()
        .map(|(module, item)| {
            let (kind, name) = item_name(item);
            let count = seen
                .entry((module.clone(), kind, name.clone()))
                .or_insert(0);
            let nth = *count;
            *count += 1;
            ItemId::new(db, file, module.clone(), kind, name, nth, 0)
        })
        .collect()
}

/// The items of `file` as its `load`-th load into a program defines them ([`ItemId::load`]):
/// its own items for 0, else a copy of each, read from the same text.
pub fn loaded_items_of(db: &dyn salsa::Database, file: SourceFile, load: u32) -> &[ItemId] {
    match load {
        0 => item_tree(db, file),
        _ => copied_items(db, file, load),
    }
}

#[salsa::tracked(returns(ref))]
fn copied_items(db: &dyn salsa::Database, file: SourceFile, load: u32) -> Vec<ItemId> {
    item_tree(db, file)
        .iter()
        .map(|&i| {
            let (module, name) = (i.module(db).clone(), i.name(db).clone());
            ItemId::new(db, file, module, i.kind(db), name, i.nth(db), load)
        })
        .collect()
}

/// The item of its file's own load that `id` is a copy of (`id` itself if it is one).
pub fn first_load(db: &dyn salsa::Database, id: ItemId) -> ItemId {
    if id.load(db) == 0 {
        return id;
    }
    let (module, name) = (id.module(db).clone(), id.name(db).clone());
    ItemId::new(db, id.file(db), module, id.kind(db), name, id.nth(db), 0)
}

/// Where the items of a file are: each one's position in its parse, and the file's place in
/// [`BUNDLED`] if it is a prelude file with the bundled text.
#[derive(Clone, PartialEq, Eq, Debug)]
struct ItemPositions {
    at: FxHashMap<ItemId, usize>,
    bundled: Option<usize>,
}

#[salsa::tracked(returns(ref))]
fn item_positions(db: &dyn salsa::Database, file: SourceFile) -> ItemPositions {
    let at = item_tree(db, file)
        .iter()
        .enumerate()
        .map(|(i, &id)| (id, i))
        .collect();
    ItemPositions {
        at,
        bundled: *bundled_index(db, file),
    }
}

/// The item's definition in its file's current parse.
fn find_item(db: &dyn salsa::Database, id: ItemId) -> Option<&Item> {
    let file = id.file(db);
    let index = *item_positions(db, file).at.get(&id)?;
    flat_items(db, file).get(index).map(|(_, item)| item)
}

/// The rank encoding of the item (re-computed on every edit of its file).
#[salsa::tracked(returns(ref), no_eq)]
fn item_encoded(db: &dyn salsa::Database, id: ItemId) -> Option<Arc<Encoded>> {
    if id.load(db) != 0 {
        return item_encoded(db, first_load(db, id)).clone();
    }
    if bundled(db, id.file(db)).is_none() {
        return find_item(db, id).map(|item| Arc::new(encode_item(item.clone(), 0)));
    }
    let (parsed, start, nth) = parse_bundled(db, id)?;
    // A module's own item is its header, as in `flat_items`.
    let item = match parsed.items.into_iter().nth(nth)? {
        Item::Module(mut m) => {
            m.items = Vec::new();
            Item::Module(m)
        }
        other => other,
    };
    Some(Arc::new(encode_item(item, start)))
}

/// The item's AST with every offset replaced by its rank among the item's range boundaries:
/// unchanged by edits outside the item and by whitespace and comment edits inside it.
#[salsa::tracked(returns(ref))]
pub fn item_ast(db: &dyn salsa::Database, id: ItemId) -> Option<Arc<Item>> {
    item_encoded(db, id).as_ref().map(|e| e.item.clone())
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::RootDatabase;

    /// A bundled method's stub is its lowering without the body, and the names it refers to are
    /// those of its lowering, resolved alike.
    fn stub_is_the_lowered_method(db: &RootDatabase, root: SourceFile, id: ItemId, at: &str) {
        let lowered = crate::program::resolved_in_root(db, root, id);
        let method = LibraryItem::of(db, id).method();
        let indexed = crate::program::indexed_in_root(db, root, id, method);
        let [(f, a)] = lowered.methods.as_slice() else {
            panic!("{at}: {} methods", lowered.methods.len())
        };
        let [(g, b)] = indexed.item.methods.as_slice() else {
            panic!("{at}: a stub of {} methods", indexed.item.methods.len())
        };
        assert!(
            lowered.structs.is_empty() && lowered.globals.is_empty(),
            "{at}"
        );
        assert_eq!(f, g, "{at}: generic");
        assert_eq!(a.sig, b.sig, "{at}: sig");
        assert_eq!(a.where_params, b.where_params, "{at}: where");
        assert_eq!(a.where_bounds, b.where_bounds, "{at}: bounds");
        assert_eq!((a.span, &a.keywords), (b.span, &b.keywords), "{at}: span");
        assert!(crate::stub::is_stub(&b.body), "{at}: a body");
        let names = |walk: &dyn Fn(&mut dyn FnMut(&Name, crate::reach::Mention))| {
            let mut out = Vec::new();
            walk(&mut |n, m| out.push(format!("{n} {m:?}")));
            out.sort();
            out.dedup();
            out
        };
        assert_eq!(
            names(&|f| crate::reach::item_names(lowered, &mut |n, m| f(n, m))),
            names(&|f| crate::program::indexed_names(&indexed, &mut |n, m| f(n, m))),
            "{at}: names"
        );
    }

    /// Each prelude item parsed from its own text is the item the whole file's parse has, at
    /// the same offsets, and the build-time index lists the whole parse's items with what the
    /// scope reads of each (signatures, bindings' values, exports, lowerings), its signature
    /// and lowering also resolved as a program that leaves the library's names alone resolves
    /// them.
    #[test]
    fn bundled_items_parse_alone() {
        let db = RootDatabase::default();
        for &file in crate::input::Prelude::get(&db).files(&db) {
            let path = file.path(&db).display().to_string();
            assert!(bundled(&db, file).is_some(), "{path} is not indexed");
            let whole = zy_syntax::parse_file(file.text(&db));
            assert_eq!(whole.errors, Vec::new(), "{path}");
            let mut flat = Vec::new();
            flatten(&whole.items, "", &mut flat);
            let ids = item_tree(&db, file);
            assert_eq!(ids.len(), flat.len(), "{path}: items");
            let mut seen: FxHashMap<(Name, ItemKind, Name), u32> = FxHashMap::default();
            for (&id, (module, item)) in ids.iter().zip(&flat) {
                let (kind, name) = item_name(item);
                let at = format!("{path}: {module} {name}");
                let nth = seen
                    .entry((module.clone(), kind, name.clone()))
                    .or_insert(0);
                assert_eq!(
                    (id.module(&db), id.kind(&db), id.name(&db), id.nth(&db)),
                    (module, kind, &name, *nth),
                    "{at}"
                );
                *nth += 1;
                match item {
                    Item::Module(m) => assert_eq!(is_bare_module(&db, id), m.bare, "{at}: bare"),
                    Item::Global(g) => assert_eq!(
                        binding_value(&db, id),
                        Some(BindingValue::of(&g.value)),
                        "{at}: binding"
                    ),
                    Item::Struct(def) => assert_eq!(
                        is_immutable_struct(&db, id),
                        crate::binding::immutable_struct(def),
                        "{at}: immutable"
                    ),
                    Item::Export(e) => {
                        let listed: Vec<Name> = e.names.iter().map(|n| n.as_str().into()).collect();
                        assert_eq!(exported_names(&db, id), listed, "{at}: exports");
                    }
                    _ => assert_eq!(binding_value(&db, id), None, "{at}: binding"),
                }
                let (alone, _, nth) = parse_bundled(&db, id).expect("parsed");
                assert_eq!(alone.errors, Vec::new(), "{at}");
                // A struct's text holds its inner constructors too.
                assert!(alone.items.len() > nth, "{at}");
                if nth == 0 && !matches!(item, Item::Struct(_)) {
                    assert_eq!(alone.items.len(), 1, "{at}");
                }
                let expected = encode_item(item.clone(), 0);
                let encoded = item_encoded(&db, id).as_ref().expect("encoded");
                assert!(encoded.item == expected.item, "{at}: the item differs");
                assert_eq!(encoded.boundaries, expected.boundaries, "{at}: offsets");
                let library = LibraryItem::of(&db, id);
                assert_eq!(
                    library.signature(&db),
                    signature(crate::lower::ssa(&db, id)),
                    "{at}: signature"
                );
                if library.method().is_some() {
                    stub_is_the_lowered_method(&db, file, id, &at);
                }
                assert_eq!(
                    bundled_lowering(&db, id),
                    Some(crate::lower::lower_item(&db, id)),
                    "{at}: the packed lowering"
                );
                let module = crate::scope::item_module(&db, file, id);
                let names = crate::scope::scope_names(&db, file);
                assert!(names.library_as_built(), "{path}");
                assert_eq!(
                    built_resolution(&db, id),
                    Some(crate::resolve::resolve_item(
                        &crate::lower::lower_item(&db, id),
                        &module,
                        names
                    )),
                    "{at}: the packing resolved at build time"
                );
                let (sig, built) = (library.signature(&db), library.built_signature());
                let built = built.expect("a bundled item");
                let resolve = |ns: &[&str]| -> Vec<Name> {
                    ns.iter().map(|n| names.resolve(&module, n)).collect()
                };
                let as_built =
                    |ns: &[&str]| -> Vec<Name> { ns.iter().map(|&n| n.into()).collect() };
                assert_eq!(
                    [&sig.guards, &sig.type_values, &sig.types].map(|ns| resolve(ns)),
                    [&built.guards, &built.type_values, &built.types].map(|ns| as_built(ns)),
                    "{at}: the signature resolved at build time"
                );
                assert_eq!(
                    sig.subject.map(|f| names.resolve(&module, f)),
                    built.subject.map(Name::from),
                    "{at}: the subject resolved at build time"
                );
                assert_eq!(
                    (sig.high_rank, sig.concrete),
                    (built.high_rank, built.concrete),
                    "{at}"
                );
            }
        }
    }
}
