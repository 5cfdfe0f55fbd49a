# zy's prelude: ForwardDiff's API, answered by zy's own differentiation. ForwardDiff's users write
# `ForwardDiff.derivative(f, x)`, `ForwardDiff.gradient(f, x)`, `ForwardDiff.jacobian(f, x)` and
# `ForwardDiff.hessian(f, x)` (the package exports nothing); each gives ForwardDiff's value
# (derivatives are exact in both, so the numbers agree to rounding) and is itself
# differentiable, as zy's `derivative`, `gradient`, `jacobian` and `hessian` are.

"""
    ForwardDiff.derivative(f, x::Float64)

The derivative of `f` at the number `x`: a number for a scalar `f`, an array of the
derivatives of the entries for an array-valued one (zy's `derivative`, forward mode).
"""
derivative(f, x::Float64) = Base._ad_derivative(f, x)

"""
    ForwardDiff.gradient(f, x::AbstractArray)

The gradient of the real-valued `f` at the array `x`, an array of `x`'s shape (zy's
`gradient(f, x)[1]`, reverse mode).
"""
gradient(f, x::AbstractArray) = Base._ad_gradient(f, x)[1]

"""
    ForwardDiff.jacobian(f, x::AbstractArray)

The Jacobian of the array-valued `f` at the vector `x`: `J[k, i] = ∂f(x)[k]/∂x[i]` (zy's
`jacobian(f, x)[1]`).
"""
jacobian(f, x::AbstractArray) = Base._ad_jacobian(f, x)[1]

"""
    ForwardDiff.hessian(f, x::AbstractArray)

The Hessian of the real-valued `f` at the vector `x` (zy's `hessian`, forward over reverse);
at a matrix, with respect to its entries in column-major order.
"""
hessian(f, x::AbstractArray) = Base._ad_hessian(f, x)
hessian(f, A::AbstractMatrix) = Base._ad_hessian(v -> f(reshape(v, size(A))), A[:])

"""
    ForwardDiff.gradient!(out, f, x), ForwardDiff.jacobian!(out, f, x), ForwardDiff.hessian!(out, f, x)

The gradient (Jacobian, Hessian) of `f` at `x` written into the array `out`, which is
returned.
"""
gradient!(out::AbstractArray, f, x::AbstractArray) = (out .= gradient(f, x); out)
jacobian!(out::AbstractArray, f, x::AbstractArray) = (out .= jacobian(f, x); out)
hessian!(out::AbstractArray, f, x::AbstractArray) = (out .= hessian(f, x); out)

"""
    ForwardDiff.jacobian(f!, y, x), ForwardDiff.derivative(f!, y, x)

The Jacobian (derivative) of the in-place `f!(y, x)`, which writes its value into `y`: `f!`
starts from `y`'s contents, as ForwardDiff seeds its buffer from `y`, and `y` is left holding
the value at `x`.
"""
function jacobian(f!, y::AbstractArray, x::AbstractArray)
    J = jacobian(v -> _inplace_value(f!, y, v), x)
    f!(y, x)
    return J
end

function derivative(f!, y::AbstractArray, x::Float64)
    d = derivative(t -> _inplace_value(f!, y, t), x)
    f!(y, x)
    return d
end

# `f!`'s value at `x` in a fresh copy of `y`.
_inplace_value(f!, y, x) = (w = copy(y); f!(w, x); w)

"""
    ForwardDiff.derivative!(out, f, x)

The derivative of the array-valued `f` at the number `x` written into `out`, which is
returned.
"""
derivative!(out::AbstractArray, f, x::Float64) = (out .= derivative(f, x); out)

"""
    ForwardDiff.value(x)

The value of a number: `x` itself outside a dual number.
"""
value(x::Real) = x

"""
    ForwardDiff.Chunk{N}()

The number of partials ForwardDiff propagates at once: a tuning knob, which does not change
the derivatives (zy chooses its own).
"""
struct Chunk{N} end

"""
    ForwardDiff.GradientConfig(f, x[, chunk]), JacobianConfig, HessianConfig, DerivativeConfig

ForwardDiff's preallocated work buffers, passed as the last argument of `gradient`,
`jacobian`, `hessian` and their `!` forms; they do not change the derivatives.
"""
struct GradientConfig end
GradientConfig(f, x::AbstractArray, c = nothing) = GradientConfig()
struct JacobianConfig end
JacobianConfig(f, x::AbstractArray, c = nothing) = JacobianConfig()
JacobianConfig(f!, y::AbstractArray, x::AbstractArray, c = nothing) = JacobianConfig()
struct HessianConfig end
HessianConfig(f, x::AbstractArray, c = nothing) = HessianConfig()
struct DerivativeConfig end
DerivativeConfig(f!, y::AbstractArray, x::Real) = DerivativeConfig()

gradient(f, x::AbstractArray, cfg::GradientConfig) = gradient(f, x)
gradient!(out::AbstractArray, f, x::AbstractArray, cfg::GradientConfig) = gradient!(out, f, x)
jacobian(f, x::AbstractArray, cfg::JacobianConfig) = jacobian(f, x)
jacobian(f!, y::AbstractArray, x::AbstractArray, cfg::JacobianConfig) = jacobian(f!, y, x)
jacobian!(out::AbstractArray, f, x::AbstractArray, cfg::JacobianConfig) = jacobian!(out, f, x)
hessian(f, x::AbstractArray, cfg::HessianConfig) = hessian(f, x)
hessian!(out::AbstractArray, f, x::AbstractArray, cfg::HessianConfig) = hessian!(out, f, x)
derivative(f!, y::AbstractArray, x::Float64, cfg::DerivativeConfig) = derivative(f!, y, x)
