//! `Float32` (`Type::Float32`): `Float32(x)`, arithmetic with Julia's promotion (a Float32
//! with any integer is a Float32, with a Float64 a Float64), exact comparisons, the
//! elementary functions of one (a Float32 result), conversions. Reverse mode differentiates
//! them with the Float64 rules, rounded back (`zy_ad`'s `rules/scalar.rs`).

use zy_ir::{Const, Prim, Type};

use super::is_math;
use crate::error::{no_method, Fail};
use crate::plan::PlanBuilder;
use crate::value::{apply, convert, types, Val};

fn is_single(v: &Val) -> bool {
    v.ty == Type::Float32
}

fn is_numeric(v: &Val) -> bool {
    matches!(
        v.ty,
        Type::Float64 | Type::Float32 | Type::Int64 | Type::Bool | Type::Int(_)
    )
}

/// Is `v` the type value `Float32`?
fn names_float32(v: &Val) -> bool {
    matches!(&v.ty, Type::Function(n) if &**n == "Float32")
}

/// Type a call on Float32s; `None` if no operand or type argument is one, or no method here
/// applies.
pub(crate) fn call(b: &mut PlanBuilder, name: &str, args: &[Val]) -> Option<Result<Val, Fail>> {
    let fail = || Err(no_method(name, &types(args)));
    if name == "Float32" {
        return Some(match args {
            [x] if is_numeric(x) => convert(b, x.clone(), &Type::Float32),
            _ => fail(),
        });
    }
    if let ("zero" | "one", [t]) = (name, args) {
        if names_float32(t) {
            let unit = f64::from(u8::from(name == "one"));
            let lit = Val::lit(Const::f64(unit));
            return Some(convert(b, lit, &Type::Float32));
        }
    }
    if !args.iter().any(is_single) {
        return None;
    }
    Some(match (name, args) {
        ("Float64", [x]) => convert(b, x.clone(), &Type::Float64),
        ("float", [x]) => Ok(x.clone()),
        ("Int" | "Int64", [x]) => convert(b, x.clone(), &Type::Int64),
        ("-", [x]) => Ok(apply(b, Prim::Neg, &[x], Type::Float32)),
        ("+", [x]) => Ok(x.clone()),
        ("abs" | "sign" | "floor" | "ceil" | "round", [x]) => match Prim::from_julia_name(name) {
            Some(p) => Ok(apply(b, p, &[x], Type::Float32)),
            None => fail(),
        },
        ("zero" | "one", [x]) => {
            let p = if name == "zero" {
                Prim::Zero
            } else {
                Prim::One
            };
            Ok(apply(b, p, &[x], Type::Float32))
        }
        (n, [x]) if is_math(n) => match Prim::from_julia_name(n) {
            Some(p) => Ok(apply(b, p, &[x], Type::Float32)),
            None => fail(),
        },
        // `x^-1` of a literal power is `inv(x)`, in the type.
        ("literal_pow", [x, p]) if is_single(x) && p.int() == Some(-1) => {
            let one = convert(b, Val::lit(Const::f64(1.0)), &Type::Float32);
            one.map(|one| apply(b, Prim::Div, &[&one, x], Type::Float32))
        }
        (op, [x, y]) if super::fixed::BINARY.contains(&op) && is_numeric(x) && is_numeric(y) => {
            binary(b, name, x, y)
        }
        // The generic methods (`1f0 == nothing`), or no method.
        _ => return None,
    })
}

/// `x op y` of two numbers, one a Float32.
fn binary(b: &mut PlanBuilder, op: &str, x: &Val, y: &Val) -> Result<Val, Fail> {
    let fail = || Err(no_method(op, &[x.ty.clone(), y.ty.clone()]));
    // Exact between any two numbers, as Julia compares floats with integers.
    if let Some(p) = super::fixed::comparison(op) {
        return Ok(apply(b, p, &[x, y], Type::Bool));
    }
    let Some(p) = super::fixed::arithmetic(op) else {
        return fail();
    };
    let t = if x.ty == Type::Float64 || y.ty == Type::Float64 {
        Type::Float64
    } else {
        Type::Float32
    };
    let xt = convert(b, x.clone(), &t)?;
    // A float to an integer power keeps the integer (`x^3` by squaring).
    let integer_power = p == Prim::Pow && matches!(y.ty, Type::Int64 | Type::Bool | Type::Int(_));
    let yt = if integer_power {
        convert(b, y.clone(), &Type::Int64)?
    } else {
        convert(b, y.clone(), &t)?
    };
    Ok(apply(b, p, &[&xt, &yt], t))
}
