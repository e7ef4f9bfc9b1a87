//! Realistic MCP messages for the benchmarks, built once and shared by every peer's bench.

use serde_json::{json, Value};

fn meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}, "sampling": {}, "roots": {}},
        "io.modelcontextprotocol/clientInfo": {"name": "bench", "version": "1.0.0"}
    })
}

/// A `tools/call` request with about 1 KiB of arguments.
pub fn tools_call_1k() -> Value {
    let items: Vec<Value> = (0..16)
        .map(|i| json!({"id": i, "label": format!("item number {i}"), "weight": 0.5 + i as f64}))
        .collect();
    json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {
        "name": "book_table", "arguments": {"restaurant": "Chez Rust", "party": 4, "items": items}, "_meta": meta()}})
}

/// A `CallToolResult` response with 10 KiB of text.
pub fn call_tool_result_10k() -> Value {
    json!({"jsonrpc": "2.0", "id": 7, "result": {"resultType": "complete",
        "content": [{"type": "text", "text": "lorem ipsum dolor sit amet, ".repeat(366)}]}})
}

/// A `tools/list` result of 50 tools with schemas.
pub fn tools_list_50() -> Value {
    let tools: Vec<Value> = (0..50)
        .map(|i| {
            json!({
                "name": format!("tool_{i}"), "title": format!("Tool {i}"),
                "description": "Does a useful thing with the arguments it is given.",
                "inputSchema": {"type": "object", "properties": {
                    "city": {"type": "string", "description": "The city"},
                    "days": {"type": "integer", "minimum": 1, "maximum": 14},
                    "units": {"type": "string", "enum": ["metric", "imperial"]}
                }, "required": ["city"]},
                "annotations": {"readOnlyHint": true}
            })
        })
        .collect();
    json!({"jsonrpc": "2.0", "id": 2, "result": {"resultType": "complete", "tools": tools, "ttlMs": 60000, "cacheScope": "public"}})
}

/// An `InputRequiredResult` response with three input requests.
pub fn input_required_3() -> Value {
    json!({"jsonrpc": "2.0", "id": 3, "result": {"resultType": "input_required",
        "inputRequests": {
            "contact": {"method": "elicitation/create", "params": {"mode": "form", "message": "Who is the booking for?",
                "requestedSchema": {"type": "object", "properties": {
                    "name": {"type": "string"}, "email": {"type": "string", "format": "email"},
                    "outside": {"type": "boolean"}}, "required": ["name", "email"]}}},
            "greeting": {"method": "sampling/createMessage", "params": {
                "messages": [{"role": "user", "content": {"type": "text", "text": "Write a one-line greeting"}}], "maxTokens": 50}},
            "roots": {"method": "roots/list"}
        },
        "requestState": "AQHx".repeat(60)}})
}

/// A `tools/call` retry carrying three `inputResponses` and the state.
pub fn retry_3() -> Value {
    json!({"jsonrpc": "2.0", "id": 8, "method": "tools/call", "params": {
        "name": "book_table", "arguments": {"restaurant": "Chez Rust", "party": 4},
        "inputResponses": {
            "contact": {"action": "accept", "content": {"name": "Ada", "email": "ada@example.com", "outside": true}},
            "greeting": {"role": "assistant", "content": {"type": "text", "text": "Welcome!"}, "model": "m-1"},
            "roots": {"roots": [{"uri": "file:///home/ada", "name": "home"}]}
        },
        "requestState": "AQHx".repeat(60), "_meta": meta()}})
}

/// (name, JSON text) of every realistic message.
pub fn messages() -> Vec<(&'static str, String)> {
    vec![
        ("tools_call_1k", tools_call_1k().to_string()),
        ("call_tool_result_10k", call_tool_result_10k().to_string()),
        ("tools_list_50", tools_list_50().to_string()),
        ("input_required_3", input_required_3().to_string()),
        ("retry_3", retry_3().to_string()),
    ]
}

/// A realistic form answer.
fn form_answer(i: usize) -> Value {
    json!({"action": "accept", "content": {"name": format!("User {i}"), "email": format!("user{i}@example.com"), "party": 4, "outside": true}})
}

/// `requestState` journals: (slug, label, journal) for 1, 3 and 10 form answers and one 4 KiB
/// sampling answer.
pub fn journals() -> Vec<(&'static str, &'static str, oxmcp::request_state::Journal)> {
    let forms = |n: usize| {
        oxmcp::bench::journal_of((0..n).map(|i| (format!("elicit-3fa2b1c0-{i}"), form_answer(i))))
    };
    let sampling = json!({"role": "assistant", "model": "m-1",
        "content": {"type": "text", "text": "lorem ipsum dolor sit amet ".repeat(152)}});
    vec![
        ("1_form", "1 form answer", forms(1)),
        ("3_forms", "3 form answers", forms(3)),
        ("10_forms", "10 form answers", forms(10)),
        (
            "4k_sampling",
            "4 KiB sampling answer",
            oxmcp::bench::journal_of([("sample-9a8b7c6d", sampling)]),
        ),
    ]
}

/// The codec and the arguments of the binding the state benchmarks seal for.
pub fn state_setup() -> (oxmcp::request_state::RequestStateCodec, Value) {
    let keys = oxmcp::request_state::KeyRing::new(vec![oxmcp::request_state::SealingKey::new(
        1, &[7u8; 32],
    )
    .expect("32 bytes")])
    .expect("one key");
    (
        oxmcp::request_state::RequestStateCodec::new(keys),
        json!({"restaurant": "Chez Rust", "party": 4}),
    )
}

/// The binding for `args`.
pub fn binding(args: &Value) -> oxmcp::bench::Binding<'_> {
    oxmcp::bench::Binding {
        method: "tools/call",
        target: "book_table",
        arguments: args.as_object(),
        principal: None,
        protocol_version: "2026-07-28",
    }
}

/// Writes what the report needs beside criterion's numbers (losslessness, set sizes, token
/// sizes) to `<target>/criterion/<name>.facts.json`, where `benches/report.py` reads it.
pub fn write_facts(name: &str, facts: Value) {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../target"));
    let dir = target.join("criterion");
    let _ = std::fs::create_dir_all(&dir);
    let _ = std::fs::write(dir.join(format!("{name}.facts.json")), facts.to_string());
}

/// The median of `v` (0 when empty): the statistic every table of the suite reports.
pub fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    match v.len() {
        0 => 0.0,
        n if n % 2 == 1 => v[n / 2],
        n => (v[n / 2 - 1] + v[n / 2]) / 2.0,
    }
}
