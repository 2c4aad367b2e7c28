//! Names that change in a build: content hashes appended to generated objects' names, and every
//! reference to a renamed object (from kustomize's name-reference table) made to follow.

use serde_json::Value;

use super::build::Resource;
use super::field_specs::{NameReference, selects};
use super::generate::hash_suffix;

/// Appends the content hash to the names of the objects that need one.
pub fn add_hashes(resources: &mut [Resource]) {
    for resource in resources.iter_mut().filter(|resource| resource.needs_hash) {
        let name = format!("{}-{}", resource.name(), hash_suffix(&resource.object));
        resource.rename(name);
    }
}

/// Makes every field that names an object by a name it had (before a prefix, suffix or hash)
/// name it as it is now; `table` says which fields name which kinds.
pub fn fix_references(resources: &mut [Resource], table: &[NameReference]) {
    for index in 0..resources.len() {
        let mut object = resources[index].object.clone();
        let referrer_namespace = resources[index].namespace().to_string();
        for reference in table {
            for spec in &reference.field_specs {
                spec.apply(&mut object, &mut |value| fix(value, reference, resources, &referrer_namespace));
            }
        }
        resources[index].object = object;
    }
}

fn fix(value: &mut Value, reference: &NameReference, resources: &[Resource], namespace: &str) {
    match value {
        Value::String(name) => {
            if let Some(target) = referred(reference, resources, name, namespace) {
                *name = target.name().to_string();
            }
        }
        Value::Array(names) => names.iter_mut().for_each(|name| fix(name, reference, resources, namespace)),
        Value::Object(map) => {
            // A subject or a service reference: a name, maybe a namespace, and for subjects a kind.
            if map.get("kind").and_then(Value::as_str).is_some_and(|kind| kind != reference.kind) {
                return;
            }
            let Some(name) = map.get("name").and_then(Value::as_str) else { return };
            let namespace = map.get("namespace").and_then(Value::as_str).unwrap_or(namespace).to_string();
            if let Some(target) = referred(reference, resources, name, &namespace) {
                map.insert("name".into(), Value::String(target.name().to_string()));
                if map.contains_key("namespace") && !target.namespace().is_empty() {
                    map.insert("namespace".into(), Value::String(target.namespace().to_string()));
                }
            }
        }
        _ => {}
    }
}

/// The one object of the reference's kind that had `name`, in `namespace` when both are namespaced.
fn referred<'a>(
    reference: &NameReference,
    resources: &'a [Resource],
    name: &str,
    namespace: &str,
) -> Option<&'a Resource> {
    let mut candidates = resources.iter().filter(|candidate| {
        selects(&reference.group, &reference.version, &reference.kind, &candidate.object)
            && candidate.had_name(name)
            && (namespace.is_empty() || candidate.namespace().is_empty() || candidate.had_namespace(namespace))
    });
    let first = candidates.next()?;
    candidates.all(|other| other.name() == first.name()).then_some(first)
}
