//! Rollouts that cannot finish, on the cluster with nodes (kwok's fake nodes, the scheduler and
//! the workload controllers; images under `kubeupd.invalid/fail/` fail as a kubelet reports it):
//! `apply --wait-ready` and `wait --for=ready` end with exit 1 as soon as a pod of the rollout
//! fails, naming the workload, the pod, the reason and the kubelet's message, long before their
//! `--timeout` of two minutes; a Job fails on its `Failed` condition. And `wait --for` given
//! several times on workloads that really roll out, compared with kubectl 1.37.
use crate::support;

use std::process::Output;

use support::{TestNamespace, Twins};

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn deployment(image: &str) -> String {
    format!(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: web}}\nspec:\n  replicas: 2\n  \
         selector: {{matchLabels: {{app: web}}}}\n  template:\n    metadata: {{labels: {{app: web}}}}\n    \
         spec:\n      containers: [{{name: app, image: \"{image}\"}}]\n"
    )
}

/// `kubeupd apply --wait-ready --timeout=120s -f -` of `yaml` in `namespace`.
fn apply_wait(namespace: &TestNamespace, yaml: &str) -> Output {
    let args = ["apply", "-n", &namespace.name, "--wait-ready", "--timeout=120s", "-f", "-"];
    let output = namespace.kubeupd().args(args).write_stdin(yaml.to_string()).output().expect("kubeupd runs");
    eprintln!("apply: exit {:?}\n{}\n{}", output.status.code(), text(&output.stdout), text(&output.stderr));
    output
}

/// Asserts that the wait ended with exit 1 on the failure of `object`, before the time ran out,
/// with a single line that ends with `reason` (the pod named first when `pod` is given, as
/// `pod NAME: ` with NAME starting with `pod`), and returns that line.
fn assert_failed(output: &Output, object: &str, pod: Option<&str>, reason: &str) -> String {
    assert_eq!(output.status.code(), Some(1), "{}", text(&output.stderr));
    let stderr = text(&output.stderr);
    assert!(!stderr.contains("after 2m0s"), "the wait ran out of time instead of failing: {stderr}");
    let line = stderr.lines().last().unwrap_or_default().to_string();
    let prefix = format!("error: {object} failed after ");
    assert!(line.starts_with(&prefix), "{stderr}");
    assert!(line.ends_with(reason), "{line}\ndoes not end with\n{reason}");
    if let Some(pod) = pod {
        assert!(line.contains(&format!(": pod {pod}")), "{line} names no pod {pod}...");
    }
    line
}

#[test]
fn a_deployment_whose_new_image_cannot_be_pulled_fails_the_wait_at_once() {
    let namespace = TestNamespace::with_nodes("fail-pull");
    let first = apply_wait(&namespace, &deployment("nginx:1.27"));
    assert!(first.status.success(), "{}", text(&first.stderr));
    assert!(text(&first.stdout).contains("deployment.apps/web ready after "), "{}", text(&first.stdout));

    let image = "kubeupd.invalid/fail/image-pull:1";
    let output = apply_wait(&namespace, &deployment(image));
    assert!(text(&output.stdout).starts_with("deployment.apps/web configured\n"), "{}", text(&output.stdout));
    let reason = format!("container app: ImagePullBackOff: Back-off pulling image \"{image}\"");
    let line = assert_failed(&output, "deployment.apps/web", Some("web-"), &reason);
    // The pod named is one of the newest ReplicaSet's, not of the one that is running.
    let n = namespace.name.as_str();
    let pod = line.split(": pod ").nth(1).and_then(|rest| rest.split(':').next()).unwrap();
    let image_of = namespace.kubectl_ok(&["get", "pod", pod, "-n", n, "-o", "jsonpath={.spec.containers[0].image}"]);
    assert_eq!(image_of, image);

    // wait --for=ready says the same of the Deployment as it is now.
    let wait = namespace.kubeupd().args(["wait", "-n", n, "deploy/web", "--timeout=120s"]).output().unwrap();
    assert_failed(&wait, "deployment.apps/web", Some("web-"), &reason);
    // A fixed image rolls out: the wait ends ready.
    let fixed = apply_wait(&namespace, &deployment("nginx:1.28"));
    assert!(fixed.status.success(), "{}", text(&fixed.stderr));
}

#[test]
fn a_deployment_in_a_crash_loop_or_without_its_config_fails_the_wait() {
    let namespace = TestNamespace::with_nodes("fail-crash");
    let output = apply_wait(&namespace, &deployment("kubeupd.invalid/fail/crash-loop:1"));
    let line = assert_failed(&output, "deployment.apps/web", Some("web-"), "");
    assert!(
        line.contains(": container app: CrashLoopBackOff: back-off 10s restarting failed container=app pod=web-"),
        "{line}"
    );

    let output = apply_wait(&namespace, &deployment("kubeupd.invalid/fail/config:1"));
    let reason = "container app: CreateContainerConfigError: configmap \"missing\" not found";
    assert_failed(&output, "deployment.apps/web", Some("web-"), reason);
}

#[test]
fn a_job_that_fails_and_other_workloads_whose_pods_fail_fail_the_wait() {
    let namespace = TestNamespace::with_nodes("fail-job");
    let job = |name: &str, image: &str| {
        format!(
            "apiVersion: batch/v1\nkind: Job\nmetadata: {{name: {name}}}\nspec:\n  backoffLimit: 0\n  template:\n    \
             spec:\n      restartPolicy: Never\n      containers: [{{name: app, image: \"{image}\"}}]\n"
        )
    };
    // Its pod exits 1: the Job controller gives up after backoffLimit and sets Failed.
    let output = apply_wait(&namespace, &job("exits", "kubeupd.invalid/fail/exit-1:1"));
    assert_failed(&output, "job.batch/exits", None, ": Failed: Job has reached the specified backoff limit");
    // kubectl's wait has no way to stop on it; --fail-on does.
    let n = namespace.name.as_str();
    let args =
        ["wait", "-n", n, "job/exits", "--for=condition=Complete", "--fail-on=condition=Failed", "--timeout=120s"];
    let wait = namespace.kubeupd().args(args).output().unwrap();
    let reason = ": --fail-on=condition=Failed met: BackoffLimitExceeded: Job has reached the specified backoff limit";
    assert_failed(&wait, "job.batch/exits", None, reason);
    // Its pod cannot pull its image: the Job would wait forever.
    let image = "kubeupd.invalid/fail/image-pull:1";
    let output = apply_wait(&namespace, &job("pulls", image));
    let reason = format!("container app: ImagePullBackOff: Back-off pulling image \"{image}\"");
    assert_failed(&output, "job.batch/pulls", Some("pulls-"), &reason);

    let set = format!(
        "apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {{name: db}}\nspec:\n  replicas: 1\n  serviceName: db\n  \
         selector: {{matchLabels: {{app: db}}}}\n  template:\n    metadata: {{labels: {{app: db}}}}\n    \
         spec:\n      containers: [{{name: db, image: \"{image}\"}}]\n"
    );
    let output = apply_wait(&namespace, &set);
    let reason = format!("pod db-0: container db: ImagePullBackOff: Back-off pulling image \"{image}\"");
    assert_failed(&output, "statefulset.apps/db", None, &reason);

    let daemons = "apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: agent}\nspec:\n  \
         selector: {matchLabels: {app: agent}}\n  template:\n    metadata: {labels: {app: agent}}\n    \
         spec:\n      containers: [{name: agent, image: \"kubeupd.invalid/fail/crash-loop:1\"}]\n";
    let output = apply_wait(&namespace, daemons);
    let line = assert_failed(&output, "daemonset.apps/agent", Some("agent-"), "");
    assert!(
        line.contains(": container agent: CrashLoopBackOff: back-off 10s restarting failed container=agent"),
        "{line}"
    );
}

/// `--for` given several times on a Deployment that really rolls out: kubectl 1.37's lines.
#[test]
fn repeated_for_on_a_real_rollout_matches_kubectl() {
    let twins = Twins::with_nodes("fail-for");
    for namespace in [&twins.ours, &twins.theirs] {
        namespace.apply(&deployment("nginx:1.27"));
    }
    for args in [
        &[
            "wait",
            "deploy/web",
            "--for=condition=Available",
            "--for=jsonpath={.status.readyReplicas}=2",
            "--timeout=60s",
        ][..],
        &[
            "wait",
            "deploy/web",
            "--for=create",
            "--for=condition=Progressing",
            "--for=condition=Available",
            "--timeout=60s",
        ],
        &["wait", "deploy/web", "--for=condition=Available", "--for=condition=Available=false", "--timeout=2s"],
    ] {
        let (ours, theirs) = twins.run_both(args);
        twins.assert_same_output(&ours, &theirs, &format!("{args:?}"));
    }
}
