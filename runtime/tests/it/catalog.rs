//! A catalog that changes while the server serves: tools added, replaced, disabled and removed
//! through `Server::catalog()`, announced on listen streams, and a retry for a tool that is gone
//! refused cleanly. (Visibility per caller, over HTTP with real tokens, is in `security.rs`.)

use crate::common;

use common::{accept, all_caps, call, first_key, meta, send};
use oxmcp::prelude::*;
use oxmcp::server::CatalogError;
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

/// Echoes its text.
#[mcp_tool]
async fn echo(text: String) -> String {
    text
}

/// Counts with the server's counter.
#[mcp_tool]
async fn counted(counter: State<std::sync::atomic::AtomicU32>) -> String {
    counter
        .fetch_add(1, std::sync::atomic::Ordering::SeqCst)
        .to_string()
}

type Lines = tokio::io::Lines<BufReader<tokio::io::ReadHalf<tokio::io::DuplexStream>>>;

/// The next message the server writes, as JSON (failing after 5 s of silence).
async fn next(lines: &mut Lines) -> Value {
    let line = tokio::time::timeout(Duration::from_secs(5), lines.next_line())
        .await
        .expect("a message within 5 s")
        .unwrap()
        .unwrap();
    serde_json::from_str(&line).unwrap()
}

async fn tool_names(server: &Server) -> Vec<String> {
    let list = send(server, 9, "tools/list", json!({"_meta": meta(json!({}))})).await;
    list["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect()
}

#[tokio::test]
async fn a_tool_added_at_run_time_is_listed_callable_and_announced() {
    let server = Arc::new(Server::builder().build().unwrap());
    let catalog = server.catalog();
    // A client listening for tool list changes, over stdio.
    let (client_end, server_end) = tokio::io::duplex(64 * 1024);
    let (server_read, server_write) = tokio::io::split(server_end);
    tokio::spawn(oxmcp::stdio::serve_io_with_limit(
        server.clone(),
        server_read,
        server_write,
        oxmcp::stdio::DEFAULT_MAX_LINE,
    ));
    let (client_read, mut client_write) = tokio::io::split(client_end);
    let mut lines = BufReader::new(client_read).lines();
    let listen = json!({"jsonrpc": "2.0", "id": "sub", "method": "subscriptions/listen",
        "params": {"_meta": meta(json!({})), "notifications": {"toolsListChanged": true}}});
    client_write
        .write_all(format!("{listen}\n").as_bytes())
        .await
        .unwrap();
    let ack = next(&mut lines).await;
    assert_eq!(
        ack["method"], "notifications/subscriptions/acknowledged",
        "{ack}"
    );
    assert!(tool_names(&server).await.is_empty());

    catalog.add_tool(echo).unwrap();
    let note = next(&mut lines).await;
    assert_eq!(note["method"], "notifications/tools/list_changed", "{note}");
    assert_eq!(tool_names(&server).await, ["echo"]);
    let reply = send(
        &server,
        1,
        "tools/call",
        call("echo", json!({"text": "hi"}), json!({})),
    )
    .await;
    assert_eq!(reply["result"]["content"][0]["text"], "hi");

    // Disabled: gone from the list and unknown to a call; enabled again: back.
    assert!(catalog.enable_tool("echo", false));
    assert_eq!(
        next(&mut lines).await["method"],
        "notifications/tools/list_changed"
    );
    assert!(tool_names(&server).await.is_empty());
    let refused = send(
        &server,
        2,
        "tools/call",
        call("echo", json!({"text": "hi"}), json!({})),
    )
    .await;
    assert_eq!(refused["error"]["code"], -32602, "{refused}");
    assert!(catalog.enable_tool("echo", true));
    assert_eq!(tool_names(&server).await, ["echo"]);
    assert!(!catalog.enable_tool("nope", true), "no such tool");
}

#[tokio::test]
async fn a_removed_tool_is_gone_and_its_pending_retry_is_refused() {
    let server = mcp_tests::conformance::server(Server::builder())
        .build()
        .unwrap();
    let catalog = server.catalog();
    let name = "test_input_required_result_elicitation";
    let mut params = call(name, json!({}), all_caps());
    let round = send(&server, 1, "tools/call", params.clone()).await;
    let key = first_key(&round["result"]);
    params["requestState"] = round["result"]["requestState"].clone();
    params["inputResponses"] = json!({ key: accept(json!({"name": "Ada"})) });

    assert!(catalog.remove_tool(name));
    assert!(!tool_names(&server).await.iter().any(|n| n == name));
    let retry = send(&server, 2, "tools/call", params).await;
    assert_eq!(retry["error"]["code"], -32602, "{retry}");
    assert!(
        retry["error"]["message"]
            .as_str()
            .unwrap()
            .contains("unknown tool"),
        "{retry}"
    );
    assert!(!catalog.remove_tool(name), "already gone");
}

#[tokio::test]
async fn a_tool_is_replaced_whole_and_state_it_needs_is_checked() {
    let server = Server::builder()
        .state(std::sync::atomic::AtomicU32::new(7))
        .build()
        .unwrap();
    let catalog = server.catalog();
    catalog.add_tool(counted).unwrap();
    let reply = send(
        &server,
        1,
        "tools/call",
        call("counted", json!({}), json!({})),
    )
    .await;
    assert_eq!(reply["result"]["content"][0]["text"], "7");
    // A server without the state the tool takes refuses it.
    let bare = Server::builder().build().unwrap();
    let err = bare.catalog().add_tool(counted).unwrap_err();
    assert!(matches!(err, CatalogError::MissingState { .. }), "{err}");
    assert!(err.to_string().contains("AtomicU32"), "{err}");
    assert!(tool_names(&bare).await.is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn changes_and_calls_run_at_the_same_time() {
    let server = Arc::new(Server::builder().build().unwrap());
    let catalog = server.catalog();
    catalog.add_tool(echo).unwrap();
    let writer = tokio::spawn(async move {
        for i in 0..200 {
            catalog.enable_tool("echo", i % 2 == 0);
            tokio::task::yield_now().await;
        }
        catalog.enable_tool("echo", true);
    });
    let mut answered = 0;
    for id in 0..400 {
        let reply = send(
            &server,
            id,
            "tools/call",
            call("echo", json!({"text": "x"}), json!({})),
        )
        .await;
        match (reply.get("result"), reply["error"]["code"].as_i64()) {
            (Some(r), _) => {
                assert_eq!(r["content"][0]["text"], "x");
                answered += 1;
            }
            (None, Some(-32602)) => {}
            other => panic!("{other:?}"),
        }
    }
    writer.await.unwrap();
    assert!(answered > 0);
}
