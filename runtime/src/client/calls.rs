//! The MCP methods as typed calls: listing (every page), tools, prompts and resources.

use super::*;

impl Client {
    /// `tools/list`, every page (at most 100, against a server whose cursors never end),
    /// following `nextCursor`; also learns each tool's header arguments.
    pub async fn list_all_tools(&self) -> Result<Vec<oxmcp_schema::Tool>, ClientError> {
        let mut tools = Vec::new();
        let mut cursor: Option<Value> = None;
        for _ in 0..MAX_LIST_PAGES {
            let params = match cursor.take() {
                Some(c) => json!({ "cursor": c }),
                None => json!({}),
            };
            let page: oxmcp_schema::ListToolsResult =
                Self::typed(self.request(methods::TOOLS_LIST, params).await?)?;
            tools.extend(page.tools);
            match page.next_cursor {
                Some(c) => cursor = Some(Value::String(c)),
                None => return Ok(tools),
            }
        }
        Ok(tools)
    }

    /// One page of a list method (`cursor` from the previous page's `nextCursor`).
    pub(crate) async fn page<T: DeserializeOwned>(
        &self,
        method: &str,
        cursor: Option<&str>,
    ) -> Result<T, ClientError> {
        let params = match cursor {
            Some(c) => json!({ "cursor": c }),
            None => json!({}),
        };
        Self::typed(self.request(method, params).await?)
    }

    /// Every item under `field` of every page of a list method (at most 100 pages, against a
    /// server whose cursors never end), following `nextCursor`.
    pub(crate) async fn every_page<T: DeserializeOwned>(
        &self,
        method: &str,
        field: &str,
    ) -> Result<Vec<T>, ClientError> {
        let mut items = Vec::new();
        let mut cursor: Option<String> = None;
        for _ in 0..MAX_LIST_PAGES {
            let mut page: Map<String, Value> = self.page(method, cursor.as_deref()).await?;
            let listed = page.remove(field).unwrap_or_else(|| json!([]));
            items.extend(Self::typed::<Vec<T>>(listed)?);
            match page.remove("nextCursor") {
                Some(Value::String(next)) => cursor = Some(next),
                Some(Value::Null) | None => return Ok(items),
                Some(other) => {
                    return Err(ClientError::protocol(format!(
                        "{method}: nextCursor is not a string: {other}"
                    )))
                }
            }
        }
        Ok(items)
    }

    /// `prompts/list`, one page: the first with `None`, then the previous page's `nextCursor`.
    pub async fn list_prompts(
        &self,
        cursor: Option<&str>,
    ) -> Result<oxmcp_schema::ListPromptsResult, ClientError> {
        self.page(methods::PROMPTS_LIST, cursor).await
    }

    /// `prompts/list`, every page.
    pub async fn list_all_prompts(&self) -> Result<Vec<oxmcp_schema::Prompt>, ClientError> {
        self.every_page(methods::PROMPTS_LIST, "prompts").await
    }

    /// `resources/list`, one page: the first with `None`, then the previous page's `nextCursor`.
    pub async fn list_resources(
        &self,
        cursor: Option<&str>,
    ) -> Result<oxmcp_schema::ListResourcesResult, ClientError> {
        self.page(methods::RESOURCES_LIST, cursor).await
    }

    /// `resources/list`, every page.
    pub async fn list_all_resources(&self) -> Result<Vec<oxmcp_schema::Resource>, ClientError> {
        self.every_page(methods::RESOURCES_LIST, "resources").await
    }

    /// `resources/templates/list`, one page: the first with `None`, then the previous page's
    /// `nextCursor`.
    pub async fn list_resource_templates(
        &self,
        cursor: Option<&str>,
    ) -> Result<oxmcp_schema::ListResourceTemplatesResult, ClientError> {
        self.page(methods::RESOURCES_TEMPLATES_LIST, cursor).await
    }

    /// `resources/templates/list`, every page.
    pub async fn list_all_resource_templates(
        &self,
    ) -> Result<Vec<oxmcp_schema::ResourceTemplate>, ClientError> {
        self.every_page(methods::RESOURCES_TEMPLATES_LIST, "resourceTemplates")
            .await
    }

    pub(crate) async fn send(&self, msg: &Value) -> Result<Value, ClientError> {
        match &self.transport {
            Transport::Http { url, uri, http } => {
                self.send_http(url, uri.as_ref(), http, msg).await
            }
            Transport::InProcess { handle } => {
                let reply = handle(msg.to_string())
                    .await
                    .ok_or_else(|| ClientError::protocol("the server sent no reply"))?;
                crate::wire::from_text(&reply)
                    .map_err(|e| ClientError::protocol(format!("a reply that is not JSON: {e}")))
            }
            Transport::Stdio {
                tx, pending, done, ..
            } => self.send_stdio(tx, pending, done, msg).await,
        }
    }

    pub(crate) fn typed<T: DeserializeOwned>(v: Value) -> Result<T, ClientError> {
        serde_json::from_value(v)
            .map_err(|e| ClientError::protocol_because("the reply does not read as its type", e))
    }

    /// `server/discover`.
    pub async fn discover(&self) -> Result<oxmcp_schema::DiscoverResult, ClientError> {
        Self::typed(self.request(methods::SERVER_DISCOVER, json!({})).await?)
    }

    /// `tools/list` (first page; [`Client::list_all_tools`] follows the cursors).
    pub async fn list_tools(&self) -> Result<oxmcp_schema::ListToolsResult, ClientError> {
        Self::typed(self.request(methods::TOOLS_LIST, json!({})).await?)
    }

    /// Call a tool, answering its input requests until it completes. Over HTTP, arguments the
    /// tool mirrors in headers are sent in them; a tool not yet seen in a `tools/list` result
    /// whose call is refused for a header mismatch is looked up there and called once more.
    /// When the server runs the call as a task (the client declared the tasks extension,
    /// [`Capabilities::tasks`]), the task is followed to its end: polled at the server's
    /// interval, its input requests answered, its result returned; the time limit
    /// ([`Client::within`], else [`Client::timeout`]) then bounds the whole task, and a task
    /// the caller stops waiting for (the limit passes, or the future is dropped) is cancelled.
    pub async fn call_tool(
        &self,
        name: &str,
        arguments: Value,
    ) -> Result<CallToolResult, ClientError> {
        let reply = self.call_tool_reply(name, arguments).await?;
        match tasks::created_task(&reply) {
            Some((task, poll)) => self.finish_task(&task, poll).await,
            None => Self::typed(reply),
        }
    }

    /// Call a tool with typed arguments (anything that serializes to the `arguments` object),
    /// answering its input requests until it completes.
    pub async fn call_tool_with<A: serde_core::Serialize + ?Sized>(
        &self,
        name: &str,
        args: &A,
    ) -> Result<CallToolResult, ClientError> {
        let arguments = serde_json::to_value(args).map_err(|e| {
            ClientError::protocol(format!("the arguments of `{name}` do not serialize: {e}"))
        })?;
        self.call_tool(name, arguments).await
    }

    /// Call a tool with typed arguments; a tool error (`isError`) is [`ClientError::Tool`] with
    /// the result's text, as the typed clients `oxmcp-codegen client` writes map it.
    pub async fn call_tool_checked<A: serde_core::Serialize + ?Sized>(
        &self,
        name: &str,
        args: &A,
    ) -> Result<CallToolResult, ClientError> {
        let result = self.call_tool_with(name, args).await?;
        if result.is_error == Some(true) {
            return Err(ClientError::Tool {
                result: Box::new(result),
            });
        }
        Ok(result)
    }

    /// Call a tool with typed arguments and read its structured output as `T` (the type of its
    /// `outputSchema`). A tool error (`isError`) is [`ClientError::Tool`].
    pub async fn call_tool_typed<A: serde_core::Serialize + ?Sized, T: DeserializeOwned>(
        &self,
        name: &str,
        args: &A,
    ) -> Result<T, ClientError> {
        let result = self.call_tool_checked(name, args).await?;
        let Some(structured) = result.structured_content else {
            return Err(ClientError::protocol(format!(
                "`{name}` returned no structuredContent"
            )));
        };
        serde_json::from_value(structured).map_err(|e| {
            ClientError::protocol(format!(
                "the structuredContent of `{name}` does not match its output type: {e}"
            ))
        })
    }

    /// Get a prompt, answering its input requests until it completes.
    pub async fn get_prompt(
        &self,
        name: &str,
        arguments: Value,
    ) -> Result<GetPromptResult, ClientError> {
        let v = self
            .request_mrtr(
                methods::PROMPTS_GET,
                json!({"name": name, "arguments": arguments}),
            )
            .await?;
        Self::typed(v)
    }

    /// Read a resource, answering its input requests until it completes.
    pub async fn read_resource(&self, uri: &str) -> Result<ReadResourceResult, ClientError> {
        Self::typed(
            self.request_mrtr(methods::RESOURCES_READ, json!({"uri": uri}))
                .await?,
        )
    }
}
