//! The engine against kubectl as the oracle: every patch in testdata/patches.yaml is applied to its
//! object by `kubectl patch --local` and by the engine, and the objects must be equal; then by
//! `kubeupd patch --local`, whose JSON must be the same data and whose YAML the same text.
//! kubectl's outputs are recorded in `testdata/golden/patch-local.json`.

use std::path::{Path, PathBuf};
use std::process::Command;

use kubeupd::merge::{json_merge, json_patch, strategic};
use kubeupd::schema::builtin;
use serde_json::Value;

use crate::golden::{self, Run};

fn testdata() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata")
}

fn yaml(text: &str) -> Value {
    serde_saphyr::from_str(text).unwrap_or_else(|err| panic!("bad YAML {text:?}: {err}"))
}

/// The arguments of `patch --local` of `object`, printed in `format`.
fn patch_args<'a>(object: &'a str, patch_type: &'a str, patch: &'a str, format: &'a str) -> [&'a str; 10] {
    ["patch", "--local", "-o", format, "--type", patch_type, "-p", patch, "-f", object]
}

/// The object file, patch type and patch of a case of testdata/patches.yaml.
fn case_input(case: &Value) -> (String, &str, &str) {
    let object = testdata().join("objects").join(case["object"].as_str().unwrap());
    (object.display().to_string(), case["type"].as_str().unwrap(), case["patch"].as_str().unwrap())
}

/// `kubeupd patch --local` of a case, printed in `format`.
fn kubeupd_patch(case: &Value, format: &str) -> String {
    let (object, patch_type, patch) = case_input(case);
    let output = Command::new(env!("CARGO_BIN_EXE_kubeupd"))
        .args(patch_args(&object, patch_type, patch, format))
        .env("KUBECONFIG", "/dev/null")
        .output()
        .expect("kubeupd runs");
    assert!(output.status.success(), "kubeupd failed: {}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8(output.stdout).expect("patch prints UTF-8")
}

/// kubectl's `patch --local` of every case, printed as JSON (parsed) and as YAML.
fn kubectl_patches(cases: &[Value]) -> Vec<(Value, String)> {
    let runs: Vec<Run> = cases
        .iter()
        .flat_map(|case| {
            let (object, patch_type, patch) = case_input(case);
            ["json", "yaml"].map(|format| Run::new(&patch_args(&object, patch_type, patch, format)))
        })
        .collect();
    let inputs = [testdata().join("patches.yaml"), testdata().join("objects")];
    let outputs = golden::kubectl("patch-local", &[&inputs[0], &inputs[1]], &runs);
    let text = |output: &std::process::Output| {
        assert!(output.status.success(), "kubectl failed: {}", String::from_utf8_lossy(&output.stderr));
        String::from_utf8(output.stdout.clone()).expect("patch prints UTF-8")
    };
    outputs
        .chunks(2)
        .map(|pair| (serde_json::from_str(&text(&pair[0])).expect("kubectl prints JSON"), text(&pair[1])))
        .collect()
}

fn engine_patch(object: Value, patch_type: &str, patch: &str) -> Value {
    let patch = yaml(patch);
    match patch_type {
        "strategic" => {
            let schema = builtin()
                .for_kind(object["apiVersion"].as_str().unwrap(), object["kind"].as_str().unwrap())
                .expect("built-in kind");
            strategic::apply(object, patch, &schema).unwrap()
        }
        "merge" => json_merge::apply(object, &patch),
        "json" => {
            let mut object = object;
            json_patch::apply(&mut object, &json_patch::parse(&patch).unwrap()).unwrap();
            object
        }
        other => panic!("unknown patch type {other}"),
    }
}

fn cases() -> Vec<Value> {
    let cases = yaml(&std::fs::read_to_string(testdata().join("patches.yaml")).unwrap()).as_array().cloned().unwrap();
    assert!(cases.len() >= 30);
    cases
}

#[test]
fn engine_patches_like_kubectl() {
    let cases = cases();
    let mut failures = Vec::new();
    for (case, (expected, _)) in cases.iter().zip(kubectl_patches(&cases)) {
        let (object, patch_type, patch) = case_input(case);
        let actual = engine_patch(yaml(&std::fs::read_to_string(&object).unwrap()), patch_type, patch);
        if actual != expected {
            failures.push(format!("{}:\n  kubectl: {expected}\n  kubeupd: {actual}", case["name"].as_str().unwrap()));
        }
    }
    assert!(failures.is_empty(), "{} of {} differ:\n{}", failures.len(), cases.len(), failures.join("\n"));
}

#[test]
fn cli_patches_locally_like_kubectl() {
    let cases = cases();
    let kubectl = kubectl_patches(&cases);
    let failures: Vec<String> = std::thread::scope(|scope| {
        let runs: Vec<_> = cases
            .iter()
            .zip(&kubectl)
            .map(|(case, (theirs_json, theirs_yaml))| {
                scope.spawn(move || {
                    let name = case["name"].as_str().unwrap();
                    let mut failures = Vec::new();
                    let ours: Value = serde_json::from_str(&kubeupd_patch(case, "json")).unwrap();
                    if &ours != theirs_json {
                        failures.push(format!("{name} (-o json):\n  kubectl: {theirs_json}\n  kubeupd: {ours}"));
                    }
                    let ours = kubeupd_patch(case, "yaml");
                    if &ours != theirs_yaml {
                        failures.push(format!("{name} (-o yaml):\n--- kubectl:\n{theirs_yaml}--- kubeupd:\n{ours}"));
                    }
                    failures
                })
            })
            .collect();
        runs.into_iter().flat_map(|run| run.join().unwrap()).collect()
    });
    assert!(failures.is_empty(), "{} differences:\n{}", failures.len(), failures.join("\n"));
}
