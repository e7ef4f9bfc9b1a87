//! The `oxmcp-codegen` command line and the library's handling of bad input: every failure is one
//! line naming the file and the problem, and nothing panics.

use std::path::Path;
use std::process::Command;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_oxmcp-codegen"))
}

fn generate_err(schema_text: &str) -> String {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("schema.json");
    std::fs::write(&path, schema_text).unwrap();
    let err = oxmcp_codegen::Builder::new()
        .schema(&path)
        .no_overlay()
        .emit_rerun_if_changed(false)
        .generate_string()
        .unwrap_err()
        .to_string();
    assert!(!err.contains('\n'), "one line: {err}");
    assert!(
        err.starts_with(&path.display().to_string()),
        "names the file: {err}"
    );
    err
}

#[test]
fn malformed_schema_file() {
    let err = generate_err("{\"$defs\": {\"A\": ");
    assert!(err.contains("malformed JSON"), "{err}");
    assert!(err.contains("line 1"), "{err}");
}

#[test]
fn unknown_ref() {
    let err = generate_err(
        r##"{"$defs": {"A": {"type": "object", "properties": {"b": {"$ref": "#/$defs/Nope"}}}}}"##,
    );
    assert!(err.contains("unknown $ref `#/$defs/Nope`"), "{err}");
    assert!(err.contains("`A`.b"), "names where: {err}");
}

#[test]
fn schema_without_definitions_and_wrong_shapes() {
    assert!(generate_err("[1, 2]").contains("neither `$defs` nor `definitions`"));
    assert!(generate_err(r#"{"$defs": {"A": 5}}"#).contains("is not an object"));
    assert!(
        generate_err(r#"{"$defs": {"A": {"type": "object", "properties": 3}}}"#)
            .contains("`properties`")
    );
    assert!(generate_err(r#"{"$defs": {"A": {"type": "wat"}}}"#).contains("unknown type `wat`"));
}

#[test]
fn wrong_sha256_through_spec_dir() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("2026-07-28").join("schema.json");
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::write(&file, "{\"$defs\": {}}").unwrap();
    let out = bin()
        .args(["check", "--version", "2026-07-28", "--spec-dir"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    let errors: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("oxmcp-codegen:"))
        .collect();
    assert_eq!(errors.len(), 1, "{stderr}");
    assert!(errors[0].contains(&file.display().to_string()), "{stderr}");
    assert!(errors[0].contains("sha256 mismatch"), "{stderr}");
}

#[test]
fn missing_schema_names_the_fetch_command() {
    let dir = tempfile::tempdir().unwrap();
    let tried = [
        dir.path().join("a/schema.json"),
        dir.path().join("b/schema.json"),
    ];
    let err = oxmcp_codegen::source::locate_in("2026-07-28", &"0".repeat(64), &tried)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("run `oxmcp-codegen fetch 2026-07-28`"),
        "{err}"
    );
    assert!(
        err.contains("a/schema.json") && err.contains("b/schema.json"),
        "{err}"
    );
    let out = bin()
        .args(["fetch", "1999-01-01", "--from", "/nonexistent"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown protocol version"));
}

#[test]
fn generation_is_deterministic_and_matches_the_committed_bindings() {
    let builder = oxmcp_codegen::Builder::new()
        .emit_rerun_if_changed(false)
        .support_path(oxmcp_codegen::table::SUPPORT_PATH);
    let a = builder.generate_string().unwrap().code;
    let b = builder.generate_string().unwrap().code;
    assert!(a == b, "two generations differ");
    let committed = Path::new(env!("CARGO_MANIFEST_DIR")).join("../generated/src/v2026_07_28.rs");
    assert!(
        std::fs::read_to_string(committed).unwrap() == a,
        "run `cargo run -p oxmcp-codegen -- generate`"
    );
}

#[test]
fn check_reports_a_unified_diff_and_exit_1() {
    let dir = tempfile::tempdir().unwrap();
    let out_file = dir.path().join("v.rs");
    let ok = bin()
        .args(["generate", "--version", "2025-06-18", "--out"])
        .arg(&out_file)
        .output()
        .unwrap();
    assert!(
        ok.status.success(),
        "{}",
        String::from_utf8_lossy(&ok.stderr)
    );
    let ok = bin()
        .args(["check", "--version", "2025-06-18", "--out"])
        .arg(&out_file)
        .output()
        .unwrap();
    assert_eq!(ok.status.code(), Some(0));
    let text = std::fs::read_to_string(&out_file).unwrap();
    std::fs::write(
        &out_file,
        text.replacen("pub struct", "pub struct Edited;\npub struct", 1),
    )
    .unwrap();
    let bad = bin()
        .args(["check", "--version", "2025-06-18", "--out"])
        .arg(&out_file)
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(1));
    let diff = String::from_utf8_lossy(&bad.stdout);
    assert!(
        diff.contains("@@") && diff.contains("-pub struct Edited;"),
        "{diff}"
    );
}

#[test]
fn every_pinned_version_generates() {
    for pin in oxmcp_codegen::Pins::builtin().unwrap().versions {
        let g = oxmcp_codegen::Builder::new()
            .version(&pin.version)
            .emit_rerun_if_changed(false)
            .generate_string()
            .unwrap_or_else(|e| panic!("{}: {e}", pin.version));
        assert!(g.code.contains("pub struct"), "{}", pin.version);
    }
}

#[test]
fn diff_reports_added_removed_and_changed() {
    let out = bin()
        .args(["diff", "2025-11-25", "2026-07-28"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(
        report.contains("+ InputRequiredResult (object)"),
        "{report}"
    );
    assert!(
        report.contains("- InitializeRequest (object) [breaking, wire-breaking]"),
        "{report}"
    );
    assert!(
        report.contains("\nCallToolRequestParams") && report.contains("  + field `inputResponses`"),
        "{report}"
    );
}

#[test]
fn unknown_command_and_option() {
    let out = bin().arg("explode").output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let out = bin().args(["check", "--bogus", "1"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unexpected argument '--bogus'"));
}

#[test]
fn version_and_help_for_the_program_and_every_subcommand() {
    let out = bin().arg("--version").output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        format!("oxmcp-codegen {}", env!("CARGO_PKG_VERSION"))
    );
    let out = bin().arg("--help").output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let help = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(help.contains("Exit status:"), "{help}");
    // Every subcommand the program lists has its own help, with the exit codes.
    let commands: Vec<String> = help
        .split("Commands:")
        .nth(1)
        .unwrap()
        .split("Options:")
        .next()
        .unwrap()
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| *c != "help" && c.chars().all(|ch| ch.is_ascii_lowercase()))
        .map(str::to_string)
        .collect();
    for expected in ["generate", "check", "fetch", "diff", "client"] {
        assert!(
            commands.iter().any(|c| c == expected),
            "{expected} in {help}"
        );
    }
    for command in &commands {
        let out = bin().args([command, "--help"]).output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{command} --help");
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.contains("Usage: oxmcp-codegen"), "{command}: {text}");
        assert!(text.contains("Exit status:"), "{command}: {text}");
    }
}

#[test]
fn failures_are_one_line_naming_the_cause() {
    let out = bin()
        .args(["client", "--tools", "/nonexistent/tools.json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.starts_with("oxmcp-codegen: /nonexistent/tools.json: "),
        "{stderr}"
    );
    // A server that cannot be reached: the address and the cause, once.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url = format!("http://127.0.0.1:{port}/mcp");
    let out = bin().args(["client", "--url", &url]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert_eq!(stderr.matches(&url).count(), 1, "{stderr}");
}

#[test]
fn replacing_a_type_the_schema_lacks_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("schema.json");
    std::fs::write(&path, r#"{"$defs": {"A": {"type": "string"}}}"#).unwrap();
    let build = |name: &str| {
        oxmcp_codegen::Builder::new()
            .schema(&path)
            .no_overlay()
            .replace(name, "::std::string::String")
            .emit_rerun_if_changed(false)
            .generate_string()
    };
    assert!(build("A").is_ok());
    let err = build("Nope").unwrap_err().to_string();
    assert!(
        err.contains("replace(\"Nope\", ..) names no type of this schema"),
        "{err}"
    );
}

#[test]
fn no_overlay_generates_the_schema_as_published() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("out.rs");
    let run = |version: &str, extra: &[&str]| {
        bin()
            .args(["generate", "--version", version, "--out"])
            .arg(&file)
            .args(extra)
            .output()
            .unwrap()
    };
    // The overlay gives ResultType its two values; as published it is a plain string, and the
    // error codes' integer constants are findings nothing accepts, so generation stops.
    assert!(run("2026-07-28", &[]).status.success());
    assert!(std::fs::read_to_string(&file)
        .unwrap()
        .contains("pub enum ResultType"));
    let raw = run("2026-07-28", &["--no-overlay"]);
    let err = String::from_utf8_lossy(&raw.stderr);
    assert_eq!(raw.status.code(), Some(2), "{err}");
    assert!(
        err.contains("`ParseError`: non-string-const (const -32700 at .code)"),
        "{err}"
    );
    // A version without an overlay generates the same with or without the option (a file
    // written elsewhere embeds the support code the committed one imports).
    assert!(run("2025-06-18", &["--no-overlay"]).status.success());
    let committed = Path::new(env!("CARGO_MANIFEST_DIR")).join("../generated/src/v2025_06_18.rs");
    let committed = std::fs::read_to_string(committed).unwrap().replacen(
        "use crate::support as __private;\n",
        "",
        1,
    );
    let written = std::fs::read_to_string(&file).unwrap().replacen(
        "#[allow(unused_imports)]\npub use __private::{Validate, ValidationError, ValidationPath};\n",
        "",
        1,
    );
    let types = &written[..written
        .find("/// Support code for the generated types")
        .unwrap()];
    assert!(types == committed, "--no-overlay changed 2025-06-18");
}
