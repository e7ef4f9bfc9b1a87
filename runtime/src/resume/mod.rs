//! The resume layer: how one round of a handler runs. The engine drives the handler under a
//! per-call context; the asks (`elicit`, `sample`, `list_roots`, `step`) read recorded answers
//! or register input requests; notifications go to the request's stream; the state codec seals
//! the journal into `requestState` and opens it on the retry. It uses the handler and wire
//! layers and knows nothing of servers or transports.

pub(crate) mod ask;
pub(crate) mod context;
pub(crate) mod engine;
pub(crate) mod events;
pub(crate) mod live;
pub(crate) mod notify;
pub(crate) mod state;
