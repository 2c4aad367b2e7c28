//! How far a rollout is, in kubectl's words (`rollout status`): for a Deployment, a DaemonSet
//! or a StatefulSet, the line kubectl prints for its state and whether the rollout is done, or
//! why asking is an error. Pure: judged from the object alone.

use serde_json::Value;

/// A rollout's state: kubectl's line (with its newline) and whether it is done.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RolloutStatus {
    pub line: String,
    pub done: bool,
}

/// Why a rollout's state cannot be told, or why it has failed, in kubectl's words.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct RolloutError(pub String);

fn waiting(line: String) -> Result<RolloutStatus, RolloutError> {
    Ok(RolloutStatus { line, done: false })
}

fn done(line: String) -> Result<RolloutStatus, RolloutError> {
    Ok(RolloutStatus { line, done: true })
}

fn int(value: &Value) -> i64 {
    value.as_i64().unwrap_or(0)
}

/// A Deployment's revision annotation (none is 0), or Go's `strconv.ParseInt` error.
fn running_revision(object: &Value) -> Result<i64, String> {
    match object["metadata"]["annotations"]["deployment.kubernetes.io/revision"].as_str() {
        None => Ok(0),
        Some(text) => crate::gocompat::strconv::parse_int_base(text, 10, 64).map_err(|err| err.to_string()),
    }
}

/// Whether kubectl can tell the rollout status of objects of `kind` (apps group).
pub fn has_viewer(kind: &str) -> bool {
    matches!(kind, "Deployment" | "DaemonSet" | "StatefulSet")
}

/// The rollout status of `object` (a Deployment, DaemonSet or StatefulSet) as kubectl tells it;
/// a `revision` above 0 must be a Deployment's running revision (the others ignore it, as in
/// kubectl).
pub fn status(object: &Value, revision: i64) -> Result<RolloutStatus, RolloutError> {
    let name = object["metadata"]["name"].as_str().unwrap_or_default();
    let generation = int(&object["metadata"]["generation"]);
    let (spec, status) = (&object["spec"], &object["status"]);
    let observed = int(&status["observedGeneration"]);
    match object["kind"].as_str().unwrap_or_default() {
        "Deployment" => {
            if revision > 0 {
                let running = running_revision(object)
                    .map_err(|err| RolloutError(format!("cannot get the revision of deployment {name:?}: {err}")))?;
                if running != revision {
                    return Err(RolloutError(format!(
                        "desired revision ({revision}) is different from the running revision ({running})"
                    )));
                }
            }
            if generation > observed {
                return waiting("Waiting for deployment spec update to be observed...\n".into());
            }
            let conditions = status["conditions"].as_array().into_iter().flatten();
            let progressing = conditions.into_iter().find(|condition| condition["type"] == "Progressing");
            if progressing.is_some_and(|condition| condition["reason"] == "ProgressDeadlineExceeded") {
                return Err(RolloutError(format!("deployment {name:?} exceeded its progress deadline")));
            }
            let updated = int(&status["updatedReplicas"]);
            if let Some(replicas) = spec["replicas"].as_i64()
                && updated < replicas
            {
                return waiting(format!(
                    "Waiting for deployment {name:?} rollout to finish: {updated} out of {replicas} new replicas have been updated...\n"
                ));
            }
            let total = int(&status["replicas"]);
            if total > updated {
                return waiting(format!(
                    "Waiting for deployment {name:?} rollout to finish: {} old replicas are pending termination...\n",
                    total - updated
                ));
            }
            let available = int(&status["availableReplicas"]);
            if available < updated {
                return waiting(format!(
                    "Waiting for deployment {name:?} rollout to finish: {available} of {updated} updated replicas are available...\n"
                ));
            }
            done(format!("deployment {name:?} successfully rolled out\n"))
        }
        "DaemonSet" => {
            if spec["updateStrategy"]["type"].as_str().unwrap_or("RollingUpdate") != "RollingUpdate" {
                return Err(RolloutError("rollout status is only available for RollingUpdate strategy type".into()));
            }
            if generation > observed {
                return waiting("Waiting for daemon set spec update to be observed...\n".into());
            }
            let desired = int(&status["desiredNumberScheduled"]);
            let updated = int(&status["updatedNumberScheduled"]);
            if updated < desired {
                return waiting(format!(
                    "Waiting for daemon set {name:?} rollout to finish: {updated} out of {desired} new pods have been updated...\n"
                ));
            }
            let available = int(&status["numberAvailable"]);
            if available < desired {
                return waiting(format!(
                    "Waiting for daemon set {name:?} rollout to finish: {available} of {desired} updated pods are available...\n"
                ));
            }
            done(format!("daemon set {name:?} successfully rolled out\n"))
        }
        "StatefulSet" => {
            let strategy = &spec["updateStrategy"];
            if strategy["type"].as_str().unwrap_or("RollingUpdate") != "RollingUpdate" {
                return Err(RolloutError("rollout status is only available for RollingUpdate strategy type".into()));
            }
            if observed == 0 || generation > observed {
                return waiting("Waiting for statefulset spec update to be observed...\n".into());
            }
            let ready = int(&status["readyReplicas"]);
            if let Some(replicas) = spec["replicas"].as_i64()
                && ready < replicas
            {
                return waiting(format!("Waiting for {} pods to be ready...\n", replicas - ready));
            }
            let updated = int(&status["updatedReplicas"]);
            if strategy["rollingUpdate"].is_object() {
                if let (Some(replicas), Some(partition)) =
                    (spec["replicas"].as_i64(), strategy["rollingUpdate"]["partition"].as_i64())
                    && updated < replicas - partition
                {
                    return waiting(format!(
                        "Waiting for partitioned roll out to finish: {updated} out of {} new pods have been updated...\n",
                        replicas - partition
                    ));
                }
                return done(format!("partitioned roll out complete: {updated} new pods have been updated...\n"));
            }
            let (update, current) =
                (status["updateRevision"].as_str().unwrap_or(""), status["currentRevision"].as_str().unwrap_or(""));
            if update != current {
                return waiting(format!(
                    "waiting for statefulset rolling update to complete {updated} pods at revision {update}...\n"
                ));
            }
            done(format!(
                "statefulset rolling update complete {} pods at revision {current}...\n",
                int(&status["currentReplicas"])
            ))
        }
        kind => Err(RolloutError(format!("no status viewer has been implemented for {kind}"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn deployment(generation: i64, status: Value) -> Value {
        json!({"kind": "Deployment", "metadata": {"name": "web", "generation": generation}, "spec": {"replicas": 3}, "status": status})
    }

    #[test]
    fn a_deployment_goes_through_kubectls_lines() {
        let line = |object: Value| status(&object, 0).map(|status| (status.line, status.done));
        assert_eq!(
            line(deployment(2, json!({"observedGeneration": 1}))),
            Ok(("Waiting for deployment spec update to be observed...\n".into(), false))
        );
        assert_eq!(
            line(deployment(2, json!({"observedGeneration": 2, "updatedReplicas": 1, "replicas": 3}))),
            Ok((
                "Waiting for deployment \"web\" rollout to finish: 1 out of 3 new replicas have been updated...\n"
                    .into(),
                false
            ))
        );
        assert_eq!(
            line(deployment(2, json!({"observedGeneration": 2, "updatedReplicas": 3, "replicas": 4}))),
            Ok((
                "Waiting for deployment \"web\" rollout to finish: 1 old replicas are pending termination...\n".into(),
                false
            ))
        );
        assert_eq!(
            line(deployment(
                2,
                json!({"observedGeneration": 2, "updatedReplicas": 3, "replicas": 3, "availableReplicas": 2})
            )),
            Ok((
                "Waiting for deployment \"web\" rollout to finish: 2 of 3 updated replicas are available...\n".into(),
                false
            ))
        );
        assert_eq!(
            line(deployment(
                2,
                json!({"observedGeneration": 2, "updatedReplicas": 3, "replicas": 3, "availableReplicas": 3})
            )),
            Ok(("deployment \"web\" successfully rolled out\n".into(), true))
        );
        let stuck = json!({"observedGeneration": 2, "conditions": [{"type": "Progressing", "reason": "ProgressDeadlineExceeded"}]});
        assert_eq!(
            line(deployment(2, stuck)),
            Err(RolloutError("deployment \"web\" exceeded its progress deadline".into()))
        );
    }

    #[test]
    fn statefulsets_and_daemonsets() {
        let sts = json!({"kind": "StatefulSet", "metadata": {"name": "db", "generation": 1},
            "spec": {"replicas": 3, "updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {"partition": 0}}},
            "status": {"observedGeneration": 1, "readyReplicas": 3, "updatedReplicas": 3}});
        assert_eq!(status(&sts, 0).unwrap().line, "partitioned roll out complete: 3 new pods have been updated...\n");
        let ds = json!({"kind": "DaemonSet", "metadata": {"name": "agent", "generation": 1},
            "spec": {"updateStrategy": {"type": "OnDelete"}}, "status": {}});
        assert_eq!(status(&ds, 0).unwrap_err().0, "rollout status is only available for RollingUpdate strategy type");
    }

    #[test]
    fn a_revision_must_be_the_running_one() {
        let mut web = deployment(
            1,
            json!({"observedGeneration": 1, "updatedReplicas": 3, "replicas": 3, "availableReplicas": 3}),
        );
        web["metadata"]["annotations"] = json!({"deployment.kubernetes.io/revision": "2"});
        assert!(status(&web, 2).unwrap().done);
        assert_eq!(status(&web, 3).unwrap_err().0, "desired revision (3) is different from the running revision (2)");
        web["metadata"]["annotations"]["deployment.kubernetes.io/revision"] = json!("x");
        assert_eq!(
            status(&web, 1).unwrap_err().0,
            "cannot get the revision of deployment \"web\": strconv.ParseInt: parsing \"x\": invalid syntax"
        );
    }
}
