//! The reads before the first write: the live objects the checks need (one list per type and
//! namespace with several objects, else one read each), and the reads sent early beside them for
//! the apply to use.

use std::collections::{HashMap, HashSet};
use std::pin::{Pin, pin};
use std::sync::Arc;

use futures::channel::oneshot;
use futures::future::{self, Either};
use futures::stream::{self, FuturesUnordered, StreamExt};
use serde_json::Value;
use tokio::sync::Semaphore;

use super::super::live::{self, ListKey, list_key};
use super::super::object::Live;
use super::super::{ApplyOptions, Mode, immutable};
use super::{Identity, Read, identity};
use crate::client::{Cluster, ResourceType};
use crate::resource::{Entry, Manifest};

/// The objects whose live state is read before the first write, and the types and namespaces
/// listed for them: none where the apply reads nothing before writing (`--force`, a subresource).
pub(super) struct ToRead<'a> {
    ready: Vec<&'a Manifest>,
    to_list: HashMap<ListKey, &'a ResourceType>,
}

impl<'a> ToRead<'a> {
    pub(super) fn of(entries: &'a [Entry], options: &ApplyOptions) -> Self {
        if matches!(options.mode, Mode::ClientSide { force: true, .. }) || options.subresource.is_some() {
            return ToRead { ready: Vec::new(), to_list: HashMap::new() };
        }
        let ready: Vec<&Manifest> = entries
            .iter()
            .filter_map(|entry| match entry {
                Entry::Ready(manifest) => Some(manifest),
                Entry::Pending(_) => None,
            })
            .collect();
        let to_list = live::to_list(ready.iter().copied());
        ToRead { ready, to_list }
    }

    /// How many reads the checks send at once: one per list, and up to `concurrency` of the
    /// others; at least `concurrency`.
    pub(super) fn round(&self, concurrency: usize) -> usize {
        (self.to_list.len() + self.checked_unlisted().count().min(concurrency)).max(concurrency).max(1)
    }

    /// The objects read one by one to check them: of kinds with fields that cannot change, and
    /// not listed.
    fn checked_unlisted(&self) -> impl Iterator<Item = &&'a Manifest> {
        (self.ready.iter())
            .filter(|manifest| immutable::has_immutable_fields(&manifest.object) && !self.is_listed(manifest))
    }

    /// Whether `manifest`'s object is read by listing its type in its namespace.
    fn is_listed(&self, manifest: &Manifest) -> bool {
        self.to_list.contains_key(&list_key(manifest))
    }
}

/// The reads of the objects that nothing reads before the first write (cluster-scoped objects,
/// and namespaced ones too few of a type to list), sent in the places the checks' reads leave
/// while the round lasts. Each object's apply waits for its own answer only, where it would
/// otherwise send its read after the round: the write of a large definition starts as soon as
/// the definition is read. The reads the round had no place for are left to each apply.
pub(super) struct EarlyReads<'c> {
    /// Sends the reads, each in a place the checks' reads leave or free, and hands over each
    /// answer: polled beside the checks, then beside the apply (for the reads under way).
    pub(super) sending: Option<Pin<Box<dyn Future<Output = ()> + 'c>>>,
    pub(super) answers: HashMap<Identity, oneshot::Receiver<Read>>,
    /// The round's places.
    limit: Arc<Semaphore>,
    /// Turns to wait for a place, `options.concurrency` of them: the checks' reads, which the
    /// first write waits for, queue for places behind no more early reads than that.
    turns: Arc<Semaphore>,
}

impl<'c> EarlyReads<'c> {
    /// Sends the reads of the first document of each object of `to_read` that is neither listed
    /// nor read to be checked, unless its kind is one a definition of the input defines (the
    /// kind may be served only once the definition is written).
    pub(super) fn send(
        cluster: &'c Cluster,
        to_read: &ToRead<'_>,
        options: &ApplyOptions,
        limit: Arc<Semaphore>,
    ) -> Self {
        let mut answers = HashMap::new();
        let defined: HashSet<(&str, &str)> =
            to_read.ready.iter().filter_map(|manifest| manifest.defined_kind()).collect();
        let mut reads = Vec::new();
        for manifest in &to_read.ready {
            let object = &manifest.object;
            if immutable::has_immutable_fields(object)
                || to_read.is_listed(manifest)
                || defined.contains(&(object.rt.group.as_str(), object.rt.kind.as_str()))
                || answers.contains_key(&identity(manifest))
            {
                continue;
            }
            let (sender, receiver) = oneshot::channel();
            answers.insert(identity(manifest), receiver);
            reads.push((object.rt.clone(), object.namespace.clone(), object.name.clone(), sender));
        }
        let turns = Arc::new(Semaphore::new(options.concurrency.max(1)));
        if reads.is_empty() {
            return EarlyReads { sending: None, answers, limit, turns };
        }
        let sending = (reads.into_iter())
            .map(|(rt, namespace, name, sender): (_, Option<String>, String, oneshot::Sender<Read>)| {
                let (places, turns) = (limit.clone(), turns.clone());
                async move {
                    // Once the apply starts (both closed), the sender is dropped at once and
                    // the object's apply reads it.
                    let Ok(_turn) = turns.acquire().await else { return };
                    let Ok(_place) = places.acquire().await else { return };
                    // An object no longer to be applied (the apply stopped) is not read.
                    if !sender.is_canceled() {
                        _ = sender.send(read_live(cluster, &rt, namespace.as_deref(), &name).await);
                    }
                }
            })
            .collect::<FuturesUnordered<_>>()
            .for_each(|()| future::ready(()));
        EarlyReads { sending: Some(Box::pin(sending)), answers, limit, turns }
    }

    /// Starts no more reads: those waiting are left to each object's apply, those under way are
    /// answered.
    pub(super) fn close(&self) {
        self.turns.close();
        self.limit.close();
    }
}

/// Awaits `work` while `sending` (when there is one) goes on beside it; `sending`, once done, is
/// left `None`.
pub(super) async fn alongside<T>(
    sending: &mut Option<Pin<Box<dyn Future<Output = ()> + '_>>>,
    work: impl Future<Output = T>,
) -> T {
    let Some(running) = sending else { return work.await };
    match future::select(pin!(work), running.as_mut()).await {
        Either::Left((done, _)) => done,
        Either::Right(((), work)) => {
            *sending = None;
            work.await
        }
    }
}

/// The live object when it is sent early, as its read answered: read again by the apply if the
/// read failed.
pub(super) async fn answered(answer: oneshot::Receiver<Read>) -> Live {
    match answer.await {
        Ok(Ok(Some(live))) => Live::Read(live),
        Ok(Ok(None)) => Live::Absent,
        Ok(Err(_)) | Err(oneshot::Canceled) => Live::Unread,
    }
}

/// Reads, in one round of requests, the live objects of every namespaced type and namespace with
/// several objects (one list each), and one by one the other objects of kinds that have fields
/// that cannot change; adds to `unchangeable` each object whose configuration changes such a
/// field, with the changes.
/// Returns what was read, for the apply to use: reading it all at once here, rather than a part
/// now and the rest once the apply starts, saves the apply a round trip.
pub(super) async fn read_before_writes<'m>(
    cluster: &Cluster,
    to_read: &ToRead<'m>,
    options: &ApplyOptions,
    limit: &Semaphore,
    unchangeable: &mut Vec<(&'m Manifest, Vec<immutable::ImmutableChange>)>,
) -> HashMap<Identity, Option<Value>> {
    let ready = &to_read.ready;
    let checked = |manifest: &&&Manifest| immutable::has_immutable_fields(&manifest.object);
    let (mut listed, mut reads) = futures::join!(
        live::list(cluster, &to_read.to_list, limit),
        read_each(cluster, to_read.checked_unlisted(), options, limit)
    );
    // Where a list failed, its objects are read one by one.
    let not_listed = ready
        .iter()
        .filter(checked)
        .filter(|manifest| to_read.is_listed(manifest) && !listed.contains_key(&list_key(manifest)));
    reads.extend(read_each(cluster, not_listed, options, limit).await);
    for manifest in ready {
        if let Some(by_name) = listed.get_mut(&list_key(manifest)) {
            reads.push((manifest, Ok(by_name.remove(&manifest.object.name))));
        }
    }
    let mut read = HashMap::new();
    for (manifest, live) in reads {
        // An object that cannot be read now is read again, and fails, when it is applied.
        let Ok(live) = live else { continue };
        if let Some(live) = &live
            && immutable::has_immutable_fields(&manifest.object)
        {
            let changes = immutable::changes(&manifest.object, &manifest.document, live);
            if !changes.is_empty() {
                unchangeable.push((manifest, changes));
            }
        }
        read.entry(identity(manifest)).or_insert(live);
    }
    read
}

/// Reads each of `manifests`' live objects (`None`: absent), several at once.
async fn read_each<'a, 'm: 'a>(
    cluster: &Cluster,
    manifests: impl Iterator<Item = &'a &'m Manifest>,
    options: &ApplyOptions,
    limit: &Semaphore,
) -> Vec<(&'m Manifest, Read)> {
    stream::iter(manifests)
        .map(|manifest| async move {
            let _place = live::place(limit).await;
            let object = &manifest.object;
            (*manifest, read_live(cluster, &object.rt, object.namespace.as_deref(), &object.name).await)
        })
        .buffered(options.concurrency.max(1))
        .collect()
        .await
}

/// Reads one live object (`None`: absent).
async fn read_live(cluster: &Cluster, rt: &ResourceType, namespace: Option<&str>, name: &str) -> Read {
    match cluster.get(rt, namespace, name).await {
        Ok(live) => Ok(Some(live)),
        Err(crate::client::Error::NotFound(_)) => Ok(None),
        Err(err) => Err(err),
    }
}
