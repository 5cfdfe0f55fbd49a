//! Operations: what a statement does. Untyped IR calls functions by name; inference resolves each
//! call to a [`Prim`] (a builtin with a hand-written rule) or an [`Instance`] of a user method.

use std::fmt;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

pub use crate::prim::Prim;
use crate::types::{Name, StructType, Type};

/// The operation of a statement. Its operands are the statement's `args`.
#[derive(Clone, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
pub enum Op {
    /// Untyped: call the generic function with this name (user-defined or builtin, including
    /// operators: `+`, `getindex`, `tuple`, `Ref`, `broadcast`, ...).
    Call(Name),
    /// Untyped: call `args[0]` (a closure, a callable struct, a function value) with the rest.
    CallValue,
    /// Untyped: build the closure environment named here from the captured values in `args`.
    Closure(Name),
    /// Load a top-level binding (`const N = 3`, `sq = x -> x^2`).
    Global(Name),
    /// Typed: a builtin operation; semantics depend on the operand types.
    #[serde(skip)]
    Prim(Prim),
    /// Typed: construct a struct or closure environment of this type from its field values.
    #[serde(skip)]
    New(StructRef),
    /// Typed: call a specialisation of a user method. For a callable struct or closure, `args[0]`
    /// is the callee value (the hidden zeroth argument).
    #[serde(skip)]
    Invoke(Arc<Instance>),
}

/// `Instance::method` of the synthesised bodies of `map`, `sum` and `broadcast` over a user
/// function (their `Instance::name` is the builtin's name).
pub const SYNTH_METHOD: u32 = u32::MAX;

/// The untyped call `isdefined_global(:x)` that lowering makes of Julia's `@isdefined(x)` of a
/// name that is no local: resolution qualifies the symbol, inference answers whether the
/// program defines that global.
pub const ISDEFINED_GLOBAL: &str = "isdefined_global";

/// `Instance::method` of a top-level binding's thunk (`Instance::name` is the binding's name,
/// with no arguments).
pub const GLOBAL_METHOD: u32 = u32::MAX - 1;

/// One specialisation of a user method on concrete argument types: the unit of inference,
/// differentiation and compilation.
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Instance {
    /// The generic function's name (`f`; `(::Dense)` for a callable struct's call method).
    pub name: Name,
    /// Which method of the generic function (index into its method list).
    pub method: u32,
    /// Concrete argument types, including the callee's for callable structs and closures.
    pub args: Arc<[Type]>,
}

impl fmt::Display for Instance {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}(", self.name)?;
        for (i, t) in self.args.iter().enumerate() {
            if i > 0 {
                write!(f, ", ")?;
            }
            write!(f, "::")?;
            fmt::Display::fmt(t, f)?;
        }
        write!(f, ")")
    }
}

impl fmt::Debug for Instance {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// A resolved struct type, as carried by [`Op::New`].
pub type StructRef = Arc<StructType>;

/// Julia 1.11's `hash(s, h)` of a `String` (base/hashing.jl: `memhash_seed` of its bytes
/// seeded by the low 32 bits of `h + 0x71e729fd56419c81`, plus that sum), the UInt64 as an
/// Int's bits: the prelude's `Dict` places its string keys by it (`_string_hash(s, h)` when the
/// program runs, a constant where inference knows the string).
pub fn string_hash(text: &str, h: i64) -> i64 {
    let h = (h as u64).wrapping_add(0x71e7_29fd_5641_9c81);
    let [_, mixed] = murmur3_x64_128(text.as_bytes(), h as u32);
    mixed.wrapping_add(h) as i64
}

/// Julia 1.11's `objectid` of a `Symbol` (its `hash(s)`, src/symbol.c's `hash_symbol`): the
/// `int64hash` mix of minus its name's `memhash` xor `0xaaaa...`.
pub fn symbol_hash(name: &str) -> i64 {
    let [_, memhash] = murmur3_x64_128(name.as_bytes(), 0xcafe_8881);
    int64hash((memhash ^ 0xaaaa_aaaa_aaaa_aaaa).wrapping_neg()) as i64
}

/// Julia 1.11's `hash(x::Int64, h)` (base/float.jl: `hx(abs(x), Float64(x), h)`), the UInt64
/// as an Int's bits.
pub fn int_hash(x: i64, h: i64) -> i64 {
    hx(x.unsigned_abs(), x as f64, h)
}

/// Julia 1.11's `hash(x::Float64, h)`: `hx(fptoui(UInt64, abs(x)), x, h)`, every NaN one hash.
/// Julia's `fptoui` of `2^64` and more is the machine's; this is x86-64's (0).
pub fn float_hash(x: f64, h: i64) -> i64 {
    if x.is_nan() {
        return hx(0, f64::NAN, 0) ^ h;
    }
    let a = x.abs();
    let whole = if a < 18_446_744_073_709_551_616.0 {
        a as u64
    } else {
        0
    };
    hx(whole, x, h)
}

/// Julia's `hx(a, b, h)`: the hash of a number of integer part `a` and Float64 value `b`.
fn hx(a: u64, b: f64, h: i64) -> i64 {
    let k = a
        .wrapping_mul(3)
        .wrapping_add(b.to_bits())
        .wrapping_sub(h as u64);
    int64hash(k) as i64
}

/// Thomas Wang's 64-bit mix (Julia's `int64hash`, `hash_64_64`).
pub fn int64hash(mut key: u64) -> u64 {
    key = (!key).wrapping_add(key << 21);
    key ^= key >> 24;
    key = key.wrapping_add(key << 3).wrapping_add(key << 8);
    key ^= key >> 14;
    key = key.wrapping_add(key << 2).wrapping_add(key << 4);
    key ^= key >> 28;
    key.wrapping_add(key << 31)
}

/// MurmurHash3's 128-bit hash for x64 (Austin Appleby's, as src/support/MurmurHash3.c has it):
/// the two 64-bit halves.
fn murmur3_x64_128(data: &[u8], seed: u32) -> [u64; 2] {
    const C1: u64 = 0x87c3_7b91_1142_53d5;
    const C2: u64 = 0x4cf5_ad43_2745_937f;
    let mix1 = |k: u64| k.wrapping_mul(C1).rotate_left(31).wrapping_mul(C2);
    let mix2 = |k: u64| k.wrapping_mul(C2).rotate_left(33).wrapping_mul(C1);
    let word = |bytes: &[u8]| {
        bytes
            .iter()
            .rev()
            .fold(0u64, |w, &b| (w << 8) | u64::from(b))
    };
    let (mut h1, mut h2) = (u64::from(seed), u64::from(seed));
    let mut blocks = data.chunks_exact(16);
    for block in &mut blocks {
        h1 ^= mix1(word(&block[..8]));
        h1 = h1
            .rotate_left(27)
            .wrapping_add(h2)
            .wrapping_mul(5)
            .wrapping_add(0x52dc_e729);
        h2 ^= mix2(word(&block[8..]));
        h2 = h2
            .rotate_left(31)
            .wrapping_add(h1)
            .wrapping_mul(5)
            .wrapping_add(0x3849_5ab5);
    }
    let tail = blocks.remainder();
    if tail.len() > 8 {
        h2 ^= mix2(word(&tail[8..]));
    }
    if !tail.is_empty() {
        h1 ^= mix1(word(&tail[..tail.len().min(8)]));
    }
    let n = data.len() as u64;
    h1 ^= n;
    h2 ^= n;
    h1 = h1.wrapping_add(h2);
    h2 = h2.wrapping_add(h1);
    h1 = fmix64(h1);
    h2 = fmix64(h2);
    h1 = h1.wrapping_add(h2);
    h2 = h2.wrapping_add(h1);
    [h1, h2]
}

/// MurmurHash3's finaliser.
fn fmix64(mut k: u64) -> u64 {
    k ^= k >> 33;
    k = k.wrapping_mul(0xff51_afd7_ed55_8ccd);
    k ^= k >> 33;
    k = k.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    k ^ (k >> 33)
}

#[cfg(test)]
mod hash_tests {
    use super::*;

    #[test]
    fn murmur3_gives_the_reference_digests() {
        assert_eq!(murmur3_x64_128(b"", 0), [0, 0]);
        assert_eq!(
            murmur3_x64_128(b"hello", 0),
            [0xcbd8_a7b3_41bd_9b02, 0x5b1e_906a_48ae_1d19]
        );
        let fox = b"The quick brown fox jumps over the lazy dog";
        assert_eq!(
            murmur3_x64_128(fox, 0),
            [0xe34b_bc7b_bc07_1b6c, 0x7a43_3ca9_c49a_9347]
        );
    }

    /// Julia's Random (Xoshiro's `forkRand`) names `hash(UInt(1)) | 1 == 0x02011ce34bce797f`
    /// and `hash(UInt(2)) | 1 == 0x5a94851fb48a6e05`: `int64hash(3n + bits(Float64(n)))`.
    #[test]
    fn int64hash_is_julias_hash_of_an_integer() {
        let hash = |n: u64| int64hash(3 * n + (n as f64).to_bits()) | 1;
        assert_eq!(hash(1), 0x0201_1ce3_4bce_797f);
        assert_eq!(hash(2), 0x5a94_851f_b48a_6e05);
        assert_eq!(int_hash(1, 0) | 1, 0x0201_1ce3_4bce_797f);
        assert_eq!(float_hash(3.0, 0) | 1, 0x3688_cf5d_4889_9fa7);
        assert_eq!(int_hash(-4, 7), float_hash(-4.0, 7));
        assert_ne!(float_hash(0.0, 0), float_hash(-0.0, 0));
        assert_eq!(float_hash(f64::NAN, 5), float_hash(-f64::NAN, 5));
    }
}
