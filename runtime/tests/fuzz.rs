//! Property-based fuzzing of what a peer controls, bounded so it runs with every `cargo test`
//! (set `PROPTEST_CASES` for a longer run): message decoding and dispatch, `requestState`
//! opening, the stdio line reader, and POSTs over streamable HTTP in and around a 2025 session.
//! Whatever the input, nothing panics, every request gets a reply with its id, and the server
//! keeps serving.

#[path = "it/common/mod.rs"]
mod common;

use common::{all_caps, meta};
use oxmcp::bench::Binding;
use oxmcp::stdio::{serve_io_with, StdioConfig};
use oxmcp::{
    client::Client,
    request_state::{KeyRing, RequestStateCodec, SealingKey},
    Server,
};
use proptest::prelude::*;
use serde_json::{json, Map, Value};
use std::sync::{Arc, OnceLock};

/// `default` cases per property, or as many as `PROPTEST_CASES` says (an explicit count in a
/// config would otherwise override the variable).
fn cases(default: u32) -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(default);
    ProptestConfig::with_cases(cases)
}

/// A current-thread runtime, its clock paused or not.
fn current_thread(paused: bool) -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .start_paused(paused)
        .build()
        .expect("a runtime")
}

fn runtime() -> &'static tokio::runtime::Runtime {
    static RT: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RT.get_or_init(|| current_thread(false))
}

/// A runtime whose clock is paused and moves on whenever every task waits, for tests whose
/// peers are in memory: a client's time limits (which scripted silence runs into) pass at once
/// instead of in real time, and a call that never ends still hits the test's own limit.
fn paused_runtime() -> &'static tokio::runtime::Runtime {
    static RT: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RT.get_or_init(|| current_thread(true))
}

fn server() -> Arc<Server> {
    static SERVER: OnceLock<Arc<Server>> = OnceLock::new();
    SERVER
        .get_or_init(|| {
            let keys = KeyRing::new(vec![SealingKey::new(1, &[3u8; 32]).unwrap()]).unwrap();
            Arc::new(
                mcp_tests::conformance::server(Server::builder().request_state_keys(keys))
                    .build()
                    .unwrap(),
            )
        })
        .clone()
}

/// Any JSON value, a few levels deep.
fn any_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<f64>().prop_map(|f| json!(f)),
        ".{0,12}".prop_map(Value::String),
        Just(json!("2026-07-28")),
        Just(json!("test_simple_text")),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            proptest::collection::vec((key(), inner), 0..6)
                .prop_map(|kv| Value::Object(kv.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

/// Object keys: the protocol's own names often, so the typed decoders go deep.
fn key() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => prop::sample::select(vec![
            "name", "arguments", "_meta", "inputResponses", "requestState", "uri", "cursor",
            "action", "content", "role", "model", "roots", "type", "text", "notifications",
            "io.modelcontextprotocol/protocolVersion", "io.modelcontextprotocol/clientCapabilities",
            "io.modelcontextprotocol/clientInfo", "progressToken", "ref", "argument",
            "taskId", "task", "ttl", "io.modelcontextprotocol/tasks",
        ]).prop_map(str::to_string),
        1 => ".{0,8}",
    ]
}

/// A JSON-RPC message shape with any parts: known methods, valid and invalid `_meta`, ids of
/// every type, params of any shape.
fn message() -> impl Strategy<Value = Value> {
    let method = prop_oneof![
        4 => prop::sample::select(vec![
            "server/discover", "tools/list", "tools/call", "prompts/list", "prompts/get",
            "resources/list", "resources/templates/list", "resources/read",
            "completion/complete", "subscriptions/listen", "notifications/cancelled",
            "initialize", "ping", "tasks/get", "tasks/update", "tasks/cancel",
        ])
        .prop_map(Value::from),
        1 => any_json(),
    ];
    let id = prop_oneof![
        any::<i64>().prop_map(Value::from),
        ".{0,6}".prop_map(Value::String),
        Just(Value::Null),
        any_json(),
    ];
    // With sound `_meta`, a tool that asks, runs as a task or both; the tasks extension declared
    // or not.
    let tool = prop::sample::select(vec![
        "test_input_required_result_multi_round",
        "test_tool_with_task",
        "confirm_delete",
        "multi_input",
        "greet",
    ]);
    let params = (
        any_json(),
        any::<bool>(),
        tool,
        any::<bool>(),
        key(),
        any_json(),
    )
        .prop_map(|(params, with_meta, tool, tasks, name, extra)| {
            let mut params = match params {
                Value::Object(m) => m,
                other => return other,
            };
            if with_meta {
                let mut caps = all_caps();
                if tasks {
                    caps["extensions"] = json!({"io.modelcontextprotocol/tasks": {}});
                }
                params.insert("_meta".into(), meta(caps));
                params.insert("name".into(), json!(tool));
            }
            params.insert(name, extra);
            Value::Object(params)
        });
    (
        prop::option::of(id),
        method,
        prop::option::of(params),
        any::<bool>(),
    )
        .prop_map(|(id, method, params, good_jsonrpc)| {
            let mut m = Map::new();
            m.insert(
                "jsonrpc".into(),
                if good_jsonrpc { json!("2.0") } else { json!(1) },
            );
            if let Some(id) = id {
                m.insert("id".into(), id);
            }
            m.insert("method".into(), method);
            if let Some(params) = params {
                m.insert("params".into(), params);
            }
            Value::Object(m)
        })
}

/// Whether `message` is a request the server must answer with its id: it has a string or
/// integer id and no other way out.
fn answerable_id(message: &Value) -> Option<&Value> {
    let id = message.get("id")?;
    (id.is_string() || id.is_i64() || id.is_u64()).then_some(id)
}

/// The id of `message` if it is a JSON-RPC 2.0 request (a method name) whose id the server must
/// answer ([`answerable_id`]).
fn request_id(message: &Value) -> Option<&Value> {
    (message["jsonrpc"] == "2.0" && message["method"].is_string())
        .then(|| answerable_id(message))
        .flatten()
}

/// `input` written to a stdio server with `config`, then its end: whether the server ended
/// cleanly, and everything it wrote (it must end its output within 10 s).
fn serve_stdio(input: &[u8], config: StdioConfig) -> (bool, Vec<u8>) {
    runtime().block_on(async {
        let (mut client, server_end) = tokio::io::duplex(1 << 20);
        let (read, write) = tokio::io::split(server_end);
        let serving = tokio::spawn(serve_io_with(server(), read, write, config));
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        client.write_all(input).await.unwrap();
        client.shutdown().await.unwrap();
        let mut out = Vec::new();
        tokio::time::timeout(
            std::time::Duration::from_secs(10),
            client.read_to_end(&mut out),
        )
        .await
        .expect("the server ends its output")
        .unwrap();
        let served = serving.await.expect("serve_io_with does not panic");
        (served.is_ok(), out)
    })
}

/// Whether `output` is JSON lines carrying one reply per request of `expected` (the ids sent;
/// an id sent twice gets two), and no more replies to an id than `input` has lines carrying it.
fn check_replies(expected: &[Value], input: &[u8], output: &[u8]) -> Result<(), String> {
    let mut replied = Vec::new();
    for line in output.split(|b| *b == b'\n').filter(|l| !l.is_empty()) {
        let message: Value = serde_json::from_slice(line).map_err(|e| {
            format!(
                "an output line that is not one JSON message ({e}): {}",
                String::from_utf8_lossy(line)
            )
        })?;
        if message.get("method").is_none() {
            replied.push(message["id"].clone());
        }
    }
    // Every input line that carries the id may be answered with it: a request with a usable
    // id but a broken envelope (`"jsonrpc": 1`) gets its error with that id too.
    let carried: Vec<Value> = input
        .split(|b| *b == b'\n')
        .filter_map(|l| serde_json::from_slice::<Value>(l).ok())
        .filter_map(|m| m.get("id").cloned())
        .collect();
    for id in expected {
        let sent = expected.iter().filter(|e| *e == id).count();
        let most = carried.iter().filter(|c| *c == id).count();
        let n = replied.iter().filter(|r| *r == id).count();
        if n < sent || n > most {
            return Err(format!(
                "{n} replies to {id} (sent {sent} times, {most} lines carry it): {}",
                String::from_utf8_lossy(output)
            ));
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(cases(1024))]

    #[test]
    fn any_message_gets_a_reply_to_its_id_and_never_a_panic(message in message()) {
        let server = server();
        let text = message.to_string();
        let reply = runtime().block_on(async {
            // A listen stream has no transport to stream on here; anything else answers.
            tokio::time::timeout(
                std::time::Duration::from_secs(5),
                server.handle_message(&text, None),
            )
            .await
        });
        let reply = reply.expect("every message is answered or dropped within 5 s");
        if let (Some(id), Some(reply)) = (answerable_id(&message), reply.as_ref()) {
            let reply = reply.to_value();
            let echoed = &reply["id"];
            prop_assert!(
                echoed == id || echoed.is_null(),
                "reply {reply} to {message}"
            );
            prop_assert!(reply.get("result").is_some() != reply.get("error").is_some());
        }
    }

    #[test]
    fn any_bytes_are_answered_without_a_panic(bytes in proptest::collection::vec(any::<u8>(), 0..256)) {
        let server = server();
        let text = String::from_utf8_lossy(&bytes).to_string();
        let reply = runtime().block_on(server.handle_message(&text, None));
        if let Some(reply) = reply {
            let reply = reply.to_value();
            prop_assert!(reply.get("error").is_some() || reply.get("result").is_some());
        }
    }

    #[test]
    fn no_request_state_text_opens_or_panics(token in ".{0,400}", raw in proptest::collection::vec(any::<u8>(), 0..300)) {
        let codec = RequestStateCodec::new(
            KeyRing::new(vec![SealingKey::new(1, &[3u8; 32]).unwrap()]).unwrap(),
        );
        let args = json!({"x": 1});
        let binding = Binding {
            method: "tools/call",
            target: "t",
            arguments: args.as_object(),
            principal: None,
            protocol_version: "2026-07-28",
        };
        prop_assert!(codec.open(&token, &binding).is_err());
        // Well-formed base64 of random bytes, with the format byte and key id in front.
        let mut framed = vec![2u8, 1u8];
        framed.extend_from_slice(&raw);
        use base64::Engine;
        let encoded = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(&framed);
        prop_assert!(codec.open(&encoded, &binding).is_err());
    }

    #[test]
    fn the_stdio_reader_answers_every_line_and_ends_cleanly(
        chunks in proptest::collection::vec(
            prop_oneof![
                proptest::collection::vec(any::<u8>(), 0..64),
                message().prop_map(|m| m.to_string().into_bytes()),
                // Short enough to be read: a sound request, 2026 or not.
                (any::<i64>(), prop::sample::select(vec!["tools/list", "ping", "tools/call",
                    "prompts/list", "server/discover", "resources/read", "tasks/get"]), any::<bool>())
                    .prop_map(|(id, method, stateless)| {
                        let params = if stateless { json!({"_meta": meta(json!({}))}) } else { json!({}) };
                        json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
                            .to_string()
                            .into_bytes()
                    }),
                Just(b"\n".to_vec()),
                Just(vec![0xff, 0xfe, b'\n']),
                Just(vec![b'x'; 300]),
            ],
            0..12,
        ),
    ) {
        // The requests that must be answered: a line that fits, is JSON-RPC 2.0 with a method
        // and a usable id (a listen stream, ended with the input, has no reply to give).
        let expected: Vec<Value> = chunks
            .iter()
            .filter(|c| c.len() < 256 && !c.contains(&b'\n'))
            .filter_map(|c| serde_json::from_slice::<Value>(c).ok())
            .filter(|m| m["method"] != "subscriptions/listen")
            .filter_map(|m| request_id(&m).cloned())
            .collect();
        let mut input: Vec<u8> = chunks.into_iter().flat_map(|mut c| { c.push(b'\n'); c }).collect();
        input.extend_from_slice(b"\n");
        let (ended, output) = serve_stdio(&input, StdioConfig::default().max_line(256));
        prop_assert!(ended, "serve_io_with ends cleanly");
        let replies = check_replies(&expected, &input, &output);
        prop_assert!(replies.is_ok(), "{}", replies.unwrap_err());
    }
}

proptest! {
    #![proptest_config(cases(128))]

    /// A 2025 session over stdio (a sound `initialize` first), then anything a peer may write:
    /// requests, calls that ask the client, answers to the server's requests (`mcp-server-N`),
    /// batches, bytes. Every request line with an id gets exactly one reply with that id, every
    /// output line is JSON, and at the end of input the server ends promptly: an ask that can
    /// no longer be answered does not hold it.
    #[test]
    fn a_legacy_stdio_session_answers_every_request_once_and_ends_at_eof(
        bodies in proptest::collection::vec(post_body(), 0..8),
    ) {
        let hello = json!({"jsonrpc": "2.0", "id": "hello", "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {"elicitation": {}, "sampling": {},
            "roots": {}}, "clientInfo": {"name": "fuzz", "version": "1"}}});
        let mut input = format!("{hello}\n{}\n",
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"})).into_bytes();
        let mut expected = vec![json!("hello")];
        for body in &bodies {
            let mut line = body.clone();
            line.retain(|b| *b != b'\n');
            if let Some(id) = serde_json::from_slice::<Value>(&line).ok().as_ref().and_then(request_id) {
                expected.push(id.clone());
            }
            input.extend_from_slice(&line);
            input.push(b'\n');
        }
        let started = std::time::Instant::now();
        let (ended, output) = serve_stdio(&input, StdioConfig::default());
        prop_assert!(ended, "serve_io_with ends cleanly");
        prop_assert!(started.elapsed() < std::time::Duration::from_secs(3), "ended after {:?}", started.elapsed());
        let replies = check_replies(&expected, &input, &output);
        prop_assert!(replies.is_ok(), "{}", replies.unwrap_err());
    }
}

/// The fuzzing server over streamable HTTP, 2025-era sessions on, with asks and lost streams
/// timing out quickly and no per-caller quota in the way (every case comes from one address):
/// its endpoint URL.
fn http_url() -> &'static str {
    static URL: OnceLock<String> = OnceLock::new();
    URL.get_or_init(|| {
        runtime().block_on(async {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            let addr = listener.local_addr().unwrap();
            let limits = oxmcp::Limits::default()
                .ask_timeout(std::time::Duration::from_millis(300))
                .resume_window(std::time::Duration::from_millis(300))
                .sessions_per_caller(1 << 20)
                .requests_per_caller(1 << 20);
            let config = oxmcp::http::HttpConfig::default().limits(limits);
            tokio::spawn(oxmcp::http::serve_listener(
                server(),
                listener,
                config,
                std::future::pending(),
            ));
            format!("http://{addr}/mcp")
        })
    })
}

/// What one HTTP exchange gave: the status, the content type, the session id it set, and the
/// JSON messages of the body (one for a JSON body, one per `data:` event of a stream).
/// `complete` is false when a stream was still open at the deadline and the client dropped it,
/// as a client may.
#[derive(Debug)]
struct Exchange {
    status: u16,
    content_type: String,
    session: Option<String>,
    messages: Vec<Value>,
    complete: bool,
}

/// Send `method` to `url` with `headers` and `body`, and read what comes back within a moment.
/// A response that is not JSON where it says it is fails the case.
async fn exchange(
    method: &str,
    url: &str,
    headers: &[(&str, String)],
    body: Vec<u8>,
) -> Result<Exchange, String> {
    use http_body_util::BodyExt;
    use std::time::Duration;
    let client = hyper_util::client::legacy::Client::builder(hyper_util::rt::TokioExecutor::new())
        .build_http();
    let mut request = hyper::Request::builder().method(method).uri(url);
    for (name, value) in headers {
        request = request.header(*name, value.as_str());
    }
    let request = request
        .body(http_body_util::Full::new(hyper::body::Bytes::from(body)))
        .map_err(|e| e.to_string())?;
    let response = tokio::time::timeout(Duration::from_secs(5), client.request(request))
        .await
        .map_err(|_| "no response head within 5 s".to_string())?
        .map_err(|e| format!("the exchange failed: {e}"))?;
    let status = response.status().as_u16();
    let content_type = response
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_string();
    let session = response
        .headers()
        .get("mcp-session-id")
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    let streaming = content_type.starts_with("text/event-stream");
    // A stream may wait on an ask nobody answers; anything else ends at once.
    let deadline = Duration::from_millis(if streaming { 200 } else { 5000 });
    let mut body = response.into_body();
    let mut bytes = Vec::new();
    let complete = tokio::time::timeout(deadline, async {
        while let Some(frame) = body.frame().await {
            let frame = frame.map_err(|e| format!("the body broke off: {e}"))?;
            if let Some(data) = frame.data_ref() {
                bytes.extend_from_slice(data);
            }
        }
        Ok::<_, String>(())
    })
    .await;
    let complete = match complete {
        Ok(read) => read.map(|()| true)?,
        Err(_) if streaming => false,
        Err(_) => {
            return Err(format!(
                "a {status} {content_type} body did not end within 5 s"
            ))
        }
    };
    let text = String::from_utf8(bytes).map_err(|_| "the body is not UTF-8".to_string())?;
    let mut messages = Vec::new();
    if streaming {
        for line in text.lines() {
            if let Some(data) = line.strip_prefix("data:") {
                if !data.trim().is_empty() {
                    messages.push(
                        serde_json::from_str(data.trim())
                            .map_err(|e| format!("an event that is not JSON ({e}): {data}"))?,
                    );
                }
            }
        }
    } else if content_type.starts_with("application/json") {
        messages.push(
            serde_json::from_str(&text)
                .map_err(|e| format!("a JSON body that is not JSON ({e}): {text}"))?,
        );
    }
    Ok(Exchange {
        status,
        content_type,
        session,
        messages,
        complete,
    })
}

/// What a fuzzed exchange does besides its claim.
#[derive(Debug, Clone)]
enum Verb {
    /// POST a body.
    Post,
    /// GET the session's stream, resuming after this event id if any.
    Get(Option<String>),
    /// DELETE (a session other than the one under test).
    Delete,
}

/// The headers a fuzzed POST goes with: which era and session it claims.
#[derive(Debug, Clone, Copy)]
enum Claim {
    /// The session's own version and id.
    InSession,
    /// The session's id with another 2025 version.
    OtherVersion,
    /// A 2025 version with no session.
    NoSession,
    /// A 2025 version and a session id the server never gave.
    UnknownSession,
    /// 2026-07-28, no session.
    Stateless,
    /// 2026-07-28 with the session's id.
    StatelessInSession,
    /// A version no era has.
    BadVersion,
}

/// A body a peer might POST: any message, a well-formed 2025 request with any params, a batch,
/// a response to a request the server may have sent (a session numbers them `mcp-server-N`), a
/// call that asks the client, or bytes.
fn post_body() -> impl Strategy<Value = Vec<u8>> {
    let response = (
        prop_oneof![
            3 => (0..4).prop_map(|n| json!(format!("mcp-server-{n}"))),
            1 => any_json(),
        ],
        prop_oneof![
            1 => any_json(),
            1 => (prop::sample::select(vec!["accept", "decline", "cancel", "other"]), any_json())
                .prop_map(|(action, content)| json!({"action": action, "content": content})),
        ],
        any::<bool>(),
    )
        .prop_map(|(id, payload, ok)| {
            if ok {
                json!({"jsonrpc": "2.0", "id": id, "result": payload})
            } else {
                json!({"jsonrpc": "2.0", "id": id, "error": payload})
            }
        });
    let request = (
        any::<i64>(),
        prop::sample::select(vec![
            "tools/list",
            "tools/call",
            "prompts/list",
            "prompts/get",
            "resources/list",
            "resources/read",
            "resources/templates/list",
            "resources/subscribe",
            "resources/unsubscribe",
            "completion/complete",
            "logging/setLevel",
            "ping",
            "notifications/cancelled",
            "initialize",
            "server/discover",
            "tasks/get",
            "tasks/update",
            "tasks/cancel",
        ]),
        proptest::collection::vec((key(), any_json()), 0..4),
    )
        .prop_map(|(id, method, params)| {
            let params: Map<String, Value> = params.into_iter().collect();
            json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
        });
    let asking = (any::<i64>(), any_json()).prop_map(|(id, arguments)| {
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
            "name": "test_input_required_result_elicitation", "arguments": arguments}})
    });
    prop_oneof![
        3 => message().prop_map(|m| m.to_string().into_bytes()),
        3 => request.prop_map(|r| r.to_string().into_bytes()),
        1 => proptest::collection::vec(message(), 0..4)
            .prop_map(|batch| Value::Array(batch).to_string().into_bytes()),
        3 => response.prop_map(|r| r.to_string().into_bytes()),
        2 => asking.prop_map(|a| a.to_string().into_bytes()),
        1 => proptest::collection::vec(any::<u8>(), 0..128),
    ]
}

/// The headers of a POST with `claim`, in the session `session`.
fn claimed(claim: Claim, session: &str) -> Vec<(&'static str, String)> {
    let mut headers = vec![
        ("content-type", "application/json".to_string()),
        ("accept", "application/json, text/event-stream".to_string()),
    ];
    let (version, session) = match claim {
        Claim::InSession => ("2025-11-25", Some(session.to_string())),
        Claim::OtherVersion => ("2025-06-18", Some(session.to_string())),
        Claim::NoSession => ("2025-11-25", None),
        Claim::UnknownSession => ("2025-11-25", Some("not-a-session".to_string())),
        Claim::Stateless => ("2026-07-28", None),
        Claim::StatelessInSession => ("2026-07-28", Some(session.to_string())),
        Claim::BadVersion => ("1999-01-01", Some(session.to_string())),
    };
    headers.push(("mcp-protocol-version", version.to_string()));
    if let Some(session) = session {
        headers.push(("mcp-session-id", session));
    }
    headers
}

/// Open a 2025 session over HTTP: its id.
async fn open_http_session(url: &str) -> Result<String, String> {
    let hello = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {"elicitation": {}, "sampling": {},
        "roots": {}}, "clientInfo": {"name": "fuzz", "version": "1"}}});
    let opened = exchange(
        "POST",
        url,
        &claimed(Claim::NoSession, ""),
        hello.to_string().into_bytes(),
    )
    .await?;
    let session = opened
        .session
        .ok_or_else(|| format!("initialize gave no session: {}", opened.status))?;
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let done = exchange(
        "POST",
        url,
        &claimed(Claim::InSession, &session),
        initialized.to_string().into_bytes(),
    )
    .await?;
    if done.status != 202 {
        return Err(format!("notifications/initialized got {done:?}"));
    }
    Ok(session)
}

proptest! {
    #![proptest_config(cases(256))]

    /// Over HTTP, in and around a 2025 session: whatever a peer POSTs, with whatever era and
    /// session it claims, the answer is a 2xx or 4xx status, every JSON body and stream event is
    /// JSON and every JSON-RPC reply has a result or an error, and afterwards the session still
    /// answers a ping and ends on DELETE.
    #[test]
    fn any_post_over_http_gets_a_clean_answer_and_the_session_keeps_serving(
        posts in proptest::collection::vec(
            (
                prop::sample::select(vec![
                    Claim::InSession, Claim::InSession, Claim::OtherVersion, Claim::NoSession,
                    Claim::UnknownSession, Claim::Stateless, Claim::StatelessInSession,
                    Claim::BadVersion,
                ]),
                post_body(),
                prop_oneof![
                    8 => Just(Verb::Post),
                    1 => prop_oneof![
                        Just(None),
                        (0u64..4, 0u64..4).prop_map(|(s, n)| Some(format!("{s}-{n}"))),
                        "[ -~]{0,12}".prop_map(Some),
                    ]
                    .prop_map(Verb::Get),
                    1 => Just(Verb::Delete),
                ],
            ),
            1..5,
        ),
    ) {
        let url = http_url();
        let outcome: Result<(), String> = runtime().block_on(async {
            let session = open_http_session(url).await?;
            for (claim, body, verb) in posts {
                let mut headers = claimed(claim, &session);
                // A 2026 request carries the MCP headers its body calls for, so it gets past
                // the header check to the handlers.
                let mut body = body;
                if matches!(claim, Claim::Stateless | Claim::StatelessInSession) {
                    // And, where its params are an object with no `_meta`, a sound one.
                    if let Ok(mut m) = serde_json::from_slice::<Value>(&body) {
                        if let Some(params) = m.get_mut("params").and_then(Value::as_object_mut) {
                            if !params.contains_key("_meta") {
                                let mut caps = all_caps();
                                caps["extensions"] = json!({"io.modelcontextprotocol/tasks": {}});
                                params.insert("_meta".into(), meta(caps));
                                body = m.to_string().into_bytes();
                            }
                        }
                        // Only what a header can carry: a method or name with other
                        // characters is sent without its header, as a client would have to.
                        let fits = |s: &str| s.chars().all(|c| (' '..='~').contains(&c));
                        if let Some(method) = m["method"].as_str().filter(|s| fits(s)) {
                            headers.push(("mcp-method", method.to_string()));
                        }
                        let name = m["params"]["name"].as_str().or(m["params"]["uri"].as_str());
                        if let Some(name) = name.or(m["params"]["taskId"].as_str()).filter(|s| fits(s)) {
                            headers.push(("mcp-name", name.to_string()));
                        }
                    }
                }
                let (method, body) = match verb {
                    Verb::Post => ("POST", body),
                    Verb::Get(last) => {
                        headers.retain(|(name, _)| *name != "content-type");
                        headers.extend(last.map(|id| ("last-event-id", id)));
                        ("GET", Vec::new())
                    }
                    // Not the session's own DELETE, which ends it.
                    Verb::Delete if matches!(claim, Claim::InSession) => continue,
                    Verb::Delete => ("DELETE", Vec::new()),
                };
                let shown = format!("{method} {}", String::from_utf8_lossy(&body));
                // A request with a usable id, whose reply must carry it.
                let asked_id = serde_json::from_slice::<Value>(&body)
                    .ok()
                    .and_then(|m| request_id(&m).cloned());
                let got = exchange(method, url, &headers, body).await?;
                if !(200..500).contains(&got.status) {
                    return Err(format!("{claim:?} {shown}: status {}", got.status));
                }
                for message in &got.messages {
                    if message.get("jsonrpc").is_some()
                        && message.get("method").is_none()
                        && message.get("result").is_some() == message.get("error").is_some()
                    {
                        return Err(format!(
                            "{claim:?} {shown}: a reply with neither or both of result and \
                             error: {message}"
                        ));
                    }
                }
                if let (Some(id), true, Some(last)) =
                    (&asked_id, got.complete, got.messages.last())
                {
                    if method == "POST" && last["id"] != *id && !last["id"].is_null() {
                        return Err(format!("{claim:?} {shown}: the reply names another id: {last}"));
                    }
                }
                if got.status == 200 && got.complete && got.messages.is_empty() {
                    return Err(format!(
                        "{claim:?} {shown}: 200 with no message ({})",
                        got.content_type
                    ));
                }
            }
            let ping = json!({"jsonrpc": "2.0", "id": "after", "method": "ping"});
            let pong = exchange(
                "POST",
                url,
                &claimed(Claim::InSession, &session),
                ping.to_string().into_bytes(),
            )
            .await?;
            if pong.status != 200
                || pong.messages.last().map(|m| (&m["id"], &m["result"]))
                    != Some((&json!("after"), &json!({})))
            {
                return Err(format!("the session no longer answers a ping: {pong:?}"));
            }
            let mut headers = claimed(Claim::InSession, &session);
            headers.retain(|(name, _)| *name != "content-type");
            let ended = exchange("DELETE", url, &headers, Vec::new()).await?;
            if !(200..300).contains(&ended.status) {
                return Err(format!("DELETE of the session got {ended:?}"));
            }
            Ok(())
        });
        prop_assert!(outcome.is_ok(), "{}", outcome.unwrap_err());
    }
}

/// What a scripted server does with one request line it reads (after the handshake).
#[derive(Debug, Clone)]
enum Answer {
    /// A sound tool result with this text.
    Complete(String),
    /// A result with the request's id.
    Result(Value),
    /// An error with the request's id (any shape).
    Error(Value),
    /// An `input_required` result with these input requests and `requestState`.
    InputRequired(Value, Value),
    /// A result with another id.
    OtherId(Value, Value),
    /// A request of the server's own (as a 2025 server asks), then nothing.
    Ask(Value, Value),
    /// A notification, then nothing.
    Notify(Value),
    /// A line that is not JSON, then nothing.
    Garbage(Vec<u8>),
    /// Nothing at all.
    Silence,
}

fn answer() -> impl Strategy<Value = Answer> {
    let inputs = prop_oneof![
        1 => any_json(),
        1 => Just(json!({"who": {"method": "elicitation/create", "params": {"mode": "form",
            "message": "Your name?", "requestedSchema": {"type": "object",
            "properties": {"name": {"type": "string"}}}}}})),
        2 => proptest::collection::vec(
            (".{0,6}", prop::sample::select(vec!["elicitation/create", "sampling/createMessage",
                "roots/list", "other"]), any_json()),
            0..3,
        )
        .prop_map(|asks| {
            Value::Object(
                asks.into_iter()
                    .map(|(key, method, params)| (key, json!({"method": method, "params": params})))
                    .collect(),
            )
        }),
    ];
    prop_oneof![
        2 => ".{0,12}".prop_map(Answer::Complete),
        3 => any_json().prop_map(Answer::Result),
        1 => prop_oneof![
            any_json(),
            (any::<i64>(), ".{0,12}").prop_map(|(code, message)| json!({"code": code, "message": message})),
        ]
        .prop_map(Answer::Error),
        3 => (inputs, any_json()).prop_map(|(i, s)| Answer::InputRequired(i, s)),
        1 => (any_json(), any_json()).prop_map(|(id, r)| Answer::OtherId(id, r)),
        1 => (
            prop::sample::select(vec!["elicitation/create", "sampling/createMessage", "roots/list", "ping", "other"])
                .prop_map(Value::from),
            any_json(),
        )
            .prop_map(|(m, p)| Answer::Ask(m, p)),
        1 => any_json().prop_map(Answer::Notify),
        1 => proptest::collection::vec(any::<u8>(), 0..64)
            .prop_map(|mut b| { b.retain(|c| *c != b'\n'); Answer::Garbage(b) }),
        1 => Just(Answer::Silence),
    ]
}

/// The handshake as a sound server answers it, so a script reaches the call: `server/discover`
/// for the stateless era (`stateless`) or `method not found` to it and an `initialize` result for a
/// 2025 session. None for any other message.
fn handshake(message: &Value, stateless: bool) -> Option<Value> {
    let mut reply = match message["method"].as_str()? {
        "server/discover" if stateless => json!({"result": {
            "resultType": "complete", "supportedVersions": ["2026-07-28"],
            "capabilities": {"tools": {}},
            "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "scripted", "version": "1"}}}}),
        "server/discover" => json!({"error": {"code": -32601, "message": "Method not found"}}),
        "initialize" => json!({"result": {
            "protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
            "serverInfo": {"name": "scripted", "version": "1"}}}),
        _ => return None,
    };
    reply["jsonrpc"] = json!("2.0");
    reply["id"] = message.get("id")?.clone();
    Some(reply)
}

/// The text of `answer` to the request with `id`; none for silence.
fn render(answer: Answer, id: &Value) -> Option<String> {
    Some(match answer {
        Answer::Complete(text) => json!({"jsonrpc": "2.0", "id": id, "result": {
            "content": [{"type": "text", "text": text}]}})
        .to_string(),
        Answer::Result(r) => json!({"jsonrpc": "2.0", "id": id, "result": r}).to_string(),
        Answer::Error(e) => json!({"jsonrpc": "2.0", "id": id, "error": e}).to_string(),
        Answer::InputRequired(inputs, state) => json!({"jsonrpc": "2.0", "id": id, "result": {
            "resultType": "input_required", "inputRequests": inputs, "requestState": state}})
        .to_string(),
        Answer::OtherId(other, r) => {
            json!({"jsonrpc": "2.0", "id": other, "result": r}).to_string()
        }
        Answer::Ask(method, params) => {
            json!({"jsonrpc": "2.0", "id": "s-1", "method": method, "params": params}).to_string()
        }
        Answer::Notify(params) => {
            json!({"jsonrpc": "2.0", "method": "notifications/message", "params": params})
                .to_string()
        }
        Answer::Garbage(bytes) => String::from_utf8_lossy(&bytes).to_string(),
        Answer::Silence => return None,
    })
}

/// The era a client is told to speak, or none (it probes).
fn any_era() -> impl Strategy<Value = Option<oxmcp::client::Era>> {
    use oxmcp::client::Era;
    prop::sample::select(vec![None, Some(Era::Stateless), Some(Era::Session)])
}

/// Whether a call of a tool by `client` (with a short time limit, three rounds at most, `era`
/// if any, and forms answered) ends within 5 s, with a value or an error.
async fn call_ends(client: Client, era: Option<oxmcp::client::Era>) -> bool {
    let mut client = client
        .timeout(Some(std::time::Duration::from_millis(100)))
        .max_rounds(3);
    if let Some(era) = era {
        client = client.era(era);
    }
    let client = mcp_tests::support::answering_client(client);
    let call = client.call_tool("test_simple_text", json!({"x": 1}));
    tokio::time::timeout(std::time::Duration::from_secs(5), call)
        .await
        .is_ok()
}

/// Panics anywhere in the process outside this file since the hook was installed (a client's
/// reader and writer run in tasks of their own, whose panics would not reach the test
/// otherwise). A panic located in this file is a test of its own failing (proptest reports a
/// failed property by panicking), which the other tests running beside it must not count.
fn panics() -> &'static std::sync::atomic::AtomicUsize {
    static COUNT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    static HOOK: std::sync::Once = std::sync::Once::new();
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if info
                .location()
                .is_none_or(|at| !at.file().ends_with(file!()))
            {
                COUNT.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            }
            previous(info);
        }));
    });
    &COUNT
}

proptest! {
    #![proptest_config(cases(256))]

    /// A client facing a server that answers anything: each request line gets the next scripted
    /// answer (results and errors of any shape, `input_required` with any inputs and state,
    /// stray ids, requests and notifications of the server's own, garbage, silence). Whatever
    /// comes, the call ends within its time limit with a value or an error, nothing panics, and
    /// the client stops writing once the server is gone.
    #[test]
    fn a_client_ends_every_call_cleanly_whatever_the_server_says(
        script in proptest::collection::vec(answer(), 1..10),
        era in any_era(),
        stateless in any::<bool>(),
    ) {
        use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
        let before = panics().load(std::sync::atomic::Ordering::SeqCst);
        let ended = paused_runtime().block_on(async move {
            let (client_end, server_end) = tokio::io::duplex(1 << 16);
            let (client_read, client_write) = tokio::io::split(client_end);
            let (server_read, mut server_write) = tokio::io::split(server_end);
            let server = tokio::spawn(async move {
                let mut lines = BufReader::new(server_read).lines();
                let mut script = script.into_iter();
                while let Ok(Some(line)) = lines.next_line().await {
                    let Ok(message) = serde_json::from_str::<Value>(&line) else { continue };
                    // Only requests are answered; the client's notifications and responses are
                    // read and passed over.
                    let (Some(id), Some(_)) = (message.get("id"), message.get("method")) else {
                        continue;
                    };
                    if let Some(reply) = handshake(&message, stateless) {
                        let reply = reply.to_string();
                        if server_write.write_all(format!("{reply}\n").as_bytes()).await.is_err() {
                            break;
                        }
                        continue;
                    }
                    let Some(answer) = script.next() else { break };
                    let Some(out) = render(answer, id) else { continue };
                    if server_write.write_all(format!("{out}\n").as_bytes()).await.is_err() {
                        break;
                    }
                }
            });
            let ended = call_ends(Client::over_io(client_read, client_write), era).await;
            server.abort();
            ended
        });
        prop_assert!(ended, "the call ended within its limits");
        prop_assert_eq!(panics().load(std::sync::atomic::Ordering::SeqCst), before, "nothing panicked");
    }
}

/// What a scripted HTTP server answers one POSTed request with (after the handshake).
#[derive(Debug, Clone)]
enum HttpAnswer {
    /// 200 with the answer as a JSON body (silence: the response never comes).
    Json(Answer),
    /// 200 with an SSE stream of these answers as events, held open after them if `open`.
    Stream(Vec<Answer>, bool),
    /// This status and content type with this body.
    Status(u16, &'static str, Vec<u8>),
    /// Bytes that are not an HTTP response, then the connection closes.
    NotHttp(Vec<u8>),
}

fn http_answer() -> impl Strategy<Value = HttpAnswer> {
    prop_oneof![
        3 => answer().prop_map(HttpAnswer::Json),
        3 => (proptest::collection::vec(answer(), 0..4), any::<bool>())
            .prop_map(|(events, open)| HttpAnswer::Stream(events, open)),
        2 => (
            prop::sample::select(vec![200u16, 202, 204, 301, 400, 401, 403, 404, 405, 429, 500, 503]),
            prop::sample::select(vec!["application/json", "text/event-stream", "text/plain", ""]),
            prop_oneof![
                any_json().prop_map(|v| v.to_string().into_bytes()),
                proptest::collection::vec(any::<u8>(), 0..64),
            ],
        )
            .prop_map(|(status, kind, body)| HttpAnswer::Status(status, kind, body)),
        1 => proptest::collection::vec(any::<u8>(), 0..64).prop_map(HttpAnswer::NotHttp),
    ]
}

/// A scripted streamable HTTP server on an ephemeral port: each connection carries one request
/// (`Connection: close`), the handshake gets a sound answer ([`handshake`], with a session id
/// for `initialize`), GET gets 405, DELETE 200, notifications and responses 202, and every other
/// request the next answer of `script` (silence once it runs out). Its endpoint URL.
async fn scripted_http(script: Vec<HttpAnswer>, stateless: bool) -> String {
    use tokio::io::AsyncWriteExt;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let script = Arc::new(std::sync::Mutex::new(std::collections::VecDeque::from(
        script,
    )));
    tokio::spawn(async move {
        while let Ok((tcp, _)) = listener.accept().await {
            let script = script.clone();
            tokio::spawn(async move {
                let (read, mut write) = tcp.into_split();
                let mut read = tokio::io::BufReader::new(read);
                let Some((method, body)) = mcp_tests::support::read_request(&mut read).await else {
                    return;
                };
                let head = |status: u16, kind: &str, extra: &str, len: Option<usize>| {
                    let mut h = format!("HTTP/1.1 {status} X\r\nconnection: close\r\n{extra}");
                    if !kind.is_empty() {
                        h.push_str(&format!("content-type: {kind}\r\n"));
                    }
                    if let Some(len) = len {
                        h.push_str(&format!("content-length: {len}\r\n"));
                    }
                    h + "\r\n"
                };
                let fixed = |status: u16, kind: &str, extra: &str, body: &[u8]| {
                    let mut out = head(status, kind, extra, Some(body.len())).into_bytes();
                    out.extend_from_slice(body);
                    out
                };
                let message: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
                let out = match method.as_str() {
                    "GET" => fixed(405, "", "", b""),
                    "DELETE" => fixed(200, "", "", b""),
                    _ => match (message.get("id"), message.get("method")) {
                        (Some(id), Some(_)) => {
                            if let Some(reply) = handshake(&message, stateless) {
                                let session = if message["method"] == "initialize" {
                                    "mcp-session-id: s-1\r\n"
                                } else {
                                    ""
                                };
                                let status = if reply.get("error").is_some() {
                                    400
                                } else {
                                    200
                                };
                                fixed(
                                    status,
                                    "application/json",
                                    session,
                                    reply.to_string().as_bytes(),
                                )
                            } else {
                                let next = script.lock().unwrap().pop_front();
                                match next {
                                    Some(HttpAnswer::Json(answer)) => match render(answer, id) {
                                        Some(text) => {
                                            fixed(200, "application/json", "", text.as_bytes())
                                        }
                                        None => {
                                            tokio::time::sleep(std::time::Duration::from_secs(2))
                                                .await;
                                            return;
                                        }
                                    },
                                    Some(HttpAnswer::Stream(events, open)) => {
                                        let mut out = head(200, "text/event-stream", "", None);
                                        for (n, event) in events.into_iter().enumerate() {
                                            if let Some(text) = render(event, id) {
                                                let text = text.replace(['\r', '\n'], " ");
                                                out.push_str(&format!("id: {n}\ndata: {text}\n\n"));
                                            }
                                        }
                                        if write.write_all(out.as_bytes()).await.is_err() {
                                            return;
                                        }
                                        if open {
                                            tokio::time::sleep(std::time::Duration::from_secs(2))
                                                .await;
                                        }
                                        return;
                                    }
                                    Some(HttpAnswer::Status(status, kind, body)) => {
                                        fixed(status, kind, "", &body)
                                    }
                                    Some(HttpAnswer::NotHttp(bytes)) => bytes,
                                    None => {
                                        tokio::time::sleep(std::time::Duration::from_secs(2)).await;
                                        return;
                                    }
                                }
                            }
                        }
                        _ => fixed(202, "", "", b""),
                    },
                };
                let _ = write.write_all(&out).await;
            });
        }
    });
    url
}

proptest! {
    #![proptest_config(cases(128))]

    /// The HTTP client facing a server that answers anything: JSON bodies and SSE streams of
    /// any messages, streams that stay open, any status with any content type and body, bytes
    /// that are not HTTP. Every call ends within its time limit with a value or an error and
    /// nothing panics.
    #[test]
    fn an_http_client_ends_every_call_cleanly_whatever_the_server_sends(
        script in proptest::collection::vec(http_answer(), 1..6),
        era in any_era(),
        stateless in any::<bool>(),
    ) {
        let before = panics().load(std::sync::atomic::Ordering::SeqCst);
        let ended = runtime().block_on(async move {
            let url = scripted_http(script, stateless).await;
            call_ends(Client::http(&url), era).await
        });
        prop_assert!(ended, "the call ended within its limits");
        prop_assert_eq!(panics().load(std::sync::atomic::Ordering::SeqCst), before, "nothing panicked");
    }
}

/// One step of a client driving the server through rounds and tasks, reusing what earlier
/// replies gave it, sound or spoiled.
#[derive(Debug, Clone)]
enum Step {
    /// Call `tool` with these arguments, declaring the tasks extension or not.
    Call(&'static str, Value, bool),
    /// Retry the last call that needed input: answers of this shape, the state as given or
    /// spoiled (`Spoil`), under the same or another tool name.
    Retry(Answers, Spoil, bool),
    /// `tasks/get`, `tasks/update` (with answers) or `tasks/cancel` on the `n`th task seen (or
    /// a made-up id when there is none), declaring the extension or not.
    Task(&'static str, usize, Answers, bool),
}

/// The answers a retry or `tasks/update` carries.
#[derive(Debug, Clone)]
enum Answers {
    /// For every key asked: an accepted form with a `name`, `ok` and `filename`.
    Sound,
    /// For every key asked: this value.
    Each(Value),
    /// This, whatever was asked.
    Any(Value),
}

/// What becomes of a `requestState` before it is sent back.
#[derive(Debug, Clone)]
enum Spoil {
    Keep,
    /// One character but the last changed, at this position (modulo the length).
    Flip(usize),
    /// Cut to this many characters (modulo its length).
    Cut(usize),
    /// Replaced by this value.
    Replace(Value),
}

fn step() -> impl Strategy<Value = Step> {
    let tool = prop::sample::select(vec![
        "test_input_required_result_multi_round",
        "test_input_required_result_elicitation",
        "test_tool_with_task",
        "confirm_delete",
        "multi_input",
        "greet",
        "failing_job",
        "protocol_error_job",
    ]);
    let arguments = prop_oneof![
        3 => Just(json!({})),
        2 => ".{0,8}".prop_map(|s| json!({"name": s, "filename": s})),
        1 => any_json(),
    ];
    let answers = prop_oneof![
        3 => Just(Answers::Sound),
        1 => any_json().prop_map(Answers::Each),
        1 => any_json().prop_map(Answers::Any),
    ];
    let spoil = prop_oneof![
        4 => Just(Spoil::Keep),
        1 => any::<usize>().prop_map(Spoil::Flip),
        1 => any::<usize>().prop_map(Spoil::Cut),
        1 => any_json().prop_map(Spoil::Replace),
    ];
    prop_oneof![
        3 => (tool, arguments, any::<bool>()).prop_map(|(t, a, x)| Step::Call(t, a, x)),
        3 => (answers.clone(), spoil, prop_oneof![4 => Just(false), 1 => Just(true)])
            .prop_map(|(a, s, o)| Step::Retry(a, s, o)),
        3 => (
            prop::sample::select(vec!["tasks/get", "tasks/update", "tasks/cancel"]),
            0usize..3,
            answers,
            prop_oneof![4 => Just(true), 1 => Just(false)],
        )
            .prop_map(|(m, n, a, x)| Step::Task(m, n, a, x)),
    ]
}

/// `answers` for the input requests `asked` (a JSON object of key to request).
fn answers_for(answers: &Answers, asked: &Value) -> Value {
    let keys = asked
        .as_object()
        .map(|m| m.keys().cloned().collect::<Vec<_>>())
        .unwrap_or_default();
    match answers {
        Answers::Any(v) => v.clone(),
        Answers::Each(v) => Value::Object(keys.into_iter().map(|k| (k, v.clone())).collect()),
        Answers::Sound => Value::Object(
            keys.into_iter()
                .map(|k| {
                    let form = json!({"action": "accept",
                        "content": {"name": "Ada", "ok": true, "filename": "a.txt"}});
                    (k, form)
                })
                .collect(),
        ),
    }
}

/// `state` as `spoil` leaves it.
fn spoiled(state: &Value, spoil: &Spoil) -> Value {
    let text = state.as_str().unwrap_or_default();
    let chars: Vec<char> = text.chars().collect();
    match spoil {
        Spoil::Keep => state.clone(),
        Spoil::Replace(v) => v.clone(),
        Spoil::Cut(n) if !chars.is_empty() => {
            json!(chars[..n % chars.len()].iter().collect::<String>())
        }
        // Not the last character, whose low bits base64 may leave unused.
        Spoil::Flip(n) if chars.len() > 1 => {
            let mut chars = chars;
            let at = n % (chars.len() - 1);
            chars[at] = if chars[at] == 'A' { 'B' } else { 'A' };
            json!(chars.into_iter().collect::<String>())
        }
        _ => state.clone(),
    }
}

proptest! {
    #![proptest_config(cases(256))]

    /// A client driving rounds and tasks with what earlier replies gave it, answered soundly
    /// or not, its `requestState` kept, spoiled or replaced, its task ids reused after the
    /// task ended: every request gets a reply with its id and either a result or an error,
    /// nothing panics, and a spoiled `requestState` is never accepted as a sound one.
    #[test]
    fn rounds_and_tasks_driven_by_any_client_get_clean_replies(
        steps in proptest::collection::vec(step(), 1..10),
    ) {
        let before = panics().load(std::sync::atomic::Ordering::SeqCst);
        let outcome: Result<(), String> = runtime().block_on(async {
            let server = server();
            let mut waiting: Option<(Value, Value)> = None; // (the call's params, its reply)
            // Each task seen, with the input it last asked for.
            let mut tasks: Vec<(Value, Value)> = Vec::new();
            for (n, step) in steps.into_iter().enumerate() {
                let id = json!(format!("step-{n}"));
                let (method, params, spoilt) = match &step {
                    Step::Call(tool, arguments, ext) => {
                        let mut caps = all_caps();
                        if *ext {
                            caps["extensions"] = json!({"io.modelcontextprotocol/tasks": {}});
                        }
                        let params = json!({"name": tool, "arguments": arguments,
                            "_meta": meta(caps)});
                        ("tools/call", params, false)
                    }
                    Step::Retry(answers, spoil, other_tool) => {
                        let Some((params, reply)) = &waiting else { continue };
                        let mut params = params.clone();
                        let result = &reply["result"];
                        params["inputResponses"] = answers_for(answers, &result["inputRequests"]);
                        if let Some(state) = result.get("requestState") {
                            params["requestState"] = spoiled(state, spoil);
                        }
                        if *other_tool {
                            params["name"] = json!("greet");
                        }
                        let spoilt = !matches!(spoil, Spoil::Keep)
                            && result.get("requestState").is_some()
                            && params.get("requestState") != result.get("requestState");
                        ("tools/call", params, spoilt)
                    }
                    Step::Task(method, n, answers, ext) => {
                        let (task, asked) = tasks
                            .get(*n)
                            .cloned()
                            .unwrap_or((json!("no-such-task"), json!({"a": 0})));
                        let mut caps = all_caps();
                        if *ext {
                            caps["extensions"] = json!({"io.modelcontextprotocol/tasks": {}});
                        }
                        let mut params = json!({"taskId": task, "_meta": meta(caps)});
                        if *method == "tasks/update" {
                            params["inputResponses"] = answers_for(answers, &asked);
                        }
                        (*method, params, false)
                    }
                };
                let message = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
                let reply = tokio::time::timeout(
                    std::time::Duration::from_secs(5),
                    server.handle_message(&message.to_string(), None),
                )
                .await
                .map_err(|_| format!("no reply within 5 s to {message}"))?
                .ok_or_else(|| format!("no reply to {message}"))?
                .to_value();
                if reply["id"] != id || reply.get("result").is_some() == reply.get("error").is_some() {
                    return Err(format!("{message} got {reply}"));
                }
                if spoilt && reply.get("result").is_some()
                    && reply["result"]["resultType"] != "input_required"
                {
                    return Err(format!("a spoiled requestState was taken: {message} got {reply}"));
                }
                if let Some(task) = reply.pointer("/result/taskId") {
                    let asked = reply["result"].get("inputRequests").cloned().unwrap_or(json!({}));
                    match tasks.iter_mut().find(|(seen, _)| seen == task) {
                        Some(seen) => seen.1 = asked,
                        None => tasks.push((task.clone(), asked)),
                    }
                }
                if method == "tools/call" {
                    if reply["result"]["resultType"] == "input_required" {
                        waiting = Some((params, reply));
                    } else if !matches!(step, Step::Retry(..)) {
                        waiting = None;
                    }
                }
            }
            Ok(())
        });
        prop_assert!(outcome.is_ok(), "{}", outcome.unwrap_err());
        prop_assert_eq!(panics().load(std::sync::atomic::Ordering::SeqCst), before, "nothing panicked");
    }
}
