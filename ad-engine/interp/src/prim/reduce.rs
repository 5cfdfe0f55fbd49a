//! `sum`, `prod`, `maximum`, `minimum` with Julia's association order: arrays of 16 or more
//! Float64 elements reduce pairwise with a sequential block size of 1024
//! (`Base.mapreduce_impl`), shorter ones and tuples left to right.
//!
//! Julia compiles the sequential blocks of `sum` and `prod` with `@simd`, which lets LLVM
//! reassociate them into interleaved partial results (their number depends on the machine's
//! vector width). zy fixes one such order, [`LANES`] interleaved lanes (see [`block`]), on every
//! machine; the JIT's `sum` kernel calls [`sum_f64`], so both engines agree to the bit, and the
//! lanes are independent additions that the processor overlaps (a left fold waits for each
//! addition's result before the next).

use zy_ir::Prim;

use super::{method_error, scalar};
use crate::value::{ArrayData, Value};

const PAIRWISE_BLOCK: usize = 1024;

/// Interleaved partial results in a sequential block of `sum` or `prod`.
pub const LANES: usize = 8;

/// A sequential block of [`PAIRWISE_BLOCK`] elements or fewer, as `@simd` may reassociate it:
/// lane `j` folds the elements at `j`, `j + LANES`, ... of the whole groups of `LANES` left
/// to right; the lanes combine as a balanced tree (`((l0 op l1) op (l2 op l3)) op (...)`), then
/// the elements past the last whole group fold in left to right. Shorter than two groups, the
/// block is a left fold.
fn block(xs: &[f64], op: impl Fn(f64, f64) -> f64 + Copy) -> f64 {
    if xs.len() < 2 * LANES {
        return xs.iter().copied().reduce(op).unwrap_or(0.0);
    }
    let whole = xs.len() - xs.len() % LANES;
    let (groups, rest) = xs.split_at(whole);
    let mut lanes = [0.0; LANES];
    lanes.copy_from_slice(&groups[..LANES]);
    for group in groups[LANES..].chunks_exact(LANES) {
        for (l, x) in lanes.iter_mut().zip(group) {
            *l = op(*l, *x);
        }
    }
    let mut width = LANES;
    while width > 1 {
        width /= 2;
        for j in 0..width {
            lanes[j] = op(lanes[2 * j], lanes[2 * j + 1]);
        }
    }
    rest.iter().fold(lanes[0], |v, x| op(v, *x))
}

/// `sum` of Float64 elements in zy's order (see the module documentation); the JIT's `sum`
/// kernel calls it.
pub fn sum_f64(xs: &[f64]) -> f64 {
    reduce_f64(xs, |a, b| a + b)
}

/// The length of the sequential block of [`sum_f64`]'s order over `n` elements that starts at
/// index `start` (the start of a block): the blocks are the leaves of the pairwise split, so
/// that a caller computing the elements block by block can sum each with [`sum_block`] and
/// combine the results with [`sum_blocks`], the bits of [`sum_f64`] of the whole array.
pub fn sum_block_len(n: usize, start: usize) -> usize {
    let (mut lo, mut len) = (0, n);
    while len > PAIRWISE_BLOCK {
        let mid = (len - 1) / 2 + 1;
        if start < lo + mid {
            len = mid;
        } else {
            lo += mid;
            len -= mid;
        }
    }
    len
}

/// `sum` of one sequential block (see [`sum_block_len`]).
pub fn sum_block(xs: &[f64]) -> f64 {
    block(xs, |a, b| a + b)
}

/// The sum of `n` elements from the sums of their sequential blocks, in order (see
/// [`sum_block_len`]), combined as the pairwise split combines them.
pub fn sum_blocks(n: usize, sums: &[f64]) -> f64 {
    fn combine(len: usize, sums: &mut std::slice::Iter<'_, f64>) -> f64 {
        if len <= PAIRWISE_BLOCK {
            return sums.next().copied().unwrap_or(0.0);
        }
        let mid = (len - 1) / 2 + 1;
        let left = combine(mid, sums);
        left + combine(len - mid, sums)
    }
    combine(n, &mut sums.iter())
}

/// `Base.mapreduce_impl` on a non-empty slice.
fn pairwise(xs: &[f64], op: impl Fn(f64, f64) -> f64 + Copy) -> f64 {
    match xs {
        [x] => *x,
        _ if xs.len() <= PAIRWISE_BLOCK => block(xs, op),
        _ => {
            // `imid = ifirst + (ilast - ifirst) >> 1` with 1-based inclusive bounds.
            let mid = (xs.len() - 1) / 2 + 1;
            op(pairwise(&xs[..mid], op), pairwise(&xs[mid..], op))
        }
    }
}

/// Julia's `_mapreduce` over a Float64 array: sequential below 16 elements, pairwise above.
fn reduce_f64(xs: &[f64], op: impl Fn(f64, f64) -> f64 + Copy) -> f64 {
    if xs.len() < 16 {
        xs.iter().copied().reduce(op).unwrap_or(0.0)
    } else {
        pairwise(xs, op)
    }
}

fn empty_error() -> String {
    "ArgumentError: reducing over an empty collection is not allowed; consider supplying `init` \
     to the reducer"
        .into()
}

/// `sum(x)`, `prod(x)`, `maximum(x)`, `minimum(x)` of an array, tuple or number.
pub fn reduce(p: Prim, a: &Value) -> Result<Value, String> {
    match a {
        Value::Array(arr) | Value::Adjoint(arr) => reduce_array(p, &arr.borrow().data),
        Value::Tuple(vs) => {
            let Some((first, rest)) = vs.split_first() else {
                return Err(empty_error());
            };
            let mut acc = first.clone();
            for v in rest {
                acc = step(p, &acc, v)?;
            }
            Ok(acc)
        }
        Value::F64(_) | Value::Int(_) | Value::Bool(_) => Ok(a.clone()),
        _ => Err(method_error(p.julia_name(), std::slice::from_ref(a))),
    }
}

fn step(p: Prim, acc: &Value, v: &Value) -> Result<Value, String> {
    match p {
        Prim::Sum => scalar::arith(Prim::Add, acc, v),
        Prim::Prod => scalar::arith(Prim::Mul, acc, v),
        Prim::Maximum => scalar::max_min(Prim::Max, acc, v),
        _ => scalar::max_min(Prim::Min, acc, v),
    }
}

fn reduce_array(p: Prim, data: &ArrayData) -> Result<Value, String> {
    match (p, data) {
        (Prim::Sum, ArrayData::F64(xs)) => Ok(Value::F64(sum_f64(xs))),
        (Prim::Prod, ArrayData::F64(xs)) if xs.is_empty() => Ok(Value::F64(1.0)),
        (Prim::Prod, ArrayData::F64(xs)) => Ok(Value::F64(reduce_f64(xs, |a, b| a * b))),
        // Integer sums and products wrap; `sum` of Bools counts them as Int.
        (Prim::Sum, ArrayData::Int(xs)) => {
            Ok(Value::Int(xs.iter().fold(0i64, |a, &b| a.wrapping_add(b))))
        }
        (Prim::Sum, ArrayData::Bool(xs)) => {
            Ok(Value::Int(xs.iter().filter(|&&b| b).count() as i64))
        }
        (Prim::Prod, ArrayData::Int(xs)) => {
            Ok(Value::Int(xs.iter().fold(1i64, |a, &b| a.wrapping_mul(b))))
        }
        (Prim::Prod, ArrayData::Bool(xs)) => Ok(Value::Bool(xs.iter().all(|&b| b))),
        (Prim::Maximum | Prim::Minimum, _) if data.is_empty() => Err(empty_error()),
        (Prim::Maximum | Prim::Minimum, ArrayData::F64(xs)) => Ok(Value::F64(
            extremum_f64(xs, p == Prim::Maximum).unwrap_or(f64::NAN),
        )),
        _ => {
            let vals = data.values();
            let Some((first, rest)) = vals.split_first() else {
                return Err(empty_error());
            };
            let mut acc = first.clone();
            for v in rest {
                acc = step(p, &acc, v)?;
            }
            Ok(acc)
        }
    }
}

/// `maximum(xs)` (`is_max`) or `minimum(xs)` of Float64s, Julia's `max` (or `min`) folded from
/// the left; `None` if empty. The JIT's kernel calls this too.
pub fn extremum_f64(xs: &[f64], is_max: bool) -> Option<f64> {
    let pick = if is_max {
        scalar::julia_max
    } else {
        scalar::julia_min
    };
    extremum_without_nan(xs, is_max).or_else(|| xs.iter().copied().reduce(pick))
}

/// The extremum of numbers without a NaN (`None` when a NaN is among them, or there are
/// none). Julia's `max` of such numbers is the larger, `0.0` over `-0.0` (and `min` the
/// smaller, `-0.0` under `0.0`), so the fold's result does not depend on the order of the
/// comparisons: [`LANES`] independent lanes of them the compiler vectorises, and the sign of
/// a zero extremum settled after.
fn extremum_without_nan(xs: &[f64], is_max: bool) -> Option<f64> {
    let beats = |x: f64, best: f64| if is_max { x > best } else { x < best };
    let pick = |best: f64, x: f64| if beats(x, best) { x } else { best };
    let first = *xs.first()?;
    let mut best = [first; LANES];
    let mut nan = [false; LANES];
    let mut groups = xs.chunks_exact(LANES);
    for group in groups.by_ref() {
        for ((b, n), &x) in best.iter_mut().zip(&mut nan).zip(group) {
            *n |= x.is_nan();
            *b = pick(*b, x);
        }
    }
    for &x in groups.remainder() {
        nan[0] |= x.is_nan();
        best[0] = pick(best[0], x);
    }
    if nan.contains(&true) {
        return None;
    }
    let m = best.into_iter().reduce(pick)?;
    if m != 0.0 {
        return Some(m);
    }
    // Zeros compare equal: the maximum is 0.0 if there is one, the minimum -0.0.
    let signed: f64 = if is_max { 0.0 } else { -0.0 };
    let has = xs.iter().any(|x| x.to_bits() == signed.to_bits());
    Some(if has { signed } else { -signed })
}

/// `findmax(x)` / `findmin(x)` of a Float64 array: the extremum and its first index.
pub fn find_extremum(p: Prim, a: &Value) -> Result<Value, String> {
    let (Value::Array(arr) | Value::Adjoint(arr)) = a else {
        return Err(method_error(p.julia_name(), std::slice::from_ref(a)));
    };
    let arr = arr.borrow();
    let ArrayData::F64(xs) = &arr.data else {
        return Err(method_error(p.julia_name(), std::slice::from_ref(a)));
    };
    let i = extremum_index(xs, p == Prim::FindMax).ok_or_else(empty_error)?;
    Ok(Value::tuple([Value::F64(xs[i]), Value::Int(i as i64 + 1)]))
}

/// The 0-based index of the first maximum (`is_max`) or minimum of `xs` in Julia's `isless`
/// order, as `findmax`/`findmin` pick it (a NaN wins either way); `None` if empty. The JIT
/// calls this too.
pub fn extremum_index(xs: &[f64], is_max: bool) -> Option<usize> {
    if let Some(m) = extremum_without_nan(xs, is_max) {
        // Without a NaN, `isless` orders the numbers as their bits do but for the sign of
        // zero: the first element of the extremum's bits is the first extremum.
        let bits = m.to_bits();
        let is_it = |x: &f64| x.to_bits() == bits;
        let mut at = 0;
        for group in xs.chunks(LANES) {
            if group.iter().fold(false, |seen, x| seen | is_it(x)) {
                return group.iter().position(is_it).map(|i| at + i);
            }
            at += group.len();
        }
    }
    // Julia's `isless` on floats: -0.0 before 0.0, every NaN after everything else.
    let isless = |a: f64, b: f64| {
        if a.is_nan() {
            false
        } else if b.is_nan() {
            true
        } else if a == b {
            a.is_sign_negative() && !b.is_sign_negative()
        } else {
            a < b
        }
    };
    let mut best = 0;
    let first = *xs.first()?;
    let mut at = first;
    for (i, &x) in xs.iter().enumerate().skip(1) {
        // `findmin` takes a NaN over anything, as `isgreater` orders it.
        let better = if is_max || at.is_nan() || x.is_nan() {
            isless(at, x)
        } else {
            isless(x, at)
        };
        if better {
            best = i;
            at = x;
        }
    }
    Some(best)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn block_by_block_sums_are_the_whole_arrays_bits() {
        for n in (0..40).chain([1023, 1024, 1025, 2047, 2049, 3000, 10_000, 100_001]) {
            let xs: Vec<f64> = (0..n)
                .map(|i| ((i * 7919) % 1013) as f64 * 0.37 - 100.3)
                .collect();
            let mut sums = Vec::new();
            let mut start = 0;
            while start < n {
                let m = sum_block_len(n, start);
                sums.push(sum_block(&xs[start..start + m]));
                start += m;
            }
            assert!(
                sums.len() <= n / 512 + 1,
                "{n} elements: {} blocks",
                sums.len()
            );
            assert_eq!(
                sum_blocks(n, &sums).to_bits(),
                sum_f64(&xs).to_bits(),
                "{n}"
            );
        }
    }

    #[test]
    fn pairwise_splits_like_julia() {
        // 2048 elements: two blocks of 1024, each summed in lanes.
        let xs: Vec<f64> = (0..2048).map(|i| if i == 0 { 1e16 } else { 1.0 }).collect();
        // Lane 0 holds 1e16 and 127 ones, each lost (ulp 2); the other seven lanes 128 each.
        let left = 1e16 + 7.0 * 128.0;
        let right = 1024.0;
        assert_eq!(block(&xs[..1024], |a, b| a + b), left);
        assert_eq!(reduce_f64(&xs, |a, b| a + b), left + right);
        // Sequential summation would lose every 1.0 added to 1e16: 1e16 + 1024.
        let sequential = xs.iter().fold(0.0, |a, b| a + b);
        assert_ne!(reduce_f64(&xs, |a, b| a + b), sequential);
    }

    #[test]
    fn a_block_folds_lanes_then_combines_them_as_a_tree_then_the_rest() {
        // 19 elements: two groups of eight, then three left over.
        let xs: Vec<f64> = (1..=19).map(|i| f64::from(i) * 0.1).collect();
        let lane = |j: usize| xs[j] + xs[j + 8];
        let tree = ((lane(0) + lane(1)) + (lane(2) + lane(3)))
            + ((lane(4) + lane(5)) + (lane(6) + lane(7)));
        let by_hand = ((tree + xs[16]) + xs[17]) + xs[18];
        assert_eq!(block(&xs, |a, b| a + b).to_bits(), by_hand.to_bits());
        // Below two groups a block is a left fold.
        let short = &xs[..15];
        let left = short.iter().copied().reduce(|a, b| a + b).unwrap();
        assert_eq!(block(short, |a, b| a + b).to_bits(), left.to_bits());
        // Products take the same order.
        let prod = block(&xs, |a, b| a * b);
        let lane = |j: usize| xs[j] * xs[j + 8];
        let tree = ((lane(0) * lane(1)) * (lane(2) * lane(3)))
            * ((lane(4) * lane(5)) * (lane(6) * lane(7)));
        assert_eq!(
            prod.to_bits(),
            (((tree * xs[16]) * xs[17]) * xs[18]).to_bits()
        );
    }

    #[test]
    fn the_vectorised_extremum_is_the_left_fold() {
        let mut xs = vec![
            -0.0,
            0.0,
            -1.5,
            3.0,
            f64::INFINITY,
            f64::NEG_INFINITY,
            1e-310,
            -1e-310,
        ];
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        for _ in 0..997 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let x = f64::from_bits(state);
            xs.push(if x.is_nan() { 0.5 } else { x });
        }
        for n in [1, 2, 7, 8, 9, 17, xs.len()] {
            for is_max in [true, false] {
                let pick = if is_max {
                    scalar::julia_max
                } else {
                    scalar::julia_min
                };
                let fold = xs[..n].iter().copied().reduce(pick);
                let fast = extremum_without_nan(&xs[..n], is_max);
                assert_eq!(
                    fast.map(f64::to_bits),
                    fold.map(f64::to_bits),
                    "{n} {is_max}"
                );
                // `findmax`/`findmin`: the first element the left fold keeps.
                let mut first = 0;
                for (i, &x) in xs[..n].iter().enumerate() {
                    if pick(xs[first], x).to_bits() != xs[first].to_bits() {
                        first = i;
                    }
                }
                assert_eq!(
                    extremum_index(&xs[..n], is_max),
                    Some(first),
                    "{n} {is_max}"
                );
            }
        }
        // Signed zeros: max is 0.0, min is -0.0, in either order.
        for zs in [[0.0, -0.0], [-0.0, 0.0]] {
            assert_eq!(
                extremum_without_nan(&zs, true).map(f64::to_bits),
                Some(0f64.to_bits())
            );
            assert_eq!(
                extremum_without_nan(&zs, false).map(f64::to_bits),
                Some((-0f64).to_bits())
            );
        }
        assert_eq!(extremum_without_nan(&[1.0, f64::NAN], true), None);
        assert_eq!(extremum_without_nan(&[], true), None);
    }

    #[test]
    fn findmax_and_findmin_pick_the_first_extremum_in_isless_order() {
        let nan = f64::NAN;
        let cases: [(&[f64], usize, usize); 8] = [
            (&[1.0, 3.0, 3.0, -2.0, -2.0], 1, 3),
            (&[-0.0, 0.0], 1, 0),
            (&[0.0, -0.0], 0, 1),
            (&[-0.0, -0.0, 0.0, 0.0], 2, 0),
            (&[0.0, 0.0, -0.0, -0.0], 0, 2),
            (&[1.0, nan, 3.0, nan], 1, 1),
            (&[nan, 1.0], 0, 0),
            (&[2.0], 0, 0),
        ];
        for (xs, max, min) in cases {
            assert_eq!(extremum_index(xs, true), Some(max), "findmax {xs:?}");
            assert_eq!(extremum_index(xs, false), Some(min), "findmin {xs:?}");
        }
        assert_eq!(extremum_index(&[], true), None);
    }

    #[test]
    fn odd_length_split_point() {
        // 1025 elements: Julia splits at imid = 1 + 1024 >> 1 = 513, i.e. 513 + 512.
        let xs: Vec<f64> = (0..1025).map(f64::from).collect();
        let first = block(&xs[..513], |a, b| a + b);
        let second = block(&xs[513..], |a, b| a + b);
        assert_eq!(pairwise(&xs, |a, b| a + b), first + second);
        assert_eq!(first, 131_328.0);
    }
}
