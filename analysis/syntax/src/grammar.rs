//! The Julia grammar: tree-sitter-julia with its external scanner guarded during error
//! recovery (`csrc/julia_guarded.c`), which turns the quadratic parse times of broken files,
//! and of valid files where a parse alternative fails at every line, into linear ones.

use std::sync::Once;

use tree_sitter::Language;

extern "C" {
    /// Copies tree-sitter-julia's language and installs the guarded scanner in the copy.
    fn zy_julia_guarded_init(julia: *const tree_sitter::ffi::TSLanguage);
    /// The guarded copy (valid after `zy_julia_guarded_init`).
    fn zy_julia_guarded() -> *const tree_sitter::ffi::TSLanguage;
}

static INIT: Once = Once::new();

/// tree-sitter-julia with the guarded scanner.
pub(crate) fn julia() -> Language {
    // SAFETY: tree-sitter-julia's language function returns a pointer to its static
    // language, which the initialiser copies once, before any reader of the copy; the copy is
    // a static too, its tables are tree-sitter-julia's statics, and `Language` frees nothing
    // for a language that is not WebAssembly.
    unsafe {
        INIT.call_once(|| {
            let julia = tree_sitter_julia::LANGUAGE.into_raw()();
            zy_julia_guarded_init(julia.cast());
        });
        Language::from_raw(zy_julia_guarded())
    }
}

#[cfg(test)]
mod tests {
    use tree_sitter::{Language, Parser};

    /// Strings, commands, block comments and adjoints: what the scanner and the guard see.
    const SAMPLE: &str = r#"#= block
   comment #= nested =# =#
function f(x)
    s = "a $x b \$ c \\ d"
    t = """triple "quoted" $(x + 1)"""
    c = `ls $x`
    r = raw"a\"b"
    q = 'c'
    u = x' * x
    if x > 0 error("positive: $x") end
    return s * t
end
g(x) = "unterminated
h = (a, b) -> a'
"#;

    fn sexp(language: &Language, text: &str) -> String {
        let mut parser = Parser::new();
        match parser.set_language(language) {
            Ok(()) => parser
                .parse(text, None)
                .map_or_else(String::new, |t| t.root_node().to_sexp()),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn the_guard_changes_no_tree_of_an_edited_file() {
        // Every prefix: the states a file goes through while it is typed.
        let original = tree_sitter_julia::LANGUAGE.into();
        let guarded = super::julia();
        for (cut, _) in SAMPLE.char_indices() {
            let text = &SAMPLE[..cut];
            assert_eq!(sexp(&original, text), sexp(&guarded, text), "{text}");
        }
    }
}
