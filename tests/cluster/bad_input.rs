//! The bad-input corpus in testdata/bad: every file makes `kubeupd apply` fail with one clear
//! error line naming the file (and the document), a non-zero exit, no panic, and no change to
//! the cluster.
use crate::support;

use support::{TestNamespace, testdata};

fn assert_refused(namespace: &TestNamespace, path: &std::path::Path, shown_as: &str) {
    let output = namespace.kubeupd().args(["apply", "-n", &namespace.name, "-f"]).arg(path).output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    let lines: Vec<&str> = stderr.lines().collect();
    assert!(!output.status.success(), "{shown_as}: accepted:\n{}", String::from_utf8_lossy(&output.stdout));
    assert_eq!(output.status.code(), Some(1), "{shown_as}: {stderr}");
    assert!(!stderr.contains("panicked"), "{shown_as}: {stderr}");
    assert_eq!(lines.len(), 1, "{shown_as}: one error line expected:\n{stderr}");
    assert!(lines[0].starts_with("error: "), "{shown_as}: {stderr}");
    assert!(lines[0].contains(shown_as), "{shown_as}: the error does not name the file:\n{stderr}");
    assert!(output.stdout.is_empty(), "{shown_as}: {}", String::from_utf8_lossy(&output.stdout));
}

#[test]
fn every_bad_file_is_refused_with_one_clear_line_and_changes_nothing() {
    let namespace = TestNamespace::new("bad-input");
    let mut files: Vec<_> = std::fs::read_dir(testdata("bad")).unwrap().map(|entry| entry.unwrap().path()).collect();
    files.sort();
    assert!(files.len() >= 30, "the corpus has {} files", files.len());
    for file in &files {
        let shown_as = file.display().to_string();
        assert_refused(&namespace, file, &shown_as);
    }
    let left = namespace.kubectl_ok(&["get", "configmaps,deployments", "-n", &namespace.name, "-o", "name"]);
    assert!(!left.contains("bad-"), "something was created:\n{left}");
}

#[test]
fn a_fifty_megabyte_file_is_refused_before_anything_is_sent() {
    let namespace = TestNamespace::new("bad-big");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.yaml");
    let blob = "x".repeat(50 * 1024 * 1024);
    std::fs::write(
        &path,
        format!("apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: bad-big}}\ndata: {{blob: {blob}}}\n"),
    )
    .unwrap();
    assert_refused(&namespace, &path, &path.display().to_string());
    let left = namespace.kubectl_ok(&["get", "configmaps", "-n", &namespace.name, "-o", "name"]);
    assert!(!left.contains("bad-big"), "{left}");
}

#[test]
fn every_bad_patch_is_refused_with_one_line_naming_the_file_and_changes_nothing() {
    let namespace = TestNamespace::new("bad-patch");
    support::ensure_cluster_fixture(&namespace, "crd/gadgets.yaml");
    namespace.apply("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: target}\ndata: {a: b}\n");
    namespace
        .apply("apiVersion: get.kubeupd.test/v1\nkind: Gadget\nmetadata: {name: target}\nspec: {items: [{name: a}]}\n");
    let version = |object: &str| {
        namespace.kubectl_ok(&["get", object, "-n", &namespace.name, "-o", "jsonpath={.metadata.resourceVersion}"])
    };
    let before = (version("configmap/target"), version("gadget/target"));
    let mut files: Vec<_> =
        std::fs::read_dir(testdata("bad-patches")).unwrap().map(|entry| entry.unwrap().path()).collect();
    files.sort();
    for file in &files {
        let name = file.file_name().unwrap().to_string_lossy().into_owned();
        let (object, patch_type) =
            if name.contains("strategic") { ("gadget/target", "strategic") } else { ("configmap/target", "json") };
        let output = namespace
            .kubeupd()
            .args(["patch", object, "-n", &namespace.name, "--type", patch_type, "--patch-file"])
            .arg(file)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "{name}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{name}: {stderr}");
        assert!(!stderr.contains("panicked"), "{name}: {stderr}");
        assert!(stderr.starts_with("error: "), "{name}: {stderr}");
        assert!(
            stderr.contains(&name) || name.contains("strategic"),
            "{name}: the error does not name the file: {stderr}"
        );
        if name.contains("strategic") {
            assert!(stderr.contains("--type merge"), "{name}: {stderr}");
        }
    }
    assert_eq!((version("configmap/target"), version("gadget/target")), before, "an object changed");
}
