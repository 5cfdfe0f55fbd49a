//! The names a program's modules define and see, and how a name written in one resolves
//! ([`ModuleNames::resolve`]): the part of [`crate::scope`] that needs no database, so that the
//! build script also builds the prelude's own scope and resolves the library's items in it
//! once, at build time (`build.rs`; [`crate::item::BundledItem`]'s resolved packing).

use std::collections::{BTreeMap, BTreeSet};

use rustc_hash::{FxHashMap, FxHashSet};
use zy_ir::Name;
use zy_syntax::ast::ImportPath;

use crate::item_kind::ItemKind;
use crate::prelude::is_prelude_module;

/// The module of the user's files (Julia's `Main`): its names are not qualified.
pub const MAIN: &str = "";

/// The function that in-source rules are methods of, wherever they are written (as
/// ChainRulesCore's `rrule` is): never qualified.
pub const RRULE: &str = "rrule";

/// The generic function of in-source forward rules, never qualified either (a prelude `frule`
/// is one of the AD's, as a prelude `rrule` is).
pub const FRULE: &str = "frule";

/// The module that the prelude puts everything in that every module sees.
pub(crate) const BASE: &str = "Base";

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

/// The module path `inner` inside `outer`.
pub(crate) fn join(outer: &str, inner: &str) -> Name {
    match (outer, inner) {
        (o, "") => o.into(),
        ("", i) => i.into(),
        (o, i) => dot_join(o, i),
    }
}

/// [`join`], sharing `outer` when `inner` is empty (most items: this runs for each of the
/// library's items in a fresh database).
pub(crate) fn within(outer: &Name, inner: &str) -> Name {
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

/// What one module of a program defines and sees. Hashed by name: resolution looks names up
/// here thousands of times in a first gradient.
#[derive(Clone, PartialEq, Eq, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct ModuleScope {
    /// Functions, structs and bindings it defines, unqualified, to their qualified names
    /// (made once, shared by every resolution to them).
    pub(crate) defines: FxHashMap<Name, Name>,
    /// Its top-level bindings (those a skipped statement may change).
    pub(crate) bindings: FxHashSet<Name>,
    /// Its structs (a call of one with no methods of its own builds a value, changing
    /// nothing).
    pub(crate) structs: FxHashSet<Name>,
    /// The bindings with a definition whose value a call can change in place (anything but a
    /// number, string, `nothing`, a value of one of the `immutable_structs`, or a tuple of
    /// them): a skipped statement that passes one to a call may change it without assigning
    /// it.
    pub(crate) mutable: BTreeSet<Name>,
    /// Its structs whose values nothing can change in place: immutable, their fields numbers,
    /// strings or symbols (`struct Missing end`, `struct Point; x::Float64; y::Float64; end`).
    pub(crate) immutable_structs: FxHashSet<Name>,
    /// Names brought in one by one (`using A: f`, `import A.f`), to their qualified names.
    pub(crate) imports: FxHashMap<Name, Name>,
    /// Of those, the ones brought in by `import`: a method defined under that name in the module
    /// is a method of the imported function.
    pub(crate) extends: FxHashSet<Name>,
    /// Modules whose exports it sees (`using A`; Base too unless it is a `baremodule`).
    pub(crate) usings: Vec<Name>,
    /// Module names it can write (`M` in `M.f`): its own modules and those it imports.
    pub(crate) modules: FxHashMap<Name, Name>,
    pub(crate) exports: FxHashSet<Name>,
}

/// The modules of a program with what each defines and sees, and the bindings that skipped
/// statements may change: what resolution reads ([`crate::scope::ScopeNames`] adds what the
/// editor reports). The build script packs the prelude's own (`build.rs`), which a program
/// whose files leave the library's modules alone starts from ([`crate::scope`]).
#[derive(Clone, PartialEq, Eq, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct ModuleNames {
    pub(crate) modules: FxHashMap<Name, ModuleScope>,
    /// Qualified bindings changed by top-level code zy does not run, with where that code is.
    pub(crate) changed: BTreeMap<Name, String>,
    /// Modules defined by a package's source that the program loads (`using P` names them).
    pub(crate) packages: BTreeSet<Name>,
}

/// Why an import names nothing.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct ImportError {
    /// `unknown-package` for a package zy does not know, `unsupported` otherwise.
    pub code: &'static str,
    /// One line.
    pub message: String,
    /// The package zy does not have, for `unknown-package`.
    pub package: Option<Name>,
}

/// The code of an import of a package zy does not know (a warning: only the functions that
/// use its names are refused).
pub const UNKNOWN_PACKAGE: &str = "unknown-package";

impl ImportError {
    pub(crate) fn unsupported(message: String) -> ImportError {
        ImportError {
            code: "unsupported",
            message,
            package: None,
        }
    }
}

impl ModuleNames {
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
    pub(crate) fn defined(&self, module: &Name, written: &Name) -> Option<(Name, Name, Name)> {
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

    /// Does some module (the library's or the program's) define the qualified `q`?
    pub fn defines_qualified(&self, q: &str) -> bool {
        let (m, n) = self.split(q);
        self.modules
            .get(m)
            .is_some_and(|s| s.defines.contains_key(n))
    }

    /// Is the qualified `q` a name of the library (a prelude module's)?
    pub(crate) fn is_library(&self, q: &str) -> bool {
        let (m, _) = self.split(q);
        m != MAIN && is_prelude_module(m)
    }

    /// Is the qualified `q` a binding whose value a call can change in place?
    pub(crate) fn is_mutable_binding(&self, q: &str) -> bool {
        let (m, n) = self.split(q);
        self.modules.get(m).is_some_and(|s| s.mutable.contains(n))
    }

    /// Where top-level code that zy does not run changes the binding `qualified`, if it does.
    pub fn changed_by_skipped_code(&self, qualified: &str) -> Option<&str> {
        self.changed.get(qualified).map(String::as_str)
    }

    /// Add the module `name` written in `module` (a `module` item), and return its path.
    pub(crate) fn add_module(&mut self, module: &Name, name: &str) -> Name {
        let inner = join(module, name);
        self.modules.entry(inner.clone()).or_default();
        let scope = self.modules.entry(module.clone()).or_default();
        scope.modules.insert(name.into(), inner.clone());
        inner
    }

    /// Every module but Base for which `fresh` holds sees Base's names (until
    /// [`ModuleNames::make_bare`]): all of them, or those added to the prelude's built scope.
    pub(crate) fn see_base(&mut self, fresh: impl Fn(&str) -> bool) {
        for (module, scope) in self.modules.iter_mut() {
            if module.as_ref() != BASE && fresh(module) {
                scope.usings.push(BASE.into());
            }
        }
    }

    /// The module `inner` is a `baremodule`: it does not see Base.
    pub(crate) fn make_bare(&mut self, inner: &str) {
        if let Some(scope) = self.modules.get_mut(inner) {
            scope.usings.retain(|u| u.as_ref() != BASE);
        }
    }

    /// The top-level binding `name` of `module` whose value is the dotted name `dotted`
    /// (`const U = A.B`): if that names a module, `U` names it too.
    pub(crate) fn add_alias(&mut self, module: &str, name: &str, dotted: &str) {
        let Some(path) = self.module_path(module, dotted) else {
            return;
        };
        if let Some(scope) = self.modules.get_mut(module) {
            scope.modules.insert(name.into(), path);
        }
    }

    /// Are all of `makers`, written in `module`, structs whose values nothing can change in
    /// place (see [`ModuleScope::immutable_structs`])?
    pub(crate) fn all_immutable_structs(&self, module: &str, makers: &[impl AsRef<str>]) -> bool {
        makers.iter().all(|m| {
            let q = self.resolve(module, m.as_ref());
            let (m, n) = self.split(&q);
            self.modules
                .get(m)
                .is_some_and(|s| s.immutable_structs.contains(n))
        })
    }

    /// Record the definition `written` of `module`, an item of `kind` (a binding whose value
    /// no call changes in place, or a struct whose values none does, is `settled`). Returns the module it defines a name in, and
    /// whether that name is new there; `None` if it defines no name (a callable struct's
    /// call methods, an in-source rule).
    pub(crate) fn add_definition(
        &mut self,
        module: &Name,
        kind: ItemKind,
        written: &Name,
        settled: bool,
    ) -> Option<(Name, bool)> {
        let (target, bare, qualified) = self.defined(module, written)?;
        let scope = self.modules.entry(target.clone()).or_default();
        let new = scope.defines.insert(bare.clone(), qualified).is_none();
        if kind == ItemKind::Struct {
            if settled {
                scope.immutable_structs.insert(bare.clone());
            }
            scope.structs.insert(bare.clone());
        }
        if kind == ItemKind::Global {
            if !settled {
                scope.mutable.insert(bare.clone());
            }
            scope.bindings.insert(bare);
        }
        Some((target, new))
    }

    /// Record that `module` exports `names`.
    pub(crate) fn add_exports(&mut self, module: &Name, names: impl IntoIterator<Item = Name>) {
        let scope = self.modules.entry(module.clone()).or_default();
        scope.exports.extend(names);
    }
}

/// The modules a program knows by an absolute name: the prelude's and Main.
fn absolute_module(names: &ModuleNames, first: &str) -> Option<Name> {
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
pub(crate) fn import_module(
    names: &ModuleNames,
    module: &str,
    path: &ImportPath,
) -> Result<Name, ImportError> {
    let shown = format!("{}{}", ".".repeat(path.dots as usize), path.names.join("."));
    let mut parts = path.names.iter();
    let mut at: Name = if path.dots == 0 {
        let Some(first) = parts.next() else {
            return Err(ImportError::unsupported("an empty module path".into()));
        };
        match absolute_module(names, first) {
            // A module of the user's files is written `.M` in `using`, but for a package's
            // own name used inside it (`using Pkg` in `Pkg.Sub`), which Julia's loader finds.
            Some(m)
                if names.modules.contains_key(&m)
                    && m.as_ref() != MAIN
                    && !crate::prelude::is_prelude_module(&m)
                    && !names.packages.contains(&m)
                    && !is_within(module, &m) =>
            {
                return Err(ImportError::unsupported(format!(
                    "`{first}` is a module of your files: write `using .{first}`"
                )));
            }
            Some(m) => m,
            None => {
                return Err(ImportError {
                    code: UNKNOWN_PACKAGE,
                    message: format!(
                        "package `{first}` is not available: zy knows Base, LinearAlgebra, Statistics, Random, SparseArrays, Printf, Dates, Test, ForwardDiff, ReverseDiff and Zygote (their APIs answered by zy's own differentiation), SpecialFunctions, LogExpFunctions, StatsFuns and Distributions, and the modules your files define (`using .{first}`); a function that uses a name only `{first}` defines is refused"
                    ),
                    package: Some(first.as_str().into()),
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

/// Whether `module` is `outer` or nested inside it.
fn is_within(module: &str, outer: &str) -> bool {
    module
        .strip_prefix(outer)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with('.'))
}

/// How a module is named in messages.
fn module_name(module: &str) -> &str {
    if module == MAIN {
        "Main"
    } else {
        module
    }
}

/// The name `import source: name` binds: `source`'s `name`, or, for one of Julia's types that
/// zy knows without a definition in its Base (`import Base: Real, AbstractSet`), the type
/// itself, as a program names it without the import.
fn imported_name(names: &ModuleNames, source: &str, name: &str) -> Name {
    let builtin_type = source == BASE
        && name.starts_with(char::is_uppercase)
        && names
            .modules
            .get(BASE)
            .is_some_and(|base| !base.defines.contains_key(name));
    if builtin_type {
        name.into()
    } else {
        qualify(source, name)
    }
}

/// Record an import of `module`'s code; say why each of its paths that names nothing does
/// (the others are imported: `using LinearAlgebra, Plots` still brings in `norm`).
pub(crate) fn add_import(
    names: &mut ModuleNames,
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
                    None => imports.push((
                        local,
                        imported.unwrap_or_else(|| imported_name(names, &source, &name)),
                    )),
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
