//! `parse_file` and `parse_expr` on arbitrary input must return, never panic.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let file = zy_syntax::parse_file(&text);
    let _ = zy_syntax::debug_tree(&file);
    let _ = zy_syntax::parse_expr(&text);
});
