//! `ServerBuilder::state_keys_from_env`: the ring from `MCP_STATE_KEYS` when set, a random key
//! when not, and a build error naming the variable when it is malformed. One test in its own
//! binary, since it changes the process's environment.

use oxmcp::{
    state::{StateKeys, STATE_KEYS_ENV},
    BuildError, Server,
};

#[test]
fn keys_come_from_the_environment_when_set() {
    std::env::remove_var(STATE_KEYS_ENV);
    assert!(StateKeys::from_env().unwrap().is_none());
    assert!(Server::builder().state_keys_from_env().build().is_ok());

    std::env::set_var(STATE_KEYS_ENV, format!("1:{}", "ab".repeat(32)));
    assert!(StateKeys::from_env().unwrap().is_some());
    assert!(Server::builder().state_keys_from_env().build().is_ok());

    std::env::set_var(STATE_KEYS_ENV, "1:nothex");
    let err = match Server::builder().state_keys_from_env().build() {
        Err(e @ BuildError::Keys(_)) => e.to_string(),
        Err(e) => panic!("unexpected error {e}"),
        Ok(_) => panic!("a malformed ring was accepted"),
    };
    assert!(err.contains("MCP_STATE_KEYS"), "{err}");
    // Keys given in code take precedence over the environment.
    let keys = StateKeys::parse(&format!("2:{}", "cd".repeat(32))).unwrap();
    assert!(Server::builder()
        .state_keys(keys)
        .state_keys_from_env()
        .build()
        .is_ok());
    std::env::remove_var(STATE_KEYS_ENV);
}
