//! Shrinks an OpenAPI document to what patching and validation need, so that a cached copy is
//! small and quick to read: structure (`properties`, `required`, `items`, `additionalProperties`,
//! `$ref`, `allOf`, `type`), the int-or-string format, the patch and structural extensions and the kinds
//! of definitions. Descriptions, other formats and defaults go.

use serde_json::{Map, Value};

const KEPT: [&str; 7] = [
    "x-kubernetes-patch-strategy",
    "x-kubernetes-patch-merge-key",
    "x-kubernetes-list-type",
    "x-kubernetes-list-map-keys",
    "x-kubernetes-group-version-kind",
    "x-kubernetes-preserve-unknown-fields",
    "x-kubernetes-int-or-string",
];

/// Marks what this pruning keeps, so that a copy cached by an older kubeupd, which kept less, is
/// not mistaken for one.
pub const PRUNED_FORMAT: (&str, u64) = ("x-kubeupd-pruned", 3);

/// The definitions (v2 `definitions`, v3 `components.schemas` or `$defs`) of `document`, pruned,
/// as a document of `definitions` marked with [`PRUNED_FORMAT`].
pub fn prune(document: &Value) -> Value {
    let definitions = document
        .get("definitions")
        .or_else(|| document.pointer("/components/schemas"))
        .or_else(|| document.get("$defs"))
        .and_then(Value::as_object);
    let pruned: Map<String, Value> =
        definitions.into_iter().flatten().map(|(name, body)| (name.clone(), prune_schema(body))).collect();
    serde_json::json!({ "definitions": pruned, PRUNED_FORMAT.0: PRUNED_FORMAT.1 })
}

/// The definitions of a pruned document that the kind `kind` in `api_version` reaches (its own and
/// every one a `$ref` leads to), as a document of its own: what patching or checking that kind
/// needs, a small part of a server's whole document. `None` when the document lacks the kind.
pub fn kind_subset(pruned: &Value, api_version: &str, kind: &str) -> Option<Value> {
    let definitions = pruned.get("definitions")?.as_object()?;
    let (group, version) = api_version.rsplit_once('/').unwrap_or(("", api_version));
    let describes =
        |body: &Value| {
            body.get("x-kubernetes-group-version-kind").and_then(Value::as_array).into_iter().flatten().any(|gvk| {
                gvk["group"].as_str().unwrap_or("") == group && gvk["version"] == version && gvk["kind"] == kind
            })
        };
    let mut pending: Vec<&str> =
        definitions.iter().filter(|(_, body)| describes(body)).map(|(name, _)| name.as_str()).collect();
    if pending.is_empty() {
        return None;
    }
    let mut subset = Map::new();
    while let Some(name) = pending.pop() {
        if subset.contains_key(name) {
            continue;
        }
        let Some(body) = definitions.get(name) else { continue };
        collect_references(body, &mut pending);
        subset.insert(name.to_string(), body.clone());
    }
    Some(serde_json::json!({ "definitions": subset, PRUNED_FORMAT.0: PRUNED_FORMAT.1 }))
}

/// Adds the definition names of every `$ref` in `body` to `names`.
fn collect_references<'a>(body: &'a Value, names: &mut Vec<&'a str>) {
    match body {
        Value::Object(map) => {
            for (key, value) in map {
                match (key.as_str(), value) {
                    ("$ref", Value::String(reference)) => names.extend(reference.rsplit('/').next()),
                    _ => collect_references(value, names),
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|item| collect_references(item, names)),
        _ => {}
    }
}

fn prune_schema(body: &Value) -> Value {
    let Some(body) = body.as_object() else { return body.clone() };
    let mut kept = Map::new();
    for (key, value) in body {
        let value = match key.as_str() {
            "$ref" | "type" | "additionalProperties" if !value.is_object() => value.clone(),
            "format" if value == "int-or-string" => value.clone(),
            "required" if value.is_array() => value.clone(),
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

    #[test]
    fn a_kinds_subset_holds_every_definition_it_reaches_and_no_other() {
        let document = serde_json::json!({"definitions": {
            "apps.Deployment": {"x-kubernetes-group-version-kind": [{"group": "apps", "version": "v1", "kind": "Deployment"}],
                "properties": {"spec": {"$ref": "#/definitions/apps.Spec"}}},
            "apps.Spec": {"properties": {"template": {"allOf": [{"$ref": "#/definitions/core.Template"}]},
                "self": {"$ref": "#/definitions/apps.Spec"}}},
            "core.Template": {"properties": {"labels": {"type": "object"}}},
            "core.ConfigMap": {"x-kubernetes-group-version-kind": [{"group": "", "version": "v1", "kind": "ConfigMap"}]}
        }});
        let subset = kind_subset(&document, "apps/v1", "Deployment").unwrap();
        let mut names: Vec<&String> = subset["definitions"].as_object().unwrap().keys().collect();
        names.sort();
        assert_eq!(names, ["apps.Deployment", "apps.Spec", "core.Template"]);
        assert_eq!(subset[PRUNED_FORMAT.0], PRUNED_FORMAT.1);
        assert!(kind_subset(&document, "v1", "ConfigMap").is_some());
        assert!(kind_subset(&document, "apps/v1", "StatefulSet").is_none());
    }
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
