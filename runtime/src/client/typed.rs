//! What every typed client `oxmcp-codegen client` writes shares, so a generated module declares
//! no support types of its own and needs no dependency beyond `oxmcp`.

use std::borrow::Cow;
use std::fmt;

/// A value a typed client's type refuses when it is built from a string or another value
/// (`FromStr`, `TryFrom`): it breaks a rule of its tool's schema (an enum's values, a length, a
/// range). Says which rule, in words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConversionError {
    message: Cow<'static, str>,
}

impl ConversionError {
    /// What is wrong with the value.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for ConversionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ConversionError {}

impl From<&'static str> for ConversionError {
    fn from(message: &'static str) -> Self {
        ConversionError {
            message: Cow::Borrowed(message),
        }
    }
}

impl From<String> for ConversionError {
    fn from(message: String) -> Self {
        ConversionError {
            message: Cow::Owned(message),
        }
    }
}
