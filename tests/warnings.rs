//! The API server's warnings (`Warning` headers), shown as kubectl shows them: `Warning: TEXT` on
//! stderr, each distinct text once, for every verb; `--warnings-as-errors` makes them fail the run.
mod support;

use std::process::Output;

use support::{Twins, with_stdin};

/// A kind that Kubernetes 1.20 serves with a deprecation warning.
const OLD_INGRESS: &str = "apiVersion: networking.k8s.io/v1beta1\nkind: Ingress\nmetadata: {name: old}\n\
                           spec:\n  backend: {serviceName: web, servicePort: 80}\n";

const DEPRECATION: &str = "Warning: networking.k8s.io/v1beta1 Ingress is deprecated in v1.19+, unavailable in \
                           v1.22+; use networking.k8s.io/v1 Ingress\n";

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[test]
fn deprecated_apis_warn_once_per_run_like_kubectl() {
    let twins = Twins::new("warn-apply");
    let twice = format!("{OLD_INGRESS}---\n{OLD_INGRESS}");
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
        vec!["get", "ingresses.v1beta1.networking.k8s.io", "old"],
        vec![
            "patch",
            "ingresses.v1beta1.networking.k8s.io",
            "old",
            "--type",
            "merge",
            "-p",
            r#"{"metadata":{"labels":{"a":"b"}}}"#,
        ],
        vec!["update", "ingresses.v1beta1.networking.k8s.io/old", "--set", "metadata.labels.c=d"],
    ] {
        let ours = twins.ours.kubeupd().args(&args).args(["-n", &twins.ours.name]).output().unwrap();
        assert!(ours.status.success(), "{args:?}: {}", stderr(&ours));
        assert_eq!(stderr(&ours), DEPRECATION, "{args:?}");
    }
    let theirs = twins
        .theirs
        .kubectl()
        .args(["get", "ingresses.v1beta1.networking.k8s.io", "old", "-n", &twins.theirs.name])
        .output()
        .unwrap();
    assert_eq!(stderr(&theirs), DEPRECATION, "kubectl's get warns the same way");
}

#[test]
fn warnings_as_errors_fail_the_run_after_doing_the_work() {
    let twins = Twins::new("warn-errors");
    let args = |namespace: &str| ["--warnings-as-errors", "apply", "-n", namespace, "-f", "-"].map(String::from);
    let theirs = with_stdin(twins.theirs.kubectl().args(args(&twins.theirs.name)), OLD_INGRESS);
    let ours = twins.ours.kubeupd().args(args(&twins.ours.name)).write_stdin(OLD_INGRESS).output().unwrap();
    assert_eq!(theirs.status.code(), Some(1), "{}", stderr(&theirs));
    assert_eq!(ours.status.code(), Some(1), "{}", stderr(&ours));
    assert_eq!(String::from_utf8_lossy(&ours.stdout), "ingress.networking.k8s.io/old created\n");
    assert_eq!(stderr(&ours), format!("{DEPRECATION}error: 1 warning received\n"));
    twins.assert_same("ingresses.v1beta1.networking.k8s.io", "both created the object");
    let quiet = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: quiet}\n";
    let ours = twins.ours.kubeupd().args(args(&twins.ours.name)).write_stdin(quiet).output().unwrap();
    assert!(ours.status.success(), "no warning, no error: {}", stderr(&ours));
}
