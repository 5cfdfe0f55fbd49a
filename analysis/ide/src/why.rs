//! Why an argument's gradient is `nothing` or zero: the chain of reasons, from the
//! reaching-gradient analysis of the called function (not differentiable, never read, cut by a
//! non-differentiable or piecewise-constant operation) and, for a gradient that reaches the
//! argument but is zero on this call, from a watched run of the call (the statements that use
//! the argument did not run: a branch went the other way).

use std::collections::HashSet;
use std::path::PathBuf;

use zy_ad::activity::ArgGradient;
use zy_hir::{RootDatabase, SourceFile};
use zy_interp::{Step, Value, Watch};
use zy_ir::{Block, Function, Op, Operand, Span, Terminator, Type, TypedProgram};

/// Why one argument's gradient is `nothing` or zero.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Why {
    /// The argument's position among the call's arguments (0-based).
    pub arg: usize,
    /// Its name as written.
    pub name: String,
    /// Where the reason is: the cutting operation, the branch, or the parameter.
    pub file: PathBuf,
    pub line: u32,
    pub col: u32,
    /// The reason: "cut by `round` at line 5: ...".
    pub message: String,
}

impl Why {
    /// `{"arg", "name", "file", "line", "col", "message"}`.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "arg": self.arg,
            "name": self.name,
            "file": self.file.display().to_string(),
            "line": self.line,
            "col": self.col,
            "message": self.message,
        })
    }
}

impl std::fmt::Display for Why {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        crate::nonfinite::write_note(f, &self.file, self.line, self.col, &self.message)
    }
}

/// Whether a gradient is `nothing` or all zeros (with at least one Float64 in it).
pub(crate) fn is_nothing_or_zero(g: &Value) -> bool {
    match g {
        Value::Nothing => true,
        Value::F64(x) => *x == 0.0,
        _ => {
            let leaves = g.float_leaves();
            !leaves.is_empty() && leaves.iter().all(|&x| x == 0.0)
        }
    }
}

/// The statements of one function that ran in a watched call (primitive statements only).
struct Ran<'a> {
    func: &'a Function,
    stmts: HashSet<zy_ir::Value>,
}

impl Watch for Ran<'_> {
    fn before(&mut self, _: Step<'_>, _: &[Value]) {}

    fn after(&mut self, step: Step<'_>, _: &[Value], _: &Value) {
        if std::ptr::eq(step.func, self.func) {
            self.stmts.insert(step.value);
        }
    }
}

/// What the reasons are computed from: the call's program and specialisation, its arguments,
/// and where its spans are.
pub(crate) struct Subject<'a> {
    pub program: &'a TypedProgram,
    pub inst: &'a zy_ir::Instance,
    /// A fresh evaluation of the arguments (`None` if it fails), asked for only when a reason
    /// needs the call to be run: most reasons are read from the code alone, and evaluating the
    /// arguments can cost more than the gradient did.
    pub args: &'a dyn Fn() -> Option<Vec<Value>>,
    pub skipped: usize,
    pub limits: &'a zy_interp::Limits,
    pub call: Option<(SourceFile, u32)>,
}

/// The reasons for each argument (after the `skipped` callee) whose gradient in `gradient` is
/// `nothing` or zero.
pub(crate) fn explain(db: &RootDatabase, s: &Subject<'_>, gradient: &[Value]) -> Vec<Why> {
    let Some(func) = s.program.functions.get(s.inst) else {
        return Vec::new();
    };
    let wanted: Vec<usize> = gradient
        .iter()
        .enumerate()
        .filter(|(_, g)| is_nothing_or_zero(g))
        .map(|(i, _)| i)
        .collect();
    if wanted.is_empty() {
        return Vec::new();
    }
    let activity = zy_ad::GlobalShadows::of(s.program).activity(func);
    let mut ran: Option<Option<HashSet<zy_ir::Value>>> = None;
    let mut out = Vec::new();
    for i in wanted {
        let k = i + s.skipped;
        let (Some(&arg), Some(why)) = (func.args().get(k), activity.args.get(k)) else {
            continue;
        };
        let name = match func.arg_names.get(k) {
            Some(n) if !n.is_empty() && !n.starts_with('#') => n.to_string(),
            _ => format!("argument {}", i + 1),
        };
        let param = func.value(arg).span;
        let ty = zy_interp::type_string(func.ty(arg));
        let (span, message) = match why {
            ArgGradient::NotDifferentiable => (
                param,
                format!("`{name}` is of type {ty}, which has no gradient (only floating-point values, and arrays, tuples and structs of them, do)"),
            ),
            ArgGradient::NoPath if activity.values.get(arg.index()).is_none_or(|a| a.uses.is_empty()) => (
                param,
                format!("`{name}` is never read: the result cannot depend on it, so its gradient is `nothing`"),
            ),
            ArgGradient::NoPath => (
                param,
                format!("`{name}` is read, but nothing read from it reaches the result (only conditions or discarded values): its gradient is `nothing`"),
            ),
            ArgGradient::Cut { op, span } => (
                *span,
                format!(
                    "`{name}` reaches the result only through `{}`, which has no derivative: its gradient is `nothing`",
                    op.julia_name()
                ),
            ),
            ArgGradient::Reaches if matches!(func.ret, Type::Int64 | Type::Bool) => (
                param,
                format!("the result is of type {}, which has no gradient: `{name}`'s gradient is `nothing`", zy_interp::type_string(&func.ret)),
            ),
            ArgGradient::Reaches if activity.inert(func, arg) => (
                param,
                if activity.values.get(arg.index()).is_none_or(|a| a.uses.is_empty()) {
                    format!("`{name}` is never read: the result cannot depend on it, so its gradient is zero")
                } else {
                    format!("`{name}` is read only for what has no derivative (its length or size, or values that do not reach the result): its gradient is zero")
                },
            ),
            ArgGradient::Reaches => {
                if let Some(v) = crate::check::zero_cut(func, arg) {
                    let op = match func.stmt(v).map(|st| &st.op) {
                        Some(Op::Prim(p)) => p.julia_name(),
                        _ => "a piecewise-constant function",
                    };
                    (
                        func.value(v).span,
                        format!("`{name}` reaches the result only through `{op}`, which is piecewise constant: its gradient is zero"),
                    )
                } else {
                    let Some(ran) = ran.get_or_insert_with(|| watched_run(s, func)) else {
                        continue;
                    };
                    not_taken(func, arg, ran).map_or_else(
                        || {
                            (
                                param,
                                format!("a gradient reaches `{name}`, but on this call the adjoints arriving at it were zero (a product with zero, or a derivative that is zero here)"),
                            )
                        },
                        |branch| {
                            (
                                branch,
                                format!("a gradient reaches `{name}`, but not on this call: the statements that use it did not run, because this branch went the other way"),
                            )
                        },
                    )
                }
            }
        };
        let Some(r) =
            zy_hir::locate(db, span, s.call).or_else(|| zy_hir::locate(db, param, s.call))
        else {
            continue;
        };
        let lc = zy_hir::line_col(db, r.file, r.start);
        out.push(Why {
            arg: i,
            name,
            file: r.file.path(db).clone(),
            line: lc.line,
            col: lc.col,
            message,
        });
    }
    out
}

/// The primitive statements of `func` that ran when the call ran (`None` if its arguments
/// could not be evaluated).
fn watched_run(s: &Subject<'_>, func: &Function) -> Option<HashSet<zy_ir::Value>> {
    let args = (s.args)()?;
    let mut ran = Ran {
        func,
        stmts: HashSet::new(),
    };
    let _ = zy_interp::run_watched(s.program, s.inst, args, s.limits, &mut ran);
    Some(ran.stmts)
}

/// If no primitive statement that depends on `arg` ran, the span of a branch that led away from
/// one of them.
fn not_taken(func: &Function, arg: zy_ir::Value, ran: &HashSet<zy_ir::Value>) -> Option<Span> {
    let dependent = dependents(func, arg);
    let prims: Vec<zy_ir::Value> = dependent
        .iter()
        .copied()
        .filter(|&v| matches!(func.stmt(v).map(|s| &s.op), Some(Op::Prim(_))))
        .collect();
    if prims.is_empty() || prims.iter().any(|v| ran.contains(v)) {
        return None;
    }
    // The block of the first dependent statement, and a branch into it.
    let blocks: Vec<Block> = func.reverse_postorder();
    let target = blocks
        .iter()
        .copied()
        .find(|&b| func.block(b).stmts.iter().any(|v| prims.contains(v)))?;
    // Walk up single-predecessor jumps to the branch that chose the other path.
    let mut here = target;
    let mut seen = HashSet::new();
    while seen.insert(here) {
        let preds = zy_ir::cfg::predecessors_of(func, here);
        if let Some(&p) = preds
            .iter()
            .find(|&&p| matches!(func.block(p).term, Terminator::Branch { .. }))
        {
            return Some(func.block(p).term_span);
        }
        let [p] = preds[..] else { return None };
        here = p;
    }
    None
}

/// The statements of `func` whose value depends on `arg` (through operands and block
/// parameters).
fn dependents(func: &Function, arg: zy_ir::Value) -> Vec<zy_ir::Value> {
    let mut varied = vec![false; func.values.len()];
    varied[arg.index()] = true;
    let is_varied =
        |varied: &[bool], op: &Operand| op.as_value().is_some_and(|v| varied[v.index()]);
    let mut out = Vec::new();
    loop {
        let mut changed = false;
        for b in func.reverse_postorder() {
            let data = func.block(b);
            for &v in &data.stmts {
                let Some(s) = func.stmt(v) else { continue };
                if !varied[v.index()] && s.args.iter().any(|a| is_varied(&varied, a)) {
                    varied[v.index()] = true;
                    out.push(v);
                    changed = true;
                }
            }
            for call in data.term.calls() {
                let params = &func.block(call.block).params;
                for (&p, a) in params.iter().zip(&call.args) {
                    if !varied[p.index()] && is_varied(&varied, a) {
                        varied[p.index()] = true;
                        changed = true;
                    }
                }
            }
        }
        if !changed {
            return out;
        }
    }
}
