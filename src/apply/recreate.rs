//! `--force` of `apply` and `replace`: delete the object, wait until it is gone, and create it from
//! the new configuration, without ever losing the object. The server checks the new object first
//! (a dry-run create), so an object it would refuse is not deleted at all; when the create after
//! the delete fails anyway, the original is created again; when even that fails, the original is
//! written to a file.

use std::io::Write as _;
use std::path::PathBuf;
use std::time::Duration;

use serde_json::Value;

use super::Error;
use super::error::{ForceLost, Kept, NotRestored};
use super::lost::{self, AnswerLost, Found};
use crate::client::{self, Cluster, DeleteParams, WriteOptions};
use crate::merge::Patch;
use crate::output;
use crate::resource::ObjectRef;

/// How long a deleted object may take to go away, unless the user says (`--timeout`).
const DELETION_PATIENCE: Duration = Duration::from_secs(60);

/// How `--force` deletes the object: kubectl's `--grace-period` and `--cascade`, and how long
/// the object may take to go (`--timeout`; `None` for a minute).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Deletion {
    pub options: DeleteParams,
    pub timeout: Option<Duration>,
}

/// What the server sets on an object, and a create must not carry. `status` stays: where the
/// server owns it, a create ignores it; elsewhere (some custom resources) it is the user's data.
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

/// What `--force` did.
#[derive(Debug, Clone, PartialEq)]
pub struct Recreated {
    /// The object created.
    pub object: Value,
    /// Whether an object was deleted first (kubectl says so).
    pub deleted: bool,
}

/// Replaces the object `target` by `object`: deletes it and creates `object` in its place.
/// Nothing is deleted when the server would refuse `object`, or when the object changed after
/// it was read. An object that does not exist is just created.
pub async fn recreate(
    cluster: &Cluster,
    target: &ObjectRef,
    object: &Value,
    write: &WriteOptions,
    deletion: &Deletion,
) -> Result<Recreated, Error> {
    recreate_by(cluster, target, object, write, deletion, CreateBy::Post, "--force").await
}

/// How the object is created again once the old one is gone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CreateBy {
    /// A create (POST), as `--force` of client-side apply and of `replace` do.
    Post,
    /// A server-side apply of the configuration, so that the applying manager owns its fields.
    Apply,
}

/// [`recreate`], creating the object again as `by` says; `why` (`--force`) is said in the errors.
pub(super) async fn recreate_by(
    cluster: &Cluster,
    target: &ObjectRef,
    object: &Value,
    write: &WriteOptions,
    deletion: &Deletion,
    by: CreateBy,
    why: &'static str,
) -> Result<Recreated, Error> {
    let (rt, namespace, name) = (&target.rt, target.namespace.as_deref(), target.name.as_str());
    let mut object = object.clone();
    if let Some(metadata) = object.get_mut("metadata").and_then(Value::as_object_mut) {
        metadata.remove("resourceVersion");
    }
    tracing::info!("{}: deleting the object and creating it from the new configuration", target.display_name());
    let create = async |object: &Value| match by {
        CreateBy::Post => cluster.create(rt, namespace, object, write).await,
        CreateBy::Apply => cluster.patch(rt, namespace, name, &Patch::Apply(object.clone()), write).await,
    };
    // kube-apiserver validates a create before it looks for the object: an object it accepts
    // answers 409 AlreadyExists, one it refuses answers why.
    let check = WriteOptions { dry_run: true, ..write.clone() };
    match cluster.create(rt, namespace, &object, &check).await {
        Ok(_) | Err(client::Error::AlreadyExists(_)) => {}
        Err(refused) => return Err(Error::RecreateRefused { name: target.display_name(), why, refused }),
    }
    let original = match cluster.get(rt, namespace, name).await {
        Ok(live) => live,
        Err(client::Error::NotFound(_)) => {
            let created = create(&object).await?;
            return Ok(Recreated { object: created, deleted: false });
        }
        Err(err) => return Err(err.into()),
    };
    let uid = original["metadata"]["uid"].as_str().map(String::from);
    if let Err(cause) = cluster.delete_exactly(rt, namespace, &original, write, &deletion.options).await {
        // A delete whose answer was lost may have happened: what is there now decides.
        if !cause.is_transport() {
            return Err(cause.into());
        }
        let deleted = lost::deleted(uid.as_deref());
        match lost::check(cluster, target, cause.clone(), deleted).await {
            Some(AnswerLost { found: Found::Applied, .. }) => {}
            Some(lost @ AnswerLost { found: Found::NotApplied, .. }) => return Err(Error::AnswerLost(Box::new(lost))),
            _ => return Err(keep(target, original, why, "deleting it", &cause)),
        }
    }
    match wait_until_gone(cluster, target, deletion.timeout.unwrap_or(DELETION_PATIENCE)).await {
        Ok(()) => {}
        // Still there: nothing is lost, the user can run the command again.
        Err(still @ Error::StillThere { .. }) => return Err(still),
        Err(Error::Client(cause)) => return Err(keep(target, original, why, "waiting until it is gone", &cause)),
        Err(other) => return Err(other),
    }
    let refused = match create(&object).await {
        Ok(created) => return Ok(Recreated { object: created, deleted: true }),
        Err(cause) if cause.is_transport() => {
            // Whatever is there under a new UID was created from the new configuration.
            let created =
                |live: Option<&Value>| live.is_some_and(|live| live["metadata"]["uid"].as_str() != uid.as_deref());
            match lost::check(cluster, target, cause.clone(), created).await {
                Some(lost @ AnswerLost { found: Found::Applied, .. }) => return Err(Error::AnswerLost(Box::new(lost))),
                Some(AnswerLost { found: Found::NotApplied, .. }) => cause,
                _ => return Err(keep(target, original, why, "creating it from the new configuration", &cause)),
            }
        }
        Err(refused) => refused,
    };
    let original = without_server_fields(original);
    let name = target.display_name();
    match cluster.create(rt, namespace, &original, write).await {
        Ok(_) => Err(Error::Restored { name, why, refused }),
        Err(restore) => {
            let kept = kept(target, &original);
            Err(Error::NotRestored(Box::new(NotRestored { name, why, refused, restore, kept })))
        }
    }
}

/// The failure of a `--force` whose `step` failed at the transport with the object perhaps gone:
/// the original is kept in a file (or in the message).
fn keep(target: &ObjectRef, original: Value, why: &'static str, step: &'static str, cause: &client::Error) -> Error {
    let kept = kept(target, &without_server_fields(original));
    let cause = cause.transport_line().unwrap_or_else(|| cause.to_string());
    Error::ForceLost(Box::new(ForceLost { name: target.display_name(), why, step, cause, kept }))
}

/// `original` kept in a file, or in the message when no file can be written.
fn kept(target: &ObjectRef, original: &Value) -> Kept {
    match save(target, original) {
        Ok(path) => Kept::File(path),
        Err(unsaved) => Kept::Nowhere { unsaved, original: output::to_yaml(original) },
    }
}

async fn wait_until_gone(cluster: &Cluster, target: &ObjectRef, patience: Duration) -> Result<(), Error> {
    let (rt, namespace, name) = (&target.rt, target.namespace.as_deref(), target.name.as_str());
    let deadline = tokio::time::Instant::now() + patience;
    loop {
        match cluster.get(rt, namespace, name).await {
            Err(client::Error::NotFound(_)) => return Ok(()),
            Err(err) => return Err(err.into()),
            Ok(_) if tokio::time::Instant::now() > deadline => {
                return Err(Error::StillThere { resource: rt.resource.clone(), name: name.to_string() });
            }
            Ok(_) => tokio::time::sleep(Duration::from_millis(200)).await,
        }
    }
}

/// The labels the server puts on a Job's pod template, naming the Job's uid.
const JOB_UID_LABELS: [&str; 2] = ["controller-uid", "batch.kubernetes.io/controller-uid"];

/// The object as it can be created again: without what the server set. A Job's selector the
/// server generated, and the uid labels it put on the pod template, name the old uid, which a
/// create refuses (`must be '...'`): they go too, and the server generates them again.
pub(super) fn without_server_fields(mut object: Value) -> Value {
    if let Some(metadata) = object.get_mut("metadata").and_then(Value::as_object_mut) {
        for field in SERVER_SET_METADATA {
            metadata.remove(field);
        }
    }
    let job =
        object["kind"] == "Job" && object["apiVersion"].as_str().is_some_and(|version| version.starts_with("batch/"));
    if job && object.pointer("/spec/manualSelector") != Some(&Value::Bool(true)) {
        if let Some(spec) = object.get_mut("spec").and_then(Value::as_object_mut) {
            spec.remove("selector");
        }
        if let Some(labels) = object.pointer_mut("/spec/template/metadata/labels").and_then(Value::as_object_mut) {
            for label in JOB_UID_LABELS {
                labels.remove(label);
            }
        }
    }
    object
}

/// Writes `object` as YAML to a new file in the temporary directory, readable by its owner only
/// (it may be a Secret), and returns its path.
fn save(target: &ObjectRef, object: &Value) -> Result<PathBuf, String> {
    let prefix = format!("kubeupd-{}-{}-", target.rt.resource, target.name);
    let mut file = tempfile::Builder::new()
        .prefix(&prefix)
        .suffix(".yaml")
        .tempfile()
        .map_err(|err| format!("cannot create a file in {}: {err}", std::env::temp_dir().display()))?;
    file.write_all(output::to_yaml(object).as_bytes())
        .map_err(|err| format!("cannot write {}: {err}", file.path().display()))?;
    let (_, path) = file.keep().map_err(|err| format!("cannot keep {}: {err}", err.file.path().display()))?;
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn what_the_server_set_is_left_out() {
        let live = json!({
            "apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "x", "namespace": "ns", "uid": "u", "resourceVersion": "7", "generation": 2,
                         "creationTimestamp": "t", "managedFields": [], "labels": {"a": "1"}, "finalizers": ["f"]},
            "data": {"k": "v"}, "status": {"phase": "x"}
        });
        assert_eq!(
            without_server_fields(live),
            json!({
                "apiVersion": "v1", "kind": "ConfigMap",
                "metadata": {"name": "x", "namespace": "ns", "labels": {"a": "1"}, "finalizers": ["f"]},
                "data": {"k": "v"}, "status": {"phase": "x"}
            })
        );
    }

    #[test]
    fn a_jobs_generated_selector_and_uid_labels_are_left_out() {
        let labels =
            json!({"controller-uid": "u", "batch.kubernetes.io/controller-uid": "u", "job-name": "x", "app": "a"});
        let job = |manual: bool| {
            json!({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "x", "uid": "u"},
                   "spec": {"manualSelector": manual, "selector": {"matchLabels": {"controller-uid": "u"}},
                            "template": {"metadata": {"labels": labels.clone()}}}})
        };
        let generated = without_server_fields(job(false));
        assert_eq!(generated["spec"].get("selector"), None);
        assert_eq!(generated["spec"]["template"]["metadata"]["labels"], json!({"job-name": "x", "app": "a"}));
        let manual = without_server_fields(job(true));
        assert_eq!(manual["spec"]["selector"], json!({"matchLabels": {"controller-uid": "u"}}));
        assert_eq!(manual["spec"]["template"]["metadata"]["labels"], labels);
    }
}
