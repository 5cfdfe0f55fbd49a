//! `zy.toml`: lint levels, the gradcheck tolerance, per-path overrides, and the largest source
//! file `zy-analyze` reads.
//!
//! ```toml
//! [files]
//! max-size = 8388608            # bytes; larger files are refused unread
//!
//! [lints]
//! unbounded-tape = "error"      # allow | warn | error
//!
//! [gradcheck]
//! rtol = 1e-5                   # relative tolerance (scale at least 1)
//!
//! [[overrides]]
//! paths = ["fixtures/errors", "fixtures/lints"]
//! expected = true               # findings here are reported but do not fail the check
//! lints = { zero-gradient = "allow" }
//! ```

use std::collections::BTreeMap;

use serde::Deserialize;

use super::{lint, FORWARD_MISMATCH, GRADCHECK};
use crate::Severity;

/// How a lint is reported.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    /// Not reported.
    Allow,
    /// Reported as a warning (fails the check only with `--deny-warnings`).
    Warn,
    /// Reported as an error.
    Error,
}

impl Level {
    /// The severity of a finding at this level (`None` when allowed).
    pub fn severity(self) -> Option<Severity> {
        match self {
            Level::Allow => None,
            Level::Warn => Some(Severity::Warning),
            Level::Error => Some(Severity::Error),
        }
    }
}

/// The relative tolerance of gradchecks by default.
pub const DEFAULT_RTOL: f64 = 1e-5;

/// The largest source file read by default (8 MiB): larger files are refused unread.
pub const DEFAULT_MAX_FILE_SIZE: u64 = 8 << 20;

/// A parsed `zy.toml`.
#[derive(Clone, PartialEq, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    #[serde(default)]
    files: FilesConfig,
    /// Level per lint code, for every file.
    #[serde(default)]
    lints: BTreeMap<String, Level>,
    #[serde(default)]
    gradcheck: GradcheckConfig,
    /// Later entries win over earlier ones.
    #[serde(default)]
    overrides: Vec<Override>,
}

#[derive(Clone, Copy, PartialEq, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct GradcheckConfig {
    rtol: f64,
}

impl Default for GradcheckConfig {
    fn default() -> Self {
        GradcheckConfig { rtol: DEFAULT_RTOL }
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case", default)]
struct FilesConfig {
    /// In bytes.
    max_size: u64,
}

impl Default for FilesConfig {
    fn default() -> Self {
        FilesConfig {
            max_size: DEFAULT_MAX_FILE_SIZE,
        }
    }
}

#[derive(Clone, PartialEq, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Override {
    /// Files or directories, relative to the directory of `zy.toml`.
    paths: Vec<String>,
    #[serde(default)]
    lints: BTreeMap<String, Level>,
    #[serde(default)]
    expected: bool,
}

/// The settings that apply to one file.
#[derive(Clone, PartialEq, Debug)]
pub struct FileConfig {
    levels: BTreeMap<String, Level>,
    /// Findings in this file are expected (reported, but they do not fail the check).
    pub expected: bool,
    /// Relative tolerance of gradchecks and rrule checks.
    pub rtol: f64,
}

impl Default for FileConfig {
    fn default() -> Self {
        FileConfig {
            levels: BTreeMap::new(),
            expected: false,
            rtol: DEFAULT_RTOL,
        }
    }
}

impl FileConfig {
    /// Does the configuration set a level for `code`?
    pub fn names(&self, code: &str) -> bool {
        self.levels.contains_key(code)
    }

    /// The level of findings with `code`: configured, else the lint's default; codes that are
    /// not lints (syntax and type errors) are always errors.
    pub fn level(&self, code: &str) -> Level {
        if let Some(&l) = self.levels.get(code) {
            return l;
        }
        lint(code).map_or(Level::Error, |l| l.default)
    }
}

/// A `zy.toml` that cannot be used, with a one-line reason.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct ConfigError {
    /// 1-based line and column in `zy.toml`.
    pub line: u32,
    pub col: u32,
    pub message: String,
}

impl Config {
    /// Parse and validate the text of a `zy.toml`.
    pub fn parse(text: &str) -> Result<Config, ConfigError> {
        let config: Config = toml::from_str(text).map_err(|e| {
            let (line, col) = e.span().map_or((1, 1), |s| position(text, s.start));
            ConfigError {
                line,
                col,
                message: e.message().to_string(),
            }
        })?;
        let codes = config
            .lints
            .keys()
            .chain(config.overrides.iter().flat_map(|o| o.lints.keys()));
        for code in codes {
            if lint(code).is_none() && code != GRADCHECK && code != FORWARD_MISMATCH {
                let at = text
                    .find(code.as_str())
                    .map_or((1, 1), |i| position(text, i));
                let known: Vec<&str> = super::LINTS.iter().map(|l| l.code).collect();
                return Err(ConfigError {
                    line: at.0,
                    col: at.1,
                    message: format!(
                        "unknown lint `{code}` (known: {}, {GRADCHECK}, {FORWARD_MISMATCH})",
                        known.join(", ")
                    ),
                });
            }
        }
        if !(config.gradcheck.rtol > 0.0 && config.gradcheck.rtol < 1.0) {
            let at = text.find("rtol").map_or((1, 1), |i| position(text, i));
            return Err(ConfigError {
                line: at.0,
                col: at.1,
                message: "`rtol` must be in (0, 1)".into(),
            });
        }
        if config.files.max_size == 0 {
            let at = text.find("max-size").map_or((1, 1), |i| position(text, i));
            return Err(ConfigError {
                line: at.0,
                col: at.1,
                message: "`max-size` must be at least 1 byte".into(),
            });
        }
        Ok(config)
    }

    /// The largest source file to read, in bytes (`max-size` under `[files]`).
    pub fn max_file_size(&self) -> u64 {
        self.files.max_size
    }

    /// The settings of the file at `path`, relative to the directory of `zy.toml` with `/`
    /// as separator (`fixtures/lints/cut.jl`).
    pub fn for_path(&self, path: &str) -> FileConfig {
        let path = path.trim_start_matches("./");
        let mut out = FileConfig {
            levels: self.lints.clone(),
            expected: false,
            rtol: self.gradcheck.rtol,
        };
        for o in &self.overrides {
            if o.paths.iter().any(|p| covers(p, path)) {
                out.levels
                    .extend(o.lints.iter().map(|(k, v)| (k.clone(), *v)));
                out.expected |= o.expected;
            }
        }
        out
    }
}

/// Does the configured path `pattern` (a file or a directory) cover `path`?
fn covers(pattern: &str, path: &str) -> bool {
    let pattern = pattern.trim_start_matches("./").trim_end_matches('/');
    pattern.is_empty()
        || pattern == "."
        || path == pattern
        || path
            .strip_prefix(pattern)
            .is_some_and(|r| r.starts_with('/'))
}

/// The 1-based line and character column of byte `offset` in `text`.
fn position(text: &str, offset: usize) -> (u32, u32) {
    let before = text.get(..offset).unwrap_or(text);
    let line = before.matches('\n').count() as u32 + 1;
    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) as u32 + 1;
    (line, col)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_defaults_and_overrides() {
        let config = Config::parse(
            "[lints]\nunbounded-tape = \"error\"\n\n[gradcheck]\nrtol = 1e-3\n\n\
             [[overrides]]\npaths = [\"fixtures/lints/\"]\nexpected = true\nlints = { zero-gradient = \"allow\" }\n",
        )
        .unwrap();
        let plain = config.for_path("src/model.jl");
        assert_eq!(plain.level("unbounded-tape"), Level::Error);
        assert_eq!(plain.level("zero-gradient"), Level::Warn);
        assert_eq!(plain.level("syntax-error"), Level::Error);
        assert_eq!((plain.expected, plain.rtol), (false, 1e-3));
        let fixture = config.for_path("./fixtures/lints/zero.jl");
        assert_eq!(fixture.level("zero-gradient"), Level::Allow);
        assert!(fixture.expected);
        assert!(!config.for_path("fixtures/lintsx.jl").expected);
        assert_eq!(config.max_file_size(), DEFAULT_MAX_FILE_SIZE);
        let empty = Config::parse("[files]\n").unwrap();
        assert_eq!(empty.max_file_size(), DEFAULT_MAX_FILE_SIZE);
        assert_eq!(
            Config::parse("[files]\nmax-size = 1024\n")
                .unwrap()
                .max_file_size(),
            1024
        );
    }

    #[test]
    fn errors_say_where() {
        let e = Config::parse("[lints]\nzero-grad = \"warn\"\n").unwrap_err();
        assert_eq!((e.line, e.col), (2, 1));
        assert!(
            e.message
                .starts_with("unknown lint `zero-grad` (known: zero-gradient,"),
            "{}",
            e.message
        );
        let e = Config::parse("[lints]\nzero-gradient = \"loud\"\n").unwrap_err();
        assert_eq!((e.line, e.col), (2, 17));
        assert!(
            e.message.contains("unknown variant `loud`"),
            "{}",
            e.message
        );
        let e = Config::parse("[gradcheck]\nrtol = 2.0\n").unwrap_err();
        assert_eq!(e.message, "`rtol` must be in (0, 1)");
        let e = Config::parse("[files]\nmax-size = 0\n").unwrap_err();
        assert_eq!(
            (e.line, e.col, e.message.as_str()),
            (2, 1, "`max-size` must be at least 1 byte")
        );
        let e = Config::parse("[files]\nmax-size = -1\n").unwrap_err();
        assert_eq!((e.line, e.col), (2, 12));
        let e = Config::parse("[lint]\n").unwrap_err();
        assert!(e.message.contains("unknown field `lint`"), "{}", e.message);
    }
}
