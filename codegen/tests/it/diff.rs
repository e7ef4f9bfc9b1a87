//! `oxmcp-codegen diff --format json|md`: renames found by structure (a renamed type with its
//! inline children is one rename; a field rename is a rename), and every change labelled as
//! breaking Rust code, breaking the wire, or neither.

use serde_json::{json, Value};
use std::path::Path;
use std::process::Command;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_oxmcp-codegen"))
}

/// The 2026-07-28 schema as the project keeps it.
fn latest_schema() -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../schema/2026-07-28/schema.json");
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
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

fn rename_def(schema: &mut Value, from: &str, to: &str) {
    let defs = schema["$defs"].as_object_mut().unwrap();
    let def = defs.shift_remove(from).unwrap();
    defs.insert(to.into(), def);
    rename_refs(schema, &format!("#/$defs/{from}"), &format!("#/$defs/{to}"));
}

/// `diff --format FORMAT` of two schema values; stdout.
fn diff(old: &Value, new: &Value, format: &str) -> String {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("old.json"), dir.path().join("new.json"));
    std::fs::write(&a, serde_json::to_vec(old).unwrap()).unwrap();
    std::fs::write(&b, serde_json::to_vec(new).unwrap()).unwrap();
    let out = bin()
        .arg("diff")
        .arg(&a)
        .arg(&b)
        .args(["--format", format])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn diff_json(old: &Value, new: &Value) -> Vec<Value> {
    serde_json::from_str::<Value>(&diff(old, new, "json"))
        .unwrap()
        .as_array()
        .unwrap()
        .clone()
}

fn change<'a>(changes: &'a [Value], ty: &str) -> &'a Value {
    changes
        .iter()
        .find(|c| c["type"] == ty)
        .unwrap_or_else(|| panic!("no change of {ty} in {changes:#?}"))
}

fn field<'a>(c: &'a Value, name: &str) -> &'a Value {
    c["fields"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["field"] == name)
        .unwrap_or_else(|| panic!("no change of field {name} in {c:#}"))
}

#[test]
fn a_renamed_type_with_inline_children_is_one_rename() {
    let old = latest_schema();
    let mut new = old.clone();
    // `Tool` has inline children (its input and output schemas), named after it: renamed along.
    rename_def(&mut new, "Tool", "ToolDefinition");
    let changes = diff_json(&old, &new);
    assert_eq!(changes.len(), 1, "{changes:#?}");
    let c = &changes[0];
    assert_eq!(c["change"], "renamed");
    assert_eq!(c["type"], "ToolDefinition");
    assert_eq!(c["from"], "Tool");
    assert_eq!(c["breaking"], true, "a Rust name changed");
    assert_eq!(c["wire_breaking"], false, "names are not on the wire");
    assert_eq!(c["fields"], json!([]));

    // Two types renamed that refer to each other are both found.
    let mut both = new.clone();
    rename_def(&mut both, "ListToolsResult", "ToolListing");
    let changes = diff_json(&old, &both);
    let renamed: Vec<(&str, &str)> = changes
        .iter()
        .map(|c| {
            assert_eq!(c["change"], "renamed", "{c:#}");
            (c["from"].as_str().unwrap(), c["type"].as_str().unwrap())
        })
        .collect();
    assert!(renamed.contains(&("Tool", "ToolDefinition")), "{renamed:?}");
    assert!(
        renamed.contains(&("ListToolsResult", "ToolListing")),
        "{renamed:?}"
    );
}

#[test]
fn field_changes_are_labelled() {
    let old = latest_schema();
    let mut new = old.clone();
    let defs = new["$defs"].as_object_mut().unwrap();
    // A field renamed: `Implementation.websiteUrl` becomes `homepage`.
    let imp = defs["Implementation"]["properties"]
        .as_object_mut()
        .unwrap();
    let url = imp.shift_remove("websiteUrl").unwrap();
    imp.insert("homepage".into(), url);
    // A field removed: `Implementation.description`.
    imp.shift_remove("description").unwrap();
    // A field that becomes required: `Tool.description`.
    defs["Tool"]["required"]
        .as_array_mut()
        .unwrap()
        .push("description".into());
    // A narrowed type: `ProgressNotificationParams.progress` from number to integer.
    defs["ProgressNotificationParams"]["properties"]["progress"]["type"] = "integer".into();
    // An optional field added: `Resource.checksum`.
    defs["Resource"]["properties"]
        .as_object_mut()
        .unwrap()
        .insert("checksum".into(), json!({"type": "string"}));

    let changes = diff_json(&old, &new);
    let imp = change(&changes, "Implementation");
    assert_eq!(imp["change"], "changed");
    let renamed = field(imp, "homepage");
    assert_eq!(renamed["change"], "renamed");
    assert_eq!(renamed["from"], "websiteUrl");
    assert_eq!(renamed["breaking"], true);
    let removed = field(imp, "description");
    assert_eq!(removed["change"], "removed");
    assert_eq!(removed["breaking"], true);
    assert_eq!(removed["wire_breaking"], false, "it was optional");
    assert_eq!(imp["breaking"], true);

    let tool = field(change(&changes, "Tool"), "description");
    assert_eq!(tool["change"], "changed");
    assert_eq!(tool["before"], "string (optional)");
    assert_eq!(tool["after"], "string (required)");
    assert_eq!(tool["breaking"], true);
    assert_eq!(tool["wire_breaking"], true);

    let progress = field(change(&changes, "ProgressNotificationParams"), "progress");
    assert_eq!(progress["before"], "number (required)");
    assert_eq!(progress["after"], "integer (required)");
    assert_eq!(progress["breaking"], true);
    assert_eq!(progress["wire_breaking"], true);

    let resource = change(&changes, "Resource");
    let added = field(resource, "checksum");
    assert_eq!(added["change"], "added");
    assert_eq!(added["breaking"], false);
    assert_eq!(added["wire_breaking"], false);
    assert_eq!(resource["breaking"], false);

    // The same changes as release notes.
    let md = diff(&old, &new, "md");
    let breaking = md.split("### Breaking for Rust code").nth(1).unwrap();
    let breaking = breaking.split("### Compatible").next().unwrap();
    for ty in ["`Implementation`", "`Tool`", "`ProgressNotificationParams`"] {
        assert!(breaking.contains(ty), "{md}");
    }
    let compatible = md.split("### Compatible").nth(1).unwrap();
    assert!(compatible.contains("`Resource`"), "{md}");
    assert!(compatible.contains("+ field `checksum`"), "{md}");
}

#[test]
fn members_and_values_and_removed_types() {
    let old = latest_schema();
    let mut new = old.clone();
    let defs = new["$defs"].as_object_mut().unwrap();
    defs.insert(
        "PingAgainRequest".into(),
        json!({
            "type": "object",
            "properties": {
                "id": {"$ref": "#/$defs/RequestId"},
                "jsonrpc": {"const": "2.0", "type": "string"},
                "method": {"const": "ping/again", "type": "string"}
            },
            "required": ["id", "jsonrpc", "method"]
        }),
    );
    defs["ClientRequest"]["anyOf"]
        .as_array_mut()
        .unwrap()
        .push(json!({"$ref": "#/$defs/PingAgainRequest"}));
    defs["LoggingLevel"]["enum"]
        .as_array_mut()
        .unwrap()
        .push("trace".into());
    let changes = diff_json(&old, &new);
    assert_eq!(change(&changes, "PingAgainRequest")["change"], "added");
    let member = field(change(&changes, "ClientRequest"), "PingAgainRequest");
    assert_eq!(member["part"], "member");
    assert_eq!(member["breaking"], false, "the enum is non_exhaustive");
    assert_eq!(member["wire_breaking"], true, "an older server refuses it");
    let value = field(change(&changes, "LoggingLevel"), "trace");
    assert_eq!(value["part"], "value");
    assert_eq!(value["breaking"], false);
    assert_eq!(value["wire_breaking"], false, "unknown values are kept");

    // Removed the other way round.
    let back = diff_json(&new, &old);
    let removed = change(&back, "PingAgainRequest");
    assert_eq!(removed["change"], "removed");
    assert_eq!(removed["breaking"], true);
    assert_eq!(
        field(change(&back, "LoggingLevel"), "trace")["breaking"],
        true
    );
}

#[test]
fn identical_schemas_have_no_changes_and_text_stays_readable() {
    let old = latest_schema();
    assert_eq!(diff_json(&old, &old), Vec::<Value>::new());
    let text = diff(&old, &old, "text");
    assert_eq!(
        text,
        "types: 0 added, 0 removed, 0 renamed\ntypes changed: 0\n"
    );
}
