//! `crds`: OpenAPI definitions of custom kinds (Go's `OpenAPIDefinition` map, a type name to its
//! `Schema`), whose `x-kubernetes-*` extensions teach the transformers about the kinds' fields:
//! which fields name other objects, hold annotations or label selectors, or are the object's
//! identity. Read as kustomize's `LoadConfigFromCRDs` reads them.

use serde_json::{Map, Value};

use super::error::{Conflict, Error};
use super::types::field_specs::{Config, FieldSpec, NameReference, merge_specs};

/// The transformer configuration one definitions file adds (JSON, or YAML).
pub fn config(text: &str) -> Result<Config, Error> {
    let document: Value =
        if text.starts_with('{') { serde_json::from_str(text)? } else { serde_saphyr::from_str(text)? };
    let definitions = match document {
        Value::Object(map) => map,
        Value::Null => Map::new(),
        _ => return Err(Error::DefinitionsNotAMap),
    };
    let mut config = Config::default();
    for (name, definition) in &definitions {
        let properties = properties(definition);
        if !["kind", "apiVersion", "metadata"].iter().all(|field| properties.contains_key(*field)) {
            continue;
        }
        // kustomize takes the kind from the type name's last dotted part, without group or version.
        let kind = name.rsplit('.').next().unwrap_or(name);
        let mut visiting = vec![name.as_str()];
        add_fields(&mut config, kind, &definitions, name, &mut Vec::new(), &mut visiting)
            .map_err(Error::MergeCrdFieldSpec)?;
    }
    Ok(config)
}

/// A definition's `Schema.properties` (Go's JSON decoding matches `Schema` in any case).
fn properties(definition: &Value) -> &Map<String, Value> {
    static EMPTY: std::sync::OnceLock<Map<String, Value>> = std::sync::OnceLock::new();
    definition
        .as_object()
        .and_then(|map| map.iter().find(|(key, _)| key.eq_ignore_ascii_case("schema")))
        .and_then(|(_, schema)| schema.get("properties"))
        .and_then(Value::as_object)
        .unwrap_or_else(|| EMPTY.get_or_init(Map::new))
}

/// A string extension of a property (kustomize lowercases extension names).
fn extension<'a>(property: &'a Value, name: &str) -> Option<&'a str> {
    property.as_object()?.iter().find(|(key, _)| key.eq_ignore_ascii_case(name))?.1.as_str()
}

/// Adds the specs the properties of `type_name` (at `path` in a `kind` object) declare, following
/// `$ref`s into other definitions.
fn add_fields<'a>(
    config: &mut Config,
    kind: &str,
    definitions: &'a Map<String, Value>,
    type_name: &str,
    path: &mut Vec<String>,
    visiting: &mut Vec<&'a str>,
) -> Result<(), Conflict> {
    let Some(definition) = definitions.get(type_name) else { return Ok(()) };
    for (property_name, property) in properties(definition) {
        path.push(property_name.clone());
        let spec =
            |path: &[String]| FieldSpec { kind: kind.to_string(), ..FieldSpec::any_kind(&path.join("/"), false) };
        if extension(property, "x-kubernetes-annotation").is_some() {
            merge_specs(&mut config.common_annotations, &[spec(path)])?;
        }
        if extension(property, "x-kubernetes-label-selector").is_some() {
            merge_specs(&mut config.common_labels, &[spec(path)])?;
        }
        if extension(property, "x-kubernetes-identity").is_some() {
            merge_specs(&mut config.name_prefix, &[spec(path)])?;
        }
        if let (Some(version), Some(referred)) = (
            extension(property, "x-kubernetes-object-ref-api-version"),
            extension(property, "x-kubernetes-object-ref-kind"),
        ) {
            let name_key = extension(property, "x-kubernetes-object-ref-name-key").unwrap_or("name");
            let mut name_path = path.clone();
            name_path.push(name_key.to_string());
            config.add_name_reference(&NameReference {
                group: String::new(),
                version: version.to_string(),
                kind: referred.to_string(),
                field_specs: vec![spec(&name_path)],
            })?;
        }
        if let Some((reference, _)) =
            property.get("$ref").and_then(Value::as_str).and_then(|reference| definitions.get_key_value(reference))
            && !visiting.contains(&reference.as_str())
        {
            visiting.push(reference);
            add_fields(config, kind, definitions, reference, path, visiting)?;
            visiting.pop();
        }
        path.pop();
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extensions_become_field_specs_of_the_kind_following_refs() {
        let definitions = r#"{
          "x.io/api/v1.Widget": {"Schema": {"properties": {
            "apiVersion": {}, "kind": {}, "metadata": {},
            "spec": {"$ref": "x.io/api/v1.WidgetSpec"}}}},
          "x.io/api/v1.WidgetSpec": {"schema": {"properties": {
            "secret": {"x-kubernetes-object-ref-api-version": "v1", "X-Kubernetes-Object-Ref-Kind": "Secret"},
            "owner": {"x-kubernetes-object-ref-api-version": "v1", "x-kubernetes-object-ref-kind": "ServiceAccount",
                      "x-kubernetes-object-ref-name-key": "account"},
            "notes": {"x-kubernetes-annotation": ""},
            "pods": {"x-kubernetes-label-selector": ""},
            "alias": {"x-kubernetes-identity": ""},
            "flagged": {"x-kubernetes-annotation": true},
            "self": {"$ref": "x.io/api/v1.WidgetSpec"}}}},
          "x.io/api/v1.NotAKind": {"Schema": {"properties": {"secret": {
            "x-kubernetes-object-ref-api-version": "v1", "x-kubernetes-object-ref-kind": "ConfigMap"}}}}
        }"#;
        let config = config(definitions).unwrap();
        let paths = |specs: &[FieldSpec]| -> Vec<String> {
            specs.iter().map(|spec| format!("{}:{}", spec.kind, spec.path.join("/"))).collect()
        };
        assert_eq!(paths(&config.common_annotations), ["Widget:spec/notes"]);
        assert_eq!(paths(&config.common_labels), ["Widget:spec/pods"]);
        assert_eq!(paths(&config.name_prefix), ["Widget:spec/alias"]);
        let mut references: Vec<String> = config
            .name_reference
            .iter()
            .map(|entry| format!("{}/{} <- {}", entry.version, entry.kind, paths(&entry.field_specs).join(",")))
            .collect();
        references.sort();
        assert_eq!(
            references,
            ["v1/Secret <- Widget:spec/secret/name", "v1/ServiceAccount <- Widget:spec/owner/account"]
        );
        assert!(super::config("[1]").is_err());
    }
}
