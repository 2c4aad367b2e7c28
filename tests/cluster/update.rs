//! `kubeupd update` against a real kube-apiserver: replacing objects from files, changing fields
//! with --set/--set-string/--unset, optimistic locking, and no lost updates under concurrency.

use crate::support;

use std::process::{Command, Output, Stdio};
use std::time::Instant;

use kubeupd::client::{Cluster, ConnectOptions, WriteOptions};
use serde_json::{Value, json};
use support::{TestNamespace, ensure_cluster_fixture, parse_json, testdata};

fn with_app(prefix: &str) -> TestNamespace {
    let ns = TestNamespace::new(prefix);
    ns.kubectl_ok(&["create", "-n", &ns.name, "-f", testdata("patch/app.yaml").to_str().unwrap()]);
    ns
}

fn live(ns: &TestNamespace, object: &str) -> Value {
    parse_json(ns.kubectl_ok(&["get", object, "-n", &ns.name, "-o", "json"]).as_bytes())
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn update(ns: &TestNamespace, args: &[&str]) -> Output {
    ns.kubeupd().args(["update", "-n", &ns.name]).args(args).output().unwrap()
}

fn update_ok(ns: &TestNamespace, args: &[&str]) -> String {
    let out = update(ns, args);
    assert!(out.status.success(), "update {args:?}: {}", text(&out.stderr));
    text(&out.stdout)
}

/// A manifest file with `object` as YAML.
fn manifest(object: &Value) -> tempfile::NamedTempFile {
    let file = tempfile::Builder::new().suffix(".yaml").tempfile().unwrap();
    std::fs::write(file.path(), kubeupd::output::to_yaml(object)).unwrap();
    file
}

#[tokio::test]
async fn update_from_a_file_without_resource_version_reads_the_live_one() {
    let ns = with_app("update-file");
    ensure_cluster_fixture(&ns, "crd/gadgets.yaml");
    let gadget = testdata("patch/gadget.yaml");
    ns.kubectl_ok(&["create", "-n", &ns.name, "-f", gadget.to_str().unwrap()]);
    let mut desired: Value = serde_saphyr::from_str(&std::fs::read_to_string(&gadget).unwrap()).unwrap();
    desired["spec"]["size"] = json!("small");

    // The seed's failure: custom resources refuse a PUT without resourceVersion.
    let options = ConnectOptions {
        kubeconfig: Some(support::kubeconfig()),
        namespace: Some(ns.name.clone()),
        cache_dir: Some(ns.cache_dir()),
        ..ConnectOptions::default()
    };
    let cluster = Cluster::connect(&options).await.unwrap();
    let gadgets = cluster.resolve("gadgets").await.unwrap();
    let err =
        cluster.replace(&gadgets, Some(&ns.name), "sprocket", &desired, &WriteOptions::default()).await.unwrap_err();
    // 1.20 prints the missing value as `0x0`, 1.37 as `0`.
    let refused = |status: String| {
        status.contains("metadata.resourceVersion: Invalid value: ")
            && status.contains(": must be specified for an update")
    };
    assert!(err.status().is_some_and(|status| refused(status.to_string())), "{err}");

    let file = manifest(&desired);
    assert_eq!(update_ok(&ns, &["-f", file.path().to_str().unwrap()]), "gadget.get.kubeupd.test/sprocket updated\n");
    assert_eq!(live(&ns, "gadget/sprocket")["spec"]["size"], "small");
    assert_eq!(
        update_ok(&ns, &["-f", file.path().to_str().unwrap()]),
        "gadget.get.kubeupd.test/sprocket updated (no change)\n"
    );

    // Built-in kinds too, with the whole file as the new object: fields it leaves out go.
    let mut web: Value =
        serde_saphyr::from_multiple::<Value>(&std::fs::read_to_string(testdata("patch/app.yaml")).unwrap())
            .unwrap()
            .remove(0);
    web["spec"]["replicas"] = json!(2);
    web["metadata"]["labels"] = json!({"release": "b"});
    let file = manifest(&web);
    assert_eq!(update_ok(&ns, &["-f", file.path().to_str().unwrap(), "-o", "name"]), "deployment.apps/web\n");
    let web = live(&ns, "deploy/web");
    assert_eq!(web["spec"]["replicas"], 2);
    assert_eq!(web["metadata"]["labels"], json!({"release": "b"}));
}

#[test]
fn a_stale_pinned_resource_version_is_a_conflict_and_changes_nothing() {
    let ns = with_app("update-pinned");
    let mut pinned = live(&ns, "cm/settings");
    pinned["data"]["mode"] = json!("mine");
    let pinned_version = pinned["metadata"]["resourceVersion"].as_str().unwrap().to_string();
    ns.kubectl_ok(&["label", "cm", "settings", "-n", &ns.name, "by=someone-else"]);
    let before = live(&ns, "cm/settings");
    let live_version = before["metadata"]["resourceVersion"].as_str().unwrap();

    let file = manifest(&pinned);
    let out = update(&ns, &["-f", file.path().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        text(&out.stderr),
        format!(
            "error: conflict: configmap/settings has changed since resourceVersion \"{pinned_version}\", which the file pins; \
             the live object is at \"{live_version}\". Update the file, or remove its metadata.resourceVersion to replace the live object\n"
        )
    );
    assert_eq!(live(&ns, "cm/settings"), before, "the object must not change");

    // A resourceVersion that is current is honoured.
    let file = manifest(
        &json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "settings", "resourceVersion": live_version}, "data": {"mode": "mine"}}),
    );
    assert_eq!(update_ok(&ns, &["-f", file.path().to_str().unwrap()]), "configmap/settings updated\n");
    assert_eq!(live(&ns, "cm/settings")["data"], json!({"mode": "mine"}));
}

#[test]
fn set_and_unset_change_fields_by_path() {
    let ns = with_app("update-set");
    let out = update_ok(
        &ns,
        &[
            "deploy/web",
            "--set",
            "spec.replicas=2",
            "--set",
            "spec.template.spec.containers[name=app].image=nginx:1.27",
            "--set",
            "spec.template.spec.containers[name=app].ports[0].containerPort=8080",
            "--set-string",
            "metadata.labels.version=2",
            "--set",
            r#"metadata.annotations."example.com/team"=core"#,
            "--set",
            r"metadata.annotations.example\.com/tier=1",
            "--unset",
            "spec.template.spec.containers[name=sidecar]",
        ],
    );
    assert_eq!(out, "deployment.apps/web updated\n");
    let web = live(&ns, "deploy/web");
    assert_eq!(web["spec"]["replicas"], 2);
    let containers = &web["spec"]["template"]["spec"]["containers"];
    assert_eq!(containers.as_array().unwrap().len(), 1);
    assert_eq!(containers[0]["image"], "nginx:1.27");
    assert_eq!(containers[0]["ports"][0]["containerPort"], 8080);
    assert_eq!(web["metadata"]["labels"], json!({"app": "web", "version": "2"}));
    assert_eq!(web["metadata"]["annotations"], json!({"example.com/team": "core", "example.com/tier": "1"}));

    update_ok(&ns, &["svc", "web", "--set", "spec.ports[name=http].port=81", "--unset", "spec.selector"]);
    let service = live(&ns, "svc/web");
    assert_eq!(service["spec"]["ports"][0]["port"], 81);
    assert!(service["spec"].get("selector").is_none());
    assert_eq!(update_ok(&ns, &["svc/web", "--set", "spec.ports[0].port=81"]), "service/web updated (no change)\n");
}

#[test]
fn custom_resources_update_like_built_in_kinds() {
    let ns = TestNamespace::new("update-cr");
    ensure_cluster_fixture(&ns, "crd/gadgets.yaml");
    ns.kubectl_ok(&["create", "-n", &ns.name, "-f", testdata("patch/gadget.yaml").to_str().unwrap()]);
    let out = update_ok(
        &ns,
        &[
            "gadget/sprocket",
            "--set",
            "spec.dimensions.width=5",
            "--set",
            "metadata.labels.rank=1",
            "--unset",
            "spec.parts[0]",
        ],
    );
    assert_eq!(out, "gadget.get.kubeupd.test/sprocket updated\n");
    let sprocket = live(&ns, "gadget/sprocket");
    assert_eq!(
        sprocket["spec"],
        json!({"size": "large", "parts": ["spring"], "dimensions": {"width": 5, "height": 4}})
    );
    assert_eq!(
        sprocket["metadata"]["labels"],
        json!({"tier": "front", "rank": "1"}),
        "labels are strings on every kind"
    );
}

#[test]
fn dry_runs_and_the_status_subresource() {
    let ns = with_app("update-dry");
    let before = live(&ns, "deploy/web");
    assert_eq!(
        update_ok(&ns, &["deploy/web", "--set", "spec.replicas=7", "--dry-run=client"]),
        "deployment.apps/web updated (dry run)\n"
    );
    assert_eq!(
        update_ok(&ns, &["deploy/web", "--set", "spec.replicas=7", "--dry-run=server"]),
        "deployment.apps/web updated (server dry run)\n"
    );
    let shown = parse_json(
        update_ok(&ns, &["deploy/web", "--set", "spec.replicas=7", "--dry-run=server", "-o", "json"]).as_bytes(),
    );
    assert_eq!(shown["spec"]["replicas"], 7);
    assert!(shown["metadata"].get("managedFields").is_none(), "hidden unless --show-managed-fields");
    assert_eq!(live(&ns, "deploy/web"), before, "dry runs must not change the object");

    let out = update_ok(
        &ns,
        &[
            "deploy/web",
            "--subresource",
            "status",
            "--set",
            "status.observedGeneration=4",
            "--set",
            "spec.replicas=9",
            "-o",
            "name",
        ],
    );
    assert_eq!(out, "deployment.apps/web\n");
    let web = live(&ns, "deploy/web");
    assert_eq!(web["status"]["observedGeneration"], 4);
    assert_eq!(web["spec"]["replicas"], 3, "the status endpoint ignores the spec");
}

#[test]
fn bad_input_is_refused_and_changes_nothing() {
    let ns = with_app("update-bad");
    let before = live(&ns, "deploy/web");
    for (args, expected) in [
        (&["deploy/web", "--set", "spec.replicas"][..], "error: invalid --set \"spec.replicas\": expected PATH=VALUE"),
        (&["deploy/web", "--set", "spec..replicas=1"], "a key is missing after \"spec\""),
        (&["deploy/web", "--set", "spec.template.spec.containers[app].image=x"], "is neither a list position"),
        (&["deploy/web", "--set", "spec.replicas=[1"], "not valid YAML"),
        (&["deploy/web", "--unset", "spec.replicas=1"], "unexpected \"=1\" after the path"),
        (&["deploy/web"], "nothing to change"),
        (&["deploy/web", "--set", "spec.replicas.count=1"], "error: spec.replicas is a number, not a map"),
        (&["deploy/web", "--set", "spec.template.spec.containers[name=nope].image=x"], "is not in the list"),
        (&["deploy/web", "--set", "spec.replicas=-1"], "The Deployment \"web\" is invalid: spec.replicas"),
        (
            &["deploy/nope", "--set", "spec.replicas=1"],
            "Error from server (NotFound): deployments.apps \"nope\" not found",
        ),
    ] {
        let out = update(&ns, args);
        let stderr = text(&out.stderr);
        assert!(!out.status.success(), "{args:?} succeeded");
        assert!(stderr.contains(expected), "{args:?}: {stderr:?} should contain {expected:?}");
        assert_eq!(stderr.lines().count(), 1, "{args:?}: one line: {stderr:?}");
    }
    assert_eq!(live(&ns, "deploy/web"), before);
}

#[test]
fn verbose_logs_show_each_attempt() {
    let ns = with_app("update-verbose");
    let out = update(&ns, &["cm/settings", "--set", "data.mode=x", "-v=1", "--retries", "3"]);
    assert!(out.status.success());
    assert!(text(&out.stderr).contains("update configmap/settings: attempt 1 of 3"), "{}", text(&out.stderr));
}

/// The issue's scenario: 20 processes each add an annotation to one object at the same moment.
/// Every one reads, changes and writes with the resourceVersion it read; the losers of each race
/// read again and retry, so every process succeeds and no annotation is lost.
#[test]
fn twenty_concurrent_writers_lose_no_update() {
    let ns = TestNamespace::new("update-race");
    ns.kubectl_ok(&["create", "deployment", "x", "-n", &ns.name, "--image=nginx"]);
    // Warm the discovery cache, as any earlier command would, so the writers start alike.
    update_ok(&ns, &["deploy/x", "--set", "metadata.annotations.warm=up"]);
    let started = Instant::now();
    let writers: Vec<_> = (0..20)
        .map(|i| {
            Command::new(env!("CARGO_BIN_EXE_kubeupd"))
                .arg("--kubeconfig")
                .arg(support::kubeconfig())
                .arg("--cache-dir")
                .arg(ns.cache_dir())
                .args([
                    "update",
                    "deploy/x",
                    "-n",
                    &ns.name,
                    "-v=1",
                    "--set",
                    &format!("metadata.annotations.w{i}={i}"),
                ])
                .env_remove("KUBECONFIG")
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let outputs: Vec<Output> = writers.into_iter().map(|writer| writer.wait_with_output().unwrap()).collect();
    let elapsed = started.elapsed();
    let most_attempts = outputs.iter().map(|out| text(&out.stderr).matches(": attempt ").count()).max().unwrap();
    eprintln!("20 writers took {} ms; the busiest needed {most_attempts} attempts", elapsed.as_millis());
    for (i, out) in outputs.iter().enumerate() {
        assert!(out.status.success(), "writer {i} failed: {}", text(&out.stderr));
        assert_eq!(text(&out.stdout), "deployment.apps/x updated\n");
    }
    let annotations = live(&ns, "deploy/x")["metadata"]["annotations"].clone();
    for i in 0..20 {
        assert_eq!(annotations[format!("w{i}")], json!(i.to_string()), "annotation w{i} was lost: {annotations}");
    }
}
