//! `rrule-mismatch`: a `# zy: at` call that reaches a function with an in-source `rrule`,
//! differentiated by zy (which uses the rule) and by finite differences of the primal code.
//!
//! A rule may legitimately pick any subgradient at a kink (a ReLU's slope 1 at 0), so the
//! AD value is accepted anywhere between the one-sided differences (widened by the tolerance);
//! the reported number is the central difference.

use std::collections::BTreeSet;

use zy_hir::{RootDatabase, SourceFile};
use zy_interp::fd::{Fd, Verdict};
use zy_interp::Value;
use zy_ir::TypeExpr;

use super::{diagnostic, Specialisation, RRULE_MISMATCH};
use crate::grad::Prepared;
use crate::gradcheck::{grad_leaves, leaves, perturb, significant, with_culprit};
use crate::locate::CallSite;
use crate::{Diagnostic, Engine, EvalLimits, UserError};

/// At most this many Float64 inputs are perturbed per call.
const MAX_LEAVES: usize = 200;

pub(super) fn check(
    db: &RootDatabase,
    file: SourceFile,
    specs: &[Specialisation],
    limits: &EvalLimits,
    rtol: f64,
) -> Vec<Diagnostic> {
    let index = zy_hir::program_index(db, file);
    let ruled: BTreeSet<String> =
        index
            .program
            .functions
            .get("rrule")
            .map_or_else(BTreeSet::new, |gf| {
                gf.methods
                    .iter()
                    .filter_map(|m| match m.sig.first() {
                        Some(Some(TypeExpr::Typeof(n))) => Some(n.to_string()),
                        _ => None,
                    })
                    .collect()
            });
    let mut out = Vec::new();
    for s in specs.iter().filter(|s| !s.gradchecked) {
        let reached: BTreeSet<&str> = s
            .typed
            .program
            .functions
            .keys()
            .map(|i| &*i.name)
            .filter(|n| ruled.contains(*n))
            .collect();
        if reached.is_empty() {
            continue;
        }
        let site = CallSite::InFile {
            file,
            offset: s.call_start,
        };
        // A call that fails to run is reported by `eval`/`grad`, not as a rule mismatch.
        let Ok(Some((disagreement, culprit))) = compare(db, file, &s.call, site, limits, rtol)
        else {
            continue;
        };
        let rules: Vec<String> = reached.iter().map(|n| format!("`{n}`")).collect();
        let (which, agree) = if rules.len() == 1 {
            ("rrule for", "disagrees")
        } else {
            ("rrules for", "disagree")
        };
        let message = format!(
            "the in-source {which} {} {agree} with finite differences at `{}`: {disagreement}",
            rules.join(", "),
            s.call
        );
        let (message, related) = with_culprit(message, culprit);
        let mut d = diagnostic(
            db,
            file,
            (s.call_start, s.call_end),
            RRULE_MISMATCH,
            message,
        );
        d.related = related;
        out.push(d);
    }
    out
}

/// `None` if the AD gradient of `call` lies between the one-sided finite differences of every
/// Float64 input, else the first disagreement and the rule that disagrees on its own.
fn compare(
    db: &RootDatabase,
    file: SourceFile,
    call: &str,
    site: CallSite<'_>,
    limits: &EvalLimits,
    rtol: f64,
) -> Result<Option<(String, Option<crate::Related>)>, UserError> {
    let prepared = Prepared::new(db, file, call, site, limits)?;
    let (_, gradient) = prepared.gradient(db, Engine::Interp)?;
    let skip = prepared.skipped();
    let names = prepared.arg_names();
    let base = prepared.arguments(db)?;
    let y0 = number(&prepared.value(db, prepared.arguments(db)?)?);
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
            let at = |step: f64| -> Result<f64, UserError> {
                let mut args = prepared.arguments(db)?;
                if let Some(a) = args.get_mut(i + skip) {
                    *a = perturb(a, &mut Some(k), step);
                }
                Ok(number(&prepared.value(db, args)?))
            };
            if let Verdict::Differs { fd } = Fd::rrule(rtol).check(ad_k, x, Some(y0), at)? {
                let name = names
                    .get(i + skip)
                    .map_or_else(|| format!("argument {}", i + 1), |n| format!("`{n}`"));
                let element = if inputs.len() > 1 {
                    format!(" at element {}", k + 1)
                } else {
                    String::new()
                };
                let message = format!(
                    "the gradient with respect to {name}{element} is {} by the rule but {} by finite differences",
                    zy_ir::julia_float(ad_k),
                    zy_ir::julia_float(significant(fd, 8))
                );
                return Ok(Some((message, prepared.culprit(db, rtol))));
            }
        }
    }
    Ok(None)
}

/// The value of a call as a number (`NaN` for anything else: it then disagrees).
fn number(v: &Value) -> f64 {
    match v {
        Value::F64(y) => *y,
        other => other.as_f64().unwrap_or(f64::NAN),
    }
}
