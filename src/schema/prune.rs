//! Shrinks an OpenAPI document to what patching needs, so that a cached copy is small and quick
//! to read: structure (`properties`, `items`, `additionalProperties`, `$ref`, `allOf`, `type`), the
//! patch extensions and the kinds of definitions. Descriptions, formats and defaults go.

use serde_json::{Map, Value};

const KEPT: [&str; 5] = [
    "x-kubernetes-patch-strategy",
    "x-kubernetes-patch-merge-key",
    "x-kubernetes-list-type",
    "x-kubernetes-list-map-keys",
    "x-kubernetes-group-version-kind",
];

/// The definitions (v2 `definitions`, v3 `components.schemas` or `$defs`) of `document`, pruned,
/// as a document of `definitions`.
pub fn prune(document: &Value) -> Value {
    let definitions = document
        .get("definitions")
        .or_else(|| document.pointer("/components/schemas"))
        .or_else(|| document.get("$defs"))
        .and_then(Value::as_object);
    let pruned: Map<String, Value> =
        definitions.into_iter().flatten().map(|(name, body)| (name.clone(), prune_schema(body))).collect();
    serde_json::json!({ "definitions": pruned })
}

fn prune_schema(body: &Value) -> Value {
    let Some(body) = body.as_object() else { return body.clone() };
    let mut kept = Map::new();
    for (key, value) in body {
        let value = match key.as_str() {
            "$ref" | "type" | "additionalProperties" if !value.is_object() => value.clone(),
            "items" | "additionalProperties" => prune_schema(value),
            "allOf" => Value::Array(value.as_array().into_iter().flatten().map(prune_schema).collect()),
            "properties" => Value::Object(
                value
                    .as_object()
                    .into_iter()
                    .flatten()
                    .map(|(name, property)| (name.clone(), prune_schema(property)))
                    .collect(),
            ),
            key if KEPT.contains(&key) => value.clone(),
            _ => continue,
        };
        kept.insert(key.clone(), value);
    }
    Value::Object(kept)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::{LookupPatchMeta, OpenApiSchema};
    use serde_json::json;

    #[test]
    fn pruning_keeps_every_answer() {
        let document = json!({"components": {"schemas": {
            "io.k8s.api.core.v1.PodSpec": {
                "description": "long text",
                "properties": {
                    "containers": {"type": "array", "description": "x", "items": {"allOf": [{"$ref": "#/components/schemas/io.k8s.api.core.v1.Container"}], "default": {}},
                                   "x-kubernetes-patch-merge-key": "name", "x-kubernetes-patch-strategy": "merge", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"]},
                    "nodeSelector": {"type": "object", "additionalProperties": {"type": "string", "default": ""}}
                },
                "x-kubernetes-group-version-kind": [{"group": "", "version": "v1", "kind": "PodSpecHolder"}]
            },
            "io.k8s.api.core.v1.Container": {"properties": {"env": {"type": "array", "items": {"type": "object"}, "x-kubernetes-patch-merge-key": "name", "x-kubernetes-patch-strategy": "merge"}}}
        }}});
        let pruned = prune(&document);
        assert!(!pruned.to_string().contains("description") && !pruned.to_string().contains("default"));
        for document in [&document, &pruned] {
            let schema = OpenApiSchema::from_document(document).unwrap();
            let pod = schema.for_kind("v1", "PodSpecHolder").unwrap();
            let (container, meta) = pod.lookup_list("containers").unwrap();
            assert_eq!(meta.merge_key(), "name");
            assert_eq!(meta.list_map_keys.to_vec(), vec!["name".to_string()]);
            assert_eq!(container.lookup_list("env").unwrap().1.merge_key(), "name");
            assert!(pod.lookup_field("nodeSelector").is_ok());
        }
    }
}
