//! The fixture server's binary (`conformance-server`) as clients meet it: multi-round flows over
//! its stdio, and rounds that alternate between separate server processes sharing a key ring,
//! across a key rotation.

use mcp_tests::support::{
    answering_client, caps, spawn_http_server, text, ChildGuard, RING_NEW, RING_OLD,
};
use oxmcp::client::{Client, ClientError};
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

fn spawn_server(ring: &str) -> (ChildGuard, String) {
    spawn_server_with(ring, |_| Vec::new())
}

/// The fixture binary on a free port, with the extra arguments `extra(port)` gives.
fn spawn_server_with(ring: &str, extra: impl FnOnce(u16) -> Vec<String>) -> (ChildGuard, String) {
    spawn_http_server(env!("CARGO_BIN_EXE_conformance-server"), ring, extra)
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
    let a = Client::http(&url_a).with_input(caps(), oxmcp::client::DeclineAll);
    let b = Client::http(&url_b).with_input(caps(), oxmcp::client::DeclineAll);
    let c = Client::http(&url_c).with_input(caps(), oxmcp::client::DeclineAll);
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

/// With `--auth-jwks --auth-issuer --auth-audience` (and `--auth-jwks-refresh-secs`), the
/// binary serves its Protected Resource Metadata and refuses requests without a bearer token.
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
            "--auth-jwks-refresh-secs".into(),
            "60".into(),
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

/// The fixture binary serving stdio, its stdin and stdout piped.
fn spawn_stdio() -> Child {
    Command::new(env!("CARGO_BIN_EXE_conformance-server"))
        .arg("--stdio")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap()
}

/// The resident set of process `pid`, in KiB.
fn rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmRSS in /proc/PID/status")
}

#[test]
fn a_stdio_server_keeps_flat_memory_over_100k_sequential_requests() {
    use std::io::{BufRead, BufReader, Write};
    let mut child = spawn_stdio();
    let pid = child.id();
    let mut input = child.stdin.take().unwrap();
    let mut output = BufReader::new(child.stdout.take().unwrap());
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "soak", "version": "1"}
    });
    let batch = 1000;
    let mut line = String::new();
    let mut samples = Vec::new();
    for b in 0..100 {
        let mut text = String::new();
        for i in 0..batch {
            let id = b * batch + i;
            let call = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                "params": {"name": "test_simple_text", "arguments": {}, "_meta": meta}});
            text.push_str(&call.to_string());
            text.push('\n');
        }
        input.write_all(text.as_bytes()).unwrap();
        input.flush().unwrap();
        for _ in 0..batch {
            line.clear();
            output.read_line(&mut line).unwrap();
            assert!(line.contains("simple text response"), "{line}");
        }
        if b == 9 || b == 99 {
            samples.push(rss_kib(pid));
        }
    }
    drop(input);
    assert!(child.wait().unwrap().success(), "exits on end of input");
    // Before the fix a stdio server kept about 4 KB per request (90,000 requests: ~350 MB); a
    // server that keeps nothing per request stays within allocator noise.
    let (after_10k, after_100k) = (samples[0], samples[1]);
    assert!(
        after_100k < after_10k + 16 * 1024,
        "RSS grew from {after_10k} KiB after 10k requests to {after_100k} KiB after 100k"
    );
}

/// Send `signal` to process `pid`.
fn signal(pid: u32, signal: &str) {
    let sent = Command::new("kill")
        .args([&format!("-{signal}"), &pid.to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
}

/// Wait up to `limit` for `child` to exit; its status.
fn wait_exit(child: &mut Child, limit: Duration) -> Option<std::process::ExitStatus> {
    let deadline = std::time::Instant::now() + limit;
    while std::time::Instant::now() < deadline {
        if let Some(status) = child.try_wait().unwrap() {
            return Some(status);
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    None
}

#[tokio::test]
async fn sigterm_and_ctrl_c_let_an_http_request_in_flight_finish_then_exit() {
    for sig in ["TERM", "INT"] {
        let (mut proc, url) = spawn_server(RING_OLD);
        let meta = json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"}
        });
        // An open listen stream must not hold the shutdown up.
        let listen = json!({"jsonrpc": "2.0", "id": "sub", "method": "subscriptions/listen",
            "params": {"_meta": meta, "notifications": {"toolsListChanged": true}}});
        let listen_url = url.clone();
        let listening = tokio::spawn(async move {
            mcp_tests::support::post_raw(
                &listen_url,
                listen.to_string().into_bytes(),
                &[
                    ("accept", "application/json, text/event-stream"),
                    ("mcp-protocol-version", "2026-07-28"),
                    ("mcp-method", "subscriptions/listen"),
                ],
            )
            .await
        });
        let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "test_sleep", "arguments": {"ms": 600}, "_meta": meta}});
        let call_url = url.clone();
        let calling = tokio::spawn(async move {
            mcp_tests::support::post(
                &call_url,
                call.to_string().into_bytes(),
                &[
                    ("accept", "application/json, text/event-stream"),
                    ("mcp-protocol-version", "2026-07-28"),
                    ("mcp-method", "tools/call"),
                    ("mcp-name", "test_sleep"),
                ],
            )
            .await
        });
        tokio::time::sleep(Duration::from_millis(200)).await;
        signal(proc.0.id(), sig);
        let (status, _, body) = tokio::time::timeout(Duration::from_secs(5), calling)
            .await
            .expect("the request in flight is answered")
            .unwrap();
        assert_eq!(status, 200, "SIG{sig}: {body}");
        assert_eq!(
            body["result"]["content"][0]["text"], "slept 600 ms",
            "SIG{sig}"
        );
        let exited = wait_exit(&mut proc.0, Duration::from_secs(5));
        assert!(
            exited.is_some_and(|s| s.success()),
            "SIG{sig}: the server exits cleanly within 5 s: {exited:?}"
        );
        let streamed = tokio::time::timeout(Duration::from_secs(5), listening).await;
        assert!(streamed.is_ok(), "SIG{sig}: the listen stream ended");
    }
}

#[test]
fn sigterm_lets_a_stdio_request_in_flight_finish_then_exit() {
    use std::io::{BufRead, BufReader, Write};
    let mut child = spawn_stdio();
    let mut input = child.stdin.take().unwrap();
    let mut output = BufReader::new(child.stdout.take().unwrap());
    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "test_sleep", "arguments": {"ms": 500}, "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"}}}});
    writeln!(input, "{call}").unwrap();
    input.flush().unwrap();
    std::thread::sleep(Duration::from_millis(200));
    signal(child.id(), "TERM");
    let mut line = String::new();
    output.read_line(&mut line).unwrap();
    assert!(line.contains("slept 500 ms"), "{line}");
    // Input is still open: the signal, not end of input, stops it.
    let exited = wait_exit(&mut child, Duration::from_secs(5));
    assert!(exited.is_some_and(|s| s.success()), "{exited:?}");
}

/// The number of worker threads of the binary's runtime: the default leaves a core to the
/// clients beside it, `--threads N` sets it, and a bad value is refused before serving.
#[test]
fn the_fixture_binary_sizes_its_runtime() {
    let threads = |extra: &[&str]| {
        let mut child = Command::new(env!("CARGO_BIN_EXE_conformance-server"))
            .arg("--stdio")
            .args(extra)
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        // The runtime is built before the server reads stdin; wait for its workers to start.
        let pid = child.id();
        let count = || {
            std::fs::read_dir(format!("/proc/{pid}/task"))
                .unwrap()
                .flatten()
                .filter(|t| {
                    std::fs::read_to_string(t.path().join("comm"))
                        .is_ok_and(|c| c.trim() == "tokio-rt-worker")
                })
                .count()
        };
        // Until two readings 100 ms apart agree on a nonzero count.
        let mut workers = 0;
        for _ in 0..50 {
            std::thread::sleep(std::time::Duration::from_millis(100));
            let now = count();
            if now > 0 && now == workers {
                break;
            }
            workers = now;
        }
        child.kill().unwrap();
        child.wait().unwrap();
        workers
    };
    assert_eq!(threads(&[]), mcp_tests::fixture_threads());
    assert_eq!(threads(&["--threads", "3"]), 3);
    let refused = Command::new(env!("CARGO_BIN_EXE_conformance-server"))
        .args(["--stdio", "--threads", "0"])
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .unwrap();
    assert_eq!(refused.code(), Some(2));
}
