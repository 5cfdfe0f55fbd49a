//! Numeric and string literals, with Julia's rules: `1_000` is an `Int64`, `-2` a signed
//! literal, a decimal integer that does not fit is Julia's `Int128` (the prelude's
//! `_int128_literal` of its digits) or past that a `BigInt` (refused by name), `1f0` is a
//! `Float32` (the call `Float32(x)` of the Float64 equal to it), `0x10` an unsigned integer
//! (`UInt8`); `'a'` a character.

use crate::ast::{Expr, ExprKind};
use crate::cx::Cx;
use crate::kind::Kind;
use crate::tree::SyntaxNode;

/// An `Integer` token (possibly signed: `-2` is one literal).
pub(crate) fn integer(cx: &mut Cx, node: &SyntaxNode) -> Expr {
    let text = cx.text(node);
    let digits: String = text
        .chars()
        .filter(|c| *c != '_')
        .map(|c| if c == '−' { '-' } else { c })
        .collect();
    match (digits.parse::<i64>(), digits.parse::<i128>()) {
        (Ok(value), _) => Expr::new(ExprKind::Int(value), node.range),
        // Julia reads a decimal literal past Int64 as an Int128, past that as a BigInt.
        (_, Ok(value)) => wide(WIDE_SIGNED, value.to_string(), node),
        _ => cx.unsupported(
            node,
            &format!("integer literal `{text}` (a BigInt); zy's widest integer is Int128"),
        ),
    }
}

/// The prelude's function of the digits of a decimal literal that is an `Int128`.
const WIDE_SIGNED: &str = "Base._int128_literal";

/// The prelude's function of the decimal digits of an unsigned literal that is a `UInt128`.
const WIDE_UNSIGNED: &str = "Base._uint128_literal";

/// A literal of 128 bits: the call of the prelude's `function` on its decimal digits, which
/// gives the `Int128` or `UInt128` they spell.
fn wide(function: &str, digits: String, node: &SyntaxNode) -> Expr {
    let range = node.range;
    let digits = Expr::new(ExprKind::Str(digits), range);
    Expr::call(function, vec![digits], range)
}

/// A `BinInt`, `OctInt` or `HexInt` token: an unsigned integer in Julia, of the smallest of
/// `UInt8` to `UInt64` that holds as many digits (`0x1f` is a `UInt8`, `0x00ff` a `UInt16`;
/// a binary or octal literal with leading zeros is as wide as the same digits after a 1). It
/// is the call `v % UInt8`, the same value; a `UInt128` is the prelude's `_uint128_literal`
/// of its decimal digits, and wider literals (`BigInt`) are refused by name.
pub(crate) fn unsigned(cx: &mut Cx, node: &SyntaxNode) -> Expr {
    let text = cx.text(node);
    let (radix, digits) = match text.get(..2) {
        Some("0x") => (16, &text[2..]),
        Some("0o") => (8, &text[2..]),
        Some("0b") => (2, &text[2..]),
        _ => (10, text),
    };
    let digits: String = digits.chars().filter(|c| *c != '_').collect();
    let value = u128::from_str_radix(&digits, radix).ok();
    let len = u32::try_from(digits.len()).unwrap_or(u32::MAX);
    // The bits the literal's digits take: four a hexadecimal digit, else those of the
    // value or of a 1 followed by as many digits, whichever is more.
    let bits = match (radix, value) {
        (16, _) => len.saturating_mul(4),
        (_, Some(v)) => {
            let leading_one = if radix == 2 {
                len
            } else {
                3 * len.saturating_sub(1) + 1
            };
            leading_one.max(128 - v.leading_zeros())
        }
        _ => u32::MAX,
    };
    let ty = match bits {
        0..=8 => "UInt8",
        9..=16 => "UInt16",
        17..=32 => "UInt32",
        33..=64 => "UInt64",
        65..=128 => match value {
            Some(v) => return wide(WIDE_UNSIGNED, v.to_string(), node),
            None => {
                return cx.syntax(
                    node,
                    &format!("syntax error: invalid integer literal `{text}`"),
                )
            }
        },
        _ => {
            return cx.unsupported(
                node,
                &format!("unsigned integer literal `{text}` (a BigInt); zy's widest unsigned integer is UInt128"),
            );
        }
    };
    let Some(value) = value.and_then(|v| u64::try_from(v).ok()) else {
        return cx.syntax(
            node,
            &format!("syntax error: invalid integer literal `{text}`"),
        );
    };
    let range = node.range;
    let held = Expr::new(ExprKind::Int(value as i64), range);
    let ty = Expr::new(ExprKind::Ident(ty.into()), range);
    Expr::call("%", vec![held, ty], range)
}

/// A `Float32` token (`1f0`, `0.1f0`, `1.5f-3`, possibly signed): the decimal rounded once to
/// the nearest Float32, as the call `Float32(x)` of the Float64 equal to that Float32 (which
/// converts exactly).
pub(crate) fn float32(cx: &mut Cx, node: &SyntaxNode) -> Expr {
    let text = cx.text(node);
    let digits: String = text
        .chars()
        .filter(|c| *c != '_')
        .map(|c| match c {
            '−' => '-',
            'f' => 'e',
            c => c,
        })
        .collect();
    match digits.parse::<f32>() {
        Ok(value) if value.is_finite() => {
            let range = node.range;
            let wide = Expr::new(ExprKind::Float(f64::from(value)), range);
            Expr::call("Float32", vec![wide], range)
        }
        Ok(_) => cx.syntax(node, "float literal too large"),
        Err(_) => cx.syntax(
            node,
            &format!("syntax error: invalid float literal `{text}`"),
        ),
    }
}

/// A `Float` token (possibly signed, possibly hexadecimal).
pub(crate) fn float(cx: &mut Cx, node: &SyntaxNode) -> Expr {
    let text = cx.text(node);
    let digits: String = text
        .chars()
        .filter(|c| *c != '_')
        .map(|c| if c == '−' { '-' } else { c })
        .collect();
    let parsed = match digits.trim_start_matches(['-', '+']).strip_prefix("0x") {
        Some(hex) => hex_float(hex)
            .map(|v| if digits.starts_with('-') { -v } else { v })
            .ok_or(()),
        None => digits.parse::<f64>().map_err(|_| ()),
    };
    match parsed {
        Ok(value) if value.is_finite() => Expr::new(ExprKind::Float(value), node.range),
        Ok(_) => cx.syntax(node, "float literal too large"),
        Err(_) => cx.syntax(
            node,
            &format!("syntax error: invalid float literal `{text}`"),
        ),
    }
}

/// The value of a hexadecimal float literal after its `0x` (`1.8p1` is 1.5 × 2¹ = 3.0), a
/// Float64 in Julia: the hexadecimal digits, a binary exponent after `p`; `None` if malformed
/// or with more digits than zy reads exactly.
fn hex_float(text: &str) -> Option<f64> {
    let (mantissa, exponent) = text.split_once(['p', 'P'])?;
    let exponent: i32 = exponent.parse().ok()?;
    let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let all = format!("{whole}{fraction}");
    if all.is_empty() || all.len() > 16 || !all.chars().all(|c| c.is_ascii_hexdigit()) {
        return None;
    }
    let digits = u64::from_str_radix(&all, 16).ok()?;
    let shift = exponent.checked_sub(4 * i32::try_from(fraction.len()).ok()?)?;
    // The digits as a Float64 (rounded to nearest, as Julia rounds the literal), scaled by a
    // power of two in two exact steps so that no intermediate over- or underflows.
    let half = shift / 2;
    Some(digits as f64 * 2f64.powi(half) * 2f64.powi(shift - half))
}

/// A string literal: its chunks with escapes resolved. With interpolation (`"bad $x"`) it is
/// a call of [`crate::ast::INTERPOLATION`] on the parts.
pub(crate) fn string(cx: &mut Cx, node: &SyntaxNode) -> Expr {
    let raw = node.has_flag(crate::parser::stream::flags::RAW_STRING);
    let mut value = String::new();
    let mut parts = Vec::new();
    for part in &node.children {
        if part.kind != Kind::String {
            if !value.is_empty() {
                let text = std::mem::take(&mut value);
                parts.push(Expr::new(ExprKind::Str(text), part.range));
            }
            parts.push(crate::expr::expr(cx, part));
            continue;
        }
        let text = cx.text(part);
        if raw {
            push_normalised(&mut value, &crate::show::raw_value(text, '"'));
            continue;
        }
        if let Err(bad) = unescape_into(text, &mut value) {
            let start = part.range.start + bad.at as u32;
            let range = crate::ast::TextRange::new(start, start + bad.len as u32);
            let shown = cx.slice(range).to_string();
            let message = match bad.problem {
                Problem::Escape => format!("syntax error: invalid escape sequence `{shown}`"),
                Problem::Utf8 => format!(
                    "unsupported: the bytes `{shown}` are not UTF-8; zy's strings hold text only"
                ),
            };
            let code = match bad.problem {
                Problem::Escape => "syntax-error",
                Problem::Utf8 => "unsupported",
            };
            cx.push(range, code, message);
            return Expr::new(ExprKind::Error, node.range);
        }
    }
    if parts.is_empty() {
        return Expr::new(ExprKind::Str(value), node.range);
    }
    if !value.is_empty() {
        parts.push(Expr::new(ExprKind::Str(value), node.range));
    }
    Expr::call(crate::ast::INTERPOLATION, parts, node.range)
}

/// A character literal `'a'`: the call `Char(code)` of the prelude's `Char`, its one
/// character's escapes resolved as a string's.
pub(crate) fn char(cx: &mut Cx, node: &SyntaxNode) -> Expr {
    let Some(token) = node.children.iter().find(|c| c.kind == Kind::Char) else {
        return crate::cx::error_expr(node);
    };
    let mut value = String::new();
    match unescape_into(cx.text(token), &mut value) {
        Err(bad) if bad.problem == Problem::Escape => {
            return cx.syntax(node, "syntax error: invalid escape sequence in a character literal")
        }
        Err(_) => {
            return cx.unsupported(
                node,
                "character literal of bytes that are not UTF-8 (`'\\xff'`, an invalid `Char` in Julia); write the character itself or its `'\\u...'` escape instead",
            )
        }
        Ok(()) => {}
    }
    let mut chars = value.chars();
    let (Some(code), None) = (chars.next(), chars.next()) else {
        return cx.syntax(
            node,
            "syntax error: character literal contains multiple characters",
        );
    };
    let code = Expr::new(ExprKind::Int(code as i64), node.range);
    Expr::call("Char", vec![code], node.range)
}

/// The refusal of a `var"..."` name where only a plain one is read (a keyword, a named
/// tuple's field).
pub(crate) const VAR_NAME_HERE: &str = "`var\"...\"` name here; write a plain name instead";

/// The name spelled by `var"..."` at `node` (its text read as a raw string's), if it is one.
pub(crate) fn var_name(cx: &Cx, node: &SyntaxNode) -> Option<String> {
    match (node.kind, node.children.as_slice()) {
        (crate::kind::Kind::Var, [name]) => Some(crate::show::raw_value(cx.text(name), '"')),
        _ => None,
    }
}

/// Appends `text` with Julia's line endings: `\r\n` and a lone `\r` are `\n` in a literal.
fn push_normalised(out: &mut String, text: &str) {
    let mut rest = text;
    while let Some(i) = rest.find('\r') {
        out.push_str(&rest[..i]);
        out.push('\n');
        rest = rest[i + 1..].strip_prefix('\n').unwrap_or(&rest[i + 1..]);
    }
    out.push_str(rest);
}

/// What is wrong at [`BadEscape::at`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Problem {
    /// Not an escape sequence Julia knows (`\q`, `\x` without digits, `\777`).
    Escape,
    /// Byte escapes (`\xff`, `\377`) that do not spell UTF-8.
    Utf8,
}

/// The byte offset and length of an invalid escape (or run of byte escapes) in a chunk.
#[derive(Debug, PartialEq)]
pub(crate) struct BadEscape {
    at: usize,
    len: usize,
    pub(crate) problem: Problem,
}

/// One resolved escape sequence.
enum Escaped {
    Char(char),
    /// `\xHH` and octal escapes are bytes in Julia: `"\xc3\xa9"` is `"é"`.
    Byte(u8),
    /// `\ud800`: a surrogate, which Julia keeps in a string as bytes that are not UTF-8.
    Surrogate,
}

/// Appends `text` with its escape sequences resolved as Julia does: `\xHH` and octal escapes
/// are bytes, and a run of them must spell UTF-8.
pub(crate) fn unescape_into(text: &str, out: &mut String) -> Result<(), BadEscape> {
    let mut rest = text;
    let mut bytes = Vec::new();
    let mut bytes_at = 0;
    while let Some(i) = rest.find('\\') {
        let offset = text.len() - rest.len() + i;
        if i > 0 {
            flush_bytes(&mut bytes, bytes_at, text, out)?;
        }
        push_normalised(out, &rest[..i]);
        let escape = &rest[i..];
        let (escaped, len) = unescape(escape).ok_or_else(|| BadEscape {
            at: offset,
            len: escape.chars().take(2).map(char::len_utf8).sum(),
            problem: Problem::Escape,
        })?;
        match escaped {
            Escaped::Char(c) => {
                flush_bytes(&mut bytes, bytes_at, text, out)?;
                out.push(c);
            }
            Escaped::Byte(b) => {
                if bytes.is_empty() {
                    bytes_at = offset;
                }
                bytes.push(b);
            }
            Escaped::Surrogate => {
                flush_bytes(&mut bytes, bytes_at, text, out)?;
                return Err(BadEscape {
                    at: offset,
                    len,
                    problem: Problem::Utf8,
                });
            }
        }
        rest = &escape[len..];
    }
    flush_bytes(&mut bytes, bytes_at, text, out)?;
    push_normalised(out, rest);
    Ok(())
}

/// Appends the pending byte escapes, which started at byte `at` of `text`, as UTF-8.
fn flush_bytes(
    bytes: &mut Vec<u8>,
    at: usize,
    text: &str,
    out: &mut String,
) -> Result<(), BadEscape> {
    if bytes.is_empty() {
        return Ok(());
    }
    match std::str::from_utf8(bytes) {
        Ok(s) => out.push_str(s),
        Err(_) => {
            // The run's source text: each escape is `\` and 1 to 3 characters.
            let len = escapes_len(&text[at..], bytes.len());
            return Err(BadEscape {
                at,
                len,
                problem: Problem::Utf8,
            });
        }
    }
    bytes.clear();
    Ok(())
}

/// The length in bytes of the first `n` byte escapes of `text`.
fn escapes_len(text: &str, n: usize) -> usize {
    let mut len = 0;
    for _ in 0..n {
        match unescape(&text[len..]) {
            Some((_, l)) => len += l,
            None => break,
        }
    }
    len
}

/// The character or byte the escape sequence at the start of `escape` (`\n`, `\x41`,
/// `\u00e9`, `\101`) stands for, and the sequence's length in bytes.
fn unescape(escape: &str) -> Option<(Escaped, usize)> {
    let body = escape.strip_prefix('\\')?;
    let first = body.chars().next()?;
    let digits = |radix: u32, max: usize| -> Option<(u32, usize)> {
        let n = body[first.len_utf8()..]
            .chars()
            .take(max)
            .take_while(|c| c.is_digit(radix))
            .count();
        let hex = body.get(first.len_utf8()..first.len_utf8() + n)?;
        let code = u32::from_str_radix(hex, radix).ok()?;
        (n > 0).then_some((code, 2 + n))
    };
    let char_of = |(code, len): (u32, usize)| match char::from_u32(code) {
        Some(c) => Some((Escaped::Char(c), len)),
        None => (0xd800..=0xdfff)
            .contains(&code)
            .then_some((Escaped::Surrogate, len)),
    };
    let simple = |c: char| Some((Escaped::Char(c), 1 + first.len_utf8()));
    match first {
        'n' => simple('\n'),
        't' => simple('\t'),
        'r' => simple('\r'),
        'a' => simple('\u{07}'),
        'b' => simple('\u{08}'),
        'e' => simple('\u{1b}'),
        'f' => simple('\u{0c}'),
        'v' => simple('\u{0b}'),
        '\\' | '"' | '$' | '\'' | '`' => simple(first),
        'x' => digits(16, 2).map(|(code, len)| (Escaped::Byte(code as u8), len)),
        'u' => digits(16, 4).and_then(char_of),
        'U' => digits(16, 8).and_then(char_of),
        '0'..='7' => {
            let n = body.chars().take(3).take_while(|c| c.is_digit(8)).count();
            let code = u32::from_str_radix(body.get(..n)?, 8).ok()?;
            let byte = u8::try_from(code).ok()?;
            Some((Escaped::Byte(byte), 1 + n))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::{unescape_into, BadEscape, Problem};

    fn un(text: &str) -> Result<String, (usize, usize)> {
        let mut out = String::new();
        unescape_into(text, &mut out)
            .map(|()| out)
            .map_err(|e| (e.at, e.len))
    }

    #[test]
    fn escapes() {
        assert_eq!(un("a\\nb"), Ok("a\nb".to_string()));
        assert_eq!(un("\\\""), Ok("\"".to_string()));
        assert_eq!(un("\\$"), Ok("$".to_string()));
        assert_eq!(un("\\x41"), Ok("A".to_string()));
        assert_eq!(un("\\u00e9!"), Ok("é!".to_string()));
        assert_eq!(un("\\101"), Ok("A".to_string()));
        assert_eq!(un("\\0"), Ok("\0".to_string()));
        assert_eq!(un("ab\\q"), Err((2, 2)));
        assert_eq!(un("\\x"), Err((0, 2)));
    }

    #[test]
    fn byte_escapes_are_bytes_of_utf8() {
        // Julia: "\xc3\xa9" == "é" and "\303\251" == "é" (two bytes), not "Ã©".
        assert_eq!(un("caf\\xc3\\xa9"), Ok("café".to_string()));
        assert_eq!(un("\\303\\251!"), Ok("é!".to_string()));
        assert_eq!(un("\\xe2\\x88\\x9a2"), Ok("√2".to_string()));
        // A lone continuation byte, or a lead byte cut by text, is not UTF-8.
        let mut out = String::new();
        assert_eq!(
            unescape_into("a\\xe9b", &mut out),
            Err(BadEscape {
                at: 1,
                len: 4,
                problem: Problem::Utf8
            })
        );
        assert_eq!(un("\\xc3x\\xa9"), Err((0, 4)));
        // An octal escape above \377 is not a byte.
        assert_eq!(un("\\777"), Err((0, 2)));
        assert_eq!(un("\\U110000"), Err((0, 2)));
    }

    #[test]
    fn line_endings_are_newlines() {
        assert_eq!(un("a\r\nb\rc"), Ok("a\nb\nc".to_string()));
        assert_eq!(un("a\\r\r\n"), Ok("a\r\n".to_string()));
    }
}
