//! The IR reader: parses exactly the text [`print_function`](crate::print_function) writes, at
//! every stage (untyped SSA, typed SSA, forward `f⁺` and pullback `f⁻` functions), plus the
//! struct declarations ([`print_struct`](crate::print_struct)) that typed text needs.
//!
//! ```text
//! struct Point{Float64}            # a concrete struct type: `mutable struct`, `closure var"#f#1"`
//!   x::Float64
//!   y::Float64
//! end
//!
//! norm2(%1::Point{Float64}) :: Float64   # p
//! #1:
//!   %2 = getfield(%1, 1) :: Float64
//!   ...
//! ```
//!
//! A module is a sequence of struct declarations and functions. A function is its header line,
//! then its blocks: a label `#k:` (blocks in order from `#1`) and indented lines, φ nodes first,
//! then statements, then one terminator. Values keep their printed numbers (`%n` is arena index
//! `n - 1`; numbers the text skips become unused placeholders), so printing a parsed function
//! gives its text back. A `;` outside a string starts a comment (for test runners) to the end of
//! the line.
//!
//! What the text does not carry is made up: spans are the byte ranges of the lines (a value's
//! is its defining line, a terminator's its line, the function's its whole text), and an
//! `invoke`d or typed function's [`Instance`] has the method its name gives after `@` (else 0)
//! and its operands' (arguments') types (and a closure's body, named after its type `#f#1`, is
//! the method `(::#f#1)`).
//! Jump arguments are read from the target's φ nodes; the header's `# x, n` names the
//! arguments' values too when it names each argument. In typed text a call of a primitive's
//! name is that [`Prim`]; in untyped text every call is by name ([`Op::Call`]).
//!
//! Errors are located (`line:col: expected ...`, columns counted in characters) and never a
//! panic, whatever the input.

use std::fmt;
use std::sync::Arc;

use rustc_hash::FxHashMap;

use crate::func::{
    Block, BlockCall, BlockData, Const, Function, Operand, Span, Stmt, Terminator, Value,
    ValueData, ValueKind,
};
use crate::ops::{Instance, Op, Prim};
use crate::program::TypedProgram;
use crate::types::{Name, StructKind, StructType, Type};

/// How many value numbers a function's text may skip beyond 16 per defined value.
const MAX_SKIPPED: usize = 1024;

/// A syntax error with its position (1-based line and column, in characters).
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct ParseError {
    pub line: u32,
    pub col: u32,
    pub message: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.line, self.col, self.message)
    }
}

impl std::error::Error for ParseError {}

/// Struct declarations and functions, in the order the text gives them.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct Module {
    pub structs: Vec<Arc<StructType>>,
    pub functions: Vec<Function>,
}

impl Module {
    /// The typed functions as a program, keyed by their instances (untyped ones are left out).
    /// A pullback `f⁻` is keyed as the `make_pullback(f⁻, m, tape) :: Pullback{...}` statements
    /// of the module name it, so forward and pullback text runs as the transform's output does;
    /// pullbacks of one name (those of several `checkpointed` calls) are told apart by the type
    /// of their tape, their first parameter.
    pub fn program(&self) -> TypedProgram {
        let mut pullbacks: FxHashMap<(&str, Type), Arc<Instance>> = FxHashMap::default();
        for f in &self.functions {
            for d in &f.values {
                let ValueKind::Stmt(s) = &d.kind else {
                    continue;
                };
                if let (
                    Op::Prim(Prim::MakePullback),
                    [Operand::Const(Const::Func(name)), Operand::Const(Const::Int(m)), tape],
                    Type::Pullback(sig),
                ) = (&s.op, s.args.as_slice(), &d.ty)
                {
                    let method = u32::try_from(*m).unwrap_or(0);
                    pullbacks.insert(
                        (name, f.operand_ty(tape)),
                        Arc::new(Instance {
                            name: name.clone(),
                            method,
                            args: sig.clone(),
                        }),
                    );
                }
            }
        }
        let mut prog = TypedProgram::default();
        for f in &self.functions {
            let tape = f.args().first().map(|&t| f.ty(t).clone());
            let keyed = tape.and_then(|t| pullbacks.get(&(&*f.name, t)));
            if let Some(inst) = keyed.or(f.instance.as_ref()) {
                let mut f = f.clone();
                f.instance = Some(inst.clone());
                prog.functions.insert(inst.clone(), Arc::new(f));
            }
        }
        prog
    }
}

/// Parse a module: struct declarations and functions.
pub fn parse_module(text: &str) -> Result<Module, ParseError> {
    Parser::new(text).module()
}

/// Parse a text holding exactly one function (after any struct declarations it needs).
pub fn parse_function(text: &str) -> Result<Function, ParseError> {
    let mut m = parse_module(text)?;
    match m.functions.len() {
        1 => Ok(m.functions.remove(0)),
        n => Err(ParseError {
            line: 1,
            col: 1,
            message: format!("expected one function, found {n}"),
        }),
    }
}

/// The byte position where the test-runner comment of `line` starts: its first `;` outside a
/// string (`line.len()` if there is none).
pub fn comment_start(line: &str) -> usize {
    let mut in_str = false;
    let mut escaped = false;
    for (i, c) in line.char_indices() {
        if in_str {
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_str = false,
                _ => {}
            }
        } else if c == '"' {
            in_str = true;
        } else if c == ';' {
            return i;
        }
    }
    line.len()
}

/// Can `c` be part of a name (a function, field, struct or operator name) as the IR text
/// writes it unquoted?
pub(crate) fn name_char(c: char) -> bool {
    !c.is_whitespace() && !"(),{}\"[];".contains(c)
}

/// One line of text: its code (before any `;` comment, without trailing blanks).
#[derive(Clone, Copy)]
struct Line<'a> {
    /// 1-based line number.
    number: u32,
    /// Byte offset of the line in the whole text.
    start: usize,
    code: &'a str,
}

impl Line<'_> {
    fn indented(&self) -> bool {
        self.code.starts_with([' ', '\t'])
    }

    fn is_blank(&self) -> bool {
        self.code.trim().is_empty()
    }

    fn span(&self) -> Span {
        let start = self.start + (self.code.len() - self.code.trim_start().len());
        Span::new(0, clamp(start), clamp(self.start + self.code.len()))
    }
}

fn clamp(x: usize) -> u32 {
    u32::try_from(x).unwrap_or(u32::MAX)
}

struct Parser<'a> {
    lines: Vec<Line<'a>>,
    next: usize,
    structs: Vec<Arc<StructType>>,
}

impl<'a> Parser<'a> {
    fn new(text: &'a str) -> Parser<'a> {
        let mut lines = Vec::new();
        let mut start = 0;
        for (i, raw) in text.split('\n').enumerate() {
            let code = raw[..comment_start(raw)].trim_end();
            lines.push(Line {
                number: clamp(i + 1),
                start,
                code,
            });
            start += raw.len() + 1;
        }
        Parser {
            lines,
            next: 0,
            structs: Vec::new(),
        }
    }

    fn module(mut self) -> Result<Module, ParseError> {
        let mut functions = Vec::new();
        while let Some(line) = self.lines.get(self.next).copied() {
            if line.is_blank() {
                self.next += 1;
            } else if line.indented() || is_label(line.code) {
                return Err(error_at(
                    line,
                    0,
                    "expected a function header or a struct declaration",
                ));
            } else if struct_keyword(line.code).is_some() {
                let st = self.struct_decl()?;
                self.structs.push(st);
            } else {
                let f = self.function()?;
                let twice = |g: &Function| g.name == f.name && g.instance == f.instance;
                if functions.iter().any(twice) {
                    return Err(error_at(
                        line,
                        0,
                        &format!(
                            "function `{}` is defined twice with these argument types",
                            f.name
                        ),
                    ));
                }
                functions.push(f);
            }
        }
        Ok(Module {
            structs: self.structs,
            functions,
        })
    }

    /// `[mutable] struct Name{params}` or `[mutable] closure var"name"`, field lines, `end`.
    fn struct_decl(&mut self) -> Result<Arc<StructType>, ParseError> {
        let head = self.lines[self.next];
        self.next += 1;
        let mut cur = Cursor::new(head);
        let mutable = cur.eat_word("mutable");
        let kind = if cur.eat_word("struct") {
            StructKind::User
        } else if cur.eat_word("closure") {
            StructKind::Closure
        } else {
            return Err(cur.expected("`struct` or `closure`"));
        };
        let (name, params) = match kind {
            StructKind::Closure => {
                let name = cur.var_name()?;
                (name, cur.type_params(self)?)
            }
            StructKind::User => {
                let name = cur.ident()?;
                (name, cur.type_params(self)?)
            }
        };
        cur.end()?;
        let mut fields = Vec::new();
        loop {
            let Some(line) = self.lines.get(self.next).copied() else {
                return Err(error_at(head, 0, "expected `end` closing this struct"));
            };
            self.next += 1;
            if line.is_blank() {
                continue;
            }
            let mut cur = Cursor::new(line);
            cur.skip_ws();
            if cur.eat_word("end") {
                cur.end()?;
                break;
            }
            let field = cur.field_name()?;
            cur.expect("::")?;
            let ty = cur.ty(self)?;
            cur.end()?;
            fields.push((field, ty));
        }
        let st = StructType {
            name,
            params,
            fields,
            mutable,
            kind,
        };
        if self.structs.iter().any(|s| same_struct(s, &st)) {
            return Err(error_at(head, 0, &format!("struct {st} is declared twice")));
        }
        Ok(Arc::new(st))
    }

    fn lookup_struct(
        &self,
        kind: StructKind,
        name: &str,
        params: &[Type],
    ) -> Option<Arc<StructType>> {
        self.structs
            .iter()
            .find(|s| s.kind == kind && &*s.name == name && s.params == params)
            .cloned()
    }

    fn function(&mut self) -> Result<Function, ParseError> {
        let header = self.lines[self.next];
        self.next += 1;
        let mut fb = FunctionText::default();
        let mut cur = Cursor::new(header);
        let (name, method) = cur.function_name()?;
        cur.expect("(")?;
        let mut args = Vec::new();
        cur.skip_ws();
        if !cur.eat(")") {
            loop {
                cur.skip_ws();
                let at = cur.pos;
                let v = cur.value()?;
                let ty = if cur.eat("::") {
                    Some((at, cur.ty(self)?))
                } else {
                    None
                };
                args.push((at, v, ty));
                cur.skip_ws();
                if cur.eat(")") {
                    break;
                }
                cur.expect(",")?;
            }
        }
        cur.skip_ws();
        let ret = if cur.eat("::") {
            cur.skip_ws();
            Some(cur.ty(self)?)
        } else {
            None
        };
        let typed = ret.is_some();
        if ret == Some(Type::Any) {
            return Err(cur.error("a function typed `:: Any` is untyped IR: leave the types out"));
        }
        let arg_names = cur.arg_names()?;
        let mut entry_params = Vec::new();
        let n_args = args.len();
        for (at, v, ty) in args {
            let ty =
                match (typed, ty) {
                    (true, Some((_, t))) => t,
                    (false, None) => Type::Any,
                    (true, None) => return Err(error_at(
                        header,
                        at,
                        "expected `::` and the argument's type (the function has a return type)",
                    )),
                    (false, Some((at, _))) => {
                        return Err(error_at(
                            header,
                            at,
                            "an argument's type in a function without a return type",
                        ))
                    }
                };
            // The header's names are the arguments' own names when there is one per argument.
            let name = arg_names
                .get(entry_params.len())
                .filter(|_| arg_names.len() == n_args);
            fb.define(
                header,
                at,
                v,
                ty,
                name.cloned(),
                ValueKind::Param {
                    block: Block::ENTRY,
                    index: clamp(entry_params.len()),
                },
            )?;
            entry_params.push(v);
        }
        let mut blocks: Vec<BlockText> = Vec::new();
        let mut last = header;
        while let Some(line) = self.lines.get(self.next).copied() {
            if line.is_blank() || !(line.indented() || is_label(line.code)) {
                break;
            }
            self.next += 1;
            last = line;
            if !line.indented() {
                let k = blocks.len() + 1;
                let label = format!("#{k}:");
                if line.code != label {
                    return Err(error_at(
                        line,
                        0,
                        &format!("expected the label `{label}` (blocks are numbered in order)"),
                    ));
                }
                blocks.push(BlockText::default());
                continue;
            }
            let b = Block(clamp(blocks.len().saturating_sub(1)));
            let Some(block) = blocks.last_mut() else {
                return Err(error_at(
                    line,
                    0,
                    "expected the label `#1:` before the first statement",
                ));
            };
            if block.term.is_some() {
                return Err(error_at(
                    line,
                    0,
                    &format!("a line after the terminator of {b}"),
                ));
            }
            let mut cur = Cursor::new(line);
            cur.skip_ws();
            if cur.rest().starts_with('%') {
                fb.stmt_line(self, &mut cur, typed, b, block)?;
            } else {
                let term = cur.terminator()?;
                cur.end()?;
                if let TermText::Return(x) | TermText::Branch(x, ..) = &term {
                    fb.used(line, std::slice::from_ref(x));
                }
                block.term = Some((term, line));
            }
        }
        if blocks.is_empty() {
            return Err(error_at(
                header,
                usize::MAX,
                "expected the label `#1:` on the next line",
            ));
        }
        for (i, block) in blocks.iter().enumerate() {
            if block.term.is_none() {
                return Err(error_at(
                    last,
                    usize::MAX,
                    &format!(
                        "{} has no terminator (`return`, `br` or `unreachable`)",
                        Block(clamp(i))
                    ),
                ));
            }
        }
        let span = Span::new(0, clamp(header.start), clamp(last.start + last.code.len()));
        fb.finish(
            FunctionHead {
                line: header.number,
                name,
                method,
                arg_names,
                ret: ret.unwrap_or(Type::Any),
                span,
                entry_params,
            },
            blocks,
        )
    }
}

fn is_label(code: &str) -> bool {
    code.starts_with('#')
        && code.ends_with(':')
        && code[1..code.len() - 1].bytes().all(|b| b.is_ascii_digit())
        && code.len() > 2
}

/// The keyword a struct declaration line starts with.
fn struct_keyword(code: &str) -> Option<&'static str> {
    let first = code.split_whitespace().next()?;
    let second = code.split_whitespace().nth(1);
    match (first, second) {
        ("struct", _) => Some("struct"),
        ("closure", _) => Some("closure"),
        ("mutable", Some("struct" | "closure")) => Some("mutable"),
        _ => None,
    }
}

fn same_struct(a: &StructType, b: &StructType) -> bool {
    a.kind == b.kind && a.name == b.name && a.params == b.params
}

fn error_at(line: Line<'_>, byte: usize, message: &str) -> ParseError {
    let byte = byte.min(line.code.len());
    let col = line.code.get(..byte).map_or(1, |s| s.chars().count() + 1);
    ParseError {
        line: line.number,
        col: clamp(col),
        message: message.to_string(),
    }
}

/// A position in one line's code.
struct Cursor<'a> {
    line: Line<'a>,
    pos: usize,
}

impl<'a> Cursor<'a> {
    fn new(line: Line<'a>) -> Cursor<'a> {
        Cursor { line, pos: 0 }
    }

    fn rest(&self) -> &'a str {
        self.line.code.get(self.pos..).unwrap_or("")
    }

    fn peek(&self) -> Option<char> {
        self.rest().chars().next()
    }

    fn error(&self, message: &str) -> ParseError {
        error_at(self.line, self.pos, message)
    }

    fn expected(&self, what: &str) -> ParseError {
        let found = match self.peek() {
            None => "the end of the line".to_string(),
            Some(c) => format!("`{c}`"),
        };
        self.error(&format!("expected {what}, found {found}"))
    }

    fn skip_ws(&mut self) {
        let rest = self.rest();
        self.pos += rest.len() - rest.trim_start().len();
    }

    fn eat(&mut self, s: &str) -> bool {
        if self.rest().starts_with(s) {
            self.pos += s.len();
            true
        } else {
            false
        }
    }

    /// `word` followed by whitespace or the end of the line (then skipped).
    fn eat_word(&mut self, word: &str) -> bool {
        let rest = self.rest();
        let after = rest.get(word.len()..).unwrap_or("x");
        if rest.starts_with(word) && (after.is_empty() || after.starts_with(char::is_whitespace)) {
            self.pos += word.len();
            self.skip_ws();
            true
        } else {
            false
        }
    }

    fn expect(&mut self, s: &str) -> Result<(), ParseError> {
        self.skip_ws();
        if self.eat(s) {
            Ok(())
        } else {
            Err(self.expected(&format!("`{s}`")))
        }
    }

    /// Nothing but blanks is left.
    fn end(&mut self) -> Result<(), ParseError> {
        self.skip_ws();
        if self.rest().is_empty() {
            Ok(())
        } else {
            Err(self.expected("the end of the line"))
        }
    }

    fn take_while(&mut self, f: impl Fn(char) -> bool) -> &'a str {
        let rest = self.rest();
        let n = rest.find(|c: char| !f(c)).unwrap_or(rest.len());
        self.pos += n;
        &rest[..n]
    }

    fn digits(&mut self) -> Result<u32, ParseError> {
        let at = self.pos;
        let ds = self.take_while(|c| c.is_ascii_digit());
        match ds.parse::<u32>() {
            Ok(n) if n > 0 => Ok(n),
            _ => {
                self.pos = at;
                Err(self.expected("a number from 1"))
            }
        }
    }

    /// `%n`.
    fn value(&mut self) -> Result<Value, ParseError> {
        if !self.eat("%") {
            return Err(self.expected("a value `%n`"));
        }
        Ok(Value(self.digits()? - 1))
    }

    /// `#n`.
    fn block(&mut self) -> Result<Block, ParseError> {
        if !self.eat("#") {
            return Err(self.expected("a block `#n`"));
        }
        Ok(Block(self.digits()? - 1))
    }

    /// A name: name characters and `(::T)` groups (`(::Dense)`, `∇(::#f#1)⁺`, a callable's
    /// methods and what the AD derives from them).
    fn name(&mut self) -> Result<Name, ParseError> {
        let start = self.pos;
        loop {
            self.take_while(name_char);
            // The active positions of a forward-mode instance, `∂→f⟨1,2⟩`, hold commas.
            let taken = &self.line.code[start..self.pos];
            if taken.matches('⟨').count() > taken.matches('⟩').count() {
                let Some(end) = self.rest().find('⟩') else {
                    return Err(self.error("expected `⟩` closing this name"));
                };
                self.pos += end + '⟩'.len_utf8();
                continue;
            }
            // `(::Dense)` of a callable struct's method; `{Float64}` of a type value
            // (`global Vector{Float64}`).
            let (open, close) = match self.rest() {
                r if r.starts_with("(::") => ('(', ')'),
                r if r.starts_with('{') && self.pos > start => ('{', '}'),
                _ => break,
            };
            let mut depth = 0usize;
            let mut end = None;
            for (i, c) in self.rest().char_indices() {
                if c == open {
                    depth += 1;
                } else if c == close {
                    depth -= 1;
                    if depth == 0 {
                        end = Some(i + c.len_utf8());
                        break;
                    }
                }
            }
            let Some(end) = end else {
                return Err(self.error(&format!("expected `{close}` closing this name")));
            };
            self.pos += end;
        }
        if self.pos == start {
            return Err(self.expected("a name"));
        }
        Ok(self.line.code[start..self.pos].into())
    }

    fn ident(&mut self) -> Result<Name, ParseError> {
        match self.take_while(name_char) {
            "" => Err(self.expected("a name")),
            name => Ok(name.into()),
        }
    }

    /// A field name, up to `::`.
    fn field_name(&mut self) -> Result<Name, ParseError> {
        let rest = self.rest();
        let n = rest.find("::").unwrap_or(rest.len());
        let name = rest[..n].trim_end();
        if name.is_empty() || !name.chars().all(name_char) {
            return Err(self.expected("a field `name::Type`"));
        }
        self.pos += name.len();
        Ok(name.into())
    }

    /// `var"..."`.
    fn var_name(&mut self) -> Result<Name, ParseError> {
        if !self.eat("var") || self.peek() != Some('"') {
            return Err(self.expected("`var\"...\"`"));
        }
        self.string()
    }

    /// A function name in a header or after `invoke`, and the method `@m` after it names (0 if
    /// none).
    fn function_name(&mut self) -> Result<(Name, u32), ParseError> {
        let name = self.name()?;
        let method = name.rsplit_once('@').and_then(|(f, m)| match m {
            "synth" => Some((f, crate::SYNTH_METHOD)),
            "global" => Some((f, crate::GLOBAL_METHOD)),
            _ if m.bytes().all(|b| b.is_ascii_digit()) => {
                Some((f, m.parse::<u32>().ok().filter(|&m| m > 0)?))
            }
            _ => None,
        });
        Ok(match method {
            Some((f, m)) => (f.into(), m),
            None => (name, 0),
        })
    }

    /// A string literal as Rust's `{:?}` writes it.
    fn string(&mut self) -> Result<Name, ParseError> {
        if !self.eat("\"") {
            return Err(self.expected("`\"`"));
        }
        let mut out = String::new();
        let mut chars = self.rest().char_indices();
        while let Some((i, c)) = chars.next() {
            match c {
                '"' => {
                    self.pos += i + 1;
                    return Ok(out.into());
                }
                '\\' => {
                    let esc = match chars.next() {
                        Some((_, 'n')) => '\n',
                        Some((_, 't')) => '\t',
                        Some((_, 'r')) => '\r',
                        Some((_, '0')) => '\0',
                        Some((_, c @ ('\\' | '"' | '\''))) => c,
                        Some((j, 'u')) => {
                            let rest = &self.rest()[j + 1..];
                            let close = rest.find('}');
                            let code = close
                                .filter(|_| rest.starts_with('{'))
                                .and_then(|k| u32::from_str_radix(&rest[1..k], 16).ok())
                                .and_then(char::from_u32);
                            let (Some(k), Some(code)) = (close, code) else {
                                self.pos += j;
                                return Err(self.error("expected a `\\u{...}` escape"));
                            };
                            for _ in 0..=k {
                                chars.next();
                            }
                            code
                        }
                        _ => {
                            self.pos += i;
                            return Err(self.error("unknown escape in a string"));
                        }
                    };
                    out.push(esc);
                }
                c => out.push(c),
            }
        }
        self.pos = self.line.code.len();
        Err(self.error("expected `\"` closing the string"))
    }

    /// `{T, ...}` after a struct name, if present.
    fn type_params(&mut self, p: &Parser<'_>) -> Result<Vec<Type>, ParseError> {
        if self.eat("{") {
            self.types_until('}', p)
        } else {
            Ok(Vec::new())
        }
    }

    /// Types separated by commas, then `close` (the opening bracket is read).
    fn types_until(&mut self, close: char, p: &Parser<'_>) -> Result<Vec<Type>, ParseError> {
        let mut out = Vec::new();
        self.skip_ws();
        if self.peek() == Some(close) {
            self.pos += 1;
            return Ok(out);
        }
        loop {
            self.skip_ws();
            out.push(self.ty(p)?);
            self.skip_ws();
            if self.peek() == Some(close) {
                self.pos += 1;
                return Ok(out);
            }
            if !self.eat(",") {
                return Err(self.expected(&format!("`,` or `{close}`")));
            }
        }
    }

    fn ty(&mut self, p: &Parser<'_>) -> Result<Type, ParseError> {
        self.skip_ws();
        let at = self.pos;
        if self.eat("(") {
            return self.named_tuple(p);
        }
        if self.rest().starts_with("var\"") {
            let name = self.var_name()?;
            let params = self.type_params(p)?;
            return self.struct_ref(p, StructKind::Closure, &name, params, at);
        }
        if self.rest().starts_with("Union{}") {
            self.pos += "Union{}".len();
            return Ok(Type::Bottom);
        }
        // `:a` in `Val{:a}`: a symbol as a type parameter.
        if self.eat(":") {
            let name = self.name()?;
            return Ok(Type::Param(crate::ParamValue::Symbol(name)));
        }
        let negative = self.eat("-");
        let word = self.take_while(|c| name_char(c) && c != '=');
        if word.is_empty() {
            return Err(self.expected("a type"));
        }
        // `3`, `-1`, `true` in `Val{3}`: an Int or a Bool as a type parameter.
        let value = match (negative, word) {
            (false, "true" | "false") => crate::ParamValue::parse(word),
            (false, _) => word.parse().ok().map(crate::ParamValue::Int),
            (true, _) => format!("-{word}").parse().ok().map(crate::ParamValue::Int),
        };
        if let Some(v) = value {
            return Ok(Type::Param(v));
        }
        if negative {
            return Err(self.expected("an Int after `-`"));
        }
        let one = |c: &mut Cursor<'_>, what: &str| -> Result<Type, ParseError> {
            let ts = c.types_until('}', p)?;
            match <[Type; 1]>::try_from(ts) {
                Ok([t]) => Ok(t),
                Err(_) => Err(error_at(
                    c.line,
                    at,
                    &format!("{what} takes one type parameter"),
                )),
            }
        };
        if let Some(k) = crate::IntKind::ALL.into_iter().find(|k| k.name() == word) {
            return Ok(Type::Int(k));
        }
        match word {
            "Any" => return Ok(Type::Any),
            "Float64" => return Ok(Type::Float64),
            "Float32" => return Ok(Type::Float32),
            "Int64" => return Ok(Type::Int64),
            "Bool" => return Ok(Type::Bool),

            "Nothing" => return Ok(Type::Nothing),
            "String" => return Ok(Type::String),
            "SubString" => {
                self.expect("{")?;
                self.expect("String")?;
                self.expect("}")?;
                return Ok(Type::SubString);
            }
            "Exception" => return Ok(Type::Exception),
            "Symbol" if !self.rest().starts_with('{') => return Ok(Type::any_symbol()),
            "typeof" => {
                self.expect("(")?;
                let name = self.name()?;
                self.expect(")")?;
                return Ok(Type::Function(name));
            }
            _ => {}
        }
        if !self.eat("{") {
            return self.struct_ref(p, StructKind::User, word, Vec::new(), at);
        }
        Ok(match word {
            "Tuple" => Type::Tuple(self.types_until('}', p)?.into()),
            "Pullback" => Type::Pullback(self.types_until('}', p)?.into()),
            "Ref" => Type::Ref(one(self, "Ref")?.into()),
            "Vector" => Type::Array(one(self, "Vector")?.into(), 1),
            "Matrix" => Type::Array(one(self, "Matrix")?.into(), 2),
            "Stack" => Type::Stack(one(self, "Stack")?.into()),
            // `Union{var"Shape", Circle, Square}`: the abstract type `Shape` and its members.
            "Union" if self.rest().starts_with("var\"") => {
                let name = self.var_name()?;
                self.expect(",")?;
                let members = self.types_until('}', p)?;
                Type::Union(std::sync::Arc::new(crate::UnionType { name, members }))
            }
            // `Union{Float64, Int64}`: a union Julia writes itself, named by this text.
            "Union" => {
                let start = self.pos;
                let members = self.types_until('}', p)?;
                let name = format!("Union{{{}", &self.line.code[start..self.pos]);
                Type::union(name.as_str().into(), members)
            }
            // `Symbol{:a}`: the type of the symbol `:a`.
            "Symbol" => {
                self.expect(":")?;
                let name = self.name()?;
                self.expect("}")?;
                Type::Symbol(name)
            }
            "Array" => {
                let elem = self.ty(p)?;
                self.expect(",")?;
                self.skip_ws();
                let n = self.take_while(|c| c.is_ascii_digit());
                let Ok(n) = n.parse::<u8>() else {
                    return Err(self.expected("the number of dimensions"));
                };
                self.expect("}")?;
                Type::Array(elem.into(), n)
            }
            "Adjoint" => {
                let elem = self.ty(p)?;
                self.expect(",")?;
                let vector = self.ty(p)?;
                self.expect("}")?;
                if vector != Type::Array(elem.clone().into(), 1) {
                    return Err(error_at(
                        self.line,
                        at,
                        &format!("expected `Adjoint{{{elem}, Vector{{{elem}}}}}`"),
                    ));
                }
                Type::Adjoint(elem.into())
            }
            _ => {
                let params = self.types_until('}', p)?;
                return self.struct_ref(p, StructKind::User, word, params, at);
            }
        })
    }

    fn struct_ref(
        &self,
        p: &Parser<'_>,
        kind: StructKind,
        name: &str,
        params: Vec<Type>,
        at: usize,
    ) -> Result<Type, ParseError> {
        match p.lookup_struct(kind, name, &params) {
            Some(st) => Ok(Type::Struct(st)),
            None => {
                let st = StructType {
                    name: name.into(),
                    params,
                    fields: Vec::new(),
                    mutable: false,
                    kind,
                };
                let decl = match kind {
                    StructKind::User => "struct",
                    StructKind::Closure => "closure",
                };
                Err(error_at(
                    self.line,
                    at,
                    &format!("unknown type `{st}`: declare it above with `{decl} {st}`"),
                ))
            }
        }
    }

    /// `(a = T, b = U)`, `(a = T,)`, `()` (the `(` is read).
    fn named_tuple(&mut self, p: &Parser<'_>) -> Result<Type, ParseError> {
        let mut fields = Vec::new();
        loop {
            self.skip_ws();
            if self.eat(")") {
                break;
            }
            let name = self.take_while(|c| name_char(c) && c != '=');
            if name.is_empty() {
                return Err(self.expected("a field `name = Type` or `)`"));
            }
            let name: Name = name.into();
            self.expect("=")?;
            let ty = self.ty(p)?;
            fields.push((name, ty));
            self.skip_ws();
            if self.eat(")") {
                break;
            }
            if !self.eat(",") {
                return Err(self.expected("`,` or `)`"));
            }
        }
        Ok(Type::NamedTuple(fields.into()))
    }

    /// The header's `# a, b` comment: the argument names.
    fn arg_names(&mut self) -> Result<Vec<Name>, ParseError> {
        self.skip_ws();
        if self.rest().is_empty() {
            return Ok(Vec::new());
        }
        if !self.eat("#") {
            return Err(self.expected("`::`, `# names` or the end of the line"));
        }
        let text = self.rest().strip_prefix(' ').unwrap_or(self.rest());
        self.pos = self.line.code.len();
        Ok(text.split(", ").map(Name::from).collect())
    }

    /// A trailing `# name` comment, if any, ending the line.
    fn value_name(&mut self) -> Result<Option<Name>, ParseError> {
        self.skip_ws();
        if self.rest().is_empty() {
            return Ok(None);
        }
        if !self.eat("#") {
            return Err(self.expected("`# name` or the end of the line"));
        }
        let text = self.rest().strip_prefix(' ').unwrap_or(self.rest());
        self.pos = self.line.code.len();
        Ok(Some(text.into()))
    }

    /// An operand: a value, a literal, a symbol, a constant tuple or a function name.
    fn operand(&mut self) -> Result<Operand, ParseError> {
        self.skip_ws();
        let rest = self.rest();
        let second = rest.chars().nth(1);
        if rest.starts_with('%') && second.is_some_and(|c| c.is_ascii_digit()) {
            return Ok(Operand::Value(self.value()?));
        }
        Ok(Operand::Const(self.constant()?))
    }

    fn constant(&mut self) -> Result<Const, ParseError> {
        let rest = self.rest();
        let mut chars = rest.chars();
        let (first, second) = (chars.next(), chars.next());
        match first {
            Some('"') => return Ok(Const::Str(self.string()?)),
            Some(':') => {
                self.pos += 1;
                if self.rest().starts_with("var\"") {
                    return Ok(Const::Symbol(self.var_name()?));
                }
                return Ok(Const::Symbol(self.name()?));
            }
            Some('(') if !rest.starts_with("(::") => return self.const_tuple(),
            Some(c) if c.is_ascii_digit() => return self.number(),
            Some('-') if second.is_some_and(|c| c.is_ascii_digit()) => return self.number(),
            None => return Err(self.expected("an operand")),
            _ => {}
        }
        if rest.starts_with("var\"") {
            return Ok(Const::Func(self.var_name()?));
        }
        if self.eat("-Inf32") {
            return Ok(Const::f32(f32::NEG_INFINITY));
        }
        if self.eat("-Inf") {
            return Ok(Const::f64(f64::NEG_INFINITY));
        }
        let at = self.pos;
        let name = self.name()?;
        Ok(match &*name {
            "true" => Const::Bool(true),
            "false" => Const::Bool(false),
            "nothing" => Const::Nothing,
            "NaN" => Const::f64(f64::NAN),
            "Inf" => Const::f64(f64::INFINITY),
            "NaN32" => Const::f32(f32::NAN),
            "Inf32" => Const::f32(f32::INFINITY),
            _ if name.starts_with('%') && name.len() > 1 => {
                self.pos = at;
                return Err(self.expected("an operand"));
            }
            _ => Const::Func(name),
        })
    }

    /// `(c, ...)`, `(c,)` or `()` of constants.
    fn const_tuple(&mut self) -> Result<Const, ParseError> {
        self.pos += 1;
        let mut items = Vec::new();
        loop {
            self.skip_ws();
            if self.eat(")") {
                break;
            }
            match self.operand()? {
                Operand::Const(c) => items.push(c),
                Operand::Value(_) => {
                    return Err(self.error("a constant tuple holds constants only"))
                }
            }
            self.skip_ws();
            if self.eat(")") {
                if items.len() == 1 {
                    return Err(self.error("a tuple of one constant is written `(c,)`"));
                }
                break;
            }
            if !self.eat(",") {
                return Err(self.expected("`,` or `)`"));
            }
            self.skip_ws();
            if items.len() == 1 && self.eat(")") {
                break;
            }
        }
        Ok(Const::Tuple(items.into()))
    }

    /// An Int64 (`-12`), a Float64 in Julia's form (`1.0`, `-2.5e-7`) or a Float32 (`0.5f0`).
    fn number(&mut self) -> Result<Const, ParseError> {
        let at = self.pos;
        self.eat("-");
        self.take_while(|c| c.is_ascii_digit());
        let mut float = false;
        if self.rest().starts_with('.') {
            float = true;
            self.pos += 1;
            self.take_while(|c| c.is_ascii_digit());
        }
        if self.rest().starts_with('e') {
            float = true;
            self.pos += 1;
            self.eat("-");
            self.take_while(|c| c.is_ascii_digit());
        }
        if float && self.rest().starts_with('f') {
            // A Float32 in Julia's form (`0.1f0`, `1.0f-7`).
            let mantissa = &self.line.code[at..self.pos];
            self.pos += 1;
            let exp_at = self.pos;
            self.eat("-");
            self.take_while(|c| c.is_ascii_digit());
            let exp = &self.line.code[exp_at..self.pos];
            let text = &self.line.code[at..self.pos];
            let parsed = format!("{mantissa}e{exp}").parse::<f32>().ok();
            return parsed
                .map(Const::f32)
                .ok_or_else(|| error_at(self.line, at, &format!("`{text}` is not a number")));
        }
        let text = &self.line.code[at..self.pos];
        let parsed = if float {
            text.parse::<f64>().ok().map(Const::f64)
        } else {
            text.parse::<i64>().ok().map(Const::Int)
        };
        parsed.ok_or_else(|| error_at(self.line, at, &format!("`{text}` is not a number")))
    }

    /// Operands separated by commas, then `)` (the `(` is read).
    fn operands(&mut self) -> Result<Vec<Operand>, ParseError> {
        let mut out = Vec::new();
        self.skip_ws();
        if self.eat(")") {
            return Ok(out);
        }
        loop {
            out.push(self.operand()?);
            self.skip_ws();
            if self.eat(")") {
                return Ok(out);
            }
            if !self.eat(",") {
                return Err(self.expected("`,` or `)`"));
            }
        }
    }

    /// Is the right-hand side over (a type, a name comment or the end of the line follows)?
    fn rhs_done(&self) -> bool {
        let rest = self.rest().trim_start();
        rest.is_empty() || rest.starts_with("::") || rest.starts_with('#')
    }

    /// `return x`, `br #k`, `br c ? #t : #e`, `leave n try #c br #k`, `unreachable`.
    fn terminator(&mut self) -> Result<TermText, ParseError> {
        if self.eat_word("return") {
            return Ok(TermText::Return(self.operand()?));
        }
        if self.eat_word("unreachable") {
            return Ok(TermText::Unreachable);
        }
        let mut leave = 0;
        if self.eat_word("leave") {
            leave = self.digits()?;
            self.skip_ws();
        }
        let catch = if self.eat_word("try") {
            let b = self.block()?;
            self.skip_ws();
            Some(b)
        } else {
            None
        };
        if leave > 0 || catch.is_some() {
            if !self.eat_word("br") {
                return Err(self.expected("`br #k` after `leave`/`try`"));
            }
            return Ok(TermText::Handle(leave, catch, self.block()?));
        }
        if !self.eat_word("br") {
            return Err(self.expected(
                "a statement `%n = ...` or a terminator (`return`, `br`, `unreachable`)",
            ));
        }
        // `br #k` alone is a jump; a condition may be a function named `#f#1`.
        let jump = self
            .rest()
            .strip_prefix('#')
            .is_some_and(|r| !r.is_empty() && r.bytes().all(|b| b.is_ascii_digit()));
        if jump {
            return Ok(TermText::Jump(self.block()?));
        }
        let cond = self.operand()?;
        self.expect("?")?;
        self.skip_ws();
        let then_to = self.block()?;
        self.expect(":")?;
        self.skip_ws();
        let else_to = self.block()?;
        Ok(TermText::Branch(cond, then_to, else_to))
    }
}

/// A terminator as written: jump arguments come from the targets' φs.
enum TermText {
    Return(Operand),
    Jump(Block),
    Branch(Operand, Block, Block),
    /// `leave n try #c br #t`.
    Handle(u32, Option<Block>, Block),
    Unreachable,
}

impl TermText {
    fn targets(&self) -> Vec<Block> {
        match self {
            TermText::Jump(b) => vec![*b],
            TermText::Branch(_, t, e) => vec![*t, *e],
            TermText::Handle(_, c, t) => std::iter::once(*t).chain(*c).collect(),
            TermText::Return(_) | TermText::Unreachable => vec![],
        }
    }
}

/// A φ's incoming `(predecessor, operand)` edges (`None`: `?`, no argument).
type Edges = Vec<(Block, Option<Operand>)>;

#[derive(Default)]
struct BlockText<'a> {
    /// φ values in order, with their edges and lines.
    phis: Vec<(Value, Edges, Line<'a>)>,
    stmts: Vec<Value>,
    term: Option<(TermText, Line<'a>)>,
}

/// How the right-hand side of a statement names its operation, before operand types are known.
enum OpText {
    Op(Op),
    /// `invoke f@m(...)`: the instance of method `m` takes the operands' types.
    Invoke(Name, u32),
}

struct FunctionHead {
    /// The header's line number.
    line: u32,
    name: Name,
    method: u32,
    arg_names: Vec<Name>,
    ret: Type,
    span: Span,
    entry_params: Vec<Value>,
}

/// A function's values as read, by number.
#[derive(Default)]
struct FunctionText {
    values: FxHashMap<Value, ValueData>,
    invokes: Vec<(Value, Name, u32)>,
    /// The first use of each value, for the error when it is never defined.
    uses: FxHashMap<Value, (u32, u32)>,
}

impl FunctionText {
    fn define(
        &mut self,
        line: Line<'_>,
        at: usize,
        v: Value,
        ty: Type,
        name: Option<Name>,
        kind: ValueKind,
    ) -> Result<(), ParseError> {
        if self.values.contains_key(&v) {
            return Err(error_at(line, at, &format!("{v} is defined twice")));
        }
        self.values.insert(
            v,
            ValueData {
                kind,
                ty,
                span: line.span(),
                name,
            },
        );
        Ok(())
    }

    fn used(&mut self, line: Line<'_>, ops: &[Operand]) {
        for op in ops {
            if let Operand::Value(v) = op {
                self.uses.entry(*v).or_insert_with(|| {
                    let text = v.to_string();
                    let at = line
                        .code
                        .match_indices(&text)
                        .find(|(i, _)| {
                            !line.code[i + text.len()..].starts_with(|c: char| c.is_ascii_digit())
                        })
                        .map_or(0, |(i, _)| i);
                    let e = error_at(line, at, "");
                    (e.line, e.col)
                });
            }
        }
    }

    /// `%n = rhs [:: T] [# name]`.
    fn stmt_line<'a>(
        &mut self,
        p: &Parser<'a>,
        cur: &mut Cursor<'a>,
        typed: bool,
        b: Block,
        block: &mut BlockText<'a>,
    ) -> Result<(), ParseError> {
        let at = cur.pos;
        let v = cur.value()?;
        cur.expect("=")?;
        cur.skip_ws();
        let phi_at = cur.pos;
        let mut phi = None;
        let mut stmt = None;
        if cur.eat("φ(") {
            if b == Block::ENTRY {
                return Err(error_at(
                    cur.line,
                    phi_at,
                    "the entry block has no φ nodes: its parameters are the arguments",
                ));
            }
            if !block.stmts.is_empty() {
                return Err(error_at(
                    cur.line,
                    phi_at,
                    "a φ node after a statement (φ nodes come first in a block)",
                ));
            }
            phi = Some(cur_edges(cur)?);
        } else {
            stmt = Some(rhs(cur, p, typed)?);
        }
        cur.skip_ws();
        let ty = if typed {
            cur.expect("::")?;
            cur.ty(p)?
        } else {
            if cur.rest().starts_with("::") {
                return Err(cur.error("a type in a function without a return type"));
            }
            Type::Any
        };
        let name = cur.value_name()?;
        match (phi, stmt) {
            (Some(edges), _) => {
                let index = clamp(block.phis.len());
                let ops: Vec<Operand> = edges.iter().filter_map(|(_, o)| o.clone()).collect();
                self.used(cur.line, &ops);
                self.define(
                    cur.line,
                    at,
                    v,
                    ty,
                    name,
                    ValueKind::Param { block: b, index },
                )?;
                block.phis.push((v, edges, cur.line));
            }
            (None, Some((op, args))) => {
                self.used(cur.line, &args);
                let op = match op {
                    OpText::Op(op) => op,
                    OpText::Invoke(callee, method) => {
                        self.invokes.push((v, callee, method));
                        Op::Call(Name::from(""))
                    }
                };
                self.define(
                    cur.line,
                    at,
                    v,
                    ty,
                    name,
                    ValueKind::Stmt(Stmt { op, args }),
                )?;
                block.stmts.push(v);
            }
            (None, None) => {}
        }
        Ok(())
    }

    fn finish(
        mut self,
        head: FunctionHead,
        blocks: Vec<BlockText<'_>>,
    ) -> Result<Function, ParseError> {
        let n_blocks = blocks.len();
        // Every use names a defined value.
        let mut undefined: Vec<(&Value, &(u32, u32))> = self
            .uses
            .iter()
            .filter(|(v, _)| !self.values.contains_key(v))
            .collect();
        undefined.sort_by_key(|(_, at)| **at);
        if let Some((v, &(line, col))) = undefined.first() {
            return Err(ParseError {
                line,
                col,
                message: format!("{v} is used but never defined"),
            });
        }
        // Jump arguments from the targets' φ edges: the k-th edge from `p` in a block's φ is
        // the k-th jump from `p` to that block.
        let mut term_lines = Vec::new();
        let mut terms = Vec::new();
        for (i, bt) in blocks.iter().enumerate() {
            let Some((t, line)) = &bt.term else { continue };
            for target in t.targets() {
                if target.index() >= n_blocks {
                    return Err(error_at(
                        *line,
                        0,
                        &format!("jump to {target}, which is not defined"),
                    ));
                }
            }
            term_lines.push(*line);
            terms.push((Block(clamp(i)), t));
        }
        let mut args: FxHashMap<(Block, usize), Vec<Option<Operand>>> = FxHashMap::default();
        for (bi, bt) in blocks.iter().enumerate() {
            let b = Block(clamp(bi));
            for (pi, (phi, edges, line)) in bt.phis.iter().enumerate() {
                let mut seen: FxHashMap<Block, usize> = FxHashMap::default();
                for (pred, op) in edges {
                    let k = seen.entry(*pred).or_default();
                    let jumps = terms
                        .iter()
                        .find(|(tb, _)| tb == pred)
                        .map_or(0, |(_, t)| t.targets().iter().filter(|&&x| x == b).count());
                    if *k >= jumps {
                        return Err(error_at(*line, 0, &format!("{phi} has an edge from {pred}, which does not jump to {b} (that often)")));
                    }
                    let slot = args
                        .entry((
                            *pred,
                            call_index(
                                terms.iter().find(|(tb, _)| tb == pred).map(|(_, t)| *t),
                                b,
                                *k,
                            ),
                        ))
                        .or_default();
                    if slot.len() != pi {
                        return Err(error_at(
                            *line,
                            0,
                            &format!(
                                "{phi} misses an edge from {pred} that the earlier φ nodes have"
                            ),
                        ));
                    }
                    slot.push(op.clone());
                    *k += 1;
                }
            }
        }
        for (b, t) in &terms {
            for (ci, target) in t.targets().into_iter().enumerate() {
                let Some(bt) = blocks.get(target.index()) else {
                    continue;
                };
                let have = args.get(&(*b, ci)).map_or(0, Vec::len);
                if have < bt.phis.len() {
                    if let Some((phi, _, line)) = bt.phis.get(have) {
                        return Err(error_at(
                            *line,
                            0,
                            &format!("{phi} has no edge from {b}, which jumps to {target}"),
                        ));
                    }
                }
            }
        }
        // The values, with placeholders for numbers the text skips (a few: printed functions
        // are numbered densely but for what passes dropped).
        let count = self.values.keys().map(|v| v.index() + 1).max().unwrap_or(0);
        if count > MAX_SKIPPED + 16 * self.values.len() {
            return Err(ParseError {
                line: head.line,
                col: 1,
                message: format!(
                    "value numbers go up to %{count} for {} values: number them densely",
                    self.values.len()
                ),
            });
        }
        let placeholder = ValueData {
            kind: ValueKind::Stmt(Stmt {
                op: Op::Prim(Prim::Tuple),
                args: Vec::new(),
            }),
            ty: Type::Tuple(Arc::from(Vec::new())),
            span: Span::default(),
            name: None,
        };
        let mut values = vec![placeholder; count];
        for (v, d) in self.values.drain() {
            values[v.index()] = d;
        }
        let operand_ty = |values: &[ValueData], op: &Operand| match op {
            Operand::Value(v) => values.get(v.index()).map_or(Type::Any, |d| d.ty.clone()),
            Operand::Const(c) => c.ty(),
        };
        for (v, callee, method) in std::mem::take(&mut self.invokes) {
            let ValueKind::Stmt(s) = &values[v.index()].kind else {
                continue;
            };
            let tys: Vec<Type> = s.args.iter().map(|a| operand_ty(&values, a)).collect();
            let inst = Instance {
                name: callee,
                method,
                args: tys.into(),
            };
            if let ValueKind::Stmt(s) = &mut values[v.index()].kind {
                s.op = Op::Invoke(Arc::new(inst));
            }
        }
        let mut out_blocks = Vec::with_capacity(n_blocks);
        for (bi, bt) in blocks.into_iter().enumerate() {
            let b = Block(clamp(bi));
            let params = if b == Block::ENTRY {
                head.entry_params.clone()
            } else {
                bt.phis.iter().map(|(v, _, _)| *v).collect()
            };
            let Some((t, line)) = bt.term else { continue };
            let call = |ci: usize, target: Block| -> Result<BlockCall, ParseError> {
                let got = args.get(&(b, ci)).cloned().unwrap_or_default();
                // `?` stands for an argument the jump does not pass: only the last ones can be.
                let n = got.iter().take_while(|a| a.is_some()).count();
                if got[n..].iter().any(Option::is_some) {
                    return Err(error_at(
                        line,
                        0,
                        &format!(
                            "the jump from {b} to {target} lacks an argument before one it passes"
                        ),
                    ));
                }
                Ok(BlockCall {
                    block: target,
                    args: got.into_iter().flatten().collect(),
                })
            };
            let term = match t {
                TermText::Return(x) => Terminator::Return(x),
                TermText::Unreachable => Terminator::Unreachable,
                TermText::Jump(target) => Terminator::Jump(call(0, target)?),
                TermText::Branch(cond, then_to, else_to) => Terminator::Branch {
                    cond,
                    then_to: call(0, then_to)?,
                    else_to: call(1, else_to)?,
                },
                TermText::Handle(leave, catch, to) => Terminator::Handle {
                    leave,
                    to: call(0, to)?,
                    catch: catch.map(|c| call(1, c)).transpose()?,
                },
            };
            out_blocks.push(BlockData {
                params,
                stmts: bt.stmts,
                term,
                term_span: line.span(),
            });
        }
        let typed = head.ret != Type::Any;
        let instance = typed.then(|| {
            let args: Vec<Type> = head
                .entry_params
                .iter()
                .map(|&a| values[a.index()].ty.clone())
                .collect();
            // A closure's body is named after its type, its method `(::#f#1)` after the type.
            let name = match args.first() {
                Some(Type::Struct(st))
                    if st.kind == StructKind::Closure && st.name == head.name =>
                {
                    crate::program::callable_name(&head.name)
                }
                _ => head.name.clone(),
            };
            Arc::new(Instance {
                name,
                method: head.method,
                args: args.into(),
            })
        });
        Ok(Function {
            name: head.name,
            arg_names: head.arg_names,
            instance,
            ret: head.ret,
            blocks: out_blocks,
            values,
            span: head.span,
        })
    }
}

/// The index among `t`'s jumps of its `k`-th jump to `target`.
fn call_index(t: Option<&TermText>, target: Block, k: usize) -> usize {
    t.map(TermText::targets)
        .and_then(|ts| {
            ts.iter()
                .enumerate()
                .filter(|(_, &x)| x == target)
                .nth(k)
                .map(|(i, _)| i)
        })
        .unwrap_or(0)
}

/// The edges of a φ: `#p → x, ...)` (the `φ(` is read).
fn cur_edges(cur: &mut Cursor<'_>) -> Result<Edges, ParseError> {
    let mut edges = Vec::new();
    cur.skip_ws();
    if cur.eat(")") {
        return Ok(edges);
    }
    loop {
        cur.skip_ws();
        let pred = cur.block()?;
        cur.expect("→")?;
        cur.skip_ws();
        let op = if cur.eat("?") {
            None
        } else {
            Some(cur.operand()?)
        };
        edges.push((pred, op));
        cur.skip_ws();
        if cur.eat(")") {
            return Ok(edges);
        }
        if !cur.eat(",") {
            return Err(cur.expected("`,` or `)`"));
        }
    }
}

/// The operation and operands of a statement's right-hand side.
fn rhs(
    cur: &mut Cursor<'_>,
    p: &Parser<'_>,
    typed: bool,
) -> Result<(OpText, Vec<Operand>), ParseError> {
    let call = |name: Name| -> Op {
        match Prim::from_julia_name(&name) {
            Some(prim) if typed => Op::Prim(prim),
            _ => Op::Call(name),
        }
    };
    if cur.eat_word("invoke") {
        let (name, method) = cur.function_name()?;
        cur.expect("(")?;
        return Ok((OpText::Invoke(name, method), cur.operands()?));
    }
    if cur.eat_word("new") {
        let at = cur.pos;
        let Type::Struct(st) = cur.ty(p)? else {
            return Err(error_at(cur.line, at, "expected a struct type after `new`"));
        };
        cur.expect("(")?;
        return Ok((OpText::Op(Op::New(st)), cur.operands()?));
    }
    if cur.eat_word("closure") {
        let name = cur.var_name()?;
        cur.expect("(")?;
        return Ok((OpText::Op(Op::Closure(name)), cur.operands()?));
    }
    if cur.eat_word("global") {
        return Ok((OpText::Op(Op::Global(cur.name()?)), Vec::new()));
    }
    let start = cur.pos;
    // `-x`, `!x`: an operator, then one operand ending the right-hand side.
    let rest = cur.rest();
    if let Some(unary @ ('-' | '!')) = rest.chars().next() {
        let after = &rest[1..];
        let call = after.starts_with('(') && !after.starts_with("(::");
        if !call && !after.starts_with(' ') {
            cur.pos += 1;
            if let Ok(x) = cur.operand() {
                if cur.rhs_done() {
                    let op = if typed {
                        Op::Prim(if unary == '-' { Prim::Neg } else { Prim::Not })
                    } else {
                        Op::Call(Name::from(unary.to_string()))
                    };
                    return Ok((OpText::Op(op), vec![x]));
                }
            }
            cur.pos = start;
        }
    }
    // `:(a, b)`: a call of the range operator `:` (never a symbol, which no `(` follows).
    if cur.rest().starts_with(":(") && !cur.rest().starts_with(":(::") {
        cur.pos += 1;
        cur.expect("(")?;
        return Ok((OpText::Op(call(Name::from(":"))), cur.operands()?));
    }
    // `f(args...)`, `x(args...)`, or `x op y`.
    let first = cur.operand()?;
    if cur.eat("(") {
        let args = cur.operands()?;
        return Ok(match first {
            Operand::Const(Const::Func(name)) => (OpText::Op(call(name)), args),
            callee => (
                OpText::Op(Op::CallValue),
                std::iter::once(callee).chain(args).collect(),
            ),
        });
    }
    cur.skip_ws();
    if cur.rhs_done() {
        return Err(cur.expected("an operator or `(` after the first operand"));
    }
    let op_at = cur.pos;
    let op = cur.take_while(name_char);
    if op.is_empty() {
        return Err(cur.expected("an operator"));
    }
    if !crate::print::INFIX_CALLS.contains(&op) {
        return Err(error_at(
            cur.line,
            op_at,
            &format!("`{op}` is not an infix operator"),
        ));
    }
    let op: Name = op.into();
    if cur.rest().is_empty() {
        return Err(cur.expected(&format!("an operand after `{op}`")));
    }
    if !cur.rest().starts_with(char::is_whitespace) {
        return Err(error_at(
            cur.line,
            op_at,
            "expected an infix operator with a space on each side",
        ));
    }
    let second = cur.operand()?;
    Ok((OpText::Op(call(op)), vec![first, second]))
}

#[cfg(test)]
mod tests;
