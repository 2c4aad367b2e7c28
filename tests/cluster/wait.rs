//! `apply --wait-ready` and `kubeupd wait` against the real apiserver. The cluster runs no controllers,
//! so the tests play the deployment controller: they write the status subresource (the observed
//! generation, replica counts and conditions a controller would report) while kubeupd waits.
//! kubectl's `wait` is the reference where it has the same condition.
use crate::support;

use std::process::{Child, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use support::{TestNamespace, Twins, parse_json};

fn deployment(name: &str, replicas: u32, image: &str) -> String {
    format!(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: {name}}}\nspec:\n  replicas: {replicas}\n  \
         selector: {{matchLabels: {{app: {name}}}}}\n  template:\n    metadata: {{labels: {{app: {name}}}}}\n    \
         spec:\n      containers: [{{name: app, image: \"{image}\"}}]\n"
    )
}

const CONFIG_MAP: &str = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: conf}\ndata: {a: \"1\"}\n";

/// Writes `yaml` to a file of its own and returns it (kept until dropped).
fn manifest(yaml: &str) -> tempfile::NamedTempFile {
    let file = tempfile::Builder::new().suffix(".yaml").tempfile().unwrap();
    std::fs::write(file.path(), yaml).unwrap();
    file
}

/// Starts `kubeupd apply --wait-ready` on `file` in `namespace`, with `extra` flags.
fn start_apply_wait(namespace: &TestNamespace, file: &tempfile::NamedTempFile, extra: &[&str]) -> Child {
    namespace
        .kubeupd_process()
        .args(["apply", "-n", &namespace.name, "--wait-ready", "-f"])
        .arg(file.path())
        .args(extra)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("kubeupd starts")
}

/// The Deployment `name`'s generation, once it has reached `at_least`: the apply under test has
/// written it.
fn await_generation(namespace: &TestNamespace, name: &str, at_least: i64) -> i64 {
    let started = Instant::now();
    loop {
        let output = namespace
            .kubectl()
            .args(["get", "deployment", name, "-n", &namespace.name, "-o", "jsonpath={.metadata.generation}"])
            .output()
            .unwrap();
        match String::from_utf8_lossy(&output.stdout).trim().parse::<i64>() {
            Ok(generation) if generation >= at_least => return generation,
            _ => {}
        }
        assert!(started.elapsed() < Duration::from_secs(60), "deployment {name} never reached generation {at_least}");
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// Plays the deployment controller: writes `status` to the Deployment's status subresource.
fn report_status(namespace: &TestNamespace, name: &str, status: &Value) {
    let patch = json!({ "status": status }).to_string();
    namespace.kubectl_ok(&[
        "patch",
        "deployment",
        name,
        "-n",
        &namespace.name,
        "--subresource=status",
        "--type=merge",
        "-p",
        &patch,
    ]);
}

/// The status a deployment controller reports once `generation` is rolled out to `replicas`.
fn rolled_out(generation: i64, replicas: u32) -> Value {
    json!({
        "observedGeneration": generation, "replicas": replicas, "updatedReplicas": replicas,
        "readyReplicas": replicas, "availableReplicas": replicas,
        "conditions": [
            {"type": "Available", "status": "True", "reason": "MinimumReplicasAvailable", "message": "ok"},
            {"type": "Progressing", "status": "True", "reason": "NewReplicaSetAvailable", "message": "done"}
        ]
    })
}

/// Asserts that `child` is still running, as it must be before the controller reports.
fn assert_still_waiting(child: &mut Child, what: &str) {
    assert!(child.try_wait().unwrap().is_none(), "{what} ended before the controller reported the rollout");
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn finished(child: Child, what: &str) -> Output {
    let output = child.wait_with_output().unwrap();
    eprintln!("{what}: exit {:?}\n{}\n{}", output.status.code(), text(&output.stdout), text(&output.stderr));
    output
}

/// Applies `yaml` with `--wait-ready` and `flags`, waits until the Deployment `web` reaches `generation`,
/// checks that kubeupd is still waiting two seconds later, then reports the rollout as its
/// controller would; returns what kubeupd printed.
fn apply_and_roll_out(namespace: &TestNamespace, yaml: &str, flags: &[&str], generation: i64) -> Output {
    let file = manifest(yaml);
    let mut apply = start_apply_wait(namespace, &file, flags);
    await_generation(namespace, "web", generation);
    std::thread::sleep(Duration::from_secs(2));
    let what = format!("apply --wait-ready {flags:?}");
    assert_still_waiting(&mut apply, &what);
    // A switch to server-side apply also writes the last-applied annotation, which a Deployment
    // counts as a generation of its own: the controller reports the latest one.
    let latest = await_generation(namespace, "web", generation);
    report_status(namespace, "web", &rolled_out(latest, 3));
    let output = finished(apply, &what);
    assert!(output.status.success());
    output
}

#[test]
fn apply_wait_returns_once_the_controller_reports_the_rollout_client_and_server_side() {
    let namespace = TestNamespace::new("wait-rollout");
    let first = deployment("web", 3, "nginx:1.25") + "---\n" + CONFIG_MAP;
    let output = apply_and_roll_out(&namespace, &first, &["--timeout=60s"], 1);
    let stdout = text(&output.stdout);
    assert!(stdout.starts_with("deployment.apps/web created\nconfigmap/conf created\n"), "{stdout}");
    assert!(stdout.contains("configmap/conf ready after "), "{stdout}");
    assert!(stdout.contains("deployment.apps/web ready after "), "{stdout}");

    // A new image: generation 2. The status still reports generation 1 rolled out, which must not count.
    let second = deployment("web", 3, "nginx:1.27");
    let flags = ["--server-side", "--force-conflicts", "--timeout=60s"];
    let output = apply_and_roll_out(&namespace, &second, &flags, 2);
    assert!(text(&output.stdout).contains("deployment.apps/web ready after "));
}

#[test]
fn a_deployment_past_its_progress_deadline_fails_the_wait_early() {
    let namespace = TestNamespace::new("wait-deadline");
    // An object the prune would take, held by a finalizer: the prune comes only once everything
    // applied is ready, so a failed rollout prunes nothing.
    let held = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: held, finalizers: [kubeupd.test/hold]}\n";
    let set = ["--prune", "--applyset=deadline"];
    let first =
        namespace.kubeupd().args(["apply", "-n", &namespace.name, "-f", "-"]).args(set).write_stdin(held).output();
    assert!(first.unwrap().status.success());
    let file = manifest(&deployment("web", 3, "nginx:1.25"));
    let started = Instant::now();
    let timeout = Duration::from_secs(90);
    let mut apply = start_apply_wait(&namespace, &file, &["--timeout=90s", set[0], set[1]]);
    await_generation(&namespace, "web", 1);
    assert_still_waiting(&mut apply, "apply --wait-ready");
    let mut status = rolled_out(1, 1);
    status["conditions"][1] = json!({
        "type": "Progressing", "status": "False", "reason": "ProgressDeadlineExceeded",
        "message": "ReplicaSet \"web-5d9\" has timed out progressing."
    });
    report_status(&namespace, "web", &status);
    let output = finished(apply, "apply --wait-ready");
    assert!(started.elapsed() < timeout, "a failed rollout must end the wait before the timeout");
    assert_eq!(output.status.code(), Some(1));
    let stderr = text(&output.stderr);
    assert!(stderr.contains("error: deployment.apps/web failed after "), "{stderr}");
    assert!(stderr.contains(": Progressing: ReplicaSet \"web-5d9\" has timed out progressing.\n"), "{stderr}");
    assert!(stderr.contains("error: nothing was pruned, because not every object applied became ready\n"), "{stderr}");
    assert!(!text(&output.stdout).contains("configmap/held pruned\n"), "{}", text(&output.stdout));
    let held = namespace.kubectl_ok(&["get", "cm", "held", "-n", &namespace.name, "-o", "json"]);
    assert!(parse_json(held.as_bytes())["metadata"]["deletionTimestamp"].is_null(), "{held}");
    namespace.kubectl_ok(&[
        "patch",
        "cm",
        "held",
        "-n",
        &namespace.name,
        "--type=merge",
        "-p",
        r#"{"metadata":{"finalizers":null}}"#,
    ]);
}

#[test]
fn ctrl_c_while_waiting_stops_the_wait_and_says_everything_was_applied() {
    let namespace = TestNamespace::new("wait-interrupt");
    let file = manifest(&deployment("web", 3, "nginx:1.25"));
    let apply = start_apply_wait(&namespace, &file, &[]);
    await_generation(&namespace, "web", 1);
    std::thread::sleep(Duration::from_secs(1));
    let killed = std::process::Command::new("kill").args(["-INT", &apply.id().to_string()]).status().unwrap();
    assert!(killed.success());
    let output = finished(apply, "apply --wait-ready, interrupted");
    assert_eq!(output.status.code(), Some(130));
    assert_eq!(text(&output.stdout), "deployment.apps/web created\n");
    assert_eq!(text(&output.stderr), "interrupted: every object was applied; stopped waiting for them to be ready\n");
}

#[test]
fn a_timeout_names_each_object_not_ready_and_why_with_one_watch_per_type() {
    let namespace = TestNamespace::new("wait-timeout");
    let yaml = ["a", "b", "c"].map(|name| deployment(name, 2, "nginx:1.25")).join("---\n") + "---\n" + CONFIG_MAP;
    let file = manifest(&yaml);
    let output = namespace
        .kubeupd()
        .args(["apply", "-n", &namespace.name, "--wait-ready", "--timeout=2s", "-v=6", "-f"])
        .arg(file.path())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let (stdout, stderr) = (text(&output.stdout), text(&output.stderr));
    assert!(stdout.contains("configmap/conf ready after "), "{stdout}");
    for name in ["a", "b", "c"] {
        let line = format!("error: deployment.apps/{name} not ready after 2s: 0 of 2 replicas created\n");
        assert!(stderr.contains(&line), "{line} missing from:\n{stderr}");
    }
    let watches = |of: &str| -> Vec<&str> {
        stderr.lines().filter(|line| line.contains("watch=true") && line.contains(&format!("/{of}?"))).collect()
    };
    let deployments = watches("deployments");
    assert_eq!(deployments.len(), 1, "three Deployments in one namespace share one watch: {deployments:#?}");
    assert!(!deployments[0].contains("fieldSelector"), "{}", deployments[0]);
    // Their pods, and their ReplicaSets, are read with one watch each for the namespace.
    for of in ["pods", "replicasets"] {
        assert_eq!(watches(of).len(), 1, "one watch of the {of} of the namespace: {:#?}", watches(of));
    }
}

/// Starts the same `wait` with kubectl in `twins.theirs` and kubeupd in `twins.ours`.
fn start_both(twins: &Twins, args: &[&str]) -> (Child, Child) {
    let start = |mut command: std::process::Command, namespace: &TestNamespace| {
        command
            .arg("wait")
            .args(args)
            .args(["-n", &namespace.name])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };
    (start(twins.theirs.kubectl(), &twins.theirs), start(twins.ours.kubeupd_process(), &twins.ours))
}

fn assert_same_result(kubectl: Output, kubeupd: Output, what: &str) {
    assert_eq!(
        (kubeupd.status.code(), text(&kubeupd.stdout), text(&kubeupd.stderr)),
        (kubectl.status.code(), text(&kubectl.stdout), text(&kubectl.stderr)),
        "{what}: kubeupd (left) differs from kubectl (right)"
    );
}

#[test]
fn wait_for_delete_matches_kubectl() {
    let twins = Twins::new("wait-delete");
    for namespace in [&twins.theirs, &twins.ours] {
        namespace.kubectl_ok(&["create", "configmap", "gone", "-n", &namespace.name]);
        namespace.kubectl_ok(&["create", "configmap", "stays", "-n", &namespace.name]);
    }
    let (mut kubectl, mut kubeupd) = start_both(&twins, &["--for=delete", "configmap/gone", "--timeout=60s"]);
    std::thread::sleep(Duration::from_secs(2));
    assert_still_waiting(&mut kubectl, "kubectl wait --for=delete");
    assert_still_waiting(&mut kubeupd, "kubeupd wait --for=delete");
    for namespace in [&twins.theirs, &twins.ours] {
        namespace.kubectl_ok(&["delete", "configmap", "gone", "-n", &namespace.name]);
    }
    let (kubectl, kubeupd) = (finished(kubectl, "kubectl"), finished(kubeupd, "kubeupd"));
    assert_eq!(text(&kubeupd.stdout), "configmap/gone condition met\n");
    assert_same_result(kubectl, kubeupd, "deleted while waiting");

    let ours = &twins.ours;
    ours.assert_same_as_kubectl(&["wait", "--for=delete", "configmap/gone", "-n", &ours.name, "--timeout=1s"]);
    ours.assert_same_as_kubectl(&["wait", "--for=delete", "configmap/stays", "-n", &ours.name, "--timeout=1s"]);
    ours.assert_same_as_kubectl(&["wait", "--for=delete", "configmap/stays", "-n", &ours.name, "--timeout=0"]);
}

#[test]
fn wait_for_conditions_and_jsonpath_match_kubectl() {
    let twins = Twins::new("wait-condition");
    for namespace in [&twins.theirs, &twins.ours] {
        namespace.kubectl_ok(&[
            "create",
            "deployment",
            "web",
            "--image=nginx:1.25",
            "--replicas=2",
            "-n",
            &namespace.name,
        ]);
    }
    let (mut kubectl, mut kubeupd) =
        start_both(&twins, &["--for=condition=available", "deployment/web", "--timeout=60s"]);
    std::thread::sleep(Duration::from_secs(2));
    assert_still_waiting(&mut kubectl, "kubectl wait --for=condition");
    assert_still_waiting(&mut kubeupd, "kubeupd wait --for=condition");
    for namespace in [&twins.theirs, &twins.ours] {
        report_status(namespace, "web", &rolled_out(1, 2));
    }
    let (kubectl, kubeupd) = (finished(kubectl, "kubectl"), finished(kubeupd, "kubeupd"));
    assert_eq!(text(&kubeupd.stdout), "deployment.apps/web condition met\n");
    assert_same_result(kubectl, kubeupd, "condition reported while waiting");

    let ours = &twins.ours;
    let namespace = ours.name.as_str();
    for args in [
        ["--for=condition=Available", "deployment/web", "--timeout=1s"],
        ["--for=condition=Available=false", "deployment/web", "--timeout=1s"],
        ["--for=condition=Available=False", "deployment/web", "--timeout=0"],
        ["--for=jsonpath={.status.availableReplicas}=2", "deployment/web", "--timeout=1s"],
        ["--for=jsonpath={.status.conditions[?(@.type==\"Available\")].status}=True", "deployment/web", "--timeout=1s"],
        ["--for=jsonpath={.spec.template}", "deployment/web", "--timeout=1s"],
        ["--for=jsonpath={.spec.template}=x", "deployment/web", "--timeout=1s"],
        ["--for=jsonpath={.spec.replicas}=5", "deployment/web", "--timeout=1s"],
        ["--for=condition=Available", "configmap/nope", "--timeout=1s"],
        ["--for=bogus", "deployment/web", "--timeout=1s"],
    ] {
        let mut args = args.to_vec();
        args.splice(0..0, ["wait", "-n", namespace]);
        ours.assert_same_as_kubectl(&args);
    }
}

#[test]
fn wait_for_ready_follows_the_rollout() {
    let namespace = TestNamespace::new("wait-ready");
    namespace.kubectl_ok(&["create", "deployment", "web", "--image=nginx:1.25", "--replicas=2", "-n", &namespace.name]);
    let not_yet =
        namespace.kubeupd().args(["wait", "deployment/web", "-n", &namespace.name, "--timeout=1s"]).output().unwrap();
    assert_eq!(not_yet.status.code(), Some(1));
    assert_eq!(text(&not_yet.stderr), "error: deployment.apps/web not ready after 1s: 0 of 2 replicas created\n");
    report_status(&namespace, "web", &rolled_out(1, 2));
    let ready =
        namespace.kubeupd().args(["wait", "deploy/web", "-n", &namespace.name, "--for=ready"]).output().unwrap();
    assert!(ready.status.success(), "{}", text(&ready.stderr));
    assert_eq!(text(&ready.stdout), "deployment.apps/web condition met\n");
}

#[test]
fn a_watch_from_a_version_the_server_no_longer_keeps_lists_again() {
    use support::fault_proxy::{Fault, Rig};
    let rig = Rig::new("wait-gone");
    let n = rig.namespace.name.clone();
    rig.namespace.apply(CONFIG_MAP);
    // The first list answers late, and the watch from its version is answered 410 Gone: the
    // change made meanwhile is only seen by listing again.
    rig.proxy.inject("GET", "configmaps?fieldSelector", Fault::Slow(Duration::from_secs(3)), 1);
    rig.proxy.inject(
        "GET",
        "configmaps?watch=true",
        Fault::Status { code: 410, reason: "Expired", retry_after: None },
        1,
    );
    let writer = {
        let namespace = n.clone();
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_secs(1));
            let patch = r#"{"data":{"a":"2"}}"#;
            let status = std::process::Command::new("kubectl")
                .args(["--kubeconfig", support::kubeconfig().to_str().unwrap()])
                .args(["patch", "configmap", "conf", "-n", &namespace, "--type=merge", "-p", patch])
                .output()
                .unwrap()
                .status;
            assert!(status.success());
        })
    };
    let (output, _) = rig.kubeupd(&["wait", "configmap/conf", "--for=jsonpath={.data.a}=2", "--timeout=20s"], "");
    writer.join().unwrap();
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert_eq!(text(&output.stdout), "configmap/conf condition met\n");
    let lists = rig.count("GET", "configmaps?fieldSelector");
    assert_eq!(lists, 2, "listed, then listed again after 410 Gone");
}

#[test]
fn selectors_and_all_pick_the_objects_as_kubectls_wait_does() {
    let namespace = TestNamespace::new("wait-select");
    let n = namespace.name.as_str();
    let unique = format!("sel-{n}");
    namespace.apply(&format!("apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: a, labels: {{app: {unique}}}}}\n"));
    namespace.apply("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\n");
    let selector = format!("app={unique}");
    for args in [
        &["wait", "-n", n, "cm", "-l", &selector, "--for=create", "--timeout=2s"][..],
        &["wait", "-n", n, "cm", "--all", "--for=create", "--timeout=2s"],
        &["wait", "-n", n, "cm", "--for=create", "--timeout=2s"],
        &["wait", "-n", n, "cm", "-l", "app=none", "--for=create", "--timeout=1s"],
        &["wait", "-n", n, "cm", "-l", "app=none", "--for=delete", "--timeout=1s"],
        &["wait", "-A", "cm", "-l", &selector, "--for=create", "--timeout=2s"],
    ] {
        namespace.assert_same_as_kubectl(args);
    }
    // A selection that matches nothing yet: kubectl 1.37 asks again until something it matches is
    // created (1.32 said at once that nothing matched).
    let later = format!("app=later-{n}");
    let args = ["wait", "-n", n, "cm", "-l", &later, "--for=create", "--timeout=30s"];
    let start = |mut command: std::process::Command| {
        command.args(args).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("the tool starts")
    };
    let (ours, theirs) = (start(namespace.kubeupd_process()), start(namespace.kubectl()));
    std::thread::sleep(Duration::from_secs(1));
    namespace.apply(&format!("apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: c, labels: {{app: later-{n}}}}}\n"));
    let (ours, theirs) = (ours.wait_with_output().unwrap(), theirs.wait_with_output().unwrap());
    support::assert_same_output(&ours, &theirs, "a selection created while waiting");
    assert_eq!(String::from_utf8_lossy(&ours.stdout), "configmap/c condition met\n");
}

/// kubectl's `apply --wait` waits for nothing (its apply defines delete's `--wait` but never reads
/// it): a pruned object a finalizer holds is left terminating, and the apply returns at once.
#[test]
fn apply_wait_is_kubectls_and_waits_for_no_pruned_object() {
    let held =
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: old, labels: {w: \"1\"}, finalizers: [example.com/hold]}\n";
    let twins = Twins::new("apply-wait-k");
    // Applied, so that `--prune -l` takes it as the apply's.
    twins.ours.apply(held);
    twins.theirs.apply(held);
    let new = manifest("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: new, labels: {w: \"1\"}}\n");
    let args = ["apply", "--prune", "-l", "w=1", "--prune-allowlist=core/v1/ConfigMap", "--wait=true", "--timeout=60s"];
    let (ours, theirs) = twins.run_both(&[&args[..], &["-f", new.path().to_str().unwrap()]].concat());
    twins.assert_same_output(&ours, &theirs, "apply --prune --wait");
    assert_eq!(String::from_utf8_lossy(&ours.stdout), "configmap/new created\nconfigmap/old pruned\n");
    for ns in [&twins.ours, &twins.theirs] {
        let deleting =
            ns.kubectl_ok(&["get", "configmap", "old", "-n", &ns.name, "-o", "jsonpath={.metadata.deletionTimestamp}"]);
        assert!(!deleting.is_empty(), "the pruned object is still held, so neither tool waited");
        ns.kubectl_ok(&[
            "patch",
            "configmap",
            "old",
            "-n",
            &ns.name,
            "--type=merge",
            "-p",
            r#"{"metadata":{"finalizers":null}}"#,
        ]);
    }
}

/// kubectl's `apply --force --wait`: the `--wait` changes nothing, and `--force` waits (up to
/// `--timeout`) until the object it deleted is gone before it creates it again. An immutable
/// ConfigMap whose data changes is deleted and created again; a finalizer holds the deleted one
/// until the test takes it off: both tools are still waiting then, and both end the same way,
/// leaving the same object (field ownership included).
#[test]
fn apply_force_waits_for_its_deletion_as_kubectls_does() {
    let frozen = |value: &str| {
        format!(
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: frozen}}\nimmutable: true\ndata: {{v: \"{value}\"}}\n"
        )
    };
    let twins = Twins::new("apply-force-wait");
    let changed = manifest(&frozen("2"));
    let mut running = Vec::new();
    for (ns, mut command) in [(&twins.ours, twins.ours.kubeupd_process()), (&twins.theirs, twins.theirs.kubectl())] {
        ns.apply(&frozen("1"));
        let held = r#"{"metadata":{"finalizers":["example.com/hold"]}}"#;
        ns.kubectl_ok(&["patch", "configmap", "frozen", "-n", &ns.name, "--type=merge", "-p", held]);
        let child = command
            .args(["apply", "-n", &ns.name, "--force", "--wait=true", "--timeout=60s", "-f"])
            .arg(changed.path())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        running.push(child);
    }
    for (ns, child) in [&twins.ours, &twins.theirs].into_iter().zip(&mut running) {
        let deleting = || {
            ns.kubectl_ok(&[
                "get",
                "configmap",
                "frozen",
                "-n",
                &ns.name,
                "-o",
                "jsonpath={.metadata.deletionTimestamp}",
            ])
        };
        let deadline = Instant::now() + Duration::from_secs(60);
        while deleting().is_empty() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(200));
        }
        assert!(!deleting().is_empty(), "{}: --force deleted the object", ns.name);
        assert!(child.try_wait().unwrap().is_none(), "{}: --force waits while the finalizer holds", ns.name);
        let released = r#"{"metadata":{"finalizers":null}}"#;
        ns.kubectl_ok(&["patch", "configmap", "frozen", "-n", &ns.name, "--type=merge", "-p", released]);
    }
    let mut outputs = running.into_iter().map(|child| finished(child, "apply --force --wait"));
    let (ours, theirs) = (outputs.next().unwrap(), outputs.next().unwrap());
    twins.assert_same_output(&ours, &theirs, "apply --force --wait");
    assert_eq!(text(&ours.stdout), "configmap/frozen configured\n");
    let object = twins.assert_same("configmap/frozen", "the object --force created again");
    assert_eq!(object["data"]["v"], "2");
}

/// `--for` given several times, as kubectl 1.36+ reads it: each condition in turn, a line per
/// condition met, the first that is not met named; compared with kubectl on twins.
#[test]
fn repeated_for_matches_kubectl() {
    let twins = Twins::new("wait-for-many");
    for namespace in [&twins.theirs, &twins.ours] {
        namespace.kubectl_ok(&[
            "create",
            "deployment",
            "web",
            "--image=nginx:1.25",
            "--replicas=2",
            "-n",
            &namespace.name,
        ]);
    }
    // Met while waiting: both wait for the rollout, then for the jsonpath.
    let both = ["--for=condition=Available", "--for=jsonpath={.status.readyReplicas}=2", "deployment/web"];
    let (mut kubectl, mut kubeupd) = start_both(&twins, &[&both[..], &["--timeout=60s"]].concat());
    std::thread::sleep(Duration::from_secs(2));
    assert_still_waiting(&mut kubectl, "kubectl wait --for --for");
    assert_still_waiting(&mut kubeupd, "kubeupd wait --for --for");
    for namespace in [&twins.theirs, &twins.ours] {
        report_status(namespace, "web", &rolled_out(1, 2));
    }
    let (kubectl, kubeupd) = (finished(kubectl, "kubectl"), finished(kubeupd, "kubeupd"));
    assert_eq!(text(&kubeupd.stdout), "deployment.apps/web condition met\ndeployment.apps/web condition met\n");
    assert_same_result(kubectl, kubeupd, "two conditions met while waiting");

    for args in [
        &["--for=condition=Available", "--for=jsonpath={.spec.replicas}=2", "deployment/web", "--timeout=1s"][..],
        &["--for=create", "--for=condition=Available", "deployment/web", "--timeout=1s"],
        &["--for=condition=Available", "--for=create", "deployment/web", "--timeout=1s"],
        &["--for=condition=Available", "--for=jsonpath={.spec.replicas}=5", "deployment/web", "--timeout=1s"],
        &["--for=jsonpath={.spec.replicas}=5", "--for=condition=Available", "deployment/web", "--timeout=1s"],
        &["--for=condition=Available", "--for=condition=Available=false", "deployment/web", "--timeout=0"],
        &["--for=condition=Available", "--for=jsonpath={.spec.replicas}=2", "deployment/web", "-o", "name"],
        &["--for=condition=Available", "--for=jsonpath={.spec.replicas}=2", "deployment/web", "-o", "yaml"],
        &["--for=create", "--for=condition=Available", "deployment/nope", "--timeout=1s"],
        &["--for=condition=Available", "--for=bogus", "deployment/web", "--timeout=1s"],
        &["--for=condition=Available", "--for=jsonpath={.a}=", "deployment/web", "--timeout=1s"],
    ] {
        let args = [&["wait"][..], args].concat();
        let (ours, theirs) = twins.run_both(&args);
        // The objects printed with -o yaml are the twins': their own namespace, uid and times.
        if args.contains(&"yaml") {
            let documents = |output: &Output| text(&output.stdout).split("\n---\n").count();
            assert_eq!((ours.status.code(), documents(&ours)), (theirs.status.code(), documents(&theirs)), "{args:?}");
            assert_eq!(documents(&ours), 2, "{}", text(&ours.stdout));
            continue;
        }
        twins.assert_same_output(&ours, &theirs, &format!("{args:?}"));
    }
}

/// `--fail-on` (kubeupd's own) ends the wait as soon as the object meets it, naming the condition.
#[test]
fn fail_on_ends_the_wait_at_once() {
    let namespace = TestNamespace::new("wait-fail-on");
    let n = namespace.name.as_str();
    namespace.apply("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: job}\ndata: {state: running}\n");
    let mut wait = namespace
        .kubeupd_process()
        .args(["wait", "-n", n, "configmap/job", "--for=jsonpath={.data.state}=done", "--timeout=120s"])
        .args(["--fail-on=jsonpath={.data.state}=broken", "--fail-on=jsonpath={.data.other}=x"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_secs(2));
    assert_still_waiting(&mut wait, "wait --fail-on");
    namespace.kubectl_ok(&[
        "patch",
        "configmap",
        "job",
        "-n",
        n,
        "--type=merge",
        "-p",
        r#"{"data":{"state":"broken"}}"#,
    ]);
    let output = finished(wait, "wait --fail-on");
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(text(&output.stdout), "");
    let stderr = text(&output.stderr);
    assert!(stderr.starts_with("error: configmap/job failed after "), "{stderr}");
    assert!(stderr.ends_with(": --fail-on=jsonpath={.data.state}=broken met\n"), "{stderr}");

    // Met already: the wait ends at once, and the condition waited for is not looked at.
    let args = ["wait", "-n", n, "cm/job", "--for=create", "--fail-on=jsonpath={.data.state}=broken"];
    let ours = namespace.kubeupd().args(args).output().unwrap();
    assert_eq!(ours.status.code(), Some(1));
    assert!(text(&ours.stderr).contains("--fail-on=jsonpath={.data.state}=broken met"), "{}", text(&ours.stderr));
    // Conditions --fail-on does not take are refused before any request.
    let refused = namespace.kubeupd().args(["wait", "-n", n, "cm/job", "--fail-on=delete"]).output().unwrap();
    assert_eq!(refused.status.code(), Some(1));
    assert_eq!(
        text(&refused.stderr),
        "error: unrecognized failure condition: \"delete\" (--fail-on takes condition=NAME[=VALUE] or jsonpath=EXPR[=VALUE])\n"
    );
}

/// A custom resource whose controller reports `Stalled=True` fails `apply --wait-ready` at once
/// (kstatus's rule), named with the condition's message; `Ready=False` alone keeps it waiting.
#[test]
fn a_custom_resource_that_stalls_fails_the_wait() {
    let namespace = TestNamespace::new("wait-stalled");
    let n = namespace.name.as_str();
    let group = format!("t{}.wait.kubeupd.test", n.replace('-', ""));
    let definition = format!(
        "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {{name: widgets.{group}}}\n\
         spec:\n  group: {group}\n  scope: Namespaced\n  names: {{kind: Widget, plural: widgets, singular: widget, listKind: WidgetList}}\n  \
         versions: [{{name: v1, served: true, storage: true, subresources: {{status: {{}}}}, \
         schema: {{openAPIV3Schema: {{type: object, x-kubernetes-preserve-unknown-fields: true}}}}}}]\n"
    );
    namespace.apply(&definition);
    namespace.wait_established(&[&format!("crd/widgets.{group}")]);
    let widget =
        |size: u32| format!("apiVersion: {group}/v1\nkind: Widget\nmetadata: {{name: w}}\nspec: {{size: {size}}}\n");
    namespace.apply(&widget(1));
    let report = |generation: i64, conditions: Value| {
        let patch = json!({"status": {"observedGeneration": generation, "conditions": conditions}}).to_string();
        let widgets = format!("widgets.{group}");
        namespace.kubectl_ok(&["patch", &widgets, "w", "-n", n, "--subresource=status", "--type=merge", "-p", &patch]);
    };
    report(1, json!([{"type": "Ready", "status": "True", "reason": "Succeeded", "message": "size 1 offered"}]));
    let file = manifest(&widget(2));
    let mut apply = start_apply_wait(&namespace, &file, &["--timeout=120s"]);
    let started = Instant::now();
    loop {
        let generation = namespace.kubectl_ok(&[
            "get",
            &format!("widgets.{group}"),
            "w",
            "-n",
            n,
            "-o",
            "jsonpath={.metadata.generation}",
        ]);
        if generation == "2" {
            break;
        }
        assert!(started.elapsed() < Duration::from_secs(60), "the widget was never applied");
        std::thread::sleep(Duration::from_millis(200));
    }
    report(2, json!([{"type": "Ready", "status": "False", "reason": "Failed", "message": "still trying"}]));
    std::thread::sleep(Duration::from_secs(2));
    assert_still_waiting(&mut apply, "apply --wait-ready with Ready=False");
    report(
        2,
        json!([
            {"type": "Ready", "status": "False", "reason": "Failed", "message": "size 2 is not offered"},
            {"type": "Stalled", "status": "True", "reason": "InvalidSpec", "message": "size 2 is not offered"}
        ]),
    );
    let output = finished(apply, "apply --wait-ready, stalled");
    let _ = namespace.kubectl().args(["delete", "crd", &format!("widgets.{group}"), "--wait=false"]).output();
    assert_eq!(output.status.code(), Some(1));
    let stderr = text(&output.stderr);
    let prefix = format!("error: widget.{group}/w failed after ");
    assert!(stderr.starts_with(&prefix), "{stderr}");
    assert!(stderr.ends_with(": Stalled: size 2 is not offered\n"), "{stderr}");
}
