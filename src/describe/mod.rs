//! kubectl's describers (`k8s.io/kubectl/pkg/describe`, kubectl 1.37): an object, and the objects
//! kubectl reads beside it (its events, a workload's ReplicaSets or pods, a Service's
//! EndpointSlices, ...), as the text `kubectl describe` prints. Pure: the gathering is the
//! caller's ([`needs`] says what a kind's describer reads).
//!
//! kubectl writes each description through a prefix writer (two spaces per level, terminal
//! escapes made visible) into Go's `text/tabwriter` (minimum width 0, padding 2), flushed before
//! the events table; [`Writer`] does the same.

mod autoscaling;
mod core;
mod generic;
mod node;
mod pod;
mod workloads;

use std::time::SystemTime;

use serde_json::{Map, Value};

use crate::gocompat::tabwriter::TabWriter;

pub use core::ingress_services;
pub use pod::pod_template;

/// Annotations kubectl's describers leave out.
const SKIPPED_ANNOTATIONS: &[&str] = &["kubectl.kubernetes.io/last-applied-configuration"];

/// The longest `key: value` annotation kubectl prints on one line.
const LONGEST_ANNOTATION: usize = 140;

/// What kubectl reads beside an object to describe it; each list as the server gave it.
#[derive(Debug, Default, Clone)]
pub struct Related {
    /// The object's events; `None` when they are not shown (`--show-events=false`, several
    /// objects).
    pub events: Option<Vec<Value>>,
    /// Pods: those a workload's selector matches (ReplicaSet), those on a Node.
    pub pods: Vec<Value>,
    /// A Deployment's ReplicaSets (those its selector matches; the owned ones are picked here).
    pub replica_sets: Vec<Value>,
    /// A Service's EndpointSlices.
    pub endpoint_slices: Vec<Value>,
    /// A Namespace's ResourceQuotas and LimitRanges; `None` when the server has none of the kind.
    pub quotas: Option<Vec<Value>>,
    pub limit_ranges: Option<Vec<Value>>,
    /// A Node's Lease (kube-node-lease), or why it could not be read.
    pub lease: Option<Result<Value, String>>,
    /// An Ingress's backend Services by name, each with its EndpointSlices, or the error of
    /// reading them.
    pub backends: std::collections::BTreeMap<String, Result<(Value, Vec<Value>), String>>,
    /// A Node's own ResourceSlices.
    pub resource_slices: Vec<Value>,
    /// The error of reading the pods, where kubectl prints it in the description.
    pub pods_error: Option<String>,
}

/// What a kind's describer reads beside the object.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Needs {
    /// Events, when shown at all (a Secret's describer never shows them).
    pub events: bool,
    /// The pods of the object's namespace that its `spec.selector` matches.
    pub selected_pods: bool,
    /// The ReplicaSets its selector matches.
    pub replica_sets: bool,
    /// The EndpointSlices labelled `kubernetes.io/service-name=NAME`.
    pub endpoint_slices: bool,
    /// The ResourceQuotas and LimitRanges of the namespace the object is.
    pub quotas: bool,
    /// The pods on the node (not Succeeded or Failed), its Lease.
    pub node: bool,
    /// Every pod of the object's namespace (a PersistentVolumeClaim's users).
    pub namespace_pods: bool,
    /// The Services an Ingress's backends name ([`ingress_services`]), and their EndpointSlices.
    pub backends: bool,
}

/// What kubectl's describer of `group`/`kind` reads beside the object.
pub fn needs(group: &str, kind: &str) -> Needs {
    let events = Needs { events: true, ..Needs::default() };
    match (group, kind) {
        ("", "Secret" | "ResourceQuota" | "LimitRange") => Needs::default(),
        ("", "Namespace") => Needs { quotas: true, ..Needs::default() },
        ("apps", "Deployment") => Needs { replica_sets: true, ..events },
        ("apps", "ReplicaSet" | "StatefulSet" | "DaemonSet") => Needs { selected_pods: true, ..events },
        ("", "Service") => Needs { endpoint_slices: true, ..events },
        ("", "Node") => Needs { node: true, ..events },
        ("", "PersistentVolumeClaim") => Needs { namespace_pods: true, ..events },
        ("networking.k8s.io", "Ingress") => Needs { backends: true, ..events },
        _ => events,
    }
}

/// The description of `object` (as the server returned it), with what kubectl read beside it,
/// at `now` (for ages).
pub fn describe(object: &Value, related: &Related, now: SystemTime) -> String {
    let api_version = str_of(&object["apiVersion"]);
    let group = api_version.split_once('/').map_or("", |(group, _)| group);
    let mut w = Writer::tabbed();
    let events = related.events.as_deref();
    match (group, str_of(&object["kind"])) {
        ("", "Pod") => pod::describe_pod(&mut w, object, now),
        ("apps", "Deployment") => workloads::deployment(&mut w, object, &related.replica_sets),
        ("apps", "ReplicaSet") => workloads::replica_set(&mut w, object, related),
        ("batch", "Job") => workloads::job(&mut w, object),
        ("apps", "StatefulSet") => workloads::stateful_set(&mut w, object, related),
        ("apps", "DaemonSet") => workloads::daemon_set(&mut w, object, related),
        ("batch", "CronJob") => workloads::cron_job(&mut w, object),
        ("", "Service") => core::service(&mut w, object, &related.endpoint_slices),
        ("", "ConfigMap") => core::config_map(&mut w, object),
        ("", "Secret") => core::secret(&mut w, object),
        ("", "Namespace") => core::namespace(&mut w, object, related),
        ("", "ServiceAccount") => core::service_account(&mut w, object),
        ("", "Node") => node::describe(&mut w, object, related, now),
        ("", "ResourceQuota") => core::resource_quota(&mut w, object),
        ("", "LimitRange") => core::limit_range(&mut w, object),
        ("", "PersistentVolumeClaim") => core::persistent_volume_claim(&mut w, object, related, now),
        ("networking.k8s.io", "Ingress") => core::ingress(&mut w, object, related),
        ("autoscaling", "HorizontalPodAutoscaler") => autoscaling::horizontal_pod_autoscaler(&mut w, object),
        _ => generic::describe(&mut w, object),
    }
    if let Some(events) = events {
        describe_events(&mut w, events, now);
    }
    w.finish()
}

/// The kinds [`describe`] has kubectl's own describer for; the others get the generic one.
pub fn has_own_describer(group: &str, kind: &str) -> bool {
    matches!(
        (group, kind),
        (
            "",
            "Pod"
                | "Service"
                | "ConfigMap"
                | "Secret"
                | "Namespace"
                | "ServiceAccount"
                | "Node"
                | "ResourceQuota"
                | "LimitRange"
                | "PersistentVolumeClaim"
        ) | ("networking.k8s.io", "Ingress")
            | ("apps", "Deployment" | "ReplicaSet" | "StatefulSet" | "DaemonSet")
            | ("batch", "Job" | "CronJob")
            | ("autoscaling", "HorizontalPodAutoscaler")
    )
}

/// kubectl's prefix writer over Go's tab writer: text at a level (two spaces each), terminal
/// escapes made visible; [`Writer::flush`] lays out what came so far on its own.
pub(crate) struct Writer {
    pending: String,
    done: String,
    tabbed: bool,
}

impl Writer {
    /// A writer whose text goes through the tab writer, as every describer's.
    pub(crate) fn tabbed() -> Writer {
        Writer { pending: String::new(), done: String::new(), tabbed: true }
    }

    /// A writer that keeps the tabs (`rollout history --revision` prints the pod template so).
    pub(crate) fn raw() -> Writer {
        Writer { tabbed: false, ..Writer::tabbed() }
    }

    pub(crate) fn write(&mut self, level: usize, text: &str) {
        for _ in 0..level {
            self.pending.push_str("  ");
        }
        self.pending.push_str(&escaped(text));
    }

    /// `WriteLine`: the text and a newline, at no level.
    pub(crate) fn line(&mut self, text: &str) {
        self.write(0, &format!("{text}\n"));
    }

    pub(crate) fn flush(&mut self) {
        let pending = std::mem::take(&mut self.pending);
        if self.tabbed {
            let mut writer = TabWriter::describe();
            let mut text = writer.write(&pending);
            text.push_str(&writer.flush());
            self.done.push_str(&text);
        } else {
            self.done.push_str(&pending);
        }
    }

    pub(crate) fn finish(mut self) -> String {
        self.flush();
        self.done
    }
}

/// cli-runtime's `WriteEscaped`: escape and carriage return shown as `^[` and `\r`.
fn escaped(text: &str) -> std::borrow::Cow<'_, str> {
    if text.contains(['\x1b', '\r']) {
        std::borrow::Cow::Owned(text.replace('\x1b', "^[").replace('\r', "\\r"))
    } else {
        std::borrow::Cow::Borrowed(text)
    }
}

/// The `Conditions:` table of kubectl's PersistentVolumeClaim and Node describers; `first_time`
/// names the first time column and, first letter lowered, its field (`LastProbeTime`,
/// `LastHeartbeatTime`). Nothing when there are no conditions.
pub(crate) fn conditions_table(w: &mut Writer, conditions: &Value, first_time: &str) {
    let conditions = list(conditions);
    if conditions.is_empty() {
        return;
    }
    let field = format!("{}{}", first_time[..1].to_lowercase(), &first_time[1..]);
    w.write(0, "Conditions:\n");
    w.write(1, &format!("Type\tStatus\t{first_time}\tLastTransitionTime\tReason\tMessage\n"));
    w.write(1, "----\t------\t-----------------\t------------------\t------\t-------\n");
    for condition in conditions {
        let text = |name: &str| str_of(&condition[name]);
        let row = format!(
            "{} \t{} \t{} \t{} \t{} \t{}\n",
            text("type"),
            text("status"),
            rfc1123z(text(&field)),
            rfc1123z(text("lastTransitionTime")),
            text("reason"),
            text("message")
        );
        w.write(1, &row);
    }
}

pub(crate) fn list(value: &Value) -> &[Value] {
    value.as_array().map_or(&[], Vec::as_slice)
}

pub(crate) fn str_of(value: &Value) -> &str {
    value.as_str().unwrap_or_default()
}

pub(crate) fn text_nonempty(value: &Value) -> Option<&str> {
    value.as_str().filter(|s| !s.is_empty())
}

/// A number or string as Go's `%v`/`%d` prints it (int-or-string ports, integers).
pub(crate) fn scalar(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => crate::gocompat::fmt::value_text(other).into_owned(),
    }
}

pub(crate) fn integer(value: &Value) -> i64 {
    value.as_i64().unwrap_or_default()
}

pub(crate) fn flag(value: &Value) -> bool {
    value.as_bool().unwrap_or_default()
}

pub(crate) fn sorted_keys(map: &Map<String, Value>) -> Vec<&String> {
    let mut keys: Vec<&String> = map.keys().collect();
    keys.sort();
    keys
}

/// A metav1.Time text as Go's `time.RFC1123Z` writes it (`Mon, 02 Jan 2006 15:04:05 +0000`), in
/// UTC; the text itself when it is not a time.
pub(crate) fn rfc1123z(text: &str) -> String {
    match crate::gocompat::time::parse_timestamp(text) {
        Some(time) => crate::gocompat::time::rfc1123z(time),
        None => "Mon, 01 Jan 0001 00:00:00 +0000".to_string(),
    }
}

/// `translateTimestampSince`: the age of a time, `<unknown>` for none.
pub(crate) fn since(text: &str, now: SystemTime) -> String {
    match crate::gocompat::time::parse_timestamp(text) {
        Some(time) => crate::gocompat::time::human_duration_since(time, now),
        None => "<unknown>".to_string(),
    }
}

/// `printLabelsMultiline` (and its `WithIndent` form through `title`): sorted `key=value` lines,
/// `<none>` for none.
pub(crate) fn labels(w: &mut Writer, title: &str, labels: &Value) {
    labels_indented(w, "", title, "\t", labels);
}

pub(crate) fn labels_indented(w: &mut Writer, initial: &str, title: &str, inner: &str, labels: &Value) {
    w.write(0, &format!("{initial}{title}:{inner}"));
    let Some(labels) = labels.as_object().filter(|l| !l.is_empty()) else {
        w.line("<none>");
        return;
    };
    for (i, key) in sorted_keys(labels).into_iter().enumerate() {
        if i != 0 {
            w.write(0, initial);
            w.write(0, inner);
        }
        w.write(0, &format!("{key}={}\n", str_of(&labels[key])));
    }
}

/// `printAnnotationsMultiline`: sorted `key: value` lines, long or multi-line values cut and
/// indented, the last-applied configuration left out.
pub(crate) fn annotations(w: &mut Writer, title: &str, annotations: &Value) {
    w.write(0, &format!("{title}:\t"));
    let map = annotations.as_object().cloned().unwrap_or_default();
    let keys: Vec<&String> =
        sorted_keys(&map).into_iter().filter(|k| !SKIPPED_ANNOTATIONS.contains(&k.as_str())).collect();
    if keys.is_empty() {
        w.line("<none>");
        return;
    }
    for (i, key) in keys.into_iter().enumerate() {
        if i != 0 {
            w.write(0, "\t");
        }
        let value = str_of(&map[key]).strip_suffix('\n').unwrap_or(str_of(&map[key]));
        if value.len() + key.len() + 2 > LONGEST_ANNOTATION || value.contains('\n') {
            w.write(0, &format!("{key}:\n"));
            for line in value.split('\n') {
                w.write(0, &format!("\t  {}\n", shorten(line, LONGEST_ANNOTATION - 2)));
            }
        } else {
            w.write(0, &format!("{key}: {value}\n"));
        }
    }
}

/// Go's `s[:n] + "..."`: cut at a byte count (kept on a character boundary here).
pub(crate) fn shorten(line: &str, longest: usize) -> String {
    if line.len() <= longest {
        return line.to_string();
    }
    let mut end = longest;
    while !line.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}...", &line[..end])
}

/// `metav1.FormatLabelSelector`: the selector's text, `<none>` when it selects everything.
pub(crate) fn label_selector(selector: &Value) -> String {
    let text = crate::manifest::selector_text(selector);
    if text.is_empty() { "<none>".to_string() } else { text }
}

/// `metav1.LabelSelectorAsSelector(...).String()`: the selector's text, empty when it selects
/// everything.
pub(crate) fn selector_string(selector: &Value) -> String {
    crate::manifest::selector_text(selector)
}

/// `printController`: `Kind/name` of the owner that is the object's controller.
pub(crate) fn controller(object: &Value) -> Option<String> {
    list(&object["metadata"]["ownerReferences"])
        .iter()
        .find(|owner| flag(&owner["controller"]))
        .map(|owner| format!("{}/{}", str_of(&owner["kind"]), str_of(&owner["name"])))
}

/// `DescribeEvents`: the events table, oldest last-seen first; `Events: <none>` for none.
pub(crate) fn describe_events(w: &mut Writer, events: &[Value], now: SystemTime) {
    if events.is_empty() {
        w.write(0, "Events:\t<none>\n");
        return;
    }
    w.flush();
    let mut events: Vec<&Value> = events.iter().collect();
    let last_seen = |event: &Value| {
        crate::gocompat::time::parse_timestamp(str_of(&event["lastTimestamp"])).unwrap_or(std::time::UNIX_EPOCH)
    };
    events.sort_by_key(|event| last_seen(event));
    w.write(0, "Events:\n  Type\tReason\tAge\tFrom\tMessage\n");
    w.write(1, "----\t------\t----\t----\t-------\n");
    for event in events {
        let first = match text_nonempty(&event["eventTime"]) {
            Some(time) => since(time, now),
            None => since(str_of(&event["firstTimestamp"]), now),
        };
        let count = integer(&event["count"]);
        let interval = if event["series"].is_object() {
            let series = &event["series"];
            format!("{} (x{} over {first})", since(str_of(&series["lastObservedTime"]), now), integer(&series["count"]))
        } else if count > 1 {
            format!("{} (x{count} over {first})", since(str_of(&event["lastTimestamp"]), now))
        } else {
            first
        };
        let source = text_nonempty(&event["source"]["component"]).unwrap_or(str_of(&event["reportingComponent"]));
        let mut message = str_of(&event["message"]).trim().to_string();
        if let Some(path) = text_nonempty(&event["involvedObject"]["fieldPath"]) {
            message = format!("{path}: {message}");
        }
        w.write(
            1,
            &format!("{}\t{}\t{interval}\t{source}\t{message}\n", str_of(&event["type"]), str_of(&event["reason"])),
        );
    }
}

/// The common head of most describers: name, namespace, labels, annotations.
pub(crate) fn head(w: &mut Writer, object: &Value) {
    let metadata = &object["metadata"];
    w.write(0, &format!("Name:\t{}\n", str_of(&metadata["name"])));
    w.write(0, &format!("Namespace:\t{}\n", str_of(&metadata["namespace"])));
    labels(w, "Labels", &metadata["labels"]);
    annotations(w, "Annotations", &metadata["annotations"]);
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn the_events_table_is_laid_out_apart_from_the_lines_above() {
        let now = crate::gocompat::time::parse_timestamp("2026-12-05T04:00:10Z").unwrap();
        let mut w = Writer::tabbed();
        w.write(0, "Name:\tweb\n");
        w.write(0, "A much longer title:\tx\n");
        let events = [
            json!({"type": "Normal", "reason": "Later", "message": "second ", "count": 3,
                "firstTimestamp": "2026-12-05T04:00:00Z", "lastTimestamp": "2026-12-05T04:00:08Z",
                "source": {"component": "ctrl"}}),
            json!({"type": "Warning", "reason": "First", "message": "one", "count": 1,
                "firstTimestamp": "2026-12-05T04:00:05Z", "lastTimestamp": "2026-12-05T04:00:05Z",
                "reportingComponent": "other", "involvedObject": {"fieldPath": "spec.containers{app}"}}),
        ];
        describe_events(&mut w, &events, now);
        assert_eq!(
            w.finish(),
            "Name:                 web\nA much longer title:  x\nEvents:\n  Type     Reason  Age               From   Message\n  \
             ----     ------  ----              ----   -------\n  Warning  First   5s                other  \
             spec.containers{app}: one\n  Normal   Later   2s (x3 over 10s)  ctrl   second\n"
        );
    }

    #[test]
    fn labels_annotations_and_escapes() {
        let mut w = Writer::tabbed();
        labels(&mut w, "Labels", &json!({"b": "2", "a": "1"}));
        annotations(&mut w, "Annotations", &json!({"kubectl.kubernetes.io/last-applied-configuration": "{}"}));
        w.write(0, "Odd:\t\x1b[1m\r\n");
        assert_eq!(w.finish(), "Labels:       a=1\n              b=2\nAnnotations:  <none>\nOdd:          ^[[1m\\r\n");
    }
}
