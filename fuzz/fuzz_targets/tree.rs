//! `zy-analyze check` on random trees, and `eval` on one of their entries: nested directories,
//! symbolic links in and out of the tree (loops, dangling, to `/dev/zero`), named pipes, sparse
//! files far over the size limit, files at the limit, binary and non-UTF-8 files and names,
//! empty files, byte order marks, and a few Julia programs. Each run must end within a bound,
//! never panic, exit with 0, 1 or 2, print valid JSON, give the same report when run again,
//! and never show the contents of a file outside the tree (only links named on the command
//! line are followed).
#![no_main]

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use libfuzzer_sys::fuzz_target;
use zy_analyze::check::CheckArgs;
use zy_analyze::cli::{CheckFormat, Command, Format};
use zy_ide::EvalLimits;

/// The size limit the tree's `zy.toml` sets.
const LIMIT: u64 = 4096;
/// The longest a run may take (the programs in the files are quick; a gradcheck is stopped
/// after a second).
const BOUND: Duration = Duration::from_secs(20);
/// What the file outside the tree says: it must never be in a report of the tree.
const SECRET: &str = "outside_secret";

/// Julia sources the files are made of (with a `# zy: at` call each, so that code runs).
const PROGRAMS: &[&str] = &[
    "# zy: at sq(3.0)\nsq(x) = x^2\n",
    "# zy: at f(1.0, 2.0)\nf(x, y) = 2.0 * x\n",
    "f(x; y = 1) = x\n",
    "# zy: at g(-1.0)\ng(x) = sqrt(x)\n",
    "# zy: gradcheck h(2.0)\nh(x) = sin(x) * x\n",
    "function k(x)\n    s = 0.0\n    for i in 1:3\n        s += x\n    end\n    return s\nend\n",
    "# zy: at bad(\n",
];

/// Names of entries, some hidden or skipped by the walk, some not UTF-8.
const NAMES: &[&[u8]] = &[
    b"a.jl",
    b"b.jl",
    b"sub",
    b"deep",
    b".git",
    b"target",
    b"node_modules",
    b"notes.txt",
    b"\xff\xfe.jl",
    b"caf\xe9",
    b"x.JL",
    b"space d.jl",
    b"link.jl",
    b"loop",
];

/// Reads the input a byte at a time (zeros when it runs out).
struct Bytes<'a>(&'a [u8]);

impl Bytes<'_> {
    fn next(&mut self) -> u8 {
        let (&b, rest) = self.0.split_first().unwrap_or((&0, &[]));
        self.0 = rest;
        b
    }

    fn pick<'t, T>(&mut self, items: &'t [T]) -> &'t T {
        &items[self.next() as usize % items.len()]
    }

    fn take(&mut self, n: usize) -> &[u8] {
        let (head, rest) = self.0.split_at(n.min(self.0.len()));
        self.0 = rest;
        head
    }
}

/// The contents of a regular file.
fn contents(input: &mut Bytes) -> Vec<u8> {
    match input.next() % 8 {
        0 => Vec::new(),
        1 => [b"\xEF\xBB\xBF", input.pick(PROGRAMS).as_bytes()].concat(),
        2 => {
            let n = input.next() as usize * 4;
            input.take(n).to_vec()
        }
        3 => [input.pick(PROGRAMS).as_bytes(), b"# caf\xe9\n"].concat(),
        4 => vec![b'#'; LIMIT as usize],
        5 => [
            input.pick(PROGRAMS).as_bytes(),
            input.pick(PROGRAMS).as_bytes(),
        ]
        .concat(),
        _ => input.pick(PROGRAMS).as_bytes().to_vec(),
    }
}

/// Build a random tree under `root` (with `outside` beside it); returns every path made.
fn build(input: &mut Bytes, root: &Path, outside: &Path) -> Vec<PathBuf> {
    let mut dirs = vec![root.to_path_buf()];
    let mut made: Vec<PathBuf> = Vec::new();
    for _ in 0..(input.next() % 24) {
        let parent = input.pick(&dirs).clone();
        let name = *input.pick::<&[u8]>(NAMES);
        let path = parent.join(OsStr::from_bytes(name));
        if path.symlink_metadata().is_ok() {
            continue; // writing to a named pipe made before would wait for a reader
        }
        let ok = match input.next() % 10 {
            0 | 1 => std::fs::create_dir(&path)
                .is_ok()
                .then(|| dirs.push(path.clone()))
                .is_some(),
            2..=4 => std::fs::write(&path, contents(input)).is_ok(),
            5 => {
                let target = if made.is_empty() {
                    root.to_path_buf()
                } else {
                    input.pick(&made).clone()
                };
                std::os::unix::fs::symlink(target, &path).is_ok()
            }
            6 => {
                let targets = [
                    outside.join("secret.jl"),
                    outside.to_path_buf(),
                    PathBuf::from("/dev/zero"),
                    root.join("nowhere"),
                    root.to_path_buf(),
                ];
                std::os::unix::fs::symlink(input.pick(&targets), &path).is_ok()
            }
            7 => {
                let c = std::ffi::CString::new(path.as_os_str().as_bytes()).unwrap_or_default();
                // SAFETY: a NUL-terminated path.
                unsafe { libc::mkfifo(c.as_ptr(), 0o644) == 0 }
            }
            8 => std::fs::File::create(&path)
                .and_then(|f| {
                    f.set_len(if input.next() % 2 == 0 {
                        1 << 40
                    } else {
                        LIMIT + 1
                    })
                })
                .is_ok(),
            _ => std::fs::write(&path, contents(input)).is_ok(),
        };
        if ok {
            made.push(path);
        }
    }
    made
}

fuzz_target!(|data: &[u8]| {
    let mut input = Bytes(data);
    let Ok(tmp) = tempfile::tempdir() else { return };
    let (root, outside) = (tmp.path().join("tree"), tmp.path().join("outside"));
    let config = tmp.path().join("zy.toml");
    let setup = std::fs::create_dir(&root)
        .and_then(|()| std::fs::create_dir(&outside))
        .and_then(|()| {
            std::fs::write(
                outside.join("secret.jl"),
                format!("{SECRET}(x; y = 1) = x\n"),
            )
        })
        .and_then(|()| std::fs::write(&config, format!("[files]\nmax-size = {LIMIT}\n")));
    if setup.is_err() {
        return;
    }
    let made = build(&mut input, &root, &outside);

    let format = *input.pick(&[
        CheckFormat::Json,
        CheckFormat::Short,
        CheckFormat::Text,
        CheckFormat::Sarif,
    ]);
    let limits = EvalLimits {
        timeout: Some(Duration::from_secs(1)),
        ..EvalLimits::default()
    };
    let args = CheckArgs {
        format,
        config: Some(config),
        limits,
        verbose: true,
        ..CheckArgs::new(vec![root.clone()])
    };
    let started = Instant::now();
    let out = zy_analyze::check::run(&args);
    assert!(
        started.elapsed() < BOUND,
        "check took {:?}",
        started.elapsed()
    );
    assert_eq!(
        zy_analyze::check::run(&args),
        out,
        "a second check of the same tree differs"
    );
    assert!(out.status <= 2, "check exited with {}", out.status);
    assert!(
        !out.stdout.contains(SECRET),
        "check read a file outside the tree:\n{}",
        out.stdout
    );
    if matches!(format, CheckFormat::Json | CheckFormat::Sarif) {
        assert!(
            serde_json::from_str::<serde_json::Value>(&out.stdout).is_ok(),
            "not JSON:\n{}",
            out.stdout
        );
    }

    let file = if made.is_empty() {
        root
    } else {
        input.pick(&made).clone()
    };
    let started = Instant::now();
    let eval = Command::Eval {
        file,
        call: "sq(3.0)".into(),
        format: Format::Text,
    };
    let out = zy_analyze::execute(eval, false);
    assert!(
        started.elapsed() < BOUND,
        "eval took {:?}",
        started.elapsed()
    );
    assert!(out.status <= 2, "eval exited with {}", out.status);
});
