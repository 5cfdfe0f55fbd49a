//! Debug mode (`zy-analyze grad --debug`, the editor's `zy.debug` setting), after Mooncake's:
//! the gradient runs once more in the interpreter under a watch that checks, around every
//! in-source `rrule` and every derived pullback, that each tangent has its primal's type and
//! shape (a Float64 for a Float64, an array of the same size for an array, or `nothing`), and
//! that a rule leaves the arguments as it found them: its forward changes only what the
//! function itself changes, its pullback nothing. The first violation is an error at the rule
//! (or the function) naming the value and what was expected.

use std::collections::HashMap;
use std::sync::Arc;

use zy_hir::{ProgramKey, RootDatabase};
use zy_interp::{Step, Value, Watch};
use zy_ir::{Function, Instance, Program, Span, TypedProgram};

use crate::locate::CallSite;
use crate::nonfinite::describe;
use crate::UserError;

/// What the watch knows of a function of the primal program.
struct Known {
    /// The primal instance.
    inst: Arc<Instance>,
    /// Its argument names as written.
    names: Vec<String>,
    /// The rrule that differentiates it (the rule's span and its pullback closure's call
    /// method), if one does.
    rule: Option<(Span, Arc<Instance>)>,
    /// The function's own span.
    span: Span,
}

/// A forward call in flight or done: the primal arguments (sharing any mutable parts with the
/// run), copies of them as they were on entry and, once it returned, as it left them.
struct Call {
    known: usize,
    args: Vec<Value>,
    entry: Vec<Value>,
    after: Vec<Value>,
}

/// A violation: where (a span of the primal program) and what.
struct Violation {
    span: Span,
    message: String,
}

struct Debugger<'a> {
    known: Vec<Known>,
    /// `f⁺`, `f⁻` and an rrule pullback's call method, by instance, to the index in `known`.
    forward: HashMap<Arc<Instance>, usize>,
    pullback: HashMap<Arc<Instance>, usize>,
    back: HashMap<Arc<Instance>, usize>,
    /// Forward calls running (innermost last), and finished ones waiting for their pullbacks
    /// (per function, last first).
    running: Vec<Call>,
    done: HashMap<usize, Vec<Call>>,
    /// Pullbacks running, with the forward call they reverse.
    reversing: Vec<Call>,
    primal: &'a TypedProgram,
    limits: &'a zy_interp::Limits,
    found: Option<Violation>,
}

impl<'a> Debugger<'a> {
    fn new(
        source: &Program,
        primal: &'a TypedProgram,
        limits: &'a zy_interp::Limits,
    ) -> Debugger<'a> {
        let mut d = Debugger {
            known: Vec::new(),
            forward: HashMap::new(),
            pullback: HashMap::new(),
            back: HashMap::new(),
            running: Vec::new(),
            done: HashMap::new(),
            reversing: Vec::new(),
            primal,
            limits,
            found: None,
        };
        for (inst, f) in &primal.functions {
            if zy_ad::names::is_generated(&inst.name) {
                continue;
            }
            let mut scratch = TypedProgram::default();
            let rule = zy_ad::rrule::find(source, inst, &mut scratch)
                .ok()
                .flatten()
                .map(|r| (r.span, r.back));
            let k = d.known.len();
            d.forward.insert(zy_ad::names::forward_instance(inst), k);
            d.pullback.insert(zy_ad::names::pullback_instance(inst), k);
            if let Some((_, back)) = &rule {
                d.back.insert(back.clone(), k);
            }
            d.known.push(Known {
                inst: inst.clone(),
                names: f.arg_names.iter().map(|n| n.to_string()).collect(),
                rule,
                span: f.span,
            });
        }
        d
    }

    fn report(&mut self, span: Span, message: String) {
        if self.found.is_none() {
            self.found = Some(Violation { span, message });
        }
    }

    /// `` `x` `` or `argument 2`.
    fn arg_name(&self, k: usize, i: usize) -> String {
        match self.known[k].names.get(i) {
            Some(n) if !n.is_empty() && !n.starts_with('#') => format!("`{n}`"),
            _ => format!("argument {}", i + 1),
        }
    }

    /// What the rule or pullback of function `k` is called in a message, and where it is.
    fn who(&self, k: usize) -> (String, Span) {
        let known = &self.known[k];
        match &known.rule {
            Some((span, _)) => (
                format!("the in-source `rrule` for `{}`", known.inst.name),
                *span,
            ),
            None => (
                format!("the derived pullback of `{}`", known.inst.name),
                known.span,
            ),
        }
    }

    /// The forward call of function `k` on `args` (its primal and shadow arguments).
    fn enter_forward(&mut self, k: usize, args: &[Value]) {
        let inst = self.known[k].inst.clone();
        let mut primals = Vec::new();
        let mut rest = args.iter();
        for (i, t) in inst.args.iter().enumerate() {
            let Some(x) = rest.next() else {
                return;
            };
            if zy_ad::has_fdata(t) {
                if let Some(shadow) = rest.next() {
                    if let Some(expected) = mismatch(x, shadow, false) {
                        let (who, span) = self.who(k);
                        let message = format!(
                            "debug: the shadow of {} passed to {who} is {} ({}): expected {expected}",
                            self.arg_name(k, i),
                            describe(shadow),
                            zy_interp::type_string(&shadow.julia_type()),
                        );
                        self.report(span, message);
                    }
                }
            }
            primals.push(x.clone());
        }
        let entry = primals.iter().map(Value::deep_copy).collect();
        self.running.push(Call {
            known: k,
            args: primals,
            entry,
            after: Vec::new(),
        });
    }

    /// The forward call of `k` returned: a rule must change an argument only as the function
    /// itself does.
    fn leave_forward(&mut self, k: usize) {
        let Some(call) = self.running.pop() else {
            return;
        };
        if call.known != k {
            return;
        }
        if self.known[k].rule.is_some() {
            for i in 0..call.args.len() {
                if same(&call.args[i], &call.entry[i]) {
                    continue;
                }
                // What the function itself makes of the argument.
                let copies: Vec<Value> = call.entry.iter().map(Value::deep_copy).collect();
                let inst = self.known[k].inst.clone();
                let by_code = zy_interp::run(self.primal, &inst, copies.clone(), self.limits)
                    .ok()
                    .map(|_| copies[i].clone());
                if by_code.is_some_and(|v| same(&v, &call.args[i])) {
                    continue;
                }
                let (who, span) = self.who(k);
                let message = format!(
                    "debug: {who} changed {} from {} to {}, which `{}` itself does not do: a rule must leave its arguments as the function does",
                    self.arg_name(k, i),
                    describe(&call.entry[i]),
                    describe(&call.args[i]),
                    inst.name,
                );
                self.report(span, message);
            }
        }
        let after = call.args.iter().map(Value::deep_copy).collect();
        self.done.entry(k).or_default().push(Call { after, ..call });
    }

    /// The pullback of `k` (an rrule's closure, or a derived `f⁻`) starts.
    fn enter_pullback(&mut self, k: usize) {
        if let Some(call) = self.done.get_mut(&k).and_then(Vec::pop) {
            self.reversing.push(call);
        }
    }

    /// The pullback of `k` returned `result`: the tangents `(NoTangent(), x̄...)` of a rule's
    /// closure, or the rdata tuple of a derived pullback.
    fn leave_pullback(&mut self, k: usize, result: &Value, rule: bool) {
        let Some(call) = self.reversing.pop() else {
            return;
        };
        if call.known != k {
            return;
        }
        let parts: Vec<Value> = match result {
            Value::Tuple(vs) => vs.to_vec(),
            other => vec![other.clone()],
        };
        let skip = usize::from(rule); // the rule's tangent of the function itself
        let (who, span) = self.who(k);
        for (i, x) in call.args.iter().enumerate() {
            let Some(t) = parts.get(i + skip) else {
                break;
            };
            // A derived pullback returns only rdata: arrays' tangents are in their shadows.
            if !rule && !matches!(x, Value::F64(_)) {
                continue;
            }
            if let Some(expected) = mismatch(x, t, true) {
                let message = format!(
                    "debug: {who} returned {} ({}) as the tangent of {}, a {}: expected {expected}",
                    describe(t),
                    zy_interp::type_string(&t.julia_type()),
                    self.arg_name(k, i),
                    zy_interp::summary(x),
                );
                self.report(span, message);
                return;
            }
        }
        // A rule's pullback leaves the arguments as the forward left them; a derived pullback
        // restores what the forward overwrote, as on entry.
        let (who, expected, state) = match rule {
            true => (
                format!("the pullback of {who}"),
                &call.after,
                "as the forward pass left them",
            ),
            false => (who, &call.entry, "as they were before the call"),
        };
        for (i, (now, want)) in call.args.iter().zip(expected).enumerate() {
            if !same(now, want) {
                let message = format!(
                    "debug: {who} left {} as {}, not {}: a pullback must leave the arguments {state}",
                    self.arg_name(k, i),
                    describe(now),
                    describe(want),
                );
                self.report(span, message);
            }
        }
    }
}

impl Watch for Debugger<'_> {
    fn invoke(&mut self, callee: &Function, args: &[Value]) {
        let Some(inst) = &callee.instance else {
            return;
        };
        if let Some(&k) = self.forward.get(inst) {
            self.enter_forward(k, args);
        } else if let Some(&k) = self.back.get(inst) {
            self.enter_pullback(k);
        } else if let Some(&k) = self.pullback.get(inst) {
            if self.known[k].rule.is_none() {
                self.enter_pullback(k);
            }
        }
    }

    fn returned(&mut self, callee: &Function, result: &Value) {
        let Some(inst) = &callee.instance else {
            return;
        };
        if let Some(&k) = self.forward.get(inst) {
            self.leave_forward(k);
        } else if let Some(&k) = self.back.get(inst) {
            self.leave_pullback(k, result, true);
        } else if let Some(&k) = self.pullback.get(inst) {
            // An rrule's `f⁻` only forwards what its closure returned, checked there.
            if self.known[k].rule.is_none() {
                self.leave_pullback(k, result, false);
            }
        }
    }

    fn before(&mut self, _: Step<'_>, _: &[Value]) {}

    fn after(&mut self, _: Step<'_>, _: &[Value], _: &Value) {}
}

/// Whether two values are the same (floats by their bits, so NaN is NaN).
fn same(a: &Value, b: &Value) -> bool {
    let (xa, xb) = (a.float_leaves(), b.float_leaves());
    xa.len() == xb.len()
        && xa.iter().zip(&xb).all(|(x, y)| x.to_bits() == y.to_bits())
        && zy_interp::show(a) == zy_interp::show(b)
}

/// `None` if `t` may be the tangent (or, with `tangent` false, the shadow) of the primal `x`,
/// else what was expected. Checked: Float64s, Float64 arrays (element type and size) and
/// tuples of them; `nothing` (`NoTangent()`) is the tangent of anything.
fn mismatch(x: &Value, t: &Value, tangent: bool) -> Option<String> {
    if tangent && matches!(t, Value::Nothing) {
        return None;
    }
    let or_none = if tangent { " or `NoTangent()`" } else { "" };
    match x {
        Value::F64(_) => match t {
            Value::F64(_) => None,
            _ => Some(format!("a Float64{or_none}")),
        },
        Value::Array(a) => {
            let (shape, float) = {
                let a = a.borrow();
                (a.shape, matches!(a.data, zy_interp::ArrayData::F64(_)))
            };
            if !float {
                return None;
            }
            let fits = match t {
                Value::Array(b) => {
                    let b = b.borrow();
                    b.shape == shape && matches!(b.data, zy_interp::ArrayData::F64(_))
                }
                _ => false,
            };
            (!fits).then(|| format!("a {}{or_none}", zy_interp::summary(x)))
        }
        Value::Tuple(xs) => match t {
            Value::Tuple(ts) if ts.len() == xs.len() => xs
                .iter()
                .zip(ts.iter())
                .find_map(|(x, t)| mismatch(x, t, true))
                .map(|e| format!("a tuple of tangents, each {e}")),
            _ => Some(format!("a tuple of {} tangents{or_none}", xs.len())),
        },
        _ => None,
    }
}

/// Run the gradient `driver` of `program` (differentiating `primal`, the call's program) on
/// `args` under the debug watch: the first violation as an error at the rule or function.
pub(crate) fn check(
    db: &RootDatabase,
    key: ProgramKey,
    gradient: (&TypedProgram, &Instance),
    primal: &TypedProgram,
    args: Vec<Value>,
    limits: &zy_interp::Limits,
    site: CallSite<'_>,
) -> Result<(), UserError> {
    let source = &key.index(db).program;
    let mut watch = Debugger::new(source, primal, limits);
    // A run that fails is reported by the gradient itself.
    let _ = zy_interp::run_watched(gradient.0, gradient.1, args, limits, &mut watch);
    let Some(v) = watch.found else {
        return Ok(());
    };
    Err(crate::locate::error_at(db, v.span, site, v.message))
}
