//! `server/discover`, the four listings (paged, with opaque cursors) and `completion/complete`.

use super::catalog::ResourceListing;
use super::{Server, SUPPORTED_VERSIONS};
use crate::handler::Principal;
use oxmcp_schema::{
    CacheScope, CompleteRequestParams, CompleteRequestParamsRef, CompleteResult,
    CompleteResultCompletion, DiscoverResult, Error, ListPromptsResult,
    ListResourceTemplatesResult, ListResourcesResult, ListToolsResult, PaginatedRequestParams,
    ResultMetaObject, ResultType, ServerCapabilities, ServerCapabilitiesPrompts,
    ServerCapabilitiesResources, ServerCapabilitiesTools,
};
use serde_json::Map;

/// At most this many completion values are returned.
const MAX_COMPLETIONS: usize = 100;

/// One page of a listing and the cursor of the next one.
struct Page<T> {
    items: Vec<T>,
    next_cursor: Option<String>,
}

impl Server {
    /// What this server offers, as `server/discover` and every capability check see it.
    pub(crate) fn capabilities(&self) -> ServerCapabilities {
        ServerCapabilities {
            tools: Some(ServerCapabilitiesTools {
                list_changed: Some(true),
                ..Default::default()
            }),
            prompts: Some(ServerCapabilitiesPrompts {
                list_changed: Some(true),
                ..Default::default()
            }),
            resources: Some(ServerCapabilitiesResources {
                list_changed: Some(true),
                subscribe: Some(true),
                ..Default::default()
            }),
            logging: Some(Map::new()),
            completions: self.completion.is_some().then(Map::new),
            extensions: self.extensions(),
            ..Default::default()
        }
    }

    /// The extensions this server serves, with their settings: tasks, when a tool can run as
    /// a task; skills, when it offers skills.
    pub(crate) fn extensions(
        &self,
    ) -> Option<indexmap::IndexMap<String, Map<String, serde_json::Value>>> {
        #[cfg_attr(not(any(feature = "tasks", feature = "skills")), allow(unused_mut))]
        let mut extensions = indexmap::IndexMap::new();
        #[cfg(feature = "tasks")]
        let tasks = self.tasks.offered
            && self
                .registry()
                .tools
                .values()
                .any(|t| t.handler.task_support().mode != crate::handler::TaskMode::Never);
        #[cfg(feature = "tasks")]
        if tasks {
            extensions.insert(super::tasks::TASKS_EXTENSION.to_string(), Map::new());
        }
        #[cfg(feature = "skills")]
        if self.skills().is_some() {
            extensions.insert(
                crate::skills::SKILLS_EXTENSION.to_string(),
                crate::skills::Skills::capability(),
            );
        }
        (!extensions.is_empty()).then_some(extensions)
    }

    pub(crate) fn discover(&self) -> DiscoverResult {
        DiscoverResult {
            meta: Some(ResultMetaObject {
                server_info: Some(self.info.clone()),
                ..Default::default()
            }),
            cache_scope: Some(CacheScope::Public),
            capabilities: self.capabilities(),
            instructions: self.instructions.clone(),
            result_type: Some(ResultType::Complete),
            supported_versions: SUPPORTED_VERSIONS.iter().map(|v| v.to_string()).collect(),
            ttl_ms: Some(self.list_ttl_ms),
            ..Default::default()
        }
    }

    /// One page of `items`: the cursor (opaque to clients) is the offset of the page.
    fn page<'a, T: Clone + 'a>(
        &self,
        items: impl Iterator<Item = &'a T>,
        cursor: Option<&str>,
    ) -> Result<Page<T>, Error> {
        let engine = base64_simd::URL_SAFE_NO_PAD;
        let start = match cursor {
            None => 0,
            Some(c) => engine
                .decode_to_vec(c)
                .ok()
                .and_then(|b| String::from_utf8(b).ok())
                .and_then(|s| s.strip_prefix("o:").and_then(|n| n.parse::<usize>().ok()))
                .ok_or_else(|| Error::invalid_params("invalid cursor"))?,
        };
        let mut items: Vec<T> = items
            .skip(start)
            .take(self.page_size + 1)
            .cloned()
            .collect();
        let more = items.len() > self.page_size;
        items.truncate(self.page_size);
        let next_cursor =
            more.then(|| engine.encode_to_string(format!("o:{}", start + self.page_size)));
        Ok(Page { items, next_cursor })
    }

    pub(crate) fn list_tools(
        &self,
        params: &PaginatedRequestParams,
        caller: Option<&Principal>,
    ) -> Result<ListToolsResult, Error> {
        let registry = self.registry();
        let page = self.page(
            registry
                .tools
                .values()
                .filter(|t| t.offer.to(caller))
                .map(|t| &t.descriptor),
            params.cursor.as_deref(),
        )?;
        Ok(ListToolsResult {
            tools: page.items,
            next_cursor: page.next_cursor,
            ttl_ms: Some(self.list_ttl_ms),
            cache_scope: Some(CacheScope::Public),
            result_type: Some(ResultType::Complete),
            ..Default::default()
        })
    }

    pub(crate) fn list_prompts(
        &self,
        params: &PaginatedRequestParams,
        caller: Option<&Principal>,
    ) -> Result<ListPromptsResult, Error> {
        let registry = self.registry();
        let page = self.page(
            registry
                .prompts
                .values()
                .filter(|p| p.offer.to(caller))
                .map(|p| &p.descriptor),
            params.cursor.as_deref(),
        )?;
        Ok(ListPromptsResult {
            prompts: page.items,
            next_cursor: page.next_cursor,
            ttl_ms: Some(self.list_ttl_ms),
            cache_scope: Some(CacheScope::Public),
            result_type: Some(ResultType::Complete),
            ..Default::default()
        })
    }

    pub(crate) fn list_resources(
        &self,
        params: &PaginatedRequestParams,
        caller: Option<&Principal>,
    ) -> Result<ListResourcesResult, Error> {
        let registry = self.registry();
        let listed = registry
            .resources
            .iter()
            .filter(|r| r.offer.to(caller))
            .filter_map(|r| match &r.listing {
                ResourceListing::Resource(r) => Some(r),
                _ => None,
            });
        // Each skill's SKILL.md follows the registered resources.
        #[cfg(feature = "skills")]
        let skills: Vec<oxmcp_schema::Resource> = self
            .skills()
            .map(|s| {
                s.resources()
                    .iter()
                    .filter_map(|r| crate::wire::from_value_text(r).ok())
                    .collect()
            })
            .unwrap_or_default();
        #[cfg(feature = "skills")]
        let listed = listed.chain(skills.iter());
        let page = self.page(listed, params.cursor.as_deref())?;
        Ok(ListResourcesResult {
            resources: page.items,
            next_cursor: page.next_cursor,
            ttl_ms: Some(self.list_ttl_ms),
            cache_scope: Some(CacheScope::Public),
            result_type: Some(ResultType::Complete),
            ..Default::default()
        })
    }

    pub(crate) fn list_resource_templates(
        &self,
        params: &PaginatedRequestParams,
        caller: Option<&Principal>,
    ) -> Result<ListResourceTemplatesResult, Error> {
        let registry = self.registry();
        let listed = registry
            .resources
            .iter()
            .filter(|r| r.offer.to(caller))
            .filter_map(|r| match &r.listing {
                ResourceListing::Template(t) => Some(t),
                _ => None,
            });
        let page = self.page(listed, params.cursor.as_deref())?;
        Ok(ListResourceTemplatesResult {
            resource_templates: page.items,
            next_cursor: page.next_cursor,
            ttl_ms: Some(self.list_ttl_ms),
            cache_scope: Some(CacheScope::Public),
            result_type: Some(ResultType::Complete),
            ..Default::default()
        })
    }

    pub(crate) fn complete(&self, params: &CompleteRequestParams) -> CompleteResult {
        let target = match &params.ref_ {
            CompleteRequestParamsRef::PromptReference(p) => Some(p.name.as_str()),
            CompleteRequestParamsRef::ResourceTemplateReference(r) => Some(r.uri.as_str()),
            // A kind of reference this runtime does not know: nothing to complete.
            _ => None,
        };
        let mut values = match (target, &self.completion) {
            (Some(target), Some(f)) => f(target, &params.argument.name, &params.argument.value),
            _ => Vec::new(),
        };
        let total = values.len();
        values.truncate(MAX_COMPLETIONS);
        CompleteResult {
            completion: CompleteResultCompletion {
                has_more: Some(total > values.len()),
                total: Some(total as i64),
                values,
                ..Default::default()
            },
            result_type: Some(ResultType::Complete),
            ..Default::default()
        }
    }
}
