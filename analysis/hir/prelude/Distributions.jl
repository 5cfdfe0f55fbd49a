# zy's prelude: a small part of Distributions.jl, the univariate distributions a hand-written
# likelihood calls. Seen after `using Distributions` or as `Distributions.name`. Each
# distribution is a struct of its Float64 parameters, checked as Distributions' constructors
# check them (`Normal(0, -1)` is its `DomainError`), with `logpdf`, `pdf`, `cdf`, `logcdf`,
# `mean`, `var`, `std` and `params` written as the package writes them over StatsFuns, so zy
# differentiates them with respect to the parameters and `x`. A distribution broadcasts as a
# scalar (`logpdf.(Normal(μ, σ), data)`). The distribution functions of `Gamma`, `Beta`,
# `Poisson` and `TDist` (`cdf`, `ccdf`, `logcdf`, `logccdf`) go through the incomplete gamma and
# beta functions, and their `quantile`s through those functions' inverses: differentiable in
# `x` (or `p`) and a scale, not in a shape. Each type is parametric as Distributions'
# (`Normal(0, 1)` is a `Normal{Float64}`, its parameters promoted to Float64 and checked;
# `Normal{Float64}(μ, σ)` checks nothing) and shows as Distributions shows it,
# `Normal{Float64}(μ=0.0, σ=1.0)` (zy's `show` of a struct of this module). Not in zy:
# sampling (`rand`), fitting.

import Statistics: mean, var, std, quantile, cov
import StatsFuns: normlogpdf, normpdf, normcdf, normccdf, normlogcdf, normlogccdf, gammalogpdf, betalogpdf, poislogpdf, tdistlogpdf
import StatsFuns: norminvcdf, gammainvcdf, betainvcdf, tdistinvcdf, poisinvcdf
import StatsFuns: gammacdf, gammaccdf, gammalogcdf, gammalogccdf, betacdf, betaccdf, betalogcdf, betalogccdf, poiscdf, poisccdf, poislogcdf, poislogccdf, tdistcdf, tdistccdf, tdistlogcdf, tdistlogccdf
import LogExpFunctions: log1mexp
import LinearAlgebra: cholesky, diag

export Normal, LogNormal, Exponential, Gamma, Beta, Uniform, Bernoulli, Poisson, Cauchy, TDist, MvNormal
export logpdf, pdf, cdf, ccdf, logcdf, logccdf, quantile, mean, var, std, cov, params
export loglikelihood

# Distributions' argument check: a `DomainError` with the value and the condition (checked
# after the parameters are promoted to Float64, as Distributions promotes two Ints).
_check_args(ok::Bool, v, name::String, condition::String) = ok || throw(DomainError(v, "$name: the condition $condition is not satisfied."))

"""
    Normal(μ, σ)

The normal distribution with mean `μ` and standard deviation `σ >= 0`.
"""
struct Normal{T<:Real}
    μ::T
    σ::T
end
function Normal(μ::Float64, σ::Float64)
    _check_args(σ >= zero(σ), σ, "Normal", "σ >= zero(σ)")
    return Normal{Float64}(μ, σ)
end
Normal(μ::Int, σ::Int) = Normal(float(μ), float(σ))
Normal(μ::Real, σ::Real) = Normal(float(μ), float(σ))
Normal(μ::Real) = Normal(μ, 1.0)
Normal() = Normal(0.0, 1.0)

"""
    LogNormal(μ, σ)

The distribution of `exp(X)` for `X` normal with mean `μ` and standard deviation `σ >= 0`.
"""
struct LogNormal{T<:Real}
    μ::T
    σ::T
end
function LogNormal(μ::Float64, σ::Float64)
    _check_args(σ >= zero(σ), σ, "LogNormal", "σ ≥ zero(σ)")
    return LogNormal{Float64}(μ, σ)
end
LogNormal(μ::Int, σ::Int) = LogNormal(float(μ), float(σ))
LogNormal(μ::Real, σ::Real) = LogNormal(float(μ), float(σ))

"""
    Exponential(θ)

The exponential distribution with scale (mean) `θ > 0`.
"""
struct Exponential{T<:Real}
    θ::T
end
function Exponential(θ::Float64)
    _check_args(θ > zero(θ), θ, "Exponential", "θ > zero(θ)")
    return Exponential{Float64}(θ)
end
Exponential(θ::Int) = Exponential(float(θ))
Exponential(θ::Real) = Exponential(float(θ))
Exponential() = Exponential(1.0)

"""
    Gamma(α, θ)

The gamma distribution with shape `α > 0` and scale `θ > 0`.
"""
struct Gamma{T<:Real}
    α::T
    θ::T
end
function Gamma(α::Float64, θ::Float64)
    _check_args(α > zero(α), α, "Gamma", "α > zero(α)")
    _check_args(θ > zero(θ), θ, "Gamma", "θ > zero(θ)")
    return Gamma{Float64}(α, θ)
end
Gamma(α::Int, θ::Int) = Gamma(float(α), float(θ))
Gamma(α::Real, θ::Real) = Gamma(float(α), float(θ))

"""
    Beta(α, β)

The beta distribution on `[0, 1]` with shapes `α > 0`, `β > 0`.
"""
struct Beta{T<:Real}
    α::T
    β::T
end
function Beta(α::Float64, β::Float64)
    _check_args(α > zero(α), α, "Beta", "α > zero(α)")
    _check_args(β > zero(β), β, "Beta", "β > zero(β)")
    return Beta{Float64}(α, β)
end
Beta(α::Int, β::Int) = Beta(float(α), float(β))
Beta(α::Real, β::Real) = Beta(float(α), float(β))

"""
    Uniform(a, b)

The uniform distribution on `[a, b]`, `a < b`.
"""
struct Uniform{T<:Real}
    a::T
    b::T
end
function Uniform(a::Float64, b::Float64)
    a < b || throw(DomainError((a = a, b = b), "Uniform: a must be less than b"))
    return Uniform{Float64}(a, b)
end
Uniform(a::Int, b::Int) = Uniform(float(a), float(b))
Uniform(a::Real, b::Real) = Uniform(float(a), float(b))
Uniform() = Uniform(0.0, 1.0)

"""
    Bernoulli(p)

The distribution of one trial that succeeds (`1`) with probability `p` in `[0, 1]`.
"""
struct Bernoulli{T<:Real}
    p::T
end
function Bernoulli(p::Float64)
    _check_args(zero(p) <= p <= one(p), p, "Bernoulli", "zero(p) <= p <= one(p)")
    return Bernoulli{Float64}(p)
end
Bernoulli(p::Int) = Bernoulli(float(p))
Bernoulli(p::Real) = Bernoulli(float(p))

"""
    Poisson(λ)

The Poisson distribution with rate `λ >= 0`.
"""
struct Poisson{T<:Real}
    λ::T
end
function Poisson(λ::Float64)
    _check_args(λ >= zero(λ), λ, "Poisson", "λ >= zero(λ)")
    return Poisson{Float64}(λ)
end
Poisson(λ::Int) = Poisson(float(λ))
Poisson(λ::Real) = Poisson(float(λ))

"""
    Cauchy(μ, σ)

The Cauchy distribution with location `μ` and scale `σ > 0`.
"""
struct Cauchy{T<:Real}
    μ::T
    σ::T
end
function Cauchy(μ::Float64, σ::Float64)
    _check_args(σ > zero(σ), σ, "Cauchy", "σ > zero(σ)")
    return Cauchy{Float64}(μ, σ)
end
Cauchy(μ::Int, σ::Int) = Cauchy(float(μ), float(σ))
Cauchy(μ::Real, σ::Real) = Cauchy(float(μ), float(σ))

"""
    TDist(ν)

Student's t distribution with `ν > 0` degrees of freedom.
"""
struct TDist{T<:Real}
    ν::T
end
function TDist(ν::Float64)
    _check_args(ν > zero(ν), ν, "TDist", "ν > zero(ν)")
    return TDist{Float64}(ν)
end
TDist(ν::Int) = TDist(float(ν))
TDist(ν::Real) = TDist(float(ν))

logpdf(d::Normal, x::Real) = normlogpdf(d.μ, d.σ, x)
pdf(d::Normal, x::Real) = normpdf(d.μ, d.σ, x)
cdf(d::Normal, x::Real) = normcdf(d.μ, d.σ, x)
logcdf(d::Normal, x::Real) = normlogcdf(d.μ, d.σ, x)
ccdf(d::Normal, x::Real) = normccdf(d.μ, d.σ, x)
logccdf(d::Normal, x::Real) = normlogccdf(d.μ, d.σ, x)
quantile(d::Normal, p::Real) = norminvcdf(d.μ, d.σ, p)
mean(d::Normal) = d.μ
var(d::Normal) = d.σ^2
std(d::Normal) = d.σ
params(d::Normal) = (d.μ, d.σ)

logpdf(d::LogNormal, x::Real) = x <= 0 ? -Inf : normlogpdf(d.μ, d.σ, log(x)) - log(x)
pdf(d::LogNormal, x::Real) = exp(logpdf(d, x))
cdf(d::LogNormal, x::Real) = x <= 0 ? 0.0 : normcdf(d.μ, d.σ, log(x))
logcdf(d::LogNormal, x::Real) = x <= 0 ? -Inf : normlogcdf(d.μ, d.σ, log(x))
mean(d::LogNormal) = exp(d.μ + d.σ^2 / 2)
var(d::LogNormal) = expm1(d.σ^2) * exp(2 * d.μ + d.σ^2)
std(d::LogNormal) = sqrt(var(d))
params(d::LogNormal) = (d.μ, d.σ)

logpdf(d::Exponential, x::Real) = x < 0 ? -Inf : -log(d.θ) - x / d.θ
pdf(d::Exponential, x::Real) = exp(logpdf(d, x))
cdf(d::Exponential, x::Real) = x <= 0 ? 0.0 : -expm1(-x / d.θ)
logcdf(d::Exponential, x::Real) = x <= 0 ? -Inf : log1mexp(-x / d.θ)
mean(d::Exponential) = d.θ
var(d::Exponential) = d.θ^2
std(d::Exponential) = d.θ
params(d::Exponential) = (d.θ,)

logpdf(d::Gamma, x::Real) = gammalogpdf(d.α, d.θ, x)
pdf(d::Gamma, x::Real) = exp(logpdf(d, x))
cdf(d::Gamma, x::Real) = gammacdf(d.α, d.θ, x)
ccdf(d::Gamma, x::Real) = gammaccdf(d.α, d.θ, x)
logcdf(d::Gamma, x::Real) = gammalogcdf(d.α, d.θ, x)
logccdf(d::Gamma, x::Real) = gammalogccdf(d.α, d.θ, x)
quantile(d::Gamma, p::Real) = gammainvcdf(d.α, d.θ, p)
mean(d::Gamma) = d.α * d.θ
var(d::Gamma) = d.α * d.θ^2
std(d::Gamma) = sqrt(var(d))
params(d::Gamma) = (d.α, d.θ)

logpdf(d::Beta, x::Real) = betalogpdf(d.α, d.β, x)
pdf(d::Beta, x::Real) = exp(logpdf(d, x))
cdf(d::Beta, x::Real) = betacdf(d.α, d.β, x)
ccdf(d::Beta, x::Real) = betaccdf(d.α, d.β, x)
logcdf(d::Beta, x::Real) = betalogcdf(d.α, d.β, x)
logccdf(d::Beta, x::Real) = betalogccdf(d.α, d.β, x)
quantile(d::Beta, p::Real) = betainvcdf(d.α, d.β, p)
mean(d::Beta) = d.α / (d.α + d.β)
var(d::Beta) = d.α * d.β / ((d.α + d.β)^2 * (d.α + d.β + 1))
std(d::Beta) = sqrt(var(d))
params(d::Beta) = (d.α, d.β)

logpdf(d::Uniform, x::Real) = d.a <= x <= d.b ? -log(d.b - d.a) : -Inf
pdf(d::Uniform, x::Real) = d.a <= x <= d.b ? 1 / (d.b - d.a) : 0.0
cdf(d::Uniform, x::Real) = clamp((x - d.a) / (d.b - d.a), 0.0, 1.0)
logcdf(d::Uniform, x::Real) = log(cdf(d, x))
mean(d::Uniform) = (d.a + d.b) / 2
var(d::Uniform) = (d.b - d.a)^2 / 12
std(d::Uniform) = sqrt(var(d))
params(d::Uniform) = (d.a, d.b)

logpdf(d::Bernoulli, x::Real) = x == 0 ? log1p(-d.p) : (x == 1 ? log(d.p) : -Inf)
pdf(d::Bernoulli, x::Real) = x == 0 ? 1 - d.p : (x == 1 ? d.p : 0.0)
cdf(d::Bernoulli, x::Real) = x < 0 ? 0.0 : (x < 1 ? 1 - d.p : 1.0)
logcdf(d::Bernoulli, x::Real) = log(cdf(d, x))
mean(d::Bernoulli) = d.p
var(d::Bernoulli) = d.p * (1 - d.p)
std(d::Bernoulli) = sqrt(var(d))
params(d::Bernoulli) = (d.p,)

logpdf(d::Poisson, x::Real) = poislogpdf(d.λ, x)
pdf(d::Poisson, x::Real) = exp(logpdf(d, x))
cdf(d::Poisson, x::Real) = poiscdf(d.λ, x)
ccdf(d::Poisson, x::Real) = poisccdf(d.λ, x)
logcdf(d::Poisson, x::Real) = poislogcdf(d.λ, x)
logccdf(d::Poisson, x::Real) = poislogccdf(d.λ, x)
quantile(d::Poisson, p::Real) = Int(poisinvcdf(d.λ, p))
mean(d::Poisson) = d.λ
var(d::Poisson) = d.λ
std(d::Poisson) = sqrt(d.λ)
params(d::Poisson) = (d.λ,)

logpdf(d::Cauchy, x::Real) = -log(π) - log(d.σ) - log1p(((x - d.μ) / d.σ)^2)
pdf(d::Cauchy, x::Real) = exp(logpdf(d, x))
cdf(d::Cauchy, x::Real) = atan((x - d.μ) / d.σ) / π + 0.5
logcdf(d::Cauchy, x::Real) = log(cdf(d, x))
mean(d::Cauchy) = NaN
var(d::Cauchy) = NaN
std(d::Cauchy) = NaN
params(d::Cauchy) = (d.μ, d.σ)

logpdf(d::TDist, x::Real) = tdistlogpdf(d.ν, x)
pdf(d::TDist, x::Real) = exp(logpdf(d, x))
cdf(d::TDist, x::Real) = tdistcdf(d.ν, x)
ccdf(d::TDist, x::Real) = tdistccdf(d.ν, x)
logcdf(d::TDist, x::Real) = tdistlogcdf(d.ν, x)
logccdf(d::TDist, x::Real) = tdistlogccdf(d.ν, x)
quantile(d::TDist, p::Real) = tdistinvcdf(d.ν, p)
mean(d::TDist) = d.ν > 1 ? 0.0 : NaN
var(d::TDist) = d.ν > 2 ? d.ν / (d.ν - 2) : (d.ν > 1 ? Inf : NaN)
std(d::TDist) = sqrt(var(d))
params(d::TDist) = (d.ν,)

"""
    MvNormal(μ, Σ)

The multivariate normal distribution with mean vector `μ` and covariance matrix `Σ`, which
must be positive definite (its Cholesky factorization's `PosDefException` otherwise) and of
`μ`'s size (Distributions' `DimensionMismatch`). Not Distributions' parametric type (Julia's
is `FullNormal`, an alias of `MvNormal{Float64, PDMat{...}, Vector{Float64}}`).
"""
struct MvNormal
    μ::Vector{Float64}
    Σ::Matrix{Float64}
    function MvNormal(μ::AbstractVector{<:Real}, Σ::AbstractMatrix{<:Real})
        cholesky(Σ)
        size(Σ, 1) == length(μ) || throw(DimensionMismatch("The dimensions of mu and Sigma are inconsistent."))
        return new(Vector{Float64}(μ), Matrix{Float64}(Σ))
    end
end

"""
    logpdf(d::MvNormal, x)

`-(k log(2π) + logdet(Σ) + (x - μ)ᵀ Σ⁻¹ (x - μ)) / 2` for a vector `x` of length `k`, from the
Cholesky factorization of `Σ`, as Distributions computes it; differentiable in `μ`, `Σ` and
`x`. `x` of another length is Distributions' `DimensionMismatch`.
"""
function logpdf(d::MvNormal, x::AbstractVector{<:Real})
    length(x) == length(d.μ) || throw(DimensionMismatch("inconsistent length of x and the distribution"))
    C = cholesky(d.Σ)
    z = x - d.μ
    return -(length(z) * 1.8378770664093453 + logdet(C) + dot(z, C \ z)) / 2
end
pdf(d::MvNormal, x::AbstractVector{<:Real}) = exp(logpdf(d, x))
mean(d::MvNormal) = d.μ
cov(d::MvNormal) = d.Σ
var(d::MvNormal) = diag(d.Σ)
params(d::MvNormal) = (d.μ, d.Σ)

"""
    loglikelihood(d, x)

The log-likelihood of the observations `x` under `d`: `logpdf(d, x)` of one observation, the
sum of `logpdf(d, xᵢ)` over an array of them; for an `MvNormal`, of one vector or of the
columns of a matrix. (The `Union` is Distributions' `UnivariateDistribution`, of the types
above.)
"""
loglikelihood(d::Union{Normal, LogNormal, Exponential, Gamma, Beta, Uniform, Bernoulli, Poisson, Cauchy, TDist}, x::Real) = logpdf(d, x)
loglikelihood(d::Union{Normal, LogNormal, Exponential, Gamma, Beta, Uniform, Bernoulli, Poisson, Cauchy, TDist}, x::AbstractArray{<:Real}) = sum(xi -> logpdf(d, xi), x)
loglikelihood(d::MvNormal, x::AbstractVector{<:Real}) = logpdf(d, x)
loglikelihood(d::MvNormal, x::AbstractMatrix{<:Real}) = sum(j -> logpdf(d, x[:, j]), axes(x, 2))
