//! `zy-bench`: runs the paper's Table 2 and writes `table2.json` and `table2.png`.
//!
//! Usage: `zy-bench [--peers FILE] [--json FILE] [--chart FILE] [--only KEY]`; run it from the
//! repository root (`bench/table2` does). `zy-bench --first-gradient KEY` is the child process
//! that times one cold first gradient.

use std::hint::black_box;
use std::path::PathBuf;
use std::process::{Command, ExitCode};

use zy_bench::cases::{by_key, Case, CASES};
use zy_bench::first::first_gradient_ms;
use zy_bench::inputs::{flatten, Hand};
use zy_bench::peers::Peers;
use zy_bench::report::{details, table, to_json, Row, RowEngine};
use zy_bench::timing::{median, medians_ns};
use zy_bench::zy::{prepare, Runner};
use zy_bench::{chart, tape};
use zy_interp::Value;

/// Fresh processes timed for the first gradient.
const FIRST_GRADIENT_RUNS: usize = 5;
/// How far zy's gradient may stray from the hand-written one before the row is flagged.
const AGREEMENT: f64 = 1e-8;

struct Options {
    peers: Option<PathBuf>,
    json: PathBuf,
    chart: PathBuf,
    only: Option<String>,
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let [flag, key] = args.as_slice() {
        if flag == "--first-gradient" {
            return first_gradient_child(key);
        }
    }
    let options = match parse_options(&args) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("zy-bench: {e}\nusage: zy-bench [--peers FILE] [--json FILE] [--chart FILE] [--only KEY]");
            return ExitCode::from(2);
        }
    };
    match run(&options) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("zy-bench: {e}");
            ExitCode::FAILURE
        }
    }
}

fn parse_options(args: &[String]) -> Result<Options, String> {
    let mut o = Options {
        peers: None,
        json: PathBuf::from("target/bench/table2.json"),
        chart: PathBuf::from("bench/table2.png"),
        only: None,
    };
    let mut it = args.iter();
    while let Some(flag) = it.next() {
        let mut value = || {
            it.next()
                .cloned()
                .ok_or_else(|| format!("{flag} needs a value"))
        };
        match flag.as_str() {
            "--peers" => o.peers = Some(PathBuf::from(value()?)),
            "--json" => o.json = PathBuf::from(value()?),
            "--chart" => o.chart = PathBuf::from(value()?),
            "--only" => {
                let key = value()?;
                by_key(&key).ok_or_else(|| format!("no benchmark `{key}`"))?;
                o.only = Some(key);
            }
            other => return Err(format!("unknown argument `{other}`")),
        }
    }
    Ok(o)
}

fn run(options: &Options) -> Result<(), String> {
    let peers = match &options.peers {
        Some(path) => {
            let text =
                std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
            Peers::parse(&text)?
        }
        None => {
            let mut p = Peers::default();
            p.notes
                .push("JAX and PyTorch not run (`bench/table2 --peers` runs them)".into());
            p
        }
    };
    let mut rows = Vec::new();
    let mut tape_bytes = None;
    let mut notes = peers.notes.clone();
    for case in CASES
        .iter()
        .filter(|c| options.only.as_deref().is_none_or(|k| k == c.key))
    {
        eprintln!("zy-bench: {} ({})", case.key, case.call);
        match measure(case, &peers, &mut notes) {
            Ok((row, bytes)) => {
                rows.push(row);
                tape_bytes = tape_bytes.or(bytes);
            }
            Err(e) => notes.push(format!("{}: not measured: {e}", case.key)),
        }
    }
    println!("{}", table(&rows));
    println!("{}", details(&rows));
    match tape_bytes {
        Some(b) => println!("pow tape: {b} bytes per loop iteration"),
        None => println!("pow tape: not measured"),
    }
    for n in &notes {
        println!("note: {n}");
    }
    if options.only.is_some() {
        println!(
            "--only: {} and {} left as they were",
            options.json.display(),
            options.chart.display()
        );
        return Ok(());
    }
    if let Some(dir) = options.json.parent() {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    let json =
        serde_json::to_string_pretty(&to_json(&rows, tape_bytes)).map_err(|e| e.to_string())?;
    std::fs::write(&options.json, json + "\n")
        .map_err(|e| format!("{}: {e}", options.json.display()))?;
    chart::draw(&rows, &options.chart)?;
    println!(
        "wrote {} and {}",
        options.json.display(),
        options.chart.display()
    );
    Ok(())
}

/// Time one benchmark; also the pow tape bytes for `loop`.
fn measure(
    case: &Case,
    peers: &Peers,
    notes: &mut Vec<String>,
) -> Result<(Row, Option<u32>), String> {
    let p = prepare(case)?;
    let mut engine = RowEngine::Jit;
    for (what, r) in [
        ("primal", &p.primal),
        ("gradient", &p.gradient),
        ("boundary no-op", &p.boundary),
    ] {
        if let Some(reason) = r.fallback_reason() {
            engine = RowEngine::Interp;
            notes.push(format!(
                "{}: the JIT cannot compile the {what}, the interpreter runs it: {reason}",
                case.key
            ));
        }
    }
    let hand = Hand::from_values(case.key, &p.args)?;
    check_agreement(case, &p.gradient, &p.args, &hand, notes)?;

    // zy's primal and gradient run through the native entry point (arguments converted once,
    // results left in the arena); the boundary is what one call on interpreter values costs
    // on top of that, shown for reference.
    let mut primal = p.primal.bind(&p.args)?;
    let mut gradient = p.gradient.bind(&p.args)?;
    let times = medians_ns(&mut [
        &mut || {
            black_box(p.boundary.call(black_box(&p.args)).ok());
        },
        &mut || {
            black_box(primal.run());
        },
        &mut || {
            black_box(gradient.run());
        },
    ]);
    let (boundary_ns, forward_ns, zy_grad_ns) = (times[0], times[1], times[2]);
    let (hand_forward_ns, hand_grad_ns) = hand.time();
    let first_gradient_ms = match first_gradient(case) {
        Ok(ms) => Some(ms),
        Err(e) => {
            notes.push(format!("{}: first gradient not measured: {e}", case.key));
            None
        }
    };
    let bytes = (case.key == "loop")
        .then(|| tape::bytes_per_iteration(&p.gradient_program, &p.inst))
        .flatten();
    let row = Row {
        key: case.key,
        engine,
        forward_ns,
        zy_grad_ns,
        boundary_ns,
        hand_forward_ns,
        hand_grad_ns,
        jax: peers.jax(case.key),
        torch: peers.torch(case.key),
        first_gradient_ms,
    };
    Ok((row, bytes))
}

/// zy's gradient must be the hand-written one (to rounding) for the timings to mean anything.
fn check_agreement(
    case: &Case,
    gradient: &Runner,
    args: &[Value],
    hand: &Hand,
    notes: &mut Vec<String>,
) -> Result<(), String> {
    let out = gradient.call(args)?;
    let Value::Tuple(parts) = &out else {
        return Err(format!(
            "the gradient driver returned {}",
            zy_interp::show(&out)
        ));
    };
    let zy: Vec<f64> = parts.iter().flat_map(flatten).collect();
    let (y, g) = hand.flat_gradient();
    let want: Vec<f64> = std::iter::once(y).chain(g).collect();
    if zy.len() != want.len() {
        return Err(format!(
            "zy's gradient has {} numbers, the hand-written one {}",
            zy.len(),
            want.len()
        ));
    }
    let worst = zy
        .iter()
        .zip(&want)
        .map(|(a, b)| (a - b).abs() / b.abs().max(1.0))
        .fold(0.0, f64::max);
    if worst > AGREEMENT {
        notes.push(format!(
            "{}: zy's gradient differs from the hand-written one by up to {worst:.1e}",
            case.key
        ));
    }
    Ok(())
}

/// The median over fresh processes of the time from source text to the first gradient.
fn first_gradient(case: &Case) -> Result<f64, String> {
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let mut times = Vec::new();
    for _ in 0..FIRST_GRADIENT_RUNS {
        let out = Command::new(&exe)
            .args(["--first-gradient", case.key])
            .output()
            .map_err(|e| format!("cannot start {}: {e}", exe.display()))?;
        let text = String::from_utf8_lossy(&out.stdout);
        if !out.status.success() {
            return Err(format!(
                "{}{}",
                text.trim(),
                String::from_utf8_lossy(&out.stderr).trim()
            ));
        }
        times.push(
            text.trim()
                .parse::<f64>()
                .map_err(|e| format!("child printed `{}`: {e}", text.trim()))?,
        );
    }
    Ok(median(&mut times))
}

/// The child process: one cold first gradient, its milliseconds on stdout.
fn first_gradient_child(key: &str) -> ExitCode {
    let Some(case) = by_key(key) else {
        eprintln!("no benchmark `{key}`");
        return ExitCode::from(2);
    };
    match first_gradient_ms(&case) {
        Ok(ms) => {
            println!("{ms}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            println!("{e}");
            ExitCode::FAILURE
        }
    }
}
