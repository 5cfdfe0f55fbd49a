# zy's prelude: the part of SpecialFunctions.jl that zy has. Seen after `using
# SpecialFunctions` (its exports) or as `SpecialFunctions.name`. The functions of one Float64
# are primitives with ChainRules' derivatives (`gamma`, `digamma`, `polygamma(m, x)`, `erf`,
# `erfc`, `erfinv`, `erfcx`, `erfi`, `dawson`, `sinint`, `cosint`, `expint`, `ellipk`,
# `ellipe`, `besselj0`, `besselj1`, `bessely0`, `bessely1`, and of an order and a Float64
# `besselj`, `bessely`, `besseli`, `besselk` and the scaled `besseljx`, `besselyx`,
# `besselix`, `besselkx`, whose derivative is in `x` only: an Int argument converted, Julia's
# `DomainError` outside the domain, NaN in and NaN out); the functions SpecialFunctions builds
# from them are here, as it writes them, and zy differentiates them (`invdigamma` and the Airy
# functions with the package's rules). The incomplete gamma and beta functions (`gamma_inc`,
# `gamma(a, x)`, `loggamma(a, x)`, `expint(ν, x)`, `beta_inc`) are primitives of their
# parameters and `x` with derivatives in `x` only (ChainRules' for the gamma functions, the
# density for `beta_inc`), one in a parameter refused by name; `zeta(s)` and `zeta(s, z)`
# likewise (a derivative in `z` only).

export gamma, loggamma, gamma_inc, gamma_inc_inv, beta_inc, beta_inc_inv, expint, erf, zeta, hankelh1, hankelh2, logabsgamma, logfactorial, trigamma, beta, logbeta, logabsbeta, erfcinv, logerfc, logerfcx, invdigamma, airyai, airyaiprime, airybi, airybiprime

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

"""
    gamma_inc(a, x, IND = 0)

The regularized incomplete gamma functions `(P(a, x), Q(a, x))`, `P = γ(a, x) / Γ(a)` and
`Q = Γ(a, x) / Γ(a) = 1 - P`, of `a >= 0` and `x >= 0`, not both 0 (SpecialFunctions'
`DomainError` elsewhere), each to about 14 digits, Q keeping its digits in the tail
(`IND`, Julia's accuracy level, changes nothing). Derivatives in `x`, ChainRules':
`±exp(-x) x^(a - 1) / gamma(a)`; one in `a` is refused.
"""
function gamma_inc(a::Real, x::Real, IND::Integer = 0)
    af = float(a)
    xf = float(x)
    if af < 0.0 || xf < 0.0 || (af == 0.0 && xf == 0.0)
        throw(DomainError((af, xf, IND), "`a` and `x` must be greater than 0 ---- Domain : (0, Inf)"))
    end
    if isnan(af) || isnan(xf)
        return (af * xf, af * xf)
    elseif af == 0.0 || isinf(xf)
        return (1.0, 0.0)
    elseif xf == 0.0 || isinf(af)
        return (0.0, 1.0)
    end
    return (_gamma_inc_p(af, xf), _gamma_inc_q(af, xf))
end

"""
    gamma(a, x)

The upper incomplete gamma function `Γ(a, x) = ∫ₓ^∞ t^(a-1) e^(-t) dt` of a real `a` and
`x >= 0` (`gamma(a)` at `x = 0`), as `exp(loggamma(a, x))`. Its derivative in `x` is
`-exp(-x) x^(a - 1)`; one in `a` is refused. Below `x = 0` (complex in Julia) an
`ArgumentError`.
"""
function gamma(a::Real, x::Real)
    af = float(a)
    xf = float(x)
    xf == 0.0 && return gamma(af)
    return exp(_upper_gamma_log(af, xf, "gamma"))
end

"""
    loggamma(a, x)

`log(gamma(a, x))`, kept where `gamma(a, x)` underflows (`loggamma(2.0, 1000.0)`). Its
derivative in `x` is ChainRules' `-exp(-(x + Ω)) x^(a - 1)`.
"""
function loggamma(a::Real, x::Real)
    af = float(a)
    xf = float(x)
    xf == 0.0 && return loggamma(af)
    return _upper_gamma_log(af, xf, "loggamma")
end

# `log Γ(a, x)` of `x > 0` (`-Inf` at `Inf`, `Inf` at `a = Inf`); zy's `ArgumentError` below 0,
# where Julia's value is complex or takes a complex path.
function _upper_gamma_log(a::Float64, x::Float64, name::String)
    x < 0.0 && throw(ArgumentError("zy computes $name(a, x) of x >= 0 only"))
    isnan(a) && return a
    isinf(a) && return a > 0.0 ? Inf : -Inf
    return _log_upper_gamma(a, x)
end

"""
    expint(ν, x)

The generalized exponential integral `E_ν(x) = ∫₁^∞ exp(-xt) / tᵛ dt = x^(ν-1) Γ(1 - ν, x)`
of a real `ν` and `x >= 0`: at `x = 0` `1 / (ν - 1)` for `ν > 0`, else `Inf`. Its derivative
in `x` is `-expint(ν - 1, x)`; one in `ν` is refused. Below `x = 0` SpecialFunctions'
`DomainError` (an `ArgumentError` for an integer `ν <= 0`, where Julia's is real).
"""
function expint(ν::Real, x::Real)
    nf = float(ν)
    xf = float(x)
    if isnan(nf) || isnan(xf)
        return nf * xf
    end
    if xf < 0.0
        nf == floor(nf) && nf <= 0.0 && throw(ArgumentError("zy computes expint(ν, x) of x >= 0 only"))
        throw(DomainError(xf, "En will only return a complex result if called with a complex argument"))
    end
    if xf == 0.0
        return nf > 0.0 ? 1.0 / (nf - 1.0) : Inf
    end
    return exp((nf - 1.0) * log(xf) + _log_upper_gamma(1.0 - nf, xf))
end

# 1/√2, Julia's `1/√2` in Float64.
const _INVSQRT2 = 0.7071067811865476

"""
    erf(x, y)

`erf(y) - erf(x)`, from `erfc` where both are beyond `1/√2` on one side (so that it keeps
its digits), as SpecialFunctions computes it; its derivatives `-2 exp(-x²)/√π` and
`2 exp(-y²)/√π`.
"""
function erf(x::Real, y::Real)
    if abs(x) <= _INVSQRT2 && abs(y) <= _INVSQRT2
        return erf(y) - erf(x)
    elseif 0 <= x && 0 <= y
        return erfc(x) - erfc(y)
    elseif x <= 0 && y <= 0
        return erfc(-y) - erfc(-x)
    end
    return erf(y) - erf(x)
end

"""
    beta_inc(a, b, x, y = 1 - x)

The regularized incomplete beta function and its complement, `(I_x(a, b), 1 - I_x(a, b))`,
of `a, b >= 0` (not both 0) and `x` in `[0, 1]` (SpecialFunctions' `DomainError`s elsewhere),
the complement computed as `I_y(b, a)`. SpecialFunctions has no derivative rule for it: zy's
in `x` is the density `x^(a-1) (1-x)^(b-1) / B(a, b)`; one in `a` or `b` is refused.
"""
beta_inc(a::Real, b::Real, x::Real) = beta_inc(a, b, x, 1.0 - float(x))

function beta_inc(a::Real, b::Real, x::Real, y::Real)
    af = float(a)
    bf = float(b)
    xf = float(x)
    yf = float(y)
    if af < 0.0 || bf < 0.0
        throw(DomainError((af, bf), "a or b is negative"))
    elseif af == 0.0 && bf == 0.0
        throw(DomainError((af, bf), "a and b are 0.0"))
    elseif xf < 0.0 || xf > 1.0
        throw(DomainError(xf, "x < 0 or x > 1"))
    elseif yf < 0.0 || yf > 1.0
        throw(DomainError(yf, "y < 0 or y > 1"))
    elseif abs(xf + yf - 1.0) > 3.0 * eps(1.0)
        throw(DomainError((xf, yf), "x + y != 1.0"))
    end
    if isnan(xf) || isnan(yf) || isnan(af) || isnan(bf)
        return (NaN, NaN)
    elseif xf == 0.0
        return (0.0, 1.0)
    elseif yf == 0.0
        return (1.0, 0.0)
    elseif af == 0.0
        return (1.0, 0.0)
    elseif bf == 0.0
        return (0.0, 1.0)
    end
    return (_beta_inc(af, bf, xf), _beta_inc(bf, af, yf))
end

"""
    zeta(s), zeta(s, z)

The Riemann zeta function `ζ(s) = Σ n^(-s)` of a real `s`, continued below 1 (`zeta(0) ==
-0.5`, `zeta(-2) == 0.0`; NaN at the pole 1, as Julia's), and the Hurwitz zeta function
`ζ(s, z) = Σ (z + n)^(-s)` of `z > 0` (`zeta(s)` at `z = 0`, as SpecialFunctions has it). The
derivative in `z` is DiffRules' `-s zeta(s + 1, z)`; neither ChainRules nor DiffRules has
one in `s`: refused by name.
"""
zeta(s::Real) = _zeta(float(s), 1.0)

function zeta(s::Real, z::Real)
    sf = float(s)
    zf = float(z)
    zf == 0.0 && return zeta(sf)
    if isnan(sf) || isnan(zf)
        return NaN
    end
    zf < 0.0 && throw(ArgumentError("zy computes zeta(s, z) of z >= 0 only"))
    if isinf(sf)
        sf < 0.0 && throw(DomainError(sf, "`s` must be finite."))
        return zf > 1.0 ? 0.0 : Inf
    end
    return _zeta(sf, zf)
end

"""
    gamma_inc_inv(a, p, q)

The `x` with `gamma_inc(a, x) == (p, q)`, `p + q == 1` (else SpecialFunctions'
`ArgumentError`): `0` at `p = 0`, `Inf` at `q = 0`; by Newton's method on the smaller of the
two tails, kept inside the bracket it narrows (bisected, or doubled while no upper end is
known). Differentiable in `p` and `q` through the steps; in `a` refused, as `gamma_inc` is.
"""
function gamma_inc_inv(a::Real, p::Real, q::Real)
    af = float(a)
    pf = float(p)
    qf = float(q)
    pf + qf != 1.0 && throw(ArgumentError("p + q must equal one but is $(pf + qf)"))
    pf == 0.0 && return 0.0
    qf == 0.0 && return Inf
    lower = pf < 0.5
    # Start: the series' first term (xᵃ / Γ(a + 1) = p) for a small tail or a < 1, else
    # Wilson and Hilferty's cube of a normal quantile.
    z = lower ? -erfcinv(2 * pf) * 1.4142135623730951 : erfcinv(2 * qf) * 1.4142135623730951
    w = 1.0 - 1.0 / (9.0 * af) + z * sqrt(1.0 / (9.0 * af))
    x = af * w^3
    if af < 1.0 || w <= 0.0
        x = exp((log(lower ? pf : 1.0 - qf) + loggamma(af + 1.0)) / af)
    end
    lo = 0.0
    hi = Inf
    n = 0
    while n < 200
        n += 1
        # Increasing in x either way: P - p, or q - Q.
        f = lower ? _gamma_inc_p(af, x) - pf : qf - _gamma_inc_q(af, x)
        f == 0.0 && return x
        if f < 0.0
            lo = x
        else
            hi = x
        end
        next = x - f / exp((af - 1.0) * log(x) - x - loggamma(af))
        if !(lo < next < hi)
            next = isinf(hi) ? 2.0 * x : (lo + hi) / 2.0
        end
        abs(next - x) <= 4.0e-16 * next && return next
        x = next
    end
    return x
end

"""
    beta_inc_inv(a, b, p, q = 1 - p)

The `(x, 1 - x)` with `beta_inc(a, b, x) == (p, q)`: `(0, 1)` at `p = 0`, `(1, 0)` at
`q = 0`; by Newton's method on the smaller tail (the lower one of `I_x(a, b)`, else of
`I_{1-x}(b, a)`), kept inside the bracket it narrows. Differentiable in `p` through the
steps; in `a` and `b` refused, as `beta_inc` is.
"""
beta_inc_inv(a::Real, b::Real, p::Real) = beta_inc_inv(a, b, p, 1.0 - float(p))

function beta_inc_inv(a::Real, b::Real, p::Real, q::Real)
    af = float(a)
    bf = float(b)
    pf = float(p)
    qf = float(q)
    pf == 0.0 && return (0.0, 1.0)
    qf == 0.0 && return (1.0, 0.0)
    if pf > 0.5
        y, x = _beta_inc_root(bf, af, qf)
        return (x, y)
    end
    return _beta_inc_root(af, bf, pf)
end

# `(x, 1 - x)` with `I_x(a, b) = p`, `p <= 1/2`: Newton's method from the mean (from the
# series' first term `xᵃ / (a B(a, b)) = p` where that is smaller), kept inside `(0, 1)`.
function _beta_inc_root(a::Float64, b::Float64, p::Float64)
    lb = logbeta(a, b)
    x = min(a / (a + b), exp((log(p) + log(a) + lb) / a))
    lo = 0.0
    hi = 1.0
    n = 0
    while n < 200
        n += 1
        f = _beta_inc(a, b, x) - p
        f == 0.0 && return (x, 1.0 - x)
        if f < 0.0
            lo = x
        else
            hi = x
        end
        next = x - f / exp((a - 1.0) * log(x) + (b - 1.0) * log1p(-x) - lb)
        if !(lo < next < hi)
            next = (lo + hi) / 2.0
        end
        abs(next - x) <= 4.0e-16 * next && return (next, 1.0 - next)
        x = next
    end
    return (x, 1.0 - x)
end

"""
    hankelh1(ν, x), hankelh2(ν, x)

The Hankel functions `H⁽¹⁾ = J + iY` and `H⁽²⁾ = J - iY` of an order and `x > 0`, complex
(a `ComplexF64`). Differentiable in `x` through the Bessel functions (ChainRules'
`(H(ν-1, x) - H(ν+1, x)) / 2`), not in `ν`. Below 0, where Julia's path is complex
throughout, zy's `ArgumentError`.
"""
hankelh1(ν::Real, x::Real) = complex(besselj(ν, _hankel_x(x, "hankelh1")), bessely(ν, x))
hankelh2(ν::Real, x::Real) = complex(besselj(ν, _hankel_x(x, "hankelh2")), -bessely(ν, x))

_hankel_x(x::Real, name::String) = x > 0 ? x : throw(ArgumentError("zy computes $name(ν, x) of x > 0 only"))
