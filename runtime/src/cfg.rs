//! Feature gating in one place: `cfg_http! { ... }` and its kin put their feature's `cfg` on the
//! items they wrap, and the `doc(cfg)` label docs.rs shows beside them.
#![allow(unused_macros)]

/// Items that need the `http` feature.
macro_rules! cfg_http {
    ($($item:item)*) => {
        $(
            #[cfg(feature = "http")]
            #[cfg_attr(docsrs, doc(cfg(feature = "http")))]
            $item
        )*
    };
}

/// Items that need the `stdio` feature.
macro_rules! cfg_stdio {
    ($($item:item)*) => {
        $(
            #[cfg(feature = "stdio")]
            #[cfg_attr(docsrs, doc(cfg(feature = "stdio")))]
            $item
        )*
    };
}

/// Items that need the `signal` feature.
macro_rules! cfg_signal {
    ($($item:item)*) => {
        $(
            #[cfg(feature = "signal")]
            #[cfg_attr(docsrs, doc(cfg(feature = "signal")))]
            $item
        )*
    };
}

/// Items that need the `tasks` feature.
macro_rules! cfg_tasks {
    ($($item:item)*) => {
        $(
            #[cfg(feature = "tasks")]
            #[cfg_attr(docsrs, doc(cfg(feature = "tasks")))]
            $item
        )*
    };
}

/// Items that need the `client` feature.
macro_rules! cfg_client {
    ($($item:item)*) => {
        $(
            #[cfg(feature = "client")]
            #[cfg_attr(docsrs, doc(cfg(feature = "client")))]
            $item
        )*
    };
}

/// Items that need the `auth` feature.
macro_rules! cfg_auth {
    ($($item:item)*) => {
        $(
            #[cfg(feature = "auth")]
            #[cfg_attr(docsrs, doc(cfg(feature = "auth")))]
            $item
        )*
    };
}

/// Items that need the `logging` feature.
macro_rules! cfg_logging {
    ($($item:item)*) => {
        $(
            #[cfg(feature = "logging")]
            #[cfg_attr(docsrs, doc(cfg(feature = "logging")))]
            $item
        )*
    };
}

/// Items that need the `redis` feature.
macro_rules! cfg_redis {
    ($($item:item)*) => {
        $(
            #[cfg(feature = "redis")]
            #[cfg_attr(docsrs, doc(cfg(feature = "redis")))]
            $item
        )*
    };
}

/// Items that need the `jwks-url` feature.
macro_rules! cfg_jwks_url {
    ($($item:item)*) => {
        $(
            #[cfg(feature = "jwks-url")]
            #[cfg_attr(docsrs, doc(cfg(feature = "jwks-url")))]
            $item
        )*
    };
}

/// Items that need the `derive` feature.
macro_rules! cfg_derive {
    ($($item:item)*) => {
        $(
            #[cfg(feature = "derive")]
            #[cfg_attr(docsrs, doc(cfg(feature = "derive")))]
            $item
        )*
    };
}

/// Items that need the `schemars` feature.
macro_rules! cfg_schemars {
    ($($item:item)*) => {
        $(
            #[cfg(feature = "schemars")]
            #[cfg_attr(docsrs, doc(cfg(feature = "schemars")))]
            $item
        )*
    };
}

/// Items that need the `metrics` feature.
macro_rules! cfg_metrics {
    ($($item:item)*) => {
        $(
            #[cfg(feature = "metrics")]
            #[cfg_attr(docsrs, doc(cfg(feature = "metrics")))]
            $item
        )*
    };
}

/// Items that need the `otel` feature.
macro_rules! cfg_otel {
    ($($item:item)*) => {
        $(
            #[cfg(feature = "otel")]
            #[cfg_attr(docsrs, doc(cfg(feature = "otel")))]
            $item
        )*
    };
}

/// Items that need the `skills` feature.
macro_rules! cfg_skills {
    ($($item:item)*) => {
        $(
            #[cfg(feature = "skills")]
            #[cfg_attr(docsrs, doc(cfg(feature = "skills")))]
            $item
        )*
    };
}

/// Chainable setters for a settings struct whose fields are public but which is
/// `#[non_exhaustive]` (so it can grow a field without breaking anyone): each listed field gets
/// a method of its name that sets it, so `Limits::default().queue(64).drain(d)` reads as a
/// struct literal would. Attributes before a field (a `cfg`) go on its method.
macro_rules! setters {
    ($ty:ident { $($(#[$attr:meta])* $field:ident: $arg:ty => $value:expr),* $(,)? }) => {
        impl $ty {
            $(
                $(#[$attr])*
                #[doc = concat!("With `", stringify!($field), "` set (see the field).")]
                #[must_use]
                pub fn $field(mut self, $field: $arg) -> Self {
                    self.$field = $value;
                    self
                }
            )*
        }
    };
}

/// Items that need the `lambda` feature.
macro_rules! cfg_lambda {
    ($($item:item)*) => {
        $(
            #[cfg(feature = "lambda")]
            #[cfg_attr(docsrs, doc(cfg(feature = "lambda")))]
            $item
        )*
    };
}
