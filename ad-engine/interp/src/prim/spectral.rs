//! Eigenvectors of general real matrices and the Hessenberg decomposition, by `faer`: the
//! kernels behind the prelude's `eigen` of a matrix that is not symmetric and `hessenberg`,
//! each returning one Float64 matrix the prelude takes apart.

use faer::linalg::evd::hessenberg::{hessenberg_in_place, hessenberg_in_place_scratch};
use faer::linalg::householder::{
    apply_block_householder_sequence_on_the_right_in_place_scratch,
    apply_block_householder_sequence_on_the_right_in_place_with_conj,
};
use faer::linalg::qr::no_pivoting::factor::recommended_block_size;
use faer::{Conj, Mat, MatRef};

use super::factor::square;
use crate::value::{Array, ArrayData, Shape, Value};

const NOT_FINITE: &str = "ArgumentError: matrix contains Infs or NaNs";

/// The eigenvalues and right eigenvectors of the `n × n` column-major `a`, in Julia's order
/// (ascending by real part, then by imaginary part) and LAPACK's normalisation: each vector of
/// unit 2-norm with its entry of largest modulus (the first of those equal up to rounding)
/// real, and here positive. Returns `(re λ, im λ, re V, im V)`, the matrices column-major.
pub fn eigen_general_f64(
    n: usize,
    a: &[f64],
) -> Result<(Vec<f64>, Vec<f64>, Vec<f64>, Vec<f64>), String> {
    if a.iter().any(|v| !v.is_finite()) {
        return Err(NOT_FINITE.into());
    }
    if n == 0 {
        return Ok(Default::default());
    }
    let evd = MatRef::from_column_major_slice(a, n, n)
        .eigen()
        .map_err(|_| "unsupported: the eigenvalue iteration did not converge".to_string())?;
    let (s, u) = (evd.S(), evd.U());
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&i, &j| {
        let (p, q) = (s[i], s[j]);
        (p.re, p.im)
            .partial_cmp(&(q.re, q.im))
            .unwrap_or(std::cmp::Ordering::Equal)
    });
    let (mut re, mut im) = (vec![0.0; n], vec![0.0; n]);
    let (mut vre, mut vim) = (vec![0.0; n * n], vec![0.0; n * n]);
    for (k, &j) in order.iter().enumerate() {
        re[k] = s[j].re;
        im[k] = s[j].im;
        let col: Vec<(f64, f64)> = (0..n).map(|i| (u[(i, j)].re, u[(i, j)].im)).collect();
        let (xr, xi) = normalised(&col, s[j].im == 0.0);
        vre[k * n..(k + 1) * n].copy_from_slice(&xr);
        vim[k * n..(k + 1) * n].copy_from_slice(&xi);
    }
    Ok((re, im, vre, vim))
}

/// The vector `x` scaled to unit 2-norm and turned so that its entry of largest modulus is
/// real and positive; a vector of a real eigenvalue stays real (only its sign may change).
fn normalised(x: &[(f64, f64)], real: bool) -> (Vec<f64>, Vec<f64>) {
    let norm = x.iter().map(|&(r, i)| r.hypot(i)).fold(0.0, f64::hypot);
    // The first entry whose modulus is the largest up to rounding: entries equal in exact
    // arithmetic ((1, i)/√2 of a rotation) pick the first, whatever the iteration's last bits.
    let modulus = |&(r, i): &(f64, f64)| r.hypot(i);
    let largest = x.iter().map(modulus).fold(0.0, f64::max);
    let top = x
        .iter()
        .position(|e| modulus(e) >= largest * (1.0 - 1e-12))
        .unwrap_or(0);
    if real {
        let sign = if x[top].0 < 0.0 { -1.0 } else { 1.0 };
        let xr = x.iter().map(|&(r, _)| sign * r / norm).collect();
        return (xr, vec![0.0; x.len()]);
    }
    // Multiply by conj(x_top) / |x_top|, then divide by the norm.
    let (tr, ti) = x[top];
    let m = tr.hypot(ti);
    let (cr, ci) = (tr / m, -ti / m);
    let mut xr = Vec::with_capacity(x.len());
    let mut xi = Vec::with_capacity(x.len());
    for (k, &(r, i)) in x.iter().enumerate() {
        xr.push((r * cr - i * ci) / norm);
        xi.push(if k == top {
            0.0
        } else {
            (r * ci + i * cr) / norm
        });
    }
    (xr, xi)
}

/// `_eigen_general(A)`: the n × (2n + 2) matrix `[re(λ) im(λ) re(V) im(V)]` of
/// [`eigen_general_f64`].
pub fn eigen_general(a: &Value) -> Result<Value, String> {
    let (n, x) = square("eigen", a)?;
    let (re, im, vre, vim) = eigen_general_f64(n, &x)?;
    let out = [re, im, vre, vim].concat();
    Ok(Array::new(Shape::Matrix(n, 2 * n + 2), ArrayData::F64(out)).into_value())
}

/// The Hessenberg decomposition `a = Q H Qᵀ` of the `n × n` column-major `a` by Householder
/// reflections (LAPACK's signs: each reflection maps its column onto `-sign(x₁) ‖x‖ e₁`):
/// `(H, Q)`, `H` zero below its subdiagonal and `Q` orthogonal.
pub fn hessenberg_f64(n: usize, a: &[f64]) -> (Vec<f64>, Vec<f64>) {
    let mut h = Mat::<f64>::zeros(n, n);
    let mut q = Mat::<f64>::identity(n, n);
    if n == 0 {
        return (Vec::new(), Vec::new());
    }
    h.copy_from(MatRef::from_column_major_slice(a, n, n));
    if n > 2 {
        let bs = recommended_block_size::<f64>(n - 1, n - 1);
        let par = faer::Par::Seq;
        let mut householder = Mat::<f64>::zeros(bs, n - 1);
        let scratch = hessenberg_in_place_scratch::<f64>(n, bs, par, Default::default()).or(
            apply_block_householder_sequence_on_the_right_in_place_scratch::<f64>(n - 1, bs, n - 1),
        );
        let mut mem = faer::dyn_stack::MemBuffer::new(scratch);
        let stack = faer::dyn_stack::MemStack::new(&mut mem);
        hessenberg_in_place(
            h.as_mut(),
            householder.as_mut(),
            par,
            stack,
            Default::default(),
        );
        apply_block_householder_sequence_on_the_right_in_place_with_conj(
            h.as_ref().submatrix(1, 0, n - 1, n - 1),
            householder.as_ref(),
            Conj::No,
            q.as_mut().submatrix_mut(1, 1, n - 1, n - 1),
            par,
            stack,
        );
        for j in 0..n {
            for i in j + 2..n {
                h[(i, j)] = 0.0;
            }
        }
    }
    let flat = |m: &Mat<f64>| (0..n * n).map(|k| m[(k % n, k / n)]).collect();
    (flat(&h), flat(&q))
}

/// `_hessenberg(A)`: the n × 2n matrix `[H Q]` of [`hessenberg_f64`].
pub fn hessenberg(a: &Value) -> Result<Value, String> {
    let (n, x) = square("hessenberg", a)?;
    if x.iter().any(|v| !v.is_finite()) {
        return Err(NOT_FINITE.into());
    }
    let (h, q) = hessenberg_f64(n, &x);
    let out = [h, q].concat();
    Ok(Array::new(Shape::Matrix(n, 2 * n), ArrayData::F64(out)).into_value())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: &[f64], b: &[f64]) -> bool {
        a.len() == b.len() && a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-12)
    }

    #[test]
    fn eigenvectors_of_a_triangular_and_a_rotation() {
        // [1 2; 0 3]: λ = 1, 3 with vectors e₁ and (1, 1)/√2.
        let r = eigen_general_f64(2, &[1.0, 0.0, 2.0, 3.0]);
        let h = std::f64::consts::FRAC_1_SQRT_2;
        assert!(r
            .as_ref()
            .is_ok_and(|(re, im, vre, vim)| close(re, &[1.0, 3.0])
                && im == &[0.0, 0.0]
                && close(vre, &[1.0, 0.0, h, h])
                && vim == &[0.0; 4]));
        // [0 -1; 1 0]: λ = -i first, its vector (1, i)/√2; then i, (1, -i)/√2.
        let r = eigen_general_f64(2, &[0.0, 1.0, -1.0, 0.0]);
        assert!(r.is_ok_and(|(re, im, vre, vim)| close(&re, &[0.0, 0.0])
            && close(&im, &[-1.0, 1.0])
            && close(&vre, &[h, 0.0, h, 0.0])
            && close(&vim, &[0.0, h, 0.0, -h])));
        assert_eq!(
            eigen_general_f64(1, &[f64::INFINITY]),
            Err(NOT_FINITE.to_string())
        );
    }

    #[test]
    fn hessenberg_reproduces_the_matrix() {
        // A 4 × 4 matrix: Q H Qᵀ = A, H zero below the subdiagonal, Qᵀ Q = I.
        let n = 4;
        let a: Vec<f64> = (0..n * n)
            .map(|k| ((k * 7 + 3) % 11) as f64 - 5.0)
            .collect();
        let (h, q) = hessenberg_f64(n, &a);
        let at = |m: &[f64], i: usize, j: usize| m[j * n + i];
        for i in 0..n {
            for j in 0..n {
                let qhqt: f64 = (0..n)
                    .flat_map(|k| (0..n).map(move |l| (k, l)))
                    .map(|(k, l)| at(&q, i, k) * at(&h, k, l) * at(&q, j, l))
                    .sum();
                assert!((qhqt - at(&a, i, j)).abs() < 1e-12);
                let qtq: f64 = (0..n).map(|k| at(&q, k, i) * at(&q, k, j)).sum();
                assert!((qtq - if i == j { 1.0 } else { 0.0 }).abs() < 1e-12);
                if i > j + 1 {
                    assert_eq!(at(&h, i, j), 0.0);
                }
            }
        }
        // LAPACK's sign: the first reflection maps (a₂₁, a₃₁, a₄₁) onto -sign(a₂₁) ‖·‖ e₁.
        let norm = (1..n).map(|i| at(&a, i, 0).powi(2)).sum::<f64>().sqrt();
        assert!((at(&h, 1, 0) + at(&a, 1, 0).signum() * norm).abs() < 1e-12);
    }
}
