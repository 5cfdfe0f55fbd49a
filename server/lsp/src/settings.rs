//! What a client may configure: the limits of gradients run from the editor and the file size
//! above which the server only parses. Read from `initializationOptions` and from the `zy`
//! section of `workspace/didChangeConfiguration` (docs/lsp.md lists the keys).

use std::time::Duration;

use serde_json::Value;

/// The key of the gradient time limit, in milliseconds.
pub const GRADIENT_TIMEOUT_KEY: &str = "gradient.timeoutMs";
/// The key of the gradient memory limit, in MiB.
pub const GRADIENT_MEMORY_KEY: &str = "gradient.memoryMb";
/// The key of the full-analysis size limit, in KiB.
pub const MAX_FILE_KEY: &str = "analysis.maxFileKb";
/// The key of the switch for adjoint inlay hints after "compute gradient".
pub const ADJOINT_HINTS_KEY: &str = "gradient.adjointHints";
/// The key of debug mode for "compute gradient" (tangent types and shapes checked around every
/// rule and derived pullback).
pub const DEBUG_KEY: &str = "debug";

/// The server's settings.
#[derive(Clone, Debug, PartialEq)]
pub struct Settings {
    /// How long a gradient run from the editor may take.
    pub gradient_timeout: Duration,
    /// How much the server's resident memory may grow while one gradient runs, in bytes.
    pub gradient_memory: u64,
    /// Files larger than this many bytes get syntax diagnostics only.
    pub max_file_bytes: u64,
    /// Whether "compute gradient" traces every variable's adjoint for inlay hints and hover.
    pub adjoint_hints: bool,
    /// Whether "compute gradient" runs in debug mode.
    pub debug: bool,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            gradient_timeout: Duration::from_secs(2),
            gradient_memory: 1 << 30,
            max_file_bytes: 128 << 10,
            adjoint_hints: true,
            debug: false,
        }
    }
}

impl Settings {
    /// Apply the settings object `json` (keys absent keep their value); returns one complaint
    /// per value ignored (not a positive integer).
    pub fn update(&mut self, json: &Value) -> Vec<String> {
        let mut complaints = Vec::new();
        if let Some(value) = json.pointer(&format!("/{}", ADJOINT_HINTS_KEY.replace('.', "/"))) {
            match value.as_bool() {
                Some(on) => self.adjoint_hints = on,
                None => complaints.push(format!(
                    "`{ADJOINT_HINTS_KEY}` must be true or false, not {value}"
                )),
            }
        }
        if let Some(value) = json.pointer(&format!("/{}", DEBUG_KEY.replace('.', "/"))) {
            match value.as_bool() {
                Some(on) => self.debug = on,
                None => {
                    complaints.push(format!("`{DEBUG_KEY}` must be true or false, not {value}"))
                }
            }
        }
        let mut read = |key: &str| -> Option<u64> {
            let value = json.pointer(&format!("/{}", key.replace('.', "/")))?;
            match value.as_u64().filter(|&n| n > 0) {
                Some(n) => Some(n),
                None => {
                    complaints.push(format!("`{key}` must be a positive integer, not {value}"));
                    None
                }
            }
        };
        if let Some(ms) = read(GRADIENT_TIMEOUT_KEY) {
            self.gradient_timeout = Duration::from_millis(ms);
        }
        if let Some(mb) = read(GRADIENT_MEMORY_KEY) {
            self.gradient_memory = mb.saturating_mul(1 << 20);
        }
        if let Some(kb) = read(MAX_FILE_KEY) {
            self.max_file_bytes = kb.saturating_mul(1 << 10);
        }
        complaints
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn keys_present_are_applied_and_bad_values_reported() {
        let mut s = Settings::default();
        let complaints = s.update(&json!({ "gradient": { "timeoutMs": 60000, "memoryMb": -1, "adjointHints": false }, "analysis": { "maxFileKb": 4 }, "debug": true }));
        assert_eq!(
            complaints,
            ["`gradient.memoryMb` must be a positive integer, not -1"]
        );
        assert_eq!(
            s,
            Settings {
                gradient_timeout: Duration::from_secs(60),
                gradient_memory: 1 << 30,
                max_file_bytes: 4096,
                adjoint_hints: false,
                debug: true,
            }
        );
        assert_eq!(
            s.update(&json!({ "gradient": { "adjointHints": "yes" } })),
            ["`gradient.adjointHints` must be true or false, not \"yes\""]
        );
        assert_eq!(s.update(&json!(null)), Vec::<String>::new());
    }
}
