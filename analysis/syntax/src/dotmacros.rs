//! The array macros numerical code sprinkles: `@. e` (`@__dot__`), which dots every call,
//! operator and assignment of `e` as Julia's `Base.Broadcast.@__dot__` does, and `@views e`,
//! under which a slice `x[I]` read in `e` is a view of `x` ([`ExprKind::Views`]), and `@view
//! x[I]`, the view of one slice.

use crate::ast::{Expr, ExprKind};
use crate::cx::Cx;
use crate::expr::expr;
use crate::kind::Kind;
use crate::tree::SyntaxNode;

/// The expansion of the macro call `node` named `name`, if it is one of these.
pub(crate) fn expand(cx: &mut Cx, node: &SyntaxNode, name: &str) -> Option<Expr> {
    let dot = match name {
        "@." | "@__dot__" => true,
        "@views" | "@view" => false,
        _ => return None,
    };
    let [_, arg] = node.children.as_slice() else {
        let message = format!("unsupported: {name} with other than one expression");
        return Some(cx.unsupported(node, &message));
    };
    if name == "@view" && arg.kind != Kind::Ref {
        // Julia's own error when it expands the macro: `@view` takes one indexing expression.
        let message = "ArgumentError: Invalid use of @view macro: argument must be a reference \
                       expression A[...].";
        return Some(cx.syntax(node, message));
    }
    let e = expr(cx, arg);
    Some(if dot {
        dotted(e)
    } else {
        Expr::new(ExprKind::Views(Box::new(e)), node.range)
    })
}

/// `e` with every call, operator and assignment dotted (`f(x) + y` is `f.(x) .+ y`, `x = v`
/// is `x .= v`, `x += v` is `x .+= v`). Function bodies and `for` headers are left alone, as
/// Julia leaves them; indexing, unary operators, ranges and comparison chains keep their
/// meaning, which the dotted forms share for the values zy has.
fn dotted(e: Expr) -> Expr {
    let d = |b: Box<Expr>| Box::new(dotted(*b));
    let all = |v: Vec<Expr>| v.into_iter().map(dotted).collect::<Vec<_>>();
    let kind = match e.kind {
        // `one(eltype(x))` under `@.`: Julia fuses `one.(eltype.(x))`, which gives each
        // element's type; zy's arrays have one element type, the array's, so the undotted
        // call is the same value without an array of types (which zy's arrays cannot hold).
        ExprKind::Call { callee, args } if is_type_of(&callee) => ExprKind::Call {
            callee,
            args: all(args),
        },
        ExprKind::Call { callee, args } | ExprKind::DotCall { callee, args } => ExprKind::DotCall {
            callee,
            args: all(args),
        },
        ExprKind::Binary { op, lhs, rhs, .. } => ExprKind::Binary {
            op,
            dotted: true,
            lhs: d(lhs),
            rhs: d(rhs),
        },
        ExprKind::Fold { first, rest, .. } => ExprKind::Fold {
            first: d(first),
            rest: rest.into_iter().map(|(op, e)| (op, dotted(e))).collect(),
            dotted: true,
        },
        ExprKind::Assign { lhs, rhs } if assignable(&lhs) => ExprKind::DotAssign {
            lhs: d(lhs),
            rhs: d(rhs),
        },
        ExprKind::DotAssign { lhs, rhs } => ExprKind::DotAssign {
            lhs: d(lhs),
            rhs: d(rhs),
        },
        ExprKind::CompoundAssign { op, lhs, rhs, .. } => ExprKind::CompoundAssign {
            op,
            dotted: true,
            lhs: d(lhs),
            rhs: d(rhs),
        },
        ExprKind::Unary { op, arg } => ExprKind::Unary { op, arg: d(arg) },
        ExprKind::Tuple(es) => ExprKind::Tuple(all(es)),
        ExprKind::Vect(es) => ExprKind::Vect(all(es)),
        ExprKind::Block(es) => ExprKind::Block(all(es)),
        ExprKind::Matrix(rows) => ExprKind::Matrix(rows.into_iter().map(all).collect()),
        ExprKind::Index { base, indices } => ExprKind::Index {
            base: d(base),
            indices: all(indices),
        },
        ExprKind::Ternary { cond, then, els } => ExprKind::Ternary {
            cond: d(cond),
            then: d(then),
            els: d(els),
        },
        ExprKind::If { branches, els } => ExprKind::If {
            branches: branches
                .into_iter()
                .map(|(c, body)| (dotted(c), all(body)))
                .collect(),
            els: els.map(all),
        },
        ExprKind::Checkpoint { snapshots, looped } => ExprKind::Checkpoint {
            snapshots,
            looped: d(looped),
        },
        ExprKind::While { cond, body } => ExprKind::While {
            cond: d(cond),
            body: all(body),
        },
        ExprKind::For {
            var,
            iter,
            body,
            inner,
            outer,
        } => ExprKind::For {
            var,
            iter,
            body: all(body),
            inner,
            outer,
        },
        ExprKind::Let { var, value, body } => ExprKind::Let {
            var,
            value: value.map(d),
            body: all(body),
        },
        ExprKind::Narrow { var, value, body } => ExprKind::Narrow {
            var,
            value,
            body: all(body),
        },
        ExprKind::Try {
            body,
            var,
            catch,
            els,
            finally,
        } => ExprKind::Try {
            body: all(body),
            var,
            catch: catch.map(all),
            els: els.map(all),
            finally: finally.map(all),
        },
        ExprKind::Return(Some(v)) => ExprKind::Return(Some(d(v))),
        ExprKind::Views(inner) => ExprKind::Views(d(inner)),
        kind => kind,
    };
    Expr::new(kind, e.range)
}

/// Can `e` be the target of `.=` (a name, a field, an indexing)?
fn assignable(e: &Expr) -> bool {
    matches!(
        e.kind,
        ExprKind::Ident(_) | ExprKind::Field { .. } | ExprKind::Index { .. }
    )
}

/// Is `callee` `eltype` or `typeof`, whose result is a type?
fn is_type_of(callee: &Expr) -> bool {
    matches!(&callee.kind, ExprKind::Ident(n) if n == "eltype" || n == "typeof")
}
