//! `checkpointed(f, args...)`: a call whose forward pass keeps only its arguments, and whose
//! pullback runs `f`'s forward pass again to rebuild the tape before running `f`'s pullback
//! (Zygote's `checkpointed`; Griewank's recomputation instead of storage).
//!
//! Inference gives each `checkpointed` call a synthesised instance whose body is the call
//! `f(args...)`. Its adjoint is built here instead of by the transform of that body:
//!
//! - `checkpointed⁺(args..., shadows...)` saves a snapshot of what the call may overwrite
//!   (the contents of the arrays, `Ref`s and mutable structs its arguments reach, when the
//!   call may write), runs the primal body, gives a fresh zero shadow to a result that needs
//!   one, and keeps the arguments, their shadows, the snapshot and that shadow as its tape.
//! - `checkpointed⁻(tape, ȳ)` puts the snapshot back (so the recomputation sees the arguments
//!   as they were on entry, which is what Julia's `f` saw), runs the *recompute* forward
//!   function `↺checkpointed⁺` (the transform of the body) on the same shadows, adds the
//!   gradient that reached the kept result shadow into the recomputed one, and calls the
//!   recomputed `back`. The recomputed pullback then leaves the arguments as they were on
//!   entry, as the plain tape's would.
//!
//! A result that is a tuple may hand back some arguments unchanged (the state threaded through
//! a checkpointed loop chunk, `# zy: checkpoint`): such a component's shadow is the
//! argument's own, in the forward pass and in the recomputation alike, so nothing is handed
//! over for it.
//!
//! The recomputation runs the same operations on the same values as the plain forward pass,
//! so the gradient is the plain one, bit for bit. Its tape is dead once its pullback ran:
//! `checkpointed⁻` releases the stacks made since it started (`stack_mark`/`stack_release`),
//! which the JIT then reuses.

use std::sync::Arc;

use zy_ir::{
    Block, BlockCall, Const, Function, Instance, Name, Op, Operand, Prim, Span, SsaBuilder, Stmt,
    Terminator, Type, TypedProgram, ValueKind,
};

use crate::globals::GlobalShadows;
use crate::rules::Emit;
use crate::tangent::{fdata_type, has_fdata, rdata_type};
use crate::{driver, inline, names, simplify, transform, AdError, AdjointOrigin, InstanceAdjoint};

/// Is `inst` the synthesised instance of a `checkpointed(f, args...)` call?
pub fn is_checkpointed(inst: &Instance) -> bool {
    &*inst.name == "checkpointed" && inst.method == zy_infer::SYNTH_METHOD
}

/// The adjoint of the checkpointed call `inst` (body `func`, a function of `prog`): the
/// forward and pullback described in the module documentation, with the recompute forward
/// and pullback functions as support.
pub(crate) fn adjoint(
    prog: &TypedProgram,
    globals: &GlobalShadows,
    inst: &Arc<Instance>,
    func: &Function,
) -> Result<InstanceAdjoint, AdError> {
    let span = call_span(func);
    let reached = globals.reached(inst);
    let mutates = driver::may_mutate(prog, inst);
    let passed = passed_through(prog, inst);
    let fresh = fresh_result(prog, inst, &passed);
    if let Some(why) = refusal(mutates, fresh, reached, &func.ret, &passed) {
        return Err(AdError::new(span, why));
    }
    if let Some(why) = carries_object_array(inst, &func.ret) {
        return Err(AdError::new(span, why));
    }
    let mut body = inline::inline_generated(func, prog);
    if body != *func {
        simplify::tidy(&mut body);
    }
    let recompute = names::recompute_instance(inst);
    let inner = transform::adjoint(&recompute, &body, &globals.aliased(&recompute, inst))?;
    let forward = forward(inst, func, reached, mutates, &passed, span)?;
    let pullback = pullback(inst, &recompute, func, &forward.tape, &passed, span)?;
    zy_ir::debug_verify(&forward.func, "the checkpoint adjoint");
    zy_ir::debug_verify(&pullback, "the checkpoint adjoint");
    let mut support = TypedProgram::default();
    support
        .functions
        .insert(names::forward_instance(&recompute), Arc::new(inner.forward));
    support.functions.insert(
        names::pullback_instance(&recompute),
        Arc::new(inner.pullback),
    );
    Ok(InstanceAdjoint {
        forward: Arc::new(forward.func),
        pullback: Arc::new(pullback),
        callees: inner.callees,
        origin: AdjointOrigin::Derived {
            body: Arc::new(body),
        },
        support,
    })
}

/// Refuse, at the call, a `checkpointed` call in `body` (a function of `prog` being
/// differentiated) whose adjoint [`adjoint`] cannot build: its own instance has no source
/// location to report.
pub(crate) fn check_calls(
    prog: &TypedProgram,
    globals: &GlobalShadows,
    body: &Function,
) -> Result<(), AdError> {
    for d in &body.values {
        let ValueKind::Stmt(Stmt {
            op: Op::Invoke(inst),
            ..
        }) = &d.kind
        else {
            continue;
        };
        if is_checkpointed(inst) {
            let mutates = driver::may_mutate(prog, inst);
            let passed = passed_through(prog, inst);
            let fresh = fresh_result(prog, inst, &passed);
            if let Some(why) = refusal(mutates, fresh, globals.reached(inst), &d.ty, &passed)
                .or_else(|| carries_object_array(inst, &d.ty))
            {
                return Err(AdError::new(d.span, why));
            }
        }
    }
    Ok(())
}

/// Why a checkpointed call `inst` with result type `ret` cannot carry what it does: a vector of
/// arrays or structs, whose shadow holds the elements' own, which the recomputation from a
/// copy would not keep.
fn carries_object_array(inst: &Instance, ret: &Type) -> Option<String> {
    let (t, _) = inst
        .args
        .iter()
        .chain([ret])
        .find_map(crate::tangent::object_array)?;
    let why = "under `checkpointed` or a `# zy: checkpoint` loop, which does not carry it yet; \
               leave the loop unannotated";
    Some(crate::tangent::object_array_refusal(&t, why))
}

/// Why a checkpointed call that `mutates` (or not), whose result is `fresh` (see
/// [`fresh_result`]) or not, reaching the globals `reached`, with a result of type `ret` whose
/// components `passed` are arguments (see [`passed_through`]), cannot be differentiated, if it
/// cannot.
fn refusal(
    mutates: bool,
    fresh: bool,
    reached: &[(Name, Type)],
    ret: &Type,
    passed: &[Option<usize>],
) -> Option<String> {
    if mutates && !reached.is_empty() {
        return Some("`checkpointed` of a function that may write to a global is not supported: the recomputation cannot restore a global".into());
    }
    if !fresh {
        return Some(format!("`checkpointed` of a function that may return its argument, a global or a part of one ({ret}) is not supported: the result's gradient would not reach the argument's"));
    }
    let handed_over = match passed.is_empty() {
        true => shadow_handed_over(ret),
        false => ret
            .field_types()
            .unwrap_or_default()
            .iter()
            .zip(passed)
            .all(|(t, p)| p.is_some() || shadow_handed_over(t)),
    };
    if !handed_over {
        return Some(format!("`checkpointed` of a function returning {ret} is not supported: its result holds mutable objects inside a mutable one, whose gradient cannot be handed to the recomputed call"));
    }
    None
}

/// Is the result of `inst` in `prog`, apart from the components `passed` through from its
/// arguments, certainly a new object wherever it holds mutable parts (never an argument's, a
/// global's or a part of one)? Only then may the forward pass give it a shadow of its own:
/// the plain tape would share an argument's shadow with it.
fn fresh_result(prog: &TypedProgram, inst: &Instance, passed: &[Option<usize>]) -> bool {
    let mut visiting = Vec::new();
    if !passed.iter().any(Option::is_some) {
        return result_is_fresh(prog, inst, &mut visiting);
    }
    let Some((callee, _)) = called(prog, inst) else {
        return false;
    };
    let Some(f) = prog.functions.get(&callee) else {
        return false;
    };
    visiting.push((*callee).clone());
    let mut seen = Vec::new();
    returned_tuples(f).is_some_and(|returns| {
        returns.iter().all(|parts| {
            parts
                .iter()
                .zip(passed)
                .all(|(x, p)| p.is_some() || is_fresh(prog, f, x, &mut visiting, &mut seen))
        })
    })
}

/// For each component of the tuple that the checkpointed call `inst` returns, the argument of
/// the call (its position among `checkpointed`'s operands) that it is on every return, the
/// same object, if any; empty when the result is not such a tuple.
///
/// A component is that argument when it is the parameter itself, a φ every value entering
/// which is, or the same component of a `checkpointed` call's result that hands back an
/// operand which is: so the recursive step of a Revolve-scheduled loop (`# zy: checkpoint
/// snapshots=K`), which reads its state back from a `checkpointed` call of itself in a loop,
/// hands its arrays back too. A call of `inst` itself is assumed to hand back what is being
/// decided, and the assumption is narrowed until it holds (a greatest fixed point).
fn passed_through(prog: &TypedProgram, inst: &Instance) -> Vec<Option<usize>> {
    let passed: Vec<Option<usize>> = passed_through_in(prog, inst, &mut Vec::new())
        .iter()
        .map(Passed::param)
        .collect();
    match passed.iter().any(Option::is_some) {
        true => passed,
        false => Vec::new(),
    }
}

/// [`passed_through`], with `assumed` the hypotheses for the instances being decided.
fn passed_through_in(
    prog: &TypedProgram,
    inst: &Instance,
    assumed: &mut Vec<(Instance, Vec<Passed>)>,
) -> Vec<Passed> {
    if let Some((_, h)) = assumed.iter().find(|(i, _)| i == inst) {
        return h.clone();
    }
    let Some((callee, call_args)) = called(prog, inst) else {
        return Vec::new();
    };
    let (Some(body), Some(f)) = (prog.functions.get(inst), prog.functions.get(&callee)) else {
        return Vec::new();
    };
    let Some(returns) = returned_tuples(f) else {
        return Vec::new();
    };
    let width = returns.first().map_or(0, Vec::len);
    // As `inst`'s operands: the position among `checkpointed`'s operands of `f`'s parameter.
    let operand_of = |p: usize| match call_args.get(p).and_then(|x| x.as_value()) {
        Some(v) => match body.value(v).kind {
            ValueKind::Param { block, index } if block == Block::ENTRY => Some(index as usize),
            _ => None,
        },
        None => None,
    };
    assumed.push((inst.clone(), vec![Passed::Unknown; width]));
    let found = loop {
        let mut found = vec![Passed::Unknown; width];
        for parts in &returns {
            for (j, x) in parts.iter().enumerate() {
                let p = param_of(prog, f, x, assumed, &mut Vec::new());
                let p = match p {
                    Passed::Param(p) => operand_of(p).map_or(Passed::No, Passed::Param),
                    other => other,
                };
                if let Some(slot) = found.get_mut(j) {
                    *slot = slot.meet(p);
                }
            }
        }
        let Some(last) = assumed.last_mut() else {
            break found;
        };
        if last.1 == found {
            break found;
        }
        last.1 = found;
    };
    assumed.pop();
    found
}

/// What a value is known to be, as one of the entry parameters of its function.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Passed {
    /// Nothing is known against it yet (a φ being decided, an assumption not yet narrowed).
    Unknown,
    /// The entry parameter of that index, wherever it comes from.
    Param(usize),
    /// Not (always) one parameter.
    No,
}

impl Passed {
    /// What both `self` and `other` are.
    fn meet(self, other: Passed) -> Passed {
        match (self, other) {
            (Passed::Unknown, x) | (x, Passed::Unknown) => x,
            (Passed::Param(a), Passed::Param(b)) if a == b => Passed::Param(a),
            _ => Passed::No,
        }
    }

    /// The parameter, if known to be one.
    fn param(&self) -> Option<usize> {
        match self {
            Passed::Param(p) => Some(*p),
            _ => None,
        }
    }
}

/// Which entry parameter of `f` the operand `x` is (see [`passed_through`]); `seen`: the φs
/// being decided.
fn param_of(
    prog: &TypedProgram,
    f: &Function,
    x: &Operand,
    assumed: &mut Vec<(Instance, Vec<Passed>)>,
    seen: &mut Vec<zy_ir::Value>,
) -> Passed {
    let Some(v) = x.as_value() else {
        return Passed::No;
    };
    match &f.value(v).kind {
        ValueKind::Param { block, index } if *block == Block::ENTRY => {
            Passed::Param(*index as usize)
        }
        ValueKind::Param { block, index } => {
            if seen.contains(&v) {
                return Passed::Unknown;
            }
            seen.push(v);
            let mut out = Passed::Unknown;
            for b in f.block_ids() {
                for c in f.block(b).term.calls() {
                    if c.block == *block {
                        let a = c.args.get(*index as usize);
                        let p = a.map_or(Passed::No, |a| param_of(prog, f, a, assumed, seen));
                        out = out.meet(p);
                    }
                }
            }
            out
        }
        ValueKind::Stmt(Stmt {
            op: Op::Prim(Prim::GetField),
            args,
        }) => {
            let (Some(t), Some(Const::Int(k))) = (
                args.first().and_then(Operand::as_value),
                args.get(1).and_then(Operand::as_const),
            ) else {
                return Passed::No;
            };
            let Some(Stmt {
                op: Op::Invoke(c),
                args: operands,
            }) = f.stmt(t)
            else {
                return Passed::No;
            };
            if !is_checkpointed(c) {
                return Passed::No;
            }
            let handed = passed_through_in(prog, c, assumed);
            match usize::try_from(*k - 1).ok().and_then(|j| handed.get(j)) {
                Some(Passed::Unknown) => Passed::Unknown,
                Some(Passed::Param(q)) => match operands.get(*q) {
                    Some(a) => param_of(prog, f, a, assumed, seen),
                    None => Passed::No,
                },
                _ => Passed::No,
            }
        }
        _ => Passed::No,
    }
}

/// The instance the synthesised body of the checkpointed call `inst` calls, and its operands.
fn called(prog: &TypedProgram, inst: &Instance) -> Option<(Arc<Instance>, Vec<Operand>)> {
    let body = prog.functions.get(inst)?;
    let [Terminator::Return(y)] = body
        .blocks
        .iter()
        .map(|b| &b.term)
        .filter(|t| matches!(t, Terminator::Return(_)))
        .collect::<Vec<_>>()[..]
    else {
        return None;
    };
    match &body.value(y.as_value()?).kind {
        ValueKind::Stmt(Stmt {
            op: Op::Invoke(c),
            args,
        }) => Some((c.clone(), args.clone())),
        _ => None,
    }
}

/// The components of each tuple `f` returns, if every return is a tuple built in `f`.
fn returned_tuples(f: &Function) -> Option<Vec<Vec<Operand>>> {
    let mut out = Vec::new();
    for b in &f.blocks {
        if let Terminator::Return(x) = &b.term {
            match &f.value(x.as_value()?).kind {
                ValueKind::Stmt(Stmt {
                    op: Op::Prim(Prim::Tuple),
                    args,
                }) => out.push(args.clone()),
                _ => return None,
            }
        }
    }
    Some(out)
}

/// Is every result of `inst` in `prog` a new object wherever it holds mutable parts (never an
/// argument's, a global's or a part of one)? The activity takes the array such a callee
/// returns, given only constants, as a constant.
pub(crate) fn returns_fresh(prog: &TypedProgram, inst: &Instance) -> bool {
    result_is_fresh(prog, inst, &mut Vec::new())
}

fn result_is_fresh(prog: &TypedProgram, inst: &Instance, visiting: &mut Vec<Instance>) -> bool {
    let Some(f) = prog.functions.get(inst) else {
        return false;
    };
    if !has_fdata(&f.ret) {
        return true;
    }
    if visiting.contains(inst) {
        // Recursion: the other returns decide.
        return true;
    }
    visiting.push(inst.clone());
    let mut seen = Vec::new();
    let fresh = f.blocks.iter().all(|b| match &b.term {
        Terminator::Return(x) => is_fresh(prog, f, x, visiting, &mut seen),
        _ => true,
    });
    visiting.pop();
    fresh
}

/// Is `x` in `f` a new object wherever it holds mutable parts? `seen`: the φs being decided
/// (a loop-carried value is fresh when every value entering it is).
fn is_fresh(
    prog: &TypedProgram,
    f: &Function,
    x: &Operand,
    visiting: &mut Vec<Instance>,
    seen: &mut Vec<zy_ir::Value>,
) -> bool {
    let Some(v) = x.as_value() else {
        return true;
    };
    if !has_fdata(f.ty(v)) || seen.contains(&v) {
        return true;
    }
    seen.push(v);
    match &f.value(v).kind {
        ValueKind::Param { block, index } => {
            *block != Block::ENTRY
                && f.block_ids().all(|b| {
                    f.block(b).term.calls().iter().all(|c| {
                        c.block != *block
                            || c.args
                                .get(*index as usize)
                                .is_none_or(|a| is_fresh(prog, f, a, visiting, seen))
                    })
                })
        }
        ValueKind::Stmt(s) => match &s.op {
            Op::Invoke(c) => result_is_fresh(prog, c, visiting),
            Op::New(_) | Op::Prim(Prim::Tuple | Prim::NamedTuple | Prim::IfElse | Prim::RefNew) => {
                s.args.iter().all(|a| is_fresh(prog, f, a, visiting, seen))
            }
            Op::Prim(Prim::GetField | Prim::TupleIndex) => s
                .args
                .first()
                .is_some_and(|a| is_fresh(prog, f, a, visiting, seen)),
            // Arithmetic on arrays makes a new array.
            Op::Prim(Prim::Add | Prim::Sub | Prim::Mul | Prim::Div | Prim::Neg) => true,
            Op::Prim(p) => p.info().effects.allocates,
            _ => false,
        },
    }
}

/// Can the shadow of a result of type `ty` be added into another (see [`Gen::accum_fdata`])?
fn shadow_handed_over(ty: &Type) -> bool {
    match ty {
        _ if !has_fdata(ty) => true,
        Type::Array(..) => true,
        _ if ty.is_mutable() => plain_box(ty),
        _ => ty
            .field_types()
            .is_some_and(|fs| fs.iter().all(shadow_handed_over)),
    }
}

/// Where the checkpointed call is written: the span of the call in the body (the synthesised
/// body has none of its own).
fn call_span(func: &Function) -> Span {
    func.values
        .iter()
        .map(|d| d.span)
        .find(|s| *s != Span::default())
        .unwrap_or(func.span)
}

/// What the forward function keeps, in tape order.
struct Tape {
    ty: Type,
    /// Per argument of the call: its position in the tape, its shadow's, and its snapshot's.
    args: Vec<KeptArg>,
    /// The global shadows passed on to the recomputation.
    globals: Vec<usize>,
    /// The result's shadow, if it has one.
    result_shadow: Option<usize>,
}

struct KeptArg {
    ty: Type,
    value: usize,
    shadow: Option<usize>,
    snapshot: Option<(usize, Type)>,
}

struct Forward {
    func: Function,
    tape: Tape,
}

fn emit<'a>(sb: &'a mut SsaBuilder, block: Block, span: Span) -> Emit<'a> {
    Emit {
        bcast: None,
        b: sb,
        block,
        span,
    }
}

/// `checkpointed⁺(args..., shadows..., global shadows...)`: snapshot, primal call, tape.
fn forward(
    inst: &Arc<Instance>,
    func: &Function,
    reached: &[(Name, Type)],
    mutates: bool,
    passed: &[Option<usize>],
    span: Span,
) -> Result<Forward, AdError> {
    let fwd = names::forward_instance(inst);
    let mut out = Function::new(fwd.name.clone(), span);
    out.instance = Some(fwd);
    out.arg_names = func.arg_names.clone();
    let mut params = Vec::new();
    for &a in func.args() {
        let ty = func.ty(a).clone();
        let x = out.add_param(Block::ENTRY, ty.clone(), span, func.value(a).name.clone());
        let s = has_fdata(&ty).then(|| out.add_param(Block::ENTRY, fdata_type(&ty), span, None));
        params.push((x, s, ty));
    }
    let gparams: Vec<_> = reached
        .iter()
        .map(|(name, ty)| {
            let n = Some(format!("{name}_f").into());
            out.add_param(Block::ENTRY, fdata_type(ty), span, n)
        })
        .collect();
    let mut sb = SsaBuilder::new(out);
    let mut e = emit(&mut sb, Block::ENTRY, span);
    let mut parts: Vec<Operand> = Vec::new();
    let mut tys: Vec<Type> = Vec::new();
    let mut keep = |parts: &mut Vec<Operand>, x: Operand, ty: Type| {
        parts.push(x);
        tys.push(ty);
        parts.len() - 1
    };
    let mut args = Vec::new();
    for (x, s, ty) in &params {
        let value = keep(&mut parts, (*x).into(), ty.clone());
        let shadow = s.map(|s| keep(&mut parts, s.into(), fdata_type(ty)));
        let snapshot = match mutates {
            true => {
                snapshot(&mut e, (*x).into(), ty).map(|(v, t)| (keep(&mut parts, v, t.clone()), t))
            }
            false => None,
        };
        args.push(KeptArg {
            ty: ty.clone(),
            value,
            shadow,
            snapshot,
        });
    }
    let globals = reached
        .iter()
        .zip(&gparams)
        .map(|((_, ty), g)| keep(&mut parts, (*g).into(), fdata_type(ty)))
        .collect();
    let call_args = params.iter().map(|(x, _, _)| (*x).into()).collect();
    let y = e.op(Op::Invoke(inst.clone()), call_args, func.ret.clone());
    let y_f = match passed.is_empty() {
        true => e.zero_fdata(y.clone(), &func.ret),
        false => {
            // A component passed through has its argument's shadow; the others fresh ones.
            let fty = fdata_type(&func.ret);
            let tys = func.ret.field_types().unwrap_or_default();
            let parts = tys
                .iter()
                .zip(passed)
                .enumerate()
                .map(|(j, (t, p))| {
                    let own = p.and_then(|q| params.get(q)).and_then(|(_, s, _)| *s);
                    match own {
                        Some(s) => s.into(),
                        None => {
                            let yj = e.field(y.clone(), j, &func.ret);
                            e.zero_fdata(yj, t).unwrap_or(Const::Nothing.into())
                        }
                    }
                })
                .collect();
            (fty != Type::Nothing).then(|| e.rebuild(&fty, parts))
        }
    };
    let result_shadow = y_f
        .clone()
        .map(|s| keep(&mut parts, s, fdata_type(&func.ret)));
    let tape_ty = Type::tuple(tys);
    let tape = e.prim(Prim::Tuple, parts, tape_ty.clone());
    let pb = names::pullback_instance(inst);
    let back = e.prim(
        Prim::MakePullback,
        vec![
            Const::Func(pb.name.clone()).into(),
            Const::Int(i64::from(pb.method)).into(),
            tape,
        ],
        Type::Pullback(pb.args.clone()),
    );
    let ret = names::forward_ret(inst, &func.ret);
    let mut out = vec![y];
    out.extend(y_f);
    out.push(back);
    let r = e.prim(Prim::Tuple, out, ret.clone());
    sb.func.set_term(Block::ENTRY, Terminator::Return(r), span);
    sb.func.ret = ret;
    Ok(Forward {
        func: sb.finish(),
        tape: Tape {
            ty: tape_ty,
            args,
            globals,
            result_shadow,
        },
    })
}

/// `checkpointed⁻(tape, ȳ)`: restore, recompute, add the kept result shadow, pull back.
fn pullback(
    inst: &Arc<Instance>,
    recompute: &Arc<Instance>,
    func: &Function,
    tape: &Tape,
    passed: &[Option<usize>],
    span: Span,
) -> Result<Function, AdError> {
    let pb = names::pullback_instance(inst);
    let mut out = Function::new(pb.name.clone(), span);
    out.instance = Some(pb);
    let t: Operand = out
        .add_param(Block::ENTRY, tape.ty.clone(), span, Some("tape".into()))
        .into();
    let dy: Operand = out
        .add_param(Block::ENTRY, rdata_type(&func.ret), span, Some("ȳ".into()))
        .into();
    let mut g = Gen {
        sb: SsaBuilder::new(out),
        at: Block::ENTRY,
        span,
    };
    // The recomputed tape's stacks die with its pullback: the JIT reuses them for the next
    // recomputation (`stack_release` below), so chunk after chunk runs in one chunk's memory.
    let mark = g.e().prim(Prim::StackMark, vec![], Type::Int64);
    let mut call_args = Vec::new();
    for a in &tape.args {
        let x = g.field(&t, a.value, &tape.ty);
        if let Some((k, sty)) = &a.snapshot {
            let s = g.field(&t, *k, &tape.ty);
            g.restore(x.clone(), s, &a.ty, sty)?;
        }
        call_args.push(x);
        if let Some(k) = a.shadow {
            call_args.push(g.field(&t, k, &tape.ty));
        }
    }
    for &k in &tape.globals {
        call_args.push(g.field(&t, k, &tape.ty));
    }
    let ret = names::forward_ret(recompute, &func.ret);
    let r = g.e().op(
        Op::Invoke(names::forward_instance(recompute)),
        call_args,
        ret.clone(),
    );
    let fields = ret.field_types().unwrap_or_default();
    if let Some(k) = tape.result_shadow {
        let kept = g.field(&t, k, &tape.ty);
        let fresh = g.field(&r, 1, &ret);
        if passed.is_empty() {
            g.accum_fdata(fresh, kept, &func.ret)?;
        } else {
            // A component passed through: the kept and the recomputed shadow are the
            // argument's own, the same object.
            let fty = fdata_type(&func.ret);
            let tys = func.ret.field_types().unwrap_or_default();
            for (j, (t, p)) in tys.iter().zip(passed).enumerate() {
                if p.is_none() && has_fdata(t) {
                    let d = g.field(&fresh, j, &fty);
                    let s = g.field(&kept, j, &fty);
                    g.accum_fdata(d, s, t)?;
                }
            }
        }
    }
    let back = g.field(&r, fields.len().saturating_sub(1), &ret);
    let gty = Type::tuple(tape.args.iter().map(|a| rdata_type(&a.ty)));
    let grads = g.e().prim(Prim::CallPullback, vec![back, dy], gty.clone());
    g.e().prim(Prim::StackRelease, vec![mark], Type::Nothing);
    g.sb.func.set_term(g.at, Terminator::Return(grads), span);
    g.sb.func.ret = gty;
    Ok(g.sb.finish())
}

/// A snapshot of the contents of the objects `x :: ty` reaches, and its type (`None` if it
/// reaches none): an array's copy; for a `Ref` or mutable struct, its contents and their
/// snapshots; for a tuple or immutable struct, its fields' snapshots.
fn snapshot(e: &mut Emit, x: Operand, ty: &Type) -> Option<(Operand, Type)> {
    if !ty.reaches_mutable() {
        return None;
    }
    match ty {
        Type::Array(..) => Some((e.prim(Prim::Copy, vec![x], ty.clone()), ty.clone())),
        Type::Ref(inner) => {
            let c = e.prim(Prim::RefGet, vec![x], (**inner).clone());
            Some(contents(e, vec![(c, (**inner).clone())]))
        }
        _ => {
            let fields = ty.field_types().unwrap_or_default();
            let parts = fields
                .iter()
                .enumerate()
                .map(|(i, ft)| (e.field(x.clone(), i, ty), ft.clone()))
                .collect();
            if ty.is_mutable() {
                return Some(contents(e, parts));
            }
            let (vals, tys): (Vec<Operand>, Vec<Type>) = parts
                .into_iter()
                .map(|(f, ft)| {
                    snapshot(e, f, &ft).unwrap_or((Const::Nothing.into(), Type::Nothing))
                })
                .unzip();
            let sty = Type::tuple(tys);
            Some((e.prim(Prim::Tuple, vals, sty.clone()), sty))
        }
    }
}

/// The snapshot of a mutable container holding `parts`: `(parts..., their snapshots...)`.
fn contents(e: &mut Emit, parts: Vec<(Operand, Type)>) -> (Operand, Type) {
    let mut vals: Vec<Operand> = parts.iter().map(|(p, _)| p.clone()).collect();
    let mut tys: Vec<Type> = parts.iter().map(|(_, t)| t.clone()).collect();
    for (p, t) in parts {
        let (s, st) = snapshot(e, p, &t).unwrap_or((Const::Nothing.into(), Type::Nothing));
        vals.push(s);
        tys.push(st);
    }
    let sty = Type::tuple(tys);
    (e.prim(Prim::Tuple, vals, sty.clone()), sty)
}

/// Is `ty` a `Ref` or mutable struct holding no mutable objects (its shadow a box of their
/// tangent)?
fn plain_box(ty: &Type) -> bool {
    match ty {
        Type::Ref(elem) => !has_fdata(elem),
        Type::Struct(s) if s.mutable => !s.fields.iter().any(|(_, t)| has_fdata(t)),
        _ => false,
    }
}

/// Straight-line and looping code of the pullback, emitted at the end of block `at`.
struct Gen {
    sb: SsaBuilder,
    at: Block,
    span: Span,
}

impl Gen {
    fn e(&mut self) -> Emit<'_> {
        emit(&mut self.sb, self.at, self.span)
    }

    fn field(&mut self, x: &Operand, i: usize, ty: &Type) -> Operand {
        self.e().field(x.clone(), i, ty)
    }

    /// Put the snapshot `s :: sty` (from [`snapshot`]) back into the objects `x :: ty` reaches.
    fn restore(&mut self, x: Operand, s: Operand, ty: &Type, sty: &Type) -> Result<(), AdError> {
        match ty {
            Type::Array(elem, _) => {
                self.copy_elements(x, s, elem);
                Ok(())
            }
            Type::Ref(inner) => {
                let c = self.field(&s, 0, sty);
                self.e()
                    .prim(Prim::RefSet, vec![x, c.clone()], (**inner).clone());
                self.restore_contents(vec![(c, (**inner).clone())], &s, sty)
            }
            _ => {
                let fields = ty.field_types().unwrap_or_default();
                if ty.is_mutable() {
                    let mut parts = Vec::new();
                    for (i, ft) in fields.iter().enumerate() {
                        let c = self.field(&s, i, sty);
                        let at = Const::Int(i as i64 + 1).into();
                        self.e()
                            .prim(Prim::SetField, vec![x.clone(), at, c.clone()], ft.clone());
                        parts.push((c, ft.clone()));
                    }
                    return self.restore_contents(parts, &s, sty);
                }
                for (i, ft) in fields.iter().enumerate() {
                    if ft.reaches_mutable() {
                        let f = self.field(&x, i, ty);
                        let fs = self.field(&s, i, sty);
                        let fsty = sty.field_types().and_then(|t| t.get(i).cloned());
                        self.restore(f, fs, ft, &fsty.unwrap_or(Type::Nothing))?;
                    }
                }
                Ok(())
            }
        }
    }

    /// The second half of a container's snapshot `s`: the snapshots of its `parts`.
    fn restore_contents(
        &mut self,
        parts: Vec<(Operand, Type)>,
        s: &Operand,
        sty: &Type,
    ) -> Result<(), AdError> {
        let n = parts.len();
        for (i, (p, t)) in parts.into_iter().enumerate() {
            if t.reaches_mutable() {
                let ps = self.field(s, n + i, sty);
                let psty = sty.field_types().and_then(|ts| ts.get(n + i).cloned());
                self.restore(p, ps, &t, &psty.unwrap_or(Type::Nothing))?;
            }
        }
        Ok(())
    }

    /// `for k in 1:length(x); x[k] = s[k]; end` (linear indices, any number of dimensions).
    fn copy_elements(&mut self, x: Operand, s: Operand, elem: &Type) {
        let span = self.span;
        let n = self.e().prim(Prim::Length, vec![x.clone()], Type::Int64);
        let f = &mut self.sb.func;
        let (head, body, exit) = (f.add_block(), f.add_block(), f.add_block());
        let k: Operand = f
            .add_param(head, Type::Int64, span, Some("k".into()))
            .into();
        let start = BlockCall {
            block: head,
            args: vec![Const::Int(1).into()],
        };
        f.set_term(self.at, Terminator::Jump(start), span);
        self.at = head;
        let more = self.e().prim(Prim::Le, vec![k.clone(), n], Type::Bool);
        let test = Terminator::Branch {
            cond: more,
            then_to: BlockCall::new(body),
            else_to: BlockCall::new(exit),
        };
        self.sb.func.set_term(head, test, span);
        self.at = body;
        let v = self
            .e()
            .prim(Prim::GetIndex, vec![s, k.clone()], elem.clone());
        self.e()
            .prim(Prim::SetIndex, vec![x, v, k.clone()], elem.clone());
        let next = self
            .e()
            .prim(Prim::Add, vec![k, Const::Int(1).into()], Type::Int64);
        let again = BlockCall {
            block: head,
            args: vec![next],
        };
        self.sb.func.set_term(body, Terminator::Jump(again), span);
        self.at = exit;
    }

    /// Add the shadow `src` into the shadow `dst` of a value of type `ty`, in place.
    fn accum_fdata(&mut self, dst: Operand, src: Operand, ty: &Type) -> Result<(), AdError> {
        let fty = fdata_type(ty);
        match ty {
            Type::Array(..) => {
                self.e()
                    .prim(Prim::AccumInto, vec![dst, src], Type::Nothing);
            }
            _ if plain_box(ty) => {
                // A `Ref` or mutable struct of plain values: a box holding their tangent.
                let Type::Ref(inner) = &fty else {
                    return Ok(());
                };
                let inner = (**inner).clone();
                let a = self
                    .e()
                    .prim(Prim::RefGet, vec![dst.clone()], inner.clone());
                let b = self.e().prim(Prim::RefGet, vec![src], inner.clone());
                let sum = self.e().accum(&inner, a, b);
                self.e().prim(Prim::RefSet, vec![dst, sum], inner);
            }
            _ if !ty.is_mutable() => {
                for (i, ft) in ty.field_types().unwrap_or_default().iter().enumerate() {
                    if has_fdata(ft) {
                        let d = self.field(&dst, i, &fty);
                        let s = self.field(&src, i, &fty);
                        self.accum_fdata(d, s, ft)?;
                    }
                }
            }
            _ => {
                return Err(AdError::new(
                    self.span,
                    format!("internal error: no shadow addition for {ty} (refused earlier)"),
                ))
            }
        }
        Ok(())
    }
}
