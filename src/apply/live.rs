//! Reading the live objects up front: one list per type and namespace that has several objects
//! to apply, instead of one read per object. Objects of cluster-scoped types are read one by one:
//! every application of the cluster shares them, so a list would read them all (every
//! CustomResourceDefinition of the cluster, some of them megabytes) to apply a few.

use std::collections::HashMap;

use serde_json::Value;
use tokio::sync::Semaphore;

use crate::client::{Cluster, ListScope, ResourceType, Selectors};
use crate::resource::Manifest;

/// From how many objects of one type in one namespace the live objects are listed at once.
const LIST_FROM: usize = 3;

/// The live objects of one type in one namespace, by name, as one list showed them.
pub(super) type Listed = HashMap<ListKey, HashMap<String, Value>>;

/// A type (by group and resource) and a namespace (`None` for cluster-scoped types).
pub(super) type ListKey = (String, Option<String>);

pub(super) fn list_key(manifest: &Manifest) -> ListKey {
    (manifest.object.rt.group_resource(), manifest.object.namespace.clone())
}

/// The types and namespaces whose live objects are listed: every namespaced type and namespace
/// that has at least [`LIST_FROM`] of `manifests`.
pub(super) fn to_list<'a>(manifests: impl IntoIterator<Item = &'a Manifest>) -> HashMap<ListKey, &'a ResourceType> {
    let mut counts: HashMap<ListKey, (usize, &ResourceType)> = HashMap::new();
    for manifest in manifests.into_iter().filter(|manifest| manifest.object.namespace.is_some()) {
        counts.entry(list_key(manifest)).or_insert((0, &manifest.object.rt)).0 += 1;
    }
    counts.into_iter().filter(|(_, (count, _))| *count >= LIST_FROM).map(|(key, (_, rt))| (key, rt)).collect()
}

/// Lists the live objects of each type and namespace of `to_list`, as many at once as `limit`
/// lets. A list that fails is left out: its objects are read one by one instead.
pub(super) async fn list(cluster: &Cluster, to_list: &HashMap<ListKey, &ResourceType>, limit: &Semaphore) -> Listed {
    let lists = to_list.iter().map(|(key, rt)| async move {
        let _place = place(limit).await;
        let namespace = key.1.as_deref().expect("only namespaced types are listed");
        let listed = cluster
            .list(rt, ListScope::Namespace(namespace), Selectors::default())
            .await
            .ok()
            .map(|list| by_name(list, rt));
        (key.clone(), listed)
    });
    futures::future::join_all(lists).await.into_iter().filter_map(|(key, listed)| Some((key, listed?))).collect()
}

/// A place within `limit` for one read of the round before the first write; `None` once the
/// round is over (the apply closes the limit when it starts), and the read then goes ahead
/// without one: a closed limit bounds nothing.
pub(super) async fn place(limit: &Semaphore) -> Option<tokio::sync::SemaphorePermit<'_>> {
    limit.acquire().await.ok()
}

/// A list's items by name, with the `apiVersion` and `kind` that list items leave out.
fn by_name(mut list: Value, rt: &ResourceType) -> HashMap<String, Value> {
    let Some(Value::Array(items)) = list.get_mut("items").map(Value::take) else { return HashMap::new() };
    items
        .into_iter()
        .filter_map(|mut item| {
            item["apiVersion"] = Value::String(rt.api_version());
            item["kind"] = Value::String(rt.kind.clone());
            Some((item["metadata"]["name"].as_str()?.to_string(), item))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_closed_limit_lets_reads_go_ahead() {
        let limit = Semaphore::new(1);
        let held = place(&limit).await;
        assert!(held.is_some());
        assert_eq!(limit.available_permits(), 0);
        drop(held);
        limit.close();
        assert!(place(&limit).await.is_none(), "no place, and no panic, once the round is over");
    }
}
