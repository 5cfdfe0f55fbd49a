//! Forward mode: every frule through the rule tester, and pushforwards of whole programs
//! against finite differences and the reverse gradient, on both engines.

mod common;

use common::forward::{check_jvp, jvp};
use common::run::typed;
use zy_ad::rules;
use zy_interp::{show, Value};
use zy_ir::{Diff, Prim};

fn panic_text(e: &Box<dyn std::any::Any + Send>) -> String {
    e.downcast_ref::<String>()
        .cloned()
        .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_default()
}

/// Every primitive the table says is differentiable has a pushforward, and it passes every
/// test case of its rule on both engines. Every failure is listed.
#[test]
fn every_primitive_has_an_frule() {
    let mut failures = Vec::new();
    for &p in Prim::ALL {
        if p.info().diff != Diff::Rule {
            continue;
        }
        if !rules::has_frule(p) {
            failures.push(format!("{p}: no frule"));
            continue;
        }
        for case in rules::test_cases(p) {
            let run = || common::rule::test_frule(p, &case);
            if let Err(e) = std::panic::catch_unwind(std::panic::AssertUnwindSafe(run)) {
                failures.push(format!("{p} at {case:?}: {}", panic_text(&e)));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

fn f(x: f64) -> Value {
    Value::F64(x)
}

fn v(xs: &[f64]) -> Value {
    Value::vector_f64(xs.to_vec())
}

/// Check `name(args...)` in `src` (after expanding nested differentiation).
fn check(src: &str, name: &str, args: &[Value]) {
    let (inst, prog) = typed(src, name, args);
    let prog = zy_ad::expand(&prog).unwrap_or_else(|e| panic!("{name}: {}", e.message));
    check_jvp(&prog, &inst, args);
}

#[test]
fn scalar_code_with_branches_and_loops() {
    let src = "
function pow(x, n)
    r = 1.0
    for i in 1:n
        r *= x
    end
    return r
end
function g(x, y)
    if x > y
        return sin(x) * y
    elseif x < 0.0
        return exp(x) / y
    end
    z = 0.0
    while z < 3.0
        z += abs(x) + 0.5
    end
    return z * x - y^2
end
";
    check(src, "pow", &[f(1.3), Value::Int(5)]);
    check(src, "g", &[f(2.0), f(0.5)]);
    check(src, "g", &[f(-1.0), f(2.0)]);
    check(src, "g", &[f(0.2), f(1.0)]);
}

#[test]
fn data_structures_closures_calls_and_recursion() {
    let src = "
struct Point
    x::Float64
    y::Float64
end
mutable struct Acc
    total::Float64
end
norm2(p) = p.x^2 + p.y^2
fact(x, n) = n == 0 ? 1.0 : x * fact(x, n - 1)
function h(a, b)
    p = Point(a, b * a)
    t = (a, 2.0 * b, 3)
    acc = Acc(0.0)
    acc.total += norm2(p) + t[2]
    r = Ref(a)
    r[] = r[] * b
    k = y -> y * a + b
    return acc.total + k(r[]) + fact(a, 3)
end
";
    check(src, "h", &[f(1.2), f(-0.7)]);
    check(src, "fact", &[f(0.9), Value::Int(4)]);
}

#[test]
fn arrays_elementwise_products_sums_and_writes() {
    let src = "
function loss(W, x, b)
    y = W * x .+ b
    z = tanh.(y)
    s = sum(z .* z) + dot(x, x) + maximum(y) + prod(x)
    v = zeros(length(x))
    for i in 1:length(x)
        v[i] = x[i]^2 + W[1, i]
    end
    c = copy(v)
    c[1] += s
    return sum(c) + first(v) * last(x) + (x' * (W' * b))
end
";
    let w = zy_interp::Value::matrix_f64(2, 3, vec![0.5, -0.3, 0.8, 0.1, -0.6, 0.4])
        .expect("a 2×3 matrix");
    check(src, "loss", &[w, v(&[1.0, -0.5, 2.0]), v(&[0.2, -0.1])]);
}

#[test]
fn nested_gradient_is_forward_over_reverse() {
    // d/dx of (d/dx x³ sin x) along the direction: the pushforward of a driver.
    let src = "
f(x) = x^3 * sin(x)
df(x) = derivative(f, x)
";
    check(src, "df", &[f(0.8)]);
}

#[test]
fn a_vector_result_has_a_vector_tangent() {
    let src = "
m(x) = [sin(x[1]) * x[2], x[1] + x[2], 2.0]
";
    let args = [v(&[0.5, 1.5])];
    let (inst, prog) = typed(src, "m", &args);
    let (y, dy) = jvp(&prog, &inst, &args);
    let (d0, d1) = (common::forward::direction(0), common::forward::direction(1));
    // J d with J = [cos(x₁)x₂ sin(x₁); 1 1; 0 0].
    let want = [0.5f64.cos() * 1.5 * d0 + 0.5f64.sin() * d1, d0 + d1, 0.0];
    let got = match &dy {
        Value::Array(a) => a.borrow().data.to_f64(),
        other => panic!("ẏ = {}", show(other)),
    };
    assert_eq!(show(&y), show(&v(&[0.5f64.sin() * 1.5, 2.0, 2.0])));
    for (g, w) in got.iter().zip(want) {
        assert!((g - w).abs() <= 1e-14, "ẏ = {got:?}, want {want:?}");
    }
}
