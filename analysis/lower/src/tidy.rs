//! The last step of lowering a body: drop blocks that no jump reaches (code after `return`,
//! `break`, `continue`), branches on constants, φs that became trivial or are unused, unused
//! `undef` reads, empty blocks that only forward a jump, and blocks that are the only successor
//! of their only predecessor; then renumber blocks and values densely in block order. Each pass
//! is linear in the size of the function (plus its φ edges).

use rustc_hash::{FxHashMap, FxHashSet};
use zy_ir::{
    cfg, Block, BlockCall, BlockData, Const, Function, Op, Operand, Span, Terminator, Value,
    ValueData, ValueKind,
};

/// Tidy a freshly built body.
pub(crate) fn tidy(mut f: Function) -> Function {
    // Every round that changes something shrinks the function; real bodies settle in a few.
    for _ in 0..10_000 {
        drop_unreachable(&mut f);
        let mut changed = fold_constant_branches(&mut f);
        changed |= remove_trivial_phis(&mut f);
        changed |= remove_dead(&mut f);
        changed |= merge_chains(&mut f);
        changed |= thread_empty_blocks(&mut f);
        if !changed {
            break;
        }
    }
    compact(&f)
}

fn calls_mut(term: &mut Terminator) -> Vec<&mut BlockCall> {
    term.calls_mut()
}

fn operands_mut(term: &mut Terminator) -> Vec<&mut Operand> {
    term.operands_mut()
}

/// A jump into a block: the jumping block and the position of the call in its terminator.
type Edge = (Block, usize);

/// The jumps into every block.
fn incoming(f: &Function) -> Vec<Vec<Edge>> {
    let mut inc = vec![Vec::new(); f.blocks.len()];
    for p in f.block_ids() {
        for (i, call) in f.block(p).term.calls().into_iter().enumerate() {
            if let Some(list) = inc.get_mut(call.block.index()) {
                list.push((p, i));
            }
        }
    }
    inc
}

fn call(f: &Function, (p, i): Edge) -> Option<&BlockCall> {
    f.block(p).term.calls().into_iter().nth(i)
}

fn call_mut(f: &mut Function, (p, i): Edge) -> Option<&mut BlockCall> {
    calls_mut(&mut f.block_mut(p).term).into_iter().nth(i)
}

/// Values replaced by operands, applied to the whole function in one sweep.
#[derive(Default)]
struct Subst(FxHashMap<Value, Operand>);

impl Subst {
    fn resolve(&self, op: &Operand) -> Operand {
        let mut op = op.clone();
        // A chain is at most as long as the map (a cycle would be a bug; stop anyway).
        for _ in 0..=self.0.len() {
            match &op {
                Operand::Value(v) => match self.0.get(v) {
                    Some(next) => op = next.clone(),
                    None => break,
                },
                Operand::Const(_) => break,
            }
        }
        op
    }

    fn apply(&self, f: &mut Function) {
        if self.0.is_empty() {
            return;
        }
        for b in f.block_ids().collect::<Vec<_>>() {
            for v in f.block(b).stmts.clone() {
                if let ValueKind::Stmt(s) = &mut f.values[v.index()].kind {
                    for a in s.args.iter_mut() {
                        *a = self.resolve(a);
                    }
                }
            }
            for a in operands_mut(&mut f.block_mut(b).term) {
                *a = self.resolve(a);
            }
        }
    }
}

/// Keep only the parameters of `b` marked in `keep`, and the matching jump arguments.
fn retain_params(f: &mut Function, inc: &[Edge], b: Block, keep: &[bool]) {
    let params: Vec<Value> = f.block(b).params.clone();
    let kept: Vec<Value> = params
        .iter()
        .zip(keep)
        .filter(|(_, k)| **k)
        .map(|(p, _)| *p)
        .collect();
    for (j, p) in kept.iter().enumerate() {
        f.values[p.index()].kind = ValueKind::Param {
            block: b,
            index: j as u32,
        };
    }
    f.block_mut(b).params = kept;
    for &edge in inc {
        if let Some(c) = call_mut(f, edge) {
            let mut i = 0;
            c.args.retain(|_| {
                let k = keep.get(i).copied().unwrap_or(true);
                i += 1;
                k
            });
        }
    }
}

/// Empty the blocks no path from the entry reaches, so they stop feeding φs.
fn drop_unreachable(f: &mut Function) {
    let seen = cfg::reachable(f);
    for b in f.block_ids().collect::<Vec<_>>() {
        if !seen[b.index()] {
            let data = f.block_mut(b);
            data.params.clear();
            data.stmts.clear();
            data.term = Terminator::Unreachable;
        }
    }
}

/// Turn a branch on a constant (`while true`) into a jump.
fn fold_constant_branches(f: &mut Function) -> bool {
    let mut changed = false;
    for data in &mut f.blocks {
        if let Terminator::Branch {
            cond: Operand::Const(Const::Bool(c)),
            then_to,
            else_to,
        } = &data.term
        {
            let taken = if *c { then_to.clone() } else { else_to.clone() };
            data.term = Terminator::Jump(taken);
            changed = true;
        }
    }
    changed
}

/// Replace φs whose incoming values are all one operand (or the φ itself) by that operand.
fn remove_trivial_phis(f: &mut Function) -> bool {
    let inc = incoming(f);
    let mut subst = Subst::default();
    let mut changed = false;
    for b in f.block_ids().skip(1).collect::<Vec<_>>() {
        let params = f.block(b).params.clone();
        let mut keep = vec![true; params.len()];
        for (i, &p) in params.iter().enumerate() {
            if let Some(same) = sole_incoming(f, &inc[b.index()], i, p, &subst) {
                subst.0.insert(p, same);
                keep[i] = false;
            }
        }
        if keep.contains(&false) {
            retain_params(f, &inc[b.index()], b, &keep);
            changed = true;
        }
    }
    subst.apply(f);
    changed
}

/// The one operand other than `phi` itself flowing into parameter `i`, if unique.
fn sole_incoming(
    f: &Function,
    inc: &[Edge],
    i: usize,
    phi: Value,
    subst: &Subst,
) -> Option<Operand> {
    let mut same: Option<Operand> = None;
    for &edge in inc {
        let a = subst.resolve(call(f, edge)?.args.get(i)?);
        if a == Operand::Value(phi) || Some(&a) == same.as_ref() {
            continue;
        }
        if same.is_some() {
            return None;
        }
        same = Some(a);
    }
    same
}

fn is_undef(f: &Function, v: Value) -> bool {
    matches!(f.stmt(v), Some(s) if matches!(&s.op, Op::Call(n) if &**n == "undef"))
}

/// Remove φs and `undef` reads that nothing uses (through any chain of φs).
fn remove_dead(f: &mut Function) -> bool {
    let inc = incoming(f);
    let mut live: FxHashSet<Value> = FxHashSet::default();
    let mut work: Vec<Value> = Vec::new();
    let mark = |op: &Operand, live: &mut FxHashSet<Value>, work: &mut Vec<Value>| {
        if let Operand::Value(v) = op {
            if live.insert(*v) {
                work.push(*v);
            }
        }
    };
    for b in f.block_ids() {
        let data = f.block(b);
        for &v in &data.stmts {
            if is_undef(f, v) {
                continue;
            }
            if let Some(s) = f.stmt(v) {
                for a in &s.args {
                    mark(a, &mut live, &mut work);
                }
            }
        }
        match &data.term {
            Terminator::Return(x) => mark(x, &mut live, &mut work),
            Terminator::Branch { cond, .. } => mark(cond, &mut live, &mut work),
            _ => {}
        }
    }
    while let Some(v) = work.pop() {
        if let ValueKind::Param { block, index } = f.value(v).kind {
            for &edge in &inc[block.index()] {
                if let Some(a) = call(f, edge).and_then(|c| c.args.get(index as usize)) {
                    mark(a, &mut live, &mut work);
                }
            }
        }
    }
    let mut changed = false;
    for b in f.block_ids().skip(1).collect::<Vec<_>>() {
        let keep: Vec<bool> = f.block(b).params.iter().map(|p| live.contains(p)).collect();
        if keep.contains(&false) {
            retain_params(f, &inc[b.index()], b, &keep);
            changed = true;
        }
    }
    for b in f.block_ids().collect::<Vec<_>>() {
        let stmts = f.block(b).stmts.clone();
        let kept: Vec<Value> = stmts
            .iter()
            .copied()
            .filter(|&v| !is_undef(f, v) || live.contains(&v))
            .collect();
        if kept.len() != stmts.len() {
            f.block_mut(b).stmts = kept;
            changed = true;
        }
    }
    changed
}

/// Merge a block into its only predecessor when that ends in a plain jump to it.
fn merge_chains(f: &mut Function) -> bool {
    let seen = cfg::reachable(f);
    // Merging moves a block's jumps into its predecessor: the number of jumps into every
    // block stays the same.
    let counts: Vec<usize> = incoming(f).iter().map(Vec::len).collect();
    let mut subst = Subst::default();
    let mut changed = false;
    for a in f.block_ids().collect::<Vec<_>>() {
        if !seen[a.index()] {
            continue;
        }
        while let Terminator::Jump(next) = &f.block(a).term {
            let b = next.block;
            if b == Block::ENTRY || b == a || counts[b.index()] != 1 {
                break;
            }
            for (p, arg) in f.block(b).params.clone().into_iter().zip(next.args.clone()) {
                subst.0.insert(p, arg);
            }
            let taken = std::mem::replace(
                f.block_mut(b),
                BlockData {
                    params: Vec::new(),
                    stmts: Vec::new(),
                    term: Terminator::Unreachable,
                    term_span: Span::default(),
                },
            );
            let data = f.block_mut(a);
            data.stmts.extend(taken.stmts);
            data.term = taken.term;
            data.term_span = taken.term_span;
            changed = true;
        }
    }
    subst.apply(f);
    changed
}

/// Route jumps through an empty forwarding block directly to its target (unless that would
/// give a branch two equal targets).
fn thread_empty_blocks(f: &mut Function) -> bool {
    let seen = cfg::reachable(f);
    let inc = incoming(f);
    let mut changed = false;
    for e in f.block_ids().skip(1).collect::<Vec<_>>() {
        let data = f.block(e);
        if !seen[e.index()] || !data.params.is_empty() || !data.stmts.is_empty() {
            continue;
        }
        let Terminator::Jump(target) = &data.term else {
            continue;
        };
        let target = target.clone();
        if target.block == e {
            continue;
        }
        for &(p, c) in &inc[e.index()] {
            let other_is_target = match &f.block(p).term {
                Terminator::Branch {
                    then_to, else_to, ..
                } => {
                    let other = if c == 0 { else_to } else { then_to };
                    other.block == target.block
                }
                _ => false,
            };
            if other_is_target {
                continue;
            }
            if let Some(call) = call_mut(f, (p, c)).filter(|call| call.block == e) {
                *call = target.clone();
                changed = true;
            }
        }
    }
    changed
}

/// Renumber the reachable blocks (in source order) and their values (in block order).
fn compact(f: &Function) -> Function {
    let kept = cfg::source_order(f);
    let block_map: FxHashMap<Block, Block> = kept
        .iter()
        .enumerate()
        .map(|(i, &b)| (b, Block(i as u32)))
        .collect();
    let mut value_map: FxHashMap<Value, Value> = FxHashMap::default();
    for &b in &kept {
        let data = f.block(b);
        for &v in data.params.iter().chain(&data.stmts) {
            let n = Value(value_map.len() as u32);
            value_map.insert(v, n);
        }
    }
    let map_op = |op: &Operand| match op {
        Operand::Value(v) => Operand::Value(value_map.get(v).copied().unwrap_or(*v)),
        Operand::Const(c) => Operand::Const(c.clone()),
    };
    let map_call = |c: &BlockCall| BlockCall {
        block: block_map.get(&c.block).copied().unwrap_or(c.block),
        args: c.args.iter().map(map_op).collect(),
    };
    let mut out = Function {
        name: f.name.clone(),
        arg_names: f.arg_names.clone(),
        instance: None,
        ret: f.ret.clone(),
        blocks: Vec::new(),
        values: Vec::new(),
        span: f.span,
    };
    // φs and `undef` reads made by the builder carry no span: give them the function's.
    let span_of = |d: &ValueData| {
        if d.span == Span::default() {
            f.span
        } else {
            d.span
        }
    };
    for &b in &kept {
        let data = f.block(b);
        let nb = block_map[&b];
        for (i, &v) in data.params.iter().enumerate() {
            let old = f.value(v);
            out.values.push(ValueData {
                kind: ValueKind::Param {
                    block: nb,
                    index: i as u32,
                },
                ty: old.ty.clone(),
                span: span_of(old),
                name: old.name.clone(),
            });
        }
        for &v in &data.stmts {
            let old = f.value(v);
            let kind = match &old.kind {
                ValueKind::Stmt(s) => ValueKind::Stmt(zy_ir::Stmt {
                    op: s.op.clone(),
                    args: s.args.iter().map(map_op).collect(),
                }),
                other => other.clone(),
            };
            out.values.push(ValueData {
                kind,
                ty: old.ty.clone(),
                span: span_of(old),
                name: old.name.clone(),
            });
        }
        let term = data.term.map(&map_op, &map_call);
        out.blocks.push(BlockData {
            params: data.params.iter().map(|v| value_map[v]).collect(),
            stmts: data.stmts.iter().map(|v| value_map[v]).collect(),
            term,
            term_span: data.term_span,
        });
    }
    out
}
