//! The checks before the first write, on the real apiserver: duplicate entries of keyed lists the
//! server would refuse and changes to fields the server does not let change are refused with the
//! file, document and field, and nothing of the input is written (kubectl writes the objects before
//! the bad one, then fails on it).
use crate::support;

use serde_json::Value;
use support::{TestNamespace, Twins, parse_json};

fn apply(namespace: &TestNamespace, args: &[&str], input: &str) -> std::process::Output {
    let mut command = namespace.kubeupd();
    command.args(["-n", &namespace.name, "apply"]).args(args).args(["-f", "-"]).write_stdin(input.to_string());
    command.output().unwrap()
}

/// `kubectl -n NAMESPACE apply ARGS -f -` of `input`.
fn kubectl_apply(namespace: &TestNamespace, args: &[&str], input: &str) -> std::process::Output {
    let mut command = namespace.kubectl();
    command.args(["-n", &namespace.name, "apply"]).args(args).args(["-f", "-"]);
    support::with_stdin(&mut command, input)
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn live(namespace: &TestNamespace, what: &str) -> Value {
    parse_json(namespace.kubectl_ok(&["get", what, "-n", &namespace.name, "-o", "json"]).as_bytes())
}

fn configmap(name: &str, value: &str) -> String {
    format!("apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: {name}}}\ndata: {{v: \"{value}\"}}\n")
}

fn deployment(labels: &str, env: &str) -> String {
    format!(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: web}}\nspec:\n  selector: {{matchLabels: {labels}}}\n  template:\n    metadata: {{labels: {labels}}}\n    spec: {{containers: [{{name: app, image: nginx, env: {env}}}]}}\n"
    )
}

/// Two env entries `A`. Applied server-side, the server refuses them (kubectl 1.37 writes the
/// documents before, then fails on the server's `duplicate entries for key`): kubeupd refuses them
/// before anything is written. Applied client-side, a server that checks fields itself (1.25 and
/// later) keeps both with a warning, as kubectl 1.37 lets it, and kubeupd does as kubectl does, on
/// twins; on one that cannot (1.20), which keeps one of them, kubeupd refuses them on the client.
#[test]
fn duplicate_entries_are_refused_before_anything_is_written() {
    let twins = Twins::new("checks-dup");
    let input = [configmap("first", "1"), deployment("{app: web}", "[{name: A, value: '1'}, {name: A, value: '2'}]")]
        .join("---\n");
    let refusal = "error: error validating \"STDIN\" (document 2): error validating data: \
                   ValidationError(Deployment.spec.template.spec.containers[0].env): duplicate entries for key \
                   [name=\"A\"]; if you choose to ignore these errors, turn validation off with --validate=false\n";
    let output = apply(&twins.ours, &["--server-side"], &input);
    assert_eq!(output.status.code(), Some(1), "{}", text(&output.stderr));
    // A server that checks fields refuses them in its words, to the dry run sent before any write.
    let refused_server_side = if support::server_checks_fields() {
        format!(
            "error: when applying STDIN (document 2): Error from server: failed to create typed patch object \
             ({}/web; apps/v1, Kind=Deployment): .spec.template.spec.containers[name=\"app\"].env: duplicate entries \
             for key [name=\"A\"]\n",
            twins.ours.name
        )
    } else {
        refusal.to_string()
    };
    assert_eq!(text(&output.stderr), refused_server_side);
    let listed = twins.ours.kubectl_ok(&["get", "configmaps,deployments", "-n", &twins.ours.name, "-o", "name"]);
    assert!(!listed.contains("configmap/first") && !listed.contains("deployment"), "{listed}");
    // kubectl refuses them too: on the client where the server cannot check fields (1.20), else
    // from the server, after writing the ConfigMap (1.37), which goes before the next step.
    let theirs = kubectl_apply(&twins.theirs, &["--server-side"], &input);
    assert_eq!(theirs.status.code(), Some(1));
    assert!(text(&theirs.stderr).contains("duplicate entries for key [name=\"A\"]"), "{}", text(&theirs.stderr));
    twins.theirs.kubectl_ok(&["delete", "configmap/first", "--ignore-not-found", "-n", &twins.theirs.name]);

    let ours = apply(&twins.ours, &[], &input);
    if support::server_checks_fields() {
        // The server's warning, as kubectl shows it; then the same objects and ownership.
        let theirs = kubectl_apply(&twins.theirs, &[], &input);
        assert!(theirs.status.success(), "{}", text(&theirs.stderr));
        assert!(ours.status.success(), "{}", text(&ours.stderr));
        assert_eq!(text(&ours.stdout), text(&theirs.stdout));
        let warning = text(&theirs.stderr);
        assert!(warning.contains("hides previous definition of \"A\""), "{warning}");
        assert!(text(&ours.stderr).starts_with(&warning), "{}", text(&ours.stderr));
        twins.assert_same("deployment/web", "applied with the repeated key");
        twins.assert_same("configmap/first", "applied before it");
        let warned = apply(&twins.ours, &["--validate=warn"], &input);
        assert!(warned.status.success(), "{}", text(&warned.stderr));
    } else {
        // A server that cannot check keeps one of them, silently: kubeupd refuses them, as kubectl
        // 1.32 did (1.37 lets them through to a server it does not support).
        assert_eq!(ours.status.code(), Some(1));
        assert_eq!(text(&ours.stderr), refusal);
        let warned = apply(&twins.ours, &["--validate=warn"], &input);
        assert!(warned.status.success(), "{}", text(&warned.stderr));
        assert!(text(&warned.stderr).contains("duplicate entries for key [name=\"A\"]"), "{}", text(&warned.stderr));
    }
}

#[test]
fn changes_to_immutable_fields_are_refused_before_anything_is_written() {
    let namespace = TestNamespace::new("checks-immutable");
    let job = |image: &str| {
        format!(
            "apiVersion: batch/v1\nkind: Job\nmetadata: {{name: once}}\nspec:\n  template:\n    spec: {{restartPolicy: Never, containers: [{{name: a, image: {image}}}]}}\n"
        )
    };
    // The port's protocol written out: a 1.20 server's server-side apply refuses a port without
    // it (its list key), which would hide the change of clusterIP.
    let service = |ip: &str| {
        format!(
            "apiVersion: v1\nkind: Service\nmetadata: {{name: web}}\nspec: {{clusterIP: {ip}, ports: [{{port: 80, protocol: TCP}}]}}\n"
        )
    };
    let frozen = |value: &str| {
        format!(
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: frozen}}\nimmutable: true\ndata: {{v: \"{value}\"}}\n"
        )
    };
    let before = [
        configmap("other", "1"),
        deployment("{app: web}", "[]"),
        job("busybox:1"),
        service("10.0.200.10"),
        frozen("1"),
    ];
    assert!(apply(&namespace, &[], &before.join("---\n")).status.success());
    // What kubeupd finds, and the server's words for it that kubectl prints (scripts grep them).
    let cases = [
        (
            deployment("{app: web, v: '2'}", "[]"),
            "deployment.apps/web: spec.selector cannot change",
            "field is immutable",
        ),
        (job("busybox:2"), "job.batch/once: spec.template cannot change", "field is immutable"),
        (
            service("10.0.200.11"),
            "service/web: spec.clusterIP cannot change (live \"10.0.200.10\", here \"10.0.200.11\")",
            // (1.20 writes the value as Go's `[]string{...}`, 1.37 as JSON.)
            "may not change once set",
        ),
        (frozen("2"), "configmap/frozen: data cannot change", "Forbidden: field is immutable when `immutable` is set"),
    ];
    for (changed, expected, servers_words) in cases {
        let theirs = text(&kubectl_apply(&namespace, &[], &changed).stderr);
        assert!(theirs.contains(servers_words), "kubectl prints the server's words: {theirs}");
        for mode in [&[][..], &["--server-side"]] {
            let output = apply(&namespace, mode, &[configmap("other", "2"), changed.clone()].join("---\n"));
            let message = text(&output.stderr);
            assert_eq!(output.status.code(), Some(1), "{expected}: {message}");
            assert!(
                message.starts_with("error: when applying STDIN (document 2): ")
                    && message.contains(servers_words)
                    && message.contains(expected)
                    && message.contains(
                        "apply with --replace-immutable, or annotate it argocd.argoproj.io/sync-options: Replace=true"
                    ),
                "{mode:?}: {message}"
            );
            assert_eq!(live(&namespace, "configmap/other")["data"]["v"], "1", "{expected}: nothing was written");
        }
    }
    let forced = apply(&namespace, &["--force"], &deployment("{app: web, v: '2'}", "[]"));
    assert!(forced.status.success(), "{}", text(&forced.stderr));
    assert_eq!(live(&namespace, "deployment/web")["spec"]["selector"]["matchLabels"]["v"], "2");
}
