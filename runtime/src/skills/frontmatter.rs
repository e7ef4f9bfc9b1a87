//! A `SKILL.md`'s YAML frontmatter, read into JSON and checked against the Agent Skills rules.

use serde_json::{Map, Number, Value};
use yaml_rust2::parser::{Event, Parser};
use yaml_rust2::{Yaml, YamlLoader};

/// The frontmatter of `text` (a `SKILL.md`): the mapping between a leading `---` line and the
/// next `---` line, as JSON, with a non-empty string `name` and `description`; or why not.
pub(crate) fn parse(text: &str) -> Result<Map<String, Value>, String> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines = text.split_inclusive('\n');
    let first = lines.next().unwrap_or("");
    if first.trim_end_matches(['\r', '\n']) != "---" {
        return Err("SKILL.md does not begin with a `---` frontmatter line".into());
    }
    let mut yaml = String::new();
    let mut closed = false;
    for line in lines {
        if line
            .trim_end_matches(['\r', '\n'])
            .trim_end_matches([' ', '\t'])
            == "---"
        {
            closed = true;
            break;
        }
        yaml.push_str(line);
    }
    if !closed {
        return Err("the frontmatter has no closing `---` line".into());
    }
    refuse_anchors(&yaml)?;
    let docs = YamlLoader::load_from_str(&yaml).map_err(|e| format!("frontmatter: {e}"))?;
    let Some(doc) = docs.into_iter().next() else {
        return Err("the frontmatter is empty".into());
    };
    let Value::Object(map) = to_json(doc)? else {
        return Err("the frontmatter is not a mapping".into());
    };
    for field in ["name", "description"] {
        match map.get(field) {
            Some(Value::String(s)) if !s.is_empty() => {}
            _ => return Err(format!("the frontmatter has no non-empty string `{field}`")),
        }
    }
    Ok(map)
}

/// Refuses a frontmatter with an anchor or an alias before anything is built from it: the YAML
/// loader copies an anchored node at every alias of it, so a few hundred bytes of nested
/// aliases ("billion laughs") would expand to gigabytes. Read as events, nothing is copied; a
/// frontmatter is a handful of plain fields and needs neither.
fn refuse_anchors(yaml: &str) -> Result<(), String> {
    let mut parser = Parser::new_from_str(yaml);
    loop {
        let (event, mark) = parser
            .next_token()
            .map_err(|e| format!("frontmatter: {e}"))?;
        let anchored = match event {
            Event::StreamEnd => return Ok(()),
            Event::Alias(_) => true,
            Event::Scalar(_, _, anchor, _)
            | Event::SequenceStart(anchor, _)
            | Event::MappingStart(anchor, _) => anchor > 0,
            _ => false,
        };
        if anchored {
            return Err(format!(
                "frontmatter: anchors and aliases are not supported (line {})",
                mark.line()
            ));
        }
    }
}

/// A YAML value as JSON. Mapping keys must be strings; aliases are not taken.
fn to_json(yaml: Yaml) -> Result<Value, String> {
    Ok(match yaml {
        Yaml::Null => Value::Null,
        Yaml::Boolean(b) => Value::Bool(b),
        Yaml::Integer(i) => Value::Number(i.into()),
        Yaml::Real(text) => {
            let f: f64 = text
                .parse()
                .map_err(|_| format!("frontmatter: `{text}` is not a number"))?;
            Value::Number(
                Number::from_f64(f)
                    .ok_or_else(|| format!("frontmatter: `{text}` is not finite"))?,
            )
        }
        Yaml::String(s) => Value::String(s),
        Yaml::Array(items) => {
            Value::Array(items.into_iter().map(to_json).collect::<Result<_, _>>()?)
        }
        Yaml::Hash(entries) => {
            let mut map = Map::new();
            for (k, v) in entries {
                let key = match k {
                    Yaml::String(s) => s,
                    other => {
                        return Err(format!(
                            "frontmatter: a key that is not a string ({other:?})"
                        ))
                    }
                };
                map.insert(key, to_json(v)?);
            }
            Value::Object(map)
        }
        Yaml::Alias(_) => return Err("frontmatter: aliases are not supported".into()),
        Yaml::BadValue => return Err("frontmatter: a value that cannot be read".into()),
    })
}

/// Whether `name` satisfies the Agent Skills naming rules: 1-64 characters, lowercase ASCII
/// letters, digits and hyphens, no leading, trailing or consecutive hyphen.
pub(crate) fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        && !name.starts_with('-')
        && !name.ends_with('-')
        && !name.contains("--")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frontmatter_is_read_as_json() {
        let text = "---\nname: pdf-processing\ndescription: Extract PDFs\nmetadata:\n  version: 2\n  tags: [a, b]\n---\n# Body\n";
        let map = parse(text).unwrap();
        assert_eq!(map["name"], "pdf-processing");
        assert_eq!(map["metadata"]["version"], 2);
        assert_eq!(map["metadata"]["tags"][1], "b");
        assert!(parse("no frontmatter").is_err());
        assert!(parse("---\nname: x\n").is_err(), "unclosed");
        assert!(parse("---\nname: x\n---\n")
            .unwrap_err()
            .contains("description"));
        assert!(parse("---\n- a\n---\n").unwrap_err().contains("mapping"));
        assert!(parse("---\nname: [unclosed\n---\n").is_err());
    }

    #[test]
    fn anchors_and_aliases_are_refused_before_they_expand() {
        // Nine levels of nine aliases: 9^9 copies of "lol" if expanded.
        let mut bomb = String::from("---\nname: x\ndescription: y\na: &a [\"lol\"]\n");
        let names = ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j"];
        for pair in names.windows(2) {
            let refs = vec![format!("*{}", pair[0]); 9].join(", ");
            bomb.push_str(&format!("{}: &{} [{refs}]\n", pair[1], pair[1]));
        }
        bomb.push_str("---\n");
        assert!(bomb.len() < 600, "{} bytes", bomb.len());
        let refused = parse(&bomb).unwrap_err();
        assert!(refused.contains("anchors and aliases"), "{refused}");
        // An anchor alone, and an alias to a scalar, are refused alike.
        let anchor = "---\nname: x\ndescription: &d y\n---\n";
        assert!(parse(anchor).unwrap_err().contains("anchors"));
        let alias = "---\nname: &n x\ndescription: *n\n---\n";
        assert!(parse(alias).unwrap_err().contains("aliases"));
        // `&` and `*` inside values are text, not anchors.
        let text = "---\nname: x\ndescription: \"a & b * c\"\nnote: a&b\n---\n";
        assert_eq!(parse(text).unwrap()["note"], "a&b");
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_crash() {
        for depth in [1_000, 100_000] {
            let text = format!(
                "---\nname: x\ndescription: y\ndeep: {}{}\n---\n",
                "[".repeat(depth),
                "]".repeat(depth)
            );
            assert!(parse(&text).is_err(), "{depth} nested sequences");
            let text = format!(
                "---\nname: x\ndescription: y\ndeep: {}1{}\n---\n",
                "{a: ".repeat(depth),
                "}".repeat(depth)
            );
            assert!(parse(&text).is_err(), "{depth} nested mappings");
        }
    }

    proptest::proptest! {
        /// Whatever a server's `SKILL.md` holds, reading its frontmatter gives a map or a
        /// reason, never a panic.
        #[test]
        fn any_frontmatter_is_read_or_refused(
            body in "(\\PC|\n|[:\\-\\[\\]{}&*!|>'\"#%@`, ]){0,200}",
        ) {
            let _ = parse(&body);
            let _ = parse(&format!("---\n{body}\n---\n"));
            let _ = parse(&format!("---\nname: a\ndescription: b\n{body}\n---\n"));
        }
    }

    #[test]
    fn names_follow_the_rules() {
        for ok in ["a", "pdf-processing", "x1", &"a".repeat(64)] {
            assert!(valid_name(ok), "{ok}");
        }
        for bad in ["", "-a", "a-", "a--b", "A", "a_b", "a b", &"a".repeat(65)] {
            assert!(!valid_name(bad), "{bad}");
        }
    }
}
