//! Prints the syntax tree of each input as an S-expression, one per line. Inputs come from
//! stdin, one JSON string per line (so they may hold newlines).

use std::io::BufRead;

fn main() {
    for line in std::io::stdin().lock().lines().map_while(Result::ok) {
        let text = unescape(&line);
        let parse = zy_syntax::tree::parse(&text, None);
        let root = &parse.root;
        let shown = match root.children.as_slice() {
            [single] => zy_syntax::tree::Sexp {
                node: single,
                text: &text,
            }
            .to_string(),
            _ => zy_syntax::tree::Sexp {
                node: root,
                text: &text,
            }
            .to_string(),
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
