//! A gradient split into its shadow part (fdata) and its returned part (rdata) and joined back,
//! as IR: what an array of elements with both (a struct of a `Float64` and an array) keeps per
//! element, its whole gradient, while reading an element gives its shadow part and the reverse
//! adds the returned part.

use zy_ir::{tangent_type, Const, Operand, Prim, Type};

use super::Emit;
use crate::tangent::{fdata_type, rdata_type};

// Which types split so is `crate::tangent::mixed_elements`.

/// The shadow part of the gradient `full` of a value of type `t`.
pub fn fdata_of(e: &mut Emit, full: Operand, t: &Type) -> Operand {
    part_of(e, full, t, fdata_type)
}

/// The returned part of the gradient `full` of a value of type `t`.
pub fn rdata_of(e: &mut Emit, full: Operand, t: &Type) -> Operand {
    part_of(e, full, t, rdata_type)
}

/// The part of type `part(t)` of the gradient `full`, field by field; of a union's, by the
/// member the value is, at run time.
fn part_of(e: &mut Emit, full: Operand, t: &Type, part: fn(&Type) -> Type) -> Operand {
    let (p, tan) = (part(t), tangent_type(t));
    if p == Type::Nothing {
        return Const::Nothing.into();
    }
    if p == tan {
        return full;
    }
    if matches!(t, Type::Union(_)) {
        let which = if p == fdata_type(t) { "fdata" } else { "rdata" };
        let which = Const::Symbol(which.into()).into();
        return e.prim(Prim::TangentPart, vec![full, which], p);
    }
    let parts = fields(t)
        .iter()
        .enumerate()
        .map(|(k, ft)| {
            let field = e.field(full.clone(), k, &tan);
            part_of(e, field, ft, part)
        })
        .collect();
    e.rebuild(&p, parts)
}

/// The whole gradient of a value of type `t` whose shadow part is `shadow` and whose returned
/// part is zero (of a union's, the shadow itself: `nothing` is the zero of a number member).
pub fn full_of(e: &mut Emit, shadow: Operand, t: &Type) -> Operand {
    let (f, tan) = (fdata_type(t), tangent_type(t));
    if f == Type::Nothing {
        return e.zero_rdata(&tan);
    }
    if f == tan || matches!(t, Type::Union(_)) {
        return shadow;
    }
    let parts = fields(t)
        .iter()
        .enumerate()
        .map(|(k, ft)| {
            let part = e.field(shadow.clone(), k, &f);
            full_of(e, part, ft)
        })
        .collect();
    e.rebuild(&tan, parts)
}

/// The whole gradient of a value of type `t` from its shadow part `shadow` and its returned
/// part `returned` (a rule's cotangent of a result holding both, `(Float64, Matrix)`).
pub fn joined(e: &mut Emit, shadow: Operand, returned: Operand, t: &Type) -> Operand {
    let (f, r, tan) = (fdata_type(t), rdata_type(t), tangent_type(t));
    if f == Type::Nothing {
        return returned;
    }
    if r == Type::Nothing {
        return full_of(e, shadow, t);
    }
    if matches!(t, Type::Union(_)) {
        // One of the two is `nothing`, whichever member the value is.
        return e.accum(&tan, shadow, returned);
    }
    let parts = fields(t)
        .iter()
        .enumerate()
        .map(|(k, ft)| {
            let s = e.field(shadow.clone(), k, &f);
            let v = e.field(returned.clone(), k, &r);
            joined(e, s, v, ft)
        })
        .collect();
    e.rebuild(&tan, parts)
}

fn fields(t: &Type) -> Vec<Type> {
    t.field_types().unwrap_or_default()
}
