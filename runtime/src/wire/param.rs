//! The `Mcp-Param-<name>` headers of streamable HTTP: which tool arguments a tool declares for
//! them (`x-mcp-header` on its `inputSchema` properties) and how a value is written in one. The
//! server checks them, the client sends them.

use serde_json::{Map, Value};

/// The (argument, header name) pairs that the `properties` of a tool's `inputSchema` declare
/// with `x-mcp-header`.
pub(crate) fn header_params(properties: Option<&Value>) -> Vec<(String, String)> {
    properties
        .and_then(Value::as_object)
        .map(|props: &Map<String, Value>| {
            props
                .iter()
                .filter_map(|(arg, p)| {
                    p.get("x-mcp-header")
                        .and_then(Value::as_str)
                        .map(|h| (arg.clone(), h.to_string()))
                })
                .collect()
        })
        .unwrap_or_default()
}

/// The (argument, header name) pairs a tool declares, checked as a client must before it calls
/// the tool (SEP-2243): each name non-empty and a header token (visible ASCII, no separators
/// such as space or colon), each only on a `string`, `integer` or `boolean` property, no name
/// twice (ignoring case). The first problem, if any.
#[cfg(feature = "client")]
pub(crate) fn checked_header_params(
    properties: Option<&Value>,
) -> Result<Vec<(String, String)>, String> {
    let Some(props) = properties.and_then(Value::as_object) else {
        return Ok(Vec::new());
    };
    let mut found: Vec<(String, String)> = Vec::new();
    for (arg, p) in props {
        let Some(declared) = p.get("x-mcp-header") else {
            continue;
        };
        let Some(name) = declared.as_str() else {
            return Err(format!("`{arg}`: x-mcp-header is not a string"));
        };
        if name.is_empty() {
            return Err(format!("`{arg}`: x-mcp-header is empty"));
        }
        let token = |b: u8| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b);
        if !name.bytes().all(token) {
            return Err(format!(
                "`{arg}`: x-mcp-header `{name}` is not a header name (visible ASCII, no space, colon or other separator)"
            ));
        }
        match p.get("type").and_then(Value::as_str) {
            Some("string" | "integer" | "boolean") => {}
            other => {
                return Err(format!(
                "`{arg}`: x-mcp-header is only for string, integer and boolean arguments, not {}",
                other.unwrap_or("an argument without one type")
            ))
            }
        }
        if let Some((other, _)) = found.iter().find(|(_, h)| h.eq_ignore_ascii_case(name)) {
            return Err(format!(
                "`{arg}` and `{other}` are mirrored in the same header `{name}`"
            ));
        }
        found.push((arg.clone(), name.to_string()));
    }
    Ok(found)
}

/// How an `Mcp-Param-*` value wraps text a header cannot carry as it is: Base64 of its UTF-8
/// between these two.
#[cfg(any(feature = "http", feature = "client"))]
const PARAM_B64: (&str, &str) = ("=?base64?", "?=");

/// The text an argument is compared as in its `Mcp-Param-*` header: a string itself, any other
/// value its JSON.
#[cfg(any(feature = "http", feature = "client"))]
pub(crate) fn param_text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// The `Mcp-Param-*` header value for `text`: the text itself when it is plain visible ASCII
/// (spaces inside allowed), otherwise wrapped Base64, which also covers text that would read as
/// that form or lose surrounding whitespace in transit. [`decode_param`] reads it back.
#[cfg(feature = "client")]
pub(crate) fn encode_param(text: &str) -> String {
    let plain = text.bytes().all(|b| b == b' ' || b.is_ascii_graphic())
        && !text.starts_with(' ')
        && !text.ends_with(' ')
        && !text.starts_with(PARAM_B64.0);
    if plain {
        text.to_string()
    } else {
        let encoded = base64_simd::STANDARD.encode_to_string(text);
        format!("{}{encoded}{}", PARAM_B64.0, PARAM_B64.1)
    }
}

/// The value of an `Mcp-Param-*` header: `=?base64?...?=` is strict Base64 of UTF-8 text,
/// anything else is literal.
#[cfg(feature = "http")]
pub(crate) fn decode_param(raw: &str) -> Result<String, String> {
    match raw
        .strip_prefix(PARAM_B64.0)
        .and_then(|r| r.strip_suffix(PARAM_B64.1))
    {
        Some(encoded) => base64_simd::STANDARD
            .decode_to_vec(encoded)
            .ok()
            .and_then(|b| String::from_utf8(b).ok())
            .ok_or_else(|| "invalid Base64 in Mcp-Param header".to_string()),
        None => Ok(raw.to_string()),
    }
}

#[cfg(all(test, feature = "http", feature = "client"))]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn header_values_are_plain_only_when_they_survive_a_header_unchanged() {
        for plain in ["eu-west-1", "a b", "", "x=?base64?y"] {
            assert_eq!(encode_param(plain), plain);
        }
        for encoded in [
            "Zürich",
            " lead",
            "trail ",
            "tab\t",
            "line\n",
            "=?base64?ZXU=?=",
        ] {
            let v = encode_param(encoded);
            let inner = v
                .strip_prefix("=?base64?")
                .and_then(|r| r.strip_suffix("?="))
                .unwrap_or_else(|| panic!("{encoded:?} was sent plain: {v}"));
            let decoded = base64_simd::STANDARD.decode_to_vec(inner).unwrap();
            assert_eq!(String::from_utf8(decoded).unwrap(), encoded);
        }
    }

    #[test]
    fn invalid_header_declarations_are_refused() {
        let ok = json!({"region": {"type": "string", "x-mcp-header": "Region"},
                        "n": {"type": "integer", "x-mcp-header": "N"}});
        assert_eq!(checked_header_params(Some(&ok)).unwrap().len(), 2);
        for bad in [
            json!({"v": {"type": "string", "x-mcp-header": ""}}),
            json!({"v": {"type": "object", "x-mcp-header": "V"}}),
            json!({"v": {"type": "array", "x-mcp-header": "V"}}),
            json!({"v": {"type": "null", "x-mcp-header": "V"}}),
            json!({"v": {"type": "number", "x-mcp-header": "V"}}),
            json!({"v": {"type": "string", "x-mcp-header": 3}}),
            json!({"a": {"type": "string", "x-mcp-header": "Region"},
                   "b": {"type": "string", "x-mcp-header": "Region"}}),
            json!({"a": {"type": "string", "x-mcp-header": "MyField"},
                   "b": {"type": "string", "x-mcp-header": "myfield"}}),
            json!({"v": {"type": "string", "x-mcp-header": "My Region"}}),
            json!({"v": {"type": "string", "x-mcp-header": "Region:Primary"}}),
            json!({"v": {"type": "string", "x-mcp-header": "Région"}}),
            json!({"v": {"type": "string", "x-mcp-header": "Region\t1"}}),
        ] {
            assert!(checked_header_params(Some(&bad)).is_err(), "{bad}");
        }
    }

    #[test]
    fn header_arguments_come_from_x_mcp_header_properties() {
        let props = json!({
            "region": {"type": "string", "x-mcp-header": "Region"},
            "n": {"type": "integer"}});
        assert_eq!(
            header_params(Some(&props)),
            vec![("region".to_string(), "Region".to_string())]
        );
        assert!(header_params(None).is_empty());
        assert!(header_params(Some(&json!({"n": {"type": "integer"}}))).is_empty());
    }
}
