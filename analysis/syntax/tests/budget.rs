//! The parse budget: a parse that runs out of it is abandoned with one error at 1:1 and no
//! items; valid and broken files, large ones included, parse far inside the default budget
//! (the parser takes time linear in the size of the text).

use std::time::{Duration, Instant};

use zy_syntax::ast::{Item, SyntaxError, TextRange};
use zy_syntax::{parse_file, parse_file_with_budget, ParseBudget};

fn names(items: &[Item]) -> Vec<String> {
    items
        .iter()
        .map(|item| match item {
            Item::Function(f) => format!("{:?}", f.name),
            Item::Struct(s) => s.name.clone(),
            Item::Global(g) => g.name.clone(),
            Item::Include(i) => i.path.clone(),
            Item::Module(m) => m.name.clone(),
            Item::Import(_) | Item::Export(_) | Item::Script(_) | Item::Refused(_) => {
                item.to_string()
            }
        })
        .collect()
}

#[test]
fn input_over_budget_is_one_error_at_the_start_and_no_items() {
    // A zero budget runs out whatever the input.
    let text = format!("# header\n{}", "f(x) = x + 1\n".repeat(2000));
    let file = parse_file_with_budget(&text, ParseBudget::fixed(Duration::ZERO));
    assert_eq!(file.items, vec![]);
    assert_eq!(
        file.errors,
        vec![SyntaxError {
            range: TextRange::new(0, 8),
            code: "syntax-error",
            message: "syntax error: the parser gave up after 0 ms on this file (its time budget)"
                .to_string(),
        }]
    );
}

#[test]
fn a_parse_after_giving_up_starts_afresh() {
    let gave_up = parse_file_with_budget(&"#=".repeat(10_000), ParseBudget::fixed(Duration::ZERO));
    assert_eq!(gave_up.errors.len(), 1);
    let file = parse_file("f(x) = x + 1\nstruct S\n    a\nend\n");
    assert_eq!(file.errors, vec![]);
    assert_eq!(names(&file.items), ["Named(\"f\")", "S"]);
}

#[test]
fn broken_input_takes_linear_time() {
    // Inputs that made tree-sitter-julia's error recovery quadratic: a generous fixed budget
    // (a debug build parses each in a few milliseconds) is never reached.
    let budget = ParseBudget::fixed(Duration::from_secs(5));
    let start = Instant::now();
    let unclosed = parse_file_with_budget(&format!("# c\n{}", "#=".repeat(20_000)), budget);
    assert_eq!(
        unclosed
            .errors
            .iter()
            .map(|e| e.message.as_str())
            .collect::<Vec<_>>(),
        ["syntax error: unterminated multi-line comment #= ... =#"]
    );
    // Broken parentheses 4000 deep recurse that deep: on the stack the tools parse on.
    let text = "(x + end ".repeat(4000);
    let broken = std::thread::Builder::new()
        .stack_size(zy_syntax::PARSE_STACK)
        .spawn(move || parse_file_with_budget(&text, budget))
        .map(|h| h.join());
    let Ok(Ok(broken)) = broken else {
        panic!("the parse failed");
    };
    assert!(broken.errors.iter().all(|e| !e.message.contains("gave up")));
    assert_eq!(broken.errors[0].message, "missing `)`");
    assert_eq!(broken.errors[1].message, "syntax error: unexpected `end`");
    // A valid file where every line starts the same way.
    let valid = parse_file_with_budget(&"y = A' * x\n".repeat(9000), budget);
    assert_eq!((valid.items.len(), valid.errors.len()), (9000, 0));
    assert!(start.elapsed() < Duration::from_secs(5));
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
fn nested_matrix_rows_parse_to_the_nesting_bound() {
    // `[x -[x -x]]`: each level is a row whose second element negates the next level.
    let nested = |levels: usize| format!("f(x) = {}x{}", "[x -".repeat(levels), "]".repeat(levels));
    assert_eq!(parse_file(&nested(9)).errors, vec![]);
    assert_eq!(parse_file(&nested(60)).errors, vec![]);
    // Nested past the limits: on the stack the tools parse on.
    let errors = std::thread::Builder::new()
        .stack_size(zy_syntax::PARSE_STACK)
        .spawn(move || parse_file(&nested(30_000)).errors)
        .map(|h| h.join());
    let Ok(Ok(errors)) = errors else {
        panic!("the parse failed");
    };
    assert_eq!(errors.len(), 1);
    assert_eq!(
        errors[0].message,
        "syntax error: expression nested too deeply"
    );
}
