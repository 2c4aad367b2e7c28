//! Verbs kubeupd does not have go to the real kubectl on the PATH, never to kubeupd itself; with
//! no other kubectl, one line and exit 1. kubeupd installed as `kubectl` (a link first on the PATH)
//! gives kubectl's answers for them.
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::support::{self, TestNamespace, assert_same_output};

/// A directory holding kubeupd under the name `kubectl` (a symbolic link).
fn kubeupd_as_kubectl() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let link = dir.path().join("kubectl");
    std::os::unix::fs::symlink(assert_cmd::cargo::cargo_bin("kubeupd"), &link).unwrap();
    (dir, link)
}

/// The directory of the reference kubectl (the first `kubectl` on the test's PATH).
fn real_kubectl_dir() -> PathBuf {
    let path = std::env::var_os("PATH").unwrap();
    std::env::split_paths(&path).find(|dir| dir.join("kubectl").is_file()).expect("kubectl on the PATH")
}

fn run(program: &Path, path: &std::ffi::OsStr, args: &[&str]) -> Output {
    Command::new(program).args(args).env("PATH", path).env_remove("KUBECONFIG").output().unwrap()
}

#[test]
fn a_verb_kubeupd_lacks_is_kubectls_answer() {
    let namespace = TestNamespace::new("handover");
    let kubeconfig = support::kubeconfig();
    let kubeconfig = kubeconfig.to_str().unwrap();
    let (dir, link) = kubeupd_as_kubectl();
    let path = std::env::join_paths([dir.path().to_path_buf(), real_kubectl_dir()]).unwrap();
    let real = real_kubectl_dir().join("kubectl");
    for line in [
        vec!["--kubeconfig", kubeconfig, "auth", "can-i", "create", "configmaps", "-n", &namespace.name],
        vec!["--kubeconfig", kubeconfig, "-n", &namespace.name, "auth", "can-i", "--list", "--no-headers"],
        vec!["no-such-verb", "x"],
        vec!["auth", "--help"],
    ] {
        let (ours, theirs) = (run(&link, &path, &line), run(&real, &path, &line));
        assert_same_output(&ours, &theirs, &line.join(" "));
    }
    // `cluster-info dump` is a command kubeupd knows and hands over.
    let out = tempfile::tempdir().unwrap();
    let out_dir = out.path().to_str().unwrap();
    let line = [
        "--kubeconfig",
        kubeconfig,
        "cluster-info",
        "dump",
        "--namespaces",
        &namespace.name,
        "--output-directory",
        out_dir,
    ];
    let dumped = run(&link, &path, &line);
    assert_eq!(String::from_utf8_lossy(&dumped.stdout), format!("Cluster info dumped to {out_dir}\n"));
    assert!(out.path().join(&namespace.name).join("events.json").is_file());
}

#[test]
fn without_another_kubectl_kubeupd_says_so() {
    let (dir, link) = kubeupd_as_kubectl();
    let path = std::env::join_paths([dir.path()]).unwrap();
    let output = run(&link, &path, &["auth", "whoami"]);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&output.stderr),
        "error: kubeupd does not implement \"auth\", and no kubectl other than kubeupd was found on the PATH\n"
    );
    assert!(output.stdout.is_empty());
}
