//! What a server offers, changeable while it serves: the registry of tools, prompts and
//! resources is an immutable snapshot that requests read without a lock (an atomic pointer
//! load), and a [`Catalog`] handle writes a new snapshot for each change, then announces it
//! (`notifications/*/list_changed`) to every listening client. Each item may be disabled (it is
//! then absent) or made visible to some callers only (a predicate over the caller's
//! [`Principal`]): a caller that may not see an item does not find it in lists, and calling it
//! is answered as for an unknown one.

use super::Server;
use crate::handler::extract::StateMap;
use crate::handler::{Need, Principal, PromptHandler, ResourceHandler, ToolHandler};
use crate::request_state::FingerprintDigest;
use crate::resume::events::{Change, ListKind};
use crate::wire::param::header_params;
use arc_swap::ArcSwap;
use indexmap::IndexMap;
use oxmcp_schema::{Prompt, Resource, ResourceTemplate, Tool};
use std::fmt;
use std::sync::{Arc, Mutex};

/// Who may see an item: a predicate over the caller (`None` for an anonymous one).
pub type Visibility = Arc<dyn Fn(Option<&Principal>) -> bool + Send + Sync>;

/// Whether an item is offered, and to whom.
#[derive(Clone, Default)]
pub(crate) struct Offer {
    disabled: bool,
    visible: Option<Visibility>,
}

impl Offer {
    /// Whether `caller` finds the item.
    pub(crate) fn to(&self, caller: Option<&Principal>) -> bool {
        !self.disabled && self.visible.as_ref().is_none_or(|v| v(caller))
    }
}

pub(crate) struct RegisteredTool {
    pub(crate) handler: Arc<dyn ToolHandler>,
    /// The digest of `handler.fingerprint()`, as request states carry it.
    pub(crate) fingerprint: FingerprintDigest,
    pub(crate) descriptor: Tool,
    pub(crate) header_params: Arc<[(String, String)]>,
    pub(crate) offer: Offer,
}

pub(crate) struct RegisteredPrompt {
    pub(crate) handler: Arc<dyn PromptHandler>,
    /// The digest of `handler.fingerprint()`, as request states carry it.
    pub(crate) fingerprint: FingerprintDigest,
    pub(crate) descriptor: Prompt,
    pub(crate) offer: Offer,
}

/// A resource is listed either as a resource or as a template.
pub(crate) enum ResourceListing {
    Resource(Resource),
    Template(ResourceTemplate),
    /// The handler describes neither (it is still readable).
    Unlisted,
}

pub(crate) struct RegisteredResource {
    pub(crate) handler: Arc<dyn ResourceHandler>,
    /// The digest of `handler.fingerprint()`, as request states carry it.
    pub(crate) fingerprint: FingerprintDigest,
    pub(crate) listing: ResourceListing,
    pub(crate) offer: Offer,
}

impl RegisteredTool {
    pub(crate) fn new(handler: Arc<dyn ToolHandler>) -> Self {
        let descriptor = handler.tool();
        let header_params = header_params(descriptor.input_schema.extra.get("properties"));
        RegisteredTool {
            fingerprint: FingerprintDigest::of(handler.fingerprint()),
            handler,
            descriptor,
            header_params: header_params.into(),
            offer: Offer::default(),
        }
    }
}

impl RegisteredPrompt {
    pub(crate) fn new(handler: Arc<dyn PromptHandler>) -> Self {
        RegisteredPrompt {
            fingerprint: FingerprintDigest::of(handler.fingerprint()),
            descriptor: handler.prompt(),
            handler,
            offer: Offer::default(),
        }
    }
}

impl RegisteredResource {
    pub(crate) fn new(handler: Arc<dyn ResourceHandler>) -> Self {
        let listing = match (handler.resource(), handler.template()) {
            (Some(r), _) => ResourceListing::Resource(r),
            (None, Some(t)) => ResourceListing::Template(t),
            (None, None) => ResourceListing::Unlisted,
        };
        RegisteredResource {
            fingerprint: FingerprintDigest::of(handler.fingerprint()),
            handler,
            listing,
            offer: Offer::default(),
        }
    }

    /// The URI or URI template the resource is found by.
    pub(crate) fn key(&self) -> &'static str {
        self.handler.uri_template()
    }
}

/// One snapshot of what the server offers. Entries are shared between snapshots, so writing a
/// new one copies pointers, not handlers.
#[derive(Clone, Default)]
pub(crate) struct Registry {
    pub(crate) tools: IndexMap<String, Arc<RegisteredTool>>,
    pub(crate) prompts: IndexMap<String, Arc<RegisteredPrompt>>,
    pub(crate) resources: Vec<Arc<RegisteredResource>>,
}

impl Registry {
    /// The registry of these handlers, each read once (descriptor, fingerprint): a tool or
    /// prompt of a name already taken replaces the earlier one, as `Catalog::add_tool` does;
    /// resources are kept in the order given.
    pub(crate) fn of(
        tools: Vec<Arc<dyn ToolHandler>>,
        prompts: Vec<Arc<dyn PromptHandler>>,
        resources: Vec<Arc<dyn ResourceHandler>>,
    ) -> Self {
        let mut registry = Registry::default();
        for handler in tools {
            Entry::insert(&mut registry, Arc::new(RegisteredTool::new(handler)));
        }
        for handler in prompts {
            Entry::insert(&mut registry, Arc::new(RegisteredPrompt::new(handler)));
        }
        for handler in resources {
            registry
                .resources
                .push(Arc::new(RegisteredResource::new(handler)));
        }
        registry
    }
}

/// The shared state behind a server's registry and its [`Catalog`] handles.
pub(crate) struct Shared {
    pub(crate) current: ArcSwap<Registry>,
    /// Changes are made one at a time (each reads the snapshot it replaces).
    writing: Mutex<()>,
    changes: tokio::sync::broadcast::Sender<Change>,
    app_state: StateMap,
    #[cfg(feature = "skills")]
    pub(crate) skills: Option<Arc<crate::skills::Skills>>,
}

impl Shared {
    pub(crate) fn new(
        registry: Registry,
        changes: tokio::sync::broadcast::Sender<Change>,
        app_state: StateMap,
        #[cfg(feature = "skills")] skills: Option<Arc<crate::skills::Skills>>,
    ) -> Self {
        Shared {
            current: ArcSwap::from_pointee(registry),
            writing: Mutex::new(()),
            changes,
            app_state,
            #[cfg(feature = "skills")]
            skills,
        }
    }

    /// Apply `change` to a copy of the current snapshot and publish it when `change` says it
    /// changed something (then `kind`'s lists are announced as changed).
    fn update<T>(&self, kind: ListKind, change: impl FnOnce(&mut Registry) -> (bool, T)) -> T {
        let _one_at_a_time = crate::wire::lock(&self.writing);
        let mut next = Registry::clone(&self.current.load());
        let (changed, out) = change(&mut next);
        if changed {
            self.current.store(Arc::new(next));
            let _ = self.changes.send(Change::List(kind));
        }
        out
    }
}

/// Why a catalog change was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum CatalogError {
    /// A handler takes `State<T>` for a type the server has no value of.
    MissingState {
        /// The tool, prompt or resource.
        handler: String,
        /// The state type it needs.
        type_name: &'static str,
    },
}

impl fmt::Display for CatalogError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CatalogError::MissingState { handler, type_name } => write!(
                f,
                "{handler} takes State<{type_name}>, but the server has no {type_name} state"
            ),
        }
    }
}

impl std::error::Error for CatalogError {}

/// A handle to a running server's catalog: add, replace, enable, disable, hide and remove its
/// tools, prompts, resources and skills while it serves. Every change is published at once as a
/// new snapshot (requests in flight finish with the one they started with) and announced to
/// listening clients (`subscriptions/listen` streams and 2025-era sessions) as a list change.
/// Cheap to clone; obtained with [`Server::catalog`].
#[derive(Clone)]
pub struct Catalog {
    shared: Arc<Shared>,
}

impl fmt::Debug for Catalog {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let registry = self.shared.current.load();
        f.debug_struct("Catalog")
            .field("tools", &registry.tools.keys().collect::<Vec<_>>())
            .field("prompts", &registry.prompts.keys().collect::<Vec<_>>())
            .field("resources", &registry.resources.len())
            .finish()
    }
}

/// The first state type `needs` names that `app_state` lacks.
fn missing(app_state: &StateMap, name: &str, needs: Vec<Need>) -> Result<(), CatalogError> {
    match needs.into_iter().find(|n| !app_state.contains(n.type_id)) {
        Some(Need { type_name, .. }) => Err(CatalogError::MissingState {
            handler: name.to_string(),
            type_name,
        }),
        None => Ok(()),
    }
}

impl Catalog {
    pub(crate) fn new(shared: Arc<Shared>) -> Self {
        Catalog { shared }
    }

    /// Offer `tool`, replacing a tool of the same name (a call in progress finishes with the
    /// handler it started with; its retries resume on the new one only if the handler's code is
    /// the same, else they start over). Refused when the tool needs state the server lacks.
    pub fn add_tool(&self, tool: impl ToolHandler) -> Result<(), CatalogError> {
        self.add(RegisteredTool::new(Arc::new(tool)))
    }

    /// Stop offering the tool `name`: it is no longer listed, a call to it is answered as for an
    /// unknown tool, and a retry that carries a `requestState` for it is refused. Whether it
    /// was there.
    pub fn remove_tool(&self, name: &str) -> bool {
        self.remove::<RegisteredTool>(name)
    }

    /// Offer the tool `name` again (`true`) or withdraw it while keeping it registered
    /// (`false`). Whether it exists.
    pub fn enable_tool(&self, name: &str, enabled: bool) -> bool {
        self.edit::<RegisteredTool>(name, |o| o.disabled = !enabled)
    }

    /// Show the tool `name` only to callers `visible` accepts (a predicate over the caller's
    /// principal, `None` when anonymous), e.g. `|p| p.is_some_and(|p| p.has_scope("admin"))`.
    /// Whether it exists.
    pub fn tool_visible_to(
        &self,
        name: &str,
        visible: impl Fn(Option<&Principal>) -> bool + Send + Sync + 'static,
    ) -> bool {
        self.edit::<RegisteredTool>(name, |o| o.visible = Some(Arc::new(visible)))
    }

    /// Offer `prompt`, replacing a prompt of the same name.
    pub fn add_prompt(&self, prompt: impl PromptHandler) -> Result<(), CatalogError> {
        self.add(RegisteredPrompt::new(Arc::new(prompt)))
    }

    /// Stop offering the prompt `name`. Whether it was there.
    pub fn remove_prompt(&self, name: &str) -> bool {
        self.remove::<RegisteredPrompt>(name)
    }

    /// Offer the prompt `name` again, or withdraw it. Whether it exists.
    pub fn enable_prompt(&self, name: &str, enabled: bool) -> bool {
        self.edit::<RegisteredPrompt>(name, |o| o.disabled = !enabled)
    }

    /// Show the prompt `name` only to callers `visible` accepts. Whether it exists.
    pub fn prompt_visible_to(
        &self,
        name: &str,
        visible: impl Fn(Option<&Principal>) -> bool + Send + Sync + 'static,
    ) -> bool {
        self.edit::<RegisteredPrompt>(name, |o| o.visible = Some(Arc::new(visible)))
    }

    /// Offer `resource` (a resource or a template), replacing one with the same URI or template.
    pub fn add_resource(&self, resource: impl ResourceHandler) -> Result<(), CatalogError> {
        self.add(RegisteredResource::new(Arc::new(resource)))
    }

    /// Stop offering the resource whose URI or template is `uri`. Whether it was there.
    pub fn remove_resource(&self, uri: &str) -> bool {
        self.remove::<RegisteredResource>(uri)
    }

    /// Offer the resource `uri` (its URI or template) again, or withdraw it. Whether it exists.
    pub fn enable_resource(&self, uri: &str, enabled: bool) -> bool {
        self.edit::<RegisteredResource>(uri, |o| o.disabled = !enabled)
    }

    /// Show the resource `uri` only to callers `visible` accepts. Whether it exists.
    pub fn resource_visible_to(
        &self,
        uri: &str,
        visible: impl Fn(Option<&Principal>) -> bool + Send + Sync + 'static,
    ) -> bool {
        self.edit::<RegisteredResource>(uri, |o| o.visible = Some(Arc::new(visible)))
    }

    /// Offer `entry`, replacing the one with the same key, once its state needs are met; the
    /// listening clients are told its list changed.
    fn add<E: Entry>(&self, entry: E) -> Result<(), CatalogError> {
        missing(&self.shared.app_state, entry.key(), entry.needs())?;
        self.shared.update(E::LIST, |r| {
            E::insert(r, Arc::new(entry));
            (true, ())
        });
        Ok(())
    }

    /// Stop offering the entry of kind `E` under `key`. Whether it was there.
    fn remove<E: Entry>(&self, key: &str) -> bool {
        self.shared.update(E::LIST, |r| {
            let removed = E::remove(r, key);
            (removed, removed)
        })
    }

    /// Change how the entry of kind `E` under `key` is offered. Whether it exists.
    fn edit<E: Entry>(&self, key: &str, change: impl FnOnce(&mut Offer)) -> bool {
        self.shared.update(E::LIST, |r| {
            let Some(entry) = E::find(r, key) else {
                return (false, false);
            };
            let mut offer = entry.offer().clone();
            change(&mut offer);
            *entry = Arc::new(entry.with_offer(offer));
            (true, true)
        })
    }

    /// Offer `skill` (or replace the skill at the same path) in the skills built in code, then
    /// reload the skills catalog. Refused (false) when the server offers no skills.
    #[cfg(feature = "skills")]
    #[cfg_attr(docsrs, doc(cfg(feature = "skills")))]
    pub fn add_skill(&self, skill: crate::skills::Skill) -> bool {
        let Some(skills) = &self.shared.skills else {
            return false;
        };
        skills.add(skill);
        let _ = self.shared.changes.send(Change::List(ListKind::Resources));
        true
    }

    /// Stop offering the skill built in code at `path`. Whether it was there.
    #[cfg(feature = "skills")]
    #[cfg_attr(docsrs, doc(cfg(feature = "skills")))]
    pub fn remove_skill(&self, path: &str) -> bool {
        let removed = self.shared.skills.as_ref().is_some_and(|s| s.remove(path));
        if removed {
            let _ = self.shared.changes.send(Change::List(ListKind::Resources));
        }
        removed
    }

    /// The names of the tools offered now, enabled or not, in the order they were added.
    pub fn tool_names(&self) -> Vec<String> {
        self.shared.current.load().tools.keys().cloned().collect()
    }
}

/// A kind of entry the catalog keeps (tools, prompts, resources): where a registry holds it, by
/// what key, and how it is copied with another offer. The catalog's operations are written once
/// over it.
trait Entry: Sized {
    /// The list whose listeners hear of a change.
    const LIST: ListKind;
    /// The name or URI (template) the entry is found by.
    fn key(&self) -> &str;
    /// The state types its handler needs.
    fn needs(&self) -> Vec<crate::handler::Need>;
    fn offer(&self) -> &Offer;
    /// The same entry, offered as `offer` says.
    fn with_offer(&self, offer: Offer) -> Self;
    /// Put `entry` in `r`, replacing the one with the same key.
    fn insert(r: &mut Registry, entry: Arc<Self>);
    /// Take the entry under `key` out of `r`. Whether it was there.
    fn remove(r: &mut Registry, key: &str) -> bool;
    fn find<'r>(r: &'r mut Registry, key: &str) -> Option<&'r mut Arc<Self>>;
}

impl Entry for RegisteredTool {
    const LIST: ListKind = ListKind::Tools;
    fn key(&self) -> &str {
        &self.descriptor.name
    }
    fn needs(&self) -> Vec<crate::handler::Need> {
        self.handler.needs()
    }
    fn offer(&self) -> &Offer {
        &self.offer
    }
    fn with_offer(&self, offer: Offer) -> Self {
        RegisteredTool {
            handler: self.handler.clone(),
            fingerprint: self.fingerprint,
            descriptor: self.descriptor.clone(),
            header_params: self.header_params.clone(),
            offer,
        }
    }
    fn insert(r: &mut Registry, entry: Arc<Self>) {
        r.tools.insert(entry.descriptor.name.clone(), entry);
    }
    fn remove(r: &mut Registry, key: &str) -> bool {
        r.tools.shift_remove(key).is_some()
    }
    fn find<'r>(r: &'r mut Registry, key: &str) -> Option<&'r mut Arc<Self>> {
        r.tools.get_mut(key)
    }
}

impl Entry for RegisteredPrompt {
    const LIST: ListKind = ListKind::Prompts;
    fn key(&self) -> &str {
        &self.descriptor.name
    }
    fn needs(&self) -> Vec<crate::handler::Need> {
        self.handler.needs()
    }
    fn offer(&self) -> &Offer {
        &self.offer
    }
    fn with_offer(&self, offer: Offer) -> Self {
        RegisteredPrompt {
            handler: self.handler.clone(),
            fingerprint: self.fingerprint,
            descriptor: self.descriptor.clone(),
            offer,
        }
    }
    fn insert(r: &mut Registry, entry: Arc<Self>) {
        r.prompts.insert(entry.descriptor.name.clone(), entry);
    }
    fn remove(r: &mut Registry, key: &str) -> bool {
        r.prompts.shift_remove(key).is_some()
    }
    fn find<'r>(r: &'r mut Registry, key: &str) -> Option<&'r mut Arc<Self>> {
        r.prompts.get_mut(key)
    }
}

impl Entry for RegisteredResource {
    const LIST: ListKind = ListKind::Resources;
    fn key(&self) -> &str {
        RegisteredResource::key(self)
    }
    fn needs(&self) -> Vec<crate::handler::Need> {
        self.handler.needs()
    }
    fn offer(&self) -> &Offer {
        &self.offer
    }
    fn with_offer(&self, offer: Offer) -> Self {
        let listing = match &self.listing {
            ResourceListing::Resource(r) => ResourceListing::Resource(r.clone()),
            ResourceListing::Template(t) => ResourceListing::Template(t.clone()),
            ResourceListing::Unlisted => ResourceListing::Unlisted,
        };
        RegisteredResource {
            handler: self.handler.clone(),
            fingerprint: self.fingerprint,
            listing,
            offer,
        }
    }
    fn insert(r: &mut Registry, entry: Arc<Self>) {
        let key = RegisteredResource::key(&entry);
        r.resources.retain(|x| x.key() != key);
        r.resources.push(entry);
    }
    fn remove(r: &mut Registry, key: &str) -> bool {
        let before = r.resources.len();
        r.resources.retain(|x| x.key() != key);
        r.resources.len() < before
    }
    fn find<'r>(r: &'r mut Registry, key: &str) -> Option<&'r mut Arc<Self>> {
        r.resources.iter_mut().find(|x| x.key() == key)
    }
}

impl Server {
    /// A handle to this server's catalog, to change what it offers while it serves (see
    /// [`Catalog`]).
    pub fn catalog(&self) -> Catalog {
        Catalog::new(self.catalog.clone())
    }

    /// The snapshot of what the server offers now.
    pub(crate) fn registry(&self) -> arc_swap::Guard<Arc<Registry>> {
        self.catalog.current.load()
    }
}
