//! The one error type of the generator: every failure names the file and the problem in one line.

use std::fmt;
use std::path::PathBuf;

/// A generator failure, printable as a single line that names the file (when there is one) and the problem.
#[derive(Debug)]
pub struct Error {
    file: Option<PathBuf>,
    message: String,
}

impl Error {
    /// An error about no file in particular.
    pub fn msg(message: impl Into<String>) -> Self {
        Error {
            file: None,
            message: message.into(),
        }
    }

    /// An error about `file`.
    pub fn in_file(file: impl Into<PathBuf>, message: impl Into<String>) -> Self {
        Error {
            file: Some(file.into()),
            message: message.into(),
        }
    }

    /// Attach `file` to an error that does not name one yet.
    pub fn with_file(mut self, file: impl Into<PathBuf>) -> Self {
        if self.file.is_none() {
            self.file = Some(file.into());
        }
        self
    }

    /// The file the error is about, if any.
    pub fn file(&self) -> Option<&std::path::Path> {
        self.file.as_deref()
    }

    /// The problem, without the file name.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // One line, always: newlines inside messages would break log scraping.
        let message = self.message.replace('\n', " ");
        match &self.file {
            Some(file) => write!(f, "{}: {}", file.display(), message),
            None => f.write_str(&message),
        }
    }
}

impl std::error::Error for Error {}

/// Result alias of the generator.
pub type Result<T, E = Error> = std::result::Result<T, E>;
