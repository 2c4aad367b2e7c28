//! `kubeupd apply`: client-side three-way apply (the default) or server-side apply of every object
//! in the files. Flags are read and checked, every document is resolved and checked before the
//! first write, the engine applies them, and the report prints each object's result in input order.

use std::collections::{BTreeSet, HashSet};
use std::time::Duration;

use clap::Args;

use super::apply_last_applied::LastAppliedCommand;
use super::apply_report::Report;
use super::diff::{Comparing, Shown};
use super::flags::{DeletionArgs, DryRunArg, FieldManagerArg, FileArgs, OutputArgs, PruneArgs, ValidateArg};
use super::ignore::IgnoreArgs;
use super::prune::Pruning;
use super::validation;
use super::wait::parse_timeout;
use super::{Error, GlobalArgs, Result};
use crate::output::Verb;

use tokio::signal::unix::{SignalKind, signal};

use crate::apply::applyset::ApplySet;
use crate::apply::saved_plan::SavedPlan;
use crate::apply::{self, ApplyOptions, DryRun, Mode, Plan, Stop, prune};
use crate::client::Cluster;
use crate::resource::{Entry, LabelSelector, Resolver, Source};
use crate::wait::Target;

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
#[derive(Debug, Args)]
pub struct ApplyFlags {
    #[command(flatten)]
    pub files: FileArgs,
    /// Let the server merge the configuration (server-side apply).
    #[arg(long)]
    pub server_side: bool,
    /// With --server-side: take over fields that other managers own.
    #[arg(long)]
    pub force_conflicts: bool,
    #[command(flatten)]
    pub field_manager: FieldManagerArg,
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
    /// With --server-side: apply to this subresource of each object (e.g. status, scale).
    #[arg(long, value_name = "NAME")]
    pub subresource: Option<String>,
    #[command(flatten)]
    pub dry_run: DryRunArg,
    #[command(flatten)]
    pub validate: ValidateArg,
    #[command(flatten)]
    pub output: OutputArgs,
    #[command(flatten)]
    pub prune: PruneArgs,
    #[command(flatten)]
    pub ignore: IgnoreArgs,
    /// Print the patch sent (or that would be sent) for each object.
    #[arg(long)]
    pub show_patch: bool,
    /// How many objects to apply at once.
    #[arg(long, value_name = "N", default_value_t = 8)]
    pub concurrency: usize,
    /// After applying, wait until every object applied is ready (by kstatus's rules); exit 1 if
    /// one fails or the time runs out.
    #[arg(long)]
    pub wait: bool,
    /// How long --wait waits (default 5m; a negative duration waits a week), and how long --force
    /// waits for an object to be deleted (default 1m).
    #[arg(long, value_name = "DURATION", value_parser = parse_timeout, allow_hyphen_values = true)]
    pub timeout: Option<Duration>,
    /// Apply only if this plan, written by `diff --plan-out`, still holds: the same objects and
    /// actions, no object changed on the server since, the same configurations in the files.
    /// Otherwise nothing is applied and each difference is named.
    #[arg(long, value_name = "PLAN")]
    pub plan: Option<std::path::PathBuf>,
}

/// How long `apply --wait` waits unless `--timeout` says.
const WAIT_TIMEOUT: Duration = Duration::from_secs(300);

/// Applies the files, or runs `view-last-applied` / `set-last-applied`.
pub async fn run(args: ApplyArgs, global: &GlobalArgs) -> Result {
    if let Some(command) = args.command {
        return super::apply_last_applied::run(command, global).await;
    }
    let flags = args.flags;
    let mut options = options(&flags)?;
    flags.ignore.apply_to(&mut options)?;
    if let Some(path) = &flags.plan {
        check_plan(path, &flags, &options, global).await?;
    }
    let pruning = flags.prune.pruning()?;
    let cluster = global.connect().await?;
    let resolver = Resolver::new(&cluster, global.namespace.as_deref(), false);
    let applyset = match pruning {
        Pruning::ApplySet(parent) => Some(open_applyset(&cluster, parent, global).await?),
        _ => None,
    };
    let membership = Membership { selector: flags.prune.selector.as_ref(), applyset: applyset.as_ref() };
    let plan = plan(&flags.files, &cluster, &resolver, &options, "applied", &membership).await?;
    let members = applyset.as_ref().map(|set| set.members(plan.entries()));
    if let (Some(set), Some(members)) = (&applyset, &members) {
        // Widened before any member is written: a run cut short leaves no member the parent does
        // not lead to.
        set.record(&cluster, &set.recorded.union(members), options.dry_run).await.map_err(apply::Error::from)?;
    }
    let mut report = Report::new(plan.entries(), &flags);
    // A dry run writes nothing to wait for.
    let wait = flags.wait && options.dry_run == DryRun::None;
    let mut written = Vec::new();
    let mut applied = Applied::default();
    let stop = Stop::default();
    {
        let run = plan.run(&cluster, &resolver, &options, &stop, |index, result| {
            if let Ok(outcome) = &result {
                applied.add(outcome);
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
    let scope = pruning.scope(applyset.as_ref(), members.as_ref(), &applied.namespaces);
    let pruned = match scope {
        Some(scope) if report.all_applied() && stop.reason().is_none() => {
            prune_after(&cluster, scope, &applied, options.dry_run, &mut report).await
        }
        Some(_) => {
            report.not_pruned();
            Vec::new()
        }
        None => Vec::new(),
    };
    match report.finish(stop.reason()) {
        0 => {}
        status => return Err(Error::Reported(status)),
    }
    if wait {
        let lines_to_stderr = flags.output.output.is_some();
        tokio::select! {
            waited = super::wait::until_applied_are_ready(&cluster, written, pruned, flags.timeout.unwrap_or(WAIT_TIMEOUT), lines_to_stderr) => waited?,
            () = interrupted() => {
                // Every object was applied; only the waiting stops.
                eprintln!("interrupted: every object was applied; stopped waiting for them to be ready");
                return Err(Error::Reported(130));
            }
        }
    }
    Ok(())
}

/// `apply --plan`: the plan is computed again from the files and the server, as `diff
/// --plan-out` computed it, and must be the same; otherwise each difference is named and nothing
/// is applied.
async fn check_plan(path: &std::path::Path, flags: &ApplyFlags, options: &ApplyOptions, global: &GlobalArgs) -> Result {
    let text = std::fs::read_to_string(path)
        .map_err(|err| Error::msg(format!("cannot read the plan {}: {err}", path.display())))?;
    let planned = SavedPlan::read(&text).map_err(|err| Error::msg(format!("{}: {err}", path.display())))?;
    let mode = match options.mode {
        Mode::ClientSide { overwrite, .. } => Mode::ClientSide { overwrite, force: false },
        server_side => server_side,
    };
    let comparing = Comparing {
        files: &flags.files,
        prune: &flags.prune,
        ignore: &flags.ignore,
        mode,
        field_manager: flags.field_manager.name.clone(),
        validation: options.validation,
        concurrency: options.concurrency,
        shown: Shown { managed_fields: false, secrets: false },
    };
    let now = comparing.saved_plan(&comparing.run(global).await?);
    let differences = planned.differences(&now);
    if differences.is_empty() {
        return Ok(());
    }
    for difference in &differences {
        eprintln!("error: {difference}");
    }
    eprintln!("error: the plan in {} no longer holds: nothing was applied", path.display());
    Err(Error::Reported(1))
}

/// Prunes what `scope` holds beyond the objects `applied`, reporting each object; then narrows
/// an ApplySet's parent to this apply's members, once everything it no longer lists is gone.
/// Returns the objects pruned, to wait until they are gone.
async fn prune_after(
    cluster: &Cluster,
    scope: prune::Scope<'_>,
    applied: &Applied,
    dry_run: DryRun,
    report: &mut Report,
) -> Vec<Target> {
    let mut pruned = Vec::new();
    let found = prune::run(cluster, scope, &applied.uids, dry_run, |object, result| {
        if result.is_ok() {
            pruned.push(Target::deleted(object.target.clone(), object.uid.clone()));
        }
        report.pruned(&object.target, result);
    })
    .await;
    match found {
        Err(err) => report.prune_failed(&err.into()),
        Ok(found) if found.len() == pruned.len() => {
            if let prune::Scope::ApplySet { set, members } = scope
                && let Err(err) = set.record(cluster, members, dry_run).await
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

/// The ApplySet `parent` names, in `-n`'s namespace (or the context's).
pub(super) async fn open_applyset(cluster: &Cluster, parent: &str, global: &GlobalArgs) -> Result<ApplySet> {
    let namespace = global.namespace.as_deref().unwrap_or(cluster.default_namespace());
    Ok(ApplySet::open(cluster, parent, Some(namespace)).await.map_err(apply::Error::from)?)
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

/// Checks the flags and turns them into the engine's options.
fn options(flags: &ApplyFlags) -> Result<ApplyOptions> {
    flags.output.printer(Verb::Write)?;
    if flags.force_conflicts && !flags.server_side {
        return Err(Error::msg("--force-conflicts only works with --server-side"));
    }
    if flags.server_side && flags.dry_run.mode() == DryRun::Client {
        return Err(Error::msg(
            "--dry-run=client doesn't work with --server-side (did you mean --dry-run=server instead?)",
        ));
    }
    if flags.server_side && flags.force {
        return Err(Error::msg("--force cannot be used with --server-side"));
    }
    if flags.force && flags.dry_run.mode() == DryRun::Server {
        return Err(Error::msg("--dry-run=server cannot be used with --force"));
    }
    if flags.concurrency == 0 {
        return Err(Error::msg("--concurrency must be at least 1"));
    }
    if flags.subresource.is_some() && !flags.server_side {
        return Err(Error::msg("--subresource can only be specified for --server-side"));
    }
    flags.files.require()?;
    let (delete_options, warning) = flags.deletion.options()?;
    if let Some(warning) = warning {
        eprintln!("{warning}");
    }
    let mode = if flags.server_side {
        Mode::ServerSide { force_conflicts: flags.force_conflicts }
    } else {
        Mode::ClientSide { overwrite: flags.overwrite, force: flags.force }
    };
    Ok(ApplyOptions {
        field_manager: flags.field_manager.name.clone(),
        dry_run: flags.dry_run.mode(),
        validation: flags.validate.directive,
        concurrency: flags.concurrency,
        deletion: apply::Deletion { options: delete_options, timeout: flags.timeout.filter(|t| !t.is_zero()) },
        subresource: flags.subresource.clone(),
        openapi_patch: flags.openapi_patch,
        ..ApplyOptions::new(mode)
    })
}

/// What `--prune` changes in reading the files: only the objects `selector` matches are applied,
/// and they are labelled as members of `applyset`.
#[derive(Default)]
pub(super) struct Membership<'a> {
    pub selector: Option<&'a LabelSelector>,
    pub applyset: Option<&'a ApplySet>,
}

/// Reads every document of the files, resolves it and checks it: known kind (or one defined by a
/// CustomResourceDefinition in the same input), namespace, and what `options` require. Any
/// problem is printed, one line per document, and stops everything before a write; `verb` says
/// what did not happen (`applied`, `compared`).
pub(super) async fn plan<'c>(
    files: &FileArgs,
    cluster: &'c Cluster,
    resolver: &Resolver<'_>,
    options: &ApplyOptions,
    verb: &str,
    membership: &Membership<'_>,
) -> Result<Plan<'c>> {
    let mut objects = files.files().read()?;
    if let Some(selector) = membership.selector {
        objects.retain(|object| selector.matches(&object.object));
    }
    if objects.is_empty() {
        let names: Vec<String> = match &files.kustomize {
            Some(dir) => vec![dir.display().to_string()],
            None => files.filenames.iter().map(|path| path.display().to_string()).collect(),
        };
        return Err(Error::msg(format!("no objects passed to apply: {} holds none", names.join(", "))));
    }
    let mut entries = Vec::with_capacity(objects.len());
    let mut failures = Vec::new();
    for entry in resolver.entries(objects).await {
        match entry {
            Ok(entry) => entries.push(entry),
            Err((source, err)) => {
                let message = format!("{}: {err}", source.location());
                failures.push((source, message));
            }
        }
    }
    if let Some(set) = membership.applyset {
        set.label(&mut entries);
        for (source, err) in set.members_of_other_sets(cluster, &entries).await {
            let message = format!("{}: {err}", source.location());
            failures.push((source, message));
        }
    }
    match Plan::new(cluster, entries, options).await {
        Ok(plan) if failures.is_empty() => {
            for (source, invalid) in plan.warnings() {
                eprintln!("{}", validation::warning(&validation::document(source), &invalid.0));
            }
            return Ok(plan);
        }
        Ok(_) => {}
        Err(invalid) => failures.extend(invalid.into_iter().map(|(source, err)| {
            let message = match &err {
                apply::Error::InvalidFields(invalid) => {
                    validation::refused(&validation::document(&source), invalid.0.clone())
                }
                // The server's refusal of a dry run, worded as a write's.
                apply::Error::Client(err) => format!("when applying {}: {}", source.location(), err.line()),
                err => format!("{}: {err}", source.location()),
            };
            (source, message)
        })),
    }
    failures.sort_by_key(|(source, _): &(Source, String)| source.index);
    for (_, message) in &failures {
        // One line per document, whatever the message's own layout.
        eprintln!("error: {}", message.replace('\n', "; "));
    }
    if failures.len() > 1 {
        eprintln!("error: nothing was {verb}: {} of the objects cannot be {verb}", failures.len());
    }
    Err(Error::Reported(1))
}

/// How kubectl names an object about to be applied, in messages: `deployment.apps/web`.
pub(super) fn display_name(entry: &Entry) -> String {
    match entry {
        Entry::Ready(manifest) => manifest.object.display_name(),
        Entry::Pending(pending) => pending.display_name(),
    }
}
