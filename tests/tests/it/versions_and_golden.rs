//! Every released version's bindings compile and read a message of their own, and the
//! generator's golden output compiles and behaves as its schema says.

use serde_json::json;

#[allow(dead_code)]
mod golden {
    include!("../../../codegen/tests/golden/basic.rs");
    // The golden keeps the shared support module apart; the generated file ends with it.
    include!("../../../codegen/tests/golden/support.rs");
}

#[test]
fn each_version_module_parses_its_messages() {
    use oxmcp_schema::{
        v2024_11_05 as v1, v2025_03_26 as v2, v2025_06_18 as v3, v2025_11_25 as v4,
    };
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2024-11-05", "capabilities": {"roots": {"listChanged": true}},
        "clientInfo": {"name": "c", "version": "1"}}});
    let text = init.to_string();
    assert_eq!(
        serde_json::from_str::<v1::ClientRequest>(&text)
            .unwrap()
            .variant_name(),
        "InitializeRequest"
    );
    assert_eq!(
        serde_json::from_str::<v2::ClientRequest>(&text)
            .unwrap()
            .variant_name(),
        "InitializeRequest"
    );
    assert_eq!(
        serde_json::from_str::<v3::ClientRequest>(&text)
            .unwrap()
            .variant_name(),
        "InitializeRequest"
    );
    assert_eq!(
        serde_json::from_str::<v4::ClientRequest>(&text)
            .unwrap()
            .variant_name(),
        "InitializeRequest"
    );
    let back =
        serde_json::to_value(serde_json::from_str::<v4::ClientRequest>(&text).unwrap()).unwrap();
    assert_eq!(back, init);
    // 2025-03-26 allowed JSON-RPC batches.
    let batch = json!([{"jsonrpc": "2.0", "method": "notifications/initialized"}]);
    let m: v2::JSONRPCMessage = serde_json::from_value(batch.clone()).unwrap();
    assert_eq!(serde_json::to_value(m).unwrap(), batch);
}

#[test]
fn golden_output_dispatches_and_keeps_data() {
    let ping = json!({"method": "ping", "id": 7, "params": {"delay": 5}, "x": [1, 0.5]});
    let m: golden::Message = serde_json::from_value(ping.clone()).unwrap();
    assert_eq!(m.variant_name(), "Ping");
    assert_eq!(serde_json::to_value(&m).unwrap(), ping);
    let pong = json!({"method": "pong", "level": "extreme", "data": null});
    let m: golden::Message = serde_json::from_value(pong.clone()).unwrap();
    assert_eq!(m.variant_name(), "Pong");
    assert_eq!(
        serde_json::to_value(&m).unwrap(),
        pong,
        "null data and an unknown enum value stay"
    );
    let e = serde_json::from_value::<golden::Message>(json!({"method": "pang"}))
        .unwrap_err()
        .to_string();
    assert!(e.contains("unknown `method` value `pang`"), "{e}");
    let c: golden::Contents = serde_json::from_value(json!({"blob": "AA=="})).unwrap();
    assert_eq!(c.variant_name(), "Blob");
    // `additionalProperties: false` is honoured.
    assert!(serde_json::from_value::<golden::Blob>(json!({"blob": "", "x": 1})).is_err());
    // allOf merges the members' properties.
    let t: golden::Tagged = serde_json::from_value(json!({"text": "hi", "lang": "en"})).unwrap();
    assert_eq!(t.lang.as_deref(), Some("en"));
}
