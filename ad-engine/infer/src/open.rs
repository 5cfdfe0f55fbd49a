//! Containers of Julia's open abstract types: `Any[1.0, 2]`, `Real[...]`, `Ref{Any}(x)`.

use std::sync::Arc;

use zy_ir::{Prim, Type, UnionType};

use crate::plan::PlanBuilder;
use crate::value::Val;

/// The element type of a container of `Any`, `Real`, `Number` or `Integer` holding `held`: Julia's
/// abstract type as the union of the types held, named as Julia shows it (`Vector{Any}`),
/// each element keeping its own type (`typeof(Any[1.0, 2][2]) == Int64`) and a call on one
/// running the method of the type it holds. Where nothing is held yet (`Any[]` with no store
/// in sight), the union of its [`defaults`]. A container of
/// `Any` holds any value (tuples, strings, symbols, arrays, structs, `nothing`); one of `Real`
/// or `Number` only numbers. `None` for another type, or a value it cannot hold.
pub(crate) fn open_union(name: &str, held: &[Type]) -> Option<Type> {
    if !is_open(name) {
        return None;
    }
    let mut members = Vec::new();
    for t in held {
        match t {
            // (`Real` and `Number` are under `Any`, `Real` under `Number`, `Integer` under
            // `Real`.)
            Type::Union(u)
                if &*u.name == name
                    || u.is_julias()
                    || (is_open(&u.name) && name == "Any")
                    || (&*u.name == "Real" && name == "Number")
                    || (&*u.name == "Integer" && matches!(name, "Real" | "Number")) =>
            {
                members.extend(u.members.iter().cloned())
            }
            // A symbol in a container is one known at run time (`Vector{Symbol}`'s).
            Type::Symbol(_) => members.push(Type::any_symbol()),
            t => members.push(t.clone()),
        }
    }
    if members.is_empty() {
        members = defaults(name);
    } else if name == "Integer" {
        members.extend([Type::Bool, Type::Int64]);
    } else if members.iter().all(Type::is_number) {
        // Numbers alone: a call on one splits over the number types (one for all of them).
        members.extend([Type::Bool, Type::Float64, Type::Int64]);
    }
    if !members.iter().all(|t| holds(name, t)) {
        return None;
    }
    members.sort();
    members.dedup();
    Some(Type::Union(Arc::new(UnionType {
        name: name.into(),
        members,
    })))
}

/// What a container of the open abstract type `name` holds where nothing says what (`Any[]`
/// filled elsewhere, a `Dict{String, Any}`'s values): the number types, and for `Any` also
/// `nothing`, strings and symbols (a configuration's values); `Integer`'s only `Bool` and `Int64`.
pub(crate) fn defaults(name: &str) -> Vec<Type> {
    if name == "Integer" {
        return vec![Type::Bool, Type::Int64];
    }
    let mut members = vec![Type::Bool, Type::Float64, Type::Int64];
    if name == "Any" {
        members.extend([Type::Nothing, Type::String, Type::any_symbol()]);
    }
    members
}

/// Do the elements of an array literal of these types differ in kind (a number beside a
/// string, a tuple beside an array, a struct beside a number), so that Julia's literal is a
/// `Vector{Any}` (`[1, "a"]`)? Numbers promote, tuples and arrays of one kind join by their
/// parameters, and `nothing` or `missing` beside a value is Julia's small union: none of these.
pub(crate) fn mixes_kinds(types: &[Type]) -> bool {
    let kind = |t: &Type| match t {
        _ if t.is_number() => Some(0),
        Type::String => Some(1),
        Type::Symbol(_) => Some(2),
        Type::Tuple(_) => Some(3),
        Type::Array(..) => Some(4),
        // The program's own structs (the library's, `missing` and rationals among them,
        // join as their own rules say).
        Type::Struct(s)
            if s.kind == zy_ir::StructKind::User && !crate::calls::is_library(&s.name) =>
        {
            Some(5)
        }
        _ => None,
    };
    let Some(kinds) = types.iter().map(kind).collect::<Option<Vec<_>>>() else {
        return false;
    };
    kinds.iter().any(|k| *k != kinds[0])
}

/// Can a container of the open abstract type `name` hold a value of type `t`?
pub(crate) fn holds(name: &str, t: &Type) -> bool {
    match t {
        _ if name == "Integer" => matches!(t, Type::Bool | Type::Int64),
        _ if t.is_number() => true,
        Type::Any
        | Type::Bottom
        | Type::Stack(_)
        | Type::Param(_)
        | Type::Pullback(_)
        | Type::Exception
        | Type::Recur(..) => false,
        _ => name == "Any",
    }
}

/// The union of two open unions (a `Vector{Any}` made where the values stored into it are
/// still being typed, met at a join; a sum of a `Vector{Real}` beside one of a `Vector{Any}`),
/// named by the wider of the two: `None` for other types.
pub(crate) fn join(a: &Type, b: &Type) -> Option<Type> {
    match (a, b) {
        (Type::Union(u), Type::Union(v)) if is_open(&u.name) && is_open(&v.name) => {
            let name = ["Any", "Number", "Real", "Integer"]
                .into_iter()
                .find(|n| *n == &*u.name || *n == &*v.name)?;
            open_union(name, &[a.clone(), b.clone()])
        }
        _ => None,
    }
}

/// Is `name` one of Julia's abstract types whose containers zy holds as numbers?
pub(crate) fn is_open(name: &str) -> bool {
    matches!(name, "Any" | "Real" | "Number" | "Integer")
}

/// Why a container of the open abstract type `name` cannot hold a value of type `t`.
/// An array (rows pushed into `[]`) is pointed to a vector typed for it.
pub(crate) fn refusal(name: &str, t: &Type) -> String {
    let instead = match t {
        Type::Array(..) => format!(
            "start from a vector of its type (`rows = {t}[]`), which `push!` fills and \
             `reduce(vcat, rows)`, `reduce(hcat, rows)` and `hcat(rows...)` stack"
        ),
        _ => "use a tuple for values of other types".to_string(),
    };
    if name == "Integer" {
        return format!(
            "a container of `Integer` holding a {t}: zy's `Vector{{Integer}}` holds `Bool`s \
             and `Int64`s, each with its own type; {instead}"
        );
    }
    if name == "Any" {
        return format!(
            "a container of `Any` holding a {t}, stored where it was not made: zy's \
             `Vector{{Any}}` and `Ref{{Any}}` hold the types of the values its literal holds \
             and the function making it stores into it (`push!(v, x)`, `v[i] = x`, `r[] = x`, \
             each keeping its own type); store it where the container is made, or {instead}"
        );
    }
    format!(
        "a container of `{name}` holding a {t}: zy's `Vector{{{name}}}` and `Ref{{{name}}}` hold \
         numbers (`Bool`, `Float64`, `Int64`), each with its own type; {instead}"
    )
}

/// The result of a call split over the members of an open union `u` (`v[1]^2` of a
/// `Vector{Any}`) whose members' methods return different number types: `u`'s type again,
/// as Julia's inference says `Any`, the value keeping the type its method returned. A member
/// whose method never returns (`Union{}`, a branch ruled out) adds nothing.
pub(crate) fn split_result(u: &UnionType, results: &[Type]) -> Option<Type> {
    let results: Vec<Type> = results
        .iter()
        .filter(|t| **t != Type::Bottom)
        .cloned()
        .collect();
    let differ = results.iter().any(|t| *t != results[0]);
    // (Results a `Real` cannot hold, `Pair(k, v)` of one, are values of `Any`.)
    let wider = || is_open(&u.name).then(|| open_union("Any", &results))?;
    differ.then(|| open_union(&u.name, &results).or_else(wider))?
}

/// The arguments of the call `name(args...)` with each value of a container of `Any` that
/// holds values of one type (`rows = []` filled with tuples) seen as that type, as the value
/// is: the call then reads constants beside it (`r[1]`, `(n, e) = r`). `None` where there is
/// none, and for the stores into a box, which keep the box's type.
pub(crate) fn narrow_single(b: &mut PlanBuilder, name: &str, args: &[Val]) -> Option<Vec<Val>> {
    if matches!(name, "_box_set!" | "_box_init!") || !args.iter().any(|a| single(&a.ty).is_some()) {
        return None;
    }
    Some(args.iter().map(|a| narrow_value(b, a.clone())).collect())
}

/// `v` seen as the one type it may hold, where it is an element of a container of `Any` that
/// holds values of one type; else `v` itself.
pub(crate) fn narrow_value(b: &mut PlanBuilder, v: Val) -> Val {
    match single(&v.ty) {
        Some(t) => Val::of(b.prim(Prim::UnionConvert, vec![v.arg], t.clone()), t),
        None => v,
    }
}

/// The one member of an open union that has one.
fn single(t: &Type) -> Option<Type> {
    match t {
        Type::Union(u) if is_open(&u.name) && u.members.len() == 1 => Some(u.members[0].clone()),
        _ => None,
    }
}

/// Does an array of `elem`s that `map`, broadcasting or a comprehension has filled take its
/// element type from the values it holds ([`crate::synth::NARROW`])? So for results of a
/// call on a container of `Any`, `Real` or `Number` holding numbers, and for results of
/// Julia's union of numbers and strings (`x > 0 ? "a" : 1`), whose type is known only at run
/// time: Julia's `map` gives the `promote_typejoin` of the values' types.
pub(crate) fn narrows(elem: &Type) -> bool {
    let number = |m: &Type| matches!(m, Type::Bool | Type::Float64 | Type::Int64);
    match elem {
        Type::Union(u) if is_open(&u.name) => u.members.iter().all(number),
        Type::Union(u) => runtime_element(elem) && u.members.iter().any(number),
        _ => false,
    }
}

/// Is `t` Julia's union of numbers and strings (`Union{Int64, String}`, `Union{Float64,
/// Int64}`), whose values in an array literal or a `map`'s result decide the array's type?
pub(crate) fn runtime_element(t: &Type) -> bool {
    matches!(t, Type::Union(u) if u.is_julias()
        && u.members.iter().all(|m| m.is_number() || *m == Type::String))
}

/// The type of an `n`-dimensional array of the results `elem` ([`narrows`]) once its element
/// type is taken from its values: a value of `Any` holding an array of one of `elem`'s members
/// (the values all of that type), a `Vector{Real}` (numbers of several types, a Float64 among
/// them), a `Vector{Integer}` (Bools beside Ints) or a `Vector{Any}` (no values, or a string
/// beside a number), or, for Julia's union, the array of it (no values). With `promote` (an
/// array literal's `promote_type`), a `Vector{Float64}` or `Vector{Int64}` for numbers of
/// several types instead.
pub(crate) fn narrowed(elem: &UnionType, n: u8, promote: bool) -> Option<Type> {
    let mut arrays: Vec<Type> = elem
        .members
        .iter()
        .map(|m| crate::value::array(m.clone(), n))
        .collect();
    let numbers: Vec<Type> = elem
        .members
        .iter()
        .filter(|m| m.is_number())
        .cloned()
        .collect();
    if promote {
        arrays.push(crate::value::array(Type::Float64, n));
        arrays.push(crate::value::array(Type::Int64, n));
    } else {
        arrays.push(crate::value::array(open_union("Real", &numbers)?, n));
        arrays.push(crate::value::array(open_union("Integer", &[])?, n));
    }
    arrays.push(crate::value::array(open_union("Any", &elem.members)?, n));
    if !promote && !is_open(&elem.name) {
        arrays.push(crate::value::array(Type::Union(Arc::new(elem.clone())), n));
    }
    open_union("Any", &arrays)
}
