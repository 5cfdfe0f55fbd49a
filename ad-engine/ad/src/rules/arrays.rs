//! Rules of Float64 arrays. An array's gradient is its shadow (same shape), updated in place by
//! the reverse fragments: indexing adds into one entry, reductions spread into every entry.
//! `setindex!` saves the overwritten value so the reverse pass restores the primal.

use zy_ir::{Const, Operand, Prim, Type};

use super::TestArg::{Float as F, LitInt as L, Matrix as M, Vector as V};
use super::{Case, Emit, FwdOut, FwdStmt, RevStmt};
use crate::tangent::{fdata_type, has_fdata};
use crate::AdError;

/// Is `p` an array primitive with a rule here?
pub fn handles(p: Prim) -> bool {
    use Prim::*;
    matches!(
        p,
        GetIndex
            | SetIndex
            | AccumInto
            | Sum
            | Prod
            | Maximum
            | Minimum
            | Dot
            | Vect
            | Hvcat
            | Copy
            | Fill
            | MatMul
            | Transpose
            | Adjoint
            | First
            | Last
            | Unbroadcast
    )
}

const X1: &[f64] = &[1.5, -2.0, 0.5];
const Y1: &[f64] = &[0.3, 0.7, -1.1];
const X2: &[f64] = &[-0.4, 2.5, 1.25];
const Y2: &[f64] = &[1.0, -0.5, 2.0];
/// A 2×3 matrix, column-major.
const A: super::TestArg = M(2, 3, &[1.0, -2.0, 0.5, 3.0, 1.5, -0.5]);

/// The test cases of these rules.
pub const CASES: &[(Prim, Case)] = &{
    use Case::{Apply, Program};
    use Prim::*;
    [
        (Sum, Apply(&[V(X1)])),
        (Sum, Apply(&[V(X2)])),
        (Prod, Apply(&[V(X1)])),
        (Prod, Apply(&[V(X2)])),
        (Prod, Apply(&[V(&[1.5, 0.0, 2.0])])),
        (Maximum, Apply(&[V(X1)])),
        (Maximum, Apply(&[V(X2)])),
        (Minimum, Apply(&[V(X1)])),
        (Minimum, Apply(&[V(X2)])),
        (Copy, Apply(&[V(X1)])),
        (Copy, Apply(&[A])),
        (First, Apply(&[V(X1)])),
        (Last, Apply(&[V(X2)])),
        (Dot, Apply(&[V(X1), V(Y1)])),
        (Dot, Apply(&[V(X2), V(Y2)])),
        (GetIndex, Apply(&[V(X1), L(2)])),
        (GetIndex, Apply(&[A, L(2), L(3)])),
        (SetIndex, Apply(&[V(X1), F(4.0), L(3)])),
        (SetIndex, Apply(&[A, F(9.0), L(1), L(2)])),
        (AccumInto, Apply(&[V(X1), V(Y1)])),
        (AccumInto, Apply(&[V(X2), F(0.5)])),
        (Vect, Apply(&[F(1.0), F(-2.0), F(3.5)])),
        (Fill, Apply(&[F(0.7), L(3)])),
        (MatMul, Apply(&[A, V(X1)])),
        (
            MatMul,
            Apply(&[A, M(3, 2, &[1.0, 0.5, -1.0, 2.0, 0.0, 1.5])]),
        ),
        // Products with a row operand (the quadratic form `x' A x`, an outer product).
        (
            MatMul,
            Program {
                src: "q(a, b, c) = (x = [a, b, c]; x' * [2.0 1.0 0.0; 1.0 3.0 -1.0; 0.0 -1.0 4.0] * x)",
                name: "q",
                args: &[0.5, -1.5, 2.0],
            },
        ),
        (
            MatMul,
            Program {
                src: "o(a, b, c) = (y = [a, b] * [c, a * c, 1.0]'; y[1, 2] * y[2, 3] + y[2, 1])",
                name: "o",
                args: &[0.7, -1.2, 1.5],
            },
        ),
        (
            MatMul,
            Program {
                src: "r(a, b) = (z = [a, b]' * [1.0 -2.0 0.5; 3.0 0.25 -1.0]; z[1] * z[3] + z[2])",
                name: "r",
                args: &[1.3, -0.4],
            },
        ),
        (Transpose, Apply(&[A])),
        (Adjoint, Apply(&[A])),
        (Hvcat, Apply(&[L(2), L(2), F(1.0), F(2.0), F(3.0), F(4.0)])),
        // The row sums, the column sums (as a 1×3 matrix) and the total of a 2×3 matrix.
        (Unbroadcast, Apply(&[A, V(&[0.0, 0.0])])),
        (Unbroadcast, Apply(&[A, M(1, 3, &[0.0, 0.0, 0.0])])),
        (Unbroadcast, Apply(&[A, M(1, 1, &[0.0])])),
    ]
};

pub fn forward(e: &mut Emit, p: Prim, s: &FwdStmt) -> Result<FwdOut, AdError> {
    use Prim::*;
    let sh = |i: usize| s.shadows.get(i).cloned().flatten();
    if p == SetIndex {
        // x[i] = v: keep the old x[i].
        let idx = s.args[2..].to_vec();
        let elem = s.arg_tys[0].elem().cloned().unwrap_or(Type::Nothing);
        let mut get = vec![s.args[0].clone()];
        get.extend(idx.iter().cloned());
        let old = e.prim(GetIndex, get, elem);
        let value = e.prim(SetIndex, s.args.clone(), s.ty.clone());
        let mut residuals = vec![
            s.args[0].clone(),
            sh(0).unwrap_or(Const::Nothing.into()),
            old,
        ];
        residuals.extend(idx);
        return Ok(FwdOut {
            value,
            shadow: None,
            residuals,
        });
    }
    if p == AccumInto {
        // dst += x in place: dst's gradient passes through; x gets it (summed for a number).
        let value = e.prim(p, s.args.clone(), s.ty.clone());
        let residuals = vec![
            s.args[0].clone(),
            s.args[1].clone(),
            sh(0).unwrap_or(Const::Nothing.into()),
            sh(1).unwrap_or(Const::Nothing.into()),
        ];
        return Ok(FwdOut {
            value,
            shadow: None,
            residuals,
        });
    }
    let value = e.prim(p, s.args.clone(), s.ty.clone());
    if matches!(p, Transpose | Adjoint)
        && matches!(s.arg_tys[0], Type::Array(_, 1) | Type::Adjoint(_))
    {
        // A row view of a vector: its shadow is the same view of the vector's shadow.
        let shadow = sh(0).map(|x| e.prim(p, vec![x], fdata_type(&s.ty)));
        return Ok(FwdOut {
            value,
            shadow,
            residuals: vec![],
        });
    }
    let fresh = if has_fdata(&s.ty) {
        e.zero_fdata(value.clone(), &s.ty)
    } else {
        None
    };
    if !s.active {
        return Ok(FwdOut {
            value,
            shadow: fresh,
            residuals: vec![],
        });
    }
    let nothing = || Operand::Const(Const::Nothing);
    let residuals = match p {
        GetIndex | First | Last => {
            let mut r = vec![sh(0).unwrap_or(nothing())];
            r.extend(s.args[1..].iter().cloned());
            if p != GetIndex {
                let len = e.prim(Length, vec![s.args[0].clone()], Type::Int64);
                r.push(len);
            }
            r
        }
        Sum => vec![sh(0).unwrap_or(nothing())],
        Prod => vec![s.args[0].clone(), sh(0).unwrap_or(nothing()), value.clone()],
        Maximum | Minimum => vec![s.args[0].clone(), sh(0).unwrap_or(nothing())],
        Hvcat => vec![fresh.clone().unwrap_or(nothing())],
        Dot => vec![
            s.args[0].clone(),
            sh(0).unwrap_or(nothing()),
            s.args[1].clone(),
            sh(1).unwrap_or(nothing()),
        ],
        Vect | Fill | Transpose | Adjoint => vec![
            fresh.clone().unwrap_or(nothing()),
            sh(0).unwrap_or(nothing()),
        ],
        Copy => vec![
            fresh.clone().unwrap_or(nothing()),
            sh(0).unwrap_or(nothing()),
        ],
        Unbroadcast => vec![
            fresh.clone().unwrap_or(nothing()),
            sh(0).unwrap_or(nothing()),
            s.args[0].clone(),
        ],
        _ => {
            // MatMul of Matrix*Vector, Matrix*Matrix, row*Vector, row*Matrix, Vector*row: the
            // shapes whose gradients `Ȳ Bᵀ` and `Aᵀ Ȳ` have their operands' shapes again.
            let ok = matches!(
                (&s.arg_tys[0], &s.arg_tys[1]),
                (Type::Array(_, 2), Type::Array(..))
                    | (Type::Adjoint(_), Type::Array(..))
                    | (Type::Array(_, 1), Type::Adjoint(_))
            );
            if !ok {
                return Err(AdError::new(
                    e.span,
                    format!(
                        "cannot differentiate `*` of {} and {}",
                        s.arg_tys[0], s.arg_tys[1]
                    ),
                ));
            }
            vec![
                s.args[0].clone(),
                sh(0).unwrap_or(nothing()),
                s.args[1].clone(),
                sh(1).unwrap_or(nothing()),
                fresh.clone().unwrap_or(nothing()),
            ]
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
    let n = s.arg_tys.len();
    let mut out = vec![None; n];
    let r = |i: usize| s.residuals[i].clone();
    let f = Type::Float64;
    let float_arg = |i: usize| s.arg_tys.get(i) == Some(&Type::Float64);
    match p {
        GetIndex | First | Last => {
            let Some(dy) = s.dy.clone() else { return out };
            let idx = match p {
                GetIndex => s.residuals[1..].to_vec(),
                First => vec![Const::Int(1).into()],
                _ => vec![r(s.residuals.len() - 1)],
            };
            add_at(e, r(0), idx, dy);
        }
        SetIndex => {
            let (x, sx, old) = (r(0), r(1), r(2));
            let idx = s.residuals[3..].to_vec();
            let mut restore = vec![x, old.clone()];
            restore.extend(idx.iter().cloned());
            e.prim(SetIndex, restore, s.ty.clone());
            if float_arg(1) && sx.as_const().is_none() {
                let mut get = vec![sx.clone()];
                get.extend(idx.iter().cloned());
                let g = e.prim(GetIndex, get, f.clone());
                let mut zero = vec![sx, Const::f64(0.0).into()];
                zero.extend(idx);
                e.prim(SetIndex, zero, f.clone());
                out[1] = Some(match s.dy.clone() {
                    Some(dy) => e.add(g, dy),
                    None => g,
                });
            }
        }
        AccumInto => {
            // Undo the addition, then pass dst's gradient on to x.
            let (dst, x, sdst, sx) = (r(0), r(1), r(2), r(3));
            let xt = s.arg_tys[1].clone();
            let neg = e.bcast_or_scalar(Neg, x, &xt);
            e.prim(AccumInto, vec![dst, neg], Type::Nothing);
            if sdst.as_const().is_none() {
                match &xt {
                    Type::Float64 => out[1] = Some(e.prim(Sum, vec![sdst], f.clone())),
                    Type::Array(..) | Type::Adjoint(_) if sx.as_const().is_none() => {
                        e.prim(AccumInto, vec![sx, sdst], Type::Nothing);
                    }
                    _ => {}
                }
            }
        }
        Sum => {
            if let Some(dy) = s.dy.clone() {
                e.prim(AccumInto, vec![r(0), dy], Type::Nothing);
            }
        }
        Maximum | Minimum => {
            // ChainRules' (and Julia's `findmax`) choice: the first extreme entry, in `isless`
            // order (a NaN wins), gets ȳ.
            if let Some(dy) = s.dy.clone() {
                let (x, sx) = (r(0), r(1));
                let find = if p == Maximum { FindMax } else { FindMin };
                let tty = Type::tuple([f.clone(), Type::Int64]);
                let found = e.prim(find, vec![x], tty.clone());
                let i = e.field(found, 1, &tty);
                add_at(e, sx, vec![i], dy);
            }
        }
        Prod => {
            if let Some(dy) = s.dy.clone() {
                prod_reverse(e, &s.arg_tys[0], r(0), r(1), dy);
            }
        }
        Hvcat => {
            // Elements are in row-major order after the two shape constants.
            if let (Some(Some(Const::Int(_))), Some(Some(Const::Int(cols)))) =
                (s.consts.first(), s.consts.get(1))
            {
                for (i, o) in out.iter_mut().enumerate().skip(2) {
                    if float_arg(i) {
                        let k = (i - 2) as i64;
                        let (row, col) = (k / cols + 1, k % cols + 1);
                        let idx = vec![r(0), Const::Int(row).into(), Const::Int(col).into()];
                        *o = Some(e.prim(GetIndex, idx, f.clone()));
                    }
                }
            }
        }
        Dot => {
            if let Some(dy) = s.dy.clone() {
                // ā += ȳ b, b̄ += ȳ a
                for (x, sother) in [(r(2), r(1)), (r(0), r(3))] {
                    let t = e.prim(
                        Broadcast,
                        vec![Const::Func("*".into()).into(), x, dy.clone()],
                        s.arg_tys[0].clone(),
                    );
                    e.prim(AccumInto, vec![sother, t], Type::Nothing);
                }
            }
        }
        Vect => {
            for (i, o) in out.iter_mut().enumerate() {
                if float_arg(i) {
                    *o = Some(e.prim(
                        GetIndex,
                        vec![r(0), Const::Int(i as i64 + 1).into()],
                        f.clone(),
                    ));
                }
            }
        }
        Fill => {
            if float_arg(0) {
                out[0] = Some(e.prim(Sum, vec![r(0)], f.clone()));
            }
        }
        Copy => {
            e.prim(AccumInto, vec![r(1), r(0)], Type::Nothing);
        }
        Unbroadcast => {
            // Linear: the result's gradient spreads back over the dimensions it summed.
            let (sy, sc, c) = (r(0), r(1), r(2));
            let ct = s.arg_tys[0].clone();
            let zeros = e.prim(Similar, vec![c], ct.clone());
            let g = e.prim(Broadcast, vec![func("+"), zeros, sy], ct);
            e.prim(AccumInto, vec![sc, g], Type::Nothing);
        }
        Transpose | Adjoint => {
            if matches!(s.arg_tys[0], Type::Array(_, 2)) {
                let t = e.prim(Transpose, vec![r(0)], s.arg_tys[0].clone());
                e.prim(AccumInto, vec![r(1), t], Type::Nothing);
            }
        }
        MatMul
            if matches!(
                (&s.arg_tys[0], &s.arg_tys[1]),
                (Type::Adjoint(_), Type::Array(_, 1))
            ) =>
        {
            // y = a' b (a number): ā += ȳ b, b̄ += ȳ a.
            if let Some(dy) = s.dy.clone() {
                let (a, sa, b, sb) = (r(0), r(1), r(2), r(3));
                let gb = e.prim(
                    Broadcast,
                    vec![func("*"), a, dy.clone()],
                    s.arg_tys[0].clone(),
                );
                let ga = e.prim(Broadcast, vec![func("*"), b, dy], s.arg_tys[1].clone());
                e.prim(AccumInto, vec![sa, ga], Type::Nothing);
                e.prim(AccumInto, vec![sb, gb], Type::Nothing);
            }
        }
        _ => {
            // Y = A * B: Ā += Ȳ Bᵀ, B̄ += Aᵀ Ȳ, each operand a vector (a column), a row or a
            // matrix: the transpose of a vector is a row and of a row a vector.
            let (a, sa, b, sb, sy) = (r(0), r(1), r(2), r(3), r(4));
            let (ta, tb) = (s.arg_tys[0].clone(), s.arg_tys[1].clone());
            let bt = transposed(e, b, &tb);
            let ga = e.prim(MatMul, vec![sy.clone(), bt], ta.clone());
            e.prim(AccumInto, vec![sa, ga], Type::Nothing);
            let at = transposed(e, a, &ta);
            let gb = e.prim(MatMul, vec![at, sy], tb);
            e.prim(AccumInto, vec![sb, gb], Type::Nothing);
        }
    }
    out
}

/// `transpose(x)` of a product operand of type `t`: a vector's is a row sharing its elements,
/// a row's the vector, a matrix's a transposed copy.
fn transposed(e: &mut Emit, x: Operand, t: &Type) -> Operand {
    match t {
        Type::Array(el, 1) => e.prim(Prim::Adjoint, vec![x], Type::Adjoint(el.clone())),
        Type::Adjoint(el) => e.prim(Prim::Adjoint, vec![x], Type::Array(el.clone(), 1)),
        _ => e.prim(Prim::Transpose, vec![x], t.clone()),
    }
}

fn func(name: &str) -> Operand {
    Const::Func(name.into()).into()
}

fn ndims(t: &Type) -> u8 {
    match t {
        Type::Array(_, n) => *n,
        _ => 1,
    }
}

/// `x̄ᵢ += ȳ ∏_{j≠i} xⱼ` without dividing by zero: with `p` the product of the nonzero entries
/// and `z` the number of zeros, `x̄ᵢ = ȳ p / xᵢ` if `z = 0`, `ȳ p` at the zero if `z = 1`, and
/// nothing if `z > 1`.
fn prod_reverse(e: &mut Emit, xt: &Type, x: Operand, sx: Operand, dy: Operand) {
    let g = prod_gradient(e, xt, x, dy);
    e.prim(Prim::AccumInto, vec![sx, g], Type::Nothing);
}

/// `ȳ ∇prod(x)`, without dividing by a zero of `x` (ChainRules' `∇prod`): with no zero,
/// `ȳ prod(x) ./ x`; with one zero at `k`, `ȳ prod(x without k)` at `k` and zero elsewhere;
/// with more, zero.
fn prod_gradient(e: &mut Emit, xt: &Type, x: Operand, dy: Operand) -> Operand {
    use Prim::*;
    let f = Type::Float64;
    let bt = Type::Array(std::sync::Arc::new(Type::Bool), ndims(xt));
    let bc = |e: &mut Emit, name: &str, args: Vec<Operand>, t: &Type| {
        let mut a = vec![func(name)];
        a.extend(args);
        e.prim(Broadcast, a, t.clone())
    };
    let is0 = bc(e, "==", vec![x.clone(), Const::f64(0.0).into()], &bt);
    let zero = bc(e, "float", vec![is0], xt); // 1 at zeros
    let safe = bc(e, "+", vec![x, zero.clone()], xt); // zeros replaced by 1
    let p = e.prim(Prod, vec![safe.clone()], f.clone());
    let z = e.prim(Sum, vec![zero.clone()], f.clone());
    let none = e.prim(Eq, vec![z.clone(), Const::f64(0.0).into()], Type::Bool);
    let none = e.prim(Float, vec![none], f.clone());
    let one = e.prim(Eq, vec![z, Const::f64(1.0).into()], Type::Bool);
    let one = e.prim(Float, vec![one], f.clone());
    let dp = e.mul(dy, p);
    let a = e.mul(dp.clone(), none);
    let b = e.mul(dp, one);
    let quot = bc(e, "/", vec![a, safe], xt);
    let nonzero = bc(e, "-", vec![Const::f64(1.0).into(), zero.clone()], xt);
    let t1 = bc(e, "*", vec![nonzero, quot], xt);
    let t2 = bc(e, "*", vec![zero, b], xt);
    bc(e, "+", vec![t1, t2], xt)
}

/// `shadow[idx...] += g`.
fn add_at(e: &mut Emit, shadow: Operand, idx: Vec<Operand>, g: Operand) {
    let mut get = vec![shadow.clone()];
    get.extend(idx.iter().cloned());
    let cur = e.prim(Prim::GetIndex, get, Type::Float64);
    let sum = e.add(cur, g);
    let mut set = vec![shadow, sum];
    set.extend(idx);
    e.prim(Prim::SetIndex, set, Type::Float64);
}

/// The primitives whose pushforward [`pushforward`] gives.
pub const FRULES: &[Prim] = &{
    use Prim::*;
    [
        GetIndex,
        SetIndex,
        AccumInto,
        Sum,
        Prod,
        Maximum,
        Minimum,
        Dot,
        Vect,
        Hvcat,
        Copy,
        Fill,
        MatMul,
        Transpose,
        Adjoint,
        First,
        Last,
        Unbroadcast,
    ]
};

/// The pushforward of an array primitive. A Float64 array's tangent is an array of its shape,
/// written wherever the array is written: linear operations apply to the tangents as they
/// are (`sum`, `copy`, indexing, `A'`, building and writing arrays); the rest by the product
/// rule (`dot`, `*`), at the extremum's index (`maximum`), or by `∇prod` (`prod`).
pub fn pushforward(e: &mut Emit, s: &super::TanStmt) -> Result<super::TanOut, AdError> {
    use crate::forward::{dual_type, tangent_or_zero};
    use Prim::*;
    let p = s.prim;
    let value = e.prim(p, s.args.clone(), s.ty.clone());
    let dty = dual_type(&s.ty);
    let t = |i: usize| s.tangents.get(i).cloned().flatten();
    let full = |e: &mut Emit, i: usize| tangent_or_zero(e, &s.args[i], &s.arg_tys[i], t(i));
    let f = Type::Float64;
    let tangent = match p {
        // Same operation, tangents in place of the arrays: indices and sizes stay.
        GetIndex | First | Last | Sum | Copy | Transpose | Adjoint | Unbroadcast => {
            t(0).map(|tx| {
                let mut args = vec![tx];
                args.extend(s.args[1..].iter().cloned());
                e.prim(p, args, dty.clone())
            })
        }
        SetIndex => {
            if let (Some(tx), Some(tv)) = (t(0), full(e, 1)) {
                let mut args = vec![tx, tv];
                args.extend(s.args[2..].iter().cloned());
                e.prim(SetIndex, args, dual_type(&s.arg_tys[1]));
            }
            t(1)
        }
        AccumInto => {
            if let (Some(td), Some(tx)) = (t(0), t(1)) {
                e.prim(AccumInto, vec![td, tx], Type::Nothing);
            }
            None
        }
        Fill => full(e, 0).map(|tv| {
            let mut args = vec![tv];
            args.extend(s.args[1..].iter().cloned());
            e.prim(Fill, args, dty.clone())
        }),
        Vect | Hvcat if dty != Type::Nothing => {
            let skip = if p == Hvcat { 2 } else { 0 };
            let mut args: Vec<Operand> = s.args[..skip].to_vec();
            for i in skip..s.args.len() {
                args.push(full(e, i).unwrap_or(Const::f64(0.0).into()));
            }
            Some(e.prim(p, args, dty.clone()))
        }
        Maximum | Minimum => t(0).map(|tx| {
            // The tangent at the extremum's (first) index, as the reverse sends ȳ there.
            let find = if p == Maximum { FindMax } else { FindMin };
            let it = Type::tuple([f.clone(), Type::Int64]);
            let r = e.prim(find, vec![s.args[0].clone()], it.clone());
            let k = e.field(r, 1, &it);
            e.prim(GetIndex, vec![tx, k], f.clone())
        }),
        Prod => t(0).map(|tx| {
            let g = prod_gradient(e, &s.arg_tys[0], s.args[0].clone(), Const::f64(1.0).into());
            e.prim(Dot, vec![g, tx], f.clone())
        }),
        Dot | MatMul => {
            // ȧ b + a ḃ
            let da = t(0).map(|ta| e.prim(p, vec![ta, s.args[1].clone()], dty.clone()));
            let db = t(1).map(|tb| e.prim(p, vec![s.args[0].clone(), tb], dty.clone()));
            match (da, db) {
                (Some(a), Some(b)) => Some(e.accum(&dty, a, b)),
                (a, b) => a.or(b),
            }
        }
        _ => None,
    };
    Ok(super::TanOut { value, tangent })
}
