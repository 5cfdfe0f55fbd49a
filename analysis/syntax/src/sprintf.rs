//! `@sprintf(fmt, xs...)` (the Printf standard library): the string Julia's format writes. The
//! format is a literal, as Julia's macro requires, so it is split here: its text stays text,
//! `%s` is the value as `string` prints it, and each other conversion (`%d %i %x %o %f %e %g`
//! of a number, `%s` with a width or precision, `%c` of a character, with flags, width and
//! precision) becomes `Base._sprintf("%.3f", x)`, one formatted value; the parts are joined as
//! an interpolated string is (`string(parts...)`).

use crate::ast::{Expr, ExprKind, INTERPOLATION};
use crate::cx::Cx;
use crate::expr::expr;
use crate::tree::SyntaxNode;

/// One piece of a format.
enum Piece {
    Text(String),
    /// A conversion: its spec without length modifiers (`%08.3f`), and whether it is `%s`
    /// with nothing else.
    Convert(String, bool),
}

/// `@sprintf(fmt, xs...)` as `string(...)` of its pieces.
pub(crate) fn sprintf(cx: &mut Cx, node: &SyntaxNode, args: &[SyntaxNode]) -> Expr {
    let r = node.range;
    let Some((fmt, values)) = args.split_first() else {
        return cx.syntax(node, "`@sprintf` needs a format string");
    };
    let format = expr(cx, fmt);
    let ExprKind::Str(text) = &format.kind else {
        return cx.syntax(
            fmt,
            "ArgumentError: First argument to `@sprintf` must be a format string.",
        );
    };
    let pieces = match pieces(text) {
        Ok(p) => p,
        Err(Refusal::Invalid) => {
            let message = format!("ArgumentError: invalid format string: '{text}'");
            return cx.syntax(fmt, &message);
        }
        Err(Refusal::Unsupported(what)) => return cx.unsupported(fmt, &what),
    };
    let conversions = pieces
        .iter()
        .filter(|p| matches!(p, Piece::Convert(..)))
        .count();
    if conversions != values.len() {
        let message = format!(
            "ArgumentError: Number of format specifiers and number of provided args differ \
             (`@sprintf`: {conversions} conversions, {} values)",
            values.len()
        );
        return cx.syntax(node, &message);
    }
    let mut values = values.iter();
    let mut parts = Vec::new();
    for piece in pieces {
        match piece {
            Piece::Text(t) => parts.push(Expr::new(ExprKind::Str(t), r)),
            Piece::Convert(spec, plain_s) => {
                let Some(v) = values.next() else { break };
                let v = expr(cx, v);
                if plain_s {
                    parts.push(v);
                } else {
                    let spec = Expr::new(ExprKind::Str(spec), r);
                    parts.push(Expr::call("Base._sprintf", vec![spec, v], r));
                }
            }
        }
    }
    Expr::call(INTERPOLATION, parts, r)
}

enum Refusal {
    Invalid,
    Unsupported(String),
}

/// The format's text and conversions, as Printf's `Format` parses them.
fn pieces(text: &str) -> Result<Vec<Piece>, Refusal> {
    let mut out = Vec::new();
    let mut literal = String::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '%' {
            literal.push(c);
            continue;
        }
        if chars.peek() == Some(&'%') {
            chars.next();
            literal.push('%');
            continue;
        }
        let mut spec = String::from("%");
        while let Some(&f) = chars.peek().filter(|f| "-+ 0#".contains(**f)) {
            spec.push(f);
            chars.next();
        }
        while let Some(&d) = chars.peek().filter(|d| d.is_ascii_digit() || **d == '.') {
            spec.push(d);
            chars.next();
        }
        if spec[1..].matches('.').count() > 1 {
            return Err(Refusal::Invalid);
        }
        // Length modifiers (`%ld`, `%lld`, `%Lf`, ...) change nothing in Julia.
        while chars.peek().is_some_and(|m| "hlLjqtz".contains(*m)) {
            chars.next();
        }
        let conv = chars.next().ok_or(Refusal::Invalid)?;
        let plain_s = match conv {
            'd' | 'i' | 'u' | 'x' | 'X' | 'o' | 'f' | 'F' | 'e' | 'E' | 'g' | 'G' | 'c' | 'C' => {
                false
            }
            's' | 'S' => spec == "%",
            'a' | 'A' | 'p' | 'n' | 'D' | 'O' | 'U' => {
                return Err(Refusal::Unsupported(format!(
                    "`@sprintf` conversion `%{conv}`; zy formats `%d %i %x %o %f %e %g %s %c`"
                )))
            }
            _ => return Err(Refusal::Invalid),
        };
        // `%u` is Julia's `%d` (an integer in base 10).
        let conv = if conv == 'u' { 'd' } else { conv };
        spec.push(conv);
        if !literal.is_empty() {
            out.push(Piece::Text(std::mem::take(&mut literal)));
        }
        out.push(Piece::Convert(spec, plain_s));
    }
    if !literal.is_empty() {
        out.push(Piece::Text(literal));
    }
    Ok(out)
}
