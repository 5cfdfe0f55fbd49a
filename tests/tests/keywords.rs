//! Property test of keyword calls: any subset of a method's keywords, passed in any order,
//! after `;` or among the positional arguments, gives to the bit what the positional method
//! with the defaults filled in by hand gives, and the gradient with respect to a keyword value
//! is the positional one's, also when the keyword call itself is the one differentiated, and
//! likewise for the same keywords of a closure (`wmake(1.0)`, whose default `c` reads a capture).

use std::path::Path;

use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use zy_ide::{AnalysisHost, Engine, EvalLimits};
use zy_tests::arith::json_f64;

/// `c` defaults to an expression of the keywords before it, as Julia allows.
const FILE: &str = "\
w(x; a = 1.5, b = -0.25, c = a * b + x, d = 3.0) = a * x + b * x^2 + c / d + d * x^3
p(x, a, b, c, d) = a * x + b * x^2 + c / d + d * x^3
wmake(s) = (x; a = 1.5, b = -0.25, c = a * b + s * x, d = 3.0) -> s * (a * x + b * x^2 + c / d + d * x^3)
";

const NAMES: [&str; 4] = ["a", "b", "c", "d"];

/// Keywords passed: (index into `NAMES`, value, written after `;`), in call order.
fn passed() -> impl Strategy<Value = Vec<(usize, f64, bool)>> {
    let values = prop::sample::select(vec![0.5, -1.25, 2.0, 3.75, 0.125]);
    (
        Just((0..NAMES.len()).collect::<Vec<_>>()).prop_shuffle(),
        prop::collection::vec((values, any::<bool>(), any::<bool>()), NAMES.len()),
    )
        .prop_map(|(order, picks)| {
            order
                .into_iter()
                .zip(picks)
                .filter(|(_, (_, keep, _))| *keep)
                .map(|(i, (v, _, semicolon))| (i, v, semicolon))
                .collect()
        })
}

fn julia(x: f64) -> String {
    zy_ir::julia_float(x)
}

/// The call `w(x, ...; ...)` of one case, and the positional call with the same values.
fn calls(kws: &[(usize, f64, bool)], x: &str) -> (String, [f64; 4]) {
    let mut values = [1.5, -0.25, f64::NAN, 3.0];
    for &(i, v, _) in kws {
        values[i] = v;
    }
    // `w(x, a = v; b = v)`: the keywords not after `;` go among the positional ones.
    let among: Vec<String> = kws
        .iter()
        .filter(|k| !k.2)
        .map(|&(i, v, _)| format!(", {} = {}", NAMES[i], julia(v)))
        .collect();
    let after: Vec<String> = kws
        .iter()
        .filter(|k| k.2)
        .map(|&(i, v, _)| format!("{} = {}", NAMES[i], julia(v)))
        .collect();
    let call = format!("w({x}{}; {})", among.concat(), after.join(", "));
    (call, values)
}

#[test]
fn keyword_calls_equal_their_positional_equivalents() {
    let mut runner = TestRunner::new(Config {
        cases: 4,
        failure_persistence: None,
        ..Config::default()
    });
    let batch = prop::collection::vec(passed(), 16);
    let outcome = runner.run(&batch, |cases| {
        // One file: `w`, `p`, and per case `k{i}(x)` calling `w` with its keywords, `c{i}(x)`
        // calling the closure `wmake(1.0)` with them.
        let mut text = FILE.to_string();
        for (i, kws) in cases.iter().enumerate() {
            let call = calls(kws, "x").0;
            text.push_str(&format!("k{i}(x) = {call}\n"));
            let closure_call = call.replacen("w(", "wmake(1.0)(", 1);
            text.push_str(&format!("c{i}(x) = {closure_call}\n"));
        }
        let mut host = AnalysisHost::new();
        let file = host.set_file_text(Path::new("kw.jl"), text);
        let analysis = host.analysis();
        let eval = |call: &str| {
            analysis
                .eval(file, call, EvalLimits::default())
                .expect("not cancelled")
                .map(|r| json_f64(&r.json))
                .map_err(|e| e.to_string())
        };
        for (i, kws) in cases.iter().enumerate() {
            let x = 0.75;
            let (call, mut values) = calls(kws, &julia(x));
            let c_is_default = values[2].is_nan();
            if c_is_default {
                values[2] = values[0] * values[1] + x;
            }
            let positional = format!("p({}, {})", julia(x), values.map(julia).join(", "));
            let (got, want) = (eval(&call), eval(&positional));
            prop_assert!(
                matches!((&got, &want), (Ok(Some(g)), Ok(Some(w))) if g.to_bits() == w.to_bits()),
                "{call} gave {got:?}, {positional} gave {want:?}"
            );
            let closure = format!("c{i}({})", julia(x));
            let got = eval(&closure);
            prop_assert!(
                matches!((&got, &want), (Ok(Some(g)), Ok(Some(w))) if g.to_bits() == w.to_bits()),
                "{closure} gave {got:?}, {positional} gave {want:?}"
            );
            // d/dx through the keyword call (and through `c`'s default, which uses `x`).
            let [a, b, _, d] = values;
            let from_c = if c_is_default { 1.0 / d } else { 0.0 };
            let want_dx = a + 2.0 * b * x + from_c + 3.0 * d * x * x;
            for wrapper in [format!("k{i}({})", julia(x)), closure] {
                let dx = analysis
                    .grad(file, &wrapper, EvalLimits::default(), Engine::Interp)
                    .expect("not cancelled")
                    .map(|g| g.gradient().first().and_then(|g| json_f64(&g.json)))
                    .map_err(|e| e.to_string());
                prop_assert!(
                    matches!(dx, Ok(Some(g)) if (g - want_dx).abs() <= 1e-12 * want_dx.abs().max(1.0)),
                    "d/dx of {wrapper} ({call}): {dx:?}, want {want_dx}"
                );
            }
            // The keyword call differentiated itself (`grad FILE 'w(x; ...)'`): with respect
            // to `x` only, the keywords constants; refused where `c`'s default reads `x`
            // (with no keyword at all, the method itself computes the defaults).
            for engine in [Engine::Interp, Engine::Jit] {
                let direct = analysis
                    .grad(file, &call, EvalLimits::default(), engine)
                    .expect("not cancelled")
                    .map(|g| g.gradient().iter().map(|g| json_f64(&g.json)).collect::<Vec<_>>())
                    .map_err(|e| e.to_string());
                if c_is_default && !kws.is_empty() {
                    prop_assert!(
                        matches!(&direct, Err(e) if e.contains("the keyword `c` is left to its default")),
                        "{call} on {engine:?}: {direct:?}"
                    );
                } else {
                    let want = want_dx;
                    prop_assert!(
                        matches!(direct.as_deref(), Ok([Some(g)]) if (g - want).abs() <= 1e-12 * want.abs().max(1.0)),
                        "gradient of {call} on {engine:?}: {direct:?}, want [{want}]"
                    );
                }
            }
        }
        Ok(())
    });
    if let Err(e) = outcome {
        panic!("{e}");
    }
}
