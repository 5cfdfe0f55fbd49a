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

use rustc_hash::{FxHashMap, FxHashSet};
use zy_ir::Name;
use zy_syntax::ast::{ArgPlace, FunctionName, ImportPath, Item, ScriptCall};

use crate::mutation::{library_changes, shifted, Binding, Effects, Method};

use crate::input::{Prelude, SourceFile, Workspace};
use crate::item::{
    binding_value, exported_names, is_bare_module, item_ast, item_range, item_tree, ItemId,
    ItemKind,
};
use crate::prelude::{is_prelude_module, PRELUDE};
use crate::span::line_col;

/// The module of the user's files (Julia's `Main`): its names are not qualified.
pub const MAIN: &str = "";

/// The function that in-source rules are methods of, wherever they are written (as
/// ChainRulesCore's `rrule` is): never qualified.
pub const RRULE: &str = "rrule";

/// The generic function of in-source forward rules, never qualified either (a prelude `frule`
/// is one of the AD's, as a prelude `rrule` is).
pub const FRULE: &str = "frule";

/// The module that the prelude puts everything in that every module sees.
const BASE: &str = "Base";

/// `name` defined in `module`, as the program names it.
pub fn qualify(module: &str, name: &str) -> Name {
    if module == MAIN {
        name.into()
    } else {
        dot_join(module, name)
    }
}

/// `outer.inner`, without `format!`'s machinery (a fresh database qualifies each of the
/// library's ~3,000 items' names, and `format!` was 6 % of a first gradient's instructions).
fn dot_join(outer: &str, inner: &str) -> Name {
    let mut s = String::with_capacity(outer.len() + 1 + inner.len());
    s.push_str(outer);
    s.push('.');
    s.push_str(inner);
    s.into()
}

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

/// A file of a program, with the module its top level is loaded into.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct LoadedFile {
    pub file: SourceFile,
    pub module: Name,
}

/// The files visible from `file`'s code, in load order: the prelude, then the root of `file`'s
/// program ([`scope_root`]) and what it includes, depth first.
pub fn scope_files(db: &dyn salsa::Database, file: SourceFile) -> Vec<SourceFile> {
    root_files(db, scope_root(db, file))
        .iter()
        .map(|l| l.file)
        .collect()
}

#[salsa::tracked(returns(ref))]
fn root_files(db: &dyn salsa::Database, root: SourceFile) -> Vec<LoadedFile> {
    let prelude = Prelude::get(db).files(db);
    let mut files: Vec<LoadedFile> = prelude
        .iter()
        .map(|&file| LoadedFile {
            file,
            module: file_module(db, file).into(),
        })
        .collect();
    if !prelude.contains(&root) {
        visit_includes(db, root, MAIN.into(), &mut files);
    }
    files
}

fn visit_includes(
    db: &dyn salsa::Database,
    file: SourceFile,
    module: Name,
    seen: &mut Vec<LoadedFile>,
) {
    seen.push(LoadedFile {
        file,
        module: module.clone(),
    });
    let by_path = files_by_path(db, Workspace::get(db));
    for (item, path) in includes(db, file) {
        if let Some(&included) = by_path.get(path) {
            if !seen.iter().any(|l| l.file == included) {
                let inner = join(&module, item.module(db));
                visit_includes(db, included, inner, seen);
            }
        }
    }
    // A package's source defines its `module` at the top level, as Julia's `using` loads it.
    for (_, path) in package_sources(db, file) {
        if let Some(&source) = by_path.get(path) {
            if !seen.iter().any(|l| l.file == source) {
                visit_includes(db, source, MAIN.into(), seen);
            }
        }
    }
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

/// The module path `inner` inside `outer`.
fn join(outer: &str, inner: &str) -> Name {
    match (outer, inner) {
        (o, "") => o.into(),
        ("", i) => i.into(),
        (o, i) => dot_join(o, i),
    }
}

/// [`join`], sharing `outer` when `inner` is empty (most items: this runs for each of the
/// library's items in a fresh database).
fn within(outer: &Name, inner: &str) -> Name {
    if inner.is_empty() {
        outer.clone()
    } else {
        join(outer, inner)
    }
}

/// Is `name` the name of `module` itself, which Julia binds inside it (`M.f` in `module M`)?
fn is_own_name(module: &str, name: &str) -> bool {
    module != MAIN && module.rsplit('.').next() == Some(name)
}

/// `name` split at its last `.`, as `rsplit_once('.')` splits it but by a plain byte loop: the
/// names resolved are short and many (~17,000 in a first gradient), and `str`'s searcher
/// costs more than the bytes it searches.
fn split_last_dot(name: &str) -> Option<(&str, &str)> {
    let at = name.bytes().rposition(|b| b == b'.')?;
    Some((&name[..at], &name[at + 1..]))
}

/// The module that contains `module` (`A` for `A.B`; Main for a top-level module and Main).
fn parent(module: &str) -> &str {
    module.rfind('.').map_or(MAIN, |i| &module[..i])
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
    let file = item.file(db);
    match root_files(db, root).iter().find(|l| l.file == file) {
        Some(l) => within(&l.module, item.module(db)),
        None => join(MAIN, item.module(db)),
    }
}

/// The module each file of a program is loaded into, looked up once for [`item_module`] of
/// many items (the library items a first gradient reaches).
pub(crate) struct FileModules(FxHashMap<SourceFile, Name>);

impl FileModules {
    /// The modules of the files of `root`'s program.
    pub(crate) fn of_root(db: &dyn salsa::Database, root: SourceFile) -> FileModules {
        let mut files = FxHashMap::default();
        for l in root_files(db, root) {
            files.entry(l.file).or_insert_with(|| l.module.clone());
        }
        FileModules(files)
    }

    /// [`item_module`] of `item` in the program.
    pub(crate) fn item_module(&self, db: &dyn salsa::Database, item: ItemId) -> Name {
        match self.0.get(&item.file(db)) {
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
            item_tree(db, l.file)
                .iter()
                .map(move |&item| (item, within(&l.module, item.module(db))))
        })
}

/// What one module of a program defines and sees. Hashed by name: resolution looks names up
/// here thousands of times in a first gradient.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct ModuleScope {
    /// Functions, structs and bindings it defines, unqualified, to their qualified names
    /// (made once, shared by every resolution to them).
    defines: FxHashMap<Name, Name>,
    /// Its top-level bindings (those a skipped statement may change).
    bindings: FxHashSet<Name>,
    /// Its structs (a call of one with no methods of its own builds a value, changing
    /// nothing).
    structs: FxHashSet<Name>,
    /// The bindings with a definition whose value a call can change in place (anything but a
    /// number, string, `nothing` or a tuple of them): a skipped statement that passes one to
    /// a call may change it without assigning it.
    mutable: BTreeSet<Name>,
    /// Names brought in one by one (`using A: f`, `import A.f`), to their qualified names.
    imports: FxHashMap<Name, Name>,
    /// Of those, the ones brought in by `import`: a method defined under that name in the module
    /// is a method of the imported function.
    extends: FxHashSet<Name>,
    /// Modules whose exports it sees (`using A`; Base too unless it is a `baremodule`).
    usings: Vec<Name>,
    /// Module names it can write (`M` in `M.f`): its own modules and those it imports.
    modules: FxHashMap<Name, Name>,
    exports: FxHashSet<Name>,
}

/// The modules of a program with what each defines and sees, the bindings that skipped
/// statements may change, and the imports that name nothing. Equal across edits that add,
/// remove or rename no definition and change no import.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct ScopeNames {
    modules: FxHashMap<Name, ModuleScope>,
    /// Qualified bindings changed by top-level code zy does not run, with where that code is.
    changed: BTreeMap<Name, String>,
    /// The skipped statements that change bindings, each with those it changes itself.
    statements: Vec<(ItemId, Vec<Name>)>,
    /// `using`/`import` items that name no module or name, with why.
    errors: Vec<(ItemId, ImportError)>,
    /// Qualified names whose only definition zy refused, with what a use of one says.
    refused: BTreeMap<Name, String>,
    /// Qualified names with a refused definition beside ones zy kept (a struct refused, its
    /// outer constructor kept), with what a call that no kept method takes says.
    refused_beside: BTreeMap<Name, String>,
    /// Modules defined by a package's source that the program loads (`using P` names them).
    packages: BTreeSet<Name>,
}

/// Why an import names nothing.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct ImportError {
    /// `unknown-package` for a package zy does not know, `unsupported` otherwise.
    pub code: &'static str,
    /// One line.
    pub message: String,
}

/// The code of an import of a package zy does not know (a warning: only the functions that
/// use its names are refused).
pub const UNKNOWN_PACKAGE: &str = "unknown-package";

impl ImportError {
    fn unsupported(message: String) -> ImportError {
        ImportError {
            code: "unsupported",
            message,
        }
    }
}

impl ScopeNames {
    /// What `name`, written in code of `module`, refers to: the module's own definition, else a
    /// name it imports, else an export of a module it uses (Base's definitions are all seen),
    /// else the name itself (a builtin, or undefined: inference says which). A dotted name
    /// (`LinearAlgebra.norm`, `Base.sum`) is looked up in the module its prefix names.
    pub fn resolve(&self, module: &str, name: &str) -> Name {
        if name == RRULE || name == FRULE {
            return name.into();
        }
        if let Some((prefix, last)) =
            split_last_dot(name).filter(|(p, l)| !p.is_empty() && !l.is_empty())
        {
            if let Some(target) = self.module_path(module, prefix) {
                return self.member(&target, last);
            }
        }
        let Some(scope) = self.modules.get(module) else {
            return name.into();
        };
        if let Some(q) = scope.defines.get(name) {
            return q.clone();
        }
        if let Some(q) = scope.imports.get(name) {
            return q.clone();
        }
        scope
            .usings
            .iter()
            .find_map(|used| self.exported(used, name))
            .unwrap_or_else(|| name.into())
    }

    /// The name a definition of `name` in `module` adds a method to: a dotted name's module's
    /// function, an imported function (`import Base: sum` then `sum(x::T) = ...`), or the
    /// module's own.
    pub fn definition(&self, module: &str, name: &str) -> Name {
        if name == RRULE || name == FRULE || name.starts_with('#') {
            return name.into();
        }
        if let Some(inner) = name.strip_prefix("(::").and_then(|n| n.strip_suffix(')')) {
            // The call methods of a struct, of the struct the name means.
            if inner.starts_with('#') {
                return name.into();
            }
            return zy_ir::callable_name(&self.resolve(module, inner));
        }
        if name.contains('.') {
            return self.resolve(module, name);
        }
        match self.modules.get(module) {
            Some(scope) if scope.extends.contains(name) => scope
                .imports
                .get(name)
                .cloned()
                .unwrap_or_else(|| name.into()),
            // Once the scope is built, the module's own definition's shared name.
            Some(scope) => scope
                .defines
                .get(name)
                .cloned()
                .unwrap_or_else(|| qualify(module, name)),
            None => qualify(module, name),
        }
    }

    /// Where a definition of `written` in `module` goes, as the scope records it: the module
    /// that defines it, its bare name there, and its qualified name (`None` for a callable
    /// struct's call methods and in-source rules, which define no name). Most of the
    /// library's ~3,000 are a plain name of the module's own, which needs no splitting.
    fn defined(&self, module: &Name, written: &Name) -> Option<(Name, Name, Name)> {
        if written.starts_with('(') || **written == *RRULE || **written == *FRULE {
            return None;
        }
        let plain = !written.contains('.') && !written.starts_with('#');
        let own = self.modules.get(module);
        if plain && own.is_none_or(|s| !s.extends.contains(written)) {
            let qualified = own
                .and_then(|s| s.defines.get(written).cloned())
                .unwrap_or_else(|| qualify(module, written));
            return Some((module.clone(), written.clone(), qualified));
        }
        let name = self.definition(module, written);
        let (target, bare) = match name.rsplit_once('.') {
            Some((m, n)) => (Name::from(m), Name::from(n)),
            None => (module.clone(), name.clone()),
        };
        if *bare == *RRULE || *bare == *FRULE {
            return None;
        }
        Some(if name.contains('.') {
            (target, bare, name)
        } else {
            (module.clone(), bare.clone(), qualify(module, &bare))
        })
    }

    /// The module that `name` (possibly dotted) names in `module`'s code, if it names one.
    pub fn module_path(&self, module: &str, name: &str) -> Option<Name> {
        let mut parts = name.split('.');
        let first = parts.next()?;
        let mut path: Name = match self.modules.get(module).and_then(|s| s.modules.get(first)) {
            Some(p) => p.clone(),
            None if first == BASE => BASE.into(),
            None if first == "Main" => MAIN.into(),
            None if is_own_name(module, first) => module.into(),
            // Base's own modules (`MathConstants`) are seen as Base's other names are, unless
            // the module is a `baremodule`.
            None if self.sees_base(module) && self.modules.contains_key(&join(BASE, first)) => {
                join(BASE, first)
            }
            // A module that a used module exports (`export Inner`, then `using .Outer`).
            None => self.exported_module(module, first)?,
        };
        for part in parts {
            let next = join(&path, part);
            if !self.modules.contains_key(&next) {
                return None;
            }
            path = next;
        }
        Some(path)
    }

    /// The submodule `name` of a module that `module` uses and that exports it.
    fn exported_module(&self, module: &str, name: &str) -> Option<Name> {
        let scope = self.modules.get(module)?;
        scope.usings.iter().find_map(|used| {
            let inner = self.modules.get(used)?.modules.get(name)?;
            let exports = self.modules.get(used)?.exports.contains(name);
            (exports && self.modules.contains_key(inner)).then(|| inner.clone())
        })
    }

    /// The binding `name` of `module` as `module.name` reaches it: its own or one it imports.
    fn member(&self, module: &str, name: &str) -> Name {
        let scope = self.modules.get(module);
        scope
            .and_then(|s| s.defines.get(name).or_else(|| s.imports.get(name)))
            .cloned()
            .unwrap_or_else(|| qualify(module, name))
    }

    /// Does code of `module` see Base's names (it is not a `baremodule`)?
    fn sees_base(&self, module: &str) -> bool {
        self.modules
            .get(module)
            .is_none_or(|s| s.usings.iter().any(|u| &**u == BASE))
    }

    /// The qualified `name` if `module` defines (or imports) and exports it (everything Base
    /// defines counts as exported): `import A: f` then `export f` re-exports `A.f`.
    fn exported(&self, module: &str, name: &str) -> Option<Name> {
        let s = self.modules.get(module)?;
        let q = s.defines.get(name).or_else(|| s.imports.get(name))?;
        (module == BASE || s.exports.contains(name)).then(|| q.clone())
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
                        || (library && library_changes(&call.callee, p))
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
            args: pick(&|p| library_changes(&call.callee, p)),
            ..CallChanges::default()
        }
    }

    /// The module (if the program has it) and the bare name of the qualified `q`.
    fn split<'q>(&self, q: &'q str) -> (&'q str, &'q str) {
        match split_last_dot(q) {
            Some((m, n)) if !m.is_empty() && self.modules.contains_key(m) => (m, n),
            _ => (MAIN, q),
        }
    }

    /// Is the qualified `q` a top-level binding (not a function)?
    pub(crate) fn is_binding_name(&self, q: &str) -> bool {
        let (m, n) = self.split(q);
        self.modules.get(m).is_some_and(|s| s.bindings.contains(n))
    }

    /// Is the qualified `q` one of the program's structs?
    pub(crate) fn is_program_struct(&self, q: &str) -> bool {
        let (m, n) = self.split(q);
        !is_prelude_module(m) && self.modules.get(m).is_some_and(|s| s.structs.contains(n))
    }

    /// Do the program's files (not the library) define the qualified `q`?
    pub(crate) fn program_defines_qualified(&self, q: &str) -> bool {
        let (m, n) = self.split(q);
        !is_prelude_module(m)
            && self
                .modules
                .get(m)
                .is_some_and(|s| s.defines.contains_key(n))
    }

    /// Is the qualified `q` a name of the library (a prelude module's)?
    pub(crate) fn is_library(&self, q: &str) -> bool {
        let (m, _) = self.split(q);
        m != MAIN && is_prelude_module(m)
    }

    /// Is the qualified `q` a binding whose value a call can change in place?
    fn is_mutable_binding(&self, q: &str) -> bool {
        let (m, n) = self.split(q);
        self.modules.get(m).is_some_and(|s| s.mutable.contains(n))
    }

    /// Is the qualified `q` a definition zy refused?
    pub(crate) fn is_refused(&self, q: &str) -> bool {
        self.refused.contains_key(q)
    }

    /// Where top-level code that zy does not run changes the binding `qualified`, if it does.
    pub fn changed_by_skipped_code(&self, qualified: &str) -> Option<&str> {
        self.changed.get(qualified).map(String::as_str)
    }

    /// The bindings that the skipped statement `item` may change, as the program names them.
    pub fn changed_by_statement(&self, item: ItemId) -> &[Name] {
        self.statements
            .iter()
            .find(|(i, _)| *i == item)
            .map_or(&[], |(_, names)| names.as_slice())
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

/// The modules a program knows by an absolute name: the prelude's and Main.
fn absolute_module(names: &ScopeNames, first: &str) -> Option<Name> {
    match first {
        "Main" => Some(MAIN.into()),
        _ if names.modules.contains_key(first) && !first.contains('.') && first != MAIN => {
            Some(first.into())
        }
        _ => None,
    }
}

/// The module an import path names, written in `module`: `A.B` absolute (a prelude module, or
/// a package whose source the program loads), `.M` in `module`, `..M` in its parent.
fn import_module(names: &ScopeNames, module: &str, path: &ImportPath) -> Result<Name, ImportError> {
    let shown = format!("{}{}", ".".repeat(path.dots as usize), path.names.join("."));
    let mut parts = path.names.iter();
    let mut at: Name = if path.dots == 0 {
        let Some(first) = parts.next() else {
            return Err(ImportError::unsupported("an empty module path".into()));
        };
        match absolute_module(names, first) {
            // A module of the user's files is written `.M` in `using`.
            Some(m) if names.modules.contains_key(&m) && m.as_ref() != MAIN && !crate::prelude::is_prelude_module(&m) && !names.packages.contains(&m) => {
                return Err(ImportError::unsupported(format!(
                    "`{first}` is a module of your files: write `using .{first}`"
                )));
            }
            Some(m) => m,
            None => {
                return Err(ImportError {
                    code: UNKNOWN_PACKAGE,
                    message: format!(
                        "package `{first}` is not available: zy knows Base, LinearAlgebra, Statistics, Random, SparseArrays, Printf, Test, ForwardDiff, ReverseDiff and Zygote (their APIs answered by zy's own differentiation), SpecialFunctions, LogExpFunctions, StatsFuns and Distributions, and the modules your files define (`using .{first}`); a function that uses a name only `{first}` defines is refused"
                    ),
                })
            }
        }
    } else {
        let mut m: &str = module;
        for _ in 1..path.dots {
            m = parent(m);
        }
        m.into()
    };
    for part in parts {
        let next = join(&at, part);
        if !names.modules.contains_key(&next) {
            // `using ..Pkg: f` in `Pkg.Sub`: the parent's own name, bound inside it.
            if is_own_name(&at, part) {
                continue;
            }
            return Err(ImportError::unsupported(format!(
                "UndefVarError: `{part}` not defined in `{}` (in `{shown}`)",
                module_name(&at)
            )));
        }
        at = next;
    }
    Ok(at)
}

/// Top-level bindings of a module, `const U = A.B` (or `U = A.B`): `U` names that module as
/// `A.B` does (`U.f`). In order of the items, so an alias may name an earlier one.
fn add_module_aliases(
    db: &dyn salsa::Database,
    names: &mut ScopeNames,
    globals: &[(ItemId, Name)],
) {
    for (item, module) in globals {
        let Some((_, Some(dotted))) = binding_value(db, *item) else {
            continue;
        };
        let Some(path) = names.module_path(module, &dotted) else {
            continue;
        };
        if let Some(scope) = names.modules.get_mut(module) {
            scope.modules.insert(item.name(db).clone(), path);
        }
    }
}

/// How a module is named in messages.
fn module_name(module: &str) -> &str {
    if module == MAIN {
        "Main"
    } else {
        module
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
}

impl ItemsByKind {
    fn of(db: &dyn salsa::Database, files: &[LoadedFile]) -> ItemsByKind {
        let mut out = ItemsByKind::default();
        for l in files {
            let own = !is_prelude(db, l.file);
            for &item in item_tree(db, l.file) {
                let module = within(&l.module, item.module(db));
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
        }
        out
    }
}

#[salsa::tracked(returns(ref))]
fn root_names(db: &dyn salsa::Database, root: SourceFile) -> ScopeNames {
    let mut names = ScopeNames::default();
    let files = root_files(db, root);
    let items = ItemsByKind::of(db, files);
    // Every module first, then what each imports (which names modules), then what each defines
    // (which depends on what it imports).
    for l in files {
        names.modules.entry(l.module.clone()).or_default();
    }
    let by_path = files_by_path(db, Workspace::get(db));
    for l in files {
        for (package, path) in package_sources(db, l.file) {
            if by_path.contains_key(path) {
                names.packages.insert(package.clone());
            }
        }
    }
    for (item, module) in &items.modules {
        let inner = join(module, item.name(db));
        names.modules.entry(inner.clone()).or_default();
        let scope = names.modules.entry(module.clone()).or_default();
        scope.modules.insert(item.name(db).clone(), inner);
    }
    for (module, scope) in names.modules.iter_mut() {
        let bare = module.as_ref() == BASE;
        if !bare {
            scope.usings.push(BASE.into());
        }
    }
    // A module's own item comes before its items, and so before the imports written in it.
    for (item, module) in &items.modules {
        if is_bare_module(db, *item) {
            let inner = join(module, item.name(db));
            if let Some(scope) = names.modules.get_mut(&inner) {
                scope.usings.retain(|u| u.as_ref() != BASE);
            }
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
    for (item, kind, module) in &items.definitions {
        let written = item.name(db);
        let Some((target, bare, qualified)) = names.defined(module, written) else {
            continue;
        };
        let scope = names.modules.entry(target).or_default();
        scope.defines.insert(bare.clone(), qualified);
        if *kind == ItemKind::Struct {
            scope.structs.insert(bare.clone());
        }
        if *kind == ItemKind::Global {
            let settled = binding_value(db, *item).is_some_and(|(settled, _)| settled);
            if !settled {
                scope.mutable.insert(bare.clone());
            }
            scope.bindings.insert(bare);
        }
    }
    for (item, module) in &items.exports {
        let scope = names.modules.entry(module.clone()).or_default();
        scope.exports.extend(exported_names(db, *item));
    }
    add_refused(db, &mut names, &items.refused);
    let (effects, bindings) = program_effects(db, &names, &items.own);
    for (item, module) in &items.scripts {
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
        let at = format!("{}:{}", file.path(db).display(), line_col(db, file, start));
        for name in &changed {
            names
                .changed
                .entry(name.clone())
                .or_insert_with(|| at.clone());
        }
        names
            .statements
            .push((*item, changed.into_iter().collect()));
    }
    share_changes(&mut names, &effects, &bindings);
    names
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
        if !grew {
            break;
        }
    }
}

/// Record an import of `module`'s code; say why each of its paths that names nothing does
/// (the others are imported: `using LinearAlgebra, Plots` still brings in `norm`).
fn add_import(
    names: &mut ScopeNames,
    module: &Name,
    i: &zy_syntax::ast::ImportDef,
) -> Vec<ImportError> {
    let mut imports = Vec::new();
    let mut modules = Vec::new();
    let mut usings = Vec::new();
    let mut errors = Vec::new();
    match &i.from {
        Some(from) => {
            // `using A: f, g as h` / `import A: f`.
            let source = match import_module(names, module, from) {
                Ok(source) => source,
                Err(why) => return vec![why],
            };
            for (path, alias) in &i.paths {
                let name = path.names.join(".");
                let local = alias.clone().unwrap_or_else(|| name.clone());
                // A name the module itself imports (LinearAlgebra's `dot`, which extends
                // Base's) is the one it imports.
                let imported = names
                    .modules
                    .get(&source)
                    .and_then(|m| m.imports.get(name.as_str()).cloned());
                match names.modules.get(&join(&source, &name)) {
                    Some(_) => modules.push((local, join(&source, &name))),
                    None => {
                        imports.push((local, imported.unwrap_or_else(|| qualify(&source, &name))))
                    }
                }
            }
        }
        None => {
            for (path, alias) in &i.paths {
                match import_module(names, module, path) {
                    // `using A`, `import A`, `import A as B`.
                    Ok(m) => {
                        let local = alias
                            .clone()
                            .or_else(|| path.names.last().cloned())
                            .unwrap_or_default();
                        modules.push((local, m.clone()));
                        if i.using {
                            usings.push(m);
                        }
                    }
                    // `import A.f`: a name in a module.
                    Err(why) => {
                        let Some((last, init)) = path.names.split_last() else {
                            errors.push(why);
                            continue;
                        };
                        let prefix = ImportPath {
                            dots: path.dots,
                            names: init.to_vec(),
                            range: path.range,
                        };
                        if init.is_empty() && path.dots == 0 {
                            errors.push(why);
                            continue;
                        }
                        match import_module(names, module, &prefix) {
                            Ok(source) => {
                                let local = alias.clone().unwrap_or_else(|| last.clone());
                                imports.push((local, qualify(&source, last)));
                            }
                            Err(why) => errors.push(why),
                        }
                    }
                }
            }
        }
    }
    let scope = names.modules.entry(module.clone()).or_default();
    for (local, target) in modules {
        scope.modules.insert(local.into(), target);
    }
    for (local, target) in imports {
        if !i.using {
            scope.extends.insert(local.as_str().into());
        }
        scope.imports.insert(local.into(), target);
    }
    for u in usings {
        if !scope.usings.contains(&u) {
            scope.usings.push(u);
        }
    }
    errors
}
