//! The forward and reverse fragments of the array rules on vectors whose elements are arrays,
//! structs or tuples (Julia's `Vector{Vector{Float64}}`, `Vector{Layer}`). Their shadow is a
//! vector of the elements' shadows, the same objects (Mooncake's tangent of an `Array` of
//! mutable parts): reading `xs[i]` gives the element's own shadow, so the gradient reaching
//! it accumulates in place and no reverse work is needed; writes and length changes record
//! the slots they replace (`slot_get`, which reads an unset slot too) and put them back.
//! Vectors whose elements' gradients are values (tuples and immutable structs of numbers,
//! [`crate::tangent::returned_elements`]) have a shadow of those values, which the pullback
//! adds into as a `Vector{Float64}`'s. Elements with both (a struct of a `Float64` and an
//! array, [`crate::tangent::mixed_elements`]) have their whole gradients in the shadow: a read
//! gives the shadow part, the reverse adds the returned part (`split.rs`). Mutable structs
//! (`Vector{Particle}`) are like arrays: the shadow holds each one's own box. Which element
//! types qualify is [`crate::tangent::object_array`]; the others are refused by name before a
//! rule runs.

use zy_ir::{tangent_type, Const, Op, Operand, Prim, Span, Type};

use super::split::{fdata_of, full_of, rdata_of};
use super::{Emit, FwdOut, FwdStmt, RevStmt};
use crate::tangent::{
    fdata_type, mixed_elements, object_array, object_array_refusal, returned_elements,
    OBJECT_ARRAY_WHY,
};
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
    Prim::Realias,
    Prim::Similar,
    Prim::Zeros,
    Prim::Length,
    Prim::Size,
    Prim::CheckAxes,
    Prim::Tuple,
    Prim::NamedTuple,
    Prim::GetField,
    Prim::SetField,
    Prim::TupleIndex,
    Prim::RefNew,
    Prim::RefGet,
    Prim::RefSet,
    // (A number into a union and back, or an array seen as a value of `Any`, `map`'s over a
    // container of `Any`: the same object, its shadow passed as it is.)
    Prim::UnionConvert,
];

/// Refuse, by name, an active statement on a vector of arrays or structs that no rule handles:
/// elements of a kind these fragments do not know (a tuple holding a mutable struct), or a
/// primitive without a fragment for them.
pub(super) fn refuse_unsupported(
    span: Span,
    op: &Op,
    args: &[Type],
    ty: &Type,
) -> Result<(), AdError> {
    for t in args.iter().chain([ty]) {
        match object_array(t) {
            Some((a, false)) => {
                let why = OBJECT_ARRAY_WHY;
                return Err(AdError::new(span, object_array_refusal(&a, why)));
            }
            Some((a, true)) => match op {
                // `Float64.(x)` of Float32s: the broadcast rule rounds the gradient back;
                // `Float32.(y)` of Float64s, its tangent rounds as the value does.
                Op::Prim(Prim::Broadcast) if widens_float32(args) || rounds_to_float32(args) => {}
                // `x'` of Float32s and back: the shadow is the same view of the other's.
                Op::Prim(Prim::Adjoint) if adjoints_float32(args) => {}
                // A gradient added into a Float32 shadow (a pullback's, under `hvp`): its
                // tangent is added into the shadow's tangent.
                Op::Prim(Prim::AccumInto) if args.iter().all(is_float32_array) => {}
                Op::Prim(p) if !HANDLED.contains(p) => {
                    let why = format!("`{}` of it has no rule yet", p.julia_name());
                    return Err(AdError::new(span, object_array_refusal(&a, &why)));
                }
                // A copy or an appended tail would need each element's returned part apart
                // from the shadow parts it shares (which a container of `Any`'s copy takes
                // at run time, `copy_of_union`).
                Op::Prim(Prim::Copy) if is_mixed_union(&a) => {}
                Op::Prim(p @ (Prim::Copy | Prim::Realias)) if is_mixed(&a) => {
                    let why = format!("`{}` of it has no rule yet", p.julia_name());
                    return Err(AdError::new(span, object_array_refusal(&a, &why)));
                }
                Op::Prim(Prim::SetLength) if is_mixed(&a) && args.len() == 3 => {
                    let why = "`append!` to it has no rule yet (`push!` has)";
                    return Err(AdError::new(span, object_array_refusal(&a, why)));
                }
                _ => {}
            },
            None => {}
        }
    }
    Ok(())
}

/// Are `args` those of `broadcast(float, x)` of an array of Float32s (Julia's `Float64.(x)`,
/// the widening every mixed Float32/Float64 broadcast and product starts with)?
fn widens_float32(args: &[Type]) -> bool {
    matches!(args, [Type::Function(f), Type::Array(e, _)]
        if &**f == "float" && **e == Type::Float32)
}

/// Are `args` those of `broadcast(Float32, y)` of an array of Float64s (Julia's `Float32.(y)`,
/// the rounding of the widened products, and of a gradient back to its Float32 operand)?
fn rounds_to_float32(args: &[Type]) -> bool {
    matches!(args, [Type::Function(f), Type::Array(e, _)]
        if &**f == "Float32" && **e == Type::Float64)
}

/// Is `t` an array of Float32s?
fn is_float32_array(t: &Type) -> bool {
    matches!(t, Type::Array(e, _) if **e == Type::Float32)
}

/// Are `args` those of `x'` of a vector of Float32s, or of such a row?
fn adjoints_float32(args: &[Type]) -> bool {
    matches!(args, [Type::Array(e, 1) | Type::Adjoint(e)] if **e == Type::Float32)
}

/// Is `t` an array whose elements are not numbers (so these fragments apply)?
pub(super) fn is_objects(t: &Type) -> bool {
    matches!(t, Type::Array(e, _) if !e.is_number())
}

/// Is `t` an array whose elements' gradients are values ([`returned_elements`])?
pub(super) fn is_returned(t: &Type) -> bool {
    matches!(t, Type::Array(e, _) if returned_elements(e))
}

/// Is `t` an array whose elements' gradients have both parts ([`mixed_elements`])?
pub(super) fn is_mixed(t: &Type) -> bool {
    matches!(t, Type::Array(e, _) if mixed_elements(e))
}

/// Is `t` a container of `Any` holding arrays beside numbers (elements of a union whose
/// gradients have both parts, split by the member each holds at run time)?
pub(super) fn is_mixed_union(t: &Type) -> bool {
    matches!(t, Type::Array(e, _) if matches!(**e, Type::Union(_)) && mixed_elements(e))
}

/// `copy(xs)` of a container of `Any` holding arrays beside numbers: the copy's shadow holds
/// the very shadows of the arrays it shares and fresh zeros (`nothing`) for its numbers, its
/// own; kept with the operand's shadow, into which the reverse adds them.
pub(super) fn copy_of_union(e: &mut Emit, s: &FwdStmt) -> FwdOut {
    let value = e.prim(Prim::Copy, s.args.clone(), s.ty.clone());
    let sx = shadow_or_zero(e, s, 0).unwrap_or(Const::Nothing.into());
    let part = Const::Symbol("fdata_each".into()).into();
    let shadow = e.prim(Prim::TangentPart, vec![sx.clone(), part], fdata_type(&s.ty));
    FwdOut {
        value,
        shadow: Some(shadow.clone()),
        residuals: vec![shadow, sx],
    }
}

/// The reverse of [`copy_of_union`]: the numbers' gradients of the copy added into the
/// operand's shadow (the arrays' reached it through the shadows they share).
pub(super) fn copy_of_union_reverse(e: &mut Emit, s: &RevStmt) -> Vec<Option<Operand>> {
    let part = Const::Symbol("rdata_each".into()).into();
    let returned = e.prim(Prim::TangentPart, vec![s.kept(0), part], fdata_type(&s.ty));
    e.prim(Prim::AccumInto, vec![s.kept(1), returned], Type::Nothing);
    s.none()
}

/// `shadow[i] = accum(shadow[i], g)`: the gradient `g` (the returned part) of the element read
/// at `i`.
pub(super) fn add_into(e: &mut Emit, shadow: Operand, idx: Vec<Operand>, g: Operand, elem: &Type) {
    let tan = tangent_type(elem);
    let mut get = vec![shadow.clone()];
    get.extend(idx.iter().cloned());
    let cur = e.prim(Prim::GetIndex, get, tan.clone());
    let sum = e.accum(&tan, cur, g);
    let mut set = vec![shadow, sum];
    set.extend(idx);
    e.prim(Prim::SetIndex, set, tan);
}

/// The shadow of operand `i`, or a zero one made for it where the transform gave none.
fn shadow_or_zero(e: &mut Emit, s: &FwdStmt, i: usize) -> Option<Operand> {
    match s.shadows.get(i).cloned().flatten() {
        Some(sx) => Some(sx),
        None => e.zero_fdata(s.args[i].clone(), &s.arg_tys[i]),
    }
}

/// `xs[i]`: the element, and as its shadow the element's own (read from the shadow vector);
/// of returned elements, keep the shadow vector and the indices for the reverse.
pub(super) fn getindex(e: &mut Emit, s: &FwdStmt) -> FwdOut {
    let value = e.prim(Prim::GetIndex, s.args.clone(), s.ty.clone());
    if is_returned(&s.arg_tys[0]) || is_mixed(&s.arg_tys[0]) {
        let sx = shadow_or_zero(e, s, 0).unwrap_or(Const::Nothing.into());
        // Of mixed elements, the element's shadow part.
        let shadow = is_mixed(&s.arg_tys[0]).then(|| {
            let mut args = vec![sx.clone()];
            args.extend(s.args[1..].iter().cloned());
            let full = e.prim(Prim::GetIndex, args, tangent_type(&s.ty));
            fdata_of(e, full, &s.ty)
        });
        let mut residuals = vec![];
        if s.active {
            residuals.push(sx);
            residuals.extend(s.args[1..].iter().cloned());
        }
        return FwdOut {
            value,
            shadow,
            residuals,
        };
    }
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

/// `first(xs)`, `last(xs)` (`p`): the element, and the element's own shadow; of returned
/// elements, keep the shadow vector and the element's index.
pub(super) fn end(e: &mut Emit, s: &FwdStmt, p: Prim) -> FwdOut {
    let value = e.prim(p, s.args.clone(), s.ty.clone());
    if is_returned(&s.arg_tys[0]) || is_mixed(&s.arg_tys[0]) {
        let sx = shadow_or_zero(e, s, 0).unwrap_or(Const::Nothing.into());
        let shadow = is_mixed(&s.arg_tys[0]).then(|| {
            let full = e.prim(p, vec![sx.clone()], tangent_type(&s.ty));
            fdata_of(e, full, &s.ty)
        });
        let mut residuals = vec![];
        if s.active {
            residuals.push(sx);
            residuals.push(if p == Prim::First {
                Const::Int(1).into()
            } else {
                e.prim(Prim::Length, vec![s.args[0].clone()], Type::Int64)
            });
        }
        return FwdOut {
            value,
            shadow,
            residuals,
        };
    }
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
    if is_returned(&s.ty) {
        // A fresh shadow of zeros, kept (with operand 0's, for `copy`) for the reverse.
        let shadow = e.zero_fdata(value.clone(), &s.ty);
        let residuals = vec![shadow.clone().unwrap_or(Const::Nothing.into()), s.shadow(0)];
        return FwdOut {
            value,
            shadow,
            residuals,
        };
    }
    let fty = fdata_type(&s.ty);
    let mixed = is_mixed(&s.ty);
    let shadow = (fty != Type::Nothing).then(|| {
        let parts: Vec<Operand> = (0..s.args.len())
            .map(|i| {
                let si = shadow_or_zero(e, s, i).unwrap_or(Const::Nothing.into());
                // Of mixed elements (`vect` only), each whole gradient: the shadow part and
                // a zero returned part.
                if mixed {
                    full_of(e, si, &s.arg_tys[i])
                } else {
                    si
                }
            })
            .collect();
        e.prim(p, parts, fty)
    });
    let residuals = match (&shadow, mixed) {
        (Some(sh), true) => vec![sh.clone()],
        _ => vec![],
    };
    FwdOut {
        value,
        shadow,
        residuals,
    }
}

/// The reverse of `[a, b, ...]` of returned or mixed elements: each operand's returned part
/// from the shadow.
pub(super) fn vect_reverse(e: &mut Emit, s: &RevStmt) -> Vec<Option<Operand>> {
    let mut out = s.none();
    if !is_returned(&s.ty) && !is_mixed(&s.ty) {
        return out;
    }
    for (i, o) in out.iter_mut().enumerate() {
        let tan = tangent_type(&s.arg_tys[i]);
        let full = e.prim(
            Prim::GetIndex,
            vec![s.kept(0), Const::Int(i as i64 + 1).into()],
            tan,
        );
        *o = Some(rdata_of(e, full, &s.arg_tys[i]));
    }
    out
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
            // The slot's shadow: `v`'s own, or (returned elements) a zero that gathers `v`'s
            // gradient from later reads.
            // The shadow vector's element type: the element's gradient, or its box.
            let fty = fdata_type(&s.arg_tys[0])
                .elem()
                .cloned()
                .unwrap_or(Type::Nothing);
            let kept = e.prim(Prim::SlotGet, vec![sx.clone(), i.clone()], fty.clone());
            let sv = if returned_elements(&elem) {
                e.prim(Prim::ZeroTangent, vec![s.args[1].clone()], fty.clone())
            } else if mixed_elements(&elem) {
                let own = shadow_or_zero(e, s, 1).unwrap_or(Const::Nothing.into());
                full_of(e, own, &elem)
            } else {
                shadow_or_zero(e, s, 1).unwrap_or(Const::Nothing.into())
            };
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

/// Put back the slot and its shadow slot as they were before the write; of returned elements,
/// `v` gets the gradient its slot gathered.
pub(super) fn setindex_reverse(e: &mut Emit, s: &RevStmt) -> Vec<Option<Operand>> {
    let mut out = s.none();
    let (x, sx, old, old_shadow, i) = (s.kept(0), s.kept(1), s.kept(2), s.kept(3), s.kept(4));
    e.prim(Prim::SlotSet, vec![x, i.clone(), old], Type::Nothing);
    if sx.as_const().is_none() {
        if is_returned(&s.arg_tys[0]) || is_mixed(&s.arg_tys[0]) {
            let tan = tangent_type(&s.arg_tys[1]);
            let full = e.prim(Prim::GetIndex, vec![sx.clone(), i.clone()], tan);
            let g = rdata_of(e, full, &s.arg_tys[1]);
            let rty = crate::tangent::rdata_type(&s.arg_tys[1]);
            out[1] = Some(match s.dy.clone() {
                Some(dy) => e.accum(&rty, g, dy),
                None => g,
            });
        }
        e.prim(Prim::SlotSet, vec![sx, i, old_shadow], Type::Nothing);
    }
    out
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
            // The tail's own shadows, or (returned elements) zeros that gather the appended
            // elements' gradients, added to the tail's in reverse.
            let tail = if is_returned(&s.ty) {
                e.prim(
                    Prim::ZeroTangent,
                    vec![s.args[2].clone()],
                    fdata_type(&s.ty),
                )
            } else {
                shadow_or_zero(e, s, 2).unwrap_or(Const::Nothing.into())
            };
            args.push(tail);
        }
        e.prim(Prim::SetLength, args, fdata_type(&s.ty))
    });
    let residuals = vec![
        s.args[0].clone(),
        sv.unwrap_or(Const::Nothing.into()),
        old,
        value.clone(),
        removed_shadow.clone().unwrap_or(Const::Nothing.into()),
        s.shadow(2),
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
        let added = e.prim(Prim::SetLength, vec![sv, old, sr], sty);
        let st = s.kept(5);
        if is_returned(&s.ty) && st.as_const().is_none() {
            e.prim(Prim::AccumInto, vec![st, added], Type::Nothing);
        }
    }
    s.none()
}
