//! `kubeupd rollout restart|pause|resume`: start a new rollout of Deployments, DaemonSets and
//! StatefulSets, or pause and resume one of a Deployment, each sent as a strategic merge patch
//! from the object as read to the object changed, with kubectl's manager `kubectl-rollout`.
//! `rollout status` ([`status`]) watches a rollout until it is done; `rollout history` and
//! `rollout undo` ([`history`]) read and restore the revisions of Deployments, DaemonSets and StatefulSets.

mod history;
mod status;

use std::time::SystemTime;

use anyhow::anyhow;
use clap::{Args, Subcommand};
use futures::future::join_all;
use serde_json::Value;

use super::args::{FieldManagerArg, LabelSelectorArg, OutputArgs, SelectionArgs, TargetArgs};
use super::visit::{self, Visited};
use super::{Error, GlobalArgs, Result};
use crate::apply::{self, Landed};
use crate::change::rollout;
use crate::client::{Cluster, WriteOptions};
use crate::merge::KindPatcher;
use crate::output::{self, Printer, Verb};

/// Options of `kubeupd rollout`.
#[derive(Debug, Args)]
pub struct RolloutArgs {
    #[command(subcommand)]
    pub command: RolloutCommand,
}

/// The rollout actions.
#[derive(Debug, Subcommand)]
pub enum RolloutCommand {
    /// Restart the pods of Deployments, DaemonSets and StatefulSets (a new rollout).
    #[command(
        after_help = "Examples:\n  kubeupd rollout restart deployment/web\n  kubeupd rollout restart daemonsets -l app=agent"
    )]
    Restart(ActionArgs),
    /// Pause a Deployment's rollout: changes to it start no new rollout until it is resumed.
    #[command(after_help = "Examples:\n  kubeupd rollout pause deployment/web")]
    Pause(ActionArgs),
    /// Resume a paused Deployment's rollout.
    #[command(after_help = "Examples:\n  kubeupd rollout resume deployment/web")]
    Resume(ActionArgs),
    /// Show the status of the rollout, watching it until it is done (--watch=false: once).
    #[command(after_help = "Examples:\n  kubeupd rollout status deployment/web --timeout=5m")]
    Status(status::StatusArgs),
    /// Show the revisions of Deployments, or one revision's pod template (--revision).
    #[command(
        after_help = "Examples:\n  kubeupd rollout history deployment/web\n  kubeupd rollout history deployment/web --revision=3"
    )]
    History(history::HistoryArgs),
    /// Roll Deployments back to an earlier revision (--to-revision; by default the one before the last).
    #[command(
        after_help = "Examples:\n  kubeupd rollout undo deployment/web\n  kubeupd rollout undo deployment/web --to-revision=3"
    )]
    Undo(history::UndoArgs),
}

/// Options of `rollout restart`, `pause` and `resume`.
#[derive(Debug, Args)]
pub struct ActionArgs {
    #[command(flatten)]
    pub targets: TargetArgs,
    #[command(flatten)]
    pub selector: LabelSelectorArg,
    #[command(flatten)]
    pub field_manager: FieldManagerArg,
    #[command(flatten)]
    pub output: OutputArgs,
}

/// One of the actions, with what it needs.
#[derive(Debug, Clone, Copy)]
enum Action {
    Restart,
    Pause,
    Resume,
}

impl Action {
    /// kubectl's past tense for the line printed per object.
    fn done(self) -> &'static str {
        match self {
            Action::Restart => "restarted",
            Action::Pause => "paused",
            Action::Resume => "resumed",
        }
    }
}

/// Runs `kubeupd rollout`.
pub async fn run(args: RolloutArgs, global: &GlobalArgs) -> Result {
    match args.command {
        RolloutCommand::Restart(args) => run_action(Action::Restart, args, global).await,
        RolloutCommand::Pause(args) => run_action(Action::Pause, args, global).await,
        RolloutCommand::Resume(args) => run_action(Action::Resume, args, global).await,
        RolloutCommand::Status(args) => status::run(args, global).await,
        RolloutCommand::History(args) => history::run_history(args, global).await,
        RolloutCommand::Undo(args) => history::run_undo(args, global).await,
    }
}

/// kubectl's refusal of a rollout command that names no object.
const NOTHING_NAMED: &str = "required resource not specified";

/// What `rollout restart`, `pause` or `resume` does, checked before anything is read.
struct ActionOptions {
    /// The objects `-l` selects.
    selection: SelectionArgs,
    /// The printer, or kubectl's error for `-o`: kubectl asks for its printer after each write,
    /// so the error is given for each object changed.
    printer: std::result::Result<Option<Printer>, String>,
}

/// kubectl's check before it reads anything: an object named.
fn action_options(args: &ActionArgs) -> Result<ActionOptions> {
    if args.targets.targets.is_empty() && !args.targets.files.given() {
        return Err(Error::msg(NOTHING_NAMED));
    }
    let printer = args.output.printer(Verb::Write).map(Option::<&Printer>::cloned).map_err(|err| err.message());
    let selection = SelectionArgs { selector: args.selector.selector.clone(), ..SelectionArgs::default() };
    Ok(ActionOptions { selection, printer })
}

/// Reads the objects, changes each, and sends the changes; as in kubectl, objects that cannot be
/// read are reported first, then the objects that cannot take the change, then failed writes.
async fn run_action(action: Action, args: ActionArgs, global: &GlobalArgs) -> Result {
    let ActionOptions { selection, printer } = action_options(&args)?;
    let cluster = global.connect().await?;
    let (resolved, single) = visit::resolve(&cluster, global, "rollout", &args.targets, &selection).await?;
    let (read, unreadable): (Vec<_>, Vec<_>) =
        visit::read(&cluster, resolved, &selection, single).await.objects.into_iter().partition(Result::is_ok);
    if read.is_empty() && unreadable.is_empty() {
        nothing_found(&cluster, global);
        return Ok(());
    }
    let mut errors: Vec<Error> = unreadable.into_iter().filter_map(Result::err).collect();
    let now = crate::gocompat::time::timestamp(SystemTime::now());
    let mut changed = Vec::new();
    for object in read.into_iter().flatten() {
        let mut after = object.live.clone();
        let outcome = match action {
            Action::Restart => rollout::restart(&mut after, &now),
            Action::Pause => rollout::set_paused(&mut after, true),
            Action::Resume => rollout::set_paused(&mut after, false),
        };
        if let Err(err) = outcome {
            let rt = &object.target.rt;
            errors.push(Error::msg(format!("error: {} {:?} {err}", rt.group_resource(), object.target.name)));
        } else if after == object.live {
            errors.push(Error::msg(format!(
                "failed to create patch for {}: if restart has already been triggered within the past second, \
                 please wait before attempting to trigger another",
                object.target.name
            )));
        } else {
            changed.push((object, after));
        }
    }
    let writes = join_all(changed.into_iter().map(|(object, after)| send(&cluster, &args, object, after))).await;
    let mut results = Vec::new();
    for write in writes {
        match write {
            Ok(answer) => match &printer {
                Err(message) => errors.push(Error::msg(message)),
                Ok(Some(printer)) => match args.output.render(printer, &answer) {
                    Ok(text) => results.push(Ok(text)),
                    Err(err) => errors.push(err),
                },
                Ok(None) => results.push(Ok(format!("{} {}\n", output::object_name(&answer), action.done()))),
            },
            Err(err) => errors.push(err),
        }
    }
    results.push(if errors.is_empty() { Ok(String::new()) } else { Err(errors) });
    super::print_visited(results)
}

/// kubectl's words when a selector matches nothing (the namespace of `-n`, or the context's),
/// which is no failure.
fn nothing_found(cluster: &Cluster, global: &GlobalArgs) {
    let namespace = global.namespace.as_deref().unwrap_or(cluster.default_namespace());
    eprintln!("No resources found in {namespace} namespace.");
}

async fn send(cluster: &Cluster, args: &ActionArgs, object: Visited, after: Value) -> Result<Value> {
    let target = &object.target;
    let schema = cluster.patch_schema(&target.rt.api_version(), &target.rt.kind).await;
    let patch = KindPatcher::for_kind(schema.as_ref())
        .two_way(&object.live, &after)
        .map_err(|err| Error::Other(anyhow!(err)))?;
    let write =
        WriteOptions { field_manager: Some(args.field_manager.or("kubectl-rollout")), ..WriteOptions::default() };
    let landed = Landed::AsPatched(schema.as_ref().map(|schema| schema.node()));
    apply::send_patch(cluster, target, &patch, &write, landed)
        .await
        .map_err(|err| visit::write_error(target, Some("failed to patch"), err))
}

/// The `rollout` command of a line (the words after `kubeupd rollout`), for the tests of the
/// options steps.
#[cfg(test)]
fn parsed(line: &[&str]) -> Result<RolloutCommand> {
    let cli = crate::cli::parse(["kubeupd", "rollout"].iter().chain(line)).map_err(Error::msg)?;
    match cli.command {
        crate::cli::Command::Rollout(args) => Ok(args.command),
        _ => unreachable!("a `rollout` line"),
    }
}

/// kubectl's line for what an options step refused; a panic when it accepted the line.
#[cfg(test)]
fn refusal<T>(checked: Result<T>) -> String {
    match checked {
        Ok(_) => panic!("accepted"),
        Err(err) => err.line(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn checked(line: &[&str]) -> Result<ActionOptions> {
        match parsed(line)? {
            RolloutCommand::Restart(args) | RolloutCommand::Pause(args) | RolloutCommand::Resume(args) => {
                action_options(&args)
            }
            _ => unreachable!(),
        }
    }

    #[test]
    fn action_options_are_checked_as_kubectl_checks_them() {
        let options = checked(&["restart", "deployments", "-l", "app=web", "-o", "name"]).unwrap();
        assert_eq!(options.selection.selector, Some("app=web".parse().unwrap()));
        assert!(options.printer.unwrap().is_some());
        assert!(checked(&["pause", "-f", "web.yaml"]).unwrap().printer.unwrap().is_none());
        for line in [&["restart"][..], &["resume", "-o", "wide"]] {
            assert_eq!(refusal(checked(line)), "error: required resource not specified", "{line:?}");
        }
        // Given for each object changed.
        let refused = checked(&["pause", "deployment/web", "-o", "wide"]).unwrap().printer.unwrap_err();
        assert!(refused.starts_with("unable to match a printer"), "{refused}");
    }
}
