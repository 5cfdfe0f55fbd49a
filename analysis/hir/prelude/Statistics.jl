# zy's prelude: the part of Julia's Statistics that zy defines in Julia. Seen after
# `using Statistics` (its exports) or as `Statistics.name`.

export mean, var, std, median, cov, cor, quantile

"""
    mean(x; dims)

The arithmetic mean of the elements of `x`: `sum(x) / length(x)`, with Julia's pairwise sum.
With `dims = 1` (or `2`) the means of a matrix's columns (rows), as a 1×n (m×1) matrix.
"""
mean(x::AbstractArray; dims = Colon()) = _mean(x, dims)

_mean(x, ::Colon) = sum(x) / length(x)
_mean(A::AbstractArray, dims::Int) = _sum_dims(A, dims) ./ size(A, dims)

"""
    mean(f, x)

The mean of `f` applied to each element of `x`.
"""
mean(f, x::AbstractArray) = sum(f, x) / length(x)

"""
    var(x; corrected = true, dims)

The sample variance `sum(abs2, x .- mean(x)) / (n - 1)` (`/ n` with `corrected = false`);
with `dims`, of each column (`dims = 1`) or row (`dims = 2`) of a matrix.
"""
var(x::AbstractArray; corrected::Bool = true, dims = Colon()) = _var(x, corrected, dims)

function _var(x, corrected::Bool, ::Colon)
    m = mean(x)
    return sum(xi -> abs2(xi - m), x) / (length(x) - Int(corrected))
end

function _var(A::AbstractMatrix, corrected::Bool, dims::Int)
    M = _mean(A, dims)
    S = zeros(size(M, 1), size(M, 2))
    for j in 1:size(A, 2), i in 1:size(A, 1)
        if dims == 1
            S[1, j] += abs2(A[i, j] - M[1, j])
        else
            S[i, 1] += abs2(A[i, j] - M[i, 1])
        end
    end
    return S ./ (size(A, dims) - Int(corrected))
end

"""
    std(x; corrected = true, dims)

The sample standard deviation, `sqrt(var(x))`, elementwise with `dims`.
"""
std(x::AbstractArray; corrected::Bool = true, dims = Colon()) = _std(_var(x, corrected, dims))

_std(v::Real) = sqrt(v)
_std(v::AbstractArray) = sqrt.(v)

"""
    median(x)

The middle element of the sorted elements of `x`, or the mean of the two middle ones (as
`a / 2 + b / 2`, Julia's `middle`) for an even count; `NaN` if any element is `NaN`. An empty
`x` is an `ArgumentError`. The order is `sortperm`'s (a merge sort, O(n log n)), and the
gradient reaches the element(s) picked.
"""
function median(x::AbstractVector)
    n = length(x)
    if n == 0
        throw(ArgumentError("median of an empty array is undefined"))
    end
    for k in 1:n
        if x[k] != x[k]
            return float(x[k])
        end
    end
    p = sortperm(x)
    h = n ÷ 2
    if n % 2 == 1
        return float(x[p[h + 1]])
    end
    return x[p[h]] / 2 + x[p[h + 1]] / 2
end

"""
    cov(x, y; corrected = true), cov(x; corrected = true)

The sample covariance of two vectors, `dot(x .- mean(x), y .- mean(y)) / (n - 1)` (`/ n` with
`corrected = false`); `cov(x)` is `var(x)`. Vectors of different lengths are a
`DimensionMismatch`.
"""
function cov(x::AbstractVector, y::AbstractVector; corrected::Bool = true)
    _same_length(x, y)
    return dot(x .- mean(x), y .- mean(y)) / (length(x) - Int(corrected))
end

cov(x::AbstractVector; corrected::Bool = true) = var(x; corrected = corrected)

"""
    cor(x, y), cor(x)

Pearson's correlation of two vectors, the covariance over the product of the standard
deviations, clamped to `[-1, 1]`; `cor(x)` is `1.0`.
"""
function cor(x::AbstractVector, y::AbstractVector)
    _same_length(x, y)
    a = x .- mean(x)
    b = y .- mean(y)
    return clamp(dot(a, b) / (sqrt(sum(abs2, a)) * sqrt(sum(abs2, b))), -1.0, 1.0)
end

cor(x::AbstractVector) = 1.0

function _same_length(x, y)
    if length(x) != length(y)
        throw(DimensionMismatch("inconsistent lengths"))
    end
    return nothing
end

"""
    quantile(x, p)

The sample quantile of `x` at probability `p` (or at each probability of a vector `p`),
Julia's default definition (Hyndman and Fan's type 7): the sorted elements interpolated
linearly at `h = (n - 1) p + 1`. A `p` outside [0, 1], an empty `x` or a `NaN` element is an
`ArgumentError`; the gradient reaches the two elements interpolated.
"""
function quantile(x::AbstractVector, p::Real)
    n = length(x)
    if n == 0
        throw(ArgumentError("empty data vector"))
    end
    for k in 1:n
        if x[k] != x[k]
            throw(ArgumentError("quantiles are undefined in presence of NaNs or missing values"))
        end
    end
    return _quantile(x, sortperm(x), p)
end
quantile(x::AbstractVector, ps::AbstractVector) = (order = sortperm(x); [_quantile(x, order, p) for p in ps])

# The type-7 quantile of `x` at `p`, `order` sorting `x`: with α = β = 1, `m = 1 - p` and
# `aleph = n p + m`, interpolate between the `j`-th and `j + 1`-th order statistics.
function _quantile(x, order, p)
    if !(0 <= p <= 1)
        throw(ArgumentError("input probability out of [0,1] range"))
    end
    n = length(x)
    aleph = n * p + (1 - p)
    j = clamp(trunc(Int, aleph), 1, max(n - 1, 1))
    γ = clamp(aleph - j, 0, 1)
    a = x[order[j]]
    b = n == 1 ? a : x[order[j + 1]]
    if isfinite(a) && isfinite(b)
        return a + γ * (b - a)
    end
    return (1 - γ) * a + γ * b
end
