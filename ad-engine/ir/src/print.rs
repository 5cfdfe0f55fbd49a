//! The IR text format, in the paper's notation: blocks `#1`, values `%3`, block parameters as
//! `φ(#1 → x, #3 → %6)` nodes, types after `::`, source variable names as trailing comments.
//!
//! ```text
//! pow(%1::Float64, %2::Int64) :: Float64   # x, n
//! #1:
//!   br #2
//! #2:
//!   %3 = φ(#1 → 1.0, #3 → %5) :: Float64   # r
//!   ...
//! ```

use std::fmt::{self, Write};

use crate::func::{Block, Const, Function, Operand, Terminator, Value, ValueKind};
use crate::ops::{Op, Prim};
use crate::types::Type;

/// Format a Float64 the way Julia's `show` does: shortest round-trip digits, always with a
/// decimal point, scientific notation outside `1e-5 < |x| < 1e6`, `NaN`, `Inf`, `-Inf`.
pub fn julia_float(x: f64) -> String {
    if x.is_nan() {
        return "NaN".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "Inf".into() } else { "-Inf".into() };
    }
    if x == 0.0 {
        return if x.is_sign_negative() { "-0.0".into() } else { "0.0".into() };
    }
    // `{:e}` gives the shortest round-trip digits as `d.ddde±x`.
    let sci = format!("{x:e}");
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let (sign, mantissa) = match mantissa.strip_prefix('-') {
        Some(m) => ("-", m),
        None => ("", mantissa),
    };
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    if exp > -5 && exp < 6 {
        let point = exp + 1; // position of the decimal point within the digits
        let s = if point <= 0 {
            format!("0.{}{}", "0".repeat((-point) as usize), digits)
        } else if point as usize >= digits.len() {
            format!("{}{}.0", digits, "0".repeat(point as usize - digits.len()))
        } else {
            format!("{}.{}", &digits[..point as usize], &digits[point as usize..])
        };
        format!("{sign}{s}")
    } else {
        let (head, tail) = digits.split_at(1);
        let tail = if tail.is_empty() { "0" } else { tail };
        format!("{sign}{head}.{tail}e{exp}")
    }
}

impl fmt::Display for Const {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Const::F64(b) => f.write_str(&julia_float(f64::from_bits(*b))),
            Const::Int(i) => write!(f, "{i}"),
            Const::Bool(b) => write!(f, "{b}"),
            Const::Nothing => f.write_str("nothing"),
            Const::Symbol(s) => write!(f, ":{s}"),
            Const::Str(s) => write!(f, "{s:?}"),
            Const::Func(n) => f.write_str(n),
            Const::Tuple(cs) => {
                f.write_str("(")?;
                for (i, c) in cs.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{c}")?;
                }
                if cs.len() == 1 {
                    f.write_str(",")?;
                }
                f.write_str(")")
            }
        }
    }
}

impl fmt::Display for Operand {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Operand::Value(v) => write!(f, "{v}"),
            Operand::Const(c) => write!(f, "{c}"),
        }
    }
}

impl fmt::Display for Function {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&print_function(self))
    }
}

/// Print a function in the paper's notation.
pub fn print_function(func: &Function) -> String {
    let mut out = String::new();
    let typed = func.ret != Type::Any;
    // Header.
    let _ = write!(out, "{}(", func.name);
    for (i, &a) in func.args().iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        let _ = write!(out, "{a}");
        if typed {
            let _ = write!(out, "::{}", func.ty(a));
        }
    }
    out.push(')');
    if typed {
        let _ = write!(out, " :: {}", func.ret);
    }
    if !func.arg_names.is_empty() {
        let _ = write!(out, "   # {}", func.arg_names.join(", "));
    }
    out.push('\n');

    let incoming = incoming_edges(func);
    for b in func.block_ids() {
        let data = func.block(b);
        let _ = writeln!(out, "{b}:");
        if b != Block::ENTRY {
            for (i, &p) in data.params.iter().enumerate() {
                let mut rhs = String::from("φ(");
                for (j, (pred, args)) in incoming[b.index()].iter().enumerate() {
                    if j > 0 {
                        rhs.push_str(", ");
                    }
                    match args.get(i) {
                        Some(a) => {
                            let _ = write!(rhs, "{pred} → {a}");
                        }
                        None => {
                            let _ = write!(rhs, "{pred} → ?");
                        }
                    }
                }
                rhs.push(')');
                line(&mut out, func, p, &rhs, typed);
            }
        }
        for &v in &data.stmts {
            let rhs = match &func.value(v).kind {
                ValueKind::Stmt(s) => stmt_rhs(&s.op, &s.args),
                ValueKind::Param { .. } => String::from("?"),
            };
            line(&mut out, func, v, &rhs, typed);
        }
        let _ = writeln!(out, "  {}", term_text(&data.term));
    }
    out
}

/// `(predecessor, branch arguments)` for each block, in predecessor order.
fn incoming_edges(func: &Function) -> Vec<Vec<(Block, Vec<Operand>)>> {
    let mut incoming = vec![Vec::new(); func.blocks.len()];
    for b in func.block_ids() {
        for call in func.block(b).term.calls() {
            incoming[call.block.index()].push((b, call.args.clone()));
        }
    }
    incoming
}

fn line(out: &mut String, func: &Function, v: Value, rhs: &str, typed: bool) {
    let data = func.value(v);
    let mut text = format!("  {v} = {rhs}");
    if typed {
        let _ = write!(text, " :: {}", data.ty);
    }
    if let Some(name) = &data.name {
        let pad = 40usize.saturating_sub(text.chars().count()).max(1);
        text.push_str(&" ".repeat(pad));
        let _ = write!(text, "# {name}");
    }
    out.push_str(&text);
    out.push('\n');
}

fn args_text(args: &[Operand]) -> String {
    args.iter().map(|a| a.to_string()).collect::<Vec<_>>().join(", ")
}

const INFIX_CALLS: &[&str] = &[
    "+", "-", "*", "/", "÷", "%", "^", "<", "<=", ">", ">=", "==", "!=", ".+", ".-", ".*", "./",
    ".^",
];

/// The right-hand side of a statement.
pub fn stmt_rhs(op: &Op, args: &[Operand]) -> String {
    match op {
        Op::Prim(Prim::Neg) if args.len() == 1 => format!("-{}", args[0]),
        Op::Prim(Prim::Not) if args.len() == 1 => format!("!{}", args[0]),
        Op::Prim(p) if p.is_infix() && args.len() == 2 => {
            format!("{} {} {}", args[0], p.julia_name(), args[1])
        }
        Op::Prim(p) => format!("{}({})", p.julia_name(), args_text(args)),
        Op::Call(n) if args.len() == 2 && INFIX_CALLS.contains(&&**n) => {
            format!("{} {} {}", args[0], n, args[1])
        }
        Op::Call(n) if args.len() == 1 && (&**n == "-" || &**n == "!") => format!("{n}{}", args[0]),
        Op::Call(n) => format!("{n}({})", args_text(args)),
        Op::CallValue => match args.split_first() {
            Some((callee, rest)) => format!("{callee}({})", args_text(rest)),
            None => String::from("?()"),
        },
        Op::Closure(n) => format!("closure var\"{n}\"({})", args_text(args)),
        Op::Global(n) => format!("global {n}"),
        Op::New(st) => format!("new {st}({})", args_text(args)),
        Op::Invoke(inst) => format!("invoke {}({})", inst.name, args_text(args)),
    }
}

fn call_text(c: &crate::func::BlockCall) -> String {
    // Arguments are shown in the target's φ nodes; the jump itself shows only the target.
    format!("{}", c.block)
}

fn term_text(t: &Terminator) -> String {
    match t {
        Terminator::Return(x) => format!("return {x}"),
        Terminator::Jump(c) => format!("br {}", call_text(c)),
        Terminator::Branch { cond, then_to, else_to } => {
            format!("br {cond} ? {} : {}", call_text(then_to), call_text(else_to))
        }
        Terminator::Unreachable => String::from("unreachable"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_print_like_julia() {
        let cases = [
            (1.0, "1.0"),
            (0.5, "0.5"),
            (-2.25, "-2.25"),
            (0.0001, "0.0001"),
            (1e-5, "1.0e-5"),
            (999999.0, "999999.0"),
            (1e6, "1.0e6"),
            (1234567.0, "1.234567e6"),
            (0.1 + 0.2, "0.30000000000000004"),
            (f64::NAN, "NaN"),
            (f64::NEG_INFINITY, "-Inf"),
            (-0.0, "-0.0"),
            (3.0e-300, "3.0e-300"),
            (100.0, "100.0"),
        ];
        for (x, want) in cases {
            assert_eq!(julia_float(x), want, "{x:e}");
        }
    }
}
