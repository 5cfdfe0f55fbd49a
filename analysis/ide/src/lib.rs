//! The API of zy's analyses for the CLI and the language server: plain data in, plain data out.
//!
//! [`AnalysisHost`] owns the database and applies edits; [`Analysis`] is a snapshot that can be
//! sent to another thread. Every query on a snapshot returns [`Cancellable`]: an edit applied to
//! the host while a query runs makes it return `Err(Cancelled)` instead of a stale answer.

mod annotated;
mod arguments;
mod check;
mod checkpoint_hover;
mod completion;
mod culprit;
mod debug;
mod definition;
mod derivative;
mod diagnostics;
mod docs;
mod dot;
mod error;
mod eval;
mod field;
mod forward_check;
mod grad;
mod gradcheck;
mod hints;
mod hover;
mod locate;
mod markdown;
mod nonfinite;
mod outline;
mod test_lens;
mod trace;
mod view_ir;
mod why;

use std::collections::{HashMap, HashSet};
use std::panic::AssertUnwindSafe;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError, Weak};

use salsa::Setter;
use zy_hir::input::{CodeGoal, Unreadable};
use zy_hir::{RootDatabase, SourceFile, Workspace};

pub use check::{
    lint, Config, ConfigError, Coverage, FileConfig, Level, Lint, TestCounts, TestRun, Untyped,
    DEFAULT_MAX_FILE_SIZE, GRADIENT_CUT, LINTS, MUTATION_AFTER_CAPTURE, NONFINITE_GRADIENT,
    RRULE_MISMATCH, TEST_FAILED, TEST_NOT_RUN, UNBOUNDED_TAPE, ZERO_GRADIENT,
};
pub use completion::{Completion, CompletionKind};
pub use culprit::Related;
pub use definition::{prelude_text, Location};
pub use derivative::DerivativeResult;
pub use diagnostics::{Diagnostic, Severity};
pub use error::{UserError, CALL_FILE};
pub use eval::{EvalLimits, EvalResult};
pub use grad::{Engine, GradOptions, GradResult};
pub use gradcheck::{FORWARD_MISMATCH, GRADCHECK};
pub use hints::InlayHint;
pub use hover::HoverResult;
pub use nonfinite::{is_finite, NonFinite};
pub use outline::{FunctionOutline, ParamOutline};
pub use test_lens::{Testset, TestsetResult};
pub use trace::{Runs, TraceRow};
pub use view_ir::IrStage;
pub use why::Why;
/// Whether JIT code is listed for `perf` (`ZY_PERF_MAP=1`): call at the start of `main`.
pub use zy_codegen::decide_perf_map;

/// The stack a thread running analyses should have: queries recurse along the call chains of
/// the analysed program (typing a function types its callees first), so a deep program needs
/// far more than a default thread stack (a 3000-deep chain overflows 8 MiB in a debug build).
/// The memory is reserved, not used, until the recursion reaches it.
pub const ANALYSIS_STACK_SIZE: usize = 1 << 30;

/// The most programs of call strings with functions of their own
/// ([`zy_hir::RootDatabase::call_programs`]) the host's database holds before an edit starts a
/// fresh one (in this crate's unit tests a smaller bound, which they reach in fewer edits).
pub const MAX_CALL_PROGRAMS: usize = if cfg!(test) { 32 } else { 256 };

/// The result of a query on a snapshot: `Err` if an edit cancelled it.
pub type Cancellable<T> = Result<T, salsa::Cancelled>;

/// A handle to a file of the workspace (cheap to copy, valid for the host's lifetime).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct FileId(SourceFile);

impl FileId {
    /// The database's input for this file, for tests and benchmarks that query the database
    /// directly ([`AnalysisHost::raw_database`]).
    pub fn source_file(self) -> SourceFile {
        self.0
    }
}

/// Owns the analysis database; the one place edits are applied.
#[derive(Default)]
pub struct AnalysisHost {
    db: RootDatabase,
    files: HashMap<PathBuf, SourceFile>,
    order: Vec<SourceFile>,
    /// Every file made, removed ones too, in the order made: a fresh database makes them
    /// again in this order, so that they keep their ids ([`AnalysisHost::bound_memory`]).
    made: Vec<SourceFile>,
    /// The removed files by path, made again if their path comes back (a package entry tried
    /// at every edit): salsa frees no input.
    spare: HashMap<PathBuf, SourceFile>,
    /// The flags of the snapshots handed out since the last edit, raised when an edit makes
    /// them stale: that stops their interpreter runs, which salsa's own cancellation (checked
    /// between queries) cannot reach.
    snapshots: Mutex<Vec<Weak<AtomicBool>>>,
}

/// The files that may include `path` in a package laid out as Julia's, nearest first: for each
/// enclosing `src` directory its package's module file (`src/MyPkg.jl`, the package named by
/// the `name` of its `Project.toml`, else by its folder: `MyPkg.jl/src/MyPkg.jl`), for each
/// enclosing `test` directory its `runtests.jl`. A relative path names its package by the
/// absolute one (`src/a.jl` checked from inside the package's folder).
fn package_entries(
    path: &Path,
    read: &mut impl FnMut(&Path) -> Result<String, String>,
) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for dir in path.ancestors().skip(1) {
        match dir.file_name().and_then(|n| n.to_str()) {
            Some("src") => {
                let root = dir.parent().unwrap_or(Path::new(""));
                let named = read(&root.join("Project.toml"))
                    .ok()
                    .and_then(|text| project_name(&text));
                let absolute = std::path::absolute(dir).ok();
                let folder = absolute
                    .as_deref()
                    .and_then(Path::parent)
                    .and_then(Path::file_name)
                    .and_then(|n| n.to_str())
                    .map(|n| n.strip_suffix(".jl").unwrap_or(n).to_string());
                for name in named.into_iter().chain(folder) {
                    let entry = dir.join(format!("{name}.jl"));
                    if !out.contains(&entry) {
                        out.push(entry);
                    }
                }
            }
            Some("test") => out.push(dir.join("runtests.jl")),
            _ => {}
        }
    }
    out
}

/// The package name a `Project.toml` gives (`name = "MyPkg"`), if it parses and has one.
fn project_name(text: &str) -> Option<String> {
    let table: toml::Table = toml::from_str(text).ok()?;
    Some(table.get("name")?.as_str()?.to_string())
}

impl AnalysisHost {
    /// An empty workspace.
    pub fn new() -> AnalysisHost {
        AnalysisHost::default()
    }

    /// An empty workspace whose database can log the queries that execute, for tests
    /// ([`RootDatabase::enable_query_log`]).
    pub fn with_query_log() -> AnalysisHost {
        AnalysisHost {
            db: RootDatabase::with_query_log(),
            ..AnalysisHost::default()
        }
    }

    /// Compile the functions this host runs quickly rather than to fast code: for a process
    /// that calls each a few times (`zy-analyze check`, `grad`, `eval`), where Cranelift's
    /// optimisations and register allocation would cost more than they save.
    pub fn prefer_quick_code(&mut self) {
        self.invalidate_snapshots();
        CodeGoal::get(&self.db).set_quick(&mut self.db).to(true);
    }

    /// Add a file or replace its text. Cancels running snapshot queries and waits for the
    /// snapshots to be dropped (do not call it while holding an [`Analysis`] on this thread).
    pub fn set_file_text(&mut self, path: &Path, text: String) -> FileId {
        self.bound_memory();
        if let Some(&file) = self.files.get(path) {
            if file.text(&self.db) != &text {
                self.invalidate_snapshots();
                file.set_text(&mut self.db).to(text);
            }
            return FileId(file);
        }
        self.invalidate_snapshots();
        let file = match self.spare.remove(path) {
            Some(file) => {
                file.set_text(&mut self.db).to(text);
                file
            }
            None => {
                let file = SourceFile::new(&self.db, path.to_path_buf(), text);
                self.made.push(file);
                file
            }
        };
        self.files.insert(path.to_path_buf(), file);
        self.order.push(file);
        self.sync_workspace();
        FileId(file)
    }

    /// Past [`MAX_CALL_PROGRAMS`] programs of call strings, start a fresh database holding the
    /// same files (what was memoised is computed again as it is asked for): salsa never frees
    /// a program, and every call string with functions of its own has one (each edit of a
    /// test in a loop makes another), with everything memoised under it.
    fn bound_memory(&mut self) {
        if self.db.call_programs() <= MAX_CALL_PROGRAMS {
            return;
        }
        self.invalidate_snapshots();
        let fresh = self.db.fresh();
        let old = std::mem::replace(&mut self.db, fresh);
        // Made in the same order, a file has its id again (the FileIds handed out stay
        // valid) while the files fit in the table's first page of them; the host's own
        // handles follow the new ones anyway. A removed file is made again empty.
        let spare: HashSet<SourceFile> = self.spare.values().copied().collect();
        let again: HashMap<SourceFile, SourceFile> = self
            .made
            .iter()
            .map(|&f| {
                let path = f.path(&old).clone();
                let text = match spare.contains(&f) {
                    true => String::new(),
                    false => f.text(&old).clone(),
                };
                (f, SourceFile::new(&self.db, path, text))
            })
            .collect();
        let renew = |f: &mut SourceFile| *f = again.get(f).copied().unwrap_or(*f);
        self.made.iter_mut().for_each(renew);
        self.order.iter_mut().for_each(renew);
        self.files.values_mut().for_each(renew);
        self.spare.values_mut().for_each(renew);
        let reasons = Unreadable::get(&old).reasons(&old).clone();
        Unreadable::get(&self.db)
            .set_reasons(&mut self.db)
            .to(reasons);
        let quick = *CodeGoal::get(&old).quick(&old);
        CodeGoal::get(&self.db).set_quick(&mut self.db).to(quick);
        self.sync_workspace();
    }

    /// The paths that files of the workspace `include`, or where a package they import keeps
    /// its source (`../src/P.jl`), but that are neither loaded nor known to be unreadable, in a
    /// stable order. See [`AnalysisHost::load_includes`].
    pub fn missing_includes(&self) -> Vec<PathBuf> {
        let db = &self.db;
        let loaded = zy_hir::scope::files_by_path(db, Workspace::get(db));
        let unreadable = Unreadable::get(db).reasons(db);
        let mut out: Vec<PathBuf> = self
            .order
            .iter()
            .flat_map(|&f| {
                let included = zy_hir::includes(db, f).iter().map(|(_, p)| p.clone());
                let sources = zy_hir::package_sources(db, f)
                    .iter()
                    .map(|(_, p)| p.clone());
                included.chain(sources)
            })
            .filter(|p| !loaded.contains_key(p) && !unreadable.contains_key(p))
            .collect();
        out.sort();
        out.dedup();
        out
    }

    /// Load every file that the workspace includes, transitively, through `read` (which gives
    /// the text or why it cannot): the caller decides how files are read (size limits, which
    /// files are regular). An unreadable file is reported at each `include` of it.
    pub fn load_includes(&mut self, mut read: impl FnMut(&Path) -> Result<String, String>) {
        let mut tried = std::collections::HashSet::new();
        loop {
            let missing: Vec<PathBuf> = self
                .missing_includes()
                .into_iter()
                .filter(|p| tried.insert(p.clone()))
                .collect();
            if missing.is_empty() {
                return;
            }
            for path in missing {
                match read(&path) {
                    Ok(text) => {
                        self.set_file_text(&path, text);
                    }
                    Err(reason) => self.set_unreadable(&path, reason),
                }
            }
        }
    }

    /// Load the file that includes `file` when `file` is a part of a package laid out as
    /// Julia's and was given alone: `src/Pkg.jl` (in a package directory `Pkg` or `Pkg.jl`)
    /// for a file under `src/`, `test/runtests.jl` for one under `test/`, through `read`, with
    /// what it includes. Only an entry that then includes `file` is kept, so that an included
    /// file's code sees its module's names (`const`s, `using`s) as Julia's `using Pkg` loads it.
    pub fn load_package_entry(
        &mut self,
        file: FileId,
        mut read: impl FnMut(&Path) -> Result<String, String>,
    ) {
        let path = file.0.path(&self.db).clone();
        for entry in package_entries(&path, &mut read) {
            if entry == path || self.files.contains_key(&entry) {
                continue;
            }
            let Ok(text) = read(&entry) else {
                continue;
            };
            self.set_file_text(&entry, text);
            self.load_includes(&mut read);
            if zy_hir::scope_root(&self.db, file.0).path(&self.db) == &entry {
                return;
            }
            self.remove_file(&entry);
        }
    }

    /// Record that the file at `path` could not be read, and why.
    pub fn set_unreadable(&mut self, path: &Path, reason: String) {
        self.invalidate_snapshots();
        let unreadable = Unreadable::get(&self.db);
        let mut reasons = unreadable.reasons(&self.db).clone();
        reasons.insert(zy_hir::scope::normalize(path), reason);
        unreadable.set_reasons(&mut self.db).to(reasons);
    }

    /// Remove a file from the workspace (its definitions disappear).
    pub fn remove_file(&mut self, path: &Path) {
        if let Some(file) = self.files.remove(path) {
            self.invalidate_snapshots();
            self.order.retain(|f| *f != file);
            self.spare.insert(path.to_path_buf(), file);
            self.sync_workspace();
        }
    }

    /// The id of a file added earlier.
    pub fn file_id(&self, path: &Path) -> Option<FileId> {
        self.files.get(path).copied().map(FileId)
    }

    /// A snapshot for queries (possibly on another thread), with a cancel flag of its own.
    pub fn analysis(&self) -> Analysis {
        let stale = Arc::new(AtomicBool::new(false));
        let mut snapshots = self
            .snapshots
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        snapshots.retain(|s| s.strong_count() > 0);
        snapshots.push(Arc::downgrade(&stale));
        Analysis {
            db: self.db.clone(),
            stale,
        }
    }

    /// The database itself, for tests that inspect the query log.
    pub fn raw_database(&self) -> &RootDatabase {
        &self.db
    }

    /// Stop the snapshots' interpreter runs before an edit (the edit then waits for the
    /// snapshots to be dropped).
    fn invalidate_snapshots(&mut self) {
        let snapshots = self
            .snapshots
            .get_mut()
            .unwrap_or_else(PoisonError::into_inner);
        for stale in snapshots.drain(..).filter_map(|s| s.upgrade()) {
            stale.store(true, Ordering::SeqCst);
        }
    }

    fn sync_workspace(&mut self) {
        let files = self.order.clone();
        Workspace::get(&self.db).set_files(&mut self.db).to(files);
    }
}

/// A snapshot of the database: every method answers for the state at the time of the snapshot,
/// or is cancelled by a later edit.
#[derive(Clone)]
pub struct Analysis {
    db: RootDatabase,
    /// Set once an edit has made this snapshot stale (or its owner cancelled it).
    stale: Arc<AtomicBool>,
}

impl Analysis {
    /// Run `f` on the snapshot, turning salsa's cancellation unwinding into `Err`.
    fn with_db<T>(&self, f: impl FnOnce(&RootDatabase) -> T) -> Cancellable<T> {
        salsa::Cancelled::catch(AssertUnwindSafe(|| f(&self.db)))
    }

    /// The flag that stops this snapshot's interpreter and JIT runs: an edit raises it, and so
    /// may its owner (a cancelled request): the query running then returns `Cancelled`. Other
    /// snapshots are not affected; clones of this one are.
    pub fn stale_flag(&self) -> Arc<AtomicBool> {
        self.stale.clone()
    }

    /// Unwind as a cancelled query if an edit has made this snapshot stale (called after an
    /// interrupted run, so the interruption is reported as cancellation, not as an error).
    fn unwind_if_stale(&self) {
        if self.stale.load(Ordering::SeqCst) {
            std::panic::resume_unwind(Box::new(salsa::Cancelled::PendingWrite));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn assert_send<T: Send + 'static>() {}

    #[test]
    fn snapshot_is_send() {
        assert_send::<Analysis>();
    }

    #[test]
    fn an_edit_cancels_a_running_evaluation() {
        let mut host = AnalysisHost::new();
        let path = Path::new("spin.jl");
        let file = host.set_file_text(
            path,
            "function spin(x)\n    while true end\n    x\nend\n".into(),
        );
        let analysis = host.analysis();
        let limits = EvalLimits {
            timeout: None,
            ..EvalLimits::default()
        };
        let worker =
            std::thread::spawn(move || analysis.eval(file, "spin(1.0)", limits).map(|_| ()));
        std::thread::sleep(std::time::Duration::from_millis(100));
        host.set_file_text(path, "spin(x) = x\n".into());
        let outcome = worker.join().map_err(|_| "worker panicked");
        assert!(
            matches!(outcome, Ok(Err(salsa::Cancelled::PendingWrite))),
            "{outcome:?}"
        );
        let v = host
            .analysis()
            .eval(file, "spin(1.0)", EvalLimits::default())
            .unwrap()
            .unwrap();
        assert_eq!(v.display, "1.0");
    }

    #[test]
    fn a_snapshot_cancelled_by_its_owner_stops_alone() {
        let mut host = AnalysisHost::new();
        let path = Path::new("spin.jl");
        let text = "function spin(x)\n    while true end\n    x\nend\nid(x) = x\n";
        let file = host.set_file_text(path, text.into());
        let (cancelled, other) = (host.analysis(), host.analysis());
        let limits = EvalLimits {
            timeout: None,
            ..EvalLimits::default()
        };
        let flag = cancelled.stale_flag();
        let worker =
            std::thread::spawn(move || cancelled.eval(file, "spin(1.0)", limits).map(|_| ()));
        std::thread::sleep(std::time::Duration::from_millis(100));
        flag.store(true, Ordering::SeqCst);
        let outcome = worker.join().map_err(|_| "worker panicked");
        assert!(
            matches!(outcome, Ok(Err(salsa::Cancelled::PendingWrite))),
            "{outcome:?}"
        );
        let v = other
            .eval(file, "id(2.0)", EvalLimits::default())
            .unwrap()
            .unwrap();
        assert_eq!(v.display, "2.0");
    }

    #[test]
    fn edits_each_with_a_closure_keep_the_program_keys_bounded() {
        // Each edit changes the file, and every third evaluates a call string with a closure
        // of its own (a program of its own, as a test in a loop has): twice the bound of
        // programs, which stay under it; the file keeps its id, and every value is right:
        // 2(1 + k) + k - k.
        let mut host = AnalysisHost::new();
        let path = Path::new("edits.jl");
        let file = host.set_file_text(path, "f(x) = x\n".into());
        let mut most = 0;
        for k in 0..6 * MAX_CALL_PROGRAMS {
            let again = host.set_file_text(path, format!("f(x) = x + {k}\n"));
            assert_eq!(again, file);
            if k % 3 > 0 {
                continue;
            }
            let call = format!("(x -> 2f(x) + {k} - {k})(1.0)");
            let v = host.analysis().eval(file, &call, EvalLimits::default());
            let v = v.expect("not cancelled").expect("evaluates");
            assert_eq!(v.display, format!("{:?}", 2.0 * (k as f64 + 1.0)));
            most = most.max(host.raw_database().call_programs());
        }
        assert!(
            most > MAX_CALL_PROGRAMS / 2 && most <= MAX_CALL_PROGRAMS + 1,
            "{most}"
        );
    }

    #[test]
    fn a_package_entry_tried_at_every_edit_makes_no_new_file() {
        // The LSP loads the package entry of an edited file at every edit; an entry that does
        // not include the file is made and removed again each time: one input, made once.
        let mut host = AnalysisHost::new();
        let path = Path::new("/pkg/src/part.jl");
        let entry = "x = 1\n".to_string();
        for k in 0..100 {
            let file = host.set_file_text(path, format!("f(x) = x + {k}\n"));
            host.load_package_entry(file, |_| Ok(entry.clone()));
            assert_eq!(host.file_id(Path::new("/pkg/src/pkg.jl")), None);
        }
        assert_eq!(host.made.len(), 2);
        let file = host.set_file_text(Path::new("/pkg/src/pkg.jl"), "g(x) = 2x\n".into());
        let v = host.analysis().eval(file, "g(2.0)", EvalLimits::default());
        assert_eq!(v.expect("not cancelled").expect("evaluates").display, "4.0");
    }
}
