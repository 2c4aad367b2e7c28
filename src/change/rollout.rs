//! `rollout restart`, `pause` and `resume`: the changes to a workload's object that start a new
//! rollout or stop and resume one, with kubectl's checks.

use serde_json::Value;

/// The pod template annotation whose new value makes the controller roll every pod.
pub const RESTARTED_AT: &str = "kubectl.kubernetes.io/restartedAt";

/// Why an object cannot take the change, in kubectl's words (after the object's name).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// The kind has no such rollout action: `restarting`, `pausing`, `resuming`.
    #[error("{0} is not supported")]
    NotSupported(&'static str),
    #[error("can't restart paused deployment (run rollout resume first)")]
    RestartPaused,
    #[error("is already paused")]
    AlreadyPaused,
    #[error("is not paused")]
    NotPaused,
}

/// Sets the restart annotation of the pod template of a Deployment (not paused), DaemonSet or
/// StatefulSet to `now` (see [`timestamp`]).
pub fn restart(object: &mut Value, now: &str) -> Result<(), Error> {
    match object["kind"].as_str() {
        Some("Deployment") if object["spec"]["paused"] == true => return Err(Error::RestartPaused),
        Some("Deployment" | "DaemonSet" | "StatefulSet") => {}
        _ => return Err(Error::NotSupported("restarting")),
    }
    let template = &mut object["spec"]["template"];
    if !template["metadata"].is_object() {
        template["metadata"] = Value::Object(Default::default());
    }
    if !template["metadata"]["annotations"].is_object() {
        template["metadata"]["annotations"] = Value::Object(Default::default());
    }
    template["metadata"]["annotations"][RESTARTED_AT] = Value::String(now.to_string());
    Ok(())
}

/// Pauses (`paused`) or resumes a Deployment, the one kind that can be paused.
pub fn set_paused(object: &mut Value, paused: bool) -> Result<(), Error> {
    if object["kind"].as_str() != Some("Deployment") {
        return Err(Error::NotSupported(if paused { "pausing" } else { "resuming" }));
    }
    let is_paused = object["spec"]["paused"] == true;
    match (paused, is_paused) {
        (true, true) => Err(Error::AlreadyPaused),
        (false, false) => Err(Error::NotPaused),
        (true, false) => {
            object["spec"]["paused"] = Value::Bool(true);
            Ok(())
        }
        (false, true) => {
            // kubectl's typed object drops `paused: false` (omitempty): the patch deletes the field.
            if let Some(spec) = object["spec"].as_object_mut() {
                spec.remove("paused");
            }
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn restarts_annotate_the_pod_template() {
        let mut deployment = json!({"kind": "Deployment", "spec": {"template": {"spec": {}}}});
        restart(&mut deployment, "T").unwrap();
        assert_eq!(deployment["spec"]["template"]["metadata"]["annotations"][RESTARTED_AT], "T");
        set_paused(&mut deployment, true).unwrap();
        assert_eq!(restart(&mut deployment, "T"), Err(Error::RestartPaused));
        assert_eq!(set_paused(&mut deployment, true), Err(Error::AlreadyPaused));
        set_paused(&mut deployment, false).unwrap();
        assert!(deployment["spec"].get("paused").is_none());
        assert_eq!(set_paused(&mut deployment, false), Err(Error::NotPaused));
        let mut config_map = json!({"kind": "ConfigMap"});
        assert_eq!(restart(&mut config_map, "T").unwrap_err().to_string(), "restarting is not supported");
        let mut daemon_set = json!({"kind": "DaemonSet", "spec": {"template": {}}});
        assert_eq!(set_paused(&mut daemon_set, false).unwrap_err().to_string(), "resuming is not supported");
        assert!(restart(&mut daemon_set, "T").is_ok());
    }
}
