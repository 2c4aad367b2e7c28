//! The engine against kubectl as the oracle: every patch in testdata/patches.yaml is applied to its
//! object by `kubectl patch --local` and by the engine, and the objects must be equal; then by
//! `kubeupd patch --local`, whose JSON must be the same data and whose YAML the same text.

use std::path::{Path, PathBuf};
use std::process::Command;

use kubeupd::merge::{json_merge, json_patch, strategic};
use kubeupd::schema::builtin;
use serde_json::Value;

fn testdata() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata")
}

fn yaml(text: &str) -> Value {
    serde_saphyr::from_str(text).unwrap_or_else(|err| panic!("bad YAML {text:?}: {err}"))
}

fn kubectl_patch(object: &Path, patch_type: &str, patch: &str) -> Value {
    serde_json::from_str(&patch_locally(Command::new("kubectl"), object, patch_type, patch, "json"))
        .expect("kubectl prints JSON")
}

/// `patch --local` of `object` by `tool` (kubectl or kubeupd), printed in `format`.
fn patch_locally(mut tool: Command, object: &Path, patch_type: &str, patch: &str, format: &str) -> String {
    let output = tool
        .args(["patch", "--local", "-o", format, "--type", patch_type, "-p", patch, "-f"])
        .arg(object)
        .env("KUBECONFIG", "/dev/null")
        .output()
        .expect("the tool runs (kubectl is installed: tests use it as the reference)");
    assert!(output.status.success(), "{tool:?} failed: {}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8(output.stdout).expect("patch prints UTF-8")
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
    for case in &cases {
        let (name, object, patch_type, patch) = (
            case["name"].as_str().unwrap(),
            case["object"].as_str().unwrap(),
            case["type"].as_str().unwrap(),
            case["patch"].as_str().unwrap(),
        );
        let path = testdata().join("objects").join(object);
        let expected = kubectl_patch(&path, patch_type, patch);
        let actual = engine_patch(yaml(&std::fs::read_to_string(&path).unwrap()), patch_type, patch);
        if actual != expected {
            failures.push(format!("{name}:\n  kubectl: {expected}\n  kubeupd: {actual}"));
        }
    }
    assert!(failures.is_empty(), "{} of {} differ:\n{}", failures.len(), cases.len(), failures.join("\n"));
}

#[test]
fn cli_patches_locally_like_kubectl() {
    let kubeupd = || Command::new(env!("CARGO_BIN_EXE_kubeupd"));
    let cases = cases();
    let failures: Vec<String> = std::thread::scope(|scope| {
        let runs: Vec<_> = cases
            .iter()
            .map(|case| {
                scope.spawn(move || {
                    let (name, patch_type, patch) = (
                        case["name"].as_str().unwrap(),
                        case["type"].as_str().unwrap(),
                        case["patch"].as_str().unwrap(),
                    );
                    let object = testdata().join("objects").join(case["object"].as_str().unwrap());
                    let mut failures = Vec::new();
                    let ours = patch_locally(kubeupd(), &object, patch_type, patch, "json");
                    let theirs = patch_locally(Command::new("kubectl"), &object, patch_type, patch, "json");
                    let (ours, theirs): (Value, Value) =
                        (serde_json::from_str(&ours).unwrap(), serde_json::from_str(&theirs).unwrap());
                    if ours != theirs {
                        failures.push(format!("{name} (-o json):\n  kubectl: {theirs}\n  kubeupd: {ours}"));
                    }
                    let ours = patch_locally(kubeupd(), &object, patch_type, patch, "yaml");
                    let theirs = patch_locally(Command::new("kubectl"), &object, patch_type, patch, "yaml");
                    if ours != theirs {
                        failures.push(format!("{name} (-o yaml):\n--- kubectl:\n{theirs}--- kubeupd:\n{ours}"));
                    }
                    failures
                })
            })
            .collect();
        runs.into_iter().flat_map(|run| run.join().unwrap()).collect()
    });
    assert!(failures.is_empty(), "{} differences:\n{}", failures.len(), failures.join("\n"));
}
