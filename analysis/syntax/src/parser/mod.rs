//! A recursive-descent parser for all of Julia's surface syntax, following Julia's own parser
//! (JuliaSyntax's `parser.jl`): the same productions, the same contexts (space-sensitive
//! `[...]` and macro arguments, `end` as a name inside indexing, ...), the same error recovery.
//! It writes the postorder output of a [`Stream`]; [`crate::tree`] builds the tree from it.
//!
//! Two departures, both for robustness:
//! - The binary operators from `=>` down to `<<` are parsed by one precedence-climbing loop
//!   ([`binary`]) instead of one function per precedence level, so that each level of
//!   nesting costs a dozen stack frames rather than thirty-five. Recursion is bounded
//!   ([`MAX_DEPTH`]): deeper input becomes one error node, skipped without recursion.
//! - After a block whose `end` is missing, the file is parsed a second time in a recovery mode
//!   where a line that starts in column 0 ends every open block (but a module's), so a
//!   half-typed definition does not swallow the definitions after it.

mod atom;
mod binary;
mod resword;
pub(crate) mod stream;

use crate::ast::TextRange;
use crate::kind::{Keyword, Kind};
use stream::{flags, Pos, Stream, Tok};

/// How deep the parser may recurse: deeper input is one error "expression nested too
/// deeply". Every production that recurses counts one level: an assignment-level expression
/// (so each statement, argument and element), a bracketed list, a prefix or `^` operator, a
/// `do` block, a generator; `(x)` counts two, so about 12,000 nested parentheses are accepted,
/// past the AST's own limit. Chains that the parser builds in a loop (`a - b - c`, `f(x)(y)`,
/// `x.a.b`, `where` clauses, statements of a block, `elseif` branches) do not count: their
/// trees are deep but cost no stack here (building, printing and dropping a tree use explicit
/// stacks; the conversion to the AST has its own limit). The worst level costs under 2 KiB of
/// stack in a debug build (`"$(`), so the deepest input parses in under 48 MiB: on the
/// analysis threads' stacks ([`crate::PARSE_STACK`]).
pub(crate) const MAX_DEPTH: u32 = 24_000;

/// The message of the error for input nested deeper than [`MAX_DEPTH`].
pub(crate) const TOO_DEEP: &str = "expression nested too deeply";

/// The parsing context: how the current construct reads whitespace, newlines, `:` and `end`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Ctx {
    /// `a:b` is a range (false in the middle of `c ? a : b`).
    pub range_colon_enabled: bool,
    /// Inside `[...]` and macro arguments: `x -y` is two expressions.
    pub space_sensitive: bool,
    /// `for` ends the expression and starts a generator.
    pub for_generator: bool,
    /// `end` (and `begin`) are names: inside indexing brackets.
    pub end_symbol: bool,
    /// Newlines are plain whitespace: inside parentheses.
    pub whitespace_newline: bool,
    /// `where` binds here.
    pub where_enabled: bool,
}

impl Ctx {
    /// The context at the top of a file.
    pub const TOP: Ctx = Ctx {
        range_colon_enabled: true,
        space_sensitive: false,
        for_generator: false,
        end_symbol: false,
        whitespace_newline: false,
        where_enabled: true,
    };

    /// The context of a block (`begin ... end` resets whatever brackets enclose it).
    pub fn normal(self) -> Ctx {
        Ctx {
            end_symbol: false,
            ..Ctx::TOP
        }
    }

    /// Space-sensitive, newlines significant: macro arguments, array elements.
    pub fn space_sensitive(self) -> Ctx {
        Ctx {
            space_sensitive: true,
            whitespace_newline: false,
            ..self
        }
    }
}

/// An operator ahead, dotted (`.+`) or not.
#[derive(Clone, Copy, Debug)]
pub(crate) struct DotOp {
    pub dotted: bool,
    /// The operator token (after the `.` if dotted).
    pub tok: Tok,
    /// Whitespace before the whole operator (before its `.`).
    pub ws_before: bool,
    /// The lookahead index of the token after the operator.
    pub after: usize,
}

impl DotOp {
    pub fn kind(&self) -> Kind {
        self.tok.kind
    }

    pub fn is(&self, text: &str) -> bool {
        self.tok.kind.is_op(text)
    }
}

/// The parser: a stream and the nesting depth.
pub(crate) struct Parser<'a> {
    pub s: Stream,
    src: &'a str,
    depth: u32,
    too_deep_reported: bool,
    /// Recovery mode: a statement starting in column 0 ends every open block but a module's.
    recovering: bool,
    /// Is the innermost open block a module's (where definitions start in column 0)?
    in_module: bool,
    /// Did a block miss its `end` (then the file is parsed again in recovery mode)?
    pub missing_end: bool,
}

/// What a bracketed list held, for deciding what it is (a call, a tuple, a block).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Brackets {
    pub had_commas: bool,
    pub had_splat: bool,
    pub num_semis: usize,
    pub num_subexprs: usize,
}

impl<'a> Parser<'a> {
    pub fn new(src: &'a str, s: Stream, recovering: bool) -> Parser<'a> {
        Parser {
            s,
            src,
            depth: 0,
            too_deep_reported: false,
            recovering,
            in_module: false,
            missing_end: false,
        }
    }

    // ---- Lookahead.

    pub fn peek(&mut self, cx: Ctx) -> Kind {
        self.s.peek_token(1, cx.whitespace_newline).kind
    }

    pub fn peek_n(&mut self, cx: Ctx, n: usize) -> Kind {
        self.s.peek_token(n, cx.whitespace_newline).kind
    }

    pub fn peek_nl(&mut self, n: usize, skip_newlines: bool) -> Kind {
        self.s.peek_token(n, skip_newlines).kind
    }

    pub fn peek_token(&mut self, cx: Ctx, n: usize) -> Tok {
        self.s.peek_token(n, cx.whitespace_newline)
    }

    pub fn peek_token_nl(&mut self, n: usize, skip_newlines: bool) -> Tok {
        self.s.peek_token(n, skip_newlines)
    }

    /// The next operator, with its dot if it is dotted (`.` directly followed by an operator).
    pub fn peek_dotted_op(&mut self, cx: Ctx) -> DotOp {
        let t = self.peek_token(cx, 1);
        if t.kind.is_op(".") {
            let t2 = self.peek_token(cx, 2);
            if t2.kind.is_operator() && !t2.ws_before {
                return DotOp {
                    dotted: true,
                    tok: t2,
                    ws_before: t.ws_before,
                    after: 3,
                };
            }
        }
        DotOp {
            dotted: false,
            tok: t,
            ws_before: t.ws_before,
            after: 2,
        }
    }

    /// Is the token after `op` directly attached to it (no whitespace)?
    pub fn attached_after(&mut self, cx: Ctx, op: DotOp) -> bool {
        !self.peek_token(cx, op.after).ws_before
    }

    // ---- Output.

    pub fn position(&self) -> Pos {
        self.s.position()
    }

    pub fn bump(&mut self, cx: Ctx, flags_: u16) -> Pos {
        self.s.bump(flags_, cx.whitespace_newline, None)
    }

    pub fn bump_nl(&mut self, flags_: u16, skip_newlines: bool) -> Pos {
        self.s.bump(flags_, skip_newlines, None)
    }

    pub fn bump_remap(&mut self, cx: Ctx, flags_: u16, kind: Kind) -> Pos {
        self.s.bump(flags_, cx.whitespace_newline, Some(kind))
    }

    /// Consumes the next token as an error, `flags_` on both (JuliaSyntax's `bump` with an
    /// error: a trivia token inside prints as `(error-t)`).
    pub fn bump_error(&mut self, cx: Ctx, flags_: u16, message: &str) -> Pos {
        let mark = self.position();
        self.bump(cx, flags_);
        self.emit_error(mark, flags_, message)
    }

    /// Consumes an operator, its `.` first if dotted; with `emit_dot_node` a dotted operator
    /// becomes a node `(. op)`. Returns the position after it (for `reset_node`).
    pub fn bump_dotted(
        &mut self,
        cx: Ctx,
        dotted: bool,
        flags_: u16,
        emit_dot_node: bool,
        remap: Option<Kind>,
    ) -> Pos {
        let mark = self.position();
        if dotted {
            self.bump(cx, flags::TRIVIA);
        }
        let pos = self.s.bump(flags_, cx.whitespace_newline, remap);
        if dotted && emit_dot_node {
            return self.emit(mark, Kind::Dot, 0);
        }
        pos
    }

    /// Consumes whitespace and comments (newlines too).
    pub fn bump_trivia(&mut self) -> Pos {
        self.s.bump_trivia(true)
    }

    /// Consumes the whitespace before the next token as an error.
    pub fn bump_trivia_error(&mut self, flags_: u16, skip_newlines: bool, message: &str) -> Pos {
        let mark = self.position();
        let range = self.s.whitespace_range();
        self.s.diagnose(range, message);
        self.s.bump_trivia(skip_newlines);
        if self.position().index == mark.index {
            return self.bump_invisible(Kind::ErrorNode, flags_);
        }
        self.emit(mark, Kind::ErrorNode, flags_)
    }

    pub fn bump_invisible(&mut self, kind: Kind, flags_: u16) -> Pos {
        self.s.bump_invisible(kind, flags_, None)
    }

    /// An empty error token here, with `message`.
    pub fn bump_invisible_error(&mut self, flags_: u16, message: &str) -> Pos {
        self.s
            .bump_invisible(Kind::ErrorNode, flags_, Some(message))
    }

    pub fn emit(&mut self, mark: Pos, kind: Kind, flags_: u16) -> Pos {
        self.s.emit(mark, kind, flags_, None)
    }

    /// An error node over everything since `mark`.
    pub fn emit_error(&mut self, mark: Pos, flags_: u16, message: &str) -> Pos {
        self.s.emit(mark, Kind::ErrorNode, flags_, Some(message))
    }

    /// A diagnostic from `mark` to here.
    pub fn diagnose_since(&mut self, mark: Pos, message: &str) {
        let end = self.position().byte;
        self.s
            .diagnose(TextRange::new(mark.byte.min(end), end), message);
    }

    pub fn reset_node(&mut self, pos: Pos, kind: Option<Kind>, flags_: Option<u16>) {
        self.s.reset_node(pos, kind, flags_);
    }

    /// The text of `range`.
    pub fn text(&self, range: TextRange) -> &'a str {
        self.src
            .get(range.start as usize..range.end as usize)
            .unwrap_or("")
    }

    // ---- Nesting.

    /// Enters one level of nesting; false when too deep (then the caller must call
    /// [`Parser::skip_too_deep`] instead of recursing).
    pub fn enter(&mut self) -> bool {
        if self.depth >= MAX_DEPTH {
            return false;
        }
        self.depth += 1;
        true
    }

    pub fn leave(&mut self) {
        self.depth = self.depth.saturating_sub(1);
    }

    /// Input nested too deeply: skips the rest of the expression without recursing (brackets
    /// and blocks balanced) and makes it one error node.
    pub fn skip_too_deep(&mut self, cx: Ctx) {
        let mark = self.position();
        let mut open: Vec<Kind> = Vec::new();
        loop {
            let k = self.peek(cx);
            if k == Kind::EndMarker {
                break;
            }
            if open.is_empty() && (is_closing_token(cx, k) || k == Kind::NewlineWs) {
                break;
            }
            match k {
                Kind::LParen | Kind::LBracket | Kind::LBrace => open.push(k),
                Kind::RParen | Kind::RBracket | Kind::RBrace => {
                    open.pop();
                }
                Kind::Keyword(Keyword::End) => {
                    if matches!(open.last(), Some(Kind::Keyword(_))) {
                        open.pop();
                    }
                }
                // `begin` inside brackets is the first index, not a block.
                Kind::Keyword(Keyword::Begin)
                    if matches!(
                        open.last(),
                        Some(Kind::LParen | Kind::LBracket | Kind::LBrace)
                    ) => {}
                Kind::Keyword(
                    Keyword::Begin
                    | Keyword::If
                    | Keyword::For
                    | Keyword::While
                    | Keyword::Function
                    | Keyword::Macro
                    | Keyword::Let
                    | Keyword::Try
                    | Keyword::Struct
                    | Keyword::Module
                    | Keyword::Baremodule
                    | Keyword::Quote
                    | Keyword::Do,
                ) => open.push(k),
                _ => {}
            }
            self.bump(cx, 0);
        }
        if self.too_deep_reported {
            self.emit(mark, Kind::ErrorNode, 0);
        } else {
            self.too_deep_reported = true;
            self.emit_error(mark, 0, TOO_DEEP);
        }
    }

    /// Does the next token start a line in column 0 (recovery mode ends blocks there)?
    fn at_column_zero(&mut self) -> bool {
        let t = self.peek_token_nl(1, true);
        let start = t.range.start as usize;
        start == 0 || self.src.as_bytes().get(start.wrapping_sub(1)) == Some(&b'\n')
    }

    // ---- Blocks and statements.

    /// A sequence of statements separated by newlines and `;` until a block-closing keyword.
    /// Returns true when it was not empty or had delimiters.
    fn parse_block_inner(&mut self, cx: Ctx, down: Down) -> bool {
        let stop = [
            Kind::Keyword(Keyword::End),
            Kind::Keyword(Keyword::Else),
            Kind::Keyword(Keyword::Elseif),
            Kind::Keyword(Keyword::Catch),
            Kind::Keyword(Keyword::Finally),
        ];
        self.parse_nary(cx, down, &[Kind::NewlineWs, Kind::Semicolon], &stop)
    }

    /// `down` items separated by `delimiters`, until one of `closing` (or the end of input).
    fn parse_nary(&mut self, cx: Ctx, down: Down, delimiters: &[Kind], closing: &[Kind]) -> bool {
        if self.block_ends_here(cx) {
            return true;
        }
        self.bump_trivia();
        let k = self.peek(cx);
        if closing.contains(&k) {
            return true;
        }
        let mut n_delims = 0;
        if !delimiters.contains(&k) {
            self.down(cx, down);
        }
        while delimiters.contains(&self.peek(cx)) {
            if self.block_ends_here(cx) {
                // Leave the newline: it ends the statement the block is part of.
                break;
            }
            self.bump(cx, flags::TRIVIA);
            n_delims += 1;
            let k = self.peek(cx);
            if k == Kind::EndMarker || closing.contains(&k) {
                break;
            }
            if delimiters.contains(&k) {
                continue;
            }
            if self.block_ends_here(cx) {
                break;
            }
            self.down(cx, down);
        }
        n_delims != 0
    }

    /// In recovery mode, inside a block that is not a module's: does a statement start in
    /// column 0 here (then the block ends, its `end` being missing)?
    fn block_ends_here(&mut self, cx: Ctx) -> bool {
        if !self.recovering || self.in_module || self.depth == 0 {
            return false;
        }
        let k = self.peek_nl(1, true);
        !k.is_block_continuation_keyword()
            && k != Kind::EndMarker
            && self.at_column_zero()
            && !cx.whitespace_newline
    }

    /// A block: `(block stmts...)`.
    fn parse_block(&mut self, cx: Ctx, down: Down) {
        let mark = self.position();
        self.parse_block_inner(cx, down);
        self.emit(mark, Kind::Block, 0);
    }

    /// The statements of a file.
    pub fn parse_toplevel(&mut self, cx: Ctx) {
        let mark = self.position();
        loop {
            if self.peek_nl(1, true) == Kind::EndMarker {
                self.bump_trivia();
                break;
            }
            self.bump_trivia();
            self.parse_stmts(cx);
        }
        self.emit(mark, Kind::Toplevel, 0);
    }

    /// One line of top-level statements (`a; b` is a nested toplevel).
    fn parse_stmts(&mut self, cx: Ctx) {
        let mark = self.position();
        let do_emit = self.parse_nary(cx, Down::Public, &[Kind::Semicolon], &[Kind::NewlineWs]);
        let junk = self.position();
        let junk_range = self.s.next_range();
        while !matches!(self.peek(cx), Kind::EndMarker | Kind::NewlineWs) {
            self.bump(cx, 0);
        }
        if junk.index != self.position().index {
            let shown = self.shown(junk_range);
            self.s.emit(junk, Kind::ErrorNode, flags::TRIVIA, None);
            self.s
                .diagnose(junk_range, &format!("syntax error: unexpected `{shown}`"));
        }
        if do_emit {
            self.emit(mark, Kind::Toplevel, flags::SEMICOLONS);
        }
    }

    /// The text of a token for a message: its first line, at most 24 characters.
    pub fn shown(&self, range: TextRange) -> String {
        let text = self.text(range);
        let line = text.lines().next().unwrap_or("");
        if line.is_empty() {
            return if range.start as usize >= self.src.len() {
                "end of file".to_string()
            } else {
                "newline".to_string()
            };
        }
        line.chars().take(24).collect()
    }

    /// `public a, b` at top level (else a statement; `public(x)`, `public = 1` use the name).
    fn parse_public(&mut self, cx: Ctx) {
        if self.peek(cx) == Kind::Keyword(Keyword::Public) {
            let k2 = self.peek_n(cx, 2);
            if !(matches!(k2, Kind::LParen | Kind::LBracket) || k2.is_op("=")) {
                self.parse_resword(cx);
                return;
            }
        }
        self.parse_docstring(cx, Down::Eq);
    }

    /// A statement, and if it is a string followed by a statement (on the same line or the
    /// next), the docstring of that statement: `(doc (string ...) stmt)`.
    fn parse_docstring(&mut self, cx: Ctx, down: Down) {
        let mark = self.position();
        self.down(cx, down);
        if self.s.behind().kind != Kind::StringLit {
            return;
        }
        let k = self.peek(cx);
        let is_doc = if is_closing_token(cx, k) {
            false
        } else if k == Kind::NewlineWs {
            let k2 = self.peek_n(cx, 2);
            if is_closing_token(cx, k2) || k2 == Kind::NewlineWs {
                false
            } else {
                self.bump(cx, flags::TRIVIA);
                true
            }
        } else {
            true
        };
        if is_doc {
            self.down(cx, down);
            self.emit(mark, Kind::Doc, 0);
        }
    }

    /// Dispatches to a production named by [`Down`].
    fn down(&mut self, cx: Ctx, down: Down) {
        match down {
            Down::Eq => self.parse_eq(cx),
            Down::Public => self.parse_public(cx),
            Down::Docstring => self.parse_docstring(cx, Down::Eq),
            Down::StructField => self.parse_struct_field(cx),
            Down::StructFieldDoc => self.parse_docstring(cx, Down::StructField),
        }
    }

    // ---- Assignment level.

    /// A statement: assignment with comma-separated lists on each side (`a, b = c, d`).
    pub fn parse_eq(&mut self, cx: Ctx) {
        self.parse_assignment(cx, Lower::Comma);
    }

    /// An expression where commas are separators (arguments, elements): assignment level
    /// without tuples.
    pub fn parse_eq_star(&mut self, cx: Ctx) {
        let k = self.peek(cx);
        let k2 = self.peek_n(cx, 2);
        if (k.is_literal() || k == Kind::Identifier)
            && matches!(
                k2,
                Kind::Comma | Kind::RParen | Kind::RBrace | Kind::RBracket
            )
        {
            self.bump(cx, 0);
        } else {
            self.parse_assignment(cx, Lower::Pair);
        }
    }

    /// `a = b` (right-associative), `a += b`, `a .= b`, `a ~ b`, `f(x) = body`.
    fn parse_assignment(&mut self, cx: Ctx, down: Lower) {
        if !self.enter() {
            self.skip_too_deep(cx);
            return;
        }
        let mark = self.position();
        self.lower(cx, down);
        self.parse_assignment_with_initial_ex(cx, mark, down);
        self.leave();
    }

    fn lower(&mut self, cx: Ctx, down: Lower) {
        match down {
            Lower::Comma => {
                self.parse_comma(cx, true);
            }
            Lower::Pair => self.parse_pair(cx),
        }
    }

    pub(crate) fn parse_assignment_with_initial_ex(&mut self, cx: Ctx, mark: Pos, down: Lower) {
        let op = self.peek_dotted_op(cx);
        let Some(crate::kind::Prec::Assignment) = op.kind().prec() else {
            return;
        };
        if op.is("~") {
            if cx.space_sensitive && op.ws_before && self.attached_after(cx, op) {
                // `[a ~b]`: a prefix `~` starts the next element.
                return;
            }
            self.bump_dotted(cx, op.dotted, 0, false, Some(Kind::Identifier));
            self.bump_trivia();
            self.parse_assignment(cx, down);
            let kind = if op.dotted { Kind::DotCall } else { Kind::Call };
            self.emit(mark, kind, flags::INFIX);
            return;
        }
        let text = op.tok.kind.op().map_or("", |o| o.text());
        if matches!(text, "≔" | "⩴" | "≕") {
            // Assignment-like operators without a meaning: calls, which nothing defines.
            self.bump_dotted(cx, op.dotted, 0, false, Some(Kind::Identifier));
            self.bump_trivia();
            self.parse_assignment(cx, down);
            let kind = if op.dotted { Kind::DotCall } else { Kind::Call };
            self.emit(mark, kind, flags::INFIX);
            return;
        }
        let is_short_form = text == "=" && !op.dotted && self.was_eventually_call();
        if text == "op=" {
            self.bump_trivia();
            if op.dotted {
                self.bump(cx, flags::TRIVIA);
            }
            self.s.bump_split(&[
                (-1, Kind::Identifier, 0),
                (1, Kind::Op(crate::kind::Op::known("=")), flags::TRIVIA),
            ]);
        } else {
            self.bump_dotted(cx, op.dotted, flags::TRIVIA, false, None);
        }
        self.bump_trivia();
        self.parse_assignment(cx, down);
        let (kind, fl) = match (text, op.dotted) {
            _ if is_short_form => (Kind::Function, flags::SHORT_FORM),
            ("=", false) => (Kind::Assign, 0),
            ("=", true) => (Kind::DotAssign, 0),
            ("op=", false) => (Kind::OpAssign, 0),
            ("op=", true) => (Kind::DotOpAssign, 0),
            _ => (Kind::ColonAssign, 0),
        };
        self.emit(mark, kind, fl);
    }

    /// Is the expression just parsed a call, once `where`, `::` and parentheses are stripped
    /// (then `= ...` defines a method)?
    fn was_eventually_call(&self) -> bool {
        let mut p = self.s.behind_pos(true, true);
        loop {
            let b = self.s.behind_at(p);
            match b.kind {
                Kind::Call => return true,
                Kind::Where | Kind::Parens => {}
                // `f(x)::T = ...`: look at the left-hand side.
                Kind::Decl if b.flags & flags::INFIX != 0 => {}
                _ => return false,
            }
            match self.s.first_child_position(p) {
                Some(first) => p = first,
                None => return false,
            }
        }
    }

    /// `a, b, c`: a tuple without parentheses. Returns how many commas.
    fn parse_comma(&mut self, cx: Ctx, do_emit: bool) -> usize {
        let mark = self.position();
        let mut n_commas = 0;
        self.parse_pair(cx);
        loop {
            if self.peek(cx) != Kind::Comma {
                if do_emit && n_commas >= 1 {
                    self.emit(mark, Kind::Tuple, 0);
                }
                return n_commas;
            }
            self.bump(cx, flags::TRIVIA);
            n_commas += 1;
            let t = self.peek_token(cx, 1);
            if t.kind.is_op("=") && !t.suffixed {
                // `x, = xs`
                continue;
            }
            self.parse_pair(cx);
        }
    }

    /// `a => b` and everything tighter.
    pub fn parse_pair(&mut self, cx: Ctx) {
        self.parse_binary(cx, binary::Level::Pair);
    }

    /// Consumes an expected closing token; if something else is there, skips to it (or to
    /// another closing token) and reports the problem: the unexpected token, or the missing
    /// closer at `opener` (the range of the construct's opening token and its text).
    pub fn bump_closing_token(&mut self, cx: Ctx, closer: Kind, opener: Option<(TextRange, &str)>) {
        if self.peek(cx) == closer {
            self.bump_trivia();
            self.bump(cx, flags::TRIVIA);
            return;
        }
        if closer == Kind::Keyword(Keyword::End) && self.block_ends_here(cx) {
            // Recovery mode: the next definition starts here; the `end` is missing.
            self.missing_end = true;
            let range = opener.map_or_else(|| self.s.next_range(), |(range, _)| range);
            let what = opener.map_or("block", |(_, what)| what);
            self.s
                .diagnose(range, &format!("missing `end` for `{what}`"));
            self.bump_invisible(Kind::ErrorNode, flags::TRIVIA);
            return;
        }
        let mark = self.position();
        let first = self.peek_token(cx, 1);
        loop {
            let k = self.peek(cx);
            if is_closing_token(cx, k) && !matches!(k, Kind::Comma | Kind::Semicolon) {
                break;
            }
            self.bump(cx, 0);
        }
        let skipped = self.position().index != mark.index;
        self.s.emit(mark, Kind::ErrorNode, flags::TRIVIA, None);
        if self.peek(cx) == closer {
            let shown = self.shown(first.range);
            self.s
                .diagnose(first.range, &format!("syntax error: unexpected `{shown}`"));
            self.bump(cx, flags::TRIVIA);
            return;
        }
        let closer_text = closer.name();
        if closer == Kind::Keyword(Keyword::End) {
            self.missing_end = true;
        }
        match opener {
            Some((range, what)) if closer == Kind::Keyword(Keyword::End) => self
                .s
                .diagnose(range, &format!("missing `{closer_text}` for `{what}`")),
            Some((range, _)) => self.s.diagnose(range, &format!("missing `{closer_text}`")),
            None => {
                let at = if skipped {
                    first.range
                } else {
                    self.s.next_range()
                };
                self.s.diagnose(at, &format!("missing `{closer_text}`"));
            }
        }
    }

    /// Skips tokens until `is_closer` says stop (or the end), as one error node.
    pub fn recover(
        &mut self,
        cx: Ctx,
        is_closer: fn(Ctx, Kind) -> bool,
        flags_: u16,
        message: &str,
    ) {
        let mark = self.position();
        loop {
            let k = self.peek(cx);
            if k == Kind::EndMarker {
                self.s.bump_invisible(
                    Kind::ErrorNode,
                    flags::TRIVIA,
                    Some("premature end of input"),
                );
                break;
            }
            if is_closer(cx, k) {
                break;
            }
            self.bump(cx, 0);
        }
        self.emit_error(mark, flags_, message);
    }

    /// Whitespace where none is allowed (`f (x)`, `a [i]`): an error, the parse goes on.
    pub fn bump_disallowed_space(&mut self, cx: Ctx) {
        if self.peek_token(cx, 1).ws_before {
            self.bump_trivia_error(flags::TRIVIA, false, "whitespace is not allowed here");
        }
    }

    /// `;` and newlines as trivia.
    pub fn bump_semicolon_trivia(&mut self, cx: Ctx) {
        while matches!(self.peek(cx), Kind::Semicolon | Kind::NewlineWs) {
            self.bump(cx, flags::TRIVIA);
        }
    }
}

/// A production to parse the items of a block or list with.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Down {
    Eq,
    Public,
    Docstring,
    StructField,
    StructFieldDoc,
}

/// What the assignment level parses its sides with.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Lower {
    /// Comma-separated lists become tuples (statements).
    Comma,
    /// Commas end the expression (arguments, elements).
    Pair,
}

/// Tokens that end an expression: closing brackets, `,`, `;`, block keywords, the end.
pub(crate) fn is_closing_token(cx: Ctx, k: Kind) -> bool {
    match k {
        Kind::Keyword(Keyword::End) => !cx.end_symbol,
        Kind::Keyword(Keyword::Else | Keyword::Elseif | Keyword::Catch | Keyword::Finally) => true,
        Kind::Comma
        | Kind::RParen
        | Kind::RBracket
        | Kind::RBrace
        | Kind::Semicolon
        | Kind::EndMarker => true,
        _ => false,
    }
}

/// A closing token or a newline.
pub(crate) fn is_closer_or_newline(cx: Ctx, k: Kind) -> bool {
    is_closing_token(cx, k) || k == Kind::NewlineWs
}

/// A keyword that starts a construct (`begin` only outside indexing).
pub(crate) fn is_initial_reserved_word(cx: Ctx, k: Kind) -> bool {
    use Keyword::*;
    match k {
        Kind::Keyword(Begin) => !cx.end_symbol,
        Kind::Keyword(
            While | If | For | Try | Return | Break | Continue | Function | Macro | Quote | Let
            | Local | Global | Const | Do | Struct | Module | Baremodule | Using | Import | Export,
        ) => true,
        _ => false,
    }
}

/// A node kind that is a block construct (juxtaposition never follows one).
pub(crate) fn is_block_form(k: Kind) -> bool {
    matches!(
        k,
        Kind::Block
            | Kind::Quote
            | Kind::If
            | Kind::For
            | Kind::While
            | Kind::Let
            | Kind::Function
            | Kind::Macro
            | Kind::Abstract
            | Kind::Primitive
            | Kind::Struct
            | Kind::Try
            | Kind::Module
    )
}

/// A node kind that is a statement of a reserved word (`using A`, `return x`): juxtaposition
/// never follows one either (`using A()` is an error, not `(using A) * ()`).
pub(crate) fn is_statement_form(k: Kind) -> bool {
    matches!(
        k,
        Kind::Return
            | Kind::Break
            | Kind::Continue
            | Kind::Local
            | Kind::Global
            | Kind::Const
            | Kind::Import
            | Kind::Using
            | Kind::Export
    )
}

/// `$`, `&`, `::` as prefix operators are syntax, not calls.
pub(crate) fn is_syntactic_unary_op(k: Kind) -> bool {
    k.is_op("$") || k.is_op("&") || k.is_op("::")
}
