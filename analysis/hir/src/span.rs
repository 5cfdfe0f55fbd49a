//! Mapping IR spans (relative to an item) and AST ranges (absolute in a file) back to
//! `path:line:col` positions.

use std::fmt;
use std::sync::Arc;

use line_index::{LineIndex, TextSize, WideEncoding, WideLineCol};
use zy_ir::Span;

use crate::input::SourceFile;
use crate::item::{item_range, ItemId};

/// The line index of a file's current text.
#[salsa::tracked(returns(ref), no_eq)]
pub fn file_line_index(db: &dyn salsa::Database, file: SourceFile) -> Arc<LineIndex> {
    Arc::new(LineIndex::new(file.text(db)))
}

/// A byte range in one file.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct FileRange {
    pub file: SourceFile,
    pub start: u32,
    pub end: u32,
}

/// A 1-based line and column; the column counts characters.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub struct LineCol {
    pub line: u32,
    pub col: u32,
}

impl fmt::Display for LineCol {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.line, self.col)
    }
}

/// The file range of an IR span lowered from `item` (its offsets are ranks, see
/// [`crate::item::item_ast`]). `None` if the item no longer exists.
pub fn item_span_range(db: &dyn salsa::Database, item: ItemId, span: Span) -> Option<FileRange> {
    let (start, end) = item_range(db, item, span.start, span.end)?;
    Some(FileRange {
        file: item.file(db),
        start,
        end,
    })
}

/// The 1-based line and character column of a byte offset in `file` (clamped to the text).
pub fn line_col(db: &dyn salsa::Database, file: SourceFile, offset: u32) -> LineCol {
    let index = file_line_index(db, file);
    let text = file.text(db);
    let mut offset = (offset as usize).min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let lc = index.line_col(TextSize::from(offset as u32));
    let col = index
        .to_wide(WideEncoding::Utf32, lc)
        .map_or(lc.col, |w| w.col);
    LineCol {
        line: lc.line + 1,
        col: col + 1,
    }
}

/// The byte offset of a 1-based line and character column in `file` (the inverse of
/// [`line_col`]), if that position is on that line of the text.
pub fn offset_of(db: &dyn salsa::Database, file: SourceFile, at: LineCol) -> Option<u32> {
    let index = file_line_index(db, file);
    let wide = WideLineCol {
        line: at.line.checked_sub(1)?,
        col: at.col.checked_sub(1)?,
    };
    let offset = index.offset(index.to_utf8(WideEncoding::Utf32, wide)?)?;
    let on_line = offset <= index.line(wide.line)?.end();
    let offset = u32::from(offset);
    (on_line && file.text(db).is_char_boundary(offset as usize)).then_some(offset)
}
