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
