//! Exception handlers (`try`/`catch`) in compiled code. Which handlers are installed is known
//! for each block from the IR's `Handle` terminators (a `try` installs its handler on entry and
//! updates it after each block of its body), so a failure inside a `try` goes to a landing
//! block of its own: the landing asks the runtime to take the error (`zy_rt_catch`: not an
//! interrupt, the memory limit or an internal error) and goes to the catch block with the
//! arguments the last `Handle` gave, kept in variables; an error it may not take leaves the
//! function as outside any `try`. The landing's runtime call also keeps the exception it took
//! (`throw(x)`'s value, or Base's exception its message names); `catch e` reads it as the
//! address of a value the runtime holds (`zy_rt_the_exception`), which `e isa T`, `e.f`,
//! `rethrow` and `showerror` hand to the interpreter's primitives (strings they make keep the
//! function with the interpreter).

use std::collections::{HashMap, HashSet};

use cranelift_codegen::ir::{self, types, BlockArg, InstBuilder};
use cranelift_frontend::Variable;
use zy_ir::{Block, Function, Op, Prim, Terminator, Value};

use super::{Translator, R};
use crate::error::JitError;

/// The handlers of one function.
pub(crate) struct Handlers {
    /// For each IR block: the catch blocks of the handlers installed at its entry, innermost
    /// last (`None` for an unreachable block).
    at_entry: Vec<Option<Vec<Block>>>,
    /// `the_exception()` statements nothing reads (a `catch` without a variable): left out.
    unread: HashSet<Value>,
    /// For each catch block: its landing and the variables holding its arguments.
    landings: HashMap<Block, Landing>,
}

struct Landing {
    block: ir::Block,
    vars: Vec<Variable>,
}

impl Handlers {
    /// The handlers of `func`; a caught exception's value read, or blocks entered with
    /// different handlers installed, are declined.
    pub(crate) fn new(func: &Function) -> R<Handlers> {
        let mut read = HashSet::new();
        for data in &func.blocks {
            for &v in &data.stmts {
                if let Some(stmt) = func.stmt(v) {
                    read.extend(stmt.args.iter().filter_map(|a| a.as_value()));
                }
            }
            read.extend(
                data.term
                    .operands()
                    .into_iter()
                    .filter_map(|a| a.as_value()),
            );
        }
        let mut unread = HashSet::new();
        for data in &func.blocks {
            for &v in &data.stmts {
                if matches!(
                    func.stmt(v).map(|s| &s.op),
                    Some(Op::Prim(Prim::TheException))
                ) {
                    if !read.contains(&v) {
                        unread.insert(v);
                    }
                }
            }
        }
        let mut at_entry: Vec<Option<Vec<Block>>> = vec![None; func.blocks.len()];
        let mut work = vec![(Block::ENTRY, Vec::new())];
        while let Some((blk, stack)) = work.pop() {
            match &at_entry[blk.index()] {
                Some(known) if *known == stack => continue,
                Some(_) => {
                    return Err(JitError::interpreted(
                        "a block entered with different exception handlers installed",
                    ))
                }
                None => at_entry[blk.index()] = Some(stack.clone()),
            }
            let term = &func.block(blk).term;
            match term {
                Terminator::Handle { leave, catch, to } => {
                    let mut inner = stack.clone();
                    for _ in 0..*leave {
                        inner
                            .pop()
                            .ok_or_else(|| JitError::invalid("`leave` without a handler"))?;
                    }
                    if let Some(c) = catch {
                        // The catch block runs with the handler removed.
                        work.push((c.block, inner.clone()));
                        inner.push(c.block);
                    }
                    work.push((to.block, inner));
                }
                t => {
                    for s in t.successors() {
                        work.push((s, stack.clone()));
                    }
                }
            }
        }
        Ok(Handlers {
            at_entry,
            unread,
            landings: HashMap::new(),
        })
    }

    /// Is a handler installed at the entry of IR block `blk`?
    pub(crate) fn in_try(&self, blk: Block) -> bool {
        self.at_entry
            .get(blk.index())
            .and_then(|s| s.as_ref())
            .is_some_and(|s| !s.is_empty())
    }

    /// Is `v` a statement left out (an unread `the_exception()`)?
    pub(crate) fn skips(&self, v: Value) -> bool {
        self.unread.contains(&v)
    }
}

impl Translator<'_, '_, '_> {
    /// The block a failure in IR block `blk` goes to: the landing of its innermost handler, or
    /// the function's exit with the error set.
    pub(super) fn landing_of(&mut self, blk: Block) -> R<ir::Block> {
        let inner = self
            .handlers
            .at_entry
            .get(blk.index())
            .and_then(|s| s.as_ref())
            .and_then(|s| s.last().copied());
        match inner {
            Some(c) => Ok(self.landing(c)?.block),
            None => Ok(self.outer_bail),
        }
    }

    /// `the_exception()` read in a catch block: the runtime's value of what the landing took.
    pub(super) fn the_exception(&mut self) -> R<Vec<ir::Value>> {
        let rt = self.env.rt.the_exception;
        let fref = self.func_ref(rt);
        let call = self.b.ins().call(fref, &[self.ctx]);
        Ok(vec![self.b.inst_results(call)[0]])
    }

    /// The landing of the handler whose catch block is `c` (made at its first use).
    fn landing(&mut self, c: Block) -> R<&Landing> {
        if !self.handlers.landings.contains_key(&c) {
            let block = self.b.create_block();
            self.b.set_cold_block(block);
            let mut vars = Vec::new();
            for &p in &self.func.block(c).params {
                for s in self.env.layout.slots(self.func.ty(p))? {
                    vars.push(self.b.declare_var(s.cl_type()));
                }
                if self.maybe_undef[p.index()].is_some() {
                    vars.push(self.b.declare_var(types::I8));
                }
            }
            self.handlers.landings.insert(c, Landing { block, vars });
        }
        self.handlers
            .landings
            .get(&c)
            .ok_or_else(|| JitError::invalid("no landing"))
    }

    /// A `Handle` terminator installing the handler `c`: its arguments, evaluated now, kept
    /// for the landing.
    pub(super) fn install_handler(&mut self, c: &zy_ir::BlockCall) -> R<()> {
        let (_, args) = self.block_call(c)?;
        let vars = self.landing(c.block)?.vars.clone();
        if vars.len() != args.len() {
            return Err(JitError::invalid("handler arguments and slots differ"));
        }
        for (var, a) in vars.into_iter().zip(args) {
            let BlockArg::Value(x) = a else {
                return Err(JitError::invalid("a handler argument that is not a value"));
            };
            self.b.def_var(var, x);
        }
        Ok(())
    }

    /// Every landing: take the error if a `catch` may, then go to the catch block.
    pub(super) fn landings(&mut self) -> R<()> {
        let mut all: Vec<(Block, ir::Block, Vec<Variable>)> = self
            .handlers
            .landings
            .iter()
            .map(|(c, l)| (*c, l.block, l.vars.clone()))
            .collect();
        all.sort_by_key(|(c, _, _)| c.index());
        for (c, block, vars) in all {
            self.b.switch_to_block(block);
            let rt = self.env.rt.catch;
            let fref = self.func_ref(rt);
            let call = self.b.ins().call(fref, &[self.ctx]);
            let taken = self.b.inst_results(call)[0];
            let args: Vec<BlockArg> = vars
                .iter()
                .map(|v| BlockArg::Value(self.b.use_var(*v)))
                .collect();
            let target = self.block(c)?;
            self.b
                .ins()
                .brif(taken, target, &args, self.outer_bail, &[]);
        }
        Ok(())
    }
}
