//! Which arguments the program's functions may change in place, for the top-level statements
//! zy skips: a statement that passes a binding to a call changes it only if the callee may
//! change that argument. A method may change a parameter it writes into (`x[i] = v`,
//! `x.f = v`, `x .= v`, `x .+= v`), or passes, or something that may share its object
//! (`y = x`, `view(x, :, 1)`, `x.W`, a loop variable over `x`), to a call that may change that
//! argument: a method of the program (known from the same analysis, iterated over the call
//! graph to a fixpoint, so recursion is covered), a call method of any of the program's
//! structs (a parameter called, `m(x)`), a library function by Julia's convention (one named
//! with `!`, save a plotting package's figure functions, or one of Random's draws; the others
//! leave their arguments alone), or something unknown (a refused definition, a value called
//! whose function may change its arguments, an unsupported construct), which may change every
//! argument. A call that is passed a function
//! that may change its arguments (`map(update!, xs)`, a closure that writes into its
//! parameter) may change every argument too. Writes into top-level bindings count as well.
//!
//! Every value a call returns may share an object with any of its arguments; only arithmetic
//! (`x + y`, `2x`, `x .* y`, of the library) and literals are new objects. So the analysis
//! errs towards "may change": a binding wrongly taken as changed makes zy refuse a function
//! (with the statement's location), while one wrongly taken as unchanged would be a silently
//! different value.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use rustc_hash::FxHashMap;
use zy_ir::Name;
use zy_syntax::ast::{
    ArgPlace, Expr, ExprKind as E, FunctionDef, FunctionName, GlobalDef, KeywordArg, UnOp,
};

use crate::binding::{dotted_name, immutable_value};
use crate::scope::ScopeNames;

/// Random's functions that advance a generator passed to them although their names have no
/// `!` (`rand(rng)`): the exception to Julia's convention.
const RNG_DRAWS: &[&str] = &[
    "rand",
    "randn",
    "randexp",
    "randperm",
    "randcycle",
    "randsubseq",
    "shuffle",
    "bitrand",
    "randstring",
];

/// Plotting packages' functions named with `!` (Plots, Makie): they change a figure (the current
/// one, or a plot or axis passed first, which zy never holds), never the data passed to them.
const FIGURE_CHANGES: &[&str] = &[
    "plot!",
    "scatter!",
    "histogram!",
    "bar!",
    "heatmap!",
    "contour!",
    "contourf!",
    "surface!",
    "wireframe!",
    "quiver!",
    "annotate!",
    "hline!",
    "vline!",
    "hspan!",
    "vspan!",
    "xlabel!",
    "ylabel!",
    "zlabel!",
    "title!",
    "xlims!",
    "ylims!",
    "zlims!",
    "xticks!",
    "yticks!",
    "lines!",
    "scatterlines!",
    "barplot!",
    "hist!",
    "band!",
    "errorbars!",
    "stairs!",
    "stem!",
    "text!",
    "hlines!",
    "vlines!",
    "ablines!",
];

/// Library functions named with `!` that change only their first argument (the others may
/// change any: `lmul!(A, B)` changes `B`, `rand!(rng, A)` both, `map!(f, dest, xs)` `dest`).
const CHANGE_FIRST: &[&str] = &[
    "push!",
    "pushfirst!",
    "append!",
    "prepend!",
    "insert!",
    "pop!",
    "popfirst!",
    "deleteat!",
    "empty!",
    "resize!",
    "setindex!",
    "setproperty!",
    "fill!",
    "copyto!",
    "copy!",
    "mul!",
    "sort!",
    "reverse!",
    "sum!",
    "prod!",
    "cumsum!",
    "normalize!",
];

/// Library functions whose value is a new object holding its arguments' elements (a shallow
/// copy: `copy(xs)[1] .= 0` changes `xs[1]`).
const COPIES: &[&str] = &["copy", "collect", "Array", "Vector", "Matrix"];

/// Library functions whose value shares nothing with their arguments.
const NEW_VALUES: &[&str] = &["deepcopy", "zeros", "ones", "similar", "length", "size"];

/// What one method may change: which of its parameters (a call method's object first), and
/// which top-level bindings.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct MethodEffect {
    /// Per positional parameter.
    positional: Vec<bool>,
    /// Its last positional parameter is `xs...`.
    varargs: bool,
    /// Per keyword parameter, by name.
    keywords: BTreeMap<String, bool>,
    /// `kw...` (the other keywords) may be changed.
    keyword_rest: bool,
    /// Anything passed, and any top-level binding, may be changed (the body holds something
    /// zy cannot see through).
    all: bool,
    /// Top-level bindings (qualified) it may change.
    globals: BTreeSet<Name>,
}

impl MethodEffect {
    /// May an argument passed at `place` be changed?
    fn changes(&self, place: &ArgPlace) -> bool {
        let n = self.positional.len();
        let positional = |i: usize| match (i < n, self.varargs) {
            (true, _) => self.positional[i],
            (false, true) => n > 0 && self.positional[n - 1],
            (false, false) => false,
        };
        self.all
            || match place {
                ArgPlace::Positional(i) => positional(*i),
                ArgPlace::From(i) => (*i..n.max(*i + 1)).any(positional),
                ArgPlace::Keyword(k) => self.keywords.get(k).copied().unwrap_or(self.keyword_rest),
                ArgPlace::AnyKeyword => self.keyword_rest || self.keywords.values().any(|&c| c),
            }
    }

    /// Does it change any argument?
    fn changes_any(&self) -> bool {
        self.all
            || !self.globals.is_empty()
            || self.keyword_rest
            || self.positional.iter().any(|&c| c)
            || self.keywords.values().any(|&c| c)
    }
}

/// The effects of every method of a program's files (the prelude's are the library's).
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct Effects {
    /// The methods of each generic function, by qualified name.
    functions: BTreeMap<Name, Vec<MethodEffect>>,
    /// Every call method of a struct (`(m::Model)(x)`), the object first.
    callables: Vec<MethodEffect>,
    /// Top-level bindings whose value may hold a function that changes its arguments.
    holding_changers: BTreeSet<Name>,
    /// Each top-level binding with the others whose objects its value may be or hold
    /// (`Y = X`, `V = view(X, :, 1)`, `m = Dense(W, b)`; not `Z = copy(X)` of numbers).
    shares: BTreeMap<Name, BTreeSet<Name>>,
    /// Top-level bindings that are arrays of numbers (`[1.0, 2.0]`, `zeros(3)`, `randn(3, 2)`):
    /// their elements are no objects another value could hold.
    number_arrays: BTreeSet<Name>,
}

/// How a call reaches what it calls.
enum Callee {
    /// A generic function of the program, by qualified name, with its name as written (a
    /// library function's methods by Julia's convention).
    Program(Name, String),
    /// A value (a struct called through its call methods, or a function passed in).
    Value(Set),
    /// A library function, by its name as written.
    Library(String),
    /// A struct's default constructor: it changes nothing.
    Constructor,
    /// Something that may change every argument (and itself).
    Unknown(Set),
}

/// The effects of a call on its arguments, each at its place.
impl Effects {
    /// May a call of `callee` change the argument at `place`? `None` for a name that is no
    /// function of the program.
    pub fn function_changes(&self, callee: &Name, place: &ArgPlace) -> Option<bool> {
        let methods = self.functions.get(callee)?;
        Some(methods.iter().any(|m| m.changes(place)))
    }

    /// Is `callee` a generic function with methods in the program?
    pub fn is_function(&self, callee: &Name) -> bool {
        self.functions.contains_key(callee)
    }

    /// May a call of the program's `callee` change anything (a method it cannot see through)?
    pub fn changes_everything(&self, callee: &Name) -> bool {
        self.functions
            .get(callee)
            .is_some_and(|ms| ms.iter().any(|m| m.all))
    }

    /// The top-level bindings a call of the program's `callee` may change.
    pub fn function_globals(&self, callee: &Name) -> BTreeSet<Name> {
        self.functions
            .get(callee)
            .into_iter()
            .flatten()
            .flat_map(|m| m.globals.iter().cloned())
            .collect()
    }

    /// May calling a struct value change the argument at `place` (the object itself at 0)?
    pub fn callable_changes(&self, place: &ArgPlace) -> bool {
        self.callables.iter().any(|m| m.changes(place))
    }

    /// May a call of some struct value change anything (a call method zy cannot see through)?
    pub fn callables_change_everything(&self) -> bool {
        self.callables.iter().any(|m| m.all)
    }

    /// The top-level bindings a call of some struct value may change.
    pub fn callable_globals(&self) -> BTreeSet<Name> {
        self.callables
            .iter()
            .flat_map(|m| m.globals.iter().cloned())
            .collect()
    }

    /// Is the function `qualified` (written `written`) one that may change its arguments: the
    /// program's, named with `!`, or one of Random's draws?
    pub fn is_changer(&self, qualified: &Name, written: &str) -> bool {
        library_changes_any(written)
            || self
                .functions
                .get(qualified)
                .is_some_and(|ms| ms.iter().any(MethodEffect::changes_any))
    }

    /// The top-level bindings whose objects the value of the binding `qualified` may be or
    /// hold.
    pub fn shares(&self, qualified: &Name) -> impl Iterator<Item = &Name> {
        self.shares.get(qualified).into_iter().flatten()
    }

    /// May the top-level binding `qualified` hold a function that changes its arguments?
    pub fn holds_changer(&self, qualified: &Name) -> bool {
        self.holding_changers.contains(qualified)
    }
}

/// Does the library function written `name` change some argument by Julia's convention?
fn library_changes_any(name: &str) -> bool {
    let bare = name.rsplit('.').next().unwrap_or_default();
    (bare.ends_with('!') && !FIGURE_CHANGES.contains(&bare)) || RNG_DRAWS.contains(&bare)
}

/// Library functions that write to the stream given first (`print(io, x)`, `@printf(io,
/// ...)`): a binding passed there with more arguments may be an `IOBuffer` they change (with
/// none, `println(x)` prints `x` to `stdout`).
const STREAM_WRITES: &[&str] = &["print", "println", "write", "show", "join"];

/// Library functions that read the stream given first (`readline(io)`), moving its position.
const STREAM_READS: &[&str] = &["readline", "readlines", "read", "eachline", "seekstart"];

/// May the library function written `name` change its argument at `place`, of a call with
/// `args` arguments and keywords?
pub fn library_changes(name: &str, place: &ArgPlace, args: &[&ArgPlace]) -> bool {
    let bare = name.rsplit('.').next().unwrap_or_default();
    let positional = args
        .iter()
        .filter(|p| !matches!(p, ArgPlace::Keyword(_) | ArgPlace::AnyKeyword));
    let stream = *place == ArgPlace::Positional(0)
        && (STREAM_READS.contains(&bare)
            || (STREAM_WRITES.contains(&bare) && positional.count() > 1));
    stream
        || (library_changes_any(name)
            && (!CHANGE_FIRST.contains(&bare) || *place == ArgPlace::Positional(0)))
}

/// A method of the program: the module its code is in, the generic function it is a method
/// of (`None` for a struct's call method), and its definition.
pub struct Method {
    pub module: Name,
    pub generic: Option<Name>,
    pub def: Arc<zy_syntax::ast::Item>,
}

/// A top-level binding of the program: its module, qualified name and definition.
pub struct Binding {
    pub module: Name,
    pub qualified: Name,
    pub def: Arc<zy_syntax::ast::Item>,
}

/// Rounds of the fixpoint before every method is taken to change everything (each round that
/// does not settle adds at least one change, so this is only reached by huge programs).
const MAX_ROUNDS: usize = 64;

/// The effects of `methods` and of the values of `bindings`, iterated to a fixpoint.
pub fn effects(names: &ScopeNames, methods: &[Method], bindings: &[Binding]) -> Effects {
    let mut effects = Effects::default();
    for m in methods {
        if let Some(g) = &m.generic {
            effects.functions.entry(g.clone()).or_default();
        }
    }
    for round in 0.. {
        let mut next = Effects {
            functions: effects
                .functions
                .keys()
                .map(|k| (k.clone(), Vec::new()))
                .collect(),
            ..Effects::default()
        };
        for m in methods {
            let zy_syntax::ast::Item::Function(def) = &*m.def else {
                continue;
            };
            let mut effect = Body::new(names, &effects, &m.module).method(def);
            if round >= MAX_ROUNDS {
                effect.all = true;
            }
            match &m.generic {
                Some(g) => next.functions.entry(g.clone()).or_default().push(effect),
                None => next.callables.push(effect),
            }
        }
        for b in bindings {
            let zy_syntax::ast::Item::Global(GlobalDef { value, .. }) = &*b.def else {
                continue;
            };
            if number_array(value) {
                next.number_arrays.insert(b.qualified.clone());
            }
            let mut body = Body::new(names, &effects, &b.module);
            let v = body.eval(value);
            if v.changer || round >= MAX_ROUNDS {
                next.holding_changers.insert(b.qualified.clone());
            }
            let shared = v.globals.union(&v.held_globals);
            next.shares.insert(
                b.qualified.clone(),
                shared.filter(|g| **g != b.qualified).cloned().collect(),
            );
        }
        if next == effects || round >= MAX_ROUNDS {
            return next;
        }
        effects = next;
    }
    effects
}

/// What a value may be: objects of the method's parameters (by index) or of top-level
/// bindings, what its elements or fields may be (`held`: `x .= v` copies `v`'s elements into
/// `x` without making `x` be `v`), and whether it may be (or hold) a function that changes
/// its arguments or a parameter of a closure being analysed.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
struct Set {
    params: BTreeSet<usize>,
    globals: BTreeSet<Name>,
    held_params: BTreeSet<usize>,
    held_globals: BTreeSet<Name>,
    changer: bool,
    closure_param: bool,
}

impl Set {
    /// The object of a parameter or binding: it holds its own parts.
    fn root(param: Option<usize>, global: Option<Name>) -> Set {
        Set {
            params: param.into_iter().collect(),
            held_params: param.into_iter().collect(),
            globals: global.iter().cloned().collect(),
            held_globals: global.into_iter().collect(),
            ..Set::default()
        }
    }

    fn union(&mut self, other: &Set) {
        self.params.extend(other.params.iter().copied());
        self.globals.extend(other.globals.iter().cloned());
        self.held_params.extend(other.held_params.iter().copied());
        self.held_globals.extend(other.held_globals.iter().cloned());
        self.changer |= other.changer;
        self.closure_param |= other.closure_param;
    }

    /// Anything reachable from the value, as a value (an element read, `x[i]`, or what a
    /// call returns).
    fn whole(&self) -> Set {
        let params: BTreeSet<usize> = self.params.union(&self.held_params).copied().collect();
        let globals: BTreeSet<Name> = self.globals.union(&self.held_globals).cloned().collect();
        Set {
            held_params: params.clone(),
            held_globals: globals.clone(),
            params,
            globals,
            ..self.clone()
        }
    }

    /// The value's elements, as what another value holds (`x .= v`).
    fn elements(&self) -> Set {
        Set {
            held_params: self.held_params.clone(),
            held_globals: self.held_globals.clone(),
            changer: self.changer,
            closure_param: self.closure_param,
            ..Set::default()
        }
    }
}

/// The analysis of one body, flow-insensitive: every local holds the union of what is ever
/// assigned to it, and the body is walked until that stops growing.
struct Body<'a> {
    names: &'a ScopeNames,
    effects: &'a Effects,
    module: &'a str,
    vars: FxHashMap<String, Set>,
    changed: Set,
    all: bool,
    grew: bool,
    /// Whether the closure being walked changes one of its parameters.
    closure_changes: bool,
    /// Whether the closure being walked changes something of the enclosing method's or a
    /// top-level binding (calling it does).
    closure_writes: bool,
    /// What the identifiers read so far refer to (a closure's captures), when collected.
    reads: Option<Set>,
}

impl<'a> Body<'a> {
    fn new(names: &'a ScopeNames, effects: &'a Effects, module: &'a str) -> Body<'a> {
        Body {
            names,
            effects,
            module,
            vars: FxHashMap::default(),
            changed: Set::default(),
            all: false,
            grew: false,
            closure_changes: false,
            closure_writes: false,
            reads: None,
        }
    }

    /// The effect of the method `def`.
    fn method(mut self, def: &FunctionDef) -> MethodEffect {
        let mut params: Vec<Option<&str>> = Vec::new();
        if let FunctionName::Callable { self_name, .. } = &def.name {
            params.push(self_name.as_deref());
        }
        params.extend(def.params.iter().map(|p| p.name.as_deref()));
        let positional = params.len();
        params.extend(def.keywords.iter().map(|k| Some(k.name.as_str())));
        params.push(def.keyword_rest.as_deref());
        for (i, p) in params.iter().enumerate() {
            if let Some(p) = p {
                self.bind(p, &Set::root(Some(i), None));
            }
        }
        loop {
            self.grew = false;
            for p in &def.params {
                if let (Some(name), Some(d)) = (&p.name, &p.default) {
                    let v = self.eval(d);
                    self.bind(name, &v);
                }
            }
            for k in &def.keywords {
                if let Some(d) = &k.default {
                    let v = self.eval(d);
                    self.bind(&k.name, &v);
                }
            }
            self.block(&def.body);
            if !self.grew {
                break;
            }
        }
        let changed = |i: usize| self.changed.params.contains(&i);
        MethodEffect {
            positional: (0..positional).map(changed).collect(),
            varargs: def.params.last().is_some_and(|p| p.varargs),
            keywords: def
                .keywords
                .iter()
                .enumerate()
                .map(|(j, k)| (k.name.clone(), changed(positional + j)))
                .collect(),
            keyword_rest: changed(params.len() - 1),
            all: self.all,
            globals: self.changed.globals.clone(),
        }
    }

    /// The local `name` may hold what `value` shares.
    fn bind(&mut self, name: &str, value: &Set) {
        let var = self.vars.entry(name.to_string()).or_default();
        let before = var.clone();
        var.union(value);
        if *var != before {
            self.grew = true;
        }
    }

    /// The object of `value` may be changed.
    fn change(&mut self, value: &Set) {
        self.closure_writes |= !(value.params.is_empty() && value.globals.is_empty());
        let before = self.changed.clone();
        self.changed.params.extend(value.params.iter().copied());
        self.changed.globals.extend(value.globals.iter().cloned());
        if self.changed != before {
            self.grew = true;
        }
        self.closure_changes |= value.closure_param;
    }

    fn block(&mut self, body: &[Expr]) -> Set {
        let mut last = Set::default();
        for e in body {
            last = self.eval(e);
        }
        last
    }

    /// What the value of `e` may share, recording what evaluating it may change.
    fn eval(&mut self, e: &Expr) -> Set {
        match &e.kind {
            E::Float(_) | E::Int(_) | E::Bool(_) | E::Nothing | E::Str(_) | E::Symbol(_) => {
                Set::default()
            }
            E::Break | E::Continue | E::Local(_) | E::IndexEnd | E::IndexBegin | E::Colon => {
                Set::default()
            }
            // A function declaring `global x` may rebind `x`: taken as changing it.
            E::Global(names) => {
                let rebound = Set {
                    globals: names.iter().map(|n| Name::from(n.as_str())).collect(),
                    ..Set::default()
                };
                self.change(&rebound);
                Set::default()
            }
            E::Ident(n) => self.ident(n),
            E::Block(body) => self.block(body),
            // A new object holding its parts: `push!(v, x)` of `v = [a, b]` changes neither.
            E::Tuple(parts) | E::Vect(parts) => self.union_of(parts).whole().elements(),
            E::NamedTuple(fields) => {
                let mut out = Set::default();
                for (_, v) in fields {
                    let s = self.eval(v);
                    out.union(&s);
                }
                out.whole()
            }
            E::Matrix(rows) => {
                let mut out = Set::default();
                for row in rows {
                    let s = self.union_of(row);
                    out.union(&s);
                }
                out
            }
            E::Call { callee, args } | E::DotCall { callee, args } => self.call(callee, args, &[]),
            E::KwCall {
                callee,
                args,
                keywords,
            } => self.call(callee, args, keywords),
            E::Binary { op, lhs, rhs, .. } => self.operator(op.as_str(), &[lhs, rhs]),
            E::Fold { first, rest, .. } | E::Chain { first, rest } => {
                let mut out = self.eval(first);
                for (op, e) in rest {
                    let s = self.eval(e);
                    if self.program_function(op.as_str()).is_some() {
                        self.apply_program(op.as_str(), &[out.clone(), s.clone()]);
                        out.union(&s);
                        out = out.whole();
                    } else {
                        out = Set::default();
                    }
                }
                out
            }
            E::Unary { op, arg } => {
                let name = match op {
                    UnOp::Neg => "-",
                    UnOp::Plus => "+",
                    UnOp::Not => "!",
                    UnOp::Adjoint => "adjoint",
                };
                let s = self.operator(name, &[arg]);
                match op {
                    // `+x` is `x`, `x'` a view of it.
                    UnOp::Plus | UnOp::Adjoint => {
                        let mut s = s;
                        let a = self.eval(arg);
                        s.union(&a);
                        s
                    }
                    _ => s,
                }
            }
            E::And(a, b) | E::Or(a, b) => {
                let mut s = self.eval(a);
                let t = self.eval(b);
                s.union(&t);
                s
            }
            E::Ternary { cond, then, els } => {
                self.eval(cond);
                let mut s = self.eval(then);
                let t = self.eval(els);
                s.union(&t);
                s
            }
            E::Index { base, indices } => {
                self.union_of(indices);
                self.eval(base).whole()
            }
            E::Field { base, .. } => self.eval(base).whole(),
            E::Range { start, step, stop } => {
                self.eval(start);
                if let Some(s) = step {
                    self.eval(s);
                }
                self.eval(stop);
                Set::default()
            }
            E::Assign { lhs, rhs } => {
                let v = self.eval(rhs);
                self.assign(lhs, &v);
                v
            }
            E::Declared { var, .. } => self.eval(var),
            E::CompoundAssign {
                op,
                dotted,
                lhs,
                rhs,
            } => {
                let v = self.operator(op.as_str(), &[lhs, rhs]);
                if *dotted {
                    self.write_into(lhs, &v.elements());
                } else if !rebinds(lhs) {
                    self.write_into(lhs, &v);
                } else {
                    self.assign(lhs, &v);
                }
                v
            }
            E::DotAssign { lhs, rhs } => {
                let v = self.eval(rhs);
                self.write_into(lhs, &v.elements());
                self.eval(lhs)
            }
            E::Views(inner) => self.eval(inner),
            E::If { branches, els } => {
                let mut out = Set::default();
                for (cond, body) in branches {
                    self.eval(cond);
                    let s = self.block(body);
                    out.union(&s);
                }
                if let Some(body) = els {
                    let s = self.block(body);
                    out.union(&s);
                }
                out
            }
            E::While { cond, body } => {
                self.eval(cond);
                self.block(body);
                Set::default()
            }
            E::For {
                var, iter, body, ..
            } => {
                let elements = self.eval(iter).whole();
                self.assign(var, &elements);
                self.block(body);
                Set::default()
            }
            E::Let { var, value, body } => {
                if let (Some(var), Some(value)) = (var, value) {
                    let v = self.eval(value);
                    self.assign(var, &v);
                }
                self.block(body)
            }
            E::Try {
                body,
                catch,
                els,
                finally,
                ..
            } => {
                let mut out = self.block(body);
                for b in [catch, els, finally].into_iter().flatten() {
                    let s = self.block(b);
                    out.union(&s);
                }
                out
            }
            E::Narrow { value, body, .. } => {
                self.eval(value);
                self.block(body)
            }
            E::Checkpoint { looped, .. } => self.eval(looped),
            E::Return(value) => {
                if let Some(v) = value {
                    self.eval(v);
                }
                Set::default()
            }
            E::Function(def) => {
                let s = self.closure(def);
                if let FunctionName::Named(n) = &def.name {
                    self.bind(n, &s);
                }
                s
            }
            E::Splat(inner) => self.eval(inner),
            E::Error => {
                self.all = true;
                Set::default()
            }
        }
    }

    fn union_of(&mut self, parts: &[Expr]) -> Set {
        let mut out = Set::default();
        for p in parts {
            let s = self.eval(p);
            out.union(&s);
        }
        out
    }

    /// A name read: a local, a top-level binding, or a function (which may change arguments).
    fn ident(&mut self, n: &str) -> Set {
        let s = match self.vars.get(n) {
            Some(s) => s.clone(),
            None => {
                let q = self.names.resolve(self.module, n);
                let mut s = Set::default();
                if self.names.is_binding_name(&q) {
                    s = Set::root(None, Some(q.clone()));
                    if self.effects.number_arrays.contains(&q) {
                        s.held_globals.clear();
                    }
                    s.changer = self.effects.holds_changer(&q);
                } else {
                    s.changer = self.effects.is_changer(&q, n) || self.names.is_refused(&q);
                }
                s
            }
        };
        if let Some(reads) = &mut self.reads {
            reads.union(&s);
        }
        s
    }

    /// `lhs = value`: names rebound, or an object written into.
    fn assign(&mut self, lhs: &Expr, value: &Set) {
        match &lhs.kind {
            E::Ident(n) => self.bind(n, value),
            E::Declared { var, .. } => self.assign(var, value),
            E::Tuple(parts) => {
                for p in parts {
                    self.assign(p, value);
                }
            }
            _ => self.write_into(lhs, value),
        }
    }

    /// A write into the object `target` names (`x[i] = v`, `x.f = v`, `x .= v`): the object
    /// may be changed, and it may now hold `value` (what `v` holds, for `x .= v`).
    fn write_into(&mut self, target: &Expr, value: &Set) {
        let object = match &target.kind {
            E::Index { base, indices } => {
                self.union_of(indices);
                base
            }
            E::Field { base, .. } => base,
            _ => target,
        };
        let s = self.eval(object);
        self.change(&s);
        if let Some(root) = root_name(object) {
            if self.vars.contains_key(root) {
                let held = Set {
                    held_params: value.params.union(&value.held_params).copied().collect(),
                    held_globals: value.globals.union(&value.held_globals).cloned().collect(),
                    changer: value.changer,
                    closure_param: value.closure_param,
                    ..Set::default()
                };
                self.bind(root, &held);
            }
        }
    }

    /// An operator (`+`, `getindex`): the program's methods of it, if it has any, are calls;
    /// the library's make new values.
    fn operator(&mut self, name: &str, operands: &[&Expr]) -> Set {
        let sets: Vec<Set> = operands.iter().map(|e| self.eval(e)).collect();
        if self.program_function(name).is_none() {
            return Set::default();
        }
        self.apply_program(name, &sets);
        let mut out = Set::default();
        for s in &sets {
            out.union(s);
        }
        out.whole()
    }

    fn program_function(&self, name: &str) -> Option<Name> {
        let q = self.names.resolve(self.module, name);
        self.effects.functions.contains_key(&q).then_some(q)
    }

    fn apply_program(&mut self, name: &str, sets: &[Set]) {
        let args: Vec<(ArgPlace, Set)> = sets
            .iter()
            .enumerate()
            .map(|(i, s)| (ArgPlace::Positional(i), s.clone()))
            .collect();
        if let Some(q) = self.program_function(name) {
            self.apply(&Callee::Program(q, name.to_string()), &args);
        }
    }

    /// A call: what it may change, and its value (which may share any argument's object).
    fn call(&mut self, callee: &Expr, args: &[Expr], keywords: &[KeywordArg]) -> Set {
        let target = self.callee(callee);
        let mut placed = Vec::new();
        let mut splatted = false;
        for (i, a) in args.iter().enumerate() {
            splatted |= matches!(a.kind, E::Splat(_));
            let place = if splatted {
                ArgPlace::From(i)
            } else {
                ArgPlace::Positional(i)
            };
            placed.push((place, self.eval(a)));
        }
        for k in keywords {
            let place = match k {
                KeywordArg::Named { name, .. } => ArgPlace::Keyword(name.clone()),
                KeywordArg::Splat(_) => ArgPlace::AnyKeyword,
            };
            placed.push((place, self.eval(k.value())));
        }
        self.apply(&target, &placed);
        let mut out = match &target {
            Callee::Value(s) | Callee::Unknown(s) => s.clone(),
            _ => Set::default(),
        };
        let library = match &target {
            Callee::Library(name) => name.rsplit('.').next().unwrap_or_default(),
            _ => "",
        };
        if NEW_VALUES.contains(&library) {
            return Set::default();
        }
        for (_, s) in &placed {
            out.union(s);
        }
        if COPIES.contains(&library) {
            return out.elements();
        }
        out.whole()
    }

    /// What a call may change, given its arguments' places and what they share.
    fn apply(&mut self, target: &Callee, args: &[(ArgPlace, Set)]) {
        let passes_changer = args.iter().any(|(_, s)| s.changer);
        let places: Vec<&ArgPlace> = args.iter().map(|(p, _)| p).collect();
        let changes = |place: &ArgPlace| -> bool {
            passes_changer
                || match target {
                    Callee::Program(q, written) => {
                        self.effects.function_changes(q, place) == Some(true)
                            || (self.names.is_library(q)
                                && library_changes(written, place, &places))
                    }
                    Callee::Value(_) => self.effects.callable_changes(&shifted(place)),
                    Callee::Library(name) => library_changes(name, place, &places),
                    Callee::Constructor => false,
                    Callee::Unknown(_) => true,
                }
        };
        // `push!(v, x)` and the others that change only their first argument change its own
        // object, not the objects it holds (`push!(verse, s)` of `verse = [s0, G[n]]`).
        let written = match target {
            Callee::Program(q, written) if self.names.is_library(q) => written.as_str(),
            Callee::Library(name) => name.as_str(),
            _ => "",
        };
        let shallow = CHANGE_FIRST.contains(&written.rsplit('.').next().unwrap_or_default());
        let changed: Vec<Set> = args
            .iter()
            .filter(|(p, _)| changes(p))
            .map(|(_, s)| if shallow { s.clone() } else { s.whole() })
            .collect();
        for s in &changed {
            self.change(s);
        }
        let globals = match target {
            Callee::Program(q, _) => {
                self.all |= self.effects.changes_everything(q);
                self.effects.function_globals(q)
            }
            Callee::Value(s) => {
                self.all |= self.effects.callables_change_everything();
                if passes_changer || self.effects.callable_changes(&ArgPlace::Positional(0)) {
                    self.change(&s.whole());
                }
                self.effects.callable_globals()
            }
            Callee::Unknown(s) => {
                self.change(&s.whole());
                BTreeSet::new()
            }
            _ => BTreeSet::new(),
        };
        self.change(&Set {
            globals,
            ..Set::default()
        });
    }

    /// What `callee` calls.
    fn callee(&mut self, callee: &Expr) -> Callee {
        let written = match &callee.kind {
            E::Ident(n) => Some(n.clone()),
            E::Field { .. } => dotted_name(callee),
            _ => None,
        };
        let local = written
            .as_deref()
            .and_then(|w| w.split('.').next())
            .is_some_and(|root| self.vars.contains_key(root));
        let Some(written) = written.filter(|_| !local) else {
            let s = self.eval(callee);
            return match (&callee.kind, s.changer) {
                (E::Ident(_) | E::Field { .. }, false) => Callee::Value(s),
                _ => Callee::Unknown(s),
            };
        };
        let q = self.names.resolve(self.module, &written);
        if self.effects.functions.contains_key(&q) {
            return Callee::Program(q, written);
        }
        if self.names.is_refused(&q) {
            // Its body is not seen: it may change anything.
            self.all = true;
            return Callee::Unknown(Set::default());
        }
        if self.names.is_binding_name(&q) || (written.contains('.') && q.as_ref() == written) {
            // A top-level binding called, or a field of one.
            let s = self.eval(callee);
            return if s.changer {
                Callee::Unknown(s)
            } else {
                Callee::Value(s)
            };
        }
        if self.names.is_program_struct(&q) {
            return Callee::Constructor;
        }
        if self.names.program_defines_qualified(&q) {
            return Callee::Unknown(Set::default());
        }
        Callee::Library(written)
    }

    /// An anonymous or inner function: what it captures, and whether it is a function that
    /// changes its arguments (writes into one of its parameters). What it changes of the
    /// enclosing method's values counts as the method's own change.
    fn closure(&mut self, def: &FunctionDef) -> Set {
        let param = Set {
            closure_param: true,
            ..Set::default()
        };
        let names = def
            .params
            .iter()
            .filter_map(|p| p.name.as_deref())
            .chain(def.keywords.iter().map(|k| k.name.as_str()))
            .chain(def.keyword_rest.as_deref());
        for n in names.collect::<Vec<_>>() {
            self.bind(n, &param);
        }
        let outer_changes = std::mem::replace(&mut self.closure_changes, false);
        let outer_writes = std::mem::replace(&mut self.closure_writes, false);
        let outer_all = std::mem::replace(&mut self.all, false);
        let outer_reads = self.reads.replace(Set::default());
        for p in &def.params {
            if let Some(d) = &p.default {
                self.eval(d);
            }
        }
        self.block(&def.body);
        let changes = self.closure_changes || self.closure_writes || self.all;
        self.closure_writes |= outer_writes;
        self.all |= outer_all;
        let mut captured = self.reads.take().unwrap_or_default();
        self.reads = outer_reads;
        if let Some(reads) = &mut self.reads {
            reads.union(&captured);
        }
        self.closure_changes = outer_changes || changes;
        captured.closure_param = false;
        captured.changer |= changes;
        captured
    }
}

/// Library functions whose value is a new array of numbers.
const NUMBER_ARRAYS: &[&str] = &["zeros", "ones", "rand", "randn", "range", "collect"];

/// Is `value` an array of numbers: a literal of number literals, or made by one of
/// [`NUMBER_ARRAYS`] from numbers (`collect(1.0:0.5:3.0)`)?
fn number_array(value: &Expr) -> bool {
    match &value.kind {
        E::Vect(parts) => parts.iter().all(immutable_value),
        E::Matrix(rows) => rows.iter().flatten().all(immutable_value),
        E::Call { callee, args } | E::KwCall { callee, args, .. } => {
            matches!(&callee.kind, E::Ident(n) if NUMBER_ARRAYS.contains(&n.as_str()))
                && args.iter().all(|a| {
                    immutable_value(a)
                        || matches!(&a.kind, E::Range { start, step, stop }
                            if immutable_value(start) && immutable_value(stop)
                                && step.as_deref().is_none_or(immutable_value))
                })
        }
        _ => false,
    }
}

/// A place among a struct value's call arguments, the object being argument 0.
pub(crate) fn shifted(place: &ArgPlace) -> ArgPlace {
    match place {
        ArgPlace::Positional(i) => ArgPlace::Positional(i + 1),
        ArgPlace::From(i) => ArgPlace::From(i + 1),
        other => other.clone(),
    }
}

/// Does assigning to `lhs` rebind names (not write into an object)?
fn rebinds(lhs: &Expr) -> bool {
    match &lhs.kind {
        E::Ident(_) | E::Declared { .. } => true,
        E::Tuple(parts) => parts.iter().all(rebinds),
        _ => false,
    }
}

/// The name an index or field chain starts from (`x` in `x.a[i]`).
fn root_name(e: &Expr) -> Option<&str> {
    match &e.kind {
        E::Ident(n) => Some(n),
        E::Index { base, .. } | E::Field { base, .. } => root_name(base),
        _ => None,
    }
}
