# zy's prelude: the part of Julia's Statistics that zy defines in Julia. Seen after
# `using Statistics` (its exports) or as `Statistics.name`.

export mean, mean!, var, std, median, median!, cov, cor, quantile, quantile!, varm, stdm, middle

"""
    mean(x; dims)

The arithmetic mean of the elements of `x`: `sum(x) / length(x)`, with Julia's pairwise sum.
With `dims` (a dimension, or a vector or tuple of them) the means along those dimensions of an
array of any number of dimensions, each of length one in the result: `dims = 1` (`2`) of a
matrix gives its columns' (rows') means as a 1×n (m×1) matrix.
"""
mean(x::AbstractArray; dims = Colon()) = _mean(x, dims)

_mean(x::AbstractArray, ::Colon) = sum(x) / length(x)
_mean(A::AbstractArray, dims) = _sum_dims(A, dims) ./ _dims_length(A, dims)

# The number of elements each reduction along `dims` takes: the product of the sizes of the
# distinct dimensions (`size(A, d)` is 1 beyond `ndims(A)`).
_dims_length(A, d::Int) = size(A, d)
function _dims_length(A, dims::AbstractVector{Int})
    n = 1
    for d in unique(dims)
        n *= size(A, d)
    end
    return n
end
_dims_length(A, dims::Tuple) = _dims_length(A, collect(dims))
_dims_length(A, dims::Tuple{}) = 1

"""
    mean!(r, A)

The means of the vector or matrix `A` over the dimensions where `r` has size 1, written into
`r`, which is returned: `sum!(r, A)` scaled by `length(r) / length(A)`, as Julia's.
"""
function mean!(r::Union{Vector, Matrix}, A::Union{AbstractVector, AbstractMatrix})
    sum!(r, A)
    r .*= max(1, length(r)) / length(A)
    return r
end

"""
    mean(f, x)

The mean of `f` applied to each element of `x`.
"""
mean(f, x::AbstractArray) = sum(f, x) / length(x)

"""
    mean(itr), mean(f, itr)

The mean of the values of any iterable (a generator, a tuple, a dictionary's `values`, the
slices of `eachcol`/`eachrow`: a vector of their means), `f` applied to each first; of an empty
one Julia's `ArgumentError`.
"""
# Of a range, Statistics' `(first(r) + last(r)) / 2` (`NaN` of an empty one).
mean(r::Union{Base.UnitRange{Int}, Base.StepRange{Int, Int}, Base.LinRange, Base.StepRangeLen}) =
    isempty(r) ? NaN : (first(r) + last(r)) / 2
# Of `skipmissing(x)`, Statistics' loop: the numbers added in order, over their count (of
# none, `0.0 / 0`: `NaN`).
mean(s::Base.SkipMissing{<:AbstractArray}) = sum(s) / length(collect(s))
mean(s::Base.SkipMissing) = mean(Base.SkipMissing(collect(s.x)))
# Of an array holding `missing`, `missing`.
mean(x::AbstractArray{Union{Missing, Float64}}; dims = Colon()) = _mean_missing(x, dims)
mean(x::AbstractArray{Union{Missing, Int}}; dims = Colon()) = _mean_missing(x, dims)
# Along dimensions: `missing` in the means of the slices that hold one.
_mean_missing(x::AbstractArray, ::Colon) = any(ismissing, x) ? missing : mean(skipmissing(x))
_mean_missing(x::AbstractArray, dims) = _mean(x, dims)
mean(itr) = mean(identity, itr)
mean(f, itr) = _mean_nonempty(map(f, collect(itr)))
mean(s::Union{Base.RowSlices, Base.ColumnSlices, Base.Slices}) = _mean_nonempty(s)
mean(f, s::Union{Base.RowSlices, Base.ColumnSlices, Base.Slices}) = _mean_nonempty(map(f, s))

function _mean_nonempty(xs)
    if length(xs) == 0
        throw(ArgumentError("reducing over an empty collection is not allowed; consider supplying `init` to the reducer"))
    end
    return sum(xs) / length(xs)
end

"""
    var(x; corrected = true, mean = nothing, dims)

The sample variance `sum(abs2, x .- mean(x)) / (n - 1)` (`/ n` with `corrected = false`);
with `dims` (a dimension, or a vector or tuple of them), of the elements along those
dimensions of an array of any number of dimensions, as Julia's `sum(abs2, A .- m; dims)`
times `1 / (n - 1)`. A given `mean` (a number, or with `dims` an array of the result's shape)
is used instead of computing it; of another shape it is a `DimensionMismatch`.
"""
var(x::AbstractArray; corrected::Bool = true, mean = nothing, dims = Colon()) = _var(x, corrected, mean, dims)

function _var(x::AbstractArray, corrected::Bool, m, ::Colon)
    μ = _given_mean(x, m, Colon())
    return sum(xi -> abs2(xi - μ), x) / (length(x) - Int(corrected))
end

function _var(A::AbstractArray, corrected::Bool, m, dims)
    M = _given_mean(A, m, dims)
    S = _sum_dims(abs2.(A .- M), dims)
    if size(M) != size(S)
        throw(DimensionMismatch("dimensions of the given mean $(size(M)) and of the variance $(size(S)) must match"))
    end
    return S .* (1 / (length(A) ÷ length(S) - Int(corrected)))
end

# The mean `var` centres on: the one given, or else computed.
_given_mean(A, ::Nothing, dims) = _mean(A, dims)
_given_mean(A, m, dims) = m

"""
    std(x; corrected = true, mean = nothing, dims)

The sample standard deviation, `sqrt(var(x))`, elementwise with `dims`.
"""
std(x::AbstractArray; corrected::Bool = true, mean = nothing, dims = Colon()) = _std(_var(x, corrected, mean, dims))

_std(v::Real) = sqrt(v)
_std(v::AbstractArray) = sqrt.(v)

"""
    varm(x, m; corrected = true), stdm(x, m; corrected = true)

`var` and `std` about the given mean `m`.
"""
varm(x::AbstractArray, m; corrected::Bool = true) = var(x; corrected = corrected, mean = m)
stdm(x::AbstractArray, m; corrected::Bool = true) = std(x; corrected = corrected, mean = m)

"""
    middle(x), middle(x, y), middle(a::AbstractArray)

The point halfway between: `x / 2 + y / 2` (Julia's order, which does not overflow), of the
least and greatest elements of an array, a number's own float.
"""
middle(x::Real) = (x + zero(x)) / 1
middle(x::Real, y::Real) = x / 2 + y / 2
function middle(a::AbstractArray)
    lo, hi = extrema(a)
    return middle(lo, hi)
end

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
    median!(v)

`median(v)`, leaving `v` reordered (Julia's partial sort puts the middle elements in their
sorted places and promises nothing else; zy sorts it).
"""
function median!(v::AbstractVector)
    m = median(v)
    sort!(v)
    return m
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
    cov(X; dims = 1, corrected = true)

The covariance matrix of a matrix's columns (`dims = 2`: of its rows), each a variable observed
`size(X, dims)` times: `Xc' * Xc / (n - 1)` with `Xc` the centred `X` (`/ n` with
`corrected = false`), as Julia's `covzm`.
"""
function cov(X::AbstractMatrix; dims::Int = 1, corrected::Bool = true)
    Xc = X .- mean(X; dims = dims)
    scale = size(X, dims) - Int(corrected)
    return dims == 1 ? (Xc' * Xc) ./ scale : (Xc * Xc') ./ scale
end

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

"""
    cor(X; dims = 1)

The correlation matrix of a matrix's columns (`dims = 2`: rows): the covariance over the
product of standard deviations, its diagonal exactly `1.0` and the rest clamped to `[-1, 1]`
(Julia's `cov2cor!`).
"""
function cor(X::AbstractMatrix; dims::Int = 1)
    C = cov(X; dims = dims)
    m = size(C, 1)
    s = [sqrt(C[i, i]) for i in 1:m]
    R = similar(C)
    for j in 1:m, i in 1:m
        R[i, j] = i == j ? 1.0 : clamp(C[i, j] / (s[i] * s[j]), -1.0, 1.0)
    end
    return R
end

function _same_length(x, y)
    if length(x) != length(y)
        throw(DimensionMismatch("inconsistent lengths"))
    end
    return nothing
end

"""
    quantile(x, p; sorted = false, alpha = 1.0, beta = alpha)

The sample quantile of `x` at probability `p` (at each probability of an array or tuple `p`,
in its shape), Julia's definition: with `m = alpha + p (1 - alpha - beta)` and
`aleph = n p + m` (one rounding), the `j = floor(aleph)`-th and `j + 1`-th order statistics
(`j` clamped to `1:n-1`) interpolated by `γ = aleph - j` (clamped to [0, 1]). The default
`alpha = beta = 1` is Hyndman and Fan's type 7 (R's and NumPy's); `sorted = true` takes `x` as
sorted without checking. A `p`, `alpha` or `beta` outside [0, 1], an empty `x` or a `NaN`
element is an `ArgumentError`. The order is `sortperm`'s, and the gradient reaches the two
order statistics interpolated; another iterable is collected first (a matrix stays one, which
`quantile!` does not take: Julia's `MethodError`).
"""
function quantile(x::AbstractVector, p; sorted::Bool = false, alpha::Real = 1.0,
                  beta::Real = alpha)
    return _quantiles(x, _quantile_order(x, sorted, p), p, alpha, beta)
end
quantile(itr, p; sorted::Bool = false, alpha::Real = 1.0, beta::Real = alpha) =
    quantile!(collect(itr), p; sorted = sorted, alpha = alpha, beta = beta)

"""
    quantile!(v, p; sorted = false, alpha = 1.0, beta = alpha), quantile!(q, v, p; ...)

`quantile(v, p; ...)`, leaving `v` reordered unless `sorted` (Julia's partial sort promises
only that the order statistics read are in their sorted places; zy sorts `v` whole). With
`q`, the quantiles at the probabilities of the array `p` are written into `q`, of `p`'s size
(else a `DimensionMismatch`), and `q` is returned.
"""
function quantile!(v::AbstractVector, p; sorted::Bool = false, alpha::Real = 1.0,
                   beta::Real = alpha)
    q = quantile(v, p; sorted = sorted, alpha = alpha, beta = beta)
    if !sorted && !_no_probabilities(p)
        sort!(v)
    end
    return q
end

function quantile!(q::AbstractArray, v::AbstractVector, p::AbstractArray; sorted::Bool = false,
                   alpha::Real = 1.0, beta::Real = alpha)
    if size(p) != size(q)
        throw(DimensionMismatch("size of p, $(size(p)), must equal size of q, $(size(q))"))
    end
    q .= quantile!(v, p; sorted = sorted, alpha = alpha, beta = beta)
    return q
end

# Julia checks the data only where a probability is asked for (an empty array or tuple of
# them asks for none).
_no_probabilities(p::Real) = false
_no_probabilities(p) = isempty(p)

# The indices of `x` in sorted order, a `Vector{Int}` (`1:n` when the caller says `x` is
# sorted; a range's `sortperm` is a range), after Julia's checks of the data: empty, or holding
# a `NaN`.
function _quantile_order(x, sorted::Bool, p)
    n = length(x)
    if !_no_probabilities(p)
        if n == 0
            throw(ArgumentError("empty data vector"))
        end
        for k in 1:n
            if x[k] != x[k]
                throw(ArgumentError("quantiles are undefined in presence of NaNs or missing values"))
            end
        end
    end
    if sorted
        return collect(1:n)
    end
    return collect(sortperm(x))
end

_quantiles(x, order, p::Real, alpha, beta) = _quantile(x, order, p, alpha, beta)
_quantiles(x, order, ps::AbstractArray, alpha, beta) =
    [_quantile(x, order, p, alpha, beta) for p in ps]
_quantiles(x, order, ps::Tuple, alpha, beta) = map(p -> _quantile(x, order, p, alpha, beta), ps)

# The quantile of `x` at `p`, `order` sorting `x`: interpolate between the `j`-th and
# `j + 1`-th order statistics (see `quantile`).
function _quantile(x, order, p, alpha, beta)
    if !(0 <= p <= 1)
        throw(ArgumentError("input probability out of [0,1] range"))
    end
    if !(0 <= alpha <= 1)
        throw(ArgumentError("alpha parameter out of [0,1] range"))
    end
    if !(0 <= beta <= 1)
        throw(ArgumentError("beta parameter out of [0,1] range"))
    end
    n = length(x)
    m = alpha + p * (one(alpha) - alpha - beta)
    aleph = fma(n, p, oftype(p, m))
    j = clamp(trunc(Int, aleph), 1, max(n - 1, 1))
    γ = clamp(aleph - j, 0, 1)
    a = x[order[j]]
    b = n == 1 ? a : x[order[j + 1]]
    if isfinite(a) && isfinite(b)
        return a + γ * (b - a)
    end
    return (1 - γ) * a + γ * b
end
