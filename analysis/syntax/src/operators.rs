//! Binary operators with Julia's meaning restored where tree-sitter-julia disagrees:
//! `^` is right-associative and a literal coefficient binds looser than `^` (`2x^2` is
//! `2*(x^2)`), comparisons chain (`a < b <= c`), `&&`/`||` short-circuit, ranges take a step.

use tree_sitter::Node;

use crate::ast::{BinOp, Expr, ExprKind};
use crate::cx::{error_expr, kids, range, span, Cx};
use crate::expr::expr;

/// Julia spellings that are the same function as a subset operator.
pub(crate) fn normalize(op: &str) -> &str {
    match op {
        "≤" => "<=",
        "≥" => ">=",
        "≠" => "!=",
        "−" => "-",
        other => other,
    }
}

/// The operator of a binary operator's text, and whether it is dotted (`.+`).
pub(crate) fn binop(text: &str) -> Option<(BinOp, bool)> {
    let (dotted, bare) = match text.strip_prefix('.') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let op = match normalize(bare) {
        "+" => BinOp::Add,
        "-" => BinOp::Sub,
        "*" => BinOp::Mul,
        "/" => BinOp::Div,
        "÷" => BinOp::IntDiv,
        "%" => BinOp::Rem,
        "^" => BinOp::Pow,
        "<" => BinOp::Lt,
        "<=" => BinOp::Le,
        ">" => BinOp::Gt,
        ">=" => BinOp::Ge,
        "==" => BinOp::Eq,
        "!=" => BinOp::Ne,
        _ => return None,
    };
    Some((op, dotted))
}

/// The operator of a compound assignment (`+=` -> `+`, `.*=` -> dotted `*`).
pub(crate) fn compound_op(text: &str) -> Option<(BinOp, bool)> {
    let (op, dotted) = binop(text.strip_suffix('=')?)?;
    matches!(
        op,
        BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div | BinOp::Pow | BinOp::IntDiv | BinOp::Rem
    )
    .then_some((op, dotted))
}

/// The parts of an unparenthesised binary expression node: left, operator text, right.
fn parts<'t>(cx: &Cx<'t>, node: Node<'t>) -> Option<(Node<'t>, &'t str, Node<'t>)> {
    if node.kind() != "binary_expression" || node.has_error() {
        return None;
    }
    match kids(node).as_slice() {
        [lhs, op, rhs] => Some((*lhs, cx.text(*op), *rhs)),
        _ => None,
    }
}

/// A `binary_expression` node.
pub(crate) fn binary(cx: &mut Cx, node: Node) -> Expr {
    let Some((lhs, op_text, rhs)) = parts(cx, node) else {
        return error_expr(node);
    };
    match op_text {
        "&&" => return logical(cx, node, lhs, rhs, ExprKind::And),
        "||" => return logical(cx, node, lhs, rhs, ExprKind::Or),
        _ => {}
    }
    let Some((op, dotted)) = binop(op_text) else {
        let op_node = kids(node)[1];
        return cx.unsupported(op_node, &format!("operator `{op_text}`"));
    };
    if op == BinOp::Pow {
        return power(cx, node);
    }
    if op.is_comparison() {
        return comparison(cx, node);
    }
    let lhs = expr(cx, lhs);
    let rhs = expr(cx, rhs);
    Expr::new(
        ExprKind::Binary {
            op,
            dotted,
            lhs: Box::new(lhs),
            rhs: Box::new(rhs),
        },
        range(node),
    )
}

fn logical(
    cx: &mut Cx,
    node: Node,
    lhs: Node,
    rhs: Node,
    make: fn(Box<Expr>, Box<Expr>) -> ExprKind,
) -> Expr {
    let lhs = expr(cx, lhs);
    let rhs = expr(cx, rhs);
    Expr::new(make(Box::new(lhs), Box::new(rhs)), range(node))
}

/// `a ^ b ^ c`: the grammar nests to the left, Julia to the right; a literal coefficient on the
/// base (`2x^2`) multiplies the power.
fn power(cx: &mut Cx, node: Node) -> Expr {
    // Walk down the left spine of `^`: ((base ^ e1) ^ e2) ^ e3.
    let mut exponents = Vec::new();
    let mut base = node;
    while let Some((lhs, op_text, rhs)) = parts(cx, base) {
        match binop(op_text) {
            Some((BinOp::Pow, dotted)) => exponents.push((dotted, rhs)),
            _ => break,
        }
        base = lhs;
    }
    exponents.reverse();
    // The result nests as deep as the chain is long.
    if !cx.enter_many(node, exponents.len()) {
        return error_expr(node);
    }
    let result = right_associate(cx, node, base, &exponents);
    cx.leave_many(exponents.len());
    result
}

/// `base ^ e1 ^ e2 ^ e3` as `base ^ (e1 ^ (e2 ^ e3))`, with a literal coefficient of the base
/// pulled out.
fn right_associate(cx: &mut Cx, node: Node, base: Node, exponents: &[(bool, Node)]) -> Expr {
    let mut converted: Vec<(bool, Expr)> = exponents
        .iter()
        .map(|(dotted, e)| (*dotted, expr(cx, *e)))
        .collect();
    let Some((mut dotted, mut acc)) = converted.pop() else {
        return error_expr(node);
    };
    while let Some((prev_dotted, operand)) = converted.pop() {
        acc = pow(operand, acc, dotted);
        dotted = prev_dotted;
    }
    let coefficient = match kids(base).as_slice() {
        [coefficient, factor] if base.kind() == "juxtaposition_expression" && !base.has_error() => {
            Some((*coefficient, *factor))
        }
        _ => None,
    };
    match coefficient {
        Some((coefficient, factor)) => {
            let coefficient = expr(cx, coefficient);
            let factor = expr(cx, factor);
            let power = pow(factor, acc, dotted);
            let kind = ExprKind::Binary {
                op: BinOp::Mul,
                dotted: false,
                lhs: Box::new(coefficient),
                rhs: Box::new(power),
            };
            Expr::new(kind, range(node))
        }
        None => {
            let base = expr(cx, base);
            let mut result = pow(base, acc, dotted);
            result.range = range(node);
            result
        }
    }
}

fn pow(base: Expr, exponent: Expr, dotted: bool) -> Expr {
    let r = span(base.range, exponent.range);
    Expr::new(
        ExprKind::Binary {
            op: BinOp::Pow,
            dotted,
            lhs: Box::new(base),
            rhs: Box::new(exponent),
        },
        r,
    )
}

/// `a < b`, or a chain `a < b <= c` (the grammar nests chains to the left).
fn comparison(cx: &mut Cx, node: Node) -> Expr {
    let mut rest = Vec::new();
    let mut first = node;
    while let Some((lhs, op_text, rhs)) = parts(cx, first) {
        match binop(op_text) {
            Some((op, dotted)) if op.is_comparison() => rest.push((op, dotted, rhs)),
            _ => break,
        }
        first = lhs;
    }
    rest.reverse();
    if let [(op, dotted, rhs)] = rest.as_slice() {
        let lhs = expr(cx, first);
        let rhs = expr(cx, *rhs);
        return Expr::new(
            ExprKind::Binary {
                op: *op,
                dotted: *dotted,
                lhs: Box::new(lhs),
                rhs: Box::new(rhs),
            },
            range(node),
        );
    }
    if rest.iter().any(|(_, dotted, _)| *dotted) {
        return cx.unsupported(node, "chained dotted comparison");
    }
    let first = expr(cx, first);
    let rest = rest
        .into_iter()
        .map(|(op, _, rhs)| (op, expr(cx, rhs)))
        .collect();
    Expr::new(
        ExprKind::Chain {
            first: Box::new(first),
            rest,
        },
        range(node),
    )
}

/// `a:b` or `a:s:b` (the grammar nests the step form as `(a:s):b`).
pub(crate) fn range_expr(cx: &mut Cx, node: Node) -> Expr {
    let parts = kids(node);
    let [lhs, stop] = parts.as_slice() else {
        return error_expr(node);
    };
    let (start, step) = match kids(*lhs).as_slice() {
        [start, step] if lhs.kind() == "range_expression" && !lhs.has_error() => {
            if kids(*start).len() == 2 && start.kind() == "range_expression" {
                return cx.unsupported(node, "range with more than three parts");
            }
            (expr(cx, *start), Some(Box::new(expr(cx, *step))))
        }
        _ => (expr(cx, *lhs), None),
    };
    let stop = expr(cx, *stop);
    Expr::new(
        ExprKind::Range {
            start: Box::new(start),
            step,
            stop: Box::new(stop),
        },
        range(node),
    )
}
