//! Times the parser on a large generated file (50,000 lines of the subset) and on hostile
//! shapes of input (deep nesting, unclosed comments, broken blocks), with no budget and with
//! the default one: the measurements behind `ParseBudget::DEFAULT`. For each input it prints
//! the time of the syntax tree alone (`tree::parse`) and of `parse_file` (tree and AST).
//! `cargo run --release -p zy-syntax --example parse_speed [-- SCALE] [--only NAME]`; SCALE
//! (default 1) multiplies every size.

use std::time::{Duration, Instant};

use zy_syntax::{parse_file_with_budget, ParseBudget};

/// A valid file of at least `lines` lines, repeating definitions of the subset.
fn valid_file(lines: usize) -> String {
    const BLOCK: &str = "\
# zy: at f(2.0, 3)
function f(x::Float64, n)
    r = 1
    while n > 0
        r *= x
        n -= 1
    end
    return r
end
struct Dense
    W
    b
end
(d::Dense)(x) = tanh.(d.W * x .+ d.b)
loss(m, x, y) = sum((m(x) .- y) .^ 2)
adjoint_sum(A, x) = sum(A' * x)
plus_sq = (a, b) -> a^2 + b^2
literal(x) = sum([1.0 2.0; 3.0 -4.0] * x)
function piecewise(x)
    if x < -1.0
        y = -1.0
    elseif x < 1.0
        y = x^3
    else
        y = 3.0 * x - 2.0
    end
    return y
end
";
    // Whole blocks, so that the file is valid.
    BLOCK.repeat(lines.div_ceil(BLOCK.lines().count()))
}

/// `piece` repeated to about `bytes` bytes.
fn repeat(piece: &str, bytes: usize) -> String {
    piece.repeat(bytes / piece.len().max(1))
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let scale: f64 = args
        .iter()
        .find(|a| !a.starts_with("--"))
        .and_then(|a| a.parse().ok())
        .unwrap_or(1.0);
    let only = args
        .iter()
        .position(|a| a == "--only")
        .and_then(|i| args.get(i + 1));
    let n = |x: f64| (x * scale) as usize;
    let cases: Vec<(&str, String)> = vec![
        ("valid, 50,000 lines", valid_file(n(50_000.0))),
        ("valid, 1 MB of `x = x + 1`", repeat("x = x + 1\n", n(1e6))),
        ("`(x + end ` x 36 KB", repeat("(x + end ", n(36e3))),
        ("`end ` x 200 KB", repeat("end ", n(200e3))),
        ("`end` lines x 80 KB", repeat("end\n", n(80e3))),
        (
            "100,000 nested parens",
            format!("f(x) = {}x{}", "(".repeat(n(1e5)), ")".repeat(n(1e5))),
        ),
        (
            "40,000 `(` unclosed",
            format!("f(x) = {}", "(".repeat(n(4e4))),
        ),
        (
            "`function f(x)` x 10,000",
            repeat("function f(x)\n", n(14e4)),
        ),
        ("`y = A' * x` x 100 KB", repeat("y = A' * x\n", n(1e5))),
        (
            "`p = (a, b) -> a` x 100 KB",
            repeat("p = (a, b) -> a\n", n(1e5)),
        ),
        ("`#=` x 40 KB", repeat("#=", n(4e4))),
        ("`<#=<` x 20 KB", repeat("<#=<", n(2e4))),
        ("`x < #= <` lines x 40 KB", repeat("x < #= <\n", n(4e4))),
        (
            "nested matrix rows x 40 KB",
            repeat(
                &format!("f(x) = {}x{}\n", "[x -".repeat(150), "]".repeat(150)),
                n(4e4),
            ),
        ),
    ];
    let unlimited = ParseBudget::fixed(Duration::from_secs(3600));
    println!(
        "{:<30} {:>9} {:>9} {:>12} {:>12}  default budget",
        "input", "bytes", "tree", "parse_file", "with budget"
    );
    for (name, text) in cases {
        if only.is_some_and(|o| !name.contains(o.as_str())) {
            continue;
        }
        let start = Instant::now();
        std::hint::black_box(zy_syntax::tree::parse(&text, None));
        let tree_time = start.elapsed();
        let start = Instant::now();
        let free = parse_file_with_budget(&text, unlimited);
        let free_time = start.elapsed();
        let start = Instant::now();
        let bounded = parse_file_with_budget(&text, ParseBudget::DEFAULT);
        let bounded_time = start.elapsed();
        let outcome = if bounded.items.is_empty()
            && bounded
                .errors
                .first()
                .is_some_and(|e| e.message.contains("gave up"))
        {
            "gave up".to_string()
        } else {
            format!(
                "{} items, {} errors",
                bounded.items.len(),
                bounded.errors.len()
            )
        };
        println!(
            "{name:<30} {:>9} {:>6.0} ms {:>9.0} ms {:>9.0} ms  {:.0} ms: {outcome} (unbounded: {} \
             items)",
            text.len(),
            tree_time.as_secs_f64() * 1e3,
            free_time.as_secs_f64() * 1e3,
            bounded_time.as_secs_f64() * 1e3,
            ParseBudget::DEFAULT.limit(text.len()).as_secs_f64() * 1e3,
            free.items.len(),
        );
    }
}
