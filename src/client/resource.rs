//! A resource type the server serves, as discovery describes it.

use serde::{Deserialize, Serialize};

/// One resource of one group version, e.g. `deployments` in `apps/v1`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResourceType {
    /// API group; empty for the core group.
    pub group: String,
    /// Version within the group, e.g. `v1`.
    pub version: String,
    /// Plural resource name used in URLs, e.g. `deployments`.
    pub resource: String,
    /// Kind of the objects, e.g. `Deployment`.
    pub kind: String,
    /// Whether objects live in a namespace.
    pub namespaced: bool,
    /// Verbs the server supports, e.g. `get`, `list`, `patch`.
    pub verbs: Vec<String>,
    /// Short names, e.g. `deploy`.
    pub short_names: Vec<String>,
    /// The categories the type belongs to, e.g. `all` (what `kubectl get all` lists).
    #[serde(default)]
    pub categories: Vec<String>,
    /// Singular name, e.g. `deployment`.
    pub singular: String,
    /// Whether the type has a `status` subresource: writes to the object itself then leave its
    /// status as it was.
    #[serde(default)]
    pub status_subresource: bool,
}

impl ResourceType {
    /// A namespaced type of `kind` in `group`, version `v1`, for tests of code that only looks at
    /// the group and kind.
    #[cfg(test)]
    pub fn namespaced_for_tests(group: &str, kind: &str) -> ResourceType {
        ResourceType {
            group: group.into(),
            version: "v1".into(),
            resource: format!("{}s", kind.to_lowercase()),
            kind: kind.into(),
            namespaced: true,
            verbs: Vec::new(),
            short_names: Vec::new(),
            categories: Vec::new(),
            singular: kind.to_lowercase(),
            status_subresource: false,
        }
    }

    /// `v1` for the core group, else `group/version`.
    pub fn api_version(&self) -> String {
        if self.group.is_empty() { self.version.clone() } else { format!("{}/{}", self.group, self.version) }
    }

    /// `deployments.apps`, or just `configmaps` for the core group: the name in server messages.
    pub fn group_resource(&self) -> String {
        qualify(&self.resource, &self.group)
    }

    /// `deployment.apps`, or just `configmap`: the prefix of kubectl's `TYPE/NAME` output.
    pub fn group_kind_lower(&self) -> String {
        qualify(&self.kind.to_lowercase(), &self.group)
    }

    /// Whether the server supports `verb` on this resource.
    pub fn supports(&self, verb: &str) -> bool {
        self.verbs.iter().any(|supported| supported == verb)
    }
}

/// `name.group`, or `name` for the core group.
pub(crate) fn qualify(name: &str, group: &str) -> String {
    if group.is_empty() { name.to_string() } else { format!("{name}.{group}") }
}

#[cfg(test)]
pub(crate) fn fixture(group: &str, version: &str, resource: &str, kind: &str, namespaced: bool) -> ResourceType {
    ResourceType {
        group: group.into(),
        version: version.into(),
        resource: resource.into(),
        kind: kind.into(),
        namespaced,
        verbs: ["get", "list", "create", "update", "patch", "delete"].map(String::from).to_vec(),
        short_names: Vec::new(),
        categories: Vec::new(),
        singular: kind.to_lowercase(),
        status_subresource: false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_for_core_and_group_types() {
        let deployments = fixture("apps", "v1", "deployments", "Deployment", true);
        assert_eq!(deployments.api_version(), "apps/v1");
        assert_eq!(deployments.group_resource(), "deployments.apps");
        assert_eq!(deployments.group_kind_lower(), "deployment.apps");
        let configmaps = fixture("", "v1", "configmaps", "ConfigMap", true);
        assert_eq!(configmaps.api_version(), "v1");
        assert_eq!(configmaps.group_resource(), "configmaps");
        assert_eq!(configmaps.group_kind_lower(), "configmap");
        assert!(configmaps.supports("patch"));
        assert!(!configmaps.supports("watch"));
    }
}
