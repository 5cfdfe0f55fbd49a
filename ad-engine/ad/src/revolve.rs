//! Binomial checkpointing schedules (Griewank and Walther's Revolve) for reversing a loop of
//! `n` steps while keeping at most `s` snapshots of its state instead of `n` tape entries.
//!
//! A schedule is a list of [`Action`]s over the loop's states `0..=n` (state `i` is the state
//! before step `i`). It starts with state 0 in hand and stored; [`Action::Reverse`] runs one
//! step with its tape and at once its pullback, in the order `n - 1, ..., 0`, so that only one
//! step's tape exists at a time. The offline schedule ([`schedule`], the trip count known in
//! advance, as for a `for` loop) is optimal: it advances exactly [`min_advances`]`(n, s)`
//! steps, `t n - β(s + 1, t - 1)` where `β(s, t) = C(s + t, s)` and `t` is the smallest
//! repetition number with `β(s, t) >= n`. That is `O(n log n)` for `s` growing like `log n`,
//! and at most `2n` for `s` about `√(2n)`.
//!
//! `# zy: checkpoint snapshots=K` runs this schedule (`zy-lower`'s `checkpoint.rs`): a step
//! function reverses steps `lo..end` by calling itself under `checkpointed` for the first
//! [`split`] steps (the forward pass runs them without a tape and keeps their start state; the
//! pullback recomputes them, splitting again) and then going on to the rest with one snapshot
//! fewer. Each step is advanced as often as in [`schedule`] and taped once; the states kept at
//! once are at most `s + t - 1` (a recomputed part keeps its own start again). A `while` loop,
//! whose trip count is known only at its end, runs in chunks of 1, 2, 4, ... steps, each
//! reversed by the schedule of its length (a part past the loop's end runs nothing).

/// One move of a checkpointing schedule.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Action {
    /// Run the steps `from..to` without a tape: the state in hand goes from `from` to `to`.
    Advance { from: usize, to: usize },
    /// Keep a snapshot of the state in hand, state `i`.
    Store(usize),
    /// Make the snapshot of state `i` the state in hand (the snapshot stays).
    Restore(usize),
    /// Drop the snapshot of state `i`.
    Free(usize),
    /// Run step `i` from the state in hand (state `i`) with its tape, then its pullback.
    Reverse(usize),
}

/// `β(s, t) = C(s + t, s)`: the most steps that `s` snapshots reverse with each step advanced
/// at most `t` times (saturating).
pub fn beta(s: usize, t: usize) -> usize {
    let mut b: usize = 1;
    for k in 1..=s.min(t) {
        // C(s + t, k) from C(s + t, k - 1); exact at every k.
        b = match b.checked_mul(s.max(t) + k) {
            Some(x) => x / k,
            None => return usize::MAX,
        };
    }
    b
}

/// The repetition number of `n` steps with `s >= 1` snapshots: the smallest `t` with
/// `β(s, t) >= n`.
pub fn repetitions(n: usize, s: usize) -> usize {
    let mut t = 0;
    while beta(s, t) < n {
        t += 1;
    }
    t
}

/// The fewest advances any schedule needs to reverse `n` steps with `s >= 1` snapshots (the
/// start's included): `t n - β(s + 1, t - 1)`.
pub fn min_advances(n: usize, s: usize) -> usize {
    if n <= 1 {
        return 0;
    }
    let t = repetitions(n, s);
    t * n - beta(s + 1, t - 1)
}

/// The default number of snapshots for `n` steps: the fewest with which no step is advanced
/// more than twice (`β(s, 2) >= n`, about `√(2n)`), so the reverse costs at most two extra
/// forward sweeps.
pub fn default_snapshots(n: usize) -> usize {
    let mut s = 1;
    while beta(s, 2) < n {
        s += 1;
    }
    s
}

/// Where the optimal schedule splits `l >= 2` steps with `s >= 1` snapshots: the first `m`
/// steps are reversed last, with all `s` snapshots, the other `l - m` first, with `s - 1`
/// (the split's state held). An optimal `m`: the right part fits `s - 1` snapshots with `t`
/// repetitions, the left part `s` snapshots with `t - 1`; with one snapshot, `l - 1`. The
/// prelude's `_revolve_split`, which `# zy: checkpoint snapshots=K` loops run, computes the
/// same numbers (`tests/checkpoint.rs` checks them against this one).
pub fn split(l: usize, s: usize) -> usize {
    if s <= 1 {
        return l.saturating_sub(1).max(1);
    }
    let t = repetitions(l, s);
    let left = t.checked_sub(2).map_or(1, |t2| beta(s, t2));
    left.max(l.saturating_sub(beta(s - 1, t)))
        .clamp(1, l.saturating_sub(1).max(1))
}

/// The optimal schedule reversing steps `0..n` with `s >= 1` snapshots, the start's included.
pub fn schedule(n: usize, s: usize) -> Vec<Action> {
    let mut out = vec![Action::Store(0)];
    reverse_range(&mut out, 0, n, s.max(1));
    out.push(Action::Free(0));
    out
}

/// Reverse steps `start..end` with state `start` stored and `s` snapshots (its own included),
/// leaving the snapshot of `start` in place.
fn reverse_range(out: &mut Vec<Action>, start: usize, end: usize, s: usize) {
    let mut end = end;
    while end > start {
        let l = end - start;
        if l == 1 {
            out.push(Action::Restore(start));
            out.push(Action::Reverse(start));
            return;
        }
        if s == 1 {
            // No slot left: advance from the start to each step in turn.
            out.push(Action::Restore(start));
            if end - 1 > start {
                out.push(Action::Advance {
                    from: start,
                    to: end - 1,
                });
            }
            out.push(Action::Reverse(end - 1));
            end -= 1;
            continue;
        }
        // Split at `m`, reverse the right part from a new snapshot, then the left part,
        // which may use every slot again.
        let m = split(l, s);
        out.push(Action::Restore(start));
        out.push(Action::Advance {
            from: start,
            to: start + m,
        });
        out.push(Action::Store(start + m));
        reverse_range(out, start + m, end, s - 1);
        out.push(Action::Free(start + m));
        end = start + m;
    }
}

#[cfg(test)]
mod tests {
    use rustc_hash::FxHashSet;

    use super::*;

    /// What running a schedule costs: the steps advanced and the most snapshots held at once.
    #[derive(Debug, PartialEq)]
    struct Cost {
        advances: usize,
        peak: usize,
    }

    /// Run `actions` on `n` steps: each move must be possible (an advance from the state in
    /// hand, a restore of a kept snapshot, steps reversed once each, last first), and nothing
    /// may be left stored.
    fn simulate(n: usize, actions: &[Action]) -> Cost {
        let mut hand = Some(0);
        let mut kept: FxHashSet<usize> = FxHashSet::default();
        let mut next = n;
        let mut cost = Cost {
            advances: 0,
            peak: 0,
        };
        for (k, a) in actions.iter().enumerate() {
            match *a {
                Action::Advance { from, to } => {
                    assert_eq!(hand, Some(from), "action {k}: {a:?}");
                    assert!(from < to && to <= n, "action {k}: {a:?}");
                    cost.advances += to - from;
                    hand = Some(to);
                }
                Action::Store(i) => {
                    assert_eq!(hand, Some(i), "action {k}: {a:?}");
                    assert!(kept.insert(i), "action {k}: {a:?}");
                    cost.peak = cost.peak.max(kept.len());
                }
                Action::Restore(i) => {
                    assert!(kept.contains(&i), "action {k}: {a:?}");
                    hand = Some(i);
                }
                Action::Free(i) => {
                    assert!(kept.remove(&i), "action {k}: {a:?}");
                }
                Action::Reverse(i) => {
                    assert_eq!((hand, i + 1), (Some(i), next), "action {k}: {a:?}");
                    next = i;
                    hand = None;
                }
            }
        }
        assert_eq!(next, 0, "steps left unreversed");
        assert!(kept.is_empty(), "snapshots left: {kept:?}");
        cost
    }

    #[test]
    fn binomial_numbers() {
        assert_eq!(beta(0, 5), 1);
        assert_eq!(beta(3, 2), 10);
        assert_eq!(beta(2, 3), 10);
        assert_eq!(beta(4, 4), 70);
        assert_eq!(beta(usize::MAX / 2, usize::MAX / 2), usize::MAX);
    }

    #[test]
    fn small_schedules_by_hand() {
        // Ten steps, three snapshots: t = 2 (β(3, 2) = 10), 2·10 - β(4, 1) = 15 advances.
        assert_eq!(min_advances(10, 3), 15);
        assert_eq!(
            simulate(10, &schedule(10, 3)),
            Cost {
                advances: 15,
                peak: 3
            }
        );
        // One snapshot: every step is reached from the start, 0 + 1 + ... + 4 = 10.
        assert_eq!(
            simulate(5, &schedule(5, 1)),
            Cost {
                advances: 10,
                peak: 1
            }
        );
        // As many snapshots as steps: one forward sweep, no recomputation beyond it.
        assert_eq!(simulate(6, &schedule(6, 6)).advances, 5);
        assert_eq!(simulate(0, &schedule(0, 2)).advances, 0);
    }

    #[test]
    fn the_offline_schedule_meets_revolves_bound_with_at_most_s_snapshots() {
        for s in 1..=7 {
            for n in 1..=120 {
                let cost = simulate(n, &schedule(n, s));
                assert_eq!(cost.advances, min_advances(n, s), "n = {n}, s = {s}");
                assert!(cost.peak <= s, "n = {n}, s = {s}: {cost:?}");
            }
        }
    }

    #[test]
    fn the_bound_is_the_best_any_schedule_does() {
        // Against the optimum over every split, computed by dynamic programming.
        let (nmax, smax) = (40, 5);
        let mut best = vec![vec![0usize; smax + 1]; nmax + 1];
        for n in 2..=nmax {
            best[n][1] = n * (n - 1) / 2;
            for s in 2..=smax {
                best[n][s] = (1..n)
                    .map(|m| m + best[n - m][s - 1] + best[m][s])
                    .min()
                    .unwrap_or(0);
            }
        }
        for (n, row) in best.iter().enumerate().skip(1) {
            for (s, &b) in row.iter().enumerate().skip(1) {
                assert_eq!(min_advances(n, s), b, "n = {n}, s = {s}");
            }
        }
    }

    #[test]
    fn a_hundred_thousand_steps() {
        // The default snapshots keep every step to at most two advances; twenty snapshots
        // (t = 6: β(20, 6) = 230,230) advance each step at most six times.
        let n = 100_000;
        let s = default_snapshots(n);
        assert_eq!(s, 446);
        assert!(beta(s, 2) >= n && beta(s - 1, 2) < n);
        let cost = simulate(n, &schedule(n, s));
        assert_eq!(cost.advances, min_advances(n, s));
        assert!(cost.advances <= 2 * n && cost.peak <= s, "{cost:?}");
        let cost = simulate(n, &schedule(n, 20));
        assert_eq!(cost.advances, 6 * n - beta(21, 5));
        assert!(cost.peak <= 20, "{cost:?}");
    }
}
