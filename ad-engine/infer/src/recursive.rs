//! The recursive types of the program's structs whose shape depends on the data: a list grown by
//! a loop, a tree built by recursion, an expression tree whose `Add` and `Mul` nodes hold each
//! other.
//!
//! Julia has one type per struct name, so every value of such a struct inside one structure is
//! one type. Values of different shapes join as that type: each struct of the group (the one
//! joined, and every struct holding a [`Type::Recur`]) is given the join of its fields over all
//! its values in the shapes, and is written out in the standard form ([`zy_ir::types::refold`]):
//! in full where it first occurs on a path, as [`Type::Recur`] where it occurs again inside
//! itself. So two paths that build the same structure give one type, whatever order they meet
//! in.

use std::sync::Arc;

use zy_ir::{Name, StructKind, StructType, Type};

/// A struct type's identity: its name and parameters.
type Key = (Name, Vec<Type>);

/// One struct of the group and its fields joined over every value of it met so far.
struct Def {
    shape: Arc<StructType>,
    fields: Vec<(Name, Type)>,
}

/// The recursive type of values of one struct type of different shapes, where a value holds
/// one of the struct's own type (a `Node` of any length, whose field `next` holds
/// `Union{Nothing, Recur(Node)}`), directly or through another struct (an `Add` holding a `Mul`
/// holding an `Add`). `None` where fields do not join, or where the result neither holds
/// itself nor branches over the program's structs in a field (`Mul(a::Union{Add, Leaf}, ...)`,
/// a tree node of nodes of any kind: Julia's one `Mul`).
pub(crate) fn recursive(shapes: &[Type]) -> Option<Type> {
    let Some(Type::Struct(first)) = shapes.first() else {
        return None;
    };
    let mut group: Vec<Key> = vec![(first.name.clone(), first.params.clone())];
    for t in shapes {
        let Type::Struct(s) = t else {
            return None;
        };
        if !first.is(&s.name, &s.params) || s.mutable != first.mutable {
            return None;
        }
        data_shaped(t, &mut group);
    }
    let mut defs: Vec<(Key, Def)> = Vec::new();
    for t in shapes {
        flatten(t, &group, &mut defs)?;
    }
    let whole = expand(&first.recur(), &defs, &mut Vec::new());
    let Type::Struct(st) = &whole else {
        return None;
    };
    (st.is_recursive() || st.fields.iter().any(|(_, t)| branches(t))).then_some(whole)
}

/// Does a struct of these field types need its recursive type: does a field hold a value of
/// the struct's own recursive type (`Node(x, l)` with `l` a list grown by a loop), or of its
/// own type inside a union or an array (`kids::Vector{Tree}`), directly or inside another
/// struct (`Add(Mul(...), ...)` where the `Mul` holds a `Union{Add, Leaf}`)?
pub(crate) fn needs_recursion(s: &StructType) -> bool {
    fn within(t: &Type, s: &StructType, in_union: bool, depth: usize) -> bool {
        match t {
            Type::Struct(f) if s.is(&f.name, &f.params) => in_union || f.is_recursive(),
            Type::Struct(f) => {
                depth < 64
                    && f.fields
                        .iter()
                        .any(|(_, t)| within(t, s, in_union, depth + 1))
            }
            Type::Union(u) => u.members.iter().any(|m| within(m, s, true, depth + 1)),
            Type::Array(e, _) => within(e, s, true, depth + 1),
            Type::Tuple(ts) => ts.iter().any(|t| within(t, s, in_union, depth + 1)),
            _ => false,
        }
    }
    s.kind == StructKind::User && s.fields.iter().any(|(_, t)| within(t, s, false, 0))
}

/// Adds to `group` every struct in `t` whose shape depends on the data (it holds a
/// [`Type::Recur`]).
fn data_shaped(t: &Type, group: &mut Vec<Key>) {
    match t {
        Type::Struct(s) => {
            if t.holds_recursion() && !group.iter().any(|(n, ps)| s.is(n, ps)) {
                group.push((s.name.clone(), s.params.clone()));
            }
            s.fields.iter().for_each(|(_, f)| data_shaped(f, group));
        }
        Type::Union(u) => u.members.iter().for_each(|m| data_shaped(m, group)),
        Type::Tuple(ts) => ts.iter().for_each(|t| data_shaped(t, group)),
        Type::NamedTuple(fs) => fs.iter().for_each(|(_, t)| data_shaped(t, group)),
        Type::Ref(e) | Type::Array(e, _) => data_shaped(e, group),
        _ => {}
    }
}

/// `t` with every value of a struct of `group` replaced by [`Type::Recur`], its fields
/// (flattened so too) joined into its entry of `defs`. `None` where they do not join.
fn flatten(t: &Type, group: &[Key], defs: &mut Vec<(Key, Def)>) -> Option<Type> {
    Some(match t {
        Type::Struct(s) => {
            let fields = s
                .fields
                .iter()
                .map(|(n, f)| Some((n.clone(), flatten(f, group, defs)?)))
                .collect::<Option<Vec<_>>>()?;
            if !group.iter().any(|(n, ps)| s.is(n, ps)) {
                return Some(Type::Struct(Arc::new(StructType {
                    fields,
                    ..(**s).clone()
                })));
            }
            match defs.iter_mut().find(|((n, ps), _)| s.is(n, ps)) {
                None => defs.push((
                    (s.name.clone(), s.params.clone()),
                    Def {
                        shape: s.clone(),
                        fields,
                    },
                )),
                Some((_, def)) => {
                    if def.shape.mutable != s.mutable || def.fields.len() != fields.len() {
                        return None;
                    }
                    for ((_, a), (_, b)) in def.fields.iter_mut().zip(fields) {
                        *a = crate::join::join(a, &b)?;
                    }
                }
            }
            s.recur()
        }
        Type::Union(u) => {
            let members = u
                .members
                .iter()
                .map(|m| flatten(m, group, defs))
                .collect::<Option<Vec<_>>>()?;
            Type::union(u.name.clone(), members)
        }
        Type::Tuple(ts) => Type::tuple(
            ts.iter()
                .map(|t| flatten(t, group, defs))
                .collect::<Option<Vec<_>>>()?,
        ),
        Type::NamedTuple(fs) => Type::NamedTuple(
            fs.iter()
                .map(|(n, t)| Some((n.clone(), flatten(t, group, defs)?)))
                .collect::<Option<_>>()?,
        ),
        Type::Ref(e) => Type::Ref(Arc::new(flatten(e, group, defs)?)),
        Type::Array(e, n) => Type::Array(Arc::new(flatten(e, group, defs)?), *n),
        _ => t.clone(),
    })
}

/// `t` with each [`Type::Recur`] of a struct in `defs` written out as that struct, where it is
/// not inside itself (on `path`): the standard form.
fn expand(t: &Type, defs: &[(Key, Def)], path: &mut Vec<Key>) -> Type {
    match t {
        Type::Recur(n, ps) if !path.iter().any(|(pn, pps)| pn == n && **pps == **ps) => {
            let Some((key, def)) = defs.iter().find(|((dn, dps), _)| dn == n && **dps == **ps)
            else {
                return t.clone();
            };
            path.push(key.clone());
            let fields = def
                .fields
                .iter()
                .map(|(n, f)| (n.clone(), expand(f, defs, path)))
                .collect();
            path.pop();
            Type::Struct(Arc::new(StructType {
                fields,
                ..(*def.shape).clone()
            }))
        }
        Type::Struct(s) if t.holds_recursion() => Type::Struct(Arc::new(StructType {
            fields: s
                .fields
                .iter()
                .map(|(n, f)| (n.clone(), expand(f, defs, path)))
                .collect(),
            ..(**s).clone()
        })),
        Type::Union(u) => Type::union(
            u.name.clone(),
            u.members.iter().map(|m| expand(m, defs, path)).collect(),
        ),
        Type::Tuple(ts) => Type::tuple(ts.iter().map(|t| expand(t, defs, path))),
        Type::NamedTuple(fs) => Type::NamedTuple(
            fs.iter()
                .map(|(n, t)| (n.clone(), expand(t, defs, path)))
                .collect(),
        ),
        Type::Ref(e) => Type::Ref(Arc::new(expand(e, defs, path))),
        Type::Array(e, n) => Type::Array(Arc::new(expand(e, defs, path)), *n),
        _ => t.clone(),
    }
}

/// Is `t` a union holding a value of one of the program's structs (a tree node's child of any
/// kind)?
fn branches(t: &Type) -> bool {
    matches!(t, Type::Union(u) if u.members.iter().any(|m| matches!(m, Type::Struct(_) | Type::Recur(..))))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::join::join;

    fn node(name: &str, fields: Vec<(&str, Type)>) -> Type {
        Type::Struct(Arc::new(StructType {
            name: name.into(),
            params: vec![],
            fields: fields.into_iter().map(|(n, t)| (n.into(), t)).collect(),
            mutable: false,
            kind: StructKind::User,
        }))
    }

    /// A constructor's result: the struct's recursive type where it needs one.
    fn built(t: Type) -> Type {
        match &t {
            Type::Struct(s) if needs_recursion(s) => recursive(&[t.clone()]).unwrap_or(t),
            _ => t,
        }
    }

    #[test]
    fn two_kinds_of_inner_node_reach_one_type() {
        let leaf = node("Leaf", vec![("v", Type::Float64)]);
        let add = |a: &Type, b: &Type| built(node("Add", vec![("a", a.clone()), ("b", b.clone())]));
        let mul = |a: &Type, b: &Type| built(node("Mul", vec![("a", a.clone()), ("b", b.clone())]));
        // A parser's result, iterated from its leaf as inference iterates a recursive function.
        let mut t = leaf.clone();
        let mut steps = 0;
        loop {
            let next = [add(&t, &t), mul(&t, &t)]
                .iter()
                .try_fold(leaf.clone(), |acc, n| join(&acc, n))
                .expect("the nodes join");
            if next == t {
                break;
            }
            t = next;
            steps += 1;
            assert!(steps < 8, "no fixpoint: {t:?}");
        }
        let Type::Union(u) = &t else {
            panic!("not a union: {t}");
        };
        assert_eq!(t.to_string(), "Union{Add, Leaf, Mul}");
        // Every inner node's field, read, is the union itself: one `Add` and one `Mul` type,
        // whichever node it is read from, and the same joined in the other order.
        for m in u.members.iter().filter(|m| **m != leaf) {
            if let Type::Struct(s) = m {
                for i in 0..s.fields.len() {
                    assert_eq!(m.field(i).as_ref(), Some(&t), "{m:?}");
                }
            }
        }
        let other = [mul(&t, &t), add(&t, &t), leaf.clone()]
            .iter()
            .try_fold(Type::Bottom, |acc, n| join(&acc, n));
        assert_eq!(other, Some(t.clone()));
        // A `Mul` of a fixed shape inside joins into the recursive one.
        let fixed = mul(&leaf, &leaf);
        assert_eq!(join(&t, &fixed), Some(t.clone()));
    }

    #[test]
    fn a_tree_node_of_children_of_any_kind() {
        let leaf = node("Leaf", vec![("v", Type::Float64)]);
        let add = node("Add", vec![("a", leaf.clone()), ("b", leaf.clone())]);
        let u = join(&leaf, &add).expect("a node and its leaf join");
        let m1 = node("Mul", vec![("a", leaf.clone())]);
        let m2 = node("Mul", vec![("a", add.clone())]);
        let joined = recursive(&[m1, m2]).expect("Julia's one Mul");
        assert_eq!(joined.field(0), Some(u));
        // Structs of one name holding numbers of different types stay a conflict.
        let p1 = node("P", vec![("x", Type::Float64)]);
        let p2 = node("P", vec![("x", Type::Int64)]);
        assert_eq!(recursive(&[p1, p2]), None);
    }
}
