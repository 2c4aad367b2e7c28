//! `create role`, `create clusterrole`, `create rolebinding` and `create clusterrolebinding`.

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

use super::{Error, strings, unique};

/// The verbs kubectl knows for resources; others are warned about, not refused.
const RESOURCE_VERBS: [&str; 14] = [
    "*",
    "get",
    "delete",
    "list",
    "create",
    "update",
    "patch",
    "watch",
    "proxy",
    "deletecollection",
    "use",
    "bind",
    "escalate",
    "impersonate",
];

/// The verbs that make sense for non-resource URLs.
const NON_RESOURCE_VERBS: [&str; 8] = ["*", "get", "post", "put", "delete", "patch", "head", "options"];

/// The verbs kubectl allows on a few resources only, each with those (group, resource).
const SPECIAL_VERBS: [(&str, &[(&str, &str)]); 4] = [
    ("use", &[("policy", "podsecuritypolicies"), ("extensions", "podsecuritypolicies")]),
    ("bind", &[("rbac.authorization.k8s.io", "roles"), ("rbac.authorization.k8s.io", "clusterroles")]),
    ("escalate", &[("rbac.authorization.k8s.io", "roles"), ("rbac.authorization.k8s.io", "clusterroles")]),
    ("impersonate", &[("", "users"), ("", "serviceaccounts"), ("", "groups"), ("authentication.k8s.io", "userextras")]),
];

/// One `--resource` value: `resource[.group][/subresource]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResourceRef {
    pub resource: String,
    pub group: String,
    pub subresource: String,
}

impl ResourceRef {
    /// The type argument to look up in discovery: `resource` or `resource.group`.
    pub fn type_arg(&self) -> String {
        if self.group.is_empty() { self.resource.clone() } else { format!("{}.{}", self.resource, self.group) }
    }

    /// Whether discovery is asked about this one (not a wildcard, not empty).
    pub fn needs_lookup(&self) -> bool {
        !self.resource.is_empty() && self.resource != "*"
    }
}

/// A resource as discovery names it: its group and plural name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GroupResource {
    pub group: String,
    pub resource: String,
}

/// `--resource` values as kubectl reads them; a bare `*` stands for all and ends the list.
pub fn resource_refs(values: &[String]) -> Vec<ResourceRef> {
    let mut refs = Vec::new();
    for value in values {
        let (name, subresource) = value.split_once('/').unwrap_or((value, ""));
        let (resource, group) = name.split_once('.').unwrap_or((name, ""));
        let parsed = ResourceRef { resource: resource.into(), group: group.into(), subresource: subresource.into() };
        if value == "*" {
            return vec![parsed];
        }
        refs.push(parsed);
    }
    refs
}

/// `create role` and `create clusterrole`: one rule per API group of the resources, plus one for
/// non-resource URLs, or else an aggregation rule (cluster roles only).
#[derive(Debug, Clone, Default)]
pub struct RoleOptions {
    pub name: String,
    pub verbs: Vec<String>,
    pub resources: Vec<ResourceRef>,
    pub resource_names: Vec<String>,
    pub non_resource_urls: Vec<String>,
    /// `--aggregation-rule` labels, the last value of a key winning.
    pub aggregation_rule: BTreeMap<String, String>,
}

/// Looks a resource up in discovery; `None` when the server does not serve it.
pub type Lookup<'a> = &'a dyn Fn(&ResourceRef) -> Option<GroupResource>;

/// The Role kubectl generates, checked as kubectl checks it: `warn` hears of verbs kubectl does
/// not know, which are kept.
pub fn role(options: &RoleOptions, lookup: Lookup, warn: &mut dyn FnMut(String)) -> Result<Value, Error> {
    let verbs = verbs(&options.verbs);
    if verbs.is_empty() {
        return Err(Error::NoVerb);
    }
    warn_nonstandard(&verbs, warn);
    if options.resources.is_empty() {
        return Err(Error::NoResource);
    }
    check_resources(&options.resources, &verbs, lookup)?;
    Ok(json!({
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "Role",
        "metadata": {"name": options.name},
        "rules": rules(options, &verbs, &[], lookup),
    }))
}

/// The ClusterRole kubectl generates, checked as kubectl checks it.
pub fn cluster_role(options: &RoleOptions, lookup: Lookup, warn: &mut dyn FnMut(String)) -> Result<Value, Error> {
    let verbs = verbs(&options.verbs);
    let urls = unique(&options.non_resource_urls);
    let mut role = json!({
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "ClusterRole",
        "metadata": {"name": options.name},
    });
    if !options.aggregation_rule.is_empty() {
        if !urls.is_empty() || !verbs.is_empty() || !options.resources.is_empty() || !options.resource_names.is_empty()
        {
            return Err(Error::AggregationWithRules);
        }
        role["aggregationRule"] = json!({"clusterRoleSelectors": [{"matchLabels": options.aggregation_rule}]});
        role["rules"] = Value::Null;
        return Ok(role);
    }
    if verbs.is_empty() {
        return Err(Error::NoVerb);
    }
    if options.resources.is_empty() && urls.is_empty() {
        return Err(Error::NoResourceOrUrl);
    }
    if !options.resources.is_empty() {
        warn_nonstandard(&verbs, warn);
        check_resources(&options.resources, &verbs, lookup)?;
    }
    if !urls.is_empty() {
        if let Some(verb) = verbs.iter().find(|verb| !NON_RESOURCE_VERBS.contains(&verb.as_str())) {
            return Err(Error::NonResourceVerb(verb.clone()));
        }
        for url in urls.iter().filter(|url| *url != "*") {
            if !url.starts_with('/') {
                return Err(Error::NonResourceUrlSlash);
            }
            if url[..url.len() - 1].contains('*') {
                return Err(Error::NonResourceUrlWildcard);
            }
        }
    }
    role["rules"] = rules(options, &verbs, &urls, lookup);
    Ok(role)
}

/// The verbs without repeats; `*` alone once it appears.
fn verbs(given: &[String]) -> Vec<String> {
    if given.iter().any(|verb| verb == "*") {
        return vec!["*".into()];
    }
    unique(given)
}

fn warn_nonstandard(verbs: &[String], warn: &mut dyn FnMut(String)) {
    for verb in verbs.iter().filter(|verb| !RESOURCE_VERBS.contains(&verb.as_str())) {
        warn(format!("Warning: '{verb}' is not a standard resource verb"));
    }
}

/// What discovery calls `resource`, or the resource as given when it does not know it.
fn mapped(resource: &ResourceRef, lookup: Lookup) -> (GroupResource, bool) {
    match lookup(resource) {
        Some(found) => (found, true),
        None => (GroupResource { group: resource.group.clone(), resource: resource.resource.clone() }, false),
    }
}

/// kubectl's checks of the resources, in its order: each named, served, and fit for the special
/// verbs; a wildcard resource ends the checks.
fn check_resources(resources: &[ResourceRef], verbs: &[String], lookup: Lookup) -> Result<(), Error> {
    for resource in resources {
        if resource.resource.is_empty() {
            return Err(Error::GroupWithoutResource);
        }
        if resource.resource == "*" {
            return Ok(());
        }
        let (target, mut served) = mapped(resource, lookup);
        for verb in verbs {
            let Some((_, allowed)) = SPECIAL_VERBS.iter().find(|(special, _)| special == verb) else { continue };
            if !allowed.contains(&(target.group.as_str(), target.resource.as_str())) {
                return Err(Error::SpecialVerb { verb: verb.clone(), resource: target.resource, group: target.group });
            }
            // kubectl lets a resource discovery does not know pass when a special verb allows it.
            served = true;
        }
        if !served {
            return Err(Error::UnknownResource { resource: resource.resource.clone(), group: resource.group.clone() });
        }
    }
    Ok(())
}

/// One rule per API group (groups sorted, resources in the order given), then one for the URLs.
fn rules(options: &RoleOptions, verbs: &[String], urls: &[String], lookup: Lookup) -> Value {
    let mut by_group: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for resource in &options.resources {
        let (mut target, _) = mapped(resource, lookup);
        if !resource.subresource.is_empty() {
            target.resource = format!("{}/{}", target.resource, resource.subresource);
        }
        let resources = by_group.entry(target.group).or_default();
        if !resources.contains(&target.resource) {
            resources.push(target.resource);
        }
    }
    let names = unique(&options.resource_names);
    let mut rules: Vec<Value> = by_group
        .into_iter()
        .map(|(group, resources)| {
            let mut rule = json!({"verbs": verbs, "apiGroups": [group], "resources": resources});
            if !names.is_empty() {
                rule["resourceNames"] = strings(&names);
            }
            rule
        })
        .collect();
    if !urls.is_empty() {
        rules.push(json!({"verbs": verbs, "nonResourceURLs": urls}));
    }
    Value::Array(rules)
}

/// `create rolebinding` and `create clusterrolebinding`: the role bound, and the subjects.
#[derive(Debug, Clone, Default)]
pub struct BindingOptions {
    pub name: String,
    /// `--role` (role bindings only).
    pub role: String,
    pub cluster_role: String,
    pub users: Vec<String>,
    pub groups: Vec<String>,
    /// `NAMESPACE:NAME` each.
    pub service_accounts: Vec<String>,
}

/// The RoleBinding kubectl generates, of a Role or a ClusterRole.
pub fn role_binding(options: &BindingOptions) -> Result<Value, Error> {
    if options.role.is_empty() == options.cluster_role.is_empty() {
        return Err(Error::RoleOrClusterRole);
    }
    let (kind, role) = match options.role.is_empty() {
        false => ("Role", &options.role),
        true => ("ClusterRole", &options.cluster_role),
    };
    binding("RoleBinding", kind, role, options)
}

/// The ClusterRoleBinding kubectl generates.
pub fn cluster_role_binding(options: &BindingOptions) -> Result<Value, Error> {
    binding("ClusterRoleBinding", "ClusterRole", &options.cluster_role, options)
}

fn binding(kind: &str, role_kind: &str, role: &str, options: &BindingOptions) -> Result<Value, Error> {
    let named =
        |kind: &str, name: &String| json!({"kind": kind, "apiGroup": "rbac.authorization.k8s.io", "name": name});
    let mut subjects: Vec<Value> = options.users.iter().map(|user| named("User", user)).collect();
    subjects.extend(options.groups.iter().map(|group| named("Group", group)));
    for account in &options.service_accounts {
        match account.split(':').collect::<Vec<_>>()[..] {
            [namespace, name] if !namespace.is_empty() && !name.is_empty() => {
                subjects.push(json!({"kind": "ServiceAccount", "namespace": namespace, "name": name}));
            }
            _ => return Err(Error::ServiceAccountFormat),
        }
    }
    let mut object = Map::new();
    object.insert("apiVersion".into(), "rbac.authorization.k8s.io/v1".into());
    object.insert("kind".into(), kind.into());
    object.insert("metadata".into(), json!({"name": options.name}));
    object.insert("roleRef".into(), json!({"apiGroup": "rbac.authorization.k8s.io", "kind": role_kind, "name": role}));
    if !subjects.is_empty() {
        object.insert("subjects".into(), Value::Array(subjects));
    }
    Ok(Value::Object(object))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn served(resource: &ResourceRef) -> Option<GroupResource> {
        let found =
            |group: &str, resource: &str| Some(GroupResource { group: group.into(), resource: resource.into() });
        match resource.type_arg().as_str() {
            "pods" | "pod" | "po" => found("", "pods"),
            "rs.apps" | "replicasets" => found("apps", "replicasets"),
            "roles.rbac.authorization.k8s.io" => found("rbac.authorization.k8s.io", "roles"),
            _ => None,
        }
    }

    fn options(verbs: &[&str], resources: &[&str]) -> RoleOptions {
        let owned = |values: &[&str]| values.iter().map(|value| value.to_string()).collect::<Vec<_>>();
        RoleOptions {
            name: "r".into(),
            verbs: owned(verbs),
            resources: resource_refs(&owned(resources)),
            ..Default::default()
        }
    }

    fn made(options: &RoleOptions) -> (Result<Value, Error>, Vec<String>) {
        let mut warnings = Vec::new();
        let role = role(options, &served, &mut |warning| warnings.push(warning));
        (role, warnings)
    }

    #[test]
    fn resources_are_read_as_resource_group_and_subresource() {
        let refs = resource_refs(&["deploy.apps/scale".into(), "pods".into()]);
        assert_eq!(
            refs[0],
            ResourceRef { resource: "deploy".into(), group: "apps".into(), subresource: "scale".into() }
        );
        assert_eq!(refs[1].type_arg(), "pods");
        assert_eq!(resource_refs(&["pods".into(), "*".into(), "nodes".into()]).len(), 1);
    }

    #[test]
    fn rules_are_one_per_group_with_resources_as_discovery_names_them() {
        let (role, warnings) = made(&options(&["get", "list", "get"], &["po", "rs.apps", "pods/log", "pod"]));
        assert!(warnings.is_empty());
        assert_eq!(
            role.unwrap()["rules"],
            json!([
                {"apiGroups": [""], "resources": ["pods", "pods/log"], "verbs": ["get", "list"]},
                {"apiGroups": ["apps"], "resources": ["replicasets"], "verbs": ["get", "list"]},
            ])
        );
    }

    #[test]
    fn the_checks_use_kubectls_words() {
        assert_eq!(made(&options(&[], &["pods"])).0, Err(Error::NoVerb));
        assert_eq!(made(&options(&["get"], &[])).0, Err(Error::NoResource));
        assert_eq!(made(&options(&["get"], &[".apps"])).0, Err(Error::GroupWithoutResource));
        let unknown = made(&options(&["get"], &["foo.bar"])).0.unwrap_err();
        assert_eq!(unknown.to_string(), r#"the server doesn't have a resource type "foo" in group "bar""#);
        let special = made(&options(&["use"], &["pods"])).0.unwrap_err();
        assert_eq!(special.to_string(), "can not perform 'use' on 'pods' in group ''");
        assert!(made(&options(&["bind"], &["roles.rbac.authorization.k8s.io"])).0.is_ok());
    }

    #[test]
    fn unknown_verbs_are_warned_about_and_kept() {
        let (role, warnings) = made(&options(&["frob"], &["pods"]));
        assert_eq!(warnings, ["Warning: 'frob' is not a standard resource verb"]);
        assert_eq!(role.unwrap()["rules"][0]["verbs"], json!(["frob"]));
    }

    #[test]
    fn cluster_roles_take_urls_or_an_aggregation_rule() {
        let check = |options: &RoleOptions| cluster_role(options, &served, &mut |_| {});
        let mut urls = options(&["get"], &[]);
        urls.non_resource_urls = vec!["/logs/*".into(), "/logs/*".into()];
        assert_eq!(check(&urls).unwrap()["rules"], json!([{"nonResourceURLs": ["/logs/*"], "verbs": ["get"]}]));
        urls.non_resource_urls = vec!["logs".into()];
        assert_eq!(check(&urls), Err(Error::NonResourceUrlSlash));
        urls.non_resource_urls = vec!["/a*/b".into()];
        assert_eq!(check(&urls), Err(Error::NonResourceUrlWildcard));
        urls.verbs = vec!["list".into()];
        assert_eq!(check(&urls), Err(Error::NonResourceVerb("list".into())));
        let mut aggregated = options(&[], &[]);
        aggregated.aggregation_rule.insert("a".into(), "b".into());
        let role = check(&aggregated).unwrap();
        assert_eq!(role["rules"], Value::Null);
        assert_eq!(role["aggregationRule"]["clusterRoleSelectors"][0]["matchLabels"], json!({"a": "b"}));
        aggregated.verbs = vec!["get".into()];
        assert_eq!(check(&aggregated), Err(Error::AggregationWithRules));
        assert_eq!(check(&options(&["get"], &[])), Err(Error::NoResourceOrUrl));
    }

    #[test]
    fn bindings_name_their_role_and_subjects() {
        let mut options = BindingOptions { name: "b".into(), ..Default::default() };
        assert_eq!(role_binding(&options), Err(Error::RoleOrClusterRole));
        options.role = "reader".into();
        options.users = vec!["alice".into()];
        options.service_accounts = vec!["ns:robot".into()];
        let binding = role_binding(&options).unwrap();
        assert_eq!(binding["roleRef"]["kind"], "Role");
        assert_eq!(binding["subjects"][1], json!({"kind": "ServiceAccount", "namespace": "ns", "name": "robot"}));
        options.service_accounts = vec!["robot".into()];
        assert_eq!(role_binding(&options), Err(Error::ServiceAccountFormat));
        options.cluster_role = "admin".into();
        assert_eq!(role_binding(&options), Err(Error::RoleOrClusterRole));
    }
}
