//! Interoperation with the official MCP Python SDK, an implementation of both eras written
//! apart from this project: its client drives the fixture server over streamable HTTP and
//! stdio, at 2026-07-28 (found by `server/discover`) and in a 2025-11-25 session, through every
//! kind of input request; and this project's client calls a server built on the SDK's
//! `MCPServer`, whose tools ask for a form, a sample and the roots, in both eras and over both
//! transports; and its OAuth provider logs in to a protected server of this project.
//!
//! The SDK is installed by `.ci/python-sdk.sh` into `target/python-sdk`, and the login's
//! authorization server by `.ci/oauth-server.sh`; the tests fail without them. Run with
//! `cargo test -p mcp-tests --features python-sdk-tests --test it python_sdk::`.

use mcp_tests::support::{
    answering_client, free_port, spawn_http_server, text, wait_for_port, ChildGuard, RING_OLD,
};
use oxmcp::client::{Client, Era, Protocol};
use serde_json::{json, Value};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::Duration;

/// The repository's root.
fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The virtual environment's Python, where `.ci/python-sdk.sh` installs the SDK.
fn python() -> PathBuf {
    let python = root().join("target/python-sdk/bin/python");
    assert!(
        python.exists(),
        "the MCP Python SDK is needed: run .ci/python-sdk.sh (it installs the pinned SDK from \
         PyPI into target/python-sdk)"
    );
    python
}

/// Run the script `tests/python-sdk/NAME` with `args` under the SDK's Python (a stdio server it
/// starts gets the test key ring); the JSON lines it printed. Panics with its output when it
/// fails or takes over a minute.
async fn python_script(name: &str, args: &[&str]) -> Vec<Value> {
    let run = tokio::process::Command::new(python())
        .arg(root().join("tests/python-sdk").join(name))
        .args(args)
        .env("MCP_STATE_KEYS", RING_OLD)
        .kill_on_drop(true)
        .output();
    let out = tokio::time::timeout(Duration::from_secs(60), run)
        .await
        .unwrap_or_else(|_| panic!("{name} {args:?} took over a minute"))
        .unwrap_or_else(|e| panic!("{name} {args:?} does not start: {e}"));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{name} {args:?} failed: {}\n{stdout}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

/// Run the SDK's client against `target` in `mode`; the JSON lines it printed.
async fn python_client(target: &str, mode: &str) -> Vec<Value> {
    python_script("client.py", &[target, mode]).await
}

/// What the SDK's client must have seen from the fixture server at `version`.
fn check_python_client(lines: &[Value], version: &str, what: &str) {
    let step = |name: &str| -> Vec<&Value> { lines.iter().filter(|l| l["step"] == name).collect() };
    assert_eq!(
        step("connected")[0]["version"],
        version,
        "{what}: {lines:?}"
    );
    let names = step("tools/list")[0]["names"].as_array().expect("names");
    for tool in [
        "test_simple_text",
        "test_input_required_result_elicitation",
        "test_input_required_result_multi_round",
    ] {
        assert!(names.contains(&json!(tool)), "{what}: {tool} is not listed");
    }
    let calls: Vec<(&str, bool, &str)> = step("tools/call")
        .iter()
        .map(|c| {
            (
                c["tool"].as_str().unwrap_or(""),
                c["is_error"].as_bool().unwrap_or(false),
                c["text"][0].as_str().unwrap_or(""),
            )
        })
        .collect();
    let want = [
        (
            "test_simple_text",
            false,
            "This is a simple text response for testing.",
        ),
        (
            "test_input_required_result_elicitation",
            false,
            "Hello, Ada!",
        ),
        (
            "test_input_required_result_sampling",
            false,
            "The model said: Paris",
        ),
        (
            "test_input_required_result_list_roots",
            false,
            "Roots: file:///home/ada",
        ),
        (
            "test_input_required_result_multi_round",
            false,
            "Ada likes teal",
        ),
        (
            "test_input_required_result_multiple_inputs",
            false,
            "Paris Ada (1 roots)",
        ),
        (
            "test_input_required_result_request_state",
            false,
            "state-ok: confirmed=true",
        ),
        (
            "test_error_handling",
            true,
            "This tool intentionally returns an error for testing",
        ),
    ];
    assert_eq!(calls, want, "{what}");
    assert_eq!(
        step("prompts/get")[0]["text"],
        json!(["Answer with this context: tea"]),
        "{what}"
    );
    assert_eq!(
        step("resources/read")[0]["text"],
        json!(["This is the content of the static text resource."]),
        "{what}"
    );
    assert_eq!(
        step("resources/templates/list")[0]["uris"],
        json!(["test://template/{id}/data"]),
        "{what}"
    );
    assert_eq!(
        step("completion/complete")[0]["values"],
        json!(["paris", "park", "party"]),
        "{what}"
    );
    let progress = step("progress")[0];
    assert_eq!(progress["text"], json!(["Progress reported"]), "{what}");
    assert_eq!(
        progress["progress"],
        json!([[0.0, 100.0], [50.0, 100.0], [100.0, 100.0]]),
        "{what}"
    );
    let logging = step("logging")[0];
    assert_eq!(
        logging["logs"],
        json!([
            "Tool execution started",
            "Tool processing data",
            "Tool execution completed"
        ]),
        "{what}"
    );
    // 2026-07-28: a `subscriptions/listen` stream's event; a 2025 session: the notification.
    let heard = &step("listen")[0]["event"];
    assert!(
        *heard == json!("ToolsListChanged") || *heard == json!(true),
        "{what}: no tool list change was heard: {heard}"
    );
    assert_eq!(step("unknown tool")[0]["error"], -32602, "{what}");
    let closed = step("closed");
    assert_eq!(closed.len(), 1, "{what}: the client did not close cleanly");
    let notices = closed[0]["notices"].as_array().expect("notices");
    assert!(
        !notices
            .iter()
            .any(|n| n.as_str().is_some_and(|n| n.starts_with("error"))),
        "{what}: the client saw transport errors: {notices:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_python_sdk_client_is_served_in_both_eras_over_http() {
    let (_server, url) =
        spawn_http_server(env!("CARGO_BIN_EXE_conformance-server"), RING_OLD, |_| {
            Vec::new()
        });
    let modern = python_client(&url, "auto").await;
    check_python_client(&modern, "2026-07-28", "HTTP, auto");
    let legacy = python_client(&url, "legacy").await;
    check_python_client(&legacy, "2025-11-25", "HTTP, legacy");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_python_sdk_client_is_served_in_both_eras_over_stdio() {
    let bin = env!("CARGO_BIN_EXE_conformance-server");
    let modern = python_client(bin, "auto").await;
    check_python_client(&modern, "2026-07-28", "stdio, auto");
    let legacy = python_client(bin, "legacy").await;
    check_python_client(&legacy, "2025-11-25", "stdio, legacy");
}

/// The SDK's server over HTTP on a free port, in `mode` (`http`, `http-json`, `http-stateless`).
fn python_server(mode: &str) -> (ChildGuard, String) {
    let port = free_port();
    let child = Command::new(python())
        .arg(root().join("tests/python-sdk/server.py"))
        .args([mode, &port.to_string()])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("the Python server starts");
    let guard = ChildGuard(child);
    wait_for_port(port);
    (guard, format!("http://127.0.0.1:{port}/mcp"))
}

/// Call each of the SDK server's tools with `client` (with `asks` false, only those that ask
/// the client nothing), then check the era it agreed.
async fn call_the_python_server(client: Client, session: bool, asks: bool, what: &str) {
    let tools: Vec<String> = client
        .list_all_tools()
        .await
        .unwrap_or_else(|e| panic!("{what}: tools/list: {e}"))
        .into_iter()
        .map(|t| t.name)
        .collect();
    assert_eq!(tools.len(), 4, "{what}: {tools:?}");
    for (tool, args, want) in [
        ("add", json!({"a": 2, "b": 40}), "42"),
        ("greet", json!({}), "Hello, Ada!"),
        ("capital", json!({}), "The model said: Paris"),
        ("where", json!({}), "Roots: file:///home/ada"),
    ]
    .into_iter()
    .filter(|(tool, _, _)| asks || *tool == "add")
    {
        let result = client
            .call_tool(tool, args)
            .await
            .unwrap_or_else(|e| panic!("{what}: {tool}: {e}"));
        assert_eq!(text(&result), want, "{what}: {tool}");
    }
    // Arguments the tool's schema refuses: a tool error the model can read, not a failure.
    let refused = client
        .call_tool("add", json!({"a": "two", "b": 40}))
        .await
        .unwrap_or_else(|e| panic!("{what}: add with a bad argument: {e}"));
    assert_eq!(refused.is_error, Some(true), "{what}: {refused:?}");
    let protocol = client.protocol();
    match (&protocol, session) {
        (Some(Protocol::Session { version, .. }), true) => {
            assert_eq!(version, "2025-11-25", "{what}")
        }
        (Some(Protocol::Stateless { version }), false) => {
            assert_eq!(version, "2026-07-28", "{what}")
        }
        _ => panic!("{what}: agreed {protocol:?}"),
    }
    client
        .close()
        .await
        .unwrap_or_else(|e| panic!("{what}: close: {e}"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn our_client_calls_a_python_sdk_server_in_both_eras_over_http() {
    for mode in ["http", "http-json", "http-stateless"] {
        let (_server, url) = python_server(mode);
        call_the_python_server(
            answering_client(Client::http(&url)),
            false,
            true,
            &format!("{mode}, probed"),
        )
        .await;
        // With JSON bodies or without sessions, the SDK has no stream on which to send a 2025
        // session's requests to the client, and refuses its own asks there.
        call_the_python_server(
            answering_client(Client::http(&url).era(Era::Session)),
            true,
            mode == "http",
            &format!("{mode}, session"),
        )
        .await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn our_client_calls_a_python_sdk_server_in_both_eras_over_stdio() {
    let python = python();
    let script = root().join("tests/python-sdk/server.py");
    let (python, script) = (python.to_string_lossy(), script.to_string_lossy());
    for (era, session, what) in [
        (None, false, "stdio, probed"),
        (Some(Era::Session), true, "stdio, session"),
    ] {
        let client = Client::stdio(&python, &[&script, "stdio"]).expect("the Python server starts");
        let client = match era {
            Some(era) => client.era(era),
            None => client,
        };
        call_the_python_server(answering_client(client), session, true, what).await;
    }
}

/// The SDK's OAuth provider logs in to a server of this project through the standalone
/// authorization server (installed by `.ci/oauth-server.sh`): discovery from the 401, the
/// authorization code grant with PKCE and the resource, a token the server verifies, and a
/// step-up when a tool needs a scope the token lacks; in both eras.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_python_sdk_client_logs_in_to_our_server_and_steps_up() {
    use mcp_tests::oauth_server::{protected, AuthorizationServer};
    let auth = AuthorizationServer::start(3600);
    let server = mcp_tests::conformance::server(oxmcp::Server::builder())
        .build()
        .expect("the fixture server builds");
    let url = protected(server, &auth.issuer, &["mcp:basic"]).await;
    let mut grants = 0;
    for (mode, version) in [("auto", "2026-07-28"), ("legacy", "2025-11-25")] {
        let lines = python_script("oauth_client.py", &[url.as_str(), mode]).await;
        let step = |name: &str| -> &Value {
            lines
                .iter()
                .find(|l| l["step"] == name)
                .unwrap_or_else(|| panic!("{mode}: no {name} in {lines:?}"))
        };
        assert_eq!(step("connected")["version"], version, "{mode}");
        assert_eq!(step("whoami")["text"], json!(["johndoe"]), "{mode}");
        assert_eq!(step("admin")["text"], json!(["admin: johndoe"]), "{mode}");
        // First the scope the server's 401 names, then that and `admin` (the 403's scope).
        let seen = &step("authorizations")["seen"];
        let scopes: Vec<&str> = seen
            .as_array()
            .expect("authorizations")
            .iter()
            .map(|a| a["scope"].as_str().unwrap_or(""))
            .collect();
        assert_eq!(scopes.first(), Some(&"mcp:basic"), "{mode}: {seen}");
        assert!(
            scopes.len() == 2 && scopes[1].split(' ').any(|s| s == "admin"),
            "{mode}: no step-up to admin: {seen}"
        );
        for a in seen.as_array().expect("authorizations") {
            assert_eq!(a["resource"], json!(url), "{mode}: {a}");
            assert_eq!(a["code_challenge_method"], "S256", "{mode}: {a}");
        }
        // Each authorization was redeemed once at the token endpoint.
        grants += 2;
        let issued = auth.grants(grants);
        assert_eq!(issued.len(), grants, "{mode}: {issued:?}");
        assert!(
            issued
                .iter()
                .all(|g| g.starts_with("grant authorization_code")),
            "{mode}: {issued:?}"
        );
    }
}
