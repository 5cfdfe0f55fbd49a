//! Scalar arithmetic, comparisons, elementary functions and conversions on `Float64`, `Int64`
//! and `Bool`, with Julia's results bit for bit where Julia defines them in Julia code (integer
//! wrap-around, power by squaring, `max`/`min` with NaN and signed zeros, rounding ties to even).

use std::cmp::Ordering;

use zy_ir::Prim;

use super::{domain_error, method_error};
use crate::value::{f64_to_int, Value};

/// A number after promotion of the operands of a binary operation.
#[derive(Clone, Copy, Debug)]
enum Pair {
    F(f64, f64),
    I(i64, i64),
    B(bool, bool),
}

fn as_f64(v: &Value) -> Option<f64> {
    match v {
        Value::F64(x) => Some(*x),
        Value::Int(i) => Some(*i as f64),
        Value::Bool(b) => Some(f64::from(u8::from(*b))),
        _ => None,
    }
}

fn as_int(v: &Value) -> Option<i64> {
    match v {
        Value::Int(i) => Some(*i),
        Value::Bool(b) => Some(i64::from(*b)),
        // An exponent (`x ^ 0x03`), the one place operands of two integer types meet.
        Value::Sized(..) | Value::Wide(..) => super::sized::exact(v)?
            .to_i128()
            .and_then(|i| i64::try_from(i).ok()),
        _ => None,
    }
}

/// Julia's promotion of two numbers to a common type.
fn promote(a: &Value, b: &Value) -> Option<Pair> {
    match (a, b) {
        (Value::Bool(x), Value::Bool(y)) => Some(Pair::B(*x, *y)),
        (Value::F64(_), _) | (_, Value::F64(_)) => Some(Pair::F(as_f64(a)?, as_f64(b)?)),
        _ => Some(Pair::I(as_int(a)?, as_int(b)?)),
    }
}

/// `a op b` for two numbers (`+ - * / ÷ % ^`).
pub fn arith(p: Prim, a: &Value, b: &Value) -> Result<Value, String> {
    let fail = || method_error(p.julia_name(), &[a.clone(), b.clone()]);
    // `Bool * Float64` treats `false` as a strong zero: `false * NaN == 0.0`.
    if p == Prim::Mul {
        match (a, b) {
            (Value::Bool(x), Value::F64(y)) | (Value::F64(y), Value::Bool(x)) => {
                return Ok(Value::F64(if *x { *y } else { 0.0f64.copysign(*y) }));
            }
            _ => {}
        }
    }
    match (p, a, b) {
        (_, Value::F32(_), _) => return super::single::arith(p, a, b),
        (Prim::Pow, Value::Sized(k, _) | Value::Wide(k, _), _) => {
            return super::sized::arith(p, *k, a, b)
        }
        (Prim::Pow, ..) => return pow(a, b).unwrap_or_else(|| Err(fail())),
        (_, Value::Sized(k, _) | Value::Wide(k, _), _)
        | (_, _, Value::Sized(k, _) | Value::Wide(k, _)) => {
            return super::sized::arith(p, *k, a, b)
        }
        _ => {}
    }
    match promote(a, b).ok_or_else(fail)? {
        Pair::F(x, y) => float_arith(p, x, y).ok_or_else(fail),
        Pair::I(x, y) => int_arith(p, x, y)?.ok_or_else(fail),
        Pair::B(x, y) => match p {
            Prim::Mul => Ok(Value::Bool(x & y)),
            Prim::IntDiv | Prim::Rem if !y => Err(divide_error()),
            Prim::IntDiv => Ok(Value::Bool(x)),
            Prim::Rem => Ok(Value::Bool(false)),
            _ => int_arith(p, i64::from(x), i64::from(y))?.ok_or_else(fail),
        },
    }
}

/// The bit intrinsics of two Int64s; a shift is by `n mod 64` bits, as the machine's.
pub(super) fn int_bits(p: Prim, a: i64, b: i64) -> i64 {
    let n = (b & 63) as u32;
    match p {
        Prim::AndInt => a & b,
        Prim::OrInt => a | b,
        Prim::XorInt => a ^ b,
        Prim::ShlInt => a.wrapping_shl(n),
        Prim::AshrInt => a.wrapping_shr(n),
        _ => ((a as u64) >> n) as i64,
    }
}

fn divide_error() -> String {
    "DivideError: integer division error".into()
}

fn float_arith(p: Prim, x: f64, y: f64) -> Option<Value> {
    let r = match p {
        Prim::Add => x + y,
        Prim::Sub => x - y,
        Prim::Mul => x * y,
        Prim::Div => x / y,
        // Julia: `div(x, y) = round((x - rem(x, y)) / y)` (toward zero).
        Prim::IntDiv => ((x - x % y) / y).round_ties_even(),
        // `rem` takes the sign of the dividend: C's fmod.
        Prim::Rem => x % y,
        _ => return None,
    };
    Some(Value::F64(r))
}

fn int_arith(p: Prim, x: i64, y: i64) -> Result<Option<Value>, String> {
    let r = match p {
        Prim::Add => x.wrapping_add(y),
        Prim::Sub => x.wrapping_sub(y),
        Prim::Mul => x.wrapping_mul(y),
        Prim::Div => return Ok(Some(Value::F64(x as f64 / y as f64))),
        Prim::IntDiv => {
            if y == 0 || (x == i64::MIN && y == -1) {
                return Err(divide_error());
            }
            x / y
        }
        Prim::Rem => {
            if y == 0 {
                return Err(divide_error());
            }
            // `typemin(Int) % -1 == 0` in Julia.
            x.wrapping_rem(y)
        }
        _ => return Ok(None),
    };
    Ok(Some(Value::Int(r)))
}

/// `a ^ b`; `None` when the operand types have no method.
fn pow(a: &Value, b: &Value) -> Option<Result<Value, String>> {
    Some(match (a, b) {
        (Value::F64(x), Value::Int(_) | Value::Bool(_)) => {
            Ok(Value::F64(pow_f64_int(*x, as_int(b)?)))
        }
        (Value::F64(_), Value::F64(_)) | (Value::Int(_) | Value::Bool(_), Value::F64(_)) => {
            pow_f64(as_f64(a)?, as_f64(b)?).map(Value::F64)
        }
        (Value::Bool(x), Value::Int(_) | Value::Bool(_)) => {
            // `true^n == true`; `false^0 == true`, `false^n == false` for n > 0.
            let n = as_int(b)?;
            if !x && n < 0 {
                Err(int_pow_domain_error(n))
            } else {
                Ok(Value::Bool(*x || n == 0))
            }
        }
        (Value::Int(x), Value::Int(_) | Value::Bool(_)) => int_pow(*x, as_int(b)?).map(Value::Int),
        _ => return None,
    })
}

pub(super) fn int_pow_domain_error(p: i64) -> String {
    let q = p.wrapping_neg();
    format!(
        "DomainError with {p}: Cannot raise an integer x to a negative power {p}. Make x or {p} \
         a float by adding a zero decimal (e.g., 2.0^{p} or 2^{pf} instead of 2^{p}) or write \
         1/x^{q}, float(x)^{p}, x^float({p}) or (x//1)^{p}.",
        pf = zy_ir::julia_float(p as f64)
    )
}

/// `x ^ p` for an Int64 `x` and a literal exponent `p` (the case where inference types the
/// result Float64: a negative literal): Julia's `literal_pow` gives `inv(x)` for -1,
/// `inv(x)^2` for -2 and `Float64(x)^p` otherwise.
pub fn literal_pow_int(x: i64, p: i64) -> f64 {
    let xf = x as f64;
    match p {
        -1 => 1.0 / xf,
        -2 => {
            let i = 1.0 / xf;
            i * i
        }
        _ => pow_f64_int(xf, p),
    }
}

/// `x ^ p` on Int64 by squaring, wrapping on overflow; a negative power is a DomainError unless
/// `x` is 1 or -1.
pub fn int_pow(x: i64, p: i64) -> Result<i64, String> {
    if p < 0 {
        return match x {
            1 => Ok(1),
            -1 => Ok(if p % 2 == 0 { 1 } else { -1 }),
            _ => Err(int_pow_domain_error(p)),
        };
    }
    // Multiplication modulo 2^64 is associative, so any squaring order gives Julia's result.
    let mut base = x;
    let mut e = p as u64;
    let mut acc: i64 = 1;
    while e > 0 {
        if e & 1 == 1 {
            acc = acc.wrapping_mul(base);
        }
        base = base.wrapping_mul(base);
        e >>= 1;
    }
    Ok(acc)
}

fn two_mul(x: f64, y: f64) -> (f64, f64) {
    let p = x * y;
    (p, x.mul_add(y, -p))
}

/// Julia's compensated power by squaring (`Base.Math.pow_body(::Float64, ::Integer)`).
fn pow_body_int(x: f64, n: i64) -> f64 {
    let (mut x, mut n) = (x, n);
    let mut y = 1.0f64;
    let (mut xnlo, mut ynlo) = (0.0f64, 0.0f64);
    if n == 3 {
        return x * x * x;
    }
    if n < 0 {
        let rx = 1.0 / x;
        if n == -2 {
            return rx * rx;
        }
        if x.is_finite() {
            xnlo = -x.mul_add(rx, -1.0) * rx;
        }
        x = rx;
        n = -n;
    }
    while n > 1 {
        if n & 1 > 0 {
            let err = y.mul_add(xnlo, x * ynlo);
            let (hi, lo) = two_mul(x, y);
            y = hi;
            ynlo = lo + err;
        }
        let err = x * 2.0 * xnlo;
        let (hi, lo) = two_mul(x, x);
        x = hi;
        xnlo = lo + err;
        n >>= 1;
    }
    let err = y.mul_add(xnlo, x * ynlo);
    if x.is_finite() && err.is_finite() {
        x.mul_add(y, err)
    } else {
        x * y
    }
}

fn use_power_by_squaring(n: i64) -> bool {
    (-(1 << 12)..=3 * (1 << 13)).contains(&n)
}

/// `x ^ n` for Float64 `x` and Int64 `n`: a negative base is fine.
pub fn pow_f64_int(x: f64, n: i64) -> f64 {
    if n == 0 {
        return 1.0;
    }
    if use_power_by_squaring(n) {
        return pow_body_int(x, n);
    }
    let s = if x < 0.0 && n % 2 != 0 { -1.0 } else { 1.0 };
    x.abs().powf(n as f64).copysign(s)
}

/// `x ^ y` for Float64 operands: a negative base with a non-integer exponent is a DomainError.
pub fn pow_f64(x: f64, y: f64) -> Result<f64, String> {
    if x == 1.0 {
        return Ok(1.0);
    }
    const CLAMP: f64 = 6_917_529_027_641_081_856.0; // 0x1.8p62
    let mut y = y;
    if y.abs() >= CLAMP || y.is_nan() {
        if y.is_nan() {
            return Ok(y);
        }
        y = CLAMP.copysign(y);
    }
    let yint = y as i64;
    let yisint = y == yint as f64;
    if yisint {
        if yint == 0 {
            return Ok(1.0);
        }
        if use_power_by_squaring(yint) {
            return Ok(pow_body_int(x, yint));
        }
    }
    if x == 0.0 {
        return Ok(if y > 0.0 { 0.0 } else { f64::INFINITY });
    }
    let mut s = 1.0;
    if x < 0.0 {
        if !yisint {
            return Err(domain_error(
                &Value::F64(x),
                "Exponentiation yielding a complex result requires a complex argument. Replace \
                 x^y with (x+0im)^y, Complex(x)^y, or similar.",
            ));
        }
        if yint % 2 != 0 {
            s = -1.0;
        }
    }
    if !x.is_finite() {
        let signed = x.copysign(s);
        return Ok(if y > 0.0 || x.is_nan() {
            signed
        } else {
            0.0f64.copysign(signed)
        });
    }
    Ok(x.abs().powf(y).copysign(s))
}

/// Exact comparison of an Int64 with a Float64 (`None` for NaN).
fn cmp_int_f64(i: i64, f: f64) -> Option<Ordering> {
    const TWO_63: f64 = 9_223_372_036_854_775_808.0;
    if f.is_nan() {
        return None;
    }
    if f >= TWO_63 {
        return Some(Ordering::Less);
    }
    if f < -TWO_63 {
        return Some(Ordering::Greater);
    }
    let t = f.trunc();
    match i.cmp(&(t as i64)) {
        Ordering::Equal => 0.0f64.partial_cmp(&(f - t)),
        o => Some(o),
    }
}

/// The order of two numbers, exactly and with IEEE semantics (`None` if either is NaN).
pub fn num_cmp(a: &Value, b: &Value) -> Option<Option<Ordering>> {
    // A Float32 compares as its exact Float64.
    if let Value::F32(x) = a {
        return num_cmp(&Value::F64(f64::from(*x)), b);
    }
    if let Value::F32(y) = b {
        return num_cmp(a, &Value::F64(f64::from(*y)));
    }
    let fixed = |v: &Value| matches!(v, Value::Sized(..) | Value::Wide(..));
    if fixed(a) || fixed(b) {
        return super::sized::cmp(a, b);
    }
    Some(match (a, b) {
        (Value::F64(x), Value::F64(y)) => x.partial_cmp(y),
        (Value::F64(x), _) => cmp_int_f64(as_int(b)?, *x).map(Ordering::reverse),
        (_, Value::F64(y)) => cmp_int_f64(as_int(a)?, *y),
        _ => Some(as_int(a)?.cmp(&as_int(b)?)),
    })
}

/// Julia's `max` on Float64: NaN wins, and `max(-0.0, 0.0) == 0.0`.
pub fn julia_max(x: f64, y: f64) -> f64 {
    if y > x || (!y.is_sign_negative() && x.is_sign_negative()) {
        if x.is_nan() {
            x
        } else {
            y
        }
    } else if y.is_nan() {
        y
    } else {
        x
    }
}

/// Julia's `min` on Float64: NaN wins, and `min(-0.0, 0.0) == -0.0`.
pub fn julia_min(x: f64, y: f64) -> f64 {
    if y < x || (y.is_sign_negative() && !x.is_sign_negative()) {
        if x.is_nan() {
            x
        } else {
            y
        }
    } else if y.is_nan() {
        y
    } else {
        x
    }
}

/// `max(a, b)` or `min(a, b)` on numbers.
pub fn max_min(p: Prim, a: &Value, b: &Value) -> Result<Value, String> {
    let is_max = p == Prim::Max;
    if let (Value::F32(x), Value::F32(y)) = (a, b) {
        let (x, y) = (f64::from(*x), f64::from(*y));
        let r = if is_max {
            julia_max(x, y)
        } else {
            julia_min(x, y)
        };
        return Ok(Value::F32(r as f32));
    }
    if let (Value::Sized(k, _) | Value::Wide(k, _), Value::Sized(l, _) | Value::Wide(l, _)) = (a, b)
    {
        if let (true, Some(x), Some(y)) = (k == l, super::sized::exact(a), super::sized::exact(b)) {
            return Ok(if (x < y) == is_max {
                b.clone()
            } else {
                a.clone()
            });
        }
    }
    match promote(a, b) {
        Some(Pair::F(x, y)) => Ok(Value::F64(if is_max {
            julia_max(x, y)
        } else {
            julia_min(x, y)
        })),
        Some(Pair::I(x, y)) => Ok(Value::Int(if is_max { x.max(y) } else { x.min(y) })),
        Some(Pair::B(x, y)) => Ok(Value::Bool(if is_max { x | y } else { x & y })),
        None => Err(method_error(p.julia_name(), &[a.clone(), b.clone()])),
    }
}

/// `copysign(x, y)` on Float64s: `x` with `y`'s sign bit (NaNs included).
pub fn copysign(a: &Value, b: &Value) -> Result<Value, String> {
    match (a, b) {
        (Value::F64(x), Value::F64(y)) => Ok(Value::F64(x.copysign(*y))),
        _ => Err(method_error("copysign", &[a.clone(), b.clone()])),
    }
}

/// `fma(x, y, z)` on Float64s: `x * y + z` with one rounding.
pub fn fma(a: &Value, b: &Value, c: &Value) -> Result<Value, String> {
    match (a, b, c) {
        (Value::F64(x), Value::F64(y), Value::F64(z)) => Ok(Value::F64(x.mul_add(*y, *z))),
        _ => Err(method_error("fma", &[a.clone(), b.clone(), c.clone()])),
    }
}

/// A unary function of one number.
pub fn unary(p: Prim, a: &Value) -> Result<Value, String> {
    let fail = || method_error(p.julia_name(), std::slice::from_ref(a));
    if p == Prim::ToFloat32 {
        return super::single::to_float32(a);
    }
    if let Value::Sized(k, held) = a {
        return super::sized::unary(p, *k, *held, a);
    }
    if let Value::Wide(k, bits) = a {
        return super::wide::unary(p, *k, bits.get(), a);
    }
    if let Value::F32(x) = a {
        return super::single::unary(p, *x, a);
    }
    match (p, a) {
        (Prim::Neg, Value::F64(x)) => Ok(Value::F64(-x)),
        (Prim::Neg, _) => Ok(Value::Int(as_int(a).ok_or_else(fail)?.wrapping_neg())),
        (Prim::Not, Value::Bool(b)) => Ok(Value::Bool(!b)),
        (Prim::Abs, Value::F64(x)) => Ok(Value::F64(x.abs())),
        (Prim::Abs, Value::Int(i)) => Ok(Value::Int(i.wrapping_abs())),
        (Prim::Floor | Prim::Ceil | Prim::Round | Prim::Abs, Value::Int(_) | Value::Bool(_)) => {
            Ok(a.clone())
        }
        (Prim::Floor, Value::F64(x)) => Ok(Value::F64(x.floor())),
        (Prim::Ceil, Value::F64(x)) => Ok(Value::F64(x.ceil())),
        (Prim::Round, Value::F64(x)) => Ok(Value::F64(x.round_ties_even())),
        (Prim::Sign, Value::F64(x)) => Ok(Value::F64(if *x > 0.0 {
            1.0
        } else if *x < 0.0 {
            -1.0
        } else {
            *x
        })),
        (Prim::Sign, Value::Int(i)) => Ok(Value::Int(i.signum())),
        (Prim::Sign, Value::Bool(_)) => Ok(a.clone()),
        (Prim::Float, _) => Ok(Value::F64(as_f64(a).ok_or_else(fail)?)),
        (Prim::ToInt, Value::F64(x)) => f64_to_int(*x)
            .map(Value::Int)
            .ok_or_else(|| format!("InexactError: Int64({})", zy_ir::julia_float(*x))),
        (Prim::ToInt, _) => Ok(Value::Int(as_int(a).ok_or_else(fail)?)),
        (Prim::Zero, Value::F64(_)) => Ok(Value::F64(0.0)),
        (Prim::Zero, Value::Int(_)) => Ok(Value::Int(0)),
        (Prim::Zero, Value::Bool(_)) => Ok(Value::Bool(false)),
        (Prim::One, Value::F64(_)) => Ok(Value::F64(1.0)),
        (Prim::One, Value::Int(_)) => Ok(Value::Int(1)),
        (Prim::One, Value::Bool(_)) => Ok(Value::Bool(true)),
        _ => {
            let x = as_f64(a).ok_or_else(fail)?;
            elementary(p, x).ok_or_else(fail)?.map(Value::F64)
        }
    }
}

/// An elementary function of the primitive table on Float64: its one evaluation, with
/// Julia's DomainError outside its domain.
fn elementary(p: Prim, x: f64) -> Option<Result<f64, String>> {
    let m = p.math()?;
    let y = (m.eval)(x);
    Some(match m.domain.error(x, y) {
        Some(msg) => Err(domain_error(&Value::F64(x), msg)),
        None => Ok(y),
    })
}

/// `polygamma(m, x)` of an Int `m` and a Float64 `x`: `digamma(x)` for `m = 0`, SpecialFunctions'
/// `DomainError` for a negative `m`.
pub fn polygamma(m: &Value, x: &Value) -> Result<Value, String> {
    let (Value::Int(m), Some(x)) = (m, as_f64(x)) else {
        return Err(method_error("polygamma", &[m.clone(), x.clone()]));
    };
    match u32::try_from(*m) {
        Ok(0) => Ok(Value::F64(zy_ir::specfun::digamma(x))),
        Ok(m) => zy_ir::specfun::polygamma(m, x).map(Value::F64).ok_or_else(|| {
            format!(
                "ArgumentError: zy computes polygamma(m, x) of an order m >= 2 for x >= {} only (it sums the terms from x up)",
                zy_ir::julia_float(zy_ir::specfun::POLYGAMMA_LOWEST)
            )
        }),
        Err(_) if *m < 0 => Err(domain_error(
            &Value::Int(*m),
            "`real(m)` must be nonnegative, since the definition in this case is ambiguous.",
        )),
        Err(_) => Ok(Value::F64(f64::NAN)),
    }
}

/// A Bessel function of an order (`besselj(ν, x)`, ...) of numbers: SpecialFunctions'
/// `DomainError` where the value is complex; an `ArgumentError` beyond zy's kernel.
pub fn bessel(p: Prim, nu: &Value, x: &Value) -> Result<Value, String> {
    let (Some((f, scaled)), Some(n), Some(z)) = (p.bessel(), as_f64(nu), as_f64(x)) else {
        return Err(method_error(p.julia_name(), &[nu.clone(), x.clone()]));
    };
    match f.eval(n, z, scaled) {
        Ok(y) => Ok(Value::F64(y)),
        Err(zy_ir::specfun::BesselError::Domain(msg)) => Err(domain_error(&Value::F64(z), msg)),
        Err(zy_ir::specfun::BesselError::TooLarge) => Err(format!(
            "ArgumentError: zy computes {}(nu, x) for x and |nu| up to {} only{}",
            p.julia_name(),
            zy_ir::julia_float(zy_ir::specfun::BESSEL_LARGEST),
            if scaled && matches!(f, zy_ir::specfun::Bessel::I | zy_ir::specfun::Bessel::K) {
                " (and x up to 700, where the unscaled function's exponential overflows)"
            } else {
                ""
            }
        )),
    }
}

/// An incomplete gamma or beta function or the zeta function of numbers (`_gamma_inc_p(a, x)`,
/// `_zeta(s, z)`, ...): the kernel's value, the prelude having checked the domain.
pub fn incomplete(p: Prim, args: &[&Value]) -> Result<Value, String> {
    use zy_ir::specfun;
    let xs: Option<Vec<f64>> = args.iter().map(|v| as_f64(v)).collect();
    let y = match (p, xs.as_deref()) {
        (Prim::GammaIncP, Some(&[a, x])) => specfun::gamma_inc_p(a, x),
        (Prim::GammaIncQ, Some(&[a, x])) => specfun::gamma_inc_q(a, x),
        (Prim::LogUpperGamma, Some(&[a, x])) => specfun::log_upper_gamma(a, x),
        (Prim::BetaInc, Some(&[a, b, x])) => specfun::beta_inc(a, b, x),
        (Prim::Zeta, Some(&[s, z])) => specfun::hurwitz_zeta(s, z),
        _ => {
            let vals: Vec<Value> = args.iter().map(|&v| v.clone()).collect();
            return Err(method_error(p.julia_name(), &vals));
        }
    };
    Ok(Value::F64(y))
}

/// `atan(y, x)`.
pub fn atan2(y: &Value, x: &Value) -> Result<Value, String> {
    match (as_f64(y), as_f64(x)) {
        (Some(a), Some(b)) => Ok(Value::F64(a.atan2(b))),
        _ => Err(method_error("atan", &[y.clone(), x.clone()])),
    }
}
