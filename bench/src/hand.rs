//! Hand-written forward functions and gradients of Table 2's five benchmarks: plain, efficient
//! Rust (one pass forward, one pass back, column-major loops, no tape), the limit zy is compared
//! against. Each gradient returns the value with the gradient of every differentiable argument,
//! as zy's driver does. Those of the workloads table are in [`workloads`].

pub mod workloads;

/// A column-major matrix, as Julia stores it.
#[derive(Clone, PartialEq, Debug)]
pub struct Mat {
    pub rows: usize,
    pub cols: usize,
    /// Element `(i, j)` (0-based) at `i + j * rows`.
    pub data: Vec<f64>,
}

impl Mat {
    /// A zero matrix.
    pub fn zeros(rows: usize, cols: usize) -> Mat {
        Mat {
            rows,
            cols,
            data: vec![0.0; rows * cols],
        }
    }

    /// Column `j` (0-based).
    pub fn col(&self, j: usize) -> &[f64] {
        &self.data[j * self.rows..(j + 1) * self.rows]
    }
}

/// `sin(cos(x))`.
pub fn sin_cos(x: f64) -> f64 {
    x.cos().sin()
}

/// `sin(cos(x))` and its derivative `cos(cos x) (-sin x)`.
pub fn sin_cos_grad(x: f64) -> (f64, f64) {
    let (s, c) = x.sin_cos();
    let (sc, cc) = c.sin_cos();
    (sc, -cc * s)
}

/// `x^n` by `n` multiplications.
pub fn pow(x: f64, n: i64) -> f64 {
    let mut r = 1.0;
    for _ in 0..n {
        r *= x;
    }
    r
}

/// `x^n` by `n` multiplications, and its derivative carried along (no tape needed).
pub fn pow_grad(x: f64, n: i64) -> (f64, f64) {
    let (mut r, mut dr) = (1.0, 0.0);
    for _ in 0..n {
        dr = dr * x + r;
        r *= x;
    }
    (r, dr)
}

/// `m + log(sum(exp.(x .- m)))` with `m = maximum(x)`.
pub fn logsumexp(x: &[f64]) -> f64 {
    let m = x.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    m + x.iter().map(|&v| (v - m).exp()).sum::<f64>().ln()
}

/// Log-sum-exp and its gradient, the softmax of `x`.
pub fn logsumexp_grad(x: &[f64]) -> (f64, Vec<f64>) {
    let m = x.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let mut g: Vec<f64> = x.iter().map(|&v| (v - m).exp()).collect();
    let s: f64 = g.iter().sum();
    let inv = 1.0 / s;
    g.iter_mut().for_each(|e| *e *= inv);
    (m + s.ln(), g)
}

/// The data of the logistic regression: weights, samples (one per row) and ±1 labels.
#[derive(Clone, PartialEq, Debug)]
pub struct Logistic {
    pub w: Vec<f64>,
    pub x: Mat,
    pub y: Vec<f64>,
}

/// The gradient of the logistic loss with respect to each argument.
#[derive(Clone, PartialEq, Debug)]
pub struct LogisticGrad {
    pub w: Vec<f64>,
    pub x: Mat,
    pub y: Vec<f64>,
}

fn softplus(t: f64) -> f64 {
    (-t).exp().ln_1p()
}

/// `z = X w`.
fn mat_vec(a: &Mat, v: &[f64]) -> Vec<f64> {
    let mut out = vec![0.0; a.rows];
    for (j, &vj) in v.iter().enumerate() {
        for (o, &aij) in out.iter_mut().zip(a.col(j)) {
            *o += aij * vj;
        }
    }
    out
}

/// `A' v`.
fn mat_t_vec(a: &Mat, v: &[f64]) -> Vec<f64> {
    (0..a.cols).map(|j| dot(a.col(j), v)).collect()
}

/// `u . v` with four partial sums, so that the additions pipeline (and vectorise).
fn dot(u: &[f64], v: &[f64]) -> f64 {
    let mut acc = [0.0; 4];
    let (u4, v4) = (u.chunks_exact(4), v.chunks_exact(4));
    let tail: f64 = u4
        .remainder()
        .iter()
        .zip(v4.remainder())
        .map(|(x, y)| x * y)
        .sum();
    for (a, b) in u4.zip(v4) {
        for k in 0..4 {
            acc[k] += a[k] * b[k];
        }
    }
    (acc[0] + acc[1]) + (acc[2] + acc[3]) + tail
}

/// `u v'`.
fn outer(u: &[f64], v: &[f64]) -> Mat {
    let mut m = Mat::zeros(u.len(), v.len());
    for (j, &vj) in v.iter().enumerate() {
        for (o, &ui) in m.data[j * u.len()..(j + 1) * u.len()].iter_mut().zip(u) {
            *o = ui * vj;
        }
    }
    m
}

/// The mean logistic loss `sum(softplus.(y .* (X w))) / n`.
pub fn logistic_loss(d: &Logistic) -> f64 {
    let z = mat_vec(&d.x, &d.w);
    z.iter()
        .zip(&d.y)
        .map(|(z, y)| softplus(y * z))
        .sum::<f64>()
        / d.y.len() as f64
}

/// The logistic loss and its gradient: with `t = y z` and `s = softplus'(t) / n`,
/// `dz = s y`, `dw = X' dz`, `dX = dz w'`, `dy = s z`.
pub fn logistic_loss_grad(d: &Logistic) -> (f64, LogisticGrad) {
    let n = d.y.len() as f64;
    let z = mat_vec(&d.x, &d.w);
    let mut loss = 0.0;
    let mut dz = vec![0.0; z.len()];
    let mut dy = vec![0.0; z.len()];
    for i in 0..z.len() {
        let t = d.y[i] * z[i];
        loss += softplus(t);
        let s = -1.0 / (1.0 + t.exp()) / n;
        dz[i] = s * d.y[i];
        dy[i] = s * z[i];
    }
    let dw = mat_t_vec(&d.x, &dz);
    let dx = outer(&dz, &d.w);
    (
        loss / n,
        LogisticGrad {
            w: dw,
            x: dx,
            y: dy,
        },
    )
}

/// A 2-layer perceptron with one sample: weights, biases, input and the 1-based label.
#[derive(Clone, PartialEq, Debug)]
pub struct Mlp {
    pub w1: Mat,
    pub b1: Vec<f64>,
    pub w2: Mat,
    pub b2: Vec<f64>,
    pub x: Vec<f64>,
    pub label: usize,
}

/// The gradient of the MLP loss with respect to each array argument.
#[derive(Clone, PartialEq, Debug)]
pub struct MlpGrad {
    pub w1: Mat,
    pub b1: Vec<f64>,
    pub w2: Mat,
    pub b2: Vec<f64>,
    pub x: Vec<f64>,
}

/// `h = tanh.(W1 x + b1)`, `z = W2 h + b2`.
fn mlp_layers(p: &Mlp) -> (Vec<f64>, Vec<f64>) {
    let mut h = mat_vec(&p.w1, &p.x);
    h.iter_mut()
        .zip(&p.b1)
        .for_each(|(a, b)| *a = (*a + b).tanh());
    let mut z = mat_vec(&p.w2, &h);
    z.iter_mut().zip(&p.b2).for_each(|(a, b)| *a += b);
    (h, z)
}

/// The softmax cross-entropy `logsumexp(z) - z[label]` of the MLP's output.
pub fn mlp_loss(p: &Mlp) -> f64 {
    let (_, z) = mlp_layers(p);
    logsumexp(&z) - z[p.label - 1]
}

/// The MLP loss and its gradient: `dz = softmax(z) - e_label`, `dW2 = dz h'`,
/// `da = (W2' dz) .* (1 - h.^2)`, `dW1 = da x'`, `dx = W1' da`.
pub fn mlp_loss_grad(p: &Mlp) -> (f64, MlpGrad) {
    let (h, z) = mlp_layers(p);
    let (lse, mut dz) = logsumexp_grad(&z);
    dz[p.label - 1] -= 1.0;
    let dw2 = outer(&dz, &h);
    let mut da = mat_t_vec(&p.w2, &dz);
    da.iter_mut().zip(&h).for_each(|(d, h)| *d *= 1.0 - h * h);
    let dw1 = outer(&da, &p.x);
    let dx = mat_t_vec(&p.w1, &da);
    let loss = lse - z[p.label - 1];
    (
        loss,
        MlpGrad {
            w1: dw1,
            b1: da,
            w2: dw2,
            b2: dz,
            x: dx,
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Central differences of `f` at `x` along each coordinate.
    pub(crate) fn numeric(f: impl Fn(&[f64]) -> f64, x: &[f64]) -> Vec<f64> {
        let mut x = x.to_vec();
        (0..x.len())
            .map(|i| {
                let h = 1e-6 * x[i].abs().max(1.0);
                let x0 = x[i];
                x[i] = x0 + h;
                let up = f(&x);
                x[i] = x0 - h;
                let down = f(&x);
                x[i] = x0;
                (up - down) / (2.0 * h)
            })
            .collect()
    }

    pub(crate) fn assert_close(got: &[f64], want: &[f64], tol: f64) {
        assert_eq!(got.len(), want.len());
        for (i, (g, w)) in got.iter().zip(want).enumerate() {
            assert!(
                (g - w).abs() <= tol * w.abs().max(1.0),
                "entry {i}: {g} vs {w}"
            );
        }
    }

    pub(crate) fn matrix(rows: usize, cols: usize, a: f64) -> Mat {
        let data = (0..rows * cols)
            .map(|k| a * ((k % rows + 1) as f64 * (k / rows + 1) as f64 + a).sin())
            .collect();
        Mat { rows, cols, data }
    }

    fn vector(n: usize, a: f64) -> Vec<f64> {
        (1..=n).map(|i| a * (i as f64 + a).sin()).collect()
    }

    #[test]
    fn scalar_gradients_match_their_closed_forms() {
        let (y, g) = sin_cos_grad(1.0);
        assert_eq!(y, sin_cos(1.0));
        assert!((y - 0.5143952585235492).abs() < 1e-15);
        assert!((g - -0.7216061490634433).abs() < 1e-15);
        // The fixture's figures: 1.001^1000 and 1000 * 1.001^999 by repeated multiplication.
        let (y, g) = pow_grad(1.001, 1000);
        assert_eq!(y, pow(1.001, 1000));
        assert_eq!(y, 2.7169239322355985);
        assert!((g - 2714.2097225130806).abs() < 1e-9);
        assert_eq!(pow_grad(2.0, 3), (8.0, 12.0));
    }

    #[test]
    fn logsumexp_gradient_is_the_finite_difference() {
        let x = vector(7, 0.8);
        let (y, g) = logsumexp_grad(&x);
        assert!((y - logsumexp(&x)).abs() < 1e-15);
        assert_close(&g, &numeric(logsumexp, &x), 1e-8);
        // exp of 1000 would overflow without the shift by the maximum.
        assert_eq!(logsumexp_grad(&[1000.0, 1000.0]).1, vec![0.5, 0.5]);
    }

    #[test]
    fn logistic_gradient_is_the_finite_difference() {
        let d = Logistic {
            w: vector(3, 0.4),
            x: matrix(5, 3, 0.7),
            y: vec![1.0, -1.0, -1.0, 1.0, -1.0],
        };
        let (y, g) = logistic_loss_grad(&d);
        assert!((y - logistic_loss(&d)).abs() < 1e-15);
        let with_w = |w: &[f64]| {
            logistic_loss(&Logistic {
                w: w.to_vec(),
                ..d.clone()
            })
        };
        assert_close(&g.w, &numeric(with_w, &d.w), 1e-8);
        let with_x = |x: &[f64]| {
            logistic_loss(&Logistic {
                x: Mat {
                    data: x.to_vec(),
                    ..d.x.clone()
                },
                ..d.clone()
            })
        };
        assert_close(&g.x.data, &numeric(with_x, &d.x.data), 1e-8);
        let with_y = |y: &[f64]| {
            logistic_loss(&Logistic {
                y: y.to_vec(),
                ..d.clone()
            })
        };
        assert_close(&g.y, &numeric(with_y, &d.y), 1e-8);
    }

    #[test]
    fn mlp_gradient_is_the_finite_difference() {
        let p = Mlp {
            w1: matrix(5, 4, 0.3),
            b1: vector(5, 0.1),
            w2: matrix(3, 5, 0.7),
            b2: vector(3, 0.2),
            x: vector(4, 0.9),
            label: 2,
        };
        let (y, g) = mlp_loss_grad(&p);
        assert!((y - mlp_loss(&p)).abs() < 1e-14);
        let m = |w: &Mat, d: &[f64]| Mat {
            data: d.to_vec(),
            ..w.clone()
        };
        assert_close(
            &g.w1.data,
            &numeric(
                |d| {
                    mlp_loss(&Mlp {
                        w1: m(&p.w1, d),
                        ..p.clone()
                    })
                },
                &p.w1.data,
            ),
            1e-8,
        );
        assert_close(
            &g.b1,
            &numeric(
                |d| {
                    mlp_loss(&Mlp {
                        b1: d.to_vec(),
                        ..p.clone()
                    })
                },
                &p.b1,
            ),
            1e-8,
        );
        assert_close(
            &g.w2.data,
            &numeric(
                |d| {
                    mlp_loss(&Mlp {
                        w2: m(&p.w2, d),
                        ..p.clone()
                    })
                },
                &p.w2.data,
            ),
            1e-8,
        );
        assert_close(
            &g.b2,
            &numeric(
                |d| {
                    mlp_loss(&Mlp {
                        b2: d.to_vec(),
                        ..p.clone()
                    })
                },
                &p.b2,
            ),
            1e-8,
        );
        assert_close(
            &g.x,
            &numeric(
                |d| {
                    mlp_loss(&Mlp {
                        x: d.to_vec(),
                        ..p.clone()
                    })
                },
                &p.x,
            ),
            1e-8,
        );
    }
}
