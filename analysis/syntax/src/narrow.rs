//! Narrowing of a variable by a test, as Julia's inference narrows a union: against `nothing`
//! (`===`, `!==`, `==`, `!=`, `isnothing`) or `missing` (`=== missing`, `ismissing`) where a
//! branch runs only when `v` is not `nothing` (`missing`): `if v !== nothing`, the other way of
//! `v === nothing ? a : b`, `isnothing(v) || b`, the statements after `if v === nothing;
//! return ...; end`; and by `v isa T` (`isa(v, T)`) in the branch where it holds and in the
//! one where it fails. There `v` is rebound to its value seen so ([`ExprKind::Narrow`]:
//! `Base._notnothing(v)`, `Base._nonmissing(v)`, `#narrow_isa(v, T)` or `#narrow_notisa(v, T)`
//! there, what it was after). For any `v` but `findfirst`'s result that is `v` itself. A
//! branch that assigns `v`, or holds a `break` or `continue` (which would leave it with `v`
//! rebound), is left alone; the body of `while v !== nothing` is narrowed up to the statement
//! that assigns `v`.

use crate::ast::{BinOp, Expr, ExprKind, UnOp};
use crate::cx::{span, Cx};
use crate::kind::Kind;
use crate::tree::SyntaxNode;

/// A condition that tells what a variable holds: `var === nothing`, `var === missing` or
/// `var isa T`, or its negation.
pub(crate) struct Test {
    /// The variable tested (an identifier).
    pub var: Expr,
    /// `T` of `var isa T`; `None` for a test against `nothing` or `missing`.
    isa: Option<Expr>,
    /// Whether the test is against `missing` (`ismissing(var)`, `var === missing`).
    missing: bool,
    /// Whether the condition is the test's negation (`!==`, `!=`, `!(v isa T)`).
    negated: bool,
}

impl Test {
    /// What `var` is rebound to where the condition holds (`holds`) or fails, if it is
    /// narrowed there: not where it is `nothing` (`missing`).
    pub(crate) fn value(&self, holds: bool) -> Option<Expr> {
        let positive = holds != self.negated;
        let r = self.var.range;
        match (&self.isa, positive) {
            (None, true) => None,
            (None, false) if self.missing => {
                Some(Expr::call("Base._nonmissing", vec![self.var.clone()], r))
            }
            (None, false) => Some(Expr::call("Base._notnothing", vec![self.var.clone()], r)),
            (Some(t), true) => Some(Expr::call(
                "#narrow_isa",
                vec![self.var.clone(), t.clone()],
                r,
            )),
            (Some(t), false) => Some(Expr::call(
                "#narrow_notisa",
                vec![self.var.clone(), t.clone()],
                r,
            )),
        }
    }
}

/// The test `cond` makes of a variable, if it narrows one.
pub(crate) fn test(cond: &Expr) -> Option<Test> {
    let ident = |e: &Expr| matches!(e.kind, ExprKind::Ident(_)).then(|| e.clone());
    let is_nothing = |e: &Expr| matches!(e.kind, ExprKind::Nothing);
    let is_missing = |e: &Expr| matches!(&e.kind, ExprKind::Ident(m) if m == "missing");
    let of = |var: Expr, isa: Option<Expr>, negated: bool| Test {
        var,
        isa,
        missing: false,
        negated,
    };
    let of_missing = |var: Expr| Test {
        var,
        isa: None,
        missing: true,
        negated: false,
    };
    match &cond.kind {
        ExprKind::Call { callee, args } => match (&callee.kind, args.as_slice()) {
            (ExprKind::Ident(f), [a, b]) if f == "===" && (is_missing(a) || is_missing(b)) => {
                ident(if is_missing(b) { a } else { b }).map(of_missing)
            }
            (ExprKind::Ident(f), [a]) if f == "ismissing" => ident(a).map(of_missing),
            (ExprKind::Ident(f), [a, b]) if f == "===" => {
                if is_nothing(b) {
                    ident(a).map(|v| of(v, None, false))
                } else if is_nothing(a) {
                    ident(b).map(|v| of(v, None, false))
                } else {
                    None
                }
            }
            (ExprKind::Ident(f), [a]) if f == "isnothing" => ident(a).map(|v| of(v, None, false)),
            (ExprKind::Ident(f), [a, t]) if f == "isa" => {
                ident(a).map(|v| of(v, Some(t.clone()), false))
            }
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
            v.map(|v| of(v, None, *op == BinOp::Ne))
        }
        ExprKind::Unary { op: UnOp::Not, arg } => test(arg).map(|t| Test {
            negated: !t.negated,
            ..t
        }),
        _ => None,
    }
}

/// `body` with `v` rebound to `value`, unless a node of `nodes` (the body's syntax) assigns
/// `v` or jumps out of a loop.
pub(crate) fn narrowed(
    cx: &Cx,
    v: &Expr,
    value: Expr,
    body: Vec<Expr>,
    nodes: &[&SyntaxNode],
) -> Vec<Expr> {
    let ExprKind::Ident(name) = &v.kind else {
        return body;
    };
    if body.is_empty() || nodes.iter().any(|n| assigns(cx, n, name)) {
        return body;
    }
    let range = span(body[0].range, body[body.len() - 1].range);
    let var = Box::new(v.clone());
    let value = Box::new(value);
    vec![Expr::new(ExprKind::Narrow { var, value, body }, range)]
}

/// `body` narrowed where `test`'s condition holds (`holds`) or fails, if it narrows there.
pub(crate) fn narrowed_by(
    cx: &Cx,
    test: &Test,
    holds: bool,
    body: Vec<Expr>,
    nodes: &[&SyntaxNode],
) -> Vec<Expr> {
    match test.value(holds) {
        Some(value) => narrowed(cx, &test.var, value, body, nodes),
        None => body,
    }
}

/// The body of `while cond` (`v !== nothing`, `v isa T`): `v` rebound in its statements
/// before the first that assigns it or jumps out of the loop (`it = iterate(x, st)` last), as
/// Julia's inference narrows it there.
pub(crate) fn loop_body(
    cx: &Cx,
    test: &Test,
    mut body: Vec<Expr>,
    nodes: &[SyntaxNode],
) -> Vec<Expr> {
    let (ExprKind::Ident(name), Some(value)) = (&test.var.kind, test.value(true)) else {
        return body;
    };
    if body.len() != nodes.len() {
        return body;
    }
    let k = nodes
        .iter()
        .position(|n| assigns(cx, n, name))
        .unwrap_or(nodes.len());
    let rest = body.split_off(k);
    let before: Vec<&SyntaxNode> = nodes[..k].iter().collect();
    let mut out = narrowed(cx, &test.var, value, body, &before);
    out.extend(rest);
    out
}

/// One expression narrowed (a branch of `?:`, `&&`, `||`) where `test`'s condition holds
/// (`holds`) or fails.
pub(crate) fn narrowed_expr(cx: &Cx, test: &Test, holds: bool, e: Expr, node: &SyntaxNode) -> Expr {
    let range = e.range;
    let mut body = narrowed_by(cx, test, holds, vec![e], &[node]);
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
/// end` (or `v === nothing && return ...`, `v isa T || return ...`), the rest of the block
/// sees `v` rebound.
pub(crate) fn block(cx: &Cx, mut stmts: Vec<Expr>, nodes: &[SyntaxNode]) -> Vec<Expr> {
    for k in 0..stmts.len().saturating_sub(1) {
        let Some((test, holds)) = exit_test(&stmts[k]) else {
            continue;
        };
        let Some(value) = test.value(holds) else {
            continue;
        };
        let rest: Vec<Expr> = stmts.drain(k + 1..).collect();
        let rest_nodes: Vec<&SyntaxNode> = nodes.iter().skip(k + 1).collect();
        let rest = block(cx, rest, &nodes[(k + 1).min(nodes.len())..]);
        stmts.extend(narrowed(cx, &test.var, value, rest, &rest_nodes));
        break;
    }
    stmts
}

/// The test of a statement that leaves the block when its condition holds (`if c; return;
/// end`, `c && return`) or fails (`c || return`), and whether the rest of the block runs
/// when the condition holds.
fn exit_test(stmt: &Expr) -> Option<(Test, bool)> {
    match &stmt.kind {
        ExprKind::If {
            branches,
            els: None,
        } => match branches.as_slice() {
            [(cond, body)] if exits(body) => test(cond).map(|t| (t, false)),
            _ => None,
        },
        ExprKind::And(cond, then) if exits(std::slice::from_ref(then)) => {
            test(cond).map(|t| (t, false))
        }
        ExprKind::Or(cond, then) if exits(std::slice::from_ref(then)) => {
            test(cond).map(|t| (t, true))
        }
        _ => None,
    }
}
