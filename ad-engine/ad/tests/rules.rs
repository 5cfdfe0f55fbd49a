//! Every rule through `test_rule`, at the test points beside it, and ChainRules' special
//! points.

use crate::common;

use common::rule::Arg;
use zy_ad::rules;
use zy_interp::Value;
use zy_ir::{Const, Diff, Jit, Prim};

fn f(x: f64) -> Arg {
    Arg::V(Value::F64(x))
}

fn v(xs: &[f64]) -> Arg {
    Arg::V(Value::vector_f64(xs.to_vec()))
}

fn c(i: i64) -> Arg {
    Arg::C(Const::Int(i))
}

/// Every primitive the table says has a rule has one entry in the rule tables with test cases
/// beside it, and passes them: on the interpreter and the JIT (bit for bit, the JIT refusing
/// an undeclared interpreter fallback) against finite differences, and at its special points.
/// Every failure is listed.
#[test]
fn every_primitive() {
    let mut failures = Vec::new();
    for &p in Prim::ALL {
        let info = p.info();
        let has_rule = rules::has_rule(p);
        if rules::entries(p) > 1 {
            failures.push(format!("{p}: {} rule entries", rules::entries(p)));
        }
        match info.diff {
            Diff::Rule if !has_rule => failures.push(format!("{p}: no rule")),
            Diff::Rule => {
                let cases = rules::test_cases(p);
                if cases.is_empty() {
                    failures.push(format!("{p}: no test cases beside its rule"));
                }
                for case in &cases {
                    let run = || common::rule::test_case(p, case);
                    if let Err(e) = std::panic::catch_unwind(std::panic::AssertUnwindSafe(run)) {
                        failures.push(format!("{p} at {case:?}: {}", panic_text(&e)));
                    }
                }
                for sp in rules::special_points(p) {
                    let args: Vec<Arg> = sp.at.iter().map(Arg::of).collect();
                    let run = || at(p, &args, sp.y, sp.grad);
                    if let Err(e) = std::panic::catch_unwind(std::panic::AssertUnwindSafe(run)) {
                        failures.push(format!("{p} at {sp:?}: {}", panic_text(&e)));
                    }
                }
            }
            Diff::Constant | Diff::Rewritten if has_rule => {
                failures.push(format!("{p}: a rule, but the table says {:?}", info.diff))
            }
            _ => {}
        }
        let rewritten = info.diff == Diff::Rewritten;
        if info.jit == Jit::Rewritten && !rewritten {
            failures.push(format!(
                "{p}: never reaches codegen, but the AD does not rewrite it"
            ));
        }
        if info.jit == Jit::Interpreted && info.interpreted_for.is_some() {
            failures.push(format!(
                "{p}: interpreted, and interpreted for some operand types"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

fn panic_text(e: &Box<dyn std::any::Any + Send>) -> String {
    e.downcast_ref::<String>()
        .cloned()
        .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_default()
}

/// `p(args...)` has value `y` and, per `V` argument, the gradient entries `g` (a number or an
/// array's entries; an Int argument has none), on both engines. NaN matches NaN; the sign of
/// a zero counts.
fn at(p: Prim, args: &[Arg], y: f64, g: &[&[f64]]) {
    let (val, grad) = common::rule::grad_at(p, args);
    let same = |a: f64, b: f64| a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan());
    let shown = format!("{} {}", zy_interp::show(&val), zy_interp::show(&grad));
    assert!(
        same(val.as_f64().unwrap_or(f64::NAN), y),
        "{p}: value {shown}, want {y}"
    );
    let Value::Tuple(gs) = &grad else {
        panic!("{p}: gradient {shown}")
    };
    assert_eq!(gs.len(), g.len(), "{p}: {shown}");
    for (gi, want) in gs.iter().zip(g) {
        let mut got = Vec::new();
        common::run::leaves(gi, &mut got);
        assert!(
            got.len() == want.len() && got.iter().zip(want.iter()).all(|(a, b)| same(*a, *b)),
            "{p}: gradient {shown}, want {g:?}"
        );
    }
}

/// The special points of docs/rules.md: zy's value and derivative are ChainRules'.
#[test]
fn special_points_follow_chainrules() {
    use Prim::*;
    let (inf, nan) = (f64::INFINITY, f64::NAN);
    let fc = |x: f64| Arg::C(Const::f64(x));
    let i = |n: i64| Arg::V(Value::Int(n));
    // x^p, Float64 exponent: ChainRules' `_pow_grad_x` and `_pow_grad_p`.
    at(Pow, &[f(0.0), f(2.0)], 0.0, &[&[0.0], &[0.0]]);
    at(Pow, &[f(0.0), f(1.0)], 0.0, &[&[1.0], &[0.0]]);
    at(Pow, &[f(0.0), f(0.0)], 1.0, &[&[0.0], &[nan]]);
    at(Pow, &[f(0.0), f(0.5)], 0.0, &[&[inf], &[0.0]]);
    at(Pow, &[f(0.0), f(-1.0)], inf, &[&[-inf], &[nan]]);
    at(Pow, &[f(-0.0), f(-2.0)], inf, &[&[inf], &[nan]]);
    at(
        Pow,
        &[f(2.0), f(0.0)],
        1.0,
        &[&[0.0], &[std::f64::consts::LN_2]],
    );
    // A negative base with an integral exponent: the exponent's gradient is y log|x|.
    at(
        Pow,
        &[f(-2.0), f(2.0)],
        4.0,
        &[&[-4.0], &[4.0 * std::f64::consts::LN_2]],
    );
    // The issue's `p(x) = 0.0^x` at 2: 0.0, not NaN.
    at(Pow, &[fc(0.0), f(2.0)], 0.0, &[&[0.0]]);
    // Int exponents, a variable and a literal.
    at(Pow, &[f(0.0), i(0)], 1.0, &[&[0.0], &[]]);
    at(Pow, &[f(0.0), i(-2)], inf, &[&[-inf], &[]]);
    at(Pow, &[f(-2.0), i(3)], -8.0, &[&[12.0], &[]]);
    at(Pow, &[f(0.0), c(0)], 1.0, &[&[0.0]]);
    at(Pow, &[f(0.0), c(1)], 0.0, &[&[1.0]]);
    at(Pow, &[f(0.0), c(-1)], inf, &[&[-inf]]);
    // Kinks and ties.
    at(Abs, &[f(0.0)], 0.0, &[&[0.0]]);
    at(Abs, &[f(-0.0)], 0.0, &[&[-0.0]]);
    at(Max, &[f(1.0), f(1.0)], 1.0, &[&[0.0], &[1.0]]);
    at(Max, &[f(2.0), f(1.0)], 2.0, &[&[1.0], &[0.0]]);
    at(Max, &[f(nan), f(1.0)], nan, &[&[0.0], &[1.0]]);
    at(Min, &[f(1.0), f(1.0)], 1.0, &[&[1.0], &[0.0]]);
    at(Min, &[f(2.0), f(1.0)], 1.0, &[&[0.0], &[1.0]]);
    at(Maximum, &[v(&[1.0, 3.0, 3.0])], 3.0, &[&[0.0, 1.0, 0.0]]);
    at(Maximum, &[v(&[1.0, nan, 3.0])], nan, &[&[0.0, 1.0, 0.0]]);
    at(Maximum, &[v(&[-0.0, 0.0])], 0.0, &[&[0.0, 1.0]]);
    at(Minimum, &[v(&[2.0, -1.0, -1.0])], -1.0, &[&[0.0, 1.0, 0.0]]);
    // Singular points of the elementary functions.
    at(Sqrt, &[f(0.0)], 0.0, &[&[inf]]);
    at(Log, &[f(0.0)], -inf, &[&[inf]]);
    at(Log1p, &[f(-1.0)], -inf, &[&[inf]]);
    at(Asin, &[f(1.0)], std::f64::consts::FRAC_PI_2, &[&[inf]]);
    at(Acos, &[f(1.0)], 0.0, &[&[-inf]]);
    at(Div, &[f(1.0), f(0.0)], inf, &[&[inf], &[-inf]]);
    at(Div, &[f(-1.0), f(0.0)], -inf, &[&[inf], &[inf]]);
    at(Div, &[f(0.0), f(0.0)], nan, &[&[inf], &[nan]]);
    at(Tanh, &[f(20.0)], 1.0, &[&[0.0]]);
    at(Exp, &[f(1000.0)], inf, &[&[inf]]);
    at(Exp, &[f(-1000.0)], 0.0, &[&[0.0]]);
    // 0 * Inf: each factor's partial is the other factor, as in ChainRules.
    at(Mul, &[f(0.0), f(inf)], nan, &[&[inf], &[0.0]]);
    at(
        Dot,
        &[v(&[0.0, 1.0]), v(&[inf, 1.0])],
        nan,
        &[&[inf, 1.0], &[0.0, 1.0]],
    );
    at(Prod, &[v(&[0.0, 2.0, 3.0])], 0.0, &[&[6.0, 0.0, 0.0]]);
    at(Prod, &[v(&[0.0, 0.0, 3.0])], 0.0, &[&[0.0, 0.0, 0.0]]);
    // rem jumps where the quotient is an integer.
    at(Rem, &[f(6.0), f(3.0)], 0.0, &[&[nan], &[nan]]);
    at(Rem, &[f(7.0), f(3.0)], 1.0, &[&[1.0], &[-2.0]]);
    // Piecewise constant: zero.
    for p in [Sign, Floor, Ceil, Round] {
        at(p, &[f(0.0)], 0.0, &[&[0.0]]);
    }
}
