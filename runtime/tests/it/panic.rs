//! A handler that panics still gets its request answered, with -32603 and the request's id, on
//! every transport, and the server keeps serving.

use crate::common;

use common::{call, send};
use oxmcp::prelude::*;
use oxmcp::request_state::KeyRing;
use serde_json::{json, Value};
use std::sync::Arc;

/// Panics, after an await so the panic happens in a later poll.
#[mcp_tool]
async fn boom() -> String {
    tokio::task::yield_now().await;
    panic!("the handler's own bug");
}

/// Reports progress, then panics: the reply must end the stream the progress opened.
#[mcp_tool]
async fn boom_after_progress() -> String {
    oxmcp::progress(0.5, Some(1.0), Some("halfway"));
    tokio::task::yield_now().await;
    panic!("the handler's own bug, mid-stream");
}

/// Answers.
#[mcp_tool]
async fn fine() -> String {
    "fine".into()
}

fn server() -> Server {
    Server::builder()
        .request_state_keys(KeyRing::parse(&format!("1:{}", "12".repeat(32))).unwrap())
        .tool(boom)
        .tool(boom_after_progress)
        .tool(fine)
        .build()
        .unwrap()
}

fn assert_internal(reply: &Value, id: i64) {
    assert_eq!(reply["id"], json!(id), "{reply}");
    assert_eq!(reply["error"]["code"], -32603, "{reply}");
}

#[tokio::test]
async fn in_process_a_panic_is_an_internal_error() {
    let s = server();
    let r = send(&s, 7, "tools/call", call("boom", json!({}), json!({}))).await;
    assert_internal(&r, 7);
    let ok = send(&s, 8, "tools/call", call("fine", json!({}), json!({}))).await;
    assert_eq!(ok["result"]["content"][0]["text"], "fine");
}

#[tokio::test]
async fn over_http_json_and_sse_a_panic_is_answered() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    tokio::spawn(oxmcp::http::serve_listener(
        Arc::new(server()),
        listener,
        Default::default(),
        std::future::pending(),
    ));
    let headers = [
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", "tools/call"),
        ("mcp-name", "boom"),
        ("accept", "application/json, text/event-stream"),
    ];
    let body = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                      "params": call("boom", json!({}), json!({}))});
    let (_, _, reply) =
        mcp_tests::support::post(&url, body.to_string().into_bytes(), &headers).await;
    assert_internal(&reply, 3);

    // After a progress notification the reply travels on an SSE stream: it must still end it.
    let mut params = call("boom_after_progress", json!({}), json!({}));
    params["_meta"]["progressToken"] = json!("p1");
    let body = json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": params});
    let mut headers = headers.to_vec();
    headers[2] = ("mcp-name", "boom_after_progress");
    let (status, headers_back, text) = post_text(&url, body.to_string(), &headers).await;
    assert_eq!(status, 200);
    assert!(
        headers_back.contains("text/event-stream"),
        "an SSE stream: {headers_back}"
    );
    let last = text
        .lines()
        .filter_map(|l| l.strip_prefix("data:"))
        .next_back()
        .map(|d| serde_json::from_str::<Value>(d.trim()).unwrap())
        .expect("the stream carries the reply");
    assert_internal(&last, 4);
    assert!(text.contains("halfway"), "the progress came first: {text}");
}

/// POST and read the body as text: status, content type, body.
async fn post_text(url: &str, body: String, headers: &[(&str, &str)]) -> (u16, String, String) {
    let (status, response_headers, bytes) =
        mcp_tests::support::post_raw(url, body.into_bytes(), headers).await;
    let kind = response_headers
        .into_iter()
        .find(|(k, _)| k == "content-type")
        .map(|(_, v)| v)
        .unwrap_or_default();
    (status, kind, String::from_utf8_lossy(&bytes).into_owned())
}

#[tokio::test]
async fn over_stdio_a_panic_is_answered_and_the_server_keeps_serving() {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
    let (client_end, server_end) = tokio::io::duplex(64 * 1024);
    let (read, write) = tokio::io::split(server_end);
    let serving = tokio::spawn(oxmcp::stdio::serve_io(Arc::new(server()), read, write));
    let (client_read, mut client_write) = tokio::io::split(client_end);
    let mut lines = BufReader::new(client_read).lines();
    for (id, tool) in [(1, "boom"), (2, "fine")] {
        let msg = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                         "params": call(tool, json!({}), json!({}))});
        client_write
            .write_all(format!("{msg}\n").as_bytes())
            .await
            .unwrap();
        let line = lines.next_line().await.unwrap().expect("a reply line");
        let reply: Value = serde_json::from_str(&line).unwrap();
        if tool == "boom" {
            assert_internal(&reply, id);
        } else {
            assert_eq!(reply["result"]["content"][0]["text"], "fine", "{reply}");
        }
    }
    client_write.shutdown().await.unwrap();
    serving.await.unwrap().unwrap();
}
