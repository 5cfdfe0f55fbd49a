//! Literal values as Julia shows them, for the S-expression printer ([`crate::tree::Sexp`]):
//! JuliaSyntax prints the values of literals (`0b10010` as `0x12`, `1e-3` as `0.001`, `"a\tb"`
//! with the tab escaped again), not their source text.

use crate::kind::Kind;

/// A numeric literal's value as Julia's `show` prints it, if zy can compute it: `Int64` and
/// `Int128` in decimal, unsigned literals as `0x` with their type's width (`0x01`), `Float64`
/// and `Float32` in Julia's shortest form (`100000.0`, `1.0e6`, `0.001f0`).
pub(crate) fn number(text: &str, kind: Kind) -> Option<String> {
    let clean: String = text
        .chars()
        .filter(|c| *c != '_')
        .map(|c| if c == '−' { '-' } else { c })
        .collect();
    let (negative, body) = match clean.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, clean.strip_prefix('+').unwrap_or(&clean)),
    };
    match kind {
        Kind::Integer => {
            let value: i128 = body.parse().ok()?;
            Some(format!("{}", if negative { -value } else { value }))
        }
        Kind::HexInt | Kind::BinInt | Kind::OctInt if !negative => unsigned(body),
        Kind::Float | Kind::Float32 => float(body, negative),
        _ => None,
    }
}

/// `0x..`, `0b..`, `0o..` as Julia's unsigned type chosen by digits and value.
fn unsigned(body: &str) -> Option<String> {
    let (radix, digits) = (
        match body.get(..2)? {
            "0x" => Some(16),
            "0b" => Some(2),
            "0o" => Some(8),
            _ => None,
        }?,
        body.get(2..)?,
    );
    let value = u128::from_str_radix(digits, radix).ok()?;
    let n = digits.len() as u32;
    let by_digits = match radix {
        16 => 4 * n,
        2 => n,
        // The most octal digits each type's largest value has: 0o377, 0o177777, ...
        _ => match n {
            0..=3 => 8,
            4..=6 => 16,
            7..=11 => 32,
            12..=22 => 64,
            _ => 128,
        },
    };
    let bits = by_digits.max(128 - value.leading_zeros());
    let width = [8, 16, 32, 64, 128].into_iter().find(|w| *w >= bits)?;
    Some(format!("0x{value:0w$x}", w = (width / 4) as usize))
}

/// JuliaSyntax's token for a float literal too large for its type.
const OVERFLOW: &str = "(ErrorNumericOverflow)";

/// A decimal or hexadecimal float literal's value, `Float32` when it has an `f` exponent.
fn float(body: &str, negative: bool) -> Option<String> {
    if let Some(hex) = body.strip_prefix("0x") {
        let value = hex_float(hex)?;
        return Some(if value.is_finite() {
            shortest(if negative { -value } else { value }, 'e')
        } else {
            OVERFLOW.to_string()
        });
    }
    if let Some((mantissa, exponent)) = body.split_once('f') {
        let value: f32 = format!("{mantissa}e{exponent}").parse().ok()?;
        let value = if negative { -value } else { value };
        return Some(if value.is_finite() {
            shortest32(value)
        } else {
            OVERFLOW.to_string()
        });
    }
    let value: f64 = body.parse().ok()?;
    let value = if negative { -value } else { value };
    Some(if value.is_finite() {
        shortest(value, 'e')
    } else {
        OVERFLOW.to_string()
    })
}

/// `1.8p1` (after `0x`): the hex digits, an optional point, and a binary exponent.
fn hex_float(hex: &str) -> Option<f64> {
    let (mantissa, exponent) = hex.split_once(['p', 'P'])?;
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits = format!("{int}{frac}");
    let m = u64::from_str_radix(if digits.is_empty() { "0" } else { &digits }, 16).ok()?;
    let e: i32 = exponent.parse().ok()?;
    Some(m as f64 * 2f64.powi(e - 4 * frac.len() as i32))
}

/// Julia's `show` of a `Float64`: the shortest digits, in positional form when the decimal
/// point falls in `(-4, 6]` digits from the start, else `d.ddde±x`.
fn shortest(value: f64, exp_char: char) -> String {
    layout(&format!("{value:e}"), exp_char).0
}

/// Julia's `show` of a `Float32`: as [`shortest`], with `f` for the exponent (`f0` when
/// positional).
fn shortest32(value: f32) -> String {
    let (text, positional) = layout(&format!("{value:e}"), 'f');
    if positional {
        format!("{text}f0")
    } else {
        text
    }
}

/// Lays out Rust's shortest `d.ddde±x` as Julia does; is the result positional?
fn layout(sci: &str, exp_char: char) -> (String, bool) {
    let (sign, sci) = match sci.strip_prefix('-') {
        Some(rest) => ("-", rest),
        None => ("", sci),
    };
    let Some((mantissa, exponent)) = sci.split_once('e') else {
        return (format!("{sign}{sci}"), true);
    };
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    let digits = match digits.trim_end_matches('0') {
        "" => "0",
        trimmed => trimmed,
    };
    let exponent: i32 = exponent.parse().unwrap_or(0);
    let n = digits.len() as i32;
    // The position of the decimal point from the start of the digits.
    let point = exponent + 1;
    if digits == "0" {
        return (format!("{sign}0.0"), true);
    }
    if -4 < point && point <= 6 {
        let text = if point <= 0 {
            format!("0.{}{digits}", "0".repeat((-point) as usize))
        } else if point >= n {
            format!("{digits}{}.0", "0".repeat((point - n) as usize))
        } else {
            format!(
                "{}.{}",
                &digits[..point as usize],
                &digits[point as usize..]
            )
        };
        return (format!("{sign}{text}"), true);
    }
    let fraction = if n > 1 { &digits[1..] } else { "0" };
    (
        format!("{sign}{}.{fraction}{exp_char}{exponent}", &digits[..1]),
        false,
    )
}

/// A string's value as Julia's `repr` shows it: in quotes, with `"`, `\` and `$` escaped and
/// control characters as escapes.
pub(crate) fn julia_string(value: &str) -> String {
    let mut out = String::from("\"");
    let mut chars = value.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' | '\\' | '$' => {
                out.push('\\');
                out.push(c);
            }
            '\0' if chars.peek().is_some_and(|d| d.is_ascii_digit()) => out.push_str("\\x00"),
            _ => push_char(&mut out, c),
        }
    }
    out.push('"');
    out
}

/// A character as Julia's `repr` shows it: `'α'`, `'\n'`, `'\''`.
pub(crate) fn julia_char(c: char) -> String {
    let mut out = String::from("'");
    if c == '\'' || c == '\\' {
        out.push('\\');
        out.push(c);
    } else {
        push_char(&mut out, c);
    }
    out.push('\'');
    out
}

/// Appends `c` as Julia's `repr` writes it inside quotes.
fn push_char(out: &mut String, c: char) {
    let escaped = match c {
        '\0' => "\\0",
        '\u{1b}' => "\\e",
        '\u{07}' => "\\a",
        '\u{08}' => "\\b",
        '\t' => "\\t",
        '\n' => "\\n",
        '\u{0b}' => "\\v",
        '\u{0c}' => "\\f",
        '\r' => "\\r",
        c if (c as u32) < 0x20 || c == '\u{7f}' => {
            out.push_str(&format!("\\x{:02x}", c as u32));
            return;
        }
        c => {
            out.push(c);
            return;
        }
    };
    out.push_str(escaped);
}

/// A raw string's value (`raw"..."`, `x"..."`, `` `...` ``, `var"..."`), one chunk of it:
/// backslashes are literal except before the delimiter, where `2n` of them are `n` (and
/// `2n + 1` also escape it), and at the chunk's end, which is before the closing delimiter.
pub(crate) fn raw_value(text: &str, delimiter: char) -> String {
    let mut out = String::new();
    let mut backslashes = 0;
    for c in text.chars() {
        if c == '\\' {
            backslashes += 1;
            continue;
        }
        let kept = if c == delimiter {
            backslashes / 2
        } else {
            backslashes
        };
        out.extend(std::iter::repeat_n('\\', kept));
        backslashes = 0;
        out.push(c);
    }
    out.extend(std::iter::repeat_n('\\', backslashes / 2));
    out
}

#[cfg(test)]
mod tests {
    use super::{julia_char, julia_string, number, raw_value};
    use crate::kind::Kind;

    #[test]
    fn numbers_as_julia_shows_them() {
        let f = |t| number(t, Kind::Float).unwrap_or_default();
        assert_eq!(f("1.0"), "1.0");
        assert_eq!(f("+2.0"), "2.0");
        assert_eq!(f("1e-3"), "0.001");
        assert_eq!(f("1e-5"), "1.0e-5");
        assert_eq!(f("1e5"), "100000.0");
        assert_eq!(f("1e6"), "1.0e6");
        assert_eq!(f("123456.0"), "123456.0");
        assert_eq!(f("1.0e-1000"), "0.0");
        assert_eq!(f("1_000.5"), "1000.5");
        assert_eq!(f(".5"), "0.5");
        assert_eq!(f("5."), "5.0");
        assert_eq!(f("−1.5"), "-1.5");
        assert_eq!(f("-0xf.0p0"), "-15.0");
        assert_eq!(f("0x123456789abcdefp+0"), "8.19855292164869e16");
        assert_eq!(f("-1.0f0"), "-1.0f0");
        assert_eq!(f("1.5f3"), "1500.0f0");
        assert_eq!(f("1f10"), "1.0f10");
        assert_eq!(f("1e1000"), "(ErrorNumericOverflow)");
        assert_eq!(f("1f100"), "(ErrorNumericOverflow)");
        assert_eq!(f("0x1p2000"), "(ErrorNumericOverflow)");
        assert_eq!(
            number("10.0f100", Kind::Float32).as_deref(),
            Some("(ErrorNumericOverflow)")
        );
        assert_eq!(number("1f-50", Kind::Float32).as_deref(), Some("0.0f0"));
        assert_eq!(number("1_000", Kind::Integer).as_deref(), Some("1000"));
        assert_eq!(number("+0b10010", Kind::BinInt).as_deref(), Some("0x12"));
        assert_eq!(number("0o22", Kind::OctInt).as_deref(), Some("0x12"));
        assert_eq!(number("0o400", Kind::OctInt).as_deref(), Some("0x0100"));
        assert_eq!(number("0x1", Kind::HexInt).as_deref(), Some("0x01"));
        assert_eq!(number("0x000", Kind::HexInt).as_deref(), Some("0x0000"));
        assert_eq!(number("-0x1", Kind::HexInt), None);
    }

    #[test]
    fn strings_and_chars_as_julia_shows_them() {
        assert_eq!(julia_string("a\tb$\"\\"), "\"a\\tb\\$\\\"\\\\\"");
        assert_eq!(julia_string("\u{1b}\u{1}"), "\"\\e\\x01\"");
        assert_eq!(julia_char('α'), "'α'");
        assert_eq!(julia_char('\n'), "'\\n'");
        assert_eq!(julia_char('\''), "'\\''");
        assert_eq!(raw_value("a\\\"b\\\\\"c\\d", '"'), "a\"b\\\"c\\d");
    }
}
