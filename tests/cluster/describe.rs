//! `kubeupd describe` against kubectl 1.37 on the same objects: the describers of the kinds
//! scripts describe (on the cluster with nodes, where workloads become Ready and controllers
//! write events), the generic describer of custom resources, name prefixes, selectors, files,
//! `all`, and kubectl's errors and exit codes. Each case runs kubectl, kubeupd, then kubectl
//! again: ages (events, pods) may tick in between and are masked.

use crate::support;

use support::{TestNamespace, ensure_cluster_fixture, testdata};

/// A namespace on the cluster with nodes holding `testdata/describe/app.yaml` and `more.yaml`,
/// its workloads rolled out and its Job complete.
fn app() -> TestNamespace {
    let ns = TestNamespace::with_nodes("describe");
    ns.apply_testdata("describe/app.yaml");
    ns.apply_testdata("describe/more.yaml");
    let n = ns.name.as_str();
    ns.kubectl_ok(&["wait", "--for=condition=Available", "--timeout=90s", "deployment/web", "-n", n]);
    ns.kubectl_ok(&["wait", "--for=condition=Complete", "--timeout=90s", "job/once", "-n", n]);
    ns.kubectl_ok(&["rollout", "status", "--timeout=90s", "statefulset/db", "-n", n]);
    ns.kubectl_ok(&["rollout", "status", "--timeout=90s", "daemonset/agent", "-n", n]);
    ns
}

fn assert_cases(ns: &TestNamespace, cases: &[Vec<&str>]) {
    for args in cases {
        let args: Vec<&str> = [&["-n", ns.name.as_str()][..], args].concat();
        ns.assert_same_as_kubectl(&args);
    }
}

#[test]
fn workloads_and_their_objects_match_kubectl() {
    let ns = app();
    let pod = ns.kubectl_ok(&["get", "pods", "-l", "app=web", "-o", "name", "-n", &ns.name]);
    let pod = pod.lines().next().expect("a pod of web").to_string();
    let file = testdata("describe/app.yaml");
    let file = file.to_str().unwrap();
    assert_cases(
        &ns,
        &[
            vec!["describe", "deployment", "web"],
            vec!["describe", &pod],
            vec!["describe", "pods"],
            vec!["describe", "pods", "-l", "app=web", "--show-events"],
            vec!["describe", "replicasets"],
            vec!["describe", "service", "web"],
            vec!["describe", "svc/lonely"],
            vec!["describe", "configmap", "settings"],
            vec!["describe", "secret", "creds"],
            vec!["describe", "serviceaccount", "builder"],
            vec!["describe", "job", "once"],
            vec!["describe", "resourcequota"],
            vec!["describe", "limitrange", "limits"],
            vec!["describe", "statefulset", "db"],
            vec!["describe", "daemonset", "agent"],
            vec!["describe", "cronjob", "nightly"],
            vec!["describe", "ingress", "front"],
            vec!["describe", "pvc", "data"],
            vec!["describe", "pod", "db-0"],
            vec!["describe", "-f", file],
            vec!["describe", "deploy", "web", "--show-events=false"],
            vec!["describe", "configmaps", "--chunk-size=1"],
            // A name prefix: every pod of web, each followed by a blank line.
            vec!["describe", "pods", "web-"],
            vec!["describe", "all"],
        ],
    );
    let namespace = ["describe", "namespace", ns.name.as_str()];
    ns.assert_same_as_kubectl(&namespace);
}

/// The status the autoscaler controller would write for `testdata/describe/hpa.yaml`'s `web`:
/// current values for its first five metrics (the others unknown), replicas and conditions.
const HPA_STATUS: &str = r#"{"status": {"currentReplicas": 3, "desiredReplicas": 4, "currentMetrics": [
  {"type": "Resource", "resource": {"name": "cpu", "current": {"averageUtilization": 75, "averageValue": "75m"}}},
  {"type": "Resource", "resource": {"name": "memory", "current": {"averageValue": "300Mi"}}},
  {"type": "ContainerResource", "containerResource": {"name": "cpu", "container": "app", "current": {"averageUtilization": 40, "averageValue": "40m"}}},
  {"type": "Pods", "pods": {"metric": {"name": "packets-per-second"}, "current": {"averageValue": "800"}}},
  {"type": "Object", "object": {"metric": {"name": "requests-per-second"},
    "describedObject": {"apiVersion": "networking.k8s.io/v1", "kind": "Ingress", "name": "main"}, "current": {"value": "12k"}}}],
  "conditions": [
  {"type": "AbleToScale", "status": "True", "reason": "ReadyForNewScale", "message": "recommended size matches current size",
   "lastTransitionTime": "2026-01-02T03:04:05Z"},
  {"type": "ScalingActive", "status": "True", "reason": "ValidMetricFound",
   "message": "the HPA was able to successfully calculate a replica count from cpu resource utilization (percentage of request)",
   "lastTransitionTime": "2026-01-02T03:04:05Z"},
  {"type": "ScalingLimited", "status": "False", "reason": "DesiredWithinRange", "message": "the desired count is within the acceptable range",
   "lastTransitionTime": "2026-01-02T03:04:05Z"}]}}"#;

#[test]
fn horizontal_pod_autoscalers_match_kubectl() {
    let ns = TestNamespace::new("describe-hpa");
    ns.apply_testdata("describe/hpa.yaml");
    let n = ns.name.as_str();
    // The test plays the autoscaler controller (none runs here): its status and an event.
    ns.kubectl_ok(&["patch", "hpa", "web", "-n", n, "--subresource=status", "--type=merge", "-p", HPA_STATUS]);
    let uid = ns.kubectl_ok(&["get", "hpa", "web", "-n", n, "-o", "jsonpath={.metadata.uid}"]);
    ns.apply(&format!(
        "apiVersion: v1\nkind: Event\nmetadata: {{name: web.rescale}}\n\
         involvedObject: {{kind: HorizontalPodAutoscaler, apiVersion: autoscaling/v2, name: web, namespace: {n}, uid: {uid}}}\n\
         type: Normal\nreason: SuccessfulRescale\nmessage: \"New size: 4; reason: cpu resource utilization (percentage of request) above target\"\n\
         firstTimestamp: \"2026-01-02T03:04:05Z\"\nlastTimestamp: \"2026-01-02T03:04:05Z\"\ncount: 1\n\
         source: {{component: horizontal-pod-autoscaler}}\n"
    ));
    assert_cases(
        &ns,
        &[
            vec!["describe", "hpa", "web"],
            vec!["describe", "hpa", "plain"],
            vec!["describe", "horizontalpodautoscaler", "bare"],
            // Read as autoscaling/v2 whatever version is named, as kubectl reads it.
            vec!["describe", "horizontalpodautoscalers.v1.autoscaling", "plain"],
            vec!["describe", "hpa"],
            vec!["describe", "hpa/web", "--show-events=false"],
            vec!["describe", "all"],
        ],
    );
}

#[test]
fn custom_resources_get_the_generic_description() {
    let ns = TestNamespace::new("describe-crd");
    ensure_cluster_fixture(&ns, "crd/gadgets.yaml");
    ns.apply(
        "apiVersion: get.kubeupd.test/v1\nkind: Gadget\nmetadata: {name: sprocket, labels: {a: b}}\n\
         spec: {size: 3, ratio: 1.5, colorName: blue, apiURL: x, tags: [a, b], parts: [{name: gear, count: 2}], \
         nested: {deeper: {flag: true, none: null}}, empty: {}}\n",
    );
    assert_cases(
        &ns,
        &[
            vec!["describe", "gadget", "sprocket"],
            vec!["describe", "gadgets"],
            vec!["describe", "gdg", "spr"],
            vec!["describe", "crd", "gadgets.get.kubeupd.test"],
            vec!["describe", "serviceaccounts"],
        ],
    );
}

#[test]
fn errors_and_exit_codes_match_kubectl() {
    let ns = TestNamespace::new("describe-errors");
    ns.apply("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: one}\n");
    let empty = TestNamespace::new("describe-empty");
    let cases: Vec<Vec<&str>> = vec![
        vec!["describe"],
        vec!["describe", "pod", "nope"],
        vec!["describe", "pods", "nope", "other"],
        vec!["describe", "configmap/nope", "configmap/one"],
        vec!["describe", "configmap", "one", "-l", "a=b"],
        vec!["describe", "nonsense"],
        vec!["describe", "configmaps", "-l", "none=here"],
        // A prefix nothing starts with: the first error stands.
        vec!["describe", "configmap", "zz"],
    ];
    assert_cases(&ns, &cases);
    for args in
        [vec!["describe", "pods", "-n", empty.name.as_str()], vec!["describe", "secrets", "-A", "-l", "none=here"]]
    {
        let output = ns.assert_same_as_kubectl(&args);
        assert!(output.status.success(), "{args:?}");
    }
}
