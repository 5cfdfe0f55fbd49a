//! zy's reverse mode: the adjoint transform of typed SSA functions (the Zygote paper's CFG
//! reversal with Mooncake's split into a forward function `f⁺` and a pullback `f⁻`), the rules
//! of every differentiable primitive, the reaching-gradient analysis, and drivers `∇f` that
//! compute a value with its gradient.
//!
//! The pipeline, for one instance `f`:
//!
//! 1. [`cfg::single_exit`]: one returning block.
//! 2. [`activity::analyse`]: which values a gradient can reach; inactive statements are copied.
//! 3. [`transform`]: the forward function (each statement's rule fragment, residuals kept in
//!    slots or per-block stacks, `br#` predecessor records, `iter#` loop counts) and the
//!    pullback (reverse blocks, gradient variables built with [`zy_ir::SsaBuilder`]). Global
//!    objects the function reaches come in as shadow parameters ([`globals`]).
//! 4. [`add_adjoints`]: the same for every user function called on the active path, or the
//!    in-source `rrule` instead ([`rrule`]); calls of generated code are inlined first, which is
//!    what makes differentiating derivatives work.
//! 5. The driver `∇f`: zero shadows (of the arguments and of the globals reached; checks that
//!    no two of them are one object when the call may write), `f⁺` and `f⁻` inlined,
//!    gradients assembled.
//!
//! A `checkpointed(f, args...)` call gets its adjoint from [`checkpoint`] instead: the forward
//! keeps the arguments, the pullback recomputes `f`'s forward pass.
//!
//! Callers: [`expand`] (or [`expand_with_rrules`]) rewrites `gradient`/`derivative`/`pullback`/
//! `hessian` in user code before anything runs (`pullback` becomes a call of `∇ᵖf`, whose
//! `back` runs `f⁺` and `f⁻` afresh and returns full tangents); [`gradient_program`] (or
//! [`gradient_program_with_rrules`]) adds a driver to run. [`instance_adjoint`] builds the
//! adjoint of one instance and [`gradient_program_with`] assembles a driver's program from
//! such adjoints, which is how the analysis layer caches them per instance (one query that
//! the gradient, the JIT, the IR views and hover all read).

pub mod activity;
pub mod cfg;
pub mod checkpoint;
mod defunc;
mod driver;
mod expand;
pub mod forward;
mod forward_driver;
pub mod frule;
pub mod globals;
mod inline;
pub mod mask;
mod mutates;
pub mod names;
mod payload;
mod recursion;
mod remat;
pub mod revolve;
pub mod rrule;
mod rule_source;
pub mod rules;
mod simplify;
pub mod tangent;
pub mod transform;
mod trybody;

use std::fmt;
use std::sync::Arc;

use zy_ir::{Instance, Program, Span, TypedProgram};

pub use rule_source::RuleSource;

pub use activity::{
    analyse, analyse_in, analyse_masked, Activity, ArgGradient, UseSite, ValueActivity,
};
pub use driver::may_mutate;
pub use expand::{expand, expand_with_rrules};
pub use forward_driver::forward_gradient_program;
pub use globals::GlobalShadows;
pub use inline::inline_slices;
pub use mask::{ArgMask, Vary};
pub use recursion::Recursive;
pub use tangent::{fdata_type, has_fdata, rdata_type};

/// Why a function cannot be differentiated, with the source location.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct AdError {
    pub span: Span,
    pub message: String,
    /// The reverse transform refused what forward mode takes: code that itself differentiates
    /// (nested AD: a recursive function's pullback closures, a pullback that leaves a loop nest
    /// early), or an operand without a derivative that varies as an argument of the function
    /// differentiated (forward mode gives a callee's argument a tangent only where it varies at
    /// the call). A `gradient` in user code then runs forward mode instead.
    pub nested_reverse: bool,
}

impl AdError {
    /// An error at `span`.
    pub fn new(span: Span, message: impl Into<String>) -> AdError {
        AdError {
            span,
            message: message.into(),
            nested_reverse: false,
        }
    }
}

impl fmt::Display for AdError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for AdError {}

/// Add to a copy of `prog` the forward and pullback functions of `inst` and of every function
/// they call, plus the driver `∇f(args...)` returning `(y, (g1, g2, ...))`. Returns the
/// driver's instance and the extended program. In-source `rrule`s are not consulted (see
/// [`gradient_program_with_rrules`]).
pub fn gradient_program(
    prog: &TypedProgram,
    inst: &Instance,
) -> Result<(Arc<Instance>, TypedProgram), AdError> {
    gradient_program_in(None, prog, inst)
}

/// [`gradient_program`], with the `rrule` methods of `source` (the untyped program `prog` was
/// inferred from) overriding the derived adjoints of the functions they name.
pub fn gradient_program_with_rrules(
    source: &Program,
    prog: &TypedProgram,
    inst: &Instance,
) -> Result<(Arc<Instance>, TypedProgram), AdError> {
    gradient_program_in(Some(source), prog, inst)
}

fn gradient_program_in(
    source: Option<&dyn RuleSource>,
    prog: &TypedProgram,
    inst: &Instance,
) -> Result<(Arc<Instance>, TypedProgram), AdError> {
    let globals = GlobalShadows::of(prog);
    gradient_program_with(prog, &Arc::new(inst.clone()), &mut |p, i, m| {
        instance_adjoint(source, p, &globals, i, m)
    })
}

/// [`gradient_program`] with each instance's adjoint given by `adjoint` (called with the
/// program built so far, the instance and the arguments active at its calls), as
/// [`instance_adjoint`] builds it or from a cache of its results.
pub fn gradient_program_with(
    prog: &TypedProgram,
    inst: &Arc<Instance>,
    adjoint: &mut AdjointSource<'_>,
) -> Result<(Arc<Instance>, TypedProgram), AdError> {
    let mut out = prog.clone();
    let func = prog
        .functions
        .get(inst)
        .ok_or_else(|| AdError::new(Span::default(), format!("no typed body for {inst}")))?;
    if driver::is_scalar(&func.ret) {
        add_adjoints_with(&mut out, inst, adjoint)?;
    }
    let mutates = driver::may_mutate(prog, inst);
    let globals = GlobalShadows::of(&out);
    let (dinst, driver) = driver::driver(inst, func, adjoint_of(&out, inst), mutates, &globals)?;
    out.functions.insert(dinst.clone(), Arc::new(driver));
    Ok((dinst, out))
}

/// The forward and pullback functions of `inst` (every argument active) in `prog`, if present.
fn adjoint_of<'p>(
    prog: &'p TypedProgram,
    inst: &Instance,
) -> Option<(&'p zy_ir::Function, &'p zy_ir::Function)> {
    let f = prog.functions.get(&names::forward_instance(inst))?;
    let p = prog.functions.get(&names::pullback_instance(inst))?;
    Some((f, p))
}

/// Where [`add_adjoints_with`] and [`gradient_program_with`] take each instance's adjoint
/// from: called with the program built so far, the instance and the arguments active at its
/// calls (one adjoint per instance and mask, named by [`names::masked`]).
pub type AdjointSource<'a> =
    dyn FnMut(&TypedProgram, &Arc<Instance>, ArgMask) -> Result<InstanceAdjoint, AdError> + 'a;

/// The adjoint of one instance: its forward function `f⁺`, its pullback `f⁻`, and what they
/// were built from.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct InstanceAdjoint {
    /// `f⁺`.
    pub forward: Arc<zy_ir::Function>,
    /// `f⁻`.
    pub pullback: Arc<zy_ir::Function>,
    /// The user functions whose adjoints these call, with the arguments active at the calls.
    pub callees: Vec<(Arc<Instance>, ArgMask)>,
    /// How the adjoint was made: the body the transform differentiated, or the in-source rule.
    pub origin: AdjointOrigin,
    /// Typed bodies these call that the program did not hold (an rrule, its pullback and
    /// what they reach).
    pub support: TypedProgram,
}

/// Where an instance's adjoint comes from.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum AdjointOrigin {
    /// The transform of this body: the instance's own, with differentiation calls expanded and
    /// generated code inlined.
    Derived { body: Arc<zy_ir::Function> },
    /// The in-source `rrule` method whose signature is at `span`.
    Rule { span: Span },
}

/// Build the adjoint of `inst`, a function of `prog` (with differentiation calls expanded),
/// with respect to the arguments `mask` leaves active, from an `rrule` of `source` where one
/// applies, else by transforming its body. `globals` are the reaches of `prog`'s functions.
pub fn instance_adjoint(
    source: Option<&dyn RuleSource>,
    prog: &TypedProgram,
    globals: &GlobalShadows,
    inst: &Arc<Instance>,
    mask: ArgMask,
) -> Result<InstanceAdjoint, AdError> {
    instance_adjoint_in(source, prog, globals, inst, mask, false)
}

/// [`instance_adjoint`] for the gradient debugger: a derived adjoint taps the value and the
/// adjoint of every active variable with a source name ([`zy_ir::Prim::Tap`]), which a watched
/// run of the interpreter sees (a function under an in-source rule is one row, its value and
/// the adjoint its rule was given, with where the rule is).
pub fn traced_instance_adjoint(
    source: Option<&dyn RuleSource>,
    prog: &TypedProgram,
    globals: &GlobalShadows,
    inst: &Arc<Instance>,
    mask: ArgMask,
) -> Result<InstanceAdjoint, AdError> {
    instance_adjoint_in(source, prog, globals, inst, mask, true)
}

fn instance_adjoint_in(
    source: Option<&dyn RuleSource>,
    prog: &TypedProgram,
    globals: &GlobalShadows,
    inst: &Arc<Instance>,
    mask: ArgMask,
    trace: bool,
) -> Result<InstanceAdjoint, AdError> {
    let func = prog
        .functions
        .get(inst)
        .ok_or_else(|| AdError::new(Span::default(), format!("no typed body for {inst}")))?;
    let activity = std::cell::OnceCell::new();
    let active = |v| activity.get_or_init(|| globals.activity(func)).is_active(v);
    if let Some(why) = tangent::recursive_refusal(func, &active, false) {
        return Err(why);
    }
    let rule = match source {
        Some(src) => src.rrule(inst)?,
        None => None,
    };
    let fixed = |i: &Instance| {
        checkpoint::is_checkpointed(i) || source.is_some_and(|s| rrule::may_apply(s.program(), i))
    };
    if !mask.is_all() && (rule.is_some() || checkpoint::is_checkpointed(inst)) {
        return Err(AdError::new(
            func.span,
            format!("internal error: `{inst}` has an adjoint for all its arguments only"),
        ));
    }
    if let Some(rule) = rule {
        if driver::may_mutate(prog, inst) {
            // The pullback restores what the forward pass overwrote; a rule's does not.
            return Err(AdError::new(
                rule.span,
                format!(
                    "the rrule for `{}` is not supported: `{}` may write to its arguments or a global, and zy cannot undo what a rule's forward pass writes",
                    inst.name, inst.name
                ),
            ));
        }
        let traced = trace.then_some(func.span);
        let (f, p) = rrule::adjoint(inst, &func.ret, &rule, globals.reached(inst), traced);
        zy_ir::debug_verify(&f, "the rrule adjoint");
        zy_ir::debug_verify(&p, "the rrule adjoint");
        return Ok(InstanceAdjoint {
            forward: Arc::new(f),
            pullback: Arc::new(p),
            callees: Vec::new(),
            origin: AdjointOrigin::Rule { span: rule.span },
            support: rule.support.clone(),
        });
    }
    if checkpoint::is_checkpointed(inst) && func.ret != zy_ir::Type::Bottom {
        return checkpoint::adjoint(prog, globals, inst, func);
    }
    // Generated code called here (nested differentiation) is differentiated inlined.
    let mut body = inline::inline_for_reverse(func, prog);
    if body != **func {
        simplify::tidy(&mut body);
    }
    checkpoint::check_calls(prog, globals, &body)?;
    payload::route(prog, &mut body)?;
    trybody::guard_calls(prog, &mut body);
    let setting = transform::Setting {
        mask,
        fixed: &fixed,
        writes: &mut |c| mutates::may_mutate(prog, c),
        fresh: &mut |c| checkpoint::returns_fresh(prog, c),
    };
    let keyed = names::masked(inst, mask);
    let adj = if mask.is_all() {
        transform::adjoint_with(inst, &body, globals, setting, trace)?
    } else {
        let aliased = globals.aliased(&keyed, inst);
        transform::adjoint_with(&keyed, &body, &aliased, setting, trace)?
    };
    Ok(InstanceAdjoint {
        forward: Arc::new(adj.forward),
        pullback: Arc::new(adj.pullback),
        callees: adj.callees,
        origin: AdjointOrigin::Derived {
            body: Arc::new(body),
        },
        support: TypedProgram::default(),
    })
}

/// Add `f⁺`/`f⁻` for `inst` and, transitively, for the user functions it calls (from an rrule
/// of `source` where one applies).
pub fn add_adjoints(
    source: Option<&dyn RuleSource>,
    prog: &mut TypedProgram,
    inst: &Arc<Instance>,
) -> Result<(), AdError> {
    // What each function reaches follows from the primal bodies (generated code reaches what
    // the function it derives from reaches), so adding adjoints does not change it.
    let globals = GlobalShadows::of(prog);
    add_adjoints_with(prog, inst, &mut |p, i, m| {
        instance_adjoint(source, p, &globals, i, m)
    })
}

/// [`add_adjoints`] with each instance's adjoint given by `adjoint`: `inst`'s with every
/// argument active, each callee's for the arguments active at its calls.
pub fn add_adjoints_with(
    prog: &mut TypedProgram,
    inst: &Arc<Instance>,
    adjoint: &mut AdjointSource<'_>,
) -> Result<(), AdError> {
    let mut work = vec![(inst.clone(), ArgMask::ALL)];
    while let Some((i, mask)) = work.pop() {
        let keyed = names::masked(&i, mask);
        let fwd = names::forward_instance(&keyed);
        if prog.functions.contains_key(&fwd) {
            continue;
        }
        let adj = adjoint(prog, &i, mask)?;
        for (k, f) in adj.support.functions {
            prog.functions.entry(k).or_insert(f);
        }
        for (k, g) in adj.support.globals {
            prog.globals.entry(k).or_insert(g);
        }
        prog.functions.insert(fwd, adj.forward);
        prog.functions
            .insert(names::pullback_instance(&keyed), adj.pullback);
        work.extend(adj.callees);
    }
    Ok(())
}
