//! `-k DIR` on the verbs that take `-f`, on the real apiserver: what `kubeupd apply -k` makes is
//! what `kubectl apply -k` makes (objects and field ownership), and the other verbs see the same
//! objects.

use crate::support;

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

#[test]
fn apply_k_prunes_an_applyset_as_kubectl_does() {
    let twins = Twins::new("kust-prune");
    let dir = tempfile::tempdir().unwrap();
    let write = |kustomization: &str| {
        std::fs::write(dir.path().join("kustomization.yaml"), kustomization).unwrap();
        std::fs::write(
            dir.path().join("settings.yaml"),
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\ndata: {level: info}\n",
        )
        .unwrap();
    };
    let apply = |twins: &Twins| {
        let args = ["apply", "-k", dir.path().to_str().unwrap(), "--prune", "--applyset=app"];
        let ours = twins.ours.kubeupd().args(args).args(["-n", &twins.ours.name]).output().unwrap();
        let mut theirs = twins.theirs.kubectl();
        theirs.env("KUBECTL_APPLYSET", "true").args(args).args(["-n", &twins.theirs.name]);
        let theirs = theirs.output().unwrap();
        assert!(ours.status.success(), "kubeupd: {}", String::from_utf8_lossy(&ours.stderr));
        assert!(theirs.status.success(), "kubectl: {}", String::from_utf8_lossy(&theirs.stderr));
        assert_eq!(String::from_utf8_lossy(&ours.stdout), String::from_utf8_lossy(&theirs.stdout));
        String::from_utf8_lossy(&ours.stdout).into_owned()
    };
    // A generated ConfigMap (its name hashed) and a plain one; then the generator's literal changes,
    // so its hashed name does, and the plain one is dropped: both old objects are pruned.
    // (The members' part-of label is each set's id, which differs between the twins: names are
    // compared.)
    let names = |twins: &Twins| {
        let list = |namespace: &support::TestNamespace| {
            namespace.kubectl_ok(&["get", "configmaps", "-n", &namespace.name, "-o", "name"])
        };
        let (ours, theirs) = (list(&twins.ours), list(&twins.theirs));
        assert_eq!(ours, theirs);
        ours
    };
    write("resources: [settings.yaml]\nconfigMapGenerator:\n- name: app\n  literals: [mode=a]\n");
    apply(&twins);
    let before = names(&twins);
    assert!(before.contains("configmap/settings\n"), "{before}");
    write("configMapGenerator:\n- name: app\n  literals: [mode=b]\n");
    let stdout = apply(&twins);
    assert!(stdout.contains("configmap/settings pruned"), "{stdout}");
    assert_eq!(stdout.matches(" pruned").count(), 2, "{stdout}");
    let after = names(&twins);
    assert!(!after.contains("configmap/settings\n") && after != before, "{after}");
}
