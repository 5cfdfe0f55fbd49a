//! Which functions of a file `check` types: each at its annotated calls, at the argument types
//! a typed caller passes it, or at its own parameter annotations when they are all concrete
//! (`x::Float64`, `v::Vector{Float64}`), where its type errors that stop a run are reported.
//! The rest are counted as not typed.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use zy_ad::{Activity, GlobalShadows};
use zy_hir::{ItemId, ItemKind, RootDatabase, SourceFile};
use zy_ir::{Function, Instance};
use zy_syntax::ast::{AnnotationKind, FunctionName, Item};

use super::Specialisation;
use crate::{Diagnostic, Severity};

/// One specialisation of a function of the file, with its typed body.
pub(crate) struct TypedFn {
    pub item: ItemId,
    pub inst: Arc<Instance>,
    pub func: Arc<Function>,
    /// What a gradient reaches in it, a call that reaches a global with a shadow counting as
    /// writing that global (as the AD's driver counts it).
    pub activity: Activity,
}

/// How many of a file's functions `check` typed, and which it could not.
#[derive(Clone, Default, PartialEq, Eq, Debug)]
pub struct Coverage {
    /// Functions typed at least once (their lints ran).
    pub checked: usize,
    /// Functions with no `# zy: at` or `# zy: gradcheck` call, no typed caller and no concrete
    /// annotation on every parameter.
    pub untyped: Vec<Untyped>,
}

/// A function `check` could not type: its name and where the name is written (1-based).
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Untyped {
    pub name: String,
    pub line: u32,
    pub col: u32,
}

/// Names of methods checked elsewhere (the in-source rule check), not counted.
const RULES: [&str; 2] = ["rrule", "frule"];

/// A function lowering made to compute a keyword's default (`#f#kw#b`): a default need not
/// depend on the arguments it is given, so it is not linted.
fn is_keyword_default(inst: &Instance) -> bool {
    inst.name.contains("#kw#")
}

/// The function items of `file` that [`Coverage`] counts, by `Span::file` number.
fn functions(db: &RootDatabase, file: SourceFile) -> BTreeMap<u32, ItemId> {
    let items = zy_hir::item_tree(db, file);
    let structs: Vec<(String, Option<(u32, u32)>)> = items
        .iter()
        .filter_map(|&i| match zy_hir::item_ast(db, i).as_deref() {
            Some(Item::Struct(s)) => Some((
                s.name.clone(),
                zy_hir::item_range(db, i, s.range.start, s.range.end),
            )),
            _ => None,
        })
        .collect();
    items
        .iter()
        .copied()
        .filter(|&i| {
            i.kind(db) == ItemKind::Function
                && !RULES.contains(&&**i.name(db))
                && !is_kwdef_constructor(db, i, &structs)
        })
        .map(|i| (i.span_file(), i))
        .collect()
}

/// The keyword constructor `@kwdef` writes over the range of the struct (one of `structs`,
/// by name and range in the file): generated, so neither linted nor counted.
fn is_kwdef_constructor(
    db: &RootDatabase,
    item: ItemId,
    structs: &[(String, Option<(u32, u32)>)],
) -> bool {
    let Some(Item::Function(f)) = zy_hir::item_ast(db, item).as_deref() else {
        return false;
    };
    let FunctionName::Named(name) = &f.name else {
        return false;
    };
    let range = zy_hir::item_range(db, item, f.range.start, f.range.end);
    structs.iter().any(|(n, r)| n == name && *r == range)
}

/// The functions of a file `check` typed.
#[derive(Default)]
pub(crate) struct Typed {
    /// The specialisations that typed without an error, which the lints read.
    pub functions: Vec<TypedFn>,
    /// The functions typed at their annotations with type errors, which the lints skip.
    pub failed: Vec<ItemId>,
    /// Those errors that stop a run before it starts, located in the file.
    pub errors: Vec<Diagnostic>,
}

/// Every specialisation of the file's functions that `specs` reach, then those of the
/// functions still untyped at their concrete parameter annotations (each instance once).
pub(crate) fn typed_functions(
    db: &RootDatabase,
    file: SourceFile,
    specs: &[Specialisation],
) -> Typed {
    let items = functions(db, file);
    let mut seen: BTreeSet<Arc<Instance>> = BTreeSet::new();
    let mut out = Vec::new();
    let mut failed = Vec::new();
    let mut errors = Vec::new();
    let mut take = |program: &zy_ir::TypedProgram, out: &mut Vec<TypedFn>| {
        let shadows = GlobalShadows::of(program);
        for (inst, func) in &program.functions {
            if let Some(&item) = items.get(&func.span.file) {
                if !is_keyword_default(inst) && seen.insert(inst.clone()) {
                    out.push(TypedFn {
                        item,
                        inst: inst.clone(),
                        func: func.clone(),
                        activity: shadows.activity(func),
                    });
                }
            }
        }
    };
    for s in specs {
        take(&s.typed.program, &mut out);
    }
    for &item in items.values() {
        if out.iter().any(|t| t.item == item) {
            continue;
        }
        for inst in crate::annotated::annotated_instances(db, file, item) {
            let (program, found) = zy_hir::typed_program(
                db,
                zy_hir::ProgramKey::of(db, file),
                std::slice::from_ref(&inst),
            );
            if found.is_empty() {
                take(&program, &mut out);
                continue;
            }
            // Those the run raises where they are, as Julia does, are no finding: only where
            // it gets there is known (a `BoundsError` a `try` catches).
            failed.push(item);
            for e in zy_hir::blocking_errors(db, &program, found) {
                errors.extend(located(db, file, &e));
            }
        }
    }
    Typed {
        functions: out,
        failed,
        errors,
    }
}

/// The type error `e` as a diagnostic of `file`, if it is located there.
fn located(db: &RootDatabase, file: SourceFile, e: &zy_infer::TypeError) -> Option<Diagnostic> {
    let r = zy_hir::locate(db, e.span, None).filter(|r| r.file == file)?;
    let range = (r.start, r.end);
    Some(Diagnostic::at(
        db,
        file,
        range,
        e.code,
        e.message.clone(),
        Severity::Error,
    ))
}

/// Count the functions of `file` that `typed` covers, and those it does not that have no
/// annotated call (a call that does not type is reported as an error where it is written).
pub(crate) fn count(db: &RootDatabase, file: SourceFile, typed: &Typed) -> Coverage {
    let mut out = Coverage::default();
    for &item in functions(db, file).values() {
        if typed.functions.iter().any(|t| t.item == item) || typed.failed.contains(&item) {
            out.checked += 1;
        } else if !has_call(db, item) {
            out.untyped.push(untyped(db, file, item));
        }
    }
    out
}

/// The name of `item` and where it is written.
fn untyped(db: &RootDatabase, file: SourceFile, item: ItemId) -> Untyped {
    let start = match zy_hir::item_ast(db, item).as_deref() {
        Some(Item::Function(f)) => {
            zy_hir::item_range(db, item, f.name_range.start, f.name_range.end)
        }
        _ => None,
    };
    let at = start.map_or(0, |(s, _)| s);
    let lc = zy_hir::line_col(db, file, at);
    Untyped {
        name: item.name(db).to_string(),
        line: lc.line,
        col: lc.col,
    }
}

/// Has `item` a `# zy: at` or `# zy: gradcheck` annotation?
fn has_call(db: &RootDatabase, item: ItemId) -> bool {
    match zy_hir::item_ast(db, item).as_deref() {
        Some(Item::Function(f)) => f
            .annotations
            .iter()
            .any(|a| matches!(a.kind, AnnotationKind::At | AnnotationKind::Gradcheck)),
        _ => false,
    }
}
