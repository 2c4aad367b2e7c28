//! Server-side apply conflicts named: which field, who owns it, its live value and ours; and,
//! under `--force-conflicts`, which fields were taken from whom, with their values before and
//! after. Field paths are the server's (`.spec.template.spec.containers[name="app"].image`),
//! read from its conflict causes and from `managedFields` tries alike. Pure: no I/O.

use serde_json::{Map, Value};

use crate::client::Status;

/// One step of a field path.
#[derive(Debug, Clone, PartialEq)]
enum Step {
    /// A field of a map: `.name`.
    Field(String),
    /// The item of an associative list with these key values: `[name="app"]`.
    Keys(Map<String, Value>),
    /// The item of a set with this value: `[="a"]`.
    Item(Value),
    /// The item at this position: `[0]`.
    Index(usize),
}

/// A field the server refused to let this apply set, owned by another manager.
#[derive(Debug, Clone, PartialEq)]
pub struct Conflict {
    pub field: String,
    pub owner: String,
    /// The field's live value; `None` when the object does not have it.
    pub live: Option<Value>,
    /// The value the configuration sets.
    pub ours: Option<Value>,
}

/// A field `--force-conflicts` took from another manager.
#[derive(Debug, Clone, PartialEq)]
pub struct Taken {
    pub field: String,
    pub from: String,
    pub before: Option<Value>,
    pub after: Option<Value>,
}

impl std::fmt::Display for Taken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} taken from {} ({} -> {})", self.field, self.from, shown(&self.before), shown(&self.after))
    }
}

/// A value as the conflict table and the takeover lines show it: scalars as JSON, maps and lists
/// in brief, absent as `(none)`.
pub fn shown(value: &Option<Value>) -> String {
    match value {
        None => "(none)".into(),
        Some(Value::Object(map)) => format!("{{{} fields}}", map.len()),
        Some(Value::Array(items)) => format!("[{} items]", items.len()),
        Some(Value::String(text)) if !text.is_empty() && !text.contains([' ', '"', '\n']) => text.clone(),
        Some(other) => other.to_string(),
    }
}

/// The conflicts of a refused server-side apply, each with the live value (from `live`, the
/// object as read after the refusal) and ours (from `configuration`).
pub fn named(status: &Status, live: Option<&Value>, configuration: &Value) -> Vec<Conflict> {
    status
        .details
        .iter()
        .flat_map(|details| &details.causes)
        .filter(|cause| cause.reason == "FieldManagerConflict")
        .map(|cause| {
            let owner = cause
                .message
                .strip_prefix("conflict with \"")
                .and_then(|rest| rest.split_once('"'))
                .map_or_else(|| cause.message.clone(), |(manager, _)| manager.to_string());
            let path = parse_path(&cause.field);
            let value_in = |object: &Value| path.as_ref().and_then(|path| value_at(object, path)).cloned();
            Conflict { field: cause.field.clone(), owner, live: live.and_then(value_in), ours: value_in(configuration) }
        })
        .collect()
}

/// The fields `manager` holds in `after` that other managers held in `before` and no longer hold:
/// what a forced apply took, from whom, with the values before and after.
pub fn taken_over(before: &Value, after: &Value, manager: &str) -> Vec<Taken> {
    let ours = field_sets(after, |name| name == manager);
    let mut taken = Vec::new();
    for (owner, set) in field_sets(before, |name| name != manager) {
        let still = field_sets(after, |name| name == owner);
        for path in leaves(&set) {
            let held = |sets: &[(String, Value)]| sets.iter().any(|(_, set)| holds(set, &path));
            if held(&ours) && !held(&still) {
                let steps: Vec<Step> = path.iter().filter_map(|key| step_of(key)).collect();
                taken.push(Taken {
                    field: render(&steps),
                    from: owner.clone(),
                    before: value_at(before, &steps).cloned(),
                    after: value_at(after, &steps).cloned(),
                });
            }
        }
    }
    taken
}

/// The managers `wanted` picks, with the union of their field sets, in the order they appear. A
/// subresource's entries count: an autoscaler owns `spec.replicas` through `scale`.
fn field_sets(object: &Value, wanted: impl Fn(&str) -> bool) -> Vec<(String, Value)> {
    let mut sets: Vec<(String, Value)> = Vec::new();
    let entries = object.pointer("/metadata/managedFields").and_then(Value::as_array).into_iter().flatten();
    for entry in entries {
        let name = entry["manager"].as_str().unwrap_or_default();
        if !wanted(name) {
            continue;
        }
        let set = entry.get("fieldsV1").cloned().unwrap_or(Value::Null);
        match sets.iter_mut().find(|(known, _)| known == name) {
            Some((_, known)) => *known = super::ownership::union(known, &set),
            None => sets.push((name.to_string(), set)),
        }
    }
    sets
}

/// The paths of the leaves of a field set (fields owned as a whole: `{}`), `.` markers left out.
fn leaves(set: &Value) -> Vec<Vec<String>> {
    let mut found = Vec::new();
    let mut path = Vec::new();
    collect(set, &mut path, &mut found);
    found
}

fn collect(set: &Value, path: &mut Vec<String>, found: &mut Vec<Vec<String>>) {
    let Some(map) = set.as_object() else { return };
    if map.is_empty() && !path.is_empty() {
        found.push(path.clone());
        return;
    }
    for (key, child) in map {
        if key == "." {
            continue;
        }
        path.push(key.clone());
        collect(child, path, found);
        path.pop();
    }
}

fn holds(set: &Value, path: &[String]) -> bool {
    path.iter().try_fold(set, |node, key| node.get(key)).is_some()
}

/// A `fieldsV1` key as a step: `f:name`, `k:{...}`, `v:...`, `i:N`.
fn step_of(key: &str) -> Option<Step> {
    if let Some(field) = key.strip_prefix("f:") {
        return Some(Step::Field(field.to_string()));
    }
    if let Some(keys) = key.strip_prefix("k:") {
        return match serde_json::from_str(keys).ok()? {
            Value::Object(keys) => Some(Step::Keys(keys)),
            _ => None,
        };
    }
    if let Some(value) = key.strip_prefix("v:") {
        return serde_json::from_str(value).ok().map(Step::Item);
    }
    key.strip_prefix("i:")?.parse().ok().map(Step::Index)
}

/// A path as the server writes it: `.spec.containers[name="app"].image`.
fn render(steps: &[Step]) -> String {
    let mut text = String::new();
    for step in steps {
        match step {
            Step::Field(name) => text.push_str(&format!(".{name}")),
            Step::Keys(keys) => {
                let pairs: Vec<String> = keys.iter().map(|(key, value)| format!("{key}={value}")).collect();
                text.push_str(&format!("[{}]", pairs.join(",")));
            }
            Step::Item(value) => text.push_str(&format!("[={value}]")),
            Step::Index(index) => text.push_str(&format!("[{index}]")),
        }
    }
    text
}

/// Reads a path as the server writes it; `None` when it cannot be read.
fn parse_path(text: &str) -> Option<Vec<Step>> {
    let mut steps = Vec::new();
    let mut rest = text;
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix('.') {
            let end = after.find(['.', '[']).unwrap_or(after.len());
            steps.push(Step::Field(after[..end].to_string()));
            rest = &after[end..];
        } else if let Some(after) = rest.strip_prefix('[') {
            let (inside, remaining) = bracketed(after)?;
            steps.push(if let Some(value) = inside.strip_prefix('=') {
                Step::Item(serde_json::from_str(value).ok()?)
            } else if let Ok(index) = inside.parse::<usize>() {
                Step::Index(index)
            } else {
                Step::Keys(key_values(inside)?)
            });
            rest = remaining;
        } else {
            return None;
        }
    }
    Some(steps)
}

/// The text up to the `]` that closes a bracket (not one inside a quoted string), and what follows.
fn bracketed(text: &str) -> Option<(&str, &str)> {
    let mut quoted = false;
    let mut escaped = false;
    for (at, character) in text.char_indices() {
        match character {
            _ if escaped => escaped = false,
            '\\' if quoted => escaped = true,
            '"' => quoted = !quoted,
            ']' if !quoted => return Some((&text[..at], &text[at + 1..])),
            _ => {}
        }
    }
    None
}

/// `name="app",port=80` as a map of JSON values.
fn key_values(text: &str) -> Option<Map<String, Value>> {
    let mut map = Map::new();
    let mut rest = text;
    while !rest.is_empty() {
        let (key, after) = rest.split_once('=')?;
        let mut stream = serde_json::Deserializer::from_str(after).into_iter::<Value>();
        let value = stream.next()?.ok()?;
        let used = stream.byte_offset();
        map.insert(key.to_string(), value);
        rest = after[used..].strip_prefix(',').unwrap_or(&after[used..]);
    }
    Some(map)
}

fn value_at<'a>(object: &'a Value, steps: &[Step]) -> Option<&'a Value> {
    steps.iter().try_fold(object, |node, step| match step {
        Step::Field(name) => node.get(name),
        Step::Index(index) => node.get(index),
        Step::Item(value) => node.as_array()?.iter().find(|item| *item == value),
        Step::Keys(keys) => node
            .as_array()?
            .iter()
            .find(|item| keys.iter().all(|(key, value)| item.get(key).is_some_and(|found| same(found, value)))),
    })
}

/// Equal values, numbers by value (`80` and `80.0`).
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(a), Value::Number(b)) => a.as_f64() == b.as_f64(),
        _ => a == b,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::client::{StatusCause, StatusDetails};
    use serde_json::json;

    fn deployment(replicas: u32, image: &str, managed: Value) -> Value {
        json!({
            "metadata": {"name": "web", "managedFields": managed},
            "spec": {"replicas": replicas, "template": {"spec": {"containers": [{"name": "app", "image": image}]}}}
        })
    }

    #[test]
    fn server_paths_read_and_print_back() {
        for path in [
            ".spec.replicas",
            ".spec.template.spec.containers[name=\"app\"].image",
            ".spec.ports[port=80,protocol=\"TCP\"].targetPort",
            ".metadata.finalizers[=\"a.b/c\"]",
            ".spec.items[2].x",
        ] {
            assert_eq!(parse_path(path).map(|steps| render(&steps)).as_deref(), Some(path));
        }
        let quoted = parse_path(".spec.containers[name=\"a]b\"].image").unwrap();
        assert_eq!(quoted[2], Step::Keys(json!({"name": "a]b"}).as_object().unwrap().clone()));
        assert_eq!(parse_path("spec.replicas"), None);
    }

    #[test]
    fn conflicts_are_named_with_both_values() {
        let status = Status {
            code: 409,
            reason: "Conflict".into(),
            message: "Apply failed with 2 conflicts".into(),
            details: Some(Box::new(StatusDetails {
                causes: vec![
                    StatusCause {
                        reason: "FieldManagerConflict".into(),
                        message: "conflict with \"kube-controller-manager\" using apps/v1".into(),
                        field: ".spec.replicas".into(),
                    },
                    StatusCause {
                        reason: "FieldManagerConflict".into(),
                        message: "conflict with \"deployer\" using apps/v1".into(),
                        field: ".spec.template.spec.containers[name=\"app\"].image".into(),
                    },
                ],
                ..StatusDetails::default()
            })),
        };
        let live = deployment(10, "app:1", json!([]));
        let ours = deployment(3, "app:2", json!([]));
        assert_eq!(
            named(&status, Some(&live), &ours),
            [
                Conflict {
                    field: ".spec.replicas".into(),
                    owner: "kube-controller-manager".into(),
                    live: Some(json!(10)),
                    ours: Some(json!(3)),
                },
                Conflict {
                    field: ".spec.template.spec.containers[name=\"app\"].image".into(),
                    owner: "deployer".into(),
                    live: Some(json!("app:1")),
                    ours: Some(json!("app:2")),
                },
            ]
        );
    }

    #[test]
    fn a_forced_apply_says_what_it_took_from_whom() {
        let replicas = json!({"f:spec": {"f:replicas": {}}});
        let image = json!({"f:spec": {"f:template": {"f:spec": {"f:containers": {
            "k:{\"name\":\"app\"}": {".": {}, "f:image": {}, "f:name": {}}}}}}});
        let entry = |manager: &str, operation: &str, fields: &Value| json!({"manager": manager, "operation": operation, "fieldsV1": fields});
        let before = deployment(
            10,
            "app:1",
            json!([entry("kube-controller-manager", "Update", &replicas), entry("kubectl", "Apply", &image)]),
        );
        let both = super::super::ownership::union(&replicas, &image);
        let after = deployment(3, "app:1", json!([entry("kubectl", "Apply", &both)]));
        let taken = taken_over(&before, &after, "kubectl");
        assert_eq!(taken.len(), 1, "{taken:?}");
        assert_eq!(taken[0].to_string(), ".spec.replicas taken from kube-controller-manager (10 -> 3)");
        assert!(taken_over(&after, &after, "kubectl").is_empty(), "nothing is taken twice");
    }
}
