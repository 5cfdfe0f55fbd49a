//! Parsing never panics: random bytes, truncated and spliced valid files, deep nesting.

use proptest::prelude::*;
use zy_syntax::{parse_expr, parse_file};

/// A file using most of the subset, for truncation and splicing.
const VALID: &str = r#"
# zy: at f(2.0, 3)
function f(x::Float64, n)
    r = 1
    while n > 0
        r *= x
        n -= 1
    end
    for i in 1:2:n, end
    t = (a = 1.0, b = [1.0 -0.3; 2x^2 x'])
    g = y -> y > 0 ? 2y : -y^2
    map([1.0, 2.0]) do z
        z + α₁ .* ȳ
    end
    s.f += t[1]; r[] = 2
    return a < b <= c && !d || error("no")
end
struct Bar{T}
    a::T
end
const N = 3
(d::Dense)(x) = tanh.(d.W * x .+ d.b)
"#;

fn char_boundary_prefix(s: &str, n: usize) -> &str {
    let mut n = n.min(s.len());
    while !s.is_char_boundary(n) {
        n -= 1;
    }
    &s[..n]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
        let text = String::from_utf8_lossy(&bytes);
        let _ = parse_file(&text);
        let _ = parse_expr(&text);
    }

    #[test]
    fn random_julia_tokens_never_panic(tokens in proptest::collection::vec(
        prop::sample::select(vec![
            "function", "end", "(", ")", "[", "]", "{", "}", "x", "2", "1.5", "-", "+", "^", "'", ".",
            ",", ";", "\n", " ", "=", "->", "do", "if", "else", "for", "in", ":", "::", "\"", "$",
            "#", "# zy: at", "@m", "&&", "<", "?", "struct", "where", "...", ".+", "0x1", "99999999999999999999",
        ]),
        0..80,
    )) {
        let text: String = tokens.concat();
        let _ = parse_file(&text);
        let _ = parse_expr(&text);
    }

    #[test]
    fn truncated_valid_files_never_panic(cut in 0usize..VALID.len()) {
        let text = char_boundary_prefix(VALID, cut);
        let file = parse_file(text);
        // Everything before the cut that parsed is kept: the struct survives a cut after it.
        if cut >= VALID.find("const N").unwrap_or(VALID.len()) {
            prop_assert!(file.items.iter().any(|i| matches!(i, zy_syntax::ast::Item::Struct(_))));
        }
    }

    #[test]
    fn spliced_valid_files_never_panic(a in 0usize..VALID.len(), b in 0usize..VALID.len()) {
        let text = format!("{}{}", char_boundary_prefix(VALID, a), &VALID[char_boundary_prefix(VALID, b).len()..]);
        let _ = parse_file(&text);
    }
}

#[test]
fn deep_nesting_is_an_error_not_a_stack_overflow() {
    on_parse_stack(deep_nesting_is_an_error);
}

/// Input nested past the limits is an error.
fn deep_nesting_is_an_error() {
    // `- ` with its space: `--` is an operator Julia rejects, not two negations.
    for open in ["(", "[", "f(", "- ", "x -> ", "[1 -", "begin\n", "if x\n"] {
        let close = match open {
            "(" | "f(" => ")",
            "[" | "[1 -" => "]",
            "begin\n" | "if x\n" => "\nend",
            _ => "",
        };
        let depth = 30_000;
        let text = format!("f(x) = {}x{}", open.repeat(depth), close.repeat(depth));
        let file = parse_file(&text);
        assert!(
            file.errors
                .iter()
                .any(|e| e.message.ends_with("expression nested too deeply")),
            "{open}: {:?}",
            file.errors.first()
        );
    }
}

#[test]
fn a_hundred_thousand_nested_brackets_are_one_error() {
    on_parse_stack(a_hundred_thousand_nested_brackets);
}

/// 100,000 nested brackets of each kind are one error, the definitions around them intact.
fn a_hundred_thousand_nested_brackets() {
    for (open, close) in [
        ("(", ")"),
        ("[", "]"),
        ("f(", ")"),
        ("x[", "]"),
        ("T{", "}"),
    ] {
        let depth = 100_000;
        let text = format!(
            "g(x) = 1\nf(x) = {}x{}\nh(x) = 2\n",
            open.repeat(depth),
            close.repeat(depth)
        );
        let file = parse_file(&text);
        let deep: Vec<_> = file
            .errors
            .iter()
            .filter(|e| e.message.ends_with("expression nested too deeply"))
            .collect();
        assert_eq!(deep.len(), 1, "{open}: {:?}", file.errors.first());
        // The definitions around it are intact.
        let names: Vec<String> = file
            .items
            .iter()
            .filter_map(|i| match i {
                zy_syntax::ast::Item::Function(f) => Some(format!("{:?}", f.name)),
                _ => None,
            })
            .collect();
        assert_eq!(
            names,
            ["Named(\"g\")", "Named(\"f\")", "Named(\"h\")"],
            "{open}"
        );
    }
}

#[test]
fn long_sums_parse() {
    let text = format!("f(x) = {}", vec!["x"; 150].join(" + "));
    let file = parse_file(&text);
    assert_eq!(file.errors, vec![]);
}

#[test]
fn long_chains_and_deep_types_are_bounded_too() {
    on_parse_stack(long_chains_and_deep_types_are_bounded);
}

/// Right-nested chains, nested types and `where` clauses past the limits are errors.
fn long_chains_and_deep_types_are_bounded() {
    let n = 30_000;
    let cases = [
        format!("f(x) = {}", vec!["x"; n].join("^")),
        format!("f(x::{}Float64{}) = x", "Vector{".repeat(n), "}".repeat(n)),
        format!("f(x) {} = x", "where T ".repeat(n)),
    ];
    for text in cases {
        let file = parse_file(&text);
        assert!(
            file.errors
                .iter()
                .any(|e| e.message.ends_with("expression nested too deeply")),
            "{:?}",
            file.errors.first()
        );
    }
}

#[test]
fn the_deepest_accepted_nesting_fits_in_the_parse_stack() {
    // Each variant nested 1000 deep and deeper than the limits allow; a debug build must parse
    // it, print it and drop it within the analysis threads' stack.
    let handle = std::thread::Builder::new()
        .stack_size(zy_syntax::PARSE_STACK)
        .spawn(|| {
            let openers = [
                ("(", ")"),
                ("f(", ")"),
                ("-", ""),
                ("x -> ", ""),
                ("[1 -", "]"),
                ("[x ", "]"),
                ("[x; ", "]"),
                ("a[", "]"),
                ("T{", "}"),
                ("\"$(", ")\""),
                ("@m(", ")"),
                ("x^", ""),
                ("2", ""),
                ("x == ", ""),
                ("x ? y : ", ""),
                ("begin\n", "\nend"),
                ("if x\n", "\nend"),
                ("while x\n", "\nend"),
                ("let y = 1\n", "\nend"),
                ("x + ", ""),
                ("[x for x in ", "]"),
                ("x.(", ")"),
                ("g(y) do z\n", "\nend"),
            ];
            for (open, close) in openers {
                for depth in [1000, 30_000] {
                    let text = format!("f(x) = {}x{}", open.repeat(depth), close.repeat(depth));
                    let file = parse_file(&text);
                    let _ = zy_syntax::debug_tree(&file);
                    let parse = zy_syntax::tree::parse(&text, None);
                    let _ = zy_syntax::tree::Sexp {
                        node: &parse.root,
                        text: &text,
                    }
                    .to_string();
                }
            }
        });
    let joined = handle.map(|h| h.join());
    assert!(matches!(joined, Ok(Ok(()))));
}

#[test]
fn long_chains_parse_convert_print_and_drop() {
    // Chains of one precedence level, call suffixes, `where` clauses and statements: 20,000
    // links are built, converted (the AST refuses them past its own depth), printed and
    // dropped on the stack the tools parse on, without overflowing it.
    on_parse_stack(|| {
        let n = 20_000;
        for text in long_chains(n) {
            let file = parse_file(&text);
            let _ = zy_syntax::debug_tree(&file);
            let parse = zy_syntax::tree::parse(&text, None);
            let printed = zy_syntax::tree::Sexp {
                node: &parse.root,
                text: &text,
            }
            .to_string();
            assert!(printed.len() > n);
            let _ = format!("{:?}", parse.root);
            drop(parse);
        }
    });
}

/// Definitions whose bodies are chains of `n` links of one kind.
fn long_chains(n: usize) -> [String; 9] {
    [
        format!("f(x) = {}", vec!["x"; n].join(" - ")),
        format!("f(x) = {}", vec!["x"; n].join(" && ")),
        format!("f(x) = x{}", "(1)".repeat(n)),
        format!("f(x) = x{}", ".a".repeat(n)),
        format!("f(x) = x{}", "'".repeat(n)),
        format!("f(x) = x{}", "[1]".repeat(n)),
        format!("f(x) = x{}", " where T".repeat(n)),
        format!("f(x) = x{}", "::T".repeat(n)),
        format!("f(x) = begin\n{}end", "x\n".repeat(n)),
    ]
}

/// Runs `f` on a thread with the stack the tools parse on ([`zy_syntax::PARSE_STACK`]): input
/// nested to the limits recurses that deep.
fn on_parse_stack(f: impl FnOnce() + Send + 'static) {
    let handle = std::thread::Builder::new()
        .stack_size(zy_syntax::PARSE_STACK)
        .spawn(f);
    let joined = handle.map(|h| h.join());
    assert!(matches!(joined, Ok(Ok(()))));
}
