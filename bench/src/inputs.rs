//! The hand-written side of a benchmark: zy's argument values as plain Rust data, the
//! hand-written forward and gradient run on them, and gradients flattened for comparison.

use std::hint::black_box;

use zy_interp::Value;

use crate::hand::workloads::{self as work, Gp, MlpBatch, Rk4};
use crate::hand::{self, Logistic, Mat, Mlp};
use crate::timing::medians_ns;

/// The inputs of one benchmark for the hand-written code.
#[derive(Clone, PartialEq, Debug)]
pub enum Hand {
    SinCos(f64),
    Pow(f64, i64),
    LogSumExp(Vec<f64>),
    Logistic(Logistic),
    Mlp(Mlp),
    Rosenbrock(Vec<f64>),
    Rk4(Rk4),
    MlpBatch(MlpBatch),
    Gp(Gp),
    TreeSum(Vec<f64>),
}

impl Hand {
    /// The inputs of benchmark `key` from zy's argument values.
    pub fn from_values(key: &str, args: &[Value]) -> Result<Hand, String> {
        let bad = || {
            format!(
                "{key}: unexpected arguments {}",
                args.iter()
                    .map(zy_interp::show)
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        };
        Ok(match (key, args) {
            ("sincos", [x]) => Hand::SinCos(number(x).ok_or_else(bad)?),
            ("loop", [x, Value::Int(n)]) => Hand::Pow(number(x).ok_or_else(bad)?, *n),
            ("logsumexp", [x]) => Hand::LogSumExp(vector(x).ok_or_else(bad)?),
            ("logistic_regression", [w, x, y]) => Hand::Logistic(Logistic {
                w: vector(w).ok_or_else(bad)?,
                x: matrix(x).ok_or_else(bad)?,
                y: vector(y).ok_or_else(bad)?,
            }),
            ("mlp", [w1, b1, w2, b2, x, Value::Int(label)]) => {
                let w2 = matrix(w2).ok_or_else(bad)?;
                let label = usize::try_from(*label)
                    .ok()
                    .filter(|l| (1..=w2.rows).contains(l))
                    .ok_or_else(bad)?;
                Hand::Mlp(Mlp {
                    w1: matrix(w1).ok_or_else(bad)?,
                    b1: vector(b1).ok_or_else(bad)?,
                    w2,
                    b2: vector(b2).ok_or_else(bad)?,
                    x: vector(x).ok_or_else(bad)?,
                    label,
                })
            }
            ("rosenbrock" | "rosenbrock_slices", [x]) => {
                Hand::Rosenbrock(vector(x).ok_or_else(bad)?)
            }
            ("rk4", [c, Value::Tuple(u0), h, Value::Int(steps)]) => {
                let [x0, v0] = &u0[..] else {
                    return Err(bad());
                };
                Hand::Rk4(Rk4 {
                    c: number(c).ok_or_else(bad)?,
                    u0: (number(x0).ok_or_else(bad)?, number(v0).ok_or_else(bad)?),
                    h: number(h).ok_or_else(bad)?,
                    steps: usize::try_from(*steps).map_err(|_| bad())?,
                })
            }
            ("mlp_batch", [w1, b1, w2, b2, x, y]) => Hand::MlpBatch(MlpBatch {
                w1: matrix(w1).ok_or_else(bad)?,
                b1: vector(b1).ok_or_else(bad)?,
                w2: matrix(w2).ok_or_else(bad)?,
                b2: vector(b2).ok_or_else(bad)?,
                x: matrix(x).ok_or_else(bad)?,
                y: matrix(y).ok_or_else(bad)?,
            }),
            ("gp_cholesky", [l, sf, sn, x, y]) => Hand::Gp(Gp {
                log_l: number(l).ok_or_else(bad)?,
                log_sf: number(sf).ok_or_else(bad)?,
                log_sn: number(sn).ok_or_else(bad)?,
                x: vector(x).ok_or_else(bad)?,
                y: vector(y).ok_or_else(bad)?,
            }),
            ("tree_sum", [x]) => Hand::TreeSum(vector(x).ok_or_else(bad)?),
            _ => return Err(bad()),
        })
    }

    /// The value and every argument's gradient, flattened in argument order (matrices
    /// column-major, integers contributing nothing), as [`flatten`] flattens zy's.
    pub fn flat_gradient(&self) -> (f64, Vec<f64>) {
        match self {
            Hand::SinCos(x) => {
                let (y, g) = hand::sin_cos_grad(*x);
                (y, vec![g])
            }
            Hand::Pow(x, n) => {
                let (y, g) = hand::pow_grad(*x, *n);
                (y, vec![g])
            }
            Hand::LogSumExp(x) => hand::logsumexp_grad(x),
            Hand::Logistic(d) => {
                let (y, g) = hand::logistic_loss_grad(d);
                (y, [g.w, g.x.data, g.y].concat())
            }
            Hand::Mlp(p) => {
                let (y, g) = hand::mlp_loss_grad(p);
                (y, [g.w1.data, g.b1, g.w2.data, g.b2, g.x].concat())
            }
            Hand::Rosenbrock(x) => work::rosenbrock_grad(x),
            Hand::Rk4(p) => {
                let (y, g) = work::rk4_grad(p);
                (y, vec![g.c, g.u0.0, g.u0.1, g.h])
            }
            Hand::MlpBatch(p) => {
                let (y, g) = work::mlp_batch_grad(p);
                (
                    y,
                    [g.w1.data, g.b1, g.w2.data, g.b2, g.x.data, g.y.data].concat(),
                )
            }
            Hand::Gp(p) => {
                let (y, g) = work::gp_nll_grad(p);
                (y, [vec![g.log_l, g.log_sf, g.log_sn], g.x, g.y].concat())
            }
            Hand::TreeSum(x) => work::tree_sum_grad(x),
        }
    }

    /// The median times of the hand-written forward function and gradient, in nanoseconds.
    pub fn time(&self) -> (f64, f64) {
        match self {
            Hand::SinCos(x) => pair(
                || {
                    black_box(hand::sin_cos(black_box(*x)));
                },
                || {
                    black_box(hand::sin_cos_grad(black_box(*x)));
                },
            ),
            Hand::Pow(x, n) => pair(
                || {
                    black_box(hand::pow(black_box(*x), black_box(*n)));
                },
                || {
                    black_box(hand::pow_grad(black_box(*x), black_box(*n)));
                },
            ),
            Hand::LogSumExp(x) => pair(
                || {
                    black_box(hand::logsumexp(black_box(x)));
                },
                || {
                    black_box(hand::logsumexp_grad(black_box(x)));
                },
            ),
            Hand::Logistic(d) => pair(
                || {
                    black_box(hand::logistic_loss(black_box(d)));
                },
                || {
                    black_box(hand::logistic_loss_grad(black_box(d)));
                },
            ),
            Hand::Mlp(p) => pair(
                || {
                    black_box(hand::mlp_loss(black_box(p)));
                },
                || {
                    black_box(hand::mlp_loss_grad(black_box(p)));
                },
            ),
            Hand::Rosenbrock(x) => pair(
                || {
                    black_box(work::rosenbrock(black_box(x)));
                },
                || {
                    black_box(work::rosenbrock_grad(black_box(x)));
                },
            ),
            Hand::Rk4(p) => pair(
                || {
                    black_box(work::rk4(black_box(p)));
                },
                || {
                    black_box(work::rk4_grad(black_box(p)));
                },
            ),
            Hand::MlpBatch(p) => pair(
                || {
                    black_box(work::mlp_batch(black_box(p)));
                },
                || {
                    black_box(work::mlp_batch_grad(black_box(p)));
                },
            ),
            Hand::Gp(p) => pair(
                || {
                    black_box(work::gp_nll(black_box(p)));
                },
                || {
                    black_box(work::gp_nll_grad(black_box(p)));
                },
            ),
            Hand::TreeSum(x) => pair(
                || {
                    let x = black_box(x);
                    black_box(x.len().checked_sub(1).map(|hi| work::tree_sum(x, 0, hi)));
                },
                || {
                    black_box(work::tree_sum_grad(black_box(x)));
                },
            ),
        }
    }
}

/// The medians of `f` and `g`, interleaved.
fn pair(mut f: impl FnMut(), mut g: impl FnMut()) -> (f64, f64) {
    let t = medians_ns(&mut [&mut f, &mut g]);
    (t[0], t[1])
}

/// The numbers of a value in order (arrays column-major; `nothing`, integers and functions
/// contribute nothing).
pub fn flatten(v: &Value) -> Vec<f64> {
    match v {
        Value::F64(x) => vec![*x],
        Value::Array(a) => a.borrow().data.to_f64(),
        Value::Tuple(vs) => vs.iter().flat_map(flatten).collect(),
        _ => Vec::new(),
    }
}

fn number(v: &Value) -> Option<f64> {
    match v {
        Value::F64(x) => Some(*x),
        _ => None,
    }
}

fn vector(v: &Value) -> Option<Vec<f64>> {
    match v {
        Value::Array(a) if a.borrow().shape.ndims() == 1 => Some(a.borrow().data.to_f64()),
        _ => None,
    }
}

fn matrix(v: &Value) -> Option<Mat> {
    match v {
        Value::Array(a) if a.borrow().shape.ndims() == 2 => {
            let a = a.borrow();
            let (rows, cols) = a.shape.rows_cols();
            Some(Mat {
                rows,
                cols,
                data: a.data.to_f64(),
            })
        }
        _ => None,
    }
}
