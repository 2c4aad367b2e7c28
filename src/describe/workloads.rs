//! kubectl's describers of workloads: Deployment (with its ReplicaSets), ReplicaSet (with the
//! phases of its pods), Job.

use serde_json::Value;

use super::pod::describe_template;
use super::{
    Related, Writer, annotations, controller, integer, label_selector, labels, list, rfc1123z, scalar, selector_string,
    str_of, text_nonempty,
};

/// The label a Deployment's ReplicaSets carry, left out when templates are compared.
const HASH_LABEL: &str = "pod-template-hash";

/// `describeDeployment`; `replica_sets` are those its selector matches (kubectl keeps those it
/// controls).
pub(super) fn deployment(w: &mut Writer, deployment: &Value, replica_sets: &[Value]) {
    let metadata = &deployment["metadata"];
    let spec = &deployment["spec"];
    let status = &deployment["status"];
    w.write(0, &format!("Name:\t{}\n", str_of(&metadata["name"])));
    w.write(0, &format!("Namespace:\t{}\n", str_of(&metadata["namespace"])));
    w.write(0, &format!("CreationTimestamp:\t{}\n", rfc1123z(str_of(&metadata["creationTimestamp"]))));
    labels(w, "Labels", &metadata["labels"]);
    annotations(w, "Annotations", &metadata["annotations"]);
    w.write(0, &format!("Selector:\t{}\n", selector_string(&spec["selector"])));
    w.write(
        0,
        &format!(
            "Replicas:\t{} desired | {} updated | {} total | {} available | {} unavailable\n",
            integer(&spec["replicas"]),
            integer(&status["updatedReplicas"]),
            integer(&status["replicas"]),
            integer(&status["availableReplicas"]),
            integer(&status["unavailableReplicas"])
        ),
    );
    w.write(0, &format!("StrategyType:\t{}\n", str_of(&spec["strategy"]["type"])));
    w.write(0, &format!("MinReadySeconds:\t{}\n", integer(&spec["minReadySeconds"])));
    let rolling = &spec["strategy"]["rollingUpdate"];
    if rolling.is_object() {
        w.write(
            0,
            &format!(
                "RollingUpdateStrategy:\t{} max unavailable, {} max surge\n",
                int_or_string(&rolling["maxUnavailable"]),
                int_or_string(&rolling["maxSurge"])
            ),
        );
    }
    describe_template(w, &spec["template"]);
    conditions(w, status);
    let uid = str_of(&metadata["uid"]);
    let mut owned: Vec<&Value> = replica_sets.iter().filter(|rs| controlled_by(rs, uid)).collect();
    owned.sort_by(|a, b| {
        let created = |rs: &Value| {
            crate::gocompat::time::parse_timestamp(str_of(&rs["metadata"]["creationTimestamp"]))
                .unwrap_or(std::time::UNIX_EPOCH)
        };
        created(a).cmp(&created(b)).then_with(|| str_of(&a["metadata"]["name"]).cmp(str_of(&b["metadata"]["name"])))
    });
    let template = without_hash(&spec["template"]);
    let new = owned.iter().position(|rs| without_hash(&rs["spec"]["template"]) == template);
    if !owned.is_empty() {
        let new_rs: Vec<&Value> = new.map(|i| owned[i]).into_iter().collect();
        let old: Vec<&Value> = owned.iter().enumerate().filter(|(i, _)| Some(*i) != new).map(|(_, rs)| *rs).collect();
        w.write(0, &format!("OldReplicaSets:\t{}\n", replica_sets_text(&old)));
        w.write(0, &format!("NewReplicaSet:\t{}\n", replica_sets_text(&new_rs)));
    }
}

/// Whether `object`'s controller is the object with `uid`.
fn controlled_by(object: &Value, uid: &str) -> bool {
    list(&object["metadata"]["ownerReferences"])
        .iter()
        .any(|owner| owner["controller"].as_bool() == Some(true) && str_of(&owner["uid"]) == uid)
}

/// A pod template as kubectl compares it (`equalIgnoreHash`, a semantic deep equality): without
/// the hash label, empty maps and lists as absent.
fn without_hash(template: &Value) -> Value {
    let mut template = template.clone();
    if let Some(labels) = template.pointer_mut("/metadata/labels").and_then(Value::as_object_mut) {
        labels.remove(HASH_LABEL);
    }
    prune_empty(&mut template);
    template
}

fn prune_empty(value: &mut Value) {
    match value {
        Value::Object(map) => {
            map.values_mut().for_each(prune_empty);
            map.retain(|_, v| !matches!(v, Value::Null) && v.as_object().is_none_or(|m| !m.is_empty()));
            map.retain(|_, v| v.as_array().is_none_or(|a| !a.is_empty()));
        }
        Value::Array(items) => items.iter_mut().for_each(prune_empty),
        _ => {}
    }
}

/// `printReplicaSetsByLabels`.
fn replica_sets_text(replica_sets: &[&Value]) -> String {
    let texts: Vec<String> = replica_sets
        .iter()
        .map(|rs| {
            format!(
                "{} ({}/{} replicas created)",
                str_of(&rs["metadata"]["name"]),
                integer(&rs["status"]["replicas"]),
                integer(&rs["spec"]["replicas"])
            )
        })
        .collect();
    if texts.is_empty() { "<none>".to_string() } else { texts.join(", ") }
}

/// An int-or-string as `IntOrString.String` writes it.
fn int_or_string(value: &Value) -> String {
    match value {
        Value::Null => "0".to_string(),
        other => scalar(other),
    }
}

/// The conditions table of Deployments and ReplicaSets.
fn conditions(w: &mut Writer, status: &Value) {
    let conditions = list(&status["conditions"]);
    if conditions.is_empty() {
        return;
    }
    w.write(0, "Conditions:\n  Type\tStatus\tReason\n");
    w.write(1, "----\t------\t------\n");
    for condition in conditions {
        w.write(
            1,
            &format!(
                "{} \t{}\t{}\n",
                str_of(&condition["type"]),
                str_of(&condition["status"]),
                str_of(&condition["reason"])
            ),
        );
    }
}

/// `describeReplicaSet`; `related.pods` are those its selector matches.
pub(super) fn replica_set(w: &mut Writer, rs: &Value, related: &Related) {
    let metadata = &rs["metadata"];
    w.write(0, &format!("Name:\t{}\n", str_of(&metadata["name"])));
    w.write(0, &format!("Namespace:\t{}\n", str_of(&metadata["namespace"])));
    w.write(0, &format!("Selector:\t{}\n", label_selector(&rs["spec"]["selector"])));
    labels(w, "Labels", &metadata["labels"]);
    annotations(w, "Annotations", &metadata["annotations"]);
    if let Some(owner) = controller(rs) {
        w.write(0, &format!("Controlled By:\t{owner}\n"));
    }
    w.write(
        0,
        &format!(
            "Replicas:\t{} current / {} desired\n",
            integer(&rs["status"]["replicas"]),
            integer(&rs["spec"]["replicas"])
        ),
    );
    w.write(0, "Pods Status:\t");
    match &related.pods_error {
        Some(err) => w.write(0, &format!("error in fetching pods: {err}\n")),
        None => {
            let [running, waiting, succeeded, failed] = phases(&related.pods, str_of(&metadata["uid"]));
            w.write(0, &format!("{running} Running / {waiting} Waiting / {succeeded} Succeeded / {failed} Failed\n"));
        }
    }
    describe_template(w, &rs["spec"]["template"]);
    conditions(w, &rs["status"]);
}

/// `getPodStatusForController`: how many of the pods the controller `uid` controls are running,
/// pending, succeeded and failed.
pub(super) fn phases(pods: &[Value], uid: &str) -> [usize; 4] {
    let mut counts = [0; 4];
    for pod in pods.iter().filter(|pod| controlled_by(pod, uid)) {
        match str_of(&pod["status"]["phase"]) {
            "Running" => counts[0] += 1,
            "Pending" => counts[1] += 1,
            "Succeeded" => counts[2] += 1,
            "Failed" => counts[3] += 1,
            _ => {}
        }
    }
    counts
}

/// `describeJob`.
pub(super) fn job(w: &mut Writer, job: &Value) {
    let metadata = &job["metadata"];
    let spec = &job["spec"];
    let status = &job["status"];
    w.write(0, &format!("Name:\t{}\n", str_of(&metadata["name"])));
    w.write(0, &format!("Namespace:\t{}\n", str_of(&metadata["namespace"])));
    w.write(0, &format!("Selector:\t{}\n", selector_string(&spec["selector"])));
    labels(w, "Labels", &metadata["labels"]);
    annotations(w, "Annotations", &metadata["annotations"]);
    if let Some(owner) = controller(job) {
        w.write(0, &format!("Controlled By:\t{owner}\n"));
    }
    if let Some(parallelism) = spec["parallelism"].as_i64() {
        w.write(0, &format!("Parallelism:\t{parallelism}\n"));
    }
    match spec["completions"].as_i64() {
        Some(completions) => w.write(0, &format!("Completions:\t{completions}\n")),
        None => w.write(0, "Completions:\t<unset>\n"),
    }
    if let Some(mode) = spec["completionMode"].as_str() {
        w.write(0, &format!("Completion Mode:\t{mode}\n"));
    }
    if let Some(suspend) = spec["suspend"].as_bool() {
        w.write(0, &format!("Suspend:\t{suspend}\n"));
    }
    if let Some(limit) = spec["backoffLimit"].as_i64() {
        w.write(0, &format!("Backoff Limit:\t{limit}\n"));
    }
    if let Some(ttl) = spec["ttlSecondsAfterFinished"].as_i64() {
        w.write(0, &format!("TTL Seconds After Finished:\t{ttl}\n"));
    }
    let start = text_nonempty(&status["startTime"]);
    let completion = text_nonempty(&status["completionTime"]);
    if let Some(start) = start {
        w.write(0, &format!("Start Time:\t{}\n", rfc1123z(start)));
    }
    if let Some(completion) = completion {
        w.write(0, &format!("Completed At:\t{}\n", rfc1123z(completion)));
    }
    if let (Some(start), Some(completion)) = (start, completion) {
        let parse = crate::gocompat::time::parse_timestamp;
        if let (Some(start), Some(completion)) = (parse(start), parse(completion)) {
            let took = crate::gocompat::time::human_duration_since(start, completion);
            w.write(0, &format!("Duration:\t{took}\n"));
        }
    }
    if let Some(deadline) = spec["activeDeadlineSeconds"].as_i64() {
        w.write(0, &format!("Active Deadline Seconds:\t{deadline}s\n"));
    }
    let (active, succeeded, failed) =
        (integer(&status["active"]), integer(&status["succeeded"]), integer(&status["failed"]));
    match status["ready"].as_i64() {
        None => w.write(0, &format!("Pods Statuses:\t{active} Active / {succeeded} Succeeded / {failed} Failed\n")),
        Some(ready) => w.write(
            0,
            &format!("Pods Statuses:\t{active} Active ({ready} Ready) / {succeeded} Succeeded / {failed} Failed\n"),
        ),
    }
    if spec["completionMode"].as_str() == Some("Indexed") {
        w.write(0, &format!("Completed Indexes:\t{}\n", capped_indexes(str_of(&status["completedIndexes"]), 50)));
    }
    describe_template(w, &spec["template"]);
}

/// `capIndexesListOrNone`: the list cut after the first comma past `soft_limit` bytes.
fn capped_indexes(indexes: &str, soft_limit: usize) -> String {
    if indexes.is_empty() {
        return "<none>".to_string();
    }
    match indexes.bytes().enumerate().skip(soft_limit).find(|(_, b)| *b == b',') {
        Some((at, _)) => format!("{}...", &indexes[..=at]),
        None => indexes.to_string(),
    }
}

/// `describeStatefulSet`; `related.pods` are those its selector matches.
pub(super) fn stateful_set(w: &mut Writer, set: &Value, related: &Related) {
    let metadata = &set["metadata"];
    let spec = &set["spec"];
    w.write(0, &format!("Name:\t{}\n", str_of(&metadata["name"])));
    w.write(0, &format!("Namespace:\t{}\n", str_of(&metadata["namespace"])));
    w.write(0, &format!("CreationTimestamp:\t{}\n", rfc1123z(str_of(&metadata["creationTimestamp"]))));
    w.write(0, &format!("Selector:\t{}\n", selector_string(&spec["selector"])));
    labels(w, "Labels", &metadata["labels"]);
    annotations(w, "Annotations", &metadata["annotations"]);
    if let Some(service) = text_nonempty(&spec["serviceName"]) {
        w.write(0, &format!("Service Name:\t{service}\n"));
    }
    if let Some(policy) = text_nonempty(&spec["podManagementPolicy"]) {
        w.write(0, &format!("Pod Management Policy:\t{policy}\n"));
    }
    w.write(
        0,
        &format!("Replicas:\t{} desired | {} total\n", integer(&spec["replicas"]), integer(&set["status"]["replicas"])),
    );
    w.write(0, &format!("Update Strategy:\t{}\n", str_of(&spec["updateStrategy"]["type"])));
    let rolling = &spec["updateStrategy"]["rollingUpdate"];
    if let Some(partition) = rolling["partition"].as_i64() {
        w.write(1, &format!("Partition:\t{partition}\n"));
        if !rolling["maxUnavailable"].is_null() {
            w.write(1, &format!("MaxUnavailable:\t{}\n", scalar(&rolling["maxUnavailable"])));
        }
    }
    let retention = &spec["persistentVolumeClaimRetentionPolicy"];
    if retention.is_object() {
        w.write(0, "Persistent Volume Claim Retention Policy:\n");
        w.write(1, &format!("WhenDeleted:\t{}\n", str_of(&retention["whenDeleted"])));
        w.write(1, &format!("WhenScaled:\t{}\n", str_of(&retention["whenScaled"])));
    }
    pods_status(w, set, related);
    describe_template(w, &spec["template"]);
    let templates = list(&spec["volumeClaimTemplates"]);
    if templates.is_empty() {
        w.write(0, "Volume Claims:\t<none>\n");
    } else {
        w.write(0, "Volume Claims:\n");
        for claim in templates {
            w.write(1, &format!("Name:\t{}\n", str_of(&claim["metadata"]["name"])));
            w.write(1, &format!("StorageClass:\t{}\n", claim_class(claim)));
            super::labels_indented(w, "  ", "Labels", "\t", &claim["metadata"]["labels"]);
            super::labels_indented(w, "  ", "Annotations", "\t", &claim["metadata"]["annotations"]);
            let capacity = &claim["spec"]["resources"]["requests"]["storage"];
            let capacity = if capacity.is_null() { "<default>".to_string() } else { super::pod::quantity(capacity) };
            w.write(1, &format!("Capacity:\t{capacity}\n"));
            w.write(1, &format!("Access Modes:\t{}\n", access_modes(&claim["spec"]["accessModes"])));
        }
    }
}

/// `storageutil.GetPersistentVolumeClaimClass`.
pub(super) fn claim_class(claim: &Value) -> &str {
    match claim["metadata"]["annotations"]["volume.beta.kubernetes.io/storage-class"].as_str() {
        Some(class) => class,
        None => str_of(&claim["spec"]["storageClassName"]),
    }
}

/// A list of access modes as Go's `%s` prints it: `[ReadWriteOnce]`.
fn access_modes(modes: &Value) -> String {
    let modes: Vec<&str> = list(modes).iter().map(str_of).collect();
    format!("[{}]", modes.join(" "))
}

fn pods_status(w: &mut Writer, controller: &Value, related: &Related) {
    let [running, waiting, succeeded, failed] = phases(&related.pods, str_of(&controller["metadata"]["uid"]));
    w.write(
        0,
        &format!("Pods Status:\t{running} Running / {waiting} Waiting / {succeeded} Succeeded / {failed} Failed\n"),
    );
}

/// `describeDaemonSet`; `related.pods` are those its selector matches.
pub(super) fn daemon_set(w: &mut Writer, daemon: &Value, related: &Related) {
    let metadata = &daemon["metadata"];
    let status = &daemon["status"];
    w.write(0, &format!("Name:\t{}\n", str_of(&metadata["name"])));
    w.write(0, &format!("Namespace:\t{}\n", str_of(&metadata["namespace"])));
    w.write(0, &format!("Selector:\t{}\n", selector_string(&daemon["spec"]["selector"])));
    let node_selector = daemon["spec"]["template"]["spec"]["nodeSelector"].as_object().cloned().unwrap_or_default();
    let node_selector: Vec<String> =
        super::sorted_keys(&node_selector).into_iter().map(|k| format!("{k}={}", str_of(&node_selector[k]))).collect();
    w.write(0, &format!("Node-Selector:\t{}\n", node_selector.join(",")));
    labels(w, "Labels", &metadata["labels"]);
    annotations(w, "Annotations", &metadata["annotations"]);
    for (field, title) in [
        ("desiredNumberScheduled", "Desired Number of Nodes Scheduled"),
        ("currentNumberScheduled", "Current Number of Nodes Scheduled"),
        ("updatedNumberScheduled", "Number of Nodes Scheduled with Up-to-date Pods"),
        ("numberAvailable", "Number of Nodes Scheduled with Available Pods"),
        ("numberMisscheduled", "Number of Nodes Misscheduled"),
    ] {
        w.write(0, &format!("{title}: {}\n", integer(&status[field])));
    }
    pods_status(w, daemon, related);
    describe_template(w, &daemon["spec"]["template"]);
}

/// `describeCronJob`.
pub(super) fn cron_job(w: &mut Writer, cron: &Value) {
    let metadata = &cron["metadata"];
    let spec = &cron["spec"];
    w.write(0, &format!("Name:\t{}\n", str_of(&metadata["name"])));
    w.write(0, &format!("Namespace:\t{}\n", str_of(&metadata["namespace"])));
    labels(w, "Labels", &metadata["labels"]);
    annotations(w, "Annotations", &metadata["annotations"]);
    w.write(0, &format!("Schedule:\t{}\n", str_of(&spec["schedule"])));
    w.write(0, &format!("Concurrency Policy:\t{}\n", str_of(&spec["concurrencyPolicy"])));
    let suspend = match spec["suspend"].as_bool() {
        Some(true) => "True",
        Some(false) => "False",
        None => "<unset>",
    };
    w.write(0, &format!("Suspend:\t{suspend}\n"));
    w.write(0, &format!("Time Zone:\t{}\n", spec["timeZone"].as_str().unwrap_or("<unset>")));
    let number = |field: &str| spec[field].as_i64().map_or("<unset>".to_string(), |n| n.to_string());
    w.write(0, &format!("Successful Job History Limit:\t{}\n", number("successfulJobsHistoryLimit")));
    w.write(0, &format!("Failed Job History Limit:\t{}\n", number("failedJobsHistoryLimit")));
    let deadline = spec["startingDeadlineSeconds"].as_i64().map_or("<unset>".to_string(), |n| format!("{n}s"));
    w.write(0, &format!("Starting Deadline Seconds:\t{deadline}\n"));
    let job = &spec["jobTemplate"]["spec"];
    if job["selector"].is_object() {
        w.write(0, &format!("Selector:\t{}\n", selector_string(&job["selector"])));
    } else {
        w.write(0, "Selector:\t<unset>\n");
    }
    let number = |field: &str| job[field].as_i64().map_or("<unset>".to_string(), |n| n.to_string());
    w.write(0, &format!("Parallelism:\t{}\n", number("parallelism")));
    w.write(0, &format!("Completions:\t{}\n", number("completions")));
    if let Some(deadline) = job["activeDeadlineSeconds"].as_i64() {
        w.write(0, &format!("Active Deadline Seconds:\t{deadline}s\n"));
    }
    describe_template(w, &job["template"]);
    match cron["status"]["lastScheduleTime"].as_str() {
        Some(time) => w.write(0, &format!("Last Schedule Time:\t{}\n", rfc1123z(time))),
        None => w.write(0, "Last Schedule Time:\t<unset>\n"),
    }
    w.write(0, "Active Jobs:\t");
    let active = list(&cron["status"]["active"]);
    if active.is_empty() {
        w.line("<none>");
    } else {
        let names: Vec<&str> = active.iter().map(|job| str_of(&job["name"])).collect();
        w.write(0, &names.join(", "));
        w.line("");
    }
}
