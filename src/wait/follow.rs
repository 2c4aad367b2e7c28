//! Following the objects of one type in one namespace with one watch at a time.

use std::collections::HashMap;
use std::time::Duration;

use futures::StreamExt as _;
use serde_json::Value;
use tokio::sync::mpsc::UnboundedSender;
use tokio::time::Instant;

use super::{Check, Condition, FailOn, State, Target, Update};
use crate::client::{self, Cluster, ListScope, ResourceType, Selectors, WatchEvent, WatchOptions};

/// The longest a single watch is kept open before it is opened again.
pub(super) const LONGEST_WATCH: Duration = Duration::from_secs(300);

/// How long to pause before watching again after a watch failed or ended at once.
pub(super) const PAUSE: Duration = Duration::from_secs(1);

/// The targets of one type in one namespace.
pub(super) struct Group {
    rt: ResourceType,
    namespace: Option<String>,
    members: Vec<Member>,
}

struct Member {
    index: usize,
    name: String,
    uid: Option<String>,
    written: Option<Value>,
    /// The version our write gave the object, while the watch has not reached it yet: events
    /// before it show the object as it was before the write, and are passed over.
    awaited_version: Option<String>,
    done: bool,
}

/// The targets grouped by type and namespace, in the order they first appear.
pub(super) fn groups(targets: Vec<Target>) -> Vec<Group> {
    let mut groups: Vec<Group> = Vec::new();
    let mut by_key: HashMap<(String, Option<String>), usize> = HashMap::new();
    for (index, target) in targets.into_iter().enumerate() {
        let Target { object, written, uid } = target;
        let key = (object.rt.group_resource(), object.namespace.clone());
        let position = *by_key.entry(key).or_insert_with(|| {
            groups.push(Group { rt: object.rt.clone(), namespace: object.namespace.clone(), members: Vec::new() });
            groups.len() - 1
        });
        let member = Member { index, name: object.name, uid, written, awaited_version: None, done: false };
        groups[position].members.push(member);
    }
    groups
}

/// Follows `group` until each of its objects meets `condition` or fails it, sending every state
/// seen; with `once`, judges the present state only. Returns the error that stopped it, with the
/// indices of the objects left.
pub(super) async fn follow(
    cluster: &Cluster,
    condition: &Condition,
    fail_on: &[FailOn],
    group: Group,
    once: bool,
    deadline: Instant,
    updates: UnboundedSender<Update>,
) -> Result<(), (Vec<usize>, client::Error)> {
    let Group { rt, namespace, mut members } = group;
    let scope = namespace.as_deref().map_or(ListScope::AllNamespaces, ListScope::Namespace);
    let single_name = (members.len() == 1).then(|| format!("metadata.name={}", members[0].name));
    let selectors = Selectors { label: None, field: single_name.as_deref() };
    let follower = Follower { cluster, condition, fail_on, rt: &rt, scope, selectors, updates };
    let started = match written_versions(&mut members) {
        Some(version) => {
            for member in &mut members {
                let written = member.written.take();
                follower.judge(member, written, false);
            }
            Ok(version)
        }
        None => follower.list(&mut members, true).await,
    };
    let mut version = match started {
        Ok(version) => version,
        Err(err) => return stopped(&members, err),
    };
    let mut relist = false;
    while !once && members.iter().any(|member| !member.done) {
        if relist {
            version = match follower.list(&mut members, false).await {
                Ok(version) => version,
                Err(err) => return stopped(&members, err),
            };
            relist = false;
            continue;
        }
        let opened = Instant::now();
        // The server keeps the watch open a little past the deadline: the wait ends it, not the server.
        let timeout = (deadline.saturating_duration_since(opened) + PAUSE).min(LONGEST_WATCH);
        let options = WatchOptions { selectors, resource_version: Some(&version), timeout };
        match cluster.watch(&rt, scope, &options).await {
            Ok(mut events) => {
                while let Some(event) = events.next().await {
                    match event {
                        Ok(event) => {
                            if let Some(seen) = event.resource_version() {
                                version = seen.to_string();
                            }
                            follower.event(&mut members, event);
                            if members.iter().all(|member| member.done) {
                                return Ok(());
                            }
                        }
                        Err(client::Error::Gone(_)) => {
                            relist = true;
                            break;
                        }
                        Err(err) if passing(&err) => {
                            tracing::debug!("watching {}: {err}; watching again", rt.group_resource());
                            break;
                        }
                        Err(err) => return stopped(&members, err),
                    }
                }
            }
            Err(client::Error::Gone(_)) => relist = true,
            Err(err) if passing(&err) => tracing::debug!("watching {}: {err}; watching again", rt.group_resource()),
            Err(err) => return stopped(&members, err),
        }
        // A watch that ends at once is not opened again in a tight loop.
        if opened.elapsed() < PAUSE {
            tokio::time::sleep(PAUSE).await;
        }
    }
    Ok(())
}

/// When every member was just written, the oldest of their versions (a watch from there sees
/// every later change of each), and which writes the watch has yet to reach. `None` when some
/// member was not written, or a version is not a number: the objects are listed instead.
fn written_versions(members: &mut [Member]) -> Option<String> {
    let versions: Vec<(u64, String)> = members
        .iter()
        .map(|member| {
            let version = member.written.as_ref()?["metadata"]["resourceVersion"].as_str()?;
            Some((version.parse().ok()?, version.to_string()))
        })
        .collect::<Option<_>>()?;
    let (_, oldest) = versions.iter().min_by_key(|(number, _)| *number)?.clone();
    for (member, (_, version)) in members.iter_mut().zip(versions) {
        member.awaited_version = (version != oldest).then_some(version);
    }
    Some(oldest)
}

/// Errors after which the watch is opened again: the connection, or the server, failed for now.
pub(super) fn passing(err: &client::Error) -> bool {
    matches!(
        err,
        client::Error::Unreachable { .. }
            | client::Error::Timeout { .. }
            | client::Error::Server(_)
            | client::Error::TooManyRequests(_)
            | client::Error::InvalidResponse { .. }
    )
}

/// What every step of following a group needs.
struct Follower<'a> {
    cluster: &'a Cluster,
    condition: &'a Condition,
    fail_on: &'a [FailOn],
    rt: &'a ResourceType,
    scope: ListScope<'a>,
    selectors: Selectors<'a>,
    updates: UnboundedSender<Update>,
}

impl Follower<'_> {
    /// Judges the object of `member` as last `seen` (`None`: never seen), `gone` or not, and sends
    /// the state, with the object as seen (a deleted object, as it was before it went).
    fn judge(&self, member: &mut Member, seen: Option<Value>, gone: bool) {
        // Another object under the same name is not the one followed.
        let same = |object: &&Value| member.uid.as_deref().is_none_or(|uid| object["metadata"]["uid"] == uid);
        let present = seen.as_ref().filter(|_| !gone).filter(same);
        let (group, kind) = (&self.rt.group, &self.rt.kind);
        let failure = present.and_then(|object| self.fail_on.iter().find_map(|on| on.check(group, kind, object)));
        let check = match failure {
            Some(failure) => Check::FailedOn(failure),
            None => self.condition.check(group, kind, present),
        };
        member.done = !matches!(check, Check::Waiting(_));
        // The receiver is gone only when the wait is over.
        let _ = self.updates.send(Update { index: member.index, state: State::Checked { check, object: seen } });
    }

    /// Lists the group's objects, judges each and returns the list's version. On the first list
    /// (`first`), an object that is not there cannot meet a condition other than being deleted or
    /// created: it is reported missing, as kubectl reports it.
    async fn list(&self, members: &mut [Member], first: bool) -> client::Result<String> {
        let listed = match self.cluster.list(self.rt, self.scope, self.selectors).await {
            // A type no longer served has no objects left: they are all deleted.
            Err(client::Error::NotFound(_)) if *self.condition == Condition::Deleted => {
                for member in members.iter_mut() {
                    self.judge(member, None, true);
                }
                return Ok(String::new());
            }
            listed => listed?,
        };
        let version = listed["metadata"]["resourceVersion"].as_str().unwrap_or_default().to_string();
        let mut by_name: HashMap<String, Value> = HashMap::new();
        for mut item in listed["items"].as_array().cloned().unwrap_or_default() {
            // List items leave out their type; the rules need it.
            item["apiVersion"] = Value::String(self.rt.api_version());
            item["kind"] = Value::String(self.rt.kind.clone());
            if let Some(name) = item["metadata"]["name"].as_str() {
                by_name.insert(name.to_string(), item);
            }
        }
        for member in members.iter_mut().filter(|member| !member.done) {
            member.awaited_version = None;
            let object = by_name.get(&member.name).cloned();
            let needs_object = !matches!(self.condition, Condition::Deleted | Condition::Created);
            if first && object.is_none() && needs_object {
                member.done = true;
                let missing = client::Error::not_found(self.rt, &member.name);
                let _ = self.updates.send(Update { index: member.index, state: State::Missing(missing) });
                continue;
            }
            self.judge(member, object, false);
        }
        Ok(version)
    }

    /// Applies one watch event to the members it is about.
    fn event(&self, members: &mut [Member], event: WatchEvent) {
        let (object, gone) = match event {
            WatchEvent::Added(object) | WatchEvent::Modified(object) => (object, false),
            WatchEvent::Deleted(object) => (object, true),
            WatchEvent::Bookmark(_) => return,
        };
        let name = object["metadata"]["name"].as_str().unwrap_or_default();
        let version = object["metadata"]["resourceVersion"].as_str();
        for member in members.iter_mut().filter(|member| !member.done && member.name == name) {
            if let Some(awaited) = &member.awaited_version {
                if version != Some(awaited.as_str()) {
                    continue;
                }
                member.awaited_version = None;
            }
            self.judge(member, Some(object.clone()), gone);
        }
    }
}

/// The error that stops following a group, with the members left.
fn stopped(members: &[Member], err: client::Error) -> Result<(), (Vec<usize>, client::Error)> {
    Err((members.iter().filter(|member| !member.done).map(|member| member.index).collect(), err))
}
