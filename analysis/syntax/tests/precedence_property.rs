//! A property test of the precedence table. Random expressions of a small numeric grammar
//! (`+ - * / // ^ < == && ||`, unary minus, negative literals, a literal coefficient `2x`,
//! ranges and `?:`) are printed twice: with only the parentheses Julia's precedence rules need,
//! and with every compound subexpression parenthesised, each with and without spaces around
//! the operators. Both must parse, without a diagnostic, to the tree the generator built. The
//! expected trees come from the manual's precedence table (loosest first: `?:`, `||`, `&&`,
//! comparisons, `:`, `+ -`, `* /`, `//`, unary minus and juxtaposition, `^`), written here by
//! hand, not from the parser.

use proptest::prelude::*;
use zy_syntax::tree::{parse, Sexp};

#[derive(Clone, Copy, Debug, PartialEq)]
enum Op {
    Or,
    And,
    Lt,
    Eq,
    Add,
    Sub,
    Mul,
    Div,
    Rational,
    Pow,
}

impl Op {
    fn text(self) -> &'static str {
        match self {
            Op::Or => "||",
            Op::And => "&&",
            Op::Lt => "<",
            Op::Eq => "==",
            Op::Add => "+",
            Op::Sub => "-",
            Op::Mul => "*",
            Op::Div => "/",
            Op::Rational => "//",
            Op::Pow => "^",
        }
    }

    fn level(self) -> u8 {
        match self {
            Op::Or => OR,
            Op::And => AND,
            Op::Lt | Op::Eq => COMPARISON,
            Op::Add | Op::Sub => SUM,
            Op::Mul | Op::Div => PRODUCT,
            Op::Rational => RATIONAL,
            Op::Pow => POWER,
        }
    }
}

// Precedence levels, loosest first.
const CONDITIONAL: u8 = 3;
const OR: u8 = 5;
const AND: u8 = 6;
const COMPARISON: u8 = 7;
const RANGE: u8 = 10;
const SUM: u8 = 11;
const PRODUCT: u8 = 12;
const RATIONAL: u8 = 13;
/// Unary minus, a negative literal and a literal coefficient (`2x`).
const UNARY: u8 = 14;
const POWER: u8 = 15;
const ATOM: u8 = 20;

#[derive(Clone, Debug)]
enum Term {
    Var(&'static str),
    /// A numeric literal, negative ones (`-2`) included.
    Lit(&'static str),
    /// A non-negative literal coefficient times a variable: `2x`.
    Juxt(&'static str, &'static str),
    Neg(Box<Term>),
    Bin(Op, Box<Term>, Box<Term>),
    /// `start:stop` or `start:step:stop`.
    Range(Box<Term>, Option<Box<Term>>, Box<Term>),
    Cond(Box<Term>, Box<Term>, Box<Term>),
}

impl Term {
    fn level(&self) -> u8 {
        match self {
            Term::Var(_) => ATOM,
            Term::Lit(text) if text.starts_with('-') => UNARY,
            Term::Lit(_) => ATOM,
            Term::Juxt(..) | Term::Neg(_) => UNARY,
            Term::Bin(op, ..) => op.level(),
            Term::Range(..) => RANGE,
            Term::Cond(..) => CONDITIONAL,
        }
    }
}

/// The expected tree, printed as `zy_syntax::tree::Sexp` prints it.
#[derive(Clone, Debug)]
enum Sx {
    Leaf(String),
    Node(&'static str, Vec<Sx>),
}

impl std::fmt::Display for Sx {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Sx::Leaf(text) => f.write_str(text),
            Sx::Node(head, children) => {
                write!(f, "({head}")?;
                for child in children {
                    write!(f, " {child}")?;
                }
                f.write_str(")")
            }
        }
    }
}

/// A printed term: its text, its expected tree, and whether a `:` (of a range or a `?:`)
/// appears outside parentheses (the middle of `?:` does not read ranges).
struct Out {
    text: String,
    sx: Sx,
    bare_colon: bool,
}

#[derive(Clone, Copy)]
struct Style {
    /// Parenthesise every compound subexpression.
    full: bool,
    /// Spaces around binary operators.
    spaced: bool,
}

fn leaf(text: &str) -> Sx {
    Sx::Leaf(text.to_string())
}

/// `term` as an operand: in parentheses if `needed` (or if every compound is parenthesised).
fn operand(term: &Term, needed: bool, style: Style) -> Out {
    let inner = render(term, style);
    if needed || (style.full && term.level() < ATOM) {
        Out {
            text: format!("({})", inner.text),
            sx: Sx::Node("parens", vec![inner.sx]),
            bare_colon: false,
        }
    } else {
        inner
    }
}

fn render(term: &Term, style: Style) -> Out {
    let plain = |text: String, sx: Sx| Out {
        text,
        sx,
        bare_colon: false,
    };
    match term {
        Term::Var(name) | Term::Lit(name) => plain(name.to_string(), leaf(name)),
        Term::Juxt(coefficient, name) => plain(
            format!("{coefficient}{name}"),
            Sx::Node("juxtapose", vec![leaf(coefficient), leaf(name)]),
        ),
        Term::Neg(inner) => {
            // `-2` would be a literal, `-(-x)` must not become `--x`; `-x^2` is `-(x^2)`.
            let needed = inner.level() < POWER || matches!(**inner, Term::Lit(_));
            let arg = operand(inner, needed, style);
            plain(
                format!("-{}", arg.text),
                Sx::Node("call-pre", vec![leaf("-"), arg.sx]),
            )
        }
        Term::Bin(op, left, right) => {
            let level = op.level();
            let (left_needed, right_needed) = match op {
                // Right-associative; any unary form on the left binds looser than `^`, and on
                // the right `^` takes a unary minus, a negative literal or `2x` whole.
                Op::Pow => (left.level() < ATOM, right.level() < UNARY),
                Op::Or | Op::And => (left.level() <= level, right.level() < level),
                Op::Lt | Op::Eq => (left.level() <= level, right.level() <= level),
                _ => (left.level() < level, right.level() <= level),
            };
            let l = operand(left, left_needed, style);
            let r = operand(right, right_needed, style);
            let text = if style.spaced {
                format!("{} {} {}", l.text, op.text(), r.text)
            } else if r.text.starts_with('-') && matches!(op, Op::Add | Op::Sub) {
                // `a--b` is an invalid operator.
                format!("{}{} {}", l.text, op.text(), r.text)
            } else {
                format!("{}{}{}", l.text, op.text(), r.text)
            };
            let sx = match op {
                Op::Or => Sx::Node("||", vec![l.sx, r.sx]),
                Op::And => Sx::Node("&&", vec![l.sx, r.sx]),
                _ => match l.sx {
                    // `a + b + c` and `a * b * c` are one call.
                    Sx::Node("call-i", mut args)
                        if matches!(op, Op::Add | Op::Mul)
                            && matches!(args.get(1), Some(Sx::Leaf(t)) if t == op.text()) =>
                    {
                        args.push(r.sx);
                        Sx::Node("call-i", args)
                    }
                    l_sx => Sx::Node("call-i", vec![l_sx, leaf(op.text()), r.sx]),
                },
            };
            Out {
                text,
                sx,
                bare_colon: l.bare_colon || r.bare_colon,
            }
        }
        Term::Range(start, step, stop) => {
            let part = |t: &Term| operand(t, t.level() <= RANGE, style);
            let a = part(start);
            let b = part(stop);
            let (text, sx) = match step {
                Some(step) => {
                    let s = part(step);
                    (
                        format!("{}:{}:{}", a.text, s.text, b.text),
                        Sx::Node("call-i", vec![a.sx, leaf(":"), s.sx, b.sx]),
                    )
                }
                None => (
                    format!("{}:{}", a.text, b.text),
                    Sx::Node("call-i", vec![a.sx, leaf(":"), b.sx]),
                ),
            };
            Out {
                text,
                sx,
                bare_colon: true,
            }
        }
        Term::Cond(cond, then, otherwise) => {
            let c = operand(cond, cond.level() <= CONDITIONAL, style);
            let then_plain = render(then, style);
            let t = operand(
                then,
                then.level() <= CONDITIONAL || then_plain.bare_colon,
                style,
            );
            let e = operand(otherwise, false, style);
            Out {
                text: format!("{} ? {} : {}", c.text, t.text, e.text),
                sx: Sx::Node("?", vec![c.sx, t.sx, e.sx]),
                bare_colon: true,
            }
        }
    }
}

fn op() -> impl Strategy<Value = Op> {
    prop::sample::select(vec![
        Op::Or,
        Op::And,
        Op::Lt,
        Op::Eq,
        Op::Add,
        Op::Sub,
        Op::Mul,
        Op::Div,
        Op::Rational,
        Op::Pow,
        // The arithmetic operators twice as often.
        Op::Add,
        Op::Sub,
        Op::Mul,
        Op::Div,
        Op::Pow,
    ])
}

fn term() -> impl Strategy<Value = Term> {
    let leaf = prop_oneof![
        prop::sample::select(vec!["a", "b", "x", "y"]).prop_map(Term::Var),
        prop::sample::select(vec!["2", "3", "1.5", "0.5", "-2", "-1.5"]).prop_map(Term::Lit),
        (
            prop::sample::select(vec!["2", "3", "1.5"]),
            prop::sample::select(vec!["x", "y"])
        )
            .prop_map(|(c, v)| Term::Juxt(c, v)),
    ];
    leaf.prop_recursive(5, 40, 3, |inner| {
        prop_oneof![
            2 => inner.clone().prop_map(|t| Term::Neg(Box::new(t))),
            6 => (op(), inner.clone(), inner.clone())
                .prop_map(|(op, l, r)| Term::Bin(op, Box::new(l), Box::new(r))),
            1 => (inner.clone(), prop::option::of(inner.clone()), inner.clone())
                .prop_map(|(a, s, b)| Term::Range(Box::new(a), s.map(Box::new), Box::new(b))),
            1 => (inner.clone(), inner.clone(), inner.clone())
                .prop_map(|(c, t, e)| Term::Cond(Box::new(c), Box::new(t), Box::new(e))),
        ]
    })
}

/// Parses `text` (one expression) and prints its tree, or the diagnostics.
fn parsed(text: &str) -> Result<String, String> {
    let parse = parse(text, None);
    if !parse.diagnostics.is_empty() {
        let messages: Vec<&str> = parse
            .diagnostics
            .iter()
            .map(|d| d.message.as_str())
            .collect();
        return Err(messages.join("; "));
    }
    match parse.root.children.as_slice() {
        [node] => Ok(Sexp { node, text }.to_string()),
        _ => Err("not one expression".to_string()),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// Inside brackets a space before a sign starts a new element (`[a -b]` is `hcat`), but
    /// not a space on both sides of a binary operator nor one after it (`[a - b]`, `[a- b]`).
    #[test]
    fn bracket_elements_split_at_spaces_only(rows in prop::collection::vec(
        prop::collection::vec(term(), 1..4), 1..3,
    )) {
        for spaced in [false, true] {
            let style = Style { full: false, spaced };
            let printed: Vec<Vec<Out>> = rows
                .iter()
                .map(|row| row.iter().map(|t| render(t, style)).collect())
                .collect();
            let text = format!(
                "[{}]",
                printed
                    .iter()
                    .map(|row| row.iter().map(|o| o.text.as_str()).collect::<Vec<_>>().join("  "))
                    .collect::<Vec<_>>()
                    .join("; ")
            );
            let row_sx = |row: &Vec<Out>| -> Vec<Sx> { row.iter().map(|o| o.sx.clone()).collect() };
            let sx = match printed.as_slice() {
                [row] if row.len() == 1 => Sx::Node("vect", row_sx(row)),
                [row] => Sx::Node("hcat", row_sx(row)),
                rows => Sx::Node(
                    "vcat",
                    rows.iter()
                        .map(|row| match row.as_slice() {
                            [single] => single.sx.clone(),
                            _ => Sx::Node("row", row_sx(row)),
                        })
                        .collect(),
                ),
            };
            prop_assert_eq!(parsed(&text), Ok(sx.to_string()), "{}", text);
        }
    }

    #[test]
    fn minimal_and_full_parentheses_give_the_tree_of_the_precedence_table(t in term()) {
        for full in [false, true] {
            for spaced in [false, true] {
                let out = render(&t, Style { full, spaced });
                prop_assert_eq!(parsed(&out.text), Ok(out.sx.to_string()), "{}", out.text);
            }
        }
    }
}

/// A few printings checked by eye, so that the generator's rules are visible.
#[test]
fn the_printer_follows_the_table() {
    use Term::*;
    let b = Box::new;
    let minimal = Style {
        full: false,
        spaced: true,
    };
    let cases = [
        (
            Neg(b(Bin(Op::Pow, b(Lit("2")), b(Var("x"))))),
            "-2 ^ x",
            "(call-pre - (call-i 2 ^ x))",
        ),
        (
            Bin(Op::Pow, b(Lit("-2")), b(Neg(b(Var("x"))))),
            "(-2) ^ -x",
            "(call-i (parens -2) ^ (call-pre - x))",
        ),
        (
            Bin(Op::Pow, b(Var("a")), b(Juxt("2", "x"))),
            "a ^ 2x",
            "(call-i a ^ (juxtapose 2 x))",
        ),
        (
            Bin(
                Op::Sub,
                b(Bin(
                    Op::Add,
                    b(Bin(Op::Add, b(Var("a")), b(Var("b")))),
                    b(Var("x")),
                )),
                b(Bin(Op::Sub, b(Var("x")), b(Var("y")))),
            ),
            "a + b + x - (x - y)",
            "(call-i (call-i a + b x) - (parens (call-i x - y)))",
        ),
        (
            Cond(
                b(Var("a")),
                b(Range(b(Var("x")), None, b(Var("y")))),
                b(Range(b(Lit("-2")), Some(b(Lit("2"))), b(Var("b")))),
            ),
            "a ? (x:y) : -2:2:b",
            "(? a (parens (call-i x : y)) (call-i -2 : 2 b))",
        ),
    ];
    for (term, text, sx) in cases {
        let out = render(&term, minimal);
        assert_eq!(out.text, text);
        assert_eq!(out.sx.to_string(), sx);
        assert_eq!(parsed(text), Ok(sx.to_string()));
    }
}
