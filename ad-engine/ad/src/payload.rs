//! The gradient through a caught exception: `catch e` binds the very value thrown, so a field
//! the catch block reads (`e.v` of `throw(MyErr(x^2))`, `e.val` of `DomainError(x, "m")` or of
//! `sqrt(x)` failing, `e.a` of the array `x[i]` indexed) is differentiated as a read of that
//! value.
//!
//! Before differentiating, each differentiable read `r = exception_field(e, :f)` of a catch
//! block is joined with the value thrown: the handler block gets two parameters per field, the
//! field of the value its try body throws (its `getfield`, or the `DomainError`'s value) and
//! whether that try body throws it, passed by every edge into the handler (a zero and `false`
//! where nothing in it throws one). Where the flag is set the read is replaced by the
//! parameter (they are equal: the one statement that can throw an exception with field `f` is
//! the one that threw), so the transforms see a φ whose cotangent goes back to the value
//! thrown. A value thrown where the transform cannot follow it (inside a called function, or
//! rethrown) is refused by name when the catch block reads a differentiable field.

use std::sync::Arc;

use rustc_hash::{FxHashMap, FxHashSet};
use zy_ir::{
    Block, BlockCall, Const, Function, Instance, Op, Operand, Prim, Span, Stmt, Terminator, Throws,
    Type, TypedProgram, Value,
};

use crate::AdError;

/// Where an exception with a given field may come from, in the code one handler edge guards.
enum Source {
    /// Thrown here: the field's value is this operand, or this struct field of it.
    Local {
        value: Operand,
        field: Option<usize>,
    },
    /// Thrown where the transform cannot follow: by this call, or rethrown.
    Opaque(String),
}

/// Join every differentiable field read of a caught exception in `func` with the value thrown
/// (see the module's doc); refuse a read whose value is thrown out of the transform's sight.
pub(crate) fn route(prog: &TypedProgram, func: &mut Function) -> Result<(), AdError> {
    for h in func.block_ids().collect::<Vec<_>>() {
        let Some(&e) = func.block(h).stmts.first() else {
            continue;
        };
        if !matches!(
            func.stmt(e).map(|s| &s.op),
            Some(Op::Prim(Prim::TheException))
        ) {
            continue;
        }
        for (name, ty, reads) in field_reads(func, e) {
            route_field(prog, func, h, &name, &ty, &reads)?;
        }
    }
    Ok(())
}

/// For the activity analysis: each differentiable field read of a caught exception, with a
/// value of the same function whose thrown exception it may read (the transform follows
/// exactly the one that threw), and the arguments of every call (which [`route`] refuses
/// should the callee throw one).
pub(crate) fn thrown_values(func: &Function) -> Vec<(Value, Operand)> {
    let mut out = Vec::new();
    for h in func.block_ids() {
        let Some(&e) = func.block(h).stmts.first() else {
            continue;
        };
        if !matches!(
            func.stmt(e).map(|s| &s.op),
            Some(Op::Prim(Prim::TheException))
        ) {
            continue;
        }
        for (name, ty, reads) in field_reads(func, e) {
            for b in func.block_ids() {
                for &v in &func.block(b).stmts {
                    let from = match (thrown(func, v, &name, &ty), func.stmt(v)) {
                        (Some(Source::Local { value, .. }), _) => vec![value],
                        (
                            _,
                            Some(Stmt {
                                op: Op::Invoke(_),
                                args,
                            }),
                        ) => args.clone(),
                        _ => continue,
                    };
                    for r in &reads {
                        out.extend(from.iter().map(|x| (*r, x.clone())));
                    }
                }
            }
        }
    }
    out
}

/// The differentiable fields of the exception `e` read, with their type and the reads.
fn field_reads(func: &Function, e: Value) -> Vec<(zy_ir::Name, Type, Vec<Value>)> {
    let mut out: Vec<(zy_ir::Name, Type, Vec<Value>)> = Vec::new();
    for b in func.block_ids() {
        for &v in &func.block(b).stmts {
            let Some(Stmt {
                op: Op::Prim(Prim::ExceptionField),
                args,
            }) = func.stmt(v)
            else {
                continue;
            };
            let (Some(Operand::Value(x)), Some(Operand::Const(Const::Symbol(f)))) =
                (args.first(), args.get(1))
            else {
                continue;
            };
            let ty = func.ty(v);
            if *x != e || !ty.is_differentiable() {
                continue;
            }
            match out.iter_mut().find(|(n, ..)| n == f) {
                Some((.., reads)) => reads.push(v),
                None => out.push((f.clone(), ty.clone(), vec![v])),
            }
        }
    }
    out
}

/// Route the reads of field `name` (of type `ty`) of the exception handler `h` catches.
fn route_field(
    prog: &TypedProgram,
    func: &mut Function,
    h: Block,
    name: &str,
    ty: &Type,
    reads: &[Value],
) -> Result<(), AdError> {
    let span = func.value(reads[0]).span;
    let fname = func.name.clone();
    let refuse = |what: String| {
        AdError::new(
            span,
            format!(
                "cannot differentiate `{0}`: the catch block reads `.{name}` of {what}, and zy cannot carry its gradient back to the value thrown (not supported yet: throw it in `{0}`'s own `try` body)",
                fname
            ),
        )
    };
    // The edges into the handler: the block installing it and the code it guards.
    let edges: Vec<(Block, Block)> = func
        .block_ids()
        .filter_map(|p| match &func.block(p).term {
            Terminator::Handle {
                catch: Some(c), to, ..
            } if c.block == h => Some((p, to.block)),
            _ => None,
        })
        .collect();
    let mut found: Vec<Option<(Operand, Option<usize>)>> = Vec::with_capacity(edges.len());
    for &(_, to) in &edges {
        let region = guarded(func, to, h);
        let mut sources = Vec::new();
        for &b in &region {
            for &v in &func.block(b).stmts {
                if let Some(s) = source(prog, func, v, name, ty) {
                    sources.push(s);
                }
            }
        }
        if let Some(Source::Opaque(why)) = sources.iter().find(|s| matches!(s, Source::Opaque(_))) {
            return Err(refuse(why.clone()));
        }
        match sources.as_slice() {
            [] => found.push(None),
            [Source::Local { value, field }] => {
                if value
                    .as_value()
                    .is_some_and(|v| defined_in(func, v, &region))
                {
                    return Err(refuse("a value the throwing statement computes".into()));
                }
                found.push(Some((value.clone(), *field)));
            }
            _ => {
                return Err(refuse(
                    "an exception one part of the `try` body may throw in several places".into(),
                ))
            }
        }
    }
    if found.iter().all(Option::is_none) {
        return Ok(());
    }
    let p = func.add_param(h, ty.clone(), span, None);
    let flag = func.add_param(h, Type::Bool, span, None);
    for (&(pred, _), thrown) in edges.iter().zip(found) {
        let args = match thrown {
            Some((value, None)) => [
                as_field(func, pred, value, ty, span),
                Const::Bool(true).into(),
            ],
            Some((value, Some(k))) => {
                let field = match func.operand_ty(&value) {
                    Type::Struct(st) => st.fields[k].1.clone(),
                    _ => ty.clone(),
                };
                let got = push(
                    func,
                    pred,
                    Op::Prim(Prim::GetField),
                    vec![value, Const::Int(k as i64 + 1).into()],
                    &field,
                    span,
                );
                [
                    as_field(func, pred, got, ty, span),
                    Const::Bool(true).into(),
                ]
            }
            None => match zero_in(func, pred, ty, span) {
                Some(zero) => [zero, Const::Bool(false).into()],
                None => return Err(refuse(format!("an exception whose `{name}` is a `{ty}`"))),
            },
        };
        if let Terminator::Handle { catch: Some(c), .. } = &mut func.block_mut(pred).term {
            c.args.extend(args);
        }
    }
    for &r in reads {
        join_read(func, r, p, flag);
    }
    Ok(())
}

/// The blocks the handler edge into `to` guards: `to` and what it reaches before the next
/// `try` terminator, not the handler `h` itself.
fn guarded(func: &Function, to: Block, h: Block) -> Vec<Block> {
    let mut seen = FxHashSet::default();
    let mut work = vec![to];
    let mut out = Vec::new();
    while let Some(b) = work.pop() {
        if b == h || !seen.insert(b) {
            continue;
        }
        out.push(b);
        let term = &func.block(b).term;
        if !matches!(term, Terminator::Handle { .. }) {
            work.extend(term.successors());
        }
    }
    out
}

/// Whether `v` is defined by a statement of one of `blocks`.
fn defined_in(func: &Function, v: Value, blocks: &[Block]) -> bool {
    blocks.iter().any(|&b| func.block(b).stmts.contains(&v))
}

/// What statement `v` throws that has a field `name` of type `ty`, if anything.
fn source(prog: &TypedProgram, func: &Function, v: Value, name: &str, ty: &Type) -> Option<Source> {
    match func.stmt(v).map(|s| &s.op) {
        Some(Op::Invoke(callee)) => may_throw_values(prog, callee, name, ty)
            .then(|| Source::Opaque(format!("an exception `{}` may throw", callee.name))),
        // Any other failing operation might be a `DomainError` of a value zy does not know
        // (`x ^ 0.5` of a negative `x`).
        Some(Op::Prim(p)) => thrown(func, v, name, ty).or_else(|| {
            let thrower = matches!(p, Prim::Error | Prim::ThrowValue | Prim::Rethrow);
            let failing = !thrower && p.info().effects.throws != Throws::Never && !widens(func, v);
            (name == "val" && failing)
                .then(|| Source::Opaque(format!("an exception `{}` may throw", p.julia_name())))
        }),
        _ => None,
    }
}

/// Is `v` a `union_convert` of a member into its union, which never fails?
fn widens(func: &Function, v: Value) -> bool {
    let Some(Stmt {
        op: Op::Prim(Prim::UnionConvert),
        args,
    }) = func.stmt(v)
    else {
        return false;
    };
    let from = args.first().map(|a| func.operand_ty(a));
    matches!(func.ty(v), Type::Union(u) if from.is_some_and(|t| u.members.contains(&t)))
}

/// `value` as the type `ty` the catch block reads the field as: itself, or (a `DomainError`'s
/// `val`, Julia's field of type `Any`) the union holding it.
fn as_field(func: &mut Function, block: Block, value: Operand, ty: &Type, span: Span) -> Operand {
    if func.operand_ty(&value) == *ty {
        return value;
    }
    push(
        func,
        block,
        Op::Prim(Prim::UnionConvert),
        vec![value],
        ty,
        span,
    )
}

/// Does a value of type `t` fill a field read as `ty` (itself, or a member of its union)?
fn fits(t: &Type, ty: &Type) -> bool {
    t == ty || matches!(ty, Type::Union(u) if u.members.contains(t))
}

/// What the primitive statement `v` throws that has a field `name` of type `ty`, if anything.
fn thrown(func: &Function, v: Value, name: &str, ty: &Type) -> Option<Source> {
    let s = func.stmt(v)?;
    let domain_value = |x: &Operand| {
        (name == "val" && fits(&func.operand_ty(x), ty)).then(|| Source::Local {
            value: x.clone(),
            field: None,
        })
    };
    match &s.op {
        Op::Prim(Prim::ThrowValue) => match func.operand_ty(s.args.first()?) {
            Type::Struct(st) => {
                let k = st.fields.iter().position(|(f, _)| &**f == name)?;
                fits(&st.fields[k].1, ty).then(|| Source::Local {
                    value: s.args[0].clone(),
                    field: Some(k),
                })
            }
            _ => None,
        },
        Op::Prim(Prim::Error) if is_domain_error(&s.args) => domain_value(s.args.get(1)?),
        // A `BoundsError`'s `a`: the object indexed.
        Op::Prim(Prim::GetIndex | Prim::SetIndex | Prim::TupleIndex | Prim::SliceCopy)
            if name == "a" =>
        {
            let x = s.args.first()?;
            fits(&func.operand_ty(x), ty).then(|| Source::Local {
                value: x.clone(),
                field: None,
            })
        }
        Op::Prim(Prim::Rethrow) => {
            let built = s
                .args
                .first()
                .and_then(Operand::as_value)
                .and_then(|x| func.stmt(x));
            match built {
                Some(b) if b.op == Op::Prim(Prim::ExceptionNew) && is_domain_error(&b.args) => {
                    domain_value(b.args.get(1)?)
                }
                Some(b) if b.op == Op::Prim(Prim::ExceptionNew) => None,
                _ => Some(Source::Opaque("a rethrown exception".into())),
            }
        }
        Op::Prim(p) if throws_domain_error(*p) && s.args.len() == 1 => domain_value(&s.args[0]),
        _ => None,
    }
}

/// `error(:DomainError, val, ...)` or `exception_new(:DomainError, val, ...)`'s arguments.
fn is_domain_error(args: &[Operand]) -> bool {
    matches!(args.first(), Some(Operand::Const(Const::Symbol(s))) if &**s == "DomainError")
}

/// Whether the elementary function `p` throws a `DomainError` outside its domain.
fn throws_domain_error(p: Prim) -> bool {
    p.math()
        .is_some_and(|m| !matches!(m.domain, zy_ir::Domain::All))
}

/// Whether `inst`, or anything it calls, may throw a value with a field `name` of type `ty`.
fn may_throw_values(prog: &TypedProgram, inst: &Arc<Instance>, name: &str, ty: &Type) -> bool {
    let mut seen = FxHashSet::default();
    let mut work = vec![inst.clone()];
    while let Some(i) = work.pop() {
        if !seen.insert(i.clone()) {
            continue;
        }
        let Some(f) = prog.functions.get(&i) else {
            return true;
        };
        for b in f.block_ids() {
            for &v in &f.block(b).stmts {
                match f.stmt(v).map(|s| &s.op) {
                    Some(Op::Invoke(c)) => work.push(c.clone()),
                    _ if thrown(f, v, name, ty).is_some() => return true,
                    _ => {}
                }
            }
        }
    }
    false
}

/// `Vector{Float64}`.
fn float_vector() -> Type {
    Type::Array(Arc::new(Type::Float64), 1)
}

/// The statement `op(args...) :: ty` appended to `block`.
fn push(
    func: &mut Function,
    block: Block,
    op: Op,
    args: Vec<Operand>,
    ty: &Type,
    span: Span,
) -> Operand {
    func.push_stmt(block, Stmt { op, args }, ty.clone(), span)
        .into()
}

/// A zero of type `ty` made at the end of `block`, passed where nothing is thrown; `None` for
/// types not built of numbers, tuples and immutable structs.
fn zero_in(func: &mut Function, block: Block, ty: &Type, span: Span) -> Option<Operand> {
    let parts = |func: &mut Function, tys: Vec<Type>| {
        tys.iter()
            .map(|t| zero_in(func, block, t, span))
            .collect::<Option<Vec<_>>>()
    };
    match ty {
        Type::Float64 => Some(Const::f64(0.0).into()),
        Type::Float32 => Some(Const::f32(0.0).into()),
        Type::Int64 => Some(Const::Int(0).into()),
        Type::Bool => Some(Const::Bool(false).into()),
        // A field of type `Any` holding a number.
        Type::Union(u) if u.members.contains(&Type::Float64) => {
            let zero = Const::f64(0.0).into();
            Some(push(
                func,
                block,
                Op::Prim(Prim::UnionConvert),
                vec![zero],
                ty,
                span,
            ))
        }
        // A `BoundsError`'s `a` of `Any` holding vectors: an empty one.
        Type::Union(u) if u.members.contains(&float_vector()) => {
            let empty = push(
                func,
                block,
                Op::Prim(Prim::Zeros),
                vec![Const::Int(0).into()],
                &float_vector(),
                span,
            );
            Some(push(
                func,
                block,
                Op::Prim(Prim::UnionConvert),
                vec![empty],
                ty,
                span,
            ))
        }
        Type::Tuple(ts) => {
            let args = parts(func, ts.to_vec())?;
            Some(push(func, block, Op::Prim(Prim::Tuple), args, ty, span))
        }
        Type::Struct(st) if !st.mutable => {
            let args = parts(func, st.fields.iter().map(|(_, t)| t.clone()).collect())?;
            Some(push(func, block, Op::New(st.clone()), args, ty, span))
        }
        _ => None,
    }
}

/// Split the block of the read `r` after it: where `flag` is set, the value thrown `p`
/// continues in its place.
fn join_read(func: &mut Function, r: Value, p: Value, flag: Value) {
    let Some(b) = func.block_ids().find(|&b| func.block(b).stmts.contains(&r)) else {
        return;
    };
    let span = func.value(r).span;
    let at = func
        .block(b)
        .stmts
        .iter()
        .position(|&v| v == r)
        .map_or(0, |i| i + 1);
    let rest = func.block_mut(b).stmts.split_off(at);
    let taken = func.add_block();
    let join = func.add_block();
    let joined = func.add_param(join, func.ty(r).clone(), span, func.value(r).name.clone());
    let data = func.block(b);
    let (term, term_span) = (data.term.clone(), data.term_span);
    func.block_mut(join).stmts = rest;
    func.set_term(join, term, term_span);
    crate::simplify::substitute(func, &FxHashMap::from_iter([(r, Operand::Value(joined))]));
    let to_join = |v: Value| BlockCall {
        block: join,
        args: vec![v.into()],
    };
    func.set_term(taken, Terminator::Jump(to_join(p)), span);
    let branch = Terminator::Branch {
        cond: flag.into(),
        then_to: BlockCall::new(taken),
        else_to: to_join(r),
    };
    func.set_term(b, branch, span);
}
