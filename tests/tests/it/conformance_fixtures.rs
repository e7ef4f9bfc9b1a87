//! The conformance suite's MRTR scenarios, replayed as JSON-RPC messages against the fixture
//! handlers of `mcp_tests::conformance` (the HTTP run of the real suite is the server's job).

use oxmcp::{
    request_state::{KeyRing, SealingKey},
    Server,
};
use serde_json::{json, Value};

fn server() -> Server {
    mcp_tests::conformance::mrtr_fixtures(Server::builder())
        .request_state_keys(KeyRing::new(vec![SealingKey::new(1, &[1u8; 32]).unwrap()]).unwrap())
        .build()
        .unwrap()
}

fn meta(caps: Value) -> Value {
    json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": caps})
}

fn caps() -> Value {
    json!({"elicitation": {}, "sampling": {}, "roots": {}})
}

async fn call(s: &Server, method: &str, name: &str, extra: Value, caps: Value) -> Value {
    let mut params = json!({"name": name, "arguments": {}, "_meta": meta(caps)});
    if let Value::Object(m) = extra {
        for (k, v) in m {
            params[k] = v;
        }
    }
    let msg = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    s.handle_message(&msg.to_string(), None)
        .await
        .unwrap()
        .to_value()
}

fn incomplete(r: &Value) -> (Value, Value) {
    let res = &r["result"];
    assert_eq!(res["resultType"], "input_required", "{r}");
    (res["inputRequests"].clone(), res["requestState"].clone())
}

fn complete_text(r: &Value) -> String {
    let res = &r["result"];
    assert_eq!(res["resultType"], "complete", "{r}");
    res["content"][0]["text"].as_str().unwrap().to_string()
}

fn accept(content: Value) -> Value {
    json!({"action": "accept", "content": content})
}

fn sampled(text: &str) -> Value {
    json!({"role": "assistant", "content": {"type": "text", "text": text}, "model": "m"})
}

#[tokio::test]
async fn basic_elicitation_and_its_variants() {
    let s = server();
    let name = "test_input_required_result_elicitation";
    let (reqs, state) = incomplete(&call(&s, "tools/call", name, json!({}), caps()).await);
    assert_eq!(reqs["user_name"]["method"], "elicitation/create");
    assert_eq!(reqs["user_name"]["params"]["message"], "What is your name?");
    assert_eq!(
        reqs["user_name"]["params"]["requestedSchema"]["required"],
        json!(["name"])
    );
    let ok = call(&s, "tools/call", name, json!({"inputResponses": {"user_name": accept(json!({"name": "Alice"}))}, "requestState": state}), caps()).await;
    assert_eq!(complete_text(&ok), "Hello, Alice!");
    // Missing or wrong keys: asked again, not an error.
    let again = call(
        &s,
        "tools/call",
        name,
        json!({"inputResponses": {"wrong": accept(json!({"name": "A"}))}}),
        caps(),
    )
    .await;
    assert!(incomplete(&again).0["user_name"].is_object());
    // Extra keys are ignored.
    let extra = call(
        &s,
        "tools/call",
        name,
        json!({"inputResponses": {"user_name": accept(json!({"name": "Bo"})), "junk": 1}}),
        caps(),
    )
    .await;
    assert_eq!(complete_text(&extra), "Hello, Bo!");
    // Invalid structures: asked again (or an error), never a crash.
    for bad in [
        json!({"user_name": "nope"}),
        json!({"user_name": {"action": 7}}),
        json!({"user_name": null}),
    ] {
        let r = call(
            &s,
            "tools/call",
            name,
            json!({"inputResponses": bad}),
            caps(),
        )
        .await;
        assert!(
            r["result"]["resultType"] == "input_required" || r["error"].is_object(),
            "{r}"
        );
    }
    let r = call(
        &s,
        "tools/call",
        name,
        json!({"inputResponses": [1, 2]}),
        caps(),
    )
    .await;
    assert_eq!(r["error"]["code"], -32602);
}

#[tokio::test]
async fn sampling_roots_state_and_multiple_inputs() {
    let s = server();
    let (reqs, st) = incomplete(
        &call(
            &s,
            "tools/call",
            "test_input_required_result_sampling",
            json!({}),
            caps(),
        )
        .await,
    );
    assert_eq!(reqs["capital_question"]["params"]["maxTokens"], 100);
    let r = call(
        &s,
        "tools/call",
        "test_input_required_result_sampling",
        json!({"inputResponses": {"capital_question": sampled("Paris")}, "requestState": st}),
        caps(),
    )
    .await;
    assert_eq!(complete_text(&r), "The model said: Paris");

    let (reqs, st) = incomplete(
        &call(
            &s,
            "tools/call",
            "test_input_required_result_list_roots",
            json!({}),
            caps(),
        )
        .await,
    );
    assert_eq!(reqs["client_roots"]["method"], "roots/list");
    let r = call(&s, "tools/call", "test_input_required_result_list_roots", json!({"inputResponses": {"client_roots": {"roots": [{"uri": "file:///a"}]}}, "requestState": st}), caps()).await;
    assert_eq!(complete_text(&r), "Roots: file:///a");

    let (_, st) = incomplete(
        &call(
            &s,
            "tools/call",
            "test_input_required_result_request_state",
            json!({}),
            caps(),
        )
        .await,
    );
    assert!(st.as_str().is_some_and(|t| !t.is_empty()));
    let r = call(
        &s,
        "tools/call",
        "test_input_required_result_request_state",
        json!({"inputResponses": {"confirm": accept(json!({"ok": true}))}, "requestState": st}),
        caps(),
    )
    .await;
    assert!(complete_text(&r).contains("state-ok"));

    let (reqs, st) = incomplete(
        &call(
            &s,
            "tools/call",
            "test_input_required_result_multiple_inputs",
            json!({}),
            caps(),
        )
        .await,
    );
    let mut keys: Vec<&String> = reqs.as_object().unwrap().keys().collect();
    keys.sort();
    assert_eq!(keys, ["client_roots", "greeting", "user_name"]);
    let r = call(&s, "tools/call", "test_input_required_result_multiple_inputs", json!({"inputResponses": {
        "user_name": accept(json!({"name": "Cy"})), "greeting": sampled("Hi"), "client_roots": {"roots": []}
    }, "requestState": st}), caps()).await;
    assert_eq!(complete_text(&r), "Hi Cy (0 roots)");
}

#[tokio::test]
async fn multi_round_tampering_capabilities_and_prompts() {
    let s = server();
    let t = "test_input_required_result_multi_round";
    let (reqs, st1) = incomplete(&call(&s, "tools/call", t, json!({}), caps()).await);
    assert!(reqs["step1"].is_object());
    let (reqs, st2) = incomplete(&call(&s, "tools/call", t, json!({"inputResponses": {"step1": accept(json!({"name": "Di"}))}, "requestState": st1}), caps()).await);
    assert!(reqs["step2"].is_object());
    assert_ne!(st1, st2, "the state evolves");
    let r = call(
        &s,
        "tools/call",
        t,
        json!({"inputResponses": {"step2": accept(json!({"color": "teal"}))}, "requestState": st2}),
        caps(),
    )
    .await;
    assert_eq!(complete_text(&r), "Di likes teal");

    let t = "test_input_required_result_tampered_state";
    let (_, st) = incomplete(&call(&s, "tools/call", t, json!({}), caps()).await);
    let tampered = format!("{}x", st.as_str().unwrap());
    let r = call(&s, "tools/call", t, json!({"inputResponses": {"confirm": accept(json!({"ok": true}))}, "requestState": tampered}), caps()).await;
    assert_eq!(r["error"]["code"], -32602);

    let t = "test_input_required_result_capabilities";
    let (reqs, _) =
        incomplete(&call(&s, "tools/call", t, json!({}), json!({"sampling": {}})).await);
    assert!(reqs
        .as_object()
        .unwrap()
        .values()
        .all(|r| r["method"] == "sampling/createMessage"));
    let (reqs, _) =
        incomplete(&call(&s, "tools/call", t, json!({}), json!({"elicitation": {}})).await);
    assert!(reqs
        .as_object()
        .unwrap()
        .values()
        .all(|r| r["method"] == "elicitation/create"));

    let r = call(
        &s,
        "tools/call",
        "test_missing_capability",
        json!({}),
        json!({}),
    )
    .await;
    assert_eq!(r["error"]["code"], -32021);
    assert_eq!(
        r["error"]["data"]["requiredCapabilities"],
        json!({"sampling": {}})
    );

    let p = "test_input_required_result_prompt";
    let (reqs, st) = incomplete(&call(&s, "prompts/get", p, json!({}), caps()).await);
    assert!(reqs["user_context"].is_object());
    let r = call(&s, "prompts/get", p, json!({"inputResponses": {"user_context": accept(json!({"context": "tests"}))}, "requestState": st}), caps()).await;
    assert_eq!(
        r["result"]["messages"][0]["content"]["text"],
        "Answer with this context: tests"
    );

    // Methods other than tools/call, prompts/get and resources/read never answer input_required.
    for m in [
        "tools/list",
        "prompts/list",
        "resources/list",
        "server/discover",
    ] {
        let msg =
            json!({"jsonrpc": "2.0", "id": 9, "method": m, "params": {"_meta": meta(caps())}});
        let r = s
            .handle_message(&msg.to_string(), None)
            .await
            .unwrap()
            .to_value();
        assert_ne!(r["result"]["resultType"], "input_required", "{m}: {r}");
    }
}
