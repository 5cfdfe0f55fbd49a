//! Array literals and indexing. Inside brackets Julia is whitespace-sensitive: `[1.0 -0.3]` is
//! a 1×2 matrix (a `+`/`-` with a space before and none after starts a new element) while
//! `[1.0 - 0.3]` and `[1.0-0.3]` are one element. The grammar reads all three as a subtraction,
//! so such elements are split at those operators and the pieces parsed again (tree-sitter's
//! included ranges keep the byte offsets of the file).

use tree_sitter::{Node, Point, Range};

use crate::ast::{Expr, ExprKind, TextRange, UnOp};
use crate::cx::{error_expr, kids, range, Cx, MAX_REPARSE_DEPTH};
use crate::expr::expr;
use crate::ts_parser as parser;

/// `[a, b, c]`, or `[a -b]` (one row of a matrix).
pub(crate) fn vector(cx: &mut Cx, node: Node) -> Expr {
    let parts = kids(node);
    if let [single] = parts.as_slice() {
        let row = row_elements(cx, *single);
        if row.len() > 1 {
            return Expr::new(ExprKind::Matrix(vec![row]), range(node));
        }
        return Expr::new(ExprKind::Vect(row), range(node));
    }
    Expr::new(
        ExprKind::Vect(elements(cx, &parts, List::Vector)),
        range(node),
    )
}

/// `[a b; c d]`, rows separated by `;` or newlines.
pub(crate) fn matrix(cx: &mut Cx, node: Node) -> Expr {
    let mut rows = Vec::new();
    let mut gap_start = node.start_byte();
    for row in kids(node) {
        if row.kind() != "matrix_row" {
            return error_expr(node);
        }
        // The row separators are hidden tokens: `;;` (concatenation along the second
        // dimension) is only visible in the text between rows.
        if cx
            .src
            .get(gap_start..row.start_byte())
            .is_some_and(|gap| gap.contains(";;"))
        {
            return cx.unsupported(node, "`;;` concatenation");
        }
        gap_start = row.end_byte();
        let mut elements = Vec::new();
        for element in kids(row) {
            elements.extend(row_elements(cx, element));
        }
        rows.push(elements);
    }
    if rows.iter().all(|row| row.len() == 1) {
        let column: Vec<Expr> = rows.into_iter().flatten().collect();
        if column.iter().all(is_number) {
            return Expr::new(ExprKind::Vect(column), range(node));
        }
        return cx.unsupported(
            node,
            "vertical concatenation `[a; b]` (write `[a, b]` for a vector)",
        );
    }
    Expr::new(ExprKind::Matrix(rows), range(node))
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

/// `x[i]`, `A[i, j]`, `r[]`.
pub(crate) fn index(cx: &mut Cx, node: Node, parts: &[Node]) -> Expr {
    let [base, brackets] = parts else {
        return error_expr(node);
    };
    if brackets.kind() != "vector_expression" {
        return cx.unsupported(*brackets, "concatenation inside indexing brackets");
    }
    let base = expr(cx, *base);
    cx.in_index += 1;
    let indices = elements(cx, &kids(*brackets), List::Index);
    cx.in_index -= 1;
    Expr::new(
        ExprKind::Index {
            base: Box::new(base),
            indices,
        },
        range(node),
    )
}

/// Where comma-separated elements are: a space-separated `-`/`+` means something else there.
#[derive(Clone, Copy)]
enum List {
    /// `[a, b]`: Julia rejects `[a -b, c]`.
    Vector,
    /// `x[i, j]`: Julia reads `x[i -1]` as a concatenation, not an index.
    Index,
}

/// Comma-separated elements (or indices).
fn elements(cx: &mut Cx, parts: &[Node], list: List) -> Vec<Expr> {
    let mut out = Vec::new();
    for part in parts {
        let mut points = Vec::new();
        split_points(cx, *part, &mut points);
        let Some(point) = points.first() else {
            out.push(element(cx, *part));
            continue;
        };
        let at = TextRange::new(point.0 as u32, point.0 as u32 + 1);
        match list {
            List::Vector => cx.push(
                at,
                "syntax-error",
                "syntax error: unexpected comma in a matrix expression (write `a - b` for a \
                 subtraction or `a, -b` for two elements)"
                    .to_string(),
            ),
            List::Index => cx.push(
                at,
                "unsupported",
                "unsupported: concatenation in indexing brackets (write `i - 1` for a subtraction)"
                    .to_string(),
            ),
        }
        out.push(error_expr(*part));
    }
    out
}

/// One element node, or several if it holds space-separated `-`/`+` elements.
fn row_elements(cx: &mut Cx, node: Node) -> Vec<Expr> {
    let mut points = Vec::new();
    split_points(cx, node, &mut points);
    if points.is_empty() {
        return vec![element(cx, node)];
    }
    points.sort_unstable_by_key(|p| p.0);
    let mut bounds = vec![(node.start_byte(), node.start_position())];
    bounds.extend(points);
    bounds.push((node.end_byte(), node.end_position()));
    bounds
        .windows(2)
        .map(|w| reparse(cx, node, w[0], w[1]))
        .collect()
}

fn element(cx: &mut Cx, node: Node) -> Expr {
    match node.kind() {
        "assignment" => cx.unsupported(node, "assignment inside an array literal"),
        _ => expr(cx, node),
    }
}

/// The start bytes of the operators in `node` (outside any bracket) that Julia reads as the
/// sign of a new element: `+`/`-` (or dotted) with whitespace before and none after.
fn split_points(cx: &Cx, node: Node, out: &mut Vec<(usize, Point)>) {
    let mut stack = vec![node];
    while let Some(n) = stack.pop() {
        let parts = kids(n);
        match (n.kind(), parts.as_slice()) {
            ("binary_expression", [lhs, op, rhs]) => {
                let text = cx.text(*op);
                let bytes = cx.src.as_bytes();
                let before = op.start_byte().checked_sub(1).and_then(|i| bytes.get(i));
                let after = bytes.get(op.end_byte());
                if matches!(text, "+" | "-" | ".+" | ".-" | "−")
                    && before.is_some_and(|b| b.is_ascii_whitespace())
                    && after.is_some_and(|b| !b.is_ascii_whitespace())
                {
                    out.push((op.start_byte(), op.start_position()));
                }
                stack.push(*lhs);
                stack.push(*rhs);
            }
            ("range_expression" | "unary_expression" | "juxtaposition_expression", _) => {
                stack.extend(parts)
            }
            _ => {}
        }
    }
}

/// Parses the source between `start` and `end` again as one expression (same byte offsets).
fn reparse(cx: &mut Cx, node: Node, start: (usize, Point), end: (usize, Point)) -> Expr {
    if cx.gave_up {
        return error_expr(node);
    }
    if cx.reparse_depth >= MAX_REPARSE_DEPTH {
        cx.too_deep(node);
        return error_expr(node);
    }
    let piece = Range {
        start_byte: start.0,
        end_byte: end.0,
        start_point: start.1,
        end_point: end.1,
    };
    let tree = match parser::parse(cx.src, Some(&[piece]), &cx.deadline) {
        Ok(tree) => tree,
        Err(parser::Failure::GaveUp) => {
            cx.gave_up = true;
            return error_expr(node);
        }
        Err(parser::Failure::NoGrammar) => {
            return cx.syntax(node, "syntax error: could not parse array element")
        }
    };
    let root = tree.root_node();
    match kids(root).as_slice() {
        [single] if !root.has_error() => {
            cx.reparse_depth += 1;
            let element = expr(cx, *single);
            cx.reparse_depth -= 1;
            element
        }
        _ => cx.syntax(node, "syntax error: invalid array element"),
    }
}
