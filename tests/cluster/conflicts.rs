//! Server-side apply conflicts named, on the real apiserver: another manager (the test plays an
//! autoscaler's controller) owns `spec.replicas`; a server-side apply that sets it is refused with
//! a table of the field, its manager and both values, and nothing changes; with
//! `--force-conflicts` it says what it took from whom, and the field changes hands.
use crate::support;

use serde_json::Value;
use support::{TestNamespace, parse_json};

/// A Deployment of 3 replicas, whose replicas another manager takes over in these tests.
const DEPLOYMENT: &str = include_str!("../../testdata/replicas/deployment.yaml");

fn live(namespace: &TestNamespace) -> Value {
    let json = namespace.kubectl_ok(&[
        "get",
        "deployment",
        "web",
        "-n",
        &namespace.name,
        "-o",
        "json",
        "--show-managed-fields",
    ]);
    parse_json(json.as_bytes())
}

/// The managers that own `spec.replicas`.
fn owners_of_replicas(object: &Value) -> Vec<String> {
    let entries = object["metadata"]["managedFields"].as_array().unwrap();
    let owns = |entry: &&Value| entry["fieldsV1"]["f:spec"].get("f:replicas").is_some();
    entries.iter().filter(owns).map(|entry| entry["manager"].as_str().unwrap().to_string()).collect()
}

/// Another manager (the test plays an autoscaler's controller) sets `spec.replicas` to 10.
fn take_replicas(namespace: &TestNamespace) {
    namespace.set_web_replicas_as("kube-controller-manager", 10, false);
}

#[test]
fn a_conflict_is_a_table_and_a_forced_takeover_says_what_it_took() {
    let namespace = TestNamespace::new("conflicts");
    let apply = |extra: &[&str]| {
        let mut command = namespace.kubeupd();
        command.args(["-n", &namespace.name, "apply", "--server-side", "-f", "-"]).args(extra);
        command.write_stdin(DEPLOYMENT).output().unwrap()
    };
    assert!(apply(&[]).status.success());
    take_replicas(&namespace);

    let refused = apply(&[]);
    let message = String::from_utf8_lossy(&refused.stderr).into_owned();
    assert_eq!(refused.status.code(), Some(1), "{message}");
    let table: Vec<&str> = message.lines().collect();
    assert!(table[0].ends_with("Apply failed with 1 conflict: these fields have other managers:"), "{message}");
    let cells = |line: &str| line.split_whitespace().map(String::from).collect::<Vec<_>>();
    assert_eq!(cells(table[1]), ["FIELD", "MANAGER", "LIVE", "OURS"], "{message}");
    assert_eq!(cells(table[2]), [".spec.replicas", "kube-controller-manager", "10", "3"], "{message}");
    assert!(table[3].starts_with("To take these fields over, apply again with --force-conflicts"), "{message}");
    assert_eq!(live(&namespace)["spec"]["replicas"], 10, "nothing changed");

    let forced = apply(&["--force-conflicts"]);
    let message = String::from_utf8_lossy(&forced.stderr).into_owned();
    assert!(forced.status.success(), "{message}");
    assert_eq!(String::from_utf8_lossy(&forced.stdout), "deployment.apps/web serverside-applied\n");
    assert_eq!(message, "deployment.apps/web: .spec.replicas taken from kube-controller-manager (10 -> 3)\n");
    let after = live(&namespace);
    assert_eq!(after["spec"]["replicas"], 3);
    assert_eq!(owners_of_replicas(&after), ["kubectl"]);

    let again = apply(&["--force-conflicts"]);
    assert!(again.status.success());
    assert_eq!(String::from_utf8_lossy(&again.stdout), "deployment.apps/web serverside-applied\n");
    assert!(again.stderr.is_empty(), "nothing is taken twice: {}", String::from_utf8_lossy(&again.stderr));
}

/// The refused apply changed nothing, so the object read before it gives the live values: it is
/// read once, not again after the refusal (a custom resource definition can be a megabyte).
#[test]
fn a_refused_apply_names_its_conflicts_from_the_object_read_before_it() {
    let rig = support::fault_proxy::Rig::new("conflicts-read");
    let apply = || rig.command(&["apply", "--server-side", "-f", "-"]).write_stdin(DEPLOYMENT).output().unwrap();
    assert!(apply().status.success());
    take_replicas(&rig.namespace);
    let reads_before = rig.count("GET", "/deployments/web");

    let refused = apply();
    let message = String::from_utf8_lossy(&refused.stderr).into_owned();
    assert_eq!(refused.status.code(), Some(1), "{message}");
    let row = message.lines().find(|line| line.trim_start().starts_with(".spec.replicas")).unwrap_or_default();
    assert_eq!(
        row.split_whitespace().collect::<Vec<_>>(),
        [".spec.replicas", "kube-controller-manager", "10", "3"],
        "{message}"
    );
    assert_eq!(rig.count("GET", "/deployments/web"), reads_before + 1, "read once, before the apply");
}
