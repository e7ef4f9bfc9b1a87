//! The conformance client: the suite runs it with the scenario server's URL as the last
//! argument. It discovers the server, lists its tools and calls them all at once, answering
//! every input request (forms from their schema, sampling with a fixed text, no roots). When the
//! scenario names the calls to make (`toolCalls` in `MCP_CONFORMANCE_CONTEXT`) it makes those,
//! in order; `json-schema-2020-12-preservation` asks it to echo one tool's `inputSchema`, as
//! received, through the other tool. In the skills scenarios (`sep-2640-client-*`) it lists the
//! server's skills and, but for `sep-2640-client-no-prefetch` (which loads none), loads the
//! first one: its `SKILL.md`, verified, then its other files, each verified; a file that fails
//! verification stops the load.
//!
//! In the authorization scenarios (`auth/*`) it logs in with OAuth: the suite's authorization
//! server approves without a user ([`AutoApprove`]); the client offers a metadata document URL
//! and uses credentials the scenario hands it (`client_id`, `client_secret` in the context) as
//! pre-registered ones, or for the client credentials grant; a private key (a signed client
//! assertion), a workload JWT (the JWT bearer grant) or an ID token and an identity provider
//! (enterprise-managed authorization) select those grants.

use oxmcp::client::oauth::{AutoApprove, Enterprise, OAuth};
use oxmcp::client::{Client, ClientError};
use oxmcp::schema::{ClientCapabilities, ElicitRequestParams, InputRequest};
use oxmcp::BoxFuture;
use serde_json::{json, Map, Value};
use std::sync::Arc;

/// A value for one form field or argument, from its schema.
fn sample_value(schema: &Value) -> Value {
    if let Some(d) = schema.get("default") {
        return d.clone();
    }
    if let Some(first) = schema.get("enum").and_then(|e| e.get(0)) {
        return first.clone();
    }
    match schema.get("type").and_then(Value::as_str) {
        Some("boolean") => json!(true),
        Some("integer") => json!(1),
        Some("number") => json!(1),
        Some("array") => json!([]),
        Some("object") => json!({}),
        _ => json!("test"),
    }
}

/// An object with a sample value for every property of an object schema.
fn sample_object(schema: &Value) -> Map<String, Value> {
    schema["properties"]
        .as_object()
        .map(|p| {
            p.iter()
                .map(|(k, s)| (k.clone(), sample_value(s)))
                .collect()
        })
        .unwrap_or_default()
}

fn answer(_key: &str, request: InputRequest) -> BoxFuture<Result<Value, ClientError>> {
    Box::pin(async move {
        Ok(match request {
            InputRequest::ElicitRequest(e) => match e.params {
                ElicitRequestParams::ElicitRequestFormParams(form) => {
                    let schema = serde_json::to_value(&form.requested_schema).unwrap_or_default();
                    json!({"action": "accept", "content": sample_object(&schema)})
                }
                ElicitRequestParams::ElicitRequestURLParams(_) => json!({"action": "accept"}),
                _ => {
                    return Err(ClientError::Unanswerable {
                        request: oxmcp::client::InputKind::Elicitation,
                    })
                }
            },
            InputRequest::CreateMessageRequest(_) => json!({
                "role": "assistant", "model": "conformance-client",
                "content": {"type": "text", "text": "ok"}
            }),
            InputRequest::ListRootsRequest(_) => json!({"roots": []}),
            other => return Err(ClientError::unanswerable(&other)),
        })
    })
}

#[tokio::main]
async fn main() -> std::process::ExitCode {
    let Some(url) = std::env::args().skip(1).last() else {
        eprintln!("usage: conformance-client SERVER_URL");
        return std::process::ExitCode::from(2);
    };
    let caps: ClientCapabilities =
        serde_json::from_value(json!({"elicitation": {}, "sampling": {}, "roots": {}}))
            .unwrap_or_default();
    let scenario = std::env::var("MCP_CONFORMANCE_SCENARIO").unwrap_or_default();
    let context: Value = std::env::var("MCP_CONFORMANCE_CONTEXT")
        .ok()
        .and_then(|c| serde_json::from_str(&c).ok())
        .unwrap_or(Value::Null);
    let mut client = Client::http(url).with_input(caps, answer);
    if scenario.starts_with("auth/") {
        client = client.oauth(oauth(&scenario, &context));
    }
    if let Err(e) = client.discover().await {
        eprintln!("server/discover: {e}");
    }
    if scenario.starts_with("sep-2640-client-") {
        return skills(&client, scenario != "sep-2640-client-no-prefetch").await;
    }
    let tools = match client.list_tools().await {
        Ok(t) => t.tools,
        Err(e) => {
            eprintln!("tools/list: {e}");
            return std::process::ExitCode::FAILURE;
        }
    };
    if let Some(calls) = context.get("toolCalls").and_then(Value::as_array) {
        for call in calls {
            let name = call["name"].as_str().unwrap_or_default();
            let arguments = call.get("arguments").cloned().unwrap_or(json!({}));
            match client.call_tool(name, arguments).await {
                Ok(r) => eprintln!("{name}: {} content block(s)", r.content.len()),
                Err(e) => eprintln!("{name}: {e}"),
            }
        }
        return std::process::ExitCode::SUCCESS;
    }
    if scenario == "json-schema-2020-12-preservation" {
        // The echo tool takes one `schema` argument; the other tool's schema goes through it.
        let takes_schema = |t: &&oxmcp::schema::Tool| {
            serde_json::to_value(&t.input_schema)
                .ok()
                .is_some_and(|s| s.pointer("/properties/schema").is_some())
        };
        let echo = tools.iter().find(takes_schema);
        let focal = tools.iter().find(|t| !takes_schema(t));
        if let (Some(echo), Some(focal)) = (echo, focal) {
            let schema = serde_json::to_value(&focal.input_schema).unwrap_or_default();
            if let Err(e) = client
                .call_tool(&echo.name, json!({"schema": schema}))
                .await
            {
                eprintln!("{}: {e}", echo.name);
            }
        }
        return std::process::ExitCode::SUCCESS;
    }
    let calls = tools.iter().map(|t| {
        let args = sample_object(&serde_json::to_value(&t.input_schema).unwrap_or_default());
        let name = t.name.clone();
        let client = &client;
        async move {
            (
                name.clone(),
                client.call_tool(&name, Value::Object(args)).await,
            )
        }
    });
    for (name, result) in futures_util::future::join_all(calls).await {
        match result {
            Ok(r) => eprintln!("{name}: {} content block(s)", r.content.len()),
            Err(e) => eprintln!("{name}: {e}"),
        }
    }
    std::process::ExitCode::SUCCESS
}

/// How the client logs in for an authorization scenario.
fn oauth(scenario: &str, context: &Value) -> OAuth {
    let text = |key: &str| context.get(key).and_then(Value::as_str);
    let (id, secret) = (text("client_id"), text("client_secret"));
    if let (Some(id), Some(pem)) = (id, text("private_key_pem")) {
        let algorithm = text("signing_algorithm").unwrap_or("ES256");
        match OAuth::client_credentials_jwt(id, pem, algorithm) {
            Ok(config) => return config,
            Err(e) => eprintln!("client assertion key: {e}"),
        }
    }
    if let (Some(id), Some(jwt)) = (id, text("valid_jwt")) {
        let jwt = jwt.to_string();
        return OAuth::workload_identity(id, move || {
            let jwt = jwt.clone();
            Box::pin(async move { Ok(jwt) })
        });
    }
    if let (Some(id), Some(token), Some(endpoint), Some(idp_id)) = (
        id,
        text("idp_id_token"),
        text("idp_token_endpoint"),
        text("idp_client_id"),
    ) {
        let token = token.to_string();
        let idp = Enterprise::new(
            endpoint,
            idp_id,
            Arc::new(move || {
                let token = token.clone();
                Box::pin(async move { Ok(token) })
            }),
        );
        return OAuth::enterprise(idp, id, secret);
    }
    if scenario.starts_with("auth/client-credentials") {
        if let (Some(id), Some(secret)) = (id, secret) {
            return OAuth::client_credentials(id, secret);
        }
    }
    let mut config = OAuth::authorization_code(AutoApprove::new("http://localhost:3000/callback"))
        .client_name("oxmcp conformance client")
        .metadata_document("https://conformance-test.local/client-metadata.json");
    if let Some(id) = id {
        config = config.pre_registered(id, secret);
    }
    config
}

/// List the skills and, when `load`, load the first: its `SKILL.md`, then the rest, each
/// verified before it is used.
async fn skills(client: &Client, load: bool) -> std::process::ExitCode {
    let skills = match client.list_skills().await {
        Ok(skills) => skills,
        Err(e) => {
            eprintln!("skills/list: {e}");
            return std::process::ExitCode::FAILURE;
        }
    };
    eprintln!("{} skill(s) listed", skills.len());
    let Some(skill) = skills.first().filter(|_| load) else {
        return std::process::ExitCode::SUCCESS;
    };
    match client.read_skill_file(skill, &skill.uri).await {
        Ok(_) => {
            for file in skill.files.iter().flatten().filter(|f| f.uri != skill.uri) {
                if let Err(e) = client.read_skill_file(skill, &file.uri).await {
                    eprintln!("{}: {e}", file.uri);
                    break;
                }
            }
        }
        Err(e) => eprintln!("not loading {}: {e}", skill.uri),
    }
    std::process::ExitCode::SUCCESS
}
