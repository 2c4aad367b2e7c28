//! `apply --atomic` (Helm's name; Helm 4's `--rollback-on-failure`): what a run changed, put back
//! as it was read before the run once the run fails. An object the run created is deleted; one it
//! changed gets back its content and then its `managedFields`, so that its field managers, their
//! ownership and the last-applied annotation are what they were; one it re-created is re-created
//! again as it was.

use serde_json::{Value, json};

use super::recreate::{self, Deletion};
use super::{Action, Error, Outcome};
use crate::client::{self, Cluster, Propagation, WriteOptions};
use crate::merge::Patch;
use crate::resource::ObjectRef;

/// The field manager of the restoring write; its entry is replaced right after by the object's
/// `managedFields` from before.
const MANAGER: &str = "kubeupd-rollback";

/// How many times a restore reads again when the object changes under it.
const ATTEMPTS: usize = 3;

/// What a run did to one object, to undo it.
#[derive(Debug, Clone)]
pub struct Undo {
    pub target: ObjectRef,
    /// The object before the run; `None` when the run created it.
    pub before: Option<Value>,
    /// The object as the run left it.
    pub after: Value,
}

impl Undo {
    /// What undoes `outcome`, when it changed something and the object before it is known
    /// ([`super::ApplyOptions::keep_live`]).
    pub fn of(outcome: &Outcome) -> Option<Undo> {
        let unchanged = outcome.action == Action::Unchanged || outcome.change == Some(Action::Unchanged);
        if unchanged
            || (outcome.before.is_none()
                && outcome.action != Action::Created
                && outcome.change != Some(Action::Created))
        {
            return None;
        }
        Some(Undo { target: outcome.target.clone(), before: outcome.before.clone(), after: outcome.object.clone() })
    }
}

/// What undoing did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Undone {
    /// The object the run created is deleted.
    Deleted,
    /// The object is as it was before the run.
    Restored,
    /// The object the run re-created is re-created again as it was.
    Recreated,
}

impl Undone {
    /// `deleted`, `restored`, `re-created`: for the report.
    pub fn word(self) -> &'static str {
        match self {
            Undone::Deleted => "deleted",
            Undone::Restored => "restored",
            Undone::Recreated => "re-created as it was",
        }
    }
}

/// Undoes what the run did to one object.
pub async fn undo(cluster: &Cluster, undo: &Undo) -> Result<Undone, Error> {
    let target = &undo.target;
    let Some(before) = &undo.before else {
        delete_created(cluster, target, &undo.after).await?;
        return Ok(Undone::Deleted);
    };
    let uid = |object: &Value| object["metadata"]["uid"].clone();
    if uid(before) != uid(&undo.after) {
        let write = WriteOptions { field_manager: Some(MANAGER.into()), ..WriteOptions::default() };
        let original = recreate::without_server_fields(before.clone());
        recreate::recreate(cluster, target, &original, &write, &Deletion::default()).await?;
        restore_managed_fields(cluster, target, before).await?;
        return Ok(Undone::Recreated);
    }
    let mut last = None;
    for _ in 0..ATTEMPTS {
        let current = cluster.get(&target.rt, target.namespace.as_deref(), &target.name).await?;
        let mut content = before.clone();
        content["metadata"]["resourceVersion"] = current["metadata"]["resourceVersion"].clone();
        if let Some(metadata) = content["metadata"].as_object_mut() {
            metadata.remove("managedFields");
        }
        let write = WriteOptions { field_manager: Some(MANAGER.into()), ..WriteOptions::default() };
        match cluster.replace(&target.rt, target.namespace.as_deref(), &target.name, &content, &write).await {
            Ok(_) => {
                restore_managed_fields(cluster, target, before).await?;
                return Ok(Undone::Restored);
            }
            Err(err @ client::Error::Conflict(_)) => last = Some(err),
            Err(err) => return Err(err.into()),
        }
    }
    Err(last.expect("at least one attempt").into())
}

/// Deletes the object the run created, in the background, and only that object (by its uid).
async fn delete_created(cluster: &Cluster, target: &ObjectRef, created: &Value) -> Result<(), client::Error> {
    let exactly = json!({"metadata": {"name": target.name, "uid": created["metadata"]["uid"]}});
    let deletion = client::DeleteParams { propagation: Some(Propagation::Background), ..Default::default() };
    let write = WriteOptions::default();
    match cluster.delete_exactly(&target.rt, target.namespace.as_deref(), &exactly, &write, &deletion).await {
        Ok(_) | Err(client::Error::NotFound(_)) => Ok(()),
        Err(err) => Err(err),
    }
}

/// Gives the restored object the `managedFields` of `before`: a write that changes no field
/// leaves them as sent, so the managers and what each owns are as before the run. Sent without a
/// `resourceVersion`: a controller writing the object meanwhile (a Deployment's revision) must
/// not make it fail, and what it wrote was its before the run too.
async fn restore_managed_fields(cluster: &Cluster, target: &ObjectRef, before: &Value) -> Result<(), client::Error> {
    let managed = &before["metadata"]["managedFields"];
    if managed.as_array().is_none_or(Vec::is_empty) {
        return Ok(());
    }
    let patch = Patch::Merge(json!({"metadata": {"managedFields": managed}}));
    let write = WriteOptions { field_manager: Some(MANAGER.into()), ..WriteOptions::default() };
    cluster.patch(&target.rt, target.namespace.as_deref(), &target.name, &patch, &write).await.map(drop)
}
