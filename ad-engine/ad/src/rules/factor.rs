//! Matrix-calculus rules of the factorization primitives (ChainRules' formulas):
//!
//! - `y = det(A)`: `Ā += ȳ y A⁻ᵀ`; `y = logdet(A)`: `Ā += ȳ A⁻ᵀ`;
//! - `Y = inv(A)`: `Ā -= Yᵀ Ȳ Yᵀ`;
//! - `X = A \ B`: `B̄ += Aᵀ \ X̄`, `Ā -= B̄ Xᵀ`;
//! - `L = cholesky_lower(A)` (`A = L Lᵀ`): with `M = Lᵀ tril(L̄)` and `P` its lower triangle
//!   mirrored above the diagonal, `Ā += ½ L⁻ᵀ P L⁻¹`, the symmetric gradient (Julia's
//!   `cholesky` accepts symmetric matrices only, so only symmetric perturbations exist);
//! - `tril(A, k)`, `triu(A, k)`: `Ā += tril(Ȳ, k)`, `triu(Ȳ, k)`.
//!
//! Their pushforwards (the same formulas forward):
//!
//! - `det`: `ẏ = y tr(A⁻¹ Ȧ)`; `logdet`: `ẏ = tr(A⁻¹ Ȧ)`; `inv`: `Ẏ = -Y Ȧ Y`;
//! - `X = A \ B`: `Ẋ = A \ (Ḃ - Ȧ X)`;
//! - `cholesky_lower`: `L̇ = L Φ(L⁻¹ Ȧ L⁻ᵀ)`, `Φ` the lower triangle with its diagonal halved;
//! - `tril`, `triu`: the same operation on the tangent.
//!
//! Every pullback and pushforward is built from primitives with rules of their own, so second
//! derivatives differentiate it again.

use zy_ir::{Const, Operand, Prim, Type};

use super::Case::{Apply, Program};
use super::Keep::Residuals;
use super::TestArg::{LitInt as L, Matrix as M, Vector as V};
use super::{or_nothing, varies, Emit, FwdStmt, RevStmt, Rule, TanStmt};
use crate::AdError;
use Prim::*;

/// A 3×3 matrix with a positive determinant (column-major).
const A3: super::TestArg = M(3, 3, &[2.0, 0.5, -1.0, 1.0, 3.0, 0.25, 0.0, -1.5, 4.0]);

/// The rules of the factorization primitives.
pub const RULES: &[Rule] = &[
    Rule {
        prim: Det,
        keep: Residuals(|_, s, y, _| Ok(vec![s.args[0].clone(), s.shadow(0), y.clone()])),
        reverse: |e, s| det_reverse(e, s, true),
        pushforward: |e, s, y| det_tangent(e, s, y, true),
        cases: &[Apply(&[A3]), Apply(&[M(2, 2, &[1.0, 3.0, 2.0, 4.0])])],
    },
    Rule {
        prim: LogDet,
        keep: Residuals(|_, s, _, _| Ok(vec![s.args[0].clone(), s.shadow(0)])),
        reverse: |e, s| det_reverse(e, s, false),
        pushforward: |e, s, y| det_tangent(e, s, y, false),
        cases: &[Apply(&[A3])],
    },
    Rule {
        prim: Inv,
        keep: Residuals(result_and_shadows),
        reverse: |e, s| {
            // Ā -= Yᵀ Ȳ Yᵀ.
            let m = Type::matrix_f64();
            let (y, sa, sy) = (s.kept(0), s.kept(1), s.kept(2));
            let yt = e.prim(Transpose, vec![y], m.clone());
            let t = e.prim(MatMul, vec![yt.clone(), sy], m.clone());
            let u = e.prim(MatMul, vec![t, yt], m.clone());
            let g = e.bcast_or_scalar(Neg, u, &m);
            e.prim(AccumInto, vec![sa, g], Type::Nothing);
            s.none()
        },
        pushforward: |e, s, y| {
            let m = Type::matrix_f64();
            s.tangent(0).map(|ta| {
                let u = e.prim(MatMul, vec![y.clone(), ta], m.clone());
                let v = e.prim(MatMul, vec![u, y.clone()], m.clone());
                e.bcast_or_scalar(Neg, v, &m)
            })
        },
        cases: &[Apply(&[A3])],
    },
    Rule {
        prim: Solve,
        keep: Residuals(|_, s, y, fresh| {
            Ok(vec![
                s.args[0].clone(),
                s.varying_shadow(0),
                y.clone(),
                s.varying_shadow(1),
                or_nothing(fresh),
            ])
        }),
        reverse: solve_reverse,
        pushforward: solve_tangent,
        cases: &[
            Apply(&[A3, V(&[1.0, -2.0, 0.5])]),
            Apply(&[A3, M(3, 2, &[1.0, 0.5, -1.0, 2.0, 0.0, 1.5])]),
            // A lower triangular matrix: solved by substitution.
            Apply(&[
                M(3, 3, &[2.0, 0.5, -1.0, 0.0, 3.0, 0.25, 0.0, 0.0, 4.0]),
                V(&[1.0, -2.0, 0.5]),
            ]),
        ],
    },
    Rule {
        prim: CholeskyLower,
        keep: Residuals(result_and_shadows),
        reverse: cholesky_reverse,
        pushforward: cholesky_tangent,
        // Julia's `cholesky` refuses a matrix that is not exactly symmetric, so finite
        // differences can only move symmetric inputs: `A = B Bᵀ + 2I` of a free `B`.
        cases: &[Program {
            src: "function c(a, b, d)\n    \
                  B = [a 0.5 b; -1.0 d 0.25; b 1.0 a]\n    \
                  A = B * transpose(B) + [2.0 0.0 0.0; 0.0 2.0 0.0; 0.0 0.0 2.0]\n    \
                  L = cholesky_lower(A)\n    \
                  return L[1, 1] + 2.0 * L[2, 1] - L[3, 2] + 0.5 * L[3, 3] + L[1, 3]\n\
                  end",
            name: "c",
            args: &[1.5, -0.7, 2.0],
        }],
    },
    Rule {
        prim: Tril,
        keep: Residuals(band_keep),
        reverse: |e, s| band_reverse(e, s, Tril),
        pushforward: band_tangent,
        cases: &[Apply(&[A3]), Apply(&[A3, L(-1)])],
    },
    Rule {
        prim: Triu,
        keep: Residuals(band_keep),
        reverse: |e, s| band_reverse(e, s, Triu),
        pushforward: band_tangent,
        cases: &[Apply(&[A3, L(1)])],
    },
];

fn func(name: &str) -> Operand {
    Const::Func(name.into()).into()
}

/// Keeps the result, the operand's shadow and the result's (`inv`, `cholesky_lower`).
fn result_and_shadows(
    _: &mut Emit,
    s: &FwdStmt,
    y: &Operand,
    fresh: Option<&Operand>,
) -> Result<Vec<Operand>, AdError> {
    Ok(vec![y.clone(), s.shadow(0), or_nothing(fresh)])
}

/// `det` (`with_y`) or `logdet`: `Ā += ȳ y A⁻ᵀ` or `ȳ A⁻ᵀ`.
fn det_reverse(e: &mut Emit, s: &RevStmt, with_y: bool) -> Vec<Option<Operand>> {
    let m = Type::matrix_f64();
    if let Some(dy) = s.dy.clone() {
        let k = if with_y { e.mul(dy, s.kept(2)) } else { dy };
        let ai = e.prim(Inv, vec![s.kept(0)], m.clone());
        let ait = e.prim(Transpose, vec![ai], m.clone());
        let g = e.prim(Broadcast, vec![func("*"), ait, k], m.clone());
        e.prim(AccumInto, vec![s.kept(1), g], Type::Nothing);
    }
    s.none()
}

/// `det` (`with_y`) or `logdet`: `ẏ = y tr(A⁻¹ Ȧ)` or `tr(A⁻¹ Ȧ)`, with `tr(A⁻¹ Ȧ) = ⟨A⁻ᵀ, Ȧ⟩`.
fn det_tangent(e: &mut Emit, s: &TanStmt, y: &Operand, with_y: bool) -> Option<Operand> {
    let m = Type::matrix_f64();
    s.tangent(0).map(|ta| {
        let ai = e.prim(Inv, vec![s.args[0].clone()], m.clone());
        let ait = e.prim(Transpose, vec![ai], m.clone());
        let tr = e.prim(Dot, vec![ait, ta], Type::Float64);
        if with_y {
            e.mul(y.clone(), tr)
        } else {
            tr
        }
    })
}

/// `X = A \ B`: `B̄ += Aᵀ \ X̄`, `Ā -= B̄ Xᵀ`; neither for an operand that does not vary (a
/// constant `A` forms no outer product), though `Ā` needs `B̄` computed.
fn solve_reverse(e: &mut Emit, s: &RevStmt) -> Vec<Option<Operand>> {
    let m = Type::matrix_f64();
    let (a, sa, x, sb, sx) = (s.kept(0), s.kept(1), s.kept(2), s.kept(3), s.kept(4));
    if !varies(&sa) && !varies(&sb) {
        return s.none();
    }
    let bt = s.arg_tys[1].clone();
    let at = e.prim(Transpose, vec![a], m.clone());
    let gb = e.prim(Solve, vec![at, sx], bt.clone());
    if varies(&sb) {
        e.prim(AccumInto, vec![sb, gb.clone()], Type::Nothing);
    }
    if !varies(&sa) {
        return s.none();
    }
    // -(B̄ Xᵀ) as (-B̄) Xᵀ: the negation on B̄'s entries instead of the n × n product's, and
    // the product added straight into Ā's shadow (compiled code fuses a product read only by
    // the `accum!` after it: no n × n temporary).
    let ngb = e.bcast_or_scalar(Neg, gb, &bt);
    let xt = match &bt {
        Type::Array(el, 1) => e.prim(Adjoint, vec![x], Type::Adjoint(el.clone())),
        _ => e.prim(Transpose, vec![x], bt.clone()),
    };
    let outer = e.prim(MatMul, vec![ngb, xt], m.clone());
    e.prim(AccumInto, vec![sa, outer], Type::Nothing);
    s.none()
}

/// `Ẋ = A \ (Ḃ - Ȧ X)`.
fn solve_tangent(e: &mut Emit, s: &TanStmt, x: &Operand) -> Option<Operand> {
    let bty = s.arg_tys[1].clone();
    let rhs = match (s.tangent(0), s.tangent(1)) {
        (None, None) => None,
        (ta, tb) => {
            let ax = ta.map(|ta| {
                let ax = e.prim(MatMul, vec![ta, x.clone()], bty.clone());
                e.bcast_or_scalar(Neg, ax, &bty)
            });
            match (ax, tb) {
                (Some(ax), Some(tb)) => Some(e.accum(&bty, tb, ax)),
                (ax, tb) => ax.or(tb),
            }
        }
    };
    rhs.map(|r| e.prim(Solve, vec![s.args[0].clone(), r], s.ty.clone()))
}

/// `L = cholesky_lower(A)`: `Ā += ½ L⁻ᵀ P L⁻¹`, `P` the lower triangle of `Lᵀ tril(L̄)`
/// mirrored above the diagonal.
fn cholesky_reverse(e: &mut Emit, s: &RevStmt) -> Vec<Option<Operand>> {
    let m = Type::matrix_f64();
    let (l, sa, sl) = (s.kept(0), s.kept(1), s.kept(2));
    let int = |k: i64| Operand::Const(Const::Int(k));
    let lbar = e.prim(Tril, vec![sl], m.clone());
    let lt = e.prim(Transpose, vec![l], m.clone());
    let mm = e.prim(MatMul, vec![lt.clone(), lbar], m.clone());
    let low = e.prim(Tril, vec![mm.clone(), int(0)], m.clone());
    let strict = e.prim(Tril, vec![mm, int(-1)], m.clone());
    let mirrored = e.prim(Transpose, vec![strict], m.clone());
    let sym = e.prim(Broadcast, vec![func("+"), low, mirrored], m.clone());
    // ½ L⁻ᵀ P L⁻¹ = L⁻ᵀ (L⁻ᵀ (½P))ᵀ, P being symmetric: two triangular solves, the halving
    // (exact, and the solves are linear) on P, where it joins the sum's loop, and the result
    // added into Ā's shadow as it comes.
    let half = e.prim(
        Broadcast,
        vec![func("*"), sym, Const::f64(0.5).into()],
        m.clone(),
    );
    let x1 = e.prim(Solve, vec![lt.clone(), half], m.clone());
    let x1t = e.prim(Transpose, vec![x1], m.clone());
    let x2 = e.prim(Solve, vec![lt, x1t], m.clone());
    e.prim(AccumInto, vec![sa, x2], Type::Nothing);
    s.none()
}

/// `L̇ = L Φ(L⁻¹ Ȧ L⁻ᵀ)`.
fn cholesky_tangent(e: &mut Emit, s: &TanStmt, l: &Operand) -> Option<Operand> {
    let m = Type::matrix_f64();
    s.tangent(0).map(|ta| {
        // Q = L⁻¹ Ȧ L⁻ᵀ = (L⁻¹ (L⁻¹ Ȧ)ᵀ)ᵀ, by substitution; Φ(Q) = (tril(Q) + tril(Q, -1)) / 2.
        let l = l.clone();
        let p1 = e.prim(Solve, vec![l.clone(), ta], m.clone());
        let p1t = e.prim(Transpose, vec![p1], m.clone());
        let q1 = e.prim(Solve, vec![l.clone(), p1t], m.clone());
        let q = e.prim(Transpose, vec![q1], m.clone());
        let low = e.prim(Tril, vec![q.clone()], m.clone());
        let strict = e.prim(Tril, vec![q, Const::Int(-1).into()], m.clone());
        let sum = e.accum(&m, low, strict);
        let half: Operand = Const::f64(0.5).into();
        let phi = e.prim(Broadcast, vec![func("*"), sum, half], m.clone());
        e.prim(MatMul, vec![l, phi], m.clone())
    })
}

/// `tril`, `triu`: the operand's shadow, the result's and the offset (a constant or an Int).
fn band_keep(
    _: &mut Emit,
    s: &FwdStmt,
    _: &Operand,
    fresh: Option<&Operand>,
) -> Result<Vec<Operand>, AdError> {
    let k = s.args.get(1).cloned().unwrap_or(Const::Int(0).into());
    Ok(vec![s.shadow(0), or_nothing(fresh), k])
}

/// `tril`, `triu` (`p`): the kept entries' gradients pass through.
fn band_reverse(e: &mut Emit, s: &RevStmt, p: Prim) -> Vec<Option<Operand>> {
    let (sa, sy, k) = (s.kept(0), s.kept(1), s.kept(2));
    let g = e.prim(p, vec![sy, k], s.arg_tys[0].clone());
    e.prim(AccumInto, vec![sa, g], Type::Nothing);
    s.none()
}

/// `tril`, `triu`: linear, the same operation on the tangent.
fn band_tangent(e: &mut Emit, s: &TanStmt, _: &Operand) -> Option<Operand> {
    s.tangent(0).map(|ta| {
        let mut args = vec![ta];
        args.extend(s.args[1..].iter().cloned());
        e.prim(s.prim, args, Type::matrix_f64())
    })
}
