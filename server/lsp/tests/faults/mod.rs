//! The server under faults: malformed input, sessions that end in every way, clients that do
//! not answer, a large file, runaway gradients, cancellation, long values and internal errors.
//! Each test fails on a server without the behaviour it names.

use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::client::Client;

const SPIN: &str = "# zy: at spin(1.0)
function spin(x)
    s = x
    while s > 0.0
        s = s + 1.0
    end
    return s
end
";

fn error(id: Value, code: i64, message: &str) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "error": { "code": code, "message": message } })
}

fn framed(body: &str) -> Vec<u8> {
    format!("Content-Length: {}\r\n\r\n{body}", body.len()).into_bytes()
}

/// A client that declares nothing and answers nothing, with these initialization options.
fn bare_client(options: Value) -> Client {
    let mut c = Client::start();
    c.answers_server_requests = false;
    c.initialize(
        json!({ "processId": null, "capabilities": {}, "initializationOptions": options }),
    );
    c
}

/// A client (declaring progress, answering the server) with these initialization options.
fn client_with(options: Value) -> Client {
    let mut c = Client::start();
    c.initialize(json!({ "processId": null, "capabilities": Client::capabilities(), "initializationOptions": options }));
    c
}

fn gradient(c: &mut Client, uri: &str, function: &str) -> i64 {
    c.send_request(
        "workspace/executeCommand",
        json!({ "command": "zy.computeGradient", "arguments": [{ "uri": uri, "function": function }] }),
    )
}

#[test]
fn malformed_messages_get_json_rpc_errors_and_the_server_reads_on() {
    let mut c = Client::initialized();
    let cases: [(&[u8], Value); 5] = [
        (
            &framed("{}"),
            error(
                Value::Null,
                -32600,
                "Invalid request: `jsonrpc` must be \"2.0\"",
            ),
        ),
        (
            &framed("not json"),
            error(
                Value::Null,
                -32700,
                "Parse error: expected ident at line 1 column 2",
            ),
        ),
        (
            b"Content-Type: application/vscode-jsonrpc\r\n\r\n{\"jsonrpc\":\"2.0\"}",
            error(
                Value::Null,
                -32700,
                "Parse error: a header without `Content-Length`",
            ),
        ),
        (
            &framed("null"),
            error(
                Value::Null,
                -32600,
                "Invalid request: a message is a JSON object",
            ),
        ),
        (
            &framed(r#"{"jsonrpc":"2.0","id":9,"method":"textDocument/hover","params":"x"}"#),
            error(
                json!(9),
                -32600,
                "Invalid request: `params` must be an object or an array",
            ),
        ),
    ];
    for (bytes, expected) in cases {
        c.send_raw(bytes);
        let answer = c.response_to(expected["id"].clone(), Duration::from_secs(10));
        assert_eq!(answer, Some(expected));
        // The next request is served.
        let id = c.send_request(
            "zy/viewIr",
            json!({ "textDocument": { "uri": "file:///none.jl" }, "position": { "line": 0, "character": 0 }, "stage": "primal" }),
        );
        assert_eq!(
            c.response(id)["error"]["message"],
            "file:///none.jl is not open"
        );
    }
    assert_eq!(c.shutdown(), Some(0));
}

#[test]
fn unknown_dollar_requests_get_method_not_found_and_such_notifications_are_ignored() {
    let mut c = Client::initialized();
    c.notify("$/unknownNotification", json!({}));
    let id = c.send_request("$/unknownRequest", json!({}));
    assert_eq!(
        c.response(id),
        error(json!(id), -32601, "Method not found: `$/unknownRequest`")
    );
    // The notification got no answer: the next response is the shutdown's.
    assert_eq!(c.shutdown(), Some(0));
}

#[test]
fn a_message_over_the_size_limit_is_refused_and_skipped() {
    let mut c = Client::initialized();
    let size = zy_lsp::MAX_BODY_BYTES + 1;
    c.send_raw(format!("Content-Length: {size}\r\n\r\n").as_bytes());
    let chunk = vec![b' '; 1 << 20];
    let mut left = size as usize;
    while left > 0 {
        let n = left.min(chunk.len());
        c.send_raw(&chunk[..n]);
        left -= n;
    }
    let answer = c.response_to(Value::Null, Duration::from_secs(30));
    assert_eq!(
        answer,
        Some(error(
            Value::Null,
            -32600,
            "Invalid request: a message of 67108865 bytes (the limit is 64 MiB)"
        ))
    );
    assert_eq!(c.shutdown(), Some(0));
}

#[test]
fn exit_ends_the_server_while_its_input_stays_open() {
    // After `shutdown`: code 0.
    let mut c = Client::initialized();
    let id = c.send_request("shutdown", Value::Null);
    c.response(id);
    c.notify("exit", Value::Null);
    assert_eq!(c.exit_code_within(Duration::from_secs(10)), Some(0));
    // Without it: code 1.
    let mut c = Client::initialized();
    c.notify("exit", Value::Null);
    assert_eq!(c.exit_code_within(Duration::from_secs(10)), Some(1));
}

#[cfg(unix)]
#[test]
fn the_server_exits_when_the_client_process_is_gone() {
    let mut parent = std::process::Command::new("sleep")
        .arg("600")
        .spawn()
        .expect("start sleep");
    let mut c = Client::start();
    c.initialize(json!({ "processId": parent.id(), "capabilities": {} }));
    // Alive while its client is.
    assert_eq!(c.exit_code_within(Duration::from_secs(3)), None);
    parent.kill().expect("kill sleep");
    parent.wait().expect("reap sleep");
    assert_eq!(c.exit_code_within(Duration::from_secs(15)), Some(1));
}

#[test]
fn gradients_return_to_clients_that_do_not_handle_progress() {
    let pow = "# zy: at pow(2.0, 3)\npow(x, n) = x^n\n";
    // A client that declares no progress and answers no request: it is asked nothing.
    let mut c = bare_client(Value::Null);
    c.open("file:///w/p.jl", pow);
    let id = gradient(&mut c, "file:///w/p.jl", "pow");
    let r = c
        .response_to(json!(id), Duration::from_secs(30))
        .expect("a gradient");
    assert_eq!(r["result"]["gradient"], "(12.0, nothing)");
    let asked: Vec<&Value> = c
        .notifications
        .iter()
        .filter(|n| n.get("id").is_some())
        .collect();
    assert_eq!(asked, Vec::<&Value>::new());
    // A client that declares progress but never answers `window/workDoneProgress/create`.
    let mut c = Client::start();
    c.answers_server_requests = false;
    c.initialize(json!({ "processId": null, "capabilities": Client::capabilities() }));
    c.open("file:///w/p.jl", pow);
    let id = gradient(&mut c, "file:///w/p.jl", "pow");
    let r = c
        .response_to(json!(id), Duration::from_secs(30))
        .expect("a gradient");
    assert_eq!(r["result"]["gradient"], "(12.0, nothing)");
    assert_eq!(
        c.notifications
            .iter()
            .filter(|n| n["method"] == "window/workDoneProgress/create")
            .count(),
        1
    );
}

#[test]
fn a_file_above_the_size_limit_gets_syntax_errors_only_and_says_so_once() {
    // A warning-level lint (zero-gradient) and a syntax error, in a file over 1 KiB.
    let mut text = String::from("# zy: at f(1.0, 2.0)\nf(x, y) = x * 2.0\ng(x) = (x *\n");
    text.push_str(&"# padding\n".repeat(120));
    let uri = "file:///w/large.jl";
    let mut c = client_with(json!({ "analysis": { "maxFileKb": 1 } }));
    c.open(uri, &text);
    let d = c.wait_for("textDocument/publishDiagnostics", |p| p["version"] == 1);
    let summary: Vec<(Value, Value, Value)> = d["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["code"].clone(),
                d["severity"].clone(),
                d["range"]["start"].clone(),
            )
        })
        .collect();
    assert_eq!(
        summary,
        vec![
            (
                json!("large-file"),
                json!(3),
                json!({ "line": 0, "character": 0 })
            ),
            // The `(` never closed, and the end of input where `*` wants its operand.
            (
                json!("syntax-error"),
                json!(1),
                json!({ "line": 2, "character": 7 })
            ),
            (
                json!("syntax-error"),
                json!(1),
                json!({ "line": 123, "character": 0 })
            ),
        ]
    );
    let why = "it has 1251 bytes, more than the 1 KiB of `analysis.maxFileKb`";
    assert_eq!(
        d["diagnostics"][0]["message"],
        format!("zy only parses this file (syntax errors only): {why}")
    );
    let told = c.wait_for("window/showMessage", |_| true);
    let what = "syntax errors; no lints, type errors, hovers, lenses, inlay hints or gradients";
    assert_eq!(
        told,
        json!({ "type": 3, "message": format!("zy only parses {uri} ({what}): {why}") })
    );
    // Nothing that would analyse the file's functions.
    let start = json!({ "line": 0, "character": 0 });
    let hints = c.request(
        "textDocument/inlayHint",
        json!({ "textDocument": { "uri": uri }, "range": { "start": start, "end": { "line": 9, "character": 0 } } }),
    );
    assert_eq!(hints, json!([]));
    assert_eq!(
        c.request(
            "textDocument/codeLens",
            json!({ "textDocument": { "uri": uri } })
        ),
        json!([])
    );
    assert_eq!(
        c.request(
            "textDocument/hover",
            json!({ "textDocument": { "uri": uri }, "position": { "line": 1, "character": 0 } })
        ),
        Value::Null
    );
    let id = gradient(&mut c, uri, "f");
    assert_eq!(
        c.response(id)["error"],
        json!({ "code": -32602, "message": format!("zy only parses this file: {why}") })
    );
    // An edit: said once only.
    c.notify(
        "textDocument/didChange",
        json!({ "textDocument": { "uri": uri, "version": 2 }, "contentChanges": [{ "text": format!("{text}# more\n") }] }),
    );
    c.wait_for("textDocument/publishDiagnostics", |p| p["version"] == 2);
    // Raising the limit brings the lint back.
    c.notify(
        "workspace/didChangeConfiguration",
        json!({ "settings": { "zy": { "analysis": { "maxFileKb": 64 } } } }),
    );
    let d = c.wait_for("textDocument/publishDiagnostics", |p| {
        p["version"] == 2 && p["diagnostics"][0]["code"] != "large-file"
    });
    let codes: Vec<&Value> = d["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| &d["code"])
        .collect();
    assert_eq!(codes, [&json!("syntax-error"), &json!("syntax-error")]);
    assert_eq!(
        c.notifications
            .iter()
            .filter(|n| n["method"] == "window/showMessage")
            .count(),
        1
    );
}

#[test]
fn an_editor_gradient_stops_at_the_editors_time_limit() {
    let mut c = Client::initialized();
    c.open("file:///w/spin.jl", SPIN);
    let start = Instant::now();
    let id = gradient(&mut c, "file:///w/spin.jl", "spin");
    let r = c
        .response_to(json!(id), Duration::from_secs(30))
        .expect("an answer");
    assert!(
        start.elapsed() >= Duration::from_secs(2),
        "{:?}",
        start.elapsed()
    );
    assert_eq!(
        r["error"],
        json!({ "code": -32602, "message": "/w/spin.jl:4:5: error: InterruptException: time limit exceeded (the editor's limit is 2 s: setting `gradient.timeoutMs`)" })
    );
}

#[test]
fn an_editor_gradient_stops_at_the_editors_memory_limit() {
    // Each iteration keeps a vector of 8 MB on the tape for the pullback.
    let hog = "# zy: at hog(1.0)
function hog(x)
    s = 0.0
    for i in 1:200
        v = x .* ones(1000000)
        s = s + sum(v .* v)
    end
    return s
end
";
    let mut c = client_with(json!({ "gradient": { "memoryMb": 64, "timeoutMs": 60000 } }));
    c.open("file:///w/hog.jl", hog);
    let id = gradient(&mut c, "file:///w/hog.jl", "hog");
    let r = c
        .response_to(json!(id), Duration::from_secs(60))
        .expect("an answer");
    // Two watches enforce the setting, whichever sees 64 MiB first: the server's on its own
    // memory, and the run's on what the call allocated.
    assert_eq!(r["error"]["code"], json!(-32602));
    let message = r["error"]["message"].as_str().unwrap_or_default();
    assert!(
        [
            "zy.computeGradient stopped: the server's memory grew by more than 64 MiB while it ran (setting `gradient.memoryMb`)",
            "/w/hog.jl:4:5: error: OutOfMemoryError: what the call allocated (arrays, boxes, tape) passed the limit of 64.0 MiB (max_memory)",
        ]
        .contains(&message),
        "{message}"
    );
}

#[test]
fn a_cancelled_gradient_is_answered_and_stops_running() {
    let mut c = Client::start_logging("zy_lsp::dispatch=debug");
    c.initialize(
        json!({ "processId": null, "capabilities": {}, "initializationOptions": { "gradient": { "timeoutMs": 60000 } } }),
    );
    c.open("file:///w/spin.jl", SPIN);
    let id = gradient(&mut c, "file:///w/spin.jl", "spin");
    c.wait_for_log(&["start", "zy.computeGradient"], Duration::from_secs(30))
        .expect("the run started");
    std::thread::sleep(Duration::from_millis(300));
    let cancelled = Instant::now();
    c.notify("$/cancelRequest", json!({ "id": id }));
    let r = c
        .response_to(json!(id), Duration::from_secs(30))
        .expect("an answer");
    assert_eq!(
        r,
        json!({ "jsonrpc": "2.0", "id": id, "error": { "code": -32800, "message": "Canceled" } })
    );
    // The run itself ended, long before its 60 s limit.
    c.wait_for_log(&["done", "zy.computeGradient"], Duration::from_secs(3))
        .expect("the run stopped");
    assert!(
        cancelled.elapsed() < Duration::from_secs(3),
        "{:?}",
        cancelled.elapsed()
    );
}

#[test]
fn a_long_gradient_shows_a_short_lens_title_and_the_command_returns_it_whole() {
    let text = "# zy: at f(ones(100))\nf(v) = sum(v .* v)\n";
    let uri = "file:///w/long.jl";
    let mut c = Client::initialized();
    c.open(uri, text);
    let id = gradient(&mut c, uri, "f");
    let r = c.response(id)["result"].clone();
    let full = format!("([{}],)", vec!["2.0"; 100].join(", "));
    assert_eq!(
        (&r["call"], &r["value"], &r["gradient"]),
        (&json!("f(ones(100))"), &json!("100.0"), &json!(full))
    );
    let lenses = c.request(
        "textDocument/codeLens",
        json!({ "textDocument": { "uri": uri } }),
    );
    let title = lenses[0]["command"]["title"].as_str().unwrap();
    let micros = r["micros"].as_u64().unwrap();
    assert_eq!(
        title,
        format!("∇ f(ones(100)) = 100.0 · ∇ = (100-element Vector{{Float64}},) ({micros} µs)")
    );
    // The adjoints come from a traced run that follows the gradient's reply: wait for them.
    let mut hints = Value::Null;
    for _ in 0..400 {
        hints = c.request("textDocument/inlayHint", json!({ "textDocument": { "uri": uri }, "range": { "start": { "line": 0, "character": 0 }, "end": { "line": 9, "character": 0 } } }));
        let labels = hints
            .as_array()
            .map(|h| h.iter().map(|h| h["label"].to_string()));
        if labels.is_some_and(|mut l| l.any(|l| l.contains('\u{304}'))) {
            break;
        }
        std::thread::sleep(Duration::from_millis(25));
    }
    // The gradient after the signature (before the adjoints of the variables).
    let hints = hints.as_array().unwrap();
    let last = hints
        .iter()
        .find(|h| h["label"].as_str().is_some_and(|l| l.starts_with("∇ =")))
        .unwrap();
    assert_eq!(last["label"], "∇ = (100-element Vector{Float64},)");
    let adjoint = hints.last().unwrap();
    assert_eq!(adjoint["label"], "v̄ = 100-element Vector{Float64}");
    assert_eq!(
        last["tooltip"],
        format!("f(ones(100)) = 100.0 · ∇ = {full} ({micros} µs)")
    );
}

#[cfg(debug_assertions)]
#[test]
fn a_panic_in_the_diagnostics_pass_is_reported_and_the_next_edit_is_analysed() {
    let uri = "file:///w/p.jl";
    let mut c = Client::start_with(&[("ZY_LSP_TEST_PANIC", "PANIC HERE")]);
    c.initialize(json!({ "processId": null, "capabilities": {} }));
    c.open(uri, "# PANIC HERE\nf(x) = x\n");
    let d = c.wait_for("textDocument/publishDiagnostics", |p| p["version"] == 1);
    assert_eq!(
        d["diagnostics"],
        json!([{
            "range": { "start": { "line": 0, "character": 0 }, "end": { "line": 0, "character": 0 } },
            "severity": 1,
            "code": "internal-error",
            "source": "zy",
            "message": "zy's analysis failed internally (test panic on `PANIC HERE`); it runs again at the next edit"
        }])
    );
    let told = c.wait_for("window/showMessage", |_| true);
    assert_eq!(
        told["message"],
        "zy: the analysis of file:///w/p.jl failed internally (test panic on `PANIC HERE`); it runs again at the next edit"
    );
    c.notify(
        "textDocument/didChange",
        json!({ "textDocument": { "uri": uri, "version": 2 }, "contentChanges": [{ "text": "g(x) = (x *\n" }] }),
    );
    let d = c.wait_for("textDocument/publishDiagnostics", |p| p["version"] == 2);
    let codes: Vec<&Value> = d["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| &d["code"])
        .collect();
    assert_eq!(codes, [&json!("syntax-error"), &json!("syntax-error")]);
    assert_eq!(c.shutdown(), Some(0));
}

/// A positional request at `line:character` of `uri`.
fn at(c: &mut Client, method: &str, uri: &str, line: u32, character: u32) -> Value {
    c.request(
        method,
        json!({ "textDocument": { "uri": uri }, "position": { "line": line, "character": character } }),
    )
}

#[test]
fn requests_anywhere_in_empty_broken_and_half_typed_files_are_answered() {
    let mut c = Client::initialized();
    let whole =
        json!({ "start": { "line": 0, "character": 0 }, "end": { "line": 99, "character": 0 } });
    let empty = "file:///w/empty.jl";
    c.open(empty, "");
    for method in ["textDocument/hover", "textDocument/definition"] {
        for (line, character) in [(0, 0), (0, 99), (99, 0), (u32::MAX, u32::MAX)] {
            assert_eq!(at(&mut c, method, empty, line, character), Value::Null);
        }
    }
    let doc = json!({ "uri": empty });
    let lenses = c.request("textDocument/codeLens", json!({ "textDocument": doc }));
    assert_eq!(lenses, json!([]));
    let hints = c.request(
        "textDocument/inlayHint",
        json!({ "textDocument": doc, "range": whole }),
    );
    assert_eq!(hints, json!([]));

    // An unfinished function: what can be read of it still answers.
    let broken = "file:///w/broken.jl";
    c.open(
        broken,
        "struct P\n    \"the x\"\n    x::Float64\nend\nfunction g(p::P)\n    q = p.x + \n    if (\n",
    );
    let field = at(&mut c, "textDocument/hover", broken, 5, 10);
    assert_eq!(
        field["contents"]["value"],
        "the x\n\n---\n\n```julia\nx::Float64\n```\nfield of `P`"
    );
    assert_eq!(at(&mut c, "textDocument/hover", broken, 5, 16), Value::Null);
    assert_eq!(at(&mut c, "textDocument/hover", broken, 99, 0), Value::Null);
    assert_eq!(
        at(&mut c, "textDocument/definition", broken, 0, 99),
        json!([{ "uri": broken, "range": { "start": { "line": 0, "character": 7 }, "end": { "line": 0, "character": 8 } } }])
    );

    // Typing `p.x` a character at a time, hovering at the cursor after each.
    for (version, typed) in ["p", ".", "x"].into_iter().enumerate() {
        let character = 14 + version as u32;
        c.notify(
            "textDocument/didChange",
            json!({
                "textDocument": { "uri": broken, "version": version + 2 },
                "contentChanges": [{ "range": {
                    "start": { "line": 5, "character": character },
                    "end": { "line": 5, "character": character }
                }, "text": typed }]
            }),
        );
        let h = at(&mut c, "textDocument/hover", broken, 5, character + 1);
        let expected = match typed {
            "x" => json!("the x\n\n---\n\n```julia\nx::Float64\n```\nfield of `P`"),
            _ => Value::Null,
        };
        assert_eq!(h["contents"]["value"], expected, "after typing {typed}");
    }
    assert!(c.alive());
    assert_eq!(c.shutdown(), Some(0));
}
