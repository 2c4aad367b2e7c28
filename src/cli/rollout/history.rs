//! `kubeupd rollout history` and `rollout undo`: the revisions kept in the ReplicaSets a
//! Deployment controls, or in the ControllerRevisions of a DaemonSet or StatefulSet
//! ([`crate::change::rollback`] reads them as kubectl does), listed, shown one by one
//! (`--revision`, described as kubectl describes a pod template), or put back: kubectl's JSON
//! patch for a Deployment, the revision's own strategic merge patch for the others.

use clap::Args;
use serde_json::Value;

use super::super::args::{DryRunArg, LabelSelectorArg, OutputArgs, SelectionArgs, TargetArgs};
use super::super::visit::{self, Visited};
use super::super::{Error, GlobalArgs, Result};
use crate::apply::lost::WriteError;
use crate::apply::{self, DryRun, Landed, last_applied};
use crate::change::rollback::{self, History, Revisions};
use crate::client::{Cluster, ListScope, Selectors, WriteOptions};
use crate::merge::{KindPatcher, Patch};
use crate::output::{self, Printer, Verb};
use crate::resource::LabelSelector;

/// Options of `rollout history`.
#[derive(Debug, Args)]
pub struct HistoryArgs {
    #[command(flatten)]
    pub targets: TargetArgs,
    #[command(flatten)]
    pub selector: LabelSelectorArg,
    /// See the details, including the pod template, of this revision.
    #[arg(long, value_name = "N", default_value_t = 0, allow_negative_numbers = true, value_parser = super::super::pflag::int)]
    pub revision: i64,
    #[command(flatten)]
    pub output: OutputArgs,
}

/// Options of `rollout undo`.
#[derive(Debug, Args)]
pub struct UndoArgs {
    #[command(flatten)]
    pub targets: TargetArgs,
    #[command(flatten)]
    pub selector: LabelSelectorArg,
    /// The revision to roll back to; 0 is the one before the last.
    #[arg(long, value_name = "N", default_value_t = 0, allow_negative_numbers = true, value_parser = super::super::pflag::int)]
    pub to_revision: i64,
    #[command(flatten)]
    pub dry_run: DryRunArg,
    #[command(flatten)]
    pub output: OutputArgs,
}

/// kubectl's refusal of a command that names no object, made once the kubeconfig is read.
fn require_named(targets: &TargetArgs) -> Result {
    match targets.targets.is_empty() && !targets.files.given() {
        true => Err(Error::msg(super::NOTHING_NAMED)),
        false => Ok(()),
    }
}

/// The objects named, their types found but nothing read yet (kubectl finds the types before
/// its last checks, then reads).
struct Found {
    resolved: Vec<crate::resource::Resolved>,
    single: bool,
    selection: SelectionArgs,
}

async fn find(
    cluster: &Cluster,
    global: &GlobalArgs,
    targets: &TargetArgs,
    selector: &Option<LabelSelector>,
) -> Result<Found> {
    let selection = SelectionArgs { selector: selector.clone(), ..SelectionArgs::default() };
    let (resolved, single) = visit::resolve(cluster, global, "rollout", targets, &selection).await?;
    Ok(Found { resolved, single, selection })
}

/// Reads the objects found, in kubectl's order; one that cannot be read is its error.
async fn read(cluster: &Cluster, found: Found) -> Vec<Result<Visited>> {
    visit::read(cluster, found.resolved, &found.selection, found.single).await.objects
}

/// The ReplicaSets `deployment` controls, as kubectl lists them: by the Deployment's selector,
/// then by owner.
async fn replica_sets(cluster: &Cluster, deployment: &Visited) -> Result<Vec<Value>> {
    let selector = crate::manifest::selector_text(&deployment.live["spec"]["selector"]);
    let rt = cluster.resolve_kind("apps/v1", "ReplicaSet").await?;
    let namespace = deployment.target.namespace.as_deref().unwrap_or_default();
    let selectors = Selectors { label: Some(&selector), field: None };
    let list = cluster.list(&rt, ListScope::Namespace(namespace), selectors).await?;
    // A list's items carry no kind; printed alone, each says what it is.
    let mut items = list["items"].as_array().cloned().unwrap_or_default();
    for item in &mut items {
        item["apiVersion"] = Value::from("apps/v1");
        item["kind"] = Value::from("ReplicaSet");
    }
    Ok(rollback::controlled_replica_sets(&deployment.live, &items))
}

/// What kubectl calls the helper that a verb needs for a kind: `history viewer`, `rollbacker`.
#[derive(Clone, Copy)]
enum Helper {
    HistoryViewer,
    Rollbacker,
}

/// Where a kind keeps its revisions.
#[derive(Clone, Copy)]
enum Kept {
    /// In the ReplicaSets a Deployment controls.
    ReplicaSets,
    /// In ControllerRevisions; kubectl's name for the kind when it cannot read the object.
    ControllerRevisions { kind: &'static str },
}

/// Where `object`'s kind keeps its history, or kubectl's refusal of a kind without one.
fn check_kind(object: &Visited, helper: Helper) -> Result<Kept> {
    let rt = &object.target.rt;
    let (group, kind) = (rt.group.as_str(), rt.kind.as_str());
    let (name, retrieving) = match helper {
        Helper::HistoryViewer => ("history viewer", "history"),
        Helper::Rollbacker => ("rollbacker", "rollbacker"),
    };
    let apps = matches!(group, "apps" | "extensions");
    let known = match kind {
        "DaemonSet" | "Deployment" | "ReplicaSet" => apps,
        "StatefulSet" => group == "apps",
        "Job" | "CronJob" => group == "batch",
        "Pod" | "ReplicationController" => matches!(group, "" | "core"),
        _ => false,
    };
    if !known {
        return Err(Error::msg(format!(
            "error retrieving {retrieving} for {:?}, no visitor method exists for {{{group} {kind}}}",
            group_kind(object)
        )));
    }
    match kind {
        "Deployment" => Ok(Kept::ReplicaSets),
        "DaemonSet" => Ok(Kept::ControllerRevisions { kind: "DaemonSet" }),
        "StatefulSet" => Ok(Kept::ControllerRevisions { kind: "Statefulset" }),
        _ => Err(Error::msg(format!("no {name} has been implemented for {:?}", group_kind(object)))),
    }
}

/// The ControllerRevisions `owner` controls, as kubectl lists them: by the owner's selector,
/// then by owner.
async fn controller_revisions(cluster: &Cluster, owner: &Visited) -> Result<Vec<Value>> {
    let selector = crate::manifest::selector_text(&owner.live["spec"]["selector"]);
    let rt = cluster.resolve_kind("apps/v1", "ControllerRevision").await?;
    let namespace = owner.target.namespace.as_deref().unwrap_or_default();
    let selectors = Selectors { label: Some(&selector), field: None };
    let list = cluster.list(&rt, ListScope::Namespace(namespace), selectors).await?;
    Ok(rollback::controlled_revisions(&owner.live, list["items"].as_array().map_or(&[], Vec::as_slice)))
}

/// `owner` at a revision: the revision's strategic merge patch applied to it, as kubectl shows
/// a DaemonSet's or StatefulSet's old revisions.
async fn at_revision(cluster: &Cluster, owner: &Visited, controller_revision: &Value) -> Result<Value> {
    let rt = &owner.target.rt;
    let schema = cluster.patch_schema(&rt.api_version(), &rt.kind).await;
    let patch = Patch::Strategic(controller_revision["data"].clone());
    let mut applied = KindPatcher::for_kind(schema.as_ref()).apply(owner.live.clone(), &patch).map_err(|_| {
        let name = controller_revision["metadata"]["name"].as_str().unwrap_or_default();
        Error::msg(format!("unable to parse history {name}"))
    })?;
    applied["apiVersion"] = Value::from(rt.api_version());
    applied["kind"] = Value::from(rt.kind.clone());
    Ok(applied)
}

/// Go's `schema.GroupKind.String()`: `Kind.group`, or the kind alone in the core group.
fn group_kind(object: &Visited) -> String {
    let rt = &object.target.rt;
    if rt.group.is_empty() { rt.kind.clone() } else { format!("{}.{}", rt.kind, rt.group) }
}

/// kubectl's words for a `--revision` the history does not have.
const NO_SUCH_REVISION: &str = "unable to find the specified revision";

/// What `rollout history` shows. kubectl checks nothing before it reads the kubeconfig: that
/// objects are named and `--revision` come then, `-o` once the objects' types are found.
struct HistoryOptions {
    /// The printer, or kubectl's error for `-o`.
    printer: Result<Option<Printer>>,
}

fn history_options(args: &HistoryArgs) -> HistoryOptions {
    HistoryOptions { printer: args.output.printer(Verb::Write).map(Option::<&Printer>::cloned) }
}

/// Runs `rollout history`.
pub async fn run_history(args: HistoryArgs, global: &GlobalArgs) -> Result {
    let HistoryOptions { printer } = history_options(&args);
    let cluster = global.connect().await?;
    require_named(&args.targets)?;
    if args.revision < 0 {
        return Err(Error::msg(format!("revision must be a positive integer: {}", args.revision)));
    }
    let found = find(&cluster, global, &args.targets, &args.selector.selector).await?;
    let printer = printer?;
    let mut results = Vec::new();
    let mut errors = Vec::new();
    for object in read(&cluster, found).await {
        match history_of(&cluster, object, &args, printer.as_ref()).await {
            Ok(text) => results.push(Ok(text)),
            Err(err) => errors.push(err),
        }
    }
    results.push(if errors.is_empty() { Ok(String::new()) } else { Err(errors) });
    super::super::print_visited(results)
}

async fn history_of(
    cluster: &Cluster,
    object: Result<Visited>,
    args: &HistoryArgs,
    printer: Option<&Printer>,
) -> Result<String> {
    let object = object?;
    let shown = match check_kind(&object, Helper::HistoryViewer)? {
        Kept::ReplicaSets => replica_set_history(cluster, &object, args, printer).await?,
        Kept::ControllerRevisions { .. } => controller_revision_history(cluster, &object, args, printer).await?,
    };
    match shown {
        Shown::Objects(text) => Ok(text),
        Shown::Table(table) => Ok(format!("{} \n{table}\n", output::object_name(&object.live))),
        Shown::Template(revision, template) => Ok(format!(
            "{} with revision #{revision}\n{}\n",
            output::object_name(&object.live),
            crate::describe::pod_template(&template)
        )),
        Shown::NoHistory(revision) => {
            Ok(format!("{} with revision #{revision}\n{}\n", output::object_name(&object.live), rollback::NO_HISTORY))
        }
    }
}

/// What `rollout history` shows of one object.
enum Shown {
    /// The revisions' objects, printed with `-o`.
    Objects(String),
    /// kubectl's overview of the revisions.
    Table(String),
    /// The pod template of one revision.
    Template(i64, Value),
    /// One revision asked of a workload without any: kubectl says there is no history before
    /// it looks for the revision.
    NoHistory(i64),
}

/// A Deployment's history, from its ReplicaSets.
async fn replica_set_history(
    cluster: &Cluster,
    object: &Visited,
    args: &HistoryArgs,
    printer: Option<&Printer>,
) -> Result<Shown> {
    let history = History::new(&replica_sets(cluster, object).await?);
    if let Some(printer) = printer {
        // kubectl prints the ReplicaSets themselves (and panics on a revision it does not have:
        // here that is the error it gives without -o).
        let shown: Vec<&Value> = match args.revision {
            0 => history.objects().map(|(_, rs)| rs).collect(),
            revision => vec![history.object(revision).ok_or_else(|| Error::msg(NO_SUCH_REVISION))?],
        };
        return Ok(Shown::Objects(render_each(&args.output, printer, &shown)?));
    }
    Ok(match args.revision {
        0 => Shown::Table(history.table()),
        revision if history.objects().next().is_none() => Shown::NoHistory(revision),
        revision => Shown::Template(revision, history.template(revision).ok_or_else(|| Error::msg(NO_SUCH_REVISION))?),
    })
}

/// A DaemonSet's or StatefulSet's history, from its ControllerRevisions.
async fn controller_revision_history(
    cluster: &Cluster,
    object: &Visited,
    args: &HistoryArgs,
    printer: Option<&Printer>,
) -> Result<Shown> {
    let revisions = Revisions::new(&controller_revisions(cluster, object).await?);
    let wanted = |revision: i64| revisions.object(revision).ok_or_else(|| Error::msg(NO_SUCH_REVISION));
    if let Some(printer) = printer {
        // kubectl prints the object as it was at each revision.
        let mut shown = Vec::new();
        match args.revision {
            0 => {
                for (_, controller_revision) in revisions.objects() {
                    shown.push(at_revision(cluster, object, controller_revision).await?);
                }
            }
            revision => shown.push(at_revision(cluster, object, wanted(revision)?).await?),
        }
        return Ok(Shown::Objects(render_each(&args.output, printer, &shown.iter().collect::<Vec<_>>())?));
    }
    Ok(match args.revision {
        0 => Shown::Table(revisions.table()),
        revision if revisions.objects().next().is_none() => Shown::NoHistory(revision),
        revision => {
            let applied = at_revision(cluster, object, wanted(revision)?).await?;
            Shown::Template(revision, applied["spec"]["template"].clone())
        }
    })
}

/// Each object as `printer` prints it, YAML documents separated as kubectl's printer separates them.
fn render_each(output: &OutputArgs, printer: &Printer, objects: &[&Value]) -> Result<String> {
    let mut text = String::new();
    for (i, object) in objects.iter().enumerate() {
        if i > 0 && matches!(printer, Printer::Yaml) {
            text.push_str("---\n");
        }
        text.push_str(&output.render(printer, object)?);
    }
    Ok(text)
}

/// What `rollout undo` prints. kubectl checks nothing before it reads the kubeconfig: that
/// objects are named comes then, `--to-revision` for each object once it is read (kubectl's
/// rollbacker checks it), and `-o` after each rollback.
struct UndoOptions {
    /// The printer, or kubectl's error for `-o`, given for each object rolled back.
    printer: std::result::Result<Option<Printer>, String>,
}

fn undo_options(args: &UndoArgs) -> UndoOptions {
    let printer = args.output.printer(Verb::Write).map(Option::<&Printer>::cloned).map_err(|err| err.message());
    UndoOptions { printer }
}

/// Runs `rollout undo`: as kubectl, an object that fails does not stop the others; the
/// failures are told at the end.
pub async fn run_undo(args: UndoArgs, global: &GlobalArgs) -> Result {
    let UndoOptions { printer } = undo_options(&args);
    let cluster = global.connect().await?;
    require_named(&args.targets)?;
    let found = find(&cluster, global, &args.targets, &args.selector.selector).await?;
    let mut results = Vec::new();
    let mut errors = Vec::new();
    for object in read(&cluster, found).await {
        match undo_one(&cluster, object, &args, &printer).await {
            Ok(text) => results.push(Ok(text)),
            Err(err) => errors.push(err),
        }
    }
    results.push(if errors.is_empty() { Ok(String::new()) } else { Err(errors) });
    super::super::print_visited(results)
}

/// Rolls one object back and says so as `printer` asks.
async fn undo_one(
    cluster: &Cluster,
    object: Result<Visited>,
    args: &UndoArgs,
    printer: &std::result::Result<Option<Printer>, String>,
) -> Result<String> {
    let object = object?;
    // As kubectl 1.36 and later: the rollback leaves `apply`'s annotation as it was.
    if last_applied::text(&object.live).is_some() {
        eprintln!(
            "Warning: resource {}/{} was previously managed with 'kubectl apply'. Rolling back will not update \
             the {} annotation, which may cause unexpected behavior on future 'kubectl apply' operations. \
             Consider using 'kubectl apply' with your previous configuration file instead.",
            object.target.rt.resource,
            object.target.name,
            last_applied::ANNOTATION
        );
    }
    let result = undo(cluster, &object, args).await?;
    match printer {
        Err(message) => Err(Error::msg(message)),
        // kubectl prints the object as it read it, before the rollback.
        Ok(Some(printer)) => args.output.render(printer, &object.live),
        Ok(None) => Ok(format!("{} {result}{}\n", output::object_name(&object.live), args.dry_run.suffix())),
    }
}

/// Rolls `object` back; kubectl's word for what happened.
async fn undo(cluster: &Cluster, object: &Visited, args: &UndoArgs) -> Result<String> {
    let kept = check_kind(object, Helper::Rollbacker)?;
    if args.to_revision < 0 {
        return Err(Error::msg(rollback::Error::NoSuchRevision(args.to_revision).to_string()));
    }
    let target = &object.target;
    // kubectl reads the object again before it reads its history.
    let kind = match kept {
        Kept::ReplicaSets => "Deployment",
        Kept::ControllerRevisions { kind } => kind,
    };
    let live = cluster
        .get(&target.rt, target.namespace.as_deref(), &target.name)
        .await
        .map_err(|err| Error::msg(format!("failed to retrieve {kind} {}: {}", target.name, visit::reason(&err))))?;
    let object = Visited { target: target.clone(), live };
    match kept {
        Kept::ReplicaSets => undo_deployment(cluster, &object, args).await,
        Kept::ControllerRevisions { .. } => undo_from_controller_revision(cluster, &object, args).await,
    }
}

/// Puts an old ReplicaSet's pod template back into `deployment`.
async fn undo_deployment(cluster: &Cluster, deployment: &Visited, args: &UndoArgs) -> Result<String> {
    let sets = replica_sets(cluster, deployment).await?;
    let source = rollback::rollback_source(&deployment.live, &sets, args.to_revision)
        .map_err(|err| Error::msg(err.to_string()))?;
    if args.dry_run.mode() == DryRun::Client {
        return Ok(crate::describe::pod_template(&source["spec"]["template"]));
    }
    let Some(patch) = rollback::rollback_patch(&deployment.live, source).map_err(|err| Error::msg(err.to_string()))?
    else {
        return Ok(skipped(args.to_revision));
    };
    let patch = Patch::Json(serde_json::from_value(patch).map_err(|err| Error::Other(err.into()))?);
    let restored = |live: &Value| rollback::rollback_patch(live, source).is_ok_and(|patch| patch.is_none());
    restore(cluster, deployment, args, &patch, restored).await
}

/// Sends a DaemonSet's or StatefulSet's old revision back as the strategic merge patch it is.
async fn undo_from_controller_revision(cluster: &Cluster, object: &Visited, args: &UndoArgs) -> Result<String> {
    let listed = controller_revisions(cluster, object).await?;
    let source = rollback::revision_to_restore(args.to_revision, &listed).map_err(|err| Error::msg(err.to_string()))?;
    if args.dry_run.mode() == DryRun::Client {
        let applied = at_revision(cluster, object, source).await?;
        return Ok(format!("will roll back to {}", crate::describe::pod_template(&applied["spec"]["template"])));
    }
    let data = &source["data"];
    if &rollback::template_patch(&object.live) == data {
        return Ok(skipped(args.to_revision));
    }
    let restored = |live: &Value| &rollback::template_patch(live) == data;
    restore(cluster, object, args, &Patch::Strategic(data.clone()), restored).await
}

/// kubectl's line when the object already has the revision's template.
fn skipped(revision: i64) -> String {
    format!("skipped rollback (current template already matches revision {revision})")
}

/// Sends `patch`; a request whose answer is lost is read back, and `restored` says whether it
/// took effect.
async fn restore(
    cluster: &Cluster,
    object: &Visited,
    args: &UndoArgs,
    patch: &Patch,
    restored: impl Fn(&Value) -> bool,
) -> Result<String> {
    let target = &object.target;
    let write = WriteOptions { dry_run: args.dry_run.mode() == DryRun::Server, ..WriteOptions::default() };
    match apply::send_patch(cluster, target, patch, &write, Landed::When(&restored)).await {
        Ok(_) => Ok("rolled back".to_string()),
        Err(WriteError::Failed(cause)) => {
            let reason = Error::from(cause).message();
            Err(Error::msg(format!("failed restoring revision {}: {reason}", args.to_revision)))
        }
        Err(lost) => Err(visit::write_error(target, None, lost)),
    }
}

#[cfg(test)]
mod tests {
    use super::super::{RolloutCommand, parsed, refusal};
    use super::*;

    fn history(line: &[&str]) -> HistoryOptions {
        match parsed(&[&["history"], line].concat()).unwrap() {
            RolloutCommand::History(args) => history_options(&args),
            _ => unreachable!(),
        }
    }

    fn undo(line: &[&str]) -> UndoOptions {
        match parsed(&[&["undo"], line].concat()).unwrap() {
            RolloutCommand::Undo(args) => undo_options(&args),
            _ => unreachable!(),
        }
    }

    #[test]
    fn history_options_are_checked_as_kubectl_checks_them() {
        assert!(history(&["deployment/web", "--revision=3"]).printer.unwrap().is_none());
        assert!(history(&["deployment/web", "-o", "yaml"]).printer.unwrap().is_some());
        // Checked once the types are found.
        let refused = refusal(history(&["deployment/web", "-o", "wide"]).printer);
        assert!(refused.starts_with("error: unable to match a printer"), "{refused}");
    }

    #[test]
    fn undo_options_are_checked_as_kubectl_checks_them() {
        assert!(undo(&["deployment/web", "-o", "json"]).printer.unwrap().is_some());
        // A negative revision is the rollbacker's to refuse, once the object is read.
        assert!(undo(&["deployment/web", "--to-revision=-1"]).printer.unwrap().is_none());
        // Given for each object rolled back.
        let refused = undo(&["deployment/web", "-o", "wide"]).printer.unwrap_err();
        assert!(refused.starts_with("unable to match a printer"), "{refused}");
    }

    #[test]
    fn objects_are_named_before_the_revision_is_checked() {
        let args = |line: &[&str]| match parsed(&[&["history"], line].concat()).unwrap() {
            RolloutCommand::History(args) => args,
            _ => unreachable!(),
        };
        assert_eq!(refusal(require_named(&args(&["--revision=-1"]).targets)), "error: required resource not specified");
        assert!(require_named(&args(&["deployment/web", "--revision=-1"]).targets).is_ok());
    }
}
