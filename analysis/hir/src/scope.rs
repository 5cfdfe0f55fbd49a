//! What a file's code sees: its own definitions, those of the files it `include`s (paths
//! relative to it), and the prelude's. Two files of the workspace that do not include each
//! other do not see each other: each file that no other file includes is the root of its own
//! program ([`crate::program_index`]), and an included file belongs to its includer's. Names are
//! qualified by their module: `Base.abs2` for a prelude definition, the plain name for one of
//! the user's files (Julia's `Main`), and [`ScopeNames::resolve`] says which definition a name
//! written in a module means.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Component, Path, PathBuf};

use zy_ir::Name;
use zy_syntax::ast::Item;

use crate::input::{Prelude, SourceFile, Workspace};
use crate::item::{item_ast, item_tree, ItemId, ItemKind};
use crate::prelude::PRELUDE;

/// The module of the user's files (Julia's `Main`): its names are not qualified.
pub const MAIN: &str = "";

/// The function that in-source rules are methods of, wherever they are written (as
/// ChainRulesCore's `rrule` is): never qualified.
pub const RRULE: &str = "rrule";

/// The module that a file's top-level definitions belong to: the prelude module of a prelude
/// file, [`MAIN`] otherwise.
pub fn file_module(db: &dyn salsa::Database, file: SourceFile) -> &'static str {
    Prelude::get(db)
        .files(db)
        .iter()
        .position(|&f| f == file)
        .and_then(|i| PRELUDE.get(i))
        .map_or(MAIN, |p| p.module)
}

/// `name` defined in `module`, as the program names it.
pub fn qualify(module: &str, name: &str) -> Name {
    if module == MAIN {
        name.into()
    } else {
        format!("{module}.{name}").into()
    }
}

/// The files visible from `file`'s code, in load order: the prelude, then the root of `file`'s
/// program ([`scope_root`]) and what it includes, depth first.
pub fn scope_files(db: &dyn salsa::Database, file: SourceFile) -> &[SourceFile] {
    root_files(db, scope_root(db, file))
}

#[salsa::tracked(returns(ref))]
fn root_files(db: &dyn salsa::Database, root: SourceFile) -> Vec<SourceFile> {
    let mut files = Prelude::get(db).files(db).clone();
    if !files.contains(&root) {
        visit_includes(db, root, &mut files);
    }
    files
}

fn visit_includes(db: &dyn salsa::Database, file: SourceFile, seen: &mut Vec<SourceFile>) {
    seen.push(file);
    for (_, path) in includes(db, file) {
        if let Some(&included) = files_by_path(db, Workspace::get(db)).get(path) {
            if !seen.contains(&included) {
                visit_includes(db, included, seen);
            }
        }
    }
}

/// The `include`s of `file`: each item with the path it names, resolved against `file`'s
/// directory.
#[salsa::tracked(returns(ref))]
pub fn includes(db: &dyn salsa::Database, file: SourceFile) -> Vec<(ItemId, PathBuf)> {
    let dir = file.path(db).parent().unwrap_or(Path::new(""));
    item_tree(db, file)
        .iter()
        .filter(|item| item.kind(db) == ItemKind::Include)
        .filter_map(|&item| match item_ast(db, item).as_deref() {
            Some(Item::Include(i)) => Some((item, normalize(&dir.join(&i.path)))),
            _ => None,
        })
        .collect()
}

/// `path` with `.` and `dir/..` removed, without asking the file system.
pub fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir
                if matches!(out.components().next_back(), Some(Component::Normal(_))) =>
            {
                out.pop();
            }
            c => out.push(c),
        }
    }
    out
}

/// Every workspace file by its normalised path.
#[salsa::tracked(returns(ref))]
pub fn files_by_path(db: &dyn salsa::Database, ws: Workspace) -> BTreeMap<PathBuf, SourceFile> {
    ws.files(db)
        .iter()
        .map(|&f| (normalize(f.path(db)), f))
        .collect()
}

/// For every included workspace file, the first file (in workspace order) that includes it.
#[salsa::tracked(returns(ref))]
fn includers(db: &dyn salsa::Database, ws: Workspace) -> HashMap<SourceFile, SourceFile> {
    let by_path = files_by_path(db, ws);
    let mut out = HashMap::new();
    for &file in ws.files(db) {
        for (_, path) in includes(db, file) {
            if let Some(&included) = by_path.get(path) {
                if included != file {
                    out.entry(included).or_insert(file);
                }
            }
        }
    }
    out
}

/// The root of the program `file` belongs to: the file that includes it (transitively), or
/// `file` itself. In a cycle of includes, the first file of the cycle reached.
pub fn scope_root(db: &dyn salsa::Database, file: SourceFile) -> SourceFile {
    let includers = includers(db, Workspace::get(db));
    let mut root = file;
    let mut seen = vec![file];
    while let Some(&up) = includers.get(&root) {
        if seen.contains(&up) {
            break;
        }
        seen.push(up);
        root = up;
    }
    root
}

/// The names each module of a scope defines (functions, structs, bindings), unqualified.
/// Equal across edits that add, remove or rename no definition.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct ScopeNames {
    modules: BTreeMap<&'static str, BTreeSet<Name>>,
}

impl ScopeNames {
    /// What `name`, written in code of `module`, refers to: the module's own definition, else
    /// the prelude's `Base` definition (every module sees Base), else the name itself (a
    /// builtin, or undefined: inference says which).
    pub fn resolve(&self, module: &str, name: &str) -> Name {
        let defines = |m: &str| self.modules.get(m).is_some_and(|ns| ns.contains(name));
        if name == RRULE {
            name.into()
        } else if defines(module) {
            qualify(module, name)
        } else if defines("Base") {
            qualify("Base", name)
        } else {
            name.into()
        }
    }
}

/// The names defined in each module of the scope of `file`.
pub fn scope_names(db: &dyn salsa::Database, file: SourceFile) -> &ScopeNames {
    root_names(db, scope_root(db, file))
}

#[salsa::tracked(returns(ref))]
fn root_names(db: &dyn salsa::Database, root: SourceFile) -> ScopeNames {
    let mut names = ScopeNames::default();
    for &file in root_files(db, root) {
        let module = file_module(db, file);
        let defined = names.modules.entry(module).or_default();
        for &item in item_tree(db, file) {
            if item.kind(db) != ItemKind::Include {
                defined.insert(item.name(db).clone());
            }
        }
    }
    names
}

/// Is `file` one of the prelude's files?
pub fn is_prelude(db: &dyn salsa::Database, file: SourceFile) -> bool {
    Prelude::get(db).files(db).contains(&file)
}
