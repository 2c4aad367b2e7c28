//! kustomize's resource model (its `api/resource`, `api/resid` and `api/resmap`): an object being
//! built with the ids it had, kustomize's ids and how its messages print them, and the ordered
//! list of resources a build accumulates. Every transformer and the builder use it; it uses
//! nothing else of kustomize's.

use std::collections::HashMap;
use std::sync::OnceLock;

use serde_json::Value;

use super::error::Error;

/// An object being built, with what kustomize remembers about it.
#[derive(Debug, Clone)]
pub struct Resource {
    pub object: Value,
    /// The names and namespaces it had before prefixes, suffixes, hashes and namespace changes,
    /// oldest first (kustomize's previous ids, which selections also match).
    pub previous_ids: Vec<PreviousId>,
    /// Values that are one YAML node in kustomize (JSON pointers): a label or annotation that one
    /// transformer added to several fields of the object. Setting one sets them all, there.
    pub linked: Vec<Vec<String>>,
    /// Whether a content hash is appended to its name at the end (generated objects).
    pub needs_hash: bool,
    /// The `vars` whose `objref` named it where they were declared; their values come from it.
    pub var_names: Vec<String>,
    /// The fields its file wrote with no value (JSON pointers): a strategic merge patch drops
    /// those it leaves `null` (see [`empty_nulls`]).
    pub empty_nulls: Vec<String>,
    /// The name prefixes and suffixes added to it, innermost first (kustomize's build
    /// annotations): name references prefer objects whose affixes end as the referrer's.
    pub prefixes: Vec<String>,
    pub suffixes: Vec<String>,
}

/// An id a resource had: its apiVersion, kind, name and namespace then.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PreviousId {
    pub api_version: String,
    pub kind: String,
    pub name: String,
    pub namespace: String,
}

impl Resource {
    pub fn new(object: Value) -> Self {
        Resource {
            object,
            previous_ids: Vec::new(),
            linked: Vec::new(),
            needs_hash: false,
            var_names: Vec::new(),
            empty_nulls: Vec::new(),
            prefixes: Vec::new(),
            suffixes: Vec::new(),
        }
    }

    pub fn api_version(&self) -> &str {
        self.object["apiVersion"].as_str().unwrap_or_default()
    }

    /// Whether kustomize takes it for cluster-scoped (see [`is_cluster_scoped`]).
    pub fn is_cluster_scoped(&self) -> bool {
        is_cluster_scoped(self.api_version(), self.kind())
    }

    pub fn kind(&self) -> &str {
        self.object["kind"].as_str().unwrap_or_default()
    }

    pub fn name(&self) -> &str {
        self.object["metadata"]["name"].as_str().unwrap_or_default()
    }

    pub fn namespace(&self) -> &str {
        self.object["metadata"]["namespace"].as_str().unwrap_or_default()
    }

    /// Whether `name` is its name now or was one before.
    pub fn had_name(&self, name: &str) -> bool {
        self.name() == name || self.had_previous_name(name)
    }

    /// The name it had first (its name now, when it was never renamed).
    pub fn original_name(&self) -> &str {
        self.previous_ids.first().map_or(self.name(), |original| &original.name)
    }

    /// Whether one of its previous ids has `name` (kustomize's name-reference candidates). An id
    /// is stored whenever a transformer may change it, so this is no proof that it changed.
    pub fn had_previous_name(&self, name: &str) -> bool {
        self.previous_ids.iter().any(|previous| previous.name == name)
    }

    /// The namespace it had when it was read (its namespace now, when no id was stored).
    pub fn original_namespace(&self) -> &str {
        self.previous_ids.first().map_or(self.namespace(), |original| &original.namespace)
    }

    /// Whether it is, or was at once, named `name` in `namespace` (any namespace when empty).
    pub fn had_id(&self, name: &str, namespace: &str) -> bool {
        let matches = |had_name: &str, had_namespace: &str| {
            had_name == name && (namespace.is_empty() || had_namespace == namespace)
        };
        matches(self.name(), self.namespace())
            || self.previous_ids.iter().any(|previous| matches(&previous.name, &previous.namespace))
    }

    /// Remembers its name and namespace before they change.
    pub fn store_previous_id(&mut self) {
        let id = PreviousId {
            api_version: self.api_version().to_string(),
            kind: self.kind().to_string(),
            name: self.name().to_string(),
            namespace: self.namespace().to_string(),
        };
        self.previous_ids.push(id);
    }

    /// Renames it, remembering the old name.
    pub fn rename(&mut self, name: String) {
        self.store_previous_id();
        self.object["metadata"]["name"] = Value::String(name);
    }

    /// Sets the value at `pointer` and at every pointer linked to it.
    pub fn set_linked(&mut self, pointer: &str, value: &Value) {
        let group = self.linked.iter().find(|group| group.iter().any(|member| member == pointer));
        let members = group.cloned().unwrap_or_else(|| vec![pointer.to_string()]);
        for member in members {
            if let Some(target) = self.object.pointer_mut(&member) {
                *target = value.clone();
            }
        }
    }

    /// Makes `change` to the object as kustomize makes a change in place (a strategic merge
    /// patch, a replacement, a var): a linked value it changes carries the others along. `change`
    /// notes the fields it replaced whole (JSON pointers): kustomize puts new nodes there, so the
    /// values below them are linked no more.
    pub fn change_in_place<T>(&mut self, change: impl FnOnce(&mut Value, &mut Vec<String>) -> T) -> T {
        let before = (!self.linked.is_empty()).then(|| self.object.clone());
        let mut replaced = Vec::new();
        let result = change(&mut self.object, &mut replaced);
        for pointer in replaced {
            let below = format!("{pointer}/");
            for group in &mut self.linked {
                group.retain(|member| *member != pointer && !member.starts_with(&below));
            }
        }
        if let Some(before) = before {
            self.follow_links(&before);
        }
        result
    }

    /// After a change in place: a linked value that changed carries the others along; one that
    /// is gone leaves its group.
    fn follow_links(&mut self, before: &Value) {
        let mut changed = Vec::new();
        for group in &mut self.linked {
            group.retain(|member| self.object.pointer(member).is_some());
            let moved = group.iter().find(|member| before.pointer(member) != self.object.pointer(member));
            if let Some(moved) = moved {
                changed.push(moved.clone());
            }
        }
        self.linked.retain(|group| group.len() > 1);
        for pointer in changed {
            if let Some(value) = self.object.pointer(&pointer).cloned() {
                self.set_linked(&pointer, &value);
            }
        }
    }

    /// Whether `other` has its id (group, version, kind, name and namespace).
    fn same_id(&self, other: &Resource) -> bool {
        self.name() == other.name()
            && self.kind() == other.kind()
            && self.namespace() == other.namespace()
            && group_version(&self.object) == group_version(&other.object)
    }

    /// The object as kustomize's messages print a resource: with the annotations in which
    /// kustomize keeps its previous ids.
    pub fn with_previous_ids(&self) -> Value {
        let mut object = self.object.clone();
        let Some(annotations) = self.previous_id_annotations() else { return object };
        if !object["metadata"]["annotations"].is_object() {
            object["metadata"]["annotations"] = Value::Object(Default::default());
        }
        object["metadata"]["annotations"].as_object_mut().expect("made an object").extend(annotations);
        object
    }

    /// The annotations in which kustomize keeps the resource's previous ids (`None` when it has
    /// none): its messages print them, and its vars are substituted in them like in any annotation.
    pub fn previous_id_annotations(&self) -> Option<serde_json::Map<String, Value>> {
        if self.previous_ids.is_empty() {
            return None;
        }
        let (api_version, kind) = (self.api_version(), self.kind());
        let names: Vec<&str> = self.previous_ids.iter().map(|id| id.name.as_str()).collect();
        let kinds: Vec<&str> = self.previous_ids.iter().map(|id| id.kind.as_str()).collect();
        let namespaces: Vec<&str> =
            self.previous_ids.iter().map(|id| effective_namespace(api_version, kind, &id.namespace)).collect();
        let annotations = [
            ("previousKinds", kinds.join(",")),
            ("previousNames", names.join(",")),
            ("previousNamespaces", namespaces.join(",")),
        ];
        Some(
            annotations
                .into_iter()
                .map(|(key, value)| (format!("internal.config.kubernetes.io/{key}"), Value::String(value)))
                .collect(),
        )
    }

    /// kustomize's id, as its messages print it: `ConfigMap.v1.[noGrp]/name.[noNs]`.
    pub fn id(&self) -> String {
        id_text(&self.object)
    }

    /// Its ids: the one it has now, then the ones it had before.
    pub fn ids(&self) -> Vec<Id> {
        let id = |api_version: &str, kind: &str, name: &str, namespace: &str| {
            let (group, version) = api_version.rsplit_once('/').unwrap_or(("", api_version));
            Id {
                group: group.to_string(),
                version: version.to_string(),
                kind: kind.to_string(),
                name: name.to_string(),
                namespace: namespace.to_string(),
            }
        };
        let current = id(self.api_version(), self.kind(), self.name(), self.namespace());
        let previous = self
            .previous_ids
            .iter()
            .map(|previous| id(&previous.api_version, &previous.kind, &previous.name, &previous.namespace));
        [current].into_iter().chain(previous).collect()
    }
}

/// kustomize's id of `object` (a resource or a patch), as its messages print it.
pub fn id_text(object: &Value) -> String {
    let (group, version) = group_version(object);
    let or = |text: &str, missing: &'static str| if text.is_empty() { missing.to_string() } else { text.to_string() };
    format!(
        "{}.{}.{}/{}.{}",
        or(object["kind"].as_str().unwrap_or_default(), "[noKind]"),
        or(version, "[noVer]"),
        or(group, "[noGrp]"),
        object["metadata"]["name"].as_str().unwrap_or_default(),
        or(object["metadata"]["namespace"].as_str().unwrap_or_default(), "[noNs]"),
    )
}

/// kustomize's resource id (`resid.ResId`); as a selector, empty fields select anything.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Id {
    pub group: String,
    pub version: String,
    pub kind: String,
    pub name: String,
    pub namespace: String,
}

impl Id {
    /// The id `object` (a resource or a patch) gives itself.
    pub fn of(object: &Value) -> Id {
        let (group, version) = group_version(object);
        let text = |value: &Value| value.as_str().unwrap_or_default().to_string();
        Id {
            group: group.to_string(),
            version: version.to_string(),
            kind: text(&object["kind"]),
            name: text(&object["metadata"]["name"]),
            namespace: text(&object["metadata"]["namespace"]),
        }
    }

    /// kustomize's `ResId.Equals`: the same group, version, kind and name, in the same effective
    /// namespace (unset being `default`).
    pub fn equals(&self, other: &Id) -> bool {
        self.group == other.group
            && self.version == other.version
            && self.kind == other.kind
            && self.name == other.name
            && self.effective_namespace() == other.effective_namespace()
    }

    /// Whether this selector selects `id`: every field it sets is equal (namespaces compared as
    /// kustomize compares them, unset being `default`).
    pub fn selects(&self, id: &Id) -> bool {
        (self.name.is_empty() || self.name == id.name)
            && (self.namespace.is_empty() || self.effective_namespace() == id.effective_namespace())
            && (self.group.is_empty() || self.group == id.group)
            && (self.version.is_empty() || self.version == id.version)
            && (self.kind.is_empty() || self.kind == id.kind)
    }

    pub fn is_empty(&self) -> bool {
        self == &Id::default()
    }

    pub fn is_cluster_scoped(&self) -> bool {
        is_cluster_scoped_kind(&self.group, &self.version, &self.kind)
    }

    /// The namespace kustomize compares: none for cluster-scoped kinds, `default` when unset.
    pub fn effective_namespace(&self) -> &str {
        match self.is_cluster_scoped() {
            true => "_non_namespaceable_",
            false if self.namespace.is_empty() => "default",
            false => &self.namespace,
        }
    }

    /// Group, version and kind as kustomize prints them: `Service.v1.[noGrp]`.
    pub fn gvk_text(&self) -> String {
        let or = |text: &str, missing: &str| if text.is_empty() { missing.to_string() } else { text.to_string() };
        format!("{}.{}.{}", or(&self.kind, "[noKind]"), or(&self.version, "[noVer]"), or(&self.group, "[noGrp]"))
    }

    /// The whole id as kustomize prints it: `Service.v1.[noGrp]/web.[noNs]`.
    pub fn text(&self) -> String {
        let or = |text: &str, missing: &str| if text.is_empty() { missing.to_string() } else { text.to_string() };
        format!("{}/{}.{}", self.gvk_text(), or(&self.name, "[noName]"), or(&self.namespace, "[noNs]"))
    }
}

/// The group and version of `object`'s `apiVersion`.
pub fn group_version(object: &Value) -> (&str, &str) {
    let api_version = object["apiVersion"].as_str().unwrap_or_default();
    api_version.rsplit_once('/').unwrap_or(("", api_version))
}

/// A namespace as kustomize compares and reports it: `default` when unset, and a name no
/// namespace can have for kinds that have none.
pub fn effective_namespace<'a>(api_version: &str, kind: &str, namespace: &'a str) -> &'a str {
    if is_cluster_scoped(api_version, kind) {
        "_non_namespaceable_"
    } else if namespace.is_empty() {
        "default"
    } else {
        namespace
    }
}

/// Whether kustomize takes `kind` of `api_version` for cluster-scoped: only the types its built-in
/// OpenAPI document (Kubernetes v1.21.2) serves without a namespace, listed in
/// cluster-scoped.txt by scripts/kustomize-scopes. Any other type, a newer version of one of
/// these included (`flowcontrol.apiserver.k8s.io/v1`), kustomize namespaces.
pub fn is_cluster_scoped(api_version: &str, kind: &str) -> bool {
    let (group, version) = api_version.rsplit_once('/').unwrap_or(("", api_version));
    is_cluster_scoped_kind(group, version, kind)
}

/// [`is_cluster_scoped`] by group, version and kind.
fn is_cluster_scoped_kind(group: &str, version: &str, kind: &str) -> bool {
    // Asked for every pair of resources compared by id: the list is read once, by kind.
    static BY_KIND: OnceLock<HashMap<&str, Vec<(&str, &str)>>> = OnceLock::new();
    let by_kind = BY_KIND.get_or_init(|| {
        let mut by_kind: HashMap<&str, Vec<(&str, &str)>> = HashMap::new();
        for (api_version, listed) in CLUSTER_SCOPED.lines().filter_map(|line| line.split_once(' ')) {
            by_kind.entry(listed).or_default().push(api_version.rsplit_once('/').unwrap_or(("", api_version)));
        }
        by_kind
    });
    by_kind.get(kind).is_some_and(|versions| versions.contains(&(group, version)))
}

/// `apiVersion kind` per line.
const CLUSTER_SCOPED: &str = include_str!("cluster-scoped.txt");

/// Appends `resource` to the ordered resource map unless one with its id is there already
/// (kustomize's `resmap.Append`).
pub fn append(resources: &mut Vec<Resource>, resource: Resource) -> Result<(), Error> {
    if resources.iter().any(|existing| existing.same_id(&resource)) {
        return Err(Error::AlreadyRegistered(resource.id()));
    }
    resources.push(resource);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_select_by_set_fields_and_effective_namespaces() {
        let id = Id { version: "v1".into(), kind: "Service".into(), name: "web".into(), ..Id::default() };
        let by = |namespace: &str, name: &str| Id { namespace: namespace.into(), name: name.into(), ..Id::default() };
        assert!(by("", "web").selects(&id) && by("default", "").selects(&id));
        assert!(!by("prod", "").selects(&id) && !by("", "db").selects(&id));
        assert_eq!(id.text(), "Service.v1.[noGrp]/web.[noNs]");
        assert_eq!(Id::default().text(), "[noKind].[noVer].[noGrp]/[noName].[noNs]");
    }
}
