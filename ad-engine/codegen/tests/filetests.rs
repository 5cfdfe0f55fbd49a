//! IR filetests and the IR text round trip, one trial per file:
//!
//! - `ir/NAME.zyir`: a filetest of `fixtures/ir/` (the format is in `fixtures/ir/README.md`):
//!   its functions are read, verified against their `; error:` annotations, run on the
//!   interpreter and the JIT for each `; run:` line, and differentiated for each `; grad:` line,
//!   with the forward and pullback text compared to the file's `; gradient:` block (rewritten
//!   with `UPDATE_EXPECT=1`).
//! - `round-trip/NAME.jl`: every function of a fixture at every stage (the untyped bodies; the
//!   typed, expanded, forward, pullback and driver functions of every call its annotations and
//!   expectations name) prints, reads back and prints to the same text and verifies as the
//!   original does; the program read back runs each call to the same result.

mod support;

#[path = "filetests/file.rs"]
mod file;
#[path = "filetests/round_trip.rs"]
mod round_trip;
#[path = "filetests/values.rs"]
mod values;

use std::path::{Path, PathBuf};

use libtest_mimic::{Arguments, Failed, Trial};

fn main() {
    let args = Arguments::from_args();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures");
    let mut trials = Vec::new();
    for path in files(&root.join("ir"), "zyir") {
        let name = format!("ir/{}", file_name(&path));
        trials.push(Trial::test(name, move || {
            file::run(&path).map_err(Failed::from)
        }));
    }
    let mut sources = Vec::new();
    for dir in ["", "table2", "errors", "lints"] {
        sources.extend(files(&root.join(dir), "jl"));
    }
    for path in sources {
        let dir = path
            .parent()
            .and_then(Path::file_name)
            .map(|d| d.to_string_lossy().to_string());
        let name = match dir.as_deref() {
            Some("fixtures") | None => format!("round-trip/{}", file_name(&path)),
            Some(d) => format!("round-trip/{d}/{}", file_name(&path)),
        };
        trials.push(Trial::test(name, move || {
            round_trip::run(&path).map_err(Failed::from)
        }));
    }
    libtest_mimic::run(&args, trials).exit();
}

fn files(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == ext))
        .collect();
    out.sort();
    out
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|f| f.to_string_lossy().to_string())
        .unwrap_or_default()
}

/// `path` as `fixtures/...`, for messages.
fn shown(path: &Path) -> String {
    let text = path.display().to_string();
    match text.find("fixtures/") {
        Some(i) => text[i..].to_string(),
        None => text,
    }
}
