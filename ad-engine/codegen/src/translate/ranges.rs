//! Element accesses that a `for` loop's range proves in bounds, so that they need no check:
//! in `for i in a:length(x)-k` (lowered to a counter `p` from 0 while `p < range_length(a, 1,
//! length(x) - k)`, and `i = a + p`), `x[i + d]` is in bounds when `a + d >= 1` and `d <= k`,
//! provided nothing changes `x`'s length (the function resizes no array and calls nothing).

use std::collections::{HashMap, HashSet};

use zy_ir::{Const, Function, Op, Operand, Prim, Terminator, Value};

/// The `getindex` and `setindex!` statements of `func` whose one index is in bounds.
pub(crate) fn proven_in_bounds(func: &Function) -> HashSet<Value> {
    let mut out = HashSet::new();
    let steady = func.blocks.iter().flat_map(|b| &b.stmts).all(|&v| {
        func.stmt(v).is_none_or(|s| match &s.op {
            Op::Prim(p) => *p != Prim::SetLength && !p.info().effects.calls,
            Op::New(_) => true,
            _ => false,
        })
    });
    if !steady {
        return out;
    }
    let mut preds: Vec<Vec<usize>> = vec![Vec::new(); func.blocks.len()];
    for (i, b) in func.blocks.iter().enumerate() {
        for s in b.term.successors() {
            preds[s.index()].push(i);
        }
    }
    let int = |op: &Operand| match op {
        Operand::Const(Const::Int(c)) => Some(*c),
        _ => None,
    };
    let prim = |v: &Operand, p: Prim| {
        v.as_value()
            .and_then(|v| func.stmt(v))
            .filter(|s| s.op == Op::Prim(p))
            .map(|s| s.args.clone())
    };
    for (h, header) in func.blocks.iter().enumerate() {
        let Terminator::Branch { cond, then_to, .. } = &header.term else {
            continue;
        };
        // `p < n` of a parameter `p` of the header.
        let Some(lt) = prim(cond, Prim::Lt) else {
            continue;
        };
        let [Operand::Value(p), n] = lt.as_slice() else {
            continue;
        };
        let (p, n) = (*p, n.clone());
        let Some(at) = header.params.iter().position(|x| *x == p) else {
            continue;
        };
        // Every way in passes 0 or `p + 1`: `p` counts up from 0 (and stays below `n`).
        let counts = preds[h].iter().all(|&pb| {
            let calls: Vec<_> = match &func.blocks[pb].term {
                Terminator::Jump(c) => vec![c],
                Terminator::Branch {
                    then_to, else_to, ..
                } => vec![then_to, else_to],
                _ => vec![],
            };
            calls
                .into_iter()
                .filter(|c| c.block.index() == h)
                .all(|c| match c.args.get(at) {
                    Some(Operand::Const(Const::Int(0))) => true,
                    Some(x) => prim(x, Prim::Add).is_some_and(|a| {
                        a.len() == 2 && a[0] == Operand::Value(p) && int(&a[1]) == Some(1)
                    }),
                    None => false,
                })
        });
        // `n = range_length(a, 1, stop)` with `stop = length(x) - k` (or `length(x)`).
        let Some(rl) = prim(&n, Prim::RangeLength) else {
            continue;
        };
        let [a, step, stop] = rl.as_slice() else {
            continue;
        };
        let (Some(a), Some(1)) = (int(a), int(step)) else {
            continue;
        };
        let (len_of, k) = match prim(stop, Prim::Sub).as_deref() {
            Some([l, c]) if int(c).is_some_and(|c| c >= 0) => (l.clone(), int(c).unwrap_or(0)),
            _ => (stop.clone(), 0),
        };
        let Some(len) = prim(&len_of, Prim::Length) else {
            continue;
        };
        let [x] = len.as_slice() else {
            continue;
        };
        let body = then_to.block;
        if !counts || preds[body.index()] != [h] || then_to.block.index() == h {
            continue;
        }
        // Offsets from `p` of the Int values of the body: with `0 <= p <= stop - a`, `p + off`
        // is in `[off, length(x) - k - a + off]`, inside `x` when `1 <= off <= k + a`.
        let mut offset: HashMap<Value, i64> = HashMap::from([(p, 0)]);
        for &v in &func.block(body).stmts {
            let Some(s) = func.stmt(v) else { continue };
            let of = |o: &Operand| o.as_value().and_then(|y| offset.get(&y).copied());
            let found = match (&s.op, s.args.as_slice()) {
                (Op::Prim(Prim::Add), [l, r]) => match (of(l), int(r), int(l), of(r)) {
                    (Some(o), Some(c), _, _) | (_, _, Some(c), Some(o)) => o.checked_add(c),
                    _ => None,
                },
                (Op::Prim(Prim::Sub), [l, r]) => {
                    of(l).zip(int(r)).and_then(|(o, c)| o.checked_sub(c))
                }
                (Op::Prim(Prim::GetIndex), [arr, i]) | (Op::Prim(Prim::SetIndex), [arr, _, i])
                    if arr == x =>
                {
                    if of(i).is_some_and(|o| o >= 1 && o <= k.saturating_add(a)) {
                        out.insert(v);
                    }
                    None
                }
                _ => None,
            };
            if let Some(o) = found {
                offset.insert(v, o);
            }
        }
    }
    out
}
