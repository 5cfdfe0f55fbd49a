# zy's prelude: Julia's Random, written in Julia. `rand` and `randn` are Base's functions
# (seen without `using Random`, as in Julia: Base.jl draws from `default_rng()`); the generators, `seed!`, `shuffle`, `randperm` and the
# in-place forms are seen after `using Random` or as `Random.name`.
#
# The generator is Julia's default, xoshiro256++, and floats are made as Julia makes them (the
# top 53 bits of a draw, times 2⁻⁵³). Two things differ from Julia, and the stream with them:
# a seed is expanded into the state by SplitMix64 (Julia hashes it with SHA-256), and `randn`
# is the Box–Muller transform (Julia's is a ziggurat). Every run starts from the same state
# (`seed!(0)`), so a program's numbers are the same from run to run and between the
# interpreter and the compiled code. Random numbers are constants to the AD: no gradient flows
# through them.

export AbstractRNG, Xoshiro, MersenneTwister, default_rng, seed!, rand!, randn!, randexp,
    shuffle, shuffle!, randperm, randstring

# Methods drawing from a given generator.
import Base: rand, randn

"""
    AbstractRNG

A random number generator: `Xoshiro`, `MersenneTwister`.
"""
abstract type AbstractRNG end

"""
    Xoshiro(seed)

Julia's default generator, xoshiro256++, started from `seed` (an integer).
"""
mutable struct Xoshiro <: AbstractRNG
    s0::Int64
    s1::Int64
    s2::Int64
    s3::Int64
end

"""
    MersenneTwister(seed)

Julia's older generator, by name: zy draws its numbers with xoshiro256++, a different stream
of the same distribution.
"""
mutable struct MersenneTwister <: AbstractRNG
    s0::Int64
    s1::Int64
    s2::Int64
    s3::Int64
end

Xoshiro(seed::Integer) = seed!(Xoshiro(0, 0, 0, 0), seed)
MersenneTwister(seed::Integer) = seed!(MersenneTwister(0, 0, 0, 0), seed)

# The generator every call without one draws from (Julia's task-local `default_rng()`).
const _DEFAULT = Xoshiro(0)

"""
    default_rng()

The generator `rand(...)` draws from when none is given.
"""
default_rng() = _DEFAULT

# SplitMix64: the next state after `z`, and its output (Vigna's seeding of xoshiro).
function _splitmix(z::Int64)
    z += -7046029254386353131
    x = z
    x = (x ⊻ (x >>> 30)) * -4658895280553007687
    x = (x ⊻ (x >>> 27)) * -7723592293110705685
    return z, x ⊻ (x >>> 31)
end

"""
    seed!(seed), seed!(rng, seed), seed!(), seed!(rng)

Restart the default generator (or `rng`) from `seed`, so that the numbers after it are the
same every time. Without a seed, Julia restarts from the system's entropy; zy restarts from
the generator's next draw, a fresh state that is still the same from run to run.
"""
function seed!(rng::AbstractRNG, seed::Integer)
    z, a = _splitmix(Int64(seed))
    z, b = _splitmix(z)
    z, c = _splitmix(z)
    z, d = _splitmix(z)
    rng.s0 = a
    rng.s1 = b
    rng.s2 = c
    rng.s3 = d
    return rng
end
seed!(seed::Integer) = seed!(default_rng(), seed)
seed!(rng::AbstractRNG) = seed!(rng, _next!(rng))
seed!() = seed!(default_rng())

_rotl(x::Int64, k::Int) = (x << k) | (x >>> (64 - k))

# One xoshiro256++ step: the 64 random bits drawn, the state advanced.
function _next!(rng::AbstractRNG)
    s0, s1, s2, s3 = rng.s0, rng.s1, rng.s2, rng.s3
    result = _rotl(s0 + s3, 23) + s0
    t = s1 << 17
    s2 = s2 ⊻ s0
    s3 = s3 ⊻ s1
    s1 = s1 ⊻ s2
    s0 = s0 ⊻ s3
    s2 = s2 ⊻ t
    s3 = _rotl(s3, 45)
    rng.s0 = s0
    rng.s1 = s1
    rng.s2 = s2
    rng.s3 = s3
    return result
end

"""
    rand(), rand(n), rand(m, n), rand(dims), rand(Float64, ...), rand(a:b, ...), rand(xs, ...),
    rand(rng, ...)

Uniform random numbers in [0, 1), an `n`-vector or an m×n matrix of them; integers drawn
uniformly from a range, or elements of a collection. With `rng` first, drawn from it.
"""
rand(rng::AbstractRNG) = Float64(_next!(rng) >>> 11) * 1.1102230246251565e-16
rand(rng::AbstractRNG, ::Type{Float64}) = rand(rng)
# A Float32 from the top 24 bits of a draw times 2⁻²⁴ (Julia's Xoshiro: the upper 32 bits
# shifted by 8).
rand(rng::AbstractRNG, ::Type{Float32}) = Float32(_next!(rng) >>> 40) * Float32(5.960464477539063e-8)
rand(rng::AbstractRNG, ::Type{Float32}, n::Int) = _fill_rand!(rng, Vector{Float32}(undef, n))
rand(rng::AbstractRNG, ::Type{Float32}, m::Int, n::Int) = _fill_rand!(rng, Matrix{Float32}(undef, m, n))
function rand(rng::AbstractRNG, r::UnitRange{Int})
    n = length(r)
    n > 0 || throw(ArgumentError("collection must be non-empty"))
    # Uniform on 0:n-1 by rejection from 63 random bits, so that no value is favoured.
    limit = typemax(Int) - rem(typemax(Int), n) - 1
    u = _next!(rng) >>> 1
    while u > limit
        u = _next!(rng) >>> 1
    end
    return first(r) + rem(u, n)
end
rand(rng::AbstractRNG, xs::AbstractVector) = xs[rand(rng, 1:length(xs))]
# A character of a string, each as likely.
rand(rng::AbstractRNG, s::AbstractString) = rand(rng, collect(s))
# An element of a tuple, whose elements may differ in type (symbols, numbers of two types).
rand(rng::AbstractRNG, xs::Tuple) = collect(xs)[rand(rng, 1:length(xs))]
rand(rng::AbstractRNG, n::Int) = _fill_rand!(rng, Vector{Float64}(undef, n))
rand(rng::AbstractRNG, m::Int, n::Int) = _fill_rand!(rng, Matrix{Float64}(undef, m, n))
rand(rng::AbstractRNG, ::Type{Float64}, dims::Int...) = rand(rng, dims...)
rand(rng::AbstractRNG, dims::Tuple{Int}) = rand(rng, dims[1])
rand(rng::AbstractRNG, dims::Tuple{Int, Int}) = rand(rng, dims[1], dims[2])
# A tuple of Ints is a size (Julia's `Dims`), never a collection to pick from.
rand(rng::AbstractRNG, dims::Tuple{Int, Int, Int}) = _fill_rand!(rng, zeros(dims...))
rand(rng::AbstractRNG, dims::Tuple{Int, Int, Int, Int}) = _fill_rand!(rng, zeros(dims...))
rand(rng::AbstractRNG, dims::Tuple{Int, Int, Int, Int, Int}) = _fill_rand!(rng, zeros(dims...))
rand(rng::AbstractRNG, dims::Tuple{Int, Int, Int, Int, Int, Int}) = _fill_rand!(rng, zeros(dims...))
function rand(rng::AbstractRNG, r::UnitRange{Int}, n::Int)
    v = Vector{Int}(undef, n)
    for i in 1:n
        v[i] = rand(rng, r)
    end
    return v
end
function rand(rng::AbstractRNG, xs::AbstractVector, n::Int)
    v = similar(xs, n)
    for i in 1:n
        v[i] = rand(rng, xs)
    end
    return v
end

"""
    randn(), randn(n), randn(m, n), randn(dims), randn(Float64, ...), randn(rng, ...)

Standard normal random numbers (mean 0, variance 1).
"""
function randn(rng::AbstractRNG)
    u = 1.0 - rand(rng)
    v = rand(rng)
    return sqrt(-2.0 * log(u)) * cos(6.283185307179586 * v)
end
randn(rng::AbstractRNG, ::Type{Float64}) = randn(rng)
randn(rng::AbstractRNG, n::Int) = _fill_randn!(rng, Vector{Float64}(undef, n))
randn(rng::AbstractRNG, m::Int, n::Int) = _fill_randn!(rng, Matrix{Float64}(undef, m, n))
randn(rng::AbstractRNG, ::Type{Float64}, dims::Int...) = randn(rng, dims...)
randn(rng::AbstractRNG, dims::Tuple{Int}) = randn(rng, dims[1])
randn(rng::AbstractRNG, dims::Tuple{Int, Int}) = randn(rng, dims[1], dims[2])
randn(rng::AbstractRNG, dims::Tuple{Int, Int, Int}) = _fill_randn!(rng, zeros(dims...))
randn(rng::AbstractRNG, dims::Tuple{Int, Int, Int, Int}) = _fill_randn!(rng, zeros(dims...))
randn(rng::AbstractRNG, dims::Tuple{Int, Int, Int, Int, Int}) = _fill_randn!(rng, zeros(dims...))
randn(rng::AbstractRNG, dims::Tuple{Int, Int, Int, Int, Int, Int}) = _fill_randn!(rng, zeros(dims...))

"""
    randexp(), randexp(n), randexp(rng, ...)

Exponential random numbers of rate 1: `-log(1 - rand())`.
"""
randexp(rng::AbstractRNG) = -log(1.0 - rand(rng))
function randexp(rng::AbstractRNG, n::Int)
    v = Vector{Float64}(undef, n)
    for i in 1:n
        v[i] = randexp(rng)
    end
    return v
end
randexp() = randexp(default_rng())
randexp(n::Int) = randexp(default_rng(), n)

function _fill_rand!(rng::AbstractRNG, A)
    for i in eachindex(A)
        A[i] = rand(rng, eltype(A))
    end
    return A
end
function _fill_randn!(rng::AbstractRNG, A)
    for i in eachindex(A)
        A[i] = randn(rng)
    end
    return A
end

"""
    rand!(A), rand!(rng, A), randn!(A), randn!(rng, A)

Fill the array `A` with uniform (normal) random numbers, in place.
"""
rand!(rng::AbstractRNG, A::AbstractArray) = _fill_rand!(rng, A)
rand!(A::AbstractArray) = _fill_rand!(default_rng(), A)
randn!(rng::AbstractRNG, A::AbstractArray) = _fill_randn!(rng, A)
randn!(A::AbstractArray) = _fill_randn!(default_rng(), A)

"""
    shuffle!(v), shuffle!(rng, v), shuffle(v), randperm(n)

The elements of `v` in a random order (Fisher–Yates), in place or in a copy; a random
permutation of `1:n`.
"""
function shuffle!(rng::AbstractRNG, v::AbstractVector)
    for i in length(v):-1:2
        j = rand(rng, 1:i)
        v[i], v[j] = v[j], v[i]
    end
    return v
end
shuffle!(v::AbstractVector) = shuffle!(default_rng(), v)
shuffle(rng::AbstractRNG, v::AbstractVector) = shuffle!(rng, copy(v))
shuffle(v::AbstractVector) = shuffle!(default_rng(), copy(v))
randperm(rng::AbstractRNG, n::Int) = shuffle!(rng, collect(1:n))
randperm(n::Int) = randperm(default_rng(), n)

# The characters `randstring` draws from by default: digits, then upper- and lowercase letters.
const _RANDSTRING_CHARS = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

"""
    randstring([rng], [chars], [len = 8])

A random `String` of `len` characters, each drawn uniformly from `chars` (a string, or a
vector or range of characters; by default the ASCII digits and letters).
"""
randstring(rng::AbstractRNG, chars, n::Integer) = String([rand(rng, chars) for _ in 1:n])
randstring(rng::AbstractRNG, n::Integer) = randstring(rng, _RANDSTRING_CHARS, n)
randstring(rng::AbstractRNG) = randstring(rng, _RANDSTRING_CHARS, 8)
randstring(chars, n::Integer) = randstring(default_rng(), chars, n)
randstring(n::Integer) = randstring(default_rng(), _RANDSTRING_CHARS, n)
randstring(chars) = randstring(default_rng(), chars, 8)
randstring() = randstring(default_rng(), _RANDSTRING_CHARS, 8)
