//! Golden tests of the check phase: each schema in `tests/findings/` uses one construct the
//! generated code cannot express exactly (or a union it cannot tell apart); generation fails with
//! the message in the `.txt` beside it, names the type and the construct, and succeeds once the
//! finding is accepted by the builder or by the schema. A schema with nothing to report has an
//! empty `.txt`. `UPDATE_GOLDEN=1` rewrites the expected messages.

use oxmcp_codegen::check::Finding;
use std::path::Path;

fn builder(schema: &Path) -> oxmcp_codegen::Builder {
    oxmcp_codegen::Builder::new()
        .schema(schema)
        .no_overlay()
        .emit_rerun_if_changed(false)
}

#[test]
fn each_loosened_construct_is_reported_until_accepted() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/findings");
    let mut checked = 0;
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    paths.sort();
    for schema in paths {
        let expected_path = schema.with_extension("txt");
        let outcome = builder(&schema).generate_string();
        let message = match &outcome {
            Ok(_) => String::new(),
            Err(e) => {
                let text = e.to_string();
                // The file prefix is the machine's path; the golden holds the rest.
                let text = text
                    .strip_prefix(&format!("{}: ", schema.display()))
                    .unwrap_or(&text)
                    .to_string();
                format!("{text}\n")
            }
        };
        if std::env::var_os("UPDATE_GOLDEN").is_some() {
            std::fs::write(&expected_path, &message).unwrap();
        }
        let expected = std::fs::read_to_string(&expected_path).unwrap_or_else(|e| {
            panic!(
                "{}: {e} (run with UPDATE_GOLDEN=1)",
                expected_path.display()
            )
        });
        assert_eq!(message, expected, "{}", schema.display());
        // Accepting every finding through the builder lets generation go ahead.
        let found: Vec<Finding> = builder(&schema).findings().unwrap();
        assert_eq!(found.is_empty(), outcome.is_ok(), "{}", schema.display());
        let mut accepting = builder(&schema);
        for f in &found {
            accepting = accepting.accept(&f.type_name, f.construct);
        }
        accepting.generate_string().unwrap();
        checked += 1;
    }
    assert!(checked >= 7, "only {checked} schemas");
}

#[test]
fn a_schema_can_accept_its_own_findings() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("schema.json");
    let mut schema: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/findings/ambiguous_union.json"),
        )
        .unwrap(),
    )
    .unwrap();
    std::fs::write(&path, schema.to_string()).unwrap();
    assert!(builder(&path).generate_string().is_err());
    // On the type...
    schema["$defs"]["Answer"]["x-oxmcp-codegen-accept"] = serde_json::json!(["ambiguous-union"]);
    std::fs::write(&path, schema.to_string()).unwrap();
    builder(&path).generate_string().unwrap();
    // ...or at the root, by construct; accepting another construct does not count.
    schema["$defs"]["Answer"]
        .as_object_mut()
        .unwrap()
        .remove("x-oxmcp-codegen-accept");
    schema["x-oxmcp-codegen-accept"] = serde_json::json!({"not": ["Answer"]});
    std::fs::write(&path, schema.to_string()).unwrap();
    assert!(builder(&path).generate_string().is_err());
    schema["x-oxmcp-codegen-accept"] = serde_json::json!({"ambiguous-union": ["Answer"]});
    std::fs::write(&path, schema.to_string()).unwrap();
    builder(&path).generate_string().unwrap();
}

#[test]
fn unchecked_validation_keywords_are_findings_unless_validation_is_off() {
    let schema =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/findings/unenforced_constraint.json");
    let found = builder(&schema).findings().unwrap();
    let details: Vec<&str> = found.iter().map(|f| f.detail.as_str()).collect();
    for keyword in [
        "format email",
        "pattern ^(?!x)[a-z]+$",
        "maxLength 3",
        "maxLength 4",
    ] {
        assert!(
            details.iter().any(|d| d.contains(keyword)),
            "{keyword} not reported: {details:?}"
        );
    }
    assert!(found
        .iter()
        .all(|f| f.construct == oxmcp_codegen::check::construct::UNENFORCED_CONSTRAINT));
    let off = builder(&schema).validation(oxmcp_codegen::Validation::Off);
    assert_eq!(off.findings().unwrap(), Vec::<Finding>::new());
    let code = off.generate_string().unwrap().code;
    assert!(
        !code.contains("pub trait Validate"),
        "validation off leaves the trait out"
    );
}
