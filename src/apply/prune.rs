//! Pruning: after an apply, deleting the objects an earlier apply made that the configuration no
//! longer has. Either the members of an ApplySet (found by their label, in the kinds and
//! namespaces the parent records), or, as kubectl's older `--prune -l`, the objects of a list of
//! kinds that match a label selector and carry the last-applied annotation.

use std::collections::{BTreeSet, HashSet};

use serde_json::Value;

use super::DryRun;
use super::applyset::{ApplySet, Members, PART_OF};
use super::last_applied::ANNOTATION as LAST_APPLIED;
use crate::client::{self, Cluster, ListScope, Selectors, WriteOptions};
use crate::resource::ObjectRef;

/// A kind `--prune-allowlist` names: `group/version/kind`, `core` for the core group.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AllowedKind {
    pub group: String,
    pub version: String,
    pub kind: String,
}

/// A `--prune-allowlist` entry that is not `group/version/kind`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid GroupVersionKind format: {0}, please follow <group/version/kind>")]
pub struct BadAllowedKind(pub String);

impl std::str::FromStr for AllowedKind {
    type Err = BadAllowedKind;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text.split('/').collect::<Vec<_>>()[..] {
            [group, version, kind] if !version.is_empty() && !kind.is_empty() => Ok(AllowedKind {
                group: if group == "core" { String::new() } else { group.to_string() },
                version: version.to_string(),
                kind: kind.to_string(),
            }),
            _ => Err(BadAllowedKind(text.to_string())),
        }
    }
}

/// kubectl's kinds for `--prune` without `--prune-allowlist` (the same in 1.32 and 1.37).
pub fn default_allowlist() -> Vec<AllowedKind> {
    [
        "core/v1/ConfigMap",
        "core/v1/Endpoints",
        "core/v1/PersistentVolumeClaim",
        "core/v1/Pod",
        "core/v1/ReplicationController",
        "core/v1/Secret",
        "core/v1/Service",
        "batch/v1/Job",
        "batch/v1/CronJob",
        "networking.k8s.io/v1/Ingress",
        "apps/v1/DaemonSet",
        "apps/v1/Deployment",
        "apps/v1/ReplicaSet",
        "apps/v1/StatefulSet",
        "core/v1/Namespace",
        "core/v1/PersistentVolume",
    ]
    .iter()
    .map(|text| text.parse().expect("the default allowlist is well formed"))
    .collect()
}

/// Which objects are candidates for pruning.
#[derive(Debug, Clone, Copy)]
pub enum Scope<'a> {
    /// The members of `set`, in the kinds and namespaces its parent records together with
    /// `members`, this apply's.
    ApplySet { set: &'a ApplySet, members: &'a Members },
    /// kubectl's legacy prune: the objects of the `allowlist` kinds that match `selector` (all of
    /// them with `--all`) and carry the last-applied annotation, in `namespaces` (those this apply
    /// wrote to) for namespaced kinds.
    Selector { selector: Option<&'a str>, allowlist: &'a [AllowedKind], namespaces: &'a BTreeSet<String> },
}

/// An object to prune: one an earlier apply made that this one did not apply.
#[derive(Debug, Clone)]
pub struct Prunable {
    pub target: ObjectRef,
    /// Its uid, so that waiting for it to go ignores a new object of the same name.
    pub uid: Option<String>,
    /// The object as listed.
    pub object: Value,
}

/// The objects `scope` holds that are not among `applied` (uids of the objects this apply
/// wrote), sorted by kind, namespace and name. Kinds the server does not serve are skipped.
pub async fn find(
    cluster: &Cluster,
    scope: Scope<'_>,
    applied: &HashSet<String>,
) -> Result<Vec<Prunable>, client::Error> {
    let (types, namespaces, selector, needs_last_applied) = match scope {
        Scope::ApplySet { set, members } => {
            let everything = set.recorded.union(members);
            let mut types = Vec::new();
            for group_kind in &everything.group_kinds {
                match cluster.resolve(group_kind).await {
                    Ok(rt) => types.push(rt),
                    Err(err) => tracing::debug!("not pruning {group_kind}: {err}"),
                }
            }
            (types, everything.namespaces, Some(format!("{PART_OF}={}", set.id)), false)
        }
        Scope::Selector { selector, allowlist, namespaces } => {
            let mut types = Vec::new();
            for allowed in allowlist {
                let api_version = match allowed.group.as_str() {
                    "" => allowed.version.clone(),
                    group => format!("{group}/{}", allowed.version),
                };
                match cluster.resolve_kind(&api_version, &allowed.kind).await {
                    Ok(rt) => types.push(rt),
                    Err(err) => tracing::debug!("not pruning {}: {err}", allowed.kind),
                }
            }
            (types, namespaces.clone(), selector.map(String::from), true)
        }
    };
    let mut prunable = Vec::new();
    for rt in types {
        let scopes: Vec<Option<&str>> = if rt.namespaced {
            namespaces.iter().map(|namespace| Some(namespace.as_str())).collect()
        } else {
            vec![None]
        };
        for namespace in scopes {
            let scope = namespace.map_or(ListScope::AllNamespaces, ListScope::Namespace);
            let list = cluster.list(&rt, scope, Selectors { label: selector.as_deref(), field: None }).await?;
            for item in list["items"].as_array().into_iter().flatten() {
                let metadata = &item["metadata"];
                let uid = metadata["uid"].as_str().map(String::from);
                if uid.as_ref().is_some_and(|uid| applied.contains(uid))
                    || (needs_last_applied && metadata["annotations"].get(LAST_APPLIED).is_none())
                {
                    continue;
                }
                let Some(name) = metadata["name"].as_str() else { continue };
                let namespace = metadata["namespace"].as_str().map(String::from);
                let target = ObjectRef { rt: rt.clone(), namespace, name: name.to_string() };
                let mut object = item.clone();
                object["apiVersion"] = Value::String(rt.api_version());
                object["kind"] = Value::String(rt.kind.clone());
                prunable.push(Prunable { target, uid, object });
            }
        }
    }
    prunable.sort_by_key(|object| order(&object.target));
    Ok(prunable)
}

fn order(target: &ObjectRef) -> (String, Option<String>, String) {
    (target.rt.group_kind_lower(), target.namespace.clone(), target.name.clone())
}

/// Finds what `scope` holds beyond `applied` and deletes it, handing each object and how its
/// deletion went to `report`, in order. Returns the objects found.
pub async fn run(
    cluster: &Cluster,
    scope: Scope<'_>,
    applied: &HashSet<String>,
    dry_run: DryRun,
    mut report: impl FnMut(&Prunable, Result<(), super::Error>),
) -> Result<Vec<Prunable>, client::Error> {
    let found = find(cluster, scope, applied).await?;
    for object in &found {
        report(object, delete(cluster, object, dry_run).await);
    }
    Ok(found)
}

/// Deletes `object` (a server dry run only checks; a client dry run sends nothing), in the
/// background, as kubectl prunes. A delete that fails at the transport is not sent again: while
/// the server answers, the object is read back to say whether it is gone (see [`super::lost`]).
async fn delete(cluster: &Cluster, object: &Prunable, dry_run: DryRun) -> Result<(), super::Error> {
    if dry_run == DryRun::Client {
        return Ok(());
    }
    let options = WriteOptions { dry_run: dry_run == DryRun::Server, ..WriteOptions::default() };
    let target = &object.target;
    match cluster.delete(&target.rt, target.namespace.as_deref(), &target.name, &options).await {
        // Gone already: what pruning wanted.
        Ok(_) | Err(client::Error::NotFound(_)) => Ok(()),
        Err(cause) if cause.is_transport() && dry_run == DryRun::None => {
            match super::lost::check(cluster, target, cause.clone(), super::lost::deleted(object.uid.as_deref())).await
            {
                Some(lost) => Err(super::Error::AnswerLost(Box::new(lost))),
                None => Err(cause.into()),
            }
        }
        Err(err) => Err(err.into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn allowlist_entries_are_group_version_kind() {
        let parsed: AllowedKind = "core/v1/ConfigMap".parse().unwrap();
        assert_eq!(parsed, AllowedKind { group: String::new(), version: "v1".into(), kind: "ConfigMap".into() });
        let parsed: AllowedKind = "apps/v1/Deployment".parse().unwrap();
        assert_eq!(parsed.group, "apps");
        for bad in ["ConfigMap", "v1/ConfigMap", "a/b/c/d", "apps//Deployment"] {
            assert_eq!(
                bad.parse::<AllowedKind>().unwrap_err().to_string(),
                format!("invalid GroupVersionKind format: {bad}, please follow <group/version/kind>")
            );
        }
        assert_eq!(default_allowlist().len(), 16);
    }
}
