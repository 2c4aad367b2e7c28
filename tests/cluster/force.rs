//! `--force` of `apply` and `replace` never loses the object: a configuration the server refuses
//! deletes nothing (real apiserver); a create that fails after the delete puts the original back,
//! and when even that fails the original is saved to a file (faults injected by the proxy).
use crate::support;

use std::os::unix::fs::PermissionsExt as _;
use std::process::Output;

use serde_json::Value;
use support::fault_proxy::{Fault, Rig};
use support::{TestNamespace, parse_json, parse_yaml};

const DEPLOYMENT: &str = include_str!("../../testdata/replace/deployment.yaml");

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

fn live(namespace: &TestNamespace, what: &str) -> Value {
    parse_json(namespace.kubectl_ok(&["get", what, "-n", &namespace.name, "-o", "json"]).as_bytes())
}

#[test]
fn a_configuration_the_server_refuses_deletes_nothing() {
    let namespace = TestNamespace::new("force-refused");
    namespace.apply(DEPLOYMENT);
    let before = live(&namespace, "deployment/web");
    // replicas: -1 makes the patch invalid, so --force would re-create the object; the server
    // refuses that object too, and it is left alone.
    let refused = DEPLOYMENT.replace("replicas: 2", "replicas: -1");
    let file = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(file.path(), &refused).unwrap();
    let path = file.path().to_str().unwrap();
    for verb in [&["apply", "--force", "-f", path][..], &["replace", "--force", "-f", path]] {
        let output = namespace.kubeupd().args(["-n", &namespace.name]).args(verb).output().unwrap();
        assert_eq!(output.status.code(), Some(1), "{verb:?}: {}", stderr(&output));
        assert!(output.stdout.is_empty(), "{verb:?}");
        let message = stderr(&output);
        assert_eq!(message.lines().count(), 1, "{verb:?}: {message}");
        assert!(
            message.contains("deployment.apps/web was not deleted (--force): the server refuses to create it")
                && message.contains("spec.replicas: Invalid value: -1: must be greater than or equal to 0"),
            "{verb:?}: {message}"
        );
        let after = live(&namespace, "deployment/web");
        assert_eq!(after["metadata"]["uid"], before["metadata"]["uid"], "{verb:?}: the object was re-created");
        assert_eq!(after["spec"], before["spec"], "{verb:?}");
    }
}

/// The create that follows the delete of `resource`, not the dry-run check (whose query starts
/// with `dryRun`).
fn real_create(resource: &str) -> String {
    format!("/{resource}?fieldManager=")
}

/// A refusal the client does not retry (a 5xx would be sent again and then succeed).
fn refused() -> Fault {
    Fault::Status { code: 403, reason: "Forbidden", retry_after: None }
}

#[test]
fn a_create_that_fails_after_the_delete_puts_the_original_back() {
    let rig = Rig::new("force-restore");
    rig.namespace.apply(DEPLOYMENT);
    let before = live(&rig.namespace, "deployment/web");
    // A Deployment's selector cannot change: the patch is refused, and --force re-creates.
    let reselected = DEPLOYMENT.replace("{app: web}", "{app: web, v: \"2\"}");
    rig.proxy.inject("POST", &real_create("deployments"), refused(), 1);
    let (output, _) = rig.kubeupd(&["apply", "--force", "-f", "-"], &reselected);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let message = stderr(&output);
    assert!(
        message.contains(
            "deployment.apps/web was deleted (--force) but could not be created from the new configuration: "
        ) && message.contains("injected 403 Forbidden")
            && message.ends_with("; the original was created again\n"),
        "{message}"
    );
    let restored = live(&rig.namespace, "deployment/web");
    assert_ne!(restored["metadata"]["uid"], before["metadata"]["uid"]);
    assert_eq!(restored["spec"], before["spec"]);
    assert_eq!(restored["metadata"]["labels"], before["metadata"]["labels"]);
    assert_eq!(rig.count("POST", &real_create("deployments")), 2, "the new object, then the original");
}

#[test]
fn a_replacement_whose_create_fails_puts_the_original_back() {
    let rig = Rig::new("replace-restore");
    let job = |image: &str| {
        format!(
            "apiVersion: batch/v1\nkind: Job\nmetadata: {{name: once}}\nspec:\n  template:\n    spec: {{restartPolicy: \
             Never, containers: [{{name: a, image: '{image}'}}]}}\n"
        )
    };
    rig.namespace.apply(&job("busybox:1"));
    let before = live(&rig.namespace, "job/once");
    rig.proxy.inject("POST", &real_create("jobs"), refused(), 1);
    let (output, _) = rig.kubeupd(&["apply", "--replace-immutable", "-f", "-"], &job("busybox:2"));
    let message = stderr(&output);
    assert_eq!(output.status.code(), Some(1), "{message}");
    assert!(
        message.contains(
            "job.batch/once was deleted (to replace it: a field that cannot change changes) but could not be created"
        ) && message.ends_with("; the original was created again\n"),
        "{message}"
    );
    let restored = live(&rig.namespace, "job/once");
    assert_ne!(restored["metadata"]["uid"], before["metadata"]["uid"]);
    assert_eq!(restored["spec"]["template"]["spec"]["containers"][0]["image"], "busybox:1");
    assert_eq!(rig.count("POST", &real_create("jobs")), 2, "the new object, then the original");
}

#[test]
fn when_the_original_cannot_be_created_either_it_is_saved_to_a_file() {
    let rig = Rig::new("force-save");
    rig.namespace.apply("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x, labels: {keep: me}}\ndata: {v: \"1\"}\n");
    rig.proxy.inject("POST", &real_create("configmaps"), refused(), 2);
    let temp = tempfile::tempdir().unwrap();
    let output = rig
        .command(&["replace", "--force", "-f", "-"])
        .env("TMPDIR", temp.path())
        .write_stdin("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\ndata: {v: \"2\"}\n")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let message = stderr(&output);
    assert!(message.contains("creating the original again failed too: "), "{message}");
    let saved = message.trim_end().rsplit(" the original is saved in ").next().unwrap();
    assert!(saved.starts_with(temp.path().to_str().unwrap()) && saved.ends_with(".yaml"), "{message}");
    let mode = std::fs::metadata(saved).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600, "the saved object may be a Secret");
    let original = parse_yaml(&std::fs::read(saved).unwrap());
    assert_eq!((&original["data"]["v"], &original["metadata"]["labels"]["keep"]), (&"1".into(), &"me".into()));
    assert!(original["metadata"].get("uid").is_none() && original["metadata"].get("resourceVersion").is_none());
    let gone = rig.namespace.kubectl().args(["get", "configmap/x", "-n", &rig.namespace.name]).output().unwrap();
    assert!(stderr(&gone).contains("NotFound"), "both creates failed, so the object is gone: {}", stderr(&gone));
    // The file is what is needed to create the object again.
    rig.namespace.kubectl_ok(&["create", "-n", &rig.namespace.name, "-f", saved]);
    assert_eq!(live(&rig.namespace, "configmap/x")["data"]["v"], "1");
}

/// The manifest whose apply `--force` turns into a delete and a create: a Deployment's selector
/// cannot change.
fn reselected() -> String {
    DEPLOYMENT.replace("{app: web}", "{app: web, v: \"2\"}")
}

#[test]
fn a_delete_whose_answer_is_lost_is_read_back_and_the_create_goes_on() {
    let rig = Rig::new("force-lost-delete");
    rig.namespace.apply(DEPLOYMENT);
    let before = live(&rig.namespace, "deployment/web");
    rig.proxy.inject("DELETE", "/deployments/web", Fault::Reset { after_forwarding: true }, 1);
    let (output, _) = rig.kubeupd(&["apply", "--force", "-f", "-"], &reselected());
    assert!(output.status.success(), "{}", stderr(&output));
    let after = live(&rig.namespace, "deployment/web");
    assert_ne!(after["metadata"]["uid"], before["metadata"]["uid"], "created again");
    assert_eq!(after["spec"]["selector"]["matchLabels"]["v"], "2");
    assert_eq!(rig.count("DELETE", "/deployments/web"), 2, "sent again, the delete finds the object gone");
}

#[test]
fn a_delete_that_never_reached_the_server_deletes_nothing() {
    let rig = Rig::new("force-unsent-delete");
    rig.namespace.apply(DEPLOYMENT);
    let before = live(&rig.namespace, "deployment/web");
    // On every attempt (six).
    rig.proxy.inject("DELETE", "/deployments/web", Fault::Reset { after_forwarding: false }, 6);
    let (output, _) = rig.kubeupd(&["apply", "--force", "-f", "-"], &reselected());
    let message = stderr(&output);
    assert_eq!(output.status.code(), Some(1), "{message}");
    assert!(
        message.contains("read back afterwards, the write is not applied; run the same command again"),
        "{message}"
    );
    assert_eq!(rig.count("POST", &real_create("deployments")), 0, "nothing was created");
    assert_eq!(live(&rig.namespace, "deployment/web")["metadata"]["uid"], before["metadata"]["uid"]);
}

#[test]
fn a_create_whose_answer_is_lost_after_the_delete_is_read_back_not_undone() {
    let rig = Rig::new("force-lost-create");
    rig.namespace.apply(DEPLOYMENT);
    rig.proxy.inject("POST", &real_create("deployments"), Fault::Reset { after_forwarding: true }, 1);
    let (output, _) = rig.kubeupd(&["apply", "--force", "-f", "-"], &reselected());
    let message = stderr(&output);
    assert!(output.status.success(), "{message}");
    assert_eq!(rig.count("POST", &real_create("deployments")), 1, "the original was not created over it");
    assert_eq!(live(&rig.namespace, "deployment/web")["spec"]["selector"]["matchLabels"]["v"], "2");
}

#[test]
fn when_the_server_stops_answering_after_the_delete_the_original_is_saved() {
    let rig = Rig::new("force-gone");
    rig.namespace.apply(DEPLOYMENT);
    // The first attempt deletes; the five others never reach the server.
    rig.proxy.inject("DELETE", "/deployments/web", Fault::Reset { after_forwarding: true }, 1);
    rig.proxy.inject("DELETE", "/deployments/web", Fault::Reset { after_forwarding: false }, 5);
    rig.proxy.inject("GET", "/version", Fault::Reset { after_forwarding: false }, 100);
    let temp = tempfile::tempdir().unwrap();
    let output =
        rig.command(&["apply", "--force", "-f", "-"]).env("TMPDIR", temp.path()).write_stdin(reselected()).output();
    let output = output.unwrap();
    let message = stderr(&output);
    assert_eq!(output.status.code(), Some(1), "{message}");
    assert!(
        message.contains("deployment.apps/web: deleting it (--force) failed: Unable to connect to the server: ")
            && message.contains("whether the object is still there is unknown: the original is saved in "),
        "{message}"
    );
    let saved = message.trim_end().rsplit(" the original is saved in ").next().unwrap();
    let original = parse_yaml(&std::fs::read(saved).unwrap());
    assert_eq!(original["spec"]["selector"]["matchLabels"], serde_json::json!({"app": "web"}));
    assert_eq!(rig.count("POST", &real_create("deployments")), 0, "nothing was created without knowing");
}
