//! Chunked forward mode: the pushforward `∂ᶜf(x1, Ẋ1, ...)` of `k` directions at once
//! (ForwardDiff's chunks, JAX's `vmap` of `jvp`), for `jacobian`. A `Float64`'s tangent is a
//! vector of its `k` directional derivatives, a `Vector{Float64}`'s an `n×k` matrix, one
//! column per direction ([`rules::chunk_type`]), so the primal runs once and `A * x` pushes
//! forward as the one product `A * Ẋ`. The transform is the pushforward's
//! ([`super::pushforward_masked`]) over the same typed SSA, with the chunk rules
//! ([`rules::pushforward_chunk`]) and the same activity (values no varying argument reaches
//! carry no chunk). It covers functions of numbers and vectors that write no varying array;
//! anything else is an error, on which the caller runs one pushforward per direction.

use std::sync::Arc;

use zy_ir::{
    BlockCall, Const, Function, Instance, Name, Op, Operand, Prim, SsaBuilder, Terminator, Type,
    TypedProgram, Value,
};

use super::{operands, tangent_of, value_of};
use crate::globals::GlobalShadows;
use crate::rules::{self, chunk_type, Emit, TanStmt};
use crate::AdError;

/// `∂ᶜf⟨i,...⟩`: the chunked pushforward of `inst` in which the marked arguments carry chunks
/// (after each of them, its chunk).
pub fn chunk_key(inst: &Instance, active: &[bool]) -> Arc<Instance> {
    let mut args = Vec::new();
    let mut positions = Vec::new();
    for (i, t) in inst.args.iter().enumerate() {
        args.push(t.clone());
        match chunk_type(t) {
            Some(c) if c != Type::Nothing && active.get(i).copied().unwrap_or(false) => {
                args.push(c);
                positions.push((i + 1).to_string());
            }
            _ => {}
        }
    }
    Arc::new(Instance {
        name: format!("∂ᶜ{}⟨{}⟩", inst.name, positions.join(",")).into(),
        method: inst.method,
        args: args.into(),
    })
}

/// The chunked pushforward's return type for a function returning `ret`: `(y, Ẏ)`.
pub fn chunk_ret(ret: &Type) -> Type {
    Type::tuple([ret.clone(), chunk_type(ret).unwrap_or(Type::Nothing)])
}

fn refused(span: zy_ir::Span, what: impl std::fmt::Display) -> AdError {
    AdError::new(
        span,
        format!("chunked forward mode does not support {what}"),
    )
}

/// Add [`chunk_key`]`(inst, active)` to `prog` and the chunked pushforwards of the functions it
/// calls; an error (and `prog` partly extended) where chunked forward mode does not apply.
pub fn add_chunk_pushforwards(
    prog: &mut TypedProgram,
    inst: &Arc<Instance>,
    active: &[bool],
) -> Result<(), AdError> {
    let globals = GlobalShadows::of(prog);
    let mut work = vec![(inst.clone(), active.to_vec())];
    while let Some((i, active)) = work.pop() {
        let key = chunk_key(&i, &active);
        if prog.functions.contains_key(&key) {
            continue;
        }
        let func = prog
            .functions
            .get(&i)
            .cloned()
            .ok_or_else(|| refused(zy_ir::Span::default(), format!("`{i}` (no typed body)")))?;
        if !globals.reached(&i).is_empty() {
            return Err(refused(func.span, "a function reaching a mutable global"));
        }
        let (f, callees) = chunk_pushforward(&i, &active, &func, prog)?;
        prog.functions.insert(key, Arc::new(f));
        work.extend(callees);
    }
    Ok(())
}

/// The chunked pushforward of one function and the (callee, active arguments) it calls.
fn chunk_pushforward(
    inst: &Arc<Instance>,
    active: &[bool],
    func: &Function,
    prog: &TypedProgram,
) -> Result<(Function, Vec<(Arc<Instance>, Vec<bool>)>), AdError> {
    let key = chunk_key(inst, active);
    let mut out = Function::new(key.name.clone(), func.span);
    out.instance = Some(key.clone());
    out.ret = chunk_ret(&func.ret);
    if chunk_type(&func.ret).is_none() {
        return Err(refused(func.span, format!("a result of type {}", func.ret)));
    }
    for _ in 1..func.blocks.len() {
        out.add_block();
    }
    let n = func.values.len();
    let mut vals: Vec<Option<Operand>> = vec![None; n];
    let mut tans: Vec<Option<Operand>> = vec![None; n];
    let args = func.args();
    let mut width: Option<Operand> = None;
    for b in func.block_ids() {
        for &p in &func.block(b).params {
            let d = func.value(p);
            vals[p.index()] = Some(
                out.add_param(b, d.ty.clone(), d.span, d.name.clone())
                    .into(),
            );
            let on = match args.iter().position(|a| *a == p) {
                Some(i) => active.get(i).copied().unwrap_or(false),
                None => true,
            };
            if !on {
                continue;
            }
            let c = chunk_type(&d.ty)
                .ok_or_else(|| refused(d.span, format!("a value of type {}", d.ty)))?;
            if c != Type::Nothing {
                let name = d.name.as_ref().map(|n| Name::from(format!("{n}\u{307}")));
                let t: Operand = out.add_param(b, c, d.span, name).into();
                if width.is_none() && args.contains(&p) {
                    width = Some(t.clone());
                }
                tans[p.index()] = Some(t);
            }
        }
    }
    for (i, a) in args.iter().enumerate() {
        let name = func
            .arg_names
            .get(i)
            .cloned()
            .unwrap_or_else(|| format!("x{i}").into());
        out.arg_names.push(name.clone());
        if tans[a.index()].is_some() {
            out.arg_names.push(format!("{name}\u{307}").into());
        }
    }
    let Some(first) = width else {
        return Err(refused(func.span, "a call without a varying argument"));
    };
    let mut sb = SsaBuilder::new(out);
    // k, the number of directions: the last dimension of the first argument's chunk.
    let k = {
        let mut e = Emit {
            bcast: None,
            b: &mut sb,
            block: zy_ir::Block::ENTRY,
            span: func.span,
        };
        let fty = e.b.func.operand_ty(&first);
        let dim = match fty {
            Type::Array(_, d) => d as i64,
            _ => 1,
        };
        e.prim(Prim::Size, vec![first, Const::Int(dim).into()], Type::Int64)
    };
    let mut callees = Vec::new();
    for &b in &func.reverse_postorder() {
        let mut e = Emit {
            bcast: None,
            b: &mut sb,
            block: b,
            span: func.span,
        };
        for &v in &func.block(b).stmts {
            let Some(stmt) = func.stmt(v) else { continue };
            let d = func.value(v);
            e.span = d.span;
            let (args, tangents, arg_tys) = operands(func, stmt, &vals, &tans);
            let varies = tangents.iter().any(Option::is_some);
            if let Op::Prim(p) = &stmt.op {
                // A builtin not rewritten yet (this body is built before the other user
                // bodies are expanded) would be copied here unexpanded.
                if p.info().diff == zy_ir::Diff::Rewritten {
                    return Err(refused(d.span, format!("`{p}` inside")));
                }
            }
            let (value, tangent) = match &stmt.op {
                _ if !varies => (e.op(stmt.op.clone(), args, d.ty.clone()), None),
                Op::Prim(p) => {
                    let s = TanStmt {
                        prim: *p,
                        args,
                        tangents,
                        arg_tys,
                        ty: d.ty.clone(),
                    };
                    let r = rules::pushforward_chunk(&mut e, &s)?;
                    (r.value, r.tangent)
                }
                Op::Invoke(callee) => {
                    if crate::mutates::may_mutate(prog, callee) {
                        return Err(refused(
                            d.span,
                            format!("`{}`, which may write", callee.name),
                        ));
                    }
                    let mask: Vec<bool> = tangents.iter().map(Option::is_some).collect();
                    let mut cargs = Vec::new();
                    for (x, t) in args.into_iter().zip(tangents) {
                        cargs.push(x);
                        cargs.extend(t);
                    }
                    let rty = chunk_ret(&d.ty);
                    let r = e.op(Op::Invoke(chunk_key(callee, &mask)), cargs, rty.clone());
                    let item = (callee.clone(), mask);
                    if !callees.contains(&item) {
                        callees.push(item);
                    }
                    let value = e.field(r.clone(), 0, &rty);
                    let t =
                        (rty.field_type(1) != Some(&Type::Nothing)).then(|| e.field(r, 1, &rty));
                    (value, t)
                }
                _ => return Err(refused(d.span, "this operation on a varying value")),
            };
            vals[v.index()] = Some(value);
            tans[v.index()] = tangent;
        }
        let term = match &func.block(b).term {
            Terminator::Return(x) => {
                let ty = func.operand_ty(x);
                let y = value_of(&vals, x);
                let t = chunk_or_zero(&mut e, &y, &ty, tangent_of(&tans, x), &k);
                let rty = chunk_ret(&func.ret);
                Terminator::Return(e.prim(Prim::Tuple, vec![y, t], rty))
            }
            Terminator::Jump(c) => Terminator::Jump(jump(&mut e, func, c, &vals, &tans, &k)),
            Terminator::Branch {
                cond,
                then_to,
                else_to,
            } => Terminator::Branch {
                cond: value_of(&vals, cond),
                then_to: jump(&mut e, func, then_to, &vals, &tans, &k),
                else_to: jump(&mut e, func, else_to, &vals, &tans, &k),
            },
            Terminator::Unreachable => Terminator::Unreachable,
            Terminator::Handle { leave, catch, to } => Terminator::Handle {
                leave: *leave,
                catch: catch
                    .as_ref()
                    .map(|c| jump(&mut e, func, c, &vals, &tans, &k)),
                to: jump(&mut e, func, to, &vals, &tans, &k),
            },
        };
        let span = func.block(b).term_span;
        sb.func.set_term(b, term, span);
    }
    let mut out = sb.finish();
    crate::simplify::simplify(&mut out);
    zy_ir::debug_verify(&out, "the chunked pushforward");
    Ok((out, callees))
}

/// `t`, or the zero chunk of `x :: ty` (`k` directions) when it has none: `zeros(k)` for a
/// number, `zeros(length(x), k)` for a vector, `nothing` for a value without tangent.
fn chunk_or_zero(e: &mut Emit, x: &Operand, ty: &Type, t: Option<Operand>, k: &Operand) -> Operand {
    if let Some(t) = t {
        return t;
    }
    match chunk_type(ty) {
        Some(c) if *ty == Type::Float64 => e.prim(Prim::Zeros, vec![k.clone()], c),
        Some(c) if c != Type::Nothing => {
            let n = e.prim(Prim::Length, vec![x.clone()], Type::Int64);
            e.prim(Prim::Zeros, vec![n, k.clone()], c)
        }
        _ => Const::Nothing.into(),
    }
}

/// A jump with each argument followed by its chunk, where the target's parameter has one.
fn jump(
    e: &mut Emit,
    func: &Function,
    c: &BlockCall,
    vals: &[Option<Operand>],
    tans: &[Option<Operand>],
    k: &Operand,
) -> BlockCall {
    let params: &[Value] = &func.block(c.block).params;
    let mut args = Vec::new();
    for (a, p) in c.args.iter().zip(params) {
        let ty = func.ty(*p).clone();
        let x = value_of(vals, a);
        args.push(x.clone());
        if chunk_type(&ty).is_some_and(|c| c != Type::Nothing) {
            args.push(chunk_or_zero(e, &x, &ty, tangent_of(tans, a), k));
        }
    }
    BlockCall {
        block: c.block,
        args,
    }
}
