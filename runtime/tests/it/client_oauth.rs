//! The client's login against servers that misbehave: one whose challenges never end is given
//! up on after a bounded number of sends, and one whose resource metadata names another server
//! gets no authorization request; the loopback listener drops a local connection that sends
//! nothing, so it cannot hold the login up; an authorization server off the loopback host must
//! be HTTPS; and a property test logs in against endpoints that answer anything, checking where
//! the code and the token go.

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
        Box::pin(async {
            Err(ClientError::Login {
                step: oxmcp::client::LoginStep::Authorization,
                detail: "declined".into(),
                cause: None,
            })
        })
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
        matches!(&refused, Err(e @ ClientError::Login { .. }) if e.to_string().contains("elsewhere.example")),
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
    // Other local connections come first and send nothing (a process probing the port, a
    // browser's speculative preconnects).
    let mut _stalled = Vec::new();
    for _ in 0..3 {
        _stalled.push(
            tokio::net::TcpStream::connect(("127.0.0.1", port))
                .await
                .unwrap(),
        );
    }
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
    // Well within the time a connection gets to send its request (10 s): the redirect is
    // served beside the stalled connections, not after them.
    let back = tokio::time::timeout(std::time::Duration::from_secs(3), waiting)
        .await
        .expect("the redirect was taken while the stalled connections waited")
        .unwrap()
        .unwrap();
    assert_eq!(back.query(), Some("code=c1&state=s1"));
    assert_eq!(browser.await.unwrap(), 200);
}

/// What one scripted endpoint of the login answers: its sound document, that document with one
/// member replaced by any JSON or removed, any JSON, bytes that are not JSON, or a bare status.
#[derive(Debug, Clone)]
enum Doc {
    Sound,
    Changed(usize, Option<serde_json::Value>),
    Json(serde_json::Value),
    Bytes(Vec<u8>),
    Status(u16),
}

/// How the scripted user's browser comes back from the authorization page.
#[derive(Debug, Clone)]
enum Redirect {
    /// With the code, the request's `state` and the issuer.
    Sound,
    /// With another `state`.
    OtherState,
    /// With another issuer in `iss`.
    OtherIssuer,
    /// With an `error` and no code.
    Denied,
    /// With any query.
    Query(String),
}

fn any_json() -> impl proptest::strategy::Strategy<Value = serde_json::Value> {
    use proptest::prelude::*;
    let leaf = prop_oneof![
        Just(serde_json::Value::Null),
        any::<bool>().prop_map(serde_json::Value::Bool),
        any::<i64>().prop_map(serde_json::Value::from),
        "\\PC{0,12}".prop_map(serde_json::Value::String),
        prop::sample::select(vec![
            "http://as.example",
            "https://as.example",
            "S256",
            "plain",
            "Bearer",
            "DPoP",
            "http://127.0.0.1:9/token",
            "",
            "/token",
        ])
        .prop_map(serde_json::Value::from),
    ];
    leaf.prop_recursive(2, 8, 3, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..3).prop_map(serde_json::Value::Array),
            proptest::collection::btree_map("[a-z_]{0,8}", inner, 0..3)
                .prop_map(|m| serde_json::Value::Object(m.into_iter().collect())),
        ]
    })
}

fn doc() -> impl proptest::strategy::Strategy<Value = Doc> {
    use proptest::prelude::*;
    prop_oneof![
        6 => Just(Doc::Sound),
        4 => (any::<usize>(), prop::option::of(any_json())).prop_map(|(i, v)| Doc::Changed(i, v)),
        1 => any_json().prop_map(Doc::Json),
        1 => proptest::collection::vec(any::<u8>(), 0..32).prop_map(Doc::Bytes),
        1 => prop::sample::select(vec![201u16, 204, 302, 400, 401, 404, 500]).prop_map(Doc::Status),
    ]
}

fn redirect() -> impl proptest::strategy::Strategy<Value = Redirect> {
    use proptest::prelude::*;
    prop_oneof![
        6 => Just(Redirect::Sound),
        1 => Just(Redirect::OtherState),
        1 => Just(Redirect::OtherIssuer),
        1 => Just(Redirect::Denied),
        1 => "[a-z=&%0-9]{0,24}".prop_map(Redirect::Query),
    ]
}

/// One login's script: the protected resource metadata, the authorization server metadata, the
/// registration, the token response, and the browser's return.
#[derive(Debug, Clone)]
struct Script {
    resource: Doc,
    server: Doc,
    register: Doc,
    token: Doc,
    redirect: Redirect,
}

impl Script {
    fn sound(&self) -> bool {
        matches!(
            (
                &self.resource,
                &self.server,
                &self.register,
                &self.token,
                &self.redirect
            ),
            (
                Doc::Sound,
                Doc::Sound,
                Doc::Sound,
                Doc::Sound,
                Redirect::Sound
            )
        )
    }
}

/// A request the scripted server received.
#[derive(Debug, Clone)]
struct Seen {
    path: String,
    authorization: String,
    body: String,
}

/// The sound protected resource metadata of the scripted server at `origin`.
fn sound_resource(origin: &str) -> serde_json::Value {
    serde_json::json!({
        "resource": format!("{origin}/mcp"),
        "authorization_servers": [origin],
    })
}

/// The sound authorization server metadata of the scripted server at `origin`.
fn sound_server(origin: &str) -> serde_json::Value {
    serde_json::json!({
        "issuer": origin,
        "authorization_endpoint": format!("{origin}/authorize"),
        "token_endpoint": format!("{origin}/token"),
        "registration_endpoint": format!("{origin}/register"),
        "code_challenge_methods_supported": ["S256"],
        "authorization_response_iss_parameter_supported": true,
    })
}

/// The member of `sound` that [`Doc::Changed`]`(i, _)` changes.
fn member(sound: &serde_json::Value, i: usize) -> String {
    let map = sound.as_object().expect("an object");
    map.keys().nth(i % map.len()).cloned().expect("a member")
}

/// `sound` as the scripted `doc` says, as an HTTP response.
fn render(doc: &Doc, sound: serde_json::Value, ok: u16) -> axum::response::Response {
    use axum::response::IntoResponse;
    let json = |status: u16, body: Vec<u8>| {
        (
            axum::http::StatusCode::from_u16(status).unwrap_or(axum::http::StatusCode::OK),
            [("content-type", "application/json")],
            body,
        )
            .into_response()
    };
    match doc {
        Doc::Sound => json(ok, sound.to_string().into_bytes()),
        Doc::Changed(i, value) => {
            let mut sound = sound;
            let key = member(&sound, *i);
            if let Some(map) = sound.as_object_mut() {
                match value {
                    Some(v) => map.insert(key, v.clone()),
                    None => map.remove(&key),
                };
            }
            json(ok, sound.to_string().into_bytes())
        }
        Doc::Json(v) => json(ok, v.to_string().into_bytes()),
        Doc::Bytes(b) => json(ok, b.clone()),
        Doc::Status(s) => json(*s, Vec::new()),
    }
}

/// The authorization handler of the scripted login: records the authorization URL and returns
/// as the script says.
struct Browser {
    redirect: Redirect,
    issuer: String,
    asked: Arc<std::sync::Mutex<Vec<oxmcp::client::oauth::Url>>>,
}

impl AuthorizationHandler for Browser {
    fn redirect_uri(&self) -> String {
        "http://127.0.0.1:9/callback".into()
    }

    fn authorize(
        &self,
        url: oxmcp::client::oauth::Url,
    ) -> BoxFuture<Result<oxmcp::client::oauth::Url, ClientError>> {
        self.asked.lock().unwrap().push(url.clone());
        let state = url
            .query_pairs()
            .find(|(k, _)| k == "state")
            .map(|(_, v)| v.into_owned())
            .unwrap_or_default();
        let mut back = oxmcp::client::oauth::Url::parse(&self.redirect_uri()).unwrap();
        match &self.redirect {
            Redirect::Sound => {
                back.query_pairs_mut()
                    .append_pair("code", "the-code")
                    .append_pair("state", &state)
                    .append_pair("iss", &self.issuer);
            }
            Redirect::OtherState => {
                back.query_pairs_mut()
                    .append_pair("code", "the-code")
                    .append_pair("state", "not-the-state")
                    .append_pair("iss", &self.issuer);
            }
            Redirect::OtherIssuer => {
                back.query_pairs_mut()
                    .append_pair("code", "the-code")
                    .append_pair("state", &state)
                    .append_pair("iss", "https://attacker.example");
            }
            Redirect::Denied => {
                back.query_pairs_mut()
                    .append_pair("error", "access_denied")
                    .append_pair("state", &state);
            }
            Redirect::Query(q) => back.set_query(Some(q)),
        }
        Box::pin(async move { Ok(back) })
    }
}

/// Runs one scripted login: the client lists tools on a server whose login endpoints answer
/// as `script` says. Returns the result, the requests the server saw, and the authorization
/// URLs the user was shown.
fn scripted_login(
    script: Script,
) -> (
    Result<usize, ClientError>,
    Vec<Seen>,
    Vec<oxmcp::client::oauth::Url>,
    String,
) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let origin = format!("http://{}", listener.local_addr().unwrap());
        let seen = Arc::new(std::sync::Mutex::new(Vec::<Seen>::new()));
        let app = {
            let (seen, origin, script) = (seen.clone(), origin.clone(), script.clone());
            axum::Router::new().fallback(move |req: axum::extract::Request| {
                let (seen, origin, script) = (seen.clone(), origin.clone(), script.clone());
                async move {
                    let path = req.uri().path().to_string();
                    let authorization = req
                        .headers()
                        .get("authorization")
                        .and_then(|v| v.to_str().ok())
                        .unwrap_or_default()
                        .to_string();
                    let body = axum::body::to_bytes(req.into_body(), 1 << 20)
                        .await
                        .unwrap_or_default();
                    let body = String::from_utf8_lossy(&body).into_owned();
                    seen.lock().unwrap().push(Seen {
                        path: path.clone(),
                        authorization: authorization.clone(),
                        body: body.clone(),
                    });
                    use axum::response::IntoResponse;
                    match path.as_str() {
                        "/mcp" if authorization == "Bearer the-token" => {
                            let id = serde_json::from_str::<serde_json::Value>(&body)
                                .map(|m| m["id"].clone())
                                .unwrap_or_default();
                            let reply = serde_json::json!({
                                "jsonrpc": "2.0", "id": id, "result": {"tools": []}
                            });
                            ([("content-type", "application/json")], reply.to_string())
                                .into_response()
                        }
                        "/mcp" => (
                            axum::http::StatusCode::UNAUTHORIZED,
                            [(
                                "www-authenticate",
                                format!(
                                    "Bearer resource_metadata=\"{origin}/.well-known/oauth-protected-resource/mcp\""
                                ),
                            )],
                            "",
                        )
                            .into_response(),
                        "/.well-known/oauth-protected-resource/mcp" => {
                            render(&script.resource, sound_resource(&origin), 200)
                        }
                        "/.well-known/oauth-authorization-server" => {
                            render(&script.server, sound_server(&origin), 200)
                        }
                        "/register" => render(
                            &script.register,
                            serde_json::json!({
                                "client_id": "the-client",
                                "redirect_uris": ["http://127.0.0.1:9/callback"],
                            }),
                            201,
                        ),
                        "/token" => render(
                            &script.token,
                            serde_json::json!({
                                "access_token": "the-token",
                                "token_type": "Bearer",
                                "expires_in": 3600,
                            }),
                            200,
                        ),
                        _ => axum::http::StatusCode::NOT_FOUND.into_response(),
                    }
                }
            })
        };
        let server = tokio::spawn(async move { axum::serve(listener, app).await });
        let asked = Arc::new(std::sync::Mutex::new(Vec::new()));
        let browser = Browser {
            redirect: script.redirect.clone(),
            issuer: origin.clone(),
            asked: asked.clone(),
        };
        let client = Client::http(format!("{origin}/mcp"))
            .era(oxmcp::client::Era::Stateless)
            .oauth(OAuth::authorization_code(browser));
        let listed =
            match tokio::time::timeout(std::time::Duration::from_secs(10), client.list_tools())
                .await
            {
                Ok(Ok(listed)) => Ok(listed.tools.len()),
                Ok(Err(e)) => Err(e),
                Err(_) => Err(ClientError::protocol("the login did not end")),
            };
        server.abort();
        let seen = seen.lock().unwrap().clone();
        let asked = asked.lock().unwrap().clone();
        (listed, seen, asked, origin)
    })
}

/// `default` cases, or `PROPTEST_CASES` for a longer run.
fn cases(default: u32) -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(default)
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(cases(96)))]

    /// A login against endpoints that answer anything. Whatever they say, the call ends; the
    /// user is sent to authorize only by metadata that is for this server, from its own
    /// issuer, with PKCE S256, and then with the challenge, the method and the resource; the
    /// code goes only to the token endpoint, with its verifier and the resource, and only when
    /// the browser came back with the request's state and the issuer; the access token goes
    /// only to the MCP server; and when every endpoint answers soundly, the call succeeds.
    #[test]
    fn a_login_against_any_endpoints_ends_and_hands_nothing_to_the_wrong_place(
        resource in doc(),
        server in doc(),
        register in doc(),
        token in doc(),
        redirect in redirect(),
    ) {
        let script = Script { resource, server, register, token, redirect };
        let (listed, seen, asked, origin) = scripted_login(script.clone());
        let timed_out = matches!(&listed, Err(e @ ClientError::Protocol { .. }) if e.to_string().contains("did not end"));
        proptest::prop_assert!(!timed_out, "the login did not end");
        if script.sound() {
            proptest::prop_assert_eq!(listed.as_ref().ok(), Some(&0), "a sound login failed: {:?}", listed);
        }
        // Resource metadata lets the login go on only when it is for this server and names an
        // authorization server (its members, in order: authorization_servers, resource), or
        // when there is none (a 2025-03-26 server is its own authorization server).
        let resource_allows = match &script.resource {
            Doc::Sound | Doc::Status(_) => true,
            Doc::Changed(i, v) if member(&sound_resource(&origin), *i) == "resource" => {
                v.as_ref() == Some(&serde_json::json!(format!("{origin}/mcp")))
            }
            Doc::Changed(_, v) => v.is_some(),
            Doc::Json(_) | Doc::Bytes(_) => false,
        };
        if !asked.is_empty() {
            proptest::prop_assert!(
                resource_allows,
                "authorized after resource metadata {:?}", script.resource
            );
            let url = &asked[0];
            let query: std::collections::HashMap<String, String> =
                url.query_pairs().map(|(k, v)| (k.into_owned(), v.into_owned())).collect();
            proptest::prop_assert_eq!(query.get("code_challenge_method").map(String::as_str), Some("S256"));
            proptest::prop_assert!(query.get("code_challenge").is_some_and(|c| c.len() >= 43));
            proptest::prop_assert!(query.contains_key("state"));
            proptest::prop_assert!(
                query.get("resource").is_some_and(|r| r.starts_with(&origin)),
                "resource: {:?}", query.get("resource")
            );
        }
        for request in &seen {
            if request.authorization.contains("the-token") {
                proptest::prop_assert_eq!(&request.path, "/mcp", "the access token went elsewhere");
            }
            if request.body.contains("the-code") {
                proptest::prop_assert_eq!(&request.path, "/token", "the code went elsewhere");
                proptest::prop_assert!(
                    matches!(script.redirect, Redirect::Sound),
                    "the code was redeemed after a redirect that was not sound: {:?}", script.redirect
                );
                proptest::prop_assert!(request.body.contains("code_verifier="), "no verifier: {}", request.body);
                proptest::prop_assert!(request.body.contains("resource="), "no resource: {}", request.body);
            }
        }
        if let Doc::Changed(_, _) | Doc::Json(_) = &script.server {
            // Metadata whose issuer is not this server's, or that offers no S256, is never used.
            let issuer_is_ours = |doc: &Doc| match doc {
                Doc::Changed(i, v) => match member(&sound_server(&origin), *i).as_str() {
                    "issuer" => v.as_ref() == Some(&serde_json::json!(origin)),
                    "code_challenge_methods_supported" => v
                        .as_ref()
                        .and_then(|v| v.as_array())
                        .is_some_and(|a| a.contains(&serde_json::json!("S256"))),
                    _ => true,
                },
                _ => false,
            };
            if !issuer_is_ours(&script.server) {
                proptest::prop_assert!(asked.is_empty(), "authorized with metadata it must not use: {:?}", script.server);
            }
        }
    }
}

#[test]
fn an_authorization_server_off_this_host_must_be_https() {
    let sound = Script {
        resource: Doc::Sound,
        server: Doc::Sound,
        register: Doc::Sound,
        token: Doc::Sound,
        redirect: Redirect::Sound,
    };
    let index = |doc: serde_json::Value, name: &str| {
        (0..).find(|i| member(&doc, *i) == name).expect("a member")
    };
    let script = Script {
        resource: Doc::Changed(
            index(sound_resource(""), "authorization_servers"),
            Some(serde_json::json!(["http://as.example"])),
        ),
        ..sound.clone()
    };
    let (listed, seen, asked, _) = scripted_login(script);
    assert!(
        matches!(&listed, Err(e @ ClientError::Login { .. }) if e.to_string().contains("not HTTPS")),
        "{listed:?}"
    );
    assert!(asked.is_empty() && !seen.iter().any(|r| r.path == "/register"));
    for (name, at) in [
        ("authorization_endpoint", "http://as.example/authorize"),
        ("registration_endpoint", "http://as.example/register"),
        ("token_endpoint", "http://as.example/token"),
    ] {
        let script = Script {
            server: Doc::Changed(index(sound_server(""), name), Some(serde_json::json!(at))),
            ..sound.clone()
        };
        let (listed, _, asked, _) = scripted_login(script);
        assert!(
            matches!(&listed, Err(e @ ClientError::Login { .. }) if e.to_string().contains("not HTTPS") && e.to_string().contains(at)),
            "{at}: {listed:?}"
        );
        assert!(asked.is_empty(), "{at}: the user was asked to authorize");
    }
    // On a loopback host plain HTTP is allowed, as the sound login shows.
    assert_eq!(scripted_login(sound).0.ok(), Some(0));
}

/// What one fake authorization server saw at its token endpoint: each request's form body and
/// `Authorization` header.
type TokenRequests = Arc<std::sync::Mutex<Vec<String>>>;

/// A fake authorization server at its own origin: metadata, an authorization endpoint that
/// approves at once, and a token endpoint that records what it is sent and issues `token`.
async fn authorization_server(token: &'static str) -> (String, TokenRequests) {
    use axum::extract::State;
    use axum::http::HeaderMap;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let issuer = format!("http://{}", listener.local_addr().unwrap());
    let seen: TokenRequests = Arc::default();
    let metadata = serde_json::json!({
        "issuer": issuer,
        "authorization_endpoint": format!("{issuer}/authorize"),
        "token_endpoint": format!("{issuer}/token"),
        "code_challenge_methods_supported": ["S256"],
        "token_endpoint_auth_methods_supported": ["client_secret_post", "private_key_jwt"],
    })
    .to_string();
    let app = axum::Router::new()
        .route(
            "/.well-known/oauth-authorization-server",
            axum::routing::get(move || async move {
                ([("content-type", "application/json")], metadata.clone())
            }),
        )
        .route(
            "/authorize",
            axum::routing::get(|uri: axum::http::Uri| async move {
                let asked = oxmcp::client::oauth::Url::parse(&format!("http://as{uri}")).unwrap();
                let q: std::collections::HashMap<String, String> =
                    asked.query_pairs().into_owned().collect();
                let back = format!(
                    "{}?code=c1&state={}",
                    q.get("redirect_uri").cloned().unwrap_or_default(),
                    q.get("state").cloned().unwrap_or_default()
                );
                (axum::http::StatusCode::FOUND, [("location", back)])
            }),
        )
        .route(
            "/token",
            axum::routing::post(
                move |State(seen): State<TokenRequests>, headers: HeaderMap, body: String| async move {
                    let auth = headers
                        .get("authorization")
                        .and_then(|v| v.to_str().ok())
                        .unwrap_or("");
                    seen.lock().unwrap().push(format!("{body} {auth}"));
                    let answer = serde_json::json!({"access_token": token,
                        "token_type": "Bearer", "expires_in": 3600});
                    ([("content-type", "application/json")], answer.to_string())
                },
            ),
        )
        .with_state(seen.clone());
    tokio::spawn(async move { axum::serve(listener, app).await });
    (issuer, seen)
}

/// A protected MCP server whose resource metadata names `issuers[at]`: it serves a request
/// whose token that issuer issued (`tok-<at>`), and answers any other with 401.
async fn protected_resource(
    issuers: Vec<String>,
    at: Arc<AtomicUsize>,
) -> (String, Arc<AtomicUsize>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let origin = format!("http://{}", listener.local_addr().unwrap());
    let url = format!("{origin}/mcp");
    let metadata_url = format!("{origin}/.well-known/oauth-protected-resource/mcp");
    let fetched = Arc::new(AtomicUsize::new(0));
    let (at2, fetched2, url2) = (at.clone(), fetched.clone(), url.clone());
    let app = axum::Router::new()
        .route(
            "/mcp",
            axum::routing::post(move |headers: axum::http::HeaderMap, body: String| {
                let at = at.load(Ordering::SeqCst);
                let challenge = format!("Bearer resource_metadata=\"{metadata_url}\"");
                async move {
                    let sent = headers
                        .get("authorization")
                        .and_then(|v| v.to_str().ok())
                        .unwrap_or("");
                    if sent != format!("Bearer tok-{at}") {
                        return axum::response::IntoResponse::into_response((
                            axum::http::StatusCode::UNAUTHORIZED,
                            [("www-authenticate", challenge)],
                            "",
                        ));
                    }
                    let request: serde_json::Value = serde_json::from_str(&body).unwrap();
                    let reply = serde_json::json!({"jsonrpc": "2.0", "id": request["id"],
                        "result": {"resultType": "complete", "tools": []}});
                    axum::response::IntoResponse::into_response((
                        [("content-type", "application/json")],
                        reply.to_string(),
                    ))
                }
            }),
        )
        .route(
            "/.well-known/oauth-protected-resource/mcp",
            axum::routing::get(move || {
                fetched2.fetch_add(1, Ordering::SeqCst);
                let body = serde_json::json!({"resource": url2,
                    "authorization_servers": [issuers[at2.load(Ordering::SeqCst)]]});
                async move { ([("content-type", "application/json")], body.to_string()) }
            }),
        );
    tokio::spawn(async move { axum::serve(listener, app).await });
    (url, fetched)
}

#[tokio::test]
async fn configured_credentials_never_reach_an_authorization_server_the_resource_later_names() {
    const EC_KEY: &str = include_str!("../keys/ec.pem");
    // Every grant whose credentials the host configured: a secret, a signing key's assertion,
    // a workload's identity token, a user's ID token through an identity provider, and a
    // pre-registered client's secret in the authorization code grant.
    type Login = Box<dyn Fn(&str) -> OAuth>;
    let logins: Vec<(&str, Login)> = vec![
        (
            "client credentials",
            Box::new(|_| OAuth::client_credentials("svc", "s3cret-cc")),
        ),
        (
            "client credentials, private_key_jwt",
            Box::new(|_| OAuth::client_credentials_jwt("svc", EC_KEY, "ES256").unwrap()),
        ),
        (
            "workload identity",
            Box::new(|_| {
                OAuth::workload_identity("svc", || {
                    Box::pin(async { Ok("workload-assertion".to_string()) })
                })
            }),
        ),
        (
            "enterprise",
            Box::new(|idp: &str| {
                let idp = oxmcp::client::oauth::Enterprise::new(
                    format!("{idp}/token"),
                    "idp-client",
                    Arc::new(|| Box::pin(async { Ok("user-id-token".to_string()) })),
                )
                .idp_client_secret("s3cret-idp");
                OAuth::enterprise(idp, "svc", Some("s3cret-ent"))
            }),
        ),
        (
            "authorization code, pre-registered",
            Box::new(|_| {
                OAuth::authorization_code(oxmcp::client::oauth::AutoApprove::new(
                    "http://127.0.0.1:9/callback",
                ))
                .pre_registered("app", Some("s3cret-app"))
            }),
        ),
    ];
    for (grant, login) in logins {
        let (first, first_seen) = authorization_server("tok-0").await;
        let (second, second_seen) = authorization_server("tok-1").await;
        let (idp, _) = authorization_server("id-jag").await;
        let at = Arc::new(AtomicUsize::new(0));
        let (url, _) = protected_resource(vec![first.clone(), second.clone()], at.clone()).await;
        let client = Client::http(&url)
            .era(oxmcp::client::Era::Stateless)
            .oauth(login(&idp));
        client
            .list_tools()
            .await
            .unwrap_or_else(|e| panic!("{grant}: {e}"));
        assert!(!first_seen.lock().unwrap().is_empty(), "{grant}");
        // The resource now names another authorization server, and refuses the token held.
        at.store(1, Ordering::SeqCst);
        let refused = client.list_tools().await;
        match &refused {
            Err(ClientError::IssuerMismatch { bound, named }) => {
                assert_eq!((bound, named), (&first, &second), "{grant}");
                let text = refused.as_ref().unwrap_err().to_string();
                assert!(text.contains(&first) && text.contains(&second), "{text}");
            }
            other => panic!("{grant}: {other:?}"),
        }
        assert!(
            second_seen.lock().unwrap().is_empty(),
            "{grant}: the other authorization server was sent {:?}",
            second_seen.lock().unwrap()
        );
    }
}

#[tokio::test]
async fn a_client_bound_to_its_issuer_by_configuration_refuses_any_other_from_the_start() {
    let (first, _) = authorization_server("tok-0").await;
    let (second, second_seen) = authorization_server("tok-1").await;
    let (url, _) = protected_resource(vec![second.clone()], Arc::default()).await;
    let client = Client::http(&url)
        .era(oxmcp::client::Era::Stateless)
        .oauth(OAuth::client_credentials("svc", "s3cret").issuer(&first));
    let refused = client.list_tools().await;
    assert!(
        matches!(&refused, Err(ClientError::IssuerMismatch { bound, named }) if *bound == first && *named == second),
        "{refused:?}"
    );
    assert!(second_seen.lock().unwrap().is_empty());
}

#[tokio::test]
async fn a_dynamically_registered_client_may_follow_a_resource_to_another_server() {
    // Nothing the host configured is at stake: the code grant without pre-registered
    // credentials registers wherever the resource sends it (here the servers take the
    // client's metadata document as its id).
    let (first, _) = authorization_server("tok-0").await;
    let (second, second_seen) = authorization_server("tok-1").await;
    let at = Arc::new(AtomicUsize::new(0));
    let (url, _) = protected_resource(vec![first, second], at.clone()).await;
    let login = OAuth::authorization_code(oxmcp::client::oauth::AutoApprove::new(
        "http://127.0.0.1:9/callback",
    ))
    .pre_registered("public-app", None);
    // A pre-registered id without a secret is still configured: bound.
    let client = Client::http(&url)
        .era(oxmcp::client::Era::Stateless)
        .oauth(login);
    client.list_tools().await.unwrap();
    at.store(1, Ordering::SeqCst);
    assert!(matches!(
        client.list_tools().await,
        Err(ClientError::IssuerMismatch { .. })
    ));
    assert!(second_seen.lock().unwrap().is_empty());
}

#[tokio::test]
async fn resource_metadata_named_off_the_servers_origin_is_never_fetched() {
    let elsewhere = Arc::new(AtomicUsize::new(0));
    let counter = elsewhere.clone();
    let other = serve(axum::Router::new().route(
        "/prm",
        axum::routing::get(move || {
            counter.fetch_add(1, Ordering::SeqCst);
            async { "{}" }
        }),
    ))
    .await;
    for named in [format!("{other}/prm"), "ftp://127.0.0.1/prm".to_string()] {
        let challenge = format!("Bearer resource_metadata=\"{named}\"");
        let app = axum::Router::new().route(
            "/mcp",
            axum::routing::post(move || {
                let challenge = challenge.clone();
                async move {
                    (
                        axum::http::StatusCode::UNAUTHORIZED,
                        [("www-authenticate", challenge)],
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
        assert!(client.list_tools().await.is_err());
    }
    assert_eq!(
        elsewhere.load(Ordering::SeqCst),
        0,
        "fetched off the origin"
    );
}

#[tokio::test]
async fn metadata_for_a_parent_of_the_server_stops_the_login() {
    for parent in ["", "/", "/api"] {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let origin = format!("http://{}", listener.local_addr().unwrap());
        let resource = format!("{origin}{parent}");
        let app = axum::Router::new()
            .route(
                "/api/mcp",
                axum::routing::post(|| async {
                    (
                        axum::http::StatusCode::UNAUTHORIZED,
                        [("www-authenticate", "Bearer scope=\"a\"")],
                        "",
                    )
                }),
            )
            .route(
                "/.well-known/oauth-protected-resource/api/mcp",
                axum::routing::get(move || {
                    let body = serde_json::json!({"resource": resource,
                        "authorization_servers": ["https://as.example"]});
                    async move { ([("content-type", "application/json")], body.to_string()) }
                }),
            );
        tokio::spawn(async move { axum::serve(listener, app).await });
        let asked = Arc::new(AtomicUsize::new(0));
        let client = Client::http(format!("{origin}/api/mcp"))
            .era(oxmcp::client::Era::Stateless)
            .oauth(OAuth::authorization_code(Counting(asked.clone())));
        let refused = client.list_tools().await;
        assert!(
            matches!(&refused, Err(e @ ClientError::Login { .. }) if e.to_string().contains("metadata is for")),
            "{parent:?}: {refused:?}"
        );
        assert_eq!(asked.load(Ordering::SeqCst), 0);
    }
}
