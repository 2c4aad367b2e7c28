//! The whole input as one batch: checked before the first write, then applied in the phases and
//! stages of [`super::order`], several objects at once.

use std::cell::{Cell, RefCell};
use std::collections::{HashMap, HashSet};
use std::pin::{Pin, pin};
use std::sync::Arc;

use futures::channel::oneshot;
use futures::future::{self, Either};
use futures::stream::{self, FuturesUnordered, StreamExt};

use super::error::ANNOTATIONS_LIMIT;
use super::live::{self, ListKey, list_key};
use super::object::{self, Live};
use super::order::{self, Order, Phase};
use super::validate::{self, InvalidFields, Verdict};
use super::{Action, ApplyOptions, DryRun, Error, Mode, Outcome, Stop, crd, immutable, last_applied, lost, replace};
use serde_json::Value;
use tokio::sync::Semaphore;

use crate::client::{Cluster, ResourceType};
use crate::resource::{Entry, Manifest, ObjectRef, Resolver, Source};

/// An input checked for applying: nothing in it is known to fail before anything is sent.
pub struct Batch<'c> {
    entries: Vec<Entry>,
    warnings: Vec<(Source, InvalidFields)>,
    /// The live objects read to check them (`None`: absent), for the apply to use.
    read: HashMap<Identity, Option<Value>>,
    /// The last-applied configuration of each object, by input index, as made to check the
    /// annotations' size: what client-side apply records.
    recorded: HashMap<usize, String>,
    /// The objects to replace, by input index, with the fields that force it.
    replace: HashMap<usize, Vec<&'static str>>,
    early: EarlyReads<'c>,
    order: Order,
}

/// Group, kind, namespace and name: documents of the same object are applied one after the other.
type Identity = (String, String, Option<String>, String);

fn identity(manifest: &Manifest) -> Identity {
    let object = &manifest.object;
    (object.rt.group.clone(), object.rt.kind.clone(), object.namespace.clone(), object.name.clone())
}

impl<'c> Batch<'c> {
    /// Checks every object before anything is written: its fields against the server's schema of
    /// its kind (as `options.validation` asks); for client-side apply, whether the annotations
    /// with the last-applied configuration stay within the server's limit (an object's that would
    /// not is applied server-side); and that no field changes that the server does not let change
    /// (unless `--force`; an object that opts in to being replaced is marked to be). Returns every
    /// object that fails.
    pub async fn new(
        cluster: &'c Cluster,
        entries: Vec<Entry>,
        options: &ApplyOptions,
    ) -> Result<Batch<'c>, Vec<(Source, Error)>> {
        let order = order::order(&entries)
            .map_err(|(position, err)| vec![(entries[position].source().clone(), Error::Order(err))])?;
        // The reads go out first: the server answers them while the documents are checked here.
        let to_read = ToRead::of(&entries, options);
        // One limit for every read before the first write, as wide as the lists and the checks'
        // reads need: the reads sent early take the places those free, so the round opens no
        // more connections (each a TLS handshake) than it would without them.
        let limit = Arc::new(Semaphore::new(to_read.round(options.concurrency)));
        let mut early = EarlyReads::send(cluster, &to_read, options, limit.clone());
        let mut unchangeable = Vec::new();
        let (read, checked) = alongside(&mut early.sending, async {
            futures::join!(
                read_before_writes(cluster, &to_read, options, &limit, &mut unchangeable),
                check_documents(cluster, &entries, options),
            )
        })
        .await;
        let Checked { mut failures, warnings, recorded, suspects } = checked;
        let unchangeable = (unchangeable.into_iter())
            .map(|(manifest, changes)| (manifest, changes, read.get(&identity(manifest)).cloned().flatten()))
            .collect();
        let judged = replace::judge(cluster, unchangeable, options).await;
        failures.extend(judged.refused);
        failures.extend(confirm_on_server(cluster, &entries, suspects, options).await);
        let replace = judged.replace;
        if failures.is_empty() {
            Ok(Batch { entries, warnings, read, recorded, replace, early, order })
        } else {
            Err(failures)
        }
    }

    /// The objects whose fields are wrong, with `--validate=warn` on a server that cannot warn.
    pub fn warnings(&self) -> &[(Source, InvalidFields)] {
        &self.warnings
    }

    /// The objects to apply, in input order.
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// The phases the objects are applied in.
    pub fn order(&self) -> &Order {
        &self.order
    }

    /// Applies every object in the phases of [`Batch::order`]: in each, namespaces and the
    /// CustomResourceDefinitions of kinds the input has objects of first; then, once those
    /// definitions are established, the objects of their kinds with everything else, up to
    /// `options.concurrency` at once; then, once `gate` says the APIServices and webhook
    /// workloads of the phase are ready, what waits for them. A phase after the first starts once
    /// `gate` says everything before it is ready and nothing failed; otherwise its objects get
    /// [`Error::Held`]. Definitions of kinds the input has no objects of go with everything else:
    /// nothing waits for them, and the server's work on a large definition overlaps the other
    /// writes. `report` gets each object's input index and result as soon as it is known, which
    /// is not always in input order. Once `stop` is set (by the caller, or here when a request
    /// fails at the transport and the server does not answer a probe either) no object is
    /// started: those get [`Error::NotApplied`], while the writes in flight finish.
    pub async fn run(
        self,
        cluster: &Cluster,
        resolver: &Resolver<'_>,
        options: &ApplyOptions,
        stop: &Stop,
        gate: &mut impl Gate,
        report: impl FnMut(usize, Result<Outcome, Error>),
    ) {
        // The reads not started by now are left to each object's apply: started beside the
        // writes, they would compete with them, reads of the input's last objects before writes
        // of its first ones. Those under way are answered.
        self.early.close();
        let Batch { entries, read, recorded, replace, early: EarlyReads { mut sending, answers, .. }, order, .. } =
            self;
        let known = Known { read, recorded, replace, early: answers };
        let phases = apply_in_phases(cluster, resolver, options, stop, entries, order, known, gate, report);
        alongside(&mut sending, phases).await;
    }
}

/// Waits, between the stages and phases of a run, until what was written before is ready: the
/// caller's readiness wait (the apply engine follows no object itself).
pub trait Gate {
    /// Waits until each of `objects` (each as its write returned it) is ready; `Err` says why
    /// one is not.
    fn ready(&mut self, objects: Vec<(ObjectRef, Value)>) -> impl Future<Output = Result<(), String>>;
}

/// The gate of a dry run, which writes nothing to wait for (and so is never asked).
pub struct NoGate;

impl Gate for NoGate {
    async fn ready(&mut self, _: Vec<(ObjectRef, Value)>) -> Result<(), String> {
        Ok(())
    }
}

/// Applies `entries` in the phases and stages of `order`, as [`Batch::run`] says.
#[allow(clippy::too_many_arguments)]
async fn apply_in_phases(
    cluster: &Cluster,
    resolver: &Resolver<'_>,
    options: &ApplyOptions,
    stop: &Stop,
    entries: Vec<Entry>,
    order: Order,
    mut known: Known,
    gate: &mut impl Gate,
    mut report: impl FnMut(usize, Result<Outcome, Error>),
) {
    let mut entries: Vec<Option<Entry>> = entries.into_iter().map(Some).collect();
    // What each object's write returned, for the gates; and whether anything failed.
    let written: RefCell<HashMap<usize, (ObjectRef, Value)>> = RefCell::default();
    let failed = Cell::new(false);
    // Gates wait for nothing in a dry run: nothing was written.
    let gates = options.dry_run == DryRun::None;
    let mut held: Option<String> = None;
    for (number, phase) in order.phases.iter().enumerate() {
        if number > 0 && held.is_none() && gates {
            let earlier = order.phases[..number].iter().flat_map(Phase::members);
            let objects = earlier.filter_map(|position| written.borrow().get(&position).cloned()).collect();
            held = passed(gate, objects, failed.get())
                .await
                .err()
                .map(|reason| format!("phase {} (sync wave {}) was not started: {reason}", number + 1, phase.wave));
        }
        let mut take =
            |positions: &[usize]| positions.iter().filter_map(|&position| entries[position].take()).collect();
        let (definitions, main, gated): (Vec<Entry>, Vec<Entry>, Vec<Entry>) =
            (take(&phase.definitions), take(&phase.main), take(&phase.gated));
        let mut record = |index: usize, result: Result<Outcome, Error>| {
            match &result {
                Ok(outcome) => _ = written.borrow_mut().insert(index, (outcome.target.clone(), outcome.object.clone())),
                Err(_) => failed.set(true),
            }
            report(index, result);
        };
        if let Some(reason) = &held {
            for entry in definitions.into_iter().chain(main).chain(gated) {
                record(entry.source().index, Err(Error::Held(reason.clone())));
            }
            continue;
        }
        let crds: HashMap<usize, String> = (definitions.iter())
            .filter_map(|entry| match entry {
                Entry::Ready(manifest) if manifest.object.rt.kind == "CustomResourceDefinition" => {
                    Some((manifest.source.index, manifest.object.name.clone()))
                }
                _ => None,
            })
            .collect();
        // The definitions written now: their kinds may be known (discovery cached from before
        // they were deleted) and still not served yet.
        let mut defined = Vec::new();
        {
            let mut record_definition = |index: usize, result: Result<Outcome, Error>| {
                if let (Some(name), Ok(outcome)) = (crds.get(&index), &result)
                    && outcome.action != Action::Unchanged
                    && outcome.change != Some(Action::Unchanged)
                {
                    defined.push(name.clone());
                }
                record(index, result);
            };
            let ready = resolved(resolver, options, stop, definitions, &mut record_definition).await;
            execute(cluster, options, stop, ready, &mut known, &mut record_definition).await;
        }
        if !defined.is_empty() && options.dry_run == DryRun::None && stop.reason().is_none() {
            crd::wait_until_established(cluster, &defined).await;
        }
        let ready = resolved(resolver, options, stop, main, &mut record).await;
        execute(cluster, options, stop, ready, &mut known, &mut record).await;
        if gated.is_empty() {
            continue;
        }
        let backends = phase.backends.iter().filter_map(|position| written.borrow().get(position).cloned()).collect();
        let waited = match gates {
            true => passed(gate, backends, false).await,
            false => Ok(()),
        };
        match waited {
            Ok(()) => {
                let ready = resolved(resolver, options, stop, gated, &mut record).await;
                execute(cluster, options, stop, ready, &mut known, &mut record).await;
            }
            Err(reason) => {
                let reason = format!("it waits for a server of this input, which is not ready: {reason}");
                for entry in gated {
                    record(entry.source().index, Err(Error::Held(reason.clone())));
                }
            }
        }
    }
}

/// Whether the gate lets the next phase start: nothing before it failed (Argo CD starts no wave
/// after a failed one), and what was written is ready.
async fn passed(gate: &mut impl Gate, written: Vec<(ObjectRef, Value)>, failed: bool) -> Result<(), String> {
    if failed {
        return Err("an object of an earlier phase failed".into());
    }
    if written.is_empty() { Ok(()) } else { gate.ready(written).await }
}

/// The manifests of `entries`, in input order, resolving those whose kind a definition of the
/// input defines (applied by now); those that cannot be resolved are reported.
async fn resolved(
    resolver: &Resolver<'_>,
    options: &ApplyOptions,
    stop: &Stop,
    entries: Vec<Entry>,
    report: &mut impl FnMut(usize, Result<Outcome, Error>),
) -> Vec<Manifest> {
    let mut manifests = Vec::with_capacity(entries.len());
    for entry in entries {
        let object = match entry {
            Entry::Ready(manifest) => {
                manifests.push(manifest);
                continue;
            }
            Entry::Pending(object) => object,
        };
        let index = object.source.index;
        if stop.reason().is_some() {
            report(index, Err(Error::NotApplied));
            continue;
        }
        if options.dry_run != DryRun::None {
            let (kind, api_version) = (object.kind, object.api_version);
            report(index, Err(Error::KindNotCreatedInDryRun { kind, api_version }));
            continue;
        }
        match resolver.resolve_pending(object).await {
            Ok(manifest) => manifests.push(manifest),
            Err(err) => report(index, Err(err.into())),
        }
    }
    manifests.sort_by_key(|manifest| manifest.source.index);
    manifests
}

/// What checking the documents themselves found.
#[derive(Default)]
struct Checked {
    failures: Vec<(Source, Error)>,
    warnings: Vec<(Source, InvalidFields)>,
    /// The last-applied configuration of each object, by input index.
    recorded: HashMap<usize, String>,
    /// The entries (by position) whose fields the schema refuses, on a server that checks
    /// fields itself: that server decides.
    suspects: Vec<usize>,
}

/// Checks each document's fields against the server's schema of its kind (as `options.validation`
/// asks) and, for client-side apply, the size of its annotations with the last-applied
/// configuration.
async fn check_documents(cluster: &Cluster, entries: &[Entry], options: &ApplyOptions) -> Checked {
    let mut checked = Checked::default();
    // A dry run on the client sends nothing for such a server to judge: the schema decides.
    let server_decides = options.dry_run != DryRun::Client && cluster.supports_field_validation().await;
    for (position, entry) in entries.iter().enumerate() {
        let source = entry.source().clone();
        let document = match entry {
            Entry::Ready(manifest) => &manifest.document,
            Entry::Pending(pending) => &pending.document,
        };
        if matches!(entry, Entry::Ready(_)) {
            let verdict = match options.mode {
                Mode::ClientSide { .. } => validate::check(cluster, document, options.validation).await,
                Mode::ServerSide { .. } => {
                    validate::check_server_side_apply(cluster, document, options.validation).await
                }
            };
            match verdict {
                Verdict::Valid => {}
                Verdict::Warn(errors) => checked.warnings.push((source.clone(), InvalidFields(errors))),
                Verdict::Refuse(_) if server_decides => checked.suspects.push(position),
                Verdict::Refuse(errors) => checked.failures.push((source.clone(), InvalidFields(errors).into())),
            }
        }
        // An object whose annotations would be too long is applied server-side instead.
        if options.record_last_applied
            && matches!(options.mode, Mode::ClientSide { .. })
            && let Some(text) = recorded_within_limit(document)
        {
            checked.recorded.insert(source.index, text);
        }
        // The reads sent beside these checks share this thread: between documents, their requests
        // go out and their answers come in.
        tokio::task::yield_now().await;
    }
    checked
}

/// Sends each suspect's apply as a server dry run, one after the other (they are few): a server
/// that checks fields itself is kubectl's judge (kubectl 1.25 and later check nothing on the
/// client then), so what it takes goes on and what it refuses stops every document, in its words,
/// before the first write. Nothing is written.
async fn confirm_on_server(
    cluster: &Cluster,
    entries: &[Entry],
    suspects: Vec<usize>,
    options: &ApplyOptions,
) -> Vec<(Source, Error)> {
    let dry_run = ApplyOptions { dry_run: DryRun::Server, ..options.clone() };
    let mut refused = Vec::new();
    for position in suspects {
        let Entry::Ready(manifest) = &entries[position] else { continue };
        if let Err(err) = object::apply(cluster, manifest, Live::Unread, None, &dry_run).await {
            refused.push((manifest.source.clone(), err));
        }
    }
    refused
}

/// The objects whose live state is read before the first write, and the types and namespaces
/// listed for them: none where the apply reads nothing before writing (`--force`, a subresource).
struct ToRead<'a> {
    ready: Vec<&'a Manifest>,
    to_list: HashMap<ListKey, &'a ResourceType>,
}

impl<'a> ToRead<'a> {
    fn of(entries: &'a [Entry], options: &ApplyOptions) -> Self {
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
    fn round(&self, concurrency: usize) -> usize {
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

/// What checking the batch made of the objects before the first write, for the apply to use.
struct Known {
    read: HashMap<Identity, Option<Value>>,
    recorded: HashMap<usize, String>,
    replace: HashMap<usize, Vec<&'static str>>,
    /// The reads sent early, each answered when it comes.
    early: HashMap<Identity, oneshot::Receiver<Read>>,
}

/// A live object as read (`None`: absent).
type Read = Result<Option<Value>, crate::client::Error>;

/// The reads of the objects that nothing reads before the first write (cluster-scoped objects,
/// and namespaced ones too few of a type to list), sent in the places the checks' reads leave
/// while the round lasts. Each object's apply waits for its own answer only, where it would
/// otherwise send its read after the round: the write of a large definition starts as soon as
/// the definition is read. The reads the round had no place for are left to each apply.
struct EarlyReads<'c> {
    /// Sends the reads, each in a place the checks' reads leave or free, and hands over each
    /// answer: polled beside the checks, then beside the apply (for the reads under way).
    sending: Option<Pin<Box<dyn Future<Output = ()> + 'c>>>,
    answers: HashMap<Identity, oneshot::Receiver<Read>>,
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
    fn send(cluster: &'c Cluster, to_read: &ToRead<'_>, options: &ApplyOptions, limit: Arc<Semaphore>) -> Self {
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
    fn close(&self) {
        self.turns.close();
        self.limit.close();
    }
}

/// Awaits `work` while `sending` (when there is one) goes on beside it; `sending`, once done, is
/// left `None`.
async fn alongside<T>(
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
async fn answered(answer: oneshot::Receiver<Read>) -> Live {
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
async fn read_before_writes<'m>(
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

/// The last-applied configuration of `document`, when its annotations with it stay within the
/// server's limit. Only the text is kept: a copy of every document, held until it is applied,
/// would cost more memory than making the copy again then.
fn recorded_within_limit(document: &Value) -> Option<String> {
    let text = last_applied::configuration_text(document);
    (last_applied::annotations_size(document, &text) <= ANNOTATIONS_LIMIT).then_some(text)
}

/// Whether `live` is what applying `manifest` makes: for client-side apply, the last-applied
/// annotation records this configuration (a patch sets it with the rest, or not at all); for
/// server-side apply, every field of the configuration has its value.
fn is_applied(manifest: &Manifest, options: &ApplyOptions, live: &Value) -> bool {
    match options.mode {
        // An object too large for the annotation is applied server-side.
        Mode::ClientSide { .. } if options.record_last_applied && !object::too_long_to_record(&manifest.document) => {
            last_applied::text(live) == Some(last_applied::configuration_text(&manifest.document).as_str())
        }
        _ => lost::contains(live, &manifest.document),
    }
}

/// One document to apply, with what is known of its object beforehand: what was read or listed
/// (`live`), or the read sent early (`early`), and the last-applied configuration made to check
/// it (`recorded`).
struct Step {
    manifest: Manifest,
    live: Live,
    early: Option<oneshot::Receiver<Read>>,
    recorded: Option<String>,
    /// The fields that cannot change whose change makes this object one to replace.
    replace: Option<Vec<&'static str>>,
}

/// Applies `manifests`, several at once; documents of the same object one after the other.
async fn execute(
    cluster: &Cluster,
    options: &ApplyOptions,
    stop: &Stop,
    manifests: Vec<Manifest>,
    known: &mut Known,
    report: &mut impl FnMut(usize, Result<Outcome, Error>),
) {
    let read = &mut known.read;
    if stop.reason().is_some() {
        manifests.iter().for_each(|manifest| report(manifest.source.index, Err(Error::NotApplied)));
        return;
    }
    // Server-side apply reads them too (one list per type), to say what it did and what
    // --force-conflicts took. What the checks before the first write read is not read again.
    let unread = manifests.iter().filter(|manifest| !read.contains_key(&identity(manifest)));
    let to_list = live::to_list(unread);
    let mut listed = live::list(cluster, &to_list, &Semaphore::new(to_list.len().max(1))).await;
    // Objects are started in input order, so that results come (and print) as they are made;
    // documents of the same object go in one group, one after the other.
    let mut groups: Vec<Vec<Step>> = Vec::new();
    let mut group_of: HashMap<Identity, usize> = HashMap::new();
    for manifest in manifests {
        let next = groups.len();
        let position = *group_of.entry(identity(&manifest)).or_insert(next);
        if position == next {
            groups.push(Vec::new());
        }
        let group = &mut groups[position];
        // A list shows the object as it was before this run: good for its first document only.
        let live = match (read.remove(&identity(&manifest)), listed.get_mut(&list_key(&manifest))) {
            _ if !group.is_empty() => Live::Unread,
            (Some(found), _) => found.map_or(Live::Absent, Live::Read),
            (None, Some(listed)) => listed.remove(&manifest.object.name).map_or(Live::Absent, Live::Read),
            (None, None) => Live::Unread,
        };
        let early = match live {
            Live::Unread if group.is_empty() => known.early.remove(&identity(&manifest)),
            _ => None,
        };
        let recorded = known.recorded.remove(&manifest.source.index);
        let replace = known.replace.remove(&manifest.source.index);
        group.push(Step { manifest, live, early, recorded, replace });
    }
    let mut results = stream::iter(groups)
        .map(|group| async move {
            let mut results = Vec::with_capacity(group.len());
            for Step { manifest, live, early, recorded, replace } in group {
                if stop.reason().is_some() {
                    results.push((manifest.source.index, Err(Error::NotApplied)));
                    continue;
                }
                let live = match early {
                    Some(answer) => answered(answer).await,
                    None => live,
                };
                let applied = match replace {
                    Some(fields) => replace::apply(cluster, &manifest, live, recorded, fields, options).await,
                    None => object::apply(cluster, &manifest, live, recorded, options).await,
                };
                let result = match applied {
                    Err(Error::Client(cause)) if cause.is_transport() => {
                        let applied =
                            |live: Option<&Value>| live.is_some_and(|live| is_applied(&manifest, options, live));
                        match lost::check(cluster, &manifest.object, cause.clone(), applied).await {
                            Some(lost) => Err(Error::AnswerLost(Box::new(lost))),
                            None => {
                                stop.server_gone();
                                Err(Error::Client(cause))
                            }
                        }
                    }
                    result => result,
                };
                results.push((manifest.source.index, result));
            }
            results
        })
        .buffer_unordered(options.concurrency.max(1));
    while let Some(group) = results.next().await {
        for (index, result) in group {
            report(index, result);
        }
    }
}
