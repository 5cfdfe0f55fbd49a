//! Julia's fixed-width integer types other than `Int64` (and `Bool`): their names, widths and
//! the wrap-around and promotion rules Julia gives them.
//!
//! A value of one of at most 64 bits is held in an `i64`: a signed type's value
//! sign-extended, an unsigned type's zero-extended, so that a `UInt64` above `typemax(Int64)`
//! is its bits. A value of `Int128` or `UInt128` (the wide kinds) is held as its 128 bits.

use std::fmt;

/// A fixed-width integer type other than `Int64`: `Type::Int(k)`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub enum IntKind {
    Int8,
    Int16,
    Int32,
    UInt8,
    UInt16,
    UInt32,
    UInt64,
    Int128,
    UInt128,
}

impl IntKind {
    /// Every kind, in declaration order.
    pub const ALL: [IntKind; 9] = [
        IntKind::Int8,
        IntKind::Int16,
        IntKind::Int32,
        IntKind::UInt8,
        IntKind::UInt16,
        IntKind::UInt32,
        IntKind::UInt64,
        IntKind::Int128,
        IntKind::UInt128,
    ];

    /// Julia's name of the type.
    pub fn name(self) -> &'static str {
        match self {
            IntKind::Int8 => "Int8",
            IntKind::Int16 => "Int16",
            IntKind::Int32 => "Int32",
            IntKind::UInt8 => "UInt8",
            IntKind::UInt16 => "UInt16",
            IntKind::UInt32 => "UInt32",
            IntKind::UInt64 => "UInt64",
            IntKind::Int128 => "Int128",
            IntKind::UInt128 => "UInt128",
        }
    }

    /// The kind Julia's name `name` stands for (`UInt` is `UInt64` on 64-bit machines).
    pub fn from_name(name: &str) -> Option<IntKind> {
        let name = name.strip_prefix("Base.").unwrap_or(name);
        if name == "UInt" {
            return Some(IntKind::UInt64);
        }
        IntKind::ALL.into_iter().find(|k| k.name() == name)
    }

    /// The width in bits.
    pub fn bits(self) -> u32 {
        match self {
            IntKind::Int8 | IntKind::UInt8 => 8,
            IntKind::Int16 | IntKind::UInt16 => 16,
            IntKind::Int32 | IntKind::UInt32 => 32,
            IntKind::UInt64 => 64,
            IntKind::Int128 | IntKind::UInt128 => 128,
        }
    }

    /// Is this a `Signed` type?
    pub fn signed(self) -> bool {
        matches!(
            self,
            IntKind::Int8 | IntKind::Int16 | IntKind::Int32 | IntKind::Int128
        )
    }

    /// Is this `Int128` or `UInt128`, whose values an `i64` does not hold?
    pub fn wide(self) -> bool {
        self.bits() == 128
    }

    /// `typemin` of the type.
    pub fn min(self) -> i128 {
        if self.signed() {
            i128::MIN >> (128 - self.bits())
        } else {
            0
        }
    }

    /// `typemax` of the type.
    pub fn max(self) -> u128 {
        if self.signed() {
            (1u128 << (self.bits() - 1)) - 1
        } else {
            u128::MAX >> (128 - self.bits())
        }
    }

    /// The value of the type whose bits are the low bits of `v` (Julia's `v % T`: two's
    /// complement truncation), held as this module says; of a wide kind, the low 64 bits
    /// (its values are held whole elsewhere).
    pub fn wrap(self, v: i128) -> i64 {
        let bits = self.bits().min(64);
        let low = (v as u128) & (u128::MAX >> (128 - bits));
        if self.signed() && bits < 64 && low >> (bits - 1) == 1 {
            (low as i128 - (1i128 << bits)) as i64
        } else {
            low as u64 as i64
        }
    }

    /// The number a held value of a kind of at most 64 bits stands for.
    pub fn value(self, held: i64) -> i128 {
        if self == IntKind::UInt64 {
            i128::from(held as u64)
        } else {
            i128::from(held)
        }
    }
}

/// Julia's `promote_type` of two integer types, each an [`IntKind`] or `None` for `Int64`:
/// the wider, and of two of one width the unsigned one; `None` for `Int64`.
pub fn promote_ints(a: Option<IntKind>, b: Option<IntKind>) -> Option<IntKind> {
    let width = |k: Option<IntKind>| k.map_or(64, IntKind::bits);
    let unsigned = |k: Option<IntKind>| k.is_some_and(|k| !k.signed());
    match (width(a).cmp(&width(b)), unsigned(a), unsigned(b)) {
        (std::cmp::Ordering::Greater, ..) => a,
        (std::cmp::Ordering::Less, ..) => b,
        (_, true, _) => a,
        _ => b,
    }
}

/// Julia's `show` of a value of the type: an unsigned one in hexadecimal with two digits a
/// byte (`0x1f`, `0x00ff`), a signed one in decimal.
pub fn show_int(k: IntKind, held: i64) -> String {
    show_bits(k, k.value(held) as u128)
}

/// Julia's `show` of the value of type `k` whose two's complement bits are `bits`.
pub fn show_bits(k: IntKind, bits: u128) -> String {
    let mask = u128::MAX >> (128 - k.bits());
    if k.signed() {
        // Sign-extend the type's bits.
        let shift = 128 - k.bits();
        (((bits << shift) as i128) >> shift).to_string()
    } else {
        let digits = (k.bits() / 4) as usize;
        format!("0x{:0digits$x}", bits & mask)
    }
}

impl fmt::Display for IntKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wraps_as_twos_complement() {
        assert_eq!(IntKind::UInt8.wrap(300), 44);
        assert_eq!(IntKind::UInt8.wrap(-1), 255);
        assert_eq!(IntKind::Int8.wrap(200), -56);
        assert_eq!(IntKind::Int32.wrap(1 << 31), i64::from(i32::MIN));
        assert_eq!(
            IntKind::UInt64.value(IntKind::UInt64.wrap(-1)),
            i128::from(u64::MAX)
        );
    }

    #[test]
    fn promotion_is_julias() {
        use IntKind::*;
        assert_eq!(promote_ints(Some(UInt8), None), None);
        assert_eq!(promote_ints(Some(UInt64), None), Some(UInt64));
        assert_eq!(promote_ints(Some(Int8), Some(UInt16)), Some(UInt16));
        assert_eq!(promote_ints(Some(Int32), Some(UInt32)), Some(UInt32));
        assert_eq!(promote_ints(Some(Int32), Some(UInt8)), Some(Int32));
        assert_eq!(promote_ints(None, Some(Int128)), Some(Int128));
        assert_eq!(promote_ints(Some(UInt64), Some(Int128)), Some(Int128));
        assert_eq!(promote_ints(Some(Int128), Some(UInt128)), Some(UInt128));
    }

    #[test]
    fn shows_as_julia() {
        assert_eq!(show_int(IntKind::UInt8, 31), "0x1f");
        assert_eq!(show_int(IntKind::UInt16, 255), "0x00ff");
        assert_eq!(show_int(IntKind::Int32, -3), "-3");
        assert_eq!(show_int(IntKind::UInt64, -1), "0xffffffffffffffff");
        assert_eq!(show_bits(IntKind::Int128, u128::MAX), "-1");
        assert_eq!(
            show_bits(IntKind::UInt128, 255),
            "0x000000000000000000000000000000ff"
        );
    }
}
