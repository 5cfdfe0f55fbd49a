//! Constructs introduced by keywords: blocks, loops, conditionals, definitions (functions,
//! macros, structs, abstract and primitive types, modules), `let`, `try`, `do`, declarations
//! (`local`, `global`, `const`), `return`/`break`/`continue`, and `import`/`using`/`export`.

use super::binary::Level;
use super::stream::{flags, Pos};
use super::{
    is_closer_or_newline, is_closing_token, is_initial_reserved_word, Ctx, Down, Lower, Parser,
};
use crate::ast::TextRange;
use crate::kind::{Keyword, Kind, Op};

/// Where a keyword construct starts: its mark, its keyword and the keyword's range.
#[derive(Clone, Copy)]
struct Opener {
    mark: Pos,
    range: TextRange,
    word: Keyword,
}

impl Opener {
    /// The keyword, for the "missing `end`" error.
    fn opener(self) -> Option<(TextRange, &'static str)> {
        Some((self.range, self.word.text()))
    }
}

impl Parser<'_> {
    /// A keyword construct at the next token.
    pub fn parse_resword(&mut self, cx: Ctx) {
        let cx = cx.normal();
        self.bump_trivia();
        let mark = self.position();
        let t = self.peek_token(cx, 1);
        let Kind::Keyword(word) = t.kind else {
            self.parse_eq(cx);
            return;
        };
        if !self.enter() {
            self.skip_too_deep(cx);
            return;
        }
        let at = Opener {
            mark,
            range: t.range,
            word,
        };
        let outer_module = self.in_module;
        self.in_module = false;
        // One call site through a table: a small frame for this function, which is on the
        // stack once per nesting level (debug builds give each call site its own slots).
        let handler: fn(&mut Self, Ctx, Opener) = match word {
            Keyword::Begin | Keyword::Quote => Self::parse_begin,
            Keyword::While | Keyword::For => Self::parse_loop,
            Keyword::Let => Self::parse_let,
            Keyword::If => |p, cx, _| p.parse_if_elseif(cx),
            Keyword::Global | Keyword::Local => Self::parse_scope,
            Keyword::Const => Self::parse_const,
            Keyword::Function | Keyword::Macro => Self::parse_function,
            Keyword::Abstract | Keyword::Primitive => Self::parse_type_declaration,
            Keyword::Struct | Keyword::Mutable => Self::parse_struct,
            Keyword::Try => |p, cx, at| p.parse_try(cx, at.opener()),
            Keyword::Return => Self::parse_return,
            Keyword::Break | Keyword::Continue => Self::parse_jump,
            Keyword::Module | Keyword::Baremodule => Self::parse_module,
            Keyword::Export | Keyword::Public => Self::parse_export,
            Keyword::Import | Keyword::Using => |p, cx, at| p.parse_imports(cx, at.word),
            _ => Self::parse_bad_keyword,
        };
        handler(self, cx, at);
        self.in_module = outer_module;
        self.leave();
    }

    /// A keyword that starts nothing here (`do` without a call, `else` out of place).
    fn parse_bad_keyword(&mut self, cx: Ctx, at: Opener) {
        let message = if at.word == Keyword::Do {
            "syntax error: invalid `do` syntax".to_string()
        } else {
            format!("syntax error: unexpected `{}`", at.word.text())
        };
        self.bump_error(cx, flags::TRIVIA, &message);
    }

    /// `begin ... end`, `quote ... end`.
    fn parse_begin(&mut self, cx: Ctx, at: Opener) {
        self.bump(cx, flags::TRIVIA);
        self.parse_block_inner(cx, Down::Docstring);
        self.bump_closing_token(cx, Kind::Keyword(Keyword::End), at.opener());
        self.emit(at.mark, Kind::Block, 0);
        if at.word == Keyword::Quote {
            self.emit(at.mark, Kind::Quote, 0);
        }
    }

    /// `while c ... end`, `for specs ... end`.
    fn parse_loop(&mut self, cx: Ctx, at: Opener) {
        self.bump(cx, flags::TRIVIA);
        if at.word == Keyword::While {
            self.parse_binary(cx, Level::Cond);
        } else {
            self.parse_iteration_specs(cx);
        }
        self.parse_block(cx, Down::Eq);
        self.bump_closing_token(cx, Kind::Keyword(Keyword::End), at.opener());
        let kind = if at.word == Keyword::While {
            Kind::While
        } else {
            Kind::For
        };
        self.emit(at.mark, kind, 0);
    }

    /// `global x`, `local x = 1`, `global const x = 1`.
    fn parse_scope(&mut self, cx: Ctx, at: Opener) {
        self.bump(cx, flags::TRIVIA);
        let mut const_mark = None;
        if self.peek(cx) == Kind::Keyword(Keyword::Const) {
            const_mark = Some(self.position());
            self.bump(cx, flags::TRIVIA);
        }
        let had_assignment = self.parse_global_local_const_vars(cx);
        if let Some(m) = const_mark {
            self.emit(m, Kind::Const, 0);
            if !had_assignment {
                self.emit_error(at.mark, 0, "expected assignment after `const`");
            }
        }
        let kind = if at.word == Keyword::Global {
            Kind::Global
        } else {
            Kind::Local
        };
        self.emit(at.mark, kind, 0);
    }

    /// `const x = 1`, `const global x = 1`.
    fn parse_const(&mut self, cx: Ctx, at: Opener) {
        self.bump(cx, flags::TRIVIA);
        let scope = self.peek(cx);
        let mut scope_mark = None;
        if matches!(scope, Kind::Keyword(Keyword::Local | Keyword::Global)) {
            scope_mark = Some(self.position());
            self.bump(cx, flags::TRIVIA);
        }
        let had_assignment = self.parse_global_local_const_vars(cx);
        if let Some(m) = scope_mark {
            let kind = if scope == Kind::Keyword(Keyword::Global) {
                Kind::Global
            } else {
                Kind::Local
            };
            self.emit(m, kind, 0);
        }
        self.emit(at.mark, Kind::Const, 0);
        if !had_assignment {
            self.emit_error(at.mark, 0, "expected assignment after `const`");
        }
    }

    /// `function sig ... end`, `function f end`, `macro m(x) ... end`.
    fn parse_function(&mut self, cx: Ctx, at: Opener) {
        self.bump(cx, flags::TRIVIA);
        self.bump_trivia();
        let is_function = at.word == Keyword::Function;
        let has_body = self.parse_function_signature(cx, is_function);
        if has_body {
            self.parse_block(cx, Down::Eq);
            self.bump_closing_token(cx, Kind::Keyword(Keyword::End), at.opener());
        } else {
            self.bump_nl(flags::TRIVIA, true);
        }
        let kind = if is_function {
            Kind::Function
        } else {
            Kind::Macro
        };
        self.emit(at.mark, kind, 0);
    }

    /// `abstract type A <: B end`, `primitive type P <: Q 8 end`.
    fn parse_type_declaration(&mut self, cx: Ctx, at: Opener) {
        self.bump(cx, flags::TRIVIA);
        self.bump(cx, flags::TRIVIA);
        let (what, kind) = if at.word == Keyword::Abstract {
            self.parse_comparison(cx, true);
            ("abstract type", Kind::Abstract)
        } else {
            let scx = cx.space_sensitive();
            self.parse_comparison(scx, true);
            self.parse_binary(scx, Level::Cond);
            ("primitive type", Kind::Primitive)
        };
        self.bump_semicolon_trivia(cx);
        self.bump_closing_token(cx, Kind::Keyword(Keyword::End), Some((at.range, what)));
        self.emit(at.mark, kind, 0);
    }

    /// `struct A ... end`, `mutable struct A{T} <: B ... end`.
    fn parse_struct(&mut self, cx: Ctx, at: Opener) {
        let mutable = at.word == Keyword::Mutable;
        if mutable {
            self.bump(cx, flags::TRIVIA);
        }
        let what = if mutable { "mutable struct" } else { "struct" };
        self.bump(cx, flags::TRIVIA);
        self.parse_comparison(cx, true);
        self.parse_block(cx, Down::StructFieldDoc);
        self.bump_closing_token(cx, Kind::Keyword(Keyword::End), Some((at.range, what)));
        let fl = if mutable { flags::MUTABLE } else { 0 };
        self.emit(at.mark, Kind::Struct, fl);
    }

    /// `return`, `return x`.
    fn parse_return(&mut self, cx: Ctx, at: Opener) {
        self.bump(cx, flags::TRIVIA);
        let k = self.peek(cx);
        if !(k == Kind::NewlineWs || is_closing_token(cx, k)) {
            self.parse_eq(cx);
        }
        self.emit(at.mark, Kind::Return, 0);
    }

    /// `break`, `continue`: nothing may follow on the line.
    fn parse_jump(&mut self, cx: Ctx, at: Opener) {
        self.bump(cx, flags::TRIVIA);
        let kind = if at.word == Keyword::Break {
            Kind::Break
        } else {
            Kind::Continue
        };
        self.emit(at.mark, kind, 0);
        let k = self.peek(cx);
        let ok = matches!(
            k,
            Kind::NewlineWs | Kind::Semicolon | Kind::RParen | Kind::EndMarker
        ) || k.is_op(":")
            || (k == Kind::Keyword(Keyword::End) && !cx.end_symbol);
        if !ok {
            self.recover(
                cx,
                is_closer_or_newline,
                flags::TRIVIA,
                &format!("syntax error: unexpected token after `{}`", at.word.text()),
            );
        }
    }

    /// `module M ... end`, `baremodule M ... end` (their definitions start in column 0).
    fn parse_module(&mut self, cx: Ctx, at: Opener) {
        self.bump(cx, flags::TRIVIA);
        if self.peek(cx).is_reserved_word() {
            self.bump_error(cx, 0, "invalid module name");
        } else {
            self.parse_unary_prefix(cx, false);
        }
        self.in_module = true;
        self.parse_block(cx, Down::Public);
        self.in_module = false;
        self.bump_closing_token(cx, Kind::Keyword(Keyword::End), at.opener());
        let fl = if at.word == Keyword::Baremodule {
            flags::BARE_MODULE
        } else {
            0
        };
        self.emit(at.mark, Kind::Module, fl);
    }

    /// `export a, @b`, `public a`.
    fn parse_export(&mut self, cx: Ctx, at: Opener) {
        self.bump(cx, flags::TRIVIA);
        loop {
            self.parse_import_atsym(cx, false);
            if self.peek(cx) == Kind::Comma {
                self.bump(cx, flags::TRIVIA);
            } else {
                break;
            }
        }
        let kind = if at.word == Keyword::Export {
            Kind::Export
        } else {
            Kind::Public
        };
        self.emit(at.mark, kind, 0);
    }

    /// `let a = 1, b; body end`.
    fn parse_let(&mut self, cx: Ctx, at: Opener) {
        let (mark, opener) = (at.mark, at.opener());
        self.bump(cx, flags::TRIVIA);
        let m = self.position();
        if !matches!(self.peek(cx), Kind::NewlineWs | Kind::Semicolon) {
            self.parse_comma_separated(cx, |p, cx| p.parse_eq_star(cx));
        }
        self.emit(m, Kind::Block, 0);
        let k = self.peek(cx);
        if matches!(k, Kind::NewlineWs | Kind::Semicolon) {
            self.bump(cx, flags::TRIVIA);
        } else if k != Kind::Keyword(Keyword::End) {
            self.recover(
                cx,
                is_closer_or_newline,
                flags::TRIVIA,
                "let variables should end in `;` or newline",
            );
        }
        self.parse_block(cx, Down::Eq);
        self.bump_closing_token(cx, Kind::Keyword(Keyword::End), opener);
        self.emit(mark, Kind::Let, 0);
    }

    /// `if c ... elseif c ... else ... end`; the `elseif` branches nest in the tree, each in
    /// the one before it. They are parsed in a loop (a chain of thousands costs no stack), and
    /// their nodes emitted innermost first once the chain ends.
    fn parse_if_elseif(&mut self, cx: Ctx) {
        let t = self.peek_token(cx, 1);
        let mut marks = Vec::new();
        let mut word = Kind::If;
        // Whether the keyword was already consumed (`else if`, an error, read as `elseif`).
        let mut bumped = false;
        loop {
            marks.push((self.position(), word));
            if !bumped {
                self.bump(cx, flags::TRIVIA);
            }
            if matches!(self.peek(cx), Kind::NewlineWs | Kind::Keyword(Keyword::End)) {
                let name = if word == Kind::If { "if" } else { "elseif" };
                self.bump_trivia_error(0, true, &format!("missing condition in `{name}`"));
            } else {
                self.parse_binary(cx, Level::Cond);
            }
            self.parse_block(cx, Down::Eq);
            self.bump_trivia();
            word = Kind::Elseif;
            let k = self.peek(cx);
            if k == Kind::Keyword(Keyword::Elseif) {
                bumped = false;
                continue;
            }
            if k == Kind::Keyword(Keyword::Else) {
                let emark = self.position();
                self.bump(cx, flags::TRIVIA);
                if self.peek(cx) == Kind::Keyword(Keyword::If) {
                    self.bump(cx, flags::TRIVIA);
                    self.emit_error(emark, flags::TRIVIA, "use `elseif` instead of `else if`");
                    bumped = true;
                    continue;
                }
                self.parse_block(cx, Down::Eq);
            }
            break;
        }
        while let Some((mark, word)) = marks.pop() {
            if word == Kind::If {
                self.bump_closing_token(cx, Kind::Keyword(Keyword::End), Some((t.range, "if")));
            }
            self.emit(mark, word, 0);
        }
    }

    /// The names (and assignment) after `local`, `global`, `const`. Did it assign with `=`?
    fn parse_global_local_const_vars(&mut self, cx: Ctx) -> bool {
        let mark = self.position();
        let n_commas = self.parse_comma_list(cx);
        let op = self.peek_dotted_op(cx);
        if op.kind().prec() == Some(crate::kind::Prec::Assignment) {
            if n_commas >= 1 {
                self.emit(mark, Kind::Tuple, 0);
            }
            self.parse_assignment_with_initial_ex(cx, mark, Lower::Comma);
        }
        op.is("=") && !op.dotted
    }

    /// `a, b, c` without a tuple node; returns how many commas.
    fn parse_comma_list(&mut self, cx: Ctx) -> usize {
        let mut n = 0;
        self.parse_pair(cx);
        while self.peek(cx) == Kind::Comma {
            self.bump(cx, flags::TRIVIA);
            n += 1;
            let t = self.peek_token(cx, 1);
            if t.kind.is_op("=") && !t.suffixed {
                continue;
            }
            self.parse_pair(cx);
        }
        n
    }

    /// The signature after `function` or `macro`: `f(x)`, `(x, y)` (anonymous), `(d::T)(x)`,
    /// `f(x)::T where T`. False for `function f end` (no methods, no body).
    fn parse_function_signature(&mut self, cx: Ctx, is_function: bool) -> bool {
        let mut is_anon = false;
        let mut needs_parse_call = true;
        let mark = self.position();
        if !is_function {
            self.parse_unary_prefix(cx, false);
            if is_initial_reserved_word(cx, self.s.behind().orig) {
                self.emit_error(mark, 0, "invalid macro name");
            }
        } else {
            if self.peek(cx) != Kind::LParen {
                self.parse_unary_prefix(cx, false);
            } else {
                let open = self.peek_token(cx, 1).range;
                self.bump(cx, flags::TRIVIA);
                let is_empty_tuple = self.peek_nl(1, true) == Kind::RParen;
                let done = self.parse_brackets(cx, Kind::RParen, true);
                let b = done.counts;
                let parsed_call = self.was_eventually_call();
                let maybe_grouping =
                    !b.had_commas && !b.had_splat && b.num_semis == 0 && b.num_subexprs == 1;
                let next = self.peek_nl(2, maybe_grouping);
                needs_parse_call = next == Kind::LParen || next.is_op(".");
                is_anon = (!needs_parse_call && !parsed_call) || b.had_commas;
                let ambiguous = maybe_grouping
                    && matches!(self.s.behind().kind, Kind::MacroCall | Kind::Interpolate);
                let delim = self.finish_brackets(cx, done, is_anon, Kind::RParen, open);
                if is_anon {
                    self.emit(mark, Kind::Tuple, flags::PARENS | delim);
                    if ambiguous {
                        self.emit_error(
                            mark,
                            0,
                            "ambiguous signature: add a trailing comma for a one-argument \
                             anonymous function, or remove the parentheses around a macro call",
                        );
                    }
                } else if is_empty_tuple {
                    self.emit(mark, Kind::Tuple, flags::PARENS);
                } else {
                    self.emit(mark, Kind::Parens, flags::PARENS);
                }
            }
            if !is_anon && self.s.behind().orig.is_reserved_word() {
                self.emit_error(mark, 0, "invalid function name");
            }
        }
        if needs_parse_call {
            self.parse_call_chain(cx, mark, false);
            let sig = self.s.behind().kind;
            if matches!(sig, Kind::Identifier | Kind::Var | Kind::Interpolate)
                && self.peek_nl(1, true) == Kind::Keyword(Keyword::End)
            {
                return false;
            }
            if sig != Kind::Call && sig != Kind::MacroCall {
                let what = if is_function { "function" } else { "macro" };
                self.emit_error(
                    mark,
                    0,
                    &format!("syntax error: invalid signature in {what} definition"),
                );
            }
        }
        if is_function && self.peek(cx).is_op("::") {
            self.bump(cx, flags::TRIVIA);
            self.parse_call(cx);
            self.emit(mark, Kind::Decl, flags::INFIX);
        }
        if self.peek(cx).is_op("where") {
            self.parse_where_chain(cx, mark);
        }
        true
    }

    /// `try ... catch e ... else ... finally ... end`.
    fn parse_try(&mut self, cx: Ctx, opener: Option<(TextRange, &str)>) {
        let mark = self.position();
        self.bump(cx, flags::TRIVIA);
        self.parse_block(cx, Down::Eq);
        let mut has_catch = false;
        let mut has_finally = false;
        self.bump_trivia();
        if self.peek(cx) == Kind::Keyword(Keyword::Catch) {
            has_catch = true;
            self.parse_catch(cx);
        }
        self.bump_trivia();
        if self.peek(cx) == Kind::Keyword(Keyword::Else) {
            let else_mark = self.position();
            self.bump(cx, flags::TRIVIA);
            self.parse_block(cx, Down::Eq);
            if !has_catch {
                self.emit_error(else_mark, 0, "expected `catch` before `else`");
            }
            self.emit(else_mark, Kind::TryElse, 0);
        }
        self.bump_trivia();
        if self.peek(cx) == Kind::Keyword(Keyword::Finally) {
            let finally_mark = self.position();
            has_finally = true;
            self.bump(cx, flags::TRIVIA);
            self.parse_block(cx, Down::Eq);
            self.emit(finally_mark, Kind::Finally, 0);
        }
        self.bump_trivia();
        if !has_catch && self.peek(cx) == Kind::Keyword(Keyword::Catch) {
            self.parse_catch(cx);
            has_catch = true;
        }
        if !has_catch && !has_finally {
            if let Some((range, _)) = opener {
                self.s
                    .diagnose(range, "syntax error: try without catch or finally");
            }
            self.bump_invisible(Kind::ErrorNode, flags::TRIVIA);
        }
        self.bump_closing_token(cx, Kind::Keyword(Keyword::End), opener);
        self.emit(mark, Kind::Try, 0);
    }

    /// `catch`, `catch e`, then the block.
    fn parse_catch(&mut self, cx: Ctx) {
        let mark = self.position();
        self.bump(cx, flags::TRIVIA);
        let k = self.peek(cx);
        if !(matches!(k, Kind::NewlineWs | Kind::Semicolon) || is_closing_token(cx, k)) {
            let m = self.position();
            self.parse_eq_star(cx);
            if !matches!(
                self.s.behind().kind,
                Kind::Identifier | Kind::Var | Kind::Interpolate
            ) {
                self.emit_error(m, 0, "a variable name is expected after `catch`");
            }
        }
        self.parse_block(cx, Down::Eq);
        self.emit(mark, Kind::Catch, 0);
    }

    /// `do x, y ... end` after a call: the anonymous function passed as its first argument.
    pub fn parse_do(&mut self, cx: Ctx) {
        if !self.enter() {
            self.skip_too_deep(cx);
            return;
        }
        self.parse_do_block(cx);
        self.leave();
    }

    fn parse_do_block(&mut self, cx: Ctx) {
        let mark = self.position();
        let opener = Some((self.peek_token(cx, 1).range, "do"));
        self.bump(cx, flags::TRIVIA);
        let cx = cx.normal();
        let m = self.position();
        if matches!(self.peek(cx), Kind::NewlineWs | Kind::Semicolon) {
            self.bump(cx, flags::TRIVIA);
        } else {
            self.parse_comma_separated(cx, |p, cx| p.parse_binary(cx, Level::Range));
        }
        self.emit(m, Kind::Tuple, 0);
        self.parse_block(cx, Down::Eq);
        self.bump_closing_token(cx, Kind::Keyword(Keyword::End), opener);
        self.emit(mark, Kind::Do, 0);
    }

    /// `down` separated by commas; returns how many.
    pub fn parse_comma_separated(&mut self, cx: Ctx, down: fn(&mut Self, Ctx)) -> usize {
        let mut n = 0;
        loop {
            down(self, cx);
            n += 1;
            if self.peek(cx) == Kind::Comma {
                self.bump(cx, flags::TRIVIA);
            } else {
                return n;
            }
        }
    }

    /// `for` specs: `i in 1:n, j = 1:m`.
    pub fn parse_iteration_specs(&mut self, cx: Ctx) {
        let mark = self.position();
        self.parse_comma_separated(cx, |p, cx| p.parse_iteration_spec(cx));
        self.emit(mark, Kind::Iteration, 0);
    }

    /// One spec: `x in xs`, `x = xs`, `x ∈ xs`, `outer x in xs`.
    fn parse_iteration_spec(&mut self, cx: Ctx) {
        let mark = self.position();
        self.parse_binary(cx.space_sensitive(), Level::PipeLt);
        if self.s.behind().orig == Kind::Keyword(Keyword::Outer) {
            let k = self.peek_in_generator(cx, 1);
            if !(k.is_op("=") || k.is_op("in") || k.is_op("∈")) {
                let pos = self.position();
                self.reset_node(pos, Some(Kind::Outer), Some(flags::TRIVIA));
                self.parse_binary(cx, Level::PipeLt);
                self.emit(mark, Kind::Outer, 0);
            }
        }
        let k = self.peek_in_generator(cx, 1);
        if k.is_op("=") || k.is_op("in") || k.is_op("∈") {
            if cx.for_generator && self.peek(cx) == Kind::NewlineWs {
                self.bump(cx, flags::TRIVIA);
            }
            self.bump(cx, flags::TRIVIA);
            self.parse_binary(cx, Level::PipeLt);
        } else {
            self.recover(
                cx,
                |cx, k| k == Kind::Comma || k == Kind::NewlineWs || is_closing_token(cx, k),
                0,
                "invalid iteration spec: expected one of `=` `in` or `∈`",
            );
        }
        self.emit(mark, Kind::In, 0);
    }

    /// Lookahead that, inside a generator, looks past one newline (before `in`).
    fn peek_in_generator(&mut self, cx: Ctx, n: usize) -> Kind {
        let k = self.peek_n(cx, n);
        if cx.for_generator && k == Kind::NewlineWs {
            return self.peek_n(cx, n + 1);
        }
        k
    }

    /// A struct field: `x`, `x::T`, `const x::T`, or an inner constructor.
    pub fn parse_struct_field(&mut self, cx: Ctx) {
        let mark = self.position();
        let is_const = self.peek(cx) == Kind::Keyword(Keyword::Const);
        if is_const {
            self.bump(cx, flags::TRIVIA);
        }
        self.parse_eq(cx);
        if is_const {
            self.emit(mark, Kind::Const, 0);
        }
    }

    /// `import A, B.c`, `using A: b, c as d`, `import .M`, `using ..N`.
    fn parse_imports(&mut self, cx: Ctx, word: Keyword) {
        let mark = self.position();
        self.bump(cx, flags::TRIVIA);
        let emark = self.position();
        let initial_as = self.parse_import(cx, word, false);
        let t = self.peek_token(cx, 1);
        let mut has_prefix = false;
        let mut has_comma = false;
        if t.kind.is_op(":") && !t.ws_before {
            self.bump(cx, flags::TRIVIA);
            has_prefix = true;
            if initial_as {
                self.emit_error(emark, 0, "`as` before `:` in import/using");
            }
        } else if t.kind == Kind::Comma {
            self.bump(cx, flags::TRIVIA);
            has_comma = true;
        }
        if has_prefix || has_comma {
            loop {
                self.parse_import(cx, word, has_prefix);
                if self.peek(cx) == Kind::Comma {
                    self.bump(cx, flags::TRIVIA);
                } else {
                    break;
                }
            }
            if self.peek(cx).is_op(":") {
                let emark = self.position();
                self.bump(cx, flags::TRIVIA);
                loop {
                    self.parse_import(cx, word, has_prefix);
                    if self.peek(cx) == Kind::Comma {
                        self.bump(cx, flags::TRIVIA);
                    } else {
                        break;
                    }
                }
                self.emit_error(
                    emark,
                    flags::TRIVIA,
                    "`:` can only be used when importing a single module; split imports into \
                     several lines",
                );
            }
        }
        if has_prefix {
            self.emit(mark, Kind::ImportFrom, 0);
        }
        let kind = if word == Keyword::Import {
            Kind::Import
        } else {
            Kind::Using
        };
        self.emit(mark, kind, 0);
    }

    /// One path with an optional `as` renaming; was there an `as`?
    fn parse_import(&mut self, cx: Ctx, word: Keyword, has_prefix: bool) -> bool {
        let mark = self.position();
        self.parse_import_path(cx);
        if self.peek(cx) == Kind::Keyword(Keyword::As) {
            self.bump(cx, flags::TRIVIA);
            self.parse_import_atsym(cx, false);
            self.emit(mark, Kind::As, 0);
            if word == Keyword::Using && !has_prefix {
                self.emit_error(
                    mark,
                    0,
                    "`using` with `as` renaming requires a `:` and context module",
                );
            }
            return true;
        }
        false
    }

    /// `..A.B.c`: leading dots (relative paths), then names separated by `.`.
    fn parse_import_path(&mut self, cx: Ctx) {
        let mark = self.position();
        self.bump_trivia();
        let dot = Kind::Op(Op::known("."));
        loop {
            let k = self.peek(cx);
            if k.is_op(".") {
                self.bump(cx, 0);
            } else if k.is_op("..") {
                self.bump_trivia();
                self.s.bump_split(&[(1, dot, 0), (1, dot, 0)]);
            } else if k.is_op("...") {
                self.bump_trivia();
                self.s.bump_split(&[(1, dot, 0), (1, dot, 0), (1, dot, 0)]);
            } else {
                break;
            }
        }
        self.parse_import_atsym(cx, false);
        loop {
            let k = self.peek(cx);
            if k.is_op(".") {
                if self.peek_n(cx, 2).is_operator() {
                    self.bump_trivia();
                } else {
                    self.bump_disallowed_space(cx);
                }
                self.bump(cx, flags::TRIVIA);
                self.parse_import_atsym(cx, true);
            } else if k.is_op("...") {
                self.bump_trivia();
                let dotdot = Kind::Op(Op::known(".."));
                self.s
                    .bump_split(&[(1, dot, flags::TRIVIA), (2, dotdot, 0)]);
            } else {
                break;
            }
        }
        self.emit(mark, Kind::ImportPath, 0);
    }

    /// A name in an import path or export list: `a`, `@m`, `+`, `$x`.
    fn parse_import_atsym(&mut self, cx: Ctx, allow_quotes: bool) {
        self.bump_trivia();
        if self.peek(cx) == Kind::At {
            let mark = self.position();
            self.bump(cx, flags::TRIVIA);
            self.parse_macro_name(cx);
            self.emit(mark, Kind::MacroName, 0);
            return;
        }
        let mark = self.position();
        self.parse_unary_prefix(cx, false);
        let mut pos = self.position();
        if self.s.behind_at(pos).kind == Kind::Parens {
            pos = self.s.first_child_position(pos).unwrap_or(pos);
        }
        if allow_quotes && self.s.behind_at(pos).kind == Kind::Quote {
            pos = self.s.first_child_position(pos).unwrap_or(pos);
            if self.s.behind_at(pos).kind == Kind::Parens {
                pos = self.s.first_child_position(pos).unwrap_or(pos);
            }
        }
        let b = self.s.behind_at(pos);
        let ok = (b.is_leaf && (b.kind == Kind::Identifier || b.kind.is_operator()))
            || (!b.is_leaf && matches!(b.kind, Kind::Interpolate | Kind::Var));
        if !ok {
            self.emit_error(mark, 0, "syntax error: expected a name");
        }
    }
}
