//! kustomize's strategic merge patch, as kyaml's merge walk (merge2 over walk) makes it, not as
//! the API server's engine (`crate::merge::strategic`) does: the walk visits the whole object,
//! patched or not; it merges only the lists kyaml's own schema marks `merge`, matching elements
//! by every one of their keys; `$patch` directives clear what they delete; `null` clears a field;
//! `$setElementOrder`, `$retainKeys` and `$deleteFromPrimitiveList` are plain fields to it.

mod associative;
mod schema;

use std::sync::Arc;

use serde_json::{Map, Value};

use self::schema::{Document, ValueSchema};
use crate::schema::OpenApiSchema;

const DIRECTIVE: &str = "$patch";

/// Why kyaml's walk refused a patch, in kyaml's words.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("wrong node kind: expected {expected} but got {found}: node contents:\n{contents}")]
    WrongKind { expected: &'static str, found: &'static str, contents: String },
    #[error("unknown patch strategy '{0}'")]
    UnknownDirective(String),
}

/// `patch` merged into `object` as kustomize merges a strategic merge patch, with the build's
/// custom schema if it has one (else kyaml's built-in one). `None` when the patch deletes it.
pub fn merge(object: Value, patch: Value, custom: Option<&Arc<OpenApiSchema>>) -> Result<Option<Value>, Error> {
    let walker = Walker { document: Document::new(custom) };
    // A `$patch: replace` at the top makes a new object, which kustomize drops: its resource
    // stays as it was.
    if !object.is_null() && patch.as_object().is_some_and(|patch| directive_text(patch).as_deref() == Some("replace")) {
        walker.walk(Some(object.clone()), Origin::Value(patch), None)?;
        return Ok(Some(object));
    }
    walker.walk(Some(object), Origin::Value(patch), None)
}

/// kyaml's built-in OpenAPI document, to which a custom schema's definitions may be added.
pub fn builtin_document() -> serde_json::Value {
    schema::document()
}

/// Compiles kyaml's built-in schema now, on the calling thread, so that it is ready (or nearly)
/// when the first patch needs it.
pub fn compile_builtin_schema() {
    schema::builtin();
}

/// What a `$patch` directive asks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Directive {
    Merge,
    Replace,
    Delete,
}

impl Directive {
    fn parse(text: &str) -> Result<Self, Error> {
        match text {
            "merge" => Ok(Directive::Merge),
            "replace" => Ok(Directive::Replace),
            "delete" => Ok(Directive::Delete),
            other => Err(Error::UnknownDirective(other.to_string())),
        }
    }
}

/// The walk over the object (the destination) and the patch (the origin), as kyaml's `Walker`
/// with merge2's `Merger` as its visitor.
struct Walker<'a> {
    document: Document<'a>,
}

/// The patch's side of a walk.
enum Origin {
    /// The patch has no such value.
    Missing,
    Value(Value),
    /// The value is the patch's own (the object had none): kyaml walks it against itself, both
    /// sides one node, so that what it removes from one side is gone from the other.
    Dest,
}

impl<'a> Walker<'a> {
    /// The merged value, `None` to clear the field. `Some(Null)` is a `null` the object had and
    /// the patch left alone: kyaml keeps it.
    fn walk(
        &self,
        dest: Option<Value>,
        origin: Origin,
        schema: Option<ValueSchema<'a>>,
    ) -> Result<Option<Value>, Error> {
        let origin_value = match &origin {
            Origin::Value(value) => Some(value),
            Origin::Missing | Origin::Dest => None,
        };
        let schema = schema.or_else(|| self.document.for_object([dest.as_ref(), origin_value]));
        let kind = {
            let mut present = [dest.as_ref(), origin_value].into_iter().flatten().filter(|value| !value.is_null());
            let kind = present.next().map(node_kind);
            if let Some(other) = present.find(|value| Some(node_kind(value)) != kind) {
                return Err(wrong_kind(kind.expect("a value was present"), other));
            }
            kind
        };
        match kind {
            None | Some(MAPPING) => self.walk_map(dest, origin, schema),
            Some(SEQUENCE) => match schema.as_ref().and_then(ValueSchema::merge_keys) {
                Some(keys) => associative::walk(self, dest, origin, schema.expect("keys come from it"), &keys),
                None => Ok(origin_or_dest(dest, origin)),
            },
            Some(_) => Ok(origin_or_dest(dest, origin)),
        }
    }

    fn walk_map(
        &self,
        dest: Option<Value>,
        origin: Origin,
        schema: Option<ValueSchema<'a>>,
    ) -> Result<Option<Value>, Error> {
        let (merged, origin) = match (dest, origin) {
            // Nothing to merge into: the patch's map, walked against itself, unless it deletes
            // itself. kyaml ignores a directive it does not know here, and keeps it as a field.
            (None | Some(Value::Null), Origin::Value(Value::Object(mut origin))) => {
                if let Ok(Some(Directive::Delete)) = take_directive(&mut origin) {
                    return Ok(None);
                }
                (origin, Origin::Dest)
            }
            (Some(Value::Null), Origin::Missing) => return Ok(Some(Value::Null)),
            (Some(Value::Object(dest)), Origin::Missing) => (dest, Origin::Missing),
            (Some(Value::Object(mut dest)), Origin::Dest) => match take_directive(&mut dest)? {
                Some(Directive::Delete) => return Ok(None),
                _ => (dest, Origin::Dest),
            },
            (Some(Value::Object(dest)), Origin::Value(Value::Object(mut origin))) => {
                match take_directive(&mut origin)? {
                    Some(Directive::Delete) => return Ok(None),
                    Some(Directive::Replace) => (origin, Origin::Dest),
                    Some(Directive::Merge) | None => (dest, Origin::Value(Value::Object(origin))),
                }
            }
            // Nothing (missing or `null`) on both sides, or a `null` in the patch: cleared.
            _ => return Ok(None),
        };
        self.walk_fields(merged, origin, schema).map(|merged| Some(Value::Object(merged)))
    }

    /// Every field of either side, in name order, merged into `merged` (or cleared from it).
    fn walk_fields(
        &self,
        mut merged: Map<String, Value>,
        mut origin: Origin,
        schema: Option<ValueSchema<'a>>,
    ) -> Result<Map<String, Value>, Error> {
        let mut keys: Vec<String> = merged.keys().cloned().collect();
        if let Origin::Value(Value::Object(origin)) = &origin {
            keys.extend(origin.keys().cloned());
            keys.sort();
            keys.dedup();
        }
        for key in keys {
            let dest = merged.remove(&key);
            let field_origin = match &mut origin {
                Origin::Value(Value::Object(origin)) => origin.remove(&key).map_or(Origin::Missing, Origin::Value),
                Origin::Dest => Origin::Dest,
                Origin::Missing | Origin::Value(_) => Origin::Missing,
            };
            let field_schema = schema.as_ref().and_then(|schema| schema.field(&key));
            if let Some(value) = self.walk(dest, field_origin, field_schema)? {
                merged.insert(key, value);
            }
        }
        Ok(merged)
    }
}

/// A scalar, or a list merged whole: the patch's value if it has one (`null` clearing it).
fn origin_or_dest(dest: Option<Value>, origin: Origin) -> Option<Value> {
    match origin {
        Origin::Value(Value::Null) => None,
        Origin::Value(origin) => Some(origin),
        Origin::Dest => dest.filter(|dest| !dest.is_null()),
        Origin::Missing => dest,
    }
}

/// Removes a map's `$patch` directive and says what it asks, if it has one.
fn take_directive(map: &mut Map<String, Value>) -> Result<Option<Directive>, Error> {
    let Some(text) = directive_text(map) else { return Ok(None) };
    let directive = Directive::parse(&text)?;
    map.remove(DIRECTIVE);
    Ok(Some(directive))
}

fn directive_text(map: &Map<String, Value>) -> Option<String> {
    map.get(DIRECTIVE).map(scalar_text)
}

/// What kyaml compares of a value: a scalar's text; nothing for `null`, maps and lists.
fn scalar_text(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        Value::Number(number) => number.to_string(),
        Value::Bool(flag) => flag.to_string(),
        Value::Null | Value::Array(_) | Value::Object(_) => String::new(),
    }
}

/// The empty value kyaml's matching skips: `null`, an empty map or list, or no value.
fn is_nil_or_empty(value: &Value) -> bool {
    match value {
        Value::Null => true,
        Value::Object(map) => map.is_empty(),
        Value::Array(list) => list.is_empty(),
        _ => false,
    }
}

fn is_null_or_empty_map(value: &Value) -> bool {
    value.is_null() || value.as_object().is_some_and(Map::is_empty)
}

const MAPPING: &str = "MappingNode";
const SEQUENCE: &str = "SequenceNode";
const SCALAR: &str = "ScalarNode";

/// The YAML node kind of a value, in kyaml's words.
fn node_kind(value: &Value) -> &'static str {
    match value {
        Value::Object(_) => MAPPING,
        Value::Array(_) => SEQUENCE,
        _ => SCALAR,
    }
}

fn wrong_kind(expected: &'static str, found: &Value) -> Error {
    Error::WrongKind { expected, found: node_kind(found), contents: crate::output::to_yaml(found) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn deployment(container: Value) -> Value {
        json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"},
               "spec": {"template": {"spec": {"containers": [container]}}}})
    }

    fn merged(object: Value, patch: Value) -> Value {
        merge(object, patch, None).unwrap().unwrap()
    }

    #[test]
    fn a_port_is_matched_by_every_key_it_has() {
        let ports = json!([{"containerPort": 80, "protocol": "TCP"}, {"containerPort": 80, "protocol": "UDP"}]);
        let object = deployment(json!({"name": "a", "ports": ports}));
        let patch =
            deployment(json!({"name": "a", "ports": [{"containerPort": 80, "protocol": "UDP", "$patch": "delete"}]}));
        let ports = &merged(object, patch)["spec"]["template"]["spec"]["containers"][0]["ports"];
        assert_eq!(*ports, json!([{"containerPort": 80, "protocol": "TCP"}]));
    }

    #[test]
    fn elements_sharing_a_key_become_one_even_where_the_patch_does_not_reach() {
        let env = json!([{"name": "A", "value": "1"}, {"name": "B"}, {"name": "A", "value": "2"}]);
        let patched = merged(deployment(json!({"name": "c", "env": env})), json!({"metadata": {"labels": {"x": "y"}}}));
        let env = &patched["spec"]["template"]["spec"]["containers"][0]["env"];
        assert_eq!(*env, json!([{"name": "A", "value": "2"}, {"name": "B"}]));
    }

    #[test]
    fn null_and_delete_clear_fields_and_other_directives_are_fields() {
        let object = json!({"kind": "Widget", "a": {"b": 1}, "c": 2, "d": {"e": 3}});
        let patch = json!({"a": {"$patch": "delete"}, "c": null, "$retainKeys": ["d"], "d": {"e": null, "f": null}});
        assert_eq!(merged(object, patch), json!({"kind": "Widget", "$retainKeys": ["d"], "d": {}}));
    }

    #[test]
    fn a_directive_kyaml_does_not_know_is_refused() {
        let err = merge(json!({"a": {}}), json!({"a": {"$patch": "retain"}}), None).unwrap_err();
        assert_eq!(err.to_string(), "unknown patch strategy 'retain'");
    }
}
