//! Hover on a field after a dot (`p.mass`, `w.body.mass`): the struct the value before the dot
//! is, as inference knows it at the function's `# zy: at` call or as its argument's declared
//! type (or the declared type of the field holding it) says, then the field's type and
//! docstring. A value whose struct is not known shows the docstrings of the program's fields
//! of that name. Go to definition and completion find the struct the same way.

use std::sync::Arc;

use zy_hir::{ItemId, ItemKind, RootDatabase, SourceFile};
use zy_ir::{StructType, Type};
use zy_syntax::ast::{FieldDef, Item, StructDef, TextRange, TypeExpr};

use crate::definition::{code_module, dotted};
use crate::docs::{shown, RULE};
use crate::hover::Specialised;
use crate::outline::FunctionOutline;

/// What is written before the dot of the field at `start` (`p` of `p.mass`, `w.body` of
/// `w.body.mass`, empty for `xs[1].mass`), if the name at `start` is a field: written after a
/// dot, not after a module's name.
pub(crate) fn receiver(db: &RootDatabase, file: SourceFile, start: usize) -> Option<&str> {
    let text = file.text(db);
    if !text[..start].ends_with('.') {
        return None;
    }
    let written = dotted(text, start, start);
    let prefix = written.strip_suffix('.').unwrap_or(written);
    let module = code_module(db, file, start as u32);
    let names = zy_hir::scope::scope_names(db, file);
    (prefix.is_empty() || names.module_path(&module, prefix).is_none()).then_some(prefix)
}

/// The hover on `field` of `receiver` in function `f` (if the field is in one), specialised
/// as `typed`.
pub(crate) fn hover(
    db: &RootDatabase,
    file: SourceFile,
    at: usize,
    receiver: &str,
    field: &str,
    f: Option<&FunctionOutline>,
    typed: Option<&Specialised>,
) -> Option<String> {
    let Some(known) = known(db, file, at, receiver, f, typed) else {
        let docs = docs_by_name(db, file, field);
        return (!docs.is_empty()).then(|| docs.join(RULE));
    };
    let def = struct_def(db, file, at, known.name());
    // Julia's field type: `Any` for a field declared without one, whatever it holds.
    let declared = def
        .as_ref()
        .and_then(|s| s.def.fields.iter().find(|d| d.name == field));
    let untyped = declared.is_some_and(|d| d.ty.is_none());
    let (ty, holds) = match &known {
        Known::Inferred(st) => {
            let (_, t) = st.fields.iter().find(|(n, _)| **n == *field)?;
            match (untyped, typed) {
                (true, Some(s)) => (
                    "Any".to_string(),
                    Some(format!("holds a `{t}` at `{}`", s.call)),
                ),
                _ => (t.to_string(), None),
            }
        }
        Known::Declared(_) => (declared_type(declared?), None),
    };
    let mut own = format!("```julia\n{field}::{ty}\n```\nfield of `{}`", known.shown());
    if let Some(holds) = holds {
        own.push_str("\n\n");
        own.push_str(&holds);
    }
    let doc = def.and_then(|s| {
        let (start, end) = s.field_name(db, field)?;
        let docs = zy_hir::docstrings(db, s.item.file(db));
        let found = docs
            .iter()
            .find(|d| (d.name.start, d.name.end) == (start, end));
        found.map(shown)
    });
    Some(match doc {
        Some(doc) => format!("{doc}{RULE}{own}"),
        None => own,
    })
}

/// The fields of the struct `receiver` is declared to be, with their declared types (completion
/// runs no inference).
pub(crate) fn fields(
    db: &RootDatabase,
    file: SourceFile,
    at: usize,
    receiver: &str,
    f: Option<&FunctionOutline>,
) -> Vec<(String, String)> {
    let def = known(db, file, at, receiver, f, None)
        .and_then(|known| struct_def(db, file, at, known.name()));
    def.map_or_else(Vec::new, |s| {
        s.def
            .fields
            .iter()
            .map(|d| (d.name.clone(), declared_type(d)))
            .collect()
    })
}

/// A field's type as declared: `Any` when it is not.
fn declared_type(d: &FieldDef) -> String {
    d.ty.as_ref().map_or("Any".into(), TypeExpr::value_text)
}

/// The struct a value is known to be.
enum Known {
    /// Its type at the function's specialisation.
    Inferred(Arc<StructType>),
    /// The name of its declared type.
    Declared(String),
}

impl Known {
    fn name(&self) -> &str {
        match self {
            Known::Inferred(st) => &st.name,
            Known::Declared(name) => name,
        }
    }

    /// As the hover names it: with its parameters where inference knows them.
    fn shown(&self) -> String {
        match self {
            Known::Inferred(st) => Type::Struct(st.clone()).to_string(),
            Known::Declared(name) => name.clone(),
        }
    }
}

/// The struct `written` (a local or argument of `f`, or a field of one) is known to be.
fn known(
    db: &RootDatabase,
    file: SourceFile,
    at: usize,
    written: &str,
    f: Option<&FunctionOutline>,
    typed: Option<&Specialised>,
) -> Option<Known> {
    if let Some((outer, field)) = written.rsplit_once('.') {
        return match known(db, file, at, outer, f, typed)? {
            Known::Inferred(st) => match st.fields.iter().find(|(n, _)| **n == *field)? {
                (_, Type::Struct(inner)) => Some(Known::Inferred(inner.clone())),
                _ => None,
            },
            Known::Declared(name) => {
                let s = struct_def(db, file, at, &name)?;
                let ty = s.def.fields.iter().find(|d| d.name == field)?.ty.as_ref()?;
                declared(ty)
            }
        };
    }
    let inferred = typed.and_then(|s| {
        let mut structs = s.func.values.iter().filter_map(|d| match &d.ty {
            Type::Struct(st) if d.name.as_deref() == Some(written) => Some(st),
            _ => None,
        });
        let first = structs.next()?;
        // A name bound to values of several structs is none of them.
        structs.all(|st| st == first).then(|| first.clone())
    });
    if let Some(st) = inferred {
        return Some(Known::Inferred(st));
    }
    let param = f?
        .params
        .iter()
        .find(|p| p.name.as_deref() == Some(written))?;
    declared(param.ty.as_ref()?)
}

/// The struct a declared type names (`Body` of `Body{Float64}`).
fn declared(ty: &TypeExpr) -> Option<Known> {
    match ty {
        TypeExpr::Named { name, .. } => Some(Known::Declared(name.clone())),
        TypeExpr::Typeof { .. } => None,
    }
}

/// A struct's definition.
struct StructAt {
    item: ItemId,
    def: StructDef,
}

impl StructAt {
    /// The byte range in its file of the range `r` of its syntax.
    fn range(&self, db: &RootDatabase, r: TextRange) -> Option<(u32, u32)> {
        zy_hir::item_range(db, self.item, r.start, r.end)
    }

    /// The byte range of the name of its field `field`.
    fn field_name(&self, db: &RootDatabase, field: &str) -> Option<(u32, u32)> {
        let declared = self.def.fields.iter().find(|d| d.name == field)?;
        let (start, _) = self.range(db, declared.range)?;
        Some((start, start + field.len() as u32))
    }
}

/// The structs of `file`'s program (not the library's) that `keep` keeps.
fn structs(
    db: &RootDatabase,
    file: SourceFile,
    mut keep: impl FnMut(ItemId) -> bool,
) -> Vec<StructAt> {
    let mut out = Vec::new();
    for f in zy_hir::scope_files(db, file) {
        if zy_hir::is_prelude(db, f) {
            continue;
        }
        for &item in zy_hir::item_tree(db, f) {
            if item.kind(db) != ItemKind::Struct || !keep(item) {
                continue;
            }
            if let Some(Item::Struct(def)) = zy_hir::item_ast(db, item).as_deref() {
                out.push(StructAt {
                    item,
                    def: def.clone(),
                });
            }
        }
    }
    out
}

/// The definition of the struct `name` as the code at `at` of `file` resolves it.
fn struct_def(db: &RootDatabase, file: SourceFile, at: usize, name: &str) -> Option<StructAt> {
    let root = zy_hir::scope_root(db, file);
    let names = zy_hir::scope::scope_names(db, file);
    let wanted = names.resolve(&code_module(db, file, at as u32), name);
    let mut found = structs(db, file, |item| {
        let module = zy_hir::item_module(db, root, item);
        names.definition(&module, item.name(db)) == wanted
    });
    (!found.is_empty()).then(|| found.swap_remove(0))
}

/// Where `field` of `receiver` (in function `f`, if it is in one) is declared: in the struct
/// the value is declared to be, else in every struct of the program with a field so named. Each
/// is the field's file and the byte range of its name there.
pub(crate) fn definitions(
    db: &RootDatabase,
    file: SourceFile,
    at: usize,
    receiver: &str,
    field: &str,
    f: Option<&FunctionOutline>,
) -> Vec<(SourceFile, u32, u32)> {
    let candidates = match known(db, file, at, receiver, f, None) {
        Some(known) => struct_def(db, file, at, known.name()).into_iter().collect(),
        None => structs(db, file, |_| true),
    };
    candidates
        .iter()
        .filter_map(|s| {
            let (start, end) = s.field_name(db, field)?;
            Some((s.item.file(db), start, end))
        })
        .collect()
}

/// The docstrings of the fields named `field` of the structs of `file`'s program (not the
/// library's), each headed by its struct when there are several.
fn docs_by_name(db: &RootDatabase, file: SourceFile, field: &str) -> Vec<String> {
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
