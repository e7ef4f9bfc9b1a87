//! `null` where the schema does not allow it and keys given twice are refused with a precise
//! error instead of being changed on the way through (dropped or last-wins); `null` where the
//! schema allows any JSON is kept.

use oxmcp_schema::{ClientRequest, ContentBlock, JSONRPCErrorResponse, TextContent};

fn err<T: serde::de::DeserializeOwned + std::fmt::Debug>(text: &str) -> String {
    serde_json::from_str::<T>(text)
        .expect_err("must be refused")
        .to_string()
}

#[test]
fn null_in_an_optional_field_is_refused_not_dropped() {
    let e = err::<TextContent>(r#"{"type":"text","text":"hi","annotations":null}"#);
    assert!(
        e.contains("invalid type: null, expected struct Annotations"),
        "{e}"
    );
    let e = err::<ContentBlock>(r#"{"type":"text","text":"hi","_meta":null}"#);
    assert!(e.contains("invalid type: null"), "{e}");
    let e = err::<ClientRequest>(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":null}"#);
    assert!(e.contains("invalid type: null"), "{e}");
}

#[test]
fn null_where_any_json_is_allowed_is_kept() {
    let text = r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"m","data":null}}"#;
    let parsed: JSONRPCErrorResponse = serde_json::from_str(text).unwrap();
    assert_eq!(serde_json::to_string(&parsed).unwrap().len(), text.len());
    assert!(serde_json::to_string(&parsed)
        .unwrap()
        .contains(r#""data":null"#));
}

#[test]
fn a_key_given_twice_is_refused() {
    let e = err::<TextContent>(r#"{"type":"text","text":"a","text":"b"}"#);
    assert!(e.contains("duplicate field `text`"), "{e}");
    // Unknown properties are kept, so a repeated unknown one would lose a value.
    let e = err::<TextContent>(r#"{"type":"text","text":"a","x":1,"x":2}"#);
    assert!(e.contains("duplicate field `x`"), "{e}");
    // Through a union too, whether the member is chosen from a buffer or streamed.
    let e = err::<ContentBlock>(r#"{"type":"text","text":"a","text":"b"}"#);
    assert!(e.contains("duplicate field `text`"), "{e}");
    let e = err::<ClientRequest>(
        r#"{"jsonrpc":"2.0","id":1,"id":2,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
    );
    assert!(e.contains("duplicate field `id`"), "{e}");
}

#[test]
fn valid_input_still_round_trips_exactly() {
    // Known properties are written in schema order, unknown ones after them, as they came.
    let text = r#"{"annotations":{"priority":0.5},"text":"a","type":"text","x":null}"#;
    let parsed: ContentBlock = serde_json::from_str(text).unwrap();
    assert_eq!(serde_json::to_string(&parsed).unwrap(), text);
}

/// A union whose tag comes after the other members is read from a buffer: it must give the same
/// value as when the tag comes first, and refuse the same wrong shapes with the same errors.
#[test]
fn a_late_tag_reads_and_refuses_as_an_early_one() {
    let meta = r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;
    let orders = |params: &str| {
        [
            format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{params}}}"#),
            format!(r#"{{"params":{params},"id":1,"jsonrpc":"2.0","method":"tools/call"}}"#),
        ]
    };
    let good = format!(r#"{{"name":"t","arguments":{{"a":[1,true,null,"x"]}},"_meta":{meta}}}"#);
    let [early, late] = orders(&good);
    let (early, late): (ClientRequest, ClientRequest) = (
        serde_json::from_str(&early).unwrap(),
        serde_json::from_str(&late).unwrap(),
    );
    assert_eq!(
        serde_json::to_value(&early).unwrap(),
        serde_json::to_value(&late).unwrap()
    );
    // A string, an object and a map of the wrong shape, each refused alike either way.
    for (params, want) in [
        (
            format!(r#"{{"name":5,"_meta":{meta}}}"#),
            "invalid type: integer `5`, expected a string",
        ),
        (
            r#"[1,2]"#.to_string(),
            "invalid type: sequence, expected struct",
        ),
        (
            format!(r#"{{"name":"t","arguments":"x","_meta":{meta}}}"#),
            "invalid type: string \"x\", expected a map",
        ),
    ] {
        let [early, late] = orders(&params);
        let (early, late) = (err::<ClientRequest>(&early), err::<ClientRequest>(&late));
        assert!(early.contains(want), "{early}");
        assert!(late.contains(want), "{late}");
    }
    // Strings, flags and arrays inside a member read from the buffer.
    let block = r#"{"text":"hi","annotations":{"audience":["user"],"priority":1},"type":"text"}"#;
    let parsed: ContentBlock = serde_json::from_str(block).unwrap();
    assert_eq!(serde_json::to_string(&parsed).unwrap().len(), block.len());
    let e = err::<ContentBlock>(r#"{"text":"hi","annotations":{"audience":"user"},"type":"text"}"#);
    assert!(
        e.contains("invalid type: string \"user\", expected a sequence"),
        "{e}"
    );
    let e = err::<ContentBlock>(r#"{"text":true,"type":"text"}"#);
    assert!(
        e.contains("invalid type: boolean `true`, expected a string"),
        "{e}"
    );
}
