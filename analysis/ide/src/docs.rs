//! Docstrings on hover: the docstrings of what the name under the cursor refers to, as Julia's
//! `?name` shows them (each documented method's, in the program's order), wherever it is
//! defined: the file, a file it includes, a module, zy's library. A field's are
//! [`crate::field`]'s.

use std::collections::HashSet;

use zy_hir::{RootDatabase, SourceFile};
use zy_syntax::Docstring;

use crate::definition::defining_items;

/// Between the docstrings of several definitions, and before zy's own hover text.
pub(crate) const RULE: &str = "\n\n---\n\n";

/// The docstrings of the name at `start..end` of `file` (not a field's), joined, if it has any.
pub(crate) fn documentation(
    db: &RootDatabase,
    file: SourceFile,
    start: usize,
    end: usize,
) -> Option<String> {
    let sections = definition_docs(db, file, start, end);
    (!sections.is_empty()).then(|| sections.join(RULE))
}

/// The docstrings of the definitions of the name; where the name resolves to none, that of the
/// definition written there (a module inside another).
fn definition_docs(db: &RootDatabase, file: SourceFile, start: usize, end: usize) -> Vec<String> {
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for (item, s, e) in defining_items(db, file, start, end) {
        let found = documenting(zy_hir::item_docstrings(db, item), s, e);
        // A refused struct's range holds its fields' docstrings, after its own.
        if let Some(d) = found.filter(|d| d.field_of.is_none()) {
            if seen.insert((item.file(db), d.name.start)) {
                out.push(shown(d));
            }
        }
    }
    if out.is_empty() {
        let here = zy_hir::docstrings(db, file);
        out.extend(documenting(here, start as u32, end as u32).map(shown));
    }
    out
}

/// The docstring among `docs` of the name written at `start..end`, or inside it (a refused
/// definition's whole range), if it has one. A name may be the last part of the documented
/// one (`show` of `Base.show`).
fn documenting(docs: &[Docstring], start: u32, end: u32) -> Option<&Docstring> {
    docs.iter().find(|d| {
        let (s, e) = (d.name.start, d.name.end);
        (s <= start && e == end) || (start <= s && e <= end)
    })
}

/// A docstring as shown: in the editor's Markdown, without the newline a triple-quoted one
/// ends with.
pub(crate) fn shown(d: &Docstring) -> String {
    crate::markdown::editor_markdown(d.text.trim_end())
}
