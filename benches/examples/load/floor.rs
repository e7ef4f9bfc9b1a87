//! The floors: an HTTP server that answers every flow the load generator runs with canned bytes
//! and no MCP work at all (no JSON parsed, no state sealed, no handler run). What the generator,
//! the HTTP stack and the kernel cost per flow is what no server can go below, so each flow's
//! floor bounds what any server can reach on it.
//!
//! It tells the flows apart by a few byte searches in the body and headers, the least a server
//! must do to answer differently:
//! - 2026-07-28: the plain call is answered with its result; a multi-round call's first request
//!   with `input_required` (a form and a `requestState` of the size this project's server
//!   seals), its retry by the round its state names: the next form or the result.
//! - 2025 sessions: `initialize` gets a result of the size this project's server sends and a new
//!   `Mcp-Session-Id`; `notifications/initialized` 202; the plain call its result as JSON; the
//!   elicitation call an SSE stream carrying `elicitation/create`, then, once the answer is
//!   POSTed in the session (202), the result; `DELETE` 200.

use axum::body::{Body, Bytes};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// The plain call's result, as every server writes it.
const RESULT: &str = r#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[{"type":"text","text":"This is a simple text response for testing."}]}}"#;

/// Characters of the sealed `requestState` this project's server sends after the first round
/// of these flows (an empty journal) and after the second (one answer in it), base64url.
const STATE_LEN: [usize; 2] = [90, 154];

/// The canned replies, made once.
struct Canned {
    /// `input_required` asking for a name (the first round of both multi-round flows).
    ask_name: Bytes,
    /// `input_required` asking for a colour (the second round of the three-request flow).
    ask_color: Bytes,
    /// The elicitation flow's result.
    hello: Bytes,
    /// The three-request flow's result.
    likes: Bytes,
    /// The 2025 `initialize` result, its id written in.
    initialize: (String, String),
}

fn canned() -> Canned {
    let state = |round: char| {
        let len = STATE_LEN[usize::from(round == '2')];
        format!("{round}{}", "A".repeat(len - 1))
    };
    let ask = |key: &str, message: &str, field: &str, round: char| {
        format!(
            r#"{{"jsonrpc":"2.0","id":1,"result":{{"resultType":"input_required","inputRequests":{{"{key}":{{"method":"elicitation/create","params":{{"mode":"form","message":"{message}","requestedSchema":{{"type":"object","properties":{{"{field}":{{"type":"string","title":"{field}"}}}},"required":["{field}"]}}}}}}}},"requestState":"{}"}}}}"#,
            state(round)
        )
    };
    Canned {
        ask_name: Bytes::from(ask("user_name", "What is your name?", "name", '1')),
        ask_color: Bytes::from(ask("step2", "Step 2: What is your favorite color?", "color", '2')),
        hello: Bytes::from_static(br#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[{"type":"text","text":"Hello, Ada!"}]}}"#),
        likes: Bytes::from_static(br#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[{"type":"text","text":"Ada likes blue"}]}}"#),
        initialize: (
            r#"{"jsonrpc":"2.0","id":"#.to_string(),
            r#","result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{"listChanged":true},"prompts":{"listChanged":true},"resources":{"subscribe":true,"listChanged":true},"completions":{},"logging":{}},"serverInfo":{"name":"mcp-bench","version":"0.1.0"}}}"#.to_string(),
        ),
    }
}

/// The floor's state: the canned replies, the next session id, and the elicitation calls
/// waiting for their answer, by session.
struct Floor {
    canned: Canned,
    next_session: AtomicU64,
    waiting: Mutex<HashMap<u64, tokio::sync::oneshot::Sender<()>>>,
}

fn has(body: &[u8], needle: &str) -> bool {
    body.windows(needle.len()).any(|w| w == needle.as_bytes())
}

/// The JSON-RPC id of a request, as written (a number, at most 20 digits).
fn id_of(body: &[u8]) -> &str {
    let Some(at) = body.windows(5).position(|w| w == b"\"id\":") else {
        return "null";
    };
    let rest = &body[at + 5..];
    let end = rest
        .iter()
        .position(|b| !b.is_ascii_digit())
        .unwrap_or(rest.len())
        .min(20);
    std::str::from_utf8(&rest[..end])
        .ok()
        .filter(|s| !s.is_empty())
        .unwrap_or("null")
}

fn json(body: impl Into<Body>) -> Response {
    ([(header::CONTENT_TYPE, "application/json")], body.into()).into_response()
}

fn session_of(headers: &HeaderMap) -> Option<u64> {
    headers
        .get("mcp-session-id")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse().ok())
}

async fn post(
    axum::extract::State(floor): axum::extract::State<Arc<Floor>>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let c = &floor.canned;
    let Some(session) = session_of(&headers) else {
        if has(&body, "\"initialize\"") {
            let id = floor.next_session.fetch_add(1, Ordering::Relaxed);
            let text = format!("{}{}{}", c.initialize.0, id_of(&body), c.initialize.1);
            let mut r = json(text);
            r.headers_mut()
                .insert("mcp-session-id", HeaderValue::from(id));
            return r;
        }
        // 2026-07-28: one request, told apart by its tool and its state's round.
        if has(&body, "test_simple_text") {
            return json(RESULT);
        }
        let elicitation = has(&body, "test_input_required_result_elicitation");
        let reply = if has(&body, "\"requestState\":\"2") {
            c.likes.clone()
        } else if !has(&body, "\"requestState\":\"1") {
            c.ask_name.clone()
        } else if elicitation {
            c.hello.clone()
        } else {
            c.ask_color.clone()
        };
        return json(reply);
    };
    if has(&body, "notifications/initialized") {
        return StatusCode::ACCEPTED.into_response();
    }
    if !has(&body, "\"method\"") {
        // The answer to the elicitation: the call waiting in this session goes on.
        if let Some(waiting) = floor.waiting.lock().unwrap().remove(&session) {
            let _ = waiting.send(());
        }
        return StatusCode::ACCEPTED.into_response();
    }
    let id = id_of(&body).to_string();
    if has(&body, "test_simple_text") {
        return json(RESULT.replacen("\"id\":1", &format!("\"id\":{id}"), 1));
    }
    // The elicitation call: its stream asks, then answers once the answer arrived.
    let (tx, rx) = tokio::sync::oneshot::channel();
    floor.waiting.lock().unwrap().insert(session, tx);
    let ask = Bytes::from_static(b"event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"elicitation/create\",\"params\":{\"mode\":\"form\",\"message\":\"What is your name?\",\"requestedSchema\":{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\",\"title\":\"name\"}},\"required\":[\"name\"]}}}\n\n");
    let done = Bytes::from(format!(
        "event: message\ndata: {{\"jsonrpc\":\"2.0\",\"id\":{id},\"result\":{{\"content\":[{{\"type\":\"text\",\"text\":\"Hello, Ada!\"}}]}}}}\n\n"
    ));
    let stream = async_stream(ask, rx, done);
    (
        [(header::CONTENT_TYPE, "text/event-stream")],
        Body::from_stream(stream),
    )
        .into_response()
}

/// The elicitation call's stream: the ask, then (once answered) the result.
fn async_stream(
    ask: Bytes,
    answered: tokio::sync::oneshot::Receiver<()>,
    done: Bytes,
) -> impl futures_util::Stream<Item = Result<Bytes, std::io::Error>> {
    use futures_util::StreamExt;
    futures_util::stream::once(async move { Ok(ask) }).chain(futures_util::stream::once(
        async move {
            answered
                .await
                .map_err(|_| std::io::Error::other("the session ended unanswered"))?;
            Ok(done)
        },
    ))
}

async fn delete() -> StatusCode {
    StatusCode::OK
}

/// An OTLP/HTTP sink for `load otel`: every export is answered 200 and dropped.
pub async fn serve_sink(listener: tokio::net::TcpListener) -> std::io::Result<()> {
    axum::serve(
        listener,
        axum::Router::new().fallback(|| async { axum::http::StatusCode::OK }),
    )
    .await
}

/// Serves the floors on `listener` until the process ends.
pub async fn serve(listener: tokio::net::TcpListener) -> std::io::Result<()> {
    use axum::serve::ListenerExt;
    let listener = listener.tap_io(|tcp| {
        let _ = tcp.set_nodelay(true);
    });
    let floor = Arc::new(Floor {
        canned: canned(),
        next_session: AtomicU64::new(1),
        waiting: Mutex::default(),
    });
    axum::serve(
        listener,
        axum::Router::new()
            .route("/mcp", axum::routing::post(post).delete(delete))
            .with_state(floor),
    )
    .await
}
