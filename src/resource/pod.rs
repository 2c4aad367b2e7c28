//! The pod a streaming verb works on, as kubectl's `AttachablePodForObjectFn` finds it: `POD`
//! or `pod/POD` is read; `TYPE/NAME` of a workload or Service gives its selector, and the most
//! active of the pods it selects is taken, waiting up to `--pod-running-timeout` for one to
//! appear.

use std::time::Duration;

use futures::StreamExt as _;
use serde_json::Value;

use super::Error;
use crate::client::{Cluster, ListScope, Selectors, WatchEvent, WatchOptions};
use crate::pods;

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
    let selector = pods::pod_selector(object).map_err(|err| Error::Usage(format!("cannot attach to {err}")))?;
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
    let options =
        WatchOptions { selectors, resource_version: version.as_deref(), timeout: timeout.max(Duration::from_secs(1)) };
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

/// What [`wait_for`] waits for in a pod's phase and conditions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PodState {
    /// Running and Ready (kubectl's `podRunningAndReady`); a pod that already ended is returned
    /// as it is, for its caller to tell.
    RunningAndReady,
    /// Succeeded or Failed (`podCompleted`).
    Completed,
    /// Succeeded (`podSucceeded`).
    Succeeded,
}

impl PodState {
    /// Whether `pod` is in this state, or has ended where the state waits for running.
    fn reached(self, pod: &Value) -> bool {
        let phase = pod["status"]["phase"].as_str().unwrap_or_default();
        match self {
            PodState::RunningAndReady => {
                let ready = (pod["status"]["conditions"].as_array().into_iter().flatten())
                    .any(|condition| condition["type"] == "Ready" && condition["status"] == "True");
                matches!(phase, "Succeeded" | "Failed") || (phase == "Running" && ready)
            }
            PodState::Completed => matches!(phase, "Succeeded" | "Failed"),
            PodState::Succeeded => phase == "Succeeded",
        }
    }
}

/// Watches the pod `name` until it is in `state`, as kubectl's `run` waits (a list and a watch
/// selecting the pod by name, up to `timeout`); a pod deleted meanwhile is not found.
pub async fn wait_for(
    cluster: &Cluster,
    namespace: &str,
    name: &str,
    state: PodState,
    timeout: Duration,
) -> Result<Value, Error> {
    let rt = cluster.resolve("pods").await?;
    let by_name = format!("metadata.name={name}");
    let selectors = Selectors { label: None, field: Some(&by_name) };
    let wait = async {
        let list = cluster.list(&rt, ListScope::Namespace(namespace), selectors).await?;
        if let Some(pod) = (list["items"].as_array().into_iter().flatten()).find(|pod| state.reached(pod)) {
            return Ok(pod.clone());
        }
        let mut version = list["metadata"]["resourceVersion"].as_str().map(String::from);
        loop {
            let options = WatchOptions { selectors, resource_version: version.as_deref(), timeout };
            let mut events = cluster.watch(&rt, ListScope::Namespace(namespace), &options).await?;
            while let Some(event) = events.next().await {
                match event? {
                    WatchEvent::Added(pod) | WatchEvent::Modified(pod) => {
                        version = pod["metadata"]["resourceVersion"].as_str().map(String::from);
                        if state.reached(&pod) {
                            return Ok(pod);
                        }
                    }
                    WatchEvent::Deleted(_) => {
                        let status = crate::client::Status {
                            code: 404,
                            reason: "NotFound".into(),
                            message: r#"pods "" not found"#.into(),
                            details: None,
                        };
                        return Err(Error::Client(crate::client::Error::NotFound(status)));
                    }
                    WatchEvent::Bookmark(at) => version = Some(at),
                }
            }
        }
    };
    match tokio::time::timeout(timeout, wait).await {
        Ok(result) => result,
        Err(_) => Err(Error::Usage("timed out waiting for the condition".into())),
    }
}

/// The log of `container` of the pod `name` as it is now (kubectl's `logs` without `-f`).
pub async fn log(cluster: &Cluster, namespace: &str, name: &str, container: &str) -> Result<Vec<u8>, Error> {
    let segment =
        |text: &str| percent_encoding::utf8_percent_encode(text, percent_encoding::NON_ALPHANUMERIC).to_string();
    let path = format!(
        "/api/v1/namespaces/{}/pods/{}/log?container={}",
        segment(namespace),
        segment(name),
        segment(container)
    );
    Ok(cluster.raw(http::Method::GET, &path, None).await?.to_vec())
}
