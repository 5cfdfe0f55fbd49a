//! Every error lowering reports itself, with its span, and that the method still lowers.

use crate::common;

use common::{errors, functions};
use expect_test::expect;
use zy_lower::{lower_file, Lowered};

/// Lower `src`, which may have parse errors of its own; check every body's invariants.
fn lower_any(src: &str) -> (Lowered, String) {
    let file = zy_syntax::parse_file(src);
    let parse_errors: Vec<String> = file.errors.iter().map(|e| e.message.clone()).collect();
    let lowered = lower_file(0, &file);
    for f in functions(&lowered) {
        common::check(f);
    }
    (lowered, parse_errors.join("\n"))
}

fn lowering_errors(src: &str) -> String {
    let (l, parse) = lower_any(src);
    assert_eq!(parse, "", "unexpected parse errors");
    errors(&l)
}

#[test]
fn break_and_continue_outside_a_loop() {
    let src = "function f(x)
        x > 0 && break
        g = () -> continue
        for i in 1:2
            h = () -> break
        end
    end";
    expect![[r#"
        syntax-error 31..36: syntax: `break` outside a loop
        syntax-error 55..63: syntax: `continue` outside a loop
        syntax-error 107..112: syntax: `break` outside a loop
    "#]]
    .assert_eq(&lowering_errors(src));
}

#[test]
fn return_at_top_level() {
    expect![[r#"
        syntax-error 11..19: syntax: `return` at top level
    "#]]
    .assert_eq(&lowering_errors("const N = (return 3)"));
}

#[test]
fn assignment_to_non_assignable() {
    expect![[r#"
        syntax-error 16..20: syntax: invalid assignment location: cannot assign to a call
        syntax-error 28..30: syntax: invalid assignment location: cannot assign to an operator expression
    "#]].assert_eq(&lowering_errors(
        "function f(x)\n  f(x) += 1\n  x' *= 2\nend",
    ));
}

#[test]
fn range_outside_for_header() {
    expect![""].assert_eq(&lowering_errors("f(n) = sum(1:n)"));
}

#[test]
fn destructuring_into_non_identifiers() {
    expect![[r#"
        unsupported 19..24: unsupported: destructuring into an operator expression; destructure into names, elements (`a[i]`) or fields (`s.f`) instead
    "#]].assert_eq(&lowering_errors("function f(t, x)\n  x + 1, y = t\n  y\nend"));
}

#[test]
fn captured_before_assignment() {
    let src = "function f(x)
        for i in 1:2
            g = () -> y
        end
        y = x
    end
    function fact(n)
        h(k) = k <= 1 ? 1 : k * map(j -> h(j), k - 1)
        h(n)
    end
    function g(n)
        h(k) = k <= 1 ? 1 : k * h(k - 1)
        h = 2
    end";
    expect![[r#"
        unsupported 51..53: unsupported: closure made in a loop captures `y` before it is assigned; assign `y` before the loop instead
        unsupported 122..123: unsupported: recursive inner function `h` (define it at top level)
        unsupported 215..216: unsupported: recursive inner function `h` assigned more than once; define it at top level instead
    "#]]
    .assert_eq(&lowering_errors(src));
}

#[test]
fn inner_function_with_two_methods() {
    let src = "function f(x)
        g(y::Float64) = 2y
        g(y::Int) = y
        g(x)
    end";
    expect![[r#"
        unsupported 49..50: unsupported: inner function `g` with more than one method (define it at top level)
    "#]].assert_eq(&lowering_errors(src));
}

#[test]
fn boxed_variable_first_assigned_conditionally() {
    let src = "function f(c, x)
        if c
            s = 1.0
        end
        s = x
        () -> s
    end";
    expect![[r#"
        unsupported 70..71: unsupported: captured variable `s` is reassigned here but assigned on only some paths before (assign it before the branch)
    "#]].assert_eq(&lowering_errors(src));
}

#[test]
fn boxed_variable_first_assigned_in_a_loop() {
    let src = "function f(n, x)
        local s
        while n > 0
            s = x
            n -= 1
        end
        s = 2x
        () -> s
    end";
    expect![[r#"
        unsupported 65..66: unsupported: captured variable `s` is reassigned but first assigned in a loop (assign it before the loop)
    "#]].assert_eq(&lowering_errors(src));
}

#[test]
fn boxed_variable_first_assigned_in_each_arm() {
    let src = "function f(c, x)
        if c
            s = 1.0
        elseif x > 0
            s = x
        else
            return x
        end
        g = () -> s
        s = 2s
        g
    end";
    expect![[r#""#]].assert_eq(&lowering_errors(src));
}

#[test]
fn parser_errors_lower_without_duplicates() {
    let (l, parse) = lower_any("function f(x, (a, b) = 1)\n  x + k\nend");
    expect!["unsupported: this form of optional argument"].assert_eq(&parse);
    assert_eq!(errors(&l), "");
    expect![[r#"
        f(%1)   # x
        #1:
          %2 = global k
          %3 = %1 + %2
          return %3
    "#]]
    .assert_eq(&common::body(&l, "f"));
}
