//! One request that fails at the transport is not a lost server. The client sends a write again
//! where that is safe (`client::Transport::send`: creates read back first); a write that still
//! fails at the transport after its attempts, its connection reset, closed before the whole
//! answer came, or timed out, may or may not have happened; the
//! server may have failed that one request (a panicking handler, a dropped stream) and still
//! answer every other. [`check`] asks the server whether it answers at all and, if it does,
//! reads the object back to say what is there. Any verb that writes several objects uses it:
//! the object fails on its own and the run goes on, or the server is gone and the run stops.

use serde_json::Value;

use crate::client::{self, Cluster};
use crate::merge::Patch;
use crate::resource::ObjectRef;
use crate::schema::SchemaNode;

/// What reading an object back after its request failed at the transport showed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Found {
    /// The object is as the write would have left it.
    Applied,
    /// The object is not as the write would have left it (or is not there).
    NotApplied,
    /// The object could not be read back, for this reason.
    Unknown(String),
}

/// A request of an object failed at the transport while the server still answers: the object's
/// own failure, with what reading it back showed.
#[derive(Debug, thiserror::Error)]
#[error("{}; {}", .cause.transport_line().unwrap_or_else(|| .cause.to_string()), found_text(.found))]
pub struct AnswerLost {
    /// The failure of the request, as the transport saw it.
    pub cause: client::Error,
    pub found: Found,
}

fn found_text(found: &Found) -> String {
    match found {
        Found::Applied => "read back afterwards, the write is applied".into(),
        Found::NotApplied => "read back afterwards, the write is not applied; run the same command again".into(),
        Found::Unknown(reason) => {
            format!("whether the write is applied is unknown: reading the object back failed: {reason}")
        }
    }
}

/// After a request for `target` failed with `cause` at the transport: `None` when the server
/// does not answer either (the caller stops starting writes), else the object's own failure,
/// with what the object looks like now. `applied` says whether the object as read back (`None`:
/// not there) is what the write would have made. Nothing is written again.
pub async fn check(
    cluster: &Cluster,
    target: &ObjectRef,
    cause: client::Error,
    applied: impl Fn(Option<&Value>) -> bool,
) -> Option<AnswerLost> {
    if !cluster.answers().await {
        return None;
    }
    let found = match cluster.get(&target.rt, target.namespace.as_deref(), &target.name).await {
        Ok(live) if applied(Some(&live)) => Found::Applied,
        Ok(_) => Found::NotApplied,
        Err(client::Error::NotFound(_)) if applied(None) => Found::Applied,
        Err(client::Error::NotFound(_)) => Found::NotApplied,
        Err(err) => Found::Unknown(err.transport_line().unwrap_or_else(|| err.line())),
    };
    tracing::info!("{}: {cause}; the server answers; read back: {found:?}", target.display_name());
    Some(AnswerLost { cause, found })
}

/// Why a write of one object failed.
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    /// The server refused it, or the request failed at the transport and the server does not
    /// answer either.
    #[error(transparent)]
    Failed(client::Error),
    /// The answer was lost while the server still answers: the object's own failure.
    #[error(transparent)]
    Lost(Box<AnswerLost>),
}

/// After a write of `target` failed with `cause`: at the transport, while the server still
/// answers, the object is read back and `applied` judges it, as in [`check`]; otherwise the
/// failure as it is.
pub async fn write_failed(
    cluster: &Cluster,
    target: &ObjectRef,
    cause: client::Error,
    applied: impl Fn(Option<&Value>) -> bool,
) -> WriteError {
    if cause.is_transport()
        && let Some(lost) = check(cluster, target, cause.clone(), applied).await
    {
        return WriteError::Lost(Box::new(lost));
    }
    WriteError::Failed(cause)
}

/// Whether `live` holds every field of `wanted` with its value ([`client::json_contains`]).
pub fn contains(live: &Value, wanted: &Value) -> bool {
    client::json_contains(live, wanted)
}

/// Whether `live` is what a write of `patch` leaves: sending the patch again would change
/// nothing. A `metadata.resourceVersion` in the patch is a precondition, not a change; empty maps
/// and nulls count as absent, as the server stores objects. A patch that cannot be applied here
/// (a strategic one without `schema`) is taken as not applied.
pub fn patched(live: &Value, patch: &Patch, schema: Option<SchemaNode<'_>>) -> bool {
    let patch = match patch {
        Patch::Merge(document) => Patch::Merge(without_precondition(document)),
        Patch::Strategic(document) => Patch::Strategic(without_precondition(document)),
        other => other.clone(),
    };
    patch.apply(live.clone(), schema).is_ok_and(|again| stored(&again) == stored(live))
}

/// Whether an object read back after its delete was lost is deleted: gone, going (a finalizer or
/// a grace period holds it), or another object by that name when `uid`, the deleted one's, is known.
pub fn deleted(uid: Option<&str>) -> impl Fn(Option<&Value>) -> bool + '_ {
    move |live| {
        live.is_none_or(|live| {
            uid.is_some_and(|uid| live["metadata"]["uid"].as_str() != Some(uid))
                || !live["metadata"]["deletionTimestamp"].is_null()
        })
    }
}

fn without_precondition(document: &Value) -> Value {
    let mut document = document.clone();
    if let Some(metadata) = document.get_mut("metadata").and_then(Value::as_object_mut) {
        metadata.remove("resourceVersion");
    }
    document
}

/// `value` as the server would store it: without nulls and without maps left empty.
fn stored(value: &Value) -> Option<Value> {
    match value {
        Value::Null => None,
        Value::Object(map) => {
            let kept: serde_json::Map<String, Value> =
                map.iter().filter_map(|(key, value)| Some((key.clone(), stored(value)?))).collect();
            (!kept.is_empty()).then_some(Value::Object(kept))
        }
        Value::Array(items) => {
            Some(Value::Array(items.iter().map(|item| stored(item).unwrap_or(Value::Null)).collect()))
        }
        other => Some(other.clone()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn contains_ignores_what_the_server_adds() {
        let live = json!({"metadata": {"name": "x", "uid": "u"}, "spec": {"ports": [{"port": 80, "protocol": "TCP"}]}});
        assert!(contains(&live, &json!({"metadata": {"name": "x"}, "spec": {"ports": [{"port": 80}]}})));
        assert!(!contains(&live, &json!({"spec": {"ports": [{"port": 81}]}})));
        assert!(!contains(&live, &json!({"spec": {"ports": [{"port": 80}, {"port": 81}]}})));
        assert!(!contains(&live, &json!({"data": {"v": "1"}})));
    }

    #[test]
    fn a_patch_is_in_the_object_when_sending_it_again_changes_nothing() {
        let live = json!({"metadata": {"name": "x", "resourceVersion": "9", "labels": {"a": "1"}}, "data": {"v": "2"}});
        let merge = |patch: Value| Patch::Merge(patch);
        assert!(patched(&live, &merge(json!({"metadata": {"labels": {"a": "1"}}})), None));
        assert!(patched(&live, &merge(json!({"metadata": {"labels": {"gone": null}}})), None));
        assert!(patched(&live, &merge(json!({"metadata": {"resourceVersion": "8", "labels": {"a": "1"}}})), None));
        assert!(!patched(&live, &merge(json!({"metadata": {"labels": {"a": "2"}}})), None));
        assert!(!patched(&live, &merge(json!({"data": {"v": null}})), None));
        let schema = crate::schema::builtin().for_kind("apps/v1", "Deployment").expect("built in");
        let deployment = json!({"spec": {"template": {"spec": {"containers": [{"name": "app", "image": "b"}]}}}});
        let image = |image: &str| {
            Patch::Strategic(json!({"spec": {"template": {"spec": {"containers": [{"name": "app", "image": image}]}}}}))
        };
        assert!(patched(&deployment, &image("b"), Some(schema)));
        assert!(!patched(&deployment, &image("c"), Some(schema)));
        assert!(!patched(&deployment, &image("b"), None), "a strategic patch needs the kind's metadata");
    }

    #[test]
    fn deleted_means_gone_going_or_replaced() {
        let live = |uid: &str, deleting: bool| {
            let mut object = json!({"metadata": {"name": "x", "uid": uid}});
            if deleting {
                object["metadata"]["deletionTimestamp"] = "2026-11-23T00:00:00Z".into();
            }
            object
        };
        assert!(deleted(Some("u"))(None));
        assert!(deleted(Some("u"))(Some(&live("u", true))));
        assert!(deleted(Some("u"))(Some(&live("v", false))));
        assert!(!deleted(Some("u"))(Some(&live("u", false))));
        assert!(!deleted(None)(Some(&live("v", false))), "without the UID, an object by that name is the one");
    }

    #[test]
    fn the_line_says_what_was_found() {
        let cause = client::Error::Unreachable {
            server: "https://127.0.0.1:6443".into(),
            cause: "connection closed before message completed".into(),
        };
        let lost = AnswerLost { cause, found: Found::Applied };
        assert_eq!(
            lost.to_string(),
            "Unable to connect to the server: connection closed before message completed; read back afterwards, \
             the write is applied"
        );
    }
}
