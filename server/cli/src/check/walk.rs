//! Finding the `.jl` files under the paths. A path named on the command line is taken as it is
//! (a symbolic link is followed, a file is taken whatever its extension); inside directories
//! only directories and regular `.jl` files are entered or taken: symbolic links are not
//! followed (as in ripgrep and ruff), so a check never leaves the trees it was given nor loops,
//! and named pipes, sockets and devices are never opened. Hidden directories, `target` and
//! `node_modules` are skipped. A directory that cannot be read is reported and the walk goes
//! on; the files come out sorted, so the order never depends on the file system's.

use std::fs::FileType;
use std::path::{Path, PathBuf};

/// What the walk found.
#[derive(Default, Debug)]
pub struct Found {
    /// The files to check, sorted, each once.
    pub files: Vec<PathBuf>,
    /// Paths that could not be read, with a one-line error each, sorted by path.
    pub errors: Vec<(PathBuf, String)>,
    /// Entries of directories that were neither entered nor read, with why, sorted by path.
    pub skipped: Vec<(PathBuf, &'static str)>,
}

/// Why a symbolic link inside a directory is not checked.
const LINK: &str =
    "a symbolic link inside a directory is not followed (name it on the command line to check it)";
/// Why a named pipe, socket or device named `*.jl` is not checked.
const SPECIAL: &str = "not a regular file";

/// Every file to check at or under `roots`.
pub fn collect(roots: &[PathBuf]) -> Found {
    let mut found = Found::default();
    for root in roots {
        match std::fs::metadata(root) {
            Ok(meta) if meta.is_dir() => walk(root, &mut found),
            // Read (or refused, with the reason) like any file.
            Ok(_) => found.files.push(root.clone()),
            Err(e) => found
                .errors
                .push((root.clone(), crate::source::io_error(root, &e).to_string())),
        }
    }
    found.files.sort();
    found.files.dedup();
    found.errors.sort();
    found.skipped.sort();
    // A link also named on the command line is checked: it is not reported as skipped.
    let files = &found.files;
    found
        .skipped
        .retain(|(p, _)| files.binary_search(p).is_err());
    found
}

/// The files under the directory `root`, depth first with an explicit stack.
fn walk(root: &Path, found: &mut Found) {
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let entries = match std::fs::read_dir(&dir) {
            Ok(entries) => entries,
            Err(e) => {
                found.errors.push((dir.clone(), directory_error(&dir, &e)));
                continue;
            }
        };
        for entry in entries {
            let entry = match entry {
                Ok(entry) => entry,
                Err(e) => {
                    // The listing broke off: what was listed is kept, the rest is reported.
                    found.errors.push((dir.clone(), directory_error(&dir, &e)));
                    break;
                }
            };
            let path = entry.path();
            match entry.file_type() {
                Ok(t) => visit(path, t, &mut stack, found),
                Err(e) => found
                    .errors
                    .push((path.clone(), crate::source::io_error(&path, &e).to_string())),
            }
        }
    }
}

/// Take, enter or skip the directory entry `path` of type `t` (not following links).
fn visit(path: PathBuf, t: FileType, stack: &mut Vec<PathBuf>, found: &mut Found) {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy())
        .unwrap_or_default();
    if t.is_symlink() {
        found.skipped.push((path, LINK));
    } else if t.is_dir() {
        if !name.starts_with('.') && name != "target" && name != "node_modules" {
            stack.push(path);
        }
    } else if path.extension().is_some_and(|e| e == "jl") {
        if t.is_file() {
            found.files.push(path);
        } else {
            found.skipped.push((path, SPECIAL));
        }
    }
}

/// The one-line error for a directory that cannot be listed.
fn directory_error(dir: &Path, e: &std::io::Error) -> String {
    format!("{}: error: cannot read directory: {e}", dir.display())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The found paths relative to `dir`, one per line, then errors and skips.
    fn listing(dir: &Path, found: &Found) -> String {
        let rel = |p: &Path| p.strip_prefix(dir).unwrap_or(p).display().to_string();
        let mut out: Vec<String> = found.files.iter().map(|p| rel(p)).collect();
        out.extend(
            found
                .skipped
                .iter()
                .map(|(p, why)| format!("skipped {}: {why}", rel(p))),
        );
        out.extend(
            found
                .errors
                .iter()
                .map(|(p, _)| format!("error {}", rel(p))),
        );
        out.join("\n")
    }

    #[cfg(unix)]
    #[test]
    fn links_and_special_files_inside_directories_are_skipped() {
        let dir = tempfile::tempdir().expect("temp dir");
        let d = dir.path();
        for sub in ["b/c", ".hidden", "target", "a"] {
            std::fs::create_dir_all(d.join(sub)).expect("mkdir");
        }
        for file in [
            "b/c/z.jl",
            "a/y.jl",
            "a/notes.txt",
            ".hidden/h.jl",
            "target/t.jl",
            "x.JL",
        ] {
            std::fs::write(d.join(file), "f(x) = x\n").expect("write");
        }
        std::os::unix::fs::symlink(d.join("a/y.jl"), d.join("link.jl")).expect("symlink");
        std::os::unix::fs::symlink(d, d.join("b/loop")).expect("symlink");
        let fifo = std::ffi::CString::new(d.join("pipe.jl").into_os_string().into_encoded_bytes())
            .expect("path");
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o644) }, 0, "mkfifo");
        let found = collect(&[d.to_path_buf(), d.join("link.jl")]);
        assert_eq!(
            listing(d, &found),
            format!(
                "a/y.jl\nb/c/z.jl\nlink.jl\nskipped b/loop: {LINK}\nskipped pipe.jl: {SPECIAL}"
            )
        );
    }
}
