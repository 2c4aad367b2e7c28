//! The built-in transformers, in the order kustomize runs them: strategic merge patches,
//! `patches`, namespace, name prefix and suffix, labels, annotations, JSON 6902 patches, replicas,
//! images.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use super::build::{Resource, id_text};
use super::field_specs::{FieldSpec, group_version, tables};
use super::kustomization::{Image, Kustomization, PatchEntry, Selector};
use crate::manifest::{self, Dialect, LabelSelector};
use crate::merge::strategic::{self, ListOrder};
use crate::merge::{KindPatcher, json_merge, json_patch};
use crate::schema::KindSchema;

/// Reads a file named in the kustomization.
pub type Read<'a> = dyn FnMut(&str) -> Result<String, String> + 'a;

/// Runs the kustomization's transformers over `resources`.
pub fn run(kustomization: &Kustomization, resources: &mut Vec<Resource>, read: &mut Read) -> Result<(), String> {
    for entry in &kustomization.patches_strategic_merge {
        // An entry is a file, or (when it is not one) the patch itself.
        let text =
            if entry.contains('\n') || entry.trim_start().starts_with('{') { entry.clone() } else { read(entry)? };
        for patch in documents(&text, entry)? {
            strategic_by_id(resources, &patch)?;
        }
    }
    for entry in &kustomization.patches {
        let text = patch_text(entry, read)?;
        let documents = documents(&text, entry.path.as_deref().unwrap_or("inline patch"))?;
        if let [Value::Array(_)] = documents.as_slice() {
            let target = entry.target.as_ref().ok_or("a JSON 6902 patch in 'patches' needs a target")?;
            json6902(resources, target, &documents[0])?;
            continue;
        }
        for patch in documents {
            match &entry.target {
                Some(target) => {
                    let allow_name_change = entry.options.get("allowNameChange").copied().unwrap_or(false);
                    for resource in resources.iter_mut().filter(|resource| selected(target, resource)) {
                        let mut patch = patch.clone();
                        if !allow_name_change
                            && let Some(metadata) = patch.get_mut("metadata").and_then(Value::as_object_mut)
                        {
                            metadata.remove("name");
                            metadata.remove("namespace");
                        }
                        resource.object = strategic(resource.object.clone(), &patch)?;
                    }
                    if deletes(&patch) {
                        resources.retain(|resource| !selected(target, resource));
                    }
                }
                None => strategic_by_id(resources, &patch)?,
            }
        }
    }
    if let Some(namespace) = kustomization.namespace.as_deref().filter(|namespace| !namespace.is_empty()) {
        set_namespace(resources, namespace);
    }
    let prefix = kustomization.name_prefix.as_deref().unwrap_or_default();
    let suffix = kustomization.name_suffix.as_deref().unwrap_or_default();
    if !prefix.is_empty() || !suffix.is_empty() {
        for resource in resources.iter_mut() {
            if !keeps_its_name(&resource.object) {
                let name = format!("{prefix}{}{suffix}", resource.name());
                resource.rename(name);
            }
        }
    }
    let tables = tables();
    if !kustomization.common_labels.is_empty() {
        add_pairs(resources, &kustomization.common_labels, &tables.common_labels);
    }
    for label in &kustomization.labels {
        let specs: Vec<FieldSpec> = if label.include_selectors {
            tables.common_labels.clone()
        } else if label.include_templates {
            tables.template_labels.clone()
        } else {
            tables.template_labels.iter().filter(|spec| spec.path == ["metadata", "labels"]).cloned().collect()
        };
        add_pairs(resources, &label.pairs, &specs);
    }
    if !kustomization.common_annotations.is_empty() {
        add_pairs(resources, &kustomization.common_annotations, &tables.common_annotations);
    }
    for entry in &kustomization.patches_json6902 {
        let target = entry.target.as_ref().ok_or("a patchesJson6902 entry needs a target")?;
        let text = patch_text(entry, read)?;
        let patch = documents(&text, entry.path.as_deref().unwrap_or("inline patch"))?
            .into_iter()
            .next()
            .unwrap_or(Value::Null);
        json6902(resources, target, &patch)?;
    }
    for replica in &kustomization.replicas {
        for resource in resources.iter_mut().filter(|resource| resource.had_name(&replica.name)) {
            for spec in &tables.replicas {
                spec.apply(&mut resource.object, &mut |value| *value = Value::from(replica.count));
            }
        }
    }
    for image in kustomization.images.iter().chain(&kustomization.image_tags) {
        for resource in resources.iter_mut() {
            set_images(&mut resource.object, image);
        }
    }
    Ok(())
}

fn patch_text(entry: &PatchEntry, read: &mut Read) -> Result<String, String> {
    match (&entry.path, &entry.patch) {
        (Some(path), None) => read(path),
        (None, Some(patch)) => Ok(patch.clone()),
        _ => Err("a patch needs exactly one of 'path' and 'patch'".into()),
    }
}

fn documents(text: &str, source: &str) -> Result<Vec<Value>, String> {
    Ok(manifest::parse_documents(text, source, Dialect::Kustomize)
        .map_err(|err| err.to_string())?
        .into_iter()
        .filter(|document| !document.is_null())
        .collect())
}

fn deletes(patch: &Value) -> bool {
    patch.get("$patch").and_then(Value::as_str) == Some("delete")
}

/// Applies a strategic merge patch to the one resource its own id names.
fn strategic_by_id(resources: &mut Vec<Resource>, patch: &Value) -> Result<(), String> {
    let (group, _) = group_version(patch);
    let kind = patch["kind"].as_str().unwrap_or_default();
    let name = patch["metadata"]["name"].as_str().unwrap_or_default();
    let namespace = patch["metadata"]["namespace"].as_str().unwrap_or_default();
    let matches: Vec<usize> = resources
        .iter()
        .enumerate()
        .filter(|(_, resource)| {
            group_version(&resource.object).0 == group
                && resource.kind() == kind
                && resource.had_name(name)
                && (namespace.is_empty() || resource.namespace() == namespace)
        })
        .map(|(index, _)| index)
        .collect();
    let id = id_text(patch);
    match matches.as_slice() {
        [index] if deletes(patch) => {
            resources.remove(*index);
            Ok(())
        }
        [index] => {
            let mut patch = patch.clone();
            // The patch names its target by an earlier name; the target keeps the name it has now.
            patch["metadata"]["name"] = Value::String(resources[*index].name().to_string());
            resources[*index].object = strategic(resources[*index].object.clone(), &patch)?;
            Ok(())
        }
        [] => Err(format!("no resource matches strategic merge patch \"{id}\"")),
        _ => Err(format!("multiple resources match strategic merge patch \"{id}\"")),
    }
}

/// `patch` applied to `object` as a strategic merge patch, with the kind's patch metadata and
/// merged lists in kustomize's order; kinds without metadata (custom resources) get a JSON merge
/// patch, as in kustomize.
fn strategic(object: Value, patch: &Value) -> Result<Value, String> {
    let api_version = object["apiVersion"].as_str().unwrap_or_default().to_string();
    let kind = object["kind"].as_str().unwrap_or_default().to_string();
    let schema = KindSchema::for_builtin(None, &api_version, &kind);
    let id = id_text(&object);
    match KindPatcher::for_kind(schema.as_ref()) {
        KindPatcher::Strategic(schema) => {
            strategic::apply_with_order(object, patch.clone(), &schema, ListOrder::PatchFirst)
                .map_err(|err| format!("patching {id}: {err}"))
        }
        KindPatcher::Merge => Ok(json_merge::apply(object, patch)),
    }
}

fn json6902(resources: &mut [Resource], target: &Selector, patch: &Value) -> Result<(), String> {
    let operations = json_patch::parse(patch).map_err(|err| format!("invalid JSON 6902 patch: {err}"))?;
    for resource in resources.iter_mut().filter(|resource| selected(target, resource)) {
        let id = resource.id();
        json_patch::apply(&mut resource.object, &operations).map_err(|err| format!("patching {id}: {err}"))?;
    }
    Ok(())
}

/// Whether a patch's `target` selects `resource`: names and namespaces are anchored regular
/// expressions in kustomize; here they are matched literally, `*`-free, or as `.*`-style prefixes.
fn selected(target: &Selector, resource: &Resource) -> bool {
    let (group, version) = group_version(&resource.object);
    let text_matches = |pattern: &str, value: &str| pattern.is_empty() || pattern_matches(pattern, value);
    (target.group.is_empty() || target.group == group)
        && (target.version.is_empty() || target.version == version)
        && (target.kind.is_empty() || target.kind == resource.kind())
        && (target.name.is_empty()
            || resource
                .previous_ids
                .iter()
                .map(|(name, _)| name.as_str())
                .chain([resource.name()])
                .any(|name| pattern_matches(&target.name, name)))
        && text_matches(&target.namespace, resource.namespace())
        && selector_matches(&target.label_selector, &resource.object["metadata"]["labels"])
        && selector_matches(&target.annotation_selector, &resource.object["metadata"]["annotations"])
}

/// An anchored pattern with `.*` and `*` wildcards, the forms kustomizations use; other regular
/// expression syntax is compared literally.
fn pattern_matches(pattern: &str, value: &str) -> bool {
    let pattern = pattern.replace(".*", "*");
    let parts: Vec<&str> = pattern.split('*').collect();
    if parts.len() == 1 {
        return pattern == value;
    }
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if !value.starts_with(first) || !value[first.len()..].ends_with(last) {
        return false;
    }
    let mut rest = &value[first.len()..value.len() - last.len()];
    for part in &parts[1..parts.len() - 1] {
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    true
}

fn selector_matches(selector: &str, pairs: &Value) -> bool {
    if selector.is_empty() {
        return true;
    }
    match selector.parse::<LabelSelector>() {
        Ok(selector) => selector.matches(&serde_json::json!({"metadata": {"labels": pairs}})),
        Err(_) => false,
    }
}

/// Kinds whose names prefixes and suffixes leave alone, as kustomize's.
fn keeps_its_name(object: &Value) -> bool {
    let kind = object["kind"].as_str().unwrap_or_default();
    matches!(kind, "CustomResourceDefinition" | "Namespace")
        || (kind == "APIService" && group_version(object).0 == "apiregistration.k8s.io")
}

/// Built-in kinds that are not namespaced: kustomize leaves their namespace unset.
const CLUSTER_SCOPED: &[&str] = &[
    "APIService",
    "CertificateSigningRequest",
    "ClusterRole",
    "ClusterRoleBinding",
    "ComponentStatus",
    "CSIDriver",
    "CSINode",
    "CustomResourceDefinition",
    "FlowSchema",
    "IngressClass",
    "MutatingWebhookConfiguration",
    "Namespace",
    "Node",
    "PersistentVolume",
    "PodSecurityPolicy",
    "PriorityClass",
    "PriorityLevelConfiguration",
    "RuntimeClass",
    "StorageClass",
    "StorageVersion",
    "ValidatingAdmissionPolicy",
    "ValidatingAdmissionPolicyBinding",
    "ValidatingWebhookConfiguration",
    "VolumeAttachment",
];

/// Whether `object`'s kind is one of the built-in cluster-scoped kinds.
pub fn is_cluster_scoped(object: &Value) -> bool {
    CLUSTER_SCOPED.contains(&object["kind"].as_str().unwrap_or_default())
}

fn set_namespace(resources: &mut [Resource], namespace: &str) {
    for resource in resources.iter_mut() {
        if !is_cluster_scoped(&resource.object) {
            resource.move_to(namespace);
        }
        let object = &mut resource.object;
        for spec in &tables().namespace {
            spec.apply(object, &mut |value| *value = Value::String(namespace.to_string()));
        }
        // Subjects of (cluster) role bindings named `default` move too (kustomize's default mode).
        if matches!(object["kind"].as_str(), Some("RoleBinding" | "ClusterRoleBinding"))
            && let Some(subjects) = object["subjects"].as_array_mut()
        {
            for subject in subjects.iter_mut().filter(|subject| subject["name"] == "default") {
                subject["namespace"] = Value::String(namespace.to_string());
            }
        }
    }
}

fn add_pairs(resources: &mut [Resource], pairs: &BTreeMap<String, String>, specs: &[FieldSpec]) {
    for resource in resources.iter_mut() {
        for spec in specs {
            spec.apply(&mut resource.object, &mut |value| {
                if !value.is_object() {
                    *value = Value::Object(Map::new());
                }
                let map = value.as_object_mut().expect("made an object");
                for (key, pair_value) in pairs {
                    map.insert(key.clone(), Value::String(pair_value.clone()));
                }
            });
        }
    }
}

/// Sets the images `image` names, in every `containers` and `initContainers` list of `object`
/// (kustomize looks for them anywhere, not only where its table says).
fn set_images(object: &mut Value, image: &Image) {
    match object {
        Value::Object(map) => {
            for (key, value) in map.iter_mut() {
                if matches!(key.as_str(), "containers" | "initContainers")
                    && let Value::Array(containers) = value
                {
                    for container in containers.iter_mut() {
                        if let Some(Value::String(current)) = container.get_mut("image")
                            && let Some(updated) = updated_image(current, image)
                        {
                            *current = updated;
                        }
                    }
                }
                set_images(value, image);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|item| set_images(item, image)),
        _ => {}
    }
}

/// `current` changed as `image` says, when `image` names it.
fn updated_image(current: &str, image: &Image) -> Option<String> {
    let (name, tag, digest) = split_image(current);
    if name != image.name {
        return None;
    }
    let mut name = name.to_string();
    let (mut tag, mut digest) = (tag.to_string(), digest.to_string());
    if !image.new_name.is_empty() {
        name = image.new_name.clone();
    }
    match (image.new_tag.is_empty(), image.digest.is_empty()) {
        (false, false) => (tag, digest) = (image.new_tag.clone(), image.digest.clone()),
        (false, true) => (tag, digest) = (image.new_tag.clone(), String::new()),
        (true, false) => (tag, digest) = (String::new(), image.digest.clone()),
        (true, true) => {}
    }
    if !image.tag_suffix.is_empty() && !tag.is_empty() {
        tag.push_str(&image.tag_suffix);
    }
    if !tag.is_empty() {
        name = format!("{name}:{tag}");
    }
    if !digest.is_empty() {
        name = format!("{name}@{digest}");
    }
    Some(name)
}

/// An image reference's name, tag and digest: `name:tag@digest`, the tag after the last `:` that
/// follows the last `/` (a registry's port is not a tag).
fn split_image(image: &str) -> (&str, &str, &str) {
    let (rest, digest) = image.split_once('@').unwrap_or((image, ""));
    let slash = rest.rfind('/').map_or(0, |at| at + 1);
    match rest[slash..].rfind(':') {
        Some(at) => (&rest[..slash + at], &rest[slash + at + 1..], digest),
        None => (rest, "", digest),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn images_split_and_update_as_kustomize_does() {
        assert_eq!(split_image("registry:5000/app:1.0@sha256:abc"), ("registry:5000/app", "1.0", "sha256:abc"));
        assert_eq!(split_image("registry:5000/app"), ("registry:5000/app", "", ""));
        let image =
            Image { name: "nginx".into(), new_name: "my/nginx".into(), new_tag: "1.25".into(), ..Image::default() };
        assert_eq!(updated_image("nginx:1.0@sha256:x", &image).as_deref(), Some("my/nginx:1.25"));
        assert_eq!(updated_image("redis", &image), None);
        let digest = Image { name: "nginx".into(), digest: "sha256:d".into(), ..Image::default() };
        assert_eq!(updated_image("nginx:1.0", &digest).as_deref(), Some("nginx@sha256:d"));
    }

    #[test]
    fn target_names_are_anchored_patterns() {
        assert!(pattern_matches("web", "web"));
        assert!(!pattern_matches("web", "web-2"));
        assert!(pattern_matches("web.*", "web-2"));
        assert!(pattern_matches(".*-db", "app-db"));
        assert!(!pattern_matches(".*-db", "app-dbx"));
    }
}
