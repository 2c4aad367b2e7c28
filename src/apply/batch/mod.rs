//! The whole input as one batch: checked before the first write, then applied in the phases and
//! stages of [`super::order`], several objects at once.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::sync::Arc;

use futures::channel::oneshot;
use futures::stream::{self, StreamExt};

use super::live::{self, list_key};
use super::object::{self, Live};
use super::order::{self, Order, Phase};
use super::validate::InvalidFields;
use super::{Action, ApplyOptions, DryRun, Error, Mode, Outcome, Stop, crd, last_applied, lost, replace};
use serde_json::Value;
use tokio::sync::Semaphore;

use crate::client::Cluster;
use crate::resource::{Entry, Manifest, ObjectRef, Resolver, Source};

mod checks;
mod early_reads;

use checks::{Checked, check_documents, confirm_on_server};
use early_reads::{EarlyReads, ToRead, alongside, answered, read_before_writes};

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
