//! `# zy: gradcheck f(args...)`: the AD gradient compared, leaf by leaf, with central finite
//! differences of the function. Both run on the JIT where it compiles them (its results are the
//! interpreter's, bit for bit), with the machine code from the `compiled` query: the several
//! runs of one check, and the checks of several calls of one function, compile it once.

use zy_hir::{ItemKind, RootDatabase, SourceFile};
use zy_interp::fd::{Fd, Verdict};
use zy_interp::{ArrayData, Value};
use zy_syntax::ast::{AnnotationKind, Item};

use crate::grad::Prepared;
use crate::locate::CallSite;
use crate::{Analysis, Cancellable, Diagnostic, Engine, EvalLimits, FileId, Severity};

/// The code of gradcheck findings.
pub const GRADCHECK: &str = "gradcheck";

/// The code of gradcheck findings where forward mode disagrees with the reverse gradient or
/// with finite differences.
pub const FORWARD_MISMATCH: &str = "forward-mismatch";

/// At most this many Float64 inputs are perturbed per call.
const MAX_LEAVES: usize = 1000;

impl Analysis {
    /// Run every `# zy: gradcheck` call of `file`: a gradient that disagrees with finite
    /// differences, or a call that fails, is a diagnostic with code `gradcheck` at the annotation.
    pub fn gradchecks(&self, file: FileId, limits: EvalLimits) -> Cancellable<Vec<Diagnostic>> {
        let mut limits = limits;
        limits.cancel.get_or_insert_with(|| self.stale_flag());
        self.with_db(|db| {
            let found = gradchecks(db, file.0, &limits, crate::check::DEFAULT_RTOL);
            self.unwind_if_stale();
            found
        })
    }
}

/// The gradcheck findings of `file`, comparing with relative tolerance `rtol`.
pub(crate) fn gradchecks(
    db: &RootDatabase,
    file: SourceFile,
    limits: &EvalLimits,
    rtol: f64,
) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    if crate::eval::load_error(db, file).is_some() {
        return out; // reported by `diagnostics`
    }
    for &item in zy_hir::item_tree(db, file) {
        if item.kind(db) != ItemKind::Function {
            continue;
        }
        let Some(ast) = zy_hir::item_ast(db, item) else {
            continue;
        };
        let Item::Function(def) = &**ast else {
            continue;
        };
        for a in def
            .annotations
            .iter()
            .filter(|a| a.kind == AnnotationKind::Gradcheck)
        {
            let Some((start, end)) = zy_hir::item_range(db, item, a.range.start, a.range.end)
            else {
                continue;
            };
            let site = CallSite::InFile {
                file,
                offset: start,
            };
            for (code, message, related) in checks(db, file, &a.text, site, limits, rtol) {
                let d = Diagnostic::at(db, file, (start, end), code, message, Severity::Error);
                out.push(Diagnostic { related, ..d });
            }
        }
    }
    out
}

/// The findings of one gradcheck `call`: the reverse gradient against finite differences
/// (`gradcheck`), then forward mode against both (`forward-mismatch`).
fn checks(
    db: &RootDatabase,
    file: SourceFile,
    call: &str,
    site: CallSite<'_>,
    limits: &EvalLimits,
    rtol: f64,
) -> Vec<(&'static str, String, Vec<crate::Related>)> {
    let failed = |e: crate::UserError| {
        vec![(
            GRADCHECK,
            format!("gradcheck `{call}` failed: {}", e.message),
            Vec::new(),
        )]
    };
    let mut prepared = match Prepared::new(db, file, call, site, limits) {
        Ok(p) => p,
        Err(e) => return failed(e),
    };
    // The gradient, the finite differences and forward mode each have the time limit.
    let gradient = match prepared.gradient(db, Engine::Jit) {
        Ok((_, g)) => g,
        Err(e) => return failed(e),
    };
    prepared.restart_clock();
    let mut out = match check(db, &prepared, call, &gradient, rtol) {
        Ok(None) => Vec::new(),
        Ok(Some((message, related))) => vec![(GRADCHECK, message, related)],
        Err(e) => failed(e),
    };
    let reverse_ok = out.is_empty();
    prepared.restart_clock();
    match crate::forward_check::check(db, &prepared, call, &gradient, reverse_ok, rtol) {
        Ok(None) => {}
        Ok(Some(message)) => out.push((FORWARD_MISMATCH, message, Vec::new())),
        Err(e) => out.push((
            FORWARD_MISMATCH,
            format!("forward mode of `{call}` failed: {}", e.message),
            Vec::new(),
        )),
    }
    out
}

/// `None` if the AD `gradient` of `call` agrees with finite differences, else the first
/// disagreement and the rule it comes from, if one disagrees on its own.
fn check(
    db: &RootDatabase,
    prepared: &Prepared<'_>,
    call: &str,
    gradient: &[Value],
    rtol: f64,
) -> Result<Option<(String, Vec<crate::Related>)>, crate::UserError> {
    let skip = prepared.skipped();
    let names = prepared.arg_names();
    let base = prepared.arguments_on(db, Engine::Jit)?;
    let mut budget = MAX_LEAVES;
    for (i, g) in gradient.iter().enumerate() {
        let Some(arg) = base.get(i + skip) else {
            continue;
        };
        let mut ad = Vec::new();
        grad_leaves(arg, g, &mut ad);
        let mut inputs = Vec::new();
        leaves(arg, &mut inputs);
        for (k, (&ad_k, &x)) in ad.iter().zip(&inputs).enumerate() {
            if budget == 0 {
                return Ok(None);
            }
            budget -= 1;
            let at = |step: f64| -> Result<f64, crate::UserError> {
                let mut args = prepared.arguments_on(db, Engine::Jit)?;
                if let Some(a) = args.get_mut(i + skip) {
                    *a = perturb(a, &mut Some(k), step);
                }
                match prepared.value_on(db, args, Engine::Jit)? {
                    Value::F64(y) => Ok(y),
                    // An Int or Bool result is piecewise constant: its differences are zero
                    // where it does not jump (DiffTests' `num2num_4(x) = 1`).
                    Value::Int(n) => Ok(n as f64),
                    Value::Bool(b) => Ok(f64::from(u8::from(b))),
                    other => Ok(other.as_f64().unwrap_or(f64::NAN)),
                }
            };
            if let Verdict::Differs { fd } = Fd::gradcheck(rtol).check(ad_k, x, None, at)? {
                let name = names
                    .get(i + skip)
                    .map_or_else(|| format!("argument {}", i + 1), |n| format!("`{n}`"));
                let at_leaf = if inputs.len() > 1 {
                    format!(" at element {}", k + 1)
                } else {
                    String::new()
                };
                let message = format!(
                    "gradcheck `{call}`: the gradient with respect to {name}{at_leaf} is {} by AD but {} by finite differences",
                    zy_ir::julia_float(ad_k),
                    zy_ir::julia_float(significant(fd, 8))
                );
                return Ok(Some(with_culprit(message, prepared.culprit(db, rtol))));
            }
        }
    }
    Ok(None)
}

/// A finding's message and related locations, naming the rule that disagrees if one does.
pub(crate) fn with_culprit(
    message: String,
    culprit: Option<crate::Related>,
) -> (String, Vec<crate::Related>) {
    match culprit {
        Some(r) => (
            format!("{message}; at line {}, {}", r.line, r.message),
            vec![r],
        ),
        None => (message, Vec::new()),
    }
}

/// `x` rounded to `digits` significant digits (finite differences carry no more).
pub(crate) fn significant(x: f64, digits: i32) -> f64 {
    if x == 0.0 || !x.is_finite() {
        return x;
    }
    let scale = 10f64.powi(digits - 1 - x.abs().log10().floor() as i32);
    (x * scale).round() / scale
}

/// The Float64 inputs of a value, in order (arrays in storage order).
pub(crate) fn leaves(v: &Value, out: &mut Vec<f64>) {
    match v {
        Value::F64(x) => out.push(*x),
        Value::Array(a) => match &a.borrow().data {
            ArrayData::F64(d) => out.extend(d),
            // A vector of arrays, structs or tuples: each element's leaves in turn.
            ArrayData::Obj(o) => o.items.iter().for_each(|x| leaves(x, out)),
            _ => {}
        },
        Value::Tuple(vs) | Value::NamedTuple(_, vs) | Value::Struct(_, vs) => {
            vs.iter().for_each(|x| leaves(x, out))
        }
        Value::Mutable(_, fields) => fields.borrow().iter().for_each(|x| leaves(x, out)),
        Value::Ref(r) => leaves(&r.borrow(), out),
        _ => {}
    }
}

/// The gradient's component for each leaf of `v` (`nothing` and missing parts count as zero).
pub(crate) fn grad_leaves(v: &Value, g: &Value, out: &mut Vec<f64>) {
    let parts = |g: &Value| -> Vec<Value> {
        match g {
            Value::Tuple(gs) | Value::NamedTuple(_, gs) | Value::Struct(_, gs) => gs.to_vec(),
            _ => Vec::new(),
        }
    };
    match v {
        Value::F64(_) => out.push(if let Value::F64(x) = g { *x } else { 0.0 }),
        Value::Array(a) => match &a.borrow().data {
            ArrayData::F64(d) => {
                let gd = match g {
                    Value::Array(ga) => ga.borrow().data.to_f64(),
                    _ => Vec::new(),
                };
                out.extend((0..d.len()).map(|i| gd.get(i).copied().unwrap_or(0.0)));
            }
            ArrayData::Obj(o) => {
                let gs = match g {
                    Value::Array(ga) => ga.borrow().data.values(),
                    _ => Vec::new(),
                };
                for (i, x) in o.items.iter().enumerate() {
                    grad_leaves(x, gs.get(i).unwrap_or(&Value::Nothing), out);
                }
            }
            _ => {}
        },
        Value::Tuple(vs) | Value::NamedTuple(_, vs) | Value::Struct(_, vs) => {
            let gs = parts(g);
            for (i, x) in vs.iter().enumerate() {
                grad_leaves(x, gs.get(i).unwrap_or(&Value::Nothing), out);
            }
        }
        Value::Mutable(_, fields) => {
            let gs = parts(g);
            for (i, x) in fields.borrow().iter().enumerate() {
                grad_leaves(x, gs.get(i).unwrap_or(&Value::Nothing), out);
            }
        }
        Value::Ref(r) => grad_leaves(
            &r.borrow(),
            parts(g).first().unwrap_or(&Value::Nothing),
            out,
        ),
        _ => {}
    }
}

/// `v` with its `k`-th Float64 leaf moved by `h` (`k` becomes `None` once done). Mutable parts
/// are changed in place: callers pass a fresh evaluation of the arguments.
pub(crate) fn perturb(v: &Value, k: &mut Option<usize>, h: f64) -> Value {
    let mut each =
        |vs: &[Value]| -> std::rc::Rc<[Value]> { vs.iter().map(|x| perturb(x, k, h)).collect() };
    match v {
        Value::F64(x) => match k {
            Some(0) => {
                *k = None;
                Value::F64(x + h)
            }
            Some(n) => {
                *n -= 1;
                v.clone()
            }
            None => v.clone(),
        },
        Value::Array(a) => {
            let items = match &a.borrow().data {
                ArrayData::Obj(o) => Some(o.items.clone()),
                _ => None,
            };
            if let Some(items) = items {
                // Each element in turn; structs and tuples are put back moved.
                let moved: Vec<Value> = items.iter().map(|x| perturb(x, k, h)).collect();
                if let ArrayData::Obj(o) = &mut a.borrow_mut().data {
                    o.items = moved;
                }
            } else if let (ArrayData::F64(d), Some(n)) = (&mut a.borrow_mut().data, *k) {
                if let Some(x) = d.get_mut(n) {
                    *x += h;
                    *k = None;
                } else {
                    *k = Some(n - d.len());
                }
            }
            v.clone()
        }
        Value::Tuple(vs) => Value::Tuple(each(vs)),
        Value::NamedTuple(names, vs) => Value::NamedTuple(names.clone(), each(vs)),
        Value::Struct(t, vs) => Value::Struct(t.clone(), each(vs)),
        Value::Mutable(_, fields) => {
            let moved: Vec<Value> = each(&fields.borrow()).to_vec();
            *fields.borrow_mut() = moved;
            v.clone()
        }
        Value::Ref(r) => {
            let moved = perturb(&r.borrow(), k, h);
            *r.borrow_mut() = moved;
            v.clone()
        }
        _ => v.clone(),
    }
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant};

    use crate::EvalLimits;

    #[test]
    fn an_endless_gradcheck_is_stopped_by_its_time_limit() {
        // The gradient, the finite differences and forward mode each get the time limit: the
        // gradient runs first and is stopped in its loop, and nothing after it runs.
        let text = "# zy: gradcheck spin(1.0)\nfunction spin(x)\n    while x > 0.0\n        x = x + 1.0\n    end\n    return x\nend\n";
        let mut host = crate::AnalysisHost::new();
        let file = host.set_file_text(std::path::Path::new("s.jl"), text.to_string());
        let limits = EvalLimits {
            timeout: Some(Duration::from_millis(300)),
            ..EvalLimits::default()
        };
        let start = Instant::now();
        let found = host.analysis().gradchecks(file, limits).unwrap_or_default();
        let messages: Vec<&str> = found.iter().map(|d| d.message.as_str()).collect();
        assert_eq!(messages.len(), 1, "{messages:?}");
        assert!(
            messages[0].starts_with("gradcheck `spin(1.0)` failed: ")
                && messages[0].ends_with("InterruptException: time limit exceeded"),
            "{messages:?}"
        );
        assert!(
            start.elapsed() < Duration::from_secs(5),
            "{:?}",
            start.elapsed()
        );
    }
}
