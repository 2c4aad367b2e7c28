//! `kubeupd apply`: client-side three-way apply (the default) or server-side apply of every object
//! in the files. Flags are read and checked, every document is resolved and checked before the
//! first write, the engine applies them, and the report prints each object's result in input order.

pub(super) mod input;
mod last_applied;
mod pruning;
mod report;

use std::collections::{BTreeSet, HashSet};
use std::time::Duration;

use clap::Args;

use self::input::{Input, InputArgs, Preview};
use self::last_applied::LastAppliedCommand;
use self::report::{Report, ReportSettings};
use super::args::{DeletionArgs, DryRunArg, ExtraArgs, OutputArgs, RecordArg, SubresourceArg};
use super::wait::parse_timeout;
use super::wait::report::not_ready_line;
use super::{Error, GlobalArgs, Result};
use crate::output::Verb;

use tokio::signal::unix::{SignalKind, signal};

use crate::apply::applyset::Members;
use crate::apply::preview::Shown;
use crate::apply::saved_plan::SavedPlan;
use crate::apply::{self, ApplyOptions, DryRun, Stop, prune, rollback};
use crate::client::Cluster;
use crate::fleet;
use crate::resource::ObjectRef;
use crate::resource::Resolver;
use crate::wait::{self, Condition, Target};

/// Options of `kubeupd apply`, or one of its subcommands.
#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct ApplyArgs {
    #[command(subcommand)]
    pub command: Option<LastAppliedCommand>,
    #[command(flatten)]
    pub flags: ApplyFlags,
}

/// Options of applying files.
#[derive(Debug, Clone, Args)]
#[command(mut_arg("subresource", |arg| arg.help(
    "With --server-side: apply to this subresource of each object (e.g. status, scale)."
)))]
pub struct ApplyFlags {
    #[command(flatten)]
    pub input: InputArgs,
    /// Overwrite fields that others changed since the last apply; with false, such changes are conflicts.
    #[arg(long, value_name = "BOOL", default_value_t = true)]
    pub overwrite: bool,
    /// When an object cannot be patched, delete it and create it again.
    #[arg(long)]
    pub force: bool,
    #[command(flatten)]
    pub deletion: DeletionArgs,
    /// Take strategic-merge metadata from the server's OpenAPI documents; false uses the metadata
    /// built into kubeupd.
    #[arg(long, default_value_t = true)]
    pub openapi_patch: bool,
    #[command(flatten)]
    pub subresource: SubresourceArg,
    #[command(flatten)]
    pub dry_run: DryRunArg,
    #[command(flatten)]
    pub output: OutputArgs,
    /// Print the patch sent (or that would be sent) for each object.
    #[arg(long)]
    pub show_patch: bool,
    /// After applying, wait until every object applied is ready (by kstatus's rules) and every
    /// object pruned is gone; exit 1 if one fails or the time runs out (kubeupd's own: kubectl
    /// has no readiness wait).
    #[arg(long)]
    pub wait_ready: bool,
    /// If any object fails to apply or to become ready (this implies --wait-ready), put back
    /// every object this run changed as it was before, delete what it created, and prune
    /// nothing (Helm's --atomic).
    #[arg(long)]
    pub atomic: bool,
    /// Taken as kubectl 1.37 takes it, and as there it changes nothing: its apply defines delete's
    /// --wait but waits for no pruned object, and --force always waits for its deletion (up to
    /// --timeout). To wait until what was applied is ready: --wait-ready.
    #[arg(long)]
    pub wait: bool,
    /// How long --wait-ready waits (default 5m; a negative duration waits a week), and how long
    /// --force waits for an object to be deleted (default 1m).
    #[arg(long, value_name = "DURATION", value_parser = parse_timeout, allow_hyphen_values = true)]
    pub timeout: Option<Duration>,
    /// Apply only if this plan, written by `diff --plan-out`, still holds: the same objects and
    /// actions, no object changed on the server since, the same configurations in the files.
    /// Otherwise nothing is applied and each difference is named.
    #[arg(long, value_name = "PLAN")]
    pub plan: Option<std::path::PathBuf>,
    /// With several contexts (`--context a,b,c` or a pattern): apply to the first N contexts and
    /// wait until what was applied there is ready before touching the others; a canary that
    /// fails or is not ready in time stops the run.
    #[arg(long, value_name = "N")]
    pub canary: Option<usize>,
    #[command(flatten)]
    pub record: RecordArg,
    #[command(flatten)]
    pub extra: ExtraArgs,
}

/// How long `apply --wait-ready` waits unless `--timeout` says.
const WAIT_TIMEOUT: Duration = Duration::from_secs(300);

/// Applies the files, or runs `view-last-applied` / `set-last-applied`.
pub async fn run(args: ApplyArgs, global: &GlobalArgs) -> Result {
    if let Some(command) = args.command {
        return last_applied::run(command, global).await;
    }
    let flags = args.flags;
    if flags.canary.is_some() {
        return Err(Error::msg(
            "--canary needs several contexts: --context a,b,c or a pattern such as --context 'prod-*'",
        ));
    }
    let mut warnings = Vec::new();
    let checked = options(&flags, &mut warnings);
    // kubectl prints the --cascade warning as it reads the flag, even when a later check fails.
    for warning in warnings {
        eprintln!("{warning}");
    }
    let mut options = checked?;
    // --atomic puts objects back as they were: each outcome keeps the object before.
    options.keep_live = flags.atomic;
    options.change_cause = flags.record.cause(global).map(String::from);
    let pruning = flags.input.prune.pruning()?;
    if let Some(path) = &flags.plan {
        check_plan(path, &flags, global).await?;
    }
    let cluster = global.connect().await?;
    let resolver = Resolver::new(&cluster, global.namespace.as_deref(), false);
    let Input { batch, applyset, members } =
        input::open(&cluster, &resolver, &flags.input, &pruning, &options, "applied", global).await?;
    if let (Some(set), Some(members)) = (&applyset, &members) {
        // Widened before any member is written: a run cut short leaves no member the parent does
        // not lead to.
        set.record(&cluster, &set.recorded.union(members), options.dry_run).await.map_err(apply::Error::from)?;
    }
    let settings = ReportSettings {
        // Checked with the other flags before the run.
        printer: flags.output.printer(Verb::Write).ok().flatten().cloned(),
        suffix: flags.dry_run.suffix(),
        show_patch: flags.show_patch,
    };
    let mut report = Report::new(batch.entries(), settings);
    // A dry run writes nothing to wait for.
    let wait = (flags.wait_ready || flags.atomic) && options.dry_run == DryRun::None;
    let mut undos = Vec::new();
    let mut written = Vec::new();
    let mut applied = Applied::default();
    let stop = Stop::default();
    let timeout = flags.timeout.unwrap_or(WAIT_TIMEOUT);
    let mut gate = ReadyGate { cluster: &cluster, deadline: tokio::time::Instant::now() + timeout, timeout };
    {
        let run = batch.run(&cluster, &resolver, &options, &stop, &mut gate, |index, result| {
            if let Ok(outcome) = &result {
                applied.add(outcome);
                if flags.atomic {
                    undos.extend(rollback::Undo::of(outcome));
                }
                if wait {
                    written.push((index, Target::written(outcome.target.clone(), outcome.object.clone())));
                }
            }
            report.record(index, result)
        });
        tokio::pin!(run);
        tokio::select! {
            () = &mut run => {}
            () = interrupted() => {
                // No object is started any more; the writes in flight may finish, within bounds.
                stop.interrupt();
                tokio::select! {
                    () = &mut run => {}
                    () = tokio::time::sleep(INTERRUPT_GRACE) => {}
                    () = interrupted() => {}
                }
            }
        }
    }
    let lines_to_stderr = flags.output.output.is_some();
    let all_applied = report.all_applied() && stop.reason().is_none();
    // Readiness first, pruning last: nothing is pruned before everything applied is ready (an
    // object that is not keeps what it would replace).
    let ready = if wait && all_applied {
        report.end_progress();
        let written = std::mem::take(&mut written);
        tokio::select! {
            waited = super::wait::until_applied_are_ready(&cluster, written, Vec::new(), timeout, lines_to_stderr) => waited,
            () = interrupted() => {
                // Every object was applied; only the waiting stops, and nothing is pruned.
                eprintln!("interrupted: every object was applied; stopped waiting for them to be ready");
                return Err(Error::Reported(130));
            }
        }
    } else {
        Ok(())
    };
    let scope = pruning.scope(applyset.as_ref(), members.as_ref(), &applied.namespaces);
    let allowed = &flags.input.prune.allow.kinds;
    let pruned = match scope {
        Some(scope) if all_applied && ready.is_ok() => {
            prune_after(&cluster, scope, &applied, allowed, options.dry_run, &mut report).await
        }
        Some(_) if !all_applied => {
            report.not_pruned("not every object was applied");
            Vec::new()
        }
        Some(_) => {
            report.not_pruned("not every object applied became ready");
            Vec::new()
        }
        None => Vec::new(),
    };
    if let Some(path) = std::env::var_os(fleet::totals::TOTALS_FILE_ENV) {
        // Run for one context of many: the parent's table shows what this one did.
        if let Err(err) = report.totals().write(std::path::Path::new(&path)) {
            tracing::debug!("cannot write the totals to {}: {err}", path.to_string_lossy());
        }
    }
    let status = report.finish(stop.reason());
    if flags.atomic && (status != 0 || ready.is_err()) && stop.reason() != Some(apply::StopReason::Interrupted) {
        roll_back(&cluster, &undos).await;
        return Err(Error::Reported(1));
    }
    if status != 0 {
        return Err(Error::Reported(status));
    }
    ready?;
    if wait && !pruned.is_empty() {
        // What is left of the run's --timeout.
        let left = gate.deadline.saturating_duration_since(tokio::time::Instant::now());
        tokio::select! {
            waited = super::wait::until_applied_are_ready(&cluster, Vec::new(), pruned, left, lines_to_stderr) => waited?,
            () = interrupted() => {
                eprintln!("interrupted: every object was applied and pruned; stopped waiting for the pruned ones to be gone");
                return Err(Error::Reported(130));
            }
        }
    }
    Ok(())
}

/// `--atomic`: puts back what the run changed, the last change first, and says so on stderr,
/// an object at a time; an object that cannot be put back is named with why.
async fn roll_back(cluster: &Cluster, undos: &[rollback::Undo]) {
    if undos.is_empty() {
        eprintln!("rolling back (--atomic): this run changed no object");
        return;
    }
    eprintln!("rolling back (--atomic): {} objects this run changed", undos.len());
    for undo in undos.iter().rev() {
        let name = undo.target.display_name();
        match rollback::undo(cluster, undo).await {
            Ok(undone) => eprintln!("{name} {}", undone.word()),
            Err(err) => {
                let line = err.line();
                eprintln!("error: rolling back {name}: {}", line.strip_prefix("error: ").unwrap_or(&line));
            }
        }
    }
}

/// The gates between the phases of an apply (sync waves, kapp's change rules) and before what
/// waits for the input's own APIServices and webhooks: `wait --for=ready`'s engine, all of them
/// within the run's one `--timeout`.
struct ReadyGate<'c> {
    cluster: &'c Cluster,
    deadline: tokio::time::Instant,
    timeout: Duration,
}

impl apply::Gate for ReadyGate<'_> {
    async fn ready(&mut self, objects: Vec<(ObjectRef, serde_json::Value)>) -> std::result::Result<(), String> {
        let started = tokio::time::Instant::now();
        let left = self.deadline.saturating_duration_since(started);
        if left.is_zero() {
            return Err(format!("the time ran out ({})", super::wait::report::seconds(self.timeout)));
        }
        let names: Vec<String> = objects.iter().map(|(object, _)| object.display_name()).collect();
        let targets = objects.into_iter().map(|(object, written)| Target::written(object, written)).collect();
        let outcomes = wait::wait(self.cluster, targets, &Condition::Ready, left, |_, _| {}).await;
        let elapsed = started.elapsed();
        let reasons: Vec<String> = (outcomes.iter().zip(&names))
            .filter_map(|(outcome, name)| not_ready_line(name, outcome, "ready", left, elapsed))
            .map(|line| line.trim_start_matches("error: ").to_string())
            .collect();
        if reasons.is_empty() { Ok(()) } else { Err(reasons.join("; ")) }
    }
}

/// `apply --plan`: the plan is computed again from the files and the server, as `diff
/// --plan-out` computed it, and must be the same; otherwise each difference is named and nothing
/// is applied.
async fn check_plan(path: &std::path::Path, flags: &ApplyFlags, global: &GlobalArgs) -> Result {
    let text = std::fs::read_to_string(path)
        .map_err(|err| Error::msg(format!("cannot read the plan {}: {err}", path.display())))?;
    if fleet::FleetPlan::is_fleet_plan(&text) {
        return Err(Error::msg(format!(
            "the plan in {} covers several contexts: apply it with the same --context list or pattern",
            path.display()
        )));
    }
    let planned = SavedPlan::read(&text).map_err(|err| Error::msg(format!("{}: {err}", path.display())))?;
    let differences = plan_differences(&planned, flags, global).await?;
    if differences.is_empty() {
        return Ok(());
    }
    for difference in &differences {
        eprintln!("error: {difference}");
    }
    eprintln!("error: the plan in {} no longer holds: nothing was applied", path.display());
    Err(Error::Reported(1))
}

/// What differs between `planned` and the plan computed now from the files and the cluster
/// `global` selects; empty when the plan holds.
pub(super) async fn plan_differences(
    planned: &SavedPlan,
    flags: &ApplyFlags,
    global: &GlobalArgs,
) -> Result<Vec<String>> {
    // Computed as `diff` computes it, which has no --force.
    let mode = flags.input.mode(flags.overwrite, false);
    let preview = Preview::new(&flags.input, mode, Shown { managed_fields: false, secrets: false })?;
    let now = preview.saved_plan(&preview.run(global).await?);
    Ok(planned.differences(&now))
}

/// Prunes what `scope` holds beyond the objects `applied`, reporting each object; then narrows
/// an ApplySet's parent to this apply's members, once everything it no longer lists is gone.
/// Returns the objects pruned, to wait until they are gone.
async fn prune_after(
    cluster: &Cluster,
    scope: prune::Scope<'_>,
    applied: &Applied,
    allowed: &[prune::GuardedKind],
    dry_run: DryRun,
    report: &mut Report,
) -> Vec<Target> {
    let mut pruned = Vec::new();
    let found = prune::run(cluster, scope, &applied.uids, allowed, dry_run, |object, result| {
        if result.is_ok() {
            pruned.push(Target::deleted(object.target.clone(), object.uid.clone()));
        }
        report.pruned(&object.target, result);
    })
    .await;
    if let Ok(found) = &found {
        found.kept.iter().for_each(|kept| report.kept(kept));
    }
    match found {
        Err(err) => report.prune_failed(&err.into()),
        Ok(found) if found.prunable.len() == pruned.len() => {
            // The objects kept are still members: the parent goes on leading to them.
            if let prune::Scope::ApplySet { set, members } = scope
                && let Err(err) = set.record(cluster, &members.union(&Members::of_kept(&found.kept)), dry_run).await
            {
                report.prune_failed(&err.into());
            }
        }
        Ok(_) => {}
    }
    pruned
}

/// What the objects applied in this run are, for pruning what they are not: their uids, and for
/// kubectl's older prune, their namespaces.
#[derive(Default)]
struct Applied {
    uids: HashSet<String>,
    namespaces: BTreeSet<String>,
}

impl Applied {
    fn add(&mut self, outcome: &apply::Outcome) {
        self.uids.extend(outcome.object["metadata"]["uid"].as_str().map(String::from));
        self.namespaces.extend(outcome.target.namespace.clone());
    }
}

/// How long the writes in flight may take to finish after an interruption (a second one ends the
/// wait at once).
const INTERRUPT_GRACE: Duration = Duration::from_secs(10);

/// Resolves when the process receives SIGINT (Ctrl-C) or SIGTERM.
async fn interrupted() {
    let terminate = async {
        match signal(SignalKind::terminate()) {
            Ok(mut terminate) => {
                terminate.recv().await;
            }
            Err(_) => std::future::pending().await,
        }
    };
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        () = terminate => {}
    }
}

/// Checks the flags and turns them into the engine's options; a warning about them is added to
/// `warnings`.
fn options(flags: &ApplyFlags, warnings: &mut Vec<String>) -> Result<ApplyOptions> {
    flags.extra.refuse("apply")?;
    // kubectl's order: the deletion flags (their warning), the files, its Validate, and the printer
    // (which kubectl makes only to print, and kubeupd before any write).
    let (delete_options, warning) = flags.deletion.options()?;
    warnings.extend(warning);
    let input = &flags.input;
    input.files.require()?;
    if input.force_conflicts && !input.server_side {
        return Err(Error::msg("--force-conflicts only works with --server-side"));
    }
    if input.server_side && flags.dry_run.mode() == DryRun::Client {
        return Err(Error::msg(
            "--dry-run=client doesn't work with --server-side (did you mean --dry-run=server instead?)",
        ));
    }
    if input.server_side && flags.force {
        return Err(Error::msg("--force cannot be used with --server-side"));
    }
    if flags.force && flags.dry_run.mode() == DryRun::Server {
        return Err(Error::msg("--dry-run=server cannot be used with --force"));
    }
    if flags.subresource.name.is_some() && !input.server_side {
        return Err(Error::msg("--subresource can only be specified for --server-side"));
    }
    flags.output.printer(Verb::Write)?;
    Ok(ApplyOptions {
        deletion: apply::Deletion { options: delete_options, timeout: flags.timeout.filter(|t| !t.is_zero()) },
        subresource: flags.subresource.name.clone(),
        openapi_patch: flags.openapi_patch,
        ..input.apply_options(input.mode(flags.overwrite, flags.force), flags.dry_run.mode())?
    })
}
