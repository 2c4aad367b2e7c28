//! Switching between client-side and server-side apply, with kubectl as the reference: the same
//! sequence runs with kubectl in one namespace and with kubeupd in its twin, and the objects and
//! their field ownership must come out the same after every step.
use crate::support;

use std::process::Output;

use serde_json::Value;
use support::{TestNamespace, Twins, parse_json, twin_view};

const CREATED: &str = r#"
apiVersion: v1
kind: ConfigMap
metadata: {name: settings, labels: {a: "1", b: "2"}}
data: {x: "1", k: "2"}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, labels: {app: web}}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: app
        image: nginx:1.25
        env: [{name: A, value: "1"}, {name: B, value: "2"}, {name: C, value: "3"}]
"#;

/// The configuration changed, still applied client-side.
fn changed() -> String {
    CREATED.replace("k: \"2\"", "k: \"3\"").replace("nginx:1.25", "nginx:1.27")
}

/// Another configuration, applied server-side: a label, a data key, an env entry and the
/// replicas are gone, a data key is new; what stays keeps its value (no conflicts).
fn server_side() -> String {
    changed()
        .replace(r#"labels: {a: "1", b: "2"}"#, r#"labels: {a: "1"}"#)
        .replace(r#"data: {x: "1", k: "3"}"#, r#"data: {x: "1", z: "9"}"#)
        .replace(r#", {name: B, value: "2"}"#, "")
        .replace("  replicas: 2\n", "")
}

/// Client-side again, from the server-side configuration: a label, a data key and an env entry
/// are new, and `z` is gone.
fn client_side_again() -> String {
    server_side()
        .replace(r#"labels: {a: "1"}"#, r#"labels: {a: "1", c: "5"}"#)
        .replace(r#"data: {x: "1", z: "9"}"#, r#"data: {x: "1", w: "4"}"#)
        .replace(r#"{name: C, value: "3"}]"#, r#"{name: C, value: "3"}, {name: D, value: "4"}]"#)
}

/// The objects the configurations make, by name: the namespace holds others (the controllers'
/// `kube-root-ca.crt`).
const OBJECTS: [&str; 2] = ["configmap/settings", "deployment/web"];

/// `kubectl get` of [`OBJECTS`] in `namespace` as JSON, with `extra` arguments.
fn get_objects(namespace: &TestNamespace, extra: &[&str]) -> Value {
    let args = [&["get", "-n", &namespace.name, "-o", "json"][..], &OBJECTS[..], extra].concat();
    parse_json(namespace.kubectl_ok(&args).as_bytes())
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// `apply ARGS -f -` of `yaml` with kubectl in theirs and kubeupd in ours: both succeed and say
/// the same.
fn apply_both(twins: &Twins, yaml: &str, args: &[&str]) {
    let ours = twins
        .ours
        .kubeupd()
        .args(["apply", "-n", &twins.ours.name, "-f", "-"])
        .args(args)
        .write_stdin(yaml)
        .output()
        .unwrap();
    let theirs = support::with_stdin(
        twins.theirs.kubectl().args(["apply", "-n", &twins.theirs.name, "-f", "-"]).args(args),
        yaml,
    );
    assert!(theirs.status.success(), "kubectl apply {args:?}: {}", stderr(&theirs));
    assert!(ours.status.success(), "kubeupd apply {args:?}: {}", stderr(&ours));
    assert_eq!(stdout(&ours), stdout(&theirs), "apply {args:?}");
}

/// kubeupd's `apply` of `yaml` with `args` in `ns`, which must succeed; returns its stderr.
fn apply_ours(ns: &TestNamespace, yaml: &str, args: &[&str]) -> String {
    let output = ns.kubeupd().args(["apply", "-n", &ns.name, "-f", "-"]).args(args).write_stdin(yaml).output().unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    stderr(&output)
}

/// The ConfigMap `settings` of `ns`, its field ownership shown.
fn settings_with_owners(ns: &TestNamespace) -> Value {
    parse_json(
        ns.kubectl_ok(&["get", "cm", "settings", "-n", &ns.name, "-o", "json", "--show-managed-fields"]).as_bytes(),
    )
}

/// Each manager of `object`'s fields with its operation, sorted.
fn owners(object: &Value) -> Vec<(&str, &str)> {
    let mut owners: Vec<(&str, &str)> = (object["metadata"]["managedFields"].as_array().unwrap().iter())
        .map(|entry| (entry["manager"].as_str().unwrap(), entry["operation"].as_str().unwrap()))
        .collect();
    owners.sort();
    owners
}

/// The objects of both twins, which must be the same, `metadata.generation` and field ownership
/// included; returns them.
fn assert_same_objects(twins: &Twins, context: &str) -> Value {
    let view = |namespace: &TestNamespace| {
        twin_view(get_objects(namespace, &["--show-managed-fields"]), &namespace.name)["items"].take()
    };
    let ours = view(&twins.ours);
    assert_eq!(ours, view(&twins.theirs), "{context}: the objects differ (left: kubeupd, right: kubectl)");
    ours
}

#[test]
fn switching_to_server_side_apply_and_back_matches_kubectl() {
    let twins = Twins::new("ssa-switch");
    apply_both(&twins, CREATED, &[]);
    assert_same_objects(&twins, "created client-side");
    apply_both(&twins, &changed(), &[]);
    assert_same_objects(&twins, "changed client-side");
    apply_both(&twins, &server_side(), &["--server-side"]);
    let switched = assert_same_objects(&twins, "applied server-side");
    let settings = &switched[0];
    assert_eq!(settings["data"], serde_json::json!({"x": "1", "z": "9"}), "k is gone");
    assert_eq!(settings["metadata"]["labels"], serde_json::json!({"a": "1"}), "b is gone");
    let managers: Vec<&str> = settings["metadata"]["managedFields"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|e| e["manager"].as_str())
        .collect();
    assert!(!managers.contains(&"kubectl-client-side-apply"), "{managers:?}");
    apply_both(&twins, &server_side(), &["--server-side"]);
    assert_same_objects(&twins, "applied server-side again");
    apply_both(&twins, &client_side_again(), &[]);
    let back = assert_same_objects(&twins, "back to client-side");
    assert_eq!(back[0]["data"], serde_json::json!({"x": "1", "w": "4"}), "z, applied server-side, is gone");
}

#[test]
fn a_server_side_apply_that_changes_client_side_values_matches_kubectl() {
    let twins = Twins::new("ssa-values");
    apply_both(&twins, CREATED, &[]);
    // Values client-side apply set change: the server forgives those conflicts to the manager
    // `kubectl`, which is kubeupd's default too.
    let changed = CREATED.replace("replicas: 2", "replicas: 4").replace(r#"x: "1""#, r#"x: "7""#);
    let dry_run = twins
        .ours
        .kubeupd()
        .args(["apply", "--server-side", "--dry-run=server", "-n", &twins.ours.name, "-f", "-"])
        .write_stdin(changed.clone())
        .output()
        .unwrap();
    assert!(dry_run.status.success(), "{}", stderr(&dry_run));
    apply_both(&twins, &changed, &["--server-side"]);
    let switched = assert_same_objects(&twins, "values changed server-side");
    assert_eq!(switched[1]["spec"]["replicas"], 4);
    apply_both(&twins, CREATED, &[]);
    assert_same_objects(&twins, "back to client-side");
}

#[test]
fn server_dry_runs_and_diff_show_the_migrated_result() {
    let twins = Twins::new("ssa-dry");
    apply_both(&twins, CREATED, &[]);
    apply_both(&twins, &changed(), &[]);
    let diff = twins
        .ours
        .kubeupd()
        .args(["diff", "--server-side", "-n", &twins.ours.name, "-f", "-"])
        .write_stdin(server_side())
        .output()
        .unwrap();
    assert_eq!(diff.status.code(), Some(1), "{}", stderr(&diff));
    let shown = stdout(&diff);
    for removed in ["-    b: \"2\"", "-  k: \"3\"", "-        - name: B"] {
        assert!(shown.contains(removed), "{removed:?} not shown as removed:\n{shown}");
    }
    let dry = twins
        .ours
        .kubeupd()
        .args(["apply", "--server-side", "--dry-run=server", "-o", "json", "-n", &twins.ours.name, "-f", "-"])
        .write_stdin(server_side())
        .output()
        .unwrap();
    assert!(dry.status.success(), "{}", stderr(&dry));
    // kubectl applies for real: the dry run must show what that made.
    support::with_stdin(
        twins.theirs.kubectl().args(["apply", "--server-side", "-n", &twins.theirs.name, "-f", "-"]),
        &server_side(),
    );
    let mut shown = twin_view(parse_json(&dry.stdout), &twins.ours.name);
    let mut made = twin_view(get_objects(&twins.theirs, &[]), &twins.theirs.name);
    for list in [&mut shown, &mut made] {
        for item in list["items"].as_array_mut().unwrap() {
            item["metadata"].as_object_mut().unwrap().remove("generation");
        }
    }
    assert_eq!(shown["items"], made["items"], "the dry run (left) shows what a real apply makes (right)");
    let unchanged = twins.ours.kubectl_ok(&["get", "cm", "settings", "-n", &twins.ours.name, "-o", "json"]);
    assert_eq!(parse_json(unchanged.as_bytes())["data"]["k"], "3", "the dry run changed nothing");
}

/// Under another field manager, server-side apply migrates client-side apply's fields as under
/// kubectl's default one, and the last-applied annotation goes with them: the server keeps it in
/// step for `kubectl` alone, and kubectl 1.37 drops it (test/cmd apply.sh: "after migrating to SSA
/// with a custom field manager, the last-applied-annotation is dropped"). Client-side apply then
/// starts again without it, as kubectl's does.
#[test]
fn another_field_manager_migrates_and_drops_the_annotation_as_kubectl_does() {
    let twins = Twins::new("ssa-manager");
    apply_both(&twins, CREATED, &[]);
    apply_both(&twins, &changed(), &[]);
    let args = ["apply", "--server-side", "--field-manager", "team", "--dry-run=server", "-o", "json", "-n"];
    let dry =
        twins.ours.kubeupd().args(args).arg(&twins.ours.name).args(["-f", "-"]).write_stdin(server_side()).output();
    let dry = dry.unwrap();
    assert!(dry.status.success(), "{}", stderr(&dry));
    apply_both(&twins, &server_side(), &["--server-side", "--field-manager", "team"]);
    // The dry run showed what kubectl's apply made, the annotation dropped.
    let mut shown = twin_view(parse_json(&dry.stdout), &twins.ours.name);
    let mut made = twin_view(get_objects(&twins.theirs, &[]), &twins.theirs.name);
    for list in [&mut shown, &mut made] {
        for item in list["items"].as_array_mut().unwrap() {
            item["metadata"].as_object_mut().unwrap().remove("generation");
        }
    }
    assert_eq!(shown["items"], made["items"], "the dry run (left) shows what a real apply makes (right)");
    let switched = assert_same_objects(&twins, "applied server-side under another manager");
    let settings = &switched[0];
    assert_eq!(settings["data"], serde_json::json!({"x": "1", "z": "9"}), "k is gone");
    assert_eq!(settings["metadata"]["labels"], serde_json::json!({"a": "1"}), "b is gone");
    let annotation = settings["metadata"]["annotations"].get("kubectl.kubernetes.io/last-applied-configuration");
    assert_eq!(annotation, None, "the annotation is dropped");
    assert_eq!(owners(settings), [("team", "Apply")]);
    apply_both(&twins, &server_side(), &["--server-side", "--field-manager", "team"]);
    assert_same_objects(&twins, "applied server-side under another manager again");
    apply_both(&twins, &client_side_again(), &[]);
    assert_same_objects(&twins, "back to client-side");
}

/// A server-side apply under another manager that changes values client-side apply set: the
/// server refuses it (conflicts with `kubectl-client-side-apply`), kubeupd moves that manager's
/// fields to the applying one and applies again. The conflicts are worked out from the object
/// read before the apply: it is read once.
#[test]
fn another_manager_takes_over_values_client_side_apply_set() {
    let ns = TestNamespace::new("ssa-take");
    let created = CREATED.split("---").next().unwrap();
    let apply = |yaml: &str, args: &[&str]| apply_ours(&ns, yaml, args);
    apply(created, &[]);
    let log = apply(&created.replace(r#"x: "1""#, r#"x: "7""#), &["--server-side", "--field-manager", "team", "-v=6"]);
    let reads = log.lines().filter(|line| line.contains("GET ") && line.contains("/configmaps/settings ")).count();
    assert_eq!(reads, 1, "the ConfigMap read once:\n{log}");
    let settings = settings_with_owners(&ns);
    assert_eq!(settings["data"], serde_json::json!({"x": "7", "k": "2"}));
    // The annotation moved to `team` with client-side apply's other fields, and its apply dropped it.
    assert_eq!(settings["metadata"]["annotations"].get("kubectl.kubernetes.io/last-applied-configuration"), None);
    assert_eq!(owners(&settings), [("team", "Apply")]);
}

/// kubectl and kubeupd take turns at server-side apply on one object (kubectl alone on its
/// twin): no conflict between them, and the same objects and field ownership, because both apply
/// under kubectl's default manager.
#[test]
fn kubectl_and_kubeupd_take_turns_at_server_side_apply() {
    let twins = Twins::new("ssa-turns");
    let steps = [
        CREATED.to_string(),
        CREATED.replace("replicas: 2", "replicas: 4").replace(r#"x: "1""#, r#"x: "7""#),
        CREATED.replace("replicas: 2", "replicas: 3").replace("nginx:1.25", "nginx:1.27"),
    ];
    for (step, yaml) in steps.iter().enumerate() {
        let theirs = support::with_stdin(
            twins.theirs.kubectl().args(["apply", "--server-side", "-n", &twins.theirs.name, "-f", "-"]),
            yaml,
        );
        let ours = if step == 1 {
            twins
                .ours
                .kubeupd()
                .args(["apply", "--server-side", "-n", &twins.ours.name, "-f", "-"])
                .write_stdin(yaml.clone())
                .output()
                .unwrap()
        } else {
            support::with_stdin(
                twins.ours.kubectl().args(["apply", "--server-side", "-n", &twins.ours.name, "-f", "-"]),
                yaml,
            )
        };
        assert!(theirs.status.success(), "kubectl, step {step}: {}", stderr(&theirs));
        assert!(ours.status.success(), "step {step} on the object the other tool applied: {}", stderr(&ours));
        assert_eq!(stdout(&ours), stdout(&theirs), "step {step}");
        let objects = assert_same_objects(&twins, &format!("step {step}"));
        let live = twins.ours.kubectl_ok(&[
            "get",
            "cm",
            "settings",
            "-n",
            &twins.ours.name,
            "-o",
            "json",
            "--show-managed-fields",
        ]);
        let managers: Vec<String> = parse_json(live.as_bytes())["metadata"]["managedFields"]
            .as_array()
            .unwrap()
            .iter()
            .map(|entry| format!("{}/{}", entry["manager"].as_str().unwrap(), entry["operation"].as_str().unwrap()))
            .collect();
        assert_eq!(managers, ["kubectl/Apply"], "step {step}: one owner, kubectl's manager");
        assert_eq!(objects[1]["spec"]["replicas"], [2, 4, 3][step]);
    }
}

/// A Route with hosts and `backends` (a map list keyed by name and port).
fn route(hosts: &str, backends: &[(&str, u16, u8)]) -> String {
    let items: Vec<String> = backends
        .iter()
        .map(|(name, port, weight)| format!("  - {{name: {name}, port: {port}, weight: {weight}}}\n"))
        .collect();
    format!(
        "apiVersion: listmap.kubeupd.test/v1\nkind: Route\nmetadata: {{name: r}}\nspec:\n  hosts: [{hosts}]\n  backends:\n{}",
        items.concat()
    )
}

/// A custom resource with keyed lists (a map list with two keys, a set), whose keys the server's
/// OpenAPI v3 gives: client-side, server-side and client-side again, by both tools, the objects and
/// their field ownership the same after each step; two items with the same keys are refused before
/// anything is written.
#[test]
fn custom_resources_with_keyed_lists_switch_apply_modes_like_kubectl() {
    let twins = Twins::new("ssa-keyed");
    support::ensure_cluster_fixture(&twins.ours, "crd/routes.yaml");
    let steps = [
        (route("a.example, b.example", &[("web", 80, 1), ("web", 8080, 2), ("api", 80, 3)]), &[][..]),
        (route("b.example, c.example", &[("web", 8080, 5), ("api", 80, 3), ("api", 81, 1)]), &["--server-side"]),
        (route("c.example", &[("api", 80, 4), ("web", 80, 1)]), &[]),
    ];
    for (yaml, args) in &steps {
        apply_both(&twins, yaml, args);
        twins.assert_same("routes", &format!("applied {args:?}"));
    }
    let before = twins.ours.kubectl_ok(&["get", "route", "r", "-n", &twins.ours.name, "-o", "json"]);
    let duplicate = route("c.example", &[("api", 80, 4), ("api", 80, 5)]);
    for args in [&[][..], &["--server-side"]] {
        let output = twins
            .ours
            .kubeupd()
            .args(["apply", "-n", &twins.ours.name, "-f", "-"])
            .args(args)
            .write_stdin(duplicate.clone())
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(1), "{args:?}: {}", stderr(&output));
        assert!(stderr(&output).contains("backends"), "{args:?}: the list is named: {}", stderr(&output));
    }
    let after = twins.ours.kubectl_ok(&["get", "route", "r", "-n", &twins.ours.name, "-o", "json"]);
    assert_eq!(after, before, "nothing was written");
}
