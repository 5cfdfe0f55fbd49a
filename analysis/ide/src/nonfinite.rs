//! Where a non-finite gradient came from. When a gradient holds NaN or ±Inf although the
//! arguments were finite, the gradient is run again in the interpreter under a [`Watch`] that
//! finds the first statement that made a non-finite value from finite operands: in the pullback
//! (a derivative that is infinite or undefined there) or in the forward pass (a primal that
//! overflowed), and the first statement after it that turned such a value into NaN. Finite
//! gradients never pay for it.

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::rc::Rc;

use zy_hir::{RootDatabase, SourceFile};
use zy_interp::{Step, Value, Watch};
use zy_ir::{Op, Operand, Prim, Span, TypedProgram, ValueKind};

/// The origin of a non-finite gradient: a location and what happened there.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct NonFinite {
    /// The file of the statement (`<call>` if it is in the call text).
    pub file: PathBuf,
    /// 1-based line.
    pub line: u32,
    /// 1-based column.
    pub col: u32,
    /// What the values were: "the derivative of `sqrt(x)` at sqrt(0.0) is not finite: ...".
    pub message: String,
    /// The statement's file and byte range, for diagnostics.
    pub(crate) range: (SourceFile, u32, u32),
}

impl NonFinite {
    /// `{"file", "line", "col", "message"}`.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "file": self.file.display().to_string(),
            "line": self.line,
            "col": self.col,
            "message": self.message,
        })
    }
}

impl std::fmt::Display for NonFinite {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write_note(f, &self.file, self.line, self.col, &self.message)
    }
}

/// `note: file:line:col: message`, the line `grad` prints for an explanation.
pub(crate) fn write_note(
    f: &mut std::fmt::Formatter<'_>,
    file: &std::path::Path,
    line: u32,
    col: u32,
    message: &str,
) -> std::fmt::Result {
    write!(f, "note: {}:{line}:{col}: {message}", file.display())
}

/// Whether every Float64 in `v` is finite: the test before the non-finite search, on every
/// gradient, so it allocates nothing and reads an array's floats in vectorisable chunks.
pub fn is_finite(v: &Value) -> bool {
    fn walk(v: &Value, seen: &mut HashSet<usize>) -> bool {
        // Shared objects (and cycles through them) are read once.
        let mut once = |p: usize| seen.insert(p);
        match v {
            Value::F64(x) => x.is_finite(),
            Value::Array(a) | Value::Adjoint(a) => match &a.borrow().data {
                zy_interp::ArrayData::F64(xs) => all_finite(xs),
                _ => true,
            },
            Value::Tuple(vs) | Value::NamedTuple(_, vs) | Value::Struct(_, vs) => {
                vs.iter().all(|x| walk(x, seen))
            }
            Value::Mutable(_, c) => {
                !once(Rc::as_ptr(c) as *const u8 as usize)
                    || c.borrow().iter().all(|x| walk(x, seen))
            }
            Value::Ref(c) => !once(Rc::as_ptr(c) as *const u8 as usize) || walk(&c.borrow(), seen),
            Value::Stack(s) => {
                !once(Rc::as_ptr(s) as *const u8 as usize)
                    || s.borrow().iter().all(|x| walk(x, seen))
            }
            _ => true,
        }
    }
    walk(v, &mut HashSet::new())
}

/// Whether every float of `xs` is finite (its exponent bits not all ones), by chunks whose
/// test has no branch per element.
fn all_finite(xs: &[f64]) -> bool {
    const EXPONENT: u64 = 0x7ff0_0000_0000_0000;
    xs.chunks(256).all(|c| {
        c.iter().fold(0u64, |any, x| {
            any | u64::from(x.to_bits() & EXPONENT == EXPONENT)
        }) == 0
    })
}

fn has_nan(v: &Value) -> bool {
    match v {
        Value::F64(x) => x.is_nan(),
        Value::Int(_) | Value::Bool(_) | Value::Nothing | Value::Func(_) | Value::Symbol(_) => {
            false
        }
        _ => v.float_leaves().iter().any(|x| x.is_nan()),
    }
}

/// One statement that made a value non-finite.
#[derive(Clone, Debug)]
struct Event {
    span: Span,
    /// `sqrt(0.0) = NaN`, with the operands as the statement saw them.
    what: String,
    /// Whether the statement computes a derivative (in a pullback, or a factor the forward
    /// pass keeps for it) rather than a primal value.
    derivative: bool,
}

/// Where non-finite values began, and the first statement after it that turned a non-finite
/// value into NaN.
struct Origin {
    born: Event,
    nan: Option<Event>,
}

/// A primal statement as it last ran: its call with the operands' values, its named operands,
/// and how many times it ran.
#[derive(Default)]
struct Primal {
    call: String,
    named: Vec<(String, String)>,
    runs: u64,
}

/// The watch of a gradient run: the first non-finite value born of finite operands, in the
/// primal computation and in the derivatives, the first NaN after them, and each primal
/// statement's last operands (by span) to say at which point a derivative was taken.
struct Hunt {
    /// The primitive statements of the user's (primal) functions: `(span, prim)`. The forward
    /// functions repeat them; any other statement there computes a derivative.
    primal: HashSet<(Span, Prim)>,
    /// Whether the current statement's operands are all finite / free of NaN.
    finite_in: bool,
    nan_in: bool,
    /// The first non-finite primal and the first non-finite derivative.
    forward: Option<Origin>,
    pullback: Option<Origin>,
    primal_runs: HashMap<Span, Primal>,
}

impl Hunt {
    fn new(program: &TypedProgram) -> Hunt {
        let primal = program
            .functions
            .values()
            .filter(|f| !zy_ad::names::is_generated(&f.name))
            .flat_map(|f| {
                f.values.iter().filter_map(|d| match &d.kind {
                    ValueKind::Stmt(s) => match s.op {
                        Op::Prim(p) => Some((d.span, p)),
                        _ => None,
                    },
                    _ => None,
                })
            })
            .collect();
        Hunt {
            primal,
            finite_in: true,
            nan_in: false,
            forward: None,
            pullback: None,
            primal_runs: HashMap::new(),
        }
    }

    fn is_derivative(&self, step: Step<'_>) -> bool {
        let name = &step.func.name;
        name.ends_with('⁻')
            || (zy_ad::names::is_generated(name) && !self.primal.contains(&(step.span, step.prim)))
    }

    fn event(&self, step: Step<'_>, args: &[Value], result: &Value) -> Event {
        Event {
            span: step.span,
            what: format!("{} = {}", call_text(step, args), describe(result)),
            derivative: self.is_derivative(step),
        }
    }
}

impl Watch for Hunt {
    fn before(&mut self, step: Step<'_>, args: &[Value]) {
        self.finite_in = args.iter().all(is_finite);
        self.nan_in = args.iter().any(has_nan);
        if self.pullback.is_none() && !self.is_derivative(step) {
            let p = self.primal_runs.entry(step.span).or_default();
            p.call = call_text(step, args);
            p.named = named_operands(step, args);
            p.runs += 1;
        }
    }

    fn after(&mut self, step: Step<'_>, args: &[Value], result: &Value) {
        if self.finite_in && !is_finite(result) {
            let e = self.event(step, args, result);
            let origin = if e.derivative {
                &mut self.pullback
            } else {
                &mut self.forward
            };
            if origin.is_none() {
                *origin = Some(Origin { born: e, nan: None });
                return;
            }
        }
        if self.nan_in || self.finite_in || !has_nan(result) {
            return;
        }
        let waiting = |o: &Option<Origin>| o.as_ref().is_some_and(|o| o.nan.is_none());
        if !waiting(&self.forward) && !waiting(&self.pullback) {
            return;
        }
        let e = self.event(step, args, result);
        for origin in [&mut self.forward, &mut self.pullback]
            .into_iter()
            .flatten()
        {
            if origin.nan.is_none() {
                origin.nan = Some(e.clone());
            }
        }
    }
}

/// `sqrt(0.0)`: the statement's primitive applied to its operands' values.
fn call_text(step: Step<'_>, args: &[Value]) -> String {
    let operands: Vec<String> = args.iter().map(describe).collect();
    format!("{}({})", step.prim.julia_name(), operands.join(", "))
}

/// The operands of `step` that are named locals: `(name, value)`.
fn named_operands(step: Step<'_>, args: &[Value]) -> Vec<(String, String)> {
    let Some(ValueKind::Stmt(stmt)) = step.func.values.get(step.value.index()).map(|d| &d.kind)
    else {
        return Vec::new();
    };
    stmt.args
        .iter()
        .zip(args)
        .filter_map(|(op, v)| match op {
            Operand::Value(x) => {
                let name = step.func.values.get(x.index())?.name.as_ref()?;
                Some((name.to_string(), describe(v)))
            }
            Operand::Const(_) => None,
        })
        .collect()
}

/// Whether `text` contains `name` as a whole word.
fn mentions(text: &str, name: &str) -> bool {
    let word = |c: char| c.is_alphanumeric() || c == '_' || c == '!';
    text.match_indices(name).any(|(i, _)| {
        text[..i].chars().next_back().is_none_or(|c| !word(c))
            && text[i + name.len()..]
                .chars()
                .next()
                .is_none_or(|c| !word(c))
    })
}

/// A value as a message shows it: Julia's `show` when short, else its summary and its first
/// non-finite element.
pub(crate) fn describe(v: &Value) -> String {
    let shown = zy_interp::show(v);
    if shown.chars().count() <= 40 {
        return shown;
    }
    let summary = zy_interp::summary(v);
    match v
        .float_leaves()
        .iter()
        .enumerate()
        .find(|(_, x)| !x.is_finite())
    {
        Some((i, x)) => format!("{summary} with {} at [{}]", show_f64(*x), i + 1),
        None => summary,
    }
}

/// `1st`, `2nd`, `500th`.
pub(crate) fn ordinal(n: u64) -> String {
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

fn show_f64(x: f64) -> String {
    zy_interp::show(&Value::F64(x))
}

/// What a located statement is: its source text and where it is.
struct Site {
    file: SourceFile,
    start: u32,
    end: u32,
    text: String,
}

fn site(db: &RootDatabase, span: Span, call: Option<(SourceFile, u32)>) -> Option<Site> {
    let r = zy_hir::locate(db, span, call)?;
    let source = r.file.text(db);
    let text = source.get(r.start as usize..r.end as usize)?;
    let text = match text.find('\n') {
        Some(i) => format!("{}…", &text[..i]),
        None => text.to_string(),
    };
    Some(Site {
        file: r.file,
        start: r.start,
        end: r.end,
        text,
    })
}

/// Runs the gradient driver `driver` of `program` on `args` under the watch and explains the
/// first non-finite value that reached the gradient; `None` if the run finds none (or fails).
pub(crate) fn explain(
    db: &RootDatabase,
    program: &TypedProgram,
    driver: &zy_ir::Instance,
    args: Vec<Value>,
    limits: &zy_interp::Limits,
    call: Option<(SourceFile, u32)>,
) -> Option<NonFinite> {
    let mut hunt = Hunt::new(program);
    zy_interp::run_watched(program, driver, args, limits, &mut hunt).ok()?;
    // A derivative that was born non-finite explains the gradient best; failing that, a
    // non-finite primal flowed into the derivatives.
    let Origin { born: origin, nan } = hunt.pullback.or(hunt.forward)?;
    let at = site(db, origin.span, call)?;
    let primal = hunt.primal_runs.get(&origin.span);
    let runs = match primal.map_or(0, |p| p.runs) {
        0 | 1 => String::new(),
        n => format!(" (the {} time it ran)", ordinal(n)),
    };
    let mut message = if origin.derivative {
        let point = match primal {
            Some(p) => {
                // The operands named in the source text shown (not names of generated code).
                let named: Vec<String> = p
                    .named
                    .iter()
                    .filter(|(n, _)| mentions(&at.text, n))
                    .map(|(n, v)| format!("{n} = {v}"))
                    .collect();
                let named = match named.is_empty() {
                    true => String::new(),
                    false => format!(" with {}", named.join(", ")),
                };
                format!(" at {}{named}{runs}", p.call)
            }
            None => String::new(),
        };
        format!(
            "the derivative of `{}`{point} is not finite: {}",
            at.text, origin.what
        )
    } else {
        format!("`{}` is not finite{runs}: {}", at.text, origin.what)
    };
    if let Some(nan) = nan.filter(|n| n.span != origin.span || !origin.what.ends_with("NaN")) {
        if let Some(then) = site(db, nan.span, call) {
            let lc = zy_hir::line_col(db, then.file, then.start);
            let role = if nan.derivative {
                "the derivative of "
            } else {
                ""
            };
            message.push_str(&format!(
                "; {role}`{}` at line {} turned it into NaN: {}",
                then.text, lc.line, nan.what
            ));
        }
    }
    let lc = zy_hir::line_col(db, at.file, at.start);
    Some(NonFinite {
        file: at.file.path(db).clone(),
        line: lc.line,
        col: lc.col,
        message,
        range: (at.file, at.start, at.end),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn is_finite_reads_every_float_once() {
        let mut xs = vec![1.0; 1000];
        let finite = Value::tuple([
            Value::F64(2.0),
            Value::vector_f64(xs.clone()),
            Value::Int(3),
        ]);
        assert!(is_finite(&finite));
        for bad in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            xs[777] = bad;
            let v = Value::tuple([Value::F64(2.0), Value::vector_f64(xs.clone())]);
            assert!(!is_finite(&v), "{bad}");
            assert!(!is_finite(&Value::new_ref(Value::F64(bad))), "{bad}");
        }
        assert!(is_finite(&Value::new_ref(Value::F64(f64::MAX))));
    }
}
