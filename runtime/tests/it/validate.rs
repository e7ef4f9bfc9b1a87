//! The schema's rules at the server's edges: a request that breaks one is refused with -32602
//! and where it is when `validate_requests` is on (and served as sent when it is off), and in
//! debug builds a result that breaks one is the server's bug, answered as an internal error
//! naming the rule instead of reaching the client.
#![cfg(feature = "validate")]

use crate::common;

use common::{call, meta, send};
use oxmcp::prelude::*;
use oxmcp::schema::{CallToolResult, ContentBlock, ResourceLink};
use serde_json::json;

/// Links to `uri`, whatever it is.
#[mcp_tool]
async fn link(uri: String) -> CallToolResult {
    CallToolResult::content(vec![ContentBlock::ResourceLink(ResourceLink::new(
        "target", uri,
    ))])
}

/// Echoes its text.
#[mcp_tool]
async fn echo(text: String) -> String {
    text
}

fn server(validate_requests: bool) -> Server {
    Server::builder()
        .tool(link)
        .tool(echo)
        .validate_requests(validate_requests)
        .build()
        .unwrap()
}

#[tokio::test]
async fn a_request_that_breaks_a_rule_is_refused_with_its_path_when_asked() {
    // `resources/read` takes a `uri` whose format is `uri`; a priority is between 0 and 1.
    let bad_uri = json!({"uri": "not a uri", "_meta": meta(json!({}))});
    let strict = server(true);
    let reply = send(&strict, 1, "resources/read", bad_uri.clone()).await;
    assert_eq!(reply["error"]["code"], -32602, "{reply}");
    assert_eq!(reply["error"]["data"]["path"], "/params/uri", "{reply}");
    assert_eq!(reply["error"]["data"]["rule"], "format uri", "{reply}");
    assert!(
        reply["error"]["message"]
            .as_str()
            .unwrap()
            .contains("/params/uri"),
        "{reply}"
    );
    // A valid request goes through.
    let ok = send(
        &strict,
        2,
        "tools/call",
        call("echo", json!({"text": "hi"}), json!({})),
    )
    .await;
    assert_eq!(ok["result"]["content"][0]["text"], "hi", "{ok}");

    // Off (the default), the same request is served as sent: here, an unknown resource.
    let lenient = server(false);
    let reply = send(&lenient, 3, "resources/read", bad_uri).await;
    assert_eq!(reply["error"]["message"], "Resource not found", "{reply}");
    assert!(reply["error"]["data"].get("rule").is_none(), "{reply}");
}

#[cfg(debug_assertions)]
#[tokio::test]
async fn a_result_that_breaks_a_rule_is_an_internal_error_in_debug_builds() {
    let s = server(false);
    let good = send(
        &s,
        1,
        "tools/call",
        call("link", json!({"uri": "file:///etc/hosts"}), json!({})),
    )
    .await;
    assert_eq!(
        good["result"]["content"][0]["uri"], "file:///etc/hosts",
        "{good}"
    );
    let bad = send(
        &s,
        2,
        "tools/call",
        call("link", json!({"uri": "my file.txt"}), json!({})),
    )
    .await;
    assert_eq!(bad["error"]["code"], -32603, "{bad}");
    assert_eq!(bad["error"]["data"]["path"], "/content/0/uri", "{bad}");
    assert_eq!(bad["error"]["data"]["rule"], "format uri", "{bad}");
    // The server keeps serving.
    let after = send(
        &s,
        3,
        "tools/call",
        call("echo", json!({"text": "still here"}), json!({})),
    )
    .await;
    assert_eq!(after["result"]["content"][0]["text"], "still here");
}
