//! Syntax errors (with recovery: the definitions that parsed are still returned) and
//! constructs outside the subset (named, with their range, and an `(error)` in the tree).

use expect_test::{expect, Expect};

fn check(src: &str, expect: Expect) {
    expect.assert_eq(&zy_syntax::debug_tree(&zy_syntax::parse_file(src)));
}

#[test]
fn a_stray_operator_is_one_local_error() {
    check(
        "f(x) = x * * 2\ng(y) = y\n",
        expect![[r#"
            (function f (x)
              (error))
            (function g (y)
              y)
            error 11..12: syntax error: unexpected `*` [syntax-error]
        "#]],
    );
}

#[test]
fn missing_end_mid_file_keeps_the_other_definitions() {
    check(
        r#"
function before(x)
    x
end

function f(x)
    if x > 0
        x
end

function g(y)
    y + 1
end

h(z) = z
"#,
        expect![[r#"
            (function before (x)
              x)
            (function f (x)
              (if (then (> x 0) x)))
            (function g (y)
              (+ y 1))
            (function h (z)
              z)
            error 31..39: missing `end` for `function` [syntax-error]
        "#]],
    );
}

#[test]
fn missing_end_at_the_end_of_the_file() {
    check(
        "g(x) = x\nfunction f(x)\n    x + 1\n",
        expect![[r#"
            (function g (x)
              x)
            (function f (x)
              (+ x 1))
            error 9..17: missing `end` for `function` [syntax-error]
        "#]],
    );
}

#[test]
fn unclosed_parenthesis() {
    check(
        "f(x) = (x + 1\ng(y) = y\n",
        expect![[r#"
            (function f (x)
              (error))
            error 14..15: syntax error: unexpected `g` [syntax-error]
        "#]],
    );
}

#[test]
fn unexpected_closing_parenthesis() {
    check(
        "f(x) = x + 1)\n",
        expect![[r#"
        (function f (x)
          (+ x 1))
        error 12..13: syntax error: unexpected `)` [syntax-error]
    "#]],
    );
}

#[test]
fn half_typed_edit() {
    check(
        "function f(x)\n    y = x +\nend\n\ng(x) = 2x\n",
        expect![[r#"
            (function f (x)
              (error))
            (function g (x)
              (* 2 x))
            error 0..8: missing `end` for `function` [syntax-error]
            error 26..29: syntax error: unexpected `end` [syntax-error]
        "#]],
    );
}

#[test]
fn integer_literals_that_overflow_int64() {
    check(
        "f() = 9223372036854775807\ng() = 9223372036854775808\nh() = -9223372036854775808\nk() = 100000000000000000000000000000000000000000\n",
        expect![[r#"
            (function f ()
              9223372036854775807)
            (function g ()
              (call Base._int128_literal "9223372036854775808"))
            (function h ()
              -9223372036854775808)
            (function k ()
              (error))
            error 85..127: unsupported: integer literal `100000000000000000000000000000000000000000` (a BigInt); zy's widest integer is Int128 [unsupported]
        "#]],
    );
}

#[test]
fn unsupported_calls_and_definitions() {
    check(
        r#"
f(x; k = 1) = x
g(x, y = 2) = x
h(xs...) = xs
k(x) = sum(x; dims = 1) + foo(x, y = 2) + bar(xs...)
abstract type Shape end
struct Circle <: Shape
    r::Float64
end
struct P
    x
    P(x) = new(x)
end
r(x)::Float64 = x
w(x::T) where {T<:Real} = x
module M end
import LinearAlgebra
using Statistics
macro m(x) x end
"#,
        expect![[r#"
            (function f (x (parameters (= k 1)))
              x)
            (function g (x (= y 2))
              x)
            (function h (xs...)
              xs)
            (function k (x)
              (call + (call sum x (parameters (= dims 1))) (call foo x (parameters (= y 2))) (call bar (... xs))))
            (abstract type Shape)
            (struct Circle <: Shape r::Float64)
            (struct P x)
            (function P (x)
              (call #new P x))
            (function r (x)::Float64
              x)
            (function w (x::T) where (T<:Real)
              x)
            (module M)
            (import LinearAlgebra)
            (using Statistics)
        "#]],
    );
}

#[test]
fn unsupported_expressions() {
    check(
        r#"
function f(x, xs)
    try
        x
    catch e
        0
    end
    @test x
    s = "x = $x"
    xs .= 0
    ys = [2v for v in xs]
    t = sum(v for v in xs)
    z = x[end]
    c = '\xff'
    let y = 1
        y
    end
    q = x ⊃ 1
    u = 1f0 + 0x10
    v::Float64 = 1.0
    global g = 1
    [x; xs]
    return (x -> x)(1)
end
"#,
        expect![[r#"
            (function f (x xs)
              (try (block x) (catch e 0))
              (error)
              (= s (call #string "x = " x))
              (.= xs 0)
              (= ys (call Base.collect (call Base.Generator (-> (v) (* 2 v)) xs)))
              (= t (call sum (call Base.Generator (-> (v) v) xs)))
              (= z (index x end))
              (= c (error))
              (let (y 1) y)
              (= q (error))
              (= u (+ (call Float32 1.0) (call % 16 UInt8)))
              (= (:: v Float64) 1.0)
              (block (global g) (= g 1))
              (call Base.vcat x xs)
              (return (call (-> (x) x) 1)))
            error 71..78: unsupported: macro @test; write `@assert cond` instead [unsupported]
            error 184..190: unsupported: character literal of bytes that are not UTF-8 (`'\xff'`, an invalid `Char` in Julia); write the character itself or its `'\u...'` escape instead [unsupported]
            error 233..236: unsupported: operator `⊃`; write a function with a name and call it instead [unsupported]
        "#]],
    );
}

#[test]
fn top_level_code_that_is_not_a_definition_is_skipped() {
    check(
        "f(x) = x\nprintln(f(2))\nx[1] = 2\n",
        expect![[r#"
            (function f (x)
              x)
            (script a call of `println`)
            (script an assignment to `x[1]`)
        "#]],
    );
}

#[test]
fn broken_parts_of_signatures() {
    check("function f(x, (a, b) = 1)\n    x\nend\nfunction g end\nBase.sin(x::Dense) = x\n+(a::Dense, b::Dense) = a\n", expect![[r#"
        (function f (x)
          x)
        (refused g)
        (function Base.sin (x::Dense)
          x)
        (function + (a::Dense b::Dense)
          a)
        error 14..24: unsupported: this form of optional argument [unsupported]
    "#]]);
}

#[test]
fn an_unclosed_call_is_one_error_at_its_parenthesis() {
    check(
        "function editing(x)\n    y = sin(x\n    return y\nend\n\n# zy: at after(2.0)\nafter(x) = 3x\n",
        expect![[r#"
            (function editing (x)
              (error))
            (function after (x)
              @at "after(2.0)" 61..71
              (* 3 x))
            error 31..32: missing `)` [syntax-error]
        "#]],
    );
}

#[test]
fn the_annotation_of_a_definition_that_failed_to_parse_is_not_reported() {
    check(
        "# zy: at fine(2.0)\nfine(x) = x^2\n\n# zy: at unclosed(1.0)\nfunction unclosed(x)\n    if x > 0\n        return x\n    end\n",
        expect![[r#"
            (function fine (x)
              @at "fine(2.0)" 9..18
              (^ x 2))
            (function unclosed (x)
              @at "unclosed(1.0)" 43..56
              (if (then (> x 0) (return x))))
            error 57..65: missing `end` for `function` [syntax-error]
        "#]],
    );
}

#[test]
fn an_end_read_as_a_name_is_the_error() {
    // A line break after `:` ends the range with an error (as in Julia); the `end` closes the
    // loop and the definitions around it survive.
    check(
        "g(x) = x\nfunction f(x)\n    for i in 1:\n    end\nend\nh(y) = y\nk(x) = x[end]\n",
        expect![[r#"
            (function g (x)
              x)
            (function f (x)
              (for i (error)))
            (function h (y)
              y)
            (function k (x)
              (index x end))
            error 37..38: syntax error: line break after `:` in range expression [syntax-error]
        "#]],
    );
}

#[test]
fn kwdef_structs_get_a_keyword_constructor_and_plain_structs_no_defaults() {
    check(
        r#"
Base.@kwdef struct A
    x::Float64 = 1.0
    y = 2x
    z
end
@kwdef mutable struct B end
struct C
    x = 1.0
end
"#,
        expect![[r#"
            (struct A x::Float64 y z)
            (function A ( (parameters (= x 1.0) (= y (* 2 x)) z))
              (call A x y z))
            (mutable struct B)
            (refused C)
            error 105..112: unsupported: field default outside a `@kwdef` struct; write `Base.@kwdef struct` instead [unsupported]
        "#]],
    );
}

#[test]
fn abstract_types_and_supertypes() {
    check(
        r#"
abstract type Animal end
abstract type Pet <: Animal end
struct Dog{T<:Real} <: Pet
    w::T
end
struct Num <: Real
    x::Float64
end
abstract type Box{T} end
struct Q <: Animal{Int}
end
"#,
        expect![[r#"
            (abstract type Animal)
            (abstract type Pet <: Animal)
            (struct Dog{T<:Real} <: Pet w::T)
            (struct Num <: Real x::Float64)
            (abstract type Box{T})
            (struct Q <: Animal{Int})
        "#]],
    );
}

#[test]
fn string_escapes_follow_julia() {
    // `\xHH` and octal escapes are bytes: `\xc3\xa9` is `é`; bytes that are not UTF-8 and
    // octal escapes above `\377` are errors, not other characters. `\r\n` in a literal is `\n`.
    check(
        "f() = \"caf\\xc3\\xa9 \\303\\251\"\ng() = \"a\\xe9b\"\nh() = \"\\777\"\nk() = \"a\r\nb\"\n",
        expect![[r#"
            (function f ()
              "café é")
            (function g ()
              (error))
            (function h ()
              (error))
            (function k ()
              "a\nb")
            error 37..41: unsupported: the bytes `\xe9` are not UTF-8; zy's strings hold text only [unsupported]
            error 51..53: syntax error: invalid escape sequence `\7` [syntax-error]
        "#]],
    );
}

#[test]
fn a_struct_with_a_member_refused_is_refused_whole() {
    // `const` on a field of an immutable struct is what every field is already, on a mutable
    // struct's field it marks one that may not be assigned; a default outside `@kwdef` or a
    // statement is refused, and the struct with it (rather than defined without that field).
    check(
        r#"
struct P
    const a::Int
    b
end
mutable struct Q
    const a::Int
    b
end
struct R
    a::Int
    1 + 1
end
"#,
        expect![[r#"
            (struct P a::Int b)
            (mutable struct Q const a::Int b)
            (refused R)
            error 105..110: unsupported: statement in a struct body [unsupported]
        "#]],
    );
}

#[test]
fn operators_outside_the_subset_are_calls_of_their_functions() {
    // As in Julia, `a ⊕ b` calls whatever `⊕` is (and `.⊕` broadcasts it); arrows group to
    // the right and `++` chains into one call. Base's operators that zy's library lacks, and
    // those that are not functions, stay refused by name.
    check(
        r#"
f(a, b) = (a ⊕ b ⊕ a, a .⊕ b, a ← b ← a, a ++ b ++ a, a <| b)
g(a, b) = a ⊃ b
h(a, b) = a --> b
"#,
        expect![[r#"
            (function f (a b)
              (tuple (call ⊕ (call ⊕ a b) a) (dotcall ⊕ a b) (call ← a (call ← b a)) (call ++ a b a) (call <| a b)))
            (function g (a b)
              (error))
            (function h (a b)
              (error))
            error 85..88: unsupported: operator `⊃`; write a function with a name and call it instead [unsupported]
            error 101..108: unsupported: operator `-->` [unsupported]
        "#]],
    );
}

#[test]
fn surrogate_escapes_are_refused_and_past_unicode_is_a_syntax_error() {
    // Julia keeps `\ud800` in a string or a `Char` as bytes that are not UTF-8, which zy's
    // text cannot hold; `\U110000` is past Unicode, an invalid escape.
    check(
        "f() = \"a\\ud800\"\ng() = '\\udfff'\nh() = \"\\U110000\"\n",
        expect![[r#"
            (function f ()
              (error))
            (function g ()
              (error))
            (function h ()
              (error))
            error 8..14: unsupported: the bytes `\ud800` are not UTF-8; zy's strings hold text only [unsupported]
            error 22..30: unsupported: character literal of bytes that are not UTF-8 (`'\xff'`, an invalid `Char` in Julia); write the character itself or its `'\u...'` escape instead [unsupported]
            error 38..40: syntax error: invalid escape sequence `\U` [syntax-error]
        "#]],
    );
}

#[test]
fn global_and_const_bindings_at_top_level() {
    // `global x = v` and `const global x = v` bind a global as `x = v` does; `global a, b =
    // 1, 2` and `const (p, q::Float64) = (1, 2)` bind one global per name, a destructured
    // value other than a tuple literal is refused by name, and `global x` alone declares what
    // `x` is already.
    check(
        "global g = 1\nconst global c = 2\nglobal const d::Float64 = 3\nglobal a, b = 1, 2\nglobal x\nconst (p, q::Float64) = (1, 2)\nconst u, v = t\n",
        expect![[r#"
            (global g 1)
            (const c 2)
            (const d (call Base.convert Float64 3))
            (global a 1)
            (global b 2)
            (script a top-level statement)
            (const p 1)
            (const q (call Base.convert Float64 2))
            error 125..129: unsupported: global binding of anything but a name; bind one name per line (`a = 1`) instead [unsupported]
        "#]],
    );
}
