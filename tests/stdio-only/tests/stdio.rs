//! The stdio-only server answers discovery, completes a two-round tool call over its stdio,
//! describes built-in argument types without schemars (with the `derive` feature: a structured
//! tool too), answers the tasks methods and stops on SIGTERM as the runtime's `tasks` and `signal`
//! features say.

use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Lines, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

fn meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}
    })
}

/// The server, started with its stdin and stdout piped: the process, its input, its lines.
fn spawn() -> (Child, ChildStdin, Lines<BufReader<ChildStdout>>) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_mcp-stdio-only"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("the server starts");
    let stdin = child.stdin.take().expect("stdin");
    let lines = BufReader::new(child.stdout.take().expect("stdout")).lines();
    (child, stdin, lines)
}

#[test]
fn a_stdio_only_server_serves_a_multi_round_call() {
    let (mut child, mut stdin, mut lines) = spawn();
    let mut ask = |msg: Value| -> Value {
        writeln!(stdin, "{msg}").expect("a request is written");
        let line = lines.next().expect("a reply").expect("a readable reply");
        serde_json::from_str(&line).expect("the reply is JSON")
    };

    let found = ask(
        json!({"jsonrpc": "2.0", "id": 1, "method": "server/discover",
                           "params": {"_meta": meta()}}),
    );
    // Every stateless version the pins list, the newest included.
    assert_eq!(
        found["result"]["supportedVersions"],
        json!(oxmcp::schema::STATELESS_VERSIONS),
        "{found}"
    );
    assert!(
        found.to_string().contains("\"stdio-only\""),
        "server info: {found}"
    );
    // Without the tasks extension its methods are unknown ones. (A workspace build unifies
    // oxmcp's features, so the test asks the runtime which it was built with.)
    let task = ask(json!({"jsonrpc": "2.0", "id": 9, "method": "tasks/get",
                          "params": {"taskId": "t1", "_meta": meta()}}));
    let unknown = task["error"]["code"] == -32601;
    assert_eq!(unknown, !oxmcp::__private::TASKS, "{task}");

    let call = |state: Option<&Value>, answers: Value| {
        let mut params = json!({"name": "greet", "arguments": {"greeting": "Hello"},
                                "_meta": meta(), "inputResponses": answers});
        if let Some(s) = state {
            params["requestState"] = s.clone();
        }
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": params})
    };
    let first = ask(call(None, json!({})));
    let result = &first["result"];
    assert_eq!(result["resultType"], "input_required", "{first}");
    let (key, request) = result["inputRequests"]
        .as_object()
        .and_then(|m| m.iter().next())
        .expect("one input request");
    assert_eq!(request["method"], "elicitation/create");
    let answers = json!({ key.clone(): {"action": "accept", "content": {"name": "Ada"}} });
    let done = ask(call(Some(&result["requestState"]), answers));
    assert_eq!(
        done["result"]["content"][0]["text"], "Hello, Ada!",
        "{done}"
    );

    let listed = ask(json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list",
                            "params": {"_meta": meta()}}));
    let label = listed_tool(&listed, "label");
    // Built-in argument types: the schemas schemars would write, keyword for keyword, with or
    // without schemars compiled in.
    assert_eq!(
        label["inputSchema"].to_string(),
        concat!(
            r#"{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{"#,
            r#""city":{"description":"Where it goes.","type":"string"},"#,
            r#""stamps":{"type":"integer","format":"uint8","minimum":0,"maximum":255},"#,
            r#""tags":{"type":"array","items":{"type":"string"}},"#,
            r#""express":{"type":["boolean","null"],"default":null},"#,
            r#""weight":{"type":["number","null"],"format":"double","default":null},"#,
            r#""grade":{"type":["string","null"],"minLength":1,"maxLength":1,"default":null},"#,
            r#""customs":{"type":["object","null"],"additionalProperties":{"type":"integer","format":"uint32","minimum":0},"default":null}},"#,
            r#""required":["city","stamps","tags"]}"#
        )
    );
    let labelled = ask(
        json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {
        "name": "label", "_meta": meta(),
        "arguments": {"city": "Lyon", "stamps": 3, "tags": ["fragile"], "express": true,
                      "grade": "A", "customs": {"books": 2, "tea": 1}}}}),
    );
    assert_eq!(
        labelled["result"]["content"][0]["text"],
        "Lyon: 3 stamps [fragile] express grade A 2xbooks 1xtea",
        "{labelled}"
    );
    let mut refuses = |id: u64, arguments: Value| {
        let refused = ask(
            json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
                                 "name": "label", "_meta": meta(), "arguments": arguments}}),
        );
        assert_eq!(refused["result"]["isError"], true, "{refused}");
    };
    // 256 is not a `u8`, and two characters are not a `char`.
    refuses(5, json!({"city": "Lyon", "stamps": 256, "tags": []}));
    refuses(
        10,
        json!({"city": "Lyon", "stamps": 1, "tags": [], "grade": "AB"}),
    );

    #[cfg(feature = "derive")]
    postcard(&listed, &mut ask);

    drop(stdin);
    assert!(child.wait().expect("the server exits").success());
}

/// The tool `name` of a `tools/list` reply.
fn listed_tool<'a>(listed: &'a Value, name: &str) -> &'a Value {
    listed["result"]["tools"]
        .as_array()
        .and_then(|t| t.iter().find(|t| t["name"] == name))
        .unwrap_or_else(|| panic!("{name} is listed: {listed}"))
}

/// The structured tool of the `derive` feature: its schema refers to its argument type's
/// definition, and its output is structured content.
#[cfg(feature = "derive")]
fn postcard(listed: &Value, ask: &mut impl FnMut(Value) -> Value) {
    let postcard = listed_tool(listed, "postcard");
    let schema = &postcard["inputSchema"];
    assert_eq!(schema["properties"]["address"]["$ref"], "#/$defs/Address");
    assert_eq!(
        schema["$defs"]["Address"]["required"],
        json!(["city"]),
        "{postcard}"
    );
    assert!(
        postcard["outputSchema"].to_string().contains("stamps"),
        "{postcard}"
    );
    let sent = ask(
        json!({"jsonrpc": "2.0", "id": 6, "method": "tools/call", "params": {
        "name": "postcard", "_meta": meta(),
        "arguments": {"address": {"city": "Lyon", "postcode": "69001"}, "stamps": 2}}}),
    );
    assert_eq!(
        sent["result"]["structuredContent"],
        json!({"to": "69001 Lyon", "stamps": 2}),
        "{sent}"
    );
}

/// SIGTERM while input is still open: with oxmcp's `signal` feature the server stops gracefully
/// and exits 0; without it nothing watches the signal and its default action ends the process.
#[cfg(unix)]
#[test]
fn sigterm_stops_the_server_as_its_signal_feature_says() {
    use std::os::unix::process::ExitStatusExt;
    use std::time::{Duration, Instant};
    let (mut child, mut stdin, mut lines) = spawn();
    // One answered request: the server is serving, so a watcher it has is in place.
    writeln!(
        stdin,
        "{}",
        json!({"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {"_meta": meta()}})
    )
    .expect("a request is written");
    let reply = lines.next().expect("a reply").expect("a readable reply");
    assert!(reply.contains("supportedVersions"), "{reply}");

    let killed = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(killed.success());
    let deadline = Instant::now() + Duration::from_secs(5);
    let status = loop {
        if let Some(status) = child.try_wait().expect("the child is waited for") {
            break status;
        }
        assert!(
            Instant::now() < deadline,
            "the server did not stop on SIGTERM"
        );
        std::thread::sleep(Duration::from_millis(10));
    };
    drop(stdin);
    if oxmcp::__private::SIGNAL {
        assert!(status.success(), "a graceful stop exits 0: {status:?}");
    } else {
        assert_eq!(
            status.signal(),
            Some(15),
            "ended by SIGTERM itself: {status:?}"
        );
    }
}
