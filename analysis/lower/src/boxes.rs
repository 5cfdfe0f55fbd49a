//! Which boxed locals have their `Ref` on the path being lowered. Julia makes a captured,
//! reassigned variable's `Core.Box` when its scope is entered; zy makes the `Ref` at the first
//! assignment, which needs the value's type. Where the first assignments are in the arms of a
//! conditional, each arm makes its own `Ref` and the join merges them; a variable whose `Ref`
//! exists on some paths into a join only may still be read (an `UndefVarError` on the other
//! paths, as in Julia) but not assigned again. A closure that captures a variable before it
//! is assigned makes the box empty there (`Core.Box`, typed by inference from the values
//! assigned); the first assignment on each path fills it (`Core._box_init!`: nothing to
//! restore when differentiating).

use rustc_hash::FxHashSet;
use zy_ir::Block;

use crate::body::BodyLowerer;
use crate::scope::VarId;

/// The boxes made on the current path.
#[derive(Clone, Default)]
pub(crate) struct Boxes {
    /// Made on every path that reaches here.
    pub made: FxHashSet<VarId>,
    /// Made on some of those paths only.
    pub maybe: FxHashSet<VarId>,
    /// Made empty, and not assigned since, on every path that reaches here.
    pub unset: FxHashSet<VarId>,
    /// Made empty, and not assigned since, on some of those paths only.
    pub maybe_unset: FxHashSet<VarId>,
}

impl Boxes {
    /// Whether reads of `v` go through its box (made on at least one path).
    pub fn readable(&self, v: VarId) -> bool {
        self.made.contains(&v) || self.maybe.contains(&v)
    }

    /// The state where the paths with states `arms` meet.
    fn join(arms: &[Boxes]) -> Boxes {
        let Some((first, rest)) = arms.split_first() else {
            return Boxes::default();
        };
        let made: FxHashSet<VarId> = first
            .made
            .iter()
            .copied()
            .filter(|v| rest.iter().all(|a| a.made.contains(v)))
            .collect();
        let maybe = arms
            .iter()
            .flat_map(|a| a.made.iter().chain(&a.maybe))
            .copied()
            .filter(|v| !made.contains(v))
            .collect();
        let unset: FxHashSet<VarId> = first
            .unset
            .iter()
            .copied()
            .filter(|v| rest.iter().all(|a| a.unset.contains(v)))
            .collect();
        let maybe_unset = arms
            .iter()
            .flat_map(|a| a.unset.iter().chain(&a.maybe_unset))
            .copied()
            .filter(|v| !unset.contains(v))
            .collect();
        Boxes {
            made,
            maybe,
            unset,
            maybe_unset,
        }
    }
}

impl BodyLowerer<'_, '_> {
    /// The state at the end of an arm of a conditional: `None` where the arm left by `return`,
    /// `break` or `continue` (its code goes on in a block no jump reaches).
    pub(crate) fn arm_boxes(&self) -> Option<Boxes> {
        (!self.dead_blocks.contains(&self.cur)).then(|| self.boxes.clone())
    }

    /// Continue after a conditional whose arms ended in the states `arms`.
    pub(crate) fn join_boxes(&mut self, arms: &[Option<Boxes>]) {
        let live: Vec<Boxes> = arms.iter().flatten().cloned().collect();
        if !live.is_empty() {
            self.boxes = Boxes::join(&live);
        }
    }

    /// A block only unreachable code continues in.
    pub(crate) fn mark_dead(&mut self, b: Block) {
        self.dead_blocks.insert(b);
    }
}
