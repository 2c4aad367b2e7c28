//! Names that change in a build: content hashes appended to generated objects' names, and every
//! reference to a renamed object (from kustomize's name-reference table) made to follow.

use serde_json::Value;

use super::error::Error;
use super::generate::hash_suffix;
use super::resource::Resource;
use super::types::field_specs::NameReference;

/// Appends the content hash to the names of the objects that need one.
pub fn add_hashes(resources: &mut [Resource]) {
    for resource in resources.iter_mut().filter(|resource| resource.needs_hash) {
        let name = format!("{}-{}", resource.name(), hash_suffix(&resource.object));
        resource.rename(name);
    }
}

/// Makes every field that names an object by a name it had (before a prefix, suffix or hash)
/// name it as it is now, choosing the object as kustomize's name-reference filter does; `table`
/// says which fields name which kinds. Fails, as kustomize does, on a RoleBinding whose service
/// account subject has a namespace that is not a string, and on a reference that several objects
/// could answer.
pub fn fix_references(resources: &mut [Resource], table: &[NameReference]) -> Result<(), Error> {
    for index in 0..resources.len() {
        // Most objects (a ConfigMap, a CRD) have no field the table names: they are not copied.
        let specs = || table.iter().flat_map(|reference| &reference.field_specs);
        if !specs().any(|spec| spec.selects(&resources[index].object)) {
            continue;
        }
        let referrer = &resources[index];
        let subject_namespaces = role_binding_subject_namespaces(referrer)?;
        // kustomize's subset of objects the referrer could refer to at all (the namespaces are
        // compared first: asking whether a kind is cluster-scoped costs a lookup per pair).
        let referrer_cluster_scoped = referrer.is_cluster_scoped();
        let could_refer = |candidate: &Resource| {
            effective(candidate.namespace()) == effective(referrer.namespace())
                || referrer_cluster_scoped
                || candidate.is_cluster_scoped()
                || subject_namespaces.contains(&candidate.namespace())
        };
        let candidates: Vec<&Resource> = resources.iter().filter(|candidate| could_refer(candidate)).collect();
        let mut object = referrer.object.clone();
        let mut failure = None;
        for reference in table {
            for spec in &reference.field_specs {
                let site = Site { reference, path: spec.path.join("/"), candidates: &candidates, referrer };
                spec.apply(&mut object, &mut |value| {
                    if failure.is_none()
                        && let Err(error) = fix(value, &site)
                    {
                        failure = Some(error);
                    }
                });
            }
        }
        if let Some(error) = failure {
            return Err(error);
        }
        resources[index].object = object;
    }
    Ok(())
}

/// A field of the table in one referrer: what it names, and the objects it may name.
struct Site<'a> {
    reference: &'a NameReference,
    /// The field's path, as kustomize's field specs write it (`roleRef/name`).
    path: String,
    candidates: &'a [&'a Resource],
    referrer: &'a Resource,
}

fn fix(value: &mut Value, site: &Site) -> Result<(), Error> {
    match value {
        Value::String(name) => {
            if let Some(target) = referred(site, site.candidates.to_vec(), name, false)? {
                *name = target.name().to_string();
            }
        }
        Value::Array(names) => {
            for name in names {
                fix(name, site)?;
            }
        }
        Value::Object(map) => {
            // A subject or a service reference: a name, maybe a namespace, and for subjects a kind.
            if map.get("kind").and_then(Value::as_str).is_some_and(|kind| kind != site.reference.kind) {
                return Ok(());
            }
            let Some(name) = map.get("name").and_then(Value::as_str) else { return Ok(()) };
            let candidates = match map.get("namespace").and_then(Value::as_str) {
                Some(namespace) => in_namespace(site.candidates, namespace),
                None => site.candidates.to_vec(),
            };
            let Some(target) = referred(site, candidates, name, true)? else { return Ok(()) };
            if target.name() == name && target.namespace().is_empty() {
                return Ok(());
            }
            map.insert("name".into(), Value::String(target.name().to_string()));
            if !target.namespace().is_empty() {
                map.insert("namespace".into(), Value::String(target.namespace().to_string()));
            }
        }
        _ => {}
    }
    Ok(())
}

/// The namespaces a RoleBinding's service account subjects name: a namespaced object may refer to
/// objects of its own namespace only, or of these. A subject whose namespace is there but not a
/// string is kustomize's error.
fn role_binding_subject_namespaces(referrer: &Resource) -> Result<Vec<&str>, Error> {
    if referrer.kind() != "RoleBinding" {
        return Ok(Vec::new());
    }
    let subjects = referrer.object["subjects"].as_array().map(Vec::as_slice).unwrap_or_default();
    let mut namespaces = Vec::new();
    for subject in subjects.iter().filter(|subject| subject["kind"] == "ServiceAccount") {
        match subject.get("namespace") {
            None => {}
            Some(Value::String(namespace)) => namespaces.push(namespace.as_str()),
            Some(_) => return Err(Error::BlankNamespace(referrer.id())),
        }
    }
    Ok(namespaces)
}

/// The objects a reference naming `namespace` may mean: those that were in it when read, or
/// (when none was) those in it now.
fn in_namespace<'a>(candidates: &[&'a Resource], namespace: &str) -> Vec<&'a Resource> {
    let wanted = effective(namespace);
    let namespaced = || candidates.iter().copied().filter(|resource| !resource.is_cluster_scoped());
    let originally: Vec<&Resource> =
        namespaced().filter(|resource| effective(resource.original_namespace()) == wanted).collect();
    if !originally.is_empty() {
        return originally;
    }
    namespaced().filter(|resource| effective(resource.namespace()) == wanted).collect()
}

/// A namespace as Kubernetes reads it: none is `default`.
fn effective(namespace: &str) -> &str {
    if namespace.is_empty() { "default" } else { namespace }
}

/// Whether one of the ids `resource` had (not the one it has, unless stored) is of the group and
/// kind given (any when empty).
fn had_kind(resource: &Resource, group: &str, version: &str, kind: &str) -> bool {
    resource.previous_ids.iter().any(|previous| {
        let (had_group, had_version) = previous.api_version.rsplit_once('/').unwrap_or(("", &previous.api_version));
        (group.is_empty() || group == had_group)
            && (version.is_empty() || version == had_version)
            && (kind.is_empty() || kind == previous.kind)
    })
}

/// The object a reference to `name` means, chosen among `candidates` as kustomize's
/// `selectReferral` chooses: those that had the name (an id no transformer stored needs no
/// fixing), of the reference's kind, of the kind a `roleRef` names, that the referrer can see
/// (the same namespace, or cluster-scoped, or a service account); then, among several, those
/// whose prefixes and suffixes end as the referrer's. Several left that agree on the name (and,
/// for `with_namespace` references, the namespace) count as one; others are an error.
fn referred<'a>(
    site: &Site,
    candidates: Vec<&'a Resource>,
    name: &str,
    with_namespace: bool,
) -> Result<Option<&'a Resource>, Error> {
    let (reference, referrer) = (site.reference, site.referrer);
    let role_ref = site.path.ends_with("roleRef/name").then(|| {
        let role_ref = &referrer.object["roleRef"];
        (role_ref["apiGroup"].as_str(), role_ref["kind"].as_str())
    });
    let same_namespace = |candidate: &Resource| {
        referrer.is_cluster_scoped()
            || candidate.is_cluster_scoped()
            || candidate.kind() == "ServiceAccount"
            || effective(candidate.namespace()) == effective(referrer.namespace())
    };
    let mut matching: Vec<&Resource> = candidates
        .into_iter()
        .filter(|candidate| {
            candidate.had_previous_name(name)
                && had_kind(candidate, &reference.group, &reference.version, &reference.kind)
                && match role_ref {
                    Some((Some(group), Some(kind))) => had_kind(candidate, group, "", kind),
                    _ => true,
                }
                && same_namespace(candidate)
        })
        .collect();
    if matching.len() > 1 {
        matching.retain(|candidate| affixes_agree(candidate, referrer, true));
        if matching.len() > 1 {
            matching.retain(|candidate| affixes_agree(candidate, referrer, false));
        }
    }
    let Some(first) = matching.first().copied() else { return Ok(None) };
    let identical = matching
        .iter()
        .all(|other| other.name() == first.name() && (!with_namespace || other.namespace() == first.namespace()));
    if identical {
        return Ok(Some(first));
    }
    let ids: Vec<String> = matching.iter().map(|candidate| candidate.id()).collect();
    let mut details = format!(
        "\n**** Too many possible referral targets to referrer:\n{}\n",
        crate::output::to_yaml(&referrer.with_previous_ids())
    );
    for (index, candidate) in matching.iter().enumerate() {
        details.push_str(&format!(
            "--- possible referral {index}:\n{}\n",
            crate::output::to_yaml(&candidate.with_previous_ids())
        ));
    }
    Err(Error::NameReference {
        path: site.path.clone(),
        referrer: referrer.id(),
        source: Box::new(Error::ManyReferrals { ids: ids.join(", "), details }),
    })
}

/// kustomize's `PrefixesSuffixesEquals`: whether the prefixes and the suffixes added to `a` and
/// to `b` end alike (with `allow_empty`, none added to one of them agrees with anything).
fn affixes_agree(a: &Resource, b: &Resource, allow_empty: bool) -> bool {
    let agree = |x: &[String], y: &[String]| (allow_empty && (x.is_empty() || y.is_empty())) || same_ending(x, y);
    agree(&a.prefixes, &b.prefixes) && agree(&a.suffixes, &b.suffixes)
}

/// kustomize's `SameEndingSubSlice`: the shorter list is the end of the longer (two empty lists
/// only agree with each other).
fn same_ending(a: &[String], b: &[String]) -> bool {
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    if short.is_empty() {
        return long.is_empty();
    }
    long.ends_with(short)
}
