//! The recursive instances of a typed program: those on a cycle of its call graph, found once
//! per program from its strongly connected components (Tarjan's algorithm, with an explicit
//! stack so that a long chain of calls cannot overflow the thread's).

use std::sync::Arc;

use rustc_hash::{FxHashMap, FxHashSet};
use zy_ir::{Instance, Op, Stmt, TypedProgram, ValueKind};

/// The instances of a program that call themselves, directly or through others.
pub struct Recursive(FxHashSet<Arc<Instance>>);

/// Not yet reached by the search.
const UNSEEN: usize = usize::MAX;

impl Recursive {
    /// The recursive instances of `prog`.
    pub fn of(prog: &TypedProgram) -> Recursive {
        let nodes: Vec<&Arc<Instance>> = prog.functions.keys().collect();
        let number: FxHashMap<&Instance, usize> =
            nodes.iter().enumerate().map(|(i, n)| (&***n, i)).collect();
        let edges: Vec<Vec<usize>> = prog
            .functions
            .values()
            .map(|f| {
                f.values
                    .iter()
                    .filter_map(|d| match &d.kind {
                        ValueKind::Stmt(Stmt {
                            op: Op::Invoke(c), ..
                        }) => number.get(&**c).copied(),
                        _ => None,
                    })
                    .collect()
            })
            .collect();
        let mut order = vec![UNSEEN; nodes.len()];
        let mut low = vec![0; nodes.len()];
        let mut on_stack = vec![false; nodes.len()];
        let mut stack = Vec::new();
        let mut visited = 0;
        let mut recursive = FxHashSet::default();
        for root in 0..nodes.len() {
            if order[root] != UNSEEN {
                continue;
            }
            // The search's path: each node with the index of its next edge to follow.
            let mut path = vec![(root, 0)];
            order[root] = visited;
            low[root] = visited;
            visited += 1;
            stack.push(root);
            on_stack[root] = true;
            while let Some(top) = path.last_mut() {
                let (v, e) = *top;
                if let Some(&w) = edges[v].get(e) {
                    top.1 += 1;
                    if order[w] == UNSEEN {
                        order[w] = visited;
                        low[w] = visited;
                        visited += 1;
                        stack.push(w);
                        on_stack[w] = true;
                        path.push((w, 0));
                    } else if on_stack[w] {
                        low[v] = low[v].min(order[w]);
                    }
                    continue;
                }
                path.pop();
                if let Some(&(u, _)) = path.last() {
                    low[u] = low[u].min(low[v]);
                }
                if low[v] != order[v] {
                    continue;
                }
                // `v` heads a component: the nodes above it on the stack.
                let at = stack.iter().rposition(|&w| w == v).unwrap_or(0);
                let component = stack.split_off(at);
                for &w in &component {
                    on_stack[w] = false;
                }
                if component.len() > 1 || edges[v].contains(&v) {
                    recursive.extend(component.iter().map(|&w| nodes[w].clone()));
                }
            }
        }
        Recursive(recursive)
    }

    /// Does `inst` call itself, directly or through others?
    pub fn contains(&self, inst: &Instance) -> bool {
        self.0.contains(inst)
    }
}
