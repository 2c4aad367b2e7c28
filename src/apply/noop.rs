//! Three-way patches the server would write nothing for. kubectl sends them and says
//! `configured`; the server keeps the object as it was (the resourceVersion stays). They come
//! from configurations that carry what the server does not store as written: an empty `status`
//! or `creationTimestamp: null` (generated CRDs), a deletion of a field that is not there
//! (`data: null`), a `false` the server omits, a quantity spelt otherwise than the server
//! keeps it (`cpu: 1000m` is read back as `1`). Skipping them is most of an unchanged apply of
//! such inputs.

use serde_json::Value;

use super::ownership;
use crate::client;
use crate::merge::Patch;
use crate::schema::{LookupPatchMeta, SchemaNode, same_quantity};

/// Whether `patch` may write nothing, the only patches [`writes_nothing`] looks into: it sets a
/// status, the creation time, and elsewhere nothing but deletions, `false`s and quantities
/// (merge keys aside). Anything else in a three-way patch is a change, and applying every patch
/// to find out would cost every configured object a copy and a merge.
pub(super) fn may_write_nothing(patch: &Patch, schema: SchemaNode<'_>) -> bool {
    let (Patch::Strategic(document) | Patch::Merge(document)) = patch else { return false };
    document.as_object().is_some_and(|fields| {
        fields.iter().all(|(field, value)| match field.as_str() {
            "status" => true,
            "metadata" => {
                value.as_object().is_some_and(|metadata| metadata.keys().all(|key| key == "creationTimestamp"))
            }
            _ => sets_only_what_may_be_stored(schema, field, value),
        })
    })
}

/// Whether `value`, set by a patch at `field` of a value `parent` describes, is made only of
/// what the server may already store otherwise spelt.
fn sets_only_what_may_be_stored(parent: SchemaNode<'_>, field: &str, value: &Value) -> bool {
    match value {
        Value::Null | Value::Bool(false) => true,
        Value::Bool(true) => false,
        Value::Number(_) | Value::String(_) => parent.lookup_field(field).is_ok_and(|(node, _)| node.is_quantity()),
        Value::Object(fields) => parent.lookup_field(field).is_ok_and(|(node, _)| sets_only_fields(node, fields, "")),
        Value::Array(items) => parent.lookup_list(field).is_ok_and(|(node, meta)| {
            items
                .iter()
                .all(|item| item.as_object().is_some_and(|fields| sets_only_fields(node, fields, meta.merge_key())))
        }),
    }
}

/// [`sets_only_what_may_be_stored`] for each of `fields` but `merge_key` (which names a list
/// element, set nothing) and the order a strategic patch gives a list.
fn sets_only_fields(node: SchemaNode<'_>, fields: &serde_json::Map<String, Value>, merge_key: &str) -> bool {
    fields.iter().all(|(field, value)| {
        field.starts_with("$setElementOrder/")
            || (!field.starts_with('$') && (field == merge_key || sets_only_what_may_be_stored(node, field, value)))
    })
}

/// Whether sending a patch that makes `patched` of `live` would write nothing. A write to the
/// object keeps the status of a type with a status subresource, and the creation time of any
/// object, as they were; it still gives `manager` the status fields it sends unless `manager`
/// owns them already, and that is a write. Elsewhere a difference is no write only where
/// `schema` says the server stores both sides alike.
pub(super) fn writes_nothing(
    live: &Value,
    patched: &Value,
    rt: &client::ResourceType,
    manager: &str,
    schema: SchemaNode<'_>,
) -> bool {
    let mut differences = Vec::new();
    differing_paths(live, patched, &mut Vec::new(), &mut differences);
    differences.iter().all(|path| match path.as_slice() {
        [metadata, ..] if metadata == "metadata" => path.len() == 2 && path[1] == "creationTimestamp",
        [status, ..] if status == "status" && rt.status_subresource => ownership::updater_holds(live, manager, path),
        [parents @ .., field] => {
            let mut node = schema;
            let (mut before, mut after) = (Some(live), Some(patched));
            for key in parents {
                node = node.lookup_field(key).map_or(SchemaNode::unknown(), |(node, _)| node);
                (before, after) = (before.and_then(|v| v.get(key)), after.and_then(|v| v.get(key)));
            }
            stored_alike(node, field, before.and_then(|v| v.get(field)), after.and_then(|v| v.get(field)))
        }
        [] => false,
    })
}

/// The paths at which `a` and `b` differ, descending through maps: a list or a value that
/// differs is one path.
fn differing_paths(a: &Value, b: &Value, path: &mut Vec<String>, found: &mut Vec<Vec<String>>) {
    let (Value::Object(a), Value::Object(b)) = (a, b) else {
        if a != b {
            found.push(path.clone());
        }
        return;
    };
    for key in a.keys().chain(b.keys().filter(|key| !a.contains_key(*key))) {
        let (left, right) = (a.get(key).unwrap_or(&Value::Null), b.get(key).unwrap_or(&Value::Null));
        if left != right {
            path.push(key.clone());
            differing_paths(left, right, path, found);
            path.pop();
        }
    }
}

/// Whether the server stores `a` and `b`, two values (or absences) of `field` of a value that
/// `parent` describes, alike.
fn stored_alike(parent: SchemaNode<'_>, field: &str, a: Option<&Value>, b: Option<&Value>) -> bool {
    let false_or_absent = |value: Option<&Value>| matches!(value, None | Some(Value::Bool(false)));
    if a == b || (parent.omits_false(field) && false_or_absent(a) && false_or_absent(b)) {
        return true;
    }
    let (Some(a), Some(b)) = (a, b) else { return false };
    match (a, b) {
        (Value::Array(left), Value::Array(right)) => parent.lookup_list(field).is_ok_and(|(items, _)| {
            left.len() == right.len() && left.iter().zip(right).all(|(a, b)| values_alike(items, a, b))
        }),
        _ => parent.lookup_field(field).is_ok_and(|(node, _)| values_alike(node, a, b)),
    }
}

/// Whether the server stores `a` and `b`, two values that `node` describes, alike: objects field
/// by field, quantities by amount, anything else as it is written.
fn values_alike(node: SchemaNode<'_>, a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Object(left), Value::Object(right)) => left
            .keys()
            .chain(right.keys().filter(|key| !left.contains_key(*key)))
            .all(|key| stored_alike(node, key, left.get(key), right.get(key))),
        _ => a == b || (node.is_quantity() && same_quantity(a, b)),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::schema::builtin;

    fn crds(status_subresource: bool) -> client::ResourceType {
        let mut rt = client::resource::fixture(
            "apiextensions.k8s.io",
            "v1",
            "customresourcedefinitions",
            "CustomResourceDefinition",
            false,
        );
        rt.status_subresource = status_subresource;
        rt
    }

    fn schema(api_version: &str, kind: &str) -> SchemaNode<'static> {
        builtin().for_kind(api_version, kind).unwrap()
    }

    fn crd() -> SchemaNode<'static> {
        schema("apiextensions.k8s.io/v1", "CustomResourceDefinition")
    }

    /// A live definition whose status fields `owned` (under `status`) `manager` owns.
    fn live(manager: &str, owned: Value) -> Value {
        json!({
            "metadata": {
                "name": "a", "creationTimestamp": "2026-01-01T00:00:00Z", "annotations": {"x": "1"},
                "managedFields": [{"manager": manager, "operation": "Update", "fieldsV1": {"f:status": owned}}]
            },
            "spec": {"group": "g"},
            "status": {"acceptedNames": {"kind": "A"}, "conditions": [{"type": "Established"}]}
        })
    }

    fn patched(live: &Value) -> Value {
        let mut patched = live.clone();
        patched["metadata"]["creationTimestamp"] = Value::Null;
        patched["status"] = json!({"acceptedNames": {"kind": ""}, "conditions": []});
        patched
    }

    #[test]
    fn status_fields_the_manager_owns_and_the_creation_time_are_not_written() {
        let owned = json!({"f:acceptedNames": {"f:kind": {}}, "f:conditions": {}});
        let live = live("csa", owned);
        assert!(writes_nothing(&live, &patched(&live), &crds(true), "csa", crd()));
        assert!(
            !writes_nothing(&live, &patched(&live), &crds(false), "csa", crd()),
            "without a subresource the status is written"
        );
        assert!(
            !writes_nothing(&live, &patched(&live), &crds(true), "other", crd()),
            "another manager takes the fields over"
        );
    }

    #[test]
    fn status_fields_the_manager_does_not_own_yet_are_a_write() {
        let live = live("csa", json!({"f:acceptedNames": {"f:kind": {}}}));
        assert!(!writes_nothing(&live, &patched(&live), &crds(true), "csa", crd()), "conditions change owner");
    }

    #[test]
    fn a_false_the_server_omits_is_no_write() {
        let live = live("csa", json!({"f:acceptedNames": {"f:kind": {}}, "f:conditions": {}}));
        let mut other = patched(&live);
        other["spec"]["preserveUnknownFields"] = json!(false);
        assert!(writes_nothing(&live, &other, &crds(true), "csa", crd()));
        other["spec"]["preserveUnknownFields"] = json!(true);
        assert!(!writes_nothing(&live, &other, &crds(true), "csa", crd()));
    }

    #[test]
    fn quantities_of_the_same_amount_are_no_write() {
        let deployment = |cpu: Value, image: &str| {
            json!({"spec": {"template": {"spec": {"containers": [
                {"name": "a", "image": image, "resources": {"limits": {"cpu": cpu, "memory": "512Mi"}}}
            ]}}}})
        };
        let (rt, node) = (
            client::resource::fixture("apps", "v1", "deployments", "Deployment", true),
            schema("apps/v1", "Deployment"),
        );
        let live = deployment(json!("1"), "x:1");
        assert!(writes_nothing(&live, &deployment(json!("1000m"), "x:1"), &rt, "csa", node));
        assert!(writes_nothing(&live, &deployment(json!(1), "x:1"), &rt, "csa", node));
        assert!(!writes_nothing(&live, &deployment(json!("999m"), "x:1"), &rt, "csa", node));
        assert!(!writes_nothing(&live, &deployment(json!("1"), "x:2"), &rt, "csa", node));
        let quota = |pods: Value| json!({"spec": {"hard": {"pods": pods}}});
        let rt = client::resource::fixture("", "v1", "resourcequotas", "ResourceQuota", true);
        assert!(writes_nothing(&quota(json!("100")), &quota(json!(100)), &rt, "csa", schema("v1", "ResourceQuota")));
        // A string that is no quantity is compared as it is, though it reads as one.
        let config = |v: &str| json!({"data": {"v": v}});
        let rt = client::resource::fixture("", "v1", "configmaps", "ConfigMap", true);
        assert!(!writes_nothing(&config("1"), &config("1.0"), &rt, "csa", schema("v1", "ConfigMap")));
    }

    #[test]
    fn patches_that_set_anything_else_are_not_looked_into() {
        let may = |patch: Value, node| may_write_nothing(&Patch::Strategic(patch), node);
        assert!(may(json!({"metadata": {"creationTimestamp": null}, "status": {"conditions": []}}), crd()));
        assert!(may(json!({"status": {"conditions": []}}), crd()));
        assert!(may(json!({"spec": {"preserveUnknownFields": false}, "status": {}}), crd()));
        assert!(!may(json!({"metadata": {"creationTimestamp": null, "labels": {"a": "b"}}}), crd()));
        assert!(!may(json!({"spec": {"group": "g"}, "status": {}}), crd()));
        assert!(may(json!({"data": null}), schema("v1", "ConfigMap")));
        assert!(!may(json!({"data": {"v": "2"}}), schema("v1", "ConfigMap")));
        let deployment = schema("apps/v1", "Deployment");
        let resources = json!({"spec": {"template": {"spec": {
            "$setElementOrder/containers": [{"name": "manager"}],
            "containers": [{"name": "manager", "resources": {"limits": {"cpu": "1000m"}}}]}}}});
        assert!(may(resources, deployment));
        let image = json!({"spec": {"template": {"spec": {"containers": [{"name": "manager", "image": "x:2"}]}}}});
        assert!(!may(image, deployment));
        assert!(!may(json!({"spec": {"replicas": 2}}), deployment));
        assert!(!may(json!({"spec": {"$patch": "replace"}}), deployment));
    }

    #[test]
    fn any_other_difference_is_a_write() {
        let live = live("csa", json!({"f:acceptedNames": {"f:kind": {}}, "f:conditions": {}}));
        for (pointer, value) in [
            ("/metadata/annotations/x", json!("2")),
            ("/metadata/labels", json!({})),
            ("/spec/group", json!("h")),
            ("/spec", Value::Null),
            ("/data", json!(1)),
        ] {
            let mut other = live.clone();
            match other.pointer_mut(pointer) {
                Some(field) => *field = value,
                None => {
                    let (parent, key) = pointer.rsplit_once('/').unwrap();
                    other.pointer_mut(parent).unwrap()[key] = value;
                }
            }
            assert!(!writes_nothing(&live, &other, &crds(true), "csa", crd()), "{pointer}");
        }
    }
}
