//! `--force`: when an object cannot be patched (its immutable fields changed, or a conflict
//! persists), delete it, wait until it is gone, and create it from the configuration.

use std::time::Duration;

use serde_json::Value;

use super::{Action, ApplyOptions, DryRun, Error, Outcome};
use crate::client::{self, Cluster};
use crate::resource::Manifest;

/// How long a deleted object may take to go away.
const DELETION_PATIENCE: Duration = Duration::from_secs(60);

/// Deletes the object of `manifest` and creates `modified` in its place.
pub(super) async fn recreate(
    cluster: &Cluster,
    manifest: &Manifest,
    modified: &Value,
    options: &ApplyOptions,
) -> Result<Outcome, Error> {
    let target = &manifest.object;
    let (rt, namespace, name) = (&target.rt, target.namespace.as_deref(), target.name.as_str());
    tracing::info!(
        "{}: the patch cannot be applied, deleting and creating the object (--force)",
        target.display_name()
    );
    let write = options.write_options();
    cluster.delete(rt, namespace, name, &write).await?;
    if options.dry_run == DryRun::None {
        let deadline = tokio::time::Instant::now() + DELETION_PATIENCE;
        loop {
            match cluster.get(rt, namespace, name).await {
                Err(client::Error::NotFound(_)) => break,
                Err(err) => return Err(err.into()),
                Ok(_) if tokio::time::Instant::now() > deadline => {
                    return Err(Error::StillThere { resource: rt.group_resource(), name: name.to_string() });
                }
                Ok(_) => tokio::time::sleep(Duration::from_millis(200)).await,
            }
        }
    }
    let object = cluster.create(rt, namespace, modified, &write).await?;
    Ok(Outcome {
        action: Action::Configured,
        target: target.clone(),
        object,
        before: None,
        patch: None,
        missing_last_applied: false,
        warnings: Vec::new(),
    })
}
