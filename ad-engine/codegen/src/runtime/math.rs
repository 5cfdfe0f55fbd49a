//! Elementary functions called directly by compiled code: the same Rust `f64` methods the
//! interpreter uses, so results agree to the last bit. Domain errors are checked inline by the
//! caller (the interpreter's slow path raises them).

use zy_interp::Value;
use zy_ir::{Prim, Type};

macro_rules! unary {
    ($($name:ident => $f:expr,)*) => {
        $(
            #[doc = concat!("`", stringify!($name), "` on Float64.")]
            pub extern "C" fn $name(x: f64) -> f64 {
                let f: fn(f64) -> f64 = $f;
                f(x)
            }
        )*
    };
}

unary! {
    zy_rt_sin => f64::sin,
    zy_rt_cos => f64::cos,
    zy_rt_tan => f64::tan,
    zy_rt_exp => f64::exp,
    zy_rt_log => f64::ln,
    zy_rt_log1p => f64::ln_1p,
    zy_rt_tanh => f64::tanh,
    zy_rt_sinh => f64::sinh,
    zy_rt_cosh => f64::cosh,
    zy_rt_asin => f64::asin,
    zy_rt_acos => f64::acos,
    zy_rt_atan => f64::atan,
}

/// `sin(x)` and `cos(x)` returned together (in two registers).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SinCos {
    /// `sin(x)`.
    pub sin: f64,
    /// `cos(x)`.
    pub cos: f64,
}

/// `sin(x)` and `cos(x)` in one evaluation (glibc's `sincos`, which shares the argument
/// reduction and gives the same bits as `sin` and `cos`; elsewhere the two calls).
pub extern "C" fn zy_rt_sincos(x: f64) -> SinCos {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        extern "C" {
            fn sincos(x: f64, s: *mut f64, c: *mut f64);
        }
        let (mut s, mut c) = (0.0, 0.0);
        // SAFETY: glibc's libm (which std links) writes one f64 to each pointer.
        unsafe { sincos(x, &mut s, &mut c) };
        SinCos { sin: s, cos: c }
    }
    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    SinCos {
        sin: x.sin(),
        cos: x.cos(),
    }
}

/// `x ^ n` for Float64 `x` and Int64 `n` (never an error), by the interpreter's own code.
pub extern "C" fn zy_rt_powi(x: f64, n: i64) -> f64 {
    match zy_interp::eval_prim(Prim::Pow, &[Value::F64(x), Value::Int(n)], &Type::Float64) {
        Ok(Value::F64(r)) => r,
        _ => f64::NAN,
    }
}

/// The runtime symbol of an elementary function of one Float64.
pub fn unary_symbol(p: Prim) -> Option<&'static str> {
    Some(match p {
        Prim::Sin => "zy_rt_sin",
        Prim::Cos => "zy_rt_cos",
        Prim::Tan => "zy_rt_tan",
        Prim::Exp => "zy_rt_exp",
        Prim::Log => "zy_rt_log",
        Prim::Log1p => "zy_rt_log1p",
        Prim::Tanh => "zy_rt_tanh",
        Prim::Sinh => "zy_rt_sinh",
        Prim::Cosh => "zy_rt_cosh",
        Prim::Asin => "zy_rt_asin",
        Prim::Acos => "zy_rt_acos",
        Prim::Atan => "zy_rt_atan",
        _ => return None,
    })
}

/// The math symbols with their addresses.
pub fn symbols() -> Vec<(&'static str, *const u8)> {
    vec![
        ("zy_rt_sin", zy_rt_sin as *const u8),
        ("zy_rt_cos", zy_rt_cos as *const u8),
        ("zy_rt_tan", zy_rt_tan as *const u8),
        ("zy_rt_exp", zy_rt_exp as *const u8),
        ("zy_rt_log", zy_rt_log as *const u8),
        ("zy_rt_log1p", zy_rt_log1p as *const u8),
        ("zy_rt_tanh", zy_rt_tanh as *const u8),
        ("zy_rt_sinh", zy_rt_sinh as *const u8),
        ("zy_rt_cosh", zy_rt_cosh as *const u8),
        ("zy_rt_asin", zy_rt_asin as *const u8),
        ("zy_rt_acos", zy_rt_acos as *const u8),
        ("zy_rt_atan", zy_rt_atan as *const u8),
        ("zy_rt_powi", zy_rt_powi as *const u8),
        ("zy_rt_sincos", zy_rt_sincos as *const u8),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sincos_gives_the_bits_of_sin_and_cos() {
        let mut xs = vec![
            0.0,
            -0.0,
            1.0,
            -1.0,
            1e-310,
            1e300,
            -1e22,
            f64::MAX,
            f64::NAN,
        ];
        let mut state = 0x9e37_79b9_7f4a_7c15_u64;
        for _ in 0..100_000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            xs.push(f64::from_bits(state));
            xs.push((state >> 11) as f64 / (1u64 << 53) as f64 * 40.0 - 20.0);
        }
        for x in xs {
            let SinCos { sin, cos } = zy_rt_sincos(x);
            let same = |a: f64, b: f64| a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan());
            assert!(same(sin, x.sin()) && same(cos, x.cos()), "{x:e}");
        }
    }
}
