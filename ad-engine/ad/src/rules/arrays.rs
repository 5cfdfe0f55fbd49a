//! Rules of Float64 arrays. An array's gradient is its shadow (same shape), updated in place by
//! the reverse fragments: indexing adds into one entry, reductions spread into every entry.
//! `setindex!` saves the overwritten value so the reverse pass restores the primal.
//!
//! A Float64 array's tangent is an array of its shape, written wherever the array is written:
//! the pushforwards of linear operations apply them to the tangents as they are (`sum`, `copy`,
//! indexing, `A'`, building and writing arrays); the rest use the product rule (`dot`, `*`),
//! the extremum's index (`maximum`), or `∇prod` (`prod`).

use zy_ir::{Const, Operand, Prim, Type};

use super::Case::{Apply, Program};
use super::Keep::{Forward, Residuals};
use super::TestArg::{Float as F, LitInt as L, Matrix as M, Vector as V};
use super::{objects, or_nothing, varies, Emit, FwdOut, FwdStmt, RevStmt, Rule, TanStmt};
use crate::forward::dual_type;
use crate::tangent::fdata_type;
use crate::AdError;
use Prim::*;

const X1: &[f64] = &[1.5, -2.0, 0.5];
const Y1: &[f64] = &[0.3, 0.7, -1.1];
const X2: &[f64] = &[-0.4, 2.5, 1.25];
const Y2: &[f64] = &[1.0, -0.5, 2.0];
/// A 2×3 matrix, column-major.
const A: super::TestArg = M(2, 3, &[1.0, -2.0, 0.5, 3.0, 1.5, -0.5]);

/// The rules of array primitives.
pub const RULES: &[Rule] = &[
    Rule {
        prim: GetIndex,
        // The array's shadow and the indices (of a vector of arrays: the element's shadow).
        keep: Forward(getindex_forward),
        reverse: |e, s| {
            if let Some(dy) = s.dy.clone() {
                if objects::is_objects(&s.arg_tys[0]) {
                    objects::add_into(e, s.kept(0), s.residuals[1..].to_vec(), dy, &s.ty);
                } else {
                    add_at(e, s.kept(0), s.residuals[1..].to_vec(), dy);
                }
            }
            s.none()
        },
        pushforward: linear,
        cases: &[Apply(&[V(X1), L(2)]), Apply(&[A, L(2), L(3)])],
    },
    Rule {
        prim: First,
        keep: Forward(|e, s| end_forward(e, s, First)),
        reverse: |e, s| {
            if let Some(dy) = s.dy.clone() {
                if objects::is_objects(&s.arg_tys[0]) {
                    objects::add_into(e, s.kept(0), vec![s.kept(1)], dy, &s.ty);
                } else {
                    add_at(e, s.kept(0), vec![Const::Int(1).into()], dy);
                }
            }
            s.none()
        },
        pushforward: linear,
        cases: &[Apply(&[V(X1)])],
    },
    Rule {
        prim: Last,
        keep: Forward(|e, s| end_forward(e, s, Last)),
        reverse: |e, s| {
            if let Some(dy) = s.dy.clone() {
                if objects::is_objects(&s.arg_tys[0]) {
                    objects::add_into(e, s.kept(0), vec![s.kept(1)], dy, &s.ty);
                } else {
                    add_at(e, s.kept(0), vec![s.kept(1)], dy);
                }
            }
            s.none()
        },
        pushforward: linear,
        cases: &[Apply(&[V(X2)])],
    },
    Rule {
        prim: SetIndex,
        keep: Forward(setindex_forward),
        reverse: |e, s| {
            if objects::is_objects(&s.arg_tys[0]) {
                objects::setindex_reverse(e, s)
            } else {
                setindex_reverse(e, s)
            }
        },
        pushforward: |e, s, _| {
            if let (Some(tx), Some(tv)) = (s.tangent(0), s.tangent_or_zero(e, 1)) {
                let mut args = vec![tx, tv];
                args.extend(s.args[2..].iter().cloned());
                e.prim(SetIndex, args, dual_type(&s.arg_tys[1]));
            }
            s.tangent(1)
        },
        cases: &[
            Apply(&[V(X1), F(4.0), L(3)]),
            Apply(&[A, F(9.0), L(1), L(2)]),
        ],
    },
    Rule {
        prim: SetLength,
        keep: Forward(setlength_forward),
        reverse: |e, s| {
            if objects::is_objects(&s.arg_tys[0]) {
                objects::setlength_reverse(e, s)
            } else {
                setlength_reverse(e, s)
            }
        },
        // The tangent changes length with the primal: new entries are the tail's tangents (or
        // zero), the removed ones are the result's tangent.
        pushforward: |e, s, _| {
            let tv = s.tangent(0)?;
            let mut args = vec![tv, s.args[1].clone()];
            if s.args.len() == 3 {
                args.push(s.tangent_or_zero(e, 2)?);
            }
            // The tangent's type: the primal's for numbers, not for structs (`Vector{Layer}`).
            Some(e.prim(SetLength, args, dual_type(&s.ty)))
        },
        cases: &[
            Apply(&[V(X1), L(5)]),
            Apply(&[V(X1), L(1)]),
            Apply(&[V(X2), L(5), V(&[0.25, -3.0])]),
            Program {
                src: "function f(x)\n    v = zeros(0)\n    for i in 1:3\n        n = length(v)\n        setlength!(v, n + 1)\n        v[n + 1] = x^i\n    end\n    setlength!(v, 2)\n    return sum(v) * v[2]\nend\n",
                name: "f",
                args: &[0.7],
            },
        ],
    },
    Rule {
        prim: AccumInto,
        keep: Forward(accum_into_forward),
        reverse: accum_into_reverse,
        pushforward: |e, s, _| {
            if let (Some(td), Some(tx)) = (s.tangent(0), s.tangent(1)) {
                e.prim(AccumInto, vec![td, tx], Type::Nothing);
            }
            None
        },
        cases: &[Apply(&[V(X1), V(Y1)]), Apply(&[V(X2), F(0.5)])],
    },
    Rule {
        prim: Sum,
        keep: Residuals(|_, s, _, _| Ok(vec![s.shadow(0)])),
        reverse: |e, s| {
            if let Some(dy) = s.dy.clone() {
                e.prim(AccumInto, vec![s.kept(0), dy], Type::Nothing);
            }
            s.none()
        },
        pushforward: linear,
        cases: &[Apply(&[V(X1)]), Apply(&[V(X2)])],
    },
    Rule {
        prim: Prod,
        keep: Residuals(|_, s, y, _| Ok(vec![s.args[0].clone(), s.shadow(0), y.clone()])),
        reverse: |e, s| {
            if let Some(dy) = s.dy.clone() {
                prod_reverse(e, &s.arg_tys[0], s.kept(0), s.kept(1), dy);
            }
            s.none()
        },
        pushforward: |e, s, _| {
            s.tangent(0).map(|tx| {
                let g = prod_gradient(e, &s.arg_tys[0], s.args[0].clone(), Const::f64(1.0).into());
                e.prim(Dot, vec![g, tx], Type::Float64)
            })
        },
        cases: &[
            Apply(&[V(X1)]),
            Apply(&[V(X2)]),
            Apply(&[V(&[1.5, 0.0, 2.0])]),
        ],
    },
    Rule {
        prim: Maximum,
        keep: Residuals(operand_and_shadow),
        reverse: |e, s| extremum_reverse(e, s, FindMax),
        pushforward: |e, s, _| extremum_tangent(e, s, FindMax),
        cases: &[Apply(&[V(X1)]), Apply(&[V(X2)])],
    },
    Rule {
        prim: Minimum,
        keep: Residuals(operand_and_shadow),
        reverse: |e, s| extremum_reverse(e, s, FindMin),
        pushforward: |e, s, _| extremum_tangent(e, s, FindMin),
        cases: &[Apply(&[V(X1)]), Apply(&[V(X2)])],
    },
    Rule {
        prim: Dot,
        keep: Residuals(|_, s, _, _| {
            Ok(vec![
                s.args[0].clone(),
                s.varying_shadow(0),
                s.args[1].clone(),
                s.varying_shadow(1),
            ])
        }),
        reverse: |e, s| {
            if let Some(dy) = s.dy.clone() {
                // ā += ȳ b, b̄ += ȳ a, each only for an operand that varies.
                for (x, sother) in [(s.kept(2), s.kept(1)), (s.kept(0), s.kept(3))] {
                    if !varies(&sother) {
                        continue;
                    }
                    let t = e.prim(
                        Broadcast,
                        vec![func("*"), x, dy.clone()],
                        s.arg_tys[0].clone(),
                    );
                    e.prim(AccumInto, vec![sother, t], Type::Nothing);
                }
            }
            s.none()
        },
        pushforward: product_rule,
        cases: &[Apply(&[V(X1), V(Y1)]), Apply(&[V(X2), V(Y2)])],
    },
    Rule {
        prim: Vect,
        keep: Forward(|e, s| {
            if objects::is_objects(&s.ty) {
                return Ok(objects::build(e, s, Vect));
            }
            fresh_forward(e, s, Vect)
        }),
        reverse: |e, s| {
            if objects::is_objects(&s.ty) {
                return objects::vect_reverse(e, s);
            }
            let mut out = s.none();
            for (i, o) in out.iter_mut().enumerate() {
                if s.float_arg(i) {
                    *o = Some(e.prim(
                        GetIndex,
                        vec![s.kept(0), Const::Int(i as i64 + 1).into()],
                        Type::Float64,
                    ));
                }
            }
            out
        },
        pushforward: |e, s, _| built(e, s, 0),
        cases: &[Apply(&[F(1.0), F(-2.0), F(3.5)])],
    },
    Rule {
        prim: Hvcat,
        keep: Residuals(|_, _, _, y| Ok(vec![or_nothing(y)])),
        reverse: hvcat_reverse,
        pushforward: |e, s, _| built(e, s, 2),
        cases: &[Apply(&[L(2), L(2), F(1.0), F(2.0), F(3.0), F(4.0)])],
    },
    Rule {
        prim: Copy,
        keep: Forward(|e, s| {
            if objects::is_mixed_union(&s.ty) {
                return Ok(objects::copy_of_union(e, s));
            }
            if objects::is_objects(&s.ty) {
                return Ok(objects::build(e, s, Copy));
            }
            fresh_forward(e, s, Copy)
        }),
        reverse: |e, s| {
            if objects::is_mixed_union(&s.ty) {
                return objects::copy_of_union_reverse(e, s);
            }
            // A shallow copy of a vector of arrays shares its elements' shadows: nothing to add.
            if !objects::is_objects(&s.ty) || objects::is_returned(&s.ty) {
                e.prim(AccumInto, vec![s.kept(1), s.kept(0)], Type::Nothing);
            }
            s.none()
        },
        pushforward: linear,
        cases: &[Apply(&[V(X1)]), Apply(&[A])],
    },
    Rule {
        prim: SliceCopy,
        // The result's fresh shadow, the array's shadow, the first index and the step.
        keep: Residuals(|_, s, _, fresh| {
            Ok(vec![
                or_nothing(fresh),
                s.shadow(0),
                s.args[1].clone(),
                s.args[2].clone(),
            ])
        }),
        // Reverse: the result's gradient added into the elements it was copied from, in place
        // (a slice in a loop costs its own length, not an array of the parent's shape).
        reverse: |e, s| {
            let (dy, dx) = (s.kept(0), s.kept(1));
            if dy.as_const().is_none() && dx.as_const().is_none() {
                e.prim(
                    AccumSlice,
                    vec![dx, s.kept(2), s.kept(3), dy],
                    Type::Nothing,
                );
            }
            s.none()
        },
        pushforward: linear,
        cases: &[
            Apply(&[V(X1), L(2), L(1), L(2)]),
            Apply(&[A, L(5), L(-2), L(3)]),
        ],
    },
    Rule {
        prim: AccumSlice,
        keep: Forward(accum_slice_forward),
        reverse: accum_slice_reverse,
        pushforward: |e, s, _| {
            if let (Some(td), Some(tx)) = (s.tangent(0), s.tangent(3)) {
                let args = vec![td, s.args[1].clone(), s.args[2].clone(), tx];
                e.prim(AccumSlice, args, Type::Nothing);
            }
            None
        },
        cases: &[
            Apply(&[A, L(1), L(2), V(Y1)]),
            Apply(&[V(X1), L(3), L(-1), V(Y2)]),
        ],
    },
    Rule {
        prim: Fill,
        keep: Residuals(fresh_and_shadow),
        reverse: |e, s| {
            let mut out = s.none();
            if s.float_arg(0) {
                out[0] = Some(e.prim(Sum, vec![s.kept(0)], Type::Float64));
            }
            out
        },
        pushforward: |e, s, _| {
            s.tangent_or_zero(e, 0).map(|tv| {
                let mut args = vec![tv];
                args.extend(s.args[1..].iter().cloned());
                e.prim(Fill, args, dual_type(&s.ty))
            })
        },
        cases: &[Apply(&[F(0.7), L(3)])],
    },
    Rule {
        prim: MatMul,
        keep: Residuals(matmul_keep),
        reverse: matmul_reverse,
        pushforward: product_rule,
        cases: &[
            Apply(&[A, V(X1)]),
            Apply(&[A, M(3, 2, &[1.0, 0.5, -1.0, 2.0, 0.0, 1.5])]),
            // Products with a row operand (the quadratic form `x' A x`, an outer product).
            Program {
                src: "q(a, b, c) = (x = [a, b, c]; x' * [2.0 1.0 0.0; 1.0 3.0 -1.0; 0.0 -1.0 4.0] * x)",
                name: "q",
                args: &[0.5, -1.5, 2.0],
            },
            Program {
                src: "o(a, b, c) = (y = [a, b] * [c, a * c, 1.0]'; y[1, 2] * y[2, 3] + y[2, 1])",
                name: "o",
                args: &[0.7, -1.2, 1.5],
            },
            Program {
                src: "r(a, b) = (z = [a, b]' * [1.0 -2.0 0.5; 3.0 0.25 -1.0]; z[1] * z[3] + z[2])",
                name: "r",
                args: &[1.3, -0.4],
            },
        ],
    },
    Rule {
        prim: Transpose,
        keep: Forward(|e, s| transpose_forward(e, s, Transpose)),
        reverse: transpose_reverse,
        pushforward: linear,
        cases: &[Apply(&[A])],
    },
    Rule {
        prim: Adjoint,
        keep: Forward(|e, s| transpose_forward(e, s, Adjoint)),
        reverse: transpose_reverse,
        pushforward: linear,
        cases: &[Apply(&[A])],
    },
    Rule {
        prim: Unbroadcast,
        keep: Residuals(|_, s, _, y| Ok(vec![or_nothing(y), s.shadow(0), s.args[0].clone()])),
        reverse: |e, s| {
            // Linear: the result's gradient spreads back over the dimensions it summed.
            let (sy, sc, c) = (s.kept(0), s.kept(1), s.kept(2));
            let ct = s.arg_tys[0].clone();
            let zeros = e.prim(Similar, vec![c], ct.clone());
            let g = e.prim(Broadcast, vec![func("+"), zeros, sy], ct);
            e.prim(AccumInto, vec![sc, g], Type::Nothing);
            s.none()
        },
        pushforward: linear,
        // The row sums, the column sums (as a 1×3 matrix) and the total of a 2×3 matrix.
        cases: &[
            Apply(&[A, V(&[0.0, 0.0])]),
            Apply(&[A, M(1, 3, &[0.0, 0.0, 0.0])]),
            Apply(&[A, M(1, 1, &[0.0])]),
        ],
    },
];

/// Keeps operand 0 and its shadow.
fn operand_and_shadow(
    _: &mut Emit,
    s: &FwdStmt,
    _: &Operand,
    _: Option<&Operand>,
) -> Result<Vec<Operand>, AdError> {
    Ok(vec![s.args[0].clone(), s.shadow(0)])
}

/// Keeps the result's fresh shadow and operand 0's.
fn fresh_and_shadow(
    _: &mut Emit,
    s: &FwdStmt,
    _: &Operand,
    fresh: Option<&Operand>,
) -> Result<Vec<Operand>, AdError> {
    Ok(vec![or_nothing(fresh), s.shadow(0)])
}

/// `length` of operand 0 (where `last` is).
fn length(e: &mut Emit, s: &FwdStmt) -> Operand {
    e.prim(Length, vec![s.args[0].clone()], Type::Int64)
}

/// The same operation on operand 0's tangent, the other operands (indices, sizes) as they
/// are: the pushforward of an operation linear in its array.
fn linear(e: &mut Emit, s: &TanStmt, _: &Operand) -> Option<Operand> {
    s.tangent(0).map(|tx| {
        let mut args = vec![tx];
        args.extend(s.args[1..].iter().cloned());
        e.prim(s.prim, args, dual_type(&s.ty))
    })
}

/// `ȧ b + a ḃ`, the pushforward of a bilinear operation (`dot`, `*`).
fn product_rule(e: &mut Emit, s: &TanStmt, _: &Operand) -> Option<Operand> {
    let dty = dual_type(&s.ty);
    let da = s
        .tangent(0)
        .map(|ta| e.prim(s.prim, vec![ta, s.args[1].clone()], dty.clone()));
    let db = s
        .tangent(1)
        .map(|tb| e.prim(s.prim, vec![s.args[0].clone(), tb], dty.clone()));
    match (da, db) {
        (Some(a), Some(b)) => Some(e.accum(&dty, a, b)),
        (a, b) => a.or(b),
    }
}

/// The same construction from the elements' tangents (zero where an element has none), the
/// first `skip` operands (`hvcat`'s shape) as they are.
fn built(e: &mut Emit, s: &TanStmt, skip: usize) -> Option<Operand> {
    let dty = dual_type(&s.ty);
    if dty == Type::Nothing {
        return None;
    }
    let mut args: Vec<Operand> = s.args[..skip].to_vec();
    for i in skip..s.args.len() {
        args.push(s.tangent_or_zero(e, i).unwrap_or(Const::f64(0.0).into()));
    }
    Some(e.prim(s.prim, args, dty))
}

/// `x[i]`: keep the array's shadow and the indices; of a vector of arrays, the element's own
/// shadow is the result's.
fn getindex_forward(e: &mut Emit, s: &FwdStmt) -> Result<FwdOut, AdError> {
    if objects::is_objects(&s.arg_tys[0]) {
        return Ok(objects::getindex(e, s));
    }
    let value = e.prim(GetIndex, s.args.clone(), s.ty.clone());
    let shadow = e.zero_fdata(value.clone(), &s.ty);
    let mut residuals = vec![];
    if s.active {
        residuals.push(s.shadow(0));
        residuals.extend(s.args[1..].iter().cloned());
    }
    Ok(FwdOut {
        value,
        shadow,
        residuals,
    })
}

/// `first(x)`, `last(x)`: keep the array's shadow and its length (of a vector of arrays, the
/// element's own shadow is the result's).
fn end_forward(e: &mut Emit, s: &FwdStmt, p: Prim) -> Result<FwdOut, AdError> {
    if objects::is_objects(&s.arg_tys[0]) {
        return Ok(objects::end(e, s, p));
    }
    super::residuals_forward(e, s, p, |e, s, _, _| Ok(vec![s.shadow(0), length(e, s)]))
}

/// `p(args...)` with a fresh result: keep its fresh shadow and operand 0's
/// ([`fresh_and_shadow`] as a whole forward fragment).
fn fresh_forward(e: &mut Emit, s: &FwdStmt, p: Prim) -> Result<FwdOut, AdError> {
    super::residuals_forward(e, s, p, fresh_and_shadow)
}

/// `x[i] = v`: keep the old `x[i]`, read before the write, to restore it in reverse.
fn setindex_forward(e: &mut Emit, s: &FwdStmt) -> Result<FwdOut, AdError> {
    if objects::is_objects(&s.arg_tys[0]) {
        return objects::setindex(e, s);
    }
    let idx = s.args[2..].to_vec();
    let elem = s.arg_tys[0].elem().cloned().unwrap_or(Type::Nothing);
    let mut get = vec![s.args[0].clone()];
    get.extend(idx.iter().cloned());
    let old = e.prim(GetIndex, get, elem);
    let value = e.prim(SetIndex, s.args.clone(), s.ty.clone());
    let mut residuals = vec![s.args[0].clone(), s.shadow(0), old];
    residuals.extend(idx);
    Ok(FwdOut {
        value,
        shadow: None,
        residuals,
    })
}

/// Restore the old `x[i]`; `v` gets the gradient that `x[i]` gathered, which is zeroed.
fn setindex_reverse(e: &mut Emit, s: &RevStmt) -> Vec<Option<Operand>> {
    let mut out = s.none();
    let (x, sx, old) = (s.kept(0), s.kept(1), s.kept(2));
    let idx = s.residuals[3..].to_vec();
    let mut restore = vec![x, old];
    restore.extend(idx.iter().cloned());
    e.prim(SetIndex, restore, s.ty.clone());
    if s.float_arg(1) && sx.as_const().is_none() {
        let mut get = vec![sx.clone()];
        get.extend(idx.iter().cloned());
        let g = e.prim(GetIndex, get, Type::Float64);
        let mut zero = vec![sx, Const::f64(0.0).into()];
        zero.extend(idx);
        e.prim(SetIndex, zero, Type::Float64);
        out[1] = Some(match s.dy.clone() {
            Some(dy) => e.add(g, dy),
            None => g,
        });
    }
    out
}

/// `setlength!(v, n[, tail])`: the primal and its shadow change length (the shadow's new
/// entries are zero: nothing has reached them yet); keep what restores both.
fn setlength_forward(e: &mut Emit, s: &FwdStmt) -> Result<FwdOut, AdError> {
    if objects::is_objects(&s.arg_tys[0]) {
        return Ok(objects::setlength(e, s));
    }
    let old = e.prim(Length, vec![s.args[0].clone()], Type::Int64);
    let value = e.prim(SetLength, s.args.clone(), s.ty.clone());
    let sv = s.shadow(0);
    if sv.as_const().is_none() {
        e.prim(SetLength, vec![sv.clone(), s.args[1].clone()], s.ty.clone());
    }
    let shadow = e.zero_fdata(value.clone(), &s.ty);
    let residuals = vec![
        s.args[0].clone(),
        sv,
        old,
        value.clone(),
        or_nothing(shadow.as_ref()),
        s.shadow(2),
    ];
    Ok(FwdOut {
        value,
        shadow,
        residuals,
    })
}

/// Give `v` back its old length and removed elements; its shadow gets back its old length with
/// the removed elements' gradients (the result's shadow) and hands the added elements'
/// gradients to the tail.
fn setlength_reverse(e: &mut Emit, s: &RevStmt) -> Vec<Option<Operand>> {
    let (v, sv, old, removed) = (s.kept(0), s.kept(1), s.kept(2), s.kept(3));
    let (sr, st) = (s.kept(4), s.kept(5));
    e.prim(SetLength, vec![v, old.clone(), removed], s.ty.clone());
    if sv.as_const().is_none() && sr.as_const().is_none() {
        let added = e.prim(SetLength, vec![sv, old, sr], s.ty.clone());
        if st.as_const().is_none() {
            e.prim(AccumInto, vec![st, added], Type::Nothing);
        }
    }
    s.none()
}

/// `dst += x` in place: keep both and their shadows.
fn accum_into_forward(e: &mut Emit, s: &FwdStmt) -> Result<FwdOut, AdError> {
    let value = e.prim(AccumInto, s.args.clone(), s.ty.clone());
    let residuals = vec![
        s.args[0].clone(),
        s.args[1].clone(),
        s.shadow(0),
        s.shadow(1),
    ];
    Ok(FwdOut {
        value,
        shadow: None,
        residuals,
    })
}

/// `accum_slice!(dst, a, s, x)`: keep the operands and both shadows.
fn accum_slice_forward(e: &mut Emit, s: &FwdStmt) -> Result<FwdOut, AdError> {
    let value = e.prim(AccumSlice, s.args.clone(), s.ty.clone());
    let mut residuals = s.args.clone();
    residuals.extend([s.shadow(0), s.shadow(3)]);
    Ok(FwdOut {
        value,
        shadow: None,
        residuals,
    })
}

/// Undo the addition, then pass the gradient of dst's elements `a, a + s, ...` on to x.
fn accum_slice_reverse(e: &mut Emit, s: &RevStmt) -> Vec<Option<Operand>> {
    let (dst, a, step, x) = (s.kept(0), s.kept(1), s.kept(2), s.kept(3));
    let (sdst, sx) = (s.kept(4), s.kept(5));
    let neg = e.bcast_or_scalar(Neg, x.clone(), &s.arg_tys[3]);
    e.prim(
        AccumSlice,
        vec![dst, a.clone(), step.clone(), neg],
        Type::Nothing,
    );
    if sdst.as_const().is_none() && sx.as_const().is_none() {
        let n = e.prim(Length, vec![x], Type::Int64);
        let g = e.prim(SliceCopy, vec![sdst, a, step, n], Type::vector_f64());
        e.prim(AccumInto, vec![sx, g], Type::Nothing);
    }
    s.none()
}

/// Undo the addition, then pass dst's gradient on to x (summed for a number).
fn accum_into_reverse(e: &mut Emit, s: &RevStmt) -> Vec<Option<Operand>> {
    let mut out = s.none();
    let (dst, x, sdst, sx) = (s.kept(0), s.kept(1), s.kept(2), s.kept(3));
    let xt = s.arg_tys[1].clone();
    let neg = e.bcast_or_scalar(Neg, x, &xt);
    e.prim(AccumInto, vec![dst, neg], Type::Nothing);
    if sdst.as_const().is_none() {
        match &xt {
            Type::Float64 => out[1] = Some(e.prim(Sum, vec![sdst], Type::Float64)),
            Type::Array(..) | Type::Adjoint(_) if sx.as_const().is_none() => {
                e.prim(AccumInto, vec![sx, sdst], Type::Nothing);
            }
            _ => {}
        }
    }
    out
}

/// ChainRules' (and Julia's `findmax`) choice: the first extreme entry, in `isless` order (a
/// NaN wins), gets ȳ; `find` is `FindMax` or `FindMin`.
fn extremum_reverse(e: &mut Emit, s: &RevStmt, find: Prim) -> Vec<Option<Operand>> {
    if let Some(dy) = s.dy.clone() {
        let (x, sx) = (s.kept(0), s.kept(1));
        let tty = Type::tuple([Type::Float64, Type::Int64]);
        let found = e.prim(find, vec![x], tty.clone());
        let i = e.field(found, 1, &tty);
        add_at(e, sx, vec![i], dy);
    }
    s.none()
}

/// The tangent at the extremum's (first) index, as the reverse sends ȳ there.
fn extremum_tangent(e: &mut Emit, s: &TanStmt, find: Prim) -> Option<Operand> {
    s.tangent(0).map(|tx| {
        let it = Type::tuple([Type::Float64, Type::Int64]);
        let r = e.prim(find, vec![s.args[0].clone()], it.clone());
        let k = e.field(r, 1, &it);
        e.prim(GetIndex, vec![tx, k], Type::Float64)
    })
}

/// Elements are in row-major order after the two shape constants.
fn hvcat_reverse(e: &mut Emit, s: &RevStmt) -> Vec<Option<Operand>> {
    let mut out = s.none();
    if let (Some(Some(Const::Int(_))), Some(Some(Const::Int(cols)))) =
        (s.consts.first(), s.consts.get(1))
    {
        for (i, o) in out.iter_mut().enumerate().skip(2) {
            if s.float_arg(i) {
                let k = (i - 2) as i64;
                let (row, col) = (k / cols + 1, k % cols + 1);
                let idx = vec![s.kept(0), Const::Int(row).into(), Const::Int(col).into()];
                *o = Some(e.prim(GetIndex, idx, Type::Float64));
            }
        }
    }
    out
}

/// `Y = A * B` of Matrix*Vector, Matrix*Matrix, row*Vector, row*Matrix, Vector*row: the shapes
/// whose gradients `Ȳ Bᵀ` and `Aᵀ Ȳ` have their operands' shapes again. Keeps both operands,
/// their shadows and the result's.
fn matmul_keep(
    e: &mut Emit,
    s: &FwdStmt,
    _: &Operand,
    fresh: Option<&Operand>,
) -> Result<Vec<Operand>, AdError> {
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
    // An operand that does not vary (a constant matrix of a callee's adjoint that has it
    // inactive) keeps no shadow: the reverse does no work for it.
    Ok(vec![
        s.args[0].clone(),
        s.varying_shadow(0),
        s.args[1].clone(),
        s.varying_shadow(1),
        or_nothing(fresh),
    ])
}

fn matmul_reverse(e: &mut Emit, s: &RevStmt) -> Vec<Option<Operand>> {
    if matches!(
        (&s.arg_tys[0], &s.arg_tys[1]),
        (Type::Adjoint(_), Type::Array(_, 1))
    ) {
        // y = a' b (a number): ā += ȳ b, b̄ += ȳ a.
        if let Some(dy) = s.dy.clone() {
            let (a, sa, b, sb) = (s.kept(0), s.kept(1), s.kept(2), s.kept(3));
            if varies(&sb) {
                let gb = e.prim(
                    Broadcast,
                    vec![func("*"), a, dy.clone()],
                    s.arg_tys[0].clone(),
                );
                e.prim(AccumInto, vec![sb, gb], Type::Nothing);
            }
            if varies(&sa) {
                let ga = e.prim(Broadcast, vec![func("*"), b, dy], s.arg_tys[1].clone());
                e.prim(AccumInto, vec![sa, ga], Type::Nothing);
            }
        }
        return s.none();
    }
    // Y = A * B: Ā += Ȳ Bᵀ, B̄ += Aᵀ Ȳ, each operand a vector (a column), a row or a matrix:
    // the transpose of a vector is a row and of a row a vector.
    let (a, sa, b, sb, sy) = (s.kept(0), s.kept(1), s.kept(2), s.kept(3), s.kept(4));
    let (ta, tb) = (s.arg_tys[0].clone(), s.arg_tys[1].clone());
    if varies(&sa) {
        let bt = transposed(e, b, &tb);
        let ga = e.prim(MatMul, vec![sy.clone(), bt], ta.clone());
        e.prim(AccumInto, vec![sa, ga], Type::Nothing);
    }
    if varies(&sb) {
        let at = transposed(e, a, &ta);
        let gb = e.prim(MatMul, vec![at, sy], tb);
        e.prim(AccumInto, vec![sb, gb], Type::Nothing);
    }
    s.none()
}

/// `transpose` or `adjoint` (`p`): a row view of a vector has the same view of the vector's
/// shadow as its shadow and keeps nothing; a matrix's is a copy with a fresh shadow.
fn transpose_forward(e: &mut Emit, s: &FwdStmt, p: Prim) -> Result<FwdOut, AdError> {
    let value = e.prim(p, s.args.clone(), s.ty.clone());
    if matches!(s.arg_tys[0], Type::Array(_, 1) | Type::Adjoint(_)) {
        let shadow = s
            .shadows
            .first()
            .cloned()
            .flatten()
            .map(|x| e.prim(p, vec![x], fdata_type(&s.ty)));
        return Ok(FwdOut {
            value,
            shadow,
            residuals: vec![],
        });
    }
    let shadow = e.zero_fdata(value.clone(), &s.ty);
    let residuals = if s.active {
        vec![or_nothing(shadow.as_ref()), s.shadow(0)]
    } else {
        vec![]
    };
    Ok(FwdOut {
        value,
        shadow,
        residuals,
    })
}

/// A matrix's transpose: the result's gradient, transposed back, into the operand's shadow (a
/// view's gradient is already its vector's).
fn transpose_reverse(e: &mut Emit, s: &RevStmt) -> Vec<Option<Operand>> {
    if matches!(s.arg_tys[0], Type::Array(_, 2)) {
        let t = e.prim(Transpose, vec![s.kept(0)], s.arg_tys[0].clone());
        e.prim(AccumInto, vec![s.kept(1), t], Type::Nothing);
    }
    s.none()
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
