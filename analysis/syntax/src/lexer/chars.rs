//! Character classes of Julia's lexer: what may start or continue a name, what may follow an
//! operator as a suffix, what is whitespace. Julia defines them by Unicode general category
//! with a few allow- and deny-lists (`src/flisp/julia_extensions.c` in Julia).

use unicode_general_category::{get_general_category, GeneralCategory as Cat};

/// Can `c` start a name?
pub fn is_identifier_start_char(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_alphabetic() || c == '_';
    }
    let wc = c as u32;
    // The arrow 🢲 is a binary operator (`a 🢲 b`, Julia's issue 57143), though its category
    // would start a name; it may still continue one (`x🢲`), as in JuliaSyntax.
    if wc < 0xa1 || wc == 0x1f8b2 {
        return false;
    }
    is_category_id_start(wc, get_general_category(c))
}

/// Can `c` continue a name?
pub fn is_identifier_char(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_alphanumeric() || c == '_' || c == '!';
    }
    let wc = c as u32;
    if wc < 0xa1 {
        return false;
    }
    let cat = get_general_category(c);
    is_category_id_start(wc, cat)
        || matches!(
            cat,
            Cat::NonspacingMark
                | Cat::SpacingMark
                | Cat::DecimalNumber
                | Cat::ConnectorPunctuation
                | Cat::ModifierSymbol
                | Cat::EnclosingMark
                | Cat::OtherNumber
        )
        // Primes (single, double, triple, their reverses) and the quadruple prime.
        || (0x2032..=0x2037).contains(&wc)
        || wc == 0x2057
        || wc == 0x1f8b2
}

/// Letters, currency, most other symbols and an allowlist of mathematical symbols start names.
fn is_category_id_start(wc: u32, cat: Cat) -> bool {
    matches!(
        cat,
        Cat::UppercaseLetter
            | Cat::LowercaseLetter
            | Cat::TitlecaseLetter
            | Cat::ModifierLetter
            | Cat::OtherLetter
            | Cat::LetterNumber
            | Cat::CurrencySymbol
    ) || (cat == Cat::OtherSymbol
        && !(0x2190..=0x21ff).contains(&wc)
        && !matches!(wc, 0xfffc | 0xfffd | 0x233f | 0x00a6))
        || is_math_id_start(wc)
        || matches!(
            wc,
            0x1d6c1 | 0x1d6db | 0x1d6fb | 0x1d715 | 0x1d735 | 0x1d74f | 0x1d76f | 0x1d789
                | 0x1d7a9 | 0x1d7c3
        )
        // Superscript and subscript `+ - = ( )`.
        || (0x207a..=0x207e).contains(&wc)
        || (0x208a..=0x208e).contains(&wc)
        // Angle symbols.
        || (0x2220..=0x2222).contains(&wc)
        || (0x299b..=0x29af).contains(&wc)
        // Other_ID_Start.
        || matches!(wc, 0x2118 | 0x212e | 0x309b | 0x309c)
        // Bold and double-struck digits.
        || (0x1d7ce..=0x1d7e1).contains(&wc)
}

/// The mathematical symbols (category Sm) that Julia allows in names: `∂`, `∇`, `∑`, `∞`, ...
fn is_math_id_start(wc: u32) -> bool {
    if !(0x2140..=0x2a1c).contains(&wc) {
        return false;
    }
    (0x2140..=0x2144).contains(&wc)
        || matches!(wc, 0x223f | 0x22be | 0x22bf | 0x22a4 | 0x22a5)
        || ((0x2200..=0x2233).contains(&wc)
            && (matches!(
                wc,
                0x2202
                    | 0x2205
                    | 0x2206
                    | 0x2207
                    | 0x220e
                    | 0x220f
                    | 0x2200
                    | 0x2203
                    | 0x2204
                    | 0x2210
                    | 0x2211
                    | 0x221e
                    | 0x221f
            ) || wc >= 0x222b))
        || (0x22c0..=0x22c3).contains(&wc)
        || (0x25f8..=0x25ff).contains(&wc)
        || matches!(wc, 0x266f | 0x27d8 | 0x27d9 | 0x2a1b | 0x2a1c)
        || (0x27c0..=0x27c1).contains(&wc)
        || (0x29b0..=0x29b4).contains(&wc)
        || (0x2a00..=0x2a06).contains(&wc)
        || (0x2a09..=0x2a16).contains(&wc)
}

/// Superscripts, subscripts and primes that may follow an operator (`+₁`, `-′`).
const OP_SUFFIXES: &str = "²³¹ʰʲʳʷʸˡˢˣᴬᴮᴰᴱᴳᴴᴵᴶᴷᴸᴹᴺᴼᴾᴿᵀᵁᵂᵃᵇᵈᵉᵍᵏᵐᵒᵖᵗᵘᵛᵝᵞᵟᵠᵡᵢᵣᵤᵥᵦᵧᵨᵩᵪᶜᶠᶥᶦᶫᶰᶸᶻᶿ\
                          ′″‴‵‶‷⁗⁰ⁱ⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾ⁿ₀₁₂₃₄₅₆₇₈₉₊₋₌₍₎ₐₑₒₓₕₖₗₘₙₚₛₜⱼⱽꜛꜜꜝ";

/// Can `c` follow an operator as part of it? Combining marks and [`OP_SUFFIXES`].
pub fn is_op_suffix(c: char) -> bool {
    if (c as u32) < 0xa1 {
        return false;
    }
    matches!(
        get_general_category(c),
        Cat::NonspacingMark | Cat::SpacingMark | Cat::EnclosingMark
    ) || OP_SUFFIXES.contains(c)
}

/// Whitespace as Julia sees it: ASCII blanks, U+0085, the space separators, and the byte
/// order mark.
pub fn is_whitespace(c: char) -> bool {
    match c {
        ' ' | '\t'..='\r' | '\u{85}' | '\u{feff}' => true,
        c if c.is_ascii() => false,
        c => get_general_category(c) == Cat::SpaceSeparator,
    }
}

/// Characters that are never part of a name (spaces, controls, ASCII punctuation, brackets):
/// after `$x` in a string they end the name; any other character there is an error.
pub fn is_never_id_char(c: char) -> bool {
    let wc = c as u32;
    let cat = get_general_category(c);
    matches!(
        cat,
        Cat::SpaceSeparator
            | Cat::LineSeparator
            | Cat::ParagraphSeparator
            | Cat::Control
            | Cat::Format
            | Cat::Surrogate
    ) || (wc < 0xff
        && matches!(
            cat,
            Cat::DashPunctuation
                | Cat::OpenPunctuation
                | Cat::ClosePunctuation
                | Cat::InitialPunctuation
                | Cat::FinalPunctuation
                | Cat::OtherPunctuation
        ))
        || c == '`'
        || (0x27e6..=0x27ef).contains(&wc)
        || (0x3008..=0x3011).contains(&wc)
        || (0x3014..=0x301b).contains(&wc)
        || matches!(wc, 0xff08 | 0xff09 | 0xff3b | 0xff3d)
}

/// Invisible characters Julia rejects in code (zero-width spaces, joiners, direction marks).
pub fn is_invisible_char(c: char) -> bool {
    matches!(
        c,
        '\u{ad}'
            | '\u{200b}'
            | '\u{200c}'
            | '\u{200d}'
            | '\u{200e}'
            | '\u{200f}'
            | '\u{2060}'
            | '\u{2061}'
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        for c in ['x', '_', 'α', 'ȳ', '∇', '∂', '∑', '€', 'ℯ'] {
            assert!(is_identifier_start_char(c), "{c}");
        }
        for c in ['1', '!', '₁', '′', '\u{304}', 'ᵀ'] {
            assert!(is_identifier_char(c), "{c}");
            assert!(!is_identifier_start_char(c) || c == 'ᵀ', "{c}");
        }
        for c in ['+', '√', '→', ' ', '(', '∈'] {
            assert!(!is_identifier_char(c), "{c}");
        }
    }

    #[test]
    fn suffixes_and_whitespace() {
        assert!(is_op_suffix('₁'));
        assert!(is_op_suffix('′'));
        assert!(!is_op_suffix('x'));
        assert!(is_whitespace('\u{a0}'));
        assert!(is_whitespace('\u{feff}'));
        assert!(!is_whitespace('\u{2028}'));
        assert!(is_never_id_char(')'));
        assert!(!is_never_id_char('α'));
    }
}
