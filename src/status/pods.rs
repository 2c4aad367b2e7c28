//! Pods that keep a rollout from finishing: a container the kubelet reports waiting for a reason
//! that no retry cures without a change (an image that cannot be pulled, a crash loop, a missing
//! ConfigMap), and which pods are the rollout's (a Deployment's newest ReplicaSet's, a
//! StatefulSet's update revision's, a DaemonSet's, a Job's, a ReplicaSet's own).
//!
//! kstatus (sigs.k8s.io/cli-utils) fails a pod whose container waits in `CrashLoopBackOff`;
//! Argo CD's health calls the others Degraded too. Pure: the caller reads the pods.

use serde_json::Value;

/// A container's waiting reasons that end a wait: kstatus's `CrashLoopBackOff`, and the image,
/// configuration and creation errors Argo CD's pod health counts as Degraded.
pub const TERMINAL_WAITING_REASONS: &[&str] = &[
    "CrashLoopBackOff",
    "ImagePullBackOff",
    "ErrImagePull",
    "InvalidImageName",
    "CreateContainerConfigError",
    "CreateContainerError",
];

/// Why `pod` cannot become ready without a change, from its containers (init containers first):
/// `container app: ImagePullBackOff: Back-off pulling image "x"`. `None` when no container waits
/// for a terminal reason.
pub fn container_failure(pod: &Value) -> Option<String> {
    let status = &pod["status"];
    let containers = ["initContainerStatuses", "containerStatuses"]
        .into_iter()
        .flat_map(|field| status[field].as_array().into_iter().flatten());
    containers.into_iter().find_map(|container| {
        let waiting = &container["state"]["waiting"];
        let reason = waiting["reason"].as_str().filter(|reason| TERMINAL_WAITING_REASONS.contains(reason))?;
        let name = container["name"].as_str().unwrap_or_default();
        Some(match waiting["message"].as_str().filter(|message| !message.is_empty()) {
            Some(message) => format!("container {name}: {reason}: {message}"),
            None => format!("container {name}: {reason}"),
        })
    })
}

/// Whether the pods of objects of `kind` in `group` tell whether a rollout of it can finish.
pub fn has_rollout_pods(group: &str, kind: &str) -> bool {
    matches!((group, kind), ("apps", "Deployment" | "StatefulSet" | "DaemonSet" | "ReplicaSet") | ("batch", "Job"))
}

/// Whether the pods of a `kind` in `group` are found through its ReplicaSets (a Deployment's).
pub fn through_replica_sets(group: &str, kind: &str) -> bool {
    (group, kind) == ("apps", "Deployment")
}

/// Why the rollout of `workload` (a kind [`has_rollout_pods`] accepts) cannot finish, from the
/// pods of its namespace (and, for a Deployment, its ReplicaSets): the first of its rollout's
/// pods, by name, whose container [`container_failure`] fails, as `pod NAME: container ...`.
/// `None` while its controller has not observed its latest generation (the pods may still be
/// the last rollout's), or when none of its pods fails.
pub fn rollout_failure(
    group: &str,
    kind: &str,
    workload: &Value,
    replica_sets: &[Value],
    pods: &[Value],
) -> Option<String> {
    let generation = workload["metadata"]["generation"].as_i64();
    let observed = workload["status"]["observedGeneration"].as_i64();
    if kind != "Job" && (observed.is_none() || observed < generation) {
        return None;
    }
    let uid = workload["metadata"]["uid"].as_str()?;
    let owner = match through_replica_sets(group, kind) {
        true => {
            let (revision, newest) = newest_replica_set(uid, replica_sets)?;
            // The ReplicaSets read may lag the Deployment: until its current revision's is among
            // them, the newest known is the last rollout's.
            if revision_of(workload).is_some_and(|current| current != revision) {
                return None;
            }
            newest
        }
        false => uid,
    };
    // A StatefulSet's pods of an older revision are not this rollout's.
    let revision = workload["status"]["updateRevision"].as_str().filter(|_| kind == "StatefulSet");
    let mut failing: Vec<(&str, String)> = pods
        .iter()
        .filter(|pod| controlled_by(pod, owner) && pod["metadata"]["deletionTimestamp"].is_null())
        .filter(|pod| revision.is_none_or(|revision| pod["metadata"]["labels"]["controller-revision-hash"] == revision))
        .filter_map(|pod| Some((pod["metadata"]["name"].as_str()?, container_failure(pod)?)))
        .collect();
    failing.sort();
    failing.into_iter().next().map(|(name, why)| format!("pod {name}: {why}"))
}

/// The deployment controller's revision of a Deployment or ReplicaSet (its
/// `deployment.kubernetes.io/revision` annotation).
fn revision_of(object: &Value) -> Option<i64> {
    object["metadata"]["annotations"]["deployment.kubernetes.io/revision"].as_str().and_then(|r| r.parse().ok())
}

/// The revision and UID of the ReplicaSet of the Deployment `uid` with the highest revision.
fn newest_replica_set<'a>(uid: &str, replica_sets: &'a [Value]) -> Option<(i64, &'a str)> {
    let owned = replica_sets.iter().filter(|set| controlled_by(set, uid));
    let (revision, newest) =
        owned.filter_map(|set| Some((revision_of(set)?, set))).max_by_key(|(revision, _)| *revision)?;
    Some((revision, newest["metadata"]["uid"].as_str()?))
}

/// Whether `object`'s controller (its owner reference marked `controller`) has the UID `uid`.
fn controlled_by(object: &Value, uid: &str) -> bool {
    let owners = object["metadata"]["ownerReferences"].as_array().into_iter().flatten();
    owners.into_iter().any(|owner| owner["controller"] == true && owner["uid"] == uid)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn owned(uid: &str) -> Value {
        json!([{"apiVersion": "apps/v1", "kind": "X", "name": "x", "uid": uid, "controller": true}])
    }

    fn pod(name: &str, owner: &str, waiting: Option<(&str, &str)>) -> Value {
        let state = match waiting {
            Some((reason, message)) => json!({"waiting": {"reason": reason, "message": message}}),
            None => json!({"running": {}}),
        };
        json!({"metadata": {"name": name, "ownerReferences": owned(owner), "labels": {"controller-revision-hash": "r2"}},
            "status": {"phase": "Pending", "containerStatuses": [{"name": "app", "state": state}]}})
    }

    fn replica_set(uid: &str, revision: &str) -> Value {
        json!({"metadata": {"uid": uid, "ownerReferences": owned("deploy-uid"),
            "annotations": {"deployment.kubernetes.io/revision": revision}}})
    }

    fn workload(uid: &str, generation: i64, observed: i64) -> Value {
        json!({"metadata": {"uid": uid, "generation": generation},
            "status": {"observedGeneration": observed, "updateRevision": "r2"}})
    }

    #[test]
    fn containers_waiting_for_terminal_reasons_fail_their_pod() {
        let pull = pod("p", "o", Some(("ImagePullBackOff", "Back-off pulling image \"x\"")));
        assert_eq!(container_failure(&pull).unwrap(), "container app: ImagePullBackOff: Back-off pulling image \"x\"");
        for reason in TERMINAL_WAITING_REASONS {
            assert!(container_failure(&pod("p", "o", Some((reason, "")))).is_some(), "{reason}");
        }
        assert_eq!(container_failure(&pod("p", "o", Some(("ContainerCreating", "")))), None);
        assert_eq!(container_failure(&pod("p", "o", None)), None);
        let init = json!({"status": {"initContainerStatuses": [{"name": "setup",
            "state": {"waiting": {"reason": "CreateContainerConfigError", "message": "configmap \"missing\" not found"}}}]}});
        assert_eq!(
            container_failure(&init).unwrap(),
            "container setup: CreateContainerConfigError: configmap \"missing\" not found"
        );
        let bare = json!({"status": {"containerStatuses": [{"name": "app", "state": {"waiting": {"reason": "ErrImagePull"}}}]}});
        assert_eq!(container_failure(&bare).unwrap(), "container app: ErrImagePull");
    }

    #[test]
    fn a_deployment_fails_by_the_pods_of_its_newest_replica_set_only() {
        let deploy = workload("deploy-uid", 2, 2);
        let sets = [replica_set("old-rs", "1"), replica_set("new-rs", "2")];
        let crash = Some(("CrashLoopBackOff", "back-off 10s restarting failed container=app pod=web-b"));
        let pods = [pod("web-a", "old-rs", crash), pod("web-c", "new-rs", None)];
        assert_eq!(rollout_failure("apps", "Deployment", &deploy, &sets, &pods), None);
        let pods = [pod("web-c", "new-rs", crash), pod("web-b", "new-rs", crash), pod("web-a", "old-rs", None)];
        assert_eq!(
            rollout_failure("apps", "Deployment", &deploy, &sets, &pods).unwrap(),
            "pod web-b: container app: CrashLoopBackOff: back-off 10s restarting failed container=app pod=web-b"
        );
        // Before the controller has seen the new spec, the pods may be the last rollout's.
        assert_eq!(rollout_failure("apps", "Deployment", &workload("deploy-uid", 3, 2), &sets, &pods), None);
        // ReplicaSets read before the new revision's was made: its crashing pods are the last
        // rollout's, not this one's.
        let mut revised = workload("deploy-uid", 3, 3);
        revised["metadata"]["annotations"] = json!({"deployment.kubernetes.io/revision": "3"});
        assert_eq!(rollout_failure("apps", "Deployment", &revised, &sets, &pods), None);
        revised["metadata"]["annotations"] = json!({"deployment.kubernetes.io/revision": "2"});
        assert!(rollout_failure("apps", "Deployment", &revised, &sets, &pods).is_some());
        // A pod being deleted is on its way out.
        let mut leaving = pod("web-b", "new-rs", crash);
        leaving["metadata"]["deletionTimestamp"] = json!("2026-01-01T00:00:00Z");
        assert_eq!(rollout_failure("apps", "Deployment", &deploy, &sets, &[leaving]), None);
        // Another Deployment's ReplicaSets are not this one's.
        assert_eq!(rollout_failure("apps", "Deployment", &workload("other", 2, 2), &sets, &pods), None);
    }

    #[test]
    fn other_workloads_fail_by_the_pods_they_control() {
        let pull = Some(("ErrImagePull", "pull access denied"));
        let failing = [pod("db-0", "sts-uid", pull)];
        assert!(rollout_failure("apps", "StatefulSet", &workload("sts-uid", 1, 1), &[], &failing).is_some());
        let mut old = failing[0].clone();
        old["metadata"]["labels"]["controller-revision-hash"] = json!("r1");
        assert_eq!(rollout_failure("apps", "StatefulSet", &workload("sts-uid", 1, 1), &[], &[old]), None);
        let job = json!({"metadata": {"uid": "job-uid", "generation": 1}, "status": {}});
        assert_eq!(
            rollout_failure("batch", "Job", &job, &[], &[pod("pi-x", "job-uid", pull)]).unwrap(),
            "pod pi-x: container app: ErrImagePull: pull access denied"
        );
        assert_eq!(rollout_failure("batch", "Job", &job, &[], &[pod("pi-x", "other", pull)]), None);
        assert!(has_rollout_pods("apps", "DaemonSet") && has_rollout_pods("batch", "Job"));
        assert!(!has_rollout_pods("", "Pod") && !has_rollout_pods("example.com", "Deployment"));
    }
}
