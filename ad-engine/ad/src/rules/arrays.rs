//! Rules of Float64 arrays. An array's gradient is its shadow (same shape), updated in place by
//! the reverse fragments: indexing adds into one entry, reductions spread into every entry.
//! `setindex!` saves the overwritten value so the reverse pass restores the primal.

use zy_ir::{Const, Operand, Prim, Type};

use super::{Emit, FwdOut, FwdStmt, RevStmt};
use crate::tangent::has_fdata;
use crate::AdError;

/// Is `p` an array primitive with a rule here?
pub fn handles(p: Prim) -> bool {
    use Prim::*;
    matches!(p, GetIndex | SetIndex | Sum | Dot | Vect | Copy | Fill | MatMul | Transpose | Adjoint | First | Last)
}

pub fn forward(e: &mut Emit, p: Prim, s: &FwdStmt) -> Result<FwdOut, AdError> {
    use Prim::*;
    let sh = |i: usize| s.shadows.get(i).cloned().flatten();
    if p == SetIndex {
        // x[i] = v: keep the old x[i].
        let idx = s.args[2..].to_vec();
        let elem = s.arg_tys[0].elem().cloned().unwrap_or(Type::Nothing);
        let mut get = vec![s.args[0].clone()];
        get.extend(idx.iter().cloned());
        let old = e.prim(GetIndex, get, elem);
        let value = e.prim(SetIndex, s.args.clone(), s.ty.clone());
        let mut residuals = vec![s.args[0].clone(), sh(0).unwrap_or(Const::Nothing.into()), old];
        residuals.extend(idx);
        return Ok(FwdOut { value, shadow: None, residuals });
    }
    let value = e.prim(p, s.args.clone(), s.ty.clone());
    let fresh = if has_fdata(&s.ty) { e.zero_fdata(value.clone(), &s.ty) } else { None };
    if !s.active {
        return Ok(FwdOut { value, shadow: fresh, residuals: vec![] });
    }
    let nothing = || Operand::Const(Const::Nothing);
    let residuals = match p {
        GetIndex | First | Last => {
            let mut r = vec![sh(0).unwrap_or(nothing())];
            r.extend(s.args[1..].iter().cloned());
            if p != GetIndex {
                let len = e.prim(Length, vec![s.args[0].clone()], Type::Int64);
                r.push(len);
            }
            r
        }
        Sum => vec![sh(0).unwrap_or(nothing())],
        Dot => vec![s.args[0].clone(), sh(0).unwrap_or(nothing()), s.args[1].clone(), sh(1).unwrap_or(nothing())],
        Vect | Fill | Transpose | Adjoint => vec![fresh.clone().unwrap_or(nothing()), sh(0).unwrap_or(nothing())],
        Copy => vec![fresh.clone().unwrap_or(nothing()), sh(0).unwrap_or(nothing())],
        _ => {
            // MatMul of Matrix*Vector or Matrix*Matrix.
            let ok = matches!(s.arg_tys[0], Type::Array(_, 2)) && matches!(s.arg_tys[1], Type::Array(..));
            if !ok {
                return Err(AdError::new(e.span, format!("cannot differentiate `*` of {} and {}", s.arg_tys[0], s.arg_tys[1])));
            }
            vec![
                s.args[0].clone(),
                sh(0).unwrap_or(nothing()),
                s.args[1].clone(),
                sh(1).unwrap_or(nothing()),
                fresh.clone().unwrap_or(nothing()),
            ]
        }
    };
    Ok(FwdOut { value, shadow: fresh, residuals })
}

pub fn reverse(e: &mut Emit, p: Prim, s: &RevStmt) -> Vec<Option<Operand>> {
    use Prim::*;
    let n = s.arg_tys.len();
    let mut out = vec![None; n];
    let r = |i: usize| s.residuals[i].clone();
    let f = Type::Float64;
    let float_arg = |i: usize| s.arg_tys.get(i) == Some(&Type::Float64);
    match p {
        GetIndex | First | Last => {
            let Some(dy) = s.dy.clone() else { return out };
            let idx = match p {
                GetIndex => s.residuals[1..].to_vec(),
                First => vec![Const::Int(1).into()],
                _ => vec![r(s.residuals.len() - 1)],
            };
            add_at(e, r(0), idx, dy);
        }
        SetIndex => {
            let (x, sx, old) = (r(0), r(1), r(2));
            let idx = s.residuals[3..].to_vec();
            let mut restore = vec![x, old.clone()];
            restore.extend(idx.iter().cloned());
            e.prim(SetIndex, restore, s.ty.clone());
            if float_arg(1) && sx.as_const().is_none() {
                let mut get = vec![sx.clone()];
                get.extend(idx.iter().cloned());
                let g = e.prim(GetIndex, get, f.clone());
                let mut zero = vec![sx, Const::f64(0.0).into()];
                zero.extend(idx);
                e.prim(SetIndex, zero, f.clone());
                out[1] = Some(match s.dy.clone() {
                    Some(dy) => e.add(g, dy),
                    None => g,
                });
            }
        }
        Sum => {
            if let Some(dy) = s.dy.clone() {
                e.prim(AccumInto, vec![r(0), dy], Type::Nothing);
            }
        }
        Dot => {
            if let Some(dy) = s.dy.clone() {
                // ā += ȳ b, b̄ += ȳ a
                for (x, sother) in [(r(2), r(1)), (r(0), r(3))] {
                    let t = e.prim(Broadcast, vec![Const::Func("*".into()).into(), x, dy.clone()], s.arg_tys[0].clone());
                    e.prim(AccumInto, vec![sother, t], Type::Nothing);
                }
            }
        }
        Vect => {
            for i in 0..n {
                if float_arg(i) {
                    out[i] = Some(e.prim(GetIndex, vec![r(0), Const::Int(i as i64 + 1).into()], f.clone()));
                }
            }
        }
        Fill => {
            if float_arg(0) {
                out[0] = Some(e.prim(Sum, vec![r(0)], f.clone()));
            }
        }
        Copy => {
            e.prim(AccumInto, vec![r(1), r(0)], Type::Nothing);
        }
        Transpose | Adjoint => {
            if matches!(s.arg_tys[0], Type::Array(_, 2)) {
                let t = e.prim(Transpose, vec![r(0)], s.arg_tys[0].clone());
                e.prim(AccumInto, vec![r(1), t], Type::Nothing);
            }
        }
        _ => {
            // Y = A * B: Ā += Ȳ Bᵀ, B̄ += Aᵀ Ȳ (B a vector or a matrix).
            let (a, sa, b, sb, sy) = (r(0), r(1), r(2), r(3), r(4));
            let (ta, tb) = (s.arg_tys[0].clone(), s.arg_tys[1].clone());
            let bt = match &tb {
                Type::Array(el, 1) => e.prim(Adjoint, vec![b], Type::Adjoint(el.clone())),
                _ => e.prim(Transpose, vec![b], tb.clone()),
            };
            let ga = e.prim(MatMul, vec![sy.clone(), bt], ta.clone());
            e.prim(AccumInto, vec![sa, ga], Type::Nothing);
            let at = e.prim(Transpose, vec![a], ta);
            let gb = e.prim(MatMul, vec![at, sy], tb);
            e.prim(AccumInto, vec![sb, gb], Type::Nothing);
        }
    }
    out
}

/// `shadow[idx...] += g`.
fn add_at(e: &mut Emit, shadow: Operand, idx: Vec<Operand>, g: Operand) {
    let mut get = vec![shadow.clone()];
    get.extend(idx.iter().cloned());
    let cur = e.prim(Prim::GetIndex, get, Type::Float64);
    let sum = e.add(cur, g);
    let mut set = vec![shadow, sum];
    set.extend(idx);
    e.prim(Prim::SetIndex, set, Type::Float64);
}
