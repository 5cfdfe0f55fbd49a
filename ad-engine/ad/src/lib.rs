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
//! Callers: [`expand`] (or [`expand_with_rrules`]) rewrites `gradient`/`derivative`/`pullback`/
//! `hessian` in user code before anything runs (`pullback` becomes a call of `∇ᵖf`, whose
//! `back` runs `f⁺` and `f⁻` afresh and returns full tangents); [`gradient_program`] (or
//! [`gradient_program_with_rrules`]) adds a driver to run; [`adjoint_functions`] gives the IR
//! views.

pub mod activity;
pub mod cfg;
mod driver;
mod expand;
pub mod globals;
mod inline;
pub mod names;
pub mod rrule;
pub mod rules;
mod simplify;
pub mod tangent;
pub mod transform;

use std::fmt;
use std::sync::Arc;

use zy_ir::{Instance, Program, Span, TypedProgram};

pub use activity::{analyse, analyse_in, Activity, ArgGradient, UseSite, ValueActivity};
pub use driver::may_mutate;
pub use expand::{expand, expand_with_rrules};
pub use globals::GlobalShadows;
pub use tangent::{fdata_type, has_fdata, rdata_type};

/// Why a function cannot be differentiated, with the source location.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct AdError {
    pub span: Span,
    pub message: String,
}

impl AdError {
    /// An error at `span`.
    pub fn new(span: Span, message: impl Into<String>) -> AdError {
        AdError {
            span,
            message: message.into(),
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
    source: Option<&Program>,
    prog: &TypedProgram,
    inst: &Instance,
) -> Result<(Arc<Instance>, TypedProgram), AdError> {
    let mut out = prog.clone();
    let inst = Arc::new(inst.clone());
    let func = prog
        .functions
        .get(&inst)
        .ok_or_else(|| AdError::new(Span::default(), format!("no typed body for {inst}")))?;
    if func.ret == zy_ir::Type::Float64 {
        add_adjoints(source, &mut out, &inst)?;
    }
    let mutates = driver::may_mutate(prog, &inst);
    let globals = GlobalShadows::of(&out);
    let (dinst, driver) = driver::driver(
        &inst,
        func,
        adjoint_of(&out, &inst),
        mutates,
        globals.reached(&inst),
    )?;
    out.functions.insert(dinst.clone(), Arc::new(driver));
    Ok((dinst, out))
}

/// The forward function `f⁺` and pullback function `f⁻` of `inst` (what `zy-analyze ir --stage
/// forward|pullback` prints), built with everything they call.
pub fn adjoint_functions(
    source: Option<&Program>,
    prog: &TypedProgram,
    inst: &Instance,
) -> Result<(Arc<zy_ir::Function>, Arc<zy_ir::Function>), AdError> {
    let mut out = prog.clone();
    let inst = Arc::new(inst.clone());
    add_adjoints(source, &mut out, &inst)?;
    let get = |i: Arc<Instance>| {
        out.functions
            .get(&i)
            .cloned()
            .ok_or_else(|| AdError::new(Span::default(), format!("no adjoint for {inst}")))
    };
    Ok((
        get(names::forward_instance(&inst))?,
        get(names::pullback_instance(&inst))?,
    ))
}

/// The forward and pullback functions of `inst` in `prog`, if present.
fn adjoint_of<'p>(
    prog: &'p TypedProgram,
    inst: &Instance,
) -> Option<(&'p zy_ir::Function, &'p zy_ir::Function)> {
    let f = prog.functions.get(&names::forward_instance(inst))?;
    let p = prog.functions.get(&names::pullback_instance(inst))?;
    Some((f, p))
}

/// Add `f⁺`/`f⁻` for `inst` and, transitively, for the user functions it calls (from an rrule
/// of `source` where one applies).
pub fn add_adjoints(
    source: Option<&Program>,
    prog: &mut TypedProgram,
    inst: &Arc<Instance>,
) -> Result<(), AdError> {
    // What each function reaches follows from the primal bodies (generated code reaches what
    // the function it derives from reaches), so adding adjoints does not change it.
    let globals = GlobalShadows::of(prog);
    let mut work = vec![inst.clone()];
    while let Some(i) = work.pop() {
        let fwd = names::forward_instance(&i);
        if prog.functions.contains_key(&fwd) {
            continue;
        }
        let func = prog
            .functions
            .get(&i)
            .cloned()
            .ok_or_else(|| AdError::new(Span::default(), format!("no typed body for {i}")))?;
        let rule = match source {
            Some(src) => rrule::find(src, &i, prog)?,
            None => None,
        };
        if let Some(rule) = rule {
            if driver::may_mutate(prog, &i) {
                // The pullback restores what the forward pass overwrote; a rule's does not.
                return Err(AdError::new(
                    rule.span,
                    format!(
                        "the rrule for `{}` is not supported: `{}` may write to its arguments or a global, and zy cannot undo what a rule's forward pass writes",
                        i.name, i.name
                    ),
                ));
            }
            let (f, p) = rrule::adjoint(&i, &func.ret, &rule, globals.reached(&i));
            zy_ir::debug_verify(&f, "the rrule adjoint");
            zy_ir::debug_verify(&p, "the rrule adjoint");
            prog.functions.insert(fwd, Arc::new(f));
            prog.functions
                .insert(names::pullback_instance(&i), Arc::new(p));
            continue;
        }
        // Generated code called here (nested differentiation) is differentiated inlined.
        let mut body = inline::inline_generated(&func, prog);
        if body != *func {
            simplify::tidy(&mut body);
        }
        let adj = transform::adjoint(&i, &body, &globals)?;
        prog.functions.insert(fwd, Arc::new(adj.forward));
        prog.functions
            .insert(names::pullback_instance(&i), Arc::new(adj.pullback));
        work.extend(adj.callees);
    }
    Ok(())
}
