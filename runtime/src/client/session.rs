//! A 2025 session over HTTP: its requests, its standalone stream, the answers to the server's
//! own requests sent back, and cancellation of a request whose future is dropped.

use super::*;

/// A 2025-era HTTP session, as its streams are read and its responses POSTed: the endpoint, the
/// negotiated version and the session id.
pub(super) struct SessionHttp {
    pub(super) url: String,
    pub(super) http: HttpClient,
    /// The client's own headers ([`Client::header`], [`Client::headers_from`]), sent on every
    /// request of the session.
    pub(super) headers: Arc<Headers>,
    pub(super) version: String,
    pub(super) session: Option<String>,
}

/// The outcome of opening a session's stream with GET.
pub(super) enum Opened {
    Stream(hyper::body::Incoming),
    /// The server offers none (405, or any refusal), for this reason.
    Refused(String),
    /// The server no longer knows the session (404).
    Gone,
    /// It could not be reached; try again later.
    Failed(String),
}

/// Where a reader of a resumable stream stands: the last event id it saw and the server's
/// `retry` hint (capped at 30 s).
pub(super) struct Cursor {
    pub(super) last: Option<String>,
    pub(super) retry: Duration,
}

impl Cursor {
    pub(super) fn new() -> Self {
        Cursor {
            last: None,
            retry: Duration::from_secs(1),
        }
    }

    pub(super) fn saw(&mut self, event: &eventsource_stream::Event) {
        if !event.id.is_empty() {
            self.last = Some(event.id.clone());
        }
        if let Some(r) = event.retry {
            self.retry = r.min(Duration::from_secs(30));
        }
    }
}

impl SessionHttp {
    pub(super) fn request(
        &self,
        method: hyper::Method,
        body: Bytes,
    ) -> Result<hyper::Request<Full<Bytes>>, ClientError> {
        let mut req = message_headers(
            hyper::Request::builder()
                .method(method)
                .uri(super::http::target(&self.url)?),
            &self.version,
        );
        if let Some(s) = &self.session {
            req = req.header("mcp-session-id", s);
        }
        let mut req = req
            .body(Full::new(body))
            .map_err(|e| ClientError::transport(self.url.as_str(), Cause::of(e)))?;
        add_headers(&mut req, &self.headers);
        Ok(req)
    }

    /// GET the session's standalone stream or, after event `last`, the rest of the stream
    /// that event belongs to.
    pub(super) async fn open(&self, last: Option<&str>) -> Opened {
        let mut req = match self.request(hyper::Method::GET, Bytes::new()) {
            Ok(req) => req,
            Err(e) => return Opened::Refused(e.to_string()),
        };
        if let Some(last) = last.and_then(|l| l.parse().ok()) {
            req.headers_mut().insert("last-event-id", last);
        }
        match self.http.request(req).await {
            Ok(resp) if resp.status().is_success() => Opened::Stream(resp.into_body()),
            Ok(resp) if resp.status() == hyper::StatusCode::NOT_FOUND => Opened::Gone,
            Ok(resp) => Opened::Refused(format!("HTTP {}", resp.status())),
            Err(e) => Opened::Failed(format!("{}: {}", self.url, causes(&e))),
        }
    }

    /// A message the server sent on one of the session's streams: its requests are answered
    /// through `handler` and the response POSTed back; anything else goes to `notes`.
    pub(super) async fn deliver(
        &self,
        handler: &Arc<dyn InputHandler>,
        notes: Option<&mpsc::UnboundedSender<Value>>,
        message: Value,
    ) -> Result<(), ClientError> {
        if message.get("method").is_none() || message.get("id").is_none() {
            if let Some(tx) = notes {
                let _ = tx.send(message);
            }
            return Ok(());
        }
        let response = answer_server_request(handler, &message).await;
        let req = self.request(hyper::Method::POST, Bytes::from(response.to_string()))?;
        let resp = self
            .http
            .request(req)
            .await
            .map_err(|e| error::exchange_failed(&self.url, e))?;
        let status = resp.status();
        let _ = resp.into_body().collect().await;
        // The answer reached no one: the session is gone with its instance, and the request
        // the answer was for goes again in a new session.
        if status == hyper::StatusCode::NOT_FOUND {
            return Err(ClientError::SessionEnded {
                target: self.url.clone(),
                session: self.session.clone().unwrap_or_default(),
            });
        }
        Ok(())
    }
}

/// Read a 2025 session's standalone (GET) stream (opened as `first`, or opened here) for as
/// long as the client lives, delivering what the server sends ([`SessionHttp::deliver`]). The
/// stream is reopened after the server's `retry` hint from the last event seen; a server that
/// refuses it is left alone.
pub(super) async fn standalone_stream(
    listener: SessionHttp,
    first: Option<hyper::body::Incoming>,
    handler: Arc<dyn InputHandler>,
    notes: Option<mpsc::UnboundedSender<Value>>,
) {
    let mut cursor = Cursor::new();
    let mut failures = 0u32;
    let mut body = first;
    loop {
        let stream = match body.take() {
            Some(stream) => stream,
            None => match listener.open(cursor.last.as_deref()).await {
                Opened::Stream(stream) => stream,
                Opened::Refused(_) | Opened::Gone => return,
                Opened::Failed(e) => {
                    failures += 1;
                    if failures > MAX_RECONNECTS {
                        tracing::debug!(error = %e, "the standalone stream cannot be reopened");
                        return;
                    }
                    tokio::time::sleep(cursor.retry).await;
                    continue;
                }
            },
        };
        failures = 0;
        let mut events = eventsource_stream::EventStream::new(stream.into_data_stream());
        while let Some(Ok(ev)) = events.next().await {
            cursor.saw(&ev);
            let Ok(message) = crate::wire::from_text::<Value>(&ev.data) else {
                continue;
            };
            if let Err(e) = listener.deliver(&handler, notes.as_ref(), message).await {
                tracing::debug!(error = %e, "a response could not be POSTed to the server");
            }
        }
        tokio::time::sleep(cursor.retry).await;
    }
}

/// A request of a 2025-era HTTP session whose reply has not arrived: if its future is dropped,
/// `notifications/cancelled` for it is POSTed in the session (from a task of its own).
pub(super) struct CancelInSession {
    pub(super) session: SessionHttp,
    /// The request id while the reply is awaited; `None` once it arrived.
    pub(super) id: Option<Value>,
}

impl Drop for CancelInSession {
    fn drop(&mut self) {
        let Some(id) = self.id.take() else { return };
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let cancel = json!({"jsonrpc": "2.0", "method": methods::NOTIFICATIONS_CANCELLED,
                            "params": {"requestId": id, "reason": "the client stopped waiting"}});
        let Ok(req) = self
            .session
            .request(hyper::Method::POST, Bytes::from(cancel.to_string()))
        else {
            return;
        };
        let http = self.session.http.clone();
        runtime.spawn(async move {
            if let Ok(resp) = http.request(req).await {
                let _ = resp.into_body().collect().await;
            }
        });
    }
}
