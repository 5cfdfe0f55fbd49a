//! Hand-written forward functions and gradients of the workloads table (`fixtures/workloads`):
//! what a careful Rust programmer writes for each, one pass forward and one back, computing the
//! gradient of every argument zy differentiates. Matrix-matrix products go through
//! `matrixmultiply` (a blocked, vectorised GEMM, the one zy's runtime calls), as such a
//! programmer would not write their own.

use super::Mat;

/// The chained Rosenbrock function `sum over i < n of 100 (x[i+1] - x[i]^2)^2 + (1 - x[i])^2`.
pub fn rosenbrock(x: &[f64]) -> f64 {
    x.windows(2)
        .map(|w| {
            let (t, u) = (w[1] - w[0] * w[0], 1.0 - w[0]);
            100.0 * t * t + u * u
        })
        .sum()
}

/// Rosenbrock and its gradient: each term adds `-400 x[i] t - 2 (1 - x[i])` to `x[i]` and
/// `200 t` to `x[i+1]`, with `t = x[i+1] - x[i]^2`.
pub fn rosenbrock_grad(x: &[f64]) -> (f64, Vec<f64>) {
    let mut g = vec![0.0; x.len()];
    let mut y = 0.0;
    for i in 1..x.len() {
        let (a, b) = (x[i - 1], x[i]);
        let (t, u) = (b - a * a, 1.0 - a);
        y += 100.0 * t * t + u * u;
        g[i - 1] += -400.0 * a * t - 2.0 * u;
        g[i] += 200.0 * t;
    }
    (y, g)
}

/// The Runge-Kutta workload: damping `c`, initial state `(x, v)`, step `h`, number of steps.
#[derive(Clone, PartialEq, Debug)]
pub struct Rk4 {
    pub c: f64,
    pub u0: (f64, f64),
    pub h: f64,
    pub steps: usize,
}

/// Its gradient with respect to the damping, the initial state and the step.
#[derive(Clone, Copy, PartialEq, Debug)]
pub struct Rk4Grad {
    pub c: f64,
    pub u0: (f64, f64),
    pub h: f64,
}

/// The oscillator `u' = (v, -x - c v)` of the fixture (stiffness 1).
fn oscillator(u: (f64, f64), c: f64) -> (f64, f64) {
    (u.1, -u.0 - c * u.1)
}

/// `u + a du`.
fn axpy(a: f64, du: (f64, f64), u: (f64, f64)) -> (f64, f64) {
    (u.0 + a * du.0, u.1 + a * du.1)
}

/// The four slopes of one Runge-Kutta step from `u`, with the points they were taken at.
struct Stages {
    k: [(f64, f64); 4],
    at: [(f64, f64); 4],
}

fn stages(u: (f64, f64), c: f64, h: f64) -> Stages {
    let k1 = oscillator(u, c);
    let u2 = axpy(h / 2.0, k1, u);
    let k2 = oscillator(u2, c);
    let u3 = axpy(h / 2.0, k2, u);
    let k3 = oscillator(u3, c);
    let u4 = axpy(h, k3, u);
    let k4 = oscillator(u4, c);
    Stages {
        k: [k1, k2, k3, k4],
        at: [u, u2, u3, u4],
    }
}

fn step(u: (f64, f64), c: f64, h: f64) -> (f64, f64) {
    let [k1, k2, k3, k4] = stages(u, c, h).k;
    (
        u.0 + h / 6.0 * (k1.0 + 2.0 * k2.0 + 2.0 * k3.0 + k4.0),
        u.1 + h / 6.0 * (k1.1 + 2.0 * k2.1 + 2.0 * k3.1 + k4.1),
    )
}

/// `x(T)^2 + v(T)^2` after the steps.
pub fn rk4(p: &Rk4) -> f64 {
    let mut u = p.u0;
    for _ in 0..p.steps {
        u = step(u, p.c, p.h);
    }
    u.0 * u.0 + u.1 * u.1
}

/// The loss and its gradient: the trajectory is kept forward (two numbers per step), then each
/// step is reversed with its slopes recomputed from the state it started at.
pub fn rk4_grad(p: &Rk4) -> (f64, Rk4Grad) {
    let (c, h) = (p.c, p.h);
    let mut trajectory = Vec::with_capacity(p.steps);
    let mut u = p.u0;
    for _ in 0..p.steps {
        trajectory.push(u);
        u = step(u, c, h);
    }
    let y = u.0 * u.0 + u.1 * u.1;
    let (mut ub, mut cb, mut hb) = ((2.0 * u.0, 2.0 * u.1), 0.0, 0.0);
    for &u in trajectory.iter().rev() {
        let Stages { k, at } = stages(u, c, h);
        // u' = u + h/6 (k1 + 2 k2 + 2 k3 + k4): the state passes through, the slopes are scaled.
        let s = (
            k[0].0 + 2.0 * k[1].0 + 2.0 * k[2].0 + k[3].0,
            k[0].1 + 2.0 * k[1].1 + 2.0 * k[2].1 + k[3].1,
        );
        hb += (ub.0 * s.0 + ub.1 * s.1) / 6.0;
        let mut kb = [
            scale(h / 6.0, ub),
            scale(h / 3.0, ub),
            scale(h / 3.0, ub),
            scale(h / 6.0, ub),
        ];
        let mut out = ub;
        // Stages 4, 3, 2: k_j = f(u + a_j k_{j-1}) with a = h, h/2, h/2.
        for (j, a, da) in [(3, h, 1.0), (2, h / 2.0, 0.5), (1, h / 2.0, 0.5)] {
            let atb = oscillator_back(kb[j], at[j], c, &mut cb);
            out = add(out, atb);
            kb[j - 1] = add(kb[j - 1], scale(a, atb));
            hb += da * (atb.0 * k[j - 1].0 + atb.1 * k[j - 1].1);
        }
        ub = add(out, oscillator_back(kb[0], at[0], c, &mut cb));
    }
    (
        y,
        Rk4Grad {
            c: cb,
            u0: ub,
            h: hb,
        },
    )
}

/// The adjoint of the state from the adjoint `kb` of `oscillator(u, c)`; adds c's to `cb`.
fn oscillator_back(kb: (f64, f64), u: (f64, f64), c: f64, cb: &mut f64) -> (f64, f64) {
    *cb -= u.1 * kb.1;
    (-kb.1, kb.0 - c * kb.1)
}

fn scale(a: f64, u: (f64, f64)) -> (f64, f64) {
    (a * u.0, a * u.1)
}

fn add(a: (f64, f64), b: (f64, f64)) -> (f64, f64) {
    (a.0 + b.0, a.1 + b.1)
}

/// The batched perceptron: weights and biases of both layers, inputs and targets (one sample
/// per column).
#[derive(Clone, PartialEq, Debug)]
pub struct MlpBatch {
    pub w1: Mat,
    pub b1: Vec<f64>,
    pub w2: Mat,
    pub b2: Vec<f64>,
    pub x: Mat,
    pub y: Mat,
}

/// The gradient of the batched perceptron's loss with respect to every argument.
#[derive(Clone, PartialEq, Debug)]
pub struct MlpBatchGrad {
    pub w1: Mat,
    pub b1: Vec<f64>,
    pub w2: Mat,
    pub b2: Vec<f64>,
    pub x: Mat,
    pub y: Mat,
}

/// Which operand of [`gemm`] is read transposed.
#[derive(Clone, Copy)]
enum Op {
    N,
    T,
}

/// `op(a) op(b)` of column-major matrices, by `matrixmultiply`.
fn gemm(a: &Mat, ta: Op, b: &Mat, tb: Op) -> Mat {
    // (rows, cols, row stride, column stride) of op(m).
    let view = |m: &Mat, t: Op| match t {
        Op::N => (m.rows, m.cols, 1, m.rows as isize),
        Op::T => (m.cols, m.rows, m.rows as isize, 1),
    };
    let (m, k, rsa, csa) = view(a, ta);
    let (k2, n, rsb, csb) = view(b, tb);
    assert_eq!(k, k2, "inner dimensions");
    let mut c = Mat::zeros(m, n);
    // SAFETY: the pointers cover `a`, `b` and `c` with exactly the strides and sizes given
    // (column-major, or transposed by swapping the strides); `c` is not aliased.
    unsafe {
        matrixmultiply::dgemm(
            m,
            k,
            n,
            1.0,
            a.data.as_ptr(),
            rsa,
            csa,
            b.data.as_ptr(),
            rsb,
            csb,
            0.0,
            c.data.as_mut_ptr(),
            1,
            m as isize,
        );
    }
    c
}

/// `W X` with `b` added to every column.
fn dense(w: &Mat, b: &[f64], x: &Mat) -> Mat {
    let mut a = gemm(w, Op::N, x, Op::N);
    for col in a.data.chunks_exact_mut(a.rows) {
        col.iter_mut().zip(b).for_each(|(v, b)| *v += b);
    }
    a
}

/// `H = tanh.(W1 X + b1)` and `Z = W2 H + b2`.
fn mlp_batch_layers(p: &MlpBatch) -> (Mat, Mat) {
    let mut h = dense(&p.w1, &p.b1, &p.x);
    h.data.iter_mut().for_each(|v| *v = v.tanh());
    let z = dense(&p.w2, &p.b2, &h);
    (h, z)
}

/// The mean over the batch of `|z - y|^2`.
pub fn mlp_batch(p: &MlpBatch) -> f64 {
    let (_, z) = mlp_batch_layers(p);
    let sq: f64 = z
        .data
        .iter()
        .zip(&p.y.data)
        .map(|(z, y)| (z - y) * (z - y))
        .sum();
    sq / p.x.cols as f64
}

/// The loss and its gradient: `dZ = 2 (Z - Y) / B`, `dW2 = dZ H'`, `db2` the row sums of `dZ`,
/// `dA = (W2' dZ) .* (1 - H.^2)`, `dW1 = dA X'`, `db1` the row sums of `dA`, `dX = W1' dA`,
/// `dY = -dZ`.
pub fn mlp_batch_grad(p: &MlpBatch) -> (f64, MlpBatchGrad) {
    let (h, mut dz) = mlp_batch_layers(p);
    let batch = p.x.cols as f64;
    let mut sq = 0.0;
    for (z, y) in dz.data.iter_mut().zip(&p.y.data) {
        let d = *z - y;
        sq += d * d;
        *z = 2.0 * d / batch;
    }
    let row_sums = |m: &Mat| {
        let mut s = vec![0.0; m.rows];
        for col in m.data.chunks_exact(m.rows) {
            s.iter_mut().zip(col).for_each(|(s, v)| *s += v);
        }
        s
    };
    let dw2 = gemm(&dz, Op::N, &h, Op::T);
    let db2 = row_sums(&dz);
    let mut da = gemm(&p.w2, Op::T, &dz, Op::N);
    da.data
        .iter_mut()
        .zip(&h.data)
        .for_each(|(d, h)| *d *= 1.0 - h * h);
    let dw1 = gemm(&da, Op::N, &p.x, Op::T);
    let db1 = row_sums(&da);
    let dx = gemm(&p.w1, Op::T, &da, Op::N);
    dz.data.iter_mut().for_each(|v| *v = -*v);
    (
        sq / batch,
        MlpBatchGrad {
            w1: dw1,
            b1: db1,
            w2: dw2,
            b2: db2,
            x: dx,
            y: dz,
        },
    )
}

/// The Gaussian process workload: log length scale, log signal and noise amplitudes, inputs
/// and observations.
#[derive(Clone, PartialEq, Debug)]
pub struct Gp {
    pub log_l: f64,
    pub log_sf: f64,
    pub log_sn: f64,
    pub x: Vec<f64>,
    pub y: Vec<f64>,
}

/// Its gradient with respect to every argument.
#[derive(Clone, PartialEq, Debug)]
pub struct GpGrad {
    pub log_l: f64,
    pub log_sf: f64,
    pub log_sn: f64,
    pub x: Vec<f64>,
    pub y: Vec<f64>,
}

/// A square matrix stored by rows (`[i * n + j]`), so that the rows of the triangular factors
/// the algorithms walk are contiguous.
struct Square {
    n: usize,
    data: Vec<f64>,
}

impl Square {
    fn row(&self, i: usize) -> &[f64] {
        &self.data[i * self.n..(i + 1) * self.n]
    }
}

/// `(L, E)`: the Cholesky factor of `K = σf^2 E + σn^2 I` with `E[i, j] = exp(-(x[i] -
/// x[j])^2 / (2ℓ^2))`, and `E`.
fn gp_factor(p: &Gp) -> (Square, Square) {
    let n = p.x.len();
    let (l, sf2, sn2) = (
        p.log_l.exp(),
        (2.0 * p.log_sf).exp(),
        (2.0 * p.log_sn).exp(),
    );
    let mut e = Square {
        n,
        data: vec![0.0; n * n],
    };
    for i in 0..n {
        for j in 0..n {
            let d = p.x[i] - p.x[j];
            e.data[i * n + j] = (-d * d / (2.0 * l * l)).exp();
        }
    }
    // Cholesky by rows: L[i, j] = (K[i, j] - L[i, :j] . L[j, :j]) / L[j, j].
    let mut chol = Square {
        n,
        data: vec![0.0; n * n],
    };
    for i in 0..n {
        for j in 0..=i {
            let mut k = sf2 * e.data[i * n + j];
            if i == j {
                k += sn2;
            }
            let s = k - super::dot(&chol.row(i)[..j], &chol.row(j)[..j]);
            chol.data[i * n + j] = if i == j {
                s.sqrt()
            } else {
                s / chol.data[j * n + j]
            };
        }
    }
    (chol, e)
}

/// `z` with `L z = y`.
fn forward_solve(l: &Square, y: &[f64]) -> Vec<f64> {
    let mut z = vec![0.0; y.len()];
    for i in 0..y.len() {
        let t = y[i] - super::dot(&l.row(i)[..i], &z[..i]);
        z[i] = t / l.data[i * l.n + i];
    }
    z
}

/// `y' K^-1 y / 2 + log det(K) / 2 + n log(2π) / 2` from `L` and `z = L^-1 y`.
fn gp_value(l: &Square, z: &[f64]) -> f64 {
    let logdet: f64 = (0..l.n).map(|i| 2.0 * l.data[i * l.n + i].ln()).sum();
    (super::dot(z, z) + logdet + l.n as f64 * (2.0 * std::f64::consts::PI).ln()) / 2.0
}

/// The negative log-likelihood.
pub fn gp_nll(p: &Gp) -> f64 {
    let (l, _) = gp_factor(p);
    gp_value(&l, &forward_solve(&l, &p.y))
}

/// The negative log-likelihood and its gradient, as GP libraries compute it: with
/// `α = K^-1 y` and `W = K^-1 - α α'`, `dNLL/dK = W / 2`, contracted with the derivative of `K`
/// in each hyperparameter and input; `dNLL/dy = α`. `K^-1 = L^-T L^-1` from the factor.
pub fn gp_nll_grad(p: &Gp) -> (f64, GpGrad) {
    let n = p.x.len();
    let (l, e) = gp_factor(p);
    let z = forward_solve(&l, &p.y);
    let value = gp_value(&l, &z);
    // α = L^-T z, by back substitution down the columns of L.
    let mut alpha = z;
    for i in (0..n).rev() {
        alpha[i] /= l.data[i * n + i];
        let a = alpha[i];
        for (k, lik) in l.row(i)[..i].iter().enumerate() {
            alpha[k] -= lik * a;
        }
    }
    // M = L^-1 (lower triangular, by rows): M[i, j] = -(L[i, j..i] . M[j..i, j]) / L[i, i];
    // kept transposed so that the column M[:, j] is a contiguous row of `mt`.
    let mut mt = Square {
        n,
        data: vec![0.0; n * n],
    };
    for i in 0..n {
        let lii = l.data[i * n + i];
        mt.data[i * n + i] = 1.0 / lii;
        for j in 0..i {
            let s = super::dot(&l.row(i)[j..i], &mt.row(j)[j..i]);
            mt.data[j * n + i] = -s / lii;
        }
    }
    let (ell, sf2, sn2) = (
        p.log_l.exp(),
        (2.0 * p.log_sf).exp(),
        (2.0 * p.log_sn).exp(),
    );
    let (mut g_l, mut g_sf, mut g_sn) = (0.0, 0.0, 0.0);
    let mut gx = vec![0.0; n];
    for i in 0..n {
        for j in 0..=i {
            // K^-1[i, j] = M[:, i] . M[:, j], over the rows k >= i where both can be non-zero.
            let kinv = super::dot(&mt.row(i)[i..], &mt.row(j)[i..]);
            let w = (kinv - alpha[i] * alpha[j]) / 2.0;
            // Off the diagonal, K[i, j] and K[j, i] are one entry counted twice.
            let weight = if i == j { w } else { 2.0 * w };
            let d = p.x[i] - p.x[j];
            let k = sf2 * e.data[i * n + j];
            g_l += weight * k * d * d / (ell * ell);
            g_sf += weight * 2.0 * k;
            if i == j {
                g_sn += w * 2.0 * sn2;
            } else {
                let dx = weight * k * (-d / (ell * ell));
                gx[i] += dx;
                gx[j] -= dx;
            }
        }
    }
    (
        value,
        GpGrad {
            log_l: g_l,
            log_sf: g_sf,
            log_sn: g_sn,
            x: gx,
            y: alpha,
        },
    )
}

/// `sin(x[lo]) + ... + sin(x[hi])` by halving the range (0-based, inclusive), as the fixture
/// recurses.
pub fn tree_sum(x: &[f64], lo: usize, hi: usize) -> f64 {
    if lo == hi {
        return x[lo].sin();
    }
    let mid = (lo + hi) / 2;
    tree_sum(x, lo, mid) + tree_sum(x, mid + 1, hi)
}

/// The tree sum of the whole of `x` and its gradient `cos.(x)`, written along the same
/// recursion.
pub fn tree_sum_grad(x: &[f64]) -> (f64, Vec<f64>) {
    fn walk(x: &[f64], lo: usize, hi: usize, g: &mut [f64]) -> f64 {
        if lo == hi {
            let (s, c) = x[lo].sin_cos();
            g[lo] = c;
            return s;
        }
        let mid = (lo + hi) / 2;
        walk(x, lo, mid, g) + walk(x, mid + 1, hi, g)
    }
    let mut g = vec![0.0; x.len()];
    let y = match x.len() {
        0 => 0.0,
        n => walk(x, 0, n - 1, &mut g),
    };
    (y, g)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hand::tests::{assert_close, matrix as mat, numeric};

    #[test]
    fn rosenbrock_gradient_is_the_finite_difference() {
        let x = [0.5, -0.3, 1.2, 0.8, -1.1];
        let (y, g) = rosenbrock_grad(&x);
        assert!((y - rosenbrock(&x)).abs() < 1e-12);
        assert_close(&g, &numeric(rosenbrock, &x), 1e-7);
        // The fixture's hand-derived figures at (-1.2, 1.0).
        let (y, g) = rosenbrock_grad(&[-1.2, 1.0]);
        assert!((y - 24.2).abs() < 1e-12);
        assert_close(&g, &[-215.6, -88.0], 1e-12);
    }

    #[test]
    fn rk4_gradient_is_the_finite_difference() {
        let p = Rk4 {
            c: 0.3,
            u0: (1.0, -0.5),
            h: 0.1,
            steps: 20,
        };
        let (y, g) = rk4_grad(&p);
        assert_eq!(y, rk4(&p));
        // The fixture's figures, from the matrix form of the step.
        assert!((y - 0.5252007806321625).abs() < 1e-13);
        let with = |v: &[f64]| {
            rk4(&Rk4 {
                c: v[0],
                u0: (v[1], v[2]),
                h: v[3],
                steps: p.steps,
            })
        };
        let got = [g.c, g.u0.0, g.u0.1, g.h];
        assert_close(&got, &numeric(with, &[p.c, p.u0.0, p.u0.1, p.h]), 1e-8);
        assert_close(
            &got,
            &[
                -1.5208993730924607,
                0.8771863336225806,
                -0.34643045528348876,
                -2.8824924533410856,
            ],
            1e-12,
        );
    }

    #[test]
    fn mlp_batch_gradient_is_the_finite_difference() {
        let p = MlpBatch {
            w1: mat(5, 4, 0.3),
            b1: vec![0.1, -0.2, 0.05, 0.3, -0.1],
            w2: mat(3, 5, 0.7),
            b2: vec![0.2, 0.0, -0.4],
            x: mat(4, 6, 0.9),
            y: mat(3, 6, 0.5),
        };
        let (y, g) = mlp_batch_grad(&p);
        assert!((y - mlp_batch(&p)).abs() < 1e-14);
        let m = |w: &Mat, d: &[f64]| Mat {
            data: d.to_vec(),
            ..w.clone()
        };
        let fd = |f: &dyn Fn(&[f64]) -> MlpBatch, at: &[f64]| numeric(|d| mlp_batch(&f(d)), at);
        let w1 = fd(
            &|d| MlpBatch {
                w1: m(&p.w1, d),
                ..p.clone()
            },
            &p.w1.data,
        );
        assert_close(&g.w1.data, &w1, 1e-8);
        let b1 = fd(
            &|d| MlpBatch {
                b1: d.to_vec(),
                ..p.clone()
            },
            &p.b1,
        );
        assert_close(&g.b1, &b1, 1e-8);
        let w2 = fd(
            &|d| MlpBatch {
                w2: m(&p.w2, d),
                ..p.clone()
            },
            &p.w2.data,
        );
        assert_close(&g.w2.data, &w2, 1e-8);
        let b2 = fd(
            &|d| MlpBatch {
                b2: d.to_vec(),
                ..p.clone()
            },
            &p.b2,
        );
        assert_close(&g.b2, &b2, 1e-8);
        let x = fd(
            &|d| MlpBatch {
                x: m(&p.x, d),
                ..p.clone()
            },
            &p.x.data,
        );
        assert_close(&g.x.data, &x, 1e-8);
        let yg = fd(
            &|d| MlpBatch {
                y: m(&p.y, d),
                ..p.clone()
            },
            &p.y.data,
        );
        assert_close(&g.y.data, &yg, 1e-8);
    }

    #[test]
    fn gp_gradient_is_the_finite_difference() {
        let p = Gp {
            log_l: 0.3,
            log_sf: -0.2,
            log_sn: -1.0,
            x: vec![0.1, 0.5, 0.9, 1.4, 0.2],
            y: vec![1.0, 0.2, -0.3, 0.4, 0.8],
        };
        let (y, g) = gp_nll_grad(&p);
        assert!((y - gp_nll(&p)).abs() < 1e-13);
        let hyper = |v: &[f64]| {
            gp_nll(&Gp {
                log_l: v[0],
                log_sf: v[1],
                log_sn: v[2],
                ..p.clone()
            })
        };
        assert_close(
            &[g.log_l, g.log_sf, g.log_sn],
            &numeric(hyper, &[p.log_l, p.log_sf, p.log_sn]),
            1e-7,
        );
        let xs = |v: &[f64]| {
            gp_nll(&Gp {
                x: v.to_vec(),
                ..p.clone()
            })
        };
        assert_close(&g.x, &numeric(xs, &p.x), 1e-7);
        let ys = |v: &[f64]| {
            gp_nll(&Gp {
                y: v.to_vec(),
                ..p.clone()
            })
        };
        assert_close(&g.y, &numeric(ys, &p.y), 1e-7);
        // The fixture's single point: NLL = 1/4 + log(4π)/2, gradient (0, 1/4, 1/4, 0, 1/2).
        let one = Gp {
            log_l: 0.0,
            log_sf: 0.0,
            log_sn: 0.0,
            x: vec![0.7],
            y: vec![1.0],
        };
        let (y, g) = gp_nll_grad(&one);
        assert!((y - (0.25 + (4.0 * std::f64::consts::PI).ln() / 2.0)).abs() < 1e-14);
        assert_eq!((g.log_l, g.x[0]), (0.0, 0.0));
        assert_close(&[g.log_sf, g.log_sn, g.y[0]], &[0.25, 0.25, 0.5], 1e-14);
    }

    #[test]
    fn tree_sum_gradient_is_the_cosine() {
        let x: Vec<f64> = (1..=13).map(|i| (i as f64).cos()).collect();
        let (y, g) = tree_sum_grad(&x);
        assert_eq!(y, tree_sum(&x, 0, x.len() - 1));
        assert!((y - x.iter().map(|v| v.sin()).sum::<f64>()).abs() < 1e-14);
        let cos: Vec<f64> = x.iter().map(|v| v.cos()).collect();
        assert_eq!(g, cos);
        assert_eq!(tree_sum_grad(&[]), (0.0, vec![]));
    }
}
