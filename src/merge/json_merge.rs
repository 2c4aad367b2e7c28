//! JSON merge patch (RFC 7386): applying, creating from two documents, and the three-way patch
//! that `kubectl apply` sends for custom resources and kinds without patch metadata.

use serde_json::{Map, Value};

use super::error::{ErrorKind, MergeError};

/// Applies a JSON merge patch: `null` removes a key, objects merge, anything else replaces.
pub fn apply(mut document: Value, patch: &Value) -> Value {
    json_patch::merge(&mut document, patch);
    document
}

/// The merge patch that turns `original` into `modified`: changed and added keys, `null` for
/// removed ones; lists are replaced whole.
pub fn create_two_way(original: &Value, modified: &Value) -> Result<Value, MergeError> {
    Ok(Value::Object(diff(object(original, "original")?, object(modified, "modified")?)))
}

/// The three-way merge patch `kubectl apply` sends when there is no strategic patch metadata:
/// additions and changes from `current` (the live object) to `modified`, plus deletions from
/// `original` (the last applied configuration) to `modified`.
pub fn create_three_way(original: &Value, modified: &Value, current: &Value) -> Result<Value, MergeError> {
    let (original, modified, current) =
        (object(original, "original")?, object(modified, "modified")?, object(current, "current")?);
    let changes = keep_changes(diff(current, modified));
    let deletions = keep_deletions(diff(original, modified));
    if conflicts(&Value::Object(changes.clone()), &Value::Object(deletions.clone())) {
        let yaml = |map: &Map<String, Value>| serde_saphyr::to_string(map).unwrap_or_default();
        return Err(ErrorKind::Conflict { patch: yaml(&changes), changed: yaml(&deletions) }.into());
    }
    Ok(apply(Value::Object(deletions), &Value::Object(changes)))
}

fn object<'a>(value: &'a Value, what: &str) -> Result<&'a Map<String, Value>, MergeError> {
    static EMPTY: std::sync::OnceLock<Map<String, Value>> = std::sync::OnceLock::new();
    match value {
        Value::Object(map) => Ok(map),
        Value::Null => Ok(EMPTY.get_or_init(Map::new)),
        other => Err(ErrorKind::InvalidDocument(format!(
            "the {what} document is not a JSON object: {}",
            super::error::brief(other)
        ))
        .into()),
    }
}

fn diff(original: &Map<String, Value>, modified: &Map<String, Value>) -> Map<String, Value> {
    let mut patch = Map::new();
    for (key, after) in modified {
        match (original.get(key), after) {
            (Some(Value::Object(before)), Value::Object(after)) => {
                let nested = diff(before, after);
                if !nested.is_empty() {
                    patch.insert(key.clone(), Value::Object(nested));
                }
            }
            (Some(before), after) if before == after => {}
            (_, after) => {
                patch.insert(key.clone(), after.clone());
            }
        }
    }
    for key in original.keys() {
        if !modified.contains_key(key) {
            patch.insert(key.clone(), Value::Null);
        }
    }
    patch
}

/// The patch without its deletions. An explicitly empty map is a value, not an empty patch.
fn keep_changes(patch: Map<String, Value>) -> Map<String, Value> {
    let mut kept = Map::new();
    for (key, value) in patch {
        match value {
            Value::Null => {}
            Value::Object(map) if map.is_empty() => {
                kept.insert(key, Value::Object(map));
            }
            Value::Object(map) => {
                let nested = keep_changes(map);
                if !nested.is_empty() {
                    kept.insert(key, Value::Object(nested));
                }
            }
            value => {
                kept.insert(key, value);
            }
        }
    }
    kept
}

/// Only the deletions (`null`s) of the patch.
fn keep_deletions(patch: Map<String, Value>) -> Map<String, Value> {
    let mut kept = Map::new();
    for (key, value) in patch {
        match value {
            Value::Null => {
                kept.insert(key, Value::Null);
            }
            Value::Object(map) if !map.is_empty() => {
                let nested = keep_deletions(map);
                if !nested.is_empty() {
                    kept.insert(key, Value::Object(nested));
                }
            }
            _ => {}
        }
    }
    kept
}

/// Whether two patches set a common key to different values.
fn conflicts(left: &Value, right: &Value) -> bool {
    match (left, right) {
        (Value::Object(left), Value::Object(right)) => {
            left.iter().any(|(key, value)| right.get(key).is_some_and(|other| conflicts(value, other)))
        }
        (Value::Object(_), _) => true,
        (Value::Array(left), Value::Array(right)) => {
            left.len() != right.len() || left.iter().zip(right).any(|(left, right)| conflicts(left, right))
        }
        (Value::Array(_), _) => true,
        (left, right) => left != right,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn two_way_patch_round_trips() {
        let original = json!({"a": 1, "b": {"c": [1, 2], "d": "x"}, "gone": true});
        let modified = json!({"a": 2, "b": {"c": [1], "d": "x"}, "new": {"k": null}});
        let patch = create_two_way(&original, &modified).unwrap();
        assert_eq!(patch, json!({"a": 2, "b": {"c": [1]}, "gone": null, "new": {"k": null}}));
        assert_eq!(apply(original, &patch), json!({"a": 2, "b": {"c": [1], "d": "x"}, "new": {}}));
    }

    #[test]
    fn three_way_keeps_what_others_added_and_removes_what_the_config_dropped() {
        let original = json!({"spec": {"size": 1, "color": "red"}});
        let modified = json!({"spec": {"size": 2}});
        let current = json!({"spec": {"size": 1, "color": "red", "owner": "controller"}, "status": {"ok": true}});
        let patch = create_three_way(&original, &modified, &current).unwrap();
        assert_eq!(patch, json!({"spec": {"size": 2, "color": null}}));
        assert_eq!(apply(current, &patch), json!({"spec": {"size": 2, "owner": "controller"}, "status": {"ok": true}}));
    }

    #[test]
    fn three_way_sends_explicit_empty_maps() {
        let patch = create_three_way(&json!({}), &json!({"spec": {}}), &json!({"spec": {"a": 1}})).unwrap();
        assert_eq!(patch, json!({}), "an empty map in the config adds nothing to a live map");
        let patch = create_three_way(&json!({}), &json!({"spec": {}}), &json!({})).unwrap();
        assert_eq!(patch, json!({"spec": {}}));
    }
}
