//! A new protocol version is data, not code: a fake future version (2026-07-28 plus a new request
//! method, a new member of `ClientRequest` and a renamed type) goes through a pin line, an overlay
//! file found by its name, and `oxmcp-codegen generate`; the output compiles and parses the new
//! request, and `oxmcp-codegen diff` reports the rename as a rename.

use oxmcp_codegen::{source, Pins};
use serde_json::{json, Value};
use std::path::Path;
use std::process::Command;

const FUTURE: &str = "2030-01-01";

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_oxmcp-codegen"))
}

/// Replace every `$ref` to `from` with one to `to`.
fn rename_refs(v: &mut Value, from: &str, to: &str) {
    match v {
        Value::Object(map) => {
            for (k, child) in map.iter_mut() {
                if k == "$ref" && child.as_str() == Some(from) {
                    *child = Value::String(to.into());
                } else {
                    rename_refs(child, from, to);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|c| rename_refs(c, from, to)),
        _ => {}
    }
}

/// 2026-07-28 with `things/list` added to `ClientRequest` and `Annotations` renamed.
fn future_schema(base: &[u8]) -> Vec<u8> {
    let mut schema: Value = serde_json::from_slice(base).unwrap();
    let defs = schema["$defs"].as_object_mut().unwrap();
    let annotations = defs.shift_remove("Annotations").unwrap();
    defs.insert("ContentAnnotations".into(), annotations);
    defs.insert(
        "ListThingsRequest".into(),
        json!({
            "description": "Sent from the client to list the server's things.",
            "type": "object",
            "properties": {
                "id": {"$ref": "#/$defs/RequestId"},
                "jsonrpc": {"const": "2.0", "type": "string"},
                "method": {"const": "things/list", "type": "string"},
                "params": {"$ref": "#/$defs/PaginatedRequestParams"}
            },
            "required": ["id", "jsonrpc", "method", "params"]
        }),
    );
    defs["ClientRequest"]["anyOf"]
        .as_array_mut()
        .unwrap()
        .push(json!({"$ref": "#/$defs/ListThingsRequest"}));
    rename_refs(
        &mut schema,
        "#/$defs/Annotations",
        "#/$defs/ContentAnnotations",
    );
    serde_json::to_vec_pretty(&schema).unwrap()
}

#[test]
fn a_future_version_needs_a_pin_an_overlay_file_and_generate() {
    let pins = Pins::builtin().unwrap();
    let source::Located {
        path: base_path,
        bytes: base,
        ..
    } = source::locate("2026-07-28", &pins, None).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let spec = dir.path().join("spec");
    let schema_file = spec.join(FUTURE).join("schema.json");
    std::fs::create_dir_all(schema_file.parent().unwrap()).unwrap();
    let future = future_schema(&base);
    std::fs::write(&schema_file, &future).unwrap();

    // The pin line and the overlay file: the only inputs a new version needs.
    let pins_dir = dir.path().join("pins");
    std::fs::create_dir_all(pins_dir.join("overlays")).unwrap();
    let pins_file = pins_dir.join("versions.json");
    std::fs::write(
        &pins_file,
        serde_json::to_string_pretty(&json!({
            "latest": FUTURE,
            "versions": [{
                "version": FUTURE,
                "module": "v2030_01_01",
                "url": "https://example.invalid/2030-01-01/schema.json",
                "sha256": source::sha256_hex(&future),
            }]
        }))
        .unwrap(),
    )
    .unwrap();
    std::fs::write(
        pins_dir.join("overlays").join(format!("{FUTURE}.json")),
        source::builtin_overlay("2026-07-28").unwrap(),
    )
    .unwrap();

    let krate = dir.path().join("future");
    std::fs::create_dir_all(krate.join("src")).unwrap();
    let out = krate.join("src").join("mcp.rs");
    let status = bin()
        .args(["generate", "--version", FUTURE, "--pins"])
        .arg(&pins_file)
        .arg("--spec-dir")
        .arg(&spec)
        .arg("--out")
        .arg(&out)
        .args(["--open-union", "ServerNotification"])
        .status()
        .unwrap();
    assert!(status.success());
    let code = std::fs::read_to_string(&out).unwrap();
    assert!(code.contains("pub struct ListThingsRequest"));
    assert!(code.contains("pub struct ContentAnnotations"));
    assert!(!code.contains("pub struct Annotations "));
    // The overlay file was found by its name: `ResultType` has the values the overlay adds.
    assert!(code.contains("InputRequired"), "overlay not applied");

    // A wrong digest in the pin is refused with one line.
    let bad_pins = pins_dir.join("bad.json");
    std::fs::write(
        &bad_pins,
        std::fs::read_to_string(&pins_file)
            .unwrap()
            .replace(&source::sha256_hex(&future), &"0".repeat(64)),
    )
    .unwrap();
    let bad = bin()
        .args(["check", "--version", FUTURE, "--pins"])
        .arg(&bad_pins)
        .arg("--spec-dir")
        .arg(&spec)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&bad.stderr);
    assert_eq!(bad.status.code(), Some(2), "{err}");
    assert!(err.contains("sha256 mismatch"), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");

    // The generated code compiles and dispatches the new method.
    std::fs::write(
        krate.join("Cargo.toml"),
        r#"[package]
name = "future-version"
version = "0.0.0"
edition = "2021"
publish = false

[workspace]

[lib]
path = "src/lib.rs"

[dependencies]
serde = "1"
serde_json = { version = "1", features = ["preserve_order"] }
indexmap = { version = "2", features = ["serde"] }
"#,
    )
    .unwrap();
    std::fs::write(
        krate.join("src").join("lib.rs"),
        r##"#[allow(clippy::all, missing_docs, dead_code)]
pub mod mcp;

#[test]
fn the_new_method_dispatches() {
    let text = r#"{"jsonrpc":"2.0","id":7,"method":"things/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2030-01-01","io.modelcontextprotocol/clientCapabilities":{}}}}"#;
    let req: mcp::ClientRequest = serde_json::from_str(text).unwrap();
    assert!(matches!(req, mcp::ClientRequest::ListThingsRequest(_)));
}

/// A content block of a kind this version does not define (content unions are open by
/// default) is kept whole, and so is the notification of an `--open-union` union, which reads
/// its input as a stream up to `method`; the rest of the result is typed as usual.
#[test]
fn unknown_kinds_are_kept_where_unions_are_open() {
    let text = r#"{"content":[{"type":"text","text":"hi"},{"type":"video","uri":"v.mp4","frames":[1,2.5]}],"resultType":"complete"}"#;
    let result: mcp::CallToolResult = serde_json::from_str(text).unwrap();
    assert!(matches!(result.content[0], mcp::ContentBlock::TextContent(_)));
    let mcp::ContentBlock::Unknown(video) = &result.content[1] else { panic!("{:?}", result.content[1]) };
    assert_eq!(video["uri"], "v.mp4");
    assert_eq!(result.content[1].variant_name(), "Unknown");
    let back = serde_json::to_value(&result).unwrap();
    assert_eq!(back, serde_json::from_str::<serde_json::Value>(text).unwrap());
    assert_eq!(serde_json::to_string(&back["content"][1]).unwrap(), r#"{"type":"video","uri":"v.mp4","frames":[1,2.5]}"#);

    let text = r#"{"jsonrpc":"2.0","method":"notifications/things/changed","params":{"n":1}}"#;
    let note: mcp::ServerNotification = serde_json::from_str(text).unwrap();
    assert!(matches!(note, mcp::ServerNotification::Unknown(_)), "{note:?}");
    assert_eq!(serde_json::to_string(&note).unwrap(), text);
    let known = r#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}"#;
    let note: mcp::ServerNotification = serde_json::from_str(known).unwrap();
    assert_ne!(note.variant_name(), "Unknown");

    // Still refused: no discriminator, one that is not a string, a known kind that is malformed,
    // and unknown kinds in a union left closed.
    let no_tag = serde_json::from_str::<mcp::ContentBlock>(r#"{"text":"hi"}"#).unwrap_err();
    assert!(no_tag.to_string().contains("missing field `type`"), "{no_tag}");
    let number = serde_json::from_str::<mcp::ContentBlock>(r#"{"type":5}"#).unwrap_err();
    assert!(number.to_string().contains("invalid `type`, expected a string"), "{number}");
    let number = serde_json::from_str::<mcp::ServerNotification>(r#"{"jsonrpc":"2.0","method":5}"#).unwrap_err();
    assert!(number.to_string().contains("invalid `method`, expected a string"), "{number}");
    let bad = serde_json::from_str::<mcp::ContentBlock>(r#"{"type":"text"}"#).unwrap_err();
    assert!(bad.to_string().contains("missing field `text`"), "{bad}");
    let closed = r#"{"jsonrpc":"2.0","id":1,"method":"things/unknown","params":{}}"#;
    let closed = serde_json::from_str::<mcp::ClientRequest>(closed).unwrap_err();
    assert!(closed.to_string().contains("unknown `method` value `things/unknown`"), "{closed}");
}
"##,
    )
    .unwrap();
    let target = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join("target")
        .join("future-version");
    let test = Command::new(env!("CARGO"))
        .args(["test", "-q"])
        .current_dir(&krate)
        .env("CARGO_TARGET_DIR", &target)
        .output()
        .unwrap();
    assert!(
        test.status.success(),
        "{}{}",
        String::from_utf8_lossy(&test.stdout),
        String::from_utf8_lossy(&test.stderr)
    );

    // The diff between the two versions names the rename as a rename, and the new method.
    let diff = bin()
        .arg("diff")
        .arg(&base_path)
        .arg(&schema_file)
        .output()
        .unwrap();
    assert!(diff.status.success());
    let report = String::from_utf8(diff.stdout).unwrap();
    assert!(
        report.starts_with("types: 2 added, 0 removed, 1 renamed"),
        "{report}"
    );
    assert!(
        report.contains("> Annotations renamed to ContentAnnotations"),
        "{report}"
    );
    assert!(report.contains("+ ListThingsRequest (object)"), "{report}");
    assert!(
        report.contains("  + member `ListThingsRequest`"),
        "{report}"
    );
}
