//! Generated CustomResourceDefinitions (kube-prometheus v0.9.0's, in testdata/crd-heavy) carry
//! `creationTimestamp: null` and an empty `status`, which the server keeps as they are on every
//! write to the object. kubectl sends them again on every apply (and says `configured`): the first
//! time, the server gives kubectl's manager the status fields sent; after that it writes nothing.
//! kubeupd sends the first patch too, so that ownership stays kubectl's, and then nothing
//! (`unchanged`). Each definition is read by itself: a list would read every definition of the
//! cluster.
mod support;

use serde_json::Value;
use support::{TestNamespace, parse_json, testdata};

/// The plural of each definition, and the name its file has in the setup folder: the four
/// smaller ones (70 KB and less), enough for a list.
const DEFINITIONS: [(&str, &str); 4] = [
    ("podmonitors", "podmonitor"),
    ("probes", "probe"),
    ("prometheusrules", "prometheusrule"),
    ("servicemonitors", "servicemonitor"),
];

/// A file holding the definitions, renamed to a group of this test's own so that nothing
/// else on the cluster shares them.
fn definitions(group: &str, dir: &std::path::Path, file_name: &str) -> std::path::PathBuf {
    let setup = testdata("crd-heavy/kube-prometheus-setup/v0.9.0");
    let mut text = String::new();
    for (_, file) in DEFINITIONS {
        let file = setup.join(format!("prometheus-operator-0{file}CustomResourceDefinition.yaml"));
        text.push_str("---\n");
        text.push_str(&std::fs::read_to_string(file).unwrap().replace("monitoring.coreos.com", group));
    }
    let path = dir.join(format!("{file_name}.yaml"));
    std::fs::write(&path, text).unwrap();
    path
}

/// Each definition's resourceVersion, and its managedFields without times.
fn state(namespace: &TestNamespace, group: &str) -> (Vec<String>, Vec<Value>) {
    DEFINITIONS
        .iter()
        .map(|(name, _)| {
            let name = format!("{name}.{group}");
            let crd = parse_json(
                namespace.kubectl_ok(&["get", "crd", &name, "-o", "json", "--show-managed-fields"]).as_bytes(),
            );
            let mut fields = crd["metadata"]["managedFields"].clone();
            for entry in fields.as_array_mut().unwrap() {
                entry.as_object_mut().unwrap().remove("time");
            }
            (crd["metadata"]["resourceVersion"].as_str().unwrap().to_string(), fields)
        })
        .unzip()
}

fn apply(namespace: &TestNamespace, tool: &str, file: &str, verbose: bool) -> (String, Vec<String>) {
    let output = if tool == "kubectl" {
        namespace.kubectl().args(["apply", "-f", file]).output().unwrap()
    } else {
        let mut command = namespace.kubeupd();
        command.args(["apply", "-f", file]);
        if verbose {
            command.arg("-v=6");
        }
        command.output().unwrap()
    };
    assert!(output.status.success(), "{tool}: {}", String::from_utf8_lossy(&output.stderr));
    let log = String::from_utf8_lossy(&output.stderr);
    let requests = log.lines().filter(|line| line.ends_with(" milliseconds")).map(String::from).collect();
    (String::from_utf8_lossy(&output.stdout).into_owned(), requests)
}

#[test]
fn an_unchanged_generated_definition_is_neither_listed_nor_patched() {
    let namespace = TestNamespace::new("crd-heavy");
    let dir = tempfile::tempdir().unwrap();
    let ours = format!("ours-{}.kubeupd.test", namespace.name);
    let theirs = format!("theirs-{}.kubeupd.test", namespace.name);
    let our_file = definitions(&ours, dir.path(), "ours");
    let their_file = definitions(&theirs, dir.path(), "theirs");
    let (our_file, their_file) = (our_file.to_str().unwrap(), their_file.to_str().unwrap());

    // Created, then (once the server has filled in their status) applied again: both tools send
    // the patch that hands the status fields to client-side apply's manager, and the ownership is
    // the same.
    apply(&namespace, "kubectl", their_file, false);
    apply(&namespace, "kubeupd", our_file, false);
    for group in [&ours, &theirs] {
        let mut wait = vec!["wait", "--for=condition=Established", "--timeout=60s"];
        let names: Vec<String> = DEFINITIONS.iter().map(|(name, _)| format!("crd/{name}.{group}")).collect();
        wait.extend(names.iter().map(String::as_str));
        namespace.kubectl_ok(&wait);
    }
    apply(&namespace, "kubectl", their_file, false);
    apply(&namespace, "kubeupd", our_file, false);
    let (before, our_fields) = state(&namespace, &ours);
    let (_, their_fields) = state(&namespace, &theirs);
    assert_eq!(our_fields, their_fields, "the same field ownership as kubectl's");

    // Applied once more, kubeupd reads each definition and sends nothing.
    let (stdout, requests) = apply(&namespace, "kubeupd", our_file, true);
    for (name, _) in DEFINITIONS {
        let line = format!("customresourcedefinition.apiextensions.k8s.io/{name}.{ours} unchanged");
        assert!(stdout.contains(&line), "{line} in:\n{stdout}");
    }
    let requests = requests.join("\n");
    assert!(!requests.contains(" PATCH "), "nothing is patched:\n{requests}");
    assert!(!requests.contains("/customresourcedefinitions "), "the definitions are not listed:\n{requests}");
    assert_eq!(requests.matches(" GET ").count(), DEFINITIONS.len(), "{requests}");

    // kubectl sends the patch, and the server writes nothing.
    let (stdout, _) = apply(&namespace, "kubectl", our_file, false);
    assert_eq!(stdout.matches(" configured").count(), DEFINITIONS.len(), "{stdout}");
    assert_eq!(state(&namespace, &ours), (before.clone(), our_fields), "kubectl's patches wrote nothing");

    // A real change is sent.
    let changed = std::fs::read_to_string(our_file).unwrap().replacen("description: ", "description: Changed. ", 1);
    std::fs::write(our_file, changed).unwrap();
    let (stdout, _) = apply(&namespace, "kubeupd", our_file, false);
    assert_eq!(stdout.matches(" configured").count(), 1, "{stdout}");
    assert_ne!(state(&namespace, &ours).0, before);

    for group in [&ours, &theirs] {
        let names: Vec<String> = DEFINITIONS.iter().map(|(name, _)| format!("{name}.{group}")).collect();
        let mut delete = vec!["delete", "crd", "--wait=false"];
        delete.extend(names.iter().map(String::as_str));
        namespace.kubectl_ok(&delete);
    }
}
