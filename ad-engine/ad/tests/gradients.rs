//! Gradients of whole functions from source text, against hand-derived numbers and finite
//! differences.

use crate::common;

use common::run::{assert_grad, check_fd};
use zy_interp::Value;

fn f(x: f64) -> Value {
    Value::F64(x)
}

fn i(n: i64) -> Value {
    Value::Int(n)
}

#[test]
fn ratio_of_the_paper() {
    let src = "f(a, b) = a / (a + b^2)";
    // a + b² = 7: ∂a = b²/49, ∂b = -2ab/49
    assert_grad(
        src,
        "f",
        vec![f(3.0), f(2.0)],
        3.0 / 7.0,
        &[Some(&[4.0 / 49.0]), Some(&[-12.0 / 49.0])],
    );
    check_fd(src, "f", vec![f(3.0), f(2.0)]);
}

#[test]
fn pow_loop_accumulates_x_and_gives_n_nothing() {
    let src = "
function pow(x, n)
    r = 1.0
    while n > 0
        n -= 1
        r *= x
    end
    return r
end";
    // d/dx x³ = 3x² = 12
    assert_grad(src, "pow", vec![f(2.0), i(3)], 8.0, &[Some(&[12.0]), None]);
    // n = 0: the loop never runs; the gradient reaches x on other runs, so it is 0.0.
    assert_grad(src, "pow", vec![f(2.0), i(0)], 1.0, &[Some(&[0.0]), None]);
    check_fd(src, "pow", vec![f(1.3), i(5)]);
}

#[test]
fn leaky_relu_takes_either_branch() {
    let src = "relu(x) = x > 0 ? x : 0.01x";
    assert_grad(src, "relu", vec![f(2.0)], 2.0, &[Some(&[1.0])]);
    assert_grad(src, "relu", vec![f(-2.0)], -0.02, &[Some(&[0.01])]);
}

fn vec64(xs: &[f64]) -> Value {
    Value::vector_f64(xs.to_vec())
}

#[test]
fn early_return_from_a_loop() {
    let src = "
function first_big(x, n)
    s = 0.0
    for i in 1:n
        s += x * i
        if s > 10.0
            return s * s
        end
    end
    return s
end";
    // x = 2: s = 2, 6, 12 > 10 at i = 3: value 144; s = 6x, d(s²)/dx = 2 s 6 = 144
    assert_grad(
        src,
        "first_big",
        vec![f(2.0), i(5)],
        144.0,
        &[Some(&[144.0]), None],
    );
    // x = 1: s = 1, 3, 6, 10 (not > 10), 15 at i = 5: return 225, ds/dx = 15, 2·15·15 = 450
    assert_grad(
        src,
        "first_big",
        vec![f(1.0), i(5)],
        225.0,
        &[Some(&[450.0]), None],
    );
    // Never big: s = x(1 + 2) = 3x, ds/dx = 3
    assert_grad(
        src,
        "first_big",
        vec![f(1.0), i(2)],
        3.0,
        &[Some(&[3.0]), None],
    );
    check_fd(src, "first_big", vec![f(0.7), i(6)]);
}

#[test]
fn nested_loops_with_break_and_continue() {
    let src = "
function grid(x, n)
    t = 0.0
    for i in 1:n
        if i == 2
            continue
        end
        for j in 1:n
            if j > i
                break
            end
            t += x^j
        end
    end
    return t
end";
    // n = 3: i = 1: x; i = 2 skipped; i = 3: x + x² + x³. t = 2x + x² + x³.
    // x = 2: t = 4 + 4 + 8 = 16; dt/dx = 2 + 2x + 3x² = 2 + 4 + 12 = 18
    assert_grad(
        src,
        "grid",
        vec![f(2.0), i(3)],
        16.0,
        &[Some(&[18.0]), None],
    );
    check_fd(src, "grid", vec![f(1.3), i(4)]);
}

#[test]
fn recursion() {
    let src = "
function power(x, n)
    if n == 0
        return 1.0
    end
    return x * power(x, n - 1)
end";
    // x⁴ at 1.5: 5.0625, 4x³ = 13.5
    assert_grad(
        src,
        "power",
        vec![f(1.5), i(4)],
        5.0625,
        &[Some(&[13.5]), None],
    );
    check_fd(src, "power", vec![f(0.8), i(5)]);
}

#[test]
fn tuples_and_structs() {
    let src = "
struct P
    a::Float64
    b::Float64
end
norm2(p::P) = p.a^2 + p.b^2
function mix(x, y)
    t = (x, y, 2x)
    p = P(t[1] * t[2], t[3])
    return norm2(p)
end";
    // p = (xy, 2x): x²y² + 4x²; ∂x = 2xy² + 8x, ∂y = 2x²y. At (1, 3): 9 + 4 = 13; 18 + 8 = 26; 6
    assert_grad(
        src,
        "mix",
        vec![f(1.0), f(3.0)],
        13.0,
        &[Some(&[26.0]), Some(&[6.0])],
    );
    check_fd(src, "mix", vec![f(0.4), f(-1.2)]);
}

#[test]
fn closures_capture_and_get_gradients() {
    let src = "
function scaled_sum(a, xs)
    g = x -> a * x^2
    s = 0.0
    for x in xs
        s += g(x)
    end
    return s
end";
    // a Σx² = 2(1 + 4) = 10; ∂a = 5, ∂x = 2 a x = (4, 8)
    assert_grad(
        src,
        "scaled_sum",
        vec![f(2.0), vec64(&[1.0, 2.0])],
        10.0,
        &[Some(&[5.0]), Some(&[4.0, 8.0])],
    );
    check_fd(src, "scaled_sum", vec![f(0.3), vec64(&[1.0, -2.0, 0.5])]);
}

#[test]
fn mutation_of_an_argument_is_differentiated_at_its_entry_value() {
    let src = "
function square_in_place!(v)
    for i in 1:length(v)
        v[i] = v[i]^2
    end
    return sum(v)
end";
    // Σ v² at (1, 2, 3) = 14; gradient 2v = (2, 4, 6) w.r.t. the entry value
    assert_grad(
        src,
        "square_in_place!",
        vec![vec64(&[1.0, 2.0, 3.0])],
        14.0,
        &[Some(&[2.0, 4.0, 6.0])],
    );
    check_fd(src, "square_in_place!", vec![vec64(&[0.5, -1.5, 2.0])]);
}

#[test]
fn aliasing_of_a_mutated_array() {
    let src = "
function alias(x)
    v = [x, 2x]
    w = v
    w[1] = w[1] * v[2]
    return v[1] + w[2]
end";
    // v = (x, 2x); then v[1] = x · 2x = 2x² through the alias; value 2x² + 2x, d/dx = 4x + 2
    assert_grad(src, "alias", vec![f(3.0)], 24.0, &[Some(&[14.0])]);
    check_fd(src, "alias", vec![f(-0.6)]);
}

#[test]
fn loop_left_by_break_counts_its_iterations() {
    let src = "
function until(x, n)
    s = 0.0
    i = 0
    while true
        i += 1
        s += x^i
        if i >= n
            break
        end
    end
    return s
end";
    // n = 3: s = x + x² + x³ = 14 at 2; ds/dx = 1 + 2x + 3x² = 17
    assert_grad(
        src,
        "until",
        vec![f(2.0), i(3)],
        14.0,
        &[Some(&[17.0]), None],
    );
    assert_grad(src, "until", vec![f(2.0), i(1)], 2.0, &[Some(&[1.0]), None]);
    check_fd(src, "until", vec![f(0.9), i(5)]);
}

#[test]
fn the_driver_runs_the_call_again_only_when_it_may_mutate() {
    // The pullback restores what the forward pass overwrote, so a call that mutates its
    // argument is run once more to leave it as the plain call does; one that cannot mutate
    // anything is not (for logsumexp that second run was a third of the gradient's time).
    let reads = "lse(x) = log(sum(exp.(x)))";
    let writes = "
function scale!(x)
    x[1] = 2.0 * x[1]
    return sum(x)
end";
    // Filling an array it made itself changes nothing the caller sees.
    let own = "
function twice(x)
    v = zeros(2)
    v[1] = 2.0 * x[1]
    return sum(v) + sum(x)
end";
    // Another name for the argument is the argument.
    let alias = "
function through_alias(x)
    y = x
    y[1] = 2.0 * x[1]
    return sum(x)
end";
    // A helper filling what its caller made (as the prelude's comprehensions do), or what
    // a callee made, changes nothing the caller sees; one writing the argument does.
    let helpers = "
function fill_sq!(y, x)
    for k in 1:length(x)
        y[k] = x[k]^2
    end
    return y
end
fresh_like(x) = zeros(length(x))
filled(x) = sum(fill_sq!(zeros(length(x)), x))
function made_by_callee(x)
    y = fresh_like(x)
    y[1] = x[1]
    return sum(y)
end
in_place(x) = sum(fill_sq!(x, copy(x)))
# Recursion: a fixpoint, not a refusal.
function countdown(y, x, k)
    k == 0 && return sum(y)
    y[k] = x[k]
    return countdown(y, x, k - 1)
end
rec_fill(x) = countdown(zeros(length(x)), x, length(x))
rec_arg(x) = countdown(x, copy(x), length(x))";
    for (src, name, again) in [
        (reads, "lse", false),
        (writes, "scale!", true),
        (own, "twice", false),
        (alias, "through_alias", true),
        (helpers, "filled", false),
        (helpers, "made_by_callee", false),
        (helpers, "in_place", true),
        (helpers, "rec_fill", false),
        (helpers, "rec_arg", true),
    ] {
        let (inst, prog) = common::run::typed(src, name, &[vec64(&[1.0, 2.0])]);
        let (driver, grad) = zy_ad::gradient_program(&prog, &inst).expect("differentiable");
        let text = zy_ir::print_function(&grad.functions[&driver]);
        assert_eq!(text.contains(&format!("invoke {name}(")), again, "{text}");
    }
}
