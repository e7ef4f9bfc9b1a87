//! rmcp 3.11 serving a 2025-era client the way its documentation shows: legacy session mode
//! (`Mcp-Session-Id`, SSE responses), and a tool that asks the user through
//! `Peer::elicit`, a real server-to-client request awaited in place. The same job as this
//! project's `test_input_required_result_elicitation` on a legacy session, and its
//! `test_simple_text` for the plain call.

use std::sync::Arc;

use rmcp::model::{
    CallToolResult, ContentBlock, ProtocolVersion, ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::transport::streamable_http_server::{
    session::local::LocalSessionManager, StreamableHttpServerConfig, StreamableHttpService,
};
use rmcp::{tool, tool_handler, tool_router, ErrorData, RoleServer, ServerHandler};
use serde::{Deserialize, Serialize};

/// The form the tool asks for.
#[derive(Debug, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Name {
    /// Your name.
    name: String,
}
rmcp::elicit_safe!(Name);

/// The rmcp server for legacy sessions.
#[derive(Clone)]
pub struct LegacyPeer;

#[tool_router]
impl LegacyPeer {
    #[tool(description = "Tests simple text content response")]
    async fn test_simple_text(&self) -> Result<CallToolResult, ErrorData> {
        Ok(CallToolResult::success(vec![ContentBlock::text(
            "This is a simple text response for testing.",
        )]))
    }

    #[tool(description = "Asks the user's name, then greets them.")]
    async fn test_input_required_result_elicitation(
        &self,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let name = match context.peer.elicit::<Name>("What is your name?").await {
            Ok(Some(n)) => n.name,
            Ok(None) => "nobody".into(),
            Err(e) => return Err(ErrorData::internal_error(e.to_string(), None)),
        };
        Ok(CallToolResult::success(vec![ContentBlock::text(format!(
            "Hello, {name}!"
        ))]))
    }
}

#[tool_handler]
impl ServerHandler for LegacyPeer {
    fn get_info(&self) -> ServerConfig {
        let mut info = ServerConfig::new(ServerCapabilities::builder().enable_tools().build());
        info.protocol_version = ProtocolVersion::V_2025_11_25;
        info
    }
}

/// Serves the rmcp legacy-session server on `listener` until the process ends.
pub async fn serve(listener: tokio::net::TcpListener) -> std::io::Result<()> {
    let peer = LegacyPeer;
    let service = StreamableHttpService::new(
        move || Ok(peer.clone()),
        Arc::new(LocalSessionManager::default()),
        StreamableHttpServerConfig::default()
            .with_legacy_session_mode(true)
            .with_sse_keep_alive(None),
    );
    let router = axum::Router::new().nest_service("/mcp", service);
    use axum::serve::ListenerExt;
    let listener = listener.tap_io(|tcp| {
        let _ = tcp.set_nodelay(true);
    });
    axum::serve(listener, router).await
}
