//! The example function under the real Lambda emulator (`cargo lambda watch`, from the
//! `cargo-lambda` package on PyPI): the emulator serves function URLs and the runtime API, and
//! each test starts, replaces and stops the function processes itself, so that every round of a
//! flow can land on a fresh process. Fails when `cargo lambda` is not installed.

use mcp_tests::support::{caps, free_port, post, text, wait_for_port, ChildGuard};
use oxmcp::client::{Client, ClientError};
use oxmcp::schema::InputRequest;
use serde_json::{json, Value};
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::time::Duration;

const KEYS_A: &str = "1:a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1";
const KEYS_B: &str = "2:b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2";
/// A real function URL's host name, in the region the functions are told they run in.
const FUNCTION_URL_HOST: &str = "abcdefghij0123456789klmnop.lambda-url.eu-west-1.on.aws";

/// `cargo lambda watch` serving the runtime API and function URLs only: the functions are
/// started by the test.
struct Emulator {
    _watch: ChildGuard,
    port: u16,
}

impl Emulator {
    fn start() -> Emulator {
        let port = free_port();
        let watch = Command::new("cargo")
            .args(["lambda", "watch", "--only-lambda-apis", "-A", "127.0.0.1"])
            .args(["-P", &port.to_string()])
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("`cargo lambda` runs (pip install cargo-lambda)");
        let watch = ChildGuard(watch);
        wait_for_port(port);
        Emulator {
            _watch: watch,
            port,
        }
    }

    /// The function URL of the endpoint.
    fn url(&self) -> String {
        format!("http://127.0.0.1:{}/lambda-url/_/mcp", self.port)
    }

    /// The example function's command, told of this emulator, sealing with `keys` (none:
    /// `MCP_STATE_KEYS` unset), with no task store and the default response mode.
    fn command(&self, keys: Option<&str>) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_oxmcp-lambda-example"));
        command
            .env("AWS_LAMBDA_FUNCTION_NAME", "_")
            .env("AWS_LAMBDA_FUNCTION_VERSION", "1")
            .env("AWS_LAMBDA_FUNCTION_MEMORY_SIZE", "1024")
            .env(
                "AWS_LAMBDA_RUNTIME_API",
                format!("http://127.0.0.1:{}/.rt", self.port),
            )
            .env("AWS_REGION", "eu-west-1")
            .env("RUST_LOG", "info")
            .env_remove("MCP_STATE_KEYS")
            .env_remove("MCP_TASK_STORE")
            .env_remove("MCP_LAMBDA_RESPONSES");
        if let Some(keys) = keys {
            command.env("MCP_STATE_KEYS", keys);
        }
        command
    }

    /// A fresh function process sealing with `keys`, ready for its first event.
    fn function(&self, keys: &str, env: &[(&str, &str)]) -> Function {
        let mut command = self.command(Some(keys));
        command.stdout(Stdio::null()).stderr(Stdio::piped());
        for (name, value) in env {
            command.env(name, value);
        }
        Function::start(command)
    }
}

/// One function process, killed when dropped.
struct Function {
    _child: ChildGuard,
    log: Arc<Mutex<String>>,
}

impl Function {
    /// Start `command` and wait for it to say it serves (or to stop, with what it said).
    fn start(mut command: Command) -> Function {
        let mut child = command.spawn().expect("the example function starts");
        let stderr = child.stderr.take().expect("piped stderr");
        let log = Arc::new(Mutex::new(String::new()));
        let (ready, serving) = mpsc::channel();
        let kept = log.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if line.contains("serving MCP as a Lambda function") {
                    let _ = ready.send(true);
                }
                kept.lock().unwrap().push_str(&line);
                kept.lock().unwrap().push('\n');
            }
            let _ = ready.send(false);
        });
        let up = serving
            .recv_timeout(Duration::from_secs(20))
            .unwrap_or(false);
        assert!(
            up,
            "the function did not start: {}",
            log.lock().unwrap().as_str()
        );
        // It polls the runtime API for its first event right after saying so.
        std::thread::sleep(Duration::from_millis(100));
        Function {
            _child: ChildGuard(child),
            log,
        }
    }
}

/// The `_meta` every 2026 request carries.
fn meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}},
        "io.modelcontextprotocol/clientInfo": {"name": "lambda-test", "version": "1"}
    })
}

/// POST `tools/call` of `tool` with `extra` params, as a 2026 client sends it (`Host` as
/// given): the status and the JSON body.
async fn call(url: &str, host: &str, tool: &str, extra: Value) -> (u16, Value) {
    let mut params = json!({"name": tool, "arguments": {}, "_meta": meta()});
    for (k, v) in extra.as_object().into_iter().flatten() {
        params[k] = v.clone();
    }
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params});
    let (status, _, body) = post(
        url,
        body.to_string().into_bytes(),
        &[
            ("host", host),
            ("accept", "application/json, text/event-stream"),
            ("mcp-protocol-version", "2026-07-28"),
            ("mcp-method", "tools/call"),
            ("mcp-name", tool),
        ],
    )
    .await;
    (status, body)
}

/// The key of the first input request of an `input_required` result.
fn first_key(result: &Value) -> String {
    result["inputRequests"]
        .as_object()
        .and_then(|m| m.keys().next().cloned())
        .unwrap_or_else(|| panic!("no input request in {result}"))
}

/// A client whose answers replace the function process before every retry: each round reaches
/// a process that has never seen the flow. Counts the replacements.
fn replacing_client(
    emulator: Arc<Emulator>,
    current: Arc<Mutex<Option<Function>>>,
    replaced: Arc<AtomicUsize>,
) -> Client {
    Client::http(emulator.url()).with_input(
        caps(),
        move |_key: &str, request: InputRequest| -> oxmcp::BoxFuture<Result<Value, ClientError>> {
            tokio::task::block_in_place(|| {
                let mut slot = current.lock().unwrap();
                // The old process is gone before the new one polls.
                slot.take();
                *slot = Some(emulator.function(KEYS_A, &[]));
            });
            replaced.fetch_add(1, Ordering::SeqCst);
            Box::pin(async move {
                let InputRequest::ElicitRequest(form) = request else {
                    return Err(ClientError::unanswerable(&request));
                };
                let asked = serde_json::to_value(&form.params).unwrap().to_string();
                Ok(if asked.contains("color") {
                    json!({"action": "accept", "content": {"color": "teal"}})
                } else {
                    json!({"action": "accept", "content": {"name": "Ada"}})
                })
            })
        },
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn flows_complete_when_every_round_lands_on_a_fresh_function_process() {
    let emulator = Arc::new(Emulator::start());
    let current = Arc::new(Mutex::new(Some(emulator.function(KEYS_A, &[]))));
    let replaced = Arc::new(AtomicUsize::new(0));
    let client = replacing_client(emulator.clone(), current.clone(), replaced.clone());

    // An elicitation: two requests, the second on a new process.
    let result = client
        .call_tool("test_input_required_result_elicitation", json!({}))
        .await
        .expect("the elicitation flow completes");
    assert_eq!(text(&result), "Hello, Ada!");
    assert_eq!(replaced.load(Ordering::SeqCst), 1);

    // Three rounds, each on its own process.
    let result = client
        .call_tool("test_input_required_result_multi_round", json!({}))
        .await
        .expect("the three-round flow completes");
    assert_eq!(text(&result), "Ada likes teal");
    assert_eq!(replaced.load(Ordering::SeqCst), 3);

    // A journaled step ran once, in the first process, and was replayed in the next.
    let result = client
        .call_tool("test_step_then_elicit", json!({}))
        .await
        .expect("the step flow completes");
    assert_eq!(text(&result), "B1 for Ada");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tampered_state_is_refused_and_a_changed_key_ring_ends_old_flows_only() {
    let emulator = Emulator::start();
    let url = emulator.url();
    let first = emulator.function(KEYS_A, &[]);
    let (status, begun) = call(
        &url,
        "127.0.0.1",
        "test_input_required_result_tampered_state",
        json!({}),
    )
    .await;
    assert_eq!(status, 200, "{begun}");
    let result = &begun["result"];
    assert_eq!(result["resultType"], "input_required", "{begun}");
    let key = first_key(result);
    let state = result["requestState"]
        .as_str()
        .expect("a requestState")
        .to_string();
    let answers = json!({ key.clone(): {"action": "accept", "content": {"ok": true}} });

    // One character changed: refused, whichever process reads it.
    let mut tampered = state.clone().into_bytes();
    let at = tampered.len() / 2;
    tampered[at] = if tampered[at] == b'A' { b'B' } else { b'A' };
    let tampered = String::from_utf8(tampered).unwrap();
    let (status, refused) = call(
        &url,
        "127.0.0.1",
        "test_input_required_result_tampered_state",
        json!({"requestState": tampered, "inputResponses": answers}),
    )
    .await;
    assert_eq!(status, 400, "{refused}");
    assert_eq!(refused["error"]["code"], -32602, "{refused}");

    // The key ring changes (key 1 retired): the old flow no longer completes on the new
    // process, while a new flow does.
    drop(first);
    let _second = emulator.function(KEYS_B, &[]);
    let (status, refused) = call(
        &url,
        "127.0.0.1",
        "test_input_required_result_tampered_state",
        json!({"requestState": state, "inputResponses": answers}),
    )
    .await;
    assert_eq!(status, 400, "{refused}");
    assert_eq!(refused["error"]["code"], -32602, "{refused}");
    let (status, begun) = call(
        &url,
        "127.0.0.1",
        "test_input_required_result_tampered_state",
        json!({}),
    )
    .await;
    assert_eq!(status, 200, "{begun}");
    let result = &begun["result"];
    let key = first_key(result);
    let (status, done) = call(
        &url,
        "127.0.0.1",
        "test_input_required_result_tampered_state",
        json!({
            "requestState": result["requestState"],
            "inputResponses": { key: {"action": "accept", "content": {"ok": true}} }
        }),
    )
    .await;
    assert_eq!(status, 200, "{done}");
    assert_eq!(
        done["result"]["content"][0]["text"], "confirmed=true",
        "{done}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn function_url_hosts_are_served_and_bad_requests_get_json_rpc_errors() {
    let emulator = Emulator::start();
    let url = emulator.url();
    let _function = emulator.function(KEYS_A, &[]);

    let (status, served) = call(&url, FUNCTION_URL_HOST, "test_simple_text", json!({})).await;
    assert_eq!(status, 200, "{served}");
    assert_eq!(served["result"]["resultType"], "complete", "{served}");
    // Another region's function URL, or any other name, is a rebinding attempt.
    for host in ["abc.lambda-url.us-east-1.on.aws", "evil.example"] {
        let (status, refused) = call(&url, host, "test_simple_text", json!({})).await;
        assert_eq!(status, 403, "{host}: {refused}");
        assert_eq!(refused["error"]["code"], -32600, "{host}: {refused}");
    }

    let (status, _, malformed) = post(
        &url,
        b"{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": ".to_vec(),
        &[("accept", "application/json, text/event-stream")],
    )
    .await;
    assert!((400..500).contains(&status), "{status}: {malformed}");
    assert_eq!(malformed["error"]["code"], -32700, "{malformed}");

    let body = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
        "params": {"name": "test_simple_text", "arguments": {}, "_meta": meta()}});
    let (status, _, mismatched) = post(
        &url,
        body.to_string().into_bytes(),
        &[
            ("accept", "application/json, text/event-stream"),
            ("mcp-protocol-version", "2026-07-28"),
            ("mcp-method", "tools/call"),
            ("mcp-name", "another_tool"),
        ],
    )
    .await;
    assert!((400..500).contains(&status), "{status}: {mismatched}");
    assert_eq!(mismatched["error"]["code"], -32020, "{mismatched}");

    // Without a task store every instance shares, tasks are not offered: a tool that may run
    // as a task answers at once, even to a client that declares the extension.
    let mut with_tasks = meta();
    with_tasks["io.modelcontextprotocol/clientCapabilities"]["extensions"] =
        json!({"io.modelcontextprotocol/tasks": {}});
    let body = json!({"jsonrpc": "2.0", "id": 8, "method": "tools/call",
        "params": {"name": "slow_compute", "arguments": {"seconds": 0.01}, "_meta": with_tasks}});
    let (status, _, answered) = post(
        &url,
        body.to_string().into_bytes(),
        &[
            ("accept", "application/json, text/event-stream"),
            ("mcp-protocol-version", "2026-07-28"),
            ("mcp-method", "tools/call"),
            ("mcp-name", "slow_compute"),
        ],
    )
    .await;
    assert_eq!(status, 200, "{answered}");
    assert_eq!(answered["result"]["resultType"], "complete", "{answered}");

    // The function still serves after all of it.
    let (status, served) = call(&url, "127.0.0.1", "test_simple_text", json!({})).await;
    assert_eq!(status, 200, "{served}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_buffered_function_answers_api_gateway_events_and_refuses_endless_streams() {
    let emulator = Emulator::start();
    let function = emulator.function(KEYS_A, &[("MCP_LAMBDA_RESPONSES", "buffered")]);

    // An API Gateway HTTP API event (payload format 2.0), through `cargo lambda invoke`.
    let request = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
        "params": {"name": "test_simple_text", "arguments": {}, "_meta": meta()}});
    let event = json!({
        "version": "2.0",
        "routeKey": "POST /mcp",
        "rawPath": "/mcp",
        "rawQueryString": "",
        "headers": {
            "host": "abcdef1234.execute-api.eu-west-1.amazonaws.com",
            "content-type": "application/json",
            "accept": "application/json, text/event-stream",
            "mcp-protocol-version": "2026-07-28",
            "mcp-method": "tools/call",
            "mcp-name": "test_simple_text"
        },
        "requestContext": {
            "accountId": "123456789012",
            "apiId": "abcdef1234",
            "domainName": "abcdef1234.execute-api.eu-west-1.amazonaws.com",
            "domainPrefix": "abcdef1234",
            "http": {
                "method": "POST",
                "path": "/mcp",
                "protocol": "HTTP/1.1",
                "sourceIp": "203.0.113.7",
                "userAgent": "lambda-test"
            },
            "requestId": "id-1",
            "routeKey": "POST /mcp",
            "stage": "$default",
            "time": "07/Dec/2026:00:00:00 +0000",
            "timeEpoch": 1796601600000_u64
        },
        "body": request.to_string(),
        "isBase64Encoded": false
    });
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("event.json");
    std::fs::write(&file, event.to_string()).unwrap();
    let out = Command::new("cargo")
        .args(["lambda", "invoke", "-A", "127.0.0.1"])
        .args(["-P", &emulator.port.to_string(), "_", "--data-file"])
        .arg(&file)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("`cargo lambda invoke` runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout} {} {}",
        String::from_utf8_lossy(&out.stderr),
        function.log.lock().unwrap()
    );
    let response: Value = serde_json::from_str(stdout.trim()).expect("a JSON response");
    assert_eq!(response["statusCode"], 200, "{response}");
    let body: Value = serde_json::from_str(response["body"].as_str().expect("a body")).unwrap();
    assert_eq!(body["id"], 3, "{body}");
    assert_eq!(body["result"]["resultType"], "complete", "{body}");

    // A subscription stream never ends, so a buffered function refuses it at once.
    let listen = json!({"jsonrpc": "2.0", "id": 4, "method": "subscriptions/listen",
        "params": {"notifications": {"toolsListChanged": true}, "_meta": meta()}});
    let (status, _, refused) = tokio::time::timeout(
        Duration::from_secs(10),
        post(
            &emulator.url(),
            listen.to_string().into_bytes(),
            &[
                ("accept", "application/json, text/event-stream"),
                ("mcp-protocol-version", "2026-07-28"),
                ("mcp-method", "subscriptions/listen"),
            ],
        ),
    )
    .await
    .expect("the listen request is answered, not left open");
    assert_eq!(status, 404, "{refused}");
    assert_eq!(refused["error"]["code"], -32601, "{refused}");
    assert!(
        refused["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("whole")),
        "{refused}"
    );
}

#[test]
fn a_function_without_shared_keys_refuses_to_start_and_says_why() {
    let emulator = Emulator::start();
    let out = emulator
        .command(None)
        .output()
        .expect("the example function runs");
    assert!(!out.status.success());
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(said.contains("MCP_STATE_KEYS"), "{said}");
    // A malformed ring is named as such, not taken for no ring.
    let out = emulator
        .command(Some("1:not-hex"))
        .output()
        .expect("the example function runs");
    assert!(!out.status.success());
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(said.contains("MCP_STATE_KEYS:"), "{said}");
}
