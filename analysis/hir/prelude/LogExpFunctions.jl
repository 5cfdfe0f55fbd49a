# zy's prelude: LogExpFunctions.jl, the numerically careful compositions of `log` and `exp`
# that statistics and ML code calls. Seen after `using LogExpFunctions` (its exports) or as
# `LogExpFunctions.name`. Each is written with the package's stable branches over functions
# zy has, so zy differentiates it like user code; where the package's ChainRules extension
# gives a rule of its own (`log1pexp`, `logsumexp`, `xlogx`, `xlogy`, `xlog1py`), an `rrule`
# and an `frule` here give it too.

export log1pexp, log1mexp, log2mexp, logexpm1, logistic, logit, log1pmx, logmxp1, xlogx, xlogy, xlog1py, xexpx, xexpy, logaddexp, logsubexp, logsumexp, softmax, softmax!, softplus, invsoftplus, logcosh, logabssinh, log1psq, cloglog, cexpexp, loglogistic, logitexp, log1mlogistic, logit1mexp

"""
    xlogx(x)

`x * log(x)`, `0.0` at `x = 0` (the limit). Its derivative is `1 + log(x)`.
"""
xlogx(x::Real) = _xlogx(float(x))

function _xlogx(x::Float64)
    result = x * log(x)
    return iszero(x) ? zero(result) : result
end

function rrule(::typeof(_xlogx), x::Float64)
    d = 1.0 + log(x)
    _xlogx_pullback(ȳ) = (NoTangent(), d * ȳ)
    return _xlogx(x), _xlogx_pullback
end
frule(Δ, ::typeof(_xlogx), x::Float64) = (_xlogx(x), (1.0 + log(x)) * Δ[2])

"""
    xlogy(x, y)

`x * log(y)`, `0.0` at `x = 0` unless `y` is NaN.
"""
xlogy(x::Real, y::Real) = _xlogy(float(x), float(y))

function _xlogy(x::Float64, y::Float64)
    result = x * log(y)
    return iszero(x) && !isnan(y) ? zero(result) : result
end

# The package's partials: `log(y)` and `x / y`, the latter zero where the value is.
function _xlogy_partials(x::Float64, y::Float64)
    zeroed = iszero(x) && !isnan(y)
    return log(y), zeroed ? 0.0 : x / y
end

function rrule(::typeof(_xlogy), x::Float64, y::Float64)
    dx, dy = _xlogy_partials(x, y)
    _xlogy_pullback(ȳ) = (NoTangent(), dx * ȳ, dy * ȳ)
    return _xlogy(x, y), _xlogy_pullback
end
function frule(Δ, ::typeof(_xlogy), x::Float64, y::Float64)
    dx, dy = _xlogy_partials(x, y)
    return _xlogy(x, y), dx * Δ[2] + dy * Δ[3]
end

"""
    xlog1py(x, y)

`x * log1p(y)`, `0.0` at `x = 0` unless `y` is NaN.
"""
xlog1py(x::Real, y::Real) = _xlog1py(float(x), float(y))

function _xlog1py(x::Float64, y::Float64)
    result = x * log1p(y)
    return iszero(x) && !isnan(y) ? zero(result) : result
end

function _xlog1py_partials(x::Float64, y::Float64)
    zeroed = iszero(x) && !isnan(y)
    return log1p(y), zeroed ? 0.0 : x / (1.0 + y)
end

function rrule(::typeof(_xlog1py), x::Float64, y::Float64)
    dx, dy = _xlog1py_partials(x, y)
    _xlog1py_pullback(ȳ) = (NoTangent(), dx * ȳ, dy * ȳ)
    return _xlog1py(x, y), _xlog1py_pullback
end
function frule(Δ, ::typeof(_xlog1py), x::Float64, y::Float64)
    dx, dy = _xlog1py_partials(x, y)
    return _xlog1py(x, y), dx * Δ[2] + dy * Δ[3]
end

"""
    xexpx(x)

`x * exp(x)`, `0.0` at `x = -Inf`.
"""
function xexpx(x::Real)
    expx = exp(x)
    return iszero(expx) ? expx : x * expx
end

"""
    xexpy(x, y)

`x * exp(y)`, `0.0` where `exp(y)` underflows (unless `x` is NaN) or `x = 0` with a finite `y`.
"""
function xexpy(x::Real, y::Real)
    expy = exp(y)
    result = x * expy
    return (iszero(x) && isfinite(y)) || (iszero(expy) && !isnan(x)) ? zero(result) : result
end

"""
    logistic(x)

The logistic sigmoid `1 / (1 + exp(-x))`, exactly `0.0` below `log(nextfloat(0.0))` and
`1.0` above `53 log(2)`.
"""
logistic(x::Real) = _logistic(float(x))

function _logistic(x::Float64)
    e = exp(x)
    return x < -744.4400719213812 ? 0.0 : x > 36.7368005696771 ? 1.0 : e / (1.0 + e)
end

"""
    logit(x)

The log-odds `log(x / (1 - x))`, the inverse of `logistic`.
"""
function logit(x::Real)
    if 4 * x < 1
        return -log(inv(x) - 1)
    else
        return 2 * atanh(2 * x - 1)
    end
end

"""
    log1pexp(x)

`log(1 + exp(x))` without overflow or loss of digits (the softplus); its derivative is
`logistic(x)`.
"""
log1pexp(x::Real) = _log1pexp(float(x))

# The thresholds (the package's for Float64): below -1075 log 2 the result underflows to 0;
# below -53 log 2 it is exp(x); below 26 log 2 log1p(exp(x)); below the root of
# exp(-x) = x eps/2 it is x + exp(-x); above it x.
function _log1pexp(x::Float64)
    if x < -745.1332191019412
        return 0.0
    elseif x < -36.7368005696771
        return exp(x)
    elseif x < 18.021826694558577
        return log1p(exp(x))
    elseif x < 33.23111882352963
        return x + exp(-x)
    else
        return x
    end
end

function rrule(::typeof(_log1pexp), x::Float64)
    d = _logistic(x)
    _log1pexp_pullback(ȳ) = (NoTangent(), d * ȳ)
    return _log1pexp(x), _log1pexp_pullback
end
frule(Δ, ::typeof(_log1pexp), x::Float64) = (_log1pexp(x), _logistic(x) * Δ[2])

"""
    log1mexp(x)

`log(1 - exp(x))` for `x <= 0`, accurate at both ends (Mächler's two branches).
"""
function log1mexp(x::Real)
    if x < -0.6931471805599453
        return log1p(-exp(x))
    else
        return log(-expm1(x))
    end
end

"""
    log2mexp(x)

`log(2 - exp(x))`.
"""
log2mexp(x::Real) = log1p(-expm1(x))

"""
    logexpm1(x)

`log(exp(x) - 1)`, the inverse of `log1pexp`.
"""
logexpm1(x::Real) = x <= 18.0 ? log(expm1(x)) : x <= 33.3 ? x - exp(-x) : float(x)

"""
    softplus(x), softplus(x, a)

`log1pexp(x)`; with a sharpness `a`, `log1pexp(a x) / a`.
"""
softplus(x::Real) = log1pexp(x)
softplus(x::Real, a::Real) = log1pexp(a * x) / a

"""
    invsoftplus(y), invsoftplus(y, a)

The inverse of `softplus`: `logexpm1(y)`, `logexpm1(a y) / a`.
"""
invsoftplus(y::Real) = logexpm1(y)
invsoftplus(y::Real, a::Real) = logexpm1(a * y) / a

"""
    log1pmx(x)

`log(1 + x) - x`, accurate near 0 (where the difference cancels).
"""
log1pmx(x::Real) = _log1pmx(float(x))

function _log1pmx(x::Float64)
    if !(-0.425 < x < 0.4)
        return log1p(x) - x
    end
    # With r = x / (x + 2): log1p(x) = 2 atanh(r) = 2 Σₖ r^(2k+1) / (2k + 1) and x - 2r = r x,
    # so log1p(x) - x = 2r Σₖ₌₁ r^(2k) / (2k + 1) - r x; r² < 0.073 here, and sixteen terms
    # reach the last bit.
    r = x / (x + 2.0)
    t = r * r
    s = 0.0
    for k in 16:-1:1
        s = t * (1.0 / (2k + 1) + s)
    end
    return 2.0 * r * s - r * x
end

"""
    logmxp1(x)

`log(x) - x + 1`, accurate near 1.
"""
function logmxp1(x::Real)
    if 2 * x < 1
        return (log(x) + 1) - x
    else
        return log1pmx(x - 1)
    end
end

"""
    logaddexp(x, y)

`log(exp(x) + exp(y))` without overflow; infinities and NaN as the package handles them.
"""
function logaddexp(x::Real, y::Real)
    a = float(x)
    b = float(y)
    if a < b
        diff = a - b
        m = b
    else
        diff = a == b ? 0.0 : b - a
        m = !isnan(b) ? a : b
    end
    return m + log1pexp(diff)
end

"""
    logsubexp(x, y)

`log(abs(exp(x) - exp(y)))`.
"""
function logsubexp(x::Real, y::Real)
    a = float(x)
    b = float(y)
    Δ = a == b && (isfinite(a) || a < 0) ? 0.0 : abs(a - b)
    return max(a, b) + log1mexp(-Δ)
end

"""
    logsumexp(x; dims)

`log(sum(exp.(x)))` without overflow: shifted by the largest element (`-Inf` of an empty
array or one of `-Inf`s, `Inf` with an `Inf` element, NaN with a NaN). With `dims`,
`log.(sum(exp.(x); dims))`. Its gradient is `exp.(x .- logsumexp(x))`, the softmax.
"""
logsumexp(x::AbstractArray{<:Real}; dims = Colon()) = _logsumexp(x, dims)

function _logsumexp(x::AbstractArray{<:Real}, ::Colon)
    isempty(x) && return -Inf
    u = float(maximum(x))
    # An infinite or NaN maximum is the result; shifted by 0 the sum gives it.
    s = isfinite(u) ? u : 0.0
    return s + log(sum(exp.(x .- s)))
end

function _logsumexp(x::AbstractArray{<:Real}, dims)
    u = float.(maximum(x; dims = dims))
    s = map(v -> isfinite(v) ? v : 0.0, u)
    return s .+ log.(sum(exp.(x .- s); dims = dims))
end

function rrule(::typeof(_logsumexp), x::AbstractArray{<:Real}, dims)
    y = _logsumexp(x, dims)
    _logsumexp_pullback(ȳ) = (NoTangent(), ȳ .* exp.(x .- y), NoTangent())
    return y, _logsumexp_pullback
end
function frule(Δ, ::typeof(_logsumexp), x::AbstractArray{<:Real}, dims::Colon)
    y = _logsumexp(x, dims)
    return y, sum(exp.(x .- y) .* Δ[2])
end

"""
    softmax(x; dims)

`exp.(x)` normalised to sum to 1 (over `dims`, or all of `x`), shifted by the maximum first.
"""
softmax(x::AbstractArray{<:Real}; dims = Colon()) = _softmax(x, dims)

function _softmax(x::AbstractArray{<:Real}, ::Colon)
    r = exp.(x .- maximum(x))
    return r ./ sum(r)
end

function _softmax(x::AbstractArray{<:Real}, dims)
    r = exp.(x .- maximum(x; dims = dims))
    return r ./ sum(r; dims = dims)
end

"""
    softmax!(r, x = r; dims)

`softmax(x; dims)` written into `r`, which it returns.
"""
function softmax!(r::AbstractArray{<:Real}, x::AbstractArray{<:Real}; dims = Colon())
    size(r) == size(x) || throw(DimensionMismatch("inconsistent array sizes"))
    r .= _softmax(x, dims)
    return r
end
softmax!(r::AbstractArray{<:Real}; dims = Colon()) = softmax!(r, copy(r); dims = dims)

"""
    logcosh(x)

`log(cosh(x))` without overflow, even in `x`; its derivative is `tanh(x)`.
"""
function logcosh(x::Real)
    a = abs(float(x))
    if a < 0.7373046875
        # cosh(x) = 1 + 2 sinh(x/2)², whose log1p keeps the digits near 0.
        h = sinh(a / 2)
        return log1p(2 * h * h)
    end
    return a + log1pexp(-2 * a) - 0.6931471805599453
end

"""
    logabssinh(x)

`log(abs(sinh(x)))` without overflow.
"""
function logabssinh(x::Real)
    a = abs(float(x))
    return a + log1mexp(-2 * a) - 0.6931471805599453
end

"""
    log1psq(x)

`log(1 + x²)`, accurate for small and large `|x|`.
"""
function log1psq(x::Real)
    a = abs(float(x))
    return a < 9.007199254740992e15 ? log1p(a * a) : 2 * log(a)
end

"""
    cloglog(x)

The complementary log-log, `log(-log(1 - x))`.
"""
cloglog(x::Real) = log(-log1p(-x))

"""
    cexpexp(x)

The complementary double exponential, `1 - exp(-exp(x))`.
"""
cexpexp(x::Real) = -expm1(-exp(x))

"""
    loglogistic(x)

`log(logistic(x))`.
"""
loglogistic(x::Real) = -log1pexp(-float(x))

"""
    logitexp(x)

`logit(exp(x))`.
"""
logitexp(x::Real) = -logexpm1(-float(x))

"""
    log1mlogistic(x)

`log(1 - logistic(x))`.
"""
log1mlogistic(x::Real) = -log1pexp(x)

"""
    logit1mexp(x)

`logit(1 - exp(x))`.
"""
logit1mexp(x::Real) = logexpm1(-float(x))
