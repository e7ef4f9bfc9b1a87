//! The checks every request passes at the HTTP edge, whatever its route and era, each an
//! extractor with a typed [`Refusal`]: [`CheckedHost`] (`Host` and `Origin` against DNS
//! rebinding), [`Caller`] (the bearer token when authentication is on, and who quotas count),
//! the body within its limits ([`read_body`]), and [`Route`] (which era the headers claim).
//! Nothing reaches a session, a stream or a handler before they pass.

use super::config::{Core, HttpConfig};
use super::quota::{CallerKey, InFlight};
use super::respond::Refusal;
use crate::handler::Principal;
use axum::body::Bytes;
use axum::extract::{FromRef, FromRequestParts};
use axum::http::header::{self, AsHeaderName, HeaderName};
use axum::http::request::Parts;
use axum::http::HeaderMap;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

/// The headers read on every request, as parsed names: a lookup by `&str` parses and checks
/// the name each time.
///
/// `Mcp-Session-Id`, which names a 2025-era session.
pub(crate) static SESSION: HeaderName = HeaderName::from_static("mcp-session-id");
/// `MCP-Protocol-Version`.
pub(crate) static PROTOCOL_VERSION: HeaderName = HeaderName::from_static("mcp-protocol-version");
/// `Mcp-Method`, which a 2026-07-28 request's method must match.
pub(crate) static METHOD: HeaderName = HeaderName::from_static("mcp-method");
/// `Mcp-Name`, which a 2026-07-28 request's tool, prompt or resource must match.
pub(crate) static NAME: HeaderName = HeaderName::from_static("mcp-name");

/// The address of the connection a request came on, put in its extensions by
/// [`serve_listener`](super::serve_listener). A router mounted elsewhere may give
/// `axum::extract::ConnectInfo<SocketAddr>` instead.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Peer(pub(crate) SocketAddr);

/// A value of a request header, trimmed, if it is text.
pub(crate) fn header_str(headers: &HeaderMap, name: impl AsHeaderName) -> Option<&str> {
    headers
        .get(name)
        .and_then(|v| v.to_str().ok())
        .map(str::trim)
}

/// The host of an authority `host[:port]` or `[v6][:port]`, if it is well formed: a port, when
/// present, is digits only, and a name holds only the characters DNS names and IPv4 addresses
/// use (so `localhost:80@evil.com` is refused, not read as `localhost`).
fn authority_host(authority: &str) -> Option<&str> {
    let (host, port) = if authority.starts_with('[') {
        let end = authority.find(']')?;
        let (host, rest) = authority.split_at(end + 1);
        let port = match rest {
            "" => None,
            rest => Some(rest.strip_prefix(':')?),
        };
        (host, port)
    } else {
        match authority.split_once(':') {
            Some((host, port)) => (host, Some(port)),
            None => (authority, None),
        }
    };
    let port_ok =
        port.is_none_or(|p| !p.is_empty() && p.len() <= 5 && p.bytes().all(|b| b.is_ascii_digit()));
    let name_ok = !host.is_empty()
        && (host.starts_with('[')
            || host
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_')));
    (port_ok && name_ok).then_some(host)
}

/// Whether the `Host` value is allowed: its host name is one of `allowed`, or lies under an
/// entry `*.suffix` (one label or more before the suffix).
fn host_allowed(value: &str, allowed: &[String]) -> bool {
    authority_host(value).is_some_and(|host| allowed.iter().any(|a| name_matches(a, host)))
}

/// Whether `host` is the allowed name `allowed`, or under it when it is `*.suffix`.
fn name_matches(allowed: &str, host: &str) -> bool {
    match allowed.strip_prefix('*') {
        Some(suffix) if suffix.starts_with('.') && suffix.len() > 1 => {
            host.len() > suffix.len()
                && host.is_char_boundary(host.len() - suffix.len())
                && host[host.len() - suffix.len()..].eq_ignore_ascii_case(suffix)
                && !host[..host.len() - suffix.len()].ends_with('.')
        }
        _ => allowed.eq_ignore_ascii_case(host),
    }
}

/// Whether the `Origin` value is allowed: `http` or `https`, then an allowed authority and
/// nothing else.
fn origin_allowed(value: &str, allowed: &[String]) -> bool {
    let authority = value
        .strip_prefix("http://")
        .or_else(|| value.strip_prefix("https://"));
    authority.is_some_and(|a| host_allowed(a, allowed))
}

/// The MCP headers a request may carry once only: a second value would let this server read the
/// first while an intermediary (a proxy routing on `Mcp-Session-Id`, a gateway authorizing on
/// `Mcp-Name`) reads the last.
static SINGLE: [&HeaderName; 5] = [&PROTOCOL_VERSION, &METHOD, &NAME, &SESSION, &LAST_EVENT_ID];

/// `Last-Event-ID`, which resumes a 2025-era session's stream.
pub(crate) static LAST_EVENT_ID: HeaderName = HeaderName::from_static("last-event-id");

/// Refuses a request that gives one of the MCP headers (those of [`SINGLE`] and every
/// `Mcp-Param-*`) more than once (400, naming the header).
fn check_single(headers: &HeaderMap) -> Result<(), Refusal> {
    let twice = |name: &HeaderName| headers.get_all(name).iter().nth(1).is_some();
    if let Some(name) = SINGLE.iter().find(|name| twice(name)) {
        return Err(Refusal::Repeated(name.as_str().to_string()));
    }
    // Header names are kept lowercase; a request carries few headers, so the walk is short.
    if let Some(name) = headers
        .keys()
        .find(|name| name.as_str().starts_with("mcp-param-") && twice(name))
    {
        return Err(Refusal::Repeated(name.as_str().to_string()));
    }
    Ok(())
}

/// `Host` and `Origin` checked against DNS rebinding: exactly one `Host` (HTTP/1.1 requires it;
/// two are malformed), and every `Host` and `Origin` value well formed and allowed; and no MCP
/// header given twice.
pub(crate) struct CheckedHost;

impl<S: Send + Sync> FromRequestParts<S> for CheckedHost
where
    Arc<Core>: FromRef<S>,
{
    type Rejection = Refusal;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Refusal> {
        check_host(&parts.headers, &Arc::<Core>::from_ref(state).config)
    }
}

fn check_host(headers: &HeaderMap, config: &HttpConfig) -> Result<CheckedHost, Refusal> {
    check_single(headers)?;
    if !config.allowed_hosts.is_empty() {
        let mut hosts = headers.get_all(header::HOST).into_iter();
        let host = match (hosts.next(), hosts.next()) {
            (Some(host), None) => host,
            (None, _) => return Err(Refusal::BadHost("missing Host header")),
            (Some(_), Some(_)) => return Err(Refusal::BadHost("more than one Host header")),
        };
        if !host_allowed(host.to_str().unwrap_or(""), &config.allowed_hosts) {
            return Err(Refusal::NotAllowed("host"));
        }
    }
    if !config.allowed_origins.is_empty() {
        for v in headers.get_all(header::ORIGIN) {
            if !origin_allowed(v.to_str().unwrap_or(""), &config.allowed_origins) {
                return Err(Refusal::NotAllowed("origin"));
            }
        }
    }
    Ok(CheckedHost)
}

/// Who is calling: the principal of a valid bearer token when authentication is on (a request
/// without one is refused with 401), else the `Principal` an application layer put in the
/// request's extensions; and who the request counts against for quotas.
pub(crate) struct Caller {
    pub(crate) principal: Option<Principal>,
    pub(crate) key: Option<CallerKey>,
}

/// The address a request came from, as the server that accepted it recorded it.
pub(crate) fn peer_of(extensions: &axum::http::Extensions) -> Option<SocketAddr> {
    extensions.get::<Peer>().map(|p| p.0).or_else(|| {
        extensions
            .get::<axum::extract::ConnectInfo<SocketAddr>>()
            .map(|c| c.0)
    })
}

impl<S: Send + Sync> FromRequestParts<S> for Caller
where
    Arc<Core>: FromRef<S>,
{
    type Rejection = Refusal;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Refusal> {
        let app = Arc::<Core>::from_ref(state);
        let peer = peer_of(&parts.extensions);
        Caller::of(parts, &app, peer).await
    }
}

/// What the extractors [`CheckedHost`] and [`Caller`] check, for a request the connection's
/// service answers itself: its `Host` and `Origin`, then its caller, who came from `peer`.
pub(crate) async fn admit(
    parts: &mut Parts,
    app: &Core,
    peer: Option<SocketAddr>,
) -> Result<Caller, Refusal> {
    check_host(&parts.headers, &app.config)?;
    Caller::of(parts, app, peer).await
}

impl Caller {
    /// The caller of the request `parts` are of, which came from `peer`: authenticated when the
    /// endpoint asks for a bearer token, keyed by its principal or else its address.
    pub(crate) async fn of(
        parts: &mut Parts,
        app: &Core,
        peer: Option<SocketAddr>,
    ) -> Result<Caller, Refusal> {
        #[cfg(feature = "auth")]
        let principal = match &app.config.auth {
            Some(auth) => Some(Box::pin(authenticate(auth, &parts.headers)).await?),
            None => parts.extensions.remove::<Principal>(),
        };
        #[cfg(not(feature = "auth"))]
        let principal = {
            let _ = app;
            parts.extensions.remove::<Principal>()
        };
        let key = CallerKey::of(principal.as_ref(), peer.map(|p| p.ip()));
        Ok(Caller { principal, key })
    }

    /// Count this request in flight for its caller, or refuse it when the caller already has
    /// `Limits::requests_per_caller` (429).
    pub(crate) fn enter(&self, app: &Core) -> Result<Option<InFlight>, Refusal> {
        let Some(key) = self.key.clone() else {
            return Ok(None);
        };
        match app
            .quotas
            .enter(key, app.config.limits.requests_per_caller.max(1))
        {
            Some(guard) => Ok(Some(guard)),
            None => Err(Refusal::Quota {
                what: "requests in flight",
                retry_after: Duration::from_secs(1),
            }),
        }
    }

    /// The binding key of the principal (issuer and subject), which a session is bound to.
    pub(crate) fn binding(&self) -> Option<String> {
        self.principal.as_ref().map(Principal::binding_key)
    }

    /// Whether the principal holds every scope in `needed`.
    pub(crate) fn has_scopes(&self, needed: &[&str]) -> bool {
        needed
            .iter()
            .all(|s| self.principal.as_ref().is_some_and(|p| p.has_scope(s)))
    }
}

/// The caller of a request with a bearer token, or the 401 that refuses it.
#[cfg(feature = "auth")]
async fn authenticate(
    auth: &crate::auth::AuthConfig,
    headers: &HeaderMap,
) -> Result<Principal, Refusal> {
    let mut values = headers.get_all(header::AUTHORIZATION).iter();
    let token = match (values.next(), values.next()) {
        (Some(v), None) => v.to_str().ok().and_then(|v| {
            let (scheme, token) = v.split_once(' ')?;
            scheme
                .eq_ignore_ascii_case("bearer")
                .then(|| token.trim().to_string())
        }),
        _ => None,
    };
    let Some(token) = token.filter(|t| !t.is_empty()) else {
        return Err(Refusal::Unauthorized {
            challenge: Some(auth.challenge(None)),
        });
    };
    auth.verifier.verify(token).await.map_err(|e| {
        tracing::info!(reason = %e, "refused a bearer token");
        Refusal::Unauthorized {
            challenge: Some(auth.challenge(Some("invalid_token"))),
        }
    })
}

/// The 403 for a caller without the scopes a request needs.
pub(crate) fn insufficient_scope(app: &Core, id: serde_json::Value, needed: &[&str]) -> Refusal {
    #[cfg(feature = "auth")]
    let challenge = app
        .config
        .auth
        .as_ref()
        .map(|auth| auth.insufficient_scope(needed));
    #[cfg(not(feature = "auth"))]
    let challenge = {
        let _ = app;
        None
    };
    Refusal::InsufficientScope {
        id,
        scopes: needed.join(" "),
        challenge,
    }
}

/// Which path a request takes, from its headers alone: a request whose `MCP-Protocol-Version`
/// names a version that is not 2025-era is judged as 2026-07-28 whatever session header it
/// carries; otherwise a request naming a session goes to it.
pub(crate) enum Route<'a> {
    /// The stateless path (which also opens sessions with a 2025-era `initialize`).
    Stateless,
    /// The 2025-era session this id names.
    Session(&'a str),
}

impl<'a> Route<'a> {
    pub(crate) fn of(headers: &'a HeaderMap) -> Route<'a> {
        let version = header_str(headers, &PROTOCOL_VERSION);
        let session_era = version.is_none_or(|v| crate::SESSION_VERSIONS.contains(&v));
        match header_str(headers, &SESSION) {
            Some(id) if session_era => Route::Session(id),
            _ => Route::Stateless,
        }
    }
}

/// The request body, within the size limit, the JSON value limit and the body timeout; or the
/// refusal (413, 408, 400). A declared length over the limit is refused before any of the body
/// is read (and before `100 Continue` is sent); a slow body is cut off.
pub(crate) async fn read_body<B>(
    config: &HttpConfig,
    headers: &HeaderMap,
    body: B,
) -> Result<Bytes, Refusal>
where
    B: axum::body::HttpBody<Data = Bytes>,
{
    let declared = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok());
    if declared.is_some_and(|n| n > config.max_body as u64) {
        return Err(Refusal::TooLarge(config.max_body));
    }
    let max = config.max_body;
    // A body that comes in one piece (the usual case) is kept as it came; one in several is
    // gathered into one buffer.
    let read = async {
        use http_body_util::BodyExt;
        let mut body = std::pin::pin!(body);
        let (mut first, mut gathered): (Option<Bytes>, Option<Vec<u8>>) = (None, None);
        let mut len = 0usize;
        while let Some(frame) = body.as_mut().frame().await {
            let Ok(data) = frame.map_err(|_| Refusal::BodyUnreadable)?.into_data() else {
                continue;
            };
            len += data.len();
            if len > max {
                // Over the limit as it arrived (a chunked body).
                return Err(Refusal::TooLarge(max));
            }
            match (&mut gathered, first.take()) {
                (Some(all), _) => all.extend_from_slice(&data),
                (None, None) => first = Some(data),
                (None, Some(earlier)) => {
                    let mut all = Vec::with_capacity(earlier.len() + data.len());
                    all.extend_from_slice(&earlier);
                    all.extend_from_slice(&data);
                    gathered = Some(all);
                }
            }
        }
        Ok(gathered.map(Bytes::from).or(first).unwrap_or_default())
    };
    let bytes = match tokio::time::timeout(config.limits.body_timeout, read).await {
        Ok(read) => read?,
        Err(_) => return Err(Refusal::BodyTooSlow),
    };
    let limit = config.limits.max_json_values;
    match crate::wire::json_shape(&bytes, limit) {
        crate::wire::JsonShape::Within => {}
        crate::wire::JsonShape::TooManyValues => return Err(Refusal::TooManyValues(limit)),
        crate::wire::JsonShape::TooDeep => return Err(Refusal::TooDeep),
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn allowed() -> Vec<String> {
        vec!["localhost".into(), "127.0.0.1".into(), "[::1]".into()]
    }

    #[test]
    fn hosts_are_parsed_not_prefixed() {
        let a = allowed();
        for ok in [
            "localhost",
            "localhost:8080",
            "127.0.0.1:1",
            "[::1]",
            "[::1]:443",
            "LOCALHOST",
        ] {
            assert!(host_allowed(ok, &a), "{ok}");
        }
        for bad in [
            "localhost:80@evil.com",
            "localhost:",
            "localhost:8o",
            "localhost:123456",
            "evil.com",
            "localhost@evil.com",
            "[::1]evil",
            "[::1]:x",
            "",
        ] {
            assert!(!host_allowed(bad, &a), "{bad}");
        }
    }

    #[test]
    fn a_wildcard_accepts_names_under_its_suffix_only() {
        let a = vec!["*.lambda-url.eu-west-1.on.aws".to_string()];
        for ok in [
            "abc123.lambda-url.eu-west-1.on.aws",
            "ABC123.Lambda-URL.eu-west-1.on.aws:443",
            "a.b.lambda-url.eu-west-1.on.aws",
        ] {
            assert!(host_allowed(ok, &a), "{ok}");
        }
        for bad in [
            "lambda-url.eu-west-1.on.aws",
            ".lambda-url.eu-west-1.on.aws",
            "a..lambda-url.eu-west-1.on.aws",
            "evillambda-url.eu-west-1.on.aws",
            "abc.lambda-url.eu-west-1.on.aws.evil.com",
            "abc.lambda-url.us-east-1.on.aws",
            "abc.lambda-url.eu-west-1.on.aws@evil.com",
        ] {
            assert!(!host_allowed(bad, &a), "{bad}");
        }
        // A bare `*` or `*.` is no wildcard: it matches only itself, which no host is.
        for entry in ["*", "*."] {
            assert!(!host_allowed("example.com", &[entry.to_string()]));
        }
    }

    #[test]
    fn origins_need_a_scheme_and_a_clean_authority() {
        let a = allowed();
        for ok in [
            "http://localhost",
            "https://localhost:3000",
            "http://[::1]:8080",
        ] {
            assert!(origin_allowed(ok, &a), "{ok}");
        }
        for bad in [
            "http://localhost:evil.com",
            "http://localhost/path",
            "null",
            "localhost",
            "ftp://localhost",
            "http://evil.com",
        ] {
            assert!(!origin_allowed(bad, &a), "{bad}");
        }
    }
}
