//! The syntax tree of every construct of Julia's surface syntax (not only zy's subset),
//! printed as S-expressions: `(call-i a + b)` is an infix call, `-pre`/`-post` prefix and
//! postfix calls, `-p` parentheses, `-,` a trailing comma, `-=` a short-form definition.
//! Each input is followed by its tree and its diagnostics. The expectations follow Julia's
//! own parser (JuliaSyntax) and the manual's rules.

use expect_test::{expect, Expect};
use zy_syntax::tree::{parse, Sexp};

/// Each input on its own: its tree, and its diagnostics if any.
fn check(inputs: &[&str], expect: Expect) {
    let mut out = String::new();
    for text in inputs {
        let parse = parse(text, None);
        let shown: Vec<String> = parse
            .root
            .children
            .iter()
            .map(|node| Sexp { node, text }.to_string())
            .collect();
        out.push_str(&format!("{text:?}\n    {}\n", shown.join("\n    ")));
        for d in &parse.diagnostics {
            out.push_str(&format!(
                "    error {}..{}: {}\n",
                d.range.start, d.range.end, d.message
            ));
        }
    }
    expect.assert_eq(&out);
}

#[test]
fn precedence_levels_loosest_to_tightest() {
    // Assignment is right-associative and loosest.
    check(
        &["a = b = c", "a += b", "a .= b .+ c", "a, b = c, d"],
        expect![[r#"
            "a = b = c"
                (= a (= b c))
            "a += b"
                (op= a + b)
            "a .= b .+ c"
                (.= a (dotcall-i b + c))
            "a, b = c, d"
                (= (tuple a b) (tuple c d))
        "#]],
    );
    // Pair.
    check(
        &["a => b => c", "a => b || c"],
        expect![[r#"
            "a => b => c"
                (call-i a => (call-i b => c))
            "a => b || c"
                (call-i a => (|| b c))
        "#]],
    );
    // Conditional.
    check(
        &["a ? b : c ? d : e", "a || b ? c : d", "c ? x = 1 : y = 2"],
        expect![[r#"
            "a ? b : c ? d : e"
                (? a b (? c d e))
            "a || b ? c : d"
                (? (|| a b) c d)
            "c ? x = 1 : y = 2"
                (? c (= x 1) (= y 2))
        "#]],
    );
    // Arrow.
    check(
        &["a --> b --> c", "a → b || c"],
        expect![[r#"
            "a --> b --> c"
                (--> a (--> b c))
            "a → b || c"
                (call-i a → (|| b c))
        "#]],
    );
    // Lazy or and and.
    check(
        &["a || b || c", "a && b && c", "a || b && c", "a && b || c"],
        expect![[r#"
            "a || b || c"
                (|| a (|| b c))
            "a && b && c"
                (&& a (&& b c))
            "a || b && c"
                (|| a (&& b c))
            "a && b || c"
                (|| (&& a b) c)
        "#]],
    );
    // Comparison.
    check(
        &[
            "a < b",
            "a < b < c",
            "a == b != c",
            "a < b + c",
            "a <: b",
            "a .< b",
        ],
        expect![[r#"
            "a < b"
                (call-i a < b)
            "a < b < c"
                (comparison a < b < c)
            "a == b != c"
                (comparison a == b != c)
            "a < b + c"
                (call-i a < (call-i b + c))
            "a <: b"
                (<: a b)
            "a .< b"
                (dotcall-i a < b)
        "#]],
    );
    // Pipes.
    check(
        &["a |> f |> g", "f <| g <| a", "a |> f < b"],
        expect![[r#"
            "a |> f |> g"
                (call-i (call-i a |> f) |> g)
            "f <| g <| a"
                (call-i f <| (call-i g <| a))
            "a |> f < b"
                (call-i (call-i a |> f) < b)
        "#]],
    );
    // Range.
    check(
        &["a:b", "a:s:b", "a:b:c:d", "1:n-1", "a+1:b*2", "x..."],
        expect![[r#"
            "a:b"
                (call-i a : b)
            "a:s:b"
                (call-i a : s b)
            "a:b:c:d"
                (call-i (call-i a : b c) : d)
            "1:n-1"
                (call-i 1 : (call-i n - 1))
            "a+1:b*2"
                (call-i (call-i a + 1) : (call-i b * 2))
            "x..."
                (... x)
        "#]],
    );
    // Plus.
    check(
        &[
            "a - b - c",
            "a + b + c",
            "a + b - c + d",
            "a .+ b .+ c",
            "a +₁ b +₁ c",
        ],
        expect![[r#"
            "a - b - c"
                (call-i (call-i a - b) - c)
            "a + b + c"
                (call-i a + b c)
            "a + b - c + d"
                (call-i (call-i (call-i a + b) - c) + d)
            "a .+ b .+ c"
                (dotcall-i (dotcall-i a + b) + c)
            "a +₁ b +₁ c"
                (call-i (call-i a +₁ b) +₁ c)
        "#]],
    );
    // Times.
    check(
        &[
            "a * b * c",
            "a / b * c",
            "a * b / c",
            "a ÷ b % c",
            "a + b * c",
        ],
        expect![[r#"
            "a * b * c"
                (call-i a * b c)
            "a / b * c"
                (call-i (call-i a / b) * c)
            "a * b / c"
                (call-i (call-i a * b) / c)
            "a ÷ b % c"
                (call-i (call-i a ÷ b) % c)
            "a + b * c"
                (call-i a + (call-i b * c))
        "#]],
    );
    // Rational and shift.
    check(
        &["a // b // c", "a << b >> c", "a * b // c", "a // b << c"],
        expect![[r#"
            "a // b // c"
                (call-i (call-i a // b) // c)
            "a << b >> c"
                (call-i (call-i a << b) >> c)
            "a * b // c"
                (call-i a * (call-i b // c))
            "a // b << c"
                (call-i a // (call-i b << c))
        "#]],
    );
    // Power is right-associative and tighter than unary minus.
    check(
        &["a ^ b ^ c", "-a ^ b", "a ^ -b", "-a * b", "a .^ b ^ c"],
        expect![[r#"
            "a ^ b ^ c"
                (call-i a ^ (call-i b ^ c))
            "-a ^ b"
                (call-pre - (call-i a ^ b))
            "a ^ -b"
                (call-i a ^ (call-pre - b))
            "-a * b"
                (call-i (call-pre - a) * b)
            "a .^ b ^ c"
                (dotcall-i a ^ (call-i b ^ c))
        "#]],
    );
    // Declaration, dot, adjoint.
    check(
        &["x::T", "x::T::S", "a.b.c", "x'", "x''", "a.b'", "f(x)'"],
        expect![[r#"
            "x::T"
                (::-i x T)
            "x::T::S"
                (::-i (::-i x T) S)
            "a.b.c"
                (. (. a b) c)
            "x'"
                (call-post x ')
            "x''"
                (call-post (call-post x ') ')
            "a.b'"
                (call-post (. a b) ')
            "f(x)'"
                (call-post (call f x) ')
        "#]],
    );
}

#[test]
fn the_issue_table() {
    // A binary operator before a parenthesis is binary.
    check(
        &[
            "3-(x + 1.0)",
            "0.5-(x)^2",
            "2.0+(x+1.0)",
            "exp(1-(x))",
            "10-(x)*(y)",
            "1+(2)",
            "0.5*(x)",
            "1/(x)",
            "2^(x)",
            "a<(b)",
        ],
        expect![[r#"
            "3-(x + 1.0)"
                (call-i 3 - (parens (call-i x + 1.0)))
            "0.5-(x)^2"
                (call-i 0.5 - (call-i (parens x) ^ 2))
            "2.0+(x+1.0)"
                (call-i 2.0 + (parens (call-i x + 1.0)))
            "exp(1-(x))"
                (call exp (call-i 1 - (parens x)))
            "10-(x)*(y)"
                (call-i 10 - (call-i (parens x) * (parens y)))
            "1+(2)"
                (call-i 1 + (parens 2))
            "0.5*(x)"
                (call-i 0.5 * (parens x))
            "1/(x)"
                (call-i 1 / (parens x))
            "2^(x)"
                (call-i 2 ^ (parens x))
            "a<(b)"
                (call-i a < (parens b))
        "#]],
    );
    // A prefix minus before a parenthesis binds looser than ^.
    check(
        &["-(x)^2", "-(x + 1)^2", "-(x, y)", "-(x)"],
        expect![[r#"
            "-(x)^2"
                (call-pre - (call-i (parens x) ^ 2))
            "-(x + 1)^2"
                (call-pre - (call-i (parens (call-i x + 1)) ^ 2))
            "-(x, y)"
                (call - x y)
            "-(x)"
                (call-pre - (parens x))
        "#]],
    );
    // Radicals take a literal coefficient.
    check(
        &["√2x", "√x", "1√x", "√(2x)"],
        expect![[r#"
            "√2x"
                (juxtapose (call-pre √ 2) x)
            "√x"
                (call-pre √ x)
            "1√x"
                (juxtapose 1 (call-pre √ x))
            "√(2x)"
                (call-pre √ (parens (juxtapose 2 x)))
        "#]],
    );
    // Juxtaposition after parentheses.
    check(
        &["(x-1)y", "(2)(3)x", "-(16x^2-24x+5)exp(-x)"],
        expect![[r#"
            "(x-1)y"
                (juxtapose (parens (call-i x - 1)) y)
            "(2)(3)x"
                (juxtapose (parens 2) (parens 3) x)
            "-(16x^2-24x+5)exp(-x)"
                (juxtapose (call-pre - (parens (call-i (call-i (juxtapose 16 (call-i x ^ 2)) - (juxtapose 24 x)) + 5))) (call exp (call-pre - x)))
        "#]],
    );
    // Matrix rows with names and calls.
    check(
        &["[1.0 x; 3.0 4.0]", "[x 1.0; 2.0 x]", "[f(x) 2x]"],
        expect![[r#"
            "[1.0 x; 3.0 4.0]"
                (vcat (row 1.0 x) (row 3.0 4.0))
            "[x 1.0; 2.0 x]"
                (vcat (row x 1.0) (row 2.0 x))
            "[f(x) 2x]"
                (hcat (call f x) (juxtapose 2 x))
        "#]],
    );
}

#[test]
fn numeric_literal_coefficients() {
    // Julia's manual.
    check(
        &[
            "-2x", "√2x", "2^3x", "2x^3", "-2^2", "2^-2", "2x'", "x'y", "2(x+1)", "2x*3", "1/2x",
            "x^2a", "2x^2^3",
        ],
        expect![[r#"
            "-2x"
                (juxtapose -2 x)
            "√2x"
                (juxtapose (call-pre √ 2) x)
            "2^3x"
                (call-i 2 ^ (juxtapose 3 x))
            "2x^3"
                (juxtapose 2 (call-i x ^ 3))
            "-2^2"
                (call-pre - (call-i 2 ^ 2))
            "2^-2"
                (call-i 2 ^ -2)
            "2x'"
                (juxtapose 2 (call-post x '))
            "x'y"
                (juxtapose (call-post x ') y)
            "2(x+1)"
                (juxtapose 2 (parens (call-i x + 1)))
            "2x*3"
                (call-i (juxtapose 2 x) * 3)
            "1/2x"
                (call-i 1 / (juxtapose 2 x))
            "x^2a"
                (call-i x ^ (juxtapose 2 a))
            "2x^2^3"
                (juxtapose 2 (call-i x ^ (call-i 2 ^ 3)))
        "#]],
    );
    // Signed literals.
    check(
        &[
            "-2", "-2.5", "+2", "- 2", "-2*x", "-2^x", "-2[1]", "-0x10", "+0x10", "-(2)", "1 -2",
            "1-2",
        ],
        expect![[r#"
            "-2"
                -2
            "-2.5"
                -2.5
            "+2"
                2
            "- 2"
                (call-pre - 2)
            "-2*x"
                (call-i -2 * x)
            "-2^x"
                (call-pre - (call-i 2 ^ x))
            "-2[1]"
                (call-pre - (ref 2 1))
            "-0x10"
                (call-pre - 0x10)
            "+0x10"
                0x10
            "-(2)"
                (call-pre - (parens 2))
            "1 -2"
                (call-i 1 - 2)
            "1-2"
                (call-i 1 - 2)
        "#]],
    );
    // No juxtaposition.
    check(
        &["x.3", "f(2)2", "using A()", "(return)x", "begin end(3)"],
        expect![[r#"
            "x.3"
                x
                error 1..3: syntax error: unexpected `.3`
            "f(2)2"
                (call f 2)
                error 4..5: syntax error: unexpected `2`
            "using A()"
                (using (importpath A))
                error 7..8: syntax error: unexpected `(`
            "(return)x"
                (parens (return))
                error 8..9: syntax error: unexpected `x`
            "begin end(3)"
                (block)
                error 9..10: syntax error: unexpected `(`
        "#]],
    );
}

#[test]
fn brackets_are_whitespace_sensitive() {
    // Rows and elements.
    check(
        &[
            "[1 -2]", "[1 - 2]", "[1-2]", "[1 -2 3]", "[a -b*c]", "[a*b -c]", "[a .-b]",
            "[a .- b]", "[a +b]", "[a ~b]",
        ],
        expect![[r#"
            "[1 -2]"
                (hcat 1 -2)
            "[1 - 2]"
                (vect (call-i 1 - 2))
            "[1-2]"
                (vect (call-i 1 - 2))
            "[1 -2 3]"
                (hcat 1 -2 3)
            "[a -b*c]"
                (hcat a (call-i (call-pre - b) * c))
            "[a*b -c]"
                (hcat (call-i a * b) (call-pre - c))
            "[a .-b]"
                (hcat a (dotcall-pre - b))
            "[a .- b]"
                (vect (dotcall-i a - b))
            "[a +b]"
                (hcat a (call-pre + b))
            "[a ~b]"
                (hcat a (call-pre ~ b))
        "#]],
    );
    // Adjoints, calls and parentheses.
    check(
        &[
            "[a' b']",
            "[f(x) g(x)]",
            "[f (x)]",
            "[x (y)]",
            "[x' y']",
            "[1 :a]",
            "[1:3 2]",
        ],
        expect![[r#"
            "[a' b']"
                (hcat (call-post a ') (call-post b '))
            "[f(x) g(x)]"
                (hcat (call f x) (call g x))
            "[f (x)]"
                (hcat f (parens x))
            "[x (y)]"
                (hcat x (parens y))
            "[x' y']"
                (hcat (call-post x ') (call-post y '))
            "[1 :a]"
                (hcat 1 (quote-: a))
            "[1:3 2]"
                (hcat (call-i 1 : 3) 2)
        "#]],
    );
    // Vectors, columns, matrices.
    check(
        &[
            "[]",
            "[x]",
            "[x,]",
            "[x, y]",
            "[x; y]",
            "[x y]",
            "[a b; c d]",
            "[a b\n c d]",
            "[a\n b]",
            "[1 2;; 3 4]",
            "[1; 2;; 3; 4]",
            "[1;;]",
        ],
        expect![[r#"
            "[]"
                (vect)
            "[x]"
                (vect x)
            "[x,]"
                (vect-, x)
            "[x, y]"
                (vect x y)
            "[x; y]"
                (vcat x y)
            "[x y]"
                (hcat x y)
            "[a b; c d]"
                (vcat (row a b) (row c d))
            "[a b\n c d]"
                (vcat (row a b) (row c d))
            "[a\n b]"
                (vcat a b)
            "[1 2;; 3 4]"
                (ncat-2 (row 1 2 (error-t)) (row 3 4))
                error 4..6: cannot mix space and ;; separators in an array expression, except to wrap a line
            "[1; 2;; 3; 4]"
                (ncat-2 (nrow-1 1 2) (nrow-1 3 4))
            "[1;;]"
                (ncat-2 1)
        "#]],
    );
    // Comprehensions and typed literals.
    check(
        &[
            "[f(x) for x in xs if p(x)]",
            "[x + y for x in xs, y in ys]",
            "Float64[]",
            "Float64[1, 2]",
            "T[a b]",
            "T[x for x in xs]",
        ],
        expect![[r#"
            "[f(x) for x in xs if p(x)]"
                (comprehension (generator (call f x) (filter (iteration (in x xs)) (call p x))))
            "[x + y for x in xs, y in ys]"
                (comprehension (generator (call-i x + y) (iteration (in x xs) (in y ys))))
            "Float64[]"
                (ref Float64)
            "Float64[1, 2]"
                (ref Float64 1 2)
            "T[a b]"
                (typed_hcat T a b)
            "T[x for x in xs]"
                (typed_comprehension T (generator x (iteration (in x xs))))
        "#]],
    );
    // Indexing.
    check(
        &[
            "a[i]",
            "a[i, j]",
            "a[]",
            "a[end]",
            "a[begin]",
            "a[end - 1]",
            "a[i -1]",
            "a[1:end]",
            "a[:]",
        ],
        expect![[r#"
            "a[i]"
                (ref a i)
            "a[i, j]"
                (ref a i j)
            "a[]"
                (ref a)
            "a[end]"
                (ref a end)
            "a[begin]"
                (ref a begin)
            "a[end - 1]"
                (ref a (call-i end - 1))
            "a[i -1]"
                (typed_hcat a i -1)
            "a[1:end]"
                (ref a (call-i 1 : end))
            "a[:]"
                (ref a :)
        "#]],
    );
}

#[test]
fn calls() {
    // Arguments.
    check(
        &[
            "f()",
            "f(x)",
            "f(x, y)",
            "f(x; k = 1)",
            "f(x, k = 1)",
            "f(xs...)",
            "f(x for x in xs)",
            "f(x)(y)",
            "f.(x)",
            "f.(x, y)",
            "a.f(x)",
            "f(x) do y\n  y + 1\nend",
            "f() do\n  1\nend",
        ],
        expect![[r#"
            "f()"
                (call f)
            "f(x)"
                (call f x)
            "f(x, y)"
                (call f x y)
            "f(x; k = 1)"
                (call f x (parameters (= k 1)))
            "f(x, k = 1)"
                (call f x (= k 1))
            "f(xs...)"
                (call f (... xs))
            "f(x for x in xs)"
                (call f (generator x (iteration (in x xs))))
            "f(x)(y)"
                (call (call f x) y)
            "f.(x)"
                (dotcall f x)
            "f.(x, y)"
                (dotcall f x y)
            "a.f(x)"
                (call (. a f) x)
            "f(x) do y\n  y + 1\nend"
                (call f x (do (tuple y) (block (call-i y + 1))))
            "f() do\n  1\nend"
                (call f (do (tuple) (block 1)))
        "#]],
    );
    // Operators as functions and values.
    check(
        &[
            "+(a, b)",
            "+(a)",
            "map(+, xs)",
            ".+(a, b)",
            "(+)(a, b)",
            "Base.:+(a, b)",
        ],
        expect![[r#"
            "+(a, b)"
                (call + a b)
            "+(a)"
                (call-pre + (parens a))
            "map(+, xs)"
                (call map + xs)
            ".+(a, b)"
                (call (. +) a b)
            "(+)(a, b)"
                (call (parens +) a b)
            "Base.:+(a, b)"
                (call (. Base (quote-: +)) a b)
        "#]],
    );
    // Macros.
    check(
        &[
            "@m x y",
            "@m(x, y)",
            "@. x + y",
            "Base.@kwdef struct A\n  x = 1\nend",
            "@inbounds x[i]",
            "r\"a.b\"",
            "x`ls`",
        ],
        expect![[r#"
            "@m x y"
                (macrocall (macro_name m) x y)
            "@m(x, y)"
                (macrocall-p (macro_name m) x y)
            "@. x + y"
                (macrocall (macro_name .) (call-i x + y))
            "Base.@kwdef struct A\n  x = 1\nend"
                (macrocall (. Base (macro_name kwdef)) (struct A (block (= x 1))))
            "@inbounds x[i]"
                (macrocall (macro_name inbounds) (ref x i))
            "r\"a.b\""
                (macrocall @r_str (string-r "a.b"))
            "x`ls`"
                (macrocall @x_cmd (cmdstring-r "ls"))
        "#]],
    );
    // Strings.
    check(
        &[
            "\"a\"",
            "\"a $x b\"",
            "\"$(x + 1)\"",
            "\"\"\"\n  a\n  b\n  \"\"\"",
            "'c'",
            "`ls -l`",
            "raw\"a\\b\"",
        ],
        expect![[r#"
            "\"a\""
                (string "a")
            "\"a $x b\""
                (string "a " x " b")
            "\"$(x + 1)\""
                (string (parens (call-i x + 1)))
            "\"\"\"\n  a\n  b\n  \"\"\""
                (string-s "a\n" "b\n")
            "'c'"
                (char 'c')
            "`ls -l`"
                (cmdstring-r "ls -l")
            "raw\"a\\b\""
                (macrocall @raw_str (string-r "a\\b"))
        "#]],
    );
}

#[test]
fn tuples_and_blocks() {
    // Parentheses.
    check(
        &[
            "()",
            "(x)",
            "(x,)",
            "(x, y)",
            "(a = 1, b = 2)",
            "(; a = 1)",
            "(a; b)",
            "(x for x in xs)",
            "begin\n  a\n  b\nend",
            "(x) -> x",
            "(x, y) -> x + y",
            "x -> x^2",
            "(x::T) -> x",
            "() -> 1",
        ],
        expect![[r#"
            "()"
                (tuple-p)
            "(x)"
                (parens x)
            "(x,)"
                (tuple-p-, x)
            "(x, y)"
                (tuple-p x y)
            "(a = 1, b = 2)"
                (tuple-p (= a 1) (= b 2))
            "(; a = 1)"
                (tuple-p (parameters (= a 1)))
            "(a; b)"
                (block-p a b)
            "(x for x in xs)"
                (parens (generator x (iteration (in x xs))))
            "begin\n  a\n  b\nend"
                (block a b)
            "(x) -> x"
                (-> (tuple-p x) x)
            "(x, y) -> x + y"
                (-> (tuple-p x y) (call-i x + y))
            "x -> x^2"
                (-> (tuple x) (call-i x ^ 2))
            "(x::T) -> x"
                (-> (tuple-p (::-i x T)) x)
            "() -> 1"
                (-> (tuple-p) 1)
        "#]],
    );
}

#[test]
fn definitions() {
    // Functions.
    check(
        &[
            "f(x) = x",
            "f(x)::T = x",
            "f(x::T) where T = x",
            "f(x::T) where {T<:Real} = x",
            "function f(x, y)\n  x\nend",
            "function f end",
            "function (x)\n  x\nend",
            "(d::Dense)(x) = x",
            "(::Dense)(x) = x",
            "Base.:+(a, b) = a",
            "+(a, b) = a",
            "f(x; k = 1) = x",
            "f(x, y = 2) = x",
            "f(xs...) = xs",
            "function f(x)::Float64 where T\n  x\nend",
        ],
        expect![[r#"
            "f(x) = x"
                (function-= (call f x) x)
            "f(x)::T = x"
                (function-= (::-i (call f x) T) x)
            "f(x::T) where T = x"
                (function-= (where (call f (::-i x T)) T) x)
            "f(x::T) where {T<:Real} = x"
                (function-= (where (call f (::-i x T)) (braces (<: T Real))) x)
            "function f(x, y)\n  x\nend"
                (function (call f x y) (block x))
            "function f end"
                (function f)
            "function (x)\n  x\nend"
                (function (tuple-p x) (block x))
            "(d::Dense)(x) = x"
                (function-= (call (parens (::-i d Dense)) x) x)
            "(::Dense)(x) = x"
                (function-= (call (parens (::-pre Dense)) x) x)
            "Base.:+(a, b) = a"
                (function-= (call (. Base (quote-: +)) a b) a)
            "+(a, b) = a"
                (function-= (call + a b) a)
            "f(x; k = 1) = x"
                (function-= (call f x (parameters (= k 1))) x)
            "f(x, y = 2) = x"
                (function-= (call f x (= y 2)) x)
            "f(xs...) = xs"
                (function-= (call f (... xs)) xs)
            "function f(x)::Float64 where T\n  x\nend"
                (function (where (::-i (call f x) Float64) T) (block x))
        "#]],
    );
    // Types.
    check(
        &[
            "struct A\n  x\n  y::Int\nend",
            "mutable struct B{T} <: C\n  x::T\nend",
            "abstract type S end",
            "abstract type S <: T end",
            "primitive type P 8 end",
            "struct D\n  \"doc\"\n  x\n  D(x) = new(x)\nend",
        ],
        expect![[r#"
            "struct A\n  x\n  y::Int\nend"
                (struct A (block x (::-i y Int)))
            "mutable struct B{T} <: C\n  x::T\nend"
                (struct-mut (<: (curly B T) C) (block (::-i x T)))
            "abstract type S end"
                (abstract S)
            "abstract type S <: T end"
                (abstract (<: S T))
            "primitive type P 8 end"
                (primitive P 8)
            "struct D\n  \"doc\"\n  x\n  D(x) = new(x)\nend"
                (struct D (block (doc (string "doc") x) (function-= (call D x) (call new x))))
        "#]],
    );
    // Modules and names.
    check(
        &[
            "module M\nx = 1\nend",
            "baremodule M end",
            "using A",
            "using A: b, c",
            "using .M",
            "using ..N: f",
            "import A.B",
            "import A as C",
            "import A: b as c",
            "export a, b",
            "include(\"f.jl\")",
        ],
        expect![[r#"
            "module M\nx = 1\nend"
                (module M (block (= x 1)))
            "baremodule M end"
                (module-bare M (block))
            "using A"
                (using (importpath A))
            "using A: b, c"
                (using (: (importpath A) (importpath b) (importpath c)))
            "using .M"
                (using (importpath . M))
            "using ..N: f"
                (using (: (importpath . . N) (importpath f)))
            "import A.B"
                (import (importpath A B))
            "import A as C"
                (import (as (importpath A) C))
            "import A: b as c"
                (import (: (importpath A) (as (importpath b) c)))
            "export a, b"
                (export a b)
            "include(\"f.jl\")"
                (call include (string "f.jl"))
        "#]],
    );
    // Declarations.
    check(
        &[
            "const N = 3",
            "global x",
            "global x = 1",
            "local x, y",
            "local x = 1",
            "const a, b = 1, 2",
        ],
        expect![[r#"
            "const N = 3"
                (const (= N 3))
            "global x"
                (global x)
            "global x = 1"
                (global (= x 1))
            "local x, y"
                (local x y)
            "local x = 1"
                (local (= x 1))
            "const a, b = 1, 2"
                (const (= (tuple a b) (tuple 1 2)))
        "#]],
    );
}

#[test]
fn control_flow() {
    // Conditionals and loops.
    check(
        &[
            "if a\n  b\nelseif c\n  d\nelse\n  e\nend",
            "if a b end",
            "while x > 0\n  x -= 1\nend",
            "for i in 1:n\nend",
            "for i = 1:n, j ∈ xs\nend",
            "for (i, x) in xs\nend",
            "for outer i in xs\nend",
        ],
        expect![[r#"
            "if a\n  b\nelseif c\n  d\nelse\n  e\nend"
                (if a (block b) (elseif c (block d) (block e)))
            "if a b end"
                (if a (block b))
            "while x > 0\n  x -= 1\nend"
                (while (call-i x > 0) (block (op= x - 1)))
            "for i in 1:n\nend"
                (for (iteration (in i (call-i 1 : n))) (block))
            "for i = 1:n, j ∈ xs\nend"
                (for (iteration (in i (call-i 1 : n)) (in j xs)) (block))
            "for (i, x) in xs\nend"
                (for (iteration (in (tuple-p i x) xs)) (block))
            "for outer i in xs\nend"
                (for (iteration (in (outer i) xs)) (block))
        "#]],
    );
    // Jumps and blocks.
    check(
        &[
            "return",
            "return x",
            "return x, y",
            "break",
            "continue",
            "let x = 1, y\n  x\nend",
            "try\n  a\ncatch e\n  b\nfinally\n  c\nend",
            "try\n  a\ncatch\nend",
            "quote\n  x\nend",
            ":x",
            ":(a + b)",
        ],
        expect![[r#"
            "return"
                (return)
            "return x"
                (return x)
            "return x, y"
                (return (tuple x y))
            "break"
                (break)
            "continue"
                (continue)
            "let x = 1, y\n  x\nend"
                (let (block (= x 1) y) (block x))
            "try\n  a\ncatch e\n  b\nfinally\n  c\nend"
                (try (block a) (catch e (block b)) (finally (block c)))
            "try\n  a\ncatch\nend"
                (try (block a) (catch □ (block)))
            "quote\n  x\nend"
                (quote (block x))
            ":x"
                (quote-: x)
            ":(a + b)"
                (quote-: (parens (call-i a + b)))
        "#]],
    );
}

#[test]
fn printed_as_juliasyntax_prints() {
    // Literals by value, string macros by their macro's name, a missing catch variable as □,
    // `;` lines as toplevel-;, left-out errors as (error-t) and bad tokens by kind.
    check(
        &[
            "0b10010",
            "1e-3 + 1e6 + 1_000 + 5.",
            "'\\u03b1'",
            "\"a\\tb$(x)\\$\"",
            "x\"s\"",
            "try x catch end",
            "a; b",
            "f (a)",
            "a--b",
            "'ab'",
            "a b\nc",
            "@(",
        ],
        expect![[r#"
            "0b10010"
                0x12
            "1e-3 + 1e6 + 1_000 + 5."
                (call-i 0.001 + 1.0e6 1000 5.0)
            "'\\u03b1'"
                (char 'α')
            "\"a\\tb$(x)\\$\""
                (string "a\tb" (parens x) "\$")
            "x\"s\""
                (macrocall @x_str (string-r "s"))
            "try x catch end"
                (try (block x) (catch □ (block)))
            "a; b"
                (toplevel-; a b)
            "f (a)"
                (call f (error-t) a)
                error 1..2: whitespace is not allowed here
            "a--b"
                (call-i a (ErrorInvalidOperator) b)
                error 1..3: syntax error: invalid operator `--`
            "'ab'"
                (char (ErrorOverLongCharacter))
            "a b\nc"
                a
                c
                error 2..3: syntax error: unexpected `b`
            "@("
                (macrocall (macro_name (parens (error-t))))
                error 1..2: missing `)`
        "#]],
    );
}

#[test]
fn junk_after_a_statement_is_wrapped_with_it() {
    // JuliaSyntax's `(wrapper x (error-t y))`: the statement, then what cannot follow it.
    let text = "a b\nc";
    let parse = parse(text, None);
    let shown = Sexp {
        node: &parse.root,
        text,
    }
    .to_string();
    assert_eq!(shown, "(toplevel (wrapper a (error-t b)) c)");
}

#[test]
fn operator_classes_everyday_code_meets() {
    // Each operator groups as its class does in JuliaSyntax's table: arrows (`-->` syntactic,
    // `<--`, `<-->`, `←`) to the right, `<|` to the right and `|>` to the left at the pipe
    // level, `⊻` and `⊕` with `+`, `∘` and `⊗` with `*`, `~` at the assignment level.
    check(
        &[
            "a --> b --> c",
            "a <-- b <-- c",
            "a <--> b",
            "p ← q ← r",
            "a <| b <| c",
            "a |> b |> c",
            "a ⊻ b ⊻ c",
            "a ∘ b ∘ c",
            "f .∘ g",
            "a ⊕ b * c",
            "a ⊗ b + c",
            "a ~ b",
            "x::Int + 1",
            "a ∈ b ∉ c ⊆ d",
            "x in xs isa T",
        ],
        expect![[r#"
            "a --> b --> c"
                (--> a (--> b c))
            "a <-- b <-- c"
                (call-i a <-- (call-i b <-- c))
            "a <--> b"
                (call-i a <--> b)
            "p ← q ← r"
                (call-i p ← (call-i q ← r))
            "a <| b <| c"
                (call-i a <| (call-i b <| c))
            "a |> b |> c"
                (call-i (call-i a |> b) |> c)
            "a ⊻ b ⊻ c"
                (call-i (call-i a ⊻ b) ⊻ c)
            "a ∘ b ∘ c"
                (call-i (call-i a ∘ b) ∘ c)
            "f .∘ g"
                (dotcall-i f ∘ g)
            "a ⊕ b * c"
                (call-i a ⊕ (call-i b * c))
            "a ⊗ b + c"
                (call-i (call-i a ⊗ b) + c)
            "a ~ b"
                (call-i a ~ b)
            "x::Int + 1"
                (call-i (::-i x Int) + 1)
            "a ∈ b ∉ c ⊆ d"
                (comparison a ∈ b ∉ c ⊆ d)
            "x in xs isa T"
                (comparison x in xs isa T)
        "#]],
    );
}

#[test]
fn declarations_and_definitions_outside_the_subset_parse() {
    // What zy refuses by name still has Julia's tree: the refusal comes after.
    check(
        &[
            "f(x)::T where T",
            "f(x) where {T} where {S}",
            "((x::T) where T) -> x",
            "function (x) x end",
            "function f end",
            "global a, b = 1, 2",
            "local a = 1, b",
            "import A.B: c as d, e",
            "export f, @m, +",
            "abstract type A{T<:Real} <: B{T} end",
            "primitive type P <: Integer 16 end",
            "macro m(x) x end",
            "quote x end",
            ":(a + b)",
            "mutable struct S\n const a::Int\nend",
            "map(xs) do (a, b), c\n a\nend",
        ],
        expect![[r#"
            "f(x)::T where T"
                (::-i (call f x) (where T T))
            "f(x) where {T} where {S}"
                (where (where (call f x) (braces T)) (braces S))
            "((x::T) where T) -> x"
                (-> (parens (where (parens (::-i x T)) T)) x)
            "function (x) x end"
                (function (tuple-p x) (block x))
            "function f end"
                (function f)
            "global a, b = 1, 2"
                (global (= (tuple a b) (tuple 1 2)))
            "local a = 1, b"
                (local (= a (tuple 1 b)))
            "import A.B: c as d, e"
                (import (: (importpath A B) (as (importpath c) d) (importpath e)))
            "export f, @m, +"
                (export f (macro_name m) +)
            "abstract type A{T<:Real} <: B{T} end"
                (abstract (<: (curly A (<: T Real)) (curly B T)))
            "primitive type P <: Integer 16 end"
                (primitive (<: P Integer) 16)
            "macro m(x) x end"
                (macro (call m x) (block x))
            "quote x end"
                (quote (block x))
            ":(a + b)"
                (quote-: (parens (call-i a + b)))
            "mutable struct S\n const a::Int\nend"
                (struct-mut S (block (const (::-i a Int))))
            "map(xs) do (a, b), c\n a\nend"
                (call map xs (do (tuple (tuple-p a b) c) (block a)))
        "#]],
    );
}

#[test]
fn literals_splats_adjoints_and_brackets() {
    // Unsigned literals take the width of their digits; `1.0f`, `1e1_0` are a number times a
    // name; `-2'` is a literal `-2` with a `'` left over, as JuliaSyntax reads it.
    check(
        &[
            "0xffff",
            "0x10000",
            "0x1ffffffffffffffff",
            "1.0f",
            ".1e-3",
            "1e1_0",
            "-2'",
            "2(x)",
            "(x)(y)",
            "f(x...; y...)",
            "[a..., b...]",
            "(a...,)",
            "a'b",
            "[1 2]'",
            "a.b'",
            "x[]",
            "A[:, end÷2]",
            "[1;; 2;;; 3]",
            "#= a #= b =# c =# x",
            "\"a\\\n   b\"",
            "\"$(\"$(x)\")\"",
            "a ?\n b :\n c",
            "a &&\n b ||\n c",
        ],
        expect![[r##"
            "0xffff"
                0xffff
            "0x10000"
                0x00010000
            "0x1ffffffffffffffff"
                0x0000000000000001ffffffffffffffff
            "1.0f"
                (juxtapose 1.0 f)
            ".1e-3"
                0.0001
            "1e1_0"
                (juxtapose 10.0 _0)
            "-2'"
                -2
                error 2..3: syntax error: unexpected `'`
            "2(x)"
                (juxtapose 2 (parens x))
            "(x)(y)"
                (call (parens x) y)
            "f(x...; y...)"
                (call f (... x) (parameters (... y)))
            "[a..., b...]"
                (vect (... a) (... b))
            "(a...,)"
                (tuple-p-, (... a))
            "a'b"
                (juxtapose (call-post a ') b)
            "[1 2]'"
                (call-post (hcat 1 2) ')
            "a.b'"
                (call-post (. a b) ')
            "x[]"
                (ref x)
            "A[:, end÷2]"
                (ref A : (call-i end ÷ 2))
            "[1;; 2;;; 3]"
                (ncat-3 (nrow-2 1 2) 3)
            "#= a #= b =# c =# x"
                x
            "\"a\\\n   b\""
                (string "a" "b")
            "\"$(\"$(x)\")\""
                (string (parens (string (parens x))))
            "a ?\n b :\n c"
                (? a b c)
            "a &&\n b ||\n c"
                (|| (&& a b) c)
        "##]],
    );
}

#[test]
fn adjoint_of_a_word_operator() {
    // `in'` is `in` and an adjoint (`'` after a word operator), which the parser reads as the
    // opening of a character literal; the `'` after the space closes it empty, an error, as
    // in JuliaSyntax.
    check(
        &["x in' '", "x in' '\ny = 1"],
        expect![[r#"
        "x in' '"
            (call-i x in (char (error)))
            error 5..5: empty character literal
        "x in' '\ny = 1"
            (call-i x in (juxtapose (char (error)) 
        y = 1))
            error 5..5: empty character literal
    "#]],
    );
}

#[test]
fn macro_names_with_a_misplaced_at() {
    // The `@` may stand on the first or the last name of a macro's path only: `A.@B.x` is an
    // error (it was read as the macro `A.B.x`, silently), recovered as JuliaSyntax recovers
    // it, the `@` taken to belong to the last name. Once the call's arguments are read the
    // chain goes on as any other (`A.@x(y).z` is a field of the call's value).
    check(
        &[
            "A.@B.x",
            "A.@B.x.y a",
            "A.@x(y).z",
            "A.@S[a].b",
            "@A.B.@x a",
        ],
        expect![[r#"
            "A.@B.x"
                (macrocall (. (. A (error-t) B) (macro_name (error-t) x)))
                error 2..4: `@` must appear on first or last macro name component
            "A.@B.x.y a"
                (macrocall (. (. (. A (error-t) B) x) (macro_name (error-t) y)) a)
                error 2..4: `@` must appear on first or last macro name component
            "A.@x(y).z"
                (. (macrocall-p (. A (macro_name x)) y) z)
            "A.@S[a].b"
                (. (macrocall (. A (macro_name S)) (vect a)) b)
            "@A.B.@x a"
                (macrocall (macro_name (. (. A B) (error-t) x)) a)
                error 5..6: repeated `@` in macro module path
        "#]],
    );
}

#[test]
fn errors_left_out_as_juliasyntax_leaves_them() {
    // A token bumped as an error keeps its trivia flag, so only the error shows (`end` after
    // `var"x"` is not an argument); a block cut off by the end of the input holds the error
    // of its missing statement.
    check(
        &[
            "var\"x\"end",
            "var\"x\"1",
            "function",
            "for\n\n<:",
            "function(where",
        ],
        expect![[r#"
            "var\"x\"end"
                (var x (error-t))
                error 6..9: suffix not allowed after `var"..."` syntax
            "var\"x\"1"
                (var x (error-t))
                error 6..7: suffix not allowed after `var"..."` syntax
            "function"
                (function (error (error)) (block (error)) (error-t))
                error 0..8: missing `end` for `function`
                error 8..8: syntax error: invalid signature in function definition
                error 8..8: syntax error: unexpected end of input
            "for\n\n<:"
                (for (iteration (in <: (error (error-t)))) (block (error)) (error-t))
                error 0..3: missing `end` for `for`
                error 7..7: invalid iteration spec: expected one of `=` `in` or `∈`
                error 7..7: premature end of input
                error 7..7: syntax error: unexpected end of input
            "function(where"
                (function (tuple-p where (error-t)) (block (error)) (error-t))
                error 0..8: missing `end` for `function`
                error 8..9: missing `)`
                error 14..14: syntax error: unexpected end of input
        "#]],
    );
}

#[test]
fn float_literals_out_of_range() {
    // JuliaSyntax's error token for a literal too large for its type, `Float32` and hex
    // floats included; a literal too small is zero.
    check(
        &[
            "10.0f100",
            "1f39",
            "0x1p2000",
            "1e1000",
            "1f-50",
            "0x1p-2000",
            "1.5f3",
        ],
        expect![[r#"
            "10.0f100"
                (ErrorNumericOverflow)
            "1f39"
                (ErrorNumericOverflow)
            "0x1p2000"
                (ErrorNumericOverflow)
            "1e1000"
                (ErrorNumericOverflow)
            "1f-50"
                0.0f0
            "0x1p-2000"
                0.0
            "1.5f3"
                1500.0f0
        "#]],
    );
}
