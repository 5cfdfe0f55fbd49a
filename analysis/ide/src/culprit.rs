//! Which rule is wrong. When a gradient disagrees with finite differences (a failing
//! `# zy: gradcheck`, an `rrule-mismatch`), the call runs once more in the interpreter under a
//! watch that records, in the order they ran, the operands of each in-source `rrule`'s function
//! and of each primitive statement with a derivative rule (the first time each is met). Every
//! rule is then re-run alone on those operands against finite differences of its own primal,
//! and the first that disagrees is the culprit: a related location with both numbers.

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::sync::Arc;

use zy_hir::{InstanceId, ProgramKey, RootDatabase, SourceFile};
use zy_interp::fd::{Fd, Verdict};
use zy_interp::{Step, Value, Watch};
use zy_ir::{
    Block, Const, Diff, Function, Instance, Op, Operand, Prim, Program, Span, Stmt, Terminator,
    Type, TypedProgram,
};

use crate::gradcheck::{grad_leaves, significant};
use crate::nonfinite::describe;

/// At most this many recorded rules are re-run.
const MAX_RULES: usize = 200;

/// A location related to a finding: where the culprit of a wrong gradient is, and what it did.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Related {
    /// The file (`<call>` if the location is in the call text).
    pub file: PathBuf,
    /// 1-based line and character column of the start.
    pub line: u32,
    pub col: u32,
    /// Byte offsets in that file.
    pub start: u32,
    pub end: u32,
    /// "the in-source `rrule` for `cube` at cube(2.0): ...".
    pub message: String,
}

impl Related {
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

/// A rule met in the watched run, with the operands it saw.
enum Met {
    /// A function an `rrule` differentiates; `rule` is the rrule method's span.
    Rrule {
        inst: Arc<Instance>,
        rule: Span,
        args: Vec<Value>,
    },
    /// A primitive statement of the user's code with a derivative rule.
    Prim {
        prim: Prim,
        span: Span,
        ret: Type,
        args: Vec<Value>,
    },
}

/// The watch: records each rule the first time it runs, in order.
struct Recorder<'a> {
    source: &'a Program,
    /// Which instances an rrule overrides (`Some(span of the rrule)`), as they are met.
    ruled: HashMap<Arc<Instance>, Option<Span>>,
    seen_prims: HashSet<(Span, Prim)>,
    met: Vec<Met>,
}

impl Watch for Recorder<'_> {
    fn invoke(&mut self, callee: &Function, args: &[Value]) {
        let Some(inst) = &callee.instance else {
            return;
        };
        if self.met.len() >= MAX_RULES || zy_ad::names::is_generated(&callee.name) {
            return;
        }
        let source = self.source;
        let rule = *self.ruled.entry(inst.clone()).or_insert_with(|| {
            zy_ad::rrule::find(source, inst)
                .ok()
                .flatten()
                .map(|r| r.span)
        });
        let Some(rule) = rule else {
            return;
        };
        let fresh = !self
            .met
            .iter()
            .any(|m| matches!(m, Met::Rrule { inst: i, .. } if i == inst));
        if fresh {
            self.met.push(Met::Rrule {
                inst: inst.clone(),
                rule,
                args: args.iter().map(Value::deep_copy).collect(),
            });
        }
    }

    fn before(&mut self, step: Step<'_>, args: &[Value]) {
        if self.met.len() >= MAX_RULES
            || step.prim.info().diff != Diff::Rule
            || zy_ad::names::is_generated(&step.func.name)
            || !self.seen_prims.insert((step.span, step.prim))
        {
            return;
        }
        let ret = step.func.ty(step.value).clone();
        // A rule of a number is checked on numbers and Float64 arrays (its value is the
        // function finite differences see); the others are left to the rule tests.
        let simple = args.iter().all(|a| match a {
            Value::F64(_) | Value::Int(_) | Value::Bool(_) => true,
            Value::Array(a) => matches!(a.borrow().data, zy_interp::ArrayData::F64(_)),
            _ => false,
        });
        if ret == Type::Float64 && simple {
            self.met.push(Met::Prim {
                prim: step.prim,
                span: step.span,
                ret,
                args: args.iter().map(Value::deep_copy).collect(),
            });
        }
    }

    fn after(&mut self, _: Step<'_>, _: &[Value], _: &Value) {}
}

/// What the culprit search needs of a call.
pub(crate) struct Subject<'a> {
    /// The program the call's instances belong to.
    pub key: ProgramKey,
    /// The call's program (the `expanded` query) and the instance called.
    pub program: &'a TypedProgram,
    pub inst: &'a Instance,
    /// Its arguments.
    pub args: Vec<Value>,
    pub limits: &'a zy_interp::Limits,
    /// Where the call text is, if it is in a file.
    pub call: Option<(SourceFile, u32)>,
    pub rtol: f64,
}

/// The first rule of the call that disagrees with finite differences on the operands it saw.
pub(crate) fn find(db: &RootDatabase, s: &Subject<'_>) -> Option<Related> {
    let source = s.key.rule_source(db, s.program);
    let mut rec = Recorder {
        source,
        ruled: HashMap::new(),
        seen_prims: HashSet::new(),
        met: Vec::new(),
    };
    zy_interp::run_watched(s.program, s.inst, s.args.clone(), s.limits, &mut rec).ok()?;
    rec.met.iter().find_map(|m| match m {
        Met::Rrule { inst, rule, args } => {
            let (name, ad, fd) = check_rrule(db, s, inst, args)?;
            let message = format!(
                "the in-source `rrule` for `{}` at {}: the gradient with respect to {name} is {} by the rule but {} by finite differences",
                inst.name,
                call_text(&inst.name, args, s.program.functions.get(inst).map(|f| &**f)),
                zy_ir::julia_float(ad),
                zy_ir::julia_float(significant(fd, 8)),
            );
            related(db, *rule, s.call, message)
        }
        Met::Prim {
            prim,
            span,
            ret,
            args,
        } => {
            let (which, ad, fd) = check_prim(*prim, ret, args, s.limits, s.rtol)?;
            let message = format!(
                "the derivative rule of `{}` at {}: the derivative with respect to {which} is {} by the rule but {} by finite differences",
                prim.julia_name(),
                call_text(prim.julia_name(), args, None),
                zy_ir::julia_float(ad),
                zy_ir::julia_float(significant(fd, 8)),
            );
            related(db, *span, s.call, message)
        }
    })
}

/// `f(2.0, [1.0, 2.0])`, without a closure's own (captured) argument.
fn call_text(name: &str, args: &[Value], func: Option<&Function>) -> String {
    let closure = func.is_some_and(|f| f.arg_names.first().is_some_and(|n| n.starts_with('#')));
    let shown: Vec<String> = args
        .iter()
        .skip(usize::from(closure))
        .map(describe)
        .collect();
    format!("{name}({})", shown.join(", "))
}

fn related(
    db: &RootDatabase,
    span: Span,
    call: Option<(SourceFile, u32)>,
    message: String,
) -> Option<Related> {
    let r = zy_hir::locate(db, span, call)?;
    let lc = zy_hir::line_col(db, r.file, r.start);
    Some(Related {
        file: r.file.path(db).clone(),
        line: lc.line,
        col: lc.col,
        start: r.start,
        end: r.end,
        message,
    })
}

/// The rrule's gradient of `inst` at `args` against one-sided differences of its code: the
/// first disagreement as (the argument, the rule's value, the estimate).
fn check_rrule(
    db: &RootDatabase,
    s: &Subject<'_>,
    inst: &Arc<Instance>,
    args: &[Value],
) -> Option<(String, f64, f64)> {
    let id = InstanceId::in_program(db, s.key, inst);
    let gradient = zy_hir::gradient(db, id).as_ref().ok()?;
    let primal = zy_hir::expanded(db, id).as_ref().ok()?;
    let copies = || args.iter().map(Value::deep_copy).collect::<Vec<_>>();
    let out = zy_interp::run(&gradient.program, &gradient.driver, copies(), s.limits).ok()?;
    let Value::Tuple(parts) = out else {
        return None;
    };
    let grads = match parts.get(1)? {
        Value::Tuple(gs) => gs.to_vec(),
        other => vec![other.clone()],
    };
    let value = |args: Vec<Value>| -> Result<f64, ()> {
        let y = zy_interp::run(primal, inst, args, s.limits).map_err(|_| ())?;
        y.as_f64().ok_or(())
    };
    let names = primal
        .functions
        .get(&**inst)
        .map(|f| f.arg_names.clone())
        .unwrap_or_default();
    for (i, (arg, g)) in args.iter().zip(&grads).enumerate() {
        let name = match names.get(i) {
            Some(n) if n.starts_with('#') => continue, // a closure's captures
            Some(n) if !n.is_empty() => format!("`{n}`"),
            _ => format!("argument {}", i + 1),
        };
        let found = first_difference(arg, g, s.rtol, |moved| {
            let mut all = copies();
            all[i] = moved;
            value(all)
        });
        if let Some((k, ad, fd)) = found.ok()? {
            return Some((format!("{name}{}", element(k)), ad, fd));
        }
    }
    None
}

/// The primitive's rule at `args` (the same rule the AD uses, through a one-statement
/// gradient) against one-sided differences of the primitive: the first disagreement as (which
/// operand, the rule's value, the estimate).
fn check_prim(
    prim: Prim,
    ret: &Type,
    args: &[Value],
    limits: &zy_interp::Limits,
    rtol: f64,
) -> Option<(String, f64, f64)> {
    let mut f = Function::new(format!("rule_{}", prim.julia_name()), Span::default());
    let mut operands = Vec::new();
    let mut inputs = Vec::new();
    let mut input_of = Vec::new();
    for a in args {
        match a {
            Value::Int(n) => operands.push(Operand::Const(Const::Int(*n))),
            Value::Bool(b) => operands.push(Operand::Const(Const::Bool(*b))),
            _ => {
                let x = f.add_param(Block::ENTRY, a.julia_type(), Span::default(), None);
                operands.push(Operand::Value(x));
                input_of.push(inputs.len());
                inputs.push(a.deep_copy());
                continue;
            }
        }
        input_of.push(usize::MAX);
    }
    let stmt = Stmt {
        op: Op::Prim(prim),
        args: operands,
    };
    let y = f.push_stmt(Block::ENTRY, stmt, ret.clone(), Span::default());
    f.set_term(Block::ENTRY, Terminator::Return(y.into()), Span::default());
    f.ret = ret.clone();
    let inst = Arc::new(Instance {
        name: f.name.clone(),
        method: 0,
        args: f.args().iter().map(|a| f.ty(*a).clone()).collect(),
    });
    f.instance = Some(inst.clone());
    let mut prog = TypedProgram::default();
    prog.functions.insert(inst.clone(), Arc::new(f));
    let (driver, prog) = zy_ad::gradient_program(&prog, &inst).ok()?;
    let copies = || inputs.iter().map(Value::deep_copy).collect::<Vec<_>>();
    let out = zy_interp::run(&prog, &driver, copies(), limits).ok()?;
    let Value::Tuple(parts) = out else {
        return None;
    };
    let grads = match parts.get(1)? {
        Value::Tuple(gs) => gs.to_vec(),
        other => vec![other.clone()],
    };
    let value = |inputs: Vec<Value>| -> Result<f64, ()> {
        let mut k = inputs.into_iter();
        let all: Vec<Value> = args
            .iter()
            .zip(&input_of)
            .map(|(a, &j)| match j {
                usize::MAX => a.clone(),
                _ => k.next().unwrap_or(Value::Nothing),
            })
            .collect();
        let y = zy_interp::eval_prim(prim, &all, ret).map_err(|_| ())?;
        y.as_f64().ok_or(())
    };
    for (operand, &j) in input_of.iter().enumerate() {
        if j == usize::MAX {
            continue;
        }
        let found = first_difference(&inputs[j], grads.get(j)?, rtol, |moved| {
            let mut all = copies();
            all[j] = moved;
            value(all)
        });
        if let Some((k, ad, fd)) = found.ok()? {
            let which = format!(
                "its {} operand{}",
                crate::nonfinite::ordinal(operand as u64 + 1),
                element(k)
            );
            return Some((which, ad, fd));
        }
    }
    None
}

/// A disagreement at one Float64 leaf: which element of its argument (of several), the
/// gradient's value and the finite-difference estimate.
type Difference = (Option<usize>, f64, f64);

/// The first Float64 leaf of `arg` whose gradient in `g` lies outside the one-sided differences
/// of `value` (the function of `arg` moved); `Ok(None)` when every leaf agrees, `Err` when the
/// function cannot be run around `arg` (outside its domain), which judges nothing.
fn first_difference(
    arg: &Value,
    g: &Value,
    rtol: f64,
    mut value: impl FnMut(Value) -> Result<f64, ()>,
) -> Result<Option<Difference>, ()> {
    let xs = arg.float_leaves();
    let mut ad = Vec::new();
    grad_leaves(arg, g, &mut ad);
    let y0 = value(arg.deep_copy())?;
    for (k, (&x, &g)) in xs.iter().zip(&ad).enumerate() {
        let at = |h: f64| {
            let mut moved = xs.clone();
            moved[k] = x + h;
            value(arg.with_float_leaves(&moved).ok_or(())?)
        };
        if let Verdict::Differs { fd } = Fd::rrule(rtol).check(g, x, Some(y0), at)? {
            return Ok(Some(((xs.len() > 1).then_some(k), g, fd)));
        }
    }
    Ok(None)
}

/// ` at element 2` for an element of an array or struct argument.
fn element(k: Option<usize>) -> String {
    k.map_or_else(String::new, |k| format!(" at element {}", k + 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(prim: Prim, args: &[Value]) -> Option<(String, f64, f64)> {
        check_prim(
            prim,
            &Type::Float64,
            args,
            &zy_interp::Limits::default(),
            1e-5,
        )
    }

    #[test]
    fn primitive_rules_agree_with_finite_differences_on_recorded_operands() {
        // Numbers, an Int operand kept as a constant, arrays, and a kink (any subgradient).
        let v = || Value::vector_f64(vec![1.0, -2.0, 3.0]);
        assert_eq!(check(Prim::Sin, &[Value::F64(0.7)]), None);
        assert_eq!(check(Prim::Log, &[Value::F64(2.5)]), None);
        assert_eq!(check(Prim::Mul, &[Value::F64(2.0), Value::F64(-3.0)]), None);
        assert_eq!(check(Prim::Pow, &[Value::F64(1.5), Value::Int(3)]), None);
        assert_eq!(check(Prim::Sum, &[v()]), None);
        assert_eq!(check(Prim::Dot, &[v(), v()]), None);
        // Outside the domain on one side: nothing is judged.
        assert_eq!(check(Prim::Log, &[Value::F64(0.0)]), None);
    }

    #[test]
    fn a_disagreement_is_reported_with_the_operand_and_both_numbers() {
        let ok = first_difference(&Value::F64(2.0), &Value::F64(4.0), 1e-5, |x| {
            x.as_f64().map(|x| x * x).ok_or(())
        });
        assert_eq!(ok, Ok(None));
        let v = Value::vector_f64(vec![1.0, 2.0]);
        let g = Value::vector_f64(vec![2.0, 3.0]);
        let Ok(Some((k, ad, fd))) = first_difference(&v, &g, 1e-5, |x| {
            Ok(x.float_leaves().iter().map(|x| x * x).sum())
        }) else {
            panic!("the wrong second entry passed")
        };
        assert_eq!((k, ad), (Some(1), 3.0));
        assert!((fd - 4.0).abs() < 1e-4, "{fd}");
    }
}
