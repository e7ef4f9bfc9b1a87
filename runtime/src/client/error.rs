//! What goes wrong on the client side, as data: each kind of failure its own variant with the
//! fields a caller acts on (the challenge of a `401`, the scopes a `403` asks for, the step of a
//! login that failed), and the underlying error kept for `source()`.

use super::*;

/// What went wrong on the client side.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum ClientError {
    /// Nothing reached the server: no connection to `target` could be made, the server's
    /// process could not be started or has exited, or `target` is not an address the client can
    /// use. Sending again is safe.
    Transport {
        /// The URL or program the client was to reach.
        target: String,
        /// Why not.
        cause: Cause,
    },
    /// The HTTP endpoint at `target` answered `status` without a JSON-RPC body (a proxy's or a
    /// framework's page; 502, 503 and 504 are [`ClientError::ReplyLost`] instead, and 401 and 403
    /// [`ClientError::Unauthorized`] and [`ClientError::Forbidden`]).
    HttpStatus {
        /// The URL.
        target: String,
        /// The HTTP status.
        status: u16,
    },
    /// The server answered with a JSON-RPC error.
    Rpc(oxmcp_schema::Error),
    /// The server's reply, or a message the client was to send, does not have the shape the
    /// protocol gives it.
    Protocol {
        /// What was wrong, in words.
        detail: String,
        /// The error under it (a JSON error, say), if any.
        cause: Option<Cause>,
    },
    /// The server kept asking for input past the round limit ([`Client::max_rounds`]).
    TooManyRounds {
        /// The limit.
        rounds: usize,
    },
    /// The input handler cannot answer a request of this kind.
    Unanswerable {
        /// The kind of request.
        request: InputKind,
    },
    /// The tool ran and reported an error (`isError`); [`ClientError::tool_text`] gives its
    /// text.
    Tool {
        /// The tool's result.
        result: Box<CallToolResult>,
    },
    /// A skill file failed verification: its content must not be used.
    Unverified {
        /// The file's URI.
        uri: String,
        /// The check it failed.
        failed: Verification,
    },
    /// The request may have reached the server, but its reply was lost: the connection broke
    /// before or while the reply came, or a proxy answered 502, 503 or 504 without a JSON-RPC
    /// body (the instance behind it stopped or died). Whether the server acted on the request
    /// is unknown; [`Client::resend_lost`] sends such a request again.
    ReplyLost {
        /// The URL or program.
        target: String,
        /// Why, as far as the client can tell.
        cause: Cause,
    },
    /// The server no longer knows the client's 2025 session (HTTP 404 to a request in it):
    /// the client opens a new session and sends the request there (up to three times, as a new
    /// session may land on an instance that is stopping too); this error is what remains when
    /// every try fails.
    SessionEnded {
        /// The URL.
        target: String,
        /// The session's id.
        session: String,
    },
    /// The server wants credentials it did not get (HTTP 401): without a login configured, use
    #[cfg_attr(feature = "oauth", doc = "[`Client::oauth`] (feature `oauth`)")]
    #[cfg_attr(not(feature = "oauth"), doc = "`Client::oauth` (feature `oauth`)")]
    /// or [`Client::header`] with a token; with one, the server kept refusing the tokens the
    /// login obtained.
    Unauthorized {
        /// The server's challenge (`WWW-Authenticate`), as far as it was given.
        challenge: Challenge,
        /// Whether the client has a login configured (and it did not satisfy the server).
        logged_in: bool,
    },
    /// The token lacks a scope the request needs (HTTP 403 `insufficient_scope`), and the
    /// client could not obtain one that has it.
    Forbidden {
        /// The scopes the server asks for.
        scopes: Vec<String>,
        /// The server's challenge.
        challenge: Challenge,
    },
    #[cfg_attr(
        feature = "oauth",
        doc = "The client's login failed at `step` ([`Client::oauth`])."
    )]
    #[cfg_attr(not(feature = "oauth"), doc = "The client's login failed at `step`.")]
    Login {
        /// Where it failed.
        step: LoginStep,
        /// What happened, in words.
        detail: String,
        /// The error under it, if any.
        cause: Option<Cause>,
    },
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

/// The kind of input request a handler could not answer.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum InputKind {
    /// An elicitation (`elicitation/create`).
    Elicitation,
    /// A sampling request (`sampling/createMessage`).
    Sampling,
    /// A roots request (`roots/list`).
    Roots,
    /// Another kind, by its name.
    Other(String),
}

impl InputKind {
    /// The kind of `request`.
    pub fn of(request: &InputRequest) -> InputKind {
        match request {
            InputRequest::ElicitRequest(_) => InputKind::Elicitation,
            InputRequest::CreateMessageRequest(_) => InputKind::Sampling,
            InputRequest::ListRootsRequest(_) => InputKind::Roots,
            #[allow(unreachable_patterns)]
            other => InputKind::Other(other.variant_name().to_string()),
        }
    }
}

impl fmt::Display for InputKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InputKind::Elicitation => f.write_str("elicitation"),
            InputKind::Sampling => f.write_str("sampling request"),
            InputKind::Roots => f.write_str("roots request"),
            InputKind::Other(name) => f.write_str(name),
        }
    }
}

/// The verification a skill file failed.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Verification {
    /// It is not a file the skill lists.
    NotListed,
    /// Its size is not the one the skill's entry gives.
    Size {
        /// The entry's size.
        expected: u64,
        /// The file's.
        actual: u64,
    },
    /// Its digest is not the one the skill's entry gives.
    Digest {
        /// The entry's `sha256:<hex>`.
        expected: String,
        /// The file's.
        actual: String,
    },
    /// A `SKILL.md` that is not UTF-8, whose frontmatter does not read, or differs from the
    /// skill's entry.
    Frontmatter(FrontmatterProblem),
}

/// What is wrong with a `SKILL.md`'s frontmatter ([`Verification::Frontmatter`]).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum FrontmatterProblem {
    /// The file is not UTF-8.
    NotUtf8,
    /// It does not read as a frontmatter, and why.
    Unreadable {
        /// The reader's reason.
        reason: String,
    },
    /// It reads, but differs from the skill's entry.
    DiffersFromEntry,
}

/// A step of the client's login ([`ClientError::Login`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum LoginStep {
    /// Finding the resource's metadata and its authorization server.
    Discovery,
    /// Registering the client (or finding its registration).
    Registration,
    /// The user's approval, and the redirect that brings it back.
    Authorization,
    /// The token endpoint.
    Token,
    /// An assertion the grant needs (a workload's or a user's token).
    Assertion,
    /// Keeping the credentials ([`oauth::TokenStore`](super)).
    Store,
}

impl fmt::Display for LoginStep {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            LoginStep::Discovery => "discovery",
            LoginStep::Registration => "registration",
            LoginStep::Authorization => "authorization",
            LoginStep::Token => "token request",
            LoginStep::Assertion => "assertion",
            LoginStep::Store => "token store",
        })
    }
}

/// A server's `Bearer` (or `DPoP`) challenge, from its `WWW-Authenticate` header.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Challenge {
    /// Where the server's Protected Resource Metadata is (RFC 9728).
    pub resource_metadata: Option<String>,
    /// The scopes the server names, space-separated.
    pub scope: Option<String>,
    /// The error code (`invalid_token`, `insufficient_scope`, ...).
    pub error: Option<String>,
}

impl Challenge {
    /// The `Bearer` (or `DPoP`) challenge among those of a `WWW-Authenticate` value (the
    /// default if there is no such challenge or the value does not parse).
    pub fn parse(value: Option<&str>) -> Challenge {
        let mut found = Challenge::default();
        let Some(challenges) = value.and_then(|v| http_auth::parse_challenges(v).ok()) else {
            return found;
        };
        for challenge in challenges {
            if !challenge.scheme.eq_ignore_ascii_case("bearer")
                && !challenge.scheme.eq_ignore_ascii_case("dpop")
            {
                continue;
            }
            for (name, value) in &challenge.params {
                let value = Some(value.to_unescaped());
                match name.to_ascii_lowercase().as_str() {
                    "resource_metadata" => found.resource_metadata = value,
                    "scope" => found.scope = value,
                    "error" => found.error = value,
                    _ => {}
                }
            }
        }
        found
    }

    /// The scopes the challenge names.
    pub fn scopes(&self) -> Vec<String> {
        self.scope
            .as_deref()
            .unwrap_or("")
            .split_whitespace()
            .map(str::to_string)
            .collect()
    }
}

impl ClientError {
    /// Nothing reached `target`, because of `cause`.
    pub(crate) fn transport(target: impl Into<String>, cause: Cause) -> ClientError {
        ClientError::Transport {
            target: target.into(),
            cause,
        }
    }

    /// A message that does not have the protocol's shape (for input handlers and hosts that
    /// read messages themselves).
    pub fn protocol(detail: impl Into<String>) -> ClientError {
        ClientError::Protocol {
            detail: detail.into(),
            cause: None,
        }
    }

    /// [`ClientError::protocol`], because of `error`.
    pub(crate) fn protocol_because(
        detail: impl Into<String>,
        error: impl std::error::Error + Send + Sync + 'static,
    ) -> ClientError {
        ClientError::Protocol {
            detail: detail.into(),
            cause: Some(Cause::of(error)),
        }
    }

    /// The input handler cannot answer `request` (for input handlers: the answer to a kind of
    /// request the host does not support).
    pub fn unanswerable(request: &InputRequest) -> ClientError {
        ClientError::Unanswerable {
            request: InputKind::of(request),
        }
    }

    /// The reply from `target` was lost, because of `cause`.
    pub(crate) fn reply_lost(target: impl Into<String>, cause: Cause) -> ClientError {
        ClientError::ReplyLost {
            target: target.into(),
            cause,
        }
    }

    /// The login failed at `step`.
    #[cfg(feature = "oauth")]
    pub(crate) fn login(step: LoginStep, detail: impl Into<String>) -> ClientError {
        ClientError::Login {
            step,
            detail: detail.into(),
            cause: None,
        }
    }

    /// The text of a tool error ([`ClientError::Tool`]): its result's text blocks; `None` for
    /// any other error.
    pub fn tool_text(&self) -> Option<String> {
        let ClientError::Tool { result } = self else {
            return None;
        };
        Some(
            result
                .content
                .iter()
                .filter_map(|b| match b {
                    oxmcp_schema::ContentBlock::TextContent(t) => Some(t.text.as_str()),
                    _ => None,
                })
                .collect::<Vec<_>>()
                .join("\n"),
        )
    }
}

impl fmt::Display for ClientError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ClientError::Transport { target, cause } => write!(f, "transport: {target}: {cause}"),
            ClientError::HttpStatus { target, status } => {
                write!(f, "{target}: HTTP {status} without a JSON-RPC body")
            }
            ClientError::Rpc(e) => write!(f, "server error {}: {}", e.code, e.message),
            ClientError::Protocol { detail, cause } => match cause {
                Some(cause) => write!(f, "protocol: {detail}: {cause}"),
                None => write!(f, "protocol: {detail}"),
            },
            ClientError::TooManyRounds { rounds } => {
                write!(f, "still input_required after {rounds} rounds")
            }
            ClientError::Unanswerable { request } => {
                write!(f, "the input handler cannot answer a {request}")
            }
            ClientError::Tool { .. } => write!(
                f,
                "the tool failed: {}",
                self.tool_text().unwrap_or_default()
            ),
            ClientError::Unverified { uri, failed } => {
                write!(f, "unverified skill file {uri}: ")?;
                match failed {
                    Verification::NotListed => f.write_str("not a file the skill lists"),
                    Verification::Size { expected, actual } => {
                        write!(f, "{actual} bytes where the entry says {expected}")
                    }
                    Verification::Digest { expected, actual } => {
                        write!(f, "digest {actual} where the entry says {expected}")
                    }
                    Verification::Frontmatter(FrontmatterProblem::NotUtf8) => {
                        f.write_str("SKILL.md is not UTF-8")
                    }
                    Verification::Frontmatter(FrontmatterProblem::Unreadable { reason }) => {
                        write!(f, "{reason}")
                    }
                    Verification::Frontmatter(FrontmatterProblem::DiffersFromEntry) => {
                        f.write_str("its frontmatter differs from the skill's entry")
                    }
                }
            }
            ClientError::ReplyLost { target, cause } => write!(f, "reply lost: {target}: {cause}"),
            ClientError::SessionEnded { target, session } => write!(
                f,
                "session ended: {target}: the server no longer knows session {session} (HTTP 404)"
            ),
            ClientError::Unauthorized {
                challenge,
                logged_in,
            } => {
                f.write_str("unauthorized (HTTP 401)")?;
                if let Some(error) = &challenge.error {
                    write!(f, ", {error}")?;
                }
                if *logged_in {
                    f.write_str(": the server refuses the tokens the login obtained")?;
                } else {
                    f.write_str(
                        ": the server needs credentials; log in with Client::oauth (feature `oauth`) or send a token with Client::header",
                    )?;
                }
                if let Some(at) = &challenge.resource_metadata {
                    write!(f, " (its resource metadata: {at})")?;
                }
                Ok(())
            }
            ClientError::Forbidden { scopes, .. } => write!(
                f,
                "forbidden (HTTP 403, insufficient_scope): the request needs the scope(s) {}",
                scopes.join(" ")
            ),
            ClientError::Login {
                step,
                detail,
                cause,
            } => match cause {
                Some(cause) => write!(f, "login failed ({step}): {detail}: {cause}"),
                None => write!(f, "login failed ({step}): {detail}"),
            },
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

impl std::error::Error for ClientError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ClientError::Transport { cause, .. } | ClientError::ReplyLost { cause, .. } => {
                Some(cause.get())
            }
            ClientError::Protocol { cause, .. } | ClientError::Login { cause, .. } => {
                cause.as_ref().map(|c| c.get() as _)
            }
            _ => None,
        }
    }
}

/// A failed HTTP exchange as the client reports it: a connection that could not be made is a
/// transport error (nothing was sent); any later failure may have left the request with the
/// server, so its reply is lost.
pub(crate) fn exchange_failed(url: &str, e: hyper_util::client::legacy::Error) -> ClientError {
    if e.is_connect() {
        ClientError::transport(url, Cause::of(e))
    } else {
        ClientError::reply_lost(url, Cause::of(e))
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_challenge_is_read_among_others_with_its_quoting() {
        let c = Challenge::parse(Some(
            r#"Basic realm="x", Bearer error="insufficient_scope", scope="a b", resource_metadata="https://h/.well-known/oauth-protected-resource/mcp""#,
        ));
        assert_eq!(c.error.as_deref(), Some("insufficient_scope"));
        assert_eq!(c.scopes(), ["a", "b"]);
        assert_eq!(
            c.resource_metadata.as_deref(),
            Some("https://h/.well-known/oauth-protected-resource/mcp")
        );
        let c = Challenge::parse(Some(r#"Bearer error=invalid_token, scope="x\"y""#));
        assert_eq!(c.error.as_deref(), Some("invalid_token"));
        assert_eq!(c.scope.as_deref(), Some("x\"y"));
        assert_eq!(
            Challenge::parse(Some("Basic realm=x")),
            Challenge::default()
        );
        assert_eq!(Challenge::parse(None), Challenge::default());
        // A malformed header gives what it can, never a panic.
        for bad in [
            "Bearer",
            "Bearer ,,,",
            "Bearer a=\"unterminated",
            "Bearer =x",
            "",
        ] {
            let _ = Challenge::parse(Some(bad));
        }
    }

    #[test]
    fn causes_are_kept_for_source() {
        use std::error::Error as _;
        let io = std::io::Error::new(std::io::ErrorKind::ConnectionRefused, "refused");
        let e = ClientError::transport("http://h/mcp", Cause::of(io));
        let source = e.source().expect("a source");
        assert_eq!(source.to_string(), "refused");
        assert!(e.to_string().contains("http://h/mcp") && e.to_string().contains("refused"));
    }
}
