//! Finite differences: the one place where a derivative is estimated by moving an input and
//! compared with the AD's. The rule tests, `# zy: gradcheck`, the rrule lint and the pipeline
//! fuzz target each pick a [`Fd`] (scheme, step, tolerance) and call [`Fd::check`] once per
//! Float64 input.

/// How the derivative is estimated, and what agreeing with it means.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Scheme {
    /// `(f(x + h) - f(x - h)) / 2h`. Agrees when `|g - d| <= rtol * max(|g|, |d|, 1)`, or,
    /// failing that, when one estimate of [`CENTRAL_RETRY`]'s steps does: rounding in a large
    /// `f` (a value of 1e12 moved by 1e-6) or curvature can spoil one step, and a wrong
    /// gradient differs at every step.
    Central,
    /// `d₊ = (f(x + h) - f(x)) / h` and `d₋ = (f(x) - f(x - h)) / h`. Agrees when `g` lies
    /// between them, widened by `rtol * max(|g|, |d₊|, |d₋|, 1)` on each side (at a kink any
    /// value between the two slopes is a subgradient). Its estimate is their mean.
    OneSided,
    /// Central differences at each step `s * h` for the factors `s` listed and at half of it,
    /// and their Richardson extrapolation `(4 d(h/2) - d(h)) / 3` (error `O(h⁴)`). Agrees when
    /// the closest of them is within `rtol * max(|g|, 1)` of `g`.
    Richardson(&'static [f64]),
}

/// The factors of the step that [`Scheme::Central`] tries again at (each with half of it and
/// their Richardson extrapolation) before it reports a disagreement.
pub const CENTRAL_RETRY: [f64; 3] = [10.0, 100.0, 0.1];

/// A finite-difference check: scheme, step and tolerance.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Fd {
    /// The scheme.
    pub scheme: Scheme,
    /// The step relative to the input's size: `h = step * max(|x|, 1)`.
    pub step: f64,
    /// The relative tolerance of the agreement.
    pub rtol: f64,
    /// With [`Scheme::OneSided`]: when the two one-sided differences disagree with each other
    /// (the function is not smooth at `x`) or anything is not finite, the verdict is
    /// [`Verdict::Rough`] instead of a comparison.
    pub skip_rough: bool,
}

/// The outcome of [`Fd::check`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Verdict {
    /// The gradient agrees with the finite differences.
    Agrees,
    /// It does not; `fd` is the finite-difference estimate (for [`Scheme::Richardson`], the one
    /// closest to the gradient).
    Differs { fd: f64 },
    /// The function is not smooth enough at the point to judge (only with `skip_rough`).
    Rough,
}

impl Fd {
    /// `# zy: gradcheck`: central differences with a relative step of `1e-6`.
    pub const fn gradcheck(rtol: f64) -> Fd {
        Fd {
            scheme: Scheme::Central,
            step: 1e-6,
            rtol,
            skip_rough: false,
        }
    }

    /// The rrule lint: one-sided differences with a relative step of `1e-6`, so a rule at a kink
    /// may give any subgradient.
    pub const fn rrule(rtol: f64) -> Fd {
        Fd {
            scheme: Scheme::OneSided,
            step: 1e-6,
            rtol,
            skip_rough: false,
        }
    }

    /// The rule tests: the best of central differences at four steps and their Richardson
    /// extrapolations, within a relative `1e-6`.
    pub const RULES: Fd = Fd {
        scheme: Scheme::Richardson(&[1e-3, 1e-4, 1e-5, 1e-6]),
        step: 1.0,
        rtol: 1e-6,
        skip_rough: false,
    };

    /// The pipeline fuzz target: one-sided differences with a relative step of `1e-5`, judged
    /// only where the function is smooth, within a relative `1e-3`.
    pub const FUZZ: Fd = Fd {
        scheme: Scheme::OneSided,
        step: 1e-5,
        rtol: 1e-3,
        skip_rough: true,
    };

    /// The step at the input `x`.
    pub fn step_at(&self, x: f64) -> f64 {
        self.step * x.abs().max(1.0)
    }

    /// Compare the gradient `g` at the input `x` with finite differences of `f`, where `f(d)`
    /// is the function's value with the input moved by `d`; `y0` is its value at `x` if the
    /// caller has it (else `f(0.0)` is called when the scheme needs it). An error of `f`
    /// is returned as it is.
    pub fn check<E>(
        &self,
        g: f64,
        x: f64,
        y0: Option<f64>,
        mut f: impl FnMut(f64) -> Result<f64, E>,
    ) -> Result<Verdict, E> {
        let h = self.step_at(x);
        let mut central = |h: f64| -> Result<f64, E> { Ok((f(h)? - f(-h)?) / (2.0 * h)) };
        Ok(match self.scheme {
            Scheme::Central => {
                // NaN on either side is a disagreement.
                let agrees = |d: f64| (g - d).abs() <= self.rtol * g.abs().max(d.abs()).max(1.0);
                let d = central(h)?;
                if agrees(d) {
                    return Ok(Verdict::Agrees);
                }
                for s in CENTRAL_RETRY {
                    let (d1, d2) = (central(s * h)?, central(s * h / 2.0)?);
                    if [d1, d2, (4.0 * d2 - d1) / 3.0].into_iter().any(agrees) {
                        return Ok(Verdict::Agrees);
                    }
                }
                Verdict::Differs { fd: d }
            }
            Scheme::Richardson(factors) => {
                let (mut best, mut best_err) = (f64::NAN, f64::INFINITY);
                for s in factors {
                    let (d1, d2) = (central(s * h)?, central(s * h / 2.0)?);
                    for d in [d1, d2, (4.0 * d2 - d1) / 3.0] {
                        let err = (d - g).abs() / g.abs().max(1.0);
                        if err < best_err {
                            (best, best_err) = (d, err);
                        }
                    }
                }
                if best_err < self.rtol {
                    Verdict::Agrees
                } else {
                    Verdict::Differs { fd: best }
                }
            }
            Scheme::OneSided => {
                let y0 = match y0 {
                    Some(y) => y,
                    None => f(0.0)?,
                };
                let (up, down) = ((f(h)? - y0) / h, (y0 - f(-h)?) / h);
                let mean = (up + down) / 2.0;
                if self.skip_rough {
                    let scale = up.abs().max(down.abs()).max(1.0);
                    let finite = up.is_finite() && down.is_finite() && g.is_finite();
                    if !finite || (up - down).abs() > self.rtol * scale {
                        return Ok(Verdict::Rough);
                    }
                }
                let tol = self.rtol * g.abs().max(up.abs()).max(down.abs()).max(1.0);
                if g >= up.min(down) - tol && g <= up.max(down) + tol {
                    Verdict::Agrees
                } else {
                    Verdict::Differs { fd: mean }
                }
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(fd: Fd, g: f64, x: f64, f: fn(f64) -> f64) -> Verdict {
        fd.check(g, x, None, |d| Ok::<_, ()>(f(x + d)))
            .unwrap_or(Verdict::Rough)
    }

    #[test]
    fn every_scheme_accepts_the_derivative_and_rejects_another() {
        for fd in [Fd::gradcheck(1e-4), Fd::rrule(1e-4), Fd::RULES, Fd::FUZZ] {
            assert_eq!(
                check(fd, 2.0f64.cos(), 2.0, f64::sin),
                Verdict::Agrees,
                "{fd:?}"
            );
            assert!(
                matches!(check(fd, 0.5, 2.0, f64::sin), Verdict::Differs { .. }),
                "{fd:?}"
            );
        }
    }

    #[test]
    fn central_differences_see_through_rounding_in_a_large_value() {
        // f = (x - 1e6)² at x = 1: f ≈ 1e12, so the step 1e-6 loses the derivative to
        // rounding (~55 of 2e6); a larger step recovers it, and a wrong slope still differs.
        let f = |x: f64| (x - 1e6).powi(2);
        let g = 2.0 * (1.0 - 1e6);
        assert_eq!(check(Fd::gradcheck(1e-6), g, 1.0, f), Verdict::Agrees);
        assert!(matches!(
            check(Fd::gradcheck(1e-6), g * (1.0 + 1e-4), 1.0, f),
            Verdict::Differs { .. }
        ));
    }

    #[test]
    fn one_sided_differences_accept_a_subgradient_at_a_kink() {
        assert_eq!(check(Fd::rrule(1e-4), 0.3, 0.0, f64::abs), Verdict::Agrees);
        assert_eq!(
            check(Fd::gradcheck(1e-4), 0.3, 0.0, f64::abs),
            Verdict::Differs { fd: 0.0 }
        );
        assert_eq!(check(Fd::FUZZ, 0.3, 0.0, f64::abs), Verdict::Rough);
    }

    #[test]
    fn richardson_reaches_the_tight_tolerance() {
        let fd = Fd::RULES;
        assert_eq!(check(fd, 3.0f64.exp(), 3.0, f64::exp), Verdict::Agrees);
        let Verdict::Differs { fd: d } = check(fd, 3.0f64.exp() * (1.0 + 1e-5), 3.0, f64::exp)
        else {
            panic!("a relative error of 1e-5 passed")
        };
        // The estimate closest to the wrong gradient, still a fair estimate of the derivative.
        assert!((d - 3.0f64.exp()).abs() < 1e-4 * 3.0f64.exp());
    }
}
