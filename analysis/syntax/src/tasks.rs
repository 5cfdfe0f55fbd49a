//! Julia's task macros as zy runs them, on one thread: `Threads.@spawn expr` and `@async expr`
//! make a task that runs `() -> expr` to completion where it is made (`Base._spawn`); `@sync
//! body` runs the body in a scope of its own that the tasks spawned lexically inside it join,
//! and throws Julia's `CompositeException` at its end if one of them failed, as a `@threads`
//! loop does if an iteration throws. `@lock l expr` is Julia's `lock(() -> expr, l)`. A `$x` in a task's body is `x`'s value when the task is made.

use crate::ast::{Expr, ExprKind, TextRange};
use crate::cx::Cx;
use crate::expr::expr;
use crate::items::anonymous;
use crate::kind::Kind;
use crate::tree::SyntaxNode;

/// The hidden local of the innermost `@sync` block: the group its tasks join.
const SYNC: &str = "#sync";

/// `name args...` if it is a task macro, converted; `None` for any other macro call.
pub(crate) fn macro_call(
    cx: &mut Cx,
    node: &SyntaxNode,
    name: &str,
    args: &[SyntaxNode],
) -> Option<Expr> {
    match (name, args) {
        ("@spawn" | "Threads.@spawn" | "Base.Threads.@spawn", [pool, body])
            if is_pool(cx, pool) =>
        {
            Some(spawn(cx, node, body))
        }
        ("@spawn" | "Threads.@spawn" | "Base.Threads.@spawn" | "@async", [body]) => {
            Some(spawn(cx, node, body))
        }
        ("@sync", [body]) => Some(sync(cx, node, body)),
        ("@lock" | "Base.@lock", [l, body]) => {
            let r = node.range;
            let body = anonymous(r, r, Vec::new(), vec![expr(cx, body)]);
            Some(Expr::call("Base.lock", vec![body, expr(cx, l)], r))
        }
        _ => None,
    }
}

/// `:default` or `:interactive`, a thread pool `@spawn` may name first.
fn is_pool(cx: &Cx, node: &SyntaxNode) -> bool {
    matches!(cx.text(node), ":default" | ":interactive")
}

/// `@spawn body`: `Base._spawn(() -> body)`, joined to the enclosing `@sync` block's group.
fn spawn(cx: &mut Cx, node: &SyntaxNode, body: &SyntaxNode) -> Expr {
    let r = node.range;
    cx.note(
        r,
        "zy runs this task to completion here, where it is made, on one thread: the same \
         result as Julia's where no task reads what another writes"
            .to_string(),
    );
    let outer = cx.spawn_values.replace(Vec::new());
    let body = expr(cx, body);
    let values = std::mem::replace(&mut cx.spawn_values, outer).unwrap_or_default();
    let task = Expr::call(
        "Base._spawn",
        vec![anonymous(r, r, Vec::new(), vec![body])],
        r,
    );
    let task = match cx.in_sync {
        0 => task,
        _ => Expr::call("Base._sync_add!", vec![ident(SYNC, r), task], r),
    };
    // `let #spawn1 = x, ...`: each `$x` evaluated before the task is made.
    values.into_iter().rev().fold(task, |task, (name, value)| {
        let kind = ExprKind::Let {
            var: Some(Box::new(ident(&name, r))),
            value: Some(Box::new(value)),
            body: vec![task],
        };
        Expr::new(kind, r)
    })
}

/// `$x` inside the body of a `@spawn` (Julia's value of `x` when the task is made): the hidden
/// name the task reads it under; `None` for any other node.
pub(crate) fn interpolation(cx: &mut Cx, node: &SyntaxNode) -> Option<Expr> {
    let ([inner], Kind::Interpolate) = (node.children.as_slice(), node.kind) else {
        return None;
    };
    cx.spawn_values.as_ref()?;
    let value = expr(cx, inner);
    let values = cx.spawn_values.as_mut()?;
    let name = format!("#spawn{}", values.len() + 1);
    values.push((name.clone(), value));
    Some(ident(&name, node.range))
}

/// `@sync body`: `let #sync = Base._SyncGroup(); v = body; Base._sync_end(#sync); v end`.
fn sync(cx: &mut Cx, node: &SyntaxNode, body: &SyntaxNode) -> Expr {
    let r = node.range;
    cx.in_sync += 1;
    let body = expr(cx, body);
    cx.in_sync -= 1;
    let value = "#sync_value";
    let assign = |name: &str, value: Expr| {
        let (lhs, rhs) = (Box::new(ident(name, r)), Box::new(value));
        Expr::new(ExprKind::Assign { lhs, rhs }, r)
    };
    let group = Expr::call("Base._SyncGroup", Vec::new(), r);
    let end = Expr::call("Base._sync_end", vec![ident(SYNC, r)], r);
    let body = vec![assign(value, body), end, ident(value, r)];
    let kind = ExprKind::Let {
        var: Some(Box::new(ident(SYNC, r))),
        value: Some(Box::new(group)),
        body,
    };
    Expr::new(kind, r)
}

/// `@threads for ... end`: the loop, whose iterations zy runs in order, inside
/// `try ... catch #threads_error; Base._threads_failed(#threads_error) end`: an iteration that
/// throws fails its task, and Julia's loop throws a `CompositeException` of the task's
/// `TaskFailedException` when all are done.
pub(crate) fn threads_loop(cx: &mut Cx, node: &SyntaxNode, looped: &SyntaxNode) -> Expr {
    let r = node.range;
    let error = "#threads_error";
    let failed = Expr::call("Base._threads_failed", vec![ident(error, r)], r);
    let kind = ExprKind::Try {
        body: vec![expr(cx, looped)],
        var: Some(Box::new(ident(error, r))),
        catch: Some(vec![failed]),
        els: None,
        finally: None,
    };
    Expr::new(kind, r)
}

/// The name `name` over `r`.
fn ident(name: &str, r: TextRange) -> Expr {
    Expr::new(ExprKind::Ident(name.into()), r)
}
