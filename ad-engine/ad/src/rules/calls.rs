//! Calls of user functions: the forward calls the forward function of the callee's adjoint for
//! the arguments active at the call (`f⁺`, or `f⟨i,j⟩⁺` where some are constants) and keeps its
//! `back` closure as the residual; the reverse calls `back` and hands out the returned rdata,
//! `nothing` for an inactive argument. A call given only constants calls the primal.

use std::sync::Arc;

use zy_ir::{Instance, Op, Operand, Prim, Type};

use super::{arg_rdata, Callees, Emit, FwdOut, FwdStmt, RevStmt};
use crate::names;
use crate::tangent::{has_fdata, rdata_type};
use crate::AdError;

pub fn forward(
    e: &mut Emit,
    inst: &Arc<Instance>,
    s: &FwdStmt,
    callees: &mut Callees,
) -> Result<FwdOut, AdError> {
    let reached = callees.globals.reached(inst);
    let inert = !s.active && !has_fdata(&s.ty) && s.arg_tys.iter().all(|t| !has_fdata(t));
    // Given only constants (no argument carries a gradient), the callee's result is a constant
    // too: its adjoint would compute gradients nobody reads.
    let constant = s.varied.iter().all(|v| !v);
    if (inert || constant) && reached.is_empty() {
        // Nothing differentiable flows through: call the primal; a result with identity gets a
        // zero shadow of its own.
        let value = e.op(Op::Invoke(inst.clone()), s.args.clone(), s.ty.clone());
        let shadow = e.zero_fdata(value.clone(), &s.ty);
        return Ok(FwdOut {
            value,
            shadow,
            residuals: vec![],
        });
    }
    let wanted = (inst.clone(), s.mask);
    if !callees.wanted.contains(&wanted) {
        callees.wanted.push(wanted);
    }
    let mut args = Vec::new();
    for (i, a) in s.args.iter().enumerate() {
        args.push(a.clone());
        if has_fdata(&s.arg_tys[i]) {
            args.push(s.shadows[i].clone().unwrap_or(zy_ir::Const::Nothing.into()));
        }
    }
    for (name, _) in reached {
        let shadow = callees.global_shadows.get(name).cloned().ok_or_else(|| {
            AdError::new(
                e.span,
                format!(
                    "internal error: no shadow of the global `{name}` for the call of `{}`",
                    inst.name
                ),
            )
        })?;
        args.push(shadow);
    }
    let keyed = names::masked(inst, s.mask);
    let fwd = names::forward_instance(&keyed);
    let ret = names::forward_ret(&keyed, &s.ty);
    let r = e.op(Op::Invoke(fwd), args, ret.clone());
    let value = e.field(r.clone(), 0, &ret);
    let fields = ret.field_types().unwrap_or_default();
    let shadow = has_fdata(&s.ty).then(|| e.field(r.clone(), 1, &ret));
    let back = e.field(r, fields.len().saturating_sub(1), &ret);
    Ok(FwdOut {
        value,
        shadow,
        residuals: vec![back],
    })
}

pub fn reverse(e: &mut Emit, s: &RevStmt) -> Vec<Option<Operand>> {
    let Some(back) = s.residuals.first().cloned() else {
        return vec![None; s.arg_tys.len()];
    };
    let dy = match &s.dy {
        Some(dy) => dy.clone(),
        None => e.zero_rdata(&rdata_type(&s.ty)),
    };
    let active = |i: usize| s.mask.is_active(i);
    let gty = Type::tuple(s.arg_tys.iter().enumerate().map(|(i, t)| match active(i) {
        true => rdata_type(t),
        false => Type::Nothing,
    }));
    let g = e.prim(Prim::CallPullback, vec![back, dy], gty.clone());
    (0..s.arg_tys.len())
        .map(|i| {
            (active(i) && arg_rdata(s, i) != Type::Nothing).then(|| e.field(g.clone(), i, &gty))
        })
        .collect()
}
