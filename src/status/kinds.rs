//! The rules of the kinds whose controllers report progress in their own fields.

use serde_json::Value;

use super::{Readiness, condition, int, pods};

fn in_progress(reason: impl Into<String>) -> Readiness {
    Readiness::InProgress(reason.into())
}

/// `created` / `updated` / ... counts against the desired number, the first that falls short.
fn first_short(counts: &[(&str, i64)], desired: i64) -> Option<String> {
    counts.iter().find(|(_, count)| *count < desired).map(|(what, count)| format!("{count} of {desired} {what}"))
}

/// Replicas beyond the desired number, still to go.
fn extra(replicas: i64, desired: i64) -> Option<String> {
    (replicas > desired).then(|| format!("{} old replicas pending termination", replicas - desired))
}

/// Updated, ready and available replicas equal to the desired replicas, and the controller's
/// `Progressing` and `Available` conditions say so; a progress deadline exceeded is a failure.
pub(super) fn deployment(object: &Value) -> Readiness {
    let progressing = condition(object, "Progressing");
    if let Some(progressing) = progressing.filter(|progressing| progressing.reason == "ProgressDeadlineExceeded") {
        return Readiness::Failed(progressing.describe("Progressing"));
    }
    let desired = int(object, "/spec/replicas", 1);
    let replicas = int(object, "/status/replicas", 0);
    let updated = int(object, "/status/updatedReplicas", 0);
    let short = first_short(&[("replicas created", replicas), ("replicas updated", updated)], desired)
        .or_else(|| extra(replicas, desired))
        .or_else(|| {
            let counts = [
                ("replicas available", int(object, "/status/availableReplicas", 0)),
                ("replicas ready", int(object, "/status/readyReplicas", 0)),
            ];
            first_short(&counts, desired)
        })
        .or_else(|| {
            // Without a progress deadline the controller never reports progress: nothing to wait for.
            let deadline = object.pointer("/spec/progressDeadlineSeconds").is_some();
            let new_set_available = progressing.is_some_and(|p| p.is("True") && p.reason == "NewReplicaSetAvailable");
            (deadline && !new_set_available).then(|| "the new ReplicaSet is not yet available".to_string())
        })
        .or_else(|| {
            let available = condition(object, "Available");
            (!available.is_some_and(|available| available.is("True")))
                .then(|| available.map_or("the Available condition is not set yet".into(), |a| a.describe("Available")))
        });
    match (short, progressing) {
        (None, _) => Readiness::Current,
        (Some(reason), Some(progressing)) if !progressing.message.is_empty() => {
            in_progress(format!("{reason}; {}", progressing.describe("Progressing")))
        }
        (Some(reason), _) => in_progress(reason),
    }
}

/// Ready replicas equal to the desired replicas, and the update revision rolled out to all of them
/// (or to those above the partition); a StatefulSet updated `OnDelete` is left to its user.
pub(super) fn stateful_set(object: &Value) -> Readiness {
    if object.pointer("/spec/updateStrategy/type").and_then(Value::as_str) == Some("OnDelete") {
        return Readiness::Current;
    }
    let desired = int(object, "/spec/replicas", 1);
    let replicas = int(object, "/status/replicas", 0);
    let counts = [("replicas created", replicas), ("replicas ready", int(object, "/status/readyReplicas", 0))];
    if let Some(reason) = first_short(&counts, desired).or_else(|| extra(replicas, desired)) {
        return in_progress(reason);
    }
    let updated = int(object, "/status/updatedReplicas", 0);
    if let Some(partition) = object.pointer("/spec/updateStrategy/rollingUpdate/partition").and_then(Value::as_i64) {
        let to_update = desired - partition;
        return match updated < to_update {
            true => in_progress(format!("{updated} of {to_update} replicas above partition {partition} updated")),
            false => Readiness::Current,
        };
    }
    if let Some(reason) = first_short(&[("replicas current", int(object, "/status/currentReplicas", 0))], desired) {
        return in_progress(reason);
    }
    let text = |field: &str| object["status"][field].as_str().unwrap_or_default();
    let (current, update) = (text("currentRevision"), text("updateRevision"));
    if current != update {
        return in_progress(format!("revision {update} not yet rolled out (current revision {current})"));
    }
    Readiness::Current
}

/// Desired, updated and available pods all equal, as the controller counts them.
pub(super) fn daemon_set(object: &Value) -> Readiness {
    // The controller always sets both; without them it has not acted on the DaemonSet yet.
    if object["metadata"]["generation"].as_i64().is_none() || object["status"]["observedGeneration"].as_i64().is_none()
    {
        return in_progress("not yet observed by its controller");
    }
    let Some(desired) = object.pointer("/status/desiredNumberScheduled").and_then(Value::as_i64) else {
        return in_progress("the controller has not yet counted the nodes to run on");
    };
    let counts = [
        ("pods scheduled", int(object, "/status/currentNumberScheduled", 0)),
        ("pods updated", int(object, "/status/updatedNumberScheduled", 0)),
        ("pods available", int(object, "/status/numberAvailable", 0)),
        ("pods ready", int(object, "/status/numberReady", 0)),
    ];
    first_short(&counts, desired).map_or(Readiness::Current, in_progress)
}

/// Labelled, available and ready replicas equal to the desired replicas.
pub(super) fn replica_set(object: &Value) -> Readiness {
    if let Some(failure) = condition(object, "ReplicaFailure").filter(|failure| failure.is("True")) {
        return in_progress(failure.describe("ReplicaFailure"));
    }
    let desired = int(object, "/spec/replicas", 1);
    let counts = [
        ("replicas labelled", int(object, "/status/fullyLabeledReplicas", 0)),
        ("replicas available", int(object, "/status/availableReplicas", 0)),
        ("replicas ready", int(object, "/status/readyReplicas", 0)),
    ];
    let reason = first_short(&counts, desired).or_else(|| extra(int(object, "/status/replicas", 0), desired));
    reason.map_or(Readiness::Current, in_progress)
}

/// Complete; failed is a failure; a suspended Job waits for its user.
pub(super) fn job(object: &Value) -> Readiness {
    if condition(object, "Complete").is_some_and(|complete| complete.is("True")) {
        return Readiness::Current;
    }
    if let Some(failed) = condition(object, "Failed").filter(|failed| failed.is("True")) {
        return Readiness::Failed(failed.describe("Failed"));
    }
    if condition(object, "Suspended").is_some_and(|suspended| suspended.is("True")) {
        return Readiness::Current;
    }
    if object["status"]["startTime"].as_str().is_none() {
        return in_progress("not started");
    }
    let parallelism = int(object, "/spec/parallelism", 1);
    let completions = int(object, "/spec/completions", parallelism);
    in_progress(format!(
        "running: {} of {completions} completions succeeded, {} active, {} failed",
        int(object, "/status/succeeded", 0),
        int(object, "/status/active", 0),
        int(object, "/status/failed", 0)
    ))
}

/// Ready, or completed; the phase `Failed`, or a container waiting for a reason that no retry cures
/// ([`pods::TERMINAL_WAITING_REASONS`]: kstatus's crash loop, and image and configuration errors),
/// is a failure.
pub(super) fn pod(object: &Value) -> Readiness {
    let status = &object["status"];
    match status["phase"].as_str().unwrap_or_default() {
        "Succeeded" => Readiness::Current,
        "Failed" => {
            let why = [status["message"].as_str(), status["reason"].as_str()].into_iter().flatten().next();
            Readiness::Failed(why.map_or("phase Failed".into(), |why| format!("phase Failed: {why}")))
        }
        "Running" => {
            let ready = condition(object, "Ready");
            if ready.is_some_and(|ready| ready.is("True")) {
                return Readiness::Current;
            }
            if let Some(failure) = pods::container_failure(object) {
                return Readiness::Failed(failure);
            }
            in_progress(ready.map_or("running, not yet Ready".into(), |ready| ready.describe("Ready")))
        }
        "Pending" => match (pods::container_failure(object), condition(object, "PodScheduled")) {
            (Some(failure), _) => Readiness::Failed(failure),
            (None, Some(unscheduled)) if unscheduled.is("False") => in_progress(unscheduled.describe("PodScheduled")),
            (None, _) => in_progress("Pending"),
        },
        "" => in_progress("not yet scheduled"),
        other => in_progress(format!("phase {other}")),
    }
}

/// Bound to a volume.
pub(super) fn persistent_volume_claim(object: &Value) -> Readiness {
    match object["status"]["phase"].as_str() {
        Some("Bound") => Readiness::Current,
        Some(phase) => in_progress(format!("phase {phase}, not Bound")),
        None => in_progress("not yet Bound"),
    }
}

/// A Service of type LoadBalancer has an ingress address; others are ready at once.
pub(super) fn service(object: &Value) -> Readiness {
    if object["spec"]["type"].as_str() != Some("LoadBalancer") {
        return Readiness::Current;
    }
    match object.pointer("/status/loadBalancer/ingress").and_then(Value::as_array) {
        Some(ingress) if !ingress.is_empty() => Readiness::Current,
        _ => in_progress("no load balancer address yet"),
    }
}

/// Active (the API server makes a namespace Active when it creates it).
pub(super) fn namespace(object: &Value) -> Readiness {
    match object["status"]["phase"].as_str() {
        None | Some("Active") => Readiness::Current,
        Some(phase) => in_progress(format!("phase {phase}")),
    }
}

/// Established with its names accepted; names refused, or not established for another reason
/// than installing, are failures.
pub(super) fn custom_resource_definition(object: &Value) -> Readiness {
    let names = condition(object, "NamesAccepted");
    if let Some(refused) = names.filter(|names| names.is("False")) {
        return Readiness::Failed(refused.describe("NamesAccepted"));
    }
    let established = condition(object, "Established");
    if let Some(not) = established.filter(|established| established.is("False") && established.reason != "Installing") {
        return Readiness::Failed(not.describe("Established"));
    }
    match (established, names) {
        (Some(established), Some(names)) if established.is("True") && names.is("True") => Readiness::Current,
        _ => in_progress("not yet established"),
    }
}

#[cfg(test)]
mod tests {
    use super::super::readiness;
    use super::*;
    use serde_json::json;

    fn in_progress(reason: &str) -> Readiness {
        Readiness::InProgress(reason.into())
    }

    /// A Deployment of 3 replicas at generation 2, with the status a controller would report.
    fn deployment(status: Value) -> Value {
        json!({
            "apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "web", "generation": 2},
            "spec": {"replicas": 3, "progressDeadlineSeconds": 600},
            "status": status
        })
    }

    fn rolled_out(replicas: i64) -> Value {
        json!({
            "observedGeneration": 2, "replicas": replicas, "updatedReplicas": replicas,
            "readyReplicas": replicas, "availableReplicas": replicas,
            "conditions": [
                {"type": "Available", "status": "True", "reason": "MinimumReplicasAvailable"},
                {"type": "Progressing", "status": "True", "reason": "NewReplicaSetAvailable",
                 "message": "ReplicaSet \"web-5d9\" has successfully progressed."}
            ]
        })
    }

    #[test]
    fn deployments_are_current_once_rolled_out() {
        let check = |status: Value| readiness("apps", "Deployment", &deployment(status));
        assert_eq!(check(rolled_out(3)), Readiness::Current);
        assert_eq!(check(json!({})), in_progress("0 of 3 replicas created"));
        let mut status = rolled_out(3);
        status["observedGeneration"] = json!(1);
        assert_eq!(check(status), in_progress("generation 2 not yet observed by its controller (it has seen 1)"));
        let mut status = rolled_out(3);
        status["availableReplicas"] = json!(1);
        status["conditions"][1] = json!({"type": "Progressing", "status": "True", "reason": "ReplicaSetUpdated",
            "message": "ReplicaSet \"web-5d9\" is progressing."});
        assert_eq!(
            check(status),
            in_progress("1 of 3 replicas available; Progressing: ReplicaSet \"web-5d9\" is progressing.")
        );
        let mut status = rolled_out(3);
        status["updatedReplicas"] = json!(2);
        assert!(
            matches!(check(status), Readiness::InProgress(reason) if reason.starts_with("2 of 3 replicas updated"))
        );
        let mut status = rolled_out(3);
        status["replicas"] = json!(4);
        assert!(matches!(check(status), Readiness::InProgress(reason) if reason.starts_with("1 old replicas pending")));
        let mut status = rolled_out(3);
        status["readyReplicas"] = json!(2);
        assert!(matches!(check(status), Readiness::InProgress(reason) if reason.starts_with("2 of 3 replicas ready")));
        let mut status = rolled_out(3);
        status["conditions"][0]["status"] = json!("False");
        assert_eq!(
            check(status),
            in_progress(
                "Available: MinimumReplicasAvailable; Progressing: ReplicaSet \"web-5d9\" has successfully progressed."
            )
        );
    }

    #[test]
    fn an_exceeded_progress_deadline_fails_a_deployment() {
        let mut status = rolled_out(1);
        status["conditions"][1] = json!({"type": "Progressing", "status": "False", "reason": "ProgressDeadlineExceeded",
            "message": "ReplicaSet \"web-5d9\" has timed out progressing."});
        assert_eq!(
            readiness("apps", "Deployment", &deployment(status)),
            Readiness::Failed("Progressing: ReplicaSet \"web-5d9\" has timed out progressing.".into())
        );
    }

    #[test]
    fn stateful_sets_need_ready_replicas_and_the_update_revision() {
        let set = |status: Value, strategy: Value| json!({"metadata": {"generation": 1}, "spec": {"replicas": 2, "updateStrategy": strategy}, "status": status});
        let done = json!({"observedGeneration": 1, "replicas": 2, "readyReplicas": 2, "currentReplicas": 2,
            "updatedReplicas": 2, "currentRevision": "web-1", "updateRevision": "web-1"});
        let rolling = json!({"type": "RollingUpdate"});
        assert_eq!(readiness("apps", "StatefulSet", &set(done.clone(), rolling.clone())), Readiness::Current);
        let mut status = done.clone();
        status["readyReplicas"] = json!(1);
        assert_eq!(
            readiness("apps", "StatefulSet", &set(status, rolling.clone())),
            in_progress("1 of 2 replicas ready")
        );
        let mut status = done.clone();
        status["updateRevision"] = json!("web-2");
        assert_eq!(
            readiness("apps", "StatefulSet", &set(status.clone(), rolling)),
            in_progress("revision web-2 not yet rolled out (current revision web-1)")
        );
        assert_eq!(readiness("apps", "StatefulSet", &set(json!({}), json!({"type": "OnDelete"}))), Readiness::Current);
        let partitioned = json!({"type": "RollingUpdate", "rollingUpdate": {"partition": 1}});
        status["updatedReplicas"] = json!(0);
        assert_eq!(
            readiness("apps", "StatefulSet", &set(status, partitioned)),
            in_progress("0 of 1 replicas above partition 1 updated")
        );
    }

    #[test]
    fn daemon_sets_need_every_desired_pod_updated_and_available() {
        let set = |status: Value| json!({"metadata": {"generation": 1}, "status": status});
        let done = json!({"observedGeneration": 1, "desiredNumberScheduled": 3, "currentNumberScheduled": 3,
            "updatedNumberScheduled": 3, "numberAvailable": 3, "numberReady": 3});
        assert_eq!(readiness("apps", "DaemonSet", &set(done.clone())), Readiness::Current);
        let mut status = done;
        status["numberAvailable"] = json!(2);
        assert_eq!(readiness("apps", "DaemonSet", &set(status)), in_progress("2 of 3 pods available"));
        assert_eq!(readiness("apps", "DaemonSet", &set(json!({}))), in_progress("not yet observed by its controller"));
        assert_eq!(
            readiness("apps", "DaemonSet", &set(json!({"observedGeneration": 1}))),
            in_progress("the controller has not yet counted the nodes to run on")
        );
    }

    #[test]
    fn replica_sets_need_available_and_ready_replicas() {
        let set = |status: Value| json!({"spec": {"replicas": 2}, "status": status});
        let done = json!({"replicas": 2, "fullyLabeledReplicas": 2, "availableReplicas": 2, "readyReplicas": 2});
        assert_eq!(readiness("apps", "ReplicaSet", &set(done.clone())), Readiness::Current);
        let mut status = done;
        status["readyReplicas"] = json!(0);
        assert_eq!(readiness("apps", "ReplicaSet", &set(status)), in_progress("0 of 2 replicas ready"));
    }

    #[test]
    fn jobs_are_current_when_complete_and_failed_when_failed() {
        let job = |status: Value| json!({"spec": {"completions": 2}, "status": status});
        let condition = |kind: &str| json!({"conditions": [{"type": kind, "status": "True", "message": "it did"}]});
        assert_eq!(readiness("batch", "Job", &job(condition("Complete"))), Readiness::Current);
        assert_eq!(readiness("batch", "Job", &job(condition("Failed"))), Readiness::Failed("Failed: it did".into()));
        assert_eq!(readiness("batch", "Job", &job(json!({}))), in_progress("not started"));
        assert_eq!(
            readiness("batch", "Job", &job(json!({"startTime": "2024-01-01T00:00:00Z", "active": 1, "succeeded": 1}))),
            in_progress("running: 1 of 2 completions succeeded, 1 active, 0 failed")
        );
    }

    #[test]
    fn pods_are_current_when_ready_or_succeeded_and_failed_when_failed() {
        let pod = |status: Value| json!({"status": status});
        let ready = json!({"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}]});
        assert_eq!(readiness("", "Pod", &pod(ready)), Readiness::Current);
        assert_eq!(readiness("", "Pod", &pod(json!({"phase": "Succeeded"}))), Readiness::Current);
        assert_eq!(
            readiness("", "Pod", &pod(json!({"phase": "Failed", "reason": "Evicted"}))),
            Readiness::Failed("phase Failed: Evicted".into())
        );
        let crashing = json!({"phase": "Running", "containerStatuses": [
            {"name": "app", "state": {"waiting": {"reason": "CrashLoopBackOff"}}},
            {"name": "sidecar", "state": {"running": {}}}
        ]});
        assert_eq!(readiness("", "Pod", &pod(crashing)), Readiness::Failed("container app: CrashLoopBackOff".into()));
        let pulling = json!({"phase": "Pending", "containerStatuses": [
            {"name": "app", "state": {"waiting": {"reason": "ImagePullBackOff", "message": "Back-off pulling image \"x\""}}}
        ]});
        assert_eq!(
            readiness("", "Pod", &pod(pulling)),
            Readiness::Failed("container app: ImagePullBackOff: Back-off pulling image \"x\"".into())
        );
        let unscheduled = json!({"phase": "Pending", "conditions": [{"type": "PodScheduled", "status": "False",
            "reason": "Unschedulable", "message": "0/3 nodes are available"}]});
        assert_eq!(readiness("", "Pod", &pod(unscheduled)), in_progress("PodScheduled: 0/3 nodes are available"));
        assert_eq!(readiness("", "Pod", &json!({"metadata": {"name": "p"}})), in_progress("not yet scheduled"));
    }

    #[test]
    fn claims_services_and_namespaces() {
        assert_eq!(readiness("", "PersistentVolumeClaim", &json!({"status": {"phase": "Bound"}})), Readiness::Current);
        assert_eq!(
            readiness("", "PersistentVolumeClaim", &json!({"status": {"phase": "Pending"}})),
            in_progress("phase Pending, not Bound")
        );
        let balancer = |status: Value| json!({"spec": {"type": "LoadBalancer"}, "status": status});
        assert_eq!(
            readiness("", "Service", &balancer(json!({"loadBalancer": {}}))),
            in_progress("no load balancer address yet")
        );
        assert_eq!(
            readiness("", "Service", &balancer(json!({"loadBalancer": {"ingress": [{"ip": "10.0.0.9"}]}}))),
            Readiness::Current
        );
        assert_eq!(readiness("", "Service", &json!({"spec": {"type": "ClusterIP"}})), Readiness::Current);
        assert_eq!(readiness("", "Namespace", &json!({"status": {"phase": "Active"}})), Readiness::Current);
        assert_eq!(
            readiness("", "Namespace", &json!({"status": {"phase": "Terminating"}})),
            in_progress("phase Terminating")
        );
    }

    #[test]
    fn custom_resource_definitions_need_established_and_accepted_names() {
        let crd = |conditions: Value| json!({"status": {"conditions": conditions}});
        let group = "apiextensions.k8s.io";
        let kind = "CustomResourceDefinition";
        let accepted = json!({"type": "NamesAccepted", "status": "True"});
        assert_eq!(
            readiness(group, kind, &crd(json!([accepted, {"type": "Established", "status": "True"}]))),
            Readiness::Current
        );
        assert_eq!(
            readiness(
                group,
                kind,
                &crd(json!([accepted, {"type": "Established", "status": "False", "reason": "Installing"}]))
            ),
            in_progress("not yet established")
        );
        assert_eq!(
            readiness(
                group,
                kind,
                &crd(json!([{"type": "NamesAccepted", "status": "False", "message": "\"widgets\" is already in use"}]))
            ),
            Readiness::Failed("NamesAccepted: \"widgets\" is already in use".into())
        );
    }
}
