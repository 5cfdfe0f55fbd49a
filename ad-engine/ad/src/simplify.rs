//! Clean-up of generated IR: `0.0 + x` becomes `x` (gradient accumulation starting from a zero;
//! also `accum` of a union of numbers' zero tangent),
//! pure statements whose results are unused are dropped, empty blocks that only jump on are
//! bypassed, and blocks and values are renumbered in reverse post-order.

use rustc_hash::{FxHashMap, FxHashSet};
use zy_ir::{
    Block, BlockCall, Const, Function, Op, Operand, Prim, Stmt, Terminator, Type, Value, ValueKind,
};

/// Drop dead code and unreachable blocks of primal code (no arithmetic folding: `x + 0.0` is
/// not `x` for `x = -0.0`).
pub(crate) fn tidy(func: &mut Function) {
    fold_tuple_fields(func);
    remove_dead(func);
    thread_jumps(func);
    *func = compact(func);
}

/// [`tidy`], then drop the loop-carried values nothing needs ([`remove_dead_params`]): for code
/// with inlined drivers, whose primal value a caller may drop while its loop still runs.
pub(crate) fn prune(func: &mut Function) {
    tidy(func);
    remove_dead_params(func);
    remove_dead(func);
    *func = compact(func);
}

/// Renumber blocks in source-like order (the transform keeps the primal's block numbers, so
/// names such as `br#3` in its output refer to these).
pub(crate) fn renumber(func: &mut Function) {
    *func = compact(func);
}

/// Simplify a forward function: like [`simplify`] but its CFG stays the primal's.
pub(crate) fn simplify_forward(func: &mut Function) {
    fold_tuple_fields(func);
    merge_reads(func);
    remove_dead(func);
    *func = compact(func);
}

/// Simplify generated code in place (gradient accumulation may drop additions of zero).
pub(crate) fn simplify(func: &mut Function) {
    fold_tuple_fields(func);
    merge_reads(func);
    fold_zero_adds(func);
    remove_dead(func);
    thread_jumps(func);
    *func = compact(func);
}

/// Send jumps into an empty block that just jumps on straight to its target, passing its
/// parameters (a φ that only forwards) or values defined before it. Besides saving a jump, this
/// keeps the loops of a pullback single-entry: the reversed early exit from a loop jumps to
/// such a block in the middle of the reversed loop, and a loop entered in two places is not a
/// CFG the next (nested) transform can differentiate.
///
/// Blocks are visited in post-order, a block's successors before it: each jump then moves once
/// to the end of a chain of such blocks, already threaded, rather than one block at a time (a
/// chain of `n` joins passing `n` values each, as a pullback of `n` nested `if`s holds, cost
/// `n³`).
fn thread_jumps(func: &mut Function) {
    let mut uses = Uses::of(func);
    for b in post_order_then_unreachable(func) {
        let data = func.block(b);
        let Terminator::Jump(next) = data.term.clone() else {
            continue;
        };
        if !data.stmts.is_empty() || next.block == b {
            continue;
        }
        let params = data.params.clone();
        if !params.is_empty() && uses.outside(func, b, &params) {
            continue;
        }
        let index: FxHashMap<Value, usize> =
            params.iter().enumerate().map(|(i, p)| (*p, i)).collect();
        // The jump a call of `b` with `args` becomes.
        let through = |call: &BlockCall| BlockCall {
            block: next.block,
            args: next
                .args
                .iter()
                .map(|a| match a {
                    Operand::Value(v) => match index.get(v) {
                        Some(&i) => call.args.get(i).cloned().unwrap_or_else(|| a.clone()),
                        None => a.clone(),
                    },
                    Operand::Const(_) => a.clone(),
                })
                .collect(),
        };
        for p in uses.predecessors(b) {
            uses.forget(func, p);
            let term = &mut func.block_mut(p).term;
            match term {
                Terminator::Jump(c) if c.block == b => *c = through(c),
                Terminator::Branch {
                    then_to, else_to, ..
                } => {
                    let other = |c: &BlockCall| c.block;
                    if then_to.block == b && other(else_to) != next.block {
                        *then_to = through(then_to);
                    } else if else_to.block == b && other(then_to) != next.block {
                        *else_to = through(else_to);
                    }
                }
                _ => {}
            }
            uses.note(func, p);
        }
    }
}

/// The blocks other than the entry: those reachable from it in post-order, then the others.
fn post_order_then_unreachable(func: &Function) -> Vec<Block> {
    let mut order = func.reverse_postorder();
    let mut reached = vec![false; func.blocks.len()];
    for b in &order {
        reached[b.index()] = true;
    }
    order.reverse();
    order.retain(|&b| b != Block::ENTRY);
    order.extend(func.block_ids().filter(|b| !reached[b.index()]));
    order
}

/// Where [`thread_jumps`] finds a block's predecessors and the uses of values, kept up to date
/// as it rewrites terminators (statements do not change): looking them up in the whole
/// function for every block made a deeply nested function's gradient quadratic in its blocks.
struct Uses {
    /// By value index: whether some statement uses the value.
    in_stmts: Vec<bool>,
    /// By value index: how many times terminators use the value.
    in_terms: Vec<u32>,
    /// By block index: the blocks whose terminators jump to it.
    preds: Vec<std::collections::BTreeSet<Block>>,
}

impl Uses {
    fn of(func: &Function) -> Uses {
        let mut uses = Uses {
            in_stmts: vec![false; func.values.len()],
            in_terms: vec![0; func.values.len()],
            preds: vec![Default::default(); func.blocks.len()],
        };
        for b in func.block_ids() {
            for &v in &func.block(b).stmts {
                for o in func.stmt(v).map_or(&[][..], |st| &st.args) {
                    if let Some(used) = value_of(o).and_then(|v| uses.in_stmts.get_mut(v.index())) {
                        *used = true;
                    }
                }
            }
            uses.note(func, b);
        }
        uses
    }

    /// Is one of `values` used outside block `b`'s terminator?
    fn outside(&self, func: &Function, b: Block, values: &[Value]) -> bool {
        let mut in_b: FxHashMap<Value, u32> = FxHashMap::default();
        for v in func
            .block(b)
            .term
            .operands()
            .into_iter()
            .filter_map(value_of)
        {
            *in_b.entry(v).or_default() += 1;
        }
        values.iter().any(|v| {
            let here = in_b.get(v).copied().unwrap_or(0);
            self.in_stmts.get(v.index()).copied().unwrap_or(false)
                || self.in_terms.get(v.index()).is_some_and(|&n| n > here)
        })
    }

    /// The blocks that jump to `b`, in block order.
    fn predecessors(&self, b: Block) -> Vec<Block> {
        self.preds
            .get(b.index())
            .map_or_else(Vec::new, |p| p.iter().copied().collect())
    }

    /// Record the uses and jumps of `b`'s terminator.
    fn note(&mut self, func: &Function, b: Block) {
        let term = &func.block(b).term;
        for o in term.operands() {
            if let Some(n) = value_of(o).and_then(|v| self.in_terms.get_mut(v.index())) {
                *n += 1;
            }
        }
        for s in term.successors() {
            if let Some(p) = self.preds.get_mut(s.index()) {
                p.insert(b);
            }
        }
    }

    /// Drop what [`Uses::note`] recorded of `b`'s terminator, before it changes.
    fn forget(&mut self, func: &Function, b: Block) {
        let term = &func.block(b).term;
        for o in term.operands() {
            if let Some(n) = value_of(o).and_then(|v| self.in_terms.get_mut(v.index())) {
                *n = n.saturating_sub(1);
            }
        }
        for s in term.successors() {
            if let Some(p) = self.preds.get_mut(s.index()) {
                p.remove(&b);
            }
        }
    }
}

/// The value an operand refers to, if it is not a constant.
fn value_of(o: &Operand) -> Option<Value> {
    match o {
        Operand::Value(v) => Some(*v),
        Operand::Const(_) => None,
    }
}

/// Reverse post-order with successors visited last-first, so that in a diamond the `then`
/// block comes before the `else` block, as in the source.
fn source_order(func: &Function) -> Vec<Block> {
    let mut seen = vec![false; func.blocks.len()];
    let mut post = Vec::new();
    let mut stack = vec![(Block::ENTRY, 0usize)];
    seen[0] = true;
    while let Some((b, i)) = stack.pop() {
        let succs: Vec<Block> = func.block(b).term.successors().into_iter().rev().collect();
        if let Some(&s) = succs.get(i) {
            stack.push((b, i + 1));
            if !std::mem::replace(&mut seen[s.index()], true) {
                stack.push((s, 0));
            }
        } else {
            post.push(b);
        }
    }
    post.reverse();
    post
}

/// A copy of `func` with only the reachable blocks, numbered in [`source_order`], and values
/// numbered in order of definition.
fn compact(func: &Function) -> Function {
    let mut out = Function::new(func.name.clone(), func.span);
    out.arg_names = func.arg_names.clone();
    out.instance = func.instance.clone();
    out.ret = func.ret.clone();
    let order = source_order(func);
    let mut bmap: FxHashMap<Block, Block> = FxHashMap::default();
    for (i, &b) in order.iter().enumerate() {
        bmap.insert(
            b,
            if i == 0 {
                Block::ENTRY
            } else {
                out.add_block()
            },
        );
    }
    let mut vmap: FxHashMap<Value, Value> = FxHashMap::default();
    let map_op = |vmap: &FxHashMap<Value, Value>, op: &Operand| match op {
        Operand::Value(v) => vmap.get(v).map_or(op.clone(), |n| Operand::Value(*n)),
        c => c.clone(),
    };
    for &b in &order {
        let nb = bmap[&b];
        for &p in &func.block(b).params {
            let d = func.value(p);
            vmap.insert(p, out.add_param(nb, d.ty.clone(), d.span, d.name.clone()));
        }
    }
    for &b in &order {
        let nb = bmap[&b];
        for &v in &func.block(b).stmts {
            let d = func.value(v);
            let Some(s) = func.stmt(v) else { continue };
            let stmt = Stmt {
                op: s.op.clone(),
                args: s.args.iter().map(|a| map_op(&vmap, a)).collect(),
            };
            let nv = out.push_stmt(nb, stmt, d.ty.clone(), d.span);
            out.values[nv.index()].name = d.name.clone();
            vmap.insert(v, nv);
        }
    }
    for &b in &order {
        let data = func.block(b);
        let call = |c: &BlockCall| BlockCall {
            block: bmap.get(&c.block).copied().unwrap_or(c.block),
            args: c.args.iter().map(|a| map_op(&vmap, a)).collect(),
        };
        let term = data.term.map(&|x| map_op(&vmap, x), &call);
        out.set_term(bmap[&b], term, data.term_span);
    }
    zy_ir::debug_verify(&out, "simplification");
    out
}

/// `getfield(tuple(a, b, ...), k)` is the `k`-th operand.
fn fold_tuple_fields(func: &mut Function) {
    let mut subst: FxHashMap<Value, Operand> = FxHashMap::default();
    for b in func.block_ids() {
        for &v in &func.block(b).stmts {
            let Some(s) = func.stmt(v) else { continue };
            let (Op::Prim(Prim::GetField), [Operand::Value(t), Operand::Const(Const::Int(k))]) =
                (&s.op, s.args.as_slice())
            else {
                continue;
            };
            if let Some(ts) = func.stmt(*t).filter(|ts| ts.op == Op::Prim(Prim::Tuple)) {
                if let Some(x) = usize::try_from(*k - 1).ok().and_then(|i| ts.args.get(i)) {
                    subst.insert(v, x.clone());
                }
            }
        }
    }
    // `g = gradient(f, x)[1]`: the field keeps the source name of what replaces it (the
    // gradient debugger's trace and the IR views show `g` on the inlined gradient's value).
    let mut folded: Vec<(&Value, &Operand)> = subst.iter().collect();
    folded.sort_by_key(|(v, _)| v.index());
    for (v, x) in folded {
        if let (Some(x), Some(name)) = (x.as_value(), func.value(*v).name.clone()) {
            if func.value(x).name.is_none() {
                func.values[x.index()].name = Some(name);
            }
        }
    }
    substitute(func, &subst);
}

/// Within a block, a read (`x[i]`, `length(x)`, `size(x)`) repeating an earlier one with the
/// same operands and no possible write in between is the earlier one's value: it cannot throw
/// where the first did not, and the array holds the same contents.
fn merge_reads(func: &mut Function) {
    let mut subst: FxHashMap<Value, Operand> = FxHashMap::default();
    for b in func.block_ids().collect::<Vec<_>>() {
        let mut seen: Vec<Value> = Vec::new();
        let mut keep = Vec::new();
        for &v in &func.block(b).stmts {
            let Some(s) = func.stmt(v) else {
                keep.push(v);
                continue;
            };
            let plain = s
                .args
                .iter()
                .all(|a| matches!(a, Operand::Value(_) | Operand::Const(Const::Int(_))));
            match &s.op {
                Op::Prim(Prim::GetIndex | Prim::Length | Prim::Size) if plain => {
                    let same = seen.iter().copied().find(|&u| {
                        func.stmt(u)
                            .is_some_and(|t| t.op == s.op && t.args == s.args)
                            && func.ty(u) == func.ty(v)
                    });
                    if let Some(u) = same {
                        subst.insert(v, u.into());
                        continue;
                    }
                    seen.push(v);
                }
                Op::Prim(p) if p.info().effects.mutates.is_none() && !p.info().effects.calls => {}
                Op::New(_) => {}
                _ => seen.clear(),
            }
            keep.push(v);
        }
        func.block_mut(b).stmts = keep;
    }
    substitute(func, &subst);
}

/// Replace uses of the values in `subst` (following chains) everywhere.
pub(crate) fn substitute(func: &mut Function, subst: &FxHashMap<Value, Operand>) {
    if subst.is_empty() {
        return;
    }
    let resolve = |op: &Operand| -> Operand {
        let mut op = op.clone();
        while let Some(next) = op.as_value().and_then(|v| subst.get(&v)) {
            op = next.clone();
        }
        op
    };
    for b in func.block_ids().collect::<Vec<_>>() {
        for v in func.block(b).stmts.clone() {
            if let ValueKind::Stmt(s) = &mut func.values[v.index()].kind {
                for a in s.args.iter_mut() {
                    *a = resolve(a);
                }
            }
        }
        for a in func.block_mut(b).term.operands_mut() {
            *a = resolve(a);
        }
    }
}

/// `0.0 + x` is `x`, and so is `accum(zero_tangent(), x)` of a union of numbers' tangent
/// (`Union{Float64, Nothing}`, the seed of a function returning `Union{Float64, Int64}`).
fn fold_zero_adds(func: &mut Function) {
    let zero = Operand::Const(Const::f64(0.0));
    let zeros: FxHashSet<Value> = func
        .block_ids()
        .flat_map(|b| func.block(b).stmts.clone())
        .filter(|&v| {
            func.stmt(v)
                .is_some_and(|s| s.op == Op::Prim(Prim::ZeroTangent) && s.args.is_empty())
                && matches!(func.ty(v), Type::Union(u)
                    if u.members.iter().all(|m| matches!(m, Type::Float64 | Type::Nothing)))
        })
        .collect();
    let is_zero = |op: &Operand| op.as_value().is_some_and(|v| zeros.contains(&v));
    // Folded `accum`s, dropped at the end (the table keeps an `accum` that may throw).
    let mut folded = Vec::new();
    let mut subst: FxHashMap<Value, Operand> = FxHashMap::default();
    let resolve = |subst: &FxHashMap<Value, Operand>, op: &Operand| -> Operand {
        let mut op = op.clone();
        while let Some(next) = op.as_value().and_then(|v| subst.get(&v)) {
            op = next.clone();
        }
        op
    };
    for b in func.reverse_postorder() {
        for v in func.block(b).stmts.clone() {
            let ValueKind::Stmt(s) = &mut func.values[v.index()].kind else {
                continue;
            };
            for a in s.args.iter_mut() {
                *a = resolve(&subst, a);
            }
            if s.op == Op::Prim(Prim::Add) && s.args.len() == 2 {
                if s.args[0] == zero {
                    subst.insert(v, s.args[1].clone());
                } else if s.args[1] == zero {
                    subst.insert(v, s.args[0].clone());
                }
            }
            let other = match s.args.as_slice() {
                [z, x] | [x, z] if s.op == Op::Prim(Prim::Accum) && is_zero(z) => Some(x.clone()),
                _ => None,
            };
            if let Some(x) =
                other.filter(|x| x.as_value().is_some_and(|w| func.ty(w) == func.ty(v)))
            {
                subst.insert(v, x);
                folded.push(v);
            }
        }
    }
    // φ arguments and terminators may use values defined later in reverse post-order.
    for b in func.block_ids().collect::<Vec<_>>() {
        for v in func.block(b).stmts.clone() {
            if let ValueKind::Stmt(s) = &mut func.values[v.index()].kind {
                for a in s.args.iter_mut() {
                    *a = resolve(&subst, a);
                }
            }
        }
        for a in func.block_mut(b).term.operands_mut() {
            *a = resolve(&subst, a);
        }
        func.block_mut(b).stmts.retain(|v| !folded.contains(v));
    }
}

/// Can this operation be dropped when its result is unused? As the primitive table says
/// ([`Prim::is_removable`]); a new object has no effect.
pub(crate) fn is_pure(op: &Op) -> bool {
    match op {
        Op::Prim(p) => p.is_removable(),
        Op::New(_) => true,
        _ => false,
    }
}

fn remove_dead(func: &mut Function) {
    remove_unused(func, &|_, op| is_pure(op));
}

/// Drop statements whose results are unused and that `droppable` accepts, until none is left.
pub(crate) fn remove_unused(func: &mut Function, droppable: &dyn Fn(Value, &Op) -> bool) {
    loop {
        let mut used = vec![false; func.values.len()];
        for b in func.block_ids() {
            let data = func.block(b);
            for &v in &data.stmts {
                if let Some(s) = func.stmt(v) {
                    for a in s.args.iter().filter_map(Operand::as_value) {
                        used[a.index()] = true;
                    }
                }
            }
            for a in data
                .term
                .operands()
                .into_iter()
                .filter_map(Operand::as_value)
            {
                used[a.index()] = true;
            }
        }
        let mut changed = false;
        for b in func.block_ids().collect::<Vec<_>>() {
            let keep: Vec<Value> = func
                .block(b)
                .stmts
                .iter()
                .copied()
                .filter(|v| used[v.index()] || !func.stmt(*v).is_some_and(|s| droppable(*v, &s.op)))
                .collect();
            if keep.len() != func.block(b).stmts.len() {
                changed = true;
                func.block_mut(b).stmts = keep;
            }
        }
        if !changed {
            return;
        }
    }
}

/// Drop the parameters of non-entry blocks that nothing needs, with the arguments jumps pass
/// them: a cycle of φs and pure statements feeding only each other (a loop's running sum whose
/// result is dropped). A value is needed when a statement that cannot be dropped, a return or
/// a branch uses it, or a needed value is computed from it. The statements left unused are
/// for [`remove_dead`]; the parameters' numbering is for [`compact`].
fn remove_dead_params(func: &mut Function) {
    let n = func.values.len();
    let mut live = vec![false; n];
    let mut work: Vec<Value> = Vec::new();
    let mut incoming: Vec<Vec<Operand>> = vec![Vec::new(); n];
    let mark = |o: &Operand, live: &mut Vec<bool>, work: &mut Vec<Value>| {
        if let Some(v) = o.as_value() {
            if !live[v.index()] {
                live[v.index()] = true;
                work.push(v);
            }
        }
    };
    for b in func.block_ids() {
        let data = func.block(b);
        for &v in &data.stmts {
            if let Some(s) = func.stmt(v).filter(|s| !is_pure(&s.op)) {
                for a in &s.args {
                    mark(a, &mut live, &mut work);
                }
            }
        }
        match &data.term {
            Terminator::Return(x) | Terminator::Branch { cond: x, .. } => {
                mark(x, &mut live, &mut work)
            }
            Terminator::Jump(_) | Terminator::Unreachable | Terminator::Handle { .. } => {}
        }
        for call in data.term.calls() {
            for (p, a) in func.block(call.block).params.iter().zip(&call.args) {
                incoming[p.index()].push(a.clone());
            }
        }
    }
    while let Some(v) = work.pop() {
        let uses: Vec<Operand> = match &func.value(v).kind {
            ValueKind::Stmt(s) => s.args.clone(),
            ValueKind::Param { .. } => std::mem::take(&mut incoming[v.index()]),
        };
        for a in &uses {
            mark(a, &mut live, &mut work);
        }
    }
    for b in func.block_ids().collect::<Vec<_>>() {
        let params = func.block(b).params.clone();
        if b == Block::ENTRY || params.iter().all(|p| live[p.index()]) {
            continue;
        }
        let keep: Vec<bool> = params.iter().map(|p| live[p.index()]).collect();
        func.block_mut(b).params = params.into_iter().filter(|p| live[p.index()]).collect();
        let prune_call = |c: &mut BlockCall| {
            if c.block == b {
                let args = std::mem::take(&mut c.args);
                c.args = args
                    .into_iter()
                    .zip(&keep)
                    .filter(|(_, k)| **k)
                    .map(|(a, _)| a)
                    .collect();
            }
        };
        for p in func.block_ids().collect::<Vec<_>>() {
            for c in func.block_mut(p).term.calls_mut() {
                prune_call(c);
            }
        }
    }
}

/// Within a block, a read `A[i]` after a write `A[i] = v` with the same operands is `v`, when no
/// write in between can reach `A`: writes to other fresh arrays (two allocations made here are
/// distinct objects) cannot, any other write or call may. Forward over reverse reads back each
/// gradient entry and its tangent right after writing them.
pub(crate) fn forward_stores(func: &mut Function) {
    let fresh = |func: &Function, v: &Operand| {
        crate::driver::fresh(func, v)
            || v.as_value()
                .and_then(|v| func.stmt(v))
                .is_some_and(|s| s.op == Op::Prim(Prim::ZeroTangent))
    };
    let mut subst: FxHashMap<Value, Operand> = FxHashMap::default();
    for b in func.block_ids().collect::<Vec<_>>() {
        // The writes known: (array and indices, value written).
        let mut known: Vec<(Vec<Operand>, Operand)> = Vec::new();
        let mut keep = Vec::new();
        for &v in &func.block(b).stmts {
            let Some(s) = func.stmt(v) else {
                keep.push(v);
                continue;
            };
            match &s.op {
                Op::Prim(Prim::GetIndex) => {
                    let hit = known
                        .iter()
                        .find(|(at, x)| *at == s.args && func.operand_ty(x) == *func.ty(v));
                    // The read cannot throw where the write did not.
                    if let Some((_, x)) = hit {
                        subst.insert(v, x.clone());
                        continue;
                    }
                }
                Op::Prim(Prim::SetIndex) if s.args.len() >= 3 => {
                    let target = &s.args[0];
                    let alone = fresh(func, target);
                    known.retain(|(at, _)| alone && at[0] != *target && fresh(func, &at[0]));
                    let mut at = vec![target.clone()];
                    at.extend(s.args[2..].iter().cloned());
                    known.push((at, s.args[1].clone()));
                }
                Op::Prim(p) if p.info().effects.mutates.is_none() && !p.info().effects.calls => {}
                Op::New(_) => {}
                _ => known.clear(),
            }
            keep.push(v);
        }
        func.block_mut(b).stmts = keep;
    }
    substitute(func, &subst);
}

/// Within a block, a write `A[i] = v` that a later write with the same operands overwrites is
/// dropped when nothing in between reads an array or may throw: only arithmetic that cannot
/// throw and other writes (a write through an alias is overwritten too). Forward over reverse
/// writes each gradient entry and its tangent twice per iteration of a loop such as
/// Rosenbrock's (`x̄[i] += ...` from two terms).
pub(crate) fn dead_stores(func: &mut Function) {
    for b in func.block_ids().collect::<Vec<_>>() {
        let stmts = func.block(b).stmts.clone();
        let mut dead = Vec::new();
        for (k, &v) in stmts.iter().enumerate() {
            let Some(s) = func.stmt(v).filter(|s| s.op == Op::Prim(Prim::SetIndex)) else {
                continue;
            };
            for &w in &stmts[k + 1..] {
                let Some(t) = func.stmt(w) else { break };
                if t.op == Op::Prim(Prim::SetIndex) {
                    if t.args[0] == s.args[0] && t.args[2..] == s.args[2..] {
                        dead.push(v);
                        break;
                    }
                    continue;
                }
                let inert = match &t.op {
                    Op::Prim(p) => {
                        let fx = p.info().effects;
                        fx == zy_ir::Effects::PURE
                            && !t.args.iter().any(|a| {
                                matches!(func.operand_ty(a), Type::Array(..) | Type::Adjoint(_))
                            })
                    }
                    _ => false,
                };
                if !inert {
                    break;
                }
            }
        }
        func.block_mut(b).stmts.retain(|v| !dead.contains(v));
    }
}
