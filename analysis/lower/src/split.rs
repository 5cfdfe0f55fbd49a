//! Locals that a closure shares with the function making it in name only. Julia keeps a
//! local that a closure assigns in a `Core.Box`, which holds a value of any type:
//! OptimizationProblems.jl's broyden7d makes `f(x)` assigning `x0 = zero(T)`, a `Float64`, in
//! the method whose `x0` is the starting `Vector`. Where the closure assigns the name before
//! every other use of it, and the function cannot have run the closure before it reads the
//! name (it names neither until its last statement, which reads the name before calling
//! anything), no value stored by one is ever read by the other: each keeps a local of its
//! own, typed apart, and the box is not needed.

use rustc_hash::FxHashMap;
use std::cmp::Ordering;

use zy_syntax::ast::{Expr, ExprKind, FunctionDef, FunctionName, KeywordArg};

/// For each closure a statement of `body` (a function's body) defines, the names among
/// `locals` (the function's own locals) that the closure keeps as locals of its own.
pub(crate) fn split_names(
    body: &[Expr],
    locals: &[String],
) -> FxHashMap<*const FunctionDef, Vec<String>> {
    let mut splits = FxHashMap::default();
    for (i, stmt) in body.iter().enumerate() {
        let ExprKind::Function(def) = &stmt.kind else {
            continue;
        };
        let callee = match &def.name {
            FunctionName::Named(f) => Some(f.as_str()),
            _ => None,
        };
        let names: Vec<String> = locals
            .iter()
            .filter(|n| assigns_first(def, n, callee) && separate(body, i, n, callee))
            .cloned()
            .collect();
        if !names.is_empty() {
            splits.insert(&**def as *const FunctionDef, names);
        }
    }
    splits
}

/// Does closure `def` (named `callee`) assign `name` in a statement of its body before any
/// other use of it (parameter defaults included), not name it as a parameter, and not call
/// itself (a call inside would store into the box the caller reads)?
fn assigns_first(def: &FunctionDef, name: &str, callee: Option<&str>) -> bool {
    let param = def.params.iter().any(|p| p.name.as_deref() == Some(name))
        || def.keywords.iter().any(|k| k.name == name)
        || def.keyword_rest.as_deref() == Some(name);
    let defaults = def
        .params
        .iter()
        .filter_map(|p| p.default.as_ref())
        .chain(def.keywords.iter().filter_map(|k| k.default.as_ref()));
    if param || defaults.into_iter().any(|d| mentions(d, name)) {
        return false;
    }
    // Assigning its own name, the closure cannot name itself after (hs101's `f = ...`).
    let recursive = callee.is_some_and(|f| f != name && def.body.iter().any(|s| mentions(s, f)));
    if recursive {
        return false;
    }
    def.body
        .iter()
        .find(|s| mentions(s, name))
        .is_some_and(|s| plain_assign(s, name))
}

/// Are the function's uses of `name` apart from those of the closure (named `callee`) its
/// statement `at` defines: no closure made before reads the name or calls the closure, and
/// after it the function assigns the name only by plain assignments and never names the
/// closure (so cannot have run it) before its last statement, where it reads the name only
/// as a direct argument, before anything there is called?
fn separate(body: &[Expr], at: usize, name: &str, callee: Option<&str>) -> bool {
    let last = body.len() - 1;
    let names_callee = |s: &Expr| callee.is_some_and(|f| mentions(s, f));
    let assigns_only = |s: &Expr| !mentions(s, name) || plain_assign(s, name);
    body.iter().enumerate().all(|(j, s)| match j.cmp(&at) {
        Ordering::Less => !in_closure(s, name) && !callee.is_some_and(|f| in_closure(s, f)),
        Ordering::Equal => true,
        Ordering::Greater if j == last => assigns_only(s) || direct_arguments(s),
        Ordering::Greater => assigns_only(s) && (callee == Some(name) || !names_callee(s)),
    })
}

/// `name = rhs` with `rhs` not naming it.
fn plain_assign(s: &Expr, name: &str) -> bool {
    matches!(&s.kind, ExprKind::Assign { lhs, rhs }
        if matches!(&lhs.kind, ExprKind::Ident(n) if n == name) && !mentions(rhs, name))
}

/// A (returned) name, or call or tuple whose arguments are names and literals only: all are
/// read before anything is called.
fn direct_arguments(s: &Expr) -> bool {
    let e = match &s.kind {
        ExprKind::Return(Some(e)) => e,
        _ => s,
    };
    let plain = |a: &Expr| match &a.kind {
        ExprKind::Splat(inner) => leaf(inner),
        _ => leaf(a),
    };
    match &e.kind {
        ExprKind::Tuple(args) => args.iter().all(plain),
        ExprKind::NamedTuple(fields) => fields.iter().all(|(_, a)| plain(a)),
        ExprKind::Call { callee, args } => callee_plain(callee) && args.iter().all(plain),
        ExprKind::KwCall {
            callee,
            args,
            keywords,
        } => {
            callee_plain(callee)
                && args.iter().all(plain)
                && keywords.iter().map(KeywordArg::value).all(plain)
        }
        _ => leaf(e),
    }
}

/// A callee that runs nothing when evaluated: a name, or a module's name (`Mod.f`).
fn callee_plain(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Field { base, .. } => callee_plain(base),
        _ => leaf(e),
    }
}

/// A name or a literal.
fn leaf(e: &Expr) -> bool {
    matches!(
        e.kind,
        ExprKind::Ident(_)
            | ExprKind::Float(_)
            | ExprKind::Int(_)
            | ExprKind::Bool(_)
            | ExprKind::Nothing
            | ExprKind::Str(_)
            | ExprKind::Symbol(_)
    )
}

/// Does a closure inside `e` name `name`?
fn in_closure(e: &Expr, name: &str) -> bool {
    match &e.kind {
        ExprKind::Function(_) => mentions(e, name),
        _ => e.children().into_iter().any(|c| in_closure(c, name)),
    }
}

/// Does `e` name `name` anywhere, inside the closures it makes included?
fn mentions(e: &Expr, name: &str) -> bool {
    match &e.kind {
        ExprKind::Ident(n) => n == name,
        ExprKind::Local(names) => names.iter().any(|n| n == name),
        ExprKind::Function(def) => {
            matches!(&def.name, FunctionName::Named(n) if n == name)
                || def.params.iter().any(|p| {
                    p.name.as_deref() == Some(name)
                        || p.default.as_ref().is_some_and(|d| mentions(d, name))
                })
                || def.keywords.iter().any(|k| {
                    k.name == name || k.default.as_ref().is_some_and(|d| mentions(d, name))
                })
                || def.body.iter().any(|s| mentions(s, name))
        }
        _ => e.children().into_iter().any(|c| mentions(c, name)),
    }
}
