//! Numeric and string literals, with Julia's rules: `1_000` is an `Int64`, `-2` a signed
//! literal, a decimal integer that does not fit is an error, `1f0` is a `Float32` (outside
//! the subset), `0x10` an unsigned integer (outside the subset).

use crate::ast::{Expr, ExprKind};
use crate::cx::Cx;
use crate::tree::SyntaxNode;

/// An `Integer` token (possibly signed: `-2` is one literal).
pub(crate) fn integer(cx: &mut Cx, node: &SyntaxNode) -> Expr {
    let text = cx.text(node);
    let digits: String = text
        .chars()
        .filter(|c| *c != '_')
        .map(|c| if c == '−' { '-' } else { c })
        .collect();
    match digits.parse::<i64>() {
        Ok(value) => Expr::new(ExprKind::Int(value), node.range),
        Err(_) => cx.syntax(node, "integer literal too large"),
    }
}

/// A `BinInt`, `OctInt` or `HexInt` token: an unsigned integer in Julia.
pub(crate) fn unsigned(cx: &mut Cx, node: &SyntaxNode) -> Expr {
    let text = cx.text(node);
    let (radix, digits) = match text.get(..2) {
        Some("0x") => (16, &text[2..]),
        Some("0o") => (8, &text[2..]),
        Some("0b") => (2, &text[2..]),
        _ => (10, text),
    };
    let digits: String = digits.chars().filter(|c| *c != '_').collect();
    let message = match i64::from_str_radix(&digits, radix) {
        Ok(n) => format!("unsigned integer literal `{text}`; write the `Int` `{n}` instead"),
        Err(_) => format!("unsigned integer literal `{text}`"),
    };
    cx.unsupported(node, &message)
}

/// A `Float` token (possibly signed, possibly hexadecimal).
pub(crate) fn float(cx: &mut Cx, node: &SyntaxNode) -> Expr {
    let text = cx.text(node);
    if text.trim_start_matches(['-', '+', '−']).starts_with("0x") {
        let message =
            format!("hexadecimal float literal `{text}`; write a decimal Float64 literal instead");
        return cx.unsupported(node, &message);
    }
    let digits: String = text
        .chars()
        .filter(|c| *c != '_')
        .map(|c| if c == '−' { '-' } else { c })
        .collect();
    match digits.parse::<f64>() {
        Ok(value) if value.is_finite() => Expr::new(ExprKind::Float(value), node.range),
        Ok(_) => cx.syntax(node, "float literal too large"),
        Err(_) => cx.syntax(
            node,
            &format!("syntax error: invalid float literal `{text}`"),
        ),
    }
}

/// A string literal: its chunks with escapes resolved. With interpolation (`"bad $x"`) it is
/// a call of [`crate::ast::INTERPOLATION`] on the parts.
pub(crate) fn string(cx: &mut Cx, node: &SyntaxNode) -> Expr {
    let raw = node.has_flag(crate::parser::stream::flags::RAW_STRING);
    let mut value = String::new();
    let mut parts = Vec::new();
    for part in &node.children {
        if part.kind != crate::kind::Kind::String {
            if !value.is_empty() {
                let text = std::mem::take(&mut value);
                parts.push(Expr::new(ExprKind::Str(text), part.range));
            }
            parts.push(crate::expr::expr(cx, part));
            continue;
        }
        let text = cx.text(part);
        if raw {
            value.push_str(text);
            continue;
        }
        if let Err((at, len)) = unescape_into(text, &mut value) {
            let start = part.range.start + at as u32;
            let range = crate::ast::TextRange::new(start, start + len as u32);
            let shown = cx.slice(range).to_string();
            cx.push(
                range,
                "syntax-error",
                format!("syntax error: invalid escape sequence `{shown}`"),
            );
            return Expr::new(ExprKind::Error, node.range);
        }
    }
    if parts.is_empty() {
        return Expr::new(ExprKind::Str(value), node.range);
    }
    if !value.is_empty() {
        parts.push(Expr::new(ExprKind::Str(value), node.range));
    }
    let callee = Expr::new(
        ExprKind::Ident(crate::ast::INTERPOLATION.into()),
        node.range,
    );
    let kind = ExprKind::Call {
        callee: Box::new(callee),
        args: parts,
    };
    Expr::new(kind, node.range)
}

/// Appends `text` with its escape sequences resolved; on an invalid one, its byte offset and
/// length.
fn unescape_into(text: &str, out: &mut String) -> Result<(), (usize, usize)> {
    let mut rest = text;
    while let Some(i) = rest.find('\\') {
        out.push_str(&rest[..i]);
        let escape = &rest[i..];
        let offset = text.len() - escape.len();
        let (c, len) = unescape(escape).ok_or_else(|| {
            let len = escape.chars().take(2).map(char::len_utf8).sum::<usize>();
            (offset, len)
        })?;
        out.push(c);
        rest = &escape[len..];
    }
    out.push_str(rest);
    Ok(())
}

/// The character the escape sequence at the start of `escape` (`\n`, `\x41`, `\u00e9`,
/// `\101`) stands for, and the sequence's length in bytes.
fn unescape(escape: &str) -> Option<(char, usize)> {
    let body = escape.strip_prefix('\\')?;
    let first = body.chars().next()?;
    let digits = |radix: u32, max: usize| -> Option<(char, usize)> {
        let n = body[first.len_utf8()..]
            .chars()
            .take(max)
            .take_while(|c| c.is_digit(radix))
            .count();
        let hex = body.get(first.len_utf8()..first.len_utf8() + n)?;
        let code = u32::from_str_radix(hex, radix).ok()?;
        Some((char::from_u32(code)?, 2 + n))
    };
    let simple = |c: char| Some((c, 1 + first.len_utf8()));
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
        'x' => digits(16, 2).filter(|(_, len)| *len > 2),
        'u' => digits(16, 4).filter(|(_, len)| *len > 2),
        'U' => digits(16, 8).filter(|(_, len)| *len > 2),
        '0'..='7' => {
            let n = body.chars().take(3).take_while(|c| c.is_digit(8)).count();
            let code = u32::from_str_radix(body.get(..n)?, 8).ok()?;
            Some((char::from_u32(code)?, 1 + n))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::unescape_into;

    fn un(text: &str) -> Result<String, (usize, usize)> {
        let mut out = String::new();
        unescape_into(text, &mut out).map(|()| out)
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
}
