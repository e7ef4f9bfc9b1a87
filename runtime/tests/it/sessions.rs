//! One handler, both eras: a tool that elicits, runs a step and samples completes through a
//! 2026 MRTR flow and through a 2025-era session on stdio (where its asks are real requests
//! to the client), with the same result and the step run once in each.

use crate::common;

use common::{accept, all_caps, call, first_key, send};
use oxmcp::prelude::*;
use oxmcp::stdio::{serve_io_until, StdioConfig};
use oxmcp::Limits;
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
    oxmcp::log(
        oxmcp::schema::LoggingLevel::Info,
        Some("test"),
        json!("hello"),
    );
    "logged".into()
}

/// Counts the slow calls that ran to the end (shared with the test that built the server).
#[derive(Default, Clone)]
struct Finished {
    count: Arc<AtomicUsize>,
}

/// Reports progress, takes `ms`, counts itself finished.
#[mcp_tool]
async fn slow(finished: State<Finished>, ms: u64) -> String {
    oxmcp::progress(0.5, Some(1.0), Some("halfway"));
    tokio::time::sleep(Duration::from_millis(ms)).await;
    finished.count.fetch_add(1, Ordering::SeqCst);
    "slow done".into()
}

/// Reports progress `1..=n`, a moment apart, then says how many.
#[mcp_tool]
async fn counts(n: u64) -> String {
    for i in 1..=n {
        oxmcp::progress(i as f64, Some(n as f64), None);
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
    format!("counted {n}")
}

/// Ends its stream at once, answers a little later (SSE polling).
#[mcp_tool]
async fn polled() -> String {
    oxmcp::close_stream();
    tokio::time::sleep(Duration::from_millis(50)).await;
    "polled done".into()
}

/// Announces an update of `uri`.
#[mcp_tool]
async fn touch(uri: String) -> String {
    oxmcp::notify_resource_updated(&uri);
    "touched".into()
}

fn server() -> Arc<Server> {
    server_counting(Finished::default())
}

fn server_counting(finished: Finished) -> Arc<Server> {
    Arc::new(
        Server::builder()
            .state(Bookings::default())
            .state(finished)
            .tool(plan_trip)
            .tool(chatty)
            .tool(slow)
            .tool(polled)
            .tool(counts)
            .build()
            .unwrap(),
    )
}

fn sampled(text: &str) -> Value {
    json!({"role": "assistant", "content": {"type": "text", "text": text}, "model": "m"})
}

#[tokio::test]
async fn the_2026_flow_completes_with_the_step_run_once() {
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

/// A 2025 client on an in-memory stdio pipe.
struct SessionClient {
    lines: tokio::io::Lines<BufReader<tokio::io::ReadHalf<tokio::io::DuplexStream>>>,
    input: tokio::io::WriteHalf<tokio::io::DuplexStream>,
    _serving: tokio::task::JoinHandle<std::io::Result<()>>,
}

impl SessionClient {
    fn start(server: Arc<Server>, limits: Limits) -> Self {
        let (client, server_end) = tokio::io::duplex(1 << 16);
        let (read, write) = tokio::io::split(server_end);
        let config = StdioConfig::default().limits(limits);
        let serving = tokio::spawn(serve_io_until(
            server,
            read,
            write,
            config,
            std::future::pending(),
        ));
        let (r, w) = tokio::io::split(client);
        SessionClient {
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

    /// A session with `limits` that can answer forms and sampling, in which `plan_trip` to
    /// `city` was called as request `id`; the call's first ask.
    async fn asked(limits: Limits, id: i64, city: &str) -> (Self, Value) {
        let mut client = SessionClient::start(server(), limits);
        client
            .initialize(json!({"elicitation": {}, "sampling": {}}))
            .await;
        client
            .send(json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                         "params": {"name": "plan_trip", "arguments": {"city": city}}}))
            .await;
        let ask = client.next().await;
        (client, ask)
    }

    async fn initialize(&mut self, capabilities: Value) -> Value {
        self.send(
            json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": capabilities,
            "clientInfo": {"name": "session-test", "version": "1"}}}),
        )
        .await;
        let reply = self.next().await;
        self.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await;
        reply
    }
}

#[tokio::test]
async fn a_2025_stdio_session_serves_the_same_handler_with_real_requests() {
    let s = server();
    let mut client = SessionClient::start(s.clone(), Limits::default());
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
        "2025 shape: {list}"
    );
    assert_eq!(list["result"]["tools"].as_array().map(Vec::len), Some(5));
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

/// At the end of input a 2025 stdio session can get no more answers: a call waiting on an
/// ask ends at once, answered, and the server ends, long before the shutdown grace period.
#[tokio::test]
async fn at_the_end_of_input_a_call_waiting_on_an_ask_ends_at_once() {
    let limits = Limits::default().shutdown_grace(Duration::from_secs(30));
    let (mut client, ask) = SessionClient::asked(limits, 3, "Oslo").await;
    assert_eq!(ask["method"], "elicitation/create", "{ask}");
    let started = std::time::Instant::now();
    client.input.shutdown().await.unwrap();
    let done = client.next().await;
    assert_eq!(done["id"], 3, "{done}");
    assert!(
        done.get("result").is_some() || done.get("error").is_some(),
        "{done}"
    );
    let served = tokio::time::timeout(Duration::from_secs(5), client._serving)
        .await
        .expect("the server ends within 5 s of the end of input")
        .unwrap();
    assert!(served.is_ok());
    assert!(started.elapsed() < Duration::from_secs(5));
}

#[tokio::test]
async fn a_2025_client_without_the_capability_gets_the_same_error_meaning() {
    let mut client = SessionClient::start(server(), Limits::default());
    client.initialize(json!({})).await;
    client
        .send(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                     "params": {"name": "plan_trip", "arguments": {"city": "Oslo"}}}))
        .await;
    let reply = client.next().await;
    assert_eq!(reply["id"], 1);
    assert_eq!(
        reply["error"]["code"], -32602,
        "the 2025 code for a missing capability: {reply}"
    );
    assert!(reply["error"]["data"]["requiredCapabilities"]["elicitation"].is_object());
}

#[tokio::test]
async fn a_2025_ask_that_is_refused_or_never_answered_fails_cleanly_and_the_session_goes_on() {
    let limits = Limits::default().ask_timeout(Duration::from_millis(300));
    // The client answers with an error: the tool fails as a tool error.
    let (mut client, ask) = SessionClient::asked(limits, 1, "Rome").await;
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
    let mut client = SessionClient::start(server(), Limits::default());
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
async fn a_2025_session_hears_of_updates_under_what_it_subscribed_to_until_it_unsubscribes() {
    let s = Arc::new(Server::builder().tool(touch).build().unwrap());
    let mut client = SessionClient::start(s, Limits::default());
    client.initialize(json!({})).await;
    let mut id = 0;
    let mut ask = |method: &str, params: Value| {
        id += 1;
        (
            id,
            json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}),
        )
    };
    // Subscribing twice is one subscription.
    for _ in 0..2 {
        let (id, req) = ask("resources/subscribe", json!({"uri": "file:///notes"}));
        client.send(req).await;
        assert_eq!(
            client.next().await,
            json!({"jsonrpc": "2.0", "id": id, "result": {}})
        );
    }
    let touching = |uri: &str| json!({"name": "touch", "arguments": {"uri": uri}});
    // A URI under the subscription: the update, and the call's reply, in either order.
    let (called, req) = ask("tools/call", touching("file:///notes/today.md"));
    client.send(req).await;
    let (a, b) = (client.next().await, client.next().await);
    let (note, reply) = if a.get("method").is_some() {
        (a, b)
    } else {
        (b, a)
    };
    assert_eq!(
        note,
        json!({"jsonrpc": "2.0", "method": "notifications/resources/updated",
               "params": {"uri": "file:///notes/today.md"}})
    );
    assert_eq!(reply["id"], called, "{reply}");
    // Outside it, and after unsubscribing: the reply alone, and the next reply after it.
    let (called, req) = ask("tools/call", touching("file:///elsewhere"));
    client.send(req).await;
    assert_eq!(client.next().await["id"], called);
    let (left, req) = ask("resources/unsubscribe", json!({"uri": "file:///notes"}));
    client.send(req).await;
    assert_eq!(client.next().await["id"], left);
    let (called, req) = ask("tools/call", touching("file:///notes/today.md"));
    client.send(req).await;
    assert_eq!(client.next().await["id"], called);
    let (pinged, req) = ask("ping", json!({}));
    client.send(req).await;
    let next = client.next().await;
    assert_eq!(next["id"], pinged, "nothing between: {next}");
}

#[tokio::test]
async fn a_server_without_sessions_refuses_initialize_naming_its_versions() {
    let s = Arc::new(
        Server::builder()
            .sessions(false)
            .tool(chatty)
            .build()
            .unwrap(),
    );
    let mut client = SessionClient::start(s, Limits::default());
    let reply = client.initialize(json!({})).await;
    assert_eq!(reply["error"]["code"], -32602, "{reply}");
    // The stateless versions the pins list.
    assert_eq!(
        reply["error"]["data"]["supported"],
        json!(oxmcp::SUPPORTED_VERSIONS),
        "{reply}"
    );
    assert!(oxmcp::SUPPORTED_VERSIONS.contains(&"2026-07-28"), "{reply}");
}

/// The server over HTTP on an ephemeral port; its base URL and address.
async fn http(server: Arc<Server>) -> (String, std::net::SocketAddr) {
    http_with(server, Limits::default()).await
}

/// [`http`] with these limits.
async fn http_with(server: Arc<Server>, limits: Limits) -> (String, std::net::SocketAddr) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let config = oxmcp::http::HttpConfig::default().limits(limits);
    tokio::spawn(oxmcp::http::serve_listener(
        server,
        listener,
        config,
        std::future::pending(),
    ));
    (format!("http://{addr}/mcp"), addr)
}

/// POST `message` in `session` (if any); status, headers, body.
async fn post(
    url: &str,
    session: Option<&str>,
    message: Value,
) -> (u16, Vec<(String, String)>, Value) {
    post_text(url, session, message.to_string()).await
}

/// POST `body`, written as it is, in `session` (if any); status, headers, body.
async fn post_text(
    url: &str,
    session: Option<&str>,
    body: String,
) -> (u16, Vec<(String, String)>, Value) {
    let mut headers = vec![
        ("accept", "application/json, text/event-stream"),
        ("mcp-protocol-version", "2025-11-25"),
    ];
    if let Some(s) = session {
        headers.push(("mcp-session-id", s));
    }
    mcp_tests::support::post(url, body.into_bytes(), &headers).await
}

/// An SSE response read as it arrives, over a raw connection.
struct Stream {
    tcp: tokio::net::TcpStream,
    buffered: String,
    /// Everything received.
    raw: String,
}

impl Stream {
    async fn open(
        addr: std::net::SocketAddr,
        session: &str,
        method: &str,
        body: Option<Value>,
    ) -> Self {
        Self::open_with(addr, session, method, body, "").await
    }

    /// [`Stream::open`] with extra header lines (each ending in CRLF).
    async fn open_with(
        addr: std::net::SocketAddr,
        session: &str,
        method: &str,
        body: Option<Value>,
        extra: &str,
    ) -> Self {
        use tokio::io::AsyncWriteExt;
        let mut tcp = tokio::net::TcpStream::connect(addr).await.unwrap();
        let body = body.map(|b| b.to_string()).unwrap_or_default();
        let head = format!(
            "{method} /mcp HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n\
             Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2025-11-25\r\n\
             Mcp-Session-Id: {session}\r\n{extra}Content-Length: {}\r\n\r\n{body}",
            body.len()
        );
        tcp.write_all(head.as_bytes()).await.unwrap();
        Stream {
            tcp,
            buffered: String::new(),
            raw: String::new(),
        }
    }

    /// The next `data:` message of the stream, as JSON (the priming event, with empty data,
    /// is passed over).
    async fn next(&mut self) -> Value {
        self.next_event().await.1
    }

    /// The next message and its event id.
    async fn next_event(&mut self) -> (Option<String>, Value) {
        loop {
            if let Some(event) = self.event().await {
                if !event.1.trim().is_empty() {
                    return (event.0, serde_json::from_str(&event.1).unwrap());
                }
            } else {
                panic!("the stream ended: {}", self.buffered);
            }
        }
    }

    /// The next event's id and data; none when the stream ends.
    async fn event(&mut self) -> Option<(Option<String>, String)> {
        use tokio::io::AsyncReadExt;
        loop {
            if let Some(at) = self.buffered.find("data:") {
                let rest = &self.buffered[at + 5..];
                if let Some(end) = rest.find('\n') {
                    let data = rest[..end].trim().to_string();
                    let id = self.buffered[..at].rfind("id: ").map(|i| {
                        self.buffered[i + 4..]
                            .lines()
                            .next()
                            .unwrap_or("")
                            .to_string()
                    });
                    self.buffered = rest[end..].to_string();
                    return Some((id, data));
                }
            }
            // The end of a chunked body (the connection itself is kept alive).
            if self.buffered.contains("\r\n0\r\n\r\n") {
                return None;
            }
            let mut buf = [0u8; 8192];
            let n = tokio::time::timeout(Duration::from_secs(5), self.tcp.read(&mut buf))
                .await
                .expect("an event within 5 s")
                .unwrap();
            if n == 0 {
                return None;
            }
            self.buffered.push_str(&String::from_utf8_lossy(&buf[..n]));
            self.raw.push_str(&String::from_utf8_lossy(&buf[..n]));
        }
    }

    /// Whether the stream ends (the server closes it) with no further message.
    async fn ends(&mut self) -> bool {
        while let Some((_, data)) = self.event().await {
            if !data.trim().is_empty() {
                return false;
            }
        }
        true
    }
}

/// The answers a 2025 client POSTs are read without a JSON tree when they can be; every other
/// way of writing them still reaches the ask, and notifications are taken.
#[tokio::test]
async fn a_2025_http_sessions_answers_reach_their_asks_however_they_are_written() {
    let s = server();
    let (url, addr) = http(s.clone()).await;
    let session = open_session(&url).await;
    let raw = |body: String| post_text(&url, Some(&session), body);
    // Notifications, written in any order, are taken.
    for note in [
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        r#"{ "params" : {"progressToken": 1, "progress": 1}, "method":"notifications/progress", "jsonrpc":"2.0" }"#,
    ] {
        assert_eq!(raw(note.to_string()).await.0, 202, "{note}");
    }
    let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                      "params": {"name": "plan_trip", "arguments": {"city": "Oslo"}}});
    let mut stream = Stream::open(addr, &session, "POST", Some(call)).await;
    let ask = stream.next().await;
    assert_eq!(ask["method"], "elicitation/create", "{ask}");
    // The id written with an escape: the same string, read the slower way.
    let id = ask["id"].as_str().expect("a string id");
    let escaped = serde_json::to_string(id)
        .unwrap()
        .replacen('-', "\\u002d", 1);
    assert_ne!(escaped, serde_json::to_string(id).unwrap());
    let answer = format!(
        r#"{{"jsonrpc":"2.0","result":{{"action":"accept","content":{{"name":"Ada"}}}},"id":{escaped}}}"#
    );
    assert_eq!(raw(answer).await.0, 202);
    // The second ask is answered with an error: the tool fails as a tool error.
    let ask = stream.next().await;
    assert_eq!(ask["method"], "sampling/createMessage", "{ask}");
    let refusal = json!({"jsonrpc": "2.0", "id": ask["id"],
                         "error": {"code": -1, "message": "the user declined"}});
    assert_eq!(raw(refusal.to_string()).await.0, 202);
    let done = stream.next().await;
    assert_eq!(done["id"], 2, "{done}");
    assert_eq!(done["result"]["isError"], true, "{done}");
    // The same call answered as written by the fast path: the tool finishes.
    let call = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                      "params": {"name": "plan_trip", "arguments": {"city": "Oslo"}}});
    let mut stream = Stream::open(addr, &session, "POST", Some(call)).await;
    let ask = stream.next().await;
    let answer = json!({"jsonrpc": "2.0", "id": ask["id"],
                        "result": {"action": "accept", "content": {"name": "Ada"}}});
    assert_eq!(raw(answer.to_string()).await.0, 202);
    let ask = stream.next().await;
    let answer = json!({"jsonrpc": "2.0", "id": ask["id"], "result": sampled("Fjords!")});
    assert_eq!(raw(answer.to_string()).await.0, 202);
    let done = stream.next().await;
    assert_eq!(done["id"], 3);
    let text = done["result"]["content"][0]["text"].as_str().unwrap_or("");
    assert!(
        text.starts_with("Ada to Oslo, booking B") && text.ends_with(": Fjords!"),
        "{done}"
    );
}

#[tokio::test]
async fn a_2025_http_session_serves_the_same_handler_with_real_requests() {
    let s = server();
    let (url, addr) = http(s.clone()).await;
    let session = open_session(&url).await;
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    assert_eq!(post(&url, Some(&session), initialized).await.0, 202);
    // Without the session: 400; with an unknown one: 404.
    let list = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"});
    assert_eq!(post(&url, None, list.clone()).await.0, 400);
    assert_eq!(post(&url, Some("nope"), list.clone()).await.0, 404);
    // So are a notification and a response: an answer that can reach no session is refused,
    // not dropped.
    let cancelled = json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                           "params": {"requestId": 1}});
    let answer = json!({"jsonrpc": "2.0", "id": "mcp-server-1", "result": {"action": "cancel"}});
    for message in [cancelled, answer] {
        let (status, _, body) = post(&url, None, message.clone()).await;
        assert_eq!(status, 400, "{message}: {body}");
        assert_eq!(body["error"]["code"], -32600, "{body}");
        assert_eq!(post(&url, Some("nope"), message).await.0, 404);
    }
    let (status, _, tools) = post(&url, Some(&session), list).await;
    assert_eq!(status, 200);
    for stateless_only in ["resultType", "ttlMs", "cacheScope"] {
        assert!(tools["result"].get(stateless_only).is_none(), "{tools}");
    }
    // The call streams the server's requests, the client POSTs its answers back.
    let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                      "params": {"name": "plan_trip", "arguments": {"city": "Oslo"}}});
    let mut stream = Stream::open(addr, &session, "POST", Some(call)).await;
    let ask = stream.next().await;
    assert_eq!(ask["method"], "elicitation/create", "{ask}");
    let answer = json!({"jsonrpc": "2.0", "id": ask["id"], "result": {"action": "accept", "content": {"name": "Ada"}}});
    assert_eq!(post(&url, Some(&session), answer).await.0, 202);
    let ask = stream.next().await;
    assert_eq!(ask["method"], "sampling/createMessage", "{ask}");
    let answer = json!({"jsonrpc": "2.0", "id": ask["id"], "result": sampled("Fjords!")});
    assert_eq!(post(&url, Some(&session), answer).await.0, 202);
    let done = stream.next().await;
    assert_eq!(done["id"], 2);
    assert_eq!(
        done["result"]["content"][0]["text"],
        "Ada to Oslo, booking B1: Fjords!"
    );
    // The standalone stream carries list changes.
    let mut standalone = Stream::open(addr, &session, "GET", None).await;
    tokio::time::sleep(Duration::from_millis(100)).await;
    s.notify_list_changed(oxmcp::ListKind::Tools);
    let note = standalone.next().await;
    assert_eq!(note["method"], "notifications/tools/list_changed", "{note}");
    // DELETE ends the session.
    let mut delete = Stream::open(addr, &session, "DELETE", None).await;
    let mut status = [0u8; 12];
    use tokio::io::AsyncReadExt;
    delete.tcp.read_exact(&mut status).await.unwrap();
    assert_eq!(&status, b"HTTP/1.1 204", "DELETE ends the session");
    let ping = json!({"jsonrpc": "2.0", "id": 3, "method": "ping"});
    assert_eq!(post(&url, Some(&session), ping).await.0, 404);
}

#[tokio::test]
async fn the_2026_flow_completes_over_http_and_stdio_with_the_step_run_once_each() {
    // HTTP, with the project's client answering the rounds.
    let s = server();
    let (url, _) = http(s.clone()).await;
    let client = mcp_tests::support::answering_client(oxmcp::client::Client::http(&url));
    let done = client
        .call_tool("plan_trip", json!({"city": "Oslo"}))
        .await
        .unwrap();
    assert_eq!(
        mcp_tests::support::text(&done),
        "Ada to Oslo, booking B1: Paris"
    );
    // stdio, driven line by line: the first message is 2026, so the connection is.
    let s = server();
    let mut pipe = SessionClient::start(s, Limits::default());
    let mut params = call("plan_trip", json!({"city": "Oslo"}), all_caps());
    pipe.send(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params}))
        .await;
    for (id, answer) in [(2, accept(json!({"name": "Ada"}))), (3, sampled("Paris"))] {
        let round = pipe.next().await;
        let key = first_key(&round["result"]);
        params["requestState"] = round["result"]["requestState"].clone();
        params["inputResponses"] = json!({ key: answer });
        pipe.send(json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params}))
            .await;
    }
    let done = pipe.next().await;
    assert_eq!(
        done["result"]["content"][0]["text"], "Ada to Oslo, booking B1: Paris",
        "{done}"
    );
}

#[tokio::test]
async fn an_idle_http_session_expires() {
    let limits = Limits::default().session_idle(Duration::from_millis(200));
    let (url, _) = http_with(server(), limits).await;
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}});
    let (_, headers, reply) = post(&url, None, init).await;
    assert_eq!(reply["result"]["protocolVersion"], "2025-11-25");
    let session = headers
        .iter()
        .find(|(k, _)| k == "mcp-session-id")
        .map(|(_, v)| v.clone())
        .unwrap();
    let ping = json!({"jsonrpc": "2.0", "id": 1, "method": "ping"});
    assert_eq!(post(&url, Some(&session), ping.clone()).await.0, 200);
    tokio::time::sleep(Duration::from_millis(400)).await;
    assert_eq!(post(&url, Some(&session), ping).await.0, 404, "expired");
}

#[tokio::test]
async fn the_client_falls_back_to_a_2025_session_and_answers_the_servers_requests() {
    use oxmcp::client::Client;
    // A scripted 2025-era stdio server: no server/discover, an initialize, then a tools/call
    // that asks the client for a form before it answers.
    let (client_end, server_end) = tokio::io::duplex(1 << 16);
    let (read, mut write) = tokio::io::split(server_end);
    let script = tokio::spawn(async move {
        let mut lines = BufReader::new(read).lines();
        let mut seen = Vec::new();
        while let Ok(Some(line)) = lines.next_line().await {
            let m: Value = serde_json::from_str(&line).unwrap();
            seen.push(m["method"].as_str().unwrap_or("response").to_string());
            let reply = match m["method"].as_str() {
                Some("server/discover") => Some(json!({"jsonrpc": "2.0", "id": m["id"],
                    "error": {"code": -32601, "message": "Method not found"}})),
                Some("initialize") => {
                    assert!(
                        m["params"]["capabilities"]["elicitation"].is_object(),
                        "{m}"
                    );
                    Some(json!({"jsonrpc": "2.0", "id": m["id"], "result": {
                        "protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                        "serverInfo": {"name": "old", "version": "1"}}}))
                }
                Some("tools/call") => {
                    assert!(m["params"].get("_meta").is_none(), "no 2026 _meta: {m}");
                    let ask = json!({"jsonrpc": "2.0", "id": "s1", "method": "elicitation/create",
                        "params": {"message": "Name?", "requestedSchema": {"type": "object",
                            "properties": {"name": {"type": "string"}}}}});
                    write
                        .write_all(format!("{ask}\n").as_bytes())
                        .await
                        .unwrap();
                    let answer: Value =
                        serde_json::from_str(&lines.next_line().await.unwrap().unwrap()).unwrap();
                    assert_eq!(answer["id"], "s1", "{answer}");
                    let name = answer["result"]["content"]["name"]
                        .as_str()
                        .unwrap_or("?")
                        .to_string();
                    Some(json!({"jsonrpc": "2.0", "id": m["id"], "result": {
                        "content": [{"type": "text", "text": format!("Hello, {name}")}]}}))
                }
                _ => None,
            };
            if let Some(reply) = reply {
                write
                    .write_all(format!("{reply}\n").as_bytes())
                    .await
                    .unwrap();
            }
            if seen.last().map(String::as_str) == Some("tools/call") {
                break;
            }
        }
        seen
    });
    let (r, w) = tokio::io::split(client_end);
    let client = mcp_tests::support::answering_client(Client::over_io(r, w));
    let result = client.call_tool("greet", json!({})).await.unwrap();
    assert_eq!(mcp_tests::support::text(&result), "Hello, Ada");
    let seen = script.await.unwrap();
    assert_eq!(
        seen,
        [
            "server/discover",
            "initialize",
            "notifications/initialized",
            "tools/call"
        ],
        "the probe, the fallback, then the call"
    );
}

#[tokio::test]
async fn an_http_ask_that_is_never_answered_times_out_and_the_session_goes_on() {
    let limits = Limits::default().ask_timeout(Duration::from_millis(300));
    let (url, addr) = http_with(server(), limits).await;
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {"elicitation": {}},
        "clientInfo": {"name": "t", "version": "1"}}});
    let (_, headers, _) = post(&url, None, init).await;
    let session = headers
        .iter()
        .find(|(k, _)| k == "mcp-session-id")
        .map(|(_, v)| v.clone())
        .unwrap();
    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                      "params": {"name": "plan_trip", "arguments": {"city": "Lima"}}});
    let mut stream = Stream::open(addr, &session, "POST", Some(call)).await;
    let ask = stream.next().await;
    assert_eq!(ask["method"], "elicitation/create", "{ask}");
    // No answer: after the ask timeout the call ends with a tool error on the same stream.
    let done = stream.next().await;
    assert_eq!(done["id"], 1, "{done}");
    assert_eq!(done["result"]["isError"], true, "{done}");
    let ping = json!({"jsonrpc": "2.0", "id": 2, "method": "ping"});
    assert_eq!(post(&url, Some(&session), ping).await.0, 200);
}

/// A 2025 HTTP session opened with elicitation and sampling; its id.
async fn open_session(url: &str) -> String {
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {"elicitation": {}, "sampling": {}},
        "clientInfo": {"name": "session-http", "version": "1"}}});
    let (status, headers, reply) = post(url, None, init).await;
    assert_eq!(status, 200, "{reply}");
    assert_eq!(reply["result"]["protocolVersion"], "2025-11-25");
    headers
        .iter()
        .find(|(k, _)| k == "mcp-session-id")
        .map(|(_, v)| v.clone())
        .expect("an Mcp-Session-Id")
}

fn last_event_id(id: &str) -> String {
    format!("Last-Event-ID: {id}\r\n")
}

#[tokio::test]
async fn a_lost_stream_is_resumed_with_last_event_id_and_the_call_goes_on() {
    let s = server();
    let (url, addr) = http(s.clone()).await;
    let session = open_session(&url).await;
    let call = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
                      "params": {"name": "plan_trip", "arguments": {"city": "Oslo"}}});
    let mut stream = Stream::open(addr, &session, "POST", Some(call)).await;
    // The priming event comes first, with an id, the retry hint and empty data.
    let (id, data) = stream.event().await.expect("a priming event");
    assert!(id.is_some() && data.is_empty(), "{}", stream.raw);
    assert!(stream.raw.contains("retry: 1000\n"), "{}", stream.raw);
    let (ask_id, ask) = stream.next_event().await;
    assert_eq!(ask["method"], "elicitation/create", "{ask}");
    let ask_id = ask_id.expect("the event has an id");
    // The connection is lost; the call is not cancelled by that.
    drop(stream);
    let answer = json!({"jsonrpc": "2.0", "id": ask["id"], "result": {"action": "accept", "content": {"name": "Ada"}}});
    assert_eq!(post(&url, Some(&session), answer).await.0, 202);
    // The client comes back after the last event it saw: the next request, then the result,
    // nothing twice.
    let mut resumed = Stream::open_with(addr, &session, "GET", None, &last_event_id(&ask_id)).await;
    let (_, ask) = resumed.next_event().await;
    assert_eq!(ask["method"], "sampling/createMessage", "{ask}");
    // Resuming again from the same event replays what came after it.
    let mut again = Stream::open_with(addr, &session, "GET", None, &last_event_id(&ask_id)).await;
    assert_eq!(again.next_event().await.1, ask);
    drop(again);
    let answer = json!({"jsonrpc": "2.0", "id": ask["id"], "result": sampled("Fjords!")});
    assert_eq!(post(&url, Some(&session), answer).await.0, 202);
    let (_, done) = resumed.next_event().await;
    assert_eq!(done["id"], 7, "{done}");
    assert_eq!(
        done["result"]["content"][0]["text"],
        "Ada to Oslo, booking B1: Fjords!"
    );
    assert!(
        resumed.ends().await,
        "the resumed stream ends after the result"
    );
    // A stream read to its end is not kept: resuming it opens the standalone stream.
    let mut after_end =
        Stream::open_with(addr, &session, "GET", None, &last_event_id(&ask_id)).await;
    let (primed, _) = after_end.event().await.expect("a priming event");
    let stream_of = |id: &str| id.split('-').next().unwrap_or_default().to_string();
    assert_ne!(
        primed.as_deref().map(stream_of),
        Some(stream_of(&ask_id)),
        "a new stream"
    );
}

#[tokio::test]
async fn a_handler_can_end_its_stream_and_the_client_resumes_it() {
    let (url, addr) = http(server()).await;
    let session = open_session(&url).await;
    let call = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                      "params": {"name": "polled", "arguments": {}}});
    let mut stream = Stream::open(addr, &session, "POST", Some(call)).await;
    let (priming, data) = stream.event().await.expect("a priming event");
    assert!(data.is_empty());
    assert!(stream.raw.contains("retry: 1000\n"), "{}", stream.raw);
    let priming = priming.expect("the priming event has an id");
    assert!(stream.ends().await, "the stream ends before the result");
    let mut resumed =
        Stream::open_with(addr, &session, "GET", None, &last_event_id(&priming)).await;
    let (_, done) = resumed.next_event().await;
    assert_eq!(done["id"], 3, "{done}");
    assert_eq!(done["result"]["content"][0]["text"], "polled done");
}

#[tokio::test]
async fn a_lost_stream_nobody_resumes_cancels_its_call_after_the_window() {
    let counter = Finished::default();
    let s = server_counting(counter.clone());
    let limits = Limits::default().resume_window(Duration::from_millis(100));
    let (url, addr) = http_with(s.clone(), limits).await;
    let session = open_session(&url).await;
    let call = |id: u64| {
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
            "name": "slow", "arguments": {"ms": 500}, "_meta": {"progressToken": "p"}}})
    };
    // Kept: the call finishes.
    let mut kept = Stream::open(addr, &session, "POST", Some(call(1))).await;
    assert_eq!(kept.next().await["method"], "notifications/progress");
    assert_eq!(
        kept.next().await["result"]["content"][0]["text"],
        "slow done"
    );
    let finished = || counter.count.load(Ordering::SeqCst);
    assert_eq!(finished(), 1);
    // Lost and never resumed: cancelled once the window passes.
    let mut lost = Stream::open(addr, &session, "POST", Some(call(2))).await;
    assert_eq!(lost.next().await["method"], "notifications/progress");
    drop(lost);
    tokio::time::sleep(Duration::from_millis(900)).await;
    assert_eq!(finished(), 1, "the abandoned call was cancelled");
}

#[tokio::test]
async fn notifications_cancelled_stops_a_running_call() {
    let counter = Finished::default();
    let s = server_counting(counter.clone());
    let (url, addr) = http(s.clone()).await;
    let session = open_session(&url).await;
    let call = json!({"jsonrpc": "2.0", "id": "c1", "method": "tools/call", "params": {
        "name": "slow", "arguments": {"ms": 400}, "_meta": {"progressToken": "p"}}});
    let mut stream = Stream::open(addr, &session, "POST", Some(call)).await;
    assert_eq!(stream.next().await["method"], "notifications/progress");
    let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                        "params": {"requestId": "c1", "reason": "changed my mind"}});
    assert_eq!(post(&url, Some(&session), cancel).await.0, 202);
    assert!(stream.ends().await, "the stream ends with no result");
    tokio::time::sleep(Duration::from_millis(600)).await;
    assert_eq!(counter.count.load(Ordering::SeqCst), 0);
    // The session goes on.
    let ping = json!({"jsonrpc": "2.0", "id": 9, "method": "ping"});
    assert_eq!(post(&url, Some(&session), ping).await.0, 200);
}

/// `notifications/cancelled` with an id is a request, not a cancellation: over HTTP and over
/// stdio it is answered with an error and the call it names goes on to its result.
#[tokio::test]
async fn a_cancellation_with_an_id_is_answered_and_cancels_nothing() {
    let s = server_counting(Finished::default());
    let (url, addr) = http(s.clone()).await;
    let session = open_session(&url).await;
    let call = json!({"jsonrpc": "2.0", "id": "c1", "method": "tools/call", "params": {
        "name": "slow", "arguments": {"ms": 200}, "_meta": {"progressToken": "p"}}});
    let posing = json!({"jsonrpc": "2.0", "id": 8, "method": "notifications/cancelled",
                        "params": {"requestId": "c1"}});
    let mut stream = Stream::open(addr, &session, "POST", Some(call.clone())).await;
    assert_eq!(stream.next().await["method"], "notifications/progress");
    let (_, _, reply) = post(&url, Some(&session), posing.clone()).await;
    assert_eq!(reply["id"], 8, "{reply}");
    assert!(reply["error"]["code"].is_i64(), "{reply}");
    let done = stream.next().await;
    assert_eq!(
        (&done["id"], &done["result"]["content"][0]["text"]),
        (&json!("c1"), &json!("slow done")),
        "{done}"
    );
    let mut client = SessionClient::start(s, Limits::default());
    client.initialize(json!({})).await;
    client.send(call).await;
    assert_eq!(client.next().await["method"], "notifications/progress");
    client.send(posing).await;
    let reply = client.next().await;
    assert_eq!(reply["id"], 8, "{reply}");
    assert!(reply["error"]["code"].is_i64(), "{reply}");
    let done = client.next().await;
    assert_eq!(done["result"]["content"][0]["text"], "slow done", "{done}");
}

#[tokio::test]
async fn an_unknown_last_event_id_opens_the_standalone_stream() {
    let s = server();
    let (url, addr) = http(s.clone()).await;
    let session = open_session(&url).await;
    let mut stream = Stream::open_with(addr, &session, "GET", None, &last_event_id("99-4")).await;
    let (priming, _) = stream.event().await.expect("a priming event");
    assert!(priming.is_some());
    tokio::time::sleep(Duration::from_millis(100)).await;
    s.notify_list_changed(oxmcp::ListKind::Tools);
    assert_eq!(
        stream.next().await["method"],
        "notifications/tools/list_changed"
    );
}

#[tokio::test]
async fn a_notification_sent_just_before_the_reply_comes_first_on_the_stream() {
    let (url, addr) = http(server()).await;
    let session = open_session(&url).await;
    let level = json!({"jsonrpc": "2.0", "id": 1, "method": "logging/setLevel",
                       "params": {"level": "info"}});
    assert_eq!(post(&url, Some(&session), level).await.0, 200);
    // `chatty` logs and returns at once, without waiting on anything: the log message is
    // streamed, then the result.
    let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                      "params": {"name": "chatty", "arguments": {}}});
    let mut stream = Stream::open(addr, &session, "POST", Some(call)).await;
    let note = stream.next().await;
    assert_eq!(note["method"], "notifications/message", "{note}");
    assert_eq!(note["params"]["data"], "hello", "{note}");
    let done = stream.next().await;
    assert_eq!(done["id"], 2, "{done}");
    assert_eq!(done["result"]["content"][0]["text"], "logged");
    assert!(stream.ends().await);
    // Without the level, the same call is answered as plain JSON.
    let session = open_session(&url).await;
    let call = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                      "params": {"name": "chatty", "arguments": {}}});
    let (status, headers, reply) = post(&url, Some(&session), call).await;
    assert_eq!(status, 200);
    assert!(
        headers
            .iter()
            .any(|(k, v)| k == "content-type" && v.starts_with("application/json")),
        "{headers:?}"
    );
    assert_eq!(reply["result"]["content"][0]["text"], "logged", "{reply}");
}

#[tokio::test]
async fn notifications_cancelled_stops_a_call_that_has_sent_nothing_yet() {
    let counter = Finished::default();
    let s = server_counting(counter.clone());
    let (url, _) = http(s.clone()).await;
    let session = open_session(&url).await;
    // No progress token: the call sends nothing while it runs.
    let call = json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {
        "name": "slow", "arguments": {"ms": 2000}}});
    let started = std::time::Instant::now();
    let pending = {
        let (url, session) = (url.clone(), session.clone());
        tokio::spawn(async move { post(&url, Some(&session), call).await })
    };
    tokio::time::sleep(Duration::from_millis(150)).await;
    let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                        "params": {"requestId": 5}});
    assert_eq!(post(&url, Some(&session), cancel).await.0, 202);
    // The cancelled request's POST ends with no response to it, long before the call would
    // have finished.
    let (status, _, _) = pending.await.unwrap();
    assert_eq!(status, 202);
    assert!(started.elapsed() < Duration::from_millis(1500));
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert_eq!(counter.count.load(Ordering::SeqCst), 0);
    let ping = json!({"jsonrpc": "2.0", "id": 9, "method": "ping"});
    assert_eq!(post(&url, Some(&session), ping).await.0, 200);
}

#[tokio::test]
async fn the_initialize_result_names_the_version_capabilities_server_and_instructions() {
    let s = Arc::new(
        Server::builder()
            .name("trips")
            .version("2.1.0")
            .instructions("Plan \"trips\".\nAsk first.")
            .tool(chatty)
            .build()
            .unwrap(),
    );
    let (url, _) = http(s).await;
    let init = json!({"jsonrpc": "2.0", "id": "init-1", "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "c", "version": "1"}}});
    let (status, _, reply) = post(&url, None, init).await;
    assert_eq!(status, 200);
    assert_eq!(
        reply,
        json!({"jsonrpc": "2.0", "id": "init-1", "result": {
            "protocolVersion": "2025-06-18",
            "capabilities": {
                "tools": {"listChanged": true},
                "prompts": {"listChanged": true},
                "resources": {"subscribe": true, "listChanged": true},
                "logging": {},
                "completions": {}
            },
            "serverInfo": {"name": "trips", "version": "2.1.0"},
            "instructions": "Plan \"trips\".\nAsk first."
        }})
    );
}

proptest::proptest! {
    #![proptest_config(proptest::test_runner::Config::with_cases(
        std::env::var("PROPTEST_CASES").ok().and_then(|n| n.parse().ok()).unwrap_or(32)
    ))]

    /// A call's stream lost after any number of events, again and again, each time resumed
    /// with `Last-Event-ID` of the last event seen: across the connections every progress
    /// notification arrives once and in order, then the result, once.
    #[test]
    fn a_stream_resumed_after_any_events_delivers_each_message_once_in_order(
        n in 1u64..12,
        cuts in proptest::collection::vec(0usize..5, 0..4),
    ) {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        let outcome: Result<(), String> = runtime.block_on(async {
            let (url, addr) = http(server()).await;
            let session = open_session(&url).await;
            let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
                "name": "counts", "arguments": {"n": n}, "_meta": {"progressToken": "t"}}});
            let mut stream = Stream::open(addr, &session, "POST", Some(call)).await;
            let (mut progress, mut results) = (Vec::new(), Vec::new());
            let mut last: Option<String> = None;
            let mut cuts = cuts.into_iter();
            loop {
                // Read this connection's share of events (all of them after the last cut).
                let share = cuts.next();
                let mut read = 0;
                let ended = loop {
                    // A connection is lost only once an event id is known (a client that
                    // saw none has nothing to resume from).
                    if share.is_some_and(|k| read >= k) && last.is_some() {
                        break false;
                    }
                    let Some((id, data)) = stream.event().await else { break true };
                    if id.is_some() {
                        last = id;
                    }
                    if data.trim().is_empty() {
                        continue;
                    }
                    read += 1;
                    let message: Value = serde_json::from_str(&data).map_err(|e| e.to_string())?;
                    if message["method"] == "notifications/progress" {
                        progress.push(message["params"]["progress"].as_f64().unwrap_or(-1.0));
                    } else {
                        results.push(message);
                    }
                };
                // The result ends the call for the client, however its stream goes on.
                if !results.is_empty() {
                    break;
                }
                if ended {
                    return Err(format!("the stream ended without the result: {}", stream.raw));
                }
                // Lost; resumed after the last event seen.
                drop(stream);
                let last_id = last.clone().ok_or("no event id to resume from")?;
                stream = Stream::open_with(addr, &session, "GET", None, &last_event_id(&last_id)).await;
            }
            let want: Vec<f64> = (1..=n).map(|i| i as f64).collect();
            if progress != want {
                return Err(format!("progress {progress:?}, wanted {want:?}"));
            }
            if results.len() != 1 || results[0]["result"]["content"][0]["text"] != format!("counted {n}") {
                return Err(format!("results {results:?}"));
            }
            Ok(())
        });
        proptest::prop_assert!(outcome.is_ok(), "{}", outcome.unwrap_err());
    }
}

#[tokio::test]
async fn a_2025_initialize_advertises_the_extensions_the_server_serves() {
    let skills = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/skills");
    let with_skills = Arc::new(Server::builder().skills_dir(skills).build().unwrap());
    let mut client = SessionClient::start(with_skills, Limits::default());
    let init = client.initialize(json!({})).await;
    let extensions = &init["result"]["capabilities"]["extensions"];
    assert!(
        extensions["io.modelcontextprotocol/skills"].is_object(),
        "{init}"
    );
    // The other capabilities are still there, and a server without extensions declares none.
    assert!(
        init["result"]["capabilities"]["tools"].is_object(),
        "{init}"
    );
    let mut client = SessionClient::start(server(), Limits::default());
    let init = client.initialize(json!({})).await;
    assert!(
        init["result"]["capabilities"].get("extensions").is_none(),
        "{init}"
    );
    assert!(init["result"]["serverInfo"]["name"].is_string(), "{init}");
}
