//! Inlining of generated code before it is differentiated again (nested AD): calls of
//! drivers and forward/pullback functions, and calls of a `back` closure made in the same
//! function, are replaced by the callee's body, so the transform sees plain operations.

use rustc_hash::{FxHashMap, FxHashSet};
use zy_ir::{
    Block, BlockCall, Const, Function, Instance, Op, Operand, Prim, Stmt, Terminator, Type,
    TypedProgram, Value, ValueKind,
};

use crate::names;
use crate::recursion::Recursive;

/// Upper bound on the size of a function grown by inlining.
const MAX_VALUES: usize = 20_000;

/// `func` with its calls of generated functions and of locally made `back` closures inlined.
pub fn inline_generated(func: &Function, prog: &TypedProgram) -> Function {
    inline_in(func, prog, false)
}

/// [`inline_generated`], for the reverse transform: pullback closures that pass through a
/// tape are replaced by their tapes and their calls inlined too ([`crate::defunc`]).
pub fn inline_for_reverse(func: &Function, prog: &TypedProgram) -> Function {
    inline_in(func, prog, true)
}

fn inline_in(func: &Function, prog: &TypedProgram, defunc: bool) -> Function {
    let mut f = func.clone();
    let generated = |inst: &Instance, _: &Function| names::is_generated(&inst.name);
    // Found once a generated callee is met, and then once for the whole function.
    let recursive = std::cell::OnceCell::new();
    let recursive = |inst: &Instance| recursive.get_or_init(|| Recursive::of(prog)).contains(inst);
    loop {
        match next_site(&f, prog, &generated, &recursive) {
            Some((block, at, callee, args)) => {
                if f.values.len() + callee.values.len() > MAX_VALUES {
                    break;
                }
                inline_at(&mut f, block, at, &callee, args);
            }
            None if defunc && crate::defunc::defunctionalize(&mut f, prog, MAX_VALUES) => {}
            None => break,
        }
    }
    zy_ir::debug_verify(&f, "inlining");
    f
}

/// Largest generated function (in values) that [`inline_slices`] inlines.
const SMALL_VALUES: usize = 64;

/// `func` with its calls of small functions without loops that lead to a slice (`slice_copy`,
/// `accum_slice!`) inlined, and with them every call of a small generated function (`f⁺`, and
/// `f⁻` through the pullback `func` makes), its straight-line blocks merged; `None` when no
/// call leads to a slice. For the JIT: its fusion
/// reads a slice as an offset into its parent when it sees the slice beside the broadcasts
/// that read it. The operations and their order are unchanged, so are the results.
/// `recursive` holds `prog`'s recursive instances, which stay calls.
pub fn inline_slices(
    func: &Function,
    prog: &TypedProgram,
    recursive: &Recursive,
) -> Option<Function> {
    let small = |inst: &Instance, body: &Function| {
        body.values.len() <= SMALL_VALUES
            && straight(body)
            && !recursive.contains(inst)
            && !body
                .blocks
                .iter()
                .any(|b| matches!(b.term, Terminator::Handle { .. }))
    };
    let leads_to_slice = func.values.iter().any(|d| match &d.kind {
        ValueKind::Stmt(Stmt {
            op: Op::Invoke(inst),
            ..
        }) => reaches_slice(prog, inst, &small),
        _ => false,
    });
    if !leads_to_slice {
        return None;
    }
    // Generated callees (their pullbacks too) whole; others when they lead to a slice.
    let accept = |inst: &Instance, body: &Function| {
        small(inst, body) && (names::is_generated(&inst.name) || reaches_slice(prog, inst, &small))
    };
    let mut f = func.clone();
    let recursive = |inst: &Instance| recursive.contains(inst);
    while let Some((block, at, callee, args)) = next_site(&f, prog, &accept, &recursive) {
        if f.values.len() + callee.values.len() > MAX_VALUES {
            break;
        }
        inline_at(&mut f, block, at, &callee, args);
    }
    merge_straight_blocks(&mut f);
    crate::simplify::tidy(&mut f);
    zy_ir::debug_verify(&f, "inlining slices");
    Some(f)
}

/// Does the small function `inst` (or one it calls, through small functions) make or
/// accumulate a slice?
fn reaches_slice(
    prog: &TypedProgram,
    inst: &Instance,
    small: &dyn Fn(&Instance, &Function) -> bool,
) -> bool {
    let mut seen: FxHashSet<Instance> = FxHashSet::default();
    let mut todo = vec![inst.clone()];
    while let Some(i) = todo.pop() {
        let Some(body) = prog.functions.get(&i).filter(|b| small(&i, b)) else {
            continue;
        };
        for d in &body.values {
            let ValueKind::Stmt(s) = &d.kind else {
                continue;
            };
            match &s.op {
                Op::Prim(Prim::SliceCopy | Prim::AccumSlice) => return true,
                Op::Invoke(c) if seen.insert((**c).clone()) => todo.push((**c).clone()),
                _ => {}
            }
        }
    }
    false
}

/// Does control never come back to a block of `f` (no loops)?
fn straight(f: &Function) -> bool {
    let order = f.reverse_postorder();
    let pos: FxHashMap<Block, usize> = order.iter().enumerate().map(|(i, b)| (*b, i)).collect();
    order.iter().all(|b| {
        f.block(*b)
            .term
            .successors()
            .iter()
            .all(|s| pos.get(s).is_none_or(|&p| p > pos[b]))
    })
}

/// Append every block that only one jump enters to the block making that jump (the blocks
/// inlining splits), its parameters replaced by the jump's arguments.
fn merge_straight_blocks(f: &mut Function) {
    loop {
        let mut preds = vec![0usize; f.blocks.len()];
        for b in f.reverse_postorder() {
            for s in f.block(b).term.successors() {
                preds[s.index()] += 1;
            }
        }
        let found = f
            .reverse_postorder()
            .into_iter()
            .find_map(|b| match &f.block(b).term {
                Terminator::Jump(c)
                    if c.block != b && c.block != Block::ENTRY && preds[c.block.index()] == 1 =>
                {
                    Some((b, c.clone()))
                }
                _ => None,
            });
        let Some((b, call)) = found else { return };
        let c = call.block;
        let subst: FxHashMap<Value, Operand> = f
            .block(c)
            .params
            .iter()
            .copied()
            .zip(call.args.iter().cloned())
            .collect();
        let stmts = std::mem::take(&mut f.block_mut(c).stmts);
        let (term, span) = (f.block(c).term.clone(), f.block(c).term_span);
        f.block_mut(b).stmts.extend(stmts);
        f.set_term(b, term, span);
        f.set_term(c, Terminator::Unreachable, span);
        crate::simplify::substitute(f, &subst);
    }
}

/// The next call to inline that `accept`s its callee, a call of a `recursive` instance
/// never: `(block, call value, callee body, callee arguments)`.
fn next_site(
    f: &Function,
    prog: &TypedProgram,
    accept: &dyn Fn(&Instance, &Function) -> bool,
    recursive: &dyn Fn(&Instance) -> bool,
) -> Option<(Block, Value, Function, Vec<Operand>)> {
    for b in f.block_ids() {
        for &v in &f.block(b).stmts {
            let Some(s) = f.stmt(v) else { continue };
            match &s.op {
                Op::Invoke(inst) => {
                    let body = prog.functions.get(inst);
                    if let Some(body) = body.filter(|b| accept(inst, b) && !recursive(inst)) {
                        return Some((b, v, (**body).clone(), s.args.clone()));
                    }
                }
                Op::Prim(Prim::CallPullback) => {
                    // back = make_pullback(f⁻, m, tape) in this function: run f⁻ on (tape, ȳ).
                    let back = s.args.first().map(|a| resolve(f, a))?;
                    let mp = back.as_value().and_then(|x| f.stmt(x))?;
                    if mp.op != Op::Prim(Prim::MakePullback) {
                        continue;
                    }
                    let Type::Pullback(sig) = f.operand_ty(&back) else {
                        continue;
                    };
                    let (Some(Const::Func(name)), Some(Const::Int(m))) =
                        (mp.args[0].as_const(), mp.args[1].as_const())
                    else {
                        continue;
                    };
                    let inst = Instance {
                        name: name.clone(),
                        method: *m as u32,
                        args: sig,
                    };
                    if let Some(body) = prog.functions.get(&inst).filter(|b| accept(&inst, b)) {
                        let args = vec![
                            mp.args[2].clone(),
                            s.args.get(1).cloned().unwrap_or(Const::Nothing.into()),
                        ];
                        return Some((b, v, (**body).clone(), args));
                    }
                }
                _ => {}
            }
        }
    }
    None
}

/// See through `getfield(tuple(...), k)` to the element.
fn resolve(f: &Function, op: &Operand) -> Operand {
    let mut op = op.clone();
    for _ in 0..64 {
        let Some(s) = op.as_value().and_then(|v| f.stmt(v)) else {
            break;
        };
        let (Op::Prim(Prim::GetField), [t, Operand::Const(Const::Int(k))]) =
            (&s.op, s.args.as_slice())
        else {
            break;
        };
        let Some(ts) = t.as_value().and_then(|v| f.stmt(v)) else {
            break;
        };
        if ts.op != Op::Prim(Prim::Tuple) {
            break;
        }
        match ts.args.get((*k - 1) as usize) {
            Some(x) => op = x.clone(),
            None => break,
        }
    }
    op
}

/// Replace the call `at` in `block` by `callee`'s body: the block is split after the call,
/// and `at` becomes the parameter of the continuation block that every return jumps to.
fn inline_at(f: &mut Function, block: Block, at: Value, callee: &Function, args: Vec<Operand>) {
    let stmts = f.block(block).stmts.clone();
    let pos = stmts.iter().position(|v| *v == at).unwrap_or(stmts.len());
    let cont = f.add_block();
    let (term, span) = (f.block(block).term.clone(), f.block(block).term_span);
    f.block_mut(cont).stmts = stmts[pos + 1..].to_vec();
    f.set_term(cont, term, span);
    f.block_mut(block).stmts.truncate(pos);
    let returns = callee
        .block_ids()
        .filter(|b| matches!(callee.block(*b).term, Terminator::Return(_)))
        .count();
    if returns > 1 {
        // The call's value is now the continuation's parameter.
        f.values[at.index()].kind = ValueKind::Param {
            block: cont,
            index: 0,
        };
        f.block_mut(cont).params.push(at);
    }
    let (entry, exits) = copy_body(f, callee, args);
    let mut replaced = None;
    for (b, x) in exits {
        if returns > 1 {
            f.set_term(
                b,
                Terminator::Jump(BlockCall {
                    block: cont,
                    args: vec![x],
                }),
                span,
            );
        } else {
            // One return: its operand (defined on the way to the continuation) replaces the
            // call's value.
            let mut subst = FxHashMap::default();
            subst.insert(at, x);
            replaced = Some(subst);
            f.set_term(b, Terminator::Jump(BlockCall::new(cont)), span);
        }
    }
    f.set_term(block, Terminator::Jump(BlockCall::new(entry)), span);
    if let Some(subst) = replaced {
        crate::simplify::substitute(f, &subst);
        // The call statement itself is gone from its block; leave no trace of it.
        f.values[at.index()].kind = ValueKind::Stmt(Stmt {
            op: Op::Prim(Prim::Tuple),
            args: vec![],
        });
    }
}

/// Copy `callee`'s blocks into `f`, its arguments replaced by `args`. Returns the copy of its
/// entry block and, for each returning block, its copy (left without a terminator) with the
/// copy of the returned operand.
pub(crate) fn copy_body(
    f: &mut Function,
    callee: &Function,
    args: Vec<Operand>,
) -> (Block, Vec<(Block, Operand)>) {
    let mut bmap: FxHashMap<Block, Block> = FxHashMap::default();
    for b in callee.block_ids() {
        bmap.insert(b, f.add_block());
    }
    let mut vmap: FxHashMap<Value, Operand> = FxHashMap::default();
    for (p, a) in callee.args().iter().zip(args) {
        vmap.insert(*p, a);
    }
    for b in callee.block_ids().skip(1) {
        for &p in &callee.block(b).params {
            let d = callee.value(p);
            vmap.insert(
                p,
                f.add_param(bmap[&b], d.ty.clone(), d.span, d.name.clone())
                    .into(),
            );
        }
    }
    let map = |vmap: &FxHashMap<Value, Operand>, op: &Operand| match op {
        Operand::Value(v) => vmap.get(v).cloned().unwrap_or(op.clone()),
        c => c.clone(),
    };
    for b in callee.reverse_postorder() {
        for &v in &callee.block(b).stmts {
            let (Some(s), d) = (callee.stmt(v), callee.value(v)) else {
                continue;
            };
            let stmt = Stmt {
                op: s.op.clone(),
                args: s.args.iter().map(|a| map(&vmap, a)).collect(),
            };
            let nv = f.push_stmt(bmap[&b], stmt, d.ty.clone(), d.span);
            f.values[nv.index()].name = d.name.clone();
            vmap.insert(v, nv.into());
        }
    }
    let mut exits = Vec::new();
    for b in callee.block_ids() {
        let data = callee.block(b);
        let call = |c: &BlockCall| BlockCall {
            block: bmap[&c.block],
            args: c.args.iter().map(|a| map(&vmap, a)).collect(),
        };
        let term = match &data.term {
            Terminator::Return(x) => {
                exits.push((bmap[&b], map(&vmap, x)));
                continue;
            }
            other => other.map(&|x| map(&vmap, x), &call),
        };
        f.set_term(bmap[&b], term, data.term_span);
    }
    (bmap[&Block::ENTRY], exits)
}
