//! `zy-bench-forward`: the forward-mode and checkpointing rows of issue 15, timed as
//! `zy-bench` times its tables (the machine code of the salsa `compiled` query through the
//! native entry point, CPU time, medians of interleaved batches).
//!
//! Usage: `zy-bench-forward [--peers FILE]`, from the repository root (`bench/forward/run`
//! runs it). FILE is `bench/forward/peers.py`'s JSON; without it the JAX columns are `n/a`.
//! Rows: `hvp` of the Rosenbrock function at n = 1,000 and 10,000 against its gradient, the
//! Jacobian of a 100 → 100 dense layer (`bench/forward/forward.jl`), and the gradient of a
//! 10^6-iteration loop plainly, under `# zy: checkpoint` and under `# zy: checkpoint
//! snapshots=100` (Revolve; `bench/checkpoint/loop.jl`; its
//! peak memory is `bench/checkpoint/run`'s, in separate processes).

use std::process::ExitCode;

use serde_json::Value as Json;
use zy_bench::inputs::flatten;
use zy_bench::report::human;
use zy_bench::timing::medians_ns;
use zy_bench::zy::{prepare_call, prepare_primal, Runner};
use zy_interp::Value;

const FORWARD_FILE: &str = "bench/forward/forward.jl";
const FORWARD: &str = include_str!("../../forward/forward.jl");
const LOOP_FILE: &str = "bench/checkpoint/loop.jl";
const LOOP: &str = include_str!("../../checkpoint/loop.jl");
/// How far zy's result may stray from JAX's (sum of the entries, relative) before a row is flagged.
const AGREEMENT: f64 = 1e-9;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let peers = match args.as_slice() {
        [] => None,
        [flag, file] if flag == "--peers" => match read_peers(file) {
            Ok(p) => Some(p),
            Err(e) => {
                eprintln!("zy-bench-forward: {e}");
                return ExitCode::from(2);
            }
        },
        _ => {
            eprintln!("usage: zy-bench-forward [--peers FILE]");
            return ExitCode::from(2);
        }
    };
    match run(peers.as_ref()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("zy-bench-forward: {e}");
            ExitCode::FAILURE
        }
    }
}

/// `peers.py`'s `jax` object and its notes.
fn read_peers(file: &str) -> Result<(Json, Vec<String>), String> {
    let text = std::fs::read_to_string(file).map_err(|e| format!("{file}: {e}"))?;
    let json: Json = serde_json::from_str(&text).map_err(|e| format!("{file}: {e}"))?;
    let notes = json["notes"]
        .as_array()
        .map(|ns| {
            ns.iter()
                .filter_map(|n| n.as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default();
    Ok((json["jax"].clone(), notes))
}

/// One measured zy figure: its median time, its result's entries, the engine that ran it.
struct Timed {
    ns: f64,
    values: Vec<f64>,
    engine: &'static str,
}

impl Timed {
    /// The sum of the result's entries from the `skip`-th on (a gradient driver's first entry
    /// is the function's value).
    fn sum(&self, skip: usize) -> f64 {
        self.values.iter().skip(skip).sum()
    }
}

fn run(peers: Option<&(Json, Vec<String>)>) -> Result<(), String> {
    let jax = |key: &str| -> Option<(f64, f64)> {
        let row = &peers?.0[key];
        Some((row["ns"].as_f64()?, row["sum"].as_f64()?))
    };
    let mut flags = Vec::new();
    let mut agree = |key: &str, zy: f64| {
        if let Some((_, sum)) = jax(key) {
            if (zy - sum).abs() > AGREEMENT * sum.abs().max(1.0) {
                flags.push(format!("{key}: zy's result sums to {zy}, JAX's to {sum}"));
            }
        }
    };
    let cell = |t: Option<(f64, f64)>| t.map_or("n/a".to_string(), |(ns, _)| human(ns));
    let ratio = |a: Option<f64>, b: f64| a.map_or("n/a".to_string(), |a| format!("{:.2}", a / b));

    println!("| row | zy | JAX | JAX / zy |");
    println!("|---|---|---|---|");
    for n in [1000, 10_000] {
        let x = format!("rosenbrock_x({n})");
        let hvp_call = format!("rosenbrock_hvp({x}, rosenbrock_v({n}))");
        let (hvp_args, hvp_runner, _hvp_host) = prepare_primal(FORWARD_FILE, FORWARD, &hvp_call)?;
        let grad = prepare_call(FORWARD_FILE, FORWARD, &format!("rosenbrock({x})"))?;
        let t = time_all(&[(&hvp_runner, &hvp_args), (&grad.gradient, &grad.args)])?;
        let (hvp, g) = (&t[0], &t[1]);
        agree(&format!("hvp_{n}"), hvp.sum(0));
        // The gradient driver returns (value, (gradient,)): JAX's sum is of the gradient alone.
        agree(&format!("grad_{n}"), g.sum(1));
        let (jh, jg) = (jax(&format!("hvp_{n}")), jax(&format!("grad_{n}")));
        println!(
            "| hvp, n = {n} ({}) | {} | {} | {} |",
            hvp.engine,
            human(hvp.ns),
            cell(jh),
            ratio(jh.map(|t| t.0), hvp.ns)
        );
        println!(
            "| gradient, n = {n} ({}) | {} | {} | {} |",
            g.engine,
            human(g.ns),
            cell(jg),
            ratio(jg.map(|t| t.0), g.ns)
        );
        let jax_hvp_per_grad = jh.zip(jg).map(|(h, g)| format!("{:.2}", h.0 / g.0));
        println!(
            "| hvp / gradient, n = {n} | {:.2} | {} | |",
            hvp.ns / g.ns,
            jax_hvp_per_grad.unwrap_or_else(|| "n/a".into())
        );
    }

    let jac_args = "(dense_W(100, 100), dense_b(100), dense_x(100))";
    let prep = |f: &str| prepare_primal(FORWARD_FILE, FORWARD, &format!("{f}{jac_args}"));
    let (args, runner, _host) = prep("dense_jacobian")?;
    let (fargs, frunner, _fhost) = prep("dense_jacobian_forward")?;
    let (rargs, rrunner, _rhost) = prep("dense_jacobian_reverse")?;
    let (cargs, crunner, _chost) = prep("dense_columns")?;
    let (kargs, krunner, _khost) = prep("dense_chunked")?;
    let (largs, lrunner, _lhost) = prep("dense_chunked_loop")?;
    let t = time_all(&[
        (&runner, &args),
        (&frunner, &fargs),
        (&rrunner, &rargs),
        (&crunner, &cargs),
        (&krunner, &kargs),
        (&lrunner, &largs),
    ])?;
    let jac = &t[0];
    agree("jacfwd", jac.sum(0));
    agree("jacrev", jac.sum(0));
    for (key, name) in [("jacfwd", "jax.jacfwd"), ("jacrev", "jax.jacrev")] {
        let j = jax(key);
        println!(
            "| jacobian 100 → 100 ({}) vs {name} | {} | {} | {} |",
            jac.engine,
            human(jac.ns),
            cell(j),
            ratio(j.map(|t| t.0), jac.ns)
        );
    }

    for (mode, m) in [
        ("forward mode", &t[1]),
        ("reverse mode", &t[2]),
        ("by hand, a product per column", &t[3]),
        ("by hand, one product, `d .* (W * I)`", &t[4]),
        ("by hand, one product, rows scaled by a loop", &t[5]),
    ] {
        agree("jacfwd", m.sum(0));
        println!(
            "| jacobian 100 → 100, {mode} ({}) | {} | | |",
            m.engine,
            human(m.ns)
        );
    }
    let (vargs, vrunner, _vhost) = prepare_primal(
        FORWARD_FILE,
        FORWARD,
        "dense_matvec(dense_W(100, 100), dense_x(100))",
    )?;
    let (margs, mrunner, _mhost) = prepare_primal(
        FORWARD_FILE,
        FORWARD,
        "dense_matmul(dense_W(100, 100), dense_W(100, 100))",
    )?;
    let t = time_all(&[(&vrunner, &vargs), (&mrunner, &margs)])?;
    for ((key, name), m) in [("matvec", "W * x"), ("matmul", "W * W")].iter().zip(&t) {
        agree(key, m.sum(0));
        let j = jax(key);
        println!(
            "| {name}, 100 × 100 ({}) | {} | {} | {} |",
            m.engine,
            human(m.ns),
            cell(j),
            ratio(j.map(|t| t.0), m.ns)
        );
    }

    let n = 1_000_000;
    let plain = prepare_call(LOOP_FILE, LOOP, &format!("plain_loop(0.2, 0.5, {n})"))?;
    let ckpt = prepare_call(
        LOOP_FILE,
        LOOP,
        &format!("checkpointed_loop(0.2, 0.5, {n})"),
    )?;
    let revolve = prepare_call(LOOP_FILE, LOOP, &format!("revolve_loop(0.2, 0.5, {n})"))?;
    let t = time_all(&[
        (&plain.gradient, &plain.args),
        (&ckpt.gradient, &ckpt.args),
        (&revolve.gradient, &revolve.args),
    ])?;
    let (p, c, r) = (&t[0], &t[1], &t[2]);
    if p.values != c.values {
        flags.push("checkpointed_loop: its gradient is not plain_loop's bit for bit".into());
    }
    if p.values != r.values {
        flags.push("revolve_loop: its gradient is not plain_loop's bit for bit".into());
    }
    println!();
    println!("| gradient of a 10^6-iteration loop | time | / plain |");
    println!("|---|---|---|");
    println!("| plain tape ({}) | {} | 1.00 |", p.engine, human(p.ns));
    println!(
        "| `# zy: checkpoint` ({}) | {} | {:.2} |",
        c.engine,
        human(c.ns),
        c.ns / p.ns
    );
    println!(
        "| `# zy: checkpoint snapshots=100` ({}) | {} | {:.2} |",
        r.engine,
        human(r.ns),
        r.ns / p.ns
    );

    if let Some((_, notes)) = peers {
        for note in notes {
            println!("\n{note}");
        }
    }
    for flag in &flags {
        println!("\nDISAGREES: {flag}");
    }
    Ok(())
}

/// Calls timed with their batches interleaved, each with its result's entries.
fn time_all(calls: &[(&Runner, &[Value])]) -> Result<Vec<Timed>, String> {
    let mut values = Vec::new();
    let mut bound = Vec::new();
    for (runner, args) in calls {
        values.push(flatten(&runner.call(args)?));
        bound.push(runner.bind(args)?);
    }
    let mut runs: Vec<Box<dyn FnMut() + '_>> = bound
        .iter_mut()
        .map(|b| {
            Box::new(move || {
                b.run();
            }) as Box<dyn FnMut()>
        })
        .collect();
    let mut fs: Vec<&mut dyn FnMut()> = runs
        .iter_mut()
        .map(|f| &mut **f as &mut dyn FnMut())
        .collect();
    let ns = medians_ns(&mut fs);
    Ok(calls
        .iter()
        .zip(ns)
        .zip(values)
        .map(|(((runner, _), ns), values)| Timed {
            ns,
            values,
            engine: if runner.compiled().is_some() {
                "jit"
            } else {
                "interp"
            },
        })
        .collect())
}
