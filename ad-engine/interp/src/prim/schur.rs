//! The real Schur form `A = Z T Zᵀ` behind the prelude's `schur`: faer's Hessenberg reduction,
//! then Francis double-shift QR steps (Golub & Van Loan, Algorithms 7.5.1–7.5.2) on the whole
//! matrix, each converged 2×2 block put in LAPACK's standard form (equal diagonal and `b c < 0`
//! for a complex pair, upper triangular for two real eigenvalues). faer keeps its own real
//! Schur form private.

use super::factor::square;
use super::spectral::hessenberg_f64;
use crate::value::{Array, ArrayData, Shape, Value};

const NOT_FINITE: &str = "ArgumentError: matrix contains Infs or NaNs";

/// A dense column-major square matrix, indexed `(row, column)` from 0.
struct Square {
    n: usize,
    x: Vec<f64>,
}

impl Square {
    fn at(&self, i: usize, j: usize) -> f64 {
        self.x[j * self.n + i]
    }

    fn set(&mut self, i: usize, j: usize, v: f64) {
        self.x[j * self.n + i] = v;
    }

    /// Rows `p` and `q`, over `cols`, become `c xₚ + s x_q` and `c x_q - s xₚ`.
    fn rotate_rows(&mut self, p: usize, q: usize, cols: std::ops::Range<usize>, c: f64, s: f64) {
        for j in cols {
            let (xp, xq) = (self.at(p, j), self.at(q, j));
            self.set(p, j, c * xp + s * xq);
            self.set(q, j, c * xq - s * xp);
        }
    }

    /// Columns `p` and `q`, over `rows`, become `c xₚ + s x_q` and `c x_q - s xₚ`.
    fn rotate_columns(&mut self, p: usize, q: usize, rows: std::ops::Range<usize>, c: f64, s: f64) {
        for i in rows {
            let (xp, xq) = (self.at(i, p), self.at(i, q));
            self.set(i, p, c * xp + s * xq);
            self.set(i, q, c * xq - s * xp);
        }
    }

    /// Rows `k..k + v.len()`, over `cols`, multiplied on the left by `I - β v vᵀ`.
    fn reflect_rows(&mut self, k: usize, v: &[f64], beta: f64, cols: std::ops::Range<usize>) {
        for j in cols {
            let d: f64 = v
                .iter()
                .enumerate()
                .map(|(r, vr)| vr * self.at(k + r, j))
                .sum();
            for (r, vr) in v.iter().enumerate() {
                self.set(k + r, j, self.at(k + r, j) - beta * d * vr);
            }
        }
    }

    /// Columns `k..k + v.len()`, over `rows`, multiplied on the right by `I - β v vᵀ`.
    fn reflect_columns(&mut self, k: usize, v: &[f64], beta: f64, rows: std::ops::Range<usize>) {
        for i in rows {
            let d: f64 = v
                .iter()
                .enumerate()
                .map(|(r, vr)| vr * self.at(i, k + r))
                .sum();
            for (r, vr) in v.iter().enumerate() {
                self.set(i, k + r, self.at(i, k + r) - beta * d * vr);
            }
        }
    }
}

/// The Householder vector `v` and `β` with `(I - β v vᵀ) x = ∓‖x‖ e₁`; `β = 0` for `x = 0`.
fn householder(x: &[f64]) -> (Vec<f64>, f64) {
    let norm = x.iter().fold(0.0, |a: f64, b| a.hypot(*b));
    if norm == 0.0 {
        return (x.to_vec(), 0.0);
    }
    let mut v = x.to_vec();
    v[0] += norm.copysign(x[0]);
    let vv: f64 = v.iter().map(|e| e * e).sum();
    (v, 2.0 / vv)
}

/// The standard form of the 2×2 block `[a b; c d]`: `(a, b, c, d, cs, sn)` with
/// `[a b; c d]ᵢₙ = G [a b; c d]ₒᵤₜ Gᵀ`, `G = [cs -sn; sn cs]`, where the result has `c = 0` when
/// the eigenvalues are real, else `a = d` and `b c < 0` (LAPACK's `dlanv2` conventions).
fn standardise(a: f64, b: f64, c: f64, d: f64) -> [f64; 6] {
    if c == 0.0 {
        return [a, b, c, d, 1.0, 0.0];
    }
    if b == 0.0 {
        // Swap the rows and the columns.
        return [d, -c, 0.0, a, 0.0, 1.0];
    }
    if a - d == 0.0 && b.signum() != c.signum() {
        return [a, b, c, d, 1.0, 0.0];
    }
    let p = 0.5 * (a - d);
    let bcmax = b.abs().max(c.abs());
    let bcmis = b.abs().min(c.abs()) * b.signum() * c.signum();
    let scale = p.abs().max(bcmax);
    let z = p / scale * p + bcmax / scale * bcmis;
    if z >= 4.0 * f64::EPSILON {
        // Real eigenvalues: a rotation makes the block upper triangular.
        let z = p + (scale.sqrt() * z.sqrt()).copysign(p);
        let tau = c.hypot(z);
        return [d + z, b - c, 0.0, d - bcmax / z * bcmis, z / tau, c / tau];
    }
    // Complex or nearly equal eigenvalues: a rotation makes the diagonal equal.
    let sigma = b + c;
    let tau = sigma.hypot(a - d);
    let mut cs = (0.5 * (1.0 + sigma.abs() / tau)).sqrt();
    let mut sn = -(p / (tau * cs)) * sigma.signum();
    let (aa, bb) = (a * cs + b * sn, -a * sn + b * cs);
    let (cc, dd) = (c * cs + d * sn, -c * sn + d * cs);
    let mut b = bb * cs + dd * sn;
    let mut c = -aa * sn + cc * cs;
    let mean = 0.5 * ((aa * cs + cc * sn) + (-bb * sn + dd * cs));
    let (mut a, mut d) = (mean, mean);
    if c != 0.0 {
        if b == 0.0 {
            b = -c;
            c = 0.0;
            (cs, sn) = (-sn, cs);
        } else if b.signum() == c.signum() {
            // Real after all: split the block into two 1×1 ones.
            let (sab, sac) = (b.abs().sqrt(), c.abs().sqrt());
            let p = (sab * sac).copysign(c);
            let tau = 1.0 / (b + c).abs().sqrt();
            a = mean + p;
            d = mean - p;
            b -= c;
            c = 0.0;
            let (cs1, sn1) = (sab * tau, sac * tau);
            (cs, sn) = (cs * cs1 - sn * sn1, cs * sn1 + sn * cs1);
        }
    }
    [a, b, c, d, cs, sn]
}

/// Puts the 2×2 diagonal block at rows and columns `i, i + 1` of `t` in standard form,
/// carrying its rotation through the rest of `t` and into `z`.
fn standardise_block(t: &mut Square, z: &mut Square, i: usize) {
    let n = t.n;
    let [a, b, c, d, cs, sn] = standardise(
        t.at(i, i),
        t.at(i, i + 1),
        t.at(i + 1, i),
        t.at(i + 1, i + 1),
    );
    t.set(i, i, a);
    t.set(i, i + 1, b);
    t.set(i + 1, i, c);
    t.set(i + 1, i + 1, d);
    t.rotate_rows(i, i + 1, i + 2..n, cs, sn);
    t.rotate_columns(i, i + 1, 0..i, cs, sn);
    z.rotate_columns(i, i + 1, 0..n, cs, sn);
}

/// One Francis double-shift QR step on the active block `lo..=hi` of the Hessenberg `t`
/// (`hi ≥ lo + 2`), applied to all of `t` (the Schur form is wanted whole) and to `z`. The
/// shifts are the trailing 2×2 block's eigenvalues, or ad hoc ones on an exceptional step.
fn francis_step(t: &mut Square, z: &mut Square, lo: usize, hi: usize, exceptional: bool) {
    let n = t.n;
    let (s, p) = if exceptional {
        let w = t.at(hi, hi - 1).abs() + t.at(hi - 1, hi - 2).abs();
        (1.5 * w, w * w)
    } else {
        let (a, b, c, d) = (
            t.at(hi - 1, hi - 1),
            t.at(hi - 1, hi),
            t.at(hi, hi - 1),
            t.at(hi, hi),
        );
        (a + d, a * d - b * c)
    };
    let h = |i, j| t.at(i, j);
    let mut x = h(lo, lo) * h(lo, lo) + h(lo, lo + 1) * h(lo + 1, lo) - s * h(lo, lo) + p;
    let mut y = h(lo + 1, lo) * (h(lo, lo) + h(lo + 1, lo + 1) - s);
    let mut w = h(lo + 1, lo) * h(lo + 2, lo + 1);
    for k in lo..=hi - 2 {
        let (v, beta) = householder(&[x, y, w]);
        if beta != 0.0 {
            let first = if k > lo { k - 1 } else { lo };
            t.reflect_rows(k, &v, beta, first..n);
            t.reflect_columns(k, &v, beta, 0..(k + 4).min(hi + 1));
            z.reflect_columns(k, &v, beta, 0..n);
        }
        if k > lo {
            // The bulge chased out of column k - 1.
            t.set(k + 1, k - 1, 0.0);
            t.set(k + 2, k - 1, 0.0);
        }
        x = t.at(k + 1, k);
        y = t.at(k + 2, k);
        if k + 3 <= hi {
            w = t.at(k + 3, k);
        }
    }
    let (v, beta) = householder(&[x, y]);
    if beta != 0.0 {
        t.reflect_rows(hi - 1, &v, beta, hi - 2..n);
        t.reflect_columns(hi - 1, &v, beta, 0..hi + 1);
        z.reflect_columns(hi - 1, &v, beta, 0..n);
    }
    t.set(hi, hi - 2, 0.0);
}

/// The real Schur form of the `n × n` column-major `a`: `(T, Z, re λ, im λ)`, `a = Z T Zᵀ`
/// with `Z` orthogonal and `T` quasi-upper-triangular, its 2×2 blocks standard; the
/// eigenvalues in `T`'s diagonal order, a complex pair with its positive imaginary part first.
pub fn schur_f64(n: usize, a: &[f64]) -> Result<(Vec<f64>, Vec<f64>, Vec<f64>, Vec<f64>), String> {
    if a.iter().any(|v| !v.is_finite()) {
        return Err(NOT_FINITE.into());
    }
    let (h, q) = hessenberg_f64(n, a);
    let (mut t, mut z) = (Square { n, x: h }, Square { n, x: q });
    let norm = t.x.iter().fold(0.0, |s: f64, v| s.max(v.abs()));
    let mut hi = n;
    let mut steps = 0;
    let mut total = 0;
    // `hi` is one past the last row not yet converged.
    while hi > 0 {
        let last = hi - 1;
        // The smallest lo such that t[lo, lo - 1] is negligible.
        let mut lo = last;
        while lo > 0 {
            let mut scale = t.at(lo - 1, lo - 1).abs() + t.at(lo, lo).abs();
            if scale == 0.0 {
                scale = norm;
            }
            if t.at(lo, lo - 1).abs() <= f64::EPSILON * scale {
                t.set(lo, lo - 1, 0.0);
                break;
            }
            lo -= 1;
        }
        if lo == last {
            hi -= 1;
            steps = 0;
        } else if lo + 1 == last {
            standardise_block(&mut t, &mut z, lo);
            hi -= 2;
            steps = 0;
        } else {
            steps += 1;
            total += 1;
            if total > 30 * n.max(10) {
                return Err("unsupported: the Schur iteration did not converge".into());
            }
            francis_step(&mut t, &mut z, lo, last, steps % 10 == 0);
        }
    }
    let (mut re, mut im) = (vec![0.0; n], vec![0.0; n]);
    let mut i = 0;
    while i < n {
        re[i] = t.at(i, i);
        if i + 1 < n && t.at(i + 1, i) != 0.0 {
            let (b, c) = (t.at(i, i + 1), t.at(i + 1, i));
            let y = b.abs().sqrt() * c.abs().sqrt();
            re[i + 1] = t.at(i + 1, i + 1);
            im[i] = y;
            im[i + 1] = -y;
            i += 2;
        } else {
            i += 1;
        }
    }
    Ok((t.x, z.x, re, im))
}

/// `_schur(A)`: the n × (2n + 2) matrix `[T Z re(λ) im(λ)]` of [`schur_f64`].
pub fn schur(a: &Value) -> Result<Value, String> {
    let (n, x) = square("schur", a)?;
    let (t, z, re, im) = schur_f64(n, &x)?;
    let out = [t, z, re, im].concat();
    Ok(Array::new(Shape::Matrix(n, 2 * n + 2), ArrayData::F64(out)).into_value())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `Z T Zᵀ = A`, `Zᵀ Z = I`, zeros below the subdiagonal and between 2×2 blocks, each
    /// block standard (equal diagonal, `b c < 0`).
    fn check(n: usize, a: &[f64]) -> (Vec<f64>, Vec<f64>) {
        let (t, z, re, im) = schur_f64(n, a).unwrap_or_default();
        let at = |m: &[f64], i: usize, j: usize| m[j * n + i];
        for i in 0..n {
            for j in 0..n {
                let ztz: f64 = (0..n)
                    .flat_map(|k| (0..n).map(move |l| (k, l)))
                    .map(|(k, l)| at(&z, i, k) * at(&t, k, l) * at(&z, j, l))
                    .sum();
                assert!((ztz - at(a, i, j)).abs() < 1e-12, "Z T Zᵀ at ({i}, {j})");
                let zz: f64 = (0..n).map(|k| at(&z, k, i) * at(&z, k, j)).sum();
                assert!((zz - if i == j { 1.0 } else { 0.0 }).abs() < 1e-13);
                if i > j + 1 {
                    assert_eq!(at(&t, i, j), 0.0);
                }
            }
        }
        for i in 0..n.saturating_sub(1) {
            if at(&t, i + 1, i) != 0.0 {
                assert_eq!(at(&t, i, i), at(&t, i + 1, i + 1));
                assert!(at(&t, i, i + 1) * at(&t, i + 1, i) < 0.0);
                assert!(i + 2 >= n || at(&t, i + 2, i + 1) == 0.0);
            }
        }
        (re, im)
    }

    #[test]
    fn two_by_two_blocks_are_standard() {
        // [1 2; 3 4]: real eigenvalues (5 ∓ √33)/2, upper triangular, the smaller first.
        let (re, im) = check(2, &[1.0, 3.0, 2.0, 4.0]);
        let r = 33f64.sqrt() / 2.0;
        assert!((re[0] - (2.5 - r)).abs() < 1e-14 && (re[1] - (2.5 + r)).abs() < 1e-14);
        assert_eq!(im, [0.0, 0.0]);
        // [1 -5; 2 3]: 2 ± 3i, the positive imaginary part first.
        let (re, im) = check(2, &[1.0, 2.0, -5.0, 3.0]);
        assert!((re[0] - 2.0).abs() < 1e-14 && (im[0] - 3.0).abs() < 1e-14 && im[1] == -im[0]);
    }

    #[test]
    fn larger_matrices_converge_to_their_eigenvalues() {
        // A companion matrix of (x - 1)(x - 2)(x² + 1)(x - 3): eigenvalues 1, 2, 3, ±i.
        let n = 5;
        // x⁵ - 6x⁴ + 12x³ - 12x² + 11x - 6.
        let c = [6.0, -11.0, 12.0, -12.0, 6.0];
        let mut a = vec![0.0; n * n];
        for (j, cj) in c.iter().rev().enumerate() {
            a[j * n] = *cj;
        }
        for i in 1..n {
            a[(i - 1) * n + i] = 1.0;
        }
        let (re, im) = check(n, &a);
        let mut found: Vec<(f64, f64)> = re.iter().copied().zip(im.iter().copied()).collect();
        found.sort_by(|p, q| p.partial_cmp(q).unwrap_or(std::cmp::Ordering::Equal));
        let want = [(0.0, -1.0), (0.0, 1.0), (1.0, 0.0), (2.0, 0.0), (3.0, 0.0)];
        for ((r, i), (wr, wi)) in found.iter().zip(want) {
            assert!((r - wr).abs() < 1e-9 && (i - wi).abs() < 1e-9, "{r} {i}");
        }
        let b: Vec<f64> = (0..64).map(|k| ((k * 37 + 11) % 17) as f64 - 8.0).collect();
        check(8, &b);
        assert_eq!(schur_f64(1, &[f64::NAN]), Err(NOT_FINITE.to_string()));
        assert_eq!(schur_f64(0, &[]), Ok(Default::default()));
    }
}
