//! The resumable engine's contract, driven through JSON-RPC: many rounds, loops, joins,
//! decline and cancel, re-asking on missing or unusable answers, capability fallback, unknown
//! keys, answers without state, tool errors for bad arguments, prompts and resources.

use crate::common;

use common::*;
use oxmcp::prelude::*;
use oxmcp::request_state::{KeyRing, SealingKey};
use serde_json::{json, Value};
use std::sync::atomic::{AtomicUsize, Ordering};

#[derive(ElicitForm, Debug)]
struct Name {
    user_name: String,
}

#[derive(ElicitEnum, Debug, PartialEq)]
enum Size {
    #[elicit(title = "Small cup")]
    Small,
    #[elicit(rename = "L", title = "Large cup")]
    Large,
}

#[derive(ElicitEnum, Debug, PartialEq)]
enum Topping {
    Milk,
    Sugar,
}

#[derive(ElicitForm, Debug)]
struct Order {
    size: Size,
    toppings: Vec<Topping>,
    #[elicit(minimum = 1, maximum = 3)]
    cups: u8,
    price: f64,
    note: Option<String>,
}

/// Ask for a name, with the key the conformance suite expects.
#[mcp_tool]
async fn greet() -> Result<String, ToolError> {
    Ok(match elicit::<Name>("Your name?").key("user_name").await? {
        Elicited::Accept(n) => format!("Hello, {}!", n.user_name),
        Elicited::Decline => "declined".into(),
        Elicited::Cancel => "cancelled".into(),
    })
}

/// Ask `rounds` questions one after another.
#[mcp_tool]
async fn count(rounds: u32) -> Result<String, ToolError> {
    let mut names = Vec::new();
    for _ in 0..rounds {
        if let Elicited::Accept(n) = elicit::<Name>("Next name?").await? {
            names.push(n.user_name);
        }
    }
    Ok(names.join(","))
}

/// Prefer sampling; fall back to a form when the client cannot sample.
#[mcp_tool]
async fn fallback() -> Result<String, ToolError> {
    match sample(Sampling::user("Pick a name")).await {
        Ok(r) => Ok(format!("sampled {}", r.text().unwrap_or(""))),
        Err(AskError::MissingCapability(_)) => match elicit::<Name>("Pick a name").await? {
            Elicited::Accept(n) => Ok(format!("asked {}", n.user_name)),
            _ => Ok("none".into()),
        },
        Err(e) => Err(e.into()),
    }
}

/// Needs roots, and propagates a missing capability.
#[mcp_tool]
async fn needs_roots() -> Result<String, ToolError> {
    Ok(format!("{} roots", list_roots().await?.len()))
}

/// Orders coffee through a form with enums and numbers.
#[mcp_tool]
async fn coffee() -> Result<String, ToolError> {
    match elicit::<Order>("Your order?").await? {
        Elicited::Accept(o) => Ok(format!(
            "{:?} {:?} x{} at {} {:?}",
            o.size, o.toppings, o.cups, o.price, o.note
        )),
        _ => Ok("no order".into()),
    }
}

/// A prompt that asks before rendering.
#[mcp_prompt]
async fn welcome(style: Option<String>) -> Result<String, ToolError> {
    let name = match elicit::<Name>("Who?").key("user_name").await? {
        Elicited::Accept(n) => n.user_name,
        _ => "stranger".into(),
    };
    Ok(format!(
        "Welcome {name} in {} style",
        style.unwrap_or_else(|| "plain".into())
    ))
}

/// A templated resource that asks for consent by URL.
#[mcp_resource(uri = "test://docs/{id}", mime_type = "text/plain")]
async fn doc(id: String) -> Result<String, ToolError> {
    match elicit_url(
        "Approve access",
        format!("https://example.com/approve/{id}"),
    )
    .await?
    {
        Elicited::Accept(()) => Ok(format!("document {id}")),
        _ => Err(ToolError::new("access not approved")),
    }
}

static SIDE_EFFECTS: AtomicUsize = AtomicUsize::new(0);

/// Runs a step before asking: the step must not repeat on the retry.
#[mcp_tool]
async fn charge(amount: u32) -> Result<String, ToolError> {
    let receipt = step("charge", async {
        SIDE_EFFECTS.fetch_add(1, Ordering::SeqCst);
        Ok::<_, ToolError>(format!("rcpt-{amount}"))
    })
    .await?;
    match elicit::<Name>("Name for the receipt?").await? {
        Elicited::Accept(n) => Ok(format!("{receipt} for {}", n.user_name)),
        _ => Ok(receipt),
    }
}

/// `Name`'s form, counting how often its schema is built.
#[derive(Debug)]
struct CountedName(Name);

static SCHEMAS_BUILT: AtomicUsize = AtomicUsize::new(0);

impl ElicitForm for CountedName {
    fn requested_schema() -> oxmcp::schema::ElicitRequestFormParamsRequestedSchema {
        SCHEMAS_BUILT.fetch_add(1, Ordering::SeqCst);
        Name::requested_schema()
    }
    fn from_content(
        content: &indexmap::IndexMap<String, oxmcp::schema::ElicitResultContentValue>,
    ) -> Result<Self, String> {
        Name::from_content(content).map(CountedName)
    }
}

/// Ask `rounds` questions with a form that counts its schema builds.
#[mcp_tool]
async fn count_schemas(rounds: u32) -> Result<String, ToolError> {
    let mut names = Vec::new();
    for _ in 0..rounds {
        if let Elicited::Accept(CountedName(n)) = elicit::<CountedName>("Next name?").await? {
            names.push(n.user_name);
        }
    }
    Ok(names.join(","))
}

fn server() -> Server {
    Server::builder()
        .tool(count_schemas)
        .tool(greet)
        .tool(count)
        .tool(fallback)
        .tool(needs_roots)
        .tool(coffee)
        .tool(charge)
        .prompt(welcome)
        .resource(doc)
        .request_state_keys(KeyRing::new(vec![SealingKey::new(7, &[3u8; 32]).unwrap()]).unwrap())
        .build()
        .unwrap()
}

fn result(reply: &Value) -> &Value {
    assert!(reply.get("error").is_none(), "unexpected error: {reply}");
    &reply["result"]
}

fn text(reply: &Value) -> String {
    let r = result(reply);
    assert_eq!(r["resultType"], "complete", "{reply}");
    r["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

async fn retry(
    s: &Server,
    id: i64,
    name: &str,
    args: Value,
    responses: Value,
    state: Option<&Value>,
) -> Value {
    let mut p = call(name, args, all_caps());
    p["inputResponses"] = responses;
    if let Some(st) = state {
        p["requestState"] = st.clone();
    }
    send(s, id, "tools/call", p).await
}

#[tokio::test]
async fn one_round_accept_decline_cancel() {
    let s = server();
    for (answer, expected) in [
        (accept(json!({"user_name": "Ada"})), "Hello, Ada!"),
        (json!({"action": "decline"}), "declined"),
        (json!({"action": "cancel"}), "cancelled"),
    ] {
        let r = send(&s, 1, "tools/call", call("greet", json!({}), all_caps())).await;
        let st = result(&r)["requestState"].clone();
        assert!(result(&r)["inputRequests"]["user_name"].is_object());
        let r = retry(
            &s,
            2,
            "greet",
            json!({}),
            json!({"user_name": answer}),
            Some(&st),
        )
        .await;
        assert_eq!(text(&r), expected);
    }
}

#[tokio::test]
async fn answers_the_server_never_asked_for_are_ignored() {
    let s = server();
    // Without a state, answers count by key (the conformance suite expects that), and unknown
    // keys beside them are ignored.
    let r = retry(
        &s,
        1,
        "greet",
        json!({}),
        json!({"user_name": accept(json!({"user_name": "Bo"})), "zzz": {"x": 1}}),
        None,
    )
    .await;
    assert_eq!(text(&r), "Hello, Bo!");
    // With a state, only the question of the last round may be answered: an answer given ahead
    // of time to the next question (a key the server has not issued yet) is ignored, and the
    // handler asks that question for real.
    let first = retry(&s, 2, "count", json!({"rounds": 2}), json!({}), None).await;
    let asked = first_key(result(&first));
    let state = result(&first)["requestState"].clone();
    let next = format!("{asked}-1");
    let ahead = retry(
        &s,
        3,
        "count",
        json!({"rounds": 2}),
        json!({ asked.clone(): accept(json!({"user_name": "Bo"})),
                next.clone(): accept(json!({"user_name": "Cy"})) }),
        Some(&state),
    )
    .await;
    assert_eq!(first_key(result(&ahead)), next, "{ahead}");
}

#[tokio::test]
async fn missing_and_malformed_answers_are_asked_again() {
    let s = server();
    for bad in [
        json!(12345),
        json!({"action": "accept", "content": {"user_name": 5}}),
        json!({"action": "maybe"}),
        json!("x"),
    ] {
        let r = retry(&s, 1, "greet", json!({}), json!({"user_name": bad}), None).await;
        let res = result(&r);
        assert_eq!(res["resultType"], "input_required", "{r}");
        assert!(res["inputRequests"]["user_name"].is_object());
    }
    let r = retry(
        &s,
        1,
        "greet",
        json!({}),
        json!({"other": accept(json!({}))}),
        None,
    )
    .await;
    assert_eq!(result(&r)["resultType"], "input_required");
}

/// Drive `tool` (one name asked per round) through `rounds` answers, `n0`, `n1`, ..., calling
/// `after` with each request's number and reply; the final reply.
async fn one_name_per_round(
    s: &Server,
    tool: &str,
    rounds: i64,
    mut after: impl FnMut(i64, &Value),
) -> Value {
    let args = json!({ "rounds": rounds });
    let mut state: Option<Value> = None;
    let mut responses = json!({});
    for round in 0..rounds {
        let r = retry(s, round, tool, args.clone(), responses, state.as_ref()).await;
        after(round, &r);
        let res = result(&r);
        let reqs = res["inputRequests"].as_object().unwrap();
        assert_eq!(reqs.len(), 1, "one question per round");
        let key = reqs.keys().next().unwrap().clone();
        responses = json!({ key: accept(json!({"user_name": format!("n{round}")})) });
        state = Some(res["requestState"].clone());
    }
    let r = retry(s, rounds, tool, args, responses, state.as_ref()).await;
    after(rounds, &r);
    r
}

#[tokio::test]
async fn ten_rounds_in_a_loop() {
    let r = one_name_per_round(&server(), "count", 10, |_, _| {}).await;
    assert_eq!(text(&r), "n0,n1,n2,n3,n4,n5,n6,n7,n8,n9");
}

/// A retry replays the answers of earlier rounds from its journal: those asks build neither
/// their input request nor their form's schema. Only the fresh answer is reduced to the form's
/// fields (one schema), and only a new ask builds one to send.
#[tokio::test]
async fn replayed_asks_build_no_form_schema() {
    let mut before = SCHEMAS_BUILT.load(Ordering::SeqCst);
    let r = one_name_per_round(&server(), "count_schemas", 4, |round, _| {
        let now = SCHEMAS_BUILT.load(Ordering::SeqCst);
        // The first request asks (one schema); each retry reduces its one fresh answer and,
        // until the last, asks the next question (one more); the replays build none.
        let expected = match round {
            0 | 4 => 1,
            _ => 2,
        };
        assert_eq!(now - before, expected, "schemas built by request {round}");
        before = now;
    })
    .await;
    assert_eq!(text(&r), "n0,n1,n2,n3");
}

#[tokio::test]
async fn steps_do_not_repeat() {
    let s = server();
    let r = send(
        &s,
        1,
        "tools/call",
        call("charge", json!({"amount": 5}), all_caps()),
    )
    .await;
    assert_eq!(SIDE_EFFECTS.load(Ordering::SeqCst), 1);
    let res = result(&r);
    let key = res["inputRequests"]
        .as_object()
        .unwrap()
        .keys()
        .next()
        .unwrap()
        .clone();
    let st = res["requestState"].clone();
    let r = retry(
        &s,
        2,
        "charge",
        json!({"amount": 5}),
        json!({ key: accept(json!({"user_name": "Cy"})) }),
        Some(&st),
    )
    .await;
    assert_eq!(text(&r), "rcpt-5 for Cy");
    assert_eq!(
        SIDE_EFFECTS.load(Ordering::SeqCst),
        1,
        "replay used the recorded receipt"
    );
}

/// A sampling answer whose role is neither assistant nor user is not used: asked again.
#[tokio::test]
async fn a_sampling_answer_with_an_unknown_role_is_asked_again() {
    let s = server();
    let caps = json!({"sampling": {}});
    let first = send(
        &s,
        1,
        "tools/call",
        call("fallback", json!({}), caps.clone()),
    )
    .await;
    let key = first_key(result(&first));
    let state = result(&first)["requestState"].clone();
    let answer = |role: &str| json!({ key.clone(): {"role": role, "content": {"type": "text", "text": "Zed"}, "model": "m"} });
    let mut params = call("fallback", json!({}), caps.clone());
    params["requestState"] = state.clone();
    params["inputResponses"] = answer("robot");
    let robot = send(&s, 2, "tools/call", params.clone()).await;
    assert_eq!(first_key(result(&robot)), key, "{robot}");
    // The state of the round that asked again (states are single use).
    params["requestState"] = result(&robot)["requestState"].clone();
    params["inputResponses"] = answer("assistant");
    let ok = send(&s, 3, "tools/call", params).await;
    assert_eq!(text(&ok), "sampled Zed");
}

#[tokio::test]
async fn capability_fallback_and_missing_capability_error() {
    let s = server();
    // Sampling declared: it is asked.
    let r = send(
        &s,
        1,
        "tools/call",
        call(
            "fallback",
            json!({}),
            json!({"sampling": {}, "elicitation": {}}),
        ),
    )
    .await;
    let reqs = result(&r)["inputRequests"].as_object().unwrap().clone();
    assert_eq!(
        reqs.values().next().unwrap()["method"],
        "sampling/createMessage"
    );
    // Only forms: the handler falls back, and no sampling request is ever sent.
    let r = send(
        &s,
        2,
        "tools/call",
        call("fallback", json!({}), json!({"elicitation": {}})),
    )
    .await;
    let reqs = result(&r)["inputRequests"].as_object().unwrap().clone();
    assert_eq!(
        reqs.values().next().unwrap()["method"],
        "elicitation/create"
    );
    // `elicitation: {url: {}}` alone does not allow forms: nothing can be asked -> -32021 from `?`.
    let r = send(
        &s,
        3,
        "tools/call",
        call("fallback", json!({}), json!({"elicitation": {"url": {}}})),
    )
    .await;
    assert_eq!(r["error"]["code"], -32021, "{r}");
    assert_eq!(
        r["error"]["data"]["requiredCapabilities"]["elicitation"]["form"],
        json!({})
    );
    // The message names what is missing, so a person reading a log knows what to declare.
    assert_eq!(
        r["error"]["message"],
        "missing required client capability: elicitation.form"
    );
    let r = send(
        &s,
        4,
        "tools/call",
        call("needs_roots", json!({}), json!({})),
    )
    .await;
    assert_eq!(r["error"]["code"], -32021);
    assert_eq!(
        r["error"]["data"]["requiredCapabilities"],
        json!({"roots": {}})
    );
    assert_eq!(
        r["error"]["message"],
        "missing required client capability: roots"
    );
}

#[tokio::test]
async fn enum_and_number_form_fields() {
    let s = server();
    let r = send(&s, 1, "tools/call", call("coffee", json!({}), all_caps())).await;
    let reqs = result(&r)["inputRequests"].as_object().unwrap().clone();
    let (key, req) = reqs.iter().next().unwrap();
    let props = &req["params"]["requestedSchema"]["properties"];
    assert_eq!(
        props["size"]["oneOf"],
        json!([{"const": "Small", "title": "Small cup"}, {"const": "L", "title": "Large cup"}])
    );
    assert_eq!(props["toppings"]["items"]["enum"], json!(["Milk", "Sugar"]));
    assert_eq!(
        props["cups"],
        json!({"type": "integer", "minimum": 1, "maximum": 3})
    );
    assert_eq!(props["price"]["type"], "number");
    assert_eq!(
        req["params"]["requestedSchema"]["required"],
        json!(["size", "toppings", "cups", "price"])
    );
    let answer = accept(json!({"size": "L", "toppings": ["Sugar"], "cups": 2, "price": 3.5}));
    let state = result(&r)["requestState"].clone();
    let r = retry(
        &s,
        2,
        "coffee",
        json!({}),
        json!({ key.clone(): answer }),
        Some(&state),
    )
    .await;
    assert_eq!(text(&r), "Large [Sugar] x2 at 3.5 None");
    // An out-of-range value is asked again.
    let answer = accept(json!({"size": "L", "toppings": [], "cups": 300, "price": 1}));
    let r = retry(
        &s,
        3,
        "coffee",
        json!({}),
        json!({ key.clone(): answer }),
        None,
    )
    .await;
    assert_eq!(result(&r)["resultType"], "input_required");
}

#[tokio::test]
async fn bad_arguments_are_tool_errors() {
    let s = server();
    let r = send(
        &s,
        1,
        "tools/call",
        call("count", json!({"rounds": "many"}), all_caps()),
    )
    .await;
    let res = result(&r);
    assert_eq!(res["isError"], true, "{r}");
    assert!(res["content"][0]["text"]
        .as_str()
        .unwrap()
        .contains("invalid arguments"));
    let r = send(&s, 2, "tools/call", call("count", json!({}), all_caps())).await;
    assert_eq!(result(&r)["isError"], true);
}

#[tokio::test]
async fn prompt_and_resource_rounds() {
    let s = server();
    let p = json!({"name": "welcome", "arguments": {"style": "bold"}, "_meta": meta(all_caps())});
    let r = send(&s, 1, "prompts/get", p.clone()).await;
    let st = result(&r)["requestState"].clone();
    let mut p2 = p.clone();
    p2["inputResponses"] = json!({"user_name": accept(json!({"user_name": "Di"}))});
    p2["requestState"] = st;
    let r = send(&s, 2, "prompts/get", p2).await;
    assert_eq!(
        result(&r)["messages"][0]["content"]["text"],
        "Welcome Di in bold style"
    );

    let p = json!({"uri": "test://docs/42", "_meta": meta(all_caps())});
    let r = send(&s, 3, "resources/read", p.clone()).await;
    let res = result(&r);
    let (key, req) = res["inputRequests"]
        .as_object()
        .unwrap()
        .iter()
        .next()
        .map(|(k, v)| (k.clone(), v.clone()))
        .unwrap();
    assert_eq!(req["params"]["mode"], "url");
    assert_eq!(req["params"]["url"], "https://example.com/approve/42");
    let mut p2 = p.clone();
    p2["inputResponses"] = json!({ key: {"action": "accept"} });
    p2["requestState"] = res["requestState"].clone();
    let r = send(&s, 4, "resources/read", p2).await;
    assert_eq!(
        result(&r)["contents"][0],
        json!({"uri": "test://docs/42", "mimeType": "text/plain", "text": "document 42"})
    );

    let list = send(
        &s,
        5,
        "resources/templates/list",
        json!({"_meta": meta(json!({}))}),
    )
    .await;
    assert_eq!(
        result(&list)["resourceTemplates"][0]["uriTemplate"],
        "test://docs/{id}"
    );
    let list = send(&s, 6, "tools/list", json!({"_meta": meta(json!({}))})).await;
    let tools = result(&list)["tools"].as_array().unwrap().clone();
    let count_tool = tools.iter().find(|t| t["name"] == "count").unwrap();
    assert_eq!(
        count_tool["description"],
        "Ask `rounds` questions one after another."
    );
    assert_eq!(
        count_tool["inputSchema"]["properties"]["rounds"]["type"],
        "integer"
    );
    assert_eq!(count_tool["inputSchema"]["required"], json!(["rounds"]));
}

#[derive(serde::Serialize, schemars::JsonSchema)]
struct Weather {
    city: String,
    celsius: f64,
}

/// Structured output.
#[mcp_tool(name = "weather", title = "Weather")]
async fn weather_tool(city: String) -> Json<Weather> {
    Json(Weather {
        city,
        celsius: 21.5,
    })
}

#[derive(ElicitForm)]
struct WithDefaults {
    #[elicit(default = "tea", title = "Drink")]
    drink: String,
    #[elicit(default = 2)]
    sugars: u8,
    #[elicit(default = true)]
    hot: bool,
}

/// Shows form defaults.
#[mcp_tool]
async fn defaults() -> Result<String, ToolError> {
    match elicit::<WithDefaults>("Drink?").await? {
        Elicited::Accept(d) => Ok(format!("{} {} {}", d.drink, d.sugars, d.hot)),
        _ => Ok("none".into()),
    }
}

#[tokio::test]
async fn structured_output_and_form_defaults() {
    let s = Server::builder()
        .tool(weather_tool)
        .tool(defaults)
        .build()
        .unwrap();
    let list = send(&s, 1, "tools/list", json!({"_meta": meta(json!({}))})).await;
    let tools = result(&list)["tools"].as_array().unwrap().clone();
    let w = tools.iter().find(|t| t["name"] == "weather").unwrap();
    assert_eq!(w["title"], "Weather");
    assert_eq!(
        w["outputSchema"]["properties"]["celsius"]["type"], "number",
        "{w}"
    );
    let r = send(
        &s,
        2,
        "tools/call",
        call("weather", json!({"city": "Oslo"}), json!({})),
    )
    .await;
    assert_eq!(
        result(&r)["structuredContent"],
        json!({"city": "Oslo", "celsius": 21.5})
    );

    let r = send(&s, 3, "tools/call", call("defaults", json!({}), all_caps())).await;
    let req = result(&r)["inputRequests"]
        .as_object()
        .unwrap()
        .values()
        .next()
        .unwrap()
        .clone();
    let props = &req["params"]["requestedSchema"]["properties"];
    assert_eq!(
        props["drink"],
        json!({"type": "string", "title": "Drink", "default": "tea"})
    );
    assert_eq!(props["sugars"]["default"], 2);
    assert_eq!(props["hot"], json!({"type": "boolean", "default": true}));
}

mod v1 {
    use super::*;
    /// First version of a flow.
    #[mcp_tool(name = "flow")]
    pub async fn flow() -> Result<String, ToolError> {
        match elicit::<Name>("v1?").key("a").await? {
            Elicited::Accept(n) => Ok(format!("v1 {}", n.user_name)),
            _ => Ok("v1 none".into()),
        }
    }
}

mod v2 {
    use super::*;
    /// Second version: asks something else first.
    #[mcp_tool(name = "flow")]
    pub async fn flow() -> Result<String, ToolError> {
        let first = match elicit::<Name>("v2 first?").key("b").await? {
            Elicited::Accept(n) => n.user_name,
            _ => "none".into(),
        };
        match elicit::<Name>("v2?").key("a").await? {
            Elicited::Accept(n) => Ok(format!("v2 {first} {}", n.user_name)),
            _ => Ok("v2 none".into()),
        }
    }
}

#[tokio::test]
async fn changed_handler_code_starts_the_call_over() {
    let keys = || KeyRing::new(vec![SealingKey::new(1, &[5u8; 32]).unwrap()]).unwrap();
    let old = Server::builder()
        .tool(v1::flow)
        .request_state_keys(keys())
        .build()
        .unwrap();
    let new = Server::builder()
        .tool(v2::flow)
        .request_state_keys(keys())
        .build()
        .unwrap();
    let r = send(&old, 1, "tools/call", call("flow", json!({}), all_caps())).await;
    let st = result(&r)["requestState"].clone();
    // A round recorded by v1, retried on an instance running v2: the journal is dropped (no
    // error), answers on the request still count by key, and v2 asks what it still needs.
    let r = retry(
        &new,
        2,
        "flow",
        json!({}),
        json!({"a": accept(json!({"user_name": "Al"}))}),
        Some(&st),
    )
    .await;
    let res = result(&r);
    assert_eq!(res["resultType"], "input_required", "{r}");
    assert!(res["inputRequests"]["b"].is_object());
}

mod w1 {
    use super::*;
    /// First version: asks `a`, then `b`.
    #[mcp_tool(name = "chain")]
    pub async fn chain() -> Result<String, ToolError> {
        let a = match elicit::<Name>("a?").key("a").await? {
            Elicited::Accept(n) => n.user_name,
            _ => "none".into(),
        };
        let b = match elicit::<Name>("b?").key("b").await? {
            Elicited::Accept(n) => n.user_name,
            _ => "none".into(),
        };
        Ok(format!("w1 {a} {b}"))
    }
}

mod w2 {
    use super::*;
    /// Second version: asks `b`, then `a`.
    #[mcp_tool(name = "chain")]
    pub async fn chain() -> Result<String, ToolError> {
        let b = match elicit::<Name>("b?").key("b").await? {
            Elicited::Accept(n) => n.user_name,
            _ => "none".into(),
        };
        let a = match elicit::<Name>("a?").key("a").await? {
            Elicited::Accept(n) => n.user_name,
            _ => "none".into(),
        };
        Ok(format!("w2 {b} {a}"))
    }
}

/// An answer recorded in the journal by one version of a handler is not replayed by another:
/// the new version asks for it again. The same version replays it (the control).
#[tokio::test]
async fn a_journal_recorded_by_other_handler_code_is_not_replayed() {
    let keys = || KeyRing::new(vec![SealingKey::new(1, &[6u8; 32]).unwrap()]).unwrap();
    let build = |v2: bool| {
        let b = Server::builder().request_state_keys(keys());
        let b = if v2 {
            b.tool(w2::chain)
        } else {
            b.tool(w1::chain)
        };
        b.build().unwrap()
    };
    let (old, new) = (build(false), build(true));
    for (last, done) in [(&old, true), (&new, false)] {
        let r = send(&old, 1, "tools/call", call("chain", json!({}), all_caps())).await;
        let st = result(&r)["requestState"].clone();
        // Round two on the first version: `a` is answered and goes into the journal.
        let a = json!({"a": accept(json!({"user_name": "Al"}))});
        let r = retry(&old, 2, "chain", json!({}), a, Some(&st)).await;
        assert!(result(&r)["inputRequests"]["b"].is_object(), "{r}");
        let st = result(&r)["requestState"].clone();
        // Round three answers `b` only.
        let b = json!({"b": accept(json!({"user_name": "Bo"}))});
        let r = retry(last, 3, "chain", json!({}), b, Some(&st)).await;
        if done {
            assert_eq!(text(&r), "w1 Al Bo");
        } else {
            assert!(result(&r)["inputRequests"]["a"].is_object(), "{r}");
        }
    }
}

#[tokio::test]
async fn the_journal_keeps_only_what_the_handler_reads_and_refuses_oversized_answers() {
    let s = server();
    let first = retry(&s, 1, "count", json!({"rounds": 2}), json!({}), None).await;
    let asked = first_key(result(&first));
    let state = result(&first)["requestState"].clone();
    let plain = retry(
        &s,
        2,
        "count",
        json!({"rounds": 2}),
        json!({ asked.clone(): accept(json!({"user_name": "Bo"})) }),
        Some(&state),
    )
    .await;
    let plain_len = result(&plain)["requestState"].as_str().unwrap().len();
    // 30 kB of fields nobody asked for, in the content and beside it: not sealed. (A state is
    // single use: a new flow for each retry.)
    let first = retry(&s, 1, "count", json!({"rounds": 2}), json!({}), None).await;
    let state = result(&first)["requestState"].clone();
    let junk = "j".repeat(30_000);
    let padded = retry(
        &s,
        3,
        "count",
        json!({"rounds": 2}),
        json!({ asked.clone(): {"action": "accept", "content": {"user_name": "Bo", "junk": junk},
                                "_meta": {"junk": junk}, "junk": junk} }),
        Some(&state),
    )
    .await;
    let padded_len = result(&padded)["requestState"].as_str().unwrap().len();
    assert_eq!(
        padded_len, plain_len,
        "the state of a padded answer is the state of the plain one"
    );
    // An answer the handler would read that is too large to seal: -32602, saying why, and the
    // state it came with still works (once).
    let first = retry(&s, 1, "count", json!({"rounds": 2}), json!({}), None).await;
    let state = result(&first)["requestState"].clone();
    let huge = retry(
        &s,
        4,
        "count",
        json!({"rounds": 2}),
        json!({ asked.clone(): accept(json!({"user_name": "x".repeat(1_000_000)})) }),
        Some(&state),
    )
    .await;
    assert_eq!(
        huge["error"]["code"],
        -32602,
        "{}",
        &huge.to_string()[..300]
    );
    let message = huge["error"]["message"].as_str().unwrap();
    assert!(
        message.contains(&asked) && message.contains("bytes"),
        "{message}"
    );
    let again = retry(
        &s,
        5,
        "count",
        json!({"rounds": 2}),
        json!({ asked.clone(): accept(json!({"user_name": "Bo"})) }),
        Some(&state),
    )
    .await;
    assert_eq!(result(&again)["resultType"], "input_required", "{again}");
    let replayed = retry(
        &s,
        6,
        "count",
        json!({"rounds": 2}),
        json!({ asked.clone(): accept(json!({"user_name": "Bo"})) }),
        Some(&state),
    )
    .await;
    assert_eq!(replayed["error"]["code"], -32602, "single use: {replayed}");
}

#[tokio::test]
async fn without_a_state_only_documented_keys_may_be_answered() {
    let s = server();
    // `count` asks with call-site keys: a client that computes one and answers it up front,
    // with no state, is asked for real.
    let first = retry(&s, 1, "count", json!({"rounds": 1}), json!({}), None).await;
    let key = first_key(result(&first));
    let guessed = retry(
        &s,
        2,
        "count",
        json!({"rounds": 1}),
        json!({ key.clone(): accept(json!({"user_name": "Mallory"})) }),
        None,
    )
    .await;
    assert_eq!(first_key(result(&guessed)), key, "{guessed}");
}
