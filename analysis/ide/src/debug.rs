//! Debug mode (`zy-analyze grad --debug`, the editor's `zy.debug` setting), after Mooncake's:
//! the gradient runs once more in the interpreter under a watch that checks, around every
//! in-source `rrule` and every derived pullback, that each tangent has its primal's type and
//! shape field by field (a Float64 for a Float64, an array of the same size for an array, the
//! named tuple of its fields' tangents for a struct, or `nothing`), and
//! that a rule leaves the arguments as it found them: its forward changes only what the
//! function itself changes, its pullback nothing. The first violation is an error at the rule
//! (or the function) naming the value and what was expected.

use std::collections::HashMap;
use std::sync::Arc;

use zy_ad::ArgMask;
use zy_hir::{ProgramKey, RootDatabase};
use zy_interp::{Step, Value, Watch};
use zy_ir::{Function, Instance, Name, Program, Span, Type, TypedProgram};

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
    /// The arguments the adjoint called differentiates (the others get `nothing`).
    mask: ArgMask,
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
    /// `f⁺`, `f⁻` (or a masked adjoint's `f⟨i⟩⁺`, `f⟨i⟩⁻`, with its mask, once called) and an
    /// rrule pullback's call method, by instance, to the index in `known`.
    forward: HashMap<Arc<Instance>, (usize, ArgMask)>,
    pullback: HashMap<Arc<Instance>, (usize, ArgMask)>,
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
            let rule = zy_ad::rrule::find(source, inst)
                .ok()
                .flatten()
                .map(|r| (r.span, r.back));
            let k = d.known.len();
            d.forward
                .insert(zy_ad::names::forward_instance(inst), (k, ArgMask::ALL));
            d.pullback
                .insert(zy_ad::names::pullback_instance(inst), (k, ArgMask::ALL));
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

    /// Remember the masked adjoint (`f⟨i⟩⁺`, `f⟨i⟩⁻`) that `inst` belongs to, if it is one.
    fn learn_masked(&mut self, inst: &Instance) {
        let Some(name) = inst
            .name
            .strip_suffix("⟩⁺")
            .or(inst.name.strip_suffix("⟩⁻"))
        else {
            return;
        };
        if self.forward.contains_key(inst) || self.pullback.contains_key(inst) {
            return;
        }
        let keyed = format!("{name}⟩");
        let found = self.known.iter().enumerate().find_map(|(k, known)| {
            zy_ad::names::mask_of(&known.inst, &keyed).map(|m| (k, m, known.inst.clone()))
        });
        if let Some((k, mask, primal)) = found {
            let keyed = zy_ad::names::masked(&primal, mask);
            self.forward
                .insert(zy_ad::names::forward_instance(&keyed), (k, mask));
            self.pullback
                .insert(zy_ad::names::pullback_instance(&keyed), (k, mask));
        }
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
    fn enter_forward(&mut self, k: usize, mask: ArgMask, args: &[Value]) {
        let inst = self.known[k].inst.clone();
        let mut primals = Vec::new();
        let mut rest = args.iter();
        for (i, t) in inst.args.iter().enumerate() {
            let Some(x) = rest.next() else {
                return;
            };
            if zy_ad::has_fdata(t) {
                if let Some(shadow) = rest.next() {
                    if let Some(expected) = mismatch(x, shadow, Part::Fdata) {
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
            mask,
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
            // A derived pullback returns only rdata: arrays' tangents are in their shadows; an
            // argument its adjoint does not differentiate gets `nothing`.
            let part = if rule { Part::Tangent } else { Part::Rdata };
            if !rule && (!zy_ad::tangent::has_rdata(&x.julia_type()) || !call.mask.is_active(i)) {
                continue;
            }
            if let Some(expected) = mismatch(x, t, part) {
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
        self.learn_masked(inst);
        if let Some(&(k, mask)) = self.forward.get(inst) {
            self.enter_forward(k, mask, args);
        } else if let Some(&k) = self.back.get(inst) {
            self.enter_pullback(k);
        } else if let Some(&(k, _)) = self.pullback.get(inst) {
            if self.known[k].rule.is_none() {
                self.enter_pullback(k);
            }
        }
    }

    fn returned(&mut self, callee: &Function, result: &Value) {
        let Some(inst) = &callee.instance else {
            return;
        };
        if let Some(&(k, _)) = self.forward.get(inst) {
            self.leave_forward(k);
        } else if let Some(&k) = self.back.get(inst) {
            self.leave_pullback(k, result, true);
        } else if let Some(&(k, _)) = self.pullback.get(inst) {
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

/// What a value in a tangent's place must be, for a primal of type `T`.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Part {
    /// What an in-source rule's pullback returns: `tangent_type(T)` or `NoTangent()`.
    Tangent,
    /// What a derived pullback returns: `rdata_type(T)`.
    Rdata,
    /// The shadow passed to a forward function: `fdata_type(T)`.
    Fdata,
}

/// `None` if `t` may stand as `part` for the primal `x`, else what was expected: the type (an
/// array with its size) and, for a tuple or struct, the first field that differs. Each array
/// inside must have its primal's size; `NoTangent()` is any rule's tangent, and a rule's
/// tangent of a value with none (an `Int64`) is never used, so anything goes.
fn mismatch(x: &Value, t: &Value, part: Part) -> Option<String> {
    let xt = x.julia_type();
    let want = match part {
        Part::Tangent => zy_ir::tangent_type(&xt),
        Part::Rdata => zy_ad::rdata_type(&xt),
        Part::Fdata => zy_ad::fdata_type(&xt),
    };
    if part == Part::Tangent && (matches!(t, Value::Nothing) || want == Type::Nothing) {
        return None;
    }
    // A `Ref`'s tangent as `Ref(x̄)` or `(x = x̄,)`, added into the shadow's contents.
    if part == Part::Tangent && zy_ad::rrule::takes_boxed_tangent(&xt, &t.julia_type()) {
        return None;
    }
    let or_none = if part == Part::Tangent {
        " or `NoTangent()`"
    } else {
        ""
    };
    let shown = |w: &Type| match x {
        Value::Array(_) => zy_interp::summary(x),
        _ => zy_interp::type_string(w),
    };
    let got = t.julia_type();
    if got != want && !zy_interp::is_tangent_of(t, &want) {
        let why = difference(&want, &got)
            .map(|d| format!(" ({d})"))
            .unwrap_or_default();
        return Some(format!("a {}{or_none}{why}", shown(&want)));
    }
    if let Some(d) = shape_difference(x, t) {
        return Some(format!("a {}{or_none} ({d})", shown(&want)));
    }
    // A tangent of the right type that a rule's pullback cannot hand back: neither all
    // returned (numbers, immutable structs and tuples of them) nor all in a shadow (arrays).
    let usable = want == zy_ad::rdata_type(&xt) || want == zy_ad::fdata_type(&xt);
    (part == Part::Tangent && !usable).then(|| {
        format!(
            "`NoTangent()`: zy cannot take a rule's tangent of a {} yet (it would be dropped); differentiate the function without the rule",
            zy_interp::type_string(&xt)
        )
    })
}

/// The first field (or element) where the type `got` differs from `want`, as a phrase.
fn difference(want: &Type, got: &Type) -> Option<String> {
    match (want, got) {
        (Type::NamedTuple(ws), Type::NamedTuple(gs)) => {
            for (n, w) in ws.iter() {
                match gs.iter().find(|(m, _)| m == n) {
                    None => return Some(format!("field `{n}` is missing")),
                    Some((_, g)) if *w == Type::Nothing && g != w => {
                        return Some(format!("field `{n}` has no tangent: it must be `nothing`"));
                    }
                    Some((_, g)) if g != w => {
                        let inner = difference(w, g)
                            .map(|d| format!(": {d}"))
                            .unwrap_or_default();
                        return Some(format!(
                            "field `{n}` is a {}, not a {}{inner}",
                            zy_interp::type_string(g),
                            zy_interp::type_string(w)
                        ));
                    }
                    Some(_) => {}
                }
            }
            gs.iter()
                .find(|(m, _)| !ws.iter().any(|(n, _)| n == m))
                .map(|(m, _)| format!("`{m}` is not a field"))
                .or_else(|| Some("the fields are in another order".into()))
        }
        (Type::Tuple(ws), Type::Tuple(gs)) if ws.len() != gs.len() => {
            Some(format!("{} elements, not {}", gs.len(), ws.len()))
        }
        (Type::Tuple(ws), Type::Tuple(gs)) => {
            let (i, (w, g)) = ws
                .iter()
                .zip(gs.iter())
                .enumerate()
                .find(|(_, (w, g))| w != g)?;
            let inner = difference(w, g)
                .map(|d| format!(": {d}"))
                .unwrap_or_default();
            Some(format!(
                "element {} is a {}, not a {}{inner}",
                i + 1,
                zy_interp::type_string(g),
                zy_interp::type_string(w)
            ))
        }
        _ => None,
    }
}

/// The first array inside `x` whose counterpart in `t` (of the matching type) has another
/// size, as a phrase.
fn shape_difference(x: &Value, t: &Value) -> Option<String> {
    match (x, t) {
        (Value::Array(a), Value::Array(b)) => (a.borrow().shape != b.borrow().shape)
            .then(|| format!("it is a {}", zy_interp::summary(t))),
        (Value::Tuple(xs), Value::Tuple(ts)) => {
            xs.iter()
                .zip(ts.iter())
                .enumerate()
                .find_map(|(i, (x, t))| {
                    shape_difference(x, t).map(|d| format!("element {}: {d}", i + 1))
                })
        }
        _ => {
            let (xs, ts) = (named_parts(x)?, named_parts(t)?);
            xs.iter().find_map(|(n, x)| {
                let (_, t) = ts.iter().find(|(m, _)| m == n)?;
                shape_difference(x, t).map(|d| format!("field `{n}`: {d}"))
            })
        }
    }
}

/// The named parts of a struct, a named tuple or a `Ref` (its field is `x`, as in its
/// tangent `(x = ...,)`; a shadow `Ref` holding a named tuple stands for that tuple).
fn named_parts(v: &Value) -> Option<Vec<(Name, Value)>> {
    fn names(s: &zy_ir::StructRef) -> impl Iterator<Item = Name> + '_ {
        s.fields.iter().map(|(n, _)| n.clone())
    }
    Some(match v {
        Value::Struct(s, vs) => names(s).zip(vs.iter().cloned()).collect(),
        Value::Mutable(s, vs) => names(s).zip(vs.borrow().iter().cloned()).collect(),
        Value::NamedTuple(ns, vs) => ns.iter().cloned().zip(vs.iter().cloned()).collect(),
        Value::Ref(r) => match &*r.borrow() {
            inner @ Value::NamedTuple(..) => return named_parts(inner),
            inner => vec![(Name::from("x"), inner.clone())],
        },
        _ => return None,
    })
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
    let source = key.rule_source(db, primal);
    let mut watch = Debugger::new(source, primal, limits);
    // A run that fails is reported by the gradient itself.
    let _ = zy_interp::run_watched(gradient.0, gradient.1, args, limits, &mut watch);
    let Some(v) = watch.found else {
        return Ok(());
    };
    Err(crate::locate::error_at(db, v.span, site, v.message))
}

#[cfg(test)]
mod tests {
    use std::cell::RefCell;
    use std::rc::Rc;

    use super::*;

    fn v(xs: &[f64]) -> Value {
        Value::vector_f64(xs.to_vec())
    }

    #[test]
    fn a_tuple_of_arrays_needs_each_arrays_size() {
        let x = Value::tuple([v(&[1.0, 2.0]), v(&[3.0, 4.0])]);
        assert_eq!(
            mismatch(
                &x,
                &Value::tuple([v(&[1.0, 2.0]), v(&[0.0; 2])]),
                Part::Tangent
            ),
            None
        );
        assert_eq!(
            mismatch(&x, &Value::tuple([v(&[1.0, 2.0]), v(&[0.0; 3])]), Part::Tangent).as_deref(),
            Some("a Tuple{Vector{Float64}, Vector{Float64}} or `NoTangent()` (element 2: it is a 3-element Vector{Float64})")
        );
        assert_eq!(
            mismatch(&x, &Value::tuple([v(&[1.0, 2.0])]), Part::Tangent).as_deref(),
            Some("a Tuple{Vector{Float64}, Vector{Float64}} or `NoTangent()` (1 elements, not 2)")
        );
    }

    #[test]
    fn a_tangent_zy_cannot_take_back_from_a_rule_is_named() {
        let x = Value::tuple([v(&[1.0]), Value::F64(2.0)]);
        let t = Value::tuple([v(&[1.0]), Value::F64(1.0)]);
        assert_eq!(
            mismatch(&x, &t, Part::Tangent).as_deref(),
            Some("`NoTangent()`: zy cannot take a rule's tangent of a Tuple{Vector{Float64}, Float64} yet (it would be dropped); differentiate the function without the rule")
        );
        assert_eq!(mismatch(&x, &Value::Nothing, Part::Tangent), None);
    }

    #[test]
    fn a_refs_shadow_holds_its_values_tangent() {
        let x = Value::Ref(Rc::new(RefCell::new(v(&[1.0, 2.0]))));
        let fits = Value::Ref(Rc::new(RefCell::new(v(&[0.0, 0.0]))));
        let short = Value::Ref(Rc::new(RefCell::new(v(&[0.0]))));
        assert_eq!(mismatch(&x, &fits, Part::Fdata), None);
        assert_eq!(
            mismatch(&x, &short, Part::Fdata).as_deref(),
            Some("a Base.RefValue{Vector{Float64}} (field `x`: it is a 1-element Vector{Float64})")
        );
        // A field with no tangent that is `nothing` is not the field that differs.
        let s = zy_ir::StructType {
            name: "S".into(),
            params: Vec::new(),
            fields: vec![("n".into(), Type::Int64), ("v".into(), Type::Float64)],
            mutable: false,
            kind: zy_ir::StructKind::User,
        };
        let x = Value::Struct(
            std::sync::Arc::new(s),
            Rc::from(vec![Value::Int(2), Value::F64(1.0)]),
        );
        let names: Rc<[Name]> = Rc::from(vec![Name::from("n")]);
        let t = Value::NamedTuple(names, Rc::from(vec![Value::Nothing]));
        assert_eq!(
            mismatch(&x, &t, Part::Tangent).as_deref(),
            Some("a @NamedTuple{n::Nothing, v::Float64} or `NoTangent()` (field `v` is missing)")
        );
        // An Int64 has no tangent: what a rule returns for it is never used.
        assert_eq!(
            mismatch(&Value::Int(3), &Value::F64(0.0), Part::Tangent),
            None
        );
    }
}
