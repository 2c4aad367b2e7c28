//! What changes between two versions of an object, as field paths (`spec.replicas`,
//! `spec.template.spec.containers[0].image`, `metadata.labels["app.kubernetes.io/name"]`), for
//! `diff --summary` and `diff -o json`.

use serde_json::Value;

/// Metadata the server sets on every write: not a change of the user's.
const SERVER_SET: [&str; 6] =
    ["managedFields", "resourceVersion", "generation", "uid", "creationTimestamp", "selfLink"];

/// The paths of the leaves that differ between `before` and `after` (either may be absent: a
/// created or a deleted object), in order, leaving out the metadata the server sets.
pub fn changed_paths(before: Option<&Value>, after: Option<&Value>) -> Vec<String> {
    let strip = |object: Option<&Value>| {
        object.cloned().map(|mut object| {
            if let Some(metadata) = object.get_mut("metadata").and_then(Value::as_object_mut) {
                SERVER_SET.iter().for_each(|field| {
                    metadata.remove(*field);
                });
            }
            object
        })
    };
    let (before, after) = (strip(before), strip(after));
    let mut paths = Vec::new();
    walk(String::new(), before.as_ref(), after.as_ref(), &mut paths);
    paths
}

fn walk(path: String, before: Option<&Value>, after: Option<&Value>, paths: &mut Vec<String>) {
    if before == after {
        return;
    }
    let (objects, arrays) = (
        |value: Option<&Value>| value.is_none_or(Value::is_object),
        |value: Option<&Value>| value.is_none_or(Value::is_array),
    );
    if objects(before) && objects(after) {
        let empty = serde_json::Map::new();
        let a = before.and_then(Value::as_object).unwrap_or(&empty);
        let b = after.and_then(Value::as_object).unwrap_or(&empty);
        let mut keys: Vec<&String> = a.keys().chain(b.keys().filter(|key| !a.contains_key(*key))).collect();
        keys.sort();
        for key in keys {
            walk(join(&path, key), a.get(key), b.get(key), paths);
        }
    } else if arrays(before) && arrays(after) {
        let (a, b) = (before.and_then(Value::as_array), after.and_then(Value::as_array));
        for index in 0..a.map_or(0, Vec::len).max(b.map_or(0, Vec::len)) {
            walk(format!("{path}[{index}]"), a.and_then(|a| a.get(index)), b.and_then(|b| b.get(index)), paths);
        }
    } else {
        paths.push(path);
    }
}

fn join(path: &str, key: &str) -> String {
    let plain = !key.is_empty() && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    match (path.is_empty(), plain) {
        (true, true) => key.to_string(),
        (false, true) => format!("{path}.{key}"),
        (_, false) => format!("{path}[{key:?}]"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn changed_leaves_are_named_by_their_paths() {
        let before = json!({"metadata": {"name": "web", "resourceVersion": "1", "labels": {"app.kubernetes.io/name": "a"}},
            "spec": {"replicas": 2, "containers": [{"name": "app", "image": "nginx:1"}]}});
        let after = json!({"metadata": {"name": "web", "resourceVersion": "2", "labels": {"app.kubernetes.io/name": "b"}},
            "spec": {"replicas": 3, "containers": [{"name": "app", "image": "nginx:2"}, {"name": "side"}]}});
        assert_eq!(
            changed_paths(Some(&before), Some(&after)),
            [
                r#"metadata.labels["app.kubernetes.io/name"]"#,
                "spec.containers[0].image",
                "spec.containers[1].name",
                "spec.replicas"
            ]
        );
        assert!(changed_paths(Some(&before), Some(&before)).is_empty());
        assert_eq!(changed_paths(None, Some(&json!({"data": {"a": "1"}}))), ["data.a"]);
        assert_eq!(changed_paths(Some(&json!({"data": {"a": "1"}})), None), ["data.a"]);
    }
}
