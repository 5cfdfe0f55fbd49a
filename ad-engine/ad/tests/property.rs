//! Random programs built from the scalar rules, with branches and loops, differentiated (in
//! reverse and in forward mode) and compared with finite differences. Branch conditions depend only on the Int argument and
//! the loop counter, so the functions are smooth in the Float64 arguments; products and cubes
//! squash one factor with `tanh` so values stay moderate and finite differences meaningful.

use crate::common;

use proptest::prelude::*;
use zy_interp::Value;

/// Expressions over `x`, `y` and constants, and also `a`, `b` once those are assigned.
fn expr_over(locals: bool) -> impl Strategy<Value = String> {
    let mut names = vec!["x", "y", "0.5", "1.5"];
    if locals {
        names.extend(["a", "b"]);
    }
    let leaf = proptest::sample::select(names).prop_map(str::to_string);
    leaf.prop_recursive(4, 24, 2, |inner| {
        prop_oneof![
            (inner.clone(), inner.clone()).prop_map(|(p, q)| format!("({p} + {q})")),
            (inner.clone(), inner.clone()).prop_map(|(p, q)| format!("({p} - {q})")),
            (inner.clone(), inner.clone()).prop_map(|(p, q)| format!("(tanh({p}) * {q})")),
            (inner.clone(), inner.clone()).prop_map(|(p, q)| format!("({p} / (1.0 + ({q})^2))")),
            inner.clone().prop_map(|p| format!("sin({p})")),
            inner.clone().prop_map(|p| format!("cos({p})")),
            inner.clone().prop_map(|p| format!("tanh({p})")),
            inner.clone().prop_map(|p| format!("sqrt(1.0 + ({p})^2)")),
            inner.clone().prop_map(|p| format!("exp(tanh({p}))")),
            inner.prop_map(|p| format!("((tanh({p}))^3)")),
        ]
    })
}

fn expr() -> impl Strategy<Value = String> {
    expr_over(true)
}

fn program() -> impl Strategy<Value = String> {
    (
        expr_over(false),
        expr_over(false),
        expr(),
        expr(),
        expr(),
        expr(),
        expr(),
        0..4i64,
    )
        .prop_map(|(e1, e2, e3, e4, e5, e6, e7, k)| {
            format!(
                "function p(x, y, n)
    a = {e1}
    b = {e2}
    if n > {k}
        a = {e3}
    else
        b = {e4}
    end
    for i in 1:n
        if i % 2 == 0
            a = {e5}
        else
            b = {e6}
        end
    end
    return {e7}
end"
            )
        })
}

/// One bounded update of `a` or `b` (so a deep nest of them stays moderate).
fn update() -> impl Strategy<Value = String> {
    proptest::sample::select(vec![
        "a = sin(a) + 0.5 * b",
        "b = tanh(a * b) + 0.5 * x",
        "a = 0.9 * a - 0.3 * cos(b)",
        "b = sqrt(1.0 + a^2) * 0.5 - 0.25 * y",
        "a = exp(tanh(a)) * tanh(b)",
        "b = a / (1.0 + b^2)",
        "a = tanh(a)^3 + x * y",
    ])
    .prop_map(str::to_string)
}

/// One level of a nest: its kind, a threshold on `n`, and the updates of its two arms.
type Level = (u8, i64, String, String);

/// The statements of `levels` nested one inside the next, at indentation `depth`: an `if`, an
/// `elseif` chain, a loop of two iterations, an `if` with an early `return`, a `try` whose body
/// may throw.
fn nest(levels: &[Level], depth: usize) -> String {
    let pad = "    ".repeat(depth + 1);
    let Some(((kind, k, taken, other), rest)) = levels.split_first() else {
        return format!("{pad}a = a + 0.5 * b\n");
    };
    let inner = nest(rest, depth + 1);
    match kind {
        0 => format!(
            "{pad}if n > {k}\n{pad}    {taken}\n{inner}{pad}else\n{pad}    {other}\n{pad}end\n"
        ),
        1 => format!(
            "{pad}if n == {k}\n{pad}    {other}\n{pad}elseif n > {k}\n{pad}    {taken}\n{inner}{pad}else\n{pad}    b = b * 0.5\n{pad}end\n"
        ),
        2 => format!("{pad}for j in 1:2\n{pad}    {taken}\n{inner}{pad}end\n"),
        3 => format!(
            "{pad}if n > {k}\n{pad}    {taken}\n{pad}    if n == {k} + 2\n{pad}        return a * b\n{pad}    end\n{inner}{pad}end\n"
        ),
        _ => format!(
            "{pad}try\n{pad}    {taken}\n{pad}    if n == {k}\n{pad}        error(\"deep\")\n{pad}    end\n{inner}{pad}catch\n{pad}    {other}\n{pad}end\n"
        ),
    }
}

/// Functions nesting five to ten levels deep (past the depth whose joins record their branch on
/// the shared stack), branching on the Int argument only.
fn deep_program() -> impl Strategy<Value = String> {
    proptest::collection::vec((0..5u8, 0..6i64, update(), update()), 5..=10).prop_map(|levels| {
        format!(
            "function p(x, y, n)\n    a = x\n    b = y\n{}    return a + b\nend",
            nest(&levels, 0)
        )
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 8, ..ProptestConfig::default() })]
    /// Deep random nests: the gradient against finite differences, the JIT's gradient equal to
    /// the interpreter's, and the pushforward against both.
    #[test]
    fn deep_nests_match_finite_differences(src in deep_program(), x in -1.5..1.5f64, y in -1.5..1.5f64, n in 0..8i64) {
        let args = vec![Value::F64(x), Value::F64(y), Value::Int(n)];
        common::run::check_fd(&src, "p", args.clone());
        expanded(&src, &format!("gradient(p, {x:?}, {y:?}, {n})"));
        let (inst, prog) = common::run::typed(&src, "p", &args);
        common::forward::check_jvp(&prog, &inst, &args);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]
    #[test]
    fn random_programs_match_finite_differences(src in program(), x in -1.5..1.5f64, y in -1.5..1.5f64, n in 0..4i64) {
        common::run::check_fd(&src, "p", vec![Value::F64(x), Value::F64(y), Value::Int(n)]);
    }

    /// Forward mode on the same programs: the pushforward along a direction against finite
    /// differences and the reverse gradient, the JIT against the interpreter.
    #[test]
    fn random_programs_pushforward_matches(src in program(), x in -1.5..1.5f64, y in -1.5..1.5f64, n in 0..4i64) {
        let args = [Value::F64(x), Value::F64(y), Value::Int(n)];
        let (inst, prog) = common::run::typed(&src, "p", &args);
        common::forward::check_jvp(&prog, &inst, &args);
    }

    /// Chunked forward mode on the same programs: three directions of `x` pushed forward at
    /// once (a chunk of a number is a vector) equal the three pushforwards one at a time, the
    /// JIT equal to the interpreter; the fallback (NaNs) must not run.
    #[test]
    fn random_programs_chunked_pushforward_matches(src in program(), x in -1.5..1.5f64, y in -1.5..1.5f64, n in 0..4i64) {
        let g = format!("t -> p(t, {y:?}, {n})");
        let chunk = expanded(&src, &format!("_pushforward_chunk({g}, {x:?}, [1.0, 0.5, -2.0], () -> fill(NaN, 3))"));
        for (j, d) in [1.0, 0.5, -2.0].iter().enumerate() {
            let one = expanded(&src, &format!("pushforward({g}, {x:?}, {d:?})"));
            let close = (chunk[j] - one[0]).abs() <= 1e-12 * chunk[j].abs().max(1.0);
            prop_assert!(close, "direction {}: chunk {:?}, one at a time {:?}\n{}", d, chunk, one, src);
        }
    }
}

/// The numbers of `call` in `src` after the differentiation builtins are expanded, run on the
/// interpreter and the JIT, which must agree bit for bit.
fn expanded(src: &str, call: &str) -> Vec<f64> {
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
    let (mut a, mut b) = (Vec::new(), Vec::new());
    common::run::leaves(&by_interp, &mut a);
    common::run::leaves(&by_jit, &mut b);
    let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    assert_eq!(
        bits(&a),
        bits(&b),
        "{call}: the JIT and the interpreter differ"
    );
    a
}
