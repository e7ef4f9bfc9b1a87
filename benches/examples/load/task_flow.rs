//! A task over streamable HTTP (the tasks extension, 2026-07-28): a `tools/call` of a task tool
//! answered with a task, then `tasks/get` until the task has completed, and for a task that asks
//! something, its input requests answered with `tasks/update` on the way. Every server is spoken
//! to the same way, on the worker's own connection, requests written from fixed parts and replies
//! read borrowed from their bytes.

use std::borrow::Cow;
use std::collections::BTreeMap;

use hyper::body::Bytes;
use serde::de::IgnoredAny;
use serde::Deserialize;

use crate::generator::{answer_text, first_text, Conn, Conns, InputRequest, ReplyContent};

/// The task flows.
#[derive(Clone, Copy, PartialEq, Debug)]
pub enum Task {
    /// `task_quick`: a task that completes at once.
    Quick,
    /// `task_greet`: a task that asks the user's name, answered with `tasks/update`.
    Greet,
}

impl Task {
    /// The tool the flow calls and the text its task must end with.
    fn tool(self) -> (&'static str, &'static str) {
        match self {
            Task::Quick => ("task_quick", "task done"),
            Task::Greet => ("task_greet", "Hello, Ada!"),
        }
    }

    /// The flow's label in tables.
    pub fn label(self) -> &'static str {
        match self {
            Task::Quick => "task, completes at once",
            Task::Greet => "task with one input",
        }
    }
}

/// The `_meta` every request of a task flow carries: the client declares the tasks extension.
const META: &str = r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}},"extensions":{"io.modelcontextprotocol/tasks":{}}},"io.modelcontextprotocol/clientInfo":{"name":"mcp-load","version":"0.1.0"}}"#;

/// What the generator reads of a reply.
#[derive(Deserialize)]
struct Reply<'a> {
    #[serde(borrow)]
    result: Option<Outcome<'a>>,
    error: Option<IgnoredAny>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Outcome<'a> {
    #[serde(borrow)]
    result_type: Option<Cow<'a, str>>,
    #[serde(borrow)]
    task_id: Option<Cow<'a, str>>,
    #[serde(borrow)]
    status: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    input_requests: BTreeMap<Cow<'a, str>, InputRequest<'a>>,
    #[serde(borrow)]
    result: Option<Final<'a>>,
}

#[derive(Deserialize)]
struct Final<'a> {
    #[serde(borrow, default)]
    content: Vec<ReplyContent<'a>>,
}

/// POST one request of `method` naming `name` (the `Mcp-Name` header) with `params` (JSON
/// object members, `_meta` added here); the reply's bytes.
async fn post(
    conns: &Conns,
    conn: &mut Conn,
    id: u64,
    method: &str,
    name: &str,
    params: &str,
) -> Result<Bytes, String> {
    let body = format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}","params":{{{params},"_meta":{META}}}}}"#
    );
    conns.post(conn, method, name, body.into_bytes()).await
}

/// The result of a reply, or why there is none.
fn outcome<'a>(bytes: &'a [u8], what: &str) -> Result<Outcome<'a>, String> {
    let reply: Reply<'a> = serde_json::from_slice(bytes)
        .map_err(|e| format!("{what}: {e}: {}", String::from_utf8_lossy(bytes)))?;
    match (reply.result, reply.error) {
        (Some(result), None) => Ok(result),
        _ => Err(format!("{what}: {}", String::from_utf8_lossy(bytes))),
    }
}

/// One task flow on `conn`, ids taken from `id`; the number of requests it took.
pub async fn run(conns: &Conns, conn: &mut Conn, task: Task, id: &mut u64) -> Result<u64, String> {
    let (tool, expect) = task.tool();
    *id += 1;
    let created = post(
        conns,
        conn,
        *id,
        "tools/call",
        tool,
        &format!(r#""name":"{tool}","arguments":{{}}"#),
    )
    .await?;
    let created = outcome(&created, "tools/call")?;
    if created.result_type.as_deref() != Some("task") {
        return Err("tools/call was not answered with a task".into());
    }
    let task_id = created
        .task_id
        .ok_or("a task without a taskId")?
        .into_owned();
    let mut requests = 1;
    for _ in 0..100_000 {
        *id += 1;
        let got = post(
            conns,
            conn,
            *id,
            "tasks/get",
            &task_id,
            &format!(r#""taskId":"{task_id}""#),
        )
        .await?;
        requests += 1;
        let got = outcome(&got, "tasks/get")?;
        match got.status.as_deref() {
            Some("completed") => {
                let text = got.result.as_ref().and_then(|r| first_text(&r.content));
                return if text == Some(expect) {
                    Ok(requests)
                } else {
                    Err(format!("the task ended with {text:?}"))
                };
            }
            Some("working") => {}
            Some("input_required") => {
                let mut answers = String::from("{");
                for (key, request) in &got.input_requests {
                    let fields = request.fields();
                    if answers.len() > 1 {
                        answers.push(',');
                    }
                    answers.push_str(&serde_json::to_string(key).map_err(|e| e.to_string())?);
                    answers.push(':');
                    answers.push_str(&answer_text(key, fields)?);
                }
                answers.push('}');
                *id += 1;
                let updated = post(
                    conns,
                    conn,
                    *id,
                    "tasks/update",
                    &task_id,
                    &format!(r#""taskId":"{task_id}","inputResponses":{answers}"#),
                )
                .await?;
                requests += 1;
                outcome(&updated, "tasks/update")?;
            }
            other => return Err(format!("the task is {other:?}")),
        }
    }
    Err("the task did not complete".into())
}
