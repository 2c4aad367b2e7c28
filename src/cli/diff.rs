//! `kubeupd diff`: for each object in the files, the live object against what `apply` would make
//! of it (asked of the server as a dry run), as a unified diff. Exit status as kubectl's: 0 when
//! nothing differs, 1 when something does, above 1 on errors.

use std::io::IsTerminal as _;
use std::path::PathBuf;

use clap::Args;
use futures::stream::{self, StreamExt};
use serde_json::Value;

use super::apply::{CLIENT_SIDE_MANAGER, Planned, SERVER_SIDE_MANAGER, plan};
use super::{GlobalArgs, Reported, error_line};
use crate::client::{ApplyOptions, Cluster, ConnectOptions, Live, RetryPolicy, WriteOptions, api_error};
use crate::merge::PatchType;
use crate::output::{self, OutputFormat};

/// Options of `kubeupd diff`.
#[derive(Debug, Args)]
pub struct DiffArgs {
    /// Files, directories or `-` (stdin) holding the configuration.
    #[arg(short = 'f', long = "filename", value_name = "PATH", required = true)]
    filenames: Vec<PathBuf>,
    /// Read directories recursively.
    #[arg(short = 'R', long)]
    recursive: bool,
    /// Compare with what a server-side apply would make.
    #[arg(long)]
    server_side: bool,
    /// With --server-side: as if taking over fields that other managers own.
    #[arg(long)]
    force_conflicts: bool,
    /// The field manager of the dry-run apply.
    #[arg(long, value_name = "NAME")]
    field_manager: Option<String>,
    /// Keep `metadata.managedFields` in the compared objects.
    #[arg(long)]
    show_managed_fields: bool,
    /// How many objects to compare at once.
    #[arg(long, value_name = "N", default_value_t = 8)]
    concurrency: usize,
}

/// Exit status for errors (1 means "differences found").
const FAILED: u8 = 2;

pub async fn run(args: DiffArgs, global: &GlobalArgs) -> anyhow::Result<()> {
    match compare_all(&args, global).await {
        Ok(true) => Err(Reported(1).into()),
        Ok(false) => Ok(()),
        Err(err) if err.downcast_ref::<Reported>().is_some() => Err(Reported(FAILED).into()),
        Err(err) => {
            eprintln!("{}", error_line(&err));
            Err(Reported(FAILED).into())
        }
    }
}

/// Prints the diffs; `true` when something differs.
async fn compare_all(args: &DiffArgs, global: &GlobalArgs) -> anyhow::Result<bool> {
    let cluster = Cluster::connect(&ConnectOptions::from(global)).await?;
    let planned =
        plan(&args.filenames, args.recursive, args.server_side, &cluster, global.namespace.as_deref()).await?;
    let color = std::io::stdout().is_terminal();
    let mut results =
        stream::iter(&planned).map(|planned| compare(&cluster, args, planned, color)).buffered(args.concurrency.max(1));
    let (mut differs, mut failed) = (false, false);
    while let Some(result) = results.next().await {
        match result {
            Ok(diff) => {
                differs |= !diff.is_empty();
                print!("{diff}");
            }
            Err(err) => {
                failed = true;
                eprintln!("{}", error_line(&err));
            }
        }
    }
    if failed {
        return Err(Reported(FAILED).into());
    }
    Ok(differs)
}

async fn compare(cluster: &Cluster, args: &DiffArgs, planned: &Planned, color: bool) -> anyhow::Result<String> {
    let Some(rt) = &planned.rt else {
        anyhow::bail!(
            "{}: its kind is defined by a CustomResourceDefinition in this input, which does not exist yet",
            planned.location
        );
    };
    let namespace = planned.namespace.as_deref();
    let live = match cluster.get(rt, namespace, &planned.name).await {
        Ok(live) => Some(live),
        Err(err) if api_error(&err).is_some_and(|err| err.is_not_found()) => None,
        Err(err) => return Err(err),
    };
    let merged = if args.server_side {
        let write = WriteOptions {
            dry_run: true,
            field_manager: Some(args.field_manager.clone().unwrap_or_else(|| SERVER_SIDE_MANAGER.to_string())),
            force: args.force_conflicts,
            subresource: None,
        };
        cluster
            .patch(rt, namespace, &planned.name, PatchType::Apply, serde_json::to_vec(&planned.document)?, &write)
            .await?
    } else {
        let options = ApplyOptions {
            overwrite: true,
            force: false,
            client_dry_run: false,
            write: WriteOptions {
                dry_run: true,
                field_manager: Some(args.field_manager.clone().unwrap_or_else(|| CLIENT_SIDE_MANAGER.to_string())),
                ..WriteOptions::default()
            },
            retry: RetryPolicy::default(),
            record: false,
        };
        let known = match &live {
            Some(live) => Live::Read(live.clone()),
            None => Live::Absent,
        };
        cluster.apply(rt, namespace, &planned.document, known, &options).await?.object
    };
    let (mut live, mut merged) = (live, merged);
    if planned.kind == "Secret" && planned.api_version == "v1" {
        mask_secret_data(live.as_mut(), &mut merged);
    }
    let yaml = |object: Option<Value>| match object {
        None => String::new(),
        Some(mut object) => {
            if !args.show_managed_fields {
                output::strip_managed_fields(&mut object);
            }
            output::render_objects(OutputFormat::Yaml, vec![object], true)
        }
    };
    let name =
        format!("{}.{}.{}.{}", rt.api_version().replace('/', "."), rt.kind, namespace.unwrap_or(""), planned.name);
    Ok(output::unified_diff(&name, &yaml(live), &yaml(Some(merged)), color))
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
