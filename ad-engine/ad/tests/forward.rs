//! Forward mode: every frule through the rule tester, and pushforwards of whole programs
//! against finite differences and the reverse gradient, on both engines.

use crate::common;

use common::forward::{check_jvp, jvp};
use common::run::typed;
use expect_test::expect;
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
        // A rule entry always has its pushforward beside its reverse.
        if !rules::has_rule(p) {
            failures.push(format!("{p}: no rule, so no frule"));
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

/// Evaluate `call` in `src` after expanding the differentiation builtins, on the interpreter
/// and the JIT, which must agree bit for bit.
fn eval(src: &str, call: &str) -> Value {
    let src = format!("{src}\nzycall__() = {call}\n");
    let program = common::run::program(&src);
    let (inst, prog) =
        zy_infer::infer_entry(&program, "zycall__", &[]).unwrap_or_else(|e| panic!("{e:?}"));
    let prog = zy_ad::expand(&prog).unwrap_or_else(|e| panic!("{call}: {}", e.message));
    let limits = zy_interp::Limits::default();
    let by_interp = zy_interp::run(&prog, &inst, vec![], &limits)
        .unwrap_or_else(|e| panic!("{call}: {}", e.message));
    let by_jit = zy_codegen::JitSession::new()
        .and_then(|mut jit| jit.compile(&prog, &inst))
        .unwrap_or_else(|e| panic!("{call}: the JIT declined: {e}"))
        .call(&[], &limits)
        .unwrap_or_else(|e| panic!("{call}: {}", e.message));
    assert_eq!(
        show(&by_jit),
        show(&by_interp),
        "{call}: the JIT and the interpreter differ"
    );
    by_interp
}

fn floats(v: &Value) -> Vec<f64> {
    let mut out = Vec::new();
    common::run::leaves(v, &mut out);
    out
}

fn assert_close(got: &[f64], want: &[f64]) {
    let close = |a: f64, b: f64| (a - b).abs() <= 1e-12 * a.abs().max(b.abs()).max(1.0);
    assert!(
        got.len() == want.len() && got.iter().zip(want).all(|(a, b)| close(*a, *b)),
        "got {got:?}, want {want:?}"
    );
}

const F2: &str = "
f2(x) = x[1]^2 * x[2] + sin(x[2])
function energy(x)
    e = 0.0
    for i in 1:length(x)
        e += x[i]^2 * x[1] + sin(x[i]) * x[2]
    end
    return e
end
g(x) = x^2 * sin(x)
";

#[test]
fn pushforward_jvp_and_derivative() {
    let (s2, c2) = (2.0f64.sin(), 2.0f64.cos());
    // d/dx x² sin x = 2x sin x + x² cos x, along 0.5.
    let x = 1.2f64;
    let d = (2.0 * x * x.sin() + x * x * x.cos()) * 0.5;
    assert_close(&floats(&eval(F2, "pushforward(g, 1.2, 0.5)")), &[d]);
    // ∇f2 = [2 x1 x2, x1² + cos x2] = [4, 1 + cos 2] at (1, 2); along (0.5, -1).
    assert_close(
        &floats(&eval(F2, "jvp(f2, [1.0, 2.0], [0.5, -1.0])")),
        &[2.0 + s2, 2.0 - 1.0 - c2],
    );
    // A vector result has a vector derivative.
    assert_close(
        &floats(&eval(F2, "derivative(t -> [t, t^2, sin(t)], 3.0)")),
        &[1.0, 6.0, 3.0f64.cos()],
    );
    // A closure over a captured value; its pushforward takes the capture's zero tangent.
    assert_close(
        &floats(&eval(F2, "(a = 3.0; pushforward(x -> a * x^3, 2.0, 1.0))")),
        &[36.0],
    );
    // Forward mode agrees with the reverse gradient it replaced for `derivative`.
    let fwd = floats(&eval(F2, "derivative(g, 0.7)"));
    let rev = floats(&eval(F2, "gradient(g, 0.7)[1]"));
    assert_eq!(fwd.len(), 1);
    assert_close(&fwd, &rev);
}

const DENSE: &str = "
dense(W, b, x) = tanh.(W * x .+ b)
W2() = [1.0 2.0; 3.0 4.0]
put!(A, i, v) = (A[i] = v; nothing)
function filled(t)
    A = zeros(2)
    put!(A, 1, t)
    return A[1] * t
end
";

/// Values no differentiated argument reaches carry no tangent: the pushforward of `dense` called
/// with a captured `W` and `b` has only `W * ẋ` (one product), no zero tangents of `W` and `b`.
/// Writes still carry tangents: into a captured array, into a fresh array through a callee.
#[test]
fn captured_constants_carry_no_tangent() {
    let call =
        "(W = W2(); b = [0.1, 0.2]; pushforward(t -> dense(W, b, t), [0.5, -0.5], [1.0, 0.0]))";
    // z = W x + b = (-0.4, -0.3), ż = W ẋ = (1, 3), ẏ = (1 - tanh(z)²) ż.
    let (t1, t2) = ((-0.4f64).tanh(), (-0.3f64).tanh());
    assert_close(
        &floats(&eval(DENSE, call)),
        &[1.0 - t1 * t1, 3.0 * (1.0 - t2 * t2)],
    );
    let src = format!("{DENSE}\nzycall__() = {call}\n");
    let program = common::run::program(&src);
    let (_, prog) =
        zy_infer::infer_entry(&program, "zycall__", &[]).unwrap_or_else(|e| panic!("{e:?}"));
    let prog = zy_ad::expand(&prog).unwrap_or_else(|e| panic!("{}", e.message));
    let (inst, f) = prog
        .functions
        .iter()
        .find(|(i, _)| i.name.starts_with("∂→dense"))
        .unwrap_or_else(|| panic!("no pushforward of dense"));
    assert_eq!(&*inst.name, "∂→dense⟨3⟩", "only x carries a tangent");
    let text = zy_ir::print_function(f);
    assert_eq!(
        text.matches("matmul(").count(),
        2,
        "W * x and W * ẋ:\n{text}"
    );
    assert!(!text.contains("zero_tangent"), "{text}");
    // d/dt (A[1] = t; A[1] * 2 + A[2]) = 2, A captured and written.
    assert_close(
        &floats(&eval(
            DENSE,
            "(A = [0.0, 1.0]; pushforward(t -> (A[1] = t; A[1] * 2.0 + A[2]), 1.5, 1.0))",
        )),
        &[2.0],
    );
    // d/dt t² = 2t, through a write by a callee into a fresh array.
    assert_close(&floats(&eval(DENSE, "derivative(filled, 1.5)")), &[3.0]);
}

/// `_pushforward_chunk` (the prelude's `jacobian`): the chunked pushforward of `dense`, one
/// product `W * Ẋ` for all the directions, equals the pushforwards along each column, on both
/// engines; a number's chunk is a vector; a function the chunked transform does not cover (an
/// index into the varying vector) runs the fallback instead.
#[test]
fn chunked_pushforward_equals_the_columns() {
    let setup = "W = W2(); b = [0.1, 0.2]; x = [0.5, -0.5]";
    let chunk = floats(&eval(
        DENSE,
        &format!("({setup}; _pushforward_chunk(t -> dense(W, b, t), x, [1.0 0.5 0.0; 0.0 -1.0 2.0], () -> fill(-1.0, 2, 3)))"),
    ));
    let mut cols = Vec::new();
    for d in ["[1.0, 0.0]", "[0.5, -1.0]", "[0.0, 2.0]"] {
        let call = format!("({setup}; pushforward(t -> dense(W, b, t), x, {d}))");
        cols.extend(floats(&eval(DENSE, &call)));
    }
    assert_close(&chunk, &cols);
    // d/dx x² sin x along 1 and 0.5 at 1.2.
    let x = 1.2f64;
    let d = 2.0 * x * x.sin() + x * x * x.cos();
    assert_close(
        &floats(&eval(
            DENSE,
            "_pushforward_chunk(t -> t^2 * sin(t), 1.2, [1.0, 0.5], () -> [-1.0, -1.0])",
        )),
        &[d, 0.5 * d],
    );
    assert_close(
        &floats(&eval(
            DENSE,
            "_pushforward_chunk(v -> v .* v[1], [1.0, 2.0], [1.0 0.0; 0.0 1.0], () -> fill(-1.0, 2, 2))",
        )),
        &[-1.0; 4],
    );
    let src = format!(
        "{DENSE}\nzycall__() = ({setup}; _pushforward_chunk(t -> dense(W, b, t), x, [1.0 0.0; 0.0 1.0], () -> fill(-1.0, 2, 2)))\n"
    );
    let program = common::run::program(&src);
    let (_, prog) =
        zy_infer::infer_entry(&program, "zycall__", &[]).unwrap_or_else(|e| panic!("{e:?}"));
    let prog = zy_ad::expand(&prog).unwrap_or_else(|e| panic!("{}", e.message));
    let (inst, f) = prog
        .functions
        .iter()
        .find(|(i, _)| i.name.starts_with("∂ᶜdense"))
        .unwrap_or_else(|| panic!("no chunked pushforward of dense"));
    assert_eq!(&*inst.name, "∂ᶜdense⟨3⟩", "only x carries a chunk");
    let text = zy_ir::print_function(f);
    assert_eq!(
        text.matches("matmul(").count(),
        2,
        "W * x and W * Ẋ:\n{text}"
    );
}

#[test]
fn hvp_and_hessian_are_forward_over_reverse() {
    let s2 = 2.0f64.sin();
    // H f2 = [2x2 2x1; 2x1 -sin x2] = [4 2; 2 -sin 2] at (1, 2).
    assert_close(
        &floats(&eval(F2, "hvp(f2, [1.0, 2.0], [0.5, -1.0])")),
        &[0.0, 1.0 + s2],
    );
    assert_close(
        &floats(&eval(F2, "hessian(f2, [1.0, 2.0])")),
        &[4.0, 2.0, 2.0, -s2],
    );
}

/// `hvp` pushes forward the gradient alone: the forward sweep of the inlined driver keeps its
/// loop counter but not the running sum `s` (the value of `f`) nor its tangent, and a gradient
/// entry read back right after it is written is the written value.
#[test]
fn hvp_pushes_forward_the_gradient_alone() {
    let src = "
function chain(x)
    s = 0.0
    for i in 1:length(x)-1
        s += (x[i+1] - x[i]^2)^2 + (1 - x[i])^2
    end
    return s
end
";
    // ∂²/∂x² of (x₂ - x₁²)² + (1 - x₁)² at (1, 2): [12x₁² - 4x₂ + 2  -4x₁; -4x₁  2] =
    // [6 -4; -4 2], along (1, 0).
    assert_close(
        &floats(&eval(src, "hvp(chain, [1.0, 2.0], [1.0, 0.0])")),
        &[6.0, -4.0],
    );
    let src = format!("{src}\nzycall__() = hvp(chain, [1.0, 2.0], [1.0, 0.0])\n");
    let program = common::run::program(&src);
    let (_, prog) =
        zy_infer::infer_entry(&program, "zycall__", &[]).unwrap_or_else(|e| panic!("{e:?}"));
    let prog = zy_ad::expand(&prog).unwrap_or_else(|e| panic!("{}", e.message));
    let (_, f) = prog
        .functions
        .iter()
        .find(|(i, _)| &*i.name == "∂→∇ʰchain")
        .unwrap_or_else(|| panic!("no pushforward of ∇ʰchain"));
    let text = zy_ir::print_function(f);
    assert!(
        !text.contains("# s\n") && !text.contains("# s\u{307}\n"),
        "{text}"
    );
    let reads = text.matches("getindex(").count();
    // x[i+1] and x[i] in the forward sweep (for their bounds checks alone: the dead `x[i]^2`
    // goes, so their tangents are not read), x[i+1], x[i] and their tangents in the reverse
    // sweep, x̄[i] and x̄[i+1] with their tangents once (x̄[i] gets two terms: the second reads
    // the first's write).
    assert_eq!(reads, 10, "{text}");
    // x̄[i] and x̄[i+1] with their tangents written once per iteration (the first of x̄[i]'s two
    // writes is overwritten before any read), and no zero tangent of the seed `s̄ = 1.0`.
    assert_eq!(text.matches("setindex!(").count(), 4, "{text}");
    assert!(!text.contains("# s̄\u{307}"), "{text}");
}

#[test]
fn hessian_agrees_with_reverse_over_reverse() {
    // The oracle: each row the gradient of one entry of the gradient (reverse over reverse).
    let src = format!(
        "{F2}
row(x, i) = gradient(y -> gradient(energy, y)[1][i], x)[1]
"
    );
    let x = "[1.5, -0.4, 0.8]";
    let h = floats(&eval(&src, &format!("hessian(energy, {x})")));
    let oracle: Vec<f64> = (1..=3)
        .flat_map(|i| floats(&eval(&src, &format!("row({x}, {i})"))))
        .collect();
    // hessian is column-major; the oracle lists rows: H is symmetric, so they match.
    assert_close(&h, &oracle);
}

/// A recursive function's forward function is not inlined into the gradient's driver, so
/// forward over reverse meets its `back` closures: their tangents are closures too. Reverse
/// over reverse (the oracle) does not go through recursion: it differentiates the same
/// functions written without it (`rec2`, F2's `energy`).
const REC: &str = "
rpow(x, n) = n == 0 ? 1.0 : x * rpow(x, n - 1)
function rsum(x, i)
    i > length(x) && return 0.0
    return x[i]^2 * x[1] + sin(x[i]) * x[2] + rsum(x, i + 1)
end
rec(v) = rpow(v[1], 3) * v[2] + sin(v[2])
rec2(v) = v[1]^3 * v[2] + sin(v[2])
row(x, i) = gradient(y -> gradient(rec2, y)[1][i], x)[1]
";

#[test]
fn hvp_and_hessian_through_recursion() {
    // rec = v1³ v2 + sin v2: H = [6 v1 v2, 3 v1²; 3 v1², -sin v2] = [18 6.75; 6.75 -sin 2]
    // at (1.5, 2); times (1, -1): (11.25, 6.75 + sin 2).
    let s2 = 2.0f64.sin();
    assert_close(
        &floats(&eval(REC, "hvp(rec, [1.5, 2.0], [1.0, -1.0])")),
        &[11.25, 6.75 + s2],
    );
    let h = floats(&eval(REC, "hessian(rec, [1.5, 2.0])"));
    assert_close(&h, &[18.0, 6.75, 6.75, -s2]);
    // The oracle, reverse over reverse (H is symmetric: its rows are its columns).
    let oracle: Vec<f64> = (1..=2)
        .flat_map(|i| floats(&eval(REC, &format!("row([1.5, 2.0], {i})"))))
        .collect();
    assert_close(&h, &oracle);
    // Recursion over an array, each level reading it: rsum(x, 1) = Σ xᵢ² x₁ + sin(xᵢ) x₂.
    let x = "[1.5, -0.4, 0.8]";
    let src =
        format!("{F2}{REC}energy_row(x, i) = gradient(y -> gradient(energy, y)[1][i], x)[1]\n");
    let h = floats(&eval(&src, &format!("hessian(x -> rsum(x, 1), {x})")));
    let oracle: Vec<f64> = (1..=3)
        .flat_map(|i| floats(&eval(&src, &format!("energy_row({x}, {i})"))))
        .collect();
    assert_close(&h, &oracle);
}

#[test]
fn the_pushforward_keeps_the_cfg_and_pairs_each_value_with_its_tangent() {
    let src = "
function h(x, n)
    r = x
    for i in 1:n
        r = r > 1.0 ? sin(r) * x : r / x
    end
    return r
end
";
    let (inst, prog) = typed(src, "h", &[f(1.5), Value::Int(2)]);
    let globals = zy_ad::GlobalShadows::of(&prog);
    let pf = zy_ad::forward::pushforward(&inst, &prog.functions[&inst], &globals, &prog)
        .unwrap_or_else(|e| panic!("{}", e.message));
    expect![[r#"
        ∂→h(%1::Float64, %2::Float64, %3::Int64) :: Tuple{Float64, Float64}   # x, ẋ, n
        #1:
          %9 = range_length(1, 1, %3) :: Int64
          br #2
        #2:
          %4 = φ(#1 → 0, #6 → %23) :: Int64
          %5 = φ(#1 → %1, #6 → %7) :: Float64   # r
          %6 = φ(#1 → %2, #6 → %8) :: Float64   # ṙ
          %10 = %4 < %9 :: Bool
          br %10 ? #3 : #7
        #3:
          %11 = %5 > 1.0 :: Bool
          br %11 ? #4 : #5
        #4:
          %12 = sin(%5) :: Float64
          %13 = cos(%5) :: Float64
          %14 = %6 * %13 :: Float64
          %15 = %12 * %1 :: Float64
          %16 = %14 * %1 :: Float64
          %17 = %12 * %2 :: Float64
          %18 = %16 + %17 :: Float64
          br #6
        #5:
          %19 = %5 / %1 :: Float64
          %20 = %19 * %2 :: Float64
          %21 = %6 - %20 :: Float64
          %22 = %21 / %1 :: Float64
          br #6
        #6:
          %7 = φ(#4 → %15, #5 → %19) :: Float64 # r
          %8 = φ(#4 → %18, #5 → %22) :: Float64 # ṙ
          %23 = %4 + 1 :: Int64
          br #2
        #7:
          %24 = tuple(%5, %6) :: Tuple{Float64, Float64}
          return %24
    "#]]
    .assert_eq(&zy_ir::print_function(&pf.func));
}

#[test]
fn refusals_are_messages() {
    // A direction of the wrong type.
    let src = "g(x) = 2x\nzycall__() = pushforward(g, 1.0, [1.0])\n";
    let err = zy_infer::infer_entry(&common::run::program(src), "zycall__", &[])
        .map(|_| ())
        .unwrap_err();
    let text = format!("{err:?}");
    assert!(text.contains("needs a direction of type Float64"), "{text}");
}

#[test]
fn an_frule_overrides_forward_mode_only_and_must_return_a_value_and_its_tangent() {
    // The rule's slope is 5 where the definition's is 2x: forward mode reads the rule, reverse
    // mode the definition.
    let src = "
sq(x) = x * x
frule(Δ, ::typeof(sq), x) = (sq(x), 5.0 * Δ[2])
zycall__() = (derivative(sq, 3.0), gradient(sq, 3.0)[1], shifted(3.0))
shifted(x) = pushforward(y -> sq(y) + y, x, 2.0)
";
    let program = common::run::program(src);
    let (inst, prog) =
        zy_infer::infer_entry(&program, "zycall__", &[]).unwrap_or_else(|e| panic!("{e:?}"));
    let prog =
        zy_ad::expand_with_rrules(&program, &prog).unwrap_or_else(|e| panic!("{}", e.message));
    let got = zy_interp::run(&prog, &inst, vec![], &zy_interp::Limits::default())
        .unwrap_or_else(|e| panic!("{}", e.message));
    assert_close(&floats(&got), &[5.0, 6.0, 12.0]);
    // A rule whose tangent is not the result's tangent type.
    let src = "
sq(x) = x * x
frule(Δ, ::typeof(sq), x) = (sq(x), 1)
zycall__() = derivative(sq, 3.0)
";
    let program = common::run::program(src);
    let (_, prog) =
        zy_infer::infer_entry(&program, "zycall__", &[]).unwrap_or_else(|e| panic!("{e:?}"));
    let err = zy_ad::expand_with_rrules(&program, &prog)
        .map(|_| ())
        .unwrap_err();
    assert!(
        err.message
            .contains("the frule for `sq` must return (y, ẏ) of type Tuple{Float64, Float64}"),
        "{}",
        err.message
    );
}

const SHAPES: &str = "
abstract type Shape end
struct Circle <: Shape
    r::Float64
end
struct Square <: Shape
    s::Float64
end
area(c::Circle) = 3.0 * c.r^2
area(s::Square) = s.s^2
pick(k) = Shape[Circle(1.0), Square(2.0)][k]
function last_area(k, a)
    v = Shape[Circle(a), Square(a)]
    s = pick(k)
    i = 1
    while i <= 2
        if a > 2.0 * i
            s = v[i]
        end
        i += 1
    end
    return area(s) * a
end
";

/// A value of an abstract type that no differentiated argument reaches (`pick(k)`, a call of
/// integers only) meeting one that varies (`v[i]`) gets the zero tangent of the member it holds,
/// on both engines: with `s = pick(k)` kept, f = area(s) a, f' = 4 (Square(2)) or 3 (Circle(1));
/// with `s = Square(a)`, f = a³, f' = 3a² = 75 at 5.
#[test]
fn a_value_of_an_abstract_type_gets_its_members_zero_tangent() {
    for (k, a, want) in [(2, 1.0, 4.0), (1, 1.0, 3.0), (2, 5.0, 75.0)] {
        let call = format!("derivative(x -> last_area({k}, x), {a:?})");
        assert_close(&floats(&eval(SHAPES, &call)), &[want]);
    }
    let src = format!("{SHAPES}\nzycall__() = derivative(x -> last_area(2, x), 1.0)\n");
    let program = common::run::program(&src);
    let (_, prog) =
        zy_infer::infer_entry(&program, "zycall__", &[]).unwrap_or_else(|e| panic!("{e:?}"));
    let prog = zy_ad::expand(&prog).unwrap_or_else(|e| panic!("{}", e.message));
    let (_, f) = prog
        .functions
        .iter()
        .find(|(i, _)| i.name.starts_with("∂→last_area"))
        .unwrap_or_else(|| panic!("no pushforward of last_area"));
    let text = zy_ir::print_function(f);
    assert!(
        text.contains(r#"= zero_tangent(%19) :: Union{var"Tangent{Shape}""#),
        "{text}"
    );
}
