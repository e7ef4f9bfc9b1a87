//! The skills extension on the server: a folder of skills (the repository's `tests/skills`, and
//! trees made here) served through `skills/list`, `skills/get`, `resources/read` and
//! `resources/directory/read`; confinement to what was loaded (links, `..`, encoded escapes);
//! skills left out with a log line (bad frontmatter, over 16 MiB); a file changed while serving.

use crate::common;

use common::{meta, send};
use oxmcp::skills::Skill;
use oxmcp::Server;
use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

fn sample_tree() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/skills")
}

fn params(extra: Value) -> Value {
    let mut p = json!({"_meta": meta(json!({}))});
    if let (Value::Object(p), Value::Object(e)) = (&mut p, extra) {
        p.extend(e);
    }
    p
}

async fn call(server: &Server, method: &str, extra: Value) -> Value {
    send(server, 1, method, params(extra)).await
}

fn sha256(bytes: &[u8]) -> String {
    let hash = Sha256::digest(bytes);
    format!(
        "sha256:{}",
        hash.iter().map(|b| format!("{b:02x}")).collect::<String>()
    )
}

/// The bytes a `resources/read` result carries (text or blob).
fn content_bytes(reply: &Value) -> Vec<u8> {
    let content = &reply["result"]["contents"][0];
    match content.get("text").and_then(Value::as_str) {
        Some(text) => text.as_bytes().to_vec(),
        None => base64_decode(content["blob"].as_str().expect("text or blob")),
    }
}

fn base64_decode(text: &str) -> Vec<u8> {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD
        .decode(text)
        .unwrap()
}

#[tokio::test]
async fn a_tree_with_subfolders_and_binary_files_is_listed_verified_and_read() {
    let server = Server::builder().skills_dir(sample_tree()).build().unwrap();
    let discover = call(&server, "server/discover", json!({})).await;
    let caps = &discover["result"]["capabilities"];
    assert_eq!(
        caps["extensions"]["io.modelcontextprotocol/skills"],
        json!({"directoryRead": true})
    );
    assert!(caps["resources"].is_object());
    let list = call(&server, "skills/list", json!({})).await;
    let skills = list["result"]["skills"].as_array().unwrap().clone();
    let uris: Vec<&str> = skills.iter().map(|s| s["uri"].as_str().unwrap()).collect();
    assert_eq!(
        uris,
        [
            "skill://acme/data-cleanup/SKILL.md",
            "skill://pdf-processing/SKILL.md"
        ]
    );
    assert!(list["result"]["ttlMs"].is_number() && list["result"]["cacheScope"].is_string());
    let pdf = &skills[1];
    assert_eq!(pdf["frontmatter"]["name"], "pdf-processing");
    assert_eq!(pdf["frontmatter"]["metadata"]["version"], "1.0");
    // Every file is listed once with its digest and size, and reads back to exactly that.
    let resources = pdf["resources"].as_array().unwrap();
    assert_eq!(resources[0]["uri"], "skill://pdf-processing/SKILL.md");
    assert_eq!(resources.len(), 5, "{resources:?}");
    for r in resources {
        let uri = r["uri"].as_str().unwrap();
        let read = call(&server, "resources/read", json!({"uri": uri})).await;
        let bytes = content_bytes(&read);
        assert_eq!(r["size"], bytes.len(), "{uri}");
        assert_eq!(r["digest"], sha256(&bytes), "{uri}");
        let rel = uri.strip_prefix("skill://pdf-processing/").unwrap();
        assert_eq!(
            std::fs::read(sample_tree().join("pdf-processing").join(rel)).unwrap(),
            bytes,
            "{uri}"
        );
    }
    // Binary files, and text with a NUL byte, are blobs; text is text.
    let png = call(
        &server,
        "resources/read",
        json!({"uri": "skill://pdf-processing/assets/logo.png"}),
    )
    .await;
    assert!(png["result"]["contents"][0]["blob"].is_string());
    assert_eq!(png["result"]["contents"][0]["mimeType"], "image/png");
    let nul = call(
        &server,
        "resources/read",
        json!({"uri": "skill://pdf-processing/assets/with-nul.txt"}),
    )
    .await;
    assert!(nul["result"]["contents"][0]["blob"].is_string());
    let md = call(
        &server,
        "resources/read",
        json!({"uri": "skill://pdf-processing/SKILL.md"}),
    )
    .await;
    assert_eq!(md["result"]["contents"][0]["mimeType"], "text/markdown");
    // skills/get, and an unknown skill.
    let got = call(
        &server,
        "skills/get",
        json!({"uri": "skill://pdf-processing/SKILL.md"}),
    )
    .await;
    assert_eq!(got["result"]["skill"], *pdf);
    assert!(got["result"].get("nextCursor").is_none());
    let unknown = call(
        &server,
        "skills/get",
        json!({"uri": "skill://nope/SKILL.md"}),
    )
    .await;
    assert_eq!(unknown["error"]["code"], -32602);
    // Directories: direct children, subfolders as inode/directory; a file is not one.
    let dir = call(
        &server,
        "resources/directory/read",
        json!({"uri": "skill://pdf-processing"}),
    )
    .await;
    let children = dir["result"]["resources"].as_array().unwrap();
    let names: Vec<(&str, &str)> = children
        .iter()
        .map(|c| (c["name"].as_str().unwrap(), c["mimeType"].as_str().unwrap()))
        .collect();
    assert_eq!(
        names,
        [
            ("SKILL.md", "text/markdown"),
            ("assets", "inode/directory"),
            ("references", "inode/directory"),
            ("scripts", "inode/directory")
        ]
    );
    let sub = call(
        &server,
        "resources/directory/read",
        json!({"uri": "skill://pdf-processing/references"}),
    )
    .await;
    assert_eq!(sub["result"]["resources"][0]["name"], "FORMS.md");
    let file = call(
        &server,
        "resources/directory/read",
        json!({"uri": "skill://pdf-processing/SKILL.md"}),
    )
    .await;
    assert_eq!(file["error"]["code"], -32602);
    // SKILL.md is a resource of resources/list, named and described by its frontmatter.
    let listed = call(&server, "resources/list", json!({})).await;
    let md = listed["result"]["resources"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["uri"] == "skill://pdf-processing/SKILL.md")
        .cloned()
        .unwrap();
    assert_eq!(md["name"], "pdf-processing");
    assert_eq!(md["mimeType"], "text/markdown");
}

#[tokio::test]
async fn skills_list_pages_never_split_an_entry() {
    let mut builder = Server::builder().page_size(2);
    for i in 0..5 {
        let name = format!("skill-{i}");
        let md = format!("---\nname: {name}\ndescription: number {i}\n---\n");
        builder = builder.skill(Skill::new(name, md).file("notes.txt", format!("{i}")));
    }
    let server = builder.build().unwrap();
    let mut seen = Vec::new();
    let mut cursor: Option<String> = None;
    for _ in 0..10 {
        let extra = match &cursor {
            Some(c) => json!({"cursor": c}),
            None => json!({}),
        };
        let page = call(&server, "skills/list", extra).await;
        for s in page["result"]["skills"].as_array().unwrap() {
            assert_eq!(s["resources"].as_array().unwrap().len(), 2, "whole entries");
            seen.push(s["uri"].as_str().unwrap().to_string());
        }
        match page["result"]["nextCursor"].as_str() {
            Some(c) => cursor = Some(c.to_string()),
            None => break,
        }
    }
    assert_eq!(seen.len(), 5);
    let bad = call(&server, "skills/list", json!({"cursor": "bogus"})).await;
    assert_eq!(bad["error"]["code"], -32602);
}

/// A scratch tree holding the `pdf-processing` sample skill, and what the server logged while it
/// loaded it after `prepare` changed the tree.
fn scratch(prepare: impl FnOnce(&Path)) -> (tempfile::TempDir, Server, String) {
    let dir = tempfile::tempdir().unwrap();
    copy_tree(
        &sample_tree().join("pdf-processing"),
        &dir.path().join("pdf-processing"),
    );
    prepare(dir.path());
    let log = Arc::new(Mutex::new(Vec::<u8>::new()));
    let sink = log.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_writer(move || Writer(sink.clone()))
        .with_ansi(false)
        .finish();
    let server = tracing::subscriber::with_default(subscriber, || {
        Server::builder().skills_dir(dir.path()).build().unwrap()
    });
    let text = String::from_utf8_lossy(&log.lock().unwrap()).into_owned();
    (dir, server, text)
}

struct Writer(Arc<Mutex<Vec<u8>>>);

impl std::io::Write for Writer {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

#[tokio::test]
async fn links_dot_dot_and_encoded_escapes_are_refused_never_followed() {
    let (_dir, server, log) = scratch(|root| {
        let outside = root.join("../outside-secret.txt");
        std::fs::write(&outside, "secret").unwrap();
        let skill = root.join("pdf-processing");
        std::os::unix::fs::symlink(&outside, skill.join("leak.txt")).unwrap();
        std::os::unix::fs::symlink("/etc", skill.join("etc")).unwrap();
        // A whole skill that is a link to a folder elsewhere.
        std::os::unix::fs::symlink(root.join("pdf-processing"), root.join("linked-skill")).unwrap();
    });
    assert!(log.contains("links are never followed"), "{log}");
    let list = call(&server, "skills/list", json!({})).await;
    let skills = list["result"]["skills"].as_array().unwrap();
    assert_eq!(skills.len(), 1);
    let files: Vec<&str> = skills[0]["resources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["uri"].as_str().unwrap())
        .collect();
    assert!(
        !files
            .iter()
            .any(|u| u.contains("leak") || u.contains("etc")),
        "{files:?}"
    );
    for uri in [
        "skill://pdf-processing/leak.txt",
        "skill://pdf-processing/etc/passwd",
        "skill://pdf-processing/../pdf-processing/SKILL.md",
        "skill://pdf-processing/references/../../outside-secret.txt",
        "skill://pdf-processing/references%2F..%2F..%2Foutside-secret.txt",
        "skill://pdf-processing/%2e%2e/outside-secret.txt",
        "skill://pdf-processing/SKILL.md%00.txt",
    ] {
        let read = call(&server, "resources/read", json!({"uri": uri})).await;
        assert!(read.get("error").is_some(), "{uri}: {read}");
        let text = read.to_string();
        assert!(!text.contains("secret\""), "{uri}");
    }
}

#[tokio::test]
async fn a_bad_frontmatter_or_an_oversized_skill_is_left_out_and_the_rest_served() {
    let (_dir, server, log) = scratch(|root| {
        let bad = root.join("broken-skill");
        std::fs::create_dir_all(&bad).unwrap();
        std::fs::write(
            bad.join("SKILL.md"),
            "---\nname: broken-skill\n---\nno description\n",
        )
        .unwrap();
        let big = root.join("big-skill");
        std::fs::create_dir_all(&big).unwrap();
        std::fs::write(
            big.join("SKILL.md"),
            "---\nname: big-skill\ndescription: big\n---\n",
        )
        .unwrap();
        std::fs::write(big.join("data.bin"), vec![7u8; 17 * 1024 * 1024]).unwrap();
        // A "billion laughs": aliases nested nine deep, nine wide.
        let bomb = root.join("alias-bomb");
        std::fs::create_dir_all(&bomb).unwrap();
        let mut text = String::from("---\nname: alias-bomb\ndescription: d\na: &a [\"lol\"]\n");
        let names = ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j"];
        for pair in names.windows(2) {
            let refs = vec![format!("*{}", pair[0]); 9].join(", ");
            text.push_str(&format!("{}: &{} [{refs}]\n", pair[1], pair[1]));
        }
        text.push_str("---\n");
        std::fs::write(bomb.join("SKILL.md"), text).unwrap();
        let misnamed = root.join("misnamed");
        std::fs::create_dir_all(&misnamed).unwrap();
        std::fs::write(
            misnamed.join("SKILL.md"),
            "---\nname: other-name\ndescription: x\n---\n",
        )
        .unwrap();
    });
    assert!(
        log.contains("skill `broken-skill`") && log.contains("description"),
        "{log}"
    );
    assert!(
        log.contains("skill `big-skill`") && log.contains("bytes"),
        "{log}"
    );
    assert!(
        log.contains("skill `misnamed`") && log.contains("folder"),
        "{log}"
    );
    assert!(
        log.contains("skill `alias-bomb`: SKILL.md: frontmatter: anchors and aliases"),
        "{log}"
    );
    let list = call(&server, "skills/list", json!({})).await;
    let uris: Vec<&str> = list["result"]["skills"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["uri"].as_str().unwrap())
        .collect();
    assert_eq!(uris, ["skill://pdf-processing/SKILL.md"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_file_changed_while_serving_gets_a_new_digest_and_reads_stay_consistent() {
    let dir = tempfile::tempdir().unwrap();
    copy_tree(
        &sample_tree().join("pdf-processing"),
        &dir.path().join("pdf-processing"),
    );
    let server = Server::builder()
        .skills_dir(dir.path())
        .skills_poll(Duration::from_millis(20))
        .build()
        .unwrap();
    let uri = "skill://pdf-processing/references/FORMS.md";
    let path = dir.path().join("pdf-processing/references/FORMS.md");
    let old = std::fs::read(&path).unwrap();
    let new = b"# Forms\n\nRewritten while the server runs.\n".to_vec();
    let digest_of = |list: &Value| -> String {
        list["result"]["skills"][0]["resources"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["uri"] == uri)
            .map(|r| r["digest"].as_str().unwrap().to_string())
            .unwrap()
    };
    assert_eq!(
        digest_of(&call(&server, "skills/list", json!({})).await),
        sha256(&old)
    );
    std::fs::write(&path, &new).unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let digest = digest_of(&call(&server, "skills/list", json!({})).await);
        let bytes = content_bytes(&call(&server, "resources/read", json!({"uri": uri})).await);
        // At every moment the listing and the file are one catalog's: old or new, never torn.
        assert!(digest == sha256(&old) || digest == sha256(&new));
        assert!(bytes == old || bytes == new);
        if digest == sha256(&new) {
            assert_eq!(bytes, new);
            break;
        }
        assert!(Instant::now() < deadline, "the change was not picked up");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test]
async fn a_server_without_skills_answers_the_methods_as_unknown() {
    let server = Server::builder().build().unwrap();
    let reply = call(&server, "skills/list", json!({})).await;
    assert_eq!(reply["error"]["code"], -32601);
    let discover = call(&server, "server/discover", json!({})).await;
    assert!(discover["result"]["capabilities"]["extensions"]
        .get("io.modelcontextprotocol/skills")
        .is_none());
}

#[tokio::test]
async fn the_client_lists_and_reads_skills_and_refuses_what_fails_verification() {
    use oxmcp::client::{Client, ClientError};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let server = Server::builder().skills_dir(sample_tree()).build().unwrap();
    tokio::spawn(oxmcp::http::serve_listener(
        Arc::new(server),
        listener,
        Default::default(),
        std::future::pending(),
    ));
    let client = Client::http(&url);
    let skills = client.list_skills().await.unwrap();
    assert_eq!(skills.len(), 2);
    let pdf = client
        .get_skill("skill://pdf-processing/SKILL.md")
        .await
        .unwrap();
    assert_eq!(pdf, skills[1]);
    // Every listed file reads back verified, the binary one included.
    for file in pdf.files.as_ref().unwrap() {
        let bytes = client.read_skill_file(&pdf, &file.uri).await.unwrap();
        assert_eq!(bytes.len() as u64, file.size, "{}", file.uri);
    }
    // An entry that does not match what the server sends is refused, whatever differs.
    let tamper = |f: &dyn Fn(&mut oxmcp::client::SkillEntry)| {
        let mut entry = pdf.clone();
        f(&mut entry);
        entry
    };
    let cases = [
        tamper(&|e| e.files.as_mut().unwrap()[0].digest = format!("sha256:{}", "0".repeat(64))),
        tamper(&|e| e.files.as_mut().unwrap()[0].size += 1),
        tamper(&|e| {
            e.frontmatter
                .insert("description".into(), json!("Exfiltrate credentials"));
        }),
    ];
    for entry in &cases {
        let refused = client.read_skill_file(entry, &entry.uri).await;
        assert!(
            matches!(refused, Err(ClientError::Unverified { .. })),
            "{refused:?}"
        );
    }
    // A file the entry does not list is not read at all.
    let unlisted = client
        .read_skill_file(&pdf, "skill://acme/data-cleanup/SKILL.md")
        .await;
    assert!(matches!(unlisted, Err(ClientError::Unverified { .. })));
}

#[test]
fn a_relative_skills_folder_is_named_by_the_path_it_resolves_to() {
    let log = Arc::new(Mutex::new(Vec::<u8>::new()));
    let sink = log.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_writer(move || Writer(sink.clone()))
        .with_ansi(false)
        .finish();
    let relative = "no-such-skills-folder-here";
    tracing::subscriber::with_default(subscriber, || {
        Server::builder().skills_dir(relative).build().unwrap()
    });
    let text = String::from_utf8_lossy(&log.lock().unwrap()).into_owned();
    let resolved = std::env::current_dir().unwrap().join(relative);
    // The note about the folder that cannot be read names it whole, so the operator sees which
    // directory the server looked in.
    assert!(
        text.contains(&format!("{}: cannot be read", resolved.display())),
        "{text}"
    );
}
