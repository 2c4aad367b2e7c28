//! Apply's input, as `apply` and `diff` both take it: the flags that say where the objects are,
//! how they are applied and what is pruned ([`InputArgs`]); the input read and checked
//! ([`open`]), each document that cannot be applied named on a line of its own; and what applying
//! it would do ([`Preview`]), which `diff` shows and `apply --plan` compares with a saved plan.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use clap::Args;

use super::pruning::Pruning;
use crate::apply::applyset::{ApplySet, Members};
use crate::apply::input::{self, InputError, Membership, Refusal};
use crate::apply::preview::{self, Change, Shown};
use crate::apply::saved_plan::{self, SavedPlan};
use crate::apply::{self, ApplyOptions, Batch, DryRun, Mode, Outcome, Stop, prune};
use crate::cli::args::{FieldManagerArg, FileArgs, PruneArgs, ReplaceImmutableArg, ValidateArg};
use crate::cli::ignore::IgnoreArgs;
use crate::cli::validation;
use crate::cli::{Error, GlobalArgs, Result};
use crate::client::Cluster;
use crate::resource::{Entry, Resolver, Source};

/// Where the objects are, how they are applied, and what is pruned: the flags `apply` and `diff`
/// share.
#[derive(Debug, Clone, Args)]
pub struct InputArgs {
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
    #[command(flatten)]
    pub validate: ValidateArg,
    /// How many objects to apply at once.
    #[arg(long, value_name = "N", default_value_t = crate::apply::DEFAULT_CONCURRENCY as i64, allow_negative_numbers = true, value_parser = crate::cli::pflag::int)]
    pub concurrency: i64,
    #[command(flatten)]
    pub prune: PruneArgs,
    #[command(flatten)]
    pub ignore: IgnoreArgs,
    #[command(flatten)]
    pub replace: ReplaceImmutableArg,
}

impl InputArgs {
    /// The engine's options these flags ask for, as apply and diff both read them, with `mode`
    /// and `dry_run` the verb's; checked before any request. `--concurrency` below 1 applies one
    /// object at a time, as kubectl's `diff --concurrency` does.
    pub fn apply_options(&self, mode: Mode, dry_run: DryRun) -> Result<ApplyOptions> {
        let mut options = ApplyOptions {
            field_manager: self.field_manager.name.clone(),
            dry_run,
            validation: self.validate.directive,
            concurrency: usize::try_from(self.concurrency.max(1)).unwrap_or(usize::MAX),
            replace_immutable: self.replace.replace_immutable,
            ..ApplyOptions::new(mode)
        };
        self.ignore.apply_to(&mut options)?;
        Ok(options)
    }

    /// The apply these flags ask for; `overwrite` and `force` are those of a client-side apply.
    pub fn mode(&self, overwrite: bool, force: bool) -> Mode {
        if self.server_side {
            Mode::ServerSide { force_conflicts: self.force_conflicts }
        } else {
            Mode::ClientSide { overwrite, force }
        }
    }
}

/// The input read and checked: the batch to apply and, with `--applyset`, the set and the
/// group-kinds and namespaces of its members in this input.
pub struct Input<'c> {
    pub batch: Batch<'c>,
    pub applyset: Option<ApplySet>,
    pub members: Option<Members>,
}

/// Reads the objects of `args`' files, resolves and checks them ([`input::read`]), with the
/// ApplySet that `pruning` names opened. Any problem is printed, one line per document, and stops
/// everything before a write; `verb` says what did not happen (`applied`, `compared`).
pub async fn open<'c>(
    cluster: &'c Cluster,
    resolver: &Resolver<'_>,
    args: &InputArgs,
    pruning: &Pruning<'_>,
    options: &ApplyOptions,
    verb: &str,
    global: &GlobalArgs,
) -> Result<Input<'c>> {
    let applyset = match pruning {
        Pruning::ApplySet(parent) => Some(open_applyset(cluster, parent, global).await?),
        _ => None,
    };
    let membership = Membership { selector: args.prune.selector.selector.as_ref(), applyset: applyset.as_ref() };
    let batch = match input::read(args.files.files(), cluster, resolver, options, &membership).await {
        Ok(batch) => batch,
        Err(err) => return Err(refused(&args.files, err, verb)),
    };
    for (source, invalid) in batch.warnings() {
        eprintln!("{}", validation::warning(&validation::document(source), &invalid.0));
    }
    let members = applyset.as_ref().map(|set| set.members(batch.entries()));
    Ok(Input { batch, applyset, members })
}

/// The ApplySet `parent` names, in `-n`'s namespace (or the context's).
async fn open_applyset(cluster: &Cluster, parent: &str, global: &GlobalArgs) -> Result<ApplySet> {
    let namespace = global.namespace.as_deref().unwrap_or(cluster.default_namespace());
    Ok(ApplySet::open(cluster, parent, Some(namespace)).await.map_err(apply::Error::from)?)
}

/// Why the input of `files` cannot be applied; each document refused is printed.
fn refused(files: &FileArgs, err: InputError, verb: &str) -> Error {
    let refused = match err {
        InputError::Read(err) => return err.into(),
        InputError::Empty => {
            let names: Vec<String> = match &files.kustomize {
                Some(dir) => vec![dir.display().to_string()],
                None => files.filenames.iter().map(|path| path.display().to_string()).collect(),
            };
            return Error::msg(format!("no objects passed to apply: {} holds none", names.join(", ")));
        }
        InputError::Refused(refused) => refused,
    };
    for (source, refusal) in &refused {
        // One line per document, whatever the message's own layout.
        eprintln!("error: {}", refusal_message(source, refusal).replace('\n', "; "));
    }
    if refused.len() > 1 {
        eprintln!("error: nothing was {verb}: {} of the objects cannot be {verb}", refused.len());
    }
    Error::Reported(1)
}

fn refusal_message(source: &Source, refusal: &Refusal) -> String {
    match refusal {
        Refusal::Unresolved(err) => format!("{}: {err}", source.location()),
        Refusal::OtherSet(err) => format!("{}: {err}", source.location()),
        Refusal::Unfit(apply::Error::InvalidFields(invalid)) => {
            validation::refused(&validation::document(source), invalid.0.clone())
        }
        // The server's refusal of a dry run, worded as a write's.
        Refusal::Unfit(apply::Error::Client(err)) => format!("when applying {}: {}", source.location(), err.line()),
        Refusal::Unfit(err @ apply::Error::Immutable { server: Some(_), .. }) => {
            format!("when applying {}: {err}", source.location())
        }
        Refusal::Unfit(err) => format!("{}: {err}", source.location()),
    }
}

/// Exit status when objects cannot be compared (`diff`'s: 1 means that something differs).
pub const COMPARE_FAILED: u8 = 2;

/// What applying the input would do: `diff`'s question, which `apply --plan` asks again.
pub struct Preview<'a> {
    input: &'a InputArgs,
    mode: Mode,
    shown: Shown,
    /// The engine's options for a server dry run that keeps the objects as they were.
    options: ApplyOptions,
    pruning: Pruning<'a>,
}

impl<'a> Preview<'a> {
    /// The preview of applying `input` with `mode`, its flags checked before any request, the
    /// same way for `diff` and `apply --plan`.
    pub fn new(input: &'a InputArgs, mode: Mode, shown: Shown) -> Result<Preview<'a>> {
        let options =
            ApplyOptions { record_last_applied: false, keep_live: true, ..input.apply_options(mode, DryRun::Server)? };
        input.files.require()?;
        // kubectl's diff checks this once the files are named (apply, among its first checks).
        if input.force_conflicts && !input.server_side {
            return Err(Error::msg("--force-conflicts only works with --server-side"));
        }
        let pruning = input.prune.pruning()?;
        Ok(Preview { input, mode, shown, options, pruning })
    }

    /// Each object's change, in input order, then the objects pruning would delete. The apply
    /// engine runs as a server dry run; an object that fails is printed and fails the whole.
    pub async fn run(&self, global: &GlobalArgs) -> Result<Vec<Change>> {
        let (input, options, pruning) = (self.input, &self.options, &self.pruning);
        let cluster = global.connect().await?;
        let resolver = Resolver::new(&cluster, global.namespace.as_deref(), false);
        let Input { batch, applyset, members } =
            open(&cluster, &resolver, input, pruning, options, "compared", global).await?;
        let configurations: HashMap<usize, String> = batch
            .entries()
            .iter()
            .map(|entry| {
                let document = match entry {
                    Entry::Ready(manifest) => &manifest.document,
                    Entry::Pending(pending) => &pending.document,
                };
                (entry.source().index, saved_plan::digest(document))
            })
            .collect();
        let phases = &batch.order().phases;
        let phase_of: HashMap<usize, usize> = match phases.len() {
            1 => HashMap::new(),
            _ => (phases.iter().enumerate())
                .flat_map(|(number, phase)| phase.members().map(move |position| (position, number + 1)))
                .map(|(position, number)| (batch.entries()[position].source().index, number))
                .collect(),
        };
        let mut results: BTreeMap<usize, Result<Outcome, apply::Error>> = BTreeMap::new();
        batch
            .run(&cluster, &resolver, options, &Stop::default(), &mut apply::NoGate, |index, result| {
                results.insert(index, result);
            })
            .await;
        let mut changes = Vec::new();
        let (mut applied, mut namespaces, mut failed) = (HashSet::new(), BTreeSet::new(), false);
        for (index, result) in results {
            match result {
                Ok(outcome) => {
                    applied.extend(outcome.object["metadata"]["uid"].as_str().map(String::from));
                    namespaces.extend(outcome.target.namespace.clone());
                    let change = Change::applied(outcome, configurations.get(&index).cloned(), self.shown);
                    changes.push(Change { phase: phase_of.get(&index).copied(), ..change });
                }
                Err(err) => {
                    failed = true;
                    eprintln!("{}", err.line());
                }
            }
        }
        if failed {
            return Err(Error::Reported(COMPARE_FAILED));
        }
        let scope = pruning.scope(applyset.as_ref(), members.as_ref(), &namespaces);
        if let Some(scope) = scope {
            let allowed = &input.prune.allow.kinds;
            let found = prune::find(&cluster, scope, &applied, allowed).await.map_err(apply::Error::from)?;
            changes.extend(found.prunable.into_iter().map(|object| Change::pruned(object, self.shown)));
        }
        Ok(changes)
    }

    /// `changes` as a plan for `apply --plan`.
    pub fn saved_plan(&self, changes: &[Change]) -> SavedPlan {
        preview::saved_plan(changes, self.mode, self.input.field_manager.name.clone(), self.input.prune.prune)
    }
}
