//! Differential tests of the parser (issue 17): random arithmetic expressions and matrix
//! literals, evaluated by zy for real (the body of `f(x, y) = ...` run through `zy-ide`'s
//! gradient) and by a reference evaluator written here. The reference reads the expression's
//! text with its own tokenizer and its own precedence-climbing parser that implements Julia's
//! documented rules directly (the manual's operator precedence and numeric literal
//! coefficients, JuliaSyntax's signed literals and juxtaposition, whitespace-sensitive
//! brackets); only the arithmetic kernels (`zy_interp::eval_prim`) are shared, so that values
//! agree to the bit. The derivative with respect to `x` is checked against the reference run
//! on dual numbers.

use std::path::Path;

use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use zy_ide::{AnalysisHost, Engine, EvalLimits, EvalResult};
use zy_interp::{eval_prim, Value};
use zy_ir::{Prim, Type};

// ---- The generator.

/// A random expression tree; only a device to produce varied text: what the text means is
/// what the reference evaluator reads in it, whatever the tree intended.
#[derive(Clone, Debug)]
enum Gen {
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

fn gen_expr() -> impl Strategy<Value = Gen> {
    let leaf = prop_oneof![
        prop::sample::select(vec!["2", "0.5", "1e-3"]).prop_map(Gen::Lit),
        prop::sample::select(vec!["x", "y"]).prop_map(Gen::Name),
    ];
    leaf.prop_recursive(5, 24, 2, |inner| {
        prop_oneof![
            (prop::sample::select(vec!["-", "+", "√"]), inner.clone())
                .prop_map(|(op, e)| Gen::Unary(op, Box::new(e))),
            (
                prop::sample::select(vec!["+", "-", "*", "/"]),
                inner.clone(),
                inner.clone()
            )
                .prop_map(|(op, a, b)| Gen::Bin(op, Box::new(a), Box::new(b))),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| Gen::Pow(Box::new(a), Box::new(b))),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| Gen::Juxt(Box::new(a), Box::new(b))),
            inner.prop_map(|e| Gen::Paren(Box::new(e))),
        ]
    })
}

/// Renders `g` as valid Julia text; `spaces` (consumed as needed) decides the optional
/// whitespace around binary operators, after prefix operators and inside parentheses, where
/// Julia's meaning outside brackets does not depend on it.
fn render(g: &Gen, spaces: &mut impl Iterator<Item = bool>) -> String {
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
struct Dual {
    v: Value,
    d: f64,
    mag: f64,
    literal: bool,
    /// A number literal as written, maybe in parentheses: `(2)(3)` multiplies, while any
    /// other parenthesized value before `(` is called (`(x)(2)`, an error).
    number: bool,
    /// A parenthesized group.
    grouped: bool,
}

/// Why the reference has no value: a Julia error, or a case the test leaves out.
#[derive(Clone, Debug, PartialEq)]
enum Outcome {
    Error(String),
    /// `2^-2`: Julia's `literal_pow` gives 0.25, zy's inference makes Int^Int an Int power
    /// (a DomainError). A known divergence outside the parser.
    Skip,
}

type R = Result<Dual, Outcome>;

struct Reader<'a> {
    tokens: &'a [Token],
    at: usize,
    x: f64,
    y: f64,
}

fn f64_of(v: &Value) -> f64 {
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
    if let (Value::Int(_), Value::Int(n)) = (&base.v, &exponent.v) {
        if exponent.literal && *n < 0 {
            return Err(Outcome::Skip);
        }
    }
    let ty = match (&base.v, &exponent.v) {
        (Value::Int(_), Value::Int(_)) => Type::Int64,
        _ => Type::Float64,
    };
    let v = prim(Prim::Pow, &[base.v.clone(), exponent.v.clone()], ty)?;
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
fn reference(text: &str, x: f64, y: f64) -> R {
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
fn json_f64(json: &serde_json::Value) -> Option<f64> {
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

fn same_bits(a: f64, b: f64) -> bool {
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
fn check_batch(texts: &[String], x: f64, y: f64) -> Result<(), TestCaseError> {
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
        if matches!(want, Err(Outcome::Skip)) {
            continue;
        }
        let call = format!("f{i}({xs}, {ys})");
        let got = analysis
            .grad(file, &call, EvalLimits::default(), Engine::Interp)
            .map_err(|_| TestCaseError::fail("cancelled"))?;
        let context = || format!("f(x, y) = {text} at x = {xs}, y = {ys}");
        match (&want, &got) {
            (Ok(want), Ok(got)) => {
                prop_assert!(
                    same_value(&got.value, &want.v),
                    "{}: zy {} ({}), Julia {:?}",
                    context(),
                    got.value.display,
                    got.value.ty,
                    want.v
                );
                let derivative = got.gradient.first().and_then(|g| json_f64(&g.json));
                let value_finite = f64_of(&want.v).is_finite();
                if value_finite && want.d.is_finite() && want.mag.is_finite() {
                    let d = derivative.unwrap_or(f64::NAN);
                    let tolerance = 1e-9 * (want.mag + want.d.abs()) + 1e-300;
                    prop_assert!(
                        (d - want.d).abs() <= tolerance,
                        "{}: d/dx zy {d}, Julia {} (tolerance {tolerance})",
                        context(),
                        want.d
                    );
                }
            }
            (Err(Outcome::Error(e)), Err(zy)) => {
                // Both fail, for one of the expected reasons (zy finds an uncallable value
                // before running, Julia may meet a DomainError on the way to the call).
                let zy = zy.to_string();
                let expected = |m: &str| m.contains("DomainError") || m.contains("not callable");
                prop_assert!(
                    expected(e) && expected(&zy),
                    "{}: zy {zy}, Julia {e}",
                    context()
                );
            }
            (Ok(want), Err(zy)) => {
                // zy's pullback of `x^p` takes `log(x)` for the derivative in `p`: a
                // DomainError for a negative base, where ChainRules uses `log(complex(x))`.
                // A divergence of the AD rules, not of the parser: the value must still agree.
                let value = analysis
                    .eval(file, &call, EvalLimits::default())
                    .map_err(|_| TestCaseError::fail("cancelled"))?;
                let known = zy.to_string().contains("log was called with a negative");
                prop_assert!(
                    known && value.as_ref().is_ok_and(|v| same_value(v, &want.v)),
                    "{}: zy fails ({zy}), Julia gives {:?}",
                    context(),
                    want.v
                );
            }
            (Err(e), Ok(got)) => {
                return Err(TestCaseError::fail(format!(
                    "{}: zy gives {}, Julia fails ({e:?})",
                    context(),
                    got.value.display
                )))
            }
            (Err(Outcome::Skip), Err(_)) => {}
        }
    }
    Ok(())
}

/// Points where both arguments are evaluated (negative ones exercise the DomainErrors).
fn point() -> impl Strategy<Value = (f64, f64)> {
    let values = vec![0.5, 1.3, 2.0, 3.7, 0.25, -0.7, -2.5];
    (
        prop::sample::select(values.clone()),
        prop::sample::select(values),
    )
}

#[test]
fn arithmetic_reads_as_julia_reads_it() {
    // 100 files of 50 expressions: 5,000 expressions, their values and derivatives.
    let mut runner = TestRunner::new(Config {
        cases: 100,
        failure_persistence: None,
        ..Config::default()
    });
    let batch = (
        prop::collection::vec((gen_expr(), prop::collection::vec(any::<bool>(), 64)), 50),
        point(),
    );
    let outcome = runner.run(&batch, |(exprs, (x, y))| {
        let texts: Vec<String> = exprs
            .iter()
            .map(|(g, spaces)| render(g, &mut spaces.iter().copied()))
            .collect();
        check_batch(&texts, x, y)
    });
    if let Err(e) = outcome {
        panic!("{e}");
    }
}

#[test]
fn the_issue_table_through_zy() {
    // Each of issue 17's misread expressions, with the value Julia gives (checked here
    // against the reference reading as well).
    let cases = [
        ("3-(x + 1.0)", 2.0, 0.0),
        ("0.5-(x)^2", 2.0, -3.5),
        ("2.0+(x+1.0)", 2.0, 5.0),
        ("-(x)^2", 1.7, -2.8899999999999997),
        ("√2x", 1.7, 2.4041630560342617),
        ("exp(1-(x))", 1.0, 1.0),
        ("10-(x)*(y)", 2.0, 8.0),
        ("1+(2)", 0.0, 3.0),
        ("0.5*(x)", 2.0, 1.0),
        ("1/(x)", 2.0, 0.5),
        ("2^(x)", 2.0, 4.0),
        ("(x-1)y", 3.0, 2.0),
        ("(2)(3)x", 2.0, 12.0),
        ("1√x", 4.0, 2.0),
        ("-(16x^2-24x+5)exp(-x)", 0.0, -5.0),
    ];
    let texts: Vec<String> = cases.iter().map(|c| c.0.to_string()).collect();
    let file_text: String = texts
        .iter()
        .enumerate()
        .map(|(i, t)| format!("f{i}(x, y) = {t}\n"))
        .collect();
    let mut host = AnalysisHost::new();
    let file = host.set_file_text(Path::new("issue.jl"), file_text);
    let analysis = host.analysis();
    for (i, (text, x, want)) in cases.iter().enumerate() {
        let call = format!("f{i}({}, 1.0)", zy_ir::julia_float(*x));
        let got = analysis
            .eval(file, &call, EvalLimits::default())
            .expect("not cancelled")
            .unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!(json_f64(&got.json), Some(*want), "{text} at x = {x}");
        if !text.contains("exp") {
            let reference = reference(text, *x, 1.0).expect("the reference reads it");
            assert!(
                same_bits(f64_of(&reference.v), *want),
                "{text}: {reference:?}"
            );
        }
    }
}

// ---- Matrix literals.

/// Elements of matrix literals, some of them with the spacing that makes two elements of one
/// (`x -y`) or one of two (`x - y`).
const ELEMENTS: &[&str] = &[
    "x", "y", "1.0", "2", "0.5", "-x", "-1.0", "- x", "2x", "x^2", "(x+1)", "sin(x)", "x'",
    "x - y", "x -y", "x-y", "x- y", "x +1.0", "x + 1.0", "2x -0.5", "y*x", "y *x", "y * -x", "-2x",
    "(x)y", "√x",
];

/// The reference's reading of a matrix literal `[...]` (given without its brackets): rows
/// split at `;` and newlines, elements at whitespace, except around a binary operator: a
/// space before `+`/`-` with none after starts an element, as in Julia.
fn matrix_rows(inside: &str) -> Vec<Vec<String>> {
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
fn element_value(text: &str, x: f64, y: f64) -> Option<f64> {
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

#[test]
fn matrix_literals_read_as_julia_reads_them() {
    let mut runner = TestRunner::new(Config {
        cases: 50,
        failure_persistence: None,
        ..Config::default()
    });
    let matrix = prop::collection::vec(
        prop::collection::vec(prop::sample::select(ELEMENTS), 2..4),
        1..4,
    );
    let separators = prop::collection::vec(prop::sample::select(vec![" ", "  "]), 12);
    let row_separators = prop::collection::vec(prop::sample::select(vec!["; ", ";", "\n "]), 4);
    let batch = (
        prop::collection::vec((matrix, separators, row_separators), 40),
        point(),
    );
    let outcome = runner.run(&batch, |(matrices, (x, y))| {
        let mut texts = Vec::new();
        for (rows, seps, row_seps) in &matrices {
            let mut seps = seps.iter().cycle();
            let mut row_seps = row_seps.iter().cycle();
            let inside = rows
                .iter()
                .map(|row| {
                    let mut text = String::new();
                    for (i, e) in row.iter().enumerate() {
                        if i > 0 {
                            text.push_str(seps.next().copied().unwrap_or(" "));
                        }
                        text.push_str(e);
                    }
                    text
                })
                .collect::<Vec<_>>();
            let mut joined = String::new();
            for (i, row) in inside.iter().enumerate() {
                if i > 0 {
                    joined.push_str(row_seps.next().copied().unwrap_or(";"));
                }
                joined.push_str(row);
            }
            let rows = matrix_rows(&joined);
            // Rows of different lengths are an error in Julia and in zy alike (checked
            // elsewhere); leave them out so that every function of the file loads.
            if rows.iter().any(|r| r.len() != rows[0].len()) {
                continue;
            }
            // A column of expressions (`[x - x; y]`, a Vector in Julia) is outside zy's subset
            // (only columns of literals are): reported by name, and left out here.
            if rows.len() > 1 && rows[0].len() == 1 {
                continue;
            }
            texts.push((format!("[{joined}]"), rows));
        }
        let file_text: String = texts
            .iter()
            .enumerate()
            .map(|(i, (t, _))| format!("m{i}(x, y) = {t}\n"))
            .collect();
        let mut host = AnalysisHost::new();
        let file = host.set_file_text(Path::new("matrices.jl"), file_text);
        let analysis = host.analysis();
        let (xs, ys) = (zy_ir::julia_float(x), zy_ir::julia_float(y));
        for (i, (text, rows)) in texts.iter().enumerate() {
            let want: Vec<Vec<Option<f64>>> = rows
                .iter()
                .map(|r| r.iter().map(|e| element_value(e, x, y)).collect())
                .collect();
            let got = analysis
                .eval(file, &format!("m{i}({xs}, {ys})"), EvalLimits::default())
                .map_err(|_| TestCaseError::fail("cancelled"))?;
            if want.iter().flatten().any(Option::is_none) {
                // An element fails (`√x` for a negative `x`): so must the literal.
                prop_assert!(
                    got.as_ref()
                        .is_err_and(|e| e.to_string().contains("DomainError")),
                    "{text} at x = {xs}, y = {ys}: zy gives {:?}, Julia fails",
                    got.map(|v| v.display)
                );
                continue;
            }
            let got = got.map_err(|e| {
                TestCaseError::fail(format!("{text} at x = {xs}, y = {ys}: zy fails: {e}"))
            })?;
            // `[a]` (one element) is a Vector, a flat array; anything else a Matrix.
            let is_vector = rows.len() == 1 && rows[0].len() == 1;
            let got_rows: Vec<Vec<Option<f64>>> = match got.json.as_array() {
                Some(elements) if is_vector => vec![elements.iter().map(json_f64).collect()],
                Some(rows) => rows
                    .iter()
                    .map(|r| {
                        r.as_array()
                            .map(|r| r.iter().map(json_f64).collect())
                            .unwrap_or_default()
                    })
                    .collect(),
                None => Vec::new(),
            };
            let same = got_rows.len() == want.len()
                && got_rows.iter().zip(&want).all(|(g, w)| {
                    g.len() == w.len()
                        && g.iter().zip(w).all(|(a, b)| match (a, b) {
                            (Some(a), Some(b)) => same_bits(*a, *b),
                            _ => false,
                        })
                });
            prop_assert!(
                same,
                "{text} at x = {xs}, y = {ys}: zy {} ({}), Julia {want:?} read as {rows:?}",
                got.display,
                got.ty
            );
        }
        Ok(())
    });
    if let Err(e) = outcome {
        panic!("{e}");
    }
}
