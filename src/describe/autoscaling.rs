//! kubectl's describer of HorizontalPodAutoscalers: the autoscaling/v2 object (its metrics, each
//! with the current value the status holds at the same index, behavior and conditions), or the
//! autoscaling/v1 one from a server that serves no v2.

use serde_json::Value;

use super::pod::quantity;
use super::{Writer, head, integer, list, rfc1123z, str_of};
use crate::gocompat::fmt::quote;

/// `describeHorizontalPodAutoscalerV2`, or `...V1` for an autoscaling/v1 object.
pub(super) fn horizontal_pod_autoscaler(w: &mut Writer, hpa: &Value) {
    let spec = &hpa["spec"];
    let status = &hpa["status"];
    head_with_reference(w, hpa);
    if str_of(&hpa["apiVersion"]) == "autoscaling/v1" {
        if !spec["targetCPUUtilizationPercentage"].is_null() {
            w.write(0, &format!("Target CPU utilization:\t{}%\n", integer(&spec["targetCPUUtilizationPercentage"])));
            let current = &status["currentCPUUtilizationPercentage"];
            let current = if current.is_null() { "<unknown>".to_string() } else { integer(current).to_string() };
            w.write(0, &format!("Current CPU utilization:\t{current}%\n"));
        }
        replicas(w, spec);
    } else {
        w.write(0, "Metrics:\t( current / target )\n");
        let current = list(&status["currentMetrics"]);
        for (i, metric) in list(&spec["metrics"]).iter().enumerate() {
            describe_metric(w, metric, current.get(i).unwrap_or(&Value::Null));
        }
        replicas(w, spec);
        if spec["behavior"].is_object() {
            w.write(0, "Behavior:\n");
            direction(w, "Scale Up", &spec["behavior"]["scaleUp"]);
            direction(w, "Scale Down", &spec["behavior"]["scaleDown"]);
        }
    }
    w.write(0, &format!("{} pods:\t", str_of(&spec["scaleTargetRef"]["kind"])));
    w.write(
        0,
        &format!("{} current / {} desired\n", integer(&status["currentReplicas"]), integer(&status["desiredReplicas"])),
    );
    let conditions = list(&status["conditions"]);
    if !conditions.is_empty() {
        w.write(0, "Conditions:\n");
        w.write(1, "Type\tStatus\tReason\tMessage\n");
        w.write(1, "----\t------\t------\t-------\n");
        for condition in conditions {
            let text = |name: &str| str_of(&condition[name]);
            w.write(1, &format!("{}\t{}\t{}\t{}\n", text("type"), text("status"), text("reason"), text("message")));
        }
    }
}

/// Name, namespace, labels, annotations, creation time and the scale target.
fn head_with_reference(w: &mut Writer, hpa: &Value) {
    head(w, hpa);
    w.write(0, &format!("CreationTimestamp:\t{}\n", rfc1123z(str_of(&hpa["metadata"]["creationTimestamp"]))));
    let target = &hpa["spec"]["scaleTargetRef"];
    w.write(0, &format!("Reference:\t{}/{}\n", str_of(&target["kind"]), str_of(&target["name"])));
}

fn replicas(w: &mut Writer, spec: &Value) {
    let min = &spec["minReplicas"];
    let min = if min.is_null() { "<unset>".to_string() } else { integer(min).to_string() };
    w.write(0, &format!("Min replicas:\t{min}\n"));
    w.write(0, &format!("Max replicas:\t{}\n", integer(&spec["maxReplicas"])));
}

/// A `resource.Quantity` pointer as Go prints it: `<nil>` when absent.
fn amount(value: &Value) -> String {
    if value.is_null() { "<nil>".to_string() } else { quantity(value) }
}

/// One metric's line: what it measures, then `current / target`. `status` is the status's metric
/// at the same index, whatever its type (kubectl reads it so); `<unknown>` when it lacks the
/// metric's source.
fn describe_metric(w: &mut Writer, metric: &Value, status: &Value) {
    let kind = str_of(&metric["type"]);
    match kind {
        "External" => {
            let source = &metric["external"];
            let current = &status["external"];
            let name = quote(str_of(&source["metric"]["name"]));
            if source["target"]["averageValue"].is_null() {
                let current = current_or_unknown(current, |c| amount(&c["current"]["value"]));
                let target = amount(&source["target"]["value"]);
                w.write(1, &format!("{name} (target value):\t{current} / {target}\n"));
            } else {
                let current = match &current["current"]["averageValue"] {
                    Value::Null => "<unknown>".to_string(),
                    value => quantity(value),
                };
                let target = quantity(&source["target"]["averageValue"]);
                w.write(1, &format!("{name} (target average value):\t{current} / {target}\n"));
            }
        }
        "Pods" => {
            let source = &metric["pods"];
            let current = current_or_unknown(&status["pods"], |c| amount(&c["current"]["averageValue"]));
            let name = quote(str_of(&source["metric"]["name"]));
            w.write(1, &format!("{name} on pods:\t{current} / {}\n", amount(&source["target"]["averageValue"])));
        }
        "Object" => {
            let source = &metric["object"];
            let described = &source["describedObject"];
            w.write(
                1,
                &format!(
                    "\"{}\" on {}/{} ",
                    str_of(&source["metric"]["name"]),
                    str_of(&described["kind"]),
                    str_of(&described["name"])
                ),
            );
            let (field, words) = match str_of(&source["target"]["type"]) {
                "AverageValue" => ("averageValue", "target average value"),
                _ => ("value", "target value"),
            };
            let current = current_or_unknown(&status["object"], |c| amount(&c["current"][field]));
            w.write(0, &format!("({words}):\t{current} / {}\n", amount(&source["target"][field])));
        }
        "Resource" | "ContainerResource" => {
            let (source, current) = if kind == "Resource" {
                let source = &metric["resource"];
                w.write(1, &format!("resource {} on pods", str_of(&source["name"])));
                (source, &status["resource"])
            } else {
                let source = &metric["containerResource"];
                w.write(
                    1,
                    &format!(
                        "resource {} of container \"{}\" on pods",
                        str_of(&source["name"]),
                        str_of(&source["container"])
                    ),
                );
                (source, &status["containerResource"])
            };
            let target = &source["target"];
            if target["averageValue"].is_null() {
                let current = match &current["current"]["averageUtilization"] {
                    Value::Null => "<unknown>".to_string(),
                    utilization => {
                        format!("{}% ({})", integer(utilization), amount(&current["current"]["averageValue"]))
                    }
                };
                let target = match &target["averageUtilization"] {
                    Value::Null => "<auto>".to_string(),
                    utilization => format!("{}%", integer(utilization)),
                };
                w.write(1, &format!("(as a percentage of request):\t{current} / {target}\n"));
            } else {
                let current = current_or_unknown(current, |c| amount(&c["current"]["averageValue"]));
                w.write(0, &format!(":\t{current} / {}\n", quantity(&target["averageValue"])));
            }
        }
        other => w.write(1, &format!("<unknown metric type {}>\n", quote(other))),
    }
}

/// What `read` makes of the status's source, `<unknown>` without one.
fn current_or_unknown(source: &Value, read: impl Fn(&Value) -> String) -> String {
    if source.is_object() { read(source) } else { "<unknown>".to_string() }
}

/// `printDirectionBehavior`: a direction's stabilization window and policies, nothing when unset.
fn direction(w: &mut Writer, name: &str, rules: &Value) {
    if !rules.is_object() {
        return;
    }
    w.write(1, &format!("{name}:\n"));
    if !rules["stabilizationWindowSeconds"].is_null() {
        w.write(2, &format!("Stabilization Window: {} seconds\n", integer(&rules["stabilizationWindowSeconds"])));
    }
    let policies = list(&rules["policies"]);
    if !policies.is_empty() {
        let select = rules["selectPolicy"].as_str().unwrap_or("Max");
        w.write(2, &format!("Select Policy: {select}\n"));
        w.write(2, "Policies:\n");
        for policy in policies {
            w.write(
                3,
                &format!(
                    "- Type: {}\tValue: {}\tPeriod: {} seconds\n",
                    str_of(&policy["type"]),
                    integer(&policy["value"]),
                    integer(&policy["periodSeconds"])
                ),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn described(hpa: &Value) -> String {
        let mut w = Writer::tabbed();
        horizontal_pod_autoscaler(&mut w, hpa);
        w.finish()
    }

    #[test]
    fn metrics_take_the_current_value_at_their_index() {
        let hpa = json!({
            "apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
            "metadata": {"name": "web", "namespace": "ns", "creationTimestamp": "2026-12-05T04:00:00Z"},
            "spec": {
                "scaleTargetRef": {"kind": "Deployment", "name": "web"}, "maxReplicas": 5,
                "metrics": [
                    {"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 60}}},
                    {"type": "Resource", "resource": {"name": "memory", "target": {"type": "AverageValue", "averageValue": "1Gi"}}},
                    {"type": "Pods", "pods": {"metric": {"name": "qps"}, "target": {"type": "AverageValue", "averageValue": "10"}}},
                    {"type": "Object", "object": {"metric": {"name": "hits"}, "describedObject": {"kind": "Service", "name": "front"},
                        "target": {"type": "Value", "value": "2k"}}}
                ]
            },
            "status": {"currentReplicas": 2, "desiredReplicas": 3, "currentMetrics": [
                {"type": "Resource", "resource": {"name": "cpu", "current": {"averageUtilization": 75, "averageValue": "150m"}}}
            ]}
        });
        assert_eq!(
            described(&hpa),
            "Name:                                                  web\n\
             Namespace:                                             ns\n\
             Labels:                                                <none>\n\
             Annotations:                                           <none>\n\
             CreationTimestamp:                                     Sat, 05 Dec 2026 04:00:00 +0000\n\
             Reference:                                             Deployment/web\n\
             Metrics:                                               ( current / target )\n  \
             resource cpu on pods  (as a percentage of request):  75% (150m) / 60%\n  \
             resource memory on pods:                             <unknown> / 1Gi\n  \
             \"qps\" on pods:                                       <unknown> / 10\n  \
             \"hits\" on Service/front (target value):              <unknown> / 2k\n\
             Min replicas:                                          <unset>\n\
             Max replicas:                                          5\n\
             Deployment pods:                                       2 current / 3 desired\n"
        );
    }

    #[test]
    fn an_autoscaling_v1_object_has_its_cpu_target() {
        let hpa = json!({
            "apiVersion": "autoscaling/v1", "kind": "HorizontalPodAutoscaler",
            "metadata": {"name": "old", "namespace": "ns", "creationTimestamp": "2026-12-05T04:00:00Z"},
            "spec": {"scaleTargetRef": {"kind": "ReplicaSet", "name": "rs"}, "minReplicas": 1, "maxReplicas": 3,
                "targetCPUUtilizationPercentage": 50},
            "status": {"currentReplicas": 1, "desiredReplicas": 1}
        });
        assert_eq!(
            described(&hpa),
            "Name:                     old\nNamespace:                ns\nLabels:                   <none>\n\
             Annotations:              <none>\nCreationTimestamp:        Sat, 05 Dec 2026 04:00:00 +0000\n\
             Reference:                ReplicaSet/rs\nTarget CPU utilization:   50%\n\
             Current CPU utilization:  <unknown>%\nMin replicas:             1\nMax replicas:             3\n\
             ReplicaSet pods:          1 current / 1 desired\n"
        );
    }
}
