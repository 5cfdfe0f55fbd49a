//! `zy-analyze check`: every `.jl` file under the given paths, checked in parallel (each file
//! is its own program: the subset has no `include`), with `zy.toml` applied, rendered as text,
//! JSON or SARIF. Exit status: 0 clean, 1 findings, 2 usage or I/O errors (2 also when there
//! are findings: a path that could not be read may hide more). A path that cannot be read is
//! reported and the others are still checked.

mod json;
mod sarif;
mod text;
mod walk;

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use zy_ide::{
    Analysis, AnalysisHost, Coverage, Diagnostic, EvalLimits, FileConfig, FileId, Severity,
    TestCounts,
};

use crate::cli::{CheckFormat, ColorArg};
use crate::config::Loaded;
use crate::load::{FAILURE, IO_FAILURE};
use crate::source::Source;
use crate::Outcome;

/// What `check` was asked to do.
pub struct CheckArgs {
    /// Files and directories (none: the current directory).
    pub paths: Vec<PathBuf>,
    pub format: CheckFormat,
    /// Warnings fail the check too.
    pub deny_warnings: bool,
    /// `zy.toml` to use instead of the one found from the current directory.
    pub config: Option<PathBuf>,
    pub color: ColorArg,
    /// Print the wall time and the time per stage to stderr.
    pub timings: bool,
    /// Say on stderr which entries of directories were skipped (links, special files).
    pub verbose: bool,
    /// Draw a progress bar on stderr (the binary does on a terminal outside CI).
    pub progress: bool,
    /// The limits of each `# zy: gradcheck` run (the `# zy: at` calls run under the defaults).
    pub limits: EvalLimits,
}

impl CheckArgs {
    /// Check `paths` with the default settings: text, no colour, no progress bar.
    pub fn new(paths: Vec<PathBuf>) -> CheckArgs {
        CheckArgs {
            paths,
            format: CheckFormat::Text,
            deny_warnings: false,
            config: None,
            color: ColorArg::Never,
            timings: false,
            verbose: false,
            progress: false,
            limits: EvalLimits::default(),
        }
    }
}

/// The findings of one file.
pub struct FileReport {
    /// As given or found (`./sub/a.jl`), for display.
    pub path: PathBuf,
    /// Without a leading byte order mark.
    pub text: String,
    /// The length of the byte order mark removed from `text` (offsets in the file are offsets
    /// in `text` plus this).
    pub bom: u32,
    pub findings: Vec<Diagnostic>,
    /// How many of the file's functions were typed and linted, and how many could not be.
    pub coverage: Coverage,
    /// What the file's own `@test`s gave.
    pub tests: TestCounts,
    /// `zy.toml` marks the file's findings as expected.
    pub expected: bool,
}

impl FileReport {
    /// The path with `/` separators and no leading `./` (JSON), relative as given.
    pub fn relative(&self) -> String {
        relative_of(&self.path)
    }

    /// The path as a URI reference (SARIF): relative as given, `file://` when absolute.
    pub fn uri(&self) -> String {
        uri_of(&self.path)
    }
}

/// A path with `/` separators and no leading `./`.
pub fn relative_of(path: &std::path::Path) -> String {
    let p = path.display().to_string().replace('\\', "/");
    p.strip_prefix("./").map_or(p.clone(), str::to_string)
}

/// A path as a URI reference: relative as given, `file://` when absolute.
pub fn uri_of(path: &std::path::Path) -> String {
    let p = relative_of(path);
    if path.is_absolute() {
        format!("file://{}{p}", if p.starts_with('/') { "" } else { "/" })
    } else {
        p
    }
}

/// Counts for the summary line and the exit status.
#[derive(Default, Clone, Copy, PartialEq, Eq, Debug)]
pub struct Summary {
    pub files: usize,
    pub errors: usize,
    pub warnings: usize,
    /// Notes (statements skipped): never a failure.
    pub notes: usize,
    /// Findings in files whose findings `zy.toml` expects (not counted above).
    pub expected: usize,
    /// Functions typed and linted, over all files.
    pub checked_functions: usize,
    /// Functions that could not be typed (no annotated call, no typed caller, no concrete
    /// parameter annotations), over all files.
    pub untyped_functions: usize,
    /// The files' own `@test`s by verdict, over all files.
    pub tests: TestCounts,
}

impl Summary {
    fn of(reports: &[FileReport]) -> Summary {
        let mut s = Summary {
            files: reports.len(),
            ..Summary::default()
        };
        for r in reports {
            s.checked_functions += r.coverage.checked;
            s.untyped_functions += r.coverage.untyped.len();
            s.tests.add(r.tests);
            for d in &r.findings {
                match (r.expected, d.severity) {
                    (true, _) => s.expected += 1,
                    (false, Severity::Error) => s.errors += 1,
                    (false, Severity::Warning) => s.warnings += 1,
                    (false, Severity::Note) => s.notes += 1,
                }
            }
        }
        s
    }
}

/// Time spent per stage, summed over files (across threads).
#[derive(Default)]
struct Stages {
    read: Duration,
    parse: Duration,
    analyse: Duration,
    gradcheck: Duration,
}

impl Stages {
    fn add(&mut self, other: &Stages) {
        self.read += other.read;
        self.parse += other.parse;
        self.analyse += other.analyse;
        self.gradcheck += other.gradcheck;
    }
}

/// Run the check: the report, the errors and the exit status.
pub fn run(args: &CheckArgs) -> Outcome {
    let started = Instant::now();
    let config = match crate::config::load(args.config.as_deref()) {
        Ok(c) => c,
        Err(message) => return Outcome::failure(IO_FAILURE, message),
    };
    let roots = if args.paths.is_empty() {
        vec![PathBuf::from(".")]
    } else {
        args.paths.clone()
    };
    let found = walk::collect(&roots);
    let progress = if args.progress && args.format == CheckFormat::Text {
        indicatif::ProgressBar::new(found.files.len() as u64)
    } else {
        indicatif::ProgressBar::hidden()
    };
    let (reports, read_errors, stages) = check_all(&found.files, &config, &args.limits, &progress);
    progress.finish_and_clear();
    let summary = Summary::of(&reports);
    let mut out = Outcome {
        stdout: match args.format {
            CheckFormat::Text => text::render(&reports, summary, colour(args.color)),
            CheckFormat::Short => text::short(&reports),
            CheckFormat::Json => json::render(&reports, summary),
            CheckFormat::Sarif => sarif::render(&reports),
        },
        ..Outcome::default()
    };
    let mut errors: Vec<(PathBuf, String)> = found.errors;
    errors.extend(read_errors);
    errors.sort();
    for (_, e) in &errors {
        out.stderr.push_str(e);
        out.stderr.push('\n');
    }
    if args.verbose {
        for r in &reports {
            for u in &r.coverage.untyped {
                out.stderr.push_str(&format!(
                    "{}:{}:{}: note: `{}` not typed (no `# zy: at`, no caller, no concrete annotations)\n",
                    r.path.display(),
                    u.line,
                    u.col,
                    u.name
                ));
            }
        }
        for (path, why) in &found.skipped {
            out.stderr
                .push_str(&format!("{}: note: skipped: {why}\n", path.display()));
        }
    }
    if args.timings {
        out.stderr.push_str(&format!(
            "zy-analyze: {} files in {:.2} s wall; per stage (summed over threads): read {:.2} s, parse {:.2} s, lower, type and lint {:.2} s, gradchecks {:.2} s\n",
            summary.files,
            started.elapsed().as_secs_f64(),
            stages.read.as_secs_f64(),
            stages.parse.as_secs_f64(),
            stages.analyse.as_secs_f64(),
            stages.gradcheck.as_secs_f64()
        ));
    }
    out.status = if !errors.is_empty() {
        IO_FAILURE
    } else if summary.errors > 0 || (args.deny_warnings && summary.warnings > 0) {
        FAILURE
    } else {
        0
    };
    out
}

/// Draw a progress bar? On a terminal, outside CI.
pub fn interactive() -> bool {
    std::io::stderr().is_terminal() && std::env::var_os("CI").is_none()
}

/// Stack size of the checking threads: analysis recurses along the analysed program's call
/// chains.
const STACK_SIZE: usize = 512 << 20;

/// Check every file on as many threads as there are cores; reports come back in `paths` order,
/// with the files that could not be read and why. The files are read first into one host, with
/// the files they include (reported after the given ones), so that an included file is checked
/// in its includer's program.
fn check_all(
    paths: &[PathBuf],
    config: &Loaded,
    limits: &EvalLimits,
    progress: &indicatif::ProgressBar,
) -> (Vec<FileReport>, Vec<(PathBuf, String)>, Stages) {
    let mut stages = Stages::default();
    let t = Instant::now();
    let mut host = AnalysisHost::new();
    host.prefer_quick_code();
    let mut loaded = Vec::new();
    let mut errors = Vec::new();
    for path in paths {
        match crate::source::read(path, config.max_file_size()) {
            Ok(source) => {
                let file = host.set_file_text(path, source.text.clone());
                loaded.push((path.clone(), file, source));
            }
            Err(e) => errors.push((path.clone(), e.to_string())),
        }
    }
    // The files the given ones include (a package's `src/Pkg.jl` includes the rest) are
    // checked too, in their includer's program.
    let mut included = Vec::new();
    host.load_includes(
        |path| match crate::source::read(path, config.max_file_size()) {
            Ok(source) => {
                let text = source.text.clone();
                included.push((path.to_path_buf(), source));
                Ok(text)
            }
            Err(e) => Err(crate::load::include_failure(e)),
        },
    );
    for (path, source) in included {
        if let Some(file) = host.file_id(&path) {
            loaded.push((path, file, source));
        }
    }
    // A part of a package given alone is checked in the program of the package's file that
    // includes it (`src/utils.jl` in `src/Pkg.jl`'s).
    let given: Vec<FileId> = loaded.iter().map(|(_, file, _)| *file).collect();
    for file in given {
        host.load_package_entry(file, crate::load::include_reader(config.max_file_size()));
    }
    stages.read += t.elapsed();
    let analysis = host.analysis();
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<(usize, Result<FileReport, String>)>> = Mutex::new(Vec::new());
    let shared = Mutex::new(stages);
    let workers = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(loaded.len().max(1));
    std::thread::scope(|scope| {
        for i in 0..workers {
            let analysis = analysis.clone();
            let (next, results, shared, loaded) = (&next, &results, &shared, &loaded);
            let worker = move || loop {
                let k = next.fetch_add(1, Ordering::SeqCst);
                let Some((path, file, source)) = loaded.get(k) else {
                    break;
                };
                let mut local = Stages::default();
                let report = check_file(&analysis, path, *file, source, config, limits, &mut local);
                if let Ok(mut s) = shared.lock() {
                    s.add(&local);
                }
                if let Ok(mut r) = results.lock() {
                    r.push((k, report));
                }
                progress.inc(1);
            };
            let spawned = std::thread::Builder::new()
                .name(format!("check-{i}"))
                .stack_size(STACK_SIZE)
                .spawn_scoped(scope, worker);
            if spawned.is_err() {
                break; // the threads already running take the remaining files
            }
        }
    });
    drop(analysis);
    let mut results = results.into_inner().unwrap_or_default();
    results.sort_by_key(|(k, _)| *k);
    let mut reports = Vec::new();
    for (k, r) in results {
        match r {
            Ok(report) => reports.push(report),
            Err(e) => errors.push((loaded.get(k).map(|l| l.0.clone()).unwrap_or_default(), e)),
        }
    }
    (reports, errors, shared.into_inner().unwrap_or_default())
}

fn check_file(
    analysis: &Analysis,
    path: &Path,
    file: FileId,
    source: &Source,
    config: &Loaded,
    limits: &EvalLimits,
    stages: &mut Stages,
) -> Result<FileReport, String> {
    let file_config: FileConfig = config.for_path(path);
    let cancelled = |_| {
        format!(
            "zy-analyze: internal error: analysis of {} cancelled",
            path.display()
        )
    };
    let t = Instant::now();
    analysis.outline(file).map_err(cancelled)?;
    stages.parse += t.elapsed();
    let t = Instant::now();
    let mut findings = analysis
        .check_static(file, &file_config)
        .map_err(cancelled)?;
    stages.analyse += t.elapsed();
    let t = Instant::now();
    findings.extend(
        analysis
            .check_gradchecks(file, &file_config, limits.clone())
            .map_err(cancelled)?,
    );
    let tests = analysis
        .check_tests(file, &file_config, limits.clone())
        .map_err(cancelled)?
        .apply(&mut findings);
    stages.gradcheck += t.elapsed();
    let coverage = analysis.coverage(file).map_err(cancelled)?;
    findings.sort_by_key(|d| (d.start, d.end));
    Ok(FileReport {
        path: path.to_path_buf(),
        text: source.text.clone(),
        bom: source.bom,
        findings,
        coverage,
        tests,
        expected: file_config.expected,
    })
}

/// Colours for text output: `--color`, else on a terminal unless `NO_COLOR` is set.
fn colour(arg: ColorArg) -> bool {
    match arg {
        ColorArg::Always => true,
        ColorArg::Never => false,
        ColorArg::Auto => {
            std::io::stdout().is_terminal()
                && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
        }
    }
}
