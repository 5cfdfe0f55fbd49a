//! The forward and reverse fragments of the array rules on vectors whose elements are arrays or
//! structs of arrays (Julia's `Vector{Vector{Float64}}`, `Vector{Layer}`). Their shadow is a
//! vector of the elements' shadows, the same objects (Mooncake's tangent of an `Array` of
//! mutable parts): reading `xs[i]` gives the element's own shadow, so the gradient reaching
//! it accumulates in place and no reverse work is needed; writes and length changes record
//! the slots they replace (`slot_get`, which reads an unset slot too) and put them back.
//! Which element types qualify is [`crate::tangent::shadowed_elements`]; the others are
//! refused by name before a rule runs.

use zy_ir::{Const, Op, Operand, Prim, Span, Type};

use super::{Emit, FwdOut, FwdStmt, RevStmt};
use crate::tangent::{fdata_type, object_array, object_array_refusal};
use crate::AdError;

/// The primitives whose rules handle vectors of arrays and structs (these fragments, or the
/// structural rules of tuples, fields, boxes and tape stacks, which move shadows as they are).
const HANDLED: &[Prim] = &[
    Prim::GetIndex,
    Prim::First,
    Prim::Last,
    Prim::SetIndex,
    Prim::SetLength,
    Prim::Vect,
    Prim::Copy,
    Prim::Similar,
    Prim::Zeros,
    Prim::Length,
    Prim::Size,
    Prim::Tuple,
    Prim::NamedTuple,
    Prim::GetField,
    Prim::SetField,
    Prim::TupleIndex,
    Prim::RefNew,
    Prim::RefGet,
    Prim::RefSet,
];

/// Refuse, by name, an active statement on a vector of arrays or structs that no rule handles:
/// elements with a returned gradient part, or a primitive without a fragment here.
pub(super) fn refuse_unsupported(span: Span, op: &Op, args: &[Type], ty: &Type) -> Result<(), AdError> {
    for t in args.iter().chain([ty]) {
        match object_array(t) {
            Some((a, false)) => {
                let why = "its elements have numbers of their own, which the AD does not give \
                           back through an array yet";
                return Err(AdError::new(span, object_array_refusal(&a, why)));
            }
            Some((a, true)) => match op {
                Op::Prim(p) if !HANDLED.contains(p) => {
                    let why = format!("`{}` of it has no rule yet", p.julia_name());
                    return Err(AdError::new(span, object_array_refusal(&a, &why)));
                }
                _ => {}
            },
            None => {}
        }
    }
    Ok(())
}

/// Is `t` an array whose elements are not numbers (so these fragments apply)?
pub(super) fn is_objects(t: &Type) -> bool {
    matches!(t, Type::Array(e, _) if !e.is_number())
}

/// The shadow of operand `i`, or a zero one made for it where the transform gave none.
fn shadow_or_zero(e: &mut Emit, s: &FwdStmt, i: usize) -> Option<Operand> {
    match s.shadows.get(i).cloned().flatten() {
        Some(sx) => Some(sx),
        None => e.zero_fdata(s.args[i].clone(), &s.arg_tys[i]),
    }
}

/// `xs[i]`: the element, and as its shadow the element's own (read from the shadow vector).
pub(super) fn getindex(e: &mut Emit, s: &FwdStmt) -> FwdOut {
    let value = e.prim(Prim::GetIndex, s.args.clone(), s.ty.clone());
    let shadow = match shadow_or_zero(e, s, 0) {
        Some(sx) if fdata_type(&s.ty) != Type::Nothing => {
            let mut args = vec![sx];
            args.extend(s.args[1..].iter().cloned());
            Some(e.prim(Prim::GetIndex, args, fdata_type(&s.ty)))
        }
        _ => None,
    };
    FwdOut {
        value,
        shadow,
        residuals: vec![],
    }
}

/// `first(xs)`, `last(xs)` (`p`): the element, and the element's own shadow.
pub(super) fn end(e: &mut Emit, s: &FwdStmt, p: Prim) -> FwdOut {
    let value = e.prim(p, s.args.clone(), s.ty.clone());
    let shadow = match shadow_or_zero(e, s, 0) {
        Some(sx) if fdata_type(&s.ty) != Type::Nothing => {
            Some(e.prim(p, vec![sx], fdata_type(&s.ty)))
        }
        _ => None,
    };
    FwdOut {
        value,
        shadow,
        residuals: vec![],
    }
}

/// `[a, b, ...]` (`p` is `vect`) and `copy(xs)` (shallow): the same operation on the
/// operands' shadows, so the result's shadow holds the elements' own.
pub(super) fn build(e: &mut Emit, s: &FwdStmt, p: Prim) -> FwdOut {
    let value = e.prim(p, s.args.clone(), s.ty.clone());
    let fty = fdata_type(&s.ty);
    let shadow = (fty != Type::Nothing).then(|| {
        let parts: Vec<Operand> = (0..s.args.len())
            .map(|i| shadow_or_zero(e, s, i).unwrap_or(Const::Nothing.into()))
            .collect();
        e.prim(p, parts, fty)
    });
    FwdOut {
        value,
        shadow,
        residuals: vec![],
    }
}

/// `xs[i] = v`: the slot and its shadow slot take `v` and `v`'s shadow; keep what they held.
pub(super) fn setindex(e: &mut Emit, s: &FwdStmt) -> Result<FwdOut, AdError> {
    let [x, _, i] = s.args.as_slice() else {
        return Err(AdError::new(
            e.span,
            "unsupported: the gradient through a write `A[i, j] = v` into a matrix of arrays or \
             structs; index it linearly (`A[k] = v`)",
        ));
    };
    let elem = s.arg_tys[0].elem().cloned().unwrap_or(Type::Nothing);
    let old = e.prim(Prim::SlotGet, vec![x.clone(), i.clone()], elem.clone());
    let value = e.prim(Prim::SetIndex, s.args.clone(), s.ty.clone());
    let sx = shadow_or_zero(e, s, 0);
    let old_shadow = match &sx {
        Some(sx) => {
            let fty = fdata_type(&elem);
            let kept = e.prim(Prim::SlotGet, vec![sx.clone(), i.clone()], fty.clone());
            let sv = shadow_or_zero(e, s, 1).unwrap_or(Const::Nothing.into());
            e.prim(Prim::SetIndex, vec![sx.clone(), sv, i.clone()], fty);
            kept
        }
        None => Const::Nothing.into(),
    };
    let residuals = vec![
        x.clone(),
        sx.unwrap_or(Const::Nothing.into()),
        old,
        old_shadow,
        i.clone(),
    ];
    Ok(FwdOut {
        value,
        shadow: None,
        residuals,
    })
}

/// Put back the slot and its shadow slot as they were before the write.
pub(super) fn setindex_reverse(e: &mut Emit, s: &RevStmt) -> Vec<Option<Operand>> {
    let (x, sx, old, old_shadow, i) = (s.kept(0), s.kept(1), s.kept(2), s.kept(3), s.kept(4));
    e.prim(Prim::SlotSet, vec![x, i.clone(), old], Type::Nothing);
    if sx.as_const().is_none() {
        e.prim(Prim::SlotSet, vec![sx, i, old_shadow], Type::Nothing);
    }
    s.none()
}

/// `setlength!(xs, n[, tail])`: the shadow vector changes length with the primal (taking the
/// tail's shadows); the removed elements' shadows are the result's.
pub(super) fn setlength(e: &mut Emit, s: &FwdStmt) -> FwdOut {
    let old = e.prim(Prim::Length, vec![s.args[0].clone()], Type::Int64);
    let value = e.prim(Prim::SetLength, s.args.clone(), s.ty.clone());
    let sv = shadow_or_zero(e, s, 0);
    let removed_shadow = sv.as_ref().map(|sv| {
        let mut args = vec![sv.clone(), s.args[1].clone()];
        if s.args.len() == 3 {
            args.push(shadow_or_zero(e, s, 2).unwrap_or(Const::Nothing.into()));
        }
        e.prim(Prim::SetLength, args, fdata_type(&s.ty))
    });
    let residuals = vec![
        s.args[0].clone(),
        sv.unwrap_or(Const::Nothing.into()),
        old,
        value.clone(),
        removed_shadow.clone().unwrap_or(Const::Nothing.into()),
    ];
    FwdOut {
        value,
        shadow: removed_shadow,
        residuals,
    }
}

/// Give the vector and its shadow their old length and removed elements back.
pub(super) fn setlength_reverse(e: &mut Emit, s: &RevStmt) -> Vec<Option<Operand>> {
    let (v, sv, old, removed, sr) = (s.kept(0), s.kept(1), s.kept(2), s.kept(3), s.kept(4));
    e.prim(Prim::SetLength, vec![v, old.clone(), removed], s.ty.clone());
    if sv.as_const().is_none() && sr.as_const().is_none() {
        let sty = fdata_type(&s.ty);
        e.prim(Prim::SetLength, vec![sv, old, sr], sty);
    }
    s.none()
}
