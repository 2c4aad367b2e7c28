//! `kubeupd apply` against the real apiserver, with kubectl as the reference: the same sequence of
//! applies (and of changes by other writers) is run by kubectl in one namespace and by kubeupd in
//! another, and the objects must come out the same after every step.
//!
//! Fixtures avoid the keys `y`, `n`, `yes`, `no`, `on` and `off`: kubectl reads YAML 1.1 and turns
//! them into booleans, kubeupd reads YAML 1.2 and keeps them as strings.
use crate::support;

use std::process::Output;

use serde_json::Value;
use support::{TestNamespace, Twins, ensure_cluster_fixture, parse_json, with_stdin};

/// One step of a scenario.
enum Step<'a> {
    /// The tool under test applies this YAML.
    Apply(&'a str),
    /// Another writer acts, the same in both namespaces (kubectl arguments, `-n` added).
    Other(&'a [&'a str]),
    /// Another writer applies YAML with kubectl (to test kubectl and kubeupd taking turns).
    KubectlApply(&'a str),
}

/// Runs `steps` with kubeupd in `twins.ours` and kubectl in `twins.theirs`, and checks after
/// each that the objects of `kinds` are the same in both.
fn run(twins: &Twins, steps: &[Step<'_>], kinds: &str) {
    for (number, step) in steps.iter().enumerate() {
        match step {
            Step::Apply(yaml) => {
                let theirs =
                    with_stdin(twins.theirs.kubectl().args(["apply", "-n", &twins.theirs.name, "-f", "-"]), yaml);
                let ours =
                    with_stdin_cmd(twins.ours.kubeupd().args(["apply", "-n", &twins.ours.name, "-f", "-"]), yaml);
                assert!(
                    theirs.status.success(),
                    "step {number}: kubectl apply failed: {}",
                    String::from_utf8_lossy(&theirs.stderr)
                );
                assert!(
                    ours.status.success(),
                    "step {number}: kubeupd apply failed: {}",
                    String::from_utf8_lossy(&ours.stderr)
                );
                assert_eq!(
                    String::from_utf8_lossy(&ours.stdout),
                    String::from_utf8_lossy(&theirs.stdout),
                    "step {number}: kubeupd reports differently from kubectl"
                );
            }
            Step::Other(args) => {
                for namespace in [&twins.theirs, &twins.ours] {
                    let mut args = args.to_vec();
                    args.extend(["-n", &namespace.name]);
                    namespace.kubectl_ok(&args);
                }
            }
            Step::KubectlApply(yaml) => {
                for namespace in [&twins.theirs, &twins.ours] {
                    let output =
                        with_stdin(namespace.kubectl().args(["apply", "-n", &namespace.name, "-f", "-"]), yaml);
                    assert!(output.status.success(), "step {number}: {}", String::from_utf8_lossy(&output.stderr));
                }
            }
        }
        twins.assert_same(kinds, &format!("step {number}"));
    }
}

fn with_stdin_cmd(command: &mut assert_cmd::Command, input: &str) -> Output {
    command.write_stdin(input).output().expect("kubeupd runs")
}

const DEPLOYMENT_V1: &str = r#"
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels: {app: web, a: "1", b: "2"}
  annotations: {x: "1"}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: app
        image: nginx:1.25
        ports: [{containerPort: 80}, {containerPort: 443}]
        env: [{name: A, value: "1"}, {name: B, value: "2"}, {name: C, value: "3"}]
      - name: sidecar
        image: busybox:1.36
"#;

#[test]
fn deployment_lifecycle_matches_kubectl() {
    let changed_image_and_replicas =
        DEPLOYMENT_V1.replace("nginx:1.25", "nginx:1.27").replace("replicas: 2", "replicas: 3");
    let without_env_b = changed_image_and_replicas.replace(r#", {name: B, value: "2"}"#, "");
    let without_sidecar = without_env_b.replace("      - name: sidecar\n        image: busybox:1.36\n", "");
    let reordered = without_sidecar
        .replace(
            r#"[{name: A, value: "1"}, {name: C, value: "3"}]"#,
            r#"[{name: C, value: "3"}, {name: A, value: "1"}]"#,
        )
        .replace("[{containerPort: 80}, {containerPort: 443}]", "[{containerPort: 443}, {containerPort: 80}]");
    let relabeled = reordered
        .replace(r#"{app: web, a: "1", b: "2"}"#, r#"{app: web, a: "1", c: "3"}"#)
        .replace(r#"{x: "1"}"#, r#"{z: "2"}"#);
    let without_replicas = relabeled.replace("  replicas: 3\n", "");
    let later = without_replicas.replace("nginx:1.27", "nginx:1.28");
    run(
        &Twins::new("apply-deploy"),
        &[
            Step::Apply(DEPLOYMENT_V1),
            Step::Apply(DEPLOYMENT_V1),
            Step::Apply(&changed_image_and_replicas),
            Step::Apply(&without_env_b),
            Step::Apply(&without_sidecar),
            Step::Apply(&reordered),
            Step::Apply(&relabeled),
            Step::Apply(&without_replicas),
            // Another writer scales; the configuration no longer owns replicas, so the change stays.
            Step::Other(&["scale", "deployment/web", "--replicas=7"]),
            Step::Apply(&later),
            // kubectl and kubeupd take turns on the same object.
            Step::KubectlApply(&relabeled),
            Step::Apply(&later),
        ],
        "deployments",
    );
}

#[test]
fn custom_resources_use_json_merge_patches_like_kubectl() {
    let twins = Twins::new("apply-cr");
    ensure_cluster_fixture(&twins.theirs, "apply/widgets-crd.yaml");
    let v1 = "apiVersion: apply.kubeupd.test/v1\nkind: Widget\nmetadata: {name: w}\nspec:\n  size: 1\n  items: [{name: a, count: 1}, {name: b, count: 2}]\n  nested: {first: [1, 2], keep: true}\n";
    let v2 = "apiVersion: apply.kubeupd.test/v1\nkind: Widget\nmetadata: {name: w}\nspec:\n  size: 2\n  items: [{name: b, count: 20}, {name: c, count: 3}]\n  nested: {second: {deep: [x]}, keep: true}\n";
    let v3 = v2.replace("size: 2", "size: 3");
    run(
        &twins,
        &[
            Step::Apply(v1),
            Step::Apply(v2),
            Step::Other(&["patch", "widget/w", "--type", "merge", "-p", r#"{"spec":{"extra":"from another writer"}}"#]),
            Step::Apply(&v3),
        ],
        "widgets.apply.kubeupd.test",
    );
}

#[test]
fn applies_after_kubectl_create_save_config_and_after_plain_create() {
    let configmap = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: saved}\ndata: {a: \"1\", b: \"2\"}\n";
    let twins = Twins::new("apply-create");
    for namespace in [&twins.theirs, &twins.ours] {
        let output = with_stdin(
            namespace.kubectl().args(["create", "--save-config", "-n", &namespace.name, "-f", "-"]),
            configmap,
        );
        assert!(output.status.success());
        namespace.kubectl_ok(&["create", "configmap", "plain", "--from-literal=a=1", "-n", &namespace.name]);
    }
    let changed = configmap.replace("b: \"2\"", "c: \"3\"");
    let plain = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: plain}\ndata: {a: \"10\"}\n";
    run(&twins, &[Step::Apply(&changed), Step::Apply(plain)], "configmaps");
    // The object without the annotation gets kubectl's warning.
    let output =
        twins.ours.kubeupd().args(["apply", "-n", &twins.ours.name, "-f", "-"]).write_stdin(plain).output().unwrap();
    assert!(output.status.success());
    let twin = TestNamespace::new("apply-warn");
    twin.kubectl_ok(&["create", "configmap", "plain", "--from-literal=a=1", "-n", &twin.name]);
    let output = twin.kubeupd().args(["apply", "-n", &twin.name, "-f", "-"]).write_stdin(plain).output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("Warning: resource configmaps/plain is missing the kubectl.kubernetes.io/last-applied-configuration annotation"), "{stderr}");
}

/// `apply --dry-run=client` as kubectl 1.36 and later: the patch applied locally, `unchanged (dry
/// run)` when there is nothing to change, the object as the apply would leave it with `-o`, and
/// the warning for an object without the last-applied annotation.
#[test]
fn client_dry_runs_say_and_show_what_kubectl_does() {
    let configmap = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: dry}\ndata: {a: \"1\", b: \"2\"}\n";
    let plain = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: plain}\ndata: {a: \"10\"}\n";
    let twins = Twins::new("apply-dry-client");
    for namespace in [&twins.theirs, &twins.ours] {
        let output = with_stdin(namespace.kubectl().args(["apply", "-n", &namespace.name, "-f", "-"]), configmap);
        assert!(output.status.success());
        namespace.kubectl_ok(&["create", "configmap", "plain", "--from-literal=a=1", "-n", &namespace.name]);
    }
    let changed = configmap.replace("b: \"2\"", "c: \"3\"");
    let steps: &[(&str, &[&str])] =
        &[(configmap, &[]), (&changed, &[]), (&changed, &["-o", "jsonpath={.data}"]), (plain, &[])];
    for (yaml, args) in steps {
        let args = [&["apply", "--dry-run=client", "-f", "-"][..], args].concat();
        let theirs = with_stdin(twins.theirs.kubectl().args(&args).args(["-n", &twins.theirs.name]), yaml);
        let ours = with_stdin_cmd(twins.ours.kubeupd().args(&args).args(["-n", &twins.ours.name]), yaml);
        twins.assert_same_output(&ours, &theirs, &format!("{args:?} of {yaml}"));
    }
    twins.assert_same("configmaps", "after the dry runs");
}

#[test]
fn server_side_apply_reports_conflicts_with_their_managers_and_forces_them() {
    let namespace = TestNamespace::new("apply-ssa");
    let theirs = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: owned}\ndata: {a: \"1\"}\n";
    let output = with_stdin(
        namespace.kubectl().args([
            "apply",
            "--server-side",
            "--field-manager",
            "other-team",
            "-n",
            &namespace.name,
            "-f",
            "-",
        ]),
        theirs,
    );
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let ours = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: owned}\ndata: {a: \"2\"}\n";
    let output = namespace
        .kubeupd()
        .args(["apply", "--server-side", "-n", &namespace.name, "-f", "-"])
        .write_stdin(ours)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    let row = stderr.lines().find(|line| line.trim_start().starts_with(".data.a ")).unwrap_or_default();
    assert_eq!(row.split_whitespace().collect::<Vec<_>>(), [".data.a", "other-team", "1", "2"], "{stderr}");
    assert!(stderr.contains("--force-conflicts"), "{stderr}");
    assert_eq!(namespace.kubectl_ok(&["get", "cm", "owned", "-n", &namespace.name, "-o", "jsonpath={.data.a}"]), "1");

    let output = namespace
        .kubeupd()
        .args(["apply", "--server-side", "--force-conflicts", "-n", &namespace.name, "-f", "-"])
        .write_stdin(ours)
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    assert_eq!(String::from_utf8_lossy(&output.stdout), "configmap/owned serverside-applied\n");
    let object = parse_json(
        namespace
            .kubectl_ok(&["get", "cm", "owned", "-n", &namespace.name, "-o", "json", "--show-managed-fields"])
            .as_bytes(),
    );
    assert_eq!(object["data"]["a"], "2");
    let managers: Vec<&str> = object["metadata"]["managedFields"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|entry| entry["manager"].as_str())
        .collect();
    assert!(managers.contains(&"kubectl"), "kubectl's default manager: {managers:?}");
}

#[test]
fn three_hundred_objects_are_created_then_configured_then_unchanged() {
    let namespace = TestNamespace::new("apply-many");
    let manifest = |value: &str| -> String {
        (0..300)
            .map(|i| {
                if i % 2 == 0 {
                    format!("apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: cm-{i}}}\ndata: {{v: \"{value}\"}}\n")
                } else {
                    format!(
                        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: d-{i}}}\nspec:\n  selector: {{matchLabels: {{app: d-{i}}}}}\n  \
                         template:\n    metadata: {{labels: {{app: d-{i}}}}}\n    spec:\n      containers: [{{name: c, image: \"img:{value}\"}}]\n"
                    )
                }
            })
            .collect::<Vec<_>>()
            .join("---\n")
    };
    for (input, word) in [(manifest("1"), "created"), (manifest("2"), "configured"), (manifest("2"), "unchanged")] {
        let output =
            namespace.kubeupd().args(["apply", "-n", &namespace.name, "-f", "-"]).write_stdin(input).output().unwrap();
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
        let stdout = String::from_utf8_lossy(&output.stdout);
        let lines: Vec<&str> = stdout.lines().collect();
        assert_eq!(lines.len(), 300);
        assert!(lines.iter().all(|line| line.ends_with(&format!(" {word}"))), "{stdout}");
        // Output stays in input order.
        assert_eq!(lines[0], format!("configmap/cm-0 {word}"));
        assert_eq!(lines[299], format!("deployment.apps/d-299 {word}"));
        assert!(String::from_utf8_lossy(&output.stderr).contains(&format!("300 objects: 300 {word}")));
    }
    let count = namespace.kubectl_ok(&["get", "configmaps,deployments", "-n", &namespace.name, "-o", "name"]);
    assert_eq!(count.lines().filter(|line| line.contains("cm-") || line.contains("d-")).count(), 300);
}

#[test]
fn bad_input_applies_nothing() {
    let namespace = TestNamespace::new("apply-bad");
    let good = |name: &str| format!("apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: {name}}}\ndata: {{a: b}}\n");
    let malformed = format!("{}---\n{}---\nkind: [unclosed\n", good("one"), good("two"));
    let output =
        namespace.kubeupd().args(["apply", "-n", &namespace.name, "-f", "-"]).write_stdin(malformed).output().unwrap();
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("STDIN (document 3): invalid YAML"), "{stderr}");
    let unknown = format!("{}---\napiVersion: v1\nkind: Frobnicator\nmetadata: {{name: x}}\n", good("three"));
    let output =
        namespace.kubeupd().args(["apply", "-n", &namespace.name, "-f", "-"]).write_stdin(unknown).output().unwrap();
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("STDIN (document 2)") && stderr.contains("Frobnicator"), "{stderr}");
    let listed = namespace.kubectl_ok(&["get", "configmaps", "-n", &namespace.name, "-o", "name"]);
    assert!(!listed.contains("configmap/one") && !listed.contains("configmap/three"), "{listed}");
}

/// A ConfigMap whose `blob` is `size` bytes.
fn big_configmap(blob: &str) -> String {
    format!("apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: big}}\ndata: {{blob: \"{blob}\", small: \"1\"}}\n")
}

#[test]
fn an_object_too_large_for_its_last_applied_annotation_is_applied_server_side() {
    let namespace = TestNamespace::new("apply-big");
    let run = |args: &[&str], document: &str| {
        namespace
            .kubeupd()
            .args(args)
            .args(["-n", &namespace.name, "-f", "-"])
            .write_stdin(document.to_string())
            .output()
            .unwrap()
    };
    let document = big_configmap(&"x".repeat(300 * 1024));
    // kubectl refuses it: the annotation would pass the server's limit.
    let theirs = with_stdin(namespace.kubectl().args(["apply", "-n", &namespace.name, "-f", "-"]), &document);
    assert_eq!(theirs.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&theirs.stderr).contains("metadata.annotations: Too long"));
    // kubeupd applies that object server-side, and says so.
    let output = run(&["apply"], &document);
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(output.status.success(), "{stderr}");
    assert_eq!(String::from_utf8_lossy(&output.stdout), "configmap/big created\n");
    assert!(
        stderr.starts_with("Warning: configmap/big: the 307")
            && stderr.contains("applied server-side (field manager \"kubectl\")"),
        "{stderr}"
    );
    let live = parse_json(
        namespace
            .kubectl_ok(&["get", "configmap", "big", "-n", &namespace.name, "-o", "json", "--show-managed-fields"])
            .as_bytes(),
    );
    assert!(live["metadata"]["annotations"]["kubectl.kubernetes.io/last-applied-configuration"].is_null());
    let managers: Vec<&str> = live["metadata"]["managedFields"]
        .as_array()
        .unwrap()
        .iter()
        .map(|entry| entry["manager"].as_str().unwrap())
        .collect();
    assert_eq!(managers, ["kubectl"]);
    // Then: unchanged, and nothing to show.
    let again = run(&["apply"], &document);
    assert!(again.status.success(), "{}", String::from_utf8_lossy(&again.stderr));
    assert_eq!(String::from_utf8_lossy(&again.stdout), "configmap/big unchanged\n");
    let diff = run(&["diff"], &document);
    assert_eq!(diff.status.code(), Some(0), "{}", String::from_utf8_lossy(&diff.stdout));
    assert!(diff.stdout.is_empty());
    // A field dropped from the configuration goes, as server-side apply removes what its manager
    // no longer applies: diff shows it and apply does it.
    let smaller = big_configmap(&"x".repeat(300 * 1024)).replace(", small: \"1\"", "");
    let diff = run(&["diff"], &smaller);
    assert_eq!(diff.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&diff.stdout).contains("-  small: \"1\""),
        "{}",
        String::from_utf8_lossy(&diff.stdout)
    );
    let dropped = run(&["apply"], &smaller);
    assert_eq!(String::from_utf8_lossy(&dropped.stdout), "configmap/big configured\n");
    let live = parse_json(
        namespace
            .kubectl_ok(&["get", "configmap", "big", "-n", &namespace.name, "-o", "json", "--show-managed-fields"])
            .as_bytes(),
    );
    assert!(live["data"]["small"].is_null(), "{}", live["data"]);
}

#[test]
fn an_object_that_grows_too_large_is_taken_over_from_client_side_apply() {
    let namespace = TestNamespace::new("apply-grown");
    let run = |document: &str| {
        namespace
            .kubeupd()
            .args(["apply", "-n", &namespace.name, "-f", "-"])
            .write_stdin(document.to_string())
            .output()
            .unwrap()
    };
    assert!(run(&big_configmap("small")).status.success());
    let grown = run(&big_configmap(&"y".repeat(300 * 1024)));
    let stderr = String::from_utf8_lossy(&grown.stderr).into_owned();
    assert!(grown.status.success(), "{stderr}");
    assert_eq!(String::from_utf8_lossy(&grown.stdout), "configmap/big configured\n");
    assert!(!stderr.contains("failed to"), "{stderr}");
    let live = parse_json(
        namespace
            .kubectl_ok(&["get", "configmap", "big", "-n", &namespace.name, "-o", "json", "--show-managed-fields"])
            .as_bytes(),
    );
    let managers: Vec<(&str, &str)> = (live["metadata"]["managedFields"].as_array().unwrap().iter())
        .map(|entry| (entry["manager"].as_str().unwrap(), entry["operation"].as_str().unwrap()))
        .collect();
    assert!(!managers.iter().any(|(manager, _)| *manager == "kubectl-client-side-apply"), "{managers:?}");
    assert!(managers.contains(&("kubectl", "Apply")), "{managers:?}");
    assert!(live["metadata"]["annotations"]["kubectl.kubernetes.io/last-applied-configuration"].is_null());
    let again = run(&big_configmap(&"y".repeat(300 * 1024)));
    assert_eq!(String::from_utf8_lossy(&again.stdout), "configmap/big unchanged\n");
}

#[test]
fn diff_shows_what_apply_would_change_with_kubectls_exit_codes() {
    let namespace = TestNamespace::new("apply-diff");
    namespace.apply(DEPLOYMENT_V1);
    let file = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(file.path(), DEPLOYMENT_V1).unwrap();
    let path = file.path().to_str().unwrap();
    let same = namespace.kubeupd().args(["diff", "-n", &namespace.name, "-f", path]).output().unwrap();
    assert_eq!(same.status.code(), Some(0), "{}", String::from_utf8_lossy(&same.stderr));
    assert!(same.stdout.is_empty());
    std::fs::write(file.path(), DEPLOYMENT_V1.replace("replicas: 2", "replicas: 4")).unwrap();
    let changed = namespace.kubeupd().args(["diff", "-n", &namespace.name, "-f", path]).output().unwrap();
    assert_eq!(changed.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&changed.stdout);
    assert!(stdout.contains("-  replicas: 2\n+  replicas: 4\n"), "{stdout}");
    // Nothing was changed by looking.
    assert_eq!(
        namespace.kubectl_ok(&["get", "deploy", "web", "-n", &namespace.name, "-o", "jsonpath={.spec.replicas}"]),
        "2"
    );
    std::fs::write(file.path(), "apiVersion: v1\nkind: Nope\nmetadata: {name: x}\n").unwrap();
    let failed = namespace.kubeupd().args(["diff", "-n", &namespace.name, "-f", path]).output().unwrap();
    assert_eq!(failed.status.code(), Some(2));
}

#[test]
fn a_crd_and_its_resources_in_one_input_apply_in_order() {
    let namespace = TestNamespace::new("apply-crd");
    let group = format!("t{}.apply.kubeupd.test", namespace.name.replace('-', ""));
    let input = format!(
        "apiVersion: demo/v1\nkind: Sprocket\nmetadata: {{name: first}}\n---\n\
         apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {{name: sprockets.{group}}}\n\
         spec:\n  group: {group}\n  scope: Namespaced\n  names: {{kind: Sprocket, plural: sprockets, singular: sprocket, listKind: SprocketList}}\n  \
         versions: [{{name: v1, served: true, storage: true, schema: {{openAPIV3Schema: {{type: object, x-kubernetes-preserve-unknown-fields: true}}}}}}]\n"
    )
    .replace("apiVersion: demo/v1", &format!("apiVersion: {group}/v1"));
    let output =
        namespace.kubeupd().args(["apply", "-n", &namespace.name, "-f", "-"]).write_stdin(input).output().unwrap();
    let _ = namespace.kubectl().args(["delete", "crd", &format!("sprockets.{group}"), "--wait=false"]).output();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    assert_eq!(
        String::from_utf8_lossy(&output.stdout),
        format!(
            "sprocket.{group}/first created\ncustomresourcedefinition.apiextensions.k8s.io/sprockets.{group} created\n"
        )
    );
}

#[test]
fn force_recreates_an_object_whose_immutable_fields_changed() {
    let namespace = TestNamespace::new("apply-force");
    let apply = |yaml: &str, extra: &[&str]| {
        let mut command = namespace.kubeupd();
        command.args(["apply", "-n", &namespace.name, "-f", "-"]).args(extra);
        command.write_stdin(yaml.to_string()).output().unwrap()
    };
    assert!(apply(DEPLOYMENT_V1, &[]).status.success());
    let uid = namespace.kubectl_ok(&["get", "deploy", "web", "-n", &namespace.name, "-o", "jsonpath={.metadata.uid}"]);
    // The selector of a Deployment cannot change: refused before it is sent...
    let reselected = DEPLOYMENT_V1
        .replace("matchLabels: {app: web}", "matchLabels: {app: web, v: \"2\"}")
        .replace("labels: {app: web}}", "labels: {app: web, v: \"2\"}}");
    let refused = apply(&reselected, &[]);
    assert_eq!(refused.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&refused.stderr).contains("deployment.apps/web: spec.selector cannot change"),
        "{}",
        String::from_utf8_lossy(&refused.stderr)
    );
    // ...and --force deletes and creates the object instead.
    let forced = apply(&reselected, &["--force"]);
    assert!(forced.status.success(), "{}", String::from_utf8_lossy(&forced.stderr));
    let object =
        parse_json(namespace.kubectl_ok(&["get", "deploy", "web", "-n", &namespace.name, "-o", "json"]).as_bytes());
    assert_ne!(object["metadata"]["uid"], Value::String(uid));
    assert_eq!(object["spec"]["selector"]["matchLabels"]["v"], "2");
}

#[test]
fn dry_runs_send_nothing() {
    let namespace = TestNamespace::new("apply-dry");
    for mode in ["--dry-run=client", "--dry-run=server"] {
        let output = namespace
            .kubeupd()
            .args(["apply", mode, "-n", &namespace.name, "-f", "-"])
            .write_stdin(DEPLOYMENT_V1)
            .output()
            .unwrap();
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
        let suffix = if mode.ends_with("client") { "(dry run)" } else { "(server dry run)" };
        assert_eq!(String::from_utf8_lossy(&output.stdout), format!("deployment.apps/web created {suffix}\n"));
    }
    let listed = namespace.kubectl_ok(&["get", "deployments", "-n", &namespace.name, "-o", "name"]);
    assert!(listed.is_empty(), "{listed}");
}

#[test]
fn discovery_and_openapi_are_read_once_then_cached() {
    let namespace = TestNamespace::new("apply-cache");
    let run = |yaml: &str| namespace.kubeupd_apply_requests(yaml).join("\n");
    let first = run(DEPLOYMENT_V1);
    // Discovery starts at /apis (1.30 and later answer all of it there, aggregated); the schema
    // is OpenAPI v3's apps/v1 document, or v2's whole document on a server before 1.27.
    assert!(first.contains("/apis 200"), "discovery read from the server:\n{first}");
    assert!(first.contains("/openapi/v"), "the schema is read to check the fields (--validate):\n{first}");
    let second = run(&DEPLOYMENT_V1.replace("replicas: 2", "replicas: 3"));
    assert!(!second.contains("/openapi/"), "checking and patching use the cached schema:\n{second}");
    assert!(!second.contains("/apis 200"), "discovery came from the cache:\n{second}");
    let third = namespace.kubeupd_apply_requests(&DEPLOYMENT_V1.replace("replicas: 2", "replicas: 4"));
    assert_eq!(third.len(), 2, "only the GET and the PATCH of the object:\n{third:#?}");
    // Replicas changed by someone else since the last apply: is an autoscaler theirs? One list.
    namespace.kubectl_ok(&["scale", "deploy", "web", "-n", &namespace.name, "--replicas=5"]);
    let fourth = namespace.kubeupd_apply_requests(&DEPLOYMENT_V1.replace("replicas: 2", "replicas: 4"));
    assert_eq!(fourth.len(), 3, "the GET, the autoscalers and the PATCH of the object:\n{fourth:#?}");
    assert!(fourth[1].contains("/horizontalpodautoscalers 200"), "{fourth:#?}");
}

#[test]
fn many_objects_of_a_type_are_listed_once_instead_of_read_one_by_one() {
    let namespace = TestNamespace::new("apply-list");
    let input = (0..10)
        .map(|i| format!("apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: cm-{i}}}\ndata: {{v: \"1\"}}\n"))
        .collect::<Vec<_>>()
        .join("---\n");
    for expected_writes in [10, 0] {
        let requests = namespace.kubeupd_apply_requests(&input);
        let reads = requests.iter().filter(|line| line.contains("DEBUG GET") && line.contains("/configmaps")).count();
        let writes = requests.iter().filter(|line| line.contains("DEBUG POST") || line.contains("DEBUG PATCH")).count();
        assert_eq!(reads, 1, "one list of the configmaps:\n{requests:#?}");
        assert_eq!(writes, expected_writes, "{requests:#?}");
    }
}

#[test]
fn view_and_set_last_applied_match_kubectl() {
    let twins = Twins::new("apply-last");
    let config = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: recorded, labels: {app: web}}\ndata: {html: \"<b>&</b>\", n2: \"2\"}\n";
    for namespace in [&twins.theirs, &twins.ours] {
        namespace.apply(config);
    }
    for format in ["yaml", "json"] {
        let args = ["apply", "view-last-applied", "configmap/recorded", "-n", &twins.theirs.name, "-o", format];
        let theirs = twins.theirs.kubectl().args(args).output().unwrap();
        let ours = twins.theirs.kubeupd().args(args).output().unwrap();
        assert!(ours.status.success(), "{}", String::from_utf8_lossy(&ours.stderr));
        assert_eq!(String::from_utf8_lossy(&ours.stdout), String::from_utf8_lossy(&theirs.stdout), "-o {format}");
    }
    // Record a new configuration without changing anything else.
    let dir = tempfile::tempdir().unwrap();
    let changed = config.replace("n2: \"2\"", "n2: \"3\"");
    for namespace in [&twins.theirs, &twins.ours] {
        let file = dir.path().join(format!("{}.yaml", namespace.name));
        std::fs::write(
            &file,
            changed.replace("name: recorded", &format!("name: recorded, namespace: {}", namespace.name)),
        )
        .unwrap();
        let file = file.to_str().unwrap();
        let output = if std::ptr::eq(namespace, &twins.theirs) {
            namespace.kubectl().args(["apply", "set-last-applied", "-f", file]).output().unwrap()
        } else {
            namespace.kubeupd().args(["apply", "set-last-applied", "-f", file]).output().unwrap()
        };
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
        assert_eq!(String::from_utf8_lossy(&output.stdout), "configmap/recorded configured\n");
    }
    twins.assert_same("configmaps", "after set-last-applied");
    let data = twins.ours.kubectl_ok(&["get", "cm", "recorded", "-n", &twins.ours.name, "-o", "jsonpath={.data.n2}"]);
    assert_eq!(data, "2", "only the annotation changed");
    // Objects without the annotation need --create-annotation.
    twins.ours.kubectl_ok(&["create", "configmap", "bare", "-n", &twins.ours.name]);
    let file = dir.path().join("bare.yaml");
    std::fs::write(&file, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: bare}\n").unwrap();
    let refused = twins
        .ours
        .kubeupd()
        .args(["apply", "set-last-applied", "-n", &twins.ours.name, "-f"])
        .arg(&file)
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("--create-annotation"));
    let created = twins
        .ours
        .kubeupd()
        .args(["apply", "set-last-applied", "--create-annotation", "-n", &twins.ours.name, "-f"])
        .arg(&file)
        .output()
        .unwrap();
    assert!(created.status.success(), "{}", String::from_utf8_lossy(&created.stderr));
}

#[test]
fn overwrite_false_refuses_to_overwrite_changes_made_by_others() {
    let namespace = TestNamespace::new("apply-overwrite");
    let apply = |yaml: &str, extra: &[&str]| {
        namespace
            .kubeupd()
            .args(["apply", "-n", &namespace.name, "-f", "-"])
            .args(extra)
            .write_stdin(yaml.to_string())
            .output()
            .unwrap()
    };
    assert!(apply(&configmap_with("a", "1"), &[]).status.success());
    // Another writer changes the field the configuration owns.
    namespace.kubectl_ok(&[
        "patch",
        "cm",
        "owned",
        "-n",
        &namespace.name,
        "--type",
        "merge",
        "-p",
        r#"{"data":{"a":"9"}}"#,
    ]);
    let refused = apply(&configmap_with("a", "2"), &["--overwrite=false"]);
    assert_eq!(refused.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(stderr.contains("conflicts with changes made from original to current"), "{stderr}");
    assert_eq!(namespace.kubectl_ok(&["get", "cm", "owned", "-n", &namespace.name, "-o", "jsonpath={.data.a}"]), "9");
    let shown = apply(&configmap_with("a", "2"), &["--show-patch"]);
    assert!(shown.status.success());
    let stdout = String::from_utf8_lossy(&shown.stdout);
    assert!(
        stdout.starts_with("# configmap/owned application/strategic-merge-patch+json: {\"data\":{\"a\":\"2\"}"),
        "{stdout}"
    );
    assert!(stdout.ends_with("configmap/owned configured\n"), "{stdout}");
    assert_eq!(namespace.kubectl_ok(&["get", "cm", "owned", "-n", &namespace.name, "-o", "jsonpath={.data.a}"]), "2");
}

fn configmap_with(key: &str, value: &str) -> String {
    format!("apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: owned}}\ndata: {{{key}: \"{value}\"}}\n")
}

#[test]
fn server_side_dry_runs_change_nothing() {
    let namespace = TestNamespace::new("apply-ssa-dry");
    let output = namespace
        .kubeupd()
        .args(["apply", "--server-side", "--dry-run=server", "-n", &namespace.name, "-f", "-"])
        .write_stdin(configmap_with("a", "1"))
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    assert_eq!(String::from_utf8_lossy(&output.stdout), "configmap/owned serverside-applied (server dry run)\n");
    let get = namespace.kubectl().args(["get", "configmap/owned", "-n", &namespace.name]).output().unwrap();
    let stderr = String::from_utf8_lossy(&get.stderr);
    assert!(stderr.contains("configmaps \"owned\" not found"), "the dry run created nothing: {stderr}");
}

#[test]
fn directories_recursion_several_files_json_and_lists_are_applied_in_order() {
    let namespace = TestNamespace::new("apply-inputs");
    let dir = tempfile::tempdir().unwrap();
    let cm = |name: &str| format!("apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: {name}}}\ndata: {{a: b}}\n");
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    std::fs::write(dir.path().join("a.yaml"), format!("{}---\n{}", cm("a1"), cm("a2"))).unwrap();
    std::fs::write(
        dir.path().join("sub/b.json"),
        r#"{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"b"},"data":{"a":"b"}}"#,
    )
    .unwrap();
    std::fs::write(dir.path().join("notes.txt"), "not a manifest").unwrap();
    let list = dir.path().join("list.yaml");
    std::fs::write(&list, "apiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: ConfigMap, metadata: {name: l1}}\n- {apiVersion: v1, kind: ConfigMap, metadata: {name: l2}}\n").unwrap();
    let inputs = dir.path().join("inputs");
    std::fs::create_dir(&inputs).unwrap();
    for name in ["a.yaml", "sub"] {
        std::fs::rename(dir.path().join(name), inputs.join(name)).unwrap();
    }
    let flat = namespace.kubeupd().args(["apply", "-n", &namespace.name, "-f"]).arg(&inputs).output().unwrap();
    assert!(flat.status.success(), "{}", String::from_utf8_lossy(&flat.stderr));
    assert_eq!(
        String::from_utf8_lossy(&flat.stdout),
        "configmap/a1 created\nconfigmap/a2 created\n",
        "without -R, sub/ is not read"
    );
    let output = namespace
        .kubeupd()
        .args(["apply", "-R", "-n", &namespace.name, "-f"])
        .arg(&inputs)
        .arg("-f")
        .arg(&list)
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    assert_eq!(
        String::from_utf8_lossy(&output.stdout),
        "configmap/a1 unchanged\nconfigmap/a2 unchanged\nconfigmap/b created\nconfigmap/l1 created\nconfigmap/l2 created\n"
    );
}

/// `output`'s exit code and stdout, with the namespace's name read as `NAMESPACE` and each
/// pattern of `masks` (a regex, and what replaces it) replaced: what differs between twins.
fn masked_stdout(output: &Output, namespace: &TestNamespace, masks: &[(&str, &str)]) -> (Option<i32>, String) {
    let mut text = String::from_utf8_lossy(&output.stdout).replace(&namespace.name, "NAMESPACE");
    for (pattern, with) in masks {
        text = regex::Regex::new(pattern).unwrap().replace_all(&text, *with).into_owned();
    }
    (output.status.code(), text)
}

/// `apply -o json|kyaml|yaml` of several objects prints kubectl's `List`, byte for byte: a Go
/// struct's keys in order in JSON and KYAML, sorted in YAML.
#[test]
fn apply_prints_several_objects_as_kubectls_list() {
    let twins = Twins::new("apply-list");
    let input = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: l1}\ndata: {b: \"1\", a: \"2\"}\n---\n\
                 apiVersion: v1\nkind: ConfigMap\nmetadata: {name: l2}\n";
    let masks = [(r#"("?(uid|resourceVersion|creationTimestamp)"?: )"?[^",\n]*"?"#, "${1}X")];
    for format in ["json", "kyaml", "yaml", "json"] {
        let theirs = with_stdin(
            twins.theirs.kubectl().args(["apply", "-n", &twins.theirs.name, "-f", "-", "-o", format]),
            input,
        );
        let ours = twins
            .ours
            .kubeupd()
            .args(["apply", "-n", &twins.ours.name, "-f", "-", "-o", format])
            .write_stdin(input)
            .output()
            .unwrap();
        assert_eq!(
            masked_stdout(&ours, &twins.ours, &masks),
            masked_stdout(&theirs, &twins.theirs, &masks),
            "-o {format}: kubeupd (left) differs from kubectl (right)"
        );
    }
    twins.assert_same("configmaps", "applied with -o");
}

/// `diff`'s own output is `diff -u -N` over kubectl's two folders: objects in the order of their
/// file names (not the input's), and headers naming the files in `$TMPDIR/LIVE-N` and
/// `$TMPDIR/MERGED-N` with their times. Only the random numbers, times and uids are masked.
#[test]
fn diff_prints_diffs_headers_in_the_order_of_kubectls_files() {
    let twins = Twins::new("diff-headers");
    for namespace in [&twins.ours, &twins.theirs] {
        namespace.kubectl_ok(&["create", "cm", "a", "-n", &namespace.name, "--from-literal=x=1"]);
    }
    let input = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata: {x: \"2\"}\n---\n\
                 apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec:\n  selector: {matchLabels: {a: b}}\n\
                 \x20 template:\n    metadata: {labels: {a: b}}\n    spec: {containers: [{name: c, image: nginx}]}\n---\n\
                 apiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\n";
    let tmp = tempfile::tempdir().unwrap();
    let theirs = with_stdin(
        twins.theirs.kubectl().args(["diff", "-n", &twins.theirs.name, "-f", "-"]).env("TMPDIR", tmp.path()),
        input,
    );
    let ours = twins
        .ours
        .kubeupd()
        .args(["diff", "-n", &twins.ours.name, "-f", "-"])
        .env("TMPDIR", tmp.path())
        .write_stdin(input)
        .output()
        .unwrap();
    let masks = [
        (r"/(LIVE|MERGED)-[0-9]+/", "/$1-N/"),
        (r"\t[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{9} \+0000\n", "\tTIME\n"),
        (r"(uid|creationTimestamp): .*", "$1: X"),
    ];
    let (code, text) = masked_stdout(&ours, &twins.ours, &masks);
    assert_eq!(
        (code, &text, String::from_utf8_lossy(&ours.stderr)),
        (
            theirs.status.code(),
            &masked_stdout(&theirs, &twins.theirs, &masks).1,
            String::from_utf8_lossy(&theirs.stderr)
        ),
        "kubeupd (left) differs from kubectl (right)"
    );
    assert_eq!(code, Some(1));
    let tmp = tmp.path().display();
    let headers: Vec<&str> = text.lines().filter(|line| line.starts_with("diff ")).collect();
    assert_eq!(
        headers,
        ["apps.v1.Deployment.NAMESPACE.d", "v1.ConfigMap.NAMESPACE.a", "v1.ConfigMap.NAMESPACE.b"]
            .map(|name| format!("diff -u -N {tmp}/LIVE-N/{name} {tmp}/MERGED-N/{name}")),
        "in the order of the file names, in $TMPDIR"
    );
}

/// `KUBECTL_EXTERNAL_DIFF`: the program kubectl runs, with the same two directories of the same
/// files (live objects, and what they would become), and its exit status as the result.
#[test]
fn diff_runs_the_external_program_as_kubectl_does() {
    let twins = Twins::new("diff-external");
    let existing = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: old}\ndata: {a: \"1\"}\n";
    let secret = "apiVersion: v1\nkind: Secret\nmetadata: {name: key}\nstringData: {k: hidden}\n";
    for namespace in [&twins.ours, &twins.theirs] {
        namespace.kubectl_ok(&["create", "cm", "old", "-n", &namespace.name, "--from-literal=a=1", "--save-config"]);
    }
    let input = format!(
        "{}---\napiVersion: v1\nkind: ConfigMap\nmetadata: {{name: new}}\n---\n{secret}",
        existing.replace("\"1\"", "\"2\"")
    );
    let dir = tempfile::tempdir().unwrap();
    let program = dir.path().join("show");
    // Prints its arguments (the directories as LIVE and MERGED), then every file, without what
    // differs between twins (names of namespaces, uids, times, versions).
    std::fs::write(
        &program,
        "#!/bin/sh\necho \"$(basename \"$1\" | cut -c1-5) $(basename \"$2\" | cut -c1-7) $3 $4\"\n\
         for f in \"$1\"/* \"$2\"/*; do echo \"== $(basename \"$(dirname \"$f\")\" | cut -c1-4) $(basename \"$f\" | sed 's/\\.[^.]*\\.[^.]*$//')\"; \
         grep -v -e uid: -e creationTimestamp: -e resourceVersion: -e namespace: \"$f\"; done\nexit \"$EXIT\"\n",
    )
    .unwrap();
    std::fs::set_permissions(&program, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    for (exit, extra) in [("0", ""), ("1", " -N --color=always"), ("3", "")] {
        let variable = format!("{}{extra}", program.display());
        let theirs = with_stdin(
            twins
                .theirs
                .kubectl()
                .args(["diff", "-n", &twins.theirs.name, "-f", "-"])
                .env("KUBECTL_EXTERNAL_DIFF", &variable)
                .env("EXIT", exit),
            &input,
        );
        let ours = twins
            .ours
            .kubeupd()
            .args(["diff", "-n", &twins.ours.name, "-f", "-"])
            .env("KUBECTL_EXTERNAL_DIFF", &variable)
            .env("EXIT", exit)
            .write_stdin(input.clone())
            .output()
            .unwrap();
        let text = |output: &Output| {
            let names = [&twins.ours.name, &twins.theirs.name];
            let mut stdout = String::from_utf8_lossy(&output.stdout).into_owned();
            for name in names {
                stdout = stdout.replace(name.as_str(), "NAMESPACE");
            }
            (output.status.code(), stdout, String::from_utf8_lossy(&output.stderr).into_owned())
        };
        assert_eq!(text(&ours), text(&theirs), "exit {exit}: kubeupd (left) differs from kubectl (right)");
        assert!(String::from_utf8_lossy(&ours.stdout).contains("k: '***'"), "Secrets are masked");
    }
    let shown = twins
        .ours
        .kubeupd()
        .args(["diff", "--show-secrets", "-n", &twins.ours.name, "-f", "-"])
        .env("KUBECTL_EXTERNAL_DIFF", program.display().to_string())
        .env("EXIT", "1")
        .write_stdin(input)
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&shown.stdout).contains("k: aGlkZGVu"), "--show-secrets shows them");
}
