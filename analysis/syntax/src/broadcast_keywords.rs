//! `f.(args...; kw = v)`: a broadcast call with keyword arguments. Julia broadcasts the
//! closure `(a...) -> f(a...; kw = v)` with the keyword values (and the callee) evaluated once,
//! before the broadcast; zy writes exactly that: `let`s binding what is not a literal or a name,
//! around a `DotCall` of an anonymous function whose body is the keyword call.

use crate::ast::{Expr, ExprKind, FunctionDef, FunctionName, KeywordArg, Param, TextRange};

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
    let def = FunctionDef {
        name: FunctionName::Anonymous,
        name_range: range,
        params,
        keywords: Vec::new(),
        keyword_rest: None,
        where_params: Vec::new(),
        return_type: None,
        body: vec![Expr::new(call, range)],
        range,
        annotations: Vec::new(),
    };
    let closure = Expr::new(ExprKind::Function(Box::new(def)), range);
    let broadcast = ExprKind::DotCall {
        callee: Box::new(closure),
        args,
    };
    let mut result = Expr::new(broadcast, range);
    for (var, value) in bindings.into_iter().rev() {
        let bound = ExprKind::Let {
            var: Some(Box::new(var)),
            value: Some(Box::new(value)),
            body: vec![result],
        };
        result = Expr::new(bound, range);
    }
    result
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
