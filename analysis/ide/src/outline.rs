//! The functions of a file with their positions and `# zy: at` calls: what code lenses, inlay
//! hints and "the function at the cursor" are built on.

use zy_hir::{ItemKind, RootDatabase, SourceFile};
use zy_syntax::ast::{AnnotationKind, FunctionName, Item, TypeExpr};

use crate::{Analysis, Cancellable, FileId};

/// A parameter of a function, with its absolute byte range.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct ParamOutline {
    /// `None` for `::typeof(f)`.
    pub name: Option<String>,
    /// Its declared type (`b::Body`), if any.
    pub ty: Option<TypeExpr>,
    pub start: u32,
    pub end: u32,
}

/// A top-level method definition (byte offsets in the file).
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct FunctionOutline {
    /// The generic function it defines a method of (`pow`, `(::Dense)`).
    pub name: String,
    /// The whole definition, including the `# zy:` lines above it.
    pub start: u32,
    pub end: u32,
    /// The name as written (the signature for a callable struct).
    pub name_start: u32,
    pub name_end: u32,
    pub params: Vec<ParamOutline>,
    /// The call of its `# zy: at` annotation, if any.
    pub at_call: Option<String>,
    /// The call of its `# zy: gradcheck` annotation, if any.
    pub gradcheck_call: Option<String>,
}

impl FunctionOutline {
    /// Does the definition contain byte `offset`?
    pub fn contains(&self, offset: u32) -> bool {
        self.start <= offset && offset <= self.end
    }
}

impl Analysis {
    /// The top-level method definitions of `file`, in source order.
    pub fn outline(&self, file: FileId) -> Cancellable<Vec<FunctionOutline>> {
        self.with_db(|db| outline(db, file.0))
    }

    /// The top-level method definition containing `offset`, if any.
    pub fn function_at(&self, file: FileId, offset: u32) -> Cancellable<Option<FunctionOutline>> {
        self.with_db(|db| outline(db, file.0).into_iter().find(|f| f.contains(offset)))
    }
}

pub(crate) fn outline(db: &RootDatabase, file: SourceFile) -> Vec<FunctionOutline> {
    let mut out = Vec::new();
    for &item in zy_hir::item_tree(db, file) {
        if item.kind(db) != ItemKind::Function {
            continue;
        }
        let Some(ast) = zy_hir::item_ast(db, item) else {
            continue;
        };
        let Item::Function(def) = &**ast else {
            continue;
        };
        if matches!(def.name, FunctionName::Anonymous) {
            continue;
        }
        // The item's ranges are ranks; `item_range` maps them to byte offsets.
        let at = |start: u32, end: u32| zy_hir::item_range(db, item, start, end).unwrap_or((0, 0));
        let (start, end) = at(def.range.start.min(base_of_annotations(def)), def.range.end);
        let (name_start, name_end) = at(def.name_range.start, def.name_range.end);
        out.push(FunctionOutline {
            name: item.name(db).to_string(),
            start,
            end,
            name_start,
            name_end,
            params: def
                .params
                .iter()
                .map(|p| {
                    let (start, end) = at(p.range.start, p.range.end);
                    ParamOutline {
                        name: p.name.clone(),
                        ty: p.ty.clone(),
                        start,
                        end,
                    }
                })
                .collect(),
            at_call: annotation(def, AnnotationKind::At),
            gradcheck_call: annotation(def, AnnotationKind::Gradcheck),
        });
    }
    out
}

/// The call of `def`'s first annotation of `kind`, if any.
fn annotation(def: &zy_syntax::ast::FunctionDef, kind: AnnotationKind) -> Option<String> {
    def.annotations
        .iter()
        .find(|a| a.kind == kind)
        .map(|a| a.text.clone())
}

/// The start of the first annotation line (relative), or `u32::MAX` when there is none.
fn base_of_annotations(def: &zy_syntax::ast::FunctionDef) -> u32 {
    def.annotations
        .iter()
        .map(|a| a.range.start)
        .min()
        .unwrap_or(u32::MAX)
}
