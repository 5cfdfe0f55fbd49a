//! Rules of scalar arithmetic and the elementary functions (Table 1 of the Zygote paper), with
//! ChainRules' conventions at special points (`docs/rules.md` has the table): `abs'(0) = 0`,
//! a tie of `max` goes to the second operand and of `min` to the first, `x^p` at `x = 0` and
//! for negative `x`, `rem` at integer quotients. Where ChainRules multiplies by a Boolean (a
//! strong zero: `false * Inf == 0`), these rules select with `ifelse`.

use zy_ir::{Const, Operand, Prim, Type};

use super::{Emit, FwdOut, FwdStmt, RevStmt};

/// Is `p` a scalar primitive with a rule here?
pub fn handles(p: Prim) -> bool {
    use Prim::*;
    matches!(
        p,
        Add | Sub
            | Mul
            | Div
            | Pow
            | Neg
            | Sin
            | Cos
            | Tan
            | Exp
            | Log
            | Log1p
            | Sqrt
            | Abs
            | Tanh
            | Sinh
            | Cosh
            | Asin
            | Acos
            | Atan
            | Max
            | Min
            | Float
            | Rem
            | IfElse
    )
}

/// The primal operation; residuals are the operands and/or the result, as the reverse needs.
pub fn forward(e: &mut Emit, p: Prim, s: &FwdStmt) -> FwdOut {
    let value = e.prim(p, s.args.clone(), s.ty.clone());
    if !s.active || s.ty != Type::Float64 {
        return FwdOut {
            value,
            shadow: None,
            residuals: vec![],
        };
    }
    let residuals = residuals(p, &s.args, &value);
    FwdOut {
        value,
        shadow: None,
        residuals,
    }
}

/// What the reverse of `y = p(args...)` needs: operands and/or the result.
pub fn residuals(p: Prim, args: &[Operand], y: &Operand) -> Vec<Operand> {
    use Prim::*;
    let a = || args[0].clone();
    let b = || args.get(1).cloned().unwrap_or(Const::Nothing.into());
    match p {
        Add | Sub | Neg | Float | Floor | Ceil | Round | Sign => vec![],
        Mul | Max | Min | Rem => vec![a(), b()],
        IfElse => vec![a()],
        Div => vec![b(), y.clone()],
        Pow if matches!(b(), Operand::Const(Const::Int(_))) => vec![a(), b()],
        Pow => vec![a(), b(), y.clone()],
        Tan | Exp | Sqrt | Tanh => vec![y.clone()],
        _ => vec![a()],
    }
}

/// Contributions to each operand from `dy`.
pub fn reverse(e: &mut Emit, p: Prim, s: &RevStmt) -> Vec<Option<Operand>> {
    use Prim::*;
    let n = s.arg_tys.len();
    let Some(dy) = s.dy.clone() else {
        return vec![None; n];
    };
    if s.ty != Type::Float64 {
        return vec![None; n];
    }
    let f = Type::Float64;
    let r = |i: usize| s.residuals[i].clone();
    let real = |i: usize| s.arg_tys.get(i) == Some(&Type::Float64);
    let only_float = |v: Vec<Option<Operand>>| -> Vec<Option<Operand>> {
        v.into_iter()
            .enumerate()
            .map(|(i, g)| g.filter(|_| real(i)))
            .collect()
    };
    let out = match p {
        Add => vec![Some(dy.clone()), Some(dy)],
        Sub => {
            let nb = e.prim(Neg, vec![dy.clone()], f.clone());
            vec![Some(dy), Some(nb)]
        }
        Neg => vec![Some(e.prim(Neg, vec![dy], f.clone()))],
        Float => vec![None],
        Mul => {
            let da = e.mul(dy.clone(), r(1));
            let db = e.mul(dy, r(0));
            vec![Some(da), Some(db)]
        }
        Div => {
            // ā = ȳ / b, b̄ = -ā y
            let da = e.prim(Div, vec![dy, r(0)], f.clone());
            let t = e.mul(da.clone(), r(1));
            let db = e.prim(Neg, vec![t], f.clone());
            vec![Some(da), Some(db)]
        }
        Rem => {
            // rem(a, b) = a - b * trunc(a / b): ā = ȳ, b̄ = -ȳ trunc(a / b); NaN where a / b
            // is an integer (rem jumps there), as ChainRules has it.
            let q = e.prim(Div, vec![r(0), r(1)], f.clone());
            let tq = trunc(e, q.clone());
            let t = e.mul(dy.clone(), tq.clone());
            let db = e.prim(Neg, vec![t], f.clone());
            if e.bcast.is_some() {
                vec![Some(dy), Some(db)]
            } else {
                let whole = e.prim(Eq, vec![tq, q], Type::Bool);
                let nan: Operand = Const::f64(f64::NAN).into();
                let da = e.prim(IfElse, vec![whole.clone(), nan.clone(), dy], f.clone());
                let db = e.prim(IfElse, vec![whole, nan, db], f.clone());
                vec![Some(da), Some(db)]
            }
        }
        IfElse => {
            // The condition gets nothing; the chosen operand ȳ, the other a strong zero.
            let zero: Operand = Const::f64(0.0).into();
            let da = e.prim(IfElse, vec![r(0), dy.clone(), zero.clone()], f.clone());
            let db = e.prim(IfElse, vec![r(0), zero, dy], f.clone());
            vec![None, Some(da), Some(db)]
        }
        Pow => pow(e, s, dy),
        Sin => {
            let c = e.prim(Cos, vec![r(0)], f.clone());
            vec![Some(e.mul(dy, c))]
        }
        Cos => {
            let sn = e.prim(Sin, vec![r(0)], f.clone());
            let t = e.mul(dy, sn);
            vec![Some(e.prim(Neg, vec![t], f.clone()))]
        }
        Tan => {
            // 1 + y²
            let y2 = e.mul(r(0), r(0));
            let d = e.add(Const::f64(1.0).into(), y2);
            vec![Some(e.mul(dy, d))]
        }
        Exp => vec![Some(e.mul(dy, r(0)))],
        Log => vec![Some(e.prim(Div, vec![dy, r(0)], f.clone()))],
        Log1p => {
            let d = e.add(Const::f64(1.0).into(), r(0));
            vec![Some(e.prim(Div, vec![dy, d], f.clone()))]
        }
        Sqrt => {
            let d = e.mul(Const::f64(2.0).into(), r(0));
            vec![Some(e.prim(Div, vec![dy, d], f.clone()))]
        }
        Abs => {
            let sg = e.prim(Sign, vec![r(0)], f.clone());
            vec![Some(e.mul(dy, sg))]
        }
        Tanh => {
            let y2 = e.mul(r(0), r(0));
            let d = e.prim(Sub, vec![Const::f64(1.0).into(), y2], f.clone());
            vec![Some(e.mul(dy, d))]
        }
        Sinh => {
            let c = e.prim(Cosh, vec![r(0)], f.clone());
            vec![Some(e.mul(dy, c))]
        }
        Cosh => {
            let sn = e.prim(Sinh, vec![r(0)], f.clone());
            vec![Some(e.mul(dy, sn))]
        }
        Asin | Acos => {
            // ±1 / sqrt(1 - x²)
            let x2 = e.mul(r(0), r(0));
            let d = e.prim(Sub, vec![Const::f64(1.0).into(), x2], f.clone());
            let d = e.prim(Sqrt, vec![d], f.clone());
            let g = e.prim(Div, vec![dy, d], f.clone());
            vec![Some(if p == Asin {
                g
            } else {
                e.prim(Neg, vec![g], f.clone())
            })]
        }
        Atan => {
            let x2 = e.mul(r(0), r(0));
            let d = e.add(Const::f64(1.0).into(), x2);
            vec![Some(e.prim(Div, vec![dy, d], f.clone()))]
        }
        Max | Min => {
            // ChainRules: with `gt = a > b`, max's partials are (gt, !gt) and min's (!gt, gt):
            // a tie (or a NaN) gives max's gradient to b and min's to a.
            let gt = e.prim(Gt, vec![r(0), r(1)], Type::Bool);
            let to_a = |e: &mut Emit, gt: Operand| match p {
                Max => gt,
                _ => e.prim(Not, vec![gt], Type::Bool),
            };
            if e.bcast.is_some() {
                // Broadcast: Boolean weights (a weak zero for an infinite ȳ).
                let a_wins = to_a(e, gt);
                let wa = e.prim(Float, vec![a_wins], f.clone());
                let wb = e.prim(Sub, vec![Const::f64(1.0).into(), wa.clone()], f.clone());
                vec![Some(e.mul(dy.clone(), wa)), Some(e.mul(dy, wb))]
            } else {
                let a_wins = to_a(e, gt);
                let zero: Operand = Const::f64(0.0).into();
                let da = e.prim(
                    IfElse,
                    vec![a_wins.clone(), dy.clone(), zero.clone()],
                    f.clone(),
                );
                let db = e.prim(IfElse, vec![a_wins, zero, dy], f.clone());
                vec![Some(da), Some(db)]
            }
        }
        _ => vec![None; n],
    };
    only_float(out)
}

/// `trunc(q)` from `floor`/`ceil`: toward zero.
fn trunc(e: &mut Emit, q: Operand) -> Operand {
    let f = Type::Float64;
    let neg = e.prim(
        Prim::Lt,
        vec![q.clone(), Const::f64(0.0).into()],
        Type::Bool,
    );
    let negf = e.prim(Prim::Float, vec![neg], f.clone());
    let fl = e.prim(Prim::Floor, vec![q.clone()], f.clone());
    let ce = e.prim(Prim::Ceil, vec![q], f.clone());
    // fl + negf * (ce - fl)
    let d = e.prim(Prim::Sub, vec![ce, fl.clone()], f.clone());
    let t = e.mul(negf, d);
    e.add(fl, t)
}

/// `y = x^n`: `x̄ = ȳ n x^(n-1)` (zero for `n == 0`, as ChainRules), and for a Float64 exponent
/// `n̄ = ȳ y log|x|` (the real part of the complex log, so a negative base with an integral
/// exponent has one), which at `x = 0` ChainRules takes as `0` for `n > 0` and NaN otherwise;
/// an Int exponent gets no gradient.
fn pow(e: &mut Emit, s: &RevStmt, dy: Operand) -> Vec<Option<Operand>> {
    let f = Type::Float64;
    let (x, n) = (s.residuals[0].clone(), s.residuals[1].clone());
    let y = s.residuals.get(2).cloned().unwrap_or(Const::Nothing.into());
    if let Some(Const::Int(k)) = n.as_const() {
        // A literal exponent: x̄ = ȳ k x^(k-1), folded for k = 0, 1, 2.
        let dx = match k {
            0 => Const::f64(0.0).into(),
            1 => dy,
            2 => {
                let t = e.mul(Const::f64(2.0).into(), x);
                e.mul(dy, t)
            }
            _ => {
                let p = e.prim(Prim::Pow, vec![x, Const::Int(k - 1).into()], f.clone());
                let t = e.mul(Const::f64(*k as f64).into(), p);
                e.mul(dy, t)
            }
        };
        return vec![Some(dx), None];
    }
    let nf = if s.arg_tys.get(1) == Some(&Type::Float64) {
        n.clone()
    } else {
        e.prim(Prim::Float, vec![n.clone()], f.clone())
    };
    // x^(n - 1 + (n == 0)): for n == 0 the factor n makes the product 0 without 0 * Inf.
    let is0 = e.prim(
        Prim::Eq,
        vec![nf.clone(), Const::f64(0.0).into()],
        Type::Bool,
    );
    let is0 = e.prim(Prim::Float, vec![is0], f.clone());
    let m = e.prim(
        Prim::Sub,
        vec![nf.clone(), Const::f64(1.0).into()],
        f.clone(),
    );
    let m = e.add(m, is0);
    let p = e.prim(Prim::Pow, vec![x.clone(), m], f.clone());
    let d = e.mul(nf, p);
    let dx = e.mul(dy.clone(), d);
    let dn = if s.arg_tys.get(1) == Some(&Type::Float64) {
        // log|x|, with 0 in place of log(0) = -Inf (the x = 0 case is chosen below).
        let ax = e.prim(Prim::Abs, vec![x.clone()], f.clone());
        let at0 = e.prim(Prim::Eq, vec![x, Const::f64(0.0).into()], Type::Bool);
        let one_at0 = e.prim(Prim::Float, vec![at0.clone()], f.clone());
        let safe = e.add(ax, one_at0);
        let l = e.prim(Prim::Log, vec![safe], f.clone());
        let t = e.mul(dy, y);
        let dn = e.mul(t, l);
        if e.bcast.is_some() {
            // Broadcast: no select; at x = 0 this gives 0 (ChainRules: 0 for n > 0).
            Some(dn)
        } else {
            let pos = e.prim(Prim::Gt, vec![n, Const::f64(0.0).into()], Type::Bool);
            let nan: Operand = Const::f64(f64::NAN).into();
            let at_zero = e.prim(
                Prim::IfElse,
                vec![pos, Const::f64(0.0).into(), nan],
                f.clone(),
            );
            Some(e.prim(Prim::IfElse, vec![at0, at_zero, dn], f.clone()))
        }
    } else {
        None
    };
    vec![Some(dx), dn]
}
