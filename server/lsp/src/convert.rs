//! Conversions between LSP positions (UTF-16 code units, 0-based) and byte offsets.

use line_index::{LineCol, LineIndex, TextSize, WideEncoding, WideLineCol};
use tower_lsp::lsp_types::{Position, Range, TextDocumentContentChangeEvent};

/// The text of an open document with its line index.
pub struct Document {
    pub text: String,
    pub index: LineIndex,
    pub version: i32,
}

impl Document {
    /// A document with `text` at `version`.
    pub fn new(text: String, version: i32) -> Document {
        let index = LineIndex::new(&text);
        Document {
            text,
            index,
            version,
        }
    }

    /// The byte offset of an LSP position, clamped to the document (a position past the end of a
    /// line or of the file maps to that end, as clients expect).
    pub fn offset(&self, pos: Position) -> u32 {
        let Some(line) = self.index.line(pos.line) else {
            return self.text.len() as u32;
        };
        let (start, end) = (u32::from(line.start()), u32::from(line.end()));
        let content = self.text[start as usize..end as usize].trim_end_matches(['\n', '\r']);
        let content_end = start + content.len() as u32;
        let wide = WideLineCol {
            line: pos.line,
            col: pos.character,
        };
        let col = match self.index.to_utf8(WideEncoding::Utf16, wide) {
            Some(lc) => lc.col,
            None => content.len() as u32,
        };
        // A client's column may be any u32 (`u32::MAX` past the line's end).
        let mut off = start.saturating_add(col).min(content_end) as usize;
        while !self.text.is_char_boundary(off) {
            off -= 1;
        }
        off as u32
    }

    /// The LSP position of a byte offset (clamped to the text, snapped to a char boundary).
    pub fn position(&self, offset: u32) -> Position {
        let mut off = (offset as usize).min(self.text.len());
        while !self.text.is_char_boundary(off) {
            off -= 1;
        }
        let lc: LineCol = self.index.line_col(TextSize::from(off as u32));
        match self.index.to_wide(WideEncoding::Utf16, lc) {
            Some(w) => Position::new(w.line, w.col),
            None => Position::new(lc.line, lc.col),
        }
    }

    /// The LSP range of a byte range.
    pub fn range(&self, start: u32, end: u32) -> Range {
        Range::new(self.position(start), self.position(end))
    }

    /// Apply one content change (a ranged edit, or the whole text when `range` is absent).
    pub fn apply(&mut self, change: &TextDocumentContentChangeEvent) {
        match change.range {
            Some(range) => {
                let start = self.offset(range.start) as usize;
                let end = (self.offset(range.end) as usize).max(start);
                self.text.replace_range(start..end, &change.text);
            }
            None => self.text = change.text.clone(),
        }
        self.index = LineIndex::new(&self.text);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf16_positions_round_trip_through_non_ascii_text() {
        // `ȳ` is 2 bytes / 1 UTF-16 unit, `∇` 3 bytes / 1 unit, `🙂` 4 bytes / 2 units.
        let doc = Document::new("ȳ = ∇f(🙂x)\nnext\n".into(), 1);
        let x = doc.text.find('x').unwrap() as u32;
        assert_eq!(doc.position(x), Position::new(0, 9));
        assert_eq!(doc.offset(Position::new(0, 9)), x);
        assert_eq!(
            doc.offset(Position::new(1, 2)),
            doc.text.find("xt").unwrap() as u32
        );
    }

    #[test]
    fn positions_past_the_end_clamp() {
        let doc = Document::new("ab\ncd".into(), 1);
        assert_eq!(doc.offset(Position::new(1, u32::MAX)), 5);
        assert_eq!(doc.offset(Position::new(0, 99)), 2);
        assert_eq!(doc.offset(Position::new(7, 0)), 5);
    }

    #[test]
    fn incremental_edits_apply_in_utf16_units() {
        let mut doc = Document::new("x̄ = 1.0\n".into(), 1);
        // `x̄` is two UTF-16 units (x + combining macron); replace `1.0` (units 5..8).
        doc.apply(&TextDocumentContentChangeEvent {
            range: Some(Range::new(Position::new(0, 5), Position::new(0, 8))),
            range_length: None,
            text: "2.5".into(),
        });
        assert_eq!(doc.text, "x̄ = 2.5\n");
    }
}
