//! Arithmetic of `Int128` and `UInt128`: operands of one type (inference promotes them
//! first), `+ - * ^` wrapping at 128 bits as Julia's intrinsics wrap, `÷ %` of the signed or
//! unsigned value (Julia's `DivideError` on zero and on `typemin(Int128) ÷ -1`).

use std::cmp::Ordering;

use zy_ir::{IntKind, Prim};

use super::method_error;
use super::sized::{divide_error, exact, make};
use crate::value::Value;
use crate::wide::Exact;

/// The bits of a value of the wide type `k`.
fn bits(k: IntKind, v: &Value) -> Option<u128> {
    match v {
        Value::Wide(l, b) if *l == k => Some(b.get()),
        _ => None,
    }
}

/// `a op b` of two integers of the wide type `k` (`+ - * ÷ % ^`, and `/` as Float64).
pub(super) fn arith(p: Prim, k: IntKind, a: &Value, b: &Value) -> Result<Value, String> {
    let fail = || method_error(p.julia_name(), &[a.clone(), b.clone()]);
    let x = bits(k, a).ok_or_else(fail)?;
    let same = |r: u128| Ok(make(Some(k), r));
    if p == Prim::Pow {
        let n = exact(b).and_then(Exact::to_i128).ok_or_else(fail)?;
        let n = i64::try_from(n).map_err(|_| fail())?;
        return match (n < 0, Exact::of(k, x).to_i128()) {
            // Only 1 (and a signed -1) has negative powers.
            (true, Some(1)) => same(1),
            (true, Some(-1)) => same(if n % 2 == 0 { 1 } else { u128::MAX }),
            (true, _) => Err(super::scalar::int_pow_domain_error(n)),
            (false, _) => same(pow(x, n as u64)),
        };
    }
    let y = bits(k, b).ok_or_else(fail)?;
    let (sx, sy) = (x as i128, y as i128);
    match p {
        Prim::Add => same(x.wrapping_add(y)),
        Prim::Sub => same(x.wrapping_sub(y)),
        Prim::Mul => same(x.wrapping_mul(y)),
        Prim::Div => Ok(Value::F64(
            Exact::of(k, x).to_f64() / Exact::of(k, y).to_f64(),
        )),
        Prim::IntDiv | Prim::Rem if y == 0 => Err(divide_error()),
        // `typemin(Int128) ÷ -1` overflows: Julia's `checked_sdiv_int` throws.
        Prim::IntDiv if k.signed() => sx
            .checked_div(sy)
            .map_or_else(|| Err(divide_error()), |r| same(r as u128)),
        Prim::IntDiv => same(x / y),
        // `typemin(Int128) % -1 == 0`.
        Prim::Rem if k.signed() => same(sx.wrapping_rem(sy) as u128),
        Prim::Rem => same(x % y),
        _ => Err(fail()),
    }
}

/// `x ^ n` by squaring, wrapping at 128 bits (the same bits for a signed or unsigned `x`).
fn pow(mut x: u128, mut n: u64) -> u128 {
    let mut r: u128 = 1;
    while n > 0 {
        if n & 1 == 1 {
            r = r.wrapping_mul(x);
        }
        x = x.wrapping_mul(x);
        n >>= 1;
    }
    r
}

/// A unary operation of a value of the wide type `k` whose bits are `x`.
pub(super) fn unary(p: Prim, k: IntKind, x: u128, a: &Value) -> Result<Value, String> {
    let v = Exact::of(k, x);
    let same = |r: u128| Ok(make(Some(k), r));
    match p {
        Prim::Neg => same(x.wrapping_neg()),
        Prim::Abs if v.negative() => same(x.wrapping_neg()),
        Prim::Abs | Prim::Floor | Prim::Ceil | Prim::Round => Ok(a.clone()),
        Prim::Sign => same(match v.cmp(&Exact::signed(0)) {
            Ordering::Less => u128::MAX,
            Ordering::Equal => 0,
            Ordering::Greater => 1,
        }),
        Prim::Float => Ok(Value::F64(v.to_f64())),
        Prim::Zero => same(0),
        Prim::One => same(1),
        Prim::ToInt => super::sized::convert(None, a),
        _ => Err(method_error(p.julia_name(), std::slice::from_ref(a))),
    }
}

/// The bit intrinsics (`and_int`, `or_int`, `xor_int`; shifts by `n mod 128`) of two values
/// of the wide type `k`.
pub(super) fn int_bits(p: Prim, k: IntKind, x: u128, y: u128) -> Value {
    let n = (y & 127) as u32;
    let r = match p {
        Prim::AndInt => x & y,
        Prim::OrInt => x | y,
        Prim::XorInt => x ^ y,
        Prim::ShlInt => x << n,
        Prim::AshrInt => ((x as i128) >> n) as u128,
        _ => x >> n,
    };
    make(Some(k), r)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wide::Bits128;
    use proptest::prelude::*;

    fn int128(v: i128) -> Value {
        Value::Wide(IntKind::Int128, Bits128::new(v as u128))
    }

    fn uint128(v: u128) -> Value {
        Value::Wide(IntKind::UInt128, Bits128::new(v))
    }

    fn held(v: &Value) -> u128 {
        match v {
            Value::Wide(_, b) => b.get(),
            _ => panic!("not a wide integer: {v:?}"),
        }
    }

    #[test]
    fn wraps_and_divides_as_julia() {
        let max = int128(i128::MAX);
        let one = int128(1);
        let sum = arith(Prim::Add, IntKind::Int128, &max, &one).unwrap();
        assert_eq!(held(&sum) as i128, i128::MIN);
        let min = int128(i128::MIN);
        assert!(arith(Prim::IntDiv, IntKind::Int128, &min, &int128(-1)).is_err());
        let r = arith(Prim::Rem, IntKind::Int128, &min, &int128(-1)).unwrap();
        assert_eq!(held(&r), 0);
        let two = int128(2);
        let p = arith(Prim::Pow, IntKind::Int128, &two, &Value::Int(127)).unwrap();
        assert_eq!(held(&p) as i128, i128::MIN);
        assert!(arith(Prim::Pow, IntKind::Int128, &two, &Value::Int(-1)).is_err());
        let m = unary(Prim::Neg, IntKind::UInt128, 1, &uint128(1)).unwrap();
        assert_eq!(held(&m), u128::MAX);
    }

    proptest! {
        #[test]
        fn signed_arithmetic_is_rusts_wrapping(x: i128, y: i128) {
            let (a, b) = (int128(x), int128(y));
            let k = IntKind::Int128;
            prop_assert_eq!(held(&arith(Prim::Add, k, &a, &b).unwrap()) as i128, x.wrapping_add(y));
            prop_assert_eq!(held(&arith(Prim::Sub, k, &a, &b).unwrap()) as i128, x.wrapping_sub(y));
            prop_assert_eq!(held(&arith(Prim::Mul, k, &a, &b).unwrap()) as i128, x.wrapping_mul(y));
            if y != 0 && !(x == i128::MIN && y == -1) {
                prop_assert_eq!(held(&arith(Prim::IntDiv, k, &a, &b).unwrap()) as i128, x / y);
                prop_assert_eq!(held(&arith(Prim::Rem, k, &a, &b).unwrap()) as i128, x % y);
            }
        }

        #[test]
        fn unsigned_arithmetic_is_rusts_wrapping(x: u128, y: u128, n in 0u32..300) {
            let (a, b) = (uint128(x), uint128(y));
            let k = IntKind::UInt128;
            prop_assert_eq!(held(&arith(Prim::Add, k, &a, &b).unwrap()), x.wrapping_add(y));
            prop_assert_eq!(held(&arith(Prim::Mul, k, &a, &b).unwrap()), x.wrapping_mul(y));
            if y != 0 {
                prop_assert_eq!(held(&arith(Prim::IntDiv, k, &a, &b).unwrap()), x / y);
                prop_assert_eq!(held(&arith(Prim::Rem, k, &a, &b).unwrap()), x % y);
            }
            let p = arith(Prim::Pow, k, &a, &Value::Int(i64::from(n))).unwrap();
            prop_assert_eq!(held(&p), x.wrapping_pow(n));
        }
    }
}
