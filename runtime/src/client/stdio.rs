//! Clients of a server over stdio: a spawned process, or any line-delimited stream pair; a
//! request's reply matched by id, and a dropped request cancelled.

use super::*;

impl Client {
    /// Spawn `program` with `args` and talk to it over stdio. Dropping a call's future before
    /// it completes sends the server `notifications/cancelled` for it. What the server writes
    /// to its stderr is logged through `tracing` (target `oxmcp::client::server`, level info),
    /// never mixed into the host's own stderr; [`Client::stdio_with_stderr`] takes it instead.
    pub fn stdio(program: &str, args: &[&str]) -> Result<Self, ClientError> {
        let server = program.to_string();
        Self::stdio_with_stderr(program, args, move |line: &str| {
            tracing::info!(target: "oxmcp::client::server", server = %server, "{line}");
        })
    }

    /// [`Client::stdio`], with each line the server writes to its stderr given to `on_line`
    /// (lines past 64 KiB are skipped; invalid UTF-8 is replaced).
    pub fn stdio_with_stderr(
        program: &str,
        args: &[&str],
        on_line: impl Fn(&str) + Send + 'static,
    ) -> Result<Self, ClientError> {
        let mut child = tokio::process::Command::new(program)
            .args(args)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| ClientError::transport(program, Cause::of(e)))?;
        let stdin = child
            .stdin
            .take()
            .ok_or_else(|| ClientError::transport(STDIO, Cause::words("no stdin")))?;
        let stdout = child
            .stdout
            .take()
            .ok_or_else(|| ClientError::transport(STDIO, Cause::words("no stdout")))?;
        if let Some(stderr) = child.stderr.take() {
            tokio::spawn(async move {
                let mut reader = LineReader::new(stderr);
                let mut raw = Vec::new();
                loop {
                    match reader.read_line(&mut raw, MAX_STDERR_LINE).await {
                        Ok(Line::Fits) => {
                            on_line(&String::from_utf8_lossy(&raw));
                        }
                        Ok(Line::TooLong) => {}
                        Ok(Line::End) | Err(_) => break,
                    }
                }
            });
        }
        let mut client = Self::over_io(stdout, stdin);
        if let Transport::Stdio { _child, .. } = &mut client.transport {
            *_child = Some(Arc::new(Mutex::new(child)));
        }
        Ok(client)
    }

    /// Talk to a server over any pair of byte streams carrying one JSON message per line, as
    /// stdio does: a child's pipes, a socket, an in-memory duplex. Must be called inside a
    /// Tokio runtime (it spawns the reader and writer tasks).
    pub fn over_io<R, W>(reader: R, mut writer: W) -> Self
    where
        R: tokio::io::AsyncRead + Unpin + Send + 'static,
        W: tokio::io::AsyncWrite + Unpin + Send + 'static,
    {
        let (tx, mut rx) = mpsc::unbounded_channel::<String>();
        tokio::spawn(async move {
            while let Some(line) = rx.recv().await {
                if write_line(&mut writer, line.as_bytes()).await.is_err() {
                    break;
                }
            }
        });
        let pending: Pending = Arc::default();
        let notes: Arc<Mutex<Option<mpsc::UnboundedSender<Value>>>> = Arc::default();
        let answers: Arc<Mutex<Option<Arc<dyn InputHandler>>>> = Arc::default();
        let done = Arc::new(AtomicBool::new(false));
        let watchers = Watchers::default();
        let (reader_pending, reader_notes, reader_done, reader_watchers) = (
            pending.clone(),
            notes.clone(),
            done.clone(),
            watchers.clone(),
        );
        // Weak: the reader must not keep the writer (and the server's stdin) open once the
        // client is dropped.
        let (reader_answers, reader_tx) = (answers.clone(), tx.downgrade());
        tokio::spawn(async move {
            let mut reader = LineReader::new(reader);
            let mut raw = Vec::new();
            loop {
                match reader.read_line(&mut raw, MAX_REPLY_LINE).await {
                    Ok(Line::Fits) => {}
                    // Skipped unread: the call it answers waits until its caller drops it or
                    // the server's output ends.
                    Ok(Line::TooLong) => continue,
                    Ok(Line::End) | Err(_) => break,
                }
                let Ok(v) = serde_json::from_slice::<Value>(&raw) else {
                    continue;
                };
                match v.get("id").map(Value::to_string) {
                    Some(id) if v.get("method").is_none() => {
                        let waiter = reader_pending.lock().ok().and_then(|mut p| p.remove(&id));
                        if let Some(w) = waiter {
                            let _ = w.send(v);
                        }
                    }
                    // A 2025-era server's own request: answered in a task of its own.
                    Some(_) => {
                        let handler = reader_answers.lock().ok().and_then(|h| h.clone());
                        let handler = handler.unwrap_or_else(|| Arc::new(DeclineAll));
                        let tx = reader_tx.clone();
                        tokio::spawn(async move {
                            let response = answer_server_request(&handler, &v).await;
                            if let Some(tx) = tx.upgrade() {
                                let _ = tx.send(response.to_string());
                            }
                        });
                    }
                    _ => {
                        watch(&reader_watchers, &v);
                        let note = reader_notes.lock().ok().and_then(|n| n.clone());
                        if let Some(n) = note {
                            let _ = n.send(v);
                        }
                    }
                }
            }
            // The server is gone: every call still waiting fails instead of hanging, and so does
            // every later one (`send` checks the flag after registering).
            reader_done.store(true, Ordering::SeqCst);
            if let Ok(mut p) = reader_pending.lock() {
                p.clear();
            }
        });
        let mut client = Self::with_transport(Transport::Stdio {
            tx,
            pending,
            done,
            notes,
            answers,
            _child: None,
        });
        client.watchers = watchers;
        client
    }

    /// Send `msg` over stdio and await its reply; a dropped future cancels the request.
    pub(super) async fn send_stdio(
        &self,
        tx: &mpsc::UnboundedSender<String>,
        pending: &Pending,
        done: &AtomicBool,
        msg: &Value,
    ) -> Result<Value, ClientError> {
        let id = msg.get("id").cloned().unwrap_or(Value::Null);
        let key = id.to_string();
        let (wtx, wrx) = oneshot::channel();
        pending
            .lock()
            .map_err(|_| ClientError::transport(STDIO, Cause::words("poisoned")))?
            .insert(key.clone(), wtx);
        // Checked after registering: the reader sets the flag before it clears the
        // waiting calls, so a call is either cleared or sees the flag.
        if done.load(Ordering::SeqCst) {
            if let Ok(mut p) = pending.lock() {
                p.remove(&key);
            }
            return Err(ClientError::transport(
                STDIO,
                Cause::words("the server's output has ended"),
            ));
        }
        let mut in_flight = CancelOnDrop {
            tx,
            pending,
            key,
            id: Some(id),
        };
        tx.send(msg.to_string())
            .map_err(|_| ClientError::transport(STDIO, Cause::words("server stdin closed")))?;
        let reply = wrx.await;
        in_flight.id = None;
        reply.map_err(|_| {
            ClientError::reply_lost(STDIO, Cause::words("the server exited before replying"))
        })
    }
}

/// A request sent over stdio whose reply has not arrived: if its future is dropped, the server
/// is told with `notifications/cancelled` and the reply slot is freed.
struct CancelOnDrop<'a> {
    tx: &'a mpsc::UnboundedSender<String>,
    pending: &'a Pending,
    key: String,
    /// The request id while the reply is awaited; `None` once it arrived.
    id: Option<Value>,
}

impl Drop for CancelOnDrop<'_> {
    fn drop(&mut self) {
        let Some(id) = self.id.take() else { return };
        if let Ok(mut p) = self.pending.lock() {
            p.remove(&self.key);
        }
        let cancel = json!({"jsonrpc": "2.0", "method": methods::NOTIFICATIONS_CANCELLED,
                            "params": {"requestId": id, "reason": "the client stopped waiting"}});
        let _ = self.tx.send(cancel.to_string());
    }
}
