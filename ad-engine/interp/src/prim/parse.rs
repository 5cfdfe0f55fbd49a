//! `parse(Int, s)`, `parse(Float64, s)` and `tryparse(Int, s)`: Julia's text-to-number
//! conversions (`base/parse.jl`), with its error messages.

use zy_ir::IntKind;

use crate::show::show;
use crate::value::Value;
use crate::wide::Exact;

/// Julia's `isspace`: ASCII spaces and controls `\t` to `\r`, `U+85`, and the Unicode space
/// separators (category Zs) from `U+A0` on.
pub fn is_space(c: char) -> bool {
    matches!(c, ' ' | '\t'..='\r' | '\u{85}')
        || (c >= '\u{a0}' && c.is_whitespace() && !matches!(c, '\u{2028}' | '\u{2029}'))
}

/// `parse(Int, s)`: [`parse_integer`] of an `Int64`.
pub fn parse_int(s: &str, base: Option<u32>) -> Result<i64, String> {
    let n = parse_integer(s, base, None)?;
    Ok(n.bits() as u64 as i64)
}

/// `parse(T, s)` of the integer type `k` (`None`: `Int64`), or why `s` is not one (Julia's
/// `ArgumentError` or `OverflowError`): leading and trailing whitespace, a sign, a base
/// prefix `0x`, `0o` or `0b` where no `base` is given (`parse(Int, s; base)`, 2 to 62), then
/// digits up to whitespace.
pub fn parse_integer(s: &str, base: Option<u32>, k: Option<IntKind>) -> Result<Exact, String> {
    let quoted = || show(&Value::Str(s.into()));
    let mut chars = s.chars().peekable();
    let skip_space = |chars: &mut std::iter::Peekable<std::str::Chars>| {
        while chars.next_if(|&c| is_space(c)).is_some() {}
    };
    skip_space(&mut chars);
    let negative = chars.peek() == Some(&'-');
    if matches!(chars.peek(), Some('-' | '+')) {
        chars.next();
    }
    skip_space(&mut chars);
    if chars.peek().is_none() {
        return Err("ArgumentError: input string is empty or only contains whitespace".into());
    }
    let given = base;
    let mut base = given.unwrap_or(10);
    if given.is_none() && chars.peek() == Some(&'0') {
        let mut ahead = chars.clone();
        ahead.next();
        if let Some(b) = ahead.next().and_then(|c| match c {
            'b' => Some(2),
            'o' => Some(8),
            'x' => Some(16),
            _ => None,
        }) {
            base = b;
            chars = ahead;
        }
    }
    if chars.peek().is_none() {
        return Err(format!(
            "ArgumentError: premature end of integer: {}",
            quoted()
        ));
    }
    // The magnitude, at most that of the type's bound on the side of the sign.
    let limit = if negative {
        Exact::min_of(k).bits().wrapping_neg()
    } else {
        Exact::max_of(k).bits()
    };
    let mut n: u128 = 0;
    while let Some(c) = chars.next_if(|&c| !is_space(c)) {
        let d = digit(c, base).filter(|&d| d < base).ok_or_else(|| {
            format!(
                "ArgumentError: invalid base {base} digit {} in {}",
                show_char(c),
                quoted()
            )
        })?;
        n = n
            .checked_mul(u128::from(base))
            .and_then(|n| n.checked_add(u128::from(d)))
            .filter(|n| *n <= limit)
            .ok_or_else(|| format!("OverflowError: overflow parsing {}", quoted()))?;
    }
    if chars.any(|c| !is_space(c)) {
        return Err(format!(
            "ArgumentError: extra characters after whitespace in {}",
            quoted()
        ));
    }
    Ok(if negative {
        Exact::signed((n as i128).wrapping_neg())
    } else {
        Exact::unsigned(n)
    })
}

/// The `base` keyword of `parse` and `tryparse`, or Julia's `ArgumentError` of one outside 2
/// to 62 (which `tryparse` throws too).
pub fn valid_base(base: i64) -> Result<u32, String> {
    match base {
        2..=62 => Ok(base as u32),
        _ => Err(format!(
            "ArgumentError: invalid base: base must be 2 ≤ base ≤ 62, got {base}"
        )),
    }
}

/// The value of the digit `c` in `base`, as Julia reads it: `0`-`9`, then letters of either
/// case from 10 up to base 36; above it `A`-`Z` are 10 to 35 and `a`-`z` 36 to 61.
fn digit(c: char, base: u32) -> Option<u32> {
    match c {
        '0'..='9' => c.to_digit(10),
        'A'..='Z' => Some(c as u32 - 'A' as u32 + 10),
        'a'..='z' if base <= 36 => Some(c as u32 - 'a' as u32 + 10),
        'a'..='z' => Some(c as u32 - 'a' as u32 + 36),
        _ => None,
    }
}

/// `parse(Float64, s)`: C's `strtod` of the text between ASCII whitespace (decimal digits with
/// an exponent, `Inf`, `infinity`, `NaN` in any case), else Julia's `ArgumentError: cannot
/// parse "s" as Float64`, which it is too for a number out of range (`1e400`; `1e-400`, which
/// `strtod` rounds to zero). A hexadecimal float (`0x1p3`) is refused by name.
pub fn parse_float(s: &str) -> Result<f64, String> {
    let c_space = |c: char| matches!(c, ' ' | '\t'..='\r');
    let text = s.trim_matches(c_space);
    let digits = text.trim_start_matches(['+', '-']);
    if digits.starts_with("0x") || digits.starts_with("0X") {
        return Err(format!(
            "unsupported: parsing the hexadecimal float {} (write it in decimal)",
            show(&Value::Str(s.into()))
        ));
    }
    let cannot = || {
        format!(
            "ArgumentError: cannot parse {} as Float64",
            show(&Value::Str(s.into()))
        )
    };
    // Rust's grammar is strtod's decimal one, beside `inf`, `infinity` and `nan`.
    let x = text.parse::<f64>().map_err(|_| cannot())?;
    let mantissa = digits.split(['e', 'E']).next().unwrap_or("");
    let spelled_inf = digits.starts_with(['i', 'I']);
    let out_of_range = (x.is_infinite() && !spelled_inf)
        || (x == 0.0 && mantissa.bytes().any(|c| matches!(c, b'1'..=b'9')));
    if out_of_range {
        return Err(cannot());
    }
    Ok(x)
}

/// A character as Julia's `repr` writes it: `'x'`.
fn show_char(c: char) -> String {
    match c {
        '\'' => "'\\''".into(),
        c => format!("{:?}", c),
    }
}
