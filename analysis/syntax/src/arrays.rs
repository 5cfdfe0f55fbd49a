//! Array literals and indexing. The parser has already read the brackets the way Julia does,
//! whitespace-sensitively: `[1.0 -0.3]` is a row of two elements (`hcat`), `[1.0 - 0.3]` one
//! element (`vect`), `[a b; c d]` rows (`vcat`).

use crate::ast::{BinOp, Expr, ExprKind, KeywordArg, TextRange, UnOp};
use crate::cx::{error_expr, Cx};
use crate::expr::expr;
use crate::kind::Kind;
use crate::tree::SyntaxNode;

/// `[a, b, c]`.
pub(crate) fn vect(cx: &mut Cx, node: &SyntaxNode) -> Expr {
    let elements = node.children.iter().map(|e| element(cx, e)).collect();
    Expr::new(ExprKind::Vect(elements), node.range)
}

/// `[a b c]`: one row of a matrix.
pub(crate) fn hcat(cx: &mut Cx, node: &SyntaxNode) -> Expr {
    hcat_of(cx, &node.children, node.range)
}

/// [`hcat`] of these elements.
fn hcat_of(cx: &mut Cx, elements: &[SyntaxNode], range: TextRange) -> Expr {
    let row = elements.iter().map(|e| element(cx, e)).collect();
    Expr::new(ExprKind::Matrix(vec![row]), range)
}

/// `[a b; c d]` (rows separated by `;` or newlines), or `[a; b]`: Julia's `vcat(a, b)` (a
/// vector literal when every element is a number).
pub(crate) fn vcat(cx: &mut Cx, node: &SyntaxNode) -> Expr {
    vcat_of(cx, &node.children, node.range)
}

/// [`vcat`] of these rows.
fn vcat_of(cx: &mut Cx, children: &[SyntaxNode], range: TextRange) -> Expr {
    let rows: Vec<Vec<Expr>> = children
        .iter()
        .map(|row| match (row.leaf, row.kind) {
            (false, Kind::Row) => row.children.iter().map(|e| element(cx, e)).collect(),
            _ => vec![element(cx, row)],
        })
        .collect();
    if children.iter().all(|row| row.leaf || row.kind != Kind::Row) {
        let column: Vec<Expr> = rows.into_iter().flatten().collect();
        if column.iter().all(is_number) {
            return Expr::new(ExprKind::Vect(column), range);
        }
        return Expr::call("Base.vcat", column, range);
    }
    Expr::new(ExprKind::Matrix(rows), range)
}

/// `[a;; b]`, `[a;;; b]`, `[1;2;;3;4]`, `[1 2;;; 3 4]` (Julia's `hvncat`): each part
/// concatenated along the dimension of the separators around it, innermost first, `;`
/// (dimension 1) as `vcat`, `;;` as `hcat` and `;;;`... as `cat(...; dims = d)`.
pub(crate) fn ncat(cx: &mut Cx, node: &SyntaxNode) -> Expr {
    if node.children.is_empty() {
        return cx.unsupported(node, "an empty `[;;]` (its element type would be Any)");
    }
    cat_along(cx, node.dim(), &node.children, node.range)
}

/// The parts of an `ncat` literal concatenated along dimension `d`.
fn cat_along(cx: &mut Cx, d: usize, parts: &[SyntaxNode], range: TextRange) -> Expr {
    if d <= 1 {
        return vcat_of(cx, parts, range);
    }
    let parts: Vec<Expr> = parts
        .iter()
        .map(|p| match (p.leaf, p.kind) {
            (false, Kind::Row) => hcat_of(cx, &p.children, p.range),
            (false, Kind::Nrow) => cat_along(cx, p.dim(), &p.children, p.range),
            _ => element(cx, p),
        })
        .collect();
    if d == 2 {
        return Expr::new(ExprKind::Matrix(vec![parts]), range);
    }
    let callee = Box::new(Expr::new(ExprKind::Ident("Base.cat".into()), range));
    let dims = KeywordArg::Named {
        name: "dims".into(),
        value: Expr::new(ExprKind::Int(d as i64), range),
        range,
    };
    let kind = ExprKind::KwCall {
        callee,
        args: parts,
        keywords: vec![dims],
    };
    Expr::new(kind, range)
}

/// The number types a typed row `T[a b]` may name (Julia's, held as arrays of their own).
const ROW_TYPES: &[&str] = &[
    "Float64", "Int", "Int64", "Float32", "Bool", "Int8", "Int16", "Int32", "UInt8", "UInt16",
    "UInt32", "UInt64", "Int128", "UInt128",
];

/// `Float64[1 2; 3 4]`, `Int[x y]`, `Float64[x; y]`, `Rational{Int}[0.5 2]` (Julia's
/// `typed_hvcat`, `typed_hcat`, `typed_vcat`): the concatenation without the type, its
/// elements then converted, as the prelude's `_typed_cat(T, A)`. A row needs a number type in
/// front, or a `where` variable of an enclosing method (`T[1 -2]`; `x[i -1]`, a typo for
/// `x[i - 1]`, stays refused); a column takes any name, as Julia's `typed_vcat` (a type
/// variable `T[a; b]` of a method `where {T}`).
pub(crate) fn typed_cat(cx: &mut Cx, node: &SyntaxNode) -> Option<Expr> {
    let untyped = match node.kind {
        Kind::TypedHcat => Kind::Hcat,
        Kind::TypedVcat => Kind::Vcat,
        _ => return None,
    };
    let (ty, parts) = node.children.split_first()?;
    let is_rational = !ty.leaf && ty.kind == Kind::Curly && crate::expr::is_int_rational(cx, ty);
    let is_type = is_rational
        || ty.leaf
            && ty.kind == Kind::Identifier
            && (untyped == Kind::Vcat
                || ROW_TYPES.contains(&cx.text(ty))
                || cx.type_vars.iter().any(|v| v == cx.text(ty)));
    if !is_type {
        return None;
    }
    let literal = if untyped == Kind::Hcat {
        hcat_of(cx, parts, node.range)
    } else {
        vcat_of(cx, parts, node.range)
    };
    let callee = Box::new(Expr::new(ExprKind::Ident("_typed_cat".into()), ty.range));
    let args = vec![expr(cx, ty), literal];
    Some(Expr::new(ExprKind::Call { callee, args }, node.range))
}

/// A numeric literal, possibly negated: vertical concatenation of these is a vector.
fn is_number(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Int(_) | ExprKind::Float(_) => true,
        ExprKind::Unary {
            op: UnOp::Neg | UnOp::Plus,
            arg,
        } => is_number(arg),
        _ => false,
    }
}

/// One element of an array literal.
fn element(cx: &mut Cx, node: &SyntaxNode) -> Expr {
    match (node.leaf, node.kind) {
        (false, Kind::Assign) => cx.unsupported(node, "assignment inside an array literal"),
        (false, Kind::Parameters) => cx.unsupported(node, "`;` inside a vector literal"),
        // `[xs..., y]`: Julia's `Base.vect(xs..., y)`.
        (false, Kind::Splat) => crate::expr::splat_item(cx, node),
        _ => expr(cx, node),
    }
}

/// `x[i]`, `A[i, j]`, `r[]`.
pub(crate) fn index(cx: &mut Cx, node: &SyntaxNode) -> Expr {
    let Some((base, indices)) = node.children.split_first() else {
        return error_expr(node);
    };
    let base = expr(cx, base);
    cx.in_index += 1;
    let indices = indices
        .iter()
        .map(|i| match (i.leaf, i.kind) {
            (false, Kind::Parameters) => cx.unsupported(i, "`;` inside indexing brackets"),
            (false, Kind::Assign) => cx.unsupported(i, "keyword arguments"),
            _ => expr(cx, i),
        })
        .collect();
    cx.in_index -= 1;
    Expr::new(
        ExprKind::Index {
            base: Box::new(base),
            indices,
        },
        node.range,
    )
}

/// Library functions whose result is a new array (or a number, or an immutable range) that
/// nothing else refers to.
const FRESH_RESULTS: &[&str] = &[
    "copy",
    "collect",
    "zeros",
    "ones",
    "fill",
    "vcat",
    "Base.vcat",
    "hcat",
    "similar",
    "map",
    "sort",
    "reverse",
    "cumsum",
    "cumprod",
    "diff",
    "deepcopy",
    "range",
    "LinRange",
    // Reductions with `dims` make new arrays.
    "sum",
    "prod",
    "maximum",
    "minimum",
    "permutedims",
];

/// Is `e` an array that no variable, field or other array shares memory with (a slice, which
/// Julia copies, an arithmetic or broadcast result, a literal, `copy(x)`)? Julia's `reshape`
/// and `vec` share their argument's memory; of these a copy is the same (and a plain `Array`),
/// of anything else lowering calls the prelude's view with the new shape (`_reshape_shared`).
/// (Under `@views` a slice is a view: the prelude's `reshape` of a `SubArray` reshapes it.)
pub(crate) fn is_fresh_array(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Vect(_) | ExprKind::Matrix(_) | ExprKind::Range { .. } => true,
        ExprKind::DotCall { .. } | ExprKind::Index { .. } => true,
        ExprKind::Binary { op, .. } => !matches!(
            op,
            BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge | BinOp::Eq | BinOp::Ne
        ),
        // `a - b + c`: arithmetic (comparisons never fold).
        ExprKind::Fold { .. } => true,
        ExprKind::Unary { op, .. } => *op == UnOp::Neg,
        ExprKind::Call { callee, args } | ExprKind::KwCall { callee, args, .. } => {
            match &callee.kind {
                ExprKind::Ident(name) if FRESH_RESULTS.contains(&name.as_str()) => true,
                // An operator chain `a + b + c` (one call, as Julia parses it).
                ExprKind::Ident(name) if name == "+" || name == "*" => args.len() > 1,
                // A reshape of a fresh array is one too.
                ExprKind::Ident(name)
                    if name == "reshape" || name == "vec" || name == "dropdims" =>
                {
                    args.first().is_some_and(is_fresh_array)
                }
                _ => false,
            }
        }
        _ => false,
    }
}
