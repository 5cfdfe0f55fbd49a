//! Editor features at the `ide` layer, tested as rust-analyzer tests its own: a fixture string
//! with `$0` marking the cursor (and `#- path` lines starting each file of a workspace), the
//! feature called on an analysis of it, the result compared with an `expect!` snapshot
//! (blessed with `UPDATE_EXPECT=1`). The LSP process is not started here; the stdio tests of
//! `zy-lsp` cover the protocol.

use std::fmt::Write;
use std::path::Path;

use expect_test::{expect, Expect};
use zy_ide::{AnalysisHost, FileId};

/// The cursor marker.
const CURSOR: &str = "$0";

/// A workspace built from a fixture: the files, the one holding the cursor and its offset.
struct Fixture {
    host: AnalysisHost,
    /// Every file with its text (without the cursor marker).
    files: Vec<(FileId, String)>,
    /// The file and byte offset of `$0`, if the fixture has one.
    cursor: Option<(FileId, u32)>,
}

/// Parses a fixture: text before the first `#- path` line (or all of it) is `main.jl`.
fn fixture(text: &str) -> Fixture {
    let mut parts: Vec<(String, String)> = Vec::new();
    for line in text.lines() {
        match line.strip_prefix("#- ") {
            Some(path) => parts.push((path.trim().to_string(), String::new())),
            None => {
                if parts.is_empty() {
                    parts.push(("main.jl".to_string(), String::new()));
                }
                if let Some((_, body)) = parts.last_mut() {
                    body.push_str(line);
                    body.push('\n');
                }
            }
        }
    }
    let mut host = AnalysisHost::new();
    let mut files = Vec::new();
    let mut cursor = None;
    for (path, body) in parts {
        let (body, offset) = match body.find(CURSOR) {
            Some(at) => (body.replacen(CURSOR, "", 1), Some(at as u32)),
            None => (body, None),
        };
        let id = host.set_file_text(Path::new(&path), body.clone());
        if let Some(offset) = offset {
            cursor = Some((id, offset));
        }
        files.push((id, body));
    }
    Fixture {
        host,
        files,
        cursor,
    }
}

impl Fixture {
    fn cursor(&self) -> (FileId, u32) {
        self.cursor.expect("the fixture has no `$0` cursor")
    }

    fn first_file(&self) -> FileId {
        self.files[0].0
    }

    fn text(&self, file: FileId) -> &str {
        self.files
            .iter()
            .find(|(id, _)| *id == file)
            .map_or("", |(_, t)| t)
    }
}

/// The hover at the cursor: the hovered word, then the markdown.
fn check_hover(text: &str, expect: Expect) {
    let f = fixture(text);
    let (file, offset) = f.cursor();
    let out = match f
        .host
        .analysis()
        .hover(file, offset)
        .expect("not cancelled")
    {
        Some(h) => {
            let word = &f.text(file)[h.start as usize..h.end as usize];
            format!("[{word}]\n{}\n", h.markdown)
        }
        None => "no hover\n".to_string(),
    };
    expect.assert_eq(&out);
}

/// The first file with its gradient inlay hints inserted as `‹label›`.
fn check_hints(text: &str, expect: Expect) {
    let f = fixture(text);
    let file = f.first_file();
    let mut hints = f
        .host
        .analysis()
        .gradient_hints(file)
        .expect("not cancelled");
    hints.sort_by_key(|h| h.offset);
    let source = f.text(file);
    let mut out = String::new();
    let mut at = 0;
    for h in hints {
        out.push_str(&source[at..h.offset as usize]);
        let _ = write!(out, "‹{}›", h.label);
        at = h.offset as usize;
    }
    out.push_str(&source[at..]);
    expect.assert_eq(&out);
}

/// The diagnostics of the first file, one per line as `line:col code: message`.
fn check_diagnostics(text: &str, expect: Expect) {
    let f = fixture(text);
    let file = f.first_file();
    let diags = f.host.analysis().diagnostics(file).expect("not cancelled");
    let mut out = String::new();
    for d in diags {
        let _ = writeln!(
            out,
            "{}:{} {} [{}]: {}",
            d.line,
            d.col,
            d.severity.as_str(),
            d.code,
            d.message
        );
    }
    expect.assert_eq(&out);
}

#[test]
fn hover_on_a_function_name_shows_its_specialisation_and_gradient_type() {
    check_hover(
        r#"
# zy: at pow(2.0, 3)
function p$0ow(x, n)
    r = 1
    while n > 0
        r *= x
        n -= 1
    end
    return r
end
"#,
        expect![[r#"
            [pow]
            ```julia
            pow(x::Float64, n::Int64) -> Float64
            ```
            specialised at `pow(2.0, 3)`

            gradient: `Tuple{Float64, Nothing}`

            `n`: not differentiable (`nothing`)
        "#]],
    );
}

#[test]
fn hover_on_a_function_without_annotation_asks_for_one() {
    check_hover(
        "sq$0(x) = x * x\n",
        expect![[r#"
            [sq]
            ```julia
            sq
            ```
            No specialisation: add `# zy: at sq(...)` above the definition to see types and gradients.
        "#]],
    );
}

#[test]
fn hover_on_a_local_gives_its_reaching_gradient_summary() {
    check_hover(
        r#"
# zy: at pow(2.0, 3)
function pow(x, n)
    r = 1
    while n > 0
        r$0 *= x
        n -= 1
    end
    return r
end
"#,
        expect![[r#"
            [r]
            ```julia
            r::Float64
            ```
            gradient type: `Float64`

            a gradient reaches `r` from 3 uses; loop-carried
        "#]],
    );
}

#[test]
fn hover_on_an_argument_through_round_says_a_gradient_reaches_it() {
    // SPEC: `round` has gradient zero: the argument is reached (its gradient is 0.0, not
    // `nothing`).
    check_hover(
        r#"
# zy: at f(2.5)
f(x$0) = round(x) * 2.0
"#,
        expect![[r#"
            [x]
            ```julia
            x::Float64
            ```
            gradient type: `Float64`

            a gradient reaches `x` from 1 use
        "#]],
    );
}

#[test]
fn hover_on_a_loop_says_what_the_tape_keeps_per_iteration() {
    check_hover(
        r#"
# zy: at pow(2.0, 3)
function pow(x, n)
    r = 1
    wh$0ile n > 0
        r *= x
        n -= 1
    end
    return r
end
"#,
        expect![[r#"
            [while]
            `while` loop: per iteration of its loops, the forward pass keeps 8 bytes for the pullback (1 push: Tuple{Float64})
        "#]],
    );
}

#[test]
fn hover_on_a_call_names_the_rule_that_differentiates_it() {
    check_hover(
        r#"
# zy: at f(1.0)
f(x) = si$0n(x) + helper(x)
helper(x) = 2x
"#,
        expect![[r#"
            [sin]
            `sin` is differentiated by zy's primitive rule
        "#]],
    );
    check_hover(
        r#"
# zy: at f(1.0)
f(x) = sin(x) + hel$0per(x)
helper(x) = 2x
"#,
        expect![[r#"
            [helper]
            `helper` is differentiated by its derived adjoint (zy transforms its body)
        "#]],
    );
    check_hover(
        r#"
# zy: at f(1.0)
f(x) = slo$0w(x)
slow(x) = 2x
function rrule(::typeof(slow), x)
    back(ȳ) = (NoTangent(), 2ȳ)
    return slow(x), back
end
"#,
        expect![[r#"
            [slow]
            `slow` is differentiated by the in-source `rrule(::typeof(slow), ...)`
        "#]],
    );
}

#[test]
fn inlay_hints_give_each_argument_its_gradient_type() {
    check_hints(
        r#"
# zy: at pow(2.0, 3)
function pow(x, n)
    r = 1
    for i in 1:n
        r *= x
    end
    return r
end

# zy: at norm2([1.0, 2.0], true)
norm2(v, flag) = flag ? sum(v .^ 2) : 0.0

unannotated(x) = x
"#,
        expect![[r#"

            # zy: at pow(2.0, 3)
            function pow(x‹∇ Float64›, n‹∇ Nothing›)
                r = 1
                for i in 1:n
                    r *= x
                end
                return r
            end

            # zy: at norm2([1.0, 2.0], true)
            norm2(v‹∇ Vector{Float64}›, flag‹∇ Nothing›) = flag ? sum(v .^ 2) : 0.0

            unannotated(x) = x
        "#]],
    );
}

#[test]
fn diagnostics_locate_syntax_and_type_errors() {
    check_diagnostics(
        r#"
# zy: at f(2.0)
f(x) = x + undefined_thing

g(x) = x +* 2
"#,
        expect![[r#"
            3:12 error [undefined-name]: UndefVarError: `undefined_thing` not defined
            5:13 error [syntax-error]: syntax error: unexpected `2`
        "#]],
    );
}
