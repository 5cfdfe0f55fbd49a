//! `unbounded-tape`: a loop or a recursion whose number of steps, and so the tape its pullback
//! keeps, is set by the value of a Float64 stepped by a constant (`while x > 0; x -= 1.0`,
//! `f(x) = x <= 1 ? 1.0 : x * f(x - 1.0)`) rather than by the size of the input. Halving or
//! Newton steps are not flagged: their step counts are bounded by the Float64 format.

use zy_ir::{Block, Function, Op, Operand, Prim, Type, Value, ValueKind};

use super::{Cx, UNBOUNDED_TAPE};
use crate::Diagnostic;

pub(super) fn check(cx: &Cx<'_>, out: &mut Vec<Diagnostic>) {
    loops(cx, out);
    recursion(cx, out);
}

fn loops(cx: &Cx<'_>, out: &mut Vec<Diagnostic>) {
    let func = &cx.spec.func;
    let reach = zy_ir::cfg::reachability(func);
    let cyclic = |h: Block, x: Block| reach[h.index()][x.index()] && reach[x.index()][h.index()];
    let owners = owners(func);
    for b in func.block_ids() {
        let zy_ir::Terminator::Branch {
            cond,
            then_to,
            else_to,
        } = &func.block(b).term
        else {
            continue;
        };
        // A loop exit: one side stays on the cycle through `b`, the other leaves it.
        if cyclic(b, then_to.block) == cyclic(b, else_to.block) {
            continue;
        }
        let Some(counter) = compared(func, cond).into_iter().find(|&phi| {
            let ValueKind::Param { block: h, .. } = func.value(phi).kind else {
                return false;
            };
            h != Block::ENTRY && cyclic(h, b) && stepped(func, phi, |x| cyclic(h, x))
        }) else {
            continue;
        };
        let active = owners
            .iter()
            .enumerate()
            .any(|(v, x)| cyclic(b, *x) && cx.activity.is_active(Value(v as u32)));
        let Some(range) = cx.range(func.block(b).term_span) else {
            continue;
        };
        if !active {
            continue;
        }
        let name = func
            .value(counter)
            .name
            .as_deref()
            .map_or_else(|| "a Float64".to_string(), |n| format!("`{n}`"));
        out.push(cx.finding(
            range,
            UNBOUNDED_TAPE,
            format!("the tape grows without bound: this loop steps {name} by a constant until the condition fails, so its iterations (each keeping values for the pullback) grow with the value of {name}, not with the size of the input; `# zy: checkpoint` on the line above the loop keeps about √(2n) states of its n iterations instead (docs/checkpointing.md)"),
        ));
    }
}

fn recursion(cx: &Cx<'_>, out: &mut Vec<Diagnostic>) {
    let func = &cx.spec.func;
    let args = func.args();
    for b in func.block_ids() {
        for &v in &func.block(b).stmts {
            let Some(s) = func.stmt(v) else { continue };
            let Op::Invoke(inst) = &s.op else { continue };
            if **inst != *cx.spec.inst || !cx.activity.is_active(v) {
                continue;
            }
            // An argument passed on as itself plus or minus a constant, and compared somewhere.
            let Some(&arg) = args.iter().find(|&&a| {
                *func.ty(a) == Type::Float64
                    && s.args
                        .iter()
                        .any(|x| x.as_value().is_some_and(|u| steps(func, u, a, |_| false)))
                    && is_compared(func, a)
            }) else {
                continue;
            };
            let Some(range) = cx.range(func.value(v).span) else {
                continue;
            };
            let i = args.iter().position(|&a| a == arg).unwrap_or(0);
            let name = cx.arg_name(i);
            out.push(cx.finding(
                range,
                UNBOUNDED_TAPE,
                format!("the tape grows without bound: each recursive call steps `{name}` by a constant, so the depth (one pullback kept per level) grows with the value of `{name}`, not with the size of the input"),
            ));
        }
    }
}

/// The Float64 values compared by the comparison `cond`.
fn compared(func: &Function, cond: &Operand) -> Vec<Value> {
    let Some(c) = cond.as_value() else {
        return Vec::new();
    };
    match func.stmt(c) {
        Some(s) if matches!(s.op, Op::Prim(Prim::Lt | Prim::Le | Prim::Gt | Prim::Ge)) => s
            .args
            .iter()
            .filter_map(Operand::as_value)
            .filter(|&v| *func.ty(v) == Type::Float64)
            .collect(),
        _ => Vec::new(),
    }
}

/// Does some statement compare `v` directly (`v < c`, ...)?
fn is_compared(func: &Function, v: Value) -> bool {
    func.values.iter().any(|d| match &d.kind {
        ValueKind::Stmt(s) => {
            matches!(s.op, Op::Prim(Prim::Lt | Prim::Le | Prim::Gt | Prim::Ge))
                && s.args.contains(&Operand::Value(v))
        }
        ValueKind::Param { .. } => false,
    })
}

/// Is the loop-carried `phi` given, on some jump from inside the loop, itself plus or minus a
/// loop-invariant amount? (`inside` says which blocks are in the loop.)
fn stepped(func: &Function, phi: Value, inside: impl Fn(Block) -> bool + Copy) -> bool {
    let ValueKind::Param { block: h, index } = func.value(phi).kind else {
        return false;
    };
    func.block_ids().filter(|&p| inside(p)).any(|p| {
        func.block(p)
            .term
            .calls()
            .iter()
            .filter(|c| c.block == h)
            .any(|c| {
                c.args
                    .get(index as usize)
                    .and_then(Operand::as_value)
                    .is_some_and(|u| steps(func, u, phi, inside))
            })
    })
}

/// Is `u` computed as `base ± k` (or `k + base`) with `k` a constant or a value from outside
/// the blocks where `inside` holds?
fn steps(func: &Function, u: Value, base: Value, inside: impl Fn(Block) -> bool) -> bool {
    let Some(s) = func.stmt(u) else { return false };
    let invariant = |k: &Operand| match k {
        Operand::Const(c) => {
            c.as_f64().is_some_and(|x| x != 0.0) || matches!(c, zy_ir::Const::Int(i) if *i != 0)
        }
        Operand::Value(k) => *k != base && block_of(func, *k).is_some_and(|b| !inside(b)),
    };
    match (&s.op, s.args.as_slice()) {
        (Op::Prim(Prim::Add), [a, k]) | (Op::Prim(Prim::Add), [k, a])
            if *a == Operand::Value(base) =>
        {
            invariant(k)
        }
        (Op::Prim(Prim::Sub), [a, k]) if *a == Operand::Value(base) => invariant(k),
        _ => false,
    }
}

/// The block defining `v`.
fn block_of(func: &Function, v: Value) -> Option<Block> {
    match func.value(v).kind {
        ValueKind::Param { block, .. } => Some(block),
        ValueKind::Stmt(_) => func.block_ids().find(|&b| func.block(b).stmts.contains(&v)),
    }
}

/// The block defining each value (the entry block for values in no block).
fn owners(func: &Function) -> Vec<Block> {
    let mut out = vec![Block::ENTRY; func.values.len()];
    for b in func.block_ids() {
        let data = func.block(b);
        for &v in data.params.iter().chain(&data.stmts) {
            if let Some(o) = out.get_mut(v.index()) {
                *o = b;
            }
        }
    }
    out
}
