//! Property-based fuzzing of what a peer controls, bounded so it runs with every `cargo test`
//! (set `PROPTEST_CASES` for a longer run): message decoding and dispatch, `requestState`
//! opening, and the stdio line reader. Whatever the input, nothing panics, every request gets a
//! reply with its id, and the server keeps serving.

mod common;

use common::{all_caps, meta};
use oxmcp::bench::Binding;
use oxmcp::stdio::{serve_io_with, StdioConfig};
use oxmcp::{
    state::{StateCodec, StateKey, StateKeys},
    Server,
};
use proptest::prelude::*;
use serde_json::{json, Map, Value};
use std::sync::{Arc, OnceLock};

fn runtime() -> &'static tokio::runtime::Runtime {
    static RT: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RT.get_or_init(|| {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a runtime")
    })
}

fn server() -> Arc<Server> {
    static SERVER: OnceLock<Arc<Server>> = OnceLock::new();
    SERVER
        .get_or_init(|| {
            let keys = StateKeys::new(vec![StateKey::new(1, &[3u8; 32]).unwrap()]).unwrap();
            Arc::new(
                mcp_tests::conformance::server(Server::builder().state_keys(keys))
                    .build()
                    .unwrap(),
            )
        })
        .clone()
}

/// Any JSON value, a few levels deep.
fn any_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<f64>().prop_map(|f| json!(f)),
        ".{0,12}".prop_map(Value::String),
        Just(json!("2026-07-28")),
        Just(json!("test_simple_text")),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            proptest::collection::vec((key(), inner), 0..6)
                .prop_map(|kv| Value::Object(kv.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

/// Object keys: the protocol's own names often, so the typed decoders go deep.
fn key() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => prop::sample::select(vec![
            "name", "arguments", "_meta", "inputResponses", "requestState", "uri", "cursor",
            "action", "content", "role", "model", "roots", "type", "text", "notifications",
            "io.modelcontextprotocol/protocolVersion", "io.modelcontextprotocol/clientCapabilities",
            "io.modelcontextprotocol/clientInfo", "progressToken", "ref", "argument",
        ]).prop_map(str::to_string),
        1 => ".{0,8}",
    ]
}

/// A JSON-RPC message shape with any parts: known methods, valid and invalid `_meta`, ids of
/// every type, params of any shape.
fn message() -> impl Strategy<Value = Value> {
    let method = prop_oneof![
        4 => prop::sample::select(vec![
            "server/discover", "tools/list", "tools/call", "prompts/list", "prompts/get",
            "resources/list", "resources/templates/list", "resources/read",
            "completion/complete", "subscriptions/listen", "notifications/cancelled",
            "initialize", "ping",
        ])
        .prop_map(Value::from),
        1 => any_json(),
    ];
    let id = prop_oneof![
        any::<i64>().prop_map(Value::from),
        ".{0,6}".prop_map(Value::String),
        Just(Value::Null),
        any_json(),
    ];
    let params = (any_json(), any::<bool>(), key(), any_json()).prop_map(
        |(params, with_meta, name, extra)| {
            let mut params = match params {
                Value::Object(m) => m,
                other => return other,
            };
            if with_meta {
                params.insert("_meta".into(), meta(all_caps()));
                params.insert(
                    "name".into(),
                    json!("test_input_required_result_multi_round"),
                );
            }
            params.insert(name, extra);
            Value::Object(params)
        },
    );
    (
        prop::option::of(id),
        method,
        prop::option::of(params),
        any::<bool>(),
    )
        .prop_map(|(id, method, params, good_jsonrpc)| {
            let mut m = Map::new();
            m.insert(
                "jsonrpc".into(),
                if good_jsonrpc { json!("2.0") } else { json!(1) },
            );
            if let Some(id) = id {
                m.insert("id".into(), id);
            }
            m.insert("method".into(), method);
            if let Some(params) = params {
                m.insert("params".into(), params);
            }
            Value::Object(m)
        })
}

/// Whether `message` is a request the server must answer with its id: it has a string or
/// integer id and no other way out.
fn answerable_id(message: &Value) -> Option<&Value> {
    let id = message.get("id")?;
    (id.is_string() || id.is_i64() || id.is_u64()).then_some(id)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1024))]

    #[test]
    fn any_message_gets_a_reply_to_its_id_and_never_a_panic(message in message()) {
        let server = server();
        let text = message.to_string();
        let reply = runtime().block_on(async {
            // A listen stream has no transport to stream on here; anything else answers.
            tokio::time::timeout(
                std::time::Duration::from_secs(5),
                server.handle_message(&text, None),
            )
            .await
        });
        let reply = reply.expect("every message is answered or dropped within 5 s");
        if let (Some(id), Some(reply)) = (answerable_id(&message), reply.as_ref()) {
            let reply = reply.to_value();
            let echoed = &reply["id"];
            prop_assert!(
                echoed == id || echoed.is_null(),
                "reply {reply} to {message}"
            );
            prop_assert!(reply.get("result").is_some() != reply.get("error").is_some());
        }
    }

    #[test]
    fn any_bytes_are_answered_without_a_panic(bytes in proptest::collection::vec(any::<u8>(), 0..256)) {
        let server = server();
        let text = String::from_utf8_lossy(&bytes).to_string();
        let reply = runtime().block_on(server.handle_message(&text, None));
        if let Some(reply) = reply {
            let reply = reply.to_value();
            prop_assert!(reply.get("error").is_some() || reply.get("result").is_some());
        }
    }

    #[test]
    fn no_request_state_text_opens_or_panics(token in ".{0,400}", raw in proptest::collection::vec(any::<u8>(), 0..300)) {
        let codec = StateCodec::new(
            StateKeys::new(vec![StateKey::new(1, &[3u8; 32]).unwrap()]).unwrap(),
        );
        let args = json!({"x": 1});
        let binding = Binding {
            method: "tools/call",
            target: "t",
            arguments: args.as_object(),
            principal: None,
            protocol_version: "2026-07-28",
        };
        prop_assert!(codec.open(&token, &binding).is_err());
        // Well-formed base64 of random bytes, with the format byte and key id in front.
        let mut framed = vec![2u8, 1u8];
        framed.extend_from_slice(&raw);
        use base64::Engine;
        let encoded = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(&framed);
        prop_assert!(codec.open(&encoded, &binding).is_err());
    }

    #[test]
    fn the_stdio_reader_answers_every_line_and_ends_cleanly(
        chunks in proptest::collection::vec(
            prop_oneof![
                proptest::collection::vec(any::<u8>(), 0..64),
                message().prop_map(|m| m.to_string().into_bytes()),
                Just(b"\n".to_vec()),
                Just(vec![0xff, 0xfe, b'\n']),
                Just(vec![b'x'; 300]),
            ],
            0..12,
        ),
    ) {
        let mut input: Vec<u8> = chunks.into_iter().flat_map(|mut c| { c.push(b'\n'); c }).collect();
        input.extend_from_slice(b"\n");
        let output = runtime().block_on(async {
            let (mut client, server_end) = tokio::io::duplex(1 << 20);
            let (read, write) = tokio::io::split(server_end);
            let config = StdioConfig { max_line: 256, ..Default::default() };
            let serving = tokio::spawn(serve_io_with(server(), read, write, config));
            use tokio::io::{AsyncReadExt, AsyncWriteExt};
            client.write_all(&input).await.unwrap();
            client.shutdown().await.unwrap();
            let mut out = Vec::new();
            tokio::time::timeout(std::time::Duration::from_secs(10), client.read_to_end(&mut out))
                .await
                .expect("the server ends its output")
                .unwrap();
            let served = serving.await.expect("serve_io_with does not panic");
            (served.is_ok(), out)
        });
        prop_assert!(output.0, "serve_io_with ends cleanly");
        for line in output.1.split(|b| *b == b'\n').filter(|l| !l.is_empty()) {
            prop_assert!(
                serde_json::from_slice::<Value>(line).is_ok(),
                "every output line is one JSON message: {}",
                String::from_utf8_lossy(line)
            );
        }
    }
}
