//! Output inside functions: `println`, `print`, `@show`, `@time`, `@info`, `@warn`, `@error`,
//! `@debug`, `@printf`. zy shows no output, so it leaves the printing out, with a note, and
//! keeps everything else Julia does: the arguments are evaluated in order (an error in one is
//! still thrown), `@show e` and `@time e` are `e`'s value, the others `nothing`. `@debug`
//! evaluates nothing, as Julia's does while debug logging is off (the default).

use crate::ast::{Expr, ExprKind, INTERPOLATION};
use crate::cx::Cx;
use crate::expr::expr;
use crate::kind::Kind;
use crate::tree::SyntaxNode;

/// Functions whose only effect is output.
const PRINTING: [&str; 2] = ["println", "print"];

/// Is a call of `name` output that zy leaves out?
pub(crate) fn is_printing(name: &str) -> bool {
    PRINTING.contains(&name)
}

/// `println(args...)`: the arguments evaluated for their errors, then `nothing`. A leading
/// `stdout` or `stderr` names the stream.
pub(crate) fn printing(cx: &mut Cx, node: &SyntaxNode, name: &str, args: Vec<Expr>) -> Expr {
    let args = args.into_iter().enumerate().filter(|(i, a)| {
        *i > 0 || !matches!(&a.kind, ExprKind::Ident(s) if s == "stdout" || s == "stderr")
    });
    let mut body = Vec::new();
    for (_, a) in args {
        evaluated_parts(a, &mut body);
    }
    cx.note(
        node.range,
        format!(
            "zy shows no output: this `{name}` is left out (its arguments are still evaluated)"
        ),
    );
    body.push(Expr::new(ExprKind::Nothing, node.range));
    Expr::new(ExprKind::Block(body), node.range)
}

/// An output macro `name` on `args`, or `None` if `name` is not one.
pub(crate) fn macro_call(
    cx: &mut Cx,
    node: &SyntaxNode,
    name: &str,
    args: &[SyntaxNode],
) -> Option<Expr> {
    let range = node.range;
    let (body, message) = match name {
        "@show" | "@time" => {
            let mut body: Vec<Expr> = args.iter().map(|a| expr(cx, a)).collect();
            if body.is_empty() {
                body.push(Expr::new(ExprKind::Nothing, range));
            }
            let message = format!("zy shows no output: `{name}` gives the value without printing");
            (body, message)
        }
        "@info" | "@warn" | "@error" | "@printf" => {
            let mut body = Vec::new();
            for a in args {
                // `key = value` of a log record: the value.
                let value = match (a.kind, a.children.as_slice()) {
                    (Kind::Assign, [_, value]) if !a.leaf => value,
                    _ => a,
                };
                let e = expr(cx, value);
                evaluated_parts(e, &mut body);
            }
            body.push(Expr::new(ExprKind::Nothing, range));
            let message = format!(
                "zy shows no output: this `{name}` is left out (its arguments are still evaluated)"
            );
            (body, message)
        }
        "@debug" => (
            vec![Expr::new(ExprKind::Nothing, range)],
            "zy shows no output: `@debug` is off, as in Julia by default (nothing is evaluated)"
                .to_string(),
        ),
        _ => return None,
    };
    cx.note(range, message);
    Some(Expr::new(ExprKind::Block(body), range))
}

/// The parts of an argument that are evaluated: not its string literals, and of an
/// interpolated string only what it interpolates.
fn evaluated_parts(e: Expr, out: &mut Vec<Expr>) {
    match e.kind {
        ExprKind::Str(_) => {}
        ExprKind::Call { callee, args } if matches!(&callee.kind, ExprKind::Ident(s) if s == INTERPOLATION) => {
            for a in args {
                evaluated_parts(a, out);
            }
        }
        kind => out.push(Expr::new(kind, e.range)),
    }
}
