//! `subscriptions/listen`: the acknowledgement, then the list changes and resource updates the
//! filter asks for, each tagged with the subscription id, until the stream closes.

use super::Server;
use crate::resume::events::{encode, Change, ListKind, Notifier};
use crate::wire::Reply;
use oxmcp_schema::{
    NotificationMetaObject, NotificationParams, PromptListChangedNotification,
    ResourceListChangedNotification, ResourceUpdatedNotification,
    ResourceUpdatedNotificationParams, SubscriptionFilter, SubscriptionsAcknowledgedNotification,
    SubscriptionsAcknowledgedNotificationParams, SubscriptionsListenRequest,
    ToolListChangedNotification,
};
use tokio::sync::broadcast::error::RecvError;

/// Whether an update of `uri` concerns a subscription to `subscribed`: the same URI, or a
/// sub-resource of it (the rest starts a new path segment, query or fragment).
pub(super) fn covers(subscribed: &str, uri: &str) -> bool {
    match uri.strip_prefix(subscribed) {
        Some("") => true,
        Some(rest) => subscribed.ends_with('/') || rest.starts_with(['/', '?', '#']),
        None => false,
    }
}

/// Whether `filter` asks for changes of `kind`.
fn wants(filter: &SubscriptionFilter, kind: ListKind) -> bool {
    let asked = match kind {
        ListKind::Tools => filter.tools_list_changed,
        ListKind::Prompts => filter.prompts_list_changed,
        ListKind::Resources => filter.resources_list_changed,
    };
    asked == Some(true)
}

/// The notification `change` makes for a stream with `filter`, if it wants it.
fn notification(
    change: Change,
    filter: &SubscriptionFilter,
    meta: &NotificationMetaObject,
) -> Option<String> {
    let params = || {
        Some(NotificationParams {
            meta: Some(meta.clone()),
            ..Default::default()
        })
    };
    match change {
        Change::List(kind) if wants(filter, kind) => match kind {
            ListKind::Tools => encode(&ToolListChangedNotification {
                params: params(),
                ..Default::default()
            }),
            ListKind::Prompts => encode(&PromptListChangedNotification {
                params: params(),
                ..Default::default()
            }),
            ListKind::Resources => encode(&ResourceListChangedNotification {
                params: params(),
                ..Default::default()
            }),
        },
        Change::ResourceUpdated(uri)
            if filter
                .resource_subscriptions
                .iter()
                .flatten()
                .any(|s| covers(s, &uri)) =>
        {
            encode(&ResourceUpdatedNotification::new(
                ResourceUpdatedNotificationParams {
                    meta: Some(meta.clone()),
                    ..ResourceUpdatedNotificationParams::new(uri)
                },
            ))
        }
        _ => None,
    }
}

impl Server {
    /// The part of a `subscriptions/listen` filter this server honours: the list changes and
    /// resource subscriptions asked for (its catalog may gain any kind while it serves);
    /// anything else is left out, as the acknowledgement must.
    fn honoured(&self, requested: &SubscriptionFilter) -> SubscriptionFilter {
        let keep = |asked: Option<bool>| (asked == Some(true)).then_some(true);
        SubscriptionFilter {
            tools_list_changed: keep(requested.tools_list_changed),
            prompts_list_changed: keep(requested.prompts_list_changed),
            resources_list_changed: keep(requested.resources_list_changed),
            resource_subscriptions: requested.resource_subscriptions.clone(),
            ..Default::default()
        }
    }

    /// Serve a `subscriptions/listen` stream on `out` until `out` closes, its reader falls a
    /// whole queue behind, or the server closes its streams. It has no reply.
    pub(crate) async fn listen(
        &self,
        request: SubscriptionsListenRequest,
        out: Notifier,
    ) -> Option<Reply> {
        let filter = self.honoured(&request.params.notifications);
        let meta = NotificationMetaObject {
            subscription_id: Some(request.id),
            ..Default::default()
        };
        let mut rx = self.changes.subscribe();
        let ack = encode(&SubscriptionsAcknowledgedNotification {
            params: SubscriptionsAcknowledgedNotificationParams {
                meta: Some(meta.clone()),
                notifications: filter.clone(),
                ..Default::default()
            },
            ..Default::default()
        });
        let mut closing = self.closing.subscribe();
        if ack.is_some_and(|ack| !out.send(ack)) || *closing.borrow() {
            return None;
        }
        loop {
            tokio::select! {
                _ = out.closed() => return None,
                // The server is shutting down: the stream ends so its connection can close.
                _ = closing.wait_for(|closed| *closed) => return None,
                change = rx.recv() => match change {
                    Ok(change) => {
                        if let Some(note) = notification(change, &filter, &meta) {
                            if !out.send(note) {
                                // A reader a whole queue behind is not reading: the stream
                                // ends rather than buffer without limit (the client re-lists
                                // when it listens again, as after any disconnect).
                                if out.is_full() {
                                    tracing::info!("a subscriptions/listen reader fell behind; its stream ends");
                                }
                                return None;
                            }
                        }
                    }
                    Err(RecvError::Lagged(_)) => continue,
                    Err(RecvError::Closed) => return None,
                },
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::covers;

    #[test]
    fn a_subscription_covers_its_uri_and_what_lies_under_it() {
        assert!(covers("file:///a", "file:///a"));
        assert!(covers("file:///a", "file:///a/b"));
        assert!(covers("file:///a/", "file:///a/b"));
        assert!(covers("file:///a", "file:///a?x=1"));
        assert!(!covers("file:///a", "file:///ab"));
        assert!(!covers("file:///a/b", "file:///a"));
    }
}
