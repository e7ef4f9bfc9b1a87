//! `ServerBuilder::request_state_keys_from_env`: the ring from `MCP_STATE_KEYS` when set, a random key
//! when not, and a build error naming the variable when it is malformed. One test in its own
//! binary, since it changes the process's environment.

use oxmcp::{
    request_state::{KeyRing, KEY_RING_ENV},
    BuildError, Server,
};

#[test]
fn keys_come_from_the_environment_when_set() {
    std::env::remove_var(KEY_RING_ENV);
    assert!(KeyRing::from_env().unwrap().is_none());
    assert!(Server::builder()
        .request_state_keys_from_env()
        .build()
        .is_ok());

    std::env::set_var(KEY_RING_ENV, format!("1:{}", "ab".repeat(32)));
    assert!(KeyRing::from_env().unwrap().is_some());
    assert!(Server::builder()
        .request_state_keys_from_env()
        .build()
        .is_ok());

    std::env::set_var(KEY_RING_ENV, "1:nothex");
    let err = match Server::builder().request_state_keys_from_env().build() {
        Err(e @ BuildError::Keys(_)) => e.to_string(),
        Err(e) => panic!("unexpected error {e}"),
        Ok(_) => panic!("a malformed ring was accepted"),
    };
    assert!(err.contains("MCP_STATE_KEYS"), "{err}");
    // Keys given in code take precedence over the environment.
    let keys = KeyRing::parse(&format!("2:{}", "cd".repeat(32))).unwrap();
    assert!(Server::builder()
        .request_state_keys(keys)
        .request_state_keys_from_env()
        .build()
        .is_ok());
    std::env::remove_var(KEY_RING_ENV);
}
