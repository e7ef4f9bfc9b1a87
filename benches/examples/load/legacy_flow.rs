//! The 2025-era flow a legacy client runs against a server: `initialize`, then
//! `notifications/initialized`, then a `tools/call` whose elicitation arrives as a real
//! `elicitation/create` request on the call's SSE stream and is answered with a POST in the
//! session, the result read from the same stream, and a DELETE that ends the session. Both
//! servers are spoken to the same way; replies are read as JSON or SSE, whichever they send.

use futures_util::StreamExt;
use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use serde_json::{json, Value};

use crate::generator::{answer, read_body, HttpClient};

/// The text the flow's tool must end with.
const EXPECT: &str = "Hello, Ada!";

fn request(
    method: hyper::Method,
    url: &str,
    session: Option<&str>,
    body: Option<&Value>,
) -> Result<hyper::Request<Full<Bytes>>, String> {
    let mut req = hyper::Request::builder()
        .method(method)
        .uri(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2025-11-25");
    if let Some(s) = session {
        req = req.header("mcp-session-id", s);
    }
    let body = body.map(|b| Bytes::from(b.to_string())).unwrap_or_default();
    req.body(Full::new(body)).map_err(|e| e.to_string())
}

/// Send a request and drain its body (for notifications, responses and DELETE).
async fn send_and_drain(
    client: &HttpClient,
    req: hyper::Request<Full<Bytes>>,
) -> Result<(), String> {
    let resp = client
        .request(req)
        .await
        .map_err(|e| format!("send: {e}"))?;
    let status = resp.status();
    read_body(resp).await?;
    if status.is_success() {
        Ok(())
    } else {
        Err(format!("HTTP {status}"))
    }
}

/// Read `resp` until the reply to `id`: JSON as is, or the SSE stream's messages, answering the
/// elicitations it carries on the way (POSTed in `session`). The requests the answers took are
/// added to `requests`.
async fn reply_to(
    client: &HttpClient,
    url: &str,
    session: Option<&str>,
    id: u64,
    resp: hyper::Response<hyper::body::Incoming>,
    requests: &mut u64,
) -> Result<Value, String> {
    let sse = resp
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|c| c.starts_with("text/event-stream"));
    if !sse {
        let bytes = read_body(resp).await?;
        return serde_json::from_slice(&bytes).map_err(|e| format!("reply: {e}"));
    }
    let mut events = eventsource_stream::EventStream::new(resp.into_body().into_data_stream());
    while let Some(event) = events.next().await {
        let event = event.map_err(|e| format!("stream: {e}"))?;
        let Ok(message) = serde_json::from_str::<Value>(&event.data) else {
            continue;
        };
        if message.get("method").and_then(Value::as_str) == Some("elicitation/create") {
            let response = json!({"jsonrpc": "2.0", "id": message["id"],
                                  "result": answer("name", &message)});
            let req = request(hyper::Method::POST, url, session, Some(&response))?;
            send_and_drain(client, req).await?;
            *requests += 1;
        } else if message.get("id") == Some(&json!(id)) && message.get("method").is_none() {
            return Ok(message);
        }
    }
    Err("the stream ended without the reply".into())
}

/// One whole legacy flow; the number of HTTP requests it took.
pub async fn run(client: &HttpClient, url: &str, base: u64) -> Result<u64, String> {
    let mut requests = 0;
    let init = json!({"jsonrpc": "2.0", "id": base, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {"elicitation": {}},
        "clientInfo": {"name": "mcp-load-legacy", "version": "0.1.0"}}});
    let resp = client
        .request(request(hyper::Method::POST, url, None, Some(&init))?)
        .await
        .map_err(|e| format!("send: {e}"))?;
    requests += 1;
    let session = resp
        .headers()
        .get("mcp-session-id")
        .and_then(|v| v.to_str().ok())
        .map(str::to_string)
        .ok_or("initialize set no Mcp-Session-Id")?;
    let session = Some(session.as_str());
    let reply = reply_to(client, url, session, base, resp, &mut requests).await?;
    if reply.pointer("/result/protocolVersion").is_none() {
        return Err(format!("initialize: {reply}"));
    }
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    send_and_drain(
        client,
        request(hyper::Method::POST, url, session, Some(&initialized))?,
    )
    .await?;
    requests += 1;
    let id = base + 1;
    let call = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
        "name": "test_input_required_result_elicitation", "arguments": {}}});
    let resp = client
        .request(request(hyper::Method::POST, url, session, Some(&call))?)
        .await
        .map_err(|e| format!("send: {e}"))?;
    requests += 1;
    let reply = reply_to(client, url, session, id, resp, &mut requests).await?;
    let text = reply
        .pointer("/result/content/0/text")
        .and_then(Value::as_str)
        .unwrap_or_default();
    if text != EXPECT {
        return Err(format!("unexpected reply {reply}"));
    }
    send_and_drain(client, request(hyper::Method::DELETE, url, session, None)?).await?;
    requests += 1;
    Ok(requests)
}
