//! The pods of a workload: kubectl's `SelectorsForObject` (k8s.io/kubectl
//! pkg/polymorphichelpers/helpers.go), which knows Deployments, ReplicaSets, StatefulSets,
//! DaemonSets, Jobs, ReplicationControllers and Services.

use serde_json::Value;

/// Why an object gives no selector, in kubectl's words after the command's own (`cannot get the
/// logs from ` for `logs`, `cannot attach to ` for exec, attach and port-forward).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SelectorError {
    /// kubectl has no selector for this kind: `*v1.ConfigMap`, as Go names the type it decoded.
    #[error("{go_type}: selector for {go_type} not implemented")]
    NotImplemented { go_type: String },
    #[error("*v1.Service: invalid service '{name}': Service is defined without a selector")]
    ServiceWithoutSelector { name: String },
    #[error("{go_type}: invalid label selector: {reason}")]
    Invalid { go_type: String, reason: String },
}

/// The type Go decodes `object` into in kubectl: `*v1.Deployment` for the kinds of Kubernetes'
/// own groups, `*unstructured.Unstructured` for custom resources.
fn go_type(object: &Value) -> String {
    let api_version = object["apiVersion"].as_str().unwrap_or_default();
    let (group, version) = api_version.rsplit_once('/').unwrap_or(("", api_version));
    let kind = object["kind"].as_str().unwrap_or_default();
    match group.is_empty() || !group.contains('.') || group.ends_with(".k8s.io") {
        true => format!("*{version}.{kind}"),
        false => "*unstructured.Unstructured".to_string(),
    }
}

/// The label selector (as a query string, `app=web,tier in (a,b)`) of the pods of `object`.
pub fn pod_selector(object: &Value) -> Result<String, SelectorError> {
    let api_version = object["apiVersion"].as_str().unwrap_or_default();
    let group = api_version.rsplit_once('/').map_or("", |(group, _)| group);
    let kind = object["kind"].as_str().unwrap_or_default();
    let spec_selector = &object["spec"]["selector"];
    match (group, kind) {
        ("apps" | "extensions", "Deployment" | "ReplicaSet" | "StatefulSet" | "DaemonSet") | ("batch", "Job") => {
            label_selector(spec_selector).map_err(|reason| SelectorError::Invalid { go_type: go_type(object), reason })
        }
        ("", "ReplicationController") => Ok(map_selector(spec_selector)),
        ("", "Service") => match spec_selector.as_object().filter(|map| !map.is_empty()) {
            Some(_) => Ok(map_selector(spec_selector)),
            None => Err(SelectorError::ServiceWithoutSelector {
                name: object["metadata"]["name"].as_str().unwrap_or_default().to_string(),
            }),
        },
        _ => Err(SelectorError::NotImplemented { go_type: go_type(object) }),
    }
}

/// A `map[string]string` selector (a Service's): `key=value` pairs, sorted by key as
/// `labels.SelectorFromSet` prints them.
fn map_selector(selector: &Value) -> String {
    let mut pairs: Vec<(&String, &str)> = (selector.as_object().into_iter().flatten())
        .map(|(key, value)| (key, value.as_str().unwrap_or_default()))
        .collect();
    pairs.sort();
    pairs.iter().map(|(key, value)| format!("{key}={value}")).collect::<Vec<_>>().join(",")
}

/// A `metav1.LabelSelector` as `LabelSelectorAsSelector` prints it: requirements sorted by key,
/// `matchLabels` as `key=value`, expressions as `key in (a,b)`, `key notin (a,b)`, `key`, `!key`.
/// An empty selector selects every pod (an empty string).
fn label_selector(selector: &Value) -> Result<String, String> {
    let mut requirements: Vec<(String, String)> = Vec::new();
    for (key, value) in selector["matchLabels"].as_object().into_iter().flatten() {
        requirements.push((key.clone(), format!("{key}={}", value.as_str().unwrap_or_default())));
    }
    for expression in selector["matchExpressions"].as_array().into_iter().flatten() {
        let key = expression["key"].as_str().unwrap_or_default();
        let mut values: Vec<&str> =
            expression["values"].as_array().into_iter().flatten().filter_map(Value::as_str).collect();
        values.sort_unstable();
        values.dedup();
        let operator = expression["operator"].as_str().unwrap_or_default();
        let text = match operator {
            "In" => format!("{key} in ({})", values.join(",")),
            "NotIn" => format!("{key} notin ({})", values.join(",")),
            "Exists" => key.to_string(),
            "DoesNotExist" => format!("!{key}"),
            other => return Err(format!("{other:?} is not a valid label selector operator")),
        };
        requirements.push((key.to_string(), text));
    }
    requirements.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(requirements.into_iter().map(|(_, text)| text).collect::<Vec<_>>().join(","))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn workloads_select_their_pods_as_kubectl_prints_selectors() {
        let deployment = json!({"apiVersion": "apps/v1", "kind": "Deployment", "spec": {"selector": {
            "matchLabels": {"tier": "web", "app": "shop"},
            "matchExpressions": [{"key": "env", "operator": "In", "values": ["prod", "dev"]},
                                 {"key": "gone", "operator": "DoesNotExist"}]}}});
        assert_eq!(pod_selector(&deployment).unwrap(), "app=shop,env in (dev,prod),!gone,tier=web");
        let service = json!({"apiVersion": "v1", "kind": "Service", "spec": {"selector": {"b": "2", "a": "1"}}});
        assert_eq!(pod_selector(&service).unwrap(), "a=1,b=2");
        let job = json!({"apiVersion": "batch/v1", "kind": "Job", "spec": {"selector": {"matchLabels": {"x": "y"}}}});
        assert_eq!(pod_selector(&job).unwrap(), "x=y");
    }

    #[test]
    fn other_kinds_are_refused_in_kubectls_words() {
        let config_map = json!({"apiVersion": "v1", "kind": "ConfigMap"});
        assert_eq!(
            pod_selector(&config_map).unwrap_err().to_string(),
            "*v1.ConfigMap: selector for *v1.ConfigMap not implemented"
        );
        let custom = json!({"apiVersion": "example.com/v1", "kind": "Thing"});
        assert!(pod_selector(&custom).unwrap_err().to_string().contains("*unstructured.Unstructured"));
        let headless = json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "db"}, "spec": {}});
        assert_eq!(
            pod_selector(&headless).unwrap_err().to_string(),
            "*v1.Service: invalid service 'db': Service is defined without a selector"
        );
    }
}
