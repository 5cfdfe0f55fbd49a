//! The value and gradient of a call `f(args...)`, through the AD transform and the reference
//! interpreter or the JIT (machine code from the salsa `compiled` query).

use std::cell::OnceCell;
use std::fmt::Write;
use std::sync::Arc;

use zy_hir::{CompileKey, InstanceId, ProgramKey, RootDatabase, SourceFile, Target};
use zy_interp::Value;
use zy_ir::{
    tangent_type, Function, Instance, Method, Name, Op, Operand, Prim, Program, Terminator, Type,
    TypedProgram, ValueKind,
};
use zy_syntax::ast::{Expr, ExprKind};

use crate::arguments::Arguments;
use crate::eval::{expand, load_error};
use crate::locate::{error_at, in_library, in_site, runtime_error_at, synthesised, CallSite};
use crate::nonfinite::{is_finite, NonFinite};
use crate::trace::TraceRow;
use crate::why::Why;
use crate::{Analysis, Cancellable, EvalLimits, EvalResult, FileId, UserError};

/// Which engine runs the gradient.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub enum Engine {
    /// The reference interpreter.
    #[default]
    Interp,
    /// The Cranelift JIT (falling back to the interpreter for what it does not compile).
    Jit,
}

/// What [`Analysis::grad_with`] computes beside the value and the gradient.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct GradOptions {
    /// Every variable's value and adjoint ([`GradResult::trace`]).
    pub trace: bool,
    /// Debug mode: check the type and shape of every tangent around every rule and derived
    /// pullback, and that rules leave their arguments alone; a violation is the error.
    pub debug: bool,
}

/// The value of a call and its gradient with respect to every argument. The values are kept
/// as the engine returned them: their text and JSON are made when asked for, and only the
/// form asked for ([`GradResult::to_text`] shows no JSON, [`GradResult::to_json_text`] no
/// text; the MLP's gradient has 100k entries).
#[derive(Clone, Debug)]
pub struct GradResult {
    /// The call's value.
    value: Value,
    /// One gradient per argument (`nothing` where none can reach it).
    gradient: Vec<Value>,
    /// [`GradResult::value`] and [`GradResult::gradient`], once asked for.
    shown: OnceCell<(EvalResult, Vec<EvalResult>)>,
    /// Why the JIT did not run the gradient when it was asked to (the interpreter ran it).
    pub jit_fallback: Option<String>,
    /// Where a non-finite gradient of finite arguments came from (`None` when it is finite).
    pub nonfinite: Option<NonFinite>,
    /// Why each argument whose gradient is `nothing` or zero has it.
    pub why: Vec<Why>,
    /// With [`GradOptions::trace`]: the value and adjoint of every argument and local with a
    /// source name, in source order.
    pub trace: Option<Vec<TraceRow>>,
    /// `Some(why)` when forward mode computed the gradient, one pushforward per input number,
    /// because the reverse transform refused the function: its message.
    pub forward: Option<String>,
}

/// Equal when they show the same (the values' text, JSON and type) and say the same.
impl PartialEq for GradResult {
    fn eq(&self, other: &GradResult) -> bool {
        self.value() == other.value()
            && self.gradient() == other.gradient()
            && self.jit_fallback == other.jit_fallback
            && self.nonfinite == other.nonfinite
            && self.why == other.why
            && self.trace == other.trace
            && self.forward == other.forward
    }
}

impl GradResult {
    /// The call's value, as text, JSON and type.
    pub fn value(&self) -> &EvalResult {
        &self.shown().0
    }

    /// One gradient per argument (`nothing` where none can reach it), as text, JSON and type.
    pub fn gradient(&self) -> &[EvalResult] {
        &self.shown().1
    }

    fn shown(&self) -> &(EvalResult, Vec<EvalResult>) {
        self.shown.get_or_init(|| {
            let gradient = self.gradient.iter().map(result).collect();
            (result(&self.value), gradient)
        })
    }

    /// SPEC's JSON: `{"value": V, "gradient": [G1, G2, ...], "nonfinite": N}`, `N` the
    /// origin of a non-finite gradient or `null`, and `"mode": "forward"` when forward mode
    /// computed the gradient.
    pub fn to_json(&self) -> serde_json::Value {
        let grads: Vec<serde_json::Value> = self.gradient.iter().map(zy_interp::to_json).collect();
        let nonfinite = self.nonfinite.as_ref().map(NonFinite::to_json);
        let why: Vec<serde_json::Value> = self.why.iter().map(Why::to_json).collect();
        let mut out = serde_json::json!({
            "value": zy_interp::to_json(&self.value),
            "gradient": grads,
            "nonfinite": nonfinite,
            "why": why,
        });
        if let (Some(rows), Some(map)) = (&self.trace, out.as_object_mut()) {
            let rows: Vec<serde_json::Value> = rows.iter().map(TraceRow::to_json).collect();
            map.insert("trace".into(), rows.into());
        }
        if let (Some(_), Some(map)) = (&self.forward, out.as_object_mut()) {
            map.insert("mode".into(), "forward".into());
        }
        out
    }

    /// [`GradResult::to_json`] as text, with `value` before `gradient` as SPEC writes it.
    pub fn to_json_text(&self) -> String {
        let mut text = format!(
            "{{\"value\":{},\"gradient\":[",
            zy_interp::to_json(&self.value)
        );
        for (i, g) in self.gradient.iter().enumerate() {
            if i > 0 {
                text.push(',');
            }
            // Writing to a `String` cannot fail.
            let _ = write!(text, "{}", zy_interp::to_json(g));
        }
        text.push_str("],\"nonfinite\":");
        match &self.nonfinite {
            Some(n) => {
                let _ = write!(text, "{}", n.to_json());
            }
            None => text.push_str("null"),
        }
        text.push_str(",\"why\":[");
        for (i, w) in self.why.iter().enumerate() {
            if i > 0 {
                text.push(',');
            }
            let _ = write!(text, "{}", w.to_json());
        }
        text.push(']');
        if let Some(rows) = &self.trace {
            text.push_str(",\"trace\":[");
            for (i, r) in rows.iter().enumerate() {
                if i > 0 {
                    text.push(',');
                }
                let _ = write!(text, "{}", r.to_json());
            }
            text.push(']');
        }
        if self.forward.is_some() {
            text.push_str(",\"mode\":\"forward\"");
        }
        text.push('}');
        text
    }

    /// Two lines: the value, then the gradient tuple as Julia shows it.
    pub fn to_text(&self) -> String {
        let value = zy_interp::show(&self.value);
        let gradient: Vec<String> = self.gradient.iter().map(zy_interp::show).collect();
        let size: usize = gradient.iter().map(|g| g.len() + 2).sum();
        let mut text = String::with_capacity(value.len() + size + 24);
        text.push_str("value: ");
        text.push_str(&value);
        text.push_str("\ngradient: (");
        for (i, g) in gradient.iter().enumerate() {
            if i > 0 {
                text.push_str(", ");
            }
            text.push_str(g);
        }
        if gradient.len() == 1 {
            text.push(',');
        }
        text.push(')');
        if let Some(n) = &self.nonfinite {
            text.push('\n');
            let _ = write!(text, "{n}");
        }
        if let Some(why) = &self.forward {
            let _ = write!(
                text,
                "\nnote: computed by forward mode, one pushforward per input number, because reverse mode cannot: {why}"
            );
        }
        for w in &self.why {
            text.push('\n');
            let _ = write!(text, "{w}");
        }
        if let Some(rows) = &self.trace {
            text.push('\n');
            text.push_str(&crate::trace::table(rows));
        }
        text
    }
}

impl Analysis {
    /// Evaluate `call` (`f(args...)`) and differentiate it with respect to every argument.
    pub fn grad(
        &self,
        file: FileId,
        call: &str,
        limits: EvalLimits,
        engine: Engine,
    ) -> Cancellable<Result<GradResult, UserError>> {
        self.grad_with(file, call, limits, engine, GradOptions::default())
    }

    /// [`Analysis::grad`], with what `options` asks for besides.
    pub fn grad_with(
        &self,
        file: FileId,
        call: &str,
        limits: EvalLimits,
        engine: Engine,
        options: GradOptions,
    ) -> Cancellable<Result<GradResult, UserError>> {
        let mut limits = limits;
        limits.cancel.get_or_insert_with(|| self.stale_flag());
        self.with_db(|db| {
            let r = grad(db, file.0, call, &limits, engine, options);
            if r.is_err() {
                self.unwind_if_stale();
            }
            r
        })
    }
}

fn grad(
    db: &RootDatabase,
    file: SourceFile,
    call: &str,
    limits: &EvalLimits,
    engine: Engine,
    options: GradOptions,
) -> Result<GradResult, UserError> {
    if let Some(e) = load_error(db, file) {
        return Err(e);
    }
    let mut prepared = Prepared::new(db, file, call, CallSite::Text(call), limits)?;
    let computed = prepared.gradient_noting_fallback(db, engine);
    // A rule's wrong tangent can make the gradient itself fail: debug mode names the rule.
    if options.debug {
        prepared.restart_clock();
        prepared.debug(db)?;
    }
    let (y, gradient, jit_fallback) = computed?;
    prepared.restart_clock();
    let forward = prepared.forward_mode(db);
    prepared.restart_clock();
    let nonfinite = if gradient.iter().all(is_finite) {
        None
    } else {
        prepared.nonfinite_origin(db)
    };
    let why = prepared.why(db, &gradient);
    let gradient = prepared.dict_gradients(db, gradient);
    let trace = match options.trace {
        true => Some(prepared.trace(db)?),
        false => None,
    };
    Ok(GradResult {
        value: y,
        gradient: prepared.layout.as_written(gradient),
        shown: OnceCell::new(),
        jit_fallback,
        nonfinite,
        why,
        trace,
        forward,
    })
}

/// A call `f(args...)` typed and ready to be run and differentiated.
pub(crate) struct Prepared<'a> {
    site: CallSite<'a>,
    /// Everything `f` reaches, typed, with differentiation builtins expanded (the `expanded`
    /// query, which the JIT compiles too).
    program: Arc<TypedProgram>,
    /// The specialisation of `f` called.
    inst: Arc<Instance>,
    /// Its id, the key of the queries that build and compile its gradient.
    id: InstanceId,
    /// How `f`'s arguments stand for the ones written in the call.
    layout: ArgLayout,
    /// The tuple of `f`'s arguments, as the call passes them.
    args: Arguments,
    /// The limits each run starts from ([`Prepared::restart_clock`]).
    budget: EvalLimits,
    /// The limits of the current run: its deadline counts from the last restart.
    limits: zy_interp::Limits,
}

impl<'a> Prepared<'a> {
    /// Parse and type `call`, found at `site`, in the program of `file`.
    pub(crate) fn new(
        db: &RootDatabase,
        file: SourceFile,
        call: &'a str,
        site: CallSite<'a>,
        limits: &EvalLimits,
    ) -> Result<Prepared<'a>, UserError> {
        let expr =
            zy_syntax::parse_expr(call).map_err(|e| in_site(db, site, e.range.start, e.message))?;
        let (ExprKind::Call { callee, args } | ExprKind::KwCall { callee, args, .. }) = &expr.kind
        else {
            return Err(in_site(
                db,
                site,
                expr.range.start,
                "expected a call `f(args...)` to differentiate".into(),
            ));
        };
        let type_errors = |errs: zy_hir::CallErrors| match errs.0.into_iter().next() {
            Some(e) => error_at(db, e.span, site, e.message),
            None => in_site(
                db,
                site,
                0,
                "internal error: typing failed without a message".into(),
            ),
        };
        let module = site_module(db, file, site);
        let typed =
            zy_hir::type_call_to_run(db, file, &module, &expr, None).map_err(type_errors)?;
        // The specialisation the call invokes: the statement whose value the call returns; a
        // call of a builtin or library function (`det(A)`, `sum(x)`) through its typed
        // wrapper `#apply(f, args...)`.
        let (typed, returned) = match returned_invoke(&typed.body) {
            Some(inst) => (typed, Some(inst)),
            None => applied(db, file, &module, &expr)
                .map_or((typed, None), |(typed, inst)| (typed, Some(inst))),
        };
        let Some(inst) = returned else {
            // An argument that throws before the call (`f(x0)` with `x0` changed by a
            // skipped statement) says why; else the callee is no user function.
            let thrown = run_call(db, &typed, site, limits).err();
            return Err(thrown.unwrap_or_else(|| {
                in_site(
                    db,
                    site,
                    callee.range.start,
                    "can only differentiate a call of a user function".into(),
                )
            }));
        };
        if matches!(expr.kind, ExprKind::KwCall { .. }) {
            if let Some(keyword) = default_from_arguments(db, &inst, &typed) {
                let message = format!(
                    "cannot differentiate this call: the keyword `{keyword}` is left to its default, which is computed from the arguments (its gradient would be lost); pass `{keyword} = ...` in the call"
                );
                return Err(in_site(db, site, callee.range.start, message));
            }
        }
        let key = typed.key;
        let layout = ArgLayout::of(db, key, &inst, args);
        // The arguments are what the call passes to `f`, computed by the call itself.
        let args_typed = passed_arguments(typed);
        let ad_error = |e: zy_ad::AdError| error_at(db, e.span, site, e.message);
        let (args_program, args_body) = expand(db, args_typed).map_err(ad_error)?;
        let id = InstanceId::in_program(db, key, &inst);
        let program = zy_hir::expanded(db, id).clone().map_err(ad_error)?;
        if let Some((name, message)) = aliased_global(&program, &inst, &args_program, &args_body) {
            // At the argument that names it, if one does.
            let at = args
                .iter()
                .find(|a| mentions(call, a.range.start, a.range.end, &name))
                .map_or(callee.range.start, |a| a.range.start);
            return Err(in_site(db, site, at, message));
        }
        Ok(Prepared {
            site,
            program,
            inst,
            id,
            layout,
            args: Arguments::new(key, args_program, args_body),
            limits: limits.start(),
            budget: limits.clone(),
        })
    }

    /// Give the next run (the gradient, a batch of finite differences, forward mode) a time
    /// limit of its own: slow but finite runs are not failed for the time the others took,
    /// and an endless one is still stopped by its own.
    pub(crate) fn restart_clock(&mut self) {
        self.limits = self.budget.start();
    }

    fn runtime_error(&self, db: &RootDatabase, e: zy_interp::RuntimeError) -> UserError {
        runtime_error_at(db, e, self.site)
    }

    /// A fresh evaluation of the arguments (the callee first if it is passed), by the
    /// interpreter.
    pub(crate) fn arguments(&self, db: &RootDatabase) -> Result<Vec<Value>, UserError> {
        self.arguments_on(db, Engine::Interp)
    }

    /// Zygote's gradient with respect to a `Dict` argument: a `Dict` of its keys holding the
    /// values' gradients, where the AD gives the prelude struct's `(keys = nothing, vals)`.
    fn dict_gradients(&self, db: &RootDatabase, gradient: Vec<Value>) -> Vec<Value> {
        let skip = self.skipped();
        let dict = |i: usize| match self.arg_types().get(skip + i) {
            Some(Type::Struct(s)) if &*s.name == "Base.Dict" => Some(s.clone()),
            _ => None,
        };
        if !(0..gradient.len()).any(|i| dict(i).is_some()) {
            return gradient;
        }
        let Ok(args) = self.arguments_on(db, Engine::Interp) else {
            return gradient;
        };
        let as_dict = |i: usize, g: &Value| {
            let (Some(t), Some(Value::Mutable(_, fields)), Value::NamedTuple(names, parts)) =
                (dict(i), args.get(skip + i), g)
            else {
                return None;
            };
            let vals = names.iter().position(|n| &**n == "vals")?;
            // The argument's fields (keys, table, ...), its values' gradients for `vals`.
            let mut entries: Vec<Value> = fields.borrow().iter().map(Value::deep_copy).collect();
            *entries.get_mut(vals)? = parts.get(vals)?.clone();
            Some(Value::Mutable(
                t,
                std::rc::Rc::new(std::cell::RefCell::new(entries)),
            ))
        };
        gradient
            .iter()
            .enumerate()
            .map(|(i, g)| as_dict(i, g).unwrap_or_else(|| g.clone()))
            .collect()
    }

    /// [`Prepared::arguments`] on `engine`: the JIT runs the calls among them that it compiles
    /// (same values, same errors).
    pub(crate) fn arguments_on(
        &self,
        db: &RootDatabase,
        engine: Engine,
    ) -> Result<Vec<Value>, UserError> {
        let out = match engine {
            Engine::Interp => self.args.interpret(&self.limits),
            Engine::Jit => self.args.evaluate(db, &self.limits),
        };
        match out {
            Ok(Value::Tuple(vs)) => Ok(vs.to_vec()),
            Ok(other) => Ok(vec![other]),
            Err(e) => Err(self.runtime_error(db, e)),
        }
    }

    /// The argument names of `f` as written (the skipped ones first).
    pub(crate) fn arg_names(&self) -> Vec<String> {
        self.program
            .functions
            .get(&self.inst)
            .map_or_else(Vec::new, |f| {
                f.arg_names.iter().map(|n| n.to_string()).collect()
            })
    }

    /// How many leading arguments are not positional arguments of the call (the callee or
    /// the keywords).
    pub(crate) fn skipped(&self) -> usize {
        self.layout.skipped
    }

    /// Run the call (a fresh evaluation of its arguments) in the interpreter.
    fn run_plain(&self, db: &RootDatabase) -> Result<Value, UserError> {
        let args = self.arguments(db)?;
        zy_interp::run(&self.program, &self.inst, args, &self.limits)
            .map_err(|e| self.runtime_error(db, e))
    }

    /// Run the call (a fresh evaluation of its arguments) in the interpreter, reporting each
    /// primitive statement to `watch`; `None` if it fails.
    pub(crate) fn run_watched(
        &self,
        db: &RootDatabase,
        watch: &mut dyn zy_interp::Watch,
    ) -> Option<Value> {
        let args = self.arguments(db).ok()?;
        zy_interp::run_watched(&self.program, &self.inst, args, &self.limits, watch).ok()
    }

    /// The call's value on `args` (as returned by [`Prepared::arguments`]), by the interpreter.
    pub(crate) fn value(&self, db: &RootDatabase, args: Vec<Value>) -> Result<Value, UserError> {
        self.value_on(db, args, Engine::Interp)
    }

    /// [`Prepared::value`] on `engine` (the JIT's code from the `compiled` query).
    pub(crate) fn value_on(
        &self,
        db: &RootDatabase,
        args: Vec<Value>,
        engine: Engine,
    ) -> Result<Value, UserError> {
        let compiled = (engine == Engine::Jit)
            .then(|| zy_hir::compiled(db, CompileKey::new(db, self.id, Target::Primal)));
        let out = match compiled {
            Some(Ok(f)) => f.call(&args, &self.limits),
            _ => zy_interp::run(&self.program, &self.inst, args, &self.limits),
        };
        out.map_err(|e| self.runtime_error(db, e))
    }

    /// The types of `f`'s arguments (the skipped ones first).
    pub(crate) fn arg_types(&self) -> &[Type] {
        &self.inst.args
    }

    /// The pair `(y, ẏ)` of the call by forward mode, in the interpreter: `args` holds each
    /// argument of `f` followed by its tangent where its type has one (`zy_ad::forward`).
    pub(crate) fn pushforward(
        &self,
        db: &RootDatabase,
        args: Vec<Value>,
    ) -> Result<Value, UserError> {
        let rules = zy_hir::Rules::of(db, self.id.program(db));
        let (driver, program) =
            zy_ad::forward::pushforward_program(Some(&rules), &self.program, &self.inst)
                .map_err(|e| error_at(db, e.span, self.site, e.message))?;
        zy_interp::run(&program, &driver, args, &self.limits).map_err(|e| self.runtime_error(db, e))
    }

    /// The value and the gradient with respect to each positional argument (not the callee,
    /// not the keywords).
    pub(crate) fn gradient(
        &self,
        db: &RootDatabase,
        engine: Engine,
    ) -> Result<(Value, Vec<Value>), UserError> {
        self.gradient_noting_fallback(db, engine)
            .map(|(y, g, _)| (y, g))
    }

    /// Why reverse mode refused the call's function when forward mode computes its gradient
    /// (the `gradient` query's [`zy_hir::GradientProgram::forward`]).
    pub(crate) fn forward_mode(&self, db: &RootDatabase) -> Option<String> {
        let g = zy_hir::gradient(db, self.id).as_ref().ok()?;
        g.forward.clone()
    }

    /// The gradient driver of the call and the program it runs in.
    fn gradient_program(
        &self,
        db: &RootDatabase,
    ) -> Result<(Arc<Instance>, Arc<TypedProgram>), UserError> {
        let g = zy_hir::gradient(db, self.id).as_ref().map_err(|e| {
            // A function that always throws: the run says with what.
            let never_returns = self
                .program
                .functions
                .get(&self.inst)
                .is_some_and(|f| f.ret == Type::Bottom);
            let thrown = never_returns.then(|| self.run_plain(db).err()).flatten();
            thrown.unwrap_or_else(|| error_at(db, e.span, self.site, e.message.clone()))
        })?;
        Ok((g.driver.clone(), g.program.clone()))
    }

    /// Where the non-finite gradient of this call came from, if its arguments are finite: the
    /// gradient run again in the interpreter under watch (the engines agree to the bit).
    pub(crate) fn nonfinite_origin(&self, db: &RootDatabase) -> Option<NonFinite> {
        let args = self.arguments(db).ok()?;
        if !args.iter().skip(self.skipped()).all(is_finite) {
            return None;
        }
        let (driver, program) = self.gradient_program(db).ok()?;
        let call = match self.site {
            CallSite::InFile { file, offset } => Some((file, offset)),
            CallSite::Text(_) => None,
        };
        crate::nonfinite::explain(db, &program, &driver, args, &self.limits, call)
    }

    /// Debug mode: the gradient run again in the interpreter, checking every tangent around
    /// every rule and derived pullback ([`crate::debug`]).
    pub(crate) fn debug(&self, db: &RootDatabase) -> Result<(), UserError> {
        let (driver, program) = self.gradient_program(db)?;
        let args = self.arguments(db)?;
        crate::debug::check(
            db,
            self.id.program(db),
            (&program, &driver),
            &self.program,
            args,
            &self.limits,
            self.site,
        )
    }

    /// The first rule of this call that disagrees with finite differences on the operands it
    /// saw (an in-source `rrule`, or a primitive's derivative rule), as a related location.
    pub(crate) fn culprit(&self, db: &RootDatabase, rtol: f64) -> Option<crate::Related> {
        let subject = crate::culprit::Subject {
            key: self.id.program(db),
            program: &self.program,
            inst: &self.inst,
            args: self.arguments(db).ok()?,
            limits: &self.limits,
            call: self.call(),
            rtol,
        };
        crate::culprit::find(db, &subject)
    }

    /// The value and adjoint of every variable with a source name: the gradient built with
    /// taps, run in the interpreter under watch.
    pub(crate) fn trace(&self, db: &RootDatabase) -> Result<Vec<TraceRow>, UserError> {
        let ad_error = |e: zy_ad::AdError| {
            let message = match e.nested_reverse {
                true => format!("the trace shows the reverse pass, and reverse mode cannot take this function (forward mode computes its gradient): {}", e.message),
                false => e.message,
            };
            error_at(db, e.span, self.site, message)
        };
        let rules = zy_hir::Rules::of(db, self.id.program(db));
        let globals = zy_ad::GlobalShadows::of(&self.program);
        let (driver, program) =
            zy_ad::gradient_program_with(&self.program, &self.inst, &mut |_, i, mask| {
                zy_ad::traced_instance_adjoint(Some(&rules), &self.program, &globals, i, mask)
            })
            .map_err(ad_error)?;
        let args = self.arguments(db)?;
        crate::trace::run(db, &program, &driver, args, &self.limits, self.call())
            .map_err(|e| self.runtime_error(db, e))
    }

    /// Where the call text is, if it is in a file (a `# zy:` annotation).
    fn call(&self) -> Option<(SourceFile, u32)> {
        match self.site {
            CallSite::InFile { file, offset } => Some((file, offset)),
            CallSite::Text(_) => None,
        }
    }

    /// Why each argument whose gradient in `gradient` is `nothing` or zero has it.
    pub(crate) fn why(&self, db: &RootDatabase, gradient: &[Value]) -> Vec<Why> {
        if !gradient.iter().any(crate::why::is_nothing_or_zero) {
            return Vec::new();
        }
        let args = || self.arguments(db).ok();
        let subject = crate::why::Subject {
            program: &self.program,
            inst: &self.inst,
            args: &args,
            skipped: self.skipped(),
            limits: &self.limits,
            call: match self.site {
                CallSite::InFile { file, offset } => Some((file, offset)),
                CallSite::Text(_) => None,
            },
        };
        crate::why::explain(db, &subject, gradient)
    }

    /// [`Prepared::gradient`], with why the JIT did not run it if it was asked to.
    fn gradient_noting_fallback(
        &self,
        db: &RootDatabase,
        engine: Engine,
    ) -> Result<(Value, Vec<Value>, Option<String>), UserError> {
        // The JIT's gradient comes from the `compiled` query: a second request compiles nothing.
        let jit = (engine == Engine::Jit)
            .then(|| zy_hir::compiled(db, CompileKey::new(db, self.id, Target::Gradient)));
        let (out, fallback) = match jit {
            Some(Ok(f)) => (f.call(&self.arguments_on(db, engine)?, &self.limits), None),
            // The program the JIT compiles (the `gradient` query), interpreted; its error has
            // the span the JIT's refusal lacks.
            _ => {
                let (driver, program) = self.gradient_program(db)?;
                let args = self.arguments_on(db, engine)?;
                let why = jit.and_then(|r| r.as_ref().err().cloned());
                (zy_interp::run(&program, &driver, args, &self.limits), why)
            }
        };
        let out = match out {
            // Compiled code keeps no stack trace: for an error raised in the library or in
            // synthesised code, the interpreter raises the same one with the user's call that
            // led there.
            Err(e)
                if e.trace.is_empty()
                    && (synthesised(e.span) || in_library(db, e.span, self.site)) =>
            {
                let traced = self.gradient_program(db).and_then(|(driver, program)| {
                    let args = self.arguments(db)?;
                    Ok(zy_interp::run(&program, &driver, args, &self.limits))
                });
                match traced {
                    Ok(Err(again)) if again.message == e.message => Err(again),
                    _ => Err(e),
                }
            }
            other => other,
        };
        let out = out.map_err(|e| self.runtime_error(db, e))?;
        let (y, g) = match out {
            Value::Tuple(parts) if parts.len() == 2 => (parts[0].clone(), parts[1].clone()),
            other => {
                let message = format!(
                    "internal error: gradient driver returned {}",
                    zy_interp::show(&other)
                );
                return Err(in_site(db, self.site, 0, message));
            }
        };
        let mut gradient = match g {
            Value::Tuple(gs) => gs.to_vec(),
            other => vec![other],
        };
        gradient.drain(..self.layout.skipped.min(gradient.len()));
        Ok((y, gradient, fallback))
    }
}

/// The arguments are evaluated in a run of their own, so an argument that is a global object
/// (`f(W)` for `const W = [...]`) is a copy of the object that `f` loads by name. When `f` may
/// write to either, the two would part where Julia has one object: the global's name and the
/// refusal.
/// The module whose names a call is written among: for a `# zy:` annotation, the module of
/// the definition it stands above (`module Pkg ... end`, or a file `Pkg` includes); `Main` for
/// a call given by the user.
pub(crate) fn site_module(db: &RootDatabase, file: SourceFile, site: CallSite<'_>) -> zy_ir::Name {
    match site {
        CallSite::InFile { offset, .. } => zy_hir::module_at(db, file, offset),
        CallSite::Text(_) => zy_hir::MAIN.into(),
    }
}

fn aliased_global(
    program: &TypedProgram,
    inst: &Arc<Instance>,
    args_program: &TypedProgram,
    args_body: &Function,
) -> Option<(String, String)> {
    let reached = zy_ad::GlobalShadows::of(program);
    let passed = zy_ad::GlobalShadows::of(args_program).returned_by(args_body);
    let name = passed
        .iter()
        .find(|n| reached.reached(inst).iter().any(|(m, _)| m == *n))?;
    if !zy_ad::may_mutate(program, inst) {
        return None;
    }
    let message = format!(
        "cannot differentiate `{}` with the global `{name}` among its arguments: it also uses `{name}` by name and may write to it, and the gradient runs on a copy of the arguments",
        inst.name
    );
    Some((name.to_string(), message))
}

/// Does `text[start..end]` contain `name` as a whole word?
fn mentions(text: &str, start: u32, end: u32, name: &str) -> bool {
    let Some(part) = text.get(start as usize..end as usize) else {
        return false;
    };
    let word = |c: char| c.is_alphanumeric() || c == '_' || c == '!';
    part.match_indices(name).any(|(i, _)| {
        let before = part[..i].chars().next_back().is_none_or(|c| !word(c));
        let after = part[i + name.len()..]
            .chars()
            .next()
            .is_none_or(|c| !word(c));
        before && after
    })
}

/// How the arguments of the function a call invokes stand for the arguments written in the
/// call.
#[derive(Clone, Copy, Debug)]
struct ArgLayout {
    /// Leading arguments that are not written as positional arguments: the closure or callable
    /// struct passed as a hidden first argument, the keywords of a keyword call (the body of a
    /// keyword method takes them first).
    skipped: usize,
    /// The last argument is the tuple of this many trailing arguments of a varargs method.
    vararg: Option<usize>,
}

impl ArgLayout {
    /// The layout of `inst` (of the program `key`) called with the positional arguments
    /// `args`.
    fn of(db: &RootDatabase, key: ProgramKey, inst: &Instance, args: &[Expr]) -> ArgLayout {
        let index = key.index(db);
        // The method written by the user: the keyword method whose body is invoked, or the
        // one invoked.
        let method = keyword_method(&index.program, &inst.name).or_else(|| {
            let g = index.program.functions.get(&inst.name)?;
            g.methods.get(inst.method as usize)
        });
        // A varargs method receives its trailing arguments as one tuple.
        let vararg = match (method.and_then(|m| m.vararg()), inst.args.last()) {
            (Some(_), Some(Type::Tuple(ts))) => Some(ts.len()),
            _ => None,
        };
        if args.iter().any(|a| matches!(a.kind, ExprKind::Splat(_))) {
            // `f(t...)`: one gradient per argument `f` receives (its varargs split).
            return ArgLayout {
                skipped: usize::from(
                    inst.name.starts_with("(::") || &*inst.name == zy_infer::APPLY,
                ),
                vararg,
            };
        }
        let received = match vararg {
            Some(t) => (args.len() + 1).saturating_sub(t),
            None => args.len(),
        };
        ArgLayout {
            skipped: inst.args.len().saturating_sub(received),
            vararg,
        }
    }

    /// Gradients with respect to `f`'s arguments after the skipped ones, as one per argument
    /// written in the call: a varargs tuple's gradient split into its elements.
    fn as_written(&self, mut gradient: Vec<Value>) -> Vec<Value> {
        let Some(t) = self.vararg else {
            return gradient;
        };
        match gradient.pop() {
            Some(Value::Tuple(parts)) if parts.len() == t => gradient.extend(parts.iter().cloned()),
            Some(Value::Nothing) => gradient.extend((0..t).map(|_| Value::Nothing)),
            Some(other) => gradient.push(other),
            None => {}
        }
        gradient
    }
}

/// The method with keyword parameters whose body is the generic function `body`.
fn keyword_method<'p>(program: &'p Program, body: &str) -> Option<&'p Method> {
    program
        .functions
        .values()
        .flat_map(|g| &g.methods)
        .find(|m| m.keywords.as_ref().is_some_and(|k| *k.body == *body))
}

/// A keyword that the keyword call `typed` (of the body `inst`) leaves to a default that reads
/// the call's arguments and has a gradient: the call computes it before the body, so the
/// gradient with respect to the arguments would miss the path through it.
fn default_from_arguments(
    db: &RootDatabase,
    inst: &Instance,
    typed: &zy_hir::TypedCall,
) -> Option<Name> {
    let index = typed.key.index(db);
    let keywords = keyword_method(&index.program, &inst.name)?
        .keywords
        .as_deref()?;
    typed.body.values.iter().find_map(|v| {
        let ValueKind::Stmt(s) = &v.kind else {
            return None;
        };
        let Op::Invoke(default) = &s.op else {
            return None;
        };
        let (keyword, _) = keywords.params.iter().find(|(_, d)| *d == default.name)?;
        let reads_arguments = typed
            .program
            .functions
            .get(default)
            .is_some_and(|f| reads_arguments(f));
        (reads_arguments && tangent_type(&v.ty) != Type::Nothing).then(|| keyword.clone())
    })
}

/// Does any statement or terminator of `f` read one of its arguments?
fn reads_arguments(f: &Function) -> bool {
    let args = f.args();
    let is_arg = |o: &Operand| o.as_value().is_some_and(|v| args.contains(&v));
    f.values.iter().any(|v| match &v.kind {
        ValueKind::Stmt(s) => s.args.iter().any(is_arg),
        _ => false,
    }) || f
        .blocks
        .iter()
        .any(|b| b.term.operands().into_iter().any(is_arg))
}

/// The call `typed` with the instance it returns replaced by the tuple of the arguments it
/// passes (computed keyword defaults included).
fn passed_arguments(typed: zy_hir::TypedCall) -> zy_hir::TypedCall {
    let mut body = Function::clone(&typed.body);
    let invoke = body
        .blocks
        .iter()
        .find_map(|b| match &b.term {
            Terminator::Return(Operand::Value(v)) => Some(*v),
            _ => None,
        })
        .filter(|&v| matches!(body.stmt(v), Some(s) if matches!(s.op, Op::Invoke(_))));
    if let Some(v) = invoke {
        let operands = body.stmt(v).map(|s| s.args.clone()).unwrap_or_default();
        let ty = Type::Tuple(operands.iter().map(|a| body.operand_ty(a)).collect());
        if let ValueKind::Stmt(s) = &mut body.values[v.index()].kind {
            s.op = Op::Prim(Prim::Tuple);
        }
        body.values[v.index()].ty = ty.clone();
        body.ret = ty;
    }
    zy_hir::TypedCall {
        body: Arc::new(body),
        program: typed.program,
        key: typed.key,
    }
}

/// The positional call `f(args...)` of a function that is not the program's, typed as
/// `#apply(f, args...)` ([`zy_infer::APPLY`]), with the wrapper's instance it invokes.
fn applied(
    db: &RootDatabase,
    file: SourceFile,
    module: &str,
    expr: &Expr,
) -> Option<(zy_hir::TypedCall, Arc<Instance>)> {
    let ExprKind::Call { callee, args } = &expr.kind else {
        return None;
    };
    let mut passed = vec![(**callee).clone()];
    passed.extend(args.iter().cloned());
    let wrapped = Expr::call(zy_infer::APPLY, passed, expr.range);
    let typed = zy_hir::type_call_in(db, file, module, &wrapped).ok()?;
    let inst = returned_invoke(&typed.body).filter(|i| &*i.name == zy_infer::APPLY)?;
    Some((typed, inst))
}

/// Run a typed call in the interpreter, for the error it throws.
fn run_call(
    db: &RootDatabase,
    typed: &zy_hir::TypedCall,
    site: CallSite,
    limits: &EvalLimits,
) -> Result<Value, UserError> {
    let (program, body) =
        expand(db, typed.clone()).map_err(|e| error_at(db, e.span, site, e.message))?;
    zy_interp::run_function(&program, &body, Vec::new(), &limits.start())
        .map_err(|e| runtime_error_at(db, e, site))
}

/// The instance invoked by the statement whose value `body` returns.
pub(crate) fn returned_invoke(body: &Function) -> Option<Arc<Instance>> {
    let returned = body.blocks.iter().find_map(|b| match &b.term {
        Terminator::Return(Operand::Value(v)) => Some(*v),
        _ => None,
    });
    // A call that always throws ends its block unreachable after the call (the run then
    // reports the error).
    let thrown = || {
        body.blocks.iter().find_map(|b| match b.term {
            Terminator::Unreachable => b.stmts.last().copied(),
            _ => None,
        })
    };
    match &body.stmt(returned.or_else(thrown)?)?.op {
        Op::Invoke(i) => Some(i.clone()),
        _ => None,
    }
}

/// A value in display and JSON form.
pub(crate) fn result(v: &Value) -> EvalResult {
    EvalResult {
        display: zy_interp::show(v),
        json: zy_interp::to_json(v),
        ty: zy_interp::type_string(&v.julia_type()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_and_json_of_one_two_and_no_gradients() {
        let of = |gradient: Vec<Value>| GradResult {
            value: Value::F64(8.0),
            gradient,
            shown: OnceCell::new(),
            jit_fallback: None,
            nonfinite: None,
            why: Vec::new(),
            trace: None,
            forward: None,
        };
        let one = of(vec![Value::vector_f64(vec![1.5, -2.0])]);
        assert_eq!(one.to_text(), "value: 8.0\ngradient: ([1.5, -2.0],)");
        assert_eq!(
            one.to_json_text(),
            r#"{"value":8.0,"gradient":[[1.5,-2.0]],"nonfinite":null,"why":[]}"#
        );
        let two = of(vec![Value::F64(1e-7), Value::Nothing]);
        assert_eq!(two.to_text(), "value: 8.0\ngradient: (1.0e-7, nothing)");
        assert_eq!(
            two.to_json_text(),
            r#"{"value":8.0,"gradient":[1e-7,null],"nonfinite":null,"why":[]}"#
        );
        let none = of(vec![]);
        assert_eq!(none.to_text(), "value: 8.0\ngradient: ()");
        assert_eq!(
            none.to_json_text(),
            r#"{"value":8.0,"gradient":[],"nonfinite":null,"why":[]}"#
        );
        assert_eq!(
            serde_json::from_str::<serde_json::Value>(&two.to_json_text()).ok(),
            Some(two.to_json())
        );
    }

    /// `grad` of `call` in `text` on both engines: the value and gradient text, or the error.
    fn grad_both(text: &str, call: &str) -> [String; 2] {
        grad_both_within(text, call, EvalLimits::default())
    }

    /// [`grad_both`] under `limits`.
    fn grad_both_within(text: &str, call: &str, limits: EvalLimits) -> [String; 2] {
        let mut host = crate::AnalysisHost::new();
        let file = host.set_file_text(std::path::Path::new("g.jl"), text.to_string());
        let analysis = host.analysis();
        [Engine::Interp, Engine::Jit].map(|engine| {
            match analysis.grad(file, call, limits.clone(), engine) {
                Ok(Ok(g)) => g.to_text(),
                Ok(Err(e)) => e.to_string(),
                Err(_) => "cancelled".into(),
            }
        })
    }

    /// Newton's iteration for sqrt, which never converges from `Inf` (x becomes NaN).
    const NEWTON: &str = "\
function newton_sqrt(a)
    x = a
    while true
        xn = 0.5 * (x + a / x)
        if abs(xn - x) < 1e-12
            break
        end
        x = xn
    end
    return x
end

nested(a) = derivative(newton_sqrt, a)
function hog(x)
    s = 0.0
    while true
        v = fill(x, 1000)
        s += v[1]
        if s < 0.0
            break
        end
    end
    return s
end
nw(w) = newton_sqrt(w[1]) * w[2]
hess(v) = hessian(nw, v)
trace(v) = (H = hess(v); H[1, 1] + H[2, 2])
";

    #[test]
    fn a_tape_past_the_memory_limit_stops_at_its_loop_on_both_engines() {
        let limits = EvalLimits {
            max_memory: 1 << 16,
            ..EvalLimits::default()
        };
        let got = grad_both_within(NEWTON, "newton_sqrt(Inf)", limits.clone());
        let want = "g.jl:3:5: error: OutOfMemoryError: the tape of the loop here reached 64.0 KiB after 4,096 iterations; the limit is 64.0 KiB (max_memory)";
        assert_eq!(got, [want, want]);
        // Reverse over forward (`derivative` is forward mode): the pushforward's loop, inlined
        // at the call, keeps one stack of tangents; its entry is the call.
        let got = grad_both_within(NEWTON, "nested(Inf)", limits.clone());
        let at_call = "g.jl:13:13: error: OutOfMemoryError: the tape of the loop here reached 64.0 KiB after 2,048 iterations; the limit is 64.0 KiB (max_memory)";
        assert_eq!(got, [at_call, at_call]);
        // Nested AD keeps several stacks per iteration: the interpreter counts the bytes they
        // hold, the JIT the capacity it reserved for them (which doubles), so it stops earlier.
        let by = |n: &str| {
            format!("g.jl:3:5: error: OutOfMemoryError: the tape of the loop here reached 64.0 KiB after {n} iterations; the limit is 64.0 KiB (max_memory)")
        };
        // A loop whose tape keeps arrays alive: the interpreter counts them on its tape, the
        // JIT where it allocates them; both stop at the loop.
        let got = grad_both_within(NEWTON, "hog(1.0)", limits.clone());
        let interp = "g.jl:16:5: error: OutOfMemoryError: the tape of the loop here reached 62.6 KiB after 8 iterations; the limit is 64.0 KiB (max_memory)";
        let jit = "g.jl:16:5: error: OutOfMemoryError: what the call allocated (arrays, boxes, tape) passed the limit of 64.0 KiB (max_memory)";
        assert_eq!(got, [interp, jit]);
        // A Hessian (third order under `grad`), and the value alone.
        let got = grad_both_within(NEWTON, "trace([Inf, 1.0])", limits.clone());
        // (The JIT's array header is six words: the sixth points to an N-d array's sizes.)
        assert_eq!(got, [by("481"), by("445")]);
        let mut host = crate::AnalysisHost::new();
        let file = host.set_file_text(std::path::Path::new("g.jl"), NEWTON.to_string());
        let got = match host.analysis().eval(file, "hess([Inf, 1.0])", limits) {
            Ok(Err(e)) => e.to_string(),
            Ok(Ok(v)) => v.display,
            Err(_) => "cancelled".into(),
        };
        // The Hessian alone (forward over reverse): the gradient's tape, with its tangents.
        assert_eq!(got, by("2,048"));
        // The primal alone keeps no tape: the deadline stops it, inside the loop.
        let quick = EvalLimits {
            timeout: Some(std::time::Duration::from_millis(200)),
            ..EvalLimits::default()
        };
        let got = match host.analysis().eval(file, "newton_sqrt(Inf)", quick) {
            Ok(Err(e)) => e.to_string(),
            Ok(Ok(v)) => v.display,
            Err(_) => "cancelled".into(),
        };
        let line: Option<u32> = got.split(':').nth(1).and_then(|l| l.parse().ok());
        assert!(
            got.ends_with(": error: InterruptException: time limit exceeded")
                && line.is_some_and(|l| (3..=9).contains(&l)),
            "{got}"
        );
    }

    #[test]
    fn a_global_passed_as_an_argument_to_a_function_that_writes_it_is_refused() {
        let text = "const GV = [1.0, 2.0]\nwrites(v) = (v[1] = 5.0; GV[1] * v[2])\nreads(v) = GV[1] * v[2]\n";
        // Julia: v and GV are one object, so the value is 5 * 2 = 10; the gradient would run
        // on a copy of GV (value 2): refused, at the argument.
        let refusal = "<call>:1:8: error: cannot differentiate `writes` with the global `GV` among its arguments: it also uses `GV` by name and may write to it, and the gradient runs on a copy of the arguments";
        assert_eq!(grad_both(text, "writes(GV)"), [refusal, refusal]);
        // A copy is a different object; a function that only reads is unaffected.
        let copy = "value: 2.0\ngradient: ([0.0, 1.0],)";
        assert_eq!(grad_both(text, "writes(copy(GV))"), [copy, copy]);
        let read = "value: 2.0\ngradient: ([0.0, 1.0],)";
        assert_eq!(grad_both(text, "reads(GV)"), [read, read]);
    }

    /// A recursive power and two functions that differentiate it: the reverse transform
    /// cannot differentiate its `back` closures again.
    const RECURSIVE: &str = "\
rpow(x, n) = n == 0 ? 1.0 : x * rpow(x, n - 1)
slope(x, v) = gradient(w -> rpow(w, 3), x * v[1])[1]
function writes(v)
    v[1] = 2.0 * v[1]
    return gradient(w -> rpow(w, 3), v[1])[1]
end
const HITS = [0.0]
function counted(x)
    HITS[1] += 1.0
    return gradient(w -> rpow(w, 3), x)[1]
end
";

    #[test]
    fn a_gradient_reverse_mode_refuses_is_computed_by_forward_mode_and_says_so() {
        // slope = 3 (x v₁)², ∂/∂x = 6 x v₁², ∂/∂v₁ = 6 x² v₁: at x = 0.5, v = [2, 9]: 12, 3.
        let got = grad_both(RECURSIVE, "slope(0.5, [2.0, 9.0])");
        let note = "note: computed by forward mode, one pushforward per input number, because reverse mode cannot: cannot differentiate `slope`: nested differentiation";
        for text in &got {
            assert!(
                text.starts_with("value: 3.0\ngradient: (12.0, [3.0, 0.0])\n")
                    && text.contains(note),
                "{text}"
            );
        }
        let mut host = crate::AnalysisHost::new();
        let file = host.set_file_text(std::path::Path::new("g.jl"), RECURSIVE.to_string());
        let g = host.analysis().grad(
            file,
            "slope(0.5, [2.0, 9.0])",
            EvalLimits::default(),
            Engine::Jit,
        );
        let json = match g {
            Ok(Ok(g)) => g.to_json_text(),
            other => format!("{other:?}"),
        };
        assert!(json.ends_with(r#","mode":"forward"}"#), "{json}");
        // A function writing to its argument runs on a copy as on entry each time: with
        // u = 2v₁, 3u², whose gradient is 6u · 2 = 12 at v = [0.5].
        for text in grad_both(RECURSIVE, "writes([0.5])") {
            assert!(
                text.starts_with("value: 3.0\ngradient: ([12.0],)\nnote: computed by forward mode"),
                "{text}"
            );
        }
        // Neither mode: forward mode would write the global once per input number.
        let refused = "g.jl:8:1: error: cannot differentiate `counted`: nested differentiation (`call_pullback` inside differentiated code, as when the inner gradient runs a recursive function) is not supported yet; `hessian` and `hvp` compute second derivatives by forward over reverse; nor can forward mode compute this gradient (one pushforward per input number): `counted` may write to the global `HITS`, and forward mode runs it once per input number";
        assert_eq!(grad_both(RECURSIVE, "counted(1.0)"), [refused, refused]);
    }
}
