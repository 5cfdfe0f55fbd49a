//! Differentiation called from user code: `gradient`, `derivative`, `pullback` and calls of
//! the pullbacks they return become calls of generated functions (drivers `∇f`, forward
//! functions `f⁺`) before anything runs.
//!
//! Drivers inline the forward and pullback passes, so differentiating a driver of code without
//! calls or loops works (second derivatives, `hessian` as the Jacobian of the gradient, row by
//! row). Deeper nesting is reported as not supported by the transform.

use std::sync::Arc;

use zy_ir::{
    callable_name, Block, BlockCall, Const, Function, Instance, Op, Operand, Prim, Program, Span,
    Stmt, Terminator, Type, TypedProgram, Value, ValueKind,
};

use crate::globals::GlobalShadows;
use crate::{add_adjoints, driver, names, AdError};

/// Rewrite every use of the differentiation builtins in `prog`.
pub fn expand(prog: &TypedProgram) -> Result<TypedProgram, AdError> {
    expand_in(None, prog)
}

/// [`expand`], with the `rrule`s of `source` overriding derived adjoints.
pub fn expand_with_rrules(source: &Program, prog: &TypedProgram) -> Result<TypedProgram, AdError> {
    expand_in(Some(source), prog)
}

fn expand_in(source: Option<&Program>, prog: &TypedProgram) -> Result<TypedProgram, AdError> {
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
    for (inst, kind) in pending {
        let Some(func) = out.functions.get(&inst).cloned() else {
            continue;
        };
        match kind {
            Pending::Driver => {
                if func.ret == Type::Float64 {
                    add_adjoints(source, &mut out, &inst)?;
                }
                let dinst = names::driver_instance(&inst);
                if !out.functions.contains_key(&dinst) {
                    let mutates = driver::may_mutate(&out, &inst);
                    let globals = GlobalShadows::of(&out);
                    let reached = globals.reached(&inst);
                    let (d, body) = driver::driver(
                        &inst,
                        &func,
                        crate::adjoint_of(&out, &inst),
                        mutates,
                        reached,
                    )?;
                    out.functions.insert(d, Arc::new(body));
                }
            }
            Pending::Pullback => {
                let pinst = names::pullback_driver_instance(&inst);
                if !out.functions.contains_key(&pinst) {
                    add_adjoints(source, &mut out, &inst)?;
                    let globals = GlobalShadows::of(&out);
                    let (fwd, back) =
                        driver::pullback_driver(&inst, &func, globals.reached(&inst))?;
                    out.functions.insert(pinst, Arc::new(fwd));
                    out.functions
                        .insert(names::user_pullback_instance(&inst), Arc::new(back));
                }
            }
        }
    }
    Ok(out)
}

/// What a rewritten call needs generated once user bodies are rewritten.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Pending {
    /// The driver `∇f` (for `gradient`, `derivative`, `hessian`).
    Driver,
    /// `∇ᵖf` and its user pullback `∇ᵖf⁻` (for `pullback`).
    Pullback,
}

fn is_diff_prim(func: &Function, v: Value) -> Option<Prim> {
    match func.stmt(v).map(|s| &s.op) {
        Some(Op::Prim(
            p @ (Prim::Gradient
            | Prim::Derivative
            | Prim::PullbackOf
            | Prim::CallPullback
            | Prim::Hessian),
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
        _ => {
            return Err(AdError::new(
                ins.span,
                format!("this pullback takes a cotangent of type {want} (the tangent of the result's type {ret}), not {got}"),
            ))
        }
    };
    Ok(Some((Op::Prim(Prim::CallPullback), vec![back.clone(), dy])))
}

/// The instance that `callee(args...)` runs: a user method, a closure's call method, or a
/// wrapper generated for a scalar builtin.
fn callee_instance(
    prog: &mut TypedProgram,
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
            builtin_wrapper(prog, name, xtys, span).map(|i| (i, vec![]))
        }
        Type::Struct(s) => {
            let name = callable_name(&s.name);
            let mut args = vec![callee_ty.clone()];
            args.extend(xtys.iter().cloned());
            prog.functions
                .keys()
                .find(|i| i.name == name && *i.args == *args)
                .cloned()
                .map(|i| (i, vec![callee.clone()]))
                .ok_or_else(|| AdError::new(span, format!("no typed body for {name}")))
        }
        t => Err(AdError::new(
            span,
            format!("cannot differentiate a value of type {t}"),
        )),
    }
}

/// `f(x...) = prim(x...)` for a scalar builtin named `name`, so it can be differentiated.
fn builtin_wrapper(
    prog: &mut TypedProgram,
    name: &str,
    xtys: &[Type],
    span: Span,
) -> Result<Arc<Instance>, AdError> {
    let prim = Prim::from_julia_name(name)
        .filter(|p| crate::rules::is_scalar_rule(*p) && xtys.iter().all(|t| *t == Type::Float64))
        .ok_or_else(|| {
            AdError::new(
                span,
                format!("cannot differentiate the builtin `{name}` on these arguments"),
            )
        })?;
    let inst = Arc::new(Instance {
        name: name.into(),
        method: 0,
        args: xtys.to_vec().into(),
    });
    if !prog.functions.contains_key(&inst) {
        let mut f = Function::new(name, span);
        f.instance = Some(inst.clone());
        f.ret = Type::Float64;
        let args: Vec<Operand> = xtys
            .iter()
            .map(|t| f.add_param(Block::ENTRY, t.clone(), span, None).into())
            .collect();
        let y = f.push_stmt(
            Block::ENTRY,
            Stmt {
                op: Op::Prim(prim),
                args,
            },
            Type::Float64,
            span,
        );
        f.set_term(Block::ENTRY, Terminator::Return(y.into()), span);
        prog.functions.insert(inst.clone(), Arc::new(f));
    }
    Ok(inst)
}

/// `gradient`, `derivative` and `pullback`.
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
    if func.ret != Type::Float64 && !matches!(func.ret, Type::Int64 | Type::Bool) {
        return Err(AdError::new(
            span,
            format!("gradient of a non-scalar result ({})", func.ret),
        ));
    }
    pending.push((inst.clone(), Pending::Driver));
    let dret = driver::driver_ret(&func);
    let r = ins.emit(Op::Invoke(dinst), call, dret.clone());
    let gty = dret
        .field_types()
        .and_then(|f| f.get(1).cloned())
        .unwrap_or(Type::Any);
    let g = ins.field(r, 1, &dret);
    Ok(Some(match p {
        Prim::Derivative => (
            Op::Prim(Prim::GetField),
            vec![g, Const::Int(skip as i64 + 1).into()],
        ),
        _ => {
            let n = gty.field_types().map_or(0, |f| f.len());
            let parts = (skip..n).map(|i| ins.field(g.clone(), i, &gty)).collect();
            (Op::Prim(Prim::Tuple), parts)
        }
    }))
}

/// `hessian(f, x)`: row `i` is the gradient of `x -> ∇f(x)[i]`, computed by a generated
/// function `∇²f(x)` looping over the rows.
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
    if !lead.is_empty() {
        return Err(AdError::new(
            span,
            "`hessian` of a closure is not supported yet",
        ));
    }
    let func = prog
        .functions
        .get(&inst)
        .cloned()
        .ok_or_else(|| AdError::new(span, format!("no typed body for {inst}")))?;
    let dinst = names::driver_instance(&inst);
    let dret = driver::driver_ret(&func);
    pending.push((inst.clone(), Pending::Driver));
    // ∂f(x, i) = ∇f(x)[2][1][i]
    let part = Arc::new(Instance {
        name: format!("∂{}", inst.name).into(),
        method: inst.method,
        args: vec![vt.clone(), Type::Int64].into(),
    });
    if !prog.functions.contains_key(&part) {
        let mut f = Function::new(part.name.clone(), span);
        f.instance = Some(part.clone());
        f.ret = Type::Float64;
        let x = f.add_param(Block::ENTRY, vt.clone(), span, Some("x".into()));
        let i = f.add_param(Block::ENTRY, Type::Int64, span, Some("i".into()));
        let e = Block::ENTRY;
        let r = f.push_stmt(
            e,
            Stmt {
                op: Op::Invoke(dinst),
                args: vec![x.into()],
            },
            dret.clone(),
            span,
        );
        let gty = dret
            .field_types()
            .and_then(|t| t.get(1).cloned())
            .unwrap_or(Type::Any);
        let g = f.push_stmt(e, get(r.into(), 2), gty, span);
        let gx = f.push_stmt(e, get(g.into(), 1), vt.clone(), span);
        let gi = f.push_stmt(
            e,
            Stmt {
                op: Op::Prim(Prim::GetIndex),
                args: vec![gx.into(), i.into()],
            },
            Type::Float64,
            span,
        );
        f.set_term(e, Terminator::Return(gi.into()), span);
        prog.functions.insert(part.clone(), Arc::new(f));
    }
    let pfunc = prog.functions[&part].clone();
    let pret = driver::driver_ret(&pfunc);
    pending.push((part.clone(), Pending::Driver));
    let hinst = Arc::new(Instance {
        name: format!("∇²{}", inst.name).into(),
        method: inst.method,
        args: vec![vt.clone()].into(),
    });
    if !prog.functions.contains_key(&hinst) {
        prog.functions.insert(
            hinst.clone(),
            Arc::new(hessian_loop(
                &hinst,
                names::driver_instance(&part),
                &pret,
                span,
            )),
        );
    }
    Ok(Some((Op::Invoke(hinst), vec![x.clone()])))
}

fn get(x: Operand, i: i64) -> Stmt {
    Stmt {
        op: Op::Prim(Prim::GetField),
        args: vec![x, Const::Int(i).into()],
    }
}

/// `H = zeros(n, n); for i in 1:n; row = ∇∂f(x, i)[2][1]; for j in 1:n; H[i, j] = row[j]; end; end`.
fn hessian_loop(
    hinst: &Arc<Instance>,
    grad_part: Arc<Instance>,
    pret: &Type,
    span: Span,
) -> Function {
    let (vt, mt, int) = (Type::vector_f64(), Type::matrix_f64(), Type::Int64);
    let prim = |p: Prim, args: Vec<Operand>| Stmt {
        op: Op::Prim(p),
        args,
    };
    let mut f = Function::new(hinst.name.clone(), span);
    f.instance = Some(hinst.clone());
    f.ret = mt.clone();
    f.arg_names = vec!["x".into()];
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
    let r = f.push_stmt(
        body,
        Stmt {
            op: Op::Invoke(grad_part),
            args: vec![x, i.clone()],
        },
        pret.clone(),
        span,
    );
    let gty = pret
        .field_types()
        .and_then(|t| t.get(1).cloned())
        .unwrap_or(Type::Any);
    let g = f.push_stmt(body, get(r.into(), 2), gty, span);
    let row: Operand = f.push_stmt(body, get(g.into(), 1), vt, span).into();
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
