//! Deploys that finish, on the cluster with nodes (kwok's fake nodes, kube-scheduler and the
//! workload controllers), where Deployments roll out for real and pods of the images
//! `kubeupd.invalid/fail/*` fail: apply's phases (Argo CD's sync waves, kapp's change rules, the
//! workloads behind a webhook's Service before what the webhook intercepts) and `--atomic`.
//! kubectl has neither: each test says which tool's documented behaviour it follows.
use crate::support;

use std::time::Duration;

use serde_json::Value;
use support::TestNamespace;

/// Writes `yaml` to a file of its own and returns it (kept until dropped).
fn manifest(yaml: &str) -> tempfile::NamedTempFile {
    let file = tempfile::Builder::new().suffix(".yaml").tempfile().unwrap();
    std::fs::write(file.path(), yaml).unwrap();
    file
}

/// A Deployment of one replica of `image`, labelled `app: NAME`, Available only `ready_after`
/// seconds after its pod is ready (so that what comes after it can be told apart in time).
fn deployment(name: &str, image: &str, ready_after: u32, annotations: &str) -> String {
    // 0 is left out, as the server leaves it out: kubectl would otherwise patch it every time.
    let ready_after = match ready_after {
        0 => String::new(),
        seconds => format!("  minReadySeconds: {seconds}\n"),
    };
    format!(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: {name}, annotations: {{{annotations}}}}}\nspec:\n  \
         replicas: 1\n{ready_after}  selector: {{matchLabels: {{app: {name}}}}}\n  template:\n    \
         metadata: {{labels: {{app: {name}}}}}\n    spec:\n      containers: [{{name: app, image: \"{image}\"}}]\n"
    )
}

fn config_map(name: &str, value: &str, annotations: &str) -> String {
    format!(
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: {name}, annotations: {{{annotations}}}}}\ndata: {{v: \"{value}\"}}\n"
    )
}

fn documents(parts: &[String]) -> String {
    parts.join("---\n")
}

/// `kubectl get WHAT -o json --show-managed-fields` in `namespace`.
fn get(namespace: &TestNamespace, what: &str) -> Value {
    let json = namespace.kubectl_ok(&["get", what, "-n", &namespace.name, "-o", "json", "--show-managed-fields"]);
    support::parse_json(json.as_bytes())
}

/// Whether `what` exists in `namespace`.
fn exists(namespace: &TestNamespace, what: &str) -> bool {
    let output = namespace.kubectl().args(["get", what, "-n", &namespace.name]).output().unwrap();
    output.status.success()
}

/// Seconds since the epoch of an RFC 3339 time as the server writes it (`2026-12-05T01:57:50Z`).
fn seconds(time: &str) -> i64 {
    let (date, clock) = time.trim_end_matches('Z').split_once('T').expect("an RFC 3339 time");
    let numbers =
        |text: &str, separator: char| -> Vec<i64> { text.split(separator).map(|n| n.parse().unwrap()).collect() };
    let (ymd, hms) = (numbers(date, '-'), numbers(clock, ':'));
    // Days from civil, for the proleptic Gregorian calendar.
    let (year, month) = if ymd[1] <= 2 { (ymd[0] - 1, ymd[1] + 9) } else { (ymd[0], ymd[1] - 3) };
    let era = year.div_euclid(400);
    let day_of_era = (153 * month + 2) / 5 + ymd[2] - 1 + 365 * (year - era * 400) + (year - era * 400) / 4
        - (year - era * 400) / 100;
    let days = era * 146_097 + day_of_era - 719_468;
    days * 86_400 + hms[0] * 3600 + hms[1] * 60 + hms[2]
}

/// When the Deployment `name` became Available, by its condition.
fn available_since(namespace: &TestNamespace, name: &str) -> i64 {
    let deployment = get(namespace, &format!("deployment/{name}"));
    let conditions = deployment["status"]["conditions"].as_array().cloned().unwrap_or_default();
    let available =
        conditions.iter().find(|condition| condition["type"] == "Available" && condition["status"] == "True");
    seconds(
        available.unwrap_or_else(|| panic!("{name} is not Available: {deployment}"))["lastTransitionTime"]
            .as_str()
            .unwrap(),
    )
}

fn created_at(namespace: &TestNamespace, what: &str) -> i64 {
    seconds(get(namespace, what)["metadata"]["creationTimestamp"].as_str().unwrap())
}

/// `kubeupd apply -n NAMESPACE FLAGS -f FILE`, run to its end.
fn kubeupd_apply(namespace: &TestNamespace, file: &tempfile::NamedTempFile, flags: &[&str]) -> std::process::Output {
    namespace.kubeupd().args(["apply", "-n", &namespace.name]).args(flags).arg("-f").arg(file.path()).output().unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn sync_waves_apply_in_order_each_after_the_one_before_is_ready() {
    // Argo CD's sync waves: a wave starts once the one before is healthy.
    let namespace = TestNamespace::with_nodes("deploys-waves");
    let wave = |n: i32| format!("argocd.argoproj.io/sync-wave: \"{n}\"");
    let file = manifest(&documents(&[
        config_map("last", "1", &wave(2)),
        deployment("db", "postgres:17", 3, &wave(-1)),
        config_map("first", "1", &wave(-1)),
        deployment("web", "nginx:1.27", 2, ""),
    ]));
    let diff =
        namespace.kubeupd().args(["diff", "--summary", "-n", &namespace.name, "-f"]).arg(file.path()).output().unwrap();
    assert_eq!(
        text(&diff.stdout),
        "+ configmap/last -n NS (phase 3)\n+ deployment.apps/db -n NS (phase 1)\n+ configmap/first -n NS (phase 1)\n\
         + deployment.apps/web -n NS (phase 2)\n4 to create, 0 to change, 0 to prune, 0 unchanged\n"
            .replace("NS", &namespace.name),
        "{}",
        text(&diff.stderr)
    );
    let output = kubeupd_apply(&namespace, &file, &["--timeout=120s"]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert_eq!(
        text(&output.stdout),
        "configmap/last created\ndeployment.apps/db created\nconfigmap/first created\ndeployment.apps/web created\n"
    );
    // Each wave was written no earlier than the one before it was ready.
    assert!(created_at(&namespace, "deployment/web") >= available_since(&namespace, "db"));
    assert!(created_at(&namespace, "configmap/last") >= available_since(&namespace, "web"));
    // Applied again: nothing changes, and nothing waits longer than the objects take to be read.
    let again = kubeupd_apply(&namespace, &file, &[]);
    assert!(again.status.success(), "{}", text(&again.stderr));
    assert!(text(&again.stdout).lines().all(|line| line.ends_with(" unchanged")), "{}", text(&again.stdout));
}

#[test]
fn kapp_change_rules_wait_for_the_group_they_follow() {
    // kapp: a change with `upsert after upserting GROUP` is applied once every change of the group
    // is applied and waited for.
    let namespace = TestNamespace::with_nodes("deploys-kapp");
    let file = manifest(&documents(&[
        config_map("migrations-done", "1", "kapp.k14s.io/change-rule: upsert after upserting example.com/db"),
        deployment("db", "postgres:17", 3, "kapp.k14s.io/change-group: example.com/db"),
    ]));
    let output = kubeupd_apply(&namespace, &file, &["--timeout=120s"]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert!(created_at(&namespace, "configmap/migrations-done") >= available_since(&namespace, "db"));
}

#[test]
fn what_a_webhook_intercepts_waits_for_the_workload_behind_its_service() {
    // No tool does this for a webhook of the same input; kapp and Argo CD need a wave or a rule.
    // The webhook ignores failures (the fake nodes serve no webhook): what is checked is when
    // the intercepted object was created.
    let namespace = TestNamespace::with_nodes("deploys-webhook");
    let ns = &namespace.name;
    let webhook = format!(
        "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingWebhookConfiguration\nmetadata: {{name: {ns}}}\n\
         webhooks:\n- name: check.{ns}.example.com\n  admissionReviewVersions: [v1]\n  sideEffects: None\n  \
         failurePolicy: Ignore\n  timeoutSeconds: 1\n  namespaceSelector: {{matchLabels: {{kubernetes.io/metadata.name: {ns}}}}}\n  \
         clientConfig: {{service: {{namespace: {ns}, name: checker}}}}\n  \
         rules: [{{apiGroups: [\"\"], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [configmaps]}}]\n"
    );
    let service = "apiVersion: v1\nkind: Service\nmetadata: {name: checker}\nspec: {selector: {app: checker}, ports: [{port: 443}]}\n";
    let file = manifest(&documents(&[
        config_map("checked", "1", ""),
        webhook,
        service.to_string(),
        deployment("checker", "nginx:1.27", 3, ""),
    ]));
    let output = kubeupd_apply(&namespace, &file, &["--timeout=120s"]);
    let cleanup = || namespace.kubectl_ok(&["delete", "validatingwebhookconfiguration", ns]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert!(created_at(&namespace, "configmap/checked") >= available_since(&namespace, "checker"));
    cleanup();
}

#[test]
fn a_wave_that_fails_stops_the_waves_after_it() {
    // Argo CD starts no wave after one that is not healthy.
    let namespace = TestNamespace::with_nodes("deploys-stop");
    let file = manifest(&documents(&[
        deployment("broken", "kubeupd.invalid/fail/image-pull:1", 0, ""),
        config_map("after", "1", "argocd.argoproj.io/sync-wave: \"1\""),
    ]));
    let output = kubeupd_apply(&namespace, &file, &["--timeout=20s"]);
    assert_eq!(output.status.code(), Some(1), "{}", text(&output.stderr));
    assert_eq!(text(&output.stdout), "deployment.apps/broken created\n");
    let stderr = text(&output.stderr);
    assert!(stderr.contains("not applied: phase 2 (sync wave 1) was not started: deployment.apps/broken"), "{stderr}");
    assert!(!exists(&namespace, "configmap/after"));
}

/// The parts of an object that `--atomic` must put back as they were; not what the deployment
/// controller writes as it rolls the template back (a new revision, its own field ownership).
fn restored_view(object: &Value) -> Value {
    let metadata = &object["metadata"];
    let mut annotations = metadata["annotations"].clone();
    if let Some(annotations) = annotations.as_object_mut() {
        annotations.remove("deployment.kubernetes.io/revision");
    }
    let managed: Vec<&Value> = (metadata["managedFields"].as_array().into_iter().flatten())
        .filter(|entry| entry["manager"] != "kube-controller-manager")
        .collect();
    serde_json::json!({
        "annotations": annotations,
        "labels": metadata["labels"],
        "managedFields": managed,
        "spec": object["spec"],
        "data": object["data"],
    })
}

#[test]
fn atomic_puts_back_what_a_failed_apply_changed_and_deletes_what_it_created() {
    // Helm's --atomic (Helm 4: --rollback-on-failure): a release that fails is rolled back to
    // the one before; here, to the objects as they were before the run.
    let namespace = TestNamespace::with_nodes("deploys-atomic");
    let ns = &namespace.name;
    let first = manifest(&documents(&[deployment("web", "nginx:1.27", 0, ""), config_map("settings", "1", "")]));
    let output = kubeupd_apply(&namespace, &first, &["--wait-ready", "--timeout=120s"]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    // Another manager owns a field too: its ownership must come back as well.
    namespace.kubectl_ok(&["label", "configmap", "settings", "-n", ns, "owner=someone", "--field-manager=someone"]);
    let before =
        [get(&namespace, "deployment/web"), get(&namespace, "configmap/settings")].map(|object| restored_view(&object));
    let second = manifest(&documents(&[
        deployment("web", "kubeupd.invalid/fail/image-pull:1", 0, ""),
        config_map("settings", "2", ""),
        config_map("added", "1", ""),
    ]));
    let output = kubeupd_apply(&namespace, &second, &["--atomic", "--timeout=20s"]);
    assert_eq!(output.status.code(), Some(1), "{}", text(&output.stderr));
    let stderr = text(&output.stderr);
    assert!(stderr.contains("rolling back (--atomic): 3 objects this run changed\n"), "{stderr}");
    for line in ["configmap/added deleted\n", "configmap/settings restored\n", "deployment.apps/web restored\n"] {
        assert!(stderr.contains(line), "{line:?} in {stderr}");
    }
    let after =
        [get(&namespace, "deployment/web"), get(&namespace, "configmap/settings")].map(|object| restored_view(&object));
    assert_eq!(after, before, "the objects as they were before the run, field ownership included");
    // The object the run created is gone (its deletion may take a moment to show).
    let gone = (0..50).any(|_| {
        let present = exists(&namespace, "configmap/added");
        if present {
            std::thread::sleep(Duration::from_millis(100));
        }
        !present
    });
    assert!(gone, "configmap/added is still there");
    // Nothing is left for kubectl to trip on: its apply of the first files changes nothing.
    let kubectl = namespace.kubectl().args(["apply", "-n", ns, "-f"]).arg(first.path()).output().unwrap();
    assert_eq!(
        text(&kubectl.stdout),
        "deployment.apps/web unchanged\nconfigmap/settings unchanged\n",
        "{}",
        text(&kubectl.stderr)
    );
}
