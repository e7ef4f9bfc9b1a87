//! The generator's integration tests, in one binary (each module was a test file of its own):
//! golden outputs, hostile schemas, the findings, the diff, future versions, fetching and the
//! command line.

mod adversarial;
mod cli;
mod client_url;
mod diff;
mod fetch;
mod findings;
mod future_version;
mod golden;
