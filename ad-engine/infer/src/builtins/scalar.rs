//! Scalar arithmetic, comparisons, elementary functions and conversions, with Julia's
//! promotion: mixed `Int64`/`Float64` converts to `Float64`, `Bool` to `Int64` where Julia gives
//! an `Int64`, `/` is always `Float64`, math functions of integers convert to `Float64`.

use zy_ir::{Const, Prim, Type};

use crate::error::{no_method, Fail};
use crate::plan::PlanBuilder;
use crate::value::{convert, promote, types, Val};

/// The primitive of a binary operator on numbers: arithmetic or a comparison.
pub(crate) fn prim_of(op: &str) -> Option<Prim> {
    Some(match op {
        "+" => Prim::Add,
        "-" => Prim::Sub,
        "*" => Prim::Mul,
        "/" => Prim::Div,
        "÷" => Prim::IntDiv,
        "%" => Prim::Rem,
        "^" => Prim::Pow,
        "<" => Prim::Lt,
        "<=" => Prim::Le,
        ">" => Prim::Gt,
        ">=" => Prim::Ge,
        "==" => Prim::Eq,
        "!=" => Prim::Ne,
        _ => return None,
    })
}

fn apply(b: &mut PlanBuilder, p: Prim, args: Vec<&Val>, ty: Type) -> Val {
    let args = args.into_iter().map(|a| a.arg.clone()).collect();
    Val::of(b.prim(p, args, ty.clone()), ty)
}

/// `x op y` on two numbers.
pub(crate) fn binary(b: &mut PlanBuilder, op: &str, x: &Val, y: &Val) -> Result<Val, Fail> {
    let Some(p) = prim_of(op) else {
        return Err(no_method(op, &[x.ty.clone(), y.ty.clone()]));
    };
    if !x.ty.is_number() || !y.ty.is_number() {
        return Err(no_method(op, &[x.ty.clone(), y.ty.clone()]));
    }
    match p {
        Prim::Div => {
            let x = convert(b, x.clone(), &Type::Float64)?;
            let y = convert(b, y.clone(), &Type::Float64)?;
            Ok(apply(b, p, vec![&x, &y], Type::Float64))
        }
        Prim::Pow => pow(b, x, y),
        Prim::Lt | Prim::Le | Prim::Gt | Prim::Ge | Prim::Eq | Prim::Ne => {
            let t = promote(&x.ty, &y.ty);
            let x = convert(b, x.clone(), &t)?;
            let y = convert(b, y.clone(), &t)?;
            Ok(apply(b, p, vec![&x, &y], Type::Bool))
        }
        Prim::Mul if matches!((&x.ty, &y.ty), (Type::Bool, Type::Float64)) => strong_zero(b, x, y),
        Prim::Mul if matches!((&x.ty, &y.ty), (Type::Float64, Type::Bool)) => strong_zero(b, y, x),
        _ => {
            let mut t = promote(&x.ty, &y.ty);
            // `true + true == 2`, while `*`, `÷` and `%` of two Bools stay Bool, as in Julia.
            if t == Type::Bool && matches!(p, Prim::Add | Prim::Sub) {
                t = Type::Int64;
            }
            let x = convert(b, x.clone(), &t)?;
            let y = convert(b, y.clone(), &t)?;
            Ok(apply(b, p, vec![&x, &y], t))
        }
    }
}

/// `c * y` of a Bool and a Float64: Julia's `ifelse(c, y, copysign(zero(y), y))`, so `false`
/// is a strong zero (`false * NaN == 0.0`, `false * -Inf === -0.0`).
fn strong_zero(b: &mut PlanBuilder, c: &Val, y: &Val) -> Result<Val, Fail> {
    let zero = Val::lit(Const::f64(0.0));
    let z = apply(b, Prim::Copysign, vec![&zero, y], Type::Float64);
    Ok(apply(b, Prim::IfElse, vec![c, y, &z], Type::Float64))
}

/// `copysign(x, y)` of a Float64 `x` and a number `y` (converted: an integer's sign is its
/// Float64's); an integer `x` is the prelude's method.
pub(crate) fn copysign(b: &mut PlanBuilder, args: &[Val]) -> Result<Val, Fail> {
    match args {
        [x, y] if x.ty == Type::Float64 && y.ty.is_number() => {
            let y = convert(b, y.clone(), &Type::Float64)?;
            Ok(apply(b, Prim::Copysign, vec![x, &y], Type::Float64))
        }
        _ => Err(no_method("copysign", &types(args))),
    }
}

/// `and_int(a, b)` and the other bit intrinsics, of two Int64s.
pub(crate) fn int_bits(b: &mut PlanBuilder, name: &str, args: &[Val]) -> Result<Val, Fail> {
    let p = match name {
        "and_int" => Prim::AndInt,
        "or_int" => Prim::OrInt,
        "xor_int" => Prim::XorInt,
        "shl_int" => Prim::ShlInt,
        "ashr_int" => Prim::AshrInt,
        _ => Prim::LshrInt,
    };
    match args {
        [x, y] if x.ty == Type::Int64 && y.ty == Type::Int64 => {
            Ok(apply(b, p, vec![x, y], Type::Int64))
        }
        _ => Err(no_method(name, &types(args))),
    }
}

/// `hash_int(x, h)` of two Int64s, `hash_float(x, h)` of a Float64 and an Int64: Julia's
/// `hash` (an Int64 of its bits).
pub(crate) fn hash(b: &mut PlanBuilder, name: &str, args: &[Val]) -> Result<Val, Fail> {
    let (p, x_ty) = match name {
        "hash_int" => (Prim::HashInt, Type::Int64),
        _ => (Prim::HashFloat, Type::Float64),
    };
    match args {
        [x, h] if x.ty == x_ty && h.ty == Type::Int64 => Ok(apply(b, p, vec![x, h], Type::Int64)),
        _ => Err(no_method(name, &types(args))),
    }
}

/// `fma(x, y, z)` of numbers, one a Float64 (all converted); three integers are the prelude's.
pub(crate) fn fma(b: &mut PlanBuilder, args: &[Val]) -> Result<Val, Fail> {
    match args {
        [x, y, z]
            if args.iter().all(|a| a.ty.is_number())
                && args.iter().any(|a| a.ty == Type::Float64) =>
        {
            let x = convert(b, x.clone(), &Type::Float64)?;
            let y = convert(b, y.clone(), &Type::Float64)?;
            let z = convert(b, z.clone(), &Type::Float64)?;
            Ok(apply(b, Prim::Fma, vec![&x, &y, &z], Type::Float64))
        }
        _ => Err(no_method("fma", &types(args))),
    }
}

/// `x ^ y`: Int^Int is Int (Bool^Int Bool), Float64^Int stays a power with an Int exponent,
/// an integer base with a Float64 exponent converts.
fn pow(b: &mut PlanBuilder, x: &Val, y: &Val) -> Result<Val, Fail> {
    let y = if y.ty == Type::Bool {
        convert(b, y.clone(), &Type::Int64)?
    } else {
        y.clone()
    };
    let (x, ty) = match (&x.ty, &y.ty) {
        (Type::Int64 | Type::Bool, Type::Float64) => {
            (convert(b, x.clone(), &Type::Float64)?, Type::Float64)
        }
        (t, _) => (x.clone(), t.clone()),
    };
    Ok(apply(b, Prim::Pow, vec![&x, &y], ty))
}

/// `x ^ p` with a negative integer literal `p` (lowering calls `literal_pow` for those, as
/// Julia's `Base.literal_pow`): an integer `x` gives a Float64 (`inv(x)` for -1, `inv(x)^2` for
/// -2, `Float64(x)^p` below), and a Float64 `x` to the power -1 is `inv(x)`. Every other case is
/// `x ^ p`.
pub(crate) fn literal_pow(b: &mut PlanBuilder, x: &Val, p: &Val) -> Result<Val, Fail> {
    let Some(Const::Int(n)) = p.konst else {
        return binary(b, "^", x, p);
    };
    let int_base = matches!(x.ty, Type::Int64 | Type::Bool);
    if n >= 0 || !(int_base || x.ty == Type::Float64) {
        return binary(b, "^", x, p);
    }
    let xf = convert(b, x.clone(), &Type::Float64)?;
    let inv = |b: &mut PlanBuilder, v: &Val| {
        let one = Val::lit(Const::f64(1.0));
        apply(b, Prim::Div, vec![&one, v], Type::Float64)
    };
    match n {
        -1 => Ok(inv(b, &xf)),
        -2 if int_base => {
            let i = inv(b, &xf);
            Ok(apply(b, Prim::Mul, vec![&i, &i], Type::Float64))
        }
        _ => Ok(apply(b, Prim::Pow, vec![&xf, p], Type::Float64)),
    }
}

/// `-x`, `+x`, `!x` on a number.
pub(crate) fn unary(b: &mut PlanBuilder, op: &str, x: &Val) -> Result<Val, Fail> {
    match (op, &x.ty) {
        ("-", Type::Int64 | Type::Float64) => Ok(apply(b, Prim::Neg, vec![x], x.ty.clone())),
        ("-", Type::Bool) => {
            let i = convert(b, x.clone(), &Type::Int64)?;
            Ok(apply(b, Prim::Neg, vec![&i], Type::Int64))
        }
        ("+", Type::Int64 | Type::Float64) => Ok(x.clone()),
        ("+", Type::Bool) => convert(b, x.clone(), &Type::Int64),
        ("!", Type::Bool) => Ok(apply(b, Prim::Not, vec![x], Type::Bool)),
        _ => Err(no_method(op, std::slice::from_ref(&x.ty))),
    }
}

/// Elementary functions: `Float64` in, `Float64` out (integers convert).
pub(crate) fn math(b: &mut PlanBuilder, name: &str, args: &[Val]) -> Result<Val, Fail> {
    let (Some(p), [x]) = (Prim::from_julia_name(name), args) else {
        return Err(no_method(name, &types(args)));
    };
    if !x.ty.is_number() {
        return Err(no_method(name, &types(args)));
    }
    let x = convert(b, x.clone(), &Type::Float64)?;
    Ok(apply(b, p, vec![&x], Type::Float64))
}

/// `polygamma(m, x)`: an Int order and a number, Float64 out.
pub(crate) fn polygamma(b: &mut PlanBuilder, args: &[Val]) -> Result<Val, Fail> {
    let [m, x] = args else {
        return Err(no_method("polygamma", &types(args)));
    };
    if m.ty != Type::Int64 || !x.ty.is_number() {
        return Err(no_method("polygamma", &types(args)));
    }
    let x = convert(b, x.clone(), &Type::Float64)?;
    Ok(apply(b, Prim::Polygamma, vec![m, &x], Type::Float64))
}

/// `besselj(ν, x)` and the other Bessel functions of an order: an Int order kept (it has no
/// gradient), any other number and `x` converted to Float64; Float64 out.
pub(crate) fn bessel(b: &mut PlanBuilder, name: &str, args: &[Val]) -> Result<Val, Fail> {
    let (Some(p), [nu, x]) = (Prim::from_julia_name(name), args) else {
        return Err(no_method(name, &types(args)));
    };
    if !nu.ty.is_number() || !x.ty.is_number() {
        return Err(no_method(name, &types(args)));
    }
    let nu = match nu.ty {
        Type::Int64 => nu.clone(),
        _ => convert(b, nu.clone(), &Type::Float64)?,
    };
    let x = convert(b, x.clone(), &Type::Float64)?;
    Ok(apply(b, p, vec![&nu, &x], Type::Float64))
}

/// `_gamma_inc_p(a, x)`, the other incomplete gamma and beta functions and `_zeta(s, z)`: an
/// Int parameter kept (it has no gradient), any other number and `x` converted to Float64;
/// Float64 out.
pub(crate) fn incomplete(b: &mut PlanBuilder, name: &str, args: &[Val]) -> Result<Val, Fail> {
    let arity = if name == "_beta_inc" { 3 } else { 2 };
    let Some(p) = Prim::from_julia_name(name) else {
        return Err(no_method(name, &types(args)));
    };
    if args.len() != arity || !args.iter().all(|a| a.ty.is_number()) {
        return Err(no_method(name, &types(args)));
    }
    let mut ops = Vec::with_capacity(arity);
    for (i, a) in args.iter().enumerate() {
        ops.push(match a.ty {
            Type::Int64 if i + 1 < arity => a.clone(),
            _ => convert(b, a.clone(), &Type::Float64)?,
        });
    }
    Ok(apply(b, p, ops.iter().collect(), Type::Float64))
}

/// `abs sign floor ceil round`: keep the number type (identity on Bool).
pub(crate) fn keep_type(b: &mut PlanBuilder, name: &str, args: &[Val]) -> Result<Val, Fail> {
    let (Some(p), [x]) = (Prim::from_julia_name(name), args) else {
        return Err(no_method(name, &types(args)));
    };
    match x.ty {
        Type::Float64 | Type::Int64 => Ok(apply(b, p, vec![x], x.ty.clone())),
        Type::Bool => Ok(x.clone()),
        _ => Err(no_method(name, &types(args))),
    }
}

/// `max(a, b)`, `min(a, b)` on numbers.
pub(crate) fn min_max(b: &mut PlanBuilder, name: &str, args: &[Val]) -> Result<Val, Fail> {
    let (Some(p), [x, y]) = (Prim::from_julia_name(name), args) else {
        return Err(no_method(name, &types(args)));
    };
    if !x.ty.is_number() || !y.ty.is_number() {
        return Err(no_method(name, &types(args)));
    }
    let t = promote(&x.ty, &y.ty);
    let x = convert(b, x.clone(), &t)?;
    let y = convert(b, y.clone(), &t)?;
    Ok(apply(b, p, vec![&x, &y], t))
}

/// `float(x)`, `Float64(x)`, `Int(x)`, `Int64(x)`.
pub(crate) fn conversion(b: &mut PlanBuilder, name: &str, args: &[Val]) -> Result<Val, Fail> {
    let to = if matches!(name, "float" | "Float64") {
        Type::Float64
    } else {
        Type::Int64
    };
    match args {
        [x] if x.ty.is_number() => convert(b, x.clone(), &to),
        // `float(A)` is `A` itself for a Float64 array, a converted copy otherwise.
        [x @ Val {
            ty: Type::Array(e, _),
            ..
        }] if name == "float" && e.is_number() => convert(
            b,
            x.clone(),
            &Type::Array(std::sync::Arc::new(Type::Float64), array_n(&x.ty)),
        ),
        _ => Err(no_method(name, &types(args))),
    }
}

fn array_n(t: &Type) -> u8 {
    match t {
        Type::Array(_, n) => *n,
        _ => 1,
    }
}

/// `zero(x)`, `one(x)`, and of a number type: `zero(Float64)`, `one(T)` (a type is its
/// constructor as a value).
pub(crate) fn zero_one(b: &mut PlanBuilder, name: &str, args: &[Val]) -> Result<Val, Fail> {
    let p = if name == "zero" {
        Prim::Zero
    } else {
        Prim::One
    };
    let unit = i64::from(p == Prim::One);
    match args {
        [Val {
            ty: Type::Function(t),
            ..
        }] if &**t == "Float64" => Ok(Val::lit(Const::f64(unit as f64))),
        [Val {
            ty: Type::Function(t),
            ..
        }] if matches!(&**t, "Int" | "Int64") => Ok(Val::lit(Const::Int(unit))),
        [x] if x.ty.is_number() => Ok(apply(b, p, vec![x], x.ty.clone())),
        [x @ Val {
            ty: Type::Array(e, _),
            ..
        }] if p == Prim::Zero && e.is_number() => Ok(apply(b, p, vec![x], x.ty.clone())),
        _ => Err(no_method(name, &types(args))),
    }
}

/// `a == b` and `a != b` between values that are not both numbers: `false` (`true`) unless
/// both are the same singleton.
/// `x === y` where the types decide it, as a constant: `nothing === nothing`, a function and
/// itself, values of different types (`1 === 1.0` is `false`). Two numbers, or two tuples, of
/// one type are the prelude's methods (`Base.===`); anything else is refused by name.
pub(crate) fn egal(x: &Val, y: &Val) -> Result<Val, Fail> {
    let same = match (&x.ty, &y.ty) {
        (Type::Nothing, Type::Nothing) => true,
        (Type::Symbol(a), Type::Symbol(b)) => a == b,
        (Type::Function(f), Type::Function(g)) => crate::type_values::same_name(f, g),
        (a, b) if a != b => false,
        (t, _) => {
            return Err(Fail::unsupported(format!(
                "`===` on values of type {t} (egal of two mutable values compares their \
                 identity); compare arrays with `==`, and structs field by field, instead"
            )))
        }
    };
    Ok(Val::lit(Const::Bool(same)))
}

pub(crate) fn equality(op: &str, x: &Val, y: &Val) -> Result<Val, Fail> {
    let same = match (&x.ty, &y.ty) {
        (Type::Nothing, Type::Nothing) => Some(true),
        (Type::Symbol(a), Type::Symbol(b)) => Some(a == b),
        (Type::Function(f), Type::Function(g)) => Some(crate::type_values::same_name(f, g)),
        (a, b) if a != b && !(a.is_number() && b.is_number()) => Some(false),
        _ => None,
    };
    match same {
        Some(s) => Ok(Val::lit(Const::Bool(if op == "==" { s } else { !s }))),
        None => Err(Fail::unsupported(format!(
            "`{op}` on values of type {}; compare their fields (`a.x == b.x`) instead",
            x.ty
        ))),
    }
}
