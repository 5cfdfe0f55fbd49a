//! Every construct of the subset, parsed and printed as S-expressions.

use expect_test::{expect, Expect};

fn check(src: &str, expect: Expect) {
    expect.assert_eq(&zy_syntax::debug_tree(&zy_syntax::parse_file(src)));
}

#[test]
fn literals() {
    check(
        "f() = (1, 1.0, 1e-3, 1_000, 2.5e3, .5, 1., true, false, nothing, Inf, NaN, pi, π)",
        expect![[r#"
            (function f ()
              (tuple 1 1.0 0.001 1000 2500.0 0.5 1.0 true false nothing Inf NaN pi π))
        "#]],
    );
}

#[test]
fn output_is_left_out_with_its_arguments_evaluated() {
    check(
        r#"
function f(x)
    println(stdout, "x = $x, next $(x + 1)", x[1])
    y = @show x * 2
    @info "step" y k = x
    @debug "off" g(x)
    return y
end
"#,
        expect![[r#"
            (function f (x)
              (block x (+ x 1) (index x 1) nothing)
              (= y (block (* x 2)))
              (block y x nothing)
              (block nothing)
              (return y))
            note 19..65: zy shows no output: this `println` is left out (its arguments are still evaluated)
            note 74..85: zy shows no output: `@show` gives the value without printing
            note 90..110: zy shows no output: this `@info` is left out (its arguments are still evaluated)
            note 115..132: zy shows no output: `@debug` is off, as in Julia by default (nothing is evaluated)
        "#]],
    );
}

#[test]
fn output_to_a_named_stream_and_elapsed_time() {
    check(
        r#"
function f(io, x)
    println(io, "x = ", x)
    @printf(io, "%.1f", x)
    t = @elapsed y = x * 2
    return y
end
Base.show(io::IO, p::P) = helper(io, p.a)
"#,
        expect![[r#"
            (function f (io x)
              (call Base.println io "x = " x)
              (call Base.print io (call #string (call Base._sprintf "%.1f" x)))
              (= t (block (= #elapsed81 (call time_ns)) (= y (* x 2)) (call / (call - (call time_ns) #elapsed81) 1000000000.0)))
              (return y))
            (function Base.show (io::String p::P)
              (= io (call string io (call Base._written (-> (#io) (call helper #io (. p a))))))
              io)
            note 23..45: zy shows no output: this `println` writes to its first argument if that is an `IOBuffer`, and is left out otherwise (its arguments are still evaluated)
            note 50..72: zy shows no output: this `@printf` writes to its first argument if that is an `IOBuffer`, and is left out otherwise (its arguments are still evaluated)
        "#]],
    );
}

#[test]
fn vectors_matrices_tuples() {
    check(
        r#"
f() = [1.0, 2.0]
g() = [1.0 2.0; 3.0 4.0]
h() = [1 2
       3 4]
k(a, b) = ((a, b), (a,), (), (a = 1.0, b = a))
m() = [1.0; 2.0; -3]
e() = []
"#,
        expect![[r#"
            (function f ()
              (vect 1.0 2.0))
            (function g ()
              (matrix (row 1.0 2.0) (row 3.0 4.0)))
            (function h ()
              (matrix (row 1 2) (row 3 4)))
            (function k (a b)
              (tuple (tuple a b) (tuple a) (tuple) (named-tuple (a 1.0) (b a))))
            (function m ()
              (vect 1.0 2.0 -3))
            (function e ()
              (vect))
        "#]],
    );
}

#[test]
fn long_form_methods() {
    check(
        r#"
function f(a, b)
    c = a + b
    return c * 2
end

function g(x::Float64, xs::Vector{Float64}, ::typeof(sin), t::Tuple{Int64, Float64})
    x
end

function h(x::T) where T
    x
end

function k(x::T, y::S) where {T, S}
    x
end
"#,
        expect![[r#"
            (function f (a b)
              (= c (+ a b))
              (return (* c 2)))
            (function g (x::Float64 xs::Vector{Float64} ::typeof(sin) t::Tuple{Int64, Float64})
              x)
            (function h (x::T) where (T)
              x)
            (function k (x::T y::S) where (T S)
              x)
        "#]],
    );
}

#[test]
fn short_form_and_callable_structs() {
    check(
        r#"
sq(x) = x^2
(d::Dense)(x) = tanh.(d.W * x .+ d.b)
(::Dense)(x) = x
function (c::Chain)(x)
    x
end
w(x::T) where T = x
"#,
        expect![[r#"
            (function sq (x)
              (^ x 2))
            (function (d::Dense) (x)
              (dotcall tanh (.+ (* (. d W) x) (. d b))))
            (function (::Dense) (x)
              x)
            (function (c::Chain) (x)
              x)
            (function w (x::T) where (T)
              x)
        "#]],
    );
}

#[test]
fn anonymous_functions() {
    check(
        r#"
function f(xs)
    g = x -> x^2
    h = (x, y) -> x * y
    k = () -> 1.0
    t = (x::Float64) -> x
    u = function (x)
        x + 1
    end
    v = x -> begin
        y = x
        y
    end
    function inner(z)
        z * 2
    end
    inner2(z) = z + 1
    w = (x; k = 2.0, m::Int, kw...) -> k * x
    s = function (x; k)
        k * x
    end
    inner3(z; k = z) = k * z
    return g
end
"#,
        expect![[r#"
            (function f (xs)
              (= g (-> (x) (^ x 2)))
              (= h (-> (x y) (* x y)))
              (= k (-> () 1.0))
              (= t (-> (x::Float64) x))
              (= u (-> (x) (+ x 1)))
              (= v (-> (x) (block (= y x) y)))
              (function inner (z) (* z 2))
              (function inner2 (z) (+ z 1))
              (= w (-> (x (parameters (= k 2.0) m::Int kw...)) (* k x)))
              (= s (-> (x (parameters k)) (* k x)))
              (function inner3 (z (parameters (= k z))) (* k z))
              (return g))
        "#]],
    );
}

#[test]
fn do_blocks_become_the_first_argument() {
    check(
        r#"
function f(xs)
    map(xs) do x
        x + 1
    end
end
g(xs, ys) = map(xs, ys) do x, y
    x * y
end
"#,
        expect![[r#"
            (function f (xs)
              (call map (-> (x) (+ x 1)) xs))
            (function g (xs ys)
              (call map (-> (x y) (* x y)) xs ys))
        "#]],
    );
}

#[test]
fn structs() {
    check(
        r#"
struct Dense
    W
    b::Vector{Float64}
end
mutable struct Bar{T}
    a::T
    n::Int64
end
struct Pair2{A, B}; a::A; b::B; end
"A layer."
struct Layer
    "The weights."
    W::Matrix{Float64}
    b # no docstring
end
"#,
        expect![[r#"
            (struct Dense W b::Vector{Float64})
            (mutable struct Bar{T} a::T n::Int64)
            (struct Pair2{A, B} a::A b::B)
            (struct Layer W::Matrix{Float64} b)
        "#]],
    );
}

#[test]
fn globals() {
    check(
        r#"
const N = 3
sq = x -> x^2
const scale = 2.5
"#,
        expect![[r#"
            (const N 3)
            (global sq (-> (x) (^ x 2)))
            (const scale 2.5)
        "#]],
    );
}

#[test]
fn operators() {
    check(
        r#"
f(a, b) = (a + b, a - b, a * b, a / b, a ^ b, a ÷ b, a % b, -a, +a, !a, a')
g(a, b) = (a < b, a <= b, a > b, a >= b, a == b, a != b, a ≤ b, a ≥ b, a ≠ b)
h(a, b, c) = (a && b, a || b, !a && b || c, c ? a : b, c ? a : b ? 1 : 2)
k(x, y) = (x .+ y, x .- y, x .* y, x ./ y, x .^ 2, sin.(x), f.(x, y), √x)
"#,
        expect![[r#"
            (function f (a b)
              (tuple (+ a b) (- a b) (* a b) (/ a b) (^ a b) (÷ a b) (% a b) (- a) (+ a) (! a) (' a)))
            (function g (a b)
              (tuple (< a b) (<= a b) (> a b) (>= a b) (== a b) (!= a b) (<= a b) (>= a b) (!= a b)))
            (function h (a b c)
              (tuple (&& a b) (|| a b) (|| (&& (! a) b) c) (? c a b) (? c a (? b 1 2))))
            (function k (x y)
              (tuple (.+ x y) (.- x y) (.* x y) (./ x y) (.^ x 2) (dotcall sin x) (dotcall f x y) (call sqrt x)))
        "#]],
    );
}

#[test]
fn assignments() {
    check(
        r#"
function f(x, s, r)
    y = 1
    y += x
    y -= x
    y *= x
    y /= x
    x[1] += 2.0
    s.f -= 1
    x .+= 1
    a, b = (1, 2)
    (c, d) = x
    s.f = 3.0
    x[i] = v
    x[i, j] = v
    r[] = 2
    q = r[]
    z = Ref(x)
    u = v = 1
    local w
    local p, q2
    local m = 2
    return y
end
"#,
        expect![[r#"
            (function f (x s r)
              (= y 1)
              (+= y x)
              (-= y x)
              (*= y x)
              (/= y x)
              (+= (index x 1) 2.0)
              (-= (. s f) 1)
              (.+= x 1)
              (= (tuple a b) (tuple 1 2))
              (= (tuple c d) x)
              (= (. s f) 3.0)
              (= (index x i) v)
              (= (index x i j) v)
              (= (index r) 2)
              (= q (index r))
              (= z (call Ref x))
              (= u (= v 1))
              (local w)
              (local p q2)
              (block (local m) (= m 2))
              (return y))
        "#]],
    );
}

#[test]
fn control_flow() {
    check(
        r#"
function f(n, xs)
    s = 0.0
    if n > 0
        s = 1.0
    elseif n < -1
        s = 2.0
    elseif n == 0
    else
        s = 3.0
    end
    while n > 0
        n -= 1
        n == 3 && break
        continue
    end
    for i in 1:n
        s += i
    end
    for i in 1:2:n
        s += i
    end
    for x in xs
        s += x
    end
    for i = 1:n end
    for i ∈ 1:n end
    for (i, x) in xs
    end
    begin
        s
    end
    return
end
"#,
        expect![[r#"
            (function f (n xs)
              (= s 0.0)
              (if (then (> n 0) (= s 1.0)) (elseif (< n -1) (= s 2.0)) (elseif (== n 0)) (else (= s 3.0)))
              (while (> n 0) (-= n 1) (&& (== n 3) (break)) (continue))
              (for i (: 1 n) (+= s i))
              (for i (: 1 2 n) (+= s i))
              (for x xs (+= s x))
              (for i (: 1 n))
              (for i (: 1 n))
              (for (tuple i x) xs)
              (block s)
              (return))
        "#]],
    );
}

#[test]
fn indexing_and_fields() {
    check(
        "f(t, s, A, r) = (t[1], s.f, s.f.g, A[i, j], r[], A[i+1, 2j], f(x)(y), s.f(x))",
        expect![[r#"
            (function f (t s A r)
              (tuple (index t 1) (. s f) (. (. s f) g) (index A i j) (index r) (index A (+ i 1) (* 2 j)) (call (call f x) y) (call (. s f) x)))
        "#]],
    );
}

#[test]
fn unicode_identifiers() {
    check(
        "f(ȳ, x̄, ∇f, α₁) = ȳ * x̄ + ∇f(α₁)",
        expect![[r#"
        (function f (ȳ x̄ ∇f α₁)
          (+ (* ȳ x̄) (call ∇f α₁)))
    "#]],
    );
}

#[test]
fn strings_only_as_messages() {
    check(
        r#"f(x) = x > 0 ? x : error("negative \"x\"\n")"#,
        expect![[r#"
        (function f (x)
          (? (> x 0) x (call error "negative \"x\"\n")))
    "#]],
    );
}

#[test]
fn docstrings_document_the_definition_below() {
    check(
        r#"
"""
    f(x)

Squares.
"""
f(x) = x^2

"Not a docstring: a blank line follows."

"A constant."
const N = 3
"#,
        expect![[r#"
            (function f (x)
              (^ x 2))
            (const N 3)
        "#]],
    );
}

#[test]
fn doc_macro_documents_structs_constants_and_modules() {
    check(
        r#"
@doc "A point." struct P
    x
end
@doc raw"""
Raw: \alpha.
""" const N = 3
@doc "A module." module M
g(x) = x
end
"#,
        expect![[r#"
            (struct P x)
            (const N 3)
            (module M (function g (x)
              x))
        "#]],
    );
}

#[test]
fn custom_rules() {
    check(
        r#"
function rrule(::typeof(f), x)
    y = f(x)
    pullback(ȳ) = (NoTangent(), ȳ * cos(x))
    return y, pullback
end
"#,
        expect![[r#"
            (function rrule (::typeof(f) x)
              (= y (call f x))
              (function pullback (ȳ) (tuple (call NoTangent) (* ȳ (call cos x))))
              (return (tuple y pullback)))
        "#]],
    );
}

#[test]
fn comments_and_semicolons() {
    check(
        r#"
function f(x) # trailing comment
    if x > 0; 1; else; 2; end # comment
    y = g(x, # inside a call
          2)
    z = [1.0 2.0 # first row
         3.0 4.0]
    x +
        1
end
"#,
        expect![[r#"
            (function f (x)
              (if (then (> x 0) 1) (else 2))
              (= y (call g x 2))
              (= z (matrix (row 1.0 2.0) (row 3.0 4.0)))
              (+ x 1))
        "#]],
    );
}

#[test]
fn comprehensions_and_generators() {
    // Julia's lowering: closures over the iteration variables, a filter, a product for two
    // variables, a Flatten for two clauses, a tuple variable destructured in the closure.
    check(
        r#"
f(xs, n) = ([x^2 for x in xs if x > 0], sum(2i for i in 1:n), [i + j for i in 1:n, j in 1:2])
g(n) = [i * j for i in 1:n for j in 1:i]
h(ps) = [a * b for (a, b) in ps]
"#,
        expect![[r#"
            (function f (xs n)
              (tuple (call Base.collect (call Base.Generator (-> (x) (^ x 2)) (call Base.Filter (-> (x) (> x 0)) xs))) (call sum (call Base.Generator (-> (i) (* 2 i)) (: 1 n))) (call Base.collect (call Base.Generator (-> (#element) (= (tuple i j) #element) (+ i j)) (call Base.product (: 1 n) (: 1 2))))))
            (function g (n)
              (call Base.collect (call Base.Flatten (call Base.Generator (-> (i) (call Base.Generator (-> (j) (* i j)) (: 1 i))) (: 1 n)))))
            (function h (ps)
              (call Base.collect (call Base.Generator (-> (#element) (= (tuple a b) #element) (* a b)) ps)))
        "#]],
    );
}

#[test]
fn where_bounds() {
    // `Vector{<:Real}` is a new variable bounded by `Real`.
    check(
        r#"
f(x::T, y::Vector{<:Real}) where {T<:AbstractFloat, N} = x
g(x::AbstractArray{T, N}) where {T, N} = x
"#,
        expect![[r#"
            (function f (x::T y::Vector{#T1}) where (T<:AbstractFloat N #T1<:Real)
              x)
            (function g (x::AbstractArray{T, N}) where (T N)
              x)
        "#]],
    );
}

#[test]
fn names_are_read_as_julia_normalises_them() {
    // The micro sign µ is the Greek μ and the Latin ɛ the Greek ε, in every name; strings and
    // comments keep their spelling. The middle dot · and the ano teleia · are the operator ⋅ (`dot`).
    check(
        "f(µ, ɛ; σ = µ) = μ * ε + σ\ng(s) = (s.µ, \"µs\")\nh(a, b) = (a · b, a · b)\n",
        expect![[r#"
            (function f (μ ε (parameters (= σ μ)))
              (+ (* μ ε) σ))
            (function g (s)
              (tuple (. s μ) "µs"))
            (function h (a b)
              (tuple (call dot a b) (call dot a b)))
        "#]],
    );
    // Names are in Unicode NFC: `e` and the combining acute U+0301 are the precomposed `é`,
    // `ℏ` is `ħ`; a string keeps its bytes, and every range is the source's (the name `é`
    // written decomposed spans three bytes).
    let src = "f(e\u{301}t\u{e9}) = \u{e9}t\u{e9} + \u{210f}\nk(x) = (:e\u{301}, \"e\u{301}\")\n";
    check(
        src,
        expect![[r#"
            (function f (été)
              (+ été ħ))
            (function k (x)
              (tuple :é "e\u{301}"))
        "#]],
    );
    let file = zy_syntax::parse_file(src);
    let zy_syntax::ast::Item::Function(f) = &file.items[0] else {
        panic!("not a function: {:?}", file.items[0]);
    };
    assert_eq!(f.params[0].name.as_deref(), Some("\u{e9}t\u{e9}"));
    let param = f.params[0].range;
    assert_eq!(
        &src[param.start as usize..param.end as usize],
        "e\u{301}t\u{e9}"
    );
}

#[test]
fn numeric_literal_forms() {
    // Julia's hexadecimal floats are Float64s (`0x1.8p1` is 1.5 × 2¹); an unsigned literal is
    // its value truncated to its type (`0x10 % UInt8`); a Float32 literal is `Float32(x)` of
    // the Float64 equal to the nearest Float32.
    check(
        "f() = (0x1p3, 0x1.8p1, 0x.8p0, 0xAp-2, -0x1p-2, 1_000.5, 1E3, 1.0e+2, 0.1e-1)\ng() = (0x10, 0b101, 0o17, 1.5f0)",
        expect![[r#"
            (function f ()
              (tuple 8.0 3.0 0.5 2.5 -0.25 1000.5 1000.0 100.0 0.01))
            (function g ()
              (tuple (call % 16 UInt8) (call % 5 UInt8) (call % 15 UInt8) (call Float32 1.5)))
        "#]],
    );
}

#[test]
fn subtype_and_isa_in_chains() {
    // `a <: b <: c` is `a <: b && b <: c`; `a >: b` is `b <: a`.
    check(
        "f() = Int <: Real <: Number\ng() = Number >: Real >: Int\nh(x) = 1 < x isa Int <: Integer",
        expect![[r#"
            (function f ()
              (&& (call <: Int Real) (call <: Real Number)))
            (function g ()
              (&& (call <: Real Number) (call <: Int Real)))
            (function h (x)
              (&& (< 1 x) (&& (call isa x Int) (call <: Int Integer))))
        "#]],
    );
}

#[test]
fn typed_let_bindings() {
    check(
        "f() = let a = 1, b::Int = 2.0\n    (a, b)\nend",
        expect![[r#"
            (function f ()
              (let (a 1) (let ((:: b Int) 2.0) (tuple a b))))
        "#]],
    );
}

#[test]
fn root_operators() {
    check(
        "f(x) = (√x, ∛x, ∜x, .∜x)",
        expect![[r#"
        (function f (x)
          (tuple (call sqrt x) (call cbrt x) (call fourthroot x) (dotcall fourthroot x)))
    "#]],
    );
}

#[test]
fn a_type_called_with_its_parameters_is_a_typed_call() {
    // `Val{3}()` is the type `Val{3}` called, whichever `Val` the name resolves to.
    check(
        "f() = (Val{3}(), Val{true}())",
        expect![[r#"
        (function f ()
          (tuple (call #typed Val (tuple 3)) (call #typed Val (tuple true))))
    "#]],
    );
}

#[test]
fn user_macros_expand_where_they_are_called_with_hygiene() {
    // The macro's own `t` is renamed; the escaped argument and the caller's `t` are not. A
    // call expanding to a definition at top level defines it; `Expr` and `Symbol` build code.
    check(
        r#"macro cube(x)
    quote
        t = $(esc(x))
        t * t * t
    end
end
macro def(name)
    esc(:($name(x) = 2x))
end
macro sum3(x)
    terms = []
    for k in (1, 2, 3)
        push!(terms, Expr(:call, :^, esc(x), k))
    end
    Expr(:call, :+, terms...)
end
f(t) = @cube(t + 1) + t
@def g
h(x) = @sum3 x
"#,
        expect![[r#"
            (function f (t)
              (+ (block (= ##t#1 (+ t 1)) (call * ##t#1 ##t#1 ##t#1)) t))
            (function g (x)
              (* 2 x))
            (function h (x)
              (call + (call ^ x 1) (call ^ x 2) (call ^ x 3)))
        "#]],
    );
}
