//! `broadcast(f, args...)` of a scalar primitive over arrays of one shape and scalars. The
//! reverse is the scalar rule's reverse, itself broadcast: every scalar operation it emits
//! with an array operand becomes a `broadcast` (see [`Emit::prim`]). Array operands get the
//! elementwise gradient added into their shadows; scalar operands get its sum.

use zy_ir::{Const, Op, Operand, Prim, Type};

use super::Case::{Apply, Program};
use super::Keep::Residuals;
use super::TestArg::{Float as F, Func, Int as I, Vector as V};
use super::{or_nothing, scalar, Emit, FwdStmt, RevStmt, Rule, TanStmt};
use crate::AdError;

const X: super::TestArg = V(&[1.5, -2.0, 0.5]);
const Y: super::TestArg = V(&[0.3, 0.7, -1.1]);

/// The rule of broadcasting a scalar primitive.
pub const RULES: &[Rule] = &[Rule {
    prim: Prim::Broadcast,
    keep: Residuals(keep),
    reverse,
    pushforward,
    // Binary functions over two arrays and over an array and a number, unary ones over an
    // array.
    cases: &[
        Apply(&[Func("+"), X, Y]),
        Apply(&[Func("+"), X, F(0.8)]),
        Apply(&[Func("+"), F(-1.2), Y]),
        Apply(&[Func("-"), X, Y]),
        Apply(&[Func("-"), X, F(0.8)]),
        Apply(&[Func("-"), F(-1.2), Y]),
        Apply(&[Func("*"), X, Y]),
        Apply(&[Func("*"), X, F(0.8)]),
        Apply(&[Func("*"), F(-1.2), Y]),
        Apply(&[Func("/"), X, Y]),
        Apply(&[Func("/"), X, F(0.8)]),
        Apply(&[Func("/"), F(-1.2), Y]),
        Apply(&[Func("max"), X, Y]),
        Apply(&[Func("max"), X, F(0.8)]),
        Apply(&[Func("max"), F(-1.2), Y]),
        Apply(&[Func("sin"), X]),
        Apply(&[Func("exp"), X]),
        Apply(&[Func("tanh"), X]),
        Apply(&[Func("abs"), X]),
        Apply(&[Func("-"), X]),
        Apply(&[Func("^"), V(&[1.5, 2.0, 0.5]), I(3)]),
        // Julia's shapes: a matrix with a vector (extended along the rows), a vector with a row
        // (an outer sum); the extended operand's gradient sums over the extension.
        Program {
            src: "b(a, c) = (y = [a 2.0; -1.0 c] .* [c, a]; y[1, 2] + 3.0 * y[2, 1] + y[2, 2])",
            name: "b",
            args: &[0.7, -1.3],
        },
        Program {
            src: "o(a, c) = (y = [a, c, 1.0] .+ [c, 2.0 * a]'; sum(y .* y))",
            name: "o",
            args: &[0.4, 1.1],
        },
    ],
}];

/// The scalar primitive a broadcast applies.
pub(super) fn callee(args: &[Operand]) -> Option<Prim> {
    match args.first()?.as_const()? {
        Const::Func(n) => Prim::elementwise(n, args.len() - 1),
        _ => None,
    }
}

/// Element type of an operand type (arrays: their element; scalars: themselves).
pub(super) fn elem(t: &Type) -> Type {
    match t {
        Type::Array(e, _) | Type::Adjoint(e) => (**e).clone(),
        t => t.clone(),
    }
}

/// Keeps the scalar rule's residuals (operands and/or the result, as arrays), the operands'
/// shadows and the result's.
fn keep(
    e: &mut Emit,
    s: &FwdStmt,
    value: &Operand,
    shadow: Option<&Operand>,
) -> Result<Vec<Operand>, AdError> {
    let Some(p) = callee(&s.args) else {
        return Err(AdError::new(
            e.span,
            "cannot differentiate a broadcast of a non-primitive function",
        ));
    };
    if !scalar::handles(p) {
        // Comparisons and rounding: no gradient flows.
        return Ok(vec![]);
    }
    let mut residuals = scalar::residuals(p, &s.args[1..], value);
    for i in 1..s.args.len() {
        // An array that does not vary (a constant of a callee's adjoint that has it inactive,
        // an array made from constants) keeps no shadow: the reverse accumulates nothing into it.
        residuals.push(match s.varied.get(i) {
            Some(false) => Const::Nothing.into(),
            _ => s.shadow(i),
        });
    }
    residuals.push(or_nothing(shadow));
    Ok(residuals)
}

/// The scalar rule's reverse, broadcast; array operands' gradients go into their shadows
/// (summed over what broadcasting extended), numbers get the sum.
fn reverse(e: &mut Emit, s: &RevStmt) -> Vec<Option<Operand>> {
    let n = s.arg_tys.len();
    let mut out = vec![None; n];
    let Some(p) = callee_of(s).filter(|_| matches!(s.ty, Type::Array(..) | Type::Adjoint(_)))
    else {
        return out;
    };
    if !scalar::handles(p) || s.residuals.len() < n {
        return out;
    }
    let k = s.residuals.len() - n; // scalar-rule residuals come first
    let shadows = &s.residuals[k..k + n - 1];
    let dy = s.residuals[k + n - 1].clone();
    // `x .- m` of a number `m`: m̄ = -sum(ȳ), the bits of sum(-ȳ) (negation commutes with
    // rounding; an empty ȳ gives -0.0) without making the array -ȳ.
    if p == Prim::Sub && s.arg_tys[2] == Type::Float64 && s.arg_tys[1] == s.ty {
        if shadows[0].as_const().is_none() {
            e.prim(
                Prim::AccumInto,
                vec![shadows[0].clone(), dy.clone()],
                Type::Nothing,
            );
        }
        let total = e.prim(Prim::Sum, vec![dy], Type::Float64);
        out[2] = Some(e.prim(Prim::Neg, vec![total], Type::Float64));
        return out;
    }
    let inner = RevStmt {
        op: &Op::Prim(p),
        arg_tys: s.arg_tys[1..].iter().map(elem).collect(),
        consts: s.consts[1..].to_vec(),
        ty: Type::Float64,
        residuals: s.residuals[..k].to_vec(),
        dy: Some(dy),
        mask: crate::mask::ArgMask::ALL,
    };
    let saved = e.bcast.replace(s.ty.clone());
    let contribs = scalar::reverse(e, p, &inner);
    e.bcast = saved;
    for (i, c) in contribs.into_iter().enumerate() {
        let Some(c) = c else { continue };
        match &s.arg_tys[i + 1] {
            Type::Array(..) | Type::Adjoint(_) if shadows[i].as_const().is_none() => {
                // An operand that broadcasting extended gets the sums over the extension.
                let t = &s.arg_tys[i + 1];
                let c = if same_shape(t, &s.ty) {
                    c
                } else {
                    e.prim(Prim::Unbroadcast, vec![c, shadows[i].clone()], t.clone())
                };
                e.prim(Prim::AccumInto, vec![shadows[i].clone(), c], Type::Nothing);
            }
            Type::Float64 => {
                out[i + 1] = Some(match e.b.func.operand_ty(&c) {
                    Type::Array(..) | Type::Adjoint(_) => e.prim(Prim::Sum, vec![c], Type::Float64),
                    _ => c,
                });
            }
            _ => {}
        }
    }
    out
}

/// The pushforward of a broadcast over Float32s (or `Float64.(x)` of them): the Float64 rule's
/// on the widened operands, result and tangents, rounded to Float32 where the result's elements
/// are, as a Float32 number's pushforward ([`scalar::pushforward_in_float64`]); `None` where no
/// operand has a tangent. Runs with `e.bcast` set, so each widening is a broadcast.
fn in_float64(e: &mut Emit, p: Prim, s: &TanStmt, value: &Operand) -> Option<Operand> {
    let tangents = &s.tangents[1..];
    if tangents.iter().all(Option::is_none) {
        return None;
    }
    let args: Vec<Operand> = s.args[1..].iter().map(|a| widen(e, a)).collect();
    let tangents: Vec<Option<Operand>> = tangents
        .iter()
        .map(|t| t.as_ref().map(|t| widen(e, t)))
        .collect();
    let t = match p {
        // `Float64.(x)` of Float32s: `ẏ = ẋ`, widened.
        Prim::Float => tangents.first().cloned().flatten()?,
        _ => {
            let y = widen(e, value);
            let elems: Vec<Type> = s.arg_tys[1..]
                .iter()
                .map(|t| match elem(t) {
                    Type::Float32 => Type::Float64,
                    t => t,
                })
                .collect();
            scalar::pushforward(e, p, &args, &elems, &y, &tangents)
        }
    };
    Some(if elem(&s.ty) == Type::Float32 {
        round32(e, t)
    } else {
        t
    })
}

/// A Float32 number, or an array of them, as Float64s (an operand of another type as it is).
fn widen(e: &mut Emit, x: &Operand) -> Operand {
    match e.b.func.operand_ty(x) {
        t if elem(&t) == Type::Float32 => e.prim(Prim::Float, vec![x.clone()], Type::Float64),
        _ => x.clone(),
    }
}

/// A Float64 number, or an array of them, rounded to Float32s.
fn round32(e: &mut Emit, x: Operand) -> Operand {
    match e.b.func.operand_ty(&x) {
        t if elem(&t) == Type::Float64 => e.prim(Prim::ToFloat32, vec![x], Type::Float32),
        _ => x,
    }
}

/// Do arrays of types `a` and `b` have the same dimensions (their elements may differ: a
/// Float32 operand of a Float64 result)?
fn same_shape(a: &Type, b: &Type) -> bool {
    match (a, b) {
        (Type::Array(_, m), Type::Array(_, n)) => m == n,
        (Type::Adjoint(_), Type::Adjoint(_)) => true,
        _ => false,
    }
}

fn callee_of(s: &RevStmt) -> Option<Prim> {
    match s.consts.first()?.as_ref()? {
        Const::Func(n) if &**n == "-" && s.arg_tys.len() == 2 => Some(Prim::Neg),
        Const::Func(n) => Prim::from_julia_name(n),
        _ => None,
    }
}

/// The pushforward of a broadcast: the scalar rule's pushforward, itself broadcast (a scalar
/// operand's tangent is a number, an array operand's an array of the result's shape).
fn pushforward(e: &mut Emit, s: &TanStmt, value: &Operand) -> Option<Operand> {
    let p = callee(&s.args);
    let differentiable = matches!(s.ty, Type::Array(..) | Type::Adjoint(_));
    let saved = e.bcast.replace(s.ty.clone());
    let tangent = match p {
        Some(p) if differentiable && scalar::handles(p) => {
            let elems: Vec<Type> = s.arg_tys[1..].iter().map(elem).collect();
            if elems.contains(&Type::Float32) || elem(&s.ty) == Type::Float32 {
                in_float64(e, p, s, value)
            } else {
                Some(scalar::pushforward(
                    e,
                    p,
                    &s.args[1..],
                    &elems,
                    value,
                    &s.tangents[1..],
                ))
            }
        }
        // `Float32.(x)`: the tangent rounded as the value is.
        Some(Prim::ToFloat32) if differentiable => s.tangent(1).map(|t| round32(e, t)),
        // Comparisons and rounding: no tangent flows.
        _ => None,
    };
    e.bcast = saved;
    let tangent = tangent?;
    // A tangent that no operand's tangent reaches is a number; the result's is an array.
    let tangent = match e.b.func.operand_ty(&tangent) {
        Type::Array(..) | Type::Adjoint(_) => tangent,
        _ => {
            let z = e.prim(Prim::ZeroTangent, vec![value.clone()], s.ty.clone());
            let f = Operand::Const(Const::Func("+".into()));
            e.prim(Prim::Broadcast, vec![f, z, tangent], s.ty.clone())
        }
    };
    Some(tangent)
}
