//! Docstrings on hover: the docstrings of what the name under the cursor refers to, as Julia's
//! `?name` shows them (each documented method's, in the program's order), wherever it is
//! defined: the file, a file it includes, a module, zy's library. A field's name after a dot
//! shows the docstrings of the fields so named.

use std::collections::HashSet;

use zy_hir::{RootDatabase, SourceFile};
use zy_syntax::Docstring;

use crate::definition::{code_module, defining_items, dotted};

/// Between the docstrings of several definitions, and before zy's own hover text.
pub(crate) const RULE: &str = "\n\n---\n\n";

/// The docstrings of the name at `start..end` of `file`, joined, if it has any.
pub(crate) fn documentation(
    db: &RootDatabase,
    file: SourceFile,
    start: usize,
    end: usize,
) -> Option<String> {
    let text = file.text(db);
    let written = dotted(text, start, end);
    // `p.mass`, `xs[1].mass`: a field, unless written after a module's name.
    let field = match written.rsplit_once('.') {
        Some((prefix, _)) => !is_module(db, file, start, prefix),
        None => text[..start].ends_with('.'),
    };
    let sections = if field {
        field_docs(db, file, &text[start..end])
    } else {
        definition_docs(db, file, start, end)
    };
    (!sections.is_empty()).then(|| sections.join(RULE))
}

/// Whether `prefix` names a module in the code at `offset`.
fn is_module(db: &RootDatabase, file: SourceFile, offset: usize, prefix: &str) -> bool {
    let module = code_module(db, file, offset as u32);
    zy_hir::scope::scope_names(db, file)
        .module_path(&module, prefix)
        .is_some()
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

/// A docstring as shown: without the newline a triple-quoted one ends with.
fn shown(d: &Docstring) -> String {
    d.text.trim_end().to_string()
}

/// The docstrings of the fields named `field` of the structs of `file`'s program (not the
/// library's), each headed by its struct when there are several.
fn field_docs(db: &RootDatabase, file: SourceFile, field: &str) -> Vec<String> {
    let mut found = Vec::new();
    let files = zy_hir::scope_files(db, file);
    for f in files.into_iter().filter(|&f| !zy_hir::is_prelude(db, f)) {
        let text = f.text(db);
        for d in zy_hir::docstrings(db, f).iter() {
            let name = text.get(d.name.start as usize..d.name.end as usize);
            if let (Some(owner), Some(name)) = (&d.field_of, name) {
                if name == field {
                    found.push((owner.clone(), shown(d)));
                }
            }
        }
    }
    match found.as_slice() {
        [(_, text)] => vec![text.clone()],
        _ => found
            .into_iter()
            .map(|(owner, text)| format!("`{owner}.{field}`\n\n{text}"))
            .collect(),
    }
}
