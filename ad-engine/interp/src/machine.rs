//! The interpreter loop. Calls push frames on an explicit stack (never Rust recursion), so deep
//! recursion ends in `StackOverflowError` at [`Limits::max_depth`] frames; a step counter checks
//! the deadline and the cancellation flag every few thousand steps, so runaway loops end in an
//! `InterruptException`.

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

use zy_ir as ir;
use zy_ir::{
    Block, BlockCall, Function, Instance, Name, Op, Operand, Prim, Span, Terminator, Type,
    TypedProgram, ValueKind,
};

use crate::error_kind::ErrorKind;
use crate::exception::Caught;
use crate::interrupt;
use crate::prim::{eval_prim, new_struct, undef_error};
use crate::value::Value;
use crate::watch::{Step, Watch};

/// Resource limits of one run.
#[derive(Clone, Debug)]
pub struct Limits {
    /// The deepest call stack allowed, in frames: [`MAX_DEPTH`] by default.
    pub max_depth: usize,
    /// When the run must stop.
    pub deadline: Option<Instant>,
    /// Set from another thread to stop the run.
    pub cancel: Option<Arc<AtomicBool>>,
    /// The most memory the run may take, in bytes: the AD tape (what loops keep for their
    /// pullbacks, counted by [`ir::packed_size`]) in both engines, and in the JIT everything the
    /// call allocates. Past it the run ends with an `OutOfMemoryError` that says where.
    pub max_memory: usize,
}

/// The default of [`Limits::max_depth`]: Julia's default stack runs a simple recursion about
/// 100,000 calls deep. The interpreter's frames are on the heap, compiled code checks its
/// stack pointer, so either ends deeper recursion in `StackOverflowError`.
pub const MAX_DEPTH: usize = 100_000;

/// The default of [`Limits::max_memory`]: 4 GiB.
pub const MAX_MEMORY: usize = 4 << 30;

impl Limits {
    /// The `InterruptException` message if the run must stop now (cancelled, or past the
    /// deadline).
    pub fn interrupted(&self) -> Option<String> {
        if self
            .cancel
            .as_ref()
            .is_some_and(|c| c.load(Ordering::Relaxed))
        {
            return Some("InterruptException: cancelled".into());
        }
        if self.deadline.is_some_and(|d| Instant::now() >= d) {
            return Some("InterruptException: time limit exceeded".into());
        }
        None
    }
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_depth: MAX_DEPTH,
            deadline: None,
            cancel: None,
            max_memory: MAX_MEMORY,
        }
    }
}

/// The error when the AD tape would grow past `limit` bytes at a loop's push: the tape holds
/// `tape` bytes, and the loop (the error's location) ran `iterations` times. Both engines say
/// this, in these words.
pub fn tape_limit_message(tape: u64, iterations: u64, limit: u64) -> String {
    format!(
        "OutOfMemoryError: the tape of the loop here reached {} after {} iterations; the limit is {} (max_memory)",
        bytes_text(tape),
        grouped(iterations),
        bytes_text(limit)
    )
}

/// The bytes of the array elements in `v` (a tape entry).
fn array_bytes(v: &Value) -> u64 {
    match v {
        Value::Array(a) | Value::Adjoint(a) => 8 * a.borrow().data.len() as u64,
        Value::Tuple(vs) | Value::NamedTuple(_, vs) | Value::Struct(_, vs) => {
            vs.iter().map(array_bytes).sum()
        }
        _ => 0,
    }
}

/// `512 bytes`, `1.5 KiB`, `4.0 GiB`.
pub fn bytes_text(n: u64) -> String {
    if n < 1024 {
        return format!("{n} bytes");
    }
    let mut x = n as f64;
    let mut unit = "bytes";
    for u in ["KiB", "MiB", "GiB", "TiB"] {
        if x < 1024.0 {
            break;
        }
        x /= 1024.0;
        unit = u;
    }
    format!("{x:.1} {unit}")
}

/// `268,435,456`.
fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A Julia exception (or an internal error) raised while running, at the statement that raised
/// it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuntimeError {
    /// The span of the statement (or terminator) that failed.
    pub span: Span,
    /// Julia's message: `BoundsError: attempt to access 3-element Vector{Float64} at index [4]`.
    pub message: String,
    /// Its Julia exception type, or zy's reason to stop.
    pub kind: ErrorKind,
    /// The calls it was raised under, innermost first: the span of each call statement of the
    /// frames below the failing one (Julia's stack trace). Empty where unknown (compiled code).
    pub trace: Vec<Span>,
}

impl RuntimeError {
    /// An error at `span` raised as `message` (its kind named by its first word), with no
    /// stack trace.
    pub fn new(span: Span, message: String) -> RuntimeError {
        RuntimeError {
            span,
            kind: ErrorKind::of_message(&message),
            message,
            trace: Vec::new(),
        }
    }

    /// The error `message` of the exception `caught` raised (a value thrown, or a caught
    /// exception rethrown): of its kind.
    pub fn of_caught(span: Span, message: String, caught: &Caught) -> RuntimeError {
        RuntimeError {
            kind: match caught.text == message {
                true => caught.kind.clone(),
                false => ErrorKind::of_message(&message),
            },
            ..RuntimeError::new(span, message)
        }
    }
}

impl fmt::Display for RuntimeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for RuntimeError {}

/// Run the specialisation `inst` of `prog` on `args`.
pub fn run(
    prog: &TypedProgram,
    inst: &Instance,
    args: Vec<Value>,
    limits: &Limits,
) -> Result<Value, RuntimeError> {
    run_with(prog, inst, args, limits, None)
}

/// [`run`], reporting primitive statements to `watch` if there is one.
pub(crate) fn run_with<'p>(
    prog: &'p TypedProgram,
    inst: &Instance,
    args: Vec<Value>,
    limits: &'p Limits,
    watch: Option<&'p mut dyn Watch>,
) -> Result<Value, RuntimeError> {
    let func = prog.functions.get(inst).ok_or_else(|| {
        RuntimeError::new(
            Span::default(),
            format!("internal error: no typed body for {inst}"),
        )
    })?;
    run_body(prog, func, args, limits, watch)
}

/// Run the body `func` on `args`, with calls and globals resolved in `prog` (for bodies that are
/// not themselves in `prog`, such as a call typed for the command line).
pub fn run_function(
    prog: &TypedProgram,
    func: &Function,
    args: Vec<Value>,
    limits: &Limits,
) -> Result<Value, RuntimeError> {
    run_body(prog, func, args, limits, None)
}

fn run_body<'p>(
    prog: &'p TypedProgram,
    func: &'p Function,
    args: Vec<Value>,
    limits: &'p Limits,
    watch: Option<&'p mut dyn Watch>,
) -> Result<Value, RuntimeError> {
    let frame = Frame::new(func, args, ReturnTo::Top)
        .map_err(|message| RuntimeError::new(func.span, message))?;
    let mut m = Machine {
        prog,
        limits,
        frames: vec![frame],
        globals: HashMap::new(),
        evaluating: HashSet::new(),
        steps: 0,
        scratch: Vec::new(),
        tape: 0,
        watch,
        rethrown: None,
        indexed: None,
    };
    let _current = interrupt::enter(limits);
    m.exec().map_err(|mut e| match m.rethrown.take() {
        Some(c) => {
            e.span = c.span;
            e.trace = c.trace.clone();
            e
        }
        None => {
            e.trace = m.call_sites();
            e
        }
    })
}

/// Where a frame's return value goes.
enum ReturnTo {
    /// The value of this `Invoke` statement in the frame below.
    Caller(ir::Value),
    /// The cache of global `Name`, and this `Global` statement in the frame below.
    Global(Name, ir::Value),
    /// The result of the run.
    Top,
}

struct Frame<'p> {
    func: &'p Function,
    env: Vec<Option<Value>>,
    block: Block,
    /// The next statement of `block` to run (its terminator once past the last).
    pc: usize,
    ret_to: ReturnTo,
    /// The installed exception handlers, innermost last: the catch block and the values of
    /// its parameters.
    handlers: Vec<(Block, Vec<Value>)>,
    /// The exception the last handler of this frame caught (`the_exception`).
    caught: Option<Value>,
}

impl<'p> Frame<'p> {
    fn new(func: &'p Function, args: Vec<Value>, ret_to: ReturnTo) -> Result<Frame<'p>, String> {
        let params = func.blocks.first().map_or(&[][..], |b| &b.params[..]);
        if args.len() != params.len() {
            return Err(format!(
                "internal error: {} takes {} arguments, got {}",
                func.name,
                params.len(),
                args.len()
            ));
        }
        let mut env = vec![None; func.values.len()];
        for (&p, a) in params.iter().zip(args) {
            set(&mut env, p, a);
        }
        Ok(Frame {
            func,
            env,
            block: Block::ENTRY,
            pc: 0,
            ret_to,
            handlers: Vec::new(),
            caught: None,
        })
    }

    fn read(&self, op: &Operand) -> Result<Value, String> {
        match op {
            Operand::Const(c) => Ok(Value::from_const(c)),
            Operand::Value(v) => self
                .env
                .get(v.index())
                .and_then(Option::clone)
                .ok_or_else(|| format!("internal error: {v} is used before it is defined")),
        }
    }

    /// Operands of a use: an undefined local is an `UndefVarError`.
    fn read_used(&self, op: &Operand) -> Result<Value, String> {
        match self.read(op)? {
            Value::Undef(name) => Err(undef_error(&name)),
            v => Ok(v),
        }
    }
}

fn set(env: &mut [Option<Value>], v: ir::Value, val: Value) {
    if let Some(slot) = env.get_mut(v.index()) {
        *slot = Some(val);
    }
}

/// SPEC's join rule: where `Int64` meets `Float64` the value is `Float64`.
fn coerce(ty: &Type, val: Value) -> Value {
    match (ty, val) {
        (Type::Float64, Value::Int(i)) => Value::F64(i as f64),
        (_, val) => val,
    }
}

/// How often (in steps) the deadline and the cancellation flag are checked.
const CHECK_EVERY: u32 = 1024;

struct Machine<'p> {
    prog: &'p TypedProgram,
    limits: &'p Limits,
    frames: Vec<Frame<'p>>,
    /// Globals evaluated so far in this run.
    globals: HashMap<Name, Value>,
    /// Globals whose thunk is running (a cycle is an `UndefVarError`).
    evaluating: HashSet<Name>,
    steps: u32,
    /// Operand buffer of the statement being run.
    scratch: Vec<Value>,
    /// Bytes pushed on AD stacks (and not popped), by [`ir::packed_size`].
    tape: u64,
    /// Who is told of each primitive statement, in a watched run.
    watch: Option<&'p mut dyn Watch>,
    /// The exception the failing statement rethrew: the error is reported where it was raised.
    rethrown: Option<Rc<Caught>>,
    /// The object a `BoundsError` the failing statement raised was about (its operand), which
    /// the caught exception keeps as Julia's field `a`.
    indexed: Option<Value>,
}

impl<'p> Machine<'p> {
    fn exec(&mut self) -> Result<Value, RuntimeError> {
        loop {
            let Some(frame) = self.frames.last_mut() else {
                return Err(fail(
                    Span::default(),
                    "internal error: empty call stack".into(),
                ));
            };
            let func = frame.func;
            let Some(block) = func.blocks.get(frame.block.index()) else {
                return Err(fail(
                    func.span,
                    format!("internal error: no block {}", frame.block),
                ));
            };
            if let Some(&v) = block.stmts.get(frame.pc) {
                frame.pc += 1;
                let span = func.values.get(v.index()).map_or(func.span, |d| d.span);
                // Generated statements have no span of their own: report their block's.
                let here = if span == Span::default() {
                    block.term_span
                } else {
                    span
                };
                self.check_limits(here)?;
                if let Err(m) = self.stmt(func, v, here) {
                    self.indexed = self.indexed_object(func, v, &m);
                    self.unwind(fail(span, m))?;
                }
            } else {
                self.check_limits(block.term_span)?;
                match self.term(&block.term) {
                    Ok(Some(result)) => return Ok(result),
                    Ok(None) => {}
                    Err(m) => {
                        self.indexed = None;
                        self.unwind(fail(block.term_span, m))?
                    }
                }
            }
        }
    }

    /// Hand `error` to the innermost exception handler of the call stack: drop the frames
    /// above its frame and go to its catch block. An error no handler catches (or that no
    /// `catch` may catch: [`ErrorKind::catchable`]) is returned, of the kind of the value
    /// thrown or the exception rethrown.
    fn unwind(&mut self, error: RuntimeError) -> Result<(), RuntimeError> {
        let error = match &self.rethrown {
            Some(c) => RuntimeError::of_caught(error.span, error.message, c),
            None => error,
        };
        if !error.kind.catchable() {
            return Err(error);
        }
        let Some(depth) = self.frames.iter().rposition(|f| !f.handlers.is_empty()) else {
            return Err(error);
        };
        let rethrown = self.rethrown.take();
        let (span, trace) = match &rethrown {
            Some(c) => (c.span, c.trace.clone()),
            None => (error.span, self.call_sites()),
        };
        // The stack trace is the one at the throw, should the handler rethrow it.
        for frame in self.frames.drain(depth + 1..) {
            if let ReturnTo::Global(name, _) = frame.ret_to {
                self.evaluating.remove(&name);
            }
        }
        let frame = self
            .frames
            .last_mut()
            .ok_or_else(|| fail(error.span, "internal error: empty call stack".into()))?;
        let Some((block, values)) = frame.handlers.pop() else {
            return Err(error);
        };
        let func = frame.func;
        let params = func
            .blocks
            .get(block.index())
            .map_or(&[][..], |b| &b.params[..]);
        for (&p, val) in params.iter().zip(values) {
            let ty = func.values.get(p.index()).map_or(&Type::Any, |d| &d.ty);
            set(&mut frame.env, p, coerce(ty, val));
        }
        let mut caught = Caught::raised(error.kind, &error.message, span, trace);
        caught.indexed = self.indexed.take();
        if let Some(c) = rethrown.filter(|c| c.value.is_some() || c.indexed.is_some()) {
            caught.value = c.value.clone();
            caught.indexed = c.indexed.clone();
        }
        frame.caught = Some(Value::Exception(Rc::new(caught)));
        frame.block = block;
        frame.pc = 0;
        Ok(())
    }

    /// The operand of statement `v` of `func` a `BoundsError` raised as `message` was about:
    /// the first operand whose summary the message names (`attempt to access 1-element
    /// Vector{Float64} at index [3]`, `3-codeunit String`), as Julia's `BoundsError(a, i)`
    /// holds the object indexed.
    fn indexed_object(&self, func: &Function, v: ir::Value, message: &str) -> Option<Value> {
        let what = message.strip_prefix("BoundsError: attempt to access ")?;
        let frame = self.frames.last()?;
        let stmt = match &func.values.get(v.index())?.kind {
            ValueKind::Stmt(stmt) => stmt,
            _ => return None,
        };
        stmt.args.iter().find_map(|a| {
            let x = frame.read(a).ok()?;
            let shown = match &x {
                Value::Str(s) => format!("{}-codeunit String", s.len()),
                Value::Symbol(_) => return None,
                x => crate::show::summary(x),
            };
            what.strip_prefix(shown.as_str())
                .is_some_and(|rest| rest.starts_with(" at index ["))
                .then_some(x)
        })
    }

    fn check_limits(&mut self, span: Span) -> Result<(), RuntimeError> {
        self.steps = self.steps.wrapping_add(1);
        if !self.steps.is_multiple_of(CHECK_EVERY) {
            return Ok(());
        }
        match self.limits.interrupted() {
            Some(message) => Err(fail(span, message)),
            None => Ok(()),
        }
    }

    fn top(&mut self) -> Result<&mut Frame<'p>, String> {
        self.frames
            .last_mut()
            .ok_or_else(|| "internal error: empty call stack".into())
    }

    fn push_frame(
        &mut self,
        func: &'p Function,
        args: Vec<Value>,
        ret_to: ReturnTo,
    ) -> Result<(), String> {
        if self.frames.len() >= self.limits.max_depth {
            return Err("StackOverflowError".into());
        }
        self.frames.push(Frame::new(func, args, ret_to)?);
        Ok(())
    }

    /// Run statement `v` of `func` (the top frame's function).
    fn stmt(&mut self, func: &'p Function, v: ir::Value, here: Span) -> Result<(), String> {
        let data = func
            .values
            .get(v.index())
            .ok_or_else(|| format!("internal error: {v} is not a value of {}", func.name))?;
        let ValueKind::Stmt(stmt) = &data.kind else {
            return Err(format!(
                "internal error: {v} is listed as a statement but is a parameter"
            ));
        };
        let frame = self.top()?;
        match &stmt.op {
            Op::Prim(Prim::CallPullback) => {
                let args = stmt
                    .args
                    .iter()
                    .map(|a| frame.read_used(a))
                    .collect::<Result<Vec<_>, _>>()?;
                let [Value::Pullback(back), dy] = &args[..] else {
                    return Err(
                        "internal error: `call_pullback` expects a pullback and a cotangent".into(),
                    );
                };
                let body = self.prog.functions.get(&back.instance).ok_or_else(|| {
                    format!(
                        "internal error: no typed body for pullback {}",
                        back.instance
                    )
                })?;
                let args = vec![back.tape.clone(), dy.clone()];
                if let Some(w) = &mut self.watch {
                    w.invoke(body, &args);
                }
                self.push_frame(body, args, ReturnTo::Caller(v))?;
            }
            Op::Prim(Prim::Rethrow) => {
                if let Some(Value::Exception(c)) =
                    stmt.args.first().map(|a| frame.read(a)).transpose()?
                {
                    let text = c.text.clone();
                    // An exception made as a value (`throw(ArgumentError(msg))`) is raised here.
                    let c = if c.span == Span::default() {
                        let mut raised = (*c).clone();
                        raised.span = here;
                        raised.trace = self.call_sites();
                        Rc::new(raised)
                    } else {
                        c
                    };
                    self.rethrown = Some(c);
                    return Err(text);
                }
                return Err("internal error: `rethrow` of a value that is not an exception".into());
            }
            Op::Prim(Prim::ThrowValue) => {
                let args = stmt
                    .args
                    .iter()
                    .map(|a| frame.read(a))
                    .collect::<Result<Vec<_>, _>>()?;
                let [x, Value::Str(text)] = &args[..] else {
                    return Err("internal error: `throw_value` expects a value and its text".into());
                };
                let trace = self.call_sites();
                let caught = Caught::thrown(x.clone(), text, here, trace);
                self.rethrown = Some(Rc::new(caught));
                return Err(text.to_string());
            }
            Op::Prim(Prim::TheException) => {
                let e = frame
                    .caught
                    .clone()
                    .ok_or("internal error: `the_exception` outside a catch block")?;
                set(&mut frame.env, v, e);
            }
            Op::Prim(p @ (Prim::Push | Prim::Pop)) => {
                let args = stmt
                    .args
                    .iter()
                    .map(|a| frame.read(a))
                    .collect::<Result<Vec<_>, _>>()?;
                // What the entry keeps alive: its packed bytes and the arrays it holds (which
                // the JIT counts where it allocates them).
                let size = match (*p, args.get(1)) {
                    (Prim::Push, Some(v)) => {
                        ir::packed_size(&func.operand_ty(&stmt.args[1])) + array_bytes(v)
                    }
                    _ => 0,
                };
                if *p == Prim::Push {
                    let limit = self.limits.max_memory as u64;
                    if self.tape.saturating_add(size) > limit {
                        let iterations = match args.first() {
                            Some(Value::Stack(s)) => s.borrow().len() as u64,
                            _ => 0,
                        };
                        return Err(tape_limit_message(self.tape, iterations, limit));
                    }
                    self.tape += size;
                }
                let r = eval_prim(*p, &args, &data.ty)?;
                if *p == Prim::Pop {
                    let size = ir::packed_size(&data.ty) + array_bytes(&r);
                    self.tape = self.tape.saturating_sub(size);
                }
                set(&mut self.top()?.env, v, r);
            }
            Op::Prim(p) => {
                // The hot path: operands go through one reused buffer.
                let Machine {
                    frames,
                    scratch,
                    watch,
                    ..
                } = self;
                let frame = frames
                    .last_mut()
                    .ok_or("internal error: empty call stack")?;
                scratch.clear();
                for a in &stmt.args {
                    scratch.push(frame.read(a)?);
                }
                let step = Step {
                    func,
                    value: v,
                    prim: *p,
                    span: here,
                };
                if let Some(w) = watch {
                    w.before(step, scratch);
                }
                let mut r = eval_prim(*p, scratch, &data.ty)?;
                if *p == Prim::UnionConvert
                    && (matches!(r, Value::SubStr(_)) || crate::substring::holds_both(&data.ty))
                {
                    let from = func.operand_ty(&stmt.args[0]);
                    r = crate::substring::tag(r, &from, &data.ty);
                }
                if let Some(w) = watch {
                    w.after(step, scratch, &r);
                }
                scratch.clear();
                set(&mut frame.env, v, r);
            }
            Op::New(ty) => {
                let args = stmt
                    .args
                    .iter()
                    .map(|a| frame.read(a))
                    .collect::<Result<Vec<_>, _>>()?;
                let r = new_struct(ty, &args)?;
                set(&mut frame.env, v, r);
            }
            Op::Invoke(inst) => {
                let args = stmt
                    .args
                    .iter()
                    .map(|a| frame.read_used(a))
                    .collect::<Result<Vec<_>, _>>()?;
                let callee = self
                    .prog
                    .functions
                    .get(inst)
                    .ok_or_else(|| format!("internal error: no typed body for {inst}"))?;
                if let Some(w) = &mut self.watch {
                    w.invoke(callee, &args);
                }
                self.push_frame(callee, args, ReturnTo::Caller(v))?;
            }
            Op::Global(name) => {
                if let Some(val) = self.globals.get(name) {
                    let val = val.clone();
                    set(&mut self.top()?.env, v, val);
                } else if self.evaluating.contains(name) {
                    return Err(undef_error(name));
                } else {
                    let thunk = self.prog.globals.get(name).ok_or_else(|| {
                        format!("internal error: no typed body for global {name}")
                    })?;
                    self.push_frame(thunk, Vec::new(), ReturnTo::Global(name.clone(), v))?;
                    self.evaluating.insert(name.clone());
                }
            }
            Op::Call(n) | Op::Closure(n) => {
                return Err(format!(
                    "internal error: untyped IR (`{n}`) reached the interpreter"
                ));
            }
            Op::CallValue => {
                return Err(
                    "internal error: untyped IR (a call of a value) reached the interpreter".into(),
                );
            }
        }
        Ok(())
    }

    /// Run the top frame's terminator; `Some` is the result of the whole run.
    fn term(&mut self, term: &Terminator) -> Result<Option<Value>, String> {
        match term {
            Terminator::Return(x) => {
                let frame = self
                    .frames
                    .pop()
                    .ok_or("internal error: empty call stack")?;
                let val = coerce(&frame.func.ret, frame.read_used(x)?);
                if let (Some(w), ReturnTo::Caller(_)) = (&mut self.watch, &frame.ret_to) {
                    w.returned(frame.func, &val);
                }
                match frame.ret_to {
                    ReturnTo::Top => return Ok(Some(val)),
                    ReturnTo::Caller(dest) => set(&mut self.top()?.env, dest, val),
                    ReturnTo::Global(name, dest) => {
                        self.evaluating.remove(&name);
                        self.globals.insert(name, val.clone());
                        set(&mut self.top()?.env, dest, val);
                    }
                }
            }
            Terminator::Jump(call) => self.jump(call)?,
            Terminator::Branch {
                cond,
                then_to,
                else_to,
            } => {
                let c = self.top()?.read_used(cond)?;
                match c {
                    Value::Bool(true) => self.jump(then_to)?,
                    Value::Bool(false) => self.jump(else_to)?,
                    other => {
                        return Err(format!(
                            "TypeError: non-boolean ({}) used in boolean context",
                            other.julia_type()
                        ))
                    }
                }
            }
            Terminator::Unreachable => return Err("internal error: reached `unreachable`".into()),
            Terminator::Handle { leave, catch, to } => {
                let frame = self.top()?;
                for _ in 0..*leave {
                    frame
                        .handlers
                        .pop()
                        .ok_or("internal error: `leave` without an exception handler")?;
                }
                if let Some(c) = catch {
                    let vals = c
                        .args
                        .iter()
                        .map(|a| frame.read(a))
                        .collect::<Result<Vec<_>, _>>()?;
                    frame.handlers.push((c.block, vals));
                }
                self.jump(to)?;
            }
        }
        Ok(None)
    }

    /// The spans of the calls that made the frames above the bottom one, innermost first.
    fn call_sites(&self) -> Vec<Span> {
        let mut out = Vec::new();
        for pair in self.frames.windows(2).rev() {
            if let [caller, callee] = pair {
                if let ReturnTo::Caller(v) | ReturnTo::Global(_, v) = &callee.ret_to {
                    if let Some(d) = caller.func.values.get(v.index()) {
                        out.push(d.span);
                    }
                }
            }
        }
        out
    }

    /// Go to `call.block`, binding its parameters (undefined locals may flow through φs).
    fn jump(&mut self, call: &BlockCall) -> Result<(), String> {
        let frame = self.top()?;
        let func = frame.func;
        let target = func
            .blocks
            .get(call.block.index())
            .ok_or_else(|| format!("internal error: jump to missing block {}", call.block))?;
        if target.params.len() != call.args.len() {
            return Err(format!(
                "internal error: jump to {} with the wrong arguments",
                call.block
            ));
        }
        let vals = call
            .args
            .iter()
            .map(|a| frame.read(a))
            .collect::<Result<Vec<_>, _>>()?;
        for (&p, val) in target.params.iter().zip(vals) {
            let ty = func.values.get(p.index()).map_or(&Type::Any, |d| &d.ty);
            set(&mut frame.env, p, coerce(ty, val));
        }
        frame.block = call.block;
        frame.pc = 0;
        Ok(())
    }
}

fn fail(span: Span, message: String) -> RuntimeError {
    RuntimeError::new(span, message)
}
