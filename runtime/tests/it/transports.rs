//! The server over streamable HTTP and stdio, driven by the project's client and by raw
//! messages: multi-round MRTR over both transports, bad input that must not take the server
//! down, listen streams, cancellation, pagination.

use mcp_tests::support::{answering_client, text, RING_OLD};
use oxmcp::client::{Client, ClientError};
use oxmcp::http::{serve_listener, HttpConfig};
use oxmcp::{request_state::KeyRing, Server};
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::Duration;

/// Start the fixture server in-process on an ephemeral loopback port.
async fn start_http() -> (String, tokio::sync::oneshot::Sender<()>) {
    let server = mcp_tests::conformance::server(Server::builder())
        .request_state_keys(KeyRing::parse(RING_OLD).unwrap())
        .build()
        .unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(serve_listener(
        Arc::new(server),
        listener,
        HttpConfig::default(),
        async {
            let _ = rx.await;
        },
    ));
    (format!("http://{addr}/mcp"), tx)
}

#[tokio::test]
async fn client_completes_multi_round_flows_over_http() {
    let (url, stop) = start_http().await;
    let client = answering_client(Client::http(&url));
    let r = client
        .call_tool("test_input_required_result_multi_round", json!({}))
        .await
        .unwrap();
    assert_eq!(text(&r), "Ada likes teal");
    let r = client
        .call_tool("test_input_required_result_multiple_inputs", json!({}))
        .await
        .unwrap();
    assert_eq!(text(&r), "Paris Ada (1 roots)");
    let p = client
        .get_prompt("test_input_required_result_prompt", json!({}))
        .await
        .unwrap();
    assert_eq!(p.messages.len(), 1);
    // Parallel calls keep their rounds apart.
    let (a, b) = tokio::join!(
        client.call_tool("test_input_required_result_multi_round", json!({})),
        client.call_tool("test_input_required_result_elicitation", json!({})),
    );
    assert_eq!(text(&a.unwrap()), "Ada likes teal");
    assert_eq!(text(&b.unwrap()), "Hello, Ada!");
    // A round limit stops a flow that keeps asking.
    let limited = answering_client(Client::http(&url)).max_rounds(2);
    let err = limited
        .call_tool("test_input_required_result_multi_round", json!({}))
        .await
        .unwrap_err();
    assert!(
        matches!(err, ClientError::TooManyRounds { rounds: 2 }),
        "{err:?}"
    );
    // Without capabilities the server answers -32021 for a tool that needs sampling.
    let bare = Client::http(&url);
    match bare.call_tool("test_missing_capability", json!({})).await {
        Err(ClientError::Rpc(e)) => assert_eq!(e.code, -32021),
        other => panic!("{other:?}"),
    }
    // Progress arrives on the response stream.
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let watching = Client::http(&url).notifications(tx);
    let r = watching
        .request("tools/call", json!({"name": "test_tool_with_progress", "arguments": {}, "_meta": {"progressToken": "p1"}}))
        .await
        .unwrap();
    assert_eq!(r["content"][0]["text"], "Progress reported");
    let mut seen = 0;
    while let Ok(n) = rx.try_recv() {
        assert_eq!(n["method"], "notifications/progress");
        seen += 1;
    }
    assert_eq!(seen, 3);
    let _ = stop.send(());
}

#[tokio::test]
async fn client_mirrors_header_arguments_it_learns_from_tools_list() {
    let (url, _stop) = start_http().await;
    // Never listed: the first call is refused for the missing `Mcp-Param-Region` header, so the
    // client lists the tools, learns the header, and calls again.
    let client = Client::http(&url);
    let r = client
        .call_tool("test_custom_header", json!({"region": "eu-west-1"}))
        .await
        .unwrap();
    assert_eq!(text(&r), "Region: eu-west-1");
    // Values a header cannot carry as they are travel Base64-encoded, and arrive unchanged.
    for region in [
        "Zürich",
        " padded ",
        "=?base64?ZXU=?=",
        "tab\there",
        "",
        "a b",
    ] {
        let r = client
            .call_tool("test_custom_header", json!({"region": region}))
            .await
            .unwrap();
        assert_eq!(text(&r), format!("Region: {region}"), "{region:?}");
    }
    // A client that listed first sends the header from its first request on.
    let listed = Client::http(&url);
    listed.list_tools().await.unwrap();
    let r = listed
        .call_tool("test_custom_header", json!({"region": "ap-south"}))
        .await
        .unwrap();
    assert_eq!(text(&r), "Region: ap-south");
}

async fn post(url: &str, body: Vec<u8>, headers: &[(&str, &str)]) -> (u16, Value) {
    let (status, _, body) = mcp_tests::support::post(url, body, headers).await;
    (status, body)
}

fn meta() -> Value {
    json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}})
}

fn std_headers(method: &'static str) -> Vec<(&'static str, &'static str)> {
    vec![
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", method),
        ("accept", "application/json, text/event-stream"),
    ]
}

#[tokio::test]
async fn bad_input_gets_the_spec_error_and_the_server_keeps_serving() {
    let (url, stop) = start_http().await;
    let list =
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": meta()}})
            .to_string();
    let healthy = || async {
        let (s, b) = post(&url, list.clone().into_bytes(), &std_headers("tools/list")).await;
        assert_eq!(s, 200, "{b}");
        assert!(b["result"]["tools"].is_array());
    };
    healthy().await;

    let (s, b) = post(&url, b"{not json".to_vec(), &std_headers("tools/list")).await;
    assert_eq!((s, b["error"]["code"].as_i64()), (400, Some(-32700)));
    healthy().await;

    let batch = format!("[{list}]");
    let (s, b) = post(&url, batch.into_bytes(), &std_headers("tools/list")).await;
    assert_eq!((s, b["error"]["code"].as_i64()), (400, Some(-32600)), "{b}");
    healthy().await;

    // Without a version header a message is 2025-03-26's, whose responses and notifications
    // belong to a session: without one they are refused, not dropped unseen. A 2026 one is
    // accepted (and a response ignored: no 2026 server asks anything).
    let response = json!({"jsonrpc": "2.0", "id": 5, "result": {}}).to_string();
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string();
    for body in [&response, &initialized] {
        let (s, b) = post(&url, body.clone().into_bytes(), &[]).await;
        assert_eq!(s, 400, "{body}: {b}");
        assert!(
            b["error"]["message"]
                .as_str()
                .is_some_and(|m| m.contains("initialize first")),
            "{b}"
        );
        let (s, _) = post(
            &url,
            body.clone().into_bytes(),
            &[("mcp-protocol-version", "2026-07-28")],
        )
        .await;
        assert_eq!(s, 202, "{body} at 2026-07-28");
    }
    healthy().await;

    // A notification is accepted at 2026-07-28; at a version no era has it is refused.
    let note = json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                      "params": {"requestId": 1}})
    .to_string();
    for (version, status) in [("2026-07-28", 202), ("1999-01-01", 400)] {
        let headers = [("mcp-protocol-version", version)];
        let (s, b) = post(&url, note.clone().into_bytes(), &headers).await;
        assert_eq!(s, status, "{version}: {b}");
        if status == 400 {
            assert_eq!(b["error"]["code"], -32022, "{b}");
            assert_eq!(b["error"]["data"]["requested"], version, "{b}");
        }
    }
    healthy().await;

    let mut big = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "test_simple_text", "arguments": {"pad": ""}, "_meta": meta()}});
    big["params"]["arguments"]["pad"] = json!("x".repeat(10 * 1024 * 1024));
    let (s, _) = post(
        &url,
        big.to_string().into_bytes(),
        &std_headers("tools/call"),
    )
    .await;
    assert_eq!(s, 413, "a 10 MB body is refused");
    healthy().await;

    for state in [
        json!("A".repeat(300_000)),
        json!("garbage!"),
        json!({"not": "a string"}),
    ] {
        let msg = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {
            "name": "test_input_required_result_elicitation", "arguments": {},
            "inputResponses": {"user_name": {"action": "accept", "content": {"name": "X"}}},
            "requestState": state, "_meta": meta()}});
        let mut h = std_headers("tools/call");
        h.push(("mcp-name", "test_input_required_result_elicitation"));
        let (s, b) = post(&url, msg.to_string().into_bytes(), &h).await;
        assert_eq!(
            (s, b["error"]["code"].as_i64(), b["id"].as_i64()),
            (400, Some(-32602), Some(7)),
            "{b}"
        );
        healthy().await;
    }

    let (s, b) = post(
        &url,
        list.clone().into_bytes(),
        &[
            ("mcp-protocol-version", "2026-07-28"),
            ("mcp-method", "prompts/list"),
        ],
    )
    .await;
    assert_eq!((s, b["error"]["code"].as_i64()), (400, Some(-32020)));
    let (s, b) = post(
        &url,
        list.clone().into_bytes(),
        &[("mcp-method", "tools/list")],
    )
    .await;
    assert_eq!((s, b["error"]["code"].as_i64()), (400, Some(-32020)));
    let (s, _) = post(
        &url,
        list.clone().into_bytes(),
        &[
            ("mcp-protocol-version", "2026-07-28"),
            ("mcp-method", "tools/list"),
            ("origin", "http://evil.example.com"),
        ],
    )
    .await;
    assert_eq!(s, 403);
    healthy().await;

    let no_meta =
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list", "params": {}}).to_string();
    let (s, b) = post(&url, no_meta.into_bytes(), &std_headers("tools/list")).await;
    assert_eq!((s, b["error"]["code"].as_i64()), (400, Some(-32602)));
    let unknown =
        json!({"jsonrpc": "2.0", "id": 4, "method": "initialize", "params": {"_meta": meta()}})
            .to_string();
    let (s, b) = post(&url, unknown.into_bytes(), &std_headers("initialize")).await;
    assert_eq!((s, b["error"]["code"].as_i64()), (404, Some(-32601)));
    healthy().await;
    let _ = stop.send(());
}

#[tokio::test]
async fn lists_are_paginated_with_opaque_cursors() {
    let server = mcp_tests::conformance::server(Server::builder())
        .page_size(5)
        .build()
        .unwrap();
    let mut names = Vec::new();
    let mut cursor: Option<Value> = None;
    let mut pages = 0;
    loop {
        let mut params = json!({"_meta": meta()});
        if let Some(c) = &cursor {
            params["cursor"] = c.clone();
        }
        let msg = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": params});
        let r = server
            .handle_message(&msg.to_string(), None)
            .await
            .unwrap()
            .to_value();
        let tools = r["result"]["tools"].as_array().unwrap();
        assert!(tools.len() <= 5);
        names.extend(
            tools
                .iter()
                .map(|t| t["name"].as_str().unwrap().to_string()),
        );
        pages += 1;
        match r["result"].get("nextCursor") {
            Some(c) => cursor = Some(c.clone()),
            None => break,
        }
    }
    assert_eq!(names, server.tool_names(), "every tool once, in order");
    assert!(pages > 2);
    let msg = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {"_meta": meta(), "cursor": "bogus"}});
    let r = server
        .handle_message(&msg.to_string(), None)
        .await
        .unwrap()
        .to_value();
    assert_eq!(r["error"]["code"], -32602);
}

/// Serve `server` over an in-memory stdio pipe that takes lines up to `max_line` bytes: the
/// serving task, and the client's read and write ends.
#[allow(clippy::type_complexity)]
fn serve_in_memory(
    server: Arc<Server>,
    max_line: usize,
) -> (
    tokio::task::JoinHandle<std::io::Result<()>>,
    (
        tokio::io::ReadHalf<tokio::io::DuplexStream>,
        tokio::io::WriteHalf<tokio::io::DuplexStream>,
    ),
) {
    let (client_end, server_end) = tokio::io::duplex(64 * 1024);
    let (server_read, server_write) = tokio::io::split(server_end);
    let serving = tokio::spawn(oxmcp::stdio::serve_io_with_limit(
        server,
        server_read,
        server_write,
        max_line,
    ));
    (serving, tokio::io::split(client_end))
}

#[tokio::test]
async fn stdio_is_concurrent_cancellable_and_ends_on_eof() {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
    let server = Arc::new(
        mcp_tests::conformance::server(Server::builder())
            .build()
            .unwrap(),
    );
    let (serving, (client_read, mut client_write)) =
        serve_in_memory(server, oxmcp::stdio::DEFAULT_MAX_LINE);
    let mut lines = BufReader::new(client_read).lines();
    let m = meta();
    // A slow call (progress tool sleeps ~100 ms), then a fast one: the fast one answers first.
    let slow = json!({"jsonrpc": "2.0", "id": "slow", "method": "tools/call", "params": {"name": "test_tool_with_progress", "arguments": {}, "_meta": m}});
    let fast =
        json!({"jsonrpc": "2.0", "id": "fast", "method": "tools/list", "params": {"_meta": m}});
    let listen = json!({"jsonrpc": "2.0", "id": "sub", "method": "subscriptions/listen", "params": {"_meta": m, "notifications": {"toolsListChanged": true}}});
    for msg in [&slow, &fast, &listen] {
        client_write
            .write_all(format!("{msg}\n").as_bytes())
            .await
            .unwrap();
    }
    client_write.write_all(b"not json\n").await.unwrap();
    let mut seen = Vec::new();
    while seen.len() < 4 {
        let line = lines.next_line().await.unwrap().unwrap();
        let v: Value = serde_json::from_str(&line).expect("every stdout line is one JSON message");
        seen.push(v);
    }
    let ids: Vec<String> = seen
        .iter()
        .map(|v| {
            v.get("id")
                .map(|i| i.to_string())
                .unwrap_or_else(|| v["method"].to_string())
        })
        .collect();
    let pos = |needle: &str| {
        ids.iter()
            .position(|i| i.contains(needle))
            .unwrap_or(usize::MAX)
    };
    assert!(pos("fast") < pos("slow"), "{ids:?}");
    assert!(pos("subscriptions/acknowledged") < usize::MAX, "{ids:?}");
    assert!(
        seen.iter().any(|v| v["error"]["code"] == -32700),
        "malformed line answered: {ids:?}"
    );
    // Cancel the subscription, then close input: the server exits.
    let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": "sub"}});
    client_write
        .write_all(format!("{cancel}\n").as_bytes())
        .await
        .unwrap();
    client_write.shutdown().await.unwrap();
    drop(client_write);
    let done = tokio::time::timeout(Duration::from_secs(5), serving).await;
    assert!(done.is_ok(), "serve_io returns after end of input");
}

/// The next line the server writes, as JSON (failing after 5 s of silence).
async fn next_json<R: tokio::io::AsyncBufRead + Unpin>(lines: &mut tokio::io::Lines<R>) -> Value {
    let line = tokio::time::timeout(Duration::from_secs(5), lines.next_line())
        .await
        .expect("a message within 5 s")
        .unwrap()
        .expect("the server is still writing");
    serde_json::from_str(&line).unwrap()
}

#[tokio::test]
async fn listen_streams_get_the_resource_updates_they_subscribed_to_and_nothing_else() {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
    let server = Arc::new(
        mcp_tests::conformance::server(Server::builder())
            .build()
            .unwrap(),
    );
    let (_serving, (client_read, mut client_write)) =
        serve_in_memory(server.clone(), oxmcp::stdio::DEFAULT_MAX_LINE);
    let mut lines = BufReader::new(client_read).lines();
    let filter = json!({"resourceSubscriptions": ["test://template/1"], "promptsListChanged": false,
                        "toolsListChanged": true, "somethingElse": true});
    let listen = json!({"jsonrpc": "2.0", "id": "sub", "method": "subscriptions/listen",
                        "params": {"_meta": meta(), "notifications": filter}});
    client_write
        .write_all(format!("{listen}\n").as_bytes())
        .await
        .unwrap();
    // The acknowledgement names only what the server honours.
    let ack = next_json(&mut lines).await;
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");
    assert_eq!(
        ack["params"]["notifications"],
        json!({"toolsListChanged": true, "resourceSubscriptions": ["test://template/1"]})
    );
    // Updates of other resources are not sent; the subscribed URI and what lies under it are.
    for uri in [
        "test://static-text",
        "test://template/10",
        "test://template/1/data",
        "test://template/1",
    ] {
        server.notify_resource_updated(uri);
    }
    server.notify_list_changed(oxmcp::ListKind::Prompts);
    server.notify_list_changed(oxmcp::ListKind::Tools);
    let mut got = Vec::new();
    for _ in 0..3 {
        let note = next_json(&mut lines).await;
        assert_eq!(
            note["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
            "sub"
        );
        got.push(format!(
            "{} {}",
            note["method"].as_str().unwrap(),
            note["params"]["uri"].as_str().unwrap_or("")
        ));
    }
    assert_eq!(
        got,
        [
            "notifications/resources/updated test://template/1/data",
            "notifications/resources/updated test://template/1",
            "notifications/tools/list_changed ",
        ]
    );
    // A filter whose subscriptions are not URIs is refused, and the server keeps serving.
    let bad = json!({"jsonrpc": "2.0", "id": "bad", "method": "subscriptions/listen",
                     "params": {"_meta": meta(), "notifications": {"resourceSubscriptions": [1]}}});
    client_write
        .write_all(format!("{bad}\n").as_bytes())
        .await
        .unwrap();
    let reply = next_json(&mut lines).await;
    assert_eq!(reply["id"], "bad");
    assert_eq!(reply["error"]["code"], -32602);
}

/// Set when the call of `wait_for_ever` is dropped by the server.
static WAIT_DROPPED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Never answers; records when the server stops it.
#[oxmcp::mcp_tool]
async fn wait_for_ever() -> String {
    struct Flag;
    impl Drop for Flag {
        fn drop(&mut self) {
            WAIT_DROPPED.store(true, std::sync::atomic::Ordering::SeqCst);
        }
    }
    let _flag = Flag;
    tokio::time::sleep(Duration::from_secs(3600)).await;
    "unreachable".into()
}

#[tokio::test]
async fn stdio_client_cancels_calls_it_stops_waiting_for_and_forwards_notifications() {
    let server = Arc::new(
        mcp_tests::conformance::server(Server::builder())
            .tool(wait_for_ever)
            .build()
            .unwrap(),
    );
    let (_serving, (client_read, client_write)) =
        serve_in_memory(server, oxmcp::stdio::DEFAULT_MAX_LINE);
    let (tx, mut notes) = tokio::sync::mpsc::unbounded_channel();
    let client = Client::over_io(client_read, client_write).notifications(tx);
    // Give up on a call that never ends: dropping its future cancels it on the server.
    let call = client.call_tool("wait_for_ever", json!({}));
    assert!(tokio::time::timeout(Duration::from_millis(200), call)
        .await
        .is_err());
    let mut waited = 0;
    while !WAIT_DROPPED.load(std::sync::atomic::Ordering::SeqCst) && waited < 100 {
        tokio::time::sleep(Duration::from_millis(20)).await;
        waited += 1;
    }
    assert!(
        WAIT_DROPPED.load(std::sync::atomic::Ordering::SeqCst),
        "the server stopped the call"
    );
    // The client goes on working, and progress notifications reach its channel.
    let result = client
        .request(
            "tools/call",
            json!({"name": "test_tool_with_progress", "arguments": {}, "_meta": {"progressToken": "p1"}}),
        )
        .await
        .unwrap();
    assert_eq!(result["content"][0]["text"], "Progress reported");
    let mut progress = Vec::new();
    while let Ok(n) = notes.try_recv() {
        assert_eq!(n["method"], "notifications/progress");
        assert_eq!(n["params"]["progressToken"], "p1");
        progress.push(n["params"]["progress"].as_f64().unwrap());
    }
    assert_eq!(progress, [0.0, 50.0, 100.0]);
}

#[tokio::test]
async fn stdio_answers_lines_it_cannot_read_and_keeps_serving() {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
    let server = Arc::new(
        mcp_tests::conformance::server(Server::builder())
            .build()
            .unwrap(),
    );
    let (_serving, (client_read, mut client_write)) = serve_in_memory(server, 1024);
    let mut lines = BufReader::new(client_read).lines();
    let list = |id: u32| json!({"jsonrpc": "2.0", "id": id, "method": "tools/list", "params": {"_meta": meta()}});
    // Not UTF-8; then a line over the 1024-byte limit; then a request ending in CRLF.
    client_write
        .write_all(b"{\"jsonrpc\": \"2.0\", \"id\": 9, \"method\": \"\xff\xfe\"}\n")
        .await
        .unwrap();
    let long = format!("{{\"pad\": \"{}\"}}\n", "x".repeat(5000));
    client_write.write_all(long.as_bytes()).await.unwrap();
    client_write
        .write_all(format!("{}\r\n", list(1)).as_bytes())
        .await
        .unwrap();
    let first = next_json(&mut lines).await;
    assert_eq!(first["error"]["code"], -32700, "{first}");
    assert_eq!(first["id"], Value::Null);
    let second = next_json(&mut lines).await;
    assert_eq!(second["error"]["code"], -32600, "{second}");
    let third = next_json(&mut lines).await;
    assert_eq!(third["id"], 1, "{third}");
    assert!(third["result"]["tools"]
        .as_array()
        .is_some_and(|t| !t.is_empty()));
    // A last line without a newline is still read at end of input.
    client_write
        .write_all(list(2).to_string().as_bytes())
        .await
        .unwrap();
    client_write.shutdown().await.unwrap();
    let last = next_json(&mut lines).await;
    assert_eq!(last["id"], 2, "{last}");
}

#[tokio::test]
async fn stdio_client_fails_calls_when_the_server_output_ends() {
    use tokio::io::AsyncBufReadExt;
    // One pipe each way, so the "server" can close its output and keep its input open.
    let (to_server, server_read) = tokio::io::duplex(64 * 1024);
    let (server_write, from_server) = tokio::io::duplex(64 * 1024);
    let client = Client::over_io(from_server, to_server);
    // A "server" that reads one request and then closes its output without answering.
    tokio::spawn(async move {
        let mut lines = tokio::io::BufReader::new(server_read).lines();
        let _ = lines.next_line().await;
        drop(server_write);
        while let Ok(Some(_)) = lines.next_line().await {}
    });
    let first = tokio::time::timeout(Duration::from_secs(5), client.list_tools())
        .await
        .expect("the call ends instead of hanging");
    assert!(
        matches!(first, Err(ClientError::Transport { .. })),
        "{first:?}"
    );
    let later = tokio::time::timeout(Duration::from_secs(5), client.list_tools())
        .await
        .expect("a later call ends too");
    assert!(
        matches!(later, Err(ClientError::Transport { .. })),
        "{later:?}"
    );
}

#[tokio::test]
async fn client_lists_every_page_of_tools() {
    let server = Arc::new(
        mcp_tests::conformance::server(Server::builder())
            .page_size(5)
            .build()
            .unwrap(),
    );
    let (_serving, (client_read, client_write)) =
        serve_in_memory(server.clone(), oxmcp::stdio::DEFAULT_MAX_LINE);
    let client = Client::over_io(client_read, client_write);
    assert_eq!(client.list_tools().await.unwrap().tools.len(), 5);
    let all: Vec<String> = client
        .list_all_tools()
        .await
        .unwrap()
        .into_iter()
        .map(|t| t.name)
        .collect();
    assert!(all.len() > 10, "{all:?}");
    assert_eq!(all, server.tool_names(), "every tool once, in order");
}

/// Send raw request bytes to `addr` and read the status code of the answer.
async fn raw_status(addr: &str, request: String) -> u16 {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut buf = vec![0u8; 1024];
    let n = stream.read(&mut buf).await.unwrap();
    let head = String::from_utf8_lossy(&buf[..n]);
    head.split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("not an HTTP answer: {head}"))
}

/// A request without Host, with two Host headers, or with a bad second Origin is refused; the
/// same request with one allowed Host is served.
#[tokio::test]
async fn host_and_origin_are_checked_in_every_value() {
    let (url, _stop) = start_http().await;
    let addr = url
        .trim_start_matches("http://")
        .trim_end_matches("/mcp")
        .to_string();
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "server/discover",
                      "params": {"_meta": meta()}})
    .to_string();
    let request = |extra: &str| {
        format!(
            "POST /mcp HTTP/1.1\r\n{extra}content-type: application/json\r\n\
             mcp-protocol-version: 2026-07-28\r\nmcp-method: server/discover\r\n\
             connection: close\r\ncontent-length: {}\r\n\r\n{body}",
            body.len()
        )
    };
    assert_eq!(raw_status(&addr, request("host: 127.0.0.1\r\n")).await, 200);
    assert_eq!(raw_status(&addr, request("")).await, 400, "no Host");
    assert_eq!(
        raw_status(&addr, request("host: 127.0.0.1\r\nhost: evil.example\r\n")).await,
        400,
        "two Hosts"
    );
    assert_eq!(
        raw_status(
            &addr,
            request(
                "host: 127.0.0.1\r\norigin: http://localhost\r\norigin: http://evil.example\r\n"
            )
        )
        .await,
        403,
        "a bad second Origin"
    );
}

/// A request that may stream (progress token, SSE accepted) but fails before anything is
/// streamed gets its error as plain JSON with the HTTP status of the error, not as a 200 stream.
#[tokio::test]
async fn an_error_before_the_stream_starts_is_a_4xx() {
    let (url, _stop) = start_http().await;
    let tool = "test_input_required_result_sampling";
    let mut m = meta();
    m["progressToken"] = json!("p");
    let body = json!({"jsonrpc": "2.0", "id": 9, "method": "tools/call",
                      "params": {"name": tool, "arguments": {}, "_meta": m}});
    let mut headers = std_headers("tools/call");
    headers.push(("mcp-name", tool));
    let (status, reply) = post(&url, body.to_string().into_bytes(), &headers).await;
    assert_eq!(status, 400, "{reply}");
    assert_eq!(reply["error"]["code"], -32021, "{reply}");
    assert_eq!(reply["id"], 9);
}

#[tokio::test]
async fn client_keeps_a_result_whose_content_has_a_kind_it_does_not_know() {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt};
    let (to_server, server_read) = tokio::io::duplex(64 * 1024);
    let (mut server_write, from_server) = tokio::io::duplex(64 * 1024);
    let client = Client::over_io(from_server, to_server);
    // A "newer server": its result holds a text block and a block of a kind 2026-07-28 does not
    // define, which must reach the caller whole instead of failing the call.
    let video = json!({"type": "video", "uri": "file:///clip.mp4", "frames": [1, 2.5]});
    let answer = video.clone();
    tokio::spawn(async move {
        let mut lines = tokio::io::BufReader::new(server_read).lines();
        while let Ok(Some(line)) = lines.next_line().await {
            let request: Value = serde_json::from_str(&line).unwrap();
            let result = match request["method"].as_str() {
                Some("server/discover") => json!({
                    "resultType": "complete",
                    "supportedVersions": ["2026-07-28"],
                    "capabilities": {"tools": {}},
                    "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "newer", "version": "9"}},
                }),
                _ => json!({
                    "resultType": "complete",
                    "content": [{"type": "text", "text": "here it is"}, answer],
                }),
            };
            let reply = json!({"jsonrpc": "2.0", "id": request["id"], "result": result});
            let mut out = serde_json::to_vec(&reply).unwrap();
            out.push(b'\n');
            server_write.write_all(&out).await.unwrap();
        }
    });
    let result = tokio::time::timeout(Duration::from_secs(5), client.call_tool("film", json!({})))
        .await
        .expect("the call ends")
        .expect("an unknown content kind does not fail the result");
    assert_eq!(text(&result), "here it is");
    let oxmcp::schema::ContentBlock::Unknown(block) = &result.content[1] else {
        panic!("{:?}", result.content[1]);
    };
    assert_eq!(Value::Object(block.clone()), video);
    assert_eq!(serde_json::to_value(&result.content[1]).unwrap(), video);
}
