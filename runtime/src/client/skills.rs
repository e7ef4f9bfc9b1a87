//! Reading the skills a server offers (the skills extension), each file verified before use.

use super::*;

/// A skill as a server lists it (the skills extension): the URI of its `SKILL.md`, its
/// frontmatter, and what its files are. Listing reads no file: a host loads a skill's files
/// only when it uses the skill, each with [`Client::read_skill_file`], which verifies it.
#[cfg(feature = "skills")]
#[cfg_attr(docsrs, doc(cfg(feature = "skills")))]
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct SkillEntry {
    /// `skill://<skill-path>/SKILL.md`.
    pub uri: String,
    /// The `SKILL.md` frontmatter, as the server read it.
    pub frontmatter: Map<String, Value>,
    /// Every file with its digest and size, or `None` when the server lists them as dynamic.
    pub files: Option<Vec<SkillFile>>,
}

/// One file of a [`SkillEntry`].
#[cfg(feature = "skills")]
#[cfg_attr(docsrs, doc(cfg(feature = "skills")))]
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct SkillFile {
    /// The file's `skill://` URI.
    pub uri: String,
    /// `sha256:<64 lowercase hex digits>`.
    pub digest: String,
    /// Its length in bytes.
    pub size: u64,
}

#[cfg(feature = "skills")]
impl SkillEntry {
    fn parse(value: &Value) -> Result<SkillEntry, ClientError> {
        let bad = |why: &str| ClientError::protocol(format!("a skill entry {why}: {value}"));
        let uri = value["uri"].as_str().ok_or_else(|| bad("has no uri"))?;
        let frontmatter = value["frontmatter"]
            .as_object()
            .ok_or_else(|| bad("has no frontmatter object"))?
            .clone();
        let files = match &value["resources"] {
            Value::String(s) if s == "dynamic" => None,
            Value::Array(items) => Some(
                items
                    .iter()
                    .map(|r| {
                        Some(SkillFile {
                            uri: r["uri"].as_str()?.to_string(),
                            digest: r["digest"].as_str()?.to_string(),
                            size: r["size"].as_u64()?,
                        })
                    })
                    .collect::<Option<Vec<_>>>()
                    .ok_or_else(|| bad("has a resource without uri, digest or size"))?,
            ),
            _ => return Err(bad("has no resources")),
        };
        Ok(SkillEntry {
            uri: uri.to_string(),
            frontmatter,
            files,
        })
    }
}

#[cfg(feature = "skills")]
#[cfg_attr(docsrs, doc(cfg(feature = "skills")))]
impl Client {
    /// Every skill the server offers (`skills/list`, all pages). No file is read.
    pub async fn list_skills(&self) -> Result<Vec<SkillEntry>, ClientError> {
        let mut skills = Vec::new();
        let mut cursor: Option<Value> = None;
        for _ in 0..MAX_LIST_PAGES {
            let params = match cursor.take() {
                Some(c) => json!({ "cursor": c }),
                None => json!({}),
            };
            let page = self.request("skills/list", params).await?;
            for entry in page["skills"].as_array().into_iter().flatten() {
                skills.push(SkillEntry::parse(entry)?);
            }
            match page.get("nextCursor").filter(|c| c.is_string()) {
                Some(c) => cursor = Some(c.clone()),
                None => break,
            }
        }
        Ok(skills)
    }

    /// The skill whose `SKILL.md` is at `uri` (`skills/get`).
    pub async fn get_skill(&self, uri: &str) -> Result<SkillEntry, ClientError> {
        let result = self.request("skills/get", json!({ "uri": uri })).await?;
        SkillEntry::parse(&result["skill"])
    }

    /// The bytes of the file `uri` of `skill`, read with `resources/read` and verified before
    /// they are returned: a listed file must have the entry's size and digest, and the skill's
    /// `SKILL.md` must carry the entry's frontmatter, field for field. Anything else is
    /// [`ClientError::Unverified`], and the bytes are not returned.
    pub async fn read_skill_file(
        &self,
        skill: &SkillEntry,
        uri: &str,
    ) -> Result<Vec<u8>, ClientError> {
        let listed = match &skill.files {
            Some(files) => Some(files.iter().find(|f| f.uri == uri).ok_or_else(|| {
                ClientError::Unverified {
                    uri: uri.to_string(),
                    failed: Verification::NotListed,
                }
            })?),
            None => None,
        };
        let result = self.read_resource(uri).await?;
        let content = result
            .contents
            .first()
            .ok_or_else(|| ClientError::protocol(format!("{uri}: no contents")))?;
        let content =
            serde_json::to_value(content).map_err(|e| ClientError::protocol_because(uri, e))?;
        let bytes = match (content["text"].as_str(), content["blob"].as_str()) {
            (Some(text), _) => text.as_bytes().to_vec(),
            (None, Some(blob)) => base64_simd::STANDARD
                .decode_to_vec(blob)
                .map_err(|_| ClientError::protocol(format!("{uri}: a blob that is not base64")))?,
            (None, None) => return Err(ClientError::protocol(format!("{uri}: no text or blob"))),
        };
        if let Some(file) = listed {
            if bytes.len() as u64 != file.size {
                return Err(ClientError::Unverified {
                    uri: uri.to_string(),
                    failed: Verification::Size {
                        expected: file.size,
                        actual: bytes.len() as u64,
                    },
                });
            }
            let digest = crate::skills::digest(&bytes);
            if !digest.eq_ignore_ascii_case(&file.digest) {
                return Err(ClientError::Unverified {
                    uri: uri.to_string(),
                    failed: Verification::Digest {
                        expected: file.digest.clone(),
                        actual: digest,
                    },
                });
            }
        }
        if uri == skill.uri {
            let unverified = |problem| ClientError::Unverified {
                uri: uri.to_string(),
                failed: Verification::Frontmatter(problem),
            };
            let text =
                std::str::from_utf8(&bytes).map_err(|_| unverified(FrontmatterProblem::NotUtf8))?;
            let frontmatter = crate::skills::parse_frontmatter(text)
                .map_err(|reason| unverified(FrontmatterProblem::Unreadable { reason }))?;
            if frontmatter != skill.frontmatter {
                return Err(unverified(FrontmatterProblem::DiffersFromEntry));
            }
        }
        Ok(bytes)
    }
}
