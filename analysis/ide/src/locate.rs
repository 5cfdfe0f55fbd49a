//! Turning IR spans and call-text offsets into [`UserError`]s.

use std::path::PathBuf;

use zy_hir::{RootDatabase, SourceFile};
use zy_ir::Span;

use crate::error::{UserError, CALL_FILE};

/// Where a call's text comes from: the command line (positions in `<call>`) or an annotation
/// in a file starting at a byte offset.
#[derive(Clone, Copy, Debug)]
pub enum CallSite<'a> {
    /// A call string given by the user; the text is used to count columns.
    Text(&'a str),
    /// The text of a `# zy: at` annotation starting at `offset` in `file`.
    InFile { file: SourceFile, offset: u32 },
}

/// A user error at an IR span (in the call or in an item), with the call's fallback location
/// for spans that point nowhere (synthesised code).
pub fn error_at(db: &RootDatabase, span: Span, site: CallSite<'_>, message: String) -> UserError {
    let call = match site {
        CallSite::InFile { file, offset } => Some((file, offset)),
        CallSite::Text(_) => None,
    };
    match zy_hir::locate(db, span, call) {
        Some(r) => in_file(db, r.file, r.start, message),
        None => match site {
            CallSite::Text(text) => in_call(text, span.start, message),
            CallSite::InFile { file, offset } => in_file(db, file, offset, message),
        },
    }
}

/// A run-time error where the user looks for it: at the statement that raised it, or, when
/// that is in Julia's library (the prelude), at the innermost call of the user's code that led
/// there (its stack trace), the library's location named in the message. Code inference
/// synthesises (the run-time splat of a vector, `map` over a closure) has no source: its error
/// is shown at the user's call that led there, its message unchanged.
pub fn runtime_error_at(
    db: &RootDatabase,
    e: zy_interp::RuntimeError,
    site: CallSite<'_>,
) -> UserError {
    let library = |span: Span| in_library(db, span, site);
    let hidden = |span: Span| synthesised(span) || library(span);
    if synthesised(e.span) {
        let at = e
            .trace
            .iter()
            .copied()
            .find(|&s| !hidden(s))
            .unwrap_or(e.span);
        return error_at(db, at, site, e.message);
    }
    if !library(e.span) {
        return error_at(db, e.span, site, e.message);
    }
    match e.trace.iter().find(|&&s| !hidden(s)) {
        Some(&user) => {
            let message = match zy_hir::item_of_span(db, e.span.file) {
                Some(item) => format!(
                    "{} (raised in Julia's library, in `{}`)",
                    e.message,
                    item.name(db)
                ),
                None => format!("{} (raised in Julia's library)", e.message),
            };
            error_at(db, user, site, message)
        }
        None => error_at(db, e.span, site, e.message),
    }
}

/// Is `span` the empty span of code inference synthesises (`zy_infer`'s synthesised
/// functions), which points at no source?
pub fn synthesised(span: Span) -> bool {
    span.file == zy_hir::CALL_SPAN_FILE && span.start == 0 && span.end == 0
}

/// Is `span` in Julia's library (the prelude)?
pub fn in_library(db: &RootDatabase, span: Span, site: CallSite<'_>) -> bool {
    let call = match site {
        CallSite::InFile { file, offset } => Some((file, offset)),
        CallSite::Text(_) => None,
    };
    zy_hir::locate(db, span, call).is_some_and(|r| zy_hir::is_prelude(db, r.file))
}

/// A user error at byte `offset` of the call text of `site`.
pub fn in_site(db: &RootDatabase, site: CallSite<'_>, offset: u32, message: String) -> UserError {
    match site {
        CallSite::Text(text) => in_call(text, offset, message),
        CallSite::InFile { file, offset: base } => in_file(db, file, base + offset, message),
    }
}

/// A user error at byte `offset` of `file`.
pub fn in_file(db: &RootDatabase, file: SourceFile, offset: u32, message: String) -> UserError {
    let lc = zy_hir::line_col(db, file, offset);
    UserError {
        file: file.path(db).clone(),
        line: lc.line,
        col: lc.col,
        message,
    }
}

/// A user error at byte `offset` of a call string (line 1 unless it has newlines).
pub fn in_call(text: &str, offset: u32, message: String) -> UserError {
    let mut end = (offset as usize).min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let before = &text[..end];
    let line = before.matches('\n').count() as u32 + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let col = before[line_start..].chars().count() as u32 + 1;
    UserError {
        file: PathBuf::from(CALL_FILE),
        line,
        col,
        message,
    }
}
