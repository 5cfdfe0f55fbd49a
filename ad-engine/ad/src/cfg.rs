//! Control-flow facts the transform needs: a single exit block, which blocks sit in loops, which
//! blocks can reach the exit.

use rustc_hash::FxHashMap;
use zy_ir::{Block, BlockCall, Function, Operand, Span, Terminator, Type, Value};

use crate::AdError;

/// Rewrite `func` so exactly one block returns: several `return`s jump to a new exit block
/// whose parameter is the returned value. Errors if no path returns.
pub fn single_exit(func: &Function) -> Result<(Function, Block), AdError> {
    let returns: Vec<Block> = func
        .block_ids()
        .filter(|&b| matches!(func.block(b).term, Terminator::Return(_)))
        .collect();
    if !func.predecessors()[0].is_empty() {
        return Err(AdError::new(
            func.span,
            "cannot differentiate: the entry block is a loop target",
        ));
    }
    match returns.as_slice() {
        [] => Err(AdError::new(
            func.span,
            format!(
                "cannot differentiate `{}`: it never returns normally",
                func.name
            ),
        )),
        [one] => Ok((func.clone(), *one)),
        _ => {
            let mut f = func.clone();
            let exit = f.add_block();
            let y = f.add_param(exit, f.ret.clone(), Span::default(), None);
            for b in returns {
                let data = f.block(b);
                let span = data.term_span;
                if let Terminator::Return(x) = data.term.clone() {
                    let call = BlockCall {
                        block: exit,
                        args: vec![x],
                    };
                    f.set_term(b, Terminator::Jump(call), span);
                }
            }
            f.set_term(exit, Terminator::Return(y.into()), func.span);
            Ok((f, exit))
        }
    }
}

/// For each block: does it lie on a cycle of the CFG (may it run more than once per call)?
pub fn in_loop(func: &Function) -> Vec<bool> {
    let n = func.blocks.len();
    (0..n)
        .map(|i| {
            let start = Block(i as u32);
            let mut seen = vec![false; n];
            let mut stack = func.block(start).term.successors();
            while let Some(b) = stack.pop() {
                if b == start {
                    return true;
                }
                if !std::mem::replace(&mut seen[b.index()], true) {
                    stack.extend(func.block(b).term.successors());
                }
            }
            false
        })
        .collect()
}

/// For each block: can control get from it to `exit`?
pub fn reaches(func: &Function, exit: Block) -> Vec<bool> {
    let preds = func.predecessors();
    let mut ok = vec![false; func.blocks.len()];
    let mut stack = vec![exit];
    while let Some(b) = stack.pop() {
        if !std::mem::replace(&mut ok[b.index()], true) {
            stack.extend(preds[b.index()].iter().copied());
        }
    }
    ok
}

/// Can control get from `from` to `to` (in at least one step)?
pub fn reaches_from(func: &Function, from: Block, to: Block) -> bool {
    let mut seen = vec![false; func.blocks.len()];
    let mut stack = func.block(from).term.successors();
    while let Some(b) = stack.pop() {
        if b == to {
            return true;
        }
        if !std::mem::replace(&mut seen[b.index()], true) {
            stack.extend(func.block(b).term.successors());
        }
    }
    false
}

/// The source span of the innermost loop around block `b` (the span of the jump that enters
/// its header from outside, which lowering gives the whole loop statement), or the default
/// span if `b` is in no loop.
pub fn loop_span(func: &Function, b: Block) -> Span {
    let rpo = func.reverse_postorder();
    let pos = |x: Block| rpo.iter().position(|&y| y == x);
    let Some(at) = pos(b) else {
        return Span::default();
    };
    let preds = func.predecessors();
    // Headers are targets of back edges; the innermost around `b` comes last in order.
    let header = rpo[..=at].iter().rev().copied().find(|&h| {
        let back = preds[h.index()]
            .iter()
            .any(|&q| pos(q).is_some_and(|i| i >= pos(h).unwrap_or(0)));
        back && (h == b || reaches_from(func, h, b)) && (h == b || reaches_from(func, b, h))
    });
    let Some(h) = header else {
        return Span::default();
    };
    let hpos = pos(h).unwrap_or(0);
    preds[h.index()]
        .iter()
        .find(|&&q| pos(q).is_some_and(|i| i < hpos))
        .map_or(Span::default(), |&q| func.block(q).term_span)
}

/// For each of `values` (statement values of `func`): is it used on every path from its
/// definition to the exit (by a statement, the block's condition or return, or a jump on the
/// edge taken)? A backward must-analysis, as of anticipated uses.
pub fn used_on_every_path(func: &Function, values: &[Value]) -> Vec<bool> {
    let index: FxHashMap<Value, usize> = values.iter().enumerate().map(|(i, v)| (*v, i)).collect();
    let n = values.len();
    let nb = func.blocks.len();
    let ids = |ops: &mut dyn Iterator<Item = &Operand>| -> Vec<usize> {
        ops.filter_map(|o| o.as_value().and_then(|v| index.get(&v).copied()))
            .collect()
    };
    // Per block: what it defines and uses (not counting jump arguments), and per edge what the
    // jump passes.
    let mut defs = vec![Vec::new(); nb];
    let mut uses = vec![Vec::new(); nb];
    let mut edges: Vec<Vec<(Block, Vec<usize>)>> = vec![Vec::new(); nb];
    for b in func.block_ids() {
        let data = func.block(b);
        for &v in &data.stmts {
            if let Some(&i) = index.get(&v) {
                defs[b.index()].push(i);
            }
            if let Some(s) = func.stmt(v) {
                uses[b.index()].extend(ids(&mut s.args.iter()));
            }
        }
        match &data.term {
            Terminator::Return(x) | Terminator::Branch { cond: x, .. } => {
                uses[b.index()].extend(ids(&mut std::iter::once(x)));
            }
            _ => {}
        }
        for c in data.term.calls() {
            edges[b.index()].push((c.block, ids(&mut c.args.iter())));
        }
    }
    // ANTIC_in(b) = uses(b) ∪ (ANTIC_out(b) − defs(b)); ANTIC_out(b) = ∩ over edges of
    // (ANTIC_in(s) ∪ edge uses); greatest fixpoint.
    let mut antic_in = vec![vec![true; n]; nb];
    let mut antic_out = vec![vec![true; n]; nb];
    loop {
        let mut changed = false;
        for b in func.reverse_postorder().into_iter().rev() {
            let i = b.index();
            let mut out = vec![!edges[i].is_empty(); n];
            for (s, passed) in &edges[i] {
                let mut via = antic_in[s.index()].clone();
                for &k in passed {
                    via[k] = true;
                }
                for (o, v) in out.iter_mut().zip(via) {
                    *o &= v;
                }
            }
            let mut inn = out.clone();
            for &k in &defs[i] {
                inn[k] = false;
            }
            for &k in &uses[i] {
                inn[k] = true;
            }
            if out != antic_out[i] || inn != antic_in[i] {
                changed = true;
                antic_out[i] = out;
                antic_in[i] = inn;
            }
        }
        if !changed {
            break;
        }
    }
    let mut used = vec![false; n];
    for b in func.block_ids() {
        let data = func.block(b);
        // A use after the definition within the block, or on every path on from the block.
        for (pos, &v) in data.stmts.iter().enumerate() {
            let Some(&k) = index.get(&v) else { continue };
            let in_block = data.stmts[pos + 1..].iter().any(|&w| {
                func.stmt(w)
                    .is_some_and(|s| s.args.contains(&Operand::Value(v)))
            }) || matches!(&data.term, Terminator::Return(x) | Terminator::Branch { cond: x, .. } if *x == Operand::Value(v));
            used[k] = in_block || antic_out[b.index()][k];
        }
    }
    used
}

/// Is `t` Float64 (the one type whose gradient is added with `+`)?
pub fn is_f64(t: &Type) -> bool {
    *t == Type::Float64
}

/// For each block: would a variable defined in it need more than `cap` φs on the way to the
/// exit, its iterated dominance frontier holding more than `cap` blocks? Nested `if`s put each
/// join in the frontier of the one around it, so the k-th innermost of n joins has n − k.
pub fn frontier_deeper_than(func: &Function, cap: usize) -> Vec<bool> {
    let n = func.blocks.len();
    let doms = zy_ir::cfg::Dominators::new(func);
    let preds = func.predecessors();
    // Dominance frontiers (Cooper, Harvey and Kennedy): walk up from each predecessor of a
    // join to the join's immediate dominator. A block already holding the join ends the walk,
    // so a chain of `elseif`s costs its length, not its square.
    let mut frontier: Vec<Vec<Block>> = vec![Vec::new(); n];
    for b in func.block_ids() {
        let Some(top) = doms.idom(b).filter(|_| preds[b.index()].len() > 1) else {
            continue;
        };
        for &p in &preds[b.index()] {
            let mut runner = Some(p).filter(|&p| doms.is_reachable(p));
            while let Some(r) = runner.filter(|&r| r != top) {
                if frontier[r.index()].last() == Some(&b) {
                    break;
                }
                frontier[r.index()].push(b);
                runner = doms.idom(r);
            }
        }
    }
    (0..n)
        .map(|i| {
            let mut seen: Vec<Block> = Vec::new();
            let mut next = 0;
            let mut visit = frontier[i].clone();
            while let Some(&j) = visit.get(next) {
                next += 1;
                if seen.contains(&j) {
                    continue;
                }
                seen.push(j);
                if seen.len() > cap {
                    return true;
                }
                visit.extend(frontier[j.index()].iter().copied());
            }
            false
        })
        .collect()
}
