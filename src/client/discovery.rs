//! Discovery: which resource types the server serves, fetched with aggregated discovery when the
//! server has it (one request per root) and else with the legacy per-group-version documents.

use futures::{StreamExt as _, TryStreamExt as _};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::error::{Error, Result};
use super::resource::ResourceType;
use super::transport::Transport;

/// Asks for aggregated discovery; servers without it answer with the legacy documents instead.
const AGGREGATED_ACCEPT: &str = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json";

/// How many group-version documents are fetched at once on servers without aggregated discovery.
const PARALLEL_FETCHES: usize = 16;

/// Every resource type the server serves, in kubectl's priority order: each group's preferred
/// version in the server's group order (core first), then the groups' other versions.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Discovery {
    /// Resource types, highest priority first.
    pub resources: Vec<ResourceType>,
}

/// One API group and its versions as the server orders them, some perhaps not fetched yet.
struct Group {
    name: String,
    preferred: String,
    versions: Vec<(String, Option<Vec<ResourceType>>)>,
}

impl Discovery {
    fn from_groups(groups: Vec<Group>) -> Self {
        let mut preferred = Vec::new();
        let mut others = Vec::new();
        for group in groups {
            for (version, resources) in group.versions {
                let resources = resources.unwrap_or_default();
                if version == group.preferred { preferred.extend(resources) } else { others.extend(resources) }
            }
        }
        preferred.extend(others);
        Discovery { resources: preferred }
    }
}

/// Fetches discovery from the server: `/api` and `/apis` at once, then (legacy servers only) every
/// group version concurrently. Group versions that fail (e.g. an unavailable aggregated API) are
/// left out with a warning, as kubectl does.
pub(crate) async fn fetch(transport: &Transport) -> Result<Discovery> {
    let (core, named) = futures::try_join!(fetch_root(transport, "/api"), fetch_root(transport, "/apis"))?;
    let mut groups: Vec<Group> = core.into_iter().chain(named).collect();
    let missing: Vec<(usize, usize, String)> = groups
        .iter()
        .enumerate()
        .flat_map(|(g, group)| {
            group
                .versions
                .iter()
                .enumerate()
                .filter(|(_, (_, resources))| resources.is_none())
                .map(move |(v, (version, _))| (g, v, group_version_path(&group.name, version)))
        })
        .collect();
    let fetched: Vec<(usize, usize, Option<Vec<ResourceType>>)> = futures::stream::iter(missing)
        .map(|(g, v, path)| async move {
            match fetch_resource_list(transport, &path).await {
                Ok(resources) => Ok((g, v, Some(resources))),
                // A group removed since the list of groups was read (its CRD deleted) is no news.
                Err(err @ Error::NotFound(_)) => {
                    tracing::debug!("couldn't get resource list for {path}: {err}");
                    Ok((g, v, None))
                }
                Err(err) if err.status().is_some() => {
                    tracing::warn!("couldn't get resource list for {path}: {err}");
                    Ok((g, v, None))
                }
                Err(err) => Err(err),
            }
        })
        .buffer_unordered(PARALLEL_FETCHES)
        .try_collect()
        .await?;
    for (g, v, resources) in fetched {
        let group = &mut groups[g];
        let (version, slot) = &mut group.versions[v];
        let mut resources = resources.unwrap_or_default();
        for resource in &mut resources {
            resource.group.clone_from(&group.name);
            resource.version.clone_from(version);
        }
        *slot = Some(resources);
    }
    Ok(Discovery::from_groups(groups))
}

fn group_version_path(group: &str, version: &str) -> String {
    if group.is_empty() { format!("/api/{version}") } else { format!("/apis/{group}/{version}") }
}

/// Reads `/api` or `/apis`, aggregated when the server offers it, else the legacy list of versions.
async fn fetch_root(transport: &Transport, path: &str) -> Result<Vec<Group>> {
    let body = transport.get(path, AGGREGATED_ACCEPT).await?;
    let invalid = |reason: String| Error::InvalidResponse { path: path.to_string(), reason };
    let document: Value =
        serde_json::from_slice(&body).map_err(|err| invalid(format!("invalid discovery document: {err}")))?;
    let kind = document.get("kind").and_then(Value::as_str).unwrap_or_default().to_string();
    let read = |err: serde_json::Error| invalid(format!("invalid {kind} discovery document: {err}"));
    Ok(match kind.as_str() {
        "APIGroupDiscoveryList" => {
            let list: wire::AggregatedList = serde_json::from_value(document).map_err(read)?;
            list.items.into_iter().map(wire::AggregatedGroup::into_group).collect()
        }
        "APIVersions" => {
            let list: wire::ApiVersions = serde_json::from_value(document).map_err(read)?;
            let preferred = list.versions.first().cloned().unwrap_or_default();
            let versions = list.versions.into_iter().map(|version| (version, None)).collect();
            vec![Group { name: String::new(), preferred, versions }]
        }
        "APIGroupList" => {
            let list: wire::ApiGroupList = serde_json::from_value(document).map_err(read)?;
            list.groups.into_iter().map(wire::ApiGroup::into_group).collect()
        }
        other => return Err(invalid(format!("unexpected discovery document of kind {other:?}"))),
    })
}

async fn fetch_resource_list(transport: &Transport, path: &str) -> Result<Vec<ResourceType>> {
    let body = transport.get(path, "application/json").await?;
    let list: wire::ApiResourceList = serde_json::from_slice(&body).map_err(|err| Error::InvalidResponse {
        path: path.to_string(),
        reason: format!("invalid resource list: {err}"),
    })?;
    Ok(list.into_resource_types())
}

/// The discovery documents as the server sends them; only the fields kubeupd reads.
mod wire {
    use serde::Deserialize;

    use super::{Group, ResourceType};

    #[derive(Deserialize)]
    pub struct ApiVersions {
        #[serde(default, deserialize_with = "crate::gocompat::null_as_default")]
        pub versions: Vec<String>,
    }

    #[derive(Deserialize)]
    pub struct ApiGroupList {
        #[serde(default, deserialize_with = "crate::gocompat::null_as_default")]
        pub groups: Vec<ApiGroup>,
    }

    #[derive(Deserialize)]
    #[serde(rename_all = "camelCase")]
    pub struct ApiGroup {
        name: String,
        versions: Vec<VersionRef>,
        preferred_version: Option<VersionRef>,
    }

    #[derive(Deserialize)]
    pub struct VersionRef {
        version: String,
    }

    impl ApiGroup {
        pub fn into_group(self) -> Group {
            let preferred = self
                .preferred_version
                .map(|preferred| preferred.version)
                .or_else(|| self.versions.first().map(|first| first.version.clone()))
                .unwrap_or_default();
            let versions = self.versions.into_iter().map(|version| (version.version, None)).collect();
            Group { name: self.name, preferred, versions }
        }
    }

    #[derive(Deserialize)]
    pub struct ApiResourceList {
        #[serde(default, deserialize_with = "crate::gocompat::null_as_default")]
        resources: Vec<ApiResource>,
    }

    #[derive(Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct ApiResource {
        name: String,
        #[serde(default)]
        singular_name: String,
        #[serde(default)]
        namespaced: bool,
        kind: String,
        #[serde(default, deserialize_with = "crate::gocompat::null_as_default")]
        verbs: Vec<String>,
        #[serde(default, deserialize_with = "crate::gocompat::null_as_default")]
        short_names: Vec<String>,
        #[serde(default, deserialize_with = "crate::gocompat::null_as_default")]
        categories: Vec<String>,
    }

    impl ApiResourceList {
        /// The resources, without subresources such as `deployments/status`; group and version
        /// are filled in by the caller.
        pub fn into_resource_types(self) -> Vec<ResourceType> {
            let with_status: std::collections::HashSet<String> = self
                .resources
                .iter()
                .filter_map(|resource| resource.name.strip_suffix("/status").map(str::to_string))
                .collect();
            self.resources
                .into_iter()
                .filter(|resource| !resource.name.contains('/'))
                .map(|resource| ResourceType {
                    group: String::new(),
                    version: String::new(),
                    status_subresource: with_status.contains(&resource.name),
                    singular: singular_or_kind(resource.singular_name, &resource.kind),
                    resource: resource.name,
                    kind: resource.kind,
                    namespaced: resource.namespaced,
                    verbs: resource.verbs,
                    short_names: resource.short_names,
                    categories: resource.categories,
                })
                .collect()
        }
    }

    #[derive(Deserialize)]
    pub struct AggregatedList {
        #[serde(default, deserialize_with = "crate::gocompat::null_as_default")]
        pub items: Vec<AggregatedGroup>,
    }

    #[derive(Deserialize)]
    pub struct AggregatedGroup {
        #[serde(default)]
        metadata: Metadata,
        #[serde(default, deserialize_with = "crate::gocompat::null_as_default")]
        versions: Vec<AggregatedVersion>,
    }

    #[derive(Deserialize, Default)]
    struct Metadata {
        #[serde(default)]
        name: String,
    }

    #[derive(Deserialize)]
    struct AggregatedVersion {
        version: String,
        #[serde(default, deserialize_with = "crate::gocompat::null_as_default")]
        resources: Vec<AggregatedResource>,
    }

    #[derive(Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct AggregatedResource {
        resource: String,
        #[serde(default)]
        response_kind: Option<ResponseKind>,
        #[serde(default)]
        scope: String,
        #[serde(default)]
        singular_resource: String,
        #[serde(default, deserialize_with = "crate::gocompat::null_as_default")]
        verbs: Vec<String>,
        #[serde(default, deserialize_with = "crate::gocompat::null_as_default")]
        short_names: Vec<String>,
        #[serde(default, deserialize_with = "crate::gocompat::null_as_default")]
        categories: Vec<String>,
        #[serde(default, deserialize_with = "crate::gocompat::null_as_default")]
        subresources: Vec<AggregatedSubresource>,
    }

    #[derive(Deserialize)]
    struct AggregatedSubresource {
        #[serde(default)]
        subresource: String,
    }

    #[derive(Deserialize)]
    struct ResponseKind {
        #[serde(default)]
        kind: String,
    }

    impl AggregatedGroup {
        /// Aggregated discovery lists versions preferred first.
        pub fn into_group(self) -> Group {
            let name = self.metadata.name;
            let preferred = self.versions.first().map(|first| first.version.clone()).unwrap_or_default();
            let versions = self
                .versions
                .into_iter()
                .map(|version| {
                    let resources = version
                        .resources
                        .into_iter()
                        .map(|resource| {
                            let kind = resource.response_kind.map(|kind| kind.kind).unwrap_or_default();
                            let status_subresource =
                                resource.subresources.iter().any(|sub| sub.subresource == "status");
                            ResourceType {
                                group: name.clone(),
                                version: version.version.clone(),
                                status_subresource,
                                singular: singular_or_kind(resource.singular_resource, &kind),
                                resource: resource.resource,
                                kind,
                                namespaced: resource.scope == "Namespaced",
                                verbs: resource.verbs,
                                short_names: resource.short_names,
                                categories: resource.categories,
                            }
                        })
                        .collect();
                    (version.version, Some(resources))
                })
                .collect();
            Group { name, preferred, versions }
        }
    }

    /// Old servers leave `singularName` empty; kubectl then uses the lower-cased kind.
    fn singular_or_kind(singular: String, kind: &str) -> String {
        if singular.is_empty() { kind.to_lowercase() } else { singular }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn group(name: &str, preferred: &str, versions: &[(&str, &[&str])]) -> Group {
        Group {
            name: name.into(),
            preferred: preferred.into(),
            versions: versions
                .iter()
                .map(|(version, resources)| {
                    let types = resources
                        .iter()
                        .map(|resource| super::super::resource::fixture(name, version, resource, "Kind", true))
                        .collect();
                    (version.to_string(), Some(types))
                })
                .collect(),
        }
    }

    #[test]
    fn preferred_versions_come_before_other_versions() {
        let groups = vec![
            group("", "v1", &[("v1", &["pods"])]),
            group("batch", "v1", &[("v1", &["jobs"]), ("v1beta1", &["cronjobs"])]),
            group("apps", "v1", &[("v1", &["deployments"])]),
        ];
        let order: Vec<String> = Discovery::from_groups(groups)
            .resources
            .iter()
            .map(|rt| format!("{}/{}", rt.api_version(), rt.resource))
            .collect();
        assert_eq!(order, ["v1/pods", "batch/v1/jobs", "apps/v1/deployments", "batch/v1beta1/cronjobs"]);
    }

    #[test]
    fn aggregated_documents_are_read() {
        let document = serde_json::json!({
            "kind": "APIGroupDiscoveryList",
            "apiVersion": "apidiscovery.k8s.io/v2",
            "items": [{
                "metadata": {"name": "apps"},
                "versions": [{
                    "version": "v1",
                    "resources": [{
                        "resource": "deployments",
                        "responseKind": {"group": "apps", "version": "v1", "kind": "Deployment"},
                        "scope": "Namespaced",
                        "singularResource": "deployment",
                        "verbs": ["get", "list"],
                        "shortNames": ["deploy"],
                        "subresources": [{"subresource": "status"}]
                    }]
                }]
            }]
        });
        let list: wire::AggregatedList = serde_json::from_value(document).unwrap();
        let discovery = Discovery::from_groups(list.items.into_iter().map(wire::AggregatedGroup::into_group).collect());
        let deployments = &discovery.resources[0];
        assert_eq!(discovery.resources.len(), 1);
        assert_eq!(deployments.api_version(), "apps/v1");
        assert_eq!(deployments.kind, "Deployment");
        assert!(deployments.namespaced);
        assert_eq!(deployments.short_names, ["deploy"]);
        assert!(deployments.status_subresource);
    }

    #[test]
    fn legacy_lists_skip_subresources_and_default_the_singular() {
        let document = serde_json::json!({
            "kind": "APIResourceList",
            "groupVersion": "v1",
            "resources": [
                {"name": "configmaps", "singularName": "", "namespaced": true, "kind": "ConfigMap", "verbs": ["get"], "shortNames": ["cm"]},
                {"name": "pods", "singularName": "", "namespaced": true, "kind": "Pod", "verbs": ["get"]},
                {"name": "pods/log", "singularName": "", "namespaced": true, "kind": "Pod", "verbs": ["get"]},
                {"name": "pods/status", "singularName": "", "namespaced": true, "kind": "Pod", "verbs": ["get"]}
            ]
        });
        let list: wire::ApiResourceList = serde_json::from_value(document).unwrap();
        let types = list.into_resource_types();
        assert_eq!(types.len(), 2);
        assert_eq!(types[0].singular, "configmap");
        assert!(!types[0].status_subresource);
        assert!(types[1].status_subresource, "pods/status makes pods a type with a status subresource");
    }
}
