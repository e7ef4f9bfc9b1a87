//! Where credentials are kept between runs: [`TokenStore`], in memory or in a private file.

use super::*;

/// Where access tokens, refresh tokens and registrations are kept between runs, by the MCP
/// server's URL.
pub trait TokenStore: Send + Sync + 'static {
    /// The credentials kept for `resource`, if any.
    fn load(&self, resource: &str) -> Option<Credentials>;
    /// Keep `credentials` for `resource`, replacing what was there.
    fn save(&self, resource: &str, credentials: &Credentials) -> std::io::Result<()>;
}

/// What the client holds for one MCP server: its registration with the authorization server
/// and its tokens.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Credentials {
    /// The authorization server's issuer identifier: a registration and its tokens are used
    /// with this server only.
    pub issuer: String,
    /// The token endpoint, for refreshing.
    pub token_endpoint: String,
    /// The resource indicator the tokens were issued for.
    pub resource: String,
    /// The client's id at the authorization server.
    pub client_id: String,
    /// The client's secret, for a confidential registration.
    pub client_secret: Option<String>,
    /// How the client authenticates at the token endpoint: `client_secret_basic`,
    /// `client_secret_post` or `none`.
    pub auth_method: String,
    /// The scopes asked for, space-separated.
    pub scope: String,
    /// The access token (empty when the client holds a registration only).
    pub access_token: String,
    /// How the token is presented: `Bearer`, or `DPoP` for a token bound to
    /// [`Credentials::dpop_key`].
    #[serde(default = "bearer")]
    pub token_type: String,
    /// The private key (PKCS #8 DER, base64url) a `DPoP` token is bound to.
    #[serde(default)]
    pub dpop_key: Option<String>,
    /// The refresh token, if one was issued.
    pub refresh_token: Option<String>,
    /// When the access token expires, in seconds since the Unix epoch, if the server said.
    pub expires_at: Option<u64>,
}

impl Credentials {
    pub(crate) fn empty() -> Self {
        Credentials {
            issuer: String::new(),
            token_endpoint: String::new(),
            resource: String::new(),
            client_id: String::new(),
            client_secret: None,
            auth_method: "none".to_string(),
            scope: String::new(),
            access_token: String::new(),
            token_type: bearer(),
            dpop_key: None,
            refresh_token: None,
            expires_at: None,
        }
    }
}

impl std::fmt::Debug for Credentials {
    /// Secrets and tokens are not printed.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Credentials")
            .field("issuer", &self.issuer)
            .field("resource", &self.resource)
            .field("client_id", &self.client_id)
            .field("auth_method", &self.auth_method)
            .field("scope", &self.scope)
            .field("expires_at", &self.expires_at)
            .finish_non_exhaustive()
    }
}

pub(crate) fn bearer() -> String {
    "Bearer".to_string()
}

/// Credentials kept in memory, for the life of the process (the default store).
#[derive(Default)]
pub struct MemoryStore(pub(crate) Mutex<BTreeMap<String, Credentials>>);

impl TokenStore for MemoryStore {
    fn load(&self, resource: &str) -> Option<Credentials> {
        crate::wire::lock(&self.0).get(resource).cloned()
    }

    fn save(&self, resource: &str, credentials: &Credentials) -> std::io::Result<()> {
        crate::wire::lock(&self.0).insert(resource.to_string(), credentials.clone());
        Ok(())
    }
}

/// Credentials kept in a JSON file (readable by its owner only, on Unix), so a host logs in
/// once across runs. The file is read and rewritten whole on each save.
pub struct FileStore {
    pub(crate) path: PathBuf,
    pub(crate) lock: Mutex<()>,
}

impl FileStore {
    /// A store in the file at `path` (created on the first save).
    pub fn new(path: impl Into<PathBuf>) -> Self {
        FileStore {
            path: path.into(),
            lock: Mutex::new(()),
        }
    }

    pub(crate) fn read(&self) -> BTreeMap<String, Credentials> {
        std::fs::read(&self.path)
            .ok()
            .and_then(|bytes| serde_json::from_slice(&bytes).ok())
            .unwrap_or_default()
    }
}

impl TokenStore for FileStore {
    fn load(&self, resource: &str) -> Option<Credentials> {
        let _held = crate::wire::lock(&self.lock);
        self.read().remove(resource)
    }

    fn save(&self, resource: &str, credentials: &Credentials) -> std::io::Result<()> {
        let _held = crate::wire::lock(&self.lock);
        let mut all = self.read();
        all.insert(resource.to_string(), credentials.clone());
        let text = serde_json::to_vec_pretty(&all).map_err(std::io::Error::other)?;
        write_private(&self.path, &text)
    }
}

/// Write `bytes` to `path` so that nobody but the owner can read them, and nothing planted
/// beside it receives them: into a new file of a random name in the same folder, created
/// exclusively (`O_CREAT | O_EXCL`, which never follows a link, and fails on anything already
/// there) with owner-only permissions, then renamed over `path` (a rename replaces a link at
/// `path` itself, never its target). A reader never sees half a file.
pub(crate) fn write_private(path: &std::path::Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    let name = path
        .file_name()
        .ok_or_else(|| std::io::Error::other("the token store's path names no file"))?;
    let random = crate::wire::random_id()
        .ok_or_else(|| std::io::Error::other("no random name could be made"))?;
    let mut tmp_name = std::ffi::OsString::from(".");
    tmp_name.push(name);
    tmp_name.push(format!(".{random}.tmp"));
    let tmp = path.with_file_name(tmp_name);
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let written = options.open(&tmp).and_then(|mut file| {
        file.write_all(bytes)?;
        file.sync_all()
    });
    let renamed = written.and_then(|()| std::fs::rename(&tmp, path));
    if renamed.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    renamed
}
