//! Patch metadata from the server: OpenAPI v3 per group-version when served, else v2, cached on
//! disk; the embedded metadata when the server has none. The real apiserver serves v3 (1.37) or
//! only v2 (1.20); a fake server shows the requests.
use crate::support;

use kubeupd::client::{Cluster, ConnectOptions};
use kubeupd::schema::LookupPatchMeta;
use serde_json::json;
use support::fake_server::{FakeServer, Reply};

async fn connect(kubeconfig: std::path::PathBuf, cache: &std::path::Path) -> Cluster {
    let options = ConnectOptions {
        kubeconfig: Some(kubeconfig),
        cache_dir: Some(cache.to_path_buf()),
        ..ConnectOptions::default()
    };
    Cluster::connect(&options).await.expect("connects")
}

/// The merge key the server's metadata gives to a Deployment's containers.
async fn containers_merge_key(cluster: &Cluster) -> String {
    let schema = cluster.patch_schema("apps/v1", "Deployment").await.expect("a built-in kind");
    let node = schema.node();
    let (spec, _) = node.lookup_field("spec").unwrap();
    let (template, _) = spec.lookup_field("template").unwrap();
    let (pod, _) = template.lookup_field("spec").unwrap();
    pod.lookup_list("containers").unwrap().1.merge_key().to_string()
}

/// A v3 document for apps/v1 whose containers merge on `image`, so that its use is visible.
fn apps_v1_document() -> serde_json::Value {
    let reference = |name: &str| json!({"allOf": [{"$ref": format!("#/components/schemas/{name}")}], "default": {}});
    json!({"openapi": "3.0.0", "components": {"schemas": {
        "io.k8s.api.apps.v1.Deployment": {"type": "object", "properties": {"spec": reference("io.k8s.api.apps.v1.DeploymentSpec")},
            "x-kubernetes-group-version-kind": [{"group": "apps", "version": "v1", "kind": "Deployment"}]},
        "io.k8s.api.apps.v1.DeploymentSpec": {"type": "object", "properties": {"template": reference("io.k8s.api.core.v1.PodTemplateSpec")}},
        "io.k8s.api.core.v1.PodTemplateSpec": {"type": "object", "properties": {"spec": reference("io.k8s.api.core.v1.PodSpec")}},
        "io.k8s.api.core.v1.PodSpec": {"type": "object", "properties": {"containers": {"type": "array",
            "items": reference("io.k8s.api.core.v1.Container"), "x-kubernetes-patch-merge-key": "image", "x-kubernetes-patch-strategy": "merge"}}},
        "io.k8s.api.core.v1.Container": {"type": "object", "properties": {"image": {"type": "string"}}}
    }}})
}

#[tokio::test]
async fn prefers_the_servers_v3_document_and_caches_it_by_hash() {
    let server = FakeServer::start(|seen| match seen.path.as_str() {
        "/openapi/v3" => Reply::json(
            200,
            &json!({"paths": {"apis/apps/v1": {"serverRelativeURL": "/openapi/v3/apis/apps/v1?hash=ABC123"}}}),
        ),
        "/openapi/v3/apis/apps/v1?hash=ABC123" => Reply::json(200, &apps_v1_document()),
        _ => Reply::status(404, "NotFound", "not here"),
    });
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = server.kubeconfig(dir.path());
    assert_eq!(containers_merge_key(&connect(kubeconfig.clone(), dir.path()).await).await, "image");
    assert!(server.seen().iter().all(|seen| !seen.path.starts_with("/openapi/v2")), "{:?}", server.seen());
    let cached = std::fs::read_dir(dir.path().join("kubeupd/openapi")).unwrap().count();
    assert_eq!(cached, 1, "one server's cache folder");
    // A second run reads the index and the document from the cache: no request at all.
    let before = server.seen().len();
    assert_eq!(containers_merge_key(&connect(kubeconfig, dir.path()).await).await, "image");
    assert_eq!(server.seen().len(), before, "{:?}", &server.seen()[before..]);
}

#[tokio::test]
async fn falls_back_to_the_embedded_metadata_when_the_server_has_none() {
    let server = FakeServer::start(|seen| match seen.path.as_str() {
        "/openapi/v3" => Reply::status(404, "NotFound", "no v3"),
        "/version" => Reply::json(200, &json!({"gitVersion": "v1.99.0"})),
        _ => Reply::status(500, "InternalError", "broken"),
    });
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(containers_merge_key(&connect(server.kubeconfig(dir.path()), dir.path()).await).await, "name");
    assert!(server.seen().iter().any(|seen| seen.path == "/openapi/v2"), "{:?}", server.seen());
    let cluster = connect(server.kubeconfig(dir.path()), dir.path()).await;
    assert!(
        cluster.patch_schema("example.com/v1", "Widget").await.is_none(),
        "custom kinds have no strategic metadata"
    );
}

#[cfg(feature = "cluster-tests")]
#[tokio::test]
async fn reads_the_real_servers_document_once_and_caches_it() {
    let dir = tempfile::tempdir().unwrap();
    let cluster = connect(support::kubeconfig(), dir.path()).await;
    assert_eq!(containers_merge_key(&cluster).await, "name");
    let server_dir = std::fs::read_dir(dir.path().join("kubeupd/openapi")).unwrap().next().unwrap().unwrap().path();
    let mut cached: Vec<String> = std::fs::read_dir(&server_dir)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    cached.sort();
    let (edited, kind) = if support::server_minor() >= 27 {
        // v3: the index, and apps/v1's document by the hash the index gives it.
        assert_eq!(cached.len(), 2, "{cached:?}");
        assert!(cached[0].starts_with("v3-apis_apps_v1-") && cached[1] == "v3-index.json", "{cached:?}");
        (cached[0].clone(), ("apps/v1", "Deployment"))
    } else {
        // v2: the document by server version, and the definitions the Deployment reaches, taken
        // from it for later runs; the (absent) v3 index and the version, for six hours.
        assert_eq!(cached, ["v2-v1.20.2-apps_v1-Deployment.json", "v2-v1.20.2.json", "v3-index.json", "version.json"]);
        let subset = std::fs::metadata(server_dir.join("v2-v1.20.2-apps_v1-Deployment.json")).unwrap().len();
        assert!(subset < 100_000, "a kind's definitions are a small part of the document ({subset} bytes)");
        let size = std::fs::metadata(server_dir.join("v2-v1.20.2.json")).unwrap().len();
        assert!(size < 1_500_000, "the cached document is pruned ({size} bytes)");
        ("v2-v1.20.2.json".to_string(), ("v1", "Pod"))
    };
    // The cache is what a later run reads: edit it, and the edit shows.
    let path = server_dir.join(edited);
    let text = std::fs::read_to_string(&path).unwrap();
    let merge_key = |key: &str| format!(r#""x-kubernetes-patch-merge-key":"{key}""#);
    assert!(text.contains(&merge_key("name")), "the cache holds the merge keys");
    std::fs::write(&path, text.replace(&merge_key("name"), &merge_key("image"))).unwrap();
    let cluster = connect(support::kubeconfig(), dir.path()).await;
    let schema = cluster.patch_schema(kind.0, kind.1).await.unwrap();
    let mut node = schema.node();
    if kind.1 == "Deployment" {
        for field in ["spec", "template"] {
            node = node.lookup_field(field).unwrap().0;
        }
    }
    let (spec, _) = node.lookup_field("spec").unwrap();
    assert_eq!(spec.lookup_list("containers").unwrap().1.merge_key(), "image", "the edited cache was used");
}
