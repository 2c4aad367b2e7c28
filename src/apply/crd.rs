//! CustomResourceDefinitions applied in the same input as objects of their kinds: wait until they
//! are established, so that those objects can be applied next.

use std::time::Duration;

use crate::client::Cluster;

/// How long a CustomResourceDefinition may take to be established.
const ESTABLISHED_PATIENCE: Duration = Duration::from_secs(30);

/// Waits until each of the CustomResourceDefinitions `names` is established, up to
/// [`ESTABLISHED_PATIENCE`] in all; one that is not by then is logged, and its objects fail to
/// resolve with a clear error later.
pub(super) async fn wait_until_established(cluster: &Cluster, names: &[String]) {
    let Ok(crd_type) = cluster.resolve_kind("apiextensions.k8s.io/v1", "CustomResourceDefinition").await else {
        return;
    };
    let deadline = tokio::time::Instant::now() + ESTABLISHED_PATIENCE;
    for name in names {
        loop {
            if let Ok(crd) = cluster.get(&crd_type, None, name).await {
                let conditions = crd["status"]["conditions"].as_array().into_iter().flatten();
                if conditions
                    .into_iter()
                    .any(|condition| condition["type"] == "Established" && condition["status"] == "True")
                {
                    break;
                }
            }
            if tokio::time::Instant::now() >= deadline {
                tracing::warn!("CustomResourceDefinition {name} is not established after 30s");
                break;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
}
