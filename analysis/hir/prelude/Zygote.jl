# zy's prelude: Zygote's API, answered by zy's own differentiation, for code that writes
# `Zygote.gradient(f, x)` or `using Zygote` (zy's `gradient`, `pullback`, `jacobian`,
# `hessian` and `withgradient` are Zygote's already, by the same names and conventions: a
# tuple with one gradient per argument, `nothing` for an argument without one, such as an
# integer; a zero where Zygote gives `nothing` for a number or array the function ignores).

export withgradient, gradient, pullback, jacobian, hessian, diaghessian

"""
    Zygote.gradient(f, args...)

The gradient of the real-valued `f` with respect to each argument, a tuple (zy's `gradient`).
"""
gradient(f, x) = Base._ad_gradient(f, _as_real(x))
gradient(f, x, y) = Base._ad_gradient(f, _as_real(x), _as_real(y))
gradient(f, x, y, z) = Base._ad_gradient(f, _as_real(x), _as_real(y), _as_real(z))

# Zygote differentiates an integer as a real number (`gradient(x -> 3x^2 + 2x + 1, 5)` is
# `(32,)`), where zy's own `gradient` gives it none: an Int, or an array of Ints, is passed as
# Float64 (so the gradient is `(32.0,)`). A Bool stays inactive, as in Zygote.
_as_real(x::Int) = Float64(x)
_as_real(x::Array{Int, N}) where {N} = float.(x)
_as_real(x) = x

"""
    Zygote.pullback(f, args...)

The value of `f` and its pullback, the function from the result's cotangent to the
arguments' (zy's `pullback`).
"""
pullback(f, x) = Base._ad_pullback(f, x)
pullback(f, x, y) = Base._ad_pullback(f, x, y)
pullback(f, x, y, z) = Base._ad_pullback(f, x, y, z)

"""
    Zygote.jacobian(f, args...), Zygote.hessian(f, x)

The Jacobian of `f` with respect to each argument, a tuple (zy's `jacobian`); the Hessian of
the real-valued `f` at `x` (zy's `hessian`): of a number, the second derivative; of a
matrix, with respect to its entries in column-major order (`length(A)` square).
"""
jacobian(f, x) = Base._ad_jacobian(f, x)
jacobian(f, x, y) = Base._ad_jacobian(f, x, y)
hessian(f, x) = Base._ad_hessian(f, x)
hessian(f, x::Float64) = Base._ad_derivative(t -> Base._ad_derivative(f, t), x)
hessian(f, A::AbstractMatrix) = Base._ad_hessian(v -> f(reshape(v, size(A))), A[:])

"""
    withgradient(f, args...)

Zygote's `(val = f(args...), grad = gradient(f, args...))`: the value and the gradients
together (the function is run once more for the value).
"""
withgradient(f, args...) = (val = f(args...), grad = gradient(f, args...))

"""
    Zygote.hessian_reverse(f, x), Zygote.diaghessian(f, x)

The Hessian of the real-valued `f` at the vector `x` (Zygote's by reverse over reverse, zy's
`hessian`: the same numbers); `diaghessian`, its diagonal in a one-element tuple.
"""
hessian_reverse(f, x) = Base._ad_hessian(f, x)
function diaghessian(f, x::AbstractVector)
    H = Base._ad_hessian(f, x)
    return ([H[i, i] for i in 1:length(x)],)
end

"""
    Zygote.dropgrad(x), Zygote.ignore(f)

`x` itself, and `f()`, with no gradient flowing back through them to what they read.
"""
dropgrad(x) = x
rrule(::typeof(dropgrad), x) = (x, _ -> (NoTangent(), NoTangent()))
ignore(f) = f()
rrule(::typeof(ignore), f) = (f(), _ -> (NoTangent(), NoTangent()))

"""
    Zygote.Buffer(x), Zygote.Buffer(x, dims...)

An array like `x` (of size `dims`) to be written entry by entry and read back with `copy`:
Zygote's way of building an array by mutation, an ordinary array in zy, whose writes are
differentiated like any other.
"""
struct Buffer{A}
    data::A
    freeze::Bool
end
Buffer(x::AbstractArray) = Buffer(similar(x), false)
Buffer(x::AbstractArray, dims::Int...) = Buffer(similar(x, dims...), false)
Base.getindex(b::Buffer, i) = b.data[i]
Base.getindex(b::Buffer, i, j) = b.data[i, j]
Base.setindex!(b::Buffer, v, i) = (b.data[i] = v; b)
Base.setindex!(b::Buffer, v, i, j) = (b.data[i, j] = v; b)
Base.copy(b::Buffer) = copy(b.data)
Base.size(b::Buffer) = size(b.data)
Base.size(b::Buffer, d::Int) = size(b.data, d)
Base.length(b::Buffer) = length(b.data)
Base.eachindex(b::Buffer) = eachindex(b.data)
