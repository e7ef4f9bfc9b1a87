//! The server: the registry of handlers ([`Server`], built by [`ServerBuilder`], changeable while
//! it serves through its [`Catalog`]) and the stateless core that answers one message at a
//! time: dispatch on the typed request (`dispatch`), listings and discovery (`listing`),
//! `subscriptions/listen` streams (`listen`) and the calls that may take MRTR rounds (`mrtr`). Transports sit above it and call
//! [`Server::handle_message`] or the crate's typed entry point.

pub(crate) mod catalog;
pub use catalog::{Catalog, CatalogError, Visibility};
mod dispatch;
mod listen;
mod listing;
mod mrtr;
pub(crate) mod round;
#[cfg(any(feature = "http", feature = "stdio"))]
pub(crate) mod session;
#[cfg(feature = "tasks")]
pub(crate) mod tasks;

use crate::handler::extract::StateMap;
use crate::handler::{Need, PromptHandler, ResourceHandler, ToolHandler};
use crate::request_state::{KeyRing, KeyRingError, RequestStateCodec};
use crate::resume::events::{Change, ListKind};
use oxmcp_schema::Implementation;
use std::fmt;
use std::sync::Arc;
use std::time::Duration;

/// The stateless protocol versions this server speaks (per-request `_meta`, no session), from
/// the pins of the bindings crate (`era: "2026"`).
pub const SUPPORTED_VERSIONS: &[&str] = oxmcp_schema::STATELESS_VERSIONS;

/// The 2025-era protocol versions served (through `initialize` and sessions), newest first, from
/// the pins of the bindings crate (`era: "2025"`).
pub const SESSION_VERSIONS: &[&str] = oxmcp_schema::SESSION_VERSIONS;

/// The JSON-RPC error code of a refusal for a caller over its quota (tasks kept, sessions held,
/// requests in flight): a server error in the range JSON-RPC leaves to implementations. The
/// error's `data.retryAfterMs` says when to try again; over HTTP the answer is 429 with
/// `Retry-After`.
pub const QUOTA_EXCEEDED: i64 = -32029;

/// A configured MCP server. Cheap to share: wrap it in an `Arc` and call it from any task.
pub struct Server {
    info: Implementation,
    instructions: Option<String>,
    /// What the server offers (tools, prompts, resources, skills), changeable while it serves.
    catalog: Arc<catalog::Shared>,
    codec: RequestStateCodec,
    /// The key ring is a random key made at build: flows do not survive a restart or move
    /// between instances (warned about when served over HTTP).
    ephemeral_keys: bool,
    list_ttl_ms: i64,
    page_size: usize,
    completion: Option<CompletionFn>,
    changes: tokio::sync::broadcast::Sender<Change>,
    /// Set once the server is shutting down: open `subscriptions/listen` streams end.
    closing: tokio::sync::watch::Sender<bool>,
    app_state: StateMap,
    /// Whether a 2025-era `initialize` opens a session.
    // Read by the sessions of the transports that serve.
    #[cfg_attr(not(any(feature = "http", feature = "stdio")), allow(dead_code))]
    sessions: bool,
    /// What every 2025-era `initialize` result says after its version (capabilities, server info,
    /// instructions), written once as JSON object members.
    #[cfg(any(feature = "http", feature = "stdio"))]
    session_hello: String,
    /// The tasks extension: where tasks are kept and the runs this process drives.
    #[cfg(feature = "tasks")]
    tasks: Arc<tasks::TaskEngine>,
    /// Prometheus metrics, when turned on.
    #[cfg(feature = "metrics")]
    metrics: Option<Arc<crate::metrics::Metrics>>,
    /// Whether requests are checked against their schema's rules before they are served.
    #[cfg(feature = "validate")]
    validate_requests: bool,
}

/// Completes an argument: (prompt name or resource template URI, argument name, partial value)
/// to suggestions, best first.
pub type CompletionFn = Arc<dyn Fn(&str, &str, &str) -> Vec<String> + Send + Sync>;

/// Builds a [`Server`]: `Server::builder().name(..).version(..).tool(t).build()`.
pub struct ServerBuilder {
    name: String,
    version: String,
    instructions: Option<String>,
    tools: Vec<Arc<dyn ToolHandler>>,
    prompts: Vec<Arc<dyn PromptHandler>>,
    resources: Vec<Arc<dyn ResourceHandler>>,
    keys: Option<KeyRing>,
    keys_from_env: bool,
    request_state_ttl: Duration,
    codec_hook: Option<Box<dyn FnOnce(RequestStateCodec) -> RequestStateCodec>>,
    completion: Option<CompletionFn>,
    page_size: usize,
    app_state: StateMap,
    sessions: bool,
    #[cfg(feature = "tasks")]
    tasks: TaskSettings,
    #[cfg(feature = "metrics")]
    metrics: bool,
    #[cfg(feature = "validate")]
    validate_requests: bool,
    #[cfg(feature = "skills")]
    skills_dir: Option<std::path::PathBuf>,
    #[cfg(feature = "skills")]
    skills: Vec<crate::skills::Skill>,
    #[cfg(feature = "skills")]
    skills_poll: Duration,
}

/// Where a server keeps its tasks and how long, how much and how many.
#[cfg(feature = "tasks")]
struct TaskSettings {
    store: Option<Arc<dyn crate::tasks::TaskStore>>,
    ttl: Duration,
    lease: Duration,
    budget: usize,
    per_principal: usize,
    /// Whether the tasks extension is offered (a host that cannot keep tasks turns it off).
    offered: bool,
}

#[cfg(feature = "tasks")]
impl Default for TaskSettings {
    fn default() -> Self {
        TaskSettings {
            store: None,
            ttl: tasks::DEFAULT_TASK_TTL,
            lease: tasks::DEFAULT_TASK_LEASE,
            budget: tasks::DEFAULT_TASK_BUDGET,
            per_principal: tasks::DEFAULT_TASKS_PER_PRINCIPAL,
            offered: true,
        }
    }
}

/// Why a server could not be built.
#[derive(Debug)]
#[non_exhaustive]
pub enum BuildError {
    /// The `requestState` key ring from the environment is malformed, or no random key could
    /// be made.
    Keys(KeyRingError),
    /// A handler takes `State<T>` for a type no `ServerBuilder::state` registered.
    MissingState {
        /// The tool, prompt or resource.
        handler: String,
        /// The state type it needs.
        type_name: &'static str,
    },
}

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BuildError::Keys(e) => write!(f, "{e}"),
            BuildError::MissingState { handler, type_name } => write!(
                f,
                "`{handler}` takes State<{type_name}>, but no state of that type is registered: add `.state(value)` to the server builder"
            ),
        }
    }
}

impl std::error::Error for BuildError {
    /// A key ring error shows through: its own cause is the cause here.
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            BuildError::Keys(e) => std::error::Error::source(e),
            BuildError::MissingState { .. } => None,
        }
    }
}

impl From<KeyRingError> for BuildError {
    fn from(e: KeyRingError) -> Self {
        BuildError::Keys(e)
    }
}

impl Server {
    /// Start building a server.
    pub fn builder() -> ServerBuilder {
        ServerBuilder {
            name: "mcp-server".into(),
            version: "0.0.0".into(),
            instructions: None,
            tools: Vec::new(),
            prompts: Vec::new(),
            resources: Vec::new(),
            keys: None,
            keys_from_env: false,
            request_state_ttl: RequestStateCodec::DEFAULT_TTL,
            codec_hook: None,
            completion: None,
            page_size: 100,
            app_state: StateMap::default(),
            sessions: true,
            #[cfg(feature = "tasks")]
            tasks: TaskSettings::default(),
            #[cfg(feature = "metrics")]
            metrics: false,
            #[cfg(feature = "validate")]
            validate_requests: false,
            #[cfg(feature = "skills")]
            skills_dir: None,
            #[cfg(feature = "skills")]
            skills: Vec::new(),
            #[cfg(feature = "skills")]
            skills_poll: Duration::from_secs(2),
        }
    }
}

impl ServerBuilder {
    /// Whether 2025-era clients are served (default yes): an `initialize` opens a session at
    /// 2025-11-25, 2025-06-18 or 2025-03-26, served by the same handlers. Off, an `initialize`
    /// is refused with the error that names the supported versions.
    pub fn sessions(mut self, serve: bool) -> Self {
        self.sessions = serve;
        self
    }

    /// Whether tasks are offered (a host that cannot keep them turns them off), and whether
    /// a shared task store was given.
    #[cfg(all(feature = "lambda", feature = "tasks"))]
    pub(crate) fn without_tasks(mut self) -> Self {
        self.tasks.offered = false;
        self
    }

    /// Whether a task store was given (a host that runs many instances needs a shared one).
    #[cfg(all(feature = "lambda", feature = "tasks"))]
    pub(crate) fn has_task_store(&self) -> bool {
        self.tasks.store.is_some()
    }

    /// Whether a key ring was given in code, or is to be read from the environment.
    #[cfg(feature = "lambda")]
    pub(crate) fn has_keys(&self) -> bool {
        self.keys.is_some()
    }

    /// The tools that run only as tasks.
    #[cfg(all(feature = "lambda", feature = "tasks"))]
    pub(crate) fn task_only_tools(&self) -> Vec<String> {
        self.tools
            .iter()
            .filter(|t| t.task_support().mode == crate::handler::TaskMode::Required)
            .map(|t| t.tool().name)
            .collect()
    }

    cfg_tasks! {
        /// Where tasks are kept (default: an [`InMemoryTaskStore`](crate::tasks::InMemoryTaskStore)
        /// of this process). Give every instance the same shared store so any of them can answer
        /// for a task.
        pub fn task_store(mut self, store: Arc<dyn crate::tasks::TaskStore>) -> Self {
            self.tasks.store = Some(store);
            self
        }

        /// How long a task is kept after it is created (default one hour); its `ttlMs`.
        pub fn task_ttl(mut self, ttl: Duration) -> Self {
            self.tasks.ttl = ttl;
            self
        }

        /// How long an instance holds a task it runs without renewing (default 30 s; renewed every
        /// third of that). With a shared store, a task whose instance died is taken over by the
        /// next instance asked about it once this has passed.
        pub fn task_lease(mut self, lease: Duration) -> Self {
            self.tasks.lease = lease;
            self
        }

        /// The most a task keeps of its call: the JSON of its arguments, the request's `_meta`,
        /// its journal, and the input requests and answers it holds (default 256 KiB). A
        /// `tools/call` that would create a larger task, or a `tasks/update` whose answers would
        /// take it past this, is refused with -32602: a task holds all of it until it ends, and
        /// a store copies its record on every change.
        pub fn task_budget(mut self, bytes: usize) -> Self {
            self.tasks.budget = bytes;
            self
        }
    }

    /// Check every request against the rules its schema states (lengths, patterns, formats such
    /// as `uri`, bounds, item counts; see `oxmcp_schema::Validate`) before serving it, and answer
    /// one that breaks a rule with -32602 and `data: {"path", "rule"}`. Off by default: parsing
    /// is lenient because peers send out-of-range values in the wild, and a handler that needs
    /// a rule checks what it reads. (What the server sends is always checked in debug builds.)
    #[cfg(feature = "validate")]
    #[cfg_attr(docsrs, doc(cfg(feature = "validate")))]
    pub fn validate_requests(mut self, on: bool) -> Self {
        self.validate_requests = on;
        self
    }

    cfg_tasks! {
        /// How many live tasks one principal may keep (default 256); past that, its
        /// `tools/call` that would create one is refused with [`QUOTA_EXCEEDED`] and a retry
        /// hint, and other principals go on creating theirs. Without authentication every
        /// caller is one principal.
        pub fn tasks_per_principal(mut self, n: usize) -> Self {
            self.tasks.per_principal = n.max(1);
            self
        }
    }

    /// Count requests, rounds, sessions, tasks and refusals in Prometheus metrics, served at
    /// `/metrics` of the HTTP server (see [`crate::metrics`]).
    #[cfg(feature = "metrics")]
    #[cfg_attr(docsrs, doc(cfg(feature = "metrics")))]
    pub fn metrics(mut self) -> Self {
        self.metrics = true;
        self
    }

    /// Offer every skill found below `dir` (the skills extension): each folder that holds a
    /// `SKILL.md` is a skill, its path below `dir` the skill's path. The folder is watched and
    /// loaded again when it changes (see [`crate::skills`]).
    #[cfg(feature = "skills")]
    #[cfg_attr(docsrs, doc(cfg(feature = "skills")))]
    pub fn skills_dir(mut self, dir: impl Into<std::path::PathBuf>) -> Self {
        self.skills_dir = Some(dir.into());
        self
    }

    /// Offer `skill`, built in code (the skills extension).
    #[cfg(feature = "skills")]
    #[cfg_attr(docsrs, doc(cfg(feature = "skills")))]
    pub fn skill(mut self, skill: crate::skills::Skill) -> Self {
        self.skills.push(skill);
        self
    }

    /// How often the skills folder is checked for changes (default 2 s).
    #[cfg(feature = "skills")]
    #[cfg_attr(docsrs, doc(cfg(feature = "skills")))]
    pub fn skills_poll(mut self, every: Duration) -> Self {
        self.skills_poll = every.max(Duration::from_millis(10));
        self
    }

    /// The server's name in `serverInfo`.
    pub fn name(mut self, name: impl Into<String>) -> Self {
        self.name = name.into();
        self
    }

    /// The server's version in `serverInfo`.
    pub fn version(mut self, version: impl Into<String>) -> Self {
        self.version = version.into();
        self
    }

    /// Instructions returned by `server/discover`.
    pub fn instructions(mut self, text: impl Into<String>) -> Self {
        self.instructions = Some(text.into());
        self
    }

    /// Register a tool (a `#[mcp_tool]` function).
    pub fn tool(mut self, tool: impl ToolHandler) -> Self {
        self.tools.push(Arc::new(tool));
        self
    }

    /// Register a prompt (a `#[mcp_prompt]` function).
    pub fn prompt(mut self, prompt: impl PromptHandler) -> Self {
        self.prompts.push(Arc::new(prompt));
        self
    }

    /// Register a resource or template (a `#[mcp_resource]` function).
    pub fn resource(mut self, resource: impl ResourceHandler) -> Self {
        self.resources.push(Arc::new(resource));
        self
    }

    /// Register application state (a database pool, a configuration): every handler parameter
    /// of type `State<T>` receives it. One value per type; registering a type again replaces it.
    pub fn state<T: Send + Sync + 'static>(mut self, value: T) -> Self {
        self.app_state.insert(value);
        self
    }

    /// The key ring that seals `requestState`. Give every instance the same ring so a retry can
    /// land on any of them. Without it, a random key is made at start, and a server served over
    /// HTTP warns that flows will not survive a restart or move between instances.
    pub fn request_state_keys(mut self, keys: KeyRing) -> Self {
        self.keys = Some(keys);
        self
    }

    /// Take the key ring from `MCP_STATE_KEYS` when it is set (see [`KeyRing::from_env`]);
    /// when it is not, a random key is made at start (and logged), as without keys. A
    /// malformed value makes [`ServerBuilder::build`] fail. Keys given with
    /// [`ServerBuilder::request_state_keys`] take precedence.
    pub fn request_state_keys_from_env(mut self) -> Self {
        self.keys_from_env = true;
        self
    }

    /// How long a `requestState` stays valid (default five minutes).
    pub fn request_state_ttl(mut self, ttl: Duration) -> Self {
        self.request_state_ttl = ttl;
        self
    }

    /// How many tools, prompts or resources one list page holds (default 100).
    pub fn page_size(mut self, n: usize) -> Self {
        self.page_size = n.max(1);
        self
    }

    /// Answer `completion/complete` with `f(reference, argument, partial value)`.
    pub fn completion(
        mut self,
        f: impl Fn(&str, &str, &str) -> Vec<String> + Send + Sync + 'static,
    ) -> Self {
        self.completion = Some(Arc::new(f));
        self
    }

    /// Further codec settings (size cap, single use).
    pub fn request_state_codec(
        mut self,
        f: impl FnOnce(RequestStateCodec) -> RequestStateCodec + 'static,
    ) -> Self {
        self.codec_hook = Some(Box::new(f));
        self
    }

    /// Build the server. Fails when a handler needs a state type that is not registered, or
    /// when no random request-state key can be made.
    pub fn build(mut self) -> Result<Server, BuildError> {
        let registry = catalog::Registry::of(
            std::mem::take(&mut self.tools),
            std::mem::take(&mut self.prompts),
            std::mem::take(&mut self.resources),
        );
        Self::check_needs(&self.app_state, &registry)?;
        let (codec, ephemeral_keys) = self.codec()?;
        let changes = tokio::sync::broadcast::channel(64).0;
        #[cfg(feature = "metrics")]
        let metrics = self
            .metrics
            .then(|| Arc::new(crate::metrics::Metrics::new()));
        #[cfg(feature = "skills")]
        let skills = (self.skills_dir.is_some() || !self.skills.is_empty()).then(|| {
            let skills = Arc::new(crate::skills::Skills::new(
                self.skills_dir,
                self.skills,
                self.skills_poll,
            ));
            skills.watch();
            skills
        });
        #[cfg(feature = "tasks")]
        let engine = {
            let settings = self.tasks;
            let engine = tasks::TaskEngine::new(
                settings
                    .store
                    .unwrap_or_else(|| Arc::new(crate::tasks::InMemoryTaskStore::default())),
                settings.ttl,
                settings.lease,
            )
            .with_budget(settings.budget, settings.per_principal)
            .offered(settings.offered);
            #[cfg(feature = "metrics")]
            let engine = engine.with_metrics(metrics.clone());
            engine
        };
        let info = Implementation::new(self.name, self.version);
        #[cfg(any(feature = "http", feature = "stdio"))]
        let session_hello = session::hello_members(&info, self.instructions.as_deref());
        Ok(Server {
            info,
            #[cfg(any(feature = "http", feature = "stdio"))]
            session_hello,
            instructions: self.instructions,
            catalog: Arc::new(catalog::Shared::new(
                registry,
                changes.clone(),
                self.app_state.clone(),
                #[cfg(feature = "skills")]
                skills,
            )),
            codec,
            ephemeral_keys,
            list_ttl_ms: 60_000,
            page_size: self.page_size,
            completion: self.completion,
            changes,
            closing: tokio::sync::watch::channel(false).0,
            app_state: self.app_state,
            sessions: self.sessions,
            #[cfg(feature = "tasks")]
            tasks: Arc::new(engine),
            #[cfg(feature = "metrics")]
            metrics,
            #[cfg(feature = "validate")]
            validate_requests: self.validate_requests,
        })
    }
}

impl ServerBuilder {
    /// The `requestState` codec: the key ring given, else the one in the environment when asked
    /// for, else a random key (then also `true`: the keys die with the process); single use on
    /// this instance unless a hook extends it.
    fn codec(&mut self) -> Result<(RequestStateCodec, bool), BuildError> {
        let keys = self.keys.take();
        let from_env = match (&keys, self.keys_from_env) {
            (None, true) => KeyRing::from_env()?,
            _ => None,
        };
        let ephemeral_keys = keys.is_none() && from_env.is_none();
        let keys = match keys.or(from_env) {
            Some(k) => k,
            None => {
                tracing::debug!("no request-state keys configured: using a random key");
                KeyRing::random()?
            }
        };
        // Single use by default, on this instance (a shared store extends it across instances).
        let mut codec = RequestStateCodec::new(keys)
            .ttl(self.request_state_ttl)
            .single_use(crate::request_state::InMemoryReplayGuard::default());
        if let Some(hook) = self.codec_hook.take() {
            codec = hook(codec);
        }
        Ok((codec, ephemeral_keys))
    }
}

impl ServerBuilder {
    /// Every state type a registered handler takes must be registered too.
    fn check_needs(app_state: &StateMap, registry: &catalog::Registry) -> Result<(), BuildError> {
        let needs = registry
            .tools
            .iter()
            .map(|(name, t)| (name.clone(), t.handler.needs()))
            .chain(
                registry
                    .prompts
                    .iter()
                    .map(|(name, p)| (name.clone(), p.handler.needs())),
            )
            .chain(
                registry
                    .resources
                    .iter()
                    .map(|r| (r.handler.uri_template().to_string(), r.handler.needs())),
            );
        for (handler, needs) in needs {
            if let Some(Need { type_name, .. }) =
                needs.into_iter().find(|n| !app_state.contains(n.type_id))
            {
                return Err(BuildError::MissingState { handler, type_name });
            }
        }
        Ok(())
    }
}

impl Server {
    /// Whether single use of `requestState` holds across instances (a shared guard is set).
    #[cfg(feature = "lambda")]
    pub(crate) fn shares_single_use(&self) -> bool {
        self.codec.shares_single_use()
    }

    /// Whether `requestState` is sealed with a random key made when the server was built (no
    /// key ring was configured): a flow waiting for input then fails after a restart or on
    /// another instance. A host that serves many instances may refuse to start on it.
    pub fn ephemeral_keys(&self) -> bool {
        self.ephemeral_keys
    }

    /// The skills catalog, when the server offers skills.
    #[cfg(feature = "skills")]
    pub(crate) fn skills(&self) -> Option<&Arc<crate::skills::Skills>> {
        self.catalog.skills.as_ref()
    }

    /// The server's metrics, when turned on.
    #[cfg(feature = "metrics")]
    pub(crate) fn metrics(&self) -> Option<&Arc<crate::metrics::Metrics>> {
        self.metrics.as_ref()
    }

    /// Whether this server can take requests: its task store answers (within a second). The
    /// reason when it cannot. Transports add their own conditions (an HTTP server that drains
    /// is not ready).
    pub async fn readiness(&self) -> Result<(), String> {
        #[cfg(feature = "tasks")]
        match tokio::time::timeout(Duration::from_secs(1), self.tasks.store.ping()).await {
            Ok(Ok(())) => Ok(()),
            Ok(Err(e)) => Err(e.to_string()),
            Err(_) => Err("the task store did not answer in time".into()),
        }
        #[cfg(not(feature = "tasks"))]
        Ok(())
    }

    /// The names of the tools offered now, in registration order.
    pub fn tool_names(&self) -> Vec<String> {
        self.registry().tools.keys().cloned().collect()
    }

    /// The arguments of `tool` that HTTP clients mirror in `Mcp-Param-<header>` headers (its
    /// `inputSchema` properties carrying `x-mcp-header`), as (argument, header name).
    pub fn header_params(&self, tool: &str) -> Arc<[(String, String)]> {
        self.registry()
            .tools
            .get(tool)
            .map(|t| t.header_params.clone())
            .unwrap_or_else(|| Arc::new([]))
    }

    /// The OAuth scopes `caller` needs for `tool`: none for a tool it cannot see (unknown,
    /// disabled, or hidden from it by its visibility rule), which is then answered as unknown,
    /// so a refusal for scope never reveals a tool the caller is not shown.
    pub fn tool_scopes(
        &self,
        tool: &str,
        caller: Option<&crate::Principal>,
    ) -> &'static [&'static str] {
        self.registry()
            .tools
            .get(tool)
            .filter(|t| t.offer.to(caller))
            .map(|t| t.handler.scopes())
            .unwrap_or_default()
    }

    /// Announce a list change to every open `subscriptions/listen` stream that asked for it.
    pub fn notify_list_changed(&self, kind: ListKind) {
        let _ = self.changes.send(Change::List(kind));
    }

    /// Announce that the resource at `uri` changed, with `notifications/resources/updated`, to
    /// every open `subscriptions/listen` stream subscribed to it or to a URI it lies under.
    pub fn notify_resource_updated(&self, uri: impl Into<String>) {
        let _ = self.changes.send(Change::ResourceUpdated(uri.into()));
    }

    /// End every open `subscriptions/listen` stream and 2025 session standalone stream, now
    /// and for good: what a shutdown does first, since those streams never end on their own. The transports' `serve` functions
    /// call it when they are told to stop; call it before a graceful shutdown of your own when
    /// the server is mounted in your router.
    pub fn close_streams(&self) {
        self.closing.send_replace(true);
    }

    /// Resolves once [`Server::close_streams`] has been called: streams that carry no work of
    /// their own (a 2025 session's standalone stream) end then, so a stopping server does not
    /// wait its whole grace period for them.
    #[cfg(feature = "http")]
    pub(crate) fn streams_closed(&self) -> impl std::future::Future<Output = ()> + Send + 'static {
        let mut closing = self.closing.subscribe();
        async move {
            let _ = closing.wait_for(|closed| *closed).await;
        }
    }
}
