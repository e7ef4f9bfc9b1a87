//! The fixture tools and prompts of the official conformance suite that involve Multi
//! Round-Trip Requests, written with this project's macros. Each is a few lines: the engine
//! turns the awaits into `input_required` rounds and seals the journal into `requestState`.

use mcp_runtime::prelude::*;
use mcp_runtime::{schema, ElicitForm};

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

/// Asks the user's name, then greets them.
#[mcp_tool]
pub async fn test_input_required_result_elicitation() -> Result<String, ToolError> {
    let name = who(elicit::<NameForm>("What is your name?")
        .key("user_name")
        .await?);
    Ok(format!("Hello, {name}!"))
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

use mcp_runtime::ServerBuilder;
