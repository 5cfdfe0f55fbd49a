//! `zy-bench`: runs a table of benchmarks (the paper's Table 2, or the workloads) and writes
//! its JSON and chart.
//!
//! Usage: `zy-bench [--table table2|workloads] [--peers FILE] [--lsp ZY_LSP] [--json FILE]
//! [--chart FILE] [--only KEY]`; run it from the repository root (`bench/table2` and
//! `bench/workloads` do). `zy-bench --first-gradient KEY` is the child process that times one
//! cold first gradient.

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use serde_json::json;
use zy_bench::cases::{by_key, Case, Table};
use zy_bench::first::first_gradient_ms;
use zy_bench::inputs::{flatten, Hand};
use zy_bench::peers::Peers;
use zy_bench::report::{details, table, to_json, Row, RowEngine, ZyTimes};
use zy_bench::timing::{median, medians_ns};
use zy_bench::zy::{evaluate_arguments, prepare, Runner};
use zy_bench::{lsp, tape};
use zy_interp::Value;

/// Fresh processes timed for the first gradient.
const FIRST_GRADIENT_RUNS: usize = 5;
/// Fresh language servers timed for the gradient lens.
const LENS_RUNS: usize = 5;
/// How far zy's gradient may stray from the hand-written one before the row is flagged.
const AGREEMENT: f64 = 1e-8;

const USAGE: &str = "usage: zy-bench [--table table2|workloads] [--peers FILE] [--lsp ZY_LSP] \
                     [--json FILE] [--chart FILE] [--only KEY]";

struct Options {
    table: Table,
    peers: Option<PathBuf>,
    /// The `zy-lsp` binary whose gradient lens is timed.
    lsp: Option<PathBuf>,
    json: PathBuf,
    chart: PathBuf,
    only: Option<String>,
}

/// mimalloc, as the `zy-analyze` and `zy-lsp` binaries: the first gradient is timed with the
/// allocator users get (the hand-written gradients share it).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

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
            eprintln!("zy-bench: {e}\n{USAGE}");
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
    let (mut table, mut peers, mut lsp, mut json, mut chart, mut only) =
        (Table::Table2, None, None, None, None, None);
    let mut it = args.iter();
    while let Some(flag) = it.next() {
        let mut value = || {
            it.next()
                .cloned()
                .ok_or_else(|| format!("{flag} needs a value"))
        };
        match flag.as_str() {
            "--table" => {
                let name = value()?;
                table = Table::named(&name).ok_or_else(|| format!("no table `{name}`"))?;
            }
            "--peers" => peers = Some(PathBuf::from(value()?)),
            "--lsp" => lsp = Some(PathBuf::from(value()?)),
            "--json" => json = Some(PathBuf::from(value()?)),
            "--chart" => chart = Some(PathBuf::from(value()?)),
            "--only" => only = Some(value()?),
            other => return Err(format!("unknown argument `{other}`")),
        }
    }
    if let Some(key) = &only {
        if !table.cases().iter().any(|c| c.key == key) {
            return Err(format!("no benchmark `{key}` in {}", table.name()));
        }
    }
    Ok(Options {
        table,
        peers,
        lsp,
        json: json.unwrap_or_else(|| format!("target/bench/{}.json", table.name()).into()),
        chart: chart.unwrap_or_else(|| format!("bench/{}.png", table.name()).into()),
        only,
    })
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
            p.notes.push(format!(
                "JAX and PyTorch not run (`bench/{} --peers` runs them)",
                options.table.name()
            ));
            p
        }
    };
    let mut rows = Vec::new();
    let mut tape_bytes = None;
    let mut notes = peers.notes.clone();
    for case in options
        .table
        .cases()
        .iter()
        .filter(|c| options.only.as_deref().is_none_or(|k| k == c.key))
    {
        eprintln!("zy-bench: {} ({})", case.key, case.call);
        match measure(case, &peers, options.lsp.as_deref(), &mut notes) {
            Ok((row, bytes)) => {
                if let Some(note) = &row.note {
                    notes.push(format!("{}: {note}", row.key));
                }
                rows.push(row);
                tape_bytes = tape_bytes.or(bytes);
            }
            Err(e) => notes.push(format!("{}: not measured: {e}", case.key)),
        }
    }
    if options.lsp.is_none() {
        notes.push("the gradient lens over the LSP not timed (--lsp ZY_LSP times it)".into());
    }
    println!("{}", table(&rows));
    println!("{}", details(&rows));
    let mut extra = Vec::new();
    if options.table == Table::Table2 {
        match tape_bytes {
            Some(b) => println!("pow tape: {b} bytes per loop iteration"),
            None => println!("pow tape: not measured"),
        }
        extra.push(("pow_tape_bytes_per_iter", json!(tape_bytes)));
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
    let json = serde_json::to_string_pretty(&to_json(&rows, &extra)).map_err(|e| e.to_string())?;
    std::fs::write(&options.json, json + "\n")
        .map_err(|e| format!("{}: {e}", options.json.display()))?;
    draw_chart(&rows, &options.chart)?;
    println!(
        "wrote {} and {}",
        options.json.display(),
        options.chart.display()
    );
    Ok(())
}

/// Draws the chart of `rows` to `path`.
#[cfg(feature = "chart")]
fn draw_chart(rows: &[Row], path: &Path) -> Result<(), String> {
    zy_bench::chart::draw(rows, path)
}

/// Without the `chart` feature there is no chart: says so, after the JSON is written.
#[cfg(not(feature = "chart"))]
fn draw_chart(_: &[Row], path: &Path) -> Result<(), String> {
    Err(format!(
        "{} not drawn: zy-bench was built without its `chart` feature (bench/run-table turns it on)",
        path.display()
    ))
}

/// Time one benchmark; also the pow tape bytes for `loop`. A benchmark zy cannot run keeps its
/// hand-written and peer columns, zy's are `None` and the note says why.
fn measure(
    case: &Case,
    peers: &Peers,
    lsp: Option<&std::path::Path>,
    notes: &mut Vec<String>,
) -> Result<(Row, Option<u32>), String> {
    let mut note = case.note.map(str::to_string);
    let p = match prepare(case) {
        Ok(p) => Some(p),
        Err(e) => {
            let why = format!("zy cannot run it: {e}");
            note = Some(note.map_or(why.clone(), |n| format!("{n}; {why}")));
            None
        }
    };
    let args = match &p {
        Some(p) => p.args.clone(),
        None => evaluate_arguments(case.file, case.source, case.call)?,
    };
    let hand = Hand::from_values(case.key, &args)?;
    let (hand_forward_ns, hand_grad_ns) = hand.time();
    let mut row = Row {
        key: case.key,
        zy: None,
        hand_forward_ns,
        hand_grad_ns,
        jax: peers.jax(case.key),
        torch: peers.torch(case.key),
        first_gradient_ms: None,
        lens: None,
        note,
    };
    let Some(p) = p else {
        return Ok((row, None));
    };
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
    row.zy = Some(ZyTimes {
        engine,
        boundary_ns: times[0],
        forward_ns: times[1],
        grad_ns: times[2],
    });
    row.first_gradient_ms = match first_gradient(case) {
        Ok(ms) => Some(ms),
        Err(e) => {
            notes.push(format!("{}: first gradient not measured: {e}", case.key));
            None
        }
    };
    if let Some(server) = lsp {
        row.lens = match lsp::lens_gradient(server, case, LENS_RUNS) {
            Ok((t, failed)) => {
                if let Some(failed) = failed {
                    notes.push(format!("{}: {failed}", case.key));
                }
                Some(t)
            }
            Err(e) => {
                notes.push(format!("{}: gradient lens not timed: {e}", case.key));
                None
            }
        };
    }
    let bytes = (case.key == "loop")
        .then(|| tape::bytes_per_iteration(&p.gradient_program, &p.inst))
        .flatten();
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
