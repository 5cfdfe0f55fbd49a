//! Loop versioning for the tape. A counted loop (a counter `p` from 0 by 1 while `p < n`, `n`
//! known at its entry) whose pushes go to stacks made before it is compiled twice. Its entry
//! checks once whether every stack has room for all the loop's pushes (the header's on each of
//! its `n + 1` runs, the rest once per iteration: an innermost loop runs each of its other
//! blocks at most once per iteration). If so the copy whose pushes skip the capacity check runs;
//! otherwise the copy that checks each push, grows the tape and reports the tape limit as
//! before. Nothing grows at the entry, so when memory runs out and what the error says do not
//! change; the unchecked copy runs where the tape already has the room, such as every run of a
//! bound call after its first (the arena keeps the stacks' buffers).
//!
//! Only a leaf loop (no call of compiled code, no primitive that calls a function) of at most
//! [`MAX_STMTS`] statements is copied: in a loop that calls, the call costs far more than the
//! check, and every copy costs compile time.

use std::collections::{HashMap, HashSet};

use cranelift_codegen::ir::{self, types, BlockArg, InstBuilder};
use zy_ir::{Block, Const, Function, Op, Operand, Prim, Terminator, Type, Value};

use super::control::Loop;
use super::fuse::Fused;
use super::handlers::Handlers;
use super::{Translator, R};
use crate::error::JitError;
use crate::layout::packed_offsets;

/// The most statements a loop copied for its pushes may have.
const MAX_STMTS: usize = 64;

/// A counted loop that pushes, compiled twice.
pub(super) struct Versioned {
    header: Block,
    /// The header's exit, the loop's only way out.
    exit: Block,
    /// The loop's blocks in source order (the header first).
    blocks: Vec<Block>,
    /// `n`: the loop runs `max(n, 0)` iterations.
    count: Operand,
    /// The pushes: their statements, and whether each is in the header.
    pushes: Vec<(Value, bool)>,
    /// Values made in the loop that code after it reads: the exit takes them as parameters,
    /// from whichever copy ran.
    live_out: Vec<Value>,
    /// The unchecked copy's block of each of the loop's blocks.
    fast: HashMap<Block, ir::Block>,
}

/// The counted loops of `func` to compile twice (`rpo_index`: each block's position in source
/// order, `usize::MAX` when unreachable), their unchecked copies' blocks made by `new_block`.
pub(super) fn plan(
    func: &Function,
    loops: &[Loop],
    rpo_index: &[usize],
    maybe_undef: &[Option<zy_ir::Name>],
    handlers: &Handlers,
    fused: &HashMap<Value, Fused>,
    mut new_block: impl FnMut() -> ir::Block,
) -> Vec<Versioned> {
    let cx = Cx::new(func, rpo_index);
    loops
        .iter()
        .filter_map(|l| cx.counted(l, loops, maybe_undef, handlers, fused))
        .map(|mut v| {
            v.fast = v.blocks.iter().map(|&b| (b, new_block())).collect();
            v
        })
        .collect()
}

/// One comment line per loop compiled twice (for the CLIF view).
pub(super) fn notes(func: &Function) -> Vec<String> {
    let order = zy_ir::cfg::source_order(func);
    let mut rpo_index = vec![usize::MAX; func.blocks.len()];
    for (i, b) in order.iter().enumerate() {
        rpo_index[b.index()] = i;
    }
    let loops = super::control::loops(func, &rpo_index);
    let Ok(handlers) = Handlers::new(func) else {
        return Vec::new();
    };
    let maybe_undef = super::control::maybe_undef(func);
    let fused = super::fuse::plan(func);
    let cx = Cx::new(func, &rpo_index);
    loops
        .iter()
        .filter_map(|l| cx.counted(l, &loops, &maybe_undef, &handlers, &fused))
        .map(|v| {
            let count = match &v.count {
                Operand::Value(n) => n.to_string(),
                Operand::Const(c) => format!("{c:?}"),
            };
            format!(
                "; loop {} ({count} iterations) compiled twice: its pushes unchecked when the \
                 tape has room for all of them at its entry",
                v.header
            )
        })
        .collect()
}

/// The function's predecessors and defining blocks.
struct Cx<'f> {
    func: &'f Function,
    rpo_index: &'f [usize],
    preds: Vec<Vec<Block>>,
    /// The block defining each value (as a parameter or a statement).
    home: Vec<Option<Block>>,
}

impl<'f> Cx<'f> {
    fn new(func: &'f Function, rpo_index: &'f [usize]) -> Self {
        let mut home = vec![None; func.values.len()];
        for b in func.block_ids() {
            let data = func.block(b);
            for &v in data.params.iter().chain(&data.stmts) {
                home[v.index()] = Some(b);
            }
        }
        Cx {
            func,
            rpo_index,
            preds: func.predecessors(),
            home,
        }
    }

    /// Loop `l` as a counted loop to compile twice, if it is one.
    fn counted(
        &self,
        l: &Loop,
        loops: &[Loop],
        maybe_undef: &[Option<zy_ir::Name>],
        handlers: &Handlers,
        fused: &HashMap<Value, Fused>,
    ) -> Option<Versioned> {
        let (func, h) = (self.func, l.header);
        let made_in = |v: Value| self.home[v.index()].is_some_and(|b| l.body.contains(&b));
        let innermost = loops
            .iter()
            .all(|o| o.header == h || !l.body.contains(&o.header));
        let Terminator::Branch {
            cond,
            then_to,
            else_to,
        } = &func.block(h).term
        else {
            return None;
        };
        let exit = else_to.block;
        if !innermost
            || h == Block::ENTRY
            || !l.body.contains(&then_to.block)
            || l.body.contains(&exit)
            || self.preds[exit.index()] != [h]
        {
            return None;
        }
        // `p < n`, `p` a parameter of the header, `n` made before the loop.
        let [Operand::Value(p), n] = self.args_of(cond, Prim::Lt)? else {
            return None;
        };
        let at = func.block(h).params.iter().position(|x| x == p)?;
        if *func.ty(*p) != Type::Int64
            || func.operand_ty(n) != Type::Int64
            || n.as_value().is_some_and(made_in)
        {
            return None;
        }
        // Every way in starts `p` at 0, every way round passes `p + 1`.
        for &b in &self.preds[h.index()] {
            for c in func.block(b).term.calls() {
                if c.block != h {
                    continue;
                }
                let arg = c.args.get(at)?;
                let ok = if l.body.contains(&b) {
                    self.args_of(arg, Prim::Add)
                        .is_some_and(|a| a == [Operand::Value(*p), Operand::Const(Const::Int(1))])
                } else {
                    *arg == Operand::Const(Const::Int(0))
                };
                if !ok {
                    return None;
                }
            }
        }
        let mut blocks: Vec<Block> = l.body.iter().copied().collect();
        blocks.sort_by_key(|b| self.rpo_index[b.index()]);
        // The exit is translated after the loop (it takes the loop's values), and the header's
        // exit is the only way out: no `return`, no `try`.
        let after = |b: &Block| self.rpo_index[b.index()] < self.rpo_index[exit.index()];
        if blocks.first() != Some(&h) || !blocks.iter().all(after) {
            return None;
        }
        let mut pushes = Vec::new();
        let mut size = 0;
        for &b in &blocks {
            let data = func.block(b);
            let leaves = data
                .term
                .successors()
                .iter()
                .any(|s| !l.body.contains(s) && !(b == h && *s == exit));
            if leaves
                || handlers.in_try(b)
                || matches!(data.term, Terminator::Return(_) | Terminator::Handle { .. })
            {
                return None;
            }
            for &v in &data.stmts {
                size += 1;
                let stmt = func.stmt(v)?;
                match &stmt.op {
                    Op::Prim(Prim::Push) => {
                        let stack = stmt.args.first()?.as_value()?;
                        if made_in(stack) {
                            return None;
                        }
                        pushes.push((v, b == h));
                    }
                    Op::Prim(Prim::StackNew | Prim::StackMark | Prim::StackRelease) => return None,
                    Op::Prim(p) if p.info().effects.calls => return None,
                    Op::Prim(_) | Op::New(_) | Op::Global(_) => {}
                    Op::Invoke(_) | Op::Call(_) | Op::CallValue | Op::Closure(_) => return None,
                }
            }
        }
        if pushes.is_empty() || size > MAX_STMTS {
            return None;
        }
        // A value a fusion makes at its reader, or that may be undefined, stays in its loop.
        let live_out = self.live_out(l, &made_in);
        if live_out
            .iter()
            .any(|v| maybe_undef[v.index()].is_some() || fused.contains_key(v))
        {
            return None;
        }
        Some(Versioned {
            header: h,
            exit,
            blocks,
            count: n.clone(),
            pushes,
            live_out,
            fast: HashMap::new(),
        })
    }

    /// The values made in loop `l` that reachable code outside it reads, each once.
    fn live_out(&self, l: &Loop, made_in: &impl Fn(Value) -> bool) -> Vec<Value> {
        let mut out = Vec::new();
        for b in self.func.block_ids() {
            if l.body.contains(&b) || self.rpo_index[b.index()] == usize::MAX {
                continue;
            }
            let data = self.func.block(b);
            let stmts = data.stmts.iter().filter_map(|&v| self.func.stmt(v));
            let read = stmts.flat_map(|s| &s.args).chain(data.term.operands());
            for v in read.filter_map(|a| a.as_value()) {
                if made_in(v) && !out.contains(&v) {
                    out.push(v);
                }
            }
        }
        out
    }

    /// The operands of `v` when it is a statement of primitive `p`.
    fn args_of(&self, v: &Operand, p: Prim) -> Option<&'f [Operand]> {
        v.as_value()
            .and_then(|v| self.func.stmt(v))
            .filter(|s| s.op == Op::Prim(p))
            .map(|s| s.args.as_slice())
    }
}

impl Translator<'_, '_, '_> {
    /// The jump into a loop from its preheader: to the unchecked copy when the loop is compiled
    /// twice and its stacks have room for all its pushes, else to `target`.
    pub(super) fn enter(&mut self, target: ir::Block, args: &[BlockArg]) -> R<()> {
        let found = self
            .versions
            .iter()
            .position(|v| self.blocks[v.header.index()] == Some(target));
        let Some(i) = found else {
            self.b.ins().jump(target, args);
            return Ok(());
        };
        let count = self.versions[i].count.clone();
        let n = *self
            .operand(&count)?
            .first()
            .ok_or_else(|| JitError::invalid("a loop count without its slot"))?;
        let zero = self.b.ins().iconst(types::I64, 0);
        let n = self.b.ins().smax(n, zero);
        let mut fits = None;
        for (stack, once, each) in self.tape_need(i)? {
            let room = self.has_room(stack, once, each, n)?;
            fits = Some(match fits {
                Some(f) => self.b.ins().band(f, room),
                None => room,
            });
        }
        let v = &self.versions[i];
        let (Some(fits), Some(&fast)) = (fits, v.fast.get(&v.header)) else {
            return Err(JitError::invalid("a loop compiled twice without pushes"));
        };
        self.b.ins().brif(fits, fast, args, target, args);
        Ok(())
    }

    /// The bytes loop `i` pushes to each stack: once more than its iterations (the header's
    /// pushes), and per iteration (the header's and the body's).
    fn tape_need(&self, i: usize) -> R<Vec<(Value, i64, i64)>> {
        let mut need: Vec<(Value, i64, i64)> = Vec::new();
        for &(v, in_header) in &self.versions[i].pushes {
            let stack = self
                .func
                .stmt(v)
                .and_then(|s| s.args.first())
                .and_then(Operand::as_value)
                .ok_or_else(|| JitError::invalid("a push without its stack"))?;
            let Type::Stack(elem) = self.func.ty(stack) else {
                return Err(JitError::invalid("a push to a non-stack"));
            };
            let size = i64::from(packed_offsets(&self.env.layout.slots(elem)?).1);
            let once = if in_header { size } else { 0 };
            match need.iter_mut().find(|(s, ..)| *s == stack) {
                Some(n) => {
                    n.1 += once;
                    n.2 += size;
                }
                None => need.push((stack, once, size)),
            }
        }
        need.retain(|(.., each)| *each > 0);
        Ok(need)
    }

    /// Translate the unchecked copy of every loop compiled twice (after the rest of the
    /// function: the copies jump to their exits, which take the loop's values as parameters).
    pub(super) fn fast_copies(&mut self) -> R<()> {
        for i in 0..self.versions.len() {
            let v = &self.versions[i];
            let (blocks, fast) = (v.blocks.clone(), v.fast.clone());
            let stacks: HashSet<Value> = v
                .pushes
                .iter()
                .filter_map(|(p, _)| self.func.stmt(*p)?.args.first()?.as_value())
                .collect();
            let checked = self.blocks.clone();
            let (vals, defined) = (self.vals.clone(), self.defined.clone());
            for (b, fb) in fast {
                self.blocks[b.index()] = Some(fb);
            }
            self.reserved = stacks;
            let done = blocks.iter().try_for_each(|&b| self.translate_block(b));
            // The code after the loop reads the checked copy's values and the exit's.
            self.reserved.clear();
            self.blocks = checked;
            self.vals = vals;
            self.defined = defined;
            done?;
        }
        Ok(())
    }

    /// Parameters of the exit block `blk` (Cranelift block `cl`) for the values its loop,
    /// compiled twice, hands on.
    pub(super) fn exit_params(&mut self, blk: Block, cl: ir::Block) -> R<()> {
        for v in self.handed_on(blk) {
            let mut vs = Vec::new();
            for s in self.env.layout.slots(self.func.ty(v))? {
                vs.push(self.b.append_block_param(cl, s.cl_type()));
            }
            self.vals[v.index()] = vs;
        }
        Ok(())
    }

    /// The arguments of a jump to `blk` for [`Translator::exit_params`].
    pub(super) fn exit_args(&self, blk: Block, args: &mut Vec<BlockArg>) {
        for v in self.handed_on(blk) {
            args.extend(self.vals[v.index()].iter().copied().map(BlockArg::Value));
        }
    }

    /// The values a loop compiled twice hands on to its exit `blk` (none for other blocks).
    fn handed_on(&self, blk: Block) -> Vec<Value> {
        self.versions
            .iter()
            .filter(|v| v.exit == blk)
            .flat_map(|v| v.live_out.iter().copied())
            .collect()
    }
}
