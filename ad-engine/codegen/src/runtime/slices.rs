//! Slices of Float64 arrays by a range of linear indices: `slice_copy` (the prelude's `x[r]`)
//! and its reverse `accum_slice!`, adding a slice's gradient into its parent's in place.

use super::arena::ArrayObj;
use super::kernels::zy_rt_array_new_uninit;
use super::Ctx;

/// The 0-based linear indices `a - 1 + k s` for `k` in `0..n` if all are inside an array of
/// `len` elements (they are when the first and the last are): `(first, step, n)`.
fn in_bounds(a: i64, s: i64, n: i64, len: i64) -> Option<(usize, isize, usize)> {
    if n <= 0 {
        return Some((0, 0, 0));
    }
    let last = s.checked_mul(n - 1).and_then(|d| a.checked_add(d))?;
    let ok = |i: i64| (1..=len).contains(&i);
    (ok(a) && ok(last)).then(|| ((a - 1) as usize, s as isize, n as usize))
}

/// `slice_copy(x, a, s, n)` of a Float64 array `x`: a new vector, or null when an index is
/// out of bounds (the caller raises the interpreter's error) or when `n` exceeds `x`'s length
/// (a zero step repeating one element, left to the interpreter, which checks the size).
///
/// # Safety
/// `ctx` must be the live context and `x` a live Float64 array.
pub unsafe extern "C" fn zy_rt_slice_copy(
    ctx: *mut Ctx,
    x: *const ArrayObj,
    a: i64,
    s: i64,
    n: i64,
) -> *mut ArrayObj {
    let src = unsafe { &*x };
    let Some((first, step, n)) = in_bounds(a, s, n, src.len).filter(|b| b.2 as i64 <= src.len)
    else {
        return std::ptr::null_mut();
    };
    let out = unsafe { zy_rt_array_new_uninit(ctx, n as i64, 1, 8) };
    // SAFETY: every index `first + k step` is below `src.len` (checked above), and `out` holds
    // `n` elements in a block of its own.
    unsafe {
        let (from, to) = (src.data.cast::<f64>(), (*out).data.cast::<f64>());
        for k in 0..n {
            *to.add(k) = *from.offset(first as isize + k as isize * step);
        }
    }
    out
}

/// `accum_slice!(d, a, s, x)`: `d[a + k s] += x[k + 1]` for every element of the Float64
/// vector `x`; returns 1 (and changes nothing) when an index is out of bounds. With
/// `through_zeros` set, `d[a + k s] += 0.0 + x[k + 1]`: `x` added into zeros by `accum!`, then
/// that added (the bits of the two steps, without the array of zeros between).
///
/// # Safety
/// `d` and `x` must be live Float64 arrays.
pub unsafe extern "C" fn zy_rt_accum_slice(
    d: *mut ArrayObj,
    a: i64,
    s: i64,
    x: *const ArrayObj,
    through_zeros: i8,
) -> i8 {
    let (dst, src) = unsafe { (&*d, &*x) };
    let Some((first, step, n)) = in_bounds(a, s, src.len, dst.len) else {
        return 1;
    };
    // SAFETY: every index `first + k step` is below `dst.len`, and `x` holds `n` elements.
    unsafe {
        let (to, from) = (dst.data.cast::<f64>(), src.data.cast::<f64>());
        let zero = if through_zeros != 0 { 0.0 } else { -0.0 };
        for k in 0..n {
            let at = to.offset(first as isize + k as isize * step);
            // `-0.0 + y` is `y` for every `y`, so one loop serves both.
            *at += zero + *from.add(k);
        }
    }
    0
}

/// The symbols of this module.
pub fn symbols() -> Vec<(&'static str, *const u8)> {
    vec![
        ("zy_rt_slice_copy", zy_rt_slice_copy as *const u8),
        ("zy_rt_accum_slice", zy_rt_accum_slice as *const u8),
    ]
}
