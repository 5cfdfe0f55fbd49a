//! Prints the syntax tree of each input as an S-expression, one per line. Inputs come from
//! stdin, one JSON string per line (so they may hold newlines).

use std::io::BufRead;

fn main() {
    for line in std::io::stdin().lock().lines().map_while(Result::ok) {
        let text = unescape(&line);
        let parse = zy_syntax::tree::parse(&text, None);
        let root = &parse.root;
        let whole = zy_syntax::tree::Sexp {
            node: root,
            text: &text,
        }
        .to_string();
        // A lone statement is shown alone (as JuliaSyntax's `parse_stmts` shows it), with the
        // junk after it as `(wrapper x (error-t y))`.
        let lone = root.children.len() == 1 && root.trivia_errors.iter().all(|(i, _)| *i == 1);
        let shown = match whole.strip_prefix("(toplevel ") {
            Some(inner) if lone => inner.strip_suffix(')').unwrap_or(inner).to_string(),
            _ => whole,
        };
        let errors: Vec<String> = parse
            .diagnostics
            .iter()
            .map(|d| d.message.clone())
            .collect();
        println!("{shown}\t{}", errors.join(" | "));
    }
}

/// A JSON string literal (as written by Python's json.dumps) to its text.
fn unescape(s: &str) -> String {
    let s = s.trim();
    let s = s.strip_prefix('"').unwrap_or(s);
    let s = s.strip_suffix('"').unwrap_or(s);
    let mut out = String::new();
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('r') => out.push('\r'),
            Some('u') => {
                let hex: String = chars.by_ref().take(4).collect();
                if let Some(c) = u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32) {
                    out.push(c);
                }
            }
            Some(c) => out.push(c),
            None => {}
        }
    }
    out
}
