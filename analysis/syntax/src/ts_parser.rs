//! The tree-sitter parser behind every parse (one per thread) and the time budget that stops
//! it. tree-sitter-julia can take time quadratic in the size of some broken files (40 KB of
//! `#=` takes 2.6 s in a debug build, even with the scanner guard of [`crate::grammar`]), and a
//! language server re-parses on every keystroke: a parse that runs out of its budget is
//! abandoned and reported, never waited for.

use std::cell::RefCell;
use std::ops::ControlFlow;
use std::time::{Duration, Instant};

use tree_sitter::{ParseOptions, ParseState, Parser, Range, Tree};

use crate::ast::{SyntaxError, TextRange};
use crate::grammar;

/// How long parsing one text may take: `base`, plus `per_mib` for each MiB of text (a valid
/// file parses in time about linear in its size, so a large file gets proportionally more).
/// It bounds tree-sitter's parse and the re-parses of array elements; turning the tree into
/// the AST takes time linear in the tree and is not counted.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct ParseBudget {
    /// The time any text gets, however short.
    pub base: Duration,
    /// The time added per MiB (1,048,576 bytes) of text.
    pub per_mib: Duration,
}

impl ParseBudget {
    /// The default: 1 s plus 4 s per MiB. Valid files parse well inside it: in a debug build
    /// the whole of `parse_file` takes 0.7 s on a 50,000-line file of 866 KB (4.3 s allowed)
    /// and 1.7 s on 1 MB of `x = x + 1` (4.8 s allowed), while 40 KB of `#=` stops after
    /// 1.15 s instead of 2.6 s. `examples/slow_inputs.rs` measures it on valid and hostile
    /// files.
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
}

impl Default for ParseBudget {
    fn default() -> ParseBudget {
        ParseBudget::DEFAULT
    }
}

/// When the parse of one text (including the re-parses of its array elements) must stop.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Deadline {
    /// `None`: a limit too large to represent, so never.
    at: Option<Instant>,
    limit: Duration,
}

impl Deadline {
    /// Starts the clock for a text of `len` bytes.
    pub fn start(budget: ParseBudget, len: usize) -> Deadline {
        let limit = budget.limit(len);
        Deadline {
            at: Instant::now().checked_add(limit),
            limit,
        }
    }

    /// Has the time run out?
    pub fn passed(&self) -> bool {
        self.at.is_some_and(|at| Instant::now() >= at)
    }

    /// The error reported when the time runs out on `text` (a `what`: "file", "expression"):
    /// at 1:1, over the first line, and with no other result.
    pub fn gave_up(&self, text: &str, what: &str) -> SyntaxError {
        let first_line = text.find('\n').unwrap_or(text.len());
        SyntaxError {
            range: TextRange::new(0, first_line as u32),
            code: "syntax-error",
            message: format!(
                "syntax error: the parser gave up after {} ms on this {what} (error recovery \
                 is too slow on it); fix the first syntax error",
                self.limit.as_millis()
            ),
        }
    }
}

/// Why there is no tree.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Failure {
    /// The grammar could not be loaded (its ABI and the library's disagree).
    NoGrammar,
    /// The deadline passed.
    GaveUp,
}

impl Failure {
    /// The error reported for this failure on `text` (a `what`: "file", "expression").
    pub fn error(self, deadline: &Deadline, text: &str, what: &str) -> SyntaxError {
        match self {
            Failure::GaveUp => deadline.gave_up(text, what),
            Failure::NoGrammar => SyntaxError {
                range: TextRange::new(0, text.len() as u32),
                code: "syntax-error",
                message: "the Julia grammar could not be loaded".to_string(),
            },
        }
    }
}

/// A new parser set to tree-sitter-julia (None only if grammar and library versions disagree).
fn julia_parser() -> Option<Parser> {
    let mut parser = Parser::new();
    parser.set_language(&grammar::julia()).ok()?;
    Some(parser)
}

thread_local! {
    /// One parser per thread: creating a parser costs about as much as parsing a small file.
    static PARSER: RefCell<Option<Parser>> = const { RefCell::new(None) };
}

/// Parses `text` (only `ranges` of it if given) before `deadline`, with this thread's parser,
/// or with a fresh one if that is unavailable (in use further up the stack, or the thread is
/// ending).
pub(crate) fn parse(
    text: &str,
    ranges: Option<&[Range]>,
    deadline: &Deadline,
) -> Result<Tree, Failure> {
    let cached = PARSER.try_with(|cell| {
        let mut slot = cell.try_borrow_mut().ok()?;
        if slot.is_none() {
            *slot = julia_parser();
        }
        Some(parse_with(slot.as_mut()?, text, ranges, deadline))
    });
    match cached {
        Ok(Some(result)) => result,
        _ => parse_with(
            &mut julia_parser().ok_or(Failure::NoGrammar)?,
            text,
            ranges,
            deadline,
        ),
    }
}

fn parse_with(
    parser: &mut Parser,
    text: &str,
    ranges: Option<&[Range]>,
    deadline: &Deadline,
) -> Result<Tree, Failure> {
    // No ranges: the whole text. The ranges are node boundaries of an earlier parse of the
    // same text, so they are ordered and in bounds.
    parser
        .set_included_ranges(ranges.unwrap_or(&[]))
        .map_err(|_| Failure::NoGrammar)?;
    let bytes = text.as_bytes();
    // tree-sitter asks every 100 parse operations whether to go on.
    let mut go_on = |_: &ParseState| {
        if deadline.passed() {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    };
    let options = ParseOptions::new().progress_callback(&mut go_on);
    let tree = parser.parse_with_options(
        &mut |at, _| bytes.get(at..).unwrap_or_default(),
        None,
        Some(options),
    );
    tree.ok_or_else(|| {
        // A stopped parse would otherwise resume on the next call, whatever its text.
        parser.reset();
        Failure::GaveUp
    })
}
