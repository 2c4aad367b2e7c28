//! What kubectl's describers read beside an object (`crate::describe::needs` says which): its
//! events (by field selector, in pages of `--chunk-size`), a Deployment's ReplicaSets, the pods
//! a ReplicaSet selects, a Service's EndpointSlices, a Namespace's quotas and limit ranges.

use serde_json::Value;

use crate::client::{self, Cluster, ListScope, ResourceType, Selectors};
use crate::describe::{Needs, Related};

/// `DescriberSettings`.
#[derive(Debug, Clone, Copy)]
pub struct Settings {
    pub chunk_size: i64,
    pub show_events: bool,
}

/// A built-in type kubectl reads with its typed client (no discovery needed).
fn builtin(group: &str, version: &str, resource: &str, kind: &str, namespaced: bool) -> ResourceType {
    ResourceType {
        group: group.into(),
        version: version.into(),
        resource: resource.into(),
        kind: kind.into(),
        namespaced,
        verbs: Vec::new(),
        short_names: Vec::new(),
        categories: Vec::new(),
        singular: kind.to_lowercase(),
        status_subresource: false,
    }
}

/// Every object of a list, read in pages of `chunk_size` (all at once when not positive), with
/// `apiVersion` and `kind` set.
pub async fn list_all(
    cluster: &Cluster,
    rt: &ResourceType,
    scope: ListScope<'_>,
    selectors: Selectors<'_>,
    chunk_size: i64,
) -> client::Result<Vec<Value>> {
    let mut items = Vec::new();
    let mut token: Option<String> = None;
    loop {
        let page = match u32::try_from(chunk_size.min(i64::from(u32::MAX))) {
            Ok(limit @ 1..) => cluster.list_page(rt, scope, selectors, limit, token.as_deref()).await?,
            _ => cluster.list(rt, scope, selectors).await?,
        };
        token = page.pointer("/metadata/continue").and_then(Value::as_str).filter(|t| !t.is_empty()).map(String::from);
        if let Some(page_items) = page.get("items").and_then(Value::as_array) {
            items.extend(page_items.iter().cloned().map(|mut item| {
                if let Value::Object(map) = &mut item {
                    map.insert("apiVersion".into(), rt.api_version().into());
                    map.insert("kind".into(), rt.kind.clone().into());
                }
                item
            }));
        }
        if token.is_none() || chunk_size <= 0 {
            return Ok(items);
        }
    }
}

/// The object to describe, read again. kubectl reads a HorizontalPodAutoscaler as autoscaling/v2
/// whatever version was named, and as autoscaling/v1 when that read fails (a server without v2).
pub async fn object(
    cluster: &Cluster,
    rt: &ResourceType,
    namespace: Option<&str>,
    name: &str,
) -> client::Result<Value> {
    if rt.group != "autoscaling" || rt.kind != "HorizontalPodAutoscaler" {
        return cluster.get(rt, namespace, name).await;
    }
    let as_version = |version: &str| builtin("autoscaling", version, "horizontalpodautoscalers", &rt.kind, true);
    match cluster.get(&as_version("v2"), namespace, name).await {
        Ok(object) => Ok(object),
        Err(_) => cluster.get(&as_version("v1"), namespace, name).await,
    }
}

/// What the describer of `object`'s kind reads beside it. Only a failure kubectl reports fails:
/// most of these reads are best effort in kubectl too.
pub async fn related(cluster: &Cluster, object: &Value, settings: &Settings) -> client::Result<Related> {
    let api_version = object["apiVersion"].as_str().unwrap_or_default();
    let group = crate::resource::group_of(api_version);
    let kind = object["kind"].as_str().unwrap_or_default();
    let needs: Needs = crate::describe::needs(group, kind);
    let metadata = &object["metadata"];
    let namespace = metadata["namespace"].as_str().unwrap_or_default();
    let name = metadata["name"].as_str().unwrap_or_default();
    let mut related = Related::default();
    if needs.events && settings.show_events {
        // kubectl leaves a failed search of events out of the description.
        related.events = events(cluster, object, None, settings.chunk_size).await.ok();
        if needs.node {
            // Kubelets name a node's events by its name where controllers use its uid.
            let by_name = events(cluster, object, Some(name), settings.chunk_size).await.unwrap_or_default();
            if let Some(events) = &mut related.events {
                events.extend(by_name);
            }
        }
    }
    if needs.node {
        let pods = builtin("", "v1", "pods", "Pod", true);
        let field = format!("spec.nodeName={name},status.phase!=Succeeded,status.phase!=Failed");
        let selectors = Selectors { label: None, field: Some(&field) };
        match list_all(cluster, &pods, ListScope::AllNamespaces, selectors, settings.chunk_size).await {
            Ok(pods) => related.pods = pods,
            Err(client::Error::Forbidden(status)) => related.pods_error = Some(status.message),
            Err(err) => return Err(err),
        }
        let leases = builtin("coordination.k8s.io", "v1", "leases", "Lease", true);
        related.lease = Some(match cluster.get(&leases, Some("kube-node-lease"), name).await {
            Ok(lease) => Ok(lease),
            Err(err) => Err(err.status().map_or_else(|| err.to_string(), |status| status.message.clone())),
        });
        let slices = builtin("resource.k8s.io", "v1", "resourceslices", "ResourceSlice", false);
        let field = format!("spec.nodeName={name}");
        let selectors = Selectors { label: None, field: Some(&field) };
        related.resource_slices = cluster
            .list(&slices, ListScope::AllNamespaces, selectors)
            .await
            .ok()
            .and_then(|list| list.get("items").and_then(Value::as_array).cloned())
            .unwrap_or_default();
    }
    let selector = crate::manifest::selector_text(&object["spec"]["selector"]);
    if needs.replica_sets {
        let rt = builtin("apps", "v1", "replicasets", "ReplicaSet", true);
        let selectors = Selectors { label: Some(&selector), field: None };
        related.replica_sets = list_all(cluster, &rt, ListScope::Namespace(namespace), selectors, settings.chunk_size)
            .await
            .unwrap_or_default();
    }
    if needs.selected_pods {
        let rt = builtin("", "v1", "pods", "Pod", true);
        let selectors = Selectors { label: Some(&selector), field: None };
        match list_all(cluster, &rt, ListScope::Namespace(namespace), selectors, settings.chunk_size).await {
            Ok(pods) => related.pods = pods,
            Err(err) => related.pods_error = Some(err.to_string()),
        }
    }
    if needs.endpoint_slices {
        let rt = builtin("discovery.k8s.io", "v1", "endpointslices", "EndpointSlice", true);
        let label = format!("kubernetes.io/service-name={name}");
        let selectors = Selectors { label: Some(&label), field: None };
        related.endpoint_slices = cluster
            .list(&rt, ListScope::Namespace(namespace), selectors)
            .await
            .ok()
            .and_then(|list| list.get("items").and_then(Value::as_array).cloned())
            .unwrap_or_default();
    }
    if needs.namespace_pods {
        let pods = builtin("", "v1", "pods", "Pod", true);
        let scope = ListScope::Namespace(namespace);
        related.pods = list_all(cluster, &pods, scope, Selectors::default(), settings.chunk_size).await?;
    }
    if needs.backends {
        let services = builtin("", "v1", "services", "Service", true);
        let slices = builtin("discovery.k8s.io", "v1", "endpointslices", "EndpointSlice", true);
        for service in crate::describe::ingress_services(object) {
            let label = format!("kubernetes.io/service-name={service}");
            let selectors = Selectors { label: Some(&label), field: None };
            let read = async {
                let listed = cluster.list(&slices, ListScope::Namespace(namespace), selectors).await?;
                let found = cluster.get(&services, Some(namespace), &service).await?;
                let items = listed.get("items").and_then(Value::as_array).cloned().unwrap_or_default();
                Ok::<_, client::Error>((found, items))
            };
            let read = read.await.map_err(|err| err.status().map_or_else(|| err.to_string(), |s| s.message.clone()));
            related.backends.insert(service, read);
        }
    }
    if needs.quotas {
        // A Namespace's own: its name is the namespace to look in.
        for (resource, kind) in [("resourcequotas", "ResourceQuota"), ("limitranges", "LimitRange")] {
            let rt = builtin("", "v1", resource, kind, true);
            let listed =
                list_all(cluster, &rt, ListScope::Namespace(name), Selectors::default(), settings.chunk_size).await;
            let listed = match listed {
                Ok(items) => Some(items),
                Err(client::Error::NotFound(_)) => None,
                Err(err) => return Err(err),
            };
            match resource {
                "resourcequotas" => related.quotas = listed,
                _ => related.limit_ranges = listed,
            }
        }
    }
    Ok(related)
}

/// `searchEvents`: the events whose involved object is `object` (by name, namespace, kind and
/// uid; a Pod's without its kind, as kubectl asks).
async fn events(cluster: &Cluster, object: &Value, uid: Option<&str>, chunk_size: i64) -> client::Result<Vec<Value>> {
    let metadata = &object["metadata"];
    let namespace = metadata["namespace"].as_str().unwrap_or_default();
    let kind = object["kind"].as_str().unwrap_or_default();
    let api_version = object["apiVersion"].as_str().unwrap_or_default();
    let mut fields = vec![
        format!("involvedObject.name={}", metadata["name"].as_str().unwrap_or_default()),
        format!("involvedObject.namespace={namespace}"),
    ];
    let pod = kind == "Pod" && api_version == "v1";
    if !pod && !kind.is_empty() {
        fields.push(format!("involvedObject.kind={kind}"));
    }
    let uid = match metadata["annotations"]["kubernetes.io/config.mirror"].as_str() {
        _ if uid.is_some() => uid.unwrap_or_default(),
        Some(mirror) if pod => mirror,
        _ => metadata["uid"].as_str().unwrap_or_default(),
    };
    if !uid.is_empty() {
        fields.push(format!("involvedObject.uid={uid}"));
    }
    fields.sort();
    let field = fields.join(",");
    let rt = builtin("", "v1", "events", "Event", true);
    let scope = if namespace.is_empty() { ListScope::AllNamespaces } else { ListScope::Namespace(namespace) };
    list_all(cluster, &rt, scope, Selectors { label: None, field: Some(&field) }, chunk_size).await
}
