//! # Writing resumable handlers
//!
//! (Guide in progress; see the crate tests for complete examples.)
