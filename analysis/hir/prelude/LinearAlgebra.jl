# zy's prelude: the part of Julia's LinearAlgebra that zy defines in Julia. Seen after
# `using LinearAlgebra` (its exports) or as `LinearAlgebra.name`.

export norm

"""
    norm(x)

The Euclidean norm of a vector, `sqrt(sum(abs2, x))`.
"""
norm(x::AbstractVector) = sqrt(sum(abs2, x))

# The gradient x / norm(x), and zero at the zero vector (as ChainRules gives it) instead of
# the 0 / 0 that differentiating the definition gives there.
function rrule(::typeof(norm), x::AbstractVector)
    y = norm(x)
    function norm_pullback(ȳ)
        s = y == 0.0 ? 0.0 : ȳ / y
        return (NoTangent(), s .* x)
    end
    return y, norm_pullback
end
