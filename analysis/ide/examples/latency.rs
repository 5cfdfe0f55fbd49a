//! Editor latency on a generated workspace (50 files, 5,000 lines): the time of the first full
//! analysis, then, over 100 one-character edits inside one function, the time until a hover on
//! that function answers (p50, p95) and how many functions were re-analysed.
//!
//! Run with `cargo run --release -p zy-ide --example latency`.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use zy_ide::AnalysisHost;

const FILES: usize = 50;
const FUNCTIONS_PER_FILE: usize = 10;

/// One function of about ten lines; every third calls a function of the previous file.
fn function(file: usize, k: usize, constant: u32) -> String {
    let name = format!("f{file}_{k}");
    let call = if k.is_multiple_of(3) && file > 0 {
        format!("f{}_{}(y, n)", file - 1, k)
    } else {
        "y".into()
    };
    format!(
        "# zy: at {name}(1.5, 4)
function {name}(x, n)
    y = x * {constant}.0
    for i in 1:n
        y = y + sin(x) * i
    end
    if y > 2.0
        y = y - 1.0
    end
    return {call}
end
"
    )
}

fn file_text(file: usize, edited_constant: u32) -> String {
    (0..FUNCTIONS_PER_FILE)
        .map(|k| function(file, k, if k == 5 { edited_constant } else { 2 }))
        .collect::<Vec<_>>()
        .join("")
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i]
}

fn main() {
    let mut host = AnalysisHost::with_query_log();
    let paths: Vec<PathBuf> = (0..FILES)
        .map(|i| PathBuf::from(format!("/bench/file{i}.jl")))
        .collect();
    let texts: Vec<String> = (0..FILES).map(|i| file_text(i, 2)).collect();
    let lines: usize = texts.iter().map(|t| t.lines().count()).sum();

    let start = Instant::now();
    let ids: Vec<_> = paths
        .iter()
        .zip(&texts)
        .map(|(p, t)| host.set_file_text(p, t.clone()))
        .collect();
    let analysis = host.analysis();
    let mut findings = 0;
    for &id in &ids {
        findings += analysis.diagnostics(id).map(|d| d.len()).unwrap_or(0);
        // Hover every function once: each one's specialisation is inferred.
        if let Ok(outline) = analysis.outline(id) {
            for f in outline {
                let _ = analysis.hover(id, f.name_start);
            }
        }
    }
    let first = start.elapsed();
    drop(analysis);

    // Edit the constant of f25_5 (one character) and hover its name.
    let target = 25;
    let mut times = Vec::new();
    let mut reanalysed = Vec::new();
    host.raw_database().enable_query_log();
    for edit in 0..100 {
        let text = file_text(target, 3 + (edit % 7) as u32);
        host.set_file_text(&paths[target], text.clone());
        let t0 = Instant::now();
        let analysis = host.analysis();
        let offset = text
            .find("function f25_5")
            .map_or(0, |i| i + "function ".len()) as u32;
        let hover = analysis.hover(ids[target], offset);
        times.push(t0.elapsed());
        assert!(matches!(hover, Ok(Some(_))), "hover answered");
        drop(analysis);
        let log = host.raw_database().take_query_log();
        let typed: std::collections::BTreeSet<String> = log
            .iter()
            .filter(|q| q.starts_with("typed("))
            .cloned()
            .collect();
        reanalysed.push(typed.len());
    }
    times.sort();
    let mean_reanalysed = reanalysed.iter().sum::<usize>() as f64 / reanalysed.len() as f64;
    println!("| workspace | first full analysis | hover after edit p50 | p95 | functions re-analysed per edit |");
    println!("|---|---|---|---|---|");
    println!(
        "| {FILES} files, {lines} lines, {} functions ({findings} findings) | {:.0} ms | {:.2} ms | {:.2} ms | {:.1} |",
        FILES * FUNCTIONS_PER_FILE,
        first.as_secs_f64() * 1e3,
        percentile(&times, 0.5).as_secs_f64() * 1e3,
        percentile(&times, 0.95).as_secs_f64() * 1e3,
        mean_reanalysed,
    );
}
