//! Julia's normalisation of identifiers: Unicode NFC (a precomposed `é` and `e` followed by
//! U+0301 are one name), after mapping the micro sign `µ` to the Greek `μ`, the Latin `ɛ` to
//! the Greek `ε` and `ℏ` to `ħ`, so `f(µ) = μ + 1` reads its argument, as in Julia
//! (JuliaSyntax's `normalize_identifier`). The source text is not rewritten: each name whose
//! normal form differs is kept by its range, so every range stays a byte range of the source.

use std::borrow::Cow;
use std::collections::BTreeMap;

use icu_normalizer::ComposingNormalizerBorrowed;

use crate::ast::TextRange;
use crate::kind::Kind;
use crate::tree::SyntaxNode;

/// Characters Julia reads as another in a name, before composing.
const SAME_NAME: [(char, char); 3] = [
    ('\u{b5}', '\u{3bc}'),
    ('\u{25b}', '\u{3b5}'),
    ('\u{210f}', '\u{127}'),
];

/// The normal form of every name of a text that is not written in it, by the name's range.
#[derive(Default)]
pub(crate) struct Names {
    by_start: BTreeMap<u32, (u32, String)>,
}

/// No name to normalise: the context of a text whose names are read as written.
pub(crate) static AS_WRITTEN: Names = Names {
    by_start: BTreeMap::new(),
};

impl Names {
    /// The names of the tree under `root` (strings, comments and `var"..."` names untouched)
    /// whose text in `text` is not in Julia's normal form.
    pub(crate) fn of(text: &str, root: &SyntaxNode) -> Names {
        let mut names = Names::default();
        if text.is_ascii() {
            return names;
        }
        let mut stack = vec![root];
        while let Some(node) = stack.pop() {
            if node.leaf {
                if node.kind == Kind::Identifier {
                    let range = node.range.start as usize..node.range.end as usize;
                    if let Some(Cow::Owned(normal)) = text.get(range).map(normalize_identifier) {
                        names
                            .by_start
                            .insert(node.range.start, (node.range.end, normal));
                    }
                }
            } else if node.kind != Kind::Var {
                stack.extend(node.children.iter());
            }
        }
        names
    }

    /// The normal form of the name at exactly `range`, if it is written otherwise.
    pub(crate) fn get(&self, range: TextRange) -> Option<&str> {
        self.by_start
            .get(&range.start)
            .filter(|(end, _)| *end == range.end)
            .map(|(_, name)| name.as_str())
    }
}

/// `name` as Julia reads it: borrowed when it is already in normal form.
pub(crate) fn normalize_identifier(name: &str) -> Cow<'_, str> {
    if name.is_ascii() {
        return Cow::Borrowed(name);
    }
    let mapped: String = name.chars().map(same_name).collect();
    let normal = ComposingNormalizerBorrowed::new_nfc()
        .normalize(&mapped)
        .into_owned();
    if normal == name {
        Cow::Borrowed(name)
    } else {
        Cow::Owned(normal)
    }
}

/// The character Julia reads `c` as in a name.
fn same_name(c: char) -> char {
    SAME_NAME
        .iter()
        .find(|&&(from, _)| from == c)
        .map_or(c, |&(_, to)| to)
}

#[cfg(test)]
mod tests {
    use super::normalize_identifier;

    #[test]
    fn composes_and_maps_as_julia() {
        assert_eq!(normalize_identifier("e\u{301}t\u{e9}"), "\u{e9}t\u{e9}");
        assert_eq!(normalize_identifier("\u{b5}x"), "\u{3bc}x");
        assert_eq!(normalize_identifier("\u{25b}"), "\u{3b5}");
        assert_eq!(normalize_identifier("\u{210f}"), "\u{127}");
        assert!(matches!(
            normalize_identifier("\u{e9}t\u{e9}"),
            std::borrow::Cow::Borrowed(_)
        ));
        assert_eq!(normalize_identifier("x\u{2081}"), "x\u{2081}");
    }
}
