//! Linear algebra: array `+`/`-`, scaling, products of every shape pair, `dot`, transposes.
//! Sums run in index order starting from zero (as a straightforward BLAS kernel does).

use std::cell::RefCell;
use std::rc::Rc;

use zy_ir::{Prim, Type};

use super::array::view;
use super::{eval_prim, method_error};
use crate::interrupt;
use crate::value::{Array, ArrayData, ElemType, Shape, Value};

/// What an operand of a product is.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Vector,
    Matrix,
    Row,
}

fn kind(v: &Value) -> Option<Kind> {
    match v {
        Value::Array(a) => Some(match a.borrow().shape {
            Shape::Vector(_) => Kind::Vector,
            Shape::Matrix(..) => Kind::Matrix,
            Shape::Nd(_) => return None,
        }),
        Value::Adjoint(_) => Some(Kind::Row),
        _ => None,
    }
}

/// Julia's `axes` text for a shape, as in `DimensionMismatch` messages.
fn axes_text(s: Shape) -> String {
    match s {
        Shape::Vector(n) => format!("(Base.OneTo({n}),)"),
        s => {
            let axes: Vec<String> = s
                .dims()
                .iter()
                .map(|n| format!("Base.OneTo({n})"))
                .collect();
            format!("({})", axes.join(", "))
        }
    }
}

/// `check_axes(a, b)`: Julia's `DimensionMismatch` of `a + b` unless the arrays have one shape.
pub fn check_axes(a: &Value, b: &Value) -> Result<Value, String> {
    let (Some((sa, _)), Some((sb, _))) = (view(a), view(b)) else {
        return Err(method_error("+", &[a.clone(), b.clone()]));
    };
    if sa == sb {
        return Ok(Value::Nothing);
    }
    let (da, db) = (sa.dims(), sb.dims());
    let at = (0..da.len().max(db.len()))
        .find(|&d| da.get(d).unwrap_or(&1) != db.get(d).unwrap_or(&1))
        .map_or(1, |d| d + 1);
    Err(format!(
        "DimensionMismatch: dimensions must match: a has dims {}, b has dims {}, mismatch at {at}",
        axes_text(sa),
        axes_text(sb)
    ))
}

/// Arithmetic with an array operand: `A + B`, `A - B` (same shape), `c * A`, `A * c`, `A / c`,
/// and array products.
pub fn array_arith(p: Prim, a: &Value, b: &Value) -> Result<Value, String> {
    match p {
        Prim::Add | Prim::Sub if kind(a).is_some() && kind(b).is_some() => {
            if view(a).is_none() || view(b).is_none() {
                return Err(method_error(p.julia_name(), &[a.clone(), b.clone()]));
            }
            check_axes(a, b)?;
            broadcast_scalar(p, &[a.clone(), b.clone()])
        }
        Prim::Mul if kind(a).is_some() && kind(b).is_some() => matmul(a, b),
        Prim::Mul if a.is_number() || b.is_number() => broadcast_scalar(p, &[a.clone(), b.clone()]),
        Prim::Div if b.is_number() && kind(a).is_some() => {
            broadcast_scalar(p, &[a.clone(), b.clone()])
        }
        _ => Err(method_error(p.julia_name(), &[a.clone(), b.clone()])),
    }
}

fn broadcast_scalar(p: Prim, args: &[Value]) -> Result<Value, String> {
    let mut with_f = Vec::with_capacity(args.len() + 1);
    with_f.push(Value::Func(p.julia_name().into()));
    with_f.extend_from_slice(args);
    eval_prim(Prim::Broadcast, &with_f, &Type::Any)
}

/// Storage promoted for a product: Int64 when both are integer arrays, Float64 otherwise.
enum Num {
    F(Vec<f64>),
    I(Vec<i64>),
}

fn numbers(d: &ArrayData, as_float: bool) -> Num {
    match d {
        ArrayData::Int(v) if !as_float => Num::I(v.clone()),
        ArrayData::Bool(v) if !as_float => Num::I(v.iter().map(|&b| i64::from(b)).collect()),
        _ => Num::F(d.to_f64()),
    }
}

/// `C = A * B` for column-major `A` (m×k) and `B` (k×n).
/// Checks the run's limits once per output column: a large product is the one primitive call
/// that can outlast a deadline.
fn gemm(a: &Num, b: &Num, m: usize, k: usize, n: usize) -> Result<ArrayData, String> {
    match (a, b) {
        (Num::I(x), Num::I(y)) => {
            let mut c = vec![0i64; m * n];
            for j in 0..n {
                interrupt::check()?;
                for i in 0..m {
                    c[j * m + i] = (0..k).fold(0i64, |s, l| {
                        s.wrapping_add(x[l * m + i].wrapping_mul(y[j * k + l]))
                    });
                }
            }
            Ok(ArrayData::Int(c))
        }
        _ => {
            let (x, y) = (to_f(a), to_f(b));
            let mut c = vec![0.0; m * n];
            if is_blocked(m, k, n) {
                gemm_f64(m, k, n, &x, &y, &mut c, interrupt::check)?;
                return Ok(ArrayData::F64(c));
            }
            for j in 0..n {
                interrupt::check()?;
                for i in 0..m {
                    c[j * m + i] = (0..k).fold(0.0, |s, l| s + x[l * m + i] * y[j * k + l]);
                }
            }
            Ok(ArrayData::F64(c))
        }
    }
}

/// Does a Float64 product of an `m × k` and a `k × n` matrix go through [`gemm_f64`]? Only a
/// product of matrices proper: matrix-vector and outer products (and rows times matrices) sum
/// each entry in order, one left fold per entry, which the JIT's kernels reproduce.
pub fn is_blocked(m: usize, k: usize, n: usize) -> bool {
    m > 1 && k > 1 && n > 1
}

/// Columns of the result computed between two calls of the interrupt check.
const PANEL: usize = 256;

/// `c = a * b` for column-major Float64 matrices (`m × k` times `k × n`) by `matrixmultiply`'s
/// blocked, vectorised kernel (as Julia hands matrix products to BLAS, whose summation order is
/// its own), in panels of [`PANEL`] columns with `check` (the interrupt check) before each. The
/// JIT calls this same function, so both engines agree to the last bit.
pub fn gemm_f64(
    m: usize,
    k: usize,
    n: usize,
    a: &[f64],
    b: &[f64],
    c: &mut [f64],
    check: impl FnMut() -> Result<(), String>,
) -> Result<(), String> {
    gemm_f64_op(m, k, n, (a, false), (b, false), c, check)
}

/// [`gemm_f64`] of `op(a) * op(b)`, where `(x, true)` stands for the transpose of the
/// column-major `x` (stored `k × m` for `a`, `n × k` for `b`) and is read through swapped
/// strides instead of being copied. `matrixmultiply` packs its operands into the same panels
/// whatever their strides, so the bits are those of the product of the copied transposes.
pub fn gemm_f64_op(
    m: usize,
    k: usize,
    n: usize,
    a: (&[f64], bool),
    b: (&[f64], bool),
    c: &mut [f64],
    check: impl FnMut() -> Result<(), String>,
) -> Result<(), String> {
    gemm_into(m, k, n, a, b, 0.0, c, check)
}

/// `matrixmultiply`'s depth block for Float64 (`D_KC`, its default on every target): a product
/// whose inner dimension fits in one block adds all of an entry's terms in registers before
/// storing it once.
pub const GEMM_DEPTH_BLOCK: usize = 256;

/// `c += op(a) * op(b)` (see [`gemm_f64_op`]) with the bits of making the product and then
/// adding it into `c` entry by entry (`accum!` of a product in a pullback), without making it:
/// the kernel adds each finished entry into `c` (its `beta` being one), which is that same
/// addition when the product's inner dimension `k` is at most [`GEMM_DEPTH_BLOCK`]. False
/// (and `c` left as it is) for a deeper product, whose partial sums the kernel would add
/// into `c` one block at a time.
pub fn gemm_f64_add(
    m: usize,
    k: usize,
    n: usize,
    a: (&[f64], bool),
    b: (&[f64], bool),
    c: &mut [f64],
) -> bool {
    k <= GEMM_DEPTH_BLOCK && gemm_into(m, k, n, a, b, 1.0, c, || Ok(())).is_ok()
}

/// `c = op(a) * op(b) + beta c` by `matrixmultiply` in panels of [`PANEL`] columns, `check`
/// before each (`beta` zero: `c` is not read).
#[allow(clippy::too_many_arguments)]
fn gemm_into(
    m: usize,
    k: usize,
    n: usize,
    (a, ta): (&[f64], bool),
    (b, tb): (&[f64], bool),
    beta: f64,
    c: &mut [f64],
    mut check: impl FnMut() -> Result<(), String>,
) -> Result<(), String> {
    let stride = |x: usize| isize::try_from(x).unwrap_or(isize::MAX);
    // (row stride, column stride) of op(x) for an operand of `rows` rows as op(x) has them.
    let strides = |t: bool, rows: usize, cols: usize| {
        if t {
            (stride(cols), 1)
        } else {
            (1, stride(rows))
        }
    };
    let ((rsa, csa), (rsb, csb)) = (strides(ta, m, k), strides(tb, k, n));
    for j0 in (0..n).step_by(PANEL) {
        check()?;
        let cols = PANEL.min(n - j0);
        // SAFETY: `a` holds m·k, `b` k·n and `c` m·n elements, with the strides given; column
        // j0 of op(b) starts `j0 · csb` elements in; the panel's columns of op(b) and `c` are
        // in bounds; `c` does not overlap `a` or `b`.
        unsafe {
            matrixmultiply::dgemm(
                m,
                k,
                cols,
                1.0,
                a.as_ptr(),
                rsa,
                csa,
                b.as_ptr().offset(j0 as isize * csb),
                rsb,
                csb,
                beta,
                c.as_mut_ptr().add(j0 * m),
                1,
                stride(m),
            );
        }
    }
    Ok(())
}

fn to_f(n: &Num) -> std::borrow::Cow<'_, [f64]> {
    match n {
        Num::F(v) => std::borrow::Cow::Borrowed(v),
        Num::I(v) => std::borrow::Cow::Owned(v.iter().map(|&i| i as f64).collect()),
    }
}

/// `A * B` where an operand is an array: Matrix*Vector, Matrix*Matrix, row*Vector (a number),
/// row*Matrix (a row), Vector*row (an outer product), and scaling by a number.
pub fn matmul(a: &Value, b: &Value) -> Result<Value, String> {
    if a.is_number() || b.is_number() {
        return broadcast_scalar(Prim::Mul, &[a.clone(), b.clone()]);
    }
    let fail = || method_error("*", &[a.clone(), b.clone()]);
    let (ka, kb) = (kind(a).ok_or_else(fail)?, kind(b).ok_or_else(fail)?);
    let (Some((sa, da)), Some((sb, db))) = (view(a), view(b)) else {
        return Err(fail());
    };
    if ka == Kind::Vector && kb == Kind::Vector {
        return Err(fail());
    }
    if ka == Kind::Row && kb == Kind::Vector {
        return dot(a, b);
    }
    let ((m, k), (k2, n)) = (sa.rows_cols(), sb.rows_cols());
    if k != k2 {
        let describe = |kind: Kind, s: Shape| match (kind, s) {
            (Kind::Vector, Shape::Vector(n)) => format!("vector B has length {n}"),
            (_, s) => {
                let (r, c) = s.rows_cols();
                format!("matrix B has dimensions ({r},{c})")
            }
        };
        return Err(format!(
            "DimensionMismatch: matrix A has dimensions ({m},{k}), {}",
            describe(kb, sb)
        ));
    }
    let as_float = da.elem() == ElemType::F64 || db.elem() == ElemType::F64;
    let c = gemm(&numbers(&da, as_float), &numbers(&db, as_float), m, k, n)?;
    let arr = |shape| Rc::new(RefCell::new(Array::new(shape, c)));
    Ok(match (ka, kb) {
        (Kind::Matrix, Kind::Vector) => Value::Array(arr(Shape::Vector(m))),
        (Kind::Row, Kind::Matrix) => Value::Adjoint(arr(Shape::Vector(n))),
        _ => Value::Array(arr(Shape::Matrix(m, n))),
    })
}

/// `dot(x, y)`: the sum of elementwise products of two arrays of one length, or of two numbers.
pub fn dot(a: &Value, b: &Value) -> Result<Value, String> {
    if a.is_number() && b.is_number() {
        return eval_prim(Prim::Mul, &[a.clone(), b.clone()], &Type::Any);
    }
    let (Some((_, da)), Some((_, db))) = (view(a), view(b)) else {
        return Err(method_error("dot", &[a.clone(), b.clone()]));
    };
    if da.len() != db.len() {
        return Err(format!(
            "DimensionMismatch: dot product arguments have lengths {} and {}",
            da.len(),
            db.len()
        ));
    }
    let as_float = da.elem() == ElemType::F64 || db.elem() == ElemType::F64;
    Ok(match (numbers(&da, as_float), numbers(&db, as_float)) {
        (Num::I(x), Num::I(y)) => Value::Int(
            x.iter()
                .zip(&y)
                .fold(0i64, |s, (p, q)| s.wrapping_add(p.wrapping_mul(*q))),
        ),
        (x, y) => Value::F64(
            to_f(&x)
                .iter()
                .zip(to_f(&y).iter())
                .fold(0.0, |s, (p, q)| s + p * q),
        ),
    })
}

/// `transpose(x)` / `x'`: a vector becomes a row sharing its storage (and back); a matrix is
/// copied transposed; a number is itself.
pub fn transpose(p: Prim, a: &Value) -> Result<Value, String> {
    match a {
        Value::Array(arr) => {
            let shape = arr.borrow().shape;
            match shape {
                Shape::Vector(_) => Ok(Value::Adjoint(arr.clone())),
                Shape::Matrix(m, n) => {
                    let old = arr.borrow();
                    let mut data = ArrayData::zeros(old.data.elem(), m * n);
                    for j in 0..n {
                        for i in 0..m {
                            if let Some(v) = old.data.get(j * m + i) {
                                data.set(i * n + j, &v)?;
                            }
                        }
                    }
                    Ok(Array::new(Shape::Matrix(n, m), data).into_value())
                }
                Shape::Nd(_) => Err(method_error(p.julia_name(), std::slice::from_ref(a))),
            }
        }
        Value::Adjoint(arr) => Ok(Value::Array(arr.clone())),
        Value::F64(_) | Value::Int(_) | Value::Bool(_) => Ok(a.clone()),
        _ => Err(method_error(p.julia_name(), std::slice::from_ref(a))),
    }
}

/// `tril(A, k)` and `triu(A, k)`: a copy of the matrix `A` keeping the entries `(i, j)` with
/// `j - i <= k` (tril) or `j - i >= k` (triu), zeros elsewhere.
pub fn triangle(p: Prim, a: &Value, k: i64) -> Result<Value, String> {
    let (Value::Array(_), Some((Shape::Matrix(m, n), data))) = (a, view(a)) else {
        return Err(method_error(p.julia_name(), std::slice::from_ref(a)));
    };
    let mut out = ArrayData::zeros(data.elem(), m * n);
    for j in 0..n {
        for i in 0..m {
            let d = j as i64 - i as i64;
            let keep = if p == Prim::Tril { d <= k } else { d >= k };
            if let (true, Some(v)) = (keep, data.get(j * m + i)) {
                out.set(j * m + i, &v)?;
            }
        }
    }
    Ok(Array::new(Shape::Matrix(m, n), out).into_value())
}

/// `unbroadcast(c, x)`: the sums of `c` over the dimensions where `x` has length one (a
/// vector is a column, a row a 1×n matrix), each added in index order from zero as Julia's
/// `sum(c; dims)` adds them, shaped like `x` (a vector, a row or a matrix).
pub fn unbroadcast(c: &Value, x: &Value) -> Result<Value, String> {
    let (Some((sc, dc)), Some((sx, _))) = (view(c), view(x)) else {
        return Err(method_error("unbroadcast", &[c.clone(), x.clone()]));
    };
    let mut cd = sc.dims();
    let mut xd = match x {
        Value::Adjoint(a) => vec![1, a.borrow().data.len()],
        _ => sx.dims(),
    };
    if matches!(c, Value::Adjoint(_)) {
        cd = vec![1, dc.len()];
    }
    let rank = cd.len().max(xd.len());
    cd.resize(rank, 1);
    xd.resize(rank, 1);
    if cd.iter().zip(&xd).any(|(&m, &p)| p != m && p != 1) {
        let text = |ds: &[usize]| {
            let s: Vec<String> = ds.iter().map(usize::to_string).collect();
            s.join(", ")
        };
        return Err(format!(
            "DimensionMismatch: cannot sum an array of size ({}) down to ({})",
            text(&cd),
            text(&xd)
        ));
    }
    let c = dc.to_f64();
    let mut out = vec![0.0; xd.iter().product()];
    // `x`'s storage stride per dimension, 0 where it has length one.
    let mut stride = 1;
    let strides: Vec<usize> = xd
        .iter()
        .map(|&p| {
            let s = if p == 1 { 0 } else { stride };
            stride *= p;
            s
        })
        .collect();
    let mut index = vec![0usize; rank];
    for &ck in &c {
        let k: usize = index.iter().zip(&strides).map(|(i, s)| i * s).sum();
        out[k] += ck;
        for (i, &n) in index.iter_mut().zip(&cd) {
            *i += 1;
            if *i < n {
                break;
            }
            *i = 0;
        }
    }
    let q = xd.get(1).copied().unwrap_or(1);
    let array = |shape| Rc::new(RefCell::new(Array::new(shape, ArrayData::F64(out))));
    Ok(match x {
        Value::Adjoint(_) => Value::Adjoint(array(Shape::Vector(q))),
        _ => Value::Array(array(sx)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Pseudo-random entries of mixed magnitudes, so that summation order shows in the bits.
    fn entries(len: usize, seed: u64) -> Vec<f64> {
        let mut s = seed;
        (0..len)
            .map(|_| {
                s ^= s << 13;
                s ^= s >> 7;
                s ^= s << 17;
                ((s >> 11) as f64 / (1u64 << 53) as f64 - 0.5) * 10f64.powi((s % 7) as i32 - 3)
            })
            .collect()
    }

    /// The column-major transpose of the `rows × cols` matrix `x`.
    fn transpose(rows: usize, cols: usize, x: &[f64]) -> Vec<f64> {
        let mut t = vec![0.0; x.len()];
        for j in 0..cols {
            for i in 0..rows {
                t[i * cols + j] = x[j * rows + i];
            }
        }
        t
    }

    #[test]
    fn products_through_swapped_strides_have_the_bits_of_the_copied_transpose() {
        // n > PANEL: the second panel of op(b) starts at a strided offset.
        let (m, k, n) = (37, 19, PANEL + 13);
        let (a, b) = (entries(m * k, 7), entries(k * n, 11));
        let (at, bt) = (transpose(m, k, &a), transpose(k, n, &b));
        let mut want = vec![0.0; m * n];
        assert_eq!(gemm_f64(m, k, n, &a, &b, &mut want, || Ok(())), Ok(()));
        for (ta, tb) in [(true, false), (false, true), (true, true)] {
            let x = if ta { &at } else { &a };
            let y = if tb { &bt } else { &b };
            let mut got = vec![f64::NAN; m * n];
            let ok = gemm_f64_op(m, k, n, (x, ta), (y, tb), &mut got, || Ok(()));
            assert_eq!(ok, Ok(()));
            let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&got), bits(&want), "transposed a: {ta}, b: {tb}");
        }
    }

    #[test]
    fn products_added_in_place_have_the_bits_of_adding_the_made_product() {
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        for (m, k, n) in [(5, 2, 3), (37, 64, 19), (9, GEMM_DEPTH_BLOCK, PANEL + 3)] {
            let (a, b) = (entries(m * k, 3), entries(k * n, 5));
            let (at, bt) = (transpose(m, k, &a), transpose(k, n, &b));
            let dst = entries(m * n, 13);
            let mut prod = vec![0.0; m * n];
            assert_eq!(gemm_f64(m, k, n, &a, &b, &mut prod, || Ok(())), Ok(()));
            let want: Vec<f64> = dst.iter().zip(&prod).map(|(d, p)| d + p).collect();
            for (ta, tb) in [(false, false), (true, false), (false, true)] {
                let x = if ta { &at } else { &a };
                let y = if tb { &bt } else { &b };
                let mut got = dst.clone();
                assert!(gemm_f64_add(m, k, n, (x, ta), (y, tb), &mut got));
                assert_eq!(
                    bits(&got),
                    bits(&want),
                    "{m}×{k}×{n}, transposed {ta}, {tb}"
                );
            }
        }
        // Deeper than one block: declined, the destination untouched.
        let (m, k, n) = (3, GEMM_DEPTH_BLOCK + 1, 4);
        let mut c = vec![1.0; m * n];
        let (a, b) = (entries(m * k, 3), entries(k * n, 5));
        assert!(!gemm_f64_add(m, k, n, (&a, false), (&b, false), &mut c));
        assert_eq!(c, vec![1.0; m * n]);
    }
}
