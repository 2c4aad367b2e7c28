//! The pod a streaming verb works on, as kubectl's `AttachablePodForObjectFn` finds it: `POD`
//! or `pod/POD` is read; `TYPE/NAME` of a workload or Service gives its selector, and the most
//! active of the pods it selects is taken, waiting up to `--pod-running-timeout` for one to
//! appear.

use std::time::Duration;

use futures::StreamExt as _;
use serde_json::Value;

use super::Error;
use crate::client::{Cluster, ListScope, Selectors, WatchEvent, WatchOptions};
use crate::remote::pods;

/// The pod `target` (`POD` or `TYPE/NAME`) names or selects in `namespace`.
pub async fn attachable(cluster: &Cluster, namespace: &str, target: &str, timeout: Duration) -> Result<Value, Error> {
    let (type_arg, name) = match target.split_once('/') {
        Some((kind, name)) => (kind, name),
        None => ("pods", target),
    };
    if name.is_empty() {
        return Err(Error::Usage("arguments in resource/name form must have a single resource and name".into()));
    }
    let rt = cluster.resolve(type_arg).await?;
    let object = cluster.get(&rt, Some(namespace), name).await?;
    if rt.group.is_empty() && rt.kind == "Pod" {
        return Ok(object);
    }
    from_object(cluster, &object, timeout).await
}

/// The most active pod `object` (a workload or a Service) selects.
pub async fn from_object(cluster: &Cluster, object: &Value, timeout: Duration) -> Result<Value, Error> {
    let selector = pods::selector_for(object).map_err(Error::Usage)?;
    let namespace = object["metadata"]["namespace"].as_str().unwrap_or_default();
    let rt = cluster.resolve("pods").await?;
    let selectors = Selectors { label: Some(&selector), field: None };
    let list = cluster.list(&rt, ListScope::Namespace(namespace), selectors).await?;
    let items = list["items"].as_array().cloned().unwrap_or_default();
    if let Some(pod) = pods::most_active(&items) {
        return Ok(pod.clone());
    }
    // None yet: the first that appears, as kubectl waits for it.
    let version = list["metadata"]["resourceVersion"].as_str().map(String::from);
    let options = WatchOptions { selectors, resource_version: version.as_deref(), timeout: timeout.max(Duration::from_secs(1)) };
    let mut events = cluster.watch(&rt, ListScope::Namespace(namespace), &options).await?;
    let first = async {
        while let Some(event) = events.next().await {
            if let WatchEvent::Added(pod) | WatchEvent::Modified(pod) = event? {
                return Ok(Some(pod));
            }
        }
        Ok::<_, Error>(None)
    };
    match tokio::time::timeout(timeout, first).await {
        Ok(Ok(Some(pod))) => Ok(pod),
        Ok(Err(err)) => Err(err),
        _ => Err(Error::Usage("timed out waiting for the condition".into())),
    }
}
