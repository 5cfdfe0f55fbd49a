//! The gradient lens over the LSP: how long an editor waits from clicking `∇ compute gradient`
//! to its result. Each run starts a fresh `zy-lsp`, opens the fixture (with the benchmark call
//! as its `# zy: at` line) and waits for its diagnostics, as an editor would before the user
//! clicks; requests the code lenses, then sends the gradient lens's command and times the wall
//! clock until its result arrives. The client answers the server's own requests (the progress
//! token, the lens refresh) at once, as VS Code does.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{json, Value as Json};

use crate::cases::Case;
use crate::report::LensTimes;
use crate::timing::median;

/// How long any one message may take before the run is abandoned.
const TIMEOUT: Duration = Duration::from_secs(120);

/// The medians over `runs` fresh servers of the time from the gradient lens's command to its
/// result, and of the run inside the server; with a note on the runs that failed, if any (each
/// failed run is retried on a fresh server, `runs` times at most in all).
pub fn lens_gradient(
    server: &Path,
    case: &Case,
    runs: usize,
) -> Result<(LensTimes, Option<String>), String> {
    let text = case.source_at_benchmark().ok_or_else(|| {
        format!(
            "{} has no `# zy: at {}(...)` line for the lens",
            case.file,
            case.function()
        )
    })?;
    let root = std::env::current_dir().map_err(|e| format!("current directory: {e}"))?;
    let path = root.join("fixtures").join(case.file);
    let (mut total, mut inside, mut failures) = (Vec::new(), Vec::new(), Vec::new());
    while total.len() < runs && failures.len() < runs {
        let mut session = Session::start(server, &file_uri(&root))?;
        let run = session.click_gradient_lens(&file_uri(&path), &text, case.function());
        session.stop();
        match run {
            Ok((ms, server_ms)) => {
                total.push(ms);
                inside.push(server_ms);
            }
            Err(e) => failures.push(e),
        }
    }
    if total.is_empty() {
        return Err(failures.join("; "));
    }
    let note = failures.first().map(|first| {
        format!(
            "{} of {} runs of the gradient lens failed, the first with: {first}",
            failures.len(),
            failures.len() + total.len()
        )
    });
    let times = LensTimes {
        result_ms: median(&mut total),
        server_ms: median(&mut inside),
    };
    Ok((times, note))
}

/// A `file://` URI of an absolute path (bytes outside the unreserved set percent-encoded).
fn file_uri(path: &Path) -> String {
    let mut uri = String::from("file://");
    for &b in path.to_string_lossy().as_bytes() {
        if b.is_ascii_alphanumeric() || b"/-._~".contains(&b) {
            uri.push(b as char);
        } else {
            uri.push_str(&format!("%{b:02X}"));
        }
    }
    uri
}

/// A running server and the messages it sent that nobody has read yet.
struct Session {
    child: Child,
    stdin: Arc<Mutex<ChildStdin>>,
    incoming: Receiver<Json>,
    next_id: i64,
}

impl Session {
    /// Start `server` and initialise it with `root` as the workspace.
    fn start(server: &Path, root: &str) -> Result<Session, String> {
        let mut child = Command::new(server)
            .env("ZY_LOG", "error")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("cannot start {}: {e}", server.display()))?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            return Err("the server's stdio is not piped".into());
        };
        let stdin = Arc::new(Mutex::new(stdin));
        let (tx, incoming) = channel();
        let answer = stdin.clone();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            while let Some(msg) = read_message(&mut reader) {
                // The server's own requests (progress tokens, refreshes) are answered at once.
                if let (Some(id), Some(_)) = (msg.get("id"), msg.get("method")) {
                    let reply = json!({ "jsonrpc": "2.0", "id": id, "result": null });
                    if write_message(&answer, &reply).is_err() {
                        return;
                    }
                }
                if tx.send(msg).is_err() {
                    return;
                }
            }
        });
        let mut session = Session {
            child,
            stdin,
            incoming,
            next_id: 1,
        };
        let capabilities = json!({
            "general": { "positionEncodings": ["utf-16"] },
            "window": { "workDoneProgress": true },
            "workspace": { "codeLens": { "refreshSupport": true } },
        });
        session.request(
            "initialize",
            json!({ "processId": null, "rootUri": root, "capabilities": capabilities }),
        )?;
        session.notify("initialized", json!({}))?;
        Ok(session)
    }

    /// Open `text` as `uri`, wait for its diagnostics, fetch the lenses and run `function`'s
    /// gradient lens: the milliseconds to its result, and those the server reports for its run.
    fn click_gradient_lens(
        &mut self,
        uri: &str,
        text: &str,
        function: &str,
    ) -> Result<(f64, f64), String> {
        let document = json!({ "uri": uri, "languageId": "julia", "version": 1, "text": text });
        self.notify("textDocument/didOpen", json!({ "textDocument": document }))?;
        self.wait_for(|m| {
            m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == uri
        })?;
        let lenses = self.request(
            "textDocument/codeLens",
            json!({ "textDocument": { "uri": uri } }),
        )?;
        let command = lenses
            .as_array()
            .into_iter()
            .flatten()
            .map(|lens| &lens["command"])
            .find(|c| {
                c["command"] == "zy.computeGradient" && c["arguments"][0]["function"] == function
            })
            .cloned()
            .ok_or_else(|| format!("no gradient lens for `{function}`"))?;
        let params = json!({ "command": command["command"], "arguments": command["arguments"] });
        let start = Instant::now();
        let result = self.request("workspace/executeCommand", params)?;
        let ms = start.elapsed().as_secs_f64() * 1e3;
        match (result["value"].as_str(), result["micros"].as_f64()) {
            (Some(_), Some(micros)) => Ok((ms, micros / 1e3)),
            _ => Err(format!("unexpected result of zy.computeGradient: {result}")),
        }
    }

    fn notify(&mut self, method: &str, params: Json) -> Result<(), String> {
        write_message(
            &self.stdin,
            &json!({ "jsonrpc": "2.0", "method": method, "params": params }),
        )
    }

    /// Send a request and wait for its result (an error response is an error).
    fn request(&mut self, method: &str, params: Json) -> Result<Json, String> {
        let id = self.next_id;
        self.next_id += 1;
        write_message(
            &self.stdin,
            &json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }),
        )?;
        let response = self.wait_for(|m| m["id"] == id && m.get("method").is_none())?;
        match response.get("error") {
            Some(e) => Err(format!("{method}: {e}")),
            None => Ok(response.get("result").cloned().unwrap_or(Json::Null)),
        }
    }

    /// The next message satisfying `pred` (the others are dropped: a run needs none of them).
    fn wait_for(&mut self, pred: impl Fn(&Json) -> bool) -> Result<Json, String> {
        let deadline = Instant::now() + TIMEOUT;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.incoming.recv_timeout(left) {
                Ok(msg) if pred(&msg) => return Ok(msg),
                Ok(_) => {}
                Err(RecvTimeoutError::Timeout) => {
                    return Err(format!("no answer from the server in {TIMEOUT:?}"))
                }
                Err(RecvTimeoutError::Disconnected) => {
                    return Err("the server closed its output".into())
                }
            }
        }
    }

    /// Shut the server down politely, and end it if it does not exit.
    fn stop(mut self) {
        let _ = self.request("shutdown", Json::Null);
        let _ = self.notify("exit", Json::Null);
        let deadline = Instant::now() + Duration::from_secs(5);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One JSON-RPC message with its `Content-Length` header; `None` at the end of the stream or
/// on a malformed frame.
fn read_message(reader: &mut impl BufRead) -> Option<Json> {
    let mut length = None;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).ok()? == 0 {
            return None;
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some(n) = line.strip_prefix("Content-Length: ") {
            length = n.parse::<usize>().ok();
        }
    }
    let mut body = vec![0; length?];
    reader.read_exact(&mut body).ok()?;
    serde_json::from_slice(&body).ok()
}

/// Frame and send `msg`. A `null` `params` is left out (tower-lsp rejects it, as real clients
/// never send it).
fn write_message(stdin: &Mutex<ChildStdin>, msg: &Json) -> Result<(), String> {
    let mut msg = msg.clone();
    if let Json::Object(fields) = &mut msg {
        if fields.get("params").is_some_and(Json::is_null) {
            fields.remove("params");
        }
    }
    let body = msg.to_string();
    let mut stdin = stdin
        .lock()
        .map_err(|_| "the server's input is poisoned".to_string())?;
    stdin
        .write_all(format!("Content-Length: {}\r\n\r\n{body}", body.len()).as_bytes())
        .and_then(|()| stdin.flush())
        .map_err(|e| format!("writing to the server: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_round_trip_and_bad_frames_end_the_stream() {
        let text = b"Content-Length: 17\r\n\r\n{\"id\":1,\"x\":[2]}\nContent-Length: 40\r\n\r\n{}";
        let mut reader = &text[..];
        assert_eq!(
            read_message(&mut reader),
            Some(json!({ "id": 1, "x": [2] }))
        );
        // The second frame is cut short.
        assert_eq!(read_message(&mut reader), None);
        assert_eq!(read_message(&mut &b"no header\r\n\r\n"[..]), None);
    }

    #[test]
    fn uris_encode_what_a_path_may_hold() {
        assert_eq!(
            file_uri(Path::new("/work/a b/fixtures/rk4.jl")),
            "file:///work/a%20b/fixtures/rk4.jl"
        );
        assert_eq!(file_uri(Path::new("/x/ℓ.jl")), "file:///x/%E2%84%93.jl");
    }
}
