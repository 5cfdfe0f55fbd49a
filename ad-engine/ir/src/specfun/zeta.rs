//! The Riemann and Hurwitz zeta functions of real arguments (SpecialFunctions' `zeta(s)` and
//! `zeta(s, z)` in the prelude call them): the terms of `Σ (z + ν)^(-s)` up to a shift `Z`
//! past `7 + (s - 1)`, then the Euler–Maclaurin tail `Z^(1-s)/(s-1) + Z^(-s)/2 + Σₖ B₂ₖ/(2k)!
//! s(s+1)⋯(s+2k-2) Z^(-s-2k+1)` with ten Bernoulli numbers; `ζ(s)` below `1/2` by the
//! reflection `ζ(s) = ζ(1-s) Γ(1-s) sin(πs/2) (2π)^s / π`, as SpecialFunctions computes it.

use super::{sin_cos_pi, BERNOULLI};

/// `ζ(s, z) = Σ_{ν≥0} (z + ν)^(-s)` of `z > 0` (NaN at `z <= 0`): `zeta(s)` at `z = 1`, `Inf`
/// at `s = 1`.
pub fn hurwitz_zeta(s: f64, z: f64) -> f64 {
    if s.is_nan() || z.is_nan() || z <= 0.0 {
        return f64::NAN;
    }
    if z == 1.0 {
        return riemann_zeta(s);
    }
    if s == 1.0 {
        return f64::INFINITY;
    }
    euler_maclaurin(s, z)
}

/// `ζ(s)`: NaN at the pole `s = 1` (as Julia's), `1` at `Inf`, NaN at `-Inf`; near 0 its
/// Taylor series, below `1/2` the reflection.
pub fn riemann_zeta(s: f64) -> f64 {
    if s.is_nan() || s == 1.0 || s == f64::NEG_INFINITY {
        return f64::NAN;
    }
    if s == f64::INFINITY {
        return 1.0;
    }
    if s < 0.5 {
        if s.abs() < 1e-3 {
            // ζ(0) = -1/2, ζ'(0) = -log(2π)/2, and the next Taylor coefficients.
            let c = [
                -0.5,
                -0.918_938_533_204_672_8,
                -1.003_178_227_954_292_4,
                -1.000_785_194_477_042_4,
                -0.999_879_299_500_571_2,
            ];
            return c.iter().rev().fold(0.0, |acc, &k| acc * s + k);
        }
        let two_pi = 2.0 * std::f64::consts::PI;
        let sin = sin_cos_pi(0.5 * s).0;
        return riemann_zeta(1.0 - s) * libm::tgamma(1.0 - s) * sin * two_pi.powf(s)
            / std::f64::consts::PI;
    }
    euler_maclaurin(s, 1.0)
}

/// The shifted sum and the Euler–Maclaurin tail of `ζ(s, z)`, `z > 0`, `s ≠ 1`.
fn euler_maclaurin(s: f64, z: f64) -> f64 {
    let cutoff = 7.0 + (s - 1.0);
    let mut sum = 0.0;
    let mut big = z;
    while big < cutoff {
        let term = big.powf(-s);
        sum += term;
        big += 1.0;
        // Past here the terms fall geometrically (a large s): the rest is below the last bit.
        if term <= sum * f64::EPSILON {
            return sum;
        }
    }
    let mut tail = big.powf(1.0 - s) / (s - 1.0) + 0.5 * big.powf(-s);
    // B₂ₖ/(2k)! s(s+1)⋯(s+2k-2) Z^(-s-2k+1), built term from term.
    let inv2 = 1.0 / (big * big);
    let mut factor = s * big.powf(-s - 1.0) / 2.0;
    for (k, b) in BERNOULLI.iter().enumerate() {
        let k = k as f64 + 1.0;
        if k > 1.0 {
            let (a, c) = (s + 2.0 * k - 3.0, s + 2.0 * k - 2.0);
            factor *= a * c * inv2 / ((2.0 * k - 1.0) * (2.0 * k));
        }
        tail += b * factor;
    }
    sum + tail
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rel(a: f64, b: f64) -> f64 {
        ((a - b) / b).abs()
    }

    // References: mpmath's `zeta` (30 digits); ζ(2) = π²/6, ζ(2, 1/2) = π²/2.
    #[test]
    fn riemann() {
        assert!(rel(riemann_zeta(2.0), std::f64::consts::PI.powi(2) / 6.0) < 1e-15);
        assert!(rel(riemann_zeta(3.0), 1.2020569031595943) < 1e-15);
        assert!(rel(riemann_zeta(4.5), 1.0547075107614543) < 1e-15);
        assert!(rel(riemann_zeta(0.9), -9.430114019402255) < 1e-14);
        assert!(rel(riemann_zeta(0.5), -1.4603545088095868) < 1e-14);
        assert!(rel(riemann_zeta(-1.5), -0.025485201889833036) < 1e-14);
        assert!(rel(riemann_zeta(-7.5), 0.00326903957260022) < 1e-13);
        assert!(rel(riemann_zeta(1e-4), -0.5000919038861036) < 1e-15);
        assert_eq!(riemann_zeta(0.0), -0.5);
        assert_eq!(riemann_zeta(-2.0), 0.0);
        assert!(riemann_zeta(1.0).is_nan());
    }

    #[test]
    fn hurwitz() {
        assert!(rel(hurwitz_zeta(2.0, 0.5), std::f64::consts::PI.powi(2) / 2.0) < 1e-15);
        assert!(rel(hurwitz_zeta(3.5, 2.25), 0.08901224249238886) < 1e-14);
        assert!(rel(hurwitz_zeta(2.5, 1.7), 0.4636255178912368) < 1e-14);
        assert!(rel(hurwitz_zeta(-1.5, 2.5), -2.174195875328929) < 1e-13);
        assert!(rel(hurwitz_zeta(2.0, 1e-3), 1000001.6425331958) < 1e-15);
        assert_eq!(hurwitz_zeta(1.0, 2.0), f64::INFINITY);
        assert!(rel(hurwitz_zeta(60.0, 1.5), 2.7197216389365647e-11) < 1e-14);
    }
}
