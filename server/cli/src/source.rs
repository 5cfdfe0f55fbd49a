//! Reading one source file, for every command: only a regular file, at most `max-size` bytes
//! (checked on its metadata before reading and again while reading, since a file can grow),
//! UTF-8, with a leading byte order mark removed. Each refusal is one located error.

use std::fs::{File, Metadata, OpenOptions};
use std::io::{ErrorKind, Read};
use std::path::Path;

use zy_ide::UserError;

/// The UTF-8 encoding of U+FEFF, which some editors put at the start of a file.
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// The text of a source file.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Source {
    /// Without the byte order mark, so that columns on the first line are the ones an editor
    /// shows.
    pub text: String,
    /// The bytes removed before `text`: 3 after a byte order mark, else 0. Byte offsets in
    /// `text` plus this are offsets in the file.
    pub bom: u32,
}

/// Read the source file at `path` (a symbolic link is followed: the caller decides which
/// paths to read), refusing anything but a regular file of at most `limit` bytes in UTF-8.
pub fn read(path: &Path, limit: u64) -> Result<Source, UserError> {
    let refuse = |message: String| UserError {
        file: path.to_path_buf(),
        line: 1,
        col: 1,
        message,
    };
    let meta = std::fs::metadata(path).map_err(|e| io_error(path, &e))?;
    admit(&meta, limit).map_err(&refuse)?;
    let file = open(path).map_err(|e| io_error(path, &e))?;
    // The path may have been replaced since it was looked at: what counts is what was opened.
    admit(&file.metadata().map_err(|e| io_error(path, &e))?, limit).map_err(&refuse)?;
    let mut bytes = Vec::new();
    file.take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| io_error(path, &e))?;
    if bytes.len() as u64 > limit {
        return Err(refuse(format!(
            "cannot read file: it grew past the limit of {limit} bytes while being read"
        )));
    }
    let bom = if bytes.starts_with(BOM) { BOM.len() } else { 0 };
    bytes.drain(..bom);
    match String::from_utf8(bytes) {
        Ok(text) => Ok(Source {
            text,
            bom: bom as u32,
        }),
        Err(e) => {
            let valid = &e.as_bytes()[..e.utf8_error().valid_up_to()];
            let bad = e.as_bytes().get(valid.len()).copied().unwrap_or(0);
            // The valid prefix is UTF-8 by definition.
            let before = String::from_utf8_lossy(valid);
            let line = before.matches('\n').count() + 1;
            let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
            Err(UserError {
                file: path.to_path_buf(),
                line: u32::try_from(line).unwrap_or(u32::MAX),
                col: u32::try_from(col).unwrap_or(u32::MAX),
                message: format!(
                    "cannot read file: not UTF-8 (byte 0x{bad:02x}); source files must be UTF-8"
                ),
            })
        }
    }
}

/// A regular file of at most `limit` bytes, or why not.
fn admit(meta: &Metadata, limit: u64) -> Result<(), String> {
    if !meta.is_file() {
        return Err(format!(
            "cannot read file: not a regular file ({})",
            kind(meta)
        ));
    }
    if meta.len() > limit {
        return Err(format!(
            "cannot read file: {} bytes, more than the limit of {limit} (`max-size` under `[files]` in zy.toml)",
            meta.len()
        ));
    }
    Ok(())
}

/// What a file that is not a regular file is.
fn kind(meta: &Metadata) -> &'static str {
    let t = meta.file_type();
    if t.is_dir() {
        return "a directory";
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return "a named pipe";
        }
        if t.is_char_device() {
            return "a character device";
        }
        if t.is_block_device() {
            return "a block device";
        }
        if t.is_socket() {
            return "a socket";
        }
    }
    "a special file"
}

/// Open for reading without blocking: opening a named pipe that replaced the file after it was
/// looked at must not wait for a writer.
fn open(path: &Path) -> std::io::Result<File> {
    let mut options = OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    options.open(path)
}

/// The one-line error for a path that cannot be read.
pub fn io_error(path: &Path, e: &std::io::Error) -> UserError {
    let reason = match e.kind() {
        ErrorKind::NotFound => "no such file".to_string(),
        _ => e.to_string(),
    };
    UserError {
        file: path.to_path_buf(),
        line: 1,
        col: 1,
        message: format!("cannot read file: {reason}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_bytes(bytes: &[u8], limit: u64) -> Result<Source, String> {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("t.jl");
        std::fs::write(&path, bytes).expect("write");
        read(&path, limit).map_err(|e| format!("{}:{}: {}", e.line, e.col, e.message))
    }

    #[test]
    fn a_byte_order_mark_is_removed_and_counted() {
        let s = read_bytes(b"\xEF\xBB\xBF# zy: at f(1.0)\n", 100).expect("readable");
        assert_eq!((s.text.as_str(), s.bom), ("# zy: at f(1.0)\n", 3));
        let s = read_bytes("f(x) = x # \u{FEFF}\n".as_bytes(), 100).expect("readable");
        assert_eq!(s.bom, 0, "only a leading mark is removed");
    }

    #[test]
    fn size_limit_and_encoding() {
        assert_eq!(
            read_bytes(b"12345", 5).map(|s| s.text),
            Ok("12345".to_string())
        );
        assert_eq!(
            read_bytes(b"123456", 5),
            Err("1:1: cannot read file: 6 bytes, more than the limit of 5 (`max-size` under `[files]` in zy.toml)"
                .to_string())
        );
        assert_eq!(
            read_bytes(b"f(x) = x\n\xCF\x84 = 1 \xC3\xBF\xFF", 100),
            Err(
                "2:8: cannot read file: not UTF-8 (byte 0xff); source files must be UTF-8"
                    .to_string()
            )
        );
    }
}
