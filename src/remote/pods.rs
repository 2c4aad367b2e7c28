//! Which pod and container a streaming verb (exec, attach, cp, port-forward) works on, as kubectl
//! chooses them: a pod by name, or the first pod of a workload or Service (kubectl's
//! `AttachablePodForObjectFn`: the pods its selector selects, the most active first), and the
//! container `-c` names, else the `kubectl.kubernetes.io/default-container` annotation's, else
//! the first one, with kubectl's note when there were several (`podcmd`). Pure, on JSON objects.

use std::cmp::Ordering;

use serde_json::Value;

use crate::manifest::selector_text;

/// The annotation that names the container kubectl picks when `-c` is not given.
pub const DEFAULT_CONTAINER_ANNOTATION: &str = "kubectl.kubernetes.io/default-container";

/// The label selector of the pods a workload or Service runs (kubectl's `SelectorsForObject`),
/// or kubectl's error for an object that has none.
pub fn selector_for(object: &Value) -> Result<String, String> {
    let kind = object["kind"].as_str().unwrap_or_default();
    let api_version = object["apiVersion"].as_str().unwrap_or_default();
    let version = api_version.rsplit('/').next().unwrap_or_default();
    let go_type = format!("*{version}.{kind}");
    let selector = match kind {
        "ReplicaSet" | "StatefulSet" | "DaemonSet" | "Deployment" | "Job" => selector_text(&object["spec"]["selector"]),
        "ReplicationController" => map_selector(&object["spec"]["selector"]),
        "Service" => {
            let selector = &object["spec"]["selector"];
            if selector.as_object().is_none_or(|map| map.is_empty()) {
                let name = object["metadata"]["name"].as_str().unwrap_or_default();
                return Err(format!(
                    "cannot attach to {go_type}: invalid service '{name}': Service is defined without a selector"
                ));
            }
            map_selector(selector)
        }
        _ => return Err(format!("cannot attach to {go_type}: selector for {go_type} not implemented")),
    };
    Ok(selector)
}

/// A `map[string]string` selector as `labels.SelectorFromSet(...).String()` writes it.
fn map_selector(selector: &Value) -> String {
    let mut pairs: Vec<String> = (selector.as_object().into_iter().flatten())
        .map(|(key, value)| format!("{key}={}", value.as_str().unwrap_or_default()))
        .collect();
    pairs.sort();
    pairs.join(",")
}

/// The pod kubectl picks among `pods`: the most active one (kubectl sorts by
/// `sort.Reverse(podutils.ActivePods)` and takes the first).
pub fn most_active(pods: &[Value]) -> Option<&Value> {
    let mut sorted: Vec<&Value> = pods.iter().collect();
    // A stable sort by "less active": the most active last, ties in the listed order reversed as
    // Go's unstable sort may leave them; kubectl's choice among equal pods is not defined.
    sorted.sort_by(|a, b| less_active(b, a));
    sorted.first().copied()
}

fn phase_rank(pod: &Value) -> u8 {
    match pod["status"]["phase"].as_str().unwrap_or_default() {
        "Pending" => 0,
        "Unknown" => 1,
        "Running" => 2,
        _ => 3,
    }
}

fn ready_since(pod: &Value) -> Option<&str> {
    (pod["status"]["conditions"].as_array().into_iter().flatten())
        .find(|condition| condition["type"] == "Ready" && condition["status"] == "True")
        .map(|condition| condition["lastTransitionTime"].as_str().unwrap_or_default())
}

fn restarts(pod: &Value) -> i64 {
    (pod["status"]["containerStatuses"].as_array().into_iter().flatten())
        .map(|status| status["restartCount"].as_i64().unwrap_or_default())
        .max()
        .unwrap_or_default()
}

/// podutils' `ActivePods.Less`: `a` before `b` when `a` is less active.
fn less_active(a: &Value, b: &Value) -> Ordering {
    let assigned = |pod: &Value| pod["spec"]["nodeName"].as_str().is_some_and(|node| !node.is_empty());
    // 1. Unassigned < assigned; 2. Pending < Unknown < Running; 3. not ready < ready.
    let by_node = assigned(a).cmp(&assigned(b));
    let by_phase = phase_rank(a).cmp(&phase_rank(b));
    let by_ready = ready_since(a).is_some().cmp(&ready_since(b).is_some());
    // 4. Both ready: ready more recently < ready longer.
    let by_ready_time = match (ready_since(a), ready_since(b)) {
        (Some(a), Some(b)) => b.cmp(a),
        _ => Ordering::Equal,
    };
    // 5. More restarts < fewer restarts; 6. newer < older.
    let by_restarts = restarts(b).cmp(&restarts(a));
    let created = |pod: &Value| pod["metadata"]["creationTimestamp"].as_str().unwrap_or_default().to_string();
    let by_age = created(b).cmp(&created(a));
    by_node.then(by_phase).then(by_ready).then(by_ready_time).then(by_restarts).then(by_age)
}

/// podcmd's `AllContainerNames`: `a, b, debugger (ephem), setup (init)`.
pub fn all_container_names(pod: &Value) -> String {
    let names = |field: &str| -> Vec<String> {
        (pod["spec"][field].as_array().into_iter().flatten())
            .map(|container| container["name"].as_str().unwrap_or_default().to_string())
            .collect()
    };
    let mut all = names("containers");
    all.extend(names("ephemeralContainers").into_iter().map(|name| format!("{name} (ephem)")));
    all.extend(names("initContainers").into_iter().map(|name| format!("{name} (init)")));
    all.join(", ")
}

fn has_container(pod: &Value, name: &str) -> bool {
    ["containers", "initContainers", "ephemeralContainers"].iter().any(|field| {
        (pod["spec"][field].as_array().into_iter().flatten()).any(|container| container["name"].as_str() == Some(name))
    })
}

/// The container chosen, and kubectl's note to print on stderr (unless `--quiet`) when it was
/// picked among several.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chosen {
    pub name: String,
    pub note: Option<String>,
}

/// The container `-c` names (checked), else the pod's default: kubectl's exec and attach
/// (`FindOrDefaultContainerByName`).
pub fn container(pod: &Value, flag: Option<&str>) -> Result<Chosen, String> {
    let pod_name = pod["metadata"]["name"].as_str().unwrap_or_default();
    let invalid =
        |name: &str| format!("container {name} is not valid for pod {pod_name} out of: {}", all_container_names(pod));
    if let Some(name) = flag.filter(|name| !name.is_empty()) {
        return if has_container(pod, name) {
            Ok(Chosen { name: name.into(), note: None })
        } else {
            Err(invalid(name))
        };
    }
    let containers = pod["spec"]["containers"].as_array().cloned().unwrap_or_default();
    if containers.is_empty() {
        let namespace = pod["metadata"]["namespace"].as_str().unwrap_or_default();
        return Err(format!("pod {namespace}/{pod_name} does not have any containers"));
    }
    if let Some(name) =
        pod["metadata"]["annotations"][DEFAULT_CONTAINER_ANNOTATION].as_str().filter(|name| !name.is_empty())
    {
        return if has_container(pod, name) {
            Ok(Chosen { name: name.into(), note: None })
        } else {
            Err(invalid(name))
        };
    }
    let first = containers[0]["name"].as_str().unwrap_or_default().to_string();
    let others = |field: &str| pod["spec"][field].as_array().is_some_and(|list| !list.is_empty());
    let several = containers.len() > 1 || others("initContainers") || others("ephemeralContainers");
    let note = several.then(|| format!("Defaulted container {first:?} out of: {}", all_container_names(pod)));
    Ok(Chosen { name: first, note })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn workloads_and_services_give_their_pods_selector() {
        let deployment = json!({"apiVersion": "apps/v1", "kind": "Deployment", "spec": {"selector": {"matchLabels": {"app": "web", "tier": "a"}}}});
        assert_eq!(selector_for(&deployment).unwrap(), "app=web,tier=a");
        let service = json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s"}, "spec": {"selector": {"b": "2", "a": "1"}}});
        assert_eq!(selector_for(&service).unwrap(), "a=1,b=2");
        let bare = json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s"}, "spec": {}});
        assert_eq!(
            selector_for(&bare).unwrap_err(),
            "cannot attach to *v1.Service: invalid service 's': Service is defined without a selector"
        );
        let map = json!({"apiVersion": "v1", "kind": "ConfigMap"});
        assert_eq!(
            selector_for(&map).unwrap_err(),
            "cannot attach to *v1.ConfigMap: selector for *v1.ConfigMap not implemented"
        );
    }

    #[test]
    fn the_most_active_pod_is_chosen() {
        let pod = |name: &str, node: &str, phase: &str, ready: Option<&str>| {
            let conditions = ready.map(|time| json!([{"type": "Ready", "status": "True", "lastTransitionTime": time}]));
            json!({"metadata": {"name": name, "creationTimestamp": "2026-01-01T00:00:00Z"}, "spec": {"nodeName": node},
                   "status": {"phase": phase, "conditions": conditions.unwrap_or(json!([]))}})
        };
        let pods = [
            pod("pending", "", "Pending", None),
            pod("running-not-ready", "n", "Running", None),
            pod("ready-late", "n", "Running", Some("2026-01-01T00:05:00Z")),
            pod("ready-early", "n", "Running", Some("2026-01-01T00:01:00Z")),
        ];
        assert_eq!(most_active(&pods).unwrap()["metadata"]["name"], "ready-early");
        assert_eq!(most_active(&pods[..2]).unwrap()["metadata"]["name"], "running-not-ready");
        assert!(most_active(&[]).is_none());
    }

    #[test]
    fn containers_are_chosen_as_kubectl_chooses_them() {
        let pod = json!({"metadata": {"name": "p", "namespace": "ns"}, "spec": {
            "containers": [{"name": "a"}, {"name": "b"}], "initContainers": [{"name": "setup"}]}});
        assert_eq!(
            container(&pod, None).unwrap(),
            Chosen { name: "a".into(), note: Some(r#"Defaulted container "a" out of: a, b, setup (init)"#.into()) }
        );
        assert_eq!(container(&pod, Some("b")).unwrap(), Chosen { name: "b".into(), note: None });
        assert_eq!(container(&pod, Some("setup")).unwrap().name, "setup");
        assert_eq!(
            container(&pod, Some("z")).unwrap_err(),
            "container z is not valid for pod p out of: a, b, setup (init)"
        );
        let one = json!({"metadata": {"name": "p"}, "spec": {"containers": [{"name": "only"}]}});
        assert_eq!(container(&one, None).unwrap(), Chosen { name: "only".into(), note: None });
        let annotated = json!({"metadata": {"name": "p", "annotations": {DEFAULT_CONTAINER_ANNOTATION: "b"}},
                               "spec": {"containers": [{"name": "a"}, {"name": "b"}]}});
        assert_eq!(container(&annotated, None).unwrap(), Chosen { name: "b".into(), note: None });
        let empty = json!({"metadata": {"name": "p", "namespace": "ns"}, "spec": {"containers": []}});
        assert_eq!(container(&empty, None).unwrap_err(), "pod ns/p does not have any containers");
    }
}
