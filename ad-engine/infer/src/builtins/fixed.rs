//! The fixed-width integers other than `Int64` (`UInt8`, `Int32`, ...; `Type::Int`): their
//! constructors, `x % T`, arithmetic and comparisons with Julia's promotion. Mixed integer
//! `+ - *` truncate to the promoted type (Julia's `a % T + b % T`), `÷ %` and `max`/`min`
//! convert exactly (an `InexactError` where the value does not fit), `/` and anything with a
//! Float64 is Float64, comparisons are exact between any two numbers. None carries a
//! gradient.

use zy_ir::{promote_ints, Const, IntKind, Prim, Type};

use super::is_math;
use crate::calls::Cx;
use crate::error::{no_method, Fail};
use crate::plan::PlanBuilder;
use crate::value::{apply, convert, types, Val};

/// The fixed-width integer type a type value names (`UInt8`, `UInt`), for a constructor call.
pub(crate) fn named(name: &str) -> Option<IntKind> {
    IntKind::from_name(name)
}

/// The integer type a type value stands for in `x % T`: a fixed-width one, or `Int64`.
fn integer_type_value(v: &Val) -> Option<Type> {
    match &v.ty {
        Type::Function(n) if matches!(&**n, "Int" | "Int64") => Some(Type::Int64),
        Type::Function(n) => named(n).map(Type::Int),
        _ => None,
    }
}

fn is_fixed(v: &Val) -> bool {
    matches!(v.ty, Type::Int(_))
}

/// An integer operand: `Int64`, `Bool` or a fixed-width integer.
fn is_integer(v: &Val) -> bool {
    matches!(v.ty, Type::Int64 | Type::Bool | Type::Int(_))
}

/// A number: an integer or a float (a Float32 only as a constructor's argument: arithmetic
/// with one is `single`'s).
fn is_numeric(v: &Val) -> bool {
    is_integer(v) || matches!(v.ty, Type::Float64 | Type::Float32)
}

/// Julia's `promote_type` of two integer types, one of them fixed-width.
pub(crate) fn promote(a: &Type, b: &Type) -> Type {
    let kind = |t: &Type| match t {
        Type::Int(k) => Some(Some(*k)),
        Type::Int64 => Some(None),
        _ => None,
    };
    match (kind(a), kind(b)) {
        (Some(x), Some(y)) => promote_ints(x, y).map_or(Type::Int64, Type::Int),
        (Some(x), None) | (None, Some(x)) => x.map_or(Type::Int64, Type::Int),
        (None, None) => Type::Int64,
    }
}

/// `v % T`: the integer `v` truncated to the integer type `to`.
fn truncated(b: &mut PlanBuilder, v: &Val, to: &Type) -> Val {
    if v.ty == *to {
        return v.clone();
    }
    apply(b, Prim::TruncInt, &[v], to.clone())
}

/// `T(v)`: the number `v` converted exactly to the integer type `to`.
fn converted(b: &mut PlanBuilder, v: &Val, to: &Type) -> Val {
    match (&v.ty, to) {
        (a, b_) if a == b_ => v.clone(),
        (Type::Int(_), Type::Int64) => apply(b, Prim::ToInt, &[v], Type::Int64),
        _ => apply(b, Prim::ConvertInt, &[v], to.clone()),
    }
}

/// `Float64(v)` of a number.
fn to_float(b: &mut PlanBuilder, v: &Val) -> Result<Val, Fail> {
    match v.ty {
        Type::Int(_) => Ok(apply(b, Prim::Float, &[v], Type::Float64)),
        _ => convert(b, v.clone(), &Type::Float64),
    }
}

/// The binary operations on numbers typed here.
pub(crate) const BINARY: &[&str] = &[
    "+",
    "-",
    "*",
    "/",
    "÷",
    "%",
    "^",
    "literal_pow",
    "<",
    "<=",
    ">",
    ">=",
    "==",
    "!=",
    "max",
    "min",
];

/// `x[i]` and `x[i] = v` of an array or a tuple with fixed-width integer indices: each index
/// as an Int, as Julia's `to_index` converts it (exactly: an index out of Int's range is an
/// `InexactError` before it is a `BoundsError`).
pub(crate) fn indices(
    cx: &mut Cx,
    b: &mut PlanBuilder,
    name: &str,
    args: &[Val],
) -> Option<Result<Val, Fail>> {
    let first = match name {
        "getindex" => 1,
        "setindex!" => 2,
        _ => return None,
    };
    let container = matches!(args.first()?.ty, Type::Array(..) | Type::Tuple(_));
    if !container || !args.get(first..)?.iter().any(is_fixed) {
        return None;
    }
    let as_ints: Vec<Val> = args
        .iter()
        .enumerate()
        .map(|(i, a)| match i >= first && is_fixed(a) {
            true => converted(b, a, &Type::Int64),
            false => a.clone(),
        })
        .collect();
    Some(cx.call_named(b, &name.into(), &as_ints))
}

/// Type a call on fixed-width integers; `None` if no operand or type argument is one, or no
/// method here applies.
pub(crate) fn call(b: &mut PlanBuilder, name: &str, args: &[Val]) -> Option<Result<Val, Fail>> {
    let fail = || Err(no_method(name, &types(args)));
    if let Some(k) = named(name) {
        return Some(match args {
            [x] if is_numeric(x) => Ok(converted(b, x, &Type::Int(k))),
            _ => fail(),
        });
    }
    if !args.iter().any(is_fixed) {
        return match (name, args) {
            ("%", [x, t]) if is_integer(x) => {
                let to = integer_type_value(t)?;
                Some(Ok(truncated(b, x, &to)))
            }
            ("zero" | "one", [t]) => {
                let Type::Int(k) = integer_type_value(t)? else {
                    return None;
                };
                let held = Val::lit(Const::Int(i64::from(name == "one")));
                Some(Ok(apply(b, Prim::TruncInt, &[&held], Type::Int(k))))
            }
            _ => None,
        };
    }
    Some(match (name, args) {
        ("Int" | "Int64", [x]) => Ok(converted(b, x, &Type::Int64)),
        ("float" | "Float64", [x]) => to_float(b, x),
        ("%", [x, t]) if integer_type_value(t).is_some() => match integer_type_value(t) {
            Some(to) => Ok(truncated(b, x, &to)),
            None => fail(),
        },
        ("-", [x]) => Ok(apply(b, Prim::Neg, &[x], x.ty.clone())),
        ("+", [x]) => Ok(x.clone()),
        ("abs" | "sign" | "floor" | "ceil" | "round", [x]) => match Prim::from_julia_name(name) {
            Some(p) => Ok(apply(b, p, &[x], x.ty.clone())),
            None => fail(),
        },
        ("zero" | "one", [x]) => {
            let p = if name == "zero" {
                Prim::Zero
            } else {
                Prim::One
            };
            Ok(apply(b, p, &[x], x.ty.clone()))
        }
        (n, [x]) if is_math(n) => match (to_float(b, x), Prim::from_julia_name(n)) {
            (Ok(xf), Some(p)) => Ok(apply(b, p, &[&xf], Type::Float64)),
            (Err(e), _) => Err(e),
            (_, None) => fail(),
        },
        // `x^-1` of a literal power is `inv(x)`, a Float64, as of an Int.
        ("literal_pow", [x, p]) if p.int().is_some_and(|n| n < 0) => {
            let xi = converted(b, x, &Type::Int64);
            super::scalar::literal_pow(b, &xi, p)
        }
        ("and_int" | "or_int" | "xor_int", [x, y]) if x.ty == y.ty => {
            match Prim::from_julia_name(name) {
                Some(p) => Ok(apply(b, p, &[x, y], x.ty.clone())),
                None => fail(),
            }
        }
        // The prelude's shifts of `Int128` and `UInt128`, by an amount of the same type.
        ("shl_int" | "ashr_int" | "lshr_int", [x, y])
            if x.ty == y.ty && matches!(x.ty, Type::Int(k) if k.wide()) =>
        {
            match Prim::from_julia_name(name) {
                Some(p) => Ok(apply(b, p, &[x, y], x.ty.clone())),
                None => fail(),
            }
        }
        (op, [x, y]) if BINARY.contains(&op) && is_numeric(x) && is_numeric(y) => {
            binary(b, name, x, y)
        }
        // The generic methods (`0x01 == nothing`), or no method.
        _ => return None,
    })
}

/// The primitive of a comparison `x op y`: exact between any two numbers, a `Bool`.
pub(crate) fn comparison(op: &str) -> Option<Prim> {
    super::scalar::prim_of(op).filter(|p| is_comparison(*p))
}

/// The primitive of an arithmetic `x op y` (`literal_pow` is `^`, and `max`, `min`) of two
/// numbers converted to their promoted type.
pub(crate) fn arithmetic(op: &str) -> Option<Prim> {
    match op {
        "literal_pow" => Some(Prim::Pow),
        "max" => Some(Prim::Max),
        "min" => Some(Prim::Min),
        _ => super::scalar::prim_of(op).filter(|p| !is_comparison(*p)),
    }
}

fn is_comparison(p: Prim) -> bool {
    matches!(
        p,
        Prim::Lt | Prim::Le | Prim::Gt | Prim::Ge | Prim::Eq | Prim::Ne
    )
}

/// `x op y` of two numbers, one a fixed-width integer.
fn binary(b: &mut PlanBuilder, op: &str, x: &Val, y: &Val) -> Result<Val, Fail> {
    let fail = || Err(no_method(op, &[x.ty.clone(), y.ty.clone()]));
    // Exact between any two numbers, as Julia compares integers of different signedness and
    // integers with floats.
    if let Some(p) = comparison(op) {
        return Ok(apply(b, p, &[x, y], Type::Bool));
    }
    if x.ty == Type::Float64 || y.ty == Type::Float64 || op == "/" {
        let Some(p) = arithmetic(op) else {
            return fail();
        };
        let xf = to_float(b, x)?;
        // `2.5 ^ 0x03`: a Float64 to an integer power.
        let yf = if p == Prim::Pow && is_integer(y) {
            converted(b, y, &Type::Int64)
        } else {
            to_float(b, y)?
        };
        return Ok(apply(b, p, &[&xf, &yf], Type::Float64));
    }
    if matches!(op, "^" | "literal_pow") {
        // An integer to an integer power keeps the base's type.
        let n = converted(b, y, &Type::Int64);
        let base = match x.ty {
            Type::Bool => converted(b, x, &Type::Int64),
            _ => x.clone(),
        };
        return Ok(apply(b, Prim::Pow, &[&base, &n], base.ty.clone()));
    }
    let t = promote(&x.ty, &y.ty);
    let (p, wraps) = match op {
        "+" => (Prim::Add, true),
        "-" => (Prim::Sub, true),
        "*" => (Prim::Mul, true),
        "÷" => (Prim::IntDiv, false),
        "%" => (Prim::Rem, false),
        "max" => (Prim::Max, false),
        "min" => (Prim::Min, false),
        _ => return fail(),
    };
    let (xt, yt) = if wraps {
        (truncated(b, x, &t), truncated(b, y, &t))
    } else {
        (converted(b, x, &t), converted(b, y, &t))
    };
    Ok(apply(b, p, &[&xt, &yt], t))
}
