//! A minimal LSP client over stdio for end-to-end tests: frames JSON-RPC messages, matches
//! responses to requests by id, and keeps the notifications the server sends.

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::thread;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

/// A running `zy-lsp` process.
pub struct Client {
    child: Child,
    stdin: Option<ChildStdin>,
    incoming: Receiver<Value>,
    /// The server's log lines, when started with [`Client::start_logging`].
    log: Option<Receiver<String>>,
    next_id: i64,
    /// Whether requests from the server get an (empty) answer.
    pub answers_server_requests: bool,
    /// Notifications and server-to-client requests received so far, in order.
    pub notifications: Vec<Value>,
    /// Responses that arrived while waiting for another one.
    responses: Vec<Value>,
}

impl Client {
    /// Start the server binary built for this test crate.
    pub fn start() -> Client {
        Client::start_with(&[])
    }

    /// Start the server with extra environment variables.
    pub fn start_with(env: &[(&str, &str)]) -> Client {
        let log = std::env::var("ZY_TEST_LOG").unwrap_or_else(|_| "warn".into());
        Client::spawn(env, &log, false)
    }

    /// Start the server with its log at `filter` kept for [`Client::wait_for_log`].
    pub fn start_logging(filter: &str) -> Client {
        Client::spawn(&[], filter, true)
    }

    fn spawn(env: &[(&str, &str)], log: &str, keep_log: bool) -> Client {
        let mut child = Command::new(env!("CARGO_BIN_EXE_zy-lsp"))
            .env("ZY_LOG", log)
            .envs(env.iter().copied())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(if keep_log {
                Stdio::piped()
            } else {
                Stdio::inherit()
            })
            .spawn()
            .expect("start zy-lsp");
        let log = child.stderr.take().map(|stderr| {
            let (tx, rx) = channel();
            thread::spawn(move || {
                for line in BufReader::new(stderr).lines() {
                    let Ok(line) = line else { return };
                    if tx.send(line).is_err() {
                        return;
                    }
                }
            });
            rx
        });
        let stdin = child.stdin.take().expect("stdin");
        let stdout = child.stdout.take().expect("stdout");
        let (tx, incoming) = channel();
        thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            loop {
                let mut len = None;
                loop {
                    let mut line = String::new();
                    if reader.read_line(&mut line).unwrap_or(0) == 0 {
                        return;
                    }
                    let line = line.trim_end();
                    if line.is_empty() {
                        break;
                    }
                    if let Some(v) = line.strip_prefix("Content-Length: ") {
                        len = v.parse::<usize>().ok();
                    }
                }
                let Some(len) = len else { return };
                let mut body = vec![0; len];
                if reader.read_exact(&mut body).is_err() {
                    return;
                }
                match serde_json::from_slice(&body) {
                    Ok(v) => {
                        if tx.send(v).is_err() {
                            return;
                        }
                    }
                    Err(_) => return,
                }
            }
        });
        Client {
            child,
            stdin: Some(stdin),
            incoming,
            log,
            next_id: 1,
            answers_server_requests: true,
            notifications: Vec::new(),
            responses: Vec::new(),
        }
    }

    /// Start the server and run the `initialize` handshake.
    pub fn initialized() -> Client {
        Client::initialized_in(None)
    }

    /// Start the server with `root` as the workspace folder.
    pub fn initialized_in(root: Option<&str>) -> Client {
        let mut c = Client::start();
        c.initialize(
            json!({ "processId": null, "rootUri": root, "capabilities": Client::capabilities() }),
        );
        c
    }

    /// What this client declares: UTF-16 positions, progress, Markdown hovers.
    pub fn capabilities() -> Value {
        json!({
            "general": { "positionEncodings": ["utf-16"] },
            "window": { "workDoneProgress": true },
            "textDocument": { "hover": { "contentFormat": ["markdown", "plaintext"] } }
        })
    }

    /// The `initialize` handshake with `params`.
    pub fn initialize(&mut self, params: Value) {
        self.request("initialize", params);
        self.notify("initialized", json!({}));
    }

    fn send(&mut self, msg: &Value) {
        let body = msg.to_string();
        self.send_raw(format!("Content-Length: {}\r\n\r\n{}", body.len(), body).as_bytes());
    }

    /// Write bytes to the server as they are.
    pub fn send_raw(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin is open");
        stdin.write_all(bytes).expect("write to server");
        stdin.flush().expect("flush");
    }

    /// Send a notification.
    pub fn notify(&mut self, method: &str, params: Value) {
        let mut msg = json!({ "jsonrpc": "2.0", "method": method });
        if !params.is_null() {
            msg["params"] = params;
        }
        self.send(&msg);
    }

    /// Send a request without waiting; returns its id.
    pub fn send_request(&mut self, method: &str, params: Value) -> i64 {
        let id = self.next_id;
        self.next_id += 1;
        let mut msg = json!({ "jsonrpc": "2.0", "id": id, "method": method });
        // tower-lsp rejects `"params": null` (real clients omit it).
        if !params.is_null() {
            msg["params"] = params;
        }
        self.send(&msg);
        id
    }

    /// Wait for the response to request `id` (the whole response object).
    pub fn response(&mut self, id: i64) -> Value {
        self.response_to(json!(id), Duration::from_secs(60))
            .unwrap_or_else(|| panic!("no response to {id}"))
    }

    /// The first response with `id` (`null` for errors about messages without one) arriving
    /// within `wait`, in the order the server sent them.
    pub fn response_to(&mut self, id: Value, wait: Duration) -> Option<Value> {
        if let Some(i) = self.responses.iter().position(|r| r["id"] == id) {
            return Some(self.responses.remove(i));
        }
        let deadline = Instant::now() + wait;
        loop {
            let msg = self.next_message(deadline)?;
            if msg.get("method").is_none() {
                if msg["id"] == id {
                    return Some(msg);
                }
                self.responses.push(msg);
                continue;
            }
            self.keep(msg);
        }
    }

    /// Send a request and return its `result`, panicking on an error response.
    pub fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.send_request(method, params);
        let resp = self.response(id);
        match resp.get("error") {
            Some(e) => panic!("{method} failed: {e}"),
            None => resp.get("result").cloned().unwrap_or(Value::Null),
        }
    }

    /// Wait until a notification with `method` satisfying `pred` arrives (or was received).
    pub fn wait_for(&mut self, method: &str, pred: impl Fn(&Value) -> bool) -> Value {
        if let Some(n) = self
            .notifications
            .iter()
            .find(|n| n["method"] == method && pred(&n["params"]))
        {
            return n["params"].clone();
        }
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let msg = self
                .next_message(deadline)
                .unwrap_or_else(|| panic!("no {method}"));
            if msg.get("method").is_none() {
                self.responses.push(msg);
                continue;
            }
            let hit = msg["method"] == method && pred(&msg["params"]);
            let params = msg["params"].clone();
            self.keep(msg);
            if hit {
                return params;
            }
        }
    }

    fn keep(&mut self, msg: Value) {
        // Answer server-to-client requests (progress tokens, refreshes) with an empty result.
        if self.answers_server_requests && msg.get("id").is_some() && msg.get("method").is_some() {
            let id = msg["id"].clone();
            self.send(&json!({ "jsonrpc": "2.0", "id": id, "result": null }));
        }
        self.notifications.push(msg);
    }

    fn next_message(&mut self, deadline: Instant) -> Option<Value> {
        let left = deadline.saturating_duration_since(Instant::now());
        self.incoming.recv_timeout(left).ok()
    }

    /// Open a document with `text`.
    pub fn open(&mut self, uri: &str, text: &str) {
        self.notify(
            "textDocument/didOpen",
            json!({ "textDocument": { "uri": uri, "languageId": "julia", "version": 1, "text": text } }),
        );
    }

    /// Shut the server down cleanly and return its exit code.
    pub fn shutdown(mut self) -> Option<i32> {
        let id = self.send_request("shutdown", json!(null));
        let _ = self.response(id);
        self.notify("exit", json!(null));
        // Clients close the pipe after `exit`; the server ends when its input does.
        self.stdin = None;
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                return status.code();
            }
            if Instant::now() > deadline {
                let _ = self.child.kill();
                return None;
            }
            thread::sleep(Duration::from_millis(20));
        }
    }

    /// Is the server process still running?
    pub fn alive(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    /// The server's exit code if it exits within `wait` (its input stays open).
    pub fn exit_code_within(&mut self, wait: Duration) -> Option<i32> {
        let deadline = Instant::now() + wait;
        while Instant::now() < deadline {
            if let Ok(Some(status)) = self.child.try_wait() {
                return status.code();
            }
            thread::sleep(Duration::from_millis(20));
        }
        None
    }

    /// Wait up to `wait` for a log line containing every one of `parts`.
    pub fn wait_for_log(&mut self, parts: &[&str], wait: Duration) -> Option<String> {
        let log = self.log.as_ref().expect("started with start_logging");
        let deadline = Instant::now() + wait;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let line = log.recv_timeout(left).ok()?;
            if parts.iter().all(|p| line.contains(p)) {
                return Some(line);
            }
        }
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        let _ = self.child.kill();
    }
}
