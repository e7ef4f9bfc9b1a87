//! A new protocol version is data end to end: in a scratch copy of this repository, a made-up
//! version is pinned from a folder with `oxmcp-codegen pin`, generated with `generate`, and the
//! bindings crate builds it behind its own feature (its `Validate` enforcing the new pattern);
//! the generator's tests and `check` pass, the runtime's version tables list it, and no file but
//! the spec data, the pins and what the generator writes has changed.
//!
//! With the `new-version-tests` feature, one more test runs the whole `cargo test --workspace`
//! in such a copy, with every version's module on (CI runs it:
//! `cargo test -p mcp-tests --features new-version-tests --test it new_version::`).

use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

const NEW: &str = "2030-01-01";

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// The build folder this test was built in: its binary is `<build>/<profile>/deps/<name>`.
fn build_dir() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    exe.ancestors().nth(3).unwrap().to_path_buf()
}

/// Copy the tracked files of the repository into `to` (symbolic links kept as links).
fn copy_tracked(to: &Path) {
    let out = Command::new("git")
        .args(["ls-files", "-z"])
        .current_dir(repo())
        .output()
        .expect("git runs");
    assert!(out.status.success());
    for name in out.stdout.split(|b| *b == 0).filter(|n| !n.is_empty()) {
        let rel = Path::new(std::str::from_utf8(name).unwrap());
        let (from, dest) = (repo().join(rel), to.join(rel));
        std::fs::create_dir_all(dest.parent().unwrap()).unwrap();
        let meta = std::fs::symlink_metadata(&from).unwrap();
        if meta.file_type().is_symlink() {
            std::os::unix::fs::symlink(std::fs::read_link(&from).unwrap(), &dest).unwrap();
        } else {
            std::fs::copy(&from, &dest).unwrap();
        }
    }
}

/// Every regular file under `dir` (links not followed, `target/` skipped) with its bytes.
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let entry = entry.unwrap();
            let path = entry.path();
            let kind = entry.file_type().unwrap();
            if kind.is_dir() && entry.file_name() != "target" {
                stack.push(path);
            } else if kind.is_file() {
                let rel = path.strip_prefix(dir).unwrap().to_path_buf();
                out.insert(rel, std::fs::read(&path).unwrap());
            }
        }
    }
    out
}

/// The 2026-07-28 schema with a new request (`things/list`, a member of `ClientRequest`) and a
/// new optional field of `Tool` whose value must match a `pattern` (a constraint no pinned
/// version states, which needs the regex crate): a version the generator has never seen.
fn made_up_schema() -> Vec<u8> {
    let base = repo().join("schema/2026-07-28/schema.json");
    let mut schema: Value = serde_json::from_slice(&std::fs::read(base).unwrap()).unwrap();
    let defs = schema["$defs"].as_object_mut().unwrap();
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
    defs["Tool"]["properties"].as_object_mut().unwrap().insert(
        "version".into(),
        json!({"type": "string", "maxLength": 64, "pattern": "^[0-9]+(\\.[0-9]+)*$"}),
    );
    serde_json::to_vec_pretty(&schema).unwrap()
}

/// Run `cargo ARGS` in `dir`, building in this workspace's build folder (so the registry
/// dependencies built for it are reused) and writing its binaries to `target`; panics with the
/// output on failure.
fn cargo(dir: &Path, target: &Path, args: &[&str]) -> String {
    let out = Command::new(env!("CARGO"))
        .args(args)
        .current_dir(dir)
        .env("CARGO_TARGET_DIR", target)
        .env("CARGO_BUILD_BUILD_DIR", build_dir())
        .env_remove("CARGO_MANIFEST_DIR")
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "cargo {}:\n{text}", args.join(" "));
    text
}

/// The generator's package with its command line but not the client commands (which build
/// the runtime), as cargo arguments.
const GENERATOR_CLI: &[&str] = &[
    "-p",
    "oxmcp-codegen",
    "--no-default-features",
    "--features",
    "cli",
];

/// Run the generator's command line in `dir` with `args`.
fn codegen(dir: &Path, target: &Path, args: &[&str]) -> String {
    let all = [&["run", "-q"], GENERATOR_CLI, &["--"], args].concat();
    cargo(dir, target, &all)
}

/// A scratch copy of the repository in `target/new-version/<name>` with the made-up version
/// pinned, generated and checked through the commands the README lists; checks that only spec
/// data, pins and generated files changed. The copy's root, and the folder its cargo commands
/// write binaries to.
fn scratch_with_new_version(name: &str) -> (PathBuf, PathBuf) {
    // At the same path every run: the scratch crates' build artifacts (in the shared build
    // folder, named by their path) are replaced rather than added to.
    let scratch = repo().join("target").join("new-version").join(name);
    if scratch.exists() {
        std::fs::remove_dir_all(&scratch).unwrap();
    }
    std::fs::create_dir_all(&scratch).unwrap();
    let root = scratch.join("repo");
    copy_tracked(&root);
    let spec = scratch.join("spec");
    std::fs::create_dir_all(spec.join(NEW)).unwrap();
    std::fs::write(spec.join(NEW).join("schema.json"), made_up_schema()).unwrap();
    let before = snapshot(&root);
    // The scratch workspace's own crates build apart from this one's (their paths differ); the
    // registry dependencies are shared through the build folder, and its binaries go elsewhere.
    let target = repo()
        .join("target")
        .join("new-version")
        .join(format!("{name}-bin"));

    // The commands the README lists for a new spec revision (with the command line alone: the
    // generator's client commands, which build the runtime, are not used here).
    let from = spec.to_str().unwrap();
    codegen(
        &root,
        &target,
        &[
            "pin",
            NEW,
            "--from",
            from,
            "--overlay-from",
            "2026-07-28",
            "--era",
            "2026",
        ],
    );
    codegen(&root, &target, &["generate", "--version", NEW]);
    codegen(&root, &target, &["check"]);

    // Only spec data, pins and generated files changed.
    let after = snapshot(&root);
    let changed: Vec<String> = after
        .iter()
        .filter(|(path, bytes)| before.get(*path) != Some(*bytes))
        .map(|(path, _)| path.display().to_string())
        .collect();
    assert!(
        before.keys().all(|p| after.contains_key(p)),
        "a file was removed"
    );
    // Cargo records the regex crate the bindings crate's manifest now names.
    let expected = [
        "Cargo.lock",
        "generated/Cargo.toml",
        "generated/src/v2030_01_01.rs",
        "generated/src/versions.rs",
        "schema/2030-01-01/schema.json",
        "schema/overlays/2030-01-01.json",
        "schema/versions.json",
    ];
    assert_eq!(changed, expected, "files changed by pin and generate");
    (root, target)
}

#[test]
fn a_made_up_version_is_pinned_generated_and_built_without_a_hand_edit() {
    let (root, target) = scratch_with_new_version("scratch");
    let versions = std::fs::read_to_string(root.join("generated/src/versions.rs")).unwrap();
    assert!(versions.contains("pub mod v2030_01_01;"), "{versions}");
    assert!(
        versions.contains(r#"STATELESS_VERSIONS: &[&str] = &["2026-07-28", "2030-01-01"]"#),
        "{versions}"
    );
    let toml = std::fs::read_to_string(root.join("generated/Cargo.toml")).unwrap();
    assert!(toml.contains("v2030_01_01 = []"), "{toml}");
    // Its `pattern` asks for the regex crate behind `validate`, written by the generator.
    assert!(
        toml.contains("validate = [\"dep:regex\"]") && toml.contains("[dependencies.regex]"),
        "{toml}"
    );

    // The bindings crate compiles the new module behind its feature, with the new request.
    let module = std::fs::read_to_string(root.join("generated/src/v2030_01_01.rs")).unwrap();
    assert!(module.contains("pub struct ListThingsRequest"));
    cargo(
        &root,
        &target,
        &[
            "check",
            "-q",
            "-p",
            "oxmcp-schema",
            "--features",
            "v2030_01_01",
        ],
    );
    // With `validate`, the bindings check the new pattern: a program of the bindings crate
    // (written here, after the generator's run) validates a tool whose version matches and one
    // whose version does not.
    let examples = root.join("generated/examples");
    std::fs::create_dir_all(&examples).unwrap();
    std::fs::write(
        examples.join("pattern.rs"),
        r#"use oxmcp_schema::{v2030_01_01::Tool, Validate};
fn tool(version: &str) -> Tool {
    serde_json::from_value(serde_json::json!({
        "name": "t", "inputSchema": {"type": "object"}, "version": version
    }))
    .unwrap()
}
fn main() {
    tool("1.2.3").validate().expect("a version that matches the pattern");
    let refused = tool("one").validate().expect_err("a version that breaks the pattern");
    assert!(refused.to_string().contains("pattern"), "{refused}");
    println!("refused: {refused}");
}
"#,
    )
    .unwrap();
    let ran = cargo(
        &root,
        &target,
        &[
            "run",
            "-q",
            "-p",
            "oxmcp-schema",
            "--features",
            "v2030_01_01,validate",
            "--example",
            "pattern",
        ],
    );
    assert!(ran.contains("refused:") && ran.contains("version"), "{ran}");
    std::fs::remove_dir_all(&examples).unwrap();
    // The generator's own tests go over every pin, the new one included. (The runtime and every
    // crate built with it, with every version's module on, are built and tested with the new
    // version by the whole-workspace test below, which CI runs as a step of its own: building
    // them all is most of that test's minutes, too many for every `cargo test`.)
    cargo(
        &root,
        &target,
        &[&["test", "-q"], GENERATOR_CLI, &["--lib"]].concat(),
    );
}

/// The whole workspace's tests pass in a copy with the new version pinned and generated, and
/// every version's module on (the new one among them), the project's own tests (which go over
/// every pin) included. The test above is left out there (it makes a scratch copy of its own),
/// and so are the generator's compiled hostile corpora, which no pin changes.
#[cfg(feature = "new-version-tests")]
#[test]
fn the_whole_workspace_tests_pass_with_a_made_up_version() {
    let (root, target) = scratch_with_new_version("workspace");
    let out = cargo(
        &root,
        &target,
        &[
            "test",
            "-q",
            "--no-fail-fast",
            "--workspace",
            "--features",
            "oxmcp-schema/all-versions",
            "--",
            "--skip",
            "a_made_up_version_is_pinned_generated_and_built_without_a_hand_edit",
            // The generator's hostile-input corpora do not read the pins, and each builds a
            // crate of its own: they ran in the workspace itself.
            "--skip",
            "_the_generator_accepts_compile",
        ],
    );
    let passed: u64 = out
        .lines()
        .filter_map(|l| l.strip_prefix("test result: ok. "))
        .filter_map(|l| l.split(' ').next()?.parse::<u64>().ok())
        .sum();
    eprintln!("the scratch workspace passed {passed} tests");
    assert!(
        passed > 200,
        "the workspace's tests ran: {passed} passed\n{out}"
    );
}
