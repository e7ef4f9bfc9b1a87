//! The client logs in to the project's own OAuth-protected servers through a standalone
//! authorization server (oauth2-mock-server under Node, installed by `.ci/oauth-server.sh`;
//! the test fails without it): discovery from the server's 401, the authorization code grant
//! with PKCE through the loopback redirect, tokens the server verifies against the
//! authorization server's published keys, a refresh when the token is about to expire, a
//! step-up when a tool needs more scope, and a typed client calling a protected tool.
//!
//! Run with `cargo test -p mcp-tests --features oauth-server-tests --test it oauth_login::`.

// Generated code is kept as the generator writes it (prettyplease), not reformatted.
#[rustfmt::skip]
#[path = "typed_client/generated.rs"]
mod generated;

use mcp_tests::oauth_server::{protected, AuthorizationServer};
use mcp_tests::support::text;
use oxmcp::client::oauth::{
    AuthorizationHandler, AutoApprove, Credentials, Loopback, MemoryStore, OAuth, TokenStore,
};
use oxmcp::client::{Client, ClientError};
use oxmcp::Server;
use serde_json::json;
use std::sync::Arc;
use std::time::Duration;

/// A token store the test can read, shared with the client.
#[derive(Clone, Default)]
struct Shared(Arc<MemoryStore>);

impl TokenStore for Shared {
    fn load(&self, resource: &str) -> Option<Credentials> {
        self.0.load(resource)
    }

    fn save(&self, resource: &str, credentials: &Credentials) -> std::io::Result<()> {
        self.0.save(resource, credentials)
    }
}

#[tokio::test]
async fn the_client_logs_in_refreshes_and_steps_up_through_a_real_authorization_server() {
    // Tokens that say they live 32 s: fresh for the client (which refreshes 30 s before
    // expiry) for at least a second, then due for a refresh.
    let auth = AuthorizationServer::start(32);
    let server = mcp_tests::conformance::server(Server::builder())
        .build()
        .unwrap();
    let url = protected(server, &auth.issuer, &["mcp:basic"]).await;

    // Unauthenticated, the server refuses.
    let anonymous = Client::http(url.clone());
    assert!(anonymous
        .call_tool("test_simple_text", json!({}))
        .await
        .is_err());

    // The "browser": it follows the authorization server's redirect to the loopback listener.
    let loopback = Loopback::bind(|page| {
        let page = page.clone();
        tokio::spawn(async move {
            let back = AutoApprove::new("unused").authorize(page).await.unwrap();
            let (status, _) = mcp_tests::support::get(back.as_str()).await;
            assert_eq!(status, 200, "the loopback listener took the redirect");
        });
    })
    .await
    .unwrap();
    let redirect = loopback.redirect_uri();
    assert!(redirect.starts_with("http://127.0.0.1:"), "{redirect}");
    let store = Shared::default();
    let client = Client::http(url.clone()).oauth(
        OAuth::authorization_code(loopback)
            .pre_registered("oxmcp-test-client", None)
            .store(store.clone()),
    );

    let first = client.call_tool("test_whoami", json!({})).await.unwrap();
    assert!(text(&first).contains("johndoe"), "{}", text(&first));
    let grants = auth.grants(1);
    assert_eq!(grants, ["grant authorization_code scope mcp:basic"]);
    let token = store.load(&url).expect("the tokens are kept").access_token;

    // The token is about to expire: the next call refreshes it first (and only once).
    tokio::time::sleep(Duration::from_millis(2500)).await;
    let second = client
        .call_tool("test_simple_text", json!({}))
        .await
        .unwrap();
    assert!(!second.is_error.unwrap_or(false));
    let grants = auth.grants(2);
    assert_eq!(grants[1], "grant refresh_token scope mcp:basic");
    let refreshed = store.load(&url).unwrap();
    assert_ne!(refreshed.access_token, token, "a new access token");
    assert!(refreshed.refresh_token.is_some());

    // A tool that needs `admin`: 403 insufficient_scope, a new authorization asking for the
    // scopes held and the one missing, and the call goes through.
    let admin = client
        .call_tool("test_admin_only", json!({}))
        .await
        .unwrap();
    assert_eq!(text(&admin), "admin: johndoe");
    let grants = auth.grants(4);
    assert!(
        grants
            .iter()
            .any(|g| g == "grant authorization_code scope admin mcp:basic"),
        "{grants:?}"
    );
    assert_eq!(store.load(&url).unwrap().scope, "admin mcp:basic");
}

#[tokio::test]
async fn a_typed_client_calls_a_protected_tool_with_a_token() {
    let auth = AuthorizationServer::start(3600);
    let url = protected(mcp_tests::typed_tools::server(), &auth.issuer, &[]).await;
    let client = generated::TripClient::new(
        Client::http(url.clone()).oauth(
            OAuth::authorization_code(AutoApprove::new("http://127.0.0.1:9/callback"))
                .pre_registered("oxmcp-typed-client", None),
        ),
    );
    let hello = client
        .hello(generated::hello::HelloArgs { name: "Ada".into() })
        .await
        .unwrap();
    assert_eq!(text(&hello), "Hello, Ada!");
    // No scope was offered or asked for; one login served both calls.
    client.ping().await.unwrap();
    assert_eq!(auth.grants(1), ["grant authorization_code scope "]);

    // Without OAuth the same typed call is refused as unauthorized, with no login tried.
    let bare = generated::TripClient::new(Client::http(url));
    let refused = bare
        .hello(generated::hello::HelloArgs { name: "Ada".into() })
        .await;
    assert!(
        matches!(
            &refused,
            Err(ClientError::Unauthorized {
                logged_in: false,
                ..
            })
        ),
        "{refused:?}"
    );
}
