# Constructs zy refuses, one per function: tests/tests/refusals.rs snapshots every diagnostic
# (file:line:col, code, message) in refusals.txt. Each message names the construct and, where
# Julia has a spelling zy accepts, says what to write instead.

macro twice(ex)
    ex
end
m1(x) = @twice x
m2(x) = @test x > 0

# Strings, symbols, characters.
# zy: at s1(1.0)
s1(x) = x > 0 ? "positive" : "negative"
s2(x) = "x = $x"
s3(x) = :a
s4(x) = 'c'
s5(x) = r"a+"
s6(x) = `ls`

# Splatting.
p1(xs) = [xs...]
p2(xs) = (xs...,)
p3(xs) = g(xs...; a = 1)

# Operators.
o1(x) = x // 2
o2(x) = x ⊗ x
o3(x) = (x .> 0) .&& (x .< 1)
o4(x) = (x .> 0) .|| (x .< 1)
o5(x) = x .=> x
o6(x) = x .|> sin
# (o7: `Float64 <: Real` is accepted now: type values, decided at compilation)
o8(x) = (.+)(x, x)
o9(x) = (:)(1, 3)
o10(x) = (x //= 2; x)
o11(x) = (x &= true; x)
o12(x) = ¬x
Base.:+(a::Int, b::Float64) = a
# (`a ⊕ b = a` is accepted now: a method of an operator for the program's types)

# Literals and types.
l1(x) = 0x1f
l2(x) = 0x1p3
l3(x) = 1.5f0
l4(x) = {x}
l5(x) = x::Float64
# (l6: `Array{Float64, 3}` as a value is accepted now: type values)

# Statements and definitions.
t1(x) = try x catch; 0.0 end
t2(x) = (global g = x; x)
t3(x) = (local y::Float64 = x; y)
const c1 = 1
primitive type P8 8 end
abstract type A{T} end
struct S
    x::Float64
    S(x) = new(x)
end

# Functions and library.
f1(x) = ((a; k = 1) -> a)(x)
f2((a, b)) = a + b
# zy: at f3(1.0)
f3(x) = Dict(1 => x)
# zy: at f4(2)
f4(n) = ntuple(i -> 1.0, n)

# More syntax.
y1(x) = (; x)
y2(x) = x .< 1.0 .< 2.0
y3(x) = (using LinearAlgebra; x)
y4(x) = var"a b"
a, b = 1, 2
include(joinpath("a", "b.jl"))

# Scopes and definitions.
function d1(x)
    g() = y
    y = x
    g()
end
function d2(x)
    s = 0.0
    # zy: checkpoint
    for i in 1:3
        i > x && break
        s += i
    end
    s
end
function d3(x)
    s = 0.0
    # zy: checkpoint
    for i in 1:3
        i > x && return s
        s += i
    end
    s
end
function d4(x)
    (x[1], y) = (1.0, 2.0)
    y
end
function d5(x)
    g(y)::Vector{Float64} = y
    g(x)
end
function d6(x)
    function g(n)
        n <= 0 ? x : g(n - 1)
    end
    g = 1.0
    g
end
q = 1.0
q = 2.0
d7(x) = x * q
function (x)
    x
end
