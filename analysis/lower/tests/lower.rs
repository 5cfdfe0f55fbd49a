//! Snapshots of lowered IR for the constructs of the untyped-IR convention.

use crate::common;

use common::{body, lower, render};
use expect_test::expect;

#[test]
fn pow_has_one_loop_header_with_two_phis() {
    let l = lower(
        "function pow(x, n)
            r = 1
            while n > 0
                r *= x
                n -= 1
            end
            r
        end",
    );
    expect![[r#"
        method pow(_, _)
        pow(%1, %2)   # x, n
        #1:
          br #2
        #2:
          %3 = φ(#1 → %2, #3 → %7)              # n
          %4 = φ(#1 → 1, #3 → %6)               # r
          %5 = %3 > 0
          br %5 ? #3 : #4
        #3:
          %6 = %4 * %1                          # r
          %7 = %3 - 1                           # n
          br #2
        #4:
          return %4
    "#]]
    .assert_eq(&render(&l));
}

#[test]
fn leaky_relu_ternary_and_if_lower_alike() {
    let l = lower(
        "relu1(x) = x > 0 ? x : 0.01x
        function relu2(x)
            if x > 0
                x
            else
                0.01x
            end
        end",
    );
    expect![[r#"
        relu1(%1)   # x
        #1:
          %2 = %1 > 0
          br %2 ? #3 : #2
        #2:
          %3 = 0.01 * %1
          br #3
        #3:
          %4 = φ(#1 → %1, #2 → %3)
          return %4
    "#]]
    .assert_eq(&body(&l, "relu1"));
    assert_eq!(
        body(&l, "relu1").replace("relu1", "relu2"),
        body(&l, "relu2")
    );
}

#[test]
fn ratio_is_straight_line() {
    let l = lower("f(a, b) = a / (a + b^2)");
    expect![[r#"
        f(%1, %2)   # a, b
        #1:
          %3 = %2 ^ 2
          %4 = %1 + %3
          %5 = %1 / %4
          return %5
    "#]]
    .assert_eq(&body(&l, "f"));
}

#[test]
fn for_range_with_break_and_continue() {
    let l = lower(
        "function f(x, n)
            s = 0.0
            for i in 1:n
                if i == 2
                    continue
                end
                if i > 5
                    break
                end
                s += x * i
            end
            s
        end",
    );
    expect![[r#"
        f(%1, %2)   # x, n
        #1:
          %3 = Base.loop_range(1, 1, %2)
          %4 = Base.range_length(%3, 1, %2)
          br #2
        #2:
          %5 = φ(#1 → 0, #6 → %14)
          %6 = φ(#1 → 0.0, #6 → %13)            # s
          %7 = %5 < %4
          br %7 ? #3 : #7
        #3:
          %8 = Base.loop_elem(%3, %5)           # i
          %9 = %8 == 2
          br %9 ? #6 : #4
        #4:
          %10 = %8 > 5
          br %10 ? #7 : #5
        #5:
          %11 = %1 * %8
          %12 = %6 + %11                        # s
          br #6
        #6:
          %13 = φ(#3 → %6, #5 → %12)            # s
          %14 = %5 + 1
          br #2
        #7:
          return %6
    "#]]
    .assert_eq(&body(&l, "f"));
}

#[test]
fn stepped_range_and_collection_loops() {
    let l = lower(
        "function f(xs, n)
            s = 0.0
            for i in n:-2:1
                s += i
            end
            for x in xs
                s += x
            end
            s
        end",
    );
    expect![[r#"
        f(%1, %2)   # xs, n
        #1:
          %3 = Base.loop_range(%2, -2, 1)
          %4 = Base.range_length(%3, -2, 1)
          br #2
        #2:
          %5 = φ(#1 → 0, #3 → %10)
          %6 = φ(#1 → 0.0, #3 → %9)             # s
          %7 = %5 < %4
          br %7 ? #3 : #4
        #3:
          %8 = Base.loop_elem(%3, %5, -2)       # i
          %9 = %6 + %8                          # s
          %10 = %5 + 1
          br #2
        #4:
          %11 = length(%1)
          br #5
        #5:
          %12 = φ(#4 → 1, #6 → %17)
          %13 = φ(#4 → %6, #6 → %16)            # s
          %14 = %12 <= %11
          br %14 ? #6 : #7
        #6:
          %15 = Base._gen_elem(%1, %12)         # x
          %16 = %13 + %15                       # s
          %17 = %12 + 1
          br #5
        #7:
          return %13
    "#]]
    .assert_eq(&body(&l, "f"));
}

#[test]
fn nested_loops() {
    let l = lower(
        "function f(x, n)
            s = 0.0
            for i in 1:n
                for j in 1:i
                    s += x^j
                end
            end
            return s
        end",
    );
    expect![[r#"
        f(%1, %2)   # x, n
        #1:
          %3 = Base.loop_range(1, 1, %2)
          %4 = Base.range_length(%3, 1, %2)
          br #2
        #2:
          %5 = φ(#1 → 0, #6 → %18)
          %6 = φ(#1 → 0.0, #6 → %12)            # s
          %7 = %5 < %4
          br %7 ? #3 : #7
        #3:
          %8 = Base.loop_elem(%3, %5)           # i
          %9 = Base.loop_range(1, 1, %8)
          %10 = Base.range_length(%9, 1, %8)
          br #4
        #4:
          %11 = φ(#3 → 0, #5 → %17)
          %12 = φ(#3 → %6, #5 → %16)            # s
          %13 = %11 < %10
          br %13 ? #5 : #6
        #5:
          %14 = Base.loop_elem(%9, %11)         # j
          %15 = %1 ^ %14
          %16 = %12 + %15                       # s
          %17 = %11 + 1
          br #4
        #6:
          %18 = %5 + 1
          br #2
        #7:
          return %6
    "#]]
    .assert_eq(&body(&l, "f"));
}

#[test]
fn early_return_from_nested_loops() {
    let l = lower(
        "function f(A, t)
            for i in 1:3
                j = 1
                while true
                    if A[i, j] > t
                        return A[i, j]
                    end
                    j += 1
                end
            end
            return 0.0
        end",
    );
    expect![[r#"
        f(%1, %2)   # A, t
        #1:
          %3 = Base.loop_range(1, 1, 3)
          %4 = Base.range_length(%3, 1, 3)
          %5 = 0 < %4
          br %5 ? #2 : #6
        #2:
          %6 = Base.loop_elem(%3, 0)            # i
          br #3
        #3:
          %7 = φ(#2 → 1, #5 → %11)              # j
          %8 = getindex(%1, %6, %7)
          %9 = %8 > %2
          br %9 ? #4 : #5
        #4:
          %10 = getindex(%1, %6, %7)
          return %10
        #5:
          %11 = %7 + 1                          # j
          br #3
        #6:
          return 0.0
    "#]]
    .assert_eq(&body(&l, "f"));
}

#[test]
fn short_circuit_and_or() {
    let l = lower("f(a, b, c) = a > 0 && b > 0 || c");
    expect![[r#"
        f(%1, %2, %3)   # a, b, c
        #1:
          %4 = %1 > 0
          br %4 ? #2 : #3
        #2:
          %5 = %2 > 0
          br #3
        #3:
          %6 = φ(#1 → false, #2 → %5)
          br %6 ? #5 : #4
        #4:
          br #5
        #5:
          %7 = φ(#3 → true, #4 → %3)
          return %7
    "#]]
    .assert_eq(&body(&l, "f"));
}

#[test]
fn chained_comparison_evaluates_middle_once() {
    let l = lower("f(a, b, c) = a < b <= c");
    expect![[r#"
        f(%1, %2, %3)   # a, b, c
        #1:
          %4 = %1 < %2
          br %4 ? #2 : #3
        #2:
          %5 = %2 <= %3
          br #3
        #3:
          %6 = φ(#1 → %4, #2 → %5)
          return %6
    "#]]
    .assert_eq(&body(&l, "f"));
}

#[test]
fn destructuring_and_tuples() {
    let l = lower(
        "function f(t)
            a, b = t
            (c, (d, e)) = (b, (a, 1))
            x = (p = a, q = d)
            [a, b][1] + x.p + e
        end",
    );
    expect![[r#"
        f(%1)   # t
        #1:
          %2 = Base._destructure(%1, 1)         # a
          %3 = Base._destructure(%1, 2)         # b
          %4 = tuple(%2, 1)
          %5 = tuple(%3, %4)
          %6 = Base._destructure(%5, 1)         # c
          %7 = Base._destructure(%5, 2)
          %8 = Base._destructure(%7, 1)         # d
          %9 = Base._destructure(%7, 2)         # e
          %10 = namedtuple((:p, :q), %2, %8)    # x
          %11 = vect(%2, %3)
          %12 = getindex(%11, 1)
          %13 = Base.getproperty(%10, :p)
          %14 = %12 + %13
          %15 = %14 + %9
          return %15
    "#]]
    .assert_eq(&body(&l, "f"));
}

#[test]
fn closure_capturing_a_variable() {
    let l = lower(
        "function f(a)
            g = x -> a * x
            g(2.0)
        end",
    );
    expect![[r##"
        struct #f#1 {a} Closure
        method (::#f#1)(#f#1, _)
        #f#1(%1, %2)   # #self#, x
        #1:
          %3 = getfield(%1, :a)                 # a
          %4 = %3 * %2
          return %4
        method f(_)
        f(%1)   # a
        #1:
          %2 = closure var"#f#1"(%1)            # g
          %3 = %2(2.0)
          return %3
    "##]]
    .assert_eq(&render(&l));
}

#[test]
fn closure_reassigning_a_capture_uses_a_box() {
    let l = lower(
        "function shared(x)
            s = 0.0
            add = y -> (s += y)
            add(x)
            s = s * x
            return s
        end",
    );
    expect![[r##"
        struct #shared#1 {s} Closure
        method (::#shared#1)(#shared#1, _)
        #shared#1(%1, %2)   # #self#, y
        #1:
          %3 = getfield(%1, :s)                 # s
          %4 = getindex(%3)                     # s
          %5 = %4 + %2
          %6 = Base._box_set!(%3, %5)
          return %5
        method shared(_)
        shared(%1)   # x
        #1:
          %2 = Ref(0.0)                         # s
          %3 = closure var"#shared#1"(%2)       # add
          %4 = %3(%1)
          %5 = getindex(%2)                     # s
          %6 = %5 * %1
          %7 = Base._box_set!(%2, %6)
          %8 = getindex(%2)                     # s
          return %8
    "##]]
    .assert_eq(&render(&l));
}

#[test]
fn do_block_is_a_closure_argument() {
    let l = lower(
        "function f(xs, c)
            map(xs) do x
                x * c
            end
        end",
    );
    expect![[r##"
        struct #f#1 {c} Closure
        method (::#f#1)(#f#1, _)
        #f#1(%1, %2)   # #self#, x
        #1:
          %3 = getfield(%1, :c)                 # c
          %4 = %2 * %3
          return %4
        method f(_, _)
        f(%1, %2)   # xs, c
        #1:
          %3 = closure var"#f#1"(%2)
          %4 = map(%3, %1)
          return %4
    "##]]
    .assert_eq(&render(&l));
}

#[test]
fn inner_named_function_and_nested_closures() {
    let l = lower(
        "function f(a)
            function g(x)
                h = y -> a * y
                h(x) + x
            end
            g(1.0)
        end",
    );
    expect![[r##"
        struct #f#1 {a} Closure
        struct #f#2 {a} Closure
        method (::#f#1)(#f#1, _)
        #f#1(%1, %2)   # #self#, x
        #1:
          %3 = getfield(%1, :a)                 # a
          %4 = closure var"#f#2"(%3)            # h
          %5 = %4(%2)
          %6 = %5 + %2
          return %6
        method (::#f#2)(#f#2, _)
        #f#2(%1, %2)   # #self#, y
        #1:
          %3 = getfield(%1, :a)                 # a
          %4 = %3 * %2
          return %4
        method f(_)
        f(%1)   # a
        #1:
          %2 = closure var"#f#1"(%1)            # g
          %3 = %2(1.0)
          return %3
    "##]]
    .assert_eq(&render(&l));
}

#[test]
fn callable_struct_and_struct_definitions() {
    let l = lower(
        "struct Dense{T}
            W::Matrix{T}
            b::Vector{T}
        end
        mutable struct Acc
            total
        end
        (d::Dense)(x) = d.W * x .+ d.b
        function bump!(a::Acc, v::Float64)
            a.total += v
        end",
    );
    expect![[r#"
        struct Acc {total} User
        struct Dense {W::Matrix{T}, b::Vector{T}} User
        method (::Dense)(Dense, _)
        (::Dense)(%1, %2)   # d, x
        #1:
          %3 = Base.getproperty(%1, :W)
          %4 = %3 * %2
          %5 = Base.getproperty(%1, :b)
          %6 = broadcast(+, %4, %5)
          return %6
        method bump!(Acc, Float64)
        bump!(%1, %2)   # a, v
        #1:
          %3 = Base.getproperty(%1, :total)
          %4 = %3 + %2
          %5 = Base.setproperty!(%1, :total, %4)
          return %4
    "#]]
    .assert_eq(&render(&l));
}

#[test]
fn globals_are_loaded_and_thunked() {
    let l = lower(
        "const N = 3
        sq = x -> x^2
        f(x) = sq(x) * N + pi",
    );
    expect![[r##"
        struct #sq#1 {} Closure
        method (::#sq#1)(#sq#1, _)
        #sq#1(%1, %2)   # #self#, x
        #1:
          %3 = %2 ^ 2
          return %3
        method f(_)
        f(%1)   # x
        #1:
          %2 = sq(%1)
          %3 = global N
          %4 = %2 * %3
          %5 = %4 + 3.141592653589793
          return %5
        global N
        N()
        #1:
          return 3
        global sq
        sq()
        #1:
          %1 = closure var"#sq#1"()
          return %1
    "##]]
    .assert_eq(&render(&l));
}

#[test]
fn loop_local_is_not_carried_around_the_loop() {
    let l = lower(
        "function f(n)
            s = 0
            for i in 1:n
                if i > 1
                    t = i
                end
                s += t
            end
            s
        end",
    );
    expect![[r#"
        f(%1)   # n
        #1:
          %2 = Base.loop_range(1, 1, %1)
          %3 = Base.range_length(%2, 1, %1)
          br #2
        #2:
          %4 = φ(#1 → 0, #5 → %12)
          %5 = φ(#1 → 0, #5 → %11)              # s
          %6 = %4 < %3
          br %6 ? #3 : #6
        #3:
          %7 = undef(:t)
          %8 = Base.loop_elem(%2, %4)           # i
          %9 = %8 > 1
          br %9 ? #5 : #4
        #4:
          br #5
        #5:
          %10 = φ(#3 → %8, #4 → %7)             # t
          %11 = %5 + %10                        # s
          %12 = %4 + 1
          br #2
        #6:
          return %5
    "#]]
    .assert_eq(&body(&l, "f"));
}

#[test]
fn possibly_unassigned_local_reads_undef() {
    let l = lower(
        "function f(c)
            if c
                y = 1.0
            end
            y
        end",
    );
    expect![[r#"
        f(%1)   # c
        #1:
          %2 = undef(:y)
          br %1 ? #3 : #2
        #2:
          br #3
        #3:
          %3 = φ(#1 → 1.0, #2 → %2)             # y
          return %3
    "#]]
    .assert_eq(&body(&l, "f"));
}

#[test]
fn indexing_refs_and_compound_updates() {
    let l = lower(
        "function f(x, r, s)
            x[2] = r[]
            x[1] += 2.0
            s.f *= 3
            r[] = x[1]'
            -x[1] + !true
        end",
    );
    expect![[r#"
        f(%1, %2, %3)   # x, r, s
        #1:
          %4 = getindex(%2)
          %5 = setindex!(%1, %4, 2)
          %6 = getindex(%1, 1)
          %7 = %6 + 2.0
          %8 = setindex!(%1, %7, 1)
          %9 = Base.getproperty(%3, :f)
          %10 = %9 * 3
          %11 = Base.setproperty!(%3, :f, %10)
          %12 = getindex(%1, 1)
          %13 = adjoint(%12)
          %14 = setindex!(%2, %13)
          %15 = getindex(%1, 1)
          %16 = -%15
          %17 = !true
          %18 = %16 + %17
          return %18
    "#]]
    .assert_eq(&body(&l, "f"));
}

#[test]
fn matrices_broadcasts_and_constants() {
    let l = lower(
        "function f(x, g)
            A = [1.0 2.0; 3.0 4.0]
            y = sin.(x) .+ g.(x)
            A * y .* Inf, NaN, π, rrule(sin, 1)
        end",
    );
    expect![[r#"
        f(%1, %2)   # x, g
        #1:
          %3 = hvcat(2, 2, 1.0, 2.0, 3.0, 4.0)  # A
          %4 = broadcast(sin, %1)
          %5 = broadcast(%2, %1)
          %6 = broadcast(+, %4, %5)             # y
          %7 = %3 * %6
          %8 = broadcast(*, %7, Inf)
          %9 = global sin
          %10 = rrule(%9, 1)
          %11 = tuple(%8, NaN, 3.141592653589793, %10)
          return %11
    "#]]
    .assert_eq(&body(&l, "f"));
}

#[test]
fn rrule_signature_uses_typeof() {
    let l = lower(
        "function rrule(::typeof(f), x::Float64)
            y = f(x)
            back(dy) = (NoTangent(), 2dy)
            return y, back
        end",
    );
    expect![[r##"
        struct #rrule#1 {} Closure
        method (::#rrule#1)(#rrule#1, _)
        #rrule#1(%1, %2)   # #self#, dy
        #1:
          %3 = NoTangent()
          %4 = 2 * %2
          %5 = tuple(%3, %4)
          return %5
        method rrule(typeof(f), Float64)
        rrule(%1, %2)   # _, x
        #1:
          %3 = f(%2)                            # y
          %4 = closure var"#rrule#1"()          # back
          %5 = tuple(%3, %4)
          return %5
    "##]]
    .assert_eq(&render(&l));
}

#[test]
fn loop_assignment_to_a_name_assigned_later_outside_the_loop() {
    let l = lower(
        "function f(n)
            for i in 1:n
                s = i
            end
            r = s
            s = 0
            r
        end
        function g(n)
            for i in 1:n
                s = i
            end
            s
        end",
    );
    // In `f`, `s` is a local of the function (assigned after the loop too), so the loop's
    // assignment is carried out of the loop; in `g` it is local to each iteration and the
    // `s` after the loop is a global name.
    expect![[r#"
        f(%1)   # n
        #1:
          %2 = undef(:s)
          %3 = Base.loop_range(1, 1, %1)
          %4 = Base.range_length(%3, 1, %1)
          br #2
        #2:
          %5 = φ(#1 → 0, #3 → %9)
          %6 = φ(#1 → %2, #3 → %8)              # s
          %7 = %5 < %4
          br %7 ? #3 : #4
        #3:
          %8 = Base.loop_elem(%3, %5)           # i
          %9 = %5 + 1
          br #2
        #4:
          return %6
    "#]]
    .assert_eq(&body(&l, "f"));
    expect![[r#"
        g(%1)   # n
        #1:
          %2 = Base.loop_range(1, 1, %1)
          %3 = Base.range_length(%2, 1, %1)
          br #2
        #2:
          %4 = φ(#1 → 0, #3 → %7)
          %5 = %4 < %3
          br %5 ? #3 : #4
        #3:
          %6 = Base.loop_elem(%2, %4)           # i
          %7 = %4 + 1
          br #2
        #4:
          %8 = global s
          return %8
    "#]]
    .assert_eq(&body(&l, "g"));
}

#[test]
fn while_loop_local_and_closures_per_iteration() {
    let l = lower(
        "function f(x, n)
            fs = []
            k = 0
            while k < n
                k += 1
                y = x * k
                push!(fs, () -> y)
            end
            fs
        end",
    );
    expect![[r##"
        struct #f#1 {y} Closure
        method (::#f#1)(#f#1)
        #f#1(%1)   # #self#
        #1:
          %2 = getfield(%1, :y)                 # y
          return %2
        method f(_, _)
        f(%1, %2)   # x, n
        #1:
          %3 = vect()                           # fs
          br #2
        #2:
          %4 = φ(#1 → 0, #3 → %6)               # k
          %5 = %4 < %2
          br %5 ? #3 : #4
        #3:
          %6 = %4 + 1                           # k
          %7 = %1 * %6                          # y
          %8 = closure var"#f#1"(%7)
          %9 = push!(%3, %8)
          br #2
        #4:
          return %3
    "##]]
    .assert_eq(&render(&l));
}

#[test]
fn reassigned_argument_captured_is_boxed_at_entry() {
    let l = lower(
        "function f(x)
            g = () -> x
            x = 2x
            g()
        end",
    );
    expect![[r##"
        f(%1)   # x
        #1:
          %2 = Ref(%1)                          # x
          %3 = closure var"#f#1"(%2)            # g
          %4 = getindex(%2)                     # x
          %5 = 2 * %4
          %6 = Base._box_set!(%2, %5)
          %7 = %3()
          return %7
    "##]]
    .assert_eq(&body(&l, "f"));
}

#[test]
fn closure_names_count_within_the_method() {
    let def = |src: &str| {
        let file = zy_syntax::parse_file(src);
        match file.items.into_iter().next() {
            Some(zy_syntax::ast::Item::Function(d)) => d,
            other => panic!("not a function: {other:?}"),
        }
    };
    let first = zy_lower::lower_method(0, &def("f(x) = map(y -> y + x, x)"), 0);
    let third = zy_lower::lower_method(0, &def("f(x) = map(y -> y + x, x)"), 2);
    let names = |item: &zy_lower::LoweredItem| -> Vec<String> {
        item.methods.iter().map(|(n, _)| n.to_string()).collect()
    };
    assert_eq!(names(&first), ["f", "(::#f#1)"]);
    assert_eq!(names(&third), ["f", "(::#f#2#1)"]);
    let file = zy_syntax::parse_file("f(x) = map(y -> y + x, x)\nf(x, z) = map(y -> y + z, x)");
    let l = zy_lower::lower_file(0, &file);
    let closures: Vec<&str> = l.program.structs.keys().map(|k| &**k).collect();
    assert_eq!(closures, ["#f#1", "#f#1#1"]);
}

#[test]
fn statements_carry_the_spans_of_their_source() {
    let src = "function f(a, b)\n    c = a / (a + b^2)\n    c > 0 ? c : -c\nend";
    let l = lower(src);
    let f = &l.program.functions["f"].methods[0].body;
    let text = |s: zy_ir::Span| &src[s.start as usize..s.end as usize];
    let stmts: Vec<&str> = f
        .block_ids()
        .flat_map(|b| f.block(b).stmts.clone())
        .map(|v| text(f.value(v).span))
        .collect();
    assert_eq!(stmts, ["b^2", "a + b^2", "a / (a + b^2)", "c > 0", "-c"]);
    let terms: Vec<&str> = f.block_ids().map(|b| text(f.block(b).term_span)).collect();
    assert_eq!(terms, ["c > 0", "c > 0 ? c : -c", "c > 0 ? c : -c"]);
    assert_eq!(text(l.program.functions["f"].methods[0].span), "f");
    let phis: Vec<&str> = f
        .block_ids()
        .skip(1)
        .flat_map(|b| f.block(b).params.clone())
        .map(|v| text(f.value(v).span))
        .collect();
    assert_eq!(phis, ["c > 0 ? c : -c"]);
}

#[test]
fn recursive_inner_function_calls_itself_through_self() {
    let l = lower(
        "function f(n)
            fact(k) = k <= 1 ? 1 : k * fact(k - 1)
            fact(n)
        end",
    );
    expect![[r##"
        struct #f#1 {} Closure
        method (::#f#1)(#f#1, _)
        #f#1(%1, %2)   # #self#, k
        #1:
          %3 = %2 <= 1
          br %3 ? #3 : #2
        #2:
          %4 = %2 - 1
          %5 = %1(%4)
          %6 = %2 * %5
          br #3
        #3:
          %7 = φ(#1 → 1, #2 → %6)
          return %7
        method f(_)
        f(%1)   # n
        #1:
          %2 = closure var"#f#1"()              # fact
          %3 = %2(%1)
          return %3
    "##]]
    .assert_eq(&render(&l));
}

#[test]
fn chained_comparison_spans_each_comparison() {
    let src = "f(a, b, c) = a < b <= c";
    let l = lower(src);
    let f = &l.program.functions["f"].methods[0].body;
    let spans: Vec<&str> = f
        .block_ids()
        .flat_map(|b| f.block(b).stmts.clone())
        .map(|v| &src[f.value(v).span.start as usize..f.value(v).span.end as usize])
        .collect();
    assert_eq!(spans, ["a < b", "b <= c"]);
}

#[test]
fn elseif_chain_and_statement_if_without_value() {
    let l = lower(
        "function sgn(x)
            if x > 0
                s = 1
            elseif x < 0
                s = -1
            else
                s = 0
            end
            x == 0 && return 0.0
            s * 1.0
        end",
    );
    expect![[r#"
        sgn(%1)   # x
        #1:
          %2 = %1 > 0
          br %2 ? #4 : #2
        #2:
          %3 = %1 < 0
          br %3 ? #4 : #3
        #3:
          br #4
        #4:
          %4 = φ(#1 → 1, #2 → -1, #3 → 0)       # s
          %5 = %1 == 0
          br %5 ? #5 : #6
        #5:
          return 0.0
        #6:
          %6 = %4 * 1.0
          return %6
    "#]]
    .assert_eq(&body(&l, "sgn"));
}

#[test]
fn for_loop_destructures_its_elements_and_closures_capture_each_iteration() {
    let l = lower(
        "function f(ps)
            fs = []
            for (a, b) in ps
                push!(fs, () -> a * b)
            end
            fs
        end",
    );
    expect![[r##"
        f(%1)   # ps
        #1:
          %2 = vect()                           # fs
          %3 = length(%1)
          br #2
        #2:
          %4 = φ(#1 → 1, #3 → %11)
          %5 = %4 <= %3
          br %5 ? #3 : #4
        #3:
          %6 = Base._gen_elem(%1, %4)
          %7 = Base._destructure(%6, 1)         # a
          %8 = Base._destructure(%6, 2)         # b
          %9 = closure var"#f#1"(%7, %8)
          %10 = push!(%2, %9)
          %11 = %4 + 1
          br #2
        #4:
          return %2
    "##]]
    .assert_eq(&body(&l, "f"));
}

#[test]
fn keyword_methods_become_a_body_defaults_and_a_positional_method() {
    let l = lower(
        "f(x; a = 2x, b) = a + b
         g(x) = f(x, b = 1.0; kw...)",
    );
    expect![[r#"
        method #f#kw(_, _, _)
        #f#kw(%1, %2, %3)   # a, b, x
        #1:
          %4 = %1 + %2
          return %4
        method #f#kw#a(_)
        #f#kw#a(%1)   # x
        #1:
          %2 = 2 * %1
          return %2
        method #f#kw#b(_, _)
        #f#kw#b(%1, %2)   # x, a
        #1:
          %3 = error(:UndefKeywordError, "keyword argument `b` not assigned")
          return %3
        method f(_)
        f(%1)   # x
        #1:
          %2 = 2 * %1                           # a
          %3 = error(:UndefKeywordError, "keyword argument `b` not assigned") # b
          %4 = #f#kw(%2, %3, %1)
          return %4
        method g(_)
        g(%1)   # x
        #1:
          %2 = global kw
          %3 = Base.kwcall((:b, :...), 1.0, %2, f, %1)
          return %3
    "#]]
    .assert_eq(&render(&l));
}

#[test]
fn optional_parameters_become_shorter_methods_passing_the_defaults() {
    let l = lower("f(x, y = 1.0, z = y; k = 2) = x + y + z + k");
    expect![[r#"
        method #f#kw(_, _, _, _)
        #f#kw(%1, %2, %3, %4)   # k, x, y, z
        #1:
          %5 = %2 + %3
          %6 = %5 + %4
          %7 = %6 + %1
          return %7
        method #f#kw#k(_, _, _)
        #f#kw#k(%1, %2, %3)   # x, y, z
        #1:
          return 2
        method #f#opt1#kw(_, _)
        #f#opt1#kw(%1, %2)   # #kw, x
        #1:
          %3 = Base.kwcall((:...,), %1, f, %2, 1.0, 1.0)
          return %3
        method #f#opt2#kw(_, _, _)
        #f#opt2#kw(%1, %2, %3)   # #kw, x, y
        #1:
          %4 = Base.kwcall((:...,), %1, f, %2, %3, %3)
          return %4
        method f(_, _, _)
        f(%1, %2, %3)   # x, y, z
        #1:
          %4 = #f#kw(2, %1, %2, %3)
          return %4
        method f(_)
        f(%1)   # x
        #1:
          %2 = namedtuple(())
          %3 = Base.pairs(%2)
          %4 = #f#opt1#kw(%3, %1)
          return %4
        method f(_, _)
        f(%1, %2)   # x, y
        #1:
          %3 = namedtuple(())
          %4 = Base.pairs(%3)
          %5 = #f#opt2#kw(%4, %1, %2)
          return %5
    "#]]
    .assert_eq(&render(&l));
}

#[test]
fn varargs_signature_and_splatting_call() {
    let l = lower("f(x, rest::Float64...) = g(x, rest...)");
    expect![[r#"
        method f(_, Vararg{Float64})
        f(%1, %2)   # x, rest
        #1:
          %3 = Base.splatcall((false, true), g, %1, %2)
          return %3
    "#]]
    .assert_eq(&render(&l));
}

#[test]
fn euler_constant_power_is_exp_and_constants_are_float64() {
    let l = lower("f(x) = ℯ^x + ℯ * π");
    expect![[r#"
        method f(_)
        f(%1)   # x
        #1:
          %2 = exp(%1)
          %3 = 2.718281828459045 * 3.141592653589793
          %4 = %2 + %3
          return %4
    "#]]
    .assert_eq(&render(&l));
}

#[test]
fn end_begin_and_colon_take_their_meaning_from_the_innermost_brackets() {
    let l = lower("f(A, y) = A[end, :] .+ A[begin + 1, y[end]] .+ A[2:end]");
    expect![[r#"
        method f(_, _)
        f(%1, %2)   # A, y
        #1:
          %3 = size(%1, 1)
          %4 = Colon()
          %5 = getindex(%1, %3, %4)
          %6 = 1 + 1
          %7 = Base._end_index(%2)
          %8 = getindex(%2, %7)
          %9 = getindex(%1, %6, %8)
          %10 = broadcast(+, %5, %9)
          %11 = Base._end_index(%1)
          %12 = :(2, %11)
          %13 = getindex(%1, %12)
          %14 = broadcast(+, %10, %13)
          return %14
    "#]]
    .assert_eq(&render(&l));
}

#[test]
fn in_place_broadcasts_write_through_a_view_of_the_target() {
    let l = lower(
        "function f(x, y)
            x .+= y
            x[2:end] .= 0.0
        end",
    );
    expect![[r#"
        method f(_, _)
        f(%1, %2)   # x, y
        #1:
          %3 = broadcast(+, %1, %2)
          %4 = broadcast!(identity, %1, %3)
          %5 = Base._end_index(%1)
          %6 = :(2, %5)
          %7 = dotview(%1, %6)
          %8 = broadcast!(identity, %7, 0.0)
          return %7
    "#]]
    .assert_eq(&render(&l));
}
