# zy's prelude: StatsFuns.jl, the densities and distribution functions that statistical code
# calls by name. Seen after `using StatsFuns` (its exports, the LogExpFunctions names it
# re-exports among them) or as `StatsFuns.name`. Each is written with the package's branches
# and constants over SpecialFunctions and LogExpFunctions, so its values are those StatsFuns
# computes and zy differentiates it like user code. A density of `x` outside the support is
# `-Inf` (its logarithm) or `0.0`, as in StatsFuns.

import SpecialFunctions: loggamma, logbeta, erfcinv, gamma_inc, beta_inc, gamma_inc_inv, beta_inc_inv
import LogExpFunctions: xlogx, xlogy, xlog1py, logistic, logit, log1psq, log1pexp, log1mexp, log2mexp, logexpm1, softplus, invsoftplus, log1pmx, logmxp1, logaddexp, logsubexp, logsumexp, softmax, softmax!

export xlogx, xlogy, xlog1py, logistic, logit, log1psq, log1pexp, log1mexp, log2mexp, logexpm1, softplus, invsoftplus, log1pmx, logmxp1, logaddexp, logsubexp, logsumexp, softmax, softmax!
export normpdf, normlogpdf, normcdf, normccdf, normlogcdf, normlogccdf, norminvcdf, norminvccdf, gammapdf, gammalogpdf, betapdf, betalogpdf, poispdf, poislogpdf, tdistpdf, tdistlogpdf
export gammacdf, gammaccdf, gammalogcdf, gammalogccdf, betacdf, betaccdf, betalogcdf, betalogccdf, poiscdf, poisccdf, poislogcdf, poislogccdf, tdistcdf, tdistccdf, tdistlogcdf, tdistlogccdf, fdistcdf, fdistccdf, fdistlogcdf, fdistlogccdf
export gammainvcdf, gammainvccdf, betainvcdf, betainvccdf, fdistinvcdf, fdistinvccdf, tdistinvcdf, tdistinvccdf, poisinvcdf

# IrrationalConstants' values as Float64: 1/√2, √2, 1/√(2π), log(2π), log(π).
const _INVSQRT2 = 0.7071067811865476
const _SQRT2 = 1.4142135623730951
const _INVSQRT2PI = 0.3989422804014327
const _LOG2PI = 1.8378770664093453
const _LOGPI = 1.1447298858494002

# The standardized value `(x - μ) / σ`, and back.
_zval(μ::Real, σ::Real, x::Real) = (x - μ) / σ
_xval(μ::Real, σ::Real, z::Real) = isinf(z) && iszero(σ) ? μ + one(σ) * z : μ + σ * z

"""
    normpdf(z), normpdf(μ, σ, x)

The density of the standard normal distribution at `z`, `exp(-z²/2) / √(2π)`, or of the
normal with mean `μ` and standard deviation `σ` at `x`: `normpdf((x - μ) / σ) / σ`.
"""
normpdf(z::Real) = exp(-abs2(z) / 2) * _INVSQRT2PI
function normpdf(μ::Real, σ::Real, x::Real)
    if iszero(σ)
        if x == μ
            return normpdf(_zval(μ, one(σ), x)) / σ
        end
        return normpdf(_zval(μ, σ, x)) / one(σ)
    end
    return normpdf(_zval(μ, σ, x)) / σ
end

"""
    normlogpdf(z), normlogpdf(μ, σ, x)

The logarithm of `normpdf`: `-(z² + log(2π)) / 2`, less `log(σ)` with a mean and a standard
deviation.
"""
normlogpdf(z::Real) = -(abs2(z) + _LOG2PI) / 2
function normlogpdf(μ::Real, σ::Real, x::Real)
    if iszero(σ)
        if x == μ
            return normlogpdf(_zval(μ, one(σ), x)) - log(σ)
        end
        return normlogpdf(_zval(μ, σ, x)) - log(one(σ))
    end
    return normlogpdf(_zval(μ, σ, x)) - log(σ)
end

# `(x - μ) / σ` for the distribution functions: `1 / σ` where `σ` is 0 and `x` is `μ` (StatsFuns'
# convention: the point mass's distribution function is 1 there).
_cdf_z(μ::Real, σ::Real, x::Real) = iszero(σ) && x == μ ? _zval(zero(μ), σ, one(x)) : _zval(μ, σ, x)

"""
    normcdf(z), normcdf(μ, σ, x)

The standard normal distribution function, `erfc(-z/√2) / 2`.
"""
normcdf(z::Real) = erfc(-z * _INVSQRT2) / 2
normcdf(μ::Real, σ::Real, x::Real) = normcdf(_cdf_z(μ, σ, x))

"""
    normccdf(z), normccdf(μ, σ, x)

`1 - normcdf(z)`, as `erfc(z/√2) / 2` (without the cancellation).
"""
normccdf(z::Real) = erfc(z * _INVSQRT2) / 2
normccdf(μ::Real, σ::Real, x::Real) = normccdf(_cdf_z(μ, σ, x))

"""
    normlogcdf(z), normlogcdf(μ, σ, x)

`log(normcdf(z))`: below `-1` through `erfcx`, so that it keeps its digits far in the tail
(`normlogcdf(-40.0)`), above it `log1p(-normccdf(z))`.
"""
normlogcdf(z::Real) = z < -1.0 ? log(erfcx(-z * _INVSQRT2) / 2) - abs2(z) / 2 : log1p(-erfc(z * _INVSQRT2) / 2)
normlogcdf(μ::Real, σ::Real, x::Real) = normlogcdf(_cdf_z(μ, σ, x))

"""
    normlogccdf(z), normlogccdf(μ, σ, x)

`log(normccdf(z))`, through `erfcx` above `1`.
"""
normlogccdf(z::Real) = z > 1.0 ? log(erfcx(z * _INVSQRT2) / 2) - abs2(z) / 2 : log1p(-erfc(-z * _INVSQRT2) / 2)
normlogccdf(μ::Real, σ::Real, x::Real) = normlogccdf(_cdf_z(μ, σ, x))

"""
    norminvcdf(p), norminvcdf(μ, σ, p)

The quantile function of the normal distribution, `-√2 erfcinv(2p)`: `-Inf` at `0`, `Inf`
at `1`.
"""
norminvcdf(p::Real) = -erfcinv(2 * p) * _SQRT2
norminvcdf(μ::Real, σ::Real, p::Real) = _xval(float(μ), float(σ), norminvcdf(p))

"""
    norminvccdf(p), norminvccdf(μ, σ, p)

The quantile of the upper tail, `√2 erfcinv(2p)`.
"""
norminvccdf(p::Real) = erfcinv(2 * p) * _SQRT2
norminvccdf(μ::Real, σ::Real, p::Real) = _xval(float(μ), float(σ), norminvccdf(p))

"""
    gammalogpdf(k, θ, x)

The log-density of the gamma distribution of shape `k` and scale `θ` at `x`:
`xlogy(k - 1, x/θ) - x/θ - loggamma(k) - log(θ)`, `-Inf` below 0.
"""
function gammalogpdf(k::Real, θ::Real, x::Real)
    xθ = max(float(x), 0.0) / θ
    val = -loggamma(k) - log(θ) - xθ
    if isfinite(xθ)
        val += xlogy(k - 1, xθ)
    end
    return x < 0 ? -Inf : val
end

"""
    gammapdf(k, θ, x)

`exp(gammalogpdf(k, θ, x))`.
"""
gammapdf(k::Real, θ::Real, x::Real) = exp(gammalogpdf(k, θ, x))

"""
    betalogpdf(α, β, x)

The log-density of the beta distribution at `x`: `xlogy(α - 1, x) + xlog1py(β - 1, -x) -
logbeta(α, β)`, `-Inf` outside `[0, 1]`.
"""
function betalogpdf(α::Real, β::Real, x::Real)
    y = clamp(float(x), 0.0, 1.0)
    val = xlogy(α - 1, y) + xlog1py(β - 1, -y) - logbeta(α, β)
    return x < 0 || x > 1 ? -Inf : val
end

"""
    betapdf(α, β, x)

`exp(betalogpdf(α, β, x))`.
"""
betapdf(α::Real, β::Real, x::Real) = exp(betalogpdf(α, β, x))

"""
    poislogpdf(λ, x)

The log-probability of `x` events under the Poisson distribution of rate `λ`:
`xlogy(x, λ) - λ - loggamma(x + 1)`, `-Inf` where `x` is not a natural number.
"""
function poislogpdf(λ::Real, x::Real)
    val = xlogy(float(x), λ) - λ - loggamma(x + 1)
    return x >= 0 && isinteger(x) ? val : -Inf
end

"""
    poispdf(λ, x)

`exp(poislogpdf(λ, x))`.
"""
poispdf(λ::Real, x::Real) = exp(poislogpdf(λ, x))

"""
    tdistlogpdf(ν, x)

The log-density of Student's t distribution with `ν` degrees of freedom at `x`:
`loggamma((ν + 1)/2) - (log(π) + log(ν))/2 - loggamma(ν/2) - (ν + 1)/2 log1p(x²/ν)`; the
standard normal's at `ν = Inf`.
"""
function tdistlogpdf(ν::Real, x::Real)
    isinf(ν) && return normlogpdf(float(x))
    νp12 = (ν + 1) / 2
    return loggamma(νp12) - (_LOGPI + log(ν)) / 2 - loggamma(ν / 2) - νp12 * log1p(x^2 / ν)
end

"""
    tdistpdf(ν, x)

`exp(tdistlogpdf(ν, x))`.
"""
tdistpdf(ν::Real, x::Real) = exp(tdistlogpdf(ν, x))

# The smallest normal Float64 (`floatmin(Float64)`) and log(2).
const _FLOATMIN = 2.2250738585072014e-308
const _LOGTWO = 0.6931471805599453

"""
    gammacdf(k, θ, x), gammaccdf(k, θ, x)

The distribution function of the gamma distribution of shape `k` and scale `θ` at `x`,
`P(k, max(0, x)/θ)` (`gamma_inc`'s first), and its complement `Q` (the second, keeping its
digits in the upper tail); a step at 0 where `k` is 0. Differentiable in `θ` and `x`; a
derivative in `k` is refused (SpecialFunctions has none).
"""
function gammacdf(k::Real, θ::Real, x::Real)
    iszero(k) && return x >= 0 ? 1.0 : 0.0
    return gamma_inc(k, max(0.0, float(x)) / θ)[1]
end
function gammaccdf(k::Real, θ::Real, x::Real)
    iszero(k) && return x < 0 ? 1.0 : 0.0
    return gamma_inc(k, max(0.0, float(x)) / θ)[2]
end

"""
    gammalogcdf(k, θ, x), gammalogccdf(k, θ, x)

`log(gammacdf(k, θ, x))` and `log(gammaccdf(k, θ, x))`, as StatsFuns takes them: from the
smaller of `P` and `Q` (`log1p` of the other's negation above 0.7); where `P` underflows from
its series `xᵏ e⁻ˣ ₁F₁(1; k + 1; x) / Γ(k + 1)`, where `Q` does from `loggamma(k, x)`.
"""
function gammalogcdf(k::Real, θ::Real, x::Real)
    iszero(k) && return log(x >= 0 ? 1.0 : 0.0)
    xdθ = max(0.0, float(x)) / θ
    l, u = gamma_inc(k, xdθ)
    if l < _FLOATMIN && isfinite(k) && isfinite(xdθ)
        return -log(k) + k * log(xdθ) - xdθ + log(_hyp1f1_one(k, xdθ)) - loggamma(k)
    elseif l < 0.7
        return log(l)
    end
    return log1p(-u)
end
function gammalogccdf(k::Real, θ::Real, x::Real)
    iszero(k) && return log(x < 0 ? 1.0 : 0.0)
    xdθ = max(0.0, float(x)) / θ
    l, u = gamma_inc(k, xdθ)
    if u < _FLOATMIN
        return loggamma(k, xdθ) - loggamma(k)
    elseif u < 0.7
        return log(u)
    end
    return log1p(-l)
end

# `₁F₁(1; k + 1; z) = Σₙ zⁿ / ((k + 1) ⋯ (k + n))`, summed until a term no longer changes the
# sum (it converges fast where the lower tail underflows, `z` far below `k`).
function _hyp1f1_one(k::Real, z::Real)
    s = 1.0
    t = 1.0
    n = 0
    while n < 100000
        n += 1
        t *= z / (k + n)
        s + t == s && break
        s += t
    end
    return s
end

"""
    betacdf(α, β, x), betaccdf(α, β, x)

The distribution function of the beta distribution at `x` (clamped into `[0, 1]`),
`beta_inc(α, β, x)`'s first, and its complement, the second; steps where `α` or `β` is 0.
Differentiable in `x`; a derivative in `α` or `β` is refused (SpecialFunctions has none).
"""
function betacdf(α::Real, β::Real, x::Real)
    if iszero(α) && β > 0
        return x >= 0 ? 1.0 : 0.0
    elseif iszero(β) && α > 0
        return x >= 1 ? 1.0 : 0.0
    end
    return beta_inc(α, β, clamp(float(x), 0.0, 1.0))[1]
end
function betaccdf(α::Real, β::Real, x::Real)
    if iszero(α) && β > 0
        return x < 0 ? 1.0 : 0.0
    elseif iszero(β) && α > 0
        return x < 1 ? 1.0 : 0.0
    end
    return beta_inc(α, β, clamp(float(x), 0.0, 1.0))[2]
end

"""
    betalogcdf(α, β, x), betalogccdf(α, β, x)

`log(betacdf(α, β, x))` and `log(betaccdf(α, β, x))` from the smaller of the pair; where the
lower tail underflows from `xᵅ (1 - x)ᵝ ₂F₁(α + β, 1; α + 1; x) / (α B(α, β))` (DLMF 8.17.8).
"""
function betalogcdf(α::Real, β::Real, x::Real)
    if iszero(α) && β > 0
        return log(x >= 0 ? 1.0 : 0.0)
    elseif iszero(β) && α > 0
        return log(x >= 1 ? 1.0 : 0.0)
    end
    y = clamp(float(x), 0.0, 1.0)
    p, q = beta_inc(α, β, y)
    if p < _FLOATMIN
        return -log(α) + xlogy(α, y) + xlog1py(β, -y) + log(_hyp2f1_tail(α, β, y)) - logbeta(α, β)
    elseif p <= 0.7
        return log(p)
    end
    return log1p(-q)
end
function betalogccdf(α::Real, β::Real, x::Real)
    if iszero(α) && β > 0
        return log(x < 0 ? 1.0 : 0.0)
    elseif iszero(β) && α > 0
        return log(x < 1 ? 1.0 : 0.0)
    end
    p, q = beta_inc(α, β, clamp(float(x), 0.0, 1.0))
    return q < 0.7 ? log(q) : log1p(-p)
end

# `₂F₁(α + β, 1; α + 1; x) = Σₙ (α + β)ₙ / (α + 1)ₙ xⁿ` of `x < 1`, summed until a term no
# longer changes the sum.
function _hyp2f1_tail(α::Real, β::Real, x::Real)
    s = 1.0
    t = 1.0
    n = 0
    while n < 100000
        t *= (α + β + n) / (α + 1 + n) * x
        n += 1
        s + t == s && break
        s += t
    end
    return s
end

"""
    poiscdf(λ, x), poisccdf(λ, x), poislogcdf(λ, x), poislogccdf(λ, x)

The distribution function of the Poisson distribution of rate `λ` at `x`, and its
complement and logarithms: the gamma distribution's of shape `floor(x) + 1` at `λ`
(`poiscdf(λ, x) = gammaccdf(floor(x) + 1, 1, λ)`), so differentiable in `λ`.
"""
poiscdf(λ::Real, x::Real) = gammaccdf(max(0.0, floor(float(x) + 1)), 1.0, λ)
poisccdf(λ::Real, x::Real) = gammacdf(max(0.0, floor(float(x) + 1)), 1.0, λ)
poislogcdf(λ::Real, x::Real) = gammalogccdf(max(0.0, floor(float(x) + 1)), 1.0, λ)
poislogccdf(λ::Real, x::Real) = gammalogcdf(max(0.0, floor(float(x) + 1)), 1.0, λ)

"""
    fdistcdf(ν1, ν2, x), fdistccdf(ν1, ν2, x), fdistlogcdf(ν1, ν2, x), fdistlogccdf(ν1, ν2, x)

The F distribution's distribution functions: the beta distribution's of `ν1/2`, `ν2/2` at
`1 / (1 + ν2 / (ν1 max(0, x)))`.
"""
fdistcdf(ν1::Real, ν2::Real, x::Real) = betacdf(ν1 / 2, ν2 / 2, _fdist_y(ν1, ν2, x))
fdistccdf(ν1::Real, ν2::Real, x::Real) = betaccdf(ν1 / 2, ν2 / 2, _fdist_y(ν1, ν2, x))
fdistlogcdf(ν1::Real, ν2::Real, x::Real) = betalogcdf(ν1 / 2, ν2 / 2, _fdist_y(ν1, ν2, x))
fdistlogccdf(ν1::Real, ν2::Real, x::Real) = betalogccdf(ν1 / 2, ν2 / 2, _fdist_y(ν1, ν2, x))
_fdist_y(ν1::Real, ν2::Real, x::Real) = inv(1 + ν2 / (ν1 * max(0.0, float(x))))

"""
    tdistcdf(ν, x), tdistccdf(ν, x), tdistlogcdf(ν, x), tdistlogccdf(ν, x)

The distribution function of Student's t distribution with `ν` degrees of freedom at `x`,
from the F distribution's of `1`, `ν` at `x²` (half its complement below 0); the standard
normal's at `ν = Inf`. Differentiable in `x`; a derivative in `ν` is refused.
"""
function tdistcdf(ν::Real, x::Real)
    if isinf(ν)
        return normcdf(float(x))
    elseif x < 0
        return fdistccdf(1.0, ν, x^2) / 2
    end
    return 1 - fdistccdf(1.0, ν, x^2) / 2
end
tdistccdf(ν::Real, x::Real) = tdistcdf(ν, -x)
function tdistlogcdf(ν::Real, x::Real)
    if isinf(ν)
        return normlogcdf(float(x))
    elseif x < 0
        return fdistlogccdf(1.0, ν, x^2) - _LOGTWO
    end
    return log1p(-fdistccdf(1.0, ν, x^2) / 2)
end
tdistlogccdf(ν::Real, x::Real) = tdistlogcdf(ν, -x)

"""
    gammainvcdf(k, θ, p), gammainvccdf(k, θ, p)

The quantiles of the gamma distribution: `θ gamma_inc_inv(k, p, 1 - p)`, and of its upper
tail. Differentiable in `θ` and `p` (`∂/∂p` is the inverse density); in `k` refused.
"""
gammainvcdf(k::Real, θ::Real, p::Real) = θ * gamma_inc_inv(k, p, 1 - p)
gammainvccdf(k::Real, θ::Real, p::Real) = θ * gamma_inc_inv(k, 1 - p, p)

"""
    betainvcdf(α, β, p), betainvccdf(α, β, p)

The quantiles of the beta distribution, `beta_inc_inv(α, β, p)`'s first, and of its upper
tail; steps where `α` or `β` is 0.
"""
function betainvcdf(α::Real, β::Real, p::Real)
    if 0 <= p <= 1
        iszero(α) && β > 0 && return 0.0
        iszero(β) && α > 0 && return p > 0 ? 1.0 : 0.0
    end
    return beta_inc_inv(α, β, p)[1]
end
function betainvccdf(α::Real, β::Real, p::Real)
    if 0 <= p <= 1
        iszero(α) && β > 0 && return p == 0 ? 1.0 : 0.0
        iszero(β) && α > 0 && return 1.0
    end
    return beta_inc_inv(β, α, p)[2]
end

"""
    fdistinvcdf(ν1, ν2, p), fdistinvccdf(ν1, ν2, p)

The quantiles of the F distribution, from the beta distribution's of `ν1/2`, `ν2/2`:
`x / (1 - x) ν2 / ν1`.
"""
function fdistinvcdf(ν1::Real, ν2::Real, p::Real)
    x, y = beta_inc_inv(ν1 / 2, ν2 / 2, p)
    return x / y * ν2 / ν1
end
function fdistinvccdf(ν1::Real, ν2::Real, p::Real)
    y, x = beta_inc_inv(ν2 / 2, ν1 / 2, p)
    return x / y * ν2 / ν1
end

"""
    tdistinvcdf(ν, p), tdistinvccdf(ν, p)

The quantiles of Student's t distribution, from the F distribution's of `1`, `ν` at twice
the tail: `∓√fdistinvccdf(1, ν, 2 min(p, 1 - p))`; the normal's at `ν = Inf`.
"""
function tdistinvcdf(ν::Real, p::Real)
    if isinf(ν)
        return norminvcdf(float(p))
    elseif p < 0.5
        return -sqrt(fdistinvccdf(1.0, ν, 2 * p))
    end
    return sqrt(fdistinvccdf(1.0, ν, 2 * (1 - p)))
end
tdistinvccdf(ν::Real, p::Real) = -tdistinvcdf(ν, p)

"""
    poisinvcdf(λ, p)

The quantile of the Poisson distribution of rate `λ`: the least natural `k` with
`poiscdf(λ, k) >= p` (as a Float64, as Rmath's `qpois`), searched from the normal
approximation; `Inf` at `p = 1`.
"""
function poisinvcdf(λ::Real, p::Real)
    p >= 1 && return Inf
    p <= 0 && return 0.0
    z = -erfcinv(2 * p) * _SQRT2
    k = max(0.0, floor(λ + sqrt(λ) * z))
    while k > 0 && poiscdf(λ, k - 1) >= p
        k -= 1
    end
    while poiscdf(λ, k) < p
        k += 1
    end
    return k
end
