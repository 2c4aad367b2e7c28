//! Fields the server does not let change once an object exists: a workload's `spec.selector`, a
//! Job's `spec.template`, a Service's `spec.clusterIP`, a StatefulSet's `serviceName`,
//! `podManagementPolicy` and `volumeClaimTemplates`, the data of a ConfigMap or Secret marked
//! `immutable`. The server says so only when the write arrives, after the objects before it were
//! written; apply checks them against the live objects before the first write. Pure: no I/O.

use base64::Engine as _;
use serde_json::{Map, Value};

use crate::resource::ObjectRef;

/// A change the server would refuse.
#[derive(Debug, Clone, PartialEq)]
pub struct ImmutableChange {
    pub field: &'static str,
    pub live: Value,
    pub wanted: Value,
}

impl std::fmt::Display for ImmutableChange {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} cannot change (live {}, here {})", self.field, brief(&self.live), brief(&self.wanted))
    }
}

/// A value in a message: JSON, cut after 80 characters.
fn brief(value: &Value) -> String {
    let text = value.to_string();
    match text.char_indices().nth(80) {
        Some((at, _)) => format!("{}...", &text[..at]),
        None => text,
    }
}

/// Whether objects of `target`'s kind have fields that cannot change: only those are read
/// before the first write.
pub fn has_immutable_fields(target: &ObjectRef) -> bool {
    matches!(
        (target.rt.group.as_str(), target.rt.kind.as_str()),
        ("apps", "Deployment" | "ReplicaSet" | "DaemonSet" | "StatefulSet")
            | ("batch", "Job")
            | ("", "Service" | "ConfigMap" | "Secret")
    )
}

/// The changes of `document` (a configuration of `target`) to `live` that the server refuses.
pub fn changes(target: &ObjectRef, document: &Value, live: &Value) -> Vec<ImmutableChange> {
    let mut found = Vec::new();
    // The field at `pointer`, when the configuration sets it to other than it is live (or, with
    // `contained`, to what the live value does not hold).
    let changed = |field: &'static str, pointer: &str, contained: bool| {
        let wanted = document.pointer(pointer).filter(|value| !value.is_null())?;
        let current = live.pointer(pointer).cloned().unwrap_or(Value::Null);
        let unchanged = if contained { contains(&current, wanted) } else { stored(&current) == stored(wanted) };
        (!unchanged).then(|| ImmutableChange { field, live: current, wanted: wanted.clone() })
    };
    match (target.rt.group.as_str(), target.rt.kind.as_str()) {
        ("apps", "Deployment" | "ReplicaSet" | "DaemonSet") => {
            found.extend(changed("spec.selector", "/spec/selector", false))
        }
        ("apps", "StatefulSet") => {
            found.extend(changed("spec.selector", "/spec/selector", false));
            found.extend(changed("spec.serviceName", "/spec/serviceName", false));
            found.extend(changed("spec.podManagementPolicy", "/spec/podManagementPolicy", false));
            found.extend(changed("spec.volumeClaimTemplates", "/spec/volumeClaimTemplates", true));
        }
        // The server adds labels of its own to a Job's selector and template.
        ("batch", "Job") => {
            found.extend(changed("spec.selector", "/spec/selector", true));
            found.extend(changed("spec.template", "/spec/template", true));
        }
        ("", "Service") => {
            let wanted = document.pointer("/spec/clusterIP").and_then(Value::as_str).unwrap_or_default();
            let current = live.pointer("/spec/clusterIP").and_then(Value::as_str).unwrap_or_default();
            if !wanted.is_empty() && !current.is_empty() && wanted != current {
                found.push(ImmutableChange { field: "spec.clusterIP", live: current.into(), wanted: wanted.into() });
            }
        }
        ("", "ConfigMap" | "Secret") if live["immutable"] == true => {
            let data = |object: &Value| {
                let mut data = object["data"].as_object().cloned().unwrap_or_default();
                // A Secret's stringData is its data, encoded.
                for (key, value) in object["stringData"].as_object().into_iter().flatten() {
                    let text = value.as_str().unwrap_or_default();
                    data.insert(key.clone(), base64::engine::general_purpose::STANDARD.encode(text).into());
                }
                Value::Object(data)
            };
            let (current, wanted) = (data(live), data(document));
            if current != wanted {
                found.push(ImmutableChange { field: "data", live: current, wanted });
            }
            found.extend(changed("binaryData", "/binaryData", false));
            if document["immutable"] == false {
                found.push(ImmutableChange { field: "immutable", live: true.into(), wanted: false.into() });
            }
        }
        _ => {}
    }
    found
}

/// `value` without nulls and empty maps and lists, as the server stores it.
fn stored(value: &Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(key, value)| (key.clone(), stored(value)))
                .filter(|(_, value)| !is_empty(value))
                .collect::<Map<String, Value>>(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(stored).collect()),
        other => other.clone(),
    }
}

fn is_empty(value: &Value) -> bool {
    match value {
        Value::Null => true,
        Value::Object(map) => map.is_empty(),
        Value::Array(items) => items.is_empty(),
        _ => false,
    }
}

/// Whether `live` holds every field `wanted` sets, with its value (what the server adds aside).
fn contains(live: &Value, wanted: &Value) -> bool {
    match (live, wanted) {
        (_, wanted) if is_empty(wanted) => true,
        (Value::Object(live), Value::Object(wanted)) => wanted
            .iter()
            .all(|(key, value)| is_empty(value) || live.get(key).is_some_and(|found| contains(found, value))),
        (Value::Array(live), Value::Array(wanted)) => {
            live.len() == wanted.len() && live.iter().zip(wanted).all(|(found, value)| contains(found, value))
        }
        (Value::Number(live), Value::Number(wanted)) => live.as_f64() == wanted.as_f64(),
        _ => live == wanted,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::client::ResourceType;
    use serde_json::json;

    fn target(group: &str, kind: &str) -> ObjectRef {
        ObjectRef {
            rt: ResourceType::namespaced_for_tests(group, kind),
            namespace: Some("ns".into()),
            name: "x".into(),
        }
    }

    #[test]
    fn a_new_selector_is_named_and_the_same_one_written_otherwise_is_not() {
        let live = json!({"spec": {"selector": {"matchLabels": {"app": "web"}}}});
        let same = json!({"spec": {"selector": {"matchLabels": {"app": "web"}, "matchExpressions": []}}});
        assert!(changes(&target("apps", "Deployment"), &same, &live).is_empty());
        let other = json!({"spec": {"selector": {"matchLabels": {"app": "web", "v": "2"}}}});
        let found = changes(&target("apps", "Deployment"), &other, &live);
        assert_eq!(
            found.iter().map(ToString::to_string).collect::<Vec<_>>(),
            [
                "spec.selector cannot change (live {\"matchLabels\":{\"app\":\"web\"}}, here {\"matchLabels\":{\"app\":\"web\",\"v\":\"2\"}})"
            ]
        );
        assert!(changes(&target("apps", "Deployment"), &json!({"spec": {}}), &live).is_empty(), "no selector given");
    }

    #[test]
    fn jobs_services_and_immutable_data() {
        let job = json!({"spec": {"template": {"metadata": {"labels": {"job-name": "x", "controller-uid": "u"}},
            "spec": {"containers": [{"name": "a", "image": "one", "imagePullPolicy": "Always"}], "restartPolicy": "Never"}}}});
        let same = json!({"spec": {"template": {"spec": {"containers": [{"name": "a", "image": "one"}], "restartPolicy": "Never"}}}});
        assert!(changes(&target("batch", "Job"), &same, &job).is_empty());
        let newer = json!({"spec": {"template": {"spec": {"containers": [{"name": "a", "image": "two"}]}}}});
        assert_eq!(changes(&target("batch", "Job"), &newer, &job)[0].field, "spec.template");

        let service = json!({"spec": {"clusterIP": "10.0.0.7"}});
        assert!(changes(&target("", "Service"), &json!({"spec": {"ports": []}}), &service).is_empty());
        assert_eq!(changes(&target("", "Service"), &json!({"spec": {"clusterIP": "10.0.0.8"}}), &service).len(), 1);

        let secret = json!({"immutable": true, "data": {"k": "dg=="}});
        assert!(
            changes(&target("", "Secret"), &json!({"immutable": true, "stringData": {"k": "v"}}), &secret).is_empty()
        );
        let found = changes(&target("", "Secret"), &json!({"immutable": true, "stringData": {"k": "w"}}), &secret);
        assert_eq!(found[0].field, "data");
        let mutable = json!({"data": {"k": "dg=="}});
        assert!(changes(&target("", "Secret"), &json!({"data": {"k": "eA=="}}), &mutable).is_empty());
    }
}
