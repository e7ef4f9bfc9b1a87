//! The 2025-era flows a legacy client runs against a server in a session (`Mcp-Session-Id`).
//! The plain session is `initialize`, `notifications/initialized`, one `tools/call` and a
//! `DELETE`. The elicitation session is `initialize`, then `notifications/initialized`, then a
//! `tools/call` whose elicitation arrives as a real `elicitation/create` request on the call's
//! SSE stream and is answered with a POST in the session, the result read from the same stream,
//! and a DELETE that ends the session. The plain flow is one `tools/call` in a session the worker
//! opened before the timed window. Every server is spoken to the same way; replies are read as
//! JSON or SSE, whichever they send.
//!
//! Like the 2026 flows, each worker talks over connections of its own ([`Pair`]: the call's
//! stream stays open on one while the answer goes on the other), writes its requests from fixed
//! parts and reads replies borrowed from their bytes, so the generator's own cost stays small
//! beside the server's.

use std::borrow::Cow;

use futures_util::StreamExt;
use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use hyper::header::{HeaderName, HeaderValue};
use serde::de::IgnoredAny;
use serde::Deserialize;
use serde_json::value::RawValue;

use crate::generator::{
    answer_text, first_text, read_body, Conn, Conns, InputParams, ReplyContent,
};

/// The text the elicitation session's tool must end with.
const EXPECT: &str = "Hello, Ada!";
/// What the plain call's tool answers.
const EXPECT_PLAIN: &str = "This is a simple text response for testing.";

/// The two connections a worker's flow uses: the call's stream on the first, what is sent while
/// it is open (the answer) on the second.
pub struct Pair {
    main: Conn,
    side: Conn,
}

impl Pair {
    /// Two connections from `conns`.
    pub async fn take(conns: &Conns) -> Result<Pair, String> {
        Ok(Pair {
            main: conns.take().await?,
            side: conns.take().await?,
        })
    }

    /// Gives both connections back.
    pub fn give(self, conns: &Conns) {
        conns.give(self.main);
        conns.give(self.side);
    }
}

/// A message as the generator reads it: borrowed from its bytes, everything else skipped.
#[derive(Deserialize)]
struct Message<'a> {
    #[serde(borrow)]
    id: Option<&'a RawValue>,
    #[serde(borrow)]
    method: Option<Cow<'a, str>>,
    #[serde(borrow)]
    params: Option<InputParams<'a>>,
    #[serde(borrow)]
    result: Option<MessageResult<'a>>,
    error: Option<IgnoredAny>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct MessageResult<'a> {
    #[serde(borrow)]
    protocol_version: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    content: Vec<ReplyContent<'a>>,
}

/// What the reply to a request said: the negotiated version (of `initialize`), the first text.
struct Replied {
    version: Option<String>,
    text: Option<String>,
}

impl Replied {
    fn of(message: &Message<'_>, raw: &[u8]) -> Result<Replied, String> {
        if message.error.is_some() {
            return Err(format!("error reply: {}", String::from_utf8_lossy(raw)));
        }
        let result = message
            .result
            .as_ref()
            .ok_or_else(|| format!("no result: {}", String::from_utf8_lossy(raw)))?;
        Ok(Replied {
            version: result.protocol_version.as_deref().map(str::to_string),
            text: first_text(&result.content).map(str::to_string),
        })
    }
}

static JSON: HeaderValue = HeaderValue::from_static("application/json");
static ACCEPT: HeaderValue = HeaderValue::from_static("application/json, text/event-stream");
static VERSION: HeaderValue = HeaderValue::from_static("2025-11-25");
static SESSION: HeaderName = HeaderName::from_static("mcp-session-id");
static PROTOCOL: HeaderName = HeaderName::from_static("mcp-protocol-version");

/// A request of the flow: the headers a 2025 client sends, the session's when it has one.
fn request(
    conns: &Conns,
    method: hyper::Method,
    session: Option<&HeaderValue>,
    body: String,
) -> Result<hyper::Request<Full<Bytes>>, String> {
    let mut req = conns
        .request(method)
        .header(hyper::header::CONTENT_TYPE, JSON.clone())
        .header(hyper::header::ACCEPT, ACCEPT.clone())
        .header(PROTOCOL.clone(), VERSION.clone());
    if let Some(s) = session {
        req = req.header(SESSION.clone(), s.clone());
    }
    req.body(Full::new(Bytes::from(body)))
        .map_err(|e| e.to_string())
}

/// Send a request and drain its body (notifications, responses, DELETE).
async fn send_and_drain(
    conns: &Conns,
    conn: &mut Conn,
    req: hyper::Request<Full<Bytes>>,
) -> Result<(), String> {
    let resp = conns.send(conn, req).await?;
    let status = resp.status();
    read_body(resp).await?;
    if status.is_success() {
        Ok(())
    } else {
        Err(format!("HTTP {status}"))
    }
}

/// Read `resp` until the reply to `id`: JSON as is, or the SSE stream's messages, answering the
/// elicitations it carries on the way (POSTed in `session` on the side connection). The
/// requests the answers took are added to `requests`.
async fn reply_to(
    conns: &Conns,
    side: &mut Conn,
    session: Option<&HeaderValue>,
    id: u64,
    resp: hyper::Response<hyper::body::Incoming>,
    requests: &mut u64,
) -> Result<Replied, String> {
    let status = resp.status();
    let sse = resp
        .headers()
        .get(hyper::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|c| c.starts_with("text/event-stream"));
    if !sse {
        let bytes = read_body(resp).await?;
        if !status.is_success() {
            return Err(format!(
                "HTTP {status}: {}",
                String::from_utf8_lossy(&bytes)
            ));
        }
        let message: Message<'_> =
            serde_json::from_slice(&bytes).map_err(|e| format!("reply: {e}"))?;
        return Replied::of(&message, &bytes);
    }
    let id_text = id.to_string();
    let mut events = eventsource_stream::EventStream::new(resp.into_body().into_data_stream());
    while let Some(event) = events.next().await {
        let event = event.map_err(|e| format!("stream: {e}"))?;
        let Ok(message) = serde_json::from_str::<Message<'_>>(&event.data) else {
            continue;
        };
        match (&message.method, message.id) {
            (Some(method), Some(ask)) if method == "elicitation/create" => {
                let fields = message
                    .params
                    .as_ref()
                    .map(InputParams::fields)
                    .unwrap_or_default();
                let answer = answer_text("name", fields)?;
                let body = format!(
                    r#"{{"jsonrpc":"2.0","id":{},"result":{answer}}}"#,
                    ask.get()
                );
                let req = request(conns, hyper::Method::POST, session, body)?;
                send_and_drain(conns, side, req).await?;
                *requests += 1;
            }
            (None, Some(replied)) if replied.get() == id_text => {
                return Replied::of(&message, event.data.as_bytes());
            }
            _ => {}
        }
    }
    Err("the stream ended without the reply".into())
}

/// Open a session on `pair`: `initialize`, then `notifications/initialized`; the session id.
pub async fn open(conns: &Conns, pair: &mut Pair, id: u64) -> Result<HeaderValue, String> {
    let init = format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"initialize","params":{{"protocolVersion":"2025-11-25","capabilities":{{"elicitation":{{}}}},"clientInfo":{{"name":"mcp-load-legacy","version":"0.1.0"}}}}}}"#
    );
    let req = request(conns, hyper::Method::POST, None, init)?;
    let resp = conns.send(&mut pair.main, req).await?;
    let session = resp
        .headers()
        .get(&SESSION)
        .cloned()
        .ok_or("initialize set no Mcp-Session-Id")?;
    let mut asked = 0;
    let reply = reply_to(conns, &mut pair.side, Some(&session), id, resp, &mut asked).await?;
    if reply.version.is_none() {
        return Err("initialize: no protocolVersion".into());
    }
    let initialized = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.to_string();
    let req = request(conns, hyper::Method::POST, Some(&session), initialized)?;
    send_and_drain(conns, &mut pair.main, req).await?;
    Ok(session)
}

/// End `session` with a DELETE.
pub async fn close(conns: &Conns, pair: &mut Pair, session: &HeaderValue) -> Result<(), String> {
    let req = request(conns, hyper::Method::DELETE, Some(session), String::new())?;
    send_and_drain(conns, &mut pair.main, req).await
}

/// One `tools/call` of `tool` in `session`, answering what it asks on the way; the reply's
/// first text and the number of HTTP requests it took.
async fn call(
    conns: &Conns,
    pair: &mut Pair,
    session: &HeaderValue,
    id: u64,
    tool: &str,
) -> Result<(String, u64), String> {
    let body = format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"{tool}","arguments":{{}}}}}}"#
    );
    let req = request(conns, hyper::Method::POST, Some(session), body)?;
    let resp = conns.send(&mut pair.main, req).await?;
    let mut requests = 1;
    let reply = reply_to(
        conns,
        &mut pair.side,
        Some(session),
        id,
        resp,
        &mut requests,
    )
    .await?;
    let text = reply.text.ok_or("a result without text")?;
    Ok((text, requests))
}

/// The plain flow: one `tools/call` of `test_simple_text` in an open session; the number of
/// HTTP requests it took (one).
pub async fn plain(
    conns: &Conns,
    pair: &mut Pair,
    session: &HeaderValue,
    id: u64,
) -> Result<u64, String> {
    let (text, requests) = call(conns, pair, session, id, "test_simple_text").await?;
    if text != EXPECT_PLAIN {
        return Err(format!("unexpected text {text:?}"));
    }
    Ok(requests)
}

/// One whole session with one plain call: `initialize`, `notifications/initialized`, a
/// `tools/call` of `test_simple_text`, `DELETE`; the number of HTTP requests it took (four).
pub async fn run_plain(conns: &Conns, pair: &mut Pair, base: u64) -> Result<u64, String> {
    let session = open(conns, pair, base).await?;
    let requests = plain(conns, pair, &session, base + 1).await?;
    close(conns, pair, &session).await?;
    Ok(requests + 3)
}

/// One whole session with one elicitation: `initialize`, `notifications/initialized`, a
/// `tools/call` whose elicitation is answered on the way, `DELETE`; the number of HTTP requests
/// it took.
pub async fn run(conns: &Conns, pair: &mut Pair, base: u64) -> Result<u64, String> {
    let session = open(conns, pair, base).await?;
    let (text, requests) = call(
        conns,
        pair,
        &session,
        base + 1,
        "test_input_required_result_elicitation",
    )
    .await?;
    if text != EXPECT {
        return Err(format!("unexpected text {text:?}"));
    }
    close(conns, pair, &session).await?;
    // initialize, initialized, the call and its answers, DELETE.
    Ok(requests + 3)
}
