//! Statement pairs that compile to one kernel: a pullback's matrix products take a transpose or
//! an outer product that only the next statement reads, and making that intermediate matrix
//! would cost a pass over memory (and its allocation) for nothing.
//!
//! - `t = transpose(A); y = t * v` becomes `y = A' v` computed from `A`'s columns.
//! - `t = transpose(A); Y = t * B` and `t = transpose(B); Y = A * t` of matrices (a product's
//!   pullback, `A' * B` in user code) become one GEMM reading `A` or `B` through swapped
//!   strides.
//! - `o = u * v'; accum!(D, o)` becomes `D += u v'` in place.
//! - `sin(x)` and `cos(x)` of one operand (the forward pass and the pullback of `sin` meet in a
//!   gradient driver) are one `sincos(x)`, at the first of the two.
//!
//! Results are the unfused ones bit for bit: the kernels sum in the same order, and `sincos`
//! gives the bits of `sin` and `cos`.

use std::collections::HashMap;

use cranelift_codegen::ir::{
    condcodes::{FloatCC, IntCC},
    types, InstBuilder,
};
use zy_ir::{Function, Op, Operand, Prim, Span, Type, Value};

use super::{ClValue, Translator, R};
use crate::error::JitError;

/// How a statement is translated when it takes part in a fusion.
#[derive(Clone, PartialEq, Debug)]
pub(crate) enum Fused {
    /// Not translated: the next statement, its only reader, absorbs it.
    Absorbed,
    /// `t * v` with `t = transpose(a)` (absorbed), of a Float64 matrix `a` and vector `v`.
    TransposedProduct { t: Value, a: Operand, v: Operand },
    /// `x * y` of Float64 matrices where one operand is `t = transpose(src)` or `adjoint(src)`
    /// (absorbed) of a Float64 matrix `src`: `first` when it is `x`.
    TransposedMatMul {
        t: Value,
        src: Operand,
        other: Operand,
        first: bool,
    },
    /// `accum!(dst, o)` with `o = broadcast(...)` (absorbed) of `dst`'s Float64 array type:
    /// the loop adds each element into `dst` instead of making `o`.
    BroadcastAccum { o: Value, dst: Operand },
    /// `sin(x)` or `cos(x)` computed with the other one, `partner`, which comes later (and is
    /// dominated by this statement).
    SinCos { partner: Value },
    /// The later of a `sin`/`cos` pair: its value was computed ahead.
    Ahead,
    /// `accum!(dst, o)` with `o = u * row` (absorbed), of a Float64 matrix `dst`, vector `u`
    /// and row view `row`.
    OuterAccum {
        o: Value,
        dst: Operand,
        u: Operand,
        row: Operand,
    },
}

/// The fusions of `func`, by statement.
pub(crate) fn plan(func: &Function) -> HashMap<Value, Fused> {
    let uses = use_counts(func);
    let f64_matrix = |t: &Type| *t == Type::matrix_f64();
    let f64_vector = |t: &Type| *t == Type::vector_f64();
    let f64_row = |t: &Type| matches!(t, Type::Adjoint(e) if **e == Type::Float64);
    let defined_by = |op: &Operand, prim: Prim| match op {
        Operand::Value(v) => func
            .stmt(*v)
            .filter(|s| s.op == Op::Prim(prim) && uses[v.index()] == 1)
            .map(|s| (*v, s)),
        Operand::Const(_) => None,
    };
    let mut out = HashMap::new();
    for block in &func.blocks {
        for pair in block.stmts.windows(2) {
            let (first, second) = (pair[0], pair[1]);
            let Some(stmt) = func.stmt(second) else {
                continue;
            };
            match (&stmt.op, stmt.args.as_slice()) {
                (Op::Prim(Prim::MatMul), [t, v])
                    if f64_vector(func.ty(second)) && f64_vector(&func.operand_ty(v)) =>
                {
                    let Some((tv, ts)) = defined_by(t, Prim::Transpose) else {
                        continue;
                    };
                    if tv != first
                        || ts.args.len() != 1
                        || !f64_matrix(&func.operand_ty(&ts.args[0]))
                    {
                        continue;
                    }
                    out.insert(first, Fused::Absorbed);
                    out.insert(
                        second,
                        Fused::TransposedProduct {
                            t: tv,
                            a: ts.args[0].clone(),
                            v: v.clone(),
                        },
                    );
                }
                (Op::Prim(Prim::MatMul), [x, y])
                    if f64_matrix(func.ty(second))
                        && f64_matrix(&func.operand_ty(x))
                        && f64_matrix(&func.operand_ty(y)) =>
                {
                    let transposed = |op: &Operand| {
                        [Prim::Transpose, Prim::Adjoint]
                            .into_iter()
                            .find_map(|p| defined_by(op, p))
                            .filter(|(tv, ts)| {
                                *tv == first
                                    && ts.args.len() == 1
                                    && f64_matrix(&func.operand_ty(&ts.args[0]))
                            })
                            .map(|(tv, ts)| (tv, ts.args[0].clone()))
                    };
                    let (fused, other, is_first) = match (transposed(x), transposed(y)) {
                        (Some(f), _) => (f, y, true),
                        (None, Some(f)) => (f, x, false),
                        (None, None) => continue,
                    };
                    out.insert(first, Fused::Absorbed);
                    out.insert(
                        second,
                        Fused::TransposedMatMul {
                            t: fused.0,
                            src: fused.1,
                            other: other.clone(),
                            first: is_first,
                        },
                    );
                }
                (Op::Prim(Prim::AccumInto), [dst, o])
                    if defined_by(o, Prim::Broadcast).is_some_and(|(ov, _)| {
                        ov == first
                            && (f64_vector(func.ty(ov)) || f64_matrix(func.ty(ov)))
                            && *func.ty(ov) == func.operand_ty(dst)
                    }) =>
                {
                    out.insert(first, Fused::Absorbed);
                    out.insert(
                        second,
                        Fused::BroadcastAccum {
                            o: first,
                            dst: dst.clone(),
                        },
                    );
                }
                (Op::Prim(Prim::AccumInto), [dst, o]) if f64_matrix(&func.operand_ty(dst)) => {
                    let Some((ov, os)) = defined_by(o, Prim::MatMul) else {
                        continue;
                    };
                    let [u, row] = os.args.as_slice() else {
                        continue;
                    };
                    if ov != first
                        || !f64_matrix(func.ty(ov))
                        || !f64_vector(&func.operand_ty(u))
                        || !f64_row(&func.operand_ty(row))
                    {
                        continue;
                    }
                    out.insert(first, Fused::Absorbed);
                    out.insert(
                        second,
                        Fused::OuterAccum {
                            o: ov,
                            dst: dst.clone(),
                            u: u.clone(),
                            row: row.clone(),
                        },
                    );
                }
                _ => {}
            }
        }
    }
    sin_cos_pairs(func, &mut out);
    out
}

/// Pair each `sin(x)` with a `cos(x)` of the same Float64 operand that it dominates (or that
/// dominates it), so the first computes both.
fn sin_cos_pairs(func: &Function, out: &mut HashMap<Value, Fused>) {
    let mut preds: Vec<Vec<usize>> = vec![Vec::new(); func.blocks.len()];
    for (i, b) in func.blocks.iter().enumerate() {
        for s in b.term.successors() {
            preds[s.index()].push(i);
        }
    }
    // `a` dominates `b` if every way into `b` comes through `a` along single-predecessor
    // blocks (conservative: enough for the straight line of a driver's forward and pullback).
    let dominates = |a: usize, mut b: usize| {
        for _ in 0..func.blocks.len() {
            if a == b {
                return true;
            }
            match preds[b].as_slice() {
                [p] => b = *p,
                _ => return false,
            }
        }
        false
    };
    let mut open: HashMap<(Operand, Prim), (Value, usize)> = HashMap::new();
    for blk in func.reverse_postorder() {
        for &v in &func.block(blk).stmts {
            let Some(stmt) = func.stmt(v) else { continue };
            let p = match stmt.op {
                Op::Prim(p @ (Prim::Sin | Prim::Cos)) => p,
                _ => continue,
            };
            let [x] = stmt.args.as_slice() else { continue };
            if *func.ty(v) != Type::Float64 || func.operand_ty(x) != Type::Float64 {
                continue;
            }
            let other = if p == Prim::Sin { Prim::Cos } else { Prim::Sin };
            match open.get(&(x.clone(), other)) {
                Some(&(first, fb)) if dominates(fb, blk.index()) && !out.contains_key(&first) => {
                    open.remove(&(x.clone(), other));
                    out.insert(first, Fused::SinCos { partner: v });
                    out.insert(v, Fused::Ahead);
                }
                _ => {
                    open.entry((x.clone(), p)).or_insert((v, blk.index()));
                }
            }
        }
    }
}

/// Arrays whose zeroing is skipped (see [`fresh`]).
#[derive(Default)]
pub(crate) struct Fresh {
    /// `zero_tangent` statements making them.
    pub zeros: std::collections::HashSet<Value>,
    /// The `accum!` statements that write them first.
    pub accums: std::collections::HashSet<Value>,
}

/// Zero tangents of Float64 arrays written by one `accum!` of a Float64 array or number
/// before anything else reads them: a gradient's shadows (the MLP's 100k-entry `W1̄`). The
/// array is left unzeroed and the `accum!` writes `0.0 + x` (what adding into zeros gives)
/// instead of adding. Every other reader must come after the `accum!` in its block.
pub(crate) fn fresh(func: &Function) -> Fresh {
    let mut out = Fresh::default();
    // Each statement's block and position.
    let mut at: HashMap<Value, (usize, usize)> = HashMap::new();
    for (b, block) in func.blocks.iter().enumerate() {
        for (i, &v) in block.stmts.iter().enumerate() {
            at.insert(v, (b, i));
        }
    }
    // Readers of each value: statements, and the terminators of blocks (position usize::MAX).
    let mut readers: HashMap<Value, Vec<(usize, usize, Option<Value>)>> = HashMap::new();
    for (b, block) in func.blocks.iter().enumerate() {
        for (i, &s) in block.stmts.iter().enumerate() {
            for a in func
                .stmt(s)
                .map(|st| st.args.as_slice())
                .unwrap_or_default()
            {
                if let Operand::Value(x) = a {
                    readers.entry(*x).or_default().push((b, i, Some(s)));
                }
            }
        }
        for a in block.term.operands() {
            if let Operand::Value(x) = a {
                readers.entry(*x).or_default().push((b, usize::MAX, None));
            }
        }
    }
    let zeros = (0..func.values.len())
        .map(|i| Value(i as u32))
        .filter(|&v| {
            func.stmt(v)
                .is_some_and(|st| st.op == Op::Prim(Prim::ZeroTangent))
                && (*func.ty(v) == Type::vector_f64() || *func.ty(v) == Type::matrix_f64())
        });
    for v in zeros {
        let Some(rs) = readers.get(&v) else { continue };
        let first = rs.iter().find_map(|&(b, i, s)| {
            let s = s?;
            let st = func.stmt(s)?;
            let writes = st.op == Op::Prim(Prim::AccumInto)
                && st.args.first() == Some(&Operand::Value(v))
                && st.args.get(1).is_some_and(|x| {
                    let xt = func.operand_ty(x);
                    *x != Operand::Value(v) && (xt == Type::Float64 || xt == *func.ty(v))
                });
            writes.then_some((b, i, s))
        });
        let Some((b, i, a)) = first else { continue };
        let others_after = rs
            .iter()
            .filter(|r| r.2 != Some(a))
            .all(|&(rb, ri, _)| rb == b && ri > i);
        let once = rs.iter().filter(|r| r.2 == Some(a)).count() == 1;
        if others_after
            && once
            && !in_loop(func, b)
            && at.get(&v).is_some_and(|&(vb, vi)| vb != b || vi < i)
        {
            out.zeros.insert(v);
            out.accums.insert(a);
        }
    }
    out
}

/// Can control come back to block `b` after leaving it (is it in a loop)?
fn in_loop(func: &Function, b: usize) -> bool {
    let mut seen = vec![false; func.blocks.len()];
    let mut todo: Vec<usize> = func.blocks[b]
        .term
        .successors()
        .iter()
        .map(|s| s.index())
        .collect();
    while let Some(x) = todo.pop() {
        if x == b {
            return true;
        }
        if !std::mem::replace(&mut seen[x], true) {
            todo.extend(func.blocks[x].term.successors().iter().map(|s| s.index()));
        }
    }
    false
}

/// How many times each value is read (by statements and terminators).
fn use_counts(func: &Function) -> Vec<u32> {
    let mut uses = vec![0u32; func.values.len()];
    let mut count = |op: &Operand| {
        if let Operand::Value(v) = op {
            uses[v.index()] += 1;
        }
    };
    for block in &func.blocks {
        for &s in &block.stmts {
            if let Some(stmt) = func.stmt(s) {
                stmt.args.iter().for_each(&mut count);
            }
        }
        block.term.operands().into_iter().for_each(&mut count);
    }
    uses
}

impl Translator<'_, '_, '_> {
    /// Translate statement `op(args)` of type `ty` as the fusion `f` plans.
    pub(super) fn fused_stmt(
        &mut self,
        f: Fused,
        v: Value,
        op: &Op,
        args: &[Operand],
        ty: &Type,
        span: Span,
    ) -> R<Vec<ClValue>> {
        let Op::Prim(p) = op else {
            return Err(JitError::invalid("a fusion of a non-primitive"));
        };
        let p = *p;
        match f {
            Fused::Absorbed => Ok(Vec::new()),
            Fused::Ahead => self
                .ahead
                .get(&v)
                .map(|&x| vec![x])
                .ok_or_else(|| JitError::invalid("a sin/cos pair out of order")),
            Fused::BroadcastAccum { o, dst } => {
                let ostmt = self.func.stmt(o).ok_or_else(|| {
                    JitError::invalid("a fused broadcast that is not a statement")
                })?;
                let bargs = ostmt.args.clone();
                let bty = self.func.ty(o).clone();
                let bspan = self.func.value(o).span;
                let btys: Vec<Type> = bargs.iter().map(|a| self.func.operand_ty(a)).collect();
                // Unfused: make the broadcast's array, then accumulate it.
                let (uargs, uty) = (bargs.clone(), bty.clone());
                let unfused = move |t: &mut Self| -> R<Vec<ClValue>> {
                    let made = t.prim(Prim::Broadcast, &uargs, &uty, bspan)?;
                    t.set_slots(o, made);
                    t.prim(p, args, ty, span).map(|_| Vec::new())
                };
                let d = self.pointer(&dst)?;
                let fresh = self.fresh.accums.contains(&v);
                let done = self.broadcast_loop(
                    &bargs,
                    &btys,
                    &bty,
                    bspan,
                    Some((d, fresh)),
                    unfused.clone(),
                )?;
                if done.is_none() {
                    unfused(self)?;
                }
                self.zeros(ty)
            }
            Fused::SinCos { partner } => {
                let x = self.operand(&args[0])?[0];
                let ax = self.b.ins().fabs(x);
                let inf = self.b.ins().f64const(f64::INFINITY);
                let bad = self.b.ins().fcmp(FloatCC::Equal, ax, inf);
                let rt = self.env.rt.sincos;
                let both = self.guarded(
                    bad,
                    &[types::F64, types::F64],
                    // sin(±Inf) and cos(±Inf) are DomainErrors: this statement raises its own.
                    |t| {
                        let y = t.fallback(p, args, ty, span)?;
                        Ok(vec![y[0], y[0]])
                    },
                    |t| {
                        let r = t.func_ref(rt);
                        let call = t.b.ins().call(r, &[x]);
                        Ok(t.b.inst_results(call).to_vec())
                    },
                )?;
                let (mine, theirs) = if p == Prim::Sin {
                    (both[0], both[1])
                } else {
                    (both[1], both[0])
                };
                self.ahead.insert(partner, theirs);
                Ok(vec![mine])
            }
            Fused::TransposedProduct { t, a, v } => {
                let (a, y) = (self.pointer(&a)?, self.pointer(&v)?);
                let rt = self.env.rt.matmul_tn;
                let ctx = self.ctx();
                let out = self
                    .call_rt(rt, &[ctx, a, y])
                    .ok_or_else(|| JitError::invalid("matmul_tn"))?;
                let mismatch = self.b.ins().icmp_imm_s(IntCC::Equal, out, 0);
                self.guarded(
                    mismatch,
                    &[types::I64],
                    // The lengths differ: make the transpose after all and let the product
                    // raise the interpreter's error.
                    |tr| {
                        let rt = tr.env.rt.transpose;
                        let ctx = tr.ctx();
                        let tp = tr
                            .call_rt(rt, &[ctx, a])
                            .ok_or_else(|| JitError::invalid("transpose"))?;
                        tr.set_slots(t, vec![tp]);
                        tr.prim(p, args, ty, span)
                    },
                    |_| Ok(vec![out]),
                )
            }
            Fused::TransposedMatMul {
                t,
                src,
                other,
                first,
            } => {
                let (s, o) = (self.pointer(&src)?, self.pointer(&other)?);
                let (yes, no) = (
                    self.b.ins().iconst(types::I8, 1),
                    self.b.ins().iconst(types::I8, 0),
                );
                let (a, ta, b, tb) = if first {
                    (s, yes, o, no)
                } else {
                    (o, no, s, yes)
                };
                let rt = self.env.rt.matmul_op;
                let ctx = self.ctx();
                let out = self
                    .call_rt(rt, &[ctx, a, ta, b, tb])
                    .ok_or_else(|| JitError::invalid("matmul_op"))?;
                let declined = self.b.ins().icmp_imm_s(IntCC::Equal, out, 0);
                self.guarded(
                    declined,
                    &[types::I64],
                    // A product the blocked kernel does not compute, or sizes that differ: make
                    // the transpose after all, and the product as unfused code does.
                    |tr| {
                        let rt = tr.env.rt.transpose;
                        let ctx = tr.ctx();
                        let tp = tr
                            .call_rt(rt, &[ctx, s])
                            .ok_or_else(|| JitError::invalid("transpose"))?;
                        tr.set_slots(t, vec![tp]);
                        tr.prim(p, args, ty, span)
                    },
                    |_| Ok(vec![out]),
                )
            }
            Fused::OuterAccum { o, dst, u, row } => {
                let (d, x, y) = (self.pointer(&dst)?, self.pointer(&u)?, self.pointer(&row)?);
                let rt = self.env.rt.accum_outer;
                let fresh = self.fresh_flag();
                let bad = self
                    .call_rt(rt, &[d, x, y, fresh])
                    .ok_or_else(|| JitError::invalid("accum_outer"))?;
                self.guarded(
                    bad,
                    &[],
                    // The shapes differ: make the product after all and accumulate it as the
                    // unfused code does (which raises the interpreter's error).
                    |tr| {
                        let rt = tr.env.rt.matmul;
                        let ctx = tr.ctx();
                        let (ka, kb) = (
                            tr.b.ins().iconst(types::I64, 0),
                            tr.b.ins().iconst(types::I64, 2),
                        );
                        let prod = tr
                            .call_rt(rt, &[ctx, x, ka, y, kb])
                            .ok_or_else(|| JitError::invalid("matmul"))?;
                        tr.set_slots(o, vec![prod]);
                        tr.prim(p, args, ty, span).map(|_| Vec::new())
                    },
                    |_| Ok(Vec::new()),
                )?;
                self.zeros(ty)
            }
        }
    }
}
