//! One immutable snapshot of the skills a server offers: each skill's entry (its `SKILL.md` URI,
//! frontmatter, and every file's URI, digest and size, computed once), the files' contents, and
//! the directories, all keyed by their canonical `skill://` URIs. A request's URI is decoded and
//! written again canonically before it is looked up, so nothing that was not loaded can be
//! named: `..`, an encoded `/` or a NUL find nothing.

use super::frontmatter;
use serde_json::{json, Map, Value};
use sha2::{Digest, Sha256};
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

/// The most files one skill may have.
pub(crate) const MAX_FILES: usize = 512;
/// The most bytes one skill's files may hold together.
pub(crate) const MAX_BYTES: u64 = 16 * 1024 * 1024;
/// The skill's manifest, at its root.
pub(crate) const SKILL_MD: &str = "SKILL.md";
/// The MIME type of a directory in `resources/directory/read`.
pub(crate) const DIRECTORY_MIME: &str = "inode/directory";

/// Files by path relative to a skill's folder, segment by segment, with their bytes.
pub(crate) type Files = Vec<(Vec<String>, Vec<u8>)>;

/// A skill before it is checked: its path (the last segment is its name) and its files.
pub(crate) struct RawSkill {
    pub(crate) path: Vec<String>,
    pub(crate) files: Files,
}

/// A file of a skill.
pub(crate) struct File {
    pub(crate) uri: String,
    pub(crate) mime: &'static str,
    pub(crate) bytes: Arc<[u8]>,
    /// Served as text (UTF-8 without NUL), else as a base64 blob.
    pub(crate) text: bool,
}

/// One skill's listing entry, written once.
struct Entry {
    uri: String,
    name: String,
    description: String,
    json: Value,
}

/// A child of a directory.
#[derive(Clone)]
struct Child {
    uri: String,
    name: String,
    mime: &'static str,
    size: Option<u64>,
}

/// The snapshot.
#[derive(Default)]
pub(crate) struct Catalog {
    entries: Vec<Entry>,
    by_uri: HashMap<String, usize>,
    files: HashMap<String, Arc<File>>,
    dirs: HashMap<String, Vec<Child>>,
}

/// Characters kept as they are in a `skill://` path segment (RFC 3986 unreserved and
/// sub-delims); anything else is percent-encoded.
fn keep(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"-._~!$&'()*+,;=".contains(&b)
}

/// `segment` percent-encoded for a `skill://` URI.
pub(crate) fn encode(segment: &str) -> String {
    let mut out = String::with_capacity(segment.len());
    for &b in segment.as_bytes() {
        if keep(b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// A `skill://` URI from its decoded segments.
fn uri_of(segments: &[&str]) -> String {
    let parts: Vec<String> = segments.iter().map(|s| encode(s)).collect();
    format!("skill://{}", parts.join("/"))
}

/// The canonical form of a requested `skill://` URI: each segment percent-decoded, refused if
/// it is empty, `.` or `..`, or holds a `/` or a NUL once decoded; then encoded again. A
/// trailing `/` is dropped.
pub(crate) fn canonical(uri: &str) -> Option<String> {
    let rest = uri.strip_prefix("skill://")?;
    let rest = rest.strip_suffix('/').unwrap_or(rest);
    let mut segments = Vec::new();
    for raw in rest.split('/') {
        let decoded = decode(raw)?;
        if decoded.is_empty() || decoded == "." || decoded == ".." || decoded.contains(['/', '\0'])
        {
            return None;
        }
        segments.push(decoded);
    }
    let refs: Vec<&str> = segments.iter().map(String::as_str).collect();
    Some(uri_of(&refs))
}

/// `text` with its `%XX` escapes decoded, if they are all well formed and the result is UTF-8.
fn decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = text.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// The MIME type of a file by its name, and whether its bytes are text.
fn mime_of(name: &str, text: bool) -> &'static str {
    let ext = name.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase());
    match ext.as_deref() {
        Some("md" | "markdown") => "text/markdown",
        Some("txt") => "text/plain",
        Some("json") => "application/json",
        Some("yaml" | "yml") => "application/yaml",
        Some("py") => "text/x-python",
        Some("sh") => "text/x-shellscript",
        Some("js" | "mjs") => "text/javascript",
        Some("ts") => "text/typescript",
        Some("html" | "htm") => "text/html",
        Some("css") => "text/css",
        Some("csv") => "text/csv",
        Some("xml") => "application/xml",
        Some("png") => "image/png",
        Some("jpg" | "jpeg") => "image/jpeg",
        Some("gif") => "image/gif",
        Some("svg") => "image/svg+xml",
        Some("pdf") => "application/pdf",
        _ if text => "text/plain",
        _ => "application/octet-stream",
    }
}

/// `sha256:<hex>` of `bytes`: a skill file's digest as the catalog lists it, and as the client
/// computes it to check a file it read.
pub(crate) fn digest(bytes: &[u8]) -> String {
    let hash = Sha256::digest(bytes);
    let mut out = String::with_capacity(71);
    out.push_str("sha256:");
    crate::wire::push_hex(&mut out, &hash);
    out
}

impl Catalog {
    /// The catalog of `skills`: each is checked (a `SKILL.md` with valid frontmatter whose
    /// `name` is the folder's name and follows the naming rules, at most 512 files and 16 MiB);
    /// one that fails is left out, with the reason in the second list.
    pub(crate) fn build(skills: Vec<RawSkill>) -> (Catalog, Vec<String>) {
        let mut catalog = Catalog::default();
        let mut refused = Vec::new();
        let mut checked: Vec<(String, RawSkill, Map<String, Value>)> = Vec::new();
        for skill in skills {
            let path = skill.path.join("/");
            match check(&skill) {
                Ok(frontmatter) => checked.push((path, skill, frontmatter)),
                Err(why) => refused.push(format!("skill `{path}`: {why}; left out")),
            }
        }
        checked.sort_by(|a, b| a.0.cmp(&b.0));
        for (path, skill, frontmatter) in checked {
            let key = uri_of(&skill.path.iter().map(String::as_str).collect::<Vec<_>>());
            let entry_uri = format!("{key}/{SKILL_MD}");
            if catalog.by_uri.contains_key(&entry_uri) {
                refused.push(format!("skill `{path}`: served twice; left out"));
                continue;
            }
            catalog.add(&key, &entry_uri, skill, frontmatter);
        }
        (catalog, refused)
    }

    fn add(
        &mut self,
        key: &str,
        entry_uri: &str,
        skill: RawSkill,
        frontmatter: Map<String, Value>,
    ) {
        let mut files: Vec<(Vec<String>, Vec<u8>)> = skill.files;
        files.sort_by(|a, b| a.0.cmp(&b.0));
        // SKILL.md first in the entry's resources, then the rest in path order.
        files.sort_by_key(|(rel, _)| !(rel.len() == 1 && rel[0] == SKILL_MD));
        let mut resources = Vec::new();
        let mut dirs: BTreeMap<String, BTreeMap<String, Child>> = BTreeMap::new();
        dirs.entry(key.to_string()).or_default();
        for (rel, bytes) in files {
            let refs: Vec<&str> = rel.iter().map(String::as_str).collect();
            let uri = format!(
                "{key}/{}",
                rel.iter().map(|s| encode(s)).collect::<Vec<_>>().join("/")
            );
            let text = !bytes.contains(&0) && std::str::from_utf8(&bytes).is_ok();
            let name = refs.last().copied().unwrap_or("");
            let mime = mime_of(name, text);
            let size = bytes.len() as u64;
            resources.push(json!({"uri": uri, "digest": digest(&bytes), "size": size}));
            // Every folder on the way is a directory of the skill.
            let mut parent = key.to_string();
            for (i, segment) in refs.iter().enumerate() {
                let here = format!("{parent}/{}", encode(segment));
                let last = i + 1 == refs.len();
                let child = Child {
                    uri: here.clone(),
                    name: segment.to_string(),
                    mime: if last { mime } else { DIRECTORY_MIME },
                    size: last.then_some(size),
                };
                dirs.entry(parent.clone())
                    .or_default()
                    .insert(segment.to_string(), child);
                if !last {
                    dirs.entry(here.clone()).or_default();
                }
                parent = here;
            }
            self.files.insert(
                uri.clone(),
                Arc::new(File {
                    uri,
                    mime,
                    bytes: bytes.into(),
                    text,
                }),
            );
        }
        for (dir, children) in dirs {
            self.dirs.insert(dir, children.into_values().collect());
        }
        let name = frontmatter
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        let description = frontmatter
            .get("description")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        let json = json!({"uri": entry_uri, "frontmatter": frontmatter, "resources": resources});
        self.by_uri
            .insert(entry_uri.to_string(), self.entries.len());
        self.entries.push(Entry {
            uri: entry_uri.to_string(),
            name,
            description,
            json,
        });
    }

    /// How many skills it holds.
    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }

    /// The entries from `start`, at most `count` of them.
    pub(crate) fn entries(&self, start: usize, count: usize) -> Vec<Value> {
        self.entries
            .iter()
            .skip(start)
            .take(count)
            .map(|e| e.json.clone())
            .collect()
    }

    /// The entry of the skill whose `SKILL.md` is at `uri`.
    pub(crate) fn entry(&self, uri: &str) -> Option<Value> {
        let uri = canonical(uri)?;
        self.by_uri.get(&uri).map(|&i| self.entries[i].json.clone())
    }

    /// The file at `uri`.
    pub(crate) fn file(&self, uri: &str) -> Option<Arc<File>> {
        self.files.get(&canonical(uri)?).cloned()
    }

    /// The children of the directory at `uri` (none: not a directory of a skill).
    pub(crate) fn children(&self, uri: &str) -> Option<Vec<Value>> {
        let children = self.dirs.get(&canonical(uri)?)?;
        Some(
            children
                .iter()
                .map(|c| {
                    let mut r = json!({"uri": c.uri, "name": c.name, "mimeType": c.mime});
                    if let Some(size) = c.size {
                        r["size"] = json!(size);
                    }
                    r
                })
                .collect(),
        )
    }

    /// Each skill's `SKILL.md` as a resource of `resources/list`: named and described by its
    /// frontmatter.
    pub(crate) fn resources(&self) -> Vec<Value> {
        self.entries
            .iter()
            .map(|e| {
                json!({"uri": e.uri, "name": e.name, "description": e.description,
                       "mimeType": "text/markdown"})
            })
            .collect()
    }
}

/// Check one skill: its frontmatter, name and limits.
fn check(skill: &RawSkill) -> Result<Map<String, Value>, String> {
    let name = skill.path.last().ok_or("a skill needs a path")?;
    if skill
        .path
        .iter()
        .any(|s| s.is_empty() || s == "." || s == ".." || s.contains(['/', '\0']))
    {
        return Err("a path segment is empty, `.`, `..` or holds `/` or NUL".into());
    }
    if skill.files.len() > MAX_FILES {
        return Err(format!(
            "{} files, over the limit of {MAX_FILES}",
            skill.files.len()
        ));
    }
    let total: u64 = skill.files.iter().map(|(_, b)| b.len() as u64).sum();
    if total > MAX_BYTES {
        return Err(format!("{total} bytes, over the limit of {MAX_BYTES}"));
    }
    let manifest = skill
        .files
        .iter()
        .find(|(rel, _)| rel.len() == 1 && rel[0] == SKILL_MD)
        .ok_or("no SKILL.md at its root")?;
    let text = std::str::from_utf8(&manifest.1).map_err(|_| "SKILL.md is not UTF-8")?;
    let frontmatter = frontmatter::parse(text).map_err(|why| format!("{SKILL_MD}: {why}"))?;
    let declared = frontmatter
        .get("name")
        .and_then(Value::as_str)
        .unwrap_or("");
    if !frontmatter::valid_name(declared) {
        return Err(format!(
            "name `{declared}` breaks the naming rules (1-64 lowercase letters, digits and single hyphens)"
        ));
    }
    if declared != name {
        return Err(format!(
            "frontmatter name `{declared}` is not the folder's name `{name}`"
        ));
    }
    Ok(frontmatter)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn skill(path: &str, files: &[(&str, &[u8])]) -> RawSkill {
        RawSkill {
            path: path.split('/').map(str::to_string).collect(),
            files: files
                .iter()
                .map(|(p, b)| (p.split('/').map(str::to_string).collect(), b.to_vec()))
                .collect(),
        }
    }

    const MD: &[u8] = b"---\nname: pdf-tools\ndescription: PDFs\n---\nBody\n";

    #[test]
    fn uris_are_canonical_and_escapes_find_nothing() {
        let (c, refused) = Catalog::build(vec![skill(
            "acme/pdf-tools",
            &[
                ("SKILL.md", MD),
                ("refs/a b.md", b"x"),
                ("bin/x.bin", b"\0\x01"),
            ],
        )]);
        assert!(refused.is_empty(), "{refused:?}");
        assert!(c.file("skill://acme/pdf-tools/refs/a%20b.md").is_some());
        assert!(c.file("skill://acme/pdf-tools/refs/a%20b.md").unwrap().text);
        assert!(!c.file("skill://acme/pdf-tools/bin/x.bin").unwrap().text);
        for bad in [
            "skill://acme/pdf-tools/../pdf-tools/SKILL.md",
            "skill://acme/pdf-tools/refs%2F..%2FSKILL.md",
            "skill://acme/pdf-tools/%2e%2e/SKILL.md",
            "skill://acme/pdf-tools/SKILL.md%00",
            "skill://acme//pdf-tools/SKILL.md",
            "file:///etc/passwd",
        ] {
            assert!(c.file(bad).is_none(), "{bad}");
        }
        // An escape that decodes to a loaded name is the same file.
        assert!(c.file("skill://acme/pdf-tools/SKILL%2Emd").is_some());
        let root = c.children("skill://acme/pdf-tools").unwrap();
        let names: Vec<_> = root.iter().map(|r| r["name"].as_str().unwrap()).collect();
        assert_eq!(names, ["SKILL.md", "bin", "refs"]);
        assert_eq!(root[1]["mimeType"], DIRECTORY_MIME);
        assert!(c.children("skill://acme/pdf-tools/SKILL.md").is_none());
    }

    #[test]
    fn bad_skills_are_left_out_and_the_rest_served() {
        let big = vec![b'a'; (MAX_BYTES + 1) as usize];
        let (c, refused) = Catalog::build(vec![
            skill("pdf-tools", &[("SKILL.md", MD)]),
            skill("other", &[("SKILL.md", MD)]),
            skill("broken", &[("SKILL.md", b"no frontmatter")]),
            skill("pdf-tools-2", &[("SKILL.md", MD), ("big.bin", &big)]),
        ]);
        assert_eq!(c.len(), 1);
        assert_eq!(refused.len(), 3, "{refused:?}");
        assert!(refused.iter().any(|r| r.contains("not the folder's name")));
        assert!(refused.iter().any(|r| r.contains("over the limit")));
        let entry = c.entry("skill://pdf-tools/SKILL.md").unwrap();
        assert_eq!(entry["resources"][0]["uri"], "skill://pdf-tools/SKILL.md");
        assert_eq!(entry["resources"][0]["size"], MD.len());
        let digest = entry["resources"][0]["digest"].as_str().unwrap();
        assert!(digest.starts_with("sha256:") && digest.len() == 71);
    }
}
