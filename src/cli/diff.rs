//! `kubeupd diff`: for each object in the files, the live object against what `apply` would make
//! of it, as a unified diff. The apply engine runs as a server dry run, so the comparison is with
//! exactly what apply would send. Exit status as kubectl's: 0 when nothing differs, 1 when
//! something does, above 1 on errors.

use std::collections::BTreeMap;
use std::io::IsTerminal as _;

use clap::Args;
use serde_json::Value;

use super::flags::{FieldManagerArg, FileArgs, ValidateArg};
use super::{Error, GlobalArgs, Result};
use crate::apply::{self, ApplyOptions, DryRun, Mode, Outcome, Stop};
use crate::output::{self, OutputFormat};
use crate::resource::Resolver;

/// Options of `kubeupd diff`.
#[derive(Debug, Args)]
#[command(mut_arg("filenames", |arg| arg.required(true)))]
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

/// Prints the diffs in input order; `true` when something differs.
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
    let cluster = global.connect().await?;
    let resolver = Resolver::new(&cluster, global.namespace.as_deref(), false);
    let plan = super::apply::plan(&args.files, &cluster, &resolver, &options, "compared", &Default::default()).await?;
    let mut results: BTreeMap<usize, Result<Outcome, apply::Error>> = BTreeMap::new();
    plan.run(&cluster, &resolver, &options, &Stop::default(), |index, result| {
        results.insert(index, result);
    })
    .await;
    let color = std::io::stdout().is_terminal();
    let (mut differs, mut failed) = (false, false);
    for result in results.into_values() {
        match result {
            Ok(outcome) => {
                let diff = diff(outcome, args.show_managed_fields, color);
                differs |= !diff.is_empty();
                print!("{diff}");
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
    Ok(differs)
}

/// The live object against the applied one, as a unified diff; empty when they are the same.
fn diff(outcome: Outcome, show_managed_fields: bool, color: bool) -> String {
    let Outcome { target, object: mut merged, before: mut live, .. } = outcome;
    if target.rt.group.is_empty() && target.rt.kind == "Secret" {
        mask_secret_data(live.as_mut(), &mut merged);
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
    output::unified_diff(&name, &yaml(live), &yaml(Some(merged)), color)
}

/// Hides Secret values as kubectl does: `***` where a value is the same on both sides, `*** (before)`
/// and `*** (after)` where it changes.
fn mask_secret_data(live: Option<&mut Value>, merged: &mut Value) {
    let live_data = live.as_ref().map(|live| live["data"].clone()).unwrap_or(Value::Null);
    let merged_data = merged["data"].clone();
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
    mask(&mut merged["data"], &live_data, "after");
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn secret_values_are_masked() {
        let mut live = json!({"data": {"same": "YQ==", "changed": "Yg==", "gone": "Yw=="}});
        let mut merged = json!({"data": {"same": "YQ==", "changed": "Yw==", "new": "ZA=="}});
        mask_secret_data(Some(&mut live), &mut merged);
        assert_eq!(live["data"], json!({"same": "***", "changed": "*** (before)", "gone": "*** (before)"}));
        assert_eq!(merged["data"], json!({"same": "***", "changed": "*** (after)", "new": "*** (after)"}));
    }
}
