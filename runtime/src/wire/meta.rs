//! The `_meta` keys of the protocol that are not fields of the generated types' own.

/// `_meta` key: the request's protocol version.
pub(crate) const META_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
/// `_meta` key: the client's capabilities for this request.
pub(crate) const META_CAPS: &str = "io.modelcontextprotocol/clientCapabilities";
/// `_meta` key: the client's software, sent by the client.
#[cfg(any(feature = "http", feature = "stdio", feature = "client"))]
pub(crate) const META_CLIENT_INFO: &str = "io.modelcontextprotocol/clientInfo";
/// `_meta` key: the lowest log level the client wants notifications for.
#[cfg(any(feature = "http", feature = "stdio"))]
pub(crate) const META_LOG_LEVEL: &str = "io.modelcontextprotocol/logLevel";
