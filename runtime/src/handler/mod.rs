//! What a handler is: the traits `#[mcp_tool]`, `#[mcp_prompt]` and `#[mcp_resource]` implement
//! ([`ToolHandler`], [`PromptHandler`], [`ResourceHandler`]), the parameters a handler may take
//! ([`FromCall`]: [`State`], [`Principal`], ...), what it may return ([`IntoToolResult`] and its
//! kin), and the forms it elicits ([`ElicitForm`]). Reach for it to write a handler by hand or to
//! name what the macros generate; the common names are also at the crate root. It knows the wire
//! types but nothing of how a call is run or served.

pub(crate) mod describe;
pub(crate) mod extract;
pub(crate) mod form;
pub(crate) mod result;
pub(crate) mod schema;

pub(crate) use extract::CancelSlot;
pub use extract::{CallParts, FromCall, Need, Principal, State};
pub use form::{ElicitEnum, ElicitField, ElicitForm, FieldOptions};
pub use result::{AskError, IntoPromptResult, IntoResourceResult, IntoToolResult, Json, ToolError};

use crate::wire::BoxFuture;
use oxmcp_schema::{
    CallToolResult, Error, GetPromptResult, Prompt, ReadResourceResult, Resource, ResourceTemplate,
    Tool,
};
use serde_json::{Map, Value};

/// A tool: its descriptor and how to call it. `#[mcp_tool]` implements this.
pub trait ToolHandler: Send + Sync + 'static {
    /// The descriptor listed by `tools/list` (built once, at registration).
    fn tool(&self) -> Tool;
    /// A digest of the handler's code, kept in `requestState` to notice code changes between
    /// rounds (read once, at registration, like the descriptor).
    fn fingerprint(&self) -> &'static str;
    /// Run the tool on `arguments`, taking its other parameters from `parts`. Bad arguments are a
    /// tool error (`isError: true`).
    fn call(
        &self,
        arguments: Map<String, Value>,
        parts: &CallParts<'_>,
    ) -> BoxFuture<Result<CallToolResult, Error>>;
    /// The state types the tool's parameters need, checked when the server is built.
    fn needs(&self) -> Vec<Need> {
        Vec::new()
    }
    /// The OAuth scopes a caller needs to call this tool (checked by the HTTP transport when
    /// authentication is on).
    fn scopes(&self) -> &'static [&'static str] {
        &[]
    }
    /// Whether and how a call of this tool runs as a task (the tasks extension); by default it
    /// never does.
    fn task_support(&self) -> TaskSupport {
        TaskSupport::default()
    }
    /// Whether the tool's SERVER spans, and the run span of a task it becomes (feature `otel`),
    /// record the call's arguments and its result as JSON text (`gen_ai.tool.call.arguments`,
    /// `gen_ai.tool.call.result`):
    /// `#[mcp_tool(trace_payloads)]`. Off by default, because arguments and results can hold
    /// what must not leave the process; answers elicited in later rounds are never recorded.
    fn trace_payloads(&self) -> bool {
        false
    }
}

/// How a tool takes part in the tasks extension (`io.modelcontextprotocol/tasks`):
/// `#[mcp_tool(task = "optional" | "required", task_start = "call" | "explicit")]`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TaskSupport {
    /// Whether a call may or must run as a task.
    pub mode: TaskMode,
    /// Where the task begins: at the call, or where the handler awaits
    /// [`start_task`](crate::start_task) (asks before it are ordinary `input_required` rounds).
    pub explicit_start: bool,
}

/// Whether a tool's calls run as tasks.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum TaskMode {
    /// Never: the call is answered in the request.
    #[default]
    Never,
    /// As a task when the client declared the extension on the request, else in the request.
    Optional,
    /// Only as a task: a client that did not declare the extension gets -32021.
    Required,
}

/// A prompt: its descriptor and how to render it. `#[mcp_prompt]` implements this.
pub trait PromptHandler: Send + Sync + 'static {
    /// The descriptor listed by `prompts/list`.
    fn prompt(&self) -> Prompt;
    /// A digest of the handler's code (read once, at registration).
    fn fingerprint(&self) -> &'static str;
    /// Render the prompt for `arguments`, taking its other parameters from `parts`.
    fn get(
        &self,
        arguments: Map<String, Value>,
        parts: &CallParts<'_>,
    ) -> BoxFuture<Result<GetPromptResult, Error>>;
    /// The state types the prompt's parameters need, checked when the server is built.
    fn needs(&self) -> Vec<Need> {
        Vec::new()
    }
}

/// A resource or resource template. `#[mcp_resource]` implements this.
pub trait ResourceHandler: Send + Sync + 'static {
    /// The resource, when its URI has no template variables.
    fn resource(&self) -> Option<Resource>;
    /// The template, when its URI has variables.
    fn template(&self) -> Option<ResourceTemplate>;
    /// The URI or URI template (`test://template/{id}/data`).
    fn uri_template(&self) -> &'static str;
    /// A digest of the handler's code (read once, at registration).
    fn fingerprint(&self) -> &'static str;
    /// Read `uri`, whose template variables are in `vars`, taking the handler's other
    /// parameters from `parts`.
    fn read(
        &self,
        uri: String,
        vars: Map<String, Value>,
        parts: &CallParts<'_>,
    ) -> BoxFuture<Result<ReadResourceResult, Error>>;
    /// The state types the resource's parameters need, checked when the server is built.
    fn needs(&self) -> Vec<Need> {
        Vec::new()
    }
}

/// Match `uri` against a level-1 URI template (`{name}` segments); the variables, or `None`.
pub fn match_template(template: &str, uri: &str) -> Option<Map<String, Value>> {
    let mut vars = Map::new();
    let mut rest = uri;
    let mut t = template;
    loop {
        match t.find('{') {
            None => return (rest == t).then_some(vars),
            Some(open) => {
                let literal = &t[..open];
                rest = rest.strip_prefix(literal)?;
                let close = t[open..].find('}')? + open;
                let name = &t[open + 1..close];
                t = &t[close + 1..];
                // A variable runs to the next literal character of the template (or the end).
                let end = match t.chars().next() {
                    None => rest.len(),
                    Some(c) => rest.find(c)?,
                };
                if end == 0 {
                    return None;
                }
                vars.insert(name.to_string(), Value::String(rest[..end].to_string()));
                rest = &rest[end..];
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn templates() {
        let m = match_template("test://template/{id}/data", "test://template/42/data").unwrap();
        assert_eq!(m["id"], "42");
        assert!(match_template("test://template/{id}/data", "test://template//data").is_none());
        assert!(match_template("test://template/{id}/data", "test://other/42/data").is_none());
        assert!(match_template("test://static", "test://static")
            .unwrap()
            .is_empty());
        let m = match_template("file:///{dir}/{name}", "file:///a/b.txt").unwrap();
        assert_eq!(
            (m["dir"].as_str(), m["name"].as_str()),
            (Some("a"), Some("b.txt"))
        );
    }
}
