//! The command line itself, without a cluster: completion scripts and usage errors.

#[test]
fn completion_scripts_name_every_verb() {
    for shell in ["bash", "zsh", "fish"] {
        let output = assert_cmd::Command::cargo_bin("kubeupd").unwrap().args(["completion", shell]).output().unwrap();
        assert!(output.status.success());
        let script = String::from_utf8_lossy(&output.stdout);
        for verb in ["get", "update", "patch", "apply", "diff", "edit"] {
            assert!(script.contains(verb), "{shell}: {verb} missing");
        }
    }
}

#[test]
fn usage_errors_exit_two() {
    let output = assert_cmd::Command::cargo_bin("kubeupd").unwrap().args(["apply"]).output().unwrap();
    assert_eq!(output.status.code(), Some(2));
    let output = assert_cmd::Command::cargo_bin("kubeupd").unwrap().args(["frobnicate"]).output().unwrap();
    assert_eq!(output.status.code(), Some(2));
}
