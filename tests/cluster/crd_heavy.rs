//! Generated CustomResourceDefinitions (kube-prometheus v0.9.0's, in testdata/crd-heavy) carry
//! `creationTimestamp: null` and an empty `status`, which the server keeps as they are on every
//! write to the object. kubectl sends them again on every apply (and says `configured`), and the
//! server writes nothing (before 1.22 it gave kubectl's manager the status fields sent the first
//! time, and kubeupd sends that first patch too). kubeupd sends nothing (`unchanged`), and the
//! ownership is kubectl's. Each definition is read by itself: a list would read every definition of the
//! cluster. A definition holds back only the objects of its kind: the rest of an install is
//! written while the server works on its definitions.
use crate::support;

use std::process::Stdio;
use std::time::{Duration, Instant};

use serde_json::Value;
use support::fault_proxy::{Fault, Rig};
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

/// `object`'s managedFields without times, in one order: the server orders them by time, to the
/// second, then by manager, so whether the server's status entry comes before the applier's
/// depends on whether the definition was Established within the second it was written.
fn owners_untimed(object: &Value) -> Value {
    let mut fields = object["metadata"]["managedFields"].as_array().unwrap().clone();
    for entry in &mut fields {
        entry.as_object_mut().unwrap().remove("time");
    }
    fields.sort_by_key(Value::to_string);
    Value::Array(fields)
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
            (crd["metadata"]["resourceVersion"].as_str().unwrap().to_string(), owners_untimed(&crd))
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

    // Created, then (once the server has filled in their status) applied again: the ownership is
    // the same (before 1.22 both tools sent the patch that hands the status fields to client-side
    // apply's manager; since then no write gives them to it, and kubeupd sends nothing).
    apply(&namespace, "kubectl", their_file, false);
    apply(&namespace, "kubeupd", our_file, false);
    for group in [&ours, &theirs] {
        let names: Vec<String> = DEFINITIONS.iter().map(|(name, _)| format!("crd/{name}.{group}")).collect();
        namespace.wait_established(&names.iter().map(String::as_str).collect::<Vec<_>>());
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

/// The documents of a real input that hold `marker` (e.g. `name: web`), joined, with the
/// namespace they name left to `-n` and Gatekeeper's group renamed to `group`.
fn documents(relative: &str, markers: &[&str], group: &str) -> String {
    let text = std::fs::read_to_string(testdata(relative)).unwrap();
    let chosen: Vec<&str> = text
        .split("\n---\n")
        .filter(|document| {
            markers.iter().any(|marker| format!("{document}\n").contains(&format!("\n  name: {marker}\n")))
        })
        .collect();
    assert_eq!(chosen.len(), markers.len(), "{markers:?} in {relative}");
    chosen.join("\n---\n").replace("  namespace: gatekeeper-system\n", "").replace("gatekeeper.sh", group) + "\n"
}

/// Each object's resourceVersion and managedFields without times, as `kubectl get` reads them.
fn versions_and_owners(namespace: &TestNamespace, names: &[String]) -> Vec<(String, Value)> {
    let mut args = vec!["get", "-n", &namespace.name, "-o", "json", "--show-managed-fields"];
    args.extend(names.iter().map(String::as_str));
    let list = parse_json(namespace.kubectl_ok(&args).as_bytes());
    list["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|object| (object["metadata"]["resourceVersion"].as_str().unwrap().to_string(), owners_untimed(object)))
        .collect()
}

/// Real inputs set fields the server keeps otherwise than they are written: Gatekeeper's
/// `preserveUnknownFields: false` (a Go bool the server omits when false), `cpu: 1000m` (kept as
/// `1`) and `pods: 100` (kept as `"100"`), Argo CD's `data: null` on a ConfigMap without data.
/// kubectl patches them on every apply and the server writes nothing; kubeupd sends nothing and
/// says `unchanged`, with the same objects and field ownership as kubectl's; a real change of a
/// quantity is still sent.
#[test]
fn values_the_server_stores_otherwise_are_not_patched_again() {
    let twins = support::Twins::new("stored");
    let dir = tempfile::tempdir().unwrap();
    let input = |side: &TestNamespace| {
        let group = format!("{}.kubeupd.test", side.name);
        let gatekeeper = documents(
            "crd-heavy/gatekeeper/gatekeeper-v3.7.2.yaml",
            &["gatekeeper-critical-pods", "providers.externaldata.gatekeeper.sh", "gatekeeper-audit"],
            &group,
        );
        let argo = documents("crd-heavy/argo-cd/install-v2.3.3.yaml", &["argocd-tls-certs-cm"], &group);
        let path = dir.path().join(format!("{}.yaml", side.name));
        std::fs::write(&path, format!("{gatekeeper}---\n{argo}")).unwrap();
        let names = vec![
            "resourcequota/gatekeeper-critical-pods".to_string(),
            format!("crd/providers.externaldata.{group}"),
            "deployment/gatekeeper-audit".to_string(),
            "configmap/argocd-tls-certs-cm".to_string(),
        ];
        (path.to_str().unwrap().to_string(), names, group)
    };
    let (our_file, our_names, our_group) = input(&twins.ours);
    let (their_file, their_names, their_group) = input(&twins.theirs);
    let ours = |args: &[&str]| twins.ours.kubeupd().args(["-n", &twins.ours.name]).args(args).output().unwrap();
    let theirs = |file: &str, namespace: &str| {
        twins.theirs.kubectl().args(["-n", namespace, "apply", "-f", file]).output().unwrap()
    };

    // Created, then (once the definitions are Established) applied again by each tool.
    assert!(theirs(&their_file, &twins.theirs.name).status.success());
    assert!(ours(&["apply", "-f", &our_file]).status.success());
    for group in [&our_group, &their_group] {
        twins.ours.wait_established(&[&format!("crd/providers.externaldata.{group}")]);
    }
    assert!(theirs(&their_file, &twins.theirs.name).status.success());
    assert!(ours(&["apply", "-f", &our_file]).status.success());
    let before = versions_and_owners(&twins.ours, &our_names);
    // The group is each side's own, in label keys too.
    let owners = |state: &[(String, Value)], group: &str| {
        state.iter().map(|(_, owners)| owners.to_string().replace(group, "GROUP")).collect::<Vec<_>>()
    };
    let theirs_now = versions_and_owners(&twins.theirs, &their_names);
    assert_eq!(owners(&before, &our_group), owners(&theirs_now, &their_group), "kubectl's ownership");

    // kubeupd: nothing sent, every object unchanged.
    let output = ours(&["apply", "-f", &our_file, "-v=6"]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(stdout.matches(" unchanged\n").count(), 4, "{stdout}");
    let log = String::from_utf8_lossy(&output.stderr);
    assert!(!log.contains(" PATCH "), "nothing is patched:\n{log}");
    assert_eq!(versions_and_owners(&twins.ours, &our_names), before);

    // kubectl sends the four patches and the server writes nothing.
    let output = theirs(&our_file, &twins.ours.name);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(stdout.matches(" configured\n").count(), 4, "{stdout}");
    assert_eq!(versions_and_owners(&twins.ours, &our_names), before, "kubectl's patches wrote nothing");

    // Another amount is a change, sent by both tools alike.
    for file in [&our_file, &their_file] {
        let text = std::fs::read_to_string(file).unwrap().replacen("cpu: 1000m", "cpu: 1500m", 1);
        std::fs::write(file, text).unwrap();
    }
    let output = ours(&["apply", "-f", &our_file]);
    assert!(String::from_utf8_lossy(&output.stdout).contains("deployment.apps/gatekeeper-audit configured\n"));
    assert!(theirs(&their_file, &twins.theirs.name).status.success());
    let deployment = twins.assert_same("deployment/gatekeeper-audit", "after the change");
    assert_eq!(deployment["spec"]["template"]["spec"]["containers"][0]["resources"]["limits"]["cpu"], "1500m");

    for group in [&our_group, &their_group] {
        twins.ours.kubectl_ok(&["delete", "crd", "--wait=false", &format!("providers.externaldata.{group}")]);
    }
}

/// A definition of a kind `Sprocket` in `group`, with `label` set.
fn sprocket_definition(group: &str, label: &str) -> String {
    format!(
        "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\n\
         metadata: {{name: sprockets.{group}, labels: {{round: \"{label}\"}}}}\n\
         spec:\n  group: {group}\n  scope: Namespaced\n  \
         names: {{kind: Sprocket, plural: sprockets, singular: sprocket, listKind: SprocketList}}\n  \
         versions: [{{name: v1, served: true, storage: true, schema: {{openAPIV3Schema: {{type: object, \
         x-kubernetes-preserve-unknown-fields: true}}}}}}]\n"
    )
}

/// `apply -f -` of `input` through the rig (with `flags`), started and left running, its output
/// piped.
fn apply_started(rig: &Rig, flags: &[&str], input: &str) -> std::process::Child {
    let mut child = rig
        .process(&[&["apply"], flags, &["-f", "-"]].concat())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::io::Write::write_all(&mut child.stdin.take().unwrap(), input.as_bytes()).unwrap();
    child
}

/// Starts `kubeupd apply` of `input` with the answer to the definition's PATCH held back for
/// six seconds; returns whether `kind/name` was created while that answer was held (looked for
/// during the first four, from when the apply starts), and the apply's output once it ends.
fn created_while_the_definition_is_written(
    rig: &Rig,
    definition: &str,
    input: &str,
    kind: &str,
    name: &str,
) -> (bool, std::process::Output) {
    // Discovery and the schemas read first, outside the window looked in: a busy machine takes
    // seconds to read them the first time.
    let warm = rig.command(&["apply", "--dry-run=client", "-f", "-"]).write_stdin(input.to_string()).output().unwrap();
    assert!(warm.status.success(), "{}", String::from_utf8_lossy(&warm.stderr));
    let held = Duration::from_secs(6);
    rig.proxy.inject("PATCH", &format!("/customresourcedefinitions/{definition}"), Fault::Slow(held), 1);
    let mut child = apply_started(rig, &[], input);
    let started = Instant::now();
    let mut created = false;
    while !created && started.elapsed() < held - Duration::from_secs(2) {
        let found = rig.namespace.kubectl().args(["get", kind, name, "-n", &rig.namespace.name]).output().unwrap();
        created = found.status.success();
        std::thread::sleep(Duration::from_millis(100));
    }
    assert!(child.try_wait().unwrap().is_none(), "the answer to the definition's PATCH was held back while looking");
    (created, child.wait_with_output().unwrap())
}

/// A definition whose kind no object of the input has holds nothing back: the other objects are
/// written while the server works on it (large definitions take it long). One whose kind the
/// input has objects of is written first: its objects may need what it changes.
#[test]
fn only_definitions_of_kinds_the_input_has_hold_the_other_objects_back() {
    let rig = Rig::new("crd-order");
    let group = format!("t{}.order.kubeupd.test", rig.namespace.name.replace('-', ""));
    let definition = format!("sprockets.{group}");
    rig.namespace.apply(&sprocket_definition(&group, "0"));
    rig.namespace.wait_established(&[&format!("crd/{definition}")]);
    let configmap = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: beside}\ndata: {v: \"1\"}\n";
    let input = format!("{}---\n{configmap}", sprocket_definition(&group, "1"));
    let (beside, output) = created_while_the_definition_is_written(&rig, &definition, &input, "configmap", "beside");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    assert!(beside, "the ConfigMap waited for a definition it does not need");
    let sprocket = format!("apiVersion: {group}/v1\nkind: Sprocket\nmetadata: {{name: first}}\n");
    let input = format!("{}---\n{sprocket}", sprocket_definition(&group, "2"));
    let (early, output) = created_while_the_definition_is_written(&rig, &definition, &input, &definition, "first");
    let _ = rig.namespace.kubectl().args(["delete", "crd", &definition, "--wait=false"]).output();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    assert!(!early, "the Sprocket was written before its definition");
    assert_eq!(
        String::from_utf8_lossy(&output.stdout),
        format!(
            "customresourcedefinition.apiextensions.k8s.io/{definition} configured\nsprocket.{group}/first created\n"
        )
    );
}

/// A rig, and an input of a new `Sprocket` definition (in a group of the rig's own) followed by
/// one Sprocket, `first`.
struct SprocketInput {
    rig: Rig,
    group: String,
    definition: String,
    input: String,
}

fn sprocket_input(rig_name: &str) -> SprocketInput {
    let rig = Rig::new(rig_name);
    let group = format!("t{}.kubeupd.test", rig.namespace.name.replace('-', ""));
    let definition = format!("sprockets.{group}");
    let sprocket = format!("apiVersion: {group}/v1\nkind: Sprocket\nmetadata: {{name: first}}\n");
    let input = format!("{}---\n{sprocket}", sprocket_definition(&group, "0"));
    SprocketInput { rig, group, definition, input }
}

/// The server says a definition is established a moment before it serves its kind (an object
/// sent meanwhile is answered `404 page not found`): the objects of a new kind wait until the
/// kind's list is answered. Here the proxy answers it 404 three times.
#[test]
fn objects_of_a_new_kind_wait_until_the_kind_is_served() {
    let SprocketInput { rig, group, definition, input } = sprocket_input("crd-served");
    let listed = format!("/apis/{group}/v1/sprockets?limit=1");
    rig.proxy.inject("GET", &listed, Fault::Status { code: 404, reason: "NotFound", retry_after: None }, 3);
    let output = rig.command(&["apply", "-f", "-"]).write_stdin(input).output().unwrap();
    let _ = rig.namespace.kubectl().args(["delete", "crd", &definition, "--wait=false"]).output();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    assert_eq!(
        String::from_utf8_lossy(&output.stdout),
        format!("customresourcedefinition.apiextensions.k8s.io/{definition} created\nsprocket.{group}/first created\n")
    );
    let seen = rig.proxy.seen();
    let lists: Vec<usize> = (0..seen.len()).filter(|&at| seen[at].method == "GET" && seen[at].path == listed).collect();
    // Three 404s from the proxy, then the server's answers: it may itself answer 404 a moment more.
    assert!(lists.len() >= 4, "listed until the list was answered: {} lists", lists.len());
    let objects = format!("/namespaces/{}/sprockets", rig.namespace.name);
    let first_sent = seen.iter().position(|request| request.path.contains(&objects)).unwrap();
    assert!(first_sent > *lists.last().unwrap(), "the Sprocket was sent before its kind was served");
}

/// A definition deleted and written again: its kind is still in the discovery cached before, so
/// its objects are not held back to resolve it, yet they still wait until it is served again.
#[test]
fn objects_of_a_kind_known_from_before_wait_for_its_definition_written_again() {
    let SprocketInput { rig, group, definition, input } = sprocket_input("crd-again");
    let apply = || rig.command(&["apply", "-f", "-"]).write_stdin(input.clone()).output().unwrap();
    assert!(apply().status.success());
    rig.namespace.kubectl_ok(&["delete", "crd", &definition, "--wait=true"]);
    let before = rig.proxy.seen().len();
    let output = apply();
    let _ = rig.namespace.kubectl().args(["delete", "crd", &definition, "--wait=false"]).output();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let seen = &rig.proxy.seen()[before..];
    let listed = format!("/apis/{group}/v1/sprockets?limit=1");
    // The last list is the one answered: the object goes out only after it.
    let served = seen.iter().rposition(|request| request.path == listed).expect("the kind's list, to see it served");
    let objects = format!("/namespaces/{}/sprockets", rig.namespace.name);
    let first_sent = seen.iter().position(|request| request.path.contains(&objects)).unwrap();
    assert!(first_sent > served, "the Sprocket was sent before its kind was served again");
}

/// The reads before the first write go out together: the list of a kind with nothing to check
/// (ServiceAccounts) and the read of an object too alone of its type to list (a Role) are not
/// held back until the checks' list (ConfigMaps, whose `immutable` data cannot change) is
/// answered, nor sent again once the apply starts.
#[test]
fn the_reads_before_the_first_write_go_out_together() {
    let rig = Rig::new("read-round");
    let role = "apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata: {name: lone}\nrules: []\n";
    let input: String = (0..3)
        .map(|n| {
            format!(
                "apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: cm-{n}}}\n---\n\
                 apiVersion: v1\nkind: ServiceAccount\nmetadata: {{name: sa-{n}}}\n---\n"
            )
        })
        .chain([role.to_string()])
        .collect();
    // Discovery and the schemas read first, outside the window looked in.
    let warm = rig.command(&["apply", "--dry-run=client", "-f", "-"]).write_stdin(input.clone()).output().unwrap();
    assert!(warm.status.success(), "{}", String::from_utf8_lossy(&warm.stderr));
    let (lists_before, reads_before) = (rig.count("GET", "/serviceaccounts"), rig.count("GET", "/roles/lone"));
    let held = Duration::from_secs(4);
    rig.proxy.inject("GET", "/configmaps", Fault::Slow(held), 1);
    let mut child = apply_started(&rig, &[], &input);
    let started = Instant::now();
    let (mut listed, mut read) = (false, false);
    while !(listed && read) && started.elapsed() < held - Duration::from_secs(1) {
        listed = rig.count("GET", "/serviceaccounts") > lists_before;
        read = rig.count("GET", "/roles/lone") > reads_before;
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(child.try_wait().unwrap().is_none(), "the answer to the ConfigMaps' list was held back while looking");
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    assert!(listed, "the ServiceAccounts were listed only once the ConfigMaps' list was answered");
    assert!(read, "the Role was read only once the ConfigMaps' list was answered");
    assert_eq!(rig.count("GET", "/serviceaccounts"), lists_before + 1, "listed once");
    assert_eq!(rig.count("GET", "/roles/lone"), reads_before + 1, "the Role read once");
    let expected: String = (0..3)
        .map(|n| format!("configmap/cm-{n} created\nserviceaccount/sa-{n} created\n"))
        .chain(["role.rbac.authorization.k8s.io/lone created\n".to_string()])
        .collect();
    assert_eq!(String::from_utf8_lossy(&output.stdout), expected);
}

/// The round of reads before the first write closes when the apply starts: a read the round had
/// no place for (a Namespace's, the two places taken by reads held back) is left to the object's
/// own apply, which goes first, and is not queued behind the reads held.
#[test]
fn a_read_the_round_had_no_place_for_is_left_to_its_objects_apply() {
    let rig = Rig::new("read-close");
    let namespace = format!("{}-first", rig.namespace.name);
    let input = format!(
        "apiVersion: v1\nkind: ServiceAccount\nmetadata: {{name: lone}}\n---\n\
         apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata: {{name: lone}}\nrules: []\n---\n\
         apiVersion: v1\nkind: Namespace\nmetadata: {{name: {namespace}}}\n"
    );
    // Two places in the round: one list or read each for two objects.
    let flags = ["--concurrency", "2"];
    // Discovery and the schemas read first, outside the window looked in.
    let warm_up = [&["apply", "--dry-run=client"], &flags[..], &["-f", "-"]].concat();
    let warm = rig.command(&warm_up).write_stdin(input.clone()).output().unwrap();
    assert!(warm.status.success(), "{}", String::from_utf8_lossy(&warm.stderr));
    let namespace_read = format!("/api/v1/namespaces/{namespace}");
    let reads =
        |rig: &Rig| ["/serviceaccounts/lone", "/roles/lone", &namespace_read].map(|path| rig.count("GET", path));
    let reads_before = reads(&rig);
    let held = Duration::from_secs(6);
    rig.proxy.inject("GET", &format!("/namespaces/{}/", rig.namespace.name), Fault::Slow(held), 2);
    let mut child = apply_started(&rig, &flags, &input);
    let started = Instant::now();
    let mut created = false;
    while !created && started.elapsed() < held - Duration::from_secs(2) {
        created = rig.namespace.kubectl().args(["get", "namespace", &namespace]).output().unwrap().status.success();
        std::thread::sleep(Duration::from_millis(100));
    }
    assert!(child.try_wait().unwrap().is_none(), "the reads were held back while looking");
    let output = child.wait_with_output().unwrap();
    let _ = rig.namespace.kubectl().args(["delete", "namespace", &namespace, "--wait=false"]).output();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    assert!(created, "the Namespace was created only once the reads held back were answered");
    assert_eq!(reads(&rig), reads_before.map(|count| count + 1), "each object read once");
    let expected = format!(
        "serviceaccount/lone created\nrole.rbac.authorization.k8s.io/lone created\nnamespace/{namespace} created\n"
    );
    assert_eq!(String::from_utf8_lossy(&output.stdout), expected);
}
