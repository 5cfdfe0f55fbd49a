//! Go to definition: where the function, struct or binding named under the cursor is defined,
//! in the file itself, a file it includes, or the prelude.

use std::path::PathBuf;

use zy_hir::{ItemKind, RootDatabase, SourceFile};
use zy_syntax::ast::Item;

use crate::hover::word_at;
use crate::{Analysis, Cancellable, FileId};

/// A place in a file of the program (byte offsets).
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Location {
    /// The file's path; for the prelude, a path under [`zy_hir::prelude::PRELUDE_DIR`].
    pub path: PathBuf,
    /// The file, to ask for its text with [`Analysis::file_text`].
    pub file: FileId,
    /// Whether the file is part of zy's bundled library (read-only).
    pub is_prelude: bool,
    pub start: u32,
    pub end: u32,
}

/// The text of the prelude file named `name` (`Base.jl`), if there is one. It never changes:
/// the prelude is bundled in the binary.
pub fn prelude_text(name: &str) -> Option<&'static str> {
    zy_hir::prelude::PRELUDE
        .iter()
        .find(|f| zy_hir::prelude::prelude_path(f).file_name() == Some(name.as_ref()))
        .map(|f| f.text)
}

impl Analysis {
    /// The definitions of the name at `offset` (every method of a function), as the code of
    /// `file` resolves it.
    pub fn definition(&self, file: FileId, offset: u32) -> Cancellable<Vec<Location>> {
        self.with_db(|db| definition(db, file.0, offset))
    }

    /// The current text of a file of the program (a workspace file or a prelude file).
    pub fn file_text(&self, file: FileId) -> Cancellable<String> {
        self.with_db(|db| file.0.text(db).clone())
    }
}

fn definition(db: &RootDatabase, file: SourceFile, offset: u32) -> Vec<Location> {
    let text = file.text(db);
    let Some((start, end)) = word_at(text, offset) else {
        return Vec::new();
    };
    let root = zy_hir::scope_root(db, file);
    let names = zy_hir::scope::scope_names(db, file);
    // The module of the code at the cursor: that of the item around it.
    let around = zy_hir::item_tree(db, file).iter().copied().find(|&item| {
        if item.kind(db) == ItemKind::Module {
            return false; // the items inside it are items of their own
        }
        let b = zy_hir::item_boundaries(db, item);
        matches!((b.first(), b.last()), (Some(&s), Some(&e)) if s <= offset && offset <= e)
    });
    let module = around
        .or_else(|| zy_hir::item_tree(db, file).first().copied())
        .map_or_else(
            || zy_hir::MAIN.into(),
            |item| zy_hir::item_module(db, root, item),
        );
    let wanted = names.resolve(&module, &text[start..end]);
    let mut out = Vec::new();
    for f in zy_hir::scope_files(db, file) {
        for &item in zy_hir::item_tree(db, f) {
            if !matches!(
                item.kind(db),
                ItemKind::Function | ItemKind::Struct | ItemKind::Global
            ) || names.definition(&zy_hir::item_module(db, root, item), item.name(db)) != wanted
            {
                continue;
            }
            let Some(ast) = zy_hir::item_ast(db, item) else {
                continue;
            };
            let name_range = match &**ast {
                Item::Function(d) => d.name_range,
                Item::Struct(s) => s.name_range,
                Item::Global(g) => g.name_range,
                _ => continue,
            };
            let Some((start, end)) = zy_hir::item_range(db, item, name_range.start, name_range.end)
            else {
                continue;
            };
            out.push(Location {
                path: f.path(db).clone(),
                file: FileId(f),
                is_prelude: zy_hir::is_prelude(db, f),
                start,
                end,
            });
        }
    }
    out
}
