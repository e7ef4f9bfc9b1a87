//! Every example of the 2026-07-28 spec round-trips exactly through its `oxmcp_schema` type,
//! keeps every rule its schema states (`Validate`), and every union that contains its type picks
//! the right member.

use oxmcp_schema as s;
use serde_json::Value;
use std::collections::BTreeMap;

type RoundTrip = fn(&Value) -> Result<Value, String>;
type Pick = fn(&Value) -> Result<&'static str, String>;

fn round_trip<T: serde::de::DeserializeOwned + serde::Serialize + s::Validate>(
    v: &Value,
) -> Result<Value, String> {
    // Parse from text, as a server does, not from a `Value`.
    let text = v.to_string();
    let typed: T = serde_json::from_str(&text).map_err(|e| e.to_string())?;
    typed
        .validate()
        .map_err(|e| format!("breaks a rule of its schema: {e}"))?;
    let out = serde_json::to_value(&typed).map_err(|e| e.to_string())?;
    // The same from a reader (strings arrive owned, not borrowed) and from a `Value`.
    let from_reader: T = serde_json::from_reader(text.as_bytes()).map_err(|e| e.to_string())?;
    let from_value: T = serde_json::from_value(v.clone()).map_err(|e| e.to_string())?;
    for (how, other) in [("reader", from_reader), ("value", from_value)] {
        let other = serde_json::to_value(&other).map_err(|e| e.to_string())?;
        if other != out {
            return Err(format!("parsed from a {how} differently: {other} vs {out}"));
        }
    }
    Ok(out)
}

macro_rules! types {
    ($($t:ident),* $(,)?) => {{
        let mut m: BTreeMap<&'static str, RoundTrip> = BTreeMap::new();
        $( m.insert(stringify!($t), round_trip::<s::$t> as RoundTrip); )*
        m
    }};
}

/// Unions: (name, member schema names, picker returning the chosen member's name).
macro_rules! unions {
    ($($t:ident),* $(,)?) => {
        vec![$((
            stringify!($t),
            s::$t::VARIANT_SCHEMA_NAMES,
            (|v: &Value| {
                let u: s::$t = serde_json::from_str(&v.to_string()).map_err(|e| e.to_string())?;
                Ok(u.variant_name())
            }) as Pick,
        )),*]
    };
}

fn all_types() -> BTreeMap<&'static str, RoundTrip> {
    types!(
        AudioContent,
        BlobResourceContents,
        BooleanSchema,
        CallToolRequest,
        CallToolRequestParams,
        CallToolResult,
        CallToolResultResponse,
        CancelledNotification,
        CancelledNotificationParams,
        ClientCapabilities,
        CompleteRequest,
        CompleteRequestParams,
        CompleteResult,
        CompleteResultResponse,
        CreateMessageRequest,
        CreateMessageRequestParams,
        CreateMessageResult,
        DiscoverRequest,
        DiscoverResult,
        DiscoverResultResponse,
        ElicitRequest,
        ElicitRequestFormParams,
        ElicitRequestURLParams,
        ElicitResult,
        EmbeddedResource,
        GetPromptRequest,
        GetPromptRequestParams,
        GetPromptResult,
        GetPromptResultResponse,
        HeaderMismatchError,
        ImageContent,
        InputRequests,
        InputRequiredResult,
        InputResponses,
        InternalError,
        InvalidParamsError,
        ListPromptsRequest,
        ListPromptsResult,
        ListPromptsResultResponse,
        ListResourceTemplatesRequest,
        ListResourceTemplatesResult,
        ListResourceTemplatesResultResponse,
        ListResourcesRequest,
        ListResourcesResult,
        ListResourcesResultResponse,
        ListRootsRequest,
        ListRootsResult,
        ListToolsRequest,
        ListToolsResult,
        ListToolsResultResponse,
        LoggingMessageNotification,
        LoggingMessageNotificationParams,
        MethodNotFoundError,
        MissingRequiredClientCapabilityError,
        ModelPreferences,
        NumberSchema,
        PaginatedRequestParams,
        ParseError,
        ProgressNotification,
        ProgressNotificationParams,
        PromptListChangedNotification,
        ReadResourceRequest,
        ReadResourceResult,
        ReadResourceResultResponse,
        Resource,
        ResourceLink,
        ResourceListChangedNotification,
        ResourceUpdatedNotification,
        ResourceUpdatedNotificationParams,
        Root,
        SamplingMessage,
        ServerCapabilities,
        StringSchema,
        SubscriptionsAcknowledgedNotification,
        SubscriptionsListenRequest,
        SubscriptionsListenResult,
        SubscriptionsListenResultResponse,
        TextContent,
        TextResourceContents,
        TitledMultiSelectEnumSchema,
        TitledSingleSelectEnumSchema,
        Tool,
        ToolListChangedNotification,
        ToolResultContent,
        ToolUseContent,
        UnsupportedProtocolVersionError,
        UntitledMultiSelectEnumSchema,
        UntitledSingleSelectEnumSchema,
    )
}

fn all_unions() -> Vec<(&'static str, &'static [&'static str], Pick)> {
    unions!(
        // `$defs` unions (JSONValue is serde_json::Value).
        ClientRequest,
        ContentBlock,
        ElicitRequestParams,
        EnumSchema,
        InputRequest,
        InputResponse,
        JSONRPCMessage,
        JSONRPCResponse,
        MultiSelectEnumSchema,
        PrimitiveSchemaDefinition,
        SamplingMessageContentBlock,
        ServerNotification,
        ServerResult,
        SingleSelectEnumSchema,
        // Inline unions.
        CallToolResultResponseResult,
        GetPromptResultResponseResult,
        ReadResourceResultResponseResult,
        CompleteRequestParamsRef,
        CreateMessageResultContent,
        SamplingMessageContent,
        EmbeddedResourceResource,
        ReadResourceResultContentsItem,
    )
}

#[test]
fn union_list_covers_every_schema_union() {
    let schema: Value = serde_json::from_str(
        &std::fs::read_to_string(mcp_tests::spec_dir().join("2026-07-28/schema.json")).unwrap(),
    )
    .unwrap();
    let listed: Vec<&str> = all_unions().iter().map(|u| u.0).collect();
    for (name, def) in schema["$defs"].as_object().unwrap() {
        if def.get("anyOf").is_some() && name != "JSONValue" {
            assert!(
                listed.contains(&name.as_str()),
                "union {name} is not checked"
            );
        }
    }
}

#[test]
fn spec_examples_round_trip_and_dispatch() {
    let types = all_types();
    let unions = all_unions();
    let examples = mcp_tests::examples();
    assert_eq!(examples.len(), 129, "the spec ships 129 examples");
    let mut failures = Vec::new();
    let mut round_trips = 0;
    let (mut union_checks, mut union_ok) = (0, 0);
    for (type_name, file, value) in &examples {
        let at = format!("{type_name}/{file}");
        match types.get(type_name.as_str()) {
            None => failures.push(format!("{at}: no type in the test list")),
            Some(rt) => match rt(value) {
                Ok(back) if back == *value => round_trips += 1,
                Ok(back) => failures.push(format!(
                    "{at}: round trip differs:\n  in:  {value}\n  out: {back}"
                )),
                Err(e) => failures.push(format!("{at}: {e}")),
            },
        }
        for (union, members, pick) in &unions {
            if !members.contains(&type_name.as_str()) {
                continue;
            }
            union_checks += 1;
            match pick(value) {
                Ok(chosen) if chosen == type_name => union_ok += 1,
                Ok(chosen) => failures.push(format!("{at}: {union} chose {chosen}")),
                Err(e) => failures.push(format!("{at}: {union}: {e}")),
            }
        }
    }
    println!(
        "spec examples: {round_trips}/{} round-trip, {union_ok}/{union_checks} unions",
        examples.len()
    );
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(
        union_checks > 50,
        "too few union checks ran: {union_checks}"
    );
}
