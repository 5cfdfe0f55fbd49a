//! Random programs (integer and float arithmetic, division by possibly zero, domain errors,
//! loops, early returns, tuples, possibly out-of-bounds indexing) run in the JIT and in the
//! interpreter, primal and gradient: same value or same error at the same span. Their typed,
//! forward, pullback and driver IR prints and reads back to the same text.

use crate::support;

use proptest::prelude::*;
use support::{deep_copy, render};
use zy_codegen::JitSession;
use zy_interp::{Limits, Value};

fn float_expr() -> impl Strategy<Value = String> {
    let leaf = proptest::sample::select(vec!["x", "y", "a", "s", "float(k)", "0.5", "1.5", "-2.0"])
        .prop_map(str::to_string);
    leaf.prop_recursive(3, 16, 2, |inner| {
        prop_oneof![
            (inner.clone(), inner.clone()).prop_map(|(p, q)| format!("({p} + {q})")),
            (inner.clone(), inner.clone()).prop_map(|(p, q)| format!("({p} - {q})")),
            (inner.clone(), inner.clone()).prop_map(|(p, q)| format!("({p} * {q})")),
            (inner.clone(), inner.clone()).prop_map(|(p, q)| format!("({p} / {q})")),
            (inner.clone(), inner.clone()).prop_map(|(p, q)| format!("max({p}, {q})")),
            (inner.clone(), inner.clone()).prop_map(|(p, q)| format!("min({p}, {q})")),
            inner.clone().prop_map(|p| format!("sin({p})")),
            inner.clone().prop_map(|p| format!("exp(tanh({p}))")),
            inner.clone().prop_map(|p| format!("sqrt(abs({p}))")),
            inner.clone().prop_map(|p| format!("log({p})")),
            inner.clone().prop_map(|p| format!("abs({p})")),
            inner.clone().prop_map(|p| format!("({p})^2")),
            inner.prop_map(|p| format!("({p})^3")),
        ]
    })
}

/// Int expressions over `n`, constants and (once assigned) `k`.
fn int_expr(with_k: bool) -> impl Strategy<Value = String> {
    let mut names = vec!["n", "1", "3", "-2"];
    if with_k {
        names.push("k");
    }
    let leaf = proptest::sample::select(names).prop_map(str::to_string);
    leaf.prop_recursive(2, 8, 2, |inner| {
        prop_oneof![
            (inner.clone(), inner.clone()).prop_map(|(p, q)| format!("({p} + {q})")),
            (inner.clone(), inner.clone()).prop_map(|(p, q)| format!("({p} * {q})")),
            (inner.clone(), inner.clone()).prop_map(|(p, q)| format!("({p} ÷ {q})")),
            (inner.clone(), inner.clone()).prop_map(|(p, q)| format!("({p} % {q})")),
            inner.prop_map(|p| format!("abs({p})")),
        ]
    })
}

fn program() -> impl Strategy<Value = String> {
    (
        float_expr(),
        int_expr(false),
        float_expr(),
        float_expr(),
        int_expr(true),
        float_expr(),
        float_expr(),
        float_expr(),
    )
        .prop_map(|(f1, i1, f2, f3, idx, c, f4, f5)| {
            format!(
                "function q(x, y, n, v)
    a = 0.0
    s = 0.0
    k = {i1}
    a = {f1}
    i = 1
    while i <= n
        s = s + v[1 + abs({idx}) % 3] * {f2}
        a = {f3}
        i += 1
    end
    if {c} > 0.25
        return {f4}
    end
    t = (a, {f5})
    return t[1] * t[2] + s + k + v[n]
end"
            )
        })
}

fn compare(
    prog: &zy_ir::TypedProgram,
    inst: &zy_ir::Instance,
    args: &[Value],
) -> Result<String, String> {
    let limits = Limits::default();
    let mut jit = JitSession::new().map_err(|e| e.to_string())?;
    let compiled = jit
        .compile(prog, inst)
        .map_err(|e| format!("JIT declined: {e}"))?;
    let by_jit = render(&compiled.call(args, &limits));
    let copies: Vec<Value> = args.iter().map(deep_copy).collect();
    let by_interp = render(&zy_interp::run(prog, inst, copies, &limits));
    if by_jit == by_interp {
        Ok(by_jit)
    } else {
        Err(format!("JIT {by_jit} but interpreter {by_interp}"))
    }
}

fn check(src: &str, x: f64, y: f64, n: i64) -> Result<(), String> {
    let file = zy_syntax::parse_file(src);
    let lowered = zy_lower::lower_file(0, &file);
    let args = vec![
        Value::F64(x),
        Value::F64(y),
        Value::Int(n),
        Value::vector_f64(vec![0.5, -1.0, 2.0]),
    ];
    let tys: Vec<zy_ir::Type> = args.iter().map(Value::julia_type).collect();
    let (inst, prog) = zy_infer::infer_entry(&lowered.program, "q", &tys)
        .map_err(|e| format!("inference failed: {e:?}"))?;
    compare(&prog, &inst, &args)?;
    if let Ok((driver, gprog)) = zy_ad::gradient_program(&prog, &inst) {
        compare(&gprog, &driver, &args)?;
        // The IR text of every stage reads back to itself.
        support::reads_back(&gprog.functions.values().map(|f| &**f).collect::<Vec<_>>())?;
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]
    #[test]
    fn random_programs_agree_with_the_interpreter(src in program(), x in -2.0..2.0f64, y in -2.0..2.0f64, n in 0..5i64) {
        if let Err(e) = check(&src, x, y, n) {
            prop_assert!(false, "{e}\n{src}\nx = {x}, y = {y}, n = {n}");
        }
    }
}
