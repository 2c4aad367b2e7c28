//! Names that change in a build: content hashes appended to generated objects' names, and every
//! reference to a renamed object (from kustomize's name-reference table) made to follow.

use serde_json::Value;

use super::generate::hash_suffix;
use super::resource::Resource;
use super::types::field_specs::{NameReference, selects};

/// Appends the content hash to the names of the objects that need one.
pub fn add_hashes(resources: &mut [Resource]) {
    for resource in resources.iter_mut().filter(|resource| resource.needs_hash) {
        let name = format!("{}-{}", resource.name(), hash_suffix(&resource.object));
        resource.rename(name);
    }
}

/// Makes every field that names an object by a name it had (before a prefix, suffix or hash)
/// name it as it is now, choosing the object as kustomize's name-reference filter does; `table`
/// says which fields name which kinds.
pub fn fix_references(resources: &mut [Resource], table: &[NameReference]) {
    for index in 0..resources.len() {
        // Most objects (a ConfigMap, a CRD) have no field the table names: they are not copied.
        let specs = || table.iter().flat_map(|reference| &reference.field_specs);
        if !specs().any(|spec| spec.selects(&resources[index].object)) {
            continue;
        }
        let mut object = resources[index].object.clone();
        let referrer = &resources[index];
        for reference in table {
            for spec in &reference.field_specs {
                spec.apply(&mut object, &mut |value| fix(value, reference, resources, referrer));
            }
        }
        resources[index].object = object;
    }
}

fn fix(value: &mut Value, reference: &NameReference, resources: &[Resource], referrer: &Resource) {
    match value {
        Value::String(name) => {
            let candidates = resources.iter().collect();
            if let Some(target) = referred(reference, candidates, name, referrer, false) {
                *name = target.name().to_string();
            }
        }
        Value::Array(names) => names.iter_mut().for_each(|name| fix(name, reference, resources, referrer)),
        Value::Object(map) => {
            // A subject or a service reference: a name, maybe a namespace, and for subjects a kind.
            if map.get("kind").and_then(Value::as_str).is_some_and(|kind| kind != reference.kind) {
                return;
            }
            let Some(name) = map.get("name").and_then(Value::as_str) else { return };
            let candidates = match map.get("namespace").and_then(Value::as_str) {
                Some(namespace) => in_namespace(resources, namespace),
                None => resources.iter().collect(),
            };
            let Some(target) = referred(reference, candidates, name, referrer, true) else { return };
            if target.name() == name && target.namespace().is_empty() {
                return;
            }
            map.insert("name".into(), Value::String(target.name().to_string()));
            if !target.namespace().is_empty() {
                map.insert("namespace".into(), Value::String(target.namespace().to_string()));
            }
        }
        _ => {}
    }
}

/// The namespaces a RoleBinding's service account subjects name: a namespaced object may refer to
/// objects of its own namespace only, or of these.
fn role_binding_subject_namespaces(referrer: &Resource) -> Vec<&str> {
    if referrer.kind() != "RoleBinding" {
        return Vec::new();
    }
    let subjects = referrer.object["subjects"].as_array().map(Vec::as_slice).unwrap_or_default();
    subjects
        .iter()
        .filter(|subject| subject["kind"] == "ServiceAccount")
        .filter_map(|subject| subject["namespace"].as_str())
        .collect()
}

/// The objects a reference naming `namespace` may mean: those that were in it when read, or
/// (when none was) those in it now.
fn in_namespace<'a>(resources: &'a [Resource], namespace: &str) -> Vec<&'a Resource> {
    let namespace = effective(namespace);
    let originally: Vec<&Resource> =
        resources.iter().filter(|resource| effective(resource.original_namespace()) == namespace).collect();
    if !originally.is_empty() {
        return originally;
    }
    resources.iter().filter(|resource| effective(resource.namespace()) == namespace).collect()
}

/// A namespace as Kubernetes reads it: none is `default`.
fn effective(namespace: &str) -> &str {
    if namespace.is_empty() { "default" } else { namespace }
}

/// The one object of the reference's kind among `candidates` with `name` in its previous ids (one
/// whose id no transformer stored needs no fixing, as in kustomize, even when its name is `name`
/// and another's previous name is too) and that `referrer` can see (the same namespace, or a
/// cluster-scoped object or a service account); several that agree on the name (and, for
/// `with_namespace` references, the namespace) count as one.
fn referred<'a>(
    reference: &NameReference,
    candidates: Vec<&'a Resource>,
    name: &str,
    referrer: &Resource,
    with_namespace: bool,
) -> Option<&'a Resource> {
    let referrer_cluster_scoped = referrer.is_cluster_scoped();
    let same_namespace = |candidate: &Resource| effective(candidate.namespace()) == effective(referrer.namespace());
    let subject_namespaces = role_binding_subject_namespaces(referrer);
    // kustomize's subset of objects the referrer could refer to at all, then its sieve.
    let could_refer = |candidate: &Resource| {
        referrer_cluster_scoped
            || candidate.is_cluster_scoped()
            || same_namespace(candidate)
            || subject_namespaces.contains(&candidate.namespace())
    };
    let mut matching = candidates.into_iter().filter(|candidate| {
        selects(&reference.group, &reference.version, &reference.kind, &candidate.object)
            && candidate.had_previous_name(name)
            && could_refer(candidate)
            && (referrer_cluster_scoped
                || candidate.is_cluster_scoped()
                || candidate.kind() == "ServiceAccount"
                || same_namespace(candidate))
    });
    let first = matching.next()?;
    matching
        .all(|other| other.name() == first.name() && (!with_namespace || other.namespace() == first.namespace()))
        .then_some(first)
}
