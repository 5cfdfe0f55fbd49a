# zy's prelude: ReverseDiff's API, answered by zy's own differentiation. ReverseDiff's users
# write `ReverseDiff.gradient(f, x)`, `ReverseDiff.jacobian(f, x)` and
# `ReverseDiff.hessian(f, x)`, with `!` forms writing into an array, and may record `f` on a
# `GradientTape` (and `compile` it) to run again at other points; zy differentiates `f`
# itself, so a tape only names the function, and the derivatives are the same at every point
# (ReverseDiff's tapes keep the branches taken when recorded; zy's follow the point).

"""
    ReverseDiff.gradient(f, x), ReverseDiff.gradient(f, (x, y, ...))

The gradient of the real-valued `f` at the array `x`, an array of `x`'s shape; of a tuple
of arrays, the tuple of the gradients with respect to each (zy's `gradient`).
"""
gradient(f, x::AbstractArray) = Base._ad_gradient(f, x)[1]
gradient(f, xs::Tuple) = Base._ad_gradient(f, xs...)

"""
    ReverseDiff.jacobian(f, x), ReverseDiff.hessian(f, x)

The Jacobian of the array-valued `f` at the array `x` (zy's `jacobian(f, x)[1]`); the Hessian
of the real-valued `f` at the vector `x` (zy's `hessian`).
"""
jacobian(f, x::AbstractArray) = Base._ad_jacobian(f, x)[1]
hessian(f, x::AbstractArray) = Base._ad_hessian(f, x)

"""
    ReverseDiff.gradient!(out, f, x), ReverseDiff.jacobian!(out, f, x), ReverseDiff.hessian!(out, f, x)

The gradient (Jacobian, Hessian) of `f` at `x` written into the array `out`, which is
returned; `f` may be a tape.
"""
gradient!(out::AbstractArray, f, x::AbstractArray) = (out .= gradient(f, x); out)
jacobian!(out::AbstractArray, f, x::AbstractArray) = (out .= jacobian(f, x); out)
hessian!(out::AbstractArray, f, x::AbstractArray) = (out .= hessian(f, x); out)

"""
    ReverseDiff.GradientTape(f, x), JacobianTape(f, x), HessianTape(f, x), compile(tape)

A recording of `f` at the point `x`, to be run by `gradient!(out, tape, x)` (`jacobian!`,
`hessian!`) at other points; `compile` gives the tape back.
"""
struct GradientTape{F}
    f::F
end
GradientTape(f, x::AbstractArray) = GradientTape(f)
struct JacobianTape{F}
    f::F
end
JacobianTape(f, x::AbstractArray) = JacobianTape(f)
struct HessianTape{F}
    f::F
end
HessianTape(f, x::AbstractArray) = HessianTape(f)
compile(t::Union{GradientTape, JacobianTape, HessianTape}) = t

gradient!(out::AbstractArray, t::GradientTape, x::AbstractArray) = gradient!(out, t.f, x)
gradient(t::GradientTape, x::AbstractArray) = gradient(t.f, x)
jacobian!(out::AbstractArray, t::JacobianTape, x::AbstractArray) = jacobian!(out, t.f, x)
jacobian(t::JacobianTape, x::AbstractArray) = jacobian(t.f, x)
hessian!(out::AbstractArray, t::HessianTape, x::AbstractArray) = hessian!(out, t.f, x)
hessian(t::HessianTape, x::AbstractArray) = hessian(t.f, x)

"""
    ReverseDiff.GradientConfig(x), JacobianConfig(x), HessianConfig(x)

ReverseDiff's preallocated work buffers, passed as the last argument of `gradient`,
`jacobian` and `hessian`; they do not change the derivatives.
"""
struct GradientConfig end
GradientConfig(x) = GradientConfig()
struct JacobianConfig end
JacobianConfig(x) = JacobianConfig()
struct HessianConfig end
HessianConfig(x::AbstractArray) = HessianConfig()

gradient(f, x, cfg::GradientConfig) = gradient(f, x)
gradient!(out::AbstractArray, f, x, cfg::GradientConfig) = gradient!(out, f, x)
jacobian(f, x::AbstractArray, cfg::JacobianConfig) = jacobian(f, x)
hessian(f, x::AbstractArray, cfg::HessianConfig) = hessian(f, x)
