//! Precedence and the traps of Julia's syntax (the places where tree-sitter-julia, zy's former
//! parser, disagreed with Julia), each checked against what Julia itself does.

use expect_test::{expect, Expect};

/// Parses `f(x) = BODY` and prints the body only.
fn check(body: &str, expect: Expect) {
    let src = format!("f(a, b, c, x) = {body}");
    let file = zy_syntax::parse_file(&src);
    let mut out = String::new();
    for item in &file.items {
        if let zy_syntax::ast::Item::Function(def) = item {
            for stmt in &def.body {
                out.push_str(&format!("{stmt}\n"));
            }
        }
    }
    for error in &file.errors {
        out.push_str(&format!("error: {}\n", error.message));
    }
    expect.assert_eq(&out);
}

#[test]
fn literal_coefficient_binds_looser_than_power() {
    // Julia: 2x^2 == 2*(x^2)
    check(
        "2x^2",
        expect![[r#"
        (* 2 (^ x 2))
    "#]],
    );
    check(
        "2x^2^3",
        expect![[r#"
        (* 2 (^ x (^ 2 3)))
    "#]],
    );
    check(
        "0.01x^2",
        expect![[r#"
        (* 0.01 (^ x 2))
    "#]],
    );
    check(
        "2(x+1)^2",
        expect![[r#"
        (* 2 (^ (+ x 1) 2))
    "#]],
    );
    check(
        "(2x)^2",
        expect![[r#"
        (^ (* 2 x) 2)
    "#]],
    );
}

#[test]
fn literal_coefficient_with_adjoint() {
    // Julia: 2x' == 2*(x')
    check(
        "2x'",
        expect![[r#"
        (* 2 (' x))
    "#]],
    );
    check(
        "2x'^2",
        expect![[r#"
        (* 2 (^ (' x) 2))
    "#]],
    );
}

#[test]
fn literal_coefficient_binds_tighter_than_times_and_divide() {
    // Julia: 1/2x == 1/(2x), 2x*3 == (2x)*3, 2x/3 == (2x)/3
    check(
        "1/2x",
        expect![[r#"
        (/ 1 (* 2 x))
    "#]],
    );
    check(
        "2x*3",
        expect![[r#"
        (* (* 2 x) 3)
    "#]],
    );
    check(
        "2x/3",
        expect![[r#"
        (/ (* 2 x) 3)
    "#]],
    );
    check(
        "2(x+1)",
        expect![[r#"
        (* 2 (+ x 1))
    "#]],
    );
    check(
        "x^2a",
        expect![[r#"
        (^ x (* 2 a))
    "#]],
    );
}

#[test]
fn power_is_right_associative() {
    // Julia: 2^3^2 == 2^(3^2) == 512
    check(
        "a^b^c",
        expect![[r#"
        (^ a (^ b c))
    "#]],
    );
    check(
        "(a^b)^c",
        expect![[r#"
        (^ (^ a b) c)
    "#]],
    );
    check(
        "a .^ b ^ c",
        expect![[r#"
        (.^ a (^ b c))
    "#]],
    );
}

#[test]
fn unary_minus_binds_looser_than_power() {
    // Julia: -x^2 == -(x^2), -2^2 == -4
    check(
        "-x^2",
        expect![[r#"
        (- (^ x 2))
    "#]],
    );
    check(
        "-2^2",
        expect![[r#"
        (- (^ 2 2))
    "#]],
    );
    check(
        "2^-x",
        expect![[r#"
        (^ 2 (- x))
    "#]],
    );
    check(
        "-a*b",
        expect![[r#"
        (* (- a) b)
    "#]],
    );
}

#[test]
fn comparisons_chain() {
    check(
        "a < b < c",
        expect![[r#"
        (chain a < b < c)
    "#]],
    );
    check(
        "a < b <= c == x",
        expect![[r#"
        (chain a < b <= c == x)
    "#]],
    );
    check(
        "(a < b) < c",
        expect![[r#"
        (< (< a b) c)
    "#]],
    );
    check(
        "a < b",
        expect![[r#"
        (< a b)
    "#]],
    );
    check(
        "a < b && b < c",
        expect![[r#"
        (&& (< a b) (< b c))
    "#]],
    );
}

#[test]
fn comparison_chains_with_library_comparisons_are_lazy() {
    // Julia: `a ≈ b == c` is `a ≈ b && b == c`, each operand evaluated once, in order, and
    // only while the comparisons before it hold.
    check(
        "a ≈ b == c",
        expect![[r#"
        (&& (call isapprox a b) (== b c))
    "#]],
    );
    check(
        "a in b === x(c) < x(a)",
        expect![[r#"
            (&& (call in a b) (let (#cmp2 (call x c)) (&& (call === b #cmp2) (< #cmp2 (call x a)))))
        "#]],
    );
    check(
        "x(a) isa b == c",
        expect![[r#"
        (let (#cmp0 (call x a)) (&& (call isa #cmp0 b) (== b c)))
    "#]],
    );
}

#[test]
fn matrix_literals_are_whitespace_sensitive() {
    // Julia: [1.0 -0.3] is 1×2, [1.0 - 0.3] and [1.0-0.3] are one element, [a -b] is hcat.
    check(
        "[1.0 -0.3]",
        expect![[r#"
            (matrix (row 1.0 -0.3))
        "#]],
    );
    check(
        "[1.0 - 0.3]",
        expect![[r#"
        (vect (- 1.0 0.3))
    "#]],
    );
    check(
        "[1.0-0.3]",
        expect![[r#"
        (vect (- 1.0 0.3))
    "#]],
    );
    check(
        "[1.0- 0.3]",
        expect![[r#"
        (vect (- 1.0 0.3))
    "#]],
    );
    check(
        "[a -b]",
        expect![[r#"
        (matrix (row a (- b)))
    "#]],
    );
    check(
        "[a +b]",
        expect![[r#"
        (matrix (row a (+ b)))
    "#]],
    );
    check(
        "[a -b c]",
        expect![[r#"
        (matrix (row a (- b) c))
    "#]],
    );
    check(
        "[a - b -c]",
        expect![[r#"
        (matrix (row (- a b) (- c)))
    "#]],
    );
    check(
        "[a -b*c]",
        expect![[r#"
        (matrix (row a (* (- b) c)))
    "#]],
    );
    check(
        "[a*b -c]",
        expect![[r#"
        (matrix (row (* a b) (- c)))
    "#]],
    );
    check(
        "[1.0 -0.3; -2 4]",
        expect![[r#"
            (matrix (row 1.0 -0.3) (row -2 4))
        "#]],
    );
    check(
        "[f(a -b) c]",
        expect![[r#"
        (matrix (row (call f (- a b)) c))
    "#]],
    );
    check(
        "[a .-b]",
        expect![[r#"
        (matrix (row a (dotcall - b)))
    "#]],
    );
    check(
        "[a, -b]",
        expect![[r#"
        (vect a (- b))
    "#]],
    );
    check(
        "[x' y']",
        expect![[r#"
        (matrix (row (' x) (' y)))
    "#]],
    );
    // `;;` concatenates along the second dimension (columns `[1; 2]` and `[3; 4]`), never read as `;`.
    check(
        "[1; 2;; 3; 4]",
        expect![[r#"
            (matrix (row (vect 1 2) (vect 3 4)))
        "#]],
    );
    // Julia rejects spaces and `;;` mixed in one literal.
    check(
        "[1 2;; 3 4]",
        expect![[r#"
            (error)
            error: syntax error: cannot mix space and ;; separators in an array expression, except to wrap a line
        "#]],
    );
}

#[test]
fn short_circuit_and_ternary() {
    check(
        "a && b || c",
        expect![[r#"
        (|| (&& a b) c)
    "#]],
    );
    check(
        "a || b && c",
        expect![[r#"
        (|| a (&& b c))
    "#]],
    );
    check(
        "a > 0 ? a : 0.01a",
        expect![[r#"
        (? (> a 0) a (* 0.01 a))
    "#]],
    );
}

#[test]
fn ranges() {
    check(
        "1:b-1",
        expect![[r#"
        (: 1 (- b 1))
    "#]],
    );
    check(
        "a:2:b+1",
        expect![[r#"
        (: a 2 (+ b 1))
    "#]],
    );
}

#[test]
fn space_separated_signs_next_to_commas_are_rejected() {
    // Julia: `[a -b, c]` is "unexpected comma in matrix expression"; `x[i -1]` is `x[i, -1]`
    // written as a concatenation. Both are reported rather than read as a subtraction.
    check(
        "[a -b, c]",
        expect![[r#"
            (error)
            error: syntax error: unexpected comma in array expression
        "#]],
    );
    check(
        "x[a -1]",
        expect![[r#"
            (error)
            error: unsupported: concatenation in indexing brackets (write `i - 1` for a subtraction)
        "#]],
    );
    check(
        "x[a - 1, b-1]",
        expect![[r#"
        (index x (- a 1) (- b 1))
    "#]],
    );
}

#[test]
fn an_operator_before_a_parenthesis_is_binary() {
    // Issue 17: tree-sitter-julia read these as a call of the operator juxtaposed with the
    // literal (`3-(x + 1.0)` as `3 * -(x + 1.0)`), or refused them.
    check(
        "(3-(x + 1.0), 0.5-(x)^2, 2.0+(x+1.0), exp(1-(x)), 10-(x)*(b), 1+(2))",
        expect![[r#"
            (tuple (- 3 (+ x 1.0)) (- 0.5 (^ x 2)) (+ 2.0 (+ x 1.0)) (call exp (- 1 x)) (- 10 (* x b)) (+ 1 2))
        "#]],
    );
    check(
        "(0.5*(x), 1/(x), 2^(x), a<(b), -(x)^2, -(x + 1)^2)",
        expect![[r#"
        (tuple (* 0.5 x) (/ 1 x) (^ 2 x) (< a b) (- (^ x 2)) (- (^ (+ x 1) 2)))
    "#]],
    );
}

#[test]
fn juxtaposition_follows_julias_manual() {
    // `√2x` is `(√2)x`, `-2x` is `(-2)x`, `2^3x` is `2^(3x)`, `2x^3` is `2(x^3)`,
    // `-2^2` is `-(2^2)`, `2^-2` is `2^(-2)`.
    check(
        "(√2x, -2x, 2^3x, 2x^3, -2^2, 2^-2, -x^2)",
        expect![[r#"
        (tuple (* (call sqrt 2) x) (* -2 x) (^ 2 (* 3 x)) (* 2 (^ x 3)) (- (^ 2 2)) (^ 2 -2) (- (^ x 2)))
    "#]],
    );
    check(
        "((x-1)b, (2)(3)x, 1√x, -(16x^2-24x+5)exp(-x), x'b)",
        expect![[r#"
            (tuple (* (- x 1) b) (* (* 2 3) x) (* 1 (call sqrt x)) (* (- (+ (- (* 16 (^ x 2)) (* 24 x)) 5)) (call exp (- x))) (* (' x) b))
        "#]],
    );
}

#[test]
fn matrix_rows_with_names_and_calls() {
    check(
        "([1.0 x; 3.0 4.0], [x 1.0; 2.0 x], [f(x) 2x], [x (b)], [a' b'])",
        expect![[r#"
            (tuple (matrix (row 1.0 x) (row 3.0 4.0)) (matrix (row x 1.0) (row 2.0 x)) (matrix (row (call f x) (* 2 x))) (matrix (row x b)) (matrix (row (' a) (' b))))
        "#]],
    );
}

#[test]
fn plus_and_times_chains_are_one_call_as_in_julia() {
    // Julia: `a + b + c` is `+(a, b, c)` (a left fold); `-`, `/` and dotted chains nest.
    check(
        "a + b + c - x * b * c",
        expect![[r#"
        (- (call + a b c) (call * x b c))
    "#]],
    );
    check(
        "a .+ b .+ c",
        expect![[r#"
        (.+ (.+ a b) c)
    "#]],
    );
}

#[test]
fn a_chain_of_ten_thousand_terms_is_one_level_of_nesting() {
    let terms: Vec<String> = (0..10_000).map(|k| format!("{k}.5x")).collect();
    let src = format!("f(x) = {}", terms.join(" + "));
    let file = zy_syntax::parse_file(&src);
    assert_eq!(file.errors, vec![]);
    let Some(zy_syntax::ast::Item::Function(def)) = file.items.first() else {
        panic!("no function");
    };
    match &def.body[..] {
        [e] => match &e.kind {
            zy_syntax::ast::ExprKind::Call { args, .. } => assert_eq!(args.len(), 10_000),
            other => panic!("not one call: {other:?}"),
        },
        other => panic!("not one statement: {other:?}"),
    }
}

#[test]
fn mixed_plus_minus_and_times_divide_chains_nest_to_the_left() {
    // Julia: `a - b + c + d - e` is `-(+(-(a, b), c, d), e)`; zy holds it flat (a fold) and
    // prints it nested, the n-ary `+` in the middle as its two steps.
    check(
        "(a - b + c + d - e, x / y * z / w, a + b + c - d, a .- b .+ c, a - (b - c) - d)",
        expect![[r#"
        (tuple (- (+ (+ (- a b) c) d) e) (/ (* (/ x y) z) w) (- (call + a b c) d) (.+ (.- a b) c) (- (- a (- b c)) d))
    "#]],
    );
}

#[test]
fn ten_thousand_sign_changes_are_one_flat_fold_in_a_small_stack() {
    // A generated polynomial: `x - 1.5x + 2.5x - ...`, converted, printed and dropped within a
    // 1 MiB stack (the nested form is 10,000 deep).
    let handle = std::thread::Builder::new().stack_size(1 << 20).spawn(|| {
        let mut src = String::from("f(x) = x");
        for k in 1..10_000 {
            src.push_str(if k % 2 == 0 { " + " } else { " - " });
            src.push_str(&format!("{k}.5x"));
        }
        let file = zy_syntax::parse_file(&src);
        assert_eq!(file.errors, vec![]);
        let Some(zy_syntax::ast::Item::Function(def)) = file.items.first() else {
            panic!("no function");
        };
        let [e] = &def.body[..] else {
            panic!("not one statement");
        };
        let zy_syntax::ast::ExprKind::Fold { rest, .. } = &e.kind else {
            panic!("not a fold: {:?}", e.kind);
        };
        assert_eq!(rest.len(), 9_998);
        assert!(e.to_string().len() > 10_000);
    });
    let joined = handle.map(|h| h.join());
    assert!(matches!(joined, Ok(Ok(()))));
}
