//! Names and signatures of generated functions: `f⁺` (forward), `f⁻` (pullback), `∇f` (driver).

use std::sync::Arc;

use zy_ir::{Instance, Name, Type};

use crate::tangent::{fdata_type, has_fdata};

/// Is argument 0 of `inst` the callee itself (a callable struct or closure)?
pub fn has_callee_arg(inst: &Instance) -> bool {
    inst.name.starts_with("(::")
}

/// `Pullback{callee type, argument types...}`: the contents of the `back` closure's type.
pub fn pullback_sig(inst: &Instance) -> Arc<[Type]> {
    if has_callee_arg(inst) {
        inst.args.clone()
    } else {
        std::iter::once(Type::Function(inst.name.clone())).chain(inst.args.iter().cloned()).collect()
    }
}

/// The forward instance: `f⁺(x1, x1_f, x2, ...)`, a shadow after each argument with fdata.
pub fn forward_instance(inst: &Instance) -> Arc<Instance> {
    let mut args = Vec::new();
    for t in inst.args.iter() {
        args.push(t.clone());
        if has_fdata(t) {
            args.push(fdata_type(t));
        }
    }
    Arc::new(Instance { name: suffixed(&inst.name, "⁺"), method: inst.method, args: args.into() })
}

/// The pullback instance `f⁻`: keyed by the `Pullback` type contents (its function takes
/// `(tape, ȳ)`), so `make_pullback` can name it from its result type.
pub fn pullback_instance(inst: &Instance) -> Arc<Instance> {
    Arc::new(Instance { name: suffixed(&inst.name, "⁻"), method: inst.method, args: pullback_sig(inst) })
}

/// The driver instance `∇f(args...)`.
pub fn driver_instance(inst: &Instance) -> Arc<Instance> {
    Arc::new(Instance { name: format!("∇{}", inst.name).into(), method: inst.method, args: inst.args.clone() })
}

/// The forward function's return type: `(y, y_f, back)`, `y_f` only if `ret` has fdata.
pub fn forward_ret(inst: &Instance, ret: &Type) -> Type {
    let mut parts = vec![ret.clone()];
    if has_fdata(ret) {
        parts.push(fdata_type(ret));
    }
    parts.push(Type::Pullback(pullback_sig(inst)));
    Type::tuple(parts)
}

fn suffixed(name: &str, s: &str) -> Name {
    format!("{name}{s}").into()
}
