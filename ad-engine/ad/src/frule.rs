//! In-source ChainRules-style forward rules: `frule(Δ, ::typeof(f), x...)`, where
//! `Δ = (NoTangent(), ẋ...)` holds the function's tangent (`nothing`) and one tangent per
//! argument (`nothing` for an argument without one), returning `(y, ẏ)`, overrides forward
//! mode's derivative of `f`: its pushforward `∂→f` calls the rule instead of pushing `f`'s body
//! forward. (Julia's destructuring parameter `frule((_, ẋ), ...)` is not accepted: write
//! `frule(Δ, ...)` and `ẋ = Δ[2]`.)

use std::sync::Arc;

use zy_ir::{
    Block, Const, Function, Instance, Method, Name, Op, Operand, Prim, Program, Span, SsaBuilder,
    Terminator, Type, TypeExpr, TypedProgram,
};

use crate::forward::{dual_type, pushforward_key, pushforward_ret};
use crate::rules::Emit;
use crate::{names, AdError};

/// The typed frule for one instance.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Frule {
    /// `frule(Δ, ::typeof(f), args...)`.
    pub rule: Arc<Instance>,
    /// What the rule returns.
    pub ret: Type,
    /// The frule method's signature span, for errors.
    pub span: Span,
    /// The typed bodies of the rule and what it reaches.
    pub support: TypedProgram,
}

impl Frule {
    /// Does the rule return `(y, ẏ)` for `f` returning `ret`? Else the error saying so.
    pub fn check(&self, inst: &Instance, ret: &Type) -> Result<(), AdError> {
        let want = pushforward_ret(ret);
        if self.ret != want && self.ret != Type::Bottom {
            return Err(AdError::new(
                self.span,
                format!(
                    "the frule for `{}` must return (y, ẏ) of type {want} (the value and its tangent), not {}",
                    inst.name, self.ret
                ),
            ));
        }
        Ok(())
    }
}

/// The `frule` method of `program` for `inst`'s function, unless `inst` takes a callee (which
/// [`find`] leaves to the transform).
fn method<'p>(program: &'p Program, inst: &Instance) -> Option<&'p Method> {
    let wanted = Some(TypeExpr::Typeof(inst.name.clone()));
    let generic = program.functions.get("frule")?;
    let method = generic
        .methods
        .iter()
        .find(|m| m.sig.get(1) == Some(&wanted))?;
    (!names::has_callee_arg(inst)).then_some(method)
}

/// Does `program` have an `frule` method for `inst`'s function (which [`find`] may find to
/// apply to its argument types)?
pub fn may_apply(program: &Program, inst: &Instance) -> bool {
    method(program, inst).is_some()
}

/// The frule overriding forward mode for `inst`, if `program` has one that applies to its
/// argument types, with its typed bodies (its return type unchecked: [`Frule::check`]).
pub fn find(program: &Program, inst: &Instance) -> Result<Option<Frule>, AdError> {
    let Some(method) = method(program, inst) else {
        return Ok(None);
    };
    let span = method.span;
    let mut dx = vec![Type::Nothing];
    dx.extend(inst.args.iter().map(dual_type));
    let mut args = vec![Type::tuple(dx), Type::Function(inst.name.clone())];
    args.extend(inst.args.iter().cloned());
    let (rule, support) = match zy_infer::infer_entry(program, "frule", &args) {
        Ok(r) => r,
        // This frule does not apply to these argument types.
        Err(_) => return Ok(None),
    };
    let ret = support
        .functions
        .get(&rule)
        .map_or(Type::Any, |f| f.ret.clone());
    Ok(Some(Frule {
        rule,
        ret,
        span,
        support,
    }))
}

/// `∂→f(x1, ẋ1, ..., globals' tangents...)` of `inst` (returning `ret`) made from its frule:
/// `frule((nothing, ẋ1, ...), f, x1, ...)`, the arguments not marked in `active` (see
/// [`pushforward_key`]) given zero tangents. The tangents of the globals `f` reaches are
/// taken, as by every pushforward, and left alone: the rule says what the derivative is.
pub fn pushforward(
    inst: &Instance,
    active: &[bool],
    ret: &Type,
    r: &Frule,
    globals: &[(Name, Type)],
) -> Function {
    let pinst = pushforward_key(inst, active);
    let mut f = Function::new(pinst.name.clone(), r.span);
    f.instance = Some(pinst);
    let mut xs = Vec::new();
    // Each argument's tangent parameter, `None` where it has none or is a structural zero.
    let mut params: Vec<Option<Operand>> = Vec::new();
    for (i, t) in inst.args.iter().enumerate() {
        xs.push(Operand::from(f.add_param(
            Block::ENTRY,
            t.clone(),
            r.span,
            None,
        )));
        let d = dual_type(t);
        let on = active.get(i).copied().unwrap_or(true);
        params.push(match d {
            Type::Nothing => None,
            _ if !on => None,
            d => Some(f.add_param(Block::ENTRY, d, r.span, None).into()),
        });
    }
    for (name, ty) in globals {
        let tname = Name::from(format!("{name}\u{307}"));
        f.add_param(Block::ENTRY, dual_type(ty), r.span, Some(tname));
    }
    let rty = pushforward_ret(ret);
    f.ret = rty.clone();
    let mut sb = SsaBuilder::new(f);
    let mut e = Emit {
        bcast: None,
        b: &mut sb,
        block: Block::ENTRY,
        span: r.span,
    };
    let mut dxs: Vec<Operand> = vec![Const::Nothing.into()];
    for ((x, t), p) in xs.iter().zip(inst.args.iter()).zip(params) {
        let z = crate::forward::tangent_or_zero(&mut e, x, t, p);
        dxs.push(z.unwrap_or(Const::Nothing.into()));
    }
    let dty = Type::tuple(dxs.iter().map(|d| e.b.func.operand_ty(d)));
    let delta = e.prim(Prim::Tuple, dxs, dty);
    let mut call = vec![delta, Operand::Const(Const::Func(inst.name.clone()))];
    call.extend(xs);
    let y = e.op(Op::Invoke(r.rule.clone()), call, rty);
    sb.func
        .set_term(Block::ENTRY, Terminator::Return(y), r.span);
    let out = sb.finish();
    zy_ir::debug_verify(&out, "an frule's pushforward");
    out
}
