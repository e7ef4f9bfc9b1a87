//! The workspace-level integration tests, in one binary (each module was a test file of its own):
//! the fixture servers as binaries and in process, the spec's examples, strict parsing, typed
//! clients, a made-up protocol version, what the fixture exports over OpenTelemetry, and behind their features the tests that need a real
//! Redis, HAProxy, an authorization server or the official Python SDK.

mod conformance_fixtures;
mod fixture_binary;
mod fixtures;
mod front_door;
mod new_version;
#[cfg(feature = "oauth-server-tests")]
mod oauth_login;
#[cfg(feature = "otel")]
mod otel;
#[cfg(feature = "python-sdk-tests")]
mod python_sdk;
#[cfg(feature = "rollout-tests")]
mod rollout;
#[cfg(feature = "redis-tests")]
mod shared_tasks;
mod spec_examples;
mod strict_parsing;
mod typed_client;
mod typed_client_corpus;
mod typed_client_golden;
mod versions_and_golden;
