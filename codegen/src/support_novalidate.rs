/// Validation is off: the generated types implement no `Validate`.
macro_rules! validate_object {
    ($($any:tt)*) => {};
}
pub(crate) use validate_object;

/// Validation is off.
macro_rules! validate_union {
    ($($any:tt)*) => {};
}
pub(crate) use validate_union;

/// Validation is off.
macro_rules! validate_none {
    ($($any:tt)*) => {};
}
pub(crate) use validate_none;
