//! REST mapping: from what the user typed (`deploy`, `Deployment`, `deployments.v1.apps`) or what a
//! manifest says (`apps/v1`, `Deployment`) to a served [`ResourceType`].

use super::discovery::Discovery;
use super::resource::ResourceType;

/// The server serves nothing matching a type argument or a manifest's kind.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MappingError {
    /// No resource type answers to the user's type argument; kubectl 1.37 names the group a
    /// `resource.group` argument asks for (`the server doesn't have a resource type "pdb" in
    /// group "hpa"`), everything after the first dot.
    #[error("the server doesn't have a resource type {:?}{}", unknown_type_parts(.0).0, unknown_type_parts(.0).1)]
    UnknownType(String),
    /// No resource type serves this kind in this group version.
    #[error("no matches for kind {kind:?} in version {api_version:?}")]
    UnknownKind {
        /// The manifest's `apiVersion`.
        api_version: String,
        /// The manifest's `kind`.
        kind: String,
    },
}

/// The resource an unknown type argument names, and ` in group "GROUP"` when it names one.
fn unknown_type_parts(arg: &str) -> (&str, String) {
    match arg.split_once('.') {
        Some((resource, group)) => (resource, format!(" in group {group:?}")),
        None => (arg, String::new()),
    }
}

/// One way to read a type argument: a name, maybe qualified by a version and a group.
#[derive(Debug, PartialEq, Eq)]
struct TypeQuery<'a> {
    name: &'a str,
    version: Option<&'a str>,
    group: Option<&'a str>,
}

/// kubectl's readings of `a.b.c`, most specific first: `resource.version.group`, then
/// `resource.group`; a name without dots is just a name.
fn readings(arg: &str) -> Vec<TypeQuery<'_>> {
    let Some((name, qualifier)) = arg.split_once('.') else {
        return vec![TypeQuery { name: arg, version: None, group: None }];
    };
    let mut readings = Vec::with_capacity(2);
    if let Some((version, group)) = qualifier.split_once('.') {
        readings.push(TypeQuery { name, version: Some(version), group: Some(group) });
    }
    readings.push(TypeQuery { name, version: None, group: Some(qualifier) });
    readings
}

impl TypeQuery<'_> {
    fn scope_matches(&self, rt: &ResourceType) -> bool {
        self.group.is_none_or(|group| group == rt.group) && self.version.is_none_or(|version| version == rt.version)
    }

    fn names(&self, rt: &ResourceType) -> bool {
        self.scope_matches(rt)
            && (rt.resource == self.name || rt.singular == self.name || rt.kind.eq_ignore_ascii_case(self.name))
    }

    fn short_names(&self, rt: &ResourceType) -> bool {
        self.scope_matches(rt) && rt.short_names.iter().any(|short| short == self.name)
    }
}

impl Discovery {
    /// The resource type a user's type argument means, like kubectl: plural, singular or short name,
    /// or Kind (case-insensitive), optionally qualified as `name.group` or `name.version.group`.
    /// Full names win over short names; among several groups the highest priority wins.
    pub fn resolve(&self, arg: &str) -> Option<&ResourceType> {
        let arg = arg.to_lowercase();
        readings(&arg).iter().find_map(|query| {
            let by_name = self.resources.iter().find(|rt| query.names(rt));
            by_name.or_else(|| self.resources.iter().find(|rt| query.short_names(rt)))
        })
    }

    /// The resource types of a category (`all`, `api-extensions`), as kubectl expands one: every
    /// type that lists it, each group's resource once (its preferred version), in discovery's
    /// order. Empty when no type lists it.
    pub fn category(&self, arg: &str) -> Vec<&ResourceType> {
        let mut found: Vec<&ResourceType> = Vec::new();
        for rt in self.resources.iter().filter(|rt| rt.categories.iter().any(|category| category == arg)) {
            if !found.iter().any(|seen| seen.group == rt.group && seen.resource == rt.resource) {
                found.push(rt);
            }
        }
        found
    }

    /// The resource type serving `kind` in `api_version` (`v1` or `group/version`), as a manifest
    /// names it.
    pub fn resolve_kind(&self, api_version: &str, kind: &str) -> Option<&ResourceType> {
        let (group, version) = api_version.split_once('/').unwrap_or(("", api_version));
        self.resources.iter().find(|rt| rt.group == group && rt.version == version && rt.kind == kind)
    }
}

#[cfg(test)]
mod tests {
    use super::super::resource::fixture;
    use super::*;

    fn discovery() -> Discovery {
        let mut pods = fixture("", "v1", "pods", "Pod", true);
        pods.short_names = vec!["po".into()];
        let mut configmaps = fixture("", "v1", "configmaps", "ConfigMap", true);
        configmaps.short_names = vec!["cm".into()];
        let core_events = fixture("", "v1", "events", "Event", true);
        let mut deployments = fixture("apps", "v1", "deployments", "Deployment", true);
        deployments.short_names = vec!["deploy".into()];
        let events = fixture("events.k8s.io", "v1", "events", "Event", true);
        let mut widgets = fixture("example.com", "v1", "widgets", "Widget", true);
        widgets.short_names = vec!["pods".into()];
        let old_widgets = fixture("example.com", "v1beta1", "widgets", "Widget", true);
        let nodes = fixture("", "v1", "nodes", "Node", false);
        Discovery { resources: vec![pods, configmaps, core_events, nodes, deployments, events, widgets, old_widgets] }
    }

    fn resolved(arg: &str) -> Option<String> {
        discovery().resolve(arg).map(|rt| format!("{}/{}", rt.api_version(), rt.resource))
    }

    #[test]
    fn plural_singular_short_and_kind_all_resolve() {
        for arg in ["deployments", "deployment", "deploy", "Deployment", "DEPLOYMENTS"] {
            assert_eq!(resolved(arg).as_deref(), Some("apps/v1/deployments"), "{arg}");
        }
        assert_eq!(resolved("cm").as_deref(), Some("v1/configmaps"));
        assert_eq!(resolved("configmap").as_deref(), Some("v1/configmaps"));
    }

    #[test]
    fn group_and_version_qualifiers_narrow_the_match() {
        assert_eq!(resolved("deployments.apps").as_deref(), Some("apps/v1/deployments"));
        assert_eq!(resolved("deploy.apps").as_deref(), Some("apps/v1/deployments"));
        assert_eq!(resolved("events.events.k8s.io").as_deref(), Some("events.k8s.io/v1/events"));
        assert_eq!(resolved("widgets.example.com").as_deref(), Some("example.com/v1/widgets"));
        assert_eq!(resolved("widgets.v1beta1.example.com").as_deref(), Some("example.com/v1beta1/widgets"));
        assert_eq!(resolved("deployments.extensions"), None);
    }

    #[test]
    fn earlier_groups_win_and_full_names_beat_short_names() {
        assert_eq!(resolved("events").as_deref(), Some("v1/events"));
        assert_eq!(resolved("pods").as_deref(), Some("v1/pods"));
        assert_eq!(resolved("widgets").as_deref(), Some("example.com/v1/widgets"));
    }

    #[test]
    fn a_category_lists_each_groups_resource_once_in_discovery_order() {
        let mut discovery = discovery();
        for rt in &mut discovery.resources {
            if ["pods", "deployments", "widgets"].contains(&rt.resource.as_str()) {
                rt.categories = vec!["all".into()];
            }
        }
        let listed: Vec<String> =
            discovery.category("all").iter().map(|rt| format!("{}/{}", rt.api_version(), rt.resource)).collect();
        assert_eq!(listed, ["v1/pods", "apps/v1/deployments", "example.com/v1/widgets"]);
        assert!(discovery.category("nothing").is_empty());
    }

    #[test]
    fn unknown_names_do_not_resolve() {
        assert_eq!(resolved("foo"), None);
        assert_eq!(resolved("deploy.v1"), None);
    }

    #[test]
    fn kinds_resolve_by_api_version() {
        let discovery = discovery();
        assert_eq!(discovery.resolve_kind("apps/v1", "Deployment").unwrap().resource, "deployments");
        assert_eq!(discovery.resolve_kind("v1", "ConfigMap").unwrap().resource, "configmaps");
        assert_eq!(discovery.resolve_kind("example.com/v1beta1", "Widget").unwrap().version, "v1beta1");
        assert!(discovery.resolve_kind("apps/v1beta1", "Deployment").is_none());
        assert!(discovery.resolve_kind("v1", "configmap").is_none());
    }
}
