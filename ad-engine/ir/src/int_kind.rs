//! Julia's fixed-width integer types other than `Int64` (and `Bool`): their names, widths and
//! the wrap-around and promotion rules Julia gives them.
//!
//! A value of one is held in an `i64`: a signed type's value sign-extended, an unsigned
//! type's zero-extended, so that a `UInt64` above `typemax(Int64)` is its bits. `Int128` and
//! `UInt128` are not among them (their values do not fit) and stay refused by name.

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
}

impl IntKind {
    /// Every kind, in declaration order.
    pub const ALL: [IntKind; 7] = [
        IntKind::Int8,
        IntKind::Int16,
        IntKind::Int32,
        IntKind::UInt8,
        IntKind::UInt16,
        IntKind::UInt32,
        IntKind::UInt64,
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
        }
    }

    /// Is this a `Signed` type?
    pub fn signed(self) -> bool {
        matches!(self, IntKind::Int8 | IntKind::Int16 | IntKind::Int32)
    }

    /// `typemin` of the type.
    pub fn min(self) -> i128 {
        if self.signed() {
            -(1i128 << (self.bits() - 1))
        } else {
            0
        }
    }

    /// `typemax` of the type.
    pub fn max(self) -> i128 {
        if self.signed() {
            (1i128 << (self.bits() - 1)) - 1
        } else {
            (1i128 << self.bits()) - 1
        }
    }

    /// The value of the type whose bits are the low bits of `v` (Julia's `v % T`: two's
    /// complement truncation), held as this module says.
    pub fn wrap(self, v: i128) -> i64 {
        let bits = self.bits();
        let low = (v as u128) & (u128::MAX >> (128 - bits));
        if self.signed() && low >> (bits - 1) == 1 {
            (low as i128 - (1i128 << bits)) as i64
        } else {
            low as u64 as i64
        }
    }

    /// The number a held value stands for.
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
    if k.signed() {
        held.to_string()
    } else {
        let digits = (k.bits() / 4) as usize;
        format!("0x{:0digits$x}", k.value(held))
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
    }

    #[test]
    fn shows_as_julia() {
        assert_eq!(show_int(IntKind::UInt8, 31), "0x1f");
        assert_eq!(show_int(IntKind::UInt16, 255), "0x00ff");
        assert_eq!(show_int(IntKind::Int32, -3), "-3");
        assert_eq!(show_int(IntKind::UInt64, -1), "0xffffffffffffffff");
    }
}
