//! The text a test of the file runs as (see [`super::julia_tests`]): the file's text from
//! the start of the statement holding the test, with edits, and where each byte of it
//! comes from in the file, so that an error in it is located in the file.

use zy_syntax::ast::TextRange;

/// A change to the file's text: `range` replaced by `with`, made for the construct at
/// `owner` (a test macro call or a testset, whose edits all go when it is left out).
#[derive(Clone, Debug)]
pub(super) struct Edit {
    pub(super) owner: TextRange,
    pub(super) range: TextRange,
    pub(super) with: String,
}

impl Edit {
    /// `range` of the construct at `owner` replaced by `with`.
    pub(super) fn new(owner: TextRange, range: TextRange, with: &str) -> Edit {
        Edit {
            owner,
            range,
            with: with.to_string(),
        }
    }
}

/// Where the bytes of a text come from in the file.
#[derive(Clone, Debug, Default)]
pub(super) struct Map {
    segments: Vec<Segment>,
}

/// Bytes of a text from `text` on: the file's from `file` on where `copied`, else text
/// standing at the file's offset `file`.
#[derive(Clone, Copy, Debug)]
struct Segment {
    text: u32,
    file: u32,
    copied: bool,
}

impl Map {
    /// The file offset of byte `t` of the text.
    pub(super) fn file_offset(&self, t: u32) -> u32 {
        match self.segments.iter().rev().find(|s| s.text <= t) {
            Some(s) if s.copied => s.file + (t - s.text),
            Some(s) => s.file,
            None => self.segments.first().map_or(0, |s| s.file),
        }
    }
}

/// A text being built, with its [`Map`].
#[derive(Default)]
pub(super) struct Texter {
    pub(super) text: String,
    pub(super) map: Map,
}

impl Texter {
    /// Add `s`, written by zy, standing at the file's offset `at`.
    pub(super) fn literal(&mut self, s: &str, at: u32) {
        self.push(s, at, false);
    }

    /// Add the file's text (`file`) from `from` to `to` with `edits` made: an edit inside
    /// one made before it is left out (the outer one replaced it).
    pub(super) fn file(&mut self, file: &str, from: u32, to: u32, edits: &[&Edit]) {
        let mut edits: Vec<&Edit> = edits
            .iter()
            .copied()
            .filter(|e| from <= e.range.start && e.range.end <= to)
            .collect();
        edits.sort_by_key(|e| (e.range.start, std::cmp::Reverse(e.range.end)));
        let mut at = from;
        for e in edits {
            if e.range.start < at {
                continue;
            }
            self.copy(file, at, e.range.start);
            self.push(&e.with, e.range.start, false);
            at = e.range.end;
        }
        self.copy(file, at, to);
    }

    fn copy(&mut self, file: &str, from: u32, to: u32) {
        let part = file.get(from as usize..to as usize).unwrap_or_default();
        self.push(part, from, true);
    }

    fn push(&mut self, s: &str, file: u32, copied: bool) {
        if s.is_empty() {
            return;
        }
        self.map.segments.push(Segment {
            text: self.text.len() as u32,
            file,
            copied,
        });
        self.text.push_str(s);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edits_replace_ranges_and_the_map_finds_the_file_bytes() {
        let file = "ab @test x\ncd";
        let owner = TextRange::new(3, 10);
        let edits = [
            Edit::new(owner, TextRange::new(3, 9), "(try "),
            Edit::new(owner, TextRange::new(10, 10), "\ncatch\nend)"),
            Edit::new(owner, TextRange::new(4, 5), "inner, left out"),
        ];
        let mut t = Texter::default();
        t.literal("<", 0);
        t.file(file, 0, 13, &edits.iter().collect::<Vec<_>>());
        assert_eq!(t.text, "<ab (try x\ncatch\nend)\ncd");
        let at = |s: &str| t.map.file_offset(t.text.find(s).unwrap_or(0) as u32);
        assert_eq!(
            (at("<"), at("ab"), at("(try"), at("x"), at("catch")),
            (0, 0, 3, 9, 10)
        );
        assert_eq!(at("cd"), 11);
    }
}
