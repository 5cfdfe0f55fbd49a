//! Random programs built from the scalar rules, with branches and loops, differentiated (in
//! reverse and in forward mode) and compared with finite differences. Branch conditions depend only on the Int argument and
//! the loop counter, so the functions are smooth in the Float64 arguments; products and cubes
//! squash one factor with `tanh` so values stay moderate and finite differences meaningful.

mod common;

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
}
