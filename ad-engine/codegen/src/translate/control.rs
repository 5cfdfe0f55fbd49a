//! Control flow: terminators, jumps with their block arguments (and the "is defined" flags of
//! possibly-undefined locals), fuel on loop back edges.

use std::collections::HashSet;

use cranelift_codegen::flowgraph::ControlFlowGraph;
use cranelift_codegen::ir::{self, condcodes::IntCC, types, BlockArg, InstBuilder};
use zy_ir::{Block, Const, Function, Op, Operand, Prim, Span, Terminator, Type};

use super::{mem, Translator, R};
use crate::error::JitError;
use crate::runtime::ctx_offset;
use crate::runtime::site::SiteKind;

impl Translator<'_, '_, '_> {
    pub(super) fn terminator(&mut self, blk: Block) -> R<()> {
        let data = self.func.block(blk);
        let term = data.term.clone();
        let span = data.term_span;
        let back_edge = term
            .successors()
            .iter()
            .any(|s| self.rpo_index[s.index()] <= self.rpo_index[blk.index()]);
        if back_edge {
            self.burn_fuel(span);
        }
        match &term {
            Terminator::Return(x) | Terminator::Branch { cond: x, .. } => {
                self.check_defined(x, span)?
            }
            _ => {}
        }
        let mut pending = Vec::new();
        match &term {
            Terminator::Return(op) => {
                let ret = self.func.ret.clone();
                let vs = self.operand_as(op, &ret)?;
                self.spill_fuel();
                self.b.ins().return_(&vs);
            }
            Terminator::Jump(call) => {
                let (target, args) = self.block_call(call)?;
                let (target, args) = self.entering(blk, call.block, target, args, &mut pending);
                self.b.ins().jump(target, &args);
            }
            Terminator::Branch {
                cond,
                then_to,
                else_to,
            } => {
                let c = self.operand_as(cond, &Type::Bool)?;
                let c = *c
                    .first()
                    .ok_or_else(|| JitError::invalid("branch on a non-Bool"))?;
                let (t, targs) = self.block_call(then_to)?;
                let (t, targs) = self.entering(blk, then_to.block, t, targs, &mut pending);
                let (e, eargs) = self.block_call(else_to)?;
                let (e, eargs) = self.entering(blk, else_to.block, e, eargs, &mut pending);
                if self.leaves(blk, else_to.block) && !self.leaves(blk, then_to.block) {
                    // Cranelift lays out a branch's second successor first: the loop goes on
                    // in the code that follows, the exit is a jump.
                    let stay = self.b.ins().icmp_imm_s(IntCC::Equal, c, 0);
                    self.b.ins().brif(stay, e, &eargs, t, &targs);
                } else {
                    self.b.ins().brif(c, t, &targs, e, &eargs);
                }
            }
            Terminator::Handle { catch, to, .. } => {
                // Which handlers are installed is known statically (`handlers`): only the
                // arguments of a new one are kept.
                if let Some(c) = catch {
                    self.install_handler(c)?;
                }
                let (target, args) = self.block_call(to)?;
                let (target, args) = self.entering(blk, to.block, target, args, &mut pending);
                self.b.ins().jump(target, &args);
            }
            Terminator::Unreachable => {
                let site = self.site(
                    span,
                    SiteKind::Fail("internal error: unreachable code reached".to_string()),
                );
                let rt = self.env.rt.fail;
                self.call_rt(rt, &[self.ctx, site]);
                self.b.ins().jump(self.bail, &[]);
            }
        }
        for (pre, target, args) in pending {
            self.b.switch_to_block(pre);
            self.enter(target, &args)?;
        }
        Ok(())
    }

    /// The edge from `from` to IR block `to` (Cranelift block `target`): a jump into a loop
    /// from outside it goes through a block of its own, the loop's preheader. Cranelift hoists
    /// a loop's invariants into the block that dominates its header; without it that block
    /// can be the header of an earlier loop (a pullback's loop right after the forward pass's),
    /// which would then compute them on each of its iterations.
    fn entering(
        &mut self,
        from: Block,
        to: Block,
        target: ir::Block,
        args: Vec<BlockArg>,
        pending: &mut Vec<(ir::Block, ir::Block, Vec<BlockArg>)>,
    ) -> (ir::Block, Vec<BlockArg>) {
        let (f, t) = (self.rpo_index[from.index()], self.rpo_index[to.index()]);
        let enters = t > f && self.loops.iter().any(|l| l.header == to);
        // Leaving a loop: through a block placed after the hot code, so the loop's body
        // follows its header in the machine code instead of jumping over the exit.
        let leaves = self.leaves(from, to);
        if !enters && !leaves {
            return (target, args);
        }
        let pre = self.b.create_block();
        if leaves {
            self.b.set_cold_block(pre);
        }
        pending.push((pre, target, args));
        (pre, Vec::new())
    }

    /// Count down the fuel (on a loop back edge or a recursive call); when it runs out, poll the
    /// deadline and the cancel flag. In a function with loops the fuel lives in a register
    /// (stored to the context around calls and at returns), so a loop's count does not wait on
    /// memory every iteration.
    pub(super) fn burn_fuel(&mut self, span: Span) {
        let ctx = self.ctx;
        let f = match self.fuel {
            Some(var) => self.b.use_var(var),
            None => self.b.ins().load(types::I64, mem(), ctx, ctx_offset::FUEL),
        };
        let f1 = self.b.ins().iadd_imm_s(f, -1);
        match self.fuel {
            Some(var) => self.b.def_var(var, f1),
            None => {
                self.b.ins().store(mem(), f1, ctx, ctx_offset::FUEL);
            }
        }
        let empty = self.b.ins().icmp_imm_s(IntCC::SignedLessThanOrEqual, f1, 0);
        let poll = self.b.create_block();
        let cont = self.b.create_block();
        self.b.set_cold_block(poll);
        self.b.ins().brif(empty, poll, &[], cont, &[]);
        self.b.switch_to_block(poll);
        let site = self.site(span, SiteKind::Plain);
        let rt = self.env.rt.poll;
        self.call_rt(rt, &[ctx, site]);
        let stop = self.b.ins().load(types::I64, mem(), ctx, ctx_offset::ERROR);
        // The poll refilled the context's fuel.
        self.reload_fuel();
        // Back to the loop through a cold block of its own: a split of this edge would land
        // in the hot code, which would then jump over it.
        let back = self.b.create_block();
        self.b.set_cold_block(back);
        self.b.ins().brif(stop, self.bail, &[], back, &[]);
        self.b.switch_to_block(back);
        self.b.ins().jump(cont, &[]);
        self.b.switch_to_block(cont);
    }

    /// Does the edge from `from` to `to` leave a loop?
    fn leaves(&self, from: Block, to: Block) -> bool {
        self.loops
            .iter()
            .any(|l| l.body.contains(&from) && !l.body.contains(&to))
    }

    /// Does the function have a loop (a jump back in reverse post-order)?
    pub(super) fn has_loop(&self) -> bool {
        !self.loops.is_empty()
    }

    /// Before a call of compiled code or a return: the register fuel goes back to the context.
    pub(super) fn spill_fuel(&mut self) {
        if let Some(var) = self.fuel {
            let f = self.b.use_var(var);
            self.b.ins().store(mem(), f, self.ctx, ctx_offset::FUEL);
        }
    }

    /// After a call of compiled code (or a poll): the register fuel is the context's again.
    pub(super) fn reload_fuel(&mut self) {
        if let Some(var) = self.fuel {
            let f = self
                .b
                .ins()
                .load(types::I64, mem(), self.ctx, ctx_offset::FUEL);
            self.b.def_var(var, f);
        }
    }

    pub(super) fn block_call(&mut self, call: &zy_ir::BlockCall) -> R<(ir::Block, Vec<BlockArg>)> {
        let target = self.block(call.block)?;
        let params = self.func.block(call.block).params.clone();
        if params.len() != call.args.len() {
            return Err(JitError::invalid(format!(
                "jump to {} with the wrong arity",
                call.block
            )));
        }
        let mut args = Vec::new();
        for (a, p) in call.args.iter().zip(&params) {
            let pty = self.func.ty(*p).clone();
            args.extend(self.operand_as(a, &pty)?.into_iter().map(BlockArg::Value));
            if self.maybe_undef[p.index()].is_some() {
                let flag = match a.as_value() {
                    Some(v) if self.defined.contains_key(&v) => self.defined[&v],
                    Some(v) if self.maybe_undef[v.index()].is_some() => {
                        self.b.ins().iconst(types::I8, 0)
                    }
                    _ => self.b.ins().iconst(types::I8, 1),
                };
                args.push(BlockArg::Value(flag));
            }
        }
        self.exit_args(call.block, &mut args);
        Ok((target, args))
    }

    /// Whether the local `op` holds a value (`@isdefined`): its flag where it may be undefined,
    /// false for the `undef` statement itself, true otherwise.
    pub(super) fn is_defined(&mut self, op: &Operand) -> super::ClValue {
        let known = match op.as_value() {
            Some(v) if self.defined.contains_key(&v) => return self.defined[&v],
            Some(v) => self.maybe_undef[v.index()].is_none(),
            None => true,
        };
        self.b.ins().iconst(types::I8, i64::from(known))
    }

    /// Using an undefined local is an `UndefVarError` (as in the interpreter).
    pub(super) fn check_defined(&mut self, op: &Operand, span: Span) -> R<()> {
        let Some(v) = op.as_value() else {
            return Ok(());
        };
        let Some(name) = self.maybe_undef[v.index()].clone() else {
            return Ok(());
        };
        let message = format!("UndefVarError: {name} not defined");
        let site = self.site(span, SiteKind::Fail(message));
        let rt = self.env.rt.fail;
        let ctx = self.ctx;
        match self.defined.get(&v).copied() {
            Some(flag) => {
                let undefined = self.b.ins().icmp_imm_s(IntCC::Equal, flag, 0);
                self.fail_if(undefined, |t| {
                    t.call_rt(rt, &[ctx, site]);
                });
            }
            None => {
                // The `undef` statement itself: always an error, then nothing runs after it.
                self.call_rt(rt, &[ctx, site]);
                self.check_error();
            }
        }
        Ok(())
    }
}

/// The values that may hold an undefined local (an `undef` statement, or a block parameter that
/// one may reach through jumps), with the local's name.
pub(super) fn maybe_undef(func: &Function) -> Vec<Option<zy_ir::Name>> {
    let mut out: Vec<Option<zy_ir::Name>> = vec![None; func.values.len()];
    for (i, d) in func.values.iter().enumerate() {
        if let zy_ir::ValueKind::Stmt(s) = &d.kind {
            if s.op == Op::Prim(Prim::Undef) {
                let name = match s.args.first() {
                    Some(Operand::Const(Const::Symbol(n))) => n.clone(),
                    _ => zy_ir::Name::from("?"),
                };
                out[i] = Some(name);
            }
        }
    }
    loop {
        let mut changed = false;
        for b in func.block_ids() {
            for call in func.block(b).term.calls() {
                let params = &func.block(call.block).params;
                for (a, p) in call.args.iter().zip(params) {
                    if let Some(v) = a.as_value() {
                        if out[p.index()].is_none() {
                            if let Some(n) = out.get(v.index()).cloned().flatten() {
                                out[p.index()] = Some(n);
                                changed = true;
                            }
                        }
                    }
                }
            }
        }
        if !changed {
            return out;
        }
    }
}

/// Mark cold every block that only cold blocks reach: the code after a cold path's error
/// check, or the block moving a slow path's results into their registers. Cranelift lays cold
/// blocks out after the hot code; left hot, such a block would sit inside a loop's code, which
/// would then jump over it on every iteration.
pub(super) fn spread_cold(func: &mut ir::Function) {
    let cfg = ControlFlowGraph::with_function(func);
    let entry = func.layout.entry_block();
    let blocks: Vec<ir::Block> = func.layout.blocks().collect();
    loop {
        let mut changed = false;
        for &b in &blocks {
            if Some(b) == entry || func.layout.is_cold(b) {
                continue;
            }
            let mut preds = cfg.pred_iter(b).peekable();
            if preds.peek().is_some() && preds.all(|p| func.layout.is_cold(p.block)) {
                func.layout.set_cold(b);
                changed = true;
            }
        }
        if !changed {
            return;
        }
    }
}

/// A loop of an IR function: the block a jump back enters, and the blocks that reach that jump
/// without passing through the header (the header included).
pub(super) struct Loop {
    pub header: Block,
    pub body: HashSet<Block>,
}

/// The loops of `func`, one per jump back in reverse post-order (`rpo_index`: each block's
/// position, `usize::MAX` for unreachable blocks).
pub(super) fn loops(func: &Function, rpo_index: &[usize]) -> Vec<Loop> {
    let mut preds: Vec<Vec<Block>> = vec![Vec::new(); func.blocks.len()];
    let mut out: Vec<Loop> = Vec::new();
    for b in func.block_ids() {
        if rpo_index[b.index()] == usize::MAX {
            continue;
        }
        for s in func.block(b).term.successors() {
            preds[s.index()].push(b);
        }
    }
    for b in func.block_ids() {
        if rpo_index[b.index()] == usize::MAX {
            continue;
        }
        for h in func.block(b).term.successors() {
            if rpo_index[h.index()] > rpo_index[b.index()] {
                continue;
            }
            let mut body = HashSet::from([h]);
            let mut work = vec![b];
            while let Some(x) = work.pop() {
                if body.insert(x) {
                    work.extend(preds[x.index()].iter().copied());
                }
            }
            match out.iter_mut().find(|l| l.header == h) {
                Some(l) => l.body.extend(body),
                None => out.push(Loop { header: h, body }),
            }
        }
    }
    out
}

/// For each block (by index): does its innermost loop leave every array's header as it was
/// (every statement of the loop keeps headers, see [`super::arrays::keeps_headers`])? The
/// header words such a block loads may then move to the loop's preheader.
pub(super) fn steady_blocks(func: &Function, loops: &[Loop]) -> Vec<bool> {
    let steady: Vec<bool> = loops
        .iter()
        .map(|l| {
            l.body.iter().all(|b| {
                func.block(*b).stmts.iter().all(|v| {
                    func.stmt(*v)
                        .is_none_or(|s| super::arrays::keeps_headers(&s.op))
                })
            })
        })
        .collect();
    let mut out = vec![false; func.blocks.len()];
    for b in func.block_ids() {
        out[b.index()] = loops
            .iter()
            .zip(&steady)
            .filter(|(l, _)| l.body.contains(&b))
            .min_by_key(|(l, _)| l.body.len())
            .is_some_and(|(_, s)| *s);
    }
    out
}
