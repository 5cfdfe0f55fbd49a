//! Type aliases: `const FVec = Vector{Float64}`, `const MinHeap{T} = BinaryHeap{T, MinHeapType}`
//! and, at top level, `Vec{T} = Vector{T}` without `const` (a global holding a type, which
//! Julia's annotations read as the type). An alias is a [`StructDef`] without fields whose
//! `alias` is the type it names, so it is resolved by name as a struct is.

use crate::ast::{StructDef, TypeExpr};
use crate::cx::Cx;
use crate::items::{declared_binding, type_expr, type_head};
use crate::kind::Kind;
use crate::tree::SyntaxNode;

/// Julia's types that a plain name may alias (`const Real64 = Float64`, `const M = Matrix`),
/// besides the types the file defines before the alias (`const P = Point`); any other plain
/// name on the right (`const g = sin`) stays a binding of that value.
const PLAIN_TYPES: &[&str] = &[
    "Float64",
    "Float32",
    "Int",
    "Int64",
    "Int32",
    "Bool",
    "String",
    "Symbol",
    "Char",
    "Real",
    "Number",
    "AbstractFloat",
    "Integer",
    "Signed",
    "AbstractString",
    "Any",
    "Vector",
    "Matrix",
    "Array",
    "AbstractVector",
    "AbstractMatrix",
    "AbstractArray",
    "Dict",
    "AbstractDict",
    "Set",
    "Tuple",
    "Nothing",
    "Function",
];

/// Is the top-level statement `node` a type alias: a binding of `Name{T...}`, or of a name to
/// a type written with parameters (`Vector{Float64}`, `Union{Int, Nothing}`) or to one of
/// [`PLAIN_TYPES`]?
pub(crate) fn is_alias(cx: &Cx, node: &SyntaxNode) -> bool {
    let Some((assignment, _)) = declared_binding(node) else {
        return false;
    };
    let [lhs, rhs] = assignment.children.as_slice() else {
        return false;
    };
    let parametric = !lhs.leaf && lhs.kind == Kind::Curly;
    let named = lhs.leaf && lhs.kind == Kind::Identifier;
    parametric || (named && names_a_type(cx, rhs))
}

/// `Name{P, ...}` (`Name` possibly qualified), a name of [`PLAIN_TYPES`] or a type the file
/// defined before (`Point`, `Shapes.Point`).
fn names_a_type(cx: &Cx, node: &SyntaxNode) -> bool {
    match (node.leaf, node.kind, node.children.first()) {
        (false, Kind::Curly, Some(base)) => {
            node.children.len() > 1
                && ((base.leaf && base.kind == Kind::Identifier)
                    || (!base.leaf && base.kind == Kind::Dot))
        }
        (true, Kind::Identifier, _) => {
            let name = cx.text(node);
            PLAIN_TYPES.contains(&name) || cx.type_names.contains(name)
        }
        (false, Kind::Dot, _) => node.children.last().is_some_and(|last| {
            last.leaf && last.kind == Kind::Identifier && cx.type_names.contains(cx.text(last))
        }),
        _ => false,
    }
}

/// The alias that [`is_alias`] recognised: its name, parameters with their bounds
/// (`const RealVec{T<:Real} = AbstractVector{T}`) and the type it names.
pub(crate) fn alias(cx: &mut Cx, node: &SyntaxNode) -> Option<StructDef> {
    let (assignment, _) = declared_binding(node)?;
    let [lhs, rhs] = assignment.children.as_slice() else {
        return None;
    };
    let (name_node, params, param_bounds, _) = type_head(cx, lhs)?;
    let target: TypeExpr = type_expr(cx, rhs)?;
    Some(StructDef {
        name: cx.text(name_node).to_string(),
        name_range: name_node.range,
        params,
        param_bounds,
        supertype: None,
        fields: Vec::new(),
        const_fields: Vec::new(),
        mutable: false,
        is_abstract: false,
        inner_constructors: false,
        alias: Some(target),
        range: node.range,
    })
}
