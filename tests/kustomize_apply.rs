//! `-k DIR` on the verbs that take `-f`, on the real apiserver: what `kubeupd apply -k` makes is
//! what `kubectl apply -k` makes (objects and field ownership), and the other verbs see the same
//! objects.

mod support;

use support::{Twins, testdata};

fn run_both(twins: &Twins, args: &[&str]) -> (std::process::Output, std::process::Output) {
    let ours = twins.ours.kubeupd().args(args).args(["-n", &twins.ours.name]).output().unwrap();
    let theirs = twins.theirs.kubectl().args(args).args(["-n", &twins.theirs.name]).output().unwrap();
    (ours, theirs)
}

#[test]
fn apply_k_matches_kubectl_apply_k() {
    let twins = Twins::new("kust-apply");
    for (case, server_side) in [
        ("kustomize/cases/workload", false),
        ("kustomize/cases/generators", false),
        ("kustomize/cases/generators", true),
    ] {
        let dir = testdata(case);
        let dir = dir.to_str().unwrap();
        let mut args = vec!["apply", "-k", dir];
        if server_side {
            args.extend(["--server-side", "--force-conflicts"]);
        }
        let (ours, theirs) = run_both(&twins, &args);
        assert!(theirs.status.success(), "{case}: kubectl: {}", String::from_utf8_lossy(&theirs.stderr));
        assert!(ours.status.success(), "{case}: kubeupd: {}", String::from_utf8_lossy(&ours.stderr));
        for what in ["deployments", "configmaps", "secrets"] {
            twins.assert_same(what, case);
        }
        // Nothing is left to change: diff -k exits 0 for both.
        let (ours, theirs) = run_both(&twins, &["diff", "-k", dir]);
        assert_eq!(theirs.status.code(), Some(0), "{case}: kubectl diff: {}", String::from_utf8_lossy(&theirs.stdout));
        assert_eq!(ours.status.code(), Some(0), "{case}: kubeupd diff: {}", String::from_utf8_lossy(&ours.stdout));
    }
    // get -k names the built objects.
    let dir = testdata("kustomize/cases/workload");
    let (ours, theirs) = run_both(&twins, &["get", "-k", dir.to_str().unwrap(), "-o", "name"]);
    assert!(ours.status.success(), "{}", String::from_utf8_lossy(&ours.stderr));
    assert_eq!(String::from_utf8_lossy(&ours.stdout), String::from_utf8_lossy(&theirs.stdout));
}

#[test]
fn k_and_f_together_are_refused() {
    let twins = Twins::new("kust-flags");
    let dir = testdata("kustomize/cases/base");
    let output = twins.ours.kubeupd().args(["apply", "-k", dir.to_str().unwrap(), "-f", "x.yaml"]).output().unwrap();
    assert!(!output.status.success());
    assert!(
        String::from_utf8_lossy(&output.stderr) == "error: only one of -f or -k can be specified\n",
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let output = twins.ours.kubeupd().args(["apply"]).output().unwrap();
    assert!(!output.status.success());
}

#[test]
fn a_bad_kustomization_applies_nothing() {
    let twins = Twins::new("kust-bad");
    let dir = testdata("kustomize/errors/no-match");
    let (ours, theirs) = run_both(&twins, &["apply", "-k", dir.to_str().unwrap()]);
    assert_eq!(theirs.status.code(), Some(1));
    assert_eq!(ours.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&ours.stderr).contains("no resource matches strategic merge patch"));
    let left = twins.ours.kubectl_ok(&["get", "configmaps", "-n", &twins.ours.name, "-o", "name"]);
    assert!(!left.contains("configmap/c"), "{left}");
}
