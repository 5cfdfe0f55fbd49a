//! Element accesses that a `for` loop's range proves in bounds, so that they need no check:
//! in `for i in a:length(x)-k` (lowered to a counter `p` from 0 while `p < range_length(a, 1,
//! length(x) - k)`, and `i = a + p`), `x[i + d]` is in bounds when `a + d >= 1` and `d <= k`,
//! provided nothing changes `x`'s length (the function resizes no array and calls nothing).
//!
//! The same proof carries to the reverse loop of a gradient in the same function (the driver
//! `∇f`, where the pullback's loop follows the forward pass's): a counter `r` that starts at
//! the forward loop's trip count (a counter kept in step with `p`) and counts down by 1 to 0
//! runs the forward's indices backwards, so `x[r + o]` is in bounds when `0 <= o <= k + a - 1`.
//! A zero tangent of `x` (the shadow `x̄`) has `x`'s length, so `x̄[i + d]` is proved with `x`.

use std::collections::{HashMap, HashSet};

use zy_ir::cfg::Dominators;
use zy_ir::{Block, BlockCall, Const, Function, Op, Operand, Prim, Terminator, Value};

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
    let cx = Cx::new(func);
    // Counters bounded by a forward loop's trip count, for the reverse loops.
    let mut bounded: HashMap<Value, Bound> = HashMap::new();
    for h in 0..func.blocks.len() {
        if let Some((body, p, bound)) = cx.forward_loop(h, &mut bounded) {
            // `p` is in `[0, n - 1]` in the body: `p + off` is in bounds when
            // `1 <= off <= slack + 1`.
            cx.mark(body, p, &bound, 0, &mut out);
        }
    }
    for h in 0..func.blocks.len() {
        if let Some((body, r, bound)) = cx.reverse_loop(h, &bounded) {
            // `r` is in `[1, n]` in the body: `r + o` is in bounds when `0 <= o <= slack`.
            cx.mark(body, r, &bound, 1, &mut out);
        }
    }
    out
}

/// An Int value known to be in `[0, max(0, length(array) - slack)]` wherever it is read.
#[derive(Clone, Debug, PartialEq)]
struct Bound {
    /// The array (a representative: see [`Cx::rep`]).
    array: Operand,
    slack: i64,
}

/// The function's blocks, predecessors and dominators, and helpers reading its statements.
struct Cx<'f> {
    func: &'f Function,
    preds: Vec<Vec<usize>>,
    doms: Dominators,
    /// The block defining each statement value.
    home: HashMap<Value, Block>,
}

impl<'f> Cx<'f> {
    fn new(func: &'f Function) -> Self {
        let mut preds: Vec<Vec<usize>> = vec![Vec::new(); func.blocks.len()];
        let mut home = HashMap::new();
        for (i, b) in func.blocks.iter().enumerate() {
            for s in b.term.successors() {
                preds[s.index()].push(i);
            }
            for &v in &b.stmts {
                home.insert(v, Block(i as u32));
            }
        }
        Cx {
            func,
            preds,
            doms: Dominators::new(func),
            home,
        }
    }

    fn int(op: &Operand) -> Option<i64> {
        match op {
            Operand::Const(Const::Int(c)) => Some(*c),
            _ => None,
        }
    }

    /// The operands of `v` when it is a statement of primitive `p`.
    fn prim(&self, v: &Operand, p: Prim) -> Option<&'f [Operand]> {
        v.as_value()
            .and_then(|v| self.func.stmt(v))
            .filter(|s| s.op == Op::Prim(p))
            .map(|s| s.args.as_slice())
    }

    /// An array of the same length as `x` (and its elements laid out alike): `x` through its
    /// zero tangents.
    fn rep(&self, x: &Operand) -> Operand {
        match self.prim(x, Prim::ZeroTangent) {
            Some([inner]) => self.rep(inner),
            _ => x.clone(),
        }
    }

    /// Is `v` the statement `base + 1` (`up`) or `base - 1`, made in a block that `body`
    /// dominates?
    fn step_of(&self, v: &Operand, base: Value, up: bool, body: Block) -> bool {
        let p = if up { Prim::Add } else { Prim::Sub };
        let shape = self.prim(v, p).is_some_and(|a| {
            a.len() == 2 && a[0] == Operand::Value(base) && Self::int(&a[1]) == Some(1)
        });
        shape
            && v.as_value()
                .and_then(|v| self.home.get(&v))
                .is_some_and(|&b| self.doms.dominates(body, b))
    }

    /// The jumps to block `h` from its predecessors.
    fn calls_into(&self, h: usize) -> Vec<&'f BlockCall> {
        let func = self.func;
        self.preds[h]
            .iter()
            .flat_map(|&pb| func.blocks[pb].term.calls())
            .filter(|c| c.block.index() == h)
            .collect()
    }

    /// A loop `p` from 0 by 1 while `p < range_length(a, 1, length(x) - k)` with header `h`:
    /// its body's first block, `p` and its bound. Counters kept in step with `p` (and `p`) are
    /// added to `bounded` when `x` is an argument, whose value every later block reads too.
    fn forward_loop(
        &self,
        h: usize,
        bounded: &mut HashMap<Value, Bound>,
    ) -> Option<(Block, Value, Bound)> {
        let header = &self.func.blocks[h];
        let Terminator::Branch { cond, then_to, .. } = &header.term else {
            return None;
        };
        // `p < n` of a parameter `p` of the header.
        let [Operand::Value(p), n] = self.prim(cond, Prim::Lt)? else {
            return None;
        };
        let at = header.params.iter().position(|x| x == p)?;
        let body = then_to.block;
        if self.preds[body.index()] != [h] || body.index() == h {
            return None;
        }
        let calls = self.calls_into(h);
        // Every way in passes 0 or `p + 1`: `p` counts up from 0 (and stays below `n`).
        let counts = calls.iter().all(|c| match c.args.get(at) {
            Some(Operand::Const(Const::Int(0))) => true,
            Some(x) => self.prim(x, Prim::Add).is_some_and(|a| {
                a.len() == 2 && a[0] == Operand::Value(*p) && Self::int(&a[1]) == Some(1)
            }),
            None => false,
        });
        if !counts {
            return None;
        }
        // `n = range_length(a, 1, stop)` with `stop = length(x) - k` (or `length(x)`).
        let [a, step, stop] = self.prim(n, Prim::RangeLength)? else {
            return None;
        };
        let (Some(a), Some(1)) = (Self::int(a), Self::int(step)) else {
            return None;
        };
        let (len_of, k) = match self.prim(stop, Prim::Sub) {
            Some([l, c]) if Self::int(c).is_some_and(|c| c >= 0) => (l, Self::int(c)?),
            _ => (stop, 0),
        };
        let [x] = self.prim(len_of, Prim::Length)? else {
            return None;
        };
        // `n = max(0, length(x) - k - a + 1)`.
        let bound = Bound {
            array: self.rep(x),
            slack: k.checked_add(a)?.checked_sub(1)?,
        };
        let is_arg = matches!(bound.array, Operand::Value(v) if self.func.args().contains(&v));
        if is_arg {
            // A counter `q` in step with `p`: 0 where `p` gets 0, `q + 1` (made in the body,
            // where `p < n`) where `p` gets `p + 1`. Then `q == p <= max(0, n)`.
            for (j, &q) in header.params.iter().enumerate() {
                let in_step = calls.iter().all(|c| match (c.args.get(at), c.args.get(j)) {
                    (Some(Operand::Const(Const::Int(0))), Some(Operand::Const(Const::Int(0)))) => {
                        true
                    }
                    (Some(x), Some(y)) => {
                        self.step_of(x, *p, true, body) && self.step_of(y, q, true, body)
                    }
                    _ => false,
                });
                if in_step {
                    bounded.insert(q, bound.clone());
                }
            }
        }
        Some((body, *p, bound))
    }

    /// A loop `r` down by 1 to 0 with header `h` (`br r == 0 ? exit : body`, `r - 1` made in
    /// the body), entered with a counter bounded by a forward loop: its body's first block,
    /// `r` and the bound.
    fn reverse_loop(
        &self,
        h: usize,
        bounded: &HashMap<Value, Bound>,
    ) -> Option<(Block, Value, Bound)> {
        let header = &self.func.blocks[h];
        let Terminator::Branch { cond, else_to, .. } = &header.term else {
            return None;
        };
        let [Operand::Value(r), zero] = self.prim(cond, Prim::Eq)? else {
            return None;
        };
        if Self::int(zero) != Some(0) {
            return None;
        }
        let at = header.params.iter().position(|x| x == r)?;
        let body = else_to.block;
        if self.preds[body.index()] != [h] || body.index() == h {
            return None;
        }
        let mut found: Option<Bound> = None;
        for c in self.calls_into(h) {
            let x = c.args.get(at)?;
            if self.step_of(x, *r, false, body) || Self::int(x) == Some(0) {
                continue;
            }
            let b = bounded.get(&x.as_value()?)?;
            match &mut found {
                None => found = Some(b.clone()),
                Some(f) if f.array == b.array => f.slack = f.slack.min(b.slack),
                Some(_) => return None,
            }
        }
        Some((body, *r, found?))
    }

    /// Insert into `out` the accesses `x[base + off]` in the blocks that `body` dominates
    /// whose `base_lo + off` is in `[1, slack + 1]`, `base` being at least `base_lo` there and
    /// at most `length(x) - slack - 1 + base_lo`.
    fn mark(
        &self,
        body: Block,
        base: Value,
        bound: &Bound,
        base_lo: i64,
        out: &mut HashSet<Value>,
    ) {
        let mut offset: HashMap<Value, i64> = HashMap::from([(base, 0)]);
        let hi = bound.slack.saturating_add(1);
        for blk in zy_ir::cfg::reverse_postorder(self.func) {
            if !self.doms.dominates(body, blk) {
                continue;
            }
            for &v in &self.func.block(blk).stmts {
                let Some(s) = self.func.stmt(v) else { continue };
                let of = |o: &Operand| o.as_value().and_then(|y| offset.get(&y).copied());
                let found = match (&s.op, s.args.as_slice()) {
                    (Op::Prim(Prim::Add), [l, r]) => {
                        match (of(l), Self::int(r), Self::int(l), of(r)) {
                            (Some(o), Some(c), _, _) | (_, _, Some(c), Some(o)) => o.checked_add(c),
                            _ => None,
                        }
                    }
                    (Op::Prim(Prim::Sub), [l, r]) => {
                        of(l).zip(Self::int(r)).and_then(|(o, c)| o.checked_sub(c))
                    }
                    (Op::Prim(Prim::GetIndex), [arr, i])
                    | (Op::Prim(Prim::SetIndex), [arr, _, i]) => {
                        let at = of(i).and_then(|o| o.checked_add(base_lo));
                        if self.rep(arr) == bound.array && at.is_some_and(|o| o >= 1 && o <= hi) {
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
    }
}
