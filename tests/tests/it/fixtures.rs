//! The project's own fixtures for what the spec examples do not cover: errors, MRTR rounds and
//! retries, custom `_meta` keys, floats and nulls inside JSON values, empty capability objects,
//! precise dispatch errors, and open enums.

use oxmcp_schema as s;
use serde_json::{json, Value};

/// Parse `v` from text as `T`, write it back, and require the same JSON.
fn exact<T: serde::de::DeserializeOwned + serde::Serialize>(v: &Value) -> T {
    let typed: T = serde_json::from_str(&v.to_string()).unwrap_or_else(|e| panic!("{e}\n{v}"));
    let back = serde_json::to_value(&typed).unwrap();
    assert_eq!(&back, v, "round trip changed the message");
    typed
}

fn meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"roots": {}, "elicitation": {}, "sampling": {"tools": {}}},
        "io.modelcontextprotocol/clientInfo": {"name": "fixture", "version": "1.0.0"},
        "com.example/trace": {"span": 7, "sampled": true, "ratio": 0.25, "parent": null}
    })
}

#[test]
fn mrtr_input_required_with_three_requests() {
    let v = json!({
        "jsonrpc": "2.0", "id": 3,
        "result": {
            "resultType": "input_required",
            "inputRequests": {
                "contact": {"method": "elicitation/create", "params": {
                    "mode": "form", "message": "Who is the booking for?",
                    "requestedSchema": {"type": "object", "properties": {
                        "name": {"type": "string", "minLength": 1},
                        "party": {"type": "integer", "minimum": 1, "maximum": 12, "default": 2},
                        "budget": {"type": "number", "minimum": 0.5},
                        "seating": {"type": "string", "enum": ["in", "out"], "enumNames": ["Inside", "Outside"]},
                        "diet": {"type": "array", "items": {"anyOf": [{"const": "v", "title": "Vegan"}]}}
                    }, "required": ["name"]}
                }},
                "greeting": {"method": "sampling/createMessage", "params": {
                    "messages": [{"role": "user", "content": {"type": "text", "text": "Hi"}}],
                    "maxTokens": 50, "temperature": 1
                }},
                "roots": {"method": "roots/list"}
            },
            "requestState": "v1.abc-_~DEF",
            "_meta": {"com.example/round": 1}
        }
    });
    let r: s::CallToolResultResponse = exact(&v);
    let s::CallToolResultResponseResult::InputRequiredResult(ir) = &r.result else {
        panic!("expected input_required, got {}", r.result.variant_name());
    };
    let reqs = ir.input_requests.as_ref().unwrap();
    let kinds: Vec<&str> = reqs.values().map(|r| r.variant_name()).collect();
    assert_eq!(
        kinds,
        ["ElicitRequest", "CreateMessageRequest", "ListRootsRequest"]
    );
    assert_eq!(
        reqs.keys().collect::<Vec<_>>(),
        ["contact", "greeting", "roots"],
        "key order kept"
    );
    let s::InputRequest::ElicitRequest(e) = &reqs["contact"] else {
        unreachable!()
    };
    let s::ElicitRequestParams::ElicitRequestFormParams(form) = &e.params else {
        panic!("form params expected");
    };
    let picked: Vec<&str> = form
        .requested_schema
        .properties
        .values()
        .map(|p| p.variant_name())
        .collect();
    assert_eq!(
        picked,
        [
            "StringSchema",
            "NumberSchema",
            "NumberSchema",
            "LegacyTitledEnumSchema",
            "TitledMultiSelectEnumSchema"
        ]
    );
}

#[test]
fn mrtr_retry_with_three_input_responses() {
    let v = json!({
        "jsonrpc": "2.0", "id": "retry-2", "method": "tools/call",
        "params": {
            "name": "book_table",
            "arguments": {"restaurant": "Chez Rust", "party": 4, "score": 4.5, "note": null},
            "inputResponses": {
                "contact": {"action": "accept", "content": {"name": "Ada", "party": 3, "budget": 12.5, "outside": true, "diet": ["v"]}},
                "greeting": {"role": "assistant", "content": {"type": "text", "text": "Welcome!"}, "model": "m-1", "stopReason": "endTurn"},
                "roots": {"roots": [{"uri": "file:///home/ada", "name": "home"}]},
                "unknown-key": {"action": "decline"}
            },
            "requestState": "v1.abc-_~DEF",
            "_meta": meta()
        }
    });
    let req: s::CallToolRequest = exact(&v);
    let responses = req.params.input_responses.as_ref().unwrap();
    let kinds: Vec<&str> = responses.values().map(|r| r.variant_name()).collect();
    assert_eq!(
        kinds,
        [
            "ElicitResult",
            "CreateMessageResult",
            "ListRootsResult",
            "ElicitResult"
        ]
    );
    assert_eq!(req.params.request_state.as_deref(), Some("v1.abc-_~DEF"));
    // Custom `_meta` keys survive, with their floats and nulls.
    assert_eq!(
        req.params.meta.extra["com.example/trace"]["ratio"],
        json!(0.25)
    );
    // The same message through the ClientRequest and JSONRPCMessage unions.
    let cr: s::ClientRequest = exact(&v);
    assert_eq!(cr.variant_name(), "CallToolRequest");
    let msg: s::JSONRPCMessage = exact(&v);
    assert_eq!(msg.variant_name(), "JSONRPCRequest");
}

#[test]
fn error_responses_with_their_codes() {
    let caps: s::ClientCapabilities =
        serde_json::from_value(json!({"elicitation": {"url": {}}})).unwrap();
    let cases = [
        (s::Error::method_not_found("nope/nope"), -32601),
        (s::Error::invalid_params("bad _meta"), -32602),
        (
            s::Error::header_mismatch("Mcp-Method does not match"),
            -32020,
        ),
        (s::Error::missing_required_client_capability(&caps), -32021),
        (
            s::Error::unsupported_protocol_version("1999-01-01", &["2026-07-28"]),
            -32022,
        ),
        (s::Error::parse_error("not JSON"), -32700),
        (s::Error::internal("boom").with_data(Value::Null), -32603),
    ];
    for (i, (error, code)) in cases.into_iter().enumerate() {
        assert_eq!(error.code, code);
        let resp = s::JSONRPCErrorResponse::for_request(Some((i as i64).into()), error);
        let v = serde_json::to_value(&resp).unwrap();
        let msg: s::JSONRPCMessage = exact(&v);
        assert_eq!(msg.variant_name(), "JSONRPCErrorResponse", "{v}");
        let r: s::JSONRPCResponse = exact(&v);
        assert_eq!(r.variant_name(), "JSONRPCErrorResponse");
    }
    let v = json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32021, "message": "need elicitation",
        "data": {"requiredCapabilities": {"elicitation": {"url": {}}}}}});
    let e: s::MissingRequiredClientCapabilityError = exact(&v);
    assert!(e
        .error
        .data
        .required_capabilities
        .elicitation
        .as_ref()
        .unwrap()
        .url
        .is_some());
    // An error without an id (the request could not be read) and a null `data`.
    exact::<s::JSONRPCErrorResponse>(
        &json!({"jsonrpc": "2.0", "error": {"code": -32700, "message": "x", "data": null}}),
    );
}

#[test]
fn floats_nulls_and_integers_in_json_values() {
    let v = json!({
        "resultType": "complete",
        "content": [{"type": "text", "text": "42"}],
        "structuredContent": {"n": 50, "f": 0.5, "neg": -3, "big": 9007199254740993_u64, "nil": null, "list": [1, 1.5, null, "x"]},
        "isError": false
    });
    let r: s::CallToolResult = exact(&v);
    let text = serde_json::to_string(&r).unwrap();
    assert!(text.contains("\"n\":50,"), "integer stays integer: {text}");
    assert!(
        text.contains("9007199254740993"),
        "u64 is not rounded: {text}"
    );
    let n: s::NumberSchema =
        exact(&json!({"type": "integer", "minimum": 1, "maximum": 100, "default": 50}));
    assert_eq!(serde_json::to_string(&n.default).unwrap(), "50");
}

#[test]
fn empty_capability_objects_and_unknown_fields_stay() {
    let v = json!({"roots": {}, "sampling": {}, "elicitation": {"form": {}}, "experimental": {"x": {}}, "com.example/new": {"a": 1}});
    let c: s::ClientCapabilities = exact(&v);
    assert!(c.roots.is_some() && c.sampling.is_some());
    let tool = json!({"name": "t", "inputSchema": {"type": "object", "properties": {"a": {"type": "number"}}, "required": ["a"], "additionalProperties": false},
        "execution": {"taskSupport": "optional"}, "x-vendor": [1, 2.5]});
    exact::<s::Tool>(&tool);
}

#[test]
fn map_key_order_is_preserved() {
    let v = json!({"name": "t", "arguments": {"zeta": 1, "alpha": 2, "mid": {"y": 1, "b": 2}}, "_meta": meta()});
    let p: s::CallToolRequestParams = serde_json::from_value(v).unwrap();
    let text = serde_json::to_string(&p.arguments).unwrap();
    assert_eq!(text, r#"{"zeta":1,"alpha":2,"mid":{"y":1,"b":2}}"#);
}

#[test]
fn dispatch_errors_are_precise() {
    let err = |v: Value| {
        serde_json::from_str::<s::ClientRequest>(&v.to_string())
            .unwrap_err()
            .to_string()
    };
    let e = err(
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"_meta": meta()}}),
    );
    assert!(e.starts_with("tools/call: missing field `name`"), "{e}");
    let e = err(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/explode", "params": {}}));
    assert!(
        e.contains("unknown `method` value `tools/explode`") && e.contains("`tools/call`"),
        "{e}"
    );
    let e = err(json!({"jsonrpc": "2.0", "id": 1}));
    assert!(e.contains("missing field `method`"), "{e}");
    let e = serde_json::from_str::<s::JSONRPCMessage>(
        "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\"}]",
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("invalid array for JSONRPCMessage"), "{e}");
    let e = serde_json::from_str::<s::ContentBlock>(r#"{"type":"image","data":"AA=="}"#)
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("image: missing field `mimeType`"), "{e}");
    let e = serde_json::from_str::<s::CallToolRequest>(
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}"#,
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("tools/call"),
        "a wrong constant names the expected one: {e}"
    );
}

/// A request whose `params` (or any object) comes before its `method` is read whole and then
/// again from its text with the tag first: the same request, and the same errors, as in the
/// usual order, from every reader.
#[test]
fn requests_read_the_same_in_any_member_order() {
    let params = r#"{"name":"caf\u00e9","arguments":{"max":18446744073709551615,"f":1.5e300,"one":1.0,
        "nil":null,"e":"tab\there \ud83d\ude00","deep":[[{"a":[{"b":null}]}]],"empty":{}},
        "_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",
        "io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"x","version":"1"}}}"#;
    let usual =
        format!(r#"{{"jsonrpc":"2.0","id":"r-1","method":"tools/call","params":{params}}}"#);
    let orders = [
        format!(r#"{{"params":{params},"jsonrpc":"2.0","id":"r-1","method":"tools/call"}}"#),
        format!(r#"{{"jsonrpc":"2.0","params":{params},"method":"tools/call","id":"r-1"}}"#),
        format!(r#"{{"id":"r-1","jsonrpc":"2.0","params":{params},"method":"tools/call"}}"#),
    ];
    let plain: Value = serde_json::from_str(&usual).unwrap();
    let written =
        serde_json::to_string(&serde_json::from_str::<s::ClientRequest>(&usual).unwrap()).unwrap();
    for text in &orders {
        for parsed in [
            serde_json::from_str::<s::ClientRequest>(text).unwrap(),
            serde_json::from_slice::<s::ClientRequest>(text.as_bytes()).unwrap(),
            serde_json::from_reader::<_, s::ClientRequest>(text.as_bytes()).unwrap(),
            serde_json::from_value::<s::ClientRequest>(serde_json::from_str(text).unwrap())
                .unwrap(),
        ] {
            assert_eq!(parsed.variant_name(), "CallToolRequest");
            assert_eq!(serde_json::to_value(&parsed).unwrap(), plain);
            // Numbers keep their kind: the text written is the usual order's, member for member.
            assert_eq!(serde_json::to_string(&parsed).unwrap(), written);
        }
    }
    // Errors name the member and what is wrong with it, once, with one position (the input's).
    let error = |text: &str| {
        let e = serde_json::from_str::<s::ClientRequest>(text)
            .unwrap_err()
            .to_string();
        assert_eq!(e.matches(" at line ").count(), 1, "{e}");
        e[..e.find(" at line ").unwrap()].to_string()
    };
    for (usual, reordered) in [
        (
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":5}}"#,
            r#"{"params":{"name":5},"jsonrpc":"2.0","id":1,"method":"tools/call"}"#,
        ),
        (
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{}}"#,
            r#"{"jsonrpc":"2.0","params":{},"id":1,"method":"tools/call"}"#,
        ),
        (
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/explode","params":{}}"#,
            r#"{"params":{},"jsonrpc":"2.0","id":1,"method":"tools/explode"}"#,
        ),
        (
            r#"{"jsonrpc":"2.0","id":1,"params":{}}"#,
            r#"{"params":{},"jsonrpc":"2.0","id":1}"#,
        ),
        (
            r#"{"jsonrpc":"2.0","id":1,"method":7,"params":{}}"#,
            r#"{"params":{},"jsonrpc":"2.0","id":1,"method":7}"#,
        ),
    ] {
        assert_eq!(error(reordered), error(usual), "{reordered}");
    }
    // A method given twice is refused in either order.
    for twice in [
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","method":"tools/call","params":{"name":"t"}}"#,
        r#"{"params":{"name":"t"},"jsonrpc":"2.0","id":1,"method":"tools/list","method":"tools/call"}"#,
    ] {
        assert!(
            serde_json::from_str::<s::ClientRequest>(twice).is_err(),
            "{twice}"
        );
    }
}

#[test]
fn absent_result_type_means_complete() {
    let v = json!({"jsonrpc": "2.0", "id": 1, "result": {"content": [{"type": "text", "text": "old server"}]}});
    let r: s::CallToolResultResponse = exact(&v);
    assert_eq!(r.result.variant_name(), "CallToolResult");
    let s::CallToolResultResponseResult::CallToolResult(res) = r.result else {
        unreachable!()
    };
    assert_eq!(
        s::ResultType::or_complete(res.result_type.as_ref()),
        s::ResultType::Complete
    );
    // A state-only input_required result (load shedding) is still input_required.
    let v = json!({"jsonrpc": "2.0", "id": 1, "result": {"resultType": "input_required", "requestState": "s"}});
    let r: s::CallToolResultResponse = exact(&v);
    assert_eq!(r.result.variant_name(), "InputRequiredResult");
}

#[test]
fn open_enums_keep_unknown_values() {
    let v = json!({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "verbose", "data": {"k": 1}}});
    let n: s::LoggingMessageNotification = exact(&v);
    assert_eq!(n.params.level, s::LoggingLevel::Other("verbose".into()));
    let r: s::Result = exact(&json!({"resultType": "partial", "x": 1}));
    assert_eq!(r.result_type, Some(s::ResultType::Other("partial".into())));
}

#[test]
fn constructors_build_valid_messages() {
    let schema = s::ElicitRequestFormParamsRequestedSchema::new(
        [(
            "name".to_string(),
            serde_json::from_value(json!({"type": "string"})).unwrap(),
        )]
        .into_iter()
        .collect(),
        vec!["name".into()],
    );
    let ir = s::InputRequiredResult::new()
        .with_request("contact", s::ElicitRequest::form("Who?", schema))
        .with_request(
            "pay",
            s::ElicitRequest::url("Pay here", "https://example.com/pay"),
        )
        .with_request(
            "greet",
            s::CreateMessageRequest::new(s::CreateMessageRequestParams::new(
                50,
                vec![s::SamplingMessage::user("Hi")],
            )),
        )
        .with_request("roots", s::ListRootsRequest::new())
        .with_state("opaque");
    let v = serde_json::to_value(&ir).unwrap();
    assert_eq!(v["resultType"], "input_required");
    assert_eq!(v["inputRequests"]["pay"]["params"]["mode"], "url");
    assert_eq!(v["inputRequests"]["roots"], json!({"method": "roots/list"}));
    let sr: s::ServerResult = exact(&v);
    assert_eq!(sr.variant_name(), "InputRequiredResult");

    let ok = s::CallToolResult::text("done");
    let v = serde_json::to_value(&ok).unwrap();
    assert_eq!(
        v,
        json!({"content": [{"type": "text", "text": "done"}], "resultType": "complete"})
    );
    let resp = s::JSONRPCResultResponse::new(7.into(), s::Result::from_typed(&ok).unwrap());
    let back: s::CallToolResultResponse = exact(&serde_json::to_value(&resp).unwrap());
    assert_eq!(back.result.variant_name(), "CallToolResult");
    assert_eq!(
        serde_json::to_value(s::CallToolResult::error("bad")).unwrap()["isError"],
        json!(true)
    );
    assert!(s::methods::allows_input_required("prompts/get"));
    assert!(!s::methods::allows_input_required("tools/list"));
}

/// Unions buffer their input before choosing a member; whatever that buffer sees (borrowed or
/// escaped strings, every number kind, nulls, deep nesting, duplicate keys) must come out as a
/// plain `serde_json::Value` parse of the same text would have it.
#[test]
fn union_buffering_keeps_every_value_exact() {
    let text = r#"{"jsonrpc":"2.0","id":-7,"method":"tools/call","params":{
        "name":"caf\u00e9\n\"quoted\"","arguments":{"max":18446744073709551615,"min":-9223372036854775808,
        "f":1.5e300,"tiny":-0.0,"one":1.0,"nil":null,"t":true,"s":"plain","e":"tab\there \ud83d\ude00",
        "deep":[[[{"a":[{"b":null}]}]]],"empty":{},"list":[]},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",
        "io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"x","version":"1"}}}}"#;
    let plain: Value = serde_json::from_str(text).unwrap();
    for parsed in [
        serde_json::from_str::<s::ClientRequest>(text).unwrap(),
        serde_json::from_slice::<s::ClientRequest>(text.as_bytes()).unwrap(),
        serde_json::from_reader::<_, s::ClientRequest>(text.as_bytes()).unwrap(),
        serde_json::from_value::<s::ClientRequest>(plain.clone()).unwrap(),
    ] {
        assert_eq!(parsed.variant_name(), "CallToolRequest");
        let back = serde_json::to_value(&parsed).unwrap();
        assert_eq!(back, plain);
        // Numbers keep their kind, not just their value.
        let written = serde_json::to_string(&parsed).unwrap();
        for exact in [
            "18446744073709551615",
            "-9223372036854775808",
            "1.5e+300",
            "\"one\":1.0",
        ] {
            assert!(written.contains(exact), "{exact} in {written}");
        }
    }
    // A union nested in a union member, with its discriminator after the payload.
    let nested = r#"{"resultType":"complete","content":[{"text":"late tag","type":"text"},
        {"mimeType":"image/png","data":"AA==","type":"image"}]}"#;
    let r: s::ServerResult = serde_json::from_str(nested).unwrap();
    assert_eq!(
        serde_json::to_value(&r).unwrap(),
        serde_json::from_str::<Value>(nested).unwrap()
    );
    // Duplicate keys: refused, or read as serde_json would keep them (the last one wins).
    let dup = r#"{"type":"image","type":"text","text":"hi"}"#;
    if let Ok(c) = serde_json::from_str::<s::ContentBlock>(dup) {
        assert_eq!(c.variant_name(), "TextContent");
    }
    // Truncated or mistyped input is an error, never a panic.
    for bad in [
        &text[..text.len() / 2],
        r#"{"type":1}"#,
        r#"{"type":null,"text":"x"}"#,
        "[]",
        "null",
    ] {
        assert!(
            serde_json::from_str::<s::ContentBlock>(bad).is_err(),
            "{bad}"
        );
    }
}
