//! `kubeupd kustomize` against `kubectl kustomize` (kubectl 1.32, kustomize v5.5.0), the oracle:
//! every kustomization of the corpus in testdata/kustomize (kustomize's own examples, cases of our
//! own per field, and real overlays of public projects) must build to the same bytes, and the error
//! cases must fail in both.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn kubeupd(args: &[&str], dir: &Path) -> Output {
    Command::new(assert_cmd::cargo::cargo_bin("kubeupd")).args(args).arg(dir).output().unwrap()
}

fn kubectl(args: &[&str], dir: &Path) -> Output {
    Command::new("kubectl").args(args).arg(dir).output().expect("kubectl (the oracle) is installed")
}

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/kustomize")
}

/// The directories under `dir` that hold a kustomization (not a component), sorted.
fn kustomizations(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let text = std::fs::read_to_string(dir.join("kustomization.yaml")).unwrap_or_default();
    if !text.is_empty() && !text.contains("kind: Component") {
        found.push(dir.to_path_buf());
    }
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir).unwrap().map(|entry| entry.unwrap().path()).collect();
    entries.sort();
    for path in entries.into_iter().filter(|path| path.is_dir()) {
        found.extend(kustomizations(&path));
    }
    found
}

/// Kustomizations whose build kubeupd refuses on purpose, with the reason.
const NOT_YET: &[(&str, &str)] = &[
    ("upstream/wordpress", "the field 'vars' is not supported by kubeupd's kustomize yet"),
    ("real/kubebuilder/config/certmanager", "the field 'configurations' is not supported by kubeupd's kustomize yet"),
    ("real/kubebuilder/config/crd", "the field 'configurations' is not supported by kubeupd's kustomize yet"),
    ("real/kubebuilder/config/default", "the field 'replacements' is not supported by kubeupd's kustomize yet"),
    ("real/keda/config/default", "the field 'transformers' is not supported by kubeupd's kustomize yet"),
    ("real/keda/config/minimal", "the field 'transformers' is not supported by kubeupd's kustomize yet"),
];

#[test]
fn builds_match_kubectl_kustomize_byte_for_byte() {
    let mut compared = 0;
    for group in ["upstream", "cases", "real"] {
        for dir in kustomizations(&corpus().join(group)) {
            let name = dir.strip_prefix(corpus()).unwrap().display().to_string();
            let ours = kubeupd(&["kustomize"], &dir);
            if let Some((_, reason)) = NOT_YET.iter().find(|(skipped, _)| *skipped == name) {
                assert!(!ours.status.success(), "{name}: expected to be refused until supported");
                assert!(
                    String::from_utf8_lossy(&ours.stderr).contains(reason),
                    "{name}: {}",
                    String::from_utf8_lossy(&ours.stderr)
                );
                continue;
            }
            let theirs = kubectl(&["kustomize"], &dir);
            assert!(theirs.status.success(), "{name}: kubectl failed: {}", String::from_utf8_lossy(&theirs.stderr));
            assert!(ours.status.success(), "{name}: kubeupd failed: {}", String::from_utf8_lossy(&ours.stderr));
            assert_eq!(
                String::from_utf8_lossy(&ours.stdout),
                String::from_utf8_lossy(&theirs.stdout),
                "{name}: output differs (left: kubeupd)"
            );
            assert_eq!(
                String::from_utf8_lossy(&ours.stderr),
                String::from_utf8_lossy(&theirs.stderr),
                "{name}: warnings differ (left: kubeupd)"
            );
            compared += 1;
        }
    }
    assert!(compared >= 60, "only {compared} kustomizations compared");
}

#[test]
fn bad_kustomizations_fail_as_in_kubectl() {
    let cases = [
        ("unknown-field", r#"invalid Kustomization: json: unknown field "namePrefixx""#),
        ("missing-file", "accumulating resources from 'not-there.yaml'"),
        ("cycle/a", "cycle detected"),
        ("duplicate-id", "may not add resource with an already registered id: ConfigMap.v1.[noGrp]/c.[noNs]"),
        ("outside-root/root", "security; file"),
        ("no-match", "no resource matches strategic merge patch \"ConfigMap.v1.[noGrp]/other.[noNs]\""),
    ];
    for (case, words) in cases {
        let dir = corpus().join("errors").join(case);
        let theirs = kubectl(&["kustomize"], &dir);
        let ours = kubeupd(&["kustomize"], &dir);
        assert_eq!(theirs.status.code(), Some(1), "{case}: kubectl should fail");
        assert_eq!(ours.status.code(), Some(1), "{case}: kubeupd should fail");
        assert!(ours.stdout.is_empty(), "{case}: nothing printed on failure");
        let stderr = String::from_utf8_lossy(&ours.stderr);
        assert!(
            stderr.starts_with("error: ") && stderr.contains(words) && stderr.lines().count() == 1,
            "{case}: {stderr}"
        );
    }
}

#[test]
fn load_restrictor_none_reads_files_outside_the_root() {
    let dir = corpus().join("errors/outside-root/root");
    let args = ["kustomize", "--load-restrictor", "LoadRestrictionsNone"];
    let (ours, theirs) = (kubeupd(&args, &dir), kubectl(&args, &dir));
    assert!(ours.status.success() && theirs.status.success(), "{}", String::from_utf8_lossy(&ours.stderr));
    assert_eq!(String::from_utf8_lossy(&ours.stdout), String::from_utf8_lossy(&theirs.stdout));
}
