//! Julia's normalisation of identifiers, where it keeps every byte offset: the micro sign `µ`
//! (U+00B5) is the Greek `μ` (U+03BC) and the Latin `ɛ` (U+025B) the Greek `ε` (U+03B5), so
//! `f(µ) = μ + 1` reads its argument, as in Julia. (Julia also maps `ℏ` to `ħ` and applies
//! Unicode NFC; those change lengths and are not done.)

use std::borrow::Cow;

use crate::kind::Kind;
use crate::tree::SyntaxNode;

/// Characters Julia reads as another in a name, each pair the same length in UTF-8.
const SAME_NAME: [(char, char); 2] = [('\u{b5}', '\u{3bc}'), ('\u{25b}', '\u{3b5}')];

/// `text` with the names of the tree under `root` normalised (strings, comments and
/// `var"..."` names untouched); borrowed when nothing changes.
pub(crate) fn normalized<'t>(text: &'t str, root: &SyntaxNode) -> Cow<'t, str> {
    if !text
        .chars()
        .any(|c| SAME_NAME.iter().any(|&(from, _)| from == c))
    {
        return Cow::Borrowed(text);
    }
    let mut out = text.to_string();
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        if node.leaf {
            if node.kind == Kind::Identifier {
                let range = node.range.start as usize..node.range.end as usize;
                if let Some(name) = text.get(range.clone()) {
                    let same: String = name.chars().map(same_name).collect();
                    if same.len() == name.len() {
                        out.replace_range(range, &same);
                    }
                }
            }
        } else if node.kind != Kind::Var {
            stack.extend(node.children.iter());
        }
    }
    Cow::Owned(out)
}

/// The character Julia reads `c` as in a name.
fn same_name(c: char) -> char {
    SAME_NAME
        .iter()
        .find(|&&(from, _)| from == c)
        .map_or(c, |&(_, to)| to)
}
