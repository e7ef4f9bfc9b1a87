//! Tools shaped like those of real public MCP servers (files, issues, fetch, search, a knowledge
//! graph, time zones, chat, SQL, maps, a browser, chains of thought, a scheduler), with `$defs`,
//! refs, enums, `oneOf`, `if`/`then`/`else`, `additionalProperties`, formats and patterns: the
//! generated module (`typed_client/corpus.rs`, kept fresh by `typed_client_golden.rs`) compiles,
//! values round-trip through its types, and the one schema typify cannot take is `Value`.

#[rustfmt::skip]
#[path = "typed_client/corpus.rs"]
mod corpus;

use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{json, Value};

/// `value` read into `T` and written back is `value`.
fn round_trip<T: DeserializeOwned + Serialize>(value: Value) {
    let typed: T = serde_json::from_value(value.clone()).unwrap_or_else(|e| {
        panic!(
            "{value} does not read as {}: {e}",
            std::any::type_name::<T>()
        )
    });
    assert_eq!(serde_json::to_value(&typed).unwrap(), value);
}

#[test]
fn values_round_trip_through_the_generated_types() {
    round_trip::<corpus::read_file::ReadFileArgs>(json!({"path": "/etc/hosts", "head": 5}));
    round_trip::<corpus::edit_file::EditFileArgs>(json!({
        "path": "a.txt", "dryRun": true,
        "edits": [{"oldText": "a", "newText": "b"}, {"oldText": "c", "newText": "d"}]}));
    round_trip::<corpus::create_issue::CreateIssueArgs>(json!({
        "owner": "o", "repo": "r", "title": "t", "labels": ["bug"], "milestone": 3}));
    round_trip::<corpus::create_issue::CreateIssueOutput>(json!({
        "number": 7, "url": "https://example.com/o/r/7", "state": "open"}));
    round_trip::<corpus::fetch::FetchArgs>(json!({
        "url": "https://example.com", "max_length": 100, "start_index": 0, "raw": false}));
    round_trip::<corpus::web_search::WebSearchArgs>(json!({
        "query": "rust", "count": 3, "freshness": "week", "safesearch": "strict"}));
    round_trip::<corpus::create_entities::CreateEntitiesArgs>(json!({"entities": [
        {"name": "Ada", "entityType": "person", "observations": ["wrote notes"]}]}));
    round_trip::<corpus::convert_time::ConvertTimeArgs>(json!({
        "source_timezone": "Europe/Oslo", "time": "14:30", "target_timezone": "Asia/Tokyo"}));
    round_trip::<corpus::convert_time::ConvertTimeOutput>(json!({
        "source": {"timezone": "Europe/Oslo", "datetime": "2026-12-01T14:30:00+01:00", "is_dst": false},
        "target": {"timezone": "Asia/Tokyo", "datetime": "2026-12-01T22:30:00+09:00", "is_dst": false},
        "time_difference": "+8h"}));
    round_trip::<corpus::send_message::SendMessageArgs>(json!({
        "channel_id": "C1", "text": "hi", "blocks": [{"type": "section", "text": {"type": "mrkdwn"}}]}));
    round_trip::<corpus::query::QueryArgs>(
        json!({"sql": "select ?", "params": ["a", 1.5, true, null]}),
    );
    round_trip::<corpus::query::QueryOutput>(json!({"columns": ["a"], "rows": [[1, "x", null]]}));
    round_trip::<corpus::directions::DirectionsArgs>(json!({
        "origin": {"address": "Karl Johans gate 1, Oslo"},
        "destination": {"lat": 59.91, "lng": 10.75},
        "mode": "walking"}));
    round_trip::<corpus::screenshot::ScreenshotArgs>(json!({
        "name": "home", "width": 1024, "height": 768, "encoded": true}));
    round_trip::<corpus::sequential_thinking::SequentialThinkingArgs>(json!({
        "thought": "first", "nextThoughtNeeded": true, "thoughtNumber": 1, "totalThoughts": 3}));
    // The if/then/else schema is kept as JSON.
    let any: corpus::schedule::ScheduleArgs = json!({"kind": "repeat", "every_minutes": 5});
    assert_eq!(any["kind"], "repeat");
}

#[test]
fn values_outside_the_schemas_are_refused() {
    let bad_enum = json!({"query": "rust", "freshness": "decade"});
    assert!(serde_json::from_value::<corpus::web_search::WebSearchArgs>(bad_enum).is_err());
    let missing = json!({"owner": "o", "repo": "r"});
    assert!(serde_json::from_value::<corpus::create_issue::CreateIssueArgs>(missing).is_err());
    let neither = json!({"origin": {"city": "Oslo"}, "destination": {"address": "x"}});
    assert!(serde_json::from_value::<corpus::directions::DirectionsArgs>(neither).is_err());
    let extra = json!({"path": "a", "mode": "fast"});
    assert!(
        serde_json::from_value::<corpus::read_file::ReadFileArgs>(extra).is_err(),
        "additionalProperties: false"
    );
}
