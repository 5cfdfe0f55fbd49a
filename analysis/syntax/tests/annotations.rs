//! `# zy:` comment lines attach to the method definition directly below them.

use expect_test::{expect, Expect};

fn check(src: &str, expect: Expect) {
    expect.assert_eq(&zy_syntax::debug_tree(&zy_syntax::parse_file(src)));
}

#[test]
fn annotations_attach_to_the_definition_below() {
    check(
        r#"# pow: the paper's loop example.
# zy: at pow(2.0, 3)
# zy: gradcheck pow(1.5, 2)
#   zy: allow(unused-value)
function pow(x, n)
    x^n
end

# zy: at sq(3.0)
sq(x) = x * x

# zy: at Dense([1.0 2.0], [0.5])([1.0, 2.0])
(d::Dense)(x) = x
"#,
        expect![[r#"
            (function pow (x n)
              @at "pow(2.0, 3)" 42..53
              @gradcheck "pow(1.5, 2)" 70..81
              @allow "unused-value" 96..108
              (^ x n))
            (function sq (x)
              @at "sq(3.0)" 151..158
              (* x x))
            (function (d::Dense) (x)
              @at "Dense([1.0 2.0], [0.5])([1.0, 2.0])" 183..218
              x)
        "#]],
    );
}

#[test]
fn a_blank_line_detaches_an_annotation() {
    check(
        "# zy: at f(1.0)\n\nf(x) = x\n",
        expect![[r#"
        (function f (x)
          x)
        error 0..15: `# zy:` annotation is not directly above a method definition [syntax-error]
    "#]],
    );
}

#[test]
fn annotation_text_ranges_point_into_the_file() {
    let src = "    # zy: at  f(2.0, 3)  \n    f(x, n) = x\n";
    let file = zy_syntax::parse_file(src);
    let zy_syntax::ast::Item::Function(def) = &file.items[0] else {
        panic!("expected a method")
    };
    let annotation = &def.annotations[0];
    assert_eq!(annotation.text, "f(2.0, 3)");
    assert_eq!(
        &src[annotation.range.start as usize..annotation.range.end as usize],
        "f(2.0, 3)"
    );
}

#[test]
fn malformed_and_misplaced_annotations_are_reported() {
    check(
        r#"# zy: frobnicate f(1)
f(x) = x
# zy: at
g(x) = x
# zy: at N
const N = 3
function h(x)
    x
    # zy: at h(1.0)
end
"#,
        expect![[r#"
            (function f (x)
              x)
            (function g (x)
              x)
            (const N 3)
            (function h (x)
              x)
            error 0..21: unknown zy annotation `frobnicate f(1)` (expected `at`, `gradcheck`, `allow(CODE)` or, above a loop, `checkpoint`) [syntax-error]
            error 31..39: empty zy annotation (expected a call after the keyword) [syntax-error]
            error 49..59: `# zy:` annotation is not directly above a method definition [syntax-error]
            error 96..111: `# zy:` annotation is not directly above a method definition [syntax-error]
        "#]],
    );
}

#[test]
fn inner_methods_take_annotations_too() {
    check(
        "function f(x)\n    # zy: at g(1.0)\n    g(y) = y\n    g(x)\nend\n",
        expect![[r#"
        (function f (x)
          (function g (y) @at "g(1.0)" 27..33 y)
          (call g x))
    "#]],
    );
}

#[test]
fn annotations_sit_above_the_docstring() {
    check(
        "# zy: at f(1.0)\n\"\"\"\n    f(x)\n\nIdentity.\n\"\"\"\nf(x) = x\n",
        expect![[r#"
        (function f (x)
          @at "f(1.0)" 9..15
          x)
    "#]],
    );
}

#[test]
fn checkpoint_annotations_mark_the_loop_below() {
    check(
        "function f(x, n)\n    # zy: checkpoint\n    for i in 1:n\n        x = 2x\n    end\n    # zy: checkpoint snapshots=4\n    while x > 1.0\n        x = x / 2\n    end\n    # zy: checkpoint\n    y = x\nend\n",
        expect![[r#"
            (function f (x n)
              (checkpoint (for i (: 1 n) (= x (* 2 x))))
              (checkpoint 4 (while (> x 1.0) (= x (/ x 2))))
              (= y x))
            error 159..175: `# zy: checkpoint` is not directly above a `for` or `while` loop [syntax-error]
        "#]],
    );
}
