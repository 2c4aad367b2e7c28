//! ApplySets (KEP-3659, kubectl's `--applyset`): a parent object records which kinds and
//! namespaces a set of applied objects spans, and every member carries the set's id in a label,
//! so that a later apply can find, and prune, the members its configuration no longer has.
//!
//! The parent is written before the members and after the prune, in the specification's order:
//! first widened to what it held plus what this apply brings (a run that stops half-way leaves no
//! member the parent does not lead to), then, once pruning is done, narrowed to this apply's.

use std::collections::BTreeSet;

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde_json::{Map, Value, json};
use sha2::{Digest as _, Sha256};

use crate::client::{self, Cluster, ListScope, ResourceType, Selectors, WriteOptions};
use crate::merge::Patch;
use crate::resource::{Entry, ObjectRef, Source};

/// The label every member carries: the id of its set.
pub const PART_OF: &str = "applyset.kubernetes.io/part-of";
/// The parent's label: the set's id.
const ID: &str = "applyset.kubernetes.io/id";
/// The parent's annotation naming the tool that manages the set.
const TOOLING: &str = "applyset.kubernetes.io/tooling";
/// The parent's annotation listing the members' group-kinds (`ConfigMap,Deployment.apps`).
const GROUP_KINDS: &str = "applyset.kubernetes.io/contains-group-kinds";
/// The parent's annotation listing the members' namespaces other than its own.
const NAMESPACES: &str = "applyset.kubernetes.io/additional-namespaces";
/// The label of a CustomResourceDefinition whose objects may be parents.
const PARENT_TYPE: &str = "applyset.kubernetes.io/is-parent-type";
/// The field manager of the writes to the parent.
const PARENT_MANAGER: &str = "kubeupd-applyset";
/// The tool name in the tooling annotation; another name's sets are not touched.
const TOOL: &str = "kubeupd";

/// Why an ApplySet cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The parent's type cannot be a parent.
    #[error(
        "{0} cannot be an ApplySet parent: use a Secret (the default), a ConfigMap (configmaps/NAME), or a custom \
         resource whose CustomResourceDefinition has the label {PARENT_TYPE}=true"
    )]
    NotAParentType(String),
    /// A namespaced parent needs a namespace.
    #[error("the ApplySet parent {0} is namespaced: name its namespace with -n")]
    NoNamespace(String),
    /// A custom resource parent must exist before the first apply.
    #[error("custom resource ApplySet parents cannot be created automatically")]
    CustomParentMissing,
    /// The parent exists without the tooling annotation.
    #[error("ApplySet parent object {0:?} already exists and is missing required annotation {TOOLING:?}")]
    NoTooling(String),
    /// The parent exists, managed by another tool.
    #[error(
        "ApplySet parent object {parent:?} already exists and is managed by tooling {tooling:?} instead of {TOOL:?}"
    )]
    OtherTooling { parent: String, tooling: String },
    /// The parent exists without the set's id.
    #[error("ApplySet parent object {0:?} exists and does not have required label {ID}")]
    NoId(String),
    /// The parent exists but is not this set's parent.
    #[error(
        "ApplySet parent object {parent:?} exists and has incorrect value for label {ID:?} (got: {found}, want: {expected})"
    )]
    OtherId { parent: String, found: String, expected: String },
    /// An object to apply belongs to another set.
    #[error(
        "{object} belongs to another ApplySet ({PART_OF}={set}); remove it from that set (or from this configuration) first"
    )]
    OtherSet { object: String, set: String },
    #[error(transparent)]
    Client(#[from] client::Error),
}

/// The group-kinds and namespaces of a set's members, as the parent records them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Members {
    /// `Kind` for the core group, `Kind.group` otherwise.
    pub group_kinds: BTreeSet<String>,
    /// Every namespace with members, the parent's own included.
    pub namespaces: BTreeSet<String>,
}

impl Members {
    /// The group-kinds and namespaces of the objects prune found and kept.
    pub fn of_kept(kept: &[super::prune::Kept]) -> Members {
        Members {
            group_kinds: kept.iter().map(|kept| group_kind(&kept.target.rt)).collect(),
            namespaces: kept.iter().filter_map(|kept| kept.target.namespace.clone()).collect(),
        }
    }

    /// Both sets, together.
    pub fn union(&self, other: &Members) -> Members {
        Members {
            group_kinds: self.group_kinds.union(&other.group_kinds).cloned().collect(),
            namespaces: self.namespaces.union(&other.namespaces).cloned().collect(),
        }
    }
}

/// An ApplySet: its parent, its id, and what the live parent records.
#[derive(Debug, Clone)]
pub struct ApplySet {
    pub parent: ObjectRef,
    pub id: String,
    /// The members' group-kinds and namespaces as the live parent lists them (none when new).
    pub recorded: Members,
}

/// The set's id, as the specification computes it: the base64url (unpadded) SHA-256 of
/// `NAME.NAMESPACE.KIND.GROUP` of the parent, between `applyset-` and `-v1`.
pub fn id(name: &str, namespace: &str, kind: &str, group: &str) -> String {
    let digest = Sha256::digest(format!("{name}.{namespace}.{kind}.{group}").as_bytes());
    format!("applyset-{}-v1", URL_SAFE_NO_PAD.encode(digest))
}

/// `Kind` for the core group, `Kind.group` otherwise: how the parent lists group-kinds.
pub fn group_kind(rt: &ResourceType) -> String {
    if rt.group.is_empty() { rt.kind.clone() } else { format!("{}.{}", rt.kind, rt.group) }
}

impl ApplySet {
    /// The set whose parent `spec` names (`NAME` for a Secret, `configmaps/NAME`,
    /// `KIND.GROUP/NAME` or `RESOURCE.GROUP/NAME`), in `namespace` when its type is namespaced.
    /// Reads the live parent, if any: another tool's set, or another parent, is refused.
    pub async fn open(cluster: &Cluster, spec: &str, namespace: Option<&str>) -> Result<ApplySet, Error> {
        let (type_arg, name) = spec.split_once('/').unwrap_or(("secrets", spec));
        let rt = cluster.resolve(type_arg).await?;
        let parent_type = rt.group.is_empty() && (rt.resource == "secrets" || rt.resource == "configmaps");
        if !parent_type && !is_parent_type(cluster, &rt).await? {
            return Err(Error::NotAParentType(rt.group_resource()));
        }
        let namespace = match (rt.namespaced, namespace) {
            (false, _) => None,
            (true, Some(namespace)) => Some(namespace.to_string()),
            (true, None) => return Err(Error::NoNamespace(format!("{}/{name}", rt.group_resource()))),
        };
        let id = id(name, namespace.as_deref().unwrap_or(""), &rt.kind, &rt.group);
        let parent = ObjectRef { rt, namespace, name: name.to_string() };
        let recorded = match cluster.get(&parent.rt, parent.namespace.as_deref(), &parent.name).await {
            Ok(live) => recorded(&live, &parent, &id)?,
            Err(client::Error::NotFound(_)) if parent_type => Members::default(),
            Err(client::Error::NotFound(_)) => return Err(Error::CustomParentMissing),
            Err(err) => return Err(err.into()),
        };
        Ok(ApplySet { parent, id, recorded })
    }

    /// Labels every object of `entries` as a member of this set.
    pub fn label(&self, entries: &mut [Entry]) {
        for entry in entries {
            let document = match entry {
                Entry::Ready(manifest) => &mut manifest.document,
                Entry::Pending(pending) => &mut pending.document,
            };
            if let Some(metadata) = document.get_mut("metadata").and_then(Value::as_object_mut) {
                let labels = metadata.entry("labels").or_insert_with(|| Value::Object(Map::new()));
                if let Some(labels) = labels.as_object_mut() {
                    labels.insert(PART_OF.to_string(), Value::String(self.id.clone()));
                }
            }
        }
    }

    /// The group-kinds and namespaces of `entries` (the parent's namespace always counts).
    pub fn members(&self, entries: &[Entry]) -> Members {
        let mut members = Members::default();
        members.namespaces.extend(self.parent.namespace.clone());
        for entry in entries {
            match entry {
                Entry::Ready(manifest) => {
                    members.group_kinds.insert(group_kind(&manifest.object.rt));
                    members.namespaces.extend(manifest.object.namespace.clone());
                }
                Entry::Pending(pending) => {
                    let group = pending.api_version.rsplit_once('/').map_or("", |(group, _)| group);
                    let kind = &pending.kind;
                    members.group_kinds.insert(if group.is_empty() { kind.clone() } else { format!("{kind}.{group}") });
                    members.namespaces.extend(pending.namespace.clone());
                }
            }
        }
        members
    }

    /// The objects of `entries` that already belong to another set, each with why; one list per
    /// type and namespace, of the objects labelled with another set's id.
    pub async fn members_of_other_sets(&self, cluster: &Cluster, entries: &[Entry]) -> Vec<(Source, Error)> {
        let selector = format!("{PART_OF},{PART_OF}!={}", self.id);
        let mut seen: std::collections::HashMap<(String, Option<String>), Vec<Value>> = Default::default();
        let mut refused = Vec::new();
        for entry in entries {
            let Entry::Ready(manifest) = entry else { continue };
            let object = &manifest.object;
            let key = (object.rt.group_resource(), object.namespace.clone());
            if !seen.contains_key(&key) {
                let scope = object.namespace.as_deref().map_or(ListScope::AllNamespaces, ListScope::Namespace);
                let listed = cluster.list(&object.rt, scope, Selectors { label: Some(&selector), field: None }).await;
                let items = listed.ok().and_then(|mut list| list.get_mut("items").map(Value::take));
                let items = match items {
                    Some(Value::Array(items)) => items,
                    _ => Vec::new(),
                };
                seen.insert(key.clone(), items);
            }
            let other = seen[&key].iter().find(|item| item["metadata"]["name"] == object.name.as_str());
            if let Some(set) = other.and_then(|item| item["metadata"]["labels"][PART_OF].as_str()) {
                let err = Error::OtherSet { object: object.display_name(), set: set.to_string() };
                refused.push((manifest.source.clone(), err));
            }
        }
        refused
    }

    /// Writes `members` to the parent (creating it when new), as a server-side apply of the
    /// set's label and annotations. A server dry run only checks; a client dry run writes nothing.
    pub async fn record(&self, cluster: &Cluster, members: &Members, dry_run: super::DryRun) -> Result<(), Error> {
        if dry_run == super::DryRun::Client {
            return Ok(());
        }
        let parent = &self.parent;
        let mut metadata = json!({
            "name": parent.name,
            "labels": {ID: self.id},
            "annotations": {
                TOOLING: format!("{TOOL}/{}", env!("CARGO_PKG_VERSION")),
                GROUP_KINDS: members.group_kinds.iter().cloned().collect::<Vec<_>>().join(","),
                NAMESPACES: members
                    .namespaces
                    .iter()
                    .filter(|namespace| Some(namespace.as_str()) != parent.namespace.as_deref())
                    .cloned()
                    .collect::<Vec<_>>()
                    .join(","),
            },
        });
        if let Some(namespace) = &parent.namespace {
            metadata["namespace"] = Value::String(namespace.clone());
        }
        let document = json!({"apiVersion": parent.rt.api_version(), "kind": parent.rt.kind, "metadata": metadata});
        let options = WriteOptions {
            dry_run: dry_run == super::DryRun::Server,
            field_manager: Some(PARENT_MANAGER.to_string()),
            force: true,
            ..WriteOptions::default()
        };
        let patch = Patch::Apply(document);
        cluster.patch(&parent.rt, parent.namespace.as_deref(), &parent.name, &patch, &options).await?;
        Ok(())
    }
}

/// Whether objects of the custom resource type `rt` may be parents: its definition says so.
async fn is_parent_type(cluster: &Cluster, rt: &ResourceType) -> Result<bool, Error> {
    if rt.group.is_empty() {
        return Ok(false);
    }
    let definitions = cluster.resolve_kind("apiextensions.k8s.io/v1", "CustomResourceDefinition").await?;
    match cluster.get(&definitions, None, &format!("{}.{}", rt.resource, rt.group)).await {
        Ok(definition) => Ok(definition["metadata"]["labels"][PARENT_TYPE] == "true"),
        Err(client::Error::NotFound(_)) => Ok(false),
        Err(err) => Err(err.into()),
    }
}

/// What the live parent records, after checking that it is this set's, managed by kubeupd.
fn recorded(live: &Value, parent: &ObjectRef, id: &str) -> Result<Members, Error> {
    // kubectl's way of naming the parent: `secrets./name`, `appsets.example.com/name`.
    let name = format!("{}.{}/{}", parent.rt.resource, parent.rt.group, parent.name);
    let metadata = &live["metadata"];
    let annotation = |key: &str| metadata["annotations"][key].as_str();
    let Some(tooling) = annotation(TOOLING) else { return Err(Error::NoTooling(name)) };
    let tool = tooling.split('/').next().unwrap_or_default();
    if tool != TOOL {
        return Err(Error::OtherTooling { parent: name, tooling: tool.to_string() });
    }
    match metadata["labels"][ID].as_str() {
        None => return Err(Error::NoId(name)),
        Some(found) if found != id => {
            return Err(Error::OtherId { parent: name, found: found.to_string(), expected: id.to_string() });
        }
        Some(_) => {}
    }
    let annotation = |key: &str| annotation(key).unwrap_or_default();
    let list = |text: &str| text.split(',').filter(|item| !item.is_empty()).map(String::from).collect::<BTreeSet<_>>();
    let mut members = Members { group_kinds: list(annotation(GROUP_KINDS)), namespaces: list(annotation(NAMESPACES)) };
    members.namespaces.extend(parent.namespace.clone());
    Ok(members)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_id_is_kubectls() {
        // kubectl 1.32 (KUBECTL_APPLYSET=true) labelled the Secret parent `myset` in `as-probe` so.
        assert_eq!(id("myset", "as-probe", "Secret", ""), "applyset-ASq6b8kQGMN5FRhpbxc4nYZyXnQ7zeN_cva7_FSONPY-v1");
    }

    #[test]
    fn the_live_parent_must_be_this_sets_and_kubeupds() {
        let parent = ObjectRef {
            rt: client::ResourceType {
                group: String::new(),
                version: "v1".into(),
                resource: "secrets".into(),
                kind: "Secret".into(),
                namespaced: true,
                verbs: Vec::new(),
                short_names: Vec::new(),
                categories: Vec::new(),
                singular: "secret".into(),
                status_subresource: false,
            },
            namespace: Some("ns".into()),
            name: "set".into(),
        };
        let live = |id: &str, tooling: &str| {
            json!({"metadata": {"labels": {ID: id}, "annotations": {
                TOOLING: tooling, GROUP_KINDS: "ConfigMap,Deployment.apps", NAMESPACES: "other"}}})
        };
        let members = recorded(&live("x", "kubeupd/0.1.0"), &parent, "x").unwrap();
        assert_eq!(members.group_kinds, BTreeSet::from(["ConfigMap".to_string(), "Deployment.apps".to_string()]));
        assert_eq!(members.namespaces, BTreeSet::from(["ns".to_string(), "other".to_string()]));
        assert!(matches!(recorded(&live("x", "kubectl/v1.37.1"), &parent, "x"), Err(Error::OtherTooling { .. })));
        let untooled = json!({"metadata": {"labels": {ID: "x"}}});
        assert_eq!(
            recorded(&untooled, &parent, "x").unwrap_err().to_string(),
            "ApplySet parent object \"secrets./set\" already exists and is missing required annotation \"applyset.kubernetes.io/tooling\""
        );
        assert!(matches!(recorded(&live("y", "kubeupd/0.1.0"), &parent, "x"), Err(Error::OtherId { .. })));
    }
}
