# zy's prelude: the part of Julia's Base that zy defines in Julia itself, differentiated by zy's
# AD like user code (the true primitives are in zy's primitive table). Every file sees these
# definitions, as every Julia module sees Base; a file that defines a function of the same name
# without `Base.` defines its own function, as in Julia.

"""
    abs2(x)

The squared absolute value, `x * x` for real numbers.
"""
abs2(x::Real) = x * x

"""
    MathConstants

Julia's mathematical constants by name: `MathConstants.e` (also `ℯ`), `pi` (`π`),
`eulergamma` (`γ`), `golden` (`φ`) and `catalan`, as Float64 values.
"""
module MathConstants
const e = 2.718281828459045
const ℯ = 2.718281828459045
const pi = 3.141592653589793
const π = 3.141592653589793
const eulergamma = 0.5772156649015329
const γ = 0.5772156649015329
const golden = 1.618033988749895
const φ = 1.618033988749895
const catalan = 0.915965594177219
end

# `rand` and `randn` are seen without `using Random`, as in Julia: these methods draw from
# the default generator; the Random module (Random.jl) defines the generators and the
# methods that take one.
import Random
rand() = rand(Random.default_rng())
rand(x::Type{Float64}) = rand(Random.default_rng(), x)
rand(x::UnitRange{Int}) = rand(Random.default_rng(), x)
rand(x::AbstractVector) = rand(Random.default_rng(), x)
rand(s::AbstractString) = rand(Random.default_rng(), s)
rand(x::Tuple) = rand(Random.default_rng(), x)
rand(n::Int) = rand(Random.default_rng(), n)
rand(::Type{Float64}, n::Int) = rand(Random.default_rng(), n)
rand(x::UnitRange{Int}, n::Int) = rand(Random.default_rng(), x, n)
rand(x::AbstractVector, n::Int) = rand(Random.default_rng(), x, n)
rand(::Type{Float64}, m::Int, n::Int) = rand(Random.default_rng(), m, n)
rand(x::Type{Float32}) = rand(Random.default_rng(), x)
rand(x::Type{Float32}, n::Int) = rand(Random.default_rng(), x, n)
rand(x::Type{Float32}, m::Int, n::Int) = rand(Random.default_rng(), x, m, n)
rand(m::Int, n::Int) = rand(Random.default_rng(), m, n)
randn() = randn(Random.default_rng())
randn(x::Type{Float64}) = randn(Random.default_rng())
randn(n::Int) = randn(Random.default_rng(), n)
randn(dims::Tuple) = randn(Random.default_rng(), dims)
randn(::Type{Float64}, n::Int) = randn(Random.default_rng(), n)
randn(::Type{Float64}, m::Int, n::Int) = randn(Random.default_rng(), m, n)
randn(m::Int, n::Int) = randn(Random.default_rng(), m, n)

"""
    eltype(x)

The type of the elements of an array or a range (`Float64` for a `Vector{Float64}`, `Int64`
for `1:3`), `Char` for a string, the type of a number itself.
"""
eltype(x::AbstractArray{T}) where {T} = T
eltype(x::Float64) = Float64
eltype(x::Int) = Int
eltype(x::Bool) = Bool
eltype(r::UnitRange{T}) where {T} = T
eltype(r::StepRange{T, S}) where {T, S} = T
eltype(r::StepRangeLen{T}) where {T} = T
eltype(r::LinRange{T, L}) where {T, L} = T
eltype(s::String) = Char

"""
    sec(x)

The secant, `inv(cos(x))`.
"""
sec(x::Real) = 1 / cos(x)

"""
    csc(x)

The cosecant, `inv(sin(x))`.
"""
csc(x::Real) = 1 / sin(x)

"""
    cot(x)

The cotangent, `inv(tan(x))`.
"""
cot(x::Real) = 1 / tan(x)

"""
    deg2rad(x)

`x` degrees in radians: `x * (π / 180)`.
"""
deg2rad(x::Real) = float(x) * 0.017453292519943295
deg2rad(x::Float32) = x * (3.1415927f0 / 180f0)

"""
    rad2deg(x)

`x` radians in degrees: `x * (180 / π)`.
"""
rad2deg(x::Real) = float(x) * 57.29577951308232
rad2deg(x::Float32) = x * (180f0 / 3.1415927f0)

"""
    clamp(x, lo, hi)

`x` when `lo <= x <= hi`, else the bound it lies beyond: `lo` below, `hi` above. The result
has the promoted type of the three.
"""
function clamp(x::Real, lo::Real, hi::Real)
    T = promote_type(typeof(x), typeof(lo), typeof(hi))
    return x > hi ? convert(T, hi) : (x < lo ? convert(T, lo) : convert(T, x))
end
"""
    clamp!(x, lo, hi)

Each element of the array `x` clamped to `[lo, hi]` in place (stored as `x`'s element type);
`x` itself.
"""
function clamp!(x::AbstractArray, lo, hi)
    for i in eachindex(x)
        x[i] = clamp(x[i], lo, hi)
    end
    return x
end

"""
    eps(Float64), eps()

The distance from 1.0 to the next larger Float64.
"""
eps(::Type{Float64}) = 2.220446049250313e-16
eps(::Type{Float32}) = 1.1920929f-7
eps() = eps(Float64)

"""
    typemax(T), typemin(T)

The largest and smallest values of `Float64` (±Inf) and `Int64`.
"""
typemax(::Type{Float64}) = Inf
typemin(::Type{Float64}) = -Inf
typemax(::Type{Float32}) = Float32(Inf)
typemin(::Type{Float32}) = Float32(-Inf)

"""
    Inf32, NaN32

The Float32 infinity and not-a-number.
"""
const Inf32 = Float32(Inf)
const NaN32 = Float32(NaN)
typemax(::Type{Int64}) = 9223372036854775807
typemin(::Type{Int64}) = -9223372036854775807 - 1
typemax(::Type{Int}) = typemax(Int64)
typemin(::Type{Int}) = typemin(Int64)
typemax(::Type{Int8}) = Int8(127)
typemin(::Type{Int8}) = Int8(-128)
typemax(::Type{Int16}) = Int16(32767)
typemin(::Type{Int16}) = Int16(-32768)
typemax(::Type{Int32}) = Int32(2147483647)
typemin(::Type{Int32}) = Int32(-2147483648)
typemax(::Type{UInt8}) = 0xff
typemin(::Type{UInt8}) = 0x00
typemax(::Type{UInt16}) = 0xffff
typemin(::Type{UInt16}) = 0x0000
typemax(::Type{UInt32}) = 0xffffffff
typemin(::Type{UInt32}) = 0x00000000
typemax(::Type{UInt64}) = 0xffffffffffffffff
typemin(::Type{UInt64}) = 0x0000000000000000
typemax(::Type{UInt}) = typemax(UInt64)
typemin(::Type{UInt}) = typemin(UInt64)
typemax(x::Integer) = typemax(typeof(x))
typemin(x::Integer) = typemin(typeof(x))

"""
    promote_type(S, T, ...)

The type that arithmetic on values of types `S` and `T` gives: `Float64` if either is, else
`Int64` (Julia's `Bool` of two `Bool`s is not a type value in zy).
"""
promote_type(T) = T
promote_type(S, T) = typeof(zero(S) + zero(T))
promote_type(S, T, U, rest...) = promote_type(promote_type(S, T), U, rest...)

"""
    promote(x, y)

`x` and `y` converted to their promoted type (`promote(1, 2.5) == (1.0, 2.5)`; of the
program's number types by its `promote_rule` and `convert` methods, whose absence is Julia's
`promotion of types D and Float64 failed to change any arguments`).
"""
function promote(x, y)
    T = promote_type(typeof(x), typeof(y))
    return (convert(T, x), convert(T, y))
end

"""
    promote(x, y, z)

The three converted to their promoted type (`promote(1, 2.5, 3) == (1.0, 2.5, 3.0)`).
"""
function promote(x, y, z)
    T = promote_type(typeof(x), typeof(y), typeof(z))
    return (convert(T, x), convert(T, y), convert(T, z))
end

"""
    floatmax(Float64), floatmin(Float64)

The largest finite and the smallest normal positive Float64 (also of a value's type, and of
`Float64` when no argument is given).
"""
floatmax(::Type{Float64}) = 1.7976931348623157e308
floatmin(::Type{Float64}) = 2.2250738585072014e-308
floatmax(::Type{Float32}) = 3.4028235f38
floatmin(::Type{Float32}) = 1.1754944f-38
floatmax(::Float64) = floatmax(Float64)
floatmin(::Float64) = floatmin(Float64)
floatmax() = floatmax(Float64)
floatmin() = floatmin(Float64)

# Ranges. `a:b` and `a:s:b` are calls of `:` (lowering); a range is an immutable vector whose
# elements are computed from its fields, never stored.

"""
    UnitRange{T}

`start:stop`, the integers from `start` to `stop` in steps of 1. `stop` is at least
`start - 1`: an empty range ends just before it starts.
"""
struct UnitRange{T}
    start::T
    stop::T
end

"""
    StepRange{T, S}

`start:step:stop` of integers. `stop` is the last element the steps reach (`1:2:6` ends at 5),
or one step before `start` when the range is empty.
"""
struct StepRange{T, S}
    start::T
    step::S
    stop::T
end

"""
    LinRange{T, L}

`LinRange(start, stop, len)`: `len` evenly spaced points from `start` to `stop`, the `i`th
computed as `(1 - t) * start + t * stop` with `t = (i - 1) / (len - 1)`.
"""
struct LinRange{T, L}
    start::T
    stop::T
    len::L
    lendiv::L
end

"""
    Colon()

`:` as an index: every index of its dimension (`A[:, j]`, `x[:]`).
"""
struct Colon
end

(:)(start::Int, stop::Int) = UnitRange(start, max(stop, start - 1))

function (:)(start::Int, step::Int, stop::Int)
    if step == 0
        error(:ArgumentError, "step cannot be zero")
    end
    if stop == start
        last = stop
    elseif (step > 0) != (stop > start)
        # Empty: Julia's `steprange_last_empty` ends it one before (after) the start.
        last = step > 0 ? start - 1 : start + 1
    else
        last = stop - (stop - start) % step
    end
    return StepRange(start, step, last)
end

function LinRange(start::Real, stop::Real, len::Int)
    if len < 0
        throw(ArgumentError("range($(float(start)), stop=$(float(stop)), length=$len): negative length"))
    end
    if len == 1 && start != stop
        throw(ArgumentError("range($(float(start)), stop=$(float(stop)), length=$len): endpoints differ"))
    end
    return LinRange(float(start), float(stop), len, max(len - 1, 1))
end

length(r::UnitRange{Int}) = r.stop - r.start + 1
length(r::StepRange{Int, Int}) = _step_range_empty(r) ? 0 : (r.stop - r.start) ÷ r.step + 1
# Julia's `isempty(r::StepRange)`: the stop lies on the other side of the start from the step.
_step_range_empty(r) = r.start != r.stop && ((r.step > 0) != (r.stop > r.start))
length(r::LinRange) = r.len

first(r::UnitRange{Int}) = r.start
first(r::StepRange{Int, Int}) = r.start
first(r::LinRange) = r.start
last(r::UnitRange{Int}) = r.stop
last(r::StepRange{Int, Int}) = r.stop
last(r::LinRange) = r.stop

"""
    step(r)

The difference between consecutive elements of a range.
"""
step(r::UnitRange{Int}) = 1
step(r::StepRange{Int, Int}) = r.step
step(r::LinRange) = (r.stop - r.start) / r.lendiv

# Julia's `a * r` and `r * a` of an Int and a range of Ints are `a .* r` (`arraymath.jl`): the
# `StepRangeLen` of the scaled first element and step (`5 * (1:3)` is `5:5:15`, `0 * (1:3)`
# `StepRangeLen(0, 0, 3)`); `-r` is the `StepRange` of the negated elements (`-(1:3) ==
# -1:-1:-3`).
*(a::Int, r::UnitRange{Int}) = broadcast(*, a, r)
*(a::Int, r::StepRange{Int, Int}) = broadcast(*, a, r)
*(r::UnitRange{Int}, a::Int) = broadcast(*, r, a)
*(r::StepRange{Int, Int}, a::Int) = broadcast(*, r, a)
-(r::UnitRange{Int}) = _negated_range(r)
# A Float64 times an Int range: Julia's range of the product's start and step, rationalised as
# `range(a, step = s, length = n)` is (`0.1 * (0:3)` ends at `0.3`).
*(x::Float64, r::UnitRange{Int}) = range(x * first(r), step = x, length = length(r))
*(x::Float64, r::StepRange{Int, Int}) = range(x * first(r), step = x * step(r), length = length(r))
-(r::StepRange{Int, Int}) = _negated_range(r)
_negated_range(r) = (-first(r)):(-step(r)):(-first(r) - step(r) * (length(r) - 1))

size(r::UnitRange{Int}) = (length(r),)
size(r::StepRange{Int, Int}) = (length(r),)
size(r::LinRange) = (length(r),)

function getindex(r::UnitRange{Int}, i::Int)
    if !(1 <= i <= length(r))
        throw(BoundsError(r, i))
    end
    return r.start + (i - 1)
end

function getindex(r::StepRange{Int, Int}, i::Int)
    if !(1 <= i <= length(r))
        throw(BoundsError(r, i))
    end
    return r.start + (i - 1) * r.step
end

# `r[s]` of a StepRange by a range (a view of a vector's view): Julia's range of the
# selected elements.
function getindex(r::StepRange{Int, Int}, s::Union{UnitRange{Int}, StepRange{Int, Int}})
    if !isempty(s) && !(1 <= first(s) <= length(r) && 1 <= last(s) <= length(r))
        throw(BoundsError(r, s))
    end
    return (r.start + (first(s) - 1) * r.step):(r.step * step(s)):(r.start + (last(s) - 1) * r.step)
end
getindex(r::StepRange{Int, Int}, ::Colon) = r
# Of a UnitRange by a range: Julia's range of the selected elements.
function getindex(r::UnitRange{Int}, s::UnitRange{Int})
    if !isempty(s) && !(1 <= first(s) <= length(r) && 1 <= last(s) <= length(r))
        throw(BoundsError(r, s))
    end
    start = r.start + first(s) - 1
    return start:(start + length(s) - 1)
end
function getindex(r::UnitRange{Int}, s::StepRange{Int, Int})
    if !isempty(s) && !(1 <= first(s) <= length(r) && 1 <= last(s) <= length(r))
        throw(BoundsError(r, s))
    end
    return (r.start + first(s) - 1):step(s):(r.start + last(s) - 1)
end
getindex(r::UnitRange{Int}, ::Colon) = r
# Of a range by a vector of indices: the vector of the selected elements.
getindex(r::Union{UnitRange{Int}, StepRange{Int, Int}, LinRange}, v::Vector{Int}) = [r[i] for i in v]

function getindex(r::LinRange, i::Int)
    if !(1 <= i <= r.len)
        throw(BoundsError(r, i))
    end
    return _lin_at(r, i)
end
# Julia's `lerpi`: element `i` without a bounds check.
function _lin_at(r::LinRange, i::Int)
    t = (i - 1) / r.lendiv
    return (1 - t) * r.start + t * r.stop
end

# `x[]` of an array: its only element; of any other length Julia's `BoundsError` at index `[]`.
function getindex(x::AbstractArray)
    length(x) == 1 || throw(BoundsError(x, ()))
    return x[1]
end

"""
    collect(r)

The elements of a range or of a non-empty tuple (or a copy of an array) as a new `Vector`.
"""
collect(x::Array) = copy(x)
# A tuple's elements are collected under Julia's `promote_typejoin` of their types, not promoted:
# `collect((1, 2.0))` is a `Vector{Real}` (where `[1, 2.0]` is a `Vector{Float64}`).
collect(t::Tuple) = _collect_tuple(_one_type(t), _all_real(t), t)
_collect_tuple(::Val{true}, real, t::Tuple) = [t...]
_collect_tuple(::Val{false}, ::Val{false}, t::Tuple) = [t...]
_collect_tuple(::Val{false}, ::Val{true}, t::Tuple) = _collect_reals(_all_integer(t), _all_float(t), t)
_collect_reals(::Val{false}, ::Val{false}, t::Tuple) = getindex(Real, t...)
_collect_reals(::Val{true}, float, t::Tuple) = error("unsupported: `collect` of a tuple of different integer types (Julia's `Vector{Integer}`); convert its elements to one type first")
_collect_reals(::Val{false}, ::Val{true}, t::Tuple) = error("unsupported: `collect` of a tuple of different float types (Julia's `Vector{AbstractFloat}`); convert its elements to one type first")
# Whether the elements of a tuple are of one type (of `Real`, `Integer`, `AbstractFloat`
# types), as `Val{true}()` or `Val{false}()`: decided by dispatch on the elements' types.
_one_type(::Tuple{}) = Val{true}()
_one_type(t::Tuple) = _same_rest(t[1], tail(t))
_same_rest(x, ::Tuple{}) = Val{true}()
_same_rest(x, t::Tuple) = _same_pair(x, t[1], t)
_same_pair(x::T, y::T, t::Tuple) where {T} = _same_rest(y, tail(t))
_same_pair(x, y, t::Tuple) = Val{false}()
_all_real(::Tuple{}) = Val{true}()
_all_real(t::Tuple) = _real_first(t[1], t)
_real_first(x::Real, t::Tuple) = _all_real(tail(t))
_real_first(x, t::Tuple) = Val{false}()
_all_integer(::Tuple{}) = Val{true}()
_all_integer(t::Tuple) = _integer_first(t[1], t)
_integer_first(x::Integer, t::Tuple) = _all_integer(tail(t))
_integer_first(x, t::Tuple) = Val{false}()
_all_float(::Tuple{}) = Val{true}()
_all_float(t::Tuple) = _float_first(t[1], t)
_float_first(x::AbstractFloat, t::Tuple) = _all_float(tail(t))
_float_first(x, t::Tuple) = Val{false}()
collect(r::UnitRange{Int}) = _collect(fill(0, length(r)), r)
collect(r::StepRange{Int, Int}) = _collect(fill(0, length(r)), r)
collect(r::LinRange) = _collect(zeros(length(r)), r)

function _collect(y, r)
    for k in 1:length(y)
        y[k] = r[k]
    end
    return y
end

# The sum of an integer range in closed form, exact as Julia's.
sum(r::UnitRange{Int}) = length(r) * r.start + length(r) * (length(r) - 1) ÷ 2
sum(r::StepRange{Int, Int}) = length(r) * r.start + r.step * (length(r) * (length(r) - 1) ÷ 2)
# Julia's `sum(r::AbstractRange{<:Real})`: `n first(r)` plus the steps in closed form.
function sum(r::LinRange)
    l = length(r)
    return l * first(r) + (iseven(l) ? (step(r) * (l - 1)) * (l >> 1) : (step(r) * l) * ((l - 1) >> 1))
end

# Broadcasting over a range broadcasts over its elements (Julia returns a range again for
# some operations, with the same elements).
broadcast(f, r::UnitRange{Int}) = broadcast(f, collect(r))
broadcast(f, r::StepRange) = broadcast(f, collect(r))
broadcast(f, r::LinRange) = broadcast(f, collect(r))
broadcast(f, r::Union{UnitRange{Int}, StepRange, LinRange, StepRangeLen}, y) = broadcast(f, collect(r), y)
broadcast(f, x, r::Union{UnitRange{Int}, StepRange, LinRange, StepRangeLen}) = broadcast(f, x, collect(r))
broadcast(f, r1::Union{UnitRange{Int}, StepRange, LinRange, StepRangeLen}, r2::Union{UnitRange{Int}, StepRange, LinRange, StepRangeLen}) =
    broadcast(f, collect(r1), collect(r2))
map(f, r::UnitRange{Int}) = map(f, collect(r))
map(f, r::StepRange) = map(f, collect(r))
map(f, r::LinRange) = map(f, collect(r))
# A row `x'` collected: the 1×n Matrix of its elements (a copy).
collect(r::Adjoint) = reshape(copy(r'), 1, length(r))

# A range's adjoint and transpose are the 1×n row of its elements (Julia keeps the range
# inside the wrapper; its elements cannot change, so the collected row reads the same).
adjoint(r::Union{UnitRange{Int}, StepRange{Int, Int}, LinRange, StepRangeLen}) = adjoint(collect(r))
transpose(r::Union{UnitRange{Int}, StepRange{Int, Int}, LinRange, StepRangeLen}) = transpose(collect(r))

# Indexing arrays by ranges and `:`. Julia's `x[I]` copies: every method below reduces the
# index to a StepRange of linear indices (`_slice`) or to one per dimension (a matrix block).
# The copies are differentiated element by element, each element's gradient added into the
# parent's gradient in place: a slice in a loop costs the AD its own length, not a zero array
# of the parent's shape (Zygote's rule, which makes a loop over small slices quadratic).

# The indices of dimension `d` of `A` that a range or `:` selects, as a StepRange.
_steps(A, d::Int, r::UnitRange{Int}) = StepRange(r.start, 1, r.stop)
_steps(A, d::Int, r::StepRange{Int, Int}) = r
_steps(A, d::Int, c::Colon) = StepRange(1, 1, size(A, d))

# The linear indices of `A[i, J]` (a row) and `A[I, j]` (a column). Their callers check the
# bounds first (`checkbounds`, which reads no element: a matrix of strings made with `undef`
# has none to read until it is written).
_row(A::Matrix, i::Int, J::StepRange{Int, Int}) =
    StepRange(i + (J.start - 1) * size(A, 1), J.step * size(A, 1), i + (J.stop - 1) * size(A, 1))
_column(A::Matrix, I::StepRange{Int, Int}, j::Int) =
    StepRange(I.start + (j - 1) * size(A, 1), I.step, I.stop + (j - 1) * size(A, 1))

# An array for `n` elements of `x`'s element type.
_vector(x::Array{Float64}, n::Int) = zeros(n)
_vector(x::Array{Int}, n::Int) = fill(0, n)
_vector(x::Array{Bool}, n::Int) = fill(false, n)
_matrix(x::Array{Float64}, m::Int, n::Int) = zeros(m, n)
_matrix(x::Array{Int}, m::Int, n::Int) = fill(0, m, n)
_matrix(x::Array{Bool}, m::Int, n::Int) = fill(false, m, n)
_matrix(x::Array{Union{Missing, Float64}}, m::Int, n::Int) = _zeroed(undef_objects(eltype(x), m, n), 0.0)
_matrix(x::Array{Union{Missing, Int}}, m::Int, n::Int) = _zeroed(undef_objects(eltype(x), m, n), 0)
# An array of `Union{Missing, T}` set to `T`'s zero where it held `missing`, as the slots the
# sums along a dimension add to.
function _zeroed(S::AbstractArray, z)
    for k in eachindex(S)
        S[k] = z
    end
    return S
end
# Of arrays, structs or tuples: slots the comprehension sets.
_vector(x::Array, n::Int) = undef_objects(x, n)
_matrix(x::Array, m::Int, n::Int) = undef_objects(x, m, n)

# `x[I]` for linear indices `I`: a new Vector.
function _slice(x::Array, I::StepRange{Int, Int})
    y = _vector(x, length(I))
    for k in 1:length(y)
        y[k] = x[I.start + (k - 1) * I.step]
    end
    return y
end

# Of Float64 elements: one primitive copy, whose gradient adds into the parent's in place (no
# element-by-element record). An index out of bounds raises, as the loop above would, the
# BoundsError of the first one.
_slice(x::Array{Float64}, I::StepRange{Int, Int}) = slice_copy(x, I.start, I.step, length(I))

# `A[I, J]` for a range of rows and one of columns: a new Matrix.
function _block(A::Matrix, I::StepRange{Int, Int}, J::StepRange{Int, Int})
    B = _matrix(A, length(I), length(J))
    for q in 1:length(J)
        for p in 1:length(I)
            B[p, q] = A[I.start + (p - 1) * I.step, J.start + (q - 1) * J.step]
        end
    end
    return B
end

getindex(x::Array, r::UnitRange{Int}) = (checkbounds(x, r); _slice(x, _steps(x, 1, r)))
getindex(x::Array, r::StepRange{Int, Int}) = (checkbounds(x, r); _slice(x, r))
getindex(x::Array, c::Colon) = (checkbounds(x, c); _slice(x, StepRange(1, 1, length(x))))
getindex(A::Matrix, i::Int, J::UnitRange{Int}) = (checkbounds(A, i, J); _slice(A, _row(A, i, _steps(A, 2, J))))
getindex(A::Matrix, i::Int, J::StepRange{Int, Int}) = (checkbounds(A, i, J); _slice(A, _row(A, i, J)))
getindex(A::Matrix, i::Int, J::Colon) = (checkbounds(A, i, J); _slice(A, _row(A, i, _steps(A, 2, J))))
getindex(A::Matrix, I::UnitRange{Int}, j::Int) = (checkbounds(A, I, j); _slice(A, _column(A, _steps(A, 1, I), j)))
getindex(A::Matrix, I::StepRange{Int, Int}, j::Int) = (checkbounds(A, I, j); _slice(A, _column(A, I, j)))
getindex(A::Matrix, I::Colon, j::Int) = (checkbounds(A, I, j); _slice(A, _column(A, _steps(A, 1, I), j)))
getindex(A::Matrix, I::UnitRange{Int}, J::UnitRange{Int}) = (checkbounds(A, I, J); _block(A, _steps(A, 1, I), _steps(A, 2, J)))
getindex(A::Matrix, I::UnitRange{Int}, J::StepRange{Int, Int}) = (checkbounds(A, I, J); _block(A, _steps(A, 1, I), J))
getindex(A::Matrix, I::UnitRange{Int}, J::Colon) = (checkbounds(A, I, J); _block(A, _steps(A, 1, I), _steps(A, 2, J)))
getindex(A::Matrix, I::StepRange{Int, Int}, J::UnitRange{Int}) = (checkbounds(A, I, J); _block(A, I, _steps(A, 2, J)))
getindex(A::Matrix, I::StepRange{Int, Int}, J::StepRange{Int, Int}) = (checkbounds(A, I, J); _block(A, I, J))
getindex(A::Matrix, I::StepRange{Int, Int}, J::Colon) = (checkbounds(A, I, J); _block(A, I, _steps(A, 2, J)))
getindex(A::Matrix, I::Colon, J::UnitRange{Int}) = (checkbounds(A, I, J); _block(A, _steps(A, 1, I), _steps(A, 2, J)))
getindex(A::Matrix, I::Colon, J::StepRange{Int, Int}) = (checkbounds(A, I, J); _block(A, _steps(A, 1, I), J))
getindex(A::Matrix, I::Colon, J::Colon) = (checkbounds(A, I, J); _block(A, _steps(A, 1, I), _steps(A, 2, J)))

# `x[I] = v` for linear indices `I`: the elements of `v` in order; Julia's setindex! returns x.
function _slice!(x::Array, v, I::StepRange{Int, Int})
    if length(v) != length(I)
        error(:DimensionMismatch, "the number of elements assigned differs from the number of destinations")
    end
    for k in 1:length(I)
        x[I.start + (k - 1) * I.step] = v[k]
    end
    return x
end

function _block!(A::Matrix, B, I::StepRange{Int, Int}, J::StepRange{Int, Int})
    if size(B, 1) != length(I) || size(B, 2) != length(J)
        error(:DimensionMismatch, "the shape of the assigned array differs from the destination's")
    end
    for q in 1:length(J)
        for p in 1:length(I)
            A[I.start + (p - 1) * I.step, J.start + (q - 1) * J.step] = B[p, q]
        end
    end
    return A
end

setindex!(x::Array, v, r::UnitRange{Int}) = (checkbounds(x, r); _slice!(x, v, _steps(x, 1, r)))
setindex!(x::Array, v, r::StepRange{Int, Int}) = (checkbounds(x, r); _slice!(x, v, r))
setindex!(x::Array, v, c::Colon) = (checkbounds(x, c); _slice!(x, v, StepRange(1, 1, length(x))))
setindex!(A::Matrix, v, i::Int, J::UnitRange{Int}) = (checkbounds(A, i, J); _slice!(A, v, _row(A, i, _steps(A, 2, J))))
setindex!(A::Matrix, v, i::Int, J::StepRange{Int, Int}) = (checkbounds(A, i, J); _slice!(A, v, _row(A, i, J)))
setindex!(A::Matrix, v, i::Int, J::Colon) = (checkbounds(A, i, J); _slice!(A, v, _row(A, i, _steps(A, 2, J))))
setindex!(A::Matrix, v, I::UnitRange{Int}, j::Int) = (checkbounds(A, I, j); _slice!(A, v, _column(A, _steps(A, 1, I), j)))
setindex!(A::Matrix, v, I::StepRange{Int, Int}, j::Int) = (checkbounds(A, I, j); _slice!(A, v, _column(A, I, j)))
setindex!(A::Matrix, v, I::Colon, j::Int) = (checkbounds(A, I, j); _slice!(A, v, _column(A, _steps(A, 1, I), j)))
setindex!(A::Matrix, B, I::UnitRange{Int}, J::UnitRange{Int}) = (checkbounds(A, I, J); _block!(A, B, _steps(A, 1, I), _steps(A, 2, J)))
setindex!(A::Matrix, B, I::UnitRange{Int}, J::StepRange{Int, Int}) = (checkbounds(A, I, J); _block!(A, B, _steps(A, 1, I), J))
setindex!(A::Matrix, B, I::UnitRange{Int}, J::Colon) = (checkbounds(A, I, J); _block!(A, B, _steps(A, 1, I), _steps(A, 2, J)))
setindex!(A::Matrix, B, I::StepRange{Int, Int}, J::UnitRange{Int}) = (checkbounds(A, I, J); _block!(A, B, I, _steps(A, 2, J)))
setindex!(A::Matrix, B, I::StepRange{Int, Int}, J::StepRange{Int, Int}) = (checkbounds(A, I, J); _block!(A, B, I, J))
setindex!(A::Matrix, B, I::StepRange{Int, Int}, J::Colon) = (checkbounds(A, I, J); _block!(A, B, I, _steps(A, 2, J)))
setindex!(A::Matrix, B, I::Colon, J::UnitRange{Int}) = (checkbounds(A, I, J); _block!(A, B, _steps(A, 1, I), _steps(A, 2, J)))
setindex!(A::Matrix, B, I::Colon, J::StepRange{Int, Int}) = (checkbounds(A, I, J); _block!(A, B, _steps(A, 1, I), J))
setindex!(A::Matrix, B, I::Colon, J::Colon) = (checkbounds(A, I, J); _block!(A, B, _steps(A, 1, I), _steps(A, 2, J)))

# Views: `view(x, I)` and the targets of `x[I] .= v` are windows on their parent, whose
# elements they read and write (a write through a view changes the parent, and the AD
# reverses it as any write into an array). A view holds the linear indices into the parent:
# a StepRange for a vector's range or a matrix's row or column, an array of them shaped as
# the view for blocks, slices of N-d arrays and shared reshapes (below, "Views of matrix
# blocks").

"""
    SubArray{P, I, R}

A view of the elements `indices` of the array `parent`: their linear indices, a StepRange or
an array of `Int`s whose shape is the view's. `reshaped` is `_Reshaped()` for a shared
`reshape`/`vec`/`dropdims` of an Array, which Julia types as an Array (`isa Matrix`,
`typeof`, a `::Matrix{Float64}` argument), `nothing` for a view.
"""
struct SubArray{P, I, R}
    parent::P
    indices::I
    reshaped::R
end
SubArray(parent, indices) = SubArray(parent, indices, nothing)

"""
    _Reshaped()

The mark of a SubArray that is a shared reshape of an Array: zy's stand-in for Julia's Array
sharing another's memory.
"""
struct _Reshaped
end

"""
    view(x, I...)

The elements `x[I...]` as a view of `x`: reading them reads `x`, writing them writes `x`.
"""
view(x::Array, r::UnitRange{Int}) = (checkbounds(x, r); SubArray(x, _steps(x, 1, r)))
view(x::Array, r::StepRange{Int, Int}) = (checkbounds(x, r); SubArray(x, r))
view(x::Array, c::Colon) = (checkbounds(x, c); SubArray(x, StepRange(1, 1, length(x))))
view(A::Matrix, i::Int, J::UnitRange{Int}) = (checkbounds(A, i, J); SubArray(A, _row(A, i, _steps(A, 2, J))))
view(A::Matrix, i::Int, J::StepRange{Int, Int}) = (checkbounds(A, i, J); SubArray(A, _row(A, i, J)))
view(A::Matrix, i::Int, J::Colon) = (checkbounds(A, i, J); SubArray(A, _row(A, i, _steps(A, 2, J))))
view(A::Matrix, I::UnitRange{Int}, j::Int) = (checkbounds(A, I, j); SubArray(A, _column(A, _steps(A, 1, I), j)))
view(A::Matrix, I::StepRange{Int, Int}, j::Int) = (checkbounds(A, I, j); SubArray(A, _column(A, I, j)))
view(A::Matrix, I::Colon, j::Int) = (checkbounds(A, I, j); SubArray(A, _column(A, _steps(A, 1, I), j)))
# A range viewed by a range of indices is the range `getindex` computes, as in Julia (its
# parts in `Iterators.partition(1:n, k)` are ranges).
view(r::AbstractRange, s::OrdinalRange{<:Integer}) = r[s]

# The target of `x[I] .= v` (lowering): a view of the indexed elements.
dotview(x, i) = view(x, i)
# `xs[i] .= v` of a vector of arrays writes into the element array, as Julia's `maybeview`.
dotview(x::Array{<:AbstractArray}, i::Int) = x[i]
dotview(x, i, j) = view(x, i, j)
dotview(x, i, j, k) = view(x, i, j, k)

"""
    parent(v)

The array a view looks into.
"""
parent(v::SubArray) = v.parent

"""
    parent(x'), vec(x'), sum(x'), prod(x'), maximum(x'), minimum(x'), sum(f, x'), copy(x')

A row `x'` of a vector holds `x`'s elements: `parent(x')` and `vec(x')` are `x` itself (sharing
its memory, as in Julia), a reduction of the row is that of `x`, and `copy(x')` a row of a copy.
"""
parent(r::Adjoint) = r'
vec(r::Adjoint) = r'
sum(r::Adjoint) = sum(r')
prod(r::Adjoint) = prod(r')
maximum(r::Adjoint) = maximum(r')
minimum(r::Adjoint) = minimum(r')
sum(f, r::Adjoint) = sum(f, r')
copy(r::Adjoint) = copy(r')'
# `sum(x'; dims)` and friends: those of the 1×n matrix.
_sum_dims(r::Adjoint, d::Int) = _sum_dims(permutedims(r'), d)
_reduce_dims(op, r::Adjoint, d::Int) = _reduce_dims(op, permutedims(r'), d)
# A row vector and a matrix: elementwise, as two 1×n arrays (a `DimensionMismatch` otherwise).
+(A::AbstractMatrix, r::Adjoint) = A + collect(r)
+(r::Adjoint, A::AbstractMatrix) = collect(r) + A
-(A::AbstractMatrix, r::Adjoint) = A - collect(r)
-(r::Adjoint, A::AbstractMatrix) = collect(r) - A

# `f.(x, y')` of a function that is not one primitive (inference calls these): the matrix of
# `f(x[i], y[j])`, `length(x)` by `length(y)`; flipped, `f.(y', x)`, the matrix of `f(y[j], x[i])`.
_outer_broadcast(f, x, y) = [f(x[i], y[j]) for i in 1:length(x), j in 1:length(y)]
_outer_broadcast_flipped(f, x, y) = [f(y[j], x[i]) for i in 1:length(x), j in 1:length(y)]

# `vec(E')` (lowering): of a row, its vector; of a matrix the shared reshape of the lazy `A'`
# (`_vec_shared`; untyped, as a method for `AbstractMatrix` would read the wrapper's copy).
_vec_adjoint(r::Adjoint) = r'
_vec_adjoint(a) = _vec_shared(a)

length(v::SubArray) = length(v.indices)
size(v::SubArray) = size(v.indices)
size(v::SubArray, d::Int) = d <= ndims(v.indices) ? size(v.indices, d) : 1
ndims(v::SubArray) = ndims(v.indices)
eltype(v::SubArray) = eltype(v.parent)
getindex(v::SubArray, k::Int) = v.parent[v.indices[k]]
getindex(v::SubArray, i::Int, j::Int) = v.parent[v.indices[i, j]]
getindex(v::SubArray, i::Int, j::Int, k::Int) = v.parent[v.indices[i, j, k]]
function setindex!(v::SubArray, x, i::Int, j::Int)
    v.parent[v.indices[i, j]] = x
    return v
end
function setindex!(v::SubArray, x, i::Int, j::Int, k::Int)
    v.parent[v.indices[i, j, k]] = x
    return v
end
function setindex!(v::SubArray, x, k::Int)
    v.parent[v.indices[k]] = x
    return v
end
function fill!(v::SubArray, x)
    for k in 1:length(v)
        v[k] = x
    end
    return v
end
collect(v::SubArray) = _slice(v.parent, v.indices)
copy(v::SubArray) = collect(v)
sum(v::SubArray) = sum(collect(v))
getindex(v::SubArray, r::UnitRange{Int}) = collect(v)[r]
broadcast(f, v::SubArray) = broadcast(f, collect(v))
broadcast(f, v::SubArray, y) = broadcast(f, collect(v), y)
broadcast(f, x, v::SubArray) = broadcast(f, x, collect(v))
broadcast(f, v::SubArray, w::SubArray) = broadcast(f, collect(v), collect(w))
map(f, v::SubArray) = map(f, collect(v))
# Broadcasting over a generator (`Iterators.map(f, x)`, `(g(x) for x in xs)`) broadcasts over
# its items collected, as Julia's `broadcastable` does.
broadcast(f, g::Generator) = broadcast(f, collect(g))
broadcast(f, g::Generator, y) = broadcast(f, collect(g), y)
broadcast(f, x, g::Generator) = broadcast(f, x, collect(g))
broadcast(f, g::Generator, h::Generator) = broadcast(f, collect(g), collect(h))
broadcast(f, r::UnitRange{Int}, g::Generator) = broadcast(f, collect(r), collect(g))
broadcast(f, r::StepRange{Int, Int}, g::Generator) = broadcast(f, collect(r), collect(g))
broadcast(f, r::LinRange, g::Generator) = broadcast(f, collect(r), collect(g))
broadcast(f, g::Generator, r::UnitRange{Int}) = broadcast(f, collect(g), collect(r))
broadcast(f, g::Generator, r::StepRange{Int, Int}) = broadcast(f, collect(g), collect(r))
broadcast(f, g::Generator, r::LinRange) = broadcast(f, collect(g), collect(r))

"""
    identity(x)

`x` itself.
"""
identity(x) = x

"""
    broadcast!(f, dest, v)

`dest .= f.(v)`: writes `f` of each element of `v` (or of the number `v`) into `dest`, which
is an array or a view, and returns `dest`. `v` has `dest`'s shape; a Vector into a Matrix
(broadcast along the rows) is outside zy's `.=`.
"""
function broadcast!(f, dest, v::Union{Real, Rational})
    for k in 1:length(dest)
        dest[k] = f(v)
    end
    return dest
end

function broadcast!(f, dest, v)
    _check_shape(dest, v)
    for k in 1:length(dest)
        dest[k] = f(v[k])
    end
    return dest
end

# `broadcast!(f, dest, x, y...)`: `f` broadcast over the arguments with Julia's shape rules,
# written into `dest` as `.=` writes.
broadcast!(f, dest, x, y) = broadcast!(identity, dest, f.(x, y))
broadcast!(f, dest, x, y, z) = broadcast!(identity, dest, f.(x, y, z))

_check_shape(dest::Matrix, v::Matrix) = _same_length(size(dest, 1) == size(v, 1) && size(dest, 2) == size(v, 2))
_check_shape(dest::Matrix, v::SubArray) = _same_length(size(dest) == size(v))
_check_shape(dest::SubArray, v::Matrix) = _same_length(size(dest) == size(v))
_check_shape(dest::SubArray, v::SubArray) = _same_length(size(dest) == size(v))
_check_shape(dest::SubArray, v::AbstractArray) = _same_length(size(dest) == size(v))
_check_shape(dest::Matrix, v) = error("unsupported: `.=` of a value that is not a Matrix into a Matrix")
_check_shape(dest, v::Matrix) = error(:DimensionMismatch, "cannot broadcast a Matrix into a one-dimensional destination")
_check_shape(dest, v) = _same_length(length(dest) == length(v))

function _same_length(same::Bool)
    if !same
        error(:DimensionMismatch, "the source's shape differs from the destination's in `.=`")
    end
    return nothing
end

# `x[I...]` read under `@views` (lowering): a view when an index is a range or `:`, the
# element itself when every index is a number.
maybeview(x, i) = x[i]
maybeview(x::Array, r::UnitRange{Int}) = view(x, r)
maybeview(x::Array, r::StepRange{Int, Int}) = view(x, r)
maybeview(x::Array, c::Colon) = view(x, c)
maybeview(A, i::Int, j::Int) = A[i, j]
maybeview(A::Matrix, i::Int, J::UnitRange{Int}) = view(A, i, J)
maybeview(A::Matrix, i::Int, J::StepRange{Int, Int}) = view(A, i, J)
maybeview(A::Matrix, i::Int, J::Colon) = view(A, i, J)
maybeview(A::Matrix, I::UnitRange{Int}, j::Int) = view(A, I, j)
maybeview(A::Matrix, I::StepRange{Int, Int}, j::Int) = view(A, I, j)
maybeview(A::Matrix, I::Colon, j::Int) = view(A, I, j)
maybeview(A, I, J) = view(A, I, J)
maybeview(A, i::Int, j::Int, k::Int) = A[i, j, k]
maybeview(A, I, J, K) = view(A, I, J, K)

# Reductions over tuples, as Julia's `sum(t) = +(t...)`: a left fold over the elements (each
# `+` promoting as it goes), so `sum((1, 2.5, 3))` is `(1 + 2.5) + 3`.
sum(t::Tuple) = _foldl_tuple(+, t...)
# The elementwise sum of a vector of arrays, from the left (Julia's `sum` of `Vector{Vector}`).
sum(xs::Array{<:AbstractArray}) = reduce(+, xs)
sum(f, t::Tuple) = sum(map(f, t))
# A number iterates once, as itself: its reductions are `f` of it (`sum(abs2, 0.5)`).
sum(f, x::Number) = f(x)
prod(f, x::Number) = f(x)
maximum(f, x::Number) = f(x)
minimum(f, x::Number) = f(x)
prod(f, t::Tuple) = prod(map(f, t))
maximum(f, t::Tuple) = maximum(map(f, t))
minimum(f, t::Tuple) = minimum(map(f, t))
prod(t::Tuple) = _foldl_tuple(*, t...)
prod(t::Tuple{}) = 1
maximum(t::Tuple) = _foldl_tuple(max, t...)
minimum(t::Tuple) = _foldl_tuple(min, t...)

# `Base.tail(t)` and `Base.front(t)`: a tuple without its first or its last element (Julia's
# `ArgumentError` for an empty one); `reverse(t)`: its elements the other way round. Each a
# tuple of its own element types, built by splatting.
tail(t::Tuple) = _tail(t...)
_tail(x, rest...) = rest
_tail() = throw(ArgumentError("Cannot call tail on an empty tuple."))

# `Tuple{S, T}(v)` and `NTuple{n, T}(v)` of a vector or range (lowered so, with the tuple of the
# types): Julia's tuple of the first `length(ts)` elements of `v`, each converted to its type;
# too few is Julia's `ArgumentError`, naming the type as Julia shows it.
_typed_tuple(ts::Tuple, v::AbstractVector) = _typed_tuple_of(ts, v)
_typed_tuple(ts::Tuple, r::Union{UnitRange{Int}, StepRange{Int, Int}, StepRangeLen, LinRange}) = _typed_tuple_of(ts, r)
_typed_tuple(ts::Tuple, x) = error("unsupported: `Tuple{...}(x)` of a $(typeof(x)); zy's takes a vector or a range (of a tuple, convert its elements: `map(Float64, t)`)")
function _typed_tuple_of(ts::Tuple, v)
    length(v) < length(ts) && throw(ArgumentError("too few elements for tuple type $(_tuple_type_name(ts))"))
    return _typed_tuple_from(ts, v, 1)
end
_typed_tuple_from(ts::Tuple{}, v, k::Int) = ()
_typed_tuple_from(ts::Tuple, v, k::Int) = (convert(ts[1], v[k]), _typed_tuple_from(tail(ts), v, k + 1)...)
_tuple_type_name(ts::Tuple) = length(ts) > 3 && _same_types(ts) ? "NTuple{$(length(ts)), $(ts[1])}" : "Tuple{$(_joined_types(ts))}"
_same_types(ts::Tuple{Any}) = true
_same_types(ts::Tuple) = string(ts[1]) == string(ts[2]) && _same_types(tail(ts))
_joined_types(ts::Tuple{Any}) = string(ts[1])
_joined_types(ts::Tuple) = string(ts[1]) * ", " * _joined_types(tail(ts))
front(t::Tuple) = _front((), t...)
_front(done::Tuple, x) = done
_front(done::Tuple, x, rest...) = _front((done..., x), rest...)
_front(done::Tuple) = throw(ArgumentError("Cannot call front on an empty tuple."))
reverse(t::Tuple) = _reverse_tuple((), t...)
_reverse_tuple(done::Tuple) = done
_reverse_tuple(done::Tuple, x, rest...) = _reverse_tuple((x, done...), rest...)

# Named tuples as collections of their values (Julia's `NamedTuple` iterates, reduces and
# converts through `values(nt)`, the tuple of its values; `values`, `Tuple`, `merge`,
# `haskey`, `getproperty` and `map` of named tuples are builtins, decided by the names in the type).
collect(nt::NamedTuple) = collect(values(nt))
sum(nt::NamedTuple) = sum(values(nt))
prod(nt::NamedTuple) = prod(values(nt))
maximum(nt::NamedTuple) = maximum(values(nt))
minimum(nt::NamedTuple) = minimum(values(nt))
sum(f, nt::NamedTuple) = sum(f, values(nt))
prod(f, nt::NamedTuple) = prod(f, values(nt))
maximum(f, nt::NamedTuple) = maximum(f, values(nt))
minimum(f, nt::NamedTuple) = minimum(f, values(nt))
first(nt::NamedTuple) = getfield(nt, 1)
last(nt::NamedTuple) = _last_of(values(nt)...)
_last_of(x) = x
_last_of(x, rest...) = _last_of(rest...)
get(nt::NamedTuple, k::Symbol, default) = haskey(nt, k) ? getproperty(nt, k) : default
# Julia's property interface: a value's properties are its fields unless a program's
# `Base.propertynames` method says otherwise, and `hasproperty` asks it.
propertynames(x, private::Bool = false) = fieldnames(typeof(x))
hasproperty(x, s::Symbol) = s in propertynames(x)
# `NamedTuple{names}(t)`, as the syntax passes it: the named tuple of `t`'s values.
_named_tuple_of(names::Tuple, t::Tuple) = _rename(names, t)
# `NamedTuple{names, Tuple{A, B}}(t)`, as the syntax passes it (`types` is `(A, B)`): the named
# tuple of `t`'s values, each converted to its type.
function _typed_named_tuple(names::Tuple, types::Tuple, t::Tuple)
    length(t) == length(types) || throw(ArgumentError("Wrong number of arguments to named tuple constructor."))
    return _rename(names, _converted_each(types, t))
end
_converted_each(ts::Tuple{}, t::Tuple{}) = ()
_converted_each(ts::Tuple, t::Tuple) = (convert(ts[1], t[1]), _converted_each(tail(ts), tail(t))...)
# `(; a = x, nt..., c = y)`, as the syntax passes it: the parts merged in order.
_merge_named(nts...) = merge(map(_named_part, nts)...)
_named_part(nt::NamedTuple) = nt

_foldl_tuple(op) = error(:ArgumentError, "reducing over an empty collection is not allowed; consider supplying `init` to the reducer")
_foldl_tuple(op, acc) = acc
_foldl_tuple(op, acc, x, rest...) = _foldl_tuple(op, op(acc, x), rest...)

# Comprehensions and generators. Lowering writes `[f(x) for x in xs if p(x)]` as
# `collect(Generator(x -> f(x), Filter(x -> p(x), xs)))` and iterates `for i in I, j in J`
# over `product(I, J)`, as Julia does. zy iterates by index: `_gen_elem(it, k)` is the `k`th
# element as iteration yields it, which `for` loops ask for too: `it[k]` (inference falls back
# to `getindex` where no method here applies) but for iterators whose elements are not their
# indexed values (a product, `pairs`, `enumerate`, `zip`).

"""
    Generator(f, iter)

The lazy `f(x) for x in iter`. `collect` and the reductions (`sum`, `prod`, `maximum`,
`minimum`, `any`, `all`) call `f` on the elements in order, once each.
"""
struct Generator{F, I}
    f::F
    iter::I
end

"""
    Filter(flt, iter)

The elements `x` of `iter` for which `flt(x)` holds, in order: the `if` of a comprehension.
"""
struct Filter{F, I}
    flt::F
    iter::I
end

"""
    ProductIterator{A, B}

`product(a, b)`: the tuples `(x, y)` for `x` in `a` and `y` in `b`, `x` varying fastest.
Collected, a comprehension over it is a `length(a)×length(b)` Matrix.
"""
struct ProductIterator{A, B}
    a::A
    b::B
end

"""
    Flatten(it)

The elements of the iterables that `it` yields, one after the other: several `for` clauses in
a comprehension (`[f(i, j) for i in I for j in J]`, a Vector).
"""
struct Flatten{I}
    it::I
end

"""
    product(a, b)

The iterator over the pairs of elements of `a` and `b` (`Iterators.product`).
"""
product(a, b) = ProductIterator(a, b)

length(g::Generator) = length(g.iter)
# A `for` loop asks for it (Julia's `length` of a filtered generator is a MethodError too).
length(g::Generator{F, I}) where {F, I <: Filter} = error("unsupported: a `for` loop over a generator with a filter (`for y in (f(x) for x in xs if p(x))`: zy's loops ask for its length, known only by calling the filter); test in the loop body (`for x in xs; p(x) || continue; ...`) or loop over `collect(...)` of it")
# Element `k` of a generator over an indexed iterable: `f` of its source's element `k`, so a
# `for` loop over a generator, `take` and `drop` of one call `f` once per element they read.
_gen_elem(g::Generator, k::Int) = g.f(_gen_elem(g.iter, k))

"""
    iterate(g::Generator), iterate(g::Generator, state)

Julia's iteration protocol of a generator called by hand (`itr = iterate(g)`): `f` of its
source's next item with the source's state, or `nothing` at the end; `f` runs once per item.
"""
# Annotated by a `where` variable: `for` loops over a generator keep their counted form
# (`iterate.rs` lowers loops by the `iterate` methods annotated with the struct itself).
iterate(g::G) where {G <: Generator} = _gen_next(g, iterate(g.iter))
iterate(g::G, state) where {G <: Generator} = _gen_next(g, iterate(g.iter, state))
_gen_next(g, ::Nothing) = nothing
_gen_next(g, y::Tuple) = (g.f(y[1]), y[2])

# `a, b = x` of a value inference holds as `Union{Nothing, T}`: the `T`, or Julia's error of
# iterating `nothing`.
_destructurable(x) = x
_destructurable(::Nothing) = error(:MethodError, "no method matching iterate(::Nothing)")
length(p::ProductIterator) = length(p.a) * length(p.b)
size(p::ProductIterator) = (length(p.a), length(p.b))

function _gen_elem(p::ProductIterator, k::Int)
    m = length(p.a)
    return (_gen_elem(p.a, (k - 1) % m + 1), _gen_elem(p.b, (k - 1) ÷ m + 1))
end

# The values of `f` on no elements of `it`: an empty Vector of `f`'s result type, which `map`
# infers (Julia's `collect` takes the element type from inference too; results of a call on a
# container of `Any`, each kept as it is by `_map_each`, give theirs by `_narrow_eltype`; a call
# on `Any` no type zy holds has a method for is Julia's `Any`, by `_widen_results`).
_gen_results(f, it) = _widen_results(_map_each(k -> f(_gen_elem(it, k)), fill(0, 0)), it)

# The array `collect` fills: of `f`'s result type and of the iteration's shape.
_gen_array(f, it) = _vector(_gen_results(f, it), length(it))
_gen_array(f, it::Matrix) = _matrix(_gen_results(f, it), size(it, 1), size(it, 2))
_gen_array(f, it::ProductIterator) = _matrix(_gen_results(f, it), length(it.a), length(it.b))

"""
    collect(g::Generator)

The values of a generator in an array: a comprehension `[f(x) for x in xs]`. Its shape is the
iteration's (a Matrix for a Matrix or for `for i in I, j in J`), a Vector with a filter.
"""
collect(g::Generator) = _gen_collect(g.f, g.iter)

# `T[f(x) for x in xs]`: the values converted to `T`.
collect(T::Type{Float64}, g::Generator) = _gen_convert(T, zero(Float64), collect(g))
collect(T::Type{Int64}, g::Generator) = _gen_convert(T, zero(Int64), collect(g))
collect(T::Type{Int}, g::Generator) = _gen_convert(T, zero(Int64), collect(g))
# `collect(T, x)` of an array, a range or another collection: its elements converted to `T`.
collect(T::Type{Float64}, x) = _typed_cat(T, collect(x))
collect(T::Type{Int64}, x) = _typed_cat(Int, collect(x))
collect(T::Type{Int}, x) = _typed_cat(T, collect(x))
collect(T::Type{Float64}, fl::Flatten) = _gen_convert(T, zero(Float64), collect(fl))
collect(T::Type{Int64}, fl::Flatten) = _gen_convert(T, zero(Int64), collect(fl))
collect(T::Type{Int}, fl::Flatten) = _gen_convert(T, zero(Int64), collect(fl))
# Of any other `T` (`Vector{Float64}[[1.0] for a in 1:n]`, `Any[...]`, a struct, a union), as
# Julia's `collect(T, itr)`: the values in an array of element type `T`, each `convert`ed.
collect(T::Type, g::Generator) = _convert_each(T, collect(g))
collect(T::Type, fl::Flatten) = _convert_each(T, collect(fl))
collect(T::Type, x) = _convert_each(T, collect(x))

# An array of element type `T` and `x`'s shape: each element of `x` by `convert(T, _)` (Julia's
# `MethodError` for `convert` where there is none).
function _convert_each(T, x::Vector)
    y = T[]
    for k in 1:length(x)
        push!(y, convert(T, x[k]))
    end
    return y
end
function _convert_each(T, x::Matrix)
    y = _matrix(T[], size(x, 1), size(x, 2))
    for k in 1:length(x)
        y[k] = convert(T, x[k])
    end
    return y
end

# `x` with each element converted by `T` (an `InexactError` where it cannot be), into an
# array of `z`'s type and `x`'s shape.
function _gen_convert(T, z, x)
    y = _gen_like(z, x)
    for k in 1:length(x)
        y[k] = T(x[k])
    end
    return y
end

_gen_like(z, x::Vector) = fill(z, length(x))
_gen_like(z, x::Matrix) = fill(z, size(x, 1), size(x, 2))

function _gen_collect(f, it)
    y = _gen_array(f, it)
    for k in 1:length(y)
        y[k] = f(_gen_elem(it, k))
    end
    return _narrow_eltype(y)
end

function _gen_collect(f, it::Filter)
    src = it.iter
    y = _vector(_gen_results(f, src), length(src))
    n = 0
    for k in 1:length(src)
        x = _gen_elem(src, k)
        if it.flt(x)
            n += 1
            y[n] = f(x)
        end
    end
    return _narrow_eltype(n == length(y) ? y : _slice(y, StepRange(1, 1, n)))
end

# The index of the first element of `it` from index `k` on that its filter keeps (one past the
# end if none): the filter is called once per element, in order.
function _gen_next(it::Filter, k::Int)
    n = length(it.iter)
    while k <= n && !it.flt(_gen_elem(it.iter, k))
        k += 1
    end
    return k
end

# `op(...op(op(first(y1), y2), y3)..., yn)` for the values `y` of `f` on the elements of `it`:
# Julia's `mapfoldl`, which reduces a generator from the left.
function _gen_fold(op, first, f, it)
    n = length(it)
    if n == 0
        error(:ArgumentError, "reducing over an empty collection is not allowed")
    end
    acc = first(f(_gen_elem(it, 1)))
    for k in 2:n
        acc = op(acc, f(_gen_elem(it, k)))
    end
    return acc
end

function _gen_fold(op, first, f, it::Filter)
    n = length(it.iter)
    k = _gen_next(it, 1)
    if k > n
        error(:ArgumentError, "reducing over an empty collection is not allowed")
    end
    acc = first(f(_gen_elem(it.iter, k)))
    k = _gen_next(it, k + 1)
    while k <= n
        acc = op(acc, f(_gen_elem(it.iter, k)))
        k = _gen_next(it, k + 1)
    end
    return acc
end

# `sum` adds Bools as Ints (Julia's `add_sum`).
_gen_sum_first(y) = y
_gen_sum_first(y::Bool) = Int(y)

# A generator over a tuple, whose elements may differ in type (`f(x) for f in (sin, cos)`):
# `f` called on each element by its own method, as `map(f, t)` calls it, in order.
_gen_fold(op, first, f, it::Tuple) = _gen_fold_values(op, first, map(f, it)...)
_gen_fold_values(op, first) = error(:ArgumentError, "reducing over an empty collection is not allowed")
_gen_fold_values(op, first, y, ys...) = _foldl_tuple(op, first(y), ys...)
_gen_collect(f, it::Tuple) = collect(map(f, it))
_gen_any(f, it::Tuple) = _any_each(f, it...)
_gen_all(f, it::Tuple) = _all_each(f, it...)
# Julia's `any`/`all` over a generator stop at the first element that decides.
_any_each(f) = false
_any_each(f, x, rest...) = f(x) ? true : _any_each(f, rest...)
_all_each(f) = true
_all_each(f, x, rest...) = f(x) ? _all_each(f, rest...) : false

sum(g::Generator) = _gen_fold(+, _gen_sum_first, g.f, g.iter)
prod(g::Generator) = _gen_fold(*, identity, g.f, g.iter)
maximum(g::Generator) = _gen_fold(max, identity, g.f, g.iter)
minimum(g::Generator) = _gen_fold(min, identity, g.f, g.iter)

# `reduce(op, g)`, `foldl(op, g)`, `mapreduce(f, op, g)`, `mapfoldl(f, op, g)` of a generator:
# Julia's `mapfoldl`, from the left, its first value as `reduce_first` takes it (a Bool added
# is an Int; `reduce(vcat, (x' for x in xs))` starts from the first row itself); with `init`
# the fold starts from `init`, which an empty generator gives.
reduce(op, g::Generator; init = _InitialValue()) = _gen_reduce(op, init, g.f, g.iter)
foldl(op, g::Generator; init = _InitialValue()) = _gen_reduce(op, init, g.f, g.iter)
mapreduce(f, op, g::Generator; init = _InitialValue()) = _gen_reduce(op, init, x -> f(g.f(x)), g.iter)
mapfoldl(f, op, g::Generator; init = _InitialValue()) = _gen_reduce(op, init, x -> f(g.f(x)), g.iter)
_gen_reduce(op, ::_InitialValue, f, it) = _gen_fold(op, y -> _reduce_first(op, y), f, it)
_gen_reduce(op, init, f, it) = _gen_fold_init(op, init, f, it)
_reduce_first(op, y) = y
_reduce_first(::typeof(+), y) = _gen_sum_first(y)

function _gen_fold_init(op, init, f, it)
    acc = init
    for k in 1:length(it)
        acc = op(acc, f(_gen_elem(it, k)))
    end
    return acc
end

function _gen_fold_init(op, init, f, it::Filter)
    acc = init
    n = length(it.iter)
    k = _gen_next(it, 1)
    while k <= n
        acc = op(acc, f(_gen_elem(it.iter, k)))
        k = _gen_next(it, k + 1)
    end
    return acc
end

_gen_fold_init(op, init, f, it::Tuple) = _foldl_tuple(op, init, map(f, it)...)

# With a function: the reduction of the generator of `f` composed with the generator's own.
sum(f, g::Generator) = sum(Generator(x -> f(g.f(x)), g.iter))
prod(f, g::Generator) = prod(Generator(x -> f(g.f(x)), g.iter))
maximum(f, g::Generator) = maximum(Generator(x -> f(g.f(x)), g.iter))
minimum(f, g::Generator) = minimum(Generator(x -> f(g.f(x)), g.iter))

"""
    any(g::Generator), all(g::Generator)

Whether some (every) value of the generator is `true`; they stop at the first value that
decides, as Julia's do.
"""
any(g::Generator) = _gen_any(g.f, g.iter)
all(g::Generator) = _gen_all(g.f, g.iter)
# How many of its values are `true` (Julia's `count(itr)`, a value not a Bool an error).
count(g::Generator) = count(identity, collect(g))

# Is `f(x)` true for some (every) element `x` of `it`? Stops at the first that decides; a
# value that is not a Bool is an error, as in Julia.
function _gen_any(f, it)
    for k in 1:length(it)
        if f(_gen_elem(it, k))
            return true
        end
    end
    return false
end

function _gen_all(f, it)
    for k in 1:length(it)
        if !f(_gen_elem(it, k))
            return false
        end
    end
    return true
end

function _gen_any(f, it::Filter)
    n = length(it.iter)
    k = _gen_next(it, 1)
    while k <= n
        if f(_gen_elem(it.iter, k))
            return true
        end
        k = _gen_next(it, k + 1)
    end
    return false
end

function _gen_all(f, it::Filter)
    n = length(it.iter)
    k = _gen_next(it, 1)
    while k <= n
        if !f(_gen_elem(it.iter, k))
            return false
        end
        k = _gen_next(it, k + 1)
    end
    return true
end

# Several `for` clauses: `[f(i, j) for i in I for j in J]` is
# `collect(Flatten(Generator(i -> Generator(j -> f(i, j), J), I)))`. The inner iterables'
# lengths are known only as they are made, so the elements go into a buffer that doubles.

# The iterable a filter draws from, and whether the filter keeps `x`.
_gen_source(it) = it
_gen_source(it::Filter) = it.iter
_gen_keeps(it, x) = true
_gen_keeps(it::Filter, x) = it.flt(x)

# The `k`th element of an iterable's source, as far as its type goes: what `map` needs to
# infer the element type of a nested generator (never called on elements).
_gen_probe(it, k::Int) = _gen_elem(_gen_source(it), k)
_gen_probe(g::Generator, k::Int) = g.f(_gen_probe(g.iter, k))
_gen_probe(fl::Flatten, k::Int) = _gen_probe(_gen_probe(fl.it, k), k)

# `buf[1:n]` followed by `y`, in `buf` or, when it is full, in a copy twice as long.
function _gen_push(buf, n::Int, y)
    if n == length(buf)
        bigger = _vector(buf, max(2n, 4))
        for k in 1:n
            bigger[k] = buf[k]
        end
        buf = bigger
    end
    buf[n + 1] = y
    return buf, n + 1
end

# `buf[1:n]` followed by the elements of a generator or of a flattened one.
function _gen_append(buf, n::Int, g::Generator)
    src = _gen_source(g.iter)
    for k in 1:length(src)
        x = _gen_elem(src, k)
        if _gen_keeps(g.iter, x)
            buf, n = _gen_push(buf, n, g.f(x))
        end
    end
    return buf, n
end

# Of another iterable (a vector, a range, a tuple: `Iterators.flatten` of a generator of them).
function _gen_append(buf, n::Int, xs)
    for k in 1:length(xs)
        buf, n = _gen_push(buf, n, _gen_elem(xs, k))
    end
    return buf, n
end

# Of a flattened vector of iterables: each iterable's elements in turn.
function _gen_append(buf, n::Int, fl::Flatten{V}) where {V <: AbstractVector}
    for k in 1:length(fl.it)
        buf, n = _gen_append(buf, n, fl.it[k])
    end
    return buf, n
end

function _gen_append(buf, n::Int, fl::Flatten)
    outer = fl.it
    src = _gen_source(outer.iter)
    for k in 1:length(src)
        x = _gen_elem(src, k)
        if _gen_keeps(outer.iter, x)
            buf, n = _gen_append(buf, n, outer.f(x))
        end
    end
    return buf, n
end

function collect(fl::Flatten)
    buf, n = _gen_append(_vector(map(k -> _gen_probe(fl, k), fill(0, 0)), 0), 0, fl)
    return _slice(buf, StepRange(1, 1, n))
end

sum(fl::Flatten) = _gen_fold(+, _gen_sum_first, identity, collect(fl))
prod(fl::Flatten) = _gen_fold(*, identity, identity, collect(fl))
maximum(fl::Flatten) = _gen_fold(max, identity, identity, collect(fl))
minimum(fl::Flatten) = _gen_fold(min, identity, identity, collect(fl))

# Concatenation: `[x; y]` is `vcat(x, y)`, `[x y]` is `hcat(x, y)` and `[A B; C D]` is the
# `vcat` of the `hcat` of each row; inference picks the helper below by the parts' types (a
# Matrix part makes `vcat` a Matrix). A number is a 1×1 part, a Vector of n elements an n×1
# one. The element type is the parts' promoted one.

_cat_size(x::Number, d::Int) = 1
_cat_size(x::Vector, d::Int) = d == 1 ? length(x) : 1
_cat_size(x::Matrix, d::Int) = size(x, d)

_cat_get(x::Number, i::Int, j::Int) = x
_cat_get(x::Vector, i::Int, j::Int) = x[i]
_cat_get(x::Matrix, i::Int, j::Int) = x[i, j]

_cat_zero(x::Number) = zero(x)
_cat_zero(x::Array{Float64}) = 0.0
_cat_zero(x::Array{Complex{T}}) where {T} = Complex(T(0), T(0))
_cat_zero(x::Array{Int}) = 0
_cat_zero(x::Array{Bool}) = false

_cat_promote(a, b) = zero(a + b)
_cat_promote(a::Bool, b::Bool) = false

# The zero of the parts' promoted element type.
_cat_zero_of(x) = _cat_zero(x)
_cat_zero_of(x, rest...) = _cat_promote(_cat_zero(x), _cat_zero_of(rest...))

# The parts' total extent along dimension `d`.
_cat_total(d::Int) = 0
_cat_total(d::Int, x, rest...) = _cat_size(x, d) + _cat_total(d, rest...)

function _cat_same_columns(same::Bool)
    if !same
        error(:DimensionMismatch, "number of columns of each array must match")
    end
    return nothing
end

function _cat_same_rows(same::Bool)
    if !same
        error(:DimensionMismatch, "number of rows of each array must match")
    end
    return nothing
end

# Copy the parts into `y` from row `r + 1` (`vcat`) or column `c + 1` (`hcat`) on.
_cat_rows!(y, r::Int) = y
function _cat_rows!(y, r::Int, x, rest...)
    _cat_same_columns(_cat_size(x, 2) == size(y, 2))
    for j in 1:size(y, 2)
        for i in 1:_cat_size(x, 1)
            y[r + i, j] = _cat_get(x, i, j)
        end
    end
    return _cat_rows!(y, r + _cat_size(x, 1), rest...)
end

_cat_columns!(y, c::Int) = y
function _cat_columns!(y, c::Int, x, rest...)
    _cat_same_rows(_cat_size(x, 1) == size(y, 1))
    for j in 1:_cat_size(x, 2)
        for i in 1:size(y, 1)
            y[i, c + j] = _cat_get(x, i, j)
        end
    end
    return _cat_columns!(y, c + _cat_size(x, 2), rest...)
end

_cat_vector!(y, k::Int) = y
function _cat_vector!(y, k::Int, x, rest...)
    for i in 1:_cat_size(x, 1)
        y[k + i] = _cat_get(x, i, 1)
    end
    return _cat_vector!(y, k + _cat_size(x, 1), rest...)
end

_vcat_vector(xs...) = _cat_vector!(fill(_cat_zero_of(xs...), _cat_total(1, xs...)), 0, xs...)
_vcat_matrix(x, rest...) = _cat_rows!(fill(_cat_zero_of(x, rest...), _cat_total(1, x, rest...), _cat_size(x, 2)), 0, x, rest...)
_hcat(x, rest...) = _cat_columns!(fill(_cat_zero_of(x, rest...), _cat_size(x, 1), _cat_total(2, x, rest...)), 0, x, rest...)
# `vcat` and `hcat` with an array of Julia's `Any` (or `Real`, ...) among the parts: unset slots
# of the element type of `proto`, which holds every part's elements (inference joins them), filled.
_vcat_open(proto, xs...) = _cat_vector!(undef_objects(proto, _cat_total(1, xs...)), 0, xs...)
_vcat_open_matrix(proto, x, rest...) = _cat_rows!(undef_objects(proto, _cat_total(1, x, rest...), _cat_size(x, 2)), 0, x, rest...)
_hcat_open(proto, x, rest...) = _cat_columns!(undef_objects(proto, _cat_size(x, 1), _cat_total(2, x, rest...)), 0, x, rest...)
# The block rows of `[A B; C D]` or `[A; B C]`, each already one matrix, stacked: Julia's
# `hvcat` asks every block row to be as wide as the first.
function _hvcat_stack(x, rest...)
    _hvcat_widths(_cat_size(x, 2), 2, rest...)
    return _vcat_matrix(x, rest...)
end
_hvcat_widths(nc::Int, i::Int) = nothing
function _hvcat_widths(nc::Int, i::Int, x, rest...)
    _cat_size(x, 2) == nc || throw(DimensionMismatch("block row $(i) has mismatched number of columns (expected $(nc), got $(_cat_size(x, 2)))"))
    return _hvcat_widths(nc, i + 1, rest...)
end

# Reductions with a function, folds and scans. Julia reduces arrays of fewer than 1024
# elements left to right (its pairwise blocks are 1024 long), as these loops do.

function _nonempty(x)
    if length(x) == 0
        _empty_reduce_error()
    end
    return nothing
end

_empty_reduce_error() = throw(ArgumentError("reducing over an empty collection is not allowed; consider supplying `init` to the reducer"))

# Julia's `mapreduce_empty` and `reduce_empty`: what a reduction without `init` gives for no
# elements, by the function, the operator and the element type: `zero` for `+` and `one` for
# `*` of Float64, Int and Bool elements (`+` of Bools counts in Int), `abs` and `abs2` of
# those, and `abs`/`abs2` under `max` start at zero; anything else is the `ArgumentError` above
# (`_nonempty` raises it: what follows only types the method as the fold's value).
_mapreduce_empty(f, op, x) = (_nonempty(x); f(x[1]))
_mapreduce_empty(::typeof(identity), op, x) = _reduce_empty(op, x)
_mapreduce_empty(::typeof(abs), op, x) = abs(_reduce_empty(op, x))
_mapreduce_empty(::typeof(abs2), op, x) = abs2(_reduce_empty(op, x))
_mapreduce_empty(::typeof(abs), ::typeof(max), x::AbstractArray{Float64}) = 0.0
_mapreduce_empty(::typeof(abs2), ::typeof(max), x::AbstractArray{Float64}) = 0.0
_mapreduce_empty(::typeof(abs), ::typeof(max), x::AbstractArray{Int}) = 0
_mapreduce_empty(::typeof(abs2), ::typeof(max), x::AbstractArray{Int}) = 0
_reduce_empty(op, x) = (_nonempty(x); x[1])
_reduce_empty(::typeof(+), x::AbstractArray{Float64}) = 0.0
_reduce_empty(::typeof(+), x::AbstractArray{Int}) = 0
_reduce_empty(::typeof(+), x::AbstractArray{Bool}) = 0
_reduce_empty(::typeof(*), x::AbstractArray{Float64}) = 1.0
_reduce_empty(::typeof(*), x::AbstractArray{Int}) = 1
_reduce_empty(::typeof(*), x::AbstractArray{Bool}) = true

"""
    _InitialValue()

The `init` of a reduction called without one (Julia's `Base._InitialValue`): the fold starts
from the first element, and an empty collection is an `ArgumentError`.
"""
struct _InitialValue
end

"""
    mapreduce(f, op, x; init)

`op(...op(op(f(x[1]), f(x[2])), ...), f(x[end]))`: `f` applied to each element, combined
with `op` from the left. With `init`, the fold starts from it, `op(op(init, f(x[1])), ...)`,
and an empty `x` gives `init`; without, an empty `x` is an `ArgumentError`.
"""
mapreduce(f, op, x::AbstractArray; init = _InitialValue()) = _mapfoldl(f, op, init, x)
# A string folds its characters, as Julia iterates it.
mapreduce(f, op, s::AbstractString; init = _InitialValue()) = _mapfoldl(f, op, init, collect(s))
reduce(op, s::AbstractString; init = _InitialValue()) = _mapfoldl(identity, op, init, collect(s))
foldl(op, s::AbstractString; init = _InitialValue()) = _mapfoldl(identity, op, init, collect(s))
maximum(f, s::AbstractString) = mapreduce(f, max, s)
minimum(f, s::AbstractString) = mapreduce(f, min, s)
# Of several arrays: Julia's `reduce(op, map(f, a, b...))`, `f` of the elements at each index.
mapreduce(f, op, a::AbstractArray, bs::AbstractArray...; init = _InitialValue()) =
    _mapfoldl(identity, op, init, map(f, a, bs...))

"""
    mapfoldl(f, op, x; init), mapfoldr(f, op, x; init)

`mapreduce` from the left (the same order), and from the right:
`op(f(x[1]), op(f(x[2]), ...op(f(x[end]), init)))`.
"""
mapfoldl(f, op, x::AbstractArray; init = _InitialValue()) = _mapfoldl(f, op, init, x)
mapfoldr(f, op, x::AbstractArray; init = _InitialValue()) = _mapfoldr(f, op, init, x)

function _mapfoldl(f, op, ::_InitialValue, x)
    length(x) == 0 && return _mapreduce_empty(f, op, x)
    v = f(x[1])
    for k in 2:length(x)
        v = op(v, f(x[k]))
    end
    return v
end

function _mapfoldl(f, op, init, x)
    v = init
    for k in 1:length(x)
        v = op(v, f(x[k]))
    end
    return v
end

# Products of Float32 matrices and vectors: each entry the Float64 dot product rounded once
# (BLAS's single-precision sums may differ in the last bit); with a Float64 operand, Float64.
*(A::Matrix{Float32}, x::Vector{Float32}) = Float32.(Float64.(A) * Float64.(x))
*(A::Matrix{Float32}, B::Matrix{Float32}) = Float32.(Float64.(A) * Float64.(B))
*(A::Matrix{Float32}, x::Vector{Float64}) = Float64.(A) * x
*(A::Matrix{Float64}, x::Vector{Float32}) = A * Float64.(x)
# `dot` of Float32 vectors likewise, and the transpose of a Float32 matrix (exact).
dot(x::Vector{Float32}, y::Vector{Float32}) = Float32(dot(Float64.(x), Float64.(y)))
_transpose_copy(A::Matrix{Float32}) = Float32.(_transpose_copy(Float64.(A)))
# `A \ b` of Float32s (square or least squares): the Float64 solution rounded once (LAPACK's
# single-precision one is within the condition number times eps(Float32) of it, not always the
# same bits).
(\)(A::Matrix{Float32}, b::Vector{Float32}) = Float32.(Float64.(A) \ Float64.(b))
(\)(A::Matrix{Float32}, B::Matrix{Float32}) = Float32.(Float64.(A) \ Float64.(B))
# `sum`, `prod`, `maximum` and `minimum` of a Float32 matrix along `dims`: the Float64 ones
# rounded once (Julia's adds a column in SIMD lanes or pairwise, a row from the left: a last bit
# apart at most; `maximum` and `minimum` exact).
_sum_dims(A::Matrix{Float32}, d::Int) = Float32.(_sum_dims(Float64.(A), d))
_reduce_dims(op, A::Matrix{Float32}, d::Int) = Float32.(_reduce_dims(op, Float64.(A), d))
# The row `x'` of a Float32 vector (its own adjoint, real): times a vector the `dot`, times a
# matrix the row of `Aᵀ x`, a vector times it the outer product; a Float64 operand promotes.
*(r::Adjoint{Float32, Vector{Float32}}, y::Vector{Float32}) = dot(r', y)
*(r::Adjoint{Float32, Vector{Float32}}, y::Vector{Float64}) = dot(Float64.(r'), y)
*(r::Adjoint{Float64, Vector{Float64}}, y::Vector{Float32}) = dot(r', Float64.(y))
*(r::Adjoint{Float32, Vector{Float32}}, A::Matrix{Float32}) = (_transpose_copy(A) * r')'
*(r::Adjoint{Float32, Vector{Float32}}, A::Matrix{Float64}) = Float64.(r')' * A
*(x::Vector{Float32}, r::Adjoint{Float32, Vector{Float32}}) = Float32.(Float64.(x) * Float64.(r')')
# The row of a vector of fixed-width integers times such a vector: their `dot`, in their own
# type (wrapping as Julia's `Int8` arithmetic does).
*(r::Adjoint{T, Vector{T}}, y::Vector{T}) where {T<:Integer} = _int_dot(r', y)
function _int_dot(x, y)
    length(x) == length(y) || throw(DimensionMismatch("first array has length $(length(x)) which does not match the length of the second, $(length(y))."))
    s = zero(eltype(x)) * zero(eltype(y))
    for i in 1:length(x)
        s += x[i] * y[i]
    end
    return s
end

# `sum`, `prod`, `maximum` and `minimum` of an array of Float32s or fixed-width integers, `z`
# the zero or one of Julia's `add_sum`/`mul_prod` type (a small integer's Int64 or UInt64; a
# Float32's own, from the first element itself, so that `sum(Float32[-0.0])` is `-0.0f0`).
_sized_sum(x, z) = isempty(x) ? z : _sized_fold(+, x, oftype(z, x[1]))
_sized_prod(x, z) = isempty(x) ? z : _sized_fold(*, x, oftype(z, x[1]))
_sized_maximum(x, z) = _sized_fold(max, x, _sized_first(x))
_sized_minimum(x, z) = _sized_fold(min, x, _sized_first(x))
function _sized_first(x)
    isempty(x) && throw(ArgumentError("reducing over an empty collection is not allowed; consider supplying `init` to the reducer"))
    return x[1]
end
function _sized_fold(op, x, s)
    for k in 2:length(x)
        s = op(s, x[k])
    end
    return s
end

# `sum`, `prod`, `maximum` and `minimum` of a container of `Any`, `Real` or `Number`, named by
# `T` (inference hands them here): Julia's fold from the left, each step dispatched on the
# elements' own types (`sum` counts a first `Bool` as an `Int`, as Julia's `add_sum`). Empty,
# `sum` and `prod` have no `zero` or `one` of the element type, as in Julia.
function _open_sum(x, T)
    isempty(x) && _open_empty(:zero, T)
    s = _sum_first(x[1])
    for k in 2:length(x)
        s = s + x[k]
    end
    return s
end
_sum_first(v) = v
_sum_first(v::Bool) = Int(v)
# `sum(f, x)` of an `f` whose values differ in type by element: the same fold of `f`'s values.
function _open_mapsum(f, x)
    isempty(x) && return _mapreduce_empty(f, +, x)
    s = _sum_first(f(x[1]))
    for k in 2:length(x)
        s = s + f(x[k])
    end
    return s
end
function _open_prod(x, T)
    isempty(x) && _open_empty(:one, T)
    return _mapfoldl(identity, *, _InitialValue(), x)
end
function _open_empty(f, T)
    f === :zero || T !== :Any || error(:MethodError, "no method matching one(::Type{Any})")
    f === :zero || T !== :Real || error(:MethodError, "no method matching one(::Type{Real})")
    f === :zero || error(:MethodError, "no method matching one(::Type{Number})")
    T !== :Any || error(:MethodError, "no method matching zero(::Type{Any})")
    T !== :Real || error(:MethodError, "no method matching zero(::Type{Real})")
    error(:MethodError, "no method matching zero(::Type{Number})")
end
_open_maximum(x, T) = _mapfoldl(identity, max, _InitialValue(), x)
_open_minimum(x, T) = _mapfoldl(identity, min, _InitialValue(), x)

function _mapfoldr(f, op, ::_InitialValue, x)
    length(x) == 0 && return _mapreduce_empty(f, op, x)
    n = length(x)
    v = f(x[n])
    for k in n-1:-1:1
        v = op(f(x[k]), v)
    end
    return v
end

function _mapfoldr(f, op, init, x)
    v = init
    for k in length(x):-1:1
        v = op(f(x[k]), v)
    end
    return v
end

"""
    reduce(op, x; init)

The elements of `x` combined with `op` from the left: `mapreduce(identity, op, x; init)`.
"""
reduce(op, x::AbstractArray; init = _InitialValue()) = _mapfoldl(identity, op, init, x)

# `reduce(hcat, xs)` of a vector of vectors: the matrix whose columns they are (Julia's own
# method; a left fold would change the type on its first step, and of one vector give it
# back rather than the one-column matrix).
function reduce(::typeof(hcat), xs::Vector{Vector{T}}) where {T}
    n = length(xs)
    if n == 0
        throw(ArgumentError("reducing over an empty collection is not allowed; consider supplying `init` to the reducer"))
    end
    m = length(xs[1])
    A = Matrix{T}(undef, m, n)
    for j in 1:n
        if length(xs[j]) != m
            throw(DimensionMismatch("mismatch in dimension 1 (expected $m got $(length(xs[j])))"))
        end
        A[:, j] = xs[j]
    end
    return A
end

# Of a vector of views (`collect(eachcol(A))`): those of the vector of their elements' copies.
reduce(::typeof(hcat), xs::Vector{<:SubArray}) = reduce(hcat, map(collect, xs))
reduce(::typeof(vcat), xs::Vector{<:SubArray}) = reduce(vcat, map(collect, xs))

# `reduce(vcat, rows)` of a vector of rows (`rows = [v' for v in vs]`): the matrix whose rows
# they are, Julia's method for a vector of arrays (a left fold would change the type on its
# first step).
reduce(::typeof(vcat), rows::Vector{<:Union{Adjoint, Transpose}}) = _stack_rows(identity, rows, false)

"""
    foldl(op, x; init)

`op(...op(op(x[1], x[2]), x[3])..., x[end])`; with `init`, `op(...op(init, x[1])..., x[end])`.
"""
foldl(op, x::AbstractArray; init = _InitialValue()) = _mapfoldl(identity, op, init, x)

"""
    foldr(op, x; init)

`op(x[1], op(x[2], ...op(x[end-1], x[end])))`; with `init`, `op(x[1], ...op(x[end], init))`.
"""
foldr(op, x::AbstractArray; init = _InitialValue()) = _mapfoldr(identity, op, init, x)

"""
    maximum(f, x), minimum(f, x)

The largest (smallest) of `f` applied to each element of `x`, as `max` (`min`) compares.
"""
maximum(f, x::AbstractArray) = mapreduce(f, max, x)
minimum(f, x::AbstractArray) = mapreduce(f, min, x)

"""
    prod(f, x)

The product of `f` applied to each element of `x`, from the left.
"""
prod(f, x::AbstractArray) = mapreduce(f, *, x)

"""
    any(f, x), all(f, x), count(f, x)

Whether `f` holds for some (every) element of `x`, and for how many; `any(x)`, `all(x)`,
`count(x)` of Booleans.
"""
function any(f, x::AbstractArray)
    for k in 1:length(x)
        if f(x[k])
            return true
        end
    end
    return false
end

function all(f, x::AbstractArray)
    for k in 1:length(x)
        if !f(x[k])
            return false
        end
    end
    return true
end

function count(f, x::AbstractArray)
    c = 0
    for k in 1:length(x)
        if f(x[k])
            c += 1
        end
    end
    return c
end

any(x::AbstractArray{Bool}) = any(identity, x)
all(x::AbstractArray{Bool}) = all(identity, x)
count(x::AbstractArray{Bool}) = count(identity, x)

"""
    argmax(x), argmin(x)

The index of the first largest (smallest) element in `isless` order (`-0.0` below `0.0`),
or of the first `NaN`, as `findmax` (`findmin`) finds it.
"""
argmax(x::AbstractArray) = _argextremum(x, true)
argmin(x::AbstractArray) = _argextremum(x, false)
# Of a tuple: its elements promoted to one type (the order is theirs).
argmax(t::Tuple) = _argextremum(collect(t), true)
argmin(t::Tuple) = _argextremum(collect(t), false)

function _argextremum(x, largest::Bool)
    _nonempty(x)
    k = 1
    for i in 1:length(x)
        v = x[i]
        if v != v
            return i
        end
        if largest ? _isless(x[k], v) : _isless(v, x[k])
            k = i
        end
    end
    return k
end

"""
    findmax(x), findmin(x)

The largest (smallest) element of `x` and its index, `(x[k], k)` with `k = argmax(x)`
(`argmin(x)`).
"""
findmax(x::AbstractArray) = _found(x, argmax(x))
findmin(x::AbstractArray) = _found(x, argmin(x))
_found(x, k::Int) = (x[k], k)

# Of a matrix (a row `x'` too) Julia's `argmax`, `argmin`, `findmax`, `findmin` give a
# `CartesianIndex` where a vector's give an Int; with `dims` a matrix of them, one per slice
# along `dims` (`argmax(A; dims = 1)` is 1×n), and `findmax` the matrix of the values too.
argmax(A::AbstractMatrix; dims = Colon()) = _arg_dims(A, dims, true)
argmin(A::AbstractMatrix; dims = Colon()) = _arg_dims(A, dims, false)
findmax(A::AbstractMatrix; dims = Colon()) = _find_dims(A, dims, true)
findmin(A::AbstractMatrix; dims = Colon()) = _find_dims(A, dims, false)
_arg_dims(A, ::Colon, largest::Bool) = _cartesian_of(A, _argextremum(A, largest))
_arg_dims(A, dims, largest::Bool) = _slice_extrema(A, _dims_tuple(dims), largest)
_find_dims(A, ::Colon, largest::Bool) = _found(A, _argextremum(A, largest))
function _find_dims(A, dims, largest::Bool)
    I = _slice_extrema(A, _dims_tuple(dims), largest)
    return ([A[J[1], J[2]] for J in I], I)
end
_dims_tuple(d::Int) = (d,)
_dims_tuple(d::Tuple) = d

# Julia's `findminmax!`: for each slice of `A` along the dimensions `dims` (each ≥ 1; 1 and 2
# reduce, others keep), the index of its first extreme in column-major order, a `NaN` winning.
function _slice_extrema(A::AbstractMatrix, dims::Tuple, largest::Bool)
    for d in dims
        d >= 1 || throw(ArgumentError("dimension must be ≥ 1, got $d"))
    end
    m, n = size(A)
    rows = 1 in dims
    cols = 2 in dims
    p = rows ? 1 : m
    q = cols ? 1 : n
    if length(A) == 0 && p * q != 0
        throw(ArgumentError("collection slices must be non-empty"))
    end
    return [_slice_extremum(A, rows ? (1:m) : (i:i), cols ? (1:n) : (j:j), largest) for i in 1:p, j in 1:q]
end

function _slice_extremum(A::AbstractMatrix, is::UnitRange{Int}, js::UnitRange{Int}, largest::Bool)
    bi = first(is)
    bj = first(js)
    best = A[bi, bj]
    for j in js
        for i in is
            v = A[i, j]
            if best == best && (v != v || (largest ? _isless(best, v) : _isless(v, best)))
                best = v
                bi = i
                bj = j
            end
        end
    end
    return CartesianIndex(bi, bj)
end
findmax(f, A::AbstractMatrix) = _cartesian_found(A, _findextremum(f, A, true))
findmin(f, A::AbstractMatrix) = _cartesian_found(A, _findextremum(f, A, false))
_found(A::AbstractMatrix, k::Int) = (A[k], _cartesian_of(A, k))
_cartesian_found(A, found::Tuple) = (found[1], _cartesian_of(A, found[2]))
# The Cartesian index of `A`'s linear index `k` (column-major).
_cartesian_of(A, k::Int) = CartesianIndex(mod1(k, size(A, 1)), div(k - 1, size(A, 1)) + 1)

"""
    findmax(f, x), findmin(f, x), argmax(f, x), argmin(f, x)

`(f(xₖ), k)` for the first `k` where `f` is largest (smallest) in `isless` order, or the first
where it is `NaN`; `argmax(f, x)` (`argmin`) is that element `xₖ` itself, as in Julia 1.7.
"""
findmax(f, x::AbstractArray) = _findextremum(f, x, true)
findmin(f, x::AbstractArray) = _findextremum(f, x, false)
argmax(f, x::AbstractArray) = x[_findextremum(f, x, true)[2]]
argmin(f, x::AbstractArray) = x[_findextremum(f, x, false)[2]]

"""
    findmax(d::Dict), findmin(d::Dict), argmax(d::Dict), argmin(d::Dict), findmax(f, d::Dict)

Of a dictionary: its largest (smallest) value (`f` of it) and that entry's key, `(v, k)`, the
first such entry in the dictionary's order (Julia's hash table's); `argmax`
(`argmin`) the key alone.
"""
findmax(d::Dict) = findmax(identity, d)
findmin(d::Dict) = findmin(identity, d)
findmax(f, d::Dict) = _dict_found(d, _findextremum(f, values(d), true))
findmin(f, d::Dict) = _dict_found(d, _findextremum(f, values(d), false))
argmax(d::Dict) = findmax(d)[2]
argmin(d::Dict) = findmin(d)[2]
_dict_found(d::Dict, found::Tuple) = (found[1], keys(d)[found[2]])

function _findextremum(f, x, largest::Bool)
    _nonempty(x)
    k = 1
    m = f(x[1])
    for i in 2:length(x)
        if m != m
            return (m, k)
        end
        v = f(x[i])
        if v != v || (largest ? _isless(m, v) : _isless(v, m))
            k = i
            m = v
        end
    end
    return (m, k)
end


"""
    CartesianIndex(i, j), CartesianIndex((i, j))

A multidimensional index: `A[I]` is `A[i, j]` (`x[i]` for one dimension), `I[k]` its `k`th
coordinate, `I.I` the tuple; written by `A[I] = v` too.
"""
struct CartesianIndex{T}
    I::T
end

CartesianIndex(i::Int) = CartesianIndex((i,))
CartesianIndex(i::Int, j::Int) = CartesianIndex((i, j))
getindex(I::CartesianIndex, k::Int) = I.I[k]
length(I::CartesianIndex) = length(I.I)
getindex(x::Vector, I::CartesianIndex{Tuple{Int}}) = x[I.I[1]]
getindex(A::Matrix, I::CartesianIndex{Tuple{Int, Int}}) = A[I.I[1], I.I[2]]
setindex!(x::Vector, v, I::CartesianIndex{Tuple{Int}}) = setindex!(x, v, I.I[1])
setindex!(A::Matrix, v, I::CartesianIndex{Tuple{Int, Int}}) = setindex!(A, v, I.I[1], I.I[2])
# Julia's arithmetic of indices, coordinate by coordinate, between indices of one dimension:
# neighbours `A[I + CartesianIndex(0, 1)]`, `I - oneunit(I)`, `max(I, J)`, `2I`.
+(I::CartesianIndex{T}, J::CartesianIndex{T}) where {T} = CartesianIndex(map(+, I.I, J.I))
-(I::CartesianIndex{T}, J::CartesianIndex{T}) where {T} = CartesianIndex(map(-, I.I, J.I))
-(I::CartesianIndex) = CartesianIndex(map(-, I.I))
*(k::Int, I::CartesianIndex) = CartesianIndex(map(i -> k * i, I.I))
*(I::CartesianIndex, k::Int) = k * I
max(I::CartesianIndex{T}, J::CartesianIndex{T}) where {T} = CartesianIndex(map(max, I.I, J.I))
min(I::CartesianIndex{T}, J::CartesianIndex{T}) where {T} = CartesianIndex(map(min, I.I, J.I))
oneunit(I::CartesianIndex) = CartesianIndex(map(one, I.I))
zero(I::CartesianIndex) = CartesianIndex(map(zero, I.I))

"""
    CartesianIndices(A), CartesianIndices((m, n)), CartesianIndices((1:2, 2:3)), I:J

The indices of an array or of ranges as `CartesianIndex`es, in column-major order (the first
coordinate fastest), for `for I in CartesianIndices(A)`, generators and `C[k]`, `C[i, j]`.
Each axis is a size `n` (Julia's `Base.OneTo(n)`) or a `UnitRange{Int}`.
"""
struct CartesianIndices{T}
    dims::T
    # Of sizes, each `Base.OneTo(n)` in Julia (a negative size an empty axis), or of ranges.
    CartesianIndices(dims::Tuple{Int}) = new{Tuple{Int}}((max(0, dims[1]),))
    CartesianIndices(dims::Tuple{Int, Int}) = new{Tuple{Int, Int}}((max(0, dims[1]), max(0, dims[2])))
    CartesianIndices(dims::Tuple{Int, Int, Int}) = new{Tuple{Int, Int, Int}}((max(0, dims[1]), max(0, dims[2]), max(0, dims[3])))
    CartesianIndices(dims::Tuple{UnitRange{Int}}) = new{Tuple{UnitRange{Int}}}(dims)
    CartesianIndices(dims::Tuple{UnitRange{Int}, UnitRange{Int}}) = new{Tuple{UnitRange{Int}, UnitRange{Int}}}(dims)
    CartesianIndices(dims::Tuple{Int, UnitRange{Int}}) = new{Tuple{Int, UnitRange{Int}}}((max(0, dims[1]), dims[2]))
    CartesianIndices(dims::Tuple{UnitRange{Int}, Int}) = new{Tuple{UnitRange{Int}, Int}}((dims[1], max(0, dims[2])))
    CartesianIndices(dims::Tuple{UnitRange{Int}, UnitRange{Int}, UnitRange{Int}}) = new{Tuple{UnitRange{Int}, UnitRange{Int}, UnitRange{Int}}}(dims)
end

CartesianIndices(A::AbstractArray) = CartesianIndices(size(A))
# Axes given as `Base.OneTo(n)` (`CartesianIndices(axes(A))`) are sizes; other tuples refused
# by name.
CartesianIndices(dims::Tuple) = _cartesian_indices(map(_cartesian_axis, dims))
_cartesian_indices(dims::Tuple{Int}) = CartesianIndices(dims)
_cartesian_indices(dims::Tuple{Int, Int}) = CartesianIndices(dims)
_cartesian_indices(dims::Tuple{Int, Int, Int}) = CartesianIndices(dims)
_cartesian_indices(dims::Tuple{UnitRange{Int}}) = CartesianIndices(dims)
_cartesian_indices(dims::Tuple{UnitRange{Int}, UnitRange{Int}}) = CartesianIndices(dims)
_cartesian_indices(dims::Tuple{UnitRange{Int}, UnitRange{Int}, UnitRange{Int}}) = CartesianIndices(dims)
_cartesian_indices(dims::Tuple{Int, UnitRange{Int}}) = CartesianIndices(dims)
_cartesian_indices(dims::Tuple{UnitRange{Int}, Int}) = CartesianIndices(dims)
_cartesian_indices(dims) = error("unsupported: `CartesianIndices` of $(dims): zy's have up to 3 axes, each a size or a `UnitRange` (`CartesianIndices((2, 3))`, `CartesianIndices((1:2, 2:3))`), and of 3 axes all sizes or all ranges")
_cartesian_axis(n::Int) = n
_cartesian_axis(r::OneTo{Int}) = r.stop
_cartesian_axis(r::UnitRange{Int}) = r
_cartesian_axis(r) = error("unsupported: an axis $(r) of `CartesianIndices` (a `$(typeof(r))`): zy's axes are sizes and `UnitRange{Int}`s")
# Julia's `I:J`: the indices between two of one dimension, coordinate by coordinate.
(:)(I::CartesianIndex{T}, J::CartesianIndex{T}) where {T} = CartesianIndices(map((i, j) -> i:j, I.I, J.I))
# An axis's first index, last index and length: of a size `n`, `Base.OneTo(n)`'s.
_axis_first(n::Int) = 1
_axis_first(r::UnitRange{Int}) = r.start
_axis_last(n::Int) = n
_axis_last(r::UnitRange{Int}) = r.stop
_axis_length(n::Int) = n
_axis_length(r::UnitRange{Int}) = length(r)
length(C::CartesianIndices) = prod(size(C))
size(C::CartesianIndices) = map(_axis_length, C.dims)
size(C::CartesianIndices, d::Int) = d <= length(C.dims) ? _axis_length(C.dims[d]) : 1
ndims(C::CartesianIndices) = length(C.dims)
getindex(C::CartesianIndices, k::Int) = _cartesian_of_axes(C.dims, _cartesian_check(C, k))
getindex(C::CartesianIndices{Tuple{A, B}}, i::Int, j::Int) where {A, B} = CartesianIndex(_axis_first(C.dims[1]) + i - 1, _axis_first(C.dims[2]) + j - 1)
# The `k`th index (column-major) of the axes `dims`.
_cartesian_of_axes(dims::Tuple{Any}, k::Int) = CartesianIndex(_axis_first(dims[1]) + k - 1)
function _cartesian_of_axes(dims::Tuple{Any, Any}, k::Int)
    m = _axis_length(dims[1])
    return CartesianIndex(_axis_first(dims[1]) + (k - 1) % m, _axis_first(dims[2]) + (k - 1) ÷ m)
end
function _cartesian_of_axes(dims::Tuple{Any, Any, Any}, k::Int)
    m = _axis_length(dims[1])
    n = _axis_length(dims[2])
    return CartesianIndex(_axis_first(dims[1]) + (k - 1) % m, _axis_first(dims[2]) + ((k - 1) ÷ m) % n, _axis_first(dims[3]) + (k - 1) ÷ (m * n))
end
# Collected (and comprehensions over it) in its own shape: `collect(CartesianIndices(A))` is a
# Matrix of `CartesianIndex`es, `[A[I] for I in CartesianIndices(A)]` a matrix shaped as `A`.
collect(C::CartesianIndices) = [I for I in C]
first(C::CartesianIndices) = CartesianIndex(map(_axis_first, C.dims))
last(C::CartesianIndices) = CartesianIndex(map(_axis_last, C.dims))
in(I::CartesianIndex, C::CartesianIndices) = _in_axes(I.I, C.dims)
# Is each coordinate of `i` in its axis (an index of another dimension in none)?
_in_axes(i::Tuple{Int}, a::Tuple{Any}) = _axis_first(a[1]) <= i[1] <= _axis_last(a[1])
_in_axes(i::Tuple{Int, Int}, a::Tuple{Any, Any}) = _in_axes((i[1],), (a[1],)) && _in_axes((i[2],), (a[2],))
_in_axes(i::Tuple{Int, Int, Int}, a::Tuple{Any, Any, Any}) = _in_axes((i[1], i[2]), (a[1], a[2])) && _in_axes((i[3],), (a[3],))
_in_axes(i, a) = false
# Its own indices are 1-based whatever its ranges (Julia's `IndexCartesian`): `axes` of its
# sizes, `eachindex` the `CartesianIndices` of them, `LinearIndices` of its shape.
axes(C::CartesianIndices) = map(OneTo, size(C))
eachindex(C::CartesianIndices) = CartesianIndices(size(C))
LinearIndices(C::CartesianIndices) = LinearIndices(size(C))
# By a `CartesianIndex` (`C[I]` is `C[i, j]`); `map` in its shape, reductions over its indices.
getindex(C::CartesianIndices, I::CartesianIndex) = getindex(C, I.I...)
map(f, C::CartesianIndices) = [f(I) for I in C]
sum(f, C::CartesianIndices) = sum(f(I) for I in C)
prod(f, C::CartesianIndices) = prod(f(I) for I in C)
maximum(f, C::CartesianIndices) = maximum(f(I) for I in C)
minimum(f, C::CartesianIndices) = minimum(f(I) for I in C)
_gen_array(f, C::CartesianIndices{Tuple{A, B}}) where {A, B} = _matrix(_gen_results(f, C), size(C, 1), size(C, 2))
_gen_array(f, C::CartesianIndices{Tuple{A, B, D}}) where {A, B, D} = _array3(_gen_results(f, C), size(C, 1), size(C, 2), size(C, 3))

"""
    keys(A)

The indices of a matrix or 3-dimensional array as `CartesianIndices(A)` (Julia's, where a
vector's keys are its linear indices).
"""
keys(A::AbstractMatrix) = CartesianIndices(size(A))

"""
    LinearIndices(A)

The linear index of each element of `A` (its position in column-major order), in an array of
`A`'s shape: `for k in LinearIndices(A)` runs over `1:length(A)`, `LinearIndices(A)[i, j]` is
the `k` with `A[k] === A[i, j]`. Julia's is a lazy array; zy's holds the indices.
"""
LinearIndices(A::Array) = reshape(collect(1:length(A)), size(A))
# Of a shape `(m, n)` (Julia's `LinearIndices(dims)`): the indices of an m×n array.
LinearIndices(dims::Tuple{Int}) = collect(1:dims[1])
LinearIndices(dims::Tuple{Int, Int}) = reshape(collect(1:(dims[1] * dims[2])), dims)

# Sizes as a tuple (`zeros(size(A))`, `fill(x, size(A))`) and `similar` with a new size.
zeros(dims::Tuple{Int}) = zeros(dims[1])
zeros(dims::Tuple{Int, Int}) = zeros(dims[1], dims[2])
ones(dims::Tuple{Int}) = ones(dims[1])
ones(dims::Tuple{Int, Int}) = ones(dims[1], dims[2])
fill(v, dims::Tuple{Int}) = fill(v, dims[1])
fill(v, dims::Tuple{Int, Int}) = fill(v, dims[1], dims[2])
# `fill(v, n)`, `fill(v, m, n)` of a value that is not a number (a tuple, a struct, an array):
# every element is the one `v`, as Julia's (an array or mutable struct is shared, not copied).
_fill_any(v, n::Int) = [v for _ in 1:n]
_fill_any(v, m::Int, n::Int) = [v for _ in 1:m, _ in 1:n]
# With an element type: `zeros(Float64, (m, n))`, `ones(Int, size(A))`.
zeros(T, dims::Tuple) = zeros(T, dims...)
ones(T, dims::Tuple) = ones(T, dims...)
# `trues(m, n)`, `falses(n)`: Julia's `BitArray`s, here arrays of `Bool` (as `x .> 0` is).
trues(dims...) = fill(true, dims...)
falses(dims...) = fill(false, dims...)
"""
    circshift(x, k), circshift(A, (k1, k2))

The elements of `x` shifted circularly by `k` places (to higher indices for `k > 0`):
`circshift([1, 2, 3], 1) == [3, 1, 2]`; a matrix by `k1` rows and `k2` columns.
"""
circshift(x::AbstractVector, k::Int) = [x[mod1(i - k, length(x))] for i in 1:length(x)]
circshift(A::AbstractMatrix, k::Int) = circshift(A, (k, 0))
circshift(A::AbstractMatrix, k::Tuple{Int, Int}) =
    [A[mod1(i - k[1], size(A, 1)), mod1(j - k[2], size(A, 2))] for i in 1:size(A, 1), j in 1:size(A, 2)]

"""
    repeat(A, counts...), repeat(x; inner, outer)

`A` tiled `counts[d]` times along dimension `d`: `repeat([1, 2], 2) == [1, 2, 1, 2]`, and
`repeat(x, 1, n)` of a vector is the matrix of `n` copies of it as columns. With `inner`, each
element of a vector is repeated `inner` times in place, and the result then `outer` times. Of
a string, `repeat(s, n)` is `s^n`, the text `n` times.
"""
repeat(x::AbstractVector, m::Int) = [x[mod1(k, length(x))] for k in 1:length(x) * m]
repeat(s::String, n::Int) = s^n
repeat(x::AbstractVector, m::Int, n::Int) = [x[mod1(i, length(x))] for i in 1:length(x) * m, j in 1:n]
repeat(A::AbstractMatrix, m::Int) = repeat(A, m, 1)
repeat(A::AbstractMatrix, m::Int, n::Int) =
    [A[mod1(i, size(A, 1)), mod1(j, size(A, 2))] for i in 1:size(A, 1) * m, j in 1:size(A, 2) * n]

similar(x::Array, n::Int) = _vector(x, n)
similar(x::Array, m::Int, n::Int) = _matrix(x, m, n)
similar(x::Array, dims::Tuple{Int}) = _vector(x, dims[1])
similar(x::Array, dims::Tuple{Int, Int}) = _matrix(x, dims[1], dims[2])
# `similar(x, T)`: of `x`'s shape with elements of type `T` (zeros; Julia leaves them unset).
similar(x::Array, T) = _similar_of(T, x)
# `similar(x, T, dims...)`: of the shape given with elements of type `T` (zeros).
similar(x::Array, T, n::Int) = _undef_vector(T, n)
similar(x::Array, T, m::Int, n::Int) = _undef_matrix(T, m, n)
_similar_of(T, x::Vector) = _undef_vector(T, length(x))
_similar_of(T, x::Matrix) = _undef_matrix(T, size(x, 1), size(x, 2))

"""
    in(x, xs), x in xs, x ∈ xs, x ∉ xs

Whether an element of `xs` (an array, a range or a tuple) is `==` to `x`.
"""
function in(x, xs)
    for y in xs
        if y == x
            return true
        end
    end
    return false
end

"""
    isempty(x)

Whether `x` (an array, a range or a tuple) has no elements.
"""
isempty(x) = length(x) == 0

"""
    findall(f, x), findall(m::Vector{Bool})

The indices `k` where `f(x[k])` (`m[k]`) holds, in order, as a Vector.
"""
findall(f, x::AbstractArray) = _findall_linear(f, x)
function _findall_linear(f, x::AbstractArray)
    I = fill(0, 0)
    for k in 1:length(x)
        if f(x[k])
            push!(I, k)
        end
    end
    return I
end
findall(m::AbstractArray{Bool}) = findall(identity, m)
# Of a tuple, each element by its own method; of a `Dict`, the keys whose values `f` keeps, in
# the dictionary's order (Julia's keys of `pairs(d)`).
findall(f, t::Tuple) = _findall_each(f, fill(0, 0), 1, t...)
findall(t::Tuple) = findall(identity, t)
_findall_each(f, found::Vector{Int}, i::Int) = found
_findall_each(f, found::Vector{Int}, i::Int, x, rest...) = _findall_each(f, f(x) ? push!(found, i) : found, i + 1, rest...)
function findall(f, d::Dict)
    e = _dict_dense(d)
    return e.keys[[k for k in 1:length(e.keys) if f(e.vals[k])]]
end

"""
    NothingOrInt

Julia's `Union{Nothing, Int64}`, what `findfirst`, `findlast`, `findnext` and `findprev` return:
an index, or `nothing` when there is none. zy holds it as this struct, shown, printed and
compared as Julia's union (`nothing` or the index: `i === nothing`, `i == 3`, `isnothing(i)`,
`i isa Int` at run time, `something(i, d)`). Where a branch runs only when it is not
`nothing` (`if i !== nothing`, the other way of `i === nothing ? a : b`, the statements after
`i === nothing && return`), the syntax rebinds `i` there to `Base._notnothing(i)`, the index,
as Julia's inference narrows the union; a call no method of which takes it (`i + 1`) is the
call on the index, checked at run time by `_found_index` (and `typeof(i)` is refused: it
depends on the run).
"""
struct NothingOrInt
    found::Bool
    index::Int
end

_notnothing(x) = x
_notnothing(::Nothing) = error("unreachable: `nothing` where a branch tested that it is not")
function _notnothing(i::NothingOrInt)
    i.found || error("unreachable: `nothing` where a branch tested that it is not")
    return i.index
end
(===)(i::NothingOrInt, ::Nothing) = !i.found
(===)(::Nothing, i::NothingOrInt) = !i.found
(===)(i::NothingOrInt, j) = i.found && i.index === j
(===)(j, i::NothingOrInt) = i.found && i.index === j
(===)(i::NothingOrInt, j::NothingOrInt) = i.found == j.found && i.index === j.index
# `i == y` and `i != y` (inference hands them here): `nothing == nothing`, the index `==` a
# number; anything else is not equal.
_union_equal(i::NothingOrInt, ::Nothing) = !i.found
_union_equal(::Nothing, i::NothingOrInt) = !i.found
_union_equal(i::NothingOrInt, y::Real) = i.found && i.index == y
_union_equal(y::Real, i::NothingOrInt) = i.found && i.index == y
_union_equal(i::NothingOrInt, j::NothingOrInt) = i.found == j.found && i.index == j.index
_union_equal(i::NothingOrInt, y) = false
_union_equal(y, i::NothingOrInt) = false
isequal(i::NothingOrInt, y) = i == y
isequal(y, i::NothingOrInt) = i == y
isequal(i::NothingOrInt, j::NothingOrInt) = i == j
isnothing(i::NothingOrInt) = !i.found
# The index of `findfirst`'s result passed where no method takes the union (`i + 1`): Julia's
# `MethodError` (`message`, inference's) on a run where it is `nothing`.
function _found_index(i::NothingOrInt, message::String)
    i.found || error(:MethodError, message)
    return i.index
end
# A `Union{Nothing, T}` (a regex group) stored where a `T` is held (`push!(String[], m[1])`):
# the value, or Julia's `convert` error (`message`, inference's) on a run where it is `nothing`.
_convert_present(x, message::String) = x
_convert_present(::Nothing, message::String) = error(:MethodError, message)
# `push!(v, i)`, `v[k] = i` of `findfirst`'s result (`while (i = findfirst(m)) !== nothing`,
# which Julia's inference narrows and zy does not): the index, or Julia's `convert` error on a
# run where it is `nothing`.
function _elem_of(v::Array, i::NothingOrInt)
    i.found || error(:MethodError, "Cannot `convert` an object of type Nothing to an object of type $(eltype(v))")
    return _elem_of(v, i.index)
end
# `A[i]` of `findfirst`'s result in a branch Julia's inference does not narrow (`if any(m)`
# before `A[findfirst(m)]`): the element, or Julia's `MethodError` on a run where it is `nothing`.
function getindex(A::AbstractArray, i::NothingOrInt)
    i.found || error(:MethodError, "no method matching getindex(::$(typeof(A)), ::Nothing)")
    return A[i.index]
end

"""
    something(x, y)

The first of `x`, `y` that is not `nothing`.
"""
something(x, y) = x
something(::Nothing, y) = y
something(i::NothingOrInt, y::Int) = i.found ? i.index : y
something(i::NothingOrInt, y) = error("unsupported: `something` of `findfirst`'s result with a default that is not an Int (its type would depend on the run); give an Int default")

"""
    Val(x), Val{x}()

A value as a type: `Val(3)` is the instance of `Val{3}`, so a method `f(::Val{n}) where {n}`
is selected by, and reads, the value `n` where it is compiled (an Int, a Bool, a Symbol or a
type known there).
"""
struct Val{x} end

"""
    Some(x)

A wrapper marking `x` (even `nothing`) as present: `something(Some(x), y)` is `x`.
"""
struct Some{T}
    value::T
end
something(x::Some, y) = x.value
something(x::Some) = x.value
something(x) = x
something(::Nothing) = throw(ArgumentError("No value arguments present"))
something(i::NothingOrInt) = i.found ? i.index : throw(ArgumentError("No value arguments present"))

"""
    missing, Missing

Julia's missing datum: `missing` is the one value of the type `Missing`. Arithmetic,
comparisons and elementary functions of it are `missing` again (three-valued logic:
`missing + 1`, `missing == 1`, `missing < 1`, `sin(missing)`), `isequal(missing, missing)`
is `true` and `isless` sorts it last; `ismissing(x)` tests for it, `coalesce(x, d...)`
replaces it and `skipmissing(xs)` skips it. An array literal holding it beside numbers is
Julia's `Vector{Union{Missing, T}}`.
"""
struct Missing end
const missing = Missing()

"""
    ismissing(x)

Whether `x` is `missing`.
"""
ismissing(x) = false
ismissing(::Missing) = true

"""
    coalesce(x, y...)

The first of its arguments that is not `missing`, or `missing` when all are.
"""
coalesce() = missing
coalesce(x::Missing, y...) = coalesce(y...)
coalesce(x, y...) = x

==(::Missing, ::Missing) = missing
==(::Missing, ::Any) = missing
==(::Any, ::Missing) = missing
!=(::Missing, ::Missing) = missing
!=(::Missing, ::Any) = missing
!=(::Any, ::Missing) = missing
# Of tuples that may hold `missing`: Julia's three-valued `&` of the elements' `==` (`false`
# wherever a pair is unequal, else `missing` where one is `missing`).
_tuple_equal(::Tuple{}, ::Tuple{}) = true
_tuple_equal(::Tuple{}, ::Tuple) = false
_tuple_equal(::Tuple, ::Tuple{}) = false
_tuple_equal(x::Tuple, y::Tuple) = (x[1] == y[1]) & _tuple_equal(tail(x), tail(y))
<(::Missing, ::Missing) = missing
<(::Missing, ::Any) = missing
<(::Any, ::Missing) = missing
<=(::Missing, ::Missing) = missing
<=(::Missing, ::Any) = missing
<=(::Any, ::Missing) = missing
>(::Missing, ::Missing) = missing
>(::Missing, ::Any) = missing
>(::Any, ::Missing) = missing
>=(::Missing, ::Missing) = missing
>=(::Missing, ::Any) = missing
>=(::Any, ::Missing) = missing
isequal(::Missing, ::Missing) = true
isequal(::Missing, ::Any) = false
isequal(::Any, ::Missing) = false
isless(::Missing, ::Missing) = false
isless(::Missing, ::Any) = false
isless(::Any, ::Missing) = true
isapprox(::Missing, ::Missing) = missing
isapprox(::Missing, ::Number) = missing
isapprox(::Number, ::Missing) = missing

# Unary operators and elementary functions of `missing` (Julia's list in base/missing.jl).
!(::Missing) = missing
+(::Missing) = missing
-(::Missing) = missing
identity(::Missing) = missing
zero(::Missing) = missing
one(::Missing) = missing
abs(::Missing) = missing
abs2(::Missing) = missing
sign(::Missing) = missing
acos(::Missing) = missing
acosh(::Missing) = missing
asin(::Missing) = missing
asinh(::Missing) = missing
atan(::Missing) = missing
atanh(::Missing) = missing
sin(::Missing) = missing
sinh(::Missing) = missing
cos(::Missing) = missing
cosh(::Missing) = missing
tan(::Missing) = missing
tanh(::Missing) = missing
exp(::Missing) = missing
exp2(::Missing) = missing
expm1(::Missing) = missing
log(::Missing) = missing
log10(::Missing) = missing
log1p(::Missing) = missing
log2(::Missing) = missing
sqrt(::Missing) = missing
cbrt(::Missing) = missing
iseven(::Missing) = missing
isodd(::Missing) = missing
isfinite(::Missing) = missing
isinf(::Missing) = missing
isinteger(::Missing) = missing
isnan(::Missing) = missing
iszero(::Missing) = missing
float(::Missing) = missing
round(::Missing) = missing
floor(::Missing) = missing
ceil(::Missing) = missing
trunc(::Missing) = missing

# Binary arithmetic with `missing` on either side.
+(::Missing, ::Missing) = missing
+(::Missing, ::Number) = missing
+(::Number, ::Missing) = missing
-(::Missing, ::Missing) = missing
-(::Missing, ::Number) = missing
-(::Number, ::Missing) = missing
*(::Missing, ::Missing) = missing
*(::Missing, ::Number) = missing
*(::Number, ::Missing) = missing
/(::Missing, ::Missing) = missing
/(::Missing, ::Number) = missing
/(::Number, ::Missing) = missing
^(::Missing, ::Missing) = missing
^(::Missing, ::Number) = missing
^(::Number, ::Missing) = missing
div(::Missing, ::Missing) = missing
div(::Missing, ::Number) = missing
div(::Number, ::Missing) = missing
mod(::Missing, ::Missing) = missing
mod(::Missing, ::Number) = missing
mod(::Number, ::Missing) = missing
fld(::Missing, ::Missing) = missing
fld(::Missing, ::Number) = missing
fld(::Number, ::Missing) = missing
rem(::Missing, ::Missing) = missing
rem(::Missing, ::Number) = missing
rem(::Number, ::Missing) = missing
min(::Missing, ::Missing) = missing
min(::Missing, ::Any) = missing
min(::Any, ::Missing) = missing
max(::Missing, ::Missing) = missing
max(::Missing, ::Any) = missing
max(::Any, ::Missing) = missing

# Three-valued logic: `false & missing` is `false`, `true | missing` is `true`.
(&)(::Missing, ::Missing) = missing
(&)(a::Missing, b::Bool) = b ? missing : false
(&)(b::Bool, a::Missing) = b ? missing : false
(|)(::Missing, ::Missing) = missing
(|)(a::Missing, b::Bool) = b ? true : missing
(|)(b::Bool, a::Missing) = b ? true : missing
xor(::Missing, ::Missing) = missing
xor(a::Missing, b::Bool) = missing
xor(b::Bool, a::Missing) = missing

"""
    skipmissing(xs)

An iterator over the elements of the array `xs` that are not `missing`: `sum`, `mean`,
`maximum`, `collect`, `count` and `for` loops over it see the numbers only. Its size is
unknown to Julia, so `length` of it is a `MethodError` (`count(!ismissing, xs)` counts).
"""
skipmissing(xs) = SkipMissing(xs)

"""
    SkipMissing{T}

What `skipmissing(xs)` returns: `xs`, iterated without its `missing` elements.
"""
struct SkipMissing{T}
    x::T
end

# The element of an array of `Union{Missing, T}` known not to be `missing`, as a `T`.
_nonmissing(x) = x
_nonmissing(::Missing) = error("unreachable: `missing` where it was skipped")

function iterate(s::SkipMissing, i::Int = 1)
    x = s.x
    while i <= length(x)
        ismissing(x[i]) || return (_nonmissing(x[i]), i + 1)
        i += 1
    end
    return nothing
end
collect(s::SkipMissing{<:AbstractArray}) = [_nonmissing(v) for v in s.x if !ismissing(v)]

"""
    replace!(A, old => new, ...; count), replace(A, old => new, ...; count)

`A` with each element `isequal` to an `old` replaced by the `new` of the first such pair, at
most `count` elements from the first: in place (and returned), or in a copy whose element
type is promoted with the `new`s' (`replace([1, 2], 2 => 0.5) == [1.0, 0.5]`), as Julia's.
"""
function replace!(A::AbstractArray, ps::Pair...; count::Integer = typemax(Int))
    count < 0 && throw(DomainError(count, "`count` must not be negative (got $count)"))
    n = 0
    for i in eachindex(A)
        n < count || break
        k = findfirst(p -> isequal(A[i], p.first), ps)
        if k !== nothing
            A[i] = ps[k].second
            n += 1
        end
    end
    return A
end
replace(A::AbstractArray, ps::Pair...; count::Integer = typemax(Int)) =
    replace!(copyto!(similar(A, _replaced_eltype(eltype(A), ps...)), A), ps...; count = count)
_replaced_eltype(T) = T
_replaced_eltype(T, p::Pair, ps::Pair...) = _replaced_eltype(promote_type(T, typeof(p.second)), ps...)

"""
    replace(x::AbstractArray, missing => d), replace(x::AbstractArray, nothing => d)

A copy of `x` with `d` for every `missing` (`nothing`): an array of the numbers, promoted
with `d` (Julia drops the absent value's type from the element type).
"""
function replace(x::AbstractArray, p::Pair{Missing, <:Any})
    z = _number_zero(x) + zero(p.second)
    return [oftype(z, ismissing(v) ? p.second : _nonmissing(v)) for v in x]
end
function replace(x::AbstractArray, p::Pair{Nothing, <:Any})
    z = _number_zero(x) + zero(p.second)
    return [oftype(z, something(v, p.second)) for v in x]
end
# The zero of the numbers an array holds beside `missing` (`nothing`): what they promote with.
_number_zero(x::AbstractArray) = zero(eltype(x))
_number_zero(x::AbstractArray{Union{Missing, Float64}}) = 0.0
_number_zero(x::AbstractArray{Union{Missing, Int}}) = 0
_number_zero(x::AbstractArray{Union{Nothing, Float64}}) = 0.0
_number_zero(x::AbstractArray{Union{Nothing, Int}}) = 0
# Julia's reductions over it add (compare) the elements from the first, in order.
function sum(s::SkipMissing{<:AbstractArray})
    y = collect(s)
    isempty(y) && return sum(y)
    t = y[1]
    for k in 2:length(y)
        t += y[k]
    end
    return t
end
sum(f, s::SkipMissing{<:AbstractArray}) = sum(f, collect(s))

# Reductions of an array that may hold `missing`: `missing` where it does (`+`, `*`, `max` and
# `min` of `missing` are `missing`), else those of its numbers.
sum(x::AbstractArray{Union{Missing, Float64}}) = any(ismissing, x) ? missing : sum(skipmissing(x))
sum(x::AbstractArray{Union{Missing, Int}}) = any(ismissing, x) ? missing : sum(skipmissing(x))
prod(x::AbstractArray{Union{Missing, Float64}}) = any(ismissing, x) ? missing : prod(skipmissing(x))
prod(x::AbstractArray{Union{Missing, Int}}) = any(ismissing, x) ? missing : prod(skipmissing(x))
maximum(x::AbstractArray{Union{Missing, Float64}}) = any(ismissing, x) ? missing : maximum(skipmissing(x))
maximum(x::AbstractArray{Union{Missing, Int}}) = any(ismissing, x) ? missing : maximum(skipmissing(x))
minimum(x::AbstractArray{Union{Missing, Float64}}) = any(ismissing, x) ? missing : minimum(skipmissing(x))
minimum(x::AbstractArray{Union{Missing, Int}}) = any(ismissing, x) ? missing : minimum(skipmissing(x))
prod(s::SkipMissing{<:AbstractArray}) = prod(collect(s))
maximum(s::SkipMissing{<:AbstractArray}) = maximum(collect(s))
minimum(s::SkipMissing{<:AbstractArray}) = minimum(collect(s))
maximum(f, s::SkipMissing{<:AbstractArray}) = maximum(f, collect(s))
minimum(f, s::SkipMissing{<:AbstractArray}) = minimum(f, collect(s))
extrema(s::SkipMissing{<:AbstractArray}) = extrema(collect(s))
count(f, s::SkipMissing{<:AbstractArray}) = count(f, collect(s))
any(f, s::SkipMissing{<:AbstractArray}) = any(f, collect(s))
all(f, s::SkipMissing{<:AbstractArray}) = all(f, collect(s))
# Of another iterable (a tuple, a generator): those of the vector of its elements.
collect(s::SkipMissing) = collect(SkipMissing(collect(s.x)))
sum(s::SkipMissing) = sum(SkipMissing(collect(s.x)))
sum(f, s::SkipMissing) = sum(f, SkipMissing(collect(s.x)))
prod(s::SkipMissing) = prod(SkipMissing(collect(s.x)))
maximum(s::SkipMissing) = maximum(SkipMissing(collect(s.x)))
minimum(s::SkipMissing) = minimum(SkipMissing(collect(s.x)))
count(f, s::SkipMissing) = count(f, SkipMissing(collect(s.x)))

"""
    findfirst(f, x), findlast(f, x), findnext(f, x, k), findprev(f, x, k), findfirst(m)

The first (last) index `j` of the vector `x` where `f(x[j])` holds (of `m` where `m[j]`), from
`k` on (back from `k`), or `nothing`. A `Union{Nothing, Int64}` (`NothingOrInt`).
"""
findfirst(f, x::AbstractVector) = findnext(f, x, 1)
findlast(f, x::AbstractVector) = findprev(f, x, length(x))
findfirst(m::AbstractVector{Bool}) = findnext(identity, m, 1)
findlast(m::AbstractVector{Bool}) = findprev(identity, m, length(m))
# Of a matrix Julia's keys are `CartesianIndex`es: a `Union{Nothing, CartesianIndex{2}}`, the
# search running in column-major order from `start` as Julia's `findnext` (`findprev`) does,
# so a start outside the matrix but before its last (after its first) index is Julia's
# `BoundsError`.
findfirst(f, A::AbstractMatrix) = findnext(f, A, CartesianIndex(1, 1))
findlast(f, A::AbstractMatrix) = findprev(f, A, CartesianIndex(size(A)))
findfirst(m::AbstractMatrix{Bool}) = findfirst(identity, m)
findlast(m::AbstractMatrix{Bool}) = findlast(identity, m)
findnext(m::AbstractMatrix{Bool}, I::CartesianIndex{Tuple{Int, Int}}) = findnext(identity, m, I)
findprev(m::AbstractMatrix{Bool}, I::CartesianIndex{Tuple{Int, Int}}) = findprev(identity, m, I)
function findnext(f, A::AbstractMatrix, start::CartesianIndex{Tuple{Int, Int}})
    m, n = size(A)
    i, j = start.I
    (j > n || j == n && i > m) && return nothing
    while true
        f(A[i, j]) && return CartesianIndex(i, j)
        i == m && j == n && break
        i, j = i < m ? (i + 1, j) : (1, j + 1)
    end
    return nothing
end
function findprev(f, A::AbstractMatrix, start::CartesianIndex{Tuple{Int, Int}})
    m = size(A, 1)
    i, j = start.I
    (j < 1 || j == 1 && i < 1) && return nothing
    while true
        f(A[i, j]) && return CartesianIndex(i, j)
        i == 1 && j == 1 && break
        i, j = i > 1 ? (i - 1, j) : (m, j - 1)
    end
    return nothing
end
findnext(m::AbstractVector{Bool}, k::Int) = findnext(identity, m, k)
findprev(m::AbstractVector{Bool}, k::Int) = findprev(identity, m, k)
# Of a tuple, each element by its own method (the elements may differ in type), in Julia's
# order of calls; a start inside the tuple's range of indices is read, so one before its first
# (`findnext`) or past its last (`findprev`) is Julia's `BoundsError`.
findfirst(f, t::Tuple) = findnext(f, t, 1)
findlast(f, t::Tuple) = findprev(f, t, length(t))
findfirst(t::Tuple) = findfirst(identity, t)
findlast(t::Tuple) = findlast(identity, t)
function findnext(f, t::Tuple, k::Int)
    k > length(t) && return NothingOrInt(false, 0)
    k < 1 && throw(BoundsError(t, k))
    return _find_up_each(f, k, 1, t...)
end
function findprev(f, t::Tuple, k::Int)
    k < 1 && return NothingOrInt(false, 0)
    k > length(t) && throw(BoundsError(t, k))
    return _find_down_each(f, k, length(t), reverse(t)...)
end
_find_up_each(f, k::Int, i::Int) = NothingOrInt(false, 0)
_find_up_each(f, k::Int, i::Int, x, rest...) = i >= k && f(x) ? NothingOrInt(true, i) : _find_up_each(f, k, i + 1, rest...)
_find_down_each(f, k::Int, i::Int) = NothingOrInt(false, 0)
_find_down_each(f, k::Int, i::Int, x, rest...) = i <= k && f(x) ? NothingOrInt(true, i) : _find_down_each(f, k, i - 1, rest...)
function findnext(f, x::AbstractVector, k::Int)
    k < 1 && throw(BoundsError(x, k))
    for j in k:length(x)
        if f(x[j])
            return NothingOrInt(true, j)
        end
    end
    return NothingOrInt(false, 0)
end
function findprev(f, x::AbstractVector, k::Int)
    k > length(x) && throw(BoundsError(x, k))
    for j in k:-1:1
        if f(x[j])
            return NothingOrInt(true, j)
        end
    end
    return NothingOrInt(false, 0)
end

"""
    filter(f, x)

The elements of the vector `x` for which `f` holds, in order, as a new vector.
"""
function filter(f, x::AbstractVector)
    y = _vector(x, 0)
    for k in 1:length(x)
        if f(x[k])
            push!(y, x[k])
        end
    end
    return y
end
# Of a range: a `Vector` (Julia's `r[map(f, r)]`).
filter(f, r::UnitRange) = filter(f, collect(r))
filter(f, r::StepRange) = filter(f, collect(r))
filter(f, r::LinRange) = filter(f, collect(r))
filter(f, r::StepRangeLen) = filter(f, collect(r))
# Julia's of a tuple is a tuple whose length (part of its type) depends on the run.
filter(f, t::Tuple) = error("unsupported: `filter` of a tuple (its result's length, part of its type, is known only at run time); filter a vector: `filter(f, collect(t))`")


"""
    first(x, n), last(x, n)

The first (last) `min(n, length(x))` elements of a vector, as a new vector.
"""
first(x::AbstractVector, n::Int) = x[1:_count_arg(x, n)]
last(x::AbstractVector, n::Int) = x[(length(x) - _count_arg(x, n) + 1):length(x)]
# Of a range, Julia's `r[1:k]`: a range.
first(r::Union{UnitRange{Int}, StepRange{Int, Int}, LinRange, StepRangeLen}, n::Int) = r[1:_count_arg(r, n)]
last(r::Union{UnitRange{Int}, StepRange{Int, Int}, LinRange, StepRangeLen}, n::Int) =
    r[(length(r) - _count_arg(r, n) + 1):length(r)]

function _count_arg(x, n::Int)
    if n < 0
        throw(ArgumentError("Number of elements must be non-negative"))
    end
    return min(n, length(x))
end

# Of a tuple, Julia's generic `first(itr, n) = collect(Iterators.take(itr, n))` (and `last`'s
# reverse of it): a Vector of at most `n` elements, not a tuple (JuliaLang/julia#55427). A
# tuple whose elements differ in type is refused by name (indexing it at run time).
first(t::Tuple, n::Integer) = _tuple_part(t, 1, n)
# Of any other iterator, Julia's generic form itself (asking for no item past the `n`th).
first(itr, n::Integer) = collect(Iterators.take(itr, n))
last(t::Tuple, n::Integer) = _tuple_part(t, length(t) - min(max(n, 0), length(t)) + 1, n)
function _tuple_part(t::Tuple, from::Int, n::Integer)
    if n < 0
        throw(ArgumentError("Take length must be nonnegative"))
    end
    return [t[i] for i in from:(from + min(n, length(t)) - 1)]
end

"""
    accumulate(op, x; init)

The running results of `op` over a vector from the left: `y[1] = x[1]` (`op(init, x[1])`),
`y[k] = op(y[k - 1], x[k])`.
"""
accumulate(op, x::AbstractVector; init = nothing) = _accumulate(op, x, init)

function _accumulate(op, x, init::Nothing)
    y = copy(x)
    for k in 2:length(x)
        y[k] = op(y[k - 1], x[k])
    end
    return y
end

function _accumulate(op, x, init)
    y = fill(op(init, x[1]), length(x))
    for k in 2:length(x)
        y[k] = op(y[k - 1], x[k])
    end
    return y
end

"""
    map!(f, dest, x), map!(f, dest, x, y)

`dest[k] = f(x[k])` (`f(x[k], y[k])`) for every `k` of `dest`; returns `dest`.
"""
function map!(f, dest::AbstractArray, x::AbstractArray)
    for k in 1:length(dest)
        dest[k] = f(x[k])
    end
    return dest
end

function map!(f, dest::AbstractArray, x::AbstractArray, y::AbstractArray)
    for k in 1:length(dest)
        dest[k] = f(x[k], y[k])
    end
    return dest
end


# `Matrix(J, m, n)` of a `UniformScaling` `J` (`Matrix(I, 3, 3)`, `Matrix(2.0I, 2, 3)`; inference
# sends it here): `J.λ` on the diagonal, zeros elsewhere.
function _uniform_matrix(J, m::Int, n::Int)
    A = fill(zero(J.λ), m, n)
    for k in 1:min(m, n)
        A[k, k] = J.λ
    end
    return A
end

_uniform_matrix(J, dims::Tuple{Int, Int}) = _uniform_matrix(J, dims[1], dims[2])

# `Vector{T}(x)`, `Matrix{T}(A)`, `Matrix{T}(I, m, n)` (the syntax lowers them to these): a
# new array of element type `T` (Float64 or Int), each element converted.
_vector_of(T::Type{Float64}, x::Union{AbstractVector, AbstractRange}) = _typed_cat(T, collect(x))
_vector_of(T::Type{Int}, x::Union{AbstractVector, AbstractRange}) = _typed_cat(T, collect(x))
_vector_of(T::Type{Int64}, x::Union{AbstractVector, AbstractRange}) = _vector_of(Int, x)
# Of another element type zy's arrays hold (`Vector{Union{Missing, Float64}}(x)`, a vector
# that may then hold `missing`): each element converted as it is stored.
function _vector_of(T, x::Union{AbstractVector, AbstractRange})
    y = undef_objects(T, length(x))
    for k in 1:length(x)
        y[k] = x[k]
    end
    return y
end
# Julia's `Vector{T}(x)` takes a vector (or `undef`, `missing` or `nothing` and a length).
# An array struct of the program (`struct V <: AbstractVector{Int}`): its elements, read by its
# `getindex`, as Julia's `Vector{T}(a::AbstractVector)` copies them.
_vector_of(T, x) = x isa AbstractVector ? _vector_of(T, _array_collect(x)) :
    error(:MethodError, "no method matching Vector{$(T)}(::$(typeof(x)))")
# `Vector{Union{Missing, T}}(missing, n)`, `Vector{Union{Nothing, T}}(nothing, n)`: `n` times
# the absent value.
function _vector_of(T, v::Union{Missing, Nothing}, n::Int)
    y = undef_objects(T, n)
    for k in 1:n
        y[k] = v
    end
    return y
end
# `Array{T}(x)` of one array: a copy of its shape, its elements converted to `T`.
_array_of(T, x::AbstractVector) = _vector_of(T, x)
_array_of(T, A::AbstractMatrix) = _matrix_of(T, A)
_matrix_of(T::Type{Float64}, A::AbstractMatrix) = _typed_cat(T, A)
_matrix_of(T::Type{Int}, A::AbstractMatrix) = _typed_cat(T, A)
_matrix_of(T::Type{Int64}, A::AbstractMatrix) = _matrix_of(Int, A)
_matrix_of(T::Type{Float64}, J, m::Int, n::Int) = _typed_cat(T, _uniform_matrix(J, m, n))
_matrix_of(T::Type{Int}, J, m::Int, n::Int) = _typed_cat(T, _uniform_matrix(J, m, n))
_matrix_of(T, J, dims::Tuple{Int, Int}) = _matrix_of(T, J, dims[1], dims[2])


"""
    cumsum(A; dims), cumprod(A; dims)

The running sums (products) of a matrix down its columns (`dims = 1`) or along its rows
(`dims = 2`); another `dims` leaves each element alone (a copy), as Julia.
"""
cumsum(A::AbstractMatrix; dims::Int) = _cumulate(+, A, dims)
cumprod(A::AbstractMatrix; dims::Int) = _cumulate(*, A, dims)

function _cumulate(op, A, dims::Int)
    if dims < 1
        throw(ArgumentError("dimension must be ≥ 1, got $dims"))
    end
    B = copy(A)
    m = size(A, 1)
    n = size(A, 2)
    for j in 1:n
        for i in 1:m
            if dims == 1 && i > 1
                B[i, j] = op(B[i - 1, j], A[i, j])
            elseif dims == 2 && j > 1
                B[i, j] = op(B[i, j - 1], A[i, j])
            end
        end
    end
    return B
end

# `k` when it is a linear index of `C`, else Julia's BoundsError naming its shape and type.
function _cartesian_check(C::CartesianIndices, k::Int)
    if k < 1 || k > length(C)
        shape = length(C.dims) == 1 ? "$(length(C))-element" : join(size(C), "×")
        error(:BoundsError, "attempt to access $shape $(typeof(C)) at index [$k]")
    end
    return k
end

# Julia's `isless` on numbers that are not NaN: `<`, with `-0.0` below `0.0`; on other
# values (the program's structs), their `isless` methods.
_isless(a::Real, b::Real) = a < b || (a == b && 1 / a < 0 && 1 / b > 0)
_isless(a, b) = isless(a, b)

"""
    cumsum(x; dims = 1), cumprod(x; dims = 1)

The running sums (products) of a vector: `y[k] = y[k - 1] + x[k]`, `y[1] = x[1]`; a `dims`
above 1 gives a copy of `x`, as Julia.
"""
function cumsum(x::AbstractVector; dims::Int = 1)
    if dims != 1
        return _cumulate_beyond(x, dims)
    end
    y = _vector(x, length(x))
    for k in 1:length(x)
        y[k] = k == 1 ? x[k] : y[k - 1] + x[k]
    end
    return y
end

"""
    cumsum!(y, x), cumprod!(y, x), accumulate!(op, y, x)

`cumsum(x)` (`cumprod(x)`, `accumulate(op, x)`) written into `y`, which must have `x`'s
length (Julia's `DimensionMismatch` otherwise); returns `y`.
"""
cumsum!(y::AbstractVector, x::AbstractVector) = accumulate!(+, y, x)
cumprod!(y::AbstractVector, x::AbstractVector) = accumulate!(*, y, x)
function accumulate!(op, y::AbstractVector, x::AbstractVector)
    length(y) == length(x) || throw(DimensionMismatch("input and output array sizes and indices must match"))
    for k in 1:length(x)
        y[k] = k == 1 ? x[k] : op(y[k - 1], x[k])
    end
    return y
end

function cumprod(x::AbstractVector; dims::Int = 1)
    if dims != 1
        return _cumulate_beyond(x, dims)
    end
    y = _vector(x, length(x))
    for k in 1:length(x)
        y[k] = k == 1 ? x[k] : y[k - 1] * x[k]
    end
    return y
end

# A vector's running sums along a `dims` other than 1: none below 1, a copy above.
function _cumulate_beyond(x, dims::Int)
    if dims < 1
        throw(ArgumentError("dimension must be ≥ 1, got $dims"))
    end
    return copy(x)
end

# `op` (`max`, `min`, `*`) reduced along a matrix's columns (`d = 1`) or rows (`d = 2`), each
# from its first element in index order: `maximum(A; dims = d)` and friends.
function _reduce_dims(op, A::AbstractMatrix, d::Int)
    m = size(A, 1)
    n = size(A, 2)
    if d == 1
        _nonempty(A)
        S = _matrix(A, 1, n)
        for j in 1:n
            s = A[1, j]
            for i in 2:m
                s = op(s, A[i, j])
            end
            S[1, j] = s
        end
        return S
    elseif d == 2
        _nonempty(A)
        S = _matrix(A, m, 1)
        for i in 1:m
            s = A[i, 1]
            for j in 2:n
                s = op(s, A[i, j])
            end
            S[i, 1] = s
        end
        return S
    elseif d < 1
        throw(ArgumentError("dimension must be ≥ 1, got $d"))
    end
    return copy(A)
end

# Of a vector: along its one dimension a vector of one element, along any other a copy, as
# Julia's `sum(x; dims = 1)` and `maximum(x; dims = 2)`.
function _sum_dims(x::AbstractVector, d::Int)
    d < 1 && throw(ArgumentError("dimension must be ≥ 1, got $d"))
    return d == 1 ? [sum(x)] : copy(x)
end
function _reduce_dims(op, x::AbstractVector, d::Int)
    d < 1 && throw(ArgumentError("dimension must be ≥ 1, got $d"))
    return d == 1 ? [reduce(op, x)] : copy(x)
end
_sum_dims(x::AbstractVector, d::Tuple{Int}) = _sum_dims(x, d[1])
_sum_dims(x::AbstractVector, d::Tuple{Int, Int}) = _sum_dims(_sum_dims(x, d[1]), d[2])
_reduce_dims(op, x::AbstractVector, d::Tuple{Int}) = _reduce_dims(op, x, d[1])
_reduce_dims(op, x::AbstractVector, d::Tuple{Int, Int}) = _reduce_dims(op, _reduce_dims(op, x, d[1]), d[2])

# `dims` as a tuple, `(d,)` or `(1, 2)` (all of it, a 1×1 matrix): one dimension after the
# other.
_sum_dims(A::AbstractMatrix, d::Tuple{Int}) = _sum_dims(A, d[1])
_sum_dims(A::AbstractMatrix, d::Tuple{Int, Int}) = _sum_dims(_sum_dims(A, d[1]), d[2])
_reduce_dims(op, A::AbstractMatrix, d::Tuple{Int}) = _reduce_dims(op, A, d[1])
_reduce_dims(op, A::AbstractMatrix, d::Tuple{Int, Int}) = _reduce_dims(op, _reduce_dims(op, A, d[1]), d[2])

# The sums of a matrix's columns (`d = 1`, a 1×n matrix) or rows (`d = 2`, an m×1 matrix),
# each added in index order from zero, as Julia's `sum(A; dims = d)`; along a dimension of
# length one (`d > 2`) the matrix itself, copied.
function _sum_dims(A::AbstractMatrix, d::Int)
    m = size(A, 1)
    n = size(A, 2)
    if d == 1
        S = _matrix(A, 1, n)
        for j in 1:n, i in 1:m
            S[1, j] += A[i, j]
        end
        return S
    elseif d == 2
        S = _matrix(A, m, 1)
        for j in 1:n, i in 1:m
            S[i, 1] += A[i, j]
        end
        return S
    elseif d < 1
        throw(ArgumentError("dimension must be ≥ 1, got $d"))
    end
    return copy(A)
end

# ---- Iteration helpers, predicates, sorting and small math ----------------------------------

"""
    Enumerate(itr)

`enumerate(itr)`: the tuples `(i, x)` of a counter from 1 and the elements of `itr`.
"""
struct Enumerate{I}
    itr::I
end

"""
    enumerate(itr)

Iterate over `(i, x)`: the counter `i` from 1 beside each element `x` of `itr`.
"""
enumerate(itr) = Enumerate(itr)
length(e::Enumerate) = length(e.itr)
# Iterated by `_gen_elem`: Julia has no `getindex` for `enumerate(x)`, `zip(a, b)` or the
# `Iterators` wrappers, so `enumerate(x)[2]` is a MethodError as there.
_gen_elem(e::Enumerate, k::Int) = (k, _gen_elem(e.itr, k))

"""
    Zip(its)

`zip(a, b, ...)`: the tuples of the `k`-th elements of each iterable, as long as the shortest.
"""
struct Zip{T}
    its::T
end

# `map(f, xs...)` of several collections, an array among them (inference calls this): Julia
# zips them, so vectors and tuples stop at the shortest and arrays of different numbers of
# dimensions are read in linear order; here the Vectors of the first `n` elements of each.
function _zip_vectors(xs...)
    n = minimum(map(length, xs))
    return map(x -> _first_n(x, n), xs)
end
_first_n(x::Vector, n::Int) = length(x) == n ? x : x[1:n]
_first_n(x::Array, n::Int) = x[1:n]
_first_n(t::Tuple, n::Int) = collect(t)[1:n]

# `x .^ -k` of a literal `k` (lowering calls this): Julia broadcasts `Base.literal_pow`, which
# for a negative literal is `inv(x)`, `inv(x)^2`, then `Float64(x)^-k` of an integer, `x^-k`
# of a float and `inv(x)^k` of another number.
function _literal_pow_neg(x, k::Int)
    k == 1 && return x^-1
    k == 2 && return x^-2
    return x isa Integer ? Float64(x)^(-k) : x isa AbstractFloat ? x^(-k) : inv(x)^k
end

# `f.(xs...)` of several vectors by a Julia function (inference calls this): Julia extends a
# vector of length 1 to the others' common length (a `DimensionMismatch` where two others
# differ); here each vector at that length (a length-1 one as `fill` of its element), and the
# other operands as they are.
function _broadcast_vectors(xs...)
    n = 1
    for x in xs
        if x isa Vector && length(x) != 1
            n == 1 || n == length(x) || throw(DimensionMismatch("arrays could not be broadcast to a common size; got a dimension with lengths $n and $(length(x))"))
            n = length(x)
        end
    end
    return map(x -> _extend_to(x, n), xs)
end
_extend_to(x::Vector, n::Int) = length(x) == n ? x : fill(x[1], n)
_extend_to(x, n::Int) = x
# A vector of numbers that may be absent, extended keeping its element type (`fill` of its
# element would make a vector of the element's own type).
_extend_to(x::Vector{Union{Missing, Float64}}, n::Int) = length(x) == n ? x : _refilled(x, n)
_extend_to(x::Vector{Union{Missing, Int}}, n::Int) = length(x) == n ? x : _refilled(x, n)
_extend_to(x::Vector{Union{Nothing, Float64}}, n::Int) = length(x) == n ? x : _refilled(x, n)
_extend_to(x::Vector{Union{Nothing, Int}}, n::Int) = length(x) == n ? x : _refilled(x, n)
_extend_to(x::Vector{Union{Missing, Nothing, Float64}}, n::Int) = length(x) == n ? x : _refilled(x, n)
_extend_to(x::Vector{Union{Missing, Nothing, Int}}, n::Int) = length(x) == n ? x : _refilled(x, n)
function _refilled(x::Vector, n::Int)
    y = _vector(x, n)
    for k in 1:n
        y[k] = x[1]
    end
    return y
end

# `f.(xs...)` of arrays by a Julia function, a matrix among them (inference calls this): Julia's
# shapes (a vector is a column; a dimension of length 1 extends to the others' common length, a
# `DimensionMismatch` where two others differ); here each array as a matrix of the common size,
# and the other operands as they are.
function _broadcast_matrices(xs...)
    m = 1
    n = 1
    for x in xs
        if x isa Array
            m = _common_length(m, size(x, 1))
            n = _common_length(n, size(x, 2))
        end
    end
    return map(x -> _extend_to(x, m, n), xs)
end
_common_length(n::Int, k::Int) =
    k == 1 || k == n ? n :
    n == 1 ? k :
    throw(DimensionMismatch("arrays could not be broadcast to a common size; got a dimension with lengths $n and $k"))
_extend_to(x::Matrix, m::Int, n::Int) =
    size(x, 1) == m && size(x, 2) == n ? x :
    [x[size(x, 1) == 1 ? 1 : i, size(x, 2) == 1 ? 1 : j] for i in 1:m, j in 1:n]
_extend_to(x::Vector, m::Int, n::Int) = [x[length(x) == 1 ? 1 : i] for i in 1:m, j in 1:n]
_extend_to(x, m::Int, n::Int) = x

"""
    zip(a), zip(a, b), zip(a, b, c)

Iterate over the tuples `(a[k], b[k], ...)`, stopping at the end of the shortest iterable.
"""
zip(a) = Zip((_zipped(a),))
length(z::Zip{Tuple{A}}) where {A} = length(z.its[1])
_gen_elem(z::Zip{Tuple{A}}, k::Int) where {A} = (_gen_elem(z.its[1], k),)
zip(a, b) = Zip((_zipped(a), _zipped(b)))
zip(a, b, c) = Zip((_zipped(a), _zipped(b), _zipped(c)))
# A string's characters are zipped as a `Vector{Char}`, read once (its `k`-th character is
# found from its start).
_zipped(x) = x
_zipped(s::String) = collect(s)
# A named tuple is zipped as the tuple of its values, which it iterates.
_zipped(nt::NamedTuple) = values(nt)
length(z::Zip{Tuple{A, B}}) where {A, B} = _zip_length(_zip_min(_zip_bound(z.its[1]), _zip_bound(z.its[2])))
length(z::Zip{Tuple{A, B, C}}) where {A, B, C} =
    _zip_length(_zip_min(_zip_bound(z.its[1]), _zip_min(_zip_bound(z.its[2]), _zip_bound(z.its[3]))))
# The length of the shortest finite iterable (`-1` for an endless one, which bounds nothing:
# Julia's `zip` of `countfrom()` and a vector has the vector's length); endless ones only are
# Julia's `ArgumentError` of `length`, which a loop over them asks for here.
_zip_bound(x) = _zip_bound(x, _iterator_size(x))
_zip_bound(x, size) = length(x)
_zip_bound(x, ::IsInfinite) = -1
_zip_min(m::Int, n::Int) = m < 0 ? n : n < 0 ? m : min(m, n)
_zip_length(m::Int) = m < 0 ? throw(ArgumentError("iterator is of undefined length")) : m
_gen_elem(z::Zip{Tuple{A, B}}, k::Int) where {A, B} =
    (_gen_elem(z.its[1], k), _gen_elem(z.its[2], k))
_gen_elem(z::Zip{Tuple{A, B, C}}, k::Int) where {A, B, C} =
    (_gen_elem(z.its[1], k), _gen_elem(z.its[2], k), _gen_elem(z.its[3], k))
# A generator over a zip of two tuples (`zip(keys(nt), values(nt))`, whose elements differ in
# type) goes over the tuple of the zipped pairs, each read by a constant index; the shorter
# tuple ends it.
_zip_tuples(a::Tuple, b::Tuple) = ((a[1], b[1]), _zip_tuples(tail(a), tail(b))...)
_zip_tuples(a::Tuple{}, b::Tuple) = ()
_zip_tuples(a::Tuple, b::Tuple{}) = ()
_zip_tuples(a::Tuple{}, b::Tuple{}) = ()
_gen_fold(op, first, f, z::Zip{Tuple{A, B}}) where {A <: Tuple, B <: Tuple} = _gen_fold(op, first, f, _zip_tuples(z.its...))
_gen_fold_init(op, init, f, z::Zip{Tuple{A, B}}) where {A <: Tuple, B <: Tuple} = _gen_fold_init(op, init, f, _zip_tuples(z.its...))
_gen_collect(f, z::Zip{Tuple{A, B}}) where {A <: Tuple, B <: Tuple} = _gen_collect(f, _zip_tuples(z.its...))
_gen_any(f, z::Zip{Tuple{A, B}}) where {A <: Tuple, B <: Tuple} = _gen_any(f, _zip_tuples(z.its...))
_gen_all(f, z::Zip{Tuple{A, B}}) where {A <: Tuple, B <: Tuple} = _gen_all(f, _zip_tuples(z.its...))

"""
    eachindex(x), eachindex(x, y)

The linear indices of an array or tuple, `Base.OneTo(length(x))`; with several arrays, their
common indices (a `DimensionMismatch` where their lengths differ).
"""
eachindex(x::AbstractArray) = OneTo(length(x))
# `eachindex(IndexCartesian(), A)`: Cartesian indices; `IndexLinear()`, linear ones.
eachindex(::IndexCartesian, x::AbstractArray) = CartesianIndices(size(x))
eachindex(::IndexLinear, x::AbstractArray) = OneTo(length(x))
# `keys` of a Vector: its indices (Julia's `LinearIndices`, indexable as `1:length(x)`).
keys(x::AbstractVector) = 1:length(x)
eachindex(x::Tuple) = OneTo(length(x))

function eachindex(x::AbstractArray, y::AbstractArray)
    if length(x) != length(y)
        throw(DimensionMismatch("all inputs to eachindex must have the same indices, got Base.OneTo($(length(x))) and Base.OneTo($(length(y)))"))
    end
    return OneTo(length(x))
end

"""
    axes(A), axes(A, d)

The valid indices of each dimension of `A`, each a `Base.OneTo(n)` (`axes(A, d)`: of
dimension `d`, `Base.OneTo(1)` beyond `ndims(A)`).
"""
axes(x::AbstractVector) = (OneTo(length(x)),)
axes(A::AbstractMatrix) = (OneTo(size(A, 1)), OneTo(size(A, 2)))
axes(A::AbstractArray, d::Int) = OneTo(size(A, d))

"""
    firstindex(x), lastindex(x), firstindex(A, d), lastindex(A, d)

The first and last linear index of an array, range or tuple (`1` and `length(x)`), or of dimension
`d` of an array (`1` and `size(A, d)`): what `begin` and `end` mean inside `x[...]`.
"""
firstindex(x::Union{AbstractArray, Tuple, UnitRange, StepRange, LinRange, StepRangeLen}) = 1
lastindex(x::Union{AbstractArray, Tuple, UnitRange, StepRange, LinRange, StepRangeLen}) = length(x)
firstindex(A::AbstractArray, d::Int) = 1
lastindex(A::AbstractArray, d::Int) = size(A, d)

"""
    reverse(x)

A vector's elements in the opposite order (a new vector); a range run backwards.
"""
"""
    invperm(p)

The inverse of the permutation `p` (`q[p[i]] == i`: the ranks of `x` are
`invperm(sortperm(x))`); Julia's `ArgumentError` where `p` is not a permutation of `1:n`.
"""
function invperm(p::AbstractVector{Int})
    n = length(p)
    q = zeros(Int, n)
    for i in 1:n
        j = p[i]
        if !(1 <= j <= n) || q[j] != 0
            throw(ArgumentError("argument is not a permutation"))
        end
        q[j] = i
    end
    return q
end

"""
    isperm(p)

Whether the integers of `p` (a vector or tuple) are a permutation of `1:length(p)`.
"""
function isperm(p)
    n = length(p)
    seen = fill(false, n)
    for j in p
        (1 <= j <= n && !seen[j]) || return false
        seen[j] = true
    end
    return true
end

"""
    permute!(v, p), invpermute!(v, p)

`v` rearranged in place to `v[p]` (`permute!`), or so that the old `v` is the new `v[p]`
(`invpermute!`); `v` itself is returned.
"""
function permute!(v::AbstractVector, p::AbstractVector)
    v[:] = v[p]
    return v
end
function invpermute!(v::AbstractVector, p::AbstractVector)
    v[p] = copy(v)
    return v
end

"""
    indexin(a, b)

For each element of `a`, the first index of `b` holding an equal (`isequal`) element, or
`nothing`: a `Vector{Union{Nothing, Int64}}`.
"""
function indexin(a, b::AbstractArray)
    first_at = Dict{eltype(b), Int}()
    for (k, x) in enumerate(b)
        haskey(first_at, x) || (first_at[x] = k)
    end
    found = Union{Nothing, Int}[]
    for x in a
        push!(found, get(first_at, x, nothing))
    end
    return found
end

reverse(x::AbstractVector; dims = Colon()) = _reverse_vector(x, dims)
_reverse_vector(x, ::Colon) = [x[length(x) + 1 - k] for k in 1:length(x)]
_reverse_vector(x, dims) = _reverse_dims(x, dims)

"""
    reverse(x, start, stop = lastindex(x))

A copy of the vector `x` with the elements from `start` to `stop` in the opposite order and
the others in place; an index outside `x` is a `BoundsError`.
"""
function reverse(x::AbstractVector, start::Int, stop::Int = length(x))
    y = copy(x)
    for k in start:stop
        y[k] = x[stop + start - k]
    end
    return y
end

"""
    reverse(A; dims = :)

A copy of `A` in the opposite order along dimension `dims` (an `Int`, a tuple or vector of
them), or along every dimension (`:`, the elements in reverse linear order).
"""
reverse(A::AbstractArray; dims = Colon()) = _reverse_dims(A, dims)
_reverse_dims(A, ::Colon) = _reverse_dims(A, collect(1:ndims(A)))
_reverse_dims(A, d::Int) = _reverse_dims(A, [d])
_reverse_dims(A, dims::Tuple) = _reverse_dims(A, collect(dims))
function _reverse_dims(A, dims::AbstractVector{Int})
    flip = fill(false, ndims(A))
    for d in dims
        1 <= d <= ndims(A) || throw(ArgumentError("dimension $d is not 1 ≤ $d ≤ $(ndims(A))"))
        flip[d] = true
    end
    sz = _sizes(A)
    I = zeros(Int, length(sz))
    B = copy(A)
    for k in 1:length(A)
        _cartesian!(I, sz, k)
        for e in 1:length(sz)
            if flip[e]
                I[e] = sz[e] + 1 - I[e]
            end
        end
        B[k] = A[_linear(sz, I)]
    end
    return B
end
reverse(r::UnitRange) = last(r):-1:first(r)
reverse(r::StepRange) = last(r):-step(r):first(r)

"""
    rotl90(A), rotr90(A), rot180(A), rotl90(A, k), rotr90(A, k)

The matrix `A` turned a quarter turn to the left (anticlockwise), to the right, or half a
turn (a new matrix, `size(A)` swapped by a quarter turn); with `k`, `k` quarter turns (any
integer, taken modulo 4).
"""
rotl90(A::AbstractMatrix) = [A[j, size(A, 2) + 1 - i] for i in 1:size(A, 2), j in 1:size(A, 1)]
rotr90(A::AbstractMatrix) = [A[size(A, 1) + 1 - j, i] for i in 1:size(A, 2), j in 1:size(A, 1)]
rot180(A::AbstractMatrix) =
    [A[size(A, 1) + 1 - i, size(A, 2) + 1 - j] for i in 1:size(A, 1), j in 1:size(A, 2)]
function rotl90(A::AbstractMatrix, k::Integer)
    k = mod(k, 4)
    return k == 1 ? rotl90(A) : k == 2 ? rot180(A) : k == 3 ? rotr90(A) : copy(A)
end
rotr90(A::AbstractMatrix, k::Integer) = rotl90(A, -k)

"""
    diff(x; dims = 1), diff(A; dims)

The differences of consecutive elements of a vector, `x[k + 1] - x[k]`; of a matrix, down its
columns (`dims = 1`: `A[i + 1, j] - A[i, j]`) or along its rows (`dims = 2`), as Julia (whose
matrix method has no default `dims`).
"""
function diff(x::AbstractVector; dims::Integer = 1)
    dims == 1 || throw(ArgumentError("dimension $dims out of range (1:1)"))
    return [x[k + 1] - x[k] for k in 1:length(x) - 1]
end

# `vcat(v, w...)` of Vectors of one element type that is not a number (vectors of vectors,
# of tuples, of structs; `[v; w]`): one Vector of their elements in order, each element itself
# (Julia's `vcat` copies no element).
function _vcat_vectors(v::Vector, ws::Vector...)
    out = copy(v)
    for w in ws
        append!(out, w)
    end
    return out
end

# Of a range, the differences of its elements as Julia's `diff(r::AbstractRange)` gives them:
# a new Vector (`diff(1:4) == [1, 1, 1]`, `diff(range(0, 1; length = 5))` of the elements).
diff(r::Union{UnitRange{Int}, StepRange{Int, Int}, LinRange, StepRangeLen}) =
    [r[k + 1] - r[k] for k in 1:length(r) - 1]

function diff(A::AbstractMatrix; dims::Integer)
    if dims == 1
        return [A[i + 1, j] - A[i, j] for i in 1:size(A, 1) - 1, j in 1:size(A, 2)]
    elseif dims == 2
        return [A[i, j + 1] - A[i, j] for i in 1:size(A, 1), j in 1:size(A, 2) - 1]
    end
    throw(ArgumentError("dimension $dims out of range (1:2)"))
end

"""
    isnan(x), isinf(x), isfinite(x)

Whether `x` is not a number, an infinity, or neither (integers are always finite).
"""
isnan(x::Float64) = x != x
isnan(x::Float32) = x != x
isnan(x::Integer) = false
isinf(x::Float64) = abs(x) == Inf
isinf(x::Float32) = abs(x) == Inf
isinf(x::Integer) = false
isfinite(x::Float64) = x - x == 0.0
isfinite(x::Float32) = x - x == 0
isfinite(x::Integer) = true

"""
    isodd(n), iseven(n)

Whether the integer `n` is odd (even); a float must be a whole number (Julia's
`Integer(n)`: `iseven(4.0)`, an `InexactError` for `2.5`).
"""
isodd(n::Integer) = n % 2 != 0
iseven(n::Integer) = n % 2 == 0
isodd(n::Float64) = isodd(Int(n))
iseven(n::Float64) = iseven(Int(n))

"""
    isapprox(x, y; atol = 0, rtol = √eps unless atol > 0), x ≈ y

Approximate equality, Julia's: `x == y`, or both finite and `|x - y| ≤ max(atol, rtol
max(|x|, |y|))` (complex numbers by their moduli); arrays compare by the Euclidean norm of
their difference.
"""
function isapprox(x::Number, y::Number; atol::Real = 0.0, rtol::Real = _default_rtol(x, y, atol))
    return x == y ||
           (isfinite(x) && isfinite(y) && abs(x - y) <= max(atol, rtol * max(abs(x), abs(y))))
end

function isapprox(x::AbstractArray, y::AbstractArray; atol::Real = 0.0,
                  rtol::Real = _default_rtol(atol))
    d = _norm2(x - y)
    return isfinite(d) ? d <= max(atol, rtol * max(_norm2(x), _norm2(y))) : _array_equal(x, y)
end

# `x == y` of arrays: the same shape and equal elements (Julia's `==`: NaN differs from itself,
# -0.0 equals 0.0); arrays of different dimensions are never equal.
function _array_equal(x::AbstractArray{S, N}, y::AbstractArray{T, N}) where {S, T, N}
    for d in 1:N
        if size(x, d) != size(y, d)
            return false
        end
    end
    for k in 1:length(x)
        if x[k] != y[k]
            return false
        end
    end
    return true
end

_array_equal(x::AbstractArray, y::AbstractArray) = false

# Of arrays that may hold `missing`: `false` at the first elements that differ, else `missing`
# where a pair of elements compares as `missing`, else `true` (Julia's three-valued `==`).
_array_equal(x::AbstractArray{Union{Missing, Float64}, N}, y::AbstractArray{T, N}) where {T, N} = _equal_or_missing(x, y)
_array_equal(x::AbstractArray{S, N}, y::AbstractArray{Union{Missing, Float64}, N}) where {S, N} = _equal_or_missing(x, y)
_array_equal(x::AbstractArray{Union{Missing, Float64}, N}, y::AbstractArray{Union{Missing, Float64}, N}) where {N} = _equal_or_missing(x, y)
_array_equal(x::AbstractArray{Union{Missing, Int}, N}, y::AbstractArray{T, N}) where {T, N} = _equal_or_missing(x, y)
_array_equal(x::AbstractArray{S, N}, y::AbstractArray{Union{Missing, Int}, N}) where {S, N} = _equal_or_missing(x, y)
_array_equal(x::AbstractArray{Union{Missing, Int}, N}, y::AbstractArray{Union{Missing, Int}, N}) where {N} = _equal_or_missing(x, y)
_array_equal(x::AbstractArray{Union{Missing, Nothing, Float64}, N}, y::AbstractArray{T, N}) where {T, N} = _equal_or_missing(x, y)
_array_equal(x::AbstractArray{S, N}, y::AbstractArray{Union{Missing, Nothing, Float64}, N}) where {S, N} = _equal_or_missing(x, y)
_array_equal(x::AbstractArray{Union{Missing, Nothing, Float64}, N}, y::AbstractArray{Union{Missing, Nothing, Float64}, N}) where {N} = _equal_or_missing(x, y)
function _equal_or_missing(x::AbstractArray, y::AbstractArray)
    size(x) == size(y) || return false
    anymissing = false
    for k in 1:length(x)
        eq = x[k] == y[k]
        if ismissing(eq)
            anymissing = true
        elseif !_nonmissing(eq)
            return false
        end
    end
    return anymissing ? missing : true
end

_default_rtol(atol) = atol > 0 ? 0.0 : sqrt(eps(Float64))
# Julia's `rtoldefault(x, y, atol)`: the larger of the two types' `sqrt(eps(T))`.
function _default_rtol(x, y, atol)
    r = max(_rtol_of(x), _rtol_of(y))
    return atol > 0 ? zero(r) : r
end
_rtol_of(x) = sqrt(eps(Float64))
_rtol_of(x::Float32) = sqrt(eps(Float32))

function _norm2(x)
    s = 0.0
    for k in 1:length(x)
        s += abs2(x[k])
    end
    return sqrt(s)
end

# `println` and `print` as values (`foreach(println, xs)`, `map(print, xs)`): zy shows no
# output, so they return `nothing`, as a call of either does (the syntax leaves those out
# with a note).
println(xs...) = nothing
print(xs...) = nothing

"""
    hypot(x, y), hypot(x, y, z, ...)

`sqrt(x^2 + y^2)` computed without overflow or underflow of the squares (`Inf` if either is
infinite, even with a NaN), correctly rounded as Julia's is on hardware with a fused
multiply-add (base/math.jl); of more numbers, Julia's `maxabs * sqrt(sum(abs2(x / maxabs)))`.
"""
hypot(x::Real, y::Real) = _hypot2(promote(float(x), float(y))...)

function _hypot2(x::Float64, y::Float64)
    if isinf(x) || isinf(y)
        return Inf
    end
    ax = abs(x)
    ay = abs(y)
    if ay > ax
        ax, ay = ay, ax
    end
    # Widely varying operands (also `ay == 0`, and a NaN, which compares false below).
    if ay <= ax * 1.0536712127723509e-8
        return ax
    end
    scale = eps(Float64) * sqrt(floatmin(Float64))
    if ax > 9.480751908109176e153
        ax = ax * scale
        ay = ay * scale
        scale = inv(scale)
    elseif ay < 1.4916681462400413e-154
        ax = ax / scale
        ay = ay / scale
    else
        scale = 1.0
    end
    h = sqrt(ax * ax + ay * ay)
    hsquared = h * h
    axsquared = ax * ax
    h -= (fma(-ay, ay, hsquared - axsquared) + fma(h, h, -hsquared) - fma(ax, ax, -axsquared)) / (2 * h)
    return h * scale
end

function hypot(x::Real, y::Real, z::Real, ws::Real...)
    v = [float(x), float(y), float(z)]
    for w in ws
        push!(v, float(w))
    end
    maxabs = maximum(abs, v)
    if isnan(maxabs) && any(isinf, v)
        return Inf
    elseif iszero(maxabs) || isinf(maxabs)
        return maxabs
    end
    return maxabs * sqrt(sum(w -> abs2(w / maxabs), v))
end

# ChainRules' rules: each argument over the result, divided by one instead at the origin
# (a zero gradient there), not the derivative of the scaling and correction steps above.
_hypot_norm(h) = iszero(h) ? one(h) : h

function rrule(::typeof(hypot), x::Float64, y::Float64)
    h = hypot(x, y)
    n = _hypot_norm(h)
    hypot_pullback(ȳ) = (NoTangent(), ȳ * (x / n), ȳ * (y / n))
    return h, hypot_pullback
end

function frule(Δ, ::typeof(hypot), x::Float64, y::Float64)
    h = hypot(x, y)
    n = _hypot_norm(h)
    return h, (x * Δ[2] + y * Δ[3]) / n
end

function rrule(::typeof(hypot), x::Float64, y::Float64, z::Float64)
    h = hypot(x, y, z)
    n = _hypot_norm(h)
    hypot_pullback(ȳ) = (NoTangent(), ȳ * (x / n), ȳ * (y / n), ȳ * (z / n))
    return h, hypot_pullback
end

function frule(Δ, ::typeof(hypot), x::Float64, y::Float64, z::Float64)
    h = hypot(x, y, z)
    return h, (x * Δ[2] + y * Δ[3] + z * Δ[4]) / _hypot_norm(h)
end
hypot(x::Float32, y::Float32) = Float32(hypot(Float64(x), Float64(y)))

"""
    fourthroot(x), ∜x

The fourth root of `x`, computed as Julia does by `sqrt` twice (a `DomainError` below zero).
"""
fourthroot(x::Number) = sqrt(sqrt(x))

"""
    atan(y, x)

The angle of the point `(x, y)` in `[-π, π]` (Julia's two-argument `atan`, signed zeros
included), computed from the smaller ratio. Its derivatives are ChainRules' rule (below).
"""
atan(y::Real, x::Real) = atan(promote(float(y), float(x))...)
atan(y::Float32, x::Float32) = Float32(atan(Float64(y), Float64(x)))

function atan(yf::Float64, xf::Float64)
    if isnan(xf) || isnan(yf)
        return NaN
    elseif isinf(xf) && isinf(yf)
        a = xf > 0.0 ? π / 4 : 3π / 4
        return yf > 0.0 ? a : -a
    elseif abs(yf) > abs(xf)
        return yf > 0.0 ? π / 2 - atan(xf / yf) : -π / 2 - atan(xf / yf)
    elseif xf > 0.0
        return atan(yf / xf)
    elseif xf < 0.0
        return _signbit(yf) ? atan(yf / xf) - π : atan(yf / xf) + π
    else
        return _signbit(xf) ? (_signbit(yf) ? -π : π) : yf
    end
end

_signbit(v::Float64) = copysign(1.0, v) < 0.0

# ChainRules' rule for `atan(y, x)`: `(x / u, -y / u)` with `u = x² + y²`, which is
# `(NaN, NaN)` at the origin, where the angle jumps (differentiating the branches above would
# give a finite one-sided answer there without a word).
function rrule(::typeof(atan), y::Float64, x::Float64)
    function atan_pullback(ȳ)
        u = x * x + y * y
        return (NoTangent(), ȳ * (x / u), ȳ * (-y / u))
    end
    return atan(y, x), atan_pullback
end

function frule(Δ, ::typeof(atan), y::Float64, x::Float64)
    u = x * x + y * y
    return atan(y, x), (x / u) * Δ[2] + (-y / u) * Δ[3]
end

"""
    max(a, b, c, xs...), min(a, b, c, xs...)

The largest (smallest) of several numbers, left to right.
"""
max(a::Real, b::Real, c::Real, xs::Real...) = max(max(a, b), c, xs...)
min(a::Real, b::Real, c::Real, xs::Real...) = min(min(a, b), c, xs...)

# Julia's generic `max(x, y)` and `min(x, y)` of values ordered by `isless` (the program's
# structs with a `Base.isless` method): of two equal ones, `max` gives `y` and `min` gives `x`.
_isless_max(x, y) = isless(y, x) ? x : y
_isless_min(x, y) = isless(y, x) ? y : x

# `maximum(x)` (`minimum(x)`) of an array of such values: Julia's `mapreduce(identity, max, x)`
# (`min`), folded left to right.
function _isless_extremum(x, largest::Bool)
    _nonempty(x)
    m = x[1]
    for i in 2:length(x)
        m = largest ? _isless_max(m, x[i]) : _isless_min(m, x[i])
    end
    return m
end

"""
    ComposedFunction(outer, inner), f ∘ g

The composition `x -> outer(inner(x))`.
"""
struct ComposedFunction{O, I}
    outer::O
    inner::I
end

(c::ComposedFunction)(x...) = c.outer(c.inner(x...))

"""
    typeassert(x, T), x::T

`x` itself where it is a `T`; Julia's `TypeError` where it is not.
"""
typeassert(x, T) = x isa T ? x : throw(TypeError("in typeassert, expected $(T), got a value of type $(typeof(x))"))

"""
    !f

The negation of a predicate `f`: `x -> !f(x)` (`count(!iszero, x)`, `filter(!isnan, x)`).
"""
!(f::Function) = ComposedFunction(!, f)

"""
    floor(T, x), ceil(T, x), round(T, x), trunc(T, x)

`x` rounded and converted to the integer type `T`: where it does not fit, Julia's
`InexactError: trunc(Int64, x)` (each rounds first, then truncates).
"""
floor(T::Type{Int64}, x::Real) = _trunc_int(floor(x))
ceil(T::Type{Int64}, x::Real) = _trunc_int(ceil(x))
round(T::Type{Int64}, x::Real) = _trunc_int(round(x))
trunc(T::Type{Int64}, x::Real) = _trunc_int(trunc(x))
floor(T::Type{Int}, x::Real) = _trunc_int(floor(x))
ceil(T::Type{Int}, x::Real) = _trunc_int(ceil(x))
round(T::Type{Int}, x::Real) = _trunc_int(round(x))
trunc(T::Type{Int}, x::Real) = _trunc_int(trunc(x))
# An integral `x` as an Int64, or the `InexactError` Julia's `trunc(Int64, x)` raises.
_trunc_int(x::Integer) = Int(x)
_trunc_int(x::Real) =
    -9.223372036854775808e18 <= x < 9.223372036854775808e18 ? Int(x) : throw(InexactError(:trunc, Int64, x))

"""
    convert(T, x)

`x` as a value of the number type `T`.
"""
convert(T::Type{Float64}, x::Real) = T(x)
convert(T::Type{Int64}, x::Real) = T(x)
convert(T::Type{Int}, x::Real) = T(x)
convert(T::Type{Bool}, x::Real) = T(x)
# Julia's `convert(::Type{T}, x::T) = x`, its `convert(::Type{T}, x::Number) where
# {T<:Number} = T(x)` (the program's number types converted by their constructors), and its
# MethodError for any other pair. An array struct of the program converted to an array type
# (`convert(Array, v)`) is Julia's `T(v)`: a new array of its elements, read by its `getindex`.
convert(T, x) = x isa T ? x :
    x isa AbstractArray && T <: AbstractArray ? convert(T, _array_collect(x)) : _no_convert(T, x)
convert(T, x::Number) = x isa T ? x : T <: Number ? T(x) : _no_convert(T, x)
_no_convert(T, x) = error(:MethodError, "Cannot `convert` an object of type $(typeof(x)) to an object of type $(T)")
# Julia's `convert(::Type{T}, a::AbstractArray) where {T<:Array} = a isa T ? a : T(a)::T`: a
# new `Vector{S}` or `Matrix{S}` of the elements each converted to `S` (`InexactError` where one
# cannot be), an array of another number of dimensions Julia's `MethodError` of `T(a)`.
convert(T, x::AbstractVector) = x isa T ? x : T <: AbstractVector ? _vector_of(eltype(T), x) : _convert_array(T, x)
convert(T, x::AbstractMatrix) = x isa T ? x : T <: AbstractMatrix ? _matrix_of(eltype(T), x) : _convert_array(T, x)
_convert_array(T, x) = T <: AbstractArray ? error(:MethodError, "no method matching $(T)(::$(typeof(x)))") : _no_convert(T, x)
# Julia's `convert(::Type{T}, x::Tuple) where {T<:Tuple}`: each element converted to its type
# in `T` (`convert(Tuple{Float64, Float64}, (1, 2)) === (1.0, 2.0)`), another length Julia's
# `MethodError`.
convert(T, x::Tuple) = x isa T ? x : T <: Tuple ? _convert_elements(T, x, fieldtypes(T), x) : _no_convert(T, x)
# The elements of `x` each converted to its type in `types`; where the lengths differ, Julia's
# `MethodError` of converting the whole tuple `t` to `T`.
_convert_elements(T, t, ::Tuple{}, ::Tuple{}) = ()
_convert_elements(T, t, ::Tuple{}, x::Tuple) = _no_convert(T, t)
_convert_elements(T, t, types::Tuple, ::Tuple{}) = _no_convert(T, t)
_convert_elements(T, t, types::Tuple, x::Tuple) =
    (convert(types[1], x[1]), _convert_elements(T, t, tail(types), tail(x))...)

# A value assigned to a local declared `x::T` (lowering calls this): `v` where it is a `T`,
# else `convert(T, v)`, as Julia's typed locals.
_declared_convert(T, v) = v isa T ? v : convert(T, v)

# A value returned from a method annotated `f(x)::T` (lowering calls this): Julia's
# `convert(T, v)::T`, `v` itself where it is a `T`.
_return_convert(T, v) = v isa T ? v : typeassert(convert(T, v), T)

"""
    sortperm(x; lt = isless, by = identity, rev = false), sort(x; lt, by, rev)

The permutation that sorts a vector by the keys `by(xᵢ)` compared with `lt` (stable: equal keys
keep their order; NaN last, as Julia's `isless` orders them), and the sorted copy. The gradient of `sort` flows back through
the permutation.
"""
function sortperm(x::AbstractVector; rev::Bool = false, by = identity, lt = _sort_isless)
    n = length(x)
    p = collect(1:n)
    tmp = collect(1:n)
    width = 1
    while width < n
        lo = 1
        while lo <= n - width
            mid = lo + width - 1
            hi = min(lo + 2 * width - 1, n)
            i = lo
            j = mid + 1
            for k in lo:hi
                if j > hi || (i <= mid && !_sort_before(by(x[p[j]]), by(x[p[i]]), rev, lt))
                    tmp[k] = p[i]
                    i += 1
                else
                    tmp[k] = p[j]
                    j += 1
                end
            end
            for k in lo:hi
                p[k] = tmp[k]
            end
            lo += 2 * width
        end
        width *= 2
    end
    return p
end

sort(x::AbstractVector; rev::Bool = false, by = identity, lt = _sort_isless) =
    [x[k] for k in sortperm(x; rev = rev, by = by, lt = lt)]

"""
    issorted(v; lt = isless, by = identity, rev = false)

Whether no element of `v` sorts before the one preceding it by the keys `by(vᵢ)` (`sort`'s
order by `lt`, reversed by `rev`): `true` for an empty or one-element vector.
"""
function issorted(v; rev::Bool = false, by = identity, lt = _sort_isless)
    for i in 2:length(v)
        _sort_before(by(v[i]), by(v[i - 1]), rev, lt) && return false
    end
    return true
end

"""
    sort(A::AbstractMatrix; dims, lt = isless, by = identity, rev = false)

A copy of the matrix with each column (`dims = 1`) or each row (`dims = 2`) sorted on its own
(a copy as it is for a dimension beyond the second).
"""
function sort(A::AbstractMatrix; dims::Int, rev::Bool = false, by = identity, lt = _sort_isless)
    dims >= 1 || throw(ArgumentError("dimension out of range"))
    B = copy(A)
    if dims == 1
        for j in 1:size(A, 2)
            B[:, j] = sort(A[:, j]; rev = rev, by = by, lt = lt)
        end
    elseif dims == 2
        for i in 1:size(A, 1)
            B[i, :] = sort(A[i, :]; rev = rev, by = by, lt = lt)
        end
    end
    return B
end

"""
    sortslices(A::AbstractMatrix; dims, rev = false)

A new matrix of the rows (`dims = 1`) or columns (`dims = 2`) of `A` in order, compared as
vectors are: lexicographically by Julia's `isless` of the elements.
"""
function sortslices(A::AbstractMatrix; dims::Int, rev::Bool = false)
    if dims == 1
        return A[sortperm([A[i, :] for i in 1:size(A, 1)]; rev = rev), :]
    elseif dims == 2
        return A[:, sortperm([A[:, j] for j in 1:size(A, 2)]; rev = rev)]
    end
    error("unsupported: `sortslices` of a matrix along dimension $(dims)")
end

"""
    sort!(x; lt = isless, by = identity, rev = false), reverse!(x)

`x` sorted (reversed) in place, and returned: `sort(x)` (`reverse(x)`) copied into `x`, the same
elements Julia's in-place algorithms leave.
"""
sort!(x::AbstractVector; rev::Bool = false, by = identity, lt = _sort_isless) =
    copyto!(x, sort(x; rev = rev, by = by, lt = lt))
reverse!(x::AbstractVector) = copyto!(x, reverse(x))

# `x[start:stop]` reversed in place (Julia's `reverse!(v, start, stop)`): a `BoundsError` at
# the first end outside `x` where the part holds two elements or more.
function reverse!(x::AbstractVector, start::Integer, stop::Integer = lastindex(x))
    s, n = Int(start), Int(stop)
    if n > s
        1 <= s <= length(x) || throw(BoundsError(x, s))
        1 <= n <= length(x) || throw(BoundsError(x, n))
        while s < n
            x[s], x[n] = x[n], x[s]
            s += 1
            n -= 1
        end
    end
    return x
end

"""
    partialsort(x, k; rev = false, by = identity), partialsortperm(x, k; ...)

The `k`-th element of `x` in sorted order (the elements at the positions of a range `k`), and
its index in `x`: `sort(x)[k]` and `sortperm(x)[k]` (Julia sorts only as far as `k` needs; the
result is the same).
"""
partialsort(x::AbstractVector, k; rev::Bool = false, by = identity) = sort(x; rev = rev, by = by)[k]
partialsortperm(x::AbstractVector, k; rev::Bool = false, by = identity) = sortperm(x; rev = rev, by = by)[k]

# `a` strictly before `b` in the order `sort` uses: Julia's `isless` (NaN after every number),
# reversed with `rev`.
# Whether `a` sorts before `b` by `lt` (`_sort_isless`, Julia's `isless`, unless given), `rev`
# reversing it.
_sort_before(a, b, rev::Bool, lt) = rev ? lt(b, a) : lt(a, b)
_sort_isless(a::Real, b::Real) = isnan(a) ? false : (isnan(b) ? true : _isless(a, b))
# Other values in Julia's `isless` order (the program's own `Base.isless` methods, tuples).
_sort_isless(a, b) = isless(a, b)
# Vectors in Julia's `isless` order: by their first elements that differ, a prefix first.
function _sort_isless(a::AbstractVector, b::AbstractVector)
    for k in 1:min(length(a), length(b))
        _sort_isless(a[k], b[k]) && return true
        _sort_isless(b[k], a[k]) && return false
    end
    return length(a) < length(b)
end

# ---- Division, remainders, signs and integer functions (Base's int.jl, intfuncs.jl, div.jl,
# float.jl, math.jl), written as Julia writes them ---------------------------------------------

"""
    rem(x, y)

`x % y`: the remainder of `x ÷ y`, with the sign of `x`.
"""
rem(x::Real, y::Real) = x % y

"""
    div(x, y)

`x ÷ y`: the quotient rounded toward zero.
"""
div(x::Real, y::Real) = x ÷ y

"""
    fld(x, y)

The largest integer at most `x / y` (the quotient rounded down).
"""
function fld(x::Int, y::Int)
    d = x ÷ y
    return (d * y != x && ((x < 0) != (y < 0))) ? d - 1 : d
end
fld(x::Float64, y::Float64) = round((x - mod(x, y)) / y)
fld(x::Float32, y::Float32) = round((x - mod(x, y)) / y)
# Of integers of other types: in their promoted type (`÷` converts exactly).
function fld(x::Integer, y::Integer)
    d = x ÷ y
    return (d * y != x && ((x < 0) != (y < 0))) ? d - one(d) : d
end
fld(x::Real, y::Real) = fld(float(x), float(y))

"""
    cld(x, y)

The smallest integer at least `x / y` (the quotient rounded up).
"""
function cld(x::Int, y::Int)
    d = x ÷ y
    return (d * y != x && ((x > 0) == (y > 0))) ? d + 1 : d
end
cld(x::Float64, y::Float64) = -fld(-x, y)
cld(x::Float32, y::Float32) = -fld(-x, y)
function cld(x::Integer, y::Integer)
    d = x ÷ y
    return (d * y != x && ((x > 0) == (y > 0))) ? d + one(d) : d
end
cld(x::Real, y::Real) = cld(float(x), float(y))

"""
    mod(x, y)

`x - fld(x, y) * y`: the remainder with the sign of `y`.
"""
function mod(x::Int, y::Int)
    y == -1 && return 0
    return x - fld(x, y) * y
end
function mod(x::Float64, y::Float64)
    r = x % y
    if r == 0
        return copysign(r, y)
    elseif (r > 0) != (y > 0)
        return r + y
    else
        return r
    end
end
function mod(x::Float32, y::Float32)
    r = x % y
    if r == 0
        return signbit(y) ? -abs(r) : abs(r)
    elseif (r > 0) != (y > 0)
        return r + y
    else
        return r
    end
end
# Of integers of other types: in their promoted type (`%` converts exactly).
function mod(x::Integer, y::Integer)
    r = x % y
    return (r != 0 && ((r < 0) != (y < 0))) ? r + y : r
end
# A Float32 with another number: in their promoted type (a Float64's, or the Float32's).
mod(x::Float32, y::Real) = mod(promote(x, y)...)
mod(x::Real, y::Float32) = mod(promote(x, y)...)
fld(x::Float32, y::Real) = fld(promote(x, y)...)
fld(x::Real, y::Float32) = fld(promote(x, y)...)
cld(x::Float32, y::Real) = cld(promote(x, y)...)
cld(x::Real, y::Float32) = cld(promote(x, y)...)
mod(x::Real, y::Real) = mod(float(x), float(y))

"""
    mod1(x, y)

`mod(x, y)` in `(0, y]` rather than `[0, y)`.
"""
function mod1(x::Real, y::Real)
    m = mod(x, y)
    return m == 0 ? oftype(m, y) : m
end

"""
    divrem(x, y)

`(div(x, y), rem(x, y))`.
"""
divrem(x::Real, y::Real) = (div(x, y), rem(x, y))

"""
    fldmod(x, y)

`(fld(x, y), mod(x, y))`.
"""
fldmod(x::Real, y::Real) = (fld(x, y), mod(x, y))

"""
    oftype(x, y)

`y` converted to the type of `x`.
"""
oftype(x::Float64, y::Real) = Float64(y)
oftype(x::Int, y::Real) = Int(y)
oftype(x::Float32, y::Real) = Float32(y)
oftype(x::UInt64, y::Real) = UInt64(y)

"""
    trunc(x)

`x` rounded toward zero (`-0.0` for a negative `x` above `-1`); the gradient is zero.
"""
trunc(x::Float64) = x < 0.0 ? ceil(x) : floor(x)
trunc(x::Int) = x
trunc(x::Bool) = x

"""
    signbit(x)

Whether the sign bit of `x` is set (`-0.0` and a negative NaN included).
"""
signbit(x::Float64) = copysign(1.0, x) < 0.0
signbit(x::Float32) = signbit(Float64(x))
signbit(x::Integer) = x < 0
signbit(x::Int) = x < 0
signbit(x::Bool) = false

"""
    fma(x, y, z)

`x * y + z` rounded once (a primitive for Float64s); of three integers, `x * y + z`.
"""
fma(x::Int, y::Int, z::Int) = x * y + z

# `copysign(x::Float64, y)` is a primitive; an integer `x` is Base's Julia method.
copysign(x::Int, y::Real) = signbit(x) != signbit(y) ? -x : x

"""
    flipsign(x, y)

`x` with its sign flipped when `y` is negative (`signbit(y)`).
"""
flipsign(x::Real, y::Real) = signbit(y) ? -x : x

"""
    iszero(x)

`x == zero(x)`; for an array, whether every entry is zero.
"""
iszero(x::Real) = x == zero(x)
iszero(x::AbstractArray) = all(iszero, x)

"""
    isone(x)

`x == one(x)`.
"""
isone(x::Real) = x == one(x)

"""
    isinteger(x)

Whether `x` is a whole number.
"""
isinteger(x::Float64) = x - trunc(x) == 0.0
isinteger(x::Float32) = isinteger(Float64(x))
isinteger(x::Int) = true
isinteger(x::Bool) = true
isinteger(x::Integer) = true

"""
    xor(a, b)

Exclusive or of two Bools (`a ⊻ b`).
"""
xor(a::Bool, b::Bool) = a != b

"""
    ~x

Bitwise not: `-x - 1` for an Int (two's complement), `!x` for a Bool.
"""
(~)(x::Int) = -x - 1
(~)(x::Bool) = !x

"""
    a & b, a | b

Bitwise and, or: of Bools the logical ones (both operands evaluated), of Ints bit by bit in
two's complement.
"""
(&)(a::Bool, b::Bool) = a ? b : false
(|)(a::Bool, b::Bool) = a ? true : b
(&)(a::Int, b::Int) = and_int(a, b)
(|)(a::Int, b::Int) = or_int(a, b)
xor(a::Int, b::Int) = xor_int(a, b)
(&)(a::Integer, b::Integer) = and_int(a % _int_promoted(a, b), b % _int_promoted(a, b))
(|)(a::Integer, b::Integer) = or_int(a % _int_promoted(a, b), b % _int_promoted(a, b))
xor(a::Integer, b::Integer) = xor_int(a % _int_promoted(a, b), b % _int_promoted(a, b))

# The type Julia promotes two integers to (`UInt8` and `Int64`: `Int64`).
_int_promoted(a, b) = typeof(zero(a) + zero(b))

"""
    ~x, x << n, x >> n, x >>> n of the fixed-width integers

Bitwise not and shifts in the type's own width (`0x80 << 1 == 0x00`, `Int8(-128) >> 1 ==
-64`, `Int8(-128) >>> 1 == 64`), computed on the Int64 of the same low bits.
"""
(~)(x::Union{Int8, Int16, Int32, UInt8, UInt16, UInt32, UInt64}) = ~(x % Int) % typeof(x)
(<<)(x::Union{Int8, Int16, Int32, UInt8, UInt16, UInt32, UInt64}, n::Int) =
    n < 0 ? x >> -n : ((x % Int) << n) % typeof(x)
(>>)(x::Union{Int8, Int16, Int32}, n::Int) = ((x % Int) >> n) % typeof(x)
(>>)(x::Unsigned, n::Int) = n < 0 ? x << -n : ((x % Int) >>> n) % typeof(x)
(>>>)(x::Unsigned, n::Int) = x >> n
(>>>)(x::Union{Int8, Int16, Int32}, n::Int) = n < 0 ? x << -n : (_zext(x) >>> n) % typeof(x)

# The bits of a fixed-width integer as a nonnegative Int (a UInt64's as its Int64).
_zext(x::Unsigned) = x % Int
_zext(x::Int8) = x % UInt8 % Int
_zext(x::Int16) = x % UInt16 % Int
_zext(x::Int32) = x % UInt32 % Int

# The width in bits of a fixed-width integer.
_nbits(::Union{Int8, UInt8}) = 8
_nbits(::Union{Int16, UInt16}) = 16
_nbits(::Union{Int32, UInt32}) = 32
_nbits(::UInt64) = 64

"""
    x << n, x >> n

Arithmetic shifts of an Int by `n` bits (`n < 0` shifts the other way).
"""
(<<)(x::Int, n::Int) = n < 0 ? x >> -n : (n >= 64 ? 0 : shl_int(x, n))
(>>)(x::Int, n::Int) = n < 0 ? x << -n : ashr_int(x, min(n, 63))

"""
    x >>> n

Logical shift right of an Int's 64 bits (zeros come in from the left).
"""
(>>>)(x::Int, n::Int) = n < 0 ? x << -n : (n >= 64 ? 0 : lshr_int(x, n))

# ---- Int128 and UInt128 (held as their 128 bits; arithmetic and conversions are the
# fixed-width integers' builtins)

typemax(::Type{Int128}) = 170141183460469231731687303715884105727
typemin(::Type{Int128}) = -170141183460469231731687303715884105728
typemax(::Type{UInt128}) = 0xffffffffffffffffffffffffffffffff
typemin(::Type{UInt128}) = 0x00000000000000000000000000000000
oftype(x::Int128, y::Real) = Int128(y)
oftype(x::UInt128, y::Real) = UInt128(y)

# The syntax's calls for a literal of 128 bits, on its decimal digits: a decimal literal past
# `typemax(Int64)` is an Int128, a hexadecimal one of 17 to 32 digits a UInt128.
_int128_literal(s::String) = _parse_int128(s, 10)
_uint128_literal(s::String) = _parse_uint128(s, 10)
parse(::Type{Int128}, s::AbstractString; base = nothing) = _parse_int128(s, base)
parse(::Type{UInt128}, s::AbstractString; base = nothing) = _parse_uint128(s, base)

(~)(x::Union{Int128, UInt128}) = xor_int(x, -one(x))
(<<)(x::Union{Int128, UInt128}, n::Int) =
    n < 0 ? x >> -n : (n >= 128 ? zero(x) : shl_int(x, n % typeof(x)))
(>>)(x::Int128, n::Int) = n < 0 ? x << -n : ashr_int(x, min(n, 127) % Int128)
(>>)(x::UInt128, n::Int) = n < 0 ? x << -n : (n >= 128 ? zero(x) : lshr_int(x, n % UInt128))
(>>>)(x::Int128, n::Int) = n < 0 ? x << -n : (n >= 128 ? zero(x) : lshr_int(x, n % Int128))
_nbits(::Union{Int128, UInt128}) = 128
count_ones(x::Union{Int128, UInt128}) = count_ones(x % UInt64) + count_ones((x >>> 64) % UInt64)
count_zeros(x::Union{Int128, UInt128}) = 128 - count_ones(x)
function leading_zeros(x::Union{Int128, UInt128})
    high = (x >>> 64) % UInt64
    return high != 0 ? leading_zeros(high) : 64 + leading_zeros(x % UInt64)
end
function trailing_zeros(x::Union{Int128, UInt128})
    low = x % UInt64
    return low != 0 ? trailing_zeros(low) : 64 + trailing_zeros((x >>> 64) % UInt64)
end
bitstring(x::Union{Int128, UInt128}) = string(x % UInt128; base = 2, pad = 128)

# `string(n; base, pad)` of one: the digits of its magnitude, a sign in front.
function string(n::Union{Int128, UInt128}; base::Int = 10, pad::Int = 1)
    (base < 2 || base > 36) && throw(ArgumentError("base must satisfy 2 ≤ abs(base) ≤ 62, got $base"))
    d = digits(n; base = base)
    s = ""
    for k in (length(d) + 1):pad
        s = s * "0"
    end
    for k in length(d):-1:1
        s = s * _DIGIT_CHARS[Int(abs(d[k])) + 1]
    end
    return n < 0 ? "-" * s : s
end

# `round(Int128, x)` and the like: the rounded value converted, else Julia's
# `InexactError: trunc(Int128, x)`.
floor(T::Type{Int128}, x::Real) = _trunc_wide(T, floor(x))
ceil(T::Type{Int128}, x::Real) = _trunc_wide(T, ceil(x))
round(T::Type{Int128}, x::Real) = _trunc_wide(T, round(x))
trunc(T::Type{Int128}, x::Real) = _trunc_wide(T, trunc(x))
floor(T::Type{UInt128}, x::Real) = _trunc_wide(T, floor(x))
ceil(T::Type{UInt128}, x::Real) = _trunc_wide(T, ceil(x))
round(T::Type{UInt128}, x::Real) = _trunc_wide(T, round(x))
trunc(T::Type{UInt128}, x::Real) = _trunc_wide(T, trunc(x))
_trunc_wide(T::Type, x::Integer) = T(x)
_trunc_wide(::Type{Int128}, x::Real) =
    typemin(Int128) <= x <= typemax(Int128) ? Int128(x) : throw(InexactError(:trunc, Int128, x))
_trunc_wide(::Type{UInt128}, x::Real) =
    0 <= x <= typemax(UInt128) ? UInt128(x) : throw(InexactError(:trunc, UInt128, x))

"""
    widen(x), widemul(x, y)

`x` in the integer type of twice its width (`Int64` to `Int128`), a `Float32` as a
`Float64`; the product of `x` and `y` computed in the widened type of their promotion, which
does not overflow.
"""
widen(x::Int8) = Int16(x)
widen(x::Int16) = Int32(x)
widen(x::Int32) = Int64(x)
widen(x::Int64) = Int128(x)
widen(x::UInt8) = UInt16(x)
widen(x::UInt16) = UInt32(x)
widen(x::UInt32) = UInt64(x)
widen(x::UInt64) = UInt128(x)
widen(x::Float32) = Float64(x)
widemul(x::Integer, y::Integer) = _widemul_same(promote(x, y)...)
_widemul_same(x::T, y::T) where {T<:Integer} = widen(x) * widen(y)

# `n!` of an Int128 up to 33 and a UInt128 up to 34 (Julia's table of them).
function factorial(n::Union{Int128, UInt128})
    n < 0 && throw(DomainError(n, "`n` must not be negative."))
    n > (n isa Int128 ? 33 : 34) && throw(OverflowError("$n is too large to look up in the table; consider using `factorial(big($n))` instead"))
    f = one(n)
    for k in 2:Int(n)
        f *= k
    end
    return f
end

"""
    \\(x, y)

Left division of numbers: `y / x`.
"""
(\)(x::Real, y::Real) = y / x
(\)(x::Real, y::AbstractArray) = y ./ x

"""
    isqrt(n)

The integer square root: the largest `m` with `m * m <= n`.
"""
function isqrt(x::Int)
    x == 0 && return x
    s = trunc(Int, sqrt(x))
    # one Newton step, as Float64's 53 bits may be too few
    s = (s + x ÷ s) ÷ 2
    return s * s > x ? s - 1 : s
end

"""
    gcd(a, b)

The greatest common (positive) divisor; `gcd(0, 0) == 0`.
"""
function gcd(a::Int, b::Int)
    while b != 0
        a, b = b, rem(a, b)
    end
    return _checked_abs(a)
end

"""
    lcm(a, b)

The least common (positive) multiple; `0` if either is zero.
"""
# Of integers of other types (`Int8`, `UInt16`), in their promoted type.
gcd(a::Integer, b::Integer) = _gcd_same(promote(a, b)...)
function _gcd_same(a::T, b::T) where {T<:Integer}
    while b != 0
        a, b = b, rem(a, b)
    end
    return abs(a)
end

lcm(a::Int, b::Int) = a == 0 ? a : _checked_abs(_checked_mul(a, b ÷ gcd(b, a)))

"""
    gcdx(a, b)

`(g, u, v)` with `g = gcd(a, b) = u * a + v * b`, by the extended Euclidean algorithm.
"""
function gcdx(a::Int, b::Int)
    a == b == 0 && return (0, 0, 0)
    s0, s1, t0, t1 = 1, 0, 0, 1
    while b != 0
        q, r = divrem(a, b)
        a, b = b, r
        s0, s1 = s1, s0 - q * s1
        t0, t1 = t1, t0 - q * t1
    end
    return a < 0 ? (-a, -s0, -t0) : (a, s0, t0)
end

"""
    invmod(n, m)

The inverse of `n` modulo `m`: the `y` in `[0, m)` (`(m, 0]` for a negative `m`) with
`mod(n * y, m) == mod(1, m)`; a DomainError when `m` is 0 or `gcd(n, m) != 1`.
"""
function invmod(n::Int, m::Int)
    m == 0 && throw(DomainError(m, "`m` must not be 0."))
    n == typemin(Int) && m == -1 && return 0
    g, x, y = gcdx(n, m)
    g != 1 && throw(DomainError((n, m), "Greatest common divisor is $g."))
    return mod(x, m)
end

"""
    powermod(x, p, m)

`mod(x^p, m)` by squaring modulo `m`, without overflow; a negative `p` uses `invmod(x, m)`.
"""
function powermod(x::Int, p::Int, m::Int)
    p == 0 && return mod(1, m)
    (m == 1 || m == -1) && return 0
    b = mod(x, m)
    p < 0 && return powermod(invmod(b, m), -p, m)
    a = abs(m)
    b = mod(b, a)
    r = 1
    while p > 0
        if p & 1 == 1
            r = _mulmod(r, b, a)
        end
        b = _mulmod(b, b, a)
        p >>= 1
    end
    return mod(r, m)
end

# Of an unsigned modulus (`powermod(2, n - 1, UInt64(n))`): Julia's result is of `m`'s type.
function powermod(x::Integer, p::Integer, m::T) where {T<:Unsigned}
    p < 0 && error(:unsupported, "`powermod` with a negative power and an unsigned modulus (Julia's `invmod` of unsigned integers is not in zy's library); convert the modulus to `Int`")
    m == 1 && return zero(T)
    b = x >= 0 ? T(x) % m : (m - T(-x) % m) % m
    r = one(T)
    while p > 0
        if p & 1 == 1
            r = _mulmod(r, b, m)
        end
        b = _mulmod(b, b, m)
        p >>= 1
    end
    return r
end

# `mod(a * b, m)` for `0 <= a, b < m`, by doubling, so that no step overflows (Int64, UInt64).
function _mulmod(a::T, b::T, m::T) where {T<:Integer}
    r = zero(T)
    while b > 0
        if b & 1 == 1
            r = r >= m - a ? r - (m - a) : r + a
        end
        a = a >= m - a ? a - (m - a) : a + a
        b >>= 1
    end
    return r
end

_checked_abs(a::Int) = a == typemin(Int) ? throw(OverflowError("checked arithmetic: cannot compute |x| for x = $a::Int64")) : abs(a)

function _checked_mul(a::Int, b::Int)
    _mul_overflows(a, b) && throw(OverflowError("$a * $b overflowed for type Int64"))
    return a * b
end

# Would `a * b` and `a + b` wrap around in Int64?
_mul_overflows(a::Int, b::Int) = a != 0 && ((a == -1 && b == typemin(Int)) || (a * b) ÷ a != b)
_add_overflows(a::Int, b::Int) = (a >= 0) == (b >= 0) && (a + b >= 0) != (a >= 0)

# Rational numbers, as Julia's base/rational.jl defines them for Int64 parts: `n // d` in lowest
# terms with a non-negative denominator (`1//0` is infinity), Int arithmetic checked for
# overflow (Julia's `OverflowError`), promoted to Float64 beside a float. A `Rational` has no
# gradient (its parts are Ints); a gradient flows through the Float64 it becomes.

# The marker of the constructor that does not reduce.
struct _RationalUnsafe
end

"""
    Rational{T<:Integer}

The exact fraction `num//den`, reduced, with `den >= 0`; built by `n // d` or `Rational(n, d)`.
zy's rationals have Int64 parts.
"""
struct Rational{T<:Integer} <: Real
    num::T
    den::T
    # Julia's `unsafe_rational`: the parts as given (already reduced, `den >= 0`).
    Rational(num::Int, den::Int, _::_RationalUnsafe) = new{Int}(num, den)
end

_unsafe_rational(num::Int, den::Int) = Rational(num, den, _RationalUnsafe())

function _checked_den(num::Int, den::Int)
    if den < 0
        den = _checked_neg(den)
        num = _checked_neg(num)
    end
    return _unsafe_rational(num, den)
end

_checked_neg(a::Int) = a == typemin(Int) ? throw(OverflowError("checked arithmetic: cannot compute -x for x = $a::Int64")) : -a

function _checked_add(a::Int, b::Int)
    _add_overflows(a, b) && throw(OverflowError("$a + $b overflowed for type Int64"))
    return a + b
end

function _checked_sub(a::Int, b::Int)
    y = a - b
    (a >= 0) != (b >= 0) && (y >= 0) != (a >= 0) && throw(OverflowError("$a - $b overflowed for type Int64"))
    return y
end

"""
    Checked

Julia's `Base.Checked`: integer arithmetic that throws `OverflowError` where the plain operator
would wrap around (`Base.checked_mul(a, b)`, `using Base.Checked: checked_add`). Operands of two
integer types are promoted first, as Julia does.
"""
module Checked

export checked_neg, checked_abs, checked_add, checked_sub, checked_mul, checked_div,
    checked_rem, checked_fld, checked_mod, checked_cld, checked_pow, add_with_overflow,
    sub_with_overflow, mul_with_overflow

_overflow(a, op, b, T) = throw(OverflowError("$a $op $b overflowed for type $T"))

# `(wrapped result, whether it wrapped)`, as Julia's `add_with_overflow` & co. return.
add_with_overflow(a::Int, b::Int) = (a + b, Base._add_overflows(a, b))
function add_with_overflow(a::T, b::T) where {T<:Union{Int8, Int16, Int32, UInt8, UInt16, UInt32}}
    r = Int(a) + Int(b)
    return (a + b, r < typemin(T) || r > typemax(T))
end
add_with_overflow(a::UInt64, b::UInt64) = (a + b, a + b < a)

function sub_with_overflow(a::Int, b::Int)
    y = a - b
    return (y, (a >= 0) != (b >= 0) && (y >= 0) != (a >= 0))
end
function sub_with_overflow(a::T, b::T) where {T<:Union{Int8, Int16, Int32, UInt8, UInt16, UInt32}}
    r = Int(a) - Int(b)
    return (a - b, r < typemin(T) || r > typemax(T))
end
sub_with_overflow(a::UInt64, b::UInt64) = (a - b, b > a)

mul_with_overflow(a::Int, b::Int) = (a * b, Base._mul_overflows(a, b))
function mul_with_overflow(a::T, b::T) where {T<:Union{Int8, Int16, Int32, UInt8, UInt16, UInt32}}
    r = Int(a) * Int(b)
    return (a * b, r < typemin(T) || r > typemax(T))
end
mul_with_overflow(a::UInt64, b::UInt64) = (a * b, a != 0 && (a * b) ÷ a != b)

function checked_add(a::T, b::T) where {T<:Integer}
    r, wrapped = add_with_overflow(a, b)
    wrapped && _overflow(a, "+", b, T)
    return r
end
function checked_sub(a::T, b::T) where {T<:Integer}
    r, wrapped = sub_with_overflow(a, b)
    wrapped && _overflow(a, "-", b, T)
    return r
end
function checked_mul(a::T, b::T) where {T<:Integer}
    r, wrapped = mul_with_overflow(a, b)
    wrapped && _overflow(a, "*", b, T)
    return r
end
checked_add(a::Integer, b::Integer) = checked_add(promote(a, b)...)
checked_sub(a::Integer, b::Integer) = checked_sub(promote(a, b)...)
checked_mul(a::Integer, b::Integer) = checked_mul(promote(a, b)...)
checked_add(a::Integer) = a
checked_mul(a::Integer) = a
checked_add(a::Integer, b::Integer, c::Integer, xs::Integer...) = checked_add(checked_add(a, b), c, xs...)
checked_mul(a::Integer, b::Integer, c::Integer, xs::Integer...) = checked_mul(checked_mul(a, b), c, xs...)

# Of a signed type only `typemin` has no negation; of an unsigned one only zero has one.
function checked_neg(a::T) where {T<:Integer}
    if typemin(T) == 0 ? a != 0 : a == typemin(T)
        throw(OverflowError("checked arithmetic: cannot compute -x for x = $a::$T"))
    end
    return -a
end
function checked_abs(a::T) where {T<:Integer}
    typemin(T) != 0 && a == typemin(T) &&
        throw(OverflowError("checked arithmetic: cannot compute |x| for x = $a::$T"))
    return abs(a)
end

# Division by zero and `typemin ÷ -1` are already errors of the operators themselves.
checked_div(a::Integer, b::Integer) = div(a, b)
checked_rem(a::Integer, b::Integer) = rem(a, b)
checked_fld(a::Integer, b::Integer) = fld(a, b)
checked_mod(a::Integer, b::Integer) = mod(a, b)
checked_cld(a::Integer, b::Integer) = cld(a, b)

"""
    checked_pow(x, p)

`x^p` by squaring with [`checked_mul`](@ref), so an overflow anywhere is an `OverflowError`.
"""
function checked_pow(x::Integer, p::Integer)
    p < 0 && return x^p  # Julia's `DomainError` of an integer to a negative power
    r = one(x)
    while p > 0
        if p & 1 == 1
            r = checked_mul(r, x)
        end
        p >>= 1
        p > 0 && (x = checked_mul(x, x))
    end
    return r
end

end # module Checked

using .Checked

"""
    Base.divgcd(x, y)

`(x ÷ g, y ÷ g)` for `g = gcd(x, y)`: the two in lowest terms (Julia's unexported helper of
`Rational`, which programs' own rational types call as `Base.divgcd`).
"""
function divgcd(x::Integer, y::Integer)
    g = gcd(x, y)
    return (div(x, g), div(y, g))
end

function Rational(num::Int, den::Int)
    iszero(den) && iszero(num) && throw(ArgumentError("invalid rational: zero(Int64)//zero(Int64)"))
    n, d = divgcd(num, den)
    return _checked_den(n, d)
end
Rational(num::Integer, den::Integer) = Rational(Int(num), Int(den))
Rational(n::Integer) = _unsafe_rational(Int(n), 1)
Rational(x::Rational) = x

"""
    floor(x::Rational), ceil(x), trunc(x), round(x)

The integer next to `x` below, above, toward zero, or nearest (ties to even), as a `Rational`
(`floor(7//2) == 3//1`); `floor(Int, x)` and the others give it as an `Int`.
"""
floor(x::Rational) = Rational(fld(x.num, x.den))
ceil(x::Rational) = Rational(cld(x.num, x.den))
trunc(x::Rational) = Rational(div(x.num, x.den))
function round(x::Rational)
    q = fld(x.num, x.den)
    twice = 2 * (x.num - q * x.den)
    return Rational(twice > x.den || (twice == x.den && isodd(q)) ? q + 1 : q)
end
floor(::Type{Int}, x::Rational) = Int(floor(x))
ceil(::Type{Int}, x::Rational) = Int(ceil(x))
trunc(::Type{Int}, x::Rational) = Int(trunc(x))
round(::Type{Int}, x::Rational) = Int(round(x))
floor(::Type{Int64}, x::Rational) = floor(Int, x)
ceil(::Type{Int64}, x::Rational) = ceil(Int, x)
trunc(::Type{Int64}, x::Rational) = trunc(Int, x)
round(::Type{Int64}, x::Rational) = round(Int, x)

"""
    Rational(x::Float64)

The float as a fraction, Julia's `Rational{Int64}(x)` (`rationalize(Int, x, tol = 0)`): where the
fraction would overflow Int64, an `InexactError` unless the last convergent that fits converts
back to `x` (`Rational(0.1) == 3602879701896397//36028797018963968`; `Rational(1e30)` fails).
"""
function Rational(x::Float64)
    r = _rationalize(x, 0.0)
    x == _rational_float(r) || throw(InexactError(:Rational, Rational{Int64}, x))
    return r
end

"""
    rationalize([Int,] x; tol = eps(x))

The simplest fraction within `tol` of the float `x`, by Julia's algorithm: the convergents of
its continued fraction while they are farther than `tol` from `x`, then the smallest
semiconvergent within `tol`; where a numerator or denominator would overflow Int64, the last
convergent that fits (`rationalize(0.75) == 3//4`, `rationalize(π; tol = 0.01) == 22//7`,
`rationalize(1e20) == 1//0`). Of an integer, `x//1`; of a rational, itself.
"""
rationalize(x::Float64; tol::Real = eps(x)) = _rationalize(x, tol)
rationalize(::Type{T}, x::Float64; tol::Real = eps(x)) where {T<:Signed} = _rationalize(x, tol)
rationalize(::Type{T}, x::Float64, tol::Real) where {T<:Signed} = _rationalize(x, tol)
rationalize(x::Integer; tol::Real = 0) = Rational(x)
rationalize(::Type{T}, x::Integer; tol::Real = 0) where {T<:Signed} = Rational(x)
rationalize(x::Rational; tol::Real = 0) = x

# The continued fraction of `|x|` as Julia's `rationalize` computes it, exactly (a float's `÷`
# and `%` are): `x` kept as the quotient `x / y` of two floats, the error bound of the
# convergent `nt` grown by the partial quotients beside it.
function _rationalize(x::Float64, tol::Real)
    tol < 0 && throw(ArgumentError("negative tolerance $(tol)"))
    isnan(x) && return Int(x) // 1
    isinf(x) && return _unsafe_rational(x < 0 ? -1 : 1, 0)
    p, pp, q, qq = x < 0 ? -1 : 1, 0, 0, 1
    x = abs(x)
    a = trunc(x)
    r = x - a
    y = 1.0
    nt, t, tt = Float64(tol), 0.0, Float64(tol)
    while r > nt
        _convergent_overflows(a, p, pp, q, qq) && return p // q
        p, pp, q, qq = Int(a) * p + pp, p, Int(a) * q + qq, q
        x, y = y, r
        a = x ÷ y
        r = x % y
        t, tt = nt, t
        nt = a * t + tt
    end
    # The smallest `a` with `x - a y < a t + tt`: the simplest fraction within `tol`.
    a = cld(x - tt, y + t)
    _convergent_overflows(a, p, pp, q, qq) && return p // q
    return (Int(a) * p + pp) // (Int(a) * q + qq)
end

# Does the next convergent `(a p + pp) // (a q + qq)` overflow Int64 (Julia's `convert(Int, a)`
# failing, or its checked `*` and `+`)?
_convergent_overflows(a::Float64, p::Int, pp::Int, q::Int, qq::Int) =
    a >= 9.223372036854775808e18 || _step_overflows(Int(a), p, pp) || _step_overflows(Int(a), q, qq)
_step_overflows(a::Int, p::Int, pp::Int) = _mul_overflows(a, p) || _add_overflows(a * p, pp)

"""
    n // d

The exact quotient of integers or rationals, a `Rational` (`3 // 6 == 1//2`); a float operand
is Julia's `MethodError`.
"""
//(n::Integer, d::Integer) = Rational(n, d)
function //(x::Rational, y::Integer)
    xn, yn = divgcd(x.num, Int(y))
    return _checked_den(xn, _checked_mul(x.den, yn))
end
function //(x::Integer, y::Rational)
    xn, yn = divgcd(Int(x), y.num)
    return _checked_den(_checked_mul(xn, y.den), yn)
end
function //(x::Rational, y::Rational)
    xn, yn = divgcd(x.num, y.num)
    xd, yd = divgcd(x.den, y.den)
    return _checked_den(_checked_mul(xn, yd), _checked_mul(xd, yn))
end
# Of complex numbers as Julia's: rational parts (`1 // 2im` is `0//1 - 1//2*im`).
//(x::Complex, y::Real) = complex(real(x) // y, imag(x) // y)
//(x::Number, y::Complex) = x * conj(y) // real(y * conj(y))
function //(x::Complex, y::Complex)
    xy = x * conj(y)
    yy = real(y * conj(y))
    return complex(real(xy) // yy, imag(xy) // yy)
end

"""
    numerator(x), denominator(x)

The parts of a rational in lowest terms; of an integer, itself and `1`.
"""
numerator(x::Rational) = x.num
numerator(x::Integer) = x
denominator(x::Rational) = x.den
denominator(x::Integer) = one(x)

# `Float64(x)` and `float(x)` of a rational (Julia's `num / den` in Float64), and `Int(x)`
# (Julia's `InexactError` unless it is an integer).
_rational_float(x::Rational) = Float64(x.num) / Float64(x.den)
float(x::Rational) = _rational_float(x)
function _rational_int(x::Rational)
    x.den == 1 || throw(InexactError(:Int64, Int64, x))
    return x.num
end

zero(x::Rational) = _unsafe_rational(0, 1)
one(x::Rational) = _unsafe_rational(1, 1)
iszero(x::Rational) = iszero(x.num)
isone(x::Rational) = isone(x.num) & isone(x.den)
isinteger(x::Rational) = x.den == 1
isfinite(x::Rational) = !iszero(x.den)
isinf(x::Rational) = iszero(x.den)
isnan(x::Rational) = false
sign(x::Rational) = _unsafe_rational(sign(x.num), 1)
signbit(x::Rational) = signbit(x.num)
abs(x::Rational) = _unsafe_rational(_checked_abs(x.num), x.den)
copy(x::Rational) = x
inv(x::Rational) = _checked_den(x.den, x.num)

+(x::Rational) = x
function -(x::Rational)
    x.num == typemin(Int) && throw(OverflowError("rational numerator is typemin(Int64)"))
    return _unsafe_rational(-x.num, x.den)
end

function +(x::Rational, y::Rational)
    isinf(x) && x == y && return x
    xd, yd = divgcd(x.den, y.den)
    return Rational(_checked_add(_checked_mul(x.num, yd), _checked_mul(y.num, xd)), _checked_mul(x.den, yd))
end
function -(x::Rational, y::Rational)
    isinf(x) && x == -y && return x
    xd, yd = divgcd(x.den, y.den)
    return Rational(_checked_sub(_checked_mul(x.num, yd), _checked_mul(y.num, xd)), _checked_mul(x.den, yd))
end
+(x::Rational, y::Integer) = _unsafe_rational(_checked_add(x.num, _checked_mul(x.den, Int(y))), x.den)
-(x::Rational, y::Integer) = _unsafe_rational(_checked_sub(x.num, _checked_mul(x.den, Int(y))), x.den)
+(y::Integer, x::Rational) = _unsafe_rational(_checked_add(_checked_mul(x.den, Int(y)), x.num), x.den)
-(y::Integer, x::Rational) = _unsafe_rational(_checked_sub(_checked_mul(x.den, Int(y)), x.num), x.den)

function *(x::Rational, y::Rational)
    xn, yd = divgcd(x.num, y.den)
    xd, yn = divgcd(x.den, y.num)
    return _unsafe_rational(_checked_mul(xn, yn), _checked_mul(xd, yd))
end
function *(x::Rational, y::Integer)
    xd, yn = divgcd(x.den, Int(y))
    return _unsafe_rational(_checked_mul(x.num, yn), xd)
end
function *(y::Integer, x::Rational)
    yn, xd = divgcd(Int(y), x.den)
    return _unsafe_rational(_checked_mul(yn, x.num), xd)
end
/(x::Rational, y::Rational) = x // y
/(x::Rational, y::Integer) = x // y
/(x::Integer, y::Rational) = x // y

# Beside a float, a rational is the Float64 `num / den` (Julia's promotion).
+(x::Rational, y::Float64) = _rational_float(x) + y
+(x::Float64, y::Rational) = x + _rational_float(y)
-(x::Rational, y::Float64) = _rational_float(x) - y
-(x::Float64, y::Rational) = x - _rational_float(y)
*(x::Rational, y::Float64) = _rational_float(x) * y
*(x::Float64, y::Rational) = x * _rational_float(y)
/(x::Rational, y::Float64) = _rational_float(x) / y
/(x::Float64, y::Rational) = x / _rational_float(y)
*(x::Rational, A::AbstractArray{Float64}) = _rational_float(x) * A
*(A::AbstractArray{Float64}, x::Rational) = A * _rational_float(x)
/(A::AbstractArray{Float64}, x::Rational) = A / _rational_float(x)

# An array of rationals beside Float64s in arithmetic: its elements as Float64s first, as Julia
# promotes them (`Rational{Int}[1 2; 3 4] * [0.5, 1.0]`, `x' * A`, `0.5 * A`, `A + x`).
_rational_floats(A::Array{<:Rational}) = _gen_convert(Float64, 0.0, A)
*(A::Array{<:Rational}, B::AbstractArray{Float64}) = _rational_floats(A) * B
*(B::AbstractArray{Float64}, A::Array{<:Rational}) = B * _rational_floats(A)
*(a::Float64, A::Array{<:Rational}) = a * _rational_floats(A)
*(A::Array{<:Rational}, a::Float64) = _rational_floats(A) * a
+(A::Array{<:Rational}, B::Array{Float64}) = _rational_floats(A) + B
+(B::Array{Float64}, A::Array{<:Rational}) = B + _rational_floats(A)
-(A::Array{<:Rational}, B::Array{Float64}) = _rational_floats(A) - B
-(B::Array{Float64}, A::Array{<:Rational}) = B - _rational_floats(A)

# A rational is a collection of one element, as every Julia `Number` is (`length(1//2) == 1`).
length(x::Rational) = 1

# `vcat(1//2, x)`, `[A; 1//3]`: a rational as a part of a concatenation (promoted with the
# others' elements by `_cat_zero_of`: beside Float64s to Float64, beside Ints a rational).
_cat_size(x::Rational, d::Int) = 1
_cat_get(x::Rational, i::Int, j::Int) = x
_cat_zero(x::Rational) = zero(x)
_cat_zero(x::Array{<:Rational}) = _unsafe_rational(0, 1)

# `[a, b]` mixing rationals with other numbers, promoted as Julia's `vect` promotes: beside
# Ints, `Rational{Int64}`s (`[1, 1//2] == [1//1, 1//2]`); beside a Float64, Float64s.
_rational_vect(xs::Union{Integer, Rational}...) = [map(Rational, xs)...]
_rational_vect(xs::Union{Real, Rational}...) = [map(float, xs)...]

# `Rational{Int}[a, b]`, `Rational{Int}[a b; c d]`, `Array{Rational{Int}}(undef, dims...)`:
# arrays of rationals, each element converted as Julia's `convert(Rational{Int64}, x)` does (an
# Int as `x//1`, a Float64 exactly: `Rational(x)`); an unset element is `0//1` (Julia's are
# whatever the memory held). A rational stored into a Float64 array is its Float64.
getindex(::Type{Rational{Int}}, xs...) = _typed_vect!(fill(_unsafe_rational(0, 1), length(xs)), 1, xs...)
_typed_cat(::Type{Rational{Int}}, A::Array) = _gen_convert(Rational, _unsafe_rational(0, 1), A)
_undef_vector(::Type{Rational{Int}}, n::Int) = fill(_unsafe_rational(0, 1), n)
_undef_matrix(::Type{Rational{Int}}, m::Int, n::Int) = fill(_unsafe_rational(0, 1), m, n)
_elem_of(v::Array{<:Rational}, x::Real) = Rational(x)
_elem_of(v::Array{Float64}, x::Rational) = _rational_float(x)
convert(::Type{Rational{Int}}, x::Real) = Rational(x)
convert(::Type{Float64}, x::Rational) = _rational_float(x)
convert(::Type{Int}, x::Rational) = _rational_int(x)

# `sum` and `prod` of a vector of rationals: exact, folded from the left (Julia's pairwise
# order gives the same exact value); of none, `0//1` and `1//1`.
function sum(xs::Vector{<:Rational})
    s = _unsafe_rational(0, 1)
    for x in xs
        s += x
    end
    return s
end
function prod(xs::Vector{<:Rational})
    p = _unsafe_rational(1, 1)
    for x in xs
        p *= x
    end
    return p
end

# Elementary functions of a rational: of its Float64, as Julia's `f(x::Real) = f(float(x))`
# (`exp(1//2)`, `sqrt(1//4) == 0.5`).
exp(x::Rational) = exp(_rational_float(x))
exp2(x::Rational) = exp2(_rational_float(x))
exp10(x::Rational) = exp10(_rational_float(x))
expm1(x::Rational) = expm1(_rational_float(x))
log(x::Rational) = log(_rational_float(x))
log2(x::Rational) = log2(_rational_float(x))
log10(x::Rational) = log10(_rational_float(x))
log1p(x::Rational) = log1p(_rational_float(x))
sqrt(x::Rational) = sqrt(_rational_float(x))
cbrt(x::Rational) = cbrt(_rational_float(x))
sin(x::Rational) = sin(_rational_float(x))
cos(x::Rational) = cos(_rational_float(x))
tan(x::Rational) = tan(_rational_float(x))
asin(x::Rational) = asin(_rational_float(x))
acos(x::Rational) = acos(_rational_float(x))
atan(x::Rational) = atan(_rational_float(x))
sinh(x::Rational) = sinh(_rational_float(x))
cosh(x::Rational) = cosh(_rational_float(x))
tanh(x::Rational) = tanh(_rational_float(x))

"""
    x ^ p

A rational to an Int power, exact (by squaring, of `inv(x)` for a negative `p`); a rational
exponent is the float `p.num / p.den`.
"""
^(x::Rational, n::Int) = n >= 0 ? _power_by_squaring(x, n) : _power_by_squaring(inv(x), -n)
^(x::Rational, y::Float64) = _rational_float(x)^y
^(x::Float64, y::Rational) = x^_rational_float(y)
^(x::Integer, y::Rational) = x^(y.num / y.den)
^(x::Rational, y::Rational) = _rational_float(x)^(y.num / y.den)
_literal_pow(x::Rational, p::Int) = x^p

==(x::Rational, y::Rational) = (x.den == y.den) & (x.num == y.num)
==(x::Rational, y::Integer) = (x.den == 1) & (x.num == y)
==(x::Integer, y::Rational) = y == x
function ==(x::Float64, q::Rational)
    isfinite(x) || return x == q.num / q.den
    return ((q.den & (q.den - 1)) == 0) & (x * q.den == q.num)
end
==(q::Rational, x::Float64) = x == q
!=(x::Rational, y::Union{Rational, Integer, Float64}) = !(x == y)
!=(x::Union{Integer, Float64}, y::Rational) = !(x == y)
<(x::Rational, y::Rational) = _rational_less(x.num, x.den, y.num, y.den, false)
<=(x::Rational, y::Rational) = _rational_less(x.num, x.den, y.num, y.den, true)
<(x::Rational, y::Integer) = _rational_less(x.num, x.den, Int(y), 1, false)
<=(x::Rational, y::Integer) = _rational_less(x.num, x.den, Int(y), 1, true)
<(x::Integer, y::Rational) = _rational_less(Int(x), 1, y.num, y.den, false)
<=(x::Integer, y::Rational) = _rational_less(Int(x), 1, y.num, y.den, true)
>(x::Rational, y::Union{Rational, Integer}) = y < x
>=(x::Rational, y::Union{Rational, Integer}) = y <= x
>(x::Integer, y::Rational) = y < x
>=(x::Integer, y::Rational) = y <= x
isless(x::Rational, y::Union{Rational, Integer}) = x < y
isless(x::Integer, y::Rational) = x < y

# `min` and `max` of a rational and an integer: both as `Rational{Int64}` (Julia's promotion);
# beside a float, both as Float64.
min(x::Rational, y::Union{Rational, Integer}) = _isless_min(x, Rational(y))
min(x::Integer, y::Rational) = _isless_min(Rational(x), y)
max(x::Rational, y::Union{Rational, Integer}) = _isless_max(x, Rational(y))
max(x::Integer, y::Rational) = _isless_max(Rational(x), y)
min(x::Rational, y::Float64) = min(float(x), y)
min(x::Float64, y::Rational) = min(x, float(y))
max(x::Rational, y::Float64) = max(float(x), y)
max(x::Float64, y::Rational) = max(x, float(y))

# A Float64 and a rational compared exactly, as Julia compares them (by `decompose` and
# `widemul`, without rounding `q` to a float); a NaN is unordered.
<(x::Float64, q::Rational) = !isnan(x) && _float_rational_cmp(x, q) < 0
<=(x::Float64, q::Rational) = !isnan(x) && _float_rational_cmp(x, q) <= 0
<(q::Rational, x::Float64) = !isnan(x) && _float_rational_cmp(x, q) > 0
<=(q::Rational, x::Float64) = !isnan(x) && _float_rational_cmp(x, q) >= 0
>(x::Float64, q::Rational) = q < x
>=(x::Float64, q::Rational) = q <= x
>(q::Rational, x::Float64) = x < q
>=(q::Rational, x::Float64) = x <= q

# -1, 0 or 1 as the Float64 `x` (not NaN) is below, at or above `q`. With both parts of `q`
# at most 2⁵³ (exact as floats), the quotient correctly rounded decides unless it equals `x`,
# and then the sign of `y d - n`, which one `fma` gets exactly; else `x` as an exact fraction
# `M / 2^k` against `q` by `_rational_less`.
function _float_rational_cmp(x::Float64, q::Rational)
    n, d = q.num, q.den
    if d == 0
        y = n > 0 ? Inf : -Inf
        return x < y ? -1 : (x == y ? 0 : 1)
    end
    isinf(x) && return x > 0 ? 1 : -1
    big = 9007199254740992
    if abs(n) <= big && d <= big
        y = Float64(n) / Float64(d)
        x != y && return x < y ? -1 : 1
        r = fma(y, Float64(d), -Float64(n))
        return r < 0 ? -1 : (r == 0 ? 0 : 1)
    end
    if x == trunc(x)
        abs(x) >= 9.223372036854775807e18 && return x > 0 ? 1 : -1
        return _rational_cmp(Int(x), 1, n, d)
    end
    m, e = frexp(x)
    k = 53 - e
    if k <= 62
        return _rational_cmp(Int(ldexp(m, 53)), 1 << k, n, d)
    end
    # |x| < 2⁻¹⁰ < |q| when |n| > 2⁵³.
    abs(n) > big && return n > 0 ? -1 : 1
    throw(ArgumentError("unsupported: comparing $x with a rational whose denominator exceeds 2^53 (zy compares them exactly only up to it)"))
end
_rational_cmp(a::Int, b::Int, c::Int, d::Int) =
    _rational_less(a, b, c, d, false) ? -1 : (_rational_less(a, b, c, d, true) ? 0 : 1)

# `a/b < c/d` (`<=` if `orequal`) for `b, d >= 0`, exactly (Julia multiplies in Int128): the
# integer parts compared, then the reciprocals of the fractional parts, as a continued fraction.
function _rational_less(a::Int, b::Int, c::Int, d::Int, orequal::Bool)
    if b == 0 || d == 0
        # an infinity (`±1//0`) against anything: by where the infinities lie.
        x = b == 0 ? (a > 0 ? Inf : -Inf) : 0.0
        y = d == 0 ? (c > 0 ? Inf : -Inf) : 0.0
        return orequal ? x <= y : x < y
    end
    while true
        p = fld(a, b)
        q = fld(c, d)
        p != q && return p < q
        r = a - p * b
        s = c - q * d
        (r == 0 || s == 0) && return r == s ? orequal : r == 0
        a, b, c, d = d, s, b, r
    end
end

"""
    factorial(n)

`n!` for `0 <= n <= 20` (larger ones overflow Int64: OverflowError).
"""
function factorial(n::Int)
    n < 0 && throw(DomainError(n, "`n` must not be negative."))
    n > 20 && throw(OverflowError("$n is too large to look up in the table; consider using `factorial(big($n))` instead"))
    f = 1
    for k in 2:n
        f *= k
    end
    return f
end

"""
    binomial(n, k)

The binomial coefficient `n` choose `k` (Julia's extension to negative `n`); OverflowError
when it does not fit an Int64.
"""
function binomial(n::Int, k::Int)
    n0, k0 = n, k
    k < 0 && return 0
    sgn = 1
    if n < 0
        n = -n + k - 1
        if isodd(k)
            sgn = -sgn
        end
    end
    k > n && return 0
    (k == 0 || k == n) && return sgn
    k == 1 && return sgn * n
    if k > n ÷ 2
        k = n - k
    end
    x = n - k + 1
    nn = x + 1
    rr = 2
    while rr <= k
        # x * nn is a multiple of rr: divide first so only an overflowing result overflows
        g = gcd(x, rr)
        x = _binomial_mul(x ÷ g, nn ÷ (rr ÷ g), n0, k0)
        rr += 1
        nn += 1
    end
    return sgn < 0 ? -x : x
end

function _binomial_mul(a::Int, b::Int, n0::Int, k0::Int)
    y = a * b
    if a != 0 && y ÷ a != b
        throw(OverflowError("binomial($n0, $k0) overflows"))
    end
    return y
end

"""
    nextpow(a, x)

The smallest `a^n` not less than `x` (`n >= 0`).
"""
function nextpow(a::Real, x::Real)
    a <= 1 && throw(DomainError(a, "`a` must be greater than 1."))
    x <= 0 && throw(DomainError(x, "`x` must be positive."))
    p = one(a)
    while p < x
        q = p * a
        q > p || throw(OverflowError("result is beyond the range of type of the base"))
        p = q
    end
    return p
end

"""
    nextprod(factors, n)

The smallest product of powers of `factors` (integers above 1) that is at least `n`.
"""
function nextprod(factors::Union{Tuple, AbstractVector}, n::Real)
    all(f -> f > 1, factors) || throw(ArgumentError("factors must be > 1"))
    return _nextprod(collect(factors), 1, 1, n)
end
# The smallest product at least `n` of `p` times powers of `factors[k:end]`.
function _nextprod(factors, k, p, n)
    k > length(factors) && return p >= n ? p : typemax(Int)
    best = typemax(Int)
    q = p
    while true
        best = min(best, _nextprod(factors, k + 1, q, n))
        q >= n && break
        q *= factors[k]
    end
    return best
end

"""
    prevpow(a, x)

The largest `a^n` not greater than `x` (`n >= 0`).
"""
function prevpow(a::Real, x::Real)
    a <= 1 && throw(DomainError(a, "`a` must be greater than 1."))
    x < 1 && throw(DomainError(x, "`x` must be ≥ 1."))
    p = one(a)
    while p <= x / a
        p = p * a
    end
    return p
end

"""
    sinpi(x)

`sin(π * x)`, exact at integers (`±0.0`) and half-integers (elsewhere `sin` of the reduced
argument: Julia's own kernel may differ in the last bit).
"""
function sinpi(x::Float64)
    isinf(x) && throw(DomainError(x, "sinpi(x) is only defined for finite x."))
    isnan(x) && return x
    n, d = _reduce_pi(abs(x))
    s = n == 0 ? sin(π * d) : (n == 1 ? cos(π * d) : (n == 2 ? -sin(π * d) : (n == 3 ? -cos(π * d) : sin(π * d))))
    s = s + 0.0
    return signbit(x) ? -s : s
end
sinpi(x::Real) = sinpi(float(x))
# A Float32's as Julia's Float32 kernels compute it: in Float64, rounded once.
sinpi(x::Float32) = Float32(sinpi(Float64(x)))

"""
    cospi(x)

`cos(π * x)`, exact at integers and half-integers (`0.0`).
"""
function cospi(x::Float64)
    isinf(x) && throw(DomainError(x, "cospi(x) is only defined for finite x."))
    isnan(x) && return x
    n, d = _reduce_pi(abs(x))
    c = n == 0 ? cos(π * d) : (n == 1 ? -sin(π * d) : (n == 2 ? -cos(π * d) : (n == 3 ? sin(π * d) : cos(π * d))))
    return c + 0.0
end
cospi(x::Real) = cospi(float(x))
cospi(x::Float32) = Float32(cospi(Float64(x)))

"""
    sincospi(x)

`(sinpi(x), cospi(x))`.
"""
sincospi(x::Real) = (sinpi(x), cospi(x))

"""
    tanpi(x)

`tan(π * x)`: `±0.0` at integers and `±Inf` at half-integers with Julia's signs (`tanpi(1.0)
== -0.0`, `tanpi(0.5) == Inf`), elsewhere `tan` of the reduced argument in two parts, which
may differ from Julia's kernel in the last bit.
"""
function tanpi(x::Float64)
    ax = abs(x)
    isinf(ax) && throw(DomainError(ax, "`tanpi(x)` is only defined for finite `x`."))
    isnan(x) && return x
    n, d = _reduce_pi(ax)
    # π d = hi + lo; tan(hi + lo) ≈ tan(hi) + lo (1 + tan(hi)²).
    hi = 3.141592653589793 * d
    lo = fma(3.141592653589793, d, -hi) + d * 1.2246467991473532e-16
    t = tan(hi)
    t = t + lo * (1.0 + t * t)
    # Julia's quadrants: (sin, cos) turned by n quarter turns, then divided.
    r = n == 1 ? 1.0 / (0.0 - t) : (n == 2 ? (0.0 - t) / -1.0 : (n == 3 ? -1.0 / t : t))
    return signbit(x) ? -r : r
end
tanpi(x::Real) = tanpi(float(x))
tanpi(x::Float32) = Float32(tanpi(Float64(x)))

"""
    sind(x), cosd(x), tand(x), sincosd(x)

The sine, cosine and tangent of `x` in degrees, Julia's: the argument reduced to within 45°
of a multiple of 90° first, so exact at multiples of 90° (`sind(180.0) == 0.0`); a
DomainError at ±Inf. The reduced angle goes to radians in extended precision, as Julia's; its
own kernels may differ in the last bit.
"""
function sind(x::Real)
    isinf(x) && throw(DomainError(x, "sind(x) is only defined for finite `x`."))
    isnan(x) && return float(x)
    rx = copysign(float(rem(x, 360)), x)
    arx = abs(rx)
    if rx == 0.0
        return rx
    elseif arx < 45.0
        return _sind_kernel(rx)
    elseif arx <= 135.0
        return copysign(_cosd_kernel(90.0 - arx), rx)
    elseif arx == 180.0
        return copysign(0.0, rx)
    elseif arx < 225.0
        return _sind_kernel((180.0 - arx) * sign(rx))
    elseif arx <= 315.0
        return -copysign(_cosd_kernel(270.0 - arx), rx)
    end
    return _sind_kernel(rx - copysign(360.0, rx))
end
function cosd(x::Real)
    isinf(x) && throw(DomainError(x, "cosd(x) is only defined for finite `x`."))
    isnan(x) && return float(x)
    rx = abs(float(rem(x, 360)))
    if rx <= 45.0
        return _cosd_kernel(rx)
    elseif rx < 135.0
        return _sind_kernel(90.0 - rx)
    elseif rx <= 225.0
        return -_cosd_kernel(180.0 - rx)
    elseif rx < 315.0
        return _sind_kernel(rx - 270.0)
    end
    return _cosd_kernel(360.0 - rx)
end
sind(x::Float32) = Float32(sind(Float64(x)))
cosd(x::Float32) = Float32(cosd(Float64(x)))
tand(x::Real) = sind(x) / cosd(x)
sincosd(x::Real) = (sind(x), cosd(x))

# ChainRules' rules, d/dx sind(x) = π/180 cosd(x), d/dx cosd(x) = -π/180 sind(x) and
# d/dx tand(x) = π/180 (1 + tand(x)²): the reduction's exact branches (`sind(0.0)` returns the
# reduced angle itself, `sind(180.0)` a constant zero) have the wrong slope.
function rrule(::typeof(sind), x::Float64)
    sind_pullback(ȳ) = (NoTangent(), ȳ * (0.017453292519943295 * cosd(x)))
    return sind(x), sind_pullback
end
frule(Δ, ::typeof(sind), x::Float64) = (sind(x), Δ[2] * (0.017453292519943295 * cosd(x)))
function rrule(::typeof(cosd), x::Float64)
    cosd_pullback(ȳ) = (NoTangent(), ȳ * (-0.017453292519943295 * sind(x)))
    return cosd(x), cosd_pullback
end
frule(Δ, ::typeof(cosd), x::Float64) = (cosd(x), Δ[2] * (-0.017453292519943295 * sind(x)))
function rrule(::typeof(tand), x::Float64)
    y = tand(x)
    tand_pullback(ȳ) = (NoTangent(), ȳ * (0.017453292519943295 * (1 + y^2)))
    return y, tand_pullback
end
function frule(Δ, ::typeof(tand), x::Float64)
    y = tand(x)
    return y, Δ[2] * (0.017453292519943295 * (1 + y^2))
end

"""
    secd(x), cscd(x), cotd(x), asind(y), acosd(y), atand(y), atand(y, x), asecd(y), acscd(y), acotd(y)

The reciprocal functions of an angle in degrees (`secd(x) = inv(cosd(x))`, ...) and the
inverse functions with the angle in degrees (`asind(y) = rad2deg(asin(y))`, ...), as Julia
defines them; their derivatives are those of the definitions (DiffRules' `π/180 secd(x) tand(x)`,
`180/π / √(1 - y²)`, ...).
"""
secd(x::Real) = inv(cosd(x))
cscd(x::Real) = inv(sind(x))
cotd(x::Real) = inv(tand(x))
asind(y::Real) = rad2deg(asin(y))
acosd(y::Real) = rad2deg(acos(y))
atand(y::Real) = rad2deg(atan(y))
atand(y::Real, x::Real) = rad2deg(atan(y, x))
asecd(y::Real) = rad2deg(asec(y))
acscd(y::Real) = rad2deg(acsc(y))
acotd(y::Real) = rad2deg(acot(y))
# The sine and cosine of `d` degrees (|d| <= 45), taken to radians as `hi + lo` with π/180 in
# two parts, as Julia's `deg2rad_ext` (so `sind(30.0) == 0.5`).
function _sind_kernel(d::Float64)
    hi, lo = _deg2rad_ext(d)
    return sin(hi) + lo * cos(hi)
end
function _cosd_kernel(d::Float64)
    hi, lo = _deg2rad_ext(d)
    return cos(hi) - lo * sin(hi)
end
function _deg2rad_ext(d::Float64)
    hi = d * 0.017453292519943295
    return hi, fma(d, 0.017453292519943295, -hi) + d * 2.9486522708701687e-19
end

"""
    inv(x)

`one(x) / x` of a number: a Float64 of a Float64 or an integer, a Float32 of a Float32 (the
matrix inverse is a primitive).
"""
inv(x::Real) = one(x) / x

"""
    sincos(x)

`(sin(x), cos(x))`.
"""
sincos(x::Real) = (sin(x), cos(x))

"""
    ifelse(c, a, b)

`a` if `c` holds, else `b` (both already evaluated, unlike `c ? a : b`).
"""
ifelse(c::Bool, a, b) = c ? a : b

# `ax = n/2 + d` modulo 2 with `n` in 0:4 and `|d| <= 1/4`.
function _reduce_pi(ax::Float64)
    r = rem(ax, 2.0)
    n = round(2.0 * r)
    return Int(n), r - n / 2
end

function rrule(::typeof(sinpi), x::Float64)
    sinpi_pullback(ȳ) = (NoTangent(), ȳ * (π * cospi(x)))
    return sinpi(x), sinpi_pullback
end

function rrule(::typeof(cospi), x::Float64)
    cospi_pullback(ȳ) = (NoTangent(), ȳ * (-π * sinpi(x)))
    return cospi(x), cospi_pullback
end

function rrule(::typeof(tanpi), x::Float64)
    y = tanpi(x)
    tanpi_pullback(ȳ) = (NoTangent(), ȳ * (π * (1 + y^2)))
    return y, tanpi_pullback
end

"""
    sinc(x)

`sin(πx) / (πx)`, and `1` at `0`.
"""
function sinc(x::Float64)
    abs(x) < 0.001 && return evalpoly(x * x, (1.0, -π^2 / 6, π^4 / 120))
    isinf(x) && return 0.0
    return sinpi(x) / (π * x)
end
sinc(x::Real) = sinc(float(x))

"""
    exp10(x)

`10^x`.
"""
exp10(x::Real) = 10.0 ^ float(x)

"""
    log(b, x)

The base-`b` logarithm of `x`: `log(x) / log(b)`.
"""
log(b::Real, x::Real) = log(x) / log(b)

"""
    exponent(x)

The power of two of a nonzero finite `x`: `2^exponent(x) <= abs(x) < 2^(exponent(x) + 1)`.
"""
function exponent(x::Float64)
    x == 0.0 && throw(DomainError(x, "Cannot be ±0.0."))
    isfinite(x) || throw(DomainError(x, "Cannot be NaN or Inf."))
    return _exponent(abs(x))
end
exponent(x::Real) = exponent(float(x))

# The exponent of a positive finite `a`, from log2 corrected by exact powers of two.
function _exponent(a::Float64)
    e = Int(floor(log2(a)))
    if 2.0 ^ e > a
        e -= 1
    elseif 2.0 ^ (e + 1) <= a
        e += 1
    end
    return e
end

"""
    significand(x)

`x` scaled by a power of two into `[1, 2)` in magnitude (`x` itself for `0`, `Inf`, `NaN`).
"""
significand(x::Float64) = (x == 0.0 || !isfinite(x)) ? x : x / 2.0 ^ _exponent(abs(x))

"""
    frexp(x)

`(m, e)` with `x == m * 2^e` and `0.5 <= abs(m) < 1`; `(x, 0)` for `0`, `Inf` and NaN.
"""
function frexp(x::Float64)
    (x == 0.0 || !isfinite(x)) && return (x, 0)
    e = _exponent(abs(x))
    return (_scale2(x, -e - 1), e + 1)
end

"""
    ldexp(x, n)

`x * 2^n`, rounded once (to a subnormal, zero or `Inf` where the result leaves the normal
range).
"""
function ldexp(x::Float64, n::Int)
    (x == 0.0 || !isfinite(x)) && return x
    # beyond ±5000 every result is ±Inf or ±0.0 (and the sum below cannot wrap around)
    n = clamp(n, -5000, 5000)
    k = _exponent(abs(x)) + n
    k > 1023 && return copysign(Inf, x)
    k < -1075 && return copysign(0.0, x)
    return _scale2(x, n)
end
ldexp(x::Real, n::Int) = ldexp(float(x), n)

# `x * 2^n` for a result of exponent at least -1075: exact steps by normal powers of two, the
# last (into the subnormals) rounding once.
function _scale2(x::Float64, n::Int)
    while n > 1000
        x *= 2.0 ^ 1000
        n -= 1000
    end
    while n < -1000 && abs(x) >= 2.0 ^ -20
        x *= 2.0 ^ -1000
        n += 1000
    end
    n >= -1022 && return x * 2.0 ^ n
    return (x * 2.0 ^ (n + 60)) * 2.0 ^ -60
end

"""
    RoundNearest, RoundToZero, RoundUp, RoundDown

The rounding modes of `round(x, mode)`, `round(T, x, mode)`, `div(x, y, mode)` and
`rem(x, y, mode)`, one type each as in Julia (`RoundingMode{:Down}`), so the result type
follows the mode.
"""
struct _RoundNearest
end
struct _RoundToZero
end
struct _RoundUp
end
struct _RoundDown
end
const RoundNearest = _RoundNearest()
const RoundToZero = _RoundToZero()
const RoundUp = _RoundUp()
const RoundDown = _RoundDown()

"""
    round(x, mode)

`x` rounded by the mode: `round` for `RoundNearest` (ties to even), `trunc`, `ceil`, `floor`.
"""
round(x::Real, ::_RoundNearest) = round(x)
round(x::Real, ::_RoundToZero) = trunc(x)
round(x::Real, ::_RoundUp) = ceil(x)
round(x::Real, ::_RoundDown) = floor(x)
round(T::Type{Int64}, x::Real, r) = _trunc_int(round(x, r))
round(T::Type{Int}, x::Real, r) = _trunc_int(round(x, r))

"""
    rem2pi(x, mode), mod2pi(x)

`x` less the multiple of 2π chosen by the mode: in [-π, π] for `RoundNearest`, [0, 2π] for
`RoundDown` (`mod2pi`), [-2π, 0] for `RoundUp`, of the sign of `x` for `RoundToZero`; NaN
when `x` is not finite. 2π is taken in two parts, more precise than one Float64 (Julia
reduces exactly: far from zero the last bits may differ).
"""
rem2pi(x::Real, r) = _rem2pi(float(x), r)
mod2pi(x::Real) = rem2pi(x, RoundDown)
function _rem2pi(x::Float64, ::_RoundNearest)
    isfinite(x) || return NaN
    return _minus_2pi(x, round(x / 6.283185307179586))
end
function _rem2pi(x::Float64, ::_RoundDown)
    isfinite(x) || return NaN
    n = floor(x / 6.283185307179586)
    y = _minus_2pi(x, n)
    return y < 0.0 ? _minus_2pi(x, n - 1.0) : y
end
_rem2pi(x::Float64, ::_RoundUp) = -_rem2pi(-x, RoundDown)
_rem2pi(x::Float64, ::_RoundToZero) = signbit(x) ? _rem2pi(x, RoundUp) : _rem2pi(x, RoundDown)
# `x - 2π n`, 2π as the sum of its nearest Float64 and the remainder.
_minus_2pi(x::Float64, n::Float64) = (x - n * 6.283185307179586) - n * 2.4492935982947064e-16

"""
    div(x, y, mode)

The quotient rounded by the mode (`fld` for `RoundDown`, `cld` for `RoundUp`).
"""
div(x::Real, y::Real, ::_RoundToZero) = div(x, y)
div(x::Real, y::Real, ::_RoundUp) = cld(x, y)
div(x::Real, y::Real, ::_RoundDown) = fld(x, y)
div(x::Int, y::Int, r::_RoundNearest) = (x - rem(x, y, r)) ÷ y
div(x::Real, y::Real, r::_RoundNearest) = round((float(x) - rem(x, y, r)) / float(y))

"""
    rem(x, y, mode)

`x - y * div(x, y, mode)`: `rem` for `RoundToZero`, `mod` for `RoundDown`, `mod(x, -y)` for
`RoundUp`, the remainder nearest zero (ties to an even quotient) for `RoundNearest`.
"""
rem(x::Real, y::Real, ::_RoundToZero) = rem(x, y)
rem(x::Real, y::Real, ::_RoundUp) = mod(x, -y)
rem(x::Real, y::Real, ::_RoundDown) = mod(x, y)
rem(x::Real, y::Real, ::_RoundNearest) = _rem_nearest(float(x), float(y))
function rem(x::Int, y::Int, ::_RoundNearest)
    r = rem(x, y)
    q = x ÷ y
    # |r| beyond |y|/2, or at it with an odd quotient: step to the other side
    if 2 * abs(r) > abs(y) || (2 * abs(r) == abs(y) && isodd(q))
        r = r > 0 ? r - abs(y) : r + abs(y)
    end
    return r
end

# IEEE remainder: `x - n y` with `n` the integer nearest `x / y` (ties to even), exact.
function _rem_nearest(x::Float64, y::Float64)
    r = rem(x, y)
    ay = abs(y)
    ar = abs(r)
    if ar > ay / 2 || (ar == ay / 2 && isodd(Int(rem(div(x, y), 2.0))))
        r = r - copysign(ay, r)
    end
    return r
end

"""
    eps(x)

The distance from `x` to the next larger Float64 in magnitude (NaN for `Inf` and `NaN`).
"""
function eps(x::Float64)
    isfinite(x) || return NaN
    x == 0.0 && return 5.0e-324
    return 2.0 ^ (max(_exponent(abs(x)), -1022) - 52)
end

# Of a Float32: the spacing of Float32s at `x` (23 fraction bits, normal from 2^-126), exact in
# Float64 and so in Float32.
function eps(x::Float32)
    isfinite(x) || return NaN32
    x == 0.0f0 && return Float32(2.0^-149)
    return Float32(2.0 ^ (max(_exponent(abs(Float64(x))), -126) - 23))
end

"""
    nextfloat(x)

The smallest Float64 greater than `x` (`Inf` stays, NaN stays NaN); of a Float32, the next
Float32.
"""
function nextfloat(x::Float64)
    isnan(x) && return x
    x == Inf && return x
    x == -Inf && return -1.7976931348623157e308
    x == 0.0 && return 5.0e-324
    return x > 0.0 ? x + eps(x) : -_prevfloat_pos(-x)
end

"""
    prevfloat(x)

The largest Float64 less than `x` (`-Inf` stays, NaN stays NaN).
"""
function prevfloat(x::Float64)
    isnan(x) && return x
    x == -Inf && return x
    x == Inf && return 1.7976931348623157e308
    x == 0.0 && return -5.0e-324
    return x > 0.0 ? _prevfloat_pos(x) : -(-x + eps(x))
end

"""
    bitstring(x)

The bits of `x`, most significant first, as `0`s and `1`s: two's complement for integers,
IEEE 754 (sign, exponent, fraction) for floats.
"""
bitstring(x::Bool) = x ? "00000001" : "00000000"
bitstring(x::Int) =
    x < 0 ? "1" * string(x - typemin(Int); base = 2, pad = 63) : string(x; base = 2, pad = 64)
bitstring(x::Union{Int8, Int16, Int32, UInt8, UInt16, UInt32}) =
    string(mod(Int(x), 1 << _nbits(x)); base = 2, pad = _nbits(x))
bitstring(x::UInt64) = x > 0x7fffffffffffffff ?
    "1" * string(Int(x - 0x8000000000000000); base = 2, pad = 63) : string(Int(x); base = 2, pad = 64)
bitstring(x::Float64) = _float_bitstring(abs(x), signbit(x), 11, 52)
bitstring(x::Float32) = _float_bitstring(abs(Float64(x)), signbit(x), 8, 23)

# The bits of a float of `ebits` exponent and `fbits` fraction bits whose magnitude is `a`
# (exactly representable in it).
function _float_bitstring(a::Float64, negative::Bool, ebits::Int, fbits::Int)
    bias = (1 << (ebits - 1)) - 1
    if isnan(a)
        e, f = 2 * bias + 1, 1 << (fbits - 1)
    elseif isinf(a)
        e, f = 2 * bias + 1, 0
    elseif a == 0.0
        e, f = 0, 0
    elseif exponent(a) >= 1 - bias
        e, f = exponent(a) + bias, Int(ldexp(ldexp(a, -exponent(a)) - 1.0, fbits))
    else
        e, f = 0, Int(ldexp(a, bias - 1 + fbits))
    end
    return (negative ? "1" : "0") * string(e; base = 2, pad = ebits) * string(f; base = 2, pad = fbits)
end

# The Float64 below a positive finite `x`: one ulp down, half of one at a power of two.
function nextfloat(x::Float32)
    (isnan(x) || x == Inf32) && return x
    x == -Inf32 && return -floatmax(Float32)
    x == 0.0f0 && return eps(0.0f0)
    return x > 0.0f0 ? x + eps(x) : -_prevfloat_pos(-x)
end
function prevfloat(x::Float32)
    (isnan(x) || x == -Inf32) && return x
    x == Inf32 && return floatmax(Float32)
    x == 0.0f0 && return -eps(0.0f0)
    return x > 0.0f0 ? _prevfloat_pos(x) : -(-x + eps(x))
end
function _prevfloat_pos(x::Float32)
    u = eps(x)
    power_of_two = Float64(x) == 2.0^_exponent(Float64(x))
    return (power_of_two && x > floatmin(Float32)) ? x - u / 2 : x - u
end
function _prevfloat_pos(x::Float64)
    u = eps(x)
    return (significand(x) == 1.0 && x > 2.2250738585072014e-308) ? x - u / 2 : x - u
end

"""
    isless(x, y)

Julia's total order of numbers: `-0.0` before `0.0`, NaN after everything.
"""
isless(x::Float64, y::Float64) = isnan(x) ? false : (isnan(y) ? true : _isless(x, y))
isless(x::Real, y::Real) = isless(float(x), float(y))
isless(x::Int, y::Int) = x < y
# Strings by their characters; tuples lexicographically, a prefix before what extends it.
isless(a::String, b::String) = a < b
# Symbols by their names' bytes (Julia's `strcmp`), which is the order of their characters.
isless(a::Symbol, b::Symbol) = isless(string(a), string(b))
isless(::Tuple{}, ::Tuple{}) = false
isless(::Tuple{}, ::Tuple) = true
isless(::Tuple, ::Tuple{}) = false
isless(a::Tuple, b::Tuple) = isless(a[1], b[1]) || (isequal(a[1], b[1]) && isless(tail(a), tail(b)))

"""
    minmax(x, y)

`(min(x, y), max(x, y))` in `isless` order.
"""
minmax(x::Real, y::Real) = isless(y, x) ? (y, x) : (x, y)

"""
    cmp(x, y)

`-1`, `0` or `1` as `x` is less than, equal to or greater than `y` in `isless` order.
"""
cmp(x::Real, y::Real) = isless(x, y) ? -1 : (isless(y, x) ? 1 : 0)

"""
    sech(x), csch(x), coth(x), asec(x), acsc(x), acot(x), asech(x), acsch(x), acoth(x)

The reciprocal hyperbolic functions and the inverses of the reciprocal functions, as Julia
defines them (`sech(x) = inv(cosh(x))`, `acot(y) = atan(inv(y))`, ...).
"""
sech(x::Real) = inv(cosh(x))
csch(x::Real) = inv(sinh(x))
coth(x::Real) = inv(tanh(x))
asec(y::Real) = acos(inv(y))
acsc(y::Real) = asin(inv(y))
acot(y::Real) = atan(inv(y))
asech(y::Real) = acosh(inv(y))
acsch(y::Real) = asinh(inv(y))
acoth(y::Real) = atanh(inv(y))

"""
    oneunit(x)

`one(x)` for numbers.
"""
oneunit(x::Real) = one(x)

"""
    ispow2(n)

Whether `n` is a power of two.
"""
ispow2(n::Int) = n > 0 && n & (n - 1) == 0
ispow2(x::Float64) = x > 0.0 && isfinite(x) && significand(x) == 1.0

"""
    string(n::Int; base::Int = 10, pad::Int = 1)

The digits of `n` in `base` (2 to 36, lower-case letters past 9), with a leading `-` if `n`
is negative and zeros in front up to `pad` digits.
"""
function string(n::Int; base::Int = 10, pad::Int = 1)
    (base < 2 || base > 36) && throw(ArgumentError("base must satisfy 2 ≤ abs(base) ≤ 62, got $base"))
    d = digits(abs(n); base = base)
    s = ""
    for k in (length(d) + 1):pad
        s = s * "0"
    end
    for k in length(d):-1:1
        s = s * _DIGIT_CHARS[d[k] + 1]
    end
    return n < 0 ? "-" * s : s
end
const _DIGIT_CHARS = ("0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "m", "n", "o", "p", "q", "r", "s", "t", "u", "v", "w", "x", "y", "z")

"""
    digits(n; base = 10)

The digits of `n` from the least significant, negative for a negative `n`; `[0]` for `0`.
"""
function digits(n::Int; base::Int = 10)
    base < 2 && throw(DomainError(base, "base must be ≥ 2 or ≤ -2"))
    # Counted first, then filled: no `push!`, which the JIT declines beside some values, in
    # every program that writes an integer as text (an error message's index).
    count = 1
    m = div(n, base)
    while m != 0
        count += 1
        m = div(m, base)
    end
    d = fill(0, count)
    for k in 1:count
        d[k] = rem(n, base)
        n = div(n, base)
    end
    return d
end

"""
    ndigits(n; base = 10)

The number of digits of `n` (`1` for `0`).
"""
ndigits(n::Int; base::Int = 10) = length(digits(n; base = base))
# Of an integer of another type (`Int128`, `UInt8`): its digits in its own type.
function digits(n::Integer; base::Int = 10)
    base < 2 && throw(DomainError(base, "base must be ≥ 2 or ≤ -2"))
    count = 1
    m = div(n, base)
    while m != 0
        count += 1
        m = div(m, base)
    end
    d = fill(zero(n), count)
    for k in 1:count
        d[k] = rem(n, base)
        n = div(n, base)
    end
    return d
end
ndigits(n::Integer; base::Int = 10) = length(digits(n; base = base))

"""
    Fix1(f, x)

The function `y -> f(x, y)`: `f` with its first argument fixed (`Base.Fix1(*, 2.0)`).
"""
struct Fix1{F, T}
    f::F
    x::T
end
(g::Fix1)(y) = g.f(g.x, y)

"""
    Fix2(f, x)

The function `y -> f(y, x)`: what `==(x)`, `<(x)`, `>=(x)` (a comparison given one
argument) return.
"""
struct Fix2{F, T}
    f::F
    x::T
end
(g::Fix2)(y) = g.f(y, g.x)

"""
    Returns(value)

The function that returns `value` whatever it is called with (`Returns(0.0)(x, y) == 0.0`).
"""
struct Returns{V}
    value::V
end
(r::Returns)(args...; kwargs...) = r.value

"""
    splat(f)

The function of one collection that calls `f` with its elements: `splat(+)((1, 2)) == 3`, for
`map(splat(f), zip(xs, ys))`.
"""
struct Splat{F}
    f::F
end
splat(f) = Splat(f)
(s::Splat)(args) = s.f(args...)

"""
    searchsortedfirst(v, x; lt = isless, by = identity, rev = false), searchsortedlast(v, x; ...)

In a vector `v` sorted by the keys `by(vᵢ)` compared with `lt` (reversed by `rev`: `sort`'s
order), the index of the first element that does not sort before `x` (`length(v) + 1` if
none) and of the last element `x` does not sort before (`0` if none), by bisection as Julia's:
`by` applies to `x` too.
"""
searchsortedfirst(v::AbstractVector, x; rev::Bool = false, by = identity, lt = _sort_isless) =
    _searchsortedfirst(v, x, rev, by, lt)
searchsortedfirst(r::Union{UnitRange{Int}, StepRange{Int, Int}, LinRange, StepRangeLen}, x;
                  rev::Bool = false, by = identity, lt = _sort_isless) =
    _searchsortedfirst(r, x, rev, by, lt)
function _searchsortedfirst(v, x, rev::Bool, by, lt)
    lo = 0
    hi = length(v) + 1
    while lo < hi - 1
        m = (lo + hi) >>> 1
        if _sort_before(by(v[m]), by(x), rev, lt)
            lo = m
        else
            hi = m
        end
    end
    return hi
end

"""
    searchsorted(v, x; lt = isless, by = identity, rev = false)

The range of indices of the elements of the sorted `v` equivalent to `x` in its order (empty,
placed where `x` would go, if there are none): `searchsortedfirst(v, x):searchsortedlast(v, x)`
with the same keywords, as Julia's.
"""
searchsorted(v::Union{AbstractVector, UnitRange{Int}, StepRange{Int, Int}, LinRange, StepRangeLen}, x;
             rev::Bool = false, by = identity, lt = _sort_isless) =
    _searchsortedfirst(v, x, rev, by, lt):_searchsortedlast(v, x, rev, by, lt)

searchsortedlast(v::AbstractVector, x; rev::Bool = false, by = identity, lt = _sort_isless) =
    _searchsortedlast(v, x, rev, by, lt)
searchsortedlast(r::Union{UnitRange{Int}, StepRange{Int, Int}, LinRange, StepRangeLen}, x;
                 rev::Bool = false, by = identity, lt = _sort_isless) =
    _searchsortedlast(r, x, rev, by, lt)
function _searchsortedlast(v, x, rev::Bool, by, lt)
    lo = 0
    hi = length(v) + 1
    while lo < hi - 1
        m = (lo + hi) >>> 1
        if _sort_before(by(x), by(v[m]), rev, lt)
            hi = m
        else
            lo = m
        end
    end
    return lo
end

"""
    insorted(x, v; lt = isless, by = identity, rev = false)

Whether the sorted `v` holds an element equivalent to `x` in its order:
`!isempty(searchsorted(v, x; ...))`.
"""
insorted(x, v; rev::Bool = false, by = identity, lt = _sort_isless) =
    !isempty(searchsorted(v, x; rev = rev, by = by, lt = lt))

"""
    extrema(x)

`(minimum(x), maximum(x))`.
"""
extrema(x) = (minimum(x), maximum(x))
extrema(f, x) = (minimum(f, x), maximum(f, x))

"""
    ndims(x)

The number of dimensions of an array (0 for a number).
"""
ndims(x::Real) = 0
ndims(x::AbstractVector) = 1
ndims(x::AbstractMatrix) = 2
ndims(r::UnitRange) = 1
ndims(r::StepRange) = 1
ndims(r::LinRange) = 1

"""
    in(x, collection)

`x ∈ collection`: whether an element is `==` to `x`.
"""
in(x, itr::AbstractArray) = any(y -> y == x, itr)
in(x, t::Tuple) = _in_tuple(x, t...)
in(x::Real, r::UnitRange{Int}) = _in_range(x, r)
in(x::Real, r::StepRange{Int, Int}) = _in_range(x, r)
in(x::Real, r::LinRange) = _in_range(x, r)
in(x::Real, r::StepRangeLen) = _in_range(x, r)

_in_tuple(x) = false
_in_tuple(x, y, rest...) = y == x || _in_tuple(x, rest...)

function _in_range(x::Real, r)
    length(r) == 0 && return false
    f = first(r)
    l = last(r)
    (f <= x <= l || l <= x <= f) || return false
    step(r) == 0 && return true
    n = round(Int, (x - f) / step(r)) + 1
    return n >= 1 && n <= length(r) && r[n] == x
end

"""
    a === b

Egal: the same number type and bits (`0.0 !== -0.0`, `NaN === NaN`), tuples egal elementwise.
Values of different types, and `nothing`, are the builtin's: a constant (`x === nothing` is
known where the call is compiled, so a branch on it that cannot run is not typed).
"""
(===)(x::Float64, y::Float64) = x == y ? signbit(x) == signbit(y) : (isnan(x) && isnan(y) && signbit(x) == signbit(y))
(===)(x::Int, y::Int) = x == y
(===)(x::Bool, y::Bool) = x == y
# Element by element, as `isequal`: tuples of different lengths are never egal (`(2,) === ()`).
(===)(::Tuple{}, ::Tuple{}) = true
(===)(::Tuple{}, ::Tuple) = false
(===)(::Tuple, ::Tuple{}) = false
(===)(x::Tuple, y::Tuple) = x[1] === y[1] && tail(x) === tail(y)
# Named tuples of one type (the same names in the same order) by their values.
(===)(x::T, y::T) where {T<:NamedTuple} = values(x) === values(y)
# `===` of two fields of a recursive struct (`left::Union{Tree, Nothing}`): the builtin `===`
# of such structs compares their fields by this method, which a nested value calls again.
_egal(x, y) = x === y

"""
    findall(x)

The indices `i` of a Bool vector where `x[i]`; `findall(f, x)` where `f(x[i])`.
"""
findall(x::AbstractVector{Bool}) = findall(identity, x)
function findall(f, x::AbstractVector)
    I = fill(0, 0)
    for i in 1:length(x)
        if f(x[i])
            push!(I, i)
        end
    end
    return I
end

"""
    unique(x)

The distinct elements of a vector in order of first appearance (`isequal`: NaNs are one value,
`-0.0` differs from `0.0`, two mutable structs are one value only if they are one object).
"""
function unique(x::AbstractVector)
    y = _vector(x, 0)
    for i in 1:length(x)
        seen = false
        for j in 1:length(y)
            if isequal(y[j], x[i])
                seen = true
            end
        end
        if !seen
            push!(y, x[i])
        end
    end
    return y
end
unique(r::UnitRange{Int}) = collect(r)
unique(r::StepRange{Int, Int}) = collect(r)
# Of another iterable (Julia's `unique(itr)`): its distinct elements in order of first appearance.
unique(itr::Union{Generator, String, SubString}) = unique(collect(itr))

"""
    allunique(x)

Whether no two elements of `x` are `isequal`.
"""
allunique(x::AbstractVector) = length(unique(x)) == length(x)
allunique(t::Union{Tuple, UnitRange, StepRange, LinRange, StepRangeLen}) = allunique(collect(t))

"""
    allequal(x)

Whether every two elements of `x` are `isequal` (`true` of an empty `x`).
"""
allequal(x::AbstractArray) = isempty(x) || all(y -> isequal(y, first(x)), x)
allequal(t::Tuple) = allequal(collect(t))

_isequal(a, b) = a === b || (a == b && signbit(a) == signbit(b)) || (isnan(a) && isnan(b))

"""
    isequal(a, b), isequal(x)

Equality where NaNs are equal and `-0.0` differs from `0.0`; `isequal(x)` is the function
`y -> isequal(y, x)` (`Base.Fix2`), as in `findfirst(isequal(v), x)`.
"""
isequal(a::Real, b::Real) = _isequal(float(a), float(b))
isequal(x) = Fix2(isequal, x)
# Tuples and arrays element by element; any other value by `==` (Julia's fallback).
isequal(::Tuple{}, ::Tuple{}) = true
isequal(::Tuple{}, ::Tuple) = false
isequal(::Tuple, ::Tuple{}) = false
isequal(a::Tuple, b::Tuple) = isequal(a[1], b[1]) && isequal(tail(a), tail(b))
isequal(a::NamedTuple, b::NamedTuple) = keys(a) == keys(b) && isequal(values(a), values(b))
isequal(a::AbstractArray, b::AbstractArray) = size(a) == size(b) && all(isequal.(a, b))
isequal(a, b) = a == b

"""
    permutedims(A)

The transpose of a matrix as a new matrix; a vector becomes a 1×n matrix.
"""
"""
    permutedims(A, perm), dropdims(A; dims)

`permutedims` of a matrix by `(2, 1)` (its transpose, a new matrix) or `(1, 2)` (a copy);
`dropdims` of a matrix whose dimension `dims` has length 1: the other dimension as a Vector.
Julia's `dropdims` shares `A`'s memory: these methods copy, and lowering calls them only of an
array nothing else refers to (`dropdims(sum(A; dims = 2); dims = 2)`); of a variable it calls
`_dropdims_shared`, a view of `A`, as for `reshape`.
"""
function permutedims(A::AbstractMatrix, perm::Tuple{Int, Int})
    if perm == (2, 1)
        return permutedims(A)
    elseif perm == (1, 2)
        return copy(A)
    end
    throw(ArgumentError("no valid permutation of dimensions"))
end

function dropdims(A::AbstractMatrix; dims)
    dims isa Tuple{Int, Int} && return _dropdims(A, dims)
    d = dims isa Tuple ? _one_dim(dims) : dims
    d == 1 || d == 2 || throw(ArgumentError("dropped dims must be in range 1:2"))
    size(A, d) == 1 || throw(ArgumentError("dropped dims must all be size 1"))
    return vec(copy(A))
end
_one_dim(dims::Tuple{Int}) = dims[1]

function permutedims(A::AbstractMatrix)
    m = size(A, 1)
    n = size(A, 2)
    B = _matrix(A, n, m)
    for j in 1:n, i in 1:m
        B[j, i] = A[i, j]
    end
    return B
end
function permutedims(v::AbstractVector)
    B = _matrix(v, 1, length(v))
    for j in 1:length(v)
        B[1, j] = v[j]
    end
    return B
end

"""
    one(A)

The identity matrix of a square matrix's size and element type.
"""
function one(A::AbstractMatrix)
    n = size(A, 1)
    if size(A, 2) != n
        throw(DimensionMismatch("multiplicative identity defined only for square matrices"))
    end
    B = _matrix(A, n, n)
    for i in 1:n
        B[i, i] = one(B[i, i])
    end
    return B
end

"""
    deepcopy(x)

A copy sharing nothing with `x` (numbers, strings, symbols, arrays, tuples, `Dict`s and the
program's structs, mutable or not, of these). Of a struct: a new one of its type, no
constructor called, each field copied deeply. An object `x` reaches twice is copied once and
reached twice in the copy, as Julia's `deepcopy` keeps it: the tree copy `_deepcopy(x)` has its
sharing restored by `_realias`.
"""
deepcopy(x) = _realias(_deepcopy(x), x)
deepcopy(x::Real) = x
deepcopy(x::Symbol) = x
deepcopy(::Nothing) = nothing
deepcopy(s::String) = s

# Every object copied wherever `x` reaches it.
_deepcopy(x) = _deepcopy_fields(x)
_deepcopy(x::Real) = x
_deepcopy(x::Symbol) = x
_deepcopy(::Nothing) = nothing
function _deepcopy(x::Array)
    if eltype(x) <: Real
        return copy(x)
    end
    # A vector of arrays (or tuples): each element copied deeply.
    return map(_deepcopy, x)
end
_deepcopy(t::Tuple) = map(_deepcopy, t)
_deepcopy(s::String) = s
function _deepcopy(d::Dict)
    e = _dict_with_vals(d, _deepcopy(d.vals))
    e.keys = _deepcopy(d.keys)
    return e
end

# Reductions over integer and Float64 ranges: over their elements.
prod(r::UnitRange{Int}) = prod(collect(r))
prod(r::StepRange{Int, Int}) = prod(collect(r))
prod(r::LinRange) = prod(collect(r))
prod(r::StepRangeLen) = prod(collect(r))
# Julia's range methods: the greater (lesser) end, of an empty range an `ArgumentError`.
maximum(r::Union{UnitRange{Int}, StepRange{Int, Int}, LinRange, StepRangeLen}) =
    isempty(r) ? throw(ArgumentError("range must be non-empty")) : max(first(r), last(r))
minimum(r::Union{UnitRange{Int}, StepRange{Int, Int}, LinRange, StepRangeLen}) =
    isempty(r) ? throw(ArgumentError("range must be non-empty")) : min(first(r), last(r))
sum(f, r::UnitRange{Int}) = sum(f, collect(r))
sum(f, r::StepRange{Int, Int}) = sum(f, collect(r))
sum(f, r::LinRange) = sum(f, collect(r))
prod(f, r::UnitRange{Int}) = prod(f, collect(r))
prod(f, r::StepRange{Int, Int}) = prod(f, collect(r))
maximum(f, r::UnitRange{Int}) = maximum(f, collect(r))
maximum(f, r::StepRange{Int, Int}) = maximum(f, collect(r))
maximum(f, r::LinRange) = maximum(f, collect(r))
minimum(f, r::UnitRange{Int}) = minimum(f, collect(r))
minimum(f, r::StepRange{Int, Int}) = minimum(f, collect(r))
minimum(f, r::LinRange) = minimum(f, collect(r))
mapreduce(f, op, r::UnitRange{Int}; init = _InitialValue()) = mapreduce(f, op, collect(r); init = init)
mapreduce(f, op, r::StepRange{Int, Int}; init = _InitialValue()) = mapreduce(f, op, collect(r); init = init)
mapreduce(f, op, r::Union{LinRange, StepRangeLen}; init = _InitialValue()) = mapreduce(f, op, collect(r); init = init)
reduce(op, r::Union{UnitRange{Int}, StepRange{Int, Int}, LinRange, StepRangeLen}; init = _InitialValue()) =
    reduce(op, collect(r); init = init)
foldl(op, r::Union{UnitRange{Int}, StepRange{Int, Int}, LinRange, StepRangeLen}; init = _InitialValue()) =
    foldl(op, collect(r); init = init)
foldr(op, r::Union{UnitRange{Int}, StepRange{Int, Int}, LinRange, StepRangeLen}; init = _InitialValue()) =
    foldr(op, collect(r); init = init)
any(f, r::UnitRange{Int}) = any(f, collect(r))
all(f, r::UnitRange{Int}) = all(f, collect(r))
count(f, r::UnitRange{Int}) = count(f, collect(r))

# ---- Bool as a type (Julia's float.jl, bool.jl) ------------------------------------------------

# Julia's `Bool(x::Real)` (inference's `Bool(x)` of a number other than a Bool calls it):
# `false` for zero, `true` for one, an `InexactError` for any other number.
_bool(x::Real) = x == 0 ? false : x == 1 ? true : throw(InexactError(:Bool, Bool, x))

# ---- A vector indexed as a matrix (Julia's trailing singleton indices) ------------------------

# `x[:, :]`: an n×1 Matrix copy of `x`.
getindex(x::Vector, ::Colon, ::Colon) = reshape(copy(x), length(x), 1)
# `x[i, :]`: the one column kept, a 1-element Vector for an Int `i`, a k×1 Matrix for k
# indices (`x[1, :]` of DiffTests' `arr2arr_2` given a vector).
getindex(x::Vector, i::Int, ::Colon) = [x[i]]
getindex(x::Vector, I, ::Colon) = reshape(x[I], length(I), 1)
# `x[i, 1]`: `x[i]` (a copy for a slice); a second index other than 1 is out of bounds.
function getindex(x::Vector, i, j::Int)
    j == 1 || throw(BoundsError(x, (i, j)))
    return x[i]
end

# ---- Pairs -----------------------------------------------------------------------------------

"""
    Pair(a, b), a => b

Two values held together, `p.first` and `p.second` (`first(p)`, `last(p)`); `i, v = p`
destructures a pair as it does a tuple.
"""
struct Pair{A, B}
    first::A
    second::B
end

first(p::Pair) = p.first
last(p::Pair) = p.second
length(p::Pair) = 2
reverse(p::Pair) = Pair(p.second, p.first)
isless(p::Pair, q::Pair) = isequal(p.first, q.first) ? isless(p.second, q.second) : isless(p.first, q.first)

"""
    Pairs(data)

`pairs(x)` of a vector or tuple: the pairs `i => x[i]` of each index and its element
(Julia's `Iterators.Pairs`).
"""
struct Pairs{T}
    data::T
end

"""
    pairs(x)

Iterate over `i => x[i]` for the indices `i` of a vector or tuple (`for (i, v) in pairs(x)`),
over `:a => nt.a` for the names of a named tuple.
"""
pairs(x::AbstractVector) = Pairs(x)
pairs(x::Tuple) = Pairs(x)
pairs(nt::NamedTuple) = Pairs(nt)
length(p::Pairs) = length(p.data)
# Julia's: indexed by a key, the value; iterated, the pair.
getindex(p::Pairs, k::Int) = p.data[k]
_gen_elem(p::Pairs, k::Int) = _open_pair(k, p.data[k])
first(p::Pairs) = _gen_elem(p, 1)
last(p::Pairs) = _gen_elem(p, length(p))
keys(p::Pairs) = 1:length(p.data)
values(p::Pairs) = p.data
# Of a matrix (Julia's keys `CartesianIndices(A)`): iterated, `CartesianIndex(i, j) => A[i, j]`
# in column-major order.
pairs(A::AbstractMatrix) = Pairs(A)
keys(p::Pairs{<:AbstractMatrix}) = keys(p.data)
getindex(p::Pairs{<:AbstractMatrix}, I::CartesianIndex) = p.data[I[1], I[2]]
_gen_elem(p::Pairs{<:AbstractMatrix}, k::Int) = _open_pair(_cartesian_of(p.data, k), p.data[k])
# Of a named tuple: its names are the keys, `pairs(nt)[:a]` its value; iterated, `:a => nt.a`.
keys(p::Pairs{<:NamedTuple}) = keys(p.data)
getindex(p::Pairs{<:NamedTuple}, k::Symbol) = p.data[k]
_gen_elem(p::Pairs{<:NamedTuple}, k::Int) = Pair(keys(p.data)[k], p.data[k])
first(p::Pairs{<:NamedTuple}) = Pair(first(keys(p.data)), first(p.data))
last(p::Pairs{<:NamedTuple}) = Pair(last(keys(p.data)), last(p.data))
# A method's `kw...` is such pairs (Julia's `Base.Pairs{Symbol, V, ...}` of the named tuple of
# the other keywords passed), a dictionary from the names to the values.
# (`haskey(kw, :a)` is inference's, known from the names.)
get(p::Pairs{<:NamedTuple}, k::Symbol, default) = get(p.data, k, default)
get(f, p::Pairs{<:NamedTuple}, k::Symbol) = haskey(p.data, k) ? getproperty(p.data, k) : f()
# `collect(kw)`: a `Vector{Pair{Symbol, V}}`, its names symbols known when the program runs.
collect(p::Pairs{<:NamedTuple}) = _pairs_vector([keys(p.data)...], p.data)
function _pairs_vector(ks, nt::NamedTuple)
    isempty(ks) && error("unsupported: `collect(kw)` of no keywords (Julia's `Pair{Symbol, Union{}}[]`, a vector nothing can be stored in)")
    return [Pair(ks[i], nt[i]) for i in 1:length(ks)]
end
Dict(p::Pairs{<:NamedTuple}) = Dict(_named_pairs(p.data)...)
merge(nt::NamedTuple, p::Pairs{<:NamedTuple}) = merge(nt, p.data)
_named_part(p::Pairs{<:NamedTuple}) = p.data
# The pairs `:a => nt.a` of a named tuple, as a tuple.
_named_pairs(nt::NamedTuple) = map(Pair, keys(nt), values(nt))
# A generator over them (`sum(v for (k, v) in kw)`) goes over that tuple: each key is a symbol
# of its own type, each pair read by a constant index.
_gen_fold(op, first, f, it::Pairs{<:NamedTuple}) = _gen_fold(op, first, f, _named_pairs(it.data))
_gen_fold_init(op, init, f, it::Pairs{<:NamedTuple}) = _gen_fold_init(op, init, f, _named_pairs(it.data))
_gen_collect(f, it::Pairs{<:NamedTuple}) = _gen_collect(f, _named_pairs(it.data))
_gen_any(f, it::Pairs{<:NamedTuple}) = _gen_any(f, _named_pairs(it.data))
_gen_all(f, it::Pairs{<:NamedTuple}) = _gen_all(f, _named_pairs(it.data))
# And so do the reductions with a function (`sum(last, kw)`), `any`, `all` and `foreach`.
sum(f, p::Pairs{<:NamedTuple}) = sum(f, _named_pairs(p.data))
prod(f, p::Pairs{<:NamedTuple}) = prod(f, _named_pairs(p.data))
maximum(f, p::Pairs{<:NamedTuple}) = maximum(f, _named_pairs(p.data))
minimum(f, p::Pairs{<:NamedTuple}) = minimum(f, _named_pairs(p.data))
any(f, p::Pairs{<:NamedTuple}) = any(f(q) for q in p)
all(f, p::Pairs{<:NamedTuple}) = all(f(q) for q in p)
foreach(f, p::Pairs{<:NamedTuple}) = foreach(f, _named_pairs(p.data))

# ---- Strings (Julia's strings/io.jl, strings/util.jl, parse.jl) -----------------------------

"""
    join(xs, delim = "", last = delim)

The elements of `xs` as `print` writes them, `delim` between two of them and `last` between
the last two: `join([1, 2, 3], ", ", " and ") == "1, 2 and 3"`.
"""
function join(xs, delim = "")
    s = ""
    started = false
    for x in xs
        s = started ? string(s, delim, x) : string(x)
        started = true
    end
    return s
end
function join(xs, delim, last)
    s = ""
    k = 0
    n = length(xs)
    for x in xs
        k += 1
        s = k == 1 ? string(x) : k == n ? string(s, last, x) : string(s, delim, x)
    end
    return s
end
# Of a generator (a filtered one too): its values, each computed once, in order.
join(g::Generator, delim = "") = join(collect(g), delim)
join(g::Generator, delim, last) = join(collect(g), delim, last)

"""
    summary(x)

Julia's one-line description of `x`: an array's size and type (`3-element Vector{Float64}`,
`2×3 Matrix{Float64}`), any other value's type.
"""
summary(x) = "$(typeof(x))"
summary(x::AbstractArray) = _array_summary(x)
# A lazy adjoint or transpose names the call that made it (`1×2 adjoint(::Vector{Float64})
# with eltype Float64`).
# Of a wrapper of a view (Julia's `adjoint(view(::Matrix{Float64}, ...))`), its copy's.
summary(x::Adjoint) = _wrapper_summary("adjoint", x, parent(x))
summary(x::AdjointMatrix) = _wrapper_summary("adjoint", x, parent(x))
summary(x::Transpose) = _wrapper_summary("transpose", x, parent(x))
summary(x::TransposeMatrix) = _wrapper_summary("transpose", x, parent(x))
_wrapper_summary(f, x, p::Union{Vector, Matrix}) =
    "$(_size_text(size(x))) $f(::$(typeof(p))) with eltype $(eltype(p))"
_wrapper_summary(f, x, p) = summary(collect(x))
summary(r::Union{UnitRange{Int}, StepRange{Int, Int}, StepRange{Char, Int}, LinRange}) = _array_summary(r)
summary(r::StepRangeLen{T}) where {T} =
    "$(length(r))-element StepRangeLen{$T, Base.TwicePrecision{$T}, Base.TwicePrecision{$T}, Int64}"
_array_summary(x) = "$(_size_text(size(x))) $(typeof(x))"
_size_text(d::Tuple{Int}) = string(d[1], "-element")
_size_text(d::Tuple) = join(d, "×")

# What `throw(BoundsError(a, i))` raises after `BoundsError: ` (lowering calls it), as Julia's
# `showerror` writes it: `attempt to access 3×3 Matrix{Float64} at index [4, 1]`.
_bounds_message(a) = string("attempt to access ", summary(a))
_bounds_message(a, i) = string(_bounds_message(a), " at index [", _index_text(i), "]")
_index_text(i::Tuple) = join(map(repr, i), ", ")
_index_text(i) = repr(i)

"""
    replace(s, pat => rep, ...; count)

`s` with every occurrence of each pattern replaced by its replacement (as `print` writes it),
from left to right, the earliest match first; with `count`, the first `count` of them.
"""
replace(s::AbstractString, p::Pair; count::Integer = typemax(Int)) =
    _replace(s, _replace_count(count), _pattern_text(p.first), _pattern_text(p.second))
replace(s::AbstractString, p::Pair, q::Pair; count::Integer = typemax(Int)) =
    _replace(s, _replace_count(count), _pattern_text(p.first), _pattern_text(p.second),
             _pattern_text(q.first), _pattern_text(q.second))
replace(s::AbstractString, p::Pair, q::Pair, r::Pair; count::Integer = typemax(Int)) =
    _replace(s, _replace_count(count), _pattern_text(p.first), _pattern_text(p.second),
             _pattern_text(q.first), _pattern_text(q.second), _pattern_text(r.first),
             _pattern_text(r.second))
_pattern_text(x) = string(x)
_pattern_text(r::Regex) = error("unsupported: `replace` with a regex beside other patterns, or with a replacement that is not a string or `s\"...\"`")
_pattern_text(r::SubstitutionString) = r.string
function _replace_count(count)
    count < 0 && throw(DomainError(count, "`count` must be non-negative."))
    return Int(count)
end

"""
    parse(Int, s; base), parse(Float64, s), tryparse(Int, s; base)

The number written in `s` (whitespace around it allowed; an Int may have a sign, and a `0x`,
`0o` or `0b` prefix where no `base` (2 to 62) is given), else Julia's `ArgumentError`
(`OverflowError` for an Int out of range); `tryparse` gives `nothing` instead.
"""
parse(::Type{Int64}, s::AbstractString; base = nothing) = _parse_int(s, base)
parse(::Type{Int}, s::AbstractString; base = nothing) = _parse_int(s, base)
parse(::Type{Float64}, s::String) = _parse_float(s)
# `parse(Int, '7')`: the digit's value in `base` (10 unless given; letters from 10 on).
parse(::Type{Int64}, c::Char; base = 10) = _parse_digit(c, base)
parse(::Type{Int}, c::Char; base = 10) = _parse_digit(c, base)
function _parse_digit(c::Char, base)
    d = '0' <= c <= '9' ? Int(c) - 48 :
        'a' <= c <= 'z' ? Int(c) - 87 : 'A' <= c <= 'Z' ? Int(c) - 55 : base
    d < base || throw(ArgumentError("invalid base $base digit $(repr(c))"))
    return d
end
function tryparse(::Type{Int64}, s::AbstractString; base = nothing)
    ok, n = _tryparse_int(s, base)
    return NothingOrInt(ok, n)
end
tryparse(::Type{Int}, s::AbstractString; base = nothing) = tryparse(Int64, s; base = base)
function tryparse(::Type{Float64}, s::String)
    ok, x = _tryparse_float(s)
    return ok ? x : nothing
end

# ---- Regular expressions (Julia's regex.jl) --------------------------------------------------
# A `Regex` holds its pattern and flags as text; the primitives `_regex_*` compile and match
# them (zy's interpreter, `prim/regex.rs`: PCRE's syntax and match order, what it cannot match
# as PCRE does refused by name).

"""
    Regex(pattern, flags = ""), r"pattern"flags

A regular expression; the flags `i` (case-insensitive), `m` (`^`/`\$` at lines), `s` (`.`
matches a newline).
"""
struct Regex
    pattern::String
    flags::String
    function Regex(pattern::AbstractString, flags::AbstractString)
        return new(string(pattern), _regex_flags(string(pattern), string(flags)))
    end
end
Regex(pattern::AbstractString) = Regex(pattern, "")

"""
    SubstitutionString(s), s"text"

A replacement for `replace(s, r => s"...")`: `\\0` the match, `\\1` (`\\g<1>`) a group.
"""
struct SubstitutionString
    string::String
end

"""
    RegexMatch

A match of a `Regex`: `m.match`, `m.captures` (`m[i]`; `nothing` for a group that took no
part in the match, `(a)?` of `"b"`, whose offset is 0), `m.offset`, `m.offsets`, `m.regex`.
"""
struct RegexMatch
    match::SubString{String}
    captures::Vector{Union{Nothing, SubString{String}}}
    offset::Int
    offsets::Vector{Int}
    regex::Regex
end
getindex(m::RegexMatch, i::Int) = m.captures[i]
# A group by name (`m[:year]`, `m["year"]`).
function getindex(m::RegexMatch, name::AbstractString)
    names = _regex_names(m.regex.pattern, m.regex.flags)
    for k in 1:length(names)
        names[k] == name && return m.captures[k]
    end
    error("no capture group named $name found in regex")
end
getindex(m::RegexMatch, name::Symbol) = m[string(name)]
haskey(m::RegexMatch, name::Symbol) = string(name) in _regex_names(m.regex.pattern, m.regex.flags)
haskey(m::RegexMatch, name::AbstractString) = name in _regex_names(m.regex.pattern, m.regex.flags)
haskey(m::RegexMatch, i::Int) = 1 <= i <= length(m.captures)
# Each group's name, or its number where it has none, mapped as Julia's `keys` maps them: a
# `Vector{Int64}` without names, a `Vector{String}` with every group named, a `Vector{Any}`
# of both, and without groups `Union{Int64, String}[]`.
function keys(m::RegexMatch)
    names = _regex_names(m.regex.pattern, m.regex.flags)
    return map(i -> isempty(names[i]) ? i : names[i], 1:length(m.captures))
end
# Julia's pairs of each key and its group's text or `nothing` are pairs of unions, which zy's
# `Pair` cannot hold.
pairs(m::RegexMatch) = error("unsupported: `pairs` of a regex match (Julia's pairs of each group's key and its text or `nothing`); loop over `keys(m)` and read `m[k]`")
# A match iterates its groups' texts (`a, b = match(r"(.)(.)", s)`).
length(m::RegexMatch) = length(m.captures)
iterate(m::RegexMatch, i::Int = 1) = i > length(m.captures) ? nothing : (m.captures[i], i + 1)
# A generator over a match is one over its groups (Julia's `iterate` of a match is theirs).
Generator(f, m::RegexMatch) = Generator(f, m.captures)

# The first match of `r` in `s` from byte `i`: anywhere (`mode` 0), at `i` (1), at `i` and not
# empty (2, `eachmatch` after an empty match), ending at the end (3, `endswith`); `nothing` if
# there is none.
function _regex_match(r::Regex, s::AbstractString, i::Int, mode::Int)
    a, b, starts, ends = _regex_find(r.pattern, r.flags, s, i, mode, true)
    a == 0 && return nothing
    caps = [starts[k] == 0 ? nothing : SubString(s, starts[k], ends[k]) for k in 1:length(starts)]
    return RegexMatch(SubString(s, a, b), caps, a, starts, r)
end
# The match known to start at byte `a`.
function _regex_found(r::Regex, s::AbstractString, a::Int)
    m = _regex_match(r, s, a, 1)
    m === nothing && error("internal error: a regex match went missing")
    return m
end
match(r::Regex, s::AbstractString) = _regex_match(r, s, 1, 0)
match(r::Regex, s::AbstractString, i::Int) = _regex_match(r, s, i, 0)
occursin(r::Regex, s::String) = _regex_find(r.pattern, r.flags, s, 1, 0, false)[1] > 0
occursin(r::Regex, s::SubString) = _regex_find(r.pattern, r.flags, s, 1, 0, false)[1] > 0
startswith(s::String, r::Regex) = _regex_find(r.pattern, r.flags, s, 1, 1, false)[1] > 0
startswith(s::SubString, r::Regex) = _regex_find(r.pattern, r.flags, s, 1, 1, false)[1] > 0
endswith(s::String, r::Regex) = _regex_find(r.pattern, r.flags, s, 1, 3, false)[1] > 0
endswith(s::SubString, r::Regex) = _regex_find(r.pattern, r.flags, s, 1, 3, false)[1] > 0

"""
    eachmatch(r, s; overlap = false)

The matches of `r` in `s`, each after the last, as Julia's iterator finds them (after an
empty match, a non-empty one at the same place, else the search moves one character on);
with `overlap`, each from the character after the last one's start.
"""
struct RegexMatchIterator
    regex::Regex
    string::String
    overlap::Bool
end
eachmatch(r::Regex, s::AbstractString; overlap::Bool = false) =
    RegexMatchIterator(r, string(s), overlap)
IteratorSize(::Type{RegexMatchIterator}) = SizeUnknown()
eltype(::Type{RegexMatchIterator}) = RegexMatch
# The state: where the next search starts, and whether the last match was empty.
function iterate(it::RegexMatchIterator, state = (1, false))
    i, after_empty = state
    r, s = it.regex, it.string
    while true
        a, b, _, _ = _regex_find(r.pattern, r.flags, s, i, after_empty ? 2 : 0, false)
        if a == 0
            (after_empty && i <= ncodeunits(s)) || return nothing
            i = nextind(s, i)
            after_empty = false
        else
            empty = b < a
            next = empty ? a : nextind(s, it.overlap ? a : b)
            return (_regex_found(r, s, a), (next, empty))
        end
    end
end
# Calls `f(i, j)` with the byte range of each match, as Julia's `RegexMatchIterator` finds them.
function _each_match(f, r::Regex, s::AbstractString)
    i = 1
    after_empty = false
    while true
        a, b, _, _ = _regex_find(r.pattern, r.flags, s, i, after_empty ? 2 : 0, false)
        if a == 0
            (after_empty && i <= ncodeunits(s)) || break
            i = nextind(s, i)
            after_empty = false
        else
            f(a, b)
            after_empty = b < a
            i = after_empty ? a : nextind(s, b)
        end
    end
    return nothing
end
function _count_matches(r::Regex, s::AbstractString)
    n = Ref(0)
    _each_match((a, b) -> n[] += 1, r, s)
    return n[]
end
# `findfirst(r, s)`, `findnext(r, s, i)`: the byte range of the first match, or `nothing`.
function _regex_next(r::Regex, s::AbstractString, i::Int)
    a, b, _, _ = _regex_find(r.pattern, r.flags, s, i, 0, false)
    return a == 0 ? nothing : (a:b)
end
findnext(r::Regex, s::String, i::Int) = _regex_next(r, s, i)
findnext(r::Regex, s::SubString, i::Int) = _regex_next(r, s, i)
findfirst(r::Regex, s::String) = _regex_next(r, s, 1)
findfirst(r::Regex, s::SubString) = _regex_next(r, s, 1)
findall(r::Regex, s::String; overlap::Bool = false) = _regex_findall(r, s, overlap)
findall(r::Regex, s::SubString; overlap::Bool = false) = _regex_findall(r, string(s), overlap)
function _regex_findall(r::Regex, s::String, overlap::Bool)
    found = UnitRange{Int}[]
    i, e = 1, lastindex(s)
    while true
        a, b, _, _ = _regex_find(r.pattern, r.flags, s, i, 0, false)
        a == 0 && break
        push!(found, a:b)
        j = overlap || b < a ? a : b
        j > e && break
        i = nextind(s, j)
    end
    return found
end
count(r::Regex, s::String) = _count_matches(r, s)
count(r::Regex, s::SubString) = _count_matches(r, s)
split(s::String, r::Regex; limit::Int = 0, keepempty::Bool = true) =
    _regex_split(r.pattern, r.flags, s, limit, keepempty)
split(s::SubString, r::Regex; limit::Int = 0, keepempty::Bool = true) =
    _regex_split(r.pattern, r.flags, s, limit, keepempty)
replace(s::AbstractString, p::Pair{Regex, String}; count::Integer = typemax(Int)) =
    _regex_replace(p.first.pattern, p.first.flags, s, p.second, false, _replace_count(count))
replace(s::AbstractString, p::Pair{Regex, SubstitutionString}; count::Integer = typemax(Int)) =
    _regex_replace(p.first.pattern, p.first.flags, s, p.second.string, true,
                   _replace_count(count))

# ---- In-memory streams (Julia's iobuffer.jl) ---------------------------------------------------

"""
    IO

Julia's abstract stream type; zy's one stream is an `IOBuffer`.
"""
abstract type IO end

"""
    IOBuffer(), IOBuffer(s), IOBuffer(bytes)

An in-memory stream: `print`, `println`, `write`, `show`, `join` and `@printf` to an
`IOBuffer()` write text at its position, `write(io, x)` of a number its bytes
(little-endian), `take!(io)` gives its bytes and empties it (`String(take!(io))`); one made of
a string or a `Vector{UInt8}` is read by `readline`, `eachline`, `readlines`, `read(io,
String)`, `read(io, T)` of a number type and `read(io)`. The contents are a `String` while
only text has been written at the end, and a `Vector{UInt8}` (`bytes`) once anything else
has been written or read, so text is appended as fast as strings are.
"""
mutable struct IOBuffer <: IO
    data::String
    bytes::Vector{UInt8}
    binary::Bool
    ptr::Int
    writable::Bool
    IOBuffer() = new("", UInt8[], false, 1, true)
    IOBuffer(s::AbstractString) = new(string(s), UInt8[], false, 1, false)
    IOBuffer(v::Vector{UInt8}) = new("", v, true, 1, false)
end
# Nothing is held back from an `IOBuffer`'s contents, so there is nothing to flush.
flush(io::IOBuffer) = nothing
# The number of bytes the buffer holds.
_size(io::IOBuffer) = io.binary ? length(io.bytes) : ncodeunits(io.data)
# Holds the contents as bytes from now on.
function _to_bytes!(io::IOBuffer)
    if !io.binary
        io.bytes = _str_bytes(io.data)
        io.data = ""
        io.binary = true
    end
    return io.bytes
end
_check_writable(io::IOBuffer) =
    io.writable || throw(ArgumentError("ensureroom failed, IOBuffer is not writeable"))
# Writes `s` at the position (appended while the position is at the end of text), the number
# of bytes written.
function _write_text(io::IOBuffer, s::String)
    _check_writable(io)
    (io.binary || io.ptr <= ncodeunits(io.data)) && return _write_bytes(io, _str_bytes(s))
    io.data = string(io.data, s)
    io.ptr = ncodeunits(io.data) + 1
    return ncodeunits(s)
end
# Writes `b` at the position, over the bytes there and past the end, the number written.
# A write past the end moves the bytes to a longer vector (no `push!`, which the JIT declines
# beside some values, in every program that prints to a buffer).
function _write_bytes(io::IOBuffer, b::Vector{UInt8})
    _check_writable(io)
    d = _to_bytes!(io)
    p = io.ptr
    n = length(b)
    if p + n - 1 > length(d)
        grown = zeros(UInt8, p + n - 1)
        for k in 1:length(d)
            grown[k] = d[k]
        end
        io.bytes = grown
        d = grown
    end
    for k in 1:n
        d[p + k - 1] = b[k]
    end
    io.ptr = p + n
    return n
end
function print(io::IOBuffer, xs...)
    _write_text(io, string(xs...))
    return nothing
end
println(io::IOBuffer, xs...) = print(io, xs..., "\n")
write(io::IOBuffer, s::AbstractString) = _write_text(io, string(s))
write(io::IOBuffer, c::Char) = _write_text(io, string(c))
write(io::IOBuffer, x::Union{Float64, Float32, Int64, Int32, Int16, Int8, UInt64, UInt32, UInt16, UInt8, Bool}) =
    _write_bytes(io, _bits_bytes(x))
function write(io::IOBuffer, v::Array)
    n = 0
    for x in v
        n += write(io, x)
    end
    return n
end
write(io::IOBuffer, x, y, zs...) = write(io, x) + write(io, y, zs...)
write(io::IOBuffer, x) = error("unsupported: `write` of a $(typeof(x)) to an `IOBuffer` (Julia writes its bytes); write a string, a number or an array of numbers, or `print` it")
function show(io::IOBuffer, x)
    print(io, repr(x))
    return nothing
end
function join(io::IOBuffer, xs, delim = "")
    print(io, join(xs, delim))
    return nothing
end
function join(io::IOBuffer, xs, delim, last)
    print(io, join(xs, delim, last))
    return nothing
end
"""
    sprint(f, args...)

The text `f(io, args...)` writes to a fresh `IOBuffer` (`sprint(show, x)`, `sprint(print,
x)` and `sprint(io -> ...)` are the syntax's).
"""
function sprint(f, args...)
    io = IOBuffer()
    f(io, args...)
    return String(take!(io))
end

# The text `f(io)` writes to a fresh `IOBuffer`: a `show` method's `io` (the text written so
# far, to the syntax) passed to a helper.
function _written(f)
    io = IOBuffer()
    f(io)
    return String(take!(io))
end
function take!(io::IOBuffer)
    bytes = io.binary ? copy(io.bytes) : _str_bytes(io.data)
    if io.writable
        io.data = ""
        io.bytes = UInt8[]
        io.binary = false
        io.ptr = 1
    end
    return bytes
end
eof(io::IOBuffer) = io.ptr > _size(io)
position(io::IOBuffer) = io.ptr - 1
function seekstart(io::IOBuffer)
    io.ptr = 1
    return io
end
function seekend(io::IOBuffer)
    io.ptr = _size(io) + 1
    return io
end
function seek(io::IOBuffer, n::Integer)
    io.ptr = clamp(n, 0, _size(io)) + 1
    return io
end
function skip(io::IOBuffer, n::Integer)
    io.ptr = clamp(io.ptr + n, 1, _size(io) + 1)
    return io
end
# The text from the position on, the index in it the position is at, and the position before
# its first byte: a text buffer's own string, or the `String` of the bytes left.
function _text_rest(io::IOBuffer)
    io.binary || return io.data, io.ptr, 0
    return String(io.bytes[io.ptr:end]), 1, io.ptr - 1
end
function read(io::IOBuffer, ::Type{String})
    s, i, base = _text_rest(io)
    io.ptr = base + ncodeunits(s) + 1
    return s[i:lastindex(s)]
end
# The bytes from the position on.
function read(io::IOBuffer)
    d = _to_bytes!(io)
    bytes = d[io.ptr:end]
    io.ptr = length(d) + 1
    return bytes
end
# The number of type `T` whose bytes start at the position (Julia's `EOFError` past the end).
function _read_bits(io::IOBuffer, proto)
    x = _bytes_bits(_to_bytes!(io), io.ptr, proto)
    io.ptr += length(_bits_bytes(proto))
    return x
end
read(io::IOBuffer, T::Type{Float64}) = _read_bits(io, zero(T))
read(io::IOBuffer, T::Type{Float32}) = _read_bits(io, zero(T))
read(io::IOBuffer, T::Type{Int64}) = _read_bits(io, zero(T))
read(io::IOBuffer, T::Type{Int32}) = _read_bits(io, zero(T))
read(io::IOBuffer, T::Type{Int16}) = _read_bits(io, zero(T))
read(io::IOBuffer, T::Type{Int8}) = _read_bits(io, zero(T))
read(io::IOBuffer, T::Type{UInt64}) = _read_bits(io, zero(T))
read(io::IOBuffer, T::Type{UInt32}) = _read_bits(io, zero(T))
read(io::IOBuffer, T::Type{UInt16}) = _read_bits(io, zero(T))
read(io::IOBuffer, T::Type{UInt8}) = _read_bits(io, zero(T))
read(io::IOBuffer, T::Type{Bool}) = _read_bits(io, false)
# The next line, without its `\n` (or `\r\n`) unless `keep`; `""` at the end.
function readline(io::IOBuffer; keep::Bool = false)
    io.binary && return _byte_line(io, keep)
    s, i, base = _text_rest(io)
    n = ncodeunits(s)
    i > n && return ""
    j = _str_find(s, "\n", i, true)
    if j == 0
        io.ptr = base + n + 1
        return s[i:lastindex(s)]
    end
    io.ptr = base + j + 1
    keep && return s[i:j]
    j > i && s[prevind(s, j)] == '\r' && return s[i:prevind(s, prevind(s, j))]
    return s[i:prevind(s, j)]
end
# `readline` of a buffer holding bytes: the bytes up to the next `\n` made text, so that
# reading every line takes time linear in the buffer's size.
function _byte_line(io::IOBuffer, keep::Bool)
    d = io.bytes
    i = io.ptr
    n = length(d)
    i > n && return ""
    j = i
    while j <= n && d[j] != UInt8(10)
        j += 1
    end
    io.ptr = min(j, n) + 1
    j > n && return String(d[i:n])
    keep && return String(d[i:j])
    j > i && d[j - 1] == UInt8(13) && return String(d[i:j - 2])
    return String(d[i:j - 1])
end
# The text up to the next `delim` (a character or a string), which is read too but left out
# unless `keep`; the rest of the text if there is none.
function readuntil(io::IOBuffer, delim::Union{Char, AbstractString}; keep::Bool = false)
    s, i, base = _text_rest(io)
    d = string(delim)
    n = ncodeunits(s)
    i > n && return ""
    j = isempty(d) ? i : _str_find(s, d, i, true)
    if j == 0
        io.ptr = base + n + 1
        return s[i:lastindex(s)]
    end
    io.ptr = base + j + ncodeunits(d)
    keep && return s[i:prevind(s, j + ncodeunits(d))]
    return s[i:prevind(s, j)]
end

"""
    eachline(io; keep = false)

The lines of `io`, each read when the loop reaches it (`readline`).
"""
struct EachLine
    stream::IOBuffer
    keep::Bool
end
eachline(io::IOBuffer; keep::Bool = false) = EachLine(io, keep)
IteratorSize(::Type{EachLine}) = SizeUnknown()
eltype(::Type{EachLine}) = String
iterate(it::EachLine, state::Int = 0) =
    eof(it.stream) ? nothing : (readline(it.stream; keep = it.keep), state + 1)
function readlines(io::IOBuffer; keep::Bool = false)
    lines = String[]
    while !eof(io)
        push!(lines, readline(io; keep = keep))
    end
    return lines
end

"""
    reinterpret(T, x)

The number of type `T` whose bytes are those of the number `x` (`reinterpret(UInt64, 1.0) ==
0x3ff0000000000000`); Julia's error where their sizes differ. Of a vector of numbers, the
vector of `T`s its bytes make (Julia's `ReinterpretArray`, which shares the vector's memory:
it reads and writes the vector's bytes).
"""
function reinterpret(T::Type, x::Union{Float64, Float32, Int64, Int32, Int16, Int8, UInt64, UInt32, UInt16, UInt8, Bool})
    bytes, proto = _bits_bytes(x), zero(T)
    length(bytes) == length(_bits_bytes(proto)) ||
        error("bitcast: argument size does not match size of target type")
    return _bytes_bits(bytes, 1, proto)
end
reinterpret(T::Type, A::AbstractArray) = error("unsupported: `reinterpret` of a $(typeof(A)) (of a vector of numbers only); `write` its elements to an `IOBuffer` and `take!` the bytes, or `read(io, T)` them back")

"""
    Base.ReinterpretArray{T, 1, S, Vector{S}, false}

`reinterpret(T, v)` of a vector `v` of numbers of type `S`: the `T`s its bytes make, read
from `v` where indexed and written into it, so each sees the other's writes.
"""
struct ReinterpretArray{T, N, S, A, IsReshaped} <: AbstractArray{T, N}
    parent::A
end
function reinterpret(::Type{T}, v::Vector{S}) where {T <: Union{Float64, Float32, Int64, Int32, Int16, Int8, UInt64, UInt32, UInt16, UInt8, Bool},
                                                     S <: Union{Float64, Float32, Int64, Int32, Int16, Int8, UInt64, UInt32, UInt16, UInt8, Bool}}
    st, ss = _bits_size(zero(T)), _bits_size(zero(S))
    (length(v) * ss) % st == 0 ||
        throw(ArgumentError("cannot reinterpret an `$S` array to `$T` whose first dimension has size `$(length(v))`. The resulting array would have a non-integral first dimension."))
    return ReinterpretArray{T, 1, S, Vector{S}, false}(v)
end
_bits_size(x) = length(_bits_bytes(x))
parent(r::ReinterpretArray) = r.parent
size(r::ReinterpretArray{T, N, S, A, R}) where {T, N, S, A, R} = (length(r.parent) * _bits_size(zero(S)) ÷ _bits_size(zero(T)),)
length(r::ReinterpretArray) = size(r)[1]
summary(r::ReinterpretArray{T, N, S, A, R}) where {T, N, S, A, R} =
    string(length(r), "-element reinterpret(", T, ", ::", A, ")")
# The bytes of element `i`, taken from the parent's elements that hold them.
function _reinterpreted_bytes(r::ReinterpretArray{T, N, S, A, R}, i::Int) where {T, N, S, A, R}
    st, ss = _bits_size(zero(T)), _bits_size(zero(S))
    bytes = zeros(UInt8, st)
    for t in 1:st
        k = (i - 1) * st + t - 1
        bytes[t] = _bits_bytes(r.parent[k ÷ ss + 1])[k % ss + 1]
    end
    return bytes
end
function getindex(r::ReinterpretArray{T, N, S, A, R}, i::Int) where {T, N, S, A, R}
    1 <= i <= length(r) || throw(BoundsError(r, i))
    return _bytes_bits(_reinterpreted_bytes(r, i), 1, zero(T))
end
# A write puts the value's bytes into the parent's elements that hold them.
function setindex!(r::ReinterpretArray{T, N, S, A, R}, x, i::Int) where {T, N, S, A, R}
    1 <= i <= length(r) || throw(BoundsError(r, i))
    st, ss = _bits_size(zero(T)), _bits_size(zero(S))
    new = _bits_bytes(convert(T, x))
    for t in 1:st
        k = (i - 1) * st + t - 1
        j = k ÷ ss + 1
        old = _bits_bytes(r.parent[j])
        old[k % ss + 1] = new[t]
        r.parent[j] = _bytes_bits(old, 1, zero(S))
    end
    return r
end
# Its display: the summary (`1-element reinterpret(Float64, ::Vector{UInt8})`), then the
# elements as a vector's (numbers aligned, bytes in hexadecimal); empty, the summary.
function repr(mime::String, r::ReinterpretArray)
    mime == "text/plain" || _no_show(mime, typeof(r))
    return _plain_reinterpreted(summary(r), collect(r))
end
_plain_reinterpreted(head::String, v::Union{Vector{Float64}, Vector{Int}, Vector{Bool}}) = _plain_grid(head, v)
_plain_reinterpreted(head::String, v::Vector) = isempty(v) ? head : _plain_items(head, v)

"""
    codeunits(s)

The bytes of the string `s` as a vector that cannot be written (Julia's
`Base.CodeUnits{UInt8, String}`): `c[i]`, `length`, loops, `collect` (a `Vector{UInt8}`).
"""
struct CodeUnits <: AbstractVector{UInt8}
    bytes::Vector{UInt8}
end
codeunits(s::AbstractString) = CodeUnits(_str_bytes(string(s)))
size(c::CodeUnits) = size(c.bytes)
summary(c::CodeUnits) = string(length(c.bytes), "-element Base.CodeUnits{UInt8, String}")
function getindex(c::CodeUnits, i::Int)
    1 <= i <= length(c.bytes) || throw(BoundsError(c, i))
    return c.bytes[i]
end
write(io::IOBuffer, c::CodeUnits) = _write_bytes(io, c.bytes)
# The display of the bytes: the summary, then a byte a line (`0x61`); empty, the summary.
function repr(mime::String, c::CodeUnits)
    mime == "text/plain" || _no_show(mime, typeof(c))
    isempty(c.bytes) && return summary(c)
    return string(summary(c), ":", join([string("\n ", repr(x)) for x in c.bytes]))
end

# ---- Bits of an Int (Julia's int.jl) ---------------------------------------------------------

"""
    count_ones(x::Int), count_zeros(x), leading_zeros(x), trailing_zeros(x)

The number of one (zero) bits of `x`'s 64, and of zero bits before its highest one bit or
after its lowest (`leading_zeros(0) == trailing_zeros(0) == 64`).
"""
function count_ones(x::Int)
    n = 0
    while x != 0
        n += x & 1
        x = x >>> 1
    end
    return n
end
count_zeros(x::Int) = 64 - count_ones(x)
count_ones(x::Union{Int8, Int16, Int32, UInt8, UInt16, UInt32, UInt64}) = count_ones(_zext(x))
count_zeros(x::Union{Int8, Int16, Int32, UInt8, UInt16, UInt32, UInt64}) =
    _nbits(x) - count_ones(x)
leading_zeros(x::Union{Int8, Int16, Int32, UInt8, UInt16, UInt32, UInt64}) =
    leading_zeros(_zext(x)) - (64 - _nbits(x))
trailing_zeros(x::Union{Int8, Int16, Int32, UInt8, UInt16, UInt32, UInt64}) =
    min(trailing_zeros(_zext(x)), _nbits(x))
function leading_zeros(x::Int)
    n = 64
    while x != 0
        n -= 1
        x = x >>> 1
    end
    return n
end
function trailing_zeros(x::Int)
    x == 0 && return 64
    n = 0
    while x & 1 == 0
        n += 1
        x = x >>> 1
    end
    return n
end

# ---- Characters (Julia's char.jl, strings/unicode.jl, strings/string.jl) --------------------
# A `Char` holds its code point; the string primitives (`_char_at`, `_char_nth`, `_str_ind`,
# `_char_fn`) read a string's UTF-8 by byte index as Julia's do. A character carries no
# gradient.

"""
    AbstractChar

The supertype of characters; zy's only one is `Char`.
"""
abstract type AbstractChar end

"""
    Char(code::Int)

The Unicode character of code point `code` (`'a' == Char(97)`); `'a'` is its literal.
"""
struct Char <: AbstractChar
    _code::Int
end
codepoint(c::Char) = c._code
_char_int(c::Char) = c._code
isless(a::Char, b::Char) = a._code < b._code
<(a::Char, b::Char) = a._code < b._code
<=(a::Char, b::Char) = a._code <= b._code
>(a::Char, b::Char) = a._code > b._code
>=(a::Char, b::Char) = a._code >= b._code
+(c::Char, n::Integer) = Char(c._code + Int(n))
+(n::Integer, c::Char) = Char(c._code + Int(n))
-(c::Char, n::Integer) = Char(c._code - Int(n))
-(a::Char, b::Char) = a._code - b._code
*(a::Char, b::Char) = string(a, b)
*(a::Char, b::String) = string(a, b)
*(a::String, b::Char) = string(a, b)
^(c::Char, n::Int) = repeat(string(c), n)
repeat(c::Char, n::Int) = repeat(string(c), n)
# Julia's `hash(c, h)` (base/char.jl), over the character's bits.
_jl_hash(c::Char, h::Int) = _hash_64_64(xor((_char_bits(c._code) + 3570811444) << 32, h))
# The bits Julia holds the character of code point `u` in: its UTF-8 bytes, the first in the
# high byte (`reinterpret(UInt32, c)`).
function _char_bits(u::Int)
    u < 128 && return u << 24
    u < 2048 && return ((192 | (u >> 6)) << 24) | ((128 | (u & 63)) << 16)
    if u < 65536
        return ((224 | (u >> 12)) << 24) | ((128 | ((u >> 6) & 63)) << 16) | ((128 | (u & 63)) << 8)
    end
    return ((240 | (u >> 18)) << 24) | ((128 | ((u >> 12) & 63)) << 16) |
           ((128 | ((u >> 6) & 63)) << 8) | (128 | (u & 63))
end
isascii(c::Char) = c._code < 128
isdigit(c::Char) = 48 <= c._code <= 57
isletter(c::Char) = _char_fn(:isletter, c._code)
isspace(c::Char) = _char_fn(:isspace, c._code)
isuppercase(c::Char) = _char_fn(:isuppercase, c._code)
islowercase(c::Char) = _char_fn(:islowercase, c._code)
isnumeric(c::Char) = _char_fn(:isnumeric, c._code)
uppercase(c::Char) = Char(_char_fn(:uppercase, c._code))
lowercase(c::Char) = Char(_char_fn(:lowercase, c._code))
deepcopy(c::Char) = c

# Ranges of characters (`'a':'z'`, `'a':2:'e'`): Julia's `StepRange{Char, Int64}`, its last
# element the one the steps reach.
(:)(start::Char, stop::Char) = start:1:stop
# An empty one keeps the stop given (Julia's `steprange_last_empty` of a non-Integer).
function (:)(start::Char, step::Int, stop::Char)
    step == 0 && throw(ArgumentError("step cannot be zero"))
    d = stop - start
    return StepRange(start, step, d != 0 && (step > 0) != (d > 0) ? stop : start + last(0:step:d))
end
length(r::StepRange{Char, Int}) = _step_range_empty(r) ? 0 : (r.stop - r.start) ÷ r.step + 1
isempty(r::StepRange{Char, Int}) = length(r) == 0
first(r::StepRange{Char, Int}) = r.start
last(r::StepRange{Char, Int}) = r.stop
step(r::StepRange{Char, Int}) = r.step
size(r::StepRange{Char, Int}) = (length(r),)
function getindex(r::StepRange{Char, Int}, i::Int)
    1 <= i <= length(r) || throw(BoundsError(r, i))
    return r.start + (i - 1) * r.step
end
collect(r::StepRange{Char, Int}) = [r.start + k * r.step for k in 0:(length(r) - 1)]
in(c::Char, r::StepRange{Char, Int}) = (c - r.start) in 0:r.step:(r.stop - r.start)

# Strings as sequences of characters: byte indices, as Julia's `String`.
getindex(s::String, i::Int) = Char(_char_at(s, i))
_gen_elem(s::String, k::Int) = Char(_char_nth(s, k))
# A `for` loop over a string is lowered by this (Julia's: a byte index to the next). Its
# optional argument keeps the body lowered with the program, where the loop inlines it.
iterate(s::String, i::Int = 1) = i > ncodeunits(s) ? nothing : (s[i], nextind(s, i))
"""
    iterate(v), iterate(v, i), iterate(r), iterate(r, x)

Julia's iteration protocol called by hand (`it = iterate(v); while it !== nothing ... end`):
`(item, state)` or `nothing` at the end. An array's state is the next (linear) index, an integer
range's the element just given (Julia's `OrdinalRange`'s), a string's the next byte index.
"""
iterate(v::Array, i::Int = 1) = 1 <= i <= length(v) ? (v[i], i + 1) : nothing
# Annotated by a `Union`: `for` loops over a range keep their counted form (`iterate.rs`
# lowers loops by the `iterate` methods annotated with the struct itself).
iterate(r::Union{UnitRange{Int}, StepRange{Int, Int}, StepRange{Char, Int}}) =
    isempty(r) ? nothing : (first(r), first(r))
iterate(r::Union{UnitRange{Int}, StepRange{Int, Int}, StepRange{Char, Int}}, x::Union{Int, Char}) =
    x == last(r) ? nothing : (x + step(r), x + step(r))
first(s::String) = s[1]
last(s::String) = s[thisind(s, ncodeunits(s))]
firstindex(s::String) = 1
lastindex(s::String) = thisind(s, ncodeunits(s))
sizeof(s::String) = ncodeunits(s)
# The bytes a value of a bits type takes, and an array's elements together.
sizeof(::Type{Float64}) = 8
sizeof(::Type{Int64}) = 8
sizeof(::Type{UInt64}) = 8
sizeof(::Type{ComplexF64}) = 16
sizeof(::Type{Float32}) = 4
sizeof(::Type{Int32}) = 4
sizeof(::Type{UInt32}) = 4
sizeof(::Type{Char}) = 4
sizeof(::Type{Int16}) = 2
sizeof(::Type{UInt16}) = 2
sizeof(::Type{Int8}) = 1
sizeof(::Type{UInt8}) = 1
sizeof(::Type{Bool}) = 1
sizeof(x::Union{Float64, Int64, UInt64, Float32, Int32, UInt32, Char, Int16, UInt16, Int8, UInt8, Bool}) =
    sizeof(typeof(x))
sizeof(z::Complex) = 2 * sizeof(real(z))
sizeof(a::Array{<:Union{Float64, Int64, UInt64, ComplexF64, Float32, Int32, UInt32, Char, Int16, UInt16, Int8, UInt8, Bool}}) =
    length(a) * sizeof(eltype(a))
nextind(s::String, i::Int) = _str_ind(:nextind, s, i)
prevind(s::String, i::Int) = _str_ind(:prevind, s, i)
thisind(s::String, i::Int) = _str_ind(:thisind, s, i)
eachindex(s::String) = _str_indices(s)
collect(s::String) = [Char(c) for c in _str_codes(s)]
_string_chars(v::Vector{Char}) = join(v)
reverse(s::String) = join(reverse(collect(s)))
occursin(c::Char, s::String) = occursin(string(c), s)
startswith(s::String, c::Char) = startswith(s, string(c))
endswith(s::String, c::Char) = endswith(s, string(c))
function findfirst(c::Char, s::String)
    i = _char_find(s, c._code, true)
    return NothingOrInt(i > 0, i)
end
function findlast(c::Char, s::String)
    i = _char_find(s, c._code, false)
    return NothingOrInt(i > 0, i)
end
"""
    findnext(c, s, i), findprev(c, s, i), findnext(f, s, i), findfirst(f, s), findall(c, s)

The byte index of the next (previous) character of `s` from byte index `i` on (back from it)
that is `c` (for which `f` holds), or `nothing`; `findall` all of them in order. `i` is
`1:ncodeunits(s) + 1` (`0:` back), else Julia's `BoundsError`, and starts a character
(`StringIndexError`); from just past the end each finds `nothing`.
"""
function findnext(c::Char, s::String, i::Int)
    _search_from(s, i) || return NothingOrInt(false, 0)
    k = _str_find(s, string(c), i, true)
    return NothingOrInt(k > 0, k)
end
function findprev(c::Char, s::String, i::Int)
    n = ncodeunits(s)
    0 <= i <= n + 1 || throw(BoundsError(s, i))
    (i == 0 || i == n + 1) && return NothingOrInt(false, 0)
    k = _str_find(s, string(c), i, false)
    return NothingOrInt(k > 0, k)
end
function findnext(f, s::String, i::Int)
    _search_from(s, i) || return NothingOrInt(false, 0)
    while i <= ncodeunits(s)
        f(s[i]) && return NothingOrInt(true, i)
        i = nextind(s, i)
    end
    return NothingOrInt(false, 0)
end
function findprev(f, s::String, i::Int)
    n = ncodeunits(s)
    0 <= i <= n + 1 || throw(BoundsError(s, i))
    i == n + 1 && return NothingOrInt(false, 0)
    i == 0 || _valid_index(s, i)
    while i >= 1
        f(s[i]) && return NothingOrInt(true, i)
        i = prevind(s, i)
    end
    return NothingOrInt(false, 0)
end
findfirst(f, s::String) = findnext(f, s, 1)
findlast(f, s::String) = findprev(f, s, lastindex(s))
function findall(f, s::String)
    I = Int[]
    i = 1
    while i <= ncodeunits(s)
        f(s[i]) && push!(I, i)
        i = nextind(s, i)
    end
    return I
end
findall(c::Char, s::String) = findall(==(c), s)
# May a forward search start at byte index `i`? Not past the end (`false`); Julia's errors
# outside `1:ncodeunits(s) + 1` and inside a character.
function _search_from(s::String, i::Int)
    z = ncodeunits(s) + 1
    1 <= i <= z || throw(BoundsError(s, i))
    i == z && return false
    _valid_index(s, i)
    return true
end
# Julia's `summary` of a string, as a `BoundsError` names it.
summary(s::String) = isempty(s) ? "empty String" : string(ncodeunits(s), "-codeunit String")

"""
    findfirst(t, s), findlast(t, s), findnext(t, s, i), findprev(t, s, i), findall(t, s)

Where the string `t` occurs in `s`: the byte range `a:b` from its start to the start of its
last character (`findfirst("lo", "hello") == 4:5`), the first from byte index `i` on (the
last ending by the character at `i`), or `nothing`; an empty `t` is found where the search
starts (`i:i-1`). `findall` gives every occurrence as a `Vector{UnitRange{Int64}}`, each
search after the last one found (from its start with `overlap = true`).
"""
findfirst(t::String, s::String) = findnext(t, s, 1)
findlast(t::String, s::String) = findprev(t, s, lastindex(s))
findnext(t::String, s::String, i::Int) = _found(t, _search_index(s, t, i))
findprev(t::String, s::String, i::Int) = _found(t, _rsearch_index(s, t, i))
function findall(t::String, s::String; overlap::Bool = false)
    found = UnitRange{Int}[]
    i, e = 1, lastindex(s)
    while true
        k = _search_index(s, t, i)
        k == 0 && !isempty(t) && break
        r = _found_range(t, k)
        push!(found, r)
        j = overlap || isempty(r) ? first(r) : last(r)
        j > e && break
        i = nextind(s, j)
    end
    return found
end
"""
    count(t, s; overlap = false)

The number of occurrences of the string `t` in `s`, those overlapping an earlier one counted
only with `overlap = true` (`count("an", "banana") == 2`).
"""
count(t::String, s::String; overlap::Bool = false) = length(findall(t, s; overlap = overlap))
# The range of `t` found at byte index `k`, `nothing` for none (`k == 0`).
_found(t::String, k::Int) = k == 0 && !isempty(t) ? nothing : _found_range(t, k)
_found_range(t::String, k::Int) = k:(k + lastindex(t) - 1)
# Where `t` next starts in `s` from byte index `i` on (`i` for an empty `t`), 0 for nowhere
# (Julia's `_searchindex`: a one-character `t` by `findnext`, another by its bytes).
function _search_index(s::String, t::String, i::Int)
    lastindex(t) == 1 && return something(findnext(t[1], s, i), 0)
    n = ncodeunits(s)
    1 <= i <= n + 1 || _byte_bounds(s, i)
    return isempty(t) ? i : _str_find(s, t, i, true)
end
# Where the last `t` that ends by the character at byte index `i` starts, 0 for nowhere
# (Julia's `_rsearchindex`).
function _rsearch_index(s::String, t::String, i::Int)
    lastindex(t) == 1 && return something(findprev(t[1], s, i), 0)
    n, m = ncodeunits(s), ncodeunits(t)
    if m == 0
        return i > n ? 0 : i == 0 ? 1 : i
    end
    k = i <= n ? nextind(s, i) - 1 : i
    k < 0 && _byte_bounds(s, k)
    start = min(k - m + 1, n - m + 1)
    return start < 1 ? 0 : _str_find(s, t, start, false)
end
# Julia searches a string for a string in its bytes, and names them in its `BoundsError`.
_byte_bounds(s::String, i::Int) =
    error(:BoundsError, "attempt to access $(ncodeunits(s))-element Vector{UInt8} at index [$i]")
"""
    strip(s, c), lstrip(s, c), rstrip(s, c), strip(f, s), lstrip(f, s), rstrip(f, s)

`s` without the characters `c` (or those for which `f` is true) at both ends, or at one.
"""
strip(s::String, c::Char) = _strip(==(c), s, true, true)
lstrip(s::String, c::Char) = _strip(==(c), s, true, false)
rstrip(s::String, c::Char) = _strip(==(c), s, false, true)
strip(f::Function, s::String) = _strip(f, s, true, true)
lstrip(f::Function, s::String) = _strip(f, s, true, false)
rstrip(f::Function, s::String) = _strip(f, s, false, true)
function _strip(f, s::String, left::Bool, right::Bool)
    cs = collect(s)
    i, j = 1, length(cs)
    while left && i <= j && f(cs[i])
        i += 1
    end
    while right && j >= i && f(cs[j])
        j -= 1
    end
    return SubString(String(cs[i:j]))
end
"""
    titlecase(s)

`s` with the first letter of each word (after anything that is not a letter) upper case and
the other letters lower case.
"""
function titlecase(s::String)
    out = Char[]
    start = true
    for c in s
        push!(out, !isletter(c) ? c : start ? uppercase(c) : lowercase(c))
        start = !isletter(c)
    end
    return String(out)
end
"""
    uppercasefirst(s), lowercasefirst(s)

`s` with its first character upper (lower) case, the rest as it is.
"""
uppercasefirst(s::AbstractString) = isempty(s) ? "" : string(uppercase(s[1]), SubString(s, nextind(s, 1)))
lowercasefirst(s::AbstractString) = isempty(s) ? "" : string(lowercase(s[1]), SubString(s, nextind(s, 1)))
contains(s::String, pat) = occursin(pat, s)
cmp(a::String, b::String) = a < b ? -1 : a == b ? 0 : 1
"""
    split(s, d; limit = 0, keepempty = true)

The pieces of `s` between the occurrences of `d`: at most `limit` of them (the last holding
the rest of `s`) when `limit > 0`, the empty ones left out unless `keepempty`.
"""
function split(s::String, d::Union{String, Char}; limit::Int = 0, keepempty::Bool = true)
    pieces = _split(s, string(d))
    out = SubString{String}[]
    k = 0
    while k < length(pieces) && (limit <= 0 || length(out) < limit - 1)
        k += 1
        if keepempty || !isempty(pieces[k])
            push!(out, pieces[k])
        end
    end
    if k < length(pieces)
        rest = join(pieces[k+1:end], string(d))
        if keepempty || !isempty(rest)
            push!(out, SubString(rest))
        end
    end
    return out
end
"""
    rsplit(s, d; limit = 0, keepempty = true)

`split` from the end of `s`: with `limit`, the first piece holds the rest of `s`.
"""
function rsplit(s::String, d::Union{String, Char}; limit::Int = 0, keepempty::Bool = true)
    t = string(d)
    out = SubString{String}[]
    n = lastindex(s)
    j = _rsearch_index(s, t, n)
    k = j + lastindex(t) - 1
    while j > 0 && k > 0 && length(out) != limit - 1
        (keepempty || k < n) && pushfirst!(out, SubString(s, nextind(s, k), n))
        n = prevind(s, j)
        j = _rsearch_index(s, t, n)
        k = j + lastindex(t) - 1
    end
    (keepempty || n > 0) && pushfirst!(out, SubString(s, 1, n))
    return out
end
# Of a `SubString` (a line of `split(text, '\n')`): the pieces of its text, as Julia's
# `split(::AbstractString, ...)`.
split(s::SubString, d::Union{String, Char}; limit::Int = 0, keepempty::Bool = true) =
    split(String(s), d; limit = limit, keepempty = keepempty)
rsplit(s::SubString, d::Union{String, Char}; limit::Int = 0, keepempty::Bool = true) =
    rsplit(String(s), d; limit = limit, keepempty = keepempty)
"""
    eachsplit(s, d; limit = 0, keepempty = true), eachsplit(s)

Julia's `SplitIterator`: the pieces `split` gives (without `d`, at whitespace, the empty ones
left out), read in order by a `for` loop, a generator or `collect`; it has no `length`.
"""
struct SplitIterator
    pieces::Vector{SubString{String}}
end
eachsplit(s::Union{String, SubString}, d::Union{String, Char}; limit::Int = 0, keepempty::Bool = true) =
    SplitIterator(split(s, d; limit = limit, keepempty = keepempty))
eachsplit(s::Union{String, SubString}) = SplitIterator(split(s))
iterate(it::SplitIterator, i::Int = 1) = i > length(it.pieces) ? nothing : (it.pieces[i], i + 1)
IteratorSize(::Type{SplitIterator}) = SizeUnknown()
eltype(::Type{SplitIterator}) = SubString{String}
lpad(x, n::Int, c::Char) = lpad(x, n, string(c))
rpad(x, n::Int, c::Char) = rpad(x, n, string(c))
# A string's characters, read once in order (Julia's `iterate`; reading the `k`th afresh for
# each `k` would take quadratic time): a generator, filter or `enumerate` over a string
# draws from the vector of its characters, and so do the reductions with a function.
Generator(f, s::String) = Generator(f, collect(s))
Filter(p, s::String) = Filter(p, collect(s))
enumerate(s::String) = Enumerate(collect(s))
count(f, s::String) = count(f, collect(s))
# Julia's `filter(f, s::AbstractString)`: the `String` of the characters `f` keeps.
filter(f, s::String) = String(filter(f, collect(s)))
filter(f, s::SubString) = filter(f, String(s))
sum(f, s::String) = sum(f, collect(s))
any(f, s::String) = any(f, collect(s))
all(f, s::String) = all(f, collect(s))
"""
    map(f, s::String)

The string of `f`'s characters for the characters of `s` (`map(uppercase, "ab") == "AB"`);
Julia's `ArgumentError` if `f` returns something else.
"""
map(f, s::String) = _chars_string(map(f, collect(s)))
_chars_string(v::Vector{Char}) = String(v)
_chars_string(v) = throw(ArgumentError("map(f, s::AbstractString) requires f to return AbstractChar; try map(f, collect(s)) or a comprehension instead"))

"""
    SubString(s, i, j = lastindex(s)), SubString(s, r), view(s, r)

The text of `s` from byte index `i` to `j` (`r`) as a `SubString{String}`: Julia's view into
`s`, zy's a string of that text (a string cannot be written, so nothing tells them apart but
the type). Empty for `j < i`; Julia's `BoundsError` and `StringIndexError` as `s[i:j]`.
Indices into a `SubString` count from its own start, as Julia's.
"""
SubString(s::String, i::Int, j::Int) = _substring(s, i, j)
SubString(s::String, i::Int) = SubString(s, i, lastindex(s))
SubString(s::String, r::UnitRange{Int}) = SubString(s, r.start, r.stop)
SubString(s::String) = SubString(s, 1, lastindex(s))
# Of a `SubString` (and so its slices): Julia's `BoundsError` names it (`checkbounds(s, i:j)`).
function SubString(s::SubString, i::Int, j::Int)
    if i <= j && !(1 <= i && j <= ncodeunits(s))
        error(:BoundsError, "attempt to access $(summary(s)) at index [$i:$j]")
    end
    return _substring(s, i, j)
end
function getindex(s::SubString, i::Int)
    if !(1 <= i <= ncodeunits(s))
        error(:BoundsError, "attempt to access $(summary(s)) at index [$i]")
    end
    return Char(_char_at(s, i))
end
view(s::String, r::UnitRange{Int}) = SubString(s, r)
maybeview(s::String, r::UnitRange{Int}) = view(s, r)
# Julia's `convert(::Type{String}, s::AbstractString) = String(s)` and `convert(::Type{SubString{S}},
# s::AbstractString) = SubString(convert(S, s))`: what a `Dict{String}` or a `Vector{String}`
# stores of a `SubString`, and a `Vector{SubString{String}}` of a `String`.
convert(T, s::String) = s isa T ? s : T <: AbstractString ? _convert_string(T, s) : _no_convert(T, s)
_convert_string(::Type{String}, s) = String(s)
_convert_string(T, s) = SubString(String(s))
# Slices by byte indices: of a `String` a `String`, of a `SubString` a `SubString` (Julia's
# `getindex(s::AbstractString, r)`); so `first(s, n)` and `last(s, n)` keep the type.
getindex(s::String, r::UnitRange{Int}) = _str_slice(s, r.start, r.stop)
getindex(s::SubString, r::UnitRange{Int}) = SubString(s, r)
summary(s::SubString) = string(ncodeunits(s), "-codeunit SubString{String}")
"""
    nextind(s, i, n), prevind(s, i, n)

The index `n` characters after (before) byte index `i`; past the end (start) each step is
one (`nextind("ab", 0, 5) == 5`).
"""
function nextind(s::String, i::Int, n::Int)
    n < 0 && throw(ArgumentError(string("n cannot be negative: ", n)))
    n == 0 && return _valid_index(s, i)
    z = ncodeunits(s)
    while n > 0 && i < z
        i = nextind(s, i)
        n -= 1
    end
    return i + n
end
function prevind(s::String, i::Int, n::Int)
    n < 0 && throw(ArgumentError(string("n cannot be negative: ", n)))
    n == 0 && return _valid_index(s, i)
    while n > 0 && i > 1
        i = prevind(s, i)
        n -= 1
    end
    return i - n
end
# `i` if a character starts there (or it is just outside `s`), else Julia's `StringIndexError`.
function _valid_index(s::String, i::Int)
    if thisind(s, i) != i
        s[i]
    end
    return i
end
"""
    first(s, n), last(s, n)

The first (last) `n` characters of `s`, all of them if it has fewer.
"""
first(s::String, n::Int) = s[1:min(ncodeunits(s), nextind(s, 0, n))]
last(s::String, n::Int) = s[max(1, prevind(s, ncodeunits(s) + 1, n)):ncodeunits(s)]
"""
    chop(s; head = 0, tail = 1)

`s` without its first `head` and last `tail` characters.
"""
function chop(s::String; head::Int = 0, tail::Int = 1)
    isempty(s) && return SubString(s)
    return SubString(s, nextind(s, 1, head), prevind(s, lastindex(s), tail))
end
"""
    chomp(s)

`s` without one trailing newline (`"\n"` or `"\r\n"`).
"""
chomp(s::String) = endswith(s, "\r\n") ? SubString(s, 1, ncodeunits(s) - 2) :
                   endswith(s, "\n") ? SubString(s, 1, ncodeunits(s) - 1) : SubString(s)

# ---- Ranges of Float64s ----------------------------------------------------------------------

"""
    StepRangeLen{T}

Julia's range of Float64s: `a:s:b`, `range(a, b; length = n)`, `range(a; step, length)`. Its
elements are computed from a reference element and a step kept to twice a Float64's
precision (Julia's `TwicePrecision`, built by the primitive `float_range` as Julia builds
it), so that `0.1:0.1:0.3` has three elements and ends exactly at `0.3`. An element's
gradient is that of `start + (i - 1) * step` (`start0`, `step0`: the same values, without
gradient).
"""
struct StepRangeLen{T}
    start::T
    step::T
    start0::T
    step0::T
    ref_hi::T
    ref_lo::T
    step_hi::T
    step_lo::T
    len::Int
    offset::Int
    total::T
end

# The range `float_range` describes for `form` (1: `a:b:c`, 2: `range(a; step = b, length
# = c)`, 3: `range(a, b; length = c)`, whose step is `(b - a) / (c - 1)`).
function _float_range(form::Int, a::Float64, b::Float64, c)
    t = float_range(form, a, b, c)
    if form == 3
        d = max(t[5] - 1, 1)
        return StepRangeLen(a, (b - a) / d, t[8], (t[9] - t[8]) / d, t[1], t[2], t[3], t[4],
                            t[5], t[6], t[7])
    end
    return StepRangeLen(a, b, t[8], t[9], t[1], t[2], t[3], t[4], t[5], t[6], t[7])
end

(:)(start::Float64, step::Float64, stop::Float64) = _float_range(1, start, step, stop)
(:)(start::Real, step::Real, stop::Real) = float(start):float(step):float(stop)
(:)(start::Float64, stop::Float64) = _float_range(1, start, 1.0, stop)
(:)(start::Real, stop::Real) = float(start):float(stop)

# `float(r)` of an Int range: the Float64 range of its elements (`float(1:3) == 1.0:1.0:3.0`).
float(r::UnitRange{Int}) = float(r.start):float(last(r))
float(r::StepRange{Int, Int}) = float(r.start):float(r.step):float(last(r))
float(r::Union{StepRangeLen, LinRange}) = r

# A Float64 or character range written in a `for` header (`for t in 0.0:0.1:1.0`,
# `for c in 'a':'z'`): inference builds it once before the loop and the loop counts through its
# elements (the Int case counts `a + k * s`).
_loop_range(a, s, b) = a:s:b
_loop_length(r::Union{StepRangeLen, StepRange{Char, Int}}) = length(r)
_loop_elem(r::Union{StepRangeLen, StepRange{Char, Int}}, k::Int) = r[k + 1]
# An Int range inference builds from a bound it knows only at run time (`for i in 1:j`, `j`
# what `findfirst` returned): its elements in order, as Julia's.
_loop_length(r::Union{UnitRange{Int}, StepRange{Int, Int}}) = length(r)
_loop_elem(r::Union{UnitRange{Int}, StepRange{Int, Int}}, k::Int) = r[k + 1]
# `for J in I:K` of two `CartesianIndex`es: the loop runs through their `CartesianIndices`.
_loop_range(a::CartesianIndex, s::Int, b::CartesianIndex) = a:b
_loop_length(C::CartesianIndices) = length(C)
_loop_elem(C::CartesianIndices, k::Int) = C[k + 1]

"""
    range(start, stop, length), range(start, stop; length, step), range(start; stop, length, step),
    range(; start, stop, length, step)

The range from `start` given two of `stop`, `length` and `step` (or `stop` alone, with step
1), or without `start` from `stop` back given `length` (and `step`), as Julia builds it:
Float64 ends (or Int ends with a `length`) give a `StepRangeLen`, Int ends and steps an Int
range.
"""
range(start::Real, stop::Real, length::Integer) = _range(start, nothing, stop, length)
range(start::Real, stop::Real; length = nothing, step = nothing) = _range(start, step, stop, length)
range(start::Real; stop = nothing, length = nothing, step = nothing) = _range(start, step, stop, length)
range(; start = nothing, stop = nothing, length = nothing, step = nothing) = _range(start, step, stop, length)

_range(a::Real, ::Nothing, b::Real, len::Integer) = _float_range(3, float(a), float(b), len)
_range(a::Real, st::Real, ::Nothing, len::Integer) = _float_range(2, float(a), float(st), len)
_range(a::Int, st::Int, ::Nothing, len::Int) = a:st:(a + (len - 1) * st)
_range(a::Real, ::Nothing, ::Nothing, len::Integer) = _range(a, one(a), nothing, len)
_range(a::Int, ::Nothing, ::Nothing, len::Int) = a:(a + len - 1)
_range(a::Real, st::Real, b::Real, ::Nothing) = a:st:b
_range(a::Real, ::Nothing, b::Real, ::Nothing) = a:b
# Without a start (Julia's `range_stop_length`, `range_step_stop_length`): an Int range of Int
# ends, else Julia's `StepRangeLen` of Float64s computed in plain Float64 arithmetic.
_range(::Nothing, ::Nothing, b::Int, len::Int) = (b - (len - 1)):b
_range(::Nothing, st::Int, b::Int, len::Int) = (b - st * (len - 1)):st:b
_range(::Nothing, ::Nothing, b::Real, len::Int) = _plain_srl(float(b - (len - 1)), 1.0, len)
_range(::Nothing, st::Real, b::Real, len::Int) = _plain_srl(float(b - st * (len - 1)), float(st), len)
_range(::Nothing, ::Nothing, b::Real, ::Nothing) = 1.0:float(b)
_range(::Nothing, ::Nothing, b::Int, ::Nothing) = OneTo(b)
_range(::Nothing, ::Nothing, ::Nothing, len::Int) = OneTo(len)
# Any other combination: Julia's `range_error`.
function _range(start, step, stop, length)
    hint = if start !== nothing && step !== nothing && stop !== nothing && length !== nothing
        "Try specifying only three arguments"
    elseif stop === nothing && length === nothing
        "At least one of `length` or `stop` must be specified."
    elseif step === nothing && length === nothing
        "At least one of `length` or `step` must be specified."
    elseif start === nothing && stop === nothing
        "At least one of `start` or `stop` must be specified."
    else
        "Try specifying more arguments."
    end
    throw(ArgumentError("Cannot construct range from arguments:\nstart = $start\nstep = $step\nstop = $stop\nlength = $length\n$hint\n"))
end

length(r::StepRangeLen) = r.len
size(r::StepRangeLen) = (r.len,)
first(r::StepRangeLen) = _srl_at(r, 1)
last(r::StepRangeLen) = _srl_at(r, r.len)
step(r::StepRangeLen) = _with_gradient(r.step_hi + r.step_lo, r.step0, r.step)

function getindex(r::StepRangeLen, i::Int)
    if !(1 <= i <= r.len)
        throw(BoundsError(r, i))
    end
    return _srl_at(r, i)
end

# Element `i` as Julia's `unsafe_getindex` computes it from the twice-precision parts.
function _srl_at(r::StepRangeLen, i::Int)
    u = i - r.offset
    x_hi, x_lo = _add12(r.ref_hi, u * r.step_hi)
    exact = x_hi + (x_lo + (u * r.step_lo + r.ref_lo))
    return _with_gradient(exact, r.start0 + (i - 1) * r.step0, r.start + (i - 1) * r.step)
end

# `exact`, with the gradient of `f` (`f0` is `f`'s value computed without gradient): the
# difference `f0 - f` is zero and carries `-f`'s gradient.
_with_gradient(exact, f0, f) = exact - (f0 - f)

# Julia's `add12`: `x + y` and its rounding error.
function _add12(x, y)
    big = abs(y) > abs(x) ? y : x
    little = abs(y) > abs(x) ? x : y
    h = big + little
    return h, (big - h) + little
end

# Julia's closed-form sum; the gradient of `n start + step n (n - 1) / 2`.
function sum(r::StepRangeLen)
    pairs_of = r.len * (r.len - 1) ÷ 2
    return _with_gradient(r.total, r.len * r.start0 + r.step0 * pairs_of,
                          r.len * r.start + r.step * pairs_of)
end

sum(f, r::StepRangeLen) = sum(f, collect(r))
collect(r::StepRangeLen) = _collect(zeros(length(r)), r)
broadcast(f, r::StepRangeLen) = broadcast(f, collect(r))
map(f, r::StepRangeLen) = map(f, collect(r))

# Arithmetic on a Float64 range that Julia answers with a range (`base/broadcast.jl`'s
# `broadcasted(::DefaultArrayStyle{1}, ...)` methods, `base/twiceprecision.jl`): the primitive
# `float_range_op` computes the new twice-precision parts as Julia does; the gradient formula
# `start + (i - 1) * step` follows the operation (`t[8]` is the operand without gradient).
_parts(r::StepRangeLen) = (r.ref_hi, r.ref_lo, r.step_hi, r.step_lo, r.len, r.offset)
_srl_of(t, start, step, start0, step0) =
    StepRangeLen(start, step, start0, step0, t[1], t[2], t[3], t[4], t[5], t[6], t[7])

function _srl_scaled(op::Int, x::Real, r::StepRangeLen)
    t = float_range_op(op, _parts(r), x)
    return _srl_of(t, x * r.start, x * r.step, t[8] * r.start0, t[8] * r.step0)
end
function _srl_divided(op::Int, r::StepRangeLen, x::Real)
    t = float_range_op(op, _parts(r), x)
    return _srl_of(t, r.start / x, r.step / x, r.start0 / t[8], r.step0 / t[8])
end
function _srl_shifted(r::StepRangeLen, x::Real)
    t = float_range_op(5, _parts(r), x)
    return _srl_of(t, r.start + x, r.step, r.start0 + t[8], r.step0)
end
function _srl_subtracted_from(x::Real, r::StepRangeLen)
    t = float_range_op(6, _parts(r), x)
    return _srl_of(t, x - r.start, -r.step, t[8] - r.start0, -r.step0)
end

broadcast(::typeof(*), x::Real, r::StepRangeLen) = _srl_scaled(1, x, r)
broadcast(::typeof(*), r::StepRangeLen, x::Real) = _srl_scaled(1, x, r)
broadcast(::typeof(/), r::StepRangeLen, x::Real) = _srl_divided(3, r, x)
broadcast(::typeof(+), r::StepRangeLen, x::Real) = _srl_shifted(r, x)
broadcast(::typeof(+), x::Real, r::StepRangeLen) = _srl_shifted(r, x)
broadcast(::typeof(-), r::StepRangeLen, x::Real) = _srl_shifted(r, -x)
broadcast(::typeof(-), x::Real, r::StepRangeLen) = _srl_subtracted_from(x, r)
broadcast(::typeof(-), r::StepRangeLen) = -r
broadcast(::typeof(+), r1::StepRangeLen, r2::StepRangeLen) = r1 + r2
broadcast(::typeof(-), r1::StepRangeLen, r2::StepRangeLen) = r1 - r2
# Without the dot, `x * r` and `r / x` truncate the new step to `nbitslen(r)` bits.
*(x::Real, r::StepRangeLen) = _srl_scaled(2, x, r)
*(r::StepRangeLen, x::Real) = _srl_scaled(2, x, r)
/(r::StepRangeLen, x::Real) = _srl_divided(4, r, x)
function -(r::StepRangeLen)
    t = float_range_op(7, _parts(r), 0)
    return _srl_of(t, -r.start, -r.step, -r.start0, -r.step0)
end
function +(r1::StepRangeLen, r2::StepRangeLen)
    t = float_range_op(10, _parts(r1), _parts(r2))
    return _srl_of(t, r1.start + r2.start, r1.step + r2.step, r1.start0 + r2.start0,
                   r1.step0 + r2.step0)
end
-(r1::StepRangeLen, r2::StepRangeLen) = r1 + (-r2)

# `reverse(r)`: the same elements from the last, a range; `r[s]` by an Int range: the range
# of the elements selected (its step truncated as Julia's).
function reverse(r::StepRangeLen)
    t = float_range_op(8, _parts(r), 0)
    return _srl_of(t, r.start + (r.len - 1) * r.step, -r.step, r.start0 + (r.len - 1) * r.step0,
                   -r.step0)
end
function getindex(r::StepRangeLen, s::Union{UnitRange{Int}, StepRange{Int, Int}})
    if !isempty(s) && !(1 <= first(s) <= length(r) && 1 <= last(s) <= length(r))
        throw(BoundsError(r, s))
    end
    t = float_range_op(9, _parts(r), (first(s), step(s), length(s)))
    return _srl_of(t, r.start + (first(s) - 1) * r.step, r.step * step(s),
                   r.start0 + (first(s) - 1) * r.step0, r.step0 * step(s))
end
getindex(r::StepRangeLen, ::Colon) = r

# A range equals an array of the same elements (Julia's `==` of `AbstractArray`s).
==(r::UnitRange{Int}, v::Array) = collect(r) == v
==(r::StepRange{Int, Int}, v::Array) = collect(r) == v
==(r::LinRange, v::Array) = collect(r) == v
==(r::StepRangeLen, v::Array) = collect(r) == v
==(v::Array, r::Union{UnitRange{Int}, StepRange{Int, Int}, LinRange, StepRangeLen}) = r == v

# An Int range times, over, plus or minus a number: Julia's range of the new first element
# and step, `range(a; step, length)` (a Float64 one rationalised: `0.1 .* (0:3)` ends at
# `0.3`); with an Int, an Int range (`n .* r` Julia's `StepRangeLen` of Ints, below).
broadcast(::typeof(*), x::Float64, r::UnitRange{Int}) = range(x * first(r), step = x * step(r), length = length(r))
broadcast(::typeof(*), x::Float64, r::StepRange{Int, Int}) = range(x * first(r), step = x * step(r), length = length(r))
broadcast(::typeof(*), r::UnitRange{Int}, x::Float64) = range(first(r) * x, step = step(r) * x, length = length(r))
broadcast(::typeof(*), r::StepRange{Int, Int}, x::Float64) = range(first(r) * x, step = step(r) * x, length = length(r))
*(r::UnitRange{Int}, x::Float64) = broadcast(*, r, x)
*(r::StepRange{Int, Int}, x::Float64) = broadcast(*, r, x)
broadcast(::typeof(/), r::UnitRange{Int}, x::Real) = range(first(r) / x, step = step(r) / x, length = length(r))
broadcast(::typeof(/), r::StepRange{Int, Int}, x::Real) = range(first(r) / x, step = step(r) / x, length = length(r))
/(r::UnitRange{Int}, x::Real) = broadcast(/, r, x)
/(r::StepRange{Int, Int}, x::Real) = broadcast(/, r, x)
broadcast(::typeof(\), x::Real, r::UnitRange{Int}) = range(x \ first(r), step = x \ step(r), length = length(r))
broadcast(::typeof(\), x::Real, r::StepRange{Int, Int}) = range(x \ first(r), step = x \ step(r), length = length(r))
broadcast(::typeof(+), r::UnitRange{Int}, x::Int) = (first(r) + x):(last(r) + x)
broadcast(::typeof(+), x::Int, r::UnitRange{Int}) = (x + first(r)):(x + last(r))
broadcast(::typeof(+), r::StepRange{Int, Int}, x::Int) = StepRange(first(r) + x, step(r), last(r) + x)
broadcast(::typeof(+), x::Int, r::StepRange{Int, Int}) = StepRange(x + first(r), step(r), x + last(r))
broadcast(::typeof(+), r::UnitRange{Int}, x::Float64) = range(first(r) + x, step = step(r), length = length(r))
broadcast(::typeof(+), r::StepRange{Int, Int}, x::Float64) = range(first(r) + x, step = step(r), length = length(r))
broadcast(::typeof(+), x::Float64, r::UnitRange{Int}) = range(x + first(r), step = step(r), length = length(r))
broadcast(::typeof(+), x::Float64, r::StepRange{Int, Int}) = range(x + first(r), step = step(r), length = length(r))
broadcast(::typeof(-), r::UnitRange{Int}, x::Int) = (first(r) - x):(last(r) - x)
broadcast(::typeof(-), r::StepRange{Int, Int}, x::Int) = StepRange(first(r) - x, step(r), last(r) - x)
broadcast(::typeof(-), r::UnitRange{Int}, x::Float64) = range(first(r) - x, step = step(r), length = length(r))
broadcast(::typeof(-), r::StepRange{Int, Int}, x::Float64) = range(first(r) - x, step = step(r), length = length(r))
broadcast(::typeof(-), x::Int, r::UnitRange{Int}) = StepRange(x - first(r), -step(r), x - last(r))
broadcast(::typeof(-), x::Int, r::StepRange{Int, Int}) = StepRange(x - first(r), -step(r), x - last(r))
broadcast(::typeof(-), x::Float64, r::UnitRange{Int}) = range(x - first(r), step = -step(r), length = length(r))
broadcast(::typeof(-), x::Float64, r::StepRange{Int, Int}) = range(x - first(r), step = -step(r), length = length(r))
broadcast(::typeof(-), r::UnitRange{Int}) = -r
broadcast(::typeof(-), r::StepRange{Int, Int}) = -r

# A LinRange: the LinRange of the new ends (Julia's).
broadcast(::typeof(*), x::Real, r::LinRange) = LinRange(x * r.start, x * r.stop, r.len)
broadcast(::typeof(*), r::LinRange, x::Real) = LinRange(r.start * x, r.stop * x, r.len)
broadcast(::typeof(/), r::LinRange, x::Real) = LinRange(r.start / x, r.stop / x, r.len)
broadcast(::typeof(\), x::Real, r::LinRange) = LinRange(x \ r.start, x \ r.stop, r.len)
broadcast(::typeof(+), r::LinRange, x::Real) = LinRange(r.start + x, r.stop + x, r.len)
broadcast(::typeof(+), x::Real, r::LinRange) = LinRange(x + r.start, x + r.stop, r.len)
broadcast(::typeof(-), r::LinRange, x::Real) = LinRange(r.start - x, r.stop - x, r.len)
broadcast(::typeof(-), x::Real, r::LinRange) = LinRange(x - r.start, x - r.stop, r.len)
broadcast(::typeof(-), r::LinRange) = -r
-(r::LinRange) = LinRange(-r.start, -r.stop, r.len)
*(x::Real, r::LinRange) = broadcast(*, x, r)
*(r::LinRange, x::Real) = broadcast(*, r, x)
/(r::LinRange, x::Real) = broadcast(/, r, x)
reverse(r::LinRange) = LinRange(r.stop, r.start, r.len)
# Two LinRanges of one length: the LinRange of the sums (differences) of their ends.
+(r1::LinRange, r2::LinRange) = LinRange(r1.start + r2.start, r1.stop + r2.stop, _same_len(r1, r2))
-(r1::LinRange, r2::LinRange) = LinRange(r1.start - r2.start, r1.stop - r2.stop, _same_len(r1, r2))
broadcast(::typeof(+), r1::LinRange, r2::LinRange) = r1 + r2
broadcast(::typeof(-), r1::LinRange, r2::LinRange) = r1 - r2
function _same_len(r1, r2)
    length(r1) == length(r2) || throw(DimensionMismatch(
        "argument dimensions must match: length of r1 is $(length(r1)), length of r2 is $(length(r2))"))
    return length(r1)
end
function getindex(r::LinRange, s::Union{UnitRange{Int}, StepRange{Int, Int}})
    if !isempty(s) && !(1 <= first(s) <= length(r) && 1 <= last(s) <= length(r))
        throw(BoundsError(r, s))
    end
    return LinRange(_lin_at(r, first(s)), _lin_at(r, last(s)), length(s))
end
getindex(r::LinRange, ::Colon) = r

# ---- Base.OneTo -------------------------------------------------------------------------------

"""
    Base.OneTo(n)

The range `1:n` whose first element is 1 by its type (Julia's `Base.OneTo{Int64}`, shown
`Base.OneTo(n)`), as `range(; length = n)` gives it; a negative `n` gives the empty
`Base.OneTo(0)`. It behaves as `1:n` (`_unit_range`), and its arithmetic gives Julia's ranges.
"""
struct OneTo{T}
    stop::T
    OneTo(n::Int) = new{Int}(max(0, n))
end
_unit_range(r::OneTo) = 1:r.stop
# Element `k` of a loop or generator over it (`for i in eachindex(x)`): `k` itself, so the loop
# is a plain counted one.
_gen_elem(r::OneTo, k::Int) = k

length(r::OneTo) = r.stop
size(r::OneTo) = (r.stop,)
first(r::OneTo) = 1
last(r::OneTo) = r.stop
step(r::OneTo) = 1
isempty(r::OneTo) = r.stop == 0
eltype(r::OneTo{T}) where {T} = T
ndims(r::OneTo) = 1
function getindex(r::OneTo, i::Int)
    1 <= i <= r.stop || throw(BoundsError(r, i))
    return i
end
function getindex(r::OneTo, s::Union{UnitRange{Int}, StepRange{Int, Int}})
    isempty(s) || (1 <= first(s) <= r.stop && 1 <= last(s) <= r.stop) || throw(BoundsError(r, s))
    return _unit_range(r)[s]
end
getindex(r::OneTo, s::OneTo) = s.stop <= r.stop ? s : throw(BoundsError(r, s))
getindex(r::OneTo, ::Colon) = r
getindex(r::OneTo, v::Vector{Int}) = [r[i] for i in v]
collect(r::OneTo) = collect(_unit_range(r))
sum(r::OneTo) = sum(_unit_range(r))
in(x::Real, r::OneTo) = x in _unit_range(r)
maximum(r::OneTo) = maximum(_unit_range(r))
minimum(r::OneTo) = minimum(_unit_range(r))
reverse(r::OneTo) = reverse(_unit_range(r))
-(r::OneTo) = -_unit_range(r)
summary(r::OneTo) = "$(r.stop)-element Base.OneTo{Int64}"
broadcast(f, r::OneTo) = broadcast(f, collect(r))
broadcast(f, r::OneTo, y) = broadcast(f, _unit_range(r), y)
broadcast(f, x, r::OneTo) = broadcast(f, x, _unit_range(r))
broadcast(f, r::OneTo, s::OneTo) = broadcast(f, _unit_range(r), _unit_range(s))
map(f, r::OneTo) = map(f, collect(r))
==(r::OneTo, s::OneTo) = r.stop == s.stop
==(r::OneTo, s) = _unit_range(r) == s
==(r, s::OneTo) = r == _unit_range(s)

# ---- Ranges of Ints by length ----------------------------------------------------------------

# Julia's `StepRangeLen{Int64, Int64, Int64, Int64}`: what an Int times an Int range is
# (`2 .* (1:3)`, shown `2:2:6`; `0 .* (1:3)` is `StepRangeLen(0, 0, 3)`, a zero step being
# allowed), the sum or difference of two Int ranges (`base/range.jl`'s `_define_range_op`), and
# such a range's arithmetic with an Int. The prelude's `StepRangeLen` with Int fields: the
# reference element is the first (`offset` 1; Julia's may be another, of the same elements),
# the twice-precision low parts zero, `total` Julia's `sum` of it.
function _int_srl(a::Int, s::Int, n::Int)
    n >= 0 || throw(ArgumentError("length cannot be negative, got $n"))
    return StepRangeLen(a, s, a, s, a, 0, s, 0, n, 1, _range_sum(a, s, n))
end
# Julia's `sum(r::AbstractRange{<:Real})`: `n first(r)` plus the steps in closed form.
_range_sum(a, s, n::Int) = n * a + (iseven(n) ? (s * (n - 1)) * (n >> 1) : (s * n) * ((n - 1) >> 1))

# Such a range with a Float64: Julia's `StepRangeLen{Float64, Float64, ...}` of the new first
# element and step in plain Float64 arithmetic, kept as a Float64 range whose low parts are
# zero (the same elements, `typeof` Julia's Float64 range's; `float_range`'s form 4 gives its
# parts, and `a` and `s` without gradient, as the elements' formula needs them).
function _plain_srl(a::Float64, s::Float64, n::Int)
    t = float_range(4, a, s, n)
    return StepRangeLen(a, s, t[8], t[9], t[1], t[2], t[3], t[4], t[5], t[6], _range_sum(t[8], t[9], n))
end

collect(r::StepRangeLen{Int}) = _collect(fill(0, length(r)), r)
float(r::StepRangeLen{Int}) = _plain_srl(float(r.start), float(r.step), r.len)
summary(r::StepRangeLen{Int}) = "$(length(r))-element StepRangeLen{Int64, Int64, Int64, Int64}"

broadcast(::typeof(*), x::Int, r::UnitRange{Int}) = _int_srl(x * first(r), x * step(r), length(r))
broadcast(::typeof(*), x::Int, r::StepRange{Int, Int}) = _int_srl(x * first(r), x * step(r), length(r))
broadcast(::typeof(*), r::UnitRange{Int}, x::Int) = _int_srl(first(r) * x, step(r) * x, length(r))
broadcast(::typeof(*), r::StepRange{Int, Int}, x::Int) = _int_srl(first(r) * x, step(r) * x, length(r))
broadcast(::typeof(*), x::Int, r::StepRangeLen{Int}) = _int_srl(x * r.start, x * r.step, r.len)
broadcast(::typeof(*), r::StepRangeLen{Int}, x::Int) = _int_srl(r.start * x, r.step * x, r.len)
broadcast(::typeof(*), x::Float64, r::StepRangeLen{Int}) = _plain_srl(x * r.start, x * r.step, r.len)
broadcast(::typeof(*), r::StepRangeLen{Int}, x::Float64) = _plain_srl(r.start * x, r.step * x, r.len)
broadcast(::typeof(/), r::StepRangeLen{Int}, x::Real) = _plain_srl(r.start / x, r.step / x, r.len)
broadcast(::typeof(\), x::Real, r::StepRangeLen{Int}) = _plain_srl(x \ r.start, x \ r.step, r.len)
broadcast(::typeof(+), r::StepRangeLen{Int}, x::Int) = _int_srl(r.start + x, r.step, r.len)
broadcast(::typeof(+), x::Int, r::StepRangeLen{Int}) = _int_srl(x + r.start, r.step, r.len)
broadcast(::typeof(+), r::StepRangeLen{Int}, x::Float64) = _plain_srl(r.start + x, float(r.step), r.len)
broadcast(::typeof(+), x::Float64, r::StepRangeLen{Int}) = _plain_srl(x + r.start, float(r.step), r.len)
broadcast(::typeof(-), r::StepRangeLen{Int}, x::Int) = _int_srl(r.start - x, r.step, r.len)
broadcast(::typeof(-), x::Int, r::StepRangeLen{Int}) = _int_srl(x - r.start, -r.step, r.len)
broadcast(::typeof(-), r::StepRangeLen{Int}, x::Float64) = _plain_srl(r.start - x, float(r.step), r.len)
broadcast(::typeof(-), x::Float64, r::StepRangeLen{Int}) = _plain_srl(x - r.start, float(-r.step), r.len)
*(x::Real, r::StepRangeLen{Int}) = broadcast(*, x, r)
*(r::StepRangeLen{Int}, x::Real) = broadcast(*, r, x)
/(r::StepRangeLen{Int}, x::Real) = broadcast(/, r, x)
-(r::StepRangeLen{Int}) = _int_srl(-r.start, -r.step, r.len)
reverse(r::StepRangeLen{Int}) = _int_srl(last(r), -r.step, r.len)
function getindex(r::StepRangeLen{Int}, s::Union{UnitRange{Int}, StepRange{Int, Int}})
    if !isempty(s) && !(1 <= first(s) <= length(r) && 1 <= last(s) <= length(r))
        throw(BoundsError(r, s))
    end
    return _int_srl(r.start + (first(s) - 1) * r.step, r.step * step(s), length(s))
end

# The sum and difference of two Int ranges of one length: the `StepRangeLen` of the sums
# (differences) of their first elements and steps (`(1:3) - (1:3)` is `StepRangeLen(0, 0, 3)`).
+(r1::Union{UnitRange{Int}, StepRange{Int, Int}, StepRangeLen{Int}}, r2::Union{UnitRange{Int}, StepRange{Int, Int}, StepRangeLen{Int}}) =
    _int_srl(first(r1) + first(r2), step(r1) + step(r2), _same_len(r1, r2))
-(r1::Union{UnitRange{Int}, StepRange{Int, Int}, StepRangeLen{Int}}, r2::Union{UnitRange{Int}, StepRange{Int, Int}, StepRangeLen{Int}}) =
    _int_srl(first(r1) - first(r2), step(r1) - step(r2), _same_len(r1, r2))
+(r1::StepRangeLen{Int}, r2::StepRangeLen{Int}) = _int_srl(r1.start + r2.start, r1.step + r2.step, _same_len(r1, r2))
-(r1::StepRangeLen{Int}, r2::StepRangeLen{Int}) = _int_srl(r1.start - r2.start, r1.step - r2.step, _same_len(r1, r2))
broadcast(::typeof(+), r1::Union{UnitRange{Int}, StepRange{Int, Int}, StepRangeLen{Int}}, r2::Union{UnitRange{Int}, StepRange{Int, Int}, StepRangeLen{Int}}) = r1 + r2
broadcast(::typeof(-), r1::Union{UnitRange{Int}, StepRange{Int, Int}, StepRangeLen{Int}}, r2::Union{UnitRange{Int}, StepRange{Int, Int}, StepRangeLen{Int}}) = r1 - r2
broadcast(::typeof(+), r1::StepRangeLen{Int}, r2::StepRangeLen{Int}) = r1 + r2
broadcast(::typeof(-), r1::StepRangeLen{Int}, r2::StepRangeLen{Int}) = r1 - r2
# With a Float64 range, Julia promotes the Int range to one (its elements exactly) and adds
# the two at twice precision; with a `LinRange`, to the `LinRange` of its ends.
+(r1::Union{UnitRange{Int}, StepRange{Int, Int}, StepRangeLen{Int}}, r2::StepRangeLen{Float64}) = float(r1) + r2
+(r1::StepRangeLen{Float64}, r2::Union{UnitRange{Int}, StepRange{Int, Int}, StepRangeLen{Int}}) = r1 + float(r2)
-(r1::Union{UnitRange{Int}, StepRange{Int, Int}, StepRangeLen{Int}}, r2::StepRangeLen{Float64}) = float(r1) - r2
-(r1::StepRangeLen{Float64}, r2::Union{UnitRange{Int}, StepRange{Int, Int}, StepRangeLen{Int}}) = r1 - float(r2)
+(r1::StepRangeLen{Int}, r2::StepRangeLen{Float64}) = float(r1) + r2
+(r1::StepRangeLen{Float64}, r2::StepRangeLen{Int}) = r1 + float(r2)
-(r1::StepRangeLen{Int}, r2::StepRangeLen{Float64}) = float(r1) - r2
-(r1::StepRangeLen{Float64}, r2::StepRangeLen{Int}) = r1 - float(r2)
+(r1::Union{UnitRange{Int}, StepRange{Int, Int}, StepRangeLen{Int}}, r2::LinRange) = LinRange(first(r1), last(r1), length(r1)) + r2
+(r1::LinRange, r2::Union{UnitRange{Int}, StepRange{Int, Int}, StepRangeLen{Int}}) = r1 + LinRange(first(r2), last(r2), length(r2))
-(r1::Union{UnitRange{Int}, StepRange{Int, Int}, StepRangeLen{Int}}, r2::LinRange) = LinRange(first(r1), last(r1), length(r1)) - r2
-(r1::LinRange, r2::Union{UnitRange{Int}, StepRange{Int, Int}, StepRangeLen{Int}}) = r1 - LinRange(first(r2), last(r2), length(r2))
# A LinRange with a Float64 range: Julia promotes the LinRange to one of its first element and
# step (each exactly), added at twice precision.
+(r1::LinRange, r2::StepRangeLen{Float64}) = _plain_srl(first(r1), step(r1), length(r1)) + r2
+(r1::StepRangeLen{Float64}, r2::LinRange) = r1 + _plain_srl(first(r2), step(r2), length(r2))
-(r1::LinRange, r2::StepRangeLen{Float64}) = _plain_srl(first(r1), step(r1), length(r1)) - r2
-(r1::StepRangeLen{Float64}, r2::LinRange) = r1 - _plain_srl(first(r2), step(r2), length(r2))
broadcast(::typeof(+), r1::Union{UnitRange{Int}, StepRange{Int, Int}, StepRangeLen, LinRange}, r2::Union{UnitRange{Int}, StepRange{Int, Int}, StepRangeLen, LinRange}) = r1 + r2
broadcast(::typeof(-), r1::Union{UnitRange{Int}, StepRange{Int, Int}, StepRangeLen, LinRange}, r2::Union{UnitRange{Int}, StepRange{Int, Int}, StepRangeLen, LinRange}) = r1 - r2

# Ranges compare as Julia's `==` of ranges: two Int ranges by their ends and step (`1:3 ==
# 1:1:3`, two empty ones are equal), two `StepRangeLen`s or `LinRange`s of one type by their
# ends and length, any others element by element (`0.0:0.5:1.0 == LinRange(0, 1, 3)`).
==(r::Union{UnitRange{Int}, StepRange{Int, Int}, LinRange, StepRangeLen}, s::Union{UnitRange{Int}, StepRange{Int, Int}, LinRange, StepRangeLen}) =
    length(r) == length(s) && all(i -> r[i] == s[i], 1:length(r))
==(r::Union{UnitRange{Int}, StepRange{Int, Int}}, s::Union{UnitRange{Int}, StepRange{Int, Int}}) = _ordinal_equal(r, s)
==(r::StepRangeLen{Int}, s::Union{UnitRange{Int}, StepRange{Int, Int}}) = _ordinal_equal(r, s)
==(r::Union{UnitRange{Int}, StepRange{Int, Int}}, s::StepRangeLen{Int}) = _ordinal_equal(r, s)
==(r::StepRangeLen{Int}, s::StepRangeLen{Int}) = _ends_equal(r, s)
==(r::StepRangeLen{Float64}, s::StepRangeLen{Float64}) = _ends_equal(r, s)
==(r::LinRange, s::LinRange) = _ends_equal(r, s)
function _ordinal_equal(r, s)
    isempty(r) && return isempty(s)
    _has_length_one(r) && return _has_length_one(s) && first(r) == first(s)
    return first(r) == first(s) && step(r) == step(s) && last(r) == last(s)
end
_has_length_one(r::StepRangeLen) = length(r) == 1
_has_length_one(r) = first(r) == last(r)
_ends_equal(r, s) = (isempty(r) && isempty(s)) || (first(r) == first(s) && length(r) == length(s) && last(r) == last(s))

# Julia's `sort` and `sortperm` of a range (without keywords): the range itself when it
# ascends, else reversed; the permutation as a range. With keywords, a sorted `Vector`.
sort(r::UnitRange{Int}) = r
sort(r::Union{StepRange{Int, Int}, LinRange, StepRangeLen}) = issorted(r) ? r : reverse(r)
sortperm(r::UnitRange{Int}) = 1:length(r)
sortperm(r::Union{StepRange{Int, Int}, LinRange, StepRangeLen}) = issorted(r) ? (1:1:length(r)) : (length(r):-1:1)

# Julia's `intersect` of two ranges (`base/range.jl`): of two unit ranges the `UnitRange` of
# the overlap; of Int ranges with a step the `StepRange` of the common elements (by the steps'
# `lcm` and Bézout's identity), descending when the first range is a descending `StepRange`;
# of other ranges the `Vector` of the distinct elements of the shorter found in the other.
intersect(r::UnitRange{Int}, s::UnitRange{Int}) = max(first(r), first(s)):min(last(r), last(s))
function intersect(r::UnitRange{Int}, s::StepRange{Int, Int})
    isempty(s) && return first(r):step(s):(first(r) - step(s))
    sta, ste, sto = _first_step_last_ascending(s)
    i0 = max(sta, first(r) + mod(sta - first(r), ste))
    i1 = min(sto, last(r) - mod(last(r) - sta, ste))
    return i0:ste:i1
end
intersect(r::StepRange{Int, Int}, s::UnitRange{Int}) = step(r) < 0 ? reverse(intersect(s, reverse(r))) : intersect(s, r)
function intersect(r::StepRange{Int, Int}, s::StepRange{Int, Int})
    if isempty(r) || isempty(s)
        return first(r):step(r):(first(r) - step(r))
    end
    start1, step1, stop1 = _first_step_last_ascending(r)
    start2, step2, stop2 = _first_step_last_ascending(s)
    a = lcm(step1, step2)
    g, x = _gcdx(step1, step2)
    if rem(start1 - start2, g) != 0
        # Unaligned: no element in common.
        return step(r) < 0 ? (stop1:(-a):(stop1 + a)) : (start1:a:(start1 - a))
    end
    # The common elements are b + k a.
    b = start1 - x * div(start1 - start2, g) * step1
    m = max(start1 + mod(b - start1, a), start2 + mod(b - start2, a))
    n = min(stop1 - mod(stop1 - b, a), stop2 - mod(stop2 - b, a))
    return step(r) < 0 ? (n:(-a):m) : (m:a:n)
end
intersect(r1::Union{UnitRange{Int}, StepRange{Int, Int}, StepRangeLen, LinRange}, r2::Union{UnitRange{Int}, StepRange{Int, Int}, StepRangeLen, LinRange}) =
    length(r1) > length(r2) ? _common_elements(r2, r1) : _common_elements(r1, r2)
function _common_elements(r, s)
    T = promote_type(eltype(r), eltype(s))
    return [convert(T, x) for x in unique(collect(r)) if x in s]
end
_first_step_last_ascending(r) = step(r) < 0 ? (last(r), -step(r), first(r)) : (first(r), step(r), last(r))
# `gcd(a, b)` and `u` with `u a + v b == gcd(a, b)` for some `v` (Julia's `gcdx`'s first two).
function _gcdx(a::Int, b::Int)
    s0, s1 = 1, 0
    while b != 0
        q = div(a, b)
        a, b = b, rem(a, b)
        s0, s1 = s1, s0 - q * s1
    end
    return a < 0 ? (-a, -s0) : (a, s0)
end

# ---- Ranges of rationals (Julia's range.jl) ---------------------------------------------------

# Julia promotes the ends of `a:b` (`(:)(a::Real, b::Real) = (:)(promote(a, b)...)`) and of
# `a:s:b` to one type: with a rational among them and no Float64, `Rational{Int64}`. `a:b` is
# then a `UnitRange{Rational{Int64}}` ending at the last element reached from `a` in steps of
# 1 (`unitrange_last`: `1//2:2` is `1//2:3//2`, an empty one ends at `a - 1`), and `a:s:b` a
# `StepRange{Rational{Int64}, Rational{Int64}}` ending at the last element the steps reach
# (`steprange_last`: an empty one ends at `a - s`).
(:)(start::Rational{Int}, stop::Rational{Int}) =
    UnitRange(start, stop >= start ? start + floor(stop - start) : start - 1)
(:)(start::Int, stop::Rational{Int}) = Rational(start):stop
(:)(start::Rational{Int}, stop::Int) = start:Rational(stop)
# (Each method names `Rational{Int}` outside a `Union`: a program without rationals has none.)
(:)(start::Rational{Int}, step::Union{Int, Rational{Int}}, stop::Union{Int, Rational{Int}}) =
    _rational_range(start, Rational(step), Rational(stop))
(:)(start::Int, step::Rational{Int}, stop::Union{Int, Rational{Int}}) =
    _rational_range(Rational(start), step, Rational(stop))
(:)(start::Int, step::Int, stop::Rational{Int}) =
    _rational_range(Rational(start), Rational(step), stop)
function _rational_range(a::Rational{Int}, s::Rational{Int}, b::Rational{Int})
    s == 0 && throw(ArgumentError("step cannot be zero"))
    if b == a
        last = b
    elseif (s > 0) != (b > a)
        last = a - s
    else
        last = a + s * trunc((b - a) / s)
    end
    return StepRange(a, s, last)
end

length(r::UnitRange{Rational{Int}}) = Int(r.stop - r.start) + 1
length(r::StepRange{Rational{Int}, Rational{Int}}) = Int((r.stop - r.start) / r.step) + 1
first(r::UnitRange{Rational{Int}}) = r.start
first(r::StepRange{Rational{Int}, Rational{Int}}) = r.start
last(r::UnitRange{Rational{Int}}) = r.stop
last(r::StepRange{Rational{Int}, Rational{Int}}) = r.stop
step(r::UnitRange{Rational{Int}}) = 1 // 1
step(r::StepRange{Rational{Int}, Rational{Int}}) = r.step
size(r::UnitRange{Rational{Int}}) = (length(r),)
size(r::StepRange{Rational{Int}, Rational{Int}}) = (length(r),)
getindex(r::UnitRange{Rational{Int}}, i::Int) = _rational_range_at(r, i)
getindex(r::StepRange{Rational{Int}, Rational{Int}}, i::Int) = _rational_range_at(r, i)
function _rational_range_at(r, i::Int)
    if !(1 <= i <= length(r))
        throw(BoundsError(r, i))
    end
    return r.start + (i - 1) * step(r)
end
collect(r::UnitRange{Rational{Int}}) = [r[i] for i in 1:length(r)]
collect(r::StepRange{Rational{Int}, Rational{Int}}) = [r[i] for i in 1:length(r)]
# A `for` loop over `a:b` or `a:s:b` with a rational among them counts through its elements.
_loop_length(r::StepRange{Rational{Int}, Rational{Int}}) = length(r)
_loop_elem(r::StepRange{Rational{Int}, Rational{Int}}, k::Int) = r[k + 1]

# ---- Polynomials and rounding to digits ------------------------------------------------------

"""
    muladd(x, y, z)

`x * y + z`. Julia lets `muladd` fuse the two operations into one rounding where the machine
can; zy rounds twice (both are Julia's meaning).
"""
muladd(x::Real, y::Real, z::Real) = x * y + z

"""
    evalpoly(x, p)

The polynomial `p[1] + p[2] x + p[3] x² + ...` at `x`, by Horner's rule from the highest
coefficient: `muladd(x, muladd(x, p[3], p[2]), p[1])`. `p` is a tuple or a vector.
"""
evalpoly(x, p::Tuple) = _evalpoly(x, p...)
_evalpoly(x, c) = c
_evalpoly(x, c, rest...) = muladd(x, _evalpoly(x, rest...), c)

function evalpoly(x, p::AbstractVector)
    n = length(p)
    ex = p[n]
    for i in n-1:-1:1
        ex = muladd(x, ex, p[i])
    end
    return ex
end

# `round(x; digits, base)`, and `trunc`, `floor`, `ceil` so (inference hands the keyword call
# here with the function `f`): `x` rounded by `f` to a multiple of `base^-digits`, as Julia's
# `_round_digits` computes it (`x` itself where the scaled value overflows).
function _round_digits(f, fx::Float64, digits::Integer, base::Integer)
    if digits >= 0
        invstep = float(base)^digits
        isfinite(invstep) || return fx
        y = f(fx * invstep) / invstep
    else
        step = float(base)^(-digits)
        isfinite(step) || error("unsupported: `round(x; digits)` with `base^-digits` beyond Float64")
        y = f(fx / step) * step
    end
    return isfinite(y) ? y : fx
end

# `round(x; sigdigits, base)` (and `trunc`, `floor`, `ceil`): rounded to `digits` after the
# point where `x`'s leading digit is the `sigdigits`-th, as Julia's `_round_sigdigits`.
function _round_sigdigits(f, fx::Float64, sigdigits::Integer, base::Integer)
    sigdigits >= 1 || throw(DomainError(sigdigits, "`sigdigits` cannot be less than 1."))
    isfinite(fx) || return fx
    return _round_digits(f, fx, sigdigits - _hidigit(fx, base), base)
end

# The position of the leading digit of `x` in `base` (1 for `1 <= |x| < base`), Julia's
# `hidigit`.
function _hidigit(x::Float64, base::Integer)
    x == 0.0 && return 0
    base == 10 && return 1 + floor(Int, log10(abs(x)))
    base == 2 && return 1 + exponent(x)
    return 1 + floor(Int, log(base, abs(x)))
end

# Vectors that grow and shrink. Julia's `push!`, `append!`, `pop!` and `resize!` change a
# Vector's length through `_growend!`/`_deleteend!`; zy's primitive for both is
# `setlength!(v, n[, tail])`, which returns the elements it removes so that the AD can give
# them back (the AD's own tape stacks are other objects, whose `push!`/`pop!` are primitives
# that user code never calls).

"""
    T[]

An empty `Vector{T}` (`Float64[]`, `Int[]`, `Bool[]`); `Vector{T}()` is the same.
"""
getindex(::Type{Float64}) = zeros(0)
getindex(::Type{Int64}) = fill(0, 0)
getindex(::Type{Int}) = fill(0, 0)
getindex(::Type{Bool}) = fill(false, 0)

# `x` converted to the element type of `v` (an InexactError before `v` changes).
_elem_of(v::Array{Float64}, x::Real) = Float64(x)
_elem_of(v::Array{Int}, x::Real) = Int(x)
_elem_of(v::Array{Bool}, x::Bool) = x

"""
    push!(v::Vector, x)

Append `x`, converted to the element type of `v`, to the end of `v`; returns `v`.
"""
function push!(v::Vector, x)
    y = _elem_of(v, x)
    n = length(v) + 1
    setlength!(v, n)
    v[n] = y
    return v
end

"""
    append!(v::Vector, w)

Append the elements of `w` (a vector, a range or a tuple of numbers), converted to the
element type of `v`, to the end of `v`; returns `v`. `append!(v, v)` doubles `v`.
"""
function append!(v::Vector, w)
    for x in w
        push!(v, x)
    end
    return v
end

function append!(v::Vector{Float64}, w::Vector{Float64})
    setlength!(v, length(v) + length(w), w)
    return v
end

function append!(v::Vector{Int}, w::Vector{Int})
    setlength!(v, length(v) + length(w), w)
    return v
end

"""
    pop!(v::Vector)

Remove the last element of `v` and return it (`ArgumentError` if `v` is empty).
"""
function pop!(v::Vector)
    n = length(v)
    if n == 0
        throw(ArgumentError("array must be non-empty"))
    end
    x = v[n]
    setlength!(v, n - 1)
    return x
end

"""
    resize!(v::Vector, n::Int)

Make `v` `n` elements long: elements past `n` are removed, new ones are zero (Julia leaves
them undefined). `ArgumentError` for a negative `n`. Returns `v`.
"""
function resize!(v::Vector, n::Int)
    setlength!(v, n)
    return v
end

"""
    empty!(v::Vector)

Remove every element of `v`; returns `v`.
"""
empty!(v::Vector) = resize!(v, 0)

# Growing and shrinking at the front and in the middle (Julia's `pushfirst!`, `popfirst!`,
# `insert!`, `deleteat!`): the elements after the position are moved one place, then
# `setlength!` changes the length at the end, so the AD sees element writes and a resize as in
# `push!`. Each costs O(length) (Julia's `_growbeg!` is amortised O(1) for `pushfirst!`).

"""
    checkbounds(A::Array, i::Int)

`nothing` when `i` is a linear index of `A`, else Julia's `BoundsError`.
"""
function checkbounds(A::Array, i::Int)
    if i < 1 || i > length(A)
        A[i]    # out of bounds: the BoundsError of the read
    end
    return nothing
end

# Julia's `checkbounds(A, I...)` of one (linear) or two indices, each an `Int`, a range, `:` or
# a vector of `Int`s: `nothing` when each is within its dimension, else the `BoundsError`
# naming the indices as Julia's `to_indices` makes them (`:` as `Base.Slice(Base.OneTo(n))`).
checkbounds(::Type{Bool}, A::AbstractArray, i::Union{Int, AbstractRange{Int}, Colon, Vector{Int}}) = _index_within(length(A), i)
checkbounds(::Type{Bool}, A::AbstractArray, i::Union{Int, AbstractRange{Int}, Colon, Vector{Int}}, j::Union{Int, AbstractRange{Int}, Colon, Vector{Int}}) =
    _index_within(size(A, 1), i) && _index_within(size(A, 2), j)
function checkbounds(A::AbstractArray, i::Union{AbstractRange{Int}, Colon, Vector{Int}})
    checkbounds(Bool, A, i) ||
        error(:BoundsError, string(_bounds_message(A), " at index [", _index_shown(length(A), i), "]"))
    return nothing
end
function checkbounds(A::AbstractArray, i::Union{Int, AbstractRange{Int}, Colon, Vector{Int}}, j::Union{Int, AbstractRange{Int}, Colon, Vector{Int}})
    checkbounds(Bool, A, i, j) || error(:BoundsError, string(_bounds_message(A), " at index [",
        _index_shown(size(A, 1), i), ", ", _index_shown(size(A, 2), j), "]"))
    return nothing
end
_index_within(n::Int, i::Int) = 1 <= i <= n
_index_within(n::Int, r::AbstractRange{Int}) = isempty(r) || (1 <= minimum(r) && maximum(r) <= n)
_index_within(n::Int, ::Colon) = true
_index_within(n::Int, v::Vector{Int}) = all(i -> 1 <= i <= n, v)
_index_shown(n::Int, i) = repr(i)
_index_shown(n::Int, ::Colon) = "Base.Slice(Base.OneTo($n))"

"""
    get(A::AbstractArray, i::Integer, default)

`A[i]` when `i` is a linear index of `A`, else `default` (Julia's `get` of an array; also of
a tuple, and `get(f, A, i)` calling `f()` for the default).
"""
get(A::AbstractArray, i::Integer, default) = 1 <= i <= length(A) ? A[i] : default
get(t::Tuple, i::Integer, default) = 1 <= i <= length(t) ? t[i] : default
get(f, A::AbstractArray, i::Integer) = 1 <= i <= length(A) ? A[i] : f()

"""
    insert!(v::Vector, i::Int, x)

Insert `x`, converted to the element type of `v`, at position `i` (`1 ≤ i ≤ length(v) + 1`,
else a `BoundsError`), moving the elements from `i` on one place back; returns `v`.
"""
function insert!(v::Vector, i::Int, x)
    n = length(v)
    if i != n + 1
        checkbounds(v, i)
    end
    y = _elem_of(v, x)
    setlength!(v, n + 1)
    for k in (n + 1):-1:(i + 1)
        v[k] = v[k - 1]
    end
    v[i] = y
    return v
end

"""
    pushfirst!(v::Vector, x)

Insert `x`, converted to the element type of `v`, at the front of `v`; returns `v`.
"""
pushfirst!(v::Vector, x) = insert!(v, 1, x)

"""
    prepend!(v::Vector, items)

Insert the elements of `items` (any collection), in their order and converted to the element
type of `v`, at the front of `v`; returns `v`.
"""
function prepend!(v::Vector, items)
    k = 0
    for x in collect(items)
        k += 1
        insert!(v, k, x)
    end
    return v
end

"""
    deleteat!(v::Vector, i::Int)
    deleteat!(v::Vector, inds)

Remove the element at position `i` (a `BoundsError` outside `v`), or those at the sorted,
distinct positions `inds` (a range or a vector of Ints, else `ArgumentError: indices must be
unique and sorted`), moving the rest forward; returns `v`.
"""
function deleteat!(v::Vector, i::Int)
    n = length(v)
    checkbounds(v, i)
    for k in i:(n - 1)
        v[k] = v[k + 1]
    end
    setlength!(v, n - 1)
    return v
end

function deleteat!(v::Vector, inds)
    n = length(v)
    j = 0     # elements kept so far
    d = 0     # positions deleted so far
    last = 0
    for i in inds
        if i <= last
            throw(ArgumentError("indices must be unique and sorted"))
        end
        if i < 1 || i > n
            checkbounds(v, i)
        end
        for k in (last + 1):(i - 1)
            j += 1
            v[j] = v[k]
        end
        d += 1
        last = i
    end
    for k in (last + 1):n
        j += 1
        v[j] = v[k]
    end
    setlength!(v, n - d)
    return v
end

"""
    filter!(f, v::Vector)

Keep the elements of `v` for which `f` holds, in order, dropping the others; returns `v`.
"""
function filter!(f, v::Vector)
    j = 0
    for k in 1:length(v)
        x = v[k]
        if f(x)
            j += 1
            v[j] = x
        end
    end
    setlength!(v, j)
    return v
end

"""
    unique!(v::Vector)

Drop each element of `v` equal (`isequal`) to an earlier one, keeping the order; returns `v`.
"""
function unique!(v::Vector)
    j = 0
    for k in 1:length(v)
        seen = false
        for i in 1:j
            if isequal(v[i], v[k])
                seen = true
                break
            end
        end
        if !seen
            j += 1
            v[j] = v[k]
        end
    end
    setlength!(v, j)
    return v
end

"""
    keepat!(v::Vector, inds)
    keepat!(v::Vector, m::AbstractVector{Bool})

Keep only the elements at the sorted, distinct positions `inds` (else `ArgumentError`), or
where the mask `m` (of `v`'s length, else a BoundsError) is true, in order; returns `v`.
"""
function keepat!(v::Vector, inds)
    j = 0
    last = 0
    for i in inds
        i <= last && throw(ArgumentError("indices must be unique and sorted"))
        checkbounds(v, i)
        j += 1
        v[j] = v[i]
        last = i
    end
    setlength!(v, j)
    return v
end
function keepat!(v::Vector, m::AbstractVector{Bool})
    length(m) == length(v) || throw(BoundsError(v, m))
    return keepat!(v, findall(m))
end

"""
    splice!(v::Vector, i::Int)
    splice!(v::Vector, r::UnitRange)

Remove the element at position `i` and return it, or those in `r` and return them as a vector.
"""
function splice!(v::Vector, i::Int)
    x = v[i]
    deleteat!(v, i)
    return x
end
function splice!(v::Vector, r::UnitRange)
    x = v[r]
    deleteat!(v, r)
    return x
end

"""
    popfirst!(v::Vector)

Remove the first element of `v` and return it (`ArgumentError` if `v` is empty).
"""
function popfirst!(v::Vector)
    if length(v) == 0
        throw(ArgumentError("array must be non-empty"))
    end
    x = v[1]
    deleteat!(v, 1)
    return x
end

"""
    fill!(A::Array, x)

Set every element of `A` to `x`, converted to the element type of `A`; returns `A`.
"""
function fill!(A::Array, x)
    y = _elem_of(A, x)
    for k in 1:length(A)
        A[k] = y
    end
    return A
end

"""
    copyto!(dest, src)

Copy the elements of `src` into the first `length(src)` positions of `dest` in linear
(column-major) order, each converted to the element type of `dest`; returns `dest`. A `src`
longer than `dest` is a `BoundsError`.
"""
function copyto!(dest::Vector, src::AbstractArray)
    n = length(src)
    n > length(dest) && throw(BoundsError(dest, 1:n))
    return _copyto_elements!(dest, src)
end
function copyto!(dest::Matrix, src::AbstractArray)
    n = length(src)
    n > length(dest) && throw(BoundsError(dest, 1:n))
    return _copyto_elements!(dest, src)
end
function _copyto_elements!(dest::Array, src::AbstractArray)
    for k in 1:length(src)
        dest[k] = _elem_of(dest, src[k])
    end
    return dest
end

"""
    copy!(dst, src)

`dst` made a copy of `src`, returned: a Vector first resized to `src`'s length, a Matrix of
another size Julia's `ArgumentError`.
"""
function copy!(dst::Vector, src::AbstractVector)
    resize!(dst, length(src))
    return _copyto_elements!(dst, src)
end
function copy!(dst::Matrix, src::AbstractMatrix)
    size(dst) == size(src) || throw(ArgumentError("arrays must have the same axes for copy! (consider using `copyto!`)"))
    return _copyto_elements!(dst, src)
end

"""
    copyto!(dest, doffs, src, soffs, n)

Copy the `n` elements of `src` from linear index `soffs` into `dest` from `doffs`, each
converted to the element type of `dest`; returns `dest`. A range outside either array is a
`BoundsError`, a negative `n` an `ArgumentError`.
"""
function copyto!(dest::Array, doffs::Integer, src::AbstractArray, soffs::Integer, n::Integer)
    n == 0 && return dest
    n > 0 || throw(ArgumentError("Number of elements to copy must be non-negative."))
    (doffs < 1 || doffs + n - 1 > length(dest)) && throw(BoundsError(dest, doffs:(doffs + n - 1)))
    (soffs < 1 || soffs + n - 1 > length(src)) && throw(BoundsError(src, soffs:(soffs + n - 1)))
    for k in 0:(n - 1)
        dest[doffs + k] = _elem_of(dest, src[soffs + k])
    end
    return dest
end

"""
    sum!(r, A), prod!(r, A), maximum!(r, A), minimum!(r, A)

Reduce the vector or matrix `A` over the dimensions where `r` has size 1 (`sum!(zeros(1, n),
A)` sums the columns, `sum!(zeros(m), A)` the rows), overwriting `r`, which is returned. A
dimension of `r` neither 1 nor `A`'s is a `DimensionMismatch`.
"""
sum!(r::Union{Vector, Matrix}, A::Union{AbstractVector, AbstractMatrix}) = _reduce_into!(+, r, A, true)
prod!(r::Union{Vector, Matrix}, A::Union{AbstractVector, AbstractMatrix}) = _reduce_into!(*, r, A, true)
maximum!(r::Union{Vector, Matrix}, A::Union{AbstractVector, AbstractMatrix}) = _reduce_into!(max, r, A, false)
minimum!(r::Union{Vector, Matrix}, A::Union{AbstractVector, AbstractMatrix}) = _reduce_into!(min, r, A, false)

# `r` overwritten with `op` folded over each group of `A`'s entries that share an index of
# `r`: from the identity (`neutral`: `zero` for `+`, `one` for `*`) or from the group's first.
function _reduce_into!(op, r, A, neutral::Bool)
    for d in 1:max(ndims(r), ndims(A))
        (size(r, d) == 1 || size(r, d) == size(A, d)) ||
            throw(DimensionMismatch("reduction on array of size $(size(A)) with output of size $(size(r))"))
    end
    m = size(r, 1)
    rows = m == 1 ? 1 : size(A, 1)
    cols = size(r, 2) == 1 ? 1 : size(A, 2)
    for j in 1:cols, i in 1:rows
        k = (m == 1 ? 1 : i) + (size(r, 2) == 1 ? 0 : (j - 1) * m)
        r[k] = neutral ? (op === (*) ? one(eltype(r)) : zero(eltype(r))) : _elem_of(r, A[i, j])
    end
    for j in 1:size(A, 2), i in 1:size(A, 1)
        k = (m == 1 ? 1 : i) + (size(r, 2) == 1 ? 0 : (j - 1) * m)
        r[k] = _elem_of(r, op(r[k], A[i, j]))
    end
    return r
end

"""
    T[a, b, ...]

A `Vector{T}` of the elements, each converted to `T` as Julia's `convert` does (`Float64[1,
2]` is `[1.0, 2.0]`; `Int[1.5]` an `InexactError`).
"""
getindex(::Type{Float64}, xs...) = _typed_vect!(zeros(length(xs)), 1, xs...)
getindex(::Type{Int}, xs...) = _typed_vect!(fill(0, length(xs)), 1, xs...)
getindex(::Type{Bool}, xs...) = _typed_vect!(fill(false, length(xs)), 1, xs...)

_typed_vect!(v, k) = v
function _typed_vect!(v, k, x, rest...)
    v[k] = _elem_of(v, x)
    return _typed_vect!(v, k + 1, rest...)
end

# `T[a b; c d]`, `T[x y]`, `T[x; y]` (the syntax lowers them to this): the concatenation
# without `T`, each element converted by `T`.
_typed_cat(T::Type{Float64}, A::Array) = _gen_convert(T, zero(Float64), A)
_typed_cat(T::Type{Int}, A::Array) = _gen_convert(T, zero(Int), A)
_typed_cat(T::Type{Float32}, A::Array) = _gen_convert(T, zero(Float32), A)
_typed_cat(T::Type{Int8}, A::Array) = _gen_convert(T, zero(Int8), A)
_typed_cat(T::Type{Int16}, A::Array) = _gen_convert(T, zero(Int16), A)
_typed_cat(T::Type{Int32}, A::Array) = _gen_convert(T, zero(Int32), A)
_typed_cat(T::Type{UInt8}, A::Array) = _gen_convert(T, zero(UInt8), A)
_typed_cat(T::Type{UInt16}, A::Array) = _gen_convert(T, zero(UInt16), A)
_typed_cat(T::Type{UInt32}, A::Array) = _gen_convert(T, zero(UInt32), A)
_typed_cat(T::Type{UInt64}, A::Array) = _gen_convert(T, zero(UInt64), A)
_typed_cat(T::Type{Int128}, A::Array) = _gen_convert(T, zero(Int128), A)
_typed_cat(T::Type{UInt128}, A::Array) = _gen_convert(T, zero(UInt128), A)
_typed_cat(T::Type{Bool}, A::Array) = _gen_convert(T, false, A)
# Of another type (`String[a; b]`, `T[x y]` of a method's `T`): each element converted.
_typed_cat(T::Type, A::Array) = _convert_each(T, A)
# `x[a; b]` of a value that is not a type: Julia's `typed_vcat(x, a, b)`, which has no method.
_typed_cat(x, A::Array) = error(:MethodError, "no method matching typed_vcat(::$(typeof(x)), ...): `x[a; b]` concatenates into the element type `x`, which must be a number type")

# `Vector{T}(undef, n)`, `Matrix{T}(undef, m, n)`, `Array{T}(undef, dims...)`,
# `Array{T, N}(undef, dims...)` (the syntax lowers them to these): arrays whose elements Julia
# leaves unset; zy's are zeros (`false`).
_undef_vector(::Type{Float64}, n::Int) = zeros(n)
_undef_vector(::Type{Int}, n::Int) = fill(0, n)
_undef_vector(::Type{Int64}, n::Int) = fill(0, n)
_undef_vector(::Type{Bool}, n::Int) = fill(false, n)
_undef_matrix(::Type{Float64}, m::Int, n::Int) = zeros(m, n)
_undef_matrix(::Type{Int}, m::Int, n::Int) = fill(0, m, n)
_undef_matrix(::Type{Int64}, m::Int, n::Int) = fill(0, m, n)
_undef_matrix(::Type{Bool}, m::Int, n::Int) = fill(false, m, n)
_undef_array(T, n::Int) = _undef_vector(T, n)
_undef_array(T, m::Int, n::Int) = _undef_matrix(T, m, n)
_undef_array_rank(T, N::Int, n::Int) = N == 1 ? _undef_vector(T, n) : _undef_rank_error(N, 1)
_undef_array_rank(T, N::Int, m::Int, n::Int) = N == 2 ? _undef_matrix(T, m, n) : _undef_rank_error(N, 2)
_undef_rank_error(N, k) = throw(ArgumentError("an Array{T, $N} needs $N sizes, not $k"))
# The sizes as a tuple: `Matrix{Float64}(undef, size(A))`, `Array{T}(undef, (m, n))`.
_undef_vector(T, dims::Tuple{Int}) = _undef_vector(T, dims[1])
_undef_matrix(T, dims::Tuple{Int, Int}) = _undef_matrix(T, dims[1], dims[2])
_undef_array(T, dims::Tuple) = _undef_array(T, dims...)
_undef_array_rank(T, N::Int, dims::Tuple) = _undef_array_rank(T, N, dims...)

# ---- 0-dimensional arrays --------------------------------------------------------------------

"""
    fill(x), zeros(), ones(), Array{T, 0}(undef), reshape(v, ())

Julia's 0-dimensional `Array{T, 0}`: one element, read `A[]` (or `A[1]`) and written `A[] = x`;
its size `()`, its length 1. zy holds the element in a one-element Vector, which
`reshape(v, ())` shares with `v`. Broadcasting over it gives its element's result, a number
(Julia's `fill(1.0) .+ 1 == 2.0`); `+`, `-` and scaling by a number keep it an array.
"""
struct ZeroDimArray{T} <: AbstractArray{T, 0}
    data::Vector{T}
end
fill(x) = ZeroDimArray([x])
fill(x, ::Tuple{}) = fill(x)
zeros() = fill(0.0)
ones() = fill(1.0)
zeros(::Tuple{}) = zeros()
ones(::Tuple{}) = ones()
zeros(::Type{T}) where {T} = fill(zero(T))
ones(::Type{T}) where {T} = fill(one(T))
collect(x::Number) = fill(x)
_undef_array(T) = ZeroDimArray(_undef_vector(T, 1))
_undef_array_rank(T, N::Int) = N == 0 ? _undef_array(T) : _undef_rank_error(N, 0)
# `reshape(v, ())` of a one-element vector: the 0-dimensional array sharing its element.
function _reshape_zero(v::Vector)
    length(v) == 1 || throw(DimensionMismatch("new dimensions () must be consistent with array length $(length(v))"))
    return ZeroDimArray(v)
end
reshape(v::Vector, ::Tuple{}) = _reshape_zero(v)
reshape(A::Matrix, ::Tuple{}) = _reshape_zero(A[:])
_reshape_shared(v::Vector, ::Tuple{}) = _reshape_zero(v)
_reshape_shared(A::Matrix, ::Tuple{}) = error("unsupported: `reshape(A, ())` of a matrix a variable holds (Julia's 0-dimensional array sharing its memory); reshape `A[:]` (a copy) or `vec(A)`'s vector")

getindex(A::ZeroDimArray) = A.data[1]
getindex(A::ZeroDimArray, i::Int) = i == 1 ? A.data[1] : throw(BoundsError(A, i))
function setindex!(A::ZeroDimArray, x)
    A.data[1] = x
    return A
end
function setindex!(A::ZeroDimArray, x, i::Int)
    i == 1 || throw(BoundsError(A, i))
    A.data[1] = x
    return A
end
summary(A::ZeroDimArray) = "0-dimensional $(typeof(A))"
size(A::ZeroDimArray) = ()
length(A::ZeroDimArray) = 1
ndims(A::ZeroDimArray) = 0
axes(A::ZeroDimArray) = ()
eltype(A::ZeroDimArray{T}) where {T} = T
first(A::ZeroDimArray) = A.data[1]
last(A::ZeroDimArray) = A.data[1]
only(A::ZeroDimArray) = A.data[1]
sum(A::ZeroDimArray) = sum(A.data)
sum(f, A::ZeroDimArray) = sum(f, A.data)
prod(A::ZeroDimArray) = prod(A.data)
maximum(A::ZeroDimArray) = A.data[1]
minimum(A::ZeroDimArray) = A.data[1]
copy(A::ZeroDimArray) = ZeroDimArray(copy(A.data))
collect(A::ZeroDimArray) = copy(A)
similar(A::ZeroDimArray) = ZeroDimArray(similar(A.data))
vec(A::ZeroDimArray) = A.data
# `map` and comprehensions over one keep its shape (Julia's 0-dimensional result).
map(f, A::ZeroDimArray) = fill(f(A.data[1]))
collect(g::Generator{F, I}) where {F, I <: ZeroDimArray} = fill(g.f(g.iter.data[1]))
function fill!(A::ZeroDimArray, x)
    A.data[1] = x
    return A
end
==(A::ZeroDimArray, B::ZeroDimArray) = A.data[1] == B.data[1]
isequal(A::ZeroDimArray, B::ZeroDimArray) = isequal(A.data[1], B.data[1])
# Julia's broadcast of 0-dimensional arrays and numbers is a number; beside an array, the
# element broadcast with it.
broadcast(f, A::ZeroDimArray) = f(A.data[1])
broadcast(f, A::ZeroDimArray, y::Number) = f(A.data[1], y)
broadcast(f, x::Number, A::ZeroDimArray) = f(x, A.data[1])
broadcast(f, A::ZeroDimArray, B::ZeroDimArray) = f(A.data[1], B.data[1])
broadcast(f, A::ZeroDimArray, y::AbstractArray) = broadcast(f, A.data[1], y)
broadcast(f, x::AbstractArray, A::ZeroDimArray) = broadcast(f, x, A.data[1])
function broadcast!(f, dest::ZeroDimArray, v::ZeroDimArray)
    dest.data[1] = f(v.data[1])
    return dest
end
# Arithmetic as Julia's arrays have it keeps the 0-dimensional shape.
+(A::ZeroDimArray, B::ZeroDimArray) = fill(A.data[1] + B.data[1])
-(A::ZeroDimArray, B::ZeroDimArray) = fill(A.data[1] - B.data[1])
-(A::ZeroDimArray) = fill(-A.data[1])
*(A::ZeroDimArray, x::Number) = fill(A.data[1] * x)
*(x::Number, A::ZeroDimArray) = fill(x * A.data[1])
/(A::ZeroDimArray, x::Number) = fill(A.data[1] / x)

"""
    reshape(A, m, n), reshape(A, n), reshape(A, (m, n)), reshape(A, :, n), reshape(A, m, :)
    vec(A)

The elements of `A` in column-major order as an m×n Matrix (a Vector of length n); a `:`
stands for the size that makes the element counts agree. Julia's result shares `A`'s memory:
these methods copy, and lowering calls them only of an array nothing else refers to (a slice,
an arithmetic or broadcast result, a literal, `copy(x)`), where the two cannot differ; of a
variable it calls `_reshape_shared` (below), a view of `A` with the new shape.
"""
reshape(A::Array, m::Int, n::Int) = _reshape(A, m, n)
reshape(A::Array, n::Int) = _reshape(A, n)
reshape(A::Array, dims::Tuple{Int, Int}) = _reshape(A, dims[1], dims[2])
reshape(A::Array, dims::Tuple{Int}) = _reshape(A, dims[1])
reshape(A::Array, ::Colon, n::Int) = _reshape(A, _reshape_colon(A, n, true), n)
reshape(A::Array, m::Int, ::Colon) = _reshape(A, m, _reshape_colon(A, m, false))
reshape(A::Array, ::Colon) = _reshape(A, length(A))
# `reshape(A, (:, n))`: the dimensions as a tuple, one of them a colon.
reshape(A::Array, dims::Tuple{Colon, Int}) = reshape(A, :, dims[2])
reshape(A::Array, dims::Tuple{Int, Colon}) = reshape(A, dims[1], :)
reshape(r::UnitRange{Int}, dims...) = reshape(collect(r), dims...)
reshape(r::StepRange{Int, Int}, dims...) = reshape(collect(r), dims...)
reshape(r::StepRangeLen, dims...) = reshape(collect(r), dims...)
reshape(r::LinRange, dims...) = reshape(collect(r), dims...)
reshape(v::SubArray, dims...) = _reshape_shared(v, dims...)
vec(A::Array) = _reshape(A, length(A))
vec(r::UnitRange{Int}) = collect(r)
vec(r::StepRange{Int, Int}) = collect(r)
vec(r::StepRangeLen) = collect(r)
vec(r::LinRange) = collect(r)
vec(v::SubArray) = _vec_shared(v)

"""
    _reshape_shared(A, dims...), _vec_shared(A), _dropdims_shared(A; dims)

`reshape`, `vec` and `dropdims` of an array held elsewhere (a variable, an argument, a field:
lowering calls these there). Julia's result shares `A`'s memory; zy's is a view of `A` with
the new shape, a SubArray whose indices are `A`'s linear indices `1:length(A)` in that shape
(for a view, its own indices), so a write through either is seen in the other, and the
gradient of what is read through it reaches `A`. Of an Array (or of such a view) it is marked
`_Reshaped()`, so that it is an Array as Julia's is (`isa Matrix`, `typeof`, dispatch); of
another view it is a view. Of a Vector, `vec` is the vector itself, as in Julia; ranges are
immutable, so their reshape is a copy.
"""
_reshape_shared(A::Array, dims...) = SubArray(A, reshape(collect(1:length(A)), dims...), _Reshaped())
_reshape_shared(v::SubArray, dims...) = SubArray(v.parent, reshape(collect(v.indices), dims...), v.reshaped)
_reshape_shared(r::Union{UnitRange{Int}, StepRange{Int, Int}, StepRangeLen, LinRange}, dims...) = reshape(collect(r), dims...)
_reshape_shared(a::AdjointMatrix, dims...) = _lazy_reshape(a, dims...)
_reshape_shared(a::TransposeMatrix, dims...) = _lazy_reshape(a, dims...)
_reshape_shared(x, dims...) = _reshape_refused("reshape")
_vec_shared(x::Vector) = x
_vec_shared(A::Array) = _reshape_shared(A, length(A))
_vec_shared(v::SubArray) = _reshape_shared(v, length(v))
_vec_shared(r::Union{UnitRange{Int}, StepRange{Int, Int}, StepRangeLen, LinRange}) = collect(r)
_vec_shared(r::Adjoint) = r'
_vec_shared(t::Transpose) = t.parent
_vec_shared(a::AdjointMatrix) = _reshape_shared(a, length(a))
_vec_shared(a::TransposeMatrix) = _reshape_shared(a, length(a))
_vec_shared(x) = _reshape_refused("vec")
# Of a Vector's one dimension: the 0-dimensional array sharing its element; of a matrix's
# every dimension refused by name (a 0-dimensional view of a matrix).
function _dropdims_shared(v::Vector; dims)
    _dropdims(v, dims)
    return _reshape_zero(v)
end
function _dropdims_shared(A::Matrix; dims)
    indices = dropdims(reshape(collect(1:length(A)), size(A)); dims = dims)
    return dims isa Tuple{Int, Int} ? _dropdims_zero(A) : SubArray(A, indices, _Reshaped())
end
function _dropdims_zero(A::Matrix)
    error("unsupported: `dropdims` of every dimension of a matrix a variable holds (Julia's 0-dimensional array sharing its memory); drop them from `A[:]` (a copy)")
end
_dropdims_shared(A::Array; dims) = SubArray(A, dropdims(reshape(collect(1:length(A)), size(A)); dims = dims), _Reshaped())
_dropdims_shared(v::SubArray; dims) = SubArray(v.parent, dropdims(collect(v.indices); dims = dims), v.reshaped)
_dropdims_shared(x; dims) = _reshape_refused("dropdims")
# Of `A'` or `transpose(A)` (Julia's `ReshapedArray` of the lazy wrapper): a view of `A` whose
# indices are `A`'s linear indices transposed, in the new shape, so a write through either is
# seen in the other and the gradient of what is read reaches `A`. The adjoint of a complex
# matrix conjugates what it reads and writes, which a view does not: refused by name.
_lazy_reshape(a::AdjointMatrix{<:AbstractMatrix{<:Complex}}, dims...) = _reshape_refused("reshape")
_lazy_reshape(a, dims...) = SubArray(_lazy_parent(a.parent), reshape(collect(_lazy_indices(a.parent)), dims...))
_lazy_parent(P::Array) = P
_lazy_parent(v::SubArray) = v.parent
_lazy_indices(P::Array) = _transposed(reshape(collect(1:length(P)), size(P)))
_lazy_indices(v::SubArray) = _transposed(collect(v.indices))
# Of another lazy wrapper (`Symmetric(A)`, ...) Julia's result is a `ReshapedArray` reading
# the wrapped array, which zy does not make (a copy would not see later writes).
_reshape_refused(f) = error("unsupported: `$f` of a lazy wrapper (`A'`, `transpose(A)`, `Symmetric(A)`, ...): Julia's result shares the wrapped array's memory; `$f` a `collect`ed copy if neither is written afterwards")

# A copy of `A` shaped m×n (`n` long).
_reshape(A::Array, m::Int, n::Int) = _reshape_fill!(_matrix(A, m, n), A, (m, n))
_reshape(A::Array, n::Int) = _reshape_fill!(_vector(A, n), A, (n,))

# `B` (of the new shape `dims`) filled with the elements of `A`, which must be as many.
function _reshape_fill!(B, A, dims)
    if length(B) != length(A)
        throw(DimensionMismatch("new dimensions $dims must be consistent with array size $(length(A))"))
    end
    for k in 1:length(A)
        B[k] = A[k]
    end
    return B
end

# The size a `:` stands for beside a size `n` (`first`: the `:` comes first).
function _reshape_colon(A, n::Int, first::Bool)
    if n == 0 || length(A) % n != 0
        if first
            throw(DimensionMismatch("array size $(length(A)) must be divisible by the product of the new dimensions (Colon(), $n)"))
        end
        throw(DimensionMismatch("array size $(length(A)) must be divisible by the product of the new dimensions ($n, Colon())"))
    end
    return length(A) ÷ n
end

# Indexing by a vector of indices or by a Bool mask (Julia's `x[[1, 3]]`, `x[x .> 0]`,
# `A[[1, 2], :]`): each index becomes a Vector of indices (`_index_list`), read into a copy or
# written in order; the AD differentiates the element reads and writes, so a repeated index
# adds its gradients. A mask must have the length of what it selects from (a BoundsError, as
# in Julia).

# The positions `k` where `m[k]` holds, for a mask over `n` indices.
function _mask_indices(n::Int, m::Vector{Bool})
    if length(m) != n
        error(:BoundsError, "a Bool index of length $(length(m)) into $n elements")
    end
    I = fill(0, count(m))
    j = 0
    for k in 1:n
        if m[k]
            j += 1
            I[j] = k
        end
    end
    return I
end

# Index `I` of dimension `d` of `A` (`d = 0`: linear) as a Vector of indices.
_index_list(A, d::Int, I::Vector{Int}) = I
_index_list(A, d::Int, m::Vector{Bool}) = _mask_indices(d == 0 ? length(A) : size(A, d), m)
# A Bool mask of the array's own shape (`A[A .> 0]`): the linear positions where it holds.
function _index_list(A, d::Int, m::Matrix{Bool})
    if size(m) != size(A)
        error(:BoundsError, "a Bool index of size $(size(m)) into an array of size $(size(A))")
    end
    return _mask_indices(length(A), vec(m))
end
_index_list(A, d::Int, r::UnitRange{Int}) = collect(r)
_index_list(A, d::Int, r::StepRange{Int, Int}) = collect(r)
_index_list(A, d::Int, c::Colon) = collect(1:(d == 0 ? length(A) : size(A, d)))

# `x[I]` for a Vector of linear indices: a new Vector (a BoundsError names the bad index).
function _slice(x::Array, I::Vector{Int})
    y = _vector(x, length(I))
    for k in 1:length(I)
        y[k] = x[I[k]]
    end
    return y
end

# `x[I]` for an array `I` of linear indices (a view's `indices`): a new array of `I`'s shape.
function _slice(x::Array, I::Matrix{Int})
    y = _matrix(x, size(I, 1), size(I, 2))
    for k in 1:length(I)
        y[k] = x[I[k]]
    end
    return y
end

function _slice(x::Array, I::Array{Int, 3})
    y = fill(zero(eltype(x)), size(I, 1), size(I, 2), size(I, 3))
    for k in 1:length(I)
        y[k] = x[I[k]]
    end
    return y
end
# Of 4 to 6 dimensions (`I` a view's indices: a shared `reshape` into 4 dimensions).
function _slice(x::Array, I::Array{Int})
    y = fill(zero(eltype(x)), size(I)...)
    for k in 1:length(I)
        y[k] = x[I[k]]
    end
    return y
end

# `A[:, J]`, `A[i, J]`, `A[I, :]`, `A[I, j]` with an index matrix: Julia's result has the
# shapes of the indices in order (`A[:, J]` is `size(A, 1) × size(J)...`, an `Int` adds none).
getindex(A::Matrix, ::Colon, J::Matrix{Int}) =
    [A[i, J[p, q]] for i in 1:size(A, 1), p in 1:size(J, 1), q in 1:size(J, 2)]
getindex(A::Matrix, i::Int, J::Matrix{Int}) = [A[i, j] for j in J]
getindex(A::Matrix, I::Matrix{Int}, ::Colon) =
    [A[I[p, q], j] for p in 1:size(I, 1), q in 1:size(I, 2), j in 1:size(A, 2)]
getindex(A::Matrix, I::Matrix{Int}, j::Int) = [A[i, j] for i in I]

# `A[I, J]` for Vectors of row and column indices: a new Matrix.
function _pick(A::Matrix, I::Vector{Int}, J::Vector{Int})
    B = _matrix(A, length(I), length(J))
    for q in 1:length(J)
        for p in 1:length(I)
            B[p, q] = A[I[p], J[q]]
        end
    end
    return B
end

# `A[I, j]` and `A[i, J]`: a new Vector.
function _pick(A::Matrix, I::Vector{Int}, j::Int)
    y = _vector(A, length(I))
    for p in 1:length(I)
        y[p] = A[I[p], j]
    end
    return y
end

function _pick(A::Matrix, i::Int, J::Vector{Int})
    y = _vector(A, length(J))
    for q in 1:length(J)
        y[q] = A[i, J[q]]
    end
    return y
end

getindex(x::Array, I::Vector{Int}) = (checkbounds(x, I); _slice(x, I))
getindex(x::Array, m::Vector{Bool}) = _slice(x, _index_list(x, 0, m))
getindex(x::Array, m::Matrix{Bool}) = _slice(x, _index_list(x, 0, m))
getindex(A::Matrix, I::Vector, J::Vector) = _pick(A, _index_list(A, 1, I), _index_list(A, 2, J))
getindex(A::Matrix, I::Vector, J) = _pick(A, _index_list(A, 1, I), _index_list(A, 2, J))
getindex(A::Matrix, I, J::Vector) = _pick(A, _index_list(A, 1, I), _index_list(A, 2, J))
getindex(A::Matrix, I::Vector, j::Int) = _pick(A, _index_list(A, 1, I), j)
getindex(A::Matrix, i::Int, J::Vector) = _pick(A, i, _index_list(A, 2, J))

# `x[I] = v`: the elements of `v` in order into the listed places.
function _place!(x::Array, v, I::Vector{Int})
    if length(v) != length(I)
        throw(DimensionMismatch("tried to assign $(length(v)) elements to $(length(I)) destinations"))
    end
    for k in 1:length(I)
        x[I[k]] = v[k]
    end
    return x
end

function _place!(x::Array, v::Real, I::Vector{Int})
    throw(ArgumentError("indexed assignment with a single value to possibly many locations is not supported; perhaps use broadcasting `.=` instead?"))
end

function _pick!(A::Matrix, B, I::Vector{Int}, J::Vector{Int})
    if size(B, 1) != length(I) || size(B, 2) != length(J)
        throw(DimensionMismatch("tried to assign a $(size(B, 1))×$(size(B, 2)) array to a $(length(I))×$(length(J)) destination"))
    end
    for q in 1:length(J)
        for p in 1:length(I)
            A[I[p], J[q]] = B[p, q]
        end
    end
    return A
end

setindex!(x::Array, v, I::Vector{Int}) = _place!(x, v, I)
setindex!(x::Array, v, m::Vector{Bool}) = _place!(x, v, _index_list(x, 0, m))
setindex!(x::Array, v, m::Matrix{Bool}) = _place!(x, v, _index_list(x, 0, m))
setindex!(A::Matrix, B, I::Vector, J::Vector) = _pick!(A, B, _index_list(A, 1, I), _index_list(A, 2, J))
setindex!(A::Matrix, B, I::Vector, J) = _pick!(A, B, _index_list(A, 1, I), _index_list(A, 2, J))
setindex!(A::Matrix, B, I, J::Vector) = _pick!(A, B, _index_list(A, 1, I), _index_list(A, 2, J))

# `view(x, I)` and `x[I] .= v` for a Vector of indices or a mask: a view whose indices are
# that Vector (checked against the parent's bounds once, as Julia's `view` does), read by
# Cartesian indices as Julia's.
function view(x::Array, I::Vector{Int})
    for k in 1:length(I)
        x[I[k]]
    end
    return SubArray(x, I, IndexCartesian())
end
view(x::Array, m::Vector{Bool}) = SubArray(x, _index_list(x, 0, m), IndexCartesian())
view(x::Array, m::Matrix{Bool}) = SubArray(x, _index_list(x, 0, m), IndexCartesian())

# Rows and columns as views, for `for r in eachrow(A)` and comprehensions (a `for` loop
# iterates by `length` and `getindex`): each row or column is a SubArray of `A`, so reading it
# reads `A` and writing it writes `A`.

"""
    RowSlices{M}, ColumnSlices{M}

The rows (columns) of the matrix `parent`, each a view (Julia's `Slices` of `eachrow` and
`eachcol`).
"""
struct RowSlices{M}
    parent::M
end

struct ColumnSlices{M}
    parent::M
end

"""
    eachrow(A), eachcol(A)

The rows (columns) of the matrix `A`, each a view of `A`, in order.
"""
eachrow(A::Matrix) = RowSlices(A)
eachcol(A::Matrix) = ColumnSlices(A)

length(s::RowSlices) = size(s.parent, 1)
length(s::ColumnSlices) = size(s.parent, 2)
size(s::RowSlices) = (length(s),)
size(s::ColumnSlices) = (length(s),)
getindex(s::RowSlices, k::Int) = view(s.parent, k, :)
getindex(s::ColumnSlices, k::Int) = view(s.parent, :, k)

# Reductions and maps over the rows or columns (`sum(norm, eachcol(A))`), in order.
sum(f, s::RowSlices) = sum(f(s[k]) for k in 1:length(s))
sum(f, s::ColumnSlices) = sum(f(s[k]) for k in 1:length(s))
maximum(f, s::RowSlices) = maximum(f(s[k]) for k in 1:length(s))
maximum(f, s::ColumnSlices) = maximum(f(s[k]) for k in 1:length(s))
minimum(f, s::RowSlices) = minimum(f(s[k]) for k in 1:length(s))
minimum(f, s::ColumnSlices) = minimum(f(s[k]) for k in 1:length(s))
map(f, s::RowSlices) = [f(s[k]) for k in 1:length(s)]
map(f, s::ColumnSlices) = [f(s[k]) for k in 1:length(s)]
# `f.(eachcol(A))`: Julia's slices are an AbstractVector, so the broadcast calls `f` on each.
broadcast(f, s::RowSlices) = map(f, s)
broadcast(f, s::ColumnSlices) = map(f, s)
# Julia's slices are an AbstractVector of views: `sum(eachcol(A))` adds them from the left
# into a new array, and `collect` is a Vector of the views, each reading and writing `A`.
sum(s::RowSlices) = _slices_sum(s)
sum(s::ColumnSlices) = _slices_sum(s)
collect(s::RowSlices) = _collect_slices(s)
collect(s::ColumnSlices) = _collect_slices(s)
_collect_slices(s) = [s[k] for k in 1:length(s)]

# `reduce(vcat, [a, b, ...])` of a literal (lowered so): with a row or a transposed matrix among
# the elements (`x'`, `transpose(x)`, `A'`), Julia's result `vcat(a, b, ...)` without the
# vector of these wrappers, which zy's arrays do not hold; else the reduce of the literal.
_reduce_cat(cat, xs...) = _reduce_cat_rows(_has_row(xs...), cat, xs...)
_has_row() = Val(false)
_has_row(x::Union{Adjoint, Transpose, AdjointMatrix, TransposeMatrix}, xs...) = Val(true)
_has_row(x, xs...) = _has_row(xs...)
_reduce_cat_rows(::Val{true}, cat, xs...) = cat(xs...)
_reduce_cat_rows(::Val{false}, cat, xs...) = reduce(cat, [xs...])
# `reduce(vcat, [x' for x in xs])`, `reduce(vcat, transpose.(xs))` and `vcat(adjoint.(xs)...)`
# (lowered so): Julia's `reduce(vcat, rows)`, the matrix whose `i`th row is `f(xs[i])`, made
# without the vector of rows; rows of different lengths are Julia's `DimensionMismatch`, which
# shows their widths as a vector (`_typed_vcat` maps the vector of rows) or, for
# `vcat(rows...)` (`splatted`), a tuple.
function _stack_rows(f, xs, splatted::Bool)
    items = collect(xs)
    n = length(items)
    n == 0 && error("unsupported: stacking no rows (`reduce(vcat, ...)` of an empty vector of rows)")
    first_row = f(items[1])
    m = length(first_row)
    A = _matrix([first_row[1]], n, m)
    for i in 1:n
        row = i == 1 ? first_row : f(items[i])
        if length(row) != m
            widths = join([length(f(x)) for x in items], ", ")
            shown = splatted ? "($widths)" : "[$widths]"
            throw(DimensionMismatch("number of columns of each array must match (got $shown)"))
        end
        for j in 1:m
            A[i, j] = row[j]
        end
    end
    return A
end

# `hcat(eachcol(A)...)`, `vcat(eachrow(A)...)`: Julia splats the views, then concatenates
# them; zy concatenates copies of them one by one (no vector of views is made). `hcat()` of no
# slices is Julia's `Any[]`, which zy does not hold.
_splat_vcat(s::Union{RowSlices, ColumnSlices}) = _slices_cat(vcat, s)
_splat_hcat(s::Union{RowSlices, ColumnSlices}) = _slices_cat(hcat, s)
function _slices_cat(cat, s)
    length(s) == 0 && error("unsupported: splatting no slices into `vcat`/`hcat` (Julia's `Any[]`)")
    acc = cat(collect(s[1]))
    for k in 2:length(s)
        acc = cat(acc, collect(s[k]))
    end
    return acc
end

function _slices_sum(s)
    length(s) == 0 && throw(ArgumentError("reducing over an empty collection is not allowed; consider supplying `init` to the reducer"))
    acc = collect(s[1])
    for k in 2:length(s)
        acc = acc + s[k]
    end
    return acc
end

# Views of matrix blocks and of N-dimensional arrays (`view(A, 1:2, :)`, `view(A, :, :, k)`,
# `@views A[1:2, 2:3]`, `selectdim`, `eachslice`): a SubArray whose `indices` is an array of
# the parent's linear indices with the view's own shape (a Matrix for a block, a Vector for a
# fiber), so reading and writing it by linear or Cartesian index reads and writes the parent,
# and the AD reverses those writes as any other. An index is an `Int` (the dimension is
# dropped), `:`, a range, a `Vector{Int}` or a Bool mask.

"""
    view(A, I, J), view(A, I, J, K)

The block `A[I, J]` (`A[I, J, K]`) of a matrix (3-dimensional array) as a view of `A`: a
dimension indexed by an `Int` is dropped, so `view(A, :, :, k)` is a matrix and
`view(A, i, :, k)` a vector.
"""
view(A::Matrix, I, J) = _view(A, _view_indices(A, _view_list(A, 1, I), _view_list(A, 2, J)), I, J)
view(A::Array{T, 3}, I, J, K) where {T} = _view(A, _view_indices(A, _view_list(A, 1, I), _view_list(A, 2, J), _view_list(A, 3, K)), I, J, K)

# The view of `A` at the block's linear indices `L`, with the dimensions indexed by an `Int`
# dropped, marked with the `IndexStyle` Julia gives a view by such indices.
_view(A, L, I...) = SubArray(A, _view_shape(L, _view_dims((), L, 1, I...)), _view_indexing(I...))

# Julia's `viewindexing`: a view of an Array is read by one linear index (its `FastSubArray`)
# where, after leading `Int`s, whole dimensions (`:`) come first, then at most one range (a
# unit range after a `:`), then `Int`s only: `view(A, :, 1:2)`, `view(A, 1:2, 1)`,
# `view(A, :, :, k)`. Others (`view(A, 1:2, 1:2)`, `view(A, :, 1, :)`, a list of indices)
# are read by Cartesian indices.
_view_indexing() = IndexLinear()
_view_indexing(::Int, I...) = _view_indexing(I...)
_view_indexing(::Colon, ::Colon, I...) = _view_indexing(Colon(), I...)
_view_indexing(::Colon, ::UnitRange{Int}, I::Int...) = IndexLinear()
_view_indexing(::Union{Colon, AbstractRange{Int}}, I::Int...) = IndexLinear()
_view_indexing(I...) = IndexCartesian()

# The positions an index selects in dimension `d` of `A`, after checking they are in bounds.
_view_list(A, d::Int, i::Int) = _view_check(A, d, [i])
_view_list(A, d::Int, I) = _view_check(A, d, _index_list(A, d, I))

function _view_check(A, d::Int, P::Vector{Int})
    for i in P
        if i < 1 || i > size(A, d)
            error(:BoundsError, "attempt to access an array of size $(size(A)) at index $i in dimension $d")
        end
    end
    return P
end

# The sizes of the dimensions of `L` from `d` on that the indices keep (those not indexed by
# an `Int`), after those in `acc`.
_view_dims(acc, L, d::Int) = acc
_view_dims(acc, L, d::Int, i::Int, rest...) = _view_dims(acc, L, d + 1, rest...)
_view_dims(acc, L, d::Int, I, rest...) = _view_dims((acc..., size(L, d)), L, d + 1, rest...)

# The linear indices of the block `A[P, Q]` (`A[P, Q, R]`) as an array of the block's shape.
function _view_indices(A::Matrix, P::Vector{Int}, Q::Vector{Int})
    m = size(A, 1)
    L = fill(0, length(P), length(Q))
    for q in 1:length(Q), p in 1:length(P)
        L[p, q] = P[p] + (Q[q] - 1) * m
    end
    return L
end

function _view_indices(A::Array, P::Vector{Int}, Q::Vector{Int}, R::Vector{Int})
    m, n = size(A, 1), size(A, 2)
    L = fill(0, length(P), length(Q), length(R))
    for r in 1:length(R), q in 1:length(Q), p in 1:length(P)
        L[p, q, r] = P[p] + (Q[q] - 1) * m + (R[r] - 1) * m * n
    end
    return L
end

# `L` shaped as the kept dimensions `dims`.
_view_shape(L, dims::Tuple{}) = error("unsupported: a view of one element (every index an Int); read the element `A[i, j]`")
_view_shape(L, dims::Tuple{Int}) = _reshape(L, dims[1])
_view_shape(L::Matrix, dims::Tuple{Int, Int}) = L
_view_shape(L, dims::Tuple{Int, Int}) = _reshape(L, dims[1], dims[2])
_view_shape(L, dims::Tuple{Int, Int, Int}) = L

"""
    selectdim(A, d, i)

The view of `A` with index `i` (an `Int` or a range) in dimension `d` and `:` in the others:
`selectdim(A, 3, k)` is `view(A, :, :, k)`.
"""
function selectdim(x::Vector, d::Int, i)
    _selectdim_check(x, d, 1)
    return view(x, i)
end
function selectdim(A::Matrix, d::Int, i)
    _selectdim_check(A, d, 2)
    return d == 1 ? view(A, i, :) : view(A, :, i)
end
function selectdim(A::Array{T, 3}, d::Int, i) where {T}
    _selectdim_check(A, d, 3)
    # The three views are one type, whose `IndexStyle` is not kept (Julia's differ).
    return d == 1 ? _unmarked(view(A, i, :, :)) :
        (d == 2 ? _unmarked(view(A, :, i, :)) : _unmarked(view(A, :, :, i)))
end
_unmarked(v::SubArray) = SubArray(v.parent, v.indices)
function _selectdim_check(A, d::Int, n::Int)
    d < 1 && throw(ArgumentError("dimension $d must be ≥ 1"))
    d > n && error("unsupported: `selectdim` in dimension $d of an array of $n dimensions")
    return nothing
end

"""
    eachslice(A; dims)

The slices of `A` along dimension `dims` (an `Int`, or a tuple of one), each a view
(`selectdim(A, dims, k)` for `k` in `axes(A, dims)`), as Julia 1.9's `Slices`; `eachrow` and
`eachcol` of a 3-dimensional array are `eachslice` along 1 and 2.
"""
struct Slices{P}
    parent::P
    dim::Int
end

eachslice(A::Array; dims) = Slices(A, _slice_dim(A, dims))
_slice_dim(A, d::Int) = 1 <= d <= ndims(A) ? d : throw(ArgumentError("invalid dimension $d for an array of $(ndims(A)) dimensions"))
_slice_dim(A, d::Tuple{Int}) = _slice_dim(A, d[1])
_slice_dim(A, d::Tuple) = error("unsupported: `eachslice` along several dimensions; write a loop over `selectdim` or `view`")
eachrow(A::Array{T, 3}) where {T} = Slices(A, 1)
eachcol(A::Array{T, 3}) where {T} = Slices(A, 2)

length(s::Slices) = size(s.parent, s.dim)
size(s::Slices) = (length(s),)
getindex(s::Slices, k::Int) = selectdim(s.parent, s.dim, k)
sum(f, s::Slices) = sum(f(s[k]) for k in 1:length(s))
maximum(f, s::Slices) = maximum(f(s[k]) for k in 1:length(s))
minimum(f, s::Slices) = minimum(f(s[k]) for k in 1:length(s))
map(f, s::Slices) = [f(s[k]) for k in 1:length(s)]
sum(s::Slices) = _slices_sum(s)
collect(s::Slices) = _collect_slices(s)

# Views of views (`view(W, 1, :)` of `W = reshape(θ, 2, 3)`, `eachrow` of a block): a view of
# the same parent at the selected indices of the view's own, so writes still reach the parent.
view(v::SubArray, I) = _subview(v, v.indices[I])
view(v::SubArray, I, J) = _subview(v, v.indices[I, J])
view(v::SubArray, I, J, K) = _subview(v, v.indices[I, J, K])
_subview(v::SubArray, L::Int) = error("unsupported: a view of one element (every index an Int); read the element `v[i]`")
_subview(v::SubArray, L) = SubArray(v.parent, L)
# `V[I, J] = B` for a view `V` (`W[1, :] = v` of `W = reshape(θ, 2, 3)`): the elements of `B`
# into the view's selected elements, in order (`DimensionMismatch` when the counts differ).
function setindex!(v::SubArray, B::AbstractArray, I, J)
    _view_assign!(view(v, I, J), B)
    return v
end
function setindex!(v::SubArray, B::AbstractArray, I, J, K)
    _view_assign!(view(v, I, J, K), B)
    return v
end
function _view_assign!(w::SubArray, B)
    if length(w) != length(B)
        error(:DimensionMismatch, "the number of elements assigned differs from the number of destinations")
    end
    for k in 1:length(B)
        w[k] = B[k]
    end
    return w
end
maybeview(v::SubArray, i::Int) = v[i]
maybeview(v::SubArray, i::Int, j::Int) = v[i, j]
maybeview(v::SubArray, i::Int, j::Int, k::Int) = v[i, j, k]
maybeview(v::SubArray, I) = view(v, I)
maybeview(v::SubArray, I, J) = view(v, I, J)
maybeview(v::SubArray, I, J, K) = view(v, I, J, K)
eachrow(v::SubArray) = _view_rows(v, v.indices)
eachcol(v::SubArray) = _view_cols(v, v.indices)
_view_rows(v, L::Matrix{Int}) = RowSlices(v)
_view_rows(v, L::Array{Int, 3}) = Slices(v, 1)
_view_cols(v, L::Matrix{Int}) = ColumnSlices(v)
_view_cols(v, L::Array{Int, 3}) = Slices(v, 2)
eachslice(v::SubArray; dims) = Slices(v, _slice_dim(v, dims))
selectdim(v::SubArray, d::Int, i) = _selectdim_view(v, v.indices, d, i)
function _selectdim_view(v, L::Matrix{Int}, d::Int, i)
    _selectdim_check(v, d, 2)
    return d == 1 ? view(v, i, :) : view(v, :, i)
end
function _selectdim_view(v, L::Array{Int, 3}, d::Int, i)
    _selectdim_check(v, d, 3)
    return d == 1 ? view(v, i, :, :) : (d == 2 ? view(v, :, i, :) : view(v, :, :, i))
end
function _selectdim_view(v, L, d::Int, i)
    _selectdim_check(v, d, 1)
    return view(v, i)
end

# The differentiation builtins under names that the prelude's `ForwardDiff` and `Zygote`
# modules call (inside them, `gradient` names their own function).
_ad_gradient(f, args...) = gradient(f, args...)
_ad_pullback(f, args...) = pullback(f, args...)
_ad_derivative(f, x) = derivative(f, x)
_ad_hessian(f, x) = hessian(f, x)
_ad_jacobian(f, args...) = jacobian(f, args...)

# `hessian` and `hvp` of a function of a Float32 vector (inference calls these): forward over
# reverse as of a Float64 one, the gradient pushed forward along each unit vector (along `v`),
# in Float32 (Zygote's, whose dual numbers hold Float32 partials).
function _hessian_single(f, x::Vector{Float32})
    n = length(x)
    H = zeros(Float32, n, n)
    dx = zeros(Float32, n)
    for i in 1:n
        dx[i] = 1f0
        column = _hvp_single(f, x, dx)
        for k in 1:n
            H[k, i] = column[k]
        end
        dx[i] = 0f0
    end
    return H
end
_hvp_single(f, x::Vector{Float32}, v::Vector{Float32}) = _hvp_column(pushforward(t -> gradient(f, t)[1], x, v), x)
_hvp_column(ẏ::Vector{Float32}, x) = ẏ
_hvp_column(ẏ::Nothing, x) = zero(x)

# `derivative(f, x)` of an `f` returning a view or a shared reshape (inference calls this): the
# plain array of the entries' derivatives, as ForwardDiff's, not the view's structural tangent.
function _view_derivative(f, x)
    y, ẏ = jvp(f, x, 1.0)
    return collect(SubArray(ẏ.parent, y.indices, y.reshaped))
end

"""
    jacobian(f, args...)

The Jacobian of `f` at `args`, one per argument (Zygote's convention). With `y = f(args...)`
seen as a vector (a number is a vector of length 1, an array is taken in storage order): for a
`Float64` argument `x`, a vector `J` with `J[k] = ∂y[k]/∂x`; for a `Float64` array argument `a`,
a matrix with `J[k, i] = ∂y[k]/∂a[i]` (one row for a number result); for any other argument
`nothing`; of a `Float32` or an array of them, the same in `Float32` (by reverse mode).
Computed by forward mode, one pushforward per entry of the arguments, when they have
at most as many entries as `y`, else by reverse mode, one gradient per entry of `y`.
"""
function jacobian(f, args...)
    y = f(args...)
    g = _jac_plain(f, y)
    m = _jac_length(y)
    return _jacobian(_jac_single(args...), g, m, args)
end

function _jacobian(::Val{false}, g, m, args)
    if _jac_inputs(args...) <= m
        return _jac_forward(g, m, (), (), args...)
    end
    return _jac_reverse(g, m, args)
end

# With a Float32 argument or an array of them, whose Jacobian is in Float32 (Zygote's), by
# reverse mode, as Zygote's.
_jacobian(::Val{true}, g, m, args) = _jac_reverse(g, m, args)

_jac_single() = Val(false)
_jac_single(x::Float32, rest...) = Val(true)
_jac_single(x::AbstractArray{Float32}, rest...) = Val(true)
_jac_single(x, rest...) = _jac_single(rest...)

# `f`, or of an `f` returning a view (or a shared reshape) one returning the plain array of its
# elements, whose tangent is an array (the view's is `(parent = ...)`).
_jac_plain(f, y) = f
_jac_plain(f, y::SubArray) = (a...) -> collect(f(a...))

_jac_length(y::Real) = 1
_jac_length(y::AbstractArray) = length(y)
_jac_length(y) = throw(ArgumentError("jacobian expected a function which returns an array, or a scalar"))

# The entries of the arguments that have a Jacobian.
_jac_inputs() = 0
_jac_inputs(x, rest...) = _jac_size(x) + _jac_inputs(rest...)
_jac_size(x::Float64) = 1
_jac_size(x::AbstractArray{Float64}) = length(x)
_jac_size(x) = 0

# Forward mode: each argument in turn varies (the others held), one column per entry; `done`
# holds the Jacobians of the arguments `before`.
_jac_forward(f, m, before, done) = done
_jac_forward(f, m, before, done, x, after...) = _jac_forward(f, m, tuple(before..., x),
    tuple(done..., _jac_columns(t -> f(before..., t, after...), x, m)), after...)

function _jac_columns(g, x::Float64, m)
    J = zeros(m)
    ẏ = pushforward(g, x, 1.0)
    for k in 1:m
        J[k] = _jac_entry(ẏ, k)
    end
    return J
end

# One direction array for all the columns: entry `i` set for column `i`, and every entry
# cleared after it (the pushforward may have written the direction of an argument `g` writes).
function _jac_columns(g, x::AbstractArray{Float64}, m)
    J = zeros(m, length(x))
    dx = zero(x)
    for i in 1:length(x)
        dx[i] = 1.0
        ẏ = pushforward(g, x, dx)
        for k in 1:m
            J[k, i] = _jac_entry(ẏ, k)
        end
        _jac_clear!(dx)
    end
    return J
end

# A vector argument: chunks of at most `_jac_chunk_width` columns, each from one pushforward of
# that many unit directions at once (`_jac_chunk`); one chunk is the Jacobian itself.
function _jac_columns(g, x::Vector{Float64}, m)
    n = length(x)
    width = _jac_chunk_width(n)
    if n <= width
        return _jac_chunk(g, x, m, 1, n)
    end
    J = zeros(m, n)
    lo = 1
    while lo <= n
        k = min(width, n - lo + 1)
        C = _jac_chunk(g, x, m, lo, k)
        for j in 1:k
            for r in 1:m
                J[r, lo + j - 1] = C[r, j]
            end
        end
        lo += k
    end
    return J
end

# Columns `lo` to `lo + k - 1` of the Jacobian, an m×k matrix: the pushforward of those unit
# directions as one chunk (`_pushforward_chunk`: the primal once, `W * x` pushed forward as the
# one product `W * D`), or one pushforward per column where the chunked transform does not
# apply to `g` (`_jac_chunk_columns`).
function _jac_chunk(g, x, m, lo, k)
    D = zeros(length(x), k)
    for j in 1:k
        D[lo + j - 1, j] = 1.0
    end
    return _pushforward_chunk(g, x, D, () -> _jac_chunk_columns(g, x, D, m))
end

# All the columns at once up to 128 inputs (an n×128 chunk), chunks of 128 above.
_jac_chunk_width(n) = min(n, 128)

# The pushforwards of `g` at `x` along the columns of `D`, one at a time: an m×k matrix.
function _jac_chunk_columns(g, x, D, m)
    C = zeros(m, size(D, 2))
    dx = zeros(length(x))
    for j in 1:size(D, 2)
        for i in 1:length(x)
            dx[i] = D[i, j]
        end
        ẏ = pushforward(g, x, dx)
        for r in 1:m
            C[r, j] = _jac_entry(ẏ, r)
        end
    end
    return C
end

function _jac_clear!(dx)
    for i in 1:length(dx)
        dx[i] = 0.0
    end
    return nothing
end

_jac_columns(g, x, m) = nothing

_jac_entry(ẏ::Real, k) = float(ẏ)
_jac_entry(ẏ::AbstractArray, k) = float(ẏ[k])
_jac_entry(ẏ::Nothing, k) = 0.0

# Reverse mode: one gradient per entry of the result, each giving a row (a gradient, not one
# `pullback` whose `back` is called per row, as Zygote does: `pullback` refuses a function that
# may write to its arguments or a global, and this method is compiled whichever mode runs).
function _jac_reverse(f, m, args)
    Js = map(x -> _jac_zeros(x, m), args)
    for k in 1:m
        _jac_rows!(Js, gradient(t -> _jac_entry(f(t...), k), args)[1], k)
    end
    return Js
end

_jac_rows!(Js, gs::Tuple, k) = map((J, g) -> _jac_row!(J, k, g), Js, gs)
_jac_rows!(Js, gs::Nothing, k) = nothing

_jac_zeros(x::Float64, m) = zeros(m)
_jac_zeros(x::AbstractArray{Float64}, m) = zeros(m, length(x))
_jac_zeros(x::Float32, m) = zeros(Float32, m)
_jac_zeros(x::AbstractArray{Float32}, m) = zeros(Float32, m, length(x))
_jac_zeros(x, m) = nothing

function _jac_row!(J::Vector, k, g::Real)
    J[k] = g
    return nothing
end
function _jac_row!(J::Matrix, k, g::AbstractArray)
    for i in 1:length(g)
        J[k, i] = g[i]
    end
    return nothing
end
_jac_row!(J, k, g) = nothing

# The binomial (Revolve) split of a `# zy: checkpoint snapshots=K` loop (analysis/lower's
# checkpoint.rs): reversing `l >= 2` steps with `s` snapshots, the first `m` steps are a
# checkpointed segment reversed later with `s` snapshots, the other `l - m` are reversed first
# with `s - 1`. The same numbers as `ad-engine/ad/src/revolve.rs`'s `split` (tested against it):
# with `t` the smallest repetition number with `β(s, t) >= l` (`β(s, t) = C(s + t, s)`),
# `m = max(β(s, t - 2), l - β(s - 1, t))`; with one snapshot, every step but the last.
function _revolve_beta(s, t, cap)
    b = 1
    hi = max(s, t)
    k = 1
    # A `while` loop: it runs once per split of the schedule, where a range's length costs more
    # than the loop.
    while k <= min(s, t)
        b = b * (hi + k) ÷ k
        if b >= cap
            return cap
        end
        k += 1
    end
    return b
end

function _revolve_split(l, s)
    if s <= 1
        return l - 1
    end
    t = 0
    while _revolve_beta(s, t, l) < l
        t += 1
    end
    left = t >= 2 ? _revolve_beta(s, t - 2, l) : 1
    return min(max(max(left, l - _revolve_beta(s - 1, t, l)), 1), l - 1)
end

# ---- Iterators: lazy views of iterables (Julia's `Base.Iterators`) ---------------------------
# zy iterates by `length` and `getindex` (see the comprehensions above), so each iterator here
# has both; `collect` of one whose elements are numbers is a Vector, as in Julia.

"""
    only(x)

The one element of `x`; an `ArgumentError` when `x` is empty or has several.
"""
function only(x)
    if length(x) == 0
        throw(ArgumentError("Collection is empty, must contain exactly 1 element"))
    elseif length(x) > 1
        throw(ArgumentError("Collection has multiple elements, must contain exactly 1 element"))
    end
    return x[1]
end

only(x::Tuple{Any}) = x[1]
only(x::Tuple) = throw(ArgumentError("Tuple contains $(length(x)) elements, must contain exactly 1 element"))

# Julia's iteration protocol for the program's structs (`Base.iterate(c::C)` and
# `Base.iterate(c::C, state)` returning `nothing` or `(item, state)`): inference lowers a
# `for` loop over such a struct by its `iterate` methods, and hands `collect`, `first`, the
# generators and the reductions over one here (collected first: the same items in the same
# order).

"""
    _collect_iterated(c)

The items `c`'s `iterate` methods yield, in order, in a Vector (Julia's `collect` of an
iterator of unknown length; its element type is the items' type, also when there are none).
"""
function _collect_iterated(c)
    v = map(k -> _first_iterated(c), fill(0, 0))
    for x in c
        push!(v, x)
    end
    return v
end

"""
    SizeUnknown(), HasLength(), HasShape{N}(), IsInfinite()

Julia's `IteratorSize` traits, what an iterator knows of its number of items: a struct's
`Base.IteratorSize(::Type{C})` method says which (`HasLength()` by default), and `collect`
consults it as Julia's does. An array, and a generator over one, has the shape of its `N`
dimensions.
"""
struct SizeUnknown end
struct HasLength end
struct HasShape{N} end
struct IsInfinite end

IteratorSize(T) = HasLength()
IteratorSize(::AbstractVector) = HasShape{1}()
IteratorSize(::AbstractMatrix) = HasShape{2}()
IteratorSize(g::Generator) = IteratorSize(g.iter)

# The trait of an iterator: its type's for a struct of the program, through the library's lazy
# iterators as Julia's `IteratorSize` of theirs.
_iterator_size(c) = IteratorSize(typeof(c))
_iterator_size(a::AbstractArray) = HasLength()
_iterator_size(t::Tuple) = HasLength()
_iterator_size(e::Enumerate) = _iterator_size(e.itr)
_iterator_size(g::Generator) = _iterator_size(g.iter)
_iterator_size(f::Filter) = SizeUnknown()

"""
    _collect_sized(c, shown)

Julia's `collect(c)` of a struct with `iterate` methods or a lazy iterator around one, by its
`IteratorSize` (`shown`: `c`'s type, for the error): the items pushed one by one when its
size is unknown; `length(c)` first when it has one (Julia's `MethodError` without a
`Base.length` method; an item beyond `length(c)` is Julia's `ArgumentError`, and fewer items,
whose missing places Julia leaves undefined, are refused); an endless one is Julia's
`MethodError`.
"""
_collect_sized(c, shown::String) = _collect_sized(c, _iterator_size(c), shown)
_collect_sized(c, ::SizeUnknown, shown::String) = _collect_iterated(c)
_collect_sized(c, ::IsInfinite, shown::String) = _infinite(c, shown)
function _collect_sized(c, ::HasLength, shown::String)
    n = length(c)
    v = map(k -> _first_iterated(c), fill(0, 0))
    for x in c
        length(v) == n && throw(ArgumentError("destination has fewer elements than required"))
        push!(v, x)
    end
    length(v) == n || error("unsupported: `collect` of a $shown that yields $(length(v)) items where its `length` is $n (Julia leaves the other places of its array undefined)")
    return v
end
_infinite(c, shown) = error(:MethodError, "no method matching _collect(::UnitRange{Int64}, ::$shown, ::Base.HasEltype, ::Base.IsInfinite)")
_infinite(g::Generator, shown) = error(:MethodError, "no method matching _similar_shape(::$shown, ::Base.IsInfinite)")

# An iterable as `Iterators.flatten` reads it: a struct with `iterate` methods by its items
# collected (inference), any other as it is.
_iterated_items(x) = x

"""
    HasEltype(), EltypeUnknown()

Julia's `IteratorEltype` traits: whether an iterator's `eltype` is its items' type. A struct
that declares `Base.eltype(::Type{C})` (`HasEltype()` by default) is collected into a Vector of
that type, its items converted, as Julia's `collect` does.
"""
struct HasEltype end
struct EltypeUnknown end

IteratorEltype(T) = HasEltype()

# `collect(c)` of a struct `S` with `iterate` methods and a `Base.eltype(::Type{S})` method
# (inference passes `S` when `c` is one, or a lazy iterator keeping its element type around
# one): Julia's Vector of `eltype(S)` unless `S` says `EltypeUnknown()`.
_collect_sized(c, shown::String, S) = _with_eltype(_collect_sized(c, shown), IteratorEltype(S), S)
_with_eltype(v, ::HasEltype, S) = _items_as(eltype(S), v)
_with_eltype(v, ::EltypeUnknown, S) = v
_items_as(T::Type{Float64}, v) = _vector_of(T, v)
_items_as(T::Type{Int}, v) = _vector_of(T, v)
_items_as(T, v) = T == eltype(v) ? v : error("unsupported: `collect` of an iterator whose `Base.eltype` is $T and whose items are $(eltype(v)) (Julia's is a `Vector{$T}`)")

"""
    _first_iterated(c)

The first item `c`'s `iterate` methods yield (`iterate(c)` only: `c` may be endless).
"""
function _first_iterated(c)
    for x in c
        return x
    end
    throw(ArgumentError("collection must be non-empty"))
end

# Julia's consumers that stop early, over such a struct: no item is asked for after the one
# that decides (the struct may be endless).

"""
    _items_upto(c, n)

The first `n` items `c`'s `iterate` methods yield (fewer when it ends first), in a Vector:
Julia's `collect(Iterators.take(c, n))`, which asks for no item after the `n`th.
"""
function _items_upto(c, n::Int)
    n < 0 && throw(ArgumentError("Take length must be nonnegative"))
    v = map(k -> _first_iterated(c), fill(0, 0))
    n == 0 && return v
    for x in c
        push!(v, x)
        length(v) == n && break
    end
    return v
end

# The library's lazy iterators around such a struct (`enumerate`, generators, `Iterators.filter`,
# `Iterators.take`, ... nested): inference lowers a loop over one around the struct's inlined
# `iterate` methods, each iterator keeping a state from `_lazy_start(it)`, asked by
# `_lazy_more(it, state)` whether it may ask its source for another item (Julia's `Take` asks
# for none after its `n`th), and making its item of its source's by
# `_lazy_step(it, state, y) = (keep, item, state, stop)`: the item, or `keep = false` to skip
# it (a filter), or `stop` to end the loop (`takewhile`). Each is called as Julia's `iterate`
# of the iterator would call its functions: once per item, in order, never after the end.
_lazy_start(it) = 0
_lazy_more(it, state) = true
_lazy_start(e::Enumerate) = 1
_lazy_step(e::Enumerate, i, y) = (true, (i, y), i + 1, false)
_lazy_step(g::Generator, state, y) = (true, g.f(y), state, false)
_lazy_step(f::Filter, state, y) = (f.flt(y), y, state, false)

"""
    _any_iterated(pred, c), _all_iterated(pred, c)

Julia's `any` and `all` over the items of `c`, stopping at the first that decides.
"""
function _any_iterated(pred, c)
    for x in c
        pred(x) && return true
    end
    return false
end
_any_iterated(c) = _any_iterated(identity, c)
function _all_iterated(pred, c)
    for x in c
        pred(x) || return false
    end
    return true
end
_all_iterated(c) = _all_iterated(identity, c)

"""
    _in_iterated(x, c)

Julia's `x in c`: whether an item of `c` is `== x`, stopping at the first.
"""
_in_iterated(x, c) = _any_iterated(y -> y == x, c)

"""
    _nth_iterated(c, i, shown)

The `i`th item of `c`, as destructuring `a, b = c` takes it (Julia's `indexed_iterate`
falling back to `iterate`): a `BoundsError` when `c` ends before it (`shown`: `c`'s type).
"""
function _nth_iterated(c, i::Int, shown::String)
    k = 0
    for x in c
        k += 1
        k == i && return x
    end
    _too_few(shown, i)
end
# A generator's items in zy are its collected ones (the same values as Julia's iteration).
function _nth_iterated(g::Generator, i::Int, shown::String)
    items = collect(g)
    i <= length(items) || _too_few(shown, i)
    return items[i]
end
_too_few(shown, i) = error(:BoundsError, "attempt to access $shown at index [$i]")

# `string(v)` and `repr(v)` of a Vector or tuple holding structs with `Base.show` methods of
# the program: Julia's `show` of the container (`T[a, b]`, `(a, b)`, `(a,)`), each element as
# `repr` writes it (inference calls the program's method there).
function _show_vector(prefix, v)
    s = string(prefix, "[")
    for k in 1:length(v)
        s = k == 1 ? string(s, repr(v[k])) : string(s, ", ", repr(v[k]))
    end
    return string(s, "]")
end
# A value with its text, for the display of a call's result (Julia's REPL shows it as
# `text/plain`, by `show(io, x)` unless a method for that MIME type is defined).
_with_repr(x) = (x, repr("text/plain", x))
# `show` of a dictionary, `prefix` its type where Julia names it (`Dict{Int64, Any}`).
function _show_dict(prefix, d)
    s = string(prefix, "(")
    k = 0
    for (a, b) in d
        s = string(s, k == 0 ? "" : ", ", repr(a), " => ", repr(b))
        k += 1
    end
    return string(s, ")")
end
function _show_tuple(t)
    s = "("
    k = 0
    for x in t
        s = k == 0 ? string(s, repr(x)) : string(s, ", ", repr(x))
        k += 1
    end
    return k == 1 ? string(s, ",)") : string(s, ")")
end

"""
    Iterators

Julia's lazy iterators: `take`, `drop`, `reverse`, `countfrom`, `partition`, `product`,
`flatten`, `filter`, `map`, and `Iterators.only`.
"""
module Iterators

"""
    Take(xs, n)

The first `n` elements of `xs` (`Iterators.take`).
"""
struct Take{I}
    xs::I
    n::Int
end

"""
    take(xs, n)

The lazy iterator over at most the first `n` elements of `xs`; `n < 0` is an `ArgumentError`.
"""
function take(xs, n::Int)
    if n < 0
        throw(ArgumentError("Take length must be nonnegative"))
    end
    return Take(xs, n)
end

"""
    Drop(xs, n)

The elements of `xs` after its first `n` (`Iterators.drop`).
"""
struct Drop{I}
    xs::I
    n::Int
end

"""
    drop(xs, n)

The lazy iterator over the elements of `xs` after its first `n`; `n < 0` is an
`ArgumentError`.
"""
function drop(xs, n::Int)
    if n < 0
        throw(ArgumentError("Drop length must be nonnegative"))
    end
    return Drop(xs, n)
end

"""
    Reverse(itr)

The elements of `itr` from the last to the first (`Iterators.reverse`).
"""
struct Reverse{T}
    itr::T
end

"""
    reverse(itr)

The lazy iterator over `itr` backwards (no copy, unlike `Base.reverse`).
"""
reverse(itr) = Reverse(itr)
reverse(r::UnitRange) = Base.reverse(r)
reverse(r::StepRange) = Base.reverse(r)
reverse(g::Base.Generator) = Base.Generator(g.f, reverse(g.iter))
reverse(r::Reverse) = r.itr

"""
    Count(start, step)

The endless `start, start + step, start + 2step, ...` (`Iterators.countfrom`).
"""
struct Count{T, S}
    start::T
    step::S
end
Base.eltype(c::Count{T, S}) where {T, S} = typeof(c.start + c.step)

"""
    countfrom(start = 1, step = 1)

The endless arithmetic sequence from `start`; take a finite part with `take`.
"""
countfrom() = Count(1, 1)
countfrom(start) = Count(start, oneunit(start))
countfrom(start, step) = Count(start, step)

"""
    PartitionIterator(c, n)

`c` in consecutive parts of `n` elements, the last one shorter (`Iterators.partition`).
"""
struct PartitionIterator{T}
    c::T
    n::Int
end

"""
    partition(c, n)

The consecutive parts of `n` elements of the vector `c`, each a view of `c` (the last holds
what remains); `n < 1` is an `ArgumentError`.
"""
function partition(c, n::Int)
    if n < 1
        throw(ArgumentError("cannot create partitions of length $n"))
    end
    return PartitionIterator(c, n)
end

"""
    product(a, b)

The pairs `(x, y)` of elements of `a` and `b`, `x` varying fastest (`Base.product`).
"""
product(a, b) = Base.product(a, b)

"""
    Product3(a, b, c)

`product(a, b, c)`: the triples `(x, y, z)` of elements of `a`, `b` and `c`, `x` varying
fastest, then `y`.
"""
struct Product3{A, B, C}
    a::A
    b::B
    c::C
end

"""
    product(a, b, c)

The triples `(x, y, z)` of elements of `a`, `b` and `c`, `x` varying fastest: for `for`
loops, generators and reductions (a comprehension over it is
a `length(a)×length(b)×length(c)` array).
"""
product(a, b, c) = Product3(a, b, c)

"""
    flatten(t), flatten(g::Generator), flatten(v::AbstractVector)

The elements of each iterable of the tuple `t` (of the generator `g`, of the vector `v`), one
iterable after the other.
"""
flatten(t::Tuple) = Base.Flatten(_items_of_each(t...))
# Of a generator (its items iterables) or a vector of iterables: their elements, read as a
# comprehension with several `for` clauses reads them (`collect`, `sum`, ...).
flatten(g::Base.Generator) = Base.Flatten(g)
flatten(v::AbstractVector) = Base.Flatten(v)

"""
    flatmap(f, itr)

The elements of each `f(x)` for `x` in `itr`, one after the other: `flatten(f(x) for x in itr)`.
"""
flatmap(f, itr) = flatten(f(x) for x in itr)
_items_of_each(x) = (Base._iterated_items(x),)
_items_of_each(x, rest...) = (Base._iterated_items(x), _items_of_each(rest...)...)

"""
    filter(flt, itr)

The lazy iterator over the elements `x` of `itr` with `flt(x)`: for `collect`, `sum`, generators
and the other reductions; a `for` loop over it is refused (collect it first).
"""
filter(flt, itr) = Base.Filter(flt, itr)

"""
    TakeWhile(pred, xs)

The elements of `xs` up to the first for which `pred` is false (`Iterators.takewhile`).
"""
struct TakeWhile{I, P}
    pred::P
    xs::I
end

"""
    takewhile(pred, xs)

The lazy iterator over the first elements `x` of `xs` with `pred(x)`: for `collect`, `sum`
and `prod` (a `for` loop over it is refused, as over `filter`).
"""
takewhile(pred, xs) = TakeWhile(pred, xs)

"""
    DropWhile(pred, xs)

The elements of `xs` from the first for which `pred` is false on (`Iterators.dropwhile`).
"""
struct DropWhile{I, P}
    pred::P
    xs::I
end

"""
    dropwhile(pred, xs)

The lazy iterator over the elements of `xs` after those at its start with `pred(x)`: for
`collect`, `sum` and `prod` (a `for` loop over it is refused, as over `filter`).
"""
dropwhile(pred, xs) = DropWhile(pred, xs)

"""
    map(f, a), map(f, a, b)

The lazy `f(x) for x in a` (a `Generator`), with several iterables over their `zip`.
"""
map(f, a) = Base.Generator(f, a)
map(f, a, b) = Base.Generator(t -> f(t[1], t[2]), Base.zip(a, b))

"""
    only(x)

`Base.only`: the one element of `x`.
"""
only(x) = Base.only(x)

"""
    zip(a, b), zip(a, b, c), enumerate(x)

`Base.zip` and `Base.enumerate`, which Julia defines in `Iterators`.
"""
zip(a) = Base.zip(a)
zip(a, b) = Base.zip(a, b)
zip(a, b, c) = Base.zip(a, b, c)
enumerate(x) = Base.enumerate(x)

"""
    Cycle(xs)

The elements of `xs` over and over (`Iterators.cycle`).
"""
struct Cycle{I}
    xs::I
end

"""
    cycle(xs)

The endless repetition of the elements of `xs`; take a finite part with `take`.
"""
cycle(xs) = Cycle(xs)

"""
    Repeated(x)

`x` over and over (`Iterators.repeated`).
"""
struct Repeated{T}
    x::T
end

"""
    repeated(x), repeated(x, n)

`x` endlessly, or `n` times (`take(repeated(x), n)`).
"""
repeated(x) = Repeated(x)
repeated(x, n::Int) = take(Repeated(x), n)

"""
    Accumulate(f, itr, init)

The running `f(...f(f(init, x1), x2)..., xk)` over `itr` (`Iterators.accumulate`).
"""
struct Accumulate{F, I, T}
    f::F
    itr::I
    init::T
end

"""
    accumulate(f, itr; init)

The lazy running fold of `itr` by `f` from `init`: `f(init, x1)`, then `f` of that and `x2`, ...
(without `init`, refused by name: its first item is `x1` itself).
"""
accumulate(f, itr; init = Base._InitialValue()) = _lazy_accumulate(f, itr, init)
_lazy_accumulate(f, itr, init) = Accumulate(f, itr, init)
# Over an array: its items (`Base.accumulate`), the values a loop over the lazy one sees.
_lazy_accumulate(f, itr::AbstractArray, init) = Base.accumulate(f, itr; init = init)
_lazy_accumulate(f, itr::AbstractArray, ::Base._InitialValue) = Base.accumulate(f, itr)
_lazy_accumulate(f, itr, ::Base._InitialValue) = error("unsupported: `Iterators.accumulate(f, itr)` without `init` (its first item is the first of `itr`, the others `f`'s); write `Iterators.accumulate(f, itr; init = x0)`")

"""
    Rest(itr, st)

The items of `itr` from the iteration state `st` on (`Iterators.rest`).
"""
struct Rest{I, S}
    itr::I
    st::S
end

"""
    rest(itr, st), rest(itr)

The lazy iterator over the items `itr` yields from its iteration state `st` on, as
`iterate(itr, st)` continues (`itr` itself without a state). Of an array or a tuple, whose
state is the next index, the items from index `st`; of a struct with `iterate` methods, a loop
over it enters with `iterate(itr, st)`.
"""
rest(itr, st) = Rest(itr, st)
rest(itr::Rest, st) = Rest(itr.itr, st)
rest(itr) = itr
rest(a::AbstractArray, st::Int) = Drop(a, st - 1)
rest(t::Tuple, st::Int) = Drop(t, st - 1)

"""
    peel(itr)

The first element of `itr` and the lazy iterator over the rest, `(first(itr), drop(itr, 1))`
(an empty `itr`, where Julia's `peel` returns `nothing`, is refused by name).
"""
function peel(itr)
    for x in itr
        return (x, drop(itr, 1))
    end
    error("unsupported: `Iterators.peel` of an empty iterator (Julia's is `nothing`, which zy does not hold beside a tuple)")
end

Base._lazy_more(t::Take, n) = n < t.n
Base._lazy_step(t::Take, n, y) = (true, y, n + 1, false)
Base._lazy_step(d::Drop, n, y) = n < d.n ? (false, y, n + 1, false) : (true, y, n, false)
Base._lazy_step(t::TakeWhile, state, y) = (true, y, state, !t.pred(y))
Base._lazy_start(d::DropWhile) = true
Base._lazy_step(d::DropWhile, dropping, y) = dropping && d.pred(y) ? (false, y, true, false) : (true, y, false, false)
Base._lazy_start(a::Accumulate) = a.init
function Base._lazy_step(a::Accumulate, acc, y)
    acc2 = a.f(acc, y)
    return (true, acc2, acc2, false)
end

Base.length(t::Take) = _take_length(t, Base._iterator_size(t.xs))
_take_length(t, size) = min(t.n, length(t.xs))
_take_length(t, ::Base.IsInfinite) = t.n
Base.length(a::Accumulate) = length(a.itr)
Base._iterator_size(t::Take) = _take_size(Base._iterator_size(t.xs))
_take_size(size) = Base.HasLength()
_take_size(size::Base.SizeUnknown) = size
Base._iterator_size(d::Drop) = Base._iterator_size(d.xs)
Base._iterator_size(t::TakeWhile) = Base.SizeUnknown()
Base._iterator_size(d::DropWhile) = Base.SizeUnknown()
Base._iterator_size(a::Accumulate) = Base._iterator_size(a.itr)
Base._iterator_size(c::Count) = Base.IsInfinite()
Base._iterator_size(r::Rest) = _rest_size(Base._iterator_size(r.itr))
_rest_size(size) = Base.SizeUnknown()
_rest_size(size::Base.IsInfinite) = size
Base._lazy_step(r::Rest, state, y) = (true, y, state, false)
Base._iterator_size(c::Cycle) = Base.IsInfinite()
Base._iterator_size(r::Repeated) = Base.IsInfinite()
# `cycle` of an endless struct with `iterate` methods is lazy (its items are the struct's, which
# never end); a finite one's are collected first (inference), so a loop never cycles a struct.
Base._lazy_start(c::Cycle) = _cycles(Base._iterator_size(c.xs))
Base._lazy_step(c::Cycle, state, y) = (true, y, state, false)
_cycles(::Base.IsInfinite) = 0
_cycles(size) = error("unsupported: a loop over an `Iterators.Cycle` of a finite iterator made by its constructor; write `Iterators.cycle(c)`")
Base.length(t::Take{Count{T, S}}) where {T, S} = t.n
Base.length(t::Take{Cycle{I}}) where {I} = _no_items(t.xs.xs, Base._iterator_size(t.xs.xs)) ? 0 : t.n
_no_items(xs, size) = isempty(xs)
_no_items(xs, ::Base.IsInfinite) = false
Base.length(t::Take{Repeated{T}}) where {T} = t.n
# A filter's length is known only by running it: its first `n` items, asking for no more.
Base.collect(t::Take{Base.Filter{F, I}}) where {F, I} = _take_filtered(t.xs.flt, t.xs.iter, t.n)
function _take_filtered(f, iter, n::Int)
    v = Vector{eltype(iter)}()
    n == 0 && return v
    for x in iter
        if f(x)
            push!(v, x)
            length(v) == n && break
        end
    end
    return v
end
function _take_filtered(f, c::Count, n::Int)
    v = Vector{eltype(c)}()
    x = c.start + zero(c.step)
    while length(v) < n
        f(x) && push!(v, x)
        x += c.step
    end
    return v
end
Base.length(d::Drop) = max(0, length(d.xs) - d.n)
Base.length(r::Reverse) = length(r.itr)
Base.length(p::PartitionIterator) = cld(length(p.c), p.n)
Base.length(p::Product3) = length(p.a) * length(p.b) * length(p.c)
Base.size(p::Product3) = (length(p.a), length(p.b), length(p.c))
Base.length(fl::Base.Flatten{T}) where {T <: Tuple} = sum(length, fl.it)

Base._gen_elem(t::Take, k::Int) = Base._gen_elem(t.xs, _checked(t, k))
Base._gen_elem(d::Drop, k::Int) = Base._gen_elem(d.xs, d.n + _checked(d, k))
Base._gen_elem(r::Reverse, k::Int) = Base._gen_elem(r.itr, length(r.itr) - _checked(r, k) + 1)
Base._gen_elem(c::Count, k::Int) = c.start + (k - 1) * c.step
Base._gen_elem(c::Cycle, k::Int) = Base._gen_elem(c.xs, mod1(k, length(c.xs)))
Base._gen_elem(r::Repeated, k::Int) = r.x
function Base._gen_elem(p::PartitionIterator, k::Int)
    _checked(p, k)
    return view(p.c, ((k - 1) * p.n + 1):min(k * p.n, length(p.c)))
end
Base._gen_elem(fl::Base.Flatten{T}, k::Int) where {T <: Tuple} = _flat_index(_checked(fl, k), fl.it...)
function Base._gen_elem(p::Product3, k::Int)
    q = _checked(p, k) - 1
    m, n = length(p.a), length(p.b)
    return (Base._gen_elem(p.a, q % m + 1), Base._gen_elem(p.b, (q ÷ m) % n + 1),
            Base._gen_elem(p.c, q ÷ (m * n) + 1))
end

"""
    first(itr)

The first element of an iterator; an `ArgumentError` when it has none.
"""
Base.first(it::Take) = _first(it)
Base.first(it::Drop) = _first(it)
Base.first(r::Reverse) = last(r.itr)
Base.first(it::PartitionIterator) = _first(it)
Base.first(it::Base.ProductIterator) = _first(it)
Base.first(it::Product3) = _first(it)
Base.first(it::Base.Zip) = _first(it)
Base.first(it::Base.Enumerate) = _first(it)
Base.first(g::Base.Generator) = g.f(first(g.iter))
Base.first(c::Count) = c.start
Base.first(c::Cycle) = first(c.xs)
Base.first(r::Repeated) = r.x

"""
    last(r::Reverse), last(g::Generator)

The last element: `first` of the reversed iterable, `f` of the last element.
"""
Base.last(r::Reverse) = first(r.itr)
Base.last(g::Base.Generator) = g.f(last(g.iter))

_first(it) = length(it) == 0 ? throw(ArgumentError("collection must be non-empty")) : Base._gen_elem(it, 1)

# A `for` loop iterates by `length` and `getindex`, which a lazy filter has not.
Base.length(f::Base.Filter) = error("unsupported: a `for` loop over an `Iterators.filter` held in a variable (zy's loops ask for its length, known only by calling the filter, which Julia's `length` refuses too); write `Iterators.filter(f, x)` in the loop header, or loop over `collect(...)` of it")

# `k` if it indexes `it` (`1 ≤ k ≤ length(it)`), else a `BoundsError`.
function _checked(it, k::Int)
    if k < 1 || k > length(it)
        error(:BoundsError, "attempt to access $(length(it))-element iterator at index [$k]")
    end
    return k
end

# The `k`th element of the iterables one after the other.
_flat_index(k::Int, p) = p[k]
_flat_index(k::Int, p, rest...) = k <= length(p) ? p[k] : _flat_index(k - length(p), rest...)

# `collect` and the reductions of the iterators whose elements are numbers: over the elements
# in order, as Julia's do over any iterator.
Base.collect(t::Take) = Base._gen_collect(identity, t)
Base.collect(d::Drop) = Base._gen_collect(identity, d)
Base.collect(r::Reverse) = Base._gen_collect(identity, r)
Base.collect(f::Base.Filter) = Base._gen_collect(identity, f)
Base.collect(fl::Base.Flatten{T}) where {T <: Tuple} = Base._gen_collect(identity, fl)
# Their element type is their source's, so an empty one sums to zero (Julia's
# `reduce_empty` of the element type), as its collected Vector does.
Base.sum(it::Take) = sum(collect(it))
Base.sum(it::Drop) = sum(collect(it))
Base.sum(it::Reverse) = sum(collect(it))
Base.sum(it::Base.Filter) = sum(collect(it))
Base.prod(it::Take) = prod(collect(it))
Base.prod(it::Drop) = prod(collect(it))
Base.prod(it::Base.Filter) = prod(collect(it))
Base.maximum(it::Base.Filter) = maximum(collect(it))
Base.minimum(it::Base.Filter) = minimum(collect(it))

# `pred` is called on the elements in order up to the first false one, as Julia's iteration
# calls it.
function Base.collect(t::TakeWhile)
    y = Base._vector(Base._gen_results(identity, t.xs), length(t.xs))
    n = 0
    while n < length(t.xs) && t.pred(t.xs[n + 1])
        n += 1
        y[n] = t.xs[n]
    end
    return n == length(y) ? y : Base._slice(y, StepRange(1, 1, n))
end

function Base.collect(d::DropWhile)
    k = 0
    while k < length(d.xs) && d.pred(d.xs[k + 1])
        k += 1
    end
    return collect(Drop(d.xs, k))
end

Base.sum(it::TakeWhile) = sum(collect(it))
Base.sum(it::DropWhile) = sum(collect(it))
Base.prod(it::TakeWhile) = prod(collect(it))
Base.prod(it::DropWhile) = prod(collect(it))
Base.sum(f, it::Union{TakeWhile, DropWhile}) = sum(f, collect(it))
Base.prod(f, it::Union{TakeWhile, DropWhile}) = prod(f, collect(it))
Base.maximum(f, it::Union{TakeWhile, DropWhile}) = maximum(f, collect(it))
Base.minimum(f, it::Union{TakeWhile, DropWhile}) = minimum(f, collect(it))
Base.first(it::Union{TakeWhile, DropWhile}) = _first(collect(it))
Base.length(it::TakeWhile) = error("unsupported: a `for` loop over an `Iterators.takewhile` held in a variable (zy's loops ask for its length, known only by calling the predicate); write `Iterators.takewhile(p, x)` in the loop header, or loop over `collect(...)` of it")
Base.length(it::DropWhile) = error("unsupported: a `for` loop over an `Iterators.dropwhile` held in a variable (zy's loops ask for its length, known only by calling the predicate); write `Iterators.dropwhile(p, x)` in the loop header, or loop over `collect(...)` of it")

# Arrays of the tuples an iterator gives (a matrix for a product of two), as Julia's.
Base.collect(z::Base.Zip) = [t for t in z]
Base.collect(e::Base.Enumerate) = [t for t in e]
# `f.(zip(a, b))`, `zip(a, b) .|> f`, `map(f, zip(a, b))`: over the iterator's elements.
Base.broadcast(f, z::Base.Zip) = [f(t) for t in z]
Base.broadcast(f, e::Base.Enumerate) = [f(t) for t in e]
Base.map(f, z::Base.Zip) = [f(t) for t in z]
Base.map(f, e::Base.Enumerate) = [f(t) for t in e]
# Broadcasting over another lazy iterator broadcasts over its elements collected, as Julia's
# `broadcastable` collects an iterator that is no array.
Base.broadcast(f, it::Union{Take, Drop, Reverse, Base.Filter, TakeWhile, DropWhile}, ys...) = broadcast(f, collect(it), ys...)
Base.collect(p::Base.ProductIterator) = [(x, y) for x in p.a, y in p.b]
# Refused by name: a 3-dimensional array, and views as elements.
Base.collect(p::Product3) = error("unsupported: `collect(Iterators.product(a, b, c))`, a 3-dimensional array of tuples; iterate the product itself")
Base._gen_array(f, it::Product3) = Base._array3(Base._gen_results(f, it), length(it.a), length(it.b), length(it.c))
Base.collect(p::PartitionIterator) = error("unsupported: `collect(Iterators.partition(x, n))`, a vector of arrays; iterate the partition itself (`for p in Iterators.partition(x, n)`)")

# `sum(f, itr)` and the other reductions with a function of the lazy iterators (`zip`,
# `enumerate`, `Iterators.product`, `Iterators.filter`, `take`, `drop`, `reverse`, `partition`): those of the
# generator `f(x) for x in itr`, one element at a time, as Julia's `mapreduce` reads an iterator.
Base.sum(f, it::Union{Base.Zip, Base.Enumerate, Base.ProductIterator, Product3, Base.Filter, Take, Drop, Reverse, PartitionIterator}) = sum(Base.Generator(f, it))
Base.prod(f, it::Union{Base.Zip, Base.Enumerate, Base.ProductIterator, Product3, Base.Filter, Take, Drop, Reverse, PartitionIterator}) = prod(Base.Generator(f, it))
Base.maximum(f, it::Union{Base.Zip, Base.Enumerate, Base.ProductIterator, Product3, Base.Filter, Take, Drop, Reverse, PartitionIterator}) = maximum(Base.Generator(f, it))
Base.minimum(f, it::Union{Base.Zip, Base.Enumerate, Base.ProductIterator, Product3, Base.Filter, Take, Drop, Reverse, PartitionIterator}) = minimum(Base.Generator(f, it))
Base.any(f, it::Union{Base.Zip, Base.Enumerate, Base.ProductIterator, Product3, Base.Filter, Take, Drop, Reverse, PartitionIterator}) = any(Base.Generator(f, it))
Base.all(f, it::Union{Base.Zip, Base.Enumerate, Base.ProductIterator, Product3, Base.Filter, Take, Drop, Reverse, PartitionIterator}) = all(Base.Generator(f, it))
Base.count(f, it::Union{Base.Zip, Base.Enumerate, Base.ProductIterator, Product3, Base.Filter, Take, Drop, Reverse, PartitionIterator, Base.Generator}) = count(identity, collect(Base.Generator(f, it)))
# `Set(itr)` of another lazy iterator: the set of its elements.
Base.Set(it::Union{Base.ProductIterator, Take, Drop, Reverse, TakeWhile, DropWhile}) = Base.Set(collect(it))
Base.mapreduce(f, op, it::Union{Base.Zip, Base.Enumerate, Base.ProductIterator, Product3, Base.Filter, Take, Drop, Reverse, PartitionIterator, Base.Generator}; init = Base._InitialValue()) =
    mapreduce(identity, op, collect(Base.Generator(f, it)); init = init)
# `sum(itr; init)`, `prod(f, itr; init)` and the other reductions with `init` of a generator or
# a lazy iterator (inference hands them to `_mapfoldl`): those of its elements collected.
Base._mapfoldl(f, op, init, it::Union{Base.Zip, Base.Enumerate, Base.ProductIterator, Product3, Base.Filter, Take, Drop, Reverse, PartitionIterator, Base.Generator}) =
    Base._mapfoldl(f, op, init, collect(it))
# `foldl(op, zip(a, b); init)`, `reduce` and `mapfoldl` of a lazy iterator: its elements
# collected, folded from the left as Julia's fold of the iterator visits them.
Base.foldl(op, it::Union{Base.Zip, Base.Enumerate, Base.ProductIterator, Product3, Base.Filter, Take, Drop, Reverse, PartitionIterator}; init = Base._InitialValue()) =
    Base._mapfoldl(identity, op, init, collect(it))
Base.reduce(op, it::Union{Base.Zip, Base.Enumerate, Base.ProductIterator, Product3, Base.Filter, Take, Drop, Reverse, PartitionIterator}; init = Base._InitialValue()) =
    Base._mapfoldl(identity, op, init, collect(it))
Base.mapfoldl(f, op, it::Union{Base.Zip, Base.Enumerate, Base.ProductIterator, Product3, Base.Filter, Take, Drop, Reverse, PartitionIterator}; init = Base._InitialValue()) =
    Base._mapfoldl(f, op, init, collect(it))

end # module Iterators

"""
    Threads

Julia's `Base.Threads` as zy runs it: on one thread, a `@threads` loop's iterations one after
another (the syntax reads the macro).
"""
module Threads

export nthreads, threadid, maxthreadid, Atomic, atomic_add!, atomic_sub!, atomic_max!, atomic_min!,
    atomic_and!, atomic_or!, atomic_xor!, atomic_xchg!, atomic_cas!, SpinLock

"""
    nthreads(), threadid(), maxthreadid()

The number of threads zy runs a program on, the running thread's number, the largest one: 1.
"""
nthreads() = 1
nthreads(pool::Symbol) = pool === :default ? 1 : 0
threadid() = 1
maxthreadid() = 1

"""
    Threads.Atomic{T}(v), a[], a[] = v

Julia's atomic box: `a[]` reads its value, `a[] = v` stores one (converted to `T`); on zy's
one thread every access is atomic.
"""
mutable struct Atomic{T}
    value::T
end
Base.getindex(a::Atomic) = a.value
function Base.setindex!(a::Atomic{T}, v) where {T}
    a.value = convert(T, v)
    return a
end

"""
    atomic_add!(a, v), atomic_sub!, atomic_max!, atomic_min!, atomic_and!, atomic_or!,
    atomic_xor!, atomic_xchg!(a, v), atomic_cas!(a, expected, v)

Julia's atomic updates of an [`Atomic`](@ref): each stores its new value and returns the old
one (`atomic_cas!` stores `v` only if the old value is `expected`).
"""
atomic_add!(a::Atomic, v) = _atomic_update!(a, +, v)
atomic_sub!(a::Atomic, v) = _atomic_update!(a, -, v)
atomic_max!(a::Atomic, v) = _atomic_update!(a, max, v)
atomic_min!(a::Atomic, v) = _atomic_update!(a, min, v)
atomic_and!(a::Atomic, v) = _atomic_update!(a, (x, y) -> x & y, v)
atomic_or!(a::Atomic, v) = _atomic_update!(a, (x, y) -> x | y, v)
atomic_xor!(a::Atomic, v) = _atomic_update!(a, xor, v)
atomic_xchg!(a::Atomic, v) = _atomic_update!(a, _second, v)

# `a`'s value replaced by `op(old, v)`, converted to `T`; the old value.
function _atomic_update!(a::Atomic{T}, op, v) where {T}
    old = a.value
    a.value = convert(T, op(old, v))
    return old
end
_second(old, new) = new
function atomic_cas!(a::Atomic{T}, expected, v) where {T}
    old = a.value
    if old == expected
        a.value = convert(T, v)
    end
    return old
end

"""
    Threads.SpinLock()

Julia's spin lock: on zy's one thread no other task ever holds it (see [`ReentrantLock`](@ref)).
"""
mutable struct SpinLock
    count::Int
end
SpinLock() = SpinLock(0)

end # module Threads

"""
    Task(f), schedule(t), fetch(t), wait(t), istaskdone(t)

Julia's `Task` as zy runs it, on one thread: `schedule(t)` runs `f()` to completion there
(`Threads.@spawn expr` and `@async expr` make a task of `() -> expr` and run it at once),
and `fetch(t)` returns its value. A task whose function threw is failed: `fetch` and `wait`
throw a [`TaskFailedException`](@ref) showing the task's error. Results are Julia's for
programs whose tasks do not read what another writes.
"""
mutable struct Task{F, T}
    f::F
    # Its function's value once it returned (the vector is empty until then).
    result::Vector{T}
    # 0 before it runs, 1 once its function returned, 2 once it threw `error`.
    status::Int
    error
end
# The vector `[f() for _ in 1:0]` is empty: it types the result without calling `f`.
Task(f) = Task(f, [f() for _ in 1:0], 0, ErrorException(""))

"""
    TaskFailedException

The exception `fetch` and `wait` throw for a task whose function threw: shown as Julia's,
with the task's error after `nested task error:`.
"""
struct TaskFailedException{T} <: Exception
    task::T
end
showerror(io::String, e::TaskFailedException) = string(io, _failed_text(e.task.error))

# Julia's text of a `TaskFailedException` of a task that threw `e`: `e` shown, indented.
_failed_text(e) = string("TaskFailedException\n\n    nested task error: ", replace(showerror("", e), "\n" => "\n    "))

"""
    CompositeException

The exception an `@sync` block throws at its end when tasks spawned in it failed: shown as
Julia's, the first task's `TaskFailedException` and the number of the others. (Julia's
`exceptions` field is not there: zy keeps the number and the first one's text.)
"""
struct CompositeException <: Exception
    _count::Int
    _first::String
end
length(e::CompositeException) = e._count
function showerror(io::String, e::CompositeException)
    text = string(io, e._first)
    rest = e._count - 1
    return rest > 0 ? string(text, "\n\n...and ", rest, " more exception", rest > 1 ? "s" : "", ".\n") : text
end

# `Threads.@spawn expr`, `@async expr`: the task of `f` (`() -> expr`), run at once, made
# once it ran.
function _spawn(f)
    result = [f() for _ in 1:0]
    failure = ErrorException("")
    r = try
        (f(),)
    catch e
        failure = e
        nothing
    end
    r === nothing && return Task(nothing, result, 2, failure)
    push!(result, r[1])
    return Task(nothing, result, 1, failure)
end

# Only `f()` is inside the `try`: a gradient passes through it where it returns (where a
# function that may write throws, the AD stops the gradient by name).
function _run!(t::Task, f)
    r = try
        (f(),)
    catch e
        t.error = e
        nothing
    end
    if r === nothing
        t.status = 2
    else
        push!(t.result, r[1])
        t.status = 1
    end
    return t
end

istaskstarted(t::Task) = t.status > 0
istaskdone(t::Task) = t.status > 0
istaskfailed(t::Task) = t.status == 2

function schedule(t::Task)
    istaskstarted(t) || _run!(t, t.f)
    return t
end

function wait(t::Task)
    istaskstarted(t) || error("unsupported: `wait` or `fetch` of a task never scheduled, which in Julia waits forever; `schedule(t)` it first")
    istaskfailed(t) && throw(TaskFailedException(t))
    return nothing
end

function fetch(t::Task)
    wait(t)
    return t.result[1]
end
fetch(x) = x
errormonitor(t::Task) = t

# `@sync`: the group of the tasks spawned in its block, and the failed ones' errors shown.
mutable struct _SyncGroup
    failed::Int
    first
end
_SyncGroup() = _SyncGroup(0, ErrorException(""))

function _sync_add!(g::_SyncGroup, t::Task)
    if istaskfailed(t)
        g.failed == 0 && (g.first = t.error)
        g.failed += 1
    end
    return t
end

function _sync_end(g::_SyncGroup)
    g.failed == 0 || throw(CompositeException(g.failed, _failed_text(g.first)))
    return nothing
end

# An iteration of a `@threads` loop threw `e`: zy's one thread runs the iterations in one
# task, which failed; Julia's loop throws the `CompositeException` of its `TaskFailedException`.
_threads_failed(e) = throw(CompositeException(1, _failed_text(e)))

"""
    Channel{T}(size = 0), Channel{T}(f, size = 0), Channel(f; ctype = T, csize = 0),
    Channel(f), put!(c, v),
    take!(c), fetch(c), close(c), isopen(c), isready(c), isempty(c), for x in c, collect(c)

Julia's channel as zy runs it, on one thread: a queue of values of type `T`, taken in the
order they were put (`Channel(f)` without the type: Julia's `Channel{Any}`, its values kept
as put). `Channel{T}(f)` (also with a size, and the `do` form) calls `f(c)` at
once, to completion, then closes `c` (with the `TaskFailedException` of `f`'s error when it
throws), as Julia's task bound to the channel does. A `put!` never waits: the buffer grows past
`size` (Julia's producer waits there for its consumer, which here runs after it; the values
taken are the same). A `take!`, `fetch` or `for` loop that would wait for a value (an empty
open channel) is refused by name: Julia waits there for another task's `put!`, and zy has run
every task to completion where it was made.
"""
mutable struct Channel{T}
    # The values put; the next to take is at `head`.
    data::Vector{T}
    head::Int
    sz_max::Int
    # 0 while open, 1 once closed, 2 once closed by its producer's failure (`error`).
    state::Int
    error
end

# `Channel{T}(sz)` and `Channel{T}(f, sz)`, which the syntax writes `_typed_channel(T, ...)`.
function _typed_channel(T, sz::Integer = 0)
    sz >= 0 || throw(ArgumentError("Channel size must be either 0, a positive integer or Inf"))
    return Channel(T[], 1, sz, 0, ErrorException(""))
end
# `Channel{T}(Inf)`: a buffer of any size.
function _typed_channel(T, sz::Float64)
    sz == Inf && return _typed_channel(T, typemax(Int))
    return _typed_channel(T, Int(sz))
end
# `spawn` and `threadpool` choose where Julia runs the producer: zy runs it here.
function _typed_channel(T, f::Function, sz::Integer = 0; spawn::Bool = false, threadpool = nothing)
    c = _typed_channel(T, sz)
    failed = try
        f(c)
        false
    catch e
        c.error = e
        true
    end
    if isopen(c)
        c.state = failed ? 2 : 1
    end
    return c
end
# Without its element type a channel is Julia's `Channel{Any}`.
Channel(sz::Integer = 0) = _typed_channel(Any, sz)
Channel(f::Function, sz::Integer) = _typed_channel(Any, f, sz)
# `Channel(f; ctype = T, csize = n)`: Julia's keywords for `Channel{T}(f, n)`.
function Channel(f::Function; ctype = Any, csize = 0, spawn::Bool = false, threadpool = nothing)
    return _typed_channel(ctype, f, csize; spawn = spawn, threadpool = threadpool)
end

"""
    InvalidStateException(msg, state)

The exception of an operation on a closed [`Channel`](@ref): `put!` into it, `take!` from it
once it is empty.
"""
struct InvalidStateException <: Exception
    msg::String
    state::Symbol
end
showerror(io::String, e::InvalidStateException) = string(io, "InvalidStateException: ", e.msg)

eltype(::Channel{T}) where {T} = T
isopen(c::Channel) = c.state == 0
isready(c::Channel) = c.head <= length(c.data)
isempty(c::Channel) = !isready(c)

function close(c::Channel)
    if isopen(c)
        c.state = 1
    end
    return nothing
end

# What Julia throws on a closed channel (of `state` and `error`, not the channel, whose
# values a gradient may reach): its producer's failure (a failed task, whose result vector is
# never read), or that it is closed.
function _closed(state::Int, error)
    state == 2 && throw(TaskFailedException(Task(nothing, Bool[], 2, error)))
    throw(InvalidStateException("Channel is closed.", :closed))
end

# An empty open channel, where Julia would wait for another task's `put!`.
_would_wait(what) = error(:unsupported, what, " an empty open `Channel` waits in Julia for another task to `put!` a value; zy has run every task to completion where it was made (a consumer made before its producer, or no producer), so none will: put the values first, or make the channel with its producer, `Channel{T}(f)`")

function put!(c::Channel{T}, v) where {T}
    isopen(c) || _closed(c.state, c.error)
    x = convert(T, v)
    push!(c.data, x)
    return x
end

function take!(c::Channel)
    if !isready(c)
        isopen(c) && _would_wait("`take!` from")
        _closed(c.state, c.error)
    end
    x = c.data[c.head]
    c.head += 1
    return x
end

function fetch(c::Channel)
    c.sz_max == 0 && error("`fetch` is not supported on an unbuffered Channel.")
    if !isready(c)
        isopen(c) && _would_wait("`fetch` of")
        _closed(c.state, c.error)
    end
    return c.data[c.head]
end

function iterate(c::Channel, state = nothing)
    isready(c) && return (take!(c), nothing)
    isopen(c) && _would_wait("a `for` loop over")
    return nothing
end

function collect(c::Channel{T}) where {T}
    out = T[]
    for x in c
        push!(out, x)
    end
    return out
end

"""
    ReentrantLock(), lock(l), unlock(l), trylock(l), islocked(l), lock(f, l)

Julia's locks: on zy's one thread no other task ever holds one, so `lock` never waits; a lock
counts its `lock`s for `islocked`, and `lock(f, l)` (`lock(l) do ... end`) calls `f()` with it
held.
"""
mutable struct ReentrantLock
    count::Int
end
ReentrantLock() = ReentrantLock(0)

function lock(l::Union{ReentrantLock, Threads.SpinLock})
    l.count += 1
    return nothing
end
function unlock(l::Union{ReentrantLock, Threads.SpinLock})
    l.count > 0 || error("unlock count must match lock count")
    l.count -= 1
    return nothing
end
function trylock(l::Union{ReentrantLock, Threads.SpinLock})
    lock(l)
    return true
end
islocked(l::Union{ReentrantLock, Threads.SpinLock}) = l.count > 0
function lock(f, l::Union{ReentrantLock, Threads.SpinLock})
    lock(l)
    try
        return f()
    finally
        unlock(l)
    end
end

"""
    GC

Julia's garbage collector's controls, which have no effect on a program's values: zy frees
what a call made when the call ends.
"""
module GC

gc(full::Bool = true) = nothing
enable(on::Bool) = true
safepoint() = nothing

end # module GC

"""
    sleep(seconds)

`nothing`, after checking that `seconds` is not negative: zy's calls do not wait (`time()`
after it has not moved on by `seconds`).
"""
function sleep(seconds::Real)
    seconds >= 0 || throw(ArgumentError("cannot sleep for $seconds seconds"))
    return nothing
end

"""
    isinteractive()

`false`: zy runs a file as `julia file.jl` does, not at the REPL.
"""
isinteractive() = false

"""
    exit(code = 0)

An `ErrorException` naming the exit: zy runs calls inside its own process, which a program does
not end (Julia's `exit` ends the process and cannot be caught).
"""
exit(code::Integer = 0) = error("exit($code): zy does not end its process; return or throw an error instead")

# ---- Folds over tuples ------------------------------------------------------------------------
# A tuple of arrays is how zy keeps several arrays apart (its arrays hold numbers): Julia's
# `reduce(hcat, (a, b))`, `foldl(op, t; init)`, `mapreduce(f, op, t)` fold it from the left,
# one method per element type.

"""
    reduce(op, t::Tuple; init), foldl(op, t::Tuple; init)

`op(...op(op(t[1], t[2]), t[3])..., t[end])`, from `init` when given; an empty tuple without
`init` is an `ArgumentError`. `reduce(hcat, (a, b))` is `hcat(a, b)`.
"""
reduce(op, t::Tuple; init = _InitialValue()) = _foldl_from(op, init, t...)
foldl(op, t::Tuple; init = _InitialValue()) = _foldl_from(op, init, t...)

"""
    foldr(op, t::Tuple; init)

`op(t[1], op(t[2], ...op(t[end-1], t[end])))`, ending in `init` when given.
"""
foldr(op, t::Tuple; init = _InitialValue()) = _foldr_from(op, init, t...)

"""
    mapreduce(f, op, t::Tuple; init)

`f` applied to each element of the tuple, combined with `op` from the left.
"""
mapreduce(f, op, t::Tuple; init = _InitialValue()) = _foldl_from(op, init, map(f, t)...)
mapfoldl(f, op, t::Tuple; init = _InitialValue()) = _foldl_from(op, init, map(f, t)...)
mapfoldr(f, op, t::Tuple; init = _InitialValue()) = _foldr_from(op, init, map(f, t)...)
# `sum(t; init)`, `prod(f, t; init)` and the other reductions of a tuple with `init` (inference
# hands them to `_mapfoldl`, as for arrays).
_mapfoldl(f, op, init, t::Tuple) = _foldl_from(op, init, map(f, t)...)

_foldl_from(op, ::_InitialValue, xs...) = _foldl_tuple(op, xs...)
_foldl_from(op, init, xs...) = _foldl_tuple(op, init, xs...)
_foldr_from(op, ::_InitialValue) = _foldl_tuple(op)
_foldr_from(op, ::_InitialValue, x) = x
_foldr_from(op, ::_InitialValue, x, rest...) = op(x, _foldr_from(op, _InitialValue(), rest...))
_foldr_from(op, init) = init
_foldr_from(op, init, x, rest...) = op(x, _foldr_from(op, init, rest...))

"""
    foreach(f, t::Tuple), foreach(f, x)

`f` called on each element in order, for its effects; returns `nothing`. Over a tuple of
different struct types each call takes that element's own method (a `for` loop over such a
tuple would need one type for its loop variable).
"""
foreach(f, t::Tuple) = _foreach_tuple(f, t...)
function foreach(f, x)
    for k in 1:length(x)
        f(x[k])
    end
    return nothing
end

# Of a lazy iterator (`zip`, `enumerate`, ...), its elements in order; of several collections,
# Julia's `f(x, y, ...)` for each `(x, y, ...)` of their `zip`.
function foreach(f, it::Union{Zip, Enumerate, Generator})
    for x in it
        f(x)
    end
    return nothing
end
foreach(f, x, y, rest...) = foreach(xs -> f(xs...), zip(x, y, rest...))

_foreach_tuple(f) = nothing
function _foreach_tuple(f, x, rest...)
    f(x)
    return _foreach_tuple(f, rest...)
end

# `Vector{T}(undef, n)` and `Matrix{T}(undef, m, n)` of an array, struct or tuple type: slots
# not set yet, whose reading is Julia's `UndefRefError` (the builtin `undef_objects`; an
# abstract element type is refused by name there). The number types have their methods above.
_undef_vector(T, n::Int) = undef_objects(T, n)
_undef_matrix(T, m::Int, n::Int) = undef_objects(T, m, n)

# `push!(v, x)`, `insert!`, `fill!` of an array `x`: itself into an array of its type, converted
# into a vector of Float64 arrays, and Julia's `convert` error into an array of numbers.
function _elem_of(v::Array, x::AbstractArray)
    if typeof(x) == eltype(v)
        return x
    end
    _array_into(v, x)
end
# An array or struct into an array of them: itself, when it has the element type.
function _elem_of(v::Array, x)
    if typeof(x) == eltype(v)
        return x
    end
    return convert(eltype(v), x)
end
# An array of numbers into a vector of Float64 arrays: converted, as Julia's `convert`.
_array_into(v::Vector{Vector{Float64}}, x::AbstractVector{<:Real}) = float.(x)
_array_into(v::Vector{Matrix{Float64}}, x::AbstractMatrix{<:Real}) = float.(x)
_array_into(v, x) = error(:MethodError, "Cannot `convert` an object of type $(typeof(x)) to an object of type $(eltype(v))")

# ---- Splatting an array: `f(x...)` with `x` a vector (inference calls these by name) ----------

"""
    _splat_fold(op, x)

`op(x...)` of a vector `x` for `+`, `*`, `max` and `min`: Julia's left fold of the
two-argument method (`afoldl`: `((x[1] op x[2]) op x[3]) ...`), `x[1]` alone for one element
(`+(a) = a`, `max(a::Real) = a`), and Julia's `MethodError` for none.
"""
function _splat_fold(op, x::AbstractVector)
    n = length(x)
    n == 0 && _splat_none(op)
    acc = x[1]
    for k in 2:n
        acc = op(acc, x[k])
    end
    return acc
end
_splat_none(::typeof(+)) = error(:MethodError, "no method matching +()")
_splat_none(::typeof(*)) = error(:MethodError, "no method matching *()")
_splat_none(::typeof(max)) = error(:MethodError, "no method matching max()")
_splat_none(::typeof(min)) = error(:MethodError, "no method matching min()")

# `vcat(xs...)` and `hcat(xs...)`: of a vector of vectors, the vectors stacked (as
# `reduce(vcat, xs)`); of a vector of numbers, a Vector of them or a 1×n Matrix.
_splat_vcat(xs::AbstractVector{<:Number}) = collect(xs)
_splat_vcat(xs::AbstractVector) = reduce(vcat, xs)
_splat_hcat(xs::AbstractVector{<:Number}) = permutedims(collect(xs))
_splat_hcat(xs::AbstractVector) = reduce(hcat, xs)
# `hvcat(rows, xs...)` of numbers (splatted or gathered in `xs`): `length(rows)` rows of
# `rows[1]` elements each, as Julia's `hvcat(rows::Tuple{Vararg{Int}}, xs::Number...)`.
function _hvcat_rows(rows::Tuple, xs::AbstractVector)
    nr = length(rows)
    nc = rows[1]
    # Julia's `hvcat` of numbers counts the elements against the first row's width first.
    nr * nc == length(xs) || throw(ArgumentError("argument count does not match specified shape (expected $(nr * nc), got $(length(xs)))"))
    for i in 1:nr
        rows[i] == nc || throw(ArgumentError("row $(i) has mismatched number of columns (expected $(nc), got $(rows[i]))"))
    end
    return _hvcat_matrix(nr, nc, xs)
end
# The matrix of `nr` rows of `nc` elements of `xs`, row by row (also `[a b; c d]` of complex
# numbers, which inference builds from the vector of the elements).
_hvcat_matrix(nr::Int, nc::Int, xs::AbstractVector) = [xs[(i - 1) * nc + j] for i in 1:nr, j in 1:nc]

# `string(x...)`: the elements' strings one after the other (`""` for none).
function _splat_string(x::AbstractVector)
    s = ""
    for p in x
        s = s * string(p)
    end
    return s
end

# `f(x...)` of a vector into a method of `n` arguments: Julia's `MethodError` when the vector
# holds another number of elements.
function _splat_arity(f, x::AbstractVector, n::Int)
    length(x) == n || error(:MethodError, "no method matching $(f)(::$(eltype(x))...) with $(length(x)) arguments (splatting a vector; its method takes $(n))")
    return nothing
end

# `a, b... = x` of an array: `b` is Julia's `Base.rest(x, i)`, the elements from `i` on as a new
# Vector (`x[i:end]`, linear indices of a matrix too); in `a, b..., c = x` all but the last `k`
# (`Base.split_rest`), and `c` is `x[end]` (`_end_item(x, 0)`).
_rest_array(x::AbstractArray, i::Int, k::Int) = x[i:end-k]
_end_item(x::AbstractArray, j::Int) = x[end-j]

# `f(x...; kw...)` of a vector `x`: inference gathers the keywords into a named tuple and
# splats `x` into this function as into any varargs one, so the call of each length is
# `f(args...; kw...)`.
_splat_keywords(kw::NamedTuple, f, args...) = f(args...; kw...)

# ---- Arrays of 3 or more dimensions ----------------------------------------------------------
# `zeros(2, 3, 4)`, `ones`, `fill` and indexing `A[i, j, k]` are builtins; what Julia writes in
# Julia over them is here: sizes as tuples, `Array{T}(undef, ...)`, `reshape` into N
# dimensions, `axes`, `ndims`, reductions with `dims` and `permutedims`.

zeros(dims::Tuple{Int, Int, Int}) = zeros(dims[1], dims[2], dims[3])
zeros(dims::Tuple{Int, Int, Int, Int}) = zeros(dims[1], dims[2], dims[3], dims[4])
ones(dims::Tuple{Int, Int, Int}) = ones(dims[1], dims[2], dims[3])
ones(dims::Tuple{Int, Int, Int, Int}) = ones(dims[1], dims[2], dims[3], dims[4])
fill(v, dims::Tuple{Int, Int, Int}) = fill(v, dims[1], dims[2], dims[3])
fill(v, dims::Tuple{Int, Int, Int, Int}) = fill(v, dims[1], dims[2], dims[3], dims[4])
similar(x::Array, dims::Tuple{Int, Int, Int}) = fill(zero(eltype(x)), dims)
similar(x::Array, a::Int, b::Int, c::Int) = fill(zero(eltype(x)), a, b, c)

# A comprehension over a 3-dimensional array, or over three iteration variables
# (`[f(i, j, k) for i in I, j in J, k in K]`): a 3-dimensional array of `f`'s result type.
_gen_array(f, it::Array{T, 3}) where {T} = _array3(_gen_results(f, it), size(it, 1), size(it, 2), size(it, 3))
_array3(x::Array{Float64}, a::Int, b::Int, c::Int) = zeros(a, b, c)
_array3(x::Array{Int}, a::Int, b::Int, c::Int) = fill(0, a, b, c)
_array3(x::Array{Bool}, a::Int, b::Int, c::Int) = fill(false, a, b, c)
_array3(x::Array, a::Int, b::Int, c::Int) = undef_objects(x, a, b, c)
product(a, b, c) = Iterators.product(a, b, c)

# `CartesianIndex(i, j, k)` of a 3-dimensional array: indexing by it, `CartesianIndices(A)`,
# and `argmax`, `argmin`, `findmax`, `findmin` giving one (Julia's, where a vector's give an Int).
CartesianIndex(i::Int, j::Int, k::Int) = CartesianIndex((i, j, k))
getindex(A::Array{T, 3}, I::CartesianIndex{Tuple{Int, Int, Int}}) where {T} = A[I.I[1], I.I[2], I.I[3]]
setindex!(A::Array{T, 3}, v, I::CartesianIndex{Tuple{Int, Int, Int}}) where {T} = setindex!(A, v, I.I[1], I.I[2], I.I[3])
getindex(C::CartesianIndices{Tuple{A, B, D}}, i::Int, j::Int, k::Int) where {A, B, D} = CartesianIndex(_axis_first(C.dims[1]) + i - 1, _axis_first(C.dims[2]) + j - 1, _axis_first(C.dims[3]) + k - 1)
argmax(A::AbstractArray{T, 3}) where {T} = _cartesian3(size(A), _argextremum(A, true))
argmin(A::AbstractArray{T, 3}) where {T} = _cartesian3(size(A), _argextremum(A, false))
findmax(A::AbstractArray{T, 3}) where {T} = (A[_argextremum(A, true)], argmax(A))
findmin(A::AbstractArray{T, 3}) where {T} = (A[_argextremum(A, false)], argmin(A))
findmax(f, A::AbstractArray{T, 3}) where {T} = _cartesian3_found(size(A), _findextremum(f, A, true))
findmin(f, A::AbstractArray{T, 3}) where {T} = _cartesian3_found(size(A), _findextremum(f, A, false))
_cartesian3_found(dims, found::Tuple) = (found[1], _cartesian3(dims, found[2]))
# The Cartesian index of the linear index `k` (column-major) in an array of sizes `dims`.
function _cartesian3(dims::Tuple{Int, Int, Int}, k::Int)
    m = dims[1]
    n = dims[2]
    return CartesianIndex((k - 1) % m + 1, ((k - 1) ÷ m) % n + 1, (k - 1) ÷ (m * n) + 1)
end

# `findall` of a matrix or a 3-dimensional array: a Vector of the `CartesianIndex`es where
# `f` holds, in column-major order; `keys` of a 3-dimensional array its `CartesianIndices`.
findall(f, A::AbstractMatrix) = [_cartesian_of(A, k) for k in _findall_linear(f, A)]
findall(f, A::AbstractArray{T, 3}) where {T} = [_cartesian3(size(A), k) for k in _findall_linear(f, A)]
keys(A::AbstractArray{T, 3}) where {T} = CartesianIndices(size(A))

# `dest .= v` with a 3-dimensional array on either side: the same shape, else refused by name
# (Julia extends an array of fewer dimensions along the missing ones).
_check_shape(dest::AbstractArray{T, 3}, v::AbstractArray{S, 3}) where {T, S} = _same_length(size(dest) == size(v))
_check_shape(dest::AbstractArray{T, 3}, v) where {T} = error("unsupported: `.=` of an array of fewer dimensions into a 3-dimensional array (Julia extends it along the missing dimensions); write the loop, or `A[:, :, k] = M` for each slice")
_check_shape(dest::AbstractArray{T, 3}, v::Matrix) where {T} = _check_shape(dest, v[:])
_check_shape(dest, v::AbstractArray{T, 3}) where {T} = error("unsupported: `.=` of a 3-dimensional array into a destination of fewer dimensions")
_check_shape(dest::Matrix, v::AbstractArray{T, 3}) where {T} = _check_shape(dest[:], v)

# `Array{T}(undef, a, b, c)`, `Array{T, 3}(undef, a, b, c)` (zeros: Julia leaves them undefined).
_undef_array(T, a::Int, b::Int, c::Int) = _undef_nd(T, (a, b, c))
_undef_array(T, a::Int, b::Int, c::Int, d::Int) = _undef_nd(T, (a, b, c, d))
_undef_array_rank(T, N::Int, a::Int, b::Int, c::Int) = N == 3 ? _undef_nd(T, (a, b, c)) : _undef_rank_error(N, 3)
_undef_array_rank(T, N::Int, a::Int, b::Int, c::Int, d::Int) = N == 4 ? _undef_nd(T, (a, b, c, d)) : _undef_rank_error(N, 4)
_undef_nd(::Type{Float64}, dims) = zeros(dims)
_undef_nd(::Type{Int}, dims) = fill(0, dims)
_undef_nd(::Type{Int64}, dims) = fill(0, dims)
_undef_nd(::Type{Bool}, dims) = fill(false, dims)
# Sizes as a tuple (`Array{T}(undef, size(A))`), and `similar(A, T)` of a 3-d array.
_undef_array(T, dims::Tuple{Int, Int, Int}) = _undef_nd(T, dims)
_undef_array(T, dims::Tuple{Int, Int, Int, Int}) = _undef_nd(T, dims)
_undef_array_rank(T, N::Int, dims::Tuple{Int, Int, Int}) = N == 3 ? _undef_nd(T, dims) : _undef_rank_error(N, 3)
_undef_array_rank(T, N::Int, dims::Tuple{Int, Int, Int, Int}) = N == 4 ? _undef_nd(T, dims) : _undef_rank_error(N, 4)
_similar_of(T, x::Array{S, 3}) where {S} = _undef_nd(T, size(x))

"""
    ndims(A), axes(A)

The number of dimensions of an array; the ranges of its indices, one per dimension.
"""
ndims(A::AbstractArray{T, N}) where {T, N} = N
axes(A::AbstractArray{T, 3}) where {T} = (OneTo(size(A, 1)), OneTo(size(A, 2)), OneTo(size(A, 3)))
axes(A::AbstractArray{T, 4}) where {T} = (OneTo(size(A, 1)), OneTo(size(A, 2)), OneTo(size(A, 3)), OneTo(size(A, 4)))

"""
    reshape(A, a, b, c), reshape(A, (a, b, c)), reshape(A, :, b, c), reshape(A, a, :, c),
    reshape(A, a, b, :), reshape(A, a, b, c, d)

The elements of `A` in column-major order as an array of 3 or 4 dimensions; a `:` stands for
the size that makes the element counts agree. A copy of a fresh array; of one held elsewhere
lowering calls `_reshape_shared`, as for the 2-dimensional methods.
"""
reshape(A::Array, a::Int, b::Int, c::Int) = _reshape(A, a, b, c)
reshape(A::Array, a::Int, b::Int, c::Int, d::Int) = _reshape(A, a, b, c, d)
reshape(A::Array, dims::Tuple{Int, Int, Int}) = _reshape(A, dims[1], dims[2], dims[3])
reshape(A::Array, dims::Tuple{Int, Int, Int, Int}) = _reshape(A, dims[1], dims[2], dims[3], dims[4])
reshape(A::Array, ::Colon, b::Int, c::Int) = _reshape(A, _reshape_colon_nd(A, 1, b, c), b, c)
reshape(A::Array, a::Int, ::Colon, c::Int) = _reshape(A, a, _reshape_colon_nd(A, 2, a, c), c)
reshape(A::Array, a::Int, b::Int, ::Colon) = _reshape(A, a, b, _reshape_colon_nd(A, 3, a, b))
_reshape(A::Array, a::Int, b::Int, c::Int) = _reshape_fill!(fill(zero(eltype(A)), a, b, c), A, (a, b, c))
_reshape(A::Array, a::Int, b::Int, c::Int, d::Int) = _reshape_fill!(fill(zero(eltype(A)), a, b, c, d), A, (a, b, c, d))

# The size a `:` at position `k` of three stands for beside the sizes `a` and `b`.
function _reshape_colon_nd(A, k::Int, a::Int, b::Int)
    n = a * b
    if n == 0 || length(A) % n != 0
        k == 1 && throw(DimensionMismatch("array size $(length(A)) must be divisible by the product of the new dimensions (Colon(), $a, $b)"))
        k == 2 && throw(DimensionMismatch("array size $(length(A)) must be divisible by the product of the new dimensions ($a, Colon(), $b)"))
        throw(DimensionMismatch("array size $(length(A)) must be divisible by the product of the new dimensions ($a, $b, Colon())"))
    end
    return length(A) ÷ n
end

# `sum(A; dims = d)` and `prod`/`maximum`/`minimum` of an array of 3 or 4 dimensions: the
# reductions along dimension `d`, each from its first element in index order (sums from zero,
# as Julia's), into an array whose dimension `d` has length one.
_sum_dims(A::AbstractArray{T, 3}, d::Int) where {T} = _dims_reduce(+, A, d, true)
_sum_dims(A::AbstractArray{T, 4}, d::Int) where {T} = _dims_reduce(+, A, d, true)
_reduce_dims(op, A::AbstractArray{T, 3}, d::Int) where {T} = _dims_reduce(op, A, d, false)
_reduce_dims(op, A::AbstractArray{T, 4}, d::Int) where {T} = _dims_reduce(op, A, d, false)
_sum_dims(A::AbstractArray{T, 3}, d::Tuple{Int}) where {T} = _sum_dims(A, d[1])
_sum_dims(A::AbstractArray{T, 3}, d::Tuple{Int, Int}) where {T} = _sum_dims(_sum_dims(A, d[1]), d[2])
_sum_dims(A::AbstractArray{T, 3}, d::Tuple{Int, Int, Int}) where {T} = _sum_dims(_sum_dims(_sum_dims(A, d[1]), d[2]), d[3])
_reduce_dims(op, A::AbstractArray{T, 3}, d::Tuple{Int}) where {T} = _reduce_dims(op, A, d[1])
_reduce_dims(op, A::AbstractArray{T, 3}, d::Tuple{Int, Int}) where {T} = _reduce_dims(op, _reduce_dims(op, A, d[1]), d[2])

# `dims` as a vector (`sum(A; dims = [1, 2])`) or as a tuple of any length: one dimension
# after the other, as Julia's result (the reduction over all of them; a dimension beyond
# `ndims(A)` or given twice changes nothing). No dimensions at all is a copy.
function _sum_dims(A::AbstractArray, dims::AbstractVector{Int})
    S = _sum_dims(A, isempty(dims) ? ndims(A) + 1 : dims[1])
    for k in 2:length(dims)
        S = _sum_dims(S, dims[k])
    end
    return S
end
function _reduce_dims(op, A::AbstractArray, dims::AbstractVector{Int})
    S = _reduce_dims(op, A, isempty(dims) ? ndims(A) + 1 : dims[1])
    for k in 2:length(dims)
        S = _reduce_dims(op, S, dims[k])
    end
    return S
end
_sum_dims(A::AbstractArray, dims::Tuple) = _sum_dims(A, collect(dims))
_reduce_dims(op, A::AbstractArray, dims::Tuple) = _reduce_dims(op, A, collect(dims))
_sum_dims(A::AbstractArray, dims::Tuple{}) = _sum_dims(A, ndims(A) + 1)
_reduce_dims(op, A::AbstractArray, dims::Tuple{}) = _reduce_dims(op, A, ndims(A) + 1)

function _dims_reduce(op, A, d::Int, from_zero::Bool)
    d < 1 && throw(ArgumentError("dimension must be ≥ 1, got $d"))
    d > ndims(A) && return copy(A)
    before = 1
    for e in 1:(d - 1)
        before *= size(A, e)
    end
    n = size(A, d)
    n == 0 && !from_zero && throw(ArgumentError("reducing over an empty collection is not allowed"))
    after = n == 0 ? 0 : length(A) ÷ (before * n)
    S = fill(zero(eltype(A)), _size_one(A, d))
    for a in 1:after, b in 1:before
        at = b + before * n * (a - 1)
        s = from_zero ? zero(eltype(A)) + A[at] : A[at]
        for j in 2:n
            s = op(s, A[at + before * (j - 1)])
        end
        S[b + before * (a - 1)] = s
    end
    return S
end

# The size of `A` with dimension `d` made 1.
_size_one(A::AbstractArray{T, 3}, d::Int) where {T} = (d == 1 ? 1 : size(A, 1), d == 2 ? 1 : size(A, 2), d == 3 ? 1 : size(A, 3))
_size_one(A::AbstractArray{T, 4}, d::Int) where {T} = (d == 1 ? 1 : size(A, 1), d == 2 ? 1 : size(A, 2), d == 3 ? 1 : size(A, 3), d == 4 ? 1 : size(A, 4))

"""
    A[I, J, K], A[I, J, K] = B

Slices of a 3-dimensional array by `Int`s, `:` and ranges `a:b` in each place: a new array
(a copy) whose dimensions are those indexed by `:` or a range (`A[:, :, k]` a Matrix,
`A[i, :, k]` a Vector, `A[:, 1:2, :]` a 3-dimensional array); written, the elements of the
array `B` in column-major order, its dimensions other than those of length 1 being the slice's.
"""
getindex(A::Array{T, 3}, I::Int, J::Int, K::Colon) where {T} = _block3v(A, _steps(A, 1, I:I), _steps(A, 2, J:J), _steps(A, 3, K))
getindex(A::Array{T, 3}, I::Int, J::Int, K::UnitRange{Int}) where {T} = _block3v(A, _steps(A, 1, I:I), _steps(A, 2, J:J), _steps(A, 3, K))
getindex(A::Array{T, 3}, I::Int, J::Colon, K::Int) where {T} = _block3v(A, _steps(A, 1, I:I), _steps(A, 2, J), _steps(A, 3, K:K))
getindex(A::Array{T, 3}, I::Int, J::Colon, K::Colon) where {T} = _block3m(A, _steps(A, 1, I:I), _steps(A, 2, J), _steps(A, 3, K), 2, 3)
getindex(A::Array{T, 3}, I::Int, J::Colon, K::UnitRange{Int}) where {T} = _block3m(A, _steps(A, 1, I:I), _steps(A, 2, J), _steps(A, 3, K), 2, 3)
getindex(A::Array{T, 3}, I::Int, J::UnitRange{Int}, K::Int) where {T} = _block3v(A, _steps(A, 1, I:I), _steps(A, 2, J), _steps(A, 3, K:K))
getindex(A::Array{T, 3}, I::Int, J::UnitRange{Int}, K::Colon) where {T} = _block3m(A, _steps(A, 1, I:I), _steps(A, 2, J), _steps(A, 3, K), 2, 3)
getindex(A::Array{T, 3}, I::Int, J::UnitRange{Int}, K::UnitRange{Int}) where {T} = _block3m(A, _steps(A, 1, I:I), _steps(A, 2, J), _steps(A, 3, K), 2, 3)
getindex(A::Array{T, 3}, I::Colon, J::Int, K::Int) where {T} = _block3v(A, _steps(A, 1, I), _steps(A, 2, J:J), _steps(A, 3, K:K))
getindex(A::Array{T, 3}, I::Colon, J::Int, K::Colon) where {T} = _block3m(A, _steps(A, 1, I), _steps(A, 2, J:J), _steps(A, 3, K), 1, 3)
getindex(A::Array{T, 3}, I::Colon, J::Int, K::UnitRange{Int}) where {T} = _block3m(A, _steps(A, 1, I), _steps(A, 2, J:J), _steps(A, 3, K), 1, 3)
getindex(A::Array{T, 3}, I::Colon, J::Colon, K::Int) where {T} = _block3m(A, _steps(A, 1, I), _steps(A, 2, J), _steps(A, 3, K:K), 1, 2)
getindex(A::Array{T, 3}, I::Colon, J::Colon, K::Colon) where {T} = _block3(A, _steps(A, 1, I), _steps(A, 2, J), _steps(A, 3, K))
getindex(A::Array{T, 3}, I::Colon, J::Colon, K::UnitRange{Int}) where {T} = _block3(A, _steps(A, 1, I), _steps(A, 2, J), _steps(A, 3, K))
getindex(A::Array{T, 3}, I::Colon, J::UnitRange{Int}, K::Int) where {T} = _block3m(A, _steps(A, 1, I), _steps(A, 2, J), _steps(A, 3, K:K), 1, 2)
getindex(A::Array{T, 3}, I::Colon, J::UnitRange{Int}, K::Colon) where {T} = _block3(A, _steps(A, 1, I), _steps(A, 2, J), _steps(A, 3, K))
getindex(A::Array{T, 3}, I::Colon, J::UnitRange{Int}, K::UnitRange{Int}) where {T} = _block3(A, _steps(A, 1, I), _steps(A, 2, J), _steps(A, 3, K))
getindex(A::Array{T, 3}, I::UnitRange{Int}, J::Int, K::Int) where {T} = _block3v(A, _steps(A, 1, I), _steps(A, 2, J:J), _steps(A, 3, K:K))
getindex(A::Array{T, 3}, I::UnitRange{Int}, J::Int, K::Colon) where {T} = _block3m(A, _steps(A, 1, I), _steps(A, 2, J:J), _steps(A, 3, K), 1, 3)
getindex(A::Array{T, 3}, I::UnitRange{Int}, J::Int, K::UnitRange{Int}) where {T} = _block3m(A, _steps(A, 1, I), _steps(A, 2, J:J), _steps(A, 3, K), 1, 3)
getindex(A::Array{T, 3}, I::UnitRange{Int}, J::Colon, K::Int) where {T} = _block3m(A, _steps(A, 1, I), _steps(A, 2, J), _steps(A, 3, K:K), 1, 2)
getindex(A::Array{T, 3}, I::UnitRange{Int}, J::Colon, K::Colon) where {T} = _block3(A, _steps(A, 1, I), _steps(A, 2, J), _steps(A, 3, K))
getindex(A::Array{T, 3}, I::UnitRange{Int}, J::Colon, K::UnitRange{Int}) where {T} = _block3(A, _steps(A, 1, I), _steps(A, 2, J), _steps(A, 3, K))
getindex(A::Array{T, 3}, I::UnitRange{Int}, J::UnitRange{Int}, K::Int) where {T} = _block3m(A, _steps(A, 1, I), _steps(A, 2, J), _steps(A, 3, K:K), 1, 2)
getindex(A::Array{T, 3}, I::UnitRange{Int}, J::UnitRange{Int}, K::Colon) where {T} = _block3(A, _steps(A, 1, I), _steps(A, 2, J), _steps(A, 3, K))
getindex(A::Array{T, 3}, I::UnitRange{Int}, J::UnitRange{Int}, K::UnitRange{Int}) where {T} = _block3(A, _steps(A, 1, I), _steps(A, 2, J), _steps(A, 3, K))
setindex!(A::Array{T, 3}, B, I::Int, J::Int, K::Colon) where {T} = _block3!(A, B, _steps(A, 1, I:I), _steps(A, 2, J:J), _steps(A, 3, K))
setindex!(A::Array{T, 3}, B, I::Int, J::Int, K::UnitRange{Int}) where {T} = _block3!(A, B, _steps(A, 1, I:I), _steps(A, 2, J:J), _steps(A, 3, K))
setindex!(A::Array{T, 3}, B, I::Int, J::Colon, K::Int) where {T} = _block3!(A, B, _steps(A, 1, I:I), _steps(A, 2, J), _steps(A, 3, K:K))
setindex!(A::Array{T, 3}, B, I::Int, J::Colon, K::Colon) where {T} = _block3!(A, B, _steps(A, 1, I:I), _steps(A, 2, J), _steps(A, 3, K))
setindex!(A::Array{T, 3}, B, I::Int, J::Colon, K::UnitRange{Int}) where {T} = _block3!(A, B, _steps(A, 1, I:I), _steps(A, 2, J), _steps(A, 3, K))
setindex!(A::Array{T, 3}, B, I::Int, J::UnitRange{Int}, K::Int) where {T} = _block3!(A, B, _steps(A, 1, I:I), _steps(A, 2, J), _steps(A, 3, K:K))
setindex!(A::Array{T, 3}, B, I::Int, J::UnitRange{Int}, K::Colon) where {T} = _block3!(A, B, _steps(A, 1, I:I), _steps(A, 2, J), _steps(A, 3, K))
setindex!(A::Array{T, 3}, B, I::Int, J::UnitRange{Int}, K::UnitRange{Int}) where {T} = _block3!(A, B, _steps(A, 1, I:I), _steps(A, 2, J), _steps(A, 3, K))
setindex!(A::Array{T, 3}, B, I::Colon, J::Int, K::Int) where {T} = _block3!(A, B, _steps(A, 1, I), _steps(A, 2, J:J), _steps(A, 3, K:K))
setindex!(A::Array{T, 3}, B, I::Colon, J::Int, K::Colon) where {T} = _block3!(A, B, _steps(A, 1, I), _steps(A, 2, J:J), _steps(A, 3, K))
setindex!(A::Array{T, 3}, B, I::Colon, J::Int, K::UnitRange{Int}) where {T} = _block3!(A, B, _steps(A, 1, I), _steps(A, 2, J:J), _steps(A, 3, K))
setindex!(A::Array{T, 3}, B, I::Colon, J::Colon, K::Int) where {T} = _block3!(A, B, _steps(A, 1, I), _steps(A, 2, J), _steps(A, 3, K:K))
setindex!(A::Array{T, 3}, B, I::Colon, J::Colon, K::Colon) where {T} = _block3!(A, B, _steps(A, 1, I), _steps(A, 2, J), _steps(A, 3, K))
setindex!(A::Array{T, 3}, B, I::Colon, J::Colon, K::UnitRange{Int}) where {T} = _block3!(A, B, _steps(A, 1, I), _steps(A, 2, J), _steps(A, 3, K))
setindex!(A::Array{T, 3}, B, I::Colon, J::UnitRange{Int}, K::Int) where {T} = _block3!(A, B, _steps(A, 1, I), _steps(A, 2, J), _steps(A, 3, K:K))
setindex!(A::Array{T, 3}, B, I::Colon, J::UnitRange{Int}, K::Colon) where {T} = _block3!(A, B, _steps(A, 1, I), _steps(A, 2, J), _steps(A, 3, K))
setindex!(A::Array{T, 3}, B, I::Colon, J::UnitRange{Int}, K::UnitRange{Int}) where {T} = _block3!(A, B, _steps(A, 1, I), _steps(A, 2, J), _steps(A, 3, K))
setindex!(A::Array{T, 3}, B, I::UnitRange{Int}, J::Int, K::Int) where {T} = _block3!(A, B, _steps(A, 1, I), _steps(A, 2, J:J), _steps(A, 3, K:K))
setindex!(A::Array{T, 3}, B, I::UnitRange{Int}, J::Int, K::Colon) where {T} = _block3!(A, B, _steps(A, 1, I), _steps(A, 2, J:J), _steps(A, 3, K))
setindex!(A::Array{T, 3}, B, I::UnitRange{Int}, J::Int, K::UnitRange{Int}) where {T} = _block3!(A, B, _steps(A, 1, I), _steps(A, 2, J:J), _steps(A, 3, K))
setindex!(A::Array{T, 3}, B, I::UnitRange{Int}, J::Colon, K::Int) where {T} = _block3!(A, B, _steps(A, 1, I), _steps(A, 2, J), _steps(A, 3, K:K))
setindex!(A::Array{T, 3}, B, I::UnitRange{Int}, J::Colon, K::Colon) where {T} = _block3!(A, B, _steps(A, 1, I), _steps(A, 2, J), _steps(A, 3, K))
setindex!(A::Array{T, 3}, B, I::UnitRange{Int}, J::Colon, K::UnitRange{Int}) where {T} = _block3!(A, B, _steps(A, 1, I), _steps(A, 2, J), _steps(A, 3, K))
setindex!(A::Array{T, 3}, B, I::UnitRange{Int}, J::UnitRange{Int}, K::Int) where {T} = _block3!(A, B, _steps(A, 1, I), _steps(A, 2, J), _steps(A, 3, K:K))
setindex!(A::Array{T, 3}, B, I::UnitRange{Int}, J::UnitRange{Int}, K::Colon) where {T} = _block3!(A, B, _steps(A, 1, I), _steps(A, 2, J), _steps(A, 3, K))
setindex!(A::Array{T, 3}, B, I::UnitRange{Int}, J::UnitRange{Int}, K::UnitRange{Int}) where {T} = _block3!(A, B, _steps(A, 1, I), _steps(A, 2, J), _steps(A, 3, K))

# The block of `A` at the ranges `I`, `J`, `K`: a new 3-dimensional array.
function _block3(A::Array, I::StepRange{Int, Int}, J::StepRange{Int, Int}, K::StepRange{Int, Int})
    B = fill(zero(eltype(A)), length(I), length(J), length(K))
    for r in 1:length(K), q in 1:length(J), p in 1:length(I)
        B[p, q, r] = A[I.start + (p - 1) * I.step, J.start + (q - 1) * J.step, K.start + (r - 1) * K.step]
    end
    return B
end
# The block as the Matrix of its dimensions `a` and `b` (the third has length 1).
_block3m(A, I, J, K, a::Int, b::Int) = _reshape(_block3(A, I, J, K), length((I, J, K)[a]), length((I, J, K)[b]))
# The block as a Vector (two of its dimensions have length 1).
_block3v(A, I, J, K) = _reshape(_block3(A, I, J, K), length(I) * length(J) * length(K))

# `A[I, J, K] = B`: the elements of `B` into the block, after Julia's shape check (the sizes
# other than 1 agree).
function _block3!(A::Array, B::AbstractArray, I::StepRange{Int, Int}, J::StepRange{Int, Int}, K::StepRange{Int, Int})
    want = Int[]
    for n in (length(I), length(J), length(K))
        n != 1 && push!(want, n)
    end
    have = Int[]
    for n in size(B)
        n != 1 && push!(have, n)
    end
    want == have || throw(DimensionMismatch("tried to assign $(length(B)) elements to $(length(I) * length(J) * length(K)) destinations"))
    k = 0
    for r in 1:length(K), q in 1:length(J), p in 1:length(I)
        k += 1
        A[I.start + (p - 1) * I.step, J.start + (q - 1) * J.step, K.start + (r - 1) * K.step] = B[k]
    end
    return A
end

"""
    permutedims(A, perm), dropdims(A; dims)

`permutedims` of a 3-dimensional array by a permutation `perm` of `(1, 2, 3)`: a new array
with `B[i₁, i₂, i₃] = A[i_perm⁻¹...]` (`size(B, k) == size(A, perm[k])`); `dropdims` of an
array of any number of dimensions is below ("Rearranging arrays of any number of dimensions").
"""
function permutedims(A::AbstractArray{T, 3}, perm::Tuple{Int, Int, Int}) where {T}
    p1, p2, p3 = perm
    sort([p1, p2, p3]) == [1, 2, 3] || throw(ArgumentError("no valid permutation of dimensions"))
    B = fill(zero(eltype(A)), size(A, p1), size(A, p2), size(A, p3))
    for k in 1:size(A, 3), j in 1:size(A, 2), i in 1:size(A, 1)
        I = (i, j, k)
        B[I[p1], I[p2], I[p3]] = A[i, j, k]
    end
    return B
end

# ---- Rearranging arrays of any number of dimensions -----------------------------------------
# `permutedims`, `PermutedDimsArray`, `reverse(A; dims)`, `circshift`, `repeat` and `dropdims`
# over N dimensions: a loop over the result's linear indices, each turned into its Cartesian
# index (a Vector{Int}) to find the element it takes, so the gradient goes back element by
# element as for any loop.

# The sizes of `A`, `[size(A, 1), ..., size(A, ndims(A))]`.
_sizes(A) = [size(A, e) for e in 1:ndims(A)]

# Into `I`, the Cartesian index of the linear index `k` in an array of sizes `sz`.
function _cartesian!(I::Vector{Int}, sz::Vector{Int}, k::Int)
    r = k - 1
    for e in 1:length(sz)
        I[e] = r % sz[e] + 1
        r = r ÷ sz[e]
    end
    return I
end

# The linear index of the Cartesian index `I` in an array of sizes `sz`.
function _linear(sz::Vector{Int}, I::Vector{Int})
    k = 0
    for e in length(sz):-1:1
        k = k * sz[e] + I[e] - 1
    end
    return k + 1
end

# Zeros of `A`'s element type and `ndims(A)` dimensions of sizes `sz`.
_array_like(A, sz::Vector{Int}) = fill(zero(eltype(A)), _tuple_of(size(A), sz)...)
# The first `length(t)` elements of `v` as a tuple.
_tuple_of(t::Tuple, v::Vector{Int}) = map(e -> v[e], _dim_ids(t))
# `(1, 2, ..., length(t))`.
_dim_ids(t::Tuple) = _count_up((), t...)
_count_up(done::Tuple) = done
_count_up(done::Tuple, x, rest...) = _count_up((done..., length(done) + 1), rest...)
# The tuple `t` without its element at position `d` (`d` known at run time; the result's
# length is one less in any case).
_drop_at(t::Tuple, d::Int) = _drop_at_from((), d, t...)
_drop_at_from(done::Tuple, d::Int) = throw(ArgumentError("dropped dims must be in range 1:$(length(done))"))
_drop_at_from(done::Tuple, d::Int, x, rest...) =
    length(done) + 1 == d ? (done..., rest...) : _drop_at_from((done..., x), d, rest...)
# The tuple `t` without the element equal to `v` (the first).
_drop_value(t::Tuple, v::Int) = _drop_at(t, _position(v, 1, t...))
_position(v::Int, k::Int) = 0
_position(v::Int, k::Int, x, rest...) = x == v ? k : _position(v, k + 1, rest...)

# The permutation `perm` of `1:n` checked, as a Vector.
function _permutation(perm, n::Int)
    p = collect(perm)
    seen = fill(false, n)
    length(p) == n || throw(ArgumentError("no valid permutation of dimensions"))
    for e in p
        (1 <= e <= n && !seen[e]) || throw(ArgumentError("no valid permutation of dimensions"))
        seen[e] = true
    end
    return p
end

"""
    permutedims(A, perm)

The array whose dimension `e` is `A`'s dimension `perm[e]` (`perm` a tuple or vector, a
permutation of `1:ndims(A)`), for any number of dimensions: a new array.
"""
permutedims(A::AbstractArray, perm::Tuple) = _permutedims(A, _permutation(perm, ndims(A)))
permutedims(A::AbstractArray, perm::AbstractVector{Int}) = _permutedims(A, _permutation(perm, ndims(A)))
function _permutedims(A, p::Vector{Int})
    sz = _sizes(A)
    B = _array_like(A, [sz[p[e]] for e in 1:length(p)])
    bsz = _sizes(B)
    I = zeros(Int, length(p))
    J = zeros(Int, length(p))
    for k in 1:length(B)
        _cartesian!(J, bsz, k)
        for e in 1:length(p)
            I[p[e]] = J[e]
        end
        B[k] = A[_linear(sz, I)]
    end
    return B
end

"""
    PermutedDimsArray(A, perm)

`A` with its dimensions permuted by `perm`, as a view: reading it reads `A`, writing it writes
`A` (Julia's lazy `PermutedDimsArray`). zy's is a view holding `A`'s linear indices in the
permuted shape, so `typeof` names a `SubArray`.
"""
PermutedDimsArray(A::Array, perm) = SubArray(A, permutedims(reshape(collect(1:length(A)), size(A)...), perm))
PermutedDimsArray(v::SubArray, perm) = SubArray(v.parent, permutedims(collect(v.indices), perm))

"""
    dropdims(A; dims)

`A` without its dimensions `dims` (an `Int` or a tuple), each of length 1, for any number of
dimensions: a copy here (of a variable, lowering calls the view `_dropdims_shared`).
"""
dropdims(A::AbstractArray; dims) = _dropdims(A, dims)
function _dropdims(A, dims)
    ds = dims isa Tuple ? collect(dims) : [dims]
    for d in ds
        1 <= d <= ndims(A) || throw(ArgumentError("dropped dims must be in range 1:$(ndims(A))"))
        size(A, d) == 1 || throw(ArgumentError("dropped dims must all be size 1"))
    end
    length(unique(ds)) == length(ds) || throw(ArgumentError("dropped dims are not unique"))
    return _reshape_to(A, _drop_dims(size(A), dims))
end
_drop_dims(t::Tuple, d::Int) = _drop_at(t, d)
_drop_dims(t::Tuple, ds::Tuple{Int}) = _drop_at(t, ds[1])
_drop_dims(t::Tuple, ds::Tuple) = _drop_dims(_drop_at(t, maximum(ds)), _drop_value(ds, maximum(ds)))
# The elements of `A` in column-major order as a new array of sizes `sz` (a tuple).
_reshape_to(A, sz::Tuple) = _reshape_fill!(fill(zero(eltype(A)), sz...), A, sz)
# Every dimension dropped: the 0-dimensional array of `A`'s one element.
_reshape_to(A, sz::Tuple{}) = fill(first(A))

"""
    circshift(A, shifts)

`A` shifted circularly by `shifts[d]` places along each dimension `d` (a tuple or vector;
missing ones do not shift; an `Int` shifts along dimension 1), for any number of dimensions.
"""
circshift(A::AbstractArray, shifts::Tuple) = _circshift(A, collect(shifts))
circshift(A::AbstractArray, shifts::AbstractVector{Int}) = _circshift(A, shifts)
circshift(A::AbstractArray, k::Int) = _circshift(A, [k])
function _circshift(A, shifts)
    sz = _sizes(A)
    I = zeros(Int, length(sz))
    B = copy(A)
    for k in 1:length(A)
        _cartesian!(I, sz, k)
        for e in 1:min(length(shifts), length(sz))
            I[e] = mod1(I[e] - shifts[e], sz[e])
        end
        B[k] = A[_linear(sz, I)]
    end
    return B
end

"""
    repeat(A; inner, outer), repeat(A, counts...)

`A` with each element repeated `inner[d]` times along dimension `d`, the whole then tiled
`outer[d]` times (`Int`s or tuples; missing dimensions count 1), for any number of
dimensions; `repeat(A, counts...)` is `outer = counts`. Adding dimensions beyond `ndims(A)`
is refused by name for arrays of more than 2 dimensions.
"""
repeat(A::AbstractArray; inner = 1, outer = 1) = _repeat(A, inner, outer)
repeat(A::AbstractArray, counts::Int...) = _repeat(A, 1, counts)
_repeat(x::AbstractVector, inner::Int, outer::Int) =
    [x[div(mod1(k, length(x) * inner) - 1, inner) + 1] for k in 1:length(x) * inner * outer]
function _repeat(A, inner, outer)
    n = ndims(A)
    inn = _counts(inner, n)
    out = _counts(outer, n)
    sz = _sizes(A)
    B = _array_like(A, [sz[e] * inn[e] * out[e] for e in 1:n])
    bsz = _sizes(B)
    I = zeros(Int, n)
    for k in 1:length(B)
        _cartesian!(I, bsz, k)
        for e in 1:n
            I[e] = div(mod1(I[e], sz[e] * inn[e]) - 1, inn[e]) + 1
        end
        B[k] = A[_linear(sz, I)]
    end
    return B
end
# The counts per dimension of `ndims(A) == n`: 1 where none is given.
function _counts(c, n::Int)
    cs = c isa Int ? [c] : collect(c)
    length(cs) <= n || error("unsupported: `repeat` adding dimensions to an array of $n (Julia's result has $(length(cs))); reshape the array first")
    v = fill(1, n)
    for e in 1:length(cs)
        cs[e] >= 0 || throw(ArgumentError("counts must be non-negative"))
        v[e] = cs[e]
    end
    return v
end

"""
    cat(xs...; dims)

Concatenation along dimension `dims`: `dims = 1` is `vcat`, `dims = 2` `hcat`, `dims = 3`
stacks the parts (numbers, vectors, matrices, 3-dimensional arrays) along a third dimension,
`dims = 4` (parts of up to 4 dimensions) along a fourth, and `dims = (1, 2)` puts them on the diagonal of a block matrix, zeros elsewhere. `dims` must
be written as a number or a tuple (inference chooses the result's type by it).
"""
cat(xs...; dims) = error("unsupported: `cat` with `dims` that are not a constant")

# The parts `xs` (numbers, vectors, matrices and 3-dimensional arrays) concatenated along
# dimension `d` (1, 2 or 3) into a 3-dimensional array; the other dimensions must agree.
function _cat_along(d::Int, xs...)
    m = d == 1 ? _cat3_total(1, xs...) : _cat3_size(xs[1], 1)
    n = d == 2 ? _cat3_total(2, xs...) : _cat3_size(xs[1], 2)
    p = d == 3 ? _cat3_total(3, xs...) : _cat3_size(xs[1], 3)
    return _cat3!(fill(_cat_zero_of(xs...), m, n, p), d, 0, xs...)
end

_cat3!(y, d::Int, at::Int) = y
function _cat3!(y, d::Int, at::Int, x, rest...)
    for e in 1:3
        e == d || _cat3_size(x, e) == size(y, e) || throw(DimensionMismatch("mismatch in dimension $e (expected $(size(y, e)) got $(_cat3_size(x, e)))"))
    end
    for k in 1:_cat3_size(x, 3), j in 1:_cat3_size(x, 2), i in 1:_cat3_size(x, 1)
        v = _cat3_get(x, i, j, k)
        if d == 1
            y[at + i, j, k] = v
        elseif d == 2
            y[i, at + j, k] = v
        else
            y[i, j, at + k] = v
        end
    end
    return _cat3!(y, d, at + _cat3_size(x, d), rest...)
end

_cat3_size(x::Real, d::Int) = 1
_cat3_size(x::AbstractArray, d::Int) = size(x, d)
_cat3_total(d::Int) = 0
_cat3_total(d::Int, x, rest...) = _cat3_size(x, d) + _cat3_total(d, rest...)
_cat3_get(x::Real, i::Int, j::Int, k::Int) = x
_cat3_get(x::AbstractVector, i::Int, j::Int, k::Int) = x[i]
_cat3_get(x::AbstractMatrix, i::Int, j::Int, k::Int) = x[i, j]
_cat3_get(x::AbstractArray{T, 3}, i::Int, j::Int, k::Int) where {T} = x[i, j, k]

# `cat(xs...; dims = 4)`: the parts (numbers, arrays of up to 4 dimensions) one after another
# along a fourth dimension; the first three must agree.
function _cat_along4(xs...)
    m, n, p = _cat3_size(xs[1], 1), _cat3_size(xs[1], 2), _cat3_size(xs[1], 3)
    return _cat4!(fill(_cat_zero_of(xs...), m, n, p, _cat4_total(xs...)), 0, xs...)
end
_cat4!(y, at::Int) = y
function _cat4!(y, at::Int, x, rest...)
    for e in 1:3
        _cat3_size(x, e) == size(y, e) || throw(DimensionMismatch("mismatch in dimension $e (expected $(size(y, e)) got $(_cat3_size(x, e)))"))
    end
    for l in 1:_cat3_size(x, 4), k in 1:size(y, 3), j in 1:size(y, 2), i in 1:size(y, 1)
        y[i, j, k, at + l] = _cat4_get(x, i, j, k, l)
    end
    return _cat4!(y, at + _cat3_size(x, 4), rest...)
end
_cat4_total() = 0
_cat4_total(x, rest...) = _cat3_size(x, 4) + _cat4_total(rest...)
_cat4_get(x, i::Int, j::Int, k::Int, l::Int) = _cat3_get(x, i, j, k)
_cat4_get(x::AbstractArray{T, 4}, i::Int, j::Int, k::Int, l::Int) where {T} = x[i, j, k, l]

# `cat(xs...; dims = (1, 2))`: the parts (numbers, vectors as columns, matrices) as the
# diagonal blocks of a matrix, zeros elsewhere.
function _cat_diag(dims::Tuple{Int, Int}, xs...)
    dims == (1, 2) || dims == (2, 1) || error("unsupported: `cat` with `dims = $dims`; zy concatenates along dimensions 1, 2 and 3 and block-diagonally (`dims = (1, 2)`)")
    y = fill(_cat_zero_of(xs...), _cat_total(1, xs...), _cat_total(2, xs...))
    return _cat_diag!(y, 0, 0, xs...)
end
_cat_diag!(y, r::Int, c::Int) = y
function _cat_diag!(y, r::Int, c::Int, x, rest...)
    for j in 1:_cat_size(x, 2), i in 1:_cat_size(x, 1)
        y[r + i, c + j] = _cat_get(x, i, j)
    end
    return _cat_diag!(y, r + _cat_size(x, 1), c + _cat_size(x, 2), rest...)
end

"""
    stack(t)

The elements of the tuple `t` stacked along a new last dimension (Julia 1.9): numbers into a
Vector, vectors as the columns of a Matrix, matrices as the slices of a 3-dimensional array;
they must have one size (`DimensionMismatch`).
"""
stack(t::Tuple) = _stack(t...)
_stack(x::Real, rest...) = vcat(x, rest...)
_stack(x::AbstractVector, rest...) = hcat(x, rest...)
_stack(x::AbstractMatrix, rest...) = _cat_along(3, x, rest...)

"""
    stack(xs; dims = 2)

The vectors `xs`, all of one length, as the columns of a matrix (Julia 1.9's `stack`), or as
its rows with `dims = 1`.
"""
function stack(xs::AbstractVector{<:AbstractVector}; dims::Int = 2)
    if isempty(xs)
        throw(ArgumentError("`stack` on an empty collection is not allowed"))
    end
    if dims != 1 && dims != 2
        throw(ArgumentError("cannot stack slices ndims(x) = 1 along dims = $dims"))
    end
    m = length(xs[1])
    n = length(xs)
    A = dims == 2 ? _matrix(xs[1], m, n) : _matrix(xs[1], n, m)
    for j in 1:n
        x = xs[j]
        if length(x) != m
            throw(DimensionMismatch("stack expects uniform slices, got axes(x) == (1:$(length(x)),) while first had (1:$m,)"))
        end
        for i in 1:m
            if dims == 2
                A[i, j] = x[i]
            else
                A[j, i] = x[i]
            end
        end
    end
    return A
end

"""
    stack(ts; dims = 2)

The tuples `ts`, all of one length, as the columns of a matrix (Julia's `stack` iterates each
tuple as it does a vector), or as its rows with `dims = 1`.
"""
stack(ts::AbstractVector{<:Tuple}; dims::Int = 2) = stack([[t...] for t in ts]; dims = dims)

"""
    mapslices(f, A; dims)

`f` applied to each slice of `A` along `dims`, the results (numbers, vectors or matrices, all
of one size) in an array of `A`'s number of dimensions: of a matrix the columns (`dims = 1`,
results as the columns of a matrix, a number as a 1×n one) or rows (`dims = 2`); of a
3-dimensional array the matrices `A[:, :, k]` (`dims = (1, 2)`, results `p×q×K`) or the
vectors `A[i, j, :]` (`dims = 3`, results `m×n×p`). `dims` must be written as a constant.
"""
mapslices(f, A; dims) = error("unsupported: `mapslices` with `dims` that are not a constant")

function _mapslices_columns(f, A::AbstractMatrix)
    first = f(A[:, 1])
    R = _columns_out(first, size(A, 2))
    for j in 1:size(A, 2)
        _column_put!(R, j == 1 ? first : f(A[:, j]), j)
    end
    return R
end

function _mapslices_rows(f, A::AbstractMatrix)
    first = f(A[1, :])
    R = _rows_out(first, size(A, 1))
    for i in 1:size(A, 1)
        _row_put!(R, i == 1 ? first : f(A[i, :]), i)
    end
    return R
end

function _mapslices_fibers(f, A::AbstractArray{T, 3}) where {T}
    first = f(A[1, 1, :])
    R = _fibers_out(first, size(A, 1), size(A, 2))
    for j in 1:size(A, 2), i in 1:size(A, 1)
        _fiber_put!(R, i == 1 && j == 1 ? first : f(A[i, j, :]), i, j)
    end
    return R
end

function _mapslices_matrices(f, A::AbstractArray{T, 3}, dims::Tuple{Int, Int}) where {T}
    dims == (1, 2) || error("unsupported: `mapslices` with `dims = $dims`; zy maps the matrices (`dims = (1, 2)`) or vectors (`dims = 3`) of a 3-dimensional array")
    first = f(A[:, :, 1])
    R = _matrices_out(first, size(A, 3))
    for k in 1:size(A, 3)
        _matrix_put!(R, k == 1 ? first : f(A[:, :, k]), k)
    end
    return R
end

# The result arrays for slice results like `r` (a number, or a vector of length p, or a p×q
# matrix), and the writes of one result (a result of another size is a DimensionMismatch).
_columns_out(r::Real, n::Int) = fill(zero(r), 1, n)
_columns_out(r::AbstractVector, n::Int) = fill(zero(eltype(r)), length(r), n)
_column_put!(R, r::Real, j::Int) = (R[1, j] = r)
_column_put!(R, r::AbstractVector, j::Int) = (R[:, j] = r)
_rows_out(r::Real, m::Int) = fill(zero(r), m, 1)
_rows_out(r::AbstractVector, m::Int) = fill(zero(eltype(r)), m, length(r))
_row_put!(R, r::Real, i::Int) = (R[i, 1] = r)
_row_put!(R, r::AbstractVector, i::Int) = (R[i, :] = r)
_fibers_out(r::Real, m::Int, n::Int) = fill(zero(r), m, n, 1)
_fibers_out(r::AbstractVector, m::Int, n::Int) = fill(zero(eltype(r)), m, n, length(r))
_fiber_put!(R, r::Real, i::Int, j::Int) = (R[i, j, 1] = r)
_fiber_put!(R, r::AbstractVector, i::Int, j::Int) = (R[i, j, :] = r)
_matrices_out(r::Real, K::Int) = fill(zero(r), 1, 1, K)
_matrices_out(r::AbstractVector, K::Int) = fill(zero(eltype(r)), length(r), 1, K)
_matrices_out(r::AbstractMatrix, K::Int) = fill(zero(eltype(r)), size(r, 1), size(r, 2), K)
_matrix_put!(R, r::Real, k::Int) = (R[1, 1, k] = r)
_matrix_put!(R, r::AbstractVector, k::Int) = (R[:, 1, k] = r)
_matrix_put!(R, r::AbstractMatrix, k::Int) = (R[:, :, k] = r)

# Complex numbers, as Julia's base/complex.jl defines them: an immutable struct of two real
# parts, its arithmetic written over the parts, so the AD differentiates through them and the
# gradient with respect to `z = x + y*im` is the struct of `∂f/∂x` and `∂f/∂y` (Zygote's
# `∂f/∂x + ∂f/∂y * im`).

"""
    Complex{T<:Real}

The complex number `re + im * im` with real and imaginary parts of type `T` (`Float64`,
`Int` or `Bool`). `ComplexF64` is `Complex{Float64}`.
"""
struct Complex{T<:Real}
    re::T
    im::T
end

# The parts of two different real types in their promoted type.
_cpromote(x::Float64, y::Real) = (x, Float64(y))
_cpromote(x::Real, y::Float64) = (Float64(x), y)
_cpromote(x::Int, y::Bool) = (x, Int(y))
_cpromote(x::Bool, y::Int) = (Int(x), y)
Complex(x::Real, y::Real) = Complex(_cpromote(x, y)...)
Complex(x::Real) = Complex(x, zero(x))
Complex(z::Complex) = z

"""
    im

The imaginary unit, `Complex(false, true)`: `2im`, `1.0 + 2.0im`.
"""
const im = Complex(false, true)

"""
    ComplexF64(re, im), ComplexF64(x)

The `Complex{Float64}` of the parts converted to Float64.
"""
ComplexF64(x::Real, y::Real) = Complex(Float64(x), Float64(y))
ComplexF64(x::Real) = Complex(Float64(x), 0.0)
ComplexF64(z::Complex) = Complex(Float64(z.re), Float64(z.im))
# `convert(Complex{Float64}, x)`, as a typed local or field of that type makes.
convert(::Type{Complex{T}}, x::Real) where {T <: Real} = Complex(convert(T, x), zero(T))
convert(::Type{Complex{T}}, z::Complex) where {T <: Real} =
    Complex(convert(T, z.re), convert(T, z.im))

"""
    complex(x, y), complex(z)

The complex number `x + y*im` (`y` zero by default); a complex `z` itself.
"""
complex(x::Real, y::Real) = Complex(x, y)
complex(x::Real) = Complex(x)
complex(z::Complex) = z

"""
    real(z), imag(z), reim(z)

The real part, the imaginary part, and both as a tuple; of a real number `x`: `x`, `zero(x)`.
"""
real(z::Complex) = z.re
imag(z::Complex) = z.im
real(x::Real) = x
imag(x::Real) = zero(x)
# Of an array of real numbers, as Julia's: `real(A)` and `conj(A)` are `A` itself (not a copy),
# `imag(A)` zeros of its shape; of complex numbers, the parts elementwise.
real(A::AbstractArray{<:Real}) = A
conj(A::AbstractArray{<:Real}) = A
imag(A::AbstractArray{<:Real}) = fill(zero(eltype(A)), size(A))
real(A::AbstractArray{<:Complex}) = real.(A)
imag(A::AbstractArray{<:Complex}) = imag.(A)
reim(z) = (real(z), imag(z))

"""
    conj(z)

The complex conjugate `real(z) - imag(z)*im`; a real number itself.
"""
conj(z::Complex) = Complex(z.re, -z.im)
conj(x::Real) = x

isreal(z::Complex) = iszero(z.im)
isreal(x::Real) = true
iszero(z::Complex) = iszero(z.re) & iszero(z.im)
isone(z::Complex) = isone(z.re) & iszero(z.im)
isfinite(z::Complex) = isfinite(z.re) & isfinite(z.im)
isnan(z::Complex) = isnan(z.re) | isnan(z.im)
isinf(z::Complex) = isinf(z.re) | isinf(z.im)
zero(z::Complex) = Complex(zero(z.re), zero(z.im))
one(z::Complex) = Complex(one(z.re), zero(z.im))
zero(::Type{ComplexF64}) = Complex(0.0, 0.0)
one(::Type{ComplexF64}) = Complex(1.0, 0.0)
zero(::Type{Complex{T}}) where {T <: Real} = Complex(zero(T), zero(T))
one(::Type{Complex{T}}) where {T <: Real} = Complex(one(T), zero(T))
# The product of complex numbers, from the left (`one` of an empty array).
function prod(x::Array{ComplexF64})
    p = one(ComplexF64)
    for k in 1:length(x)
        p *= x[k]
    end
    return p
end
float(z::Complex) = Complex(float(z.re), float(z.im))

abs(z::Complex) = hypot(z.re, z.im)
abs2(z::Complex) = z.re * z.re + z.im * z.im
angle(z::Complex) = atan(z.im, z.re)
angle(x::Real) = atan(zero(x), x)

==(z::Complex, w::Complex) = (z.re == w.re) & (z.im == w.im)
==(z::Complex, x::Real) = isreal(z) && z.re == x
==(x::Real, z::Complex) = isreal(z) && z.re == x

+(z::Complex) = Complex(+z.re, +z.im)
-(z::Complex) = Complex(-z.re, -z.im)
+(z::Complex, w::Complex) = Complex(z.re + w.re, z.im + w.im)
-(z::Complex, w::Complex) = Complex(z.re - w.re, z.im - w.im)
*(z::Complex, w::Complex) = Complex(z.re * w.re - z.im * w.im, z.re * w.im + z.im * w.re)
+(x::Real, z::Complex) = Complex(x + z.re, z.im)
+(z::Complex, x::Real) = Complex(x + z.re, z.im)
# `oftype`: `1 - im` has an Int imaginary part, not `-true`'s.
function -(x::Real, z::Complex)
    r = x - z.re
    return Complex(r, -oftype(r, z.im))
end
-(z::Complex, x::Real) = Complex(z.re - x, z.im)
*(x::Real, z::Complex) = Complex(x * z.re, x * z.im)
*(z::Complex, x::Real) = Complex(x * z.re, x * z.im)
/(z::Complex, x::Real) = Complex(z.re / x, z.im / x)
/(x::Real, z::Complex) = x * inv(z)
/(z::Complex, w::Complex) = _cdiv(float(z), float(w))

# Julia's division of two ComplexF64: Baudin and Smith's robust algorithm (arXiv:1210.4539),
# the parts scaled first where they are near overflow or underflow.
function _cdiv(z::Complex{Float64}, w::Complex{Float64})
    a, b = reim(z)
    c, d = reim(w)
    absa = abs(a)
    absb = abs(b)
    ab = absa >= absb ? absa : absb
    absc = abs(c)
    absd = abs(d)
    cd = absc >= absd ? absc : absd
    if isinf(c) | isinf(d)
        isfinite(z) && return Complex(0.0 * sign(a) * sign(c), -0.0 * sign(b) * sign(d))
        return Complex(NaN, NaN)
    end
    halfov = 0.5 * floatmax(Float64)
    twounϵ = floatmin(Float64) * 2.0 / eps(Float64)
    s = 1.0
    if ab >= halfov || ab <= twounϵ || cd >= halfov || cd <= twounϵ
        bs = 2.0 / (eps(Float64) * eps(Float64))
        if ab >= halfov
            a *= 0.5
            b *= 0.5
            s *= 2.0
        elseif ab <= twounϵ
            a *= bs
            b *= bs
            s /= bs
        end
        if cd >= halfov
            c *= 0.5
            d *= 0.5
            s *= 0.5
        elseif cd <= twounϵ
            c *= bs
            d *= bs
            s *= bs
        end
    end
    if abs(d) <= abs(c)
        p, q = _robust_cdiv1(a, b, c, d)
    else
        p, q = _robust_cdiv1(b, a, d, c)
        q = -q
    end
    return Complex(p * s, q * s)
end

function _robust_cdiv1(a::Float64, b::Float64, c::Float64, d::Float64)
    r = d / c
    t = 1.0 / (c + d * r)
    return (_robust_cdiv2(a, b, c, d, r, t), _robust_cdiv2(b, -a, c, d, r, t))
end

function _robust_cdiv2(a::Float64, b::Float64, c::Float64, d::Float64, r::Float64, t::Float64)
    if r != 0
        br = b * r
        return br != 0 ? (a + br) * t : a * t + (b * t) * r
    end
    return (a + d * (b / c)) * t
end

"""
    inv(z)

`1 / z` of a complex number, computed as Julia does (scaled near overflow and underflow).
"""
function inv(w::Complex{Float64})
    c, d = reim(w)
    absc = abs(c)
    absd = abs(d)
    cd = absc > absd ? absc : absd
    dc = absc > absd ? absd : absc
    if sqrt(floatmin(Float64) / 2) <= cd && cd <= sqrt(floatmax(Float64) / 2)
        return conj(w) / muladd(cd, cd, dc * dc)
    end
    (isinf(c) | isinf(d)) && return Complex(copysign(0.0, c), flipsign(-0.0, d))
    ϵ = eps(Float64)
    bs = 2 / (ϵ * ϵ)
    s = 1.0
    if cd >= floatmax(Float64) / 2
        c *= 0.5
        d *= 0.5
        s = 0.5
    elseif cd <= 2 * floatmin(Float64) / ϵ
        c *= bs
        d *= bs
        s = bs
    end
    if absd <= absc
        p, q = _robust_cinv(c, d)
    else
        q, p = _robust_cinv(-d, -c)
    end
    return Complex(p * s, q * s)
end
inv(z::Complex) = inv(float(z))

function _robust_cinv(c::Float64, d::Float64)
    r = d / c
    z = muladd(d, r, c)
    return (1.0 / z, -r / z)
end

"""
    cis(x)

`exp(im * x) = cos(x) + sin(x) * im` of a real `x`.
"""
function cis(x::Real)
    s, c = sincos(x)
    return Complex(c, s)
end

"""
    cispi(x)

`cis(π * x)` of a real `x`, exact where `sinpi` and `cospi` are (`cispi(0.5) == im`).
"""
function cispi(x::Real)
    s, c = sincospi(x)
    return Complex(c, s)
end

"""
    exp(z)

The complex exponential `exp(re) * cis(im)`, with Julia's values at infinities and NaN.
"""
function exp(z::Complex)
    zr, zi = reim(float(z))
    if isnan(zr)
        return Complex(zr, zi == 0 ? zi : zr)
    elseif !isfinite(zi)
        zr == Inf && return Complex(-zr, NaN)
        zr == -Inf && return Complex(-0.0, copysign(0.0, zi))
        return Complex(NaN, NaN)
    end
    er = exp(zr)
    # Julia returns `Complex(er, zi)` for a zero `zi`; the product below is the same number
    # wherever `er` is finite, and keeps the derivative with respect to `zi`.
    iszero(zi) && !isfinite(er) && return Complex(er, zi)
    s, c = sincos(zi)
    return Complex(er * c, er * s)
end

# Julia's `ssqs`: `x^2 + y^2` as `(ρ, k)` with the parts scaled by `2^-k` where the plain sum
# would overflow or underflow.
function _ssqs(x::Float64, y::Float64)
    k = 0
    ρ = x * x + y * y
    if !isfinite(ρ) && (isinf(x) || isinf(y))
        ρ = Inf
    elseif isinf(ρ) || (ρ == 0 && (x != 0 || y != 0)) || ρ < nextfloat(0.0) / (2 * eps(Float64)^2)
        m = max(abs(x), abs(y))
        k = m == 0 ? 0 : exponent(m)
        xk = ldexp(x, -k)
        yk = ldexp(y, -k)
        ρ = xk * xk + yk * yk
    end
    return (ρ, k)
end

"""
    log(z)

The principal logarithm `log(abs(z)) + angle(z) * im` (the branch cut along the negative reals,
the sign of a zero imaginary part choosing the side), computed as Julia does.
"""
function log(z::Complex)
    z = float(z)
    x, y = reim(z)
    ρ, k = _ssqs(x, y)
    ax = abs(x)
    ay = abs(y)
    θ = ax < ay ? ax : ay
    β = ax < ay ? ay : ax
    if k == 0 && (0.5 < β * β) && (β <= 1.25 || ρ < 3.0)
        ρρ = log1p((β - 1) * (β + 1) + θ * θ) / 2
    else
        ρρ = log(ρ) / 2 + k * 0.6931471805599453
    end
    return Complex(ρρ, angle(z))
end

"""
    sqrt(z)

The principal square root (real part at least zero; `sqrt(-1.0 + 0.0im) == 0.0 + 1.0im`),
computed as Julia does.
"""
function sqrt(z::Complex)
    z = float(z)
    x, y = reim(z)
    x == 0 && y == 0 && return Complex(zero(x), y)
    ρ, k = _ssqs(x, y)
    if isfinite(x)
        ρ = ldexp(abs(x), -k) + sqrt(ρ)
    end
    if isodd(k)
        k = div(k - 1, 2)
    else
        k = div(k, 2) - 1
        ρ += ρ
    end
    ρ = ldexp(sqrt(ρ), k)
    ξ = ρ
    η = y
    if ρ != 0
        if isfinite(η)
            η = (η / ρ) / 2
        end
        if x < 0
            ξ = abs(η)
            η = copysign(ρ, y)
        end
    end
    return Complex(ξ, η)
end

# The holomorphic derivative `1 / 2√z` (ChainRules' rule): differentiating the algorithm would
# lose it where `abs(x)` is taken at a zero real part (`sqrt(2.0im)`).
function rrule(::typeof(sqrt), z::Complex{Float64})
    w = sqrt(z)
    function _csqrt_pullback(ȳ)
        dz = conj(inv(2.0 * w)) * Complex(ȳ.re, ȳ.im)
        return (NoTangent(), (re = real(dz), im = imag(dz)))
    end
    return w, _csqrt_pullback
end
function frule(Δ, ::typeof(sqrt), z::Complex{Float64})
    w = sqrt(z)
    dw = Complex(Δ[2].re, Δ[2].im) / (2.0 * w)
    return w, (re = real(dw), im = imag(dw))
end

# The number of trailing zero bits of a positive `p`.
function _trailing_zeros(p::Int)
    k = 0
    while p % 2 == 0
        p = p >> 1
        k += 1
    end
    return k
end

# A number is its own copy (Julia's `copy(x::Number) = x`).
copy(z::Complex) = z

# Julia's `power_by_squaring` of a complex or rational number or a square matrix `x` and an Int `p >= 0`,
# multiplying in Julia's order so that the bits are Julia's (`A ^ 1` is a copy of `A`).
function _power_by_squaring(x::Union{Complex, Rational, AbstractMatrix}, p::Int)
    p == 1 && return copy(x)
    return _squarings(x, p)
end

# `x ^ p` for `p >= 0` by Julia's squarings, after the caller has handled `p == 1`.
function _squarings(x, p::Int)
    p == 0 && return one(x)
    p == 2 && return x * x
    t = _trailing_zeros(p) + 1
    p = p >> t
    for _ in 1:(t - 1)
        x *= x
    end
    y = x
    while p > 0
        t = _trailing_zeros(p) + 1
        p = p >> t
        for _ in 1:t
            x *= x
        end
        y *= x
    end
    return y
end

# Julia's generic methods for Numbers, for the program's own number types (`struct Dual <:
# Number`): inference calls these where zy's builtin has methods for its own numbers only
# (zy_infer's `number_fallback`). `sum` and `prod` of an array of them (Julia's `mapreduce`
# with `+` and `*`, here from the left), `zero(x)` and `one(x)` (and of the type, `zero(D)`)
# by the program's `convert`
# from 0 and 1, `x ^ p` by Julia's `power_by_squaring` (the same
# products in the same order), and arithmetic and comparisons with another number after
# Julia's promotion: the `promote_rule` the program defines for the two types (in either
# order) and its `convert` methods.
_number_sum(xs) = reduce(+, xs)
_number_mapsum(f, xs) = reduce(+, map(f, xs))
_number_prod(xs) = reduce(*, xs)
_number_zero(x) = convert(typeof(x), 0)
_number_one(x) = convert(typeof(x), 1)
# `zero(T)` and `one(T)` of the type itself.
_number_zero_of(T) = convert(T, 0)
_number_one_of(T) = convert(T, 1)
function _number_power(x, p::Int)
    p == 1 && return x
    p < 0 && throw(DomainError(p, "Cannot raise an integer x to a negative power $p."))
    return _squarings(x, p)
end
# `abs` of a `Real` (Julia's `ifelse(signbit(x), -x, x)` with `signbit(x) = x < 0`).
_number_abs(x) = x < 0 ? -x : x
# `x^-n` of a literal `n` is `inv(x)^n` (Julia's `literal_pow` for types other than its own).
_number_literal_pow(x, p::Int) = p < 0 ? inv(x)^(-p) : x^p
# Julia's `>(x, y) = y < x` and `>=(x, y) = y <= x`.
_number_greater(x, y) = y < x
_number_greater_eq(x, y) = y <= x
function _number_promote(op, x, y)
    T = promote_rule(typeof(x), typeof(y))
    return op(convert(T, x), convert(T, y))
end
function _number_promote_back(op, x, y)
    T = promote_rule(typeof(y), typeof(x))
    return op(convert(T, x), convert(T, y))
end
# Julia's errors where promotion cannot help: no `promote_rule` for the two types (Base's
# `sametype_error`), or one type of the program's own without a method for `op` (`no_op_err`).
_number_promotion_failed(op, x, y) = error("promotion of types $(typeof(x)) and $(typeof(y)) failed to change any arguments")
_number_no_op(op, x, y) = error("$op not defined for $(typeof(x))")

# Julia's `collect` of an array struct of the program (`struct V <: AbstractVector{Float64}`
# with `Base.size` and `Base.getindex` methods, Julia's AbstractArray interface): its elements
# read by `getindex`, column by column, into a new array. The library's functions with no
# method for such a struct read this copy (zy_infer's `reads_user_array`), as Julia's generic
# `AbstractArray` methods read the elements one by one.
_array_collect(v) = _array_collect(v, size(v))
# Julia's `length`, `isempty`, `firstindex` and `lastindex` of an `AbstractArray`, from the
# program's `size(A)` alone (its `getindex` may ask for them: `checkbounds` in it).
_array_length(v) = prod(size(v))
_array_isempty(v) = _array_length(v) == 0
_array_firstindex(v) = 1
_array_lastindex(v) = _array_length(v)
# Julia's `checkbounds(A, i)` of an `Integer` index, by the program's `size`.
function _array_checkbounds(v, i::Integer)
    1 <= i <= _array_length(v) ||
        error(:BoundsError, string("attempt to access ", _array_summary(v), " at index [", i, "]"))
    return nothing
end
# Julia's `summary` of an array: `3-element Ring{Int64}`, `2×3 Grid{Float64}`.
_array_summary(v) = length(size(v)) == 1 ? string(size(v)[1], "-element ", typeof(v)) :
    string(join(size(v), "×"), " ", typeof(v))
# Julia's `size(A, d)` of an `AbstractArray`, from the program's `size(A)`.
_array_size(v, d::Int) = d <= length(size(v)) ? size(v)[d] : 1
_array_collect(v, dims::Tuple{Int}) = [v[i] for i in 1:dims[1]]
_array_collect(v, dims::Tuple{Int, Int}) = [v[i, j] for i in 1:dims[1], j in 1:dims[2]]
_array_collect(v, dims::Tuple{Int, Int, Int}) =
    [v[i, j, k] for i in 1:dims[1], j in 1:dims[2], k in 1:dims[3]]
# Julia's `IndexStyle` trait: how an array is indexed fastest. A program's array type says
# `Base.IndexStyle(::Type{<:V}) = IndexLinear()`; the default is `IndexCartesian()`.
struct IndexLinear end
struct IndexCartesian end
IndexStyle(A::AbstractArray) = IndexStyle(typeof(A))
IndexStyle(::Array) = IndexLinear()
IndexStyle(::AbstractRange) = IndexLinear()
# A row `x'` or `transpose(x)` of a vector is read by one index; the lazy adjoint of a matrix is
# not. A view of a range of a vector, of a row or of a column and a shared reshape of an Array
# are linear, as Julia's `FastSubArray`; of a block or by a list of indices, Julia's style
# depends on the indices (`view(A, :, 1:2)` is linear, `view(A, 1:2, 1:2)` Cartesian), which
# `view` marks the block with (`_view_indexing`). A view of a view, or a slice of a
# three-dimensional array, keeps no mark: refused by name.
IndexStyle(::Adjoint) = IndexLinear()
IndexStyle(::Transpose) = IndexLinear()
IndexStyle(::AdjointMatrix) = IndexCartesian()
IndexStyle(::TransposeMatrix) = IndexCartesian()
IndexStyle(v::SubArray) = _view_style(v.indices, v.reshaped)
_view_style(::AbstractRange, reshaped) = IndexLinear()
_view_style(::Array, ::_Reshaped) = IndexLinear()
_view_style(::Array, style::Union{IndexLinear, IndexCartesian}) = style
_view_style(::Array, ::Nothing) = error("unsupported: IndexStyle of a view of a view or a slice of a three-dimensional array (Julia's depends on the indices, which zy keeps for views of an Array only); test the indices instead")
# Of several arrays, the style that indexes them all: linear only when each is. (Untyped, so
# that LinearAlgebra's wrappers are taken as they are, not read as copies.)
IndexStyle(A, B) = IndexStyle(IndexStyle(A), IndexStyle(B))
IndexStyle(A, B, C...) = IndexStyle(IndexStyle(A), IndexStyle(B, C...))
IndexStyle(::IndexLinear, ::IndexLinear) = IndexLinear()
IndexStyle(::IndexLinear, ::IndexCartesian) = IndexCartesian()
IndexStyle(::IndexCartesian, ::IndexLinear) = IndexCartesian()
IndexStyle(::IndexCartesian, ::IndexCartesian) = IndexCartesian()
# `A[i, j]` of an `IndexLinear()` array struct of the program with only `getindex(A, i::Int)`
# (zy_infer's `user_array_interface`): Julia's generic `getindex`, the element at the linear
# index of `(i, j)` after a bounds check.
function _getindex_linear(A, I::Int...)
    dims = size(A)
    k = 0
    stride = 1
    for d in 1:length(I)
        n = d <= length(dims) ? dims[d] : 1
        1 <= I[d] <= n || throw(BoundsError(A, I))
        k += (I[d] - 1) * stride
        stride *= n
    end
    return A[k + 1]
end

"""
    A ^ p

The integer power of a square matrix, as LinearAlgebra computes it: Julia's
`power_by_squaring` (the same products in the same order), of `inv(A)` for a negative `p`;
`A ^ 0` is `one(A)`, `A ^ 1` a copy.
"""
^(A::AbstractMatrix, p::Int) = p < 0 ? _power_by_squaring(inv(A), -p) : _power_by_squaring(A, p)
# Of an Int matrix, Julia's result is an Int matrix for `p >= 0` and a Float64 one (of `inv(A)`)
# for `p < 0`, a type that depends on the run: zy keeps the first and refuses the second.
^(A::Matrix{Int}, p::Int) = p < 0 ? error("unsupported: a negative power of an Int matrix (a Matrix{Float64}, where a power p >= 0 is a Matrix{Int64}); write `float(A)^p` instead") : _power_by_squaring(A, p)

"""
    z ^ p

A complex power: by squaring for an Int `p` (an integer complex `z` with a negative `p` is
Julia's `DomainError`), else the principal branch `exp(p * log(z))`, computed as Julia's
`_cpow` (exact at integer and real exponents, Julia's signed zeros).
"""
_power_by_squaring(x::Complex{Bool}, p::Int) = _power_by_squaring(Complex(Int(x.re), Int(x.im)), p)
^(z::Complex{Float64}, n::Int) = n >= 0 ? _power_by_squaring(z, n) : _power_by_squaring(inv(z), -n)
function ^(z::Complex, n::Int)
    n < 0 && throw(DomainError(n, "Cannot raise an integer x to a negative power $n.\nConvert input to float."))
    return _power_by_squaring(z, n)
end
# Julia's `literal_pow` of a negative literal exponent: `z^-1` is `inv(z)`, `z^-2` is
# `inv(z) * inv(z)` (so an integer `z` gives a float), other exponents `z^p`.
function _literal_pow(z::Complex, p::Int)
    p == -1 && return inv(z)
    if p == -2
        i = inv(z)
        return i * i
    end
    return z^p
end
^(z::Complex, p::Real) = _cpow(float(z), Complex(float(p)), false)
^(z::Complex, p::Complex) = _cpow(float(z), float(p), false)
^(x::Real, p::Complex) = _cpow(Complex(float(x)), float(p), true)

# Julia's `_cpow(z, p)`; `real_base` when Julia's `z` is a real number (the sign of a zero
# imaginary part of the result differs).
function _cpow(z::Complex{Float64}, p::Complex{Float64}, real_base::Bool)
    if isreal(p)
        pr = real(p)
        if isinteger(pr) && abs(pr) < 2147483647
            iszero(pr) && return Complex(1.0, flipsign(copysign(0.0, pr), imag(z)))
            ip = Int(pr)
            if isreal(z)
                zr = real(z)
                if ip < 0
                    iszero(z) && return Complex(NaN, NaN)
                    re = inv(zr)^(-ip)
                    imz = -imag(z)
                else
                    re = zr^ip
                    imz = imag(z)
                end
                return Complex(re, (iseven(ip) & signbit(zr)) ? -imz : imz)
            end
            return ip < 0 ? _power_by_squaring(inv(z), -ip) : _power_by_squaring(z, ip)
        elseif isreal(z)
            zr = real(z)
            if iszero(zr)
                return pr > 0 ? z : Complex(NaN, NaN)
            elseif zr > 0
                return Complex(zr^pr, real_base ? (zr < 1 ? -imag(p) : imag(p)) : flipsign(imag(z), pr))
            end
            rp = (-zr)^pr
            isfinite(pr) && return rp * Complex(cospi(pr), flipsign(sinpi(pr), imag(z)))
            return iszero(rp) ? Complex(0.0, 0.0) : Complex(NaN, NaN)
        end
        rp = abs(z)^pr
        ϕ = pr * angle(z)
    elseif isreal(z)
        iszero(z) && return real(p) > 0 ? z : Complex(NaN, NaN)
        zr = real(z)
        pr, pi_ = reim(p)
        if zr > 0
            rp = zr^pr
            ϕ = pi_ * log(zr)
        else
            r = -zr
            θ = copysign(3.141592653589793, imag(z))
            rp = r^pr * exp(-pi_ * θ)
            ϕ = pr * θ + pi_ * log(r)
        end
    else
        pr, pi_ = reim(p)
        r = abs(z)
        θ = angle(z)
        rp = r^pr * exp(-pi_ * θ)
        ϕ = pr * θ + pi_ * log(r)
    end
    isfinite(ϕ) && return rp * cis(ϕ)
    return iszero(rp) ? Complex(0.0, 0.0) : Complex(NaN, NaN)
end

# `_cpow` branches on exact real values (for Julia's signed zeros), where differentiating it
# would lose the derivative along the imaginary axis: its pullback is the holomorphic one,
# `z̄ = conj(p z^(p-1)) ȳ`, `p̄ = conj(z^p log(z)) ȳ`.
function rrule(::typeof(_cpow), z::Complex{Float64}, p::Complex{Float64}, real_base::Bool)
    w = _cpow(z, p, real_base)
    function _cpow_pullback(ȳ)
        dy = Complex(ȳ.re, ȳ.im)
        dz = conj(p * _cpow(z, p - 1, real_base)) * dy
        dp = conj(w * log(z)) * dy
        return (NoTangent(), (re = real(dz), im = imag(dz)), (re = real(dp), im = imag(dp)), NoTangent())
    end
    return w, _cpow_pullback
end

# Forward mode's counterpart: `ẇ = p z^(p-1) ż + z^p log(z) ṗ`.
function frule(Δ, ::typeof(_cpow), z::Complex{Float64}, p::Complex{Float64}, real_base::Bool)
    w = _cpow(z, p, real_base)
    dz = Complex(Δ[2].re, Δ[2].im)
    dp = Complex(Δ[3].re, Δ[3].im)
    dw = p * _cpow(z, p - 1, real_base) * dz + w * log(z) * dp
    return w, (re = real(dw), im = imag(dw))
end


"""
    sin(z), cos(z), tanh(z)

The complex sine, cosine and hyperbolic tangent, computed as Julia does.
"""
function sin(z::Complex)
    zr, zi = reim(float(z))
    if zr == 0
        return Complex(zr, sinh(zi))
    elseif !isfinite(zr)
        return (zi == 0 || isinf(zi)) ? Complex(NaN, zi) : Complex(NaN, NaN)
    end
    s, c = sincos(zr)
    return Complex(s * cosh(zi), c * sinh(zi))
end

function cos(z::Complex)
    zr, zi = reim(float(z))
    if zr == 0
        return Complex(cosh(zi), isnan(zi) ? zr : -flipsign(zr, zi))
    elseif !isfinite(zr)
        zi == 0 && return Complex(NaN, isnan(zr) ? 0.0 : -flipsign(zi, zr))
        isinf(zi) && return Complex(Inf, NaN)
        return Complex(NaN, NaN)
    end
    s, c = sincos(zr)
    return Complex(c * cosh(zi), -s * sinh(zi))
end

function tanh(z::Complex)
    ξ, η = reim(float(z))
    isnan(ξ) && η == 0 && return Complex(ξ, η)
    # asinh(prevfloat(typemax(Float64))), the overflow threshold
    if 4 * abs(ξ) > 710.4758600739439
        return Complex(copysign(1.0, ξ), copysign(0.0, η * (isfinite(η) ? sin(2 * abs(η)) : 1.0)))
    end
    t = tan(η)
    β = 1 + t * t
    s = sinh(ξ)
    ρ = sqrt(1 + s * s)
    isinf(t) && return Complex(ρ / s, 1 / t)
    return Complex(β * ρ * s, t) / (1 + β * s * s)
end

"""
    tan(z), sinh(z), cosh(z)

The complex tangent and hyperbolic sine and cosine, from `tanh`, `sin` and `cos` as Julia
computes them (`tan(z) = -i tanh(iz)`, `sinh(z) = -i sin(iz)`, `cosh(z) = cos(iz)`).
"""
function tan(z::Complex)
    zr, zi = reim(z)
    w = tanh(Complex(-zi, zr))
    return Complex(imag(w), -real(w))
end

function sinh(z::Complex)
    zr, zi = reim(z)
    w = sin(Complex(zi, zr))
    return Complex(imag(w), real(w))
end

function cosh(z::Complex)
    zr, zi = reim(z)
    return cos(Complex(zi, -zr))
end

"""
    log10(z), log2(z)

`log(z) / log(10)` and `log(z) / log(2)` of a complex number.
"""
log10(z::Complex) = log(z) / 2.302585092994046
log2(z::Complex) = log(z) / 0.6931471805599453

"""
    expm1(z), log1p(z)

`exp(z) - 1` and `log(1 + z)` of a complex number, accurate near 0, as Julia's
`base/complex.jl` computes them (`expm1` through `expm1` of the real part and `sin(zi/2)²`,
`log1p` by Kahan's `log(u) z / (u - 1)` with `u = 1 + z`).
"""
function expm1(z::Complex)
    zr, zi = reim(float(z))
    if isnan(zr)
        return Complex(zr, zi == 0 ? zi : zr)
    elseif !isfinite(zi)
        zr == Inf && return Complex(-zr, NaN)
        zr == -Inf && return Complex(-1.0, copysign(0.0, zi))
        return Complex(NaN, NaN)
    end
    em = expm1(zr)
    zi == 0 && return Complex(em, zi)
    e = em + 1.0
    isfinite(e) || return Complex(e * cos(zi), e * sin(zi))
    h = sin(0.5 * zi)
    return Complex(em - 2.0 * e * h * h, e * sin(zi))
end
function log1p(z::Complex)
    zr, zi = reim(float(z))
    if isfinite(zr)
        isinf(zi) && return log(Complex(zr, zi))
        u = 1.0 + Complex(zr, zi)
        u == 1 && return Complex(zr, zi)
        real(u) <= 0 && return log(u)
        return log(u) * Complex(zr, zi) / (u - 1.0)
    elseif isnan(zr)
        return Complex(zr, zr)
    elseif isfinite(zi)
        return Complex(Inf, copysign(zr > 0 ? 0.0 : 3.141592653589793, zi))
    end
    return Complex(Inf, NaN)
end

"""
    asin(z), acos(z), atan(z), asinh(z), atanh(z)

The inverse functions of a complex number on Julia's principal branches, by Julia's
`base/complex.jl` algorithms (Kahan's, from the square roots of `1 - z` and `1 + z`; `atanh`
scaled against overflow; `atan` and `asinh` by the rotations `atan(z) = -i atanh(iz)`,
`asinh(z) = -i asin(iz)`).
"""
function asin(z::Complex)
    zr, zi = reim(float(z))
    isinf(zr) && isinf(zi) && return Complex(copysign(0.7853981633974483, zr), zi)
    isnan(zi) && isinf(zr) && return Complex(zi, Inf)
    w = Complex(zr, zi)
    a = sqrt(1.0 - w)
    b = sqrt(1.0 + w)
    ξ = zr == 0 ? zr : !isfinite(zr) ? 1.5707963267948966 * sign(zr) : atan(zr, real(a * b))
    return Complex(ξ, asinh(copysign(imag(conj(a) * b), zi)))
end
function acos(z::Complex)
    zr, zi = reim(float(z))
    if isnan(zr)
        return isinf(zi) ? Complex(zr, -zi) : Complex(zr, zr)
    elseif isnan(zi)
        isinf(zr) && return Complex(zi, abs(zr))
        zr == 0 && return Complex(1.5707963267948966, zi)
        return Complex(zi, zi)
    elseif zr == 0 && zi == 0
        return Complex(1.5707963267948966, -zi)
    elseif zr == Inf && zi == 0 && !signbit(zi)
        return Complex(zi, -zr)
    elseif zr == -Inf && zi == 0 && signbit(zi)
        return Complex(3.141592653589793, -zr)
    end
    w = Complex(zr, zi)
    a = sqrt(1.0 - w)
    b = sqrt(1.0 + w)
    ξ = 2.0 * atan(real(a), real(b))
    η = asinh(imag(conj(b) * a))
    isinf(zr) && isinf(zi) && return Complex(ξ - 0.7853981633974483 * sign(zr), η)
    return Complex(ξ, η)
end
function atanh(z::Complex)
    # θ = sqrt(floatmax(Float64)) / 4: beyond it `1/z` is the real part.
    θ = 3.3519519824856493e153
    ρ = 1.0 / θ
    x, y = reim(float(z))
    ax, ay = abs(x), abs(y)
    if ax > θ || ay > θ
        if isnan(y)
            isinf(x) && return Complex(copysign(0.0, x), y)
            return Complex(real(1.0 / Complex(x, y)), y)
        end
        isinf(y) && return Complex(copysign(0.0, x), copysign(1.5707963267948966, y))
        return Complex(real(1.0 / Complex(x, y)), copysign(1.5707963267948966, y))
    end
    β = copysign(1.0, x)
    x, y = β * x, β * y
    if x == 1
        y == 0 && return β * Complex(Inf, y)
        ym = ay + ρ
        ξ = log(sqrt(sqrt(4.0 + y * y)) / sqrt(ym))
        return β * Complex(ξ, copysign(1.5707963267948966 + atan(ym / 2.0), y) / 2.0)
    end
    ysq = (ay + ρ)^2
    ξ = x == 0 ? x : log1p(4.0 * x / ((1.0 - x)^2 + ysq)) / 4.0
    return β * Complex(ξ, angle(Complex((1.0 - x) * (1.0 + x) - ysq, 2.0 * y)) / 2.0)
end
atan(z::Complex) = (w = atanh(Complex(-imag(z), real(z))); Complex(imag(w), -real(w)))
asinh(z::Complex) = (w = asin(Complex(-imag(z), real(z))); Complex(imag(w), -real(w)))
# Julia's: the real part from the product of the square roots beside 1 (accurate near it), the
# imaginary part twice an angle, so the cut below 1 keeps the sign of a zero imaginary part
# (`acosh(-2.0 - 0.0im)` has imaginary part -π); NaNs and the corner (-Inf, -0.0) as Julia's.
function acosh(z::Complex)
    w = float(z)
    zr, zi = reim(w)
    if isnan(zr) || isnan(zi)
        return Complex(isinf(zr) || isinf(zi) ? Inf : NaN, NaN)
    elseif zr == -Inf && iszero(zi) && signbit(zi)
        return Complex(Inf, -pi)
    end
    ξ = asinh(real(sqrt(conj(w - 1)) * sqrt(w + 1)))
    η = 2.0 * atan(imag(sqrt(w - 1)), real(sqrt(w + 1)))
    if isinf(zr) && isinf(zi)
        η -= pi / 4 * sign(zi) * sign(zr)
    end
    return Complex(ξ, η)
end
# `2^z` and `10^z` as Julia computes them: the real part's power, turned by the imaginary part
# times the base's logarithm.
exp2(z::Complex) = _exp_turned(exp2(real(float(z))), imag(float(z)) * log(2.0))
exp10(z::Complex) = _exp_turned(exp10(real(float(z))), imag(float(z)) * log(10.0))
_exp_turned(r, θ) = Complex(r * cos(θ), r * sin(θ))

"""
    adjoint(z), transpose(z)

`z'` of a complex number is its conjugate; its transpose is itself.
"""
adjoint(z::Complex) = conj(z)
transpose(z::Complex) = z

"""
    zeros(ComplexF64, n...), ones(ComplexF64, n...)

Arrays of complex zeros and ones.
"""
zeros(::Type{ComplexF64}, n::Int) = fill(Complex(0.0, 0.0), n)
zeros(::Type{ComplexF64}, m::Int, n::Int) = fill(Complex(0.0, 0.0), m, n)
ones(::Type{ComplexF64}, n::Int) = fill(Complex(1.0, 0.0), n)
ones(::Type{ComplexF64}, m::Int, n::Int) = fill(Complex(1.0, 0.0), m, n)

# `fill(z, n)`: every element the same complex number (immutable, so no aliasing to see).
fill(z::Complex, n::Int) = [z for _ in 1:n]
fill(z::Complex, m::Int, n::Int) = [z for _ in 1:m, _ in 1:n]

"""
    sum(z)

The sum of an array of complex numbers, added as Julia's `sum` adds them: in order for fewer
than 16 elements, else pairwise in blocks of 1024.
"""
function sum(x::AbstractArray{Complex{T}}) where {T}
    n = length(x)
    n == 0 && return Complex(zero(T), zero(T))
    n == 1 && return x[1]
    if n < 16
        s = x[1] + x[2]
        for i in 3:n
            s += x[i]
        end
        return s
    end
    return _complex_pairwise_sum(x, 1, n)
end

function _complex_pairwise_sum(x, lo::Int, hi::Int)
    lo == hi && return x[lo]
    if hi - lo < 1024
        s = x[lo] + x[lo + 1]
        for i in (lo + 2):hi
            s += x[i]
        end
        return s
    end
    mid = lo + (hi - lo) >> 1
    return _complex_pairwise_sum(x, lo, mid) + _complex_pairwise_sum(x, mid + 1, hi)
end

"""
    dot(x, y)

`sum(conj(x[i]) * y[i])` for vectors of complex numbers (the first argument conjugated).
"""
dot(x::AbstractVector{<:Complex}, y::AbstractVector) = _complex_dot(x, y)
dot(x::AbstractVector{<:Real}, y::AbstractVector{<:Complex}) = _complex_dot(x, y)
dot(x::Complex, y::Number) = conj(x) * y
dot(x::Real, y::Complex) = x * y

function _complex_dot(x, y)
    length(x) == length(y) || throw(DimensionMismatch("first array has length $(length(x)) which does not match the length of the second, $(length(y))."))
    s = conj(x[1]) * y[1]
    for i in 2:length(x)
        s += conj(x[i]) * y[i]
    end
    return s
end

# `ComplexF64[a, b]`: each element converted.
getindex(::Type{ComplexF64}, xs::Number...) = [map(ComplexF64, xs)...]
getindex(::Type{ComplexF64}) = zeros(ComplexF64, 0)

# `[a, b]`, `[a b; c d]` mixing complex and real numbers (or complex numbers of different
# part types): inference converts each element to the promoted complex type, as Julia's `vect`
# and `hvcat` promote, the type of `_complex_proto` of the elements (a zero).
_complex_proto(x::Number) = zero(x)
_complex_proto(x::Number, rest::Number...) = _complex_join(zero(x), _complex_proto(rest...))
# The complex zero of the promoted part type (`Bool` and `Complex{Bool}` stay `Bool` parts).
_complex_join(a, b) = (r = _cat_promote(real(a), real(b)); Complex(r, r))
_complex_convert(p::Complex{T}, x::Real) where {T} = Complex(T(x), T(0))
_complex_convert(p::Complex{T}, z::Complex) where {T} = Complex(T(z.re), T(z.im))
# `A[k] = x`, `A[i, j] = x` into an array of complex numbers (inference calls it for an `x` of
# another type or two indices): `x` converted to the element type, as Julia's `setindex!`
# converts, and a matrix written by its linear index (the AD follows writes into arrays of
# structs by linear index); out of bounds, the read's BoundsError.
_complex_setindex!(A::Array{Complex{T}}, x::Number, k::Int) where {T} = (A[k] = _complex_convert(Complex(T(0), T(0)), x))
function _complex_setindex!(A::Matrix{Complex{T}}, x::Number, i::Int, j::Int) where {T}
    m, n = size(A)
    if i < 1 || i > m || j < 1 || j > n
        A[i, j]
    end
    return (A[(j - 1) * m + i] = _complex_convert(Complex(T(0), T(0)), x))
end

# `sum(f, x)` of an `f` giving complex numbers: Julia's `mapreduce(f, +, x)`, which adds the
# values as `sum` adds an array of them.
_complex_mapsum(f, x) = sum(map(f, x))

"""
    Transpose(x)

`transpose(x)` of a vector: Julia's `Transpose{T, Vector{T}}`, the 1×n row read through `x`
(a write to either is seen in the other), a type of its own, not an `Adjoint`: for complex
numbers it does not conjugate, and `isa`, dispatch and `typeof` tell the two apart. A row
times a vector is a number, times a matrix a row, a vector times it the outer product, and
numbers scale it; the library's functions without a method for it (broadcasting, `sum`,
`==`, ...) read the 1×n matrix `collect(t)`.
"""
struct Transpose{V}
    parent::V
end
transpose(x::AbstractVector) = Transpose(x)
transpose(t::Transpose) = t.parent
adjoint(t::Transpose) = _conj_elems(t.parent)
# The array of the elements' adjoints: the array itself for real numbers, else the conjugates.
_conj_elems(x::AbstractArray{<:Real}) = x
_conj_elems(x::AbstractArray) = conj.(x)
parent(t::Transpose) = t.parent
vec(t::Transpose) = t.parent
size(t::Transpose) = (1, length(t.parent))
size(t::Transpose, d::Int) = d == 2 ? length(t.parent) : 1
length(t::Transpose) = length(t.parent)
summary(t::Transpose) = "1×$(length(t.parent)) transpose(::Vector{$(eltype(t.parent))}) with eltype $(eltype(t.parent))"
function getindex(t::Transpose, i::Int, j::Int)
    n = length(t.parent)
    (i == 1 && 1 <= j <= n) || throw(BoundsError(t, (i, j)))
    return t.parent[j]
end
getindex(t::Transpose, j::Int) = t.parent[j]
function setindex!(t::Transpose, v, i::Int, j::Int)
    n = length(t.parent)
    (i == 1 && 1 <= j <= n) || throw(BoundsError(t, (i, j)))
    t.parent[j] = v
    return t
end
function setindex!(t::Transpose, v, j::Int)
    t.parent[j] = v
    return t
end
copy(t::Transpose) = Transpose(copy(t.parent))
sum(t::Transpose) = sum(t.parent)
prod(t::Transpose) = prod(t.parent)
maximum(t::Transpose) = maximum(t.parent)
minimum(t::Transpose) = minimum(t.parent)
sum(f, t::Transpose) = sum(f, t.parent)
# `f.(x, transpose(y))` and the others: as for a row `y'`, the matrix of the calls.
broadcast(f, t::Transpose) = broadcast(f, collect(t))
broadcast(f, x::AbstractVector, t::Transpose) = _outer_broadcast(f, x, t.parent)
broadcast(f, t::Transpose, x::AbstractVector) = _outer_broadcast_flipped(f, x, t.parent)
broadcast(f, t::Transpose, y) = broadcast(f, collect(t), y)
broadcast(f, x, t::Transpose) = broadcast(f, x, collect(t))
broadcast(f, t::Transpose, u::Transpose) = broadcast(f, collect(t), collect(u))
# `sum(transpose(x); dims)` and friends: those of the 1×n matrix.
_sum_dims(t::Transpose, d::Int) = _sum_dims(collect(t), d)
_reduce_dims(op, t::Transpose, d::Int) = _reduce_dims(op, collect(t), d)
collect(t::Transpose) = reshape(collect(t.parent), 1, length(t.parent))

*(t::Transpose, y::AbstractVector) = _transpose_dot(t.parent, y)
*(t::Transpose, A::AbstractMatrix) = Transpose(transpose(A) * t.parent)
*(x::AbstractVector, t::Transpose) = _outer_product(x, t.parent)
*(a::Number, t::Transpose) = Transpose(a * t.parent)
*(t::Transpose, a::Number) = Transpose(t.parent * a)
/(t::Transpose, a::Number) = Transpose(t.parent / a)
+(t::Transpose, u::Transpose) = Transpose(t.parent + u.parent)
-(t::Transpose, u::Transpose) = Transpose(t.parent - u.parent)
-(t::Transpose) = Transpose(-t.parent)

# `x * transpose(y)`: of Float64 vectors the product primitive with the row `y'`, one kernel
# with its own rule (the broadcast over a 1×n matrix is much slower), else the products
# broadcast over that matrix.
_outer_product(x::Vector{Float64}, y::Vector{Float64}) = x * y'
_outer_product(x, y) = x .* collect(Transpose(y))

# `transpose(x) * y`: `dot` of real vectors (no conjugate to take), else the sum of the
# products in order.
_transpose_dot(x::AbstractVector{<:Real}, y::AbstractVector{<:Real}) = dot(x, y)
function _transpose_dot(x, y)
    length(x) == length(y) || throw(DimensionMismatch("first array has length $(length(x)) which does not match the length of the second, $(length(y))."))
    return sum(x .* y)
end

"""
    AdjointMatrix(A), TransposeMatrix(A)

`A'` and `transpose(A)` of a matrix of real or complex numbers, and of a real view (of a
matrix, or `v'` of a vector view, the 1×n row): Julia's lazy `Adjoint{T, Matrix{T}}` and
`Transpose{T, Matrix{T}}`
(`typeof` prints those names; `isa Adjoint` or `isa Transpose` and `isa AbstractMatrix`
hold, `isa Matrix` does not, so a method for `Matrix` does not take them).
Each reads `A` with the indices swapped: a later write to `A` is seen through it, and
`At[i, j] = v` writes `A[j, i]`; `(A')'` is `A` itself. The adjoint reads and writes the
complex elements conjugated (`A'[i, j] == conj(A[j, i])`), as Julia's applies `adjoint` to
each. Products with a matrix or a vector multiply by the transposed matrix (compiled code
calls the matrix product with its transpose flag and copies nothing); `copy`, `collect` and
`Matrix` give the transposed `Matrix`, which is also what the library's functions without a
method for them read (`\`, `norm`, broadcasting, `sum`, `==`, ...). For real numbers the two
read the same elements.
"""
struct AdjointMatrix{M}
    parent::M
end
struct TransposeMatrix{M}
    parent::M
end
adjoint(A::Matrix{<:Number}) = AdjointMatrix(A)
transpose(A::Matrix{<:Number}) = TransposeMatrix(A)
# Of a view (or a shared reshape) the same wrapper over the view, reading and writing through
# it; `transpose` of a vector view is the row `Transpose` above.
adjoint(v::SubArray{<:Array{<:Real}, I, R}) where {I, R} = AdjointMatrix(v)
transpose(v::SubArray{<:Array{<:Real}, I, R}) where {I, R} = _transpose_view(v, size(v))
_transpose_view(v, n::Tuple{Int}) = Transpose(v)
_transpose_view(v, mn::Tuple{Int, Int}) = TransposeMatrix(v)
# Each method names one of the two structs (not their `Union`), so that a program holds them
# only once it makes the wrapper.
adjoint(a::AdjointMatrix) = a.parent
adjoint(a::TransposeMatrix) = a.parent
transpose(a::AdjointMatrix) = a.parent
transpose(a::TransposeMatrix) = a.parent
parent(a::AdjointMatrix) = a.parent
parent(a::TransposeMatrix) = a.parent
size(a::AdjointMatrix) = _lazy_size(a.parent)
size(a::TransposeMatrix) = _lazy_size(a.parent)
size(a::AdjointMatrix, d::Int) = _lazy_size(a.parent, d)
size(a::TransposeMatrix, d::Int) = _lazy_size(a.parent, d)
length(a::AdjointMatrix) = length(a.parent)
length(a::TransposeMatrix) = length(a.parent)
eltype(a::AdjointMatrix) = eltype(a.parent)
eltype(a::TransposeMatrix) = eltype(a.parent)
ndims(a::AdjointMatrix) = 2
ndims(a::TransposeMatrix) = 2
_lazy_size(A) = (size(A, 2), size(A, 1))
_lazy_size(A, d::Int) = d == 1 ? size(A, 2) : d == 2 ? size(A, 1) : 1
# Of a vector view, the 1×n row.
_lazy_size(v::AbstractVector) = (1, length(v))
_lazy_size(v::AbstractVector, d::Int) = d == 2 ? length(v) : 1
# Julia's `2×3 adjoint(::Matrix{Float64}) with eltype Float64` (or `transpose`).
function summary(a::Union{AdjointMatrix, TransposeMatrix})
    m, n = _lazy_size(a.parent)
    T = eltype(a.parent)
    return "$(m)×$(n) $(_lazy_word(a))(::Matrix{$T}) with eltype $T"
end
_lazy_word(a::AdjointMatrix) = "adjoint"
_lazy_word(a::TransposeMatrix) = "transpose"
function _lazy_check(a, i::Int, j::Int)
    m, n = _lazy_size(a.parent)
    (1 <= i <= m && 1 <= j <= n) || throw(BoundsError(a, (i, j)))
    return nothing
end
function _lazy_check(a, k::Int)
    m, n = _lazy_size(a.parent)
    1 <= k <= m * n || throw(BoundsError(a, k))
    return nothing
end
getindex(a::AdjointMatrix, i::Int, j::Int) = _lazy_get(a, i, j)
getindex(a::TransposeMatrix, i::Int, j::Int) = _lazy_get(a, i, j)
getindex(a::AdjointMatrix, k::Int) = _lazy_get(a, k)
getindex(a::TransposeMatrix, k::Int) = _lazy_get(a, k)
setindex!(a::AdjointMatrix, v, i::Int, j::Int) = _lazy_set!(a, v, i, j)
setindex!(a::TransposeMatrix, v, i::Int, j::Int) = _lazy_set!(a, v, i, j)
setindex!(a::AdjointMatrix, v, k::Int) = _lazy_set!(a, v, k)
setindex!(a::TransposeMatrix, v, k::Int) = _lazy_set!(a, v, k)
function _lazy_get(a, i::Int, j::Int)
    _lazy_check(a, i, j)
    return _lazy_elem(a, _swapped_get(a.parent, i, j))
end
# Linear index `k` in the wrapper's own column-major order.
function _lazy_get(a, k::Int)
    _lazy_check(a, k)
    m = _lazy_size(a.parent, 1)
    return _lazy_elem(a, _swapped_get(a.parent, mod1(k, m), div(k - 1, m) + 1))
end
function _lazy_set!(a, v, i::Int, j::Int)
    _lazy_check(a, i, j)
    _swapped_set!(a.parent, _lazy_elem(a, v), i, j)
    return a
end
function _lazy_set!(a, v, k::Int)
    _lazy_check(a, k)
    m = _lazy_size(a.parent, 1)
    _swapped_set!(a.parent, _lazy_elem(a, v), mod1(k, m), div(k - 1, m) + 1)
    return a
end
# An element read or written through the wrapper: an adjoint's complex number conjugated.
_lazy_elem(a::AdjointMatrix, z::Complex) = conj(z)
_lazy_elem(a, x) = x
# The parent's element `[j, i]`; of a vector view (whose wrapper is a row, `i == 1`) `[j]`.
_swapped_get(P, i::Int, j::Int) = P[j, i]
_swapped_get(P::AbstractVector, i::Int, j::Int) = P[j]
_swapped_set!(P, v, i::Int, j::Int) = (P[j, i] = v)
_swapped_set!(P::AbstractVector, v, i::Int, j::Int) = (P[j] = v)
# The matrix a lazy transpose of `P` stands for, as a new `Matrix`.
_transposed(P::Matrix{<:Complex}) = permutedims(P)
_transposed(P::Matrix) = _transpose_copy(P)
_transposed(P::AbstractMatrix) = _transpose_copy(collect(P))
_transposed(P::AbstractVector) = reshape(collect(P), 1, length(P))
# The matrix an adjoint of `P` stands for: transposed, complex numbers conjugated.
_adjointed(P) = _conj_elems(_transposed(P))
copy(a::AdjointMatrix) = _adjointed(a.parent)
copy(a::TransposeMatrix) = _transposed(a.parent)
collect(a::AdjointMatrix) = _adjointed(a.parent)
collect(a::TransposeMatrix) = _transposed(a.parent)
# Julia's `convert(Matrix{T}, A')`: the transposed matrix, its elements converted (a typed
# local `M::Matrix{Float64} = A'`); to an abstract matrix type, the wrapper itself.
convert(T, a::Union{AdjointMatrix, TransposeMatrix}) =
    a isa T ? a : T <: AbstractMatrix ? _matrix_of(eltype(T), collect(a)) : _no_convert(T, a)
# `sort(A'; dims)`, `sortslices(transpose(A); dims)`: Julia sorts the wrapper's elements into a
# new Matrix, as sorting its copy does.
sort(a::Union{AdjointMatrix, TransposeMatrix}; dims::Int, rev::Bool = false, by = identity) =
    sort(collect(a); dims = dims, rev = rev, by = by)
sortslices(a::Union{AdjointMatrix, TransposeMatrix}; dims::Int, rev::Bool = false) =
    sortslices(collect(a); dims = dims, rev = rev)
# Products: the transposed matrix product (`A' * B` is `Aᵀ B`, `A' * B'` is `(B A)ᵀ`, a row
# times `A'` is the row of `A x`), an adjoint's complex parent conjugated (`A' * B` is
# `conj(A)ᵀ B`).
*(a::AdjointMatrix, B::Matrix{<:Real}) = _transposed_times(_conj_elems(a.parent), B)
*(a::TransposeMatrix, B::Matrix{<:Real}) = _transposed_times(a.parent, B)
*(A::Matrix{<:Real}, b::AdjointMatrix) = A * _adjointed(b.parent)
*(A::Matrix{<:Real}, b::TransposeMatrix) = A * _transposed(b.parent)
*(a::AdjointMatrix, b::AdjointMatrix) = _adjointed(b.parent * a.parent)
*(a::TransposeMatrix, b::TransposeMatrix) = _transposed(b.parent * a.parent)
*(a::AdjointMatrix, b::TransposeMatrix) = _transposed(b.parent * _conj_elems(a.parent))
*(a::TransposeMatrix, b::AdjointMatrix) = _transposed(_conj_elems(b.parent) * a.parent)
*(a::AdjointMatrix, x::Vector{<:Real}) = _transposed_times(_conj_elems(a.parent), x)
*(a::TransposeMatrix, x::Vector{<:Real}) = _transposed_times(a.parent, x)
# Times a view: the product with its copy (of a vector view's row and a vector view, `v' * w`,
# the inner product, a number as Julia's, not the 1×n matrix's 1-vector).
*(a::AdjointMatrix, x::SubArray) = a * collect(x)
*(a::TransposeMatrix, x::SubArray) = a * collect(x)
*(r::Adjoint, a::AdjointMatrix) = (a.parent * r')'
*(r::Adjoint, a::TransposeMatrix) = (a.parent * r')'
*(c::Real, a::AdjointMatrix) = c * _adjointed(a.parent)
*(c::Real, a::TransposeMatrix) = c * _transposed(a.parent)
*(a::AdjointMatrix, c::Real) = _adjointed(a.parent) * c
*(a::TransposeMatrix, c::Real) = _transposed(a.parent) * c
# `Pᵀ X`: the matrix product with the transposed matrix; of a vector view's row (`v' * y`)
# the inner product, and a row times a matrix the row of `Bᵀ v`.
_transposed_times(P, X) = _transposed(P) * X
_transposed_times(v::AbstractVector, y::AbstractVector) = dot(v, y)
_transposed_times(v::AbstractVector, B::AbstractMatrix) = (transpose(B) * v)'
# Negation keeps the wrapper, as LinearAlgebra's; `A' + B'`, `2A'` and broadcasts are Julia's
# generic array arithmetic, whose result is a `Matrix` (the library reads the copies).
-(a::AdjointMatrix) = AdjointMatrix(-a.parent)
-(a::TransposeMatrix) = TransposeMatrix(-a.parent)
# A lazy transpose's columns are its parent's rows (views of the parent, so writes through them
# reach it), and a view of it with one Int index is the parent's view with the indices swapped
# (of an adjoint, whose views would conjugate, a real parent's only).
eachcol(a::AdjointMatrix) = eachrow(_unconjugated(a.parent))
eachcol(a::TransposeMatrix) = eachrow(a.parent)
eachrow(a::AdjointMatrix) = eachcol(_unconjugated(a.parent))
eachrow(a::TransposeMatrix) = eachcol(a.parent)
# A row vector's (`v'`, `transpose(v)`, 1×n) one row is a view of all of `v`, its columns views
# of one element each (of a real `v`: an adjoint's views would conjugate).
eachrow(r::Union{Adjoint, Transpose}) = RowSlices(r)
eachcol(r::Union{Adjoint, Transpose}) = ColumnSlices(r)
function view(r::Union{Adjoint, Transpose}, i::Int, ::Colon)
    checkbounds(r, i, 1)
    return view(_unconjugated(parent(r)), :)
end
function view(r::Union{Adjoint, Transpose}, ::Colon, j::Int)
    checkbounds(r, 1, j)
    return view(_unconjugated(parent(r)), j:j)
end
view(a::AdjointMatrix, i::Int, J) = view(_unconjugated(a.parent), J, i)
view(a::TransposeMatrix, i::Int, J) = view(a.parent, J, i)
view(a::AdjointMatrix, I, j::Int) = view(_unconjugated(a.parent), j, I)
view(a::TransposeMatrix, I, j::Int) = view(a.parent, j, I)
_unconjugated(P::AbstractArray{<:Real}) = P
_unconjugated(P) = error("unsupported: a view, `eachrow` or `eachcol` of `A'` of a complex matrix (Julia's views conjugate the elements they read and write); write `transpose(A)` and `conj`, or `copy(A')`, instead")

"""
    ConjAdjoint(x)

`x'` of a vector of complex numbers: Julia's `Adjoint`, the 1×n row whose `[1, j]` entry is
`conj(x[j])`, read through the vector (so a later write to `x` is seen).
"""
struct ConjAdjoint{V}
    parent::V
end
adjoint(x::AbstractVector{<:Complex}) = ConjAdjoint(x)
adjoint(r::ConjAdjoint) = r.parent
copy(r::ConjAdjoint) = ConjAdjoint(copy(r.parent))
# The 1×n matrix of the conjugates, which the library's functions without a method for the
# row read (`sum`, broadcasting, `==`, ...).
collect(r::ConjAdjoint) = [conj(r.parent[j]) for _ in 1:1, j in 1:length(r.parent)]
size(r::ConjAdjoint) = (1, length(r.parent))
length(r::ConjAdjoint) = length(r.parent)
summary(r::ConjAdjoint) = "1×$(length(r.parent)) adjoint(::Vector{ComplexF64}) with eltype ComplexF64"
function getindex(r::ConjAdjoint, i::Int, j::Int)
    n = length(r.parent)
    (i == 1 && 1 <= j <= n) || throw(BoundsError(r, (i, j)))
    return conj(r.parent[j])
end
function getindex(r::ConjAdjoint, j::Int)
    n = length(r.parent)
    1 <= j <= n || throw(BoundsError(r, j))
    return conj(r.parent[j])
end
# `x' * y`, the inner product; `x' * A`, the row `(A' x)'`.
*(r::ConjAdjoint, y::AbstractVector) = dot(r.parent, y)
*(r::ConjAdjoint, A::AbstractMatrix) = (A' * r.parent)'

# `A * x` and `A * B` with complex numbers on either side: each entry the sum, in order, of
# the products of a row of `A` and a column (Julia calls BLAS, equal up to rounding).
*(A::AbstractMatrix{<:Complex}, x::AbstractVector) = _complex_matvec(A, x)
*(A::AbstractMatrix{<:Real}, x::AbstractVector{<:Complex}) = _complex_matvec(A, x)
*(A::Matrix{<:Complex}, B::Matrix) = _complex_matmul(A, B)
*(A::Matrix{<:Real}, B::Matrix{<:Complex}) = _complex_matmul(A, B)
function _complex_matvec(A, x)
    size(A, 2) == length(x) || throw(DimensionMismatch("matrix A has dimensions ($(size(A, 1)),$(size(A, 2))), vector B has length $(length(x))"))
    _complex_inner_check(length(x))
    return [_complex_entry(A, x, i, 1) for i in 1:size(A, 1)]
end
function _complex_matmul(A, B)
    size(A, 2) == size(B, 1) || throw(DimensionMismatch("matrix A has dimensions ($(size(A, 1)),$(size(A, 2))), matrix B has dimensions ($(size(B, 1)),$(size(B, 2)))"))
    _complex_inner_check(size(B, 1))
    return [_complex_entry(A, B, i, j) for i in 1:size(A, 1), j in 1:size(B, 2)]
end
function _complex_inner_check(n::Int)
    n > 0 || error("unsupported: a product of complex arrays with no columns in the first")
    return nothing
end
# Entry `[i, j]` of `A B` (of a vector `B`, `j == 1`).
function _complex_entry(A, B, i::Int, j::Int)
    s = A[i, 1] * B[1, j]
    for k in 2:size(A, 2)
        s += A[i, k] * B[k, j]
    end
    return s
end

# ---- Dictionaries ------------------------------------------------------------------------------

"""
    Dict(k1 => v1, k2 => v2, ...), Dict{K, V}(), Dict(k => v for x in xs)

Julia's dictionary from keys to values: `d[k]`, `d[k] = v`, `haskey`, `get`, `get!`,
`delete!`, `keys`, `values`, `pairs`, `merge`, `length`, `isempty`, `for (k, v) in d`.
Its table is Julia 1.11's (base/dict.jl): open addressing with linear probing over a power of
two slots (none until the first insertion, then 16), each key at the first free slot from
`hash(key)` on, tombstones for deleted keys, grown as Julia grows it (`sizehint!` by the
constructors, `rehash!` when two thirds full or a probe is too long). Iteration reads the
slots in order, so it is Julia's order for keys Julia's `hash` of which zy computes (`Int`,
`Bool`, `Float64`, `Char`, `String`, `Symbol` and tuples of them); a dictionary holding a
key of another type iterates in the order its keys were first inserted. The entries live in
`keys`/`vals` (the table holds their positions), closed up in the table's order when the
dictionary is iterated after a change. The gradient with respect to a `Dict` is a `Dict` of
the same keys holding the values' gradients (Zygote's).
"""
mutable struct Dict{K, V}
    keys::Vector{K}
    vals::Vector{V}
    # Julia's table: per slot 0 (empty), -1 (a deleted key's tombstone) or an entry's position.
    slots::Vector{Int}
    # Each entry's `hash(key)` (Julia's UInt64 as an Int).
    hashes::Vector{Int}
    # Julia's `ndel` (tombstones) and `maxprobe` (the longest probe of a key in the table).
    ndel::Int
    maxprobe::Int
    # How many entries of `keys`/`vals` are deleted (no slot holds them).
    gaps::Int
    # Whether the entries are the table's in slot order, without gaps (as iteration reads them).
    ordered::Bool
    # Whether every key hashes as Julia's does (else the entries iterate in insertion order).
    julia::Bool
end

# An empty Dict whose keys and values are of the element types of `ks` and `vs` (no table yet,
# as Julia 1.11's `Dict{K, V}()`), with the entries `ks[i] => vs[i]` inserted in order. The
# constructors leave the entries in the table's order, so that reading a new Dict moves none
# (a gradient with respect to one lines up with its entries).
function Dict(ks::Vector, vs::Vector)
    d = Dict(ks[1:0], vs[1:0], Int[], Int[], 0, 0, 0, true, true)
    for i in 1:length(ks)
        d[ks[i]] = vs[i]
    end
    return _dict_dense(d)
end

# `gradient(f, args...)` with a `Dict` argument (inference calls this on the AD's gradients
# `g`): Zygote's gradient of a Dict, a Dict of its keys holding the values' gradients, in place
# of the structural `(keys = nothing, vals = ...)`.
_dict_gradients(g, x) = (_dict_gradient(x, g[1]),)
_dict_gradients(g, x, y) = (_dict_gradient(x, g[1]), _dict_gradient(y, g[2]))
_dict_gradients(g, x, y, z) = (_dict_gradient(x, g[1]), _dict_gradient(y, g[2]), _dict_gradient(z, g[3]))
_dict_gradient(x, dx) = dx
_dict_gradient(x::Dict, dx::Nothing) = nothing
_dict_gradient(x::Dict, dx) = _dict_with_vals(x, dx.vals)

# A Dict of `d`'s keys and table holding the values `vals` (entry by entry).
_dict_with_vals(d::Dict, vals) =
    Dict(copy(d.keys), vals, copy(d.slots), copy(d.hashes), d.ndel, d.maxprobe, d.gaps, d.ordered, d.julia)

# ---- Julia 1.11's `hash` (base/hashing.jl, float.jl, char.jl, tuple.jl), UInt64 bits in an Int

# `hash_64_64` (Thomas Wang's 64-bit mix, `int64hash` in src/support/hashing.c).
function _hash_64_64(a::Int)
    a = ~a + (a << 21)
    a = xor(a, a >>> 24)
    a = a + (a << 3) + (a << 8)
    a = xor(a, a >>> 14)
    a = a + (a << 2) + (a << 4)
    a = xor(a, a >>> 28)
    return a + (a << 31)
end

"""
    _jl_hash(x, h)

Julia 1.11's `hash(x, h)` of the keys zy hashes as Julia does (`Int`, `Bool`, `Float64`,
`Char`, `String`, `Symbol`, tuples of them; `_jl_hashable`), the UInt64 as an Int's bits.
"""
_jl_hash(x::Int, h::Int) = hash_int(x, h)
_jl_hash(x::Bool, h::Int) = hash_int(Int(x), h)
_jl_hash(x::Float64, h::Int) = hash_float(x, h)
# An Int128 or UInt128 hashes as the Int64 of its value where it has one (an `Int128(3)` key
# finds a `3`); others alike, compared in turn.
_jl_hash(x::Union{Int128, UInt128}, h::Int) =
    typemin(Int) <= x <= typemax(Int) ? hash_int(Int(x), h) : 0
_jl_hash(s::String, h::Int) = _string_hash(s, h)
_jl_hash(s::SubString, h::Int) = _string_hash(String(s), h)
# A symbol's `hash(s, h)` is Julia's fallback over its `objectid` (src/symbol.c's hash).
_jl_hash(s::Symbol, h::Int) = _hash_64_64(3h - _string_hash(s, 0))
_jl_hash(t::Tuple, h::Int) = _hash_tuple(h, t...)
# A pair's, base/pair.jl's: the second's hash seeded with the first's.
_jl_hash(p::Pair, h::Int) = _jl_hash(p.second, _jl_hash(p.first, h))
_hash_tuple(h::Int) = h + 8633297058295171728
_hash_tuple(h::Int, x, rest...) = _jl_hash(x, _hash_tuple(h, rest...))
# Keys of other types: one hash for all, compared in turn.
_jl_hash(x, h::Int) = 0

# `hash(key)` as `Dict` calls it (a symbol's is its `objectid`).
_jl_hash(x) = _jl_hash(x, 0)
_jl_hash(s::Symbol) = _string_hash(s, 0)

# Whether zy computes Julia's `hash` of `x`.
_jl_hashable(x) = false
_jl_hashable(x::Union{Int, Bool, Float64, Char, String, SubString, Symbol}) = true
_jl_hashable(t::Tuple) = _jl_hashable_all(t...)
_jl_hashable(p::Pair) = _jl_hashable(p.first) && _jl_hashable(p.second)
_jl_hashable_all() = true
_jl_hashable_all(x, rest...) = _jl_hashable(x) && _jl_hashable_all(rest...)

# ---- The table (Julia 1.11's `hashindex`, `ht_keyindex`, `ht_keyindex2_shorthash!`,
# `_setindex!`, `_delete!`, `rehash!`, `sizehint!`)

# Julia's `_tablesz`: a power of two, at least 16.
function _dict_tablesz(n::Int)
    m = 16
    while m < n
        m = 2m
    end
    return m
end

# The first slot (from 1) of a hash in a table of `m` slots.
_dict_home(h::Int, m::Int) = (h & (m - 1)) + 1

_dict_isequal(a, b) = a == b
_dict_isequal(a::Float64, b::Float64) = isequal(a, b)
_dict_isequal(a::Pair, b::Pair) = _dict_isequal(a.first, b.first) && _dict_isequal(a.second, b.second)

# The slot holding key `k` (of hash `h`) in `d`, or -1 (Julia's `ht_keyindex`).
function _dict_find(d::Dict, k, h::Int)
    m = length(d.slots)
    if m == 0 || length(d) == 0
        return -1
    end
    j = _dict_home(h, m)
    iter = 0
    while true
        s = d.slots[j]
        s == 0 && return -1
        if s > 0 && d.hashes[s] == h && _dict_isequal(d.keys[s], k)
            return j
        end
        j = (j & (m - 1)) + 1
        iter += 1
        if iter > d.maxprobe && d.julia
            return -1
        end
    end
end

# The position of key `k` in `d`'s entries, or 0.
function _dict_index(d::Dict, k)
    j = _dict_find(d, k, _jl_hash(k))
    return j < 0 ? 0 : d.slots[j]
end

# The slot of key `k` (hash `h`) if `d` holds it, else minus the slot an insertion takes,
# growing the table as Julia does (`ht_keyindex2_shorthash!`).
function _dict_slot2!(d::Dict, k, h::Int)
    m = length(d.slots)
    if m == 0
        _dict_rehash!(d, 4)
        return -_dict_home(h, length(d.slots))
    end
    j = _dict_home(h, m)
    iter = 0
    avail = 0
    while true
        s = d.slots[j]
        if s == 0
            return avail < 0 ? avail : -j
        elseif s < 0
            if avail == 0
                avail = -j
            end
        elseif d.hashes[s] == h && _dict_isequal(d.keys[s], k)
            return j
        end
        j = (j & (m - 1)) + 1
        iter += 1
        if iter > d.maxprobe && d.julia
            break
        end
    end
    avail < 0 && return avail
    maxallowed = max(16, m >> 6)
    while iter < maxallowed
        if d.slots[j] <= 0
            d.maxprobe = iter
            return -j
        end
        j = (j & (m - 1)) + 1
        iter += 1
    end
    _dict_rehash!(d, length(d) > 64000 ? 2m : 4m)
    return _dict_slot2!(d, k, h)
end

# Entry `k => v` (hash `h`) put in the free slot `j` (Julia's `_setindex!`), the table grown
# when its keys and tombstones fill two thirds of it.
function _dict_insert!(d::Dict, j::Int, k, v, h::Int)
    push!(d.keys, k)
    push!(d.vals, v)
    push!(d.hashes, h)
    if d.slots[j] < 0
        d.ndel -= 1
    end
    d.slots[j] = length(d.keys)
    d.ordered = false
    d.julia = d.julia && _jl_hashable(k)
    n = length(d)
    if 3 * (n + d.ndel) > 2 * length(d.slots)
        _dict_rehash!(d, n > 64000 ? 2n : max(4n, 4))
    end
    return d
end

# `d`'s table rebuilt with `_dict_tablesz(m)` slots, its keys placed in the order of the old
# slots (Julia's `rehash!`).
function _dict_rehash!(d::Dict, m::Int)
    m = _dict_tablesz(m)
    slots = fill(0, m)
    maxprobe = 0
    for s in d.slots
        if s > 0
            j0 = _dict_home(d.hashes[s], m)
            j = j0
            while slots[j] != 0
                j = (j & (m - 1)) + 1
            end
            maxprobe = max(maxprobe, (j - j0) & (m - 1))
            slots[j] = s
        end
    end
    d.slots = slots
    d.ndel = 0
    d.maxprobe = maxprobe
    d.ordered = false
    return d
end

# Julia's `sizehint!(d, n)`: the table resized for `n` entries (at least its own), unless that
# is its size (with `grow` only, unless it is no larger).
function _dict_sizehint!(d::Dict, n::Int, grow::Bool)
    m = _dict_tablesz(cld(3 * max(n, length(d)), 2))
    m0 = length(d.slots)
    if grow ? m > m0 : m != m0
        _dict_rehash!(d, m)
    end
    return d
end

# `d`'s entries closed up over the deleted ones, in the table's order (in their own if a key
# does not hash as Julia's), as iteration, `keys` and `values` read them.
function _dict_dense(d::Dict)
    d.ordered && return d
    n = length(d)
    order = fill(0, n)
    if d.julia
        i = 0
        for s in d.slots
            if s > 0
                i += 1
                order[i] = s
            end
        end
    else
        live = fill(false, length(d.keys))
        for s in d.slots
            if s > 0
                live[s] = true
            end
        end
        order = findall(live)
    end
    at = fill(0, length(d.keys))
    for i in 1:n
        at[order[i]] = i
    end
    for j in 1:length(d.slots)
        if d.slots[j] > 0
            d.slots[j] = at[d.slots[j]]
        end
    end
    d.keys = d.keys[order]
    d.vals = d.vals[order]
    d.hashes = d.hashes[order]
    d.gaps = 0
    d.ordered = true
    return d
end

# The keys' and values' types are Julia's `promote_typejoin` of theirs (`Dict("lr" => 0.1,
# "epochs" => 10)` is a `Dict{String, Real}`); `Dict()` is a `Dict{Any, Any}`.
Dict(ps::Pair...) = _dict_of(_typejoin_vect(map(first, ps)...), _typejoin_vect(map(last, ps)...))
Dict() = _typed_dict((Any, Any))

function Dict(g::Generator)
    ks = map(k -> g.f(_gen_elem(g.iter, k)).first, fill(0, 0))
    vs = map(k -> g.f(_gen_elem(g.iter, k)).second, fill(0, 0))
    return _dict_fill!(Dict(ks, vs), g)
end

# `d` with the pairs of the generator `g` written into it in order (its table sized for them
# first, as Julia's `Dict{K, V}(kv)` does).
function _dict_fill!(d::Dict, g::Generator)
    _dict_sizehint!(d, length(g.iter), false)
    for k in 1:length(g.iter)
        p = g.f(_gen_elem(g.iter, k))
        d[p.first] = p.second
    end
    return _dict_dense(d)
end

# `Dict{K, V}(ps...)`, which the syntax writes `_typed_dict((K, V), ps...)`.
function _typed_dict(kv::Tuple, ps...)
    K, V = kv
    d = Dict(K[], V[])
    if length(ps) > 0
        _dict_sizehint!(d, length(ps), false)
    end
    foreach(p -> (d[p.first] = p.second), ps)
    return _dict_dense(d)
end

# `Dict{K, V}(kw)` of a method's `kw...` (`pairs(nt)`): its pairs in order, converted so.
_typed_dict(kv::Tuple, p::Pairs{<:NamedTuple}) = _typed_dict(kv, _named_pairs(p.data)...)

# `Dict{K, V}(k => v for x in xs)`: the generator's pairs in order, converted to `K` and `V`.
function _typed_dict(kv::Tuple, g::Generator)
    K, V = kv
    return _dict_fill!(Dict(K[], V[]), g)
end

# Entry `i` of `d` as a pair: what `for (k, v) in d` and generators iterate (the entries put
# in the table's order first, once after a change).
function _gen_elem(d::Dict, i::Int)
    e = _dict_dense(d)
    return _open_pair(e.keys[i], e.vals[i])
end

function getindex(d::Dict, k)
    i = _dict_index(d, k)
    if i == 0
        throw(KeyError(k))
    end
    return d.vals[i]
end

function setindex!(d::Dict, v, k)
    h = _jl_hash(k)
    j = _dict_slot2!(d, k, h)
    if j > 0
        d.vals[d.slots[j]] = v
    else
        _dict_insert!(d, -j, k, v, h)
    end
    return d
end

length(d::Dict) = length(d.keys) - d.gaps
isempty(d::Dict) = length(d) == 0
haskey(d::Dict, k) = _dict_index(d, k) != 0

function get(d::Dict, k, default)
    i = _dict_index(d, k)
    return i == 0 ? default : d.vals[i]
end

# `get(f, d, k)` (the `do` form): `f()` runs only when `k` is missing.
function get(f, d::Dict, k)
    i = _dict_index(d, k)
    return i == 0 ? f() : d.vals[i]
end

function get!(d::Dict, k, default)
    h = _jl_hash(k)
    j = _dict_slot2!(d, k, h)
    if j > 0
        return d.vals[d.slots[j]]
    end
    _dict_insert!(d, -j, k, default, h)
    return default
end

# Julia's `_delete!` of the key at slot `j`: the slot becomes a tombstone, or empty when the
# next slot is (and so do the tombstones just before it); the entry stays as a gap until the
# dictionary is iterated or the gaps outnumber the entries.
function _dict_delete_at!(d::Dict, j::Int)
    m = length(d.slots)
    d.gaps += 1
    d.ordered = false
    if d.slots[(j & (m - 1)) + 1] == 0
        d.slots[j] = 0
        j = ((j - 2) & (m - 1)) + 1
        while d.slots[j] == -1
            d.slots[j] = 0
            d.ndel -= 1
            j = ((j - 2) & (m - 1)) + 1
        end
    else
        d.slots[j] = -1
        d.ndel += 1
    end
    if d.gaps > 8 && d.gaps > length(d)
        _dict_dense(d)
    end
    return d
end

function delete!(d::Dict, k)
    j = _dict_find(d, k, _jl_hash(k))
    return j < 0 ? d : _dict_delete_at!(d, j)
end

"""
    pop!(d::Dict, k), pop!(d::Dict, k, default), pop!(d::Dict)

The value of key `k`, its entry deleted (Julia's `KeyError` when `d` holds no `k`, or
`default` returned). Without a key: the first pair in `d`'s order, deleted (Julia's
`ArgumentError` when `d` is empty).
"""
function pop!(d::Dict, k)
    j = _dict_find(d, k, _jl_hash(k))
    j < 0 && throw(KeyError(k))
    v = d.vals[d.slots[j]]
    _dict_delete_at!(d, j)
    return v
end

function pop!(d::Dict, k, default)
    j = _dict_find(d, k, _jl_hash(k))
    j < 0 && return default
    v = d.vals[d.slots[j]]
    _dict_delete_at!(d, j)
    return v
end

function pop!(d::Dict)
    isempty(d) && throw(ArgumentError("dict must be non-empty"))
    p = _gen_elem(d, 1)
    delete!(d, p.first)
    return p
end

"""
    empty!(d::Dict)

`d` without entries; its table keeps its size, as Julia's does (so later insertions land
as in a dictionary of that size).
"""
function empty!(d::Dict)
    fill!(d.slots, 0)
    d.keys = d.keys[1:0]
    d.vals = d.vals[1:0]
    d.hashes = Int[]
    d.ndel = 0
    d.maxprobe = 0
    d.gaps = 0
    d.ordered = true
    d.julia = true
    return d
end

"""
    keys(d::Dict), values(d::Dict), pairs(d::Dict)

The keys, the values and the pairs `k => v` of a dictionary, in its order (Julia gives lazy
views of them; zy gives a copy, a `Vector`, and iterates `pairs(d)` as `d` itself).
"""
keys(d::Dict) = copy(_dict_dense(d).keys)
values(d::Dict) = copy(_dict_dense(d).vals)
pairs(d::Dict) = d

"""
    collect(d::Dict)

The pairs `k => v` of a dictionary as a `Vector{Pair{K, V}}`, in its order.
"""
collect(d::Dict) = [p for p in d]

"""
    first(d::Dict)

The first pair `k => v` of a dictionary in its order; Julia's `ArgumentError` when it is empty.
"""
first(d::Dict) = isempty(d) ? throw(ArgumentError("collection must be non-empty")) : _gen_elem(d, 1)

"""
    merge(d1::Dict, d2::Dict)

A new dictionary of the entries of both, `d2`'s value where both hold a key.
"""
function merge(a::Dict, b::Dict)
    d = _dict_promoted(a, b)
    _dict_sizehint!(d, length(d) + length(b), true)
    e = _dict_dense(b)
    for i in 1:length(e.keys)
        d[e.keys[i]] = e.vals[i]
    end
    return d
end

"""
    copy(d::Dict)

A new dictionary of the same entries (Julia's shallow copy: the keys and values themselves
are shared).
"""
copy(d::Dict) = _dict_with_vals(d, copy(d.vals))

# What `merge` writes into: a copy of `a` (the same table), its keys and values converted to
# the types promoted with `b`'s where they differ (Julia's `Dict{K, V}(a)`; numbers only: an
# integer-valued Float64 key hashes as its Int, so the table stays valid).
_dict_promoted(a::Dict, b::Dict) =
    Dict(_promoted_copy(a.keys, b.keys), _promoted_copy(a.vals, b.vals), copy(a.slots), copy(a.hashes),
         a.ndel, a.maxprobe, a.gaps, a.ordered, a.julia)
# A copy of `x`, its elements converted to the type promoted with `y`'s where they differ
# (an Int64 and a Float64: Float64).
_promoted_copy(x::Vector{T}, y::Vector{T}) where {T} = copy(x)
_promoted_copy(x::Vector{Int64}, y::Vector{Float64}) = Float64.(x)
_promoted_copy(x::Vector{Float64}, y::Vector{Int64}) = copy(x)
_promoted_copy(x::AbstractVector, y::AbstractVector) = error("unsupported: merging dictionaries whose keys or values differ in type other than Int64 and Float64 (Julia's `Dict` of their promoted or abstract type); convert one first")

"""
    filter(f, d::Dict), filter!(f, d::Dict)

The entries whose pair `k => v` `f` keeps: in a new dictionary (Julia's `empty(d)` filled in
`d`'s order), or in `d`, the others deleted in its order.
"""
"""
    findfirst(f, d::Dict)

The first key, in the dictionary's order, whose value `f` keeps, or `nothing` (Julia's first
key of `pairs(d)`): a `NothingOrInt` for Int keys.
"""
function findfirst(f, d::Dict)
    e = _dict_dense(d)
    for k in 1:length(e.keys)
        f(e.vals[k]) && return _some_key(e.keys[k])
    end
    return _no_key(e.keys)
end
_some_key(k::Int) = NothingOrInt(true, k)
_some_key(k) = k
_no_key(::Vector{Int}) = NothingOrInt(false, 0)
_no_key(::Vector) = nothing

function filter(f, d::Dict)
    e = _dict_dense(d)
    r = Dict(e.keys[1:0], e.vals[1:0])
    for i in 1:length(e.keys)
        if f(_open_pair(e.keys[i], e.vals[i]))
            r[e.keys[i]] = e.vals[i]
        end
    end
    return _dict_dense(r)
end

function filter!(f, d::Dict)
    e = _dict_dense(d)
    dropped = e.keys[1:0]
    for i in 1:length(e.keys)
        if !f(_open_pair(e.keys[i], e.vals[i]))
            push!(dropped, e.keys[i])
        end
    end
    for k in dropped
        delete!(d, k)
    end
    return d
end

mapreduce(f, op, d::Dict; init = _InitialValue()) = _gen_reduce(op, init, f, collect(d))

"""
    in(p::Pair, d::Dict), ==(d1::Dict, d2::Dict), isequal(d1::Dict, d2::Dict)

Whether `d` holds `p.first` with a value `==` to `p.second` (Julia's `ArgumentError` for a
value that is not a pair); whether two dictionaries hold the same keys with values `==`
(`isequal`) to each other, in any order.
"""
function in(p::Pair, d::Dict)
    i = _dict_index(d, p.first)
    return i != 0 && d.vals[i] == p.second
end
in(x, d::Dict) = throw(ArgumentError("AbstractDict collections only contain Pairs;\nEither look for e.g. A=>B instead, or use the `keys` or `values`\nfunction if you are looking for a key or value respectively."))
==(a::Dict, b::Dict) = _dict_equal(==, a, b)
isequal(a::Dict, b::Dict) = _dict_equal(isequal, a, b)
function _dict_equal(eq, a::Dict, b::Dict)
    a === b && return true
    length(a) == length(b) || return false
    e = _dict_dense(a)
    for i in 1:length(e.keys)
        j = _dict_index(b, e.keys[i])
        if j == 0 || !eq(b.vals[j], e.vals[i])
            return false
        end
    end
    return true
end

"""
    eltype(d::Dict), keytype(d::Dict), valtype(d::Dict)

`Pair{K, V}`, `K` and `V` of a `Dict{K, V}`.
"""
eltype(d::Dict{K, V}) where {K, V} = Pair{K, V}
keytype(d::Dict{K, V}) where {K, V} = K
valtype(d::Dict{K, V}) where {K, V} = V

"""
    Dict(kv), Dict(d::Dict), empty(d::Dict)

A dictionary of the pairs (or 2-tuples) of a vector or of a `zip` of keys and values, its
table sized for them first, later ones winning (Julia's `Dict{K, V}(kv)`); a copy of a
dictionary (the same table); an empty one of the same key and value types.
"""
Dict(v::AbstractVector) = _dict_of(map(x -> _dict_kv(x)[1], v), map(x -> _dict_kv(x)[2], v))
# A vector of values that are neither pairs nor tuples: Julia's `ArgumentError` (an empty one
# makes no entry, its `Dict{Any, Any}()`).
Dict(v::AbstractVector{<:Union{Number, AbstractString, Symbol, Char, Nothing}}) =
    isempty(v) ? Dict{Any, Any}() : _not_kv()
Dict(z::Zip{Tuple{A, B}}) where {A, B} = _dict_of(map(k -> _gen_elem(z.its[1], k), 1:length(z)), map(k -> _gen_elem(z.its[2], k), 1:length(z)))
Dict(d::Dict) = copy(d)
empty(d::Dict) = Dict(d.keys[1:0], d.vals[1:0])
_dict_kv(p::Pair) = (p.first, p.second)
_dict_kv(t::Tuple) = length(t) == 2 ? (t[1], t[2]) : _not_kv()
_dict_kv(x) = _not_kv()
_not_kv() = throw(ArgumentError("AbstractDict(kv): kv needs to be an iterator of 2-tuples or pairs"))
function _dict_of(ks::Vector, vs::Vector)
    d = Dict(ks[1:0], vs[1:0])
    _dict_sizehint!(d, length(ks), false)
    for i in 1:length(ks)
        d[ks[i]] = vs[i]
    end
    return _dict_dense(d)
end

"""
    merge!(d::Dict, others::Dict...), push!(d::Dict, p::Pair...), sizehint!(d::Dict, n)

`d` with the entries of the others written into it in turn (their values winning), with the
pairs stored, or with its table sized for `n` entries (Julia's `rehash!` to that size).
"""
merge!(d::Dict, b::Dict) = mergewith!((x, y) -> y, d, b)
merge!(d::Dict, b::Dict, c::Dict...) = merge!(merge!(d, b), c...)
function push!(d::Dict, ps::Pair...)
    for p in ps
        d[p.first] = p.second
    end
    return d
end
sizehint!(d::Dict, n::Int) = _dict_sizehint!(d, n, false)
# Of a vector: a hint for its growth, which zy's vectors do not need; the vector itself.
sizehint!(v::Vector, n::Integer) = v

"""
    getkey(d::Dict, k, default)

The key of `d` equal to `k` (as stored), or `default`.
"""
function getkey(d::Dict, k, default)
    i = _dict_index(d, k)
    return i == 0 ? default : d.keys[i]
end

"""
    mergewith(combine, d1::Dict, d2::Dict...), merge(combine, d1::Dict, d2::Dict...)

A new dictionary of the entries of all: a copy of `d1` with the others merged into it in
turn, `combine(v1, v2)` where it holds a key already (Julia's `mergewith!` into a copy).
"""
mergewith(combine, a::Dict, b::Dict) = mergewith!(combine, _dict_promoted(a, b), b)
mergewith(combine, a::Dict, b::Dict, c::Dict...) = mergewith(combine, mergewith(combine, a, b), c...)
merge(combine::Function, a::Dict, b::Dict...) = mergewith(combine, a, b...)

"""
    mergewith!(combine, d1::Dict, d2::Dict)

`d1` with each entry `k => v` of `d2` written into it in `d2`'s order, `combine(d1[k], v)`
where `d1` holds `k` (its table grown for both first, as Julia's).
"""
function mergewith!(combine, a::Dict, b::Dict)
    _dict_sizehint!(a, length(a) + length(b), true)
    e = _dict_dense(b)
    for i in 1:length(e.keys)
        k = e.keys[i]
        h = _jl_hash(k)
        j = _dict_slot2!(a, k, h)
        if j > 0
            a.vals[a.slots[j]] = combine(a.vals[a.slots[j]], e.vals[i])
        else
            _dict_insert!(a, -j, k, e.vals[i], h)
        end
    end
    return a
end

# ---- Dictionaries displayed (`repr("text/plain", d)`) ---------------------------------------

# `repr("text/plain", d)` of a dictionary or a keyword rest: Julia's `show(io,
# MIME"text/plain", d)` of an `AbstractDict` as `repr` calls it (no `:limit`): its summary
# (`Dict{Symbol, Float64} with 2 entries`, `pairs(::NamedTuple) with 1 entry`), then a line
# `  k => v` per entry, keys and values shown compactly (`:compact => true`); empty, its
# one-line `show`.
function repr(mime::String, d::Dict)
    mime == "text/plain" || _no_show(mime, typeof(d))
    isempty(d) && return repr(d)
    return _plain_entries(string(typeof(d)), collect(d))
end
function repr(mime::String, p::Pairs{<:NamedTuple})
    mime == "text/plain" || error("unsupported: `repr(mime, kw)` of a MIME type other than \"text/plain\"")
    isempty(p) && return repr(p)
    return _plain_entries("pairs(::NamedTuple)", _named_pairs(p.data))
end
# `repr("text/plain", s)` of a set: its summary (`Set{Int64} with 2 elements`), then a line
# `  x` per element in the set's order; empty, its one-line `show`.
function repr(mime::String, s::Set)
    mime == "text/plain" || _no_show(mime, typeof(s))
    isempty(s) && return repr(s)
    n = length(s)
    head = string(typeof(s), " with ", n, n == 1 ? " element:" : " elements:")
    return string(head, join([string("\n  ", repr(x)) for x in s]))
end
# Julia's error for a MIME type other than `text/plain` of a value of type `T` (its type only,
# which carries no gradient into a call that never returns).
_no_show(mime, T) = error(:MethodError, "no method matching show(::IOBuffer, ::MIME{Symbol(\"$mime\")}, ::$T)")

# `repr("text/plain", A)` of a vector or matrix of Float64s, Ints or Bools, or of a lazy
# adjoint or transpose of one (inference calls these for exactly those types): Julia's
# `show(io, MIME"text/plain", A)` without `:limit` (an `IOBuffer`): the summary and a colon,
# then each row on a line of its own after a space, the columns two spaces apart, each
# aligned at its decimal point (an integer at its end); a matrix of several columns shows its
# numbers in the compact form (six significant digits), a Bool as `1` or `0`. Empty, a vector
# is its one-line `show`, a matrix its summary.
_plain_array(A::Vector) = isempty(A) ? repr(A) : _plain_grid(summary(A), A)
_plain_array(A::Matrix) = _plain_grid(summary(A), A)
_plain_wrapper(A) = _plain_grid(summary(A), collect(A))
_plain_grid(head::String, A) = _plain_grid(head, A, nothing)
# `hidden[i, j]` marks a structural zero of a `Diagonal` or triangular matrix (Julia's
# `replace_in_print_matrix`): a `⋅` centred where the zero's text would be, aligned as it.
function _plain_grid(head::String, A::Union{Vector{Float64}, Vector{Int}, Vector{Bool}, Matrix{Float64}, Matrix{Int}, Matrix{Bool}},
                     hidden::Union{Nothing, Matrix{Bool}})
    isempty(A) && return head
    m = size(A, 1)
    n = length(A) ÷ m
    compact = n > 1
    texts = [_grid_text(A[k], compact) for k in 1:length(A)]
    lefts, rights = fill(0, n), fill(0, n)
    for k in 1:length(A)
        j = (k - 1) ÷ m + 1
        l, r = _grid_align(A[k], texts[k])
        lefts[j] = max(lefts[j], l)
        rights[j] = max(rights[j], r)
    end
    parts = [head, ":"]
    for i in 1:m
        push!(parts, "\n ")
        for j in 1:n
            k = (j - 1) * m + i
            l, r = _grid_align(A[k], texts[k])
            push!(parts, " "^(lefts[j] - l))
            push!(parts, hidden === nothing || !hidden[i, j] ? texts[k] : _centred_mark(texts[k]))
            j < n && push!(parts, string(" "^(rights[j] - r), "  "))
        end
    end
    return join(parts)
end
_plain_grid(head::String, A, hidden) = error("unsupported: the `text/plain` display of a $(typeof(A)) (of Float64s, Ints and Bools only); write `show(io, x)` for its one-line form instead")
# `⋅` in the middle of as many spaces as `t` has characters (Julia's
# `replace_with_centered_mark`).
function _centred_mark(t::String)
    n = length(t)
    k = (n + 1) ÷ 2
    return string(" "^(k - 1), "⋅", " "^(n - k))
end
# `repr("text/plain", v)` of a vector of strings, symbols, tuples or structs (inference calls
# it for those): the summary and a colon, then each element as `repr` shows it, on a line of
# its own after a space (Julia aligns such elements at their left); empty, its `show`.
_plain_list(v::Vector) = _plain_items(summary(v), v)
# `elem`: the element type's text, where `typeof` cannot name it (`@NamedTuple{a::Int64}`).
_plain_list(v::Vector, elem::String) = _plain_items(string(length(v), "-element Vector{", elem, "}"), v)
function _plain_items(head::String, v::Vector)
    isempty(v) && return repr(v)
    return string(head, ":", join([string("\n ", _typed_text(x)) for x in v]))
end
# `repr("text/plain", r)` of a `LinRange` (Julia's `print_range` in a `:compact` context):
# its summary, then its elements on one line after a space, `", "` apart; empty, its `show`.
# Julia elides the middle of a line of 79 columns or more, even where nothing limits the
# display: refused by name.
function _plain_lin_range(r::LinRange)
    isempty(r) && return repr(r)
    texts = [_compact_text(x) for x in r]
    sum(length, texts) + 2 * length(texts) >= 79 &&
        error("unsupported: the `text/plain` display of a $(typeof(r)) too long for one line (Julia elides its middle elements); show `collect(r)` instead")
    return string(summary(r), ":\n ", join(texts, ", "))
end
# `repr("text/plain", v)` of a view of numbers by a range of its parent's linear indices:
# Julia's summary (`2-element view(::Matrix{Float64}, :, 1) with eltype Float64`), then the
# elements as a vector's. The indices are read back from the linear ones, a whole row or
# column of a matrix as `:` (zy's view does not keep whether `:` or `1:m` made it).
function _plain_view(v::SubArray)
    A, r = v.parent, v.indices
    head = string(length(r), "-element view(::", typeof(A), ", ", _view_index_text(A, r),
                  ") with eltype ", eltype(A))
    return _plain_grid(head, collect(v))
end
_view_index_text(x::Vector, r::StepRange{Int, Int}) = _range_text(r.start, r.step, length(r))
function _view_index_text(A::Matrix, r::StepRange{Int, Int})
    m, n = size(A)
    k = length(r)
    i, j = (r.start - 1) % m + 1, (r.start - 1) ÷ m + 1
    if r.step % m == 0 && (m > 1 || k > 1)
        s = r.step ÷ m
        return string(i, ", ", s == 1 && k == n ? ":" : _range_text(j, s, k))
    end
    return string(r.step == 1 && k == m ? ":" : _range_text(i, r.step, k), ", ", j)
end
# `repr("text/plain", x)` of an array struct of the program holding numbers: its summary
# (`2-element MyVector`, its own type) and a colon, then its elements as an array's; empty,
# the summary.
_plain_user_array(x) = _plain_grid(_array_summary(x), collect(x))
# The range of `k` Ints from `a` by `s` as Julia prints it (`2:3`, `1:2:5`).
_range_text(a::Int, s::Int, k::Int) = s == 1 ? string(a, ":", a + k - 1) : string(a, ":", s, ":", a + s * (k - 1))
# `show(io, x)` where `io` knows the type of `x` (Julia's `:typeinfo`, which a display sets to
# the element type): a Bool as `1` or `0`, a Float32 without its `f0`, a vector without its
# element type, each element or field so in turn.
_typed_text(x) = repr(x)
_typed_text(x::Bool) = x ? "1" : "0"
_typed_text(x::Float32) = string(x)
_typed_text(v::Vector) = string("[", join([_typed_text(x) for x in v], ", "), "]")
_typed_text(t::Tuple) = length(t) == 1 ? string("(", _typed_text(t[1]), ",)") : string("(", join(map(_typed_text, t), ", "), ")")
function _typed_text(t::NamedTuple)
    fields = map((k, x) -> string(k, " = ", _typed_text(x)), keys(t), values(t))
    return string("(", join(fields, ", "), length(fields) == 1 ? ",)" : ")")
end
_grid_text(x::Float64, compact::Bool) = compact ? _compact_text(x) : repr(x)
_grid_text(x::Int, compact::Bool) = repr(x)
_grid_text(x::Bool, compact::Bool) = x ? "1" : "0"
# The widths left and right of the alignment point (Julia's `alignment`): an integer's at its
# end, a float's at its first `.`, `e` or `f` (`Inf`).
_grid_align(x::Union{Int, Bool}, t::String) = (length(t), 0)
function _grid_align(x::Float64, t::String)
    for k in 1:length(t)
        c = t[k]
        (c == '.' || c == 'e' || c == 'f') && return (k - 1, length(t) - k + 1)
    end
    return (length(t), 0)
end
function _plain_entries(summary::String, entries)
    n = length(entries)
    s = string(summary, " with ", n, n == 1 ? " entry:" : " entries:")
    for e in entries
        s = string(s, "\n  ", _compact_text(e.first), " => ", _compact_text(e.second))
    end
    return s
end

# `show` of a value in a `:compact => true` context: numbers of at most six significant
# digits (Float64s), each element of a vector or tuple so; strings, symbols, characters and
# integers as `repr` writes them.
_compact_text(x::Union{Int, Bool, String, Symbol, Char, Nothing}) = repr(x)
_compact_text(v::AbstractVector{Float64}) = string("[", join(map(_compact_text, v), ", "), "]")
_compact_text(v::AbstractVector{Int}) = repr(v)
_compact_text(t::Tuple) = length(t) == 1 ? string("(", _compact_text(t[1]), ",)") : string("(", join(map(_compact_text, t), ", "), ")")
_compact_text(x) = error("unsupported: the compact form of a $(typeof(x)) (`repr(\"text/plain\", d)` shows a dictionary's keys and values compactly); show them with `repr`")

# Julia's compact Float64 (base/ryu's `writeshortest` with at most six significant digits):
# the shortest digits that read back, rounded to six at their seventh (ties to even only
# where those seven digits are the value exactly), laid out as `show` lays them out.
function _compact_text(x::Float64)
    (isnan(x) || isinf(x) || x == 0) && return repr(x)
    digits, e = _shortest_digits(abs(x))
    n = length(digits)
    if n > 6
        d7 = Int(digits[7]) - 48
        keep = parse(Int, digits[1:6])
        up = d7 > 5 || (d7 == 5 && (n > 7 || _tie_up(abs(x), parse(Int, digits), e, keep)))
        keep += up ? 1 : 0
        e += n - 6
        while keep % 10 == 0
            keep = keep ÷ 10
            e += 1
        end
        digits = string(keep)
        n = length(digits)
    end
    pt = e + n
    sign = x < 0 ? "-" : ""
    fixed = -4 < pt <= 6 && !(pt >= n && abs(_float_mod(x + 0.05, Float64(10^(pt - n))) - 0.05) > 0.05)
    if fixed
        pt <= 0 && return string(sign, "0.", "0"^(-pt), digits)
        pt >= n && return string(sign, digits, "0"^e, ".0")
        return string(sign, digits[1:pt], ".", digits[pt+1:end])
    end
    mant = n > 1 ? string(digits[1:1], ".", digits[2:end]) : string(digits, ".0")
    return string(sign, mant, "e", pt - 1)
end

# Julia's `mod` of two Float64s (the sign of the divisor).
function _float_mod(a::Float64, b::Float64)
    r = rem(a, b)
    return r != 0 && (r < 0) != (b < 0) ? r + b : r
end

# The digits (no leading or trailing zeros) and exponent `e` of the shortest decimal
# `digits × 10^e` that reads back as `x > 0`, from `repr(x)`.
function _shortest_digits(x::Float64)
    s = repr(x)
    digits = ""
    e = 0
    after_point = false
    k = 1
    for c in s
        if c == 'e'
            e += parse(Int, s[k+1:end])
            break
        elseif c == '.'
            after_point = true
        else
            digits = string(digits, c)
            e -= after_point ? 1 : 0
        end
        k += 1
    end
    digits = String(lstrip(digits, '0'))
    while endswith(digits, "0")
        digits = digits[1:end-1]
        e += 1
    end
    return digits, e
end

# At seven digits `s × 10^e` ending in 5, Julia rounds the digits Ryu truncates the value to:
# `s` where the value is above (up) or exactly it (to even), `s - 1` where below (down). `fma`
# compares `x` with `s × 10^e` exactly (`10^k` and `s` are exact Float64s).
function _tie_up(x::Float64, s::Int, e::Int, keep::Int)
    abs(e) > 18 && error("unsupported: the compact form of $(repr(x)), seven significant digits ending in 5, this far from 1")
    d = e < 0 ? fma(x, Float64(10^(-e)), -Float64(s)) : -fma(Float64(s), Float64(10^e), -x)
    return d > 0 || (d == 0 && isodd(keep))
end

# ---- Sets --------------------------------------------------------------------------------------

# The elements of a `Set` as the keys of a `Dict`, in a struct of their own so that the
# default constructor `Set(items)` is none that a program calls (`Set(d::Dict)` is Julia's set
# of `d`'s pairs).
struct _SetItems{T}
    dict::Dict{T, Bool}
end

"""
    Set(itr), Set{T}(), Set{T}(itr)

Julia's set of distinct values: `push!`, `delete!`, `in`/`∈`/`∉`, `length`, `isempty`,
`union`/`∪`, `intersect`/`∩`, `setdiff`, `issubset`/`⊆`, `==`, `for x in s`, `collect`, `sum`.
It holds a `Dict` of its elements, so elements are found as the `Dict`'s keys are
(`isequal`) and iterate in Julia's order, its hash table's. A set carries no gradient:
membership is not differentiable.
"""
struct Set{T}
    items::_SetItems{T}
end

Set(v::AbstractVector) = _typed_set(eltype(v), v)
Set(t::Tuple) = Set([t...])
Set(g::Generator) = Set(collect(g))
# Julia's `Set()` is a `Set{Any}`; a number or a character iterates as itself, a string by its
# characters, a lazy iterator by its elements.
Set() = _typed_set(Any)
Set(x::Union{Number, Char}) = Set([x])
Set(s::Union{String, SubString}) = Set(collect(s))
Set(it::Union{Zip, Enumerate, Filter}) = Set(collect(it))
# Julia's `Set(s)` of a set is its copy (the same table).
Set(s::Set) = copy(s)
# Of a Dict, Julia's set of its pairs.
Set(d::Dict) = _set_union!(_typed_set(eltype(collect(d))), d)
copy(s::Set) = Set(_SetItems(copy(s.items.dict)))

# `Set{T}()` and `Set{T}(itr)`, which the syntax writes `_typed_set(T)`, `_typed_set(T, itr)`.
_typed_set(T) = Set(_SetItems(Dict{T, Bool}()))
_typed_set(T, itr) = _set_union!(_typed_set(T), itr)

# Julia's `union!(s, itr)`: the table grown for the elements of both first (where `itr` has a
# length), then each element of `itr` pushed in turn.
function _set_union!(s::Set, itr)
    _dict_sizehint!(s.items.dict, length(s) + _set_hint(itr), true)
    for x in itr
        push!(s, x)
    end
    return s
end
_set_hint(itr) = length(itr)
_set_hint(g::Generator) = length(g.iter)

length(s::Set) = length(s.items.dict)
isempty(s::Set) = isempty(s.items.dict)
in(x, s::Set) = haskey(s.items.dict, x)
eltype(s::Set{T}) where {T} = T

function push!(s::Set, x)
    s.items.dict[x] = true
    return s
end

function delete!(s::Set, x)
    delete!(s.items.dict, x)
    return s
end

# Element `k` in iteration order: what `for x in s` and generators read.
_gen_elem(s::Set, k::Int) = _gen_elem(s.items.dict, k).first
collect(s::Set) = collect(keys(s.items.dict))
sum(s::Set) = sum(collect(s))
first(s::Set) = _gen_elem(s, 1)

"""
    pop!(s::Set), pop!(s::Set, x), pop!(s::Set, x, default)

The first element in `s`'s order, deleted (Julia's `ArgumentError` when `s` is empty); or
`x`, deleted (Julia's `KeyError` when `s` does not hold it, or `default` returned).
"""
function pop!(s::Set)
    isempty(s) && throw(ArgumentError("set must be non-empty"))
    return pop!(s.items.dict).first
end
pop!(s::Set, x) = (pop!(s.items.dict, x); x)
pop!(s::Set, x, default) = x in s ? pop!(s, x) : default

empty!(s::Set) = (empty!(s.items.dict); s)

"""
    union!(s::Set, itrs...), intersect!(s::Set, itrs...), setdiff!(s::Set, itrs...)

`s` changed in place by each iterable in turn, as Julia's: each element pushed (the table
grown for them first), the elements it does not hold deleted in `s`'s order, or each of its
elements deleted.
"""
union!(s::Set, itr) = _set_union!(s, itr)
union!(s::Set, itr, rest...) = union!(_set_union!(s, itr), rest...)
intersect!(s::Set, t::Set) = filter!(x -> x in t, s)
intersect!(s::Set, itr) = intersect!(s, Set(itr))
intersect!(s::Set, itr, rest...) = intersect!(intersect!(s, itr), rest...)
function setdiff!(s::Set, itr)
    for x in itr
        delete!(s, x)
    end
    return s
end
setdiff!(s::Set, itr, rest...) = setdiff!(setdiff!(s, itr), rest...)

"""
    filter(f, s::Set), filter!(f, s::Set)

The elements `f` keeps: in a new set (pushed in `s`'s order), or in `s`, the others deleted
in its order.
"""
function filter(f, s::Set)
    r = _typed_set(eltype(s))
    for x in s
        if f(x)
            push!(r, x)
        end
    end
    return r
end

function filter!(f, s::Set)
    dropped = collect(s)[1:0]
    for x in s
        if !f(x)
            push!(dropped, x)
        end
    end
    for x in dropped
        delete!(s, x)
    end
    return s
end

# The reductions of a `Dict` or a `Set`, and `any`/`all`/`foreach`: over its elements in its
# order, as Julia iterates them (a Dict's pairs: `maximum(d)` by key first, Julia's `isless`
# of pairs).
count(f, c::Union{Dict, Set, BitSet}) = count(f, collect(c))
sum(f, c::Union{Dict, Set, BitSet}) = sum(f, collect(c))
prod(f, c::Union{Dict, Set, BitSet}) = prod(f, collect(c))
maximum(c::Union{Dict, Set}) = maximum(collect(c))
minimum(c::Union{Dict, Set}) = minimum(collect(c))
maximum(f, c::Union{Dict, Set, BitSet}) = maximum(f, collect(c))
minimum(f, c::Union{Dict, Set, BitSet}) = minimum(f, collect(c))
any(f, c::Union{Dict, Set, BitSet}) = any(f, collect(c))
all(f, c::Union{Dict, Set, BitSet}) = all(f, collect(c))
foreach(f, c::Union{Dict, Set, BitSet}) = foreach(f, collect(c))

push!(s::Set, x, y, rest...) = push!(push!(s, x), y, rest...)

# Of a set and another iterable, Julia's: `union` a new set of both (the element type
# promoted), `issetequal` and `isdisjoint` by membership.
union(a::Set, b) = union(a, Set(b))
intersect(a::Set, b::AbstractVector) = intersect(a, Set(b))
setdiff(a::Set, b::AbstractVector) = setdiff!(copy(a), b)
issetequal(a, b) = issetequal(Set(a), Set(b))
issetequal(a::Set, b::Set) = a == b
isdisjoint(a, b) = !any(x -> x in b, collect(a))
# Julia's `symdiff!` into a new set: `a`'s elements pushed, then each of `b`'s deleted where
# held, else pushed.
function symdiff(a::Set, b::Set)
    s = _typed_set(eltype(vcat(collect(a), collect(b))))
    for x in a
        push!(s, x)
    end
    for x in b
        if x in s
            delete!(s, x)
        else
            push!(s, x)
        end
    end
    return s
end
symdiff(a::Set, b) = symdiff(a, Set(b))

"""
    union(a::Set, b::Set), a ∪ b

The elements of either, `a`'s first (the element type promoted, as Julia's).
"""
function union(a::Set, b::Set)
    s = _typed_set(eltype(vcat(collect(a), collect(b))))
    return _set_union!(_set_union!(s, a), b)
end

"""
    intersect(a::Set, b::Set), a ∩ b

The elements of `a` that `b` holds.
"""
function intersect(a::Set, b::Set)
    s = _typed_set(eltype(a))
    # Julia's: the elements of the longer set (`a` where as long) that the other holds, pushed
    # in its order.
    return length(a) < length(b) ? _set_push_held!(s, b, a) : _set_push_held!(s, a, b)
end
# `s` with each element of `from` that `other` holds pushed in turn.
function _set_push_held!(s, from, other)
    for x in from
        if x in other
            push!(s, x)
        end
    end
    return s
end

"""
    setdiff(a::Set, b::Set)

The elements of `a` that `b` does not hold.
"""
function setdiff(a::Set, b::Set)
    s = copy(a)
    for x in b
        delete!(s, x)
    end
    return s
end

"""
    issubset(a::Set, b::Set), a ⊆ b

Whether `b` holds every element of `a`.
"""
issubset(a::Set, b::Set) = all(x -> x in b, collect(a))

==(a::Set, b::Set) = length(a) == length(b) && issubset(a, b)

# ---- BitSet ------------------------------------------------------------------------------------

# The elements of a `BitSet`: each once in `bits`, in the order pushed until a read puts them
# in ascending order (`sorted`), and in `held` for membership. In a struct of its own, so that
# the default constructor is none that a program calls (`BitSet([3, 1])` sorts its elements).
mutable struct _BitSetItems
    bits::Vector{Int}
    held::Set{Int}
    sorted::Bool
end

"""
    BitSet(), BitSet(itr)

Julia's set of `Int`s, iterated in ascending order: `push!`, `delete!`, `pop!`, `in`,
`length`, `isempty`, `union`/`intersect`/`setdiff`/`symdiff` (and their `!` forms), `issubset`,
`==`, `collect`, `sum`, `first`/`last`, `minimum`/`maximum`, `filter`. Each element is
converted to `Int` (`InexactError` for `1.5`). zy holds the elements in a vector and a `Set`
where Julia holds a bit for each; membership carries no gradient. Shown as `BitSet([1, 2, 3])`.
"""
struct BitSet
    items::_BitSetItems
end

BitSet() = BitSet(_BitSetItems(Int[], _typed_set(Int), true))
BitSet(itr) = union!(BitSet(), itr)
copy(s::BitSet) = BitSet(_BitSetItems(copy(s.items.bits), copy(s.items.held), s.items.sorted))
Set(s::BitSet) = Set(_bitset_bits(s))

# The elements in ascending order, sorted in place where a push left them out of order.
function _bitset_bits(s::BitSet)
    items = s.items
    if !items.sorted
        sort!(items.bits)
        items.sorted = true
    end
    return items.bits
end

length(s::BitSet) = length(s.items.bits)
isempty(s::BitSet) = isempty(s.items.bits)
eltype(s::BitSet) = Int
in(x, s::BitSet) = x in s.items.held

function push!(s::BitSet, x)
    n = Int(x)
    items = s.items
    if !(n in items.held)
        push!(items.held, n)
        if items.sorted && !isempty(items.bits) && n < items.bits[end]
            items.sorted = false
        end
        push!(items.bits, n)
    end
    return s
end
push!(s::BitSet, x, y, rest...) = push!(push!(s, x), y, rest...)

function delete!(s::BitSet, x)
    if x in s
        bits = _bitset_bits(s)
        delete!(s.items.held, x)
        deleteat!(bits, searchsortedfirst(bits, x))
    end
    return s
end

"""
    pop!(s::BitSet), pop!(s::BitSet, x), pop!(s::BitSet, x, default)

Julia's: the largest element (`pop!(s, last(s))`), or `x` removed (a `KeyError` where `s`
does not hold it, `default` returned instead where given).
"""
pop!(s::BitSet) = pop!(s, last(s))
pop!(s::BitSet, x) = x in s ? (delete!(s, x); x) : throw(KeyError(x))
pop!(s::BitSet, x, default) = x in s ? pop!(s, x) : default
popfirst!(s::BitSet) = pop!(s, first(s))
function empty!(s::BitSet)
    empty!(s.items.bits)
    empty!(s.items.held)
    s.items.sorted = true
    return s
end

# Element `k` in ascending order: what `for x in s` and generators read.
_gen_elem(s::BitSet, k::Int) = _bitset_bits(s)[k]
collect(s::BitSet) = copy(_bitset_bits(s))
sum(s::BitSet) = sum(s.items.bits)
first(s::BitSet) = isempty(s) ? throw(ArgumentError("collection must be non-empty")) : _bitset_bits(s)[1]
last(s::BitSet) = isempty(s) ? throw(ArgumentError("collection must be non-empty")) : _bitset_bits(s)[end]
minimum(s::BitSet) = first(s)
maximum(s::BitSet) = last(s)

function union!(s::BitSet, itr)
    for x in itr
        push!(s, x)
    end
    return s
end
union!(s::BitSet, itr, rest...) = union!(union!(s, itr), rest...)
intersect!(s::BitSet, itr) = filter!(x -> x in itr, s)
function setdiff!(s::BitSet, itr)
    for x in itr
        delete!(s, x)
    end
    return s
end
function symdiff!(s::BitSet, itr)
    for x in BitSet(itr)
        x in s ? delete!(s, x) : push!(s, x)
    end
    return s
end
union(s::BitSet, itrs...) = union!(copy(s), itrs...)
intersect(s::BitSet, itr) = intersect!(copy(s), itr)
setdiff(s::BitSet, itr) = setdiff!(copy(s), itr)
symdiff(s::BitSet, itr) = symdiff!(copy(s), itr)

filter(f, s::BitSet) = BitSet(filter(f, _bitset_bits(s)))
function filter!(f, s::BitSet)
    kept = filter(f, _bitset_bits(s))
    return union!(empty!(s), kept)
end

issubset(a::BitSet, b) = all(x -> x in b, a.items.bits)
issubset(a::BitSet, b::AbstractSet) = length(a) <= length(b) && all(x -> x in b, a.items.bits)
==(a::BitSet, b::BitSet) = _bitset_bits(a) == _bitset_bits(b)
==(a::BitSet, b::Set) = length(a) == length(b) && issubset(a, b)
==(a::Set, b::BitSet) = b == a

# Julia's generic methods of an `AbstractSet` (base/abstractset.jl), over the set types' own
# `length`, `in` and `iterate`: a struct of the program declared `<: AbstractSet{T}` has them.
issubset(a::AbstractSet, b::AbstractSet) = length(a) <= length(b) && all(x -> x in b, a)
==(a::AbstractSet, b::AbstractSet) = length(a) == length(b) && issubset(a, b)
issetequal(a::AbstractSet, b::AbstractSet) = a == b
# A new set of the elements of `s` and `sets` (`union`), of `s` that `itr` holds (`intersect`)
# or that none of `itrs` holds (`setdiff`): Julia's `emptymutable(s, T)`, a `Set{T}` unless
# the program defines one for its set type, filled by `push!` and emptied by `delete!`, as
# Julia's `union!` and `setdiff!` of an `AbstractSet` do.
emptymutable(s::AbstractSet, T) = _typed_set(T)
union(s::AbstractSet, sets...) = _union_each!(emptymutable(s, _promote_eltype(s, sets...)), s, sets...)
_promote_eltype(xs...) = eltype(vcat(map(collect, xs)...))
_union_each!(u) = u
_union_each!(u, x, rest...) = _union_each!(union!(u, x), rest...)
function union!(s::AbstractSet, itr)
    for x in itr
        push!(s, x)
    end
    return s
end
# Julia's: through `s` when `itr` is a longer collection with a fast `in`, else through `itr`.
function intersect(s::AbstractSet, itr)
    out = emptymutable(s, _promote_eltype(s, itr))
    return _fast_in(itr) && length(s) < length(itr) ? _set_push_held!(out, s, itr) : _set_push_held!(out, itr, s)
end
intersect(s::AbstractSet, itr, itrs...) = intersect(intersect(s, itr), itrs...)
_fast_in(itr) = false
_fast_in(itr::Union{AbstractSet, Dict}) = true
setdiff(s::AbstractSet, itrs...) = _setdiff_each!(union!(emptymutable(s, eltype(s)), s), itrs...)
_setdiff_each!(s) = s
_setdiff_each!(s, itr, rest...) = _setdiff_each!(setdiff!(s, itr), rest...)
function setdiff!(s::AbstractSet, itr)
    for x in itr
        delete!(s, x)
    end
    return s
end

"""
    a ⊇ b, a ⊉ b, a ⊊ b, a ⊋ b, c ∋ x, c ∌ x

Julia's set comparisons by `issubset` and `in`: `a ⊇ b` is `b ⊆ a`; `a ⊊ b` a proper subset,
of two sets `length(a) < length(b) && a ⊆ b`, of other collections that of their `Set`s;
`c ∋ x` is `x ∈ c`.
"""
⊇(a, b) = issubset(b, a)
⊉(a, b) = !issubset(b, a)
⊊(a::Union{AbstractSet, Set, BitSet}, b::Union{AbstractSet, Set, BitSet}) =
    length(a) < length(b) && issubset(a, b)
⊊(a::Union{AbstractSet, Set, BitSet}, b) = ⊊(a, Set(b))
⊊(a, b::Union{AbstractSet, Set, BitSet}) = ⊊(Set(a), b)
⊊(a, b) = ⊊(Set(a), Set(b))
⊋(a, b) = ⊊(b, a)
∋(c, x) = in(x, c)
∌(c, x) = !in(x, c)

# Of vectors, Julia's: vectors of distinct elements in order of first appearance.
union(a::AbstractVector, b::AbstractVector) = unique(vcat(a, b))
intersect(a::AbstractVector, b::AbstractVector) = unique(filter(x -> x in b, a))
setdiff(a::AbstractVector, b::AbstractVector) = unique(filter(x -> !(x in b), a))
# A range of Ints beside a vector: the range's elements as a vector (`setdiff(1:5, [2])`).
union(r::Union{UnitRange{Int}, StepRange{Int, Int}}, b::AbstractVector) = union(collect(r), b)
intersect(r::Union{UnitRange{Int}, StepRange{Int, Int}}, b::AbstractVector) = intersect(collect(r), b)
setdiff(r::Union{UnitRange{Int}, StepRange{Int, Int}}, b::AbstractVector) = setdiff(collect(r), b)
# A number is the collection of itself, as in Julia (`setdiff(1:n, i)`, leave one out).
union(a::Union{AbstractVector, UnitRange{Int}, StepRange{Int, Int}}, x::Number) = union(collect(a), [x])
intersect(a::Union{AbstractVector, UnitRange{Int}, StepRange{Int, Int}}, x::Number) = intersect(collect(a), [x])
setdiff(a::Union{AbstractVector, UnitRange{Int}, StepRange{Int, Int}}, x::Number) = setdiff(collect(a), [x])
issubset(a::AbstractVector, b::Union{AbstractVector, Set}) = all(x -> x in b, a)

"""
    x[i], x[]

A number is a collection of one element, itself (Julia's `getindex(x::Number, i)`): `x[1]`
and `x[]` are `x`, another index a `BoundsError`.
"""
getindex(x::Real, i::Int) = i == 1 ? x : throw(BoundsError(x, i))
getindex(x::Real) = x

# `showerror(io, e)`: zy's `io` is the text written so far (a `String`); a method returns it
# extended (a program's `Base.showerror(io::IO, e::E)` is rewritten so). Julia's fallback
# shows the value: `MyError("x")`.
showerror(io::String, e) = string(io, exception_text(e))

"""
    Enum

The supertype of the types `@enum` defines. Such a type is a struct holding its value as an
`Int` (Julia stores it in the base type, `Int32` by default); its instances are the constants
`@enum` names, shown by their names (`string(red) == "red"`, `repr(red) == "red"`), ordered
and converted (`Int(red)`) by their values.
"""
abstract type Enum end

# The value `T(x)` of an `@enum` type `T` holds: `x` if it is one of the type's, else Julia's
# `ArgumentError`.
_enum_value(x::Integer, values::Tuple, name::String) =
    x in values ? Int(x) : throw(ArgumentError("invalid value for Enum $name: $x"))
# `Int(x)` and `Symbol(x)` of one (inference's builtins call these).
_enum_int(x::Enum) = x.value
_enum_symbol(x::Enum) = Symbol(_enum_name(x))
# The name of an `@enum` instance, by its place in `instances(T)`.
function _enum_name(x::Enum)
    for (y, name) in zip(instances(typeof(x)), _enum_names(typeof(x)))
        y == x && return name
    end
    throw(ArgumentError("invalid value for Enum $(typeof(x)): $(x.value)"))
end
isless(a::T, b::T) where {T<:Enum} = isless(a.value, b.value)
<(a::T, b::T) where {T<:Enum} = a.value < b.value
<=(a::T, b::T) where {T<:Enum} = a.value <= b.value
>(a::T, b::T) where {T<:Enum} = b < a
>=(a::T, b::T) where {T<:Enum} = b <= a

"""
    ARGS

The command-line arguments of a script: zy calls functions as `julia script.jl` runs them
without any, so `ARGS` is empty (`isempty(ARGS)` holds, `ARGS[1]` is a `BoundsError`).
"""
const ARGS = String[]

# ---- Paths (Julia's path.jl, as on Unix) ----------------------------------------------------

"""
    splitdir(path)

`path` split at its last `/` (with the `/`s just before it) into the directory and the last
component: `splitdir("a/b.csv") == ("a", "b.csv")`, `splitdir("/x") == ("/", "x")`, and
`("", path)` for a path without a `/`.
"""
function splitdir(path::String)
    i = lastindex(path)
    while i > 0 && path[i] != '/'
        i = prevind(path, i)
    end
    i == 0 && return ("", path)
    name = path[i+1:lastindex(path)]
    while i > 1 && path[prevind(path, i)] == '/'
        i = prevind(path, i)
    end
    return (i == 1 ? "/" : path[1:prevind(path, i)], name)
end
"""
    dirname(path)

The directory part of `path`, without its trailing `/`: `dirname("/data/x.csv") == "/data"`.
"""
dirname(path::String) = splitdir(path)[1]
"""
    basename(path)

The last component of `path`: `basename("/data/x.csv") == "x.csv"` (empty after a trailing `/`).
"""
basename(path::String) = splitdir(path)[2]
"""
    isabspath(path)

Whether `path` starts at the root (`/`).
"""
isabspath(path::String) = startswith(path, '/')
"""
    joinpath(parts...)

The parts joined by `/` (none added after a part that ends with one); an absolute part starts
the path afresh: `joinpath(@__DIR__, "data.csv")`.
"""
joinpath(path::String) = path
function joinpath(a::String, b::String)
    isabspath(b) && return b
    return isempty(a) || endswith(a, '/') ? a * b : string(a, "/", b)
end
joinpath(a::String, b::String, c::String, rest::String...) = joinpath(joinpath(a, b), c, rest...)
"""
    any(f, t::Tuple), all(f, t::Tuple), count(f, t::Tuple)

Over a tuple or a named tuple (`all(isfinite, (a, b))`): each element by its own method, `any`
and `all` stopping at the first that decides, as Julia's.
"""
any(f, t::Tuple) = _any_each(f, t...)
all(f, t::Tuple) = _all_each(f, t...)
count(f, t::Tuple) = _count_each(f, 0, t...)
any(t::Tuple) = any(identity, t)
all(t::Tuple) = all(identity, t)
count(t::Tuple) = count(identity, t)
any(f, t::NamedTuple) = any(f, values(t))
all(f, t::NamedTuple) = all(f, values(t))
count(f, t::NamedTuple) = count(f, values(t))
_count_each(f, n) = n
_count_each(f, n, x, rest...) = _count_each(f, n + (f(x) ? 1 : 0), rest...)
"""
    nameof(f), nameof(T)

The name of a function or of a type as a `Symbol`: `nameof(sin) == :sin`,
`nameof(typeof(e)) == :BoundsError` of a caught exception, a parametric type's without its
module and parameters (`nameof(Vector{Float64}) == :Array`).
"""
nameof(f::Function) = Symbol(_nameof_text(string(f)))
function _nameof_text(s::String)
    i = findfirst('{', s)
    head = i === nothing ? s : s[1:i-1]
    j = findlast('.', head)
    name = j === nothing ? head : head[j+1:end]
    return name == "Vector" || name == "Matrix" ? "Array" : name
end
