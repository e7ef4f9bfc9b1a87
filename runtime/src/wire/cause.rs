//! [`Cause`]: the error under another, for every error type of the crate that has one.

use std::fmt;
use std::sync::Arc;

/// An error under another (a client's, a task store's, a single-use check's), kept whole for
/// `source()` and shared when the error above it is cloned.
#[derive(Clone)]
pub struct Cause(Arc<dyn std::error::Error + Send + Sync + 'static>);

/// A cause that is only words: what the client saw where no error value exists.
#[derive(Debug)]
struct Words(String);

impl fmt::Display for Words {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Words {}

impl Cause {
    /// `error` as a cause.
    pub fn of(error: impl std::error::Error + Send + Sync + 'static) -> Cause {
        Cause(Arc::new(error))
    }

    /// A boxed error as a cause.
    pub fn boxed(error: Box<dyn std::error::Error + Send + Sync + 'static>) -> Cause {
        Cause(Arc::from(error))
    }

    /// A cause that is only `text`.
    pub fn words(text: impl Into<String>) -> Cause {
        Cause(Arc::new(Words(text.into())))
    }

    /// The error itself.
    pub fn get(&self) -> &(dyn std::error::Error + Send + Sync + 'static) {
        &*self.0
    }
}

/// Two causes are equal when they say the same, so the errors that carry one can still be
/// compared in tests and matches.
impl PartialEq for Cause {
    fn eq(&self, other: &Cause) -> bool {
        Arc::ptr_eq(&self.0, &other.0) || self.to_string() == other.to_string()
    }
}

impl Eq for Cause {}

impl fmt::Debug for Cause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&*self.0, f)
    }
}

impl fmt::Display for Cause {
    /// The error and every cause under it, on one line.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut text = self.0.to_string();
        let mut next = self.0.source();
        while let Some(cause) = next {
            let more = cause.to_string();
            if !text.contains(&more) {
                text.push_str(": ");
                text.push_str(&more);
            }
            next = cause.source();
        }
        f.write_str(&text)
    }
}
