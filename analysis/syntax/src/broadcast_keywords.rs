//! `f.(args...; kw = v)`: a broadcast call with keyword arguments. Julia broadcasts the
//! closure `(a...) -> f(a...; kw = v)` with the keyword values (and the callee) evaluated once,
//! before the broadcast; zy writes exactly that: `let`s binding what is not a literal or a name,
//! around a `DotCall` of an anonymous function whose body is the keyword call.

use crate::ast::{Expr, ExprKind, KeywordArg, Param, TextRange};
use crate::items::anonymous;

/// The broadcast of `callee` over `args` with `keywords` passed to every call.
pub(crate) fn keyword_broadcast(
    callee: Expr,
    args: Vec<Expr>,
    keywords: Vec<KeywordArg>,
    range: TextRange,
) -> Expr {
    let mut bindings = Vec::new();
    let mut once = |value: Expr| -> Expr {
        if is_simple(&value) {
            return value;
        }
        let name = format!("#bkw{}", bindings.len() + 1);
        let var = Expr::new(ExprKind::Ident(name), value.range);
        bindings.push((var.clone(), value));
        var
    };
    let callee = once(callee);
    let keywords: Vec<KeywordArg> = keywords
        .into_iter()
        .map(|k| match k {
            KeywordArg::Named { name, value, range } => KeywordArg::Named {
                name,
                value: once(value),
                range,
            },
            KeywordArg::Splat(value) => KeywordArg::Splat(once(value)),
        })
        .collect();
    let params: Vec<Param> = (1..=args.len())
        .map(|k| Param {
            name: Some(format!("#barg{k}")),
            ty: None,
            default: None,
            varargs: false,
            range,
        })
        .collect();
    let passed = params
        .iter()
        .filter_map(|p| p.name.clone())
        .map(|name| Expr::new(ExprKind::Ident(name), range))
        .collect();
    let call = ExprKind::KwCall {
        callee: Box::new(callee),
        args: passed,
        keywords,
    };
    let closure = anonymous(range, range, params, vec![Expr::new(call, range)]);
    let broadcast = ExprKind::DotCall {
        callee: Box::new(closure),
        args,
    };
    let_bound(bindings, Expr::new(broadcast, range))
}

/// `body` inside `let var = value` for each binding, the first outermost: the values are
/// evaluated once, in order, before `body`.
pub(crate) fn let_bound(bindings: Vec<(Expr, Expr)>, body: Expr) -> Expr {
    let range = body.range;
    bindings
        .into_iter()
        .rev()
        .fold(body, |inner, (var, value)| {
            let bound = ExprKind::Let {
                var: Some(Box::new(var)),
                value: Some(Box::new(value)),
                body: vec![inner],
            };
            Expr::new(bound, range)
        })
}

/// A literal or a name: evaluating it again inside the closure is evaluating it once.
fn is_simple(e: &Expr) -> bool {
    matches!(
        e.kind,
        ExprKind::Float(_)
            | ExprKind::Int(_)
            | ExprKind::Bool(_)
            | ExprKind::Nothing
            | ExprKind::Ident(_)
    )
}
