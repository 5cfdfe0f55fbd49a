//! Completion after a dot: the names a module defines (`Outer.`, `Outer.Inner.`,
//! `LinearAlgebra.`), or the fields of a value whose struct is known (`p.`, `w.body.`), as
//! [`crate::field`] finds it.

use std::collections::BTreeMap;

use zy_hir::{ItemKind, RootDatabase, SourceFile};

use crate::definition::{code_module, dotted};
use crate::hover::word_at;
use crate::outline::outline;
use crate::{Analysis, Cancellable, FileId};

/// A name offered after a dot.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Completion {
    pub label: String,
    pub kind: CompletionKind,
    /// A field's type.
    pub detail: Option<String>,
}

/// What a completed name is.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
pub enum CompletionKind {
    Function,
    Struct,
    Constant,
    Module,
    Field,
}

impl Analysis {
    /// The names that may follow the dot before `offset` (the name being typed after it
    /// included), sorted; none where the cursor is not after a dot.
    pub fn completions(&self, file: FileId, offset: u32) -> Cancellable<Vec<Completion>> {
        self.with_db(|db| completions(db, file.0, offset))
    }
}

fn completions(db: &RootDatabase, file: SourceFile, offset: u32) -> Vec<Completion> {
    let text = file.text(db);
    let offset = (offset as usize).min(text.len());
    // The start of the name typed so far (none yet right after the dot).
    let start = match word_at(text, offset as u32) {
        Some((start, _)) if start < offset => start,
        _ => offset,
    };
    if !text.is_char_boundary(start) || !text[..start].ends_with('.') {
        return Vec::new();
    }
    let written = dotted(text, start, start);
    let receiver = written.strip_suffix('.').unwrap_or(written);
    let module = code_module(db, file, start as u32);
    match zy_hir::scope::scope_names(db, file).module_path(&module, receiver) {
        Some(path) => members(db, file, &path),
        None => {
            let function = outline(db, file)
                .into_iter()
                .find(|f| f.contains(start as u32));
            crate::field::fields(db, file, start, receiver, function.as_ref())
                .into_iter()
                .map(|(label, ty)| Completion {
                    label,
                    kind: CompletionKind::Field,
                    detail: Some(ty),
                })
                .collect()
        }
    }
}

/// The names module `path` defines, each once.
fn members(db: &RootDatabase, file: SourceFile, path: &str) -> Vec<Completion> {
    let root = zy_hir::scope_root(db, file);
    let mut names = BTreeMap::new();
    for item in zy_hir::program_items(db, file) {
        let kind = match item.kind(db) {
            ItemKind::Function => CompletionKind::Function,
            ItemKind::Struct => CompletionKind::Struct,
            ItemKind::Global => CompletionKind::Constant,
            ItemKind::Module => CompletionKind::Module,
            _ => continue,
        };
        let name = item.name(db);
        // `Base.show(io, x) = ...` adds a method to another module's function.
        if name.contains('.') || name.starts_with('#') || name.starts_with('(') {
            continue;
        }
        if *zy_hir::item_module(db, root, item) == *path {
            names.entry(name.to_string()).or_insert(kind);
        }
    }
    names
        .into_iter()
        .map(|(label, kind)| Completion {
            label,
            kind,
            detail: None,
        })
        .collect()
}
