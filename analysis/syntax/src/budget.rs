//! The time budget of a parse. The lexer and parser take time linear in the size of the text,
//! so valid and broken files alike parse far inside the default budget; it remains as a bound
//! on the parser's work (checked every 1024 tokens consumed and once at the end), so that a
//! bug or a pathological input can never hang a language server that parses on every
//! keystroke.

use std::time::{Duration, Instant};

use crate::ast::{SyntaxError, TextRange};

/// How long parsing one text may take: `base`, plus `per_mib` for each MiB of text.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct ParseBudget {
    /// The time any text gets, however short.
    pub base: Duration,
    /// The time added per MiB (1,048,576 bytes) of text.
    pub per_mib: Duration,
}

impl ParseBudget {
    /// The default: 1 s plus 4 s per MiB. A debug build parses a 50,000-line file of 1 MB in
    /// well under a second (`examples/parse_speed.rs` measures it), so it is never reached by
    /// a valid file.
    pub const DEFAULT: ParseBudget = ParseBudget {
        base: Duration::from_secs(1),
        per_mib: Duration::from_secs(4),
    };

    /// The same limit whatever the size of the text.
    pub const fn fixed(limit: Duration) -> ParseBudget {
        ParseBudget {
            base: limit,
            per_mib: Duration::ZERO,
        }
    }

    /// The time allowed for a text of `len` bytes.
    pub fn limit(self, len: usize) -> Duration {
        let scaled = self.per_mib.as_secs_f64() * len as f64 / 1_048_576.0;
        self.base
            .saturating_add(Duration::try_from_secs_f64(scaled).unwrap_or(Duration::MAX))
    }

    /// When a parse of a text of `len` bytes started now must stop (`None`: never, the limit
    /// being too large to represent).
    pub(crate) fn deadline(self, len: usize) -> Option<Instant> {
        Instant::now().checked_add(self.limit(len))
    }

    /// The error reported when the time runs out on `text` (a `what`: "file", "expression"):
    /// at 1:1, over the first line, and with no other result.
    pub(crate) fn gave_up(self, text: &str, what: &str) -> SyntaxError {
        let first_line = text.find('\n').unwrap_or(text.len());
        SyntaxError {
            range: TextRange::new(0, first_line as u32),
            code: "syntax-error",
            message: format!(
                "syntax error: the parser gave up after {} ms on this {what} (its time budget)",
                self.limit(text.len()).as_millis()
            ),
        }
    }
}

impl Default for ParseBudget {
    fn default() -> ParseBudget {
        ParseBudget::DEFAULT
    }
}
