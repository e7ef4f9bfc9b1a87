//! The fixture server's binary (`conformance-server`) as clients meet it: multi-round flows over
//! its stdio, and rounds that alternate between separate server processes sharing a key ring,
//! across a key rotation.

use mcp_runtime::client::{Client, ClientError};
use mcp_tests::support::{answering_client, caps, text, RING_NEW, RING_OLD};
use serde_json::{json, Value};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

#[tokio::test]
async fn client_completes_multi_round_flows_over_stdio() {
    let client = answering_client(
        Client::stdio(env!("CARGO_BIN_EXE_conformance-server"), &["--stdio"]).unwrap(),
    );
    let r = client
        .call_tool("test_input_required_result_multi_round", json!({}))
        .await
        .unwrap();
    assert_eq!(text(&r), "Ada likes teal");
    let (a, b) = tokio::join!(
        client.call_tool("test_input_required_result_sampling", json!({})),
        client.call_tool("test_simple_text", json!({})),
    );
    assert_eq!(text(&a.unwrap()), "The model said: Paris");
    assert_eq!(
        text(&b.unwrap()),
        "This is a simple text response for testing."
    );
}

/// POST raw bytes with the given headers; (status, body as JSON or Null).
struct Proc(Child);

impl Drop for Proc {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn spawn_server(ring: &str) -> (Proc, String) {
    spawn_server_with(ring, |_| Vec::new())
}

/// The fixture binary on a free port, with the extra arguments `extra(port)` gives.
fn spawn_server_with(ring: &str, extra: impl FnOnce(u16) -> Vec<String>) -> (Proc, String) {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let child = Command::new(env!("CARGO_BIN_EXE_conformance-server"))
        .args(["--port", &port.to_string()])
        .args(extra(port))
        .env("MCP_STATE_KEYS", ring)
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    for _ in 0..100 {
        if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    (Proc(child), format!("http://127.0.0.1:{port}/mcp"))
}

async fn round(client: &Client, responses: Value, state: Option<Value>) -> Value {
    let mut p = json!({"name": "test_input_required_result_multi_round", "arguments": {}});
    if !responses.is_null() {
        p["inputResponses"] = responses;
    }
    if let Some(s) = state {
        p["requestState"] = s;
    }
    client.request("tools/call", p).await.unwrap()
}

#[tokio::test]
async fn rounds_alternate_between_two_processes_and_survive_key_rotation() {
    let (_a, url_a) = spawn_server(RING_OLD);
    let (_b, url_b) = spawn_server(RING_OLD);
    let (_c, url_c) = spawn_server(RING_NEW);
    let a = Client::http(&url_a).with_input(caps(), mcp_runtime::client::DeclineAll);
    let b = Client::http(&url_b).with_input(caps(), mcp_runtime::client::DeclineAll);
    let c = Client::http(&url_c).with_input(caps(), mcp_runtime::client::DeclineAll);
    let step1 = json!({"step1": {"action": "accept", "content": {"name": "Ada"}}});
    let step2 = json!({"step2": {"action": "accept", "content": {"color": "teal"}}});

    // A -> B -> A: each round on the other process.
    let r1 = round(&a, Value::Null, None).await;
    let r2 = round(&b, step1.clone(), Some(r1["requestState"].clone())).await;
    assert!(r2["inputRequests"]["step2"].is_object(), "{r2}");
    let r3 = round(&a, step2.clone(), Some(r2["requestState"].clone())).await;
    assert_eq!(r3["content"][0]["text"], "Ada likes teal", "{r3}");

    // Rotation mid-flow: round 1 sealed with key 1 on the old ring, the rest on the new ring
    // (which opens key 1 and seals with key 2).
    let r1 = round(&a, Value::Null, None).await;
    let r2 = round(&c, step1, Some(r1["requestState"].clone())).await;
    assert!(r2["inputRequests"]["step2"].is_object(), "{r2}");
    let r3 = round(&c, step2.clone(), Some(r2["requestState"].clone())).await;
    assert_eq!(r3["content"][0]["text"], "Ada likes teal");
    // The old ring cannot open what the new key sealed.
    let mut p = json!({"name": "test_input_required_result_multi_round", "arguments": {}, "inputResponses": step2});
    p["requestState"] = r2["requestState"].clone();
    match a.request("tools/call", p).await {
        Err(ClientError::Rpc(e)) => assert_eq!(e.code, -32602),
        other => panic!("{other:?}"),
    }
}

/// With `--auth-jwks --auth-issuer --auth-audience`, the binary serves its Protected Resource
/// Metadata and refuses requests without a bearer token.
#[tokio::test]
async fn the_fixture_binary_turns_on_bearer_authentication_with_its_flags() {
    let jwks = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../runtime/tests/keys/jwks.json");
    let (_server, url) = spawn_server_with(RING_OLD, |port| {
        vec![
            "--auth-jwks".into(),
            jwks.display().to_string(),
            "--auth-issuer".into(),
            "https://auth.example.com".into(),
            "--auth-audience".into(),
            format!("http://127.0.0.1:{port}/mcp"),
        ]
    });
    let metadata = url.replace("/mcp", "/.well-known/oauth-protected-resource/mcp");
    let (status, doc) = mcp_tests::support::get(&metadata).await;
    assert_eq!(status, 200);
    assert_eq!(doc["resource"], json!(url));
    assert_eq!(
        doc["authorization_servers"],
        json!(["https://auth.example.com"])
    );
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": "test_whoami", "arguments": {},
        "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                  "io.modelcontextprotocol/clientCapabilities": {}}}});
    let headers = [
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", "tools/call"),
        ("mcp-name", "test_whoami"),
    ];
    let (status, response_headers, _) =
        mcp_tests::support::post(&url, body.to_string().into_bytes(), &headers).await;
    assert_eq!(status, 401);
    assert!(response_headers
        .iter()
        .any(|(k, v)| k == "www-authenticate" && v.contains(&metadata)));
}
