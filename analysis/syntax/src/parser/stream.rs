//! The parse stream: the tokens in front of the parser (with lookahead that skips trivia) and
//! the output behind it. The output is flat and in postorder: tokens as they are consumed, and
//! after the children of each node a node event that counts them (the design of JuliaSyntax's
//! `ParseStream`). A recursive-descent parser builds it with `position` (a mark) and `emit`
//! (wrap everything since the mark in a node), and the tree is built from it without recursion.

use std::time::Instant;

use crate::ast::TextRange;
use crate::kind::Kind;
use crate::lexer::Token;

/// Flags of a token or node in the output.
pub(crate) mod flags {
    /// Punctuation and keywords that the tree leaves out (`(`, `end`, `,`).
    pub const TRIVIA: u16 = 1;
    /// `a + b`: the operator is the middle child.
    pub const INFIX: u16 = 1 << 1;
    /// `-x`: the operator is the first child.
    pub const PREFIX: u16 = 1 << 2;
    /// `x'`: the operator is the last child.
    pub const POSTFIX: u16 = 1 << 3;
    /// A block or tuple written with parentheses.
    pub const PARENS: u16 = 1 << 4;
    /// A list with a trailing comma (`(a,)`).
    pub const TRAILING_COMMA: u16 = 1 << 5;
    /// `mutable struct`, `baremodule`, the short form `f(x) = ...`, a raw string, a
    /// triple-quoted string, `:x` quoting: one flag whose meaning depends on the kind.
    pub const MUTABLE: u16 = 1 << 6;
    pub const BARE_MODULE: u16 = 1 << 6;
    pub const SHORT_FORM: u16 = 1 << 6;
    pub const COLON_QUOTE: u16 = 1 << 6;
    /// A `toplevel` of statements separated by `;` on one line.
    pub const SEMICOLONS: u16 = 1 << 6;
    pub const RAW_STRING: u16 = 1 << 7;
    pub const TRIPLE_STRING: u16 = 1 << 8;
    /// An operator token with a suffix (`+₁`).
    pub const SUFFIXED: u16 = 1 << 9;
    /// The dimension of an `ncat`/`nrow` lives in the top four bits.
    pub const DIM_SHIFT: u16 = 12;

    /// The flags holding the dimension `dim` (1 to 15).
    pub fn dim(dim: usize) -> u16 {
        (dim.min(15) as u16) << DIM_SHIFT
    }
}

/// One item of the output.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Event {
    pub kind: Kind,
    /// The token's kind as the lexer read it (a keyword remapped to a name keeps it here).
    pub orig: Kind,
    pub flags: u16,
    /// A token's bytes (empty for a node: its range comes from its children).
    pub range: TextRange,
    /// A node: how many events before it are its descendants. A token: `u32::MAX`.
    pub span: u32,
    /// An error message for this node (1-based index into the messages), 0 for none.
    pub message: u32,
}

impl Event {
    pub fn is_token(&self) -> bool {
        self.span == u32::MAX
    }

    /// Whitespace, comments and punctuation the tree leaves out.
    pub fn is_trivia(&self) -> bool {
        self.flags & flags::TRIVIA != 0 || (self.is_token() && self.kind.is_trivia())
    }

    /// A placeholder: a dropped token, or a node whose children belong to its parent.
    pub fn is_tombstone(&self) -> bool {
        self.kind == Kind::Tombstone
    }
}

/// A place in the output: how many events there are, and the next byte of the input.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) struct Pos {
    pub index: u32,
    pub byte: u32,
}

/// A token seen ahead, with what precedes it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Tok {
    pub kind: Kind,
    pub range: TextRange,
    pub suffixed: bool,
    /// Is it preceded by whitespace, a newline or a comment (or is it whitespace itself)?
    pub ws_before: bool,
}

/// What a previous output item is.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Behind {
    pub kind: Kind,
    pub flags: u16,
    /// The lexer's kind, for a token.
    pub orig: Kind,
    pub is_leaf: bool,
}

/// A problem found while parsing: a byte range and a message.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Diagnostic {
    pub range: TextRange,
    pub message: String,
}

/// How many peeks without consuming anything mean the parser is stuck (a bug): it is then
/// shown the end of the input, which every loop of the parser stops at.
const MAX_PEEKS_WITHOUT_PROGRESS: u32 = 100_000;

/// How often (in consumed tokens) the deadline is checked.
const DEADLINE_CHECK_INTERVAL: u32 = 1024;

/// Why the parse stopped early.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Stop {
    /// The deadline passed.
    Deadline,
    /// The parser made no progress (a bug, reported rather than looping forever).
    Stuck,
}

pub(crate) struct Stream {
    tokens: Vec<Token>,
    /// The next token to consume (it may be trivia).
    next: usize,
    /// End of what has been consumed.
    next_byte: u32,
    pub output: Vec<Event>,
    pub messages: Vec<String>,
    pub diagnostics: Vec<Diagnostic>,
    peeks: u32,
    bumps: u32,
    deadline: Option<Instant>,
    pub stopped: Option<Stop>,
}

impl Stream {
    /// A stream over `tokens` (ending with the end marker), to be parsed before `deadline`.
    pub fn new(tokens: Vec<Token>, deadline: Option<Instant>) -> Stream {
        let capacity = tokens.len() * 3 / 2;
        Stream {
            tokens,
            next: 0,
            next_byte: 0,
            output: Vec::with_capacity(capacity),
            messages: Vec::new(),
            diagnostics: Vec::new(),
            peeks: 0,
            bumps: 0,
            deadline,
            stopped: None,
        }
    }

    fn end_token(&self) -> Tok {
        let end = self.tokens.last().map_or(0, |t| t.range.end);
        Tok {
            kind: Kind::EndMarker,
            range: TextRange::new(end, end),
            suffixed: false,
            ws_before: false,
        }
    }

    /// The index of the `n`th (1-based) significant token ahead: whitespace and comments are
    /// skipped, newlines too when `skip_newlines`.
    fn lookahead_index(&mut self, n: usize, skip_newlines: bool) -> Option<usize> {
        if self.stopped.is_some() {
            return None;
        }
        self.peeks += 1;
        if self.peeks > MAX_PEEKS_WITHOUT_PROGRESS {
            self.stopped = Some(Stop::Stuck);
            return None;
        }
        let mut remaining = n;
        let mut i = self.next;
        loop {
            let token = self.tokens.get(i)?;
            let skip = match token.kind {
                Kind::Whitespace | Kind::Comment => true,
                Kind::NewlineWs => skip_newlines,
                _ => false,
            };
            if !skip {
                if remaining == 1 || token.kind == Kind::EndMarker {
                    return Some(i);
                }
                remaining -= 1;
            }
            i += 1;
        }
    }

    /// The `n`th significant token ahead.
    pub fn peek_token(&mut self, n: usize, skip_newlines: bool) -> Tok {
        match self.lookahead_index(n, skip_newlines) {
            Some(i) => self.tok_at(i),
            None => self.end_token(),
        }
    }

    fn tok_at(&self, i: usize) -> Tok {
        match self.tokens.get(i) {
            Some(t) => Tok {
                kind: t.kind,
                range: t.range,
                suffixed: t.suffixed,
                // A whitespace token counts as preceded by whitespace, as in JuliaSyntax.
                ws_before: t.kind.is_trivia()
                    || (i > 0
                        && self
                            .tokens
                            .get(i - 1)
                            .is_some_and(|prev| prev.kind.is_trivia())),
            },
            None => self.end_token(),
        }
    }

    /// The next token, trivia included (for string literals, whose text is all significant).
    pub fn peek_raw(&self) -> Tok {
        if self.stopped.is_some() {
            return self.end_token();
        }
        self.tok_at(self.next)
    }

    /// Where the output is now.
    pub fn position(&self) -> Pos {
        Pos {
            index: self.output.len() as u32,
            byte: self.next_byte,
        }
    }

    fn push_token(&mut self, token: Token, kind: Kind, flags: u16) {
        let suffix = if token.suffixed { flags::SUFFIXED } else { 0 };
        self.output.push(Event {
            kind,
            orig: token.kind,
            flags: flags | suffix,
            range: token.range,
            span: u32::MAX,
            message: 0,
        });
        self.next_byte = token.range.end;
    }

    /// Consumes tokens up to and including index `last`: trivia as trivia, the others with
    /// `flags` and (if given) the kind `remap`. The end marker is never consumed.
    fn bump_until(&mut self, last: usize, flags_: u16, remap: Option<Kind>) {
        while self.next <= last {
            let Some(token) = self.tokens.get(self.next).copied() else {
                break;
            };
            if token.kind == Kind::EndMarker {
                break;
            }
            if token.kind.is_trivia() {
                self.push_token(token, token.kind, flags::TRIVIA);
            } else {
                self.push_token(token, remap.unwrap_or(token.kind), flags_);
            }
            self.next += 1;
        }
        self.progress();
    }

    /// Records that the parser moved on, and checks the deadline now and then.
    fn progress(&mut self) {
        self.peeks = 0;
        self.bumps += 1;
        if self.bumps.is_multiple_of(DEADLINE_CHECK_INTERVAL)
            && self.deadline.is_some_and(|at| Instant::now() >= at)
        {
            self.stopped = Some(Stop::Deadline);
        }
    }

    /// Checks the deadline (also at the end of a parse, however short).
    pub fn check_deadline(&mut self) {
        if self.deadline.is_some_and(|at| Instant::now() >= at) && self.stopped.is_none() {
            self.stopped = Some(Stop::Deadline);
        }
    }

    /// Consumes the next significant token and the trivia before it.
    pub fn bump(&mut self, flags_: u16, skip_newlines: bool, remap: Option<Kind>) -> Pos {
        if let Some(i) = self.lookahead_index(1, skip_newlines) {
            self.bump_until(i, flags_, remap);
        }
        self.position()
    }

    /// Consumes the trivia before the next significant token.
    pub fn bump_trivia(&mut self, skip_newlines: bool) -> Pos {
        if let Some(i) = self.lookahead_index(1, skip_newlines) {
            if i > 0 {
                self.bump_until(i - 1, 0, None);
            }
        }
        self.position()
    }

    /// Consumes the next token whatever it is (trivia included), as a token of kind `kind`.
    pub fn bump_raw(&mut self, kind: Option<Kind>, flags_: u16) -> Pos {
        if self.stopped.is_none() {
            if let Some(token) = self.tokens.get(self.next).copied() {
                if token.kind != Kind::EndMarker {
                    self.push_token(token, kind.unwrap_or(token.kind), flags_);
                    self.next += 1;
                    self.progress();
                }
            }
        }
        self.position()
    }

    /// Adds an empty token (`kind` at the current byte): syntax implied but not written.
    pub fn bump_invisible(&mut self, kind: Kind, flags_: u16, error: Option<&str>) -> Pos {
        let at = self.next_byte;
        self.output.push(Event {
            kind,
            orig: kind,
            flags: flags_,
            range: TextRange::new(at, at),
            span: u32::MAX,
            message: 0,
        });
        if let Some(message) = error {
            self.diagnose(TextRange::new(at, at), message);
        }
        self.peeks = 0;
        self.position()
    }

    /// Consumes the next two tokens (the sign and digits of `-2`) as one token of `kind`.
    pub fn bump_glue(&mut self, kind: Kind, flags_: u16) -> Pos {
        let (Some(first), Some(second)) = (
            self.tokens.get(self.next).copied(),
            self.tokens.get(self.next + 1).copied(),
        ) else {
            return self.position();
        };
        let glued = Token {
            kind,
            range: TextRange::new(first.range.start, second.range.end),
            suffixed: false,
        };
        self.push_token(glued, kind, flags_);
        self.next += 2;
        self.progress();
        self.position()
    }

    /// Consumes the next token as several: `(bytes, kind, flags)` pieces, where a negative
    /// byte count means "all but that many" (`+=` is `+` then `=`; `..` is `.` then `.`).
    pub fn bump_split(&mut self, pieces: &[(i32, Kind, u16)]) -> Pos {
        let Some(token) = self.tokens.get(self.next).copied() else {
            return self.position();
        };
        let len = (token.range.end - token.range.start) as i32;
        let mut at = token.range.start;
        for (i, (bytes, kind, flags_)) in pieces.iter().enumerate() {
            let n = if *bytes < 0 { len + bytes } else { *bytes };
            let end = if i + 1 == pieces.len() {
                token.range.end
            } else {
                (at + n.max(0) as u32).min(token.range.end)
            };
            self.output.push(Event {
                kind: *kind,
                orig: token.kind,
                flags: *flags_,
                range: TextRange::new(at, end),
                span: u32::MAX,
                message: 0,
            });
            at = end;
        }
        self.next_byte = token.range.end;
        self.next += 1;
        self.progress();
        self.position()
    }

    /// Wraps everything output since `mark` in a node.
    pub fn emit(&mut self, mark: Pos, kind: Kind, flags_: u16, error: Option<&str>) -> Pos {
        let message = match error {
            Some(text) => {
                self.messages.push(text.to_string());
                self.messages.len() as u32
            }
            None => 0,
        };
        let span = (self.output.len() as u32).saturating_sub(mark.index);
        self.output.push(Event {
            kind,
            orig: kind,
            flags: flags_,
            range: TextRange::new(mark.byte, self.next_byte),
            span,
            message,
        });
        self.position()
    }

    /// Records a problem at `range` that no error node carries.
    pub fn diagnose(&mut self, range: TextRange, message: &str) {
        self.diagnostics.push(Diagnostic {
            range,
            message: message.to_string(),
        });
    }

    /// Changes the kind or flags of the item that ends at `pos`.
    pub fn reset_node(&mut self, pos: Pos, kind: Option<Kind>, flags_: Option<u16>) {
        if let Some(event) = (pos.index as usize)
            .checked_sub(1)
            .and_then(|i| self.output.get_mut(i))
        {
            if let Some(kind) = kind {
                event.kind = kind;
            }
            if let Some(flags_) = flags_ {
                event.flags = flags_;
            }
        }
    }

    /// What the item that ends at `pos` is.
    pub fn behind_at(&self, pos: Pos) -> Behind {
        match (pos.index as usize)
            .checked_sub(1)
            .and_then(|i| self.output.get(i))
        {
            Some(event) => Behind {
                kind: event.kind,
                flags: event.flags,
                orig: if event.is_token() {
                    event.orig
                } else {
                    Kind::EndMarker
                },
                is_leaf: event.is_token(),
            },
            None => Behind {
                kind: Kind::EndMarker,
                flags: 0,
                orig: Kind::EndMarker,
                is_leaf: true,
            },
        }
    }

    /// The position after the last item of interest: parentheses and (if `skip_trivia`)
    /// trivia and removed items are looked through.
    pub fn behind_pos(&self, skip_trivia: bool, skip_parens: bool) -> Pos {
        let mut index = self.output.len();
        if skip_parens {
            while let Some(event) = index.checked_sub(1).and_then(|i| self.output.get(i)) {
                if !event.is_token() && event.kind == Kind::Parens {
                    index -= 1;
                } else {
                    break;
                }
            }
        }
        while let Some(event) = index.checked_sub(1).and_then(|i| self.output.get(i)) {
            if event.is_tombstone() || (skip_trivia && event.is_trivia()) {
                index = if event.is_token() {
                    index - 1
                } else {
                    index.saturating_sub(1 + event.span as usize)
                };
            } else {
                break;
            }
        }
        Pos {
            index: index as u32,
            byte: self.next_byte,
        }
    }

    /// The last significant item (parentheses looked through).
    pub fn behind(&self) -> Behind {
        self.behind_at(self.behind_pos(true, true))
    }

    /// The positions just after each significant child of the node ending at `pos`, last
    /// child first.
    fn child_positions(&self, pos: Pos) -> Vec<Pos> {
        let mut found = Vec::new();
        let Some(node) = (pos.index as usize)
            .checked_sub(1)
            .and_then(|i| self.output.get(i))
        else {
            return found;
        };
        if node.is_token() {
            return found;
        }
        let first = (pos.index as usize - 1).saturating_sub(node.span as usize);
        let mut end = pos.index as usize - 1;
        while end > first {
            let Some(child) = self.output.get(end - 1) else {
                break;
            };
            if child.is_tombstone() {
                end -= 1;
                continue;
            }
            if !child.is_trivia() {
                found.push(Pos {
                    index: end as u32,
                    byte: pos.byte,
                });
            }
            end = if child.is_token() {
                end - 1
            } else {
                (end - 1).saturating_sub(child.span as usize)
            };
        }
        found
    }

    /// The position after the first significant child of the node ending at `pos`.
    pub fn first_child_position(&self, pos: Pos) -> Option<Pos> {
        self.child_positions(pos).last().copied()
    }

    /// The range of the next significant token (newlines skipped).
    pub fn next_range(&mut self) -> TextRange {
        self.peek_token(1, true).range
    }

    /// The range of the whitespace before the next token (empty if none).
    pub fn whitespace_range(&self) -> TextRange {
        let mut end = self.next;
        while self
            .tokens
            .get(end)
            .is_some_and(|t| matches!(t.kind, Kind::Whitespace | Kind::Comment))
        {
            end += 1;
        }
        let start = self
            .tokens
            .get(self.next)
            .map_or(self.next_byte, |t| t.range.start);
        let stop = end
            .checked_sub(1)
            .filter(|e| *e >= self.next)
            .and_then(|e| self.tokens.get(e))
            .map_or(start, |t| t.range.end);
        TextRange::new(start, stop)
    }

    /// Moves the first `bytes` bytes of the token after the one ending at `pos` into it (the
    /// indentation of a triple-quoted string line becomes whitespace); is the donor now empty?
    pub fn steal_token_bytes(&mut self, pos: Pos, bytes: u32) -> bool {
        let i = pos.index as usize;
        let (Some(taker), Some(donor)) = (i.checked_sub(1), Some(i)) else {
            return false;
        };
        let Some(donor_range) = self.output.get(donor).map(|e| e.range) else {
            return false;
        };
        let moved = bytes.min(donor_range.end - donor_range.start);
        if let Some(event) = self.output.get_mut(taker) {
            event.range = TextRange::new(event.range.start, event.range.end + moved);
        }
        let empty = donor_range.start + moved == donor_range.end;
        if let Some(event) = self.output.get_mut(donor) {
            event.range = TextRange::new(donor_range.start + moved, donor_range.end);
            if empty {
                event.kind = Kind::Tombstone;
            }
        }
        empty
    }
}
