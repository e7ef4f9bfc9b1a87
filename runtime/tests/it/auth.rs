//! Bearer authentication over HTTP with tokens signed here (RS256 and ES256 keys of
//! `tests/keys`, whose public halves are in `tests/keys/jwks.json`): the handler sees the subject
//! of a valid token; every kind of bad token gets 401 with the challenge; a missing scope gets
//! 403; a `requestState` issued to one subject does not open for another.

use crate::common;

use common::first_key;
use jsonwebtoken::{encode, Algorithm, EncodingKey, Header};
use mcp_tests::support::{get, post};
use oxmcp::auth::{AuthConfig, JwksFile, JwtVerifier};
use oxmcp::http::{serve_listener, HttpConfig};
use oxmcp::{request_state::KeyRing, Server};
use serde_json::{json, Value};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

const ISSUER: &str = "https://auth.example.com";

fn keys_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join("keys")
}

fn key_file(name: &str) -> Vec<u8> {
    std::fs::read(keys_dir().join(name)).expect("a test key")
}

fn now() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64)
}

/// A server with the fixture tools, authenticating with the test JWKS, for `audience`.
async fn start(audience_of: impl FnOnce(&str) -> String) -> (String, String) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let audience = audience_of(&url);
    let verifier = JwtVerifier::new(
        JwksFile(keys_dir().join("jwks.json")),
        ISSUER,
        audience.clone(),
    );
    let server = mcp_tests::conformance::server(Server::builder())
        .request_state_keys(KeyRing::parse(&format!("1:{}", "cd".repeat(32))).unwrap())
        .build()
        .unwrap();
    let config = HttpConfig::default().auth(Some(
        AuthConfig::new(verifier, audience.clone())
            .authorization_server(ISSUER)
            .scopes_supported(["admin"]),
    ));
    tokio::spawn(serve_listener(
        Arc::new(server),
        listener,
        config,
        std::future::pending(),
    ));
    (url, audience)
}

struct Token {
    alg: Algorithm,
    kid: Option<&'static str>,
    key: EncodingKey,
    claims: Value,
}

impl Token {
    fn rsa(claims: Value) -> Token {
        Token {
            alg: Algorithm::RS256,
            kid: Some("rsa-1"),
            key: EncodingKey::from_rsa_pem(&key_file("rsa.pem")).unwrap(),
            claims,
        }
    }

    fn ec(claims: Value) -> Token {
        Token {
            alg: Algorithm::ES256,
            kid: Some("ec-1"),
            key: EncodingKey::from_ec_pem(&key_file("ec.pem")).unwrap(),
            claims,
        }
    }

    fn sign(&self) -> String {
        let mut header = Header::new(self.alg);
        header.kid = self.kid.map(str::to_string);
        encode(&header, &self.claims, &self.key).unwrap()
    }
}

fn claims(sub: &str, audience: &str) -> Value {
    json!({"sub": sub, "iss": ISSUER, "aud": audience, "exp": now() + 300, "iat": now()})
}

fn meta() -> Value {
    json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
           "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}})
}

/// Call `tool` with an optional bearer token: status, headers, body.
async fn call(
    url: &str,
    tool: &str,
    token: Option<&str>,
    extra: Value,
) -> (u16, Vec<(String, String)>, Value) {
    let mut params = json!({"name": tool, "arguments": {}, "_meta": meta()});
    if let (Value::Object(p), Value::Object(e)) = (&mut params, extra) {
        p.extend(e);
    }
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params});
    let bearer = token.map(|t| format!("Bearer {t}"));
    let mut headers = vec![
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", "tools/call"),
        ("mcp-name", tool),
    ];
    if let Some(b) = &bearer {
        headers.push(("authorization", b.as_str()));
    }
    post(url, body.to_string().into_bytes(), &headers).await
}

fn header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers
        .iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.as_str())
}

fn text(body: &Value) -> &str {
    body["result"]["content"][0]["text"].as_str().unwrap_or("")
}

#[tokio::test]
async fn valid_rs256_and_es256_tokens_reach_the_handler_as_the_principal() {
    let (url, aud) = start(|u| u.to_string()).await;
    for token in [
        Token::rsa(claims("alice", &aud)),
        Token::ec(claims("bob", &aud)),
    ] {
        let (status, _, body) = call(&url, "test_whoami", Some(&token.sign()), json!({})).await;
        assert_eq!(status, 200, "{body}");
        let who = token.claims["sub"].as_str().unwrap();
        assert_eq!(text(&body), who);
    }
}

#[tokio::test]
async fn bad_tokens_get_401_with_the_challenge() {
    let (url, aud) = start(|u| u.to_string()).await;
    let good = claims("alice", &aud);
    let with = |f: &dyn Fn(&mut Value)| {
        let mut c = good.clone();
        f(&mut c);
        c
    };
    let mut cases: Vec<(&str, Option<String>)> = vec![
        ("missing", None),
        (
            "expired",
            Some(Token::rsa(with(&|c| c["exp"] = json!(now() - 600))).sign()),
        ),
        (
            "not yet valid",
            Some(Token::rsa(with(&|c| c["nbf"] = json!(now() + 600))).sign()),
        ),
        (
            "wrong issuer",
            Some(Token::rsa(with(&|c| c["iss"] = json!("https://evil.example"))).sign()),
        ),
        (
            "wrong audience",
            Some(Token::rsa(with(&|c| c["aud"] = json!("https://other.example/mcp"))).sign()),
        ),
        (
            "no subject",
            Some(
                Token::rsa(with(&|c| {
                    c.as_object_mut().unwrap().remove("sub");
                }))
                .sign(),
            ),
        ),
        (
            "bad signature",
            Some(
                Token {
                    key: EncodingKey::from_rsa_pem(&key_file("other-rsa.pem")).unwrap(),
                    ..Token::rsa(good.clone())
                }
                .sign(),
            ),
        ),
        (
            "unknown kid",
            Some(
                Token {
                    kid: Some("nope"),
                    ..Token::rsa(good.clone())
                }
                .sign(),
            ),
        ),
        (
            "HMAC signed with the public key",
            Some(
                Token {
                    alg: Algorithm::HS256,
                    kid: Some("rsa-1"),
                    key: EncodingKey::from_secret(&key_file("rsa.pub.pem")).unwrap(),
                    claims: good.clone(),
                }
                .sign(),
            ),
        ),
        ("garbage", Some("not.a.token".to_string())),
    ];
    // `alg: none`, which no library signs: built by hand.
    let b64 = |v: &Value| base64_simd::URL_SAFE_NO_PAD.encode_to_string(v.to_string());
    let none = format!(
        "{}.{}.",
        b64(&json!({"alg": "none", "kid": "rsa-1"})),
        b64(&good)
    );
    cases.push(("alg none", Some(none)));

    for (case, token) in cases {
        let (status, headers, _) = call(&url, "test_whoami", token.as_deref(), json!({})).await;
        assert_eq!(status, 401, "{case}");
        let challenge = header(&headers, "www-authenticate")
            .unwrap_or_else(|| panic!("{case}: no WWW-Authenticate"));
        assert!(challenge.starts_with("Bearer "), "{case}: {challenge}");
        let metadata = url.replace("/mcp", "/.well-known/oauth-protected-resource/mcp");
        assert!(
            challenge.contains(&format!("resource_metadata=\"{metadata}\"")),
            "{case}: {challenge}"
        );
        assert!(challenge.contains("scope=\"admin\""), "{case}: {challenge}");
        if token.is_some() {
            assert!(
                challenge.contains("error=\"invalid_token\""),
                "{case}: {challenge}"
            );
        }
    }
}

#[tokio::test]
async fn the_protected_resource_metadata_is_served_at_the_well_known_uri() {
    let (url, aud) = start(|u| u.to_string()).await;
    let (status, doc) =
        get(&url.replace("/mcp", "/.well-known/oauth-protected-resource/mcp")).await;
    assert_eq!(status, 200);
    assert_eq!(
        doc,
        json!({"resource": aud, "authorization_servers": [ISSUER],
               "scopes_supported": ["admin"], "bearer_methods_supported": ["header"]})
    );
}

#[tokio::test]
async fn a_tool_that_needs_a_scope_gets_403_without_it() {
    let (url, aud) = start(|u| u.to_string()).await;
    let plain = Token::rsa(claims("alice", &aud)).sign();
    let (status, headers, _) = call(&url, "test_admin_only", Some(&plain), json!({})).await;
    assert_eq!(status, 403);
    let challenge = header(&headers, "www-authenticate").unwrap();
    assert!(
        challenge.contains("error=\"insufficient_scope\""),
        "{challenge}"
    );
    assert!(challenge.contains("scope=\"admin\""), "{challenge}");

    let mut c = claims("root", &aud);
    c["scope"] = json!("read admin");
    let admin = Token::ec(c).sign();
    let (status, _, body) = call(&url, "test_admin_only", Some(&admin), json!({})).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(text(&body), "admin: root");
}

#[tokio::test]
async fn a_request_state_issued_to_one_subject_is_refused_for_another() {
    let (url, aud) = start(|u| u.to_string()).await;
    let alice = Token::rsa(claims("alice", &aud)).sign();
    let bob = Token::rsa(claims("bob", &aud)).sign();
    let (status, _, first) = call(&url, "test_whoami_confirm", Some(&alice), json!({})).await;
    assert_eq!(status, 200, "{first}");
    let result = &first["result"];
    let key = first_key(result);
    let retry = json!({
        "requestState": result["requestState"],
        "inputResponses": { key: {"action": "accept", "content": {"confirm": true}} }
    });
    let (status, _, refused) = call(&url, "test_whoami_confirm", Some(&bob), retry.clone()).await;
    assert_eq!(status, 400, "{refused}");
    assert_eq!(refused["error"]["code"], -32602);
    assert_eq!(refused["error"]["message"], "invalid requestState");
    let (status, _, done) = call(&url, "test_whoami_confirm", Some(&alice), retry).await;
    assert_eq!(status, 200, "{done}");
    assert_eq!(text(&done), "alice");
}

/// Keys fetched from a JWKS URL: once for the first token, not again for a known `kid`, and for
/// an unknown `kid` only when the last fetch is older than the refresh interval.
#[tokio::test]
async fn a_jwks_url_is_fetched_once_and_refreshed_at_most_every_interval() {
    use oxmcp::auth::JwksUrl;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::Duration;

    let fetches = Arc::new(AtomicUsize::new(0));
    let jwks = String::from_utf8(key_file("jwks.json")).unwrap();
    let counter = fetches.clone();
    let app = axum::Router::new().route(
        "/jwks.json",
        axum::routing::get(move || {
            counter.fetch_add(1, Ordering::SeqCst);
            let body = jwks.clone();
            async move { body }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/jwks.json", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });

    let audience = "https://mcp.example.com/mcp";
    let verifier = JwtVerifier::new(JwksUrl::new(&url).unwrap(), ISSUER, audience)
        .min_refresh_interval(Duration::from_secs(3600));
    let alice = Token::rsa(claims("alice", audience)).sign();
    let bob = Token::ec(claims("bob", audience)).sign();
    assert_eq!(verifier.verify_jwt(&alice).await.unwrap().subject, "alice");
    assert_eq!(
        verifier.verify_jwt_uncached(&bob).await.unwrap().subject,
        "bob"
    );
    assert_eq!(
        fetches.load(Ordering::SeqCst),
        1,
        "known kids need no fetch"
    );
    let stranger = Token {
        kid: Some("rotated-in"),
        ..Token::rsa(claims("carol", audience))
    }
    .sign();
    assert!(verifier.verify_jwt(&stranger).await.is_err());
    assert_eq!(
        fetches.load(Ordering::SeqCst),
        1,
        "no refresh inside the interval"
    );

    let eager = JwtVerifier::new(JwksUrl::new(&url).unwrap(), ISSUER, audience)
        .min_refresh_interval(Duration::ZERO);
    assert!(eager.verify_jwt(&alice).await.is_ok());
    assert!(eager.verify_jwt(&stranger).await.is_err());
    assert_eq!(
        fetches.load(Ordering::SeqCst),
        3,
        "an unknown kid refreshes after the interval"
    );

    assert!(JwksUrl::new("ftp://example.com/jwks").is_err());
}
