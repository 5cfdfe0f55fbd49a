# zy's prelude: Zygote's API, answered by zy's own differentiation, for code that writes
# `Zygote.gradient(f, x)` or `using Zygote` (zy's `gradient`, `pullback`, `jacobian`,
# `hessian` and `withgradient` are Zygote's already, by the same names and conventions: a
# tuple with one gradient per argument, `nothing` for an argument no gradient reaches).

export withgradient, gradient

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
the real-valued `f` at `x` (zy's `hessian`).
"""
jacobian(f, x) = Base._ad_jacobian(f, x)
jacobian(f, x, y) = Base._ad_jacobian(f, x, y)
hessian(f, x) = Base._ad_hessian(f, x)

"""
    withgradient(f, args...)

Zygote's `(val = f(args...), grad = gradient(f, args...))`: the value and the gradients
together (the function is run once more for the value).
"""
withgradient(f, args...) = (val = f(args...), grad = gradient(f, args...))
