//! End-to-end tests of `zy-lsp` over stdio with exact expected responses.

use crate::client::Client;
use serde_json::{json, Value};

const POW: &str = "# zy: at pow(2.0, 3)
function pow(x, n)
    r = 1
    while n > 0
        r *= x
        n -= 1
    end
    return r
end
";

fn uri() -> String {
    "file:///work/pow.jl".to_string()
}

fn hover(c: &mut Client, line: u32, character: u32) -> Value {
    c.request(
        "textDocument/hover",
        json!({ "textDocument": { "uri": uri() }, "position": { "line": line, "character": character } }),
    )
}

#[test]
fn hover_on_function_shows_specialisation_and_gradient_type() {
    let mut c = Client::initialized();
    c.open(&uri(), POW);
    let h = hover(&mut c, 1, 10);
    assert_eq!(
        h["contents"]["value"],
        "```julia\npow(x::Float64, n::Int64) -> Union{Float64, Int64}\n```\nspecialised at `pow(2.0, 3)`\n\ngradient: `Tuple{Float64, Nothing}`\n\n`n`: not differentiable (`nothing`)"
    );
    assert_eq!(
        h["range"],
        json!({ "start": { "line": 1, "character": 9 }, "end": { "line": 1, "character": 12 } })
    );
    assert_eq!(c.shutdown(), Some(0));
}

#[test]
fn hover_on_a_call_shows_the_docstring_then_what_zy_knows() {
    let mut c = Client::initialized();
    c.open(
        &uri(),
        "\"\"\"\n    double(x)\n\nTwice `x`.\n\n# Examples\n```jldoctest\njulia> double(2)\n4\n```\n\"\"\"\ndouble(x) = 2x\n# zy: at f(1.0)\nf(x) = double(x) + 1\n",
    );
    let h = hover(&mut c, 13, 8);
    assert_eq!(
        h["contents"],
        json!({
            "kind": "markdown",
            "value": "```julia\ndouble(x)\n```\n\nTwice `x`.\n\n# Examples\n```julia\njulia> double(2)\n4\n```\n\n---\n\n`double` is differentiated by its derived adjoint (zy transforms its body)"
        })
    );
    assert_eq!(h["range"], range(13, 7, 13, 13));
    assert_eq!(c.shutdown(), Some(0));
}

#[test]
fn hover_on_a_field_names_its_struct_its_type_and_its_docstring() {
    let mut c = Client::initialized();
    c.open(
        &uri(),
        "struct Body\n    \"The mass.\"\n    mass::Float64\nend\nkinetic(b::Body, v) = b.mass * v^2 / 2\n",
    );
    let h = hover(&mut c, 4, 25);
    assert_eq!(
        h["contents"]["value"],
        "The mass.\n\n---\n\n```julia\nmass::Float64\n```\nfield of `Body`"
    );
    assert_eq!(h["range"], range(4, 24, 4, 28));
    assert_eq!(c.shutdown(), Some(0));
}

fn pos(line: u32, character: u32) -> Value {
    json!({ "line": line, "character": character })
}

fn range(l0: u32, c0: u32, l1: u32, c1: u32) -> Value {
    json!({ "start": pos(l0, c0), "end": pos(l1, c1) })
}

#[test]
fn code_lenses_name_the_gradient_and_ir_commands() {
    let mut c = Client::initialized();
    c.open(&uri(), POW);
    let lenses = c.request(
        "textDocument/codeLens",
        json!({ "textDocument": { "uri": uri() } }),
    );
    let show = json!([{ "uri": uri(), "position": pos(1, 9) }]);
    assert_eq!(
        lenses,
        json!([
            { "range": range(1, 9, 1, 12), "command": { "title": "∇ compute gradient", "command": "zy.computeGradient", "arguments": [{ "uri": uri(), "function": "pow" }] } },
            { "range": range(1, 9, 1, 12), "command": { "title": "show adjoint IR", "command": "zy.showAdjointIr", "arguments": show } },
            { "range": range(1, 9, 1, 12), "command": { "title": "show SSA", "command": "zy.showSsa", "arguments": show } },
        ])
    );
}

const TESTS: &str = "using Test
sq(x) = x^2
@testset \"squares\" begin
    @test sq(2.0) == 4.0
    @test gradient(x -> sq(x), 3.0)[1] == 6.0
end
@testset \"n = $n\" for n in 1:3
    @test sq(n) < 5
end
@testset \"beyond zy\" begin
    @test big(1) == 1
end
";

#[test]
fn a_testsets_lens_runs_its_tests_when_resolved() {
    let mut c = Client::initialized();
    c.open(&uri(), TESTS);
    let lenses = c.request(
        "textDocument/codeLens",
        json!({ "textDocument": { "uri": uri() } }),
    );
    // Listing the lenses runs nothing: each testset's lens comes unresolved.
    let testsets: Vec<Value> = lenses
        .as_array()
        .unwrap()
        .iter()
        .filter(|l| l.get("data").is_some())
        .cloned()
        .collect();
    assert_eq!(
        testsets,
        vec![
            json!({ "range": range(2, 0, 2, 0), "data": { "uri": uri(), "testset": 23 } }),
            json!({ "range": range(6, 0, 6, 0), "data": { "uri": uri(), "testset": 123 } }),
            json!({ "range": range(9, 0, 9, 0), "data": { "uri": uri(), "testset": 178 } }),
        ]
    );
    let titles: Vec<Value> = testsets
        .into_iter()
        .map(|l| c.request("codeLens/resolve", l)["command"].clone())
        .collect();
    // 2² = 4 and d/dx x² = 6 at 3 pass; n² < 5 fails at n = 3 only.
    assert_eq!(
        titles,
        vec![
            json!({ "title": "✓ 2 passed", "command": "" }),
            json!({ "title": "✗ 1 failed, 2 passed", "command": "" }),
            json!({ "title": "tests not run: zy cannot run this test: unsupported: big: zy computes with Float64, Float32, Int64, Bool and the integers Int8 to Int128 and UInt8 to UInt128 only; write `Float64(x)`, `Int(x)` or `Int128(x)` instead", "command": "" }),
        ]
    );
    // A lens with no testset (another server's, or an old one) comes back as it was.
    let plain = json!({ "range": range(0, 0, 0, 0) });
    assert_eq!(c.request("codeLens/resolve", plain.clone()), plain);
    assert_eq!(c.shutdown(), Some(0));
}

const SLOPE: &str = "# zy: at slope(1.2)
slope(x) = x^2 * sin(x)
";

#[test]
fn a_function_of_one_float_gets_the_derivative_lens_and_its_command_runs_forward_mode() {
    let mut c = Client::initialized();
    c.open(&uri(), SLOPE);
    let lenses = c.request(
        "textDocument/codeLens",
        json!({ "textDocument": { "uri": uri() } }),
    );
    let call = json!([{ "uri": uri(), "function": "slope" }]);
    assert_eq!(lenses[0]["command"]["command"], "zy.computeGradient");
    assert_eq!(
        lenses[1],
        json!({ "range": range(1, 0, 1, 5), "command": { "title": "∂ compute derivative", "command": "zy.computeDerivative", "arguments": call } })
    );
    let r = c.request(
        "workspace/executeCommand",
        json!({ "command": "zy.computeDerivative", "arguments": call }),
    );
    // d/dx x² sin x = 2x sin x + x² cos x at 1.2.
    assert_eq!(r["call"], "slope(1.2)");
    assert_eq!(r["value"], "1.3421362837928057");
    assert_eq!(r["derivative"], "2.758688972767753");
    let lenses = c.request(
        "textDocument/codeLens",
        json!({ "textDocument": { "uri": uri() } }),
    );
    let title = lenses[1]["command"]["title"].as_str().unwrap();
    assert!(
        title.starts_with("∂ slope(1.2) = 1.3421362837928057 · ∂ = 2.758688972767753 ("),
        "{title}"
    );
    // `pow(2.0, 3)` takes two arguments: no derivative lens.
    c.notify(
        "textDocument/didChange",
        json!({ "textDocument": { "uri": uri(), "version": 2 }, "contentChanges": [{ "text": POW }] }),
    );
    let lenses = c.request(
        "textDocument/codeLens",
        json!({ "textDocument": { "uri": uri() } }),
    );
    assert_eq!(lenses.as_array().map(Vec::len), Some(3));
    assert_eq!(c.shutdown(), Some(0));
}

#[test]
fn inlay_hints_show_each_arguments_gradient_type() {
    let mut c = Client::initialized();
    c.open(&uri(), POW);
    let hints = c.request(
        "textDocument/inlayHint",
        json!({ "textDocument": { "uri": uri() }, "range": range(0, 0, 20, 0) }),
    );
    let labels: Vec<(Value, Value)> = hints
        .as_array()
        .unwrap()
        .iter()
        .map(|h| (h["position"].clone(), h["label"].clone()))
        .collect();
    assert_eq!(
        labels,
        vec![
            (pos(1, 14), json!("∇ Float64")),
            (pos(1, 17), json!("∇ Nothing"))
        ]
    );
}

#[test]
fn view_ir_returns_the_ssa_of_the_enclosing_function() {
    let mut c = Client::initialized();
    c.open(&uri(), POW);
    let r = c.request(
        "zy/viewIr",
        json!({ "textDocument": { "uri": uri() }, "position": pos(4, 8), "stage": "primal" }),
    );
    let text = r["text"].as_str().unwrap();
    assert!(text.starts_with("pow(%1, %2)   # x, n\n#1:\n"), "{text}");
    let err = c.send_request(
        "zy/viewIr",
        json!({ "textDocument": { "uri": uri() }, "position": pos(4, 8), "stage": "bogus" }),
    );
    let resp = c.response(err);
    assert_eq!(resp["error"]["message"], "unknown IR stage `bogus`");
    // The adjoint: the forward function, then the pullback.
    let adj = c.request(
        "zy/viewIr",
        json!({ "textDocument": { "uri": uri() }, "position": pos(4, 8), "stage": "adjoint" }),
    );
    let text = adj["text"].as_str().unwrap();
    let fwd = text
        .find("pow⁺(%1::Float64, %2::Int64)")
        .expect("forward header");
    let back = text.find("pow⁻(").expect("pullback header");
    assert!(fwd < back, "{text}");
    let dot = c.request(
        "zy/viewIr",
        json!({ "textDocument": { "uri": uri() }, "position": pos(4, 8), "stage": "dot" }),
    );
    assert!(dot["text"]
        .as_str()
        .unwrap()
        .starts_with("digraph \"pow\" {"));
    // Forward mode: the pushforward pairs the Float64 argument with its tangent.
    let pf = c.request(
        "zy/viewIr",
        json!({ "textDocument": { "uri": uri() }, "position": pos(4, 8), "stage": "pushforward" }),
    );
    let text = pf["text"].as_str().unwrap();
    assert!(
        text.starts_with("∂→pow(%1::Float64, %2::Float64, %3::Int64) :: Tuple{Union{"),
        "{text}"
    );
}

#[test]
fn diagnostics_follow_an_edit_that_breaks_and_repairs_the_code() {
    let mut c = Client::initialized();
    c.open(&uri(), POW);
    let clean = c.wait_for("textDocument/publishDiagnostics", |p| p["version"] == 1);
    assert_eq!(clean["diagnostics"], json!([]));
    // Line 4 `        r *= x` becomes `        r *= (x` (a half-typed edit).
    c.notify(
        "textDocument/didChange",
        json!({ "textDocument": { "uri": uri(), "version": 2 }, "contentChanges": [{ "range": range(4, 13, 4, 13), "text": "(" }] }),
    );
    let broken = c.wait_for("textDocument/publishDiagnostics", |p| p["version"] == 2);
    let d = &broken["diagnostics"][0];
    assert_eq!(d["code"], "syntax-error");
    assert_eq!(d["source"], "zy");
    // Repair it.
    c.notify(
        "textDocument/didChange",
        json!({ "textDocument": { "uri": uri(), "version": 3 }, "contentChanges": [{ "range": range(4, 13, 4, 14), "text": "" }] }),
    );
    let repaired = c.wait_for("textDocument/publishDiagnostics", |p| p["version"] == 3);
    assert_eq!(repaired["diagnostics"], json!([]));
    let h = hover(&mut c, 1, 10);
    assert!(h["contents"]["value"]
        .as_str()
        .unwrap()
        .contains("pow(x::Float64, n::Int64) -> Union{Float64, Int64}"));
}

#[test]
fn a_storm_of_hovers_during_edits_is_answered_and_the_server_survives() {
    let mut c = Client::initialized();
    c.open(&uri(), POW);
    let mut ids = Vec::new();
    let lines: Vec<&str> = POW.lines().collect();
    for (version, (l, line)) in lines.iter().enumerate().enumerate() {
        for ch in 0..=line.encode_utf16().count() as u32 {
            ids.push(c.send_request(
                "textDocument/hover",
                json!({ "textDocument": { "uri": uri() }, "position": pos(l as u32, ch) }),
            ));
        }
        // An edit that changes a constant back and forth while hovers are in flight.
        let text = if version % 2 == 0 { "2" } else { "1" };
        c.notify(
            "textDocument/didChange",
            json!({ "textDocument": { "uri": uri(), "version": version + 2 }, "contentChanges": [{ "range": range(2, 8, 2, 9), "text": text }] }),
        );
    }
    for id in ids {
        let resp = c.response(id);
        // Either an answer or a `ContentModified` error: never silence, never a crash.
        if let Some(e) = resp.get("error") {
            assert_eq!(e["code"], -32801, "{resp}");
        }
    }
    assert!(c.alive());
    let h = hover(&mut c, 1, 10);
    assert!(h["contents"]["value"]
        .as_str()
        .unwrap()
        .starts_with("```julia\npow("));
    assert_eq!(c.shutdown(), Some(0));
}

#[test]
fn utf16_positions_map_right_in_source_with_unicode_names() {
    let mut c = Client::initialized();
    let src = "# zy: at f(2.0)\nf(x̄) = x̄ * 3.0  # ∇ 🙂\n";
    c.open("file:///work/u.jl", src);
    // UTF-16 units on line 1: `f(x̄) = ` is 8 units (x̄ is x plus a combining macron), so the
    // second `x̄` spans units 8..10.
    let h = c.request(
        "textDocument/hover",
        json!({ "textDocument": { "uri": "file:///work/u.jl" }, "position": pos(1, 9) }),
    );
    assert_eq!(h["range"], range(1, 8, 1, 10));
    assert!(
        h["contents"]["value"]
            .as_str()
            .unwrap()
            .starts_with("```julia\nx̄::Float64\n```"),
        "{h}"
    );
}

#[test]
fn compute_gradient_runs_in_place_and_updates_the_lens() {
    let mut c = Client::initialized();
    c.open(&uri(), POW);
    let r = c.request(
        "workspace/executeCommand",
        json!({ "command": "zy.computeGradient", "arguments": [{ "uri": uri(), "function": "pow" }] }),
    );
    // d/dx x^3 at 2 is 3·2² = 12; n is an Int: no gradient.
    assert_eq!(r["call"], "pow(2.0, 3)");
    assert_eq!(r["value"], "8.0");
    assert_eq!(r["gradient"], "(12.0, nothing)");
    // Progress was reported around the run.
    let begin = c.wait_for("$/progress", |p| p["value"]["kind"] == "begin");
    assert_eq!(begin["value"]["title"], "∇ pow");
    c.wait_for("$/progress", |p| p["value"]["kind"] == "end");
    let lenses = c.request(
        "textDocument/codeLens",
        json!({ "textDocument": { "uri": uri() } }),
    );
    let title = lenses[0]["command"]["title"].as_str().unwrap();
    assert!(
        title.starts_with("∇ pow(2.0, 3) = 8.0 · ∇ = (12.0, nothing) ("),
        "{title}"
    );
    let hints = c.request(
        "textDocument/inlayHint",
        json!({ "textDocument": { "uri": uri() }, "range": range(0, 0, 20, 0) }),
    );
    assert_eq!(hints[2]["label"], "∇ = (12.0, nothing)");
    assert_eq!(hints[2]["position"], pos(1, 18));
    // A function without `# zy: at` gets an explanation, and the server lives on.
    c.notify(
        "textDocument/didChange",
        json!({ "textDocument": { "uri": uri(), "version": 2 }, "contentChanges": [{ "text": "g(x) = x^2\n" }] }),
    );
    let id = c.send_request(
        "workspace/executeCommand",
        json!({ "command": "zy.computeGradient", "arguments": [{ "uri": uri(), "function": "g" }] }),
    );
    let resp = c.response(id);
    assert_eq!(
        resp["error"]["message"],
        "add `# zy: at g(...)` above `g` to choose the call"
    );
    assert_eq!(c.shutdown(), Some(0));
}

#[test]
fn a_gradient_computed_by_forward_mode_says_so_in_the_result_and_the_lens() {
    let mut c = Client::initialized();
    // The gradient of a recursive function's derivative: reverse mode refuses it.
    let text = "rpow(x, n) = n == 0 ? 1.0 : x * rpow(x, n - 1)\n# zy: at slope(1.5)\nslope(x) = gradient(w -> rpow(w, 3), x)[1]\n";
    c.open(&uri(), text);
    let r = c.request(
        "workspace/executeCommand",
        json!({ "command": "zy.computeGradient", "arguments": [{ "uri": uri(), "function": "slope" }] }),
    );
    // slope = 3x², its derivative 6x: 6.75 and 9 at 1.5.
    assert_eq!(r["value"], "6.75");
    assert_eq!(r["gradient"], "(9.0,)");
    assert_eq!(r["mode"], "forward");
    let lenses = c.request(
        "textDocument/codeLens",
        json!({ "textDocument": { "uri": uri() } }),
    );
    let titles: Vec<&str> = lenses
        .as_array()
        .map(|ls| {
            ls.iter()
                .filter_map(|l| l["command"]["title"].as_str())
                .collect()
        })
        .unwrap_or_default();
    assert!(
        titles
            .iter()
            .any(|t| t.starts_with("∇ slope(1.5) = 6.75 · ∇ = (9.0,) (forward mode, ")),
        "{titles:?}"
    );
    assert_eq!(c.shutdown(), Some(0));
}

/// The inlay hints of the whole document once there are more than `n` of them (waiting up to
/// 10 s for what the server computes after a reply).
fn hints_once_more_than(c: &mut Client, n: usize) -> Value {
    let mut hints = Value::Null;
    for _ in 0..400 {
        hints = c.request(
            "textDocument/inlayHint",
            json!({ "textDocument": { "uri": uri() }, "range": range(0, 0, 20, 0) }),
        );
        if hints.as_array().map_or(0, Vec::len) > n {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(25));
    }
    hints
}

#[test]
fn compute_gradient_shows_each_variables_adjoint_as_a_hint_and_on_hover() {
    let mut c = Client::initialized();
    c.open(&uri(), POW);
    c.request(
        "workspace/executeCommand",
        json!({ "command": "zy.computeGradient", "arguments": [{ "uri": uri(), "function": "pow" }] }),
    );
    // The adjoints come from a traced run that follows the gradient's reply.
    let hints = hints_once_more_than(&mut c, 3);
    // After the types and the gradient: x̄ = 3x² = 12 after the parameter, and `r *= x`'s
    // adjoints over its three runs (x², x, 1).
    let adjoints: Vec<(Value, Value)> = hints
        .as_array()
        .unwrap()
        .iter()
        .skip(3)
        .map(|h| (h["position"].clone(), h["label"].clone()))
        .collect();
    assert_eq!(
        adjoints,
        vec![
            (pos(1, 14), json!("x̄ = 12.0")),
            (pos(4, 9), json!("r̄ = ×3: 4.0 → 1.0"))
        ]
    );
    let h = hover(&mut c, 4, 8);
    let value = h["contents"]["value"].as_str().unwrap();
    assert!(
        value.ends_with("\n\n---\n\nat `pow(2.0, 3)`, over 3 runs: `r` = 2.0 → 8.0\n\nadjoint: first 4.0, last 1.0, min 1.0, max 4.0\n\n`█▃▁`"),
        "{value}"
    );
    assert_eq!(c.shutdown(), Some(0));
}

#[test]
fn adjoint_hints_can_be_turned_off() {
    let mut c = Client::start();
    c.initialize(json!({ "processId": null, "rootUri": null, "capabilities": Client::capabilities(), "initializationOptions": { "gradient": { "adjointHints": false } } }));
    c.open(&uri(), POW);
    c.request(
        "workspace/executeCommand",
        json!({ "command": "zy.computeGradient", "arguments": [{ "uri": uri(), "function": "pow" }] }),
    );
    let hints = c.request(
        "textDocument/inlayHint",
        json!({ "textDocument": { "uri": uri() }, "range": range(0, 0, 20, 0) }),
    );
    let labels: Vec<&str> = hints
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|h| h["label"].as_str())
        .collect();
    assert_eq!(labels, ["∇ Float64", "∇ Nothing", "∇ = (12.0, nothing)"]);
    assert_eq!(c.shutdown(), Some(0));
}

#[test]
fn hover_on_a_loop_says_what_each_iteration_keeps() {
    let mut c = Client::initialized();
    c.open(&uri(), POW);
    // `while` on line 3: the adjoint pushes `r` (one Float64) per iteration.
    let h = hover(&mut c, 3, 6);
    assert_eq!(
        h["contents"]["value"],
        "`while` loop: per iteration of its loops, the forward pass keeps 8 bytes for the pullback (1 push: Tuple{Float64})"
    );
}

#[test]
fn a_deep_call_chain_is_analysed_without_overflowing_the_stack() {
    // f1 calls f2 calls ... f3000: inference and hover recurse along the chain.
    let mut src = String::from("# zy: at f1(1.0)\nf1(x) = f2(x) + 1.0\n");
    for i in 2..3000 {
        src.push_str(&format!("f{i}(x) = f{}(x) + 1.0\n", i + 1));
    }
    src.push_str("f3000(x) = x\n");
    let mut c = Client::initialized();
    c.open("file:///work/deep.jl", &src);
    let h = c.request(
        "textDocument/hover",
        json!({ "textDocument": { "uri": "file:///work/deep.jl" }, "position": pos(1, 0) }),
    );
    assert!(
        h["contents"]["value"]
            .as_str()
            .unwrap()
            .starts_with("```julia\nf1(x::Float64) -> Float64"),
        "{h}"
    );
    assert!(c.alive());
}

#[test]
fn lints_follow_the_workspace_zy_toml() {
    let src = "# zy: at f(1.0, 2.0)\nf(x, y) = x * 2.0\n";
    let codes = |c: &mut Client, uri: &str| {
        c.open(uri, src);
        let d = c.wait_for("textDocument/publishDiagnostics", |p| p["uri"] == uri);
        d["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d["code"].as_str().unwrap().to_string())
            .collect::<Vec<_>>()
    };
    // Without configuration: `y` gets no gradient, a warning.
    let mut c = Client::initialized();
    assert_eq!(codes(&mut c, "file:///nowhere/f.jl"), ["zero-gradient"]);
    // A workspace whose zy.toml allows that lint.
    let dir = std::env::temp_dir().join(format!("zy-lsp-config-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("zy.toml"), "[lints]\nzero-gradient = \"allow\"\n").unwrap();
    let root = format!("file://{}", dir.display());
    let mut c = Client::initialized_in(Some(&root));
    assert_eq!(codes(&mut c, &format!("{root}/f.jl")), Vec::<String>::new());
    // A broken zy.toml is reported and ignored.
    std::fs::write(dir.join("zy.toml"), "[lints]\nno-such-lint = \"allow\"\n").unwrap();
    let mut c = Client::initialized_in(Some(&root));
    let msg = c.wait_for("window/showMessage", |_| true);
    assert!(
        msg["message"]
            .as_str()
            .unwrap()
            .contains("unknown lint `no-such-lint`"),
        "{msg}"
    );
    assert_eq!(codes(&mut c, &format!("{root}/f.jl")), ["zero-gradient"]);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn go_to_definition_reaches_the_files_own_definitions_and_the_prelude() {
    let mut c = Client::initialized();
    let src = "helper(x) = 2x\nf(x) = helper(x) + abs2(x)\n";
    c.open(&uri(), src);
    let at = |c: &mut Client, character: u32| {
        c.request(
            "textDocument/definition",
            json!({ "textDocument": { "uri": uri() }, "position": pos(1, character) }),
        )
    };
    assert_eq!(
        at(&mut c, 9),
        json!([{ "uri": uri(), "range": range(0, 0, 0, 6) }])
    );
    let prelude = at(&mut c, 22);
    let target = &prelude[0];
    assert_eq!(target["uri"], "zy-prelude:/Base.jl");
    // The prelude's text, as the client shows it, holds the definition at that range.
    let text = c.request("zy/preludeText", json!({ "uri": "zy-prelude:/Base.jl" }));
    let text = text["text"].as_str().expect("text");
    let line = target["range"]["start"]["line"].as_u64().expect("line") as usize;
    let col = target["range"]["start"]["character"].as_u64().expect("col") as usize;
    assert!(
        text.lines()
            .nth(line)
            .is_some_and(|l| l[col..].starts_with("abs2(")),
        "{target}"
    );
    let err = c.send_request("zy/preludeText", json!({ "uri": "zy-prelude:/Nope.jl" }));
    assert_eq!(
        c.response(err)["error"]["message"],
        "zy-prelude:/Nope.jl is not a file of zy's prelude"
    );
    // A local variable has no definition to go to.
    assert_eq!(at(&mut c, 14), Value::Null);
    assert_eq!(c.shutdown(), Some(0));
}

#[test]
fn go_to_definition_and_hover_follow_imports_renamings_and_qualified_names() {
    let mut c = Client::initialized();
    let src = "module Outer\nmodule Inner\n\"Thrice `x`.\"\ntriple(x) = 3x\nend\ndouble(x) = 2x\nend\nusing .Outer: double\nimport .Outer.Inner.triple as thrice\nf(x) = double(x) + thrice(x) + Outer.Inner.triple(x)\n";
    c.open(&uri(), src);
    let definition = |c: &mut Client, character: u32| {
        c.request(
            "textDocument/definition",
            json!({ "textDocument": { "uri": uri() }, "position": pos(9, character) }),
        )
    };
    let triple = json!([{ "uri": uri(), "range": range(3, 0, 3, 6) }]);
    assert_eq!(
        definition(&mut c, 8),
        json!([{ "uri": uri(), "range": range(5, 0, 5, 6) }])
    );
    assert_eq!(definition(&mut c, 21), triple);
    assert_eq!(definition(&mut c, 45), triple);
    assert_eq!(
        definition(&mut c, 37),
        json!([{ "uri": uri(), "range": range(1, 7, 1, 12) }])
    );
    let h = hover(&mut c, 9, 21);
    assert_eq!(
        h["contents"]["value"],
        "Thrice `x`.\n\n---\n\n`thrice` (`Outer.Inner.triple`) is differentiated by its derived adjoint (zy transforms its body)"
    );
    assert_eq!(h["range"], range(9, 19, 9, 25));
    assert_eq!(c.shutdown(), Some(0));
}

#[test]
fn completion_after_a_dot_offers_a_modules_names_and_a_structs_fields() {
    let mut c = Client::initialized();
    let src = "module Outer\ndouble(x) = 2x\nconst RATE = 0.5\nend\nstruct Body\n    mass::Float64\nend\nf(b::Body) = Outer.double(b.mass)\n";
    c.open(&uri(), src);
    let complete = |c: &mut Client, character: u32| {
        c.request(
            "textDocument/completion",
            json!({ "textDocument": { "uri": uri() }, "position": pos(7, character), "context": { "triggerKind": 2, "triggerCharacter": "." } }),
        )
    };
    assert_eq!(
        complete(&mut c, 19),
        json!([
            { "label": "RATE", "kind": 21 },
            { "label": "double", "kind": 3 }
        ])
    );
    assert_eq!(
        complete(&mut c, 28),
        json!([{ "label": "mass", "kind": 5, "detail": "Float64" }])
    );
    assert_eq!(complete(&mut c, 3), Value::Null);
    assert_eq!(c.shutdown(), Some(0));
}

#[test]
fn an_rrule_mismatch_points_at_its_rule_as_related_information() {
    let mut c = Client::initialized();
    let uri = "file:///work/rrule_mismatch.jl";
    c.open(
        uri,
        include_str!("../../../fixtures/lints/rrule_mismatch.jl"),
    );
    let published = c.wait_for("textDocument/publishDiagnostics", |p| p["uri"] == uri);
    let d = published["diagnostics"]
        .as_array()
        .and_then(|ds| ds.iter().find(|d| d["code"] == "rrule-mismatch"))
        .expect("an rrule-mismatch diagnostic")
        .clone();
    assert_eq!(
        d["relatedInformation"],
        json!([{
            "location": { "uri": uri, "range": range(6, 9, 6, 14) },
            "message": "the in-source `rrule` for `cube` at cube(2.0): the gradient with respect to `x` is 8.0 by the rule but 12.0 by finite differences",
        }])
    );
    assert_eq!(c.shutdown(), Some(0));
}

#[test]
fn closing_an_unsaved_included_file_reads_it_again_from_disk() {
    // `a.jl` includes `b.jl`, open with unsaved text making `h` return a Bool; closed without
    // saving, `b.jl` is read again from disk (`h` returns a Float64), as Julia would load it.
    let dir = std::env::temp_dir().join(format!("zy-lsp-close-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let a = "include(\"b.jl\")\n# zy: at g(1.5)\ng(x) = h(x)\n";
    std::fs::write(dir.join("a.jl"), a).unwrap();
    std::fs::write(dir.join("b.jl"), "h(x) = 2x\n").unwrap();
    let ua = format!("file://{}", dir.join("a.jl").display());
    let ub = format!("file://{}", dir.join("b.jl").display());
    let mut c = Client::initialized();
    c.open(&ua, a);
    c.open(&ub, "h(x) = x > 0\n");
    let hover = |c: &mut Client| {
        let h = c.request(
            "textDocument/hover",
            json!({ "textDocument": { "uri": ua }, "position": pos(2, 0) }),
        );
        h["contents"]["value"].as_str().unwrap_or("").to_string()
    };
    let unsaved = hover(&mut c);
    assert!(
        unsaved.starts_with("```julia\ng(x::Float64) -> Bool\n"),
        "{unsaved}"
    );
    c.notify(
        "textDocument/didClose",
        json!({ "textDocument": { "uri": ub } }),
    );
    let on_disk = hover(&mut c);
    assert!(
        on_disk.starts_with("```julia\ng(x::Float64) -> Float64\n"),
        "{on_disk}"
    );
    assert_eq!(c.shutdown(), Some(0));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_package_file_opened_alone_is_analysed_in_its_module() {
    // `src/utils.jl` of a package, opened without `src/Pkg.jl` (which includes it and defines
    // the `const` it reads): its `# zy: at` call is typed among the module's names.
    let dir = std::env::temp_dir().join(format!("zy-lsp-package-{}/Pkg.jl", std::process::id()));
    std::fs::create_dir_all(dir.join("src")).unwrap();
    std::fs::write(
        dir.join("src/Pkg.jl"),
        "module Pkg\nconst SCALE = 2.0\ninclude(\"utils.jl\")\nend\n",
    )
    .unwrap();
    let utils = "# zy: at scaled(1.5)\nscaled(x) = SCALE * x^2\n";
    std::fs::write(dir.join("src/utils.jl"), utils).unwrap();
    let uri = format!("file://{}", dir.join("src/utils.jl").display());
    let mut c = Client::initialized();
    c.open(&uri, utils);
    let h = c.request(
        "textDocument/hover",
        json!({ "textDocument": { "uri": uri }, "position": pos(1, 2) }),
    );
    assert_eq!(
        h["contents"]["value"],
        "```julia\nscaled(x::Float64) -> Float64\n```\nspecialised at `scaled(1.5)`\n\ngradient: `Tuple{Float64}`"
    );
    assert_eq!(c.shutdown(), Some(0));
    let _ = std::fs::remove_dir_all(dir.parent().unwrap());
}
