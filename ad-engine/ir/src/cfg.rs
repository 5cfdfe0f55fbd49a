//! Control-flow graph queries on a [`Function`]: predecessors, depth-first orders, reachability,
//! loops and dominators. Every pass that walks the CFG asks here instead of keeping its own copy.
//!
//! Blocks no path from the entry reaches are left out of the orders and dominate nothing.

use crate::func::{Block, Function};

/// Predecessors of every block, each once, in storage order of the predecessor blocks.
pub fn predecessors(func: &Function) -> Vec<Vec<Block>> {
    let mut preds = vec![Vec::new(); func.blocks.len()];
    for b in func.block_ids() {
        for s in func.block(b).term.successors() {
            if let Some(ps) = preds.get_mut(s.index()) {
                if !ps.contains(&b) {
                    ps.push(b);
                }
            }
        }
    }
    preds
}

/// The blocks whose terminators jump to `block`, each once, in storage order.
pub fn predecessors_of(func: &Function, block: Block) -> Vec<Block> {
    func.block_ids()
        .filter(|&b| func.block(b).term.successors().contains(&block))
        .collect()
}

/// Blocks reachable from the entry in reverse post-order: a topological order of the forward
/// edges, loop headers before their bodies. Successors are visited in terminator order.
pub fn reverse_postorder(func: &Function) -> Vec<Block> {
    depth_first(func, false)
}

/// [`reverse_postorder`] with the successors of a branch visited last to first, so that the
/// `then` block (a loop's body) comes before the `else` block (its exit), as the source reads.
pub fn source_order(func: &Function) -> Vec<Block> {
    depth_first(func, true)
}

fn depth_first(func: &Function, last_successor_first: bool) -> Vec<Block> {
    let n = func.blocks.len();
    let mut post = Vec::with_capacity(n);
    if n == 0 {
        return post;
    }
    let mut seen = vec![false; n];
    seen[0] = true;
    // Iterative DFS: (block, index of the next successor to visit).
    let mut stack = vec![(Block::ENTRY, 0usize)];
    while let Some((b, i)) = stack.pop() {
        let mut succs = func.block(b).term.successors();
        if last_successor_first {
            succs.reverse();
        }
        match succs.get(i) {
            Some(&s) => {
                stack.push((b, i + 1));
                if let Some(seen) = seen.get_mut(s.index()) {
                    if !std::mem::replace(seen, true) {
                        stack.push((s, 0));
                    }
                }
            }
            None => post.push(b),
        }
    }
    post.reverse();
    post
}

/// For each block: does a path from the entry reach it?
pub fn reachable(func: &Function) -> Vec<bool> {
    let mut seen = vec![false; func.blocks.len()];
    for b in reverse_postorder(func) {
        seen[b.index()] = true;
    }
    seen
}

/// For each block: can control get from it to `target` (in zero or more steps)?
pub fn reaches(func: &Function, target: Block) -> Vec<bool> {
    let preds = predecessors(func);
    let mut ok = vec![false; func.blocks.len()];
    let mut stack = vec![target];
    while let Some(b) = stack.pop() {
        if let Some(seen) = ok.get_mut(b.index()) {
            if !std::mem::replace(seen, true) {
                stack.extend(preds[b.index()].iter().copied());
            }
        }
    }
    ok
}

/// For each block: the blocks control can get to from its end, in one or more steps.
fn successors_closure(func: &Function, from: Block) -> Vec<bool> {
    let mut seen = vec![false; func.blocks.len()];
    let mut stack = func.block(from).term.successors();
    while let Some(b) = stack.pop() {
        if let Some(s) = seen.get_mut(b.index()) {
            if !std::mem::replace(s, true) {
                stack.extend(func.block(b).term.successors());
            }
        }
    }
    seen
}

/// Can control get from the end of `from` to `to` (in one or more steps)?
pub fn reaches_from(func: &Function, from: Block, to: Block) -> bool {
    successors_closure(func, from)
        .get(to.index())
        .copied()
        .unwrap_or(false)
}

/// `reach[a][b]`: can control get from the end of block `a` to block `b` (one or more steps)?
pub fn reachability(func: &Function) -> Vec<Vec<bool>> {
    func.block_ids()
        .map(|a| successors_closure(func, a))
        .collect()
}

/// For each block: does it lie on a cycle (may it run more than once per call)?
pub fn in_loop(func: &Function) -> Vec<bool> {
    func.block_ids().map(|b| reaches_from(func, b, b)).collect()
}

/// The dominator tree of the blocks reachable from the entry (Cooper, Harvey and Kennedy's
/// iterative algorithm over the reverse post-order).
#[derive(Clone, Debug)]
pub struct Dominators {
    /// The immediate dominator of each reachable block (the entry's is itself).
    idom: Vec<Option<Block>>,
    /// Position of each block in reverse post-order (`usize::MAX`: unreachable).
    rpo_index: Vec<usize>,
    /// By block: when a depth-first walk of the dominator tree enters and leaves it, so that
    /// `a` dominates `b` when `b`'s interval lies in `a`'s (walking up from `b` instead was as
    /// long as the tree is deep, and a chain of `elseif`s nests thousands deep).
    interval: Vec<(u32, u32)>,
}

impl Dominators {
    /// Compute the dominators of `func`.
    pub fn new(func: &Function) -> Dominators {
        let n = func.blocks.len();
        let rpo = reverse_postorder(func);
        let mut rpo_index = vec![usize::MAX; n];
        for (i, b) in rpo.iter().enumerate() {
            rpo_index[b.index()] = i;
        }
        let preds = predecessors(func);
        let mut idom: Vec<Option<Block>> = vec![None; n];
        if n == 0 {
            return Dominators {
                idom,
                rpo_index,
                interval: Vec::new(),
            };
        }
        idom[0] = Some(Block::ENTRY);
        let mut changed = true;
        while changed {
            changed = false;
            for &b in rpo.iter().skip(1) {
                let mut new: Option<Block> = None;
                for &p in &preds[b.index()] {
                    if idom[p.index()].is_none() {
                        continue;
                    }
                    new = Some(match new {
                        None => p,
                        Some(q) => intersect(&idom, &rpo_index, p, q),
                    });
                }
                if new.is_some() && idom[b.index()] != new {
                    idom[b.index()] = new;
                    changed = true;
                }
            }
        }
        let interval = tree_intervals(&idom, &rpo);
        Dominators {
            idom,
            rpo_index,
            interval,
        }
    }

    /// Is `b` reachable from the entry?
    pub fn is_reachable(&self, b: Block) -> bool {
        self.rpo_index
            .get(b.index())
            .is_some_and(|&i| i != usize::MAX)
    }

    /// The immediate dominator of `b` (`None` for the entry and unreachable blocks).
    pub fn idom(&self, b: Block) -> Option<Block> {
        if b == Block::ENTRY {
            return None;
        }
        self.idom.get(b.index()).copied().flatten()
    }

    /// Does `a` dominate `b` (every path from the entry to `b` passes through `a`)? A block
    /// dominates itself; an unreachable block dominates nothing and is dominated by nothing.
    pub fn dominates(&self, a: Block, b: Block) -> bool {
        if !self.is_reachable(a) || !self.is_reachable(b) {
            return false;
        }
        let (Some(&(a_in, a_out)), Some(&(b_in, b_out))) =
            (self.interval.get(a.index()), self.interval.get(b.index()))
        else {
            return false;
        };
        a_in <= b_in && b_out <= a_out
    }
}

/// By block: the steps at which a depth-first walk of the dominator tree (`idom`, over the
/// reachable blocks `rpo`) enters and leaves it.
fn tree_intervals(idom: &[Option<Block>], rpo: &[Block]) -> Vec<(u32, u32)> {
    let mut children: Vec<Vec<Block>> = vec![Vec::new(); idom.len()];
    for &b in rpo.iter().skip(1) {
        if let Some(parent) = idom[b.index()] {
            children[parent.index()].push(b);
        }
    }
    let mut interval = vec![(0, 0); idom.len()];
    let mut step = 0u32;
    // (block, whether its children are already on the stack).
    let mut stack = vec![(Block::ENTRY, false)];
    while let Some((b, expanded)) = stack.pop() {
        step += 1;
        if expanded {
            interval[b.index()].1 = step;
        } else {
            interval[b.index()].0 = step;
            stack.push((b, true));
            stack.extend(children[b.index()].iter().map(|&c| (c, false)));
        }
    }
    interval
}

/// Is every cycle of `func` entered through one block (its header, which dominates the rest)?
/// Then each retreating edge of a depth-first walk, an edge to a block no later in reverse
/// post-order, goes to a block that dominates its source.
pub fn is_reducible(func: &Function) -> bool {
    let d = Dominators::new(func);
    func.block_ids().filter(|&b| d.is_reachable(b)).all(|b| {
        func.block(b)
            .term
            .successors()
            .into_iter()
            .all(|s| d.rpo_index[s.index()] > d.rpo_index[b.index()] || d.dominates(s, b))
    })
}

/// The nearest common dominator of `a` and `b`, walking up the tree by reverse post-order
/// position.
fn intersect(idom: &[Option<Block>], rpo_index: &[usize], mut a: Block, mut b: Block) -> Block {
    while a != b {
        while rpo_index[a.index()] > rpo_index[b.index()] {
            a = idom[a.index()].unwrap_or(Block::ENTRY);
        }
        while rpo_index[b.index()] > rpo_index[a.index()] {
            b = idom[b.index()].unwrap_or(Block::ENTRY);
        }
    }
    a
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::func::{BlockCall, Const, Span, Terminator};

    /// A function whose block `i` jumps to `edges[i]` (two targets: a branch on `true`).
    fn cfg(edges: &[&[u32]]) -> Function {
        let mut f = Function::new("g", Span::default());
        for _ in 1..edges.len() {
            f.add_block();
        }
        for (i, succ) in edges.iter().enumerate() {
            let call = |b: u32| BlockCall::new(Block(b));
            let term = match succ {
                [] => Terminator::Return(Const::Nothing.into()),
                [t] => Terminator::Jump(call(*t)),
                [t, e, ..] => Terminator::Branch {
                    cond: Const::Bool(true).into(),
                    then_to: call(*t),
                    else_to: call(*e),
                },
            };
            f.set_term(Block(i as u32), term, Span::default());
        }
        f
    }

    fn ids(bs: &[Block]) -> Vec<u32> {
        bs.iter().map(|b| b.0).collect()
    }

    /// 0 -> 1; 1 -> 2 (body) | 3 (exit); 2 -> 1; 4 is unreachable and jumps into the loop.
    fn while_loop() -> Function {
        cfg(&[&[1], &[2, 3], &[1], &[], &[1]])
    }

    #[test]
    fn orders_visit_the_reachable_blocks_once() {
        let f = while_loop();
        assert_eq!(ids(&reverse_postorder(&f)), [0, 1, 3, 2]);
        assert_eq!(ids(&source_order(&f)), [0, 1, 2, 3]);
        assert_eq!(reachable(&f), [true, true, true, true, false]);
        let preds: Vec<Vec<u32>> = predecessors(&f).iter().map(|p| ids(p)).collect();
        assert_eq!(preds, [vec![], vec![0, 2, 4], vec![1], vec![1], vec![]]);
        assert_eq!(ids(&predecessors_of(&f, Block(1))), [0, 2, 4]);
    }

    #[test]
    fn loops_and_reachability() {
        let f = while_loop();
        assert_eq!(in_loop(&f), [false, true, true, false, false]);
        assert_eq!(reaches(&f, Block(3)), [true, true, true, true, true]);
        assert_eq!(reaches(&f, Block(2)), [true, true, true, false, true]);
        assert!(reaches_from(&f, Block(2), Block(2)));
        assert!(!reaches_from(&f, Block(3), Block(3)));
        assert!(!reaches_from(&f, Block(0), Block(0)));
        let reach = reachability(&f);
        assert_eq!(reach[0], [false, true, true, true, false]);
        assert_eq!(reach[3], [false; 5]);
    }

    #[test]
    fn dominators_of_a_diamond_inside_a_loop() {
        // 0 -> 1; 1 -> 2 | 5; 2 -> 3 | 4; 3 -> 6; 4 -> 6; 6 -> 1; 5 returns; 7 unreachable.
        let f = cfg(&[&[1], &[2, 5], &[3, 4], &[6], &[6], &[], &[1], &[6]]);
        let d = Dominators::new(&f);
        let idoms: Vec<Option<u32>> = f.block_ids().map(|b| d.idom(b).map(|x| x.0)).collect();
        assert_eq!(
            idoms,
            [
                None,
                Some(0),
                Some(1),
                Some(2),
                Some(2),
                Some(1),
                Some(2),
                None
            ]
        );
        assert!(d.dominates(Block(1), Block(6)));
        assert!(d.dominates(Block(6), Block(6)));
        assert!(!d.dominates(Block(3), Block(6)));
        assert!(!d.dominates(Block(6), Block(1)));
        assert!(!d.dominates(Block(7), Block(6)));
        assert!(!d.dominates(Block(0), Block(7)));
        assert!(!d.is_reachable(Block(7)));
    }

    #[test]
    fn an_irreducible_loop_is_dominated_by_its_split() {
        // 0 -> 1 | 2; 1 -> 2; 2 -> 1 | 3: two entries into the cycle {1, 2}.
        let f = cfg(&[&[1, 2], &[2], &[1, 3], &[]]);
        let d = Dominators::new(&f);
        assert_eq!(d.idom(Block(1)), Some(Block(0)));
        assert_eq!(d.idom(Block(2)), Some(Block(0)));
        assert_eq!(d.idom(Block(3)), Some(Block(2)));
        assert!(!is_reducible(&f));
        assert!(is_reducible(&while_loop()));
        // A self-loop and a loop nest are reducible.
        assert!(is_reducible(&cfg(&[&[1], &[1, 2], &[3, 4], &[2], &[]])));
    }
}
