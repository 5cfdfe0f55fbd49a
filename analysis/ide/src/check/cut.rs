//! `zero-gradient` and `gradient-cut`: arguments whose gradient is structurally absent or
//! always zero, from the reaching-gradient analysis.
//!
//! The analysis counts piecewise-constant functions (`floor`, `ceil`, `round`, `sign`) as
//! passing a zero gradient, so an argument that only reaches the result through them "reaches"
//! it; a second, stricter forward pass that stops at them finds those cuts too.

use zy_ad::activity::ArgGradient;
use zy_ir::{Block, Function, Op, Operand, Prim, Value};

use super::{Cx, GRADIENT_CUT, ZERO_GRADIENT};
use crate::Diagnostic;

pub(super) fn check(cx: &Cx<'_>, out: &mut Vec<Diagnostic>) {
    let func = &cx.spec.func;
    if !returns(func) {
        return; // it always throws (the runtime-error lint says why): no gradient to speak of
    }
    for (i, (&arg, why)) in func.args().iter().zip(&cx.activity.args).enumerate() {
        if func.arg_names.get(i).is_some_and(|n| n.starts_with('#')) {
            continue; // the hidden callee of a closure or callable struct
        }
        let name = cx.arg_name(i);
        let param = cx.range(func.value(arg).span);
        match why {
            // `_` says so itself: a parameter the function's interface has and it ignores
            // (`(u, _) -> -k * u` passed to a solver that calls `f(u, t)`).
            ArgGradient::NoPath if name == "_" => {}
            ArgGradient::NoPath => {
                let Some(range) = param else { continue };
                out.push(cx.finding(
                    range,
                    ZERO_GRADIENT,
                    format!("no gradient can reach `{name}`: the result does not depend on it, so its gradient is always `nothing`"),
                ));
            }
            ArgGradient::Cut { op, span } => {
                let Some(range) = cx.range(*span).or(param) else {
                    continue;
                };
                out.push(cx.finding(
                    range,
                    GRADIENT_CUT,
                    format!(
                        "`{}` cuts the gradient of `{name}` on every path to the result: its gradient is always `nothing`",
                        op.julia_name()
                    ),
                ));
            }
            ArgGradient::Reaches => {
                let Some(v) = zero_cut(func, arg) else {
                    continue;
                };
                let Some(range) = cx.range(func.value(v).span).or(param) else {
                    continue;
                };
                let Some(Op::Prim(op)) = func.stmt(v).map(|s| &s.op) else {
                    continue;
                };
                let op = op.julia_name();
                out.push(cx.finding(
                    range,
                    GRADIENT_CUT,
                    format!(
                        "`{op}` cuts the gradient of `{name}` on every path to the result: its gradient is always zero"
                    ),
                ));
            }
            ArgGradient::NotDifferentiable => {}
        }
    }
}

/// Does some path of `func` return? One that always throws (reading a binding that top-level
/// code zy does not run changes, an `error` on every path) has no gradient, zero or not.
fn returns(func: &Function) -> bool {
    func.reverse_postorder()
        .into_iter()
        .any(|b| matches!(func.block(b).term, zy_ir::Terminator::Return(_)))
}

/// Is `p` piecewise constant (a zero gradient that the activity analysis lets through)?
fn piecewise_constant(p: Prim) -> bool {
    matches!(p, Prim::Floor | Prim::Ceil | Prim::Round | Prim::Sign)
}

/// Does the statement pass a gradient from its operands to its result in the strict sense
/// (`Some(false)` where it stops it, `None` where the lint cannot tell)? Broadcasts make
/// arrays, which the first check leaves to the reaching-gradient analysis.
fn passes(func: &Function, v: Value) -> Option<bool> {
    let s = func.stmt(v)?;
    if func.ty(v).is_mutable() {
        return None; // an object with identity: a write through an alias may reach the result
    }
    match &s.op {
        Op::Prim(p) if p.has_effect() => None,
        Op::Prim(p) => Some(
            !piecewise_constant(*p)
                && !p.is_nondifferentiable()
                && !matches!(p, Prim::Zero | Prim::One),
        ),
        Op::New(_) | Op::Invoke(_) => Some(true),
        Op::Call(_) | Op::CallValue | Op::Closure(_) | Op::Global(_) => None,
    }
}

/// If every path from `arg` to the result (and to every mutation) passes through a
/// piecewise-constant function, the first such statement fed by `arg`.
pub(crate) fn zero_cut(func: &Function, arg: Value) -> Option<Value> {
    if !is_plain(func.ty(arg)) {
        return None;
    }
    let n = func.values.len();
    let mut varied = vec![false; n];
    varied[arg.index()] = true;
    let is_varied =
        |varied: &[bool], op: &Operand| op.as_value().is_some_and(|v| varied[v.index()]);
    let mut cut = None;
    loop {
        let mut changed = false;
        for b in func.reverse_postorder() {
            let data = func.block(b);
            for call in data.term.calls() {
                let params = &func.block(call.block).params;
                for (&p, a) in params.iter().zip(&call.args) {
                    if !varied[p.index()] && is_varied(&varied, a) {
                        varied[p.index()] = true;
                        changed = true;
                    }
                }
            }
            for &v in &data.stmts {
                let Some(s) = func.stmt(v) else { continue };
                if varied[v.index()] || !s.args.iter().any(|a| is_varied(&varied, a)) {
                    continue;
                }
                match passes(func, v) {
                    None => return None,
                    Some(true) => {
                        varied[v.index()] = true;
                        changed = true;
                    }
                    Some(false) => {
                        let constant = matches!(&s.op, Op::Prim(p) if piecewise_constant(*p));
                        if constant && cut.is_none() {
                            cut = Some(v);
                        }
                    }
                }
            }
        }
        if !changed {
            break;
        }
    }
    let returned = func.block_ids().any(|b: Block| match &func.block(b).term {
        zy_ir::Terminator::Return(x) => is_varied(&varied, x),
        _ => false,
    });
    if returned {
        return None;
    }
    cut
}

/// Numbers, and tuples and immutable structs of them: no object with identity inside.
fn is_plain(t: &zy_ir::Type) -> bool {
    use zy_ir::Type;
    match t {
        Type::Float64 | Type::Int64 | Type::Bool | Type::Nothing => true,
        Type::Tuple(ts) => ts.iter().all(is_plain),
        Type::NamedTuple(fs) => fs.iter().all(|(_, t)| is_plain(t)),
        Type::Struct(s) => !s.mutable && s.fields.iter().all(|(_, t)| is_plain(t)),
        _ => false,
    }
}
