//! Joins of types where control flow merges (φ nodes, return values).

use zy_ir::Type;

/// The join of two types: equal types join to themselves, `Bottom` is the identity, `Int64`
/// with `Float64` (`c > 0 ? 5.0 : 5`, `s = 0` before `s += x[i]`) gives Julia's
/// `Union{Float64, Int64}`, `Bool` with another number that number (where Julia keeps
/// `Union{Bool, T}`: a known difference), and `Nothing` with a number, a tuple, a string or a
/// range `T` Julia's `Union{Nothing, T}` (a function returning `nothing` on one path); a union joins with any of
/// its members to itself. `None` is a conflict.
pub(crate) fn join(a: &Type, b: &Type) -> Option<Type> {
    match (a, b) {
        _ if a == b => Some(a.clone()),
        (Type::Bottom, t) | (t, Type::Bottom) => Some(t.clone()),
        (Type::Int64, Type::Float64) | (Type::Float64, Type::Int64) => Some(numbers(a, b)),
        (Type::Bool, t) | (t, Type::Bool) if t.is_number() => Some(t.clone()),
        (Type::Nothing, t) | (t, Type::Nothing) if t.is_number() || is_value(t) => {
            Some(nothing_or(t))
        }
        (Type::Union(u), t) | (t, Type::Union(u)) if u.members.contains(t) => {
            Some(Type::Union(u.clone()))
        }
        _ => None,
    }
}

/// A tuple, string or range that may be `nothing` on another path (Julia's
/// `Union{Nothing, Tuple{Char, Int64}}` of `iterate`, `findfirst`'s `UnitRange` of a string).
/// (A struct of the program that is `nothing` on another path stays a conflict: a list grown
/// by a loop, `head = Node(x, head)`, is a struct of another type each time round.)
fn is_value(t: &Type) -> bool {
    match t {
        Type::Tuple(ts) => !ts.is_empty(),
        Type::String => true,
        Type::Struct(s) => &*s.name == "Base.UnitRange",
        _ => false,
    }
}

/// Julia's `Union{Nothing, T}`.
pub(crate) fn nothing_or(t: &Type) -> Type {
    Type::union(
        format!("Union{{Nothing, {t}}}").as_str().into(),
        vec![Type::Nothing, t.clone()],
    )
}

/// Julia's union of two different number types, shown with its members in Julia's order
/// (`Union{Float64, Int64}`).
fn numbers(a: &Type, b: &Type) -> Type {
    let mut names = [a.to_string(), b.to_string()];
    names.sort();
    let name = format!("Union{{{}, {}}}", names[0], names[1]);
    Type::union(name.as_str().into(), vec![a.clone(), b.clone()])
}

/// The primitive that converts a value of type `from` into `to` after a join, if one is needed.
pub(crate) fn conversion(from: &Type, to: &Type) -> Option<zy_ir::Prim> {
    match (from, to) {
        (Type::Int64 | Type::Bool, Type::Float64) => Some(zy_ir::Prim::Float),
        (Type::Bool, Type::Int64) => Some(zy_ir::Prim::ToInt),
        (t, Type::Union(u)) if u.members.contains(t) => Some(zy_ir::Prim::UnionConvert),
        _ => None,
    }
}

/// How deeply `t` nests (a scalar is 1).
pub(crate) fn depth(t: &Type) -> usize {
    let inner = match t {
        Type::Tuple(ts) | Type::Pullback(ts) => ts.iter().map(depth).max().unwrap_or(0),
        Type::NamedTuple(fs) => fs.iter().map(|(_, t)| depth(t)).max().unwrap_or(0),
        Type::Struct(s) => {
            let f = s.fields.iter().map(|(_, t)| depth(t)).max().unwrap_or(0);
            f.max(s.params.iter().map(depth).max().unwrap_or(0))
        }
        Type::Ref(t) | Type::Array(t, _) | Type::Adjoint(t) | Type::Stack(t) => depth(t),
        _ => 0,
    };
    inner + 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn different_numbers_join_to_julias_union() {
        let u = join(&Type::Int64, &Type::Float64);
        assert_eq!(
            u.as_ref().map(|t| t.to_string()).as_deref(),
            Some("Union{Float64, Int64}")
        );
        assert_eq!(u, join(&Type::Float64, &Type::Int64));
        assert_eq!(join(&Type::Bool, &Type::Int64), Some(Type::Int64));
        assert_eq!(
            join(&u.unwrap(), &Type::Int64),
            join(&Type::Int64, &Type::Float64)
        );
        assert_eq!(
            join(&Type::Bottom, &Type::vector_f64()),
            Some(Type::vector_f64())
        );
        assert_eq!(join(&Type::Int64, &Type::vector_f64()), None);
        let t = Type::tuple([Type::tuple([Type::Float64])]);
        assert_eq!(depth(&t), 3);
    }
}
