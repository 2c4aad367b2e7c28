//! Field ownership (`metadata.managedFields`) as server-side apply records it, and the migration of
//! client-side apply's ownership to a server-side apply manager, as kubectl does it (csaupgrade):
//! the fields that client-side managers own join the field set of the server-side manager, so that
//! the next server-side apply removes what the configuration no longer has.
//!
//! Field sets are the `fieldsV1` tries of managedFields entries: a key per path element (`f:name`
//! for a field, `k:{...}` for an associative list item, `v:...` for a set item, `i:N` for a
//! position), `.` for the node itself, and `{}` for a leaf. Pure: no I/O.

use serde_json::{Map, Value};

use super::last_applied;

/// The manager that client-side apply's annotation is kept under once an object is applied
/// server-side (kubectl's name, so that both tools recognise it).
pub const LAST_APPLIED_MANAGER: &str = "kubectl-last-applied";

/// The manager the server names the fields of objects that existed before it tracked ownership.
const BEFORE_FIRST_APPLY: &str = "before-first-apply";

/// The path of the last-applied annotation in a field set.
fn annotation_path() -> [String; 3] {
    ["f:metadata".into(), "f:annotations".into(), format!("f:{}", last_applied::ANNOTATION)]
}

/// One entry of `metadata.managedFields`.
fn entries(object: &Value) -> &[Value] {
    object.pointer("/metadata/managedFields").and_then(Value::as_array).map_or(&[], Vec::as_slice)
}

fn is_operation(entry: &Value, operation: &str) -> bool {
    entry["operation"] == operation && entry.get("subresource").and_then(Value::as_str).unwrap_or("").is_empty()
}

fn field_set(entry: &Value) -> &Value {
    entry.get("fieldsV1").unwrap_or(&Value::Null)
}

/// Whether `set` holds the field at `path`.
fn holds(set: &Value, path: &[String]) -> bool {
    path.iter().try_fold(set, |node, key| node.get(key)).is_some()
}

/// Whether `manager`'s `Update` entry in `object`'s managedFields holds the field at `path`
/// (field names, such as `["status", "conditions"]`).
pub fn updater_holds(object: &Value, manager: &str, path: &[String]) -> bool {
    holds_by(object, manager, "Update", path)
}

/// Whether `manager`'s `Apply` entry in `object`'s managedFields holds the field at `path`.
pub fn applier_holds(object: &Value, manager: &str, path: &[String]) -> bool {
    holds_by(object, manager, "Apply", path)
}

fn holds_by(object: &Value, manager: &str, operation: &str, path: &[String]) -> bool {
    let path: Vec<String> = path.iter().map(|name| format!("f:{name}")).collect();
    entries(object)
        .iter()
        .any(|entry| entry["manager"] == manager && is_operation(entry, operation) && holds(field_set(entry), &path))
}

/// The client-side appliers of `object` whose fields move to a server-side manager: the managers
/// of `Update` operations that own the last-applied annotation (kubectl's way of recognising
/// client-side apply, whatever its field manager), and `before-first-apply`.
pub fn client_side_managers(object: &Value) -> Vec<String> {
    let path = annotation_path();
    let mut managers: Vec<String> = Vec::new();
    for entry in entries(object) {
        let manager = entry["manager"].as_str().unwrap_or_default();
        let client_side = holds(field_set(entry), &path) || manager == BEFORE_FIRST_APPLY;
        if is_operation(entry, "Update") && client_side && !managers.iter().any(|known| known == manager) {
            managers.push(manager.to_string());
        }
    }
    managers
}

/// Whether every conflict of a refused server-side apply is with one of `managers`: the server
/// names each conflicting manager in a cause (`conflict with "kubectl-client-side-apply" using
/// apps/v1`).
pub fn conflicts_only_with(status: &crate::client::Status, managers: &[String]) -> bool {
    let causes: Vec<_> = status.details.iter().flat_map(|details| &details.causes).collect();
    !causes.is_empty()
        && causes.iter().all(|cause| {
            let named = cause.message.strip_prefix("conflict with \"").and_then(|rest| rest.split_once('"'));
            named.is_some_and(|(manager, _)| managers.iter().any(|known| known == manager))
        })
}

/// Whether a server-side apply manager already owns the last-applied annotation.
pub fn annotation_has_apply_owner(object: &Value) -> bool {
    let path = annotation_path();
    entries(object).iter().any(|entry| is_operation(entry, "Apply") && holds(field_set(entry), &path))
}

/// `object`'s managedFields with the fields of `client_side` managers moved to `manager`'s
/// server-side entry (created from the most recent client-side entry when it has none), and the
/// client-side managers' entries gone. `None` when there is nothing to move.
pub fn migrated(object: &Value, client_side: &[String], manager: &str) -> Option<Vec<Value>> {
    let original = entries(object);
    let mut fields = original.to_vec();
    for client in client_side {
        let is_client = |entry: &Value| entry["manager"] == client.as_str() && is_operation(entry, "Update");
        let target = match fields.iter().position(|entry| entry["manager"] == manager && is_operation(entry, "Apply")) {
            Some(target) => target,
            None => {
                // Entries are sorted most recent first: the first client-side one is the latest.
                let Some(latest) = fields.iter().position(is_client) else { continue };
                fields[latest]["operation"] = Value::String("Apply".into());
                fields[latest]["manager"] = Value::String(manager.into());
                latest
            }
        };
        let api_version = fields[target]["apiVersion"].clone();
        if let Some(source) = fields.iter().find(|entry| is_client(entry) && entry["apiVersion"] == api_version) {
            let joined = union(field_set(&fields[target]), field_set(source));
            fields[target]["fieldsV1"] = joined;
        }
        fields.retain(|entry| !is_client(entry));
    }
    (fields.as_slice() != original).then_some(fields)
}

/// Takes `set` out of `manager`'s server-side entry in `fields` (managedFields entries).
pub fn exclude(fields: &mut [Value], manager: &str, set: &Value) {
    for entry in fields.iter_mut().filter(|entry| entry["manager"] == manager && is_operation(entry, "Apply")) {
        entry["fieldsV1"] = difference(field_set(entry), set).unwrap_or_else(|| Value::Object(Map::new()));
    }
}

/// The union of two field sets.
pub fn union(a: &Value, b: &Value) -> Value {
    match (a, b) {
        (Value::Object(a), Value::Object(b)) => {
            let mut joined = a.clone();
            for (key, theirs) in b {
                let merged = match joined.get(key) {
                    Some(ours) => union(ours, theirs),
                    None => theirs.clone(),
                };
                joined.insert(key.clone(), merged);
            }
            Value::Object(joined)
        }
        (Value::Object(_), _) => a.clone(),
        _ => b.clone(),
    }
}

/// The members of `a` that are not members of `b`; `None` when there are none.
pub fn difference(a: &Value, b: &Value) -> Option<Value> {
    let a = a.as_object()?;
    let b = b.as_object();
    let mut rest = Map::new();
    for (key, child) in a {
        let theirs = b.and_then(|b| b.get(key));
        let is_leaf = child.as_object().is_some_and(Map::is_empty);
        let remaining = match theirs {
            None => Some(child.clone()),
            Some(_) if is_leaf => None,
            Some(theirs) => difference(child, theirs),
        };
        if let Some(remaining) = remaining {
            rest.insert(key.clone(), remaining);
        }
    }
    (!rest.is_empty()).then_some(Value::Object(rest))
}

/// The field set of the last-applied annotation alone.
pub fn annotation_set() -> Value {
    let [metadata, annotations, annotation] = annotation_path();
    serde_json::json!({ metadata: { annotations: { annotation: {} } } })
}

/// What a server-side apply would leave of `applied` (the server's answer to a dry run of that
/// apply) once the client-side managers' fields are migrated to the applying manager and the
/// configuration is applied again, as a real apply does in three requests: the fields that only
/// the client-side managers owned, and that the configuration no longer has, are removed, and
/// their entries are gone. The server cannot show this itself, since dry runs do not build on
/// each other. The last-applied annotation stays when `annotation_kept` (kubectl's default
/// manager keeps it in step); otherwise it goes with the rest, when only client-side managers
/// owned it. Returns `None` when there is nothing to migrate.
pub fn migrated_dry_run(applied: &Value, client_side: &[String], annotation_kept: bool) -> Option<Value> {
    if client_side.is_empty() {
        return None;
    }
    let mut client_fields = Value::Object(Map::new());
    let mut kept_fields = if annotation_kept { annotation_set() } else { Value::Object(Map::new()) };
    for entry in entries(applied) {
        let owner = entry["manager"].as_str().unwrap_or_default();
        if is_operation(entry, "Update") && client_side.iter().any(|client| client == owner) {
            client_fields = union(&client_fields, field_set(entry));
        } else {
            kept_fields = union(&kept_fields, field_set(entry));
        }
    }
    let mut object = applied.clone();
    if let Some(stale) = difference(&client_fields, &kept_fields) {
        remove_fields(&mut object, &stale);
    }
    let is_client = |entry: &Value| {
        is_operation(entry, "Update") && client_side.iter().any(|client| entry["manager"] == client.as_str())
    };
    if let Some(Value::Array(fields)) = object.pointer_mut("/metadata/managedFields") {
        fields.retain(|entry| !is_client(entry));
    }
    Some(object)
}

/// Removes the members of `set` from `value`: leaves and list items whose node is a member go;
/// a map whose node is a member goes once it is left empty.
pub(super) fn remove_fields(value: &mut Value, set: &Value) {
    let Some(set) = set.as_object() else { return };
    match value {
        Value::Object(map) => {
            for (key, child_set) in set {
                let Some(field) = key.strip_prefix("f:") else { continue };
                let Some(child) = map.get_mut(field) else { continue };
                let is_leaf = child_set.as_object().is_some_and(Map::is_empty);
                remove_fields(child, child_set);
                let emptied = match child {
                    Value::Object(inner) => inner.is_empty(),
                    Value::Array(items) => items.is_empty(),
                    _ => false,
                };
                if is_leaf || (child_set.get(".").is_some() && emptied) {
                    map.remove(field);
                }
            }
        }
        Value::Array(items) => {
            let mut kept = Vec::with_capacity(items.len());
            for (index, mut item) in std::mem::take(items).into_iter().enumerate() {
                let item_set = set.iter().find(|(key, _)| names_item(key, &item, index)).map(|(_, set)| set);
                match item_set {
                    Some(item_set)
                        if item_set.as_object().is_some_and(|node| node.is_empty() || node.contains_key(".")) => {}
                    Some(item_set) => {
                        remove_fields(&mut item, item_set);
                        kept.push(item);
                    }
                    None => kept.push(item),
                }
            }
            *items = kept;
        }
        _ => {}
    }
}

/// Whether the path element `key` names `item`, at position `index` of its list.
fn names_item(key: &str, item: &Value, index: usize) -> bool {
    if let Some(keys) = key.strip_prefix("k:") {
        let Ok(Value::Object(keys)) = serde_json::from_str::<Value>(keys) else { return false };
        return keys.iter().all(|(name, value)| item.get(name) == Some(value));
    }
    if let Some(value) = key.strip_prefix("v:") {
        return serde_json::from_str::<Value>(value).is_ok_and(|value| &value == item);
    }
    key.strip_prefix("i:").and_then(|position| position.parse::<usize>().ok()) == Some(index)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn entry(manager: &str, operation: &str, fields: Value) -> Value {
        json!({"manager": manager, "operation": operation, "apiVersion": "v1", "fieldsType": "FieldsV1", "fieldsV1": fields})
    }

    fn csa_fields() -> Value {
        json!({"f:data": {".": {}, "f:x": {}, "f:y": {}}, "f:metadata": {"f:annotations": {".": {},
            "f:kubectl.kubernetes.io/last-applied-configuration": {}}, "f:labels": {".": {}, "f:a": {}, "f:b": {}}}})
    }

    #[test]
    fn client_side_managers_own_the_annotation() {
        let object = json!({"metadata": {"managedFields": [
            entry("kubectl-client-side-apply", "Update", csa_fields()),
            entry("my-pipeline", "Update", json!({"f:metadata": {"f:annotations": {"f:kubectl.kubernetes.io/last-applied-configuration": {}}}})),
            entry("kubectl-edit", "Update", json!({"f:data": {"f:x": {}}})),
            entry("before-first-apply", "Update", json!({"f:data": {"f:old": {}}})),
            entry(LAST_APPLIED_MANAGER, "Apply", json!({"f:metadata": {"f:annotations": {"f:kubectl.kubernetes.io/last-applied-configuration": {}}}})),
        ]}});
        assert_eq!(client_side_managers(&object), ["kubectl-client-side-apply", "my-pipeline", "before-first-apply"]);
        assert!(annotation_has_apply_owner(&object));
    }

    #[test]
    fn migration_moves_client_side_fields_to_the_server_side_manager() {
        let applied = json!({"f:data": {"f:x": {}, "f:z": {}}, "f:metadata": {"f:labels": {"f:a": {}}}});
        let object = json!({"metadata": {"managedFields": [
            entry("kubeupd", "Apply", applied.clone()),
            entry("kubectl-client-side-apply", "Update", csa_fields()),
            entry("other", "Update", json!({"f:data": {"f:q": {}}})),
        ]}});
        let fields = migrated(&object, &["kubectl-client-side-apply".into()], "kubeupd").unwrap();
        assert_eq!(fields.len(), 2);
        assert_eq!(fields[0]["manager"], "kubeupd");
        assert_eq!(fields[0]["fieldsV1"], union(&applied, &csa_fields()));
        assert_eq!(fields[1]["manager"], "other");
        assert_eq!(
            migrated(&json!({"metadata": {"managedFields": fields}}), &["kubectl-client-side-apply".into()], "kubeupd"),
            None
        );
        // Without a server-side entry, the latest client-side entry becomes it.
        let object =
            json!({"metadata": {"managedFields": [entry("kubectl-client-side-apply", "Update", csa_fields())]}});
        let fields = migrated(&object, &["kubectl-client-side-apply".into()], "kubeupd").unwrap();
        assert_eq!(fields, [entry("kubeupd", "Apply", csa_fields())]);
    }

    #[test]
    fn set_difference_keeps_what_the_other_does_not_hold() {
        let kept = json!({"f:data": {"f:x": {}}, "f:metadata": {"f:labels": {"f:a": {}}}});
        let stale = difference(&csa_fields(), &union(&kept, &annotation_set())).unwrap();
        assert_eq!(
            stale,
            json!({"f:data": {".": {}, "f:y": {}}, "f:metadata": {"f:annotations": {".": {}}, "f:labels": {".": {}, "f:b": {}}}})
        );
        assert_eq!(difference(&kept, &csa_fields()), None);
    }

    #[test]
    fn a_dry_run_shows_the_fields_only_client_side_apply_owned_removed() {
        let annotation = "{}\n";
        let applied = json!({
            "data": {"x": "1", "y": "2", "z": "9", "q": "3"},
            "metadata": {
                "name": "m",
                "labels": {"a": "1", "b": "2"},
                "annotations": {"kubectl.kubernetes.io/last-applied-configuration": annotation},
                "managedFields": [
                    entry("kubeupd", "Apply", json!({"f:data": {"f:x": {}, "f:z": {}}, "f:metadata": {"f:labels": {"f:a": {}}}})),
                    entry("kubectl-client-side-apply", "Update", csa_fields()),
                    entry("other", "Update", json!({"f:data": {"f:q": {}}})),
                ]
            }
        });
        let shown = migrated_dry_run(&applied, &["kubectl-client-side-apply".into()], true).unwrap();
        assert_eq!(shown["data"], json!({"x": "1", "z": "9", "q": "3"}));
        assert_eq!(shown["metadata"]["labels"], json!({"a": "1"}));
        assert_eq!(
            shown["metadata"]["annotations"],
            json!({"kubectl.kubernetes.io/last-applied-configuration": annotation})
        );
        let managers: Vec<&str> = entries(&shown).iter().filter_map(|entry| entry["manager"].as_str()).collect();
        assert_eq!(managers, ["kubeupd", "other"]);
        assert_eq!(migrated_dry_run(&applied, &[], true), None);
        // Under another manager than kubectl's default, the annotation goes with client-side
        // apply's other fields.
        let shown = migrated_dry_run(&applied, &["kubectl-client-side-apply".into()], false).unwrap();
        assert_eq!(shown["metadata"].get("annotations"), None);
        assert_eq!(shown["data"], json!({"x": "1", "z": "9", "q": "3"}));
    }

    #[test]
    fn list_items_go_by_key_value_or_position() {
        let mut object = json!({"spec": {
            "containers": [{"name": "app", "image": "a"}, {"name": "sidecar", "image": "s", "env": [{"name": "E", "value": "1"}]}],
            "finalizers": ["keep", "drop"],
            "args": ["a", "b"]
        }});
        let stale = json!({"f:spec": {
            "f:containers": {"k:{\"name\":\"app\"}": {".": {}, "f:image": {}, "f:name": {}},
                             "k:{\"name\":\"sidecar\"}": {"f:env": {"k:{\"name\":\"E\"}": {".": {}, "f:name": {}, "f:value": {}}}}},
            "f:finalizers": {"v:\"drop\"": {}},
            "f:args": {}
        }});
        remove_fields(&mut object, &stale);
        assert_eq!(
            object,
            json!({"spec": {"containers": [{"name": "sidecar", "image": "s", "env": []}], "finalizers": ["keep"]}})
        );
    }
}
