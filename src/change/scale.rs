//! `scale`: the replica count of a scale subresource (`autoscaling/v1` Scale), with kubectl's
//! preconditions on what the count and version are before the change.

use serde_json::{Value, json};

/// What the scale must be before it is changed (`--current-replicas`, `--resource-version`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Preconditions {
    pub replicas: Option<i64>,
    pub resource_version: Option<String>,
}

/// A precondition that does not hold, in kubectl's words.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("Expected {what} to be {expected}, was {found}")]
pub struct PreconditionError {
    pub what: &'static str,
    pub expected: String,
    pub found: String,
}

impl Preconditions {
    /// Whether any precondition was asked for: then the scale is read, checked and replaced
    /// (a PUT guarded by its version) instead of patched.
    pub fn any(&self) -> bool {
        self.replicas.is_some() || self.resource_version.is_some()
    }

    /// Checks `scale` as read, replicas first, as kubectl does.
    pub fn check(&self, scale: &Value) -> Result<(), PreconditionError> {
        if let Some(expected) = self.replicas {
            let found = scale["spec"]["replicas"].as_i64().unwrap_or(0);
            if found != expected {
                return Err(PreconditionError {
                    what: "replicas",
                    expected: expected.to_string(),
                    found: found.to_string(),
                });
            }
        }
        if let Some(expected) = &self.resource_version {
            let found = scale["metadata"]["resourceVersion"].as_str().unwrap_or_default();
            if found != expected {
                return Err(PreconditionError {
                    what: "resource version",
                    expected: expected.clone(),
                    found: found.to_string(),
                });
            }
        }
        Ok(())
    }
}

/// The JSON merge patch kubectl sends to the scale subresource when no precondition is asked for.
/// kubectl's `scale --timeout` condition on a scale subresource: done when its spec and status
/// both have `replicas`, or when someone else has set another count meanwhile.
pub fn has_desired_replicas(scale: &Value, replicas: i64) -> bool {
    let wanted = scale["spec"]["replicas"].as_i64().unwrap_or(0);
    wanted != replicas || scale["status"]["replicas"].as_i64().unwrap_or(0) == replicas
}

pub fn replicas_patch(replicas: i64) -> Value {
    json!({"spec": {"replicas": replicas}})
}

/// `scale` as read, with `replicas` wanted: the body of the guarded PUT.
pub fn with_replicas(mut scale: Value, replicas: i64) -> Value {
    scale["spec"]["replicas"] = replicas.into();
    scale
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn preconditions_read_like_kubectl() {
        let scale = json!({"metadata": {"resourceVersion": "509"}, "spec": {"replicas": 3}});
        assert!(Preconditions::default().check(&scale).is_ok());
        let replicas = Preconditions { replicas: Some(2), resource_version: Some("1".into()) };
        assert_eq!(replicas.check(&scale).unwrap_err().to_string(), "Expected replicas to be 2, was 3");
        let version = Preconditions { replicas: Some(3), resource_version: Some("1".into()) };
        assert_eq!(version.check(&scale).unwrap_err().to_string(), "Expected resource version to be 1, was 509");
        assert!(Preconditions { replicas: Some(0), resource_version: None }.check(&json!({"spec": {}})).is_ok());
        assert_eq!(with_replicas(scale, 5)["spec"]["replicas"], 5);
    }

    #[test]
    fn a_scale_has_its_replicas_when_the_status_says_so() {
        let scale =
            |spec: i64, status: i64| serde_json::json!({"spec": {"replicas": spec}, "status": {"replicas": status}});
        assert!(!has_desired_replicas(&scale(3, 1), 3));
        assert!(has_desired_replicas(&scale(3, 3), 3));
        assert!(has_desired_replicas(&scale(5, 1), 3), "someone else set another count");
    }
}
