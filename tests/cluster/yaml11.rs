//! Manifests read as kubectl reads them (go-yaml v2, YAML 1.1): the same file given to both tools
//! (apply, diff, replace, create) puts the same objects on the server, YAML 1.1's booleans, keys,
//! octals and underscored numbers included; kubeupd warns of each YAML 1.1-only boolean.

use std::process::Output;

use crate::support::Twins;

/// A ConfigMap whose key `y` is the key `true`, and a Deployment whose booleans are written
/// `yes`, `On` and `no`, its mode in octal, its numbers in hex and with `_`.
const MANIFEST: &str = "apiVersion: v1
kind: ConfigMap
metadata:
  name: yaml11
  labels: {quoted: \"yes\"}
data:
  y: read as the key true
  mode: 'on'
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: yaml11
spec:
  replicas: 0x1
  revisionHistoryLimit: 1_0
  selector: {matchLabels: {app: yaml11}}
  template:
    metadata: {labels: {app: yaml11}}
    spec:
      automountServiceAccountToken: no
      terminationGracePeriodSeconds: 0o17
      containers:
      - name: c
        image: busybox
        stdin: yes
        tty: On
      volumes:
      - name: v
        configMap: {name: yaml11, defaultMode: 0644}
";

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).replace("\r", "")
}

/// Both tools run `args` (ending with `-f FILE`), succeed and print the same; kubeupd's warnings
/// are those of the file's YAML 1.1-only booleans, each once.
fn both_succeed(twins: &Twins, args: &[&str], file: &str) {
    let (ours, theirs) = twins.run_both(args);
    assert!(theirs.status.success(), "{args:?}: kubectl: {}", String::from_utf8_lossy(&theirs.stderr));
    assert!(ours.status.success(), "{args:?}: kubeupd: {}", String::from_utf8_lossy(&ours.stderr));
    let masked = |output: &Output, namespace: &str| stdout(output).replace(namespace, "NAMESPACE");
    assert_eq!(masked(&ours, &twins.ours.name), masked(&theirs, &twins.theirs.name), "{args:?}");
    let stderr = String::from_utf8_lossy(&ours.stderr);
    let warnings: Vec<String> = stderr.lines().filter(|line| line.starts_with("Warning: ")).map(String::from).collect();
    let expected: Vec<String> = [(7, "y", true), (21, "no", false), (26, "yes", true), (27, "On", true)]
        .iter()
        .map(|(line, word, value)| {
            format!(
                "Warning: {file}:{line}: unquoted \"{word}\" is read as the boolean {value} (YAML 1.1, as kubectl \
                 reads it); quote it to keep the string"
            )
        })
        .collect();
    assert_eq!(warnings, expected, "{args:?}");
}

#[test]
fn the_same_file_puts_the_same_objects_on_the_server() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("app.yaml");
    std::fs::write(&path, MANIFEST).unwrap();
    let file = path.to_str().unwrap();
    let twins = Twins::new("yaml11");
    both_succeed(&twins, &["apply", "-f", file], file);
    let config_map = twins.assert_same("configmap/yaml11", "apply");
    assert_eq!(config_map["data"]["true"], "read as the key true");
    assert_eq!(config_map["data"]["mode"], "on");
    let deployment = twins.assert_same("deployment/yaml11", "apply");
    let pod = &deployment["spec"]["template"]["spec"];
    assert_eq!(
        (deployment["spec"]["replicas"].as_i64(), deployment["spec"]["revisionHistoryLimit"].as_i64()),
        (Some(1), Some(10))
    );
    assert_eq!(
        (pod["automountServiceAccountToken"].as_bool(), pod["terminationGracePeriodSeconds"].as_i64()),
        (Some(false), Some(15))
    );
    assert_eq!(
        (pod["containers"][0]["stdin"].as_bool(), pod["containers"][0]["tty"].as_bool()),
        (Some(true), Some(true))
    );
    assert_eq!(pod["volumes"][0]["configMap"]["defaultMode"], 420);
    // Read again, the file is what the server has: nothing to diff.
    both_succeed(&twins, &["diff", "-f", file], file);
    both_succeed(&twins, &["replace", "-f", file], file);
    twins.assert_same("configmap/yaml11", "replace");
    twins.assert_same("deployment/yaml11", "replace");
}

#[test]
fn created_and_server_side_applied_alike() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("app.yaml");
    std::fs::write(&path, MANIFEST).unwrap();
    let file = path.to_str().unwrap();
    let twins = Twins::new("yaml11-ssa");
    both_succeed(&twins, &["create", "-f", file], file);
    both_succeed(&twins, &["apply", "--server-side", "-f", file], file);
    twins.assert_same("configmap/yaml11", "server-side apply");
    twins.assert_same("deployment/yaml11", "server-side apply");
}
