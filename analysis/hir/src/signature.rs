//! What the program index needs to know of an item before lowering it: the type names of a
//! method's signature that decide whether the method can ever be called, as written (resolved
//! per scope by [`crate::program`]). The build script extracts them for every prelude item, so
//! that a library method waiting on a value the program never makes is neither parsed nor
//! lowered ([`crate::item::BundledItem::sig`]); other files' items are read from their `ssa`.

use std::borrow::Cow;

use zy_ir::TypeExpr;
use zy_lower::LoweredItem;

/// An item's signature names, unresolved (borrowed from the build script's index or from the
/// lowered item).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Signature<'a> {
    /// The type names of the method's own signature outside any `Union` and of its `where`
    /// bounds, its type variables left out: a value of each must exist for the method to apply.
    pub guards: Cow<'a, [&'a str]>,
    /// The names `F` of its arguments annotated `::Type{F}`.
    pub type_values: Cow<'a, [&'a str]>,
    /// Every type name its signature and bounds mention, type variables left out.
    pub types: Cow<'a, [&'a str]>,
    /// Its signature takes an array of three or more dimensions (`Array{T,3}`), which only a
    /// program that can make a matrix can make (see `crate::reach::MATRIX_MAKERS`).
    pub high_rank: bool,
    /// A struct item defining a type with values (not an `abstract type`).
    pub concrete: bool,
    /// For an `rrule(::typeof(f), ...)` or `frule(Δ, ::typeof(f), ...)`: `f`.
    pub subject: Option<&'a str>,
}

/// The signature names of a lowered item (its own method, not its closures').
pub fn signature(item: &LoweredItem) -> Signature<'_> {
    let concrete = item
        .structs
        .iter()
        .any(|s| !s.is_abstract && s.alias.is_none());
    let Some((_, method)) = item.methods.first() else {
        return Signature {
            concrete,
            ..Signature::default()
        };
    };
    let vars: Vec<&str> = method.where_params.iter().map(|p| &**p).collect();
    let (mut guards, mut type_values, mut types) = (Vec::new(), Vec::new(), Vec::new());
    let sig = method.sig.iter().flatten();
    for t in sig.clone() {
        outside_union(t, &vars, &mut guards);
        type_value(t, &vars, &mut type_values);
    }
    for (_, bound) in &method.where_bounds {
        // `x::AbstractVector{<:Complex}` is `AbstractVector{T} where T<:Complex`: only a
        // value of the bound's struct can bind `T`.
        outside_union(bound, &vars, &mut guards);
    }
    for t in sig.chain(method.where_bounds.iter().map(|(_, t)| t)) {
        all_names(t, &vars, &mut types);
    }
    Signature {
        guards: guards.into(),
        type_values: type_values.into(),
        types: types.into(),
        high_rank: method.sig.iter().flatten().any(high_rank),
        concrete,
        subject: method.sig.iter().take(2).find_map(|t| match t {
            Some(TypeExpr::Typeof(f)) => Some(&**f),
            _ => None,
        }),
    }
}

/// The type names of `t` but its type variables, none inside a `Union` (a value of any one
/// member matches it).
fn outside_union<'a>(t: &'a TypeExpr, vars: &[&str], out: &mut Vec<&'a str>) {
    if let TypeExpr::Named { name, params } = t {
        if &**name == "Union" {
            return;
        }
        if !vars.contains(&&**name) {
            out.push(name);
        }
        params.iter().for_each(|p| outside_union(p, vars, out));
    }
}

/// Is `t` an array type of a literal rank of three or more?
fn high_rank(t: &TypeExpr) -> bool {
    match t {
        TypeExpr::Named { name, params } => {
            let array = matches!(&**name, "Array" | "AbstractArray");
            let rank = |p: &TypeExpr| match p {
                TypeExpr::Named { name, params } if params.is_empty() => {
                    name.parse::<u32>().is_ok_and(|n| n >= 3)
                }
                _ => false,
            };
            (array && params.get(1).is_some_and(rank)) || params.iter().any(high_rank)
        }
        TypeExpr::Typeof(_) => false,
    }
}

/// The name `F` of an argument annotated `::Type{F}`.
fn type_value<'a>(t: &'a TypeExpr, vars: &[&str], out: &mut Vec<&'a str>) {
    if let TypeExpr::Named { name, params } = t {
        if let [TypeExpr::Named { name: f, .. }] = params.as_slice() {
            if &**name == "Type" && !vars.contains(&&**f) {
                out.push(f);
            }
        }
    }
}

/// Every name of `t` but its type variables.
fn all_names<'a>(t: &'a TypeExpr, vars: &[&str], out: &mut Vec<&'a str>) {
    match t {
        TypeExpr::Named { name, params } => {
            if !vars.contains(&&**name) {
                out.push(name);
            }
            params.iter().for_each(|p| all_names(p, vars, out));
        }
        TypeExpr::Typeof(name) => out.push(name),
    }
}
