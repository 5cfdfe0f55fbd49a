//! The whole program, compared by its signatures only. Inference of one specialisation needs
//! every method's signature (for dispatch) but only its own body; so the program index holds
//! the latest bodies while its equality ignores them: a body edit re-runs this query but
//! leaves it "unchanged" for salsa, and only the instances whose own body changed (they depend
//! on that item's `ssa` directly) are re-inferred. (A body edit that reaches a library function
//! the program did not have adds its methods, and so does change the index.)
//!
//! A library method that is one plain method is held by its signature alone, from the
//! build-time index ([`crate::stub`]): the names its body uses are indexed too, so reaching
//! through it needs no lowering, and its body is lowered when inference first specialises it.
//! Its body in the index is a stub with no blocks; the bodies are read through
//! [`resolved_ssa`] ([`ProgramIndex::method_body`]), and the AD's in-source rules, which infer
//! a whole program of their own, read [`ProgramKey::rule_source`].

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex, PoisonError};

use rustc_hash::{FxHashMap, FxHashSet};
use zy_ir::{
    Function, GenericFunction, Global, Instance, Method, Name, Program, Type, TypeExpr,
    TypedProgram,
};
use zy_lower::LowerError;

use crate::call::CallFunctions;
use crate::input::SourceFile;
use crate::item::{
    built_items, built_resolution, bundled, bundled_lowering, ItemId, ItemKind, LibraryItem,
};
use crate::lower::ssa;
use crate::reach::{
    hooks_of, item_names, makes_matrix, Mention, MATRIX, MATRIX_MAKERS, MATRIX_TYPES,
};
use crate::resolve::{resolve_item, resolve_owned};
use crate::scope::{
    is_prelude, item_module, loaded_items, root_files, root_scope_names, scope_root, FileModules,
    ScopeNames,
};
use crate::signature::Signature;
use crate::stub::{is_stub, BundledMethod, Resolved};

/// The program with where each body comes from.
#[derive(Clone, Debug, Default)]
pub struct ProgramIndex {
    /// Every method, struct and binding, with its body as of the latest execution.
    pub program: Program,
    /// For every generic function, in method order: the item each method was lowered from and
    /// its index among that item's methods.
    pub method_origin: BTreeMap<Name, Vec<(ItemId, usize)>>,
    /// The item each top-level binding was lowered from.
    pub global_origin: BTreeMap<Name, ItemId>,
    /// Problems found combining items (a struct or binding defined twice), each with the item
    /// whose span it carries.
    pub errors: Vec<LowerError>,
    /// The qualified names whose prelude definitions the program has (all of them if it has
    /// any): those its code refers to, transitively. Left out of the equality like the bodies:
    /// a name whose reaching adds definitions changes the functions compared.
    pub reached: BTreeSet<Name>,
    /// The patterns of the program's method signatures as inference builds them, once per
    /// program. Left out of the equality: they follow from the structs and signatures compared.
    pub signatures: zy_infer::Signatures,
}

/// Equal when everything but the bodies is equal (see the module documentation).
impl PartialEq for ProgramIndex {
    fn eq(&self, other: &ProgramIndex) -> bool {
        same_but_bodies(&self.program, &other.program)
            && self.method_origin == other.method_origin
            && self.global_origin == other.global_origin
            && self.errors == other.errors
    }
}

impl Eq for ProgramIndex {}

/// Whether two programs are equal but for their bodies.
fn same_but_bodies(a: &Program, b: &Program) -> bool {
    a.structs == b.structs
        && a.aliases == b.aliases
        && a.rebound == b.rebound
        && same_keys(&a.functions, &b.functions, |f, g| {
            f.name == g.name
                && f.methods.len() == g.methods.len()
                && f.methods
                    .iter()
                    .zip(&g.methods)
                    .all(|(m, n)| same_signature(m, n))
        })
        && same_keys(&a.globals, &b.globals, |g: &Global, h: &Global| {
            g.span == h.span
        })
}

fn same_keys<V>(
    a: &BTreeMap<Name, V>,
    b: &BTreeMap<Name, V>,
    same: impl Fn(&V, &V) -> bool,
) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|((k, v), (l, w))| k == l && same(v, w))
}

fn same_signature(m: &Method, n: &Method) -> bool {
    m.sig == n.sig
        && m.where_params == n.where_params
        && m.where_bounds == n.where_bounds
        && m.span == n.span
}

/// The lowered item with its names resolved in the scope of `file` (see [`crate::scope`]).
/// Re-runs when the item's text changes or when a definition appears in or disappears from the
/// scope.
pub fn resolved_ssa(
    db: &dyn salsa::Database,
    file: SourceFile,
    item: ItemId,
) -> &Arc<zy_lower::LoweredItem> {
    resolved_in_root(db, scope_root(db, file), item)
}

#[salsa::tracked(returns(ref))]
pub(crate) fn resolved_in_root(
    db: &dyn salsa::Database,
    root: SourceFile,
    item: ItemId,
) -> Arc<zy_lower::LoweredItem> {
    let names = root_scope_names(db, root);
    if names.library_as_built() {
        if let Some(built) = built_resolution(db, item) {
            return Arc::new(built);
        }
    }
    let module = item_module(db, root, item);
    // A bundled library item is read back for itself, so that its bodies are resolved without
    // a copy (the unresolved lowering is kept by `ssa` only for items lowered from text).
    Arc::new(match bundled_lowering(db, item) {
        Some(owned) => resolve_owned(owned, &module, names),
        None => resolve_item(ssa(db, item), &module, names),
    })
}

/// An item as the program index holds it: lowered and resolved in the scope of a root, or, for
/// a bundled library method ([`crate::stub`]), its signature alone and the names its body
/// uses, resolved, so that it is neither parsed nor lowered until inference specialises it.
#[derive(Clone, PartialEq, Eq, Debug)]
pub(crate) struct Indexed {
    pub(crate) item: Arc<zy_lower::LoweredItem>,
    /// A stub's body's names (`None`: the item is lowered whole, its body in `item`).
    body_names: Option<Arc<[Name]>>,
}

/// `item` as the program of `root` indexes it (see [`Indexed`]): a bundled library method's
/// stub from the root's [`StubMemo`] (`method`, the item's build-time method, which the caller
/// has read: [`LibraryItem::method`]), any other item's resolved lowering.
pub(crate) fn indexed_in_root(
    db: &dyn salsa::Database,
    root: SourceFile,
    item: ItemId,
    method: Option<&'static BundledMethod>,
) -> Indexed {
    match method {
        Some(method) => stub_memo(db, root).stub(db, root, item, method),
        None => Indexed {
            item: resolved_in_root(db, root, item).clone(),
            body_names: None,
        },
    }
}

/// The stubs of the library methods that the programs of one root reach, each made once, and
/// the names resolved for them in each module ([`Resolved`]). A stub depends only on its
/// build-time method (fixed for an item while its file has the bundled text, which the
/// caller's read of its file's [`bundled`] entries tracks), on the root's scope and on the
/// modules its files are loaded into; [`stub_memo`] reads the last two, so a new, empty memo replaces this
/// one when either changes. One memo for every stub rather than a query each: a first gradient
/// makes ~1,200, and a query's own bookkeeping cost more than the stub, in the first run and
/// in the editor's re-runs after each edit.
pub(crate) struct StubMemo {
    modules: FileModules,
    stubs: Mutex<Stubs>,
}

/// What a [`StubMemo`] has made: the stubs, and the names resolved for them in each module.
#[derive(Default)]
struct Stubs {
    made: FxHashMap<ItemId, Indexed>,
    resolved: FxHashMap<Name, Resolved>,
}

impl StubMemo {
    /// The stub of `item`, a bundled `method`, in the program of `root`.
    fn stub(
        &self,
        db: &dyn salsa::Database,
        root: SourceFile,
        item: ItemId,
        method: &BundledMethod,
    ) -> Indexed {
        let mut stubs = self.stubs.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(found) = stubs.made.get(&item) {
            return found.clone();
        }
        let names = root_scope_names(db, root);
        let module = self.modules.item_module(db, item);
        let memo = stubs.resolved.entry(module.clone()).or_default();
        let mut body_names = Vec::new();
        method.body_names(&module, names, memo, &mut |n| body_names.push(n));
        let made = Indexed {
            item: Arc::new(method.resolved_stub(item.span_file(), &module, names, memo)),
            body_names: Some(body_names.into()),
        };
        stubs.made.insert(item, made.clone());
        made
    }
}

/// The memo of `root`'s stubs (see [`StubMemo`]): made anew, empty, when the root's scope or
/// the modules of its files change.
#[salsa::tracked(returns(ref), no_eq)]
fn stub_memo(db: &dyn salsa::Database, root: SourceFile) -> StubMemo {
    // Read for the dependency: every stub is resolved in this scope.
    let _ = root_scope_names(db, root);
    StubMemo {
        modules: FileModules::of_root(db, root),
        stubs: Mutex::default(),
    }
}

/// Call `f` on every name the indexed item defines or refers to (see
/// [`crate::reach::item_names`]).
pub(crate) fn indexed_names(indexed: &Indexed, f: &mut impl FnMut(&Name, Mention)) {
    item_names(&indexed.item, f);
    for n in indexed.body_names.iter().flat_map(|n| n.iter()) {
        f(n, Mention::Value);
    }
}

/// Which program an analysis runs in: the program of a root file ([`crate::scope`]), with the
/// prelude definitions of the names `reach` too. Those are the names a call string refers to
/// that the root's own code does not reach ([`needed_names`]); usually there are none. A call
/// string with functions of its own (a closure, a comprehension, a `do` block) is typed in a
/// program holding them too: `own` ([`crate::call::CallFunctions`]). A call that runs as
/// part of a skipped statement (a test's text) sees the bindings only later statements change
/// as defined: `known` ([`KnownBindings`]).
#[salsa::interned(unsafe(no_lifetime), revisions = usize::MAX, debug)]
pub struct ProgramKey {
    #[returns(copy)]
    pub root: SourceFile,
    #[returns(ref)]
    pub reach: Arc<[Name]>,
    #[returns(copy)]
    pub own: Option<CallFunctions>,
    #[returns(copy)]
    pub known: Option<KnownBindings>,
}

/// Bindings that skipped statements change, whose values a program nevertheless knows: it runs
/// at a place no statement changing them has run before ([`ScopeNames::known_at`]), so their
/// reads are not refused. Each distinct set is a program of its own.
#[salsa::interned(unsafe(no_lifetime), revisions = usize::MAX, debug)]
pub struct KnownBindings {
    #[returns(ref)]
    pub names: Arc<[Name]>,
}

/// The names of `root`'s program with the bindings `known` not changed by skipped code.
#[salsa::tracked(returns(ref))]
pub(crate) fn knowing_names(
    db: &dyn salsa::Database,
    root: SourceFile,
    known: KnownBindings,
) -> ScopeNames {
    root_scope_names(db, root).knowing(known.names(db))
}

/// `item` resolved in the program `key`, one that knows some bindings ([`KnownBindings`]):
/// as in its root's scope, except where it reads one of them, which it then reads.
#[salsa::tracked(returns(ref))]
fn resolved_in_program(
    db: &dyn salsa::Database,
    key: ProgramKey,
    item: ItemId,
) -> Arc<zy_lower::LoweredItem> {
    let root = key.root(db);
    let as_root = resolved_in_root(db, root, item);
    let Some(known) = key.known(db) else {
        return as_root.clone();
    };
    if !crate::resolve::refuses_any(as_root, known.names(db)) {
        return as_root.clone();
    }
    let module = item_module(db, root, item);
    Arc::new(resolve_item(
        ssa(db, item),
        &module,
        knowing_names(db, root, known),
    ))
}

impl ProgramKey {
    /// The program that the code of `file` sees.
    pub fn of(db: &dyn salsa::Database, file: SourceFile) -> ProgramKey {
        ProgramKey::new(
            db,
            scope_root(db, file),
            Arc::<[Name]>::from([]),
            None,
            None,
        )
    }

    /// The program's index.
    pub fn index(self, db: &dyn salsa::Database) -> &Arc<ProgramIndex> {
        root_program(db, self)
    }

    /// The program `inst`, an instance of this one, is typed in: for a call's program, the
    /// program without the call's own functions when `inst` names none of them (nor their
    /// environments' structs) and they are new names (a closure's, `#...`, which no other
    /// code can call), so that the typing of the instances every call reaches is shared by
    /// all of them (one call per test of a file).
    pub fn home(self, db: &dyn salsa::Database, inst: &Instance) -> ProgramKey {
        let Some(own) = self.own(db) else {
            return self;
        };
        let own = own.program(db);
        let without = ProgramKey::new(
            db,
            self.root(db),
            self.reach(db).clone(),
            None,
            self.known(db),
        );
        let base = &without.index(db).program;
        let new = |n: &Name| n.starts_with('#') && !base.functions.contains_key(n);
        let separate = own.functions.keys().all(new)
            && own
                .structs
                .keys()
                .all(|n| n.starts_with('#') && !base.structs.contains_key(n));
        let is_own = |n: &Name| own.functions.contains_key(n) || own.structs.contains_key(n);
        match separate && !is_own(&inst.name) && !inst.args.iter().any(|t| names_any(t, &is_own)) {
            true => without,
            false => self,
        }
    }

    /// The program the AD finds in-source rules (`rrule`, `frule`) in, to differentiate the
    /// instances of `typed` (a typed program of this one), and infers them over: inference of
    /// a rule runs over the program itself, not through `typed`, so the bodies of the library
    /// methods that the rules for those instances may reach are lowered in it.
    pub fn rule_source<'db>(
        self,
        db: &'db dyn salsa::Database,
        typed: &TypedProgram,
    ) -> &'db Program {
        let index = self.index(db);
        let mut subjects: Vec<Name> = RULES
            .iter()
            .filter_map(|r| index.program.functions.get(*r))
            .flat_map(|g| &g.methods)
            .filter_map(rule_subject)
            .filter(|s| typed.functions.keys().any(|i| i.name == *s))
            .collect();
        if subjects.is_empty() {
            return &index.program;
        }
        subjects.sort();
        subjects.dedup();
        &rule_program(db, RuleKey::new(db, self, Arc::from(subjects))).0
    }

    /// The program the AD infers the in-source rules for the function `name` over, as
    /// [`Self::rule_source`] for that function alone; the caller depends on the bodies of the
    /// rules and of what they reach.
    pub fn rules_for<'db>(self, db: &'db dyn salsa::Database, name: &Name) -> &'db Program {
        let index = self.index(db);
        let ruled = RULES
            .iter()
            .filter_map(|r| index.program.functions.get(*r))
            .flat_map(|g| &g.methods)
            .any(|m| rule_subject(m).as_ref() == Some(name));
        if !ruled {
            return &index.program;
        }
        let rules = rule_program(db, RuleKey::new(db, self, Arc::from([name.clone()])));
        for &item in &rules.1 {
            resolved_in_root(db, self.root(db), item);
        }
        &rules.0
    }

    /// The program that runs `inst` of the code of `file`: the file's, with the library's
    /// methods on matrices when an argument holds a matrix that the file's code cannot make
    /// (a matrix the caller made, [`crate::reach::MATRIX_MAKERS`]).
    pub fn for_instance(db: &dyn salsa::Database, file: SourceFile, inst: &Instance) -> ProgramKey {
        let key = ProgramKey::of(db, file);
        if inst.args.iter().any(holds_matrix) && !key.index(db).reached.contains(MATRIX) {
            let reach = Arc::<[Name]>::from([Name::from(MATRIX)]);
            ProgramKey::new(db, key.root(db), reach, None, None)
        } else {
            key
        }
    }
}

/// Whether a value of type `t` holds a matrix, an array of more dimensions, or a row vector
/// (which `*` makes a matrix of).
fn holds_matrix(t: &Type) -> bool {
    match t {
        Type::Array(_, rank) if *rank >= 2 => true,
        Type::Adjoint(_) => true,
        Type::Array(e, _) | Type::Ref(e) | Type::Stack(e) => holds_matrix(e),
        Type::Tuple(ts) | Type::Pullback(ts) => ts.iter().any(holds_matrix),
        Type::NamedTuple(fs) => fs.iter().any(|(_, t)| holds_matrix(t)),
        Type::Struct(s) => {
            s.params.iter().any(holds_matrix) || s.fields.iter().any(|(_, t)| holds_matrix(t))
        }
        _ => false,
    }
}

/// The program that the code of `file` sees: the definitions of the root of its program and of
/// every file included there (see [`crate::scope`]), and the prelude's definitions that those
/// reach.
pub fn program_index(db: &dyn salsa::Database, file: SourceFile) -> &Arc<ProgramIndex> {
    root_program(db, ProgramKey::of(db, file))
}

/// Of the qualified `names`, those whose prelude definitions (or whose hooks, see
/// [`crate::reach::HOOKS`]) the program of `file` lacks, in order: a call string that refers
/// to them is typed in a program that has them.
pub fn needed_names(
    db: &dyn salsa::Database,
    file: SourceFile,
    names: impl IntoIterator<Item = Name>,
) -> Vec<Name> {
    let key = ProgramKey::of(db, file);
    let (index, keyed) = (key.index(db), prelude_items(db, key.root(db)));
    let mut out: Vec<Name> = names
        .into_iter()
        .filter(|n| !index.reached.contains(n))
        .filter(|n| {
            keyed.contains_key(n)
                || keyed.contains_key(&zy_ir::callable_name(n))
                || hooks_of(n).next().is_some()
                || &**n == MATRIX
        })
        .collect();
    out.sort();
    out.dedup();
    out
}

/// The prelude's function, struct and binding items by the qualified name each defines (the
/// callable struct's call methods by `(::T)`, an `rrule` for `f` by `f`: a rule is needed only
/// where its function is called).
///
/// Where the library's names are as built ([`ScopeNames::library_as_built`]), each item's name
/// is the one the build script resolved ([`built_items`]), not resolved again here. Each item
/// is held with its build-time index entry ([`LibraryItem`]).
#[salsa::tracked(returns(ref))]
fn prelude_items(db: &dyn salsa::Database, root: SourceFile) -> FxHashMap<Name, Vec<LibraryItem>> {
    if root_scope_names(db, root).library_as_built() {
        let mut out: FxHashMap<Name, Vec<LibraryItem>> = FxHashMap::default();
        let files = crate::input::Prelude::get(db).files(db);
        for built in files.iter().filter_map(|&f| built_items(db, f)) {
            for item in built {
                let Some(key) = item.built.and_then(|b| b.key) else {
                    continue;
                };
                match out.get_mut(key) {
                    Some(items) => items.push(item),
                    None => {
                        out.insert(key.into(), vec![item]);
                    }
                }
            }
        }
        return out;
    }
    listed_prelude_items(db, root)
}

/// [`prelude_items`] of `root` with each item's name resolved in the root's scope.
fn listed_prelude_items(
    db: &dyn salsa::Database,
    root: SourceFile,
) -> FxHashMap<Name, Vec<LibraryItem>> {
    let names = root_scope_names(db, root);
    let mut out: FxHashMap<Name, Vec<LibraryItem>> = FxHashMap::default();
    for (item, module) in loaded_items(db, root, |f| is_prelude(db, f)) {
        if matches!(
            item.kind(db),
            ItemKind::Function | ItemKind::Struct | ItemKind::Global
        ) {
            let item = LibraryItem::of(db, item);
            let mut key = names.definition(&module, item.id.name(db));
            if RULES.contains(&&*key) {
                if let Some(f) = item.signature(db).subject {
                    key = names.resolve(&module, f);
                }
            }
            out.entry(key).or_default().push(item);
        }
    }
    out
}

/// The function an in-source rule method is for: `f` of `rrule(::typeof(f), ...)` or of
/// `frule(Δ, ::typeof(f), ...)` (as the AD finds them).
fn rule_subject(m: &Method) -> Option<Name> {
    m.sig.iter().take(2).find_map(|t| match t {
        Some(TypeExpr::Typeof(f)) => Some(f.clone()),
        _ => None,
    })
}

/// The rules of a program for some functions ([`ProgramKey::rule_source`]).
#[salsa::interned(unsafe(no_lifetime), revisions = usize::MAX, debug)]
struct RuleKey {
    #[returns(copy)]
    program: ProgramKey,
    #[returns(ref)]
    subjects: Arc<[Name]>,
}

/// A program compared as the index is, bodies left out (the AD depends on the bodies of the
/// rules it uses by itself), with the items whose bodies it holds.
#[derive(Clone, Debug)]
struct RuleProgram(Program, Vec<ItemId>);

impl PartialEq for RuleProgram {
    fn eq(&self, other: &RuleProgram) -> bool {
        same_but_bodies(&self.0, &other.0) && self.1 == other.1
    }
}

impl Eq for RuleProgram {}

/// The index's program with the stubs' bodies lowered for every method reached by name from
/// the rules for the key's functions (with the hooks those names bring in).
#[salsa::tracked(returns(ref))]
fn rule_program(db: &dyn salsa::Database, key: RuleKey) -> RuleProgram {
    let index = key.program(db).index(db);
    let root = key.program(db).root(db);
    let mut program = index.program.clone();
    let subjects = key.subjects(db);
    let mut items = FxHashSet::default();
    let mut queue: Vec<Name> = hooks_of("").map(Name::from).collect();
    for rule in RULES.map(Name::from) {
        let methods = index.program.functions.get(&rule).map(|g| &g.methods);
        let origins = index.method_origin.get(&rule).into_iter().flatten();
        for (m, &(item, _)) in methods.into_iter().flatten().zip(origins) {
            if rule_subject(m).is_some_and(|s| subjects.contains(&s)) && items.insert(item) {
                item_names(resolved_in_root(db, root, item), &mut |n, _| {
                    queue.push(n.clone())
                });
            }
        }
    }
    let mut seen = FxHashSet::default();
    while let Some(name) = queue.pop() {
        if !seen.insert(name.clone()) {
            continue;
        }
        queue.extend(hooks_of(&name).map(Name::from));
        for n in [zy_ir::callable_name(&name), name] {
            let origins = index.method_origin.get(&n).map_or(&[][..], Vec::as_slice);
            if let Some(f) = program.functions.get_mut(&n) {
                for (slot, &(item, i)) in f.methods.iter_mut().zip(origins) {
                    if is_stub(&slot.body) {
                        if let Some((_, m)) = resolved_in_root(db, root, item).methods.get(i) {
                            slot.body = m.body.clone();
                        }
                    }
                }
            }
            let global = index.global_origin.get(&n);
            for &item in origins.iter().map(|(item, _)| item).chain(global) {
                if items.insert(item) {
                    item_names(resolved_in_root(db, root, item), &mut |n, _| {
                        queue.push(n.clone())
                    });
                }
            }
        }
    }
    let mut items: Vec<ItemId> = items.into_iter().collect();
    items.sort_by_key(|i| salsa::plumbing::AsId::as_id(i));
    RuleProgram(program, items)
}

/// The generic functions whose methods are in-source rules.
const RULES: [&str; 2] = ["rrule", "frule"];

/// The items of the program `key`: every item of its user files, and the prelude items that
/// define a name reached from them, from the [`crate::reach::HOOKS`] they trigger or from the
/// key's names, transitively; with the names reached as values on the way.
///
/// Values of a library struct are made only by code that names it as a value (its constructor,
/// or the type itself), and those of an abstract library type are its subtypes' (a library
/// struct reached as a value, or a struct of the program declared below it): so a name
/// reached only as a type brings in only its struct, and a library method is in only once
/// every struct and abstract type its signature names (not in a `Union`) has values; until
/// then it can never apply, and it is neither parsed nor lowered (its signature's names come
/// from the build-time index, [`crate::signature`]). The
/// functions all of whose methods wait are returned too: they stay in the program without
/// methods, so that a call of one is still a method error.
fn reached_items(db: &dyn salsa::Database, key: ProgramKey) -> Reached {
    let root = key.root(db);
    let mut reach = Reach {
        keyed: prelude_items(db, root),
        names: root_scope_names(db, root),
        modules: &stub_memo(db, root).modules,
        library_types: FxHashMap::default(),
        items: FxHashSet::default(),
        followed: FxHashSet::default(),
        waiting: FxHashMap::default(),
        parked: FxHashSet::default(),
        values: FxHashSet::default(),
        types: FxHashSet::default(),
        queue: Vec::new(),
        callable: String::new(),
    };
    for n in hooks_of("")
        .map(Name::from)
        .chain(key.reach(db).iter().cloned())
    {
        reach.queue.push((n, Mention::Value));
    }
    for l in root_files(db, root)
        .iter()
        .filter(|l| !is_prelude(db, l.file))
    {
        for &item in l.items(db) {
            reach.items.insert(item);
            let lowered = resolved_in_root(db, root, item);
            if makes_matrix(lowered) {
                reach.queue.push((MATRIX.into(), Mention::Value));
            }
            // A user method of a library function needs that function's other methods.
            item_names(lowered, &mut |n, m| {
                let m = if m == Mention::Defines {
                    Mention::Value
                } else {
                    m
                };
                // Code that declares or makes a matrix has the methods on matrices.
                if (matches!(m, Mention::Type | Mention::Supertype) && is_matrix_type(n))
                    || (m == Mention::Value && MATRIX_MAKERS.contains(&&**n))
                {
                    reach.queue.push((MATRIX.into(), Mention::Value));
                }
                reach.queue.push((n.clone(), m));
            });
        }
    }
    while let Some((name, mention)) = reach.queue.pop() {
        reach.visit(db, root, name, mention);
    }
    let waiting = reach
        .waiting
        .values()
        .flatten()
        .filter(|&&i| i.kind(db) == ItemKind::Function)
        .map(|&i| {
            reach
                .names
                .definition(&reach.modules.item_module(db, i.id), i.id.name(db))
        })
        .collect();
    Reached {
        items: reach.items,
        values: reach.values.into_iter().collect(),
        waiting,
    }
}

/// What [`reached_items`] finds.
struct Reached {
    /// The items in the program.
    items: FxHashSet<ItemId>,
    /// The names reached as values.
    values: BTreeSet<Name>,
    /// The functions with a method left out of the program.
    waiting: BTreeSet<Name>,
}

/// The state of [`reached_items`].
struct Reach<'db> {
    keyed: &'db FxHashMap<Name, Vec<LibraryItem>>,
    names: &'db ScopeNames,
    modules: &'db FileModules,
    /// What each name met as a guard or a supertype is in the library (see
    /// [`Reach::unmet_guard`]).
    library_types: FxHashMap<Name, LibraryType>,
    /// The prelude items in the program, and those whose names are followed.
    items: FxHashSet<ItemId>,
    followed: FxHashSet<ItemId>,
    /// Items waiting for a struct to be reached as a value: a struct in the program, a method
    /// not yet.
    waiting: FxHashMap<Name, Vec<LibraryItem>>,
    /// The items in `waiting`: following one again would find the same guard unmet (values
    /// are only added, and reaching a guard as a value takes its items out), so it is not
    /// looked at again until then.
    parked: FxHashSet<ItemId>,
    /// Names reached as values, and those reached only as types (hashed: every name met is
    /// looked up here).
    values: FxHashSet<Name>,
    types: FxHashSet<Name>,
    queue: Vec<(Name, Mention)>,
    /// The callable name of the name being visited (a buffer, not a new string per name).
    callable: String,
}

impl Reach<'_> {
    fn visit(&mut self, db: &dyn salsa::Database, root: SourceFile, name: Name, mention: Mention) {
        let keyed = self.keyed;
        let items: Vec<LibraryItem> = match mention {
            Mention::Defines => return,
            Mention::Supertype => {
                let as_value = self.library_type(db, &name) == LibraryType::Abstract;
                let mention = if as_value {
                    Mention::Value
                } else {
                    Mention::Type
                };
                return self.visit(db, root, name, mention);
            }
            Mention::Value => {
                if !self.values.insert(name.clone()) {
                    return;
                }
                for hook in hooks_of(&name) {
                    self.queue.push((hook.into(), Mention::Value));
                }
                for item in self.waiting.remove(&name).unwrap_or_default() {
                    self.parked.remove(&item.id);
                    self.follow(db, root, item);
                }
                // `zy_ir::callable_name`, written into a buffer kept across visits.
                self.callable.clear();
                self.callable.push_str("(::");
                self.callable.push_str(&name);
                self.callable.push(')');
                [&*name, self.callable.as_str()]
                    .into_iter()
                    .filter_map(|k| keyed.get(k))
                    .flatten()
                    .copied()
                    .collect()
            }
            Mention::Type => {
                if self.values.contains(&name) || !self.types.insert(name.clone()) {
                    return;
                }
                keyed
                    .get(&name)
                    .into_iter()
                    .flatten()
                    .copied()
                    .filter(|i| i.kind(db) == ItemKind::Struct)
                    .collect()
            }
        };
        for item in items {
            self.follow(db, root, item);
        }
    }

    /// Put `item` in the program and queue the names it mentions; or, while a struct its
    /// values need is not reached as a value, queue only the types it names, and leave a
    /// method out of the program.
    fn follow(&mut self, db: &dyn salsa::Database, root: SourceFile, library: LibraryItem) {
        let item = library.id;
        if self.followed.contains(&item) || self.parked.contains(&item) {
            return;
        }
        // A library item's signature names as the build script resolved them, where they are
        // resolved alike here; else as written, resolved here in the item's module.
        let built = self
            .names
            .library_as_built()
            .then(|| library.built_signature())
            .flatten();
        let module = built.is_none().then(|| self.modules.item_module(db, item));
        let sig = built.unwrap_or_else(|| library.signature(db));
        let Some(guard) = self.unmet_guard(db, library, &sig, module.as_deref()) else {
            self.items.insert(item);
            self.followed.insert(item);
            let queue = &mut self.queue;
            indexed_names(
                &indexed_in_root(db, root, item, library.method()),
                &mut |n, m| queue.push((n.clone(), m)),
            );
            return;
        };
        self.waiting.entry(guard).or_default().push(library);
        self.parked.insert(item);
        if library.kind(db) == ItemKind::Function {
            for &t in sig.types.iter() {
                let t = match &module {
                    None => t.into(),
                    Some(module) => self.names.resolve(module, t),
                };
                self.queue.push((t, Mention::Type));
            }
        } else if self.items.insert(item) {
            let queue = &mut self.queue;
            indexed_names(
                &indexed_in_root(db, root, item, library.method()),
                &mut |n, m| {
                    if matches!(m, Mention::Type | Mention::Supertype) {
                        queue.push((n.clone(), Mention::Type))
                    }
                },
            );
        }
    }

    /// A library type not yet reached as a value without which `item`'s code cannot run: a
    /// struct's own, or a struct or abstract type that its method's signature `sig` names
    /// outside a `Union` (its names resolved already, or as written in `module`).
    fn unmet_guard(
        &mut self,
        db: &dyn salsa::Database,
        item: LibraryItem,
        sig: &Signature,
        module: Option<&str>,
    ) -> Option<Name> {
        let kind = item.kind(db);
        let (guards, type_values): (&[&str], &[&str]) = match kind {
            ItemKind::Function => (&sig.guards, &sig.type_values),
            _ => (&[], &[]),
        };
        // The first guard without values, and whether a guard is a type only matrices have.
        let mut unmet = None;
        let mut on_matrix = false;
        let names = self.names;
        if kind == ItemKind::Struct {
            // An abstract type is in the program wherever it is named.
            let own = self.definition(db, item, module);
            on_matrix |= is_matrix_type(&own);
            if !self.values.contains(&own) && self.library_type(db, &own) == LibraryType::Struct {
                unmet = Some(own);
            }
        }
        for &g in guards {
            match module {
                None => self.check_guard(db, g, &mut unmet, &mut on_matrix),
                Some(module) => {
                    self.check_guard(db, &names.resolve(module, g), &mut unmet, &mut on_matrix)
                }
            }
        }
        // A method on matrices, or on arrays of three or more dimensions (every maker of
        // those is a maker of matrices), waits until the program can make one.
        let matrix = ((sig.high_rank || on_matrix) && !self.values.contains(MATRIX))
            .then(|| Name::from(MATRIX));
        // A library name taken as `::Type{F}` (`zeros(::Type{ComplexF64}, n)`) is passed only
        // by code that names it as a value.
        unmet.or(matrix).or_else(|| {
            type_values.iter().find_map(|&g| {
                let g = match module {
                    None => g.into(),
                    Some(module) => names.resolve(module, g),
                };
                (self.keyed.contains_key(&g) && !self.values.contains(&g)).then_some(g)
            })
        })
    }

    /// The qualified name `item` defines: the build script's where its names are as built
    /// (`module` is `None`), else resolved in `module`.
    fn definition(
        &self,
        db: &dyn salsa::Database,
        item: LibraryItem,
        module: Option<&str>,
    ) -> Name {
        match (module, item.built.and_then(|b| b.key)) {
            (None, Some(key)) => key.into(),
            (Some(module), _) => self.names.definition(module, item.id.name(db)),
            (None, None) => {
                let module = self.modules.item_module(db, item.id);
                self.names.definition(&module, item.id.name(db))
            }
        }
    }

    /// Note whether the guard `g` (resolved) is a type only matrices have, and make it the
    /// `unmet` guard if it is the first library type without values.
    fn check_guard(
        &mut self,
        db: &dyn salsa::Database,
        g: &str,
        unmet: &mut Option<Name>,
        on_matrix: &mut bool,
    ) {
        *on_matrix |= is_matrix_type(g);
        if unmet.is_none()
            && !self.values.contains(g)
            && self.library_type(db, g) != LibraryType::Other
        {
            *unmet = Some(g.into());
        }
    }

    /// What `name` is in the library.
    fn library_type(&mut self, db: &dyn salsa::Database, name: &str) -> LibraryType {
        if let Some(&known) = self.library_types.get(name) {
            return known;
        }
        let mut found = LibraryType::Other;
        for &i in self.keyed.get(name).into_iter().flatten() {
            if i.kind(db) == ItemKind::Struct {
                if i.signature(db).concrete {
                    found = LibraryType::Struct;
                    break;
                }
                found = LibraryType::Abstract;
            }
        }
        self.library_types.insert(name.into(), found);
        found
    }
}

/// What a name met as a guard is in the library: a struct's values are made only by code that
/// names it as a value; an abstract type's are those of the structs below it, each of which
/// makes it a value where the program has the struct whole ([`Mention::Supertype`]), so a
/// method taking either waits until then.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum LibraryType {
    Struct,
    Abstract,
    /// Not a library type, or one of the engine's (`Float64`, `Vector`): never waited on.
    Other,
}

/// Whether `name` (as resolved) is a type that only matrices have.
fn is_matrix_type(name: &str) -> bool {
    MATRIX_TYPES.contains(&name.strip_prefix("Base.").unwrap_or(name))
}

#[salsa::tracked(returns(ref))]
fn root_program(db: &dyn salsa::Database, key: ProgramKey) -> Arc<ProgramIndex> {
    let root = key.root(db);
    if let Some(own) = key.own(db) {
        // What a program reaches follows from its root and names alone ([`reached_items`]):
        // a call's own functions are added to the program without them, whose index every
        // call with the same names shares (a test's text, one per test, has closures).
        let without = ProgramKey::new(db, root, key.reach(db).clone(), None, key.known(db));
        let mut index = (**root_program(db, without)).clone();
        add_own(&mut index.program, own.program(db));
        return Arc::new(index);
    }
    // Code of the prelude itself (hover in a prelude file) sees all of it.
    let reached = (!is_prelude(db, root)).then(|| reached_items(db, key));
    let mut index = ProgramIndex::default();
    for l in root_files(db, root) {
        // The file's build-time entries, read once for all its items.
        let built = bundled(db, l.file);
        for (at, &item) in l.items(db).iter().enumerate() {
            if reached.as_ref().is_some_and(|r| !r.items.contains(&item)) {
                continue;
            }
            let method = built.and_then(|b| b.get(at)?.method.as_ref());
            let lowered = match (method, key.known(db)) {
                (None, Some(_)) => resolved_in_program(db, key, item).clone(),
                _ => indexed_in_root(db, root, item, method).item,
            };
            for (i, (name, _)) in lowered.methods.iter().enumerate() {
                index
                    .method_origin
                    .entry(name.clone())
                    .or_default()
                    .push((item, i));
            }
            for g in &lowered.globals {
                index.global_origin.insert(g.name.clone(), item);
            }
            let mut part = (*lowered).clone();
            part.errors.clear(); // reported per item
            part.add_to(&mut index.program, &mut index.errors);
        }
    }
    let names = root_scope_names(db, root);
    index.program.refused = names.refused().clone();
    index.program.refused_beside = names.refused_beside().clone();
    index.program.unknown_packages = names.unknown_packages();
    index.reached = match reached {
        Some(r) => {
            for name in r.waiting {
                index
                    .program
                    .functions
                    .entry(name.clone())
                    .or_insert_with(|| GenericFunction {
                        name,
                        methods: Vec::new(),
                    });
            }
            r.values
        }
        None => prelude_items(db, root).keys().cloned().collect(),
    };
    Arc::new(index)
}

/// Does `t` name a function or struct that `hit` holds?
fn names_any(t: &Type, hit: &impl Fn(&Name) -> bool) -> bool {
    let any = |ts: &[Type]| ts.iter().any(|t| names_any(t, hit));
    match t {
        Type::Struct(s) => {
            hit(&s.name) || any(&s.params) || s.fields.iter().any(|(_, t)| names_any(t, hit))
        }
        Type::Union(u) => hit(&u.name) || any(&u.members),
        Type::Recur(n, ps) => hit(n) || any(ps),
        Type::Function(n) => hit(n),
        Type::Tuple(ts) | Type::Pullback(ts) => any(ts),
        Type::NamedTuple(fs) => fs.iter().any(|(_, t)| names_any(t, hit)),
        Type::Ref(t) | Type::Array(t, _) | Type::Adjoint(t) | Type::Stack(t) => names_any(t, hit),
        _ => false,
    }
}

/// Add a call's own functions, structs and aliases (see [`ProgramKey::own`]) to `program`.
fn add_own(program: &mut Program, own: &Program) {
    for (name, f) in &own.functions {
        for m in &f.methods {
            program.add_method(name.clone(), m.clone());
        }
    }
    program
        .structs
        .extend(own.structs.iter().map(|(n, s)| (n.clone(), s.clone())));
    program
        .aliases
        .extend(own.aliases.iter().map(|(n, s)| (n.clone(), s.clone())));
}

impl ProgramIndex {
    /// The body of method `method` of `name`, lowered from its item in the program `key`
    /// (a library method's too, which the index holds by its signature).
    pub fn method_body<'db>(
        &self,
        db: &'db dyn salsa::Database,
        key: ProgramKey,
        name: &Name,
        method: u32,
    ) -> Option<&'db Arc<Function>> {
        let &(item, i) = self.method_origin.get(name)?.get(method as usize)?;
        let lowered = match key.known(db) {
            None => resolved_in_root(db, key.root(db), item),
            Some(_) => resolved_in_program(db, key, item),
        };
        lowered.methods.get(i).map(|(_, m)| &m.body)
    }

    /// The item the body of method `method` of `name` (or of the binding `name`, for
    /// [`zy_infer::GLOBAL_METHOD`]) was lowered from.
    pub fn origin(&self, name: &Name, method: u32) -> Option<ItemId> {
        if method == zy_infer::GLOBAL_METHOD {
            self.global_origin.get(name).copied()
        } else {
            self.method_origin
                .get(name)?
                .get(method as usize)
                .map(|&(item, _)| item)
        }
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use salsa::Setter;

    use super::*;
    use crate::input::Workspace;
    use crate::item::item_tree;
    use crate::RootDatabase;

    fn program(text: &str) -> (RootDatabase, SourceFile) {
        let mut db = RootDatabase::default();
        let file = SourceFile::new(&db, PathBuf::from("t.jl"), text.to_string());
        Workspace::get(&db).set_files(&mut db).to(vec![file]);
        (db, file)
    }

    /// The library's items are read as the build script resolved them while the program's
    /// files leave the library's names as they are: a method of a library function and a
    /// function named like a library helper do, a new name in a library module does not.
    #[test]
    fn library_resolved_at_build_time_while_the_files_add_no_library_name() {
        for (text, as_built) in [
            ("f(x) = sum(x)\n", true),
            ("Base.sum(x::Bool) = 1.0\n", true),
            ("import Base: sum\nsum(x::Bool) = 1.0\n", true),
            ("_prod_tail(x) = 1\nBase.length(x::Bool) = 2\n", true),
            ("Base.zy_new_name(x) = 1\n", false),
            ("import Base: zy_new_name\nzy_new_name(x) = 1\n", false),
            ("module Base\nzy_inner(x) = 1\nend\n", false),
        ] {
            let (db, file) = program(text);
            let names = root_scope_names(&db, scope_root(&db, file));
            assert_eq!(names.library_as_built(), as_built, "{text}");
        }
    }

    /// The library's items are keyed by the names the build script resolved exactly where
    /// they are the names resolved in the program's scope: for programs that leave the
    /// library's names as they are, and for the prelude's own files.
    #[test]
    fn library_items_keyed_as_built_are_keyed_as_resolved() {
        let (mut db, file) = program("f(x) = sum(x)\n");
        let base = crate::input::Prelude::get(&db).files(&db)[0];
        for text in [
            "f(x) = sum(x)\n",
            "Base.sum(x::Bool) = 1.0\nrrule(::typeof(f), x) = (f(x), y -> (nothing, y))\n",
            "import Base: sum\nsum(x::Bool) = 1.0\n_prod_tail(x) = 1\n",
            "using LinearAlgebra\nstruct P end\n(p::P)(x) = norm(x)\n",
        ] {
            file.set_text(&mut db).to(text.to_string());
            for root in [scope_root(&db, file), base] {
                assert!(root_scope_names(&db, root).library_as_built(), "{text}");
                let keyed = prelude_items(&db, root);
                assert!(keyed.contains_key("Base.sum") && keyed.contains_key("LinearAlgebra.norm"));
                assert!(*keyed == listed_prelude_items(&db, root), "{text}");
            }
        }
    }

    /// A struct in the program brings in its declared supertype, a library abstract type that
    /// no code names: the library's `IOBuffer <: IO` and a program's `Sink <: IO`, whether the
    /// library's items are read as built or resolved in the program's scope.
    #[test]
    fn a_struct_brings_in_its_library_supertype() {
        let buffer = "f() = String(take!(IOBuffer()))\n";
        let sink = "struct Sink <: IO\n    n::Int\nend\nf() = Sink(1).n\n";
        for text in [buffer, sink] {
            for (extra, as_built) in [("", true), ("Base.zy_new_name(x) = 1\n", false)] {
                let text = format!("{extra}{text}");
                let (db, file) = program(&text);
                let key = ProgramKey::of(&db, file);
                let root = key.root(&db);
                assert_eq!(root_scope_names(&db, root).library_as_built(), as_built);
                let structs = &key.index(&db).program.structs;
                assert!(structs.contains_key("Base.IO"), "{text}");
            }
        }
    }

    /// The library's structs are marked as the library's, whether its items are read as built
    /// or resolved in the program's scope; the program's own are not.
    #[test]
    fn the_librarys_structs_are_marked_as_its_own() {
        let text = "struct Sink <: IO\n    n::Int\nend\nf() = Sink(1).n\n";
        for extra in ["", "Base.zy_new_name(x) = 1\n"] {
            let (db, file) = program(&format!("{extra}{text}"));
            let structs = &ProgramKey::of(&db, file).index(&db).program.structs;
            let library = |n: &str| structs.get(n).map(|s| s.library);
            assert_eq!(
                (library("Base.IO"), library("Sink")),
                (Some(true), Some(false)),
                "{extra}"
            );
        }
    }

    /// The calls of `body`, by callee.
    fn calls(body: &Function) -> impl Iterator<Item = &Name> {
        body.values.iter().filter_map(|v| match &v.kind {
            zy_ir::ValueKind::Stmt(s) => match &s.op {
                zy_ir::Op::Call(n) => Some(n),
                _ => None,
            },
            zy_ir::ValueKind::Param { .. } => None,
        })
    }

    /// A program that adds a name to a library module has the library's items resolved in
    /// its own scope: a library body's call of a name that Base does not define (a builtin's)
    /// becomes a call of the program's new `Base` function.
    #[test]
    fn a_name_added_to_base_is_what_library_bodies_call() {
        let (mut db, file) = program("f(x) = x\n");
        let base = crate::input::Prelude::get(&db).files(&db)[0];
        let plain = |n: &Name| !n.is_empty() && n.chars().all(|c| c.is_ascii_lowercase());
        let found = item_tree(&db, base).iter().find_map(|&item| {
            LibraryItem::of(&db, item)
                .method()
                .is_none()
                .then_some(())?;
            let lowered = resolved_in_root(&db, file, item);
            let name = lowered
                .methods
                .iter()
                .find_map(|(_, m)| calls(&m.body).find(|n| plain(n)).cloned())?;
            Some((item, name))
        });
        let Some((item, name)) = found else {
            panic!("no library item read whole calls a builtin")
        };
        file.set_text(&mut db)
            .to(format!("struct P end\nBase.{name}(x::P) = 1\nf(x) = x\n"));
        let root = scope_root(&db, file);
        assert!(!root_scope_names(&db, root).library_as_built());
        let lowered = resolved_in_root(&db, root, item);
        let qualified = format!("Base.{name}");
        assert!(
            lowered
                .methods
                .iter()
                .any(|(_, m)| calls(&m.body).any(|n| **n == *qualified)),
            "{name}: {lowered:?}"
        );
    }
}
