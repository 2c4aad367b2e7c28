//! The engine against kubectl as the oracle: every patch in testdata/patches.yaml is applied to its
//! object by `kubectl patch --local` and by the engine, and the objects must be equal.
#![cfg(feature = "cluster-tests")]

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
    let output = Command::new("kubectl")
        .args(["patch", "--local", "-o", "json", "--type", patch_type, "-p", patch, "-f"])
        .arg(object)
        .env("KUBECONFIG", "/dev/null")
        .output()
        .expect("kubectl is installed (tests use it as the reference)");
    assert!(output.status.success(), "kubectl failed: {}", String::from_utf8_lossy(&output.stderr));
    serde_json::from_slice(&output.stdout).expect("kubectl prints JSON")
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

#[test]
fn engine_patches_like_kubectl() {
    let cases: Vec<Value> = yaml(&std::fs::read_to_string(testdata().join("patches.yaml")).unwrap())
        .as_array()
        .cloned()
        .unwrap();
    assert!(cases.len() >= 30);
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
