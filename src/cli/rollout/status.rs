//! `kubeupd rollout status`: kubectl's line for the state of each object's rollout, watched
//! until it is done (one object after the other, as kubectl does), or told once with
//! `--watch=false`. The state is judged by [`crate::status::rollout`]; the watch is the client's.

use std::time::Duration;

use clap::Args;
use futures::StreamExt as _;
use serde_json::Value;

use super::super::args::{LabelSelectorArg, SelectionArgs, TargetArgs};
use super::super::visit::{self, Visited};
use super::super::{Error, GlobalArgs, Result, write_stdout};
use crate::client::{self, Cluster, ListScope, Selectors, WatchEvent, WatchOptions};
use crate::status::rollout;

/// Options of `rollout status`.
#[derive(Debug, Args)]
pub struct StatusArgs {
    #[command(flatten)]
    pub targets: TargetArgs,
    #[command(flatten)]
    pub selector: LabelSelectorArg,
    /// Watch the status of the rollout until it's done.
    #[arg(short = 'w', long, value_name = "BOOL", default_value_t = true)]
    pub watch: bool,
    /// How long to watch each object; zero waits for ever.
    #[arg(long, value_name = "DURATION", default_value = "0s", value_parser = super::super::pflag::duration, allow_hyphen_values = true)]
    pub timeout: Duration,
    /// Pin to a specific revision for showing its status; 0 is the last revision.
    #[arg(long, value_name = "N", default_value_t = 0, allow_negative_numbers = true, value_parser = super::super::pflag::int)]
    pub revision: i64,
}

/// The longest a single watch is kept open before it is opened again.
const LONGEST_WATCH: Duration = Duration::from_secs(300);

/// What `rollout status` watches, checked before anything is read.
struct Options {
    /// The objects `-l` selects.
    selection: SelectionArgs,
}

/// kubectl's checks in its order: an object named, a revision not negative.
fn options(args: &StatusArgs) -> Result<Options> {
    if args.targets.targets.is_empty() && !args.targets.files.given() {
        return Err(Error::msg(super::NOTHING_NAMED));
    }
    if args.revision < 0 {
        return Err(Error::msg(format!("revision must be a positive integer: {}", args.revision)));
    }
    Ok(Options { selection: SelectionArgs { selector: args.selector.selector.clone(), ..SelectionArgs::default() } })
}

/// Runs `kubeupd rollout status`.
pub async fn run(args: StatusArgs, global: &GlobalArgs) -> Result {
    let Options { selection } = options(&args)?;
    let cluster = global.connect().await?;
    let (resolved, single) = visit::resolve(&cluster, global, "rollout", &args.targets, &selection).await?;
    // As kubectl: one object after the other; the first that fails ends the run.
    let objects = visit::read(&cluster, resolved, &selection, single).await.objects;
    if objects.is_empty() {
        super::nothing_found(&cluster, global);
    }
    for read in objects {
        follow(&cluster, read?, &args).await?;
    }
    Ok(())
}

/// Prints the rollout state of `object` and, when watching, each change until it is done.
async fn follow(cluster: &Cluster, object: Visited, args: &StatusArgs) -> Result {
    let target = &object.target;
    if !rollout::has_viewer(&target.rt.kind) || target.rt.group != "apps" {
        return Err(Error::msg(format!("no status viewer has been implemented for {}", target.rt.kind)));
    }
    if show(&object.live, args.revision)? || !args.watch {
        return Ok(());
    }
    let deadline = (!args.timeout.is_zero()).then(|| tokio::time::Instant::now() + args.timeout);
    let watched = watch_until_done(cluster, object, args.revision, deadline);
    match deadline {
        Some(deadline) => match tokio::time::timeout_at(deadline, watched).await {
            Ok(result) => result,
            Err(_) => Err(Error::msg("timed out waiting for the condition")),
        },
        None => watched.await,
    }
}

/// Prints `object`'s rollout line; whether its rollout is done.
fn show(object: &Value, revision: i64) -> Result<bool> {
    let status = rollout::status(object, revision).map_err(Error::msg)?;
    write_stdout(&status.line)?;
    Ok(status.done)
}

/// Watches the object from the version read, printing its line at each change, until its
/// rollout is done. A watch that ends or breaks is opened again from the last version seen.
async fn watch_until_done(
    cluster: &Cluster,
    object: Visited,
    revision: i64,
    deadline: Option<tokio::time::Instant>,
) -> Result {
    let target = object.target;
    let field = format!("metadata.name={}", target.name);
    let selectors = Selectors { label: None, field: Some(&field) };
    let scope = target.namespace.as_deref().map_or(ListScope::AllNamespaces, ListScope::Namespace);
    let mut version = object.live["metadata"]["resourceVersion"].as_str().unwrap_or_default().to_string();
    loop {
        let left =
            deadline.map_or(LONGEST_WATCH, |deadline| deadline.saturating_duration_since(tokio::time::Instant::now()));
        let timeout = (left + Duration::from_secs(1)).min(LONGEST_WATCH);
        let options = WatchOptions { selectors, resource_version: Some(&version), timeout };
        let mut events = match cluster.watch(&target.rt, scope, &options).await {
            Ok(events) => events,
            Err(err) if err.is_transport() => {
                tokio::time::sleep(Duration::from_secs(1)).await;
                continue;
            }
            Err(err) => return Err(err.into()),
        };
        while let Some(event) = events.next().await {
            let event = match event {
                Ok(event) => event,
                Err(client::Error::Gone(_)) => {
                    // The version is too old to watch from: read the object again.
                    let live = cluster.get(&target.rt, target.namespace.as_deref(), &target.name).await?;
                    if show(&live, revision)? {
                        return Ok(());
                    }
                    version = live["metadata"]["resourceVersion"].as_str().unwrap_or_default().to_string();
                    break;
                }
                Err(err) if err.is_transport() => break,
                Err(err) => return Err(err.into()),
            };
            if let Some(seen) = event.resource_version() {
                version = seen.to_string();
            }
            match event {
                WatchEvent::Added(object) | WatchEvent::Modified(object) if show(&object, revision)? => return Ok(()),
                WatchEvent::Deleted(_) => return Err(Error::msg("object has been deleted")),
                _ => {}
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{RolloutCommand, parsed, refusal};
    use super::*;

    fn checked(line: &[&str]) -> Result<Options> {
        match parsed(&[&["status"], line].concat())? {
            RolloutCommand::Status(args) => options(&args),
            _ => unreachable!(),
        }
    }

    #[test]
    fn options_are_checked_as_kubectl_checks_them() {
        let options = checked(&["deployments", "-l", "app=web", "--revision=2"]).unwrap();
        assert_eq!(options.selection.selector, Some("app=web".parse().unwrap()));
        assert!(checked(&["deployment/web", "--revision=0"]).is_ok());
        for (line, expected) in [
            (&["--revision=-1"][..], "error: required resource not specified"),
            (&["deployment/web", "--revision=-1"], "error: revision must be a positive integer: -1"),
        ] {
            let refused = refusal(checked(line));
            assert!(refused.starts_with(expected), "{line:?}: {refused}");
        }
    }
}
