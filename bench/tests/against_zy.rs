//! The hand-written gradients against zy's JIT-compiled gradient, on the fixtures' functions at
//! small sizes (Table 2's and the workloads'); that the code timed is the `compiled` query's,
//! which the CLI and the editor run; and the pow tape figure read from the forward IR.

use std::path::Path;

use zy_bench::cases::by_key;
use zy_bench::inputs::{flatten, Hand};
use zy_bench::tape::bytes_per_iteration;
use zy_bench::zy::{prepare_call_in, Prepared, Runner};
use zy_hir::{CompileKey, Target};
use zy_ide::{AnalysisHost, Engine, EvalLimits};
use zy_interp::Value;

/// Small inputs for the MLP, generated as the fixture generates its own.
const SMALL: &str = r#"
function small_matrix(m, n, a)
    W = zeros(m, n)
    for i in 1:m
        for j in 1:n
            W[i, j] = a * sin(float(i * j) + a)
        end
    end
    return W
end

function small_vector(n, a)
    v = zeros(n)
    for i in 1:n
        v[i] = a * sin(float(i) + a)
    end
    return v
end
"#;

fn prepared(key: &str, call: &str) -> Prepared {
    let case = by_key(key).unwrap();
    let source = format!("{}\n{SMALL}", case.source);
    prepare_call_in(AnalysisHost::with_query_log(), case.file, &source, call).unwrap()
}

/// Run the driver; check it was compiled, and that it equals the hand-written gradient.
fn assert_agree(key: &str, call: &str) {
    let p = prepared(key, call);
    assert!(
        matches!(p.gradient, Runner::Jit(_)),
        "{call}: {:?}",
        p.gradient.fallback_reason()
    );
    let out = p.gradient.call(&p.args).unwrap();
    let Value::Tuple(parts) = &out else {
        panic!("{call}: driver returned {}", zy_interp::show(&out))
    };
    let zy: Vec<f64> = parts.iter().flat_map(flatten).collect();
    let (y, g) = Hand::from_values(key, &p.args).unwrap().flat_gradient();
    let hand: Vec<f64> = std::iter::once(y).chain(g).collect();
    assert_eq!(zy.len(), hand.len(), "{call}");
    for (i, (a, b)) in zy.iter().zip(&hand).enumerate() {
        assert!(
            (a - b).abs() <= 1e-12 * b.abs().max(1.0),
            "{call}: number {i}: zy {a}, hand-written {b}"
        );
    }
}

#[test]
fn sin_cos_agrees() {
    assert_agree("sincos", "sin_cos(0.7)");
}

#[test]
fn pow_agrees() {
    assert_agree("loop", "pow(1.1, 7)");
}

#[test]
fn logsumexp_agrees() {
    assert_agree("logsumexp", "logsumexp(lse_input(9))");
}

#[test]
fn logistic_regression_agrees() {
    assert_agree(
        "logistic_regression",
        "logistic_loss([0.3, -0.2, 0.5], logistic_X(7, 3), logistic_y(7))",
    );
}

#[test]
fn rosenbrock_agrees() {
    assert_agree("rosenbrock", "rosenbrock(rosenbrock_start(9))");
    assert_agree("rosenbrock", "rosenbrock([0.5, -0.3, 1.2, 0.8])");
}

#[test]
fn rk4_agrees() {
    assert_agree("rk4", "simulate(0.3, (1.0, -0.5), 0.1, 20)");
}

#[test]
fn mlp_batch_agrees() {
    assert_agree(
        "mlp_batch",
        "mlp_batch_loss(mlp_weights(6, 20, 0.1, 0.0), mlp_bias(6, 0.1), mlp_weights(3, 6, 0.3, 0.5), mlp_bias(3, 0.2), mlp_inputs(20, 8), mlp_targets(3, 8))",
    );
}

#[test]
fn gp_cholesky_agrees() {
    assert_agree("gp_cholesky", "gp_nll(0.3, -0.2, -1.0, gp_x(12), gp_y(12))");
}

#[test]
fn tree_sum_agrees() {
    assert_agree("tree_sum", "tree_sum(tree_input(37))");
}

/// The benchmark times the machine code of the salsa `compiled` query, not code of its own
/// making: asked again, the query hands out the same code, and `zy-analyze grad`'s path (the
/// editor's lens takes the same) on the benchmark's host compiles nothing and agrees.
#[test]
fn the_timed_code_is_the_code_the_cli_and_the_editor_run() {
    let call = "simulate(0.3, (1.0, -0.5), 0.1, 20)";
    let p = prepared("rk4", call);
    let db = p.host.raw_database();
    for (target, runner) in [(Target::Primal, &p.primal), (Target::Gradient, &p.gradient)] {
        let code = zy_hir::compiled(db, CompileKey::of(db, p.file, &p.inst, target));
        assert!(runner.compiled().is_some(), "{target}");
        assert_eq!(code.as_ref().ok(), runner.compiled(), "{target}");
    }
    db.enable_query_log();
    let file = p.host.file_id(Path::new("workloads/rk4.jl")).unwrap();
    let cli = p
        .host
        .analysis()
        .grad(file, call, EvalLimits::default(), Engine::Jit)
        .unwrap()
        .unwrap();
    assert_eq!(cli.jit_fallback, None);
    let compiled: Vec<String> = db
        .take_query_log()
        .into_iter()
        .filter(|q| q.starts_with("compiled("))
        .collect();
    assert_eq!(compiled, Vec::<String>::new());
    let Value::Tuple(timed) = p.gradient.call(&p.args).unwrap() else {
        panic!("the driver returns a tuple");
    };
    assert_eq!(cli.value().json, zy_interp::to_json(&timed[0]));
    let gradient: Vec<_> = cli.gradient().iter().map(|g| g.json.clone()).collect();
    assert_eq!(
        serde_json::Value::Array(gradient),
        zy_interp::to_json(&timed[1])
    );
}

#[test]
fn mlp_agrees() {
    assert_agree(
        "mlp",
        "mlp_loss(small_matrix(5, 4, 0.3), small_vector(5, 0.1), small_matrix(3, 5, 0.7), small_vector(3, 0.2), small_vector(4, 0.9), 2)",
    );
}

/// Each iteration of pow's loop must keep `r` for the pullback (`x̄ += r̄ r`): one `Float64` at
/// least (the exact figure is the AD's to improve; the benchmark prints it).
#[test]
fn pow_keeps_at_least_r_per_iteration() {
    let p = prepared("loop", "pow(1.1, 7)");
    let bytes = bytes_per_iteration(&p.gradient_program, &p.inst).unwrap();
    assert!(bytes >= 8, "{bytes}");
}

/// sin_cos has no loop: nothing is pushed per iteration.
#[test]
fn a_function_without_loops_pushes_nothing_per_iteration() {
    let p = prepared("sincos", "sin_cos(0.7)");
    assert_eq!(bytes_per_iteration(&p.gradient_program, &p.inst), Some(0));
}
