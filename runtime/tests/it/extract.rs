//! Handler parameters that are not arguments: application state, the caller, the request
//! context. In process, over HTTP (an axum layer hands the principal in) and over stdio (a
//! configured principal).

use crate::common;

use common::{all_caps, call, first_key, meta, send};
use oxmcp::prelude::*;
use oxmcp::schema::ContentBlock;
use oxmcp::{request_state::KeyRing, BuildError};
use serde_json::{json, Value};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// What a real server keeps: configuration and a counter shared by every call.
struct Config {
    greeting: String,
}

#[derive(Default)]
struct Visits {
    count: AtomicU64,
}

/// Greets the caller by subject, with the configured greeting; counts visits.
#[mcp_tool]
async fn whoami(
    config: State<Config>,
    visits: State<Visits>,
    caller: Option<Principal>,
    punctuation: String,
) -> String {
    let n = visits.count.fetch_add(1, Ordering::SeqCst) + 1;
    let who = caller.map_or("anonymous".to_string(), |p| p.subject);
    format!("{} {who}{punctuation} (visit {n})", config.greeting)
}

/// Needs an authenticated caller; asks them to confirm, then names them and their issuer.
#[mcp_tool]
async fn confirm_as(caller: Principal, ctx: RequestContext) -> Result<String, ToolError> {
    #[derive(ElicitForm)]
    struct Confirm {
        /// Go ahead?
        ok: bool,
    }
    ctx.progress(0.5, Some(1.0), Some("asking"));
    let version = ctx.meta().protocol_version.clone();
    match elicit::<Confirm>("Confirm?").await? {
        Elicited::Accept(c) if c.ok => Ok(format!(
            "{} from {} ({version}, {})",
            caller.subject,
            caller.issuer.unwrap_or_default(),
            ctx.target()
        )),
        _ => Ok("not confirmed".into()),
    }
}

/// A prompt and a resource take state too.
#[mcp_prompt]
async fn greet_prompt(config: State<Config>, name: String) -> String {
    format!("{} {name}", config.greeting)
}

#[mcp_resource(uri = "test://visits/{kind}")]
async fn visit_count(kind: String, visits: State<Visits>) -> String {
    format!("{kind}: {}", visits.count.load(Ordering::SeqCst))
}

fn keys() -> KeyRing {
    KeyRing::parse(&format!("1:{}", "ab".repeat(32))).unwrap()
}

fn server() -> Server {
    Server::builder()
        .state(Config {
            greeting: "Hello".into(),
        })
        .state(Visits::default())
        .request_state_keys(keys())
        .tool(whoami)
        .tool(confirm_as)
        .prompt(greet_prompt)
        .resource(visit_count)
        .build()
        .unwrap()
}

fn text(reply: &Value) -> String {
    reply["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no text in {reply}"))
        .to_string()
}

#[tokio::test]
async fn handlers_get_registered_state_and_the_caller() {
    let s = server();
    let anon = send(
        &s,
        1,
        "tools/call",
        call("whoami", json!({"punctuation": "!"}), json!({})),
    )
    .await;
    assert_eq!(text(&anon), "Hello anonymous! (visit 1)");

    let alice = Principal::new("alice").with_issuer("https://issuer.example");
    let msg = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                     "params": call("whoami", json!({"punctuation": "?"}), json!({}))});
    let r = s
        .handle_message(&msg.to_string(), Some(&alice))
        .await
        .unwrap()
        .to_value();
    assert_eq!(text(&r), "Hello alice? (visit 2)");

    let prompt = send(
        &s,
        3,
        "prompts/get",
        json!({"name": "greet_prompt", "arguments": {"name": "Bo"}, "_meta": meta(json!({}))}),
    )
    .await;
    assert_eq!(
        prompt["result"]["messages"][0]["content"]["text"],
        "Hello Bo"
    );
    let read = send(
        &s,
        4,
        "resources/read",
        json!({"uri": "test://visits/all", "_meta": meta(json!({}))}),
    )
    .await;
    assert_eq!(read["result"]["contents"][0]["text"], "all: 2");
}

#[tokio::test]
async fn state_and_principal_stay_out_of_the_input_schema() {
    let s = server();
    let list = send(&s, 1, "tools/list", json!({"_meta": meta(json!({}))})).await;
    let tools = list["result"]["tools"].as_array().unwrap();
    let listed = tools.iter().find(|t| t["name"] == "whoami").unwrap();
    assert_eq!(
        listed["inputSchema"]["properties"],
        json!({"punctuation": {"type": "string"}})
    );
    let confirm = tools.iter().find(|t| t["name"] == "confirm_as").unwrap();
    assert_eq!(confirm["inputSchema"]["properties"], json!({}));
    let prompts = send(&s, 2, "prompts/list", json!({"_meta": meta(json!({}))})).await;
    assert_eq!(
        prompts["result"]["prompts"][0]["arguments"],
        json!([{"name": "name", "required": true}])
    );
}

#[tokio::test]
async fn a_handler_that_needs_a_caller_fails_without_one() {
    let s = server();
    let r = send(
        &s,
        1,
        "tools/call",
        call("confirm_as", json!({}), all_caps()),
    )
    .await;
    assert_eq!(r["error"]["code"], -32600, "{r}");
}

#[test]
fn a_missing_state_is_an_error_when_the_server_is_built() {
    let built = Server::builder()
        .state(Visits::default())
        .request_state_keys(keys())
        .tool(whoami)
        .build();
    match built {
        Err(BuildError::MissingState { handler, type_name }) => {
            assert_eq!(handler, "whoami");
            assert!(type_name.ends_with("Config"), "{type_name}");
        }
        Err(other) => panic!("unexpected error: {other}"),
        Ok(_) => panic!("a server whose tool needs an unregistered state was built"),
    }
}

#[tokio::test]
async fn run_takes_the_parameters_directly_in_tests() {
    let out = whoami::run(
        State::new(Config {
            greeting: "Hi".into(),
        }),
        State::new(Visits::default()),
        Some(Principal::new("tester")),
        ".".into(),
    )
    .await;
    assert_eq!(out, "Hi tester. (visit 1)");
}

/// A multi-round call whose retry comes from another principal is refused, and the same
/// principal completes it; the handler sees the subject and its issuer.
#[tokio::test]
async fn the_principal_is_bound_into_request_state() {
    let s = server();
    let alice = Principal::new("alice").with_issuer("iss-a");
    let first = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                       "params": call("confirm_as", json!({}), all_caps())});
    let r = s
        .handle_message(&first.to_string(), Some(&alice))
        .await
        .unwrap()
        .to_value();
    let result = &r["result"];
    let key = first_key(result);
    let mut params = call("confirm_as", json!({}), all_caps());
    params["requestState"] = result["requestState"].clone();
    params["inputResponses"] = json!({ key: {"action": "accept", "content": {"ok": true}} });
    let retry = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": params});
    for other in [
        Principal::new("bob").with_issuer("iss-a"),
        Principal::new("alice").with_issuer("iss-b"),
    ] {
        let refused = s
            .handle_message(&retry.to_string(), Some(&other))
            .await
            .unwrap()
            .to_value();
        assert_eq!(refused["error"]["code"], -32602, "{refused}");
        assert_eq!(refused["error"]["message"], "invalid requestState");
    }
    let done = s
        .handle_message(&retry.to_string(), Some(&alice))
        .await
        .unwrap()
        .to_value();
    assert_eq!(text(&done), "alice from iss-a (2026-07-28, confirm_as)");
}

/// Over HTTP, the application's own tower layer hands the principal in through the request's
/// extensions; over stdio, the principal is configured.
#[tokio::test]
async fn the_principal_reaches_handlers_over_http_and_stdio() {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

    let router = server()
        .into_router()
        .layer(axum::Extension(Principal::new("carol")));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, router).await });
    let client = oxmcp::client::Client::http(&url);
    let r = client
        .call_tool("whoami", json!({"punctuation": "!"}))
        .await
        .unwrap();
    match &r.content[0] {
        ContentBlock::TextContent(t) => assert_eq!(t.text, "Hello carol! (visit 1)"),
        other => panic!("not text: {other:?}"),
    }

    let (client_end, server_end) = tokio::io::duplex(64 * 1024);
    let (read, write) = tokio::io::split(server_end);
    let config = oxmcp::stdio::StdioConfig::default().principal(Some(Principal::new("dave")));
    let serving = tokio::spawn(oxmcp::stdio::serve_io_with(
        Arc::new(server()),
        read,
        write,
        config,
    ));
    let (client_read, mut client_write) = tokio::io::split(client_end);
    let msg = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                     "params": call("whoami", json!({"punctuation": "."}), json!({}))});
    client_write
        .write_all(format!("{msg}\n").as_bytes())
        .await
        .unwrap();
    let mut lines = BufReader::new(client_read).lines();
    let line = lines.next_line().await.unwrap().unwrap();
    let reply: Value = serde_json::from_str(&line).unwrap();
    assert_eq!(text(&reply), "Hello dave. (visit 1)");
    client_write.shutdown().await.unwrap();
    serving.await.unwrap().unwrap();
}

/// Where a spawned watcher reports whether its request was cancelled.
#[derive(Default)]
struct Watch {
    seen: tokio::sync::Mutex<Option<tokio::sync::oneshot::Receiver<bool>>>,
}

/// Hands `ctx.cancelled()` to a spawned task (`true` if it fires within 2 s), then never
/// finishes when `hang` is set.
#[mcp_tool]
async fn watched(watch: State<Arc<Watch>>, ctx: RequestContext, hang: bool) -> String {
    let (tx, rx) = tokio::sync::oneshot::channel();
    *watch.seen.lock().await = Some(rx);
    tokio::spawn(async move {
        let fired = tokio::time::timeout(std::time::Duration::from_secs(2), ctx.cancelled())
            .await
            .is_ok();
        let _ = tx.send(fired && ctx.is_cancelled());
    });
    if hang {
        std::future::pending::<()>().await;
    }
    "done".into()
}

#[tokio::test]
async fn a_request_dropped_before_it_finishes_is_cancelled_and_a_finished_one_is_not() {
    let shared = Arc::new(Watch::default());
    let server = Server::builder()
        .state(shared.clone())
        .tool(watched)
        .build()
        .unwrap();
    let watch = || async {
        let rx = shared.seen.lock().await.take();
        rx.expect("the tool ran")
            .await
            .expect("the watcher reports")
    };
    // Finished: the watcher never sees a cancellation.
    let done = send(
        &server,
        1,
        "tools/call",
        call("watched", json!({"hang": false}), json!({})),
    )
    .await;
    assert_eq!(done["result"]["content"][0]["text"], "done", "{done}");
    assert!(!watch().await, "a finished request is not cancelled");
    // Dropped while running (the transport's cancellation): the watcher sees it.
    let msg = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                     "params": call("watched", json!({"hang": true}), json!({}))});
    let text = msg.to_string();
    let run = server.handle_message(&text, None);
    let timed_out = tokio::time::timeout(std::time::Duration::from_millis(50), run).await;
    assert!(timed_out.is_err(), "the hanging tool does not answer");
    assert!(watch().await, "a dropped request is cancelled");
}
