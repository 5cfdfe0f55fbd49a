//! Go to definition: where the function, struct or binding named under the cursor is defined,
//! in the file itself, a file it includes, or the prelude; a field's declaration in its struct
//! ([`crate::field`]).

use std::path::PathBuf;

use zy_hir::{ItemId, ItemKind, RootDatabase, SourceFile};
use zy_ir::Name;
use zy_syntax::ast::Item;

use crate::hover::word_at;
use crate::outline::outline;
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
    let Some((start, end)) = word_at(file.text(db), offset) else {
        return Vec::new();
    };
    let found = match crate::field::receiver(db, file, start) {
        Some(receiver) => {
            let function = outline(db, file).into_iter().find(|f| f.contains(offset));
            let field = &file.text(db)[start..end];
            crate::field::definitions(db, file, start, receiver, field, function.as_ref())
        }
        None => defining_items(db, file, start, end)
            .into_iter()
            .map(|(item, start, end)| (item.file(db), start, end))
            .collect(),
    };
    found
        .into_iter()
        .map(|(f, start, end)| Location {
            path: f.path(db).clone(),
            file: FileId(f),
            is_prelude: zy_hir::is_prelude(db, f),
            start,
            end,
        })
        .collect()
}

/// The items defining the name at `start..end` of `file`, as the code there resolves it (every
/// method of a function, a module, a definition zy refused), each with the byte range of its
/// name in its file (of the whole of a refused definition). A name
/// written after a module's (`LinearAlgebra.norm`, `M.f`) is that module's.
pub(crate) fn defining_items(
    db: &RootDatabase,
    file: SourceFile,
    start: usize,
    end: usize,
) -> Vec<(ItemId, u32, u32)> {
    let root = zy_hir::scope_root(db, file);
    let names = zy_hir::scope::scope_names(db, file);
    let module = code_module(db, file, start as u32);
    let written = dotted(file.text(db), start, end);
    let wanted = names.resolve(&module, written);
    let wanted_module = names.module_path(&module, written);
    let mut out = Vec::new();
    // Each load of a file included into two modules defines its names in its module.
    for item in zy_hir::program_items(db, file) {
        let kind = item.kind(db);
        let item_module = zy_hir::item_module(db, root, item);
        let defines = match kind {
            ItemKind::Function | ItemKind::Struct | ItemKind::Global | ItemKind::Refused => {
                names.definition(&item_module, item.name(db)) == wanted
            }
            ItemKind::Module => {
                wanted_module.as_ref() == Some(&zy_hir::qualify(&item_module, item.name(db)))
            }
            _ => false,
        };
        if !defines {
            continue;
        }
        let Some(ast) = zy_hir::item_ast(db, item) else {
            continue;
        };
        let name_range = match &**ast {
            Item::Function(d) => d.name_range,
            Item::Struct(s) => s.name_range,
            Item::Global(g) => g.name_range,
            Item::Module(m) => m.name_range,
            // `function f end`, a definition zy refused: the whole of it.
            Item::Refused(r) => r.range,
            _ => continue,
        };
        if let Some((start, end)) = zy_hir::item_range(db, item, name_range.start, name_range.end) {
            out.push((item, start, end));
        }
    }
    out
}

/// The module of the code at `offset` of `file`: that of the item around it.
pub(crate) fn code_module(db: &RootDatabase, file: SourceFile, offset: u32) -> Name {
    let root = zy_hir::scope_root(db, file);
    let around = zy_hir::item_tree(db, file).iter().copied().find(|&item| {
        if item.kind(db) == ItemKind::Module {
            return false; // the items inside it are items of their own
        }
        let b = zy_hir::item_boundaries(db, item);
        matches!((b.first(), b.last()), (Some(&s), Some(&e)) if s <= offset && offset <= e)
    });
    around
        .or_else(|| zy_hir::item_tree(db, file).first().copied())
        .map_or_else(
            || zy_hir::MAIN.into(),
            |item| zy_hir::item_module(db, root, item),
        )
}

/// The name at `start..end` of `text` with the names written before it with dots
/// (`LinearAlgebra.norm`, `A.B.f`, `p.x`).
pub(crate) fn dotted(text: &str, start: usize, end: usize) -> &str {
    let mut from = start;
    while from > 0 && text[..from].ends_with('.') {
        match word_at(text, (from - 1) as u32) {
            Some((s, e)) if e == from - 1 => from = s,
            _ => break,
        }
    }
    &text[from..end]
}
