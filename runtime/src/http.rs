//! Streamable HTTP for 2026-07-28: one endpoint, every message its own POST, answered with
//! `application/json` or, when the handler sends notifications (progress, log messages), a
//! per-request SSE stream ending with the response. No sessions, no GET stream.
//!
//! Checks, in order: `Host`/`Origin` against DNS rebinding (403), body size (413), the
//! `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name` headers against the body (400, -32020),
//! then the server core (`_meta`, routing). Error codes map to HTTP statuses: -32601 is 404;
//! parse, request, params, header, capability and version errors are 400.

use crate::server::{Server, META_LOG_LEVEL, META_PROGRESS_TOKEN, META_VERSION};
use axum::body::Bytes;
use axum::extract::{DefaultBodyLimit, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::sse::{Event, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::Router;
use futures_util::stream::{self, StreamExt};
use serde_json::{json, Value};
use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;

/// Settings of the HTTP transport.
#[derive(Debug, Clone)]
pub struct HttpConfig {
    /// The endpoint path (default `/mcp`).
    pub path: String,
    /// Largest accepted request body in bytes (default 4 MiB).
    pub max_body: usize,
    /// Host names accepted in `Host` and `Origin` (default: localhost, 127.0.0.1, `[::1]`).
    /// Empty means any (for servers behind an authenticating proxy).
    pub allowed_hosts: Vec<String>,
}

impl Default for HttpConfig {
    fn default() -> Self {
        HttpConfig {
            path: "/mcp".into(),
            max_body: 4 * 1024 * 1024,
            allowed_hosts: vec!["localhost".into(), "127.0.0.1".into(), "[::1]".into()],
        }
    }
}

struct App {
    server: Arc<Server>,
    config: HttpConfig,
}

/// An axum router serving `server` at `config.path`, to mount in an existing app or serve.
pub fn router(server: Arc<Server>, config: HttpConfig) -> Router {
    let path = config.path.clone();
    let max_body = config.max_body;
    let app = Arc::new(App { server, config });
    Router::new()
        .route(&path, post(handle).get(not_allowed).delete(not_allowed))
        .layer(DefaultBodyLimit::max(max_body))
        .with_state(app)
}

/// Serve `server` on `addr` until ctrl-c; requests in flight finish first.
pub async fn serve(server: Arc<Server>, addr: &str, config: HttpConfig) -> std::io::Result<()> {
    let listener = tokio::net::TcpListener::bind(addr).await?;
    serve_listener(server, listener, config, async {
        let _ = tokio::signal::ctrl_c().await;
    })
    .await
}

/// Serve on an already bound listener until `shutdown` completes (graceful).
pub async fn serve_listener(
    server: Arc<Server>,
    listener: tokio::net::TcpListener,
    config: HttpConfig,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let addr: Option<SocketAddr> = listener.local_addr().ok();
    tracing::info!(?addr, path = %config.path, "serving MCP over streamable HTTP");
    let app = router(server, config).into_make_service();
    axum::serve(TcpNoDelay(listener), app)
        .with_graceful_shutdown(shutdown)
        .await
}

/// A listener that sets TCP_NODELAY on every connection (small JSON-RPC replies must not wait
/// for Nagle's algorithm).
struct TcpNoDelay(tokio::net::TcpListener);

impl axum::serve::Listener for TcpNoDelay {
    type Io = tokio::net::TcpStream;
    type Addr = SocketAddr;

    async fn accept(&mut self) -> (Self::Io, Self::Addr) {
        loop {
            match self.0.accept().await {
                Ok((io, addr)) => {
                    let _ = io.set_nodelay(true);
                    return (io, addr);
                }
                Err(e) => {
                    tracing::warn!(error = %e, "accept failed");
                    tokio::time::sleep(std::time::Duration::from_millis(10)).await;
                }
            }
        }
    }

    fn local_addr(&self) -> std::io::Result<Self::Addr> {
        self.0.local_addr()
    }
}

async fn not_allowed() -> Response {
    (
        StatusCode::METHOD_NOT_ALLOWED,
        [(header::ALLOW, HeaderValue::from_static("POST"))],
        "this MCP endpoint takes POST only (2026-07-28 has no GET stream)",
    )
        .into_response()
}

fn json_response(status: StatusCode, body: &Value) -> Response {
    (
        status,
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        )],
        body.to_string(),
    )
        .into_response()
}

fn error_body(id: Option<&Value>, code: i64, message: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id.cloned().unwrap_or(Value::Null), "error": {"code": code, "message": message}})
}

/// The HTTP status for a reply.
fn status_for(reply: &Value) -> StatusCode {
    match reply
        .get("error")
        .and_then(|e| e.get("code"))
        .and_then(Value::as_i64)
    {
        Some(-32601) => StatusCode::NOT_FOUND,
        Some(-32700 | -32600 | -32602 | -32020 | -32021 | -32022) => StatusCode::BAD_REQUEST,
        _ => StatusCode::OK,
    }
}

fn host_allowed(value: &str, allowed: &[String]) -> bool {
    if allowed.is_empty() {
        return true;
    }
    let host = if value.starts_with('[') {
        value.split_inclusive(']').next().unwrap_or(value)
    } else {
        value.split(':').next().unwrap_or(value)
    };
    allowed.iter().any(|a| a.eq_ignore_ascii_case(host))
}

fn header_str<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers
        .get(name)
        .and_then(|v| v.to_str().ok())
        .map(str::trim)
}

/// How an `Mcp-Param-*` value wraps text a header cannot carry as it is: Base64 of its UTF-8
/// between these two.
const PARAM_B64: (&str, &str) = ("=?base64?", "?=");

/// The text an argument is compared as in its `Mcp-Param-*` header: a string itself, any other
/// value its JSON.
pub(crate) fn param_text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// The `Mcp-Param-*` header value for `text`: the text itself when it is plain visible ASCII
/// (spaces inside allowed), otherwise wrapped Base64, which also covers text that would read as
/// that form or lose surrounding whitespace in transit. [`decode_param`] reads it back.
pub(crate) fn encode_param(text: &str) -> String {
    use base64::Engine as _;
    let plain = text.bytes().all(|b| b == b' ' || b.is_ascii_graphic())
        && !text.starts_with(' ')
        && !text.ends_with(' ')
        && !text.starts_with(PARAM_B64.0);
    if plain {
        text.to_string()
    } else {
        let encoded = base64::engine::general_purpose::STANDARD.encode(text);
        format!("{}{encoded}{}", PARAM_B64.0, PARAM_B64.1)
    }
}

/// The value of an `Mcp-Param-*` header: `=?base64?...?=` is strict Base64 of UTF-8 text,
/// anything else is literal.
fn decode_param(raw: &str) -> Result<String, String> {
    use base64::Engine as _;
    match raw
        .strip_prefix(PARAM_B64.0)
        .and_then(|r| r.strip_suffix(PARAM_B64.1))
    {
        Some(encoded) => base64::engine::general_purpose::STANDARD
            .decode(encoded)
            .ok()
            .and_then(|b| String::from_utf8(b).ok())
            .ok_or_else(|| "invalid Base64 in Mcp-Param header".to_string()),
        None => Ok(raw.to_string()),
    }
}

/// Check the `Mcp-Param-*` headers of `tool` against its arguments.
fn check_param_headers(server: &Server, headers: &HeaderMap, body: &Value) -> Result<(), String> {
    let params = body.get("params");
    let Some(tool) = params.and_then(|p| p.get("name")).and_then(Value::as_str) else {
        return Ok(());
    };
    let args = params.and_then(|p| p.get("arguments"));
    for (arg, header) in server.header_params(tool) {
        let name = format!("mcp-param-{}", header.to_ascii_lowercase());
        let body_value = args.and_then(|a| a.get(&arg)).map(param_text);
        match (header_str(headers, &name), body_value) {
            (None, Some(_)) => return Err(format!("missing Mcp-Param-{header} header")),
            (Some(raw), Some(b)) => {
                if decode_param(raw)? != b {
                    return Err(format!(
                        "Mcp-Param-{header} header does not match argument `{arg}`"
                    ));
                }
            }
            (Some(_), None) => {
                return Err(format!(
                    "Mcp-Param-{header} header without argument `{arg}`"
                ))
            }
            (None, None) => {}
        }
    }
    Ok(())
}

/// Compare the MCP headers with the body; the mismatch, if any.
fn check_headers(headers: &HeaderMap, body: &Value) -> Result<(), String> {
    let Some(method) = body.get("method").and_then(Value::as_str) else {
        return Ok(());
    };
    let params = body.get("params");
    let version = params
        .and_then(|p| p.get("_meta"))
        .and_then(|m| m.get(META_VERSION))
        .and_then(Value::as_str);
    match (header_str(headers, "mcp-protocol-version"), version) {
        (None, _) => return Err("missing MCP-Protocol-Version header".into()),
        (Some(h), Some(v)) if h != v => {
            return Err(format!(
                "MCP-Protocol-Version header `{h}` does not match _meta `{v}`"
            ))
        }
        _ => {}
    }
    match header_str(headers, "mcp-method") {
        None => return Err("missing Mcp-Method header".into()),
        Some(h) if h != method => {
            return Err(format!(
                "Mcp-Method header `{h}` does not match method `{method}`"
            ))
        }
        _ => {}
    }
    let name_field = match method {
        "tools/call" | "prompts/get" => Some("name"),
        "resources/read" => Some("uri"),
        _ => None,
    };
    if let Some(field) = name_field {
        let body_name = params.and_then(|p| p.get(field)).and_then(Value::as_str);
        match (header_str(headers, "mcp-name"), body_name) {
            (None, Some(_)) => return Err("missing Mcp-Name header".into()),
            (Some(h), Some(b)) if h != b => {
                return Err(format!(
                    "Mcp-Name header `{h}` does not match params.{field} `{b}`"
                ))
            }
            _ => {}
        }
    }
    Ok(())
}

async fn handle(State(app): State<Arc<App>>, headers: HeaderMap, body: Bytes) -> Response {
    for name in [header::HOST, header::ORIGIN] {
        if let Some(v) = headers.get(&name) {
            let text = v.to_str().unwrap_or("");
            let host = text
                .strip_prefix("http://")
                .or_else(|| text.strip_prefix("https://"))
                .unwrap_or(text);
            if !host_allowed(host, &app.config.allowed_hosts) {
                return json_response(
                    StatusCode::FORBIDDEN,
                    &error_body(None, -32600, &format!("{name} not allowed")),
                );
            }
        }
    }
    let value: Value = match serde_json::from_slice(&body) {
        Ok(v) => v,
        Err(e) => {
            return json_response(
                StatusCode::BAD_REQUEST,
                &error_body(None, -32700, &format!("parse error: {e}")),
            )
        }
    };
    if value.get("method").is_some() && value.get("id").is_some() {
        let checked = check_headers(&headers, &value).and_then(|()| {
            if value.get("method").and_then(Value::as_str) == Some("tools/call") {
                check_param_headers(&app.server, &headers, &value)
            } else {
                Ok(())
            }
        });
        if let Err(why) = checked {
            return json_response(
                StatusCode::BAD_REQUEST,
                &error_body(value.get("id"), -32020, &why),
            );
        }
    }
    let is_request = value.get("method").is_some() && value.get("id").is_some();
    let wants_stream = headers
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|a| a.contains("text/event-stream"));
    let meta = value.get("params").and_then(|p| p.get("_meta"));
    let may_notify = meta
        .is_some_and(|m| m.get(META_PROGRESS_TOKEN).is_some() || m.get(META_LOG_LEVEL).is_some());
    let listen = value.get("method").and_then(Value::as_str) == Some("subscriptions/listen");
    if is_request && (listen || (wants_stream && may_notify)) {
        return stream_response(app, value);
    }
    match app.server.handle_value(value, None).await {
        Some(reply) => json_response(status_for(&reply), &reply),
        // Notifications and responses: accepted, nothing to say.
        None => StatusCode::ACCEPTED.into_response(),
    }
}

/// Aborts a spawned task when dropped.
struct AbortOnDrop(tokio::task::JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// Answer on an SSE stream: notifications as they come, then the response, then the end.
fn stream_response(app: Arc<App>, value: Value) -> Response {
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel::<Value>();
    let server = app.server.clone();
    let (done_tx, done_rx) = tokio::sync::oneshot::channel::<Option<Value>>();
    let task = AbortOnDrop(tokio::spawn(async move {
        let reply = server.handle_value_with(value, None, Some(tx)).await;
        let _ = done_tx.send(reply);
    }));
    let notes = tokio_stream::wrappers::UnboundedReceiverStream::new(rx)
        .map(|v| Ok::<Event, Infallible>(Event::default().event("message").data(v.to_string())));
    // The task lives as long as the stream: a client that closes the stream cancels the call.
    let last = stream::once(async move {
        let _task = task;
        done_rx.await.ok().flatten()
    })
    .filter_map(|reply| async move {
        reply
            .map(|r| Ok::<Event, Infallible>(Event::default().event("message").data(r.to_string())))
    });
    // The notification channel closes when the handler finishes (its sender is dropped with the
    // call), so the reply always comes after every notification.
    Sse::new(notes.chain(last)).into_response()
}

#[cfg(test)]
mod tests {
    use super::*;
    use base64::Engine as _;

    #[test]
    fn header_values_are_plain_only_when_they_survive_a_header_unchanged() {
        for plain in ["eu-west-1", "a b", "", "x=?base64?y"] {
            assert_eq!(encode_param(plain), plain);
        }
        for encoded in [
            "Zürich",
            " lead",
            "trail ",
            "tab\t",
            "line\n",
            "=?base64?ZXU=?=",
        ] {
            let v = encode_param(encoded);
            let inner = v
                .strip_prefix("=?base64?")
                .and_then(|r| r.strip_suffix("?="))
                .unwrap_or_else(|| panic!("{encoded:?} was sent plain: {v}"));
            let decoded = base64::engine::general_purpose::STANDARD
                .decode(inner)
                .unwrap();
            assert_eq!(String::from_utf8(decoded).unwrap(), encoded);
        }
    }
}
