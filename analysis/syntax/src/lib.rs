//! Parsing of the Julia subset: tree-sitter-julia's tree turned into zy's [`ast`], with Julia's
//! meaning restored where the grammar disagrees. Parsing never fails: it returns the items that
//! parsed and the errors found. No salsa, no LSP, no IR here.
//!
//! Entry points: [`parse_file`] for a whole file, [`parse_expr`] for one expression (the call of
//! a `# zy: at` annotation or of `zy-analyze grad`), and [`debug_tree`] for an S-expression
//! rendering of the result (used by the snapshot tests).

pub mod ast;

mod annotations;
mod arrays;
mod cx;
mod errors;
mod expr;
mod items;
mod literals;
mod operators;
mod print;

use std::cell::RefCell;

use tree_sitter::{Parser, Range, Tree};

use crate::ast::{Expr, SourceFile, SyntaxError, TextRange};
use crate::cx::{kids, Cx};

pub use crate::print::debug_tree;

/// Parses a whole file. Never panics: errors and unsupported constructs are in `errors`, and
/// every definition that parsed is in `items` (also those after a syntax error).
pub fn parse_file(text: &str) -> SourceFile {
    let Some(tree) = parse_tree(text) else {
        return SourceFile {
            items: Vec::new(),
            errors: vec![internal_error(text)],
        };
    };
    let scan = errors::scan(&tree, text);
    let mut cx = Cx::new(text);
    let mut items = Vec::new();
    items::items(
        &mut cx,
        tree.root_node(),
        &mut items,
        tree.root_node().is_error(),
    );
    annotations::report_unattached(&mut cx, tree.root_node(), &scan.zy_comments);
    let mut errors = scan.errors;
    errors.extend(cx.errors);
    errors.sort_by_key(|e| (e.range.start, e.range.end));
    errors.dedup();
    SourceFile { items, errors }
}

/// Parses one expression; ranges are relative to `text`. The first error, if any, is returned.
pub fn parse_expr(text: &str) -> Result<Expr, SyntaxError> {
    let tree = parse_tree(text).ok_or_else(|| internal_error(text))?;
    let scan = errors::scan(&tree, text);
    let mut cx = Cx::new(text);
    let parts = kids(tree.root_node());
    let expr = match parts.as_slice() {
        [single] if !single.is_error() => Some(expr::expr(&mut cx, *single)),
        _ => None,
    };
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

/// A new parser set to tree-sitter-julia (None only if grammar and library versions disagree).
fn julia_parser() -> Option<Parser> {
    let mut parser = Parser::new();
    parser
        .set_language(&tree_sitter_julia::LANGUAGE.into())
        .ok()?;
    Some(parser)
}

thread_local! {
    /// One parser per thread: creating a parser costs about as much as parsing a small file.
    static PARSER: RefCell<Option<Parser>> = const { RefCell::new(None) };
}

/// Parses `text` (only `ranges` of it if given) with this thread's parser, or with a fresh one
/// if that is unavailable (in use further up the stack, or the thread is ending).
pub(crate) fn parse_tree_in(text: &str, ranges: Option<&[Range]>) -> Option<Tree> {
    let parse = |parser: &mut Parser| {
        // No ranges: the whole text.
        parser.set_included_ranges(ranges.unwrap_or(&[])).ok()?;
        parser.parse(text, None)
    };
    let cached = PARSER.try_with(|cell| {
        let mut slot = cell.try_borrow_mut().ok()?;
        if slot.is_none() {
            *slot = julia_parser();
        }
        parse(slot.as_mut()?)
    });
    match cached {
        Ok(Some(tree)) => Some(tree),
        _ => parse(&mut julia_parser()?),
    }
}

fn parse_tree(text: &str) -> Option<Tree> {
    parse_tree_in(text, None)
}

fn whole(text: &str) -> TextRange {
    TextRange::new(0, text.len() as u32)
}

fn internal_error(text: &str) -> SyntaxError {
    SyntaxError {
        range: whole(text),
        code: "syntax-error",
        message: "the Julia grammar could not be loaded".to_string(),
    }
}
