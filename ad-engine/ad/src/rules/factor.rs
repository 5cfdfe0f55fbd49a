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

use super::TestArg::{LitInt as L, Matrix as M, Vector as V};
use super::{Case, Emit, FwdOut, FwdStmt, RevStmt, TanOut, TanStmt};
use crate::AdError;

/// Is `p` a primitive with a rule here?
pub fn handles(p: Prim) -> bool {
    use Prim::*;
    matches!(p, Det | LogDet | Inv | Solve | CholeskyLower | Tril | Triu)
}

/// A 3×3 matrix with a positive determinant (column-major).
const A3: super::TestArg = M(3, 3, &[2.0, 0.5, -1.0, 1.0, 3.0, 0.25, 0.0, -1.5, 4.0]);

/// The test cases of these rules.
pub const CASES: &[(Prim, Case)] = &{
    use Case::{Apply, Program};
    use Prim::*;
    [
        (Det, Apply(&[A3])),
        (Det, Apply(&[M(2, 2, &[1.0, 3.0, 2.0, 4.0])])),
        (LogDet, Apply(&[A3])),
        (Inv, Apply(&[A3])),
        (Solve, Apply(&[A3, V(&[1.0, -2.0, 0.5])])),
        (
            Solve,
            Apply(&[A3, M(3, 2, &[1.0, 0.5, -1.0, 2.0, 0.0, 1.5])]),
        ),
        // A lower triangular matrix: solved by substitution.
        (
            Solve,
            Apply(&[
                M(3, 3, &[2.0, 0.5, -1.0, 0.0, 3.0, 0.25, 0.0, 0.0, 4.0]),
                V(&[1.0, -2.0, 0.5]),
            ]),
        ),
        (Tril, Apply(&[A3])),
        (Tril, Apply(&[A3, L(-1)])),
        (Triu, Apply(&[A3, L(1)])),
        // Julia's `cholesky` refuses a matrix that is not exactly symmetric, so finite
        // differences can only move symmetric inputs: `A = B Bᵀ + 2I` of a free `B`.
        (
            CholeskyLower,
            Program {
                src: "function c(a, b, d)\n    \
                      B = [a 0.5 b; -1.0 d 0.25; b 1.0 a]\n    \
                      A = B * transpose(B) + [2.0 0.0 0.0; 0.0 2.0 0.0; 0.0 0.0 2.0]\n    \
                      L = cholesky_lower(A)\n    \
                      return L[1, 1] + 2.0 * L[2, 1] - L[3, 2] + 0.5 * L[3, 3] + L[1, 3]\n\
                      end",
                name: "c",
                args: &[1.5, -0.7, 2.0],
            },
        ),
    ]
};

/// The primitives here with a pushforward: all of them.
pub const FRULES: &[Prim] = &{
    use Prim::*;
    [Det, LogDet, Inv, Solve, CholeskyLower, Tril, Triu]
};

/// The pushforward of a factorization primitive.
pub fn pushforward(e: &mut Emit, s: &TanStmt) -> Result<TanOut, AdError> {
    use Prim::*;
    let p = s.prim;
    let value = e.prim(p, s.args.clone(), s.ty.clone());
    let t = |i: usize| s.tangents.get(i).cloned().flatten();
    let m = Type::matrix_f64();
    let f = Type::Float64;
    let tangent = match p {
        Det | LogDet => t(0).map(|ta| {
            // tr(A⁻¹ Ȧ) = ⟨A⁻ᵀ, Ȧ⟩.
            let ai = e.prim(Inv, vec![s.args[0].clone()], m.clone());
            let ait = e.prim(Transpose, vec![ai], m.clone());
            let tr = e.prim(Dot, vec![ait, ta], f.clone());
            if p == Det {
                e.mul(value.clone(), tr)
            } else {
                tr
            }
        }),
        Inv => t(0).map(|ta| {
            let u = e.prim(MatMul, vec![value.clone(), ta], m.clone());
            let v = e.prim(MatMul, vec![u, value.clone()], m.clone());
            e.bcast_or_scalar(Neg, v, &m)
        }),
        Solve => {
            // Ḃ - Ȧ X, then A \ it.
            let bty = s.arg_tys[1].clone();
            let rhs = match (t(0), t(1)) {
                (None, None) => None,
                (ta, tb) => {
                    let ax = ta.map(|ta| {
                        let ax = e.prim(MatMul, vec![ta, value.clone()], bty.clone());
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
        CholeskyLower => t(0).map(|ta| {
            // Q = L⁻¹ Ȧ L⁻ᵀ = (L⁻¹ (L⁻¹ Ȧ)ᵀ)ᵀ, by substitution; Φ(Q) = (tril(Q) + tril(Q, -1)) / 2.
            let l = value.clone();
            let p1 = e.prim(Solve, vec![l.clone(), ta], m.clone());
            let p1t = e.prim(Transpose, vec![p1], m.clone());
            let q1 = e.prim(Solve, vec![l.clone(), p1t], m.clone());
            let q = e.prim(Transpose, vec![q1], m.clone());
            let low = e.prim(Tril, vec![q.clone()], m.clone());
            let strict = e.prim(Tril, vec![q, Const::Int(-1).into()], m.clone());
            let sum = e.accum(&m, low, strict);
            let half: Operand = Const::f64(0.5).into();
            let func: Operand = Const::Func("*".into()).into();
            let phi = e.prim(Broadcast, vec![func, sum, half], m.clone());
            e.prim(MatMul, vec![l, phi], m.clone())
        }),
        _ => t(0).map(|ta| {
            // tril, triu: linear.
            let mut args = vec![ta];
            args.extend(s.args[1..].iter().cloned());
            e.prim(p, args, m.clone())
        }),
    };
    Ok(TanOut { value, tangent })
}

pub fn forward(e: &mut Emit, p: Prim, s: &FwdStmt) -> Result<FwdOut, AdError> {
    use Prim::*;
    let value = e.prim(p, s.args.clone(), s.ty.clone());
    let fresh = match &s.ty {
        Type::Array(..) => e.zero_fdata(value.clone(), &s.ty),
        _ => None,
    };
    if !s.active {
        return Ok(FwdOut {
            value,
            shadow: fresh,
            residuals: vec![],
        });
    }
    let nothing = || Operand::Const(Const::Nothing);
    let sh = |i: usize| s.shadows.get(i).cloned().flatten().unwrap_or(nothing());
    let out = fresh.clone().unwrap_or(nothing());
    let residuals = match p {
        Det => vec![s.args[0].clone(), sh(0), value.clone()],
        LogDet => vec![s.args[0].clone(), sh(0)],
        Inv | CholeskyLower => vec![value.clone(), sh(0), out],
        Solve => vec![s.args[0].clone(), sh(0), value.clone(), sh(1), out],
        _ => {
            // tril, triu: the offset (a constant or an Int) and the result's shadow.
            let k = s.args.get(1).cloned().unwrap_or(Const::Int(0).into());
            vec![sh(0), out, k]
        }
    };
    Ok(FwdOut {
        value,
        shadow: fresh,
        residuals,
    })
}

pub fn reverse(e: &mut Emit, p: Prim, s: &RevStmt) -> Vec<Option<Operand>> {
    use Prim::*;
    let out = vec![None; s.arg_tys.len()];
    let r = |i: usize| s.residuals[i].clone();
    let m = Type::matrix_f64();
    let func = |name: &str| -> Operand { Const::Func(name.into()).into() };
    match p {
        Det | LogDet => {
            if let Some(dy) = s.dy.clone() {
                // Ā += ȳ y A⁻ᵀ (det) or ȳ A⁻ᵀ (logdet).
                let k = if p == Det { e.mul(dy, r(2)) } else { dy };
                let ai = e.prim(Inv, vec![r(0)], m.clone());
                let ait = e.prim(Transpose, vec![ai], m.clone());
                let g = e.prim(Broadcast, vec![func("*"), ait, k], m.clone());
                e.prim(AccumInto, vec![r(1), g], Type::Nothing);
            }
        }
        Inv => {
            // Ā -= Yᵀ Ȳ Yᵀ.
            let (y, sa, sy) = (r(0), r(1), r(2));
            let yt = e.prim(Transpose, vec![y], m.clone());
            let t = e.prim(MatMul, vec![yt.clone(), sy], m.clone());
            let u = e.prim(MatMul, vec![t, yt], m.clone());
            let g = e.bcast_or_scalar(Neg, u, &m);
            e.prim(AccumInto, vec![sa, g], Type::Nothing);
        }
        Solve => {
            // B̄ += Aᵀ \ X̄, Ā -= B̄ Xᵀ.
            let (a, sa, x, sb, sx) = (r(0), r(1), r(2), r(3), r(4));
            let bt = s.arg_tys[1].clone();
            let at = e.prim(Transpose, vec![a], m.clone());
            let gb = e.prim(Solve, vec![at, sx], bt.clone());
            e.prim(AccumInto, vec![sb, gb.clone()], Type::Nothing);
            let xt = match &bt {
                Type::Array(el, 1) => e.prim(Adjoint, vec![x], Type::Adjoint(el.clone())),
                _ => e.prim(Transpose, vec![x], bt.clone()),
            };
            let outer = e.prim(MatMul, vec![gb, xt], m.clone());
            let g = e.bcast_or_scalar(Neg, outer, &m);
            e.prim(AccumInto, vec![sa, g], Type::Nothing);
        }
        CholeskyLower => {
            let (l, sa, sl) = (r(0), r(1), r(2));
            let int = |k: i64| Operand::Const(Const::Int(k));
            let lbar = e.prim(Tril, vec![sl], m.clone());
            let lt = e.prim(Transpose, vec![l], m.clone());
            let mm = e.prim(MatMul, vec![lt.clone(), lbar], m.clone());
            let low = e.prim(Tril, vec![mm.clone(), int(0)], m.clone());
            let strict = e.prim(Tril, vec![mm, int(-1)], m.clone());
            let mirrored = e.prim(Transpose, vec![strict], m.clone());
            let sym = e.prim(Broadcast, vec![func("+"), low, mirrored], m.clone());
            // ½ L⁻ᵀ P L⁻¹ = ½ L⁻ᵀ (L⁻ᵀ P)ᵀ, P being symmetric: two triangular solves.
            let x1 = e.prim(Solve, vec![lt.clone(), sym], m.clone());
            let x1t = e.prim(Transpose, vec![x1], m.clone());
            let x2 = e.prim(Solve, vec![lt, x1t], m.clone());
            let g = e.prim(
                Broadcast,
                vec![func("*"), x2, Const::f64(0.5).into()],
                m.clone(),
            );
            e.prim(AccumInto, vec![sa, g], Type::Nothing);
        }
        _ => {
            // tril, triu: the kept entries' gradients pass through.
            let (sa, sy, k) = (r(0), r(1), r(2));
            let g = e.prim(p, vec![sy, k], s.arg_tys[0].clone());
            e.prim(AccumInto, vec![sa, g], Type::Nothing);
        }
    }
    out
}
