//! Operators: the binary levels from `=>` to `<<` (one precedence-climbing loop), then the
//! tighter constructs one function each, as in Julia's parser: `<:` prefix, `where`,
//! juxtaposition (`2x`), unary operators (and signed literals `-2`), `^`, `::` and `->`, and
//! the syntactic prefixes `$`, `&`, `::`.

use super::stream::{flags, Pos};
use super::{
    is_block_form, is_closing_token, is_initial_reserved_word, is_statement_form, Ctx, DotOp,
    Parser,
};
use crate::kind::{Keyword, Kind, Prec};

/// The binary precedence levels, loosest first. Within the loop an operator of level `L` is
/// taken while `L` is at least the loop's minimum.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
pub(crate) enum Level {
    /// `=>` (right-associative).
    Pair,
    /// `a ? b : c`.
    Cond,
    /// `-->`, `→` (right-associative).
    Arrow,
    /// `||` (right-associative).
    Or,
    /// `&&` (right-associative).
    And,
    /// `<`, `==`, `in`, `<:`: chains.
    Comparison,
    /// `<|` (right-associative).
    PipeLt,
    /// `|>` (left-associative).
    PipeGt,
    /// `a:b`, `a:s:b`, `a..b`, and the postfix `x...`.
    Range,
    /// `--`, `**`: invalid operators, parsed to give a good error.
    InvalidOps,
    /// `+`, `-`, `|` (left-associative; `a + b + c` is one call).
    Plus,
    /// `*`, `/`, `&` (left-associative; `a * b * c` is one call).
    Times,
    /// `//`.
    Rational,
    /// `<<`, `>>`, `>>>`.
    Shift,
    /// No binary operator: the operand alone.
    Operand,
}

impl Level {
    /// The next tighter level.
    fn tighter(self) -> Level {
        use Level::*;
        match self {
            Pair => Cond,
            Cond => Arrow,
            Arrow => Or,
            Or => And,
            And => Comparison,
            Comparison => PipeLt,
            PipeLt => PipeGt,
            PipeGt => Range,
            Range => InvalidOps,
            InvalidOps => Plus,
            Plus => Times,
            Times => Rational,
            Rational => Shift,
            Shift | Operand => Operand,
        }
    }
}

/// The binary level of an operator ahead, if it is a binary operator of the loop.
fn level_of(op: &DotOp) -> Option<Level> {
    Some(match op.kind() {
        Kind::Error(
            crate::kind::TokenError::InvalidOperator | crate::kind::TokenError::StarStar,
        ) => Level::InvalidOps,
        Kind::Op(o) => match o.prec() {
            Prec::Pair => Level::Pair,
            Prec::Conditional if !op.dotted => Level::Cond,
            Prec::Arrow => Level::Arrow,
            Prec::LazyOr => Level::Or,
            Prec::LazyAnd => Level::And,
            Prec::Comparison => Level::Comparison,
            Prec::Pipe if o.is("<|") => Level::PipeLt,
            Prec::Pipe => Level::PipeGt,
            Prec::Colon => Level::Range,
            Prec::Other if o.is("...") && !op.dotted => Level::Range,
            Prec::Plus => Level::Plus,
            Prec::Times => Level::Times,
            Prec::Rational => Level::Rational,
            Prec::Bitshift => Level::Shift,
            _ => return None,
        },
        _ => return None,
    })
}

/// Operators that are both prefix and infix (`+`, `-`, ...): in a space-sensitive context
/// `[a -b]` they start a new element.
fn is_both_unary_and_binary(op: &DotOp) -> bool {
    if op.tok.suffixed {
        return false;
    }
    let Some(o) = op.kind().op() else {
        return false;
    };
    matches!(o.text(), "+" | "-" | "⋆" | "±" | "∓")
        || (!op.dotted && matches!(o.text(), "$" | "&" | "~"))
}

/// Prefix operators: `+ - ! ~ ¬ √ ∛ ∜ ⋆ ± ∓`, and `<:`/`>:` undotted.
fn is_unary_op(op: &DotOp) -> bool {
    if op.tok.suffixed {
        return false;
    }
    let Some(o) = op.kind().op() else {
        return false;
    };
    (!op.dotted && matches!(o.text(), "<:" | ">:"))
        || matches!(
            o.text(),
            "+" | "-" | "!" | "~" | "¬" | "√" | "∛" | "∜" | "⋆" | "±" | "∓"
        )
}

/// Can the operator ahead start a prefix call (`-x`, `√x`, `+(a, b)`)? Not a word operator,
/// `:`, `'`, a syntactic operator, nor an undotted `$`, `&`, `::`.
fn is_initial_operator(op: &DotOp) -> bool {
    let k = op.kind();
    k.is_operator()
        && !k.is_word_operator()
        && !k.is_op(":")
        && !k.is_op("'")
        && !k.is_op(".'")
        && (op.dotted || !super::is_syntactic_unary_op(k))
        && !k.op().is_some_and(|o| o.is_syntactic())
}

/// `<:` or `>:` undotted: their calls are syntax (`A <: B`).
fn is_type_operator(k: Kind, dotted: bool) -> bool {
    !dotted && (k.is_op("<:") || k.is_op(">:"))
}

/// The node kind of `<:` or `>:`.
fn type_operator_kind(k: Kind) -> Kind {
    if k.is_op("<:") {
        Kind::Subtype
    } else {
        Kind::Supertype
    }
}

fn call_kind(dotted: bool) -> Kind {
    if dotted {
        Kind::DotCall
    } else {
        Kind::Call
    }
}

impl Parser<'_> {
    /// Binary operators of level `min` and tighter.
    pub fn parse_binary(&mut self, cx: Ctx, min: Level) {
        self.parse_binary_from(cx, min, false);
    }

    /// Comparisons and tighter; `subtype_comparison` for the head of `struct A <: B` (a
    /// reserved word there is an invalid type name).
    pub fn parse_comparison(&mut self, cx: Ctx, subtype_comparison: bool) {
        self.parse_binary_from(cx, Level::Comparison, subtype_comparison);
    }

    fn parse_binary_from(&mut self, cx: Ctx, min: Level, subtype_comparison: bool) {
        let mark = self.position();
        if subtype_comparison && self.peek(cx).is_reserved_word() {
            self.invalid_type_name(cx, mark);
        } else {
            self.parse_unary_subtype(cx);
        }
        if min == Level::Operand {
            return;
        }
        // The loosest level still allowed after what was parsed (a postfix `...` or a range
        // ends the tighter levels). Operators of one level loop here (the tree grows to the
        // left without recursion); only an operand nests.
        let mut cap = Level::Shift;
        while let Some(level) = self.next_binary_level(cx, min, cap) {
            if !self.enter() {
                self.skip_too_deep(cx);
                break;
            }
            let next = self.parse_binary_op(cx, mark, level);
            self.leave();
            match next {
                Some(next) => cap = next,
                None => break,
            }
        }
    }

    fn invalid_type_name(&mut self, cx: Ctx, mark: Pos) {
        let k = self.peek(cx);
        self.bump(cx, 0);
        self.emit_error(mark, 0, &format!("invalid type name `{}`", k.name()));
    }

    /// The level of the binary operator ahead, if the loop takes it.
    fn next_binary_level(&mut self, cx: Ctx, min: Level, cap: Level) -> Option<Level> {
        let op = self.peek_dotted_op(cx);
        let level = level_of(&op)?;
        if level < min || level > cap {
            return None;
        }
        if level == Level::Range && op.is(":") && !cx.range_colon_enabled {
            return None;
        }
        if matches!(level, Level::Plus | Level::Times)
            && cx.space_sensitive
            && op.ws_before
            && is_both_unary_and_binary(&op)
            && self.attached_after(cx, op)
        {
            // `[x +y]`: two elements of a row.
            return None;
        }
        Some(level)
    }

    /// One operator of `level` and its right operand, after the expression at `mark`.
    /// Returns the loosest level allowed next, or `None` to stop.
    fn parse_binary_op(&mut self, cx: Ctx, mark: Pos, level: Level) -> Option<Level> {
        let op = self.peek_dotted_op(cx);
        match level {
            Level::Pair | Level::PipeLt | Level::Arrow => {
                self.parse_right_assoc(cx, mark, op, level)
            }
            Level::Cond => {
                self.parse_ternary(cx, mark);
                return None;
            }
            Level::Or | Level::And => self.parse_lazy(cx, mark, op, level),
            Level::Comparison => {
                self.parse_comparison_chain(cx, mark);
                return Some(Level::And);
            }
            Level::Range => {
                self.parse_range_rest(cx, mark, op);
                return Some(Level::PipeGt);
            }
            Level::InvalidOps => self.parse_invalid_op(cx, mark, op),
            Level::PipeGt | Level::Plus | Level::Times | Level::Rational | Level::Shift => {
                self.parse_left_assoc(cx, mark, op, level)
            }
            Level::Operand => return None,
        }
        Some(level)
    }

    /// `a => b`, `a <| b`, `a → b`, `a --> b` (right-associative).
    fn parse_right_assoc(&mut self, cx: Ctx, mark: Pos, op: DotOp, level: Level) {
        if level == Level::Arrow && op.is("-->") && !op.dotted && !op.tok.suffixed {
            self.bump(cx, flags::TRIVIA);
            self.parse_binary(cx, Level::Arrow);
            self.emit(mark, Kind::LongArrow, 0);
        } else {
            self.bump_dotted(cx, op.dotted, 0, false, Some(Kind::Identifier));
            self.parse_binary(cx, level);
            self.emit(mark, call_kind(op.dotted), flags::INFIX);
        }
    }

    /// `a || b`, `a && b` (right-associative, syntax rather than calls).
    fn parse_lazy(&mut self, cx: Ctx, mark: Pos, op: DotOp, level: Level) {
        self.bump_dotted(cx, op.dotted, flags::TRIVIA, false, None);
        self.parse_binary(cx, level);
        let kind = match (level, op.dotted) {
            (Level::Or, false) => Kind::Or,
            (Level::Or, true) => Kind::DotOr,
            (_, false) => Kind::And,
            (_, true) => Kind::DotAnd,
        };
        self.emit(mark, kind, 0);
    }

    /// `a |> f`, `a + b`, `a * b`, `a // b`, `a << b` (left-associative; `a + b + c` and
    /// `a * b * c` are one call).
    fn parse_left_assoc(&mut self, cx: Ctx, mark: Pos, op: DotOp, level: Level) {
        self.bump_dotted(cx, op.dotted, 0, false, Some(Kind::Identifier));
        self.parse_binary(cx, level.tighter());
        let chains = match level {
            Level::Plus => op.is("+") || op.is("++"),
            Level::Times => op.is("*"),
            _ => false,
        };
        if chains && !op.tok.suffixed && !op.dotted {
            self.parse_chain(cx, level, op.kind());
        }
        self.emit(mark, call_kind(op.dotted), flags::INFIX);
    }

    /// `a -- b`, `a ** b`: parsed as operators to report them.
    fn parse_invalid_op(&mut self, cx: Ctx, mark: Pos, op: DotOp) {
        self.bump_trivia();
        self.bump_dotted(cx, op.dotted, 0, false, None);
        // An error token is reported where the tree is built, with its text.
        if !matches!(op.kind(), Kind::Error(_)) {
            self.s.diagnose(op.tok.range, "invalid operator");
        }
        self.parse_binary(cx, Level::Plus);
        self.emit(mark, call_kind(op.dotted), flags::INFIX);
    }

    /// `a + b + c`: more operands of the same undotted, unsuffixed operator join one call.
    fn parse_chain(&mut self, cx: Ctx, level: Level, kind: Kind) {
        loop {
            let op = self.peek_dotted_op(cx);
            if op.kind() != kind || op.tok.suffixed || op.dotted {
                break;
            }
            if cx.space_sensitive
                && op.ws_before
                && is_both_unary_and_binary(&op)
                && self.attached_after(cx, op)
            {
                break;
            }
            self.bump(cx, flags::TRIVIA);
            self.parse_binary(cx, level.tighter());
        }
    }

    /// After the operand at `mark`: `a < b`, or a chain `a < b <= c`. A single `<:`/`>:` is
    /// syntax (`(<: a b)`), a single comparison a call, a chain a `comparison` node.
    fn parse_comparison_chain(&mut self, cx: Ctx, mark: Pos) {
        let initial = self.peek_dotted_op(cx);
        let mut n = 0;
        let mut op_pos = mark;
        let mut op_dotted = false;
        loop {
            let op = self.peek_dotted_op(cx);
            if op.kind().prec() != Some(Prec::Comparison) {
                break;
            }
            n += 1;
            op_dotted = op.dotted;
            op_pos = self.bump_dotted(cx, op.dotted, 0, true, Some(Kind::Identifier));
            self.parse_binary(cx, Level::PipeLt);
        }
        if n == 1 {
            if is_type_operator(initial.kind(), initial.dotted) {
                self.reset_node(op_pos, None, Some(flags::TRIVIA));
                self.emit(mark, type_operator_kind(initial.kind()), 0);
            } else {
                if op_dotted {
                    self.reset_node(op_pos, Some(Kind::Tombstone), Some(flags::TRIVIA));
                }
                self.emit(mark, call_kind(op_dotted), flags::INFIX);
            }
        } else if n > 1 {
            self.emit(mark, Kind::Comparison, 0);
        }
    }

    /// `c ? a : b` after the condition at `mark` (the `?` is next).
    fn parse_ternary(&mut self, cx: Ctx, mark: Pos) {
        if !self.peek_token(cx, 1).ws_before {
            self.bump_invisible_error(flags::TRIVIA, "space required before `?` operator");
        }
        self.bump(cx, flags::TRIVIA);
        if !self.peek_token(cx, 1).ws_before {
            self.bump_invisible_error(flags::TRIVIA, "space required after `?` operator");
        }
        self.parse_eq_star(Ctx {
            range_colon_enabled: false,
            ..cx
        });
        let t = self.peek_token(cx, 1);
        if !t.ws_before {
            self.bump_invisible_error(flags::TRIVIA, "space required before `:` in `?` expression");
        }
        if t.kind.is_op(":") {
            self.bump(cx, flags::TRIVIA);
        } else {
            self.bump_invisible_error(flags::TRIVIA, "`:` expected in `?` expression");
        }
        let t = self.peek_token_nl(1, true);
        if !t.ws_before {
            self.bump_invisible_error(flags::TRIVIA, "space required after `:` in `?` expression");
        }
        if t.kind.is_block_continuation_keyword()
            && !(cx.end_symbol && t.kind.is_keyword(Keyword::End))
        {
            self.bump_invisible_error(flags::TRIVIA, &format!("unexpected `{}`", t.kind.name()));
            self.emit(mark, Kind::If, 0);
            return;
        }
        self.parse_eq_star(cx);
        self.emit(mark, Kind::Ternary, 0);
    }

    /// After the operand at `mark`, with an operator of the range level next: `a..b`,
    /// `a:b`, `a:s:b` (longer chains nest: `a:b:c:d` is `(a:b:c):d`), then a postfix `...`.
    fn parse_range_rest(&mut self, cx: Ctx, mark: Pos, op: DotOp) {
        if op.kind().prec() == Some(Prec::Colon) && !op.is(":") {
            self.bump_dotted(cx, op.dotted, 0, false, Some(Kind::Identifier));
            self.parse_binary(cx, Level::InvalidOps);
            self.emit(mark, call_kind(op.dotted), flags::INFIX);
        } else if op.is(":") {
            let mut n_colons = 0;
            while self.peek(cx).is_op(":") {
                if cx.space_sensitive
                    && self.peek_token(cx, 1).ws_before
                    && !self.peek_token(cx, 2).ws_before
                {
                    // `[1 :a]`: the quoted symbol `:a` is the next element.
                    break;
                }
                let t2 = self.peek_token(cx, 2);
                if (t2.kind.is_op("<") || t2.kind.is_op(">")) && !t2.ws_before {
                    // `a :> b`: a look-alike of `>:`.
                    self.bump_trivia();
                    let emark = self.position();
                    self.bump_remap(cx, 0, Kind::Identifier);
                    let name = t2.kind.name();
                    self.bump_remap(cx, 0, Kind::Identifier);
                    self.emit_error(
                        emark,
                        0,
                        &format!("invalid `:{name}` found, maybe replace with `{name}:`"),
                    );
                    self.parse_binary(cx, Level::InvalidOps);
                    self.emit(mark, Kind::Call, flags::INFIX);
                    break;
                }
                n_colons += 1;
                let fl = if n_colons == 1 { 0 } else { flags::TRIVIA };
                let colon = self.peek_token(cx, 1).range;
                self.bump_remap(cx, fl, Kind::Identifier);
                let had_newline = self.peek(cx) == Kind::NewlineWs;
                let t = self.peek_token(cx, 1);
                if is_closing_token(cx, t.kind) {
                    self.bump_invisible_error(0, "missing last argument in range expression");
                    self.emit(mark, Kind::Call, flags::INFIX);
                    return;
                }
                if had_newline {
                    self.s
                        .diagnose(colon, "line break after `:` in range expression");
                    self.bump_invisible(Kind::ErrorNode, 0);
                    self.emit(mark, Kind::Call, flags::INFIX);
                    return;
                }
                self.parse_binary(cx, Level::InvalidOps);
                if n_colons == 2 {
                    self.emit(mark, Kind::Call, flags::INFIX);
                    n_colons = 0;
                }
            }
            if n_colons > 0 {
                self.emit(mark, Kind::Call, flags::INFIX);
            }
        }
        if self.peek(cx).is_op("...") {
            self.bump(cx, flags::TRIVIA);
            self.emit(mark, Kind::Splat, 0);
        }
    }

    /// `<: T`, `>: T` as prefix operators (`<: A where B` is `<:(A where B)`), else `where`
    /// and tighter.
    fn parse_unary_subtype(&mut self, cx: Ctx) {
        let k = self.peek(cx);
        if is_type_operator(k, false) {
            self.parse_prefix_subtype(cx, k);
        } else {
            self.parse_where(cx, false);
        }
    }

    fn parse_prefix_subtype(&mut self, cx: Ctx, op: Kind) {
        let k2 = self.peek_n(cx, 2);
        if is_closing_token(cx, k2) || k2 == Kind::NewlineWs || k2.is_op("=") {
            // The operator by itself.
            self.bump(cx, 0);
        } else if matches!(k2, Kind::LBrace | Kind::LParen) {
            self.parse_where(cx, false);
        } else {
            if !self.enter() {
                self.skip_too_deep(cx);
                return;
            }
            let mark = self.position();
            self.bump(cx, flags::TRIVIA);
            self.parse_unary_subtype(cx);
            self.emit(mark, type_operator_kind(op), flags::PREFIX);
            self.leave();
        }
    }

    /// `down where T`, `down where {T <: Real, S}`; `down` is juxtaposition, or a call when
    /// `call_only` (after `::` and `&`).
    pub fn parse_where(&mut self, cx: Ctx, call_only: bool) {
        let mark = self.position();
        if call_only {
            self.parse_call(cx);
        } else {
            self.parse_juxtapose(cx);
        }
        if cx.where_enabled && self.peek(cx).is_op("where") {
            self.parse_where_chain(cx, mark);
        }
    }

    /// The `where` clauses after the signature at `mark`.
    pub fn parse_where_chain(&mut self, cx: Ctx, mark: Pos) {
        let cx = Ctx {
            where_enabled: false,
            ..cx
        };
        while self.peek(cx).is_op("where") {
            self.bump(cx, flags::TRIVIA);
            self.bump_trivia();
            if self.peek(cx) == Kind::LBrace {
                let m = self.position();
                let open = self.peek_token(cx, 1).range;
                self.bump(cx, flags::TRIVIA);
                let (kind, fl, dim) = self.parse_cat(cx, Kind::RBrace, cx.end_symbol, open);
                self.emit_braces(m, kind, fl, dim);
            } else {
                self.parse_comparison(cx, false);
            }
            self.emit(mark, Kind::Where, 0);
        }
    }

    /// Juxtaposition: `2x`, `2(x + 1)`, `(x - 1)y`, `x'y`, `1√x` mean multiplication.
    fn parse_juxtapose(&mut self, cx: Ctx) {
        let mark = self.position();
        self.parse_unary(cx);
        let mut n_terms = 1;
        while self.juxtaposed_next(cx) {
            n_terms += 1;
        }
        if n_terms > 1 {
            self.emit(mark, Kind::Juxtapose, 0);
        }
    }

    /// Parses the next factor of a juxtaposition, if one follows without whitespace: after a
    /// number anything but an operator (`2x`, `2(x)`), after anything else not a number
    /// (`(x)y`, `x'y`; `f(2)2` is not a product); a radical starts a prefix term (`2√x`).
    fn juxtaposed_next(&mut self, cx: Ctx) -> bool {
        let t = self.peek_token(cx, 1);
        let k = t.kind;
        let prev = self.s.behind().kind;
        let candidate = !t.ws_before
            && (prev.is_number()
                || (!k.is_number()
                    && k != Kind::At
                    && !(is_block_form(prev)
                        || is_syntactic_unary_node(prev)
                        || is_initial_reserved_word(cx, prev)
                        || is_statement_form(prev))))
            && (!k.is_operator() || k.is_radical_op())
            && !is_closing_token(cx, k);
        if !candidate {
            return false;
        }
        if prev == Kind::StringLit || k.is_string_delim() {
            self.bump_invisible_error(flags::TRIVIA, "cannot juxtapose string literal");
        } else if is_initial_reserved_word(cx, k) {
            return false;
        }
        if k.is_radical_op() {
            self.parse_unary(cx);
        } else {
            self.parse_factor(cx);
        }
        true
    }

    /// Prefix operators and signed literals: `-x`, `√x`, `!a`, `.-x`, `-2` (one literal, but
    /// `-2^2` is `-(2^2)`), `+(a, b)` (a call), `-(x)^2` (`-((x)^2)`).
    fn parse_unary(&mut self, cx: Ctx) {
        let mark = self.position();
        self.bump_trivia();
        let op = self.peek_dotted_op(cx);
        if is_initial_operator(&op) {
            self.parse_unary_op(cx, mark, op);
        } else {
            self.parse_factor(cx);
        }
    }

    /// A prefix operator at the next token (after `mark`).
    fn parse_unary_op(&mut self, cx: Ctx, mark: Pos, op: DotOp) {
        let t2 = self.peek_token(cx, op.after);
        let k2 = t2.kind;
        if (op.is("-") || op.is("+")) && !op.tok.suffixed && !op.dotted {
            let signed = matches!(k2, Kind::Integer | Kind::Float | Kind::Float32)
                || (op.is("+") && matches!(k2, Kind::BinInt | Kind::HexInt | Kind::OctInt));
            if !t2.ws_before && signed {
                self.parse_signed_literal(cx, mark, k2);
                return;
            }
        }
        if is_closing_token(cx, k2) || k2 == Kind::NewlineWs || k2.is_op("=") {
            // The operator by itself: `map(-, xs)`.
            self.parse_atom(cx, true, false);
        } else if k2 == Kind::LBrace || (!is_unary_op(&op) && k2 == Kind::LParen) {
            // `+{T}(x)`, `*(x)`: calls.
            self.parse_factor(cx);
        } else if k2 == Kind::LParen {
            self.parse_unary_paren(cx, mark, op, t2.ws_before);
        } else {
            self.parse_prefix_call(cx, mark, op);
        }
    }

    /// `-2`, `-2.0`, `-2*x` (`(-2)*x`): one literal; but `-2^x` is `-(2^x)` and `-2[1]` is
    /// `-(2[1])`.
    fn parse_signed_literal(&mut self, cx: Ctx, mark: Pos, literal: Kind) {
        let k3 = self.peek_n(cx, 3);
        if k3.prec() == Some(Prec::Power) || matches!(k3, Kind::LBracket | Kind::LBrace) {
            self.bump_remap(cx, 0, Kind::Identifier);
            self.parse_factor(cx);
            self.emit(mark, Kind::Call, flags::PREFIX);
        } else {
            self.s.bump_glue(literal, 0);
            self.parse_factor_with_initial_ex(cx, mark);
        }
    }

    /// `-x`, `√x`, `!x`, `.-x`, `<: T`: the operator, then a prefix term.
    fn parse_prefix_call(&mut self, cx: Ctx, mark: Pos, op: DotOp) {
        if !self.enter() {
            self.skip_too_deep(cx);
            return;
        }
        let op_pos = if is_unary_op(&op) {
            self.bump_dotted(cx, op.dotted, 0, false, Some(Kind::Identifier))
        } else {
            self.bump_dotted(cx, op.dotted, 0, true, Some(Kind::Identifier));
            let shown = self.shown(op.tok.range);
            self.emit_error(mark, 0, &format!("syntax error: unexpected `{shown}`"))
        };
        self.parse_unary(cx);
        let op_k = op.kind();
        if is_type_operator(op_k, op.dotted) {
            self.reset_node(op_pos, None, Some(flags::TRIVIA));
            self.emit(mark, type_operator_kind(op_k), flags::PREFIX);
        } else {
            self.emit(mark, call_kind(op.dotted), flags::PREFIX);
        }
        self.leave();
    }

    /// A prefix operator followed by `(`: `+(a, b)` calls `+`, `-(x)` negates `(x)`; which
    /// one is decided by what is inside (commas, splats, `;`).
    fn parse_unary_paren(&mut self, cx: Ctx, mark: Pos, op: DotOp, space_before_paren: bool) {
        let op_k = op.kind();
        let op_pos = self.bump_dotted(cx, op.dotted, 0, true, Some(Kind::Identifier));
        let mut ws = None;
        if space_before_paren {
            let ws_mark = self.position();
            self.bump_trivia();
            let pos = self.emit(ws_mark, Kind::Tombstone, 0);
            ws = Some((pos, ws_mark));
        }
        let mark_before_paren = self.position();
        let open = self.peek_token(cx, 1).range;
        self.bump(cx, flags::TRIVIA);
        let initial_semi = self.peek_nl(1, true) == Kind::Semicolon;
        let done = self.parse_brackets(cx, Kind::RParen, true);
        let b = done.counts;
        let is_paren_call = b.had_commas
            || b.had_splat
            || (initial_semi && b.num_subexprs > 0)
            || (initial_semi && b.num_semis == 1)
            || (b.num_semis == 0 && b.num_subexprs == 0);
        let is_block = !is_paren_call && b.num_semis > 0;
        let delim = self.finish_brackets(cx, done, is_paren_call, Kind::RParen, open);
        if !self.enter() {
            self.skip_too_deep(cx);
            return;
        }
        if is_paren_call {
            if let Some((pos, ws_mark)) = ws {
                self.reset_node(pos, Some(Kind::ErrorNode), None);
                let range = crate::ast::TextRange::new(ws_mark.byte, mark_before_paren.byte);
                self.s.diagnose(
                    range,
                    "whitespace not allowed between prefix function call and argument list",
                );
            }
            if is_type_operator(op_k, op.dotted) {
                self.emit(mark, type_operator_kind(op_k), delim);
                self.reset_node(op_pos, Some(type_operator_kind(op_k)), Some(flags::TRIVIA));
            } else {
                self.emit(mark, Kind::Call, delim);
            }
            self.parse_call_chain(cx, mark, false);
            self.parse_factor_with_initial_ex(cx, mark);
        } else {
            if is_block {
                self.emit(mark_before_paren, Kind::Block, flags::PARENS);
            } else {
                self.emit(mark_before_paren, Kind::Parens, 0);
            }
            self.parse_call_chain(cx, mark_before_paren, false);
            self.parse_factor_with_initial_ex(cx, mark_before_paren);
            if is_type_operator(op_k, op.dotted) {
                self.emit(mark, type_operator_kind(op_k), flags::PREFIX);
                self.reset_node(op_pos, Some(type_operator_kind(op_k)), Some(flags::TRIVIA));
            } else if op.dotted {
                self.emit(mark, Kind::DotCall, flags::PREFIX);
                self.reset_node(op_pos, Some(Kind::Tombstone), None);
            } else {
                self.emit(mark, Kind::Call, flags::PREFIX);
            }
        }
        self.leave();
    }

    /// `x^y` (right-associative; the exponent may be a juxtaposition or a unary: `2^3x`,
    /// `2^-x`), after a call, a `::` or a `->`.
    pub fn parse_factor(&mut self, cx: Ctx) {
        let mark = self.position();
        self.parse_call(cx);
        self.parse_factor_with_initial_ex(cx, mark);
    }

    pub fn parse_factor_with_initial_ex(&mut self, cx: Ctx, mark: Pos) {
        self.parse_decl_with_initial_ex(cx, mark);
        let op = self.peek_dotted_op(cx);
        if op.kind().prec() == Some(Prec::Power) {
            if !self.enter() {
                self.skip_too_deep(cx);
                return;
            }
            self.bump_dotted(cx, op.dotted, 0, false, Some(Kind::Identifier));
            self.parse_factor_after(cx);
            self.emit(mark, call_kind(op.dotted), flags::INFIX);
            self.leave();
        }
    }

    /// The exponent of `^`: a juxtaposition, and `^` again to the right.
    fn parse_factor_after(&mut self, cx: Ctx) {
        let mark = self.position();
        self.parse_juxtapose(cx);
        let op = self.peek_dotted_op(cx);
        if op.kind().prec() == Some(Prec::Power) {
            if !self.enter() {
                self.skip_too_deep(cx);
                return;
            }
            self.bump_dotted(cx, op.dotted, 0, false, Some(Kind::Identifier));
            self.parse_factor_after(cx);
            self.emit(mark, call_kind(op.dotted), flags::INFIX);
            self.leave();
        }
    }

    /// `a::b` and `a->b` after the expression at `mark`.
    fn parse_decl_with_initial_ex(&mut self, cx: Ctx, mark: Pos) {
        while self.peek(cx).is_op("::") {
            self.bump(cx, flags::TRIVIA);
            self.parse_where(cx, true);
            self.emit(mark, Kind::Decl, flags::INFIX);
        }
        if self.peek(cx).is_op("->") {
            let kb = self.s.behind().kind;
            if !matches!(kb, Kind::Tuple | Kind::Where) {
                self.emit(mark, Kind::Tuple, 0);
            }
            self.bump(cx, flags::TRIVIA);
            self.parse_eq_star(cx);
            self.emit(mark, Kind::Arrow, 0);
        }
    }

    /// A call, indexing, field access, ...: an atom and its suffixes; or a keyword construct.
    pub fn parse_call(&mut self, cx: Ctx) {
        if self.peek_initial_reserved_words(cx) {
            self.parse_resword(cx);
        } else {
            let mark = self.position();
            self.parse_unary_prefix(cx, false);
            self.parse_call_chain(cx, mark, false);
        }
    }

    /// Does a keyword construct start here (`mutable struct`, `abstract type`, ...)?
    pub fn peek_initial_reserved_words(&mut self, cx: Ctx) -> bool {
        let k = self.peek(cx);
        if is_initial_reserved_word(cx, k) {
            return true;
        }
        if k.is_contextual_keyword() {
            let k2 = self.peek_nl(2, false);
            return (k == Kind::Keyword(Keyword::Mutable) && k2 == Kind::Keyword(Keyword::Struct))
                || (matches!(k, Kind::Keyword(Keyword::Primitive | Keyword::Abstract))
                    && k2 == Kind::Keyword(Keyword::Type));
        }
        false
    }

    /// `&x`, `::T`, `$x` (syntax, not calls).
    pub fn parse_unary_prefix(&mut self, cx: Ctx, has_unary_prefix: bool) {
        let k = self.peek(cx);
        if super::is_syntactic_unary_op(k) {
            self.parse_syntactic_prefix(cx, k);
        } else {
            self.parse_atom(cx, true, has_unary_prefix);
        }
    }

    fn parse_syntactic_prefix(&mut self, cx: Ctx, k: Kind) {
        let mark = self.position();
        let k2 = self.peek_n(cx, 2);
        if (k.is_op("&") || k.is_op("$")) && (is_closing_token(cx, k2) || k2 == Kind::NewlineWs) {
            self.bump(cx, 0);
            return;
        }
        if !self.enter() {
            self.skip_too_deep(cx);
            return;
        }
        self.bump(cx, flags::TRIVIA);
        if k.is_op("&") || k.is_op("::") {
            self.parse_where(cx, true);
        } else {
            self.parse_unary_prefix(cx, true);
        }
        let (kind, fl) = if k.is_op("::") {
            (Kind::Decl, flags::PREFIX)
        } else if k.is_op("&") {
            (Kind::AddressOf, 0)
        } else {
            (Kind::Interpolate, 0)
        };
        self.emit(mark, kind, fl);
        self.leave();
    }
}

/// The nodes of `$x`, `&x`, `::T`: juxtaposition never follows them.
fn is_syntactic_unary_node(k: Kind) -> bool {
    matches!(k, Kind::Interpolate | Kind::AddressOf | Kind::Decl) || super::is_syntactic_unary_op(k)
}
