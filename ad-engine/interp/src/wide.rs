//! The values of `Int128` and `UInt128` (held as their 128 bits) and the exact value of any
//! integer zy holds, which orders integers of different types as Julia compares them.

use std::cmp::Ordering;
use std::fmt;

use zy_ir::IntKind;

/// The two's complement bits of an `Int128` or `UInt128`, aligned as an `i64` so that a
/// [`crate::value::Value`] holding one is no larger than one holding two shared slices.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
#[repr(C, packed(8))]
pub struct Bits128(u128);

impl Bits128 {
    /// The holder of `bits`.
    pub fn new(bits: u128) -> Bits128 {
        Bits128(bits)
    }

    /// The bits held.
    pub fn get(self) -> u128 {
        self.0
    }
}

impl fmt::Debug for Bits128 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:#x}", self.get())
    }
}

/// An integer of any of zy's integer types, exactly (from `typemin(Int128)` to
/// `typemax(UInt128)`): its sign and its two's complement bits, ordered by value.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
pub struct Exact {
    nonnegative: bool,
    bits: u128,
}

impl Exact {
    /// The integer `v`.
    pub fn signed(v: i128) -> Exact {
        Exact {
            nonnegative: v >= 0,
            bits: v as u128,
        }
    }

    /// The nonnegative integer `v`.
    pub fn unsigned(v: u128) -> Exact {
        Exact {
            nonnegative: true,
            bits: v,
        }
    }

    /// The value of type `k` whose bits are `bits`.
    pub fn of(k: IntKind, bits: u128) -> Exact {
        let shift = 128 - k.bits();
        if k.signed() {
            Exact::signed(((bits << shift) as i128) >> shift)
        } else {
            Exact::unsigned((bits << shift) >> shift)
        }
    }

    /// `typemin` of the integer type `k` (`None`: `Int64`).
    pub fn min_of(k: Option<IntKind>) -> Exact {
        Exact::signed(k.map_or(i128::from(i64::MIN), IntKind::min))
    }

    /// `typemax` of the integer type `k` (`None`: `Int64`).
    pub fn max_of(k: Option<IntKind>) -> Exact {
        Exact::unsigned(k.map_or(i64::MAX as u128, IntKind::max))
    }

    /// The two's complement bits (of a negative value, sign-extended to 128 bits).
    pub fn bits(self) -> u128 {
        self.bits
    }

    /// Is the value below zero?
    pub fn negative(self) -> bool {
        !self.nonnegative
    }

    /// The value as an `i128`, if it is one.
    pub fn to_i128(self) -> Option<i128> {
        let v = self.bits as i128;
        (self.nonnegative == (v >= 0)).then_some(v)
    }

    /// The nearest Float64 (ties to even), as Julia's `Float64(x)` rounds.
    pub fn to_f64(self) -> f64 {
        if self.nonnegative {
            self.bits as f64
        } else {
            self.bits as i128 as f64
        }
    }

    /// The order of this integer and the Float64 `f`, exactly (`None` if `f` is NaN).
    pub fn cmp_f64(self, f: f64) -> Option<Ordering> {
        const TWO_128: f64 = 340_282_366_920_938_463_463_374_607_431_768_211_456.0;
        const TWO_127: f64 = 170_141_183_460_469_231_731_687_303_715_884_105_728.0;
        if f.is_nan() {
            return None;
        }
        if f >= TWO_128 {
            return Some(Ordering::Less);
        }
        if f < -TWO_127 {
            return Some(Ordering::Greater);
        }
        // Within the range, the integer part of `f` is exactly an `Exact`.
        let t = f.trunc();
        let whole = if t < 0.0 {
            Exact::signed(t as i128)
        } else {
            Exact::unsigned(t as u128)
        };
        match self.cmp(&whole) {
            Ordering::Equal => 0.0f64.partial_cmp(&(f - t)),
            o => Some(o),
        }
    }
}

impl fmt::Display for Exact {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.nonnegative {
            write!(f, "{}", self.bits)
        } else {
            write!(f, "{}", self.bits as i128)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn orders_by_value_across_types() {
        let minus_one = Exact::signed(-1);
        let max = Exact::unsigned(u128::MAX);
        assert!(minus_one < Exact::signed(0));
        assert!(Exact::signed(i128::MIN) < minus_one);
        assert!(Exact::signed(i128::MAX) < max);
        assert_eq!(Exact::of(IntKind::Int128, u128::MAX), minus_one);
        assert_eq!(Exact::of(IntKind::UInt128, u128::MAX), max);
        assert_eq!(max.to_string(), u128::MAX.to_string());
        assert_eq!(minus_one.to_i128(), Some(-1));
        assert_eq!(max.to_i128(), None);
    }

    #[test]
    fn compares_with_floats_exactly() {
        let big = Exact::unsigned(1u128 << 100);
        assert_eq!(big.cmp_f64(2f64.powi(100)), Some(Ordering::Equal));
        assert_eq!(
            big.cmp_f64(2f64.powi(100) + 2f64.powi(60)),
            Some(Ordering::Less)
        );
        assert_eq!(Exact::signed(-3).cmp_f64(-2.5), Some(Ordering::Less));
        assert_eq!(
            Exact::unsigned(u128::MAX).cmp_f64(f64::INFINITY),
            Some(Ordering::Less)
        );
        assert_eq!(
            Exact::signed(i128::MIN).cmp_f64(-2f64.powi(127)),
            Some(Ordering::Equal)
        );
        assert_eq!(Exact::signed(0).cmp_f64(f64::NAN), None);
    }
}
