//! Reading the pods of the workloads of one namespace while they are not ready, so that a rollout
//! that cannot finish (its pods cannot pull their image, crash in a loop, miss their
//! configuration) fails at once instead of at the timeout. One list, then one watch, of the
//! namespace's pods, and of its ReplicaSets when a Deployment is among the workloads; nothing is
//! read until a workload is seen not ready. The judgement is [`status::pods`]'s.

use std::collections::{BTreeMap, HashMap, HashSet};

use futures::StreamExt as _;
use serde_json::Value;
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender};
use tokio::time::Instant;

use super::follow::{LONGEST_WATCH, PAUSE, passing};
use super::{Check, State, Target, Update};
use crate::client::{self, Cluster, ListScope, ResourceType, Selectors, WatchEvent, WatchOptions, WatchStream};
use crate::status::pods as status;

/// The workloads among the targets of one namespace, by target index, with their group and kind.
pub(super) struct Namespace {
    name: String,
    kinds: BTreeMap<usize, (String, String)>,
}

impl Namespace {
    pub(super) fn indices(&self) -> impl Iterator<Item = usize> + '_ {
        self.kinds.keys().copied()
    }
}

/// What the wait tells a namespace's follower about one of its workloads.
#[derive(Debug)]
pub(super) enum News {
    /// Not ready yet, as last seen.
    Waiting { index: usize, object: Value },
    /// Done, one way or another: no longer judged.
    Done(usize),
}

/// The targets whose pods tell whether their rollout can finish, by namespace.
pub(super) fn workloads(targets: &[Target]) -> Vec<Namespace> {
    let mut namespaces: Vec<Namespace> = Vec::new();
    for (index, target) in targets.iter().enumerate() {
        let rt = &target.object.rt;
        let Some(namespace) = target.object.namespace.as_deref() else { continue };
        if !status::has_rollout_pods(&rt.group, &rt.kind) {
            continue;
        }
        let kinds = match namespaces.iter_mut().find(|known| known.name == namespace) {
            Some(known) => &mut known.kinds,
            None => {
                namespaces.push(Namespace { name: namespace.to_string(), kinds: BTreeMap::new() });
                &mut namespaces.last_mut().expect("just pushed").kinds
            }
        };
        kinds.insert(index, (rt.group.clone(), rt.kind.clone()));
    }
    namespaces
}

/// The objects of one type in the namespace, as last listed and watched.
struct Collection {
    rt: ResourceType,
    objects: HashMap<String, Value>,
    version: String,
    watch: Option<WatchStream>,
    opened: Instant,
}

impl Collection {
    async fn list(cluster: &Cluster, api_version: &str, kind: &str, namespace: &str) -> client::Result<Collection> {
        let rt = cluster.resolve_kind(api_version, kind).await?;
        let mut collection =
            Collection { rt, objects: HashMap::new(), version: String::new(), watch: None, opened: Instant::now() };
        collection.relist(cluster, namespace).await?;
        Ok(collection)
    }

    async fn relist(&mut self, cluster: &Cluster, namespace: &str) -> client::Result<()> {
        let listed = cluster.list(&self.rt, ListScope::Namespace(namespace), Selectors::default()).await?;
        self.version = listed["metadata"]["resourceVersion"].as_str().unwrap_or_default().to_string();
        self.objects = listed["items"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|item| Some((item["metadata"]["name"].as_str()?.to_string(), item.clone())))
            .collect();
        self.watch = None;
        Ok(())
    }

    /// Opens the watch from the version last seen, unless it is open.
    async fn watch(&mut self, cluster: &Cluster, namespace: &str) -> client::Result<()> {
        if self.watch.is_some() {
            return Ok(());
        }
        // A watch that ended at once is not opened again in a tight loop.
        if self.opened.elapsed() < PAUSE {
            tokio::time::sleep(PAUSE).await;
        }
        self.opened = Instant::now();
        let options = WatchOptions {
            selectors: Selectors::default(),
            resource_version: Some(&self.version),
            timeout: LONGEST_WATCH,
        };
        self.watch = Some(cluster.watch(&self.rt, ListScope::Namespace(namespace), &options).await?);
        Ok(())
    }

    /// Takes in what the watch brought (`None`: it ended); an error that stops the follower.
    async fn take(
        &mut self,
        cluster: &Cluster,
        namespace: &str,
        event: Option<client::Result<WatchEvent>>,
    ) -> client::Result<()> {
        match event {
            Some(Ok(event)) => {
                if let Some(version) = event.resource_version() {
                    self.version = version.to_string();
                }
                match event {
                    WatchEvent::Added(object) | WatchEvent::Modified(object) => {
                        let name = object["metadata"]["name"].as_str().unwrap_or_default().to_string();
                        self.objects.insert(name, object);
                    }
                    WatchEvent::Deleted(object) => {
                        self.objects.remove(object["metadata"]["name"].as_str().unwrap_or_default());
                    }
                    WatchEvent::Bookmark(_) => {}
                }
                Ok(())
            }
            Some(Err(client::Error::Gone(_))) => self.relist(cluster, namespace).await,
            Some(Err(err)) if !passing(&err) => Err(err),
            Some(Err(_)) | None => {
                self.watch = None;
                Ok(())
            }
        }
    }

    fn items(&self) -> Vec<Value> {
        self.objects.values().cloned().collect()
    }
}

/// Takes in what the wait tells.
fn hear(told: News, waiting: &mut BTreeMap<usize, Value>, left: &mut HashSet<usize>) {
    match told {
        News::Waiting { index, object } => {
            waiting.insert(index, object);
        }
        News::Done(index) => {
            waiting.remove(&index);
            left.remove(&index);
        }
    }
}

/// The next event of `collection`'s watch; never, when it has none open.
async fn next_event(collection: Option<&mut Collection>) -> Option<client::Result<WatchEvent>> {
    match collection.and_then(|collection| collection.watch.as_mut()) {
        Some(watch) => watch.next().await,
        None => std::future::pending().await,
    }
}

/// Follows the pods of `namespace`'s workloads while the wait tells of one not ready, and sends
/// a workload's failure as soon as one of its rollout's pods fails. Ends when every workload is
/// done, or when the pods cannot be read (the wait then goes on without them).
pub(super) async fn follow(
    cluster: &Cluster,
    namespace: Namespace,
    mut news: UnboundedReceiver<News>,
    updates: UnboundedSender<Update>,
) {
    let Namespace { name, kinds } = namespace;
    let mut left: HashSet<usize> = kinds.keys().copied().collect();
    let mut waiting: BTreeMap<usize, Value> = BTreeMap::new();
    // Nothing is read until a workload is not ready.
    while waiting.is_empty() {
        let Some(told) = news.recv().await else { return };
        hear(told, &mut waiting, &mut left);
    }
    let read = async {
        let pods = Collection::list(cluster, "v1", "Pod", &name).await?;
        let deployments = kinds.values().any(|(group, kind)| status::through_replica_sets(group, kind));
        let sets = match deployments {
            true => Some(Collection::list(cluster, "apps/v1", "ReplicaSet", &name).await?),
            false => None,
        };
        Ok::<_, client::Error>((pods, sets))
    };
    let (mut pods, mut sets) = match read.await {
        Ok(read) => read,
        Err(err) => return tracing::debug!("reading the pods of {name}: {err}; waiting without them"),
    };
    loop {
        let (pod_items, set_items) = (pods.items(), sets.as_ref().map(Collection::items).unwrap_or_default());
        let failed: Vec<usize> = waiting
            .iter()
            .filter_map(|(index, object)| {
                let (group, kind) = &kinds[index];
                let why = status::rollout_failure(group, kind, object, &set_items, &pod_items)?;
                let state = State::Checked { check: Check::Failed(why), object: Some(object.clone()) };
                // The receiver is gone only when the wait is over.
                let _ = updates.send(Update { index: *index, state });
                Some(*index)
            })
            .collect();
        for index in failed {
            waiting.remove(&index);
        }
        if left.is_empty() {
            return;
        }
        let opened = async {
            pods.watch(cluster, &name).await?;
            if let Some(sets) = sets.as_mut() {
                sets.watch(cluster, &name).await?;
            }
            Ok::<_, client::Error>(())
        };
        if let Err(err) = opened.await {
            if !passing(&err) {
                return tracing::debug!("watching the pods of {name}: {err}; waiting without them");
            }
            continue;
        }
        let taken = tokio::select! {
            told = news.recv() => match told {
                Some(told) => {
                    hear(told, &mut waiting, &mut left);
                    Ok(())
                }
                None => return,
            },
            event = next_event(Some(&mut pods)) => pods.take(cluster, &name, event).await,
            event = next_event(sets.as_mut()) => match sets.as_mut() {
                Some(sets) => sets.take(cluster, &name, event).await,
                None => Ok(()),
            },
        };
        if let Err(err) = taken {
            return tracing::debug!("watching the pods of {name}: {err}; waiting without them");
        }
    }
}
