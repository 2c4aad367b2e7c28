//! Watching a collection: the server's stream of changes, one JSON event a line, as typed events.

use std::time::Duration;

use bytes::Bytes;
use futures::stream::{self, BoxStream, Stream, StreamExt as _};
use serde::Deserialize;
use serde_json::Value;

use super::Cluster;
use super::dynamic::{ListScope, resource_path, scope_namespace, with_query};
use super::error::{Error, Result};
use super::resource::ResourceType;

/// Which objects of a collection a list or a watch covers.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Selectors<'a> {
    /// A label selector, e.g. `app=web,tier!=db`.
    pub label: Option<&'a str>,
    /// A field selector, e.g. `metadata.name=web`.
    pub field: Option<&'a str>,
}

impl Selectors<'_> {
    pub(crate) fn query(&self) -> Vec<(&'static str, String)> {
        let label = self.label.map(|selector| ("labelSelector", selector.to_string()));
        let field = self.field.map(|selector| ("fieldSelector", selector.to_string()));
        label.into_iter().chain(field).collect()
    }
}

/// Where a watch starts, and how long the server keeps it open.
#[derive(Debug, Clone, Copy)]
pub struct WatchOptions<'a> {
    pub selectors: Selectors<'a>,
    /// Changes after this version of the collection (from a list, or from an object a write
    /// returned); `None` starts with the present objects as `Added` events.
    pub resource_version: Option<&'a str>,
    /// The server ends the watch after this long (`timeoutSeconds`, whole seconds, at least one).
    pub timeout: Duration,
}

/// One change to a watched collection.
#[derive(Debug, Clone, PartialEq)]
pub enum WatchEvent {
    Added(Value),
    Modified(Value),
    Deleted(Value),
    /// Nothing changed among the watched objects up to this version: a later watch may start here.
    Bookmark(String),
}

impl WatchEvent {
    /// The version of the collection this event brings the watcher to.
    pub fn resource_version(&self) -> Option<&str> {
        match self {
            WatchEvent::Added(object) | WatchEvent::Modified(object) | WatchEvent::Deleted(object) => {
                object["metadata"]["resourceVersion"].as_str()
            }
            WatchEvent::Bookmark(version) => Some(version),
        }
    }
}

/// The events of one watch, until the server ends it. An `ERROR` event becomes the error for its
/// status: [`Error::Gone`] when the version the watch started from is too old.
pub type WatchStream = BoxStream<'static, Result<WatchEvent>>;

#[derive(Deserialize)]
struct RawEvent {
    #[serde(rename = "type")]
    kind: String,
    object: Value,
}

impl Cluster {
    /// Watches the objects of `rt` in `scope` that `options.selectors` select, from
    /// `options.resource_version` on. The stream ends when the server closes the watch.
    pub async fn watch(
        &self,
        rt: &ResourceType,
        scope: ListScope<'_>,
        options: &WatchOptions<'_>,
    ) -> Result<WatchStream> {
        self.watch_as(rt, scope, options, "application/json").await
    }

    /// [`Cluster::watch`] with each object printed by the server as a `meta.k8s.io/v1` Table
    /// (one row; the column definitions may be left out after the first), as `get --watch`
    /// shows changes.
    pub async fn watch_tables(
        &self,
        rt: &ResourceType,
        scope: ListScope<'_>,
        options: &WatchOptions<'_>,
    ) -> Result<WatchStream> {
        self.watch_as(rt, scope, options, super::dynamic::TABLE_ACCEPT).await
    }

    async fn watch_as(
        &self,
        rt: &ResourceType,
        scope: ListScope<'_>,
        options: &WatchOptions<'_>,
        accept: &str,
    ) -> Result<WatchStream> {
        let mut query = vec![("watch", "true".to_string()), ("allowWatchBookmarks", "true".to_string())];
        query.extend(options.selectors.query());
        if let Some(version) = options.resource_version {
            query.push(("resourceVersion", version.to_string()));
        }
        query.push(("timeoutSeconds", options.timeout.as_secs().max(1).to_string()));
        let path = with_query(resource_path(rt, scope_namespace(scope), None, None), &query);
        let body = self.transport.stream(&path, accept).await?;
        Ok(lines(body).map(move |line| decode_event(&path, &line?)).boxed())
    }
}

/// The complete lines of a byte stream, without their newlines; a cut-off last line is dropped.
fn lines(bytes: impl Stream<Item = Result<Bytes>> + Send + 'static) -> impl Stream<Item = Result<Vec<u8>>> {
    stream::unfold((bytes.boxed(), Vec::new(), false), |(mut bytes, mut buffer, mut ended)| async move {
        loop {
            if let Some(end) = buffer.iter().position(|&byte| byte == b'\n') {
                let mut line: Vec<u8> = buffer.drain(..=end).collect();
                line.pop();
                return Some((Ok(line), (bytes, buffer, ended)));
            }
            if ended {
                return None;
            }
            match bytes.next().await {
                Some(Ok(chunk)) => buffer.extend_from_slice(&chunk),
                Some(Err(err)) => {
                    ended = true;
                    buffer.clear();
                    return Some((Err(err), (bytes, buffer, ended)));
                }
                None => ended = true,
            }
        }
    })
}

fn decode_event(path: &str, line: &[u8]) -> Result<WatchEvent> {
    let invalid = |reason: String| Error::InvalidResponse { path: path.to_string(), reason };
    let event: RawEvent = serde_json::from_slice(line).map_err(|err| invalid(format!("invalid watch event: {err}")))?;
    match event.kind.as_str() {
        "ADDED" => Ok(WatchEvent::Added(event.object)),
        "MODIFIED" => Ok(WatchEvent::Modified(event.object)),
        "DELETED" => Ok(WatchEvent::Deleted(event.object)),
        "BOOKMARK" => Ok(WatchEvent::Bookmark(
            event.object["metadata"]["resourceVersion"].as_str().unwrap_or_default().to_string(),
        )),
        "ERROR" => {
            let code = event.object["code"].as_u64().and_then(|code| u16::try_from(code).ok()).unwrap_or(500);
            let status = http::StatusCode::from_u16(code).unwrap_or(http::StatusCode::INTERNAL_SERVER_ERROR);
            Err(Error::from_response(status, &serde_json::to_vec(&event.object).unwrap_or_default()))
        }
        other => Err(invalid(format!("unknown watch event type {other:?}"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decoded(chunks: &[&str]) -> Vec<Result<WatchEvent>> {
        let chunks: Vec<Result<Bytes>> = chunks.iter().map(|chunk| Ok(Bytes::from(chunk.to_string()))).collect();
        let events = lines(stream::iter(chunks)).map(|line| decode_event("/watch", &line?));
        futures::executor::block_on(events.collect())
    }

    #[test]
    fn events_split_across_chunks_are_decoded() {
        let events = decoded(&[
            r#"{"type":"ADDED","object":{"metadata":{"name":"a","resourceVersion":"5"}}}"#,
            "\n{\"type\":\"MODIFIED\",\"object\":{\"metadata\":",
            "{\"name\":\"a\",\"resourceVersion\":\"6\"}}}\n{\"type\":\"BOOKMARK\",\"object\":{\"metadata\":{\"resourceVersion\":\"9\"}}}\n",
            r#"{"type":"DELETED","object":{"metadata":{"name":"a","resourceVersion":"7"}}}"#,
        ]);
        let versions: Vec<_> =
            events.iter().map(|event| event.as_ref().unwrap().resource_version().unwrap().to_string()).collect();
        assert_eq!(versions, ["5", "6", "9"], "a cut-off last line is dropped");
        assert!(matches!(events[1], Ok(WatchEvent::Modified(_))));
        assert!(matches!(events[2], Ok(WatchEvent::Bookmark(_))));
    }

    #[test]
    fn too_old_versions_are_gone_and_other_errors_keep_their_status() {
        let events = decoded(&[
            "{\"type\":\"ERROR\",\"object\":{\"kind\":\"Status\",\"code\":410,\"reason\":\"Expired\",\"message\":\"too old resource version: 1 (5)\"}}\n",
            "{\"type\":\"ERROR\",\"object\":{\"kind\":\"Status\",\"code\":500,\"message\":\"boom\"}}\n",
            "{\"type\":\"SURPRISE\",\"object\":{}}\n",
        ]);
        let gone = events[0].as_ref().unwrap_err();
        assert!(matches!(gone, Error::Gone(_)), "{gone:?}");
        assert_eq!(gone.status().unwrap().message, "too old resource version: 1 (5)");
        assert!(matches!(events[1], Err(Error::Server(_))));
        assert!(matches!(events[2], Err(Error::InvalidResponse { .. })));
    }
}
