//! What a file's code sees, as Julia decides it. A program is a root file with the files it
//! `include`s (paths relative to the including file, loaded into the module the `include` is
//! written in) and the prelude's modules (`Base`, `LinearAlgebra`, `Statistics`, `Random`). Two files of
//! the workspace that do not include each other do not see each other: each file that no other
//! file includes is the root of its own program ([`crate::program_index`]), and an included
//! file belongs to its includer's.
//!
//! Names are qualified by their module: `Base.abs2` for a prelude definition, `M.f` for one in
//! `module M`, the plain name for one of `Main` (the user's top level). [`ScopeNames::resolve`]
//! says which definition a name written in a module means: the module's own, then what it
//! imports by name (`using A: f`, `import A.f`), then the exports of the modules it uses
//! (`using A`, and implicitly Base), then a builtin of that name.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Component, Path, PathBuf};

use rustc_hash::FxHashMap;
use zy_ir::Name;
use zy_syntax::ast::{ArgPlace, FunctionName, Item, ScriptCall};

use crate::mutation::{library_changes, shifted, Binding, Effects, Method};

use crate::input::{Prelude, SourceFile, Workspace};
use crate::item::{
    binding_value, exported_names, is_bare_module, is_immutable_struct, item_ast, item_range,
    item_tree, loaded_items_of, prelude_bundled, BindingValue, ItemId, ItemKind,
};
use crate::prelude::{is_prelude_module, PRELUDE};
use crate::scope_names::{add_import, join, within};
pub use crate::scope_names::{
    qualify, ImportError, ModuleNames, ModuleScope, FRULE, MAIN, RRULE, UNKNOWN_PACKAGE,
};
use crate::span::line_col;

/// The module a prelude file defines, if `file` is one; [`MAIN`] for any other file.
pub fn file_module(db: &dyn salsa::Database, file: SourceFile) -> &'static str {
    Prelude::get(db)
        .files(db)
        .iter()
        .position(|&f| f == file)
        .and_then(|i| PRELUDE.get(i))
        .map_or(MAIN, |p| p.module)
}

/// Is `file` one of the prelude's files?
pub fn is_prelude(db: &dyn salsa::Database, file: SourceFile) -> bool {
    Prelude::get(db).files(db).contains(&file)
}

/// A file of a program, with the module its top level is loaded into and which load of the
/// file that is ([`ItemId::load`]: a file included into two modules is loaded twice).
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct LoadedFile {
    pub file: SourceFile,
    pub module: Name,
    pub load: u32,
}

impl LoadedFile {
    /// The items this load of the file defines.
    pub(crate) fn items<'db>(&self, db: &'db dyn salsa::Database) -> &'db [ItemId] {
        loaded_items_of(db, self.file, self.load)
    }
}

/// The files visible from `file`'s code, in load order, each once: the prelude, then the root
/// of `file`'s program ([`scope_root`]) and what it includes, depth first.
pub fn scope_files(db: &dyn salsa::Database, file: SourceFile) -> Vec<SourceFile> {
    root_files(db, scope_root(db, file))
        .iter()
        .filter(|l| l.load == 0)
        .map(|l| l.file)
        .collect()
}

/// Every item of the program of `file`, the library's included, in load order: a file that
/// two modules include gives an item of each ([`LoadedFile`]).
pub fn program_items(db: &dyn salsa::Database, file: SourceFile) -> Vec<ItemId> {
    root_files(db, scope_root(db, file))
        .iter()
        .flat_map(|l| l.items(db).iter().copied())
        .collect()
}

/// The loads of the files of `root`'s program, in load order: the prelude's files, then the
/// root and what it includes, depth first. A file is loaded again where a module includes it
/// that has not loaded it yet (Julia evaluates an `include` in the module it is written in),
/// but never inside its own loading (an include cycle, which [`crate::diag`] reports).
#[salsa::tracked(returns(ref))]
pub(crate) fn root_files(db: &dyn salsa::Database, root: SourceFile) -> Vec<LoadedFile> {
    let prelude = Prelude::get(db).files(db);
    let mut files: Vec<LoadedFile> = prelude
        .iter()
        .map(|&file| LoadedFile {
            file,
            module: file_module(db, file).into(),
            load: 0,
        })
        .collect();
    if !prelude.contains(&root) {
        visit_includes(db, root, MAIN.into(), &mut Vec::new(), &mut files);
    }
    files
}

/// At most this many loads of one file into a program: a file included into every module
/// of a deep tree of them is loaded into each, and a bound keeps a pathological layout
/// from multiplying the program.
const MAX_LOADS: u32 = 64;

/// Load `file` into `module`, then what it includes, depth first; `loading` holds the files
/// being loaded around it.
fn visit_includes(
    db: &dyn salsa::Database,
    file: SourceFile,
    module: Name,
    loading: &mut Vec<SourceFile>,
    files: &mut Vec<LoadedFile>,
) {
    let load = files.iter().filter(|l| l.file == file).count() as u32;
    files.push(LoadedFile {
        file,
        module: module.clone(),
        load,
    });
    loading.push(file);
    let by_path = files_by_path(db, Workspace::get(db));
    for (item, path) in includes(db, file) {
        if let Some(&included) = by_path.get(path) {
            let inner = join(&module, item.module(db));
            let loads = files.iter().filter(|l| l.file == included);
            let loaded_here = loads.clone().any(|l| l.module == inner);
            if !loading.contains(&included) && !loaded_here && loads.count() < MAX_LOADS as usize {
                visit_includes(db, included, inner, loading, files);
            }
        }
    }
    // A package's source defines its `module` at the top level, as Julia's `using` loads it.
    for (_, path) in package_sources(db, file) {
        if let Some(&source) = by_path.get(path) {
            if !files.iter().any(|l| l.file == source) {
                visit_includes(db, source, MAIN.into(), loading, files);
            }
        }
    }
    loading.pop();
}

/// The packages that `file` imports (`using P`, `import P: f`) which are not the prelude's,
/// each with where a package laid out as Julia's `Pkg` keeps its source: `src/P.jl` beside the
/// file (a script at the package's root) or beside its directory (`test/runtests.jl`,
/// `examples/`), which is what `Pkg.test` and an activated project load. Paths that are not
/// files are no error: the package is then unknown.
#[salsa::tracked(returns(ref))]
pub fn package_sources(db: &dyn salsa::Database, file: SourceFile) -> Vec<(Name, PathBuf)> {
    let dir = file.path(db).parent().unwrap_or(Path::new(""));
    let mut out = Vec::new();
    for &item in item_tree(db, file) {
        if item.kind(db) != ItemKind::Import {
            continue;
        }
        let Some(Item::Import(i)) = item_ast(db, item).as_deref() else {
            continue;
        };
        let paths = i
            .from
            .iter()
            .chain(i.paths.iter().filter(|_| i.from.is_none()).map(|(p, _)| p));
        for path in paths {
            let Some(first) = path.names.first().filter(|_| path.dots == 0) else {
                continue;
            };
            if crate::prelude::is_prelude_module(first) {
                continue;
            }
            let name: Name = first.as_str().into();
            let source = format!("{first}.jl");
            for candidate in [
                dir.join("src").join(&source),
                dir.join("../src").join(&source),
            ] {
                out.push((name.clone(), normalize(&candidate)));
            }
        }
    }
    out.dedup();
    out
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
fn includers(db: &dyn salsa::Database, ws: Workspace) -> FxHashMap<SourceFile, SourceFile> {
    let by_path = files_by_path(db, ws);
    let mut out = FxHashMap::default();
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

/// The module whose definitions `item` makes in the program of `root`: the module its file is
/// loaded into, then the `module` blocks around it in the file.
pub fn item_module(db: &dyn salsa::Database, root: SourceFile, item: ItemId) -> Name {
    let (file, load) = (item.file(db), item.load(db));
    match root_files(db, root)
        .iter()
        .find(|l| l.file == file && l.load == load)
    {
        Some(l) => within(&l.module, item.module(db)),
        None => join(MAIN, item.module(db)),
    }
}

/// The module each load of a file of a program is loaded into, looked up once for
/// [`item_module`] of many items (the library items a first gradient reaches).
pub(crate) struct FileModules(FxHashMap<(SourceFile, u32), Name>);

impl FileModules {
    /// The modules of the files of `root`'s program.
    pub(crate) fn of_root(db: &dyn salsa::Database, root: SourceFile) -> FileModules {
        let mut files = FxHashMap::default();
        for l in root_files(db, root) {
            files
                .entry((l.file, l.load))
                .or_insert_with(|| l.module.clone());
        }
        FileModules(files)
    }

    /// [`item_module`] of `item` in the program.
    pub(crate) fn item_module(&self, db: &dyn salsa::Database, item: ItemId) -> Name {
        match self.0.get(&(item.file(db), item.load(db))) {
            Some(module) => within(module, item.module(db)),
            None => join(MAIN, item.module(db)),
        }
    }
}

/// The module of the function definition of `file` around byte `offset` (Main when none is in
/// a `module` block of a file loaded into Main):
/// where the call of a `# zy:` annotation above it is written, also in a file that a module
/// `include`s.
pub fn module_at(db: &dyn salsa::Database, file: SourceFile, offset: u32) -> Name {
    let items = item_tree(db, file);
    // Without `module` blocks every item is in the module the file is loaded into: no item's
    // range is needed (a file of thousands of functions).
    let item = if items.iter().all(|i| i.module(db).is_empty()) {
        items.first()
    } else {
        items.iter().find(|&&item| {
            item.kind(db) == ItemKind::Function
                && item_range(db, item, 0, u32::MAX)
                    .is_some_and(|(start, end)| start <= offset && offset < end)
        })
    };
    item.map_or_else(
        || MAIN.into(),
        |&item| item_module(db, scope_root(db, file), item),
    )
}

/// The items of the files of `root`'s program that `keep` keeps, in load order, each with the
/// module whose definitions it makes ([`item_module`], the file's module looked up once).
pub(crate) fn loaded_items<'db>(
    db: &'db dyn salsa::Database,
    root: SourceFile,
    keep: impl Fn(SourceFile) -> bool + 'db,
) -> impl Iterator<Item = (ItemId, Name)> + 'db {
    root_files(db, root)
        .iter()
        .filter(move |l| keep(l.file))
        .flat_map(move |l| {
            l.items(db)
                .iter()
                .map(move |&item| (item, within(&l.module, item.module(db))))
        })
}

/// The modules of a program with what each defines and sees ([`ModuleNames`], through which
/// it resolves names), and what the editor reports of them: the skipped statements that change
/// bindings, the imports that name nothing and the refused definitions. Equal across edits
/// that add, remove or rename no definition and change no import.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct ScopeNames {
    names: ModuleNames,
    /// The skipped statements that change bindings, each with those it changes itself.
    statements: Vec<(ItemId, Vec<Name>)>,
    /// Every skipped statement, in load order (the order Julia runs them in).
    scripts: Vec<ItemId>,
    /// For each binding of [`ModuleNames::changed`], the skipped statements that change it
    /// (by place in `scripts`), itself or through a binding that may share its object.
    changers: BTreeMap<Name, BTreeSet<usize>>,
    /// `using`/`import` items that name no module or name, with why.
    errors: Vec<(ItemId, ImportError)>,
    /// Qualified names whose only definition zy refused, with what a use of one says.
    refused: BTreeMap<Name, String>,
    /// Qualified names with a refused definition beside ones zy kept (a struct refused, its
    /// outer constructor kept), with what a call that no kept method takes says.
    refused_beside: BTreeMap<Name, String>,
    /// The library's modules are as the build script saw them ([`ScopeNames::library_as_built`]).
    library_as_built: bool,
}

impl std::ops::Deref for ScopeNames {
    type Target = ModuleNames;

    fn deref(&self) -> &ModuleNames {
        &self.names
    }
}

impl std::ops::DerefMut for ScopeNames {
    fn deref_mut(&mut self) -> &mut ModuleNames {
        &mut self.names
    }
}

impl ScopeNames {
    /// Whether every name of the library resolves here as in the library alone, so that a
    /// library item resolved at build time (`build.rs`, in the prelude's own scope) is the item
    /// resolved here: the prelude has the bundled text, the program's files add no name to a
    /// library module (a method of a library function adds none: `Base.sum(x::MyType)`) and
    /// put nothing in one, and no top-level code zy skips changes a library binding.
    pub(crate) fn library_as_built(&self) -> bool {
        self.library_as_built
    }

    /// Which arguments of `call`, in a skipped statement of `module`, may it change in place
    /// (indices into `call.args`), whether it may change its callee (a value called), and the
    /// top-level bindings it may change through the program's functions. A callee that is no
    /// name, a refused definition, or a call passed a function that may change its arguments
    /// (`map(update!, xs)`) may change them all; the program's functions change what the
    /// analysis of their bodies says ([`crate::mutation`]); the library's follow Julia's
    /// convention.
    fn call_changes(&self, module: &str, call: &ScriptCall, effects: &Effects) -> CallChanges {
        let everything = || CallChanges {
            args: (0..call.args.len()).collect(),
            callee: true,
            ..CallChanges::default()
        };
        let passes_changer = call.args.iter().flat_map(|a| &a.names).any(|n| {
            let q = self.resolve(module, n);
            if self.is_binding_name(&q) {
                effects.holds_changer(&q)
            } else {
                effects.is_changer(&q, n) || self.is_refused(&q)
            }
        });
        if call.callee.is_empty() || passes_changer {
            // A function passed may be called: what it writes too.
            let mut out = everything();
            for n in call.args.iter().flat_map(|a| &a.names) {
                let q = self.resolve(module, n);
                out.globals.extend(effects.function_globals(&q));
                out.any_binding |= effects.changes_everything(&q)
                    || (self.is_binding_name(&q) && effects.holds_changer(&q));
            }
            return out;
        }
        let q = self.resolve(module, &call.callee);
        let places: Vec<&ArgPlace> = call.args.iter().map(|a| &a.place).collect();
        let pick = |changes: &dyn Fn(&ArgPlace) -> bool| -> Vec<usize> {
            (0..call.args.len())
                .filter(|&i| changes(&call.args[i].place))
                .collect()
        };
        if effects.is_function(&q) {
            let library = self.is_library(&q);
            return CallChanges {
                args: pick(&|p| {
                    effects.function_changes(&q, p) == Some(true)
                        || (library && library_changes(&call.callee, p, &places))
                }),
                callee: false,
                globals: effects.function_globals(&q),
                any_binding: effects.changes_everything(&q),
            };
        }
        // A binding called, or a field of one (`m.layer(x)`): a value, through the call
        // methods of the program's structs.
        let value = match call.callee.split_once('.') {
            Some((root, _)) if self.module_path(module, root).is_none() => {
                self.resolve(module, root)
            }
            _ => q.clone(),
        };
        if self.is_binding_name(&value) {
            if effects.holds_changer(&value) {
                return everything();
            }
            return CallChanges {
                args: pick(&|p| effects.callable_changes(&shifted(p))),
                callee: effects.callable_changes(&ArgPlace::Positional(0)),
                globals: effects.callable_globals(),
                any_binding: effects.callables_change_everything(),
            };
        }
        if self.is_program_struct(&q) {
            return CallChanges::default();
        }
        if self.is_refused(&q) || self.program_defines_qualified(&q) {
            return CallChanges {
                any_binding: true,
                ..everything()
            };
        }
        CallChanges {
            args: pick(&|p| library_changes(&call.callee, p, &places)),
            ..CallChanges::default()
        }
    }

    /// Is the qualified `q` a definition zy refused?
    pub(crate) fn is_refused(&self, q: &str) -> bool {
        self.refused.contains_key(q)
    }

    /// The bindings that the skipped statement `item` may change, as the program names them.
    pub fn changed_by_statement(&self, item: ItemId) -> &[Name] {
        self.statements
            .iter()
            .find(|(i, _)| *i == item)
            .map_or(&[], |(_, names)| names.as_slice())
    }

    /// The bindings that skipped statements change but none before `item` (a skipped
    /// statement) does: code that runs as `item` runs (a test's text, which runs the code
    /// before the test in its statement) sees them as the statements before it left them, as
    /// they were defined. Empty for an item that is no skipped statement.
    pub fn known_at(&self, item: ItemId) -> Vec<Name> {
        let Some(at) = self.scripts.iter().position(|&s| s == item) else {
            return Vec::new();
        };
        self.changers
            .iter()
            .filter(|(_, by)| by.iter().all(|&s| s >= at))
            .map(|(name, _)| name.clone())
            .collect()
    }

    /// These names with the bindings `known` no longer changed by skipped code (see
    /// [`ScopeNames::known_at`]).
    pub(crate) fn knowing(&self, known: &[Name]) -> ScopeNames {
        let mut out = self.clone();
        for name in known {
            out.changed.remove(name);
        }
        out
    }

    /// The qualified names whose only definition zy refused, with what a use of one says
    /// ("`Dual` is not available: its definition (f.jl:3:1) was refused: ...").
    pub fn refused(&self) -> &BTreeMap<Name, String> {
        &self.refused
    }

    /// The qualified names with a refused definition beside definitions zy kept, with what a
    /// call that none of the kept methods takes says (the refused one might have).
    pub fn refused_beside(&self) -> &BTreeMap<Name, String> {
        &self.refused_beside
    }

    /// The packages the program's imports name that zy does not have (`Optim` of `using
    /// Optim`): an undefined name may come from one of them.
    pub fn unknown_packages(&self) -> BTreeSet<Name> {
        self.errors
            .iter()
            .filter_map(|(_, e)| e.package.clone())
            .collect()
    }

    /// The imports of `file`'s items that name no module or name, with why.
    pub fn import_errors(
        &self,
        db: &dyn salsa::Database,
        file: SourceFile,
    ) -> Vec<(ItemId, ImportError)> {
        self.errors
            .iter()
            .filter(|(item, _)| item.file(db) == file)
            .cloned()
            .collect()
    }
}

/// The names of the program that the code of `file` sees.
pub fn scope_names(db: &dyn salsa::Database, file: SourceFile) -> &ScopeNames {
    root_names(db, scope_root(db, file))
}

/// [`scope_names`] of a file known to be its program's root ([`scope_root`]), without looking
/// the root up again (a first gradient asks this once per library item it reaches).
pub(crate) fn root_scope_names(db: &dyn salsa::Database, root: SourceFile) -> &ScopeNames {
    root_names(db, root)
}

/// Top-level bindings of a module, `const U = A.B` (or `U = A.B`): `U` names that module as
/// `A.B` does (`U.f`). In order of the items, so an alias may name an earlier one.
fn add_module_aliases(
    db: &dyn salsa::Database,
    names: &mut ScopeNames,
    globals: &[(ItemId, Name)],
) {
    for (item, module) in globals {
        let Some(BindingValue {
            dotted: Some(dotted),
            ..
        }) = binding_value(db, *item)
        else {
            continue;
        };
        names.add_alias(module, item.name(db), &dotted);
    }
}

/// The refused definitions of `refused` (those items): by name where nothing else defines it,
/// else beside the definitions kept.
fn add_refused(db: &dyn salsa::Database, names: &mut ScopeNames, refused: &[(ItemId, Name)]) {
    for (item, module) in refused {
        let Some(Item::Refused(r)) = item_ast(db, *item).as_deref() else {
            continue;
        };
        let beside = names
            .modules
            .get(module)
            .is_some_and(|s| s.defines.contains_key(r.name.as_str()));
        let file = item.file(db);
        let (start, _) = item_range(db, *item, r.range.start, r.range.end).unwrap_or((0, 0));
        // The file's name: the line is what finds the definition, and the message stays the
        // same wherever the files are.
        let path = file.path(db);
        let shown = path.file_name().map_or(path.as_os_str(), |n| n);
        let at = format!("{}:{}", shown.to_string_lossy(), line_col(db, file, start));
        let reason = r.reason.strip_prefix("unsupported: ").unwrap_or(&r.reason);
        let message = format!(
            "`{}` is not available: its definition ({at}) was refused: {reason}",
            r.name
        );
        let map = match beside {
            true => &mut names.refused_beside,
            false => &mut names.refused,
        };
        map.entry(qualify(module, &r.name)).or_insert(message);
    }
}

/// A refused definition that its module exports is refused where a module that uses that
/// module writes its name (`using .M` then `f(x)`): a use says why `M.f` is not available,
/// as `M.f(x)` does, rather than that `f` is undefined. Such a name resolves as written.
fn refused_through_usings(names: &mut ScopeNames) {
    let mut found = Vec::new();
    for scope in names.modules.values() {
        for used in &scope.usings {
            let Some(exporter) = names.modules.get(used) else {
                continue;
            };
            for n in &exporter.exports {
                let seen = scope.defines.contains_key(n) || scope.imports.contains_key(n);
                if let Some(why) = names.refused.get(&qualify(used, n)).filter(|_| !seen) {
                    found.push((n.clone(), why.clone()));
                }
            }
        }
    }
    for (name, why) in found {
        // Main's own `f` is written `f` too.
        if !names.defines_qualified(&name) {
            names.refused.entry(name).or_insert(why);
        }
    }
}

/// The items of a program's files by kind, each with its module, in load order: the scope's
/// passes each read one kind (a fresh database lists the library's ~3,000 items here once).
#[derive(Default)]
struct ItemsByKind {
    modules: Vec<(ItemId, Name)>,
    imports: Vec<(ItemId, Name)>,
    globals: Vec<(ItemId, Name)>,
    /// Functions, structs and bindings.
    definitions: Vec<(ItemId, ItemKind, Name)>,
    exports: Vec<(ItemId, Name)>,
    refused: Vec<(ItemId, Name)>,
    scripts: Vec<(ItemId, Name)>,
    /// The functions and bindings of the program's own files (not the prelude's).
    own: Vec<(ItemId, ItemKind, Name)>,
    /// Where the program's own files' items start in `definitions` (the prelude's come first).
    own_definitions: usize,
    /// An item of the program's own files is written in a library module.
    own_in_library: bool,
}

impl ItemsByKind {
    fn of<'a>(
        db: &dyn salsa::Database,
        files: impl IntoIterator<Item = &'a LoadedFile>,
    ) -> ItemsByKind {
        let mut out = ItemsByKind::default();
        for l in files {
            let own = !is_prelude(db, l.file);
            for &item in l.items(db) {
                let module = within(&l.module, item.module(db));
                out.own_in_library |= own && in_library(&module);
                let kind = item.kind(db);
                let list = match kind {
                    ItemKind::Function | ItemKind::Struct | ItemKind::Global => {
                        if own && kind != ItemKind::Struct {
                            out.own.push((item, kind, module.clone()));
                        }
                        if kind == ItemKind::Global {
                            out.globals.push((item, module.clone()));
                        }
                        out.definitions.push((item, kind, module));
                        continue;
                    }
                    ItemKind::Module => &mut out.modules,
                    ItemKind::Import => &mut out.imports,
                    ItemKind::Export => &mut out.exports,
                    ItemKind::Refused => &mut out.refused,
                    ItemKind::Script => &mut out.scripts,
                    ItemKind::Include => continue,
                };
                list.push((item, module));
            }
            // The prelude's files come first.
            if !own {
                out.own_definitions = out.definitions.len();
            }
        }
        out
    }
}

/// The prelude's own scope, packed by the build script (`build.rs`).
static PRELUDE_NAMES: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/prelude_names.bin"));

/// The prelude's own scope as the build script built it, if the prelude has the bundled text.
fn built_prelude_names(db: &dyn salsa::Database) -> Option<ModuleNames> {
    if !*prelude_bundled(db, Prelude::get(db)) {
        return None;
    }
    postcard::from_bytes(PRELUDE_NAMES).ok()
}

/// The scope of `root`'s program. Where the program's files put nothing in a library module,
/// it starts from the prelude's scope as the build script built it and adds the files' own
/// items, as [`listed_root_names`] would after listing the library's ~3,000 items: the
/// library's passes come first in each, and the files' items change no library module's
/// imports or exports.
#[salsa::tracked(returns(ref))]
fn root_names(db: &dyn salsa::Database, root: SourceFile) -> ScopeNames {
    let files = root_files(db, root);
    let own = ItemsByKind::of(db, files.iter().filter(|l| !is_prelude(db, l.file)));
    match built_prelude_names(db).filter(|_| !own.own_in_library) {
        Some(built) => scope_of(db, files, Some(built), own),
        None => listed_root_names(db, root),
    }
}

/// [`root_names`] of `root` from every item of its program's files, the library's included.
fn listed_root_names(db: &dyn salsa::Database, root: SourceFile) -> ScopeNames {
    let files = root_files(db, root);
    scope_of(db, files, None, ItemsByKind::of(db, files))
}

/// The scope of a program of `files` with `items`: those of every file, or, if the prelude's
/// `built` scope is given, those of the files that are not the prelude's.
fn scope_of(
    db: &dyn salsa::Database,
    files: &[LoadedFile],
    built: Option<ModuleNames>,
    items: ItemsByKind,
) -> ScopeNames {
    let from_build = built.is_some();
    let mut names = ScopeNames {
        names: built.unwrap_or_default(),
        ..ScopeNames::default()
    };
    // Every module first, then what each imports (which names modules), then what each defines
    // (which depends on what it imports).
    for l in files {
        names.modules.entry(l.module.clone()).or_default();
    }
    let by_path = files_by_path(db, Workspace::get(db));
    for l in files
        .iter()
        .filter(|l| !from_build || !is_prelude(db, l.file))
    {
        for (package, path) in package_sources(db, l.file) {
            if by_path.contains_key(path) {
                names.packages.insert(package.clone());
            }
        }
    }
    for (item, module) in &items.modules {
        names.add_module(module, item.name(db));
    }
    names.see_base(|m| !from_build || !in_library(m));
    // A module's own item comes before its items, and so before the imports written in it.
    for (item, module) in &items.modules {
        if is_bare_module(db, *item) {
            names.make_bare(&join(module, item.name(db)));
        }
    }
    for (item, module) in &items.imports {
        if let Some(Item::Import(i)) = item_ast(db, *item).as_deref() {
            for why in add_import(&mut names, module, i) {
                names.errors.push((*item, why));
            }
        }
    }
    add_module_aliases(db, &mut names, &items.globals);
    let mut library_as_built = !items.own_in_library && *prelude_bundled(db, Prelude::get(db));
    for (i, (item, kind, module)) in items.definitions.iter().enumerate() {
        let settled = match kind {
            ItemKind::Global => binding_value(db, *item).is_some_and(|b| {
                b.makers
                    .is_some_and(|ms| names.all_immutable_structs(module, &ms[..]))
            }),
            ItemKind::Struct => is_immutable_struct(db, *item),
            _ => false,
        };
        let added = names.add_definition(module, *kind, item.name(db), settled);
        // The program's own definition of a name new to a library module (or of a library
        // module's struct or binding) changes what the library's names resolve to.
        if let Some((target, new)) = added.filter(|_| i >= items.own_definitions) {
            library_as_built &= !in_library(&target) || (!new && *kind == ItemKind::Function);
        }
    }
    for (item, module) in &items.exports {
        names.add_exports(module, exported_names(db, *item));
    }
    add_refused(db, &mut names, &items.refused);
    refused_through_usings(&mut names);
    let (effects, bindings) = program_effects(db, &names, &items.own);
    for (at, (item, module)) in items.scripts.iter().enumerate() {
        names.scripts.push(*item);
        let Some(Item::Script(s)) = item_ast(db, *item).as_deref() else {
            continue;
        };
        let Some(scope) = names.modules.get(module) else {
            continue;
        };
        // A statement changes what it assigns, what it writes into, and what it hands to a
        // call that may change that argument (`train!(W, X)` changes `W` but not `X` if
        // `train!` writes only into its first parameter; `push!(xs, 1)`, `m(x)` of a callable
        // whose call method writes into it); an array only read (`plot(X[:, 1], y)`,
        // `println(loss(W, X))`) stays as defined. A write into, or a change through, a name
        // that is no binding (a loop variable, `a = X; a .= 0`) may reach any of them.
        let local = |n: &str| s.assigned.iter().any(|a| a == n) && !scope.bindings.contains(n);
        let mut handed = BTreeSet::new();
        let mut globals = BTreeSet::new();
        for c in &s.calls {
            let changes = names.call_changes(module, c, &effects);
            let callee = c.callee.split('.').next().unwrap_or_default();
            if changes.callee {
                handed.insert(callee);
            }
            if local(callee) {
                // A value that a name of the statement holds may be any function.
                handed.insert(callee);
                handed.extend(c.args.iter().flat_map(|a| &a.names).map(String::as_str));
            }
            for &i in &changes.args {
                handed.extend(c.args[i].names.iter().map(String::as_str));
            }
            globals.extend(changes.globals);
            if changes.any_binding {
                globals.extend(scope.mutable.iter().map(|n| qualify(module, n)));
            }
        }
        let written = |n: &str| s.written.iter().any(|w| w == n) || handed.contains(n);
        let through_alias = s
            .names
            .iter()
            .any(|n| !scope.bindings.contains(n.as_str()) && written(n));
        let mut changed: BTreeSet<Name> = s
            .names
            .iter()
            .filter(|n| {
                scope.bindings.contains(n.as_str())
                    && (s.assigned.contains(n)
                        || (scope.mutable.contains(n.as_str()) && (through_alias || written(n))))
            })
            .map(|n| qualify(module, n))
            .collect();
        changed.extend(globals.into_iter().filter(|g| names.is_mutable_binding(g)));
        if changed.is_empty() {
            continue;
        }
        let file = item.file(db);
        let (start, _) = item_range(db, *item, s.range.start, s.range.end).unwrap_or((0, 0));
        let place = format!("{}:{}", file.path(db).display(), line_col(db, file, start));
        for name in &changed {
            names.changers.entry(name.clone()).or_default().insert(at);
            names
                .changed
                .entry(name.clone())
                .or_insert_with(|| place.clone());
        }
        names
            .statements
            .push((*item, changed.into_iter().collect()));
    }
    share_changes(&mut names, &effects, &bindings);
    names.library_as_built = library_as_built && names.changed.keys().all(|q| !in_library(q));
    names
}

/// Is `name` (a module or a qualified name) in one of the library's modules?
fn in_library(name: &str) -> bool {
    is_prelude_module(name.split('.').next().unwrap_or(name))
}

/// What a skipped statement's call may change: its arguments (indices), its callee (a value
/// called), and top-level bindings.
#[derive(Default)]
struct CallChanges {
    args: Vec<usize>,
    callee: bool,
    globals: BTreeSet<Name>,
    /// It may change any top-level binding (a function whose body zy cannot see through).
    any_binding: bool,
}

/// The effects of the methods and bindings of the program's own files (not the prelude's:
/// `own` is their function and binding items), with those bindings' qualified names.
fn program_effects(
    db: &dyn salsa::Database,
    names: &ScopeNames,
    own: &[(ItemId, ItemKind, Name)],
) -> (Effects, Vec<Name>) {
    let mut methods = Vec::new();
    let mut bindings = Vec::new();
    for (item, kind, module) in own {
        let Some(def) = item_ast(db, *item).clone() else {
            continue;
        };
        match (kind, &*def) {
            (ItemKind::Function, Item::Function(f)) => {
                let generic = match &f.name {
                    FunctionName::Named(_) => Some(names.definition(module, item.name(db))),
                    FunctionName::Callable { .. } => None,
                    FunctionName::Anonymous => continue,
                };
                methods.push(Method {
                    module: module.clone(),
                    generic,
                    def,
                });
            }
            (ItemKind::Global, Item::Global(g)) => bindings.push(Binding {
                module: module.clone(),
                qualified: qualify(module, &g.name),
                def,
            }),
            _ => {}
        }
    }
    let effects = crate::mutation::effects(names, &methods, &bindings);
    (effects, bindings.into_iter().map(|b| b.qualified).collect())
}

/// Two bindings may hold one object (`Y = X`, `V = view(X, :, 1)`, `m = Dense(W, b)`): a change
/// in place to either may be seen through the other. So a mutable binding whose value may
/// share a changed mutable binding's object is changed, and so is each mutable binding the
/// value of a changed one may share, until nothing more changes (each at the statement that
/// changed the first).
fn share_changes(names: &mut ScopeNames, effects: &Effects, bindings: &[Name]) {
    let mut links = Vec::new();
    for b in bindings {
        if !names.is_mutable_binding(b) {
            continue;
        }
        for m in effects.shares(b) {
            if names.is_mutable_binding(m) {
                links.push((b.clone(), m.clone()));
            }
        }
    }
    loop {
        let mut grew = false;
        for (a, b) in &links {
            let (at, to) = match (names.changed.get(a), names.changed.get(b)) {
                (Some(at), None) => (at.clone(), b),
                (None, Some(at)) => (at.clone(), a),
                _ => continue,
            };
            names.changed.insert(to.clone(), at);
            grew = true;
        }
        // The statements that change either change both.
        for (a, b) in &links {
            let by: BTreeSet<usize> = [a, b]
                .iter()
                .filter_map(|n| names.changers.get(*n))
                .flatten()
                .copied()
                .collect();
            if by.is_empty() {
                continue;
            }
            for n in [a, b] {
                let mine = names.changers.entry(n.clone()).or_default();
                if mine.len() < by.len() {
                    *mine = by.clone();
                    grew = true;
                }
            }
        }
        if !grew {
            break;
        }
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use salsa::Setter;

    use super::*;
    use crate::RootDatabase;

    /// Every `.jl` file under `dir`, recursively.
    fn julia_files(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                julia_files(&path, out);
            } else if path.extension().is_some_and(|e| e == "jl") {
                out.push(path);
            }
        }
    }

    /// A program's scope started from the prelude's built scope is the scope listed from every
    /// item, the library's included: for every fixture (a workspace of all of them, each with
    /// the files it includes) and for programs that import, alias, extend and shadow the
    /// library's names; a program that puts an item in a library module is listed.
    #[test]
    fn scope_from_the_built_prelude_is_the_listed_scope() {
        let mut db = RootDatabase::default();
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures");
        let mut paths = Vec::new();
        julia_files(&dir, &mut paths);
        paths.sort();
        assert!(paths.len() > 100, "fixtures in {}", dir.display());
        let mut files: Vec<SourceFile> = paths
            .iter()
            .filter_map(|p| {
                Some(SourceFile::new(
                    &db,
                    p.clone(),
                    std::fs::read_to_string(p).ok()?,
                ))
            })
            .collect();
        let programs = [
            "using LinearAlgebra\nconst LA = LinearAlgebra\nf(x) = LA.norm(x) + dot(x, x)\n",
            "import Base: sum\nsum(x::Bool) = 1.0\nBase.length(x::Bool) = 2\n",
            "module M\nusing Statistics: mean\nexport g\ng(x) = mean(x)\nend\nusing .M\nh(x) = g(x)\n",
            "baremodule B\nf(x) = x\nend\nstruct S\n    a::Float64\nend\n(s::S)(x) = s.a * x\n",
            "module Outer\nexport Inner\nmodule Inner\nk() = 1\nend\nend\nusing .Outer\nconst I = Inner\n",
            "_prod_tail(x) = 1\nBase.zy_new_name(x) = 2\nxs = [1.0]\npush!(xs, 2.0)\n",
            "module Base\nzy_inner(x) = 1\nend\n",
            "module LinearAlgebra\nend\nusing Random: rand\nr() = rand()\n",
        ];
        for (i, text) in programs.iter().enumerate() {
            let path = PathBuf::from(format!("program{i}.jl"));
            files.push(SourceFile::new(&db, path, text.to_string()));
        }
        Workspace::get(&db).set_files(&mut db).to(files.clone());
        let mut built = 0;
        for &file in &files {
            let root = scope_root(&db, file);
            let at = file.path(&db).display().to_string();
            let listed = listed_root_names(&db, root);
            assert!(root_names(&db, root) == &listed, "{at}: the scopes differ");
            built += usize::from(
                !ItemsByKind::of(
                    &db,
                    root_files(&db, root)
                        .iter()
                        .filter(|l| !is_prelude(&db, l.file)),
                )
                .own_in_library,
            );
        }
        assert!(built > 100, "{built} programs started from the built scope");
    }
}
