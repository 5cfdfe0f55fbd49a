//! Numbers that may be absent: Julia's `Union{Missing, T}` and `Union{Nothing, T}` of a number
//! type `T`, as the elements of arrays (`[1.0, missing]`, `Union{Nothing, Float64}[...]`).

use zy_ir::Type;

use crate::value::promote;

/// The element type of an array literal mixing `missing` (or `nothing`) with numbers, as
/// Julia's `vect` promotes it: the numbers' promoted type in a union with the absent value's
/// (`[1, 2.0, missing]` holds `Union{Missing, Float64}`, `[1.0, missing, nothing]`
/// `Union{Missing, Nothing, Float64}`). `None` unless an absent value is among them and every
/// other element is a number.
pub(crate) fn literal_elem(a: &Type, b: &Type) -> Option<Type> {
    let mut absent: Option<Type> = None;
    let mut number: Option<Type> = None;
    for t in members(a).chain(members(b)) {
        if t.is_missing() || *t == Type::Nothing {
            // `missing` beside `nothing`: `Union{Missing, Nothing, T}`.
            if absent.as_ref().is_some_and(|x| x != t) {
                return crate::join::missing_or(&[a.clone(), b.clone()]);
            }
            absent = Some(t.clone());
        } else if t.is_number() {
            number = Some(match number {
                None => t.clone(),
                Some(n) => promote(&n, t),
            });
        } else {
            return None;
        }
    }
    let absent = absent?;
    Some(match number {
        None => absent,
        Some(n) if absent == Type::Nothing => crate::join::nothing_or(&n),
        Some(n) => crate::join::missing_or(&[absent, n])?,
    })
}

/// The union of an absent value and numbers named `name` (`Union{Missing, Float64}`,
/// `Union{Float64, Nothing}` as written), from its members' types: Julia's union, named as
/// Julia shows it. `None` for another union.
pub(crate) fn union_of(members: &[Type]) -> Option<Type> {
    match members {
        [Type::Nothing, t] | [t, Type::Nothing] if t.is_number() => {
            Some(crate::join::nothing_or(t))
        }
        _ => crate::join::missing_or(members).filter(|_| members.len() >= 2),
    }
}

/// The number type `T` of `Union{Missing, T}` or `Union{Nothing, T}`.
pub(crate) fn number_member(t: &Type) -> Option<Type> {
    let Type::Union(u) = t else {
        return None;
    };
    match u.members.as_slice() {
        [a, n] | [n, a] if (a.is_missing() || *a == Type::Nothing) && n.is_number() => {
            Some(n.clone())
        }
        _ => None,
    }
}

/// The members of `t`: those of a union Julia writes, else `t` itself.
fn members(t: &Type) -> Box<dyn Iterator<Item = &Type> + '_> {
    match t {
        Type::Union(u) if u.name.starts_with("Union{") => Box::new(u.members.iter()),
        t => Box::new(std::iter::once(t)),
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use zy_ir::{StructKind, StructType, Type};

    fn missing() -> Type {
        Type::Struct(Arc::new(StructType {
            name: "Base.Missing".into(),
            params: Vec::new(),
            fields: Vec::new(),
            mutable: false,
            kind: StructKind::User,
        }))
    }

    #[test]
    fn literals_promote_their_numbers_beside_an_absent_value() {
        let shown = |t: Option<Type>| t.map(|t| t.to_string());
        let m = missing();
        assert_eq!(
            shown(super::literal_elem(&Type::Float64, &m)),
            Some("Union{Missing, Float64}".into())
        );
        // `[missing, 1, 2.0]`: the Int promoted beside the Float64.
        let first = super::literal_elem(&m, &Type::Int64).unwrap();
        assert_eq!(first.to_string(), "Union{Missing, Int64}");
        assert_eq!(
            shown(super::literal_elem(&first, &Type::Float64)),
            Some("Union{Missing, Float64}".into())
        );
        assert_eq!(
            shown(super::literal_elem(&Type::Nothing, &Type::Float64)),
            Some("Union{Nothing, Float64}".into())
        );
        // `missing` beside `nothing`: both, first in Julia's order; beside a string: no union.
        let both = super::literal_elem(&m, &Type::Nothing).unwrap();
        assert_eq!(both.to_string(), "Union{Missing, Nothing}");
        assert_eq!(
            shown(super::literal_elem(&both, &Type::Float64)),
            Some("Union{Missing, Nothing, Float64}".into())
        );
        assert_eq!(super::literal_elem(&m, &Type::String), None);
        assert_eq!(super::number_member(&first), Some(Type::Int64));
        assert_eq!(
            crate::join::join(&m, &Type::Bool).map(|t| t.to_string()),
            Some("Union{Missing, Bool}".into())
        );
    }
}
