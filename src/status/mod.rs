//! Whether an object is ready, by kstatus's rules (sigs.k8s.io/cli-utils), from the object's own
//! document alone: no I/O, so that every rule is tested on status documents.
//!
//! First the rules every object shares: an object being deleted is not ready; a controller that
//! has not yet observed the latest generation (`status.observedGeneration` behind
//! `metadata.generation`) has not acted on it; a `Stalled` condition that is true is a failure and
//! a `Reconciling` one is progress. Then the kind's own rules (Deployment, StatefulSet, DaemonSet,
//! ReplicaSet, Job, Pod, PersistentVolumeClaim, Service, CustomResourceDefinition, Namespace);
//! any other object is ready when its `Ready` condition is true, or when it has none.

mod kinds;
pub mod pods;
pub mod rollout;

use serde_json::Value;

/// How far an object is from what its spec asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Readiness {
    /// What the spec asks for is in place.
    Current,
    /// Still on its way, and why, e.g. `1 of 3 replicas available`.
    InProgress(String),
    /// It will not get there without a change, and why, e.g. the progress deadline passed.
    Failed(String),
}

/// The readiness of `object`, an object of `kind` in API group `group` (empty for the core group).
pub fn readiness(group: &str, kind: &str, object: &Value) -> Readiness {
    if let Some(generic) = generic(object) {
        return generic;
    }
    match (group, kind) {
        ("apps" | "extensions", "Deployment") => kinds::deployment(object),
        ("apps", "StatefulSet") => kinds::stateful_set(object),
        ("apps" | "extensions", "DaemonSet") => kinds::daemon_set(object),
        ("apps" | "extensions", "ReplicaSet") => kinds::replica_set(object),
        ("batch", "Job") => kinds::job(object),
        ("", "Pod") => kinds::pod(object),
        ("", "PersistentVolumeClaim") => kinds::persistent_volume_claim(object),
        ("", "Service") => kinds::service(object),
        ("", "Namespace") => kinds::namespace(object),
        ("apiextensions.k8s.io", "CustomResourceDefinition") => kinds::custom_resource_definition(object),
        _ => ready_condition(object),
    }
}

/// The rules every object shares; `None` when they do not decide.
fn generic(object: &Value) -> Option<Readiness> {
    if object["metadata"]["deletionTimestamp"].as_str().is_some_and(|time| !time.is_empty()) {
        return Some(Readiness::InProgress("the object is being deleted".into()));
    }
    if let (Some(generation), Some(observed)) =
        (object["metadata"]["generation"].as_i64(), object["status"]["observedGeneration"].as_i64())
        && observed != generation
    {
        return Some(Readiness::InProgress(format!(
            "generation {generation} not yet observed by its controller (it has seen {observed})"
        )));
    }
    if let Some(stalled) = condition(object, "Stalled").filter(|stalled| stalled.is("True")) {
        return Some(Readiness::Failed(stalled.describe("Stalled")));
    }
    if let Some(reconciling) = condition(object, "Reconciling").filter(|reconciling| reconciling.is("True")) {
        return Some(Readiness::InProgress(reconciling.describe("Reconciling")));
    }
    None
}

/// Any other object: ready when its `Ready` condition is true for the latest generation, or when it
/// has no `Ready` condition at all (a ConfigMap, an object without status).
fn ready_condition(object: &Value) -> Readiness {
    let Some(ready) = condition(object, "Ready") else { return Readiness::Current };
    if let (Some(generation), Some(observed)) = (object["metadata"]["generation"].as_i64(), ready.observed_generation)
        && observed < generation
    {
        return Readiness::InProgress(format!("Ready is for generation {observed}, not yet for {generation}"));
    }
    if ready.is("True") { Readiness::Current } else { Readiness::InProgress(ready.describe("Ready")) }
}

/// One entry of `status.conditions`.
#[derive(Debug, Clone, Copy)]
struct Condition<'a> {
    status: &'a str,
    reason: &'a str,
    message: &'a str,
    observed_generation: Option<i64>,
}

impl Condition<'_> {
    fn is(&self, status: &str) -> bool {
        self.status == status
    }

    /// `Ready: message`, or `Ready: reason` when there is no message, or `Ready is False`.
    fn describe(&self, name: &str) -> String {
        match (self.message, self.reason) {
            ("", "") => format!("{name} is {}", self.status),
            ("", reason) => format!("{name}: {reason}"),
            (message, _) => format!("{name}: {message}"),
        }
    }
}

/// The condition of type `name` in `status.conditions`, if there is one.
fn condition<'a>(object: &'a Value, name: &str) -> Option<Condition<'a>> {
    let conditions = object["status"]["conditions"].as_array()?;
    let found = conditions.iter().find(|condition| condition["type"].as_str() == Some(name))?;
    let text = |field: &str| found[field].as_str().unwrap_or_default();
    Some(Condition {
        status: text("status"),
        reason: text("reason"),
        message: text("message"),
        observed_generation: found["observedGeneration"].as_i64(),
    })
}

/// An integer field at `pointer`, else `default` (kstatus's defaults: what the API server or the
/// controller assumes when the field is not set).
fn int(object: &Value, pointer: &str, default: i64) -> i64 {
    object.pointer(pointer).and_then(Value::as_i64).unwrap_or(default)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn objects_without_status_are_current_at_once() {
        let config_map = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"}, "data": {}});
        assert_eq!(readiness("", "ConfigMap", &config_map), Readiness::Current);
        let widget = json!({"metadata": {"name": "w", "generation": 4}, "spec": {}});
        assert_eq!(readiness("example.com", "Widget", &widget), Readiness::Current);
    }

    #[test]
    fn objects_being_deleted_are_not_ready() {
        let object = json!({"metadata": {"name": "x", "deletionTimestamp": "2024-01-01T00:00:00Z"}});
        assert_eq!(readiness("", "ConfigMap", &object), Readiness::InProgress("the object is being deleted".into()));
    }

    #[test]
    fn an_unobserved_generation_is_in_progress_whatever_else_the_status_says() {
        let object = json!({
            "metadata": {"generation": 3},
            "status": {"observedGeneration": 2, "conditions": [{"type": "Ready", "status": "True"}]}
        });
        assert_eq!(
            readiness("example.com", "Widget", &object),
            Readiness::InProgress("generation 3 not yet observed by its controller (it has seen 2)".into())
        );
    }

    #[test]
    fn stalled_fails_and_reconciling_is_progress() {
        let with = |kind: &str, status: &str| {
            json!({"metadata": {"generation": 1}, "status": {"observedGeneration": 1, "conditions": [
                {"type": kind, "status": status, "reason": "Why", "message": "because"}
            ]}})
        };
        assert_eq!(readiness("x.io", "Thing", &with("Stalled", "True")), Readiness::Failed("Stalled: because".into()));
        assert_eq!(
            readiness("x.io", "Thing", &with("Reconciling", "True")),
            Readiness::InProgress("Reconciling: because".into())
        );
        assert_eq!(readiness("x.io", "Thing", &with("Stalled", "False")), Readiness::Current);
    }

    #[test]
    fn other_objects_follow_their_ready_condition() {
        let with_ready = |status: &str, observed: i64| {
            json!({"metadata": {"generation": 2}, "status": {"conditions": [
                {"type": "Ready", "status": status, "reason": "Waiting", "observedGeneration": observed}
            ]}})
        };
        assert_eq!(readiness("x.io", "Thing", &with_ready("True", 2)), Readiness::Current);
        assert_eq!(readiness("x.io", "Thing", &with_ready("False", 2)), Readiness::InProgress("Ready: Waiting".into()));
        assert_eq!(
            readiness("x.io", "Thing", &with_ready("True", 1)),
            Readiness::InProgress("Ready is for generation 1, not yet for 2".into())
        );
        let bare = json!({"status": {"conditions": [{"type": "Ready", "status": "Unknown"}]}});
        assert_eq!(readiness("x.io", "Thing", &bare), Readiness::InProgress("Ready is Unknown".into()));
    }
}
