//! `kubeupd diff`: for each object in the files, the live object against what `apply` would make
//! of it, as a unified diff. The apply engine runs as a server dry run, so the comparison is with
//! exactly what apply would send. Exit status as kubectl's: 0 when nothing differs, 1 when
//! something does, above 1 on errors.

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::io::IsTerminal as _;

use clap::Args;
use serde_json::{Value, json};

use super::apply::Membership;
use super::flags::{FieldManagerArg, FileArgs, PruneArgs, ValidateArg};
use super::prune::Pruning;
use super::{Error, GlobalArgs, Result};
use crate::apply::{self, ApplyOptions, DryRun, Mode, Outcome, Stop, prune};
use crate::output::{self, OutputFormat};
use crate::resource::{ObjectRef, Resolver};

/// Options of `kubeupd diff`.
#[derive(Debug, Args)]
#[command(mut_arg("filenames", |arg| arg.required_unless_present("kustomize")))]
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
    /// How many objects to compare at once.
    #[arg(long, value_name = "N", default_value_t = 8)]
    concurrency: usize,
    #[command(flatten)]
    prune: PruneArgs,
    /// Instead of the diffs: one line per object that would change (`+` created, `~` changed,
    /// `-` pruned) and the totals.
    #[arg(long, conflicts_with = "output")]
    summary: bool,
    /// `json`: instead of the diffs, each object's action and changed field paths, and the totals.
    #[arg(short = 'o', long, value_name = "FORMAT", value_parser = ["json"])]
    output: Option<String>,
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
    let options = ApplyOptions {
        field_manager: args.field_manager.name.clone(),
        dry_run: DryRun::Server,
        record_last_applied: false,
        keep_live: true,
        validation: args.validate.directive,
        concurrency: args.concurrency.max(1),
        ..ApplyOptions::new(mode)
    };
    let pruning = args.prune.pruning()?;
    let cluster = global.connect().await?;
    let resolver = Resolver::new(&cluster, global.namespace.as_deref(), false);
    let applyset = match pruning {
        Pruning::ApplySet(parent) => Some(super::apply::open_applyset(&cluster, parent, global).await?),
        _ => None,
    };
    let membership = Membership { selector: args.prune.selector.as_ref(), applyset: applyset.as_ref() };
    let plan = super::apply::plan(&args.files, &cluster, &resolver, &options, "compared", &membership).await?;
    let members = applyset.as_ref().map(|set| set.members(plan.entries()));
    let mut results: BTreeMap<usize, Result<Outcome, apply::Error>> = BTreeMap::new();
    plan.run(&cluster, &resolver, &options, &Stop::default(), |index, result| {
        results.insert(index, result);
    })
    .await;
    let color = std::io::stdout().is_terminal() && !args.summary && args.output.is_none();
    let mut changes = Vec::new();
    let (mut applied, mut namespaces, mut failed) = (HashSet::new(), BTreeSet::new(), false);
    for result in results.into_values() {
        match result {
            Ok(outcome) => {
                applied.extend(outcome.object["metadata"]["uid"].as_str().map(String::from));
                namespaces.extend(outcome.target.namespace.clone());
                changes.push(Change::applied(outcome, args.show_managed_fields, color));
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
        changes.extend(found.into_iter().map(|object| Change::pruned(object, args.show_managed_fields, color)));
    }
    let differs = changes.iter().any(|change| change.action != Action::Unchanged);
    if args.output.is_some() {
        print!("{}", output::to_json(&change_set(&changes)));
    } else if args.summary {
        print!("{}", summary(&changes));
    } else {
        changes.iter().for_each(|change| print!("{}", change.diff));
    }
    Ok(differs)
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

/// One object's change: what happens to it, its changed field paths, and its diff.
struct Change {
    action: Action,
    target: ObjectRef,
    fields: Vec<String>,
    diff: String,
}

impl Change {
    fn applied(outcome: Outcome, show_managed_fields: bool, color: bool) -> Change {
        let fields = output::changed_paths(outcome.before.as_ref(), Some(&outcome.object));
        let action = if outcome.before.is_none() { Action::Create } else { Action::Change };
        let target = outcome.target;
        let diff = diff(&target, outcome.before, Some(outcome.object), show_managed_fields, color);
        let action = if diff.is_empty() { Action::Unchanged } else { action };
        Change { action, target, fields: if action == Action::Unchanged { Vec::new() } else { fields }, diff }
    }

    fn pruned(object: prune::Prunable, show_managed_fields: bool, color: bool) -> Change {
        let fields = output::changed_paths(Some(&object.object), None);
        let diff = diff(&object.target, Some(object.object), None, show_managed_fields, color);
        Change { action: Action::Prune, target: object.target, fields, diff }
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

/// The live object (`None` when it is new) against what it would become (`None` when pruned), as
/// a unified diff; empty when they are the same.
fn diff(
    target: &ObjectRef,
    mut live: Option<Value>,
    mut merged: Option<Value>,
    show_managed_fields: bool,
    color: bool,
) -> String {
    if target.rt.group.is_empty() && target.rt.kind == "Secret" {
        mask_secret_data(live.as_mut(), merged.as_mut());
    }
    let yaml = |object: Option<Value>| match object {
        None => String::new(),
        Some(mut object) => {
            if !show_managed_fields {
                output::strip_managed_fields(&mut object);
            }
            output::render_objects(OutputFormat::Yaml, vec![object], true)
        }
    };
    let name = format!(
        "{}.{}.{}.{}",
        target.rt.api_version().replace('/', "."),
        target.rt.kind,
        target.namespace.as_deref().unwrap_or(""),
        target.name
    );
    output::unified_diff(&name, &yaml(live), &yaml(merged), color)
}

/// Hides Secret values as kubectl does: `***` where a value is the same on both sides, `*** (before)`
/// and `*** (after)` where it changes.
fn mask_secret_data(live: Option<&mut Value>, merged: Option<&mut Value>) {
    let live_data = live.as_ref().map(|live| live["data"].clone()).unwrap_or(Value::Null);
    let merged_data = merged.as_ref().map(|merged| merged["data"].clone()).unwrap_or(Value::Null);
    let mask = |data: &mut Value, other: &Value, changed: &str| {
        if let Some(values) = data.as_object_mut() {
            for (key, value) in values.iter_mut() {
                *value = Value::String(if other.get(key) == Some(value) {
                    "***".into()
                } else {
                    format!("*** ({changed})")
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
        assert_eq!(live["data"], json!({"same": "***", "changed": "*** (before)", "gone": "*** (before)"}));
        assert_eq!(merged["data"], json!({"same": "***", "changed": "*** (after)", "new": "*** (after)"}));
    }
}
