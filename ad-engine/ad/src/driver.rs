//! The driver `∇f(args...)`: zero shadows for the arguments, the forward call, the pullback
//! seeded with `1.0`, and each argument's full gradient assembled from its shadow (fdata) and
//! the pullback's rdata. `nothing` where no gradient can reach the argument. Arguments that
//! the call mutates end in the state the plain call leaves them in.

use std::sync::Arc;

use zy_ir::{tangent_type, Block, Const, Function, Instance, Op, Operand, Prim, SsaBuilder, Terminator, Type};

use crate::activity::{analyse, ArgGradient};
use crate::names;
use crate::rules::Emit;
use crate::tangent::{has_fdata, rdata_type};
use crate::AdError;

/// Build the driver of `inst` (whose typed body is `func`).
pub fn driver(inst: &Arc<Instance>, func: &Function) -> Result<(Arc<Instance>, Function), AdError> {
    let constant = matches!(func.ret, Type::Int64 | Type::Bool);
    if func.ret == Type::Bottom {
        return Err(AdError::new(func.span, format!("cannot differentiate `{}`: it never returns (every path throws)", func.name)));
    }
    if func.ret != Type::Float64 && !constant {
        return Err(AdError::new(func.span, format!("gradient of a non-scalar result ({})", func.ret)));
    }
    let act = analyse(func);
    let dinst = names::driver_instance(inst);
    let mut out = Function::new(dinst.name.clone(), func.span);
    out.instance = Some(dinst.clone());
    out.arg_names = func.arg_names.clone();
    let args: Vec<_> = func
        .args()
        .iter()
        .map(|&a| {
            let d = func.value(a);
            out.add_param(Block::ENTRY, d.ty.clone(), d.span, d.name.clone())
        })
        .collect();
    let mut sb = SsaBuilder::new(out);
    let mut e = Emit { bcast: None, b: &mut sb, block: Block::ENTRY, span: func.span };
    if constant {
        // An Int or Bool result: no gradient reaches any argument.
        let call_args = args.iter().map(|a| Operand::Value(*a)).collect();
        let y = e.op(Op::Invoke(inst.clone()), call_args, func.ret.clone());
        let tty = Type::tuple(args.iter().map(|_| Type::Nothing));
        let nothings = args.iter().map(|_| Operand::Const(Const::Nothing)).collect();
        let t = e.prim(Prim::Tuple, nothings, tty.clone());
        let rty = Type::tuple([func.ret.clone(), tty]);
        let res = e.prim(Prim::Tuple, vec![y, t], rty.clone());
        sb.func.set_term(Block::ENTRY, Terminator::Return(res), func.span);
        sb.func.ret = rty;
        return Ok((dinst, sb.finish()));
    }
    let mut call_args = Vec::new();
    let mut shadows = Vec::new();
    for &a in &args {
        let ty = e.b.func.ty(a).clone();
        call_args.push(Operand::Value(a));
        let s = e.zero_fdata(a.into(), &ty);
        if let Some(s) = &s {
            call_args.push(s.clone());
        }
        shadows.push(s);
    }
    let fty = names::forward_ret(inst, &func.ret);
    let r = e.op(Op::Invoke(names::forward_instance(inst)), call_args, fty.clone());
    let y = e.field(r.clone(), 0, &fty);
    let nparts = fty.field_types().map_or(0, |f| f.len());
    let back = e.field(r, nparts - 1, &fty);
    let arg_tys: Vec<Type> = args.iter().map(|a| e.b.func.ty(*a).clone()).collect();
    let gty = Type::tuple(arg_tys.iter().map(rdata_type));
    let g = e.prim(Prim::CallPullback, vec![back, Const::f64(1.0).into()], gty.clone());
    if arg_tys.iter().any(Type::is_mutable) {
        // The pullback undid the call's mutations (restoring each overwritten value on its way
        // back); run the call again so the arguments end as the plain call leaves them.
        let again = args.iter().map(|a| Operand::Value(*a)).collect();
        e.op(Op::Invoke(inst.clone()), again, func.ret.clone());
    }
    let mut tangents = Vec::new();
    let mut ttys = Vec::new();
    for (i, ty) in arg_tys.iter().enumerate() {
        if act.args.get(i) != Some(&ArgGradient::Reaches) {
            tangents.push(Operand::Const(Const::Nothing));
            ttys.push(Type::Nothing);
            continue;
        }
        let r = e.field(g.clone(), i, &gty);
        tangents.push(combine(&mut e, shadows[i].clone(), r, ty));
        ttys.push(tangent_type(ty));
    }
    let tty = Type::tuple(ttys);
    let t = e.prim(Prim::Tuple, tangents, tty.clone());
    let rty = Type::tuple([Type::Float64, tty]);
    let res = e.prim(Prim::Tuple, vec![y, t], rty.clone());
    sb.func.set_term(Block::ENTRY, Terminator::Return(res), func.span);
    sb.func.ret = rty;
    Ok((dinst, sb.finish()))
}

/// The full tangent of a value of type `ty` from its shadow `s` and rdata `r`.
fn combine(e: &mut Emit, s: Option<Operand>, r: Operand, ty: &Type) -> Operand {
    let tty = tangent_type(ty);
    let Some(s) = s.filter(|_| has_fdata(ty)) else {
        return if tty == Type::Nothing { Const::Nothing.into() } else { r };
    };
    match ty {
        Type::Array(..) | Type::Adjoint(_) => s,
        Type::Ref(inner) => {
            let x = e.prim(Prim::RefGet, vec![s], tangent_type(inner));
            e.rebuild(&tty, vec![x])
        }
        Type::Struct(st) if st.mutable => e.prim(Prim::RefGet, vec![s], tty),
        _ => {
            let ftys = ty.field_types().unwrap_or_default();
            let (sty, rty) = (crate::tangent::fdata_type(ty), rdata_type(ty));
            let mut parts = Vec::new();
            for (i, ft) in ftys.iter().enumerate() {
                let si = has_fdata(ft).then(|| e.field(s.clone(), i, &sty));
                let ri = if rty == Type::Nothing { Const::Nothing.into() } else { e.field(r.clone(), i, &rty) };
                parts.push(combine(e, si, ri, ft));
            }
            e.rebuild(&tty, parts)
        }
    }
}
