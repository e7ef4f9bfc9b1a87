//! OAuth 2.1 for the client (feature `oauth`): a [`Client`](super::Client) given an [`OAuth`]
//! answers a server's `401` by logging in and sends its access token on every HTTP request.
//!
//! What it does, per the MCP authorization rules (2025-03-26 to 2026-07-28):
//! - **Discovery.** The Protected Resource Metadata named by the challenge's
//!   `resource_metadata`, else at the well-known URIs (path, then root); its `resource` must be
//!   the server's. The authorization server's metadata (RFC 8414, then OpenID discovery, with a
//!   path-aware well-known URI), whose `issuer` must be the one it was looked up by. A server
//!   without metadata (2025-03-26) is its own authorization server, with `/authorize`, `/token`
//!   and `/register` at its root.
//! - **The client's identity.** Pre-registered credentials ([`OAuth::pre_registered`]), else a
//!   Client ID Metadata Document ([`OAuth::metadata_document`]) where the server supports one,
//!   else dynamic registration (RFC 7591). A registration belongs to its authorization server:
//!   when the resource moves to another, the client registers again.
//! - **Authorization.** The authorization code grant with PKCE (S256) and the `resource`
//!   indicator (RFC 8707); the scope from the challenge, else the resource's
//!   `scopes_supported`, else none, joined with the scopes asked for before (step-up on a `403
//!   insufficient_scope`), and `offline_access` when the authorization server offers it; the
//!   redirect's `state` and `iss` (RFC 9207) checked. For a machine client: the client
//!   credentials grant with a secret or a signed assertion ([`OAuth::client_credentials`],
//!   [`OAuth::client_credentials_jwt`]), a workload identity's JWT (RFC 7523,
//!   [`OAuth::workload_identity`]), or enterprise-managed authorization, where an identity
//!   provider exchanges the user's ID token for an authorization grant (RFC 8693, ID-JAG,
//!   [`OAuth::enterprise`]).
//! - **DPoP** (RFC 9449). Where the authorization server offers it, tokens are bound to a key
//!   the client holds: every request carries a fresh proof, and the servers' nonces are used.
//! - **Tokens.** Sent as `Authorization: Bearer` (or `DPoP`); refreshed shortly before they
//!   expire and once on a `401`, never on every call; kept in a [`TokenStore`] ([`MemoryStore`]
//!   by default, or [`FileStore`]). A run of failed attempts stops after a limit ([`OAuth::max_attempts`]).
//!
//! The host shows the user the authorization page through an [`AuthorizationHandler`]:
//! [`Loopback`] for a desktop host (it opens nothing itself: the host's callback shows the URL
//! or starts a browser), or its own.

mod proof;

use super::error::{Challenge, LoginStep};
use super::{causes, ClientError, HttpClient};
use crate::wire::BoxFuture;
use crate::wire::Cause;
use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use oauth2::basic::BasicClient;
/// The URL type of [`AuthorizationHandler`] (the `url` crate's, as the `oauth2` crate uses it).
pub use oauth2::url::Url;
use oauth2::{
    AuthType, AuthUrl, AuthorizationCode, ClientId, ClientSecret, CsrfToken, PkceCodeChallenge,
    RedirectUrl, RefreshToken, RequestTokenError, Scope, TokenResponse, TokenUrl,
};
use proof::{AssertionKey, DpopKey};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// How long before its expiry an access token is refreshed.
const REFRESH_MARGIN: Duration = Duration::from_secs(30);

/// The largest metadata or token document read.
const MAX_DOCUMENT: usize = 1024 * 1024;

mod authorizer;
mod config;
mod discovery;
mod grants;
mod http;
mod redirect;
mod registration;
mod store;

pub(crate) use authorizer::{Authorizer, Session};
use config::*;
pub use config::{AssertionSource, Enterprise, OAuth};
use discovery::*;
use http::*;
pub use redirect::{AuthorizationHandler, AutoApprove, Loopback};
pub use store::{Credentials, FileStore, MemoryStore, TokenStore};
#[cfg(test)]
mod tests;

use crate::wire::unix_seconds as now;

/// The login failed at `step`, for the reason `text`.
fn login_error(step: LoginStep, text: impl Into<String>) -> ClientError {
    ClientError::login(step, text)
}
