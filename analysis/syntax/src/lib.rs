//! Parsing of the Julia subset: tree-sitter-julia's tree turned into zy's [`ast`], with Julia's
//! meaning restored where the grammar disagrees. Parsing never fails: it returns the items that
//! parsed and the errors found. No salsa, no LSP, no IR here.
//!
//! Entry points: [`parse_file`] for a whole file, [`parse_expr`] for one expression (the call of
//! a `# zy: at` annotation or of `zy-analyze grad`), and [`debug_tree`] for an S-expression
//! rendering of the result (used by the snapshot tests). Parsing has a time budget
//! ([`ParseBudget`], [`parse_file_with_budget`]): on input where the grammar's error recovery
//! is too slow it stops and reports that instead of hanging.

pub mod ast;
pub mod kind;
pub mod lexer;
pub mod tree;

mod annotations;
mod arrays;
mod cx;
mod errors;
mod expr;
mod grammar;
mod items;
mod literals;
mod operators;
mod parser;
mod print;
mod ts_parser;

use crate::ast::{Expr, SourceFile, SyntaxError, TextRange};
use crate::cx::{kids, Cx};
use crate::ts_parser::Deadline;

pub use crate::print::debug_tree;
pub use crate::ts_parser::ParseBudget;

/// Parses a whole file within the default [`ParseBudget`]. Never panics: errors and
/// unsupported constructs are in `errors`, and every definition that parsed is in `items` (also
/// those after a syntax error).
pub fn parse_file(text: &str) -> SourceFile {
    parse_file_with_budget(text, ParseBudget::DEFAULT)
}

/// Parses a whole file like [`parse_file`], but gives up when `budget` runs out: then the
/// only error is "the parser gave up" at 1:1, and there are no items.
pub fn parse_file_with_budget(text: &str, budget: ParseBudget) -> SourceFile {
    let deadline = Deadline::start(budget, text.len());
    let gave_up = |failure: ts_parser::Failure| SourceFile {
        items: Vec::new(),
        errors: vec![failure.error(&deadline, text, "file")],
    };
    let tree = match ts_parser::parse(text, None, &deadline) {
        Ok(tree) => tree,
        Err(failure) => return gave_up(failure),
    };
    let scan = errors::scan(&tree, text);
    let mut cx = Cx::new(text, deadline);
    let mut items = Vec::new();
    items::items(
        &mut cx,
        tree.root_node(),
        &mut items,
        tree.root_node().is_error(),
    );
    if cx.gave_up {
        return gave_up(ts_parser::Failure::GaveUp);
    }
    annotations::report_unattached(&mut cx, tree.root_node(), &scan.zy_comments);
    let mut errors = scan.errors;
    errors.extend(cx.errors);
    errors.sort_by_key(|e| (e.range.start, e.range.end));
    errors.dedup();
    SourceFile { items, errors }
}

/// Parses one expression within the default [`ParseBudget`]; ranges are relative to `text`.
/// The first error, if any, is returned.
pub fn parse_expr(text: &str) -> Result<Expr, SyntaxError> {
    let deadline = Deadline::start(ParseBudget::DEFAULT, text.len());
    let tree = ts_parser::parse(text, None, &deadline)
        .map_err(|failure| failure.error(&deadline, text, "expression"))?;
    let scan = errors::scan(&tree, text);
    let mut cx = Cx::new(text, deadline);
    let parts = kids(tree.root_node());
    let expr = match parts.as_slice() {
        [single] if !single.is_error() => Some(expr::expr(&mut cx, *single)),
        _ => None,
    };
    if cx.gave_up {
        return Err(deadline.gave_up(text, "expression"));
    }
    let mut errors = scan.errors;
    errors.extend(cx.errors);
    errors.sort_by_key(|e| (e.range.start, e.range.end));
    if let Some(first) = errors.into_iter().next() {
        return Err(first);
    }
    match (expr, parts.len()) {
        (Some(expr), _) => Ok(expr),
        (None, 0) => Err(SyntaxError {
            range: whole(text),
            code: "syntax-error",
            message: "expected an expression".to_string(),
        }),
        (None, _) => Err(SyntaxError {
            range: whole(text),
            code: "syntax-error",
            message: "expected one expression, found several".to_string(),
        }),
    }
}

fn whole(text: &str) -> TextRange {
    TextRange::new(0, text.len() as u32)
}
