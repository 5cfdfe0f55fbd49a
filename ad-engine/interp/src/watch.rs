//! Watched runs: the interpreter reports each primitive statement's operands and result to a
//! [`Watch`], so a tool can find, for instance, the first statement that made a value
//! non-finite. Unwatched runs pay one branch per primitive for it.

use zy_ir::{Function, Prim, Span, TypedProgram, Value as IrValue};

use crate::machine::{Limits, RuntimeError};
use crate::value::Value;

/// The primitive statement a watched run is at.
#[derive(Clone, Copy, Debug)]
pub struct Step<'a> {
    /// The function the statement is in.
    pub func: &'a Function,
    /// The statement.
    pub value: IrValue,
    /// Its operation.
    pub prim: Prim,
    /// Its span, or its block's where it has none of its own (generated code).
    pub span: Span,
}

/// An observer of a run's primitive statements (not `push`/`pop` of the AD tape) and, if it
/// asks, of its calls (whose callees' statements are reported themselves).
pub trait Watch {
    /// Before `callee` runs on `args`, called by a statement of the run.
    fn invoke(&mut self, _callee: &Function, _args: &[Value]) {}
    /// After a function called by a statement of the run (or a pullback) returned `result`.
    fn returned(&mut self, _callee: &Function, _result: &Value) {}
    /// Before `step` runs, with its operands.
    fn before(&mut self, step: Step<'_>, args: &[Value]);
    /// After `step` ran and returned `result` (not called when it threw). Operands that the
    /// statement mutates are shown as they are after it.
    fn after(&mut self, step: Step<'_>, args: &[Value], result: &Value);
}

/// [`crate::run`] of `inst`, reporting every primitive statement to `watch`.
pub fn run_watched(
    prog: &TypedProgram,
    inst: &zy_ir::Instance,
    args: Vec<Value>,
    limits: &Limits,
    watch: &mut dyn Watch,
) -> Result<Value, RuntimeError> {
    crate::machine::run_with(prog, inst, args, limits, Some(watch))
}
