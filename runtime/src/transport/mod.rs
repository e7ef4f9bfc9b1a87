//! The top layer: transports that carry messages to the server core and its replies back.
//! Each has its own `serve_*` entry points and `Server` methods (`serve_http`, `into_router`,
//! `serve_stdio`); nothing below this layer knows about them.

#[cfg(feature = "auth")]
pub mod auth;
#[cfg(feature = "http")]
pub mod http;
#[cfg(feature = "stdio")]
pub mod stdio;
