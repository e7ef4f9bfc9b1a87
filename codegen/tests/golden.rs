//! Golden tests: a small schema beside its expected Rust output, so every change to the
//! generator shows up as a reviewable diff. `UPDATE_GOLDEN=1 cargo test -p mcp-codegen --test golden`
//! rewrites the expected files.

use std::path::Path;

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
        let code = mcp_codegen::Builder::new()
            .version("golden")
            .schema(&schema)
            .no_overlay()
            .emit_rerun_if_changed(false)
            .generate_string()
            .unwrap()
            .code;
        if std::env::var_os("UPDATE_GOLDEN").is_some() {
            std::fs::write(&expected_path, &code).unwrap();
        }
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
