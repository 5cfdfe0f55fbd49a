//! `Float32` arithmetic, elementary functions and conversions. Operands are of one type
//! (inference converts first); `+ - * /` and `rem` are the machine's single-precision
//! operations, as Julia's; a power and an elementary function are computed on the exact
//! Float64 and rounded once, as Julia's Float32 methods compute them in Float64.

use zy_ir::Prim;

use super::{domain_error, method_error, sized};
use crate::value::Value;

/// `Float32(x)` of a number: the nearest Float32.
pub(super) fn to_float32(a: &Value) -> Result<Value, String> {
    Ok(Value::F32(match a {
        Value::F32(x) => *x,
        Value::F64(x) => *x as f32,
        Value::Int(i) => *i as f32,
        Value::Bool(b) => f32::from(u8::from(*b)),
        Value::Sized(..) | Value::Wide(..) => match sized::exact(a) {
            // Rounded once to the nearest Float32.
            Some(v) => match v.to_i128() {
                Some(i) => i as f32,
                None => v.bits() as f32,
            },
            None => return Err(method_error("Float32", std::slice::from_ref(a))),
        },
        _ => return Err(method_error("Float32", std::slice::from_ref(a))),
    }))
}

/// `a op b` of two Float32s, or `x ^ n` of a Float32 and an Int.
pub(super) fn arith(p: Prim, a: &Value, b: &Value) -> Result<Value, String> {
    let fail = || method_error(p.julia_name(), &[a.clone(), b.clone()]);
    let r = match (a, b) {
        (Value::F32(x), Value::Int(n)) if p == Prim::Pow => pow_int(*x, *n),
        (Value::F32(x), Value::F32(y)) => match p {
            Prim::Add => x + y,
            Prim::Sub => x - y,
            Prim::Mul => x * y,
            Prim::Div => x / y,
            // Julia: `div(x, y) = round((x - rem(x, y)) / y)` (toward zero), in the type.
            Prim::IntDiv => ((x - x % y) / y).round_ties_even(),
            Prim::Rem => x % y,
            Prim::Pow => return pow(*x, *y, a),
            _ => return Err(fail()),
        },
        _ => return Err(fail()),
    };
    Ok(Value::F32(r))
}

/// Julia's `x ^ n` of a Float32 and an Int: `Base.power_by_squaring` of the Float64 (of its
/// inverse for a negative power), rounded once (`x * x * x` for 3 and `inv(x)^2` for -2 in the
/// type, as `literal_pow` gives them). Not Float64's compensated `x ^ n`: `(-0f0)^1` is `-0f0`.
fn pow_int(x: f32, n: i64) -> f32 {
    match n {
        -2 => {
            let i = 1.0 / x;
            i * i
        }
        3 => x * x * x,
        n if n < 0 => power_by_squaring(1.0 / f64::from(x), n.unsigned_abs()) as f32,
        n => power_by_squaring(f64::from(x), n.unsigned_abs()) as f32,
    }
}

/// Julia's `Base.power_by_squaring(x, p)` of a Float64 and a power `p >= 0`: the squarings for
/// the power's trailing zeros first, then one product per further bit.
fn power_by_squaring(x: f64, p: u64) -> f64 {
    match p {
        0 => 1.0,
        1 => x,
        2 => x * x,
        mut p => {
            let mut x = x;
            let t = p.trailing_zeros() + 1;
            p >>= t;
            for _ in 1..t {
                x *= x;
            }
            let mut y = x;
            while p > 0 {
                let t = p.trailing_zeros() + 1;
                p >>= t;
                for _ in 0..t {
                    x *= x;
                }
                y *= x;
            }
            y
        }
    }
}

/// `x ^ y` of two Float32s: of an integer `y` the power by squaring above, as Julia's; a
/// DomainError for a negative base and a fractional power, else the Float64 power rounded.
fn pow(x: f32, y: f32, a: &Value) -> Result<Value, String> {
    if x != 1.0 && y.is_finite() && y.fract() == 0.0 && y.abs() < 1_744_830_464.0 {
        return Ok(Value::F32(pow_int(x, y as i64)));
    }
    if x < 0.0 && y.is_finite() && y.fract() != 0.0 {
        return Err(domain_error(
            a,
            "Exponentiation yielding a complex result requires a complex argument. Replace \
             x^y with (x+0im)^y, Complex(x)^y, or similar.",
        ));
    }
    super::scalar::pow_f64(f64::from(x), f64::from(y)).map(|r| Value::F32(r as f32))
}

/// A unary operation of the Float32 `x` (the value `a`).
pub(super) fn unary(p: Prim, x: f32, a: &Value) -> Result<Value, String> {
    let same = |y: f32| Ok(Value::F32(y));
    match p {
        Prim::Neg => same(-x),
        Prim::Abs => same(x.abs()),
        Prim::Floor => same(x.floor()),
        Prim::Ceil => same(x.ceil()),
        Prim::Round => same(x.round_ties_even()),
        Prim::Sign if x == 0.0 || x.is_nan() => same(x),
        Prim::Sign => same(1.0f32.copysign(x)),
        Prim::Float => Ok(Value::F64(f64::from(x))),
        Prim::ToFloat32 => same(x),
        Prim::Zero => same(0.0),
        Prim::One => same(1.0),
        Prim::ToInt => sized::convert(None, a),
        _ => match p.math() {
            Some(m) => {
                let wide = f64::from(x);
                let y = (m.eval)(wide);
                match m.domain.error(wide, y) {
                    Some(msg) => Err(domain_error(a, msg)),
                    None => same(y as f32),
                }
            }
            None => Err(method_error(p.julia_name(), std::slice::from_ref(a))),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn powers_by_squaring_as_julia() {
        // 3^5: 3, then 9, 81 and 3 * 81; (-0.0)^1 keeps its sign; 2^-3 is (1/2)^3.
        assert_eq!(power_by_squaring(3.0, 5), 243.0);
        assert_eq!(power_by_squaring(1.5, 12), 129.746337890625);
        assert!(pow_int(-0.0, 1).is_sign_negative());
        assert_eq!(pow_int(2.0, -3), 0.125);
        assert_eq!(pow_int(1.1, 3), 1.1f32 * 1.1f32 * 1.1f32);
        assert!(
            f32_of(arith(Prim::Pow, &Value::F32(-0.0), &Value::F32(1.0)).unwrap())
                .is_sign_negative()
        );
    }

    fn f32_of(v: Value) -> f32 {
        match v {
            Value::F32(x) => x,
            other => panic!("not a Float32: {other:?}"),
        }
    }

    #[test]
    fn arithmetic_rounds_in_single_precision() {
        let third = arith(Prim::Div, &Value::F32(1.0), &Value::F32(3.0)).unwrap();
        assert_eq!(f32_of(third), 0.333_333_34);
        assert_eq!(f32_of(to_float32(&Value::F64(0.1)).unwrap()), 0.1f32);
        assert_eq!(pow_int(2.0, -1), 0.5);
        assert_eq!(pow_int(3.0, 3), 27.0);
    }

    #[test]
    fn elementary_functions_round_the_float64_value() {
        let s = unary(Prim::Sin, 1.0, &Value::F32(1.0)).unwrap();
        assert_eq!(f32_of(s), 1.0f64.sin() as f32);
        let err = unary(Prim::Sqrt, -1.0, &Value::F32(-1.0)).unwrap_err();
        assert!(err.starts_with("DomainError with -1.0f0"), "{err}");
    }
}
