//! Waiting until objects meet a [`Condition`]: ready by kstatus's rules (`apply --wait-ready`), deleted
//! (`wait --for=delete`, and pruned objects), or kubectl's `condition=` and `jsonpath=` conditions.
//! Library code: progress and results go to a callback, nothing is printed.
//!
//! Objects are followed with watches, never by polling: one watch per type and namespace (with a
//! field selector when it holds a single object), so that 300 objects of a few types take a few
//! connections. A watch starts from the state the caller already has (the objects a write
//! returned, and their `resourceVersion`), or else from a list; when the server ends a watch it is
//! opened again where it stopped, and when that version is too old (410 Gone) the objects are
//! listed again. An object whose condition can never be met ([`Check::Failed`], e.g. a Deployment
//! past its progress deadline) ends the whole wait at once, as does an object that meets one of
//! the caller's failure conditions ([`FailOn`]).
//!
//! While a workload waited for to be ready (a Deployment, StatefulSet, DaemonSet, ReplicaSet or
//! Job) is not, the pods of its rollout are read too, with one list and one watch of the pods (and
//! for Deployments of the ReplicaSets) per namespace, started only once such a workload is seen
//! not ready: a pod the rollout cannot do without that waits for a reason no retry cures
//! ([`crate::status::pods`]) fails the workload at once.
//!
//! To wait until objects are gone (pruned, or deleted by `wait --for=delete`), call [`wait`] with
//! [`Condition::Deleted`] and targets made by [`Target::deleted`].

mod condition;
mod follow;
mod pods;

use std::collections::HashMap;
use std::time::Duration;

use futures::stream::{FuturesUnordered, StreamExt as _};
use serde_json::Value;
use tokio::sync::mpsc;
use tokio::time::Instant;

use crate::client::{self, Cluster};
use crate::resource::ObjectRef;

pub use condition::{Check, Condition, FailOn, JsonPathCondition};

/// Why a condition cannot be waited for.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// `--for` names no condition kubeupd knows.
    #[error("unrecognized condition: {0:?}")]
    UnknownCondition(String),
    /// `--fail-on` names no condition it takes.
    #[error("unrecognized failure condition: {0:?} (--fail-on takes condition=NAME[=VALUE] or jsonpath=EXPR[=VALUE])")]
    UnknownFailure(String),
    /// `--for=jsonpath=` is not a usable expression.
    #[error("{0}")]
    JsonPath(String),
}

/// One object to wait for.
#[derive(Debug, Clone)]
pub struct Target {
    pub object: ObjectRef,
    /// Its state as a write just returned it: judged at once, and its `resourceVersion` starts
    /// the watch. `None`: the object is read from the server first.
    pub written: Option<Value>,
    /// For [`Condition::Deleted`]: the object with this UID must go; another object created
    /// under the same name since counts as gone.
    pub uid: Option<String>,
}

impl Target {
    /// An object named by the user, read from the server first.
    pub fn named(object: ObjectRef) -> Target {
        Target { object, written: None, uid: None }
    }

    /// An object a write just returned.
    pub fn written(object: ObjectRef, written: Value) -> Target {
        Target { object, written: Some(written), uid: None }
    }

    /// An object to see gone: the one with `uid`, when given (a pruned object, say).
    pub fn deleted(object: ObjectRef, uid: Option<String>) -> Target {
        Target { object, written: None, uid }
    }
}

/// How the wait for one object ended.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// The condition was met this long after the wait began; `object` as last seen (a deleted
    /// object as it was before it went; `None` when it was never seen).
    Met { object: Option<Value>, after: Duration },
    /// The condition can never be met without a change, and why.
    Failed(String),
    /// A failure condition of the caller's ([`FailOn`]) was met, and which.
    FailedOn(String),
    /// The time ran out (or, with no time at all, the one check failed), and the last reason.
    NotMet(String),
    /// The object could not be followed: it was not there to begin with, or the server refused.
    Error(client::Error),
}

/// What the callback hears while waiting.
#[derive(Debug, Clone, PartialEq)]
pub enum Progress<'a> {
    /// The object at this index in the targets is not there yet, and why (told again only when
    /// the reason changes).
    Waiting(&'a str),
    /// It is done: it got there, failed, or cannot be followed.
    Done(&'a Outcome),
}

/// An update from a followed group about the target at `index`.
#[derive(Debug)]
struct Update {
    index: usize,
    state: State,
}

#[derive(Debug)]
enum State {
    /// Its state now (`object`: `None` when it does not exist), judged.
    Checked { check: Check, object: Option<Value> },
    /// It cannot be followed: not there to begin with.
    Missing(client::Error),
}

/// Waits until every target meets `condition`, for at most `timeout` (zero: judge each object
/// once, as it is now). `progress` hears each target's index and state as it changes. Returns one
/// outcome per target, in order.
pub async fn wait(
    cluster: &Cluster,
    targets: Vec<Target>,
    condition: &Condition,
    timeout: Duration,
    progress: impl FnMut(usize, Progress<'_>),
) -> Vec<Outcome> {
    wait_or_fail(cluster, targets, condition, &[], timeout, progress).await
}

/// [`wait`], ending the wait for an object as [`Outcome::FailedOn`] (and the whole wait with it)
/// as soon as it meets one of the conditions `fail_on`.
pub async fn wait_or_fail(
    cluster: &Cluster,
    targets: Vec<Target>,
    condition: &Condition,
    fail_on: &[FailOn],
    timeout: Duration,
    mut progress: impl FnMut(usize, Progress<'_>),
) -> Vec<Outcome> {
    let started = Instant::now();
    let deadline = started + timeout;
    let mut reasons: Vec<String> = vec!["not checked yet".to_string(); targets.len()];
    let mut outcomes: Vec<Option<Outcome>> = vec![None; targets.len()];
    let (sender, mut updates) = mpsc::unbounded_channel();
    // Checking once reads no pods: the wait ends when the groups have judged their objects.
    let workloads = match *condition == Condition::Ready && !timeout.is_zero() {
        true => pods::workloads(&targets),
        false => Vec::new(),
    };
    let mut news: HashMap<usize, mpsc::UnboundedSender<pods::News>> = HashMap::new();
    let mut pod_followers: FuturesUnordered<_> = workloads
        .into_iter()
        .map(|namespace| {
            let (tell, told) = mpsc::unbounded_channel();
            news.extend(namespace.indices().map(|index| (index, tell.clone())));
            pods::follow(cluster, namespace, told, sender.clone())
        })
        .collect();
    let mut groups: FuturesUnordered<_> = follow::groups(targets)
        .into_iter()
        .map(|group| follow::follow(cluster, condition, fail_on, group, timeout.is_zero(), deadline, sender.clone()))
        .collect();
    drop(sender);
    let tell = |index: usize, what: pods::News| {
        if let Some(news) = news.get(&index) {
            // A follower that stopped (it could not read the pods) leaves the wait as it is.
            let _ = news.send(what);
        }
    };
    let expired = tokio::time::sleep_until(deadline);
    tokio::pin!(expired);
    let mut failed = false;
    while !failed && outcomes.iter().any(Option::is_none) {
        tokio::select! {
            Some(Update { index, state }) = updates.recv() => {
                if outcomes[index].is_some() {
                    continue;
                }
                let outcome = match state {
                    State::Checked { check: Check::Met, object } => Outcome::Met { object, after: started.elapsed() },
                    State::Checked { check: Check::Failed(reason), .. } => {
                        failed = true;
                        Outcome::Failed(reason)
                    }
                    State::Checked { check: Check::FailedOn(reason), .. } => {
                        failed = true;
                        Outcome::FailedOn(reason)
                    }
                    State::Checked { check: Check::Waiting(reason), object } => {
                        if let Some(object) = object {
                            tell(index, pods::News::Waiting { index, object });
                        }
                        if reason != reasons[index] {
                            progress(index, Progress::Waiting(&reason));
                            reasons[index] = reason;
                        }
                        continue;
                    }
                    State::Missing(err) => Outcome::Error(err),
                };
                tell(index, pods::News::Done(index));
                progress(index, Progress::Done(outcomes[index].insert(outcome)));
            }
            Some(ended) = groups.next() => {
                // A group ends when all its objects are done, or with the error that stopped it.
                if let Err((indices, err)) = ended {
                    for index in indices {
                        if outcomes[index].is_none() {
                            tell(index, pods::News::Done(index));
                            progress(index, Progress::Done(outcomes[index].insert(Outcome::Error(err.clone()))));
                        }
                    }
                }
            }
            Some(()) = pod_followers.next() => {}
            () = &mut expired, if !timeout.is_zero() => break,
            else => break,
        }
    }
    let mut finished = Vec::with_capacity(outcomes.len());
    for (index, outcome) in outcomes.into_iter().enumerate() {
        finished.push(outcome.unwrap_or_else(|| Outcome::NotMet(std::mem::take(&mut reasons[index]))));
    }
    finished
}
