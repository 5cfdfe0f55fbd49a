//! Factorizations of square Float64 matrices by `faer` (LU with partial pivoting, Cholesky,
//! triangular solves): `det`, `logdet`, `inv`, `A \ B` and the lower Cholesky factor, with
//! Julia's choice of method (a triangular matrix is solved by substitution, anything else
//! through its LU factors) and Julia's exceptions. The kernels take column-major slices, so
//! the JIT's runtime can call them on its own arrays and agree with the interpreter to the bit.

use faer::linalg::cholesky::llt::factor::{cholesky_in_place, cholesky_in_place_scratch};
use faer::linalg::solvers::Solve;
use faer::{MatMut, MatRef, Side};

use super::array::view;
use super::method_error;
use crate::value::{Array, ArrayData, Shape, Value};

/// Why a factorization failed, as Julia's exception says it.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum FactorError {
    /// `SingularException(k)`: the `k`th pivot (1-based) is exactly zero.
    Singular(usize),
    /// `PosDefException`: the matrix is not symmetric.
    NotSymmetric,
    /// `PosDefException`: the matrix is symmetric but not positive definite.
    NotPositiveDefinite,
    /// `logdet` of a matrix whose determinant is negative (`log` of the sign `-1.0`).
    NegativeDeterminant,
}

impl FactorError {
    /// Julia's one-line error text.
    pub fn message(self) -> String {
        match self {
            FactorError::Singular(k) => format!("SingularException({k})"),
            FactorError::NotSymmetric => {
                "PosDefException: matrix is not Hermitian; Cholesky factorization failed.".into()
            }
            FactorError::NotPositiveDefinite => {
                "PosDefException: matrix is not positive definite; Cholesky factorization failed."
                    .into()
            }
            FactorError::NegativeDeterminant => "DomainError with -1.0: log was called with a \
                negative real argument but will only return a complex result if called with a \
                complex argument. Try log(Complex(x))."
                .into(),
        }
    }
}

fn mat(n: usize, a: &[f64]) -> MatRef<'_, f64> {
    MatRef::from_column_major_slice(a, n, a.len() / n.max(1))
}

/// Which triangle a square matrix lies in (Julia's `istril`, `istriu`), if either.
fn triangle(n: usize, a: &[f64]) -> Option<Side> {
    let entry = |i: usize, j: usize| a[j * n + i];
    if (0..n).all(|j| (0..j).all(|i| entry(i, j) == 0.0)) {
        Some(Side::Lower)
    } else if (0..n).all(|j| (j + 1..n).all(|i| entry(i, j) == 0.0)) {
        Some(Side::Upper)
    } else {
        None
    }
}

/// The first zero on the diagonal of the `n × n` matrix `a`, 1-based.
fn zero_pivot(n: usize, a: MatRef<'_, f64>) -> Option<usize> {
    (0..n).find(|&k| a[(k, k)] == 0.0).map(|k| k + 1)
}

/// The determinant of the `n × n` column-major matrix `a`: the product of its LU pivots (zero
/// for a singular matrix, as Julia's `det`).
pub fn det_f64(n: usize, a: &[f64]) -> f64 {
    mat(n, a).determinant()
}

/// `logdet(a)`: the sum of the logarithms of the pivots' magnitudes, `-Inf` for a singular
/// matrix, and a DomainError when the determinant is negative.
pub fn logdet_f64(n: usize, a: &[f64]) -> Result<f64, FactorError> {
    let lu = mat(n, a).partial_piv_lu();
    let u = lu.U();
    let mut negative = permutation_is_odd(lu.P().arrays().0);
    let mut sum = 0.0;
    for k in 0..n {
        let p = u[(k, k)];
        negative ^= p < 0.0;
        sum += p.abs().ln();
    }
    if negative && sum != f64::NEG_INFINITY {
        return Err(FactorError::NegativeDeterminant);
    }
    Ok(sum)
}

fn permutation_is_odd(p: &[usize]) -> bool {
    let mut seen = vec![false; p.len()];
    let mut odd = false;
    for start in 0..p.len() {
        let mut k = start;
        let mut len = 0;
        while !seen[k] {
            seen[k] = true;
            k = p[k];
            len += 1;
        }
        odd ^= len > 0 && len % 2 == 0;
    }
    odd
}

/// `a \ b` for the `n × n` matrix `a` and the `n × cols` right-hand side `b` (overwritten by
/// the solution): substitution when `a` is triangular, else its LU factors.
pub fn solve_f64(n: usize, a: &[f64], b: &mut [f64]) -> Result<(), FactorError> {
    let cols = b.len() / n.max(1);
    let am = mat(n, a);
    // Solved where `b` lies: no copy in or out.
    let x = MatMut::from_column_major_slice_mut(b, n, cols);
    match triangle(n, a) {
        Some(side) => {
            if let Some(k) = zero_pivot(n, am) {
                return Err(FactorError::Singular(k));
            }
            match side {
                Side::Lower => am.solve_lower_triangular_in_place(x),
                Side::Upper => am.solve_upper_triangular_in_place(x),
            }
        }
        None => {
            let lu = am.partial_piv_lu();
            if let Some(k) = zero_pivot(n, lu.U()) {
                return Err(FactorError::Singular(k));
            }
            lu.solve_in_place(x);
        }
    }
    Ok(())
}

/// `inv(a)`: `a \ I`.
pub fn inv_f64(n: usize, a: &[f64]) -> Result<Vec<f64>, FactorError> {
    let mut x = vec![0.0; n * n];
    for k in 0..n {
        x[k * n + k] = 1.0;
    }
    solve_f64(n, a, &mut x)?;
    Ok(x)
}

/// The lower Cholesky factor `L` of the symmetric positive definite `a` (`a = L Lᵀ`), zero
/// above its diagonal.
pub fn cholesky_lower_f64(n: usize, a: &[f64]) -> Result<Vec<f64>, FactorError> {
    let mut out = vec![0.0; n * n];
    cholesky_lower_into(n, a, &mut out)?;
    Ok(out)
}

/// [`cholesky_lower_f64`] into `out` (`n · n` entries, column-major), whose entries are
/// unspecified after an error.
pub fn cholesky_lower_into(n: usize, a: &[f64], out: &mut [f64]) -> Result<(), FactorError> {
    let am = mat(n, a);
    if (0..n).any(|j| (0..j).any(|i| am[(i, j)] != am[(j, i)])) {
        return Err(FactorError::NotSymmetric);
    }
    // faer's `llt` factors a fresh copy of the lower triangle and is copied out again: here the
    // triangle is copied into `out` and factored there (the same blocked algorithm, without
    // the n × n allocation and the second copy).
    for (j, col) in out.chunks_exact_mut(n.max(1)).enumerate().take(n) {
        col[..j].fill(0.0);
        col[j..].copy_from_slice(&a[j * n + j..(j + 1) * n]);
    }
    let par = faer::get_global_parallelism();
    let mut mem = faer::dyn_stack::MemBuffer::new(cholesky_in_place_scratch::<f64>(
        n,
        par,
        Default::default(),
    ));
    let stack = faer::dyn_stack::MemStack::new(&mut mem);
    let lm = MatMut::from_column_major_slice_mut(out, n, n);
    cholesky_in_place(lm, Default::default(), par, stack, Default::default())
        .map_err(|_| FactorError::NotPositiveDefinite)?;
    // Zero above the diagonal, as faer's `llt` leaves its factor.
    for (j, col) in out.chunks_exact_mut(n.max(1)).enumerate().take(n) {
        col[..j].fill(0.0);
    }
    Ok(())
}

/// A square Float64 matrix operand: its order and column-major entries.
pub(super) fn square(name: &str, a: &Value) -> Result<(usize, Vec<f64>), String> {
    match (a, view(a)) {
        (Value::Array(_), Some((Shape::Matrix(m, n), data)))
            if !matches!(data, ArrayData::Bool(_)) =>
        {
            if m != n {
                return Err(format!(
                    "DimensionMismatch: matrix is not square: dimensions are ({m}, {n})"
                ));
            }
            Ok((n, data.to_f64()))
        }
        _ => Err(method_error(name, std::slice::from_ref(a))),
    }
}

/// `det(A)`.
pub fn det(a: &Value) -> Result<Value, String> {
    let (n, x) = square("det", a)?;
    Ok(Value::F64(det_f64(n, &x)))
}

/// `logdet(A)`.
pub fn logdet(a: &Value) -> Result<Value, String> {
    let (n, x) = square("logdet", a)?;
    logdet_f64(n, &x)
        .map(Value::F64)
        .map_err(FactorError::message)
}

/// `inv(A)` of a matrix.
pub fn inv(a: &Value) -> Result<Value, String> {
    let (n, x) = square("inv", a)?;
    let y = inv_f64(n, &x).map_err(FactorError::message)?;
    Ok(Array::new(Shape::Matrix(n, n), ArrayData::F64(y)).into_value())
}

/// `_eigvals_general(A)`: the eigenvalues of a square matrix by faer's Hessenberg QR, as the
/// rows `[re im]` of an n×2 matrix in faer's order; a NaN or an Inf is Julia's `ArgumentError`.
pub fn eigvals_general(a: &Value) -> Result<Value, String> {
    let (n, x) = square("eigvals", a)?;
    if x.iter().any(|v| !v.is_finite()) {
        return Err("ArgumentError: matrix contains Infs or NaNs".into());
    }
    let mut out = vec![0.0; 2 * n];
    if n > 0 {
        let values = mat(n, &x)
            .eigenvalues()
            .map_err(|_| "unsupported: the eigenvalue iteration did not converge".to_string())?;
        for (k, z) in values.iter().enumerate() {
            out[k] = z.re;
            out[n + k] = z.im;
        }
    }
    Ok(Array::new(Shape::Matrix(n, 2), ArrayData::F64(out)).into_value())
}

/// `A \ B` for a square `A` and a vector or matrix `B`.
pub fn solve(a: &Value, b: &Value) -> Result<Value, String> {
    let fail = || method_error("\\", &[a.clone(), b.clone()]);
    if let (Value::Array(_), Some((Shape::Matrix(m, n), _))) = (a, view(a)) {
        if m != n {
            return Err("unsupported: `\\` of a non-square matrix (a least-squares solve)".into());
        }
    }
    let (n, x) = square("\\", a)?;
    let (shape, data) = match (b, view(b)) {
        (Value::Array(_), Some((shape, data))) if !matches!(data, ArrayData::Bool(_)) => {
            (shape, data)
        }
        _ => return Err(fail()),
    };
    if shape.rows_cols().0 != n {
        return Err(format!(
            "DimensionMismatch: matrix A has dimensions ({n},{n}), the right-hand side has {} rows",
            shape.rows_cols().0
        ));
    }
    let mut y = data.to_f64();
    solve_f64(n, &x, &mut y).map_err(FactorError::message)?;
    Ok(Array::new(shape, ArrayData::F64(y)).into_value())
}

/// `cholesky_lower(A)`: the factor `L` of `cholesky(A)`.
pub fn cholesky_lower(a: &Value) -> Result<Value, String> {
    let (n, x) = square("cholesky", a)?;
    let l = cholesky_lower_f64(n, &x).map_err(FactorError::message)?;
    Ok(Array::new(Shape::Matrix(n, n), ArrayData::F64(l)).into_value())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn determinants_follow_the_pivots() {
        // [1 2; 3 4] column-major: det = 4 - 6 = -2.
        let a = [1.0, 3.0, 2.0, 4.0];
        assert!((det_f64(2, &a) + 2.0).abs() < 1e-14);
        assert_eq!(logdet_f64(2, &a), Err(FactorError::NegativeDeterminant));
        let b = [2.0, 1.0, 1.0, 3.0];
        assert!((logdet_f64(2, &b).unwrap_or(0.0) - 5.0f64.ln()).abs() < 1e-14);
        assert_eq!(det_f64(2, &[1.0, 2.0, 2.0, 4.0]), 0.0);
        assert_eq!(logdet_f64(2, &[1.0, 2.0, 2.0, 4.0]), Ok(f64::NEG_INFINITY));
    }

    #[test]
    fn solves_and_inverses() {
        let a = [2.0, 1.0, 1.0, 3.0];
        let mut b = [3.0, 5.0];
        assert_eq!(solve_f64(2, &a, &mut b), Ok(()));
        // 2x + y = 3, x + 3y = 5: x = 0.8, y = 1.4.
        assert!((b[0] - 0.8).abs() < 1e-14 && (b[1] - 1.4).abs() < 1e-14);
        assert_eq!(
            inv_f64(2, &[1.0, 2.0, 2.0, 4.0]),
            Err(FactorError::Singular(2))
        );
        // Lower triangular [2 0; 1 4]: substitution, exact.
        let mut c = [2.0, 9.0];
        assert_eq!(solve_f64(2, &[2.0, 1.0, 0.0, 4.0], &mut c), Ok(()));
        assert_eq!(c, [1.0, 2.0]);
        assert_eq!(
            solve_f64(2, &[0.0, 1.0, 0.0, 4.0], &mut c),
            Err(FactorError::Singular(1))
        );
    }

    #[test]
    fn cholesky_factors_and_refuses() {
        // [4 2; 2 5] = L Lᵀ with L = [2 0; 1 2].
        assert_eq!(
            cholesky_lower_f64(2, &[4.0, 2.0, 2.0, 5.0]),
            Ok(vec![2.0, 1.0, 0.0, 2.0])
        );
        assert_eq!(
            cholesky_lower_f64(2, &[4.0, 2.0, 1.0, 5.0]),
            Err(FactorError::NotSymmetric)
        );
        assert_eq!(
            cholesky_lower_f64(2, &[1.0, 2.0, 2.0, 1.0]),
            Err(FactorError::NotPositiveDefinite)
        );
    }

    /// The rows `[re im]` of `_eigvals_general(a)`, sorted, for an `n × n` column-major `a`.
    fn eigenvalue_rows(n: usize, a: &[f64]) -> Result<Vec<(f64, f64)>, String> {
        let m = Array::new(Shape::Matrix(n, n), ArrayData::F64(a.to_vec())).into_value();
        let Some((Shape::Matrix(k, 2), data)) = view(&eigvals_general(&m)?) else {
            return Err("not an n×2 matrix".into());
        };
        let x = data.to_f64();
        let mut rows: Vec<(f64, f64)> = (0..k).map(|i| (x[i], x[k + i])).collect();
        rows.sort_by(|p, q| p.partial_cmp(q).unwrap_or(std::cmp::Ordering::Equal));
        Ok(rows)
    }

    #[test]
    fn general_eigenvalues_real_and_complex() {
        let near = |rows: &[(f64, f64)], want: &[(f64, f64)]| {
            rows.len() == want.len()
                && rows
                    .iter()
                    .zip(want)
                    .all(|(p, q)| (p.0 - q.0).abs() < 1e-12 && (p.1 - q.1).abs() < 1e-12)
        };
        // [2 1; 0 3] is triangular: 2 and 3, exactly real.
        let tri = eigenvalue_rows(2, &[2.0, 0.0, 1.0, 3.0]);
        assert!(tri
            .as_ref()
            .is_ok_and(|r| near(r, &[(2.0, 0.0), (3.0, 0.0)]) && r.iter().all(|p| p.1 == 0.0)));
        // A rotation by a quarter turn: ±i.
        let rot = eigenvalue_rows(2, &[0.0, 1.0, -1.0, 0.0]);
        assert!(rot.is_ok_and(|r| near(&r, &[(0.0, -1.0), (0.0, 1.0)])));
        assert_eq!(
            eigenvalue_rows(2, &[1.0, f64::NAN, 0.0, 1.0]),
            Err("ArgumentError: matrix contains Infs or NaNs".to_string())
        );
        assert!(eigenvalue_rows(0, &[]).is_ok_and(|r| r.is_empty()));
    }

    #[test]
    fn cholesky_in_place_has_the_bits_of_faers_llt() {
        // A kernel matrix large enough for faer's blocked path: exp(-(i - j)^2 / 50) + I.
        let n = 150;
        let a: Vec<f64> = (0..n * n)
            .map(|k| {
                let d = (k % n) as f64 - (k / n) as f64;
                (-d * d / 50.0).exp() + if d == 0.0 { 1.0 } else { 0.0 }
            })
            .collect();
        let l = cholesky_lower_f64(n, &a).unwrap_or_default();
        let llt = mat(n, &a).llt(Side::Lower);
        let expected: Vec<f64> = match &llt {
            Ok(f) => (0..n * n).map(|k| f.L()[(k % n, k / n)]).collect(),
            Err(_) => Vec::new(),
        };
        assert_eq!(l, expected);
    }
}
