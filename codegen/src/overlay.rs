//! Project-owned fixes to the published schema, kept as data (one file per version) and applied
//! before lowering. Each fix says why it exists; a fix that no longer matches anything is an error,
//! so a stale overlay is noticed when the spec changes.

use crate::error::{Error, Result};
use serde::Deserialize;
use serde_json::Value;

/// An overlay file: a list of fixes.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Overlay {
    /// The fixes, applied in order.
    pub fixes: Vec<Fix>,
}

/// One fix: an operation at every location a path matches.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Fix {
    /// Why the published schema is wrong here, in one line.
    pub reason: String,
    /// A JSON Pointer; a `*` segment matches every key of an object.
    pub path: String,
    /// Pointers the wildcard must skip.
    #[serde(default)]
    pub except: Vec<String>,
    /// The operation.
    pub op: Op,
    /// The operand.
    pub value: Value,
}

/// What a fix does at each matched location.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Op {
    /// Replace the value.
    Replace,
    /// RFC 7386 JSON merge patch (a `null` member deletes).
    Merge,
    /// Remove the names in `value` (a string or list) from the `required` list of the matched object.
    Unrequire,
}

impl Overlay {
    /// Parse an overlay from JSON text.
    pub fn parse(text: &str) -> Result<Self> {
        serde_json::from_str(text).map_err(|e| Error::msg(format!("invalid overlay: {e}")))
    }

    /// Apply every fix to `schema`.
    pub fn apply(&self, schema: &mut Value) -> Result<()> {
        for fix in &self.fixes {
            let segments: Vec<String> = match fix.path.strip_prefix('/') {
                Some(rest) => rest.split('/').map(unescape).collect(),
                None if fix.path.is_empty() => Vec::new(),
                None => {
                    return Err(Error::msg(format!(
                        "overlay path `{}` must start with `/`",
                        fix.path
                    )))
                }
            };
            let mut matched = Vec::new();
            collect(schema, &segments, String::new(), &mut matched);
            matched.retain(|p| !fix.except.contains(p));
            if matched.is_empty() {
                return Err(Error::msg(format!(
                    "overlay fix `{}` matches nothing at `{}` (is it still needed?)",
                    fix.reason, fix.path
                )));
            }
            let mut changed = false;
            for pointer in matched {
                let Some(target) = schema.pointer_mut(&pointer) else {
                    continue;
                };
                match fix.op {
                    Op::Replace => *target = fix.value.clone(),
                    Op::Merge => merge(target, &fix.value),
                    Op::Unrequire => {
                        if !unrequire(target, &fix.value)? {
                            continue;
                        }
                    }
                }
                changed = true;
            }
            if !changed {
                return Err(Error::msg(format!(
                    "overlay fix `{}` changes nothing at `{}` (is it still needed?)",
                    fix.reason, fix.path
                )));
            }
        }
        Ok(())
    }
}

fn unescape(s: &str) -> String {
    s.replace("~1", "/").replace("~0", "~")
}

fn escape(s: &str) -> String {
    s.replace('~', "~0").replace('/', "~1")
}

fn collect(v: &Value, segments: &[String], at: String, out: &mut Vec<String>) {
    let Some((first, rest)) = segments.split_first() else {
        out.push(at);
        return;
    };
    match v {
        Value::Object(map) if first == "*" => {
            for (k, child) in map {
                collect(child, rest, format!("{at}/{}", escape(k)), out);
            }
        }
        Value::Object(map) => {
            if let Some(child) = map.get(first.as_str()) {
                collect(child, rest, format!("{at}/{}", escape(first)), out);
            }
        }
        Value::Array(items) => {
            if let Some(child) = first.parse::<usize>().ok().and_then(|i| items.get(i)) {
                collect(child, rest, format!("{at}/{first}"), out);
            }
        }
        _ => {}
    }
}

/// RFC 7386 merge patch.
fn merge(target: &mut Value, patch: &Value) {
    let Value::Object(patch) = patch else {
        *target = patch.clone();
        return;
    };
    if !target.is_object() {
        *target = Value::Object(Default::default());
    }
    if let Value::Object(map) = target {
        for (k, v) in patch {
            if v.is_null() {
                map.remove(k);
            } else {
                merge(map.entry(k.clone()).or_insert(Value::Null), v);
            }
        }
    }
}

/// Remove `names` from the `required` list of `target`; whether anything was removed.
fn unrequire(target: &mut Value, names: &Value) -> Result<bool> {
    let names: Vec<&str> = match names {
        Value::String(s) => vec![s.as_str()],
        Value::Array(a) => a.iter().filter_map(Value::as_str).collect(),
        _ => {
            return Err(Error::msg(
                "`unrequire` takes a string or a list of strings",
            ))
        }
    };
    let Some(required) = target.get_mut("required").and_then(Value::as_array_mut) else {
        return Ok(false);
    };
    let before = required.len();
    required.retain(|r| !r.as_str().is_some_and(|r| names.contains(&r)));
    Ok(required.len() != before)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn wildcard_merge_and_unrequire() {
        let mut schema = json!({"$defs": {
            "A": {"properties": {"t": {"type": "string"}}, "required": ["t", "x"]},
            "B": {"properties": {"t": {"type": "string"}}, "required": ["t"]},
        }});
        let overlay = Overlay::parse(r#"{"fixes": [
            {"reason": "r", "path": "/$defs/*/properties/t", "except": ["/$defs/B/properties/t"], "op": "merge", "value": {"const": "a", "type": null}},
            {"reason": "r", "path": "/$defs/A", "op": "unrequire", "value": "t"}
        ]}"#).unwrap();
        overlay.apply(&mut schema).unwrap();
        assert_eq!(
            schema["$defs"]["A"]["properties"]["t"],
            json!({"const": "a"})
        );
        assert_eq!(
            schema["$defs"]["B"]["properties"]["t"],
            json!({"type": "string"})
        );
        assert_eq!(schema["$defs"]["A"]["required"], json!(["x"]));
    }

    #[test]
    fn stale_fix_is_an_error() {
        let mut schema = json!({"$defs": {}});
        let overlay = Overlay::parse(
            r#"{"fixes": [{"reason": "gone", "path": "/$defs/X", "op": "replace", "value": 1}]}"#,
        )
        .unwrap();
        let err = overlay.apply(&mut schema).unwrap_err().to_string();
        assert!(err.contains("matches nothing"), "{err}");
    }
}
