//! The lexer: Julia source text to tokens with byte ranges, trivia (whitespace, newlines,
//! comments) included, following the tokenizer of Julia's own parser (JuliaSyntax). It never
//! fails: what it cannot read becomes a [`Kind::Error`] token.
//!
//! Two things make it stateful, as in Julia: `'` is the adjoint after a name, a literal or a
//! closing bracket and starts a character literal elsewhere, and string literals hold code
//! (`"$(x + 1)"`), so the lexer keeps a stack of the strings it is inside.

mod chars;

use crate::ast::TextRange;
use crate::kind::{Keyword, Kind, Op, TokenError};

pub use chars::{is_identifier_char, is_identifier_start_char};
use chars::{is_invisible_char, is_never_id_char, is_op_suffix, is_whitespace};

/// A token: its kind and byte range.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Token {
    pub kind: Kind,
    pub range: TextRange,
    /// An operator with a suffix (`+₁`, `-′`): a different operator with the same precedence.
    pub suffixed: bool,
}

/// Splits `text` into tokens, trivia included; the last token is [`Kind::EndMarker`] (empty, at
/// the end of the text).
pub fn tokenize(text: &str) -> Vec<Token> {
    let mut lexer = Lexer {
        src: text,
        pos: 0,
        start: 0,
        last: Kind::EndMarker,
        strings: Vec::new(),
    };
    let mut tokens = Vec::with_capacity(text.len() / 3 + 1);
    loop {
        let token = lexer.next_token();
        tokens.push(token);
        if token.kind == Kind::EndMarker {
            return tokens;
        }
    }
}

/// The string literal the lexer is inside.
#[derive(Clone, Copy)]
struct StringState {
    triple: bool,
    /// Raw strings (string macros, commands, characters) have no escapes and no interpolation.
    raw: bool,
    /// `"`, `` ` `` or `'`.
    delim: char,
    /// Open parentheses of an interpolation `$( ... )` (0: reading the string's text).
    paren_depth: u32,
}

struct Lexer<'a> {
    src: &'a str,
    /// The next byte to read.
    pos: usize,
    /// Where the current token starts.
    start: usize,
    /// The kind of the previous token (trivia included).
    last: Kind,
    strings: Vec<StringState>,
}

impl Lexer<'_> {
    /// The `n`th character ahead (0: the next one).
    fn nth(&self, n: usize) -> Option<char> {
        self.src.get(self.pos..)?.chars().nth(n)
    }

    fn peek(&self) -> Option<char> {
        self.nth(0)
    }

    /// Consumes one character.
    fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.pos += c.len_utf8();
        Some(c)
    }

    /// Consumes the next character if it is `c`.
    fn accept(&mut self, c: char) -> bool {
        if self.peek() == Some(c) {
            self.pos += c.len_utf8();
            true
        } else {
            false
        }
    }

    /// Consumes the next character if it satisfies `f`.
    fn accept_if(&mut self, f: impl Fn(char) -> bool) -> bool {
        match self.peek() {
            Some(c) if f(c) => {
                self.pos += c.len_utf8();
                true
            }
            _ => false,
        }
    }

    /// Consumes characters while they satisfy `f`; were there any?
    fn accept_while(&mut self, f: impl Fn(char) -> bool) -> bool {
        let mut any = false;
        while self.accept_if(&f) {
            any = true;
        }
        any
    }

    /// The token from `start` to here; an operator takes the suffix characters that follow.
    fn emit(&mut self, kind: Kind) -> Token {
        let mut suffixed = false;
        if let Kind::Op(op) = kind {
            if op.takes_suffix() {
                while self.accept_if(is_op_suffix) {
                    suffixed = true;
                }
            }
        }
        self.finish(kind, suffixed)
    }

    /// The token from `start` to here, without looking for a suffix.
    fn finish(&mut self, kind: Kind, suffixed: bool) -> Token {
        self.last = kind;
        Token {
            kind,
            range: TextRange::new(self.start as u32, self.pos as u32),
            suffixed,
        }
    }

    fn emit_op(&mut self, text: &str) -> Token {
        match Op::from_text(text) {
            Some(op) => self.emit(Kind::Op(op)),
            None => self.finish(Kind::Error(TokenError::InvalidOperator), false),
        }
    }

    fn next_token(&mut self) -> Token {
        self.start = self.pos;
        if self.strings.is_empty() {
            match self.bump() {
                Some(c) => self.token_from(c),
                None => self.finish(Kind::EndMarker, false),
            }
        } else {
            self.string_chunk()
        }
    }

    /// The token that starts with `c` (already consumed), outside a string's text.
    fn token_from(&mut self, c: char) -> Token {
        match c {
            c if is_whitespace(c) => self.whitespace(c),
            '[' => self.emit(Kind::LBracket),
            ']' => self.emit(Kind::RBracket),
            '{' => self.emit(Kind::LBrace),
            '}' => self.emit(Kind::RBrace),
            '(' => self.emit(Kind::LParen),
            ')' => self.emit(Kind::RParen),
            ';' => self.emit(Kind::Semicolon),
            ',' => self.emit(Kind::Comma),
            '@' => self.emit(Kind::At),
            '#' => self.comment(),
            '"' => self.quote(),
            '`' => self.backtick(),
            '\'' => self.prime(),
            '.' => self.dot(),
            '*' => {
                if self.accept('*') {
                    self.finish(Kind::Error(TokenError::StarStar), false)
                } else {
                    self.op_or_update("*")
                }
            }
            '^' | '÷' | '$' | '⊻' | '%' | '\\' => {
                let mut buf = [0; 4];
                self.op_or_update(c.encode_utf8(&mut buf))
            }
            '?' => self.emit_op("?"),
            '~' => self.emit_op("~"),
            '=' => {
                if self.accept('=') {
                    let text = if self.accept('=') { "===" } else { "==" };
                    self.emit_op(text)
                } else if self.accept('>') {
                    self.emit_op("=>")
                } else {
                    self.emit_op("=")
                }
            }
            '!' => {
                if self.accept('=') {
                    let text = if self.accept('=') { "!==" } else { "!=" };
                    self.emit_op(text)
                } else {
                    self.emit_op("!")
                }
            }
            '>' => self.greater(),
            '<' => self.less(),
            ':' => {
                if self.accept(':') {
                    self.emit_op("::")
                } else if self.accept('=') {
                    self.emit_op(":=")
                } else {
                    self.emit_op(":")
                }
            }
            '|' => {
                if self.accept('=') {
                    self.update("|")
                } else if self.accept('>') {
                    self.emit_op("|>")
                } else if self.accept('|') {
                    self.emit_op("||")
                } else {
                    self.emit_op("|")
                }
            }
            '&' => {
                if self.accept('&') {
                    self.emit_op("&&")
                } else if self.accept('=') {
                    self.update("&")
                } else {
                    self.emit_op("&")
                }
            }
            '/' => {
                if self.accept('/') {
                    self.op_or_update("//")
                } else {
                    self.op_or_update("/")
                }
            }
            '+' => {
                if self.accept('+') {
                    self.emit_op("++")
                } else {
                    self.op_or_update("+")
                }
            }
            '-' => self.minus(),
            '−' => self.op_or_update("-"),
            c if is_identifier_start_char(c) => self.identifier(c),
            c if c.is_ascii_digit() => self.number(Kind::Integer),
            c => match Op::from_char(c) {
                Some(op) => self.emit(Kind::Op(op)),
                None => {
                    let error = if is_invisible_char(c) {
                        TokenError::InvisibleChar
                    } else if is_identifier_char(c) {
                        TokenError::IdentifierStart
                    } else {
                        TokenError::UnknownCharacter
                    };
                    self.finish(Kind::Error(error), false)
                }
            },
        }
    }

    /// `op` or the updating assignment `op=` (one token of class assignment).
    fn op_or_update(&mut self, op: &str) -> Token {
        if self.accept('=') {
            self.update(op)
        } else {
            self.emit_op(op)
        }
    }

    /// An updating assignment (`+=`, `.+=` is a `.` then this): one `op=` token.
    fn update(&mut self, _op: &str) -> Token {
        self.emit_op("op=")
    }

    fn whitespace(&mut self, first: char) -> Token {
        let mut kind = if first == '\n' {
            Kind::NewlineWs
        } else {
            Kind::Whitespace
        };
        loop {
            let next = self.peek();
            let stop = match next {
                Some(c) if is_whitespace(c) => {
                    kind == Kind::NewlineWs
                        && (c == '\n' || (c == '\r' && self.nth(1) == Some('\n')))
                }
                _ => true,
            };
            if stop {
                break;
            }
            if self.bump() == Some('\n') {
                kind = Kind::NewlineWs;
            }
        }
        self.finish(kind, false)
    }

    fn comment(&mut self) -> Token {
        if !self.accept('=') {
            while let Some(c) = self.peek() {
                if c == '\n' || (c == '\r' && self.nth(1) == Some('\n')) {
                    break;
                }
                self.bump();
            }
            return self.finish(Kind::Comment, false);
        }
        let mut depth = 1u32;
        let mut bidi = Bidi::default();
        loop {
            let Some(c) = self.bump() else {
                return self.finish(Kind::Error(TokenError::EofMultiComment), false);
            };
            bidi.update(c);
            if c == '#' && self.peek() == Some('=') {
                self.bump();
                depth += 1;
            } else if c == '=' && self.peek() == Some('#') {
                self.bump();
                depth -= 1;
                if depth == 0 {
                    let kind = if bidi.balanced() {
                        Kind::Comment
                    } else {
                        Kind::Error(TokenError::BidiFormatting)
                    };
                    return self.finish(kind, false);
                }
            }
        }
    }

    fn greater(&mut self) -> Token {
        if self.accept('>') {
            if self.accept('>') {
                self.op_or_update(">>>")
            } else {
                self.op_or_update(">>")
            }
        } else if self.accept('=') {
            self.emit_op(">=")
        } else if self.accept(':') {
            self.emit_op(">:")
        } else {
            self.emit_op(">")
        }
    }

    fn less(&mut self) -> Token {
        if self.accept('<') {
            self.op_or_update("<<")
        } else if self.accept('=') {
            self.emit_op("<=")
        } else if self.accept(':') {
            self.emit_op("<:")
        } else if self.accept('|') {
            self.emit_op("<|")
        } else if self.peek() == Some('-') && self.nth(1) == Some('-') {
            self.bump();
            self.bump();
            if self.accept('-') {
                self.finish(Kind::Error(TokenError::InvalidOperator), false)
            } else if self.accept('>') {
                self.emit_op("<-->")
            } else if self.accept('-') {
                self.finish(Kind::Error(TokenError::InvalidOperator), false)
            } else {
                self.emit_op("<--")
            }
        } else {
            self.emit_op("<")
        }
    }

    fn minus(&mut self) -> Token {
        if self.accept('-') {
            if self.accept('>') {
                self.emit_op("-->")
            } else {
                self.finish(Kind::Error(TokenError::InvalidOperator), false)
            }
        } else if !self.last.is_op(".") && self.accept('>') {
            self.emit_op("->")
        } else {
            self.op_or_update("-")
        }
    }

    fn dot(&mut self) -> Token {
        if self.accept('.') {
            if self.accept('.') {
                if self.last == Kind::At {
                    return self.finish(Kind::Identifier, false);
                }
                return self.emit_op("...");
            }
            if self.peek().is_some_and(is_dottable_operator_start) {
                self.bump();
                return self.finish(Kind::Error(TokenError::InvalidOperator), false);
            }
            if self.last == Kind::At {
                return self.finish(Kind::Identifier, false);
            }
            return self.emit_op("..");
        }
        if self.peek().is_some_and(|c| c.is_ascii_digit()) {
            return self.number(Kind::Float);
        }
        if self.last == Kind::At {
            return self.finish(Kind::Identifier, false);
        }
        self.emit_op(".")
    }

    /// `'`: the adjoint operator after a value, else the start of a character literal.
    fn prime(&mut self) -> Token {
        let after_value = match self.last {
            Kind::Identifier
            | Kind::RParen
            | Kind::RBracket
            | Kind::RBrace
            | Kind::Keyword(Keyword::End) => true,
            Kind::Keyword(k) => k.is_contextual(),
            Kind::Op(op) => op.is_word() || op.is(".") || op.is("'"),
            kind => kind.is_literal(),
        };
        if after_value {
            self.emit_op("'")
        } else {
            self.strings.push(StringState {
                triple: false,
                raw: true,
                delim: '\'',
                paren_depth: 0,
            });
            self.finish(Kind::Op(quote_op()), false)
        }
    }

    /// `"` or `"""`: a string literal starts (raw after a name: `r"..."`).
    fn quote(&mut self) -> Token {
        let raw = matches!(self.last, Kind::Identifier)
            || self.last.is_contextual_keyword()
            || self.last.is_word_operator();
        let triple = self.peek() == Some('"') && self.nth(1) == Some('"');
        self.strings.push(StringState {
            triple,
            raw,
            delim: '"',
            paren_depth: 0,
        });
        if triple {
            self.bump();
            self.bump();
            self.finish(Kind::TripleDQuote, false)
        } else {
            self.finish(Kind::DQuote, false)
        }
    }

    /// `` ` `` or ```` ``` ````: a command literal starts (always raw).
    fn backtick(&mut self) -> Token {
        let triple = self.peek() == Some('`') && self.nth(1) == Some('`');
        self.strings.push(StringState {
            triple,
            raw: true,
            delim: '`',
            paren_depth: 0,
        });
        if triple {
            self.bump();
            self.bump();
            self.finish(Kind::TripleBacktick, false)
        } else {
            self.finish(Kind::Backtick, false)
        }
    }

    fn identifier(&mut self, first: char) -> Token {
        let mut prev = first;
        while let Some(c) = self.peek() {
            if c == '!' && self.nth(1) == Some('=') {
                break;
            }
            let joins = matches!(c, '\u{200c}' | '\u{200d}')
                && !prev.is_ascii()
                && self.nth(1).is_some_and(is_identifier_char);
            if !is_identifier_char(c) && !joins {
                break;
            }
            prev = c;
            self.bump();
        }
        let text = self.src.get(self.start..self.pos).unwrap_or("");
        let kind = match text {
            "true" | "false" => Kind::Bool,
            "in" | "isa" | "where" => Op::from_text(text).map_or(Kind::Identifier, Kind::Op),
            _ => Keyword::from_text(text).map_or(Kind::Identifier, Kind::Keyword),
        };
        self.finish(kind, false)
    }

    /// Digits of a number (with `_` between two of them).
    fn digits(&mut self, is_digit: impl Fn(char) -> bool) -> bool {
        let mut any = false;
        loop {
            match self.peek() {
                Some('_') if self.nth(1).is_some_and(&is_digit) => {
                    self.bump();
                }
                Some(c) if is_digit(c) => {
                    self.bump();
                }
                _ => return any,
            }
            any = true;
        }
    }

    /// A number; the first digit (or `.` and a digit for `kind == Float`) is consumed.
    fn number(&mut self, mut kind: Kind) -> Token {
        let invalid = Kind::Error(TokenError::InvalidNumericConstant);
        let is_dec = |c: char| c.is_ascii_digit();
        self.digits(is_dec);
        let (pc, ppc) = (self.peek(), self.nth(1));
        if pc == Some('.') {
            if ppc == Some('.') {
                // `1..2`, `1...`
                return self.finish(kind, false);
            }
            if kind == Kind::Float {
                self.bump();
                return self.finish(invalid, false);
            }
            if ppc.is_some_and(is_dottable_operator_start) {
                self.bump();
                return self.finish(Kind::Error(TokenError::AmbiguousNumericConstant), false);
            }
            self.bump();
            kind = Kind::Float;
            if self.accept('_') {
                return self.finish(invalid, false);
            }
            let had_fraction = self.digits(is_dec);
            let (pc, ppc) = (self.peek(), self.nth(1));
            if matches!(pc, Some('e' | 'E' | 'f')) && ppc.is_some_and(starts_exponent) {
                return self.exponent();
            }
            if pc == Some('.') && ppc != Some('.') && !ppc.is_some_and(is_dottable_operator_start) {
                self.bump();
                return self.finish(invalid, false);
            }
            if !had_fraction
                && pc.is_some_and(|c| {
                    is_identifier_start_char(c) || matches!(c, '(' | '[' | '{' | '@' | '`' | '"')
                })
            {
                return self.finish(Kind::Error(TokenError::AmbiguousNumericDotMultiply), false);
            }
        } else if matches!(pc, Some('e' | 'E' | 'f')) && ppc.is_some_and(starts_exponent) {
            return self.exponent();
        } else if self.pos - self.start == 1 && self.src.as_bytes().get(self.start) == Some(&b'0') {
            return self.prefixed_number();
        }
        self.finish(kind, false)
    }

    /// The exponent of a float (`e-3`, `f0`): `e`/`E`/`f` is next and a digit or sign after it.
    fn exponent(&mut self) -> Token {
        let invalid = Kind::Error(TokenError::InvalidNumericConstant);
        let kind = if self.bump() == Some('f') {
            Kind::Float32
        } else {
            Kind::Float
        };
        self.accept_if(|c| matches!(c, '+' | '-' | '−'));
        if !self.accept_while(|c| c.is_ascii_digit()) {
            return self.finish(invalid, false);
        }
        if self.peek() == Some('.') && !self.nth(1).is_some_and(is_dottable_operator_start) {
            self.bump();
            return self.finish(invalid, false);
        }
        self.finish(kind, false)
    }

    /// `0x...`, `0b...`, `0o...` (the `0` is consumed); hexadecimal floats `0x1.8p3`.
    fn prefixed_number(&mut self) -> Token {
        let invalid = Kind::Error(TokenError::InvalidNumericConstant);
        let (kind, had_digits) = match self.peek() {
            Some('x') => {
                self.bump();
                let mut had_digits = self.digits(|c| c.is_ascii_hexdigit());
                let mut is_float = false;
                if self.peek() == Some('.') && self.nth(1) != Some('.') {
                    self.bump();
                    had_digits |= self.digits(|c| c.is_ascii_hexdigit());
                    is_float = true;
                }
                if self.accept_if(|c| matches!(c, 'p' | 'P')) {
                    self.accept_if(|c| matches!(c, '+' | '-' | '−'));
                    if !self.digits(|c| c.is_ascii_digit()) || !had_digits {
                        return self.finish(invalid, false);
                    }
                    return self.finish(Kind::Float, false);
                }
                if is_float {
                    return self.finish(Kind::Error(TokenError::HexFloatMustContainP), false);
                }
                (Kind::HexInt, had_digits)
            }
            Some('b') => {
                self.bump();
                (Kind::BinInt, self.digits(|c| matches!(c, '0' | '1')))
            }
            Some('o') => {
                self.bump();
                (Kind::OctInt, self.digits(|c| ('0'..='7').contains(&c)))
            }
            _ => return self.finish(Kind::Integer, false),
        };
        let next = self.peek();
        if !had_digits || next.is_some_and(|c| c.is_ascii_digit() || is_identifier_start_char(c)) {
            self.accept_while(|c| c.is_ascii_digit() || is_identifier_start_char(c));
            return self.finish(invalid, false);
        }
        self.finish(kind, false)
    }

    /// Inside a string literal: its text, an interpolation, or its closing delimiter.
    fn string_chunk(&mut self) -> Token {
        let Some(state) = self.strings.last().copied() else {
            return self.finish(Kind::EndMarker, false);
        };
        if state.paren_depth > 0 {
            // Code inside `$( ... )`: count the parentheses.
            let Some(c) = self.bump() else {
                return self.finish(Kind::EndMarker, false);
            };
            let depth = match c {
                '(' => state.paren_depth + 1,
                ')' => state.paren_depth - 1,
                _ => return self.token_from(c),
            };
            if let Some(top) = self.strings.last_mut() {
                top.paren_depth = depth;
            }
            return self.emit(if c == '(' { Kind::LParen } else { Kind::RParen });
        }
        let pc = self.peek();
        if self.last.is_op("$") {
            if pc == Some('(') {
                self.bump();
                if let Some(top) = self.strings.last_mut() {
                    top.paren_depth = 1;
                }
                return self.emit(Kind::LParen);
            }
            if let Some(c) = pc.filter(|c| is_identifier_start_char(*c)) {
                self.bump();
                return self.identifier(c);
            }
        } else if self.last == Kind::Identifier
            && pc.is_some_and(|c| !(Op::starts_with(c) || is_never_id_char(c)))
        {
            self.bump();
            return self.finish(
                Kind::Error(TokenError::InvalidInterpolationTerminator),
                false,
            );
        }
        let Some(pc) = pc else {
            return self.finish(Kind::EndMarker, false);
        };
        if !state.raw && pc == '$' {
            self.bump();
            return self.emit_op("$");
        }
        if !state.raw && pc == '\\' && matches!(self.nth(1), Some('\r' | '\n')) {
            // An escaped newline is whitespace, with the indentation after it.
            self.bump();
            if self.bump() == Some('\r') {
                self.accept('\n');
            }
            self.accept_while(|c| c == ' ' || c == '\t');
            return self.finish(Kind::Whitespace, false);
        }
        if pc == state.delim && self.string_ends(state) {
            if state.delim == '\'' && self.last.is_op("'") && self.nth(1) == Some('\'') {
                // `'''`: the character `'`.
                self.bump();
                return self.finish(Kind::Char, false);
            }
            self.strings.pop();
            self.bump();
            if state.triple {
                self.bump();
                self.bump();
            }
            let kind = match (state.delim, state.triple) {
                ('"', true) => Kind::TripleDQuote,
                ('"', false) => Kind::DQuote,
                ('`', true) => Kind::TripleBacktick,
                ('`', false) => Kind::Backtick,
                _ => Kind::Op(quote_op()),
            };
            return self.finish(kind, false);
        }
        let mut bidi = Bidi::default();
        if state.raw {
            while let Some(pc) = self.peek() {
                if self.string_ends(state) {
                    break;
                }
                if state.triple && (pc == '\n' || pc == '\r') {
                    self.bump();
                    if pc == '\r' {
                        self.accept('\n');
                    }
                    break;
                }
                self.bump();
                if pc == '\\' {
                    let mut n = 1;
                    while self.accept('\\') {
                        n += 1;
                    }
                    if n % 2 == 1 && self.peek() == Some(state.delim) {
                        self.bump();
                    }
                }
                bidi.update(pc);
            }
        } else {
            while let Some(pc) = self.peek() {
                if pc == '$' {
                    break;
                }
                if state.triple && (pc == '\n' || pc == '\r') {
                    self.bump();
                    if pc == '\r' {
                        self.accept('\n');
                    }
                    break;
                }
                if pc == state.delim && self.string_ends(state) {
                    break;
                }
                if pc == '\\' && matches!(self.nth(1), Some('\r' | '\n')) {
                    break;
                }
                let mut c = pc;
                self.bump();
                if c == '\\' {
                    match self.bump() {
                        Some(escaped) => c = escaped,
                        None => break,
                    }
                }
                bidi.update(c);
            }
        }
        let kind = match state.delim {
            '\'' => Kind::Char,
            _ if !bidi.balanced() => Kind::Error(TokenError::BidiFormatting),
            '"' => Kind::String,
            _ => Kind::CmdString,
        };
        self.finish(kind, false)
    }

    /// Is the closing delimiter of `state` next?
    fn string_ends(&self, state: StringState) -> bool {
        let d = Some(state.delim);
        if state.triple {
            self.peek() == d && self.nth(1) == d && self.nth(2) == d
        } else {
            self.peek() == d
        }
    }
}

/// The `'` operator (adjoint, and the delimiters of a character literal).
fn quote_op() -> Op {
    Op::known("'")
}

/// Can `c` start a dotted operator (`.+`)? Not `?`, `$`, `:`, `'`.
fn is_dottable_operator_start(c: char) -> bool {
    !matches!(c, '?' | '$' | ':' | '\'') && Op::starts_with(c)
}

/// After `e`, `E` or `f` in a number: the exponent starts (a digit or a sign).
fn starts_exponent(c: char) -> bool {
    c.is_ascii_digit() || matches!(c, '+' | '-' | '−')
}

/// Nesting of bidirectional formatting characters (embeddings and isolates), reset at newlines:
/// unbalanced ones in a string or comment can disguise code.
#[derive(Default)]
struct Bidi {
    embedding: i32,
    isolate: i32,
}

impl Bidi {
    fn update(&mut self, c: char) {
        match c {
            '\n' => *self = Bidi::default(),
            '\u{202A}' | '\u{202B}' | '\u{202D}' | '\u{202E}' => self.embedding += 1,
            '\u{202C}' => self.embedding -= 1,
            '\u{2066}' | '\u{2067}' | '\u{2068}' => self.isolate += 1,
            '\u{2069}' => self.isolate -= 1,
            _ => {}
        }
    }

    fn balanced(&self) -> bool {
        self.embedding == 0 && self.isolate == 0
    }
}
