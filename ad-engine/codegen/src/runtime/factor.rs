//! Factorization kernels called by compiled code: `det`, `logdet`, `inv`, `A \ B`, the lower
//! Cholesky factor, `tril` and `triu` of Float64 matrices. They call the interpreter's own
//! kernels (`zy_interp::factor`, faer's blocked LU, Cholesky and triangular solves) on the
//! arrays in place, so both engines compute the same bits. A call that would raise an error
//! (a matrix that is not square, singular, not positive definite, a negative determinant,
//! sizes that differ) returns its failure value and does nothing else; compiled code then runs
//! the primitive by the interpreter's code, which raises Julia's error.

use zy_interp::factor;

use super::{ArrayObj, Ctx};

/// The order and the Float64 elements of a square matrix, or `None` for another shape.
///
/// # Safety
/// `a` must be a live Float64 array.
unsafe fn square<'a>(a: *const ArrayObj) -> Option<(usize, &'a [f64])> {
    let ao = unsafe { &*a };
    let (m, n) = (ao.rows.max(0) as usize, ao.cols.max(0) as usize);
    if m != n || ao.len.max(0) as usize != n * n {
        return None;
    }
    // SAFETY: the array holds `n·n` Float64 elements.
    Some((n, unsafe {
        std::slice::from_raw_parts(ao.data.cast::<f64>(), n * n)
    }))
}

/// A new Float64 array of `rows × cols` whose elements the caller writes.
///
/// # Safety
/// `ctx` must be the live context.
unsafe fn new_f64_array(ctx: *mut Ctx, rows: usize, cols: usize) -> *mut ArrayObj {
    let ctx = unsafe { &mut *ctx };
    let out = ctx
        .state
        .arena
        .new_array_uninit(rows as i64, cols as i64, 8);
    ctx.check_memory();
    out
}

/// A new Float64 array of `rows × cols` holding `xs`.
///
/// # Safety
/// `ctx` must be the live context; `xs.len()` must be `rows · cols`.
unsafe fn array_of(ctx: *mut Ctx, rows: usize, cols: usize, xs: &[f64]) -> *mut ArrayObj {
    let out = unsafe { new_f64_array(ctx, rows, cols) };
    // SAFETY: `out` holds `rows · cols` Float64 elements, a fresh block apart from `xs`.
    unsafe {
        std::ptr::copy_nonoverlapping(xs.as_ptr(), (*out).data.cast::<f64>(), xs.len());
    }
    out
}

/// `det(a)` into `*out`; returns 1 (and writes nothing) when `a` is not square.
///
/// # Safety
/// `a` must be a live Float64 matrix, `out` writable.
pub unsafe extern "C" fn zy_rt_det(a: *const ArrayObj, out: *mut f64) -> i8 {
    let Some((n, x)) = (unsafe { square(a) }) else {
        return 1;
    };
    unsafe { *out = factor::det_f64(n, x) };
    0
}

/// `logdet(a)` into `*out`; returns 1 (and writes nothing) when `a` is not square or its
/// determinant is negative.
///
/// # Safety
/// `a` must be a live Float64 matrix, `out` writable.
pub unsafe extern "C" fn zy_rt_logdet(a: *const ArrayObj, out: *mut f64) -> i8 {
    let Some((n, x)) = (unsafe { square(a) }) else {
        return 1;
    };
    match factor::logdet_f64(n, x) {
        Ok(y) => {
            unsafe { *out = y };
            0
        }
        Err(_) => 1,
    }
}

/// `inv(a)`: a new matrix, or null when `a` is not square or singular.
///
/// # Safety
/// `ctx` must be the live context; `a` a live Float64 matrix.
pub unsafe extern "C" fn zy_rt_inv(ctx: *mut Ctx, a: *const ArrayObj) -> *mut ArrayObj {
    let Some((n, x)) = (unsafe { square(a) }) else {
        return std::ptr::null_mut();
    };
    match factor::inv_f64(n, x) {
        Ok(y) => unsafe { array_of(ctx, n, n, &y) },
        Err(_) => std::ptr::null_mut(),
    }
}

/// `a \ b` of a square matrix `a` and a Float64 vector or matrix `b`: a new array of `b`'s
/// shape, or null when `a` is not square or singular or the sizes differ.
///
/// # Safety
/// `ctx` must be the live context; `a` a live Float64 matrix, `b` a live Float64 array.
pub unsafe extern "C" fn zy_rt_solve(
    ctx: *mut Ctx,
    a: *const ArrayObj,
    b: *const ArrayObj,
) -> *mut ArrayObj {
    let Some((n, x)) = (unsafe { square(a) }) else {
        return std::ptr::null_mut();
    };
    let bo = unsafe { &*b };
    let (rows, cols) = (bo.rows.max(0) as usize, bo.cols.max(0) as usize);
    if rows != n || bo.len.max(0) as usize != rows * cols {
        return std::ptr::null_mut();
    }
    let out = unsafe { new_f64_array(ctx, rows, cols) };
    // SAFETY: `b` and the fresh `out` hold `rows · cols` Float64 elements each; the right-hand
    // side is copied into `out` and solved there.
    let y = unsafe {
        std::ptr::copy_nonoverlapping(
            bo.data.cast::<f64>(),
            (*out).data.cast::<f64>(),
            rows * cols,
        );
        std::slice::from_raw_parts_mut((*out).data.cast::<f64>(), rows * cols)
    };
    match factor::solve_f64(n, x, y) {
        Ok(()) => out,
        Err(_) => std::ptr::null_mut(),
    }
}

/// The lower Cholesky factor of `a`: a new matrix, or null when `a` is not square, not
/// symmetric or not positive definite.
///
/// # Safety
/// `ctx` must be the live context; `a` a live Float64 matrix.
pub unsafe extern "C" fn zy_rt_cholesky_lower(ctx: *mut Ctx, a: *const ArrayObj) -> *mut ArrayObj {
    let Some((n, x)) = (unsafe { square(a) }) else {
        return std::ptr::null_mut();
    };
    let out = unsafe { new_f64_array(ctx, n, n) };
    // SAFETY: the fresh `out` holds `n · n` Float64 elements.
    let l = unsafe { std::slice::from_raw_parts_mut((*out).data.cast::<f64>(), n * n) };
    match factor::cholesky_lower_into(n, x, l) {
        Ok(()) => out,
        Err(_) => std::ptr::null_mut(),
    }
}

/// `tril(a, k)` (`upper` zero) or `triu(a, k)` of a Float64 matrix: a new matrix keeping the
/// entries `(i, j)` with `j - i <= k` (or `>= k`), zeros elsewhere.
///
/// # Safety
/// `ctx` must be the live context; `a` a live Float64 matrix.
pub unsafe extern "C" fn zy_rt_band(
    ctx: *mut Ctx,
    a: *const ArrayObj,
    k: i64,
    upper: i8,
) -> *mut ArrayObj {
    let ao = unsafe { &*a };
    let (m, n) = (ao.rows.max(0) as usize, ao.cols.max(0) as usize);
    let ctx = unsafe { &mut *ctx };
    let out = ctx.state.arena.new_array_uninit(m as i64, n as i64, 8);
    ctx.check_memory();
    // SAFETY: both hold `m · n` Float64 elements; `out` is a fresh block, every element of
    // which is written below.
    let (x, y) = unsafe {
        (
            std::slice::from_raw_parts(ao.data.cast::<f64>(), m * n),
            std::slice::from_raw_parts_mut((*out).data.cast::<f64>(), m * n),
        )
    };
    for j in 0..n {
        // Rows kept in column j: i >= j - k (tril) or i <= j - k (triu), clamped to 0..m.
        let edge = (j as i64).saturating_sub(k);
        let (lo, hi) = if upper != 0 {
            (0, edge.saturating_add(1).clamp(0, m as i64) as usize)
        } else {
            (edge.clamp(0, m as i64) as usize, m)
        };
        let (col, src) = (&mut y[j * m..(j + 1) * m], &x[j * m..(j + 1) * m]);
        col[..lo].fill(0.0);
        col[lo..hi].copy_from_slice(&src[lo..hi]);
        col[hi..].fill(0.0);
    }
    out
}

/// The kernels' symbols.
pub fn symbols() -> Vec<(&'static str, *const u8)> {
    vec![
        ("zy_rt_det", zy_rt_det as *const u8),
        ("zy_rt_logdet", zy_rt_logdet as *const u8),
        ("zy_rt_inv", zy_rt_inv as *const u8),
        ("zy_rt_solve", zy_rt_solve as *const u8),
        ("zy_rt_cholesky_lower", zy_rt_cholesky_lower as *const u8),
        ("zy_rt_band", zy_rt_band as *const u8),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A context for calling the kernels outside compiled code.
    fn ctx() -> Box<Ctx> {
        Box::new(Ctx::new(&zy_interp::Limits::default(), 0))
    }

    /// A new `rows × cols` Float64 array of `xs` in `ctx`'s arena.
    fn array(ctx: &mut Ctx, rows: usize, cols: usize, xs: &[f64]) -> *mut ArrayObj {
        unsafe { array_of(ctx, rows, cols, xs) }
    }

    fn elems(a: *const ArrayObj) -> Vec<f64> {
        let a = unsafe { &*a };
        unsafe { std::slice::from_raw_parts(a.data.cast::<f64>(), a.len as usize) }.to_vec()
    }

    #[test]
    fn bands_keep_julias_diagonals_for_any_offset() {
        let mut c = ctx();
        // [1 3 5; 2 4 6] column-major.
        let a = array(&mut c, 2, 3, &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
        let band = |c: &mut Ctx, k: i64, upper: i8| elems(unsafe { zy_rt_band(c, a, k, upper) });
        assert_eq!(band(&mut c, 0, 0), [1.0, 2.0, 0.0, 4.0, 0.0, 0.0]);
        assert_eq!(band(&mut c, 1, 0), [1.0, 2.0, 3.0, 4.0, 0.0, 6.0]);
        assert_eq!(band(&mut c, -1, 0), [0.0, 2.0, 0.0, 0.0, 0.0, 0.0]);
        assert_eq!(band(&mut c, 0, 1), [1.0, 0.0, 3.0, 4.0, 5.0, 6.0]);
        assert_eq!(band(&mut c, 2, 1), [0.0, 0.0, 0.0, 0.0, 5.0, 0.0]);
        assert_eq!(band(&mut c, i64::MIN, 0), [0.0; 6]);
        assert_eq!(band(&mut c, i64::MIN, 1), [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
        assert_eq!(band(&mut c, i64::MAX, 0), [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
        assert_eq!(band(&mut c, i64::MAX, 1), [0.0; 6]);
    }

    #[test]
    fn failures_return_nothing_for_the_interpreter_to_raise() {
        let mut c = ctx();
        let wide = array(&mut c, 2, 3, &[1.0; 6]);
        let singular = array(&mut c, 2, 2, &[1.0, 2.0, 2.0, 4.0]);
        let negative = array(&mut c, 2, 2, &[1.0, 3.0, 2.0, 4.0]);
        let b = array(&mut c, 3, 1, &[1.0; 3]);
        let mut y = 7.0;
        unsafe {
            assert_eq!(zy_rt_det(wide, &mut y), 1);
            assert_eq!(zy_rt_logdet(negative, &mut y), 1);
            assert_eq!(y, 7.0);
            assert!(zy_rt_inv(&mut *c, singular).is_null());
            assert!(zy_rt_solve(&mut *c, singular, b).is_null());
            assert!(zy_rt_cholesky_lower(&mut *c, negative).is_null());
            assert_eq!(zy_rt_det(negative, &mut y), 0);
        }
        assert!((y + 2.0).abs() < 1e-14);
    }
}
