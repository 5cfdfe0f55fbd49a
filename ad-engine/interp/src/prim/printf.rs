//! One conversion of Julia's `@sprintf` (the Printf standard library): `%d`/`%i`, `%x`/`%X`,
//! `%o` (with `#`, the prefix `0x`, `0X` or `0`), `%f`/`%F`, `%e`/`%E`, `%g`/`%G` of a number,
//! with the flags `-+ 0#`, a width and a precision. Lowering splits the format (a literal)
//! into its text and one `string_fn(:sprintf, spec, x)` per conversion; this writes what
//! Julia's `Printf.fmt` writes for that spec: decimal digits correctly rounded (ties to even,
//! as Ryu's), `Inf`/`NaN` as Julia spells them, exponents of at least two digits, and an
//! integer conversion of a float as `%.0f` (Printf's `floatfmt`); `%s` of a text and `%c` of a
//! character, padded to the width (left-justified with `-`), `%s` cut to the precision.

/// A parsed conversion `%[flags][width][.precision]conv`.
struct Spec {
    left: bool,
    plus: bool,
    space: bool,
    zero: bool,
    hash: bool,
    width: usize,
    precision: Option<usize>,
    conv: char,
}

fn parse(spec: &str) -> Option<Spec> {
    let mut chars = spec.strip_prefix('%')?.chars().peekable();
    let mut s = Spec {
        left: false,
        plus: false,
        space: false,
        zero: false,
        hash: false,
        width: 0,
        precision: None,
        conv: 'd',
    };
    while let Some(&c) = chars.peek() {
        match c {
            '-' => s.left = true,
            '+' => s.plus = true,
            ' ' => s.space = true,
            '0' => s.zero = true,
            '#' => s.hash = true,
            _ => break,
        }
        chars.next();
    }
    let number = |chars: &mut std::iter::Peekable<std::str::Chars>| {
        let mut n = 0usize;
        while let Some(d) = chars.peek().and_then(|c| c.to_digit(10)) {
            n = n.checked_mul(10)?.checked_add(d as usize)?;
            chars.next();
        }
        Some(n)
    };
    s.width = number(&mut chars)?;
    if chars.peek() == Some(&'.') {
        chars.next();
        s.precision = Some(number(&mut chars)?);
    }
    s.conv = chars.next()?;
    if chars.next().is_some() {
        return None;
    }
    s.zero &= !s.left;
    Some(s)
}

/// `text` (`%s`, a value as `print` writes it; `%c`, a character) formatted by `spec`:
/// at most `precision` characters of it (`%s`), padded with spaces to `width` characters, on
/// the right with the `-` flag.
pub fn sprintf_text(spec: &str, text: &str) -> Result<String, String> {
    let s = parse(spec).ok_or_else(|| format!("ArgumentError: invalid format string: '{spec}'"))?;
    if !matches!(s.conv, 's' | 'S' | 'c' | 'C') {
        return Err(format!(
            "ArgumentError: invalid argument for format %{}: a string",
            s.conv
        ));
    }
    let body: String = match s.precision {
        Some(p) if matches!(s.conv, 's' | 'S') => text.chars().take(p).collect(),
        _ => text.to_string(),
    };
    let fill = " ".repeat(s.width.saturating_sub(body.chars().count()));
    Ok(if s.left { body + &fill } else { fill + &body })
}

/// A number to format.
#[derive(Clone, Copy)]
pub enum Num {
    /// A signed integer (`Int64`, `Bool`, `Int8` to `Int32`, `UInt8` to `UInt32`).
    Int(i64),
    /// A `UInt64`.
    UInt(u64),
    /// A `Float64` (or `Float32`, widened).
    Float(f64),
}

/// `x` formatted by the conversion `spec` (`"%.3f"`), or the error of a spec zy does not know.
pub fn sprintf(spec: &str, x: Num) -> Result<String, String> {
    let s = parse(spec).ok_or_else(|| format!("ArgumentError: invalid format string: '{spec}'"))?;
    let int_conv = matches!(s.conv, 'd' | 'i' | 'x' | 'X' | 'o');
    let (negative, body) = match (s.conv, x) {
        (c, Num::Int(n)) if int_conv => (n < 0, int_digits(n.unsigned_abs(), c, s.precision)),
        (c, Num::UInt(n)) if int_conv => (false, int_digits(n, c, s.precision)),
        // Printf writes a float by an integer conversion as `%.0f`, whatever the base.
        (_, Num::Float(f)) if int_conv => float_body(f, 'f', Some(0), s.hash),
        ('f' | 'F' | 'e' | 'E' | 'g' | 'G', x) => {
            let f = match x {
                Num::Int(n) => n as f64,
                Num::UInt(n) => n as f64,
                Num::Float(f) => f,
            };
            float_body(f, s.conv, s.precision, s.hash)
        }
        (c, _) => return Err(format!("unsupported: `@sprintf` conversion `%{c}`")),
    };
    let sign = if negative {
        "-"
    } else if s.plus {
        "+"
    } else if s.space {
        " "
    } else {
        ""
    };
    let int = int_conv && !matches!(x, Num::Float(_));
    // `#` puts the base's prefix between the sign and the digits (or their zero padding).
    let prefix = match s.conv {
        'x' if int && s.hash => "0x",
        'X' if int && s.hash => "0X",
        'o' if int && s.hash => "0",
        _ => "",
    };
    let sign = format!("{sign}{prefix}");
    // Printf clears the `0` flag of an integer conversion with a precision.
    let zero = s.zero && !(int && s.precision.is_some_and(|p| p > 0));
    let len = sign.len() + body.chars().count();
    let fill = s.width.saturating_sub(len);
    Ok(if fill == 0 {
        format!("{sign}{body}")
    } else if s.left {
        format!("{sign}{body}{}", " ".repeat(fill))
    } else if zero {
        format!("{sign}{}{body}", "0".repeat(fill))
    } else {
        format!("{}{sign}{body}", " ".repeat(fill))
    })
}

/// The digits of `n` in the base of the integer conversion `conv` (`x` lower-case hexadecimal,
/// `X` upper-case, `o` octal, else decimal), zeros in front up to `precision` digits.
fn int_digits(n: u64, conv: char, precision: Option<usize>) -> String {
    let digits = match conv {
        'x' => format!("{n:x}"),
        'X' => format!("{n:X}"),
        'o' => format!("{n:o}"),
        _ => n.to_string(),
    };
    let pad = precision.unwrap_or(0).saturating_sub(digits.len());
    format!("{}{digits}", "0".repeat(pad))
}

/// The digits of `|f|` (without its sign) by conversion `conv`, and whether `f` is negative.
fn float_body(f: f64, conv: char, precision: Option<usize>, hash: bool) -> (bool, String) {
    let negative = f.is_sign_negative() && !f.is_nan();
    let a = f.abs();
    if !a.is_finite() {
        return (negative, if a.is_nan() { "NaN" } else { "Inf" }.to_string());
    }
    let upper = conv.is_ascii_uppercase();
    let body = match conv.to_ascii_lowercase() {
        'f' => fixed(a, precision.unwrap_or(6), hash),
        'e' => exponential(a, precision.unwrap_or(6), hash, upper),
        _ => {
            // Julia's general format: the exponent `X` of `%.{P}e`; `-4 ≤ X < P` is fixed with
            // `P - (X + 1)` decimals, else exponential with `P - 1`; trailing zeros dropped
            // unless `#`.
            let p = precision.unwrap_or(6).max(1);
            let x = exponent_of(&format!("{a:.p$e}"));
            let text = if -4 <= x && x < p as i64 {
                fixed(a, (p as i64 - (x + 1)) as usize, hash)
            } else {
                exponential(a, p - 1, hash, upper)
            };
            if hash {
                text
            } else {
                trim_zeros(&text)
            }
        }
    };
    (negative, body)
}

fn fixed(a: f64, precision: usize, hash: bool) -> String {
    let mut s = format!("{a:.precision$}");
    if hash && precision == 0 {
        s.push('.');
    }
    s
}

fn exponential(a: f64, precision: usize, hash: bool, upper: bool) -> String {
    let text = format!("{a:.precision$e}");
    let (mantissa, _) = text.split_once('e').unwrap_or((&text, "0"));
    let x = exponent_of(&text);
    let dot = if hash && precision == 0 { "." } else { "" };
    let e = if upper { 'E' } else { 'e' };
    let sign = if x < 0 { '-' } else { '+' };
    format!("{mantissa}{dot}{e}{sign}{:02}", x.unsigned_abs())
}

/// The exponent of Rust's `{:e}` text (`1.5e-7`).
fn exponent_of(text: &str) -> i64 {
    text.split_once('e')
        .and_then(|(_, x)| x.parse().ok())
        .unwrap_or(0)
}

/// `1.500` as `1.5`, `2.000` as `2`, `1.500e+00` as `1.5e+00`.
fn trim_zeros(text: &str) -> String {
    let (mantissa, rest) = match text.find(['e', 'E']) {
        Some(i) => text.split_at(i),
        None => (text, ""),
    };
    if !mantissa.contains('.') {
        return text.to_string();
    }
    let m = mantissa.trim_end_matches('0').trim_end_matches('.');
    format!("{m}{rest}")
}

#[cfg(test)]
mod tests {
    use super::{sprintf, Num};

    fn f(spec: &str, x: f64) -> String {
        sprintf(spec, Num::Float(x)).unwrap_or_else(|e| e)
    }

    #[test]
    fn formats_as_julias_printf() {
        assert_eq!(f("%.3f", 3.14159), "3.142");
        assert_eq!(f("%f", 1.5), "1.500000");
        assert_eq!(f("%.0f", 2.5), "2");
        assert_eq!(f("%e", 1.234), "1.234000e+00");
        assert_eq!(f("%.3e", 1.23456), "1.235e+00");
        assert_eq!(f("%.2e", -0.000123), "-1.23e-04");
        assert_eq!(f("%E", 1e100), "1.000000E+100");
        assert_eq!(f("%g", 1.5), "1.5");
        assert_eq!(f("%g", 100000.0), "100000");
        assert_eq!(f("%g", 1000000.0), "1e+06");
        assert_eq!(f("%g", 0.0001), "0.0001");
        assert_eq!(f("%g", 0.00001), "1e-05");
        assert_eq!(f("%.3g", 3.14159), "3.14");
        assert_eq!(f("%#g", 1.5), "1.50000");
        assert_eq!(f("%8.3f", -1.5), "  -1.500");
        assert_eq!(f("%-8.3f", 1.5), "1.500   ");
        assert_eq!(f("%08.3f", -1.5), "-001.500");
        assert_eq!(f("%+.1f", 1.0), "+1.0");
        assert_eq!(f("%f", f64::INFINITY), "Inf");
        assert_eq!(f("%f", -f64::INFINITY), "-Inf");
        assert_eq!(f("%g", f64::NAN), "NaN");
        assert_eq!(f("%d", 2.5), "2");
        assert_eq!(f("%d", 3.7), "4");
        assert_eq!(sprintf("%d", Num::Int(-42)), Ok("-42".into()));
        assert_eq!(sprintf("%5d", Num::Int(42)), Ok("   42".into()));
        assert_eq!(sprintf("%05d", Num::Int(-42)), Ok("-0042".into()));
        assert_eq!(sprintf("%.3d", Num::Int(7)), Ok("007".into()));
        assert_eq!(sprintf("%f", Num::Int(3)), Ok("3.000000".into()));
    }

    #[test]
    fn formats_other_bases_as_julias_printf() {
        let i = |spec: &str, n: i64| sprintf(spec, Num::Int(n)).unwrap_or_else(|e| e);
        assert_eq!(i("%x", 255), "ff");
        assert_eq!(i("%X", 255), "FF");
        assert_eq!(i("%o", 8), "10");
        assert_eq!(i("%#x", 255), "0xff");
        assert_eq!(i("%#X", 255), "0XFF");
        assert_eq!(i("%#o", 8), "010");
        assert_eq!(i("%x", -255), "-ff");
        assert_eq!(i("%+x", 255), "+ff");
        assert_eq!(i("%04x", 10), "000a");
        assert_eq!(i("%#06x", 10), "0x000a");
        assert_eq!(i("%-6x", 10), "a     ");
        assert_eq!(i("%.4x", 10), "000a");
        assert_eq!(i("%6.3x", 10), "   00a");
        assert_eq!(
            sprintf("%x", Num::UInt(u64::MAX)),
            Ok("ffffffffffffffff".into())
        );
        assert_eq!(f("%x", 255.4), "255");
    }
}
