//! Parse and write with mcp-schema, rmcp 3.11's model types and rust-mcp-schema 2.0, with the
//! serde_json `IgnoredAny` floor, on the same bytes:
//! - `serialization`: five realistic messages, one benchmark each;
//! - `examples`: every 2026-07-28 spec example that is a whole wire message and that all three
//!   libraries parse, grouped by kind (one benchmark runs the whole group).
//!
//! Each message is parsed into what its receiver parses it into with that library: mcp-schema
//! and rust-mcp-schema use the request union or the typed response of the method; rmcp uses
//! `ClientJsonRpcMessage` (what its server reads) or `ServerJsonRpcMessage` (what its client
//! reads), which is how rmcp itself reads the wire.

use criterion::{black_box, criterion_group, BenchmarkId, Criterion, Throughput};
use serde::de::{DeserializeOwned, IgnoredAny};
use serde::Serialize;
use std::time::Duration;

#[path = "support/paired.rs"]
mod paired;
use paired::Side;

/// Parse and write closures for one message with one library's type.
struct Entry {
    parse: Box<dyn Fn(&str) -> bool>,
    write: Box<dyn Fn() -> usize>,
    /// Whether writing the parsed value gives back the same JSON (nothing dropped or changed).
    lossless: bool,
}

/// `Some` when `T` parses `text`.
fn entry<T: DeserializeOwned + Serialize + 'static>(text: &str) -> Option<Entry> {
    let value: T = serde_json::from_str(text).ok()?;
    let lossless = serde_json::to_value(&value).ok() == serde_json::from_str(text).ok();
    Some(Entry {
        lossless,
        parse: Box::new(|t| serde_json::from_str::<T>(t).is_ok()),
        write: Box::new(move || serde_json::to_string(&value).map_or(0, |s| s.len())),
    })
}

/// What kind of wire message an example or realistic message is.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    ClientRequest,
    Response,
    Notification,
    Error,
}

impl Kind {
    fn label(self) -> &'static str {
        match self {
            Kind::ClientRequest => "client_requests",
            Kind::Response => "result_responses",
            Kind::Notification => "notifications",
            Kind::Error => "error_responses",
        }
    }
}

macro_rules! by_response_name {
    ($lib:ident, $name:expr, $text:expr) => {
        match $name {
            "CallToolResultResponse" => entry::<$lib::CallToolResultResponse>($text),
            "CompleteResultResponse" => entry::<$lib::CompleteResultResponse>($text),
            "DiscoverResultResponse" => entry::<$lib::DiscoverResultResponse>($text),
            "GetPromptResultResponse" => entry::<$lib::GetPromptResultResponse>($text),
            "ListPromptsResultResponse" => entry::<$lib::ListPromptsResultResponse>($text),
            "ListResourceTemplatesResultResponse" => {
                entry::<$lib::ListResourceTemplatesResultResponse>($text)
            }
            "ListResourcesResultResponse" => entry::<$lib::ListResourcesResultResponse>($text),
            "ListToolsResultResponse" => entry::<$lib::ListToolsResultResponse>($text),
            "ReadResourceResultResponse" => entry::<$lib::ReadResourceResultResponse>($text),
            "SubscriptionsListenResultResponse" => {
                entry::<$lib::SubscriptionsListenResultResponse>($text)
            }
            _ => None,
        }
    };
}

/// The three libraries' entries for one message, in the order mcp-schema, rmcp,
/// rust-mcp-schema; `None` where a library cannot parse it.
fn entries(kind: Kind, response: &str, text: &str) -> [Option<Entry>; 3] {
    match kind {
        Kind::ClientRequest => [
            entry::<mcp_schema::ClientRequest>(text),
            entry::<rmcp::model::ClientJsonRpcMessage>(text),
            entry::<rust_mcp_schema::ClientRequest>(text),
        ],
        Kind::Response => [
            by_response_name!(mcp_schema, response, text),
            entry::<rmcp::model::ServerJsonRpcMessage>(text),
            by_response_name!(rust_mcp_schema, response, text),
        ],
        Kind::Notification => [
            entry::<mcp_schema::ServerNotification>(text),
            entry::<rmcp::model::ServerJsonRpcMessage>(text),
            entry::<rust_mcp_schema::ServerNotification>(text),
        ],
        Kind::Error => [
            entry::<mcp_schema::JSONRPCErrorResponse>(text),
            entry::<rmcp::model::ServerJsonRpcMessage>(text),
            entry::<rust_mcp_schema::JsonrpcErrorResponse>(text),
        ],
    }
}

const LIBS: [&str; 3] = ["mcp-schema", "rmcp", "rust-mcp-schema"];

/// The kind of a realistic message and, for responses, the typed response it is.
fn kind_of(name: &str) -> (Kind, &'static str) {
    match name {
        "tools_call_1k" | "retry_3" => (Kind::ClientRequest, ""),
        "tools_list_50" => (Kind::Response, "ListToolsResultResponse"),
        _ => (Kind::Response, "CallToolResultResponse"),
    }
}

fn realistic(c: &mut Criterion) {
    let mut facts = serde_json::Map::new();
    let mut group = c.benchmark_group("serialization");
    for (name, text) in mcp_benches::messages() {
        group.throughput(Throughput::Bytes(text.len() as u64));
        group.bench_with_input(
            BenchmarkId::new("floor/parse", name),
            text.as_str(),
            |b, t| b.iter(|| serde_json::from_str::<IgnoredAny>(black_box(t)).is_ok()),
        );
        // Untyped reference: what building any owned tree of this message costs.
        group.bench_with_input(
            BenchmarkId::new("value/parse", name),
            text.as_str(),
            |b, t| b.iter(|| serde_json::from_str::<serde_json::Value>(black_box(t)).is_ok()),
        );
        let (kind, response) = kind_of(name);
        for (lib, e) in LIBS.iter().zip(entries(kind, response, &text)) {
            let Some(e) = e else {
                eprintln!("{lib} cannot represent {name}");
                continue;
            };
            facts.insert(format!("{lib}/{name}"), e.lossless.into());
            group.bench_with_input(
                BenchmarkId::new(format!("{lib}/parse"), name),
                text.as_str(),
                |b, t| b.iter(|| (e.parse)(black_box(t))),
            );
            group.bench_function(BenchmarkId::new(format!("{lib}/write"), name), |b| {
                b.iter(|| (e.write)())
            });
        }
    }
    group.finish();
    mcp_benches::write_facts("serialization", facts.into());
}

/// The spec examples every library parses, by kind: (kind, texts, entries per library).
fn example_sets() -> Vec<(Kind, Vec<String>, [Vec<Entry>; 3])> {
    let mut sets: Vec<(Kind, Vec<String>, [Vec<Entry>; 3])> = Vec::new();
    let mut skipped = Vec::new();
    for (type_name, file, value) in mcp_tests::examples() {
        if value.get("jsonrpc").is_none() {
            continue; // not a whole wire message
        }
        let kind = if type_name.ends_with("ResultResponse") {
            Kind::Response
        } else if type_name.ends_with("Notification") {
            Kind::Notification
        } else if type_name.ends_with("Error") {
            Kind::Error
        } else if type_name.ends_with("Request")
            && mcp_schema::ClientRequest::VARIANT_SCHEMA_NAMES.contains(&type_name.as_str())
        {
            Kind::ClientRequest
        } else {
            continue; // server-to-client requests travel inside inputRequests now
        };
        let text = value.to_string();
        let [a, b, c] = entries(kind, &type_name, &text);
        let (Some(a), Some(b), Some(c)) = (a, b, c) else {
            skipped.push(format!("{type_name}/{file}"));
            continue;
        };
        let i = match sets.iter().position(|s| s.0 == kind) {
            Some(i) => i,
            None => {
                sets.push((kind, Vec::new(), Default::default()));
                sets.len() - 1
            }
        };
        sets[i].1.push(text);
        sets[i].2[0].push(a);
        sets[i].2[1].push(b);
        sets[i].2[2].push(c);
    }
    let mut facts = serde_json::Map::new();
    facts.insert("skipped".into(), skipped.clone().into());
    for (kind, texts, libs) in &sets {
        let lossless: serde_json::Map<String, serde_json::Value> = LIBS
            .iter()
            .zip(libs)
            .map(|(lib, es)| {
                (
                    lib.to_string(),
                    es.iter().filter(|e| e.lossless).count().into(),
                )
            })
            .collect();
        facts.insert(
            kind.label().into(),
            serde_json::json!({ "count": texts.len(), "lossless": lossless }),
        );
    }
    mcp_benches::write_facts("examples", facts.into());
    sets
}

fn examples(c: &mut Criterion) {
    let mut group = c.benchmark_group("examples");
    for (kind, texts, libs) in example_sets() {
        let bytes: usize = texts.iter().map(String::len).sum();
        let label = kind.label();
        group.throughput(Throughput::Bytes(bytes as u64));
        group.bench_with_input(BenchmarkId::new("floor/parse", label), &texts, |b, ts| {
            b.iter(|| {
                ts.iter()
                    .filter(|t| serde_json::from_str::<IgnoredAny>(black_box(t)).is_ok())
                    .count()
            })
        });
        for (lib, entries) in LIBS.iter().zip(&libs) {
            group.bench_with_input(
                BenchmarkId::new(format!("{lib}/parse"), label),
                &texts,
                |b, ts| {
                    b.iter(|| {
                        ts.iter()
                            .zip(entries)
                            .filter(|(t, e)| (e.parse)(black_box(t)))
                            .count()
                    })
                },
            );
            group.bench_function(BenchmarkId::new(format!("{lib}/write"), label), |b| {
                b.iter(|| entries.iter().map(|e| (e.write)()).sum::<usize>())
            });
        }
    }
    group.finish();
}

criterion_group!(benches, realistic, examples);
/// How long each comparison is timed interleaved.
const PAIRED_BUDGET: Duration = Duration::from_millis(400);

/// One comparison's interleaved result as the report reads it: median ns per side, and each
/// side's median per-round ratio to mcp-schema (side time / our time).
fn summary(s: &paired::Samples, bytes: usize) -> serde_json::Value {
    let ours = s.index("mcp-schema");
    let mut median_ns = serde_json::Map::new();
    let mut vs_ours = serde_json::Map::new();
    for (i, name) in s.names.iter().enumerate() {
        median_ns.insert(name.clone(), s.median_ns(i).into());
        if let Some(o) = ours {
            vs_ours.insert(name.clone(), s.ratio(&[i], &[o]).into());
        }
    }
    serde_json::json!({ "bytes": bytes, "median_ns": median_ns, "vs_ours": vs_ours })
}

/// The parse and write comparisons of one message or example set, timed interleaved.
fn compare(texts: &[String], libs: [Vec<&Entry>; 3], with_value: bool) -> [serde_json::Value; 2] {
    let bytes = texts.iter().map(String::len).sum();
    let mut parse = vec![Side::new("floor", || {
        texts
            .iter()
            .filter(|t| serde_json::from_str::<IgnoredAny>(black_box(t)).is_ok())
            .count()
    })];
    if with_value {
        parse.push(Side::new("value", || {
            texts
                .iter()
                .filter(|t| serde_json::from_str::<serde_json::Value>(black_box(t)).is_ok())
                .count()
        }));
    }
    let mut write = Vec::new();
    for (lib, entries) in LIBS.iter().zip(&libs) {
        if entries.len() != texts.len() {
            continue; // this library cannot represent the message
        }
        parse.push(Side::new(*lib, move || {
            texts
                .iter()
                .zip(entries)
                .filter(|(t, e)| (e.parse)(black_box(t)))
                .count()
        }));
        write.push(Side::new(*lib, move || {
            entries.iter().map(|e| (e.write)()).sum::<usize>()
        }));
    }
    [
        summary(&paired::measure(parse, PAIRED_BUDGET), bytes),
        summary(&paired::measure(write, PAIRED_BUDGET), bytes),
    ]
}

/// The interleaved pass the report's serialization tables come from (see `support/paired.rs`).
fn paired_pass() {
    let mut out = serde_json::Map::new();
    for (name, text) in mcp_benches::messages() {
        let (kind, response) = kind_of(name);
        let es = entries(kind, response, &text);
        let libs = std::array::from_fn(|i| es[i].iter().collect());
        let [parse, write] = compare(std::slice::from_ref(&text), libs, true);
        out.insert(format!("serialization/{name}/parse"), parse);
        out.insert(format!("serialization/{name}/write"), write);
    }
    for (kind, texts, libs) in example_sets() {
        let libs = std::array::from_fn(|i| libs[i].iter().collect());
        let [parse, write] = compare(&texts, libs, false);
        out.insert(format!("examples/{}/parse", kind.label()), parse);
        out.insert(format!("examples/{}/write", kind.label()), write);
    }
    mcp_benches::write_facts("paired-serialization", out.into());
}

fn main() {
    benches();
    if paired::benchmarking() {
        paired_pass();
    }
    Criterion::default().configure_from_args().final_summary();
}
