//! # Writing resumable handlers
//!
//! Under MCP 2026-07-28 a server never sends requests to the client. When a tool, prompt or
//! resource needs the user (elicitation), the client's model (sampling) or the client's roots,
//! it answers `input_required` with the questions and an opaque `requestState`; the client asks,
//! then retries the whole request with the answers. This crate hides that state machine: a
//! handler is a plain `async fn` that awaits its questions.
//!
//! ```no_run
//! use oxmcp::prelude::*;
//!
//! #[derive(ElicitForm)]
//! struct Contact {
//!     /// Who the table is for.
//!     name: String,
//!     #[elicit(format = "email")]
//!     email: String,
//!     seats_outside: Option<bool>,
//! }
//!
//! /// Book a table.
//! #[mcp_tool(annotations(destructive = false))]
//! async fn book_table(restaurant: String, party: u8) -> Result<String, ToolError> {
//!     let who = match elicit::<Contact>("Who is the booking for?").key("contact").await? {
//!         Elicited::Accept(c) => c,
//!         Elicited::Decline | Elicited::Cancel => return Ok("Booking cancelled.".into()),
//!     };
//!     // Both questions go to the client in one round.
//!     let (note, roots) = join!(
//!         sample(Sampling::user("Write a one-line greeting").max_tokens(50)),
//!         list_roots(),
//!     );
//!     let (note, _roots) = (note?, roots?);
//!     // A side effect: runs once, whatever happens in later rounds.
//!     let id = step("reserve", async { Ok::<_, ToolError>(format!("{restaurant}-{party}")) }).await?;
//!     Ok(format!("Booked {id} for {}: {}", who.name, note.text().unwrap_or("")))
//! }
//!
//! # async fn serve() {
//! let server = Server::builder().name("bistro").version("1.0.0").tool(book_table).build().unwrap();
//! let reply = server.handle_message(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#, None).await;
//! # let _ = reply;
//! # }
//! ```
//!
//! ## How a call runs
//!
//! Every round runs the handler **from the top**. Each ask (`elicit`, `elicit_url`, `sample`,
//! `list_roots`) looks for its answer, in order:
//!
//! 1. in the journal of earlier rounds, carried sealed inside `requestState`;
//! 2. in this request's `inputResponses`, under the ask's key (an answer that arrives without
//!    state is accepted too);
//! 3. otherwise the ask registers its input request, and the call suspends: the reply is an
//!    `InputRequiredResult` with every request registered so far (a `join!` of several asks is
//!    one round with several keys) and a new `requestState` holding the journal.
//!
//! An answer that is missing, malformed or of the wrong type (`user_name: 12345`) is asked again
//! rather than failing the call; unknown keys are ignored. Decline and cancel are values
//! ([`crate::Elicited::Decline`], [`crate::Elicited::Cancel`]), not errors.
//!
//! ## The replay contract
//!
//! - **Code before the last ask may run again.** Reading, computing and formatting are fine.
//! - **Side effects go in [`crate::step`]**: `step(name, fut)` runs `fut` once per call and
//!   records its `Ok` value in the journal; replays get the recorded value. An `Err` is not
//!   recorded, so a failed step is tried again on the next round. Step results must serialize.
//! - **Asks must be reached in the same order on every run** for the same answers. Branching on
//!   answers is fine (it is deterministic); branching on the clock or randomness before an ask
//!   is not, unless the value comes from a step.
//! - **Keys** default to the call site and the iteration (`elicit-3fa2b1c0`, `elicit-3fa2b1c0-1`
//!   in a loop), so they are stable across rounds and across instances running the same code.
//!   `.key("user_name")` sets one explicitly, e.g. when a client expects a name.
//! - Asks must be awaited inside the handler's own task: an ask in a spawned task fails with
//!   [`crate::AskError::OutsideHandler`].
//! - When a handler is pending on other work (say, a database call joined with an ask), the call
//!   suspends as soon as an ask is registered; that other work is redone on the next round.
//!
//! ## Capabilities
//!
//! An ask is never sent unless this request's `clientCapabilities` declare it: `elicitation: {}`
//! allows forms only, `elicitation.url` allows URL mode, `sampling` allows sampling and
//! `sampling.tools` sampling with tools, `roots` allows roots. Otherwise the ask returns
//! [`crate::AskError::MissingCapability`], which the handler can match to fall back (for example
//! from sampling to a form). Propagated with `?`, it becomes JSON-RPC error -32021 with
//! `data.requiredCapabilities`.
//!
//! ## `requestState`
//!
//! The journal is sealed with AES-256-GCM-SIV under the newest key of the server's
//! [`crate::request_state::KeyRing`] (any key of the ring opens, so keys rotate without breaking flows in
//! progress) and bound to the method, the tool or prompt name or resource URI, a digest of the
//! arguments, the principal the transport reports, and the protocol version. It expires (five
//! minutes by default, [`crate::ServerBuilder::request_state_ttl`]) and is capped in size. Any failure is
//! answered with -32602 `invalid requestState`, the same message whatever the reason, and the
//! reason is logged server-side. Give every instance the same key ring and a retry may land on
//! any of them.
//!
//! **What is sealed** is what the handler reads: of an elicitation answer, the action and the
//! fields the form has; of a sampling answer, the fields the protocol defines; of roots, the
//! roots. Anything else a client puts in an answer is dropped, so it cannot grow the state. An
//! answer too large to seal (over three quarters of the token cap, 64 KiB by default, less
//! room for the rest) refuses the request with -32602 naming the input request, and answers
//! that together overflow the cap do the same.
//!
//! **Single use.** A state opens once: the server records each token it opens (an
//! [`crate::request_state::InMemoryReplayGuard`] by default), and the same retry sent again is refused as
//! `invalid requestState`. A retry refused with an error before any `step` ran (an oversized
//! answer, a missing capability, a handler error or panic) gives its state back, so the client
//! may send it again; one that ran a step keeps it spent. What a stateless server can promise:
//! on one instance, a state carries a call forward at most once and a `step` runs at most once
//! per call; across instances the in-memory guard does not see the others, so a replay that
//! lands on another instance runs the rest of the call again there (its recorded steps still
//! replay from the journal; a step of the current round may run twice). A shared
//! [`crate::request_state::ReplayGuard`] (any store with an atomic insert) closes that gap;
//! `request_state_codec(|c| c.reusable())` turns single use off for clients that resend lost retries.
//!
//! **When the handler's code changes between rounds** (a deploy mid-flow), the state records a
//! fingerprint of the handler's tokens; a state sealed by a different fingerprint is not an
//! error: its journal is dropped and the call starts over, re-asking what it needs (answers
//! supplied on the retry are still used by key). Steps recorded by the old code run again, so
//! make steps idempotent where a deploy mid-flow matters.
//!
//! ## Return types
//!
//! Tools return `String`, `CallToolResult`, `ContentBlock`, `Vec<ContentBlock>`, [`crate::Json`]
//! (structured content, with an `outputSchema` from `schemars`) or `()`, or a `Result` of these
//! with any error that implements `Display` ([`crate::ToolError`], std errors, `anyhow::Error`):
//! a tool error is shown to the model (`isError: true`), a [`crate::ToolError::Protocol`] is a
//! JSON-RPC error, and a resource says "not found" with
//! [`crate::ToolError::resource_not_found`]. Types of your own in arguments or structured output
//! take `#[mcp_type]`. Arguments that do not match the
//! function's parameters are a tool error too, so the model can correct its call.
//!
//! ## State, the caller, the request
//!
//! Parameters of type [`crate::State<T>`] (registered with [`crate::ServerBuilder::state`]),
//! [`crate::Principal`] or `Option<Principal>` (the authenticated caller), and
//! [`crate::RequestContext`] (`_meta`, progress, log, cancellation) are taken from the call, not
//! from the arguments, and are absent from the input schema. A missing state type is a
//! [`crate::BuildError`] from `build()`. The principal comes from bearer authentication
//! (`oxmcp::auth`, set in `HttpConfig::auth`), from an application's tower layer that puts
//! a `Principal` in the request's extensions, or, over stdio, from `StdioConfig::principal`. It is
//! bound into `requestState`: a state issued to one caller does not open for another. A tool with
//! `#[mcp_tool(scopes = ["admin"])]` is refused (403, `insufficient_scope`) to a token without
//! the scope.
//!
//! ## Logging, keys, tests
//!
//! `oxmcp::logging::init()` sends `tracing` events to stderr, filtered by `RUST_LOG`
//! (never stdout, which a stdio server's protocol owns). The `requestState` key ring comes from
//! `MCP_STATE_KEYS`; the `state-key` example prints a fresh entry, and a rotation appends the new
//! key everywhere before removing the old one. [`crate::testing::Rounds`] drives a multi-round
//! tool in process with scripted answers.
//!
//! ## Forms
//!
//! `#[derive(ElicitForm)]` builds the flat `requestedSchema`: `String` (with `format`,
//! `min_length`, `max_length`), `bool`, integers (their range becomes `minimum`/`maximum`),
//! floats, enums deriving `ElicitEnum` (single select; titled when a variant has a title or doc
//! comment), `Vec` of such an enum (multi-select) and `Option` of any of these (not required).
//! Field doc comments become descriptions. Anything else (a nested struct, a map, a
//! `Vec<String>`) is a compile error saying forms are flat.
//!
//! ## 2025-era clients
//!
//! The same handlers serve clients of 2025-11-25, 2025-06-18 and 2025-03-26 (see
//! [`crate::SESSION_VERSIONS`]; [`crate::ServerBuilder::sessions`] turns this off). Such a client
//! opens with `initialize`, which fixes its capabilities for the session; its requests reach the
//! handlers with those capabilities in the request's `_meta`, so [`crate::RequestContext`],
//! capability checks and [`crate::AskError::MissingCapability`] mean what they mean on a 2026
//! request. What differs is how an ask is answered: on a 2025 session it is a real request to
//! the client, awaited in place, so nothing is replayed and no `requestState` exists; a client
//! that answers with an error gives [`crate::AskError::Refused`], one that does not answer within
//! `Limits::ask_timeout` gives [`crate::AskError::NoAnswer`] (both become tool errors with `?`),
//! and a cancelled call tells the client its request is no longer wanted. Write handlers as for
//! MRTR (side effects in `step`) and they behave the same in both eras.
//!
//! Over HTTP a 2025 session's SSE streams can be resumed: events carry ids, a client that lost
//! the connection GETs with `Last-Event-ID` and is sent the rest, and the call goes on meanwhile
//! (for up to `Limits::resume_window` with nobody reading; `notifications/cancelled` stops it at
//! once). A long call may let its connection go with [`crate::close_stream`] (or
//! [`crate::RequestContext::close_stream`]); the client comes back for the result after the
//! `retry` hint. Elsewhere these do nothing.
//!
//! ## Limits and shutdown
//!
//! Every transport limit is a field of [`crate::Limits`], given to `HttpConfig::limits` or
//! `StdioConfig::limits`. Over HTTP, a request's headers must arrive within `header_timeout`
//! (10 s), which is also how long a kept-alive connection may idle; its body within
//! `body_timeout` (30 s, else 408); a declared length over `max_body` is answered 413 before any
//! of the body is read; at most `max_connections` (1024) are served at once, the rest wait in
//! the backlog. Notifications queue per stream up to `queue` (256): past that, a reader has
//! fallen behind, its progress and log messages are dropped and a `subscriptions/listen`
//! stream ends (the client re-lists when it listens again); replies are never dropped.
//!
//! `serve_http` and `serve_stdio` stop on ctrl-c or SIGTERM ([`crate::shutdown_signal`], feature
//! `signal`, on with `http`; a stdio server also stops at end of input): they stop taking
//! requests, end listen streams, let requests in flight finish for up to `shutdown_grace`
//! (10 s), then cut off the rest (on stdio, each is answered with -32603). A
//! server mounted in your own router: call [`crate::Server::close_streams`] before your
//! graceful shutdown, or the listen streams will hold it open. A handler that panics is answered
//! with -32603 on every transport, and the server goes on.
//!
//! ## Notifications
//!
//! While it runs, a handler can report [`crate::progress`] (when the request carries a
//! `progressToken`) and [`crate::log`] messages (at or above the level the request's `_meta`
//! asks for); both travel on the request's own response stream. [`crate::notify_list_changed`]
//! and [`crate::notify_resource_updated`] reach every `subscriptions/listen` stream that opted in
//! to them (`toolsListChanged` and the like, `resourceSubscriptions` for a URI or a URI the
//! update lies under); outside a handler, call [`crate::Server::notify_list_changed`] and
//! [`crate::Server::notify_resource_updated`]. The acknowledgement of a stream names only what
//! the server honours.
//!
//! ## The client
//!
//! [`crate::client::Client`] drives the rounds from the other side, over HTTP or stdio. Over
//! HTTP it mirrors the arguments a tool declares with `x-mcp-header` in `Mcp-Param-*` headers;
//! over stdio, dropping a call's future cancels the call on the server.
