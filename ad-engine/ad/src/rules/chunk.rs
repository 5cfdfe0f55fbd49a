//! Chunked pushforwards (`forward::chunk`): the tangents of `k` directions at once, a
//! `Float64`'s a vector of `k` numbers and a `Vector{Float64}`'s an `n×k` matrix (one column
//! per direction). Written once per rule family, where the rule is linear in the tangent:
//!
//! - scalar arithmetic and its broadcasts: the scalar rule's pushforward with the operation
//!   broadcast over the chunk ([`Emit::prim`] under `bcast`): `ẏ = Σᵢ ∂ᵢ .* Ẋᵢ`, the partials
//!   computed once from the primal values (numbers, or vectors extended along the columns);
//! - `A * x` with a constant `A`: the one product `A * Ẋ`;
//! - primitives whose result does not vary (`length`, comparisons): no tangent.
//!
//! Anything else with a varying operand is refused, and the caller runs one pushforward per
//! direction instead.

use zy_ir::{Diff, Operand, Prim, Type};

use super::{broadcast, scalar, unsupported, Emit, TanOut, TanStmt};
use crate::AdError;

/// The chunk of tangents of a value of type `t` (`Some(Nothing)`: it has none; `None`: chunked
/// forward mode does not support it).
pub fn chunk_type(t: &Type) -> Option<Type> {
    if *t == Type::Float64 {
        Some(Type::vector_f64())
    } else if *t == Type::vector_f64() {
        Some(Type::matrix_f64())
    } else if crate::forward::dual_type(t) == Type::Nothing {
        Some(Type::Nothing)
    } else {
        None
    }
}

/// The chunked pushforward of a primitive statement, some of whose operands have chunks.
pub fn pushforward_chunk(e: &mut Emit, s: &TanStmt) -> Result<TanOut, AdError> {
    let p = s.prim;
    let refuse = |e: &Emit| -> Result<TanOut, AdError> {
        Err(unsupported(
            e.span,
            &format!("the primitive `{p}` on {} in chunked forward mode", s.ty),
        ))
    };
    let Some(cty) = chunk_type(&s.ty) else {
        return refuse(e);
    };
    if p.is_nondifferentiable() || matches!(p.info().diff, Diff::Constant | Diff::No) {
        if !p.info().effects.mutates.is_none() {
            return refuse(e);
        }
        let value = e.prim(p, s.args.clone(), s.ty.clone());
        return Ok(TanOut {
            value,
            tangent: None,
        });
    }
    // Elementwise families: a varying operand is a number with a number result or a vector
    // with a vector result (a number's chunk is not extended along a vector's rows).
    let elementwise = |ops: &[Type]| {
        cty != Type::Nothing
            && s.tangents
                .iter()
                .zip(&s.arg_tys)
                .skip(s.arg_tys.len() - ops.len())
                .all(|(t, ty)| t.is_none() || *ty == s.ty)
    };
    let value_and = |e: &mut Emit, f: &dyn Fn(&mut Emit, &Operand) -> Operand| {
        let value = e.prim(p, s.args.clone(), s.ty.clone());
        let saved = e.bcast.replace(cty.clone());
        let t = f(e, &value);
        e.bcast = saved;
        (value, t)
    };
    let (value, tangent) = if scalar::handles(p) && elementwise(&s.arg_tys) {
        let elems: Vec<Type> = s.arg_tys.iter().map(broadcast::elem).collect();
        value_and(e, &|e, y| {
            scalar::pushforward(e, p, &s.args, &elems, y, &s.tangents)
        })
    } else if p == Prim::Broadcast && elementwise(&s.arg_tys[1..]) {
        let Some(f) = broadcast::callee(&s.args).filter(|f| scalar::handles(*f)) else {
            return refuse(e);
        };
        let elems: Vec<Type> = s.arg_tys[1..].iter().map(broadcast::elem).collect();
        value_and(e, &|e, y| {
            scalar::pushforward(e, f, &s.args[1..], &elems, y, &s.tangents[1..])
        })
    } else if p == Prim::MatMul && s.tangent(0).is_none() && s.ty == Type::vector_f64() {
        let (Some(dx), Some(a)) = (s.tangent(1), s.args.first()) else {
            return refuse(e);
        };
        let value = e.prim(p, s.args.clone(), s.ty.clone());
        let t = e.prim(Prim::MatMul, vec![a.clone(), dx], cty.clone());
        (value, t)
    } else {
        return refuse(e);
    };
    // A tangent no operand's chunk reaches (a number) is a structural zero.
    let tangent = (e.b.func.operand_ty(&tangent) == cty).then_some(tangent);
    Ok(TanOut { value, tangent })
}
