//! The lexer, the parser and the conversion to the AST (`parse_file`, `parse_expr`) on
//! arbitrary input must return, never panic or hang; the syntax tree's printer too.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let parse = zy_syntax::tree::parse(&text, None);
    let _ = zy_syntax::tree::Sexp {
        node: &parse.root,
        text: &text,
    }
    .to_string();
    let file = zy_syntax::parse_file(&text);
    let _ = zy_syntax::debug_tree(&file);
    let _ = zy_syntax::parse_expr(&text);
});
