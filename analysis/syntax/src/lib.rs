//! Parsing of Julia for zy: a lexer and a recursive-descent parser for all of Julia's surface
//! syntax (following Julia's own parser, JuliaSyntax) into a generic syntax tree ([`tree`]),
//! and its conversion into zy's [`ast`], where everything outside the differentiable subset
//! is reported by name. Parsing never fails: it returns the items that parsed and the errors
//! found. No salsa, no LSP, no IR here.
//!
//! Entry points: [`parse_file`] for a whole file ([`parse_file_at`] knowing its path, which
//! `@__FILE__` gives), [`parse_expr`] for one expression (the call of a `# zy: at` annotation or
//! of `zy-analyze grad`), [`debug_tree`] for an S-expression rendering of the AST (used by the
//! snapshot tests), [`tree::parse`] for the syntax tree, and [`docstrings`] for the docstrings
//! of a file (the editor's hover shows them).
//! Parsing has a time budget ([`ParseBudget`], [`parse_file_with_budget`]).

pub mod ast;
pub mod kind;
pub mod lexer;
pub mod tree;

mod aliases;
mod annotations;
mod arrays;
mod broadcast_keywords;
mod budget;
mod cx;
mod docs;
mod dotmacros;
mod enums;
mod expr;
mod generators;
mod include_paths;
mod items;
mod kwdef;
mod literals;
mod macro_eval;
mod macros;
mod names;
mod narrow;
mod operators;
mod output;
mod parser;
mod print;
mod show;
mod sprintf;
mod tasks;
mod type_values;
mod walk;

use crate::ast::{Expr, SourceFile, SyntaxError, TextRange};
use crate::cx::Cx;
use crate::kind::Kind;
use crate::tree::{Parse, SyntaxNode};

pub use crate::budget::ParseBudget;
pub use crate::docs::{docstrings, Docstring};
pub use crate::items::curly_name;
pub use crate::print::debug_tree;

/// The deepest expression nesting accepted (a parenthesised call takes two levels): deeper
/// input is a located "expression nested too deeply" error. Julia accepts thousands of levels;
/// every pass after parsing that recurses on the nesting runs on a thread with a stack of at
/// least [`PARSE_STACK`].
pub const MAX_NESTING: u32 = 10_000;

/// The stack that parsing, converting and analysing input nested [`MAX_NESTING`] deep needs in a
/// debug build, with a margin (measured: the analysis threads have more).
pub const PARSE_STACK: usize = 256 << 20;

/// Parses a whole file within the default [`ParseBudget`]. Never panics: errors and
/// unsupported constructs are in `errors`, and every definition that parsed is in `items` (also
/// those after a syntax error).
pub fn parse_file(text: &str) -> SourceFile {
    parse_file_with_budget(text, ParseBudget::DEFAULT)
}

/// Parses a whole file like [`parse_file`], but gives up when `budget` runs out: then the
/// only error is "the parser gave up" at 1:1, and there are no items.
pub fn parse_file_with_budget(text: &str, budget: ParseBudget) -> SourceFile {
    parse_source(text, budget, None)
}

/// Parses a whole file like [`parse_file`], knowing its absolute `path`: `@__FILE__` is that
/// path as a string, `@__DIR__` its directory's (Julia expands them so at parse time).
pub fn parse_file_at(text: &str, path: &str) -> SourceFile {
    parse_source(text, ParseBudget::DEFAULT, Some(path))
}

fn parse_source(text: &str, budget: ParseBudget, path: Option<&str>) -> SourceFile {
    let parse = tree::parse(text, budget.deadline(text.len()));
    if parse.gave_up {
        return SourceFile {
            items: Vec::new(),
            errors: vec![budget.gave_up(text, "file")],
            notes: Vec::new(),
        };
    }
    let names = names::Names::of(text, &parse.root);
    let arena = bumpalo::Bump::new();
    let mut cx = Cx::new(text, &names, &arena);
    cx.source_path = path;
    cx.macros = macros::collect(&mut cx, &parse.root);
    let mut items = Vec::new();
    items::items(&mut cx, &parse.root, &mut items);
    annotations::report_unattached(&mut cx, &parse.root, &parse.comments);
    let mut errors = syntax_errors(&parse);
    errors.extend(cx.errors);
    errors.sort_by_key(|e| (e.range.start, e.range.end));
    errors.dedup();
    SourceFile {
        items,
        errors,
        notes: cx.notes,
    }
}

/// Parses one expression within the default [`ParseBudget`]; ranges are relative to `text`.
/// The first error, if any, is returned.
pub fn parse_expr(text: &str) -> Result<Expr, SyntaxError> {
    let budget = ParseBudget::DEFAULT;
    let parse = tree::parse(text, budget.deadline(text.len()));
    if parse.gave_up {
        return Err(budget.gave_up(text, "expression"));
    }
    let mut statements = Vec::new();
    statements_of(&parse.root, &mut statements);
    let names = names::Names::of(text, &parse.root);
    let arena = bumpalo::Bump::new();
    let mut cx = Cx::new(text, &names, &arena);
    let expr = match statements.as_slice() {
        [single] if !single.is_error() => Some(expr::expr(&mut cx, single)),
        _ => None,
    };
    let mut errors = syntax_errors(&parse);
    errors.extend(cx.errors);
    errors.sort_by_key(|e| (e.range.start, e.range.end));
    if let Some(first) = errors.into_iter().next() {
        return Err(first);
    }
    match (expr, statements.len()) {
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

/// The statements of a toplevel node, those of `a; b` lines included.
fn statements_of<'t>(node: &'t SyntaxNode, out: &mut Vec<&'t SyntaxNode>) {
    for child in &node.children {
        if child.kind == Kind::Toplevel && !child.leaf {
            statements_of(child, out);
        } else {
            out.push(child);
        }
    }
}

/// The parser's diagnostics as syntax errors, each message starting with what it is.
fn syntax_errors(parse: &Parse) -> Vec<SyntaxError> {
    parse
        .diagnostics
        .iter()
        .map(|d| SyntaxError {
            range: d.range,
            code: "syntax-error",
            message: if d.message.starts_with("syntax error") || d.message.starts_with("missing") {
                d.message.clone()
            } else {
                format!("syntax error: {}", d.message)
            },
        })
        .collect()
}

fn whole(text: &str) -> TextRange {
    TextRange::new(0, text.len() as u32)
}
