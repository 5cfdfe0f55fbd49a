//! The server's stdio: frames are read and checked here ([`framing`], [`envelope`]), bad ones
//! answered here, good ones passed to tower-lsp through an in-memory pipe; tower-lsp's output
//! and these answers reach stdout one whole frame at a time. This layer also decides when the
//! process ends: on `exit` (code 0 after `shutdown`, else 1), at the end of the input (the
//! same), and when the client process named in `initialize` is gone (1).

use std::io::{BufReader, Read, Write};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::thread;
use std::time::Duration;

use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWriteExt, DuplexStream};
use tokio::runtime::Runtime;
use tokio::sync::mpsc::{unbounded_channel, UnboundedSender};

use crate::envelope::{self, Kind, Rejection, INVALID_REQUEST, METHOD_NOT_FOUND};
use crate::framing::{Frame, FrameReader, MAX_BODY_BYTES};

/// How often the client process named in `initialize` is checked.
pub const PARENT_POLL: Duration = Duration::from_secs(2);

/// What the writer thread does next.
enum Out {
    Frame(Vec<u8>),
    Close,
}

/// Serve `input` to `output` with the service `serve` runs on its end of the in-memory pipe;
/// returns the process's exit code once the session is over (the caller exits with it at once:
/// requests still running are abandoned).
pub fn serve<R, W, S, F>(runtime: &Runtime, input: R, output: W, serve: S) -> i32
where
    R: Read + Send + 'static,
    W: Write + Send + 'static,
    S: FnOnce(tokio::io::ReadHalf<DuplexStream>, tokio::io::WriteHalf<DuplexStream>) -> F,
    F: std::future::Future<Output = ()> + Send + 'static,
{
    let (exit_tx, exit_rx) = channel::<i32>();
    let (out_tx, out_rx) = channel::<Out>();
    let writer = {
        let exit = exit_tx.clone();
        thread::spawn(move || write_frames(output, out_rx, exit))
    };
    let (ours, theirs) = tokio::io::duplex(1 << 16);
    let (their_read, their_write) = tokio::io::split(theirs);
    let (our_read, mut our_write) = tokio::io::split(ours);
    let service = serve(their_read, their_write);
    {
        let exit = exit_tx.clone();
        runtime.spawn(async move {
            service.await;
            tracing::error!("the service stopped");
            let _ = exit.send(1);
        });
    }
    let (forward_tx, mut forward_rx) = unbounded_channel::<Vec<u8>>();
    runtime.spawn(async move {
        while let Some(frame) = forward_rx.recv().await {
            if our_write.write_all(&frame).await.is_err() {
                return;
            }
        }
    });
    runtime.spawn(pump(our_read, out_tx.clone()));
    {
        let out = out_tx.clone();
        thread::spawn(move || read_messages(input, out, forward_tx, exit_tx));
    }
    let code = exit_rx.recv().unwrap_or(1);
    let _ = out_tx.send(Out::Close);
    let _ = writer.join();
    code
}

/// Read, check and route every incoming message until the session ends.
fn read_messages<R: Read>(
    input: R,
    out: Sender<Out>,
    forward: UnboundedSender<Vec<u8>>,
    exit: Sender<i32>,
) {
    let mut reader = FrameReader::new(BufReader::new(input), MAX_BODY_BYTES);
    let (mut shut_down, mut initialized) = (false, false);
    let reject = |r: Rejection| {
        tracing::warn!(code = r.error.code, message = %r.error.message, "rejected a message");
        let _ = out.send(Out::Frame(frame(&r.to_json())));
    };
    let code = loop {
        let body = match reader.next_frame() {
            Ok(Some(Frame::Body(body))) => body,
            Ok(Some(Frame::Malformed(why))) => {
                reject(Rejection::new(
                    Value::Null,
                    envelope::PARSE_ERROR,
                    format!("Parse error: {why}"),
                ));
                continue;
            }
            Ok(Some(Frame::TooLarge(n))) => {
                let why = format!(
                    "Invalid request: a message of {n} bytes (the limit is {} MiB)",
                    MAX_BODY_BYTES >> 20
                );
                reject(Rejection::new(Value::Null, INVALID_REQUEST, why));
                continue;
            }
            Ok(None) | Err(_) => {
                tracing::info!("the input ended");
                break exit_code(shut_down);
            }
        };
        let checked = match envelope::check(&body) {
            Ok(c) => c,
            Err(r) => {
                reject(r);
                continue;
            }
        };
        match &checked.kind {
            Kind::Notification { method } if method == "exit" => {
                tracing::info!("exit");
                break exit_code(shut_down);
            }
            Kind::Request { id, method } if method.starts_with("$/") => {
                reject(Rejection::new(
                    id.clone(),
                    METHOD_NOT_FOUND,
                    format!("Method not found: `{method}`"),
                ));
                continue;
            }
            Kind::Request { method, .. } if method == "shutdown" => shut_down = true,
            Kind::Request { method, .. } if method == "initialize" && !initialized => {
                // Only the first counts: the service refuses the others.
                initialized = true;
                if let Some(pid) = checked
                    .json
                    .pointer("/params/processId")
                    .and_then(Value::as_i64)
                {
                    watch_parent(pid, exit.clone());
                }
            }
            _ => {}
        }
        if forward
            .send(frame(
                &serde_json::to_vec(&checked.json).unwrap_or_default(),
            ))
            .is_err()
        {
            break 1;
        }
    };
    let _ = exit.send(code);
}

/// LSP's exit code: 0 if `shutdown` came first, else 1.
fn exit_code(shut_down: bool) -> i32 {
    if shut_down {
        0
    } else {
        1
    }
}

/// A message with its header.
fn frame(body: &[u8]) -> Vec<u8> {
    let mut out = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
    out.extend_from_slice(body);
    out
}

/// Pass the service's output frames on to the writer whole.
async fn pump(read: impl AsyncRead + Unpin, out: Sender<Out>) {
    let mut read = tokio::io::BufReader::new(read);
    loop {
        let mut length = None;
        loop {
            let mut line = String::new();
            match read.read_line(&mut line).await {
                Ok(0) | Err(_) => return,
                Ok(_) => {}
            }
            let line = line.trim_end();
            if line.is_empty() {
                break;
            }
            if let Some(n) = line.strip_prefix("Content-Length:") {
                length = n.trim().parse::<usize>().ok();
            }
        }
        // tower-lsp writes a length before every body.
        let Some(length) = length else { continue };
        let mut body = vec![0; length];
        if read.read_exact(&mut body).await.is_err() || out.send(Out::Frame(frame(&body))).is_err()
        {
            return;
        }
    }
}

/// Write frames in order until told to close; a failed write (the client is gone) ends the
/// session.
fn write_frames<W: Write>(mut output: W, frames: Receiver<Out>, exit: Sender<i32>) {
    for out in frames {
        let Out::Frame(bytes) = out else { break };
        if output
            .write_all(&bytes)
            .and_then(|()| output.flush())
            .is_err()
        {
            tracing::info!("the output is closed");
            let _ = exit.send(1);
            return;
        }
    }
    let _ = output.flush();
}

/// End the session (code 1) when process `pid` no longer exists.
#[cfg(unix)]
fn watch_parent(pid: i64, exit: Sender<i32>) {
    // 0 and negative numbers name process groups, not a process.
    let Ok(pid) = libc::pid_t::try_from(pid) else {
        return;
    };
    if pid <= 0 {
        return;
    }
    let spawned = thread::Builder::new()
        .name("parent-watch".into())
        .spawn(move || loop {
            thread::sleep(PARENT_POLL);
            // SAFETY: signal 0 only checks that the process exists; nothing is sent.
            let gone = unsafe { libc::kill(pid, 0) } != 0
                && std::io::Error::last_os_error().raw_os_error() == Some(libc::ESRCH);
            if gone {
                tracing::info!(pid, "the client process is gone");
                let _ = exit.send(1);
                return;
            }
        });
    if let Err(e) = spawned {
        tracing::warn!("cannot watch the client process: {e}");
    }
}

#[cfg(not(unix))]
fn watch_parent(_pid: i64, _exit: Sender<i32>) {}
