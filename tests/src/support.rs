//! Helpers the transport tests share: key rings, a client that answers every input request
//! the fixture server makes, child processes and ports, and the Redis the shared-store tests use.

use oxmcp::client::{Client, ClientError};
use oxmcp::schema::{ClientCapabilities, InputRequest};
use serde_json::{json, Value};

/// A key ring of one key.
pub const RING_OLD: &str = "1:1111111111111111111111111111111111111111111111111111111111111111";
/// The same key and a newer one that seals.
pub const RING_NEW: &str = "1:1111111111111111111111111111111111111111111111111111111111111111,2:2222222222222222222222222222222222222222222222222222222222222222";

/// The capabilities the answering client declares: forms, sampling and roots.
pub fn caps() -> ClientCapabilities {
    serde_json::from_value(json!({"elicitation": {}, "sampling": {}, "roots": {}})).unwrap()
}

/// Answers forms by field name, sampling with "Paris", roots with one root.
pub fn answering_client(client: Client) -> Client {
    client.with_input(caps(), |_key: &str, req: InputRequest| -> oxmcp::BoxFuture<Result<Value, ClientError>> {
        Box::pin(async move {
            Ok(match req {
                InputRequest::ElicitRequest(e) => {
                    let text = serde_json::to_value(&e.params).unwrap().to_string();
                    if text.contains("color") {
                        json!({"action": "accept", "content": {"color": "teal"}})
                    } else if text.contains("\"context\"") {
                        json!({"action": "accept", "content": {"context": "tests"}})
                    } else if text.contains("\"ok\"") {
                        json!({"action": "accept", "content": {"ok": true}})
                    } else {
                        json!({"action": "accept", "content": {"name": "Ada"}})
                    }
                }
                InputRequest::CreateMessageRequest(_) => {
                    json!({"role": "assistant", "content": {"type": "text", "text": "Paris"}, "model": "m"})
                }
                InputRequest::ListRootsRequest(_) => json!({"roots": [{"uri": "file:///home/ada"}]}),
                other => return Err(ClientError::unanswerable(&other)),
            })
        })
    })
}

/// The text of the first content block.
pub fn text(r: &oxmcp::schema::CallToolResult) -> String {
    match &r.content[0] {
        oxmcp::schema::ContentBlock::TextContent(t) => t.text.clone(),
        other => panic!("not text: {other:?}"),
    }
}

/// POST `body` to `url` with `headers`: the status, the response headers (names lowercase) and
/// the body as bytes.
pub async fn post_raw(
    url: &str,
    body: Vec<u8>,
    headers: &[(&str, &str)],
) -> (u16, Vec<(String, String)>, Vec<u8>) {
    use http_body_util::{BodyExt, Full};
    let client = hyper_util::client::legacy::Client::builder(hyper_util::rt::TokioExecutor::new())
        .build_http();
    let mut req = hyper::Request::post(url).header("content-type", "application/json");
    for (k, v) in headers {
        req = req.header(*k, *v);
    }
    let resp = client
        .request(req.body(Full::new(hyper::body::Bytes::from(body))).unwrap())
        .await
        .unwrap();
    let status = resp.status().as_u16();
    let response_headers = resp
        .headers()
        .iter()
        .map(|(k, v)| (k.as_str().to_string(), v.to_str().unwrap_or("").to_string()))
        .collect();
    let bytes = resp.into_body().collect().await.unwrap().to_bytes();
    (status, response_headers, bytes.to_vec())
}

/// POST `body` to `url` with `headers`: the status, the response headers (names lowercase) and
/// the body as JSON (`null` when it is not JSON).
pub async fn post(
    url: &str,
    body: Vec<u8>,
    headers: &[(&str, &str)],
) -> (u16, Vec<(String, String)>, Value) {
    let (status, response_headers, bytes) = post_raw(url, body, headers).await;
    (
        status,
        response_headers,
        serde_json::from_slice(&bytes).unwrap_or(Value::Null),
    )
}

/// GET `url`: the status and the body as JSON.
pub async fn get(url: &str) -> (u16, Value) {
    use http_body_util::{BodyExt, Empty};
    let client = hyper_util::client::legacy::Client::builder(hyper_util::rt::TokioExecutor::new())
        .build_http();
    let req = hyper::Request::get(url)
        .body(Empty::<hyper::body::Bytes>::new())
        .unwrap();
    let resp = client.request(req).await.unwrap();
    let status = resp.status().as_u16();
    let bytes = resp.into_body().collect().await.unwrap().to_bytes();
    (
        status,
        serde_json::from_slice(&bytes).unwrap_or(Value::Null),
    )
}

/// A child process, killed and reaped when dropped.
pub struct ChildGuard(pub std::process::Child);

impl Drop for ChildGuard {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A local TCP port nothing listens on (now).
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free local port")
}

/// Wait until something listens on `port`; panics after 5 s.
pub fn wait_for_port(port: u16) {
    for _ in 0..200 {
        if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(25));
    }
    panic!("nothing listens on port {port}");
}

/// The fixture server binary `bin` (`env!("CARGO_BIN_EXE_conformance-server")`) over HTTP on a
/// free port, with the key ring `ring` and the extra arguments `extra(port)` gives; its guard
/// and endpoint URL, once it listens.
pub fn spawn_http_server(
    bin: &str,
    ring: &str,
    extra: impl FnOnce(u16) -> Vec<String>,
) -> (ChildGuard, String) {
    let port = free_port();
    let child = std::process::Command::new(bin)
        .args(["--port", &port.to_string()])
        .args(extra(port))
        .env("MCP_STATE_KEYS", ring)
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("{bin}: {e}"));
    let guard = ChildGuard(child);
    wait_for_port(port);
    (guard, format!("http://127.0.0.1:{port}/mcp"))
}

/// The Redis to use: `MCP_TEST_REDIS_URL` (as `.ci/run` starts it), else a `redis-server`
/// started here on a free port (stopped when the guard drops). Panics without either: the
/// tests that need Redis fail rather than skip.
pub fn redis() -> (String, Option<ChildGuard>) {
    if let Ok(url) = std::env::var("MCP_TEST_REDIS_URL") {
        return (url, None);
    }
    let port = free_port();
    let child = std::process::Command::new("redis-server")
        .args([
            "--port",
            &port.to_string(),
            "--save",
            "",
            "--appendonly",
            "no",
        ])
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap_or_else(|e| {
            panic!("Redis is needed: set MCP_TEST_REDIS_URL or install redis-server ({e})")
        });
    let guard = ChildGuard(child);
    wait_for_port(port);
    (format!("redis://127.0.0.1:{port}"), Some(guard))
}

/// One HTTP/1.1 request, as a scripted server in a test reads it off its connection: the
/// method and the body (`Content-Length` bytes, at most 1 MiB); none if the peer closed first.
pub async fn read_request<R>(read: &mut R) -> Option<(String, Vec<u8>)>
where
    R: tokio::io::AsyncBufRead + Unpin,
{
    use tokio::io::{AsyncBufReadExt, AsyncReadExt};
    let mut line = String::new();
    if read.read_line(&mut line).await.ok()? == 0 {
        return None;
    }
    let method = line.split(' ').next().unwrap_or("").to_string();
    let mut length = 0usize;
    loop {
        line.clear();
        if read.read_line(&mut line).await.ok()? == 0 {
            return None;
        }
        if line.trim().is_empty() {
            break;
        }
        if let Some(n) = line.to_ascii_lowercase().strip_prefix("content-length:") {
            length = n.trim().parse().unwrap_or(0);
        }
    }
    let mut body = vec![0u8; length.min(1 << 20)];
    read.read_exact(&mut body).await.ok()?;
    Some((method, body))
}
