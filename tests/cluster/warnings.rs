//! The API server's warnings (`Warning` headers), shown as kubectl shows them: `Warning: TEXT` on
//! stderr, each distinct text once, for every verb; `--warnings-as-errors` makes them fail the run.
use crate::support;

use std::process::Output;

use support::{Twins, ensure_cluster_fixture, with_stdin};

/// An object of a custom resource's version marked deprecated, which every server since 1.19
/// serves with a deprecation warning.
const OLD_RELIC: &str = "apiVersion: warn.kubeupd.test/v1beta1\nkind: Relic\nmetadata: {name: old}\nspec: {size: 1}\n";

const DEPRECATION: &str = "Warning: warn.kubeupd.test/v1beta1 Relic is deprecated; use warn.kubeupd.test/v1 Relic\n";

/// Twins named after `prefix`, with the deprecated version served.
fn twins(prefix: &str) -> Twins {
    let twins = Twins::new(prefix);
    ensure_cluster_fixture(&twins.ours, "crd/relics.yaml");
    twins
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[test]
fn deprecated_apis_warn_once_per_run_like_kubectl() {
    let twins = twins("warn-apply");
    let twice = format!("{OLD_RELIC}---\n{OLD_RELIC}");
    let theirs = with_stdin(twins.theirs.kubectl().args(["apply", "-n", &twins.theirs.name, "-f", "-"]), &twice);
    let ours = twins
        .ours
        .kubeupd()
        .args(["apply", "-n", &twins.ours.name, "-f", "-"])
        .write_stdin(twice.clone())
        .output()
        .unwrap();
    assert!(ours.status.success(), "{}", stderr(&ours));
    assert_eq!(ours.stdout, theirs.stdout);
    let warnings = |output: &Output| stderr(output).lines().filter(|line| line.starts_with("Warning: ")).count();
    assert_eq!(warnings(&theirs), 1, "{}", stderr(&theirs));
    assert_eq!(warnings(&ours), 1, "{}", stderr(&ours));
    assert!(stderr(&ours).starts_with(DEPRECATION), "{}", stderr(&ours));
    for args in [
        vec!["get", "relics.v1beta1.warn.kubeupd.test", "old"],
        vec![
            "patch",
            "relics.v1beta1.warn.kubeupd.test",
            "old",
            "--type",
            "merge",
            "-p",
            r#"{"metadata":{"labels":{"a":"b"}}}"#,
        ],
        vec!["update", "relics.v1beta1.warn.kubeupd.test/old", "--set", "metadata.labels.c=d"],
    ] {
        let ours = twins.ours.kubeupd().args(&args).args(["-n", &twins.ours.name]).output().unwrap();
        assert!(ours.status.success(), "{args:?}: {}", stderr(&ours));
        assert_eq!(stderr(&ours), DEPRECATION, "{args:?}");
    }
    let theirs = twins
        .theirs
        .kubectl()
        .args(["get", "relics.v1beta1.warn.kubeupd.test", "old", "-n", &twins.theirs.name])
        .output()
        .unwrap();
    assert_eq!(stderr(&theirs), DEPRECATION, "kubectl's get warns the same way");
}

#[test]
fn warnings_as_errors_fail_the_run_after_doing_the_work() {
    let twins = twins("warn-errors");
    let args = |namespace: &str| ["--warnings-as-errors", "apply", "-n", namespace, "-f", "-"].map(String::from);
    let theirs = with_stdin(twins.theirs.kubectl().args(args(&twins.theirs.name)), OLD_RELIC);
    let ours = twins.ours.kubeupd().args(args(&twins.ours.name)).write_stdin(OLD_RELIC).output().unwrap();
    assert_eq!(theirs.status.code(), Some(1), "{}", stderr(&theirs));
    assert_eq!(ours.status.code(), Some(1), "{}", stderr(&ours));
    assert_eq!(String::from_utf8_lossy(&ours.stdout), "relic.warn.kubeupd.test/old created\n");
    assert_eq!(stderr(&ours), format!("{DEPRECATION}error: 1 warning received\n"));
    twins.assert_same("relics.v1beta1.warn.kubeupd.test", "both created the object");
    let quiet = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: quiet}\n";
    let ours = twins.ours.kubeupd().args(args(&twins.ours.name)).write_stdin(quiet).output().unwrap();
    assert!(ours.status.success(), "no warning, no error: {}", stderr(&ours));
}
