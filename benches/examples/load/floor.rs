//! The floor of the end-to-end table: an HTTP server that reads each POST's body and answers
//! with a fixed `tools/call` result, with no MCP work at all. What the generator and the kernel
//! cost per request is what no server can go below, which bounds the ratio any server can reach
//! against another at concurrency 1.

use axum::body::Bytes;
use axum::http::header;
use axum::response::IntoResponse;

/// The plain call's result, as every server writes it.
const RESULT: &str = r#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[{"type":"text","text":"This is a simple text response for testing."}]}}"#;

async fn answer(_body: Bytes) -> impl IntoResponse {
    ([(header::CONTENT_TYPE, "application/json")], RESULT)
}

/// Serves the floor on `listener` until the process ends.
/// An OTLP/HTTP sink for `load otel`: every export is answered 200 and dropped.
pub async fn serve_sink(listener: tokio::net::TcpListener) -> std::io::Result<()> {
    axum::serve(
        listener,
        axum::Router::new().fallback(|| async { axum::http::StatusCode::OK }),
    )
    .await
}

pub async fn serve(listener: tokio::net::TcpListener) -> std::io::Result<()> {
    use axum::serve::ListenerExt;
    let listener = listener.tap_io(|tcp| {
        let _ = tcp.set_nodelay(true);
    });
    axum::serve(
        listener,
        axum::Router::new().route("/mcp", axum::routing::post(answer)),
    )
    .await
}
