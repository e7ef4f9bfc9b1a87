//! What a new user meets first, kept true: the README's shape and its example (the same source
//! as `runtime/examples/quickstart.rs`, built and run here with no environment variable), a
//! BENCHMARKS.md that is a report, and a repository whose build and tests read nothing outside
//! it and whose files speak of the project only.

use oxmcp::client::{Capabilities, Client, ClientError};
use oxmcp::schema::InputRequest;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn read(rel: &str) -> String {
    std::fs::read_to_string(root().join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

/// The first ```` ```rust ```` block of `text`.
fn first_rust_block(text: &str) -> &str {
    let start = text.find("```rust").expect("a rust block");
    let body = start + text[start..].find('\n').unwrap() + 1;
    let end = body + text[body..].find("```").unwrap();
    &text[body..end]
}

#[test]
fn the_readme_is_a_front_page() {
    let readme = read("README.md");
    let lines: Vec<&str> = readme.lines().collect();
    assert!(lines.len() <= 200, "README.md has {} lines", lines.len());
    let first80 = lines[..80.min(lines.len())].join("\n");
    assert!(
        first80.contains("\ncargo run -p oxmcp-codegen -- check"),
        "the main job's command in the first 80 lines"
    );
    assert!(
        first80.contains("\ncargo test\n"),
        "the test command in the first 80 lines"
    );
    assert_eq!(
        first_rust_block(&readme),
        read("runtime/examples/quickstart.rs"),
        "the README's example is runtime/examples/quickstart.rs, byte for byte"
    );
}

#[test]
fn benchmarks_is_a_report() {
    let text = read("BENCHMARKS.md");
    let n = text.lines().count();
    assert!(n <= 480, "BENCHMARKS.md has {n} lines");
}

/// Every file git tracks (or, outside a git checkout, every file under the root but `target`).
fn tracked_files() -> Vec<PathBuf> {
    let out = std::process::Command::new("git")
        .args(["ls-files", "-z"])
        .current_dir(root())
        .output();
    match out {
        Ok(out) if out.status.success() => out
            .stdout
            .split(|b| *b == 0)
            .filter(|p| !p.is_empty())
            .map(|p| root().join(String::from_utf8_lossy(p).as_ref()))
            .collect(),
        _ => {
            let mut files = Vec::new();
            walk(&root(), &mut files);
            files
        }
    }
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        let name = entry.file_name();
        if name == "target" || name == ".git" {
            continue;
        }
        match entry.file_type() {
            Ok(t) if t.is_dir() => walk(&path, out),
            Ok(t) if t.is_file() => out.push(path),
            _ => {}
        }
    }
}

/// The text files of the project's own (the spec data in `schema/` is not the project's).
fn project_texts() -> Vec<(PathBuf, String)> {
    let spec_data = root().join("schema");
    tracked_files()
        .into_iter()
        .filter(|p| !p.starts_with(&spec_data) || p.extension().is_some_and(|e| e == "md"))
        .filter(|p| p.is_file())
        .filter_map(|p| std::fs::read_to_string(&p).ok().map(|t| (p, t)))
        .collect()
}

#[test]
fn nothing_reads_outside_the_repository() {
    // Written in pieces so this file does not name them itself.
    let forbidden = [
        ["../", "shared"].concat(),
        ["shared/", "mcp-spec"].concat(),
        ["MCP_SPEC", "_DIR"].concat(),
    ];
    let mut found = Vec::new();
    for (path, text) in project_texts() {
        for word in &forbidden {
            if text.contains(word.as_str()) {
                found.push(format!("{}: {word}", path.display()));
            }
        }
    }
    assert!(found.is_empty(), "{found:#?}");
}

#[test]
fn project_files_speak_of_the_project_only() {
    let ordinals = [
        "first",
        "second",
        "third",
        "fourth",
        "fifth",
        "sixth",
        "seventh",
        "eighth",
        "ninth",
        "tenth",
        "eleventh",
        "twelfth",
        "thirteenth",
        "fourteenth",
        "fifteenth",
        "sixteenth",
        "seventeenth",
        "eighteenth",
        "nineteenth",
        "twentieth",
        "twenty-",
    ];
    let mut found = Vec::new();
    for (path, text) in project_texts() {
        let lower = text.to_lowercase().replace('\n', " ");
        let mut hit = |what: &str| found.push(format!("{}: {what}", path.display()));
        for ordinal in ordinals {
            for (i, _) in lower.match_indices(ordinal) {
                let rest =
                    lower[i + ordinal.len()..].trim_start_matches(|c: char| c.is_alphabetic());
                if rest.starts_with(" session") && !rest.starts_with(" session-") {
                    hit(&lower[i..(i + 40).min(lower.len())]);
                }
            }
        }
        for phrase in [
            ["session's ", "machine"].concat(),
            ["work ", "session"].concat(),
        ] {
            if lower.contains(&phrase) {
                hit(&phrase);
            }
        }
        // A tracker's issue number: the word, a space, digits (with or without a hash).
        for (i, _) in lower.match_indices("issue ") {
            let rest = lower[i + 6..].trim_start_matches('#');
            if rest.starts_with(|c: char| c.is_ascii_digit()) {
                hit(&lower[i..(i + 12).min(lower.len())]);
            }
        }
    }
    assert!(found.is_empty(), "{found:#?}");
}

/// The newest modification time of a file under `path` (itself, when it is a file).
fn newest(path: &std::path::Path) -> Option<std::time::SystemTime> {
    let meta = std::fs::metadata(path).ok()?;
    if !meta.is_dir() {
        return meta.modified().ok();
    }
    std::fs::read_dir(path)
        .ok()?
        .filter_map(|e| newest(&e.ok()?.path()))
        .max()
}

/// The quickstart example's executable: the one `cargo test` built beside this test binary
/// (it builds the examples of the packages it tests) when it is newer than every source it is
/// built from (the example, the runtime, the macros, the bindings and the lock file), else
/// built now. A binary left from before a change to the runtime is never used: `cargo test -p
/// mcp-tests` alone rebuilds this test, not the runtime's examples.
fn quickstart() -> PathBuf {
    let built = std::env::current_exe().ok().and_then(|exe| {
        let dir = exe.parent()?.parent()?.join("examples");
        Some(dir.join(format!("quickstart{}", std::env::consts::EXE_SUFFIX)))
    });
    if let Some(built) = built {
        let sources = [
            "runtime/examples/quickstart.rs",
            "runtime/src",
            "runtime/Cargo.toml",
            "macros/src",
            "generated/src",
            "Cargo.lock",
        ]
        .map(|p| newest(&root().join(p)));
        let fresh =
            newest(&built).is_some_and(|b| sources.iter().all(|s| s.is_some_and(|s| b >= s)));
        if fresh {
            return built;
        }
    }
    let out = std::process::Command::new(env!("CARGO"))
        .args([
            "build",
            "-q",
            "-p",
            "oxmcp",
            "--example",
            "quickstart",
            "--message-format=json",
        ])
        .current_dir(root())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|m| m["target"]["name"] == "quickstart")
        .find_map(|m| m["executable"].as_str().map(PathBuf::from))
        .expect("the example's executable")
}

#[tokio::test]
async fn the_readme_example_runs_as_written() {
    let exe = quickstart();
    // As a new user runs it: no MCP_STATE_KEYS (a random key is made), over stdio.
    let answers = |_key: &str,
                   request: InputRequest|
     -> oxmcp::BoxFuture<Result<Value, ClientError>> {
        Box::pin(async move {
            assert!(matches!(request, InputRequest::ElicitRequest(_)));
            Ok(json!({"action": "accept", "content": {"name": "Ada", "email": "ada@example.com"}}))
        })
    };
    std::env::remove_var("MCP_STATE_KEYS");
    let client = Client::stdio(exe.to_str().unwrap(), &[])
        .unwrap()
        .with_input(Capabilities::new().elicitation_form().build(), answers);
    let result = client
        .call_tool("book_table", json!({"restaurant": "Chez Rust", "party": 2}))
        .await
        .unwrap();
    let text = serde_json::to_value(&result).unwrap()["content"][0]["text"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(
        text,
        "Booked #1 at Chez Rust for 2, name Ada <ada@example.com> (by anonymous)"
    );
}
