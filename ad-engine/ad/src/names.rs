//! Names and signatures of generated functions: `f⁺` (forward), `f⁻` (pullback), `∇f` (driver).

use std::sync::Arc;

use zy_ir::{Instance, Name, Type};

use crate::mask::ArgMask;
use crate::tangent::{fdata_type, has_fdata};

/// Is argument 0 of `inst` the callee itself (a callable struct or closure, or the function
/// value that the wrapper [`zy_infer::APPLY`] calls)?
pub fn has_callee_arg(inst: &Instance) -> bool {
    inst.name.starts_with("(::") || &*inst.name == zy_infer::APPLY
}

/// `Pullback{callee type, argument types...}`: the contents of the type of the `back` closure
/// that `pullback(f, args...)` returns to user code (whose `back(ȳ)` gives one full tangent per
/// argument).
pub fn pullback_sig(inst: &Instance) -> Arc<[Type]> {
    if has_callee_arg(inst) {
        inst.args.clone()
    } else {
        std::iter::once(Type::Function(inst.name.clone()))
            .chain(inst.args.iter().cloned())
            .collect()
    }
}

/// `Pullback{typeof(f⁻), argument types...}`: the contents of the type of the closure that the
/// forward function `f⁺` returns, whose call gives rdata only. Distinct from [`pullback_sig`],
/// so that a closure type always names pullbacks of one signature.
pub fn adjoint_sig(inst: &Instance) -> Arc<[Type]> {
    std::iter::once(Type::Function(suffixed(&inst.name, "⁻")))
        .chain(inst.args.iter().cloned())
        .collect()
}

/// The instance whose adjoint differentiates `inst` with respect to the parts of its arguments
/// `mask` leaves active: `inst` itself when every argument is, else `f⟨i,j⟩`, the paths of the
/// active differentiable parts ([`ArgMask::paths`]: `gamma_inc⟨2⟩` of `gamma_inc(2.0, x)`,
/// `jt⟨1.x⟩` of `jt((ν = 2.0, x = x))`). Its forward function `f⟨i,j⟩⁺` and pullback
/// `f⟨i,j⟩⁻` follow from it as from any instance.
pub fn masked(inst: &Arc<Instance>, mask: ArgMask) -> Arc<Instance> {
    if mask.is_all() {
        return inst.clone();
    }
    Arc::new(Instance {
        name: format!("{}⟨{}⟩", inst.name, mask.paths(&inst.args).join(",")).into(),
        method: inst.method,
        args: inst.args.clone(),
    })
}

/// The mask by which [`masked`] named `keyed_name` after `inst`, if it did (`f⟨2⟩` of `f`).
pub fn mask_of(inst: &Arc<Instance>, keyed_name: &str) -> Option<ArgMask> {
    let paths = keyed_name
        .strip_prefix(&*inst.name)?
        .strip_prefix('⟨')?
        .strip_suffix('⟩')?;
    let paths: Vec<&str> = paths.split(',').filter(|p| !p.is_empty()).collect();
    let mask = ArgMask::from_paths(&inst.args, &paths)?;
    (!mask.is_all()).then_some(mask)
}

/// The forward instance: `f⁺(x1, x1_f, x2, ...)`, a shadow after each argument with fdata.
/// Its function also takes, after those, the shadows of the globals `f` reaches (see
/// [`crate::globals`]), which follow from `f` and are not part of the key.
pub fn forward_instance(inst: &Instance) -> Arc<Instance> {
    let mut args = Vec::new();
    for t in inst.args.iter() {
        args.push(t.clone());
        if has_fdata(t) {
            args.push(fdata_type(t));
        }
    }
    Arc::new(Instance {
        name: suffixed(&inst.name, "⁺"),
        method: inst.method,
        args: args.into(),
    })
}

/// The pullback instance `f⁻`: keyed by the `Pullback` type contents (its function takes
/// `(tape, ȳ)`), so `make_pullback` can name it from its result type.
pub fn pullback_instance(inst: &Instance) -> Arc<Instance> {
    Arc::new(Instance {
        name: suffixed(&inst.name, "⁻"),
        method: inst.method,
        args: adjoint_sig(inst),
    })
}

/// The instance `∇ᵖf(args...)` that `pullback(f, args...)` in user code calls: it runs `f⁺` on
/// zero shadows and returns `(y, back)`, `back` a closure of the user pullback.
pub fn pullback_driver_instance(inst: &Instance) -> Arc<Instance> {
    Arc::new(Instance {
        name: format!("∇ᵖ{}", inst.name).into(),
        method: inst.method,
        args: inst.args.clone(),
    })
}

/// The user pullback `∇ᵖf⁻(tape, ȳ)`: the closure `back` of `pullback(f, args...)` runs it on its
/// tape (`f⁻`'s closure and the arguments' shadows) and returns one full tangent per argument.
pub fn user_pullback_instance(inst: &Instance) -> Arc<Instance> {
    Arc::new(Instance {
        name: format!("∇ᵖ{}⁻", inst.name).into(),
        method: inst.method,
        args: pullback_sig(inst),
    })
}

/// The instance `↺f` whose forward function `↺f⁺` and pullback `↺f⁻` recompute a
/// checkpointed call `f` in its pullback (see [`crate::checkpoint`]).
pub fn recompute_instance(inst: &Instance) -> Arc<Instance> {
    Arc::new(Instance {
        name: format!("↺{}", inst.name).into(),
        method: inst.method,
        args: inst.args.clone(),
    })
}

/// The driver instance `∇f(args...)`.
pub fn driver_instance(inst: &Instance) -> Arc<Instance> {
    Arc::new(Instance {
        name: format!("∇{}", inst.name).into(),
        method: inst.method,
        args: inst.args.clone(),
    })
}

/// The forward function's return type: `(y, y_f, back)`, `y_f` only if `ret` has fdata.
pub fn forward_ret(inst: &Instance, ret: &Type) -> Type {
    let mut parts = vec![ret.clone()];
    if has_fdata(ret) {
        parts.push(fdata_type(ret));
    }
    parts.push(Type::Pullback(adjoint_sig(inst)));
    Type::tuple(parts)
}

fn suffixed(name: &str, s: &str) -> Name {
    format!("{name}{s}").into()
}

/// Is this the name of a function generated by the AD (forward, pullback, driver, partial,
/// Hessian, recomputation)?
pub fn is_generated(name: &str) -> bool {
    name.ends_with('⁺')
        || name.ends_with('⁻')
        || name.starts_with('∇')
        || name.starts_with('∂')
        || name.starts_with('↺')
}
