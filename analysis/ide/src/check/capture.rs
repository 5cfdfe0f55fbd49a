//! `mutation-after-capture`: an array written (`x[i] = v`) after a differentiated operation
//! kept it for its pullback (`dot(x, y)`, `A * x`, `prod(x)`, `x .* y`, `sin.(x)`). zy keeps
//! the pullback right by saving each overwritten element on the tape and writing it back in
//! the reverse pass; the lint says so, and what a copy would cost instead.

use zy_ad::rules::{scalar_rule, Kept};
use zy_ir::{Block, Const, Function, Op, Operand, Prim, Type, Value};

use super::{Cx, MUTATION_AFTER_CAPTURE};
use crate::Diagnostic;

pub(super) fn check(cx: &Cx<'_>, out: &mut Vec<Diagnostic>) {
    let func = &cx.spec.func;
    let reach = zy_ir::cfg::reachability(func);
    let text = cx.file.text(cx.db);
    let mut reported = std::collections::HashSet::new();
    for (cb, c) in stmts(func) {
        if !cx.activity.is_active(c) {
            continue;
        }
        let Some(s) = func.stmt(c) else { continue };
        let Op::Prim(p) = s.op else { continue };
        for a in captured(p, &s.args)
            .into_iter()
            .filter(|&a| is_float_array(func.ty(a)))
        {
            for (mb, m) in stmts(func) {
                let Some(w) = func.stmt(m) else { continue };
                let writes_a =
                    w.op == Op::Prim(Prim::SetIndex) && w.args.first() == Some(&Operand::Value(a));
                let after = if mb == cb && position(func, m) > position(func, c) {
                    true
                } else {
                    match fresh_block(func, a) {
                        Some(db) => reaches_avoiding(func, cb, mb, db),
                        None => reach[cb.index()][mb.index()],
                    }
                };
                if !writes_a || !after || reported.contains(&m) {
                    continue;
                }
                let (Some(write), Some(capture)) =
                    (cx.range(func.value(m).span), cx.range(func.value(c).span))
                else {
                    continue;
                };
                reported.insert(m);
                let name = func
                    .value(a)
                    .name
                    .as_deref()
                    .map_or_else(|| "the array".to_string(), |n| format!("`{n}`"));
                let shown: String = text
                    .get(capture.0 as usize..capture.1 as usize)
                    .unwrap_or("")
                    .chars()
                    .take(40)
                    .collect();
                let line = zy_hir::line_col(cx.db, cx.file, capture.0).line;
                out.push(cx.finding(
                    write,
                    MUTATION_AFTER_CAPTURE,
                    format!(
                        "{name} is written after `{shown}` (line {line}) captured it for its pullback: zy saves the overwritten element on the tape and restores it in the reverse pass (one Float64 kept per write, and one write to restore it); writing to a `copy` instead costs one copy of the whole array"
                    ),
                ));
            }
        }
    }
}

/// The array operands whose contents the pullback of `p` reads (its rule keeps them).
fn captured(p: Prim, args: &[Operand]) -> Vec<Value> {
    let at = |is: &[usize]| {
        is.iter()
            .filter_map(|&i| args.get(i).and_then(Operand::as_value))
            .collect()
    };
    match p {
        Prim::Prod | Prim::Maximum | Prim::Minimum => at(&[0]),
        Prim::Dot | Prim::MatMul => at(&[0, 1]),
        Prim::Broadcast => {
            let Some(Const::Func(f)) = args.first().and_then(Operand::as_const) else {
                return Vec::new();
            };
            // The array operands the scalar rule keeps (operand 0 is the function).
            let Some(rule) = Prim::elementwise(f, args.len() - 1).and_then(scalar_rule) else {
                return Vec::new();
            };
            let kept: Vec<usize> = rule
                .keeps
                .iter()
                .filter_map(|k| match k {
                    Kept::Arg(i) => Some(i + 1),
                    Kept::Result | Kept::ResultUnlessLiteralExponent => None,
                })
                .collect();
            at(&kept)
        }
        _ => Vec::new(),
    }
}

fn is_float_array(t: &Type) -> bool {
    matches!(t, Type::Array(e, _) if **e == Type::Float64)
}

/// The block of `a`'s definition when it allocates a new array (`f = zeros(n)` in a loop body):
/// each run of it is another array, so a write after it runs again is not to the one captured.
fn fresh_block(func: &Function, a: Value) -> Option<Block> {
    let s = func.stmt(a)?;
    let Op::Prim(p) = s.op else { return None };
    let effects = p.info().effects;
    if !effects.allocates || effects.mutates.is_some() {
        return None;
    }
    stmts(func).find_map(|(b, v)| (v == a).then_some(b))
}

/// Can control get from the end of block `from` to block `to` without entering `avoid`?
fn reaches_avoiding(func: &Function, from: Block, to: Block, avoid: Block) -> bool {
    let mut seen = vec![false; func.block_ids().count()];
    let mut stack = func.block(from).term.successors();
    while let Some(b) = stack.pop() {
        let Some(seen) = seen.get_mut(b.index()) else {
            continue;
        };
        if b == avoid || std::mem::replace(seen, true) {
            continue;
        }
        if b == to {
            return true;
        }
        stack.extend(func.block(b).term.successors());
    }
    false
}

/// Every statement with its block.
fn stmts(func: &Function) -> impl Iterator<Item = (Block, Value)> + '_ {
    func.block_ids()
        .flat_map(move |b| func.block(b).stmts.iter().map(move |&v| (b, v)))
}

/// The index of statement `v` in its block.
fn position(func: &Function, v: Value) -> usize {
    func.block_ids()
        .find_map(|b| func.block(b).stmts.iter().position(|&s| s == v))
        .unwrap_or(0)
}
