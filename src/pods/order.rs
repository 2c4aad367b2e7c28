//! kubectl's orders of pods (k8s.io/kubectl pkg/util/podutils): `ByLogging`, the pod whose log is
//! most worth showing first, and `ActivePods`, the pod exec, attach and port-forward use.

use std::cmp::Ordering;

use serde_json::Value;

/// Sorts `pods` as kubectl sorts the pods of a workload before it shows the first one's log:
/// scheduled before unscheduled; Running, then Unknown, then Pending (other phases with Running);
/// ready before not ready; ready longer before ready shorter; more restarts before fewer; older
/// before newer. The sort is stable, as Go's is for the few pods a workload has.
pub fn sort_for_logging(pods: &mut [Value]) {
    pods.sort_by(compare);
}

/// The pod kubectl's exec, attach and port-forward use among `pods`: the most active one (kubectl
/// sorts by `sort.Reverse(podutils.ActivePods)` and takes the first).
pub fn most_active(pods: &[Value]) -> Option<&Value> {
    pods.iter().max_by(|a, b| less_active(a, b))
}

/// podutils' `ActivePods.Less`: whether `a` is less active than `b`, as an ordering: unassigned
/// before assigned; Pending, Unknown, Running; not ready before ready; ready for less time before
/// longer (an unknown time least); more restarts before fewer; newer before older (an unknown
/// creation time first).
fn less_active(a: &Value, b: &Value) -> Ordering {
    let node = |pod: &Value| pod["spec"]["nodeName"].as_str().unwrap_or_default().to_string();
    let (node_a, node_b) = (node(a), node(b));
    if node_a != node_b && (node_a.is_empty() || node_b.is_empty()) {
        return if node_a.is_empty() { Ordering::Less } else { Ordering::Greater };
    }
    let phase = |pod: &Value| match pod["status"]["phase"].as_str().unwrap_or_default() {
        "Pending" => 0,
        "Unknown" => 1,
        "Running" => 2,
        _ => 0,
    };
    let by_phase = phase(a).cmp(&phase(b));
    if by_phase != Ordering::Equal {
        return by_phase;
    }
    let (ready_a, ready_b) = (ready_since(a), ready_since(b));
    if ready_a.is_some() != ready_b.is_some() {
        return if ready_a.is_some() { Ordering::Greater } else { Ordering::Less };
    }
    if let (Some(since_a), Some(since_b)) = (&ready_a, &ready_b)
        && since_a != since_b
    {
        // `afterOrZero(a, b)`: ready since later (or an unknown time) is less active.
        return earlier_or_known_first(since_a, since_b).reverse();
    }
    let (restarts_a, restarts_b) = (restarts(a), restarts(b));
    if restarts_a != restarts_b {
        return restarts_b.cmp(&restarts_a);
    }
    let created = |pod: &Value| pod["metadata"]["creationTimestamp"].as_str().unwrap_or_default().to_string();
    earlier_or_known_first(&created(a), &created(b)).reverse()
}

fn compare(a: &Value, b: &Value) -> Ordering {
    let node = |pod: &Value| pod["spec"]["nodeName"].as_str().unwrap_or_default().to_string();
    let (node_a, node_b) = (node(a), node(b));
    if node_a != node_b && (node_a.is_empty() || node_b.is_empty()) {
        return if node_a.is_empty() { Ordering::Greater } else { Ordering::Less };
    }
    let phase = |pod: &Value| match pod["status"]["phase"].as_str().unwrap_or_default() {
        "Unknown" => 1,
        "Pending" => 2,
        _ => 0,
    };
    let by_phase = phase(a).cmp(&phase(b));
    if by_phase != Ordering::Equal {
        return by_phase;
    }
    let (ready_a, ready_b) = (ready_since(a), ready_since(b));
    if ready_a.is_some() != ready_b.is_some() {
        return if ready_a.is_some() { Ordering::Less } else { Ordering::Greater };
    }
    if let (Some(since_a), Some(since_b)) = (&ready_a, &ready_b)
        && since_a != since_b
    {
        // Ready for more time first; an unknown time last.
        return earlier_or_known_first(since_a, since_b);
    }
    let (restarts_a, restarts_b) = (restarts(a), restarts(b));
    if restarts_a != restarts_b {
        return restarts_b.cmp(&restarts_a);
    }
    let created = |pod: &Value| pod["metadata"]["creationTimestamp"].as_str().unwrap_or_default().to_string();
    let (created_a, created_b) = (created(a), created(b));
    if created_a != created_b {
        return earlier_or_known_first(&created_a, &created_b);
    }
    Ordering::Equal
}

/// `Less` when `a` is before `b`, an empty time counting as after every other: kubectl's
/// `afterOrZero(b, a)`. RFC 3339 times of the same zone (the server's, UTC) sort as text.
fn earlier_or_known_first(a: &str, b: &str) -> Ordering {
    match (a.is_empty(), b.is_empty()) {
        (true, false) => Ordering::Greater,
        (false, true) => Ordering::Less,
        _ => a.cmp(b),
    }
}

/// Since when the pod is ready (its `Ready` condition's transition time, possibly empty), or
/// `None` when it is not ready.
fn ready_since(pod: &Value) -> Option<String> {
    let conditions = pod["status"]["conditions"].as_array()?;
    let ready = conditions.iter().find(|condition| condition["type"] == "Ready")?;
    (ready["status"] == "True").then(|| ready["lastTransitionTime"].as_str().unwrap_or_default().to_string())
}

/// The most restarts of a regular container, then of a sidecar (an init container that restarts
/// always).
fn restarts(pod: &Value) -> (i64, i64) {
    let most = |statuses: &Value, counted: &dyn Fn(&Value) -> bool| {
        (statuses.as_array().into_iter().flatten())
            .filter(|status| counted(status))
            .map(|status| status["restartCount"].as_i64().unwrap_or(0))
            .max()
            .unwrap_or(0)
    };
    let sidecars: Vec<&str> = (pod["spec"]["initContainers"].as_array().into_iter().flatten())
        .filter(|container| container["restartPolicy"] == "Always")
        .filter_map(|container| container["name"].as_str())
        .collect();
    let regular = most(&pod["status"]["containerStatuses"], &|_| true);
    let sidecar = most(&pod["status"]["initContainerStatuses"], &|status| {
        status["name"].as_str().is_some_and(|name| sidecars.contains(&name))
    });
    (regular, sidecar)
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;

    fn pod(name: &str, node: &str, phase: &str, ready_since: Option<&str>, restarts: i64, created: &str) -> Value {
        let conditions = match ready_since {
            Some(since) => json!([{"type": "Ready", "status": "True", "lastTransitionTime": since}]),
            None => json!([{"type": "Ready", "status": "False"}]),
        };
        json!({"metadata": {"name": name, "creationTimestamp": created}, "spec": {"nodeName": node},
               "status": {"phase": phase, "conditions": conditions,
                          "containerStatuses": [{"name": "app", "restartCount": restarts}]}})
    }

    fn names(pods: &[Value]) -> Vec<&str> {
        pods.iter().map(|pod| pod["metadata"]["name"].as_str().unwrap()).collect()
    }

    #[test]
    fn the_pod_most_worth_reading_comes_first() {
        let t = |minute: u32| format!("2026-01-01T00:{minute:02}:00Z");
        let mut pods = vec![
            pod("unscheduled", "", "Pending", None, 0, &t(0)),
            pod("pending", "n", "Pending", None, 0, &t(0)),
            pod("unknown", "n", "Unknown", None, 0, &t(0)),
            pod("not-ready", "n", "Running", None, 0, &t(0)),
            pod("ready-late", "n", "Running", Some(&t(9)), 0, &t(0)),
            pod("ready-early", "n", "Running", Some(&t(1)), 0, &t(0)),
            pod("restarted", "n", "Running", None, 3, &t(5)),
            pod("newer", "n", "Running", None, 0, &t(7)),
        ];
        sort_for_logging(&mut pods);
        assert_eq!(
            names(&pods),
            ["ready-early", "ready-late", "restarted", "not-ready", "newer", "unknown", "pending", "unscheduled"]
        );
    }

    #[test]
    fn equal_pods_keep_their_order() {
        let mut pods: Vec<Value> =
            ["b", "a", "c"].iter().map(|name| pod(name, "n", "Running", None, 0, "2026-01-01T00:00:00Z")).collect();
        sort_for_logging(&mut pods);
        assert_eq!(names(&pods), ["b", "a", "c"]);
    }

    #[test]
    fn the_most_active_pod_is_the_one_exec_uses() {
        let pods = [
            pod("pending", "", "Pending", None, 0, "2026-01-01T00:00:00Z"),
            pod("running-not-ready", "n", "Running", None, 0, "2026-01-01T00:00:00Z"),
            pod("ready-late", "n", "Running", Some("2026-01-01T00:05:00Z"), 0, "2026-01-01T00:00:00Z"),
            pod("ready-early", "n", "Running", Some("2026-01-01T00:01:00Z"), 0, "2026-01-01T00:00:00Z"),
            pod("ready-early-restarting", "n", "Running", Some("2026-01-01T00:01:00Z"), 4, "2026-01-01T00:00:00Z"),
        ];
        let name = |pod: Option<&Value>| pod.map(|pod| pod["metadata"]["name"].as_str().unwrap().to_string());
        assert_eq!(name(most_active(&pods)), Some("ready-early".into()));
        assert_eq!(name(most_active(&pods[..2])), Some("running-not-ready".into()));
        assert_eq!(name(most_active(&pods[..1])), Some("pending".into()));
        assert!(most_active(&[]).is_none());
    }
}
