//! Diagnostics of a file: syntax errors and unsupported constructs, lowering errors, and the
//! type errors of every `# zy: at` specialisation, each with a stable code.

use rustc_hash::FxHashMap;
use zy_infer::TypeError;
use zy_ir::Span;
use zy_syntax::ast::{AnnotationKind, Item};

use crate::call::{type_call_in, CALL_SPAN_FILE};
use crate::input::{Prelude, SourceFile, Unreadable, Workspace};
use crate::item::{item_ast, item_boundaries, item_range, item_tree, ItemId, ItemKind};
use crate::lower::ssa;
use crate::program::program_index;
use crate::scope::{files_by_path, includes, item_module, root_files, scope_names, scope_root};
use crate::span::{line_col, FileRange};

/// One finding, located by byte offsets in its file.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Diag {
    pub start: u32,
    pub end: u32,
    /// Stable code: `syntax-error`, `unsupported`, `type-conflict`, `undefined-name`,
    /// `method-error`, `not-differentiable`, `unknown-package`.
    pub code: String,
    /// One line.
    pub message: String,
}

/// Every diagnostic of `file`, sorted by position.
#[salsa::tracked(returns(ref))]
pub fn diagnostics(db: &dyn salsa::Database, file: SourceFile) -> Vec<Diag> {
    let mut out = load_errors(db, file).clone();
    for &item in item_tree(db, file) {
        out.extend(at_diagnostics(db, item).iter().cloned());
    }
    sort(&mut out);
    out
}

fn sort(out: &mut Vec<Diag>) {
    out.sort_by(|a, b| (a.start, a.end, &a.message).cmp(&(b.start, b.end, &b.message)));
    out.dedup();
}

/// The errors that stop `file` from being loaded at all, as Julia would refuse it: syntax
/// errors, unsupported constructs, redefinitions. Sorted by position.
#[salsa::tracked(returns(ref))]
pub fn load_errors(db: &dyn salsa::Database, file: SourceFile) -> Vec<Diag> {
    let mut out = parse_errors(db, file, |_| true);
    for &item in item_tree(db, file) {
        for e in &ssa(db, item).errors {
            push_item_error(db, item, e.span, e.code, &e.message, &mut out);
        }
    }
    out.extend(include_errors(db, file));
    for (item, why) in scope_names(db, file).import_errors(db, file) {
        let (start, end) = whole_item(db, item);
        out.push(Diag {
            start,
            end,
            code: why.code.to_string(),
            message: why.message,
        });
    }
    for e in &program_index(db, file).errors {
        if let Some(item) = item_of_span(db, e.span.file) {
            if item.file(db) == file {
                push_item_error(db, item, e.span, e.code, &e.message, &mut out);
            }
        }
    }
    sort(&mut out);
    out
}

/// The errors that stop `file` from being read as Julia at all: syntax errors and includes
/// that cannot be read. The other errors of [`load_errors`] belong to one item each and refuse
/// only the calls that reach that item.
#[salsa::tracked(returns(ref))]
pub fn fatal_errors(db: &dyn salsa::Database, file: SourceFile) -> Vec<Diag> {
    let mut out = parse_errors(db, file, |code| code != UNSUPPORTED);
    out.extend(include_errors(db, file));
    sort(&mut out);
    out
}

/// The parser's errors of `file` whose code `keep` accepts.
fn parse_errors(
    db: &dyn salsa::Database,
    file: SourceFile,
    keep: impl Fn(&str) -> bool,
) -> Vec<Diag> {
    // The bundled prelude parses without errors (`bundled_items_parse_alone`): not parsing it
    // here keeps a first analysis from parsing it whole.
    if crate::item::bundled(db, file).is_some() {
        return Vec::new();
    }
    crate::item::parse(db, file)
        .errors
        .iter()
        .filter(|e| keep(e.code))
        .map(|e| Diag {
            start: e.range.start,
            end: e.range.end,
            code: e.code.to_string(),
            message: e.message.clone(),
        })
        .collect()
}

/// The code of a construct zy does not support (as opposed to a syntax error).
const UNSUPPORTED: &str = "unsupported";

/// The unsupported constructs the parser found inside `item`, located in the item (a span is a
/// pair of ranks among the item's boundaries; a construct that starts on none is put at the
/// item's start). Equal across edits elsewhere, so callers' queries are not re-run by them.
#[salsa::tracked(returns(ref))]
pub(crate) fn unsupported_in(db: &dyn salsa::Database, item: ItemId) -> Vec<TypeError> {
    let (start, end) = whole_item(db, item);
    let bounds = crate::item::item_boundaries(db, item);
    let rank = |offset: u32| {
        let i = bounds.partition_point(|&b| b < offset);
        (bounds.get(i) == Some(&offset)).then_some(i as u32)
    };
    // The bundled prelude parses without errors (`bundled_items_parse_alone`).
    if crate::item::bundled(db, item.file(db)).is_some() {
        return Vec::new();
    }
    crate::item::parse(db, item.file(db))
        .errors
        .iter()
        .filter(|e| e.code == UNSUPPORTED && e.range.start >= start && e.range.end <= end)
        .map(|e| {
            let (s, t) = rank(e.range.start).zip(rank(e.range.end)).unwrap_or((0, 1));
            TypeError {
                span: Span::new(item.span_file(), s, t),
                code: "unsupported",
                message: e.message.clone(),
            }
        })
        .collect()
}

/// The byte range of a whole item in its file.
fn whole_item(db: &dyn salsa::Database, item: ItemId) -> (u32, u32) {
    let b = item_boundaries(db, item);
    (
        b.first().copied().unwrap_or(0),
        b.last().copied().unwrap_or(0),
    )
}

/// The code of the note on a top-level statement zy does not run.
pub const SKIPPED: &str = "skipped-statement";

/// The top-level statements of `file` that zy does not run (`println(x)`, a loop at top level,
/// `push!(xs, 1.0)`), and the output it leaves out inside functions (`@show x`), one note
/// each. They block nothing: a function that reads a binding a skipped statement changes is
/// refused where it reads it.
#[salsa::tracked(returns(ref))]
pub fn skipped_statements(db: &dyn salsa::Database, file: SourceFile) -> Vec<Diag> {
    let mut out: Vec<Diag> = crate::item::parse(db, file)
        .notes
        .iter()
        .map(|n| Diag {
            start: n.range.start,
            end: n.range.end,
            code: SKIPPED.to_string(),
            message: n.message.clone(),
        })
        .collect();
    let names = crate::scope::scope_names(db, file);
    for &item in item_tree(db, file) {
        if item.kind(db) != ItemKind::Script {
            continue;
        }
        let Some(Item::Script(s)) = item_ast(db, item).as_deref() else {
            continue;
        };
        let (start, end) = item_range(db, item, s.range.start, s.range.end).unwrap_or((0, 0));
        let changed = names.changed_by_statement(item);
        let effect = match changed {
            [] => "it changes no top-level binding".to_string(),
            _ => {
                let list: Vec<String> = changed.iter().map(|n| format!("`{n}`")).collect();
                format!(
                    "it may change {}, so a function that reads {} is refused",
                    list.join(", "),
                    if list.len() == 1 { "it" } else { "them" }
                )
            }
        };
        out.push(Diag {
            start,
            end,
            code: SKIPPED.to_string(),
            message: format!(
                "zy does not run {} at top level: only definitions are loaded ({effect})",
                s.what
            ),
        });
    }
    sort(&mut out);
    out
}

/// The `include`s of `file` that name no file of the workspace, or that include `file` again.
fn include_errors(db: &dyn salsa::Database, file: SourceFile) -> Vec<Diag> {
    let by_path = files_by_path(db, Workspace::get(db));
    let mut out = Vec::new();
    for (item, path) in includes(db, file) {
        let (start, end) = match item_ast(db, *item).as_deref() {
            Some(Item::Include(i)) => {
                item_range(db, *item, i.range.start, i.range.end).unwrap_or((0, 0))
            }
            _ => (0, 0),
        };
        let message = match by_path.get(path) {
            None => {
                let reason = Unreadable::get(db).reasons(db).get(path);
                let reason = reason.map_or("no such file", |r| r.as_str());
                format!("cannot include `{}`: {reason}", path.display())
            }
            Some(&included) if reaches(db, included, file) => format!(
                "`{}` is already being included: an include cycle",
                path.display()
            ),
            Some(_) => continue,
        };
        out.push(Diag {
            start,
            end,
            code: "include-error".to_string(),
            message,
        });
    }
    out
}

/// Does `from`, or a file it includes transitively, include `to`?
fn reaches(db: &dyn salsa::Database, from: SourceFile, to: SourceFile) -> bool {
    let by_path = files_by_path(db, Workspace::get(db));
    let mut stack = vec![from];
    let mut seen = vec![from];
    while let Some(f) = stack.pop() {
        if f == to {
            return true;
        }
        for (_, path) in includes(db, f) {
            if let Some(&next) = by_path.get(path) {
                if !seen.contains(&next) {
                    seen.push(next);
                    stack.push(next);
                }
            }
        }
    }
    false
}

fn push_item_error(
    db: &dyn salsa::Database,
    item: ItemId,
    span: Span,
    code: &str,
    message: &str,
    out: &mut Vec<Diag>,
) {
    let (start, end) = item_range(db, item, span.start, span.end).unwrap_or((0, 0));
    out.push(Diag {
        start,
        end,
        code: code.to_string(),
        message: message.to_string(),
    });
}

/// The item of the prelude or the workspace whose spans carry the number `span_file`, if any.
pub fn item_of_span(db: &dyn salsa::Database, span_file: u32) -> Option<ItemId> {
    items_by_span_file(db, Workspace::get(db))
        .get(&span_file)
        .copied()
}

/// Every item of the prelude and the workspace by the number its spans carry, the copies of
/// a file that a program loads into a second module too ([`crate::item::ItemId::load`]).
/// Equal across body edits.
#[salsa::tracked(returns(ref))]
fn items_by_span_file(db: &dyn salsa::Database, ws: Workspace) -> FxHashMap<u32, ItemId> {
    let own = Prelude::get(db)
        .files(db)
        .iter()
        .chain(ws.files(db))
        .flat_map(|&f| item_tree(db, f).iter());
    let copies = ws
        .files(db)
        .iter()
        .filter(|&&f| scope_root(db, f) == f)
        .flat_map(|&root| root_files(db, root).iter().filter(|l| l.load > 0))
        .flat_map(|l| l.items(db).iter());
    own.chain(copies).map(|&i| (i.span_file(), i)).collect()
}

/// Where an IR span is in the workspace: in the item with that number, or (for
/// [`CALL_SPAN_FILE`]) in the call text starting at `call_base` of `call_file`.
pub fn locate(
    db: &dyn salsa::Database,
    span: Span,
    call: Option<(SourceFile, u32)>,
) -> Option<FileRange> {
    if span.file == CALL_SPAN_FILE {
        let (file, base) = call?;
        return Some(FileRange {
            file,
            start: base + span.start,
            end: base + span.end,
        });
    }
    let item = item_of_span(db, span.file)?;
    crate::span::item_span_range(db, item, span)
}

/// The type errors of the `# zy: at` calls above `item`: in the file's absolute offsets, at the
/// offending statement when it is in this file, else at the annotation.
#[salsa::tracked(returns(ref))]
fn at_diagnostics(db: &dyn salsa::Database, item: ItemId) -> Vec<Diag> {
    let Some(ast) = item_ast(db, item) else {
        return Vec::new();
    };
    let Item::Function(def) = &**ast else {
        return Vec::new();
    };
    let file = item.file(db);
    let mut out = Vec::new();
    for a in def
        .annotations
        .iter()
        .filter(|a| a.kind == AnnotationKind::At)
    {
        let (call_base, call_end) =
            item_range(db, item, a.range.start, a.range.end).unwrap_or((0, 0));
        let errors: Vec<TypeError> = match zy_syntax::parse_expr(&a.text) {
            Err(e) => vec![TypeError {
                span: Span::new(CALL_SPAN_FILE, e.range.start, e.range.end),
                code: e.code,
                message: e.message,
            }],
            Ok(expr) => match type_call_in(
                db,
                file,
                &item_module(db, scope_root(db, file), item),
                &expr,
            ) {
                Ok(_) => Vec::new(),
                Err(e) => e.0,
            },
        };
        for e in errors {
            let (start, end, message) = match locate(db, e.span, Some((file, call_base))) {
                Some(r) if r.file == file => (r.start, r.end, e.message),
                // In another file: reported here, saying where.
                Some(r) => {
                    let lc = line_col(db, r.file, r.start);
                    let path = r.file.path(db).display().to_string();
                    (
                        call_base,
                        call_end,
                        format!("{} (at {path}:{lc})", e.message),
                    )
                }
                None => (call_base, call_end, e.message),
            };
            out.push(Diag {
                start,
                end,
                code: e.code.to_string(),
                message,
            });
        }
    }
    out
}
