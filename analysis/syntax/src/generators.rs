//! Comprehensions and generators, desugared as Julia lowers them: `[f(x) for x in xs if p(x)]`
//! is `Base.collect(Base.Generator(x -> f(x), Base.Filter(x -> p(x), xs)))`, and
//! `for i in I, j in J` iterates `Base.product(I, J)`, whose elements are the tuples `(i, j)`
//! (a Matrix when collected); `for i in I for j in J` is a `Base.Flatten` of the generators
//! of each clause. The closures give the iteration variables their own scope and
//! capture the enclosing locals, as in Julia; the prelude defines the iteration.

use crate::ast::{Expr, ExprKind, Param, TextRange};
use crate::cx::{error_expr, Cx};
use crate::expr::expr;
use crate::kind::Kind;
use crate::tree::SyntaxNode;

/// The name of the one parameter of a closure whose iteration variable is a tuple `(i, x)` or
/// several variables (`for i in I, j in J`): the body starts by destructuring it.
const ELEMENT: &str = "#element";

/// `[body for ...]`: `Base.collect(generator)`.
pub(crate) fn comprehension(cx: &mut Cx, node: &SyntaxNode) -> Expr {
    match node.children.as_slice() {
        [g] if g.kind == Kind::Generator && !g.leaf => {
            let g = generator(cx, g);
            Expr::call("Base.collect", vec![g], node.range)
        }
        _ => error_expr(node),
    }
}

/// `T[body for ...]`: `Base.collect(T, generator)`, the elements converted to `T`.
pub(crate) fn typed_comprehension(cx: &mut Cx, node: &SyntaxNode) -> Expr {
    match node.children.as_slice() {
        [t, g] if g.kind == Kind::Generator && !g.leaf => {
            let t = expr(cx, t);
            let g = generator(cx, g);
            Expr::call("Base.collect", vec![t, g], node.range)
        }
        _ => error_expr(node),
    }
}

/// `body for x in xs if cond` as a value (in parentheses or as a call's argument): a
/// `Base.Generator`; with several `for` clauses, a `Base.Flatten` of generators of them.
pub(crate) fn generator(cx: &mut Cx, node: &SyntaxNode) -> Expr {
    let [body, clauses @ ..] = node.children.as_slice() else {
        return error_expr(node);
    };
    let mut parsed = Vec::new();
    for clause in clauses {
        match iteration(cx, clause) {
            Some(c) => parsed.push(c),
            None => return error_expr(node),
        }
    }
    // The body and the conditions run in the closures, where `end` means no outer brackets.
    let in_index = std::mem::replace(&mut cx.in_index, 0);
    let mut value = expr(cx, body);
    let conds: Vec<Option<Expr>> = clauses
        .iter()
        .map(|c| match (c.kind, c.children.as_slice()) {
            (Kind::Filter, [_, cond]) => Some(expr(cx, cond)),
            _ => None,
        })
        .collect();
    cx.in_index = in_index;
    // The last clause's generator yields the body; each one before it yields the next one's.
    let count = parsed.len();
    for (i, (clause, cond)) in parsed.into_iter().zip(conds).enumerate().rev() {
        let Clause { vars, iter } = clause;
        let iter = match cond {
            Some(cond) => {
                let range = cond.range;
                let p = closure(&vars, cond, range);
                Expr::call("Base.Filter", vec![p, iter], range)
            }
            None => iter,
        };
        let f = closure(&vars, value, node.range);
        value = Expr::call("Base.Generator", vec![f, iter], node.range);
        if i + 1 < count {
            value = Expr::call("Base.Flatten", vec![value], node.range);
        }
    }
    if count == 0 {
        return error_expr(node);
    }
    value
}

/// The longest tuple `Tuple(gen)` builds from a literal range (a tuple's length is part of its
/// type, so each element becomes code of its own).
const TUPLE_OF_RANGE_MAX: i64 = 64;

/// `Tuple(f(i) for i in a:b)` (literal integers `a`, `b`, an optional literal step) or
/// `Tuple(f(x) for x in (p, q))`: the tuple of the generator's elements, which Julia collects
/// at run time, written as `Base.map(i -> f(i), (a, ..., b))` so that its length is known.
/// `None` for any other argument (a filter, several `for`s, a range known only at run time).
pub(crate) fn tuple_of(arg: &Expr, range: TextRange) -> Option<Expr> {
    let ExprKind::Call { callee, args } = &arg.kind else {
        return None;
    };
    let [f, iter] = args.as_slice() else {
        return None;
    };
    if !matches!(&callee.kind, ExprKind::Ident(n) if n == "Base.Generator") {
        return None;
    }
    let elements = match &iter.kind {
        ExprKind::Tuple(items) => items.clone(),
        ExprKind::Range { start, step, stop } => {
            let int = |e: &Expr| match e.kind {
                ExprKind::Int(v) => Some(v),
                _ => None,
            };
            let (a, b) = (int(start)?, int(stop)?);
            let s = match step {
                Some(s) => int(s)?,
                None => 1,
            };
            if s == 0 {
                return None;
            }
            let n = if (s > 0 && b < a) || (s < 0 && b > a) {
                0
            } else {
                b.checked_sub(a)?.checked_div(s)?.checked_add(1)?
            };
            if n > TUPLE_OF_RANGE_MAX {
                return None;
            }
            (0..n)
                .map(|k| Expr::new(ExprKind::Int(a + k * s), iter.range))
                .collect()
        }
        _ => return None,
    };
    let tuple = Expr::new(ExprKind::Tuple(elements), iter.range);
    Some(Expr::call("Base.map", vec![f.clone(), tuple], range))
}

/// One `for` clause: its variables and what they iterate.
struct Clause {
    vars: Vec<Expr>,
    iter: Expr,
}

/// `for x in xs` or `for i in I, j in J` (a product), with or without its `if`.
fn iteration(cx: &mut Cx, clause: &SyntaxNode) -> Option<Clause> {
    let iteration = match (clause.kind, clause.children.as_slice()) {
        (Kind::Filter, [iteration, _]) => iteration,
        (Kind::Iteration, _) => clause,
        _ => return None,
    };
    let mut vars = Vec::new();
    let mut iters = Vec::new();
    for spec in &iteration.children {
        let [var, iter] = spec.children.as_slice() else {
            return None;
        };
        match (var.leaf, var.kind) {
            (true, Kind::Identifier) | (false, Kind::Tuple) => vars.push(expr(cx, var)),
            (false, Kind::Outer) => {
                cx.unsupported(spec, "`outer` loop variable");
                return None;
            }
            _ => {
                cx.unsupported(var, "loop variable");
                return None;
            }
        }
        iters.push(expr(cx, iter));
    }
    let iter = match iters.len() {
        1 => iters.pop()?,
        2 | 3 => Expr::call("Base.product", iters, iteration.range),
        _ => {
            cx.unsupported(iteration, "a comprehension over more than three dimensions");
            return None;
        }
    };
    Some(Clause { vars, iter })
}

/// The closure `var -> body` over one element; `vars` is one identifier, one tuple of them,
/// or (for several iteration variables) the parts of the element tuple.
fn closure(vars: &[Expr], body: Expr, range: TextRange) -> Expr {
    let param = |name: &str, range: TextRange| Param {
        name: Some(name.to_string()),
        ty: None,
        default: None,
        varargs: false,
        range,
    };
    let (params, body) = match vars {
        [Expr {
            kind: ExprKind::Ident(name),
            range,
        }] => (vec![param(name, *range)], vec![body]),
        _ => {
            let lhs = match vars {
                [single] => single.clone(),
                _ => Expr::new(ExprKind::Tuple(vars.to_vec()), range),
            };
            let element = Expr::new(ExprKind::Ident(ELEMENT.to_string()), lhs.range);
            let unpack = ExprKind::Assign {
                lhs: Box::new(lhs.clone()),
                rhs: Box::new(element),
            };
            let unpack = Expr::new(unpack, lhs.range);
            (vec![param(ELEMENT, lhs.range)], vec![unpack, body])
        }
    };
    crate::items::anonymous(range, range, params, body)
}
