//! `zy-bench-debugger`: what the gradient debugger of issue 14 costs, timed as `zy-bench` times
//! its tables (CPU time, medians of interleaved batches of about 10 ms).
//!
//! Usage: `zy-bench-debugger`, from the repository root (`bench/debugger/run` builds and runs
//! it). It prints two Markdown tables:
//!
//! 1. the whole `grad` request as `zy-analyze grad` and the editor make it, on a warm host (the
//!    file parsed, typed and compiled by the first request): plain, with `--trace` and with
//!    `--debug`, and their ratios to the plain request;
//! 2. the non-finite search's cost: on a finite gradient, the test that decides whether to
//!    search (every entry finite?) against the compiled gradient it follows; on a non-finite
//!    one, the request that searches against the same function's request at a finite point.

use std::hint::black_box;
use std::path::Path;
use std::process::ExitCode;

use zy_bench::cases::by_key;
use zy_bench::report::human;
use zy_bench::timing::medians_ns;
use zy_bench::zy::prepare_call;
use zy_ide::{Analysis, AnalysisHost, Engine, EvalLimits, FileId, GradOptions};

/// The benchmarks whose gradient requests are timed (keys of `zy_bench::cases`).
const CASES: [&str; 7] = [
    "sincos",
    "loop",
    "logsumexp",
    "logistic_regression",
    "mlp",
    "rk4",
    "tree_sum",
];
const NONFINITE_FILE: &str = "nonfinite.jl";
const NONFINITE: &str = include_str!("../../../fixtures/nonfinite.jl");
/// `ramp(x)` sums `sqrt(x - i / 500)` for i in 1:500: at 1.0 the 500th term's derivative is
/// Inf (the search runs), at 2.0 every term's is finite.
const RAMP_FINITE: &str = "ramp(2.0)";
const RAMP_NONFINITE: &str = "ramp(1.0)";

fn main() -> ExitCode {
    if std::env::args().len() > 1 {
        eprintln!("usage: zy-bench-debugger");
        return ExitCode::from(2);
    }
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("zy-bench-debugger: {e}");
            ExitCode::FAILURE
        }
    }
}

/// A host holding `source` as `file`, and the file's id.
fn host(file: &str, source: &str) -> (AnalysisHost, FileId) {
    let mut host = AnalysisHost::new();
    let id = host.set_file_text(Path::new(file), source.to_string());
    (host, id)
}

/// One `grad` request (the CLI's: the JIT), failing loudly if it fails.
fn request(
    analysis: &Analysis,
    file: FileId,
    call: &str,
    options: GradOptions,
) -> Result<(), String> {
    match analysis.grad_with(file, call, EvalLimits::default(), Engine::Jit, options) {
        Ok(Ok(r)) => {
            black_box(r);
            Ok(())
        }
        Ok(Err(e)) => Err(format!("{call}: {}", e.message)),
        Err(_) => Err(format!("{call}: cancelled")),
    }
}

/// The median times of the requests `(call, options)` in one file, interleaved.
fn time_requests(
    file: &str,
    source: &str,
    requests: &[(&str, GradOptions)],
) -> Result<Vec<f64>, String> {
    let (host, id) = host(file, source);
    let analysis = host.analysis();
    // The first request of each fills the caches (and says whether it runs at all).
    for (call, options) in requests {
        request(&analysis, id, call, *options)?;
    }
    let mut fs: Vec<Box<dyn FnMut()>> = requests
        .iter()
        .map(|&(call, options)| {
            let analysis = &analysis;
            Box::new(move || {
                let _ = request(analysis, id, call, options);
            }) as Box<dyn FnMut()>
        })
        .collect();
    let mut refs: Vec<&mut dyn FnMut()> = fs
        .iter_mut()
        .map(|f| &mut **f as &mut dyn FnMut())
        .collect();
    Ok(medians_ns(&mut refs))
}

fn run() -> Result<(), String> {
    let plain = GradOptions::default();
    let trace = GradOptions {
        trace: true,
        ..plain
    };
    let debug = GradOptions {
        debug: true,
        ..plain
    };
    println!(
        "| benchmark | grad | grad --trace | --trace / grad | grad --debug | --debug / grad |"
    );
    println!("|---|---|---|---|---|---|");
    for key in CASES {
        let case = by_key(key).ok_or_else(|| format!("no benchmark `{key}`"))?;
        let t = time_requests(
            case.file,
            case.source,
            &[(case.call, plain), (case.call, trace), (case.call, debug)],
        )?;
        println!(
            "| {key} | {} | {} | {:.1} | {} | {:.1} |",
            human(t[0]),
            human(t[1]),
            t[1] / t[0],
            human(t[2]),
            t[2] / t[0]
        );
    }

    println!();
    println!("| what | time | share |");
    println!("|---|---|---|");
    let mut finite = vec![(NONFINITE_FILE, NONFINITE, RAMP_FINITE)];
    for key in ["logsumexp", "mlp"] {
        let case = by_key(key).ok_or_else(|| format!("no benchmark `{key}`"))?;
        finite.push((case.file, case.source, case.call));
    }
    for (file, source, call) in finite {
        let p = prepare_call(file, source, call)?;
        let out = p.gradient.call(&p.args)?;
        if !zy_ide::is_finite(&out) {
            return Err(format!("{call}: the gradient is not finite"));
        }
        let t = medians_ns(&mut [
            &mut || {
                let _ = black_box(p.gradient.call(black_box(&p.args)));
            },
            &mut || {
                let _ = black_box(
                    p.gradient
                        .call(black_box(&p.args))
                        .map(|g| zy_ide::is_finite(&g)),
                );
            },
        ]);
        println!("| `{call}`: compiled gradient | {} | |", human(t[0]));
        println!(
            "| `{call}`: the same and the finiteness test | {} | {:+.1}% |",
            human(t[1]),
            100.0 * (t[1] - t[0]) / t[0]
        );
    }
    let t = time_requests(
        NONFINITE_FILE,
        NONFINITE,
        &[(RAMP_FINITE, plain), (RAMP_NONFINITE, plain)],
    )?;
    println!(
        "| `grad {RAMP_FINITE}` (finite: no search) | {} | |",
        human(t[0])
    );
    println!(
        "| `grad {RAMP_NONFINITE}` (NaN born in the 500th iteration: the search runs) | {} | ×{:.1} |",
        human(t[1]),
        t[1] / t[0]
    );
    Ok(())
}
