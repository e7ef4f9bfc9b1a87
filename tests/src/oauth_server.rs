//! The standalone authorization server of the login tests (oauth2-mock-server under Node 22,
//! which `.ci/oauth-server.sh` installs into target/oauth-server), and a server of this project
//! protected by it: what this project's client and other SDKs' clients log in to.

use crate::support::ChildGuard;
use oxmcp::auth::{AuthConfig, JwksUrl, JwtVerifier};
use oxmcp::http::{serve_listener, HttpConfig};
use oxmcp::Server;
use std::io::BufRead;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The authorization server, and what it printed: one line per token it issued.
pub struct AuthorizationServer {
    _child: ChildGuard,
    /// Its issuer URL, as its metadata and tokens name it.
    pub issuer: String,
    grants: Arc<Mutex<Vec<String>>>,
}

impl AuthorizationServer {
    /// Start it with tokens that say they live `ttl` seconds.
    pub fn start(ttl: u64) -> Self {
        let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
        let dir = root.join("target/oauth-server/node_modules");
        let node = dir.join(".bin/node");
        let module = dir.join("oauth2-mock-server/dist/index.mjs");
        assert!(
            node.exists() && module.exists(),
            "the authorization server is needed: run .ci/oauth-server.sh (it installs Node 22 \
             and oauth2-mock-server from npm into target/oauth-server)"
        );
        let mut child = std::process::Command::new(node)
            .arg(root.join("tests/oauth-server/server.mjs"))
            .env("OAUTH2_MOCK_SERVER", &module)
            .env("OAUTH_TOKEN_TTL", ttl.to_string())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .expect("node starts");
        let mut lines = std::io::BufReader::new(child.stdout.take().expect("its output")).lines();
        let issuer = lines
            .next()
            .expect("the authorization server prints its issuer")
            .expect("a line");
        let grants = Arc::new(Mutex::new(Vec::new()));
        let seen = grants.clone();
        std::thread::spawn(move || {
            for line in lines.map_while(Result::ok) {
                seen.lock().unwrap().push(line);
            }
        });
        AuthorizationServer {
            _child: ChildGuard(child),
            issuer,
            grants,
        }
    }

    /// The token grants so far, as `grant <type> scope <scope>`; waits briefly for the
    /// output of a grant just made.
    pub fn grants(&self, at_least: usize) -> Vec<String> {
        for _ in 0..100 {
            let grants = self.grants.lock().unwrap().clone();
            if grants.len() >= at_least {
                return grants;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        self.grants.lock().unwrap().clone()
    }
}

/// Serve `server` at a fresh address behind bearer authentication by `issuer`, whose
/// resource metadata offers `scopes`; its URL.
pub async fn protected(server: Server, issuer: &str, scopes: &[&str]) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let jwks = JwksUrl::new(&format!("{issuer}/jwks")).unwrap();
    let verifier = JwtVerifier::new(jwks, issuer, url.clone());
    let config = HttpConfig::default().auth(Some(
        AuthConfig::new(verifier, url.clone())
            .authorization_server(issuer)
            .scopes_supported(scopes.iter().copied()),
    ));
    tokio::spawn(serve_listener(
        Arc::new(server),
        listener,
        config,
        std::future::pending(),
    ));
    url
}
