//! The parse budget: input that would take too long is abandoned with one error at 1:1 and no
//! items; valid files, large ones included, parse well inside the default budget.

use std::time::{Duration, Instant};

use zy_syntax::ast::{Item, SyntaxError, TextRange};
use zy_syntax::{parse_file, parse_file_with_budget, ParseBudget};

/// A header line, then unclosed block comments: tree-sitter-julia's scanner looks for the end
/// of each one up to the end of the file, so the parse takes time quadratic in the size.
fn hostile(bytes: usize) -> String {
    format!("# header\n{}", "#=".repeat(bytes / 2))
}

fn names(items: &[Item]) -> Vec<String> {
    items
        .iter()
        .map(|item| match item {
            Item::Function(f) => format!("{:?}", f.name),
            Item::Struct(s) => s.name.clone(),
            Item::Global(g) => g.name.clone(),
            Item::Include(i) => i.path.clone(),
        })
        .collect()
}

#[test]
fn input_over_budget_is_one_error_at_the_start_and_no_items() {
    // About 2.5 s without a budget in a debug build.
    let text = hostile(40_000);
    let start = Instant::now();
    let file = parse_file_with_budget(&text, ParseBudget::fixed(Duration::from_millis(20)));
    let took = start.elapsed();
    assert_eq!(file.items, vec![]);
    assert_eq!(
        file.errors,
        vec![SyntaxError {
            range: TextRange::new(0, 8),
            code: "syntax-error",
            message: "syntax error: the parser gave up after 20 ms on this file (error recovery \
                      is too slow on it); fix the first syntax error"
                .to_string(),
        }]
    );
    // The parse stops at the first check after the deadline, not at the end of the text.
    assert!(took < Duration::from_millis(500), "took {took:?}");
}

#[test]
fn the_thread_parser_starts_afresh_after_giving_up() {
    // A stopped tree-sitter parse resumes on the next call unless the parser is reset.
    let budget = ParseBudget::fixed(Duration::ZERO);
    let gave_up = parse_file_with_budget(&hostile(20_000), budget);
    assert_eq!(gave_up.errors.len(), 1);
    let file = parse_file("f(x) = x + 1\nstruct S\n    a\nend\n");
    assert_eq!(file.errors, vec![]);
    assert_eq!(names(&file.items), ["Named(\"f\")", "S"]);
}

#[test]
fn error_recovery_takes_linear_time() {
    // tree-sitter-julia's own scanner made both quadratic: 2 s and 3.4 s in a debug build
    // before the guard of `csrc/julia_guarded.c`, about 0.15 s each with it.
    let budget = ParseBudget::fixed(Duration::from_millis(900));
    let broken = parse_file_with_budget(&"(x + end ".repeat(4000), budget);
    assert_eq!(broken.errors.len(), 4000);
    let messages = |i: usize| broken.errors[i].message.as_str();
    assert_eq!(messages(0), "syntax error: unexpected `end`");
    assert_eq!(messages(3999), "missing `)`");
    // A valid file where an alternative the parser tries fails on every line.
    let valid = parse_file_with_budget(&"y = A' * x\n".repeat(9000), budget);
    assert_eq!((valid.items.len(), valid.errors.len()), (9000, 0));
}

#[test]
fn a_large_valid_file_parses_within_the_default_budget() {
    let block = "\
# zy: at f(2.0, 3)
function f(x::Float64, n)
    r = 1
    while n > 0
        r *= x
        n -= 1
    end
    return r
end
g(A, x) = sum(A' * x) + sum([1.0 2.0; 3.0 -4.0] * x)
h = (a, b) -> a^2 + b^2
";
    let text = block.repeat(500);
    assert_eq!(text.lines().count(), 5_500);
    let file = parse_file(&text);
    assert_eq!(file.errors, vec![]);
    assert_eq!(file.items.len(), 1_500);
    assert_eq!(
        names(&file.items[..3]),
        ["Named(\"f\")", "Named(\"g\")", "h"]
    );
}

#[test]
fn the_limit_grows_with_the_size_of_the_text() {
    let budget = ParseBudget {
        base: Duration::from_millis(100),
        per_mib: Duration::from_secs(2),
    };
    assert_eq!(budget.limit(0), Duration::from_millis(100));
    assert_eq!(budget.limit(1 << 20), Duration::from_millis(2_100));
    assert_eq!(budget.limit(1 << 19), Duration::from_millis(1_100));
    let fixed = ParseBudget::fixed(Duration::from_millis(7));
    assert_eq!(fixed.limit(10 << 20), Duration::from_millis(7));
    let huge = ParseBudget {
        base: Duration::MAX,
        per_mib: Duration::MAX,
    };
    assert_eq!(huge.limit(1 << 30), Duration::MAX);
}

#[test]
fn array_elements_are_parsed_again_at_most_eight_deep() {
    // Each nested `[x -...]` is split at its `-` and its inside parsed again: deeper nesting
    // would multiply the work by the depth.
    let nested = |levels: usize| format!("f(x) = {}x{}", "[x -".repeat(levels), "]".repeat(levels));
    assert_eq!(parse_file(&nested(8)).errors, vec![]);
    let errors = parse_file(&nested(9)).errors;
    // At the element `x -x` of the ninth vector.
    let start = "f(x) = ".len() + 8 * "[x -".len() + 1;
    assert_eq!(
        errors,
        vec![SyntaxError {
            range: TextRange::new(start as u32, (start + 4) as u32),
            code: "syntax-error",
            message: "nesting too deep".to_string(),
        }]
    );
}
