//! The special functions of the primitive table (SpecialFunctions.jl's, seen after `using
//! SpecialFunctions`), each one evaluation of a Float64 that the interpreter and the JIT's
//! runtime both call. The kernels come from crates: `libm` (the musl port of the fdlibm
//! routines Julia's openlibm holds: `tgamma`, `lgamma_r`, `erf`, `erfc`, `j0`, `j1`, `y0`,
//! `y1`), `special` (`erfinv`: a single-precision start refined by Halley steps on `erf`, exact
//! to the last bits for small arguments too) and `puruspe` (`erfcx`, a port of the Faddeeva
//! package's routine that SpecialFunctions.jl calls; the inverse of `erfc` below 0.0625).

use special::Error as _;

/// `gamma(x)`: NaN at the poles (0 excepted: `±Inf`) and at `-Inf`, where Julia raises its
/// `DomainError`.
pub fn gamma(x: f64) -> f64 {
    libm::tgamma(x)
}

/// `log(abs(gamma(x)))`, the first half of `logabsgamma(x)`: `Inf` at the poles.
pub fn log_abs_gamma(x: f64) -> f64 {
    libm::lgamma_r(x).0
}

/// `digamma(x)`, the derivative of `loggamma`: `special`'s recurrence and asymptotic series
/// for `x > 0`, the reflection `ψ(x) = ψ(1 - x) - π cot(πx)` below (with `cot(πx)` taken at
/// `x` less its nearest integer, so that the period is exact), `∓Inf` at the poles.
pub fn digamma(x: f64) -> f64 {
    if x > 0.0 || x.is_nan() {
        return special::Gamma::digamma(x);
    }
    if x == f64::NEG_INFINITY {
        return f64::NAN;
    }
    special::Gamma::digamma(1.0 - x) - std::f64::consts::PI / tan_pi(x)
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

    /// `polygamma` where it is defined.
    fn pg(m: u32, x: f64) -> f64 {
        polygamma(m, x).unwrap_or(f64::INFINITY)
    }

    #[test]
    fn polygamma_follows_its_series() {
        // ψ(1) = -γ, ψ(1/2) = -γ - 2 log 2, ψ(-1/2) = ψ(3/2) (the reflection), ψ(10.3): a
        // few ulps from `special`'s eight steps of the recurrence, more near ψ's zero at 1.46.
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
