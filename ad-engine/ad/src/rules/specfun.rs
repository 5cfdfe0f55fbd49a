//! Rules of the special functions (SpecialFunctions.jl's, after `using SpecialFunctions`),
//! each derivative written as SpecialFunctions' ChainRules extension writes it, so that the
//! bits agree with what Julia users get; `besselj1'` is the recurrence `J₀ - J₁/x` (ChainRules'
//! `(J₀ - J₂)/2` with `J₂ = 2J₁/x - J₀`), `1/2` at `0`, and `bessely1'` is `Y₀ - Y₁/x`. The
//! Bessel functions of an order `ν` and the incomplete gamma functions have a derivative in `x`
//! only, as in ChainRules (whose rules leave `ν`'s and `a`'s not implemented), the incomplete
//! beta function (SpecialFunctions has no rule) its density in `x`: differentiating with
//! respect to the others is refused by name ([`refuse_underived`]), never a silent zero.

use zy_ir::{Const, Operand, Prim, Span, Type};

use super::scalar::{Forward::Partials, Kept::*, Reverse::*, ScalarRule};
use super::{Emit, RevStmt, Special, TestArg};
use crate::AdError;
use Prim::*;
use TestArg::{Float as F, Int as I};

const F64: Type = Type::Float64;

/// `Float64(√π)`, ChainRules' `sqrtπ`.
const SQRT_PI: f64 = 1.772_453_850_905_516;

/// Points away from the poles of `gamma` and of its logarithm.
const OFF_POLES: &[&[TestArg]] = &[&[F(-1.3)], &[F(-0.2)], &[F(0.4)], &[F(1.7)], &[F(3.2)]];
/// Points inside every domain.
const ANYWHERE: &[&[TestArg]] = &[&[F(-1.3)], &[F(-0.2)], &[F(0.4)], &[F(1.7)]];
/// Points of the positive half-line.
const POSITIVE: &[&[TestArg]] = &[&[F(0.3)], &[F(1.0)], &[F(2.5)], &[F(7.5)]];

fn f(x: f64) -> Operand {
    Const::f64(x).into()
}

/// `2 exp(-x²) / √π`, the derivative of `erf`.
fn erf_slope(e: &mut Emit, x: &Operand) -> Operand {
    let x2 = e.mul(x.clone(), x.clone());
    let nx2 = e.prim(Neg, vec![x2], F64);
    let ex = e.prim(Exp, vec![nx2], F64);
    let two = e.mul(f(2.0), ex);
    e.prim(Div, vec![two, f(SQRT_PI)], F64)
}

/// `√π exp(Ω²) / 2`, the derivative of `erfinv` at its value `Ω`.
fn erfinv_slope(e: &mut Emit, y: &Operand) -> Operand {
    let y2 = e.mul(y.clone(), y.clone());
    let ey = e.prim(Exp, vec![y2], F64);
    let half = e.prim(Div, vec![ey, f(2.0)], F64);
    e.mul(f(SQRT_PI), half)
}

/// `a - b / x`, `c` at `x = 0`: the Bessel functions' recurrence for the derivative of the
/// order-one function from the order-zero one `a` and itself `b`.
fn bessel1_slope(e: &mut Emit, x: &Operand, a: Operand, b: Operand, c: f64) -> Operand {
    let q = e.prim(Div, vec![b, x.clone()], F64);
    let d = e.prim(Sub, vec![a, q], F64);
    let zero = e.prim(Eq, vec![x.clone(), f(0.0)], Type::Bool);
    e.prim(IfElse, vec![zero, f(c), d], F64)
}

/// The operands of `p` without a derivative (SpecialFunctions' rule leaves them
/// `@not_implemented`, or has no rule), with how the refusal names the call and them.
fn underived(p: Prim) -> Option<(&'static [usize], String, &'static str)> {
    const A: &[usize] = &[0];
    const AB: &[usize] = &[0, 1];
    let incomplete =
        "its parameter a: SpecialFunctions' rule has no derivative in a (`@not_implemented`)";
    match p {
        _ if p.bessel().is_some() => Some((
            A,
            format!("{p}(ν, x)"),
            "its order ν: SpecialFunctions' rule has no derivative in ν (`@not_implemented`)",
        )),
        GammaIncP | GammaIncQ => Some((A, "gamma_inc(a, x)".into(), incomplete)),
        LogUpperGamma => Some((A, "gamma(a, x)`, `loggamma(a, x)` or `expint(1 - a, x)".into(), incomplete)),
        Zeta => Some((
            A,
            "zeta(s, z)` (`zeta(s)`".into(),
            "s: neither ChainRules nor DiffRules has a derivative in s",
        )),
        BetaInc => Some((
            AB,
            "beta_inc(a, b, x)".into(),
            "its parameters a and b: SpecialFunctions has no rule for `beta_inc` (zy's is the density, the derivative in x)",
        )),
        _ => None,
    }
}

/// Does `p` have an operand without a derivative ([`refuse_underived`])?
pub fn has_underived(p: Prim) -> bool {
    underived(p).is_some()
}

/// Why `p` cannot be differentiated with respect to one of its operands `wanted(i)` (a Bessel
/// function's order, an incomplete gamma function's `a`), if it has such an operand.
/// `broadcast`: `p` is applied by a broadcast (`besselj.(nus, x)`).
fn underived_message(p: Prim, broadcast: bool, wanted: impl Fn(usize) -> bool) -> Option<String> {
    let (operands, call, what) = underived(p)?;
    if !operands.iter().any(|&i| wanted(i)) {
        return None;
    }
    let constant = match broadcast {
        true => "constants (a tuple, a range or an array built from constants only)",
        false => "it as a constant",
    };
    Some(format!(
        "cannot differentiate `{call}` with respect to {what}; pass {constant}"
    ))
}

/// Refuses to differentiate `p` with respect to an operand it has no derivative in where that
/// operand varies (`wanted(i)`): never a silent zero. Reverse mode differentiates a function
/// with respect to all its arguments, forward mode with respect to what varies at the call:
/// the error lets forward mode take the gradient ([`AdError::nested_reverse`]), which takes
/// it where the operand is a parameter of a library function only (`gamma_inc(a, x)` called
/// with a constant `a`).
pub fn refuse_underived(
    span: Span,
    p: Prim,
    broadcast: bool,
    wanted: impl Fn(usize) -> bool,
) -> std::result::Result<(), AdError> {
    let Some(message) = underived_message(p, broadcast, wanted) else {
        return Ok(());
    };
    let mut e = AdError::new(span, message);
    e.nested_reverse = true;
    Err(e)
}

/// Forward mode's guard on the operands of `p` it has no derivative in, from their tangents
/// (`at`: where `p`'s operands start among them): a tangent known only at run time (a field of
/// a struct's, which is zero where the caller built the struct from a constant) is checked
/// there, the run failing with ChainRules' `NotImplementedException` where it is not zero.
pub fn guard_underived(e: &mut Emit, p: Prim, at: usize, tangents: &[Option<Operand>]) {
    let tangent = |i: usize| tangents.get(i + at).cloned().flatten();
    let varying = |i: usize| tangent(i).is_some_and(|t| !super::is_zero_literal(&t));
    let Some(message) = underived_message(p, at > 0, varying) else {
        return;
    };
    let Some((operands, _, _)) = underived(p) else {
        return;
    };
    for &i in operands {
        if let Some(t) = tangent(i).filter(|t| !super::is_zero_literal(t)) {
            let text: Operand = Const::Str(message.as_str().into()).into();
            e.prim(RefuseTangent, vec![t, text], Type::Nothing);
        }
    }
}

/// The primitive a statement of `p` on `args` applies, and where that primitive's operands
/// start: `p` itself, or for a broadcast (`besselj.(nus, x)`) the scalar primitive it applies,
/// whose operands follow the function.
pub fn applied(p: Prim, args: &[Operand]) -> (Prim, usize) {
    match (p, super::broadcast::callee(args)) {
        (Prim::Broadcast, Some(q)) => (q, 1),
        _ => (p, 0),
    }
}

/// `ν ± 1` of an Int or Float64 order.
fn shift_order(e: &mut Emit, nu: &Operand, ty: &Type, up: bool) -> Operand {
    let op = if up { Add } else { Sub };
    let one: Operand = match ty {
        Type::Int64 => Const::Int(1).into(),
        _ => f(1.0),
    };
    e.prim(op, vec![nu.clone(), one], ty.clone())
}

/// The derivative of a Bessel function `p` of an order in `x`, by the recurrences ChainRules
/// writes: `(f(ν-1, x) ∓ f(ν+1, x)) / 2`, `-` for `J` and `Y`, `+` for `I`, the negated sum for
/// `K`; a scaled `I` less `sign(x) Ω`, a scaled `K` plus `Ω`.
fn bessel_terms(e: &mut Emit, k: &[Operand], dy: Operand, s: &RevStmt) -> Vec<Option<Operand>> {
    use zy_ir::specfun::Bessel;
    let zy_ir::Op::Prim(p) = *s.op else {
        return vec![None, None];
    };
    let Some((kind, scaled)) = p.bessel() else {
        return vec![None, None];
    };
    let nu_ty = s.arg_tys.first().cloned().unwrap_or(F64);
    let lo = shift_order(e, &k[0], &nu_ty, false);
    let hi = shift_order(e, &k[0], &nu_ty, true);
    let below = e.prim(p, vec![lo, k[1].clone()], F64);
    let above = e.prim(p, vec![hi, k[1].clone()], F64);
    let combined = match kind {
        Bessel::J | Bessel::Y => e.prim(Sub, vec![below, above], F64),
        Bessel::I | Bessel::K => e.add(below, above),
    };
    let half = e.prim(Div, vec![combined, f(2.0)], F64);
    let d = match (kind, scaled) {
        (Bessel::K, false) => e.prim(Neg, vec![half], F64),
        (Bessel::K, true) => {
            let neg = e.prim(Neg, vec![half], F64);
            e.add(neg, k[2].clone())
        }
        (Bessel::I, true) => {
            let sign = e.prim(Sign, vec![k[1].clone()], F64);
            let so = e.mul(sign, k[2].clone());
            e.prim(Sub, vec![half, so], F64)
        }
        _ => half,
    };
    vec![None, Some(e.mul(dy, d))]
}

/// `ν` and `x` of each Bessel function's tests: integer orders (an Int order has no tangent),
/// 0 and negative ones too.
const ORDERS: &[&[TestArg]] = &[
    &[I(0), F(0.7)],
    &[I(1), F(2.5)],
    &[I(2), F(1.3)],
    &[I(-1), F(3.1)],
    &[I(3), F(12.5)],
];

/// The same where `x` may be negative (`J` and `I` of an integer order).
const ORDERS_SIGNED: &[&[TestArg]] = &[
    &[I(0), F(0.7)],
    &[I(1), F(-2.5)],
    &[I(2), F(1.3)],
    &[I(-1), F(3.1)],
    &[I(3), F(-12.5)],
];

/// A Bessel function's rule.
const fn bessel_rule(
    prim: Prim,
    keeps: &'static [super::scalar::Kept],
    points: &'static [&'static [TestArg]],
) -> ScalarRule {
    ScalarRule {
        prim,
        keeps,
        reverse: Terms(bessel_terms),
        forward: Partials,
        points,
        special: &[],
    }
}

/// Operand `i` of `s` as a Float64 (an Int parameter converted).
fn float_operand(e: &mut Emit, k: &[Operand], s: &RevStmt, i: usize) -> Operand {
    match s.arg_tys.get(i) {
        Some(Type::Int64) => e.prim(Float, vec![k[i].clone()], F64),
        _ => k[i].clone(),
    }
}

/// `exp(-x) x^(a - 1) / gamma(a)`, the derivative of `P(a, x)` in `x` (ChainRules' `z` of
/// `gamma_inc`).
fn gamma_inc_slope(e: &mut Emit, k: &[Operand], s: &RevStmt) -> Operand {
    let a = float_operand(e, k, s, 0);
    let nx = e.prim(Neg, vec![k[1].clone()], F64);
    let ex = e.prim(Exp, vec![nx], F64);
    let am1 = e.prim(Sub, vec![a.clone(), f(1.0)], F64);
    let pow = e.prim(Pow, vec![k[1].clone(), am1], F64);
    let num = e.mul(ex, pow);
    let g = e.prim(Gamma, vec![a], F64);
    e.prim(Div, vec![num, g], F64)
}

/// `x^(a - 1) (1 - x)^(b - 1) / B(a, b)`, the density of the beta distribution: the
/// derivative of `I_x(a, b)` in `x`.
fn beta_inc_slope(e: &mut Emit, k: &[Operand], s: &RevStmt) -> Operand {
    let a = float_operand(e, k, s, 0);
    let b = float_operand(e, k, s, 1);
    let am1 = e.prim(Sub, vec![a.clone(), f(1.0)], F64);
    let bm1 = e.prim(Sub, vec![b.clone(), f(1.0)], F64);
    let xa = e.prim(Pow, vec![k[2].clone(), am1], F64);
    let y = e.prim(Sub, vec![f(1.0), k[2].clone()], F64);
    let yb = e.prim(Pow, vec![y, bm1], F64);
    let ab = e.add(a.clone(), b.clone());
    let lab = e.prim(LogAbsGamma, vec![ab], F64);
    let la = e.prim(LogAbsGamma, vec![a], F64);
    let lb = e.prim(LogAbsGamma, vec![b], F64);
    let l1 = e.prim(Sub, vec![lab, la], F64);
    let l2 = e.prim(Sub, vec![l1, lb], F64);
    let inv_beta = e.prim(Exp, vec![l2], F64);
    let xy = e.mul(xa, yb);
    e.mul(xy, inv_beta)
}

/// `a` and `x` of the incomplete gamma functions' tests (an Int `a` has no tangent).
const INCOMPLETE: &[&[TestArg]] = &[
    &[I(1), F(0.3)],
    &[I(3), F(2.0)],
    &[I(2), F(5.5)],
    &[I(10), F(7.0)],
];

/// Every special function's rule.
pub static RULES: &[ScalarRule] = &[
    ScalarRule {
        prim: Gamma,
        keeps: &[Arg(0), Result],
        // ChainRules: Ω digamma(x).
        reverse: Scale(|e, k| {
            let psi = e.prim(Digamma, vec![k[0].clone()], F64);
            e.mul(k[1].clone(), psi)
        }),
        forward: Partials,
        points: OFF_POLES,
        special: &[Special {
            at: &[F(0.0)],
            y: f64::INFINITY,
            grad: &[&[f64::NEG_INFINITY]],
        }],
    },
    ScalarRule {
        prim: LogAbsGamma,
        keeps: &[Arg(0)],
        // ChainRules: digamma(x) (of `logabsgamma`'s first half, and of `loggamma`).
        reverse: Scale(|e, k| e.prim(Digamma, vec![k[0].clone()], F64)),
        forward: Partials,
        points: OFF_POLES,
        special: &[],
    },
    ScalarRule {
        prim: Digamma,
        keeps: &[Arg(0)],
        // ChainRules: trigamma(x).
        reverse: Scale(|e, k| e.prim(Polygamma, vec![Const::Int(1).into(), k[0].clone()], F64)),
        forward: Partials,
        points: OFF_POLES,
        special: &[Special {
            at: &[F(0.0)],
            y: f64::NEG_INFINITY,
            grad: &[&[f64::INFINITY]],
        }],
    },
    ScalarRule {
        prim: Polygamma,
        keeps: &[Arg(0), Arg(1)],
        // ChainRules: (NoTangent, polygamma(m + 1, x)).
        reverse: Terms(|e, k, dy, _| {
            let m1 = e.prim(Add, vec![k[0].clone(), Const::Int(1).into()], Type::Int64);
            let d = e.prim(Polygamma, vec![m1, k[1].clone()], F64);
            vec![None, Some(e.mul(dy, d))]
        }),
        forward: Partials,
        points: &[
            &[I(0), F(1.3)],
            &[I(1), F(0.7)],
            &[I(2), F(2.5)],
            &[I(3), F(-1.4)],
            &[I(1), F(30.0)],
        ],
        special: &[],
    },
    ScalarRule {
        prim: Erf,
        keeps: &[Arg(0)],
        // ChainRules: (2 exp(-x²)) / sqrtπ.
        reverse: Scale(|e, k| erf_slope(e, &k[0])),
        forward: Partials,
        points: ANYWHERE,
        special: &[
            Special {
                at: &[F(0.0)],
                y: 0.0,
                grad: &[&[std::f64::consts::FRAC_2_SQRT_PI]],
            },
            Special {
                at: &[F(f64::INFINITY)],
                y: 1.0,
                grad: &[&[0.0]],
            },
        ],
    },
    ScalarRule {
        prim: Erfc,
        keeps: &[Arg(0)],
        // ChainRules: -(2 exp(-x²)) / sqrtπ.
        reverse: Scale(|e, k| {
            let d = erf_slope(e, &k[0]);
            e.prim(Neg, vec![d], F64)
        }),
        forward: Partials,
        points: ANYWHERE,
        special: &[Special {
            at: &[F(0.0)],
            y: 1.0,
            grad: &[&[-std::f64::consts::FRAC_2_SQRT_PI]],
        }],
    },
    ScalarRule {
        prim: Erfinv,
        keeps: &[Result],
        // ChainRules: sqrtπ (exp(Ω²) / 2).
        reverse: Scale(|e, k| erfinv_slope(e, &k[0])),
        forward: Partials,
        points: &[&[F(-0.7)], &[F(0.1)], &[F(0.6)], &[F(0.99)]],
        special: &[
            Special {
                at: &[F(0.0)],
                y: 0.0,
                grad: &[&[0.886226925452758]],
            },
            Special {
                at: &[F(1.0)],
                y: f64::INFINITY,
                grad: &[&[f64::INFINITY]],
            },
        ],
    },
    ScalarRule {
        prim: ErfcinvSmall,
        keeps: &[Result],
        // ChainRules (of `erfcinv`): -(sqrtπ (exp(Ω²) / 2)).
        reverse: Scale(|e, k| {
            let d = erfinv_slope(e, &k[0]);
            e.prim(Neg, vec![d], F64)
        }),
        forward: Partials,
        points: &[&[F(0.001)], &[F(0.03)], &[F(0.06)]],
        special: &[Special {
            at: &[F(0.0)],
            y: f64::INFINITY,
            grad: &[&[f64::NEG_INFINITY]],
        }],
    },
    ScalarRule {
        prim: Erfcx,
        keeps: &[Arg(0), Result],
        // ChainRules: 2 (x Ω - inv(sqrtπ)).
        reverse: Scale(|e, k| {
            let xy = e.mul(k[0].clone(), k[1].clone());
            let inv = e.prim(Div, vec![f(1.0), f(SQRT_PI)], F64);
            let d = e.prim(Sub, vec![xy, inv], F64);
            e.mul(f(2.0), d)
        }),
        forward: Partials,
        points: &[
            &[F(-1.3)],
            &[F(-0.2)],
            &[F(0.4)],
            &[F(1.7)],
            &[F(6.0)],
            &[F(40.0)],
        ],
        special: &[Special {
            at: &[F(0.0)],
            y: 1.0,
            grad: &[&[-std::f64::consts::FRAC_2_SQRT_PI]],
        }],
    },
    ScalarRule {
        prim: Besselj0,
        keeps: &[Arg(0)],
        // ChainRules: -besselj1(x).
        reverse: Scale(|e, k| {
            let j1 = e.prim(Besselj1, vec![k[0].clone()], F64);
            e.prim(Neg, vec![j1], F64)
        }),
        forward: Partials,
        points: ANYWHERE,
        special: &[Special {
            at: &[F(0.0)],
            y: 1.0,
            grad: &[&[-0.0]],
        }],
    },
    ScalarRule {
        prim: Besselj1,
        keeps: &[Arg(0), Result],
        reverse: Scale(|e, k| {
            let j0 = e.prim(Besselj0, vec![k[0].clone()], F64);
            bessel1_slope(e, &k[0], j0, k[1].clone(), 0.5)
        }),
        forward: Partials,
        points: &[&[F(-1.3)], &[F(-0.2)], &[F(0.4)], &[F(1.7)], &[F(12.5)]],
        special: &[Special {
            at: &[F(0.0)],
            y: 0.0,
            grad: &[&[0.5]],
        }],
    },
    ScalarRule {
        prim: Bessely0,
        keeps: &[Arg(0)],
        // ChainRules: -bessely1(x).
        reverse: Scale(|e, k| {
            let y1 = e.prim(Bessely1, vec![k[0].clone()], F64);
            e.prim(Neg, vec![y1], F64)
        }),
        forward: Partials,
        points: POSITIVE,
        special: &[Special {
            at: &[F(0.0)],
            y: f64::NEG_INFINITY,
            grad: &[&[f64::INFINITY]],
        }],
    },
    ScalarRule {
        prim: Bessely1,
        keeps: &[Arg(0), Result],
        reverse: Scale(|e, k| {
            let y0 = e.prim(Bessely0, vec![k[0].clone()], F64);
            bessel1_slope(e, &k[0], y0, k[1].clone(), f64::NAN)
        }),
        forward: Partials,
        points: POSITIVE,
        special: &[],
    },
    ScalarRule {
        prim: Dawson,
        keeps: &[Arg(0), Result],
        // ChainRules: 1 - (2 x Ω).
        reverse: Scale(|e, k| {
            let xy = e.mul(k[0].clone(), k[1].clone());
            let twice = e.mul(f(2.0), xy);
            e.prim(Sub, vec![f(1.0), twice], F64)
        }),
        forward: Partials,
        points: &[&[F(-1.3)], &[F(0.2)], &[F(0.4)], &[F(1.7)], &[F(12.0)]],
        special: &[Special {
            at: &[F(0.0)],
            y: 0.0,
            grad: &[&[1.0]],
        }],
    },
    ScalarRule {
        prim: Erfi,
        keeps: &[Arg(0)],
        // ChainRules: (2 exp(x²)) / sqrtπ.
        reverse: Scale(|e, k| {
            let x2 = e.mul(k[0].clone(), k[0].clone());
            let ex = e.prim(Exp, vec![x2], F64);
            let two = e.mul(f(2.0), ex);
            e.prim(Div, vec![two, f(SQRT_PI)], F64)
        }),
        forward: Partials,
        points: ANYWHERE,
        special: &[Special {
            at: &[F(0.0)],
            y: 0.0,
            grad: &[&[std::f64::consts::FRAC_2_SQRT_PI]],
        }],
    },
    ScalarRule {
        prim: Sinint,
        keeps: &[Arg(0)],
        // ChainRules: sinc(x / π) = sin(x) / x, 1 at 0.
        reverse: Scale(|e, k| {
            let s = e.prim(Sin, vec![k[0].clone()], F64);
            let q = e.prim(Div, vec![s, k[0].clone()], F64);
            let zero = e.prim(Eq, vec![k[0].clone(), f(0.0)], Type::Bool);
            e.prim(IfElse, vec![zero, f(1.0), q], F64)
        }),
        forward: Partials,
        points: &[&[F(-1.3)], &[F(0.4)], &[F(1.7)], &[F(6.5)]],
        special: &[Special {
            at: &[F(0.0)],
            y: 0.0,
            grad: &[&[1.0]],
        }],
    },
    ScalarRule {
        prim: Cosint,
        keeps: &[Arg(0)],
        // ChainRules: cos(x) / x.
        reverse: Scale(|e, k| {
            let c = e.prim(Cos, vec![k[0].clone()], F64);
            e.prim(Div, vec![c, k[0].clone()], F64)
        }),
        forward: Partials,
        points: &[&[F(0.3)], &[F(1.0)], &[F(2.5)], &[F(6.5)]],
        special: &[Special {
            at: &[F(0.0)],
            y: f64::NEG_INFINITY,
            grad: &[&[f64::INFINITY]],
        }],
    },
    ScalarRule {
        prim: Expint,
        keeps: &[Arg(0)],
        // ChainRules: -exp(-x) / x.
        reverse: Scale(|e, k| {
            let nx = e.prim(Neg, vec![k[0].clone()], F64);
            let ex = e.prim(Exp, vec![nx], F64);
            let ne = e.prim(Neg, vec![ex], F64);
            e.prim(Div, vec![ne, k[0].clone()], F64)
        }),
        forward: Partials,
        points: &[&[F(0.3)], &[F(1.0)], &[F(2.5)], &[F(7.5)]],
        special: &[Special {
            at: &[F(0.0)],
            y: f64::INFINITY,
            grad: &[&[f64::NEG_INFINITY]],
        }],
    },
    ScalarRule {
        prim: Ellipk,
        keeps: &[Arg(0), Result],
        // ChainRules: (ellipe(m) / (1 - m) - ellipk(m)) / (2m).
        reverse: Scale(|e, k| {
            let big_e = e.prim(Ellipe, vec![k[0].clone()], F64);
            let one_m = e.prim(Sub, vec![f(1.0), k[0].clone()], F64);
            let q = e.prim(Div, vec![big_e, one_m], F64);
            let d = e.prim(Sub, vec![q, k[1].clone()], F64);
            let two_m = e.mul(f(2.0), k[0].clone());
            e.prim(Div, vec![d, two_m], F64)
        }),
        forward: Partials,
        points: &[&[F(-2.0)], &[F(-0.3)], &[F(0.4)], &[F(0.9)]],
        special: &[],
    },
    ScalarRule {
        prim: Ellipe,
        keeps: &[Arg(0), Result],
        // ChainRules: (ellipe(m) - ellipk(m)) / (2m).
        reverse: Scale(|e, k| {
            let big_k = e.prim(Ellipk, vec![k[0].clone()], F64);
            let d = e.prim(Sub, vec![k[1].clone(), big_k], F64);
            let two_m = e.mul(f(2.0), k[0].clone());
            e.prim(Div, vec![d, two_m], F64)
        }),
        forward: Partials,
        points: &[&[F(-2.0)], &[F(-0.3)], &[F(0.4)], &[F(0.9)]],
        special: &[],
    },
    ScalarRule {
        prim: GammaIncP,
        keeps: &[Arg(0), Arg(1)],
        // ChainRules: (@not_implemented, exp(-x) x^(a - 1) / gamma(a)).
        reverse: Terms(|e, k, dy, s| {
            let d = gamma_inc_slope(e, k, s);
            vec![None, Some(e.mul(dy, d))]
        }),
        forward: Partials,
        points: INCOMPLETE,
        special: &[],
    },
    ScalarRule {
        prim: GammaIncQ,
        keeps: &[Arg(0), Arg(1)],
        // ChainRules: (@not_implemented, -exp(-x) x^(a - 1) / gamma(a)).
        reverse: Terms(|e, k, dy, s| {
            let d = gamma_inc_slope(e, k, s);
            let nd = e.prim(Neg, vec![d], F64);
            vec![None, Some(e.mul(dy, nd))]
        }),
        forward: Partials,
        points: INCOMPLETE,
        special: &[],
    },
    ScalarRule {
        prim: LogUpperGamma,
        keeps: &[Arg(0), Arg(1), Result],
        // ChainRules' of `loggamma(a, x)`: (@not_implemented, -exp(-(x + Ω)) x^(a - 1)).
        reverse: Terms(|e, k, dy, s| {
            let a = float_operand(e, k, s, 0);
            let xo = e.add(k[1].clone(), k[2].clone());
            let nxo = e.prim(Neg, vec![xo], F64);
            let ex = e.prim(Exp, vec![nxo], F64);
            let am1 = e.prim(Sub, vec![a, f(1.0)], F64);
            let pow = e.prim(Pow, vec![k[1].clone(), am1], F64);
            let d = e.mul(ex, pow);
            let nd = e.prim(Neg, vec![d], F64);
            vec![None, Some(e.mul(dy, nd))]
        }),
        forward: Partials,
        points: &[
            &[I(1), F(0.3)],
            &[I(0), F(0.7)],
            &[I(-2), F(0.4)],
            &[I(3), F(2.0)],
            &[I(2), F(45.0)],
        ],
        special: &[],
    },
    ScalarRule {
        prim: BetaInc,
        keeps: &[Arg(0), Arg(1), Arg(2)],
        // The density x^(a - 1) (1 - x)^(b - 1) / B(a, b); none in a and b.
        reverse: Terms(|e, k, dy, s| {
            let d = beta_inc_slope(e, k, s);
            vec![None, None, Some(e.mul(dy, d))]
        }),
        forward: Partials,
        points: &[
            &[I(1), I(3), F(0.2)],
            &[I(2), I(2), F(0.9)],
            &[I(3), I(5), F(0.3)],
            &[I(4), I(2), F(0.7)],
        ],
        special: &[],
    },
    ScalarRule {
        prim: Zeta,
        keeps: &[Arg(0), Arg(1)],
        // DiffRules' of `zeta(s, z)`: (NaN, -s zeta(s + 1, z)); none in s.
        reverse: Terms(|e, k, dy, s| {
            let sf = float_operand(e, k, s, 0);
            let up = e.add(sf.clone(), f(1.0));
            let z = e.prim(Zeta, vec![up, k[1].clone()], F64);
            let sz = e.mul(sf, z);
            let d = e.prim(Neg, vec![sz], F64);
            vec![None, Some(e.mul(dy, d))]
        }),
        forward: Partials,
        points: &[
            &[I(2), F(0.5)],
            &[I(3), F(1.7)],
            &[I(4), F(2.25)],
            &[I(2), F(12.0)],
        ],
        special: &[],
    },
    bessel_rule(Besselj, &[Arg(0), Arg(1)], ORDERS_SIGNED),
    bessel_rule(Besseljx, &[Arg(0), Arg(1)], ORDERS_SIGNED),
    bessel_rule(Bessely, &[Arg(0), Arg(1)], ORDERS),
    bessel_rule(Besselyx, &[Arg(0), Arg(1)], ORDERS),
    bessel_rule(Besseli, &[Arg(0), Arg(1)], ORDERS_SIGNED),
    bessel_rule(Besselix, &[Arg(0), Arg(1), Result], ORDERS_SIGNED),
    bessel_rule(Besselk, &[Arg(0), Arg(1)], ORDERS),
    bessel_rule(Besselkx, &[Arg(0), Arg(1), Result], ORDERS),
];
