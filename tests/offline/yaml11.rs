//! Manifests read as kubectl reads them (go-yaml v2, YAML 1.1): every file of testdata/yaml11
//! through `kubectl patch --local -f FILE -o json` (recorded in `testdata/golden/yaml11-local.json`)
//! and through kubeupd's, which must print the same objects, or fail where kubectl fails; and
//! kubeupd warns of each YAML 1.1-only boolean read unquoted.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

use crate::golden::{self, Run};

fn directory() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/yaml11")
}

fn files() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(directory())
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".yaml"))
        .collect();
    names.sort();
    names
}

fn args(file: &str) -> Vec<String> {
    let path = format!("testdata/yaml11/{file}");
    ["patch", "--local", "-f", &path, "--type", "merge", "-p", "{}", "-o", "json"].map(String::from).to_vec()
}

fn kubeupd(file: &str) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kubeupd"))
        .args(args(file))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("KUBECONFIG", "/dev/null")
        .output()
        .expect("kubeupd runs")
}

/// The JSON objects a run printed, one after another.
fn objects(output: &Output) -> Vec<Value> {
    serde_json::Deserializer::from_slice(&output.stdout).into_iter().map(Result::unwrap).collect()
}

#[test]
fn manifests_read_as_kubectl_reads_them() {
    let files = files();
    let runs: Vec<Run> = files.iter().map(|file| Run { args: args(file), cwd: None }).collect();
    let theirs = golden::kubectl("yaml11-local", &[&directory()], &runs);
    for (file, theirs) in files.iter().zip(theirs) {
        let ours = kubeupd(file);
        assert_eq!(
            ours.status.success(),
            theirs.status.success(),
            "{file}: kubeupd's stderr: {}\nkubectl's: {}",
            String::from_utf8_lossy(&ours.stderr),
            String::from_utf8_lossy(&theirs.stderr)
        );
        assert_eq!(objects(&ours), objects(&theirs), "{file} (left: kubeupd, right: kubectl)");
        if !ours.status.success() {
            let stderr = String::from_utf8_lossy(&ours.stderr);
            assert!(
                stderr.starts_with(&format!("error: testdata/yaml11/{file} (document 1): invalid YAML: line ")),
                "{stderr}"
            );
        }
    }
}

#[test]
fn yaml_11_only_booleans_read_unquoted_are_warned_of() {
    let output = kubeupd("documents.yaml");
    assert!(output.status.success());
    let stderr = String::from_utf8(output.stderr).unwrap();
    let expected: Vec<String> = [(16, "Yes", true), (22, "off", false), (22, "Off", false)]
        .iter()
        .map(|(line, word, value)| {
            format!(
                "Warning: testdata/yaml11/documents.yaml:{line}: unquoted \"{word}\" is read as the boolean {value} \
                 (YAML 1.1, as kubectl reads it); quote it to keep the string"
            )
        })
        .collect();
    assert_eq!(stderr.lines().collect::<Vec<_>>(), expected);
    // Quoted, tagged, block and `true`/`false` words are not.
    let stderr = String::from_utf8(kubeupd("scalars.yaml").stderr).unwrap();
    assert!(stderr.lines().all(|line| line.starts_with("Warning: testdata/yaml11/scalars.yaml:")), "{stderr}");
    assert_eq!(stderr.lines().count(), 2 + 2 + 16 + 3, "{stderr}");
    assert!(!stderr.contains("\"true\"") && !stderr.contains("\"True\"") && !stderr.contains(":7:"), "{stderr}");
}
