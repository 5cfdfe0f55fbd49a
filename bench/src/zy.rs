//! A benchmark call prepared for timing: its arguments evaluated once, and its primal, its
//! gradient driver and a no-op of the same argument types as machine code from the salsa
//! `compiled` query, the very code `zy-analyze grad` and the editor's gradient lens run (or,
//! where the JIT refuses a function, the interpreter).

use std::path::Path;
use std::sync::Arc;

use zy_codegen::{BoundCall, CompiledFn};
use zy_hir::{CompileKey, InstanceId, RootDatabase, SourceFile, Target};
use zy_ide::AnalysisHost;
use zy_interp::{Limits, Value};
use zy_ir::{Function, Instance, Op, Operand, Terminator, TypedProgram};
use zy_syntax::ast::{Expr, ExprKind};

use crate::cases::Case;

/// The name of the no-op that measures the cost of crossing into compiled code.
const BOUNDARY: &str = "zy_bench_boundary";

/// Runs one function on interpreter values: compiled code, or the interpreter as a fallback.
pub enum Runner {
    /// Machine code from the Cranelift JIT.
    Jit(CompiledFn),
    /// The reference interpreter, because the JIT refused the function (the reason kept).
    Interp {
        program: TypedProgram,
        inst: Arc<Instance>,
        reason: String,
    },
}

impl Runner {
    /// The machine code of `target` of `inst` from the `compiled` query of `db`, or `entry` of
    /// `program` on the interpreter if the query refuses it.
    fn new(
        db: &RootDatabase,
        file: SourceFile,
        inst: &Instance,
        target: Target,
        (program, entry): (TypedProgram, Arc<Instance>),
    ) -> Runner {
        match zy_hir::compiled(db, CompileKey::of(db, file, inst, target)) {
            Ok(f) => Runner::Jit(f.clone()),
            Err(reason) => Runner::Interp {
                program,
                inst: entry,
                reason: reason.clone(),
            },
        }
    }

    /// The machine code, if the JIT compiled the function.
    pub fn compiled(&self) -> Option<&CompiledFn> {
        match self {
            Runner::Jit(f) => Some(f),
            Runner::Interp { .. } => None,
        }
    }

    /// Run on `args`.
    pub fn call(&self, args: &[Value]) -> Result<Value, String> {
        let limits = limits();
        let out = match self {
            Runner::Jit(f) => f.call(args, &limits),
            Runner::Interp { program, inst, .. } => {
                zy_interp::run(program, inst, args.to_vec(), &limits)
            }
        };
        out.map_err(|e| e.message)
    }

    /// Bind `args` for repeated timed runs: compiled code through its native entry point (the
    /// arguments converted once, the result left in native form), the interpreter on values.
    pub fn bind<'a>(&'a self, args: &'a [Value]) -> Result<Bound<'a>, String> {
        match self {
            Runner::Jit(f) => f
                .bind(args, &limits())
                .map(|call| Bound::Jit(Box::new(call)))
                .map_err(|e| e.message),
            Runner::Interp { .. } => Ok(Bound::Interp(self, args)),
        }
    }

    /// Why the interpreter runs this function, if it does.
    pub fn fallback_reason(&self) -> Option<&str> {
        match self {
            Runner::Jit(_) => None,
            Runner::Interp { reason, .. } => Some(reason),
        }
    }
}

/// No deadline, and room for deep recursion.
fn limits() -> Limits {
    Limits {
        max_depth: 10_000,
        ..Limits::default()
    }
}

/// A function bound to its arguments, run again and again by the timing loop.
pub enum Bound<'a> {
    /// Compiled code: each run is the machine code alone.
    Jit(Box<BoundCall<'a>>),
    /// The interpreter, which has no native form: each run is a call on values.
    Interp(&'a Runner, &'a [Value]),
}

impl Bound<'_> {
    /// Run once; false when the run failed.
    pub fn run(&mut self) -> bool {
        match self {
            Bound::Jit(call) => call.run().is_ok(),
            Bound::Interp(runner, args) => runner.call(args).is_ok(),
        }
    }
}

/// A benchmark call ready to be timed.
pub struct Prepared {
    /// The call's arguments, evaluated once by the interpreter.
    pub args: Vec<Value>,
    /// The function called (`f` of `f(args...)`).
    pub primal: Runner,
    /// The driver `∇f` returning `(y, (g1, g2, ...))`.
    pub gradient: Runner,
    /// `zy_bench_boundary(args...) = 0.0`: the cost of passing these arguments in and out.
    pub boundary: Runner,
    /// The program holding `∇f`, `f⁺` and `f⁻`, built as the `compiled` query builds it.
    pub gradient_program: TypedProgram,
    /// The specialisation of `f` called.
    pub inst: Arc<Instance>,
    /// The host whose `compiled` query made the machine code.
    pub host: AnalysisHost,
    /// The file the call is made in (the fixture with the no-op appended).
    pub file: SourceFile,
}

/// Load `case`'s fixture into a fresh host and prepare its call.
pub fn prepare(case: &Case) -> Result<Prepared, String> {
    prepare_call(case.file, case.source, case.call)
}

/// Load `source` as `file` into a fresh host and prepare `call`.
pub fn prepare_call(file: &str, source: &str, call: &str) -> Result<Prepared, String> {
    prepare_call_in(AnalysisHost::new(), file, source, call)
}

/// Load `source` as `file` into `host` (empty; made by [`AnalysisHost::with_query_log`] for a
/// test of what runs) and prepare `call`.
pub fn prepare_call_in(
    mut host: AnalysisHost,
    file: &str,
    source: &str,
    call: &str,
) -> Result<Prepared, String> {
    let (callee, arity) = callee_and_arity(call)?;
    let params: Vec<String> = (1..=arity).map(|i| format!("a{i}")).collect();
    let noop = format!("{BOUNDARY}({}) = 0.0\n", params.join(", "));
    let file = host
        .set_file_text(Path::new(file), format!("{source}\n{noop}"))
        .source_file();
    let db = host.raw_database();

    let inst = called_instance(db, file, call)?;
    let args = arguments(db, file, call)?;
    let boundary_call = format!("{BOUNDARY}{}", &call[callee.len()..]);
    let boundary_inst = called_instance(db, file, &boundary_call)?;
    let program = primal_program(db, file, &inst)?;
    let (driver, gradient_program) = gradient_program(db, file, &inst)?;
    let boundary_program = primal_program(db, file, &boundary_inst)?;

    let primal = Runner::new(db, file, &inst, Target::Primal, (program, inst.clone()));
    let gradient = Runner::new(
        db,
        file,
        &inst,
        Target::Gradient,
        (gradient_program.clone(), driver),
    );
    let boundary = Runner::new(
        db,
        file,
        &boundary_inst,
        Target::Primal,
        (boundary_program, boundary_inst.clone()),
    );
    Ok(Prepared {
        args,
        primal,
        gradient,
        boundary,
        gradient_program,
        inst,
        host,
        file,
    })
}

/// A call whose value is itself the figure (a function returning `hvp(...)` or
/// `jacobian(...)`): its arguments and the machine code of its primal only, from a fresh host
/// (returned with them: the code is the host's `compiled` query's).
pub fn prepare_primal(
    file: &str,
    source: &str,
    call: &str,
) -> Result<(Vec<Value>, Runner, AnalysisHost), String> {
    let mut host = AnalysisHost::new();
    let file = host
        .set_file_text(Path::new(file), source.to_string())
        .source_file();
    let db = host.raw_database();
    let inst = called_instance(db, file, call)?;
    let args = arguments(db, file, call)?;
    let program = primal_program(db, file, &inst)?;
    let primal = Runner::new(db, file, &inst, Target::Primal, (program, inst.clone()));
    Ok((args, primal, host))
}

/// The arguments of `call` in `source`, evaluated by the interpreter in a fresh host (for a
/// benchmark whose function zy cannot prepare: the hand-written code still needs them).
pub fn evaluate_arguments(file: &str, source: &str, call: &str) -> Result<Vec<Value>, String> {
    let mut host = AnalysisHost::new();
    let file = host
        .set_file_text(Path::new(file), source.to_string())
        .source_file();
    arguments(host.raw_database(), file, call)
}

/// The program that runs `inst`: zy-hir's `expanded` query, which the `compiled` query
/// compiles. The interpreter runs it where the JIT refuses.
fn primal_program(
    db: &RootDatabase,
    file: SourceFile,
    inst: &Arc<Instance>,
) -> Result<TypedProgram, String> {
    let id = InstanceId::of(db, file, inst);
    match zy_hir::expanded(db, id) {
        Ok(program) => Ok(TypedProgram::clone(program)),
        Err(e) => Err(e.message.clone()),
    }
}

/// The driver `∇inst` and the program holding it: zy-hir's `gradient` query, which the
/// `compiled` query compiles (the tape figure is read from it).
fn gradient_program(
    db: &RootDatabase,
    file: SourceFile,
    inst: &Arc<Instance>,
) -> Result<(Arc<Instance>, TypedProgram), String> {
    let id = InstanceId::of(db, file, inst);
    match zy_hir::gradient(db, id) {
        Ok(g) => Ok((g.driver.clone(), TypedProgram::clone(&g.program))),
        Err(e) => Err(format!("`{inst}`: cannot differentiate: {}", e.message)),
    }
}

/// `f` and the number of arguments of the call `f(args...)`.
fn callee_and_arity(call: &str) -> Result<(&str, usize), String> {
    let expr = parse_call(call)?;
    let ExprKind::Call { args, .. } = &expr.kind else {
        return Err(format!("`{call}` is not a call"));
    };
    let name = call.split('(').next().unwrap_or(call);
    Ok((name, args.len()))
}

fn parse_call(call: &str) -> Result<Expr, String> {
    zy_syntax::parse_expr(call).map_err(|e| format!("`{call}`: {}", e.message))
}

/// The specialisation `call` invokes.
fn called_instance(
    db: &RootDatabase,
    file: SourceFile,
    call: &str,
) -> Result<Arc<Instance>, String> {
    let expr = parse_call(call)?;
    let typed = zy_hir::type_call(db, file, &expr).map_err(|e| type_errors(call, e))?;
    returned_invoke(&typed.body).ok_or_else(|| format!("`{call}` is not a call of a user function"))
}

/// The arguments of `call`, evaluated as one tuple by the interpreter.
fn arguments(db: &RootDatabase, file: SourceFile, call: &str) -> Result<Vec<Value>, String> {
    let expr = parse_call(call)?;
    let ExprKind::Call { args, .. } = expr.kind else {
        return Err(format!("`{call}` is not a call"));
    };
    let tuple = Expr::new(ExprKind::Tuple(args), expr.range);
    let typed = zy_hir::type_call(db, file, &tuple).map_err(|e| type_errors(call, e))?;
    let limits = Limits {
        max_depth: 10_000,
        ..Limits::default()
    };
    match zy_interp::run_function(&typed.program, &typed.body, Vec::new(), &limits) {
        Ok(Value::Tuple(vs)) => Ok(vs.to_vec()),
        Ok(other) => Ok(vec![other]),
        Err(e) => Err(format!("`{call}`: arguments: {}", e.message)),
    }
}

fn type_errors(call: &str, errors: zy_hir::CallErrors) -> String {
    let first = errors
        .0
        .into_iter()
        .next()
        .map_or_else(|| "unknown type error".into(), |e| e.message);
    format!("`{call}`: {first}")
}

/// The instance invoked by the statement whose value `body` returns.
fn returned_invoke(body: &Function) -> Option<Arc<Instance>> {
    let v = body.blocks.iter().find_map(|b| match &b.term {
        Terminator::Return(Operand::Value(v)) => Some(*v),
        _ => None,
    })?;
    match &body.stmt(v)?.op {
        Op::Invoke(i) => Some(i.clone()),
        _ => None,
    }
}
