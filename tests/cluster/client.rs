//! The client API against a real kube-apiserver: connecting, mapping, reads, writes and errors.

use crate::support;

use kubeupd::client::{
    Cluster, ConnectOptions, Error, ListScope, Selectors, Status, WatchEvent, WatchOptions, WriteOptions,
};
use std::time::Duration;

use futures::StreamExt as _;
use kubeupd::merge::{Patch, PatchType};
use kubeupd::output::Table;
use serde_json::{Value, json};
use support::TestNamespace;

async fn connect(ns: &TestNamespace) -> Cluster {
    let options = ConnectOptions {
        kubeconfig: Some(support::kubeconfig()),
        namespace: Some(ns.name.clone()),
        cache_dir: Some(ns.cache_dir()),
        ..ConnectOptions::default()
    };
    Cluster::connect(&options).await.expect("connects to the test cluster")
}

fn server_error(err: Error) -> Status {
    err.status().unwrap_or_else(|| panic!("not a server error: {err}")).clone()
}

fn patch(patch_type: PatchType, text: &str) -> Patch {
    Patch::parse(patch_type, text).unwrap()
}

fn configmap(name: &str, data: Value) -> Value {
    json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": data})
}

#[tokio::test]
async fn contexts_and_namespaces() {
    let ns = TestNamespace::new("client-connect");
    assert_eq!(connect(&ns).await.default_namespace(), ns.name);
    let from_context = ConnectOptions {
        kubeconfig: Some(support::kubeconfig()),
        context: Some("kubeupd-local".into()),
        cache_dir: Some(ns.cache_dir()),
        ..ConnectOptions::default()
    };
    let cluster = Cluster::connect(&from_context).await.unwrap();
    assert_eq!(cluster.default_namespace(), "default");
    assert!(cluster.server().starts_with("https://127.0.0.1:"));
    let missing = ConnectOptions { context: Some("nope".into()), ..from_context };
    let err = Cluster::connect(&missing).await.err().unwrap();
    assert_eq!(err.to_string(), "context was not found for specified context: nope");
}

#[tokio::test]
async fn resolution_uses_discovery() {
    let ns = TestNamespace::new("client-resolve");
    let cluster = connect(&ns).await;
    let deployments = cluster.resolve("deploy").await.unwrap();
    assert_eq!((deployments.api_version().as_str(), deployments.kind.as_str()), ("apps/v1", "Deployment"));
    assert_eq!(deployments.group_resource(), "deployments.apps");
    assert!(deployments.short_names.contains(&"deploy".to_string()));
    let events = cluster.resolve("events").await.unwrap();
    assert_eq!(events.group, "", "the core group wins over events.k8s.io");
    let nodes = cluster.resolve("Node").await.unwrap();
    assert!(!nodes.namespaced);
    assert_eq!(cluster.resolve_kind("v1", "ConfigMap").await.unwrap().resource, "configmaps");
    let err = cluster.resolve("foo").await.unwrap_err();
    assert_eq!(err.to_string(), "the server doesn't have a resource type \"foo\"");
    let err = cluster.resolve_kind("example.invalid/v1", "Thing").await.unwrap_err();
    assert_eq!(err.to_string(), "no matches for kind \"Thing\" in version \"example.invalid/v1\"");
}

#[tokio::test]
async fn create_get_replace_delete() {
    let ns = TestNamespace::new("client-crud");
    let cluster = connect(&ns).await;
    let rt = cluster.resolve("configmaps").await.unwrap();
    let namespace = Some(ns.name.as_str());
    let plain = WriteOptions::default();

    let dry = WriteOptions { dry_run: true, ..WriteOptions::default() };
    cluster.create(&rt, namespace, &configmap("dry", json!({"a": "1"})), &dry).await.unwrap();
    assert!(matches!(cluster.get(&rt, namespace, "dry").await.unwrap_err(), Error::NotFound(_)));

    let created = cluster.create(&rt, namespace, &configmap("c", json!({"a": "1"})), &plain).await.unwrap();
    assert_eq!(created["metadata"]["namespace"], ns.name);
    let again = cluster.create(&rt, namespace, &configmap("c", json!({})), &plain).await.unwrap_err();
    assert!(matches!(again, Error::AlreadyExists(_)), "{again}");

    let mut current = cluster.get(&rt, namespace, "c").await.unwrap();
    current["data"]["a"] = json!("2");
    let manager = WriteOptions { field_manager: Some("kubeupd-test".into()), ..WriteOptions::default() };
    let replaced = cluster.replace(&rt, namespace, "c", &current, &manager).await.unwrap();
    assert_eq!(replaced["data"]["a"], "2");
    let managers: Vec<&str> = replaced["metadata"]["managedFields"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|entry| entry["manager"].as_str())
        .collect();
    assert!(managers.contains(&"kubeupd-test"), "{managers:?}");

    // `current` still carries the old resourceVersion: a second replace loses the race.
    let stale = cluster.replace(&rt, namespace, "c", &current, &plain).await.unwrap_err();
    assert!(stale.is_conflict(), "{stale}");

    // The list holds what kubectl lists there, the controllers' `kube-root-ca.crt` included.
    let list = cluster.list(&rt, ListScope::Namespace(&ns.name), Selectors::default()).await.unwrap();
    let listed: Vec<String> = list["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|item| format!("configmap/{}\n", item["metadata"]["name"].as_str().unwrap()))
        .collect();
    assert!(listed.contains(&"configmap/c\n".to_string()), "{listed:?}");
    assert_eq!(listed.concat(), ns.kubectl_ok(&["get", "configmaps", "-n", &ns.name, "-o", "name"]));
    cluster.delete(&rt, namespace, "c", &plain).await.unwrap();
    let gone = server_error(cluster.get(&rt, namespace, "c").await.unwrap_err());
    assert_eq!(gone.to_string(), "Error from server (NotFound): configmaps \"c\" not found");
}

#[tokio::test]
async fn every_patch_type() {
    let ns = TestNamespace::new("client-patch");
    ns.apply_testdata("get/app.yaml");
    let cluster = connect(&ns).await;
    let namespace = Some(ns.name.as_str());
    let configmaps = cluster.resolve("cm").await.unwrap();
    let plain = WriteOptions::default();

    let json_patch = patch(PatchType::Json, r#"[{"op": "replace", "path": "/data/a", "value": "json"}]"#);
    let patched = cluster.patch(&configmaps, namespace, "two", &json_patch, &plain).await.unwrap();
    assert_eq!(patched["data"]["a"], "json");

    let merge = patch(PatchType::Merge, r#"{"data": {"a": null, "b": "merge"}}"#);
    let patched = cluster.patch(&configmaps, namespace, "two", &merge, &plain).await.unwrap();
    assert_eq!(patched["data"], json!({"b": "merge"}));

    let deployments = cluster.resolve("deployments").await.unwrap();
    let strategic = patch(
        PatchType::Strategic,
        r#"{"spec": {"template": {"spec": {"containers": [{"name": "sidecar", "image": "busybox"}]}}}}"#,
    );
    let patched = cluster.patch(&deployments, namespace, "web", &strategic, &plain).await.unwrap();
    let mut names: Vec<&str> = patched["spec"]["template"]["spec"]["containers"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|c| c["name"].as_str())
        .collect();
    names.sort();
    assert_eq!(names, ["nginx", "sidecar"], "strategic merge adds to the list, merging by name");

    let apply = WriteOptions { field_manager: Some("kubeupd-test".into()), force: true, ..WriteOptions::default() };
    let configuration = Patch::Apply(configmap("applied", json!({"k": "v"})));
    let applied = cluster.patch(&configmaps, namespace, "applied", &configuration, &apply).await.unwrap();
    assert_eq!(applied["data"]["k"], "v");

    let scale = WriteOptions { subresource: Some("scale".into()), ..WriteOptions::default() };
    let scaled = cluster
        .patch(&deployments, namespace, "web", &patch(PatchType::Merge, r#"{"spec":{"replicas":3}}"#), &scale)
        .await
        .unwrap();
    assert_eq!(scaled["kind"], "Scale");
    assert_eq!(cluster.get(&deployments, namespace, "web").await.unwrap()["spec"]["replicas"], 3);

    let dry = WriteOptions { dry_run: true, ..WriteOptions::default() };
    cluster
        .patch(&configmaps, namespace, "two", &patch(PatchType::Merge, r#"{"data":{"b":"dry"}}"#), &dry)
        .await
        .unwrap();
    assert_eq!(cluster.get(&configmaps, namespace, "two").await.unwrap()["data"]["b"], "merge");
}

#[tokio::test]
async fn invalid_objects_read_like_kubectl() {
    let ns = TestNamespace::new("client-invalid");
    ns.apply_testdata("get/app.yaml");
    let cluster = connect(&ns).await;
    let deployments = cluster.resolve("deploy").await.unwrap();
    for patch in [
        r#"{"spec":{"replicas":-1}}"#,
        r#"{"spec":{"replicas":-1,"template":{"spec":{"containers":[{"name":"nginx","image":""}]}}}}"#,
    ] {
        let strategic = Patch::parse(PatchType::Strategic, patch).unwrap();
        let err =
            cluster.patch(&deployments, Some(&ns.name), "web", &strategic, &WriteOptions::default()).await.unwrap_err();
        assert!(matches!(err, Error::Invalid(_)), "{err}");
        let ours = server_error(err);
        let kubectl = ns.kubectl().args(["patch", "deploy", "web", "-n", &ns.name, "-p", patch]).output().unwrap();
        assert_eq!(format!("{ours}\n"), String::from_utf8_lossy(&kubectl.stderr), "{patch}");
    }
}

#[tokio::test]
async fn tables_come_from_the_server() {
    let ns = TestNamespace::new("client-tables");
    ns.apply_testdata("get/app.yaml");
    let cluster = connect(&ns).await;
    let configmaps = cluster.resolve("cm").await.unwrap();
    let table = cluster
        .list_table(
            &configmaps,
            ListScope::Namespace(&ns.name),
            Selectors { label: Some("tier=front"), field: None },
            false,
        )
        .await
        .unwrap();
    let table = Table::from_document(table).unwrap();
    let columns: Vec<&str> = table.columns.iter().map(|column| column.name.as_str()).collect();
    assert_eq!(columns, ["Name", "Data", "Age"]);
    assert_eq!(table.rows.len(), 1);
    assert_eq!(table.rows[0].cells[0], "one");
    assert_eq!(table.rows[0].namespace(), Some(ns.name.as_str()));
    let row = Table::from_document(cluster.get_table(&configmaps, Some(&ns.name), "two", None, false).await.unwrap())
        .unwrap();
    assert_eq!(row.rows[0].cells[1], 1);
    let everywhere = cluster
        .list(&configmaps, ListScope::AllNamespaces, Selectors { label: Some("tier"), field: None })
        .await
        .unwrap();
    assert!(everywhere["items"].as_array().unwrap().len() >= 2);
}

#[tokio::test]
async fn watches_stream_changes_from_a_version_past_the_request_timeout() {
    let ns = TestNamespace::new("client-watch");
    let options = ConnectOptions {
        kubeconfig: Some(support::kubeconfig()),
        namespace: Some(ns.name.clone()),
        cache_dir: Some(ns.cache_dir()),
        request_timeout: Some(Duration::from_secs(1)),
        ..ConnectOptions::default()
    };
    let cluster = Cluster::connect(&options).await.unwrap();
    let rt = cluster.resolve("configmaps").await.unwrap();
    let namespace = Some(ns.name.as_str());
    let write = WriteOptions::default();
    let watched = cluster.create(&rt, namespace, &configmap("watched", json!({"v": "1"})), &write).await.unwrap();
    cluster.create(&rt, namespace, &configmap("other", json!({})), &write).await.unwrap();
    let version = watched["metadata"]["resourceVersion"].as_str().unwrap().to_string();
    let selectors = Selectors { label: None, field: Some("metadata.name=watched") };
    let watch = WatchOptions { selectors, resource_version: Some(&version), timeout: Duration::from_secs(10) };
    let mut events = cluster.watch(&rt, ListScope::Namespace(&ns.name), &watch).await.unwrap();
    // Longer than the request timeout: the watch stays open all the same.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let changed = patch(PatchType::Merge, r#"{"data": {"v": "2"}}"#);
    cluster.patch(&rt, namespace, "watched", &changed, &write).await.unwrap();
    cluster.delete(&rt, namespace, "watched", &write).await.unwrap();
    let modified = events.next().await.unwrap().unwrap();
    let WatchEvent::Modified(object) = modified else { panic!("expected the change first, got {modified:?}") };
    assert_eq!(object["data"]["v"], "2", "the object created before the version is not replayed");
    let deleted = events.next().await.unwrap().unwrap();
    assert!(matches!(&deleted, WatchEvent::Deleted(object) if object["metadata"]["name"] == "watched"), "{deleted:?}");
}
