# zy's prelude: the part of Julia's Statistics that zy defines in Julia. Seen after
# `using Statistics` (its exports) or as `Statistics.name`.

export mean

"""
    mean(x)

The arithmetic mean of the elements of `x`: `sum(x) / length(x)`, with Julia's pairwise sum.
"""
mean(x::AbstractVector) = sum(x) / length(x)

"""
    mean(f, x)

The mean of `f` applied to each element of `x`.
"""
mean(f, x::AbstractVector) = sum(f, x) / length(x)
