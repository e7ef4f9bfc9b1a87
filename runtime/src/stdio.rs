//! stdio: one JSON message per line in and out. Requests are handled concurrently; each reply
//! (and each notification) is written whole, on its own line. Nothing but MCP goes to stdout;
//! logs belong on stderr. `notifications/cancelled` stops the request it names (no reply is
//! sent for it; that is also how a `subscriptions/listen` stream ends). Exits on end of input
//! once requests in flight are answered.

use crate::server::Server;
use serde_json::Value;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    match m.lock() {
        Ok(g) => g,
        Err(poisoned) => poisoned.into_inner(),
    }
}
use tokio::io::{AsyncBufReadExt, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;

/// Serve on this process's stdin and stdout.
pub async fn serve(server: Arc<Server>) -> std::io::Result<()> {
    serve_io(server, tokio::io::stdin(), tokio::io::stdout()).await
}

/// Serve on any reader and writer (for tests and pipes).
pub async fn serve_io<R, W>(server: Arc<Server>, reader: R, mut writer: W) -> std::io::Result<()>
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
    let mut lines = BufReader::new(reader).lines();
    let mut tasks = tokio::task::JoinSet::new();
    // Requests in flight by id, so `notifications/cancelled` can stop them.
    let in_flight: Arc<Mutex<HashMap<String, tokio::task::AbortHandle>>> = Arc::default();
    let mut streams = Vec::new();
    while let Some(line) = lines.next_line().await? {
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
