//! Julia's reading of arithmetic, for the differential tests of zy's parser (issue 17): a
//! generator of expression texts, and a reference evaluator that reads such a text with its
//! own tokenizer and its own precedence-climbing parser implementing Julia's documented rules
//! directly (the manual's operator precedence and numeric literal coefficients, JuliaSyntax's
//! signed literals and juxtaposition, whitespace-sensitive brackets), independent of zy's
//! parser. Only the arithmetic kernels (`zy_interp::eval_prim`) are zy's, so that values agree
//! to the bit; the derivative with respect to `x` comes from dual numbers. [`check_batch`]
//! runs texts through `zy-ide` and compares. Used by `tests/differential.rs` and by the `arith`
//! fuzz target.

use std::path::Path;

use zy_ide::{AnalysisHost, Engine, EvalLimits, EvalResult};
use zy_interp::{eval_prim, Value};
use zy_ir::{Prim, Type};

// ---- The generator.

/// A random expression tree; only a device to produce varied text: what the text means is
/// what the reference evaluator reads in it, whatever the tree intended.
#[derive(Clone, Debug)]
pub enum Gen {
    Lit(&'static str),
    Name(&'static str),
    /// `-e`, `+e`, `√e`.
    Unary(&'static str, Box<Gen>),
    /// `a op b` for `+ - * /`.
    Bin(&'static str, Box<Gen>, Box<Gen>),
    Pow(Box<Gen>, Box<Gen>),
    /// `ab` with nothing between: `2x`, `2(x+1)`, `(x-1)y`, `2√x`.
    Juxt(Box<Gen>, Box<Gen>),
    Paren(Box<Gen>),
}

/// The literals and names the generator uses.
pub const LITERALS: [&str; 3] = ["2", "0.5", "1e-3"];
/// The argument names of the generated functions.
pub const NAMES: [&str; 2] = ["x", "y"];

impl Gen {
    /// An expression decided by `bytes` (a fuzzer's input), at most `depth` deep; when the
    /// bytes run out, the rest are leaves.
    pub fn from_bytes(bytes: &mut impl Iterator<Item = u8>, depth: u32) -> Gen {
        let b = bytes.next().unwrap_or(0);
        let pick = |i: u8, list: &[&'static str]| list[i as usize % list.len()];
        if depth == 0 || b < 64 {
            return if b.is_multiple_of(2) {
                Gen::Lit(pick(b / 2, &LITERALS))
            } else {
                Gen::Name(pick(b / 2, &NAMES))
            };
        }
        let sub = |bytes: &mut _| Box::new(Gen::from_bytes(bytes, depth - 1));
        match b % 5 {
            0 => Gen::Unary(pick(b / 5, &["-", "+", "√"]), sub(bytes)),
            1 => {
                let op = pick(b / 5, &["+", "-", "*", "/"]);
                let a = sub(bytes);
                Gen::Bin(op, a, sub(bytes))
            }
            2 => {
                let a = sub(bytes);
                Gen::Pow(a, sub(bytes))
            }
            3 => {
                let a = sub(bytes);
                Gen::Juxt(a, sub(bytes))
            }
            _ => Gen::Paren(sub(bytes)),
        }
    }
}

/// Renders `g` as valid Julia text; `spaces` (consumed as needed) decides the optional
/// whitespace around binary operators, after prefix operators and inside parentheses, where
/// Julia's meaning outside brackets does not depend on it.
pub fn render(g: &Gen, spaces: &mut impl Iterator<Item = bool>) -> String {
    fn space(spaces: &mut impl Iterator<Item = bool>) -> &'static str {
        if spaces.next().unwrap_or(false) {
            " "
        } else {
            ""
        }
    }
    match g {
        Gen::Lit(s) | Gen::Name(s) => s.to_string(),
        Gen::Unary(op, e) => {
            let inner = render(e, spaces);
            // `--` and `++` would be other tokens.
            let gap = if inner.starts_with(['-', '+']) {
                " "
            } else {
                space(spaces)
            };
            format!("{op}{gap}{inner}")
        }
        Gen::Bin(op, a, b) => {
            let (left, right) = (render(a, spaces), render(b, spaces));
            let before = space(spaces);
            let after = if right.starts_with(['-', '+']) {
                " "
            } else {
                space(spaces)
            };
            format!("{left}{before}{op}{after}{right}")
        }
        Gen::Pow(a, b) => {
            let (base, exponent) = (render(a, spaces), render(b, spaces));
            let before = space(spaces);
            let after = space(spaces);
            format!("{base}{before}^{after}{exponent}")
        }
        Gen::Juxt(a, b) => {
            let mut left = render(a, spaces);
            let mut right = render(b, spaces);
            // The coefficient must end with a number or `)`, the factor start with a name,
            // `(` or `√` (a name before `(` would be a call).
            if !left.ends_with(|c: char| c.is_ascii_digit() || c == ')') {
                left = format!("({left})");
            }
            if !right.starts_with(['x', 'y', '(', '√']) {
                right = format!("({right})");
            }
            // `(x)(y)` is a call of `(x)` (an error); keep a few of them, write most as `*`.
            if left.ends_with(')') && right.starts_with('(') && !spaces.next().unwrap_or(false) {
                return format!("{left}*{right}");
            }
            format!("{left}{right}")
        }
        Gen::Paren(e) => {
            let inner = render(e, spaces);
            let (open, close) = (space(spaces), space(spaces));
            format!("({open}{inner}{close})")
        }
    }
}

// ---- The reference evaluator.

#[derive(Clone, Copy, PartialEq, Debug)]
enum Tk {
    Num,
    Name,
    Op(char),
    Sqrt,
    LParen,
    RParen,
    /// `;` (a row separator in a matrix literal).
    Semi,
}

#[derive(Clone, Debug)]
struct Token {
    kind: Tk,
    text: String,
    /// Whitespace right before the token.
    ws_before: bool,
}

/// The reference's own tokenizer for the generated texts.
fn tokenize(text: &str) -> Vec<Token> {
    let chars: Vec<char> = text.chars().collect();
    let mut tokens = Vec::new();
    let mut i = 0;
    let mut ws = false;
    while i < chars.len() {
        let c = chars[i];
        if c == ' ' || c == '\n' {
            ws = true;
            i += 1;
            continue;
        }
        let start = i;
        let kind = if c.is_ascii_digit() {
            // `2`, `0.5`, `1e-3`.
            i += 1;
            while i < chars.len()
                && (chars[i].is_ascii_digit()
                    || chars[i] == '.'
                    || chars[i] == 'e'
                    || (chars[i] == '-' && chars[i - 1] == 'e'))
            {
                i += 1;
            }
            Tk::Num
        } else if c.is_ascii_alphabetic() {
            while i < chars.len() && chars[i].is_ascii_alphanumeric() {
                i += 1;
            }
            Tk::Name
        } else {
            i += 1;
            match c {
                '√' => Tk::Sqrt,
                '(' => Tk::LParen,
                ')' => Tk::RParen,
                ';' => Tk::Semi,
                c => Tk::Op(c),
            }
        };
        tokens.push(Token {
            kind,
            text: chars[start..i].iter().collect(),
            ws_before: ws,
        });
        ws = false;
    }
    tokens
}

/// A value of the reference: zy's runtime value, its derivative with respect to `x`, a bound
/// on the magnitude of the terms summed into that derivative (for the tolerance), and
/// whether it is an integer literal as written (for Julia's `literal_pow`).
#[derive(Clone, Debug)]
pub struct Dual {
    pub v: Value,
    pub d: f64,
    pub mag: f64,
    literal: bool,
    /// A number literal as written, maybe in parentheses: `(2)(3)` multiplies, while any
    /// other parenthesized value before `(` is called (`(x)(2)`, an error).
    number: bool,
    /// A parenthesized group.
    grouped: bool,
}

/// Why the reference has no value: a Julia error.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    Error(String),
}

/// The reference's reading of a text: its value, or why it has none.
pub type R = Result<Dual, Outcome>;

struct Reader<'a> {
    tokens: &'a [Token],
    at: usize,
    x: f64,
    y: f64,
}

/// A number as a Float64 (NaN for anything else).
pub fn f64_of(v: &Value) -> f64 {
    match v {
        Value::F64(f) => *f,
        Value::Int(i) => *i as f64,
        _ => f64::NAN,
    }
}

fn prim(p: Prim, args: &[Value], ret: Type) -> Result<Value, Outcome> {
    eval_prim(p, args, &ret).map_err(Outcome::Error)
}

fn result_type(a: &Value, b: &Value) -> Type {
    match (a, b) {
        (Value::Int(_), Value::Int(_)) => Type::Int64,
        _ => Type::Float64,
    }
}

impl Reader<'_> {
    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.at)
    }

    fn peek_kind(&self) -> Option<Tk> {
        self.peek().map(|t| t.kind)
    }

    fn next(&mut self) -> Option<Token> {
        let t = self.tokens.get(self.at).cloned();
        self.at += 1;
        t
    }

    /// The kind of the last token read.
    fn prev_kind(&self) -> Option<Tk> {
        self.at
            .checked_sub(1)
            .and_then(|i| self.tokens.get(i))
            .map(|t| t.kind)
    }

    /// Binary `+ -` (left, loosest) and `* /` (left), by precedence climbing.
    fn expr(&mut self, min: u8) -> R {
        let mut lhs = self.juxtaposition()?;
        loop {
            let prec = match self.peek_kind() {
                Some(Tk::Op('+' | '-')) => 1,
                Some(Tk::Op('*' | '/')) => 2,
                _ => break,
            };
            if prec < min {
                break;
            }
            let op = self.next().map(|t| t.text).unwrap_or_default();
            let rhs = self.expr(prec + 1)?;
            lhs = binary(&op, lhs, rhs)?;
        }
        Ok(lhs)
    }

    /// Juxtaposition: a prefix-operator term, then factors written directly after it, each
    /// multiplying (`2x^2` is `2*(x^2)`, `(x-1)y`, `2√x`). It binds tighter than `*` and `/`
    /// (`1/2x` is `1/(2x)`) and looser than `^` and the prefix operators (`-2x` is `(-2)x`).
    fn juxtaposition(&mut self) -> R {
        let mut acc = self.unary()?;
        while let Some(t) = self.peek() {
            let adjacent = !t.ws_before;
            let after_value = matches!(self.prev_kind(), Some(Tk::Num | Tk::Name | Tk::RParen));
            let factor_start = matches!(t.kind, Tk::Name | Tk::LParen | Tk::Sqrt);
            if !(adjacent && after_value && factor_start) {
                break;
            }
            // A radical after a coefficient is a prefix term (`2√x`); otherwise a factor.
            let rhs = if t.kind == Tk::Sqrt {
                self.unary()?
            } else {
                self.factor()?
            };
            acc = binary("*", acc, rhs)?;
        }
        Ok(acc)
    }

    /// Prefix `-`, `+`, `√` (their operand is a prefix term or a power, without
    /// juxtaposition: `-x^2` is `-(x^2)`), and signed literals: `-2` directly followed by
    /// digits is one literal unless `^` follows it (`-2^2` is `-(2^2)`).
    fn unary(&mut self) -> R {
        match self.peek_kind() {
            Some(Tk::Op(op @ ('-' | '+'))) => {
                let number_next = self
                    .tokens
                    .get(self.at + 1)
                    .is_some_and(|t| t.kind == Tk::Num && !t.ws_before);
                let power_after = self
                    .tokens
                    .get(self.at + 2)
                    .is_some_and(|t| t.kind == Tk::Op('^'));
                self.next();
                if number_next && !power_after {
                    let mut lit = self.number()?;
                    if op == '-' {
                        let ty = if matches!(lit.v, Value::Int(_)) {
                            Type::Int64
                        } else {
                            Type::Float64
                        };
                        lit.v = prim(Prim::Neg, &[lit.v], ty)?;
                    }
                    return Ok(lit);
                }
                let arg = self.unary()?;
                if op == '+' {
                    return Ok(Dual {
                        literal: false,
                        number: false,
                        grouped: false,
                        ..arg
                    });
                }
                let ty = if matches!(arg.v, Value::Int(_)) {
                    Type::Int64
                } else {
                    Type::Float64
                };
                Ok(Dual {
                    v: prim(Prim::Neg, &[arg.v], ty)?,
                    d: -arg.d,
                    mag: arg.mag,
                    literal: false,
                    number: false,
                    grouped: false,
                })
            }
            Some(Tk::Sqrt) => {
                self.next();
                let arg = self.unary()?;
                let v = prim(Prim::Sqrt, &[arg.v], Type::Float64)?;
                let s = f64_of(&v);
                // At `√0` the local derivative is infinite: reverse mode gets `Inf * 0`
                // there (NaN, as Zygote does), forward mode 0; not compared.
                let d = if s == 0.0 {
                    f64::NAN
                } else if arg.d == 0.0 {
                    0.0
                } else {
                    arg.d / (2.0 * s)
                };
                let mag = if arg.d == 0.0 {
                    0.0
                } else {
                    arg.mag / (2.0 * s.abs())
                };
                Ok(Dual {
                    v,
                    d,
                    mag,
                    literal: false,
                    number: false,
                    grouped: false,
                })
            }
            _ => self.factor(),
        }
    }

    /// An atom and a right-associative power whose exponent is a juxtaposition
    /// (`2^3x` is `2^(3x)`) and may start with a prefix operator (`2^-x`).
    fn factor(&mut self) -> R {
        let base = self.atom()?;
        if self.prev_kind() == Some(Tk::RParen)
            && !base.number
            && self
                .peek()
                .is_some_and(|t| t.kind == Tk::LParen && !t.ws_before)
        {
            // `(x)(2)` calls the value of `(x)`.
            return Err(Outcome::Error(format!(
                "MethodError: objects of type {} are not callable",
                if matches!(base.v, Value::Int(_)) {
                    "Int64"
                } else {
                    "Float64"
                }
            )));
        }
        if self.peek_kind() == Some(Tk::Op('^')) {
            self.next();
            let exponent = self.exponent()?;
            return power(base, exponent);
        }
        Ok(base)
    }

    fn exponent(&mut self) -> R {
        let e = self.juxtaposition()?;
        if self.peek_kind() == Some(Tk::Op('^')) {
            self.next();
            let rest = self.exponent()?;
            return power(e, rest);
        }
        Ok(e)
    }

    fn atom(&mut self) -> R {
        match self.peek_kind() {
            Some(Tk::Num) => self.number(),
            Some(Tk::Name) => {
                let name = self.next().map(|t| t.text).unwrap_or_default();
                let (v, d) = if name == "x" {
                    (self.x, 1.0)
                } else {
                    (self.y, 0.0)
                };
                Ok(Dual {
                    v: Value::F64(v),
                    d,
                    mag: d.abs(),
                    literal: false,
                    number: false,
                    grouped: false,
                })
            }
            Some(Tk::LParen) => {
                self.next();
                let inner = self.expr(1)?;
                self.next();
                // `(2)` stays a number before `(`; `((2))` does not (Julia's parser looks
                // through one pair of parentheses), nor does anything else.
                Ok(Dual {
                    number: inner.number && !inner.grouped,
                    grouped: true,
                    ..inner
                })
            }
            other => Err(Outcome::Error(format!("reference: unexpected {other:?}"))),
        }
    }

    fn number(&mut self) -> R {
        let text = self.next().map(|t| t.text).unwrap_or_default();
        let v = match text.parse::<i64>() {
            Ok(i) => Value::Int(i),
            Err(_) => Value::F64(text.parse().unwrap_or(f64::NAN)),
        };
        Ok(Dual {
            literal: matches!(v, Value::Int(_)),
            v,
            d: 0.0,
            mag: 0.0,
            number: true,
            grouped: false,
        })
    }
}

fn binary(op: &str, a: Dual, b: Dual) -> R {
    let (p, ty) = match op {
        "+" => (Prim::Add, result_type(&a.v, &b.v)),
        "-" => (Prim::Sub, result_type(&a.v, &b.v)),
        "*" => (Prim::Mul, result_type(&a.v, &b.v)),
        _ => (Prim::Div, Type::Float64),
    };
    let v = prim(p, &[a.v.clone(), b.v.clone()], ty)?;
    let (x, y) = (f64_of(&a.v), f64_of(&b.v));
    let (d, mag) = match p {
        Prim::Add => (a.d + b.d, a.mag + b.mag),
        Prim::Sub => (a.d - b.d, a.mag + b.mag),
        Prim::Mul => (
            a.d * y + x * b.d,
            term(a.mag, y.abs()) + term(x.abs(), b.mag),
        ),
        _ if y == 0.0 => (f64::NAN, 0.0),
        _ => (
            a.d / y - x * b.d / (y * y),
            term(a.mag, 1.0 / y.abs()) + term(x.abs() / (y * y), b.mag),
        ),
    };
    Ok(Dual {
        v,
        d,
        mag,
        literal: false,
        number: false,
        grouped: false,
    })
}

/// `a * b` where a zero factor makes the term zero (no `0 * Inf` NaN in the bound).
fn term(a: f64, b: f64) -> f64 {
    if a == 0.0 || b == 0.0 {
        0.0
    } else {
        a * b
    }
}

fn power(base: Dual, exponent: Dual) -> R {
    let v = match (&base.v, &exponent.v) {
        // Julia's `literal_pow`: a negative literal exponent of an integer gives a Float64
        // (`inv(x)` for -1, `inv(x)^2` for -2, `Float64(x)^p` below); a Float64 to the literal
        // power -1 is `inv(x)`.
        (Value::Int(x), Value::Int(n)) if exponent.literal && *n < 0 => {
            let i = 1.0 / *x as f64;
            match n {
                -1 => Value::F64(i),
                -2 => Value::F64(i * i),
                _ => prim(
                    Prim::Pow,
                    &[Value::F64(*x as f64), Value::Int(*n)],
                    Type::Float64,
                )?,
            }
        }
        (Value::F64(x), Value::Int(-1)) if exponent.literal => Value::F64(1.0 / x),
        (Value::Int(_), Value::Int(_)) => prim(
            Prim::Pow,
            &[base.v.clone(), exponent.v.clone()],
            Type::Int64,
        )?,
        _ => prim(
            Prim::Pow,
            &[base.v.clone(), exponent.v.clone()],
            Type::Float64,
        )?,
    };
    let (x, n) = (f64_of(&base.v), f64_of(&exponent.v));
    let value = f64_of(&v);
    // d(x^n) = n x^(n-1) dx + x^n log(x) dn, each term only where its differential is not 0.
    let (mut d, mut mag) = (0.0, 0.0);
    // Where a local derivative is not finite (`0^-0.5`) the two modes differ (see `√`).
    let k = n * x.powf(n - 1.0);
    if !k.is_finite() {
        d = f64::NAN;
    } else if base.d != 0.0 {
        d += k * base.d;
        mag += term(k.abs(), base.mag);
    }
    if exponent.d != 0.0 {
        let k = value * x.ln();
        d += k * exponent.d;
        mag += term(k.abs(), exponent.mag);
    }
    Ok(Dual {
        v,
        d,
        mag,
        literal: false,
        number: false,
        grouped: false,
    })
}

/// Julia's value (and derivative in `x`) of `text` at `x`, `y`.
pub fn reference(text: &str, x: f64, y: f64) -> R {
    let tokens = tokenize(text);
    let mut reader = Reader {
        tokens: &tokens,
        at: 0,
        x,
        y,
    };
    let value = reader.expr(1)?;
    if reader.at != tokens.len() {
        return Err(Outcome::Error(format!(
            "reference: trailing tokens in {text}"
        )));
    }
    Ok(value)
}

// ---- Comparison with zy.

/// A JSON number or SPEC's `"NaN"`, `"Inf"`, `"-Inf"`; `null` (no gradient) is 0.
pub fn json_f64(json: &serde_json::Value) -> Option<f64> {
    match json {
        serde_json::Value::Number(n) => n.as_f64(),
        serde_json::Value::String(s) => match s.as_str() {
            "NaN" => Some(f64::NAN),
            "Inf" => Some(f64::INFINITY),
            "-Inf" => Some(f64::NEG_INFINITY),
            _ => None,
        },
        serde_json::Value::Null => Some(0.0),
        _ => None,
    }
}

/// Equal to the bit (any NaN equals any NaN).
pub fn same_bits(a: f64, b: f64) -> bool {
    a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
}

/// Does zy's value `got` equal the reference value `want` (same type, same bits)?
fn same_value(got: &EvalResult, want: &Value) -> bool {
    match want {
        Value::Int(i) => got.ty == "Int64" && got.json.as_i64() == Some(*i),
        Value::F64(f) => {
            got.ty == "Float64" && json_f64(&got.json).is_some_and(|g| same_bits(g, *f))
        }
        _ => false,
    }
}

/// Runs every text as the body of a function of `x` and `y` in one file, and compares each
/// value (and the gradient in `x`) with the reference at `(x, y)`.
pub fn check_batch(texts: &[String], x: f64, y: f64) -> Result<(), String> {
    let file_text: String = texts
        .iter()
        .enumerate()
        .map(|(i, t)| format!("f{i}(x, y) = {t}\n"))
        .collect();
    let mut host = AnalysisHost::new();
    let file = host.set_file_text(Path::new("differential.jl"), file_text.clone());
    let analysis = host.analysis();
    let xs = zy_ir::julia_float(x);
    let ys = zy_ir::julia_float(y);
    for (i, text) in texts.iter().enumerate() {
        let want = reference(text, x, y);
        let call = format!("f{i}({xs}, {ys})");
        let got = analysis
            .grad(file, &call, EvalLimits::default(), Engine::Interp)
            .map_err(|_| "cancelled".to_string())?;
        let context = || format!("f(x, y) = {text} at x = {xs}, y = {ys}");
        match (&want, &got) {
            (Ok(want), Ok(got)) => {
                if !(same_value(got.value(), &want.v)) {
                    return Err(format!(
                        "{}: zy {} ({}), Julia {:?}",
                        context(),
                        got.value().display,
                        got.value().ty,
                        want.v
                    ));
                }
                let derivative = got.gradient().first().and_then(|g| json_f64(&g.json));
                let value_finite = f64_of(&want.v).is_finite();
                if value_finite && want.d.is_finite() && want.mag.is_finite() {
                    let d = derivative.unwrap_or(f64::NAN);
                    let tolerance = 1e-9 * (want.mag + want.d.abs()) + 1e-300;
                    // NaN from zy fails the comparison too.
                    let close = (d - want.d).abs() <= tolerance;
                    if !close {
                        return Err(format!(
                            "{}: d/dx zy {d}, Julia {} (tolerance {tolerance})",
                            context(),
                            want.d
                        ));
                    }
                }
            }
            (Err(Outcome::Error(e)), Err(zy)) => {
                // Both fail, for one of the expected reasons (zy finds an uncallable value
                // before running, Julia may meet a DomainError on the way to the call).
                let zy = zy.to_string();
                let expected = |m: &str| m.contains("DomainError") || m.contains("not callable");
                if !(expected(e) && expected(&zy)) {
                    return Err(format!("{}: zy {zy}, Julia {e}", context()));
                }
            }
            (Ok(want), Err(zy)) => {
                // zy's pullback of `x^p` takes `log(x)` for the derivative in `p`: a
                // DomainError for a negative base, where ChainRules uses `log(complex(x))`.
                // A divergence of the AD rules, not of the parser: the value must still agree.
                let value = analysis
                    .eval(file, &call, EvalLimits::default())
                    .map_err(|_| "cancelled".to_string())?;
                let known = zy.to_string().contains("log was called with a negative");
                if !(known && value.as_ref().is_ok_and(|v| same_value(v, &want.v))) {
                    return Err(format!(
                        "{}: zy fails ({zy}), Julia gives {:?}",
                        context(),
                        want.v
                    ));
                }
            }
            (Err(e), Ok(got)) => {
                return Err(format!(
                    "{}: zy gives {}, Julia fails ({e:?})",
                    context(),
                    got.value().display
                ))
            }
        }
    }
    Ok(())
}

// ---- Matrix literals.

/// Elements of matrix literals, some of them with the spacing that makes two elements of one
/// (`x -y`) or one of two (`x - y`).
pub const ELEMENTS: &[&str] = &[
    "x", "y", "1.0", "2", "0.5", "-x", "-1.0", "- x", "2x", "x^2", "(x+1)", "sin(x)", "x'",
    "x - y", "x -y", "x-y", "x- y", "x +1.0", "x + 1.0", "2x -0.5", "y*x", "y *x", "y * -x", "-2x",
    "(x)y", "√x",
];

/// The reference's reading of a matrix literal `[...]` (given without its brackets): rows
/// split at `;` and newlines, elements at whitespace, except around a binary operator: a
/// space before `+`/`-` with none after starts an element, as in Julia.
pub fn matrix_rows(inside: &str) -> Vec<Vec<String>> {
    let tokens = tokenize(&inside.replace('\n', ";"));
    let mut rows = vec![vec![String::new()]];
    let mut depth = 0;
    for (i, t) in tokens.iter().enumerate() {
        let prev = i.checked_sub(1).map(|p| &tokens[p]);
        let next = tokens.get(i + 1);
        let row = rows.last_mut().expect("one row at least");
        if depth == 0 && t.kind == Tk::Semi {
            rows.push(vec![String::new()]);
            continue;
        }
        // After a binary or prefix operator (not the postfix `'`) the element goes on.
        let after_operator =
            prev.is_some_and(|p| matches!(p.kind, Tk::Op(c) if c != '\'') || p.kind == Tk::Sqrt);
        let new_element = depth == 0
            && t.ws_before
            && prev.is_some_and(|p| p.kind != Tk::Semi)
            && !after_operator
            && match t.kind {
                Tk::Op('+' | '-') => next.is_some_and(|n| !n.ws_before),
                Tk::Op('\'') => false,
                Tk::Op(_) => false,
                _ => true,
            };
        if new_element {
            row.push(String::new());
        }
        match t.kind {
            Tk::LParen => depth += 1,
            Tk::RParen => depth -= 1,
            _ => {}
        }
        let element = row.last_mut().expect("one element at least");
        if t.ws_before && !element.is_empty() {
            element.push(' ');
        }
        element.push_str(&t.text);
    }
    rows
}

/// The reference value of one element (the adjoint of a number is the number; `sin` is the
/// only function).
pub fn element_value(text: &str, x: f64, y: f64) -> Option<f64> {
    let text = text
        .replace("x'", "x")
        .replace("sin(x)", &format!("({})", x.sin()));
    let value = reference(&text, x, y).ok()?;
    match value.v {
        Value::F64(f) => Some(f),
        Value::Int(i) => Some(i as f64),
        _ => None,
    }
}
