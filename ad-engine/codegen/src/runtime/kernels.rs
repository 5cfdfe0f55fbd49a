//! Array kernels called by compiled code, computing in exactly the interpreter's order so
//! results agree bit for bit: sums by the interpreter's own `sum_f64`, left folds for dot
//! products and for each entry of a matrix-vector or outer product (accumulated column by
//! column, which keeps each entry's order and lets the compiler vectorise across rows), and
//! the interpreter's own `matrixmultiply` call for products of matrices.

use super::{ArrayObj, Ctx};

/// The Float64 elements of an array.
///
/// # Safety
/// `a` must be a live Float64 array.
unsafe fn elems<'a>(a: *const ArrayObj) -> &'a [f64] {
    let a = unsafe { &*a };
    // SAFETY: the array holds `len` Float64 elements.
    unsafe { std::slice::from_raw_parts(a.data.cast::<f64>(), a.len.max(0) as usize) }
}

/// `sum(a)` of a Float64 array.
///
/// # Safety
/// `a` must be a live Float64 array.
pub unsafe extern "C" fn zy_rt_sum(a: *const ArrayObj) -> f64 {
    zy_interp::sum_f64(unsafe { elems(a) })
}

/// The sum of `n` elements from the sums of their blocks at `sums`, in order (a fused `sum`
/// of a chain computes its elements block by block: see `fuse::ChainOut::Sum`).
///
/// # Safety
/// `sums` must point to one Float64 per block of `n` elements.
pub unsafe extern "C" fn zy_rt_sum_blocks(n: i64, sums: *const f64, blocks: i64) -> f64 {
    let n = n.max(0) as usize;
    // SAFETY: the caller wrote `blocks` sums.
    let sums = unsafe { std::slice::from_raw_parts(sums, blocks.max(0) as usize) };
    zy_interp::sum_blocks(n, sums)
}

/// `maximum(a)` (`is_max` nonzero) or `minimum(a)` of a non-empty Float64 array (the
/// interpreter's own reduction).
///
/// # Safety
/// `a` must be a live, non-empty Float64 array.
pub unsafe extern "C" fn zy_rt_extremum(a: *const ArrayObj, is_max: i8) -> f64 {
    zy_interp::extremum_f64(unsafe { elems(a) }, is_max != 0).unwrap_or(f64::NAN)
}

/// The 1-based index of `findmax(a)` (`is_max` nonzero) or `findmin(a)` of a non-empty
/// Float64 array (the interpreter's own search).
///
/// # Safety
/// `a` must be a live Float64 array.
pub unsafe extern "C" fn zy_rt_find_extremum(a: *const ArrayObj, is_max: i8) -> i64 {
    let xs = unsafe { elems(a) };
    zy_interp::extremum_index(xs, is_max != 0).map_or(0, |i| i as i64 + 1)
}

/// `dot(a, b)` of two Float64 arrays of one length.
///
/// # Safety
/// Both must be live Float64 arrays of equal length.
pub unsafe extern "C" fn zy_rt_dot(a: *const ArrayObj, b: *const ArrayObj) -> f64 {
    let (x, y) = unsafe { (elems(a), elems(b)) };
    x.iter().zip(y).fold(0.0, |s, (p, q)| s + p * q)
}

/// The shape of a product operand by kind: 0 a vector (a column), 1 a matrix, 2 a row.
fn dims(a: &ArrayObj, kind: i64) -> (usize, usize) {
    let len = a.len.max(0) as usize;
    match kind {
        0 => (len, 1),
        2 => (1, len),
        _ => (a.rows.max(0) as usize, a.cols.max(0) as usize),
    }
}

/// `a * b` for Float64 operands of the given kinds (see [`dims`]): a new array of the result's
/// shape, or null when the inner dimensions differ (the interpreter then raises the error).
///
/// # Safety
/// `ctx` must be the live context; `a` and `b` live Float64 arrays.
pub unsafe extern "C" fn zy_rt_matmul(
    ctx: *mut Ctx,
    a: *const ArrayObj,
    a_kind: i64,
    b: *const ArrayObj,
    b_kind: i64,
) -> *mut ArrayObj {
    let ctx = unsafe { &mut *ctx };
    let (ao, bo) = unsafe { (&*a, &*b) };
    let ((m, k), (k2, n)) = (dims(ao, a_kind), dims(bo, b_kind));
    if k != k2 {
        return std::ptr::null_mut();
    }
    let (rows, cols) = match (a_kind, b_kind) {
        (1, 0) => (m as i64, 1),
        (2, 1) => (1, n as i64),
        _ => (m as i64, n as i64),
    };
    let blocked = zy_interp::is_blocked(m, k, n);
    // The blocked kernel writes every entry (its beta is zero); the columns below add into
    // zeros.
    let out = if blocked {
        ctx.state.arena.new_array_uninit(rows, cols, 8)
    } else {
        ctx.state.arena.new_array(rows, cols, 8)
    };
    ctx.check_memory();
    let (x, y) = unsafe { (elems(a), elems(b)) };
    // SAFETY: `out` holds m·n Float64 elements.
    let c = unsafe { std::slice::from_raw_parts_mut((*out).data.cast::<f64>(), m * n) };
    if blocked {
        // A product of matrices: the interpreter's own blocked kernel.
        // Compiled code polls its deadline on back edges, not inside a kernel.
        let _ = zy_interp::gemm_f64(m, k, n, x, y, c, || Ok(()));
        return out;
    }
    for j in 0..n {
        accumulate_columns(&mut c[j * m..(j + 1) * m], x, &y[j * k..(j + 1) * k]);
    }
    out
}

/// `col += a * w` for the `m × k` column-major matrix `a` (`m = col.len()`): each entry adds
/// its `k` products one after another, in column order. Four columns are taken per pass over
/// `col`, so it is loaded and stored once per four products instead of once per product (the
/// sums, and so the bits, are the same).
fn accumulate_columns(col: &mut [f64], a: &[f64], w: &[f64]) {
    let m = col.len();
    let mut quads = w.chunks_exact(4);
    let mut l = 0;
    for q in quads.by_ref() {
        let (a0, a1, a2, a3) = (
            &a[l * m..(l + 1) * m],
            &a[(l + 1) * m..(l + 2) * m],
            &a[(l + 2) * m..(l + 3) * m],
            &a[(l + 3) * m..(l + 4) * m],
        );
        for i in 0..m {
            col[i] = col[i] + a0[i] * q[0] + a1[i] * q[1] + a2[i] * q[2] + a3[i] * q[3];
        }
        l += 4;
    }
    for &wl in quads.remainder() {
        for (ci, ai) in col.iter_mut().zip(&a[l * m..(l + 1) * m]) {
            *ci += ai * wl;
        }
        l += 1;
    }
}

/// `a + b` for Float64 arrays of one shape: a new array, or null when the shapes differ.
///
/// # Safety
/// `ctx` must be the live context; `a` and `b` live Float64 arrays.
pub unsafe extern "C" fn zy_rt_add_arrays(
    ctx: *mut Ctx,
    a: *const ArrayObj,
    b: *const ArrayObj,
) -> *mut ArrayObj {
    let ctx = unsafe { &mut *ctx };
    let (ao, bo) = unsafe { (&*a, &*b) };
    if !ao.same_shape(bo) {
        return std::ptr::null_mut();
    }
    let out = ctx.state.arena.new_array_like(ao, 8);
    ctx.check_memory();
    let (x, y) = unsafe { (elems(a), elems(b)) };
    // SAFETY: `out` holds as many Float64 elements as `a`.
    let c = unsafe { std::slice::from_raw_parts_mut((*out).data.cast::<f64>(), x.len()) };
    for ((c, x), y) in c.iter_mut().zip(x).zip(y) {
        *c = x + y;
    }
    out
}

/// `transpose(a) * y` for a Float64 matrix `a` (k × n) and vector `y` (length k), without
/// making the transpose: entry `i` is the dot product of column `i` of `a` with `y`, summed in
/// the order the product of the materialised transpose sums it. Null when `k` differs from
/// `y`'s length.
///
/// # Safety
/// `ctx` must be the live context; `a` a live Float64 matrix, `y` a live Float64 vector.
pub unsafe extern "C" fn zy_rt_matmul_tn(
    ctx: *mut Ctx,
    a: *const ArrayObj,
    y: *const ArrayObj,
) -> *mut ArrayObj {
    let ctx = unsafe { &mut *ctx };
    let (ao, yo) = unsafe { (&*a, &*y) };
    let (k, n) = (ao.rows.max(0) as usize, ao.cols.max(0) as usize);
    if yo.len.max(0) as usize != k {
        return std::ptr::null_mut();
    }
    let out = ctx.state.arena.new_array_uninit(n as i64, 1, 8);
    ctx.check_memory();
    let (x, v) = unsafe { (elems(a), elems(y)) };
    // SAFETY: `out` holds n Float64 elements.
    let c = unsafe { std::slice::from_raw_parts_mut((*out).data.cast::<f64>(), n) };
    // Eight entries at a time: eight independent running sums, each in its own column's
    // order, so the additions overlap instead of waiting for one another.
    let mut blocks = c.chunks_exact_mut(8);
    let mut i = 0;
    for block in blocks.by_ref() {
        let cols: [&[f64]; 8] = std::array::from_fn(|b| &x[(i + b) * k..(i + b + 1) * k]);
        let mut acc = [0.0f64; 8];
        for (l, vl) in v.iter().enumerate() {
            for b in 0..8 {
                acc[b] += cols[b][l] * vl;
            }
        }
        block.copy_from_slice(&acc);
        i += 8;
    }
    for ci in blocks.into_remainder() {
        let col = &x[i * k..(i + 1) * k];
        *ci = col.iter().zip(v).fold(0.0, |s, (p, q)| s + p * q);
        i += 1;
    }
    out
}

/// The shape of `op(o)` for a Float64 matrix `o`: its own, or for a nonzero `t` its transpose's.
fn op_shape(o: &ArrayObj, t: i8) -> (usize, usize) {
    let (r, c) = (o.rows.max(0) as usize, o.cols.max(0) as usize);
    if t != 0 {
        (c, r)
    } else {
        (r, c)
    }
}

/// `op(a) * op(b)` for Float64 matrices `a` and `b`, `op(x)` being `x` or, for a nonzero flag,
/// its transpose read through swapped strides (`A' * B`, and the pullback's `Ȳ Bᵀ`, `Aᵀ Ȳ`)
/// without making it: a new matrix with the bits of the product of the copied transpose.
/// Null when the inner dimensions differ or the product is not one that the blocked kernel
/// computes (a dimension of one); the caller then makes the transpose.
///
/// # Safety
/// `ctx` must be the live context; `a` and `b` live Float64 matrices.
pub unsafe extern "C" fn zy_rt_matmul_op(
    ctx: *mut Ctx,
    a: *const ArrayObj,
    ta: i8,
    b: *const ArrayObj,
    tb: i8,
) -> *mut ArrayObj {
    let ctx = unsafe { &mut *ctx };
    let (ao, bo) = unsafe { (&*a, &*b) };
    let ((m, k), (k2, n)) = (op_shape(ao, ta), op_shape(bo, tb));
    if k != k2 || !zy_interp::is_blocked(m, k, n) {
        return std::ptr::null_mut();
    }
    let out = ctx.state.arena.new_array_uninit(m as i64, n as i64, 8);
    ctx.check_memory();
    let (x, y) = unsafe { (elems(a), elems(b)) };
    // SAFETY: `out` holds m·n Float64 elements (the kernel writes each, its beta being zero).
    let c = unsafe { std::slice::from_raw_parts_mut((*out).data.cast::<f64>(), m * n) };
    // Compiled code polls its deadline on back edges, not inside a kernel.
    let _ = zy_interp::gemm_f64_op(m, k, n, (x, ta != 0), (y, tb != 0), c, || Ok(()));
    out
}

/// `accum!(dst, op(a) * op(b))` of Float64 matrices (`op` as in [`zy_rt_matmul_op`]) without
/// making the product: the blocked kernel adds each entry into `dst` as it finishes it, the bits
/// of adding the made product (`zy_interp::gemm_f64_add`); a `fresh` destination, unread and
/// not yet zeroed, gets the product and then `0.0 + p`, what adding into zeros gives. Returns 1
/// (and does nothing) when the product is not one the blocked kernel computes, is deeper than
/// one of its blocks, has another shape than `dst`, or `dst` is one of its factors.
///
/// # Safety
/// `dst`, `a` and `b` must be live Float64 matrices.
pub unsafe extern "C" fn zy_rt_matmul_accum(
    dst: *mut ArrayObj,
    a: *const ArrayObj,
    ta: i8,
    b: *const ArrayObj,
    tb: i8,
    fresh: i8,
) -> i8 {
    let (d, ao, bo) = unsafe { (&*dst, &*a, &*b) };
    let ((m, k), (k2, n)) = (op_shape(ao, ta), op_shape(bo, tb));
    let fits = d.rows.max(0) as usize == m
        && d.cols.max(0) as usize == n
        && d.len.max(0) as usize == m * n
        && d.shape.is_null();
    if k != k2
        || !fits
        || !zy_interp::is_blocked(m, k, n)
        || k > zy_interp::GEMM_DEPTH_BLOCK
        || std::ptr::eq(d.data, ao.data)
        || std::ptr::eq(d.data, bo.data)
    {
        return 1;
    }
    let (x, y) = unsafe { (elems(a), elems(b)) };
    // SAFETY: `dst` holds m·n Float64 elements, a block apart from its factors' (checked).
    let c = unsafe { std::slice::from_raw_parts_mut(d.data.cast::<f64>(), m * n) };
    let (x, y) = ((x, ta != 0), (y, tb != 0));
    if fresh != 0 {
        let _ = zy_interp::gemm_f64_op(m, k, n, x, y, c, || Ok(()));
        c.iter_mut().for_each(|p| *p = 0.0 + *p);
    } else {
        zy_interp::gemm_f64_add(m, k, n, x, y, c);
    }
    0
}

/// `accum!(dst, u * v')`: adds the outer product of Float64 vector `u` and row `v` into the
/// Float64 matrix `dst` without making the product (each entry adds `0.0 + u[i] * v[j]`, the
/// product's entry as the matrix product computes it; a `fresh` destination, unread and not
/// yet zeroed, gets `0.0 + (0.0 + u[i] * v[j])`, what adding into zeros gives). Returns 1
/// (and does nothing) when the shapes differ.
///
/// # Safety
/// `dst` must be a live Float64 array, `u` and `v` live Float64 arrays.
pub unsafe extern "C" fn zy_rt_accum_outer(
    dst: *mut ArrayObj,
    u: *const ArrayObj,
    v: *const ArrayObj,
    fresh: i8,
) -> i8 {
    let (d, uo, vo) = unsafe { (&*dst, &*u, &*v) };
    let (m, n) = (uo.len.max(0) as usize, vo.len.max(0) as usize);
    if d.rows.max(0) as usize != m || d.cols.max(0) as usize != n || d.len.max(0) as usize != m * n
    {
        return 1;
    }
    let (x, y) = unsafe { (elems(u), elems(v)) };
    // SAFETY: `dst` holds m·n Float64 elements; a fresh product never aliases its factors, and
    // the caller checked `dst` is not one of them.
    let c = unsafe { std::slice::from_raw_parts_mut(d.data.cast::<f64>(), m * n) };
    for (col, yj) in c.chunks_exact_mut(m.max(1)).zip(y) {
        if fresh != 0 {
            for (ci, xi) in col.iter_mut().zip(x) {
                *ci = 0.0 + (0.0 + xi * yj);
            }
        } else {
            for (ci, xi) in col.iter_mut().zip(x) {
                *ci += 0.0 + xi * yj;
            }
        }
    }
    0
}

/// The transpose of a Float64 matrix: a new `cols × rows` matrix.
///
/// # Safety
/// `ctx` must be the live context; `a` a live Float64 matrix.
pub unsafe extern "C" fn zy_rt_transpose(ctx: *mut Ctx, a: *const ArrayObj) -> *mut ArrayObj {
    let ctx = unsafe { &mut *ctx };
    let ao = unsafe { &*a };
    let (m, n) = (ao.rows.max(0) as usize, ao.cols.max(0) as usize);
    let out = ctx.state.arena.new_array_uninit(n as i64, m as i64, 8);
    ctx.check_memory();
    let x = unsafe { elems(a) };
    // SAFETY: `out` holds m·n Float64 elements.
    let c = unsafe { std::slice::from_raw_parts_mut((*out).data.cast::<f64>(), m * n) };
    transpose_into(m, n, x, c);
    out
}

/// `accum!(dst, transpose(src))` of Float64 matrices without making the transpose: each entry
/// of `dst` adds its entry of `srcᵀ` (a `fresh` destination, unread and not yet zeroed, gets
/// `0.0 + x`, what adding into zeros gives). Returns 1 (and does nothing) when the shapes differ
/// or `dst` is `src` (whose transpose must be read before it changes).
///
/// # Safety
/// `dst` and `src` must be live Float64 matrices.
pub unsafe extern "C" fn zy_rt_accum_transposed(
    dst: *mut ArrayObj,
    src: *const ArrayObj,
    fresh: i8,
) -> i8 {
    let (d, so) = unsafe { (&*dst, &*src) };
    let (m, n) = (so.rows.max(0) as usize, so.cols.max(0) as usize);
    if d.rows.max(0) as usize != n
        || d.cols.max(0) as usize != m
        || d.len.max(0) as usize != m * n
        || so.len.max(0) as usize != m * n
        || !d.shape.is_null()
        || std::ptr::eq(d.data, so.data)
    {
        return 1;
    }
    let x = unsafe { elems(src) };
    // SAFETY: `dst` holds m·n Float64 elements, a block apart from `src`'s (checked).
    let c = unsafe { std::slice::from_raw_parts_mut(d.data.cast::<f64>(), m * n) };
    if fresh != 0 {
        transpose_with(m, n, x, c, |d, s| *d = 0.0 + s);
    } else {
        transpose_with(m, n, x, c, |d, s| *d += s);
    }
    0
}

/// The side of the transpose's tiles: eight columns of the source, whose entries of one row
/// are one contiguous run of the destination.
const TILE: usize = 8;

/// `c = xᵀ` for the column-major `m × n` matrix `x`.
fn transpose_into(m: usize, n: usize, x: &[f64], c: &mut [f64]) {
    transpose_with(m, n, x, c, |d, s| *d = s);
}

/// `put(c[j, i], x[i, j])` for every entry of the column-major `m × n` matrix `x` and the
/// `n × m` matrix `c`, by tiles of eight rows and columns, `c` written in runs of eight (a third
/// faster than the plain loop at 200 × 200).
fn transpose_with(m: usize, n: usize, x: &[f64], c: &mut [f64], put: impl Fn(&mut f64, f64)) {
    for i0 in (0..m).step_by(TILE) {
        let i1 = (i0 + TILE).min(m);
        for j0 in (0..n).step_by(TILE) {
            let j1 = (j0 + TILE).min(n);
            for i in i0..i1 {
                for (dj, d) in c[i * n + j0..i * n + j1].iter_mut().enumerate() {
                    put(d, x[(j0 + dj) * m + i]);
                }
            }
        }
    }
}

/// Copy the elements of Float64 array `src` into `dst` (of the same length).
///
/// # Safety
/// Both must be live Float64 arrays of equal length.
pub unsafe extern "C" fn zy_rt_copy_elems(dst: *mut ArrayObj, src: *const ArrayObj) {
    let (d, s) = unsafe { (&*dst, &*src) };
    let n = d.len.min(s.len).max(0) as usize;
    // SAFETY: both hold at least `n` elements; a fresh `dst` never overlaps `src`.
    unsafe { std::ptr::copy_nonoverlapping(s.data.cast::<f64>(), d.data.cast::<f64>(), n) };
}

/// A new zero-filled `rows × cols` array of `elem_size`-byte elements.
///
/// # Safety
/// `ctx` must be the live context.
pub unsafe extern "C" fn zy_rt_array_new(
    ctx: *mut Ctx,
    rows: i64,
    cols: i64,
    elem_size: i64,
) -> *mut ArrayObj {
    unsafe { array_new(ctx, rows, cols, elem_size, true) }
}

/// A new `rows × cols` array of `elem_size`-byte elements whose contents are left as they are:
/// the caller writes every element before anything reads one.
///
/// # Safety
/// `ctx` must be the live context.
pub unsafe extern "C" fn zy_rt_array_new_uninit(
    ctx: *mut Ctx,
    rows: i64,
    cols: i64,
    elem_size: i64,
) -> *mut ArrayObj {
    unsafe { array_new(ctx, rows, cols, elem_size, false) }
}

/// A new array in the call's arena, `zeroed` or not, then the memory limit checked.
///
/// # Safety
/// `ctx` must be the live context.
unsafe fn array_new(
    ctx: *mut Ctx,
    rows: i64,
    cols: i64,
    elem_size: i64,
    zeroed: bool,
) -> *mut ArrayObj {
    let ctx = unsafe { &mut *ctx };
    let arena = &mut ctx.state.arena;
    let (rows, cols, size) = (rows.max(0), cols.max(0), elem_size.max(1) as usize);
    let out = if zeroed {
        arena.new_array(rows, cols, size)
    } else {
        arena.new_array_uninit(rows, cols, size)
    };
    ctx.check_memory();
    out
}

/// `setlength!(v, n, tail)` (`tail` null for none): the vector `v` made `n` long in place, new
/// elements copied from `tail` or zero; returns a new vector of the removed elements, or null
/// when `n` is negative or `tail` does not hold exactly the added elements (the caller raises
/// the interpreter's error). Growing past the capacity moves the elements into a block twice
/// as large, so a loop of `push!`es copies each element a constant number of times.
///
/// # Safety
/// `ctx` must be the live context, `v` a live vector of `elem_size`-byte elements, `tail`
/// null or a live vector of the same element type.
pub unsafe extern "C" fn zy_rt_setlength(
    ctx: *mut Ctx,
    v: *mut ArrayObj,
    n: i64,
    tail: *const ArrayObj,
    elem_size: i64,
) -> *mut ArrayObj {
    let (old, size) = unsafe { ((*v).len.max(0), elem_size.max(1) as usize) };
    let added = (n - old).max(0);
    if n < 0 || (!tail.is_null() && unsafe { (*tail).len } != added) {
        return std::ptr::null_mut();
    }
    let removed_len = (old - n).max(0);
    let removed = unsafe { array_new(ctx, removed_len, 1, size as i64, false) };
    let ctx = unsafe { &mut *ctx };
    // SAFETY: `v` holds `old` elements and `removed` room for `removed_len`; `tail` holds
    // `added`; a grown block has room for `n`; blocks are distinct arena allocations (a tail
    // that is `v` itself is read before `v`'s elements move or change).
    unsafe {
        let obj = &mut *v;
        std::ptr::copy_nonoverlapping(
            obj.data.add(n.min(old) as usize * size),
            (*removed).data,
            removed_len as usize * size,
        );
        let tail_copy: Option<Vec<u8>> = (!tail.is_null())
            .then(|| std::slice::from_raw_parts((*tail).data, added as usize * size).to_vec());
        if n > obj.cap {
            let cap = n.max(2 * obj.cap).max(4);
            let block = ctx
                .state
                .arena
                .alloc_words((cap as usize * size).div_ceil(8))
                .cast::<u8>();
            std::ptr::copy_nonoverlapping(obj.data, block, old as usize * size);
            obj.data = block;
            obj.cap = cap;
            ctx.check_memory();
        }
        let fresh = obj.data.add(old as usize * size);
        match tail_copy {
            Some(t) => std::ptr::copy_nonoverlapping(t.as_ptr(), fresh, t.len()),
            None => std::ptr::write_bytes(fresh, 0, added as usize * size),
        }
        obj.len = n;
        obj.rows = n;
        obj.cols = 1;
    }
    removed
}

/// The kernels' symbols.
pub fn symbols() -> Vec<(&'static str, *const u8)> {
    vec![
        ("zy_rt_sum", zy_rt_sum as *const u8),
        ("zy_rt_sum_blocks", zy_rt_sum_blocks as *const u8),
        ("zy_rt_extremum", zy_rt_extremum as *const u8),
        ("zy_rt_find_extremum", zy_rt_find_extremum as *const u8),
        ("zy_rt_dot", zy_rt_dot as *const u8),
        ("zy_rt_matmul", zy_rt_matmul as *const u8),
        ("zy_rt_array_new", zy_rt_array_new as *const u8),
        (
            "zy_rt_array_new_uninit",
            zy_rt_array_new_uninit as *const u8,
        ),
        ("zy_rt_add_arrays", zy_rt_add_arrays as *const u8),
        ("zy_rt_copy_elems", zy_rt_copy_elems as *const u8),
        ("zy_rt_transpose", zy_rt_transpose as *const u8),
        ("zy_rt_matmul_tn", zy_rt_matmul_tn as *const u8),
        ("zy_rt_matmul_op", zy_rt_matmul_op as *const u8),
        ("zy_rt_matmul_accum", zy_rt_matmul_accum as *const u8),
        (
            "zy_rt_accum_transposed",
            zy_rt_accum_transposed as *const u8,
        ),
        ("zy_rt_accum_outer", zy_rt_accum_outer as *const u8),
        ("zy_rt_setlength", zy_rt_setlength as *const u8),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tiled_transpose_moves_every_entry() {
        for (m, n) in [(0, 3), (1, 1), (3, 70), (33, 65), (64, 64)] {
            let x: Vec<f64> = (0..m * n).map(|k| k as f64).collect();
            let mut c = vec![-1.0; m * n];
            transpose_into(m, n, &x, &mut c);
            for j in 0..n {
                for i in 0..m {
                    assert_eq!(c[i * n + j], x[j * m + i], "{m}×{n} at ({i}, {j})");
                }
            }
        }
    }
}
