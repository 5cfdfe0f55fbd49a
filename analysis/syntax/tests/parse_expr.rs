//! `parse_expr`: the call strings of `zy-analyze grad FILE CALL` and of `# zy: at CALL`.

use zy_syntax::ast::TextRange;
use zy_syntax::parse_expr;

fn show(text: &str) -> String {
    match parse_expr(text) {
        Ok(e) => e.to_string(),
        Err(e) => format!(
            "error {}..{} {}: {}",
            e.range.start, e.range.end, e.code, e.message
        ),
    }
}

#[test]
fn calls_parse_with_ranges_relative_to_the_text() {
    assert_eq!(show("pow(2.0, 3)"), "(call pow 2.0 3)");
    assert_eq!(
        show("loss(Dense([1.0 2.0], [0.5]), [1.0, 2.0])"),
        "(call loss (call Dense (matrix (row 1.0 2.0)) (vect 0.5)) (vect 1.0 2.0))"
    );
    assert_eq!(
        show("f((a = 1.0, b = -2), Ref(3.0))"),
        "(call f (named-tuple (a 1.0) (b -2)) (call Ref 3.0))"
    );
    let e = parse_expr("  f(x)  ").map_err(|e| e.message);
    assert_eq!(e.map(|e| e.range), Ok(TextRange::new(2, 6)));
}

#[test]
fn bad_call_strings_are_errors() {
    assert_eq!(show(""), "error 0..0 syntax-error: expected an expression");
    assert_eq!(
        show("f(1) g(2)"),
        "error 5..6 syntax-error: syntax error: unexpected `g`"
    );
    assert_eq!(
        show("f(1)\ng(2)"),
        "error 0..9 syntax-error: expected one expression, found several"
    );
    assert_eq!(show("f(1,"), "error 1..2 syntax-error: missing `)`");
    assert_eq!(
        show("f(quote x end)"),
        "error 2..13 unsupported: unsupported: quoted expression; write the code itself instead"
    );
    assert_eq!(
        show("f(999999999999999999999999999999999999999)"),
        "error 2..41 unsupported: unsupported: integer literal `999999999999999999999999999999999999999` (a BigInt); zy's widest integer is Int128"
    );
}
