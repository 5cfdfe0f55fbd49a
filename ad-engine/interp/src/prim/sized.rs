//! Arithmetic, comparisons and conversions of the fixed-width integers (`UInt8`, `Int32`, ...):
//! operands of one type (inference promotes them first), results wrapped to the type's width
//! as Julia's intrinsics wrap them, conversions exact or Julia's `InexactError`.

use std::cmp::Ordering;

use zy_ir::{IntKind, Prim, Type};

use super::method_error;
use crate::value::Value;
use crate::wide::{Bits128, Exact};

/// The integer a number of at most 64 bits stands for: `Int64`, `Bool` or a fixed-width
/// integer.
pub(super) fn integer(v: &Value) -> Option<i128> {
    match v {
        Value::Int(i) => Some(i128::from(*i)),
        Value::Bool(b) => Some(i128::from(*b)),
        Value::Sized(k, i) => Some(k.value(*i)),
        _ => None,
    }
}

/// The integer any integer value stands for, `Int128` and `UInt128` included.
pub(super) fn exact(v: &Value) -> Option<Exact> {
    match v {
        Value::Wide(k, bits) => Some(Exact::of(*k, bits.get())),
        _ => integer(v).map(Exact::signed),
    }
}

pub(super) fn divide_error() -> String {
    "DivideError: integer division error".into()
}

/// `a op b` of two integers of the type `k` (`+ - * ÷ % ^`, and `/` as Float64).
pub(super) fn arith(p: Prim, k: IntKind, a: &Value, b: &Value) -> Result<Value, String> {
    if k.wide() {
        return super::wide::arith(p, k, a, b);
    }
    let fail = || method_error(p.julia_name(), &[a.clone(), b.clone()]);
    let x = integer(a).ok_or_else(fail)?;
    if p == Prim::Pow {
        // Power by squaring in the type: the low bits of the Int64 power are the type's.
        let (Value::Sized(..), Value::Int(_) | Value::Bool(_) | Value::Sized(..)) = (a, b) else {
            return Err(fail());
        };
        let n = i64::try_from(integer(b).ok_or_else(fail)?).map_err(|_| fail())?;
        // Only 1 (and a signed -1) has negative powers; an unsigned value of all ones is no
        // -1. The low bits of the Int64 power by squaring are the type's.
        let r = match (n < 0, x) {
            (true, 1) => 1,
            (true, -1) => 1 - 2 * i128::from(n % 2 != 0),
            (true, _) => return Err(super::scalar::int_pow_domain_error(n)),
            (false, _) => i128::from(super::scalar::int_pow(k.wrap(x), n)?),
        };
        return Ok(Value::Sized(k, k.wrap(r)));
    }
    let (Value::Sized(ka, _), Value::Sized(kb, _)) = (a, b) else {
        return Err(fail());
    };
    if *ka != k || *kb != k {
        return Err(fail());
    }
    let y = integer(b).ok_or_else(fail)?;
    let r = match p {
        Prim::Add => x + y,
        Prim::Sub => x - y,
        Prim::Mul => x * y,
        Prim::Div => return Ok(Value::F64(x as f64 / y as f64)),
        // `typemin(Int8) ÷ Int8(-1)` overflows: Julia's `checked_sdiv_int` throws.
        Prim::IntDiv if y == 0 || (k.signed() && x == k.min() && y == -1) => {
            return Err(divide_error())
        }
        Prim::IntDiv => x / y,
        Prim::Rem if y == 0 => return Err(divide_error()),
        Prim::Rem => x % y,
        _ => return Err(fail()),
    };
    Ok(Value::Sized(k, k.wrap(r)))
}

/// A unary operation of a fixed-width integer `k` held as `held`.
pub(super) fn unary(p: Prim, k: IntKind, held: i64, a: &Value) -> Result<Value, String> {
    let x = k.value(held);
    let same = |v: i128| Ok(Value::Sized(k, k.wrap(v)));
    match p {
        Prim::Neg => same(-x),
        Prim::Abs => same(x.abs()),
        Prim::Sign => same(x.signum()),
        Prim::Floor | Prim::Ceil | Prim::Round => Ok(a.clone()),
        Prim::Float => Ok(Value::F64(x as f64)),
        Prim::Zero => same(0),
        Prim::One => same(1),
        Prim::ToInt => convert(None, a),
        _ => Err(method_error(p.julia_name(), std::slice::from_ref(a))),
    }
}

/// The integer type of a conversion's result type: `None` for `Int64`.
pub(super) fn target(ret: &Type) -> Result<Option<IntKind>, String> {
    match ret {
        Type::Int(k) => Ok(Some(*k)),
        Type::Int64 => Ok(None),
        t => Err(format!(
            "internal error: an integer conversion typed {t} reached the interpreter"
        )),
    }
}

fn name(k: Option<IntKind>) -> &'static str {
    k.map_or("Int64", IntKind::name)
}

/// The value of the integer type `k` (`None`: `Int64`) whose bits are the low bits of `bits`.
pub(super) fn make(k: Option<IntKind>, bits: u128) -> Value {
    match k {
        Some(k) if k.wide() => Value::Wide(k, Bits128::new(bits)),
        Some(k) => Value::Sized(k, k.wrap(bits as i128)),
        None => Value::Int(bits as u64 as i64),
    }
}

fn width(v: &Value) -> u32 {
    match v {
        Value::Sized(k, _) | Value::Wide(k, _) => k.bits(),
        Value::Bool(_) => 1,
        _ => 64,
    }
}

/// `T(x)`: `x` converted exactly to the integer type `to` (`None`: `Int64`), else Julia's
/// `InexactError` (a narrower type truncates, `trunc`; one as wide or wider checks the sign
/// bit, `check_top_bit`; a Float64 names the type).
pub(super) fn convert(to: Option<IntKind>, a: &Value) -> Result<Value, String> {
    let (lo, hi) = (Exact::min_of(to), Exact::max_of(to));
    let float = match a {
        Value::F64(x) => Some(*x),
        Value::F32(x) => Some(f64::from(*x)),
        _ => None,
    };
    if let Some(x) = float {
        let within = lo.cmp_f64(x).is_some_and(Ordering::is_le)
            && hi.cmp_f64(x).is_some_and(Ordering::is_ge);
        return if x.fract() == 0.0 && within {
            // An integral Float64 within a type's range is that integer exactly.
            let bits = if x < 0.0 {
                x as i128 as u128
            } else {
                x as u128
            };
            Ok(make(to, bits))
        } else {
            Err(format!(
                "InexactError: {}({})",
                name(to),
                crate::show::show(a)
            ))
        };
    }
    let v = exact(a).ok_or_else(|| method_error(name(to), std::slice::from_ref(a)))?;
    if lo <= v && v <= hi {
        return Ok(make(to, v.bits()));
    }
    let how = if to.map_or(64, IntKind::bits) < width(a) {
        "trunc"
    } else {
        "check_top_bit"
    };
    Err(format!(
        "InexactError: {how}({}, {})",
        name(to),
        crate::show::show(a)
    ))
}

/// `x % T`: the integer `x` truncated to the type `to` (`None`: `Int64`), two's complement.
pub(super) fn truncate(to: Option<IntKind>, a: &Value) -> Result<Value, String> {
    match exact(a) {
        Some(v) => Ok(make(to, v.bits())),
        None => Err(method_error("rem", std::slice::from_ref(a))),
    }
}

/// The order of two numbers, one a fixed-width integer, exactly (`None` if one is NaN), as
/// Julia compares integers of different signedness by value.
pub(super) fn cmp(a: &Value, b: &Value) -> Option<Option<Ordering>> {
    Some(match (a, b) {
        (Value::F64(x), _) => exact(b)?.cmp_f64(*x).map(Ordering::reverse),
        (_, Value::F64(y)) => exact(a)?.cmp_f64(*y),
        _ => Some(exact(a)?.cmp(&exact(b)?)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wraps_in_the_type() {
        let a = Value::Sized(IntKind::UInt8, 200);
        let b = Value::Sized(IntKind::UInt8, 100);
        let r = arith(Prim::Add, IntKind::UInt8, &a, &b).unwrap();
        assert!(r.egal(&Value::Sized(IntKind::UInt8, 44)));
        let m = Value::Sized(IntKind::Int8, -128);
        let n = Value::Sized(IntKind::Int8, -1);
        assert!(arith(Prim::IntDiv, IntKind::Int8, &m, &n).is_err());
    }

    #[test]
    fn conversions_are_exact_or_inexact_errors() {
        assert_eq!(
            convert(Some(IntKind::UInt8), &Value::Int(256)).unwrap_err(),
            "InexactError: trunc(UInt8, 256)"
        );
        assert_eq!(
            convert(Some(IntKind::Int32), &Value::F64(2.5)).unwrap_err(),
            "InexactError: Int32(2.5)"
        );
        assert_eq!(
            convert(Some(IntKind::UInt64), &Value::Int(-1)).unwrap_err(),
            "InexactError: check_top_bit(UInt64, -1)"
        );
        assert!(convert(None, &Value::Sized(IntKind::UInt64, -1)).is_err());
        assert!(truncate(Some(IntKind::UInt8), &Value::Int(300))
            .unwrap()
            .egal(&Value::Sized(IntKind::UInt8, 44)));
    }

    #[test]
    fn compares_by_value_across_signedness() {
        let minus_one = Value::Int(-1);
        let max = Value::Sized(IntKind::UInt64, -1);
        assert_eq!(cmp(&minus_one, &max), Some(Some(Ordering::Less)));
        assert_eq!(
            cmp(&Value::Sized(IntKind::UInt8, 3), &Value::F64(3.0)),
            Some(Some(Ordering::Equal))
        );
    }
}
