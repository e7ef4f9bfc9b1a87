//! The resume layer: how one round of a handler runs. The engine drives the handler under a
//! per-call context; the asks (`elicit`, `sample`, `list_roots`, `step`) read recorded answers
//! or register input requests; notifications go to the request's stream. The journal they keep
//! is sealed into `requestState` by [`crate::request_state`]. It uses the handler, state and wire layers
//! and knows nothing of servers or transports.

pub(crate) mod ask;
pub(crate) mod context;
pub(crate) mod engine;
pub(crate) mod events;
pub(crate) mod live;
pub(crate) mod notify;
