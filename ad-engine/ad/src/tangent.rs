//! Mooncake's split of a tangent into *fdata* and *rdata*.
//!
//! Mutable objects (arrays, `Ref`s, mutable structs) have identity, so their gradient lives in a
//! *shadow* object allocated next to the primal in the forward pass and updated in place by the
//! pullback: that is fdata. Everything else (numbers, tuples, immutable structs, closures) has
//! rdata: gradients returned and accumulated as values by the pullback. A composite has fdata
//! where it contains mutable parts and rdata where it contains immutable differentiable parts;
//! [`tangent_type`] (the user-visible gradient) combines both.

use std::sync::Arc;

use zy_ir::{tangent_type, Name, Type};

/// The type of the forward-pass shadow of a value of type `t` (`Nothing` when it has none).
pub fn fdata_type(t: &Type) -> Type {
    match t {
        // A vector of mutable structs: the vector of their shadows, boxes of their gradients.
        Type::Array(e, n) if boxed_elements(e) => Type::Array(Arc::new(fdata_type(e)), *n),
        Type::Array(..) | Type::Adjoint(_) => tangent_type(t),
        Type::Ref(inner) => match slot_type(inner) {
            Type::Nothing => Type::Nothing,
            slot => Type::Ref(Arc::new(slot)),
        },
        // An AD stack's shadow holds, per entry, its shadow and its gradient (nested AD).
        Type::Stack(elem) => match stack_entry_type(elem) {
            Type::Nothing => Type::Nothing,
            entry => Type::Stack(Arc::new(entry)),
        },
        Type::Struct(s) if s.mutable => match box_type(t) {
            Type::Nothing => Type::Nothing,
            contents => Type::Ref(Arc::new(contents)),
        },
        Type::Struct(s) if s.is_recursive() => recursive_part(s, fdata_type, false),
        Type::Union(u) => u.map(fdata_type),
        _ => composite(t, fdata_type),
    }
}

/// What a shadow box (a `Ref`'s, a mutable struct's) holds for a value of type `t` it contains:
/// the value's own shadow box where the value is an object with a box of its own (a `Ref`, a
/// mutable struct: the two boxes are then one, as the objects are), otherwise its gradient.
pub fn slot_type(t: &Type) -> Type {
    if is_box(t) {
        fdata_type(t)
    } else {
        tangent_type(t)
    }
}

/// Is a value of type `t` an object whose shadow is a box (a `Ref`, a mutable struct)?
pub fn is_box(t: &Type) -> bool {
    matches!(t, Type::Ref(_)) || matches!(t, Type::Struct(s) if s.mutable)
}

/// The contents of the shadow box of a mutable struct of type `t`: the named tuple of its
/// fields' slots (`Nothing` when no field has a gradient). It differs from the struct's
/// gradient only where a field is itself a box; a recursive struct's box holds, where a
/// field holds its own type, that node's box ([`recursive_part`]).
pub fn box_type(t: &Type) -> Type {
    match t {
        Type::Struct(s) if s.is_recursive() => recursive_part(s, slot_type, true),
        Type::Struct(s) => composite_of(s.fields.iter().map(|(n, t)| (n.clone(), slot_type(t)))),
        _ => Type::Nothing,
    }
}

/// A part of the tangent of the recursive struct `s` (its fdata, its rdata, the contents of
/// its box or its forward-mode tangent, as `part` gives for a field): the named tuple of its
/// fields' parts, where the struct's own type in a field ([`Type::Recur`], alone or in a
/// union) stands for that part of the node it holds: the `Recur` again, which the named
/// tuple binds ([`Type::field`]), or for a mutable struct (`boxed`) a `Ref` of it, the node's
/// own box. `Nothing` when the struct has no such part without its own type.
pub fn recursive_part(s: &zy_ir::StructType, part: fn(&Type) -> Type, boxed: bool) -> Type {
    fn slot(t: &Type, s: &zy_ir::StructType, own: &Type, part: fn(&Type) -> Type) -> Type {
        match t {
            Type::Recur(n, ps) if s.is(n, ps) => own.clone(),
            Type::Union(u) => u.map(|m| slot(m, s, own, part)),
            _ => part(t),
        }
    }
    let with = |own: &Type| {
        composite_of(
            s.fields
                .iter()
                .map(|(n, t)| (n.clone(), slot(t, s, own, part))),
        )
    };
    if with(&Type::Nothing) == Type::Nothing {
        return Type::Nothing;
    }
    let own = if boxed {
        Type::Ref(Arc::new(s.recur()))
    } else {
        s.recur()
    };
    with(&own)
}

/// What an AD stack's shadow holds per entry of type `elem`: the entry's shadow (fdata), so that
/// a popped array is the same shadow that was pushed, and its gradient (rdata), accumulated by
/// the pullback; a tuple `(fdata, rdata)` when it has both, the one it has, or `Nothing`.
pub fn stack_entry_type(elem: &Type) -> Type {
    match (fdata_type(elem), rdata_type(elem)) {
        (Type::Nothing, r) => r,
        (f, Type::Nothing) => f,
        (f, r) => Type::tuple([f, r]),
    }
}

/// The type of the pullback-returned part of the tangent of `t` (`Nothing` when it has none).
pub fn rdata_type(t: &Type) -> Type {
    match t {
        Type::Float64 | Type::Float32 => t.clone(),
        Type::Union(u) => u.map(rdata_type),
        _ if t.is_mutable() => Type::Nothing,
        Type::Adjoint(_) => Type::Nothing,
        Type::Struct(s) if s.is_recursive() => recursive_part(s, rdata_type, false),
        // The rdata of the recursive struct around it ([`recursive_part`]).
        Type::Recur(..) => t.clone(),
        _ => composite(t, rdata_type),
    }
}

/// Tuples, named tuples and immutable structs: the part of each field, `Nothing` overall when
/// every field has `Nothing`.
fn composite(t: &Type, part: fn(&Type) -> Type) -> Type {
    match t {
        Type::Tuple(ts) => {
            let parts: Vec<Type> = ts.iter().map(part).collect();
            if parts.iter().all(|t| *t == Type::Nothing) {
                Type::Nothing
            } else {
                Type::Tuple(parts.into())
            }
        }
        Type::NamedTuple(fs) => composite_of(fs.iter().map(|(n, t)| (n.clone(), part(t)))),
        Type::Struct(s) => composite_of(s.fields.iter().map(|(n, t)| (n.clone(), part(t)))),
        _ => Type::Nothing,
    }
}

/// The named tuple of `fields`, `Nothing` when every field's type is `Nothing`.
fn composite_of(fields: impl Iterator<Item = (Name, Type)>) -> Type {
    let fields: Vec<(Name, Type)> = fields.collect();
    if fields.iter().all(|(_, t)| *t == Type::Nothing) {
        Type::Nothing
    } else {
        Type::NamedTuple(fields.into())
    }
}

/// Can the reverse mode differentiate through an array with elements of type `elem` that are
/// not numbers? When an element's tangent is all shadow (fdata: arrays, structs of arrays, as
/// in `Vector{Vector{Float64}}` or `Vector{Layer}`), the array's shadow is the vector of the
/// elements' own shadows (`rules/objects.rs`). Elements with both parts (a struct of a
/// `Float64` and an array) or a mutable struct's boxed shadow have no rules yet.
pub fn shadowed_elements(elem: &Type) -> bool {
    (fdata_type(elem) == tangent_type(elem) || boxed_elements(elem))
        && rdata_type(elem) == Type::Nothing
}

/// Are elements of type `elem` mutable structs with a gradient? Their shadows are boxes
/// (`Ref`s of their gradients), which a vector of them holds, one per element: a vector's
/// shadow then differs from its gradient (`Vector{@NamedTuple{...}}`), which the driver reads
/// out of the boxes.
pub fn boxed_elements(elem: &Type) -> bool {
    match elem {
        // Values of an abstract type whose members are all such structs (`Vector{Shape}`).
        Type::Union(u) => u.members.iter().all(boxed_elements),
        _ => matches!(elem, Type::Struct(s) if s.mutable) && tangent_type(elem) != Type::Nothing,
    }
}

/// Are elements of type `elem` (not numbers) all returned gradient (rdata: tuples and
/// immutable structs of numbers, `Vector{Tuple{Float64, Float64}}`)? The array's shadow then
/// holds their gradients as values, added into in place as a `Vector{Float64}`'s.
pub fn returned_elements(elem: &Type) -> bool {
    let tan = tangent_type(elem);
    tan != Type::Nothing && fdata_type(elem) == Type::Nothing && rdata_type(elem) == tan
}

/// Are elements of type `elem` given both parts, field by field (a struct of a `Float64` and an
/// array)? The array's shadow then holds each element's whole gradient, its array parts being
/// the element's own shadows (`rules/split.rs` takes the parts apart and joins them).
pub fn mixed_elements(elem: &Type) -> bool {
    fdata_type(elem) != Type::Nothing && rdata_type(elem) != Type::Nothing && splits(elem)
}

/// Can a gradient of type `t` be split into its parts and joined back field by field? Each
/// field is all shadow (arrays, structs of arrays), all returned (numbers, structs of numbers)
/// or itself such; no mutable struct (whose shadow is a box) and no other object. A union's
/// (a container of `Any` holding arrays beside numbers) splits by the member its value is, at
/// run time ([`zy_ir::Prim::TangentPart`]), where each member does.
fn splits(t: &Type) -> bool {
    let (f, r, tan) = (fdata_type(t), rdata_type(t), tangent_type(t));
    if f == Type::Nothing || r == Type::Nothing {
        return f == tan || r == tan;
    }
    match t {
        Type::Union(u) => u.members.iter().all(splits),
        Type::Tuple(ts) => ts.iter().all(splits),
        Type::NamedTuple(fs) => fs.iter().all(|(_, t)| splits(t)),
        Type::Struct(s) if !s.mutable => s.fields.iter().all(|(_, t)| splits(t)),
        _ => false,
    }
}

/// The first array type in `t` (itself or in a field) whose elements are not numbers, and
/// whether the AD handles its elements ([`shadowed_elements`] or [`returned_elements`], and
/// so, inside, all arrays below it).
pub fn object_array(t: &Type) -> Option<(Type, bool)> {
    fn first<'a>(mut ts: impl Iterator<Item = &'a Type>) -> Option<(Type, bool)> {
        ts.find_map(object_array)
    }
    match t {
        // Fixed-width integers carry no gradient, as an Int64 array's elements.
        Type::Array(e, _) if !e.is_number() && !matches!(**e, Type::Int(_)) => {
            let ok = shadowed_elements(e) || returned_elements(e) || mixed_elements(e);
            match object_array(e) {
                Some((inner, false)) => Some((inner, false)),
                _ => Some((t.clone(), ok)),
            }
        }
        Type::Tuple(ts) => first(ts.iter()),
        Type::NamedTuple(fs) => first(fs.iter().map(|(_, t)| t)),
        Type::Struct(s) => first(s.fields.iter().map(|(_, t)| t)),
        Type::Ref(t) | Type::Stack(t) => object_array(t),
        _ => None,
    }
}

/// Why the AD does not handle the elements of an array that [`object_array`] found: they hold
/// boxes (mutable structs, `Ref`s) inside other values, or beside arrays and numbers in a
/// container of `Any`.
pub const OBJECT_ARRAY_WHY: &str = "its elements hold mutable structs or boxes inside other \
     values, which the AD cannot split into array and number parts";

/// The refusal of differentiating `func` where one of its values holds a struct whose shape
/// depends on the data (its recursive type, [`Type::Recur`] in its fields) that the AD does not
/// differentiate: one whose own type is inside another struct, a tuple or an array in its
/// fields (the named tuple of its tangent binds its `Recur` only where the field holds the
/// struct itself or a union with it, [`zy_ir::Type::field`]). Others have a gradient as deep
/// as the data ([`recursive_part`]): an immutable one's the named tuple of its fields',
/// a mutable one's a box per node. Only values for which `gets_gradient` holds count (a tree
/// built and walked from constants beside the gradient is no reason to refuse). Nodes of two
/// kinds holding each other (`Add` and `Mul`) are differentiated in reverse mode where their
/// tangents are alike ([`same_tangent_shape`]); `forward` mode refuses them.
pub fn recursive_refusal(
    func: &zy_ir::Function,
    gets_gradient: &dyn Fn(zy_ir::Value) -> bool,
    forward: bool,
) -> Option<crate::AdError> {
    let (v, s) = func.values.iter().enumerate().find_map(|(i, v)| {
        if !v.ty.holds_recursion() || !gets_gradient(zy_ir::Value(i as u32)) {
            return None;
        }
        let mut structs = Vec::new();
        recursive_structs(&v.ty, &mut structs);
        let bad = structs
            .into_iter()
            .find(|s| !differentiable_recursion(s) || forward && mutual_partner(s).is_some())?;
        Some((v, bad))
    })?;
    let span = if v.span == zy_ir::Span::default() {
        func.span
    } else {
        v.span
    };
    if let Some(other) = mutual_partner(&s) {
        return Some(crate::AdError::new(
            span,
            format!(
                "unsupported: the {} through a value of type {} holding {} and {other}, \
                 recursive structs that hold each other (a tree of two kinds of inner node \
                 whose shape depends on the data){}: build it with one kind of inner node \
                 (`Sum(a::Ex, b::Ex, op::Int)`), or of a shape fixed where it is built",
                if forward { "forward mode" } else { "gradient" },
                v.ty,
                s.name,
                if forward {
                    "; zy differentiates such a structure in reverse mode only"
                } else {
                    " whose fields differ; zy differentiates one whose nodes have the same \
                     fields (`Add(a::Ex, b::Ex)`, `Mul(a::Ex, b::Ex)`)"
                }
            ),
        ));
    }
    Some(crate::AdError::new(
        span,
        format!(
            "unsupported: the gradient through a value of type {} holding a recursive struct \
             ({}) whose own type is inside another struct, a tuple or an array it holds, whose \
             shape depends on the data (grown by a loop or built by recursion); zy \
             differentiates one whose fields hold its own type alone or in a union \
             (`next::Union{{Nothing, Node}}`), or one whose shape is fixed where it is built",
            v.ty, s.name
        ),
    ))
}

/// The name of another struct in the fields of the recursive struct `s` that holds `s`'s own
/// type ([`Type::Recur`]): the two hold each other (`Add` and `Mul` nodes of one tree).
fn mutual_partner(s: &zy_ir::StructType) -> Option<Name> {
    fn find(t: &Type, s: &zy_ir::StructType) -> Option<Name> {
        match t {
            Type::Struct(f) if !s.is(&f.name, &f.params) => {
                let holds = f.fields.iter().any(|(_, t)| mentions_recur(t, s));
                if holds {
                    Some(f.name.clone())
                } else {
                    f.fields.iter().find_map(|(_, t)| find(t, s))
                }
            }
            Type::Union(u) => u.members.iter().find_map(|m| find(m, s)),
            Type::Tuple(ts) => ts.iter().find_map(|t| find(t, s)),
            _ => None,
        }
    }
    fn mentions_recur(t: &Type, s: &zy_ir::StructType) -> bool {
        match t {
            Type::Recur(n, ps) => s.is(n, ps),
            Type::Struct(f) => {
                !s.is(&f.name, &f.params) && f.fields.iter().any(|(_, t)| mentions_recur(t, s))
            }
            Type::Union(u) => u.members.iter().any(|m| mentions_recur(m, s)),
            Type::Tuple(ts) => ts.iter().any(|t| mentions_recur(t, s)),
            _ => false,
        }
    }
    s.fields.iter().find_map(|(_, t)| find(t, s))
}

/// A recursive struct in `t` whose gradient is neither all shadow nor all returned: a mutable
/// one (a box per node) or one holding both arrays and numbers. The gradient with respect to
/// an argument holding one is read out of its shadow and rdata node by node at run time (the
/// driver's `tangent_of`), not field by field to a depth fixed where it is compiled.
pub fn split_recursion(t: &Type) -> Option<Arc<zy_ir::StructType>> {
    let mut structs = Vec::new();
    recursive_structs(t, &mut structs);
    structs.into_iter().find(|s| {
        let st = Type::Struct(s.clone());
        s.mutable && has_fdata(&st) || has_fdata(&st) && has_rdata(&st)
    })
}

/// The recursive struct types in `t` (in its fields too, to any depth).
fn recursive_structs(t: &Type, out: &mut Vec<Arc<zy_ir::StructType>>) {
    match t {
        Type::Struct(s) => {
            if s.is_recursive() && !out.contains(s) {
                out.push(s.clone());
            }
            s.fields.iter().for_each(|(_, f)| recursive_structs(f, out));
        }
        Type::Union(u) => u.members.iter().for_each(|m| recursive_structs(m, out)),
        Type::Tuple(ts) | Type::Pullback(ts) => ts.iter().for_each(|t| recursive_structs(t, out)),
        Type::NamedTuple(fs) => fs.iter().for_each(|(_, t)| recursive_structs(t, out)),
        Type::Ref(t) | Type::Array(t, _) | Type::Adjoint(t) | Type::Stack(t) => {
            recursive_structs(t, out)
        }
        _ => {}
    }
}

/// Do the structs `f` and `s` have one tangent, up to which node a [`Type::Recur`] names: the
/// same fields, of the same types where every node whose shape depends on the data counts as
/// one (`Add(a::Ex, b::Ex)` and `Mul(a::Ex, b::Ex)`)? A tangent's `Recur` is bound by the
/// named tuple around it, so nodes holding each other are differentiated only where their
/// named tuples are alike.
fn same_tangent_shape(f: &zy_ir::StructType, s: &zy_ir::StructType) -> bool {
    fn erased(t: &Type) -> Type {
        match t {
            Type::Recur(..) | Type::Struct(_) if t.holds_recursion() => {
                Type::Recur(Name::from(""), Arc::from([]))
            }
            Type::Union(u) => Type::union(u.name.clone(), u.members.iter().map(erased).collect()),
            _ => t.clone(),
        }
    }
    f.fields.len() == s.fields.len()
        && f.fields
            .iter()
            .zip(&s.fields)
            .all(|((fn_, ft), (sn, st))| fn_ == sn && erased(ft) == erased(st))
}

/// Is the recursive struct `s` one whose gradient the AD builds: does its own type
/// ([`Type::Recur`]) stand in its fields alone or as a member of a union (or inside another
/// node of one tangent with it, [`same_tangent_shape`]), nowhere deeper?
fn differentiable_recursion(s: &zy_ir::StructType) -> bool {
    fn mentions(t: &Type, s: &zy_ir::StructType) -> bool {
        match t {
            Type::Recur(n, ps) => s.is(n, ps),
            Type::Union(u) => u.members.iter().any(|m| mentions(m, s)),
            Type::Ref(t) | Type::Array(t, _) => mentions(t, s),
            _ => t
                .field_types()
                .into_iter()
                .flatten()
                .any(|f| mentions(&f, s)),
        }
    }
    fn plain(t: &Type, s: &zy_ir::StructType) -> bool {
        match t {
            Type::Recur(..) => true,
            // Another node of the tree holding this one (`Mul` inside `Add`) whose tangent is
            // this one's: the named tuple around a `Recur` binds it, whichever node it is.
            Type::Struct(f) if mentions(t, s) => same_tangent_shape(f, s),
            Type::Union(u) => u.members.iter().all(|m| plain(m, s)),
            _ => !mentions(t, s),
        }
    }
    s.fields.iter().all(|(_, t)| plain(t, s))
}

/// The refusal of differentiating through a value of the array type `t` whose elements are
/// not numbers, where zy has no rule for it (`what` says which: the elements, an operation, or
/// forward mode).
pub fn object_array_refusal(t: &Type, what: &str) -> String {
    format!(
        "unsupported: the gradient through a {t} ({what}); keep the elements in a tuple \
         `(a, b)` to differentiate"
    )
}

/// Does `t` have a forward shadow?
pub fn has_fdata(t: &Type) -> bool {
    fdata_type(t) != Type::Nothing
}

/// Does `t` have a pullback-returned gradient?
pub fn has_rdata(t: &Type) -> bool {
    rdata_type(t) != Type::Nothing
}

#[cfg(test)]
mod tests {
    use super::*;
    use zy_ir::{StructKind, StructType};

    fn st(name: &str, fields: Vec<(&str, Type)>, mutable: bool) -> Type {
        Type::Struct(Arc::new(StructType {
            name: name.into(),
            params: vec![],
            fields: fields
                .into_iter()
                .map(|(n, t)| (Name::from(n), t))
                .collect(),
            mutable,
            kind: StructKind::User,
        }))
    }

    #[test]
    fn split_of_common_types() {
        let v = Type::vector_f64();
        let cases = [
            (Type::Float64, "Nothing", "Float64"),
            (Type::Int64, "Nothing", "Nothing"),
            (v.clone(), "Vector{Float64}", "Nothing"),
            (
                Type::Ref(Arc::new(Type::Float64)),
                "Ref{Float64}",
                "Nothing",
            ),
            (
                Type::tuple([Type::Float64, v.clone()]),
                "Tuple{Nothing, Vector{Float64}}",
                "Tuple{Float64, Nothing}",
            ),
            (
                st(
                    "Dense",
                    vec![("W", Type::matrix_f64()), ("b", v.clone())],
                    false,
                ),
                "(W = Matrix{Float64}, b = Vector{Float64})",
                "Nothing",
            ),
            (
                st("P", vec![("a", Type::Float64), ("n", Type::Int64)], false),
                "Nothing",
                "(a = Float64, n = Nothing)",
            ),
            (
                st("M", vec![("a", Type::Float64)], true),
                "Ref{(a = Float64,)}",
                "Nothing",
            ),
            // A box holding a mutable struct or a `Ref` holds that object's box.
            (
                st(
                    "Outer",
                    vec![
                        ("m", st("M", vec![("a", Type::Float64)], true)),
                        ("r", Type::Ref(Arc::new(Type::Float64))),
                        ("s", Type::Float64),
                    ],
                    true,
                ),
                "Ref{(m = Ref{(a = Float64,)}, r = Ref{Float64}, s = Float64)}",
                "Nothing",
            ),
            (
                Type::Ref(Arc::new(st("M", vec![("a", Type::Float64)], true))),
                "Ref{Ref{(a = Float64,)}}",
                "Nothing",
            ),
        ];
        for (t, f, r) in cases {
            assert_eq!(
                (fdata_type(&t).to_string(), rdata_type(&t).to_string()),
                (f.to_string(), r.to_string()),
                "{t}"
            );
        }
    }

    #[test]
    fn a_container_of_any_holding_arrays_beside_numbers_splits_by_member() {
        let any = |members: Vec<Type>| Type::union("Any".into(), members);
        let params = any(vec![
            Type::matrix_f64(),
            Type::vector_f64(),
            Type::Float64,
            Type::Int64,
            Type::String,
        ]);
        assert!(mixed_elements(&params), "{params}");
        let vector = Type::Array(Arc::new(params.clone()), 1);
        assert_eq!(object_array(&vector), Some((vector.clone(), true)));
        // The gradient of `Vector{Any}` is a `Vector{Any}` again, as Zygote's.
        assert!(tangent_type(&vector).to_string().starts_with("Vector{Any"));
        // A mutable struct beside them has a box for its shadow: refused by name.
        let boxed = any(vec![
            Type::vector_f64(),
            Type::Float64,
            st("M", vec![("a", Type::Float64)], true),
        ]);
        assert!(!mixed_elements(&boxed), "{boxed}");
        let vector = Type::Array(Arc::new(boxed), 1);
        assert_eq!(object_array(&vector), Some((vector.clone(), false)));
    }

    /// A recursive struct's node of type `name` with the fields `extra` and `next`, a union of
    /// `nothing` and the node's own type.
    fn node(name: &str, extra: Vec<(&str, Type)>, mutable: bool) -> Type {
        let recur = Type::Recur(name.into(), Arc::from(Vec::new()));
        let next = Type::union(
            format!("Union{{Nothing, {name}}}").as_str().into(),
            vec![Type::Nothing, recur],
        );
        let mut fields = extra;
        fields.push(("next", next));
        st(name, fields, mutable)
    }

    #[test]
    fn nodes_holding_each_other_are_differentiated_where_their_tangents_are_alike() {
        let leaf = st("Leaf", vec![("v", Type::Float64)], false);
        let r = |n: &str| Type::Recur(n.into(), Arc::from(Vec::new()));
        let u = |ms: Vec<Type>| Type::union("Union{Add, Leaf, Mul}".into(), ms);
        // Add(a, b) holding Mul(a, b) holding Add again: one tangent for both.
        let inner = u(vec![leaf.clone(), r("Add"), r("Mul")]);
        let mul = st("Mul", vec![("a", inner.clone()), ("b", inner)], false);
        let outer = u(vec![leaf.clone(), r("Add"), mul]);
        let Type::Struct(add) = st("Add", vec![("a", outer.clone()), ("b", outer)], false) else {
            panic!("not a struct");
        };
        assert!(differentiable_recursion(&add));
        assert_eq!(mutual_partner(&add).as_deref(), Some("Mul"));
        // Neg(x) holding Add2(a, b) holding Neg: their tangents differ.
        let inner = u(vec![leaf.clone(), r("Add2"), r("Neg")]);
        let neg = st("Neg", vec![("x", inner)], false);
        let outer = u(vec![leaf, r("Add2"), neg]);
        let Type::Struct(add2) = st("Add2", vec![("a", outer.clone()), ("b", outer)], false) else {
            panic!("not a struct");
        };
        assert!(!differentiable_recursion(&add2));
        assert_eq!(mutual_partner(&add2).as_deref(), Some("Neg"));
    }

    #[test]
    fn recursive_structs_split_as_deep_as_the_data() {
        let v = Type::vector_f64();
        let numbers = node("N", vec![("val", Type::Float64)], false);
        let arrays = node("A", vec![("w", v.clone())], false);
        let mixed = node("B", vec![("a", Type::Float64), ("w", v.clone())], false);
        let boxed = node("M", vec![("val", Type::Float64), ("w", v)], true);
        let ints = node("I", vec![("k", Type::Int64)], true);
        // Each part's `next`, read out of the named tuple that binds its `Recur`, is that part
        // of the node read: the shadow (or gradient) of `l.next` is in `l`'s.
        for t in [&numbers, &arrays, &mixed, &boxed] {
            let next = t.field(t.field_count().unwrap() - 1).unwrap();
            for part in [fdata_type, rdata_type, crate::forward::dual_type] {
                let whole = match part(t) {
                    Type::Ref(contents) => (*contents).clone(),
                    whole => whole,
                };
                let read = whole.field(whole.field_count().unwrap_or(1) - 1);
                let want = part(&next);
                assert_eq!(read.unwrap_or(Type::Nothing), want, "{t}: {want}");
            }
        }
        assert_eq!(
            rdata_type(&numbers).to_string(),
            "(val = Float64, next = Tangent{Union{Nothing, N}})"
        );
        assert_eq!(fdata_type(&numbers), Type::Nothing);
        assert_eq!(fdata_type(&arrays), tangent_type(&arrays));
        assert_eq!(rdata_type(&arrays), Type::Nothing);
        assert!(has_fdata(&mixed) && has_rdata(&mixed));
        assert!(matches!(fdata_type(&boxed), Type::Ref(_)));
        assert_eq!(rdata_type(&boxed), Type::Nothing);
        assert_eq!(
            (fdata_type(&ints), rdata_type(&ints)),
            (Type::Nothing, Type::Nothing)
        );
        assert_eq!(crate::forward::dual_type(&ints), Type::Nothing);
    }
}
