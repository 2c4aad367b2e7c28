//! `kubeupd scale` against a real kube-apiserver, with kubectl as the oracle on twin namespaces:
//! the same output and exit code, the same replica counts, the same field ownership.

use crate::support;

use std::process::Output;

use support::{Twins, assert_same_output, testdata};

const STATEFUL_SET: &str = "apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db, labels: {app: web}}
spec:
  replicas: 1
  serviceName: db
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec: {containers: [{name: db, image: postgres:16}]}
";

fn twins(prefix: &str) -> Twins {
    Twins::with_objects(prefix, &["patch/app.yaml"], &[STATEFUL_SET])
}

/// `kubeupd ARGS` in ours and `kubectl ARGS` in theirs: the same output and exit code.
fn both(twins: &Twins, args: &[&str]) -> Output {
    twins.assert_both(args).0
}

fn assert_same_objects(twins: &Twins, context: &str) -> (i64, i64) {
    let web = twins.assert_same("deploy/web", context);
    let db = twins.assert_same("statefulset/db", context);
    (web["spec"]["replicas"].as_i64().unwrap(), db["spec"]["replicas"].as_i64().unwrap())
}

#[test]
fn scaling_matches_kubectl() {
    let twins = twins("scale");
    let steps: &[(&[&str], &str, (i64, i64))] = &[
        (&["scale", "deploy", "web", "--replicas=5"], "deployment.apps/web scaled\n", (5, 1)),
        (
            &["scale", "deploy/web", "statefulset/db", "--replicas=2"],
            "deployment.apps/web scaled\nstatefulset.apps/db scaled\n",
            (2, 2),
        ),
        (&["scale", "deploy", "web", "--replicas=0", "--current-replicas=2"], "deployment.apps/web scaled\n", (0, 2)),
        (
            &["scale", "deploy,sts", "-l", "app=web", "--replicas=4"],
            "deployment.apps/web scaled\nstatefulset.apps/db scaled\n",
            (4, 4),
        ),
        (&["scale", "sts", "--all", "--replicas=3"], "statefulset.apps/db scaled\n", (4, 3)),
        (
            &["scale", "deploy", "web", "--replicas=1", "--dry-run=client"],
            "deployment.apps/web scaled (dry run)\n",
            (4, 3),
        ),
        (
            &["scale", "deploy", "web", "--replicas=1", "--dry-run=server"],
            "deployment.apps/web scaled (server dry run)\n",
            (4, 3),
        ),
        (&["scale", "deploy", "web", "--replicas=1", "-o", "name"], "deployment.apps/web\n", (1, 3)),
    ];
    let app = testdata("patch/app.yaml");
    // The file's config map and service have no scale subresource: they fail, the deployment scales.
    let from_file: &[&str] = &["scale", "-f", app.to_str().unwrap(), "--replicas=6"];
    let steps = steps.iter().copied().chain([(from_file, "deployment.apps/web scaled\n", (6, 3))]);
    for (args, expected, replicas) in steps {
        let out = both(&twins, args);
        assert_eq!(String::from_utf8_lossy(&out.stdout), expected, "{args:?}");
        assert_eq!(assert_same_objects(&twins, &format!("after {args:?}")), replicas, "{args:?}");
    }
}

#[test]
fn failures_match_kubectl() {
    let twins = twins("scale-fail");
    for args in [
        &["scale", "deploy", "web", "--replicas=2", "--current-replicas=7"][..],
        &["scale", "cm/settings", "deploy/web", "--replicas=3"],
        &["scale", "deploy/nope", "cm/settings", "deploy/web", "--replicas=3"],
        &["scale", "deploy", "-l", "app=none", "--replicas=3"],
        &["scale", "deploy,sts", "--all", "--replicas=3", "--resource-version=1"],
        &["scale", "deploy/web", "deploy/nope", "--replicas=2"],
        &["scale", "deploy/nope", "deploy/gone", "--replicas=2"],
        &["scale", "cm", "settings", "--replicas=1"],
        &["scale", "foos", "x", "--replicas=1"],
        // Without --replicas (kubectl 1.32 worded it as `error: ...` or as a klog line, from one run
        // to the next; 1.37 always as `error: ...`).
        &["scale", "deploy", "web"],
        &["scale", "deploy", "web", "--replicas=-1"],
        &["scale", "--replicas=1"],
        &["scale", "deploy", "--replicas=1"],
    ] {
        both(&twins, args);
        assert_same_objects(&twins, &format!("after {args:?}"));
    }
    let (web, _) = assert_same_objects(&twins, "after the failures");
    assert_eq!(web, 2, "the one object that exists was scaled");
}

const STALE: &[&str] = &["scale", "deploy", "web", "--replicas=2", "--resource-version=1"];

#[test]
fn a_matching_resource_version_lets_the_scale_through() {
    let twins = twins("scale-version");
    let version = |ns: &support::TestNamespace| {
        ns.kubectl_ok(&["get", "deploy", "web", "-n", &ns.name, "-o", "jsonpath={.metadata.resourceVersion}"])
    };
    let ours = twins
        .ours
        .kubeupd()
        .args(["-n", &twins.ours.name, "scale", "deploy", "web", "--replicas=7"])
        .arg(format!("--resource-version={}", version(&twins.ours)))
        .output()
        .unwrap();
    let theirs = twins
        .theirs
        .kubectl()
        .args(["-n", &twins.theirs.name, "scale", "deploy", "web", "--replicas=7"])
        .arg(format!("--resource-version={}", version(&twins.theirs)))
        .output()
        .unwrap();
    assert_same_output(&ours, &theirs, "scale with the current version");
    assert_eq!(assert_same_objects(&twins, "after the guarded scale").0, 7);

    // A stale version: each tool names the version it found, and nothing changes.
    for (ns, output) in [
        (&twins.ours, twins.ours.kubeupd().args(["-n", &twins.ours.name]).args(STALE).output().unwrap()),
        (&twins.theirs, twins.theirs.kubectl().args(["-n", &twins.theirs.name]).args(STALE).output().unwrap()),
    ] {
        assert_eq!(output.status.code(), Some(1));
        assert_eq!(
            String::from_utf8_lossy(&output.stderr),
            format!("error: Expected resource version to be 1, was {}\n", version(ns))
        );
    }
    assert_eq!(assert_same_objects(&twins, "after the stale scale").0, 7);
}

/// `--timeout` waits for the scale's status, kubectl's way: with no controller running, the wait
/// runs out in kubectl's words; once the test, playing the controller, reports the replicas
/// running, the same command ends at once.
#[test]
fn timeout_waits_for_the_replicas_as_kubectl_waits() {
    let twins = twins("scale-timeout");
    let (ours, theirs) = twins.run_both(&["scale", "deploy/web", "--replicas=2", "--timeout=2s"]);
    // kubectl's words depend on where its deadline falls: between two polls it says the first
    // line; during a poll's wait for its client-side rate limiter, the second (seen on a loaded
    // CI machine). kubeupd always says the first, kubectl's usual one.
    const TIMED_OUT: &str = "error: timed out waiting for \"web\" to be synced\n";
    const RATE_LIMITED: &str =
        "error: client rate limiter Wait returned an error: rate: Wait(n=1) would exceed context deadline\n";
    assert_eq!((ours.status.code(), theirs.status.code()), (Some(1), Some(1)), "timed out: exit codes");
    assert_eq!((ours.stdout.as_slice(), theirs.stdout.as_slice()), (&b""[..], &b""[..]), "timed out: stdout");
    assert_eq!(String::from_utf8_lossy(&ours.stderr), TIMED_OUT);
    let kubectl_said = String::from_utf8_lossy(&theirs.stderr);
    assert!(kubectl_said == TIMED_OUT || kubectl_said == RATE_LIMITED, "kubectl said {kubectl_said:?}");
    for ns in [&twins.ours, &twins.theirs] {
        let status = r#"{"status":{"replicas":2}}"#;
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
    let out = both(&twins, &["scale", "deploy/web", "--replicas=2", "--timeout=30s"]);
    assert_eq!(String::from_utf8_lossy(&out.stdout), "deployment.apps/web scaled\n");
    both(&twins, &["scale", "deploy/web", "--replicas=1", "--timeout=1s", "--dry-run=server"]);
    assert_same_objects(&twins, "after the waits");
}
