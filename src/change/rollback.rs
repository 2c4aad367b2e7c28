//! `rollout history` and `rollout undo`: the revisions a Deployment keeps in the ReplicaSets it
//! controls, read as kubectl reads them, and the JSON patch that puts an old revision's pod
//! template back (kubectl's `DeploymentRollbacker`); the revisions DaemonSets and StatefulSets
//! keep in ControllerRevisions, each a strategic merge patch that replaces the pod template.

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

/// The annotation of a ReplicaSet that holds its revision.
pub const REVISION: &str = "deployment.kubernetes.io/revision";
/// The annotation that says why a revision was made.
pub const CHANGE_CAUSE: &str = "kubernetes.io/change-cause";
/// The label the deployment controller adds to each ReplicaSet's pod template.
const HASH_LABEL: &str = "pod-template-hash";
/// The Deployment's own annotations, which a rollback keeps and never copies from a ReplicaSet.
const KEPT_ANNOTATIONS: [&str; 6] = [
    "kubectl.kubernetes.io/last-applied-configuration",
    REVISION,
    "deployment.kubernetes.io/revision-history",
    "deployment.kubernetes.io/desired-replicas",
    "deployment.kubernetes.io/max-replicas",
    "deprecated.deployment.rollback.to",
];

/// Why a rollback cannot be made; the words are kubectl's.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    #[error("unable to find specified revision {0} in history")]
    NoSuchRevision(i64),
    #[error("no rollout history found for deployment {0:?}")]
    NoHistory(String),
    #[error("you cannot rollback a paused deployment; resume it first with 'kubectl rollout resume' and try again")]
    Paused,
    #[error("no last revision to roll back to")]
    NoLastRevision,
}

/// Whether `object` names `owner` as its controller.
fn controlled_by(object: &Value, owner: &Value) -> bool {
    let uid = &owner["metadata"]["uid"];
    let owners = object["metadata"]["ownerReferences"].as_array().into_iter().flatten();
    owners.into_iter().any(|reference| reference["controller"] == true && &reference["uid"] == uid)
}

/// The ReplicaSets a Deployment controls, in kubectl's order: the old ones by creation time
/// (then name), then the current one (the oldest whose template is the Deployment's).
pub fn controlled_replica_sets(deployment: &Value, listed: &[Value]) -> Vec<Value> {
    let mut owned: Vec<Value> = listed.iter().filter(|rs| controlled_by(rs, deployment)).cloned().collect();
    let created = |rs: &Value| {
        (
            rs["metadata"]["creationTimestamp"].as_str().unwrap_or_default().to_string(),
            rs["metadata"]["name"].as_str().unwrap_or_default().to_string(),
        )
    };
    owned.sort_by_key(created);
    let template = &deployment["spec"]["template"];
    if let Some(current) = owned.iter().position(|rs| same_template(&rs["spec"]["template"], template)) {
        let current = owned.remove(current);
        owned.push(current);
    }
    owned
}

/// A ReplicaSet's revision as kubectl reads it: none written is 0; one that is not a number is
/// left out (kubectl logs a warning).
fn revision(rs: &Value) -> Option<i64> {
    match rs["metadata"]["annotations"][REVISION].as_str() {
        None => Some(0),
        Some(text) => text.parse().ok(),
    }
}

/// A Deployment's history: each revision's ReplicaSet (the last one read wins, as in kubectl).
#[derive(Debug, Default)]
pub struct History {
    revisions: BTreeMap<i64, Value>,
}

impl History {
    /// The history kept in `replica_sets` (as [`controlled_replica_sets`] orders them).
    pub fn new(replica_sets: &[Value]) -> History {
        let revisions = replica_sets.iter().filter_map(|rs| Some((revision(rs)?, rs.clone()))).collect();
        History { revisions }
    }

    /// The ReplicaSets by revision, oldest first.
    pub fn objects(&self) -> impl Iterator<Item = (i64, &Value)> {
        self.revisions.iter().map(|(revision, rs)| (*revision, rs))
    }

    /// The ReplicaSet of `revision`.
    pub fn object(&self, revision: i64) -> Option<&Value> {
        self.revisions.get(&revision)
    }

    /// The pod template of `revision`, with the ReplicaSet's change cause among its annotations,
    /// as kubectl shows it.
    pub fn template(&self, revision: i64) -> Option<Value> {
        let rs = self.revisions.get(&revision)?;
        let mut template = rs["spec"]["template"].clone();
        if let Some(cause) = rs["metadata"]["annotations"][CHANGE_CAUSE].as_str().filter(|c| !c.is_empty()) {
            template["metadata"]["annotations"][CHANGE_CAUSE] = Value::String(cause.to_string());
        }
        Some(template)
    }

    /// kubectl's overview: a `REVISION  CHANGE-CAUSE` table, or a sentence when there is none.
    pub fn table(&self) -> String {
        table(self.revisions.iter().map(|(revision, rs)| (*revision, rs)))
    }
}

/// kubectl's words for a workload without revisions, in its overview and for any revision asked.
pub const NO_HISTORY: &str = "No rollout history found.";

/// kubectl's overview of revisions, each with the change cause its object records.
fn table<'a>(revisions: impl Iterator<Item = (i64, &'a Value)>) -> String {
    let rows: Vec<(String, &str)> = revisions
        .map(|(revision, object)| {
            let cause = object["metadata"]["annotations"][CHANGE_CAUSE].as_str().filter(|c| !c.is_empty());
            (revision.to_string(), cause.unwrap_or("<none>"))
        })
        .collect();
    if rows.is_empty() {
        return NO_HISTORY.to_string();
    }
    // Go's tabwriter with padding 2: the first column as wide as its widest cell plus two.
    let width = rows.iter().map(|(revision, _)| revision.len()).max().unwrap_or(0).max("REVISION".len()) + 2;
    let mut table = format!("{:width$}CHANGE-CAUSE\n", "REVISION");
    for (revision, cause) in rows {
        table.push_str(&format!("{revision:width$}{cause}\n"));
    }
    table
}

/// The ReplicaSet a rollback to `to_revision` restores (0: the one before the newest), among
/// `replica_sets` in kubectl's order.
pub fn rollback_source<'a>(
    deployment: &Value,
    replica_sets: &'a [Value],
    to_revision: i64,
) -> Result<&'a Value, Error> {
    if to_revision < 0 {
        return Err(Error::NoSuchRevision(to_revision));
    }
    let mut latest: Option<(i64, &Value)> = None;
    let mut previous: Option<(i64, &Value)> = None;
    for rs in replica_sets {
        let Some(revision) = revision(rs) else { continue };
        if to_revision > 0 {
            if revision == to_revision {
                return Ok(rs);
            }
            continue;
        }
        if latest.is_none_or(|(newest, _)| newest < revision) {
            previous = latest;
            latest = Some((revision, rs));
        } else if previous.is_none_or(|(second, _)| second < revision) {
            previous = Some((revision, rs));
        }
    }
    if to_revision > 0 {
        return Err(Error::NoSuchRevision(to_revision));
    }
    let name = deployment["metadata"]["name"].as_str().unwrap_or_default();
    previous.map(|(_, rs)| rs).ok_or_else(|| Error::NoHistory(name.to_string()))
}

/// What a rollback of `deployment` to `source` sends: `None` when its template is already the
/// revision's, else kubectl's JSON patch replacing the pod template (without the hash label) and
/// the annotations (the Deployment's own kept, the ReplicaSet's others copied).
pub fn rollback_patch(deployment: &Value, source: &Value) -> Result<Option<Value>, Error> {
    if deployment["spec"]["paused"] == true {
        return Err(Error::Paused);
    }
    if same_template(&source["spec"]["template"], &deployment["spec"]["template"]) {
        return Ok(None);
    }
    let mut template = source["spec"]["template"].clone();
    if let Some(labels) = template["metadata"]["labels"].as_object_mut() {
        labels.remove(HASH_LABEL);
    }
    let mut annotations = Map::new();
    for key in KEPT_ANNOTATIONS {
        if let Some(value) = deployment["metadata"]["annotations"].get(key) {
            annotations.insert(key.to_string(), value.clone());
        }
    }
    for (key, value) in source["metadata"]["annotations"].as_object().into_iter().flatten() {
        if !KEPT_ANNOTATIONS.contains(&key.as_str()) {
            annotations.insert(key.clone(), value.clone());
        }
    }
    Ok(Some(json!([
        {"op": "replace", "path": "/spec/template", "value": template},
        {"op": "replace", "path": "/metadata/annotations", "value": annotations},
    ])))
}

/// The ControllerRevisions a DaemonSet or StatefulSet controls, in the order listed.
pub fn controlled_revisions(owner: &Value, listed: &[Value]) -> Vec<Value> {
    listed.iter().filter(|revision| controlled_by(revision, owner)).cloned().collect()
}

/// The history of a DaemonSet or StatefulSet: each revision's ControllerRevision (the last one
/// listed wins, as in kubectl).
#[derive(Debug, Default)]
pub struct Revisions {
    revisions: BTreeMap<i64, Value>,
}

impl Revisions {
    /// The history kept in `controller_revisions`.
    pub fn new(controller_revisions: &[Value]) -> Revisions {
        let revisions =
            controller_revisions.iter().map(|cr| (cr["revision"].as_i64().unwrap_or(0), cr.clone())).collect();
        Revisions { revisions }
    }

    /// The ControllerRevisions by revision, oldest first.
    pub fn objects(&self) -> impl Iterator<Item = (i64, &Value)> {
        self.revisions.iter().map(|(revision, cr)| (*revision, cr))
    }

    /// The ControllerRevision of `revision`.
    pub fn object(&self, revision: i64) -> Option<&Value> {
        self.revisions.get(&revision)
    }

    /// kubectl's overview, the change causes read from the ControllerRevisions.
    pub fn table(&self) -> String {
        table(self.objects())
    }
}

/// The ControllerRevision a rollback to `to_revision` restores (0: the one before the newest),
/// with kubectl's checks in its order.
pub fn revision_to_restore(to_revision: i64, controller_revisions: &[Value]) -> Result<&Value, Error> {
    if to_revision < 0 {
        return Err(Error::NoSuchRevision(to_revision));
    }
    if to_revision == 0 {
        if controller_revisions.len() <= 1 {
            return Err(Error::NoLastRevision);
        }
        let mut by_revision: Vec<&Value> = controller_revisions.iter().collect();
        by_revision.sort_by_key(|cr| cr["revision"].as_i64().unwrap_or(0));
        return Ok(by_revision[by_revision.len() - 2]);
    }
    controller_revisions
        .iter()
        .find(|cr| cr["revision"].as_i64() == Some(to_revision))
        .ok_or(Error::NoSuchRevision(to_revision))
}

/// What the controllers store as a revision of `owner`: a strategic merge patch replacing the
/// pod template. A rollback sends the revision's; when it equals the owner's own, it is skipped.
pub fn template_patch(owner: &Value) -> Value {
    let mut template = owner["spec"]["template"].clone();
    if let Some(template) = template.as_object_mut() {
        template.insert("$patch".to_string(), Value::from("replace"));
    }
    json!({"spec": {"template": template}})
}

/// Whether two pod templates are the same but for the hash label, as apimachinery's semantic
/// equality sees them: an empty list or map is the same as none.
fn same_template(a: &Value, b: &Value) -> bool {
    let normal = |template: &Value| {
        let mut template = template.clone();
        if let Some(labels) = template["metadata"]["labels"].as_object_mut() {
            labels.remove(HASH_LABEL);
        }
        without_empty(template)
    };
    normal(a) == normal(b)
}

fn without_empty(value: Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.into_iter()
                .map(|(key, value)| (key, without_empty(value)))
                .filter(|(_, value)| !is_empty(value))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.into_iter().map(without_empty).collect()),
        other => other,
    }
}

fn is_empty(value: &Value) -> bool {
    match value {
        Value::Null => true,
        Value::Array(items) => items.is_empty(),
        Value::Object(map) => map.is_empty(),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn deployment(image: &str) -> Value {
        json!({"metadata": {"name": "web", "uid": "d1", "annotations": {REVISION: "2", "note": "x"}},
               "spec": {"template": {"metadata": {"labels": {"app": "web"}},
                                     "spec": {"containers": [{"name": "app", "image": image}]}}}})
    }

    fn replica_set(name: &str, revision: &str, image: &str, created: &str) -> Value {
        json!({"metadata": {"name": name, "creationTimestamp": created,
                            "annotations": {REVISION: revision, CHANGE_CAUSE: format!("cause {revision}")},
                            "ownerReferences": [{"uid": "d1", "controller": true}]},
               "spec": {"template": {"metadata": {"labels": {"app": "web", HASH_LABEL: name}},
                                     "spec": {"containers": [{"name": "app", "image": image}]}}}})
    }

    #[test]
    fn history_orders_revisions_and_keeps_only_controlled_sets() {
        let mut stranger = replica_set("other", "9", "x", "2026-01-01T00:00:00Z");
        stranger["metadata"]["ownerReferences"][0]["uid"] = json!("d2");
        let listed = [
            replica_set("b", "2", "nginx:2", "2026-01-02T00:00:00Z"),
            stranger,
            replica_set("a", "1", "nginx:1", "2026-01-01T00:00:00Z"),
        ];
        let sets = controlled_replica_sets(&deployment("nginx:2"), &listed);
        let names: Vec<&str> = sets.iter().map(|rs| rs["metadata"]["name"].as_str().unwrap()).collect();
        assert_eq!(names, ["a", "b"]);
        let history = History::new(&sets);
        assert_eq!(history.table(), "REVISION  CHANGE-CAUSE\n1         cause 1\n2         cause 2\n");
        assert_eq!(History::default().table(), "No rollout history found.");
        assert_eq!(history.template(1).unwrap()["metadata"]["annotations"][CHANGE_CAUSE], "cause 1");
    }

    #[test]
    fn undo_goes_to_the_revision_before_the_newest_and_keeps_the_deployments_annotations() {
        let sets = [replica_set("a", "1", "nginx:1", "t1"), replica_set("b", "2", "nginx:2", "t2")];
        let live = deployment("nginx:2");
        let source = rollback_source(&live, &sets, 0).unwrap();
        assert_eq!(source["metadata"]["name"], "a");
        let patch = rollback_patch(&live, source).unwrap().unwrap();
        assert_eq!(patch[0]["value"]["metadata"]["labels"], json!({"app": "web"}));
        assert_eq!(patch[1]["value"], json!({REVISION: "2", CHANGE_CAUSE: "cause 1"}));
        assert_eq!(rollback_patch(&live, &sets[1]).unwrap(), None, "already at revision 2");
        assert_eq!(
            rollback_source(&live, &sets, 7).unwrap_err().to_string(),
            "unable to find specified revision 7 in history"
        );
        assert_eq!(rollback_source(&live, &sets[..1], 0).unwrap_err(), Error::NoHistory("web".into()));
        let mut paused = live.clone();
        paused["spec"]["paused"] = json!(true);
        assert_eq!(rollback_patch(&paused, source).unwrap_err(), Error::Paused);
    }

    fn controller_revision(name: &str, revision: i64, owner_uid: &str) -> Value {
        json!({"metadata": {"name": name, "ownerReferences": [{"uid": owner_uid, "controller": true}]},
               "revision": revision, "data": {"spec": {"template": {"spec": {}, "$patch": "replace"}}}})
    }

    #[test]
    fn controller_revisions_restore_the_one_asked_for_or_the_one_before_the_newest() {
        let owner = json!({"metadata": {"uid": "d1"}, "spec": {"template": {"spec": {}}}});
        let listed = [
            controller_revision("a-3", 3, "d1"),
            controller_revision("a-1", 1, "d1"),
            controller_revision("other", 5, "x9"),
            controller_revision("a-2", 2, "d1"),
        ];
        let owned = controlled_revisions(&owner, &listed);
        let name = |cr: &Value| cr["metadata"]["name"].as_str().unwrap().to_string();
        assert_eq!(owned.iter().map(name).collect::<Vec<_>>(), ["a-3", "a-1", "a-2"]);
        assert_eq!(name(revision_to_restore(0, &owned).unwrap()), "a-2");
        assert_eq!(name(revision_to_restore(1, &owned).unwrap()), "a-1");
        assert_eq!(revision_to_restore(7, &owned), Err(Error::NoSuchRevision(7)));
        assert_eq!(revision_to_restore(-1, &owned), Err(Error::NoSuchRevision(-1)));
        assert_eq!(revision_to_restore(0, &owned[..1]), Err(Error::NoLastRevision));
        assert_eq!(
            Revisions::new(&owned).table(),
            "REVISION  CHANGE-CAUSE\n1         <none>\n2         <none>\n3         <none>\n"
        );
        // The owner's template is what each revision stores: rolling back to it changes nothing.
        assert_eq!(template_patch(&owner), owned[0]["data"]);
    }
}
