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
s4(x) = '\xff'
s5(x) = b"a+"
s6(x) = `ls`

# Splatting.
# (`[xs...]`, `(xs..., y)` and `g(xs...; a = 1)` are accepted: Base.vect,
# tuple and the keyword call of the elements; `varargs.jl`,
# `varargs_forwarding.jl`.)

# Operators.
o1(x) = x // 2
o2(x) = x ⊃ x
# (o3, o4: `a .&& b` and `a .|| b` are accepted now: a broadcast of `&&` and `||`)
# (o5: `x .=> y` is accepted now: the broadcast of `Pair`)
# (o6: `x .|> sin` is accepted now: `sin.(x)`)
# (o7: `Float64 <: Real` is accepted now: type values, decided at compilation)
o8(x) = (.+)(x, x)
o9(x) = (:)(1, 3)
o10(x) = (x[length(x)] //= 2; x)
o11(x) = (x[length(x)] &= true; x)
o12(x) = ¬x
Base.:+(a::Int, b::Float64) = a
# (`a ⊕ b = a` is accepted now: a method of an operator for the program's types)

# Literals and types.
l1(x) = 0x0001_0000_0000_0000_0000_0000_0000_0000_0000
# (l2: `0x1p3` is accepted now: a hexadecimal Float64 literal, 8.0)
# (l3: `1.5f0` is accepted now: a Float32 literal)
l4(x) = {x}
# (l5: `x::Float64` is accepted now: Julia's typeassert)
# (l6: `Array{Float64, 3}` as a value is accepted now: type values)

# Statements and definitions.
# (t1: `try`/`catch` is accepted now)
# (t2: `global` in a function is accepted now: globals_in_functions.jl)
# (t3: `local y::Float64 = x` is accepted now: a typed local)
const c1 = 1
primitive type P8 8 end
# (t5: `abstract type A{T} end` is accepted now: abstract28.jl)
# (s1: a bare `new(x)` of `S{T}` is accepted now: Julia's `new{T}(x)`, usertypes34.jl)

# Functions and library.
f1(x) = ((a, k = 1) -> a)(x)
# (f2: a destructuring parameter `f2((a, b))` is accepted now)
# zy: at f3(1.0)
f3(x) = Dict(1 => x)
# zy: at f4(2)
f4(n) = ntuple(i -> 1.0, n)

# More syntax.
y1(x) = (; x)
# (y2: chains of dotted comparisons are accepted now)
y3(x) = (using LinearAlgebra; x)
# (y4: `var"..."` names are accepted now)
a, b = 1, 2
include(joinpath("a", "b.jl"))

# Scopes and definitions.
function d1(x)
    for i in 1:2; g() = y; end
    y = x
    x
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
    (x + 1, y) = (1.0, 2.0)
    y
end
# (d5: a return annotation `g(y)::Vector{Float64}` is accepted now: Julia's `convert`)
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

# Annotations.
# zy: at a2(1.0)
a2(x::Float64{Int}) = x
# zy: at a3([1.0])
a3(x::Vector{Float64, Int}) = x
# zy: at a4(1.0)
a4(x::Type{Vector{Float64}}) = x
struct W{T}
    x::Float64
end
# zy: at a5(1.0)
a5(x) = W(x)

# Values inference refuses.
# zy: at v1(1.0)
v1(x) = (t = (a = 1.0, b = 2.0); t[round(Int, x)])
# zy: at v2(1.0)
v2(x) = (t = V(1.0); getfield(t, round(Int, x)))
# zy: at v3(1.0)
v3(x) = (p = 1.0 => x; p[round(Int, x)])
# (v4: `Any[x, "s"]` is accepted now: a `Vector{Any}` holding a Float64 and a String)
# (v5: `[x, missing, nothing]` is accepted now: a `Union{Missing, Nothing, Float64}` array)
# zy: at v6(1.0)
v6(x) = vcat()
# zy: at v7([1.0])
v7(x) = [x'; (x, x)]
# zy: at v8(1.0)
v8(x) = vcat((x, x), [x])
# zy: at v9([1.0])
v9(x) = error(x...)
# zy: at v10(1)
v10(n) = zeros(n, n, n, n, n, n, n)
# zy: at v11(1.0)
v11(x) = identity(:a)
# zy: at v12(1.0)
v12(x) = (T = Vector{Float64}; T(x))

# Comparisons and broadcasting.
mutable struct V
    x::Float64
end
add2(a, b) = a + b
# zy: at e2(1.0)
e2(x) = V(x) == V(x)
# zy: at e3([1], [1.0])
e3(x, y) = x' * y
# zy: at e5([1.0])
e5(x) = add2.(x, ones(1, 1, 1))
# zy: at e6([1.0])
e6(x) = add2.(x', 1.0)
# zy: at e7([1.0])
e7(x) = map(+, (1.0, 2), x)
# zy: at e8(1.0)
e8(x) = Float16(x) * 2
# zy: at e9(1.0)
e9(x) = ComplexF32(x, 0.0)
# Files, processes and the environment: zy runs functions without them.
# zy: at e10(1.0)
e10(x) = isfile("data.txt") ? x : 0.0
# zy: at e11(1.0)
e11(x) = parse(Float64, ENV["SCALE"]) * x
# zy: at n1([1.0], 1)
n1(x, d) = cat(x, x; dims = d)
# zy: at n2([1.0])
n2(x) = cat(x, x; dims = 5)
# zy: at n3(zeros(2, 2, 2))
n3(A) = mapslices(sum, A; dims = 2)

# Splatting a vector into a tuple: its length is part of the tuple type.
# zy: at p4([1.0, 2.0])
p4(xs) = (xs...,)

# A struct under one of Julia's abstract types that zy's structs may not subtype, and a use
# of it (which names the refused definition, not `UndefVarError`).
struct Digit <: Unsigned
    v::Int
end
# zy: at s1(2)
s1(n) = Digit(n).v
# An array struct must give its number of dimensions (`AbstractArray{T, 2}`, `AbstractVector`).
struct Row <: AbstractArray
    xs::Vector{Float64}
end
# A closure assigning a local of another type that its maker reads after calling it (Julia:
# `(36.0, 6.0)` at 3, the box holding the closure's Float64 by then).
# zy: at d7(3.0)
function d7(x)
    function g(t)
        c = 2.0 * t
        return c * c
    end
    c = [x, x]
    return (g(x), c)
end

# A macro on a method may rewrite it: the method is refused (a compiler hint such as
# `@inline` or `Base.@constprop :aggressive` keeps its meaning and is accepted).
@memoize function m3(x)
    x + 1
end
m4(x) = m3(x) * 2
# `@enum` with a value that is not an integer literal: its names are refused where used.
@enum Bad bad_a bad_b = 1.5
m5(x) = x * Int(bad_a)
# `function f end` declares a function; given no method, a use says so (Julia: a MethodError).
function declared end
# zy: at m6(1.0)
m6(x) = declared(x)
# `Val(n)` of an Int known only at run time: its value would be part of the type.
# zy: at v13(3)
v13(n) = Val(n)
# `Val{n}()` of an Int known only at run time, the same as `Val(n)`.
# zy: at v14(3)
v14(n) = Val{n}()
# A struct refused beside an outer constructor zy keeps: a call no kept method takes names the
# refused struct (Julia's call makes a `Disk`), rather than a `MethodError`.
struct Disk <: AbstractString
    r::Float64
end
Disk() = Disk(1.0)
# zy: at m7()
m7() = Disk().r
