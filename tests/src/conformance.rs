//! The fixture tools and prompts of the official conformance suite that involve Multi
//! Round-Trip Requests, written with this project's macros. Each is a few lines: the engine
//! turns the awaits into `input_required` rounds and seals the journal into `requestState`.

use oxmcp::prelude::*;
use oxmcp::{schema, ElicitForm};

/// A one-field form: the user's name.
#[derive(ElicitForm)]
pub struct NameForm {
    /// Your name.
    pub name: String,
}

/// A confirmation form.
#[derive(ElicitForm)]
pub struct ConfirmForm {
    /// Whether to go ahead.
    pub ok: bool,
}

/// A favourite colour.
#[derive(ElicitForm)]
pub struct ColorForm {
    /// Your favourite colour.
    pub color: String,
}

/// Context for a prompt.
#[derive(ElicitForm)]
pub struct ContextForm {
    /// What the prompt should be about.
    pub context: String,
}

fn who(answer: Elicited<NameForm>) -> String {
    match answer {
        Elicited::Accept(f) => f.name,
        Elicited::Decline => "declined".into(),
        Elicited::Cancel => "cancelled".into(),
    }
}

/// Asks the user's name, then greets them. Its telemetry records its arguments and result
/// (`trace_payloads`); the answer it elicits is never among them.
#[mcp_tool(trace_payloads)]
pub async fn test_input_required_result_elicitation() -> Result<String, ToolError> {
    let name = who(elicit::<NameForm>("What is your name?")
        .key("user_name")
        .await?);
    Ok(format!("Hello, {name}!"))
}

/// Books once (a journaled step), then asks whom for: the step runs in the first round and is
/// replayed from the journal in the retry.
#[mcp_tool]
pub async fn test_step_then_elicit() -> Result<String, ToolError> {
    let booking = step("book", async { Ok::<_, ToolError>("B1".to_string()) }).await?;
    let name = who(elicit::<NameForm>("Whom is it for?")
        .key("user_name")
        .await?);
    Ok(format!("{booking} for {name}"))
}

/// Asks the client's model a question.
#[mcp_tool]
pub async fn test_input_required_result_sampling() -> Result<String, ToolError> {
    let answer = sample(Sampling::user("What is the capital of France?").max_tokens(100))
        .key("capital_question")
        .await?;
    Ok(format!("The model said: {}", answer.text().unwrap_or("")))
}

/// Asks for the client's roots.
#[mcp_tool]
pub async fn test_input_required_result_list_roots() -> Result<String, ToolError> {
    let roots = list_roots().key("client_roots").await?;
    let uris: Vec<&str> = roots.iter().map(|r| r.uri.as_str()).collect();
    Ok(format!("Roots: {}", uris.join(", ")))
}

/// Asks for a confirmation; the answer only counts with the sealed state of round one.
#[mcp_tool]
pub async fn test_input_required_result_request_state() -> Result<String, ToolError> {
    let ok = matches!(
        elicit::<ConfirmForm>("Please confirm")
            .key("confirm")
            .await?,
        Elicited::Accept(ConfirmForm { ok: true })
    );
    Ok(format!("state-ok: confirmed={ok}"))
}

/// Asks three things in one round.
#[mcp_tool]
pub async fn test_input_required_result_multiple_inputs() -> Result<String, ToolError> {
    let (name, greeting, roots) = join!(
        elicit::<NameForm>("What is your name?").key("user_name"),
        sample(Sampling::user("Generate a greeting").max_tokens(50)).key("greeting"),
        list_roots().key("client_roots"),
    );
    let (name, greeting, roots) = (who(name?), greeting?, roots?);
    Ok(format!(
        "{} {name} ({} roots)",
        greeting.text().unwrap_or("Hello"),
        roots.len()
    ))
}

/// Asks two questions in two rounds.
#[mcp_tool]
pub async fn test_input_required_result_multi_round() -> Result<String, ToolError> {
    let name = who(elicit::<NameForm>("Step 1: What is your name?")
        .key("step1")
        .await?);
    let color = match elicit::<ColorForm>("Step 2: What is your favorite color?")
        .key("step2")
        .await?
    {
        Elicited::Accept(c) => c.color,
        _ => "none".into(),
    };
    Ok(format!("{name} likes {color}"))
}

/// Integrity-protected state: a tampered `requestState` is refused with -32602.
#[mcp_tool]
pub async fn test_input_required_result_tampered_state() -> Result<String, ToolError> {
    let ok = matches!(
        elicit::<ConfirmForm>("Please confirm")
            .key("confirm")
            .await?,
        Elicited::Accept(ConfirmForm { ok: true })
    );
    Ok(format!("confirmed={ok}"))
}

/// Uses whatever the client can do: sampling if declared, else a form.
#[mcp_tool]
pub async fn test_input_required_result_capabilities() -> Result<String, ToolError> {
    match sample(Sampling::user("What is your name?").max_tokens(20))
        .key("name_sample")
        .await
    {
        Ok(r) => Ok(format!("Sampled: {}", r.text().unwrap_or(""))),
        Err(AskError::MissingCapability(_)) => {
            let name = who(elicit::<NameForm>("What is your name?")
                .key("user_name")
                .await?);
            Ok(format!("Hello, {name}!"))
        }
        Err(e) => Err(e.into()),
    }
}

/// Needs sampling; without the capability the call fails with -32021.
#[mcp_tool]
pub async fn test_missing_capability() -> Result<String, ToolError> {
    let r = sample(Sampling::user("Say hi").max_tokens(10)).await?;
    Ok(r.text().unwrap_or("").to_string())
}

/// A prompt that asks for its context first.
#[mcp_prompt]
pub async fn test_input_required_result_prompt() -> Result<Vec<schema::PromptMessage>, ToolError> {
    let context = match elicit::<ContextForm>("What context should the prompt use?")
        .key("user_context")
        .await?
    {
        Elicited::Accept(c) => c.context,
        _ => "general".into(),
    };
    Ok(vec![schema::PromptMessage {
        content: schema::ContentBlock::text(format!("Answer with this context: {context}")),
        role: schema::Role::User,
        extra: Default::default(),
    }])
}

/// The MRTR fixtures registered on a server builder.
pub fn mrtr_fixtures(builder: ServerBuilder) -> ServerBuilder {
    builder
        .tool(test_input_required_result_elicitation)
        .tool(test_input_required_result_sampling)
        .tool(test_input_required_result_list_roots)
        .tool(test_input_required_result_request_state)
        .tool(test_input_required_result_multiple_inputs)
        .tool(test_input_required_result_multi_round)
        .tool(test_input_required_result_tampered_state)
        .tool(test_input_required_result_capabilities)
        .tool(test_missing_capability)
        .prompt(test_input_required_result_prompt)
}

use oxmcp::ServerBuilder;

// ---- Fixtures without MRTR: content kinds, errors, progress, logging, prompts, resources. ----

use oxmcp::schema::{
    AudioContent, BlobResourceContents, ContentBlock, EmbeddedResource, EmbeddedResourceResource,
    ImageContent, LoggingLevel, PromptMessage, ReadResourceResult, ReadResourceResultContentsItem,
    Role, TextResourceContents,
};
use serde_json::{json, Map, Value};

/// A 1x1 red pixel PNG.
pub const RED_PIXEL_PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
/// A tiny WAV file (44-byte header, two silent samples).
pub const TINY_WAV: &str = "UklGRigAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YQQAAAAAAAAA";

fn image() -> ContentBlock {
    ContentBlock::ImageContent(ImageContent {
        meta: None,
        annotations: None,
        data: RED_PIXEL_PNG.into(),
        mime_type: "image/png".into(),
        type_: Default::default(),
        extra: Map::new(),
    })
}

fn embedded(uri: &str, mime: &str, text: &str) -> ContentBlock {
    ContentBlock::EmbeddedResource(EmbeddedResource {
        meta: None,
        annotations: None,
        resource: EmbeddedResourceResource::TextResourceContents(TextResourceContents {
            meta: None,
            mime_type: Some(mime.into()),
            text: text.into(),
            uri: uri.into(),
            extra: Map::new(),
        }),
        type_: Default::default(),
        extra: Map::new(),
    })
}

/// Returns a simple text.
#[mcp_tool]
pub async fn test_simple_text() -> String {
    "This is a simple text response for testing.".into()
}

/// Returns an image.
#[mcp_tool]
pub async fn test_image_content() -> ContentBlock {
    image()
}

/// Returns audio.
#[mcp_tool]
pub async fn test_audio_content() -> ContentBlock {
    ContentBlock::AudioContent(AudioContent {
        meta: None,
        annotations: None,
        data: TINY_WAV.into(),
        mime_type: "audio/wav".into(),
        type_: Default::default(),
        extra: Map::new(),
    })
}

/// Returns an embedded resource.
#[mcp_tool]
pub async fn test_embedded_resource() -> ContentBlock {
    embedded(
        "test://embedded-resource",
        "text/plain",
        "This is an embedded resource content.",
    )
}

/// Returns text, an image and a resource.
#[mcp_tool]
pub async fn test_multiple_content_types() -> Vec<ContentBlock> {
    vec![
        ContentBlock::text("Multiple content types test:"),
        image(),
        embedded(
            "test://mixed-content-resource",
            "application/json",
            r#"{"test":"data","value":123}"#,
        ),
    ]
}

/// Always fails, as a tool error the model can read.
#[mcp_tool]
pub async fn test_error_handling() -> Result<String, ToolError> {
    Err(ToolError::new(
        "This tool intentionally returns an error for testing",
    ))
}

/// Reports progress 0, 50 and 100 of 100.
#[mcp_tool]
pub async fn test_tool_with_progress() -> String {
    for (i, p) in [0.0, 50.0, 100.0].into_iter().enumerate() {
        if i > 0 {
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
        oxmcp::progress(p, Some(100.0), None);
    }
    "Progress reported".into()
}

/// Logs three messages (sent only when the request asks for a log level).
#[mcp_tool]
pub async fn test_logging_tool() -> String {
    for (level, text) in [
        (LoggingLevel::Info, "Tool execution started"),
        (LoggingLevel::Info, "Tool processing data"),
        (LoggingLevel::Info, "Tool execution completed"),
    ] {
        oxmcp::log(level, Some("conformance"), json!(text));
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    "Logging completed".into()
}

/// The longest `test_sleep` sleeps: a caller holds a request for at most this long.
pub const MAX_SLEEP_MS: u64 = 60_000;

/// Sleeps `ms` milliseconds (at most [`MAX_SLEEP_MS`]), then says how long it slept: a request
/// that is in flight for a known time, for the shutdown and timeout tests.
#[mcp_tool]
pub async fn test_sleep(ms: u64) -> String {
    let ms = ms.min(MAX_SLEEP_MS);
    tokio::time::sleep(std::time::Duration::from_millis(ms)).await;
    format!("slept {ms} ms")
}

/// Asks for a name; its answer travels in the response stream as an InputRequiredResult.
#[mcp_tool]
pub async fn test_streaming_elicitation() -> Result<String, ToolError> {
    let name = who(elicit::<NameForm>("What is your name?").await?);
    Ok(format!("Hello, {name}!"))
}

/// Echoes a value that HTTP clients also send in the `Mcp-Param-Region` header.
#[mcp_tool]
pub async fn test_custom_header(
    #[arg(header = "Region", description = "A region, mirrored in a header")] region: String,
) -> String {
    format!("Region: {region}")
}

/// Announces a tool list change to open `subscriptions/listen` streams.
#[mcp_tool]
pub async fn test_trigger_tool_change() -> String {
    oxmcp::notify_list_changed(oxmcp::ListKind::Tools);
    "Tool list change announced".into()
}

/// Announces a prompt list change to open `subscriptions/listen` streams.
#[mcp_tool]
pub async fn test_trigger_prompt_change() -> String {
    oxmcp::notify_list_changed(oxmcp::ListKind::Prompts);
    "Prompt list change announced".into()
}

/// A tool whose input schema uses JSON Schema 2020-12 keywords, written against the handler
/// trait directly (its schema is hand-written, not derived).
#[derive(Debug, Clone, Copy, Default)]
pub struct JsonSchemaTool;

impl oxmcp::handler::ToolHandler for JsonSchemaTool {
    fn tool(&self) -> schema::Tool {
        let t = json!({
            "name": "json_schema_2020_12_tool",
            "description": "Tool with JSON Schema 2020-12 features",
            "inputSchema": {
                "$schema": "https://json-schema.org/draft/2020-12/schema",
                "type": "object",
                "$defs": {"address": {"$anchor": "addressDef", "type": "object",
                    "properties": {"street": {"type": "string"}, "city": {"type": "string"}}}},
                "properties": {
                    "name": {"type": "string"},
                    "address": {"$ref": "#/$defs/address"},
                    "contactMethod": {"type": "string", "enum": ["phone", "email"]},
                    "phone": {"type": "string"},
                    "email": {"type": "string"}
                },
                "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
                "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
                "then": {"required": ["phone"]},
                "else": {"required": ["email"]},
                "additionalProperties": false
            }
        });
        serde_json::from_value(t)
            .unwrap_or_else(|_| schema::Tool::new(Default::default(), "json_schema_2020_12_tool"))
    }

    fn fingerprint(&self) -> &'static str {
        "json-schema-2020-12"
    }

    fn call(
        &self,
        arguments: Map<String, Value>,
        _parts: &oxmcp::handler::CallParts<'_>,
    ) -> oxmcp::BoxFuture<Result<schema::CallToolResult, schema::Error>> {
        Box::pin(async move {
            Ok(schema::CallToolResult::text(format!(
                "Received: {}",
                Value::Object(arguments)
            )))
        })
    }
}

/// A prompt without arguments.
#[mcp_prompt]
pub async fn test_simple_prompt() -> String {
    "This is a simple prompt for testing.".into()
}

/// A prompt with two arguments.
#[mcp_prompt]
pub async fn test_prompt_with_arguments(
    #[arg(description = "First test argument")] arg1: String,
    #[arg(description = "Second test argument")] arg2: String,
) -> String {
    format!("Prompt with arguments: arg1='{arg1}', arg2='{arg2}'")
}

fn user(content: ContentBlock) -> PromptMessage {
    PromptMessage {
        content,
        role: Role::User,
        extra: Map::new(),
    }
}

/// A prompt that embeds a resource.
#[mcp_prompt]
pub async fn test_prompt_with_embedded_resource(
    #[arg(rename = "resourceUri", description = "URI of the resource to embed")]
    resource_uri: String,
) -> Vec<PromptMessage> {
    vec![
        user(embedded(
            &resource_uri,
            "text/plain",
            "Embedded resource content for testing.",
        )),
        user(ContentBlock::text(
            "Please process the embedded resource above.",
        )),
    ]
}

/// A prompt with an image.
#[mcp_prompt]
pub async fn test_prompt_with_image() -> Vec<PromptMessage> {
    vec![
        user(image()),
        user(ContentBlock::text("Please analyze the image above.")),
    ]
}

/// A static text resource.
#[mcp_resource(
    uri = "test://static-text",
    name = "static-text",
    description = "A static text resource",
    mime_type = "text/plain"
)]
pub async fn static_text() -> String {
    "This is the content of the static text resource.".into()
}

/// A static binary resource.
#[mcp_resource(
    uri = "test://static-binary",
    name = "static-binary",
    description = "A static binary resource",
    mime_type = "image/png"
)]
pub async fn static_binary() -> ReadResourceResult {
    ReadResourceResult {
        meta: None,
        cache_scope: None,
        contents: vec![ReadResourceResultContentsItem::BlobResourceContents(
            BlobResourceContents {
                meta: None,
                blob: RED_PIXEL_PNG.into(),
                mime_type: Some("image/png".into()),
                uri: "test://static-binary".into(),
                extra: Map::new(),
            },
        )],
        result_type: Some(schema::ResultType::Complete),
        ttl_ms: None,
        extra: Map::new(),
    }
}

/// A templated resource.
#[mcp_resource(
    uri = "test://template/{id}/data",
    name = "template-data",
    description = "Data for an id",
    mime_type = "application/json"
)]
pub async fn template_data(id: String) -> String {
    json!({"id": id, "templateTest": true, "data": format!("Data for ID: {id}")}).to_string()
}

/// The whole conformance fixture server.
/// The caller's subject, or `anonymous`.
#[mcp_tool]
pub async fn test_whoami(caller: Option<Principal>) -> String {
    caller.map_or_else(|| "anonymous".to_string(), |p| p.subject)
}

/// Confirms with a one-field form, then names the caller.
#[mcp_tool]
pub async fn test_whoami_confirm(caller: Option<Principal>) -> Result<String, ToolError> {
    #[derive(ElicitForm)]
    struct Confirm {
        /// Confirm who you are?
        confirm: bool,
    }
    match elicit::<Confirm>("Confirm your identity").await? {
        Elicited::Accept(c) if c.confirm => {
            Ok(caller.map_or_else(|| "anonymous".to_string(), |p| p.subject))
        }
        _ => Ok("not confirmed".into()),
    }
}

/// Needs the `admin` scope.
#[mcp_tool(scopes = ["admin"])]
pub async fn test_admin_only(caller: Option<Principal>) -> String {
    format!(
        "admin: {}",
        caller.map_or_else(|| "anonymous".to_string(), |p| p.subject)
    )
}

pub fn server(builder: ServerBuilder) -> ServerBuilder {
    task_only_tools(stateless_server(builder))
}

/// The tools that run only as tasks (a host without a shared task store cannot offer them).
pub fn task_only_tools(builder: ServerBuilder) -> ServerBuilder {
    builder
        .tool(failing_job)
        .tool(test_tool_with_task)
        .tool(durable_job)
}

/// [`server`] without the tools that run only as tasks: what a host that keeps no tasks (a
/// Lambda function without a shared store) serves.
pub fn stateless_server(builder: ServerBuilder) -> ServerBuilder {
    mrtr_fixtures(builder)
        .tool(test_whoami)
        .tool(test_whoami_confirm)
        .tool(test_admin_only)
        .tool(test_step_then_elicit)
        .tool(test_tool_with_logging)
        .tool(test_sampling)
        .tool(test_elicitation)
        .tool(test_elicitation_sep1034_defaults)
        .tool(test_elicitation_sep1330_enums)
        .tool(test_reconnection)
        .tool(greet)
        .tool(slow_compute)
        .tool(protocol_error_job)
        .tool(confirm_delete)
        .tool(multi_input)
        .name("mcp-toolkit-conformance")
        .version(env!("CARGO_PKG_VERSION"))
        .tool(test_simple_text)
        .tool(test_image_content)
        .tool(test_audio_content)
        .tool(test_embedded_resource)
        .tool(test_multiple_content_types)
        .tool(test_error_handling)
        .tool(test_tool_with_progress)
        .tool(test_logging_tool)
        .tool(test_streaming_elicitation)
        .tool(test_custom_header)
        .tool(test_trigger_tool_change)
        .tool(test_sleep)
        .tool(test_trigger_prompt_change)
        .tool(JsonSchemaTool)
        .prompt(test_simple_prompt)
        .prompt(test_prompt_with_arguments)
        .prompt(test_prompt_with_embedded_resource)
        .prompt(test_prompt_with_image)
        .resource(static_text)
        .resource(static_binary)
        .resource(template_data)
        .completion(|_reference, _argument, value| {
            ["paris", "park", "party"]
                .iter()
                .filter(|v| v.starts_with(value))
                .map(|v| v.to_string())
                .collect()
        })
}

// ---------------------------------------------------------------------------------------------
// The 2025-era fixtures: the same `elicit()`, `sample()` and `log()` as the 2026 ones. On a
// 2025 session their asks are real requests to the client.

/// Sends three info log messages about 50 ms apart.
#[mcp_tool]
pub async fn test_tool_with_logging() -> String {
    for (i, text) in [
        "Tool execution started",
        "Tool processing data",
        "Tool execution completed",
    ]
    .into_iter()
    .enumerate()
    {
        if i > 0 {
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
        oxmcp::log(LoggingLevel::Info, Some("conformance"), json!(text));
    }
    "Tool with logging executed successfully".into()
}

/// Ends its SSE stream before it answers (SSE polling): a 2025 client reconnects with
/// `Last-Event-ID` and gets the result there. On a 2026 request it just answers.
#[mcp_tool]
pub async fn test_reconnection() -> String {
    oxmcp::close_stream();
    tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    "Reconnection test completed successfully".into()
}

/// Asks the client's model to answer `prompt`.
#[mcp_tool]
pub async fn test_sampling(
    #[arg(description = "The prompt to send to the LLM")] prompt: String,
) -> Result<String, ToolError> {
    let answer = sample(Sampling::user(prompt).max_tokens(100)).await?;
    Ok(format!(
        "LLM response: {}",
        answer.text().unwrap_or_default()
    ))
}

/// The user's name and email.
#[derive(ElicitForm)]
pub struct UserInfo {
    /// User's response
    pub username: String,
    /// User's email address
    pub email: String,
}

/// Asks the user for their name and email, showing `message`.
#[mcp_tool]
pub async fn test_elicitation(
    #[arg(description = "The message to show the user")] message: String,
) -> Result<String, ToolError> {
    Ok(match elicit::<UserInfo>(message).await? {
        Elicited::Accept(u) => format!(
            "User response: action=accept, content={}",
            json!({"username": u.username, "email": u.email})
        ),
        Elicited::Decline => "User response: action=decline".into(),
        Elicited::Cancel => "User response: action=cancel".into(),
    })
}

/// A form given by its schema as written, whose answer is kept as the client sent it: for the
/// schema features a derived form does not write (the older `enumNames`).
pub struct SchemaForm<const KIND: u8>(pub Value);

impl<const KIND: u8> ElicitForm for SchemaForm<KIND> {
    fn requested_schema() -> schema::ElicitRequestFormParamsRequestedSchema {
        let schema = match KIND {
            0 => json!({"type": "object", "properties": {
                "name": {"type": "string", "default": "John Doe"},
                "age": {"type": "integer", "default": 30},
                "score": {"type": "number", "default": 95.5},
                "status": {"type": "string", "enum": ["active", "inactive", "pending"], "default": "active"},
                "verified": {"type": "boolean", "default": true}}}),
            _ => json!({"type": "object", "properties": {
                "untitledSingle": {"type": "string", "enum": ["option1", "option2", "option3"]},
                "titledSingle": {"type": "string", "oneOf": [
                    {"const": "value1", "title": "First Option"},
                    {"const": "value2", "title": "Second Option"},
                    {"const": "value3", "title": "Third Option"}]},
                "legacyEnum": {"type": "string", "enum": ["opt1", "opt2", "opt3"],
                    "enumNames": ["Option One", "Option Two", "Option Three"]},
                "untitledMulti": {"type": "array", "items": {"type": "string", "enum": ["option1", "option2", "option3"]}},
                "titledMulti": {"type": "array", "items": {"anyOf": [
                    {"const": "value1", "title": "First Choice"},
                    {"const": "value2", "title": "Second Choice"},
                    {"const": "value3", "title": "Third Choice"}]}}}}),
        };
        serde_json::from_value(schema).expect("the fixture schemas are valid")
    }

    fn from_content(
        content: &indexmap::IndexMap<String, schema::ElicitResultContentValue>,
    ) -> Result<Self, String> {
        serde_json::to_value(content)
            .map(SchemaForm)
            .map_err(|e| e.to_string())
    }
}

fn completed<const KIND: u8>(answer: Elicited<SchemaForm<KIND>>) -> String {
    match answer {
        Elicited::Accept(form) => {
            format!("Elicitation completed: action=accept, content={}", form.0)
        }
        Elicited::Decline => "Elicitation completed: action=decline, content={}".into(),
        Elicited::Cancel => "Elicitation completed: action=cancel, content={}".into(),
    }
}

/// Asks for a form whose every primitive field has a default (SEP-1034).
#[mcp_tool]
pub async fn test_elicitation_sep1034_defaults() -> Result<String, ToolError> {
    let answer =
        elicit::<SchemaForm<0>>("Please review and update the form fields with defaults").await?;
    Ok(completed(answer))
}

/// Asks for a form with all five enum shapes (SEP-1330).
#[mcp_tool]
pub async fn test_elicitation_sep1330_enums() -> Result<String, ToolError> {
    let answer = elicit::<SchemaForm<1>>("Please select options from the enum fields").await?;
    Ok(completed(answer))
}

// ---------------------------------------------------------------------------------------------
// The tasks extension's fixtures: the same handlers, marked as tasks with the macro. Inside a
// task an ask parks it in `input_required` until `tasks/update` answers.

/// Greets `name` (never a task).
#[mcp_tool]
pub async fn greet(name: String) -> String {
    format!("Hello, {name}!")
}

/// Takes `seconds` (at most ten minutes), then reports `label` (a task when the client takes
/// tasks). Its arguments and result are recorded on its spans (`trace_payloads`).
#[mcp_tool(task = "optional", trace_payloads)]
pub async fn slow_compute(seconds: f64, label: Option<String>) -> String {
    let seconds = seconds.clamp(0.0, 600.0);
    tokio::time::sleep(std::time::Duration::from_secs_f64(seconds)).await;
    format!(
        "Computed {} after {seconds} s",
        label.unwrap_or_else(|| "result".into())
    )
}

/// Fails as a tool after about a second (only as a task).
#[mcp_tool(task = "required")]
pub async fn failing_job() -> Result<String, ToolError> {
    tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    Err(ToolError::new("the job failed"))
}

/// Ends with a protocol error (a task that fails).
#[mcp_tool(task = "optional")]
pub async fn protocol_error_job() -> Result<String, ToolError> {
    tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    Err(ToolError::Protocol(schema::Error::internal(
        "the job hit an internal error",
    )))
}

/// Whether to go ahead.
#[derive(ElicitForm)]
pub struct Confirm {
    /// Go ahead?
    pub confirm: bool,
}

/// Asks for confirmation, then "deletes" `filename`.
#[mcp_tool(task = "optional")]
pub async fn confirm_delete(filename: String) -> Result<String, ToolError> {
    Ok(
        match elicit::<Confirm>(format!("Delete {filename}?")).await? {
            Elicited::Accept(c) if c.confirm => format!("Deleted {filename}"),
            _ => format!("Kept {filename}"),
        },
    )
}

/// A name.
#[derive(ElicitForm)]
pub struct NameOnly {
    /// Your name
    pub name: String,
}

/// Asks two things at once: both requests are pending together.
#[mcp_tool(task = "optional")]
pub async fn multi_input() -> Result<String, ToolError> {
    let (name, confirm) = oxmcp::prelude::join!(
        elicit::<NameOnly>("Your name?"),
        elicit::<Confirm>("Go ahead?")
    );
    let name = match name? {
        Elicited::Accept(n) => n.name,
        _ => "nobody".into(),
    };
    let confirm = matches!(confirm?, Elicited::Accept(Confirm { confirm: true }));
    Ok(format!("{name} confirmed: {confirm}"))
}

/// Asks for a name as an ordinary MRTR round, then goes on as a task that greets.
#[mcp_tool(task = "required", task_start = "explicit")]
pub async fn test_tool_with_task() -> Result<String, ToolError> {
    let name = match elicit::<NameOnly>("What is your name?")
        .key("user_name")
        .await?
    {
        Elicited::Accept(n) => n.name,
        _ => "nobody".into(),
    };
    oxmcp::start_task().await;
    tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    Ok(format!("Hello, {name}, from a task"))
}

/// Records one run of its step in `$TMPDIR/mcp-durable-<marker>.log`, then takes `seconds`: a
/// task that shows, across processes, whether its step ran again after a takeover.
#[mcp_tool(task = "required")]
pub async fn durable_job(marker: String, seconds: f64) -> Result<String, ToolError> {
    if marker.is_empty()
        || !marker
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-')
    {
        return Err(ToolError::new("marker is letters, digits and dashes"));
    }
    let path = std::env::temp_dir().join(format!("mcp-durable-{marker}.log"));
    let runs = step("mark", async move {
        use std::io::Write;
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .map_err(ToolError::from_display)?;
        file.write_all(b"ran\n").map_err(ToolError::from_display)?;
        let text = std::fs::read_to_string(&path).map_err(ToolError::from_display)?;
        Ok::<_, ToolError>(text.lines().count())
    })
    .await?;
    tokio::time::sleep(std::time::Duration::from_secs_f64(seconds.clamp(0.0, 60.0))).await;
    Ok(format!(
        "durable job {marker} done; its step ran {runs} time(s)"
    ))
}
