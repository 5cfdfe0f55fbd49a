//! Finding the `.jl` files under the paths, and `zy.toml`.

use std::path::{Path, PathBuf};

use zy_ide::{Config, FileConfig};

/// A `zy.toml` with the directory its paths are relative to.
pub struct Loaded {
    config: Config,
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
}

/// The configuration: the file given with `--config`, else the first `zy.toml` in the current
/// directory or one of its ancestors, else the defaults. Errors are one line with the position.
pub fn config(explicit: Option<&Path>) -> Result<Loaded, String> {
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
    let text =
        std::fs::read_to_string(&path).map_err(|e| crate::load::io_error(&path, &e).to_string())?;
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

/// Every `.jl` file at or under `path` (a file given by name is taken whatever its extension);
/// hidden directories and `target` are skipped.
pub fn collect(path: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    let meta = std::fs::metadata(path)?;
    if meta.is_file() {
        out.push(path.to_path_buf());
        return Ok(());
    }
    for entry in std::fs::read_dir(path)? {
        let entry = entry?;
        let p = entry.path();
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if entry.file_type()?.is_dir() {
            if !name.starts_with('.') && name != "target" && name != "node_modules" {
                collect(&p, out)?;
            }
        } else if p.extension().is_some_and(|e| e == "jl") {
            out.push(p);
        }
    }
    Ok(())
}
