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
