//! Prints the syntax tree and zy's AST for a Julia file (or stdin): the tool for seeing how a
//! construct parses. `cargo run -p zy-syntax --example dump -- FILE [--tree]`.

use std::io::Read;

fn main() -> std::io::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut src = String::new();
    match args.iter().find(|a| !a.starts_with("--")) {
        Some(path) => src = std::fs::read_to_string(path)?,
        None => {
            std::io::stdin().read_to_string(&mut src)?;
        }
    }
    if args.iter().any(|a| a == "--tree") {
        let parse = zy_syntax::tree::parse(&src, None);
        let tree = zy_syntax::tree::Sexp {
            node: &parse.root,
            text: &src,
        };
        println!("{tree}");
        for d in &parse.diagnostics {
            println!(
                "diagnostic {}..{}: {}",
                d.range.start, d.range.end, d.message
            );
        }
    }
    print!("{}", zy_syntax::debug_tree(&zy_syntax::parse_file(&src)));
    Ok(())
}
