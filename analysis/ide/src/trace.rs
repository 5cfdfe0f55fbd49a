//! Every adjoint at the evaluated point: the gradient runs once more in the interpreter, built
//! with taps ([`zy_ad::traced_instance_adjoint`]) that show a [`Watch`] the value and the
//! adjoint of each active variable with a source name, where it is defined. A variable defined
//! in a loop is summarised over its runs (first, last, min, max, count).

use std::collections::HashMap;
use std::path::PathBuf;

use zy_hir::{RootDatabase, SourceFile};
use zy_interp::{Step, Value, Watch};
use zy_ir::{Const, Operand, Prim, Span, ValueKind};

use crate::eval::{EvalLimits, EvalResult};
use crate::grad::{result, Prepared};
use crate::locate::CallSite;
use crate::{Analysis, Cancellable, FileId, UserError};

impl Analysis {
    /// The value and adjoint of every argument and local with a source name when `call` is
    /// differentiated, in source order (what `grad --trace` prints).
    pub fn trace(
        &self,
        file: FileId,
        call: &str,
        limits: EvalLimits,
    ) -> Cancellable<Result<Vec<TraceRow>, UserError>> {
        let mut limits = limits;
        limits.cancel.get_or_insert_with(|| self.stale_flag());
        self.with_db(|db| {
            let r = match crate::eval::load_error(db, file.0) {
                Some(e) => Err(e),
                None => Prepared::new(db, file.0, call, CallSite::Text(call), &limits)
                    .and_then(|p| p.trace(db)),
            };
            if r.is_err() {
                self.unwind_if_stale();
            }
            r
        })
    }
}

/// One variable's values and adjoints at the evaluated point.
#[derive(Clone, PartialEq, Debug)]
pub struct TraceRow {
    /// Where it is defined: the file (`<call>` for the call text), 1-based line and column.
    pub file: PathBuf,
    pub line: u32,
    pub col: u32,
    /// Its name as written.
    pub name: String,
    /// Its value each time the definition ran, in the order the primal ran.
    pub values: Runs,
    /// Its adjoint for each of those runs, in the same order.
    pub adjoints: Runs,
    /// For a function an in-source `rrule` differentiates (the row `f (rrule)`, its value and
    /// the adjoint the rule was given): where that rule is.
    pub related: Vec<crate::Related>,
    /// The definition's file and byte range.
    pub(crate) range: (SourceFile, u32, u32),
    /// Whether the definition's text starts with the name (an argument, an assignment), so
    /// an editor can show the adjoint there.
    pub(crate) named_there: bool,
}

/// The values a definition took over its runs: the last in full, and for several runs the
/// first, the extremes of the Float64 ones and each Float64 (for a sparkline).
#[derive(Clone, PartialEq, Debug)]
pub struct Runs {
    /// How many times it ran.
    pub count: usize,
    /// The first and the last value (the same for one run).
    pub first: EvalResult,
    pub last: EvalResult,
    /// The least and the greatest value when they are Float64 (NaN if one is, as Julia's
    /// `minimum` and `maximum` say).
    pub min: Option<f64>,
    pub max: Option<f64>,
    /// Every value, when they are Float64 and there are at most [`MAX_SCALARS`] of them.
    pub scalars: Vec<f64>,
}

impl Runs {
    /// The summary of what a tap saw, in the order the primal ran (`reversed`: the pullback
    /// saw them backwards).
    fn of(seen: Seen, reversed: bool) -> Option<Runs> {
        let (mut first, mut last) = (seen.first?, seen.last?);
        let mut scalars = seen
            .scalars
            .filter(|s| s.len() == seen.count)
            .unwrap_or_default();
        if reversed {
            std::mem::swap(&mut first, &mut last);
            scalars.reverse();
        }
        Some(Runs {
            count: seen.count,
            first: result(&first),
            last: result(&last),
            min: seen.extremes.map(|e| e.0),
            max: seen.extremes.map(|e| e.1),
            scalars,
        })
    }

    /// `12.0`, or for several runs `×3: 2.0 → 8.0 (min 2.0, max 8.0)`.
    pub fn summary(&self) -> String {
        if self.count == 1 {
            return self.last.display.clone();
        }
        let mut s = format!(
            "×{}: {} → {}",
            self.count, self.first.display, self.last.display
        );
        if let (Some(lo), Some(hi)) = (self.min, self.max) {
            s.push_str(&format!(" (min {}, max {})", show_f64(lo), show_f64(hi)));
        }
        s
    }

    /// `{"first", "last", "min", "max"}`.
    fn to_json(&self) -> serde_json::Value {
        let num = |x: Option<f64>| x.map_or(serde_json::Value::Null, to_json_f64);
        serde_json::json!({
            "first": self.first.json,
            "last": self.last.json,
            "min": num(self.min),
            "max": num(self.max),
        })
    }
}

/// The longest sparkline, in characters: longer series are sampled evenly.
const SPARK_CHARS: usize = 40;

/// `▁▃█`: each value's height between the least and the greatest (`None` for fewer than two
/// values or a non-finite one).
fn sparkline(xs: &[f64]) -> Option<String> {
    if xs.len() < 2 || !xs.iter().all(|x| x.is_finite()) {
        return None;
    }
    const BARS: [char; 8] = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];
    let lo = xs.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = xs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let n = xs.len().min(SPARK_CHARS);
    let line = (0..n)
        .map(|i| {
            let x = xs[i * (xs.len() - 1) / (n - 1).max(1)];
            let level = match hi > lo {
                true => ((x - lo) / (hi - lo) * 7.0).round() as usize,
                false => 0,
            };
            BARS[level.min(7)]
        })
        .collect();
    Some(line)
}

fn show_f64(x: f64) -> String {
    zy_interp::show(&Value::F64(x))
}

fn to_json_f64(x: f64) -> serde_json::Value {
    zy_interp::to_json(&Value::F64(x))
}

impl TraceRow {
    /// The bytes of the name where `file` defines it (`None` for another file, or a definition
    /// that does not start with the name: a loop's join, a captured variable).
    pub fn name_range(&self, file: FileId) -> Option<(u32, u32)> {
        let (f, start, _) = self.range;
        (f == file.0 && self.named_there).then(|| (start, start + self.name.len() as u32))
    }

    /// The inlay hint: `x̄ = 12.0`, or over several runs `r̄ = ×3: 4.0 → 1.0`, each adjoint
    /// as `short` writes it.
    pub fn hint_label(&self, short: impl Fn(&EvalResult) -> String) -> String {
        let a = &self.adjoints;
        let value = match a.count {
            1 => short(&a.last),
            n => format!("×{n}: {} → {}", short(&a.first), short(&a.last)),
        };
        format!("{}\u{304} = {value}", self.name)
    }

    /// Markdown for hover on the name: the value and adjoint at `call`, and over several runs
    /// the first, last, least and greatest adjoint and a sparkline of them.
    pub fn hover_markdown(&self, call: &str) -> String {
        let (v, a) = (&self.values, &self.adjoints);
        if a.count == 1 {
            return format!(
                "at `{call}`: `{}` = {}, adjoint {}",
                self.name, v.last.display, a.last.display
            );
        }
        let mut md = format!(
            "at `{call}`, over {} runs: `{}` = {} → {}\n\nadjoint: first {}, last {}",
            a.count, self.name, v.first.display, v.last.display, a.first.display, a.last.display
        );
        if let (Some(lo), Some(hi)) = (a.min, a.max) {
            md.push_str(&format!(", min {}, max {}", show_f64(lo), show_f64(hi)));
        }
        if let Some(line) = sparkline(&a.scalars) {
            md.push_str(&format!("\n\n`{line}`"));
        }
        md
    }

    /// SPEC's `{"file", "line", "col", "name", "value", "adjoint"}` (the last run's value and
    /// its adjoint); a definition that ran several times adds `"runs"` and the summaries
    /// `"values"` and `"adjoints"` (`{"first", "last", "min", "max"}`).
    pub fn to_json(&self) -> serde_json::Value {
        let mut row = serde_json::json!({
            "file": self.file.display().to_string(),
            "line": self.line,
            "col": self.col,
            "name": self.name,
            "value": self.values.last.json,
            "adjoint": self.adjoints.last.json,
        });
        if let Some(map) = row.as_object_mut() {
            if self.values.count > 1 || self.adjoints.count > 1 {
                map.insert("runs".into(), self.values.count.into());
                map.insert("values".into(), self.values.to_json());
                map.insert("adjoints".into(), self.adjoints.to_json());
            }
            if !self.related.is_empty() {
                let related = self.related.iter().map(crate::Related::to_json).collect();
                map.insert("related".into(), serde_json::Value::Array(related));
            }
        }
        row
    }
}

/// The rows as a table: `file:line:col  name  value  adjoint`, columns aligned; a function
/// under an in-source rule is named `f (rrule at file:line:col)`.
pub(crate) fn table(rows: &[TraceRow]) -> String {
    if rows.is_empty() {
        return "trace: no variable with a source name carries a gradient on this call".into();
    }
    let cells: Vec<[String; 4]> = rows
        .iter()
        .map(|r| {
            [
                format!("{}:{}:{}", r.file.display(), r.line, r.col),
                match r.related.first() {
                    Some(rule) => format!(
                        "{} at {}:{}:{})",
                        r.name.trim_end_matches(')'),
                        rule.file.display(),
                        rule.line,
                        rule.col
                    ),
                    None => r.name.clone(),
                },
                r.values.summary(),
                r.adjoints.summary(),
            ]
        })
        .collect();
    let head = ["where", "name", "value", "adjoint"].map(String::from);
    let width = |i: usize| {
        std::iter::once(&head)
            .chain(&cells)
            .map(|c| c[i].chars().count())
            .max()
            .unwrap_or(0)
    };
    let widths = [width(0), width(1), width(2)];
    let mut out = String::from("trace:");
    for c in std::iter::once(&head).chain(&cells) {
        out.push_str("\n  ");
        for (i, w) in widths.iter().enumerate() {
            out.push_str(&c[i]);
            out.push_str(&" ".repeat(w - c[i].chars().count() + 2));
        }
        out.push_str(&c[3]);
    }
    out
}

/// The most Float64 values of one definition kept for a sparkline.
pub const MAX_SCALARS: usize = 1 << 16;

/// What one tap saw, in constant memory however often it ran: the first and last value (deep
/// copies), the count, the extremes while all are Float64, and the Float64 values themselves
/// up to [`MAX_SCALARS`].
#[derive(Default)]
struct Seen {
    first: Option<Value>,
    last: Option<Value>,
    count: usize,
    /// `None` once a value is not a Float64 (or too many were seen).
    scalars: Option<Vec<f64>>,
    /// (min, max), NaN if any value was, `None` once a value is not a Float64.
    extremes: Option<(f64, f64)>,
}

impl Seen {
    fn push(&mut self, x: &Value) {
        // A copy: an array may be written after (and a shadow accumulated into).
        let copy = x.deep_copy();
        if self.first.is_none() {
            self.first = Some(copy.clone());
            self.scalars = Some(Vec::new());
        }
        self.last = Some(copy);
        self.count += 1;
        match x {
            Value::F64(v) => {
                let v = *v;
                self.extremes = match self.extremes {
                    _ if self.count == 1 => Some((v, v)),
                    // Julia's `minimum` and `maximum`: NaN if any value is.
                    Some((lo, _)) if lo.is_nan() || v.is_nan() => Some((f64::NAN, f64::NAN)),
                    Some((lo, hi)) => Some((lo.min(v), hi.max(v))),
                    None => None,
                };
                if let Some(s) = &mut self.scalars {
                    match s.len() < MAX_SCALARS {
                        true => s.push(v),
                        false => self.scalars = None,
                    }
                }
            }
            _ => {
                self.extremes = None;
                self.scalars = None;
            }
        }
    }
}

/// What the taps showed: `(span, name)` -> the definition's values and adjoints.
#[derive(Default)]
struct Taps {
    seen: HashMap<(Span, zy_ir::Name), (Seen, Seen)>,
    /// For a row `f (rrule)`, the span of the rule that ran.
    rules: HashMap<zy_ir::Name, Span>,
}

impl Watch for Taps {
    fn before(&mut self, _: Step<'_>, _: &[Value]) {}

    fn after(&mut self, step: Step<'_>, args: &[Value], _: &Value) {
        if step.prim != Prim::Tap {
            return;
        }
        let Some(ValueKind::Stmt(stmt)) = step.func.values.get(step.value.index()).map(|d| &d.kind)
        else {
            return;
        };
        let (
            Some(Operand::Const(Const::Symbol(kind))),
            Some(Operand::Const(Const::Symbol(name))),
            Some(x),
        ) = (stmt.args.first(), stmt.args.get(1), args.get(2))
        else {
            return;
        };
        if &**kind == "rule" {
            self.rules.insert(name.clone(), step.span);
            return;
        }
        let entry = self.seen.entry((step.span, name.clone())).or_default();
        match &**kind {
            "primal" => entry.0.push(x),
            _ => entry.1.push(x),
        }
    }
}

/// Runs `driver` of `program` (a gradient built with taps) on `args` and returns a row per
/// tapped definition, in source order; `None` if the run fails.
pub(crate) fn run(
    db: &RootDatabase,
    program: &zy_ir::TypedProgram,
    driver: &zy_ir::Instance,
    args: Vec<Value>,
    limits: &zy_interp::Limits,
    call: Option<(SourceFile, u32)>,
) -> Result<Vec<TraceRow>, zy_interp::RuntimeError> {
    let mut taps = Taps::default();
    zy_interp::run_watched(program, driver, args, limits, &mut taps)?;
    let mut rows = Vec::new();
    for ((span, name), (values, adjoints)) in taps.seen {
        // The pullback runs the definitions backwards.
        let (Some(values), Some(adjoints)) = (Runs::of(values, false), Runs::of(adjoints, true))
        else {
            continue;
        };
        let Some(r) = zy_hir::locate(db, span, call) else {
            continue;
        };
        let lc = zy_hir::line_col(db, r.file, r.start);
        let named_there = r
            .file
            .text(db)
            .get(r.start as usize..)
            .is_some_and(|t| t.starts_with(&*name));
        let related = taps
            .rules
            .get(&name)
            .and_then(|&rule| zy_hir::locate(db, rule, call))
            .map(|at| {
                let lc = zy_hir::line_col(db, at.file, at.start);
                let f = name.trim_end_matches(" (rrule)");
                crate::Related {
                    file: at.file.path(db).clone(),
                    line: lc.line,
                    col: lc.col,
                    start: at.start,
                    end: at.end,
                    message: format!("the in-source `rrule` for `{f}` ran here"),
                }
            });
        rows.push(TraceRow {
            file: r.file.path(db).clone(),
            line: lc.line,
            col: lc.col,
            name: name.to_string(),
            values,
            adjoints,
            related: related.into_iter().collect(),
            range: (r.file, r.start, r.end),
            named_there,
        });
    }
    rows.sort_by(|a, b| (&a.file, a.line, a.col, &a.name).cmp(&(&b.file, b.line, b.col, &b.name)));
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use crate::{AnalysisHost, Engine, EvalLimits, GradOptions};

    /// The trace table of `call` in `text` (file `t.jl`).
    fn trace(text: &str, call: &str) -> String {
        let mut host = AnalysisHost::new();
        let file = host.set_file_text(std::path::Path::new("t.jl"), text.to_string());
        let options = GradOptions {
            trace: true,
            ..GradOptions::default()
        };
        let limits = EvalLimits::default();
        match host
            .analysis()
            .grad_with(file, call, limits, Engine::Interp, options)
        {
            Ok(Ok(g)) => super::table(g.trace.as_deref().unwrap_or_default()),
            Ok(Err(e)) => e.to_string(),
            Err(_) => "cancelled".into(),
        }
    }

    const SRC: &str = "\
square(u) = u * u
function energy(x, w)
    s = 0.0
    for i in 1:3
        s += square(x) * i
    end
    v = w .* x
    return s + sum(v)
end
function bump(x)
    v = [x, 2.0]
    v[1] = v[1] * x
    return sum(v)
end
mk(c) = y -> c * y * y
apply(f, x) = f(x) + x
flat(x) = round(x) * 2.0
step(x) = x > 0.0 ? 1.0 : 2.0
";

    #[test]
    fn runs_summarise_in_constant_memory_and_propagate_nan() {
        use super::{Runs, Seen};
        use zy_interp::Value;
        let mut seen = Seen::default();
        for x in [3.0, f64::NAN, 1.0] {
            seen.push(&Value::F64(x));
        }
        // Seen by the pullback, so backwards: the first run is the last seen.
        let runs = Runs::of(seen, true).unwrap();
        assert_eq!(
            (runs.first.display.as_str(), runs.last.display.as_str()),
            ("1.0", "3.0")
        );
        assert!(runs.min.is_some_and(f64::is_nan) && runs.max.is_some_and(f64::is_nan));
        assert_eq!(runs.scalars.len(), 3);
        assert_eq!(runs.summary(), "×3: 1.0 → 3.0 (min NaN, max NaN)");
        let mut seen = Seen::default();
        for k in 0..3 {
            seen.push(&Value::vector_f64(vec![f64::from(k); 2]));
        }
        let runs = Runs::of(seen, false).unwrap();
        assert_eq!(runs.summary(), "×3: [0.0, 0.0] → [2.0, 2.0]");
        assert!(runs.scalars.is_empty() && runs.min.is_none());
    }

    #[test]
    fn callees_loops_and_arrays() {
        // energy = Σ_i x^2 i + Σ w x = 24 - 4 at x = 2, w = [1, -3]: x̄ = 2x·6 + Σw = 22,
        // w̄ = [x, x]; square's u̅ is 2u·i for i = 1, 2, 3; s's adjoint is 1 throughout.
        assert_eq!(
            trace(SRC, "energy(2.0, [1.0, -3.0])"),
            "\
trace:
  where      name  value                               adjoint
  t.jl:1:8   u     ×3: 2.0 → 2.0 (min 2.0, max 2.0)    ×3: 4.0 → 12.0 (min 4.0, max 12.0)
  t.jl:2:17  x     2.0                                 22.0
  t.jl:2:20  w     [1.0, -3.0]                         [2.0, 2.0]
  t.jl:4:5   s     ×4: 0.0 → 24.0 (min 0.0, max 24.0)  ×4: 1.0 → 1.0 (min 1.0, max 1.0)
  t.jl:5:9   s     ×3: 4.0 → 24.0 (min 4.0, max 24.0)  ×3: 1.0 → 1.0 (min 1.0, max 1.0)
  t.jl:7:9   v     [2.0, -6.0]                         [1.0, 1.0]"
        );
    }

    #[test]
    fn an_array_written_after_its_definition_shows_its_value_and_adjoint_there() {
        // v = [x, 2]; v[1] *= x: the result is x^2 + 2, so v's first element's adjoint is x.
        assert_eq!(
            trace(SRC, "bump(3.0)"),
            "\
trace:
  where       name  value       adjoint
  t.jl:10:15  x     3.0         6.0
  t.jl:11:9   v     [3.0, 2.0]  [3.0, 1.0]"
        );
    }

    #[test]
    fn closures_and_variables_without_a_gradient() {
        // f(x) + x with f = y -> c y^2, c = 2, at 3: ȳ = 2cy = 12, x̄ = 13, c̄ = y^2 = 9.
        assert_eq!(
            trace(SRC, "apply(mk(2.0), 3.0)"),
            "\
trace:
  where       name  value  adjoint
  t.jl:15:9   c     2.0    9.0
  t.jl:15:9   y     3.0    12.0
  t.jl:16:7   f     #mk#1  (c = 9.0,)
  t.jl:16:10  x     3.0    13.0"
        );
        // round is piecewise constant: a zero adjoint; a condition carries none at all.
        assert_eq!(
            trace(SRC, "flat(1.2)"),
            "trace:\n  where      name  value  adjoint\n  t.jl:17:6  x     1.2    0.0"
        );
        assert_eq!(
            trace(SRC, "step(1.2)"),
            "trace: no variable with a source name carries a gradient on this call"
        );
    }

    #[test]
    fn a_function_under_an_rrule_is_one_row_naming_its_rule() {
        // uses(x) = relu(3x) + x at 2: the rule is given ȳ = 1 and returns 1 for z = 6, so
        // z̄ = 1 and x̄ = 3 + 1 = 4. The rule's row is at `relu`'s definition, its value 6.
        let src = "\
relu(x) = x > 0.0 ? x : 0.0
function rrule(::typeof(relu), x)
    back(ȳ) = (NoTangent(), x > 0.0 ? ȳ : 0.0)
    return relu(x), back
end
function uses(x)
    z = 3.0 * x
    return relu(z) + x
end
";
        assert_eq!(
            trace(src, "uses(2.0)"),
            "\
trace:
  where      name                       value  adjoint
  t.jl:1:1   relu (rrule at t.jl:2:10)  6.0    1.0
  t.jl:6:15  x                          2.0    4.0
  t.jl:7:9   z                          6.0    1.0"
        );
    }

    #[test]
    fn a_peeled_loop_join_counts_each_test_of_the_condition_once() {
        // pow(2, 3): the Int r = 1 enters (no gradient, no run); r at the join is then 2, 4, 8
        // with adjoints x^2 = 4, x = 2, 1. The loop's exit joins the two copies of that r
        // (the first iteration is peeled): not one more run of 8.0.
        let src = "\
function pow(x, n)
    r = 1
    while n > 0
        r *= x
        n -= 1
    end
    return r
end
";
        assert_eq!(
            trace(src, "pow(2.0, 3)"),
            "\
trace:
  where      name  value                             adjoint
  t.jl:1:14  x     2.0                               12.0
  t.jl:3:5   r     ×3: 2.0 → 8.0 (min 2.0, max 8.0)  ×3: 4.0 → 1.0 (min 1.0, max 4.0)
  t.jl:4:9   r     ×3: 2.0 → 8.0 (min 2.0, max 8.0)  ×3: 4.0 → 1.0 (min 1.0, max 4.0)"
        );
        // The loop does not run: r is the Int 1, which carries no gradient.
        assert_eq!(
            trace(src, "pow(2.0, 0)"),
            "trace:\n  where      name  value  adjoint\n  t.jl:1:14  x     2.0    0.0"
        );
    }

    #[test]
    fn a_local_holding_a_nested_gradient_has_its_row() {
        // g = d/dx x^3 = 3x^2 = 12 at 2; h = 2g; the result h x = 6x^3: ḡ = 2x = 4, h̄ = x = 2,
        // x̄ = 18x^2 = 72.
        let src = "\
cube(y) = y^3
function outer(x)
    g = gradient(cube, x)[1]
    h = 2.0 * g
    return h * x
end
";
        assert_eq!(
            trace(src, "outer(2.0)"),
            "\
trace:
  where      name  value  adjoint
  t.jl:2:16  x     2.0    72.0
  t.jl:3:9   g     12.0   4.0
  t.jl:4:9   h     24.0   2.0"
        );
    }
}
