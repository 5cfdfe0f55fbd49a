//! Pullback closures in forward mode (forward over reverse through a recursive function, whose
//! forward function `f⁺` is not inlined into the gradient's driver and so returns a real
//! `back` closure).
//!
//! The tangent of `back = make_pullback(f⁻, m, tape)` is the closure
//! `ḃack = make_pullback(∂ᵇf⁻, m, (tape, ṫape))`, and `call_pullback(back, ȳ)` pushes forward as
//! `call_pullback(ḃack, (ȳ, ȳ̇))`, which returns `(x̄, x̄̇)`: the gradient and its tangent. The
//! closure's function `∂ᵇf⁻` unpacks the pairs and calls `∂→f⁻(tape, ṫape, ȳ, ȳ̇)`, the
//! pushforward of the pullback, so a closure held in a tape (a recursive call's) carries the
//! tangent of everything its pullback will read.

use std::hash::{Hash, Hasher};
use std::sync::Arc;

use zy_ir::{Block, Const, Function, Instance, Operand, Prim, Stmt, Terminator, Type};

use super::{dual_type, pushforward_instance, pushforward_ret, tangent_or_zero};
use crate::rules::Emit;
use crate::AdError;

/// The name of the function a pullback closure's tangent runs: `∂ᵇf⁻` for `f⁻`.
fn dual_back_name(name: &str) -> String {
    format!("∂ᵇ{name}")
}

/// The tangent type of a pullback closure `Pullback{typeof(f⁻), args...}`:
/// `Pullback{typeof(∂ᵇf⁻), args...}`.
pub fn dual_pullback(sig: &[Type]) -> Type {
    let mut out: Vec<Type> = sig.to_vec();
    if let Some(Type::Function(name)) = sig.first() {
        out[0] = Type::Function(dual_back_name(name).into());
    }
    Type::Pullback(out.into())
}

/// A closure of the tangent type of `ty` that is never called (the tangent of a slot's
/// placeholder, or of a closure no forward pass made).
pub fn unreached(e: &mut Emit, ty: &Type) -> Operand {
    let args = vec![
        Const::Func("unreached".into()).into(),
        Const::Int(0).into(),
        Const::Nothing.into(),
    ];
    e.prim(Prim::MakePullback, args, dual_type(ty))
}

/// The pullback instance that `make_pullback(args...) :: ty` names, if it is a real one.
fn target(args: &[Operand], ty: &Type) -> Option<Instance> {
    let (Some(Const::Func(name)), Some(Const::Int(m)), Type::Pullback(sig)) = (
        args.first().and_then(|a| a.as_const()),
        args.get(1).and_then(|a| a.as_const()),
        ty,
    ) else {
        return None;
    };
    Some(Instance {
        name: name.clone(),
        method: u32::try_from(*m).ok()?,
        args: sig.clone(),
    })
}

/// The pushforward of `make_pullback(f⁻, m, tape) :: ty` (`tape_ty` the tape's type, `ṫape`
/// its tangent): the primal closure and its tangent closure. Adds `f⁻` to `backs` when the
/// program has it (its pushforward and `∂ᵇf⁻` are then needed).
pub fn make_pullback(
    e: &mut Emit,
    prog_has: impl Fn(&Instance) -> bool,
    args: &[Operand],
    tape_ty: &Type,
    tape_tangent: Option<Operand>,
    ty: &Type,
    backs: &mut Vec<Arc<Instance>>,
) -> (Operand, Operand) {
    let value = e.prim(Prim::MakePullback, args.to_vec(), ty.clone());
    let Some(inst) = target(args, ty).filter(|i| prog_has(i)) else {
        return (value, unreached(e, ty));
    };
    let tape = args[2].clone();
    let dtape = dual_type(tape_ty);
    let t = tangent_or_zero(e, &tape, tape_ty, tape_tangent).unwrap_or(Const::Nothing.into());
    let pair = e.prim(
        Prim::Tuple,
        vec![tape, t],
        Type::tuple([tape_ty.clone(), dtape]),
    );
    let dargs = vec![
        Const::Func(dual_back_name(&inst.name).into()).into(),
        args[1].clone(),
        pair,
    ];
    let tangent = e.prim(Prim::MakePullback, dargs, dual_type(ty));
    let inst = Arc::new(inst);
    if !backs.contains(&inst) {
        backs.push(inst);
    }
    (value, tangent)
}

/// The pushforward of `call_pullback(back, ȳ) :: ty`, given `ḃack` and `ȳ̇`:
/// `call_pullback(ḃack, (ȳ, ȳ̇))`, split into the value and its tangent.
pub fn call_pullback(
    e: &mut Emit,
    args: &[Operand],
    arg_tys: &[Type],
    tangents: &[Option<Operand>],
    ty: &Type,
) -> Result<(Operand, Operand), AdError> {
    let (Some(back), Some(dy), Some(dy_ty)) = (
        tangents.first().cloned().flatten(),
        args.get(1).cloned(),
        arg_tys.get(1),
    ) else {
        return Err(AdError::new(
            e.span,
            "internal error: a pullback closure without a tangent in forward mode",
        ));
    };
    let ddy = tangents.get(1).cloned().flatten();
    let t = tangent_or_zero(e, &dy, dy_ty, ddy).unwrap_or(Const::Nothing.into());
    let pair = e.prim(
        Prim::Tuple,
        vec![dy, t],
        Type::tuple([dy_ty.clone(), dual_type(dy_ty)]),
    );
    let rty = pushforward_ret(ty);
    let r = e.prim(Prim::CallPullback, vec![back, pair], rty.clone());
    let value = e.field(r.clone(), 0, &rty);
    let tangent = e.field(r, 1, &rty);
    Ok((value, tangent))
}

/// `∂ᵇf⁻((tape, ṫape), (ȳ, ȳ̇)) = ∂→f⁻(tape, ṫape, ȳ, ȳ̇)` for the pullback `back` (`f⁻`, whose
/// typed body is `func`), keyed as `make_pullback` names it, and the key of the pushforward
/// `∂→f⁻` it calls (its argument types: a pullback's own key is not its arguments'). Two
/// pullbacks of one function may take the same tape and `ȳ` (a synthesized union split's for
/// each member it splits on, a `Split` of a `Leaf` or of a `Split` both giving a `Split`): the
/// key's name carries a hash of the pullback's signature to tell them apart.
pub fn dual_back(back: &Instance, func: &Function) -> (Arc<Instance>, Function, Arc<Instance>) {
    let name: zy_ir::Name = dual_back_name(&back.name).into();
    let inst = Arc::new(Instance {
        name: name.clone(),
        method: back.method,
        args: match dual_pullback(&back.args) {
            Type::Pullback(sig) => sig,
            _ => back.args.clone(),
        },
    });
    let span = func.span;
    let mut f = Function::new(name, span);
    f.instance = Some(inst.clone());
    f.ret = pushforward_ret(&func.ret);
    let e = Block::ENTRY;
    let mut call = Vec::new();
    for (a, label) in func.args().iter().zip(["tape", "ȳ"]) {
        let ty = func.ty(*a).clone();
        let dty = dual_type(&ty);
        let pty = Type::tuple([ty.clone(), dty.clone()]);
        let p = f.add_param(e, pty, span, Some(label.into()));
        let get = |i: i64| Stmt {
            op: zy_ir::Op::Prim(Prim::GetField),
            args: vec![p.into(), Const::Int(i).into()],
        };
        call.push(f.push_stmt(e, get(1), ty, span).into());
        if dty != Type::Nothing {
            call.push(f.push_stmt(e, get(2), dty, span).into());
        }
    }
    let mut hasher = rustc_hash::FxHasher::default();
    back.args.hash(&mut hasher);
    let name = format!(
        "{}_{:x}",
        pushforward_instance(back).name,
        hasher.finish() as u32
    );
    let key = Arc::new(Instance {
        name: name.as_str().into(),
        method: back.method,
        args: call.iter().map(|a| f.operand_ty(a)).collect(),
    });
    let stmt = Stmt {
        op: zy_ir::Op::Invoke(key.clone()),
        args: call,
    };
    let r = f.push_stmt(e, stmt, f.ret.clone(), span);
    f.set_term(e, Terminator::Return(r.into()), span);
    (inst, f, key)
}
