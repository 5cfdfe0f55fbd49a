//! Which objects a function may write, across calls: [`may_mutate`].
//!
//! Each function reachable from the one asked about gets a summary: the positions of the
//! arguments whose objects it may write (or "anything", when it writes an object it cannot name),
//! and whether every value it returns is an object it (or a callee) allocated. A write is
//! harmless to the caller when its target is fresh: allocated in the same function, or returned
//! by a callee whose results are all fresh, or passed as a fresh object to a callee that
//! writes its argument (the prelude's helpers fill arrays their callers allocate, as
//! `_collect(fill(0, n), r)` does). Summaries are a fixpoint over the call graph (recursion
//! included): writes grow from none, freshness shrinks from all.

use std::collections::BTreeSet;
use std::sync::Arc;

use rustc_hash::FxHashMap;
use zy_ir::{Function, Instance, Op, Operand, Prim, Terminator, TypedProgram, ValueKind};

/// Whether running `inst` may mutate an object it did not make: a mutating primitive in its
/// body or in anything it calls whose target is not an object allocated during the call
/// (differentiation of a function value counts as a call of anything).
pub fn may_mutate(prog: &TypedProgram, inst: &Arc<Instance>) -> bool {
    let mut a = Analysis {
        prog,
        index: FxHashMap::default(),
        nodes: Vec::new(),
    };
    let Some(root) = a.node_of_instance(inst) else {
        return true;
    };
    a.explore(root);
    let n = a.nodes.len();
    let mut writes: Vec<Option<BTreeSet<usize>>> = vec![Some(BTreeSet::new()); n];
    let mut fresh_ret = vec![true; n];
    loop {
        let mut changed = false;
        for i in 0..n {
            let (w, f) = a.summarise(i, &writes, &fresh_ret);
            if w != writes[i] {
                writes[i] = w;
                changed = true;
            }
            if f != fresh_ret[i] {
                fresh_ret[i] = f;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    writes[root] != Some(BTreeSet::new())
}

/// One function of the call graph.
struct Node {
    func: Arc<Function>,
    /// Generated code not built yet stands for the function it derives from: its argument
    /// positions are not that function's, so any write counts as a write of anything.
    opaque: bool,
}

struct Analysis<'p> {
    prog: &'p TypedProgram,
    index: FxHashMap<Arc<Instance>, usize>,
    nodes: Vec<Node>,
}

/// Where a written or returned object comes from, seen from the function that holds it.
enum Source {
    /// Allocated here (or returned by a callee `usize` whose results are all fresh).
    Fresh,
    FreshIf(usize),
    /// The function's argument at this position.
    Arg(usize),
    Unknown,
}

impl Analysis<'_> {
    fn node_of_instance(&mut self, i: &Arc<Instance>) -> Option<usize> {
        if let Some(&k) = self.index.get(i) {
            return Some(k);
        }
        let (func, opaque) = match self.prog.functions.get(i) {
            Some(f) => (f.clone(), false),
            None => {
                let o = crate::globals::origin(self.prog, i)?;
                (self.prog.functions.get(&o)?.clone(), true)
            }
        };
        let k = self.nodes.len();
        self.nodes.push(Node { func, opaque });
        self.index.insert(i.clone(), k);
        Some(k)
    }

    fn node_of_global(&mut self, name: &zy_ir::Name) {
        let key = global_key(name);
        if self.index.contains_key(&key) {
            return;
        }
        if let Some(func) = self.prog.globals.get(name) {
            self.index.insert(key, self.nodes.len());
            self.nodes.push(Node {
                func: func.clone(),
                opaque: false,
            });
        }
    }

    /// Add every function reachable from `root`.
    fn explore(&mut self, root: usize) {
        let mut k = root;
        while k < self.nodes.len() {
            let f = self.nodes[k].func.clone();
            for v in &f.values {
                if let ValueKind::Stmt(s) = &v.kind {
                    match &s.op {
                        Op::Invoke(c) => {
                            self.node_of_instance(c);
                        }
                        Op::Global(name) => self.node_of_global(name),
                        Op::Prim(p) if p.differentiates() => {
                            if let Some(c) = crate::driver::differentiated(self.prog, &f, &s.args) {
                                self.node_of_instance(&c);
                            }
                        }
                        _ => {}
                    }
                }
            }
            k += 1;
        }
    }

    fn source(&self, f: &Function, op: &Operand) -> Source {
        if crate::driver::fresh(f, op) {
            return Source::Fresh;
        }
        let Some(v) = op.as_value() else {
            return Source::Unknown;
        };
        if let Some(k) = f.args().iter().position(|a| *a == v) {
            return Source::Arg(k);
        }
        match f.stmt(v).map(|s| &s.op) {
            Some(Op::Invoke(c)) => match self.index.get(c) {
                Some(&n) => Source::FreshIf(n),
                None => Source::Unknown,
            },
            _ => Source::Unknown,
        }
    }

    /// Node `i`'s writes and freshness of results, given the current summaries.
    fn summarise(
        &self,
        i: usize,
        writes: &[Option<BTreeSet<usize>>],
        fresh_ret: &[bool],
    ) -> (Option<BTreeSet<usize>>, bool) {
        let node = &self.nodes[i];
        let f = &*node.func;
        let mut out = BTreeSet::new();
        // A write (or a callee's write) of `op`: harmless, an argument's, or of anything.
        let target = |op: &Operand, out: &mut BTreeSet<usize>| -> bool {
            match self.source(f, op) {
                Source::Fresh => true,
                Source::FreshIf(n) => fresh_ret[n],
                Source::Arg(k) => {
                    out.insert(k);
                    true
                }
                Source::Unknown => false,
            }
        };
        for v in &f.values {
            let ValueKind::Stmt(stmt) = &v.kind else {
                continue;
            };
            let ok = match &stmt.op {
                Op::Prim(
                    Prim::SetField
                    | Prim::RefSet
                    | Prim::SetIndex
                    | Prim::SetLength
                    | Prim::Push
                    | Prim::Pop
                    | Prim::AccumInto
                    | Prim::AccumSlice,
                ) => stmt.args.first().is_some_and(|t| target(t, &mut out)),
                // Differentiating a function runs it (the driver leaves what the call leaves).
                Op::Prim(p) if p.differentiates() => {
                    crate::driver::differentiated(self.prog, f, &stmt.args).is_some_and(|c| {
                        self.index
                            .get(&c)
                            .is_some_and(|&n| writes[n] == Some(BTreeSet::new()))
                    })
                }
                // A `back` never writes: `pullback` of a function that may is refused.
                Op::Prim(Prim::CallPullback) => true,
                Op::Invoke(c) => match self.index.get(c) {
                    Some(&n) => match &writes[n] {
                        Some(ws) => ws
                            .iter()
                            .all(|&k| stmt.args.get(k).is_some_and(|a| target(a, &mut out))),
                        None => false,
                    },
                    None => false,
                },
                // A global's thunk runs where it is first read.
                Op::Global(name) => self
                    .index
                    .get(&global_key(name))
                    .is_some_and(|&n| writes[n] == Some(BTreeSet::new())),
                Op::Prim(_) | Op::New(_) => true,
                Op::Call(_) | Op::CallValue | Op::Closure(_) => false,
            };
            if !ok {
                return (None, false);
            }
        }
        if node.opaque && !out.is_empty() {
            return (None, false);
        }
        let fresh = f.block_ids().all(|b| match &f.block(b).term {
            Terminator::Return(x) => match self.source(f, x) {
                Source::Fresh => true,
                Source::FreshIf(n) => fresh_ret[n],
                _ => false,
            },
            _ => true,
        });
        (Some(out), fresh && !node.opaque)
    }
}

/// The key of a global's thunk among the nodes.
fn global_key(name: &zy_ir::Name) -> Arc<Instance> {
    Arc::new(Instance {
        name: format!("global {name}").into(),
        method: u32::MAX,
        args: Arc::from([]),
    })
}
