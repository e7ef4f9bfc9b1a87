//! Golden tests: a small schema beside its expected Rust output, so every change to the
//! generator shows up as a reviewable diff. The support module every generated file ends with
//! (`mod __private`: the serde macros and dispatch helpers) is the same for every schema, so it
//! is kept once, in `golden/support.rs`, and each `<name>.rs` holds only the schema's own types.
//! `UPDATE_GOLDEN=1 cargo test -p oxmcp-codegen --test it golden::` rewrites the expected files.

/// Where the shared support module starts in a generated file.
const SUPPORT: &str = "/// Support code for the generated types; not a public API.\n";

use std::path::Path;

/// A builder for the golden schema `schema`, as published (no overlay), printing nothing for cargo.
fn golden(schema: &Path) -> oxmcp_codegen::Builder {
    oxmcp_codegen::Builder::new()
        .version("golden")
        .schema(schema)
        .no_overlay()
        .emit_rerun_if_changed(false)
}

#[test]
fn golden_outputs_match() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden");
    let mut checked = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let schema = entry.unwrap().path();
        if schema.extension().and_then(|e| e.to_str()) != Some("json") {
            continue;
        }
        let expected_path = schema.with_extension("rs");
        let code = golden(&schema).generate_string().unwrap().code;
        let at = code
            .find(SUPPORT)
            .expect("every generated file ends with the support module");
        let (code, support) = code.split_at(at);
        let support_path = dir.join("support.rs");
        if std::env::var_os("UPDATE_GOLDEN").is_some() {
            std::fs::write(&expected_path, code).unwrap();
            std::fs::write(&support_path, support).unwrap();
        }
        assert!(
            std::fs::read_to_string(&support_path).unwrap_or_default() == support,
            "{} differs from the generator's support module; review and run with UPDATE_GOLDEN=1",
            support_path.display()
        );
        let expected = std::fs::read_to_string(&expected_path).unwrap_or_else(|e| {
            panic!(
                "{}: {e} (run with UPDATE_GOLDEN=1)",
                expected_path.display()
            )
        });
        assert!(
            expected == code,
            "{} differs from the generator's output; review and run with UPDATE_GOLDEN=1",
            expected_path.display()
        );
        checked += 1;
    }
    assert!(checked > 0, "no golden schemas found");
}

/// `open_union` names a union that is dispatched on one discriminator of its objects, or
/// generation fails and says why.
#[test]
fn open_union_must_name_a_union_with_a_discriminator() {
    let schema = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/basic.json");
    let generate = |name: &str| golden(&schema).open_union(name).generate_string();
    let code = generate("Message").unwrap().code;
    assert!(code.contains("Unknown(::serde_json::Map<"), "{code}");
    for (name, why) in [
        ("Nope", "open_union(\"Nope\") names no union of this schema"),
        ("Ping", "open_union(\"Ping\") names no union of this schema"),
        (
            "PingId",
            "union `PingId` has no object member, so it cannot be open",
        ),
        (
            "Contents",
            "union `Contents` is not dispatched on one discriminator, so it cannot be open",
        ),
    ] {
        let e = generate(name).unwrap_err().to_string();
        assert!(e.contains(why), "{name}: {e}");
    }
}

/// Without the defaults, a union named like a content union is closed.
#[test]
fn default_open_unions_can_be_turned_off() {
    let schema = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/open.json");
    let code = golden(&schema)
        .no_default_open_unions()
        .generate_string()
        .unwrap()
        .code;
    assert!(!code.contains("Unknown("), "{code}");
}
