//! kubectl's preferences file (kuberc) against kubectl 1.37, which reads it (1.32 predates it):
//! the same file through both tools on twin namespaces gives the same output and the same objects.
use crate::support;

use std::process::Output;

use support::{Twins, assert_same_output};

const KUBERC: &str = "
apiVersion: kubectl.config.k8s.io/v1beta1
kind: Preference
defaults:
- command: apply
  options:
  - name: server-side
    default: \"true\"
- command: get
  options:
  - name: output
    default: name
aliases:
- name: getweb
  command: get
  prependArgs: [configmaps]
  options:
  - name: selector
    default: tier=web
";

const CONFIGMAPS: &str = "
apiVersion: v1
kind: ConfigMap
metadata: {name: one, labels: {tier: web}}
data: {a: \"1\"}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: two, labels: {tier: db}}
";

/// Runs `args` with the kuberc file through kubectl 1.37 on theirs and kubeupd on ours (each in
/// its namespace) and requires the same exit code and stdout; returns both outputs (kubeupd's
/// first). Stderr differs where docs/differences.md says (apply's summary line).
fn both(twins: &Twins, kuberc: &std::path::Path, args: &[&str], stdin: &str) -> (Output, Output) {
    let theirs = support::with_stdin(
        twins
            .theirs
            .kubectl_by_env()
            .env("KUBERC", kuberc)
            .env("KUBECTL_KUBERC", "true")
            .args(args)
            .args(["-n", &twins.theirs.name]),
        stdin,
    );
    let ours = twins
        .ours
        .kubeupd()
        .env("KUBERC", kuberc)
        .args(args)
        .args(["-n", &twins.ours.name])
        .write_stdin(stdin)
        .output()
        .unwrap();
    assert_eq!(
        (ours.status.code(), String::from_utf8_lossy(&ours.stdout).into_owned()),
        (theirs.status.code(), String::from_utf8_lossy(&theirs.stdout).into_owned()),
        "{args:?}: kubeupd (left) differs from kubectl (right); kubeupd said {}",
        String::from_utf8_lossy(&ours.stderr)
    );
    (ours, theirs)
}

#[test]
fn defaults_and_aliases_as_kubectl_applies_them() {
    let twins = Twins::new("kuberc");
    let dir = tempfile::tempdir().unwrap();
    let kuberc = dir.path().join("kuberc");
    std::fs::write(&kuberc, KUBERC).unwrap();
    // The default makes apply server-side, for both: the same objects and owners.
    let (applied, _) = both(&twins, &kuberc, &["apply", "-f", "-"], CONFIGMAPS);
    assert_eq!(
        String::from_utf8_lossy(&applied.stdout),
        "configmap/one serverside-applied\nconfigmap/two serverside-applied\n"
    );
    // What the server-side applies did is said in the summary, stdout being kubectl's bytes.
    let summary = String::from_utf8_lossy(&applied.stderr);
    assert!(summary.contains("2 objects: 2 serverside-applied (2 created)"), "{summary}");
    twins.assert_same("configmaps", "applied with the kuberc's defaults");
    // A flag on the command line beats the default.
    both(&twins, &kuberc, &["apply", "--server-side=false", "-f", "-"], CONFIGMAPS);
    twins.assert_same("configmaps", "applied client-side over the default");
    // get's default output, and one the line sets.
    let (names, _) = both(&twins, &kuberc, &["get", "configmaps", "one", "two"], "");
    assert_eq!(String::from_utf8_lossy(&names.stdout), "configmap/one\nconfigmap/two\n");
    // The alias, with its own option, then with the line's.
    let (alias, _) = both(&twins, &kuberc, &["getweb", "-o", "name"], "");
    assert_eq!(String::from_utf8_lossy(&alias.stdout), "configmap/one\n");
    let (alias, _) = both(&twins, &kuberc, &["getweb", "-l", "tier=db", "-o", "name"], "");
    assert_eq!(String::from_utf8_lossy(&alias.stdout), "configmap/two\n");
}

#[test]
fn kuberc_errors_as_kubectl_reports_them() {
    let twins = Twins::new("kuberc-bad");
    let dir = tempfile::tempdir().unwrap();
    let unknown_option = dir.path().join("unknown-option");
    std::fs::write(
        &unknown_option,
        "apiVersion: kubectl.config.k8s.io/v1alpha1\nkind: Preference\noverrides:\n- command: get\n  flags:\n  - {name: nosuchflag, default: x}\n",
    )
    .unwrap();
    for kuberc in [unknown_option, dir.path().join("missing")] {
        let (ours, theirs) = both(&twins, &kuberc, &["get", "configmaps"], "");
        assert_same_output(&ours, &theirs, &kuberc.display().to_string());
        assert_eq!(ours.status.code(), Some(1));
    }
}
