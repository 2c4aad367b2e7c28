//! `kubeupd rollout restart|pause|resume` against a real kube-apiserver, with kubectl as the
//! oracle on twin namespaces: the same output and exit code, the same objects and field
//! ownership (`kubectl-rollout`); the restart time is compared by form, as the tools run apart.

mod support;

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
        (&["rollout", "pause", "deploy/web"], "deployment.apps/web paused\n"),
        (&["rollout", "pause", "deploy/web"], ""),
        (&["rollout", "restart", "deploy/web"], ""),
        (&["rollout", "resume", "deployment", "web"], "deployment.apps/web resumed\n"),
        (&["rollout", "resume", "deploy/web"], ""),
        (&["rollout", "restart", "deploy/web", "cm/settings", "deploy/nope"], "deployment.apps/web restarted\n"),
        (&["rollout", "restart", "ds", "-l", "app=web"], "daemonset.apps/agent restarted\n"),
        (&["rollout", "pause", "ds/agent"], ""),
        (&["rollout", "pause", "deploy/web", "-o", "name"], "deployment.apps/web\n"),
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
