//! Numeric and string literals, with Julia's rules: `1_000` is an `Int64`, a decimal integer
//! that does not fit is an error, `1f0` is a `Float32` (outside the subset), `0x10` an unsigned
//! integer (outside the subset).

use tree_sitter::Node;

use crate::ast::{Expr, ExprKind};
use crate::cx::{kids, range, Cx};

/// An `integer_literal` node.
pub(crate) fn integer(cx: &mut Cx, node: Node) -> Expr {
    let text = cx.text(node);
    if text.starts_with("0x") || text.starts_with("0o") || text.starts_with("0b") {
        return cx.unsupported(node, &format!("unsigned integer literal `{text}`"));
    }
    let digits: String = text.chars().filter(|c| *c != '_').collect();
    match digits.parse::<i64>() {
        Ok(value) => Expr::new(ExprKind::Int(value), range(node)),
        Err(_) if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) => {
            cx.syntax(node, "integer literal too large")
        }
        Err(_) => cx.syntax(
            node,
            &format!("syntax error: invalid integer literal `{text}`"),
        ),
    }
}

/// A `float_literal` node.
pub(crate) fn float(cx: &mut Cx, node: Node) -> Expr {
    let text = cx.text(node);
    if text.starts_with("0x") {
        return cx.unsupported(node, &format!("hexadecimal float literal `{text}`"));
    }
    if text.contains('f') {
        return cx.unsupported(node, &format!("Float32 literal `{text}`"));
    }
    let digits: String = text.chars().filter(|c| *c != '_').collect();
    match digits.parse::<f64>() {
        Ok(value) if value.is_finite() => Expr::new(ExprKind::Float(value), range(node)),
        Ok(_) => cx.syntax(node, "float literal too large"),
        Err(_) => cx.syntax(
            node,
            &format!("syntax error: invalid float literal `{text}`"),
        ),
    }
}

/// A `string_literal` node: plain text with escapes; interpolation is outside the subset.
pub(crate) fn string(cx: &mut Cx, node: Node) -> Expr {
    if cx.text(node).starts_with("\"\"\"") {
        return cx.unsupported(node, "triple-quoted string");
    }
    let mut value = String::new();
    for part in kids(node) {
        match part.kind() {
            "content" => value.push_str(cx.text(part)),
            "escape_sequence" => match unescape(cx.text(part)) {
                Some(c) => value.push(c),
                None => {
                    return cx.syntax(
                        part,
                        &format!("syntax error: invalid escape sequence `{}`", cx.text(part)),
                    )
                }
            },
            "string_interpolation" => return cx.unsupported(part, "string interpolation"),
            _ => return cx.syntax(part, "syntax error: invalid string literal"),
        }
    }
    Expr::new(ExprKind::Str(value), range(node))
}

/// The character an escape sequence (`\n`, `\x41`, `\u00e9`, `\101`) stands for.
fn unescape(escape: &str) -> Option<char> {
    let body = escape.strip_prefix('\\')?;
    let mut chars = body.chars();
    let first = chars.next()?;
    let rest = chars.as_str();
    let code = match first {
        'n' => '\n' as u32,
        't' => '\t' as u32,
        'r' => '\r' as u32,
        '0'..='7' => u32::from_str_radix(body, 8).ok()?,
        'a' => 0x07,
        'b' => 0x08,
        'e' => 0x1b,
        'f' => 0x0c,
        'v' => 0x0b,
        'x' | 'u' | 'U' => u32::from_str_radix(rest, 16).ok()?,
        c if rest.is_empty() && !c.is_alphanumeric() => c as u32,
        _ => return None,
    };
    char::from_u32(code)
}

#[cfg(test)]
mod tests {
    use super::unescape;

    #[test]
    fn escapes() {
        assert_eq!(unescape("\\n"), Some('\n'));
        assert_eq!(unescape("\\\""), Some('"'));
        assert_eq!(unescape("\\$"), Some('$'));
        assert_eq!(unescape("\\x41"), Some('A'));
        assert_eq!(unescape("\\u00e9"), Some('é'));
        assert_eq!(unescape("\\101"), Some('A'));
        assert_eq!(unescape("\\q"), None);
    }
}
