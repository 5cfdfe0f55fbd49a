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
    ]
}
