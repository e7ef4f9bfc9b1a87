//! What crosses the wire, for code that feeds the server messages itself
//! (`Server::handle_message`): the [`Reply`] to one message, the [`Notifier`] a request's
//! notifications go to, and the [`BoxFuture`] handlers and input handlers return.
//!
//! Inside the crate this is the bottom layer, with no knowledge of handlers or servers: reading
//! one JSON-RPC message into the generated types, writing replies, the `_meta` keys a request
//! carries, the `Mcp-Param` header coding, and the line reader that stdio peers share. Every
//! other module of the crate may use this one; it uses none of them.

mod cause;
pub use cause::Cause;
#[cfg(any(feature = "stdio", feature = "client"))]
pub(crate) mod line;
mod message;
mod meta;
mod outbox;
pub(crate) mod param;
mod via;

#[cfg(any(feature = "http", feature = "client"))]
pub(crate) use message::name_field;
#[cfg(any(feature = "http", feature = "stdio", feature = "otel"))]
pub(crate) use message::request_id;
#[cfg(any(feature = "http", feature = "otel"))]
pub(crate) use message::request_meta;
pub use message::Reply;
#[cfg(any(feature = "metrics", feature = "otel"))]
pub(crate) use message::EXTENSION_METHODS;
#[cfg(feature = "http")]
pub(crate) use message::{request_head, RequestHead};
pub(crate) use message::{ExtensionRequest, Incoming};
#[cfg(any(feature = "http", feature = "stdio", feature = "client"))]
pub(crate) use meta::*;
pub use outbox::{Notifier, DEFAULT_QUEUE};
#[cfg(all(feature = "otel", any(feature = "http", feature = "stdio")))]
pub(crate) use via::Arrival;
pub(crate) use via::Via;

use std::future::Future;
use std::pin::Pin;

/// A boxed, sendable future: what handlers and input handlers return.
pub type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send + 'static>>;

/// A fresh id that cannot be guessed: 128 random bits as 32 lowercase hex digits (sessions,
/// tasks, DPoP proofs); `None` when the system has no randomness to give.
#[cfg(any(feature = "http", feature = "tasks", feature = "oauth"))]
pub(crate) fn random_id() -> Option<String> {
    let mut bytes = [0u8; 16];
    getrandom::getrandom(&mut bytes).ok()?;
    let mut id = String::with_capacity(32);
    push_hex(&mut id, &bytes);
    Some(id)
}

/// Append `bytes` to `out` as lowercase hex digits, two a byte.
pub(crate) fn push_hex(out: &mut String, bytes: &[u8]) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    for b in bytes {
        out.push(char::from(HEX[usize::from(b >> 4)]));
        out.push(char::from(HEX[usize::from(b & 15)]));
    }
}

/// Lock `m`, taking over a lock whose holder panicked: every mutex here guards bookkeeping that
/// stays consistent between statements, and one panicking handler must not wedge the rest.
pub(crate) fn lock<T>(m: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    match m.lock() {
        Ok(g) => g,
        Err(poisoned) => poisoned.into_inner(),
    }
}

/// `value` (a `serde_json::Value` or map, on the slow paths that hold one) read as the protocol
/// type `T` through its JSON text. The runtime decodes protocol types from bytes only, so each
/// has one deserializer compiled: a `serde_json::Value` deserializer as well doubled the code of
/// every type it reached (a `ClientRequest` reaches all of them).
pub(crate) fn from_value_text<T: serde_core::de::DeserializeOwned>(
    value: &(impl serde_core::Serialize + ?Sized),
) -> serde_json::Result<T> {
    serde_json::from_slice(&serde_json::to_vec(value)?)
}

/// `text` (JSON held as a string, such as a `RawValue`'s) read as `T` by the same reader as
/// bytes: `serde_json::from_str` has a reader of its own, and each type it reached would have
/// its decoding compiled twice.
pub(crate) fn from_text<'a, T: serde_core::Deserialize<'a>>(
    text: &'a str,
) -> serde_json::Result<T> {
    serde_json::from_slice(text.as_bytes())
}

/// `value` as a `serde_json::Value`, through its JSON text: protocol types are written to
/// bytes only, for the reason [`from_value_text`] gives.
#[cfg(any(feature = "http", feature = "stdio", feature = "tasks"))]
pub(crate) fn to_value_text(
    value: &(impl serde_core::Serialize + ?Sized),
) -> serde_json::Result<serde_json::Value> {
    from_value_text(value)
}

/// Seconds since the Unix epoch, now (0 on a clock set before it).
pub(crate) fn unix_seconds() -> u64 {
    unix_millis() / 1000
}

/// Milliseconds since the Unix epoch, now (0 on a clock set before it).
pub(crate) fn unix_millis() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// Run `work` on `owner` in the background every `every` (the first run one period after the
/// start), for as long as `owner` exists: the task holds it weakly. Started once (`started`),
/// and only where a runtime is at hand: an owner first used outside one spawns nothing then, and
/// starts its task on a later call made inside one.
#[cfg(any(feature = "http", feature = "tasks", feature = "skills"))]
pub(crate) fn every_while_alive<T, F>(
    owner: &std::sync::Arc<T>,
    started: &std::sync::OnceLock<()>,
    every: std::time::Duration,
    work: impl Fn(std::sync::Arc<T>) -> F + Send + 'static,
) where
    T: Send + Sync + 'static,
    F: std::future::Future<Output = ()> + Send,
{
    let Ok(runtime) = tokio::runtime::Handle::try_current() else {
        return;
    };
    if started.set(()).is_err() {
        return;
    }
    let weak = std::sync::Arc::downgrade(owner);
    runtime.spawn(async move {
        let mut ticker = tokio::time::interval(every);
        // The interval's first tick is immediate: what was just built or loaded needs no work.
        ticker.tick().await;
        loop {
            ticker.tick().await;
            let Some(owner) = weak.upgrade() else {
                return;
            };
            work(owner).await;
        }
    });
}

/// How often to sweep what lasts `lifetime`: every quarter of it, between 50 ms and a minute.
#[cfg(any(feature = "http", feature = "tasks"))]
pub(crate) fn sweep_period(lifetime: std::time::Duration) -> std::time::Duration {
    use std::time::Duration;
    (lifetime / 4).clamp(Duration::from_millis(50), Duration::from_secs(60))
}

/// The length of `value` as JSON text, without keeping the text.
#[cfg(feature = "tasks")]
pub(crate) fn json_len(value: &(impl serde_core::Serialize + ?Sized)) -> usize {
    struct Count(usize);
    impl std::io::Write for Count {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0 += buf.len();
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0);
    let _ = serde_json::to_writer(&mut count, value);
    count.0
}

/// How deep a JSON text may nest: serde_json's own limit, past which it refuses to parse.
#[cfg(feature = "http")]
pub(crate) const MAX_JSON_DEPTH: usize = 128;

/// What a scan of a request body found before it is parsed ([`json_shape`]).
#[cfg(feature = "http")]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum JsonShape {
    /// Within both limits, as far as the scan can tell (it does not check the syntax).
    Within,
    /// More values than the limit.
    TooManyValues,
    /// Arrays and objects nested deeper than [`MAX_JSON_DEPTH`]: no parse could read it, so it
    /// is a parse error, whatever its size.
    TooDeep,
}

/// Whether the JSON text `bytes` holds more than `limit` values (objects, arrays and the
/// scalars in them, counted by their separators outside strings), so a small body cannot be
/// read into a huge tree: parsed, every value costs tens of bytes however few it took in the
/// text; or nests deeper than any parse reads, which is told apart so that it is answered as
/// the parse error it is. A text of at most `limit` bytes cannot hold more values, and is not
/// scanned (the parser refuses its depth itself).
#[cfg(feature = "http")]
pub(crate) fn json_shape(bytes: &[u8], limit: usize) -> JsonShape {
    if bytes.len() <= limit {
        return JsonShape::Within;
    }
    let (mut count, mut depth, mut in_string, mut escaped) = (1usize, 0usize, false, false);
    for &b in bytes {
        if in_string {
            match (escaped, b) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'{' | b'[' => {
                depth += 1;
                if depth > MAX_JSON_DEPTH {
                    return JsonShape::TooDeep;
                }
                count += 1;
                if count > limit {
                    return JsonShape::TooManyValues;
                }
            }
            b'}' | b']' => depth = depth.saturating_sub(1),
            b',' => {
                count += 1;
                if count > limit {
                    return JsonShape::TooManyValues;
                }
            }
            _ => {}
        }
    }
    JsonShape::Within
}

#[cfg(all(test, feature = "http"))]
mod values_tests {
    use super::{json_shape, JsonShape};

    fn over(bytes: &[u8], limit: usize) -> bool {
        json_shape(bytes, limit) == JsonShape::TooManyValues
    }

    #[test]
    fn values_are_counted_outside_strings() {
        // The array and its three numbers.
        assert!(!over(b"[1,2,3]", 4));
        assert!(over(b"[1,2,3]", 3));
        assert!(over(b"[1,2,3,4,5,6,7,8]", 5));
        // Separators inside strings, escaped quotes included, do not count.
        let text = br#"{"a": "x,y,[z]{\",,,,,,,,,,\"}"}"#;
        assert!(!over(text, 3));
        let many = format!("[{}0]", "0,".repeat(1000));
        assert!(over(many.as_bytes(), 500));
        assert!(!over(many.as_bytes(), 2000));
    }

    #[test]
    fn nesting_past_the_parsers_limit_is_too_deep_closed_or_not() {
        for depth in [129, 100_000] {
            let closed = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
            let open = "{\"a\":".repeat(depth);
            for text in [closed.as_str(), open.as_str()] {
                assert_eq!(json_shape(text.as_bytes(), 200), JsonShape::TooDeep);
            }
        }
        // Deep but within the limit, and brackets inside strings, are not.
        let ok = format!("{}{}", "[".repeat(128), "]".repeat(128));
        assert_eq!(json_shape(ok.as_bytes(), 64), JsonShape::TooManyValues);
        assert_eq!(json_shape(ok.as_bytes(), 200), JsonShape::Within);
        let strings = format!("[\"{}\"]", "[".repeat(1_000));
        assert_eq!(json_shape(strings.as_bytes(), 64), JsonShape::Within);
    }
}

#[cfg(all(test, any(feature = "http", feature = "tasks", feature = "oauth")))]
mod id_tests {
    #[test]
    fn a_random_id_is_32_lowercase_hex_digits_and_new_each_time() {
        let a = super::random_id().unwrap();
        let b = super::random_id().unwrap();
        assert_eq!(a.len(), 32);
        assert!(
            a.bytes().all(|c| matches!(c, b'0'..=b'9' | b'a'..=b'f')),
            "{a}"
        );
        assert_ne!(a, b);
    }
}

#[cfg(all(test, any(feature = "http", feature = "tasks", feature = "skills")))]
mod background_tests {
    use super::every_while_alive;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::{Arc, OnceLock};
    use std::time::Duration;

    struct Owner {
        runs: AtomicUsize,
        started: OnceLock<()>,
    }

    fn start(owner: &Arc<Owner>) {
        every_while_alive(
            owner,
            &owner.started,
            Duration::from_secs(1),
            |o| async move {
                o.runs.fetch_add(1, Ordering::SeqCst);
            },
        );
    }

    #[test]
    fn work_starts_once_inside_a_runtime_runs_a_period_apart_and_stops_with_its_owner() {
        let owner = Arc::new(Owner {
            runs: AtomicUsize::new(0),
            started: OnceLock::new(),
        });
        // Outside a runtime nothing starts, and a later call from inside one still can.
        start(&owner);
        assert!(owner.started.get().is_none());
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .start_paused(true)
            .build()
            .unwrap();
        runtime.block_on(async {
            start(&owner);
            start(&owner);
            assert!(owner.started.get().is_some());
            // Nothing runs at the start, then once a period (a second call started no twin).
            tokio::time::sleep(Duration::from_millis(500)).await;
            assert_eq!(owner.runs.load(Ordering::SeqCst), 0);
            tokio::time::sleep(Duration::from_millis(2_000)).await;
            assert_eq!(owner.runs.load(Ordering::SeqCst), 2);
            // The task holds its owner weakly: once the owner is gone, it ends.
            let weak = Arc::downgrade(&owner);
            drop(owner);
            tokio::time::sleep(Duration::from_secs(5)).await;
            assert!(weak.upgrade().is_none());
        });
    }
}
