//! Rules of tuples, named tuples, immutable structs and `Ref`s. Structural gradients: a tuple's
//! gradient is a tuple, a struct's a named tuple of its fields'. A `Ref`'s gradient lives in its
//! shadow `Ref` (looked up, not returned).

use zy_ir::{Const, Operand, Prim, StructRef, Type};

use super::{arg_rdata, Emit, FwdOut, FwdStmt, RevStmt};
use crate::tangent::{fdata_type, rdata_type};

/// Is `p` a data primitive with a rule here?
pub fn handles(p: Prim) -> bool {
    matches!(
        p,
        Prim::Tuple | Prim::NamedTuple | Prim::GetField | Prim::TupleIndex | Prim::RefNew | Prim::RefGet | Prim::RefSet
    )
}

/// Index (0-based) of the first operand that is a field value.
fn first_field(p: Prim) -> usize {
    usize::from(p == Prim::NamedTuple)
}

pub fn forward(e: &mut Emit, p: Prim, s: &FwdStmt) -> FwdOut {
    if p == Prim::RefSet {
        return forward_refset(e, s);
    }
    let value = e.prim(p, s.args.clone(), s.ty.clone());
    let fty = fdata_type(&s.ty);
    let sh = |i: usize| s.shadows.get(i).cloned().flatten();
    match p {
        Prim::Tuple | Prim::NamedTuple => {
            let shadow = (fty != Type::Nothing).then(|| {
                let parts = (first_field(p)..s.args.len()).map(|i| sh(i).unwrap_or(Const::Nothing.into())).collect();
                e.rebuild(&fty, parts)
            });
            FwdOut { value, shadow, residuals: vec![] }
        }
        Prim::GetField => {
            let shadow = match (sh(0), fty != Type::Nothing) {
                (Some(x), true) => Some(e.prim(Prim::GetField, vec![x, s.args[1].clone()], fty)),
                _ => None,
            };
            FwdOut { value, shadow, residuals: vec![] }
        }
        Prim::TupleIndex => {
            let shadow = match (sh(0), fty != Type::Nothing) {
                (Some(x), true) => Some(e.prim(Prim::TupleIndex, vec![x, s.args[1].clone()], fty)),
                _ => None,
            };
            FwdOut { value, shadow, residuals: vec![s.args[1].clone()] }
        }
        Prim::RefNew => {
            let shadow = e.zero_fdata(value.clone(), &s.ty);
            let residuals = shadow.iter().cloned().collect();
            FwdOut { value, shadow, residuals }
        }
        Prim::RefGet => {
            let shadow = match (sh(0), fty != Type::Nothing) {
                (Some(r), true) => Some(e.prim(Prim::RefGet, vec![r], fty)),
                _ => None,
            };
            FwdOut { value, shadow, residuals: sh(0).into_iter().collect() }
        }
        _ => FwdOut { value, shadow: None, residuals: vec![] },
    }
}

/// `r[] = v`: keep the old content to restore it in the reverse pass.
fn forward_refset(e: &mut Emit, s: &FwdStmt) -> FwdOut {
    let elem = s.arg_tys[0].elem().cloned().unwrap_or(Type::Nothing);
    let old = e.prim(Prim::RefGet, vec![s.args[0].clone()], elem);
    let value = e.prim(Prim::RefSet, s.args.clone(), s.ty.clone());
    let mut residuals = vec![s.args[0].clone(), old];
    residuals.extend(s.shadows.first().cloned().flatten());
    FwdOut { value, shadow: s.shadows.get(1).cloned().flatten(), residuals }
}

pub fn reverse(e: &mut Emit, p: Prim, s: &RevStmt) -> Vec<Option<Operand>> {
    let n = s.arg_tys.len();
    let mut out = vec![None; n];
    match p {
        Prim::Tuple | Prim::NamedTuple => {
            if let Some(dy) = &s.dy {
                let rty = rdata_type(&s.ty);
                for i in first_field(p)..n {
                    if arg_rdata(s, i) != Type::Nothing {
                        out[i] = Some(e.field(dy.clone(), i - first_field(p), &rty));
                    }
                }
            }
        }
        Prim::GetField => {
            let xr = arg_rdata(s, 0);
            if let (Some(dy), Some(Const::Int(i))) = (&s.dy, s.consts.get(1).cloned().flatten()) {
                if xr != Type::Nothing && i >= 1 {
                    out[0] = Some(e.one_hot(&xr, (i - 1) as usize, dy.clone()));
                }
            }
        }
        Prim::TupleIndex => {
            // A homogeneous tuple of numbers: ȳ lands at the run-time index.
            let xr = arg_rdata(s, 0);
            if let (Some(dy), Type::Tuple(ts)) = (&s.dy, &xr) {
                let i = s.residuals[0].clone();
                let mut parts = Vec::new();
                for (j, t) in ts.iter().enumerate() {
                    if *t != Type::Float64 {
                        return out;
                    }
                    let hit = e.prim(Prim::Eq, vec![i.clone(), Const::Int(j as i64 + 1).into()], Type::Bool);
                    let w = e.prim(Prim::Float, vec![hit], Type::Float64);
                    parts.push(e.mul(dy.clone(), w));
                }
                out[0] = Some(e.rebuild(&xr, parts));
            }
        }
        Prim::RefNew => {
            // x̄ = the content gradient gathered in the shadow.
            if let (Some(r), Some(elem)) = (s.residuals.first(), s.ty.elem()) {
                if rdata_type(elem) != Type::Nothing {
                    out[0] = Some(e.prim(Prim::RefGet, vec![r.clone()], rdata_type(elem)));
                }
            }
        }
        Prim::RefGet => {
            if let (Some(dy), Some(r)) = (&s.dy, s.residuals.first()) {
                let cur = e.prim(Prim::RefGet, vec![r.clone()], s.ty.clone());
                let sum = e.accum(&s.ty, cur, dy.clone());
                e.prim(Prim::RefSet, vec![r.clone(), sum], s.ty.clone());
            }
        }
        _ => {
            // RefSet(r, v): restore the old content, hand the content gradient to v, zero it.
            let (r, old) = (s.residuals[0].clone(), s.residuals[1].clone());
            e.prim(Prim::RefSet, vec![r, old.clone()], s.arg_tys[1].clone());
            let vr = arg_rdata(s, 1);
            if let (Some(shadow), true) = (s.residuals.get(2), vr != Type::Nothing) {
                let g = e.prim(Prim::RefGet, vec![shadow.clone()], vr.clone());
                let z = e.zero_rdata(&vr);
                e.prim(Prim::RefSet, vec![shadow.clone(), z], vr.clone());
                out[1] = Some(match &s.dy {
                    Some(dy) => e.accum(&vr, g, dy.clone()),
                    None => g,
                });
            }
        }
    }
    out
}

/// `new T(fields...)`: the shadow of an immutable struct is the named tuple of its fields'
/// shadows; a mutable struct's is a `Ref` of its field gradients.
pub fn forward_new(e: &mut Emit, st: &StructRef, s: &FwdStmt) -> FwdOut {
    let value = e.op(zy_ir::Op::New(st.clone()), s.args.clone(), s.ty.clone());
    let fty = fdata_type(&s.ty);
    let shadow = if fty == Type::Nothing {
        None
    } else if st.mutable {
        e.zero_fdata(value.clone(), &s.ty)
    } else {
        let parts = (0..s.args.len()).map(|i| s.shadows.get(i).cloned().flatten().unwrap_or(Const::Nothing.into())).collect();
        Some(e.rebuild(&fty, parts))
    };
    FwdOut { value, shadow, residuals: vec![] }
}

/// Field gradients of `new T(fields...)` from the named-tuple gradient.
pub fn reverse_new(e: &mut Emit, s: &RevStmt) -> Vec<Option<Operand>> {
    let rty = rdata_type(&s.ty);
    (0..s.arg_tys.len())
        .map(|i| match &s.dy {
            Some(dy) if arg_rdata(s, i) != Type::Nothing => Some(e.field(dy.clone(), i, &rty)),
            _ => None,
        })
        .collect()
}
