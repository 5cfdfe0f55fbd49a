//! The language server, in process, through its own transport (`zy_lsp::run` on pipes of the
//! target's own): after a fixed `initialize`, the input decides a sequence of messages (raw
//! bytes, arbitrary bodies, requests and notifications with mutated params, documents opened,
//! edited with arbitrary ranges, closed, requests cancelled), then `shutdown` and `exit`.
//!
//! The server must survive all of it: every request it was sent in a well-formed frame gets a
//! response, everything it writes is a well-formed frame of JSON, and it ends with code 0 after
//! the final `shutdown` and `exit` (or with the code `exit` gives, if the input itself sent an
//! `exit`). Raw bytes never contain `content-length` (in any case) and end with a blank line,
//! so the framing recovers before the target's next message. Panics abort (libFuzzer's hook).
#![no_main]

use std::collections::BTreeSet;
use std::io::{Read, Write};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError, Sender};
use std::time::{Duration, Instant};

use libfuzzer_sys::arbitrary::{Result, Unstructured};
use libfuzzer_sys::fuzz_target;
use serde_json::{json, Value};

/// How long the server may take to answer everything and exit, per input.
const SESSION_TIME: Duration = Duration::from_secs(20);
/// The most messages one input sends.
const MAX_MESSAGES: usize = 24;

/// Texts documents start from and edits insert.
const SNIPPETS: &[&str] = &[
    "# zy: at pow(2.0, 3)\nfunction pow(x, n)\n    r = 1\n    while n > 0\n        r *= x\n        n -= 1\n    end\n    return r\nend\n",
    "# zy: at f(1.0, 2.0)\nf(x, y) = x * 2.0\n",
    "# zy: at g([1.0, 2.0])\ng(v) = sum(v .^ 2)\n",
    "struct P\n    a\nend\n# zy: at h(P(1.0))\nh(p) = p.a^2\n",
    "x̄ = 1.0 # ∇ 🙂\n",
    "# zy: at m([1.0, missing, 3.0])\nm(x) = sum(skipmissing(x)) + count(ismissing, x)\n",
    "f(x::Int, y) = 1\nf(x, y::Int) = 2\n# zy: at k(1)\nk(a) = f(a, a)\n",
    "# zy: at s(1.5f0)\ns(x) = x * UInt8(2) + Float32(0.5)\n",
    "# zy: at t(2.0)\nt(x) = (a = x, b = 1) === (a = 2.0, b = 1) ? x^2 : -x\n",
    "(", ")", "end\n", "\n", " ", "x", "2.0", "# zy: at ", "function ", "=", "ȳ",
];

const URIS: &[&str] = &["file:///w/a.jl", "file:///w/b.jl", "untitled:c"];

const METHODS: &[&str] = &[
    "textDocument/hover",
    "textDocument/codeLens",
    "textDocument/inlayHint",
    "zy/viewIr",
    "workspace/executeCommand",
    "$/unknown",
    "no/suchMethod",
    "initialize",
];

/// A pipe end the server reads: the target's messages, then the end of the input.
struct Input {
    messages: Receiver<Vec<u8>>,
    current: Vec<u8>,
    at: usize,
}

impl Read for Input {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        while self.at == self.current.len() {
            match self.messages.recv() {
                Ok(m) => (self.current, self.at) = (m, 0),
                Err(_) => return Ok(0),
            }
        }
        let n = buf.len().min(self.current.len() - self.at);
        buf[..n].copy_from_slice(&self.current[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

/// A pipe end the server writes to.
struct Output(Sender<Vec<u8>>);

impl Write for Output {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0
            .send(buf.to_vec())
            .map_err(|_| std::io::ErrorKind::BrokenPipe)?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// What the target sent, to check the answers against.
#[derive(Default)]
struct Sent {
    /// Ids of the requests sent in good frames with good envelopes.
    requests: BTreeSet<String>,
    next_id: u32,
    /// Whether a message of the input may have ended the session (it mentions `exit`).
    maybe_exit: bool,
    versions: u32,
}

fn frame(body: &[u8]) -> Vec<u8> {
    let mut out = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
    out.extend_from_slice(body);
    out
}

/// A position anywhere near a small document (often past its end).
fn position(u: &mut Unstructured) -> Result<Value> {
    Ok(json!({ "line": u.int_in_range(0..=12u32)?, "character": u.int_in_range(0..=40u32)? }))
}

fn text(u: &mut Unstructured) -> Result<String> {
    if u.ratio(1, 4)? {
        let bytes: &[u8] = u.arbitrary()?;
        return Ok(String::from_utf8_lossy(bytes).into_owned());
    }
    Ok(u.choose(SNIPPETS)?.to_string())
}

/// Params for `method`: right in shape, then perhaps mutated.
fn params(u: &mut Unstructured, method: &str) -> Result<Value> {
    let uri = *u.choose(URIS)?;
    let doc = json!({ "uri": uri });
    let mut p = match method {
        "textDocument/hover" => json!({ "textDocument": doc, "position": position(u)? }),
        "textDocument/codeLens" => json!({ "textDocument": doc }),
        "textDocument/inlayHint" => {
            json!({ "textDocument": doc, "range": { "start": position(u)?, "end": position(u)? } })
        }
        "zy/viewIr" => {
            let stage = *u.choose(&[
                "primal", "typed", "forward", "pullback", "adjoint", "clif", "dot", "bogus",
            ])?;
            json!({ "textDocument": doc, "position": position(u)?, "stage": stage })
        }
        "workspace/executeCommand" => {
            let function = *u.choose(&["pow", "f", "g", "h", "nope"])?;
            json!({ "command": "zy.computeGradient", "arguments": [{ "uri": uri, "function": function }] })
        }
        "initialize" => json!({ "processId": null, "capabilities": {} }),
        _ => json!({}),
    };
    if u.ratio(1, 5)? {
        mutate(u, &mut p)?;
    }
    Ok(p)
}

/// Remove a key, or replace a value with one of another type, somewhere in `v`.
fn mutate(u: &mut Unstructured, v: &mut Value) -> Result<()> {
    match v {
        Value::Object(map) if !map.is_empty() => {
            let keys: Vec<String> = map.keys().cloned().collect();
            let key = u.choose(&keys)?.clone();
            if u.ratio(1, 3)? {
                map.remove(&key);
            } else if let Some(inner) = map.get_mut(&key) {
                mutate(u, inner)?;
            }
        }
        _ => {
            *v = match u.int_in_range(0..=5u8)? {
                0 => Value::Null,
                1 => json!(-1),
                2 => json!(u32::MAX),
                3 => json!("x"),
                4 => json!([]),
                _ => json!({}),
            }
        }
    }
    Ok(())
}

/// One message of the input, as bytes to send.
fn message(u: &mut Unstructured, sent: &mut Sent) -> Result<Vec<u8>> {
    let request = |sent: &mut Sent, method: &str, params: Value| {
        sent.next_id += 1;
        let id = format!("r{}", sent.next_id);
        sent.requests.insert(id.clone());
        frame(
            json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params })
                .to_string()
                .as_bytes(),
        )
    };
    let notify = |method: &str, params: Value| {
        frame(
            json!({ "jsonrpc": "2.0", "method": method, "params": params })
                .to_string()
                .as_bytes(),
        )
    };
    Ok(match u.int_in_range(0..=9u8)? {
        0 => {
            // Raw bytes that cannot announce a length, then a blank line.
            let bytes: &[u8] = u.arbitrary()?;
            let mut raw = String::from_utf8_lossy(bytes)
                .to_ascii_lowercase()
                .replace("content-length", "content_length")
                .into_bytes();
            raw.extend_from_slice(b"\r\n\r\n");
            sent.maybe_exit |= contains(&raw, b"exit");
            raw
        }
        1 => {
            // An arbitrary body in a good frame.
            let body: &[u8] = u.arbitrary()?;
            sent.maybe_exit |= contains(body, b"exit");
            frame(body)
        }
        2 | 3 => {
            let method = *u.choose(METHODS)?;
            let p = params(u, method)?;
            request(sent, method, p)
        }
        4 => {
            sent.versions += 1;
            let doc = json!({ "uri": u.choose(URIS)?, "languageId": "julia", "version": sent.versions, "text": text(u)? });
            notify("textDocument/didOpen", json!({ "textDocument": doc }))
        }
        5 | 6 => {
            sent.versions += 1;
            let mut change = json!({ "text": text(u)? });
            if u.ratio(3, 4)? {
                change["range"] = json!({ "start": position(u)?, "end": position(u)? });
            }
            let doc = json!({ "uri": u.choose(URIS)?, "version": sent.versions });
            notify(
                "textDocument/didChange",
                json!({ "textDocument": doc, "contentChanges": [change] }),
            )
        }
        7 => notify(
            "textDocument/didClose",
            json!({ "textDocument": { "uri": u.choose(URIS)? } }),
        ),
        8 => notify(
            "$/cancelRequest",
            json!({ "id": format!("r{}", u.int_in_range(1..=sent.next_id.max(1))?) }),
        ),
        _ => {
            let settings = json!({ "zy": { "gradient": { "timeoutMs": u.int_in_range(1..=300u32)? }, "analysis": { "maxFileKb": u.int_in_range(0..=4u32)? } } });
            notify(
                "workspace/didChangeConfiguration",
                json!({ "settings": settings }),
            )
        }
    })
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

/// The frames in `bytes` (the server's output), each checked to be JSON.
fn frames(bytes: &[u8]) -> Vec<Value> {
    let mut out = Vec::new();
    let mut rest = bytes;
    while !rest.is_empty() {
        let head = rest
            .windows(4)
            .position(|w| w == b"\r\n\r\n")
            .expect("a complete header");
        let header = std::str::from_utf8(&rest[..head]).expect("an ASCII header");
        let length: usize = header
            .strip_prefix("Content-Length: ")
            .and_then(|n| n.parse().ok())
            .expect("a length");
        let body = &rest[head + 4..head + 4 + length];
        out.push(serde_json::from_slice(body).expect("a JSON body"));
        rest = &rest[head + 4 + length..];
    }
    out
}

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let (to_server, messages) = channel::<Vec<u8>>();
    let (output, from_server) = channel::<Vec<u8>>();
    let input = Input {
        messages,
        current: Vec::new(),
        at: 0,
    };
    let server = std::thread::spawn(move || zy_lsp::run(input, Output(output)));
    let mut sent = Sent::default();
    let options = json!({ "gradient": { "timeoutMs": 100, "memoryMb": 256 } });
    let init = json!({ "jsonrpc": "2.0", "id": "init", "method": "initialize", "params": { "processId": null, "capabilities": {}, "initializationOptions": options } });
    let _ = to_server.send(frame(init.to_string().as_bytes()));
    let _ = to_server.send(frame(
        br#"{"jsonrpc":"2.0","method":"initialized","params":{}}"#,
    ));
    sent.requests.insert("init".into());
    for _ in 0..MAX_MESSAGES {
        match message(&mut u, &mut sent) {
            Ok(m) => {
                let _ = to_server.send(m);
            }
            Err(_) => break,
        }
    }
    sent.requests.insert("end".into());
    let _ = to_server.send(frame(
        br#"{"jsonrpc":"2.0","id":"end","method":"shutdown"}"#,
    ));
    // Wait for every answer before `exit`, which abandons what still runs.
    let deadline = Instant::now() + SESSION_TIME;
    let mut bytes = Vec::new();
    let mut answered = BTreeSet::new();
    while !sent.requests.is_subset(&answered) {
        let left = deadline.saturating_duration_since(Instant::now());
        match from_server.recv_timeout(left) {
            Ok(chunk) => bytes.extend_from_slice(&chunk),
            Err(RecvTimeoutError::Disconnected) if sent.maybe_exit => break,
            Err(e) => panic!(
                "unanswered {:?} ({e:?})",
                sent.requests.difference(&answered).collect::<Vec<_>>()
            ),
        }
        answered = frames_so_far(&bytes);
    }
    let _ = to_server.send(frame(br#"{"jsonrpc":"2.0","method":"exit"}"#));
    drop(to_server);
    let code = server.join().expect("the server thread");
    bytes.extend(from_server.try_iter().flatten());
    let all = frames(&bytes);
    if !sent.maybe_exit {
        assert_eq!(code, 0, "exit code after shutdown and exit");
    }
    assert!(
        all.iter()
            .all(|m| m.get("method").is_some() || m.get("id").is_some()),
        "a frame that is neither message nor answer"
    );
});

/// The string ids answered in the complete frames of `bytes`.
fn frames_so_far(bytes: &[u8]) -> BTreeSet<String> {
    let complete = complete_prefix(bytes);
    frames(&bytes[..complete])
        .iter()
        .filter(|m| m.get("method").is_none())
        .filter_map(|m| m["id"].as_str().map(String::from))
        .collect()
}

/// The length of the longest prefix of `bytes` made of complete frames.
fn complete_prefix(bytes: &[u8]) -> usize {
    let mut at = 0;
    loop {
        let rest = &bytes[at..];
        let Some(head) = rest.windows(4).position(|w| w == b"\r\n\r\n") else {
            return at;
        };
        let Some(length) = std::str::from_utf8(&rest[..head])
            .ok()
            .and_then(|h| h.strip_prefix("Content-Length: "))
            .and_then(|n| n.parse::<usize>().ok())
        else {
            return at;
        };
        if rest.len() < head + 4 + length {
            return at;
        }
        at += head + 4 + length;
    }
}
