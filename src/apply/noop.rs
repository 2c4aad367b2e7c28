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

/// The document of `patch` if it may write nothing, the only patches [`writes_nothing`] looks
/// into: it sets a status, the creation time, and elsewhere nothing but deletions, `false`s and
/// quantities (merge keys aside). Anything else in a three-way patch is a change, and applying
/// every patch to find out would cost every configured object a copy and a merge.
pub(super) fn may_write_nothing<'p>(patch: &'p Patch, schema: SchemaNode<'_>) -> Option<&'p Value> {
    let (Patch::Strategic(document) | Patch::Merge(document)) = patch else { return None };
    let may = document.as_object().is_some_and(|fields| {
        fields.iter().all(|(field, value)| match field.as_str() {
            "status" => true,
            "metadata" => {
                value.as_object().is_some_and(|metadata| metadata.keys().all(|key| key == "creationTimestamp"))
            }
            _ => sets_only_what_may_be_stored(schema, field, value),
        })
    });
    may.then_some(document)
}

/// The part of `live` that applying `patch` (a strategic or merge patch's document) can change:
/// the fields the patch names, down through the maps it names. A map of the patch that holds a
/// directive (`$patch`, `$retainKeys`, `$setElementOrder/...`) takes the live map whole, and a
/// list is taken whole. Applied to this part, the patch gives what it gives those fields of the
/// whole object; a patch that hands a definition's status to its manager then copies a few fields
/// rather than its megabyte of schema and of the fields' owners.
pub(super) fn reach(live: &Value, patch: &Value) -> Value {
    match (live, patch) {
        (Value::Object(live), Value::Object(patch)) if !patch.keys().any(|key| key.starts_with('$')) => Value::Object(
            (patch.iter()).filter_map(|(key, value)| Some((key.clone(), reach(live.get(key)?, value)))).collect(),
        ),
        _ => live.clone(),
    }
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

/// Whether sending a patch would write nothing to `live`, the patch making `patched` of
/// `before` (the part of `live` it can change, [`reach`], or `live` whole). A write to the
/// object keeps the status of a type with a status subresource, and the creation time of any
/// object, as they were. A server before 1.22 still gives the writer, `status_writer`, the status
/// fields it sends unless it owns them already (as `live` tells), and that is a write; a later
/// one gives them nobody (`None`). Elsewhere a difference is no write only where `schema` says
/// the server stores both sides alike.
pub(super) fn writes_nothing(
    live: &Value,
    before: &Value,
    patched: &Value,
    rt: &client::ResourceType,
    status_writer: Option<&str>,
    schema: SchemaNode<'_>,
) -> bool {
    let mut differences = Vec::new();
    differing_paths(before, patched, &mut Vec::new(), &mut differences);
    differences.iter().all(|path| match path.as_slice() {
        [metadata, ..] if metadata == "metadata" => path.len() == 2 && path[1] == "creationTimestamp",
        [status, ..] if status == "status" && rt.status_subresource => {
            status_writer.is_none_or(|manager| ownership::updater_holds(live, manager, path))
        }
        [parents @ .., field] => {
            let mut node = schema;
            let (mut before, mut after) = (Some(before), Some(patched));
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
    use proptest::prelude::*;
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
        assert!(writes_nothing(&live, &live, &patched(&live), &crds(true), Some("csa"), crd()));
        assert!(
            !writes_nothing(&live, &live, &patched(&live), &crds(false), Some("csa"), crd()),
            "without a subresource the status is written"
        );
        assert!(
            !writes_nothing(&live, &live, &patched(&live), &crds(true), Some("other"), crd()),
            "another manager takes the fields over"
        );
    }

    #[test]
    fn status_fields_the_manager_does_not_own_yet_are_a_write() {
        let live = live("csa", json!({"f:acceptedNames": {"f:kind": {}}}));
        assert!(
            !writes_nothing(&live, &live, &patched(&live), &crds(true), Some("csa"), crd()),
            "conditions change owner"
        );
    }

    #[test]
    fn status_fields_no_writer_is_given_are_no_write() {
        let live = live("kube-apiserver", json!({"f:acceptedNames": {"f:kind": {}}, "f:conditions": {}}));
        assert!(writes_nothing(&live, &live, &patched(&live), &crds(true), None, crd()));
        assert!(
            !writes_nothing(&live, &live, &patched(&live), &crds(false), None, crd()),
            "without a subresource the status is written"
        );
    }

    #[test]
    fn a_false_the_server_omits_is_no_write() {
        let live = live("csa", json!({"f:acceptedNames": {"f:kind": {}}, "f:conditions": {}}));
        let mut other = patched(&live);
        other["spec"]["preserveUnknownFields"] = json!(false);
        assert!(writes_nothing(&live, &live, &other, &crds(true), Some("csa"), crd()));
        other["spec"]["preserveUnknownFields"] = json!(true);
        assert!(!writes_nothing(&live, &live, &other, &crds(true), Some("csa"), crd()));
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
        assert!(writes_nothing(&live, &live, &deployment(json!("1000m"), "x:1"), &rt, Some("csa"), node));
        assert!(writes_nothing(&live, &live, &deployment(json!(1), "x:1"), &rt, Some("csa"), node));
        assert!(!writes_nothing(&live, &live, &deployment(json!("999m"), "x:1"), &rt, Some("csa"), node));
        assert!(!writes_nothing(&live, &live, &deployment(json!("1"), "x:2"), &rt, Some("csa"), node));
        let quota = |pods: Value| json!({"spec": {"hard": {"pods": pods}}});
        let rt = client::resource::fixture("", "v1", "resourcequotas", "ResourceQuota", true);
        let live = quota(json!("100"));
        assert!(writes_nothing(&live, &live, &quota(json!(100)), &rt, Some("csa"), schema("v1", "ResourceQuota")));
        // A string that is no quantity is compared as it is, though it reads as one.
        let config = |v: &str| json!({"data": {"v": v}});
        let rt = client::resource::fixture("", "v1", "configmaps", "ConfigMap", true);
        let live = config("1");
        assert!(!writes_nothing(&live, &live, &config("1.0"), &rt, Some("csa"), schema("v1", "ConfigMap")));
    }

    #[test]
    fn patches_that_set_anything_else_are_not_looked_into() {
        let may = |patch: Value, node| may_write_nothing(&Patch::Strategic(patch), node).is_some();
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
            assert!(!writes_nothing(&live, &live, &other, &crds(true), Some("csa"), crd()), "{pointer}");
        }
    }

    #[test]
    fn a_status_patch_reaches_only_the_fields_it_names() {
        let mut live = live("csa", json!({"f:acceptedNames": {"f:kind": {}}}));
        live["spec"]["versions"] = json!([{"name": "v1", "schema": {"openAPIV3Schema": {"type": "object"}}}]);
        let patch = json!({"metadata": {"creationTimestamp": null}, "status": {"acceptedNames": {"kind": ""}}});
        assert_eq!(
            reach(&live, &patch),
            json!({
                "metadata": {"creationTimestamp": "2026-01-01T00:00:00Z"},
                "status": {"acceptedNames": {"kind": "A"}}
            })
        );
        // A directive's map and a list are taken whole; a field the object lacks is left out.
        let live = json!({"spec": {"a": 1, "b": {"c": 2}}, "list": [{"a": 1}], "x": 1});
        let patch = json!({"spec": {"$patch": "replace", "a": 2}, "list": [{"a": 2}], "absent": {"a": 1}});
        assert_eq!(reach(&live, &patch), json!({"spec": {"a": 1, "b": {"c": 2}}, "list": [{"a": 1}]}));
    }

    #[test]
    fn a_status_handed_over_or_kept_is_told_apart_from_the_part_alone() {
        for (owned, nothing) in [
            (json!({"f:acceptedNames": {"f:kind": {}}, "f:conditions": {}}), true),
            (json!({"f:acceptedNames": {"f:kind": {}}}), false),
        ] {
            let live = live("csa", owned);
            let patch = Patch::Strategic(json!({
                "metadata": {"creationTimestamp": null},
                "status": {"acceptedNames": {"kind": ""}, "conditions": []}
            }));
            let document = may_write_nothing(&patch, crd()).expect("a status and the creation time");
            let before = reach(&live, document);
            let patched = patch.apply(before.clone(), Some(crd())).unwrap();
            assert_eq!(writes_nothing(&live, &before, &patched, &crds(true), Some("csa"), crd()), nothing);
        }
    }

    /// Documents of a few keys, nested, with lists and nulls; patches of the same keys that may
    /// also carry `$patch` and `$retainKeys`.
    fn documents(directives: bool) -> impl Strategy<Value = Value> {
        let key = prop::sample::select(vec!["a", "b", "c"]).prop_map(String::from);
        let leaf = prop_oneof![Just(Value::Null), (0..3i64).prop_map(Value::from), Just(json!("x"))];
        leaf.prop_recursive(3, 24, 3, move |inner| {
            let directive = if directives {
                prop_oneof![
                    4 => Just(None),
                    1 => prop::sample::select(vec!["replace", "delete"]).prop_map(|d| Some(("$patch", json!(d)))),
                    1 => prop::sample::subsequence(vec!["a", "b", "c"], 0..3)
                        .prop_map(|keys| Some(("$retainKeys", json!(keys)))),
                ]
                .boxed()
            } else {
                Just(None).boxed()
            };
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..3).prop_map(Value::Array),
                (prop::collection::btree_map(key.clone(), inner, 0..3), directive).prop_map(|(map, directive)| {
                    let mut map: serde_json::Map<String, Value> = map.into_iter().collect();
                    if let Some((key, value)) = directive {
                        map.insert(key.to_string(), value);
                    }
                    Value::Object(map)
                }),
            ]
        })
    }

    /// The differing paths of `before` and `after`, with the values on each side.
    fn differences(before: &Value, after: &Value) -> Vec<(Vec<String>, Option<Value>, Option<Value>)> {
        let mut paths = Vec::new();
        differing_paths(before, after, &mut Vec::new(), &mut paths);
        let at = |value: &Value, path: &[String]| path.iter().try_fold(value, |value, key| value.get(key)).cloned();
        (paths.into_iter())
            .map(|path| {
                let sides = (at(before, &path), at(after, &path));
                (path, sides.0, sides.1)
            })
            .collect()
    }

    proptest::proptest! {
        #[test]
        fn a_patch_changes_its_reach_as_it_changes_the_whole(
            live in documents(false),
            patch in documents(true),
            strategic in proptest::bool::ANY,
        ) {
            let patch = if strategic { Patch::Strategic(patch) } else { Patch::Merge(patch) };
            let (Patch::Strategic(document) | Patch::Merge(document)) = &patch else { unreachable!() };
            let schema = Some(SchemaNode::unknown());
            let Ok(whole) = patch.apply(live.clone(), schema) else { return Ok(()) };
            let before = reach(&live, document);
            let part = patch.apply(before.clone(), schema).expect("the whole was patched");
            proptest::prop_assert_eq!(differences(&live, &whole), differences(&before, &part));
        }
    }
}
