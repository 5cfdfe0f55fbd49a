//! Prints tree-sitter-julia's tree and zy's AST for a Julia file (or stdin): the tool for seeing
//! where the grammar and Julia disagree. `cargo run -p zy-syntax --example dump -- FILE [--cst]`;
//! `--time` reports the mean time of `parse_file` instead (use a release build).

use std::io::Read;

fn print_cst(node: tree_sitter::Node, src: &str, depth: usize) {
    let text = src.get(node.byte_range()).unwrap_or("");
    let shown = if node.child_count() == 0 || text.len() < 40 {
        text.replace('\n', "\\n")
    } else {
        String::new()
    };
    let quote = if node.is_named() { "" } else { "'" };
    let missing = if node.is_missing() { "MISSING " } else { "" };
    println!(
        "{}{quote}{} [{}..{}] {missing}{shown}",
        "  ".repeat(depth),
        node.kind(),
        node.start_byte(),
        node.end_byte()
    );
    let mut cursor = node.walk();
    for child in node.children(&mut cursor) {
        print_cst(child, src, depth + 1);
    }
}

fn main() -> std::io::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut src = String::new();
    match args.iter().find(|a| !a.starts_with("--")) {
        Some(path) => src = std::fs::read_to_string(path)?,
        None => {
            std::io::stdin().read_to_string(&mut src)?;
        }
    }
    if args.iter().any(|a| a == "--cst") {
        let mut parser = tree_sitter::Parser::new();
        let language = tree_sitter_julia::LANGUAGE.into();
        if parser.set_language(&language).is_ok() {
            if let Some(tree) = parser.parse(&src, None) {
                print_cst(tree.root_node(), &src, 0);
            }
        }
    }
    if args.iter().any(|a| a == "--time") {
        let runs = 1000;
        let start = std::time::Instant::now();
        for _ in 0..runs {
            std::hint::black_box(zy_syntax::parse_file(std::hint::black_box(&src)));
        }
        println!(
            "parse_file: {:.1} µs per parse of {} bytes",
            start.elapsed().as_secs_f64() * 1e6 / runs as f64,
            src.len()
        );
        let mut parser = tree_sitter::Parser::new();
        let language = tree_sitter_julia::LANGUAGE.into();
        if parser.set_language(&language).is_ok() {
            let start = std::time::Instant::now();
            for _ in 0..runs {
                std::hint::black_box(parser.parse(std::hint::black_box(&src), None));
            }
            println!(
                "of which tree-sitter: {:.1} µs",
                start.elapsed().as_secs_f64() * 1e6 / runs as f64
            );
        }
        return Ok(());
    }
    print!("{}", zy_syntax::debug_tree(&zy_syntax::parse_file(&src)));
    Ok(())
}
