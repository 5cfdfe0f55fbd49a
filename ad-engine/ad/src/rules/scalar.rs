//! Rules of scalar arithmetic and the elementary functions (Table 1 of the Zygote paper), with
//! ChainRules' conventions at special points (`docs/rules.md` has the table): `abs'(0) = 0`,
//! a tie of `max` goes to the second operand and of `min` to the first, `x^p` at `x = 0` and
//! for negative `x`, `rem` at integer quotients. Where ChainRules multiplies by a Boolean (a
//! strong zero: `false * Inf == 0`), these rules select with `ifelse`.
//!
//! Each rule is one [`ScalarRule`] entry of [`RULES`]: what the forward pass keeps, how the
//! reverse pass turns `ȳ` and the kept values into the operands' gradients, and the points
//! where the all-primitives test checks it (`ad-engine/ad/tests/rules.rs`).

use zy_ir::{Const, Operand, Prim, Type};

use super::{Emit, FwdOut, FwdStmt, RevStmt, Special, TanStmt, TestArg};
use Forward::{Partials, Tangent};
use Kept::{Arg, Result};
use Prim::*;
use Reverse::{Divide, Scale, Terms};
use TestArg::{Float as F, Int as I, LitInt as L};

/// A value the forward pass keeps for the reverse.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Kept {
    /// Operand `i`.
    Arg(usize),
    /// The result.
    Result,
    /// The result, unless the exponent (operand 1) is a literal Int (`x^3` needs only `x`).
    ResultUnlessLiteralExponent,
}

/// How a rule's reverse computes the operands' gradients from `ȳ` and the kept values `k`.
#[derive(Clone, Copy)]
pub enum Reverse {
    /// One operand: `x̄ = ȳ * d(k)`.
    Scale(fn(&mut Emit, &[Operand]) -> Operand),
    /// One operand: `x̄ = ȳ / d(k)`.
    Divide(fn(&mut Emit, &[Operand]) -> Operand),
    /// Each operand's contribution (`None`: none), from the kept values, `ȳ` and the statement.
    Terms(TermsFn),
}

/// How a rule's pushforward computes `ẏ` from the operands' tangents `ẋᵢ`.
#[derive(Clone, Copy)]
pub enum Forward {
    /// `ẏ = Σᵢ ∂ᵢ ẋᵢ` with the partials `∂ᵢ` of the reverse: the reverse's contribution to
    /// operand `i` seeded with `ȳ = ẋᵢ` (a scalar reverse is linear in `ȳ`), so both
    /// directions share one derivative, special points included.
    Partials,
    /// Written out: `(emit, operands, result, tangents) -> ẏ`, a tangent `None` being zero (an
    /// operand without one, or a constant).
    Tangent(TangentFn),
}

/// A written-out pushforward: `(emit, operands, result, tangents) -> ẏ`.
pub type TangentFn = fn(&mut Emit, &[Operand], &Operand, &[Option<Operand>]) -> Operand;

/// A reverse giving each operand's contribution: `(emit, kept, ȳ, statement) -> contributions`.
pub type TermsFn = fn(&mut Emit, &[Operand], Operand, &RevStmt) -> Vec<Option<Operand>>;

/// The rule of one scalar primitive, with the points that test it.
pub struct ScalarRule {
    /// The primitive.
    pub prim: Prim,
    /// What the forward pass keeps, in the order the reverse reads it.
    pub keeps: &'static [Kept],
    /// The reverse.
    pub reverse: Reverse,
    /// The pushforward (frule).
    pub forward: Forward,
    /// Operands at which the rule is checked against finite differences on both engines.
    pub points: &'static [&'static [TestArg]],
    /// Points where the value and the gradient must be Julia's (ChainRules') to the bit.
    pub special: &'static [Special],
}

const F64: Type = Type::Float64;

fn one() -> Operand {
    Const::f64(1.0).into()
}

/// Points inside every domain, away from kinks.
const ANYWHERE: &[&[TestArg]] = &[&[F(-1.3)], &[F(-0.2)], &[F(0.4)], &[F(1.7)]];
/// Points of the positive half-line.
const POSITIVE: &[&[TestArg]] = &[&[F(0.3)], &[F(1.0)], &[F(2.5)]];
/// Points inside `(-1, 1)`.
const UNIT: &[&[TestArg]] = &[&[F(-0.7)], &[F(0.1)], &[F(0.6)]];
/// Pairs of operands of a binary function.
const PAIRS: &[&[TestArg]] = &[&[F(1.5), F(-0.7)], &[F(-2.2), F(0.9)], &[F(0.3), F(2.4)]];

/// Every scalar rule.
pub static RULES: &[ScalarRule] = &[
    ScalarRule {
        prim: Add,
        keeps: &[],
        reverse: Terms(|_, _, dy, _| vec![Some(dy.clone()), Some(dy)]),
        // ẏ = ȧ + ḃ
        forward: Tangent(|e, _, _, t| sum(e, t.iter().flatten().cloned())),
        points: PAIRS,
        special: &[],
    },
    ScalarRule {
        prim: Sub,
        keeps: &[],
        reverse: Terms(|e, _, dy, _| {
            let nb = e.prim(Neg, vec![dy.clone()], F64);
            vec![Some(dy), Some(nb)]
        }),
        // ẏ = ȧ - ḃ
        forward: Tangent(|e, _, _, t| match (&t[0], &t[1]) {
            (a, Some(b)) => {
                let a = a.clone().unwrap_or(Const::f64(0.0).into());
                e.prim(Sub, vec![a, b.clone()], F64)
            }
            (a, None) => a.clone().unwrap_or(Const::f64(0.0).into()),
        }),
        points: PAIRS,
        special: &[],
    },
    ScalarRule {
        prim: Mul,
        keeps: &[Arg(0), Arg(1)],
        reverse: Terms(|e, k, dy, _| {
            let da = e.mul(dy.clone(), k[1].clone());
            let db = e.mul(dy, k[0].clone());
            vec![Some(da), Some(db)]
        }),
        // ẏ = ȧ b + a ḃ
        forward: Tangent(|e, x, _, t| {
            let da = t[0].clone().map(|da| e.mul(da, x[1].clone()));
            let db = t[1].clone().map(|db| e.mul(x[0].clone(), db));
            sum(e, [da, db].into_iter().flatten())
        }),
        points: PAIRS,
        special: &[],
    },
    ScalarRule {
        prim: Div,
        keeps: &[Arg(1), Result],
        reverse: Terms(|e, k, dy, _| {
            // ā = ȳ / b, b̄ = -ā y
            let da = e.prim(Div, vec![dy, k[0].clone()], F64);
            let t = e.mul(da.clone(), k[1].clone());
            let db = e.prim(Neg, vec![t], F64);
            vec![Some(da), Some(db)]
        }),
        // ẏ = (ȧ - y ḃ) / b
        forward: Tangent(|e, x, y, t| {
            let yb = t[1].clone().map(|db| e.mul(y.clone(), db));
            let n = match (t[0].clone(), yb) {
                (Some(a), Some(yb)) => e.prim(Sub, vec![a, yb], F64),
                (Some(a), None) => a,
                (None, Some(yb)) => e.prim(Neg, vec![yb], F64),
                (None, None) => return Const::f64(0.0).into(),
            };
            e.prim(Div, vec![n, x[1].clone()], F64)
        }),
        points: PAIRS,
        special: &[],
    },
    ScalarRule {
        prim: Pow,
        keeps: &[Arg(0), Arg(1), Kept::ResultUnlessLiteralExponent],
        reverse: Terms(pow),
        forward: Partials,
        points: &[
            &[F(1.5), F(2.0)],
            &[F(0.7), F(0.5)],
            &[F(2.0), F(-1.5)],
            &[F(1.5), I(3)],
            &[F(-0.7), I(2)],
            &[F(2.0), I(0)],
            &[F(1.3), I(-2)],
            &[F(1.3), L(3)],
            &[F(-0.4), L(2)],
        ],
        special: &[],
    },
    ScalarRule {
        prim: Neg,
        keeps: &[],
        reverse: Terms(|e, _, dy, _| vec![Some(e.prim(Neg, vec![dy], F64))]),
        forward: Tangent(|e, _, _, t| match &t[0] {
            Some(dx) => e.prim(Neg, vec![dx.clone()], F64),
            None => Const::f64(0.0).into(),
        }),
        points: ANYWHERE,
        special: &[],
    },
    ScalarRule {
        prim: Sin,
        keeps: &[Arg(0)],
        reverse: Scale(|e, k| e.prim(Cos, vec![k[0].clone()], F64)),
        forward: Partials,
        points: ANYWHERE,
        special: &[],
    },
    ScalarRule {
        prim: Cos,
        keeps: &[Arg(0)],
        reverse: Terms(|e, k, dy, _| {
            let sn = e.prim(Sin, vec![k[0].clone()], F64);
            let t = e.mul(dy, sn);
            vec![Some(e.prim(Neg, vec![t], F64))]
        }),
        forward: Partials,
        points: ANYWHERE,
        special: &[],
    },
    ScalarRule {
        prim: Tan,
        keeps: &[Result],
        // 1 + y²
        reverse: Scale(|e, k| {
            let y2 = e.mul(k[0].clone(), k[0].clone());
            e.add(one(), y2)
        }),
        forward: Partials,
        points: ANYWHERE,
        special: &[],
    },
    ScalarRule {
        prim: Exp,
        keeps: &[Result],
        reverse: Scale(|_, k| k[0].clone()),
        forward: Partials,
        points: ANYWHERE,
        special: &[],
    },
    ScalarRule {
        prim: Expm1,
        keeps: &[Arg(0)],
        reverse: Scale(|e, k| e.prim(Exp, vec![k[0].clone()], F64)),
        forward: Partials,
        points: ANYWHERE,
        special: &[
            Special {
                at: &[F(0.0)],
                y: 0.0,
                grad: &[&[1.0]],
            },
            Special {
                at: &[F(-0.0)],
                y: -0.0,
                grad: &[&[1.0]],
            },
            Special {
                at: &[F(f64::NEG_INFINITY)],
                y: -1.0,
                grad: &[&[0.0]],
            },
            Special {
                at: &[F(f64::INFINITY)],
                y: f64::INFINITY,
                grad: &[&[f64::INFINITY]],
            },
            Special {
                at: &[F(1e-20)],
                y: 1e-20,
                grad: &[&[1.0]],
            },
        ],
    },
    ScalarRule {
        prim: Exp2,
        keeps: &[Result],
        // ChainRules: Ω log(2).
        reverse: Scale(|e, k| e.mul(k[0].clone(), Const::f64(std::f64::consts::LN_2).into())),
        forward: Partials,
        points: ANYWHERE,
        special: &[
            Special {
                at: &[F(0.0)],
                y: 1.0,
                grad: &[&[std::f64::consts::LN_2]],
            },
            Special {
                at: &[F(1.0)],
                y: 2.0,
                grad: &[&[1.3862943611198906]],
            },
            Special {
                at: &[F(f64::NEG_INFINITY)],
                y: 0.0,
                grad: &[&[0.0]],
            },
        ],
    },
    ScalarRule {
        prim: Log2,
        keeps: &[Arg(0)],
        // ChainRules: inv(x) / log(2).
        reverse: Scale(|e, k| inv_over(e, k, std::f64::consts::LN_2)),
        forward: Partials,
        points: POSITIVE,
        special: &[
            Special {
                at: &[F(1.0)],
                y: 0.0,
                grad: &[&[1.0 / std::f64::consts::LN_2]],
            },
            Special {
                at: &[F(0.0)],
                y: f64::NEG_INFINITY,
                grad: &[&[f64::INFINITY]],
            },
            Special {
                at: &[F(f64::INFINITY)],
                y: f64::INFINITY,
                grad: &[&[0.0]],
            },
        ],
    },
    ScalarRule {
        prim: Log10,
        keeps: &[Arg(0)],
        // ChainRules: inv(x) / log(10).
        reverse: Scale(|e, k| inv_over(e, k, std::f64::consts::LN_10)),
        forward: Partials,
        points: POSITIVE,
        special: &[
            Special {
                at: &[F(1.0)],
                y: 0.0,
                grad: &[&[1.0 / std::f64::consts::LN_10]],
            },
            Special {
                at: &[F(0.0)],
                y: f64::NEG_INFINITY,
                grad: &[&[f64::INFINITY]],
            },
        ],
    },
    ScalarRule {
        prim: Log,
        keeps: &[Arg(0)],
        reverse: Divide(|_, k| k[0].clone()),
        forward: Partials,
        points: POSITIVE,
        special: &[],
    },
    ScalarRule {
        prim: Log1p,
        keeps: &[Arg(0)],
        reverse: Divide(|e, k| e.add(one(), k[0].clone())),
        forward: Partials,
        points: POSITIVE,
        special: &[],
    },
    ScalarRule {
        prim: Sqrt,
        keeps: &[Result],
        reverse: Divide(|e, k| e.mul(Const::f64(2.0).into(), k[0].clone())),
        forward: Partials,
        points: POSITIVE,
        special: &[],
    },
    ScalarRule {
        prim: Cbrt,
        keeps: &[Result],
        // ChainRules: inv(3 Ω²).
        reverse: Scale(|e, k| {
            let y2 = e.mul(k[0].clone(), k[0].clone());
            let d = e.mul(Const::f64(3.0).into(), y2);
            e.prim(Div, vec![one(), d], F64)
        }),
        forward: Partials,
        points: ANYWHERE,
        special: &[
            Special {
                at: &[F(0.0)],
                y: 0.0,
                grad: &[&[f64::INFINITY]],
            },
            Special {
                at: &[F(-0.0)],
                y: -0.0,
                grad: &[&[f64::INFINITY]],
            },
            Special {
                at: &[F(-8.0)],
                y: -2.0,
                grad: &[&[1.0 / 12.0]],
            },
        ],
    },
    ScalarRule {
        prim: Abs,
        keeps: &[Arg(0)],
        reverse: Scale(|e, k| e.prim(Sign, vec![k[0].clone()], F64)),
        forward: Partials,
        points: ANYWHERE,
        special: &[],
    },
    ScalarRule {
        prim: Tanh,
        keeps: &[Result],
        // 1 - y²
        reverse: Scale(|e, k| {
            let y2 = e.mul(k[0].clone(), k[0].clone());
            e.prim(Sub, vec![one(), y2], F64)
        }),
        forward: Partials,
        points: ANYWHERE,
        special: &[],
    },
    ScalarRule {
        prim: Sinh,
        keeps: &[Arg(0)],
        reverse: Scale(|e, k| e.prim(Cosh, vec![k[0].clone()], F64)),
        forward: Partials,
        points: ANYWHERE,
        special: &[],
    },
    ScalarRule {
        prim: Cosh,
        keeps: &[Arg(0)],
        reverse: Scale(|e, k| e.prim(Sinh, vec![k[0].clone()], F64)),
        forward: Partials,
        points: ANYWHERE,
        special: &[],
    },
    ScalarRule {
        prim: Asin,
        keeps: &[Arg(0)],
        reverse: Divide(one_minus_square_root),
        forward: Partials,
        points: UNIT,
        special: &[],
    },
    ScalarRule {
        prim: Acos,
        keeps: &[Arg(0)],
        reverse: Terms(|e, k, dy, _| {
            let d = one_minus_square_root(e, k);
            let g = e.prim(Div, vec![dy, d], F64);
            vec![Some(e.prim(Neg, vec![g], F64))]
        }),
        forward: Partials,
        points: UNIT,
        special: &[],
    },
    ScalarRule {
        prim: Asinh,
        keeps: &[Arg(0)],
        // ChainRules: inv(sqrt(x² + 1)).
        reverse: Scale(|e, k| {
            let x2 = e.mul(k[0].clone(), k[0].clone());
            let d = e.add(x2, one());
            let d = e.prim(Sqrt, vec![d], F64);
            e.prim(Div, vec![one(), d], F64)
        }),
        forward: Partials,
        points: ANYWHERE,
        special: &[
            Special {
                at: &[F(0.0)],
                y: 0.0,
                grad: &[&[1.0]],
            },
            Special {
                at: &[F(-0.0)],
                y: -0.0,
                grad: &[&[1.0]],
            },
            Special {
                at: &[F(f64::INFINITY)],
                y: f64::INFINITY,
                grad: &[&[0.0]],
            },
        ],
    },
    ScalarRule {
        prim: Acosh,
        keeps: &[Arg(0)],
        // ChainRules: inv(sqrt(x² - 1)).
        reverse: Scale(|e, k| {
            let x2 = e.mul(k[0].clone(), k[0].clone());
            let d = e.prim(Sub, vec![x2, one()], F64);
            let d = e.prim(Sqrt, vec![d], F64);
            e.prim(Div, vec![one(), d], F64)
        }),
        forward: Partials,
        points: &[&[F(1.2)], &[F(2.0)], &[F(3.5)]],
        special: &[Special {
            at: &[F(1.0)],
            y: 0.0,
            grad: &[&[f64::INFINITY]],
        }],
    },
    ScalarRule {
        prim: Atanh,
        keeps: &[Arg(0)],
        // ChainRules: inv(1 - x²).
        reverse: Scale(|e, k| {
            let x2 = e.mul(k[0].clone(), k[0].clone());
            let d = e.prim(Sub, vec![one(), x2], F64);
            e.prim(Div, vec![one(), d], F64)
        }),
        forward: Partials,
        points: UNIT,
        special: &[
            Special {
                at: &[F(0.0)],
                y: 0.0,
                grad: &[&[1.0]],
            },
            Special {
                at: &[F(1.0)],
                y: f64::INFINITY,
                grad: &[&[f64::INFINITY]],
            },
            Special {
                at: &[F(-1.0)],
                y: f64::NEG_INFINITY,
                grad: &[&[f64::INFINITY]],
            },
        ],
    },
    ScalarRule {
        prim: Atan,
        keeps: &[Arg(0)],
        // 1 + x²
        reverse: Divide(|e, k| {
            let x2 = e.mul(k[0].clone(), k[0].clone());
            e.add(one(), x2)
        }),
        forward: Partials,
        points: ANYWHERE,
        special: &[],
    },
    ScalarRule {
        prim: Max,
        keeps: &[Arg(0), Arg(1)],
        reverse: Terms(max_min),
        forward: Partials,
        points: PAIRS,
        special: &[],
    },
    ScalarRule {
        prim: Min,
        keeps: &[Arg(0), Arg(1)],
        reverse: Terms(max_min),
        forward: Partials,
        points: PAIRS,
        special: &[],
    },
    ScalarRule {
        prim: Copysign,
        keeps: &[Arg(0), Arg(1)],
        // ChainRules: ∂x = ifelse(signbit(x) != signbit(y), -1, 1), ∂y = NoTangent:
        // copysign(1, x) * copysign(1, y) is that ±1.
        reverse: Terms(|e, k, dy, _| {
            let sx = e.prim(Copysign, vec![one(), k[0].clone()], F64);
            let sy = e.prim(Copysign, vec![one(), k[1].clone()], F64);
            let d = e.mul(sx, sy);
            vec![Some(e.mul(dy, d)), None]
        }),
        forward: Partials,
        points: &[
            &[F(1.5), F(-0.7)],
            &[F(-2.2), F(0.9)],
            &[F(0.3), F(2.4)],
            &[F(-0.3), F(-2.4)],
        ],
        special: &[Special {
            at: &[F(2.0), F(-0.0)],
            y: -2.0,
            grad: &[&[-1.0], &[0.0]],
        }],
    },
    ScalarRule {
        prim: Fma,
        keeps: &[Arg(0), Arg(1)],
        // ChainRules: (y, x, true).
        reverse: Terms(|e, k, dy, _| {
            let dx = e.mul(dy.clone(), k[1].clone());
            let dyy = e.mul(dy.clone(), k[0].clone());
            vec![Some(dx), Some(dyy), Some(dy)]
        }),
        forward: Partials,
        points: &[&[F(1.5), F(-0.7), F(0.3)], &[F(-2.2), F(0.9), F(1.1)]],
        special: &[],
    },
    ScalarRule {
        prim: Float,
        keeps: &[],
        reverse: Terms(|_, _, _, _| vec![None]),
        // An Int or Bool operand: no tangent.
        forward: Tangent(|_, _, _, _| Const::f64(0.0).into()),
        points: &[&[I(3)], &[I(-2)]],
        special: &[],
    },
    ScalarRule {
        prim: Rem,
        keeps: &[Arg(0), Arg(1)],
        reverse: Terms(rem),
        forward: Partials,
        points: PAIRS,
        special: &[],
    },
    ScalarRule {
        prim: IfElse,
        keeps: &[Arg(0)],
        reverse: Terms(|e, k, dy, _| {
            // The condition gets nothing; the chosen operand ȳ, the other a strong zero.
            let zero: Operand = Const::f64(0.0).into();
            let da = e.prim(IfElse, vec![k[0].clone(), dy.clone(), zero.clone()], F64);
            let db = e.prim(IfElse, vec![k[0].clone(), zero, dy], F64);
            vec![None, Some(da), Some(db)]
        }),
        // The chosen operand's tangent.
        forward: Tangent(|e, x, _, t| {
            let zero = || Operand::from(Const::f64(0.0));
            let (a, b) = (
                t[1].clone().unwrap_or_else(zero),
                t[2].clone().unwrap_or_else(zero),
            );
            e.prim(IfElse, vec![x[0].clone(), a, b], F64)
        }),
        points: &[
            &[TestArg::Bool(true), F(1.5), F(-0.5)],
            &[TestArg::Bool(false), F(1.5), F(-0.5)],
        ],
        special: &[],
    },
];

/// The rule of `p`, if it is a scalar primitive with one here.
pub fn rule(p: Prim) -> Option<&'static ScalarRule> {
    RULES
        .iter()
        .chain(super::specfun::RULES)
        .find(|r| r.prim == p)
}

/// Is `p` a scalar primitive with a rule here?
pub fn handles(p: Prim) -> bool {
    rule(p).is_some()
}

/// `inv(x) / c`: the derivative of a logarithm to the base `exp(c)`, as ChainRules writes it.
fn inv_over(e: &mut Emit, k: &[Operand], c: f64) -> Operand {
    let inv = e.prim(Div, vec![one(), k[0].clone()], F64);
    e.prim(Div, vec![inv, Const::f64(c).into()], F64)
}

/// `sqrt(1 - x²)`, the denominator of `asin` and `acos`.
fn one_minus_square_root(e: &mut Emit, k: &[Operand]) -> Operand {
    let x2 = e.mul(k[0].clone(), k[0].clone());
    let d = e.prim(Sub, vec![one(), x2], F64);
    e.prim(Sqrt, vec![d], F64)
}

/// The primal operation; residuals are the operands and/or the result, as the reverse needs.
pub fn forward(e: &mut Emit, p: Prim, s: &FwdStmt) -> FwdOut {
    let value = e.prim(p, s.args.clone(), s.ty.clone());
    let float_operands = s.arg_tys.iter().any(Type::is_float);
    if !s.active || !(s.ty.is_float() || p == Float && float_operands) {
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

/// What the reverse of `y = p(args...)` needs: operands and/or the result, as its rule keeps.
pub fn residuals(p: Prim, args: &[Operand], y: &Operand) -> Vec<Operand> {
    let Some(r) = rule(p) else {
        return vec![];
    };
    let arg = |i: usize| args.get(i).cloned().unwrap_or(Const::Nothing.into());
    r.keeps
        .iter()
        .filter_map(|k| match k {
            Arg(i) => Some(arg(*i)),
            Result => Some(y.clone()),
            Kept::ResultUnlessLiteralExponent => {
                (!matches!(arg(1), Operand::Const(Const::Int(_)))).then(|| y.clone())
            }
        })
        .collect()
}

/// `ẏ` of `y = p(args...)` from the operands' tangents (`None`: zero), by the rule's
/// [`Forward`]. Only Float64 operands carry a tangent; others are ignored.
pub fn pushforward(
    e: &mut Emit,
    p: Prim,
    args: &[Operand],
    arg_tys: &[Type],
    y: &Operand,
    tangents: &[Option<Operand>],
) -> Operand {
    let Some(r) = rule(p) else {
        return Const::f64(0.0).into();
    };
    let t: Vec<Option<Operand>> = (0..args.len())
        .map(|i| {
            tangents
                .get(i)
                .cloned()
                .flatten()
                .filter(|_| arg_tys.get(i) == Some(&Type::Float64))
        })
        .collect();
    match r.forward {
        Tangent(f) => f(e, args, y, &t),
        Partials => {
            let op = zy_ir::Op::Prim(p);
            let consts = args
                .iter()
                .map(|a| a.as_const().cloned())
                .collect::<Vec<_>>();
            let mut terms = Vec::new();
            for (i, ti) in t.iter().enumerate() {
                let Some(ti) = ti else { continue };
                let s = RevStmt {
                    op: &op,
                    arg_tys: arg_tys.to_vec(),
                    consts: consts.clone(),
                    ty: Type::Float64,
                    residuals: residuals(p, args, y),
                    dy: Some(ti.clone()),
                    mask: crate::mask::ArgMask::ALL,
                };
                terms.extend(reverse(e, p, &s).into_iter().nth(i).flatten());
            }
            sum(e, terms.into_iter())
        }
    }
}

/// The sum of `terms` (a literal zero for none).
fn sum(e: &mut Emit, mut terms: impl Iterator<Item = Operand>) -> Operand {
    let first = terms.next().unwrap_or(Const::f64(0.0).into());
    terms.fold(first, |acc, t| e.prim(Add, vec![acc, t], F64))
}

/// Contributions to each operand from `dy`.
pub fn reverse(e: &mut Emit, p: Prim, s: &RevStmt) -> Vec<Option<Operand>> {
    let n = s.arg_tys.len();
    let (Some(dy), Some(r)) = (s.dy.clone(), rule(p)) else {
        return vec![None; n];
    };
    if s.ty == Type::Float32 || s.arg_tys.contains(&Type::Float32) {
        return in_float64(e, p, s, dy);
    }
    if s.ty != Type::Float64 {
        return vec![None; n];
    }
    let k = &s.residuals;
    let out = match r.reverse {
        Scale(d) => {
            let d = d(e, k);
            vec![Some(e.mul(dy, d))]
        }
        Divide(d) => {
            let d = d(e, k);
            vec![Some(e.prim(Div, vec![dy, d], F64))]
        }
        Terms(f) => f(e, k, dy, s),
    };
    // Only Float64 operands get a gradient.
    out.into_iter()
        .enumerate()
        .map(|(i, g)| g.filter(|_| s.arg_tys.get(i) == Some(&Type::Float64)))
        .collect()
}

/// The reverse of a Float32 operation (or of `Float64(x)` of a Float32 `x`): the Float64
/// rule's, run on the Float64 values of the kept Float32s and of `ȳ`, each Float32 operand's
/// contribution rounded back to a Float32 (Zygote's `ProjectTo`). The partials are so exact
/// to the Float64 (Julia's Float32 rules round each step, a last bit apart at most).
fn in_float64(e: &mut Emit, p: Prim, s: &RevStmt, dy: Operand) -> Vec<Option<Operand>> {
    let widen = |e: &mut Emit, x: Operand| match e.b.func.operand_ty(&x) {
        Type::Float32 => e.prim(Float, vec![x], F64),
        _ => x,
    };
    let dy = widen(e, dy);
    let residuals = s.residuals.iter().map(|k| widen(e, k.clone())).collect();
    let wide = |t: &Type| match t {
        Type::Float32 => F64,
        t => t.clone(),
    };
    let s64 = RevStmt {
        op: s.op,
        arg_tys: s.arg_tys.iter().map(wide).collect(),
        consts: s.consts.clone(),
        ty: wide(&s.ty),
        residuals,
        dy: Some(dy),
        mask: s.mask,
    };
    let out = match p {
        // `Float64(x)` of a Float32: `x̄ = ȳ`, rounded below.
        Float => vec![s64.dy.clone()],
        _ => reverse(e, p, &s64),
    };
    out.into_iter()
        .zip(&s.arg_tys)
        .map(|(g, t)| match (g, t) {
            (Some(g), Type::Float32) => Some(e.prim(ToFloat32, vec![g], Type::Float32)),
            (g, _) => g,
        })
        .collect()
}

/// The pushforward of a Float32 operation (or of `Float64(x)` of a Float32): the Float64
/// rule's, on the widened operands, result and tangents, rounded to a Float32 where the
/// result is one (ForwardDiff's partials of a Float32 dual, to the last bit the rounding of
/// each step may move). `None` where no operand has a tangent.
pub fn pushforward_in_float64(e: &mut Emit, p: Prim, s: &TanStmt, y: &Operand) -> Option<Operand> {
    if s.tangents.iter().all(Option::is_none) {
        return None;
    }
    let widen = |e: &mut Emit, x: &Operand| match e.b.func.operand_ty(x) {
        Type::Float32 => e.prim(Float, vec![x.clone()], F64),
        _ => x.clone(),
    };
    let args: Vec<Operand> = s.args.iter().map(|a| widen(e, a)).collect();
    let tangents: Vec<Option<Operand>> = s
        .tangents
        .iter()
        .map(|t| t.as_ref().map(|t| widen(e, t)))
        .collect();
    let y = widen(e, y);
    let tys: Vec<Type> = s
        .arg_tys
        .iter()
        .map(|t| match t {
            Type::Float32 => F64,
            t => t.clone(),
        })
        .collect();
    let t = match p {
        // `Float64(x)` of a Float32: `ẏ = ẋ`, widened.
        Float => tangents.first().cloned().flatten()?,
        _ => pushforward(e, p, &args, &tys, &y, &tangents),
    };
    Some(match s.ty {
        Type::Float32 => e.prim(ToFloat32, vec![t], Type::Float32),
        _ => t,
    })
}

/// The pushforward of `Float32(x)` of a Float64 `x`: `ẏ = Float32(ẋ)`.
pub fn rounding_pushforward(e: &mut Emit, s: &TanStmt) -> Option<Operand> {
    match (s.tangent(0), s.arg_tys.as_slice()) {
        (Some(t), [Type::Float64]) => Some(e.prim(ToFloat32, vec![t], Type::Float32)),
        (Some(t), [Type::Float32]) => Some(t),
        _ => None,
    }
}

/// The reverse of `Float32(x)` of a Float64 `x`: `x̄ = Float64(ȳ)`, exact.
pub fn rounding_reverse(e: &mut Emit, s: &RevStmt) -> Vec<Option<Operand>> {
    match (&s.dy, s.arg_tys.as_slice()) {
        (Some(dy), [Type::Float64]) => vec![Some(e.prim(Float, vec![dy.clone()], F64))],
        _ => s.none(),
    }
}

/// `rem(a, b) = a - b * trunc(a / b)`: `ā = ȳ`, `b̄ = -ȳ trunc(a / b)`; NaN where `a / b` is an
/// integer (rem jumps there), as ChainRules has it.
fn rem(e: &mut Emit, k: &[Operand], dy: Operand, _: &RevStmt) -> Vec<Option<Operand>> {
    let q = e.prim(Div, vec![k[0].clone(), k[1].clone()], F64);
    let tq = trunc(e, q.clone());
    let t = e.mul(dy.clone(), tq.clone());
    let db = e.prim(Neg, vec![t], F64);
    if e.bcast.is_some() {
        vec![Some(dy), Some(db)]
    } else {
        let whole = e.prim(Eq, vec![tq, q], Type::Bool);
        let nan: Operand = Const::f64(f64::NAN).into();
        let da = e.prim(IfElse, vec![whole.clone(), nan.clone(), dy], F64);
        let db = e.prim(IfElse, vec![whole, nan, db], F64);
        vec![Some(da), Some(db)]
    }
}

/// ChainRules: with `gt = a > b`, max's partials are `(gt, !gt)` and min's `(!gt, gt)`: a tie
/// (or a NaN) gives max's gradient to `b` and min's to `a`.
fn max_min(e: &mut Emit, k: &[Operand], dy: Operand, s: &RevStmt) -> Vec<Option<Operand>> {
    let is_max = matches!(s.op, zy_ir::Op::Prim(Max));
    let gt = e.prim(Gt, vec![k[0].clone(), k[1].clone()], Type::Bool);
    let a_wins = if is_max {
        gt
    } else {
        e.prim(Not, vec![gt], Type::Bool)
    };
    if e.bcast.is_some() {
        // Broadcast: Boolean weights (a weak zero for an infinite ȳ).
        let wa = e.prim(Float, vec![a_wins], F64);
        let wb = e.prim(Sub, vec![one(), wa.clone()], F64);
        vec![Some(e.mul(dy.clone(), wa)), Some(e.mul(dy, wb))]
    } else {
        let zero: Operand = Const::f64(0.0).into();
        let da = e.prim(IfElse, vec![a_wins.clone(), dy.clone(), zero.clone()], F64);
        let db = e.prim(IfElse, vec![a_wins, zero, dy], F64);
        vec![Some(da), Some(db)]
    }
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
fn pow(e: &mut Emit, k: &[Operand], dy: Operand, s: &RevStmt) -> Vec<Option<Operand>> {
    let f = Type::Float64;
    let (x, n) = (k[0].clone(), k[1].clone());
    let y = k.get(2).cloned().unwrap_or(Const::Nothing.into());
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
