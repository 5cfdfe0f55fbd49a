//! Statement pairs that compile to one kernel: a pullback's matrix products take a transpose or
//! an outer product that only the next statement reads, and making that intermediate matrix
//! would cost a pass over memory (and its allocation) for nothing.
//!
//! - `t = transpose(A); y = t * v` becomes `y = A' v` computed from `A`'s columns.
//! - `t = transpose(A); Y = t * B` and `t = transpose(B); Y = A * t` of matrices (a product's
//!   pullback, `A' * B` in user code) become one GEMM reading `A` or `B` through swapped
//!   strides.
//! - `o = u * v'; accum!(D, o)` becomes `D += u v'` in place.
//! - `t = transpose(A); accum!(D, t)` of matrices (the pullback of a transpose) becomes
//!   `D += Aᵀ` read through swapped indices.
//! - `P = A * B; accum!(D, P)` of matrices (either factor maybe a transpose absorbed as above:
//!   a product's pullback adding `Ȳ Bᵀ` into `Ā`) becomes one GEMM adding into `D`.
//! - A chain of elementwise broadcasts, each read only by the next ones (`exp.(x .- m)`, a
//!   pullback's `ȳ .* (2.0 .* x)`), is one loop that makes only the last array, or adds it into
//!   the array a following `accum!` writes, or sums it for a following `sum` (see [`Chain`]).
//! - `sin(x)` and `cos(x)` of one operand (the forward pass and the pullback of `sin` meet in a
//!   gradient driver) are one `sincos(x)`, at the first of the two.
//!
//! Results are the unfused ones bit for bit: the kernels sum in the same order, and `sincos`
//! gives the bits of `sin` and `cos`.

use std::collections::{HashMap, HashSet};

use cranelift_codegen::ir::{
    condcodes::{FloatCC, IntCC},
    types, InstBuilder,
};
use zy_ir::{Domain, Function, Op, Operand, Prim, Span, Throws, Type, Value};

use super::broadcast::{Into, Out, Stage};
use super::scalar::Slow;

use super::{mem, ClValue, Translator, R};
use crate::error::JitError;
use crate::runtime::arena::array_offset;

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
    /// The statement where a chain of broadcasts runs as one loop (see [`Chain`]).
    Chain(Chain),
    /// `zero_tangent(x)` of an absorbed broadcast `x`: zeros of the shape of the arrays it
    /// reads; `stages` are the chain's broadcasts `x` is computed from (`x` last), made when
    /// those shapes differ.
    ZeroLike { stages: Vec<Value> },
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
    /// `accum!(dst, t)` with `t = transpose(src)` or `adjoint(src)` (absorbed) of a Float64
    /// matrix `src`.
    TransposeAccum {
        t: Value,
        dst: Operand,
        src: Operand,
    },
    /// `accum!(dst, o)` with `o = op(a) * op(b)` (absorbed) of Float64 matrices, `op` the
    /// transpose for a true flag: `t`, when there is one, the absorbed `transpose` the product
    /// read (see [`Fused::TransposedMatMul`]).
    ProductAccum {
        o: Value,
        t: Option<Value>,
        dst: Operand,
        a: (Operand, bool),
        b: (Operand, bool),
    },
    /// `slice_copy(x, a, s, n)` read in place (see [`virtual_slices`]): its indices are checked
    /// here, and the broadcasts reading it read `x[a + k s]`.
    Slice,
    /// `zero_tangent(v)` of a slice `v` read in place: zeros of its length.
    SliceZero { slice: Value },
    /// `accum_slice!(dst, first, step, shadow)` where `shadow = zero_tangent(slice)` of a slice
    /// read in place is written only by `accum!(shadow, src)` of a Float64 vector before:
    /// `src` added into the slice of `dst` through zeros (see [`slice_accums`]).
    SliceAccum {
        src: Operand,
        shadow: Value,
        slice: Value,
    },
    /// `z = zero_tangent(like)` of a Float64 array that its one `accum!(z, value)` of a number
    /// fills and only elementwise broadcasts read (see [`uniform_shadows`]): never made; their
    /// loops read the number `0.0 + value`, and a reader that needs the array makes it.
    Uniform { like: Operand, value: Operand },
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
                (Op::Prim(Prim::AccumInto), [dst, o]) if f64_matrix(&func.operand_ty(dst)) => {
                    let transposed = [Prim::Transpose, Prim::Adjoint]
                        .into_iter()
                        .find_map(|p| defined_by(o, p))
                        .filter(|(tv, ts)| {
                            *tv == first
                                && ts.args.len() == 1
                                && f64_matrix(&func.operand_ty(&ts.args[0]))
                        });
                    if let Some((tv, ts)) = transposed {
                        out.insert(first, Fused::Absorbed);
                        out.insert(
                            second,
                            Fused::TransposeAccum {
                                t: tv,
                                dst: dst.clone(),
                                src: ts.args[0].clone(),
                            },
                        );
                        continue;
                    }
                    let Some((ov, os)) = defined_by(o, Prim::MatMul) else {
                        continue;
                    };
                    let [x, y] = os.args.as_slice() else {
                        continue;
                    };
                    if ov != first || !f64_matrix(func.ty(ov)) {
                        continue;
                    }
                    let (xt, yt) = (func.operand_ty(x), func.operand_ty(y));
                    let fused = if f64_vector(&xt) && f64_row(&yt) {
                        Fused::OuterAccum {
                            o: ov,
                            dst: dst.clone(),
                            u: x.clone(),
                            row: y.clone(),
                        }
                    } else if f64_matrix(&xt) && f64_matrix(&yt) {
                        let (t, a, b) = match out.get(&ov) {
                            None => (None, (x.clone(), false), (y.clone(), false)),
                            Some(Fused::TransposedMatMul {
                                t,
                                src,
                                other,
                                first,
                            }) => {
                                let (s, o) = ((src.clone(), true), (other.clone(), false));
                                let (a, b) = if *first { (s, o) } else { (o, s) };
                                (Some(*t), a, b)
                            }
                            Some(_) => continue,
                        };
                        Fused::ProductAccum {
                            o: ov,
                            t,
                            dst: dst.clone(),
                            a,
                            b,
                        }
                    } else {
                        continue;
                    };
                    out.insert(first, Fused::Absorbed);
                    out.insert(second, fused);
                }
                _ => {}
            }
        }
    }
    chains(func, &mut out);
    sin_cos_pairs(func, &mut out);
    virtual_slices(func, &mut out);
    slice_accums(func, &mut out);
    uniform_shadows(func, &mut out);
    summed_chains(func, &mut out);
    out
}

/// `s = sum(a)` of the Float64 array a chain's loop makes or adds into (or that one
/// elementwise broadcast makes), later in its block with only statements between that leave
/// `a` as it is: the loop sums the elements as it stores them (in `sum`'s order, the same
/// bits), and `s` takes that sum (as [`Fused::Ahead`]): one pass over `a` fewer
/// (`sum(exp.(x .- m))` in a gradient's forward pass, which keeps `exp.(x .- m)`).
fn summed_chains(func: &Function, out: &mut HashMap<Value, Fused>) {
    for block in &func.blocks {
        let stmts = &block.stmts;
        for (i, &v) in stmts.iter().enumerate() {
            let (array, chain) = match out.get(&v) {
                Some(Fused::Chain(c)) if c.summed.is_none() => match &c.out {
                    ChainOut::New => (c.root, c.clone()),
                    ChainOut::Into {
                        dst: Operand::Value(d),
                    } => (*d, c.clone()),
                    _ => continue,
                },
                None if elementwise_broadcast(func, v) => (
                    v,
                    Chain {
                        stages: Vec::new(),
                        root: v,
                        out: ChainOut::New,
                        summed: None,
                    },
                ),
                _ => continue,
            };
            let f64_array = |t: &Type| *t == Type::vector_f64() || *t == Type::matrix_f64();
            if !f64_array(func.ty(array)) {
                continue;
            }
            let a = Operand::Value(array);
            let kept = HashSet::from([a.clone()]);
            let sum = stmts[i + 1..]
                .iter()
                .take_while(|&&t| {
                    let is_sum = func
                        .stmt(t)
                        .is_some_and(|st| st.op == Op::Prim(Prim::Sum) && st.args == [a.clone()]);
                    is_sum || transparent(func, t, &kept)
                })
                .copied()
                .find(|&t| {
                    func.stmt(t)
                        .is_some_and(|st| st.op == Op::Prim(Prim::Sum) && st.args == [a.clone()])
                        && *func.ty(t) == Type::Float64
                        && !out.contains_key(&t)
                });
            if let Some(s) = sum {
                out.insert(s, Fused::Ahead);
                out.insert(
                    v,
                    Fused::Chain(Chain {
                        summed: Some(s),
                        ..chain
                    }),
                );
            }
        }
    }
}

/// Gradients that hold one number in every element: `z = zero_tangent(like)` of a Float64
/// array, fresh (see [`fresh`]), filled by its `accum!(z, value)` of a number (the shadow of
/// a `sum`'s argument: `ȳ / s` in logsumexp's pullback) and read after it only by elementwise
/// broadcasts. Making and filling the array would be a pass over memory for a number that
/// the broadcasts' loops can read instead (`0.0 + value`, the bits of each filled element);
/// the `accum!` is absorbed.
fn uniform_shadows(func: &Function, out: &mut HashMap<Value, Fused>) {
    let fresh = fresh(func);
    let mut accums: Vec<Value> = fresh.accums.iter().copied().collect();
    accums.sort_by_key(|a| a.index());
    for a in accums {
        let Some(st) = func.stmt(a) else { continue };
        let [Operand::Value(z), value] = st.args.as_slice() else {
            continue;
        };
        let Some([like]) = func.stmt(*z).map(|zs| zs.args.as_slice()) else {
            continue;
        };
        let absorbed = |v: &Value| out.get(v) == Some(&Fused::Absorbed);
        if func.operand_ty(value) != Type::Float64
            || !fresh.zeros.contains(z)
            || out.contains_key(z)
            || out.contains_key(&a)
            || func.operand_ty(like) != *func.ty(*z)
            || like.as_value().is_some_and(|l| absorbed(&l))
        {
            continue;
        }
        let zv = Operand::Value(*z);
        let broadcasts_only = func.blocks.iter().all(|b| {
            !b.term.operands().contains(&&zv)
                && b.stmts.iter().all(|&r| {
                    let reads = func.stmt(r).is_some_and(|rs| rs.args.contains(&zv));
                    !reads
                        || r == a
                        || (elementwise_broadcast(func, r)
                            && func.stmt(r).is_some_and(|rs| rs.args.first() != Some(&zv)))
                })
        });
        if broadcasts_only {
            out.insert(a, Fused::Absorbed);
            out.insert(
                *z,
                Fused::Uniform {
                    like: like.clone(),
                    value: value.clone(),
                },
            );
        }
    }
}

/// A slice's gradient made only to be added into its parent's: `shadow = zero_tangent(v)` of
/// a slice `v` read in place, `accum!(shadow, root)` of a chain's root (at the `accum!`), then
/// `accum_slice!(dst, first, step, shadow)`, nothing else reading `shadow`. The chain runs at
/// the `accum_slice!` instead (statements in between leave the arrays it reads as they are),
/// adding `0.0 + y` into `dst`'s elements, the bits of adding `y` into zeros and those into
/// `dst`, in the same order as other additions into `dst`.
fn slice_accums(func: &Function, out: &mut HashMap<Value, Fused>) {
    for block in &func.blocks {
        let stmts = &block.stmts;
        for (w_at, &w) in stmts.iter().enumerate() {
            let Some(ws) = func.stmt(w) else { continue };
            let (Op::Prim(Prim::AccumSlice), [dst, first, step, Operand::Value(shadow)]) =
                (&ws.op, ws.args.as_slice())
            else {
                continue;
            };
            let Some(Fused::SliceZero { slice }) = out.get(shadow).cloned() else {
                continue;
            };
            // The readers of the shadow: one `accum!` in this block before `w`, and `w`.
            let mut readers = Vec::new();
            for (b, blk) in func.blocks.iter().enumerate() {
                for (i, &r) in blk.stmts.iter().enumerate() {
                    if func
                        .stmt(r)
                        .is_some_and(|rs| rs.args.contains(&Operand::Value(*shadow)))
                    {
                        readers.push((b, i, r));
                    }
                }
                if blk.term.operands().contains(&&Operand::Value(*shadow)) {
                    readers.push((b, usize::MAX, w));
                }
            }
            let [(_, p_at, p), (_, at, r2)] = readers.as_slice() else {
                continue;
            };
            let same_block = readers
                .iter()
                .all(|&(b, _, _)| std::ptr::eq(&func.blocks[b], block));
            if !same_block || *r2 != w || *at != w_at || p_at >= at {
                continue;
            }
            let Some(Fused::Chain(chain)) = out.get(p).cloned() else {
                // `accum!(shadow, src)` of an array made before.
                let src = func.stmt(*p).and_then(|ps| match ps.args.as_slice() {
                    [d, src]
                        if ps.op == Op::Prim(Prim::AccumInto)
                            && *d == Operand::Value(*shadow)
                            && func.operand_ty(src) == Type::vector_f64() =>
                    {
                        Some(src.clone())
                    }
                    _ => None,
                });
                let Some(src) = src.filter(|_| !out.contains_key(p)) else {
                    continue;
                };
                let leaves = HashSet::from([src.clone()]);
                let clear = stmts[p_at + 1..w_at]
                    .iter()
                    .all(|&t| transparent(func, t, &leaves));
                if clear && *dst != src {
                    out.insert(*p, Fused::Absorbed);
                    out.insert(*shadow, Fused::Absorbed);
                    out.insert(
                        w,
                        Fused::SliceAccum {
                            src,
                            shadow: *shadow,
                            slice,
                        },
                    );
                }
                continue;
            };
            if chain.out
                != (ChainOut::Into {
                    dst: Operand::Value(*shadow),
                })
            {
                continue;
            }
            let mut members: HashSet<Value> = chain.stages.iter().copied().collect();
            members.insert(chain.root);
            let leaves = chain_leaves(func, &members);
            let clear = stmts[p_at + 1..w_at]
                .iter()
                .all(|&t| transparent(func, t, &leaves));
            if !clear || leaves.contains(dst) {
                continue;
            }
            out.insert(*p, Fused::Absorbed);
            out.insert(*shadow, Fused::Absorbed);
            out.insert(
                w,
                Fused::Chain(Chain {
                    out: ChainOut::IntoSlice {
                        dst: dst.clone(),
                        first: first.clone(),
                        step: step.clone(),
                        shadow: *shadow,
                        slice,
                    },
                    ..chain
                }),
            );
        }
    }
}

/// Slices `v = slice_copy(x, a, s, n)` of a Float64 array argument `x` that are never made:
/// every reader of `v` is a broadcast (which reads its elements, `x[a + k s]`, in its loop) or
/// `zero_tangent(v)` (which reads its length), in `v`'s block, and nothing before the last of
/// them may write `x` (statements in between write only arrays this function makes with
/// `zero_tangent`, or call functions with plain data). The slice's bounds are checked where it
/// is written, so its error comes where the copy's would. A broadcast translated by the
/// runtime reads a copy made there (the same elements: `x` has not changed).
fn virtual_slices(func: &Function, out: &mut HashMap<Value, Fused>) {
    for block in &func.blocks {
        for (i, &v) in block.stmts.iter().enumerate() {
            let Some(st) = func.stmt(v) else { continue };
            let (Op::Prim(Prim::SliceCopy), [Operand::Value(x), a, s, n]) =
                (&st.op, st.args.as_slice())
            else {
                continue;
            };
            let argument = func.args().contains(x);
            let f64_parent = matches!(func.ty(*x), Type::Array(e, _) if **e == Type::Float64);
            let ints = [a, s, n].iter().all(|o| func.operand_ty(o) == Type::Int64);
            if !argument || !f64_parent || !ints || *func.ty(v) != Type::vector_f64() {
                continue;
            }
            let reads = |r: Value| {
                func.stmt(r)
                    .is_some_and(|rs| rs.args.contains(&Operand::Value(v)))
            };
            let mut last = None;
            let mut zeros = Vec::new();
            let mut ok = true;
            for (j, &r) in block.stmts.iter().enumerate().skip(i + 1) {
                if !reads(r) {
                    continue;
                }
                let Some(rs) = func.stmt(r) else { continue };
                let zero = rs.op == Op::Prim(Prim::ZeroTangent) && rs.args.len() == 1;
                let bcast =
                    elementwise_broadcast(func, r) && rs.args.first() != Some(&Operand::Value(v));
                if zero {
                    zeros.push(r);
                } else if !bcast {
                    ok = false;
                }
                last = Some(j);
            }
            let elsewhere = func.blocks.iter().any(|b| {
                !std::ptr::eq(b, block)
                    && (b.stmts.iter().any(|&r| reads(r))
                        || b.term.operands().contains(&&Operand::Value(v)))
            }) || block.term.operands().contains(&&Operand::Value(v));
            let Some(last) = last else { continue };
            if !ok || elsewhere || out.contains_key(&v) {
                continue;
            }
            if !block.stmts[i + 1..last]
                .iter()
                .all(|&t| keeps_parent(func, t, *x))
            {
                continue;
            }
            if zeros.iter().any(|z| out.contains_key(z)) {
                continue;
            }
            out.insert(v, Fused::Slice);
            for z in zeros {
                out.insert(z, Fused::SliceZero { slice: v });
            }
        }
    }
}

/// Does statement `t` leave the array `x` (an argument of the function) as it is? It writes
/// nothing, or only an array made by `zero_tangent` in this function, or calls a function
/// with numbers and immutable values of numbers only.
fn keeps_parent(func: &Function, t: Value, x: Value) -> bool {
    fn plain(t: &Type) -> bool {
        t.is_number()
            || *t == Type::Nothing
            || (!t.is_mutable()
                && matches!(t, Type::Tuple(_) | Type::NamedTuple(_) | Type::Struct(_))
                && t.field_types().is_some_and(|fs| fs.iter().all(plain)))
    }
    let Some(st) = func.stmt(t) else {
        return false;
    };
    match &st.op {
        Op::Prim(p) => {
            let e = p.info().effects;
            if e.calls {
                return false;
            }
            match e.mutates {
                None => true,
                Some(k) => st
                    .args
                    .get(usize::from(k))
                    .and_then(Operand::as_value)
                    .is_some_and(|d| {
                        d != x
                            && func
                                .stmt(d)
                                .is_some_and(|ds| ds.op == Op::Prim(Prim::ZeroTangent))
                    }),
            }
        }
        Op::New(_) => true,
        Op::Invoke(_) => st.args.iter().all(|a| plain(&func.operand_ty(a))),
        _ => false,
    }
}

/// A chain of elementwise broadcasts computed by one loop: the `stages`, each read only by
/// later stages of the chain (and by `zero_tangent`s, for its shape), are not made; the last
/// stage, `root`, goes where `out` says. Every element is computed by the same operations on
/// the same operands as unfused, so the results are the same bits.
#[derive(Clone, PartialEq, Debug)]
pub(crate) struct Chain {
    /// The absorbed broadcasts, in statement order.
    pub stages: Vec<Value>,
    /// The last broadcast.
    pub root: Value,
    /// Where its elements go.
    pub out: ChainOut,
    /// A later `sum` of the array the loop makes ([`ChainOut::New`]) or adds into
    /// ([`ChainOut::Into`]), which the loop computes as it stores (see [`summed_chains`]).
    pub summed: Option<Value>,
}

/// What a chain's loop does with its root's elements, and at which statement it runs.
#[derive(Clone, PartialEq, Debug)]
pub(crate) enum ChainOut {
    /// At the root: its array is made.
    New,
    /// At `accum!(dst, root)`: added into the Float64 array `dst`; the root is not made.
    Into { dst: Operand },
    /// At `accum_slice!(dst, first, step, shadow)`, where `shadow = zero_tangent(slice)` of a
    /// slice read in place is written only by `accum!(shadow, root)` before: added into the
    /// slice of `dst` (see [`slice_accums`]); neither the root nor the shadow is made.
    IntoSlice {
        dst: Operand,
        first: Operand,
        step: Operand,
        shadow: Value,
        slice: Value,
    },
    /// At `sum(root)` of a Float64 array: summed in `sum`'s order (block by block, each block
    /// in eight interleaved partial sums held in registers, as the interpreter's kernel sums
    /// it: a single running sum would be on the loop's critical path); the root is not made.
    Sum,
}

/// Is `v` a broadcast of an elementwise primitive over numbers and arrays of numbers, giving
/// an array of numbers, whose element operation never throws (so that it may run later, in
/// another loop, than written)?
fn elementwise_broadcast(func: &Function, v: Value) -> bool {
    let Some(stmt) = func.stmt(v) else {
        return false;
    };
    let (Op::Prim(Prim::Broadcast), Some(Operand::Const(zy_ir::Const::Func(name)))) =
        (&stmt.op, stmt.args.first())
    else {
        return false;
    };
    let Some(p) = Prim::elementwise(name, stmt.args.len() - 1) else {
        return false;
    };
    let throws = p == Prim::Sqrt || p.math().is_some_and(|m| m.domain != Domain::All);
    let number_array = |t: &Type| matches!(t, Type::Array(e, _) if e.is_number());
    !throws
        && number_array(func.ty(v))
        && stmt.args[1..].iter().all(|a| {
            let t = func.operand_ty(a);
            t.is_number() || number_array(&t)
        })
}

/// May a statement run while a chain's stages wait to be computed after it? It neither
/// writes an object (but `accum!` into an array made by `zero_tangent`, which no stage
/// reads) nor throws (but broadcasts, which throw only on their own shapes).
fn transparent(func: &Function, s: Value, leaves: &HashSet<Operand>) -> bool {
    let Some(stmt) = func.stmt(s) else {
        return false;
    };
    let Op::Prim(p) = stmt.op else {
        return false;
    };
    let e = p.info().effects;
    match p {
        Prim::AccumInto | Prim::AccumSlice => stmt.args.first().is_some_and(|d| {
            !leaves.contains(d)
                && d.as_value()
                    .and_then(|d| func.stmt(d))
                    .is_some_and(|ds| ds.op == Op::Prim(Prim::ZeroTangent))
        }),
        Prim::Broadcast => elementwise_broadcast(func, s),
        _ => e.mutates.is_none() && !e.calls && !e.observed && e.throws == Throws::Never,
    }
}

/// The chains of `func` (see [`Chain`]), and the `zero_tangent`s of their stages.
fn chains(func: &Function, out: &mut HashMap<Value, Fused>) {
    // `zero_tangent(x)` of a Float64 array: the `x` it takes its shape from.
    let zero_of = |s: Value| {
        func.stmt(s)
            .filter(|st| {
                st.op == Op::Prim(Prim::ZeroTangent)
                    && st.args.len() == 1
                    && (*func.ty(s) == Type::vector_f64() || *func.ty(s) == Type::matrix_f64())
            })
            .and_then(|st| st.args[0].as_value())
    };
    // Every reader of each value: (block, position) of statements; terminators count as
    // readers that no chain may absorb.
    let mut readers: HashMap<Value, Vec<(usize, usize)>> = HashMap::new();
    for (b, block) in func.blocks.iter().enumerate() {
        for (i, &s) in block.stmts.iter().enumerate() {
            for a in func
                .stmt(s)
                .map(|st| st.args.as_slice())
                .unwrap_or_default()
            {
                if let Operand::Value(x) = a {
                    readers.entry(*x).or_default().push((b, i));
                }
            }
        }
        for a in block.term.operands() {
            if let Operand::Value(x) = a {
                readers.entry(*x).or_default().push((b, usize::MAX));
            }
        }
    }
    for (b, block) in func.blocks.iter().enumerate() {
        let stmts = &block.stmts;
        let pos: HashMap<Value, usize> = stmts.iter().enumerate().map(|(i, &s)| (s, i)).collect();
        // For a value: its readers other than `zero_tangent`s of it in this block, and those.
        let split = |v: Value| {
            let mut other = Vec::new();
            let mut zeros = Vec::new();
            for &(rb, ri) in readers.get(&v).map(Vec::as_slice).unwrap_or_default() {
                let r = (rb == b && ri != usize::MAX).then(|| stmts[ri]);
                match r {
                    Some(r) if zero_of(r) == Some(v) => zeros.push(ri),
                    _ => other.push((rb, ri)),
                }
            }
            (other, zeros)
        };
        // Statements strictly between positions `from` and `to` are members or transparent.
        let clear =
            |from: usize, to: usize, members: &HashSet<Value>, leaves: &HashSet<Operand>| {
                stmts[from + 1..to]
                    .iter()
                    .all(|s| members.contains(s) || transparent(func, *s, leaves))
            };
        // Broadcasts not absorbed yet, with their stages.
        let mut open: HashMap<Value, Vec<Value>> = HashMap::new();
        for (i, &s) in stmts.iter().enumerate() {
            if !elementwise_broadcast(func, s) {
                continue;
            }
            let Some(stmt) = func.stmt(s) else { continue };
            let mut stages: Vec<Value> = Vec::new();
            for a in &stmt.args[1..] {
                let Some(t) = a.as_value() else { continue };
                let Some(inner) = open.get(&t) else { continue };
                let (other, zeros) = split(t);
                if other != [(b, i)] || zeros.iter().any(|&z| z > i) {
                    continue;
                }
                let mut members: HashSet<Value> = inner.iter().copied().collect();
                members.extend(stages.iter().copied());
                members.insert(t);
                let leaves = chain_leaves(func, &members);
                if !clear(pos[&t], i, &members, &leaves) {
                    continue;
                }
                let mut inner = open.remove(&t).unwrap_or_default();
                inner.push(t);
                stages.extend(inner);
            }
            stages.sort_by_key(|v| pos[v]);
            stages.dedup();
            open.insert(s, stages);
        }
        for (root, stages) in open {
            let (other, zeros) = split(root);
            let f64_array = |t: &Type| *t == Type::vector_f64() || *t == Type::matrix_f64();
            let mut members: HashSet<Value> = stages.iter().copied().collect();
            members.insert(root);
            let leaves = chain_leaves(func, &members);
            let at = pos[&root];
            // The one other reader, in this block after the root with only transparent
            // statements between (and the zero_tangents before it).
            let single = match other.as_slice() {
                [(rb, ri)] if *rb == b && *ri != usize::MAX && zeros.iter().all(|z| z < ri) => {
                    clear(at, *ri, &members, &leaves).then(|| stmts[*ri])
                }
                _ => None,
            };
            let reader = single.and_then(|r| func.stmt(r).map(|st| (r, st)));
            let into = reader.and_then(|(r, st)| {
                (st.op == Op::Prim(Prim::AccumInto)
                    && st.args.get(1) == Some(&Operand::Value(root))
                    && f64_array(func.ty(root))
                    && func.operand_ty(&st.args[0]) == *func.ty(root))
                .then(|| {
                    let dst = st.args[0].clone();
                    (r, ChainOut::Into { dst })
                })
            });
            let sum = reader.and_then(|(r, st)| {
                (st.op == Op::Prim(Prim::Sum)
                    && st.args == [Operand::Value(root)]
                    && f64_array(func.ty(root))
                    && *func.ty(r) == Type::Float64)
                    .then_some((r, ChainOut::Sum))
            });
            let runs = match into.or(sum) {
                Some(x) => Some(x),
                // Read only for its shape (the gradient's forward pass of a `sum` whose value
                // is not used): never made, its zeros take the shape of what it reads.
                None if other.is_empty() && !zeros.is_empty() => None,
                // Made where written.
                None if stages.is_empty() => continue,
                None => Some((root, ChainOut::New)),
            };
            for &st in &stages {
                out.insert(st, Fused::Absorbed);
                for z in split(st).1 {
                    let sub = subtree(func, st, &members);
                    out.insert(stmts[z], Fused::ZeroLike { stages: sub });
                }
            }
            if runs.as_ref().map(|r| r.0) != Some(root) {
                out.insert(root, Fused::Absorbed);
                for &z in &zeros {
                    let sub = subtree(func, root, &members);
                    out.insert(stmts[z], Fused::ZeroLike { stages: sub });
                }
            }
            if let Some((at_stmt, chain_out)) = runs {
                out.insert(
                    at_stmt,
                    Fused::Chain(Chain {
                        stages,
                        root,
                        out: chain_out,
                        summed: None,
                    }),
                );
            }
        }
    }
}

/// The members of a chain that `v` reads, directly or through other members, and `v`, in
/// statement order (value numbers follow it within a block).
fn subtree(func: &Function, v: Value, members: &HashSet<Value>) -> Vec<Value> {
    let mut out = vec![v];
    let mut todo = vec![v];
    while let Some(x) = todo.pop() {
        for a in func.stmt(x).map(|s| s.args.as_slice()).unwrap_or_default() {
            if let Some(y) = a
                .as_value()
                .filter(|y| members.contains(y) && !out.contains(y))
            {
                out.push(y);
                todo.push(y);
            }
        }
    }
    out.sort_by_key(|x| x.index());
    out
}

/// The operands the broadcasts `members` read that are not members themselves.
fn chain_leaves(func: &Function, members: &HashSet<Value>) -> HashSet<Operand> {
    members
        .iter()
        .filter_map(|&m| func.stmt(m))
        .flat_map(|st| st.args[1..].iter().cloned())
        .filter(|a| !a.as_value().is_some_and(|v| members.contains(&v)))
        .collect()
}

/// One line per chain of broadcasts in `func` that the JIT runs as one loop, for the CLIF
/// view: `; fused: %4 = broadcast(-, %1, %3), %6 = broadcast(exp, %4) -> made`.
pub(crate) fn notes(func: &Function) -> Vec<String> {
    let planned = plan(func);
    let mut slices: Vec<Value> = planned
        .iter()
        .filter(|(_, f)| **f == Fused::Slice)
        .map(|(v, _)| *v)
        .collect();
    slices.sort_by_key(|v| v.index());
    let mut accums: Vec<(Value, Operand)> = planned
        .iter()
        .filter_map(|(v, f)| match f {
            Fused::SliceAccum { src, .. } => Some((*v, src.clone())),
            _ => None,
        })
        .collect();
    accums.sort_by_key(|(v, _)| v.index());
    let mut uniforms: Vec<(Value, Operand)> = planned
        .iter()
        .filter_map(|(v, f)| match f {
            Fused::Uniform { value, .. } => Some((*v, value.clone())),
            _ => None,
        })
        .collect();
    uniforms.sort_by_key(|(v, _)| v.index());
    let slice_notes = slices
        .into_iter()
        .map(|v| {
            let args: Vec<String> = func
                .stmt(v)
                .map(|s| s.args.iter().map(|a| a.to_string()).collect())
                .unwrap_or_default();
            format!("; read in place: {v} = slice_copy({})", args.join(", "))
        })
        .chain(
            accums
                .into_iter()
                .map(|(v, src)| format!("; slice gradient {src} added into its parent's at {v}")),
        )
        .chain(
            uniforms
                .into_iter()
                .map(|(z, x)| format!("; not made: {z} = zero_tangent(...) filled with {x}")),
        );
    let mut chains: Vec<(Value, Chain)> = planned
        .into_iter()
        .filter_map(|(v, f)| match f {
            Fused::Chain(c) => Some((v, c)),
            _ => None,
        })
        .collect();
    chains.sort_by_key(|(v, _)| v.index());
    let show = |v: Value| {
        let args: Vec<String> = func
            .stmt(v)
            .map(|s| s.args.iter().map(|a| a.to_string()).collect())
            .unwrap_or_default();
        format!("{v} = broadcast({})", args.join(", "))
    };
    chains
        .into_iter()
        .map(|(at, c)| {
            let stages: Vec<String> = c.stages.iter().chain([&c.root]).map(|&v| show(v)).collect();
            let out = match c.out {
                ChainOut::New => "made".to_string(),
                ChainOut::Into { dst } => format!("added into {dst} at {at}"),
                ChainOut::IntoSlice { dst, .. } => {
                    format!("added into a slice of {dst} at {at}")
                }
                ChainOut::Sum => format!("summed at {at}"),
            };
            let summed = c
                .summed
                .map(|s| format!(", summed for {s}"))
                .unwrap_or_default();
            format!("; fused: {} -> {out}{summed}", stages.join(", "))
        })
        .chain(slice_notes)
        .collect()
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
    /// Is `op` a slice read in place (see [`virtual_slices`])?
    pub(crate) fn is_virtual_slice(&self, op: &Operand) -> bool {
        op.as_value()
            .is_some_and(|v| self.fused.get(&v) == Some(&Fused::Slice))
    }

    /// The slice read in place `v`, made (for a reader that reads it whole).
    pub(crate) fn make_slice(&mut self, v: Value) -> R<Vec<ClValue>> {
        let st = self
            .func
            .stmt(v)
            .ok_or_else(|| JitError::invalid("a slice that is not a statement"))?;
        let data = self.func.value(v);
        self.prim(Prim::SliceCopy, &st.args, &data.ty, data.span)
    }

    /// The parent array, first 0-based index, step and length (0 when negative) of the slice
    /// read in place `op`.
    pub(crate) fn slice_view(&mut self, op: &Operand) -> R<(ClValue, ClValue, ClValue, ClValue)> {
        let args = op
            .as_value()
            .and_then(|v| self.func.stmt(v))
            .map(|st| st.args.clone())
            .ok_or_else(|| JitError::invalid("a slice that is not a statement"))?;
        let (x, a, s, n) = self.slice_operands(&args)?;
        let base = self.b.ins().iadd_imm_s(a, -1);
        let zero = self.b.ins().iconst(types::I64, 0);
        let n = self.b.ins().smax(n, zero);
        Ok((x, base, s, n))
    }

    /// The parent's pointer, first index, step and length of `slice_copy(x, a, s, n)`.
    fn slice_operands(&mut self, args: &[Operand]) -> R<(ClValue, ClValue, ClValue, ClValue)> {
        let [x, a, s, n] = args else {
            return Err(JitError::invalid("slice_copy's operands"));
        };
        let x = self.pointer(x)?;
        Ok((
            x,
            self.operand(a)?[0],
            self.operand(s)?[0],
            self.operand(n)?[0],
        ))
    }

    /// The array a uniform shadow `op` (see [`uniform_shadows`]) takes its shape from, and
    /// the number filling it.
    pub(crate) fn uniform(&self, op: &Operand) -> Option<(Operand, Operand)> {
        match self.fused.get(&op.as_value()?) {
            Some(Fused::Uniform { like, value }) => Some((like.clone(), value.clone())),
            _ => None,
        }
    }

    /// The element of a uniform shadow filled with `value`: `0.0 + value`, what `accum!` into
    /// its zeros stores.
    pub(crate) fn uniform_element(&mut self, value: &Operand) -> R<ClValue> {
        let x = self.operand(value)?[0];
        let zero = self.b.ins().f64const(0.0);
        Ok(self.b.ins().fadd(zero, x))
    }

    /// The uniform shadow of the shape of `like` filled with `value`, made (for a reader that
    /// reads it whole).
    pub(crate) fn make_uniform(&mut self, like: &Operand, value: &Operand) -> R<Vec<ClValue>> {
        let (rows, cols) = self.shape(like)?;
        let x = self.operand(value)?[0];
        let ctx = self.ctx();
        let size = self.b.ins().iconst(types::I64, 8);
        let made = self
            .call_rt(self.env.rt.array_new_uninit, &[ctx, rows, cols, size])
            .ok_or_else(|| JitError::invalid("array_new"))?;
        // Filled as `accum!` fills a fresh array: `0.0 + x`.
        let fresh = self.b.ins().iconst(types::I8, 1);
        self.call_rt(self.env.rt.accum_into_scalar, &[made, x, fresh]);
        Ok(vec![made])
    }

    /// The rows and columns of the array `op` (a slice read in place: its length and 1).
    pub(crate) fn shape(&mut self, op: &Operand) -> R<(ClValue, ClValue)> {
        if let Some((like, _)) = self.uniform(op) {
            return self.shape(&like);
        }
        if self.is_virtual_slice(op) {
            let (_, _, _, n) = self.slice_view(op)?;
            return Ok((n, self.b.ins().iconst(types::I64, 1)));
        }
        let a = self.pointer(op)?;
        Ok((
            self.b.ins().load(types::I64, mem(), a, array_offset::ROWS),
            self.b.ins().load(types::I64, mem(), a, array_offset::COLS),
        ))
    }

    /// Check the indices of the slice `slice_copy(args...)` read in place: out of bounds, the
    /// interpreter's `slice_copy` runs (and raises its error). Every index `a + k s`, `k < n`,
    /// is in bounds when `n <= 0` or the first and the last are, `n` is at most the length
    /// and `|s|` too (so `s (n - 1)` cannot overflow).
    fn check_slice(&mut self, args: &[Operand], ty: &Type, span: Span) -> R<()> {
        let (x, a, s, n) = self.slice_operands(args)?;
        let len = self.b.ins().load(types::I64, mem(), x, array_offset::LEN);
        let ok = self.slice_in_bounds(a, s, n, len);
        let n_le = self.b.ins().icmp(IntCC::SignedLessThanOrEqual, n, len);
        let ok = self.b.ins().band(ok, n_le);
        let not_ok = self.b.ins().bnot(ok);
        let bad = self.b.ins().band_imm_u(not_ok, 1);
        self.guarded(
            bad,
            &[],
            // Out of bounds, or a zero step repeating an element more times than `x` has
            // elements: the copy, in the interpreter (which raises or makes it; either way,
            // `x[a + k s]` are the slice's elements).
            |t| {
                t.fallback(Prim::SliceCopy, args, ty, span)?;
                Ok(Vec::new())
            },
            |_| Ok(Vec::new()),
        )?;
        Ok(())
    }

    /// Are the indices `a + k s`, `k < n`, inside an array of `len` elements (an I8 of 0 or 1)?
    /// Yes when `n <= 0`, or when the first and the last are and `|s| <= len` (so that
    /// `s (n - 1)` does not overflow: a larger step leaves the array after one element). Too
    /// strict only for one element and a step larger than the array.
    pub(super) fn slice_in_bounds(
        &mut self,
        a: ClValue,
        s: ClValue,
        n: ClValue,
        len: ClValue,
    ) -> ClValue {
        let ins = |t: &mut Self, i: ClValue| {
            let i0 = t.b.ins().iadd_imm_s(i, -1);
            t.b.ins().icmp(IntCC::UnsignedLessThan, i0, len)
        };
        let first_in = ins(self, a);
        let k = self.b.ins().iadd_imm_s(n, -1);
        let d = self.b.ins().imul(s, k);
        let last = self.b.ins().iadd(a, d);
        let last_in = ins(self, last);
        let neg_len = self.b.ins().ineg(len);
        let s_ge = self
            .b
            .ins()
            .icmp(IntCC::SignedGreaterThanOrEqual, s, neg_len);
        let s_le = self.b.ins().icmp(IntCC::SignedLessThanOrEqual, s, len);
        let ok = [last_in, s_ge, s_le]
            .into_iter()
            .fold(first_in, |acc, c| self.b.ins().band(acc, c));
        let none = self.b.ins().icmp_imm_s(IntCC::SignedLessThan, n, 1);
        self.b.ins().bor(none, ok)
    }

    /// The broadcast statement `v` as a stage of a loop.
    fn stage(&self, v: Value) -> Stage {
        Stage {
            id: Some(v),
            args: self
                .func
                .stmt(v)
                .map(|s| s.args.clone())
                .unwrap_or_default(),
            ty: self.func.ty(v).clone(),
            span: self.func.value(v).span,
        }
    }

    /// Make the broadcasts `stages` one by one, as unfused code does.
    fn materialize(&mut self, stages: &[Value]) -> R<()> {
        for &v in stages {
            let st = self.stage(v);
            let made = self.prim(Prim::Broadcast, &st.args, &st.ty, st.span)?;
            self.set_slots(v, made);
        }
        Ok(())
    }

    /// The chain's statement `op(args)` of type `ty` (the root broadcast, or the `accum!`
    /// reading it) unfused: every broadcast made, then the statement.
    fn unfused_chain(
        &mut self,
        chain: &Chain,
        args: &[Operand],
        ty: &Type,
        span: Span,
    ) -> R<Vec<ClValue>> {
        self.materialize(&chain.stages)?;
        let root = self.stage(chain.root);
        let made = self.prim(Prim::Broadcast, &root.args, &root.ty, root.span)?;
        self.set_slots(chain.root, made.clone());
        let (res, array) = match &chain.out {
            ChainOut::New => (made, Operand::Value(chain.root)),
            ChainOut::Sum => return self.prim(Prim::Sum, args, ty, span),
            ChainOut::Into { dst } => {
                self.prim(Prim::AccumInto, args, ty, span)?;
                (Vec::new(), dst.clone())
            }
            ChainOut::IntoSlice { .. } => {
                return Err(JitError::invalid("a slice's chain made unfused"))
            }
        };
        // The later `sum` of the array, here as the loop computes it.
        match chain.summed {
            Some(s) => {
                let sum_span = self.func.value(s).span;
                let total = self.prim(Prim::Sum, &[array], &Type::Float64, sum_span)?;
                Ok([res, total].concat())
            }
            None => Ok(res),
        }
    }

    /// `accum_slice!(args...)` of [`Fused::SliceAccum`] unfused: the slice's gradient made
    /// (zeros of its length), `src` added into it, it added into the parent's.
    fn unfused_slice_accum(
        &mut self,
        src: &Operand,
        shadow: Value,
        slice: Value,
        args: &[Operand],
        span: Span,
    ) -> R<Vec<ClValue>> {
        self.slice_shadow(shadow, slice)?;
        let sum = [Operand::Value(shadow), src.clone()];
        self.prim(Prim::AccumInto, &sum, &Type::Nothing, span)?;
        self.prim(Prim::AccumSlice, args, &Type::Nothing, span)?;
        Ok(Vec::new())
    }

    /// Make the gradient `shadow` of the slice read in place `slice`: zeros of its length.
    fn slice_shadow(&mut self, shadow: Value, slice: Value) -> R<()> {
        let (n, one) = self.shape(&Operand::Value(slice))?;
        let ctx = self.ctx();
        let size = self.b.ins().iconst(types::I64, 8);
        let rt = self.env.rt.array_new;
        let zeros = self
            .call_rt(rt, &[ctx, n, one, size])
            .ok_or_else(|| JitError::invalid("array_new"))?;
        self.set_slots(shadow, vec![zeros]);
        Ok(())
    }

    /// The chain of [`ChainOut::IntoSlice`] unfused, at its `accum_slice!(args...)`: the
    /// slice's gradient made (zeros of its length), the chain added into it, it added into
    /// the parent's.
    fn unfused_slice_chain(
        &mut self,
        chain: &Chain,
        shadow: Value,
        slice: Value,
        args: &[Operand],
        span: Span,
    ) -> R<Vec<ClValue>> {
        self.slice_shadow(shadow, slice)?;
        self.materialize(&chain.stages)?;
        let root = self.stage(chain.root);
        let made = self.prim(Prim::Broadcast, &root.args, &root.ty, root.span)?;
        self.set_slots(chain.root, made);
        let sum = [Operand::Value(shadow), Operand::Value(chain.root)];
        self.prim(Prim::AccumInto, &sum, &Type::Nothing, root.span)?;
        self.prim(Prim::AccumSlice, args, &Type::Nothing, span)?;
        Ok(Vec::new())
    }

    /// The chain's loop, at its statement `op(args)` of type `ty`.
    fn chain(&mut self, chain: &Chain, args: &[Operand], ty: &Type, span: Span) -> R<Vec<ClValue>> {
        let mut stages: Vec<Stage> = chain.stages.iter().map(|&x| self.stage(x)).collect();
        stages.push(self.stage(chain.root));
        let out = match (&chain.out, chain.summed) {
            (ChainOut::New, None) => Out::New,
            (ChainOut::New, Some(_)) => Out::NewSum,
            (ChainOut::Sum, _) => Out::Sum,
            (ChainOut::Into { dst }, summed) => {
                let fresh = self.current.is_some_and(|v| self.fresh.accums.contains(&v));
                let into = Into {
                    dst: self.pointer(dst)?,
                    fresh,
                    view: None,
                };
                match summed {
                    None => Out::Into(into),
                    Some(_) => Out::IntoSum(into),
                }
            }
            (
                ChainOut::IntoSlice {
                    dst,
                    first,
                    step,
                    slice,
                    ..
                },
                _,
            ) => {
                let (n, _) = self.shape(&Operand::Value(*slice))?;
                let a = self.operand(first)?[0];
                let base = self.b.ins().iadd_imm_s(a, -1);
                Out::Into(Into {
                    dst: self.pointer(dst)?,
                    fresh: false,
                    view: Some((base, self.operand(step)?[0], n)),
                })
            }
        };
        let unfused = |t: &mut Self| match &chain.out {
            ChainOut::IntoSlice { shadow, slice, .. } => {
                t.unfused_slice_chain(chain, *shadow, *slice, args, span)
            }
            _ => t.unfused_chain(chain, args, ty, span),
        };
        let done = self.broadcast_loop(&stages, out, unfused)?;
        let mut res = match done {
            Some(res) => res,
            None => unfused(self)?,
        };
        if let Some(s) = chain.summed {
            let total = res
                .pop()
                .ok_or_else(|| JitError::invalid("a summed chain without its sum"))?;
            self.ahead.insert(s, total);
        }
        match &chain.out {
            ChainOut::New | ChainOut::Sum => Ok(res),
            ChainOut::Into { .. } | ChainOut::IntoSlice { .. } => self.zeros(ty),
        }
    }

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
            Fused::Chain(chain) => self.chain(&chain, args, ty, span),
            // Never read: `Translator::operand` makes the array for a reader that needs it.
            Fused::Uniform { .. } => Ok(vec![self.b.ins().iconst(types::I64, 0)]),
            Fused::Slice => {
                self.check_slice(args, ty, span)?;
                // Never read: `Translator::operand` makes the slice for a reader that needs it.
                Ok(vec![self.b.ins().iconst(types::I64, 0)])
            }
            Fused::SliceAccum { src, shadow, slice } => {
                let (n, _) = self.shape(&Operand::Value(slice))?;
                let x = self.pointer(&src)?;
                let len = self.b.ins().load(types::I64, mem(), x, array_offset::LEN);
                let differ = self.b.ins().icmp(IntCC::NotEqual, len, n);
                let unfused = |t: &mut Self| t.unfused_slice_accum(&src, shadow, slice, args, span);
                self.guarded(differ, &[], unfused, |t| {
                    let d = t.pointer(&args[0])?;
                    let (a, s) = (t.operand(&args[1])?[0], t.operand(&args[2])?[0]);
                    let through_zeros = t.b.ins().iconst(types::I8, 1);
                    let rt = t.env.rt.accum_slice;
                    let bad = t
                        .call_rt(rt, &[d, a, s, x, through_zeros])
                        .ok_or_else(|| JitError::invalid("accum_slice!"))?;
                    // Out of bounds (nothing was added): the unfused statements raise.
                    t.guarded(bad, &[], unfused, |_| Ok(Vec::new()))
                })?;
                Ok(Vec::new())
            }
            Fused::SliceZero { slice } => {
                let (n, one) = self.shape(&Operand::Value(slice))?;
                let rt = if self.makes_fresh() {
                    self.env.rt.array_new_uninit
                } else {
                    self.env.rt.array_new
                };
                let ctx = self.ctx();
                let size = self.b.ins().iconst(types::I64, 8);
                Ok(vec![self
                    .call_rt(rt, &[ctx, n, one, size])
                    .ok_or_else(|| JitError::invalid("array_new"))?])
            }
            Fused::ZeroLike { stages } => {
                let sub: Vec<Stage> = stages.iter().map(|&x| self.stage(x)).collect();
                let mut leaves = Vec::new();
                for st in &sub {
                    for a in &st.args[1..] {
                        let member = a.as_value().is_some_and(|x| stages.contains(&x));
                        if !member && matches!(self.func.operand_ty(a), Type::Array(..)) {
                            leaves.push(self.shape(a)?);
                        }
                    }
                }
                let Some((&(rows, cols), rest)) = leaves.split_first() else {
                    return Err(JitError::invalid("zero_tangent of a broadcast of no array"));
                };
                let mut bad = self.b.ins().iconst(types::I8, 0);
                for &(r, c) in rest {
                    let dr = self.b.ins().icmp(IntCC::NotEqual, r, rows);
                    let dc = self.b.ins().icmp(IntCC::NotEqual, c, cols);
                    let d = self.b.ins().bor(dr, dc);
                    bad = self.b.ins().bor(bad, d);
                }
                let rt = if self.makes_fresh() {
                    self.env.rt.array_new_uninit
                } else {
                    self.env.rt.array_new
                };
                self.guarded(
                    bad,
                    &[types::I64],
                    // Shapes that broadcast by stretching: make the broadcasts after all.
                    |t| {
                        t.materialize(&stages)?;
                        t.prim(p, args, ty, span)
                    },
                    |t| {
                        let ctx = t.ctx();
                        let size = t.b.ins().iconst(types::I64, 8);
                        Ok(vec![t
                            .call_rt(rt, &[ctx, rows, cols, size])
                            .ok_or_else(|| JitError::invalid("array_new"))?])
                    },
                )
            }
            Fused::SinCos { partner } => {
                let x = self.operand(&args[0])?[0];
                let ax = self.b.ins().fabs(x);
                let inf = self.b.ins().f64const(f64::INFINITY);
                let bad = self.b.ins().fcmp(FloatCC::Equal, ax, inf);
                let rt = self.env.rt.sincos;
                // sin(±Inf) and cos(±Inf) are DomainErrors: this statement raises its own.
                let slow = Slow {
                    p,
                    args,
                    ty,
                    span,
                    whole: false,
                };
                let both = self.domain_checked(bad, &slow, 2, |t| {
                    let r = t.func_ref(rt);
                    let call = t.b.ins().call(r, &[x]);
                    Ok(t.b.inst_results(call).to_vec())
                })?;
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
            Fused::TransposeAccum { t, dst, src } => {
                let (d, x) = (self.pointer(&dst)?, self.pointer(&src)?);
                let fresh = self.fresh_flag();
                let rt = self.env.rt.accum_transposed;
                let declined = self
                    .call_rt(rt, &[d, x, fresh])
                    .ok_or_else(|| JitError::invalid("accum_transposed"))?;
                self.guarded(
                    declined,
                    &[],
                    // The shapes differ, or `dst` is `src`: make the transpose after all and
                    // accumulate it as the unfused code does.
                    |tr| {
                        let rt = tr.env.rt.transpose;
                        let ctx = tr.ctx();
                        let tp = tr
                            .call_rt(rt, &[ctx, x])
                            .ok_or_else(|| JitError::invalid("transpose"))?;
                        tr.set_slots(t, vec![tp]);
                        tr.prim(p, args, ty, span).map(|_| Vec::new())
                    },
                    |_| Ok(Vec::new()),
                )?;
                self.zeros(ty)
            }
            Fused::ProductAccum { o, t, dst, a, b } => {
                let (d, x, y) = (
                    self.pointer(&dst)?,
                    self.pointer(&a.0)?,
                    self.pointer(&b.0)?,
                );
                let (ta, tb) = (
                    self.b.ins().iconst(types::I8, i64::from(a.1)),
                    self.b.ins().iconst(types::I8, i64::from(b.1)),
                );
                let fresh = self.fresh_flag();
                let rt = self.env.rt.matmul_accum;
                let declined = self
                    .call_rt(rt, &[d, x, ta, y, tb, fresh])
                    .ok_or_else(|| JitError::invalid("matmul_accum"))?;
                self.guarded(
                    declined,
                    &[],
                    // A product the kernel does not add in place (deeper than one of its
                    // blocks, another shape than `dst`, `dst` one of its factors): make it as
                    // the unfused code does, then accumulate it.
                    |tr| {
                        let func = tr.func;
                        let os = func
                            .stmt(o)
                            .ok_or_else(|| JitError::invalid("an absorbed product"))?;
                        let (oty, ospan) = (func.ty(o).clone(), func.value(o).span);
                        let prod = match t {
                            Some(t) => {
                                let (src, other) = if a.1 { (a.0, b.0) } else { (b.0, a.0) };
                                let f = Fused::TransposedMatMul {
                                    t,
                                    src,
                                    other,
                                    first: a.1,
                                };
                                tr.fused_stmt(f, o, &os.op, &os.args, &oty, ospan)?
                            }
                            None => tr.prim(Prim::MatMul, &os.args, &oty, ospan)?,
                        };
                        tr.set_slots(o, prod);
                        tr.prim(p, args, ty, span).map(|_| Vec::new())
                    },
                    |_| Ok(Vec::new()),
                )?;
                self.zeros(ty)
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
