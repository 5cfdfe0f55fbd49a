//! `try`/`catch`/`else`/`finally`, as Julia lowers them. Entering a `try` installs an
//! exception handler (`Terminator::Handle`), leaving it (normally, or by `break`, `continue`
//! or `return`) removes it. Inside a `try` body every statement, assignment and jump is
//! followed by a re-installation of the handlers, so the edge into each handler block leaves
//! from the last block that finished before the exception and carries the variables' values
//! there: the catch block's φs join exactly the paths that ran, and the AD, which records the
//! edge taken as for any join, reverses exactly the blocks that ran. A `finally` body is
//! lowered once: every way out of its `try` (falling through, `break`, `continue`, `return`,
//! an exception) sets a hidden exit code and goes to it, and a dispatch after it continues
//! that way (the exception is rethrown). `try ... catch ... finally ... end` is a
//! `try ... finally` around a `try ... catch`.

use zy_ir::{Block, BlockCall, Const, Op, Operand, Stmt, Terminator, Type, Var};
use zy_syntax::ast::{Expr, TextRange};

use crate::body::BodyLowerer;

/// The builtin reading the exception a catch block caught.
const THE_EXCEPTION: &str = "the_exception";
/// The builtin throwing a caught exception again.
const RETHROW: &str = "rethrow";

/// An installed exception handler: a `try` body being lowered.
pub(crate) struct Region {
    /// Where an exception goes.
    handler: Block,
    /// How many loops enclose the `try` (a `break` leaves the regions inside the innermost).
    loops: usize,
    /// For a `try ... finally`: where every exit goes first.
    finally: Option<Finally>,
}

/// The `finally` of a region.
struct Finally {
    block: Block,
    /// How to continue after the finally body: one of the `EXIT_*` codes.
    exit: Var,
    /// The value being returned, for [`EXIT_RETURN`].
    value: Var,
    /// Which of `break`, `continue` and `return` left through it.
    used: [bool; 3],
}

const EXIT_NORMAL: i64 = 0;
const EXIT_BREAK: i64 = 1;
const EXIT_CONTINUE: i64 = 2;
const EXIT_RETURN: i64 = 3;
const EXIT_RETHROW: i64 = 4;

/// How control leaves the `try` regions it crosses.
#[derive(Clone, Copy)]
pub(crate) enum Exit {
    Break,
    Continue,
    Return,
}

impl BodyLowerer<'_, '_> {
    /// `try body catch var; catch_body else els finally fin end`.
    pub(crate) fn try_expr(
        &mut self,
        e: &Expr,
        body: &[Expr],
        var: Option<&Expr>,
        catch: Option<&[Expr]>,
        els: Option<&[Expr]>,
        finally: Option<&[Expr]>,
    ) -> Operand {
        match finally {
            Some(fin) => {
                self.try_finally(e.range, fin, |lw| lw.try_catch(e, body, var, catch, els))
            }
            None => self.try_catch(e, body, var, catch, els),
        }
    }

    /// End the current block with `leave n; try handler; br to`.
    fn handle(&mut self, leave: u32, handler: Option<Block>, to: Block, r: TextRange) {
        let span = self.span(r);
        let term = Terminator::Handle {
            leave,
            catch: handler.map(BlockCall::new),
            to: BlockCall::new(to),
        };
        self.b.set_term(self.cur, term, span);
    }

    /// Continue in a new block after `leave n; try handler` (its only predecessor).
    fn handle_next(&mut self, leave: u32, handler: Option<Block>, r: TextRange) {
        let next = self.new_block(r);
        self.handle(leave, handler, next, r);
        self.b.seal_block(next);
        self.cur = next;
    }

    /// Inside `try` bodies (after a statement, an assignment, before a jump): end the block
    /// re-installing every handler, so that each handler block sees the values of this point.
    pub(crate) fn refresh_handlers(&mut self, r: TextRange) {
        let handlers: Vec<Block> = self.regions.iter().map(|g| g.handler).collect();
        for (i, h) in handlers.iter().enumerate() {
            let leave = if i == 0 { handlers.len() as u32 } else { 0 };
            self.handle_next(leave, Some(*h), r);
        }
    }

    /// `try body catch var; catch_body else els end` (just `body` without a catch).
    fn try_catch(
        &mut self,
        e: &Expr,
        body: &[Expr],
        var: Option<&Expr>,
        catch: Option<&[Expr]>,
        els: Option<&[Expr]>,
    ) -> Operand {
        let Some(catch) = catch else {
            return self.seq(body);
        };
        let r = e.range;
        let result = self.hidden();
        let handler = self.new_block(r);
        let join = self.new_block(r);
        self.handle_next(0, Some(handler), r);
        self.regions.push(Region {
            handler,
            loops: self.loops.len(),
            finally: None,
        });
        let before = self.boxes.clone();
        let v = self.seq(body);
        self.b.def_var(self.cur, result, v);
        self.regions.pop();
        self.handle_next(1, None, r);
        if let Some(els) = els {
            let v = self.seq(els);
            self.b.def_var(self.cur, result, v);
        }
        let mut arms = vec![self.arm_boxes()];
        self.jump(join, r);
        self.b.seal_block(handler);
        self.cur = handler;
        self.boxes = before;
        let exception = self.call(THE_EXCEPTION, Vec::new(), r);
        self.caught.push(exception.clone());
        if let Some(var) = var {
            self.bind(var, exception);
        }
        let v = self.seq(catch);
        self.caught.pop();
        self.b.def_var(self.cur, result, v);
        arms.push(self.arm_boxes());
        self.jump(join, r);
        self.b.seal_block(join);
        self.cur = join;
        self.join_boxes(&arms);
        self.b.use_var(join, result)
    }

    /// `try inner finally fin end`, `inner` lowering the protected part.
    fn try_finally(
        &mut self,
        r: TextRange,
        fin: &[Expr],
        inner: impl FnOnce(&mut Self) -> Operand,
    ) -> Operand {
        let result = self.hidden();
        let exception = self.hidden();
        let handler = self.new_block(r);
        let block = self.new_block(r);
        let exit = self.hidden();
        let value = self.hidden();
        self.handle_next(0, Some(handler), r);
        self.regions.push(Region {
            handler,
            loops: self.loops.len(),
            finally: Some(Finally {
                block,
                exit,
                value,
                used: [false; 3],
            }),
        });
        let v = inner(self);
        // Whether the protected part can end normally (it may always return or throw).
        let falls_through = !self.dead_blocks.contains(&self.cur);
        self.b.def_var(self.cur, result, v);
        self.b.def_var(self.cur, exit, Const::Int(EXIT_NORMAL));
        let used = match self.regions.pop().and_then(|g| g.finally) {
            Some(f) => f.used,
            None => [false; 3],
        };
        self.handle(1, None, block, r);
        // An exception: the finally body, then the exception again.
        self.b.seal_block(handler);
        self.cur = handler;
        let x = self.call(THE_EXCEPTION, Vec::new(), r);
        self.b.def_var(self.cur, exception, x);
        self.b.def_var(self.cur, exit, Const::Int(EXIT_RETHROW));
        self.jump(block, r);
        self.b.seal_block(block);
        self.cur = block;
        self.stmts(fin);
        let code = self.b.use_var(self.cur, exit);
        let join = self.new_block(r);
        let exits = [
            (EXIT_BREAK, used[0]),
            (EXIT_CONTINUE, used[1]),
            (EXIT_RETURN, used[2]),
            (EXIT_RETHROW, true),
        ];
        for (k, taken) in exits {
            if !taken {
                continue;
            }
            // Without a normal exit the last kind (the rethrow) is all that is left: no test.
            let no = match k == EXIT_RETHROW && !falls_through {
                true => None,
                false => {
                    let c = self.call("==", vec![code.clone(), Const::Int(k).into()], r);
                    let (yes, no) = (self.new_block(r), self.new_block(r));
                    self.branch(c, yes, no, r);
                    self.b.seal_block(yes);
                    self.b.seal_block(no);
                    self.cur = yes;
                    Some(no)
                }
            };
            match k {
                EXIT_BREAK => {
                    self.break_continue(true, r);
                }
                EXIT_CONTINUE => {
                    self.break_continue(false, r);
                }
                EXIT_RETURN => {
                    let v = self.b.use_var(self.cur, value);
                    self.return_value(v, r);
                }
                _ => {
                    // The block ends here: `rethrow` never returns, so no handler is
                    // re-installed after it (its `unreachable` is the block's end).
                    let x = self.b.use_var(self.cur, exception);
                    let span = self.span(r);
                    let stmt = Stmt {
                        op: Op::Call(RETHROW.into()),
                        args: vec![x],
                    };
                    self.b.func.push_stmt(self.cur, stmt, Type::Any, span);
                }
            }
            if let Some(no) = no {
                self.cur = no;
            }
        }
        if !falls_through {
            // No normal exit: nothing continues after the `try` (and no φ joins a value that
            // was never assigned).
            self.start_dead_block();
            return Const::Nothing.into();
        }
        self.jump(join, r);
        self.b.seal_block(join);
        self.cur = join;
        self.b.use_var(join, result)
    }

    /// Leave the `try` regions that `exit` crosses (all for `return`, those inside the
    /// innermost loop for `break` and `continue`, which go on to `target`). Returns `true`
    /// when control left: to a `finally`, whose dispatch continues the exit, or to `target`.
    pub(crate) fn exit_regions(
        &mut self,
        exit: Exit,
        value: Option<Operand>,
        target: Option<Block>,
        r: TextRange,
    ) -> bool {
        let floor = match exit {
            Exit::Return => 0,
            Exit::Break | Exit::Continue => self.loops.len(),
        };
        let mut leave = 0;
        for i in (0..self.regions.len()).rev() {
            if self.regions[i].loops < floor {
                break;
            }
            leave += 1;
            let Some(f) = self.regions[i].finally.as_mut() else {
                continue;
            };
            let (code, slot) = match exit {
                Exit::Break => (EXIT_BREAK, 0),
                Exit::Continue => (EXIT_CONTINUE, 1),
                Exit::Return => (EXIT_RETURN, 2),
            };
            f.used[slot] = true;
            let (block, exit_var, value_var) = (f.block, f.exit, f.value);
            self.b.def_var(self.cur, exit_var, Const::Int(code));
            if let Some(v) = value {
                self.b.def_var(self.cur, value_var, v);
            }
            self.handle(leave, None, block, r);
            self.start_dead_block();
            return true;
        }
        match (leave, target) {
            (0, _) => false,
            // Straight to the target: a jump inside the regions left would install them again.
            (_, Some(to)) => {
                self.handle(leave, None, to, r);
                self.start_dead_block();
                true
            }
            (_, None) => {
                self.handle_next(leave, None, r);
                false
            }
        }
    }

    /// `rethrow()` inside a catch block: the exception it caught.
    pub(crate) fn caught_exception(&self) -> Option<Operand> {
        self.caught.last().cloned()
    }
}
