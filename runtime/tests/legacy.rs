//! One handler, both eras: a tool that elicits, runs a step and samples completes through a
//! modern MRTR flow and through a 2025-era session on stdio (where its asks are real requests
//! to the client), with the same result and the step run once in each.

mod common;

use common::{accept, all_caps, call, first_key, send};
use mcp_runtime::prelude::*;
use mcp_runtime::stdio::{serve_io_until, StdioConfig};
use mcp_runtime::Limits;
use serde_json::{json, Value};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

#[derive(ElicitForm)]
struct Traveller {
    /// Who travels?
    name: String,
}

/// Counts the bookings made, per server.
#[derive(Default)]
struct Bookings {
    made: AtomicUsize,
}

/// Plans a trip: asks who travels, books once, asks the model for a tagline.
#[mcp_tool]
async fn plan_trip(bookings: State<Bookings>, city: String) -> Result<String, ToolError> {
    let who = match elicit::<Traveller>("Who travels?").await? {
        Elicited::Accept(t) => t.name,
        _ => return Ok("no trip".into()),
    };
    let booking = step("book", async {
        let n = bookings.made.fetch_add(1, Ordering::SeqCst) + 1;
        Ok::<_, ToolError>(format!("B{n}"))
    })
    .await?;
    let tagline = sample(Sampling::user(format!("A tagline for {city}"))).await?;
    Ok(format!(
        "{who} to {city}, booking {booking}: {}",
        tagline.text().unwrap_or_default()
    ))
}

/// Logs at info and says so.
#[mcp_tool]
async fn chatty() -> String {
    mcp_runtime::log(
        mcp_runtime::schema::LoggingLevel::Info,
        Some("test"),
        json!("hello"),
    );
    "logged".into()
}

fn server() -> Arc<Server> {
    Arc::new(
        Server::builder()
            .state(Bookings::default())
            .tool(plan_trip)
            .tool(chatty)
            .build()
            .unwrap(),
    )
}

fn sampled(text: &str) -> Value {
    json!({"role": "assistant", "content": {"type": "text", "text": text}, "model": "m"})
}

#[tokio::test]
async fn the_modern_flow_completes_with_the_step_run_once() {
    let s = server();
    let first = send(
        &s,
        1,
        "tools/call",
        call("plan_trip", json!({"city": "Oslo"}), all_caps()),
    )
    .await;
    let key = first_key(&first["result"]);
    let mut params = call("plan_trip", json!({"city": "Oslo"}), all_caps());
    params["requestState"] = first["result"]["requestState"].clone();
    params["inputResponses"] = json!({ key: accept(json!({"name": "Ada"})) });
    let second = send(&s, 2, "tools/call", params.clone()).await;
    let key = first_key(&second["result"]);
    params["requestState"] = second["result"]["requestState"].clone();
    params["inputResponses"] = json!({ key: sampled("Fjords!") });
    let done = send(&s, 3, "tools/call", params).await;
    assert_eq!(
        done["result"]["content"][0]["text"],
        "Ada to Oslo, booking B1: Fjords!"
    );
}

/// A legacy client on an in-memory stdio pipe.
struct Legacy {
    lines: tokio::io::Lines<BufReader<tokio::io::ReadHalf<tokio::io::DuplexStream>>>,
    input: tokio::io::WriteHalf<tokio::io::DuplexStream>,
    _serving: tokio::task::JoinHandle<std::io::Result<()>>,
}

impl Legacy {
    fn start(server: Arc<Server>, limits: Limits) -> Self {
        let (client, server_end) = tokio::io::duplex(1 << 16);
        let (read, write) = tokio::io::split(server_end);
        let config = StdioConfig {
            limits,
            ..Default::default()
        };
        let serving = tokio::spawn(serve_io_until(
            server,
            read,
            write,
            config,
            std::future::pending(),
        ));
        let (r, w) = tokio::io::split(client);
        Legacy {
            lines: BufReader::new(r).lines(),
            input: w,
            _serving: serving,
        }
    }

    async fn send(&mut self, message: Value) {
        self.input
            .write_all(format!("{message}\n").as_bytes())
            .await
            .unwrap();
    }

    async fn next(&mut self) -> Value {
        let line = tokio::time::timeout(Duration::from_secs(5), self.lines.next_line())
            .await
            .expect("a message within 5 s")
            .unwrap()
            .expect("the server is writing");
        serde_json::from_str(&line).unwrap()
    }

    async fn initialize(&mut self, capabilities: Value) -> Value {
        self.send(
            json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": capabilities,
            "clientInfo": {"name": "legacy-test", "version": "1"}}}),
        )
        .await;
        let reply = self.next().await;
        self.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await;
        reply
    }
}

#[tokio::test]
async fn a_legacy_stdio_session_serves_the_same_handler_with_real_requests() {
    let s = server();
    let mut client = Legacy::start(s.clone(), Limits::default());
    let init = client
        .initialize(json!({"elicitation": {}, "sampling": {}}))
        .await;
    assert_eq!(init["result"]["protocolVersion"], "2025-11-25", "{init}");
    assert!(
        init["result"]["capabilities"]["tools"].is_object(),
        "{init}"
    );
    assert!(init["result"]["serverInfo"]["name"].is_string(), "{init}");
    client
        .send(json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}))
        .await;
    assert_eq!(
        client.next().await,
        json!({"jsonrpc": "2.0", "id": 1, "result": {}})
    );
    client
        .send(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}))
        .await;
    let list = client.next().await;
    assert!(
        list["result"].get("resultType").is_none(),
        "legacy shape: {list}"
    );
    assert_eq!(list["result"]["tools"].as_array().map(Vec::len), Some(2));
    client
        .send(json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                     "params": {"name": "plan_trip", "arguments": {"city": "Oslo"}}}))
        .await;
    // The elicitation is a real request to the client...
    let ask = client.next().await;
    assert_eq!(ask["method"], "elicitation/create", "{ask}");
    client
        .send(json!({"jsonrpc": "2.0", "id": ask["id"], "result": {"action": "accept", "content": {"name": "Ada"}}}))
        .await;
    // ...and so is the sampling, after the step ran.
    let ask = client.next().await;
    assert_eq!(ask["method"], "sampling/createMessage", "{ask}");
    client
        .send(json!({"jsonrpc": "2.0", "id": ask["id"], "result": sampled("Fjords!")}))
        .await;
    let done = client.next().await;
    assert_eq!(done["id"], 3);
    assert_eq!(
        done["result"]["content"][0]["text"], "Ada to Oslo, booking B1: Fjords!",
        "{done}"
    );
    assert!(done["result"].get("resultType").is_none(), "{done}");
}

#[tokio::test]
async fn a_legacy_client_without_the_capability_gets_the_same_error_meaning() {
    let mut client = Legacy::start(server(), Limits::default());
    client.initialize(json!({})).await;
    client
        .send(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                     "params": {"name": "plan_trip", "arguments": {"city": "Oslo"}}}))
        .await;
    let reply = client.next().await;
    assert_eq!(reply["id"], 1);
    assert_eq!(
        reply["error"]["code"], -32602,
        "legacy code for a missing capability: {reply}"
    );
    assert!(reply["error"]["data"]["requiredCapabilities"]["elicitation"].is_object());
}

#[tokio::test]
async fn a_legacy_ask_that_is_refused_or_never_answered_fails_cleanly_and_the_session_goes_on() {
    let limits = Limits {
        ask_timeout: Duration::from_millis(300),
        ..Limits::default()
    };
    let mut client = Legacy::start(server(), limits);
    client
        .initialize(json!({"elicitation": {}, "sampling": {}}))
        .await;
    // The client answers with an error: the tool fails as a tool error.
    client
        .send(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                     "params": {"name": "plan_trip", "arguments": {"city": "Rome"}}}))
        .await;
    let ask = client.next().await;
    client
        .send(json!({"jsonrpc": "2.0", "id": ask["id"], "error": {"code": -1, "message": "user closed the dialog"}}))
        .await;
    let failed = client.next().await;
    assert_eq!(failed["result"]["isError"], true, "{failed}");
    // The client never answers: the ask times out, the call fails, the server says so.
    client
        .send(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                     "params": {"name": "plan_trip", "arguments": {"city": "Rome"}}}))
        .await;
    let ask = client.next().await;
    assert_eq!(ask["method"], "elicitation/create");
    let timed_out = client.next().await;
    assert_eq!(timed_out["id"], 2, "{timed_out}");
    assert_eq!(timed_out["result"]["isError"], true, "{timed_out}");
    // The session goes on.
    client
        .send(json!({"jsonrpc": "2.0", "id": 3, "method": "ping"}))
        .await;
    assert_eq!(client.next().await["id"], 3);
}

#[tokio::test]
async fn logging_set_level_applies_to_the_session() {
    let mut client = Legacy::start(server(), Limits::default());
    client.initialize(json!({})).await;
    client
        .send(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "chatty", "arguments": {}}}))
        .await;
    let quiet = client.next().await;
    assert_eq!(quiet["id"], 1, "no log message before setLevel: {quiet}");
    client
        .send(json!({"jsonrpc": "2.0", "id": 2, "method": "logging/setLevel", "params": {"level": "info"}}))
        .await;
    assert_eq!(client.next().await["result"], json!({}));
    client
        .send(json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "chatty", "arguments": {}}}))
        .await;
    let note = client.next().await;
    assert_eq!(note["method"], "notifications/message", "{note}");
    assert_eq!(client.next().await["id"], 3);
}

#[tokio::test]
async fn a_server_without_legacy_refuses_initialize_naming_its_versions() {
    let s = Arc::new(
        Server::builder()
            .legacy(false)
            .tool(chatty)
            .build()
            .unwrap(),
    );
    let mut client = Legacy::start(s, Limits::default());
    let reply = client.initialize(json!({})).await;
    assert_eq!(reply["error"]["code"], -32602, "{reply}");
    assert_eq!(
        reply["error"]["data"]["supported"],
        json!(["2026-07-28"]),
        "{reply}"
    );
}
