//! Finding and reading `zy.toml`, for every command (`eval`, `grad` and `ir` take the size
//! limit of source files from it, `check` everything).

use std::path::{Path, PathBuf};

use zy_ide::{Config, FileConfig};

/// A `zy.toml` with the directory its paths are relative to.
pub struct Loaded {
    pub config: Config,
    /// Absolute, canonical.
    root: PathBuf,
}

impl Loaded {
    /// The settings of the file at `path`.
    pub fn for_path(&self, path: &Path) -> FileConfig {
        let absolute = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
        let relative = absolute.strip_prefix(&self.root).unwrap_or(&absolute);
        let relative: Vec<String> = relative
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        self.config.for_path(&relative.join("/"))
    }

    /// The largest source file to read, in bytes.
    pub fn max_file_size(&self) -> u64 {
        self.config.max_file_size()
    }
}

/// The configuration: the file given with `--config`, else the first `zy.toml` in the current
/// directory or one of its ancestors, else the defaults. Errors are one line with the position.
pub fn load(explicit: Option<&Path>) -> Result<Loaded, String> {
    let cwd = std::env::current_dir()
        .map_err(|e| format!("zy-analyze: cannot read the current directory: {e}"))?;
    let found = match explicit {
        Some(p) => Some(p.to_path_buf()),
        None => cwd
            .ancestors()
            .map(|d| d.join("zy.toml"))
            .find(|p| p.is_file()),
    };
    let Some(path) = found else {
        return Ok(Loaded {
            config: Config::default(),
            root: cwd,
        });
    };
    // zy.toml is read like a source file (a regular file, the default size limit).
    let text = crate::source::read(&path, zy_ide::DEFAULT_MAX_FILE_SIZE)
        .map_err(|e| e.to_string())?
        .text;
    let config = Config::parse(&text).map_err(|e| {
        format!(
            "{}:{}:{}: error: {}",
            path.display(),
            e.line,
            e.col,
            e.message
        )
    })?;
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let root = std::fs::canonicalize(dir).unwrap_or(cwd);
    Ok(Loaded { config, root })
}
