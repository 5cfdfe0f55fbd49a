//! Named tuples as collections: `keys`, `values`, `Tuple` (of a `CartesianIndex` too),
//! `NamedTuple(kw)`, `merge`, `haskey`, `getproperty`, and the run-time index a `for` loop over
//! one reads. Each is decided by the named tuple's type (its names are part of it, as in Julia) and built from `getfield`,
//! `tuple` and `namedtuple` primitives.

use zy_ir::{Const, Name, Prim, Type};

use crate::error::{no_method, Fail};
use crate::plan::{Arg, PlanBuilder};
use crate::value::Val;

/// Dispatch the named-tuple builtins; `None` if `name` is not one. (The prelude's methods of
/// these names, `values(::Pairs)`, come first: a builtin is the fallback.)
pub(crate) fn call(b: &mut PlanBuilder, name: &str, args: &[Val]) -> Option<Result<Val, Fail>> {
    let is_named = |v: &Val| matches!(v.ty, Type::NamedTuple(_));
    Some(match (name, args) {
        ("values" | "Tuple", [nt]) if is_named(nt) => Ok(values(b, nt)),
        ("values" | "Tuple", [t]) if matches!(t.ty, Type::Tuple(_)) => Ok(t.clone()),
        ("merge", [first, rest @ ..]) if args.iter().all(is_named) => {
            let mut acc = first.clone();
            for next in rest {
                acc = merge(b, &acc, next);
            }
            Ok(acc)
        }
        // Julia's `NamedTuple(itr) = (; itr...)`: of nothing the empty named tuple, of a named
        // tuple itself, of a keyword rest (`pairs(nt)`) the named tuple it holds.
        ("NamedTuple", []) => Ok(build(b, &[], Vec::new())),
        ("NamedTuple", [nt]) if is_named(nt) => Ok(nt.clone()),
        ("NamedTuple", [p]) if is_keyword_pairs(&p.ty) => {
            getproperty(b, p, &Val::lit(Const::Symbol("data".into())))
        }
        ("NamedTuple", [x]) => Err(Fail::unsupported(format!(
            "`NamedTuple(x)` of a {} (its names, part of a named tuple's type, are known only \
             at run time); write the named tuple `(a = x[:a], b = x[:b])`",
            crate::error::visible(&x.ty.to_string())
        ))),
        ("haskey", [nt, key]) if is_named(nt) => haskey(nt, key),
        ("haskey", [p, key]) if is_keyword_pairs(&p.ty) => pairs_haskey(p, key),
        ("keys", [nt]) if is_named(nt) => Ok(keys(b, nt)),
        ("_rename", [names, t]) => rename_to(b, names, t),
        ("getproperty", [x, f]) => getproperty(b, x, f),
        ("Tuple", [g]) if matches!(&g.ty, Type::Struct(s) if &*s.name == "Base.Generator") => {
            Err(Fail::unsupported(
                "`Tuple(gen)` of a generator whose length is known only at run time (a tuple's \
                 length is part of its type): iterate a literal range `for i in 1:3` or a \
                 tuple, or build a vector `[f(x) for x in xs]`",
            ))
        }
        // The coordinates of a `CartesianIndex`: `i, j = Tuple(I)`.
        ("Tuple", [i]) if matches!(&i.ty, Type::Struct(s) if &*s.name == "Base.CartesianIndex") => {
            getproperty(b, i, &Val::lit(Const::Symbol("I".into())))
        }
        ("Tuple", [v]) if matches!(v.ty, Type::Array(_, 1)) || is_int_range(&v.ty) => {
            tuple_of(b, v)
        }
        (
            "values" | "Tuple" | "NamedTuple" | "merge" | "haskey" | "keys" | "getproperty"
            | "_rename",
            _,
        ) => Err(no_method(name, &crate::value::types(&args))),
        _ => return None,
    })
}

/// Is `t` the library's `UnitRange{Int64}` or `StepRange{Int64, Int64}`?
fn is_int_range(t: &Type) -> bool {
    matches!(t, Type::Struct(s) if matches!(&*s.name, "Base.UnitRange" | "Base.StepRange"))
}

/// `Tuple(v)` of a vector or range (Julia's `(v...,)`): the tuple of its elements. A tuple's
/// length is part of its type, so the length must be known where the call is compiled: a
/// vector literal that nothing else reads (`Tuple([a, b, c])`, `v = [a, b]; Tuple(v)`) or a
/// range of literal bounds; a vector's length tested at run time is not enough.
fn tuple_of(b: &mut PlanBuilder, v: &Val) -> Result<Val, Fail> {
    let Some(elems) = &v.elems else {
        return Err(Fail::unsupported(format!(
            "`Tuple(v)` of a {} whose length is known only at run time (a tuple's length is \
             part of its type); write the tuple `(v[1], v[2], v[3])`, pass a literal \
             `Tuple([a, b, c])`, or keep the vector",
            v.ty
        )));
    };
    let parts: Vec<Val> = match &v.ty {
        Type::Array(e, _) => (1..=elems.len())
            .map(|k| {
                let idx = Arg::Const(Const::Int(k as i64));
                let ty = (**e).clone();
                Val::of(
                    b.prim(Prim::GetIndex, vec![v.arg.clone(), idx], ty.clone()),
                    ty,
                )
            })
            .collect(),
        _ => elems
            .iter()
            .map(|k| k.clone().map(Val::lit))
            .collect::<Option<_>>()
            .ok_or_else(|| Fail::unsupported("`Tuple(r)` of a range known only at run time"))?,
    };
    let ty = Type::tuple(parts.iter().map(|p| p.ty.clone()));
    let ops = parts.into_iter().map(|p| p.arg).collect();
    Ok(Val::of(b.prim(Prim::Tuple, ops, ty.clone()), ty))
}

/// The names and types of a named tuple's fields (empty for any other type).
fn fields(ty: &Type) -> &[(Name, Type)] {
    match ty {
        Type::NamedTuple(fs) => fs,
        _ => &[],
    }
}

/// Field `k` (0-based) of a named tuple or tuple value.
fn field(b: &mut PlanBuilder, x: &Val, k: usize, ty: &Type) -> Val {
    let idx = Arg::Const(Const::Int(k as i64 + 1));
    Val::of(
        b.prim(Prim::GetField, vec![x.arg.clone(), idx], ty.clone()),
        ty.clone(),
    )
}

/// `values(nt)`, `Tuple(nt)`: the tuple of the fields' values, in order.
pub(crate) fn values(b: &mut PlanBuilder, nt: &Val) -> Val {
    let fs = fields(&nt.ty).to_vec();
    let vals: Vec<Val> = fs
        .iter()
        .enumerate()
        .map(|(k, (_, t))| field(b, nt, k, t))
        .collect();
    let ty = Type::tuple(fs.iter().map(|(_, t)| t.clone()));
    let ops = vals.into_iter().map(|v| v.arg).collect();
    Val::of(b.prim(Prim::Tuple, ops, ty.clone()), ty)
}

/// The named tuple with these names and values.
pub(crate) fn build(b: &mut PlanBuilder, names: &[Name], vals: Vec<Val>) -> Val {
    let ty = Type::NamedTuple(
        names
            .iter()
            .cloned()
            .zip(vals.iter().map(|v| v.ty.clone()))
            .collect(),
    );
    let keys = Const::Tuple(names.iter().map(|n| Const::Symbol(n.clone())).collect());
    let mut ops = vec![Arg::Const(keys)];
    ops.extend(vals.into_iter().map(|v| v.arg));
    Val::of(b.prim(Prim::NamedTuple, ops, ty.clone()), ty)
}

/// The named tuple with `names` and the elements of the tuple `t` as values (`map` over
/// named tuples rebuilds its result so).
pub(crate) fn rename(b: &mut PlanBuilder, names: &[Name], t: &Val) -> Val {
    let ts = match &t.ty {
        Type::Tuple(ts) => ts.to_vec(),
        _ => Vec::new(),
    };
    let vals = ts
        .iter()
        .enumerate()
        .map(|(k, ty)| field(b, t, k, ty))
        .collect();
    build(b, names, vals)
}

/// `_rename(names, t)` (`NamedTuple{names}(t)`): the named tuple with the symbols `names` and
/// the values of `t`, one each.
fn rename_to(b: &mut PlanBuilder, names: &Val, t: &Val) -> Result<Val, Fail> {
    let (Type::Tuple(ns), Type::Tuple(ts)) = (&names.ty, &t.ty) else {
        return Err(no_method("NamedTuple", &[names.ty.clone(), t.ty.clone()]));
    };
    let names: Option<Vec<Name>> = ns
        .iter()
        .map(|n| match n {
            Type::Symbol(s) => Some(s.clone()),
            _ => None,
        })
        .collect();
    match names {
        Some(names) if names.len() == ts.len() => Ok(rename(b, &names, t)),
        Some(_) => Err(Fail::method(
            "ArgumentError: Wrong number of arguments to named tuple constructor.",
        )),
        None => Err(Fail::unsupported(
            "`NamedTuple{names}` whose names are not a tuple of symbols",
        )),
    }
}

/// `merge(a, b)`: `a`'s fields in order with those `b` also has taken from `b`, then `b`'s
/// other fields in order (Julia's `merge` of named tuples).
fn merge(b: &mut PlanBuilder, x: &Val, y: &Val) -> Val {
    let (xs, ys) = (fields(&x.ty).to_vec(), fields(&y.ty).to_vec());
    let pick = |b: &mut PlanBuilder, n: &Name| -> Val {
        match ys.iter().position(|(m, _)| m == n) {
            Some(k) => field(b, y, k, &ys[k].1),
            None => {
                let k = xs.iter().position(|(m, _)| m == n).unwrap_or(0);
                field(b, x, k, &xs[k].1)
            }
        }
    };
    let mut names: Vec<Name> = xs.iter().map(|(n, _)| n.clone()).collect();
    names.extend(
        ys.iter()
            .filter(|(n, _)| !xs.iter().any(|(m, _)| m == n))
            .map(|(n, _)| n.clone()),
    );
    let vals = names.iter().map(|n| pick(b, n)).collect();
    build(b, &names, vals)
}

/// `keys(nt)`: the tuple of its names, as symbols.
fn keys(b: &mut PlanBuilder, nt: &Val) -> Val {
    let names: Vec<Name> = fields(&nt.ty).iter().map(|(n, _)| n.clone()).collect();
    let ty = Type::tuple(names.iter().map(|n| Type::Symbol(n.clone())));
    let ops = names
        .into_iter()
        .map(|n| Arg::Const(Const::Symbol(n)))
        .collect();
    Val::of(b.prim(Prim::Tuple, ops, ty.clone()), ty)
}

/// `haskey(nt, :a)`: decided by the type.
fn haskey(nt: &Val, key: &Val) -> Result<Val, Fail> {
    let has = match (&key.konst, super::data::symbol_of(key)) {
        (_, Some(s)) => fields(&nt.ty).iter().any(|(n, _)| *n == s),
        (Some(Const::Int(k)), _) => *k >= 1 && (*k as usize) <= fields(&nt.ty).len(),
        _ => {
            return Err(Fail::unsupported(
                "`haskey` of a named tuple with a key that is not a literal symbol or Int",
            ))
        }
    };
    Ok(Val::lit(Const::Bool(has)))
}

/// Is `t` the library's `Pairs` of a named tuple (`pairs(nt)`, what a method's `kw...` is
/// bound to)?
pub(crate) fn is_keyword_pairs(t: &Type) -> bool {
    let Type::Struct(s) = t else { return false };
    &*s.name == "Base.Pairs"
        && s.fields
            .iter()
            .any(|(n, t)| &**n == "data" && matches!(t, Type::NamedTuple(_)))
}

/// `haskey(kw, k)` of `pairs(nt)` (Julia's `k in keys(nt)`): whether `k` is one of the names,
/// known from the type, so that `haskey(kw, :a) ? kw[:a] : d` reads only a name passed. A key
/// other than a symbol is not there.
fn pairs_haskey(p: &Val, key: &Val) -> Result<Val, Fail> {
    if key.ty.is_any_symbol() {
        return Err(Fail::unsupported(
            "`haskey(kw, k)` of a keyword rest with a symbol `k` known only at run time; \
             write the symbol (`haskey(kw, :a)`)",
        ));
    }
    let names = match &p.ty {
        Type::Struct(s) => s.fields.iter().find_map(|(n, t)| match t {
            Type::NamedTuple(fs) if &**n == "data" => Some(fs.clone()),
            _ => None,
        }),
        _ => None,
    };
    let has = match (names, super::data::symbol_of(key)) {
        (Some(fs), Some(k)) => fs.iter().any(|(n, _)| *n == k),
        _ => false,
    };
    Ok(Val::lit(Const::Bool(has)))
}

/// `getproperty(x, :a)`: the field, as `x.a` (structs, named tuples).
fn getproperty(b: &mut PlanBuilder, x: &Val, f: &Val) -> Result<Val, Fail> {
    if super::data::symbol_of(f).is_none() {
        return Err(Fail::unsupported(
            "`getproperty` with a field name that is not a literal symbol; write `x.a` instead",
        ));
    }
    super::data::call(b, "getfield", &[x.clone(), f.clone()])
        .unwrap_or_else(|| Err(no_method("getproperty", &[x.ty.clone(), f.ty.clone()])))
}
