use super::*;
use crate::resume::live::Outbound;
use crate::wire::Incoming;
use serde_json::{json, Value};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

fn session(level: Option<&str>) -> Session {
    let capabilities = json!({"elicitation": {}});
    let client_info = json!({"name": "c", "version": "1"});
    Session {
        version: "2025-11-25".into(),
        meta_members: super::super::meta_members(
            "2025-11-25",
            &capabilities.to_string(),
            Some(&client_info.to_string()),
        ),
        // Built from `meta_members` when a request read as a tree needs it.
        client: OnceLock::new(),
        log_level: Mutex::new(level.map(|l| json!(l))),
        subscriptions: Mutex::default(),
        limits: limits(Duration::from_secs(1), BUDGET),
        outbound: Arc::new(Outbound::new(Duration::from_secs(1))),
        opened: std::time::Instant::now(),
    }
}

fn rewritten(text: &str, session: &Session) -> Value {
    let request = SessionRequest::read(text.as_bytes()).expect("read");
    let out = request.with_session_meta(session).expect("rewritten");
    serde_json::from_slice(&out).expect("the rewritten request is JSON")
}

#[test]
fn the_session_meta_is_written_into_the_request() {
    let s = session(None);
    let text = r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"t","arguments":{"a":[1,{"b":"x"}]},"_meta":{"progressToken":"p","io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#;
    let v = rewritten(text, &s);
    assert_eq!(v["id"], 3);
    assert_eq!(v["method"], "tools/call");
    assert_eq!(v["params"]["name"], "t");
    assert_eq!(v["params"]["arguments"], json!({"a": [1, {"b": "x"}]}));
    let meta = &v["params"]["_meta"];
    assert_eq!(meta["progressToken"], "p");
    // The session's version replaces the one the client wrote.
    assert_eq!(meta[crate::wire::META_VERSION], "2025-11-25");
    assert_eq!(meta[crate::wire::META_CAPS], json!({"elicitation": {}}));
    assert_eq!(
        meta[crate::wire::META_CLIENT_INFO],
        json!({"name": "c", "version": "1"})
    );
    assert!(meta.get(crate::wire::META_LOG_LEVEL).is_none());
    // What the handlers are given is a request of the session's version.
    let out = SessionRequest::read(text.as_bytes())
        .unwrap()
        .with_session_meta(&s)
        .unwrap();
    assert!(matches!(
        Incoming::parse(&out, &["2025-11-25"]),
        Incoming::Request(_)
    ));
}

#[test]
fn params_are_made_when_absent_and_a_repeated_name_keeps_its_last_value() {
    let s = session(Some("info"));
    let v = rewritten(r#"{"jsonrpc":"2.0","id":"a","method":"tools/list"}"#, &s);
    assert_eq!(v["params"]["_meta"][crate::wire::META_LOG_LEVEL], "info");
    let v = rewritten(
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","name":"b","_meta":{"io.modelcontextprotocol/logLevel":"debug"}}}"#,
        &s,
    );
    assert_eq!(v["params"]["name"], "b");
    // The level the session set wins over the client's.
    assert_eq!(v["params"]["_meta"][crate::wire::META_LOG_LEVEL], "info");
    let quiet = session(None);
    let v = rewritten(
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/logLevel":"debug"}}}"#,
        &quiet,
    );
    assert_eq!(v["params"]["_meta"][crate::wire::META_LOG_LEVEL], "debug");
}

#[test]
fn params_read_in_the_same_pass_keep_their_last_value() {
    let s = session(None);
    let v = rewritten(
        r#"{"params":{"name":"a"},"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"b","arguments":{"k":[{"params":1}]}}}"#,
        &s,
    );
    assert_eq!(v["params"]["name"], "b");
    assert_eq!(v["params"]["arguments"], json!({"k": [{"params": 1}]}));
    assert_eq!(v.as_object().unwrap().len(), 4);
    // The last `params` not an object, or params of any other kind: the parsed path's.
    for params in [
        r#"{"name":"a"},"params":[1]"#,
        "[]",
        "[1,{}]",
        "null",
        "1",
        "\"x\"",
        "true",
    ] {
        let text = format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{params}}}"#);
        assert!(SessionRequest::read(text.as_bytes()).is_none(), "{text}");
    }
    // A notification's params are not looked at.
    let text = r#"{"jsonrpc":"2.0","method":"notifications/progress","params":[1]}"#;
    assert!(matches!(
        SessionMessage::read(text.as_bytes()),
        Some(SessionMessage::Notification)
    ));
}

#[test]
fn what_this_way_cannot_take_is_left_to_the_parsed_path() {
    for text in [
        // Not requests the handlers answer.
        r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#,
        r#"{"jsonrpc":"2.0","id":1,"result":{}}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        // Ids a parsed id is written differently from, or no id at all.
        r#"{"jsonrpc":"2.0","id":1.5,"method":"tools/list"}"#,
        r#"{"jsonrpc":"2.0","id":"a\u0041","method":"tools/list"}"#,
        r#"{"jsonrpc":"2.0","id":null,"method":"tools/list"}"#,
        // A name written with escapes, params that are not an object.
        r#"{"jsonrpc":"2.0","id":1,"me\u0074hod":"tools/list"}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":[1]}"#,
        // Not JSON, or not an object.
        r#"{"jsonrpc":"2.0","id":1,"#,
        r#"[1]"#,
    ] {
        assert!(SessionRequest::read(text.as_bytes()).is_none(), "{text}");
    }
    // A `_meta` that is not an object: the parsed path gives the error.
    let text = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":3}}"#;
    let request = SessionRequest::read(text.as_bytes()).unwrap();
    assert!(request.with_session_meta(&session(None)).is_none());
}

#[test]
fn responses_and_notifications_are_read_without_a_tree_when_they_can_be() {
    fn read(text: &str) -> Option<SessionMessage<'_>> {
        SessionMessage::read(text.as_bytes())
    }
    match read(r#"{"jsonrpc":"2.0","id":"mcp-server-1","result":{"action":"accept"}}"#) {
        Some(SessionMessage::Response(r)) => {
            assert_eq!(r.id, r#""mcp-server-1""#);
            assert_eq!(
                r.outcome.map(RawValue::get).map_err(RawValue::get),
                Ok(r#"{"action":"accept"}"#)
            );
        }
        _ => panic!("a response"),
    }
    match read(r#"{"error":{"code":-1,"message":"no"},"id":7,"jsonrpc":"2.0"}"#) {
        Some(SessionMessage::Response(r)) => {
            assert_eq!(r.id, "7");
            assert_eq!(
                r.outcome.map(RawValue::get).map_err(RawValue::get),
                Err(r#"{"code":-1,"message":"no"}"#)
            );
        }
        _ => panic!("an error response"),
    }
    assert!(matches!(
        read(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#),
        Some(SessionMessage::Notification)
    ));
    assert!(matches!(
        read(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#),
        Some(SessionMessage::Request(_))
    ));
    // What this way cannot take goes to the parsed path, which answers each exactly: both
    // or neither of result and error, an id with an escape or of another type, a
    // cancellation (which the session acts on), a method that is not a plain string, a
    // message that is not an object.
    for other in [
        r#"{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"x"}}"#,
        r#"{"jsonrpc":"2.0","id":1}"#,
        r#"{"jsonrpc":"2.0","id":"mcp\u002dserver-1","result":{}}"#,
        r#"{"jsonrpc":"2.0","id":null,"result":{}}"#,
        r#"{"jsonrpc":"2.0","result":{}}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}"#,
        r#"{"jsonrpc":"2.0","method":5}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/\u0069nitialized"}"#,
        r#"[{"jsonrpc":"2.0","method":"notifications/initialized"}]"#,
        r#""notifications/initialized""#,
    ] {
        assert!(read(other).is_none(), "{other}");
    }
}

#[test]
fn members_keep_a_repeated_names_first_place_and_last_value_in_small_and_large_objects() {
    for n in [3, Members::SCANNED, Members::SCANNED + 1, 100] {
        // Members k0..kn, then k1 again, then k(n-1) again.
        let mut text = String::from("{");
        for k in 0..n {
            text.push_str(&format!("\"k{k}\":{k},"));
        }
        text.push_str(&format!("\"k1\":\"again\",\"k{}\":[1]}}", n - 1));
        let members: Members<'_> = serde_json::from_str(&text).unwrap();
        let names: Vec<&str> = members.iter().map(|(name, _)| *name).collect();
        let expected: Vec<String> = (0..n).map(|k| format!("k{k}")).collect();
        assert_eq!(names, expected, "{n} members");
        assert_eq!(members.get("k0").map(RawValue::get), Some("0"));
        assert_eq!(members.get("k1").map(RawValue::get), Some("\"again\""));
        assert_eq!(
            members.get(&format!("k{}", n - 1)).map(RawValue::get),
            Some("[1]")
        );
        assert!(members.get("absent").is_none());
    }
    // Names with escapes are not read this way; nor is anything but an object.
    assert!(serde_json::from_str::<Members<'_>>(r#"{"a\u0062":1}"#).is_err());
    assert!(serde_json::from_str::<Members<'_>>("[1]").is_err());
}

/// What a session is to its client: the reply to its `initialize`, and what every request
/// of it carries (its version; its `_meta` members as a tree, and as the typed `_meta` each
/// request reads them as, or why they do not read; its client, as trees).
type Opened = (
    Value,
    Option<(String, Value, TypedMeta, super::super::Client)>,
);

type TypedMeta = Result<oxmcp_schema::RequestMetaObject, String>;

fn opened(reply: String, session: Option<Arc<Session>>) -> Opened {
    let reply: Value = serde_json::from_str(&reply).expect("the reply is JSON");
    let session = session.map(|s| {
        let text = format!("{{{}}}", s.meta_members);
        let meta = serde_json::from_str(&text).expect("members");
        // Where an error was found does not count: the texts differ in spaces.
        let typed = crate::wire::from_text(&text).map_err(|e: serde_json::Error| {
            let e = e.to_string();
            e[..e.rfind(" at line ").unwrap_or(e.len())].to_string()
        });
        (s.version.clone(), meta, typed, s.client().clone())
    });
    (reply, session)
}

const BUDGET: usize = 200;

fn limits(ask_timeout: Duration, bytes: usize) -> crate::server::session::SessionLimits {
    crate::server::session::SessionLimits {
        ask_timeout,
        bytes,
        subscriptions: 16,
        subscription_bytes: 1024,
    }
}

/// An `initialize` whose capabilities name a member twice.
const REPEATED: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{"sampling":{},"sampling":{"tools":{}}}}}"#;

#[test]
fn an_initialize_read_without_a_tree_opens_the_session_a_tree_opens() {
    let server = crate::Server::builder()
        .build()
        .expect("an empty server builds");
    let timeout = Duration::from_secs(1);
    let taken = [
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"elicitation":{},"roots":{"listChanged":true}},"clientInfo":{"name":"c","version":"1"}}}"#,
        // Members in another order, whitespace, a string id, an unknown version (the newest
        // 2025-era one is agreed), a version that is not a string, no params at all.
        "{ \"params\" : { \"clientInfo\" : { \"name\" : \"c\" , \"version\" : \"1\" } , \"capabilities\" : { \"sampling\" : { } } } , \"method\" : \"initialize\" , \"id\" : \"x-1\" }",
        r#"{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"1999-01-01"}}"#,
        r#"{"jsonrpc":"2.0","id":3,"method":"initialize","params":{"protocolVersion":7,"capabilities":{}}}"#,
        r#"{"jsonrpc":"2.0","id":18446744073709551615,"method":"initialize"}"#,
        r#"{"jsonrpc":"2.0","id":-9,"method":"initialize","params":{"_meta":{"progressToken":1}}}"#,
        // Extension members the 2026 types keep.
        r#"{"jsonrpc":"2.0","id":4,"method":"initialize","params":{"capabilities":{"experimental":{"x":{"a":1}},"extra":[1]},"clientInfo":{"name":"c","version":"1","title":"T","more":null}}}"#,
    ];
    for text in taken {
        let read = SessionInitialize::read(text.as_bytes(), BUDGET)
            .unwrap_or_else(|| panic!("taken without a tree: {text}"));
        let (reply, session) = server.initialize_read(read, &limits(timeout, BUDGET));
        let fast = opened(reply, session);
        let (reply, session) = server.initialize(
            serde_json::from_str(text).unwrap(),
            &limits(timeout, BUDGET),
        );
        let tree = opened(reply, session);
        assert_eq!(fast, tree, "{text}");
        assert!(tree.1.is_some(), "{text}");
    }
    let left = [
        // Not an initialize, or a 2026 one.
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#,
        // Ids a parsed initialize refuses or writes differently.
        r#"{"jsonrpc":"2.0","id":-0,"method":"initialize"}"#,
        r#"{"jsonrpc":"2.0","id":1.5,"method":"initialize"}"#,
        r#"{"jsonrpc":"2.0","id":18446744073709551616,"method":"initialize"}"#,
        r#"{"jsonrpc":"2.0","id":"a\u0041","method":"initialize"}"#,
        r#"{"jsonrpc":"2.0","id":null,"method":"initialize"}"#,
        r#"{"jsonrpc":"2.0","method":"initialize"}"#,
        // Escapes in a name, the method or the version asked for.
        r#"{"jsonrpc":"2.0","id":1,"me\u0074hod":"initialize"}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"initiali\u007ae"}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-1\u0038"}}"#,
        // Params, capabilities or clientInfo that are not objects.
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":[]}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":[]}}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"clientInfo":"c"}}"#,
        // What the 2026 types do not read: a repeated member, a clientInfo without a version.
        REPEATED,
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"clientInfo":{"name":"c"}}}"#,
        // Over the budget as written.
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"clientInfo":{"name":"c","version":"1","title":"                                                                                                                                                                                            "}}}"#,
        // Not JSON.
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize""#,
    ];
    for text in left {
        assert!(
            SessionInitialize::read(text.as_bytes(), BUDGET).is_none(),
            "{text}"
        );
    }
    // What the tree makes of a repeated member: the last value, which every request of the
    // session then carries.
    let (_, session) = server.initialize(
        serde_json::from_str(REPEATED).unwrap(),
        &limits(timeout, BUDGET),
    );
    let (.., client) = opened(String::from("{}"), session).1.expect("opened");
    assert_eq!(client.0, json!({"sampling": {"tools": {}}}));
}

/// Members an `initialize` may carry, valid or not, for the property below: each is a
/// JSON member as text, or none (left out).
fn choice(
    options: &'static [&'static str],
) -> impl proptest::strategy::Strategy<Value = &'static str> {
    proptest::sample::select(options)
}

proptest::proptest! {
    // Cheap cases, most of them left to the tree: enough that many are taken.
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2048))]
    /// Whatever a client sends as its `initialize`, reading it without a tree either leaves
    /// it to the tree or opens the very session the tree opens, with the same reply.
    #[test]
    fn any_initialize_read_without_a_tree_is_read_as_a_tree_reads_it(
        id in choice(&["", r#""id":1"#, r#""id":-0"#, r#""id":1.5"#, r#""id":"a""#, r#""id":"a\u0041""#, r#""id":null"#, r#""id":18446744073709551616"#, r#""id":-9223372036854775808"#]),
        method in choice(&["", r#""method":"initialize""#, r#""method":"initialize""#, r#""method":"initialize""#, r#""method":"initiali\u007ae""#, r#""method":"tools/list""#, r#""method":1"#]),
        version in choice(&["", r#""protocolVersion":"2025-06-18""#, r#""protocolVersion":"2025-03-26""#, r#""protocolVersion":"x""#, r#""protocolVersion":7"#, r#""protocolVersion":"2025-06-1\u0038""#]),
        caps in choice(&["", r#""capabilities":{}"#, r#""capabilities":{"elicitation":{}}"#, r#""capabilities":{"sampling":{},"sampling":{"tools":{}}}"#, r#""capabilities":[]"#, r#""capabilities":"x""#, r#""capabilities":{"experimental":{"a":{"b":[1,2]}}}"#, r#""capabilities":{"sampling":{"context":1}}"#, r#""capabilities":{ "roots" : { "listChanged" : true } }"#]),
        info in choice(&["", r#""clientInfo":{"name":"c","version":"1"}"#, r#""clientInfo":{"name":"c"}"#, r#""clientInfo":"c""#, r#""clientInfo":{"name":"c","version":"1","title":"a title that is rather long for a client, and then some more"}"#, r#""clientInfo":{"name":"\u0063","version":"1","name":"d"}"#]),
        meta in choice(&["", r#""_meta":{}"#, r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}"#, r#""_meta":3"#, r#""_meta":{"progressToken":"p"}"#]),
        params_kind in 0..4u8,
        order in proptest::collection::vec(0..8usize, 8),
        space in proptest::bool::ANY,
        budget in choice(&["40", "100", "4096"]),
    ) {
        let budget: usize = budget.parse().unwrap();
        let mut params: Vec<&str> = [version, caps, info, meta].into_iter().filter(|m| !m.is_empty()).collect();
        let mut top: Vec<String> = [r#""jsonrpc":"2.0""#, id, method].into_iter().filter(|m| !m.is_empty()).map(String::from).collect();
        // Members in a shuffled order.
        for (i, j) in order.iter().enumerate() {
            if !params.is_empty() { let n = params.len(); params.swap(i % n, j % n); }
            let n = top.len(); top.swap(i % n, j % n);
        }
        let sep = if space { " , " } else { "," };
        match params_kind {
            0 => top.push(format!(r#""params":{{{}}}"#, params.join(sep))),
            1 => {}
            2 => top.push(r#""params":[]"#.into()),
            _ => top.push(format!(r#""params":{{"capabilities":[]}},"params":{{{}}}"#, params.join(sep))),
        }
        let text = format!("{{{}}}", top.join(sep));
        let server = crate::Server::builder().build().unwrap();
        let timeout = Duration::from_secs(1);
        // As a tree: a session that opens gives every request a `_meta` that reads.
        let tree: Option<Value> = serde_json::from_str(&text).ok();
        let tree = tree.filter(crate::server::session::is_session_initialize).map(|tree| {
            let (reply, session) = server.initialize(tree, &limits(timeout, budget));
            opened(reply, session)
        });
        if let Some((_, Some((_, _, typed, _)))) = &tree {
            proptest::prop_assert!(typed.is_ok(), "{}: {:?}", text, typed);
        }
        if let Some(read) = SessionInitialize::read(text.as_bytes(), budget) {
            let (reply, session) = server.initialize_read(read, &limits(timeout, budget));
            proptest::prop_assert_eq!(Some(opened(reply, session)), tree, "{}", text);
        }
    }
}

#[test]
fn a_client_without_client_info_is_served_and_one_that_does_not_read_is_refused() {
    let server = crate::Server::builder().build().unwrap();
    let timeout = Duration::from_secs(1);
    let call = br#"{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/clientInfo":{"name":"mine","version":"1"}}}}"#;
    let without = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{}}}"#;
    let read = SessionInitialize::read(without.as_bytes(), BUDGET).expect("taken");
    let by_tree = server.initialize(
        serde_json::from_str(without).unwrap(),
        &limits(timeout, BUDGET),
    );
    for (_, session) in [
        server.initialize_read(read, &limits(timeout, BUDGET)),
        by_tree,
    ] {
        let session = session.expect("opened");
        let out = SessionRequest::read(call)
            .unwrap()
            .with_session_meta(&session)
            .unwrap();
        let Incoming::Request(request) = Incoming::parse(&out, &["2025-06-18"]) else {
            panic!(
                "a request of the session reads: {}",
                String::from_utf8_lossy(&out)
            );
        };
        // Neither the session's client nor one the request names for itself.
        let meta: Value = serde_json::from_slice(&out).unwrap();
        assert!(meta["params"]["_meta"]
            .get(crate::wire::META_CLIENT_INFO)
            .is_none());
        drop(request);
    }
    for (params, why) in [
        (
            r#""clientInfo":{"name":"c"}"#,
            "initialize: clientInfo: missing field `version`",
        ),
        (
            r#""capabilities":{"sampling":{"context":1}}"#,
            "initialize: capabilities: invalid type",
        ),
    ] {
        let text =
            format!(r#"{{"jsonrpc":"2.0","id":1,"method":"initialize","params":{{{params}}}}}"#);
        assert!(SessionInitialize::read(text.as_bytes(), BUDGET).is_none());
        let (reply, session) = server.initialize(
            serde_json::from_str(&text).unwrap(),
            &limits(timeout, BUDGET),
        );
        assert!(session.is_none(), "{text}");
        let reply: Value = serde_json::from_str(&reply).unwrap();
        assert_eq!(reply["error"]["code"], -32602, "{reply}");
        assert!(
            reply["error"]["message"].as_str().unwrap().starts_with(why),
            "{reply}"
        );
    }
}

#[test]
fn a_session_opened_without_a_tree_gives_its_client_to_requests_read_as_one() {
    let s = session(None);
    assert_eq!(
        s.client(),
        &(
            json!({"elicitation": {}}),
            Some(json!({"name": "c", "version": "1"}))
        )
    );
}

#[test]
fn plain_ids_are_integers_and_strings_without_escapes() {
    for ok in ["0", "-12", "\"abc\"", "\"\""] {
        assert!(plain_id(ok), "{ok}");
    }
    for not in ["1.0", "1e3", "-", "\"a\\\"b\"", "null", "true", "{}"] {
        assert!(!plain_id(not), "{not}");
    }
}
