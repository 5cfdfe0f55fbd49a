//! Elementary functions called directly by compiled code: the same Rust `f64` methods the
//! interpreter uses, so results agree to the last bit. Domain errors are checked inline by the
//! caller (the interpreter's slow path raises them).

use zy_interp::Value;
use zy_ir::{specfun, Jit, Prim, Type};

macro_rules! unary {
    ($($name:ident => $prim:ident, $method:path,)*) => {
        $(
            #[doc = concat!("[`Prim::", stringify!($prim), "`] on Float64: `", stringify!($method), "`, its evaluation in the primitive table (a test holds them to the same bits).")]
            pub extern "C" fn $name(x: f64) -> f64 {
                $method(x)
            }
        )*

        /// The elementary functions' symbols with their addresses.
        fn unary_symbols() -> Vec<(&'static str, *const u8)> {
            vec![$((stringify!($name), $name as *const u8),)*]
        }

        /// Each symbol's function with its primitive (for the test against the table).
        #[cfg(test)]
        fn unary_functions() -> Vec<(Prim, extern "C" fn(f64) -> f64)> {
            vec![$((Prim::$prim, $name as extern "C" fn(f64) -> f64),)*]
        }
    };
}

// One line per `Jit::Runtime` symbol of an elementary function in the primitive table, naming
// the method the table evaluates it with: compiled code then calls it without a look-up in the
// table and an indirect call.
unary! {
    zy_rt_sin => Sin, f64::sin,
    zy_rt_cos => Cos, f64::cos,
    zy_rt_tan => Tan, f64::tan,
    zy_rt_exp => Exp, f64::exp,
    zy_rt_expm1 => Expm1, f64::exp_m1,
    zy_rt_exp2 => Exp2, f64::exp2,
    zy_rt_log => Log, f64::ln,
    zy_rt_log2 => Log2, f64::log2,
    zy_rt_log10 => Log10, f64::log10,
    zy_rt_log1p => Log1p, f64::ln_1p,
    zy_rt_tanh => Tanh, f64::tanh,
    zy_rt_sinh => Sinh, f64::sinh,
    zy_rt_cosh => Cosh, f64::cosh,
    zy_rt_asin => Asin, f64::asin,
    zy_rt_acos => Acos, f64::acos,
    zy_rt_atan => Atan, f64::atan,
    zy_rt_cbrt => Cbrt, f64::cbrt,
    zy_rt_asinh => Asinh, f64::asinh,
    zy_rt_acosh => Acosh, f64::acosh,
    zy_rt_atanh => Atanh, f64::atanh,
    zy_rt_gamma => Gamma, specfun::gamma,
    zy_rt_logabsgamma => LogAbsGamma, specfun::log_abs_gamma,
    zy_rt_digamma => Digamma, specfun::digamma,
    zy_rt_erf => Erf, specfun::erf,
    zy_rt_erfc => Erfc, specfun::erfc,
    zy_rt_erfinv => Erfinv, specfun::erfinv,
    zy_rt_erfcinv_small => ErfcinvSmall, specfun::erfcinv_small,
    zy_rt_erfcx => Erfcx, specfun::erfcx,
    zy_rt_besselj0 => Besselj0, specfun::besselj0,
    zy_rt_besselj1 => Besselj1, specfun::besselj1,
    zy_rt_bessely0 => Bessely0, specfun::bessely0,
    zy_rt_bessely1 => Bessely1, specfun::bessely1,
    zy_rt_dawson => Dawson, specfun::dawson,
    zy_rt_erfi => Erfi, specfun::erfi,
    zy_rt_sinint => Sinint, specfun::sinint,
    zy_rt_cosint => Cosint, specfun::cosint,
    zy_rt_expint => Expint, specfun::expint,
    zy_rt_ellipk => Ellipk, specfun::ellipk,
    zy_rt_ellipe => Ellipe, specfun::ellipe,
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

/// The runtime symbol of an elementary function of one Float64 (its `Jit::Runtime` in the
/// primitive table).
pub fn unary_symbol(p: Prim) -> Option<&'static str> {
    match (p.math(), p.info().jit) {
        (Some(_), Jit::Runtime(name)) => Some(name),
        _ => None,
    }
}

/// The math symbols with their addresses.
pub fn symbols() -> Vec<(&'static str, *const u8)> {
    let mut syms = unary_symbols();
    syms.push(("zy_rt_powi", zy_rt_powi as *const u8));
    syms.push(("zy_rt_sincos", zy_rt_sincos as *const u8));
    syms
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_runtime_symbol_of_the_table_is_defined() {
        let defined: Vec<&str> = crate::runtime::symbols().iter().map(|(n, _)| *n).collect();
        for &p in Prim::ALL {
            if let Jit::Runtime(name) = p.info().jit {
                assert!(defined.contains(&name), "{p}: {name}");
            }
        }
    }

    #[test]
    fn math_symbols_give_the_tables_bits() {
        for (p, f) in unary_functions() {
            let m = p
                .math()
                .unwrap_or_else(|| panic!("{p} is not a math primitive"));
            for x in [
                -2.5,
                -1.0,
                -0.5,
                -0.0,
                0.0,
                0.3,
                0.9,
                1.0,
                1.7,
                40.0,
                1e300,
                f64::INFINITY,
            ] {
                assert_eq!(f(x).to_bits(), (m.eval)(x).to_bits(), "{p}({x})");
            }
        }
    }

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
