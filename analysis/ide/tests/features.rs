//! Editor features at the `ide` layer, tested as rust-analyzer tests its own: a fixture string
//! with `$0` marking the cursor (and `#- path` lines starting each file of a workspace), the
//! feature called on an analysis of it, the result compared with an `expect!` snapshot
//! (blessed with `UPDATE_EXPECT=1`). The LSP process is not started here; the stdio tests of
//! `zy-lsp` cover the protocol.

use std::fmt::Write;
use std::path::Path;

use expect_test::{expect, Expect};
use zy_ide::{AnalysisHost, Engine, EvalLimits, FileId};

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
            pow(x::Float64, n::Int64) -> Union{Float64, Int64}
            ```
            specialised at `pow(2.0, 3)`

            gradient: `Tuple{Float64, Nothing}`

            `n`: not differentiable (`nothing`)
        "#]],
    );
}

#[test]
fn hover_and_hints_on_a_function_with_try() {
    let text = r#"
# zy: at safe_log(2.0)
function safe$0_log(x)
    y = try
        log(x)
    catch e
        e isa DomainError ? -Inf : 0.0
    finally
        x += 1.0
    end
    return y
end
"#;
    check_hover(
        text,
        expect![[r#"
        [safe_log]
        ```julia
        safe_log(x::Float64) -> Float64
        ```
        specialised at `safe_log(2.0)`

        gradient: `Tuple{Float64}`
    "#]],
    );
    check_hints(
        text,
        expect![[r#"

        # zy: at safe_log(2.0)
        function safe_log(x‹∇ Float64›)
            y = try
                log(x)
            catch e
                e isa DomainError ? -Inf : 0.0
            finally
                x += 1.0
            end
            return y
        end
    "#]],
    );
}

#[test]
fn hover_on_a_function_gives_the_gradient_grad_returns_nothing_where_none_reaches() {
    // `y` is read only by `>`: `grad` returns `nothing` for it, though it is a Float64.
    check_hover(
        r#"
# zy: at f(1.0, 2.0)
function f$0(x, y)
    c = y > 0.0
    u = y * 3.0
    return c ? 2.0 * x : x
end
"#,
        expect![[r#"
            [f]
            ```julia
            f(x::Float64, y::Float64) -> Float64
            ```
            specialised at `f(1.0, 2.0)`

            gradient: `Tuple{Float64, Nothing}`

            `y`: gradient cut by `>`
        "#]],
    );
}

#[test]
fn hover_on_a_local_no_gradient_reaches_tells_one_story() {
    check_hover(
        r#"
# zy: at f(1.0, 2.0)
function f(x, y)
    c = y > 0.0
    u$0 = y * 3.0
    return c ? 2.0 * x : x
end
"#,
        expect![[r#"
            [u]
            ```julia
            u::Float64
            ```

            no gradient reaches this value: its gradient is `nothing` (a `Float64` where one arrives)
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
fn hover_on_a_helper_is_specialised_as_an_annotated_caller_calls_it() {
    // The helper has no annotation; the nearest annotated function calling it specialises it,
    // and a local of the helper is typed there too.
    check_hover(
        r#"
function hor$0ner(c, x)
    y = c[end]
    for k in length(c)-1:-1:1
        y = y * x + c[k]
    end
    return y
end

# zy: gradcheck fit(2.0)
fit(x) = horner([1.0, 2.0, 3.0], x)
"#,
        expect![[r#"
            [horner]
            ```julia
            horner(c::Vector{Float64}, x::Float64) -> Float64
            ```
            specialised as `fit(2.0)` calls it

            gradient: `Tuple{Vector{Float64}, Float64}`
        "#]],
    );
    // Its own `# zy: gradcheck` call, when it has no `# zy: at`.
    check_hover(
        "# zy: gradcheck sq(3.0)\nsq$0(x) = x * x\n",
        expect![[r#"
            [sq]
            ```julia
            sq(x::Float64) -> Float64
            ```
            specialised at `sq(3.0)`

            gradient: `Tuple{Float64}`
        "#]],
    );
}

#[test]
fn hover_on_a_function_with_concrete_annotations_is_specialised_at_them() {
    // Every parameter annotated with a concrete type, in a module: typed at those types, and
    // its helper as it calls it.
    check_hover(
        r#"
module M
function to$0tal(W::Matrix{Float64}, b::Vector{Float64})
    sum(affine(W, b, [1.0, 2.0]))
end
affine(W, b, x) = W * x + b
end
"#,
        expect![[r#"
            [total]
            ```julia
            total(W::Matrix{Float64}, b::Vector{Float64}) -> Float64
            ```
            specialised at `total(::Matrix{Float64}, ::Vector{Float64})`

            gradient: `Tuple{Matrix{Float64}, Vector{Float64}}`
        "#]],
    );
    check_hover(
        r#"
function total(W::Matrix{Float64}, b::Vector{Float64})
    sum(affine(W, b, [1.0, 2.0]))
end
aff$0ine(W, b, x) = W * x + b
"#,
        expect![[r#"
            [affine]
            ```julia
            affine(W::Matrix{Float64}, b::Vector{Float64}, x::Vector{Float64}) -> Vector{Float64}
            ```
            specialised as `total(::Matrix{Float64}, ::Vector{Float64})` calls it

            gradient: `Tuple{Matrix{Float64}, Vector{Float64}, Vector{Float64}}`
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
            r::Float64 | Int64 | Union{Float64, Int64}
            ```
            gradient type: `Float64`

            a gradient reaches `r` from 5 uses; loop-carried
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

/// `f(x) = Σᵢ i·x²/2 + x` for i in 1:3, by a loop of derivatives: f'(x) = 6x + 1.
const NESTED: &str = r#"
sq(x) = x * x / 2.0
# zy: at slopes(2.0)
function slopes(x)
    s = x
    fo$0r i in 1:3
        s += i * derivative(sq, x) * x
    end
    return s
end
"#;

#[test]
fn hover_on_a_loop_of_nested_derivatives_reports_the_tape_the_gradient_runs() {
    // The loop's adjoint is the one the gradient runs (the driver of `sq` inlined); hover
    // used to call it not differentiable.
    check_hover(
        NESTED,
        expect![[r#"
            [for]
            `for` loop: per iteration of its loops, the forward pass keeps 24 bytes for the pullback (2 pushes: Tuple{Float64}, Tuple{Float64, Float64})
        "#]],
    );
    // x + Σ i·x·x = x + 6x²: the gradient at 2 is 1 + 12x = 25.
    check_grad(
        NESTED,
        "slopes(2.0)",
        expect![[r#"
        value: 26.0
        gradient: (25.0,)
    "#]],
    );
    check_hover(
        &NESTED.replace("fo$0r", "for").replace("s += i", "s$0 += i"),
        expect![[r#"
            [s]
            ```julia
            s::Float64
            ```
            gradient type: `Float64`

            a gradient reaches `s` from 3 uses; loop-carried
        "#]],
    );
}

/// A loop whose derived adjoint would keep a value per iteration, and an rrule that replaces it.
const RULED: &str = r#"
# zy: at power3(2.0)
function power3(x)
    y = 1.0
    fo$0r i in 1:3
        y *= x
    end
    return y
end
function rrule(::typeof(power3), x)
    back(ȳ) = (NoTangent(), 3.0 * x * x * ȳ)
    return power3(x), back
end
"#;

#[test]
fn hover_on_a_loop_of_a_function_with_an_rrule_says_the_rule_runs() {
    check_hover(
        RULED,
        expect![[r#"
        [for]
        `for` loop: the function is differentiated by its in-source `rrule`, so the forward pass keeps the rule's pullback, nothing per iteration
    "#]],
    );
    // The rule's derivative: 3x² at 2.
    check_grad(
        RULED,
        "power3(2.0)",
        expect![[r#"
        value: 8.0
        gradient: (12.0,)
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
            ```julia
            sin(z), cos(z), tanh(z)
            ```

            The complex sine, cosine and hyperbolic tangent, computed as Julia does.

            ---

            `sin` is differentiated by zy's primitive rule on real numbers; its methods for other types in zy's library, `Base.sin`, are transformed like your code
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

# `t` reaches the result only through `>`: its gradient is `nothing`.
# zy: at gate(1.0, 2.0)
gate(x, t) = t > 0.0 ? 2.0 * x : x

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

            # `t` reaches the result only through `>`: its gradient is `nothing`.
            # zy: at gate(1.0, 2.0)
            gate(x‹∇ Float64›, t‹∇ Nothing›) = t > 0.0 ? 2.0 * x : x

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
            5:11 error [syntax-error]: syntax error: unexpected `*`
        "#]],
    );
}

/// The value and gradient of `call` made in the fixture's first file, or the error, through
/// both engines (which must agree).
fn check_grad(text: &str, call: &str, expect: Expect) {
    let f = fixture(text);
    let file = f.first_file();
    let mut shown = Vec::new();
    for engine in [Engine::Interp, Engine::Jit] {
        let out = match f
            .host
            .analysis()
            .grad(file, call, EvalLimits::default(), engine)
        {
            Ok(Ok(g)) => g.to_text(),
            Ok(Err(e)) => e.to_string(),
            Err(_) => "cancelled".to_string(),
        };
        shown.push(out);
    }
    assert_eq!(shown[0], shown[1], "the engines disagree on {call}");
    expect.assert_eq(&format!("{}\n", shown[0]));
}

#[test]
fn a_file_does_not_see_another_open_file_it_does_not_include() {
    // A scratch file redefining `helper` changes nothing in main.jl.
    let workspace = r#"
helper(x) = 2x
f(x) = helper(x) * x
#- scratch.jl
helper(x) = 3x
g(x) = f(x)
"#;
    check_grad(
        workspace,
        "f(1.5)",
        expect![[r#"
            value: 4.5
            gradient: (6.0,)
        "#]],
    );
    let f = fixture(workspace);
    let scratch = f.files[1].0;
    let e = f
        .host
        .analysis()
        .eval(scratch, "g(1.0)", EvalLimits::default());
    assert_eq!(
        e.unwrap().map(|v| v.display).map_err(|e| e.to_string()),
        Err("scratch.jl:2:8: error: UndefVarError: `f` not defined".to_string())
    );
}

#[test]
fn an_included_file_is_part_of_the_including_files_program() {
    let workspace = r#"
include("lib/model.jl")
loss(w) = model(w, 2.0)^2
#- lib/model.jl
include("../util.jl")
model(w, x) = w * sq(x)
#- util.jl
sq(x) = x * x
"#;
    // (4w)^2 at w = 0.5: 4.0; d/dw = 32w = 16.
    check_grad(
        workspace,
        "loss(0.5)",
        expect![[r#"
            value: 4.0
            gradient: (16.0,)
        "#]],
    );
    // The included file's own code sees its includer's program.
    let f = fixture(workspace);
    let model = f.files[1].0;
    let v = f
        .host
        .analysis()
        .eval(model, "loss(1.0)", EvalLimits::default());
    assert_eq!(
        v.unwrap().map(|v| v.display).map_err(|e| e.to_string()),
        Ok("16.0".to_string())
    );
}

#[test]
fn includes_that_name_no_file_or_form_a_cycle_are_located_errors() {
    check_diagnostics(
        r#"
include("missing.jl")
include("b.jl")
f(x) = x
#- b.jl
include("main.jl")
"#,
        expect![[r#"
            2:1 error [include-error]: cannot include `missing.jl`: no such file
            3:1 error [include-error]: `b.jl` is already being included: an include cycle
        "#]],
    );
}

#[test]
fn included_files_are_read_through_the_hosts_reader() {
    let mut host = AnalysisHost::new();
    let main = host.set_file_text(
        Path::new("dir/main.jl"),
        "include(\"./sub/../a.jl\")\nf(x) = a(x) + 1.0\n".into(),
    );
    let mut asked = Vec::new();
    host.load_includes(|path| {
        asked.push(path.display().to_string());
        match path.to_str() {
            Some("dir/a.jl") => Ok("include(\"gone.jl\")\na(x) = 2x\n".to_string()),
            _ => Err("permission denied".to_string()),
        }
    });
    assert_eq!(asked, ["dir/a.jl", "dir/gone.jl"]);
    let v = host
        .analysis()
        .eval(main, "f(2.0)", EvalLimits::default())
        .unwrap();
    assert_eq!(
        v.map(|v| v.display).map_err(|e| e.to_string()),
        Err("dir/a.jl:1:1: error: cannot include `dir/gone.jl`: permission denied".to_string())
    );
}

#[test]
fn the_prelude_defines_library_functions_that_user_definitions_shadow() {
    check_grad(
        "f(x) = abs2(x) + abs2(2)\n",
        "f(3.0)",
        expect![[r#"
            value: 13.0
            gradient: (6.0,)
        "#]],
    );
    // A function of the file named like a library function is the file's own (as in Julia's
    // Main), and the library's own code keeps calling the library's.
    check_grad(
        "abs2(x) = 10x\nf(x) = abs2(x)\n",
        "f(3.0)",
        expect![[r#"
            value: 30.0
            gradient: (10.0,)
        "#]],
    );
}

#[test]
fn hover_on_a_library_call_names_its_prelude_definition() {
    check_hover(
        r#"
# zy: at f(1.0)
f(x) = ab$0s2(x)
"#,
        expect![[r#"
            [abs2]
            ```julia
            abs2(x)
            ```

            The squared absolute value, `x * x` for real numbers.

            ---

            `abs2` is differentiated through its definition in zy's library, `Base.abs2`, which zy transforms like your code
        "#]],
    );
}

#[test]
fn hover_shows_the_docstrings_of_every_method_then_what_zy_knows() {
    check_hover(
        r#"
"""
    scale(x)

Twice `x`.
"""
scale(x) = 2x
"Thrice a pair's first." scale(x, y) = 3x
# zy: at f(1.0)
f(x) = sca$0le(x)
"#,
        expect![[r#"
            [scale]
            ```julia
            scale(x)
            ```

            Twice `x`.

            ---

            Thrice a pair's first.

            ---

            `scale` is differentiated by its derived adjoint (zy transforms its body)
        "#]],
    );
    // At a definition: the docstrings, then the specialisation.
    check_hover(
        r#"
# zy: at scale(1.0)
"Twice `x`."
sc$0ale(x) = 2x
"Thrice a pair's first." scale(x, y) = 3x
"#,
        expect![[r#"
            [scale]
            Twice `x`.

            ---

            Thrice a pair's first.

            ---

            ```julia
            scale(x::Float64) -> Float64
            ```
            specialised at `scale(1.0)`

            gradient: `Tuple{Float64}`
        "#]],
    );
    // A function documented where it is declared, before its methods (as interfaces are).
    check_hover(
        r#"
"Half the squared norm."
function energy end
energy(x) = sum(abs2, x) / 2
# zy: at g([1.0])
g(x) = ener$0gy(x)
"#,
        expect![[r#"
            [energy]
            Half the squared norm.

            ---

            `energy` is differentiated by its derived adjoint (zy transforms its body)
        "#]],
    );
}

#[test]
fn hover_shows_the_docstrings_of_structs_fields_consts_and_modules() {
    let workspace = r#"
"A body in the plane."
struct Body
    "The mass, in kilograms."
    mass::Float64
    x::Float64
end
"The number of steps."
const STEPS = 10
"Vectors of the plane."
module Plane
"The Euclidean norm."
norm2(x, y) = sqrt(x^2 + y^2)
end
energy(b::Body) = STEPS * b.mass * Plane.norm2(b.x, 0.0)
"#;
    let at = |needle: &str, cursor: &str| workspace.replacen(needle, cursor, 1);
    check_hover(
        &at("struct Body", "struct Bo$0dy"),
        expect![[r#"
            [Body]
            A body in the plane.
        "#]],
    );
    check_hover(
        &at("    mass::Float64", "    ma$0ss::Float64"),
        expect![[r#"
            [mass]
            The mass, in kilograms.
        "#]],
    );
    check_hover(
        &at("b.mass", "b.ma$0ss"),
        expect![[r#"
            [mass]
            The mass, in kilograms.

            ---

            ```julia
            mass::Float64
            ```
            field of `Body`
        "#]],
    );
    check_hover(
        &at("b::Body", "b::Bo$0dy"),
        expect![[r#"
            [Body]
            A body in the plane.
        "#]],
    );
    check_hover(
        &at("STEPS *", "STE$0PS *"),
        expect![[r#"
            [STEPS]
            The number of steps.
        "#]],
    );
    check_hover(
        &at("Plane.norm2(b.x", "Plane.nor$0m2(b.x"),
        expect![[r#"
            [norm2]
            The Euclidean norm.

            ---

            `norm2` (`Plane.norm2`) is differentiated by its derived adjoint (zy transforms its body)
        "#]],
    );
    check_hover(
        &at("Plane.norm2(b.x", "Pla$0ne.norm2(b.x"),
        expect![[r#"
            [Plane]
            Vectors of the plane.
        "#]],
    );
    // An undocumented field, and a field access of another name: nothing to show.
    check_hover(
        &at("b.x,", "b.$0x,"),
        expect![[r#"
            [x]
            ```julia
            x::Float64
            ```
            field of `Body`
        "#]],
    );
}

#[test]
fn hover_shows_docstrings_of_included_files_of_doc_macros_and_of_the_library() {
    check_hover(
        r#"
include("b.jl")
f(x) = hel$0per(x)
#- b.jl
@doc raw"""
Raw: `\alpha` stays.
"""
helper(x) = 2x
"#,
        expect![[r#"
            [helper]
            Raw: `\alpha` stays.

            ---

            `helper` is differentiated by its derived adjoint (zy transforms its body)
        "#]],
    );
    // A local that shares a documented global's name is the local.
    check_hover(
        r#"
"The global."
const rate = 0.5
f(rate) = 2ra$0te
"#,
        expect![[r#"
            no hover
        "#]],
    );
}

#[test]
fn hover_shows_docstring_code_blocks_fenced_as_julia() {
    check_hover(
        r#"
"""
    clamp01(x)

Clamp `x` to `[0, 1]`.

# Examples
```jldoctest
julia> clamp01(2.0)
1.0
```

!!! note
    Not differentiable at 0 and 1:

        clamp01'(0.0)
"""
clamp01(x) = min(max(x, 0.0), 1.0)
f(x) = clamp$001(x)
"#,
        expect![[r#"
            [clamp01]
            ```julia
            clamp01(x)
            ```

            Clamp `x` to `[0, 1]`.

            # Examples
            ```julia
            julia> clamp01(2.0)
            1.0
            ```

            > **Note**
            >
            > Not differentiable at 0 and 1:
            >
            > ```julia
            > clamp01'(0.0)
            > ```

            ---

            `clamp01` is differentiated by its derived adjoint (zy transforms its body)
        "#]],
    );
}

#[test]
fn hover_on_a_field_names_its_struct_type_and_docstring() {
    let workspace = r#"
"A body."
struct Body
    "The mass, in kilograms."
    mass::Float64
    "Where it is."
    pos
end
struct World
    body::Body
end
"A pair of anything."
struct Pair2{T}
    "The first."
    a::T
end
"Another struct with a mass."
struct Planet
    "A planet's mass."
    mass::Float64
end
kinetic(b::Body) = b.mass * 2
weigh(w::World) = w.body.mass
# zy: at first_of(Pair2(1.5))
first_of(p) = p.a
# zy: at local_mass(2.0)
function local_mass(m)
    b = Body(m, 0.0)
    return b.pos + b.mass
end
unknown(xs) = xs[1].mass
"#;
    let at = |needle: &str, cursor: &str| workspace.replacen(needle, cursor, 1);
    // An argument's declared type.
    check_hover(
        &at("b.mass * 2", "b.ma$0ss * 2"),
        expect![[r#"
        [mass]
        The mass, in kilograms.

        ---

        ```julia
        mass::Float64
        ```
        field of `Body`
    "#]],
    );
    // A field of a field.
    check_hover(
        &at("w.body.mass", "w.body.ma$0ss"),
        expect![[r#"
        [mass]
        The mass, in kilograms.

        ---

        ```julia
        mass::Float64
        ```
        field of `Body`
    "#]],
    );
    check_hover(
        &at("w.body.mass", "w.bo$0dy.mass"),
        expect![[r#"
        [body]
        ```julia
        body::Body
        ```
        field of `World`
    "#]],
    );
    // The type inference gives at the `# zy: at` call.
    check_hover(
        &at("p.a", "p.$0a"),
        expect![[r#"
        [a]
        The first.

        ---

        ```julia
        a::Float64
        ```
        field of `Pair2{Float64}`
    "#]],
    );
    check_hover(
        &at("b.pos +", "b.p$0os +"),
        expect![[r#"
            [pos]
            Where it is.

            ---

            ```julia
            pos::Any
            ```
            field of `Body`

            holds a `Float64` at `local_mass(2.0)`
        "#]],
    );
    // Go to definition: the field's declaration in that struct.
    check_definition(
        &at("b.mass * 2", "b.ma$0ss * 2"),
        expect![[r#"
        main.jl 57..61: mass
    "#]],
    );
    check_definition(
        &at("w.body.mass", "w.bo$0dy.mass"),
        expect![[r#"
        main.jl 119..123: body
    "#]],
    );
    check_definition(
        &at("xs[1].mass", "xs[1].ma$0ss"),
        expect![[r#"
        main.jl 57..61: mass
        main.jl 273..277: mass
    "#]],
    );
    // A value whose struct is not known: every field of the name.
    check_hover(
        &at("xs[1].mass", "xs[1].ma$0ss"),
        expect![[r#"
        [mass]
        `Body.mass`

        The mass, in kilograms.

        ---

        `Planet.mass`

        A planet's mass.
    "#]],
    );
}

#[test]
fn source_paths_are_those_of_the_file_holding_the_macro() {
    // An editor's document (an absolute path), and the file it includes: each its own.
    let f = fixture(
        "#- /work/proj/main.jl\ninclude(\"lib/part.jl\")\nwhere() = (@__FILE__, @__DIR__, part())\n#- /work/proj/lib/part.jl\npart() = (@__FILE__, @__DIR__)\n",
    );
    let eval = |call: &str| match f
        .host
        .analysis()
        .eval(f.first_file(), call, EvalLimits::default())
        .expect("not cancelled")
    {
        Ok(v) => v.display,
        Err(e) => e.to_string(),
    };
    assert_eq!(
        eval("where()"),
        r#"("/work/proj/main.jl", "/work/proj", ("/work/proj/lib/part.jl", "/work/proj/lib"))"#
    );
    // An expression given alone is in no file.
    expect![[r#"
        <call>:1:1: error: unsupported: macro @__FILE__ outside a file (an expression given alone, or a file whose path is not UTF-8)
    "#]]
    .assert_eq(&format!("{}\n", eval("@__FILE__")));
}

/// The definitions of the name at the cursor, each as `path:start..end: text`.
fn check_definition(text: &str, expect: Expect) {
    let f = fixture(text);
    let (file, offset) = f.cursor();
    let analysis = f.host.analysis();
    let mut out = String::new();
    for loc in analysis.definition(file, offset).expect("not cancelled") {
        let text = analysis.file_text(loc.file).expect("not cancelled");
        let _ = writeln!(
            out,
            "{}{} {}..{}: {}",
            loc.path.display(),
            if loc.is_prelude { " (prelude)" } else { "" },
            loc.start,
            loc.end,
            &text[loc.start as usize..loc.end as usize]
        );
    }
    expect.assert_eq(&out);
}

#[test]
fn definition_of_a_call_is_every_method_in_the_program_of_the_file() {
    check_definition(
        r#"
include("b.jl")
f(x) = hel$0per(x) + abs2(x)
#- b.jl
helper(x::Float64) = 2x
function helper(x::Int)
    x
end
#- other.jl
helper(x) = 3x
"#,
        expect![[r#"
            b.jl 0..6: helper
            b.jl 33..39: helper
        "#]],
    );
    check_definition(
        r#"
f(x) = abs$02(x)
"#,
        expect![[r#"
            <zy>/prelude/Base.jl (prelude) 419..423: abs2
            <zy>/prelude/Base.jl (prelude) 95190..95194: abs2
            <zy>/prelude/Base.jl (prelude) 462927..462931: abs2
        "#]],
    );
}

#[test]
fn definition_of_a_name_after_a_module_is_the_modules() {
    let workspace = r#"
module Plane
norm2(x, y) = sqrt(x^2 + y^2)
end
norm2(x) = x
f(x) = Plane.norm2(x, 0.0)
"#;
    check_definition(
        &workspace.replace("Plane.norm2(x", "Plane.nor$0m2(x"),
        expect![[r#"
            main.jl 14..19: norm2
        "#]],
    );
    check_definition(
        &workspace.replace("Plane.norm2(x", "Pla$0ne.norm2(x"),
        expect![[r#"
            main.jl 8..13: Plane
        "#]],
    );
}

#[test]
fn definition_and_hover_of_imported_renamed_and_qualified_names() {
    let workspace = r#"
module Outer
module Inner
"Thrice `x`."
triple(x) = 3x
end
"Twice `x`."
double(x) = 2x
end
using .Outer: double
import .Outer.Inner.triple as thrice
f(x) = double(x) + thrice(x) + Outer.Inner.triple(x)
"#;
    let at = |needle: &str, cursor: &str| workspace.replacen(needle, cursor, 1);
    check_definition(
        &at("double(x) +", "dou$0ble(x) +"),
        expect![[r#"
        main.jl 73..79: double
    "#]],
    );
    check_definition(
        &at("thrice(x)", "thr$0ice(x)"),
        expect![[r#"
        main.jl 41..47: triple
    "#]],
    );
    check_definition(
        &at("Inner.triple(x)", "Inner.tri$0ple(x)"),
        expect![[r#"
        main.jl 41..47: triple
    "#]],
    );
    check_definition(
        &at("Outer.Inner.triple(x)", "Outer.Inn$0er.triple(x)"),
        expect![[r#"
        main.jl 21..26: Inner
    "#]],
    );
    check_definition(
        &at("using .Outer: double", "using .Outer: dou$0ble"),
        expect![[r#"
        main.jl 73..79: double
    "#]],
    );
    check_definition(
        &at("as thrice", "as thr$0ice"),
        expect![[r#"
        main.jl 41..47: triple
    "#]],
    );
    check_hover(
        &at("thrice(x)", "thr$0ice(x)"),
        expect![[r#"
        [thrice]
        Thrice `x`.

        ---

        `thrice` (`Outer.Inner.triple`) is differentiated by its derived adjoint (zy transforms its body)
    "#]],
    );
    check_hover(
        &at("Inner.triple(x)", "Inner.tri$0ple(x)"),
        expect![[r#"
        [triple]
        Thrice `x`.

        ---

        `triple` (`Outer.Inner.triple`) is differentiated by its derived adjoint (zy transforms its body)
    "#]],
    );
    check_hover(
        &at("double(x) +", "dou$0ble(x) +"),
        expect![[r#"
        [double]
        Twice `x`.

        ---

        `double` (`Outer.double`) is differentiated by its derived adjoint (zy transforms its body)
    "#]],
    );
}

/// The completions at the cursor, one per line as `label (kind)`, then `: detail` if any.
fn check_completions(text: &str, expect: Expect) {
    let f = fixture(text);
    let (file, offset) = f.cursor();
    let mut out = String::new();
    for c in f
        .host
        .analysis()
        .completions(file, offset)
        .expect("not cancelled")
    {
        let detail = c.detail.map(|d| format!(": {d}")).unwrap_or_default();
        let _ = writeln!(out, "{} ({:?}){detail}", c.label, c.kind);
    }
    expect.assert_eq(&out);
}

#[test]
fn completion_after_a_dot_offers_a_modules_names_or_a_structs_fields() {
    let workspace = r#"
module Outer
module Inner
triple(x) = 3x
end
"Twice `x`."
double(x) = 2x
const RATE = 0.5
struct Cell
    v::Float64
end
Base.show(io::IO, c::Cell) = print(io, c.v)
end
struct Body
    mass::Float64
    pos
end
f(b::Body) = Outer.double(b.mass)
"#;
    let at = |needle: &str, cursor: &str| workspace.replacen(needle, cursor, 1);
    check_completions(
        &at("Outer.double(", "Outer.$0double("),
        expect![[r#"
        Cell (Struct)
        Inner (Module)
        RATE (Constant)
        double (Function)
    "#]],
    );
    check_completions(
        &at("Outer.double(", "Outer.dou$0ble("),
        expect![[r#"
        Cell (Struct)
        Inner (Module)
        RATE (Constant)
        double (Function)
    "#]],
    );
    check_completions(
        &at("Outer.double(", "Outer.Inner.$0double("),
        expect![[r#"
        triple (Function)
    "#]],
    );
    check_completions(
        &at("b.mass)", "b.$0mass)"),
        expect![[r#"
        mass (Field): Float64
        pos (Field): Any
    "#]],
    );
    // Not after a dot, or after a value of unknown struct: nothing.
    check_completions(&at("f(b::Body)", "f$0(b::Body)"), expect![[r#""#]]);
    check_completions(&at("(b.mass)", "(x.$0)"), expect![[r#""#]]);
}

#[test]
fn modules_scope_names_as_julia_does() {
    let workspace = r#"
module Geometry
export area
using ..Units: scale
square(x) = x * x
area(r) = 3.0 * square(r) * scale()
end
module Units
scale() = 2.0
end
using .Geometry
using LinearAlgebra: norm
f(r) = area(r) + Geometry.square(r) + norm([r, 0.0])
"#;
    // area = 6r², square = r², norm = |r|: f(1.5) = 13.5 + 2.25 + 1.5, f' = 12r + 2r + 1.
    check_grad(
        workspace,
        "f(1.5)",
        expect![[r#"
            value: 17.25
            gradient: (22.0,)
        "#]],
    );
    // An unexported name is not brought in by `using`.
    check_grad(
        workspace
            .replace("Geometry.square(r)", "square(r)")
            .as_str(),
        "f(1.5)",
        expect![[r#"
            main.jl:13:18: error: UndefVarError: `square` not defined
        "#]],
    );
}

#[test]
fn an_unknown_package_is_a_located_diagnostic_naming_it() {
    check_diagnostics(
        r#"
using Plots
import Optim: optimize
f(x) = x^2
"#,
        expect![[r#"
            2:1 warning [unknown-package]: package `Plots` is not available: zy knows Base, LinearAlgebra, Statistics, Random, SparseArrays, Printf, Dates, Test, ForwardDiff, ReverseDiff and Zygote (their APIs answered by zy's own differentiation), SpecialFunctions, LogExpFunctions, StatsFuns and Distributions, and the modules your files define (`using .Plots`); a function that uses a name only `Plots` defines is refused
            3:1 warning [unknown-package]: package `Optim` is not available: zy knows Base, LinearAlgebra, Statistics, Random, SparseArrays, Printf, Dates, Test, ForwardDiff, ReverseDiff and Zygote (their APIs answered by zy's own differentiation), SpecialFunctions, LogExpFunctions, StatsFuns and Distributions, and the modules your files define (`using .Optim`); a function that uses a name only `Optim` defines is refused
        "#]],
    );
}

#[test]
fn a_name_from_an_unknown_package_is_a_diagnostic_naming_the_package() {
    check_diagnostics(
        r#"
using Optim
# zy: at fit([1.0, 2.0])
fit(x0) = optimize(sum, x0, LBFGS())
# zy: at fit_qualified([1.0, 2.0])
fit_qualified(x0) = Optim.optimize(sum, x0, Optim.LBFGS())
"#,
        expect![[r#"
            2:1 warning [unknown-package]: package `Optim` is not available: zy knows Base, LinearAlgebra, Statistics, Random, SparseArrays, Printf, Dates, Test, ForwardDiff, ReverseDiff and Zygote (their APIs answered by zy's own differentiation), SpecialFunctions, LogExpFunctions, StatsFuns and Distributions, and the modules your files define (`using .Optim`); a function that uses a name only `Optim` defines is refused
            4:29 error [undefined-name]: UndefVarError: `LBFGS` not defined; it may come from the package `Optim`, which zy does not have
            6:21 error [undefined-name]: UndefVarError: `Optim` not defined: `Optim` is a package zy does not have
        "#]],
    );
}

#[test]
fn an_unknown_package_refuses_only_the_functions_that_use_its_names() {
    let file = r#"
using LinearAlgebra, Plots
f(x) = norm(x)
g(x) = plot(x)
"#;
    check_grad(
        file,
        "f([3.0, 4.0])",
        expect![[r#"
        value: 5.0
        gradient: ([0.6000000000000001, 0.8],)
    "#]],
    );
    check_grad(
        file,
        "g([3.0, 4.0])",
        expect![[r#"
        main.jl:4:8: error: UndefVarError: `plot` not defined; it may come from the package `Plots`, which zy does not have
    "#]],
    );
}

#[test]
fn script_code_is_skipped_with_a_note_and_only_what_reads_it_is_refused() {
    let script = r#"
x0 = [1.0, 2.0]
println("starting")
g(x) = sum(x .^ 2)
h(x) = g(x) + sum(x0)
"#;
    check_diagnostics(
        script,
        expect![[r#"
        3:1 note [skipped-statement]: zy does not run a call of `println` at top level: only definitions are loaded (it changes no top-level binding)
    "#]],
    );
    check_grad(
        script,
        "g([1.0, 2.0])",
        expect![[r#"
            value: 5.0
            gradient: ([2.0, 4.0],)
        "#]],
    );
}

#[test]
fn a_skipped_statement_changes_what_it_assigns_or_mutates_not_what_it_reads() {
    let script = r#"
η = 0.01
w0 = zeros(2)
history = [0.0]
loss(w) = sum(abs2, w .- 1.0)
for i in 1:3
    global w0 -= η * gradient(loss, w0)[1]
end
push!(history, 1.0)
step(w) = w - η * 2.0 * (w - 1.0)
last_loss(w) = w * history[end]
"#;
    // The loop reads `η` but assigns only `w0`.
    check_grad(
        script,
        "step(3.0)",
        expect![[r#"
        value: 2.96
        gradient: (0.98,)
    "#]],
    );
    // A binding the loop assigns has no known value, said at the call that passes it ...
    check_grad(
        script,
        "loss(w0)",
        expect![[r#"
        <call>:1:6: error: ErrorException: `w0` is changed by top-level code that zy does not run (main.jl:6:1): its value here is unknown
    "#]],
    );
    // ... and a mutable value passed to a mutating call, at the read.
    check_grad(
        script,
        "last_loss(2.0)",
        expect![[r#"
            main.jl:11:20: error: ErrorException: `history` is changed by top-level code that zy does not run (main.jl:9:1): its value here is unknown
        "#]],
    );
}

#[test]
fn a_run_time_splat_error_is_located_at_the_users_call() {
    // The call of each length is synthesised code, with no source: its errors are shown at the
    // user's splatting call, on both engines.
    let file = r#"
three(a, b, c) = a * b + c
short(a, v) = three(a, v...)
total(xs...) = sum(xs)
all_of(v) = total(v...)
"#;
    check_grad(
        file,
        "short(1.0, [2.0])",
        expect![[r#"
        main.jl:3:15: error: MethodError: no method matching three(...) taking the 1 elements of the vector splatted
    "#]],
    );
    check_grad(
        file,
        "all_of(ones(9))",
        expect![[r#"
        main.jl:5:13: error: ErrorException: unsupported: splatting a vector of 9 elements with `...` into `total` beside other arguments or into varargs (zy passes up to 8 elements); pass a tuple or index it
    "#]],
    );
}

#[test]
fn a_skipped_call_of_the_programs_function_changes_only_what_its_body_writes_into() {
    // `train!` writes into its first parameter only (the analysis of its body): the call
    // changes `W`, not `X`, and `@show loss(W, X)` changes nothing. The notes say so.
    let script = r#"
W = [1.0, 2.0]
X = [1.0 0.0; 0.0 2.0]
function train!(W, X)
    W .-= 0.1 .* (X * W)
    return W
end
loss(W, X) = sum(abs2, X * W)
train!(W, X)
@show loss(W, X)
fit(v) = loss(v, X)
"#;
    check_diagnostics(
        script,
        expect![[r#"
        9:1 note [skipped-statement]: zy does not run a call of `train!` at top level: only definitions are loaded (it may change `W`, so a function that reads it is refused)
        10:1 note [skipped-statement]: zy does not run a macro call `@show` at top level: only definitions are loaded (it changes no top-level binding)
    "#]],
    );
    check_grad(
        script,
        "fit([1.0, 1.0])",
        expect![[r#"
        value: 5.0
        gradient: ([2.0, 8.0],)
    "#]],
    );
    check_grad(
        script,
        "loss(W, X)",
        expect![[r#"
        <call>:1:6: error: ErrorException: `W` is changed by top-level code that zy does not run (main.jl:9:1): its value here is unknown
    "#]],
    );
}

#[test]
fn a_skipped_statement_that_only_the_library_reads_leaves_arrays_alone() {
    // Julia's convention: the library's functions not named with `!` leave their arguments
    // alone (`plot`, `println`, `@show norm(y)`, keyword arguments included); the program's own
    // functions and `!` functions may change them, and so may a write through a binding that
    // shares the object (`Y = X` then `Y[1] = ...`).
    let script = r#"
X = [1.0 2.0; 3.0 4.0]
y = X * [1.0, 2.0]
Y = X
W = [1.0, 1.0]
zap(A) = (A .= 0.0; nothing)
fit(b) = sum(abs2, X * b - y)
wsum() = sum(W)
plot(X[:, 1], y, label = "data")
println("norm: ", norm(y))
Y[1] = 2.0
zap(W)
"#;
    check_grad(
        script,
        "fit([1.0, 1.0])",
        expect![[r#"
            main.jl:7:20: error: ErrorException: `X` is changed by top-level code that zy does not run (main.jl:11:1): its value here is unknown
        "#]],
    );
    let script = script.replace("Y[1] = 2.0\n", "");
    check_grad(
        &script,
        "fit([1.0, 1.0])",
        expect![[r#"
            value: 20.0
            gradient: ([-28.0, -40.0],)
        "#]],
    );
    // Random's draws advance the generator passed to them (no `!` in their names).
    let drawn = "using Random\nrng = Xoshiro(1)\nfirst_draw() = rand(rng)\nprintln(rand(rng))\n";
    check_grad(
        drawn,
        "first_draw()",
        expect![[r#"
            main.jl:3:21: error: ErrorException: `rng` is changed by top-level code that zy does not run (main.jl:4:1): its value here is unknown
        "#]],
    );
    check_grad(
        &script,
        "wsum()",
        expect![[r#"
        main.jl:8:14: error: ErrorException: `W` is changed by top-level code that zy does not run (main.jl:11:1): its value here is unknown
    "#]],
    );
}

#[test]
fn an_error_raised_in_the_library_is_located_at_the_users_call() {
    // `div` and `maximum` throw inside Julia's library (the prelude): the error is shown at the
    // user's call that led there, on both engines, and names where the library raised it.
    let file = r#"
halves(x, n) = x * div(n, 0)
largest(x) = maximum(x[2:1]) + x[1]
total(x) = halves(x, 3) + 1.0
"#;
    check_grad(
        file,
        "total(2.0)",
        expect![[r#"
        main.jl:2:20: error: DivideError: integer division error (raised in Julia's library, in `div`)
    "#]],
    );
    check_grad(
        file,
        "largest([2.0])",
        expect![[r#"
        main.jl:3:14: error: ArgumentError: reducing over an empty collection is not allowed; consider supplying `init` to the reducer
    "#]],
    );
}

#[test]
fn an_unsupported_construct_refuses_only_the_calls_that_reach_its_function() {
    let file = r#"
function guarded(x)
    q = x ⊃ 1.0
    sqrt(x)
end
cube(x) = x^3
uses_guarded(x) = guarded(x) + 1.0
"#;
    check_grad(
        file,
        "cube(2.0)",
        expect![[r#"
            value: 8.0
            gradient: (12.0,)
        "#]],
    );
    check_grad(
        file,
        "uses_guarded(2.0)",
        expect![[r#"
            main.jl:3:11: error: unsupported: operator `⊃`; write a function with a name and call it instead
        "#]],
    );
}

#[test]
fn grad_says_why_a_gradient_is_nothing_or_zero() {
    let file = r#"
affine(x, shift, scale) = 2.0 * x + shift
compound(p, rate) = p * (1.0 + round(rate * 100.0) / 100.0)^10
function pick(x, y)
    if x > 0.0
        return x^2
    else
        return y^2
    end
end
gate(x, t) = x > t ? x : 0.0
times0(x, y) = x * 0.0 + y
"#;
    check_grad(
        file,
        "affine(1.0, 2.0, 3.0)",
        expect![[r#"
            value: 4.0
            gradient: (2.0, 1.0, nothing)
            note: main.jl:2:18: `scale` is never read: the result cannot depend on it, so its gradient is `nothing`
        "#]],
    );
    check_grad(
        file,
        "compound(100.0, 0.049)",
        expect![[r#"
            value: 162.8894626777442
            gradient: (1.628894626777442, 0.0)
            note: main.jl:3:32: `rate` reaches the result only through `round`, which is piecewise constant: its gradient is zero
        "#]],
    );
    check_grad(
        file,
        "pick(1.0, 2.0)",
        expect![[r#"
            value: 1.0
            gradient: (2.0, 0.0)
            note: main.jl:5:8: a gradient reaches `y`, but not on this call: the statements that use it did not run, because this branch went the other way
        "#]],
    );
    check_grad(
        file,
        "gate(2.0, 1.0)",
        expect![[r#"
            value: 2.0
            gradient: (1.0, nothing)
            note: main.jl:11:14: `t` reaches the result only through `>`, which has no derivative: its gradient is `nothing`
        "#]],
    );
    check_grad(
        file,
        "times0(1.0, 2.0)",
        expect![[r#"
            value: 2.0
            gradient: (0.0, 1.0)
            note: main.jl:12:8: a gradient reaches `x`, but on this call the adjoints arriving at it were zero (a product with zero, or a derivative that is zero here)
        "#]],
    );
}

#[test]
fn a_user_function_named_like_a_lowering_helper_does_not_capture_loops() {
    // `for i in 1:3` counts its range with the builtin `Base.range_length`, not the file's own.
    check_grad(
        "range_length(x) = 2x\nfunction f(x)\n    s = 0.0\n    for i in 1:3\n        s += range_length(x)\n    end\n    s\nend\n",
        "f(1.0)",
        expect![[r#"
            value: 6.0
            gradient: (6.0,)
        "#]],
    );
}

#[test]
fn user_functions_named_kwcall_or_splatcall_do_not_capture_calls() {
    check_grad(
        "kwcall(x) = 0.0\nsplatcall(x) = 0.0\ng(x; a = 2.0) = a * x\nh(x, y) = x * y\nf(x) = g(x; a = 3.0) + h((x, 2.0)...)\n",
        "f(1.5)",
        expect![[r#"
            value: 7.5
            gradient: (5.0,)
        "#]],
    );
}

/// `∂ compute derivative`: which `# zy: at` calls the lens is for, and forward mode's value.
#[test]
fn derivative_of_a_scalar_function_by_forward_mode() {
    let mut host = AnalysisHost::new();
    let text = "f(x) = x^2 * sin(x)\ncurve(t) = [t, t^2]\ng(x, y) = x * y\n";
    let file = host.set_file_text(Path::new("t.jl"), text.to_string());
    let a = host.analysis();
    assert!(a.takes_one_float(file, "f(1.2)").unwrap());
    assert!(!a.takes_one_float(file, "g(1.0, 2.0)").unwrap());
    assert!(!a.takes_one_float(file, "f(1)").unwrap());
    // d/dx x² sin x = 2x sin x + x² cos x.
    let d = a
        .derivative(file, "f(1.2)", EvalLimits::default())
        .unwrap()
        .unwrap();
    let want = 2.4 * 1.2f64.sin() + 1.44 * 1.2f64.cos();
    assert!((d.derivative.json.as_f64().unwrap() - want).abs() < 1e-12);
    let d = a
        .derivative(file, "curve(3.0)", EvalLimits::default())
        .unwrap()
        .unwrap();
    assert_eq!(d.value.display, "[3.0, 9.0]");
    assert_eq!(d.derivative.display, "[1.0, 6.0]");
    let e = a
        .derivative(file, "g(1.0, 2.0)", EvalLimits::default())
        .unwrap()
        .unwrap_err();
    assert!(
        e.message.contains(
            "needs a function of one Float64 argument; this call passes (Float64, Float64)"
        ),
        "{e}"
    );
}

/// `x ← x + h x (1 - x)` 100 times under `# zy: checkpoint`: chunks of ⌈√100⌉ = 10.
#[test]
fn hover_on_a_checkpointed_loop_shows_the_tape_with_and_without() {
    check_hover(
        r#"
# zy: at ck_logistic(0.2, 0.5, 100)
function ck_logistic(x, h, n)
    # zy: checkpoint
    f$0or i in 1:n
        x = x + h * x * (1.0 - x)
    end
    return x
end
"#,
        expect![[r#"
            [for]
            `for` loop under `# zy: checkpoint`: per iteration, the plain tape keeps 8 bytes for the pullback; checkpointed, the forward pass keeps 56 bytes per chunk of iterations (its starting state) and the pullback rebuilds one chunk's tape at a time

            at `ck_logistic(0.2, 0.5, 100)`: 100 iterations in 10 chunks of at most 10: without checkpointing 800 bytes in total; with it 560 bytes kept, plus at most 80 bytes of one chunk's tape

            (an array counts as one pointer)
        "#]],
    );
}

/// 100 iterations with 4 snapshots: t = 5 (C(8, 4) = 70 < 100 ≤ C(9, 4) = 126), at most
/// 4 + 5 - 1 = 8 states, and Revolve's 5·100 - C(9, 5) = 374 iterations run without a tape.
#[test]
fn hover_on_a_revolve_loop_shows_its_schedule() {
    check_hover(
        r#"
# zy: at rv_logistic(0.2, 0.5, 100)
function rv_logistic(x, h, n)
    # zy: checkpoint snapshots=4
    f$0or i in 1:n
        x = x + h * x * (1.0 - x)
    end
    return x
end
"#,
        expect![[r#"
            [for]
            `for` loop under `# zy: checkpoint snapshots=4`: Revolve's binomial schedule. The gradient keeps at most 4 + t - 1 states of the loop and one iteration's tape at a time, and recomputes each iteration at most t times, t being the smallest with C(4 + t, t) ≥ the iterations

            at `rv_logistic(0.2, 0.5, 100)`: 100 iterations: t = 5; without checkpointing 100 iterations' tapes kept; with it at most 8 states, and 374 iterations recomputed in all (the fewest any schedule with 4 snapshots needs)
        "#]],
    );
}

/// 40 halves 6 times: chunks of 1, 2 and 3 iterations, and a fourth that finds the condition
/// false (a chunk ends without testing it).
#[test]
fn hover_on_a_checkpointed_while_loop_counts_its_growing_chunks() {
    check_hover(
        r#"
# zy: at ck_halve(40.0, 2.0)
function ck_halve(x, c)
    y = 0.0
    # zy: checkpoint
    wh$0ile x > 1.0
        x = x / 2
        y = y + c * x
    end
    return y + x
end
"#,
        expect![[r#"
            [while]
            `while` loop under `# zy: checkpoint`: per iteration, the plain tape keeps 8 bytes for the pullback; checkpointed, the forward pass keeps 40 bytes per chunk of iterations (its starting state) and the pullback rebuilds one chunk's tape at a time

            at `ck_halve(40.0, 2.0)`: 6 iterations in 4 chunks of at most 3: without checkpointing 48 bytes in total; with it 160 bytes kept, plus at most 24 bytes of one chunk's tape

            (an array counts as one pointer)
        "#]],
    );
}
