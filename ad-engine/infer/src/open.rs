//! Containers of Julia's open abstract types: `Any[1.0, 2]`, `Real[...]`, `Ref{Any}(x)`.

use std::sync::Arc;

use zy_ir::{Type, UnionType};

/// The element type of a container of `Any`, `Real` or `Number` holding `held`: Julia's
/// abstract type as the union of the number types (`Bool`, `Float64`, `Int64`) and the types
/// held, named as Julia shows it (`Vector{Any}`), each element keeping its own type
/// (`typeof(Any[1.0, 2][2]) == Int64`) and a call on one running the method of the type it
/// holds. `None` for another type, or for a value of a type other than a number (zy's
/// containers of these types hold numbers).
pub(crate) fn open_union(name: &str, held: &[Type]) -> Option<Type> {
    if !is_open(name) {
        return None;
    }
    let mut members = vec![Type::Bool, Type::Float64, Type::Int64];
    for t in held {
        match t {
            Type::Union(u) if &*u.name == name || u.is_julias() => {
                members.extend(u.members.iter().cloned())
            }
            t => members.push(t.clone()),
        }
    }
    if !members.iter().all(Type::is_number) {
        return None;
    }
    members.sort();
    members.dedup();
    Some(Type::Union(Arc::new(UnionType {
        name: name.into(),
        members,
    })))
}

/// Is `name` one of Julia's abstract types whose containers zy holds as numbers?
pub(crate) fn is_open(name: &str) -> bool {
    matches!(name, "Any" | "Real" | "Number")
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
    format!(
        "a container of `{name}` holding a {t}: zy's `Vector{{{name}}}` and `Ref{{{name}}}` hold \
         numbers (`Bool`, `Float64`, `Int64`), each with its own type; {instead}"
    )
}

/// The result of a call split over the members of an open union `u` (`v[1]^2` of a
/// `Vector{Any}`) whose members' methods return different number types: `u`'s type again,
/// as Julia's inference says `Any`, the value keeping the type its method returned.
pub(crate) fn split_result(u: &UnionType, results: &[Type]) -> Option<Type> {
    let differ = results.iter().any(|t| *t != results[0]);
    differ.then(|| open_union(&u.name, results))?
}
