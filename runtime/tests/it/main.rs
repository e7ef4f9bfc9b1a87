//! The runtime's integration tests, in one binary (each module was a test file of its own):
//! servers built in process and driven over their transports, the client against them, and the
//! adversarial, limit and security suites. The fuzzing suite (a process-wide panic hook), the
//! memory bound (the process's RSS) and the key ring from the environment (the process's
//! environment) keep binaries of their own.

mod arguments;
mod auth;
mod author;
mod catalog;
mod client_host;
mod client_oauth;
mod client_tasks;
mod common;
mod engine;
mod extract;
mod failover;
mod health;
mod layers;
mod limits;
mod mrtr;
mod panic;
mod security;
mod sessions;
mod skills;
mod state;
mod tasks;
mod transports;
mod validate;
