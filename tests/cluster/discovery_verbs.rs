//! `api-resources`, `api-versions` and `cluster-info` against kubectl 1.37 on the same cluster:
//! stdout, stderr and exit codes. Other tests add CustomResourceDefinitions while these run, so
//! the lists compared are those of built-in groups.
use std::process::{Command, Output};

use crate::support::{self, assert_same_output};

fn run(program: &str, args: &[&str]) -> Output {
    let program = match program {
        "kubeupd" => assert_cmd::cargo::cargo_bin("kubeupd"),
        other => other.into(),
    };
    let cache = tempfile::tempdir().unwrap();
    Command::new(program)
        .arg("--kubeconfig")
        .arg(support::kubeconfig())
        .arg("--cache-dir")
        .arg(cache.path())
        .args(args)
        .env_remove("KUBECONFIG")
        .output()
        .unwrap()
}

fn assert_same(args: &[&str]) {
    let (ours, theirs) = (run("kubeupd", args), run("kubectl", args));
    assert_same_output(&ours, &theirs, &args.join(" "));
}

#[test]
fn api_resources_lists_what_kubectl_lists() {
    for line in [
        "api-resources --api-group=apps",
        "api-resources --api-group=",
        "api-resources --api-group= -o wide",
        "api-resources --api-group=rbac.authorization.k8s.io -o name",
        "api-resources --api-group=storage.k8s.io --namespaced=false --no-headers",
        "api-resources --api-group=apps --sort-by=kind",
        "api-resources --api-group= --sort-by=name --verbs=list,create",
        "api-resources --api-group= --categories=all",
        "api-resources --api-group=batch --namespaced",
        "api-resources --api-group=no.such.group",
        "api-resources --api-group=apps --cached",
        "api-resources -o bogus",
        "api-resources --sort-by=size",
        "api-resources extra",
    ] {
        assert_same(&line.split(' ').collect::<Vec<_>>());
    }
}

#[test]
fn api_versions_lists_what_kubectl_lists() {
    // The built-in groups (custom groups of other tests come and go).
    let built_in = |output: &Output| -> String {
        String::from_utf8_lossy(&output.stdout)
            .lines()
            .filter(|line| {
                let group = line.split('/').next().unwrap_or_default();
                !line.contains('/') || !group.contains('.') || group.ends_with(".k8s.io")
            })
            .map(|line| format!("{line}\n"))
            .collect()
    };
    let (ours, theirs) = (run("kubeupd", &["api-versions"]), run("kubectl", &["api-versions"]));
    assert_eq!((ours.status.code(), built_in(&ours)), (theirs.status.code(), built_in(&theirs)));
    assert!(built_in(&ours).contains("apps/v1\n") && built_in(&ours).starts_with("admissionregistration.k8s.io/"));
    assert_same(&["api-versions", "extra"]);
}

#[test]
fn cluster_info_prints_kubectls_lines() {
    assert_same(&["cluster-info"]);
    assert_same(&["cluster-info", "-n", "default"]);
    // No server there: kubectl's closing line, then the error.
    let (ours, theirs) = (
        run("kubeupd", &["cluster-info", "--server=https://127.0.0.1:1", "--insecure-skip-tls-verify"]),
        run("kubectl", &["cluster-info", "--server=https://127.0.0.1:1", "--insecure-skip-tls-verify"]),
    );
    assert_eq!((ours.status.code(), &ours.stdout), (theirs.status.code(), &theirs.stdout));
}
