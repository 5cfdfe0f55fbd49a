//! Types written as values (`Vector{Float64}` in `T == Vector{Float64}` or `x isa
//! AbstractVector{<:Real}`): a name holding the type's text, which inference reads back as the
//! type, as it reads `Float64` or `Real`.

use crate::ast::{Expr, ExprKind};
use crate::cx::{error_expr, Cx};
use crate::items::{type_expr, value_param};
use crate::kind::Kind;
use crate::tree::SyntaxNode;

/// `Name{P, ...}` in an expression: the name `Name{P, ...}` as Julia prints the type (one space
/// after each comma, `<:B` for a bounded parameter).
pub(crate) fn type_value(cx: &mut Cx, node: &SyntaxNode) -> Expr {
    if let Some(applied) = computed_params(cx, node) {
        return applied;
    }
    match value_text(cx, node) {
        Some(t) => Expr::new(ExprKind::Ident(t), node.range),
        None => error_expr(node),
    }
}

/// `Dual{promote_type(T, S)}`: a parametric type whose parameters are computed, as the call
/// `Base._apply_type(Dual, promote_type(T, S))` (Julia's `Core.apply_type`), which inference
/// folds when the parameters are type values. `None` when every parameter is written as a type.
fn computed_params(cx: &mut Cx, node: &SyntaxNode) -> Option<Expr> {
    let (false, Kind::Curly, [base, params @ ..]) =
        (node.leaf, node.kind, node.children.as_slice())
    else {
        return None;
    };
    let computed = |p: &SyntaxNode| {
        !p.leaf
            && p.kind == Kind::Call
            && !p.is_infix()
            && p.children.first().is_some_and(|c| cx.text(c) != "typeof")
    };
    if !params.iter().any(computed) {
        return None;
    }
    let mut args = vec![crate::expr::expr(cx, base)];
    args.extend(params.iter().map(|p| crate::expr::expr(cx, p)));
    let callee = Expr::new(ExprKind::Ident("Base._apply_type".into()), base.range);
    Some(Expr::new(
        ExprKind::Call {
            callee: Box::new(callee),
            args,
        },
        node.range,
    ))
}

/// The text of a type in an expression, where a parameter may also be a number of dimensions
/// (`Array{Float64, 1}`) or another value (`Val{:a}`); `None` once a part is reported.
fn value_text(cx: &mut Cx, node: &SyntaxNode) -> Option<String> {
    if let Some(value) = value_param(cx, node) {
        return Some(value);
    }
    match (node.leaf, node.kind, node.children.as_slice()) {
        (false, Kind::Curly, [base, names, types])
            if base.leaf && cx.text(base) == "NamedTuple" && names.kind == Kind::Tuple =>
        {
            named_tuple_text(cx, node, names, types)
        }
        (false, Kind::Curly, [base, n, t]) if base.leaf && cx.text(base) == "NTuple" => {
            ntuple_text(cx, node, n, t)
        }
        (false, Kind::Curly, [base, params @ ..]) if !params.is_empty() => {
            let base = type_expr(cx, base)?;
            let mut parts = Vec::new();
            for p in params {
                parts.push(value_text(cx, p)?);
            }
            Some(format!("{}{{{}}}", base.value_text(), parts.join(", ")))
        }
        _ => type_expr(cx, node).map(|t| t.value_text()),
    }
}

/// `NTuple{n, T}` with a literal length: the text `Tuple{T, ..., T}`, Julia's same type;
/// `None` once a part is reported.
fn ntuple_text(cx: &mut Cx, node: &SyntaxNode, n: &SyntaxNode, t: &SyntaxNode) -> Option<String> {
    let count = (n.leaf && n.kind == Kind::Integer)
        .then(|| cx.text(n).replace('_', "").parse::<usize>().ok())
        .flatten()
        .filter(|&count| count <= 64);
    let Some(count) = count else {
        cx.unsupported(
            node,
            "`NTuple{N, T}` with a length that is not a literal up to 64 (a tuple's length is \
             part of its type); write the length `NTuple{3, Float64}`",
        );
        return None;
    };
    let t = value_text(cx, t)?;
    Some(format!("Tuple{{{}}}", vec![t; count].join(", ")))
}

/// `NamedTuple{(:a, :b), Tuple{A, B}}`: the text `@NamedTuple{a::A, b::B}`, as Julia prints
/// the type; `None` once a part is reported.
fn named_tuple_text(
    cx: &mut Cx,
    node: &SyntaxNode,
    names: &SyntaxNode,
    types: &SyntaxNode,
) -> Option<String> {
    let names: Option<Vec<String>> = names
        .children
        .iter()
        .map(|n| value_param(cx, n).and_then(|v| v.strip_prefix(':').map(str::to_string)))
        .collect();
    let types = match (types.leaf, types.kind, types.children.as_slice()) {
        (false, Kind::Curly, [base, ts @ ..]) if base.leaf && cx.text(base) == "Tuple" => ts,
        _ => &[],
    };
    match names {
        Some(names) if names.len() == types.len() => {
            let mut fields = Vec::new();
            for (name, t) in names.iter().zip(types) {
                fields.push(format!("{name}::{}", value_text(cx, t)?));
            }
            Some(format!("@NamedTuple{{{}}}", fields.join(", ")))
        }
        _ => {
            cx.unsupported(
                node,
                "`NamedTuple{names, types}` other than `NamedTuple{(:a, :b), Tuple{A, B}}`",
            );
            None
        }
    }
}

/// `A <: B` of two types (`T <: Real`, `typeof(x) <: AbstractVector`): a call of `<:`, which
/// inference decides; `B >: A` is `A <: B`. A bound alone (`<:Real`) is refused here.
pub(crate) fn subtype(cx: &mut Cx, node: &SyntaxNode) -> Expr {
    let op = if node.kind == Kind::Subtype {
        "<:"
    } else {
        ">:"
    };
    let [a, b] = node.children.as_slice() else {
        return cx.unsupported(node, &format!("operator `{op}`"));
    };
    let (a, b) = (crate::expr::expr(cx, a), crate::expr::expr(cx, b));
    let args = if node.kind == Kind::Subtype {
        vec![a, b]
    } else {
        vec![b, a]
    };
    Expr::call("<:", args, node.range)
}
