//! `kubeupd diff`: for each object in the files, the live object against what `apply` would make
//! of it, as a unified diff. The apply engine runs as a server dry run, so the comparison is with
//! exactly what apply would send. Exit status as kubectl's: 0 when nothing differs, 1 when
//! something does, above 1 on errors. With `KUBECTL_EXTERNAL_DIFF` set, that program compares
//! the objects instead (see [`external`]).

mod external;

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::io::IsTerminal as _;

use clap::Args;
use serde_json::{Value, json};

use super::apply::Membership;
use super::flags::{FieldManagerArg, FileArgs, PruneArgs, ValidateArg};
use super::ignore::IgnoreArgs;
use super::prune::Pruning;
use super::{Error, GlobalArgs, Result};
use crate::apply::saved_plan::{self, PlannedObject, SavedPlan, Settings};
use crate::apply::{self, ApplyOptions, DryRun, Mode, Outcome, Stop, prune};
use crate::client::FieldValidation;
use crate::output;
use crate::resource::{Entry, ObjectRef, Resolver};

/// Options of `kubeupd diff`.
#[derive(Debug, Args)]
pub struct DiffArgs {
    #[command(flatten)]
    files: FileArgs,
    /// Compare with what a server-side apply would make.
    #[arg(long)]
    server_side: bool,
    /// With --server-side: as if taking over fields that other managers own.
    #[arg(long)]
    force_conflicts: bool,
    #[command(flatten)]
    field_manager: FieldManagerArg,
    #[command(flatten)]
    validate: ValidateArg,
    /// Keep `metadata.managedFields` in the compared objects.
    #[arg(long)]
    show_managed_fields: bool,
    /// Show Secret values instead of `***`.
    #[arg(long)]
    show_secrets: bool,
    /// How many objects to compare at once.
    #[arg(long, value_name = "N", default_value_t = 8)]
    concurrency: usize,
    #[command(flatten)]
    prune: PruneArgs,
    #[command(flatten)]
    ignore: IgnoreArgs,
    /// Instead of the diffs: one line per object that would change (`+` created, `~` changed,
    /// `-` pruned) and the totals.
    #[arg(long, conflicts_with = "output")]
    summary: bool,
    /// `json`: instead of the diffs, each object's action and changed field paths, and the totals.
    #[arg(short = 'o', long, value_name = "FORMAT", value_parser = ["json"])]
    output: Option<String>,
    /// Also write the plan to this file, for `apply --plan` to apply exactly it: each object's
    /// action, its live resourceVersion and a digest of its configuration (no Secret values).
    #[arg(long, value_name = "PLAN")]
    plan_out: Option<std::path::PathBuf>,
}

/// Exit status for errors (1 means "differences found").
const FAILED: u8 = 2;

pub async fn run(args: DiffArgs, global: &GlobalArgs) -> Result {
    match compare_all(&args, global).await {
        Ok(true) => Err(Error::Reported(1)),
        Ok(false) => Ok(()),
        Err(Error::Reported(_)) => Err(Error::Reported(FAILED)),
        Err(err) => {
            eprintln!("{}", err.line());
            Err(Error::Reported(FAILED))
        }
    }
}

/// Prints the diffs (or the summary, or the JSON change set) in input order, then the objects
/// that would be pruned; `true` when something differs.
async fn compare_all(args: &DiffArgs, global: &GlobalArgs) -> Result<bool> {
    let mode = if args.server_side {
        Mode::ServerSide { force_conflicts: args.force_conflicts }
    } else {
        Mode::ClientSide { overwrite: true, force: false }
    };
    let external = external::Program::from_env();
    let comparing = Comparing {
        files: &args.files,
        prune: &args.prune,
        ignore: &args.ignore,
        mode,
        field_manager: args.field_manager.name.clone(),
        validation: args.validate.directive,
        concurrency: args.concurrency,
        shown: Shown { managed_fields: args.show_managed_fields, secrets: args.show_secrets },
    };
    let changes = comparing.run(global).await?;
    if let Some(path) = &args.plan_out {
        let text = comparing.saved_plan(&changes).to_text();
        std::fs::write(path, text)
            .map_err(|err| Error::msg(format!("cannot write the plan to {}: {err}", path.display())))?;
    }
    let differs = changes.iter().any(|change| change.action != Action::Unchanged);
    if args.output.is_some() {
        print!("{}", output::to_json(&change_set(&changes)));
    } else if args.summary {
        print!("{}", summary(&changes));
    } else if let Some(program) = external {
        // The program's verdict is the result, as kubectl has it.
        return program.compare(&changes).map(|status| status == 1);
    } else {
        let color = std::io::stdout().is_terminal();
        changes
            .iter()
            .for_each(|change| print!("{}", output::unified_diff(&change.name, &change.before, &change.after, color)));
    }
    Ok(differs)
}

/// How to find what applying files would do: `diff`'s question, which `apply --plan` asks again.
pub(super) struct Comparing<'a> {
    pub files: &'a FileArgs,
    pub prune: &'a PruneArgs,
    pub ignore: &'a IgnoreArgs,
    pub mode: Mode,
    pub field_manager: Option<String>,
    pub validation: FieldValidation,
    pub concurrency: usize,
    pub shown: Shown,
}

impl Comparing<'_> {
    /// Each object's change, in input order, then the objects pruning would delete. The apply
    /// engine runs as a server dry run; an object that fails is printed and fails the whole.
    pub async fn run(&self, global: &GlobalArgs) -> Result<Vec<Change>> {
        let mut options = ApplyOptions {
            field_manager: self.field_manager.clone(),
            dry_run: DryRun::Server,
            record_last_applied: false,
            keep_live: true,
            validation: self.validation,
            concurrency: self.concurrency.max(1),
            ..ApplyOptions::new(self.mode)
        };
        self.ignore.apply_to(&mut options)?;
        self.files.require()?;
        let pruning = self.prune.pruning()?;
        let cluster = global.connect().await?;
        let resolver = Resolver::new(&cluster, global.namespace.as_deref(), false);
        let applyset = match pruning {
            Pruning::ApplySet(parent) => Some(super::apply::open_applyset(&cluster, parent, global).await?),
            _ => None,
        };
        let membership = Membership { selector: self.prune.selector.as_ref(), applyset: applyset.as_ref() };
        let plan = super::apply::plan(self.files, &cluster, &resolver, &options, "compared", &membership).await?;
        let members = applyset.as_ref().map(|set| set.members(plan.entries()));
        let configurations: HashMap<usize, String> = plan
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
        let mut results: BTreeMap<usize, Result<Outcome, apply::Error>> = BTreeMap::new();
        plan.run(&cluster, &resolver, &options, &Stop::default(), |index, result| {
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
                    let mut change = Change::applied(outcome, self.shown);
                    change.configuration = configurations.get(&index).cloned();
                    changes.push(change);
                }
                Err(err) => {
                    failed = true;
                    eprintln!("{}", err.line());
                }
            }
        }
        if failed {
            return Err(Error::Reported(FAILED));
        }
        let scope = pruning.scope(applyset.as_ref(), members.as_ref(), &namespaces);
        if let Some(scope) = scope {
            let found = prune::find(&cluster, scope, &applied).await.map_err(apply::Error::from)?;
            changes.extend(found.into_iter().map(|object| Change::pruned(object, self.shown)));
        }
        Ok(changes)
    }

    /// `changes` as a plan for `apply --plan`.
    pub fn saved_plan(&self, changes: &[Change]) -> SavedPlan {
        let options = ApplyOptions { field_manager: self.field_manager.clone(), ..ApplyOptions::new(self.mode) };
        let (mode, force_conflicts) = match self.mode {
            Mode::ClientSide { .. } => ("client-side", false),
            Mode::ServerSide { force_conflicts } => ("server-side", force_conflicts),
        };
        let settings = Settings {
            mode: mode.into(),
            field_manager: options.field_manager().to_string(),
            force_conflicts,
            prune: self.prune.prune,
        };
        let objects = changes
            .iter()
            .map(|change| PlannedObject {
                action: change.action.word().into(),
                object: change.target.display_name(),
                namespace: change.target.namespace.clone(),
                resource_version: change.version.clone(),
                configuration: change.configuration.clone(),
                fields: change.fields.clone(),
            })
            .collect();
        SavedPlan { settings, objects }
    }
}

/// What the compared YAML keeps that kubectl hides by default.
#[derive(Debug, Clone, Copy)]
pub(super) struct Shown {
    pub managed_fields: bool,
    pub secrets: bool,
}

/// What applying (and pruning) would do to an object.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Action {
    Create,
    Change,
    Unchanged,
    Prune,
}

impl Action {
    fn word(self) -> &'static str {
        match self {
            Action::Create => "create",
            Action::Change => "change",
            Action::Unchanged => "unchanged",
            Action::Prune => "prune",
        }
    }
}

/// One object's change: what happens to it, its changed field paths, and the two sides compared
/// as YAML (empty for an object that is new, or pruned), under kubectl's name for the object
/// (`apps.v1.Deployment.default.web`).
pub(super) struct Change {
    action: Action,
    target: ObjectRef,
    fields: Vec<String>,
    name: String,
    before: String,
    after: String,
    /// The live object's resourceVersion; `None` for an object to create.
    version: Option<String>,
    /// The digest of the configuration in the files; `None` for an object to prune.
    configuration: Option<String>,
}

impl Change {
    fn applied(outcome: Outcome, shown: Shown) -> Change {
        let fields = output::changed_paths(outcome.before.as_ref(), Some(&outcome.object));
        let action = if outcome.before.is_none() { Action::Create } else { Action::Change };
        let change = Change::new(action, outcome.target, fields, outcome.before, Some(outcome.object), shown);
        if change.before == change.after {
            Change { action: Action::Unchanged, fields: Vec::new(), ..change }
        } else {
            change
        }
    }

    fn pruned(object: prune::Prunable, shown: Shown) -> Change {
        let fields = output::changed_paths(Some(&object.object), None);
        Change::new(Action::Prune, object.target, fields, Some(object.object), None, shown)
    }

    fn new(
        action: Action,
        target: ObjectRef,
        fields: Vec<String>,
        mut live: Option<Value>,
        mut merged: Option<Value>,
        shown: Shown,
    ) -> Change {
        let secret = target.rt.group.is_empty() && target.rt.kind == "Secret";
        if secret && !shown.secrets {
            mask_secret_data(live.as_mut(), merged.as_mut());
        }
        let yaml = |object: Option<Value>| match object {
            // kubectl's masking of a Secret leaves an absent side as YAML's null.
            None if secret => "null\n".to_string(),
            None => String::new(),
            Some(mut object) => {
                if !shown.managed_fields {
                    output::strip_managed_fields(&mut object);
                }
                output::to_yaml(&object)
            }
        };
        let version = live.as_ref().and_then(|live| live["metadata"]["resourceVersion"].as_str()).map(String::from);
        let name = format!(
            "{}.{}.{}.{}",
            target.rt.api_version().replace('/', "."),
            target.rt.kind,
            target.namespace.as_deref().unwrap_or(""),
            target.name
        );
        let (before, after) = (yaml(live), yaml(merged));
        Change { action, target, fields, name, before, after, version, configuration: None }
    }
}

/// `+ configmap/a`, `~ deployment.apps/web`, `- configmap/c` for each object that would change,
/// then the totals.
fn summary(changes: &[Change]) -> String {
    let mut text = String::new();
    let mut totals: BTreeMap<u8, usize> = BTreeMap::new();
    for change in changes {
        let (sign, order) = match change.action {
            Action::Create => ('+', 0),
            Action::Change => ('~', 1),
            Action::Prune => ('-', 2),
            Action::Unchanged => (' ', 3),
        };
        *totals.entry(order).or_default() += 1;
        if change.action != Action::Unchanged {
            text.push_str(&format!("{sign} {}{}\n", change.target.display_name(), in_namespace(&change.target)));
        }
    }
    let count = |order: u8| totals.get(&order).copied().unwrap_or(0);
    text.push_str(&format!(
        "{} to create, {} to change, {} to prune, {} unchanged\n",
        count(0),
        count(1),
        count(2),
        count(3)
    ));
    text
}

fn in_namespace(target: &ObjectRef) -> String {
    target.namespace.as_deref().map(|namespace| format!(" -n {namespace}")).unwrap_or_default()
}

/// The change set as JSON: each object's action, identity and changed field paths, in order, and
/// the totals.
fn change_set(changes: &[Change]) -> Value {
    let mut totals = serde_json::Map::new();
    for action in [Action::Create, Action::Change, Action::Prune, Action::Unchanged] {
        let count = changes.iter().filter(|change| change.action == action).count();
        totals.insert(action.word().to_string(), json!(count));
    }
    let objects: Vec<Value> = changes
        .iter()
        .map(|change| {
            let target = &change.target;
            json!({
                "action": change.action.word(),
                "object": target.display_name(),
                "apiVersion": target.rt.api_version(),
                "kind": target.rt.kind,
                "namespace": target.namespace,
                "name": target.name,
                "fields": change.fields,
            })
        })
        .collect();
    json!({"objects": objects, "totals": totals})
}

/// Hides Secret values as kubectl does: `*** (before)` and `*** (after)` where a key is on both
/// sides with other values, `***` everywhere else.
fn mask_secret_data(live: Option<&mut Value>, merged: Option<&mut Value>) {
    let live_data = live.as_ref().map(|live| live["data"].clone()).unwrap_or(Value::Null);
    let merged_data = merged.as_ref().map(|merged| merged["data"].clone()).unwrap_or(Value::Null);
    let mask = |data: &mut Value, other: &Value, changed: &str| {
        if let Some(values) = data.as_object_mut() {
            for (key, value) in values.iter_mut() {
                *value = Value::String(match other.get(key) {
                    Some(theirs) if theirs != value => format!("*** ({changed})"),
                    _ => "***".into(),
                });
            }
        }
    };
    if let Some(live) = live {
        mask(&mut live["data"], &merged_data, "before");
    }
    if let Some(merged) = merged {
        mask(&mut merged["data"], &live_data, "after");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn secret_values_are_masked() {
        let mut live = json!({"data": {"same": "YQ==", "changed": "Yg==", "gone": "Yw=="}});
        let mut merged = json!({"data": {"same": "YQ==", "changed": "Yw==", "new": "ZA=="}});
        mask_secret_data(Some(&mut live), Some(&mut merged));
        assert_eq!(live["data"], json!({"same": "***", "changed": "*** (before)", "gone": "***"}));
        assert_eq!(merged["data"], json!({"same": "***", "changed": "*** (after)", "new": "***"}));
    }
}
