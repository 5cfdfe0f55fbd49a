# zy's prelude: the part of SpecialFunctions.jl that zy has. Seen after `using
# SpecialFunctions` (its exports) or as `SpecialFunctions.name`. The functions of one Float64
# are primitives with ChainRules' derivatives (`gamma`, `digamma`, `polygamma(m, x)`, `erf`,
# `erfc`, `erfinv`, `erfcx`, `erfi`, `dawson`, `sinint`, `cosint`, `expint`, `ellipk`,
# `ellipe`, `besselj0`, `besselj1`, `bessely0`, `bessely1`, and of an order and a Float64
# `besselj`, `bessely`, `besseli`, `besselk` and the scaled `besseljx`, `besselyx`,
# `besselix`, `besselkx`, whose derivative is in `x` only: an Int argument converted, Julia's
# `DomainError` outside the domain, NaN in and NaN out); the functions SpecialFunctions builds
# from them are here, as it writes them, and zy differentiates them (`invdigamma` and the Airy
# functions with the package's rules).

export gamma, loggamma, logabsgamma, logfactorial, trigamma, beta, logbeta, logabsbeta, erfcinv, logerfc, logerfcx, invdigamma, airyai, airyaiprime, airybi, airybiprime

"""
    gamma(n::Int)

The gamma function of an Int, `(n - 1)!` as a Float64 (`gamma(5) == 24.0`), `Inf` at `0`;
of a negative Int SpecialFunctions' `DomainError`. Of a Float64 it is the primitive, NaN at
the poles (a `DomainError`) and `±Inf` at `±0.0`.
"""
function gamma(n::Int)
    n < 0 && throw(DomainError(n, "`n` must not be negative."))
    n == 0 && return Inf
    return gamma(float(n))
end

"""
    logabsgamma(x)

`(log(abs(gamma(x))), sign(gamma(x)))`, the sign an Int (`1` at the poles, where the first is
`Inf`; `-1` at `-0.0`). Its derivative is `(digamma(x), nothing)`.
"""
function logabsgamma(x::Real)
    y = float(x)
    return _logabsgamma(y), _gamma_sign(y)
end

# The sign of gamma(x), as the logarithm's algorithm (fdlibm's `lgamma_r`) reports it: negative
# on (-1, 0), (-3, -2), ... and at -0.0; positive elsewhere, at the poles and at NaN.
function _gamma_sign(x::Float64)
    if x == 0.0
        return signbit(x) ? -1 : 1
    end
    if x < 0.0 && x != floor(x) && rem(floor(x), 2.0) != 0.0
        return -1
    end
    return 1
end

"""
    loggamma(x)

`log(gamma(x))` for real `x`, without the overflow of `gamma`: `loggamma(1000.0)` is
`5905.220423209181`. Where `gamma(x)` is negative a `DomainError`. Its derivative is
`digamma(x)`.
"""
function loggamma(x::Real)
    y = float(x)
    v, s = logabsgamma(y)
    s < 0 && throw(DomainError(y, "`gamma(x)` must be non-negative"))
    return v
end

"""
    logfactorial(n::Int)

`log(n!)`, `loggamma(n + 1)`; of a negative `n` a `DomainError`.
"""
function logfactorial(n::Int)
    n < 0 && throw(DomainError(n, "`x` must be non-negative."))
    return loggamma(n + 1)
end

"""
    trigamma(x)

The derivative of `digamma`, `polygamma(1, x)`.
"""
trigamma(x::Real) = polygamma(1, x)

"""
    beta(a, b)

Euler's beta function `gamma(a) gamma(b) / gamma(a + b)`, computed as `sign * exp(lab)` from
`logabsbeta(a, b)`.
"""
function beta(a::Real, b::Real)
    lab, sign = logabsbeta(a, b)
    return sign * exp(lab)
end

"""
    logbeta(a, b)

`log(beta(a, b))`; where `beta(a, b)` is negative a `DomainError`.
"""
function logbeta(a::Real, b::Real)
    lab, sign = logabsbeta(a, b)
    sign < 0 && throw(DomainError((a, b), "`beta(a, b)` must be non-negative"))
    return lab
end

"""
    logabsbeta(a, b)

`(log(abs(beta(a, b))), sign(beta(a, b)))`. For a positive `a` and `b > 8` the difference
`loggamma(a + b) - loggamma(b)` is taken from Stirling's series of each, so that it keeps its
digits (`logbeta(1, 1e10) == -log(1e10)`); elsewhere `loggamma` of each.
"""
function logabsbeta(a::Real, b::Real)
    x = float(a)
    y = float(b)
    if x > y
        x, y = y, x
    end
    if x <= 0.0 && x == floor(x)
        if x + y <= 0.0 && y == floor(y)
            return logbeta(1.0 - x - y, y), rem(y, 2.0) == 0.0 ? 1 : -1
        end
        return Inf, 1
    end
    if x > 0.0 && y > 8.0
        return loggamma(x) - _loggamma_shift(y, x), 1
    end
    ya, sa = logabsgamma(x)
    yb, sb = logabsgamma(y)
    yab, sab = logabsgamma(x + y)
    return ya + yb - yab, sa * sb * sab
end

# `loggamma(y + x) - loggamma(y)` for `y > 8`, `x > 0`: Stirling's series of each,
# `(z - 1/2) log z - z + log(2π)/2 + w(z)` with `w(z) = Σₖ B₂ₖ / (2k (2k - 1) z^(2k-1))`,
# subtracted term by term (`log(y + x) = log y + log1p(x / y)`).
function _loggamma_shift(y::Float64, x::Float64)
    return (y + x - 0.5) * log1p(x / y) + x * log(y) - x + _stirling_tail(y + x) - _stirling_tail(y)
end

function _stirling_tail(z::Float64)
    t = 1.0 / (z * z)
    return (1 / 12 + t * (-1 / 360 + t * (1 / 1260 + t * (-1 / 1680 + t * (1 / 1188 + t * (-691 / 360360)))))) / z
end

"""
    erfcinv(y)

The inverse of `erfc` on `[0, 2]`: `erfinv(1 - y)` above `0.0625`, below it a direct
inversion that keeps the digits of a small `y` (`erfcinv(1e-100)`); `Inf` at `0`, a
`DomainError` below. Its derivative is `-√π exp(erfcinv(y)²) / 2`.
"""
function erfcinv(y::Real)
    t = float(y)
    if t > 0.0625
        return erfinv(1.0 - t)
    elseif t < 0.0
        throw(DomainError(t, "`y` must be nonnegative."))
    end
    return _erfcinv_small(t)
end

"""
    logerfc(x)

`log(erfc(x))`, accurate for large `x` (through `erfcx`, where `erfc` underflows).
"""
function logerfc(x::Real)
    if x > zero(x)
        return log(erfcx(x)) - x^2
    else
        return log(erfc(x))
    end
end

"""
    logerfcx(x)

`log(erfcx(x))`, accurate for large negative `x` (through `erfc`, where `erfcx` overflows).
"""
function logerfcx(x::Real)
    if x < zero(x)
        return log(erfc(x)) + x^2
    else
        return log(erfcx(x))
    end
end

"""
    invdigamma(y)

The inverse of `digamma` on the positive half-line: the `x > 0` with `digamma(x) == y`, by
Minka's fixed-point (Newton) iteration from `exp(y) + 1/2` (from `-1/(y + γ)` below `-2.22`)
until a step is below `1e-12`, at most 25 steps. Its derivative is `1 / trigamma(x)`.
"""
invdigamma(y::Real) = _invdigamma(float(y))

function _invdigamma(y::Float64)
    x = y >= -2.22 ? exp(y) + 0.5 : -1.0 / (y - digamma(1.0))
    step = Inf
    n = 0
    while step > 1e-12 && n < 25
        n += 1
        next = x - (digamma(x) - y) / trigamma(x)
        step = abs(next - x)
        x = next
    end
    return x
end

function rrule(::typeof(_invdigamma), y::Float64)
    x = _invdigamma(y)
    d = 1.0 / trigamma(x)
    _invdigamma_pullback(x̄) = (NoTangent(), d * x̄)
    return x, _invdigamma_pullback
end
function frule(Δ, ::typeof(_invdigamma), y::Float64)
    x = _invdigamma(y)
    return x, Δ[2] / trigamma(x)
end

# The Airy functions from Bessel functions of order ±1/3 and ±2/3 at ζ = (2/3)|x|^(3/2)
# (DLMF 9.6): `K` and `I` for x > 0, `J` for x < 0; their values at 0 are the constants
# 1/(3^(2/3) Γ(2/3)), -1/(3^(1/3) Γ(1/3)), 1/(3^(1/6) Γ(2/3)), 3^(1/6)/Γ(1/3). Beyond ζ = 700
# on the positive side `airyai` and `airyaiprime` underflow to 0 and `airybi`, `airybiprime`
# overflow to Inf, as exp(∓ζ) does.
_airy_zeta(x::Float64) = 2.0 / 3.0 * abs(x) * sqrt(abs(x))

"""
    airyai(x)

The Airy function `Ai(x)`, the solution of `y'' = x y` that decays as `x → Inf`. Its
derivative is `airyaiprime(x)`.
"""
airyai(x::Real) = _airyai(float(x))

function _airyai(x::Float64)
    x == 0.0 && return 0.3550280538878172
    ζ = _airy_zeta(x)
    if x > 0.0
        ζ > 700.0 && return 0.0
        return sqrt(x / 3.0) * besselk(1 / 3, ζ) / π
    end
    return sqrt(-x) / 3.0 * (besselj(1 / 3, ζ) + besselj(-1 / 3, ζ))
end

"""
    airyaiprime(x)

The derivative of `airyai`; its own derivative is `x * airyai(x)`.
"""
airyaiprime(x::Real) = _airyaiprime(float(x))

function _airyaiprime(x::Float64)
    x == 0.0 && return -0.2588194037928068
    ζ = _airy_zeta(x)
    if x > 0.0
        ζ > 700.0 && return -0.0
        return -x / (π * sqrt(3.0)) * besselk(2 / 3, ζ)
    end
    return -x / 3.0 * (besselj(2 / 3, ζ) - besselj(-2 / 3, ζ))
end

"""
    airybi(x)

The Airy function `Bi(x)`, the solution of `y'' = x y` that grows as `x → Inf`. Its
derivative is `airybiprime(x)`.
"""
airybi(x::Real) = _airybi(float(x))

function _airybi(x::Float64)
    x == 0.0 && return 0.6149266274460007
    ζ = _airy_zeta(x)
    if x > 0.0
        ζ > 700.0 && return Inf
        return sqrt(x / 3.0) * (besseli(-1 / 3, ζ) + besseli(1 / 3, ζ))
    end
    return sqrt(-x / 3.0) * (besselj(-1 / 3, ζ) - besselj(1 / 3, ζ))
end

"""
    airybiprime(x)

The derivative of `airybi`; its own derivative is `x * airybi(x)`.
"""
airybiprime(x::Real) = _airybiprime(float(x))

function _airybiprime(x::Float64)
    x == 0.0 && return 0.4482883573538264
    ζ = _airy_zeta(x)
    if x > 0.0
        ζ > 700.0 && return Inf
        return x / sqrt(3.0) * (besseli(-2 / 3, ζ) + besseli(2 / 3, ζ))
    end
    return -x / sqrt(3.0) * (besselj(-2 / 3, ζ) + besselj(2 / 3, ζ))
end

# SpecialFunctions' rules: Ai' = airyaiprime, airyaiprime' = x Ai, and the same for Bi.
function rrule(::typeof(_airyai), x::Float64)
    d = _airyaiprime(x)
    _airyai_pullback(ȳ) = (NoTangent(), d * ȳ)
    return _airyai(x), _airyai_pullback
end
frule(Δ, ::typeof(_airyai), x::Float64) = (_airyai(x), _airyaiprime(x) * Δ[2])

function rrule(::typeof(_airyaiprime), x::Float64)
    d = x * _airyai(x)
    _airyaiprime_pullback(ȳ) = (NoTangent(), d * ȳ)
    return _airyaiprime(x), _airyaiprime_pullback
end
frule(Δ, ::typeof(_airyaiprime), x::Float64) = (_airyaiprime(x), x * _airyai(x) * Δ[2])

function rrule(::typeof(_airybi), x::Float64)
    d = _airybiprime(x)
    _airybi_pullback(ȳ) = (NoTangent(), d * ȳ)
    return _airybi(x), _airybi_pullback
end
frule(Δ, ::typeof(_airybi), x::Float64) = (_airybi(x), _airybiprime(x) * Δ[2])

function rrule(::typeof(_airybiprime), x::Float64)
    d = x * _airybi(x)
    _airybiprime_pullback(ȳ) = (NoTangent(), d * ȳ)
    return _airybiprime(x), _airybiprime_pullback
end
frule(Δ, ::typeof(_airybiprime), x::Float64) = (_airybiprime(x), x * _airybi(x) * Δ[2])
