//! stdio: one JSON message per line in and out. Requests are handled concurrently; each reply
//! (and each notification) is written whole, on its own line. Nothing but MCP goes to stdout;
//! logs belong on stderr. `notifications/cancelled` stops the request it names (no reply is
//! sent for it; that is also how a `subscriptions/listen` stream ends). Exits on end of input
//! once requests in flight are answered. A line that is not UTF-8 is answered with a parse error
//! and a line over the size limit with an invalid-request error; neither stops the server.

use crate::lock;
use crate::server::Server;
use serde_json::Value;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;

/// Serve on this process's stdin and stdout.
pub async fn serve(server: Arc<Server>) -> std::io::Result<()> {
    serve_io(server, tokio::io::stdin(), tokio::io::stdout()).await
}

/// The longest line [`serve_io`] takes by default: 4 MiB, as the HTTP transport's body limit.
pub const DEFAULT_MAX_LINE: usize = 4 * 1024 * 1024;

/// One line read by [`read_line`].
pub(crate) enum Line {
    /// The line, without its line ending.
    Fits,
    /// Longer than the limit: skipped up to its end, `buf` left empty.
    TooLong,
    /// End of input.
    End,
}

/// Read one line into `buf` (without `\n` or `\r\n`), keeping at most `max` bytes: a longer
/// line is skipped to its end instead of being buffered whole.
pub(crate) async fn read_line<R: AsyncBufRead + Unpin>(
    reader: &mut R,
    buf: &mut Vec<u8>,
    max: usize,
) -> std::io::Result<Line> {
    buf.clear();
    let (mut seen, mut fits) = (false, true);
    loop {
        let chunk = reader.fill_buf().await?;
        if chunk.is_empty() {
            // End of input; a last line without a newline still counts.
            return Ok(match (seen, fits) {
                (false, _) => Line::End,
                (true, true) => Line::Fits,
                (true, false) => Line::TooLong,
            });
        }
        seen = true;
        let newline = chunk.iter().position(|&b| b == b'\n');
        let part = &chunk[..newline.unwrap_or(chunk.len())];
        if fits && buf.len() + part.len() <= max {
            buf.extend_from_slice(part);
        } else if fits {
            fits = false;
            buf.clear();
        }
        let used = newline.map_or(chunk.len(), |i| i + 1);
        reader.consume(used);
        if newline.is_some() {
            if buf.last() == Some(&b'\r') {
                buf.pop();
            }
            return Ok(if fits { Line::Fits } else { Line::TooLong });
        }
    }
}

/// Send the error reply to a line that could not be read as a request (so it has no id).
fn refuse(out: &mpsc::UnboundedSender<String>, error: mcp_schema::Error) {
    if let Some(reply) = crate::server::error_reply(None, error) {
        let _ = out.send(reply.to_string());
    }
}

/// Serve on any reader and writer (for tests and pipes), taking lines up to
/// [`DEFAULT_MAX_LINE`].
pub async fn serve_io<R, W>(server: Arc<Server>, reader: R, writer: W) -> std::io::Result<()>
where
    R: tokio::io::AsyncRead + Unpin,
    W: AsyncWrite + Unpin + Send + 'static,
{
    serve_io_with_limit(server, reader, writer, DEFAULT_MAX_LINE).await
}

/// [`serve_io`] with another limit on the length of a line, in bytes.
pub async fn serve_io_with_limit<R, W>(
    server: Arc<Server>,
    reader: R,
    mut writer: W,
    max_line: usize,
) -> std::io::Result<()>
where
    R: tokio::io::AsyncRead + Unpin,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let (out_tx, mut out_rx) = mpsc::unbounded_channel::<String>();
    let writer_task = tokio::spawn(async move {
        while let Some(line) = out_rx.recv().await {
            writer.write_all(line.as_bytes()).await?;
            writer.write_all(b"\n").await?;
            writer.flush().await?;
        }
        Ok::<(), std::io::Error>(())
    });
    let mut reader = BufReader::new(reader);
    let mut raw = Vec::new();
    let mut tasks = tokio::task::JoinSet::new();
    // Requests in flight by id, so `notifications/cancelled` can stop them.
    let in_flight: Arc<Mutex<HashMap<String, tokio::task::AbortHandle>>> = Arc::default();
    let mut streams = Vec::new();
    loop {
        let line = match read_line(&mut reader, &mut raw, max_line).await? {
            Line::End => break,
            Line::TooLong => {
                let why = format!("message longer than {max_line} bytes");
                refuse(&out_tx, mcp_schema::Error::invalid_request(why));
                continue;
            }
            Line::Fits => match std::str::from_utf8(&raw) {
                Ok(text) => text.to_string(),
                Err(_) => {
                    refuse(
                        &out_tx,
                        mcp_schema::Error::parse_error("parse error: not UTF-8"),
                    );
                    continue;
                }
            },
        };
        if line.trim().is_empty() {
            continue;
        }
        let parsed: Option<Value> = serde_json::from_str(&line).ok();
        if let Some(msg) = &parsed {
            if msg.get("method").and_then(Value::as_str) == Some("notifications/cancelled") {
                let target = msg
                    .get("params")
                    .and_then(|p| p.get("requestId"))
                    .map(Value::to_string);
                if let Some(handle) = target.and_then(|id| lock(&in_flight).remove(&id)) {
                    handle.abort();
                }
                continue;
            }
        }
        let id = parsed
            .as_ref()
            .and_then(|m| m.get("id"))
            .map(Value::to_string);
        let is_listen = parsed
            .as_ref()
            .and_then(|m| m.get("method"))
            .and_then(Value::as_str)
            == Some("subscriptions/listen");
        let server = server.clone();
        let out = out_tx.clone();
        let registry = in_flight.clone();
        let task_id = id.clone();
        let handle = tasks.spawn(async move {
            let (note_tx, mut note_rx) = mpsc::unbounded_channel::<Value>();
            let notes_out = out.clone();
            let forward = tokio::spawn(async move {
                while let Some(n) = note_rx.recv().await {
                    let _ = notes_out.send(n.to_string());
                }
            });
            let reply = match parsed {
                Some(v) => server.handle_value_with(v, None, Some(note_tx)).await,
                None => {
                    // Not JSON: the core answers -32700. No notifications can follow.
                    drop(note_tx);
                    server.handle_message(&line, None).await
                }
            };
            let _ = forward.await;
            if let Some(id) = &task_id {
                lock(&registry).remove(id);
            }
            if let Some(r) = reply {
                let _ = out.send(r.to_string());
            }
        });
        let mut registry = lock(&in_flight);
        registry.retain(|_, h| !h.is_finished());
        if let Some(id) = id {
            if is_listen {
                streams.push(handle.clone());
            }
            registry.insert(id, handle);
        }
    }
    // End of input: the client is gone, so open subscription streams end too.
    for s in streams {
        s.abort();
    }
    while tasks.join_next().await.is_some() {}
    drop(out_tx);
    writer_task.await.map_err(std::io::Error::other)?
}
