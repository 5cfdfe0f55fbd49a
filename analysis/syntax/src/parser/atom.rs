//! Atoms and their suffixes: names, literals, quoted symbols, parentheses (grouping, tuples,
//! blocks), brackets (vectors, matrices, comprehensions, concatenation along any
//! dimension), braces, strings with interpolation, macro calls, and the call chain
//! (`f(x)`, `a[i]`, `a.b`, `x'`, `T{S}`, `f.(x)`, string macros).

use super::binary::Level;
use super::stream::{flags, Pos};
use super::{is_closing_token, Brackets, Ctx, Parser};
use crate::ast::TextRange;
use crate::kind::{Keyword, Kind};

/// A bracketed list parsed up to (not including) its closing token.
pub(crate) struct BracketsDone {
    pub counts: Brackets,
    /// The `;`-separated sections, to become `parameters` if the caller says so.
    params: Vec<Pos>,
    trailing_comma: bool,
}

/// The order in which the separators of an array literal have been used.
#[derive(Clone, Copy, PartialEq, Eq)]
enum ArrayOrder {
    Unknown,
    /// Spaces separate elements of a row (`[a b; c d]`).
    RowMajor,
    /// `;;` separates columns (`[a; b;; c; d]`).
    ColumnMajor,
}

/// Where an atom starts and how it is read.
#[derive(Clone, Copy)]
struct Atom {
    mark: Pos,
    /// Syntactic operators and closing keywords are errors (not in quotes, macro names).
    check: bool,
    /// After `$`/`&`/`::` (then `(x) -> y` is not an anonymous function's arguments).
    has_unary_prefix: bool,
}

/// The state of a call chain being parsed.
struct Chain {
    /// Where the chain's expression starts.
    mark: Pos,
    /// A macro call whose arguments are still to come.
    is_macrocall: bool,
    /// The macro's name is still being read (`@A.B.m`).
    processing_macro_name: bool,
    /// May a string here be a string macro's (after a name)?
    maybe_strmac: bool,
    /// The last name read, and its kind as lexed (a string macro renames it).
    last_identifier_pos: Pos,
    last_identifier_orig: Kind,
    /// Around the last `@m` after a module path (`A.@m`): before the `@`, after the name.
    macro_at: Option<(Pos, Pos)>,
    /// A `.` followed such an `@m` (`A.@B.x`, an error): the `@` is taken to belong to the
    /// last name, and this is where that name's stand-in error and `(macro_name ...)` end.
    misplaced_at: Option<Option<(Pos, Pos)>>,
}

/// No separator: the array literal ends.
const NO_SEPARATOR: (i32, i32) = (i32::MIN, i32::MIN);

impl Parser<'_> {
    /// A name, literal, operator, bracketed expression, string, macro call or quoted symbol.
    /// With `check_identifiers`, syntactic operators and closing keywords are errors.
    pub fn parse_atom(&mut self, cx: Ctx, check_identifiers: bool, has_unary_prefix: bool) {
        self.bump_trivia();
        let atom = Atom {
            mark: self.position(),
            check: check_identifiers,
            has_unary_prefix,
        };
        // One call site through a table keeps this frame, which is on the stack once per
        // nesting level, small in debug builds.
        let handler: fn(&mut Self, Ctx, Atom) = match self.peek(cx) {
            k if k.is_op(".") => Self::parse_dot_atom,
            k if k.is_error() => |p, cx, _| {
                p.bump(cx, 0);
            },
            k if k.is_op("'") => |p, cx, atom| p.parse_char(cx, atom.mark),
            Kind::Char => |p, cx, _| {
                p.bump_remap(cx, 0, Kind::Identifier);
            },
            k if k.is_op(":") => |p, cx, atom| p.parse_quote_colon(cx, atom.mark),
            Kind::Identifier => |p, cx, _| {
                p.bump(cx, 0);
            },
            k if k.is_word_operator() => |p, cx, _| {
                p.bump_remap(cx, 0, Kind::Identifier);
            },
            k if k.is_operator() => Self::parse_operator_value,
            Kind::Keyword(_) => Self::parse_keyword_atom,
            Kind::LParen => |p, cx, atom| p.parse_paren(cx, atom.check, atom.has_unary_prefix),
            Kind::LBracket | Kind::LBrace => Self::parse_bracketed,
            Kind::At => Self::parse_macro_call,
            Kind::DQuote | Kind::TripleDQuote => |p, cx, _| p.parse_string(cx, false),
            Kind::Backtick | Kind::TripleBacktick => |p, cx, _| p.parse_string(cx, true),
            k if k.is_literal() => |p, cx, _| {
                p.bump(cx, 0);
            },
            _ => |p, cx, _| {
                let k = p.peek(cx);
                p.parse_unexpected(cx, k, !is_closing_token(cx, k));
            },
        };
        handler(self, cx, atom);
    }

    /// `.` alone (an error where a name is expected), or a dotted operator as a value
    /// (`(. +)` for `.+`).
    fn parse_dot_atom(&mut self, cx: Ctx, atom: Atom) {
        let op = self.peek_dotted_op(cx);
        self.parse_operator_atom(cx, atom.mark, op.dotted, op.kind(), atom.check);
    }

    /// An operator as a value (`+` in `map(+, xs)`); a lone `=` where a name is expected is an
    /// error.
    fn parse_operator_value(&mut self, cx: Ctx, atom: Atom) {
        let t = self.peek_token(cx, 1);
        if t.kind.is_op("=") && atom.check && !t.suffixed {
            self.bump_error(cx, 0, "syntax error: unexpected `=`");
        } else {
            self.parse_operator_atom(cx, atom.mark, false, t.kind, atom.check);
        }
    }

    /// A keyword where a name or value is expected: `var"x"`, a contextual keyword used as a
    /// name, `end` inside indexing; a closing keyword is an error.
    fn parse_keyword_atom(&mut self, cx: Ctx, atom: Atom) {
        let (mark, check) = (atom.mark, atom.check);
        let Kind::Keyword(keyword) = self.peek(cx) else {
            return;
        };
        let t2 = self.peek_token(cx, 2);
        if keyword == Keyword::Var && t2.kind == Kind::DQuote && !t2.ws_before {
            self.parse_var(cx, mark);
        } else if check && is_closing_token(cx, Kind::Keyword(keyword)) {
            // `x = else`: the keyword is consumed as an error.
            self.parse_unexpected(cx, Kind::Keyword(keyword), true);
        } else {
            self.bump_remap(cx, 0, Kind::Identifier);
        }
    }

    /// `[...]` or `{...}`.
    fn parse_bracketed(&mut self, cx: Ctx, atom: Atom) {
        let mark = atom.mark;
        let t = self.peek_token(cx, 1);
        let (open_kind, open) = (t.kind, t.range);
        self.bump(cx, flags::TRIVIA);
        if open_kind == Kind::LBracket {
            let (kind, fl, dim) = self.parse_cat(cx, Kind::RBracket, cx.end_symbol, open);
            self.emit(mark, kind, fl | flags::dim(dim));
        } else {
            let (kind, fl, dim) = self.parse_cat(cx, Kind::RBrace, cx.end_symbol, open);
            self.emit_braces(mark, kind, fl, dim);
        }
    }

    /// `@m ...`.
    fn parse_macro_call(&mut self, cx: Ctx, atom: Atom) {
        let mark = atom.mark;
        if !self.enter() {
            self.skip_too_deep(cx);
            return;
        }
        self.bump(cx, flags::TRIVIA);
        self.parse_macro_name(cx);
        self.parse_call_chain(cx, mark, true);
        self.leave();
    }

    /// A token that cannot start an expression: reported, and consumed if `consume` (a
    /// closing bracket is left for the construct it closes, an empty error node standing for
    /// the missing expression).
    fn parse_unexpected(&mut self, cx: Ctx, k: Kind, consume: bool) {
        let range = self.s.next_range();
        let shown = if k == Kind::EndMarker {
            "end of input".to_string()
        } else {
            format!("`{}`", self.shown(range))
        };
        let message = format!("syntax error: unexpected {shown}");
        if consume && k != Kind::EndMarker {
            self.bump_error(cx, 0, &message);
        } else {
            self.s.diagnose(range, &message);
            self.bump_invisible(Kind::ErrorNode, 0);
        }
    }

    /// An operator as a value: `+`, `(. +)` for `.+`; syntactic ones are errors.
    fn parse_operator_atom(
        &mut self,
        cx: Ctx,
        mark: Pos,
        dotted: bool,
        k: Kind,
        check_identifiers: bool,
    ) {
        let syntactic = k.op().is_some_and(|o| o.is_syntactic());
        let remap = if syntactic {
            None
        } else {
            Some(Kind::Identifier)
        };
        self.bump_dotted(cx, dotted, 0, true, remap);
        let valid = !(syntactic || k.is_op("?") || k.is_op(".'"));
        if check_identifiers && !valid {
            let shown = k.name();
            self.emit_error(mark, 0, &format!("syntax error: unexpected `{shown}`"));
        }
    }

    /// `'c'`. As in JuliaSyntax, the tokens after the opening `'` are read past whitespace:
    /// after a `'` the lexer took for an adjoint (`x in' '`: `in'`, then a space), the next
    /// `'` makes an empty character literal, an error.
    fn parse_char(&mut self, cx: Ctx, mark: Pos) {
        self.bump(cx, flags::TRIVIA);
        let k = self.peek(cx);
        if k.is_op("'") {
            self.bump_invisible_error(0, "empty character literal");
            self.bump(cx, flags::TRIVIA);
        } else if k == Kind::EndMarker {
            self.bump_invisible_error(0, "unterminated character literal");
        } else {
            self.bump_remap(cx, 0, Kind::Char);
            if self.peek(cx).is_op("'") {
                self.bump(cx, flags::TRIVIA);
            } else {
                self.bump_invisible_error(flags::TRIVIA, "unterminated character literal");
            }
        }
        self.emit(mark, Kind::CharLit, 0);
    }

    /// `:x`, `:(a + b)`, `:+`; `:` alone before a closing token.
    fn parse_quote_colon(&mut self, cx: Ctx, mark: Pos) {
        let t = self.peek_token(cx, 2);
        if is_closing_token(cx, t.kind) && (!t.kind.is_any_keyword() || t.ws_before) {
            // `:` by itself (`x[:]`).
            self.bump(cx, 0);
            return;
        }
        if !self.enter() {
            self.skip_too_deep(cx);
            return;
        }
        self.bump(cx, flags::TRIVIA);
        if t.ws_before {
            self.bump_trivia_error(
                flags::TRIVIA,
                true,
                "whitespace not allowed after `:` used for quoting",
            );
        }
        self.parse_atom(
            Ctx {
                end_symbol: false,
                ..cx
            },
            false,
            false,
        );
        self.emit(mark, Kind::Quote, flags::COLON_QUOTE);
        self.leave();
    }

    /// `var"name"`.
    fn parse_var(&mut self, cx: Ctx, mark: Pos) {
        self.bump(cx, flags::TRIVIA);
        self.s.bump_raw(None, flags::TRIVIA);
        if self.s.peek_raw().kind == Kind::String {
            self.s.bump_raw(Some(Kind::Identifier), flags::RAW_STRING);
        } else {
            self.bump_invisible(Kind::Identifier, flags::RAW_STRING);
        }
        if self.s.peek_raw().kind == Kind::DQuote {
            self.s.bump_raw(None, flags::TRIVIA);
        } else {
            self.bump_invisible_error(flags::TRIVIA, "unterminated `var\"\"` identifier");
        }
        let t = self.peek_token(cx, 1);
        let k = t.kind;
        let delimiter = matches!(
            k,
            Kind::LParen
                | Kind::RParen
                | Kind::LBracket
                | Kind::RBracket
                | Kind::LBrace
                | Kind::RBrace
                | Kind::Comma
                | Kind::Semicolon
                | Kind::At
                | Kind::EndMarker
        );
        if t.ws_before || k.is_operator() || delimiter {
        } else if is_string_macro_suffix(k) {
            self.bump_error(
                cx,
                flags::TRIVIA,
                "suffix not allowed after `var\"...\"` syntax",
            );
        } else if matches!(
            k,
            Kind::Backtick | Kind::DQuote | Kind::TripleDQuote | Kind::TripleBacktick
        ) {
            self.bump_invisible_error(
                flags::TRIVIA,
                "`var\"...\"` syntax not supported as string macro name",
            );
        }
        self.emit(mark, Kind::Var, 0);
    }

    /// `@name` after the `@`: a name, an operator, `.`, or `var"..."`.
    pub fn parse_macro_name(&mut self, cx: Ctx) {
        self.bump_disallowed_space(cx);
        let mark = self.position();
        self.parse_atom(cx, false, false);
        let b = self.s.behind_at(self.s.behind_pos(true, false));
        if b.kind == Kind::Parens {
            return;
        }
        if b.kind.is_error() || b.kind == Kind::ErrorNode || !(b.is_leaf || b.kind == Kind::Var) {
            self.emit_error(mark, 0, "invalid macro name");
        }
    }

    /// `(...)`: `()` and `(a,)` tuples, `(a; b)` blocks, `(a)` grouping, `(; a = 1)` named
    /// tuples, `(x) -> y` arguments.
    fn parse_paren(&mut self, cx: Ctx, check_identifiers: bool, has_unary_prefix: bool) {
        let cx = Ctx {
            range_colon_enabled: true,
            space_sensitive: false,
            where_enabled: true,
            whitespace_newline: true,
            ..cx
        };
        let mark = self.position();
        let open = self.peek_token(cx, 1).range;
        self.bump(cx, flags::TRIVIA);
        let op = self.peek_dotted_op(cx);
        let k = op.kind();
        if k == Kind::RParen {
            self.bump(cx, flags::TRIVIA);
            self.emit(mark, Kind::Tuple, flags::PARENS);
        } else if k.op().is_some_and(|o| o.is_syntactic()) {
            // `(=)` in a quote.
            self.parse_atom(cx, check_identifiers, false);
            self.bump_closing_token(cx, Kind::RParen, Some((open, "(")));
            self.emit(mark, Kind::Parens, 0);
        } else if !check_identifiers && k.is_op("::") && self.peek_nl(2, true) == Kind::RParen {
            self.bump(cx, 0);
            self.bump_nl(flags::TRIVIA, true);
            self.emit(mark, Kind::Parens, 0);
        } else {
            let initial_semi = self.peek(cx) == Kind::Semicolon;
            let done = self.parse_brackets(cx, Kind::RParen, true);
            self.finish_paren(cx, mark, open, done, initial_semi, has_unary_prefix);
        }
    }

    /// What a parenthesized list is, once read: a tuple (commas, `(; a = 1)`, `(x) -> ...`),
    /// a block (`(a; b)`) or grouping (`(x)`).
    fn finish_paren(
        &mut self,
        cx: Ctx,
        mark: Pos,
        open: TextRange,
        done: BracketsDone,
        initial_semi: bool,
        has_unary_prefix: bool,
    ) {
        let b = done.counts;
        let arrow_next = self.peek_n(cx, 2).is_op("->") && self.s.behind().kind != Kind::Where;
        let is_tuple = b.had_commas
            || (b.had_splat && b.num_semis >= 1)
            || (initial_semi && (b.num_semis == 1 || b.num_subexprs > 0))
            || (arrow_next && !has_unary_prefix);
        let is_block = b.num_semis > 0;
        let delim = self.finish_brackets(cx, done, is_tuple, Kind::RParen, open);
        if is_tuple {
            self.emit(mark, Kind::Tuple, flags::PARENS | delim);
        } else if is_block {
            self.emit(mark, Kind::Block, flags::PARENS);
        } else {
            self.emit(mark, Kind::Parens, 0);
        }
    }

    /// The inside of `()`, `[]` (comma-separated) or `{}` up to `closer`: expressions
    /// separated by `,`, sections after `;`, a generator. The closer is not consumed:
    /// [`Parser::finish_brackets`] does that once the caller has decided what the list is.
    /// One level of nesting (too deep, the inside is skipped as one error).
    pub fn parse_brackets(
        &mut self,
        cx: Ctx,
        closer: Kind,
        generator_is_last: bool,
    ) -> BracketsDone {
        if !self.enter() {
            self.skip_too_deep(cx);
            return BracketsDone {
                counts: Brackets {
                    num_subexprs: 1,
                    ..Brackets::default()
                },
                params: Vec::new(),
                trailing_comma: false,
            };
        }
        let done = self.parse_bracket_items(cx, closer, generator_is_last);
        self.leave();
        done
    }

    fn parse_bracket_items(
        &mut self,
        cx: Ctx,
        closer: Kind,
        generator_is_last: bool,
    ) -> BracketsDone {
        let cx = Ctx {
            range_colon_enabled: true,
            space_sensitive: false,
            where_enabled: true,
            whitespace_newline: true,
            ..cx
        };
        let mut counts = Brackets::default();
        let mut params = Vec::new();
        let mut param_start: Option<Pos> = None;
        let mut trailing_comma = false;
        loop {
            let k = self.peek(cx);
            if k == closer {
                break;
            }
            if k == Kind::Semicolon {
                if let Some(start) = param_start {
                    params.push(self.emit(start, Kind::Tombstone, 0));
                }
                counts.num_semis += 1;
                param_start = Some(self.position());
                self.bump(cx, flags::TRIVIA);
                self.bump_trivia();
            } else if is_closing_token(cx, k) {
                trailing_comma = false;
                break;
            } else {
                let mark = self.position();
                self.parse_eq_star(cx);
                trailing_comma = false;
                counts.num_subexprs += 1;
                if counts.num_subexprs == 1 {
                    counts.had_splat = self.s.behind().kind == Kind::Splat;
                }
                let mut k = self.peek_nl(1, true);
                if k == Kind::Keyword(Keyword::For) {
                    self.parse_generator(cx, mark);
                    if generator_is_last {
                        break;
                    }
                    k = self.peek_nl(1, true);
                }
                if k == Kind::Comma {
                    counts.had_commas = true;
                    self.bump(cx, flags::TRIVIA);
                    trailing_comma = true;
                } else if k == Kind::Semicolon || k == closer {
                    continue;
                } else {
                    break;
                }
            }
        }
        if let Some(start) = param_start {
            if self.position() != start {
                params.push(self.emit(start, Kind::Tombstone, 0));
            }
        }
        BracketsDone {
            counts,
            params,
            trailing_comma,
        }
    }

    /// Turns the `;` sections into `parameters` (if `needs_parameters`) and consumes the
    /// closer (`open` is the opening bracket, where a missing closer is reported). Returns
    /// the trailing-comma flag.
    pub fn finish_brackets(
        &mut self,
        cx: Ctx,
        done: BracketsDone,
        needs_parameters: bool,
        closer: Kind,
        open: TextRange,
    ) -> u16 {
        let cx = Ctx {
            whitespace_newline: true,
            ..cx
        };
        if needs_parameters {
            for pos in done.params {
                self.reset_node(pos, Some(Kind::Parameters), None);
            }
        }
        let opener = match closer {
            Kind::RParen => "(",
            Kind::RBracket => "[",
            _ => "{",
        };
        self.bump_closing_token(cx, closer, Some((open, opener)));
        if done.trailing_comma {
            flags::TRAILING_COMMA
        } else {
            0
        }
    }

    /// Call arguments up to `closer` (`)` or `}`): `for` makes a generator; the sections
    /// after `;` are keyword parameters. Returns the trailing-comma flag.
    pub fn parse_call_arglist(&mut self, cx: Ctx, closer: Kind, open: TextRange) -> u16 {
        let cx = Ctx {
            for_generator: true,
            ..cx
        };
        let done = self.parse_brackets(cx, closer, false);
        self.finish_brackets(cx, done, true, closer, open)
    }

    /// `x for a in as, b in bs if p for c in cs` after the expression at `mark`.
    fn parse_generator(&mut self, cx: Ctx, mark: Pos) {
        if !self.enter() {
            self.skip_too_deep(cx);
            return;
        }
        self.parse_generator_clauses(cx, mark);
        self.leave();
    }

    fn parse_generator_clauses(&mut self, cx: Ctx, mark: Pos) {
        while self.peek(cx) == Kind::Keyword(Keyword::For) {
            if !self.peek_token(cx, 1).ws_before {
                self.bump_invisible_error(
                    flags::TRIVIA,
                    "expected space before `for` in generator",
                );
            }
            self.bump(cx, flags::TRIVIA);
            let iter_mark = self.position();
            self.parse_iteration_specs(cx);
            if self.peek(cx) == Kind::Keyword(Keyword::If) {
                self.bump(cx, flags::TRIVIA);
                self.parse_binary(cx, Level::Cond);
                self.emit(iter_mark, Kind::Filter, 0);
            }
        }
        self.emit(mark, Kind::Generator, 0);
    }

    /// What is inside `[...]` (or `{...}`) after the opening bracket at `open`: returns
    /// the kind of the literal (`vect`, `hcat`, `vcat`, `ncat`, `comprehension`), its flags
    /// and its dimension (for `ncat`).
    pub fn parse_cat(
        &mut self,
        cx: Ctx,
        closer: Kind,
        end_is_symbol: bool,
        open: TextRange,
    ) -> (Kind, u16, usize) {
        let cx = Ctx {
            range_colon_enabled: true,
            space_sensitive: true,
            where_enabled: true,
            whitespace_newline: false,
            for_generator: true,
            ..cx
        };
        if !self.enter() {
            self.skip_too_deep(cx);
            self.bump_closing_token(cx, closer, Some((open, "[")));
            return (Kind::Vect, 0, 0);
        }
        let k = self.peek_nl(1, true);
        let result = if k == closer {
            let fl = self.parse_vect(cx, closer, false, open);
            (Kind::Vect, fl, 0)
        } else if k == Kind::Semicolon {
            self.bump_trivia();
            let mut order = ArrayOrder::Unknown;
            let (dim, _) = self.parse_array_separator(cx, &mut order);
            self.bump_closing_token(cx, closer, Some((open, "[")));
            (Kind::Ncat, 0, dim.max(1) as usize)
        } else {
            let mark = self.position();
            self.parse_eq_star(cx);
            self.parse_cat_rest(cx, mark, closer, end_is_symbol, open)
        };
        self.leave();
        result
    }

    /// After the first element at `mark`: a vector, a comprehension or an array literal.
    fn parse_cat_rest(
        &mut self,
        cx: Ctx,
        mark: Pos,
        closer: Kind,
        end_is_symbol: bool,
        open: TextRange,
    ) -> (Kind, u16, usize) {
        let k = self.peek_nl(1, true);
        if k == Kind::Comma || (is_closing_token(cx, k) && k != Kind::Semicolon) {
            let prefix_trailing_comma = k == Kind::Comma;
            if prefix_trailing_comma {
                self.bump_nl(flags::TRIVIA, true);
            }
            let fl = self.parse_vect(cx, closer, prefix_trailing_comma, open);
            (Kind::Vect, fl, 0)
        } else if k == Kind::Keyword(Keyword::For) {
            let cx = Ctx {
                whitespace_newline: true,
                space_sensitive: false,
                end_symbol: false,
                ..cx
            };
            self.parse_generator(cx, mark);
            self.bump_closing_token(cx, closer, Some((open, "[")));
            (Kind::Comprehension, 0, 0)
        } else {
            let (kind, dim) = self.parse_array(cx, mark, closer, end_is_symbol, open);
            (kind, 0, dim)
        }
    }

    /// The rest of `[a, b, ...]`; returns its flags.
    fn parse_vect(
        &mut self,
        cx: Ctx,
        closer: Kind,
        prefix_trailing_comma: bool,
        open: TextRange,
    ) -> u16 {
        let done = self.parse_brackets(cx, closer, true);
        let n = done.counts.num_subexprs;
        let mut fl = self.finish_brackets(cx, done, true, closer, open);
        if n == 0 && prefix_trailing_comma {
            fl |= flags::TRAILING_COMMA;
        }
        fl
    }

    /// An array literal with separators after its first element at `mark`: spaces (tightest),
    /// `;` and newlines, `;;`, `;;;`, ... (each looser). Returns its kind and dimension.
    fn parse_array(
        &mut self,
        cx: Ctx,
        mark: Pos,
        closer: Kind,
        end_is_symbol: bool,
        open: TextRange,
    ) -> (Kind, usize) {
        let cx = Ctx {
            end_symbol: end_is_symbol,
            ..cx
        };
        let mut order = ArrayOrder::Unknown;
        let (mut dim, mut bp) = self.parse_array_separator(cx, &mut order);
        if (dim, bp) == NO_SEPARATOR {
            self.bump_closing_token(cx, closer, Some((open, "[")));
            return (Kind::Hcat, 0);
        }
        loop {
            let (next_dim, next_bp) = self.parse_array_inner(cx, bp, &mut order);
            if next_bp == i32::MIN {
                break;
            }
            if bp == 0 {
                self.emit(mark, Kind::Row, 0);
            } else {
                self.emit(mark, Kind::Nrow, flags::dim(dim.max(0) as usize));
            }
            dim = next_dim;
            bp = next_bp;
        }
        self.bump_closing_token(cx, closer, Some((open, "[")));
        match bp {
            -1 => (Kind::Vcat, 0),
            0 => (Kind::Hcat, 0),
            _ => (Kind::Ncat, dim.max(0) as usize),
        }
    }

    /// Elements separated by separators binding at least as tightly as `binding_power`;
    /// returns the first looser separator (or [`NO_SEPARATOR`] at the closing bracket).
    fn parse_array_inner(
        &mut self,
        cx: Ctx,
        binding_power: i32,
        order: &mut ArrayOrder,
    ) -> (i32, i32) {
        let mut mark = self.position();
        let mut dim = -1;
        let mut bp = binding_power;
        loop {
            if bp < binding_power {
                return (dim, bp);
            }
            if is_closing_token(cx, self.peek(cx)) {
                return NO_SEPARATOR;
            }
            let (next_dim, next_bp) = if bp == binding_power {
                mark = self.position();
                self.parse_eq_star(cx);
                self.parse_array_separator(cx, order)
            } else {
                if !self.enter() {
                    self.skip_too_deep(cx);
                    return NO_SEPARATOR;
                }
                let next = self.parse_array_inner(cx, bp, order);
                self.leave();
                if bp == 0 {
                    self.emit(mark, Kind::Row, 0);
                } else {
                    self.emit(mark, Kind::Nrow, flags::dim(dim.max(0) as usize));
                }
                next
            };
            dim = next_dim;
            bp = next_bp;
        }
    }

    /// The separator after an array element: `(dimension, binding power)`, whitespace 0,
    /// `;` and newline -1, `;;` -2, ...
    fn parse_array_separator(&mut self, cx: Ctx, order: &mut ArrayOrder) -> (i32, i32) {
        const MISMATCH: &str =
            "cannot mix space and ;; separators in an array expression, except to wrap a line";
        let mark = self.position();
        let t = self.peek_token_nl(1, true);
        if t.kind == Kind::Semicolon {
            self.bump_trivia();
            let mut n_semis = 1;
            loop {
                self.bump(cx, flags::TRIVIA);
                let t = self.peek_token(cx, 1);
                if t.kind != Kind::Semicolon {
                    break;
                }
                if t.ws_before {
                    self.bump_disallowed_space(cx);
                }
                n_semis += 1;
            }
            let had_newline = self.peek(cx) == Kind::NewlineWs;
            self.bump_trivia();
            if n_semis == 2 {
                if *order == ArrayOrder::RowMajor {
                    if had_newline {
                        return (2, 0);
                    }
                    self.emit_error(mark, flags::TRIVIA, MISMATCH);
                } else {
                    *order = ArrayOrder::ColumnMajor;
                }
            }
            return (n_semis, -n_semis);
        }
        let t = self.peek_token(cx, 1);
        match t.kind {
            Kind::NewlineWs => {
                self.bump_trivia();
                if self.peek(cx) == Kind::RBracket {
                    NO_SEPARATOR
                } else {
                    (1, -1)
                }
            }
            Kind::Comma => {
                self.bump_error(cx, flags::TRIVIA, "unexpected comma in array expression");
                (1, -1)
            }
            k => {
                if t.ws_before && !is_closing_token(cx, k) {
                    if *order == ArrayOrder::ColumnMajor {
                        self.bump_trivia_error(flags::TRIVIA, true, MISMATCH);
                    } else {
                        *order = ArrayOrder::RowMajor;
                    }
                    (2, 0)
                } else {
                    NO_SEPARATOR
                }
            }
        }
    }

    /// Emits a `{...}` literal at `mark` from what [`Parser::parse_cat`] found.
    pub fn emit_braces(&mut self, mark: Pos, kind: Kind, fl: u16, dim: usize) {
        if kind == Kind::Hcat {
            self.emit(mark, Kind::Row, fl & !flags::TRAILING_COMMA);
        } else if kind == Kind::Ncat {
            self.emit(mark, Kind::Nrow, flags::dim(dim));
        }
        let (outk, delim) = if matches!(kind, Kind::Vect | Kind::Comprehension) {
            (Kind::Braces, fl & flags::TRAILING_COMMA)
        } else {
            (Kind::BracesCat, 0)
        };
        self.emit(mark, outk, delim);
    }

    /// A string or command literal: its chunks and interpolations (`$x`, `$(expr)`); the
    /// indentation common to the lines of a triple-quoted string is trivia.
    pub fn parse_string(&mut self, cx: Ctx, raw: bool) {
        let mark = self.position();
        let delim = self.peek(cx);
        let is_cmd = matches!(delim, Kind::Backtick | Kind::TripleBacktick);
        let mut st = StringState {
            triple: matches!(delim, Kind::TripleDQuote | Kind::TripleBacktick),
            chunk_kind: if is_cmd {
                Kind::CmdString
            } else {
                Kind::String
            },
            chunk_flags: if raw { flags::RAW_STRING } else { 0 },
            indent_ref: None,
            indent_len: usize::MAX,
            indent_chunks: Vec::new(),
            first_chunk: true,
            n_chunks: 0,
            prev_chunk_newline: false,
        };
        let opener = self.peek_token(cx, 1).range;
        self.bump(cx, flags::TRIVIA);
        loop {
            let k = self.peek(cx);
            if k.is_op("$") && !raw {
                self.parse_string_interpolation(cx, &mut st);
            } else if k == st.chunk_kind {
                self.parse_string_chunk(cx, &mut st);
            } else if matches!(
                k,
                Kind::Error(
                    crate::kind::TokenError::InvalidInterpolationTerminator
                        | crate::kind::TokenError::BidiFormatting
                )
            ) {
                self.bump(cx, 0);
                st.n_chunks += 1;
            } else {
                break;
            }
        }
        let had_end_delim = self.peek(cx) == delim;
        self.dedent_string(&mut st, had_end_delim);
        if had_end_delim {
            if st.n_chunks == 0 {
                self.bump_invisible(st.chunk_kind, st.chunk_flags);
            }
            self.bump(cx, flags::TRIVIA);
        } else {
            self.bump_invisible(Kind::ErrorNode, flags::TRIVIA);
            self.s.diagnose(opener, "unterminated string literal");
        }
        let kind = if is_cmd {
            Kind::CmdStringLit
        } else {
            Kind::StringLit
        };
        let mut fl = 0;
        if st.triple {
            fl |= flags::TRIPLE_STRING;
        }
        if raw {
            fl |= flags::RAW_STRING;
        }
        self.emit(mark, kind, fl);
    }

    /// `$x` or `$(expr)` in a string.
    fn parse_string_interpolation(&mut self, cx: Ctx, st: &mut StringState) {
        if st.prev_chunk_newline {
            let at = self.peek_token(cx, 1).range.start;
            st.indent_ref = Some(TextRange::new(at, at));
            st.indent_len = 0;
        }
        self.bump(cx, flags::TRIVIA);
        let k = self.peek(cx);
        if k == Kind::LParen {
            let m = self.position();
            let open = self.peek_token(cx, 1).range;
            self.bump(cx, flags::TRIVIA);
            let done = self.parse_brackets(cx, Kind::RParen, true);
            let b = done.counts;
            let simple = !b.had_commas && b.num_semis == 0 && b.num_subexprs == 1;
            self.finish_brackets(cx, done, false, Kind::RParen, open);
            let generator =
                self.s.behind_at(self.s.behind_pos(true, false)).kind == Kind::Generator;
            if !simple || generator {
                self.emit_error(m, 0, "invalid interpolation syntax");
            }
            self.emit(m, Kind::Parens, 0);
        } else if k == Kind::Keyword(Keyword::Var) {
            self.bump_remap(cx, 0, Kind::Identifier);
        } else if k == Kind::Identifier || k.is_any_keyword() || k.is_word_operator() {
            self.parse_atom(cx, true, false);
        } else {
            self.bump_invisible_error(
                0,
                "identifier or parenthesized expression expected after $ in string",
            );
        }
        st.first_chunk = false;
        st.n_chunks += 1;
        st.prev_chunk_newline = false;
    }

    /// A chunk of literal text; in a triple-quoted string, the indentation of each line is
    /// measured (and a newline right after the opening quotes is trivia).
    fn parse_string_chunk(&mut self, cx: Ctx, st: &mut StringState) {
        let t = self.peek_token(cx, 1);
        let text = self.text(t.range);
        if st.triple && st.first_chunk && matches!(text, "\n" | "\r" | "\r\n") {
            self.bump(cx, flags::TRIVIA);
            st.first_chunk = false;
            st.prev_chunk_newline = true;
            return;
        }
        if st.triple {
            if st.prev_chunk_newline && !text.starts_with(['\n', '\r']) {
                let indent = text.len() - text.trim_start_matches([' ', '\t']).len();
                match st.indent_ref {
                    None => {
                        st.indent_ref =
                            Some(TextRange::new(t.range.start, t.range.start + indent as u32));
                        st.indent_len = indent;
                    }
                    Some(reference) => {
                        let reference = self.text(TextRange::new(
                            reference.start,
                            reference.start + st.indent_len as u32,
                        ));
                        let common = reference
                            .bytes()
                            .zip(text.bytes())
                            .take_while(|(a, b)| a == b)
                            .count();
                        st.indent_len = st.indent_len.min(common);
                    }
                }
                st.indent_chunks
                    .push(self.bump_invisible(Kind::Tombstone, flags::TRIVIA));
            }
            st.prev_chunk_newline = text.ends_with(['\n', '\r']);
        }
        self.bump(cx, st.chunk_flags);
        st.first_chunk = false;
        st.n_chunks += 1;
    }

    /// Makes the common indentation of a triple-quoted string's lines trivia.
    fn dedent_string(&mut self, st: &mut StringState, had_end_delim: bool) {
        if st.triple && st.prev_chunk_newline && had_end_delim {
            st.indent_len = 0;
        }
        if st.triple && st.indent_len > 0 && st.indent_len != usize::MAX {
            for &pos in &st.indent_chunks {
                self.reset_node(pos, Some(Kind::Whitespace), Some(flags::TRIVIA));
                if self.s.steal_token_bytes(pos, st.indent_len as u32) {
                    st.n_chunks = st.n_chunks.saturating_sub(1);
                }
            }
        }
    }

    /// The suffixes of the expression at `mark`, tightest first: calls `f(x)`, indexing
    /// `a[i]`, fields `a.b`, broadcasts `f.(x)`, adjoints `x'`, type parameters `T{S}`,
    /// string macros `r"..."`; and the arguments of a macro call when `is_macrocall`. Each
    /// suffix wraps what came before (a loop: the tree grows to the left without recursion).
    pub fn parse_call_chain(&mut self, cx: Ctx, mark: Pos, is_macrocall: bool) {
        if self.s.behind().kind.is_number() && self.peek(cx) == Kind::LParen {
            // `2(x)` is a multiplication.
            return;
        }
        let last_identifier_pos = self.s.behind_pos(true, true);
        let mut chain = Chain {
            mark,
            is_macrocall,
            processing_macro_name: is_macrocall,
            maybe_strmac: true,
            last_identifier_pos,
            last_identifier_orig: self.s.behind_at(last_identifier_pos).orig,
            macro_at: None,
            misplaced_at: None,
        };
        while self.parse_chain_suffix(cx, &mut chain) {}
    }

    /// One suffix of a call chain; false when there is none.
    fn parse_chain_suffix(&mut self, cx: Ctx, chain: &mut Chain) -> bool {
        let t = self.peek_token(cx, 1);
        let k = t.kind;
        let opens = matches!(
            k,
            Kind::LParen
                | Kind::LBracket
                | Kind::LBrace
                | Kind::DQuote
                | Kind::TripleDQuote
                | Kind::Backtick
                | Kind::TripleBacktick
        );
        if !chain.is_macrocall && cx.space_sensitive && t.ws_before && opens {
            // `[f (x)]`: two elements.
            return false;
        }
        let macro_args = chain.is_macrocall
            && (t.ws_before
                || !matches!(k, Kind::LParen | Kind::LBracket | Kind::LBrace)
                    && !k.is_op("'")
                    && !k.is_op("."));
        let strmac = !t.ws_before
            && chain.maybe_strmac
            && (chain.last_identifier_orig == Kind::Identifier
                || chain.last_identifier_orig.is_contextual_keyword()
                || chain.last_identifier_orig.is_word_operator());
        chain.maybe_strmac = false;
        match k {
            _ if macro_args => {
                self.parse_macro_args(cx, chain);
                return false;
            }
            Kind::LParen => self.parse_chain_call(cx, chain),
            Kind::LBracket => self.parse_chain_index(cx, chain),
            k if k.is_op(".") => return self.parse_chain_dot(cx, chain),
            k if k.is_op("'") && !t.ws_before => {
                self.bump_remap(cx, 0, Kind::Identifier);
                self.emit(chain.mark, Kind::Call, flags::POSTFIX);
            }
            Kind::LBrace => self.parse_chain_curly(cx, chain),
            Kind::DQuote | Kind::TripleDQuote | Kind::Backtick | Kind::TripleBacktick if strmac => {
                self.parse_string_macro(cx, chain)
            }
            _ => return false,
        }
        true
    }

    /// `@m a b`: space-separated macro arguments to the end of the line.
    fn parse_macro_args(&mut self, cx: Ctx, chain: &mut Chain) {
        self.maybe_parsed_macro_name(chain.processing_macro_name, chain.mark);
        let cx = cx.space_sensitive();
        let n_args = self.parse_space_separated_exprs(cx);
        if chain.last_identifier_orig == Kind::Keyword(Keyword::Doc) && n_args == 1 {
            // `@doc "text"` then the documented expression on the next line.
            let k2 = self.peek_n(cx, 2);
            if self.peek(cx) == Kind::NewlineWs
                && !is_closing_token(cx, k2)
                && k2 != Kind::NewlineWs
            {
                self.bump(cx, 0);
                self.parse_eq(cx);
            }
        }
        self.emit(chain.mark, Kind::MacroCall, 0);
    }

    /// `f(args)` (with a `do` block), or `@m(args)`.
    fn parse_chain_call(&mut self, cx: Ctx, chain: &mut Chain) {
        chain.processing_macro_name =
            self.maybe_parsed_macro_name(chain.processing_macro_name, chain.mark);
        self.bump_disallowed_space(cx);
        let open = self.peek_token(cx, 1).range;
        self.bump(cx, flags::TRIVIA);
        let delim = self.parse_call_arglist(cx, Kind::RParen, open);
        if self.peek(cx) == Kind::Keyword(Keyword::Do) {
            self.parse_do(cx);
        }
        let (kind, fl) = if chain.is_macrocall {
            (Kind::MacroCall, flags::PARENS | delim)
        } else {
            (Kind::Call, delim)
        };
        self.emit(chain.mark, kind, fl);
        chain.is_macrocall = false;
        chain.macro_at = None;
    }

    /// `a[i]`, `T[a b]`, `T[x for x in xs]`, or `@m[a]`.
    fn parse_chain_index(&mut self, cx: Ctx, chain: &mut Chain) {
        chain.processing_macro_name =
            self.maybe_parsed_macro_name(chain.processing_macro_name, chain.mark);
        let m = self.position();
        self.bump_disallowed_space(cx);
        let open = self.peek_token(cx, 1).range;
        self.bump(cx, flags::TRIVIA);
        let inside = Ctx {
            end_symbol: true,
            ..cx
        };
        let (ckind, fl, dim) = self.parse_cat(inside, Kind::RBracket, cx.end_symbol, open);
        if chain.is_macrocall {
            self.emit(m, ckind, fl | flags::dim(dim));
            self.emit(chain.mark, Kind::MacroCall, 0);
            chain.is_macrocall = false;
            chain.macro_at = None;
        } else {
            let outk = match ckind {
                Kind::Vect => Kind::Ref,
                Kind::Hcat => Kind::TypedHcat,
                Kind::Vcat => Kind::TypedVcat,
                Kind::Comprehension => Kind::TypedComprehension,
                _ => Kind::TypedNcat,
            };
            self.emit(chain.mark, outk, fl | flags::dim(dim));
        }
    }

    /// After `.`: `f.(x)`, `a.b`, `A.:+`, `f.$x`, `A.@m`; false for a dotted operator
    /// (`a .+ b`), which is not a suffix.
    fn parse_chain_dot(&mut self, cx: Ctx, chain: &mut Chain) -> bool {
        let k2 = self.peek_n(cx, 2);
        if k2.is_operator()
            && !k2.is_word_operator()
            && !k2.is_op(":")
            && !k2.is_op("$")
            && !k2.is_op("'")
            && !k2.is_op("?")
        {
            return false;
        }
        self.bump_disallowed_space(cx);
        let emark = self.position();
        if let Some((before_at, after_name)) = chain.macro_at {
            // `A.@B.x`: the `@` may only be on the first or the last name. Read on as if it
            // were on the last: `B` becomes a plain name, the `.` before it an error.
            if chain.misplaced_at.is_none() {
                self.s.diagnose(
                    TextRange::new(before_at.byte, after_name.byte),
                    "`@` must appear on first or last macro name component",
                );
                chain.misplaced_at = Some(None);
            }
            self.reset_node(after_name, Some(Kind::Tombstone), None);
            self.reset_node(before_at, Some(Kind::ErrorNode), None);
        }
        self.bump(cx, flags::TRIVIA);
        let k = self.peek(cx);
        let mark = chain.mark;
        if k == Kind::LParen {
            if chain.is_macrocall {
                chain.processing_macro_name =
                    self.maybe_parsed_macro_name(chain.processing_macro_name, mark);
                self.bump_invisible(Kind::ErrorNode, flags::TRIVIA);
                self.diagnose_since(mark, "dot call syntax not supported for macros");
            }
            self.bump_disallowed_space(cx);
            let open = self.peek_token(cx, 1).range;
            self.bump(cx, flags::TRIVIA);
            let delim = self.parse_call_arglist(cx, Kind::RParen, open);
            self.emit(mark, Kind::DotCall, delim);
        } else if k.is_op(":") {
            let m = self.position();
            self.bump(cx, flags::TRIVIA);
            self.bump_disallowed_space(cx);
            self.parse_atom(cx, false, false);
            self.emit(m, Kind::Quote, flags::COLON_QUOTE);
            self.emit(mark, Kind::Dot, 0);
        } else if k.is_op("$") {
            let m = self.position();
            self.bump(cx, flags::TRIVIA);
            self.parse_atom(cx, true, false);
            if chain.is_macrocall {
                self.emit_error(m, 0, "invalid macro name");
            } else {
                self.emit(m, Kind::Interpolate, 0);
            }
            chain.last_identifier_orig = Kind::Interpolate;
            self.emit(mark, Kind::Dot, 0);
        } else if k == Kind::At {
            self.parse_chain_macro_name(cx, chain);
        } else if k.is_op("'") {
            self.bump_remap(cx, 0, Kind::Identifier);
            self.emit_error(emark, 0, "the .' operator for transpose is discontinued");
            self.emit(mark, Kind::DotCall, flags::POSTFIX);
        } else if let Some(previous) = chain.misplaced_at {
            // The name after a misplaced `@` (or a later one): `(macro_name (error-t) x)`,
            // undoing the one made for an earlier name.
            if let Some((error, name)) = previous {
                self.reset_node(error, Some(Kind::Tombstone), None);
                self.reset_node(name, Some(Kind::Tombstone), None);
            }
            let name_mark = self.position();
            let error = self.bump_invisible(Kind::ErrorNode, flags::TRIVIA);
            self.parse_atom(cx, false, false);
            chain.last_identifier_pos = self.s.behind_pos(true, true);
            chain.last_identifier_orig = self.s.behind_at(chain.last_identifier_pos).orig;
            chain.maybe_strmac = true;
            let name = self.emit(name_mark, Kind::MacroName, 0);
            chain.misplaced_at = Some(Some((error, name)));
            self.emit(mark, Kind::Dot, 0);
        } else {
            self.parse_atom(cx, false, false);
            chain.last_identifier_pos = self.s.behind_pos(true, true);
            chain.last_identifier_orig = self.s.behind_at(chain.last_identifier_pos).orig;
            chain.maybe_strmac = true;
            self.emit(mark, Kind::Dot, 0);
        }
        true
    }

    /// `A.@m`: a macro name after a module path.
    fn parse_chain_macro_name(&mut self, cx: Ctx, chain: &mut Chain) {
        let m = self.position();
        if chain.is_macrocall {
            self.bump_error(cx, flags::TRIVIA, "repeated `@` in macro module path");
        } else {
            self.bump(cx, flags::TRIVIA);
        }
        self.parse_macro_name(cx);
        chain.last_identifier_pos = self.s.behind_pos(true, true);
        chain.last_identifier_orig = self.s.behind_at(chain.last_identifier_pos).orig;
        if !chain.is_macrocall {
            self.emit(m, Kind::MacroName, 0);
        }
        chain.macro_at = Some((m, self.position()));
        chain.is_macrocall = true;
        self.emit(chain.mark, Kind::Dot, 0);
    }

    /// `T{A, B}`, or `@m{a}`.
    fn parse_chain_curly(&mut self, cx: Ctx, chain: &mut Chain) {
        chain.processing_macro_name =
            self.maybe_parsed_macro_name(chain.processing_macro_name, chain.mark);
        let m = self.position();
        self.bump_disallowed_space(cx);
        let open = self.peek_token(cx, 1).range;
        self.bump(cx, flags::TRIVIA);
        let delim = self.parse_call_arglist(cx, Kind::RBrace, open);
        if chain.is_macrocall {
            self.emit(m, Kind::Braces, delim);
            self.emit(chain.mark, Kind::MacroCall, 0);
            chain.is_macrocall = false;
            chain.macro_at = None;
        } else {
            self.emit(chain.mark, Kind::Curly, delim);
        }
    }

    /// `r"..."`, `` x`...` ``: string and command macros, with an optional suffix.
    fn parse_string_macro(&mut self, cx: Ctx, chain: &mut Chain) {
        self.reset_node(chain.last_identifier_pos, Some(Kind::MacroName), None);
        self.parse_string(cx, true);
        let t = self.peek_token(cx, 1);
        if !t.ws_before && is_string_macro_suffix(t.kind) {
            let suffix = if t.kind == Kind::Identifier
                || t.kind.is_any_keyword()
                || t.kind.is_word_operator()
            {
                Kind::String
            } else {
                t.kind
            };
            self.bump_remap(cx, 0, suffix);
        }
        self.emit(chain.mark, Kind::MacroCall, 0);
    }

    /// Ends the name of a macro at the first argument list: `(macro_name ...)`.
    fn maybe_parsed_macro_name(&mut self, processing: bool, mark: Pos) -> bool {
        if processing {
            self.emit(mark, Kind::MacroName, 0);
        }
        false
    }

    /// Space-separated macro arguments until a newline or closing token. Returns how many.
    fn parse_space_separated_exprs(&mut self, cx: Ctx) -> usize {
        let cx = cx.space_sensitive();
        let mut n = 0;
        loop {
            let k = self.peek(cx);
            if is_closing_token(cx, k)
                || k == Kind::NewlineWs
                || (cx.for_generator && k == Kind::Keyword(Keyword::For))
            {
                break;
            }
            self.parse_eq(cx);
            n += 1;
        }
        n
    }
}

/// What may follow a string macro's string as its suffix (`x"s"flags`).
fn is_string_macro_suffix(k: Kind) -> bool {
    k == Kind::Identifier || k.is_any_keyword() || k.is_word_operator() || k.is_number()
}

/// What [`Parser::parse_string`] tracks across the chunks of a string.
struct StringState {
    triple: bool,
    chunk_kind: Kind,
    chunk_flags: u16,
    /// The indentation of the first indented line (the reference), and the length common to
    /// all lines so far.
    indent_ref: Option<TextRange>,
    indent_len: usize,
    /// The (invisible) nodes that stand for each line's indentation.
    indent_chunks: Vec<Pos>,
    first_chunk: bool,
    n_chunks: usize,
    prev_chunk_newline: bool,
}
