//! The special functions of the primitive table (SpecialFunctions.jl's, seen after `using
//! SpecialFunctions`), each one evaluation that the interpreter and the JIT's runtime both
//! call. Some kernels come from crates: `libm` (the musl port of the fdlibm routines Julia's
//! openlibm holds: `tgamma`, `lgamma_r`, `erf`, `erfc`, `j0`, `j1`, `y0`, `y1`, `jn`, `yn`),
//! `special` (`erfinv`: a single-precision start refined by Halley steps on `erf`, exact to the
//! last bits for small arguments too) and `puruspe` (`erfcx`, a port of the Faddeeva package's
//! routine that SpecialFunctions.jl calls; the inverse of `erfc` below 0.0625; Bessel functions
//! of non-integer orders by Temme's continued fractions). The others are zy's own series and
//! continued fractions (`digamma` as SpecialFunctions writes it, `polygamma`, Dawson's
//! integral, the sine, cosine and exponential integrals, the complete elliptic integrals).

use special::Error as _;

mod incomplete;
mod zeta;

pub use incomplete::{beta_inc, gamma_inc_p, gamma_inc_q, log_upper_gamma};
pub use zeta::{hurwitz_zeta, riemann_zeta};

/// `gamma(x)`: NaN at the poles (0 excepted: `±Inf`) and at `-Inf`, where Julia raises its
/// `DomainError`.
pub fn gamma(x: f64) -> f64 {
    libm::tgamma(x)
}

/// `log(abs(gamma(x)))`, the first half of `logabsgamma(x)`: `Inf` at the poles.
pub fn log_abs_gamma(x: f64) -> f64 {
    libm::lgamma_r(x).0
}

/// `digamma(x)`, the derivative of `loggamma`, computed as SpecialFunctions computes it
/// (Kölbig's formula), operation for operation, so that the bits are Julia's: at or below 0
/// the reflection `ψ(x) = ψ(1 - x) - π / tan(πx)` (`∓Inf` at the poles); below 8 the
/// recurrence `ψ(z) = ψ(z + n) - Σ 1/(z + ν)`; then the asymptotic series
/// `log z - 1/(2z) - Σₖ B₂ₖ / (2k z²ᵏ)` of eight terms.
pub fn digamma(x: f64) -> f64 {
    if x.is_nan() {
        return x;
    }
    if x == f64::NEG_INFINITY {
        return f64::NAN;
    }
    let (mut psi, mut z) = if x <= 0.0 {
        (-std::f64::consts::PI / tan_pi(x), 1.0 - x)
    } else {
        (0.0, x)
    };
    if z < 8.0 {
        let n = 8 - z.floor() as i64;
        for nu in 1..n {
            psi -= 1.0 / (z + nu as f64);
        }
        psi -= 1.0 / z;
        z += n as f64;
    }
    let t = 1.0 / z;
    psi += z.ln() - 0.5 * t;
    let t = t * t;
    psi - t * horner(t, &DIGAMMA_SERIES)
}

/// `B₂ₖ / 2k` for `k = 1..8`, the coefficients of `digamma`'s asymptotic series in `1/z²`.
const DIGAMMA_SERIES: [f64; 8] = [
    0.08333333333333333,
    -0.008333333333333333,
    0.003968253968253968,
    -0.004166666666666667,
    0.007575757575757576,
    -0.021092796092796094,
    0.08333333333333333,
    -0.4432598039215686,
];

/// `c₀ + t (c₁ + t (c₂ + ...))`.
fn horner(t: f64, c: &[f64]) -> f64 {
    c.iter().rev().fold(0.0, |acc, &ck| acc * t + ck)
}

/// `tan(πx)`, exact at integers and half-integers.
fn tan_pi(x: f64) -> f64 {
    let r = x - x.round();
    if r.abs() == 0.5 {
        return f64::INFINITY.copysign(r);
    }
    (std::f64::consts::PI * r).tan()
}

/// The Bernoulli numbers `B₂, B₄, ..., B₂₀`.
const BERNOULLI: [f64; 10] = [
    1.0 / 6.0,
    -1.0 / 30.0,
    1.0 / 42.0,
    -1.0 / 30.0,
    5.0 / 66.0,
    -691.0 / 2730.0,
    7.0 / 6.0,
    -3617.0 / 510.0,
    43867.0 / 798.0,
    -174611.0 / 330.0,
];

/// `polygamma(m, x)` for `m >= 1`, the `m`-th derivative of `digamma`:
/// `(-1)^(m+1) m! Σₖ 1/(x + k)^(m+1)`. The first terms are summed until `z = x + n` is at
/// least `m + 10`, the tail is the Euler–Maclaurin series `(m-1)!/z^m + m!/(2z^(m+1)) +
/// Σⱼ B₂ⱼ (2j+m-1)!/((2j)! z^(2j+m))` (its tenth term is below 1e-16 of the first there).
/// No crate among `libm`, `special`, `puruspe` and `statrs` has it. The poles (`x` a
/// non-positive integer) give `Inf` for odd `m`, NaN for even `m` (the two sides disagree).
/// Below 0, `m = 1` reflects (`ψ₁(x) = π²/sin²(πx) - ψ₁(1 - x)`) and a larger `m` sums the
/// terms up to the series, so `None` below [`POLYGAMMA_LOWEST`] bounds that work.
pub fn polygamma(m: u32, x: f64) -> Option<f64> {
    if x.is_nan() || x == f64::INFINITY {
        return Some(if x.is_nan() { x } else { 0.0 });
    }
    if x == f64::NEG_INFINITY || (x <= 0.0 && x == x.round()) {
        return Some(if m % 2 == 1 { f64::INFINITY } else { f64::NAN });
    }
    if x < 0.0 && m == 1 {
        let s = (std::f64::consts::PI * (x - x.round())).sin();
        let reflected = polygamma(1, 1.0 - x)?;
        return Some((std::f64::consts::PI / s).powi(2) - reflected);
    }
    if x < POLYGAMMA_LOWEST {
        return None;
    }
    let m_f = f64::from(m);
    let mut fact_m = 1.0;
    for k in 1..=m {
        fact_m *= f64::from(k);
    }
    let mut z = x;
    let mut head = 0.0;
    while z < m_f + 10.0 {
        head += z.powi(-(m as i32) - 1);
        z += 1.0;
    }
    // (m-1)!/z^m (1 + m/(2z) + Σⱼ B₂ⱼ (m)(m+1)...(2j+m-1)/((2j)! z^(2j))).
    let inv_z2 = 1.0 / (z * z);
    let mut tail = 1.0 + m_f / (2.0 * z);
    let mut coef = 1.0;
    let mut power = 1.0;
    for (j, b) in (1..).zip(BERNOULLI) {
        let j = f64::from(j);
        // (2j+m-2)(2j+m-1) / ((2j-1)(2j)): from the (j-1)-th coefficient to the j-th.
        coef *= (2.0 * j + m_f - 2.0) * (2.0 * j + m_f - 1.0) / ((2.0 * j - 1.0) * (2.0 * j));
        power *= inv_z2;
        tail += b * coef * power;
    }
    let sign = if m % 2 == 1 { 1.0 } else { -1.0 };
    Some(sign * (fact_m * head + fact_m / m_f * z.powi(-(m as i32)) * tail))
}

/// The lowest `x` at which [`polygamma`] computes an order `m >= 2` (a million terms).
pub const POLYGAMMA_LOWEST: f64 = -1e6;

/// `erf(x)`.
pub fn erf(x: f64) -> f64 {
    libm::erf(x)
}

/// `erfc(x) = 1 - erf(x)`, accurate where `erf(x)` is near 1.
pub fn erfc(x: f64) -> f64 {
    libm::erfc(x)
}

/// `erfinv(x)` for `|x| <= 1`: `±Inf` at `±1`.
pub fn erfinv(x: f64) -> f64 {
    if x.abs() == 1.0 {
        return f64::INFINITY.copysign(x);
    }
    x.inv_error()
}

/// `erfcinv(y)` for `0 < y <= 0.0625`, where `erfinv(1 - y)` would lose `y`'s digits (the
/// prelude's `erfcinv` takes the rest to `erfinv`, as Julia does).
pub fn erfcinv_small(y: f64) -> f64 {
    if y == 0.0 {
        return f64::INFINITY;
    }
    puruspe::inverfc(y)
}

/// `erfcx(x) = exp(x²) erfc(x)`, without the overflow and cancellation of that product.
pub fn erfcx(x: f64) -> f64 {
    if x.is_nan() {
        return x;
    }
    puruspe::erfcx(x)
}

/// `besselj0(x)`, the Bessel function of the first kind of order 0.
pub fn besselj0(x: f64) -> f64 {
    libm::j0(x)
}

/// `besselj1(x)`.
pub fn besselj1(x: f64) -> f64 {
    libm::j1(x)
}

/// `bessely0(x)`, the Bessel function of the second kind of order 0: NaN for `x < 0`, where
/// Julia raises its `DomainError`.
pub fn bessely0(x: f64) -> f64 {
    libm::y0(x)
}

/// `bessely1(x)`.
pub fn bessely1(x: f64) -> f64 {
    libm::y1(x)
}

/// Euler's constant γ.
const EULER: f64 = 0.577_215_664_901_532_9;

/// `1/√π`.
const INV_SQRT_PI: f64 = 0.564_189_583_547_756_3;

/// Dawson's integral `D(x) = exp(-x²) ∫₀ˣ exp(t²) dt`: its Taylor series below `|x| = 1/2`,
/// its asymptotic series `(1/2x) Σ (2k-1)!!/(2x²)ᵏ` from 10, and Rybicki's sum
/// `D(x) ≈ (1/√π) Σₙ odd exp(-(x - nh)²)/n` between, with `h = 1/5` (whose error,
/// about `exp(-(π/2h)²)`, is far below an ulp) over the 32 terms nearest `x`.
pub fn dawson(x: f64) -> f64 {
    let ax = x.abs();
    if x.is_nan() {
        return x;
    }
    if ax < 0.5 {
        // x Σ (-2x²)ⁿ / (2n+1)!!
        let mut term = x;
        let mut sum = x;
        for n in 0.. {
            term *= -2.0 * x * x / f64::from(2 * n + 3);
            let next = sum + term;
            if next == sum {
                break;
            }
            sum = next;
        }
        return sum;
    }
    if ax >= 10.0 {
        let q = 1.0 / (2.0 * ax * ax);
        let mut term = 1.0;
        let mut sum = 1.0;
        for k in 1.. {
            term *= f64::from(2 * k - 1) * q;
            let next = sum + term;
            if next == sum || ax == f64::INFINITY {
                break;
            }
            sum = next;
        }
        return (sum / (2.0 * ax)).copysign(x);
    }
    const H: f64 = 0.2;
    // The even n₀ with n₀h nearest |x|; the odd n = n₀ ± m.
    let n0 = 2.0 * (0.5 * ax / H).round();
    let xp = ax - n0 * H;
    let mut sum = 0.0;
    for i in 0..16 {
        let m = f64::from(2 * i + 1);
        let c = (-(m * H) * (m * H)).exp();
        let e = (2.0 * xp * m * H).exp();
        sum += c * (e / (n0 + m) + 1.0 / (e * (n0 - m)));
    }
    ((-xp * xp).exp() * sum * INV_SQRT_PI).copysign(x)
}

/// The imaginary error function `erfi(x) = -i erf(ix) = (2/√π) exp(x²) D(x)`, from Dawson's
/// integral; where `exp(x²)` alone would overflow, through the logarithm.
pub fn erfi(x: f64) -> f64 {
    let x2 = x * x;
    let d = dawson(x);
    if x2 < 700.0 {
        return 2.0 * INV_SQRT_PI * x2.exp() * d;
    }
    (x2 + (2.0 * INV_SQRT_PI * d.abs()).ln()).exp().copysign(x)
}

/// The sine and cosine integrals `(Si(x), Ci(x))` of `x > 0`: their power series up to 2,
/// beyond it the continued fraction of `E₁(ix) = -Ci(x) + i (Si(x) - π/2)` (evaluated by
/// Lentz's method).
fn sin_cos_int(x: f64) -> (f64, f64) {
    if x <= 2.0 {
        let x2 = x * x;
        // Si = Σ (-1)ᵏ x^(2k+1) / ((2k+1)(2k+1)!), Ci = γ + log x + Σₖ≥₁ (-1)ᵏ x^(2k) / (2k (2k)!).
        let (mut si, mut t) = (x, x);
        for k in 0.. {
            t *= -x2 / f64::from((2 * k + 2) * (2 * k + 3));
            let next = si + t / f64::from(2 * k + 3);
            if next == si {
                break;
            }
            si = next;
        }
        let (mut ci, mut t) = (0.0, 1.0);
        for k in 0.. {
            t *= -x2 / f64::from((2 * k + 1) * (2 * k + 2));
            let next = ci + t / f64::from(2 * k + 2);
            if next == ci {
                break;
            }
            ci = next;
        }
        return (si, EULER + x.ln() + ci);
    }
    // E₁(z) = exp(-z) / (z + 1 - 1²/(z + 3 - 2²/(z + 5 - ...))) at z = ix.
    let (re, im) = lentz(|_| 0.0, x);
    let (s, c) = x.sin_cos();
    // exp(-ix) (re + i im)
    let e_re = c * re + s * im;
    let e_im = c * im - s * re;
    (std::f64::consts::FRAC_PI_2 + e_im, -e_re)
}

/// The continued fraction `1/(b₀ - 1²/(b₁ - 2²/(b₂ - ...)))` with `bₖ = r(k) + 2k + 1 + i y`,
/// by Lentz's method, as `(re, im)`.
fn lentz(r: impl Fn(u32) -> f64, y: f64) -> (f64, f64) {
    type C = (f64, f64);
    fn div(a: C, b: C) -> C {
        let n = b.0 * b.0 + b.1 * b.1;
        ((a.0 * b.0 + a.1 * b.1) / n, (a.1 * b.0 - a.0 * b.1) / n)
    }
    fn mul(a: C, b: C) -> C {
        (a.0 * b.0 - a.1 * b.1, a.0 * b.1 + a.1 * b.0)
    }
    let mut b: C = (r(0) + 1.0, y);
    let mut c: C = (1e300, 0.0);
    let mut d = div((1.0, 0.0), b);
    let mut h = d;
    for i in 1..10_000u32 {
        let a = -f64::from(i) * f64::from(i);
        b = (r(i) + f64::from(2 * i + 1), y);
        d = div((1.0, 0.0), (a * d.0 + b.0, a * d.1 + b.1));
        let ac = div((a, 0.0), c);
        c = (b.0 + ac.0, b.1 + ac.1);
        let del = mul(c, d);
        h = mul(h, del);
        if (del.0 - 1.0).abs() + del.1.abs() < 1e-16 {
            break;
        }
    }
    h
}

/// The sine integral `Si(x) = ∫₀ˣ sin(t)/t dt`, odd, `±π/2` at `±Inf`.
pub fn sinint(x: f64) -> f64 {
    if x == 0.0 || x.is_nan() {
        return x;
    }
    if x.is_infinite() {
        return std::f64::consts::FRAC_PI_2.copysign(x);
    }
    sin_cos_int(x.abs()).0.copysign(x)
}

/// The cosine integral `Ci(x) = γ + log x + ∫₀ˣ (cos t - 1)/t dt` of `x >= 0`: `-Inf` at 0,
/// `0` at `Inf`; NaN below 0, where Julia raises its `DomainError`.
pub fn cosint(x: f64) -> f64 {
    if x < 0.0 || x.is_nan() {
        return f64::NAN;
    }
    if x == 0.0 {
        return f64::NEG_INFINITY;
    }
    if x == f64::INFINITY {
        return 0.0;
    }
    sin_cos_int(x).1
}

/// The exponential integral `E₁(x) = ∫₁^∞ exp(-xt)/t dt` of `x >= 0` (SpecialFunctions'
/// `expint(x)`): its power series `-γ - log x - Σ (-x)ᵏ/(k k!)` up to 1, beyond it the
/// continued fraction `exp(-x)/(x + 1 - 1²/(x + 3 - ...))`; `Inf` at 0, NaN below 0, where
/// Julia raises its `DomainError`.
pub fn expint(x: f64) -> f64 {
    if x < 0.0 || x.is_nan() {
        return f64::NAN;
    }
    if x == 0.0 {
        return f64::INFINITY;
    }
    if x == f64::INFINITY {
        return 0.0;
    }
    if x <= 1.0 {
        let (mut sum, mut t) = (0.0, 1.0);
        for k in 1.. {
            t *= -x / f64::from(k);
            let next = sum + t / f64::from(k);
            if next == sum {
                break;
            }
            sum = next;
        }
        return -EULER - x.ln() - sum;
    }
    lentz(|_| x, 0.0).0 * (-x).exp()
}

/// The arithmetic-geometric mean of `1` and `√(1 - m)` and `Σ 2ⁿ⁻¹ cₙ²` (`c₀² = m`), from
/// which both complete elliptic integrals follow.
fn agm(m: f64) -> (f64, f64) {
    let (mut a, mut g) = (1.0, (1.0 - m).sqrt());
    let (mut sum, mut p) = (0.5 * m, 0.5);
    // Quadratic convergence: a few steps; stop once the means agree to an ulp (they may then
    // alternate, and the weights 2ⁿ grow).
    while (a - g).abs() > f64::EPSILON * a {
        let c = 0.5 * (a - g);
        (a, g) = (0.5 * (a + g), (a * g).sqrt());
        p *= 2.0;
        sum += p * c * c;
    }
    (a, sum)
}

/// The complete elliptic integral of the first kind `K(m) = ∫₀^(π/2) dθ/√(1 - m sin²θ)` of
/// the parameter `m <= 1`, `π/(2 AGM(1, √(1 - m)))`: `Inf` at 1, `0` at `-Inf`, NaN above 1,
/// where Julia raises its `DomainError`.
pub fn ellipk(m: f64) -> f64 {
    if m > 1.0 || m.is_nan() {
        return f64::NAN;
    }
    if m == 1.0 {
        return f64::INFINITY;
    }
    if m == f64::NEG_INFINITY {
        return 0.0;
    }
    std::f64::consts::PI / (2.0 * agm(m).0)
}

/// The complete elliptic integral of the second kind `E(m) = ∫₀^(π/2) √(1 - m sin²θ) dθ` of
/// `m <= 1`, `K(m) (1 - Σ 2ⁿ⁻¹ cₙ²)`: `1` at 1, `Inf` at `-Inf`, NaN above 1 (a
/// `DomainError`).
pub fn ellipe(m: f64) -> f64 {
    if m > 1.0 || m.is_nan() {
        return f64::NAN;
    }
    if m == 1.0 {
        return 1.0;
    }
    if m == f64::NEG_INFINITY {
        return f64::INFINITY;
    }
    let (a, sum) = agm(m);
    std::f64::consts::PI / (2.0 * a) * (1.0 - sum)
}

/// The Bessel functions of an order `ν` and a real `x` (SpecialFunctions' `besselj`,
/// `bessely`, `besseli`, `besselk` and the scaled `besseljx`, ...).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Bessel {
    /// `J_ν(x)`, of the first kind.
    J,
    /// `Y_ν(x)`, of the second kind.
    Y,
    /// `I_ν(x)`, modified, of the first kind.
    I,
    /// `K_ν(x)`, modified, of the second kind.
    K,
}

/// Why a Bessel function has no value at `(ν, x)`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum BesselError {
    /// Julia's `DomainError` with `x`, and this message.
    Domain(&'static str),
    /// Beyond the arguments zy's kernel computes (`x` or `|ν|` above [`BESSEL_LARGEST`], a
    /// scaled `I` or `K` above 700).
    TooLarge,
}

/// The largest `x` and `|ν|` at which zy computes a Bessel function of a non-integer order
/// (or a modified one): its continued fractions and recurrences take about that many steps.
pub const BESSEL_LARGEST: f64 = 5000.0;

impl Bessel {
    /// `f_ν(x)`, times `exp(-|x|)` for a scaled `I` and `exp(x)` for a scaled `K` (a scaled
    /// `J` or `Y` of a real `x` is the function itself). The orders Julia sends to openlibm
    /// (`J` and `Y` of an integer order) are libm's `jn` and `yn`, the same fdlibm routines;
    /// the others are the continued fractions of `puruspe` (Temme's method) at `|ν|`,
    /// with the reflection formulas below 0.
    pub fn eval(self, nu: f64, x: f64, scaled: bool) -> Result<f64, BesselError> {
        use Bessel::*;
        if nu.is_nan() || x.is_nan() {
            return Ok(f64::NAN);
        }
        if nu.abs() > BESSEL_LARGEST {
            return Err(BesselError::TooLarge);
        }
        let integer = nu == nu.trunc();
        match self {
            J | Y if integer => {
                if self == Y && x < 0.0 {
                    return Err(BesselError::Domain("`x` must be nonnegative."));
                }
                let n = nu as i32;
                Ok(if self == J {
                    libm::jn(n, x)
                } else {
                    libm::yn(n, x)
                })
            }
            J if x < 0.0 => Err(BesselError::Domain("`x` must be nonnegative.")),
            Y | K if x < 0.0 => Err(BesselError::Domain("`x` must be nonnegative.")),
            I if x < 0.0 && !integer => Err(BesselError::Domain(
                "`x` must be nonnegative and `nu` must be an integer.",
            )),
            I if x < 0.0 => {
                let v = self.eval(nu, -x, scaled)?;
                Ok(if (nu as i64) % 2 == 0 { v } else { -v })
            }
            _ if x == 0.0 => Ok(at_zero(self, nu, integer)),
            _ if x.is_infinite() => Ok(at_infinity(self, scaled)),
            _ if x > BESSEL_LARGEST => Err(BesselError::TooLarge),
            // The scaled functions are the unscaled times `exp(∓x)`, which overflow past 700.
            I | K if scaled && x > 700.0 => Err(BesselError::TooLarge),
            J | Y => {
                let (j, y, _, _) = puruspe::besseljy(nu.abs(), x);
                if nu >= 0.0 {
                    return Ok(if self == J { j } else { y });
                }
                let (s, c) = sin_cos_pi(nu);
                // J₋ᵥ = cos(νπ) Jᵥ - sin(νπ) Yᵥ, Y₋ᵥ = sin(νπ) Jᵥ + cos(νπ) Yᵥ (ν > 0).
                Ok(if self == J {
                    c * j + s * y
                } else {
                    c * y - s * j
                })
            }
            I | K => {
                let (i, k, _, _) = puruspe::besselik(nu.abs(), x);
                let value = match self {
                    // I₋ᵥ = Iᵥ + (2/π) sin(νπ) Kᵥ (ν > 0); K₋ᵥ = Kᵥ.
                    I if nu < 0.0 && !integer => {
                        i - 2.0 / std::f64::consts::PI * sin_cos_pi(nu).0 * k
                    }
                    I => i,
                    _ => k,
                };
                Ok(match (self, scaled) {
                    (I, true) => value * (-x).exp(),
                    (K, true) => value * x.exp(),
                    _ => value,
                })
            }
        }
    }
}

/// A Bessel function at `x = 0` (`ν` not an integer, or `I` and `K`): `J` and `I` are `1` at
/// order 0, `0` above it and infinite below it; `Y` is `-Inf` and `K` is `Inf`.
fn at_zero(f: Bessel, nu: f64, integer: bool) -> f64 {
    match f {
        Bessel::J | Bessel::I if nu == 0.0 => 1.0,
        Bessel::J | Bessel::I if nu > 0.0 || integer => 0.0,
        Bessel::J | Bessel::I => f64::INFINITY,
        Bessel::Y => f64::NEG_INFINITY,
        Bessel::K => f64::INFINITY,
    }
}

/// A Bessel function at `x = Inf`: `J` and `Y` decay to 0, `I` grows to `Inf` and `K` decays
/// to 0; the scaled `I` and `K` decay as `1/√x`.
fn at_infinity(f: Bessel, scaled: bool) -> f64 {
    match f {
        Bessel::I if !scaled => f64::INFINITY,
        _ => 0.0,
    }
}

/// `(sin(πν), cos(πν))`, exact at integers and half-integers.
fn sin_cos_pi(nu: f64) -> (f64, f64) {
    let r = nu - 2.0 * (0.5 * nu).round();
    match r {
        _ if r == r.trunc() => (0.0, if r == 0.0 { 1.0 } else { -1.0 }),
        _ if r.abs() == 0.5 => (r.signum(), 0.0),
        _ => (std::f64::consts::PI * r).sin_cos(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Relative distance, 0 for two equal values (infinities, NaNs).
    fn rel(a: f64, b: f64) -> f64 {
        if a == b || (a.is_nan() && b.is_nan()) {
            0.0
        } else {
            ((a - b) / b).abs()
        }
    }

    #[test]
    fn known_values() {
        // gamma(1/2) = √π; gamma(5) = 4!; Γ(-1/2) = -2√π; the poles.
        let sqrt_pi = 1.772_453_850_905_516;
        assert!(rel(gamma(0.5), sqrt_pi) < 4e-16);
        assert_eq!(gamma(5.0), 24.0);
        assert!(rel(gamma(-0.5), -2.0 * sqrt_pi) < 4e-16);
        assert!(gamma(-1.0).is_nan() && gamma(f64::NEG_INFINITY).is_nan());
        assert_eq!(
            (gamma(0.0), gamma(-0.0)),
            (f64::INFINITY, f64::NEG_INFINITY)
        );
        // log|Γ(-1/2)| = log(2√π).
        assert!(rel(log_abs_gamma(-0.5), 1.265_512_123_484_645_4) < 4e-16);
        assert_eq!(log_abs_gamma(-2.0), f64::INFINITY);
        // erf(1), erfc(2), erfinv(erf(0.5)), erfinv(1e-20) = √π/2 · 1e-20 (the series' first term).
        assert!(rel(erf(1.0), 0.842_700_792_949_714_9) < 4e-16);
        assert!(rel(erfc(2.0), 0.004_677_734_981_047_266) < 4e-16);
        assert!(rel(erfinv(erf(0.5)), 0.5) < 4e-16);
        assert!(rel(erfinv(1e-20), 8.862_269_254_527_58e-21) < 4e-16);
        assert_eq!(
            (erfinv(1.0), erfinv(-1.0)),
            (f64::INFINITY, f64::NEG_INFINITY)
        );
        // erfcinv(erfc(4)) = 4; erfcx(0) = 1, erfcx(10) = 0.05614099274382259 (DLMF 7.12.1's
        // series agrees), erfcx(-30) overflows as exp(900) does.
        assert!(rel(erfcinv_small(erfc(4.0)), 4.0) < 1e-15);
        assert_eq!(erfcinv_small(0.0), f64::INFINITY);
        assert_eq!(erfcx(0.0), 1.0);
        assert!(rel(erfcx(10.0), 0.056_140_992_743_822_59) < 4e-16);
        assert_eq!(erfcx(-30.0), f64::INFINITY);
        assert!(erfcx(f64::NAN).is_nan());
        // J₀(1), J₁(1), Y₀(1), Y₁(1) (Abramowitz and Stegun, table 9.1).
        assert!(rel(besselj0(1.0), 0.765_197_686_557_966_6) < 4e-16);
        assert!(rel(besselj1(1.0), 0.440_050_585_744_933_5) < 4e-16);
        assert!(rel(bessely0(1.0), 0.088_256_964_215_676_96) < 4e-16);
        assert!(rel(bessely1(1.0), -0.781_212_821_300_288_7) < 4e-16);
        assert!(bessely0(-1.0).is_nan());
    }

    #[test]
    fn digamma_is_julias() {
        // SpecialFunctions' algorithm in Float64 arithmetic: the recurrence's seven
        // reciprocals, log(8) and the series give -0.5772156649015325, 4 ulp above -γ
        // (-0.5772156649015329) whatever the order of the sum.
        assert_eq!(digamma(1.0), -0.577_215_664_901_532_5);
        assert!(rel(digamma(1.0), -0.577_215_664_901_532_9) < 1e-15);
        assert_eq!(digamma(0.0), f64::NEG_INFINITY);
        assert!(digamma(f64::NEG_INFINITY).is_nan());
    }

    #[test]
    fn integrals_follow_their_series() {
        // Values of 30-digit arithmetic.
        assert!(rel(dawson(1.0), 0.538_079_506_912_768_4) < 4e-16);
        assert!(rel(dawson(0.3), 0.282_631_665_021_311_93) < 4e-16);
        assert!(rel(dawson(-12.0), -0.041_812_876_453_988_26) < 4e-16);
        assert_eq!(dawson(f64::INFINITY), 0.0);
        assert!(rel(erfi(1.0), 1.650_425_758_797_542_9) < 4e-16);
        assert!(rel(erfi(-0.5), -0.614_952_094_696_511) < 4e-16);
        // Through the logarithm: the rounding of x² = 712.89 moves the value by 1e-13.
        assert!(rel(erfi(26.7), 8.499_867_261_269_307e307) < 1e-12);
        assert!(rel(sinint(1.0), 0.946_083_070_367_183) < 4e-16);
        assert!(rel(sinint(-5.0), -1.549_931_244_944_674_1) < 4e-16);
        assert_eq!(sinint(f64::INFINITY), std::f64::consts::FRAC_PI_2);
        assert!(rel(cosint(1.0), 0.337_403_922_900_968_1) < 1e-15);
        assert!(rel(cosint(5.0), -0.190_029_749_656_643_88) < 1e-14);
        assert!(rel(cosint(0.1), -1.727_868_386_657_296_6) < 4e-16);
        assert!(cosint(-1.0).is_nan());
        assert!(rel(expint(0.5), 0.559_773_594_776_160_8) < 4e-16);
        assert!(rel(expint(2.0), 0.048_900_510_708_061_12) < 1e-15);
        assert!(rel(expint(30.0), 3.021_552_010_688_812_5e-15) < 1e-15);
        assert_eq!((expint(0.0), expint(f64::INFINITY)), (f64::INFINITY, 0.0));
        assert!(rel(ellipk(0.5), 1.854_074_677_301_372) < 4e-16);
        assert!(rel(ellipe(0.5), 1.350_643_881_047_675_5) < 2e-15);
        assert!(rel(ellipk(-2.0), 1.171_420_084_146_769_9) < 4e-16);
        assert!(rel(ellipe(-2.0), 2.184_438_142_746_201) < 2e-15);
        assert!(rel(ellipk(0.99), 3.695_637_362_989_874_7) < 2e-15);
        assert_eq!((ellipk(1.0), ellipe(1.0)), (f64::INFINITY, 1.0));
        assert!(ellipk(1.5).is_nan() && ellipe(1.5).is_nan());
    }

    #[test]
    fn bessel_functions_of_any_order() {
        use Bessel::*;
        let at = |f: Bessel, nu: f64, x: f64| f.eval(nu, x, false).unwrap_or(f64::NAN);
        let scaled = |f: Bessel, nu: f64, x: f64| f.eval(nu, x, true).unwrap_or(f64::NAN);
        // Values of 30-digit arithmetic; J_{-1/2}(x) = -Y_{1/2}(x) = √(2/πx) cos x.
        assert!(rel(at(J, 2.5, 1.5), 0.124_446_359_798_387_6) < 1e-14);
        assert!(rel(at(J, -0.5, 2.0), -0.234_785_710_406_248_47) < 1e-14);
        assert!(rel(at(Y, 0.5, 2.0), 0.234_785_710_406_248_47) < 1e-14);
        assert!(rel(at(Y, -1.5, 3.0), -0.477_718_215_087_091_8) < 1e-14);
        assert!(rel(at(J, 1.5, 100.0), -0.069_207_112_795_890_6) < 1e-13);
        // Integer orders are fdlibm's jn and yn, as Julia's openlibm.
        assert!(rel(at(J, 3.0, 2.0), 0.128_943_249_474_402_05) < 4e-16);
        assert!(rel(at(Y, 2.0, 1.0), -1.650_682_606_816_254_4) < 4e-16);
        assert!(rel(at(J, 3.0, -2.0), -0.128_943_249_474_402_05) < 4e-16);
        assert!(rel(at(I, 1.5, 2.0), 1.099_473_188_633_109_7) < 1e-14);
        assert!(rel(at(K, 1.5, 2.0), 0.179_906_657_952_092_17) < 1e-14);
        assert!(rel(at(I, -0.5, 1.0), 1.231_200_214_592_967_4) < 1e-14);
        assert!(rel(at(I, 2.0, -1.5), 0.337_834_618_335_680_7) < 1e-14);
        assert!(rel(at(I, 3.0, -1.5), -0.080_774_113_016_092_3) < 1e-14);
        assert!(rel(at(K, 0.0, 1.0), 0.421_024_438_240_708_3) < 1e-14);
        assert!(rel(scaled(I, 1.0, 30.0), 0.071_916_330_598_647_55) < 1e-14);
        assert!(rel(scaled(K, 0.3, 30.0), 0.228_223_239_538_234_35) < 1e-14);
        assert!(rel(scaled(I, 0.5, 700.0), 0.015_078_600_877_302_686) < 1e-13);
        // Edges: zero, infinity, Julia's DomainErrors, beyond the kernel.
        assert_eq!(
            (at(J, 0.0, 0.0), at(J, 2.5, 0.0), at(K, 1.0, 0.0)),
            (1.0, 0.0, f64::INFINITY)
        );
        assert_eq!(at(Y, 0.5, 0.0), f64::NEG_INFINITY);
        assert_eq!(
            (at(J, 2.5, f64::INFINITY), at(I, 2.5, f64::INFINITY)),
            (0.0, f64::INFINITY)
        );
        assert_eq!(
            J.eval(0.5, -1.0, false),
            Err(BesselError::Domain("`x` must be nonnegative."))
        );
        assert!(matches!(
            I.eval(0.5, -1.0, false),
            Err(BesselError::Domain(_))
        ));
        assert!(matches!(
            K.eval(1.0, -1.0, false),
            Err(BesselError::Domain(_))
        ));
        assert_eq!(J.eval(0.5, 1e6, false), Err(BesselError::TooLarge));
        assert_eq!(I.eval(0.5, 800.0, true), Err(BesselError::TooLarge));
        assert!(at(J, f64::NAN, 1.0).is_nan());
    }

    /// `polygamma` where it is defined.
    fn pg(m: u32, x: f64) -> f64 {
        polygamma(m, x).unwrap_or(f64::INFINITY)
    }

    #[test]
    fn polygamma_follows_its_series() {
        // ψ(1) = -γ, ψ(1/2) = -γ - 2 log 2, ψ(-1/2) = ψ(3/2) (the reflection), ψ(10.3): a
        // few ulps from the recurrence, more near ψ's zero at 1.46.
        let euler = 0.577_215_664_901_532_9;
        assert!(rel(digamma(1.0), -euler) < 1e-15);
        assert!(rel(digamma(0.5), -1.963_510_026_021_423_5) < 1e-15);
        assert!(rel(digamma(-0.5), 0.036_489_973_978_576_52) < 5e-14);
        assert!(rel(digamma(10.3), 2.282_815_446_439_123) < 1e-15);
        assert_eq!(digamma(0.0), f64::NEG_INFINITY);
        // ψ₁(1) = π²/6, ψ₁(1/2) = π²/2, ψ₁(-1/2) = π²/2 + 4, ψ₂(1) = -2ζ(3), ψ₃(1) = π⁴/15.
        assert!(rel(pg(1, 1.0), 1.644_934_066_848_226_4) < 4e-16);
        assert!(rel(pg(1, 0.5), 4.934_802_200_544_679) < 4e-16);
        assert!(rel(pg(1, -0.5), 8.934_802_200_544_679) < 4e-16);
        assert!(rel(pg(2, 1.0), -2.404_113_806_319_188_5) < 4e-16);
        assert!(rel(pg(3, 1.0), 6.493_939_402_266_829) < 4e-16);
        assert!(rel(pg(2, -0.5), -0.828_796_644_234_32) < 1e-14);
        assert!(rel(pg(2, 2.5), -0.236_204_051_641_727_4) < 4e-16);
        // Far out ψ₄(x) ~ -3!/x⁴; the poles; NaN.
        assert!(rel(pg(4, 1e8), -6e-32) < 1e-7);
        assert_eq!(pg(1, -2.0), f64::INFINITY);
        assert_eq!(polygamma(2, -2e6 - 0.5), None);
        assert!(rel(pg(1, -1e7 - 0.5), 9.869_604_301_089_37) < 1e-12);
        assert!(pg(2, -2.0).is_nan() && pg(1, f64::NAN).is_nan());
    }
}
