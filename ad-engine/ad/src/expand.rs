//! Differentiation called from user code: `gradient`, `derivative`, `pullback` and calls of
//! the pullbacks they return become calls of generated functions (drivers `∇f`, forward
//! functions `f⁺`) before anything runs; forward mode's `pushforward`, `jvp`, `derivative`
//! and `hvp` become calls of directional drivers `∂ᵥf` over pushforwards `∂→f`.
//!
//! Drivers inline the forward and pullback passes, so differentiating a driver works (second
//! derivatives); `hvp` is the pushforward of the gradient's driver (forward over reverse) and
//! `hessian` its Hessian-vector products with the unit vectors, column by column.

use std::sync::Arc;

use rustc_hash::FxHashSet;
use zy_ir::{
    callable_name, Block, BlockCall, Const, Function, Instance, Op, Operand, Prim, Span, Stmt,
    Terminator, Type, TypedProgram, Value, ValueKind,
};

use crate::forward::{add_pushforwards, chunk, dual_type, pushforward_key, pushforward_ret};
use crate::globals::GlobalShadows;
use crate::rules::Emit;
use crate::{add_adjoints, driver, names, AdError};

/// Rewrite every use of the differentiation builtins in `prog`.
pub fn expand(prog: &TypedProgram) -> Result<TypedProgram, AdError> {
    expand_in(None, prog)
}

/// [`expand`], with the `rrule`s of `source` overriding derived adjoints.
pub fn expand_with_rrules(
    source: &dyn crate::RuleSource,
    prog: &TypedProgram,
) -> Result<TypedProgram, AdError> {
    expand_in(Some(source), prog)
}

fn expand_in(
    source: Option<&dyn crate::RuleSource>,
    prog: &TypedProgram,
) -> Result<TypedProgram, AdError> {
    let mut out = prog.clone();
    // Every user body is rewritten before any adjoint is built, so adjoints see rewritten code.
    let mut pending = Vec::new();
    let user: Vec<Arc<Instance>> = prog.functions.keys().cloned().collect();
    for inst in user {
        let func = (*prog.functions[&inst]).clone();
        if let Some(f) = expand_function(&mut out, &mut pending, func)? {
            zy_ir::debug_verify(&f, "expansion");
            out.functions.insert(inst, Arc::new(f));
        }
    }
    let globals: Vec<_> = prog
        .globals
        .iter()
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    for (name, g) in globals {
        if let Some(f) = expand_function(&mut out, &mut pending, (*g).clone())? {
            zy_ir::debug_verify(&f, "expansion");
            out.globals.insert(name, Arc::new(f));
        }
    }
    // Each generated function is built after the generated functions it reaches (a
    // pushforward of a driver, a driver of a function calling a pushforward).
    let mut done = FxHashSet::default();
    for item in pending.clone() {
        build(source, &mut out, &pending, &mut done, item)?;
    }
    Ok(out)
}

/// Build the generated code of `item` (see [`Pending`]) into `out`, after that of the other
/// `pending` items its function reaches.
fn build(
    source: Option<&dyn crate::RuleSource>,
    out: &mut TypedProgram,
    pending: &[(Arc<Instance>, Pending)],
    done: &mut FxHashSet<(Arc<Instance>, Pending)>,
    item: (Arc<Instance>, Pending),
) -> Result<(), AdError> {
    if !done.insert(item.clone()) {
        return Ok(());
    }
    for dep in reached_pending(out, pending, &item.0) {
        build(source, out, pending, done, dep)?;
    }
    let (inst, kind) = item;
    let out = &mut *out;
    let Some(func) = out.functions.get(&inst).cloned() else {
        return Ok(());
    };
    match kind {
        Pending::Driver => {
            if driver::is_scalar(&func.ret) {
                let before = out.clone();
                if let Err(e) = add_adjoints(source, out, &inst) {
                    *out = before;
                    return crate::forward_driver::add_forward_driver(source, out, &inst, e);
                }
            }
            let dinst = names::driver_instance(&inst);
            if !out.functions.contains_key(&dinst) {
                let mutates = driver::may_mutate(out, &inst);
                let globals = GlobalShadows::of(out);
                let (d, body) = driver::driver(
                    &inst,
                    &func,
                    crate::adjoint_of(out, &inst),
                    mutates,
                    &globals,
                )?;
                out.functions.insert(d, Arc::new(body));
            }
        }
        Pending::Pullback => {
            let pinst = names::pullback_driver_instance(&inst);
            if !out.functions.contains_key(&pinst) {
                add_adjoints(source, out, &inst)?;
                let globals = GlobalShadows::of(out);
                let (fwd, back) = driver::pullback_driver(&inst, &func, globals.reached(&inst))?;
                out.functions.insert(pinst, Arc::new(fwd));
                out.functions
                    .insert(names::user_pullback_instance(&inst), Arc::new(back));
            }
        }
        Pending::Pushforward { only_last } => {
            add_pushforwards(source, out, &inst, &directional_mask(&inst, only_last))?
        }
    }
    Ok(())
}

/// The pending items whose generated functions the functions reachable from `inst` call.
fn reached_pending(
    prog: &TypedProgram,
    pending: &[(Arc<Instance>, Pending)],
    inst: &Arc<Instance>,
) -> Vec<(Arc<Instance>, Pending)> {
    let generated = |i: &Instance, kind: Pending| match kind {
        Pending::Driver => names::driver_instance(i),
        Pending::Pullback => names::pullback_driver_instance(i),
        Pending::Pushforward { only_last } => pushforward_key(i, &directional_mask(i, only_last)),
    };
    let mut seen: FxHashSet<Arc<Instance>> = FxHashSet::default();
    let mut todo = vec![inst.clone()];
    let mut out = Vec::new();
    while let Some(i) = todo.pop() {
        if !seen.insert(i.clone()) {
            continue;
        }
        for (pi, kind) in pending {
            if *generated(pi, *kind) == *i && pi != inst {
                out.push((pi.clone(), *kind));
            }
        }
        let Some(f) = prog.functions.get(&i) else {
            continue;
        };
        for v in &f.values {
            if let ValueKind::Stmt(Stmt {
                op: Op::Invoke(callee),
                ..
            }) = &v.kind
            {
                todo.push(callee.clone());
            }
        }
    }
    out
}

/// What a rewritten call needs generated once user bodies are rewritten.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
enum Pending {
    /// The driver `∇f` (for `gradient`, `derivative`, `hessian`).
    Driver,
    /// `∇ᵖf` and its user pullback `∇ᵖf⁻` (for `pullback`).
    Pullback,
    /// The pushforward `∂→f` and those of the functions it calls (for `pushforward`, `jvp`,
    /// `derivative`, `hvp`, `hessian`), after `f` itself where `f` is a generated driver; with
    /// `only_last`, only `f`'s last argument carries a tangent (the callable's own value, held
    /// constant, carries none).
    Pushforward { only_last: bool },
}

/// The arguments of `inst` that carry tangents in a directional driver's pushforward.
fn directional_mask(inst: &Instance, only_last: bool) -> Vec<bool> {
    let n = inst.args.len();
    (0..n).map(|i| !only_last || i + 1 == n).collect()
}

fn is_diff_prim(func: &Function, v: Value) -> Option<Prim> {
    match func.stmt(v).map(|s| &s.op) {
        Some(Op::Prim(
            p @ (Prim::Gradient
            | Prim::Derivative
            | Prim::PullbackOf
            | Prim::CallPullback
            | Prim::Hessian
            | Prim::Pushforward
            | Prim::Jvp
            | Prim::Hvp
            | Prim::PushforwardChunk),
        )) => Some(*p),
        _ => None,
    }
}

/// The rewritten function, if it used a differentiation builtin.
fn expand_function(
    prog: &mut TypedProgram,
    pending: &mut Vec<(Arc<Instance>, Pending)>,
    mut func: Function,
) -> Result<Option<Function>, AdError> {
    let mut changed = false;
    for b in func.block_ids().collect::<Vec<_>>() {
        for v in func.block(b).stmts.clone() {
            let Some(p) = is_diff_prim(&func, v) else {
                continue;
            };
            let Some(stmt) = func.stmt(v).cloned() else {
                continue;
            };
            let span = func.value(v).span;
            let mut ins = Insert {
                func: &mut func,
                block: b,
                at: v,
                new: Vec::new(),
                span,
            };
            let last = match p {
                Prim::CallPullback => call_pullback(prog, &mut ins, &stmt)?,
                Prim::Hessian => hessian(prog, pending, &mut ins, &stmt)?,
                Prim::PushforwardChunk => chunked(prog, &mut ins, &stmt)?,
                Prim::Pushforward | Prim::Jvp | Prim::Derivative | Prim::Hvp => {
                    directional(prog, pending, &mut ins, p, &stmt)?
                }
                _ => differentiate(prog, pending, &mut ins, p, &stmt)?,
            };
            let Some((op, args)) = last else { continue };
            ins.finish(op, args);
            changed = true;
        }
    }
    Ok(changed.then_some(func))
}

/// Statements inserted before `at`, whose own statement becomes the last of them.
struct Insert<'f> {
    func: &'f mut Function,
    block: Block,
    at: Value,
    new: Vec<Value>,
    span: Span,
}

impl Insert<'_> {
    fn emit(&mut self, op: Op, args: Vec<Operand>, ty: Type) -> Operand {
        let v = self
            .func
            .push_stmt(self.block, Stmt { op, args }, ty, self.span);
        self.func.block_mut(self.block).stmts.pop();
        self.new.push(v);
        v.into()
    }

    fn field(&mut self, x: Operand, i: usize, ty: &Type) -> Operand {
        let fty = ty
            .field_types()
            .and_then(|f| f.get(i).cloned())
            .unwrap_or(Type::Nothing);
        self.emit(
            Op::Prim(Prim::GetField),
            vec![x, Const::Int(i as i64 + 1).into()],
            fty,
        )
    }

    /// Place the new statements before `at`, and make `at` compute `op(args...)`.
    fn finish(self, op: Op, args: Vec<Operand>) {
        let stmts = &mut self.func.block_mut(self.block).stmts;
        let pos = stmts
            .iter()
            .position(|x| *x == self.at)
            .unwrap_or(stmts.len());
        for (k, v) in self.new.iter().enumerate() {
            stmts.insert(pos + k, *v);
        }
        self.func.values[self.at.index()].kind = ValueKind::Stmt(Stmt { op, args });
    }
}

/// `back(ȳ)` of a `back` from `pullback(f, args...)`: its user pullback `∇ᵖf⁻` takes the
/// cotangent as `f`'s result's tangent type (an Int or Bool cotangent of a number is converted;
/// a result without tangent ignores it).
fn call_pullback(
    prog: &TypedProgram,
    ins: &mut Insert,
    stmt: &Stmt,
) -> Result<Option<(Op, Vec<Operand>)>, AdError> {
    let (Some(back), Some(dy)) = (stmt.args.first(), stmt.args.get(1)) else {
        return Ok(None);
    };
    let back_ty = ins.func.operand_ty(back);
    let Type::Pullback(sig) = &back_ty else {
        return Ok(None);
    };
    let callee = prog
        .functions
        .keys()
        .find(|i| names::user_pullback_instance(i).args == *sig && !names::is_generated(&i.name));
    let Some(ret) = callee
        .and_then(|i| prog.functions.get(i))
        .map(|f| f.ret.clone())
    else {
        return Ok(None);
    };
    let want = zy_ir::tangent_type(&ret);
    let got = ins.func.operand_ty(dy);
    let dy = match (&want, &got) {
        (w, g) if w == g => dy.clone(),
        (Type::Nothing, _) => Const::Nothing.into(),
        (Type::Float64, Type::Int64 | Type::Bool) => ins.emit(Op::Prim(Prim::Float), vec![dy.clone()], Type::Float64),
        (Type::Float32, Type::Float64 | Type::Int64 | Type::Bool) => ins.emit(Op::Prim(Prim::ToFloat32), vec![dy.clone()], Type::Float32),
        _ => {
            return Err(AdError::new(
                ins.span,
                format!("this pullback takes a cotangent of type {want} (the tangent of the result's type {ret}), not {got}"),
            ))
        }
    };
    Ok(Some((Op::Prim(Prim::CallPullback), vec![back.clone(), dy])))
}

/// The instance that `callee(args...)` runs: a user method, a closure's call method, or the
/// wrapper `#apply(callee, args...)` that inference synthesised for a builtin or library
/// function passed as a value.
fn callee_instance(
    prog: &TypedProgram,
    callee: &Operand,
    callee_ty: &Type,
    xtys: &[Type],
    span: Span,
) -> Result<(Arc<Instance>, Vec<Operand>), AdError> {
    match callee_ty {
        Type::Function(name) => {
            if let Some(i) = prog
                .functions
                .keys()
                .find(|i| i.name == *name && *i.args == *xtys)
            {
                return Ok((i.clone(), vec![]));
            }
            let wrapper = driver::apply_instance(callee_ty, xtys);
            if prog.functions.contains_key(&wrapper) {
                return Ok((wrapper, vec![callee.clone()]));
            }
            Err(AdError::new(
                span,
                format!("cannot differentiate `{name}` on these arguments"),
            ))
        }
        Type::Struct(s) => {
            let name = callable_name(&s.name);
            let mut args = vec![callee_ty.clone()];
            args.extend(xtys.iter().cloned());
            prog.functions
                .keys()
                .find(|i| i.name == name && *i.args == *args)
                .cloned()
                .or_else(|| {
                    // A call that is no instance of its own (varargs): inference's wrapper.
                    let wrapper = driver::apply_instance(callee_ty, xtys);
                    prog.functions.contains_key(&wrapper).then_some(wrapper)
                })
                .map(|i| (i, vec![callee.clone()]))
                .ok_or_else(|| AdError::new(span, format!("no typed body for {name}")))
        }
        t => Err(AdError::new(
            span,
            format!("cannot differentiate a value of type {t}"),
        )),
    }
}

/// `gradient` and `pullback`.
fn differentiate(
    prog: &mut TypedProgram,
    pending: &mut Vec<(Arc<Instance>, Pending)>,
    ins: &mut Insert,
    p: Prim,
    stmt: &Stmt,
) -> Result<Option<(Op, Vec<Operand>)>, AdError> {
    let span = ins.span;
    let Some((callee, xs)) = stmt.args.split_first() else {
        return Ok(None);
    };
    let callee_ty = ins.func.operand_ty(callee);
    let xtys: Vec<Type> = xs.iter().map(|x| ins.func.operand_ty(x)).collect();
    let (inst, lead) = callee_instance(prog, callee, &callee_ty, &xtys, span)?;
    let skip = lead.len();
    let mut call: Vec<Operand> = lead;
    call.extend(xs.iter().cloned());
    if p == Prim::PullbackOf {
        let ret = prog
            .functions
            .get(&inst)
            .map(|f| f.ret.clone())
            .unwrap_or(Type::Any);
        if ret == Type::Bottom {
            // `f` never returns: neither does `pullback(f, ...)`.
            return Ok(Some((Op::Invoke(inst), call)));
        }
        if driver::may_mutate(prog, &inst) {
            return Err(AdError::new(
                span,
                format!("`pullback` of `{}`, which may write to its arguments or to a global, is not supported: its `back` would undo the writes (use `gradient`)", inst.name),
            ));
        }
        pending.push((inst.clone(), Pending::Pullback));
        return Ok(Some((
            Op::Invoke(names::pullback_driver_instance(&inst)),
            call,
        )));
    }
    let func = prog
        .functions
        .get(&inst)
        .cloned()
        .ok_or_else(|| AdError::new(span, format!("no typed body for {inst}")))?;
    let dinst = names::driver_instance(&inst);
    if !(func.ret.is_real_or_complex() || func.ret == Type::Float32) {
        return Err(AdError::new(
            span,
            format!(
                "gradient of a non-scalar result ({})",
                zy_infer::julia_array_type(&func.ret)
            ),
        ));
    }
    pending.push((inst.clone(), Pending::Driver));
    let dret = driver::driver_ret(&func, &GlobalShadows::of(prog));
    let r = ins.emit(Op::Invoke(dinst), call, dret.clone());
    let gty = dret
        .field_types()
        .and_then(|f| f.get(1).cloned())
        .unwrap_or(Type::Any);
    let g = ins.field(r, 1, &dret);
    let n = gty.field_types().map_or(0, |f| f.len());
    let declared = ins.func.value(ins.at).ty.field_types().unwrap_or_default();
    let parts = (skip..n)
        .map(|i| {
            let want = declared.get(i - skip).cloned().unwrap_or(Type::Nothing);
            let got = gty.field_types().and_then(|f| f.get(i).cloned());
            match got {
                // No gradient reaches this argument, but inference typed the call before the
                // driver knew: its zero, of the tangent type inference gave it.
                Some(Type::Nothing) if want != Type::Nothing => {
                    unreached_zero(ins, &xs[i - skip], &want)
                }
                _ => ins.field(g.clone(), i, &gty),
            }
        })
        .collect();
    Ok(Some((Op::Prim(Prim::Tuple), parts)))
}

/// The zero gradient, of type `ty`, of an argument `x` no gradient reaches.
fn unreached_zero(ins: &mut Insert, x: &Operand, ty: &Type) -> Operand {
    match ty {
        Type::Float64 => Const::f64(0.0).into(),
        _ => ins.emit(Op::Prim(Prim::ZeroTangent), vec![x.clone()], ty.clone()),
    }
}

/// `hessian(f, x)`, forward over reverse: column `i` is `hvp(f, x, eᵢ)`, the pushforward of
/// the gradient's driver along the `i`-th unit vector, computed by a generated function
/// `∂ₕf(x, i)`; `∇²f(x)` loops over the columns.
fn hessian(
    prog: &mut TypedProgram,
    pending: &mut Vec<(Arc<Instance>, Pending)>,
    ins: &mut Insert,
    stmt: &Stmt,
) -> Result<Option<(Op, Vec<Operand>)>, AdError> {
    let span = ins.span;
    let (Some(callee), Some(x)) = (stmt.args.first(), stmt.args.get(1)) else {
        return Ok(None);
    };
    let callee_ty = ins.func.operand_ty(callee);
    let vt = Type::vector_f64();
    let (inst, lead) = callee_instance(prog, callee, &callee_ty, std::slice::from_ref(&vt), span)?;
    // A closure or callable struct is the first operand of every call (`lead`): its gradient
    // is the driver's first component, x's the one after it.
    let lead_tys: Vec<Type> = lead.iter().map(|a| ins.func.operand_ty(a)).collect();
    let skip = lead.len();
    let (dinst, dret) = gradient_driver(prog, pending, &inst, span)?;
    let gty = dret
        .field_types()
        .and_then(|f| f.get(1).cloned())
        .and_then(|g| g.field_types().and_then(|f| f.get(skip).cloned()));
    // x's gradient pushed forward, if one reaches x.
    let vinst = match gty {
        Some(g) if g == vt => {
            let ginst = gradient_of_last(prog, &inst, &dinst, &dret, &vt, span);
            Some(directional_driver(prog, pending, &ginst, &vt, span))
        }
        _ => None,
    };
    // ∂ₕf(lead..., x, i) = ∂ᵥ∇ʰf(lead..., x, eᵢ)[2]
    let with = |tail: &[Type]| -> Arc<[Type]> { lead_tys.iter().chain(tail).cloned().collect() };
    let part = Arc::new(Instance {
        name: format!("∂ₕ{}", inst.name).into(),
        method: inst.method,
        args: with(&[vt.clone(), Type::Int64]),
    });
    if !prog.functions.contains_key(&part) {
        let mut f = Function::new(part.name.clone(), span);
        f.instance = Some(part.clone());
        f.ret = vt.clone();
        let lead_params: Vec<Operand> = lead_tys
            .iter()
            .map(|t| f.add_param(Block::ENTRY, t.clone(), span, None).into())
            .collect();
        let x = f.add_param(Block::ENTRY, vt.clone(), span, Some("x".into()));
        let i = f.add_param(Block::ENTRY, Type::Int64, span, Some("i".into()));
        let e = Block::ENTRY;
        let prim = |p: Prim, args: Vec<Operand>| Stmt {
            op: Op::Prim(p),
            args,
        };
        let column: Operand = match vinst {
            Some(vinst) => {
                let n = f.push_stmt(e, prim(Prim::Length, vec![x.into()]), Type::Int64, span);
                let unit = f.push_stmt(e, prim(Prim::Zeros, vec![n.into()]), vt.clone(), span);
                let one = Const::f64(1.0).into();
                let set = prim(Prim::SetIndex, vec![unit.into(), one, i.into()]);
                f.push_stmt(e, set, Type::Float64, span);
                let rty = pushforward_ret(&vt);
                let mut args = lead_params.clone();
                args.extend([x.into(), unit.into()]);
                let call = Stmt {
                    op: Op::Invoke(vinst),
                    args,
                };
                let r = f.push_stmt(e, call, rty, span);
                f.push_stmt(e, get(r.into(), 2), vt.clone(), span).into()
            }
            // No gradient reaches x: the Hessian is zero.
            None => f
                .push_stmt(e, prim(Prim::ZeroTangent, vec![x.into()]), vt.clone(), span)
                .into(),
        };
        f.set_term(e, Terminator::Return(column), span);
        zy_ir::debug_verify(&f, "a Hessian column");
        prog.functions.insert(part.clone(), Arc::new(f));
    }
    let hinst = Arc::new(Instance {
        name: format!("∇²{}", inst.name).into(),
        method: inst.method,
        args: with(std::slice::from_ref(&vt)),
    });
    if !prog.functions.contains_key(&hinst) {
        prog.functions
            .insert(hinst.clone(), Arc::new(hessian_loop(&hinst, part, span)));
    }
    let mut call = lead;
    call.push(x.clone());
    Ok(Some((Op::Invoke(hinst), call)))
}

fn get(x: Operand, i: i64) -> Stmt {
    Stmt {
        op: Op::Prim(Prim::GetField),
        args: vec![x, Const::Int(i).into()],
    }
}

/// `H = zeros(n, n); for i in 1:n; row = part(lead..., x, i); for j in 1:n; H[i, j] = row[j];
/// end; end` (`part(lead..., x, i)` is the `i`-th column of the symmetric `H`; `lead`, a
/// closure's own value, are `hinst`'s arguments before `x`).
fn hessian_loop(hinst: &Arc<Instance>, part: Arc<Instance>, span: Span) -> Function {
    let (vt, mt, int) = (Type::vector_f64(), Type::matrix_f64(), Type::Int64);
    let prim = |p: Prim, args: Vec<Operand>| Stmt {
        op: Op::Prim(p),
        args,
    };
    let mut f = Function::new(hinst.name.clone(), span);
    f.instance = Some(hinst.clone());
    f.ret = mt.clone();
    let lead: Vec<Operand> = hinst.args[..hinst.args.len().saturating_sub(1)]
        .iter()
        .map(|t| f.add_param(Block::ENTRY, t.clone(), span, None).into())
        .collect();
    f.arg_names = std::iter::repeat_n("#self".into(), lead.len())
        .chain(["x".into()])
        .collect();
    let x: Operand = f
        .add_param(Block::ENTRY, vt.clone(), span, Some("x".into()))
        .into();
    let (header, body, inner, ibody, latch, exit) = (
        f.add_block(),
        f.add_block(),
        f.add_block(),
        f.add_block(),
        f.add_block(),
        f.add_block(),
    );
    let e = Block::ENTRY;
    let n: Operand = f
        .push_stmt(e, prim(Prim::Length, vec![x.clone()]), int.clone(), span)
        .into();
    let h: Operand = f
        .push_stmt(
            e,
            prim(Prim::Zeros, vec![n.clone(), n.clone()]),
            mt.clone(),
            span,
        )
        .into();
    f.set_term(
        e,
        Terminator::Jump(BlockCall {
            block: header,
            args: vec![Const::Int(0).into()],
        }),
        span,
    );
    let k: Operand = f.add_param(header, int.clone(), span, None).into();
    let c = f.push_stmt(
        header,
        prim(Prim::Lt, vec![k.clone(), n.clone()]),
        Type::Bool,
        span,
    );
    f.set_term(
        header,
        Terminator::Branch {
            cond: c.into(),
            then_to: BlockCall::new(body),
            else_to: BlockCall::new(exit),
        },
        span,
    );
    let i: Operand = f
        .push_stmt(
            body,
            prim(Prim::Add, vec![k, Const::Int(1).into()]),
            int.clone(),
            span,
        )
        .into();
    let row: Operand = f
        .push_stmt(
            body,
            Stmt {
                op: Op::Invoke(part),
                args: lead.into_iter().chain([x, i.clone()]).collect(),
            },
            vt,
            span,
        )
        .into();
    f.set_term(
        body,
        Terminator::Jump(BlockCall {
            block: inner,
            args: vec![Const::Int(0).into()],
        }),
        span,
    );
    let m: Operand = f.add_param(inner, int.clone(), span, None).into();
    let c2 = f.push_stmt(inner, prim(Prim::Lt, vec![m.clone(), n]), Type::Bool, span);
    f.set_term(
        inner,
        Terminator::Branch {
            cond: c2.into(),
            then_to: BlockCall::new(ibody),
            else_to: BlockCall::new(latch),
        },
        span,
    );
    let j: Operand = f
        .push_stmt(
            ibody,
            prim(Prim::Add, vec![m, Const::Int(1).into()]),
            int,
            span,
        )
        .into();
    let v: Operand = f
        .push_stmt(
            ibody,
            prim(Prim::GetIndex, vec![row, j.clone()]),
            Type::Float64,
            span,
        )
        .into();
    f.push_stmt(
        ibody,
        prim(Prim::SetIndex, vec![h.clone(), v, i.clone(), j.clone()]),
        Type::Float64,
        span,
    );
    f.set_term(
        ibody,
        Terminator::Jump(BlockCall {
            block: inner,
            args: vec![j],
        }),
        span,
    );
    f.set_term(
        latch,
        Terminator::Jump(BlockCall {
            block: header,
            args: vec![i],
        }),
        span,
    );
    f.set_term(exit, Terminator::Return(h), span);
    f
}

/// `pushforward(f, x, dx)`, `jvp(f, x, dx)`, `derivative(f, x)` (along `1.0`) and
/// `hvp(f, x, v)` (the pushforward of the gradient's driver `∇f` along `v`): a call of the
/// directional driver `∂ᵥ` of `f` (or of `∇f`).
fn directional(
    prog: &mut TypedProgram,
    pending: &mut Vec<(Arc<Instance>, Pending)>,
    ins: &mut Insert,
    p: Prim,
    stmt: &Stmt,
) -> Result<Option<(Op, Vec<Operand>)>, AdError> {
    let span = ins.span;
    let (Some(callee), Some(x)) = (stmt.args.first(), stmt.args.get(1)) else {
        return Ok(None);
    };
    let callee_ty = ins.func.operand_ty(callee);
    let xty = ins.func.operand_ty(x);
    let dx = match p {
        // ForwardDiff's seed: a one of the argument's type.
        Prim::Derivative if xty == Type::Float32 => Const::f32(1.0).into(),
        Prim::Derivative => Const::f64(1.0).into(),
        _ => match stmt.args.get(2) {
            Some(dx) => dx.clone(),
            None => return Ok(None),
        },
    };
    let (inst, lead) = callee_instance(prog, callee, &callee_ty, std::slice::from_ref(&xty), span)?;
    let skip = lead.len();
    let ret = prog
        .functions
        .get(&inst)
        .map(|f| f.ret.clone())
        .ok_or_else(|| AdError::new(span, format!("no typed body for {inst}")))?;
    let mut call = lead;
    call.extend([x.clone(), dx]);
    if p == Prim::Hvp {
        let (dinst, dret) = gradient_driver(prog, pending, &inst, span)?;
        // (y, (g...)): x's gradient, pushed forward without the value `y`.
        let gty = dret
            .field_types()
            .and_then(|f| f.get(1).cloned())
            .and_then(|g| g.field_types().and_then(|f| f.get(skip).cloned()))
            .unwrap_or(Type::Nothing);
        if dual_type(&gty) == Type::Nothing {
            // No gradient reaches x: the Hessian is zero.
            return Ok(Some((Op::Prim(Prim::ZeroTangent), vec![x.clone()])));
        }
        let ginst = gradient_of_last(prog, &inst, &dinst, &dret, &gty, span);
        let vinst = directional_driver(prog, pending, &ginst, &gty, span);
        let rty = pushforward_ret(&gty);
        let r = ins.emit(Op::Invoke(vinst), call, rty);
        return Ok(Some((
            Op::Prim(Prim::GetField),
            vec![r, Const::Int(2).into()],
        )));
    }
    let vinst = directional_driver(prog, pending, &inst, &ret, span);
    let rty = pushforward_ret(&ret);
    Ok(Some(match p {
        Prim::Jvp => (Op::Invoke(vinst), call),
        _ => {
            let r = ins.emit(Op::Invoke(vinst), call, rty.clone());
            (Op::Prim(Prim::GetField), vec![r, Const::Int(2).into()])
        }
    }))
}

/// `_pushforward_chunk(f, x, Ẋ, fallback)`: a call of `f`'s chunked pushforward `∂ᶜf`
/// (`forward::chunk`, built here with those of the functions it calls; only `x` varies), or of
/// `fallback()` where chunked forward mode does not apply to `f`.
fn chunked(
    prog: &mut TypedProgram,
    ins: &mut Insert,
    stmt: &Stmt,
) -> Result<Option<(Op, Vec<Operand>)>, AdError> {
    let span = ins.span;
    let [callee, x, dx, fallback] = stmt.args.as_slice() else {
        return Ok(None);
    };
    let fallback_ty = ins.func.operand_ty(fallback);
    let (finst, flead) = callee_instance(prog, fallback, &fallback_ty, &[], span)?;
    let want = ins.func.value(ins.at).ty.clone();
    let callee_ty = ins.func.operand_ty(callee);
    let xty = ins.func.operand_ty(x);
    let attempt = callee_instance(prog, callee, &callee_ty, std::slice::from_ref(&xty), span)
        .and_then(|(inst, lead)| {
            let ret = prog
                .functions
                .get(&inst)
                .map_or(Type::Any, |f| f.ret.clone());
            let rty = chunk::chunk_ret(&ret);
            if rty.field_type(1) != Some(&want) {
                return Err(AdError::new(span, "no chunk of the result's type"));
            }
            let mut trial = prog.clone();
            let mask: Vec<bool> = (0..inst.args.len())
                .map(|i| i + 1 == inst.args.len())
                .collect();
            chunk::add_chunk_pushforwards(&mut trial, &inst, &mask)?;
            Ok((trial, chunk::chunk_key(&inst, &mask), lead, rty))
        });
    let Ok((trial, key, lead, rty)) = attempt else {
        return Ok(Some((Op::Invoke(finst), flead)));
    };
    *prog = trial;
    let mut call = lead;
    call.extend([x.clone(), dx.clone()]);
    let r = ins.emit(Op::Invoke(key), call, rty);
    Ok(Some((
        Op::Prim(Prim::GetField),
        vec![r, Const::Int(2).into()],
    )))
}

/// `∇ʰf(args...) = ∇f(args...)[2][end]`: the gradient with respect to the last argument alone
/// (of type `gty`; `dinst` is `∇f`, returning `dret`), which `hvp` pushes forward. Its
/// pushforward inlines `∇f` and drops what computes the value of `f` only.
fn gradient_of_last(
    prog: &mut TypedProgram,
    inst: &Arc<Instance>,
    dinst: &Arc<Instance>,
    dret: &Type,
    gty: &Type,
    span: Span,
) -> Arc<Instance> {
    let ginst = Arc::new(Instance {
        name: format!("∇ʰ{}", inst.name).into(),
        method: inst.method,
        args: inst.args.clone(),
    });
    if prog.functions.contains_key(&ginst) {
        return ginst;
    }
    let mut f = Function::new(ginst.name.clone(), span);
    f.instance = Some(ginst.clone());
    f.ret = gty.clone();
    f.arg_names = prog
        .functions
        .get(inst)
        .map(|g| g.arg_names.clone())
        .unwrap_or_default();
    let args: Vec<Operand> = inst
        .args
        .iter()
        .map(|t| f.add_param(Block::ENTRY, t.clone(), span, None).into())
        .collect();
    let n = args.len() as i64;
    let mut sb = zy_ir::SsaBuilder::new(f);
    let mut e = Emit {
        bcast: None,
        b: &mut sb,
        block: Block::ENTRY,
        span,
    };
    let r = e.op(Op::Invoke(dinst.clone()), args, dret.clone());
    let gs = e.field(r, 1, dret);
    let g = e.prim(Prim::GetField, vec![gs, Const::Int(n).into()], gty.clone());
    sb.func.set_term(Block::ENTRY, Terminator::Return(g), span);
    let f = sb.finish();
    zy_ir::debug_verify(&f, "a gradient for hvp");
    prog.functions.insert(ginst.clone(), Arc::new(f));
    ginst
}

/// The gradient's driver `∇f` of `inst` (built once user bodies are rewritten) and its return
/// type, for forward over reverse.
fn gradient_driver(
    prog: &TypedProgram,
    pending: &mut Vec<(Arc<Instance>, Pending)>,
    inst: &Arc<Instance>,
    span: Span,
) -> Result<(Arc<Instance>, Type), AdError> {
    let func = prog
        .functions
        .get(inst)
        .cloned()
        .ok_or_else(|| AdError::new(span, format!("no typed body for {inst}")))?;
    if !driver::is_scalar(&func.ret) {
        return Err(AdError::new(
            span,
            format!(
                "`hvp` and `hessian` need a function returning a Float64; `{}` returns {}",
                inst.name, func.ret
            ),
        ));
    }
    pending.push((inst.clone(), Pending::Driver));
    let dret = driver::driver_ret(&func, &GlobalShadows::of(prog));
    Ok((names::driver_instance(inst), dret))
}

/// `∂ᵥf(lead..., x, dx) = ∂→f(lead..., 0, x, dx)`: the pushforward of `target` (whose last
/// argument is `x`; the others, a callable's own value, get zero tangents) along `dx`,
/// returning `(y, ẏ)`. `ret` is `target`'s return type.
fn directional_driver(
    prog: &mut TypedProgram,
    pending: &mut Vec<(Arc<Instance>, Pending)>,
    target: &Arc<Instance>,
    ret: &Type,
    span: Span,
) -> Arc<Instance> {
    let tys = &target.args;
    let xty = tys.last().cloned().unwrap_or(Type::Nothing);
    let mut args: Vec<Type> = tys.to_vec();
    args.push(dual_type(&xty));
    let vinst = Arc::new(Instance {
        name: format!("∂ᵥ{}", target.name).into(),
        method: target.method,
        args: args.into(),
    });
    if prog.functions.contains_key(&vinst) {
        return vinst;
    }
    // The callable's captures get no tangents when the function writes no object it did not
    // make (its driver, not built yet, is taken as writing).
    let only_last =
        prog.functions.contains_key(target) && !crate::mutates::may_mutate(prog, target);
    pending.push((target.clone(), Pending::Pushforward { only_last }));
    let mut f = Function::new(vinst.name.clone(), span);
    f.instance = Some(vinst.clone());
    let params: Vec<Value> = vinst
        .args
        .iter()
        .map(|t| f.add_param(Block::ENTRY, t.clone(), span, None))
        .collect();
    let rty = pushforward_ret(ret);
    f.ret = rty.clone();
    let mut sb = zy_ir::SsaBuilder::new(f);
    let mut e = Emit {
        bcast: None,
        b: &mut sb,
        block: Block::ENTRY,
        span,
    };
    let n = tys.len();
    let mut call = Vec::new();
    for (i, t) in tys.iter().enumerate() {
        let a: Operand = params[i].into();
        call.push(a.clone());
        if i + 1 == n {
            if dual_type(t) != Type::Nothing {
                call.push(params[n].into());
            }
        } else if !only_last {
            call.extend(crate::forward::zero_tangent(&mut e, &a, t));
        }
    }
    // A driver not built yet reaches the globals its function reaches.
    let globals = GlobalShadows::of(prog);
    let reach = match prog.functions.contains_key(target) {
        true => target.clone(),
        false => crate::globals::origin(prog, target).unwrap_or_else(|| target.clone()),
    };
    call.extend(crate::forward::global_tangents(&mut e, &globals, &reach));
    let key = pushforward_key(target, &directional_mask(target, only_last));
    let r = e.op(Op::Invoke(key), call, rty);
    sb.func.set_term(Block::ENTRY, Terminator::Return(r), span);
    let f = sb.finish();
    zy_ir::debug_verify(&f, "a directional driver");
    prog.functions.insert(vinst.clone(), Arc::new(f));
    vinst
}
