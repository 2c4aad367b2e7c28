//! Properties of the strategic merge engine over documents shaped by a schema: a patch created
//! from two documents turns one into the other, a three-way patch with nothing changed on the
//! server is the two-way patch, and no conflict is reported where there is none.

use kubeupd::merge::strategic;
use kubeupd::schema::{OpenApiSchema, SchemaNode, builtin};
use proptest::collection::{btree_map, btree_set, vec};
use proptest::prelude::*;
use serde_json::{Map, Value, json};

fn merge_item_schema() -> OpenApiSchema {
    let document =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/testdata/strategic-merge/schema.json")).unwrap();
    OpenApiSchema::from_document(&serde_json::from_str(&document).unwrap()).unwrap()
}

fn word() -> impl Strategy<Value = String> {
    prop::sample::select(vec!["a", "b", "c", "d", "e", "f"]).prop_map(String::from)
}

/// Optional fields: each key is present or not.
fn fields(entries: Vec<(&'static str, BoxedStrategy<Value>)>) -> BoxedStrategy<Value> {
    let parts: Vec<BoxedStrategy<Option<(&'static str, Value)>>> = entries
        .into_iter()
        .map(|(key, value)| prop::option::of(value.prop_map(move |value| (key, value))).boxed())
        .collect();
    parts
        .prop_map(|present| {
            Value::Object(present.into_iter().flatten().map(|(k, v)| (k.to_string(), v)).collect::<Map<_, _>>())
        })
        .boxed()
}

/// A list of maps with distinct merge keys, in any order.
fn keyed_list(key: &'static str, item: BoxedStrategy<Value>) -> BoxedStrategy<Value> {
    (btree_set(word(), 0..4), vec(item, 4))
        .prop_flat_map(|(names, items)| {
            let list: Vec<Value> = names
                .into_iter()
                .zip(items)
                .map(|(name, mut item)| {
                    item.as_object_mut().unwrap().insert(key.to_string(), json!(name));
                    item
                })
                .collect();
            Just(list).prop_shuffle()
        })
        .prop_map(Value::Array)
        .boxed()
}

/// A set of ints, sorted: Kubernetes sorts a merged list of scalars in place before deciding
/// whether its order changed, so a list that is only reordered yields no patch (see the unit test
/// in src/merge/strategic/diff.rs) and the round trip would not hold for shuffled sets.
fn int_set() -> BoxedStrategy<Value> {
    btree_set(0..6i64, 0..4).prop_map(|set| json!(set.into_iter().collect::<Vec<_>>())).boxed()
}

fn string_map() -> BoxedStrategy<Value> {
    btree_map(word(), word(), 0..4).prop_map(|map| json!(map)).boxed()
}

fn merge_item(depth: u32) -> BoxedStrategy<Value> {
    let leaf = || {
        fields(vec![
            ("value", word().prop_map(Value::String).boxed()),
            ("other", word().prop_map(Value::String).boxed()),
        ])
    };
    let mut entries = vec![
        ("value", word().prop_map(Value::String).boxed()),
        ("other", word().prop_map(Value::String).boxed()),
        ("mergingIntList", int_set()),
        ("nonMergingIntList", vec(0..6i64, 0..4).prop_map(|list| json!(list)).boxed()),
        ("simpleMap", string_map()),
        (
            "retainKeysMap",
            fields(vec![
                ("name", word().prop_map(Value::String).boxed()),
                ("value", word().prop_map(Value::String).boxed()),
                ("simpleMap", string_map()),
                ("mergingIntList", int_set()),
            ]),
        ),
    ];
    let child = if depth == 0 { leaf() } else { merge_item(depth - 1) };
    entries.push(("mergingList", keyed_list("name", child.clone())));
    entries.push(("retainKeysMergingList", keyed_list("name", leaf())));
    entries.push(("nonMergingList", vec(leaf(), 0..3).prop_map(Value::Array).boxed()));
    fields(entries)
}

fn container() -> BoxedStrategy<Value> {
    fields(vec![
        ("image", word().prop_map(Value::String).boxed()),
        ("args", vec(word(), 0..3).prop_map(|list| json!(list)).boxed()),
        ("env", keyed_list("name", fields(vec![("value", word().prop_map(Value::String).boxed())]))),
        ("ports", {
            (btree_set(1..6i64, 0..3), vec(word(), 3))
                .prop_flat_map(|(ports, names)| {
                    let list: Vec<Value> = ports
                        .into_iter()
                        .zip(names)
                        .map(|(port, name)| json!({"containerPort": port, "name": name}))
                        .collect();
                    Just(list).prop_shuffle()
                })
                .prop_map(Value::Array)
                .boxed()
        }),
    ])
}

fn deployment() -> BoxedStrategy<Value> {
    (
        prop::option::of(0..5i64),
        string_map(),
        keyed_list("name", container()),
        prop::option::of(prop::sample::select(vec!["Recreate", "RollingUpdate"])),
    )
        .prop_map(|(replicas, labels, containers, strategy)| {
            let mut spec = json!({"template": {"spec": {"containers": containers}}});
            if let Some(replicas) = replicas {
                spec["replicas"] = json!(replicas);
            }
            if let Some(strategy) = strategy {
                spec["strategy"] = if strategy == "Recreate" {
                    json!({"type": "Recreate"})
                } else {
                    json!({"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 1}})
                };
            }
            json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "x", "labels": labels}, "spec": spec})
        })
        .boxed()
}

fn deployment_schema() -> SchemaNode<'static> {
    builtin().for_kind("apps/v1", "Deployment").unwrap()
}

fn check_two_way(schema: &SchemaNode<'_>, original: &Value, modified: &Value) -> Result<(), TestCaseError> {
    let patch =
        strategic::create_two_way(original, modified, schema).map_err(|err| TestCaseError::fail(err.to_string()))?;
    let result = strategic::apply(original.clone(), patch.clone(), schema)
        .map_err(|err| TestCaseError::fail(err.to_string()))?;
    prop_assert_eq!(&result, modified, "patch {}", patch);
    Ok(())
}

fn check_three_way(schema: &SchemaNode<'_>, original: &Value, modified: &Value) -> Result<(), TestCaseError> {
    let two_way = strategic::create_two_way(original, modified, schema).unwrap();
    let three_way = strategic::create_three_way(original, modified, original, schema, false)
        .map_err(|err| TestCaseError::fail(format!("unexpected error: {err}")))?;
    prop_assert_eq!(&three_way, &two_way);
    // The server already has the new configuration: nothing conflicts, and applying changes nothing.
    let three_way = strategic::create_three_way(original, modified, modified, schema, false)
        .map_err(|err| TestCaseError::fail(format!("unexpected error: {err}")))?;
    let result = strategic::apply(modified.clone(), three_way, schema).unwrap();
    prop_assert_eq!(&result, modified);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn two_way_patches_turn_original_into_modified(original in merge_item(1), modified in merge_item(1)) {
        let schema = merge_item_schema();
        check_two_way(&schema.definition("mergeItem").unwrap(), &original, &modified)?;
    }

    #[test]
    fn three_way_patches_agree_with_two_way_ones(original in merge_item(1), modified in merge_item(1)) {
        let schema = merge_item_schema();
        check_three_way(&schema.definition("mergeItem").unwrap(), &original, &modified)?;
    }

    #[test]
    fn deployments_round_trip(original in deployment(), modified in deployment()) {
        check_two_way(&deployment_schema(), &original, &modified)?;
        check_three_way(&deployment_schema(), &original, &modified)?;
    }

    #[test]
    fn changes_by_others_to_other_fields_do_not_conflict(original in deployment(), modified in deployment(), annotation in word()) {
        // Another writer adds an annotation the configuration never mentions.
        let mut current = original.clone();
        current["metadata"]["annotations"] = json!({ "other-writer": annotation });
        let patch = strategic::create_three_way(&original, &modified, &current, &deployment_schema(), false);
        prop_assert!(patch.is_ok(), "{:?}", patch.err());
        let result = strategic::apply(current, patch.unwrap(), &deployment_schema()).unwrap();
        prop_assert_eq!(&result["metadata"]["annotations"]["other-writer"], &json!(annotation));
        prop_assert_eq!(&result["spec"], &modified["spec"]);
    }
}
