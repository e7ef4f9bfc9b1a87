//! The conformance fixture server: every tool, prompt and resource the official suite calls.
//! `conformance-server --port PORT` serves http://127.0.0.1:PORT/mcp; `--stdio` serves stdio.
//! `MCP_STATE_KEYS` (`id:hex,...`, oldest first) sets the `requestState` key ring.
//! `--auth-jwks PATH --auth-issuer ISS --auth-audience AUD` turn on bearer authentication over
//! HTTP: JWT access tokens signed by a key of the JWKS file, issued by ISS for AUD (the
//! endpoint's canonical URI, also the resource of the Protected Resource Metadata).

use mcp_runtime::{Server, StateKeys};
use std::sync::Arc;

#[tokio::main]
async fn main() -> std::process::ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut port = 3000u16;
    let mut stdio = false;
    let (mut jwks, mut issuer, mut audience) = (None, None, None);
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--stdio" => stdio = true,
            flag @ ("--auth-jwks" | "--auth-issuer" | "--auth-audience") => {
                let Some(value) = it.next().cloned() else {
                    eprintln!("{flag} needs a value");
                    return std::process::ExitCode::from(2);
                };
                match flag {
                    "--auth-jwks" => jwks = Some(value),
                    "--auth-issuer" => issuer = Some(value),
                    _ => audience = Some(value),
                }
            }
            "--port" => match it.next().and_then(|p| p.parse().ok()) {
                Some(p) => port = p,
                None => {
                    eprintln!("--port needs a number");
                    return std::process::ExitCode::from(2);
                }
            },
            other => {
                eprintln!(
                    "unknown argument {other}; usage: conformance-server [--port PORT | --stdio] [--auth-jwks PATH --auth-issuer ISS --auth-audience AUD]"
                );
                return std::process::ExitCode::from(2);
            }
        }
    }
    // MCP_STATE_KEYS="1:<64 hex>,2:<64 hex>" shares a key ring between instances.
    let keys = match std::env::var("MCP_STATE_KEYS") {
        Ok(text) => StateKeys::parse(&text),
        Err(_) => StateKeys::random(),
    };
    let keys = match keys {
        Ok(k) => k,
        Err(e) => {
            eprintln!("{e}");
            return std::process::ExitCode::FAILURE;
        }
    };
    let server = match mcp_tests::conformance::server(Server::builder())
        .state_keys(keys)
        .build()
    {
        Ok(s) => Arc::new(s),
        Err(e) => {
            eprintln!("{e}");
            return std::process::ExitCode::FAILURE;
        }
    };
    let mut config = mcp_runtime::http::HttpConfig::default();
    match (jwks, issuer, audience) {
        (None, None, None) => {}
        (Some(jwks), Some(issuer), Some(audience)) => {
            use mcp_runtime::auth::{AuthConfig, JwksFile, JwtVerifier};
            let verifier =
                JwtVerifier::new(JwksFile(jwks.into()), issuer.clone(), audience.clone());
            config.auth = Some(
                AuthConfig::new(verifier, audience)
                    .authorization_server(issuer)
                    .scopes_supported(["admin"]),
            );
        }
        _ => {
            eprintln!("--auth-jwks, --auth-issuer and --auth-audience go together");
            return std::process::ExitCode::from(2);
        }
    }
    let result = if stdio {
        mcp_runtime::stdio::serve(server).await
    } else {
        let addr = format!("127.0.0.1:{port}");
        eprintln!("conformance-server: http://{addr}/mcp");
        mcp_runtime::http::serve(server, &addr, config).await
    };
    match result {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("conformance-server: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}
