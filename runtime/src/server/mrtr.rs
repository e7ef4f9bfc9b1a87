//! `tools/call`, `prompts/get` and `resources/read`: the methods that may take MRTR rounds. Each
//! takes its request apart before any await (the boxed future holds only what the round needs),
//! finds the handler the caller may see, binds the state to the request, and runs the round
//! ([`super::round`]).

use super::catalog::RegisteredResource;
use super::round::{bind, ready, respond, Caller, Finished, ReplyFuture, Round};
use super::Server;
use crate::handler::result::resource_not_found;
use crate::handler::{match_template, CallParts, Principal};
use crate::resume::engine::TaskGate;
use crate::wire::Reply;
use oxmcp_schema::{
    methods, CacheScope, CallToolRequest, CallToolRequestParams, Error, GetPromptRequest,
    GetPromptRequestParams, ReadResourceRequest, ReadResourceRequestParams,
};
use serde_json::{Map, Value};
use std::sync::Arc;

impl Server {
    /// `tools/call`. The request is taken apart here, before any await, so that the boxed future
    /// the dispatcher awaits holds only what the round needs (the `_meta` boxed, no copy of the
    /// request or its unknown keys): that future is built on the stack and moved to the heap on
    /// every request.
    pub(crate) fn call_tool<'a>(
        &'a self,
        request: CallToolRequest,
        caller: Caller<'a>,
    ) -> ReplyFuture<'a> {
        let principal = caller.principal;
        let CallToolRequest { id, params, .. } = request;
        let CallToolRequestParams {
            meta,
            arguments,
            input_responses,
            name,
            request_state,
            ..
        } = params;
        let registry = self.registry();
        // A tool the caller may not see is answered as an unknown one, and so is a retry whose
        // requestState names a tool removed since.
        let Some(tool) = registry.tools.get(&name).filter(|t| t.offer.to(principal)) else {
            let error = Error::invalid_params(format!("unknown tool: {name}"));
            return ready(Reply::error(Some(id), error));
        };
        let (handler, fingerprint) = (tool.handler.clone(), tool.fingerprint);
        drop(registry);
        let arguments = arguments.unwrap_or_default();
        // The tasks extension: a task from the call, a task from the handler's
        // `start_task()`, or none.
        let task = match self.task_decision(&*handler, &meta) {
            Ok(task) => task,
            Err(e) => return ready(Reply::error(Some(id), e)),
        };
        #[cfg(feature = "tasks")]
        if task == TaskDecision::Task {
            return Box::pin(async move {
                let journal = Default::default();
                self.create_task(id, &name, arguments, *meta, principal, journal)
                    .await
            });
        }
        // A call that may become a task keeps its arguments for the task's record; any other
        // gives them to the handler.
        let may_become_task = task == TaskDecision::WhenStarted;
        let task_parts = may_become_task.then(|| (meta.clone(), arguments.clone()));
        let bound = bind(methods::TOOLS_CALL, &name, Some(&arguments), &caller, &meta);
        let task_gate = if may_become_task {
            TaskGate::Request
        } else {
            TaskGate::Off
        };
        Box::pin(async move {
            let round = Round {
                method: methods::TOOLS_CALL,
                target: &name,
                bound,
                meta,
                responses: input_responses.unwrap_or_default(),
                request_state,
                fingerprint,
                caller,
                task_gate,
            };
            let start = |parts: &CallParts<'_>| handler.call(arguments, parts);
            match (self.round(round, start).await, task_parts) {
                #[cfg(feature = "tasks")]
                (Ok(Finished::Detached(journal)), Some((meta, arguments))) => {
                    Box::pin(self.create_task(id, &name, arguments, *meta, principal, journal))
                        .await
                }
                (finished, _) => respond(id, finished),
            }
        })
    }

    /// `prompts/get`, taken apart before any await as [`Server::call_tool`] is.
    pub(crate) fn get_prompt<'a>(
        &'a self,
        request: GetPromptRequest,
        caller: Caller<'a>,
    ) -> ReplyFuture<'a> {
        let principal = caller.principal;
        let GetPromptRequest { id, params, .. } = request;
        let GetPromptRequestParams {
            meta,
            arguments,
            input_responses,
            name,
            request_state,
            ..
        } = params;
        let registry = self.registry();
        let Some(prompt) = registry
            .prompts
            .get(&name)
            .filter(|p| p.offer.to(principal))
        else {
            let error = Error::invalid_params(format!("unknown prompt: {name}"));
            return ready(Reply::error(Some(id), error));
        };
        let (handler, fingerprint) = (prompt.handler.clone(), prompt.fingerprint);
        drop(registry);
        let arguments: Map<String, Value> = arguments
            .unwrap_or_default()
            .into_iter()
            .map(|(k, v)| (k, Value::String(v)))
            .collect();
        let bound = bind(
            methods::PROMPTS_GET,
            &name,
            Some(&arguments),
            &caller,
            &meta,
        );
        Box::pin(async move {
            let round = Round {
                method: methods::PROMPTS_GET,
                target: &name,
                bound,
                meta,
                responses: input_responses.unwrap_or_default(),
                request_state,
                fingerprint,
                caller,
                task_gate: TaskGate::Off,
            };
            let start = |parts: &CallParts<'_>| handler.get(arguments, parts);
            respond(id, self.round(round, start).await)
        })
    }

    /// `resources/read`, taken apart before any await as [`Server::call_tool`] is.
    pub(crate) fn read_resource<'a>(
        &'a self,
        request: ReadResourceRequest,
        caller: Caller<'a>,
    ) -> ReplyFuture<'a> {
        let principal = caller.principal;
        let ReadResourceRequest { id, params, .. } = request;
        let ReadResourceRequestParams {
            meta,
            input_responses,
            request_state,
            uri,
            ..
        } = params;
        // A skill's file is served from the skills catalog, in one round.
        #[cfg(feature = "skills")]
        if let Some(result) = self.skills().and_then(|s| s.read(&uri)) {
            return ready(
                match crate::wire::from_value_text::<oxmcp_schema::ReadResourceResult>(&result) {
                    Ok(result) => Reply::result(id, result),
                    Err(e) => Reply::error(Some(id), Error::internal(e.to_string())),
                },
            );
        }
        let Some((resource, vars)) = self.find_resource(&uri, principal) else {
            return ready(Reply::error(Some(id), resource_not_found(&uri)));
        };
        let (handler, fingerprint) = (resource.handler.clone(), resource.fingerprint);
        let bound = bind(methods::RESOURCES_READ, &uri, None, &caller, &meta);
        Box::pin(async move {
            let round = Round {
                method: methods::RESOURCES_READ,
                target: &uri,
                bound,
                meta,
                responses: input_responses.unwrap_or_default(),
                request_state,
                fingerprint,
                caller,
                task_gate: TaskGate::Off,
            };
            let start = |parts: &CallParts<'_>| handler.read(uri.clone(), vars, parts);
            let finished = self.round(round, start).await.map(|f| match f {
                // Cache hints on every complete read (never on input_required).
                Finished::Done(mut result) => {
                    result.ttl_ms.get_or_insert(0);
                    result.cache_scope.get_or_insert(CacheScope::Private);
                    Finished::Done(result)
                }
                suspended => suspended,
            });
            respond(id, finished)
        })
    }

    fn find_resource(
        &self,
        uri: &str,
        caller: Option<&Principal>,
    ) -> Option<(Arc<RegisteredResource>, Map<String, Value>)> {
        self.registry()
            .resources
            .iter()
            .filter(|r| r.offer.to(caller))
            .find_map(|r| {
                match_template(r.handler.uri_template(), uri).map(|vars| (r.clone(), vars))
            })
    }
}

#[cfg(not(feature = "tasks"))]
impl Server {
    /// Without the tasks extension every call is answered in its request. A tool that runs only
    /// as a task (a hand-written handler: `#[mcp_tool(task = ...)]` does not compile without the
    /// feature) cannot be served, and its calls fail as the server's own error.
    pub(crate) fn task_decision(
        &self,
        handler: &dyn crate::handler::ToolHandler,
        _meta: &oxmcp_schema::RequestMetaObject,
    ) -> Result<TaskDecision, Error> {
        match handler.task_support().mode {
            crate::handler::TaskMode::Required => Err(Error::internal(
                "this tool runs only as a task, and the server was built without the tasks extension (oxmcp's `tasks` feature)",
            )),
            _ => Ok(TaskDecision::Answer),
        }
    }
}

/// How a `tools/call` is served with respect to the tasks extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TaskDecision {
    /// In its request: the tool takes no task, or the client did not declare the extension.
    Answer,
    /// As a task from the start: the request is answered with the created task.
    #[cfg_attr(not(feature = "tasks"), allow(dead_code))]
    Task,
    /// In its request until the handler calls `start_task()`, then as a task.
    #[cfg_attr(not(feature = "tasks"), allow(dead_code))]
    WhenStarted,
}
