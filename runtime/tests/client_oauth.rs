//! The client's login against servers that misbehave: one whose challenges never end is given
//! up on after a bounded number of sends, and one whose resource metadata names another server
//! gets no authorization request; and the loopback listener drops a local connection that sends
//! nothing, so it cannot hold the login up.

use oxmcp::client::oauth::{AuthorizationHandler, OAuth};
use oxmcp::client::{Client, ClientError};
use oxmcp::BoxFuture;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// A handler that counts authorization requests and never approves.
struct Counting(Arc<AtomicUsize>);

impl AuthorizationHandler for Counting {
    fn redirect_uri(&self) -> String {
        "http://127.0.0.1:9/callback".into()
    }

    fn authorize(
        &self,
        _url: oxmcp::client::oauth::Url,
    ) -> BoxFuture<Result<oxmcp::client::oauth::Url, ClientError>> {
        self.0.fetch_add(1, Ordering::SeqCst);
        Box::pin(async { Err(ClientError::Unauthorized("declined".into())) })
    }
}

async fn serve(app: axum::Router) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });
    url
}

#[tokio::test]
async fn a_server_whose_nonce_challenges_never_end_is_given_up_on() {
    let posts = Arc::new(AtomicUsize::new(0));
    let counter = posts.clone();
    let app = axum::Router::new().route(
        "/mcp",
        axum::routing::post(move || {
            let n = counter.fetch_add(1, Ordering::SeqCst);
            async move {
                (
                    axum::http::StatusCode::UNAUTHORIZED,
                    [
                        (
                            "www-authenticate",
                            "DPoP error=\"use_dpop_nonce\"".to_string(),
                        ),
                        ("dpop-nonce", format!("nonce-{n}")),
                    ],
                    "",
                )
            }
        }),
    );
    let url = serve(app).await;
    let asked = Arc::new(AtomicUsize::new(0));
    let client = Client::http(format!("{url}/mcp"))
        .era(oxmcp::client::Era::Stateless)
        .oauth(OAuth::authorization_code(Counting(asked.clone())));
    let result = tokio::time::timeout(std::time::Duration::from_secs(10), client.list_tools())
        .await
        .expect("the client gives up rather than loop");
    assert!(result.is_err(), "{result:?}");
    let sent = posts.load(Ordering::SeqCst);
    assert!((2..=9).contains(&sent), "sent {sent} times");
    assert_eq!(
        asked.load(Ordering::SeqCst),
        0,
        "a nonce is no reason to log in"
    );
}

#[tokio::test]
async fn metadata_for_another_resource_stops_the_login() {
    let app = axum::Router::new()
        .route(
            "/mcp",
            axum::routing::post(|| async {
                (
                    axum::http::StatusCode::UNAUTHORIZED,
                    [("www-authenticate", "Bearer scope=\"a\"")],
                    "",
                )
            }),
        )
        .route(
            "/.well-known/oauth-protected-resource/mcp",
            axum::routing::get(|| async {
                let body = serde_json::json!({
                    "resource": "https://elsewhere.example/mcp",
                    "authorization_servers": ["https://as.example"]
                });
                ([("content-type", "application/json")], body.to_string())
            }),
        );
    let url = serve(app).await;
    let asked = Arc::new(AtomicUsize::new(0));
    let client = Client::http(format!("{url}/mcp"))
        .era(oxmcp::client::Era::Stateless)
        .oauth(OAuth::authorization_code(Counting(asked.clone())));
    let refused = client.list_tools().await;
    assert!(
        matches!(&refused, Err(ClientError::Unauthorized(m)) if m.contains("elsewhere.example")),
        "{refused:?}"
    );
    assert_eq!(asked.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn a_stalled_connection_does_not_hold_up_the_loopback_login() {
    use oxmcp::client::oauth::{Loopback, Url};
    let loopback = Loopback::bind(|_| {}).await.unwrap();
    let redirect = loopback.redirect_uri();
    let port = Url::parse(&redirect).unwrap().port().unwrap();
    // Another local process connects first and sends nothing.
    let _stalled = tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .unwrap();
    let waiting = tokio::spawn(async move {
        loopback
            .authorize(Url::parse("https://as.example/authorize").unwrap())
            .await
    });
    // The browser's redirect comes after it.
    let browser = tokio::spawn(async move {
        use http_body_util::{BodyExt, Empty};
        let http =
            hyper_util::client::legacy::Client::builder(hyper_util::rt::TokioExecutor::new())
                .build_http::<Empty<hyper::body::Bytes>>();
        let req = hyper::Request::get(format!("{redirect}?code=c1&state=s1"))
            .body(Empty::new())
            .unwrap();
        let resp = http.request(req).await.unwrap();
        let status = resp.status();
        let _ = resp.into_body().collect().await;
        status
    });
    let back = tokio::time::timeout(std::time::Duration::from_secs(20), waiting)
        .await
        .expect("the stalled connection was dropped and the redirect taken")
        .unwrap()
        .unwrap();
    assert_eq!(back.query(), Some("code=c1&state=s1"));
    assert_eq!(browser.await.unwrap(), 200);
}
