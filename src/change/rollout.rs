//! `rollout restart`, `pause` and `resume`: the changes to a workload's object that start a new
//! rollout or stop and resume one, with kubectl's checks.

use std::time::{SystemTime, UNIX_EPOCH};

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

/// `time` as RFC 3339 in UTC to the second (`2026-11-23T21:08:54Z`), the restart annotation's
/// format.
pub fn timestamp(time: SystemTime) -> String {
    let seconds = time.duration_since(UNIX_EPOCH).map_or(0, |since| since.as_secs());
    let (days, rest) = (seconds / 86_400, seconds % 86_400);
    let (year, month, day) = civil_from_days(days as i64);
    format!("{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z", rest / 3600, rest % 3600 / 60, rest % 60)
}

/// The proleptic Gregorian date `days` after 1970-01-01 (Howard Hinnant's algorithm).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::time::Duration;

    #[test]
    fn timestamps_are_rfc3339_utc() {
        assert_eq!(timestamp(UNIX_EPOCH), "1970-01-01T00:00:00Z");
        assert_eq!(timestamp(UNIX_EPOCH + Duration::from_secs(951_782_400)), "2000-02-29T00:00:00Z");
        assert_eq!(timestamp(UNIX_EPOCH + Duration::from_secs(1_795_468_134)), "2026-11-23T21:08:54Z");
    }

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
