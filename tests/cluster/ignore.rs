//! Ignore rules on the real apiserver: a Deployment that a HorizontalPodAutoscaler scales keeps
//! its live replicas through client- and server-side applies (the test plays the autoscaler's
//! controller through the scale subresource), unless `--ignore-hpa=false`; `--ignore-field`
//! leaves a field alone for apply and diff; an Argo CD rules file leaves what a manager owns.
//! kubectl has no such rules: its apply sets replicas back to the manifest's (#25238).
use crate::support;

use serde_json::Value;
use support::{TestNamespace, parse_json};

/// A Deployment of 3 replicas, whose replicas another manager takes over in these tests.
const DEPLOYMENT: &str = include_str!("../../testdata/replicas/deployment.yaml");

const HPA: &str = "apiVersion: autoscaling/v1
kind: HorizontalPodAutoscaler
metadata: {name: web}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  minReplicas: 1
  maxReplicas: 20
";

fn apply(namespace: &TestNamespace, args: &[&str], input: &str) -> std::process::Output {
    let mut command = namespace.kubeupd();
    command.args(["-n", &namespace.name]).args(args).args(["-f", "-"]).write_stdin(input.to_string());
    command.output().unwrap()
}

fn live(namespace: &TestNamespace, what: &str) -> Value {
    let json = namespace.kubectl_ok(&["get", what, "-n", &namespace.name, "-o", "json", "--show-managed-fields"]);
    parse_json(json.as_bytes())
}

fn owners(object: &Value, path: &[&str]) -> Vec<String> {
    let entries = object["metadata"]["managedFields"].as_array().unwrap();
    let owns = |entry: &&Value| path.iter().try_fold(&entry["fieldsV1"], |node, key| node.get(*key)).is_some();
    entries.iter().filter(owns).map(|entry| entry["manager"].as_str().unwrap().to_string()).collect()
}

/// Plays the autoscaler's controller: 10 replicas through the scale subresource, under the
/// autoscaler's own manager.
fn autoscale(namespace: &TestNamespace) {
    namespace.set_web_replicas_as("horizontal-pod-autoscaler", 10, true);
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn an_autoscaled_deployment_keeps_its_replicas() {
    let namespace = TestNamespace::new("ignore-hpa");
    assert!(apply(&namespace, &["apply"], DEPLOYMENT).status.success());
    namespace.apply(HPA);
    autoscale(&namespace);
    for mode in [&["apply"][..], &["apply"], &["apply", "--server-side"], &["apply", "--server-side"]] {
        let output = apply(&namespace, mode, DEPLOYMENT);
        assert!(output.status.success(), "{mode:?}: {}", text(&output.stderr));
        assert_eq!(
            text(&output.stderr),
            "Warning: deployment.apps/web: spec.replicas is left as it is live: HorizontalPodAutoscaler web \
             scales it (--ignore-hpa=false sets it)\n",
            "{mode:?}"
        );
        let object = live(&namespace, "deployment/web");
        assert_eq!(object["spec"]["replicas"], 10, "{mode:?}");
        let managers = owners(&object, &["f:spec", "f:replicas"]);
        assert!(!managers.iter().any(|manager| manager == "kubectl"), "{mode:?}: {managers:?}");
    }
    // The last-applied annotation still records the manifest's replicas for kubectl.
    let object = live(&namespace, "deployment/web");
    let recorded = object["metadata"]["annotations"]["kubectl.kubernetes.io/last-applied-configuration"].as_str();
    assert!(recorded.unwrap().contains("\"replicas\":3"), "{recorded:?}");
    let forced = apply(&namespace, &["apply", "--server-side", "--force-conflicts", "--ignore-hpa=false"], DEPLOYMENT);
    assert!(forced.status.success(), "{}", text(&forced.stderr));
    assert_eq!(live(&namespace, "deployment/web")["spec"]["replicas"], 3, "--ignore-hpa=false applies them");
}

/// Applied server-side from the start, then scaled through `/scale` by another manager: a 1.20
/// server leaves `spec.replicas` with the applier, 1.22 and later give it to the scaler; on both,
/// the applies after it, of either kind, keep the 10 replicas.
#[test]
fn an_autoscaled_deployment_applied_server_side_from_the_start_keeps_its_replicas() {
    let namespace = TestNamespace::new("ignore-hpa-ssa");
    let created = apply(&namespace, &["apply", "--server-side"], DEPLOYMENT);
    assert!(created.status.success(), "{}", text(&created.stderr));
    namespace.apply(HPA);
    autoscale(&namespace);
    for mode in [&["apply", "--server-side"][..], &["apply", "--server-side"], &["apply"], &["apply"]] {
        let output = apply(&namespace, mode, DEPLOYMENT);
        assert!(output.status.success(), "{mode:?}: {}", text(&output.stderr));
        assert_eq!(live(&namespace, "deployment/web")["spec"]["replicas"], 10, "{mode:?}");
    }
}

#[test]
fn an_ignored_field_is_neither_applied_nor_shown() {
    let namespace = TestNamespace::new("ignore-field");
    let configmap = |token: &str, level: &str| {
        format!(
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: settings}}\ndata: {{token: \"{token}\", level: \"{level}\"}}\n"
        )
    };
    assert!(apply(&namespace, &["apply"], &configmap("a", "info")).status.success());
    namespace.kubectl_ok(&[
        "patch",
        "configmap",
        "settings",
        "-n",
        &namespace.name,
        "-p",
        r#"{"data":{"token":"rotated"}}"#,
    ]);
    let rule = ["--ignore-field", "ConfigMap/settings:/data/token"];
    let diff = apply(&namespace, &["diff", rule[0], rule[1]], &configmap("a", "info"));
    assert_eq!(diff.status.code(), Some(0), "nothing else differs: {}", text(&diff.stdout));
    let output = apply(&namespace, &["apply", rule[0], rule[1]], &configmap("a", "debug"));
    assert!(output.status.success(), "{}", text(&output.stderr));
    let data = &live(&namespace, "configmap/settings")["data"];
    assert_eq!((data["token"].as_str(), data["level"].as_str()), (Some("rotated"), Some("debug")));
    let without = apply(&namespace, &["apply"], &configmap("a", "debug"));
    assert!(without.status.success());
    assert_eq!(live(&namespace, "configmap/settings")["data"]["token"], "a", "without the rule it is applied");
}

#[test]
fn an_argo_cd_rules_file_leaves_what_a_manager_owns() {
    let namespace = TestNamespace::new("ignore-rules");
    let configmap =
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: app, annotations: {note: mine}}\ndata: {a: \"1\"}\n";
    assert!(apply(&namespace, &["apply", "--server-side"], configmap).status.success());
    namespace.kubectl_ok(&[
        "annotate",
        "configmap",
        "app",
        "-n",
        &namespace.name,
        "--overwrite",
        "--field-manager=injector",
        "note=injected",
    ]);
    let dir = tempfile::tempdir().unwrap();
    let rules = dir.path().join("rules.yaml");
    std::fs::write(&rules, "ignoreDifferences:\n- kind: ConfigMap\n  managedFieldsManagers: [injector]\n").unwrap();
    let changed = configmap.replace("\"1\"", "\"2\"");
    let output = apply(&namespace, &["apply", "--server-side", "--ignore-rules", rules.to_str().unwrap()], &changed);
    assert!(output.status.success(), "{}", text(&output.stderr));
    let object = live(&namespace, "configmap/app");
    assert_eq!(
        (object["metadata"]["annotations"]["note"].as_str(), object["data"]["a"].as_str()),
        (Some("injected"), Some("2"))
    );
    assert_eq!(owners(&object, &["f:metadata", "f:annotations", "f:note"]), ["injector"]);
    std::fs::write(&rules, "- kind: ConfigMap\n  jqPathExpressions: ['.data']\n").unwrap();
    let jq = apply(&namespace, &["apply", "--ignore-rules", rules.to_str().unwrap()], &changed);
    assert_eq!(jq.status.code(), Some(1));
    assert!(text(&jq.stderr).contains("jqPathExpressions are not supported"), "{}", text(&jq.stderr));
}
