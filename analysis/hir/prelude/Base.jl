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
    sec(x)

The secant, `inv(cos(x))`.
"""
sec(x::Real) = 1.0 / cos(x)

"""
    csc(x)

The cosecant, `inv(sin(x))`.
"""
csc(x::Real) = 1.0 / sin(x)

"""
    cot(x)

The cotangent, `inv(tan(x))`.
"""
cot(x::Real) = 1.0 / tan(x)

"""
    deg2rad(x)

`x` degrees in radians: `x * (π / 180)`.
"""
deg2rad(x::Real) = float(x) * 0.017453292519943295

"""
    rad2deg(x)

`x` radians in degrees: `x * (180 / π)`.
"""
rad2deg(x::Real) = float(x) * 57.29577951308232

"""
    clamp(x, lo, hi)

`x` when `lo <= x <= hi`, else the bound it lies beyond: `lo` below, `hi` above. The result
has the promoted type of the three.
"""
clamp(x::Real, lo::Real, hi::Real) = x > hi ? hi : (x < lo ? lo : x)

"""
    eps(Float64), eps()

The distance from 1.0 to the next larger Float64.
"""
eps(::Type{Float64}) = 2.220446049250313e-16
eps() = eps(Float64)

"""
    typemax(T), typemin(T)

The largest and smallest values of `Float64` (±Inf) and `Int64`.
"""
typemax(::Type{Float64}) = Inf
typemin(::Type{Float64}) = -Inf
typemax(::Type{Int64}) = 9223372036854775807
typemin(::Type{Int64}) = -9223372036854775807 - 1
typemax(::Type{Int}) = typemax(Int64)
typemin(::Type{Int}) = typemin(Int64)

"""
    floatmax(Float64), floatmin(Float64)

The largest finite and the smallest normal positive Float64.
"""
floatmax(::Type{Float64}) = 1.7976931348623157e308
floatmin(::Type{Float64}) = 2.2250738585072014e-308
