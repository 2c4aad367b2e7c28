//! Replacing an object by deleting it and creating it again, for changes no patch can make (an
//! immutable field, a conflict that persists): `apply --force`. The live object is never lost: the
//! server is asked first whether it would accept the new object, and nothing is deleted when it
//! would not; when the create after the delete fails anyway, the original is created again; and
//! when even that fails, the original is saved to a file.

use std::io::Write as _;
use std::path::PathBuf;
use std::time::Duration;

use serde_json::Value;

use super::{Action, ApplyOptions, Error, Outcome};
use crate::client::{self, Cluster, WriteOptions};
use crate::gocompat;
use crate::resource::{Manifest, ObjectRef};

/// How long a deleted object may take to go away.
const DELETION_PATIENCE: Duration = Duration::from_secs(60);

/// What the server sets on an object, left out when the original is created again.
const SERVER_SET_METADATA: [&str; 8] = [
    "uid",
    "resourceVersion",
    "creationTimestamp",
    "generation",
    "managedFields",
    "deletionTimestamp",
    "deletionGracePeriodSeconds",
    "selfLink",
];

/// Why a re-create did not happen, or did not end as asked.
#[derive(Debug, thiserror::Error)]
pub enum RecreateError {
    /// The server refuses the new object: the live one was left alone.
    #[error("the server refuses the new object, so the live one was not deleted: {}", .0.line().trim_start_matches("error: "))]
    Refused(client::Error),
    /// The new object was refused after the live one was deleted; the original is back.
    #[error("the new object was refused after the live one was deleted, and the original was created again: {}", .0.line().trim_start_matches("error: "))]
    PutBack(client::Error),
    /// Neither the new object nor the original could be created: the original is in `saved`.
    #[error(
        "the new object was refused after the live one was deleted ({}), and the original could not be created again \
         ({}); it is saved in {}: create it with `kubeupd apply -f {}`",
        .refused.line().trim_start_matches("error: "),
        .restore.line().trim_start_matches("error: "),
        .saved.display(),
        .saved.display()
    )]
    Lost { refused: Box<client::Error>, restore: Box<client::Error>, saved: PathBuf },
    /// The original was deleted but stays there (a finalizer holds it).
    #[error("{resource} {name:?} was deleted but is still there after a minute")]
    StillThere { resource: String, name: String },
    /// Another request failed (reading the live object, deleting it).
    #[error(transparent)]
    Client(#[from] client::Error),
}

/// `apply --force`: deletes the object of `manifest` and creates `modified` in its place.
pub(super) async fn recreate(
    cluster: &Cluster,
    manifest: &Manifest,
    modified: &Value,
    options: &ApplyOptions,
) -> Result<Outcome, Error> {
    let target = &manifest.object;
    tracing::info!(
        "{}: the patch cannot be applied, deleting and creating the object (--force)",
        target.display_name()
    );
    let object = replace_by_recreating(cluster, target, modified, &options.write_options()).await?;
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

/// Replaces the live object `target` with `replacement` by deleting it and creating the
/// replacement, without ever losing the live object; returns the object created.
pub async fn replace_by_recreating(
    cluster: &Cluster,
    target: &ObjectRef,
    replacement: &Value,
    write: &WriteOptions,
) -> Result<Value, RecreateError> {
    let (rt, namespace, name) = (&target.rt, target.namespace.as_deref(), target.name.as_str());
    // The server validates a create before it looks for the name: a new object it would accept
    // answers AlreadyExists.
    let dry_run = WriteOptions { dry_run: true, ..write.clone() };
    match cluster.create(rt, namespace, replacement, &dry_run).await {
        Ok(_) | Err(client::Error::AlreadyExists(_)) => {}
        Err(err) if err.status().is_some() => return Err(RecreateError::Refused(err)),
        Err(err) => return Err(err.into()),
    }
    let original = cluster.get(rt, namespace, name).await?;
    cluster.delete(rt, namespace, name, write).await?;
    wait_until_gone(cluster, target).await?;
    let refused = match cluster.create(rt, namespace, replacement, write).await {
        Ok(created) => return Ok(created),
        Err(refused) => refused,
    };
    let restore = WriteOptions { dry_run: false, ..write.clone() };
    match cluster.create(rt, namespace, &without_server_fields(original.clone()), &restore).await {
        Ok(_) => Err(RecreateError::PutBack(refused)),
        Err(restore) => {
            let saved = save(target, &original).map_err(|err| {
                tracing::error!("cannot save the original of {} either: {err}", target.display_name());
                RecreateError::Client(restore.clone())
            })?;
            Err(RecreateError::Lost { refused: Box::new(refused), restore: Box::new(restore), saved })
        }
    }
}

async fn wait_until_gone(cluster: &Cluster, target: &ObjectRef) -> Result<(), RecreateError> {
    let (rt, namespace, name) = (&target.rt, target.namespace.as_deref(), target.name.as_str());
    let deadline = tokio::time::Instant::now() + DELETION_PATIENCE;
    loop {
        match cluster.get(rt, namespace, name).await {
            Err(client::Error::NotFound(_)) => return Ok(()),
            Err(err) => return Err(err.into()),
            Ok(_) if tokio::time::Instant::now() > deadline => {
                return Err(RecreateError::StillThere { resource: rt.group_resource(), name: name.to_string() });
            }
            Ok(_) => tokio::time::sleep(Duration::from_millis(200)).await,
        }
    }
}

/// The object as it can be created again: without what the server set, status included.
fn without_server_fields(mut object: Value) -> Value {
    if let Some(metadata) = object.get_mut("metadata").and_then(Value::as_object_mut) {
        for field in SERVER_SET_METADATA {
            metadata.remove(field);
        }
    }
    if let Some(object) = object.as_object_mut() {
        object.remove("status");
    }
    object
}

/// Writes the original, without what the server set, to a file only its owner can read (it may be
/// a Secret), in the temporary directory; returns where.
fn save(target: &ObjectRef, original: &Value) -> std::io::Result<PathBuf> {
    let prefix = format!("kubeupd-{}-{}-", target.rt.kind.to_lowercase(), target.name);
    let mut file = tempfile::Builder::new().prefix(&prefix).suffix(".json").tempfile()?;
    file.write_all(gocompat::json::to_compact(&without_server_fields(original.clone())).as_bytes())?;
    file.write_all(b"\n")?;
    let (_, path) = file.keep().map_err(|err| err.error)?;
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_original_is_created_again_without_what_the_server_set() {
        let live = json!({"apiVersion": "v1", "kind": "ConfigMap", "status": {"x": 1}, "data": {"a": "1"},
            "metadata": {"name": "c", "namespace": "n", "uid": "u", "resourceVersion": "7", "generation": 2,
                "creationTimestamp": "2026-01-01T00:00:00Z", "managedFields": [], "labels": {"keep": "me"},
                "annotations": {"kubectl.kubernetes.io/last-applied-configuration": "{}"}, "finalizers": ["f"]}});
        assert_eq!(
            without_server_fields(live),
            json!({"apiVersion": "v1", "kind": "ConfigMap", "data": {"a": "1"},
                "metadata": {"name": "c", "namespace": "n", "labels": {"keep": "me"},
                    "annotations": {"kubectl.kubernetes.io/last-applied-configuration": "{}"}, "finalizers": ["f"]}})
        );
    }
}
