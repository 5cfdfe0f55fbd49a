//! Every fixture program lowers with well-formed IR, and those outside `fixtures/errors` lower
//! without errors.

use crate::common;

use std::path::{Path, PathBuf};

use zy_lower::lower_file;

fn jl_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            jl_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "jl") {
            out.push(path);
        }
    }
}

#[test]
fn fixtures_lower_cleanly() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures");
    let mut files = Vec::new();
    jl_files(&root, &mut files);
    files.sort();
    assert!(
        files.len() >= 20,
        "fixtures not found under {}",
        root.display()
    );
    for path in files {
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        let file = zy_syntax::parse_file(&text);
        let lowered = lower_file(0, &file);
        for f in common::functions(&lowered) {
            common::check(f);
        }
        let expect_errors = path.components().any(|c| c.as_os_str() == "errors");
        if !expect_errors {
            // `lower_file` flattens modules, so one name bound in two of them (each module's
            // own `SCALE`, kept apart by the salsa layer) reads here as bound twice.
            let modules = file
                .items
                .iter()
                .any(|i| matches!(i, zy_syntax::ast::Item::Module(_)));
            let errors: String = common::errors(&lowered)
                .lines()
                .filter(|e| !(modules && e.contains("assigned more than once")))
                .map(|e| format!("{e}\n"))
                .collect();
            assert_eq!(errors, "", "{}", path.display());
        }
    }
}

/// Broken programs (each fixture with one line removed) still lower to well-formed IR without
/// panicking, whatever the parser made of them. Each file loses in turn each of at most
/// `REMOVALS` of its code lines, spread evenly over it: every line of every file made the test
/// quadratic in the fixtures' size (12 minutes); the parse fuzzer covers the rest.
#[test]
fn fixtures_with_a_line_removed_lower_without_panics() {
    const REMOVALS: usize = 40;
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures");
    let mut files = Vec::new();
    jl_files(&root, &mut files);
    files.sort();
    for path in files {
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        let lines: Vec<&str> = text.lines().collect();
        let code: Vec<usize> = (0..lines.len())
            .filter(|&i| !lines[i].trim_start().starts_with('#') && !lines[i].trim().is_empty())
            .collect();
        let stride = code.len().div_ceil(REMOVALS).max(1);
        for &skip in code.iter().step_by(stride) {
            let mutated: Vec<&str> = lines
                .iter()
                .enumerate()
                .filter(|(i, _)| *i != skip)
                .map(|(_, l)| *l)
                .collect();
            let file = zy_syntax::parse_file(&mutated.join("\n"));
            let lowered = lower_file(0, &file);
            for f in common::functions(&lowered) {
                common::check(f);
            }
        }
    }
}
