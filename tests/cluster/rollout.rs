//! `kubeupd rollout restart|pause|resume` against a real kube-apiserver, with kubectl as the
//! oracle on twin namespaces: the same output and exit code, the same objects and field
//! ownership (`kubectl-rollout`); the restart time is compared by form, as the tools run apart.

use crate::support;

use std::process::Output;

use serde_json::Value;
use support::{TestNamespace, Twins, parse_json, twin_view};

const DAEMON_SET: &str = "apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent, labels: {app: web}}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec: {containers: [{name: agent, image: fluent-bit:3}]}
";

const RESTARTED_AT: &str = "kubectl.kubernetes.io/restartedAt";

fn twins(prefix: &str) -> Twins {
    Twins::with_objects(prefix, &["patch/app.yaml"], &[DAEMON_SET])
}

fn both(twins: &Twins, args: &[&str]) -> Output {
    twins.assert_both(args).0
}

/// The object as it compares with its twin, the restart time replaced by `RESTARTED`; asserts
/// the time has the annotation's form (`2026-11-23T21:08:54Z`).
fn view(ns: &TestNamespace, what: &str) -> Value {
    let text = ns.kubectl_ok(&["get", what, "-n", &ns.name, "-o", "json", "--show-managed-fields"]);
    let mut object = twin_view(parse_json(text.as_bytes()), &ns.name);
    if let Some(time) =
        object.pointer_mut(&format!("/spec/template/metadata/annotations/{}", RESTARTED_AT.replace('/', "~1")))
    {
        let text = time.as_str().unwrap();
        let form = text.len() == 20 && text.ends_with('Z') && text.as_bytes()[10] == b'T';
        assert!(form, "restartedAt {text:?} is not RFC 3339 in UTC");
        *time = "RESTARTED".into();
    }
    object
}

fn assert_same(twins: &Twins, context: &str) -> Vec<Value> {
    ["deploy/web", "ds/agent", "cm/settings"]
        .iter()
        .map(|what| {
            let ours = view(&twins.ours, what);
            assert_eq!(ours, view(&twins.theirs, what), "{context}: {what} (left: kubeupd, right: kubectl)");
            ours
        })
        .collect()
}

#[test]
fn rollout_actions_match_kubectl() {
    let twins = twins("rollout");
    let steps: &[(&[&str], &str)] = &[
        // No controller has written a revision yet: kubectl says so before it looks for one.
        (
            &["rollout", "history", "deploy/web", "ds/agent", "--revision=2"],
            "deployment.apps/web with revision #2\nNo rollout history found.\n\
             daemonset.apps/agent with revision #2\nNo rollout history found.\n",
        ),
        (&["rollout", "pause", "deploy/web"], "deployment.apps/web paused\n"),
        (&["rollout", "pause", "deploy/web"], ""),
        (&["rollout", "restart", "deploy/web"], ""),
        (&["rollout", "resume", "deployment", "web"], "deployment.apps/web resumed\n"),
        (&["rollout", "resume", "deploy/web"], ""),
        (&["rollout", "restart", "deploy/web", "cm/settings", "deploy/nope"], "deployment.apps/web restarted\n"),
        (&["rollout", "restart", "ds", "-l", "app=web"], "daemonset.apps/agent restarted\n"),
        (&["rollout", "pause", "ds/agent"], ""),
        (&["rollout", "pause", "deploy/web", "-o", "name"], "deployment.apps/web\n"),
        // kubectl asks for its printer after each write: the objects are read and changed first.
        (&["rollout", "resume", "deploy/nope", "deploy/web", "-o", "wide"], ""),
        (&["rollout", "pause", "deploy/web", "-o", "wide"], ""),
        (&["rollout", "resume", "-o", "wide"], ""),
        (&["rollout", "restart", "deploy/web", "-l", "app=web"], ""),
        (&["rollout", "restart"], ""),
        (&["rollout", "restart", "foos/x"], ""),
    ];
    for (args, expected) in steps {
        let out = both(&twins, args);
        assert_eq!(String::from_utf8_lossy(&out.stdout), *expected, "{args:?}");
        assert_same(&twins, &format!("after {args:?}"));
    }
    let objects = assert_same(&twins, "at the end");
    assert_eq!(objects[0]["spec"]["paused"], true);
    for restarted in &objects[..2] {
        assert_eq!(restarted["spec"]["template"]["metadata"]["annotations"][RESTARTED_AT], "RESTARTED");
        let managers: Vec<&str> = restarted["metadata"]["managedFields"]
            .as_array()
            .unwrap()
            .iter()
            .map(|entry| entry["manager"].as_str().unwrap())
            .collect();
        assert!(managers.contains(&"kubectl-rollout"), "{managers:?}");
    }
}

/// Writes the status of `deploy/web` in both twins, as the deployment controller would.
fn play_controller(twins: &Twins, status: &str) {
    for ns in [&twins.ours, &twins.theirs] {
        ns.kubectl_ok(&[
            "patch",
            "deploy",
            "web",
            "-n",
            &ns.name,
            "--subresource=status",
            "--type=merge",
            "-p",
            status,
        ]);
    }
}

#[test]
fn rollout_status_matches_kubectl_as_the_controller_moves() {
    let twins = twins("rollout-status");
    let once = ["rollout", "status", "deploy/web", "--watch=false"];
    // Not observed yet, then each of kubectl's waiting lines, for both tools, one look each.
    both(&twins, &once);
    for status in [
        r#"{"status":{"observedGeneration":1,"replicas":3,"updatedReplicas":1}}"#,
        r#"{"status":{"observedGeneration":1,"replicas":4,"updatedReplicas":3}}"#,
        r#"{"status":{"observedGeneration":1,"replicas":3,"updatedReplicas":3,"readyReplicas":2,"availableReplicas":2}}"#,
    ] {
        play_controller(&twins, status);
        let out = both(&twins, &once);
        assert!(String::from_utf8_lossy(&out.stdout).starts_with("Waiting for deployment \"web\" rollout to finish"));
    }
    // A watch that runs out of time, in kubectl's words.
    let (ours, theirs) = twins.run_both(&["rollout", "status", "deploy/web", "--timeout=1s"]);
    support::assert_same_output(&ours, &theirs, "timed out");
    assert_eq!(String::from_utf8_lossy(&ours.stderr), "error: timed out waiting for the condition\n");

    // Both watch while the controller finishes the rollout.
    let watch = |command: std::process::Command| {
        let mut command = command;
        command.args(["rollout", "status", "deploy/web", "--timeout=60s"]);
        command.stdout(std::process::Stdio::piped()).stderr(std::process::Stdio::piped());
        command.spawn().unwrap()
    };
    let mut ours_command = twins.ours.kubeupd_process();
    ours_command.args(["-n", &twins.ours.name]);
    let mut theirs_command = twins.theirs.kubectl();
    theirs_command.args(["-n", &twins.theirs.name]);
    let (ours, theirs) = (watch(ours_command), watch(theirs_command));
    std::thread::sleep(std::time::Duration::from_secs(2));
    play_controller(
        &twins,
        r#"{"status":{"observedGeneration":1,"replicas":3,"updatedReplicas":3,"readyReplicas":3,"availableReplicas":3}}"#,
    );
    let (ours, theirs) = (ours.wait_with_output().unwrap(), theirs.wait_with_output().unwrap());
    support::assert_same_output(&ours, &theirs, "watched until done");
    assert!(String::from_utf8_lossy(&ours.stdout).ends_with("deployment \"web\" successfully rolled out\n"));

    // A rollout past its deadline is an error; other kinds have no status.
    play_controller(
        &twins,
        r#"{"status":{"conditions":[{"type":"Progressing","status":"False","reason":"ProgressDeadlineExceeded"}]}}"#,
    );
    both(&twins, &once);
    both(&twins, &["rollout", "status", "cm/settings"]);
    both(&twins, &["rollout", "status", "deploy/nope"]);
}

/// A ReplicaSet of `deploy/web` at `revision`, with `template`'s pod spec (YAML flow mapping),
/// as the deployment controller would have left it: labelled with its hash, owned by the
/// Deployment of its namespace.
fn play_replica_set(ns: &TestNamespace, hash: &str, revision: &str, cause: &str, spec: &str) {
    let uid = ns.kubectl_ok(&["get", "deploy", "web", "-n", &ns.name, "-o", "jsonpath={.metadata.uid}"]);
    let cause = if cause.is_empty() { String::new() } else { format!(", kubernetes.io/change-cause: {cause:?}") };
    let yaml = format!(
        "apiVersion: apps/v1
kind: ReplicaSet
metadata:
  name: web-{hash}
  labels: {{app: web, pod-template-hash: {hash}}}
  annotations: {{deployment.kubernetes.io/revision: \"{revision}\"{cause}}}
  ownerReferences: [{{apiVersion: apps/v1, kind: Deployment, name: web, uid: {uid}, controller: true}}]
spec:
  replicas: 0
  selector: {{matchLabels: {{app: web, pod-template-hash: {hash}}}}}
  template:
    metadata: {{labels: {{app: web, pod-template-hash: {hash}}}}}
    spec: {spec}
"
    );
    let created = support::with_stdin(ns.kubectl().args(["create", "-n", &ns.name, "-f", "-"]), &yaml);
    assert!(created.status.success(), "{}", String::from_utf8_lossy(&created.stderr));
}

/// A pod spec that uses what kubectl's pod template description shows: several ports, command
/// and arguments, resources, each kind of probe, environment from every source, mounts,
/// volumes of several types, node selectors and tolerations.
const RICH_SPEC: &str = r#"{
  serviceAccountName: builder,
  initContainers: [{name: init, image: "busybox:1.36", command: [sh, -c, "echo one\necho two"]}],
  containers: [{
    name: app, image: "nginx:1.24",
    ports: [{containerPort: 80, name: http}, {containerPort: 9090, hostPort: 9090, protocol: UDP}],
    args: [--verbose],
    resources: {limits: {cpu: 500m, memory: 128Mi}, requests: {cpu: 250m}},
    livenessProbe: {httpGet: {path: /healthz, port: 8080}, initialDelaySeconds: 3},
    readinessProbe: {exec: {command: [cat, /tmp/ready]}},
    startupProbe: {tcpSocket: {port: http}, failureThreshold: 30},
    envFrom: [{configMapRef: {name: settings}, prefix: CFG_}, {secretRef: {name: creds, optional: true}}],
    env: [{name: MODE, value: "fast\nsafe"}, {name: NODE, valueFrom: {fieldRef: {fieldPath: spec.nodeName}}},
          {name: CPU, valueFrom: {resourceFieldRef: {resource: limits.cpu, divisor: 1m}}},
          {name: MEM, valueFrom: {resourceFieldRef: {resource: limits.memory}}},
          {name: TOKEN, valueFrom: {secretKeyRef: {name: creds, key: token}}},
          {name: LEVEL, valueFrom: {configMapKeyRef: {name: settings, key: level, optional: true}}}],
    volumeMounts: [{name: data, mountPath: /var/data}, {name: config, mountPath: /etc/app, readOnly: true, subPath: app}]
  }],
  volumes: [{name: data, emptyDir: {sizeLimit: 1Gi}}, {name: config, configMap: {name: settings}},
            {name: creds, secret: {secretName: creds, optional: true}}, {name: host, hostPath: {path: /var/log, type: Directory}},
            {name: claim, persistentVolumeClaim: {claimName: data, readOnly: true}},
            {name: info, downwardAPI: {items: [{path: labels, fieldRef: {fieldPath: metadata.labels}}]}},
            {name: token, projected: {sources: [{serviceAccountToken: {path: token, expirationSeconds: 3600}},
                                                {configMap: {name: settings}}, {downwardAPI: {items: [{path: name, fieldRef: {fieldPath: metadata.name}}]}}]}}],
  nodeSelector: {disk: ssd, zone: a},
  tolerations: [{key: dedicated, operator: Equal, value: web, effect: NoSchedule}, {operator: Exists},
                {key: node.kubernetes.io/unreachable, operator: Exists, effect: NoExecute, tolerationSeconds: 300}]
}"#;

#[test]
fn rollout_history_and_undo_match_kubectl() {
    let twins = twins("rollout-history");
    // The test plays the deployment controller: revision 1 is a rich template, revision 2 the
    // Deployment's own, and a ReplicaSet of nobody's is left out.
    let live = twins.ours.kubectl_ok(&["get", "deploy", "web", "-n", &twins.ours.name, "-o", "json"]);
    let current = serde_json::to_string(&parse_json(live.as_bytes())["spec"]["template"]["spec"]).unwrap();
    for ns in [&twins.ours, &twins.theirs] {
        play_replica_set(ns, "h1", "1", "kubectl apply --filename=v1.yaml", RICH_SPEC);
        play_replica_set(ns, "h2", "2", "", &current);
        ns.kubectl_ok(&["annotate", "deploy/web", "-n", &ns.name, "deployment.kubernetes.io/revision=2"]);
        ns.kubectl_ok(&["create", "cm", "web-h9", "-n", &ns.name]);
    }
    let steps: &[&[&str]] = &[
        &["rollout", "history", "deploy/web"],
        &["rollout", "history", "deploy/web", "--revision=1"],
        &["rollout", "history", "deploy/web", "--revision=2"],
        &["rollout", "history", "deploy/web", "--revision=5"],
        &["rollout", "history", "deploy/web", "--revision=-1"],
        &["rollout", "history", "deploy/web", "-o", "name"],
        &["rollout", "history", "deploy/web", "--revision=1", "-o", "jsonpath={.metadata.name}"],
        // A revision that does not exist, with -o (kubectl 1.32 panicked on it).
        &["rollout", "history", "deploy/web", "--revision=7", "-o", "json"],
        &["rollout", "history", "cm/settings", "deploy/nope"],
        &["rollout", "status", "deploy/web", "--watch=false", "--revision=3"],
        &["rollout", "undo", "deploy/web", "--dry-run=client"],
        &["rollout", "undo", "deploy/web", "--dry-run=server", "-o", "name"],
        &["rollout", "undo", "deploy/web", "--to-revision=7"],
        &["rollout", "undo", "cm/settings"],
        // The objects named, then the revision; `-o` once the types are found (history) or
        // after each rollback (undo), and undo goes on after an object that fails.
        &["rollout", "history", "--revision=-1"],
        &["rollout", "history", "foos/x", "-o", "wide"],
        &["rollout", "history", "deploy/nope", "-o", "wide"],
        &["rollout", "undo", "-o", "wide"],
        &["rollout", "undo", "deploy/nope", "cm/settings", "-o", "wide"],
        &["rollout", "undo", "deploy/nope", "deploy/web", "--dry-run=server", "-o", "wide"],
    ];
    for args in steps {
        both(&twins, args);
    }
    // The ReplicaSets themselves, as YAML documents: compared as twins (names and uids differ).
    let (ours, theirs) = twins.run_both(&["rollout", "history", "deploy/web", "-o", "yaml"]);
    let documents = |output: &Output, ns: &TestNamespace| -> Vec<Value> {
        let text = String::from_utf8_lossy(&output.stdout).into_owned();
        let view = |doc: &str| {
            let mut set = twin_view(support::parse_yaml(doc.as_bytes()), &ns.name);
            set["metadata"]["ownerReferences"][0]["uid"] = "the twin's Deployment".into();
            set
        };
        text.split("---\n").map(view).collect()
    };
    let sets = documents(&ours, &twins.ours);
    assert_eq!(sets, documents(&theirs, &twins.theirs), "history -o yaml");
    assert_eq!(sets.len(), 2, "one document per revision");
    twins.assert_same("deploy/web", "after dry runs and failures");
    // Back to revision 1, to 2 (`-o` refused after the rollback), to 1, again (skipped), then
    // to 2; a paused Deployment is not rolled back.
    for args in [
        &["rollout", "undo", "deploy/web"][..],
        &["rollout", "undo", "deploy/web", "--to-revision=2", "-o", "wide"],
        &["rollout", "undo", "deploy/web", "--to-revision=1"],
        &["rollout", "undo", "deploy/web", "--to-revision=1"],
        &["rollout", "undo", "deployment", "web", "--to-revision=2"],
    ] {
        both(&twins, args);
        twins.assert_same("deploy/web", &format!("after {args:?}"));
    }
    let web = twins.assert_same("deploy/web", "rolled back and forth");
    assert_eq!(web["spec"]["template"]["spec"]["containers"][0]["image"], "nginx:1.25");
    assert_eq!(web["spec"]["template"]["metadata"]["labels"], serde_json::json!({"app": "web"}), "no hash label");
    // An object `kubectl apply` manages: kubectl 1.36 and later warn that its annotation stays.
    for ns in [&twins.ours, &twins.theirs] {
        let annotation = "kubectl.kubernetes.io/last-applied-configuration={}";
        ns.kubectl_ok(&["annotate", "deploy/web", "-n", &ns.name, annotation]);
    }
    for args in [&["rollout", "undo", "deploy/web", "--dry-run=server"][..], &["rollout", "undo", "deploy/web"]] {
        let out = both(&twins, args);
        let warned = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(
            warned.starts_with("Warning: resource deployments/web was previously managed with 'kubectl apply'"),
            "{warned}"
        );
    }
    both(&twins, &["rollout", "pause", "deploy/web"]);
    let out = both(&twins, &["rollout", "undo", "deploy/web", "--to-revision=1"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("paused"));
}

const STATEFUL_SET: &str = "apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db}
spec:
  serviceName: db
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec: {containers: [{name: db, image: postgres:16}]}
";

/// A ControllerRevision of `owner` (`daemonset/agent`) at `revision`, its pod template the
/// owner's with the first container's `image`, as the DaemonSet and StatefulSet controllers
/// store one: the template as a strategic merge patch replacing it, owned by the controller,
/// labelled as its pods.
fn play_controller_revision(ns: &TestNamespace, owner: &str, revision: i64, image: &str, cause: &str) {
    let live = parse_json(ns.kubectl_ok(&["get", owner, "-n", &ns.name, "-o", "json"]).as_bytes());
    let mut template = live["spec"]["template"].clone();
    template["spec"]["containers"][0]["image"] = image.into();
    template["$patch"] = "replace".into();
    let name = live["metadata"]["name"].as_str().unwrap();
    let mut annotations = serde_json::Map::new();
    if !cause.is_empty() {
        annotations.insert("kubernetes.io/change-cause".into(), cause.into());
    }
    let controller_revision = serde_json::json!({
        "apiVersion": "apps/v1", "kind": "ControllerRevision",
        "metadata": {
            "name": format!("{name}-{revision}"),
            "labels": live["spec"]["selector"]["matchLabels"],
            "annotations": annotations,
            "ownerReferences": [{"apiVersion": "apps/v1", "kind": live["kind"], "name": name,
                                 "uid": live["metadata"]["uid"], "controller": true}],
        },
        "data": {"spec": {"template": template}},
        "revision": revision,
    });
    let created =
        support::with_stdin(ns.kubectl().args(["create", "-n", &ns.name, "-f", "-"]), &controller_revision.to_string());
    assert!(created.status.success(), "{}", String::from_utf8_lossy(&created.stderr));
}

#[test]
fn daemon_set_and_stateful_set_history_and_undo_match_kubectl() {
    let twins = Twins::with_objects("rollout-revisions", &[], &[DAEMON_SET, STATEFUL_SET]);
    // The test plays the controllers: the DaemonSet has two revisions (the second its own
    // template), the StatefulSet one; a ControllerRevision of nobody's is left out.
    for ns in [&twins.ours, &twins.theirs] {
        play_controller_revision(ns, "ds/agent", 1, "fluent-bit:2", "kubectl set image ds/agent agent=fluent-bit:2");
        play_controller_revision(ns, "ds/agent", 2, "fluent-bit:3", "");
        play_controller_revision(ns, "sts/db", 1, "postgres:16", "");
    }
    let steps: &[&[&str]] = &[
        &["rollout", "history", "ds/agent"],
        &["rollout", "history", "daemonset", "agent", "--revision=1"],
        &["rollout", "history", "ds/agent", "--revision=2"],
        &["rollout", "history", "ds/agent", "--revision=9"],
        &["rollout", "history", "ds/agent", "--revision=1", "-o", "jsonpath={.spec.template.spec.containers[0].image}"],
        &["rollout", "history", "ds/agent", "-o", "name"],
        &["rollout", "history", "sts/db"],
        &["rollout", "undo", "sts/db"],
        &["rollout", "undo", "sts/db", "--to-revision=1"],
        &["rollout", "undo", "ds/agent", "--dry-run=client"],
        &["rollout", "undo", "ds/agent", "--dry-run=server", "-o", "name"],
        &["rollout", "undo", "ds/agent", "--to-revision=9"],
        &["rollout", "undo", "ds/agent", "--to-revision=-2"],
    ];
    for args in steps {
        both(&twins, args);
    }
    // The DaemonSet as it was at each revision, as YAML documents, compared as twins.
    let (ours, theirs) = twins.run_both(&["rollout", "history", "ds/agent", "-o", "yaml"]);
    let documents = |output: &Output, ns: &TestNamespace| -> Vec<Value> {
        let text = String::from_utf8_lossy(&output.stdout).into_owned();
        text.split("---\n").map(|doc| twin_view(support::parse_yaml(doc.as_bytes()), &ns.name)).collect()
    };
    let shown = documents(&ours, &twins.ours);
    assert_eq!(shown, documents(&theirs, &twins.theirs), "history -o yaml");
    let images: Vec<&Value> =
        shown.iter().map(|ds| &ds["spec"]["template"]["spec"]["containers"][0]["image"]).collect();
    assert_eq!(images, ["fluent-bit:2", "fluent-bit:3"], "the DaemonSet at each revision");
    twins.assert_same("ds/agent", "after dry runs and failures");
    // Back to revision 1, then again (skipped), then to 2.
    for args in [
        &["rollout", "undo", "ds/agent"][..],
        &["rollout", "undo", "ds/agent", "--to-revision=1"],
        &["rollout", "undo", "daemonset", "agent", "--to-revision=2"],
        &["rollout", "undo", "sts/db", "--to-revision=1"],
    ] {
        both(&twins, args);
        twins.assert_same("ds/agent", &format!("after {args:?}"));
        twins.assert_same("sts/db", &format!("after {args:?}"));
    }
}

/// A selector that matches nothing: `status`, `restart`, `pause` and `resume` say kubectl's `No
/// resources found in NAMESPACE namespace.` on stderr (the namespace of `-n`, or the context's) and
/// succeed; `history` and `undo` say nothing, as kubectl's.
#[test]
fn a_selector_that_matches_nothing_is_said_as_kubectl_says_it() {
    let ns = TestNamespace::new("rollout-none");
    for verb in ["status", "restart", "pause", "resume", "history", "undo"] {
        for types in ["deployment", "deployment,daemonset"] {
            let args = ["rollout", verb, types, "-l", "app=matches-nothing"];
            let ours = ns.assert_same_as_kubectl(&[&args[..], &["-n", &ns.name]].concat());
            let said = String::from_utf8_lossy(&ours.stderr).into_owned();
            let expected = format!("No resources found in {} namespace.\n", ns.name);
            assert_eq!(said, if matches!(verb, "history" | "undo") { "" } else { expected.as_str() }, "{verb}");
            assert_eq!(ours.status.code(), Some(0));
            ns.assert_same_as_kubectl(&args);
        }
    }
}
