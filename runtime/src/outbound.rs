//! The HTTP client the runtime sends with (the MCP client's requests, the OTLP exporters'):
//! hyper on Tokio, plain HTTP, and HTTPS with the `tls` feature.

use http_body_util::Full;
use hyper::body::Bytes;
use hyper_util::client::legacy::Client as HyperClient;
use hyper_util::rt::TokioExecutor;

/// The HTTP client requests go through: plain HTTP, and HTTPS with the `tls` feature.
#[cfg(not(feature = "tls"))]
pub(crate) type HttpClient =
    HyperClient<hyper_util::client::legacy::connect::HttpConnector, Full<Bytes>>;

/// The HTTP client requests go through: plain HTTP, and HTTPS with the `tls` feature.
#[cfg(feature = "tls")]
pub(crate) type HttpClient = HyperClient<
    hyper_rustls::HttpsConnector<hyper_util::client::legacy::connect::HttpConnector>,
    Full<Bytes>,
>;

/// A new HTTP client.
#[cfg(not(feature = "tls"))]
pub(crate) fn http_client() -> HttpClient {
    HyperClient::builder(TokioExecutor::new()).build_http()
}

/// A new HTTP client: HTTPS (rustls, with the webpki roots) or HTTP, as the URL says.
#[cfg(feature = "tls")]
pub(crate) fn http_client() -> HttpClient {
    let connector = hyper_rustls::HttpsConnectorBuilder::new()
        .with_webpki_roots()
        .https_or_http()
        .enable_http1()
        .build();
    HyperClient::builder(TokioExecutor::new()).build(connector)
}
