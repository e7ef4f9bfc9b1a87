//! Parse and write with oxmcp-schema, rmcp 3.11's model types and rust-mcp-schema 2.0, with the
//! serde_json `IgnoredAny` floor, on the same bytes:
//! - `serialization`: five realistic messages, one benchmark each;
//! - `examples`: every 2026-07-28 spec example that is a whole wire message and that all three
//!   libraries parse, grouped by kind (one benchmark runs the whole group).
//!
//! Each message is parsed into what its receiver parses it into with that library: oxmcp-schema
//! and rust-mcp-schema use the request union or the typed response of the method; rmcp uses
//! `ClientJsonRpcMessage` (what its server reads) or `ServerJsonRpcMessage` (what its client
//! reads), which is how rmcp itself reads the wire.

use criterion::{black_box, BenchmarkId, Criterion, Throughput};
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

/// The three libraries' entries for one message, in the order oxmcp-schema, rmcp,
/// rust-mcp-schema; `None` where a library cannot parse it.
fn entries(kind: Kind, response: &str, text: &str) -> [Option<Entry>; 3] {
    match kind {
        Kind::ClientRequest => [
            entry::<oxmcp_schema::ClientRequest>(text),
            entry::<rmcp::model::ClientJsonRpcMessage>(text),
            entry::<rust_mcp_schema::ClientRequest>(text),
        ],
        Kind::Response => [
            by_response_name!(oxmcp_schema, response, text),
            entry::<rmcp::model::ServerJsonRpcMessage>(text),
            by_response_name!(rust_mcp_schema, response, text),
        ],
        Kind::Notification => [
            entry::<oxmcp_schema::ServerNotification>(text),
            entry::<rmcp::model::ServerJsonRpcMessage>(text),
            entry::<rust_mcp_schema::ServerNotification>(text),
        ],
        Kind::Error => [
            entry::<oxmcp_schema::JSONRPCErrorResponse>(text),
            entry::<rmcp::model::ServerJsonRpcMessage>(text),
            entry::<rust_mcp_schema::JsonrpcErrorResponse>(text),
        ],
    }
}

const LIBS: [&str; 3] = ["oxmcp-schema", "rmcp", "rust-mcp-schema"];

/// The kind of a realistic message and, for responses, the typed response it is.
fn kind_of(name: &str) -> (Kind, &'static str) {
    match name {
        "tools_call_1k" | "retry_3" => (Kind::ClientRequest, ""),
        "tools_list_50" => (Kind::Response, "ListToolsResultResponse"),
        _ => (Kind::Response, "CallToolResultResponse"),
    }
}

/// One comparison: a realistic message (group `serialization`) or the spec examples of one
/// kind (group `examples`), with each library's entries for every text; a library that cannot
/// represent all of the texts has none.
struct Comparison {
    group: &'static str,
    id: String,
    texts: Vec<String>,
    libs: [Vec<Entry>; 3],
    /// Whether the untyped `serde_json::Value` parse is timed as a reference too.
    with_value: bool,
}

/// One timed operation: how criterion and the report name it, and the operation.
type Op<'a> = (String, Box<dyn Fn() -> usize + 'a>);

impl Comparison {
    /// The parse operations: the IgnoredAny floor, the untyped Value parse where asked, and each
    /// library that represents every text; all parse the whole set of texts.
    fn parse_ops(&self) -> Vec<Op<'_>> {
        let texts = &self.texts;
        let mut ops: Vec<Op<'_>> = vec![(
            "floor".into(),
            Box::new(move || {
                texts
                    .iter()
                    .filter(|t| serde_json::from_str::<IgnoredAny>(black_box(t)).is_ok())
                    .count()
            }),
        )];
        if self.with_value {
            // Untyped reference: what building any owned tree of these texts costs.
            ops.push((
                "value".into(),
                Box::new(move || {
                    texts
                        .iter()
                        .filter(|t| serde_json::from_str::<serde_json::Value>(black_box(t)).is_ok())
                        .count()
                }),
            ));
        }
        for (lib, entries) in self.represented() {
            ops.push((
                lib.to_string(),
                Box::new(move || {
                    texts
                        .iter()
                        .zip(entries)
                        .filter(|(t, e)| (e.parse)(black_box(t)))
                        .count()
                }),
            ));
        }
        ops
    }

    /// The write operations: each library that represents every text writes all of them.
    fn write_ops(&self) -> Vec<Op<'_>> {
        self.represented()
            .map(|(lib, entries)| -> Op<'_> {
                (
                    lib.to_string(),
                    Box::new(move || entries.iter().map(|e| (e.write)()).sum::<usize>()),
                )
            })
            .collect()
    }

    /// The libraries with an entry for every text, and their entries.
    fn represented(&self) -> impl Iterator<Item = (&'static str, &[Entry])> {
        LIBS.iter()
            .zip(&self.libs)
            .filter(|(_, es)| es.len() == self.texts.len())
            .map(|(lib, es)| (*lib, es.as_slice()))
    }

    fn bytes(&self) -> usize {
        self.texts.iter().map(String::len).sum()
    }
}

/// The five realistic messages, one comparison each; records which libraries write each back
/// losslessly (`serialization.facts.json`).
fn realistic() -> Vec<Comparison> {
    let mut facts = serde_json::Map::new();
    let mut out = Vec::new();
    for (name, text) in mcp_benches::messages() {
        let (kind, response) = kind_of(name);
        let libs = entries(kind, response, &text).map(Vec::from_iter);
        for (lib, es) in LIBS.iter().zip(&libs) {
            match es.first() {
                Some(e) => {
                    facts.insert(format!("{lib}/{name}"), e.lossless.into());
                }
                None => eprintln!("{lib} cannot represent {name}"),
            }
        }
        out.push(Comparison {
            group: "serialization",
            id: name.into(),
            texts: vec![text],
            libs,
            with_value: true,
        });
    }
    mcp_benches::write_facts("serialization", facts.into());
    out
}

/// The spec examples every library parses, one comparison per kind; records the set sizes, the
/// skipped examples and the lossless counts (`examples.facts.json`).
fn examples() -> Vec<Comparison> {
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
            && oxmcp_schema::ClientRequest::VARIANT_SCHEMA_NAMES.contains(&type_name.as_str())
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
    facts.insert("skipped".into(), skipped.into());
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
    sets.into_iter()
        .map(|(kind, texts, libs)| Comparison {
            group: "examples",
            id: kind.label().into(),
            texts,
            libs,
            with_value: false,
        })
        .collect()
}

/// Criterion: one benchmark per operation, named `{side}/{parse|write}` with the message or
/// kind as parameter, throughput in bytes of the texts.
fn criterion_pass(c: &mut Criterion, comparisons: &[Comparison]) {
    for group_name in ["serialization", "examples"] {
        let mut group = c.benchmark_group(group_name);
        for cmp in comparisons.iter().filter(|x| x.group == group_name) {
            group.throughput(Throughput::Bytes(cmp.bytes() as u64));
            for (op_name, ops) in [("parse", cmp.parse_ops()), ("write", cmp.write_ops())] {
                for (side, op) in ops {
                    group.bench_function(
                        BenchmarkId::new(format!("{side}/{op_name}"), &cmp.id),
                        |b| b.iter(&op),
                    );
                }
            }
        }
        group.finish();
    }
}

/// How long each comparison is timed interleaved.
const PAIRED_BUDGET: Duration = Duration::from_millis(400);

/// One comparison's interleaved result as the report reads it: median ns per side, and each
/// side's median per-round ratio to oxmcp-schema (side time / our time).
fn summary(s: &paired::Samples, bytes: usize) -> serde_json::Value {
    let ours = s.index("oxmcp-schema");
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

/// The interleaved pass the report's serialization tables come from (see `support/paired.rs`):
/// the same operations criterion timed, the sides of each comparison taking turns.
fn paired_pass(comparisons: &[Comparison]) {
    let mut out = serde_json::Map::new();
    for cmp in comparisons {
        for (op_name, ops) in [("parse", cmp.parse_ops()), ("write", cmp.write_ops())] {
            let sides = ops
                .into_iter()
                .map(|(name, op)| Side::new(name, op))
                .collect();
            let s = paired::measure(sides, PAIRED_BUDGET);
            out.insert(
                format!("{}/{}/{op_name}", cmp.group, cmp.id),
                summary(&s, cmp.bytes()),
            );
        }
    }
    mcp_benches::write_facts("paired-serialization", out.into());
}

fn main() {
    let mut comparisons = realistic();
    comparisons.extend(examples());
    let mut c = Criterion::default().configure_from_args();
    criterion_pass(&mut c, &comparisons);
    if paired::benchmarking() {
        paired_pass(&comparisons);
    }
    c.final_summary();
}
