//! CustomResourceDefinitions applied in the same input as objects of their kinds: wait until they
//! are established and their kinds are served, so that those objects can be applied next.

use std::time::Duration;

use http::Method;
use serde_json::Value;

use crate::client::{self, Cluster};

/// How long a CustomResourceDefinition may take to be established.
const ESTABLISHED_PATIENCE: Duration = Duration::from_secs(30);

/// Waits until each of the CustomResourceDefinitions `names` is established and its kind is
/// served, up to [`ESTABLISHED_PATIENCE`] in all; one that is not by then is logged, and its
/// objects fail to resolve with a clear error later.
pub(super) async fn wait_until_established(cluster: &Cluster, names: &[String]) {
    let Ok(crd_type) = cluster.resolve_kind("apiextensions.k8s.io/v1", "CustomResourceDefinition").await else {
        return;
    };
    let deadline = tokio::time::Instant::now() + ESTABLISHED_PATIENCE;
    for name in names {
        let mut established = None;
        loop {
            if established.is_none()
                && let Ok(crd) = cluster.get(&crd_type, None, name).await
                && is_established(&crd)
            {
                established = Some(crd);
            }
            // The server says a definition is established a moment before it serves the kind:
            // an object sent meanwhile is answered `404 page not found`.
            if let Some(crd) = &established
                && is_served(cluster, crd).await
            {
                break;
            }
            if tokio::time::Instant::now() >= deadline {
                tracing::warn!("CustomResourceDefinition {name} is not established, or its kind not served, after 30s");
                break;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
}

fn is_established(crd: &Value) -> bool {
    (crd["status"]["conditions"].as_array().into_iter().flatten())
        .any(|condition| condition["type"] == "Established" && condition["status"] == "True")
}

/// Whether the server serves the kind `crd` defines: a list of at most one of its objects is
/// answered with anything but `404` (a refusal to list still means the kind is served).
async fn is_served(cluster: &Cluster, crd: &Value) -> bool {
    let spec = &crd["spec"];
    let served = spec["versions"].as_array().into_iter().flatten().find(|version| version["served"] == true);
    let (Some(group), Some(plural), Some(version)) =
        (spec["group"].as_str(), spec["names"]["plural"].as_str(), served.and_then(|version| version["name"].as_str()))
    else {
        return true;
    };
    let path = format!("/apis/{group}/{version}/{plural}?limit=1");
    !matches!(cluster.raw(Method::GET, &path, None).await, Err(client::Error::NotFound(_)))
}
