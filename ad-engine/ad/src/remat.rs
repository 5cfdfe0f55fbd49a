//! Rematerialisation of loop residuals: values a loop block's pullback needs that are cheap to
//! compute again from what it keeps anyway (integer and float arithmetic, reads of arrays the
//! function never writes) are recomputed in the reverse block instead of pushed on the block's
//! stack each iteration, as Enzyme's cache analysis does. Rosenbrock's loop keeps the counter
//! `i` (8 bytes per iteration) instead of `i + 1`, `i`, `x[i]`, `t`, `t^2` and `1 - x[i]` (48).
//!
//! The recomputation gives the forward's bits: the operations are deterministic, and an array
//! read sees the same contents, since the function writes no memory and a pullback runs after
//! every later write was undone (a derived pullback restores what its forward overwrote).

use rustc_hash::{FxHashMap, FxHashSet};
use zy_ir::{Block, Const, Function, Op, Operand, Prim, Type, Value};

/// Does the primal `f` write no memory (no mutating primitive, no call that could)? Then the
/// arrays it reads hold the same contents in its pullback.
pub(crate) fn writes_nothing(f: &Function) -> bool {
    f.block_ids().all(|b| {
        f.block(b)
            .stmts
            .iter()
            .all(|&v| match f.stmt(v).map(|s| &s.op) {
                Some(Op::Prim(p)) => {
                    let e = p.info().effects;
                    e.mutates.is_none() && !e.calls
                }
                Some(Op::Invoke(_)) => false,
                _ => true,
            })
    })
}

/// Is the statement defining `v` in `func` cheap to recompute, with the same result, from its
/// operands: scalar arithmetic, a small literal power, or (when the function writes no memory) a scalar read of an
/// array by integer indices?
fn cheap(func: &Function, v: Value, reads_ok: bool) -> bool {
    let Some(s) = func.stmt(v) else {
        return false;
    };
    let scalar = |t: &Type| matches!(t, Type::Int64 | Type::Float64);
    if !scalar(func.ty(v)) {
        return false;
    }
    let tys: Vec<Type> = s.args.iter().map(|a| func.operand_ty(a)).collect();
    match s.op {
        Op::Prim(Prim::Add | Prim::Sub | Prim::Mul | Prim::Neg) => tys.iter().all(scalar),
        // `x ^ 2` and the like: a literal power of a number.
        Op::Prim(Prim::Pow) => {
            tys[0] == Type::Float64
                && matches!(s.args.get(1), Some(Operand::Const(Const::Int(0..=4))))
        }
        Op::Prim(Prim::GetIndex) => {
            reads_ok
                && matches!(tys.first(), Some(Type::Array(..)))
                && tys[1..].iter().all(|t| *t == Type::Int64)
        }
        _ => false,
    }
}

/// Split the residuals of block `b` of the forward function `func`: those to keep (pushed or
/// slotted as before, with the operands of recomputed values added) and those the pullback
/// recomputes, in the order `b` computes them. A residual is recomputed when it is a cheap
/// statement of `b` whose chain of cheap operands ends in values that cost no more to keep: ones
/// kept anyway, constants, or values defined outside every loop (`looped` says which are not).
pub(crate) fn split(
    func: &Function,
    b: Block,
    residuals: &[Value],
    looped: &dyn Fn(Value) -> bool,
    reads_ok: bool,
) -> (Vec<Value>, Vec<Value>) {
    let order: FxHashMap<Value, usize> = func
        .block(b)
        .stmts
        .iter()
        .enumerate()
        .map(|(k, &v)| (v, k))
        .collect();
    let recomputable = |v: Value| order.contains_key(&v) && cheap(func, v, reads_ok);
    // The statements `roots` are computed by through recomputable ones, and the leaves.
    let closure = |roots: &[Value]| {
        let (mut chain, mut leaves) = (Vec::new(), Vec::new());
        let mut todo = roots.to_vec();
        let mut seen = FxHashSet::default();
        while let Some(v) = todo.pop() {
            if !seen.insert(v) {
                continue;
            }
            if recomputable(v) {
                chain.push(v);
                if let Some(s) = func.stmt(v) {
                    todo.extend(s.args.iter().filter_map(Operand::as_value));
                }
            } else {
                leaves.push(v);
            }
        }
        (chain, leaves)
    };
    let pushed = |vs: &[Value]| vs.iter().filter(|v| looped(**v)).count();
    // Every recomputable residual at once (they often share their leaves: a loop counter),
    // when that keeps fewer values per iteration; else each one that adds no kept value.
    let roots: Vec<Value> = residuals
        .iter()
        .copied()
        .filter(|&r| recomputable(r))
        .collect();
    let mut kept: Vec<Value> = residuals.to_vec();
    let mut remat: FxHashSet<Value> = FxHashSet::default();
    let (chain, leaves) = closure(&roots);
    let mut all = residuals.to_vec();
    all.retain(|k| !chain.contains(k));
    all.extend(leaves.iter().filter(|l| !residuals.contains(l)));
    let candidates = if pushed(&all) < pushed(residuals) {
        kept = all;
        remat.extend(chain);
        Vec::new()
    } else {
        roots
    };
    for r in candidates {
        let (chain, leaves) = closure(&[r]);
        if leaves.iter().any(|l| looped(*l) && !kept.contains(l)) {
            continue;
        }
        kept.retain(|k| !chain.contains(k));
        for l in leaves {
            if !kept.contains(&l) {
                kept.push(l);
            }
        }
        remat.extend(chain);
    }
    let mut remat: Vec<Value> = remat.into_iter().collect();
    remat.sort_by_key(|v| order[v]);
    (kept, remat)
}
