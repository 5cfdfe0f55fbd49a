//! A call's arguments evaluated with machine code where that pays (`mlp_W1()` runs its 100k
//! iterations natively instead of in the interpreter). The arguments' body, a straight-line
//! thunk, runs one statement at a time. Each call of a user function is interpreted for up to
//! [`INTERPRETER_BUDGET`] (compiling it costs about that much); the first that takes longer runs
//! again from its start as machine code from the salsa `compiled` query, and so does every call
//! after it (the arguments are large: interpreting the rest would likely cost more than
//! compiling it). Every other statement runs in the interpreter as a one-statement function.
//! Values and errors (message and span) are the interpreter's either way, and the caller's
//! limits apply throughout.
//!
//! Separate runs do not share the interpreter's cache of top-level bindings, so a program with a
//! binding that holds mutable state (an array, a `Ref`, a mutable struct) is interpreted as a
//! whole: a compiled call and the thunk must see the same object. Without such bindings a call
//! in the thunk changes nothing outside itself, which is what makes running it again safe.

use std::cell::Cell;
use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use zy_hir::{CompileKey, InstanceId, ProgramKey, RootDatabase, Target};
use zy_interp::{Limits, RuntimeError, Value};
use zy_ir::{Block, Function, Instance, Name, Op, Operand, Stmt, Terminator, Type, TypedProgram};

/// How long the interpreter runs one call among the arguments before it is compiled.
const INTERPRETER_BUDGET: Duration = Duration::from_millis(1);

/// The body computing a call's arguments, with what its runs so far showed.
pub(crate) struct Arguments {
    /// The program the calls belong to.
    key: ProgramKey,
    program: TypedProgram,
    body: Arc<Function>,
    /// The position in `body` of the first call that took the interpreter past its budget in
    /// an earlier run: from there on the calls are compiled at once.
    slow_from: Cell<Option<usize>>,
}

impl Arguments {
    /// The zero-argument `body`, with calls and bindings resolved in `program` (of `key`).
    pub(crate) fn new(key: ProgramKey, program: TypedProgram, body: Arc<Function>) -> Arguments {
        Arguments {
            key,
            program,
            body,
            slow_from: Cell::new(None),
        }
    }

    /// Run the body in the interpreter.
    pub(crate) fn interpret(&self, limits: &Limits) -> Result<Value, RuntimeError> {
        zy_interp::run_function(&self.program, &self.body, Vec::new(), limits)
    }

    /// Run the body, with its calls of user functions compiled from the first one that the
    /// interpreter does not finish within [`INTERPRETER_BUDGET`].
    pub(crate) fn evaluate(
        &self,
        db: &RootDatabase,
        limits: &Limits,
    ) -> Result<Value, RuntimeError> {
        if !stepwise(&self.program, &self.body, limits) {
            return self.interpret(limits);
        }
        Stepwise {
            db,
            key: self.key,
            program: &self.program,
            body: &self.body,
            slow_from: &self.slow_from,
            limits,
            env: HashMap::new(),
        }
        .run()
    }
}

/// Can `body` run statement by statement? Not if it branches, calls no user function, a
/// binding holds mutable state, or the depth limit leaves no room for a call.
fn stepwise(program: &TypedProgram, body: &Function, limits: &Limits) -> bool {
    let [entry] = &body.blocks[..] else {
        return false;
    };
    entry.params.is_empty()
        && matches!(entry.term, Terminator::Return(_))
        && limits.max_depth >= 2
        && !program.globals.values().any(|g| holds_mutable(&g.ret))
        && entry
            .stmts
            .iter()
            .any(|&v| matches!(body.stmt(v).map(|s| &s.op), Some(Op::Invoke(_))))
}

/// Can a value of type `t` share mutable state with another value?
fn holds_mutable(t: &Type) -> bool {
    match t {
        Type::Float64
        | Type::Int64
        | Type::Bool
        | Type::Nothing
        | Type::Bottom
        | Type::Function(_) => false,
        Type::Tuple(ts) => ts.iter().any(holds_mutable),
        Type::NamedTuple(fs) => fs.iter().any(|(_, t)| holds_mutable(t)),
        Type::Struct(s) => s.mutable || s.fields.iter().any(|(_, t)| holds_mutable(t)),
        _ => true,
    }
}

/// The statement-by-statement run of a straight-line body.
struct Stepwise<'a> {
    db: &'a RootDatabase,
    key: ProgramKey,
    program: &'a TypedProgram,
    body: &'a Function,
    /// Where the calls start to run compiled (see [`Arguments`]).
    slow_from: &'a Cell<Option<usize>>,
    limits: &'a Limits,
    /// The values computed so far (bindings loaded once, as in one interpreter run).
    env: HashMap<zy_ir::Value, Value>,
}

impl<'a> Stepwise<'a> {
    fn run(mut self) -> Result<Value, RuntimeError> {
        let entry = self.body.block(Block::ENTRY);
        let mut loaded: HashMap<&Name, Value> = HashMap::new();
        for (at, &v) in entry.stmts.iter().enumerate() {
            let Some(stmt) = self.body.stmt(v) else {
                return Err(self.internal(v));
            };
            let value = match &stmt.op {
                Op::Invoke(inst) => self.call(at, v, stmt, inst)?,
                Op::Global(name) => match loaded.get(name) {
                    Some(x) => x.clone(),
                    None => {
                        let x = self.interpret(v, stmt, self.limits)?;
                        loaded.insert(name, x.clone());
                        x
                    }
                },
                _ => self.interpret(v, stmt, self.limits)?,
            };
            self.env.insert(v, value);
        }
        match &entry.term {
            Terminator::Return(op) => self.operand(op),
            _ => Err(RuntimeError::new(
                entry.term_span,
                "internal error: arguments branch".into(),
            )),
        }
    }

    /// Run call `v`, statement `at` of the body, in the interpreter, or if it or an earlier
    /// call ran past the budget (now or in an earlier run) as machine code, if the JIT
    /// compiles it.
    fn call(
        &self,
        at: usize,
        v: zy_ir::Value,
        stmt: &Stmt,
        inst: &Instance,
    ) -> Result<Value, RuntimeError> {
        if self.slow_from.get().is_none_or(|from| at < from) {
            let budget = Instant::now() + INTERPRETER_BUDGET;
            let trial = Limits {
                deadline: Some(self.limits.deadline.map_or(budget, |d| d.min(budget))),
                ..self.limits.clone()
            };
            match self.interpret(v, stmt, &trial) {
                Err(e) if e.kind == zy_interp::ErrorKind::Interrupted => {
                    if let Some(message) = self.limits.interrupted() {
                        return Err(RuntimeError { message, ..e });
                    }
                    // Only the budget ran out.
                    self.slow_from.set(Some(at));
                }
                done => return done,
            }
        }
        let id = InstanceId::in_program(self.db, self.key, inst);
        let key = CompileKey::new(self.db, id, Target::Once);
        let Ok(f) = zy_hir::compiled(self.db, key) else {
            return self.interpret(v, stmt, self.limits);
        };
        let args = stmt
            .args
            .iter()
            .map(|a| self.operand(a))
            .collect::<Result<Vec<_>, _>>()?;
        // In the thunk's run the callee is the second frame.
        let limits = Limits {
            max_depth: self.limits.max_depth - 1,
            ..self.limits.clone()
        };
        f.call(&args, &limits)
    }

    /// The value of an operand computed earlier (or a constant).
    fn operand(&self, op: &Operand) -> Result<Value, RuntimeError> {
        match op {
            Operand::Const(c) => Ok(Value::from_const(c)),
            Operand::Value(x) => self.env.get(x).cloned().ok_or_else(|| self.internal(*x)),
        }
    }

    /// Run statement `v` alone in the interpreter, within `limits`: a function taking the values
    /// it uses.
    fn interpret(
        &self,
        v: zy_ir::Value,
        stmt: &Stmt,
        limits: &Limits,
    ) -> Result<Value, RuntimeError> {
        let data = self.body.value(v);
        let mut one = Function::new(self.body.name.clone(), self.body.span);
        let mut args = Vec::new();
        let mut operands = Vec::new();
        for a in &stmt.args {
            operands.push(match a {
                Operand::Const(_) => a.clone(),
                Operand::Value(x) => {
                    args.push(self.operand(a)?);
                    let at = self.body.value(*x);
                    Operand::Value(one.add_param(Block::ENTRY, at.ty.clone(), at.span, None))
                }
            });
        }
        let stmt = Stmt {
            op: stmt.op.clone(),
            args: operands,
        };
        let out = one.push_stmt(Block::ENTRY, stmt, data.ty.clone(), data.span);
        one.set_term(
            Block::ENTRY,
            Terminator::Return(Operand::Value(out)),
            data.span,
        );
        one.ret = data.ty.clone();
        zy_interp::run_function(self.program, &one, args, limits)
    }

    fn internal(&self, v: zy_ir::Value) -> RuntimeError {
        RuntimeError::new(
            self.body.span,
            format!("internal error: no value for %{}", v.0),
        )
    }
}
