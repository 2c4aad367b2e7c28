//! Pruning: after an apply, deleting the objects an earlier apply made that the configuration no
//! longer has. Either the members of an ApplySet (found by their label, in the kinds and
//! namespaces the parent records), or, as kubectl's older `--prune -l`, the objects of a list of
//! kinds that match a label selector and carry the last-applied annotation.
//!
//! Some objects are never pruned: those that say so in the words of Argo CD, Flux, kapp or
//! kubeupd ([`opt_in::keep_from_prune`]), and those of the kinds that hold data (Namespaces,
//! CustomResourceDefinitions, PersistentVolumeClaims) unless `--prune-allow` names their kind.

use std::collections::{BTreeSet, HashSet};

use serde_json::Value;

use super::applyset::{ApplySet, Members, PART_OF};
use super::last_applied::ANNOTATION as LAST_APPLIED;
use super::{DryRun, opt_in};
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

/// A kind whose objects hold data (a Namespace its objects, a CustomResourceDefinition its custom
/// resources, a PersistentVolumeClaim its volume): pruned only when `--prune-allow` names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GuardedKind {
    Namespace,
    CustomResourceDefinition,
    PersistentVolumeClaim,
}

/// A `--prune-allow` entry that is not a guarded kind.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "{0:?} is not a kind that prune leaves alone: --prune-allow takes Namespace, CustomResourceDefinition, \
     PersistentVolumeClaim"
)]
pub struct NotGuarded(pub String);

impl std::str::FromStr for GuardedKind {
    type Err = NotGuarded;

    /// The kind, its resource or a short name, in any case: `Namespace`, `namespaces`, `ns`.
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text.trim().to_ascii_lowercase().as_str() {
            "namespace" | "namespaces" | "ns" => Ok(GuardedKind::Namespace),
            "customresourcedefinition" | "customresourcedefinitions" | "crd" | "crds" => {
                Ok(GuardedKind::CustomResourceDefinition)
            }
            "persistentvolumeclaim" | "persistentvolumeclaims" | "pvc" => Ok(GuardedKind::PersistentVolumeClaim),
            _ => Err(NotGuarded(text.to_string())),
        }
    }
}

impl GuardedKind {
    /// The guarded kind of objects of `target`'s type, if it is one.
    pub fn of(target: &ObjectRef) -> Option<GuardedKind> {
        match (target.rt.group.as_str(), target.rt.kind.as_str()) {
            ("", "Namespace") => Some(GuardedKind::Namespace),
            ("apiextensions.k8s.io", "CustomResourceDefinition") => Some(GuardedKind::CustomResourceDefinition),
            ("", "PersistentVolumeClaim") => Some(GuardedKind::PersistentVolumeClaim),
            _ => None,
        }
    }

    fn name(self) -> &'static str {
        match self {
            GuardedKind::Namespace => "Namespace",
            GuardedKind::CustomResourceDefinition => "CustomResourceDefinition",
            GuardedKind::PersistentVolumeClaim => "PersistentVolumeClaim",
        }
    }
}

/// Why `object` (of `target`) must not be pruned, when `allowed` does not name its kind or it
/// asks to be kept; `None` when it may be pruned.
pub fn kept_because(target: &ObjectRef, object: &Value, allowed: &[GuardedKind]) -> Option<String> {
    if let Some(guarded) = GuardedKind::of(target)
        && !allowed.contains(&guarded)
    {
        return Some(format!("{}s hold data: name {} in --prune-allow to prune them", guarded.name(), guarded.name()));
    }
    opt_in::keep_from_prune(object).map(|annotation| format!("annotated {annotation}"))
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

/// An object that pruning found and leaves alone, and why.
#[derive(Debug, Clone)]
pub struct Kept {
    pub target: ObjectRef,
    pub why: String,
}

/// What pruning finds: the objects to delete, and those it leaves alone.
#[derive(Debug, Clone, Default)]
pub struct Found {
    pub prunable: Vec<Prunable>,
    pub kept: Vec<Kept>,
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
/// wrote), sorted by kind, namespace and name, apart from those that must be kept (see
/// [`kept_because`]; `allowed`: the guarded kinds `--prune-allow` names). Kinds the server does
/// not serve are skipped.
pub async fn find(
    cluster: &Cluster,
    scope: Scope<'_>,
    applied: &HashSet<String>,
    allowed: &[GuardedKind],
) -> Result<Found, client::Error> {
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
    let mut kept = Vec::new();
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
                if let Some(why) = kept_because(&target, item, allowed) {
                    kept.push(Kept { target, why });
                    continue;
                }
                let mut object = item.clone();
                object["apiVersion"] = Value::String(rt.api_version());
                object["kind"] = Value::String(rt.kind.clone());
                prunable.push(Prunable { target, uid, object });
            }
        }
    }
    prunable.sort_by_key(|object| order(&object.target));
    kept.sort_by_key(|object| order(&object.target));
    Ok(Found { prunable, kept })
}

fn order(target: &ObjectRef) -> (String, Option<String>, String) {
    (target.rt.group_kind_lower(), target.namespace.clone(), target.name.clone())
}

/// Finds what `scope` holds beyond `applied` and deletes it (but what must be kept, see
/// [`find`]), handing each object and how its deletion went to `report`, in order. Returns the
/// objects found.
pub async fn run(
    cluster: &Cluster,
    scope: Scope<'_>,
    applied: &HashSet<String>,
    allowed: &[GuardedKind],
    dry_run: DryRun,
    mut report: impl FnMut(&Prunable, Result<(), super::Error>),
) -> Result<Found, client::Error> {
    let found = find(cluster, scope, applied, allowed).await?;
    for object in &found.prunable {
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

    fn target(group: &str, kind: &str) -> ObjectRef {
        ObjectRef {
            rt: client::ResourceType::namespaced_for_tests(group, kind),
            namespace: Some("ns".into()),
            name: "x".into(),
        }
    }

    #[test]
    fn kinds_that_hold_data_are_kept_unless_allowed_and_annotations_keep_any() {
        let plain = serde_json::json!({"metadata": {"name": "x"}});
        let namespace = target("", "Namespace");
        assert_eq!(
            kept_because(&namespace, &plain, &[]).as_deref(),
            Some("Namespaces hold data: name Namespace in --prune-allow to prune them")
        );
        assert_eq!(kept_because(&namespace, &plain, &[GuardedKind::Namespace]), None);
        let claim = target("", "PersistentVolumeClaim");
        assert!(kept_because(&claim, &plain, &[GuardedKind::Namespace]).is_some());
        let definition = target("apiextensions.k8s.io", "CustomResourceDefinition");
        assert!(kept_because(&definition, &plain, &[]).is_some());
        assert_eq!(kept_because(&target("", "ConfigMap"), &plain, &[]), None);
        let annotated =
            serde_json::json!({"metadata": {"annotations": {"kustomize.toolkit.fluxcd.io/prune": "disabled"}}});
        assert_eq!(
            kept_because(&target("", "ConfigMap"), &annotated, &[]).as_deref(),
            Some("annotated kustomize.toolkit.fluxcd.io/prune: disabled")
        );
        assert!(kept_because(&namespace, &annotated, &[GuardedKind::Namespace]).is_some());
    }

    #[test]
    fn prune_allow_takes_the_guarded_kinds_by_any_name() {
        for (text, kind) in [
            ("Namespace", GuardedKind::Namespace),
            ("ns", GuardedKind::Namespace),
            ("crd", GuardedKind::CustomResourceDefinition),
            ("CustomResourceDefinition", GuardedKind::CustomResourceDefinition),
            ("persistentvolumeclaims", GuardedKind::PersistentVolumeClaim),
        ] {
            assert_eq!(text.parse::<GuardedKind>(), Ok(kind), "{text}");
        }
        assert_eq!(
            "ConfigMap".parse::<GuardedKind>().unwrap_err().to_string(),
            "\"ConfigMap\" is not a kind that prune leaves alone: --prune-allow takes Namespace, \
             CustomResourceDefinition, PersistentVolumeClaim"
        );
    }
}
