//! `kubeupd replace` against the real apiserver, with `kubectl replace` as the reference: the same
//! files replace twin objects in two namespaces, and the output, errors and objects (field
//! ownership included) must come out the same.
use crate::support;

use std::process::Output;

use support::{TestNamespace, Twins, assert_same_output};

const CONFIGMAP: &str =
    "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings, labels: {tier: web}}\ndata: {a: \"1\", b: \"2\"}\n";

const DEPLOYMENT: &str = include_str!("../../testdata/replace/deployment.yaml");

/// `replace ARGS -f FILE` by kubectl in `twins.theirs` and by kubeupd in `twins.ours`, with
/// `yaml` in a file of the same path for both; returns (kubectl's, kubeupd's) output.
fn replace(twins: &Twins, yaml: &str, args: &[&str]) -> (Output, Output) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("objects.yaml");
    std::fs::write(&file, yaml).unwrap();
    let file = file.to_str().unwrap();
    let theirs = twins.theirs.kubectl().args(["replace", "-n", &twins.theirs.name, "-f", file]).args(args).output();
    let ours = twins.ours.kubeupd().args(["replace", "-n", &twins.ours.name, "-f", file]).args(args).output();
    (theirs.unwrap(), ours.unwrap())
}

/// What a tool printed, as it compares with its twin's: the namespace's name read as
/// `NAMESPACE`, without the lines of the metadata the server sets per object.
fn printed(output: &Output, namespace: &TestNamespace) -> String {
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let text = String::from_utf8_lossy(&output.stdout).replace(&namespace.name, "NAMESPACE");
    let per_object = ["  uid: ", "  resourceVersion: ", "  creationTimestamp: \""];
    text.lines().filter(|line| !per_object.iter().any(|prefix| line.starts_with(prefix))).collect::<Vec<_>>().join("\n")
}

fn for_both(twins: &Twins, setup: impl Fn(&TestNamespace)) {
    setup(&twins.theirs);
    setup(&twins.ours);
}

#[test]
fn replace_matches_kubectl() {
    let twins = Twins::new("replace");
    for_both(&twins, |namespace| namespace.apply(&format!("{CONFIGMAP}---\n{DEPLOYMENT}")));
    let changed = format!(
        "{}---\n{}",
        CONFIGMAP.replace("b: \"2\"", "c: \"3\"").replace("labels: {tier: web}", "labels: {tier: api}"),
        DEPLOYMENT.replace("replicas: 2", "replicas: 3").replace("nginx:1.25", "nginx:1.27")
    );
    for args in [&["--dry-run=server"][..], &["--dry-run=client"], &["-o", "name"], &[]] {
        let (theirs, ours) = replace(&twins, &changed, args);
        assert_same_output(&ours, &theirs, &format!("replace {args:?}"));
        assert!(ours.status.success());
        twins.assert_same("configmaps,deployments", &format!("after replace {args:?}"));
    }
    let (theirs, ours) = replace(&twins, &changed.replace("c: \"3\"", "d: \"4\""), &["-o", "yaml"]);
    assert_eq!(printed(&ours, &twins.ours), printed(&theirs, &twins.theirs), "replace -o yaml");
    twins.assert_same("configmaps,deployments", "after replace -o yaml");
}

#[test]
fn replace_errors_read_like_kubectls() {
    let twins = Twins::new("replace-err");
    let (theirs, ours) = replace(&twins, CONFIGMAP, &[]);
    assert_same_output(&ours, &theirs, "replacing what does not exist");
    assert!(String::from_utf8_lossy(&ours.stderr).contains(r#"error when replacing ""#));
    for_both(&twins, |namespace| namespace.apply(CONFIGMAP));
    let (theirs, ours) = replace(&twins, &CONFIGMAP.replace("name: settings", "name: Settings"), &[]);
    assert_same_output(&ours, &theirs, "an invalid name");
    let (theirs, ours) = replace(&twins, CONFIGMAP, &["--force", "--dry-run=server"]);
    assert_same_output(&ours, &theirs, "--force with --dry-run");
}

#[test]
fn replace_force_recreates_as_kubectl_does() {
    let twins = Twins::new("replace-force");
    for_both(&twins, |namespace| namespace.apply(DEPLOYMENT));
    // A Deployment's selector cannot change: only deleting and creating it again replaces it.
    let reselected = DEPLOYMENT.replace("{app: web}", "{app: web, v: \"2\"}");
    let (theirs, ours) = replace(&twins, &reselected, &[]);
    assert_eq!((theirs.status.code(), ours.status.code()), (Some(1), Some(1)));
    let (theirs, ours) = replace(&twins, &reselected, &["--force"]);
    twins.assert_same_output(&ours, &theirs, "replace --force");
    assert_eq!(
        String::from_utf8_lossy(&ours.stdout).replace(&twins.ours.name, "NAMESPACE"),
        "deployment.apps \"web\" deleted from NAMESPACE namespace\ndeployment.apps/web replaced\n"
    );
    twins.assert_same("deployments", "after replace --force");
    // What does not exist is just created.
    let (theirs, ours) = replace(&twins, CONFIGMAP, &["--force", "-o", "name"]);
    assert_same_output(&ours, &theirs, "replace --force of a new object");
    twins.assert_same("configmaps", "after replace --force of a new object");
    let (theirs, ours) = replace(&twins, CONFIGMAP, &["--force", "-o", "name"]);
    assert_same_output(&ours, &theirs, "replace --force -o name");
}

/// kubectl's flags of the deletion behind `--force` (`--grace-period`, `--cascade`, `--timeout`,
/// `--wait`), refused without `--force` in kubectl's words; `--save-config` and `--subresource`.
#[test]
fn replace_takes_kubectls_deletion_and_recording_flags() {
    let twins = Twins::new("replace-flags");
    for_both(&twins, |namespace| namespace.apply(DEPLOYMENT));
    for args in [&["--grace-period=3"][..], &["--timeout=5s"], &["--cascade=sideways", "--force"]] {
        let (theirs, ours) = replace(&twins, DEPLOYMENT, args);
        assert_same_output(&ours, &theirs, &format!("replace {args:?}"));
        assert_eq!(ours.status.code(), Some(1), "{args:?}");
    }
    let reselected = DEPLOYMENT.replace("{app: web}", "{app: web, v: \"2\"}");
    // Background: the server deletes the object at once (orphan and foreground wait for the
    // garbage collector, which the 1.20 test cluster does not run).
    let forced = ["--force", "--grace-period=0", "--cascade=background", "--timeout=30s", "--wait=true"];
    let (theirs, ours) = replace(&twins, &reselected, &forced);
    twins.assert_same_output(&ours, &theirs, "replace --force with the deletion's flags");
    twins.assert_same("deployments", "after replace --force with the deletion's flags");
    let (theirs, ours) = replace(&twins, &reselected.replace("replicas: 2", "replicas: 5"), &["--save-config"]);
    assert_same_output(&ours, &theirs, "replace --save-config");
    twins.assert_same("deployments", "after replace --save-config: the annotation recorded as kubectl records it");
    let status = format!("{reselected}status: {{observedGeneration: 9}}\n");
    let (theirs, ours) = replace(&twins, &status, &["--subresource=status"]);
    assert_eq!(ours.status.code(), theirs.status.code(), "{}", String::from_utf8_lossy(&ours.stderr));
    twins.assert_same("deployments", "after replace --subresource=status");
}
