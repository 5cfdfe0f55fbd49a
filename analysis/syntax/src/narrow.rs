//! Narrowing of a variable tested against `nothing` (`===`, `!==`, `==`, `!=`, `isnothing`), as
//! Julia's inference narrows a `Union{Nothing, T}`: where a branch runs only when `v` is not
//! `nothing` (`if v !== nothing`,
//! the other way of `v === nothing ? a : b`, `isnothing(v) || b`, the statements after
//! `if v === nothing; return ...; end`), `v` is rebound there to its value
//! ([`ExprKind::Narrow`]: `Base._notnothing(v)` there, what it was after). For any `v` but
//! `findfirst`'s result that is `v` itself. A branch that assigns `v`, or holds a `break` or
//! `continue` (which would leave it with `v` rebound), is left alone; the body of `while v !==
//! nothing` is narrowed up to the statement that assigns `v`.

use crate::ast::{BinOp, Expr, ExprKind, UnOp};
use crate::cx::{span, Cx};
use crate::kind::Kind;
use crate::tree::SyntaxNode;

/// The variable `cond` compares with `nothing` (its identifier in `cond`), and whether `cond`
/// holds when it is `nothing`.
pub(crate) fn nothing_test(cond: &Expr) -> Option<(Expr, bool)> {
    let ident = |e: &Expr| matches!(e.kind, ExprKind::Ident(_)).then(|| e.clone());
    let is_nothing = |e: &Expr| matches!(e.kind, ExprKind::Nothing);
    match &cond.kind {
        ExprKind::Call { callee, args } => match (&callee.kind, args.as_slice()) {
            (ExprKind::Ident(f), [a, b]) if f == "===" => {
                if is_nothing(b) {
                    ident(a).map(|v| (v, true))
                } else if is_nothing(a) {
                    ident(b).map(|v| (v, true))
                } else {
                    None
                }
            }
            (ExprKind::Ident(f), [a]) if f == "isnothing" => ident(a).map(|v| (v, true)),
            _ => None,
        },
        ExprKind::Binary {
            op: op @ (BinOp::Eq | BinOp::Ne),
            dotted: false,
            lhs,
            rhs,
        } => {
            let v = if is_nothing(rhs) {
                ident(lhs)
            } else if is_nothing(lhs) {
                ident(rhs)
            } else {
                None
            };
            v.map(|v| (v, *op == BinOp::Eq))
        }
        ExprKind::Unary { op: UnOp::Not, arg } => nothing_test(arg).map(|(v, holds)| (v, !holds)),
        _ => None,
    }
}

/// `body` with `v` rebound to its value, unless a node of `nodes` (the body's syntax) assigns
/// `v` or jumps out of a loop.
pub(crate) fn narrowed(cx: &Cx, v: &Expr, body: Vec<Expr>, nodes: &[&SyntaxNode]) -> Vec<Expr> {
    let ExprKind::Ident(name) = &v.kind else {
        return body;
    };
    if body.is_empty() || nodes.iter().any(|n| assigns(cx, n, name)) {
        return body;
    }
    let range = span(body[0].range, body[body.len() - 1].range);
    let var = Box::new(v.clone());
    vec![Expr::new(ExprKind::Narrow { var, body }, range)]
}

/// The body of `while v !== nothing`: `v` rebound in its statements before the first that
/// assigns it or jumps out of the loop (`it = iterate(x, st)` last), as Julia's inference
/// narrows it there.
pub(crate) fn loop_body(cx: &Cx, v: &Expr, mut body: Vec<Expr>, nodes: &[SyntaxNode]) -> Vec<Expr> {
    let ExprKind::Ident(name) = &v.kind else {
        return body;
    };
    if body.len() != nodes.len() {
        return body;
    }
    let k = nodes.iter().position(|n| assigns(cx, n, name)).unwrap_or(nodes.len());
    let rest = body.split_off(k);
    let before: Vec<&SyntaxNode> = nodes[..k].iter().collect();
    let mut out = narrowed(cx, v, body, &before);
    out.extend(rest);
    out
}

/// One expression narrowed (a branch of `?:`, `&&`, `||`).
pub(crate) fn narrowed_expr(cx: &Cx, v: &Expr, e: Expr, node: &SyntaxNode) -> Expr {
    let range = e.range;
    let mut body = narrowed(cx, v, vec![e], &[node]);
    match body.pop() {
        Some(only) if body.is_empty() => only,
        _ => Expr::new(ExprKind::Block(body), range),
    }
}

/// Does `node` (or a node inside it) assign the variable `v` (`v = ...`, `v += ...`,
/// `(a, v) = ...`, `for v in ...`) or `break` or `continue`?
fn assigns(cx: &Cx, node: &SyntaxNode, v: &str) -> bool {
    let names = |n: &SyntaxNode| -> bool {
        if n.leaf {
            return n.kind == Kind::Identifier && cx.text(n) == v;
        }
        n.kind == Kind::Tuple
            && n.children
                .iter()
                .any(|c| c.leaf && c.kind == Kind::Identifier && cx.text(c) == v)
    };
    let here = match node.kind {
        Kind::Assign | Kind::OpAssign | Kind::DotOpAssign | Kind::Iteration => {
            node.children.first().is_some_and(names)
        }
        Kind::Break | Kind::Continue => true,
        _ => false,
    };
    here || (!node.leaf && node.children.iter().any(|c| assigns(cx, c, v)))
}

/// Does the statement always leave the block (`return`, `break`, `continue`, `error(...)`,
/// `throw(...)` last)?
pub(crate) fn exits(body: &[Expr]) -> bool {
    match body.last().map(|e| &e.kind) {
        Some(ExprKind::Return(_) | ExprKind::Break | ExprKind::Continue) => true,
        Some(ExprKind::Call { callee, .. }) => {
            matches!(&callee.kind, ExprKind::Ident(f) if f == "error" || f == "throw")
        }
        _ => false,
    }
}

/// The statements of a block with early exits narrowed: after `if v === nothing ... return
/// end` (or `v === nothing && return ...`), the rest of the block sees `v` rebound.
pub(crate) fn block(cx: &Cx, mut stmts: Vec<Expr>, nodes: &[SyntaxNode]) -> Vec<Expr> {
    for k in 0..stmts.len().saturating_sub(1) {
        let Some(v) = exit_test(&stmts[k]) else {
            continue;
        };
        let rest: Vec<Expr> = stmts.drain(k + 1..).collect();
        let rest_nodes: Vec<&SyntaxNode> = nodes.iter().skip(k + 1).collect();
        let rest = block(cx, rest, &nodes[(k + 1).min(nodes.len())..]);
        stmts.extend(narrowed(cx, &v, rest, &rest_nodes));
        break;
    }
    stmts
}

/// The variable a statement leaves the block for when it is `nothing`.
fn exit_test(stmt: &Expr) -> Option<Expr> {
    match &stmt.kind {
        ExprKind::If {
            branches,
            els: None,
        } => match branches.as_slice() {
            [(cond, body)] if exits(body) => nothing_test(cond).filter(|(_, n)| *n).map(|(v, _)| v),
            _ => None,
        },
        ExprKind::And(cond, then) if exits(std::slice::from_ref(then)) => {
            nothing_test(cond).filter(|(_, n)| *n).map(|(v, _)| v)
        }
        ExprKind::Or(cond, then) if exits(std::slice::from_ref(then)) => {
            nothing_test(cond).filter(|(_, n)| !*n).map(|(v, _)| v)
        }
        _ => None,
    }
}
