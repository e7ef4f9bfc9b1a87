//! What goes wrong on the client side, and the causes under a transport error.

use super::*;

/// What went wrong on the client side.
#[derive(Debug, Clone, PartialEq)]
pub enum ClientError {
    /// The transport failed (connection, process, HTTP status without a JSON-RPC body).
    Transport(String),
    /// The server answered with a JSON-RPC error.
    Rpc(oxmcp_schema::Error),
    /// The reply did not have the expected shape.
    Protocol(String),
    /// The server kept asking for input past the round limit.
    TooManyRounds(usize),
    /// The input handler could not answer a request of this kind.
    Unanswerable(String),
    /// The tool ran and reported an error (`isError`): its text.
    Tool(String),
    /// A skill file failed verification (its size, its digest, or a `SKILL.md` whose
    /// frontmatter differs from the skill's entry): its content must not be used.
    Unverified(String),
    /// The request may have reached the server, but its reply was lost: the connection broke
    /// before or while the reply came, or a proxy answered 502, 503 or 504 without a JSON-RPC
    /// body (the instance behind it stopped or died). Whether the server acted on the request
    /// is unknown; [`Client::resend_lost`] sends such a request again.
    ReplyLost(String),
    /// The server no longer knows the client's 2025 session (HTTP 404 to a request in it):
    /// the client opens a new session and sends the request there (up to three times, as a new
    /// session may land on an instance that is stopping too); this error is what remains when
    /// every try fails.
    SessionEnded(String),
    /// Authorization failed: discovery, registration or the token endpoint refused, the
    /// authorization response did not check out, or the server kept refusing the tokens
    /// obtained ([`Client::oauth`]).
    Unauthorized(String),
    /// The server's resource metadata names an authorization server other than the one the
    /// client's configured credentials belong to (`OAuth::issuer`, feature `oauth`, or the one
    /// the client first logged in to): nothing was sent to it.
    IssuerMismatch {
        /// The issuer the credentials are bound to.
        bound: String,
        /// The issuer the resource named.
        named: String,
    },
    /// The task the server ran the call as was cancelled before it finished.
    TaskCancelled {
        /// The task's id.
        task_id: String,
    },
    /// No reply to `method` came within the time limit ([`Client::timeout`],
    /// [`Client::within`]); the request was abandoned and the server told so.
    Timeout {
        /// The request's method.
        method: String,
        /// The limit that passed.
        after: Duration,
    },
}

impl fmt::Display for ClientError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ClientError::Transport(m) => write!(f, "transport: {m}"),
            ClientError::Rpc(e) => write!(f, "server error {}: {}", e.code, e.message),
            ClientError::Protocol(m) => write!(f, "protocol: {m}"),
            ClientError::TooManyRounds(n) => write!(f, "still input_required after {n} rounds"),
            ClientError::Unanswerable(k) => write!(f, "cannot answer a {k}"),
            ClientError::Tool(m) => write!(f, "the tool failed: {m}"),
            ClientError::Unverified(m) => write!(f, "unverified skill file: {m}"),
            ClientError::Unauthorized(m) => write!(f, "unauthorized: {m}"),
            ClientError::SessionEnded(m) => write!(f, "session ended: {m}"),
            ClientError::ReplyLost(m) => write!(f, "reply lost: {m}"),
            ClientError::IssuerMismatch { bound, named } => write!(
                f,
                "unauthorized: the resource names the authorization server {named}, but the \
                 client's credentials belong to {bound}; nothing was sent to {named}"
            ),
            ClientError::TaskCancelled { task_id } => write!(f, "task {task_id} was cancelled"),
            ClientError::Timeout { method, after } => {
                write!(f, "no reply to {method} within {after:?}")
            }
        }
    }
}

impl std::error::Error for ClientError {}

/// A failed HTTP exchange as the client reports it: a connection that could not be made is a
/// transport error (nothing was sent); any later failure may have left the request with the
/// server, so its reply is lost.
pub(crate) fn exchange_failed(url: &str, e: &hyper_util::client::legacy::Error) -> ClientError {
    if e.is_connect() {
        ClientError::Transport(format!("{url}: {}", causes(e)))
    } else {
        ClientError::ReplyLost(format!("{url}: {}", causes(e)))
    }
}

/// An error and every cause under it, on one line (`client error (Connect): tcp connect error:
/// Connection refused (os error 111)`), so a failed connection says why.
pub(crate) fn causes(e: &(dyn std::error::Error + 'static)) -> String {
    let mut text = e.to_string();
    let mut next = e.source();
    while let Some(cause) = next {
        let more = cause.to_string();
        if !text.contains(&more) {
            text.push_str(": ");
            text.push_str(&more);
        }
        next = cause.source();
    }
    text
}
