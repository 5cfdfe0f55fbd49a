//! What kind of definition a top-level item is and the name it is stored under. Shared with
//! the build script, which indexes the prelude's items ([`crate::item`]).

use zy_syntax::ast::Item;

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
    /// A definition zy refused: named by what it would define.
    Refused,
}

/// The kind of `item` and the name under which it is stored.
pub fn kind_and_name(item: &Item) -> (ItemKind, String) {
    match item {
        Item::Function(f) => (
            ItemKind::Function,
            zy_lower::generic_name(f).unwrap_or_else(|| "#anonymous".into()),
        ),
        Item::Struct(s) => (ItemKind::Struct, s.name.clone()),
        Item::Global(g) => (ItemKind::Global, g.name.clone()),
        Item::Include(i) => (ItemKind::Include, i.path.clone()),
        Item::Module(m) => (ItemKind::Module, m.name.clone()),
        Item::Import(_) => (ItemKind::Import, "import".into()),
        Item::Export(_) => (ItemKind::Export, "export".into()),
        Item::Script(_) => (ItemKind::Script, "script".into()),
        Item::Refused(r) => (ItemKind::Refused, r.name.clone()),
    }
}
