//! `requestState` is attacker-controlled: every tamper case is refused with the same -32602
//! message, and no mutation of a sealed token opens.

use crate::common;

use common::*;
use oxmcp::bench::Binding;
use oxmcp::prelude::*;
use oxmcp::request_state::{KeyRing, RequestStateCodec, SealingKey};
use oxmcp::{request_state::RequestStateError, Principal};
use proptest::prelude::*;
use serde_json::{json, Value};

#[derive(ElicitForm)]
struct Name {
    user_name: String,
}

/// Asks once.
#[mcp_tool]
async fn ask_name(greeting: String) -> Result<String, ToolError> {
    match elicit::<Name>("Name?").key("user_name").await? {
        Elicited::Accept(n) => Ok(format!("{greeting}, {}", n.user_name)),
        _ => Ok("no".into()),
    }
}

/// Asks once too, under another name.
#[mcp_tool]
async fn other_tool(greeting: String) -> Result<String, ToolError> {
    match elicit::<Name>("Name?").key("user_name").await? {
        Elicited::Accept(n) => Ok(format!("{greeting}! {}", n.user_name)),
        _ => Ok("no".into()),
    }
}

fn ring(id: u8, byte: u8) -> KeyRing {
    KeyRing::new(vec![SealingKey::new(id, &[byte; 32]).unwrap()]).unwrap()
}

fn server(keys: KeyRing) -> Server {
    Server::builder()
        .tool(ask_name)
        .tool(other_tool)
        .request_state_keys(keys)
        .build()
        .unwrap()
}

async fn first_state(s: &Server, principal: Option<&str>) -> String {
    let msg = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": call("ask_name", json!({"greeting": "Hi"}), all_caps())});
    let r = s
        .handle_message(&msg.to_string(), principal.map(Principal::new).as_ref())
        .await
        .unwrap()
        .to_value();
    r["result"]["requestState"].as_str().unwrap().to_string()
}

async fn retry_with(
    s: &Server,
    tool: &str,
    args: Value,
    state: Value,
    principal: Option<&str>,
) -> Value {
    let mut p = call(tool, args, all_caps());
    p["inputResponses"] = json!({"user_name": accept(json!({"user_name": "Eve"}))});
    p["requestState"] = state;
    let msg = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": p});
    s.handle_message(&msg.to_string(), principal.map(Principal::new).as_ref())
        .await
        .unwrap()
        .to_value()
}

fn assert_rejected(r: &Value, case: &str) {
    assert_eq!(r["error"]["code"], -32602, "{case}: {r}");
    assert_eq!(
        r["error"]["message"], "invalid requestState",
        "{case}: the message must not say which check failed"
    );
}

#[tokio::test]
async fn every_tamper_case_is_rejected_alike() {
    let s = server(ring(1, 1));
    let good = first_state(&s, Some("alice")).await;
    let args = json!({"greeting": "Hi"});

    let ok = retry_with(&s, "ask_name", args.clone(), json!(good), Some("alice")).await;
    assert_eq!(ok["result"]["content"][0]["text"], "Hi, Eve", "{ok}");
    // States are single use by default: the same retry again is refused like any bad state.
    assert_rejected(
        &retry_with(&s, "ask_name", args.clone(), json!(good), Some("alice")).await,
        "replayed",
    );

    let mut flipped = good.clone().into_bytes();
    let mid = flipped.len() / 2;
    flipped[mid] = if flipped[mid] == b'A' { b'B' } else { b'A' };
    let flipped = String::from_utf8(flipped).unwrap();
    assert_rejected(
        &retry_with(&s, "ask_name", args.clone(), json!(flipped), Some("alice")).await,
        "tampered byte",
    );
    assert_rejected(
        &retry_with(&s, "other_tool", args.clone(), json!(good), Some("alice")).await,
        "wrong tool",
    );
    assert_rejected(
        &retry_with(
            &s,
            "ask_name",
            json!({"greeting": "Bye"}),
            json!(good),
            Some("alice"),
        )
        .await,
        "changed arguments",
    );
    assert_rejected(
        &retry_with(&s, "ask_name", args.clone(), json!(good), Some("mallory")).await,
        "other principal",
    );
    assert_rejected(
        &retry_with(&s, "ask_name", args.clone(), json!(good), None).await,
        "no principal",
    );
    let other_ring = server(ring(2, 9));
    assert_rejected(
        &retry_with(
            &other_ring,
            "ask_name",
            args.clone(),
            json!(good),
            Some("alice"),
        )
        .await,
        "unknown key id",
    );
    let same_id_other_key = server(ring(1, 9));
    assert_rejected(
        &retry_with(
            &same_id_other_key,
            "ask_name",
            args.clone(),
            json!(good),
            Some("alice"),
        )
        .await,
        "wrong key",
    );
    assert_rejected(
        &retry_with(
            &s,
            "ask_name",
            args.clone(),
            json!("A".repeat(200_000)),
            Some("alice"),
        )
        .await,
        "oversize",
    );
    for garbage in [
        "",
        "!!!",
        "AQ",
        "not base64 at all",
        "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
    ] {
        assert_rejected(
            &retry_with(&s, "ask_name", args.clone(), json!(garbage), Some("alice")).await,
            garbage,
        );
    }
    // Not a string at all is malformed protocol data.
    let r = retry_with(&s, "ask_name", args.clone(), json!(12), Some("alice")).await;
    assert_eq!(r["error"]["code"], -32602);
    // The server keeps serving.
    let fresh = first_state(&s, Some("alice")).await;
    let ok = retry_with(&s, "ask_name", args, json!(fresh), Some("alice")).await;
    assert_eq!(ok["result"]["content"][0]["text"], "Hi, Eve");
}

#[tokio::test]
async fn arguments_key_order_does_not_matter() {
    let s = server(ring(1, 1));
    let msg = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": call("ask_name", json!({"greeting": "Hi", "extra": {"b": 1, "a": 2}}), all_caps())});
    let r = s
        .handle_message(&msg.to_string(), None)
        .await
        .unwrap()
        .to_value();
    let st = r["result"]["requestState"].clone();
    let ok = retry_with(
        &s,
        "ask_name",
        json!({"extra": {"a": 2, "b": 1}, "greeting": "Hi"}),
        st,
        None,
    )
    .await;
    assert_eq!(ok["result"]["content"][0]["text"], "Hi, Eve", "{ok}");
}

fn codec() -> RequestStateCodec {
    RequestStateCodec::new(ring(4, 4))
}

fn binding(args: &Value) -> Binding<'_> {
    Binding {
        method: "tools/call",
        target: "t",
        arguments: args.as_object(),
        principal: Some("p"),
        protocol_version: "2026-07-28",
    }
}

fn sealed_token() -> String {
    let args = json!({"x": 1});
    let journal =
        oxmcp::bench::journal_of([("k", json!({"action": "accept", "content": {"a": "b"}}))]);
    codec().seal(&binding(&args), "fp", &journal).unwrap()
}

#[test]
fn expiry_is_enforced() {
    let args = json!({});
    let c = codec().ttl(std::time::Duration::from_secs(60));
    let t = c
        .seal_at(&binding(&args), "fp", &Default::default(), 1_000)
        .unwrap();
    assert!(c.open_at(&t, &binding(&args), 1_059).is_ok());
    assert_eq!(
        c.open_at(&t, &binding(&args), 1_061).err(),
        Some(RequestStateError::Expired)
    );
}

#[test]
fn every_single_byte_mutation_is_refused() {
    use base64::Engine as _;
    let engine = base64::engine::general_purpose::URL_SAFE_NO_PAD;
    let token = sealed_token();
    let raw = engine.decode(&token).unwrap();
    let args = json!({"x": 1});
    for pos in 0..raw.len() {
        for mask in [0x01u8, 0x80, 0xff] {
            let mut m = raw.clone();
            m[pos] ^= mask;
            let t = engine.encode(&m);
            assert!(
                codec().open(&t, &binding(&args)).is_err(),
                "mutation at byte {pos} (mask {mask:#x}) opened"
            );
        }
    }
    // Truncation and extension at every length.
    for len in 0..raw.len() {
        assert!(codec()
            .open(&engine.encode(&raw[..len]), &binding(&args))
            .is_err());
    }
    let mut longer = raw.clone();
    longer.push(0);
    assert!(codec()
        .open(&engine.encode(&longer), &binding(&args))
        .is_err());
}

proptest! {
    #[test]
    fn no_mutation_of_the_text_opens(edits in proptest::collection::vec((any::<usize>(), any::<u8>()), 1..4)) {
        let token = sealed_token();
        let mut bytes = token.clone().into_bytes();
        for (pos, b) in &edits {
            let i = pos % bytes.len();
            bytes[i] = *b;
        }
        let mutated = String::from_utf8_lossy(&bytes).to_string();
        prop_assume!(mutated != token);
        let args = json!({"x": 1});
        prop_assert!(codec().open(&mutated, &binding(&args)).is_err());
    }
}

/// What a server logged while it was built and served over HTTP for a moment.
async fn logged_while_serving(builder: oxmcp::ServerBuilder) -> (bool, String) {
    use std::sync::{Arc, Mutex};
    #[derive(Clone)]
    struct Sink(Arc<Mutex<Vec<u8>>>);
    impl std::io::Write for Sink {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let log = Sink(Arc::new(Mutex::new(Vec::new())));
    let sink = log.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_writer(move || sink.clone())
        .with_ansi(false)
        .with_max_level(tracing::Level::WARN)
        .finish();
    // The test runs on one thread, so the server's own task logs to this subscriber too.
    let _guard = tracing::subscriber::set_default(subscriber);
    let server = std::sync::Arc::new(builder.build().unwrap());
    let ephemeral = server.ephemeral_keys();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let serving = tokio::spawn(oxmcp::http::serve_listener(
        server,
        listener,
        oxmcp::http::HttpConfig::default(),
        async move {
            let _ = stopped.await;
        },
    ));
    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    let _ = stop.send(());
    let _ = serving.await;
    let text = String::from_utf8_lossy(&log.0.lock().unwrap()).into_owned();
    (ephemeral, text)
}

#[tokio::test]
async fn a_server_served_over_http_with_a_random_key_says_so_once_at_start() {
    let warning = "requestState is sealed with a random key made at start";
    let (ephemeral, text) = logged_while_serving(Server::builder().tool(ask_name)).await;
    assert!(ephemeral);
    assert_eq!(text.matches(warning).count(), 1, "{text}");
    assert!(text.contains("MCP_STATE_KEYS"), "{text}");
    // With a key ring there is nothing to warn about.
    let (ephemeral, text) = logged_while_serving(
        Server::builder()
            .tool(ask_name)
            .request_state_keys(ring(1, 7)),
    )
    .await;
    assert!(!ephemeral);
    assert!(!text.contains(warning), "{text}");
}
