use super::*;

#[cfg(unix)]
#[test]
fn the_file_store_never_writes_through_a_planted_link_and_keeps_its_file_private() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("tokens.json");
    let stolen = dir.path().join("stolen");
    std::fs::write(&stolen, "").unwrap();
    // Links at every name a writer might use beside the file: the old fixed one included.
    for name in ["tokens.tmp", "tokens.json.tmp", ".tokens.json.tmp"] {
        std::os::unix::fs::symlink(&stolen, dir.path().join(name)).unwrap();
    }
    let store = FileStore::new(&path);
    let mut credentials = Credentials::empty();
    credentials.client_secret = Some("s3cret".into());
    credentials.access_token = "tok".into();
    store.save("https://mcp.example/mcp", &credentials).unwrap();
    store
        .save("https://other.example/mcp", &credentials)
        .unwrap();
    assert_eq!(
        std::fs::read_to_string(&stolen).unwrap(),
        "",
        "written through a link"
    );
    let mode = std::fs::metadata(&path).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600, "{mode:o}");
    assert_eq!(store.load("https://mcp.example/mcp"), Some(credentials));
    // Nothing of the writes is left beside the file but the planted links.
    let mut left: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    left.sort();
    assert_eq!(
        left,
        [
            ".tokens.json.tmp",
            "stolen",
            "tokens.json",
            "tokens.json.tmp",
            "tokens.tmp"
        ]
    );
}

#[test]
fn a_bearer_challenge_is_read_among_others() {
    let c = Challenge::parse(Some(
        r#"Basic realm="x", Bearer error="insufficient_scope", scope="a b", resource_metadata="https://h/.well-known/oauth-protected-resource/mcp""#,
    ));
    assert_eq!(c.error.as_deref(), Some("insufficient_scope"));
    assert_eq!(c.scope.as_deref(), Some("a b"));
    assert_eq!(
        c.resource_metadata.as_deref(),
        Some("https://h/.well-known/oauth-protected-resource/mcp")
    );
    assert!(Challenge::parse(Some("Basic realm=\"x\"")).scope.is_none());
    assert!(Challenge::parse(Some("Bearer scope=\"unterminated"))
        .scope
        .is_none());
}

#[test]
fn a_resource_is_the_identifier_its_metadata_was_found_by_never_a_parent() {
    let server = Url::parse("https://h.example/api/mcp").unwrap();
    let origin = Url::parse("https://h.example").unwrap();
    let by_server = [server.clone()];
    assert!(resource_matches("https://h.example/api/mcp", &by_server));
    assert!(resource_matches(
        "HTTPS://H.example:443/api/mcp",
        &by_server
    ));
    for parent_or_other in [
        "https://h.example/api/mcp/",
        "https://h.example/",
        "https://h.example",
        "https://h.example/api",
        "https://h.example/ap",
        "https://other.example/api/mcp",
        "http://h.example/api/mcp",
        "https://h.example/api/mcp/x",
        "https://h.example/api/mcp#f",
        "not a url",
    ] {
        assert!(
            !resource_matches(parent_or_other, &by_server),
            "{parent_or_other}"
        );
    }
    // Metadata at the root well-known URI is the origin's (or names the server itself).
    let by_root = [server, origin];
    assert!(resource_matches("https://h.example", &by_root));
    assert!(resource_matches("https://h.example/", &by_root));
    assert!(resource_matches("https://h.example/api/mcp", &by_root));
    assert!(!resource_matches("https://h.example/api", &by_root));
}

#[test]
fn metadata_is_looked_for_where_its_issuer_says() {
    let at = |i: &str| {
        metadata_urls(&Url::parse(i).unwrap())
            .into_iter()
            .map(|u| u.path().to_string())
            .collect::<Vec<_>>()
    };
    assert_eq!(
        at("https://as.example"),
        [
            "/.well-known/oauth-authorization-server",
            "/.well-known/openid-configuration"
        ]
    );
    assert_eq!(
        at("https://as.example/tenant1"),
        [
            "/.well-known/oauth-authorization-server/tenant1",
            "/.well-known/openid-configuration/tenant1",
            "/tenant1/.well-known/openid-configuration"
        ]
    );
}

fn server(issuer: Option<&str>, iss_parameter: bool) -> AuthServer {
    AuthServer {
        issuer: issuer.map(str::to_string),
        authorization_endpoint: String::new(),
        token_endpoint: "https://as.example/token".into(),
        registration_endpoint: None,
        scopes_supported: None,
        auth_methods: None,
        metadata_documents: false,
        iss_parameter,
        dpop: false,
        pkce_s256: true,
    }
}

#[test]
fn the_redirect_is_checked_before_its_code_is_used() {
    let back = |q: &str| Url::parse(&format!("http://127.0.0.1/cb?{q}")).unwrap();
    let s = server(Some("https://as.example"), true);
    let ok = Authorizer::code_from(
        &back("code=c&state=s&iss=https%3A%2F%2Fas.example"),
        "s",
        &s,
    );
    assert_eq!(ok.unwrap(), "c");
    // The wrong state, a missing or different iss, an iss not compared loosely, an error.
    for q in [
        "code=c&state=t&iss=https%3A%2F%2Fas.example",
        "code=c&state=s",
        "code=c&state=s&iss=https%3A%2F%2Fevil.example",
        "code=c&state=s&iss=https%3A%2F%2Fas.example%2F",
        "error=access_denied&state=s",
    ] {
        assert!(
            matches!(
                Authorizer::code_from(&back(q), "s", &s),
                Err(ClientError::Login {
                    step: crate::client::LoginStep::Authorization,
                    ..
                })
            ),
            "{q}"
        );
    }
    // Not promised: absent is fine, present must still match.
    let quiet = server(Some("https://as.example"), false);
    assert!(Authorizer::code_from(&back("code=c&state=s"), "s", &quiet).is_ok());
    assert!(Authorizer::code_from(
        &back("code=c&state=s&iss=https%3A%2F%2Fevil.example"),
        "s",
        &quiet
    )
    .is_err());
}

#[test]
fn the_token_endpoint_authentication_follows_the_server() {
    let mut s = server(None, false);
    assert_eq!(Authorizer::auth_method(&s, true), "client_secret_basic");
    s.auth_methods = Some(vec!["client_secret_post".into()]);
    assert_eq!(Authorizer::auth_method(&s, true), "client_secret_post");
    assert_eq!(Authorizer::auth_method(&s, false), "none");
}

#[test]
fn a_file_store_keeps_credentials_across_instances() {
    let dir = std::env::temp_dir().join(format!("oxmcp-oauth-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("tokens.json");
    let c = Credentials {
        issuer: "https://as.example".into(),
        token_endpoint: "https://as.example/token".into(),
        resource: "https://h.example/mcp".into(),
        client_id: "id".into(),
        client_secret: None,
        auth_method: "none".into(),
        scope: "a".into(),
        access_token: "t".into(),
        token_type: "Bearer".into(),
        dpop_key: None,
        refresh_token: Some("r".into()),
        expires_at: Some(1),
    };
    FileStore::new(&path)
        .save("https://h.example/mcp", &c)
        .unwrap();
    assert_eq!(FileStore::new(&path).load("https://h.example/mcp"), Some(c));
    assert_eq!(
        FileStore::new(&path).load("https://other.example/mcp"),
        None
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o077, 0, "readable by its owner only");
    }
    let _ = std::fs::remove_dir_all(dir);
}
