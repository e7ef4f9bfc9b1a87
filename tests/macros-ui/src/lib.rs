//! The compile-time behaviour of oxmcp's macros, tested with trybuild in `tests/ui.rs`: each
//! misuse fails with a message that says why (`tests/ui/fail`), and what must compile does
//! (`tests/ui/pass`). The crate itself holds nothing; it exists so the cases build against a
//! server with few dependencies.
