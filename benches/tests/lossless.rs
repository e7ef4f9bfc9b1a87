//! The benchmark messages round-trip exactly through oxmcp-schema (so its timings are for doing
//! the whole job); prints which ones rust-mcp-schema changes, to read its timings by.

use serde_json::Value;

fn round_trip<T: serde::de::DeserializeOwned + serde::Serialize>(text: &str) -> Option<Value> {
    let t: T = serde_json::from_str(text).ok()?;
    serde_json::to_value(&t).ok()
}

#[test]
fn benchmark_messages_round_trip() {
    for (name, text) in mcp_benches::messages() {
        let input: Value = serde_json::from_str(&text).unwrap();
        let (ours, peer) = match name {
            "tools_call_1k" | "retry_3" => (
                round_trip::<oxmcp_schema::ClientRequest>(&text),
                round_trip::<rust_mcp_schema::ClientRequest>(&text),
            ),
            "call_tool_result_10k" | "input_required_3" => (
                round_trip::<oxmcp_schema::CallToolResultResponse>(&text),
                round_trip::<rust_mcp_schema::CallToolResultResponse>(&text),
            ),
            _ => (
                round_trip::<oxmcp_schema::ListToolsResultResponse>(&text),
                round_trip::<rust_mcp_schema::ListToolsResultResponse>(&text),
            ),
        };
        assert_eq!(
            ours.as_ref(),
            Some(&input),
            "{name}: oxmcp-schema must round-trip exactly"
        );
        let same = peer.as_ref() == Some(&input);
        println!(
            "{name}: rust-mcp-schema round-trips {}",
            if same { "exactly" } else { "with changes" }
        );
    }
}
