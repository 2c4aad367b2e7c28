//! The output order: kustomize's `legacy` order (its default; kinds in a fixed order, then by
//! group, version, kind, namespace and name) or `fifo` (as accumulated).

use std::cmp::Ordering;

use super::error::Error;
use super::resource::{Resource, group_version};
use super::types::kustomization::SortOptions;

/// kustomize's default: kinds that others depend on first, webhooks last.
const ORDER_FIRST: &[&str] = &[
    "Namespace",
    "ResourceQuota",
    "StorageClass",
    "CustomResourceDefinition",
    "ServiceAccount",
    "PodSecurityPolicy",
    "Role",
    "ClusterRole",
    "RoleBinding",
    "ClusterRoleBinding",
    "ConfigMap",
    "Secret",
    "Endpoints",
    "Service",
    "LimitRange",
    "PriorityClass",
    "PersistentVolume",
    "PersistentVolumeClaim",
    "Deployment",
    "StatefulSet",
    "CronJob",
    "PodDisruptionBudget",
];
const ORDER_LAST: &[&str] = &["MutatingWebhookConfiguration", "ValidatingWebhookConfiguration"];

/// Sorts `resources` as the kustomization's `sortOptions` say.
pub fn sort(resources: &mut [Resource], options: Option<&SortOptions>) -> Result<(), Error> {
    // No sortOptions is the legacy order; sortOptions without an order is kustomize's error.
    let order = match options {
        None => "legacy",
        Some(options) => options.order.as_deref().unwrap_or_default(),
    };
    let legacy = options.and_then(|options| options.legacy_sort_options.as_ref());
    match order {
        "fifo" if legacy.is_some() => Err(Error::FifoWithLegacyOptions),
        "fifo" => Ok(()),
        "legacy" => {
            let (first, last): (Vec<&str>, Vec<&str>) = match legacy {
                Some(legacy) => (
                    legacy.order_first.iter().map(String::as_str).collect(),
                    legacy.order_last.iter().map(String::as_str).collect(),
                ),
                None => (ORDER_FIRST.to_vec(), ORDER_LAST.to_vec()),
            };
            resources.sort_by(|a, b| compare(a, b, &|kind| rank(&first, &last, kind)));
            Ok(())
        }
        other => Err(Error::UnknownSortOrder(other.to_string())),
    }
}

fn compare(a: &Resource, b: &Resource, rank: &dyn Fn(&str) -> i64) -> Ordering {
    let (a_group, a_version) = group_version(&a.object);
    let (b_group, b_version) = group_version(&b.object);
    let by_gvk = compare_gvks((a_group, a_version, a.kind()), (b_group, b_version, b.kind()), rank);
    by_gvk.then_with(|| id_bytes(a).cmp(id_bytes(b)))
}

/// kustomize's order of (group, version, kind)s, by the default kind ranks: how it sorts objects,
/// and the field specs of its transformer configuration.
pub fn compare_default_gvks(a: (&str, &str, &str), b: (&str, &str, &str)) -> Ordering {
    compare_gvks(a, b, &|kind| rank(ORDER_FIRST, ORDER_LAST, kind))
}

/// Where `kind` goes: the kinds `first` names before all others, those `last` names after.
fn rank(first: &[&str], last: &[&str], kind: &str) -> i64 {
    if let Some(at) = first.iter().position(|k| *k == kind) {
        at as i64 - first.len() as i64
    } else if let Some(at) = last.iter().position(|k| *k == kind) {
        at as i64 + 1
    } else {
        0
    }
}

fn compare_gvks(a: (&str, &str, &str), b: (&str, &str, &str), rank: &dyn Fn(&str) -> i64) -> Ordering {
    let by_text = gvk_bytes(a).cmp(gvk_bytes(b));
    if by_text == Ordering::Equal {
        return Ordering::Equal;
    }
    let by_rank = rank(a.2).cmp(&rank(b.2));
    if by_rank != Ordering::Equal {
        return by_rank;
    }
    if a.2 == "Namespace" && b.2 == "Namespace" && (a.0.is_empty() || b.0.is_empty()) {
        return by_text.reverse();
    }
    by_text
}

/// The bytes of kustomize's `namespace|name` text, compared without building it.
fn id_bytes(resource: &Resource) -> impl Iterator<Item = u8> + '_ {
    let (namespace, name) = (or(resource.namespace(), "~X"), or(resource.name(), "~N"));
    namespace.bytes().chain(*b"|").chain(name.bytes())
}

/// The bytes of kustomize's `group_version_kind` text, compared without building it: sorting
/// field specs compares thousands of pairs per build.
fn gvk_bytes<'a>((group, version, kind): (&'a str, &'a str, &'a str)) -> impl Iterator<Item = u8> + 'a {
    let part = |text: &'a str, missing: &'a str| or(text, missing).bytes();
    part(group, "~G").chain(*b"_").chain(part(version, "~V")).chain(*b"_").chain(part(kind, "~K"))
}

fn or<'a>(text: &'a str, missing: &'a str) -> &'a str {
    if text.is_empty() { missing } else { text }
}
