//! `checkpointed(f, args...)`: the gradient through a recomputed call is the plain call's, bit
//! for bit, on both engines; the forward pass keeps the arguments only; a call that mutates
//! its arguments is recomputed from their entry values.

use crate::common;

use common::run::{check_fd_prog, deep_copy, gradient, typed};
use zy_interp::{run, show, Limits, Value};
use zy_ir::Type;

fn f(x: f64) -> Value {
    Value::F64(x)
}

fn vec64(xs: &[f64]) -> Value {
    Value::vector_f64(xs.to_vec())
}

fn mat(rows: usize, cols: usize, col_major: &[f64]) -> Value {
    Value::matrix_f64(rows, cols, col_major.to_vec()).expect("a matrix of that shape")
}

/// What [`by_both_engines`] runs.
#[derive(Clone, Copy, PartialEq)]
enum Run {
    Value,
    Gradient,
}

/// The value or gradient of `name` in `src` (differentiation builtins expanded) through the
/// JIT, shown; the interpreter's must be the same.
fn by_both_engines(src: &str, name: &str, args: &[Value], what: Run) -> String {
    let (inst, prog) = typed(src, name, args);
    let prog = zy_ad::expand(&prog).unwrap_or_else(|e| panic!("{name}: {}", e.message));
    let (driver, prog) = match what {
        Run::Value => (std::sync::Arc::new(inst.as_ref().clone()), prog),
        Run::Gradient => zy_ad::gradient_program(&prog, &inst)
            .unwrap_or_else(|e| panic!("{name}: {}", e.message)),
    };
    let copies = || args.iter().map(deep_copy).collect::<Vec<_>>();
    let limits = Limits::default();
    let by_interp = run(&prog, &driver, copies(), &limits)
        .map(|v| show(&v))
        .unwrap_or_else(|e| panic!("{name}: {}", e.message));
    let compiled = zy_codegen::JitSession::new()
        .and_then(|mut jit| jit.compile(&prog, &driver))
        .unwrap_or_else(|e| panic!("{name}: the JIT declined: {e}"));
    let by_jit = compiled
        .call(&copies(), &limits)
        .map(|v| show(&v))
        .unwrap_or_else(|e| panic!("{name}: {}", e.message));
    assert_eq!(
        by_jit, by_interp,
        "{name}: the JIT and the interpreter differ"
    );
    by_interp
}

/// `plain` and `ck` (the same computation with a call checkpointed) have the same value and
/// gradient to the bit (`show` prints the shortest round-tripping decimal) on both engines,
/// which agree with finite differences.
fn same_as_plain(src: &str, args: &[Value]) {
    let plain = by_both_engines(src, "plain", args, Run::Gradient);
    let ck = by_both_engines(src, "ck", args, Run::Gradient);
    assert_eq!(ck, plain, "checkpointed and plain gradients differ");
    let (inst, prog) = typed(src, "ck", args);
    let prog = zy_ad::expand(&prog).unwrap_or_else(|e| panic!("{}", e.message));
    check_fd_prog(&prog, &inst, args.to_vec());
}

#[test]
fn scalars() {
    let src = "
g(x, y) = sin(x) * y + x^2 / y
plain(x, y) = 2.0 * g(x, y) + g(y, x)
ck(x, y) = 2.0 * checkpointed(g, x, y) + checkpointed(g, y, x)";
    same_as_plain(src, &[f(0.7), f(1.3)]);
    // d/dx [2(sin x · y + x²/y) + sin y · x + y²/x] at (1, 2): 2(2 cos 1 + 1) + sin 2 - 4
    let (_, g) = gradient(src, "ck", vec![f(1.0), f(2.0)]).unwrap();
    let want = 2.0 * (2.0 * 1f64.cos() + 1.0) + 2f64.sin() - 4.0;
    let Value::Tuple(gs) = &g else { panic!() };
    assert!(
        (gs[0].as_f64().unwrap() - want).abs() < 1e-12,
        "{}",
        show(&g)
    );
}

#[test]
fn arrays_and_loops_inside_the_checkpointed_call() {
    let src = "
function energy(w, x)
    e = 0.0
    for i in 1:length(x)
        e += w[i] * x[i]^2 + sin(e)
    end
    return e
end
layer(W, x) = tanh.(W * x)
plain(W, w, x) = energy(w, x) + sum(layer(W, x) .^ 2)
ck(W, w, x) = checkpointed(energy, w, x) + sum(checkpointed(layer, W, x) .^ 2)";
    let w = mat(2, 2, &[0.5, -0.3, 0.2, 0.8]);
    same_as_plain(src, &[w, vec64(&[1.0, 0.5]), vec64(&[0.3, -0.7])]);
}

#[test]
fn structs_and_closures() {
    let src = "
struct P
    a::Float64
    b::Float64
end
mutable struct Acc
    s::Float64
end
h(p, x) = p.a * x + p.b * x^2
function bump(acc, x)
    acc.s += x^2
    return acc.s * x
end
function plain(a, x)
    p = P(a, 2a)
    acc = Acc(a)
    k = y -> a * sin(y) * p.b
    return h(p, x) + k(x) + bump(acc, x) + acc.s
end
function ck(a, x)
    p = P(a, 2a)
    acc = Acc(a)
    k = y -> a * sin(y) * p.b
    return checkpointed(h, p, x) + checkpointed(k, x) + checkpointed(bump, acc, x) + acc.s
end";
    same_as_plain(src, &[f(0.6), f(1.1)]);
}

#[test]
fn a_mutated_argument_is_recomputed_from_its_entry_value() {
    // The second call sees the first call's writes; each pullback restores what its call saw.
    let src = "
function scale!(v, c)
    for i in 1:length(v)
        v[i] = v[i] * c + sin(v[i])
    end
    return sum(v)
end
plain(v, c) = scale!(v, c) * scale!(v, c) + v[1]
ck(v, c) = checkpointed(scale!, v, c) * checkpointed(scale!, v, c) + v[1]";
    same_as_plain(src, &[vec64(&[0.5, -1.0, 2.0]), f(1.5)]);
    // The arguments end as the plain call leaves them.
    let (inst, prog) = typed(src, "ck", &[vec64(&[1.0]), f(2.0)]);
    let v = vec64(&[1.0]);
    gradient(src, "ck", vec![v.clone(), f(2.0)]).unwrap();
    let after_plain = vec64(&[1.0]);
    run(
        &prog,
        &inst,
        vec![after_plain.clone(), f(2.0)],
        &Limits::default(),
    )
    .unwrap();
    assert_eq!(show(&v), show(&after_plain));
}

#[test]
fn checkpointed_steps_of_a_loop() {
    let src = "
step(x, h) = x + h * sin(x) * x
function plain(x, h)
    for i in 1:20
        x = step(x, h)
    end
    return x
end
function ck(x, h)
    for i in 1:20
        x = checkpointed(step, x, h)
    end
    return x
end";
    same_as_plain(src, &[f(0.4), f(0.1)]);
}

#[test]
fn nested_inside_gradient_and_under_hessian() {
    let src = "
g(x) = x[1]^2 * x[2] + sin(x[1] * x[2])
plain_f(x) = g(x) * 2.0
ck_f(x) = checkpointed(g, x) * 2.0
hplain(x) = hessian(plain_f, x)
hck(x) = hessian(ck_f, x)
plain(a) = gradient(plain_f, [a, 1.2])[1][2] + derivative(y -> derivative(z -> plain_f([z, y]), a), 0.5)
ck(a) = gradient(ck_f, [a, 1.2])[1][2] + derivative(y -> derivative(z -> ck_f([z, y]), a), 0.5)";
    let x = [vec64(&[0.3, 1.2])];
    let h = by_both_engines(src, "hck", &x, Run::Value);
    assert_eq!(h, by_both_engines(src, "hplain", &x, Run::Value));
    // ∂²/∂x1∂x2 of 2(x1² x2 + sin(x1 x2)) = 2(2 x1 + cos(x1 x2) - x1 x2 sin(x1 x2))
    let (x1, x2) = (0.3f64, 1.2f64);
    let want = 2.0 * (2.0 * x1 + (x1 * x2).cos() - x1 * x2 * (x1 * x2).sin());
    assert!(h.contains(&format!("{want}")), "{h} vs {want}");
    // Differentiated again: a third derivative through the recomputation.
    same_as_plain(src, &[f(0.8)]);
}

#[test]
fn the_forward_pass_keeps_the_arguments_only() {
    // A call of a function with a loop keeps, on the plain tape, the callee's `back` (whose
    // tape holds one entry per iteration); checkpointed, it keeps the two arguments.
    let src = "
function pow(x, n)
    r = 1.0
    for i in 1:n
        r *= x
    end
    return r
end
ck(x, n) = checkpointed(pow, x, n) + 1.0";
    let (inst, prog) = typed(src, "ck", &[f(2.0), Value::Int(3)]);
    let (_, prog) = zy_ad::gradient_program(&prog, &inst).unwrap();
    let fwd = prog
        .functions
        .iter()
        .find(|(i, _)| &*i.name == "checkpointed⁺")
        .map(|(_, f)| f)
        .expect("the checkpointed forward function");
    let Type::Pullback(sig) = fwd.ret.field_types().unwrap().last().unwrap().clone() else {
        panic!("{}", fwd.ret)
    };
    let pb = prog
        .functions
        .iter()
        .find(|(i, _)| &*i.name == "checkpointed⁻" && i.args == sig)
        .map(|(_, f)| f)
        .unwrap();
    let tape = pb.ty(pb.args()[0]).to_string();
    assert_eq!(tape, "Tuple{typeof(pow), Float64, Int64}");
}

#[test]
fn gradient_of_ck_matches_the_hand_derived_value() {
    // d/dx (x³ + 1) = 3x² = 12 at 2
    let src = "
function pow(x, n)
    r = 1.0
    for i in 1:n
        r *= x
    end
    return r
end
ck(x, n) = checkpointed(pow, x, n) + 1.0";
    let (y, g) = gradient(src, "ck", vec![f(2.0), Value::Int(3)]).unwrap();
    assert_eq!(show(&y), "9.0");
    assert_eq!(show(&g), "(12.0, nothing)");
}

#[test]
fn a_builtin_can_be_checkpointed() {
    let src = "ck(x) = checkpointed(sin, x) * x";
    // d/dx x sin x = sin x + x cos x
    let (_, g) = gradient(src, "ck", vec![f(0.5)]).unwrap();
    let want = 0.5f64.sin() + 0.5 * 0.5f64.cos();
    assert_eq!(show(&g), format!("({want},)"));
}

#[test]
fn a_call_that_writes_a_global_is_refused() {
    let src = "
const A = [1.0]
function bump!(x)
    A[1] = A[1] + x
    return x * A[1]
end
ck(x) = checkpointed(bump!, x)";
    let (inst, prog) = typed(src, "ck", &[f(0.5)]);
    let e = zy_ad::gradient_program(&prog, &inst).unwrap_err();
    assert!(
        e.message
            .contains("`checkpointed` of a function that may write to a global"),
        "{}",
        e.message
    );
    // At the call: `checkpointed(bump!, x)` on the last line.
    let at = src.rfind("checkpointed").unwrap();
    assert_eq!(
        (e.span.start as usize, e.span.end as usize),
        (at, src.len())
    );
    // Running it is fine: only its derivative is refused.
    let y = run(&prog, &inst, vec![f(0.5)], &Limits::default()).unwrap();
    assert_eq!(show(&y), "0.75");
}

#[test]
fn a_result_that_may_be_an_argument_is_refused() {
    // Plain, `y` is `x`, so the write `y[1] = 2.0` cuts the gradient of `x[1]`; a fresh shadow
    // for `y` would miss that.
    let src = "
pass(v) = v
function ck(x)
    y = checkpointed(pass, x)
    y[1] = 2.0
    return x[1] * x[2]
end";
    let (inst, prog) = typed(src, "ck", &[vec64(&[1.0, 3.0])]);
    let e = zy_ad::gradient_program(&prog, &inst).unwrap_err();
    assert!(
        e.message
            .contains("`checkpointed` of a function that may return its argument"),
        "{}",
        e.message
    );
    let at = src.find("checkpointed").unwrap();
    assert_eq!(e.span.start as usize, at);
    // A result built from the arguments, not one of them, is fine.
    let ok = "
twice(v) = 2.0 .* v
plain(x) = sum(twice(x) .* x)
ck(x) = sum(checkpointed(twice, x) .* x)";
    same_as_plain(ok, &[vec64(&[1.0, 3.0])]);
}

#[test]
fn a_tuple_component_that_is_an_argument_keeps_its_shadow() {
    // The second component is `v` itself (the state a checkpointed loop chunk threads
    // through): its shadow is `v`'s, so a gradient through it, and a write into it after the
    // call, reach `x` as in the plain call.
    let src = "
both(v, c) = (c .* v, v, c)
function plain(x, c)
    (y, z, d) = both(x, c)
    s = sum(y .* z) * d
    z[1] = z[1] * d
    return s + z[1] * z[2]
end
function ck(x, c)
    (y, z, d) = checkpointed(both, x, c)
    s = sum(y .* z) * d
    z[1] = z[1] * d
    return s + z[1] * z[2]
end";
    same_as_plain(src, &[vec64(&[1.0, 3.0]), f(0.7)]);
}

/// What a watched interpreter run of a gradient saw: the `checkpointed` tapes alive at once
/// (a `checkpointed⁺` call's until its `checkpointed⁻` returned), and the loop body's `sin`
/// run without a tape (in a primal function) and with one (in a forward function, `…⁺`).
#[derive(Default, Debug)]
struct Tapes {
    live: usize,
    peak: usize,
    advanced: usize,
    taped: usize,
}

impl zy_interp::Watch for Tapes {
    fn invoke(&mut self, callee: &zy_ir::Function, _: &[Value]) {
        if &*callee.name == "checkpointed⁺" {
            self.live += 1;
            self.peak = self.peak.max(self.live);
        }
    }
    fn returned(&mut self, callee: &zy_ir::Function, _: &Value) {
        if &*callee.name == "checkpointed⁻" {
            self.live -= 1;
        }
    }
    fn before(&mut self, step: zy_interp::Step<'_>, _: &[Value]) {
        if step.prim == zy_ir::Prim::Sin {
            match step.func.name.ends_with('⁺') {
                true => self.taped += 1,
                false => self.advanced += 1,
            }
        }
    }
    fn after(&mut self, _: zy_interp::Step<'_>, _: &[Value], _: &Value) {}
}

/// The prelude's `_revolve_beta` and `_revolve_split` (these tests run without the prelude).
fn revolve_prelude() -> &'static str {
    let base = include_str!("../../../analysis/hir/prelude/Base.jl");
    let start = base
        .find("function _revolve_beta")
        .expect("_revolve_beta in Base.jl");
    let split = base
        .find("function _revolve_split")
        .expect("_revolve_split in Base.jl");
    let end = split + base[split..].find("\nend\n").expect("its end") + 5;
    &base[start..end]
}

#[test]
fn a_revolve_loop_runs_the_optimal_schedule() {
    // Per iteration, one `sin` without a tape as often as Revolve's optimal schedule advances
    // it, and one taped; the `checkpointed` tapes alive at once (each one kept state) are at
    // most `s + t - 1`, `t` the repetition number: Revolve's `s`, plus one for each
    // recomputed part that keeps its own start again.
    for s in 1..=5 {
        let src = revolve_prelude().to_string()
            + &format!(
                "
function ck(x, n)
    # zy: checkpoint snapshots={s}
    for i in 1:n
        x = sin(x) * 1.5
    end
    return x
end"
            );
        let (inst, prog) = typed(&src, "ck", &[f(0.3), Value::Int(1)]);
        let prog = zy_ad::expand(&prog).unwrap();
        let (driver, prog) = zy_ad::gradient_program(&prog, &inst).unwrap();
        for n in 0..=60 {
            let mut t = Tapes::default();
            let args = vec![f(0.3), Value::Int(n as i64)];
            zy_interp::run_watched(&prog, &driver, args, &Limits::default(), &mut t).unwrap();
            let t_rep = zy_ad::revolve::repetitions(n, s);
            assert_eq!(
                t.advanced,
                zy_ad::revolve::min_advances(n, s),
                "n = {n}, s = {s}"
            );
            assert_eq!(t.taped, n, "n = {n}, s = {s}");
            assert!(t.peak < s + t_rep.max(1), "n = {n}, s = {s}: {t:?}");
        }
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(16))]

    /// A `snapshots=K` loop over random lengths and snapshot counts: its gradient is the
    /// plain loop's to the bit on both engines (an array read, two numbers carried).
    #[test]
    fn a_revolve_loop_is_the_plain_loop_to_the_bit(
        w in proptest::collection::vec(-2.0f64..2.0, 0..40),
        s in 1u32..7,
        c in 0.5f64..1.2,
    ) {
        let body = "
    y = 0.0
    t = c
    for i in 1:length(w)
        y = y + w[i] * t
        t = sin(t) * c
    end
    return y
end";
        let annotated = body.replacen("    for", &format!("    # zy: checkpoint snapshots={s}\n    for"), 1);
        let src = format!(
            "{}\nfunction ck(w, c){annotated}\nfunction plain(w, c){body}",
            revolve_prelude()
        );
        let args = [vec64(&w), f(c)];
        let plain = by_both_engines(&src, "plain", &args, Run::Gradient);
        let ck = by_both_engines(&src, "ck", &args, Run::Gradient);
        proptest::prop_assert_eq!(ck, plain);
    }
}

#[test]
fn the_prelude_split_is_revolves() {
    // The split that `# zy: checkpoint snapshots=K` loops compute at run time is the one the
    // optimal offline schedule uses.
    let src = revolve_prelude().to_string() + "\nsp(l, s) = _revolve_split(l, s)";
    let (inst, prog) = typed(&src, "sp", &[Value::Int(2), Value::Int(1)]);
    for s in 1..=12 {
        for l in (2..=300).chain([1_000_000, 123_456_789]) {
            let args = vec![Value::Int(l as i64), Value::Int(s as i64)];
            let got = run(&prog, &inst, args, &Limits::default()).unwrap();
            let want = zy_ad::revolve::split(l, s);
            assert_eq!(show(&got), want.to_string(), "l = {l}, s = {s}");
        }
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(12))]

    /// A `while` loop under `snapshots=K` (chunks of 1, 2, 4, ... iterations, each by the
    /// binomial schedule) over random trip counts: the plain loop's gradient to the bit on
    /// both engines.
    #[test]
    fn a_revolve_while_loop_is_the_plain_loop_to_the_bit(
        n in 0i64..70,
        s in 1u32..6,
        c in 0.5f64..1.2,
    ) {
        let body = "
    y = 0.0
    i = 0
    while i < n
        i += 1
        y = y + sin(x * i) * c
        x = x * c
    end
    return y + x
end";
        let annotated = body.replacen("    while", &format!("    # zy: checkpoint snapshots={s}\n    while"), 1);
        let src = format!(
            "{}\nfunction ck(x, c, n){annotated}\nfunction plain(x, c, n){body}",
            revolve_prelude()
        );
        let args = [f(0.7), f(c), Value::Int(n)];
        let plain = by_both_engines(&src, "plain", &args, Run::Gradient);
        let ck = by_both_engines(&src, "ck", &args, Run::Gradient);
        proptest::prop_assert_eq!(ck, plain);
    }
}

#[test]
fn a_long_revolve_loop_schedules_blocks_of_iterations() {
    // 9,000 iterations are 3,000 blocks of 3, the schedule's steps: still the plain gradient to
    // the bit on both engines.
    let body = "
    y = 0.0
    t = c
    for i in 1:length(w)
        y = y + w[i] * t
        t = sin(t) * c
    end
    return y
end";
    let annotated = body.replacen("    for", "    # zy: checkpoint snapshots=6\n    for", 1);
    let src = format!(
        "{}\nfunction ck(w, c){annotated}\nfunction plain(w, c){body}",
        revolve_prelude()
    );
    let w: Vec<f64> = (0..9000).map(|i| (0.37 * i as f64).sin()).collect();
    let args = [vec64(&w), f(0.9)];
    let plain = by_both_engines(&src, "plain", &args, Run::Gradient);
    let ck = by_both_engines(&src, "ck", &args, Run::Gradient);
    assert_eq!(ck, plain);
}
