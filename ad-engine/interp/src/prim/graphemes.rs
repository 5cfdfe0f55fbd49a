//! Grapheme clusters (`Unicode.graphemes`): where a string's user-perceived characters start,
//! by the extended grapheme cluster rules of Unicode's UAX #29 for the common cases: CR LF,
//! combining marks and other extenders, spacing marks, zero-width joiner sequences of
//! pictographs (emoji families), emoji modifiers, regional-indicator pairs (flags) and Hangul
//! syllables. Prepended concatenation marks and Indic conjunct rules are left out.

use unicode_general_category::{get_general_category, GeneralCategory as Cat};

/// What a character is to the cluster rules.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Class {
    Cr,
    Lf,
    Control,
    /// A mark or other character that extends the cluster before it (emoji modifiers and
    /// variation selectors too).
    Extend,
    SpacingMark,
    Zwj,
    RegionalIndicator,
    Pictographic,
    /// Hangul: leading, vowel and trailing jamo, and the precomposed syllables LV and LVT.
    L,
    V,
    T,
    Lv,
    Lvt,
    Other,
}

fn class(c: char) -> Class {
    let u = c as u32;
    match u {
        0x0d => return Class::Cr,
        0x0a => return Class::Lf,
        0x200d => return Class::Zwj,
        0x200c | 0x1f3fb..=0x1f3ff | 0xe0020..=0xe007f => return Class::Extend,
        0x1f1e6..=0x1f1ff => return Class::RegionalIndicator,
        0x1100..=0x115f | 0xa960..=0xa97c => return Class::L,
        0x1160..=0x11a7 | 0xd7b0..=0xd7c6 => return Class::V,
        0x11a8..=0x11ff | 0xd7cb..=0xd7fb => return Class::T,
        0xac00..=0xd7a3 => {
            return match (u - 0xac00) % 28 {
                0 => Class::Lv,
                _ => Class::Lvt,
            }
        }
        _ => {}
    }
    match get_general_category(c) {
        Cat::NonspacingMark | Cat::EnclosingMark => Class::Extend,
        Cat::SpacingMark => Class::SpacingMark,
        Cat::Control | Cat::LineSeparator | Cat::ParagraphSeparator => Class::Control,
        Cat::Format => Class::Control,
        _ if is_pictographic(u) => Class::Pictographic,
        _ => Class::Other,
    }
}

/// Extended_Pictographic, by its blocks: the emoji planes and the older symbol blocks that
/// hold emoji (©, ®, ‼, arrows, dingbats, miscellaneous symbols).
fn is_pictographic(u: u32) -> bool {
    matches!(u, 0xa9 | 0xae | 0x203c | 0x2049 | 0x2122 | 0x2139 | 0x2194..=0x21aa
        | 0x231a..=0x23ff | 0x24c2 | 0x25aa..=0x25fe | 0x2600..=0x27bf | 0x2934 | 0x2935
        | 0x2b05..=0x2b55 | 0x3030 | 0x303d | 0x3297 | 0x3299 | 0x1f000..=0x1faff)
}

/// Is there a boundary between `before` and `after`? `after_zwj_pictograph`: `before` is a ZWJ
/// that follows a pictograph and its extenders (GB11); `odd_regional`: `before` ends an odd run
/// of regional indicators (GB12, GB13).
fn breaks(before: Class, after: Class, after_zwj_pictograph: bool, odd_regional: bool) -> bool {
    use Class::*;
    match (before, after) {
        (Cr, Lf) => false,
        (Cr | Lf | Control, _) | (_, Cr | Lf | Control) => true,
        (L, L | V | Lv | Lvt) | (Lv | V, V | T) | (Lvt | T, T) => false,
        (_, Extend | Zwj | SpacingMark) => false,
        (Zwj, Pictographic) => !after_zwj_pictograph,
        (RegionalIndicator, RegionalIndicator) => !odd_regional,
        _ => true,
    }
}

/// The byte offsets (from 0) where each grapheme cluster of `s` starts.
pub(super) fn starts(s: &str) -> Vec<usize> {
    let mut out = Vec::new();
    let mut prev: Option<Class> = None;
    // In a pictograph's run of extenders, and whether a ZWJ ended it.
    let mut in_pictograph = false;
    let mut zwj_after_pictograph = false;
    let mut regional_run = 0usize;
    for (i, c) in s.char_indices() {
        let k = class(c);
        let boundary = match prev {
            None => true,
            Some(p) => breaks(p, k, zwj_after_pictograph, regional_run % 2 == 1),
        };
        if boundary {
            out.push(i);
        }
        zwj_after_pictograph = k == Class::Zwj && in_pictograph;
        in_pictograph = match k {
            Class::Pictographic => true,
            Class::Extend => in_pictograph,
            _ => false,
        };
        regional_run = match k {
            Class::RegionalIndicator => regional_run + 1,
            _ => 0,
        };
        prev = Some(k);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::starts;

    #[test]
    fn clusters_of_marks_emoji_and_flags() {
        // "e" + combining acute, a family by ZWJs, a flag, a thumbs-up with a skin tone, CR LF.
        let s = "e\u{301}x👨\u{200d}👩\u{200d}👧🇫🇷🇩👍🏽\r\n!";
        let parts: Vec<&str> = {
            let mut ends = starts(s);
            ends.push(s.len());
            ends.windows(2).map(|w| &s[w[0]..w[1]]).collect()
        };
        assert_eq!(
            parts,
            [
                "e\u{301}",
                "x",
                "👨\u{200d}👩\u{200d}👧",
                "🇫🇷",
                "🇩",
                "👍🏽",
                "\r\n",
                "!"
            ]
        );
    }

    #[test]
    fn hangul_syllables_from_jamo() {
        assert_eq!(starts("\u{1100}\u{1161}\u{11a8}한"), [0, 9]);
    }
}
