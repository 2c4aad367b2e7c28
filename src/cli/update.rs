//! `kubeupd update`: read-modify-write. Either replace objects with the ones in `-f` files, or
//! change fields of a named object with `--set`, `--set-string` and `--unset`; a write that loses
//! a race with another writer is redone on a fresh read.

use std::path::PathBuf;

use anyhow::{anyhow, bail};
use clap::Args;
use futures::future::join_all;
use serde_json::Value;

use super::GlobalArgs;
use super::field_path::FieldChange;
use super::options::{DryRun, OutputArgs};
use super::targets::{self, ObjectRef, Target};
use crate::client::{Cluster, ConnectOptions, ModifyOptions, RetryPolicy, WriteOptions, is_conflict};

/// Options of `kubeupd update`.
#[derive(Debug, Args)]
pub struct UpdateArgs {
    /// TYPE NAME or TYPE/NAME of the objects to change with --set, --set-string and --unset.
    #[arg(value_name = "TYPE[/NAME]")]
    pub targets: Vec<String>,
    /// Files, directories or `-` (stdin) holding objects that replace the live ones.
    #[arg(short = 'f', long = "filename", value_name = "PATH")]
    pub filenames: Vec<PathBuf>,
    /// Set a field, the value read as YAML unless the field is a string (a label, an image):
    /// `spec.replicas=3`, `spec.template.spec.containers[name=app].image=nginx:1.27`,
    /// `metadata.annotations."a.b/c"=x`.
    #[arg(long = "set", value_name = "PATH=VALUE")]
    pub set: Vec<String>,
    /// Set a field to a string, whatever the value looks like: `metadata.labels.version=2`.
    #[arg(long = "set-string", value_name = "PATH=VALUE")]
    pub set_string: Vec<String>,
    /// Remove a field or a list item: `metadata.labels.tier`, `spec.ports[1]`.
    #[arg(long = "unset", value_name = "PATH")]
    pub unset: Vec<String>,
    /// Attempts in all while other writers change the object in between (409 Conflict).
    #[arg(long, value_name = "N", default_value_t = RetryPolicy::default().attempts,
          value_parser = clap::value_parser!(u32).range(1..))]
    pub retries: u32,
    /// `client` computes the result and sends nothing; `server` has the server check the write
    /// without persisting it.
    #[arg(long, value_enum, value_name = "MODE", default_value_t = DryRun::None, num_args = 0..=1, require_equals = true, default_missing_value = "client")]
    pub dry_run: DryRun,
    /// Write the status subresource instead of the object.
    #[arg(long, value_name = "NAME", value_parser = ["status"])]
    pub subresource: Option<String>,
    /// The manager recorded for the fields this write sets.
    #[arg(long, value_name = "NAME", default_value = "kubeupd-update")]
    pub field_manager: String,
    #[command(flatten)]
    pub output: OutputArgs,
}

/// What to write, validated.
#[derive(Debug)]
enum Plan {
    /// Replace live objects with the files' objects.
    Replace(Vec<ObjectRef>),
    /// Change fields of named objects.
    Change { objects: Vec<ObjectRef>, changes: Vec<FieldChange> },
}

/// Validates the options and parses the changes; nothing is sent before this succeeds.
fn plan(args: &UpdateArgs) -> anyhow::Result<Plan> {
    let mut changes = Vec::new();
    changes.extend(args.set.iter().map(|arg| FieldChange::set(arg)).collect::<anyhow::Result<Vec<_>>>()?);
    changes.extend(args.set_string.iter().map(|arg| FieldChange::set_string(arg)).collect::<anyhow::Result<Vec<_>>>()?);
    changes.extend(args.unset.iter().map(|arg| FieldChange::unset(arg)).collect::<anyhow::Result<Vec<_>>>()?);
    if !args.filenames.is_empty() {
        if !changes.is_empty() {
            bail!(
                "--set, --set-string and --unset change objects named as TYPE/NAME; with -f the files hold the new objects"
            );
        }
        return Ok(Plan::Replace(targets::plan(&args.targets, &args.filenames)?));
    }
    let objects = targets::plan(&args.targets, &args.filenames)?;
    if changes.is_empty() {
        bail!("nothing to change: give --set, --set-string or --unset, or replace objects with -f FILE");
    }
    Ok(Plan::Change { objects, changes })
}

/// Runs `kubeupd update`.
pub async fn run(args: UpdateArgs, global: &GlobalArgs) -> anyhow::Result<()> {
    let plan = plan(&args)?;
    let cluster = Cluster::connect(&ConnectOptions::from(global)).await?;
    let (objects, changes) = match plan {
        Plan::Replace(objects) => (objects, Vec::new()),
        Plan::Change { objects, changes } => (objects, changes),
    };
    let targets = targets::resolve(&cluster, objects, global.namespace.as_deref()).await?;
    let options = ModifyOptions {
        retry: RetryPolicy::default().with_attempts(args.retries),
        write: WriteOptions {
            dry_run: args.dry_run == DryRun::Server,
            field_manager: Some(args.field_manager.clone()),
            force: false,
            subresource: args.subresource.clone(),
        },
        client_dry_run: args.dry_run == DryRun::Client,
    };
    let results = join_all(targets.iter().map(|target| update_one(&cluster, target, &changes, &options, &args))).await;
    super::print_results(results)
}

async fn update_one(
    cluster: &Cluster,
    target: &Target,
    changes: &[FieldChange],
    options: &ModifyOptions,
    args: &UpdateArgs,
) -> anyhow::Result<String> {
    let namespace = target.namespace.as_deref();
    let pinned = target.manifest.as_ref().and_then(resource_version).map(String::from);
    let (object, changed) = match (&target.manifest, pinned) {
        (Some(replacement), Some(pinned)) => replace_pinned(cluster, target, replacement, &pinned, options).await?,
        (replacement, _) => {
            let modified = cluster
                .read_modify_write(&target.rt, namespace, &target.name, options, |object| match replacement {
                    Some(replacement) => {
                        *object = replacement.clone();
                        Ok(())
                    }
                    None => changes.iter().try_for_each(|change| change.apply(object)),
                })
                .await
                .map_err(|err| gave_up(err, target, options.retry.attempts))?;
            (modified.object, modified.changed)
        }
    };
    Ok(args.output.written(&object, "updated", changed, args.dry_run.suffix()))
}

/// The file pins a resourceVersion: the user asked for optimistic locking, so one attempt only,
/// and a conflict names the version pinned and the live one.
async fn replace_pinned(
    cluster: &Cluster,
    target: &Target,
    replacement: &Value,
    pinned: &str,
    options: &ModifyOptions,
) -> anyhow::Result<(Value, bool)> {
    let namespace = target.namespace.as_deref();
    if options.client_dry_run {
        return Ok((replacement.clone(), true));
    }
    match cluster.replace(&target.rt, namespace, &target.name, replacement, &options.write).await {
        Ok(written) => {
            let changed = resource_version(&written) != Some(pinned) || options.write.dry_run;
            Ok((written, changed))
        }
        Err(err) if is_conflict(&err) => {
            let live = cluster.get(&target.rt, namespace, &target.name).await?;
            let live_version = resource_version(&live).unwrap_or("unknown");
            Err(anyhow!(
                "conflict: {} has changed since resourceVersion {pinned:?}, which the file pins; the live object is at \
                 {live_version:?}. Update the file, or remove its metadata.resourceVersion to replace the live object",
                target.display_name()
            ))
        }
        Err(err) => Err(err),
    }
}

/// After the last attempt lost its race, says so instead of the server's "please try again".
fn gave_up(err: anyhow::Error, target: &Target, attempts: u32) -> anyhow::Error {
    if !is_conflict(&err) {
        return err;
    }
    let tries = if attempts == 1 { "1 attempt".to_string() } else { format!("{attempts} attempts") };
    anyhow!(
        "conflict: {} kept changing while it was updated; {tries} lost the race with other writers (use --retries for more)",
        target.display_name()
    )
}

fn resource_version(object: &Value) -> Option<&str> {
    object.pointer("/metadata/resourceVersion").and_then(Value::as_str).filter(|version| !version.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser as _;

    fn parse(line: &[&str]) -> anyhow::Result<Plan> {
        let cli = crate::cli::Cli::try_parse_from(["kubeupd", "update"].iter().chain(line))?;
        match cli.command {
            crate::cli::Command::Update(args) => plan(&args),
            _ => unreachable!(),
        }
    }

    #[test]
    fn changes_go_to_named_objects() {
        let plan = parse(&["deploy/web", "--set", "spec.replicas=2", "--unset", "metadata.labels.x"]).unwrap();
        let Plan::Change { objects, changes } = plan else { panic!("expected changes") };
        assert_eq!(objects, [ObjectRef::Named { type_arg: "deploy".into(), name: "web".into() }]);
        assert_eq!(changes.len(), 2);
    }

    #[test]
    fn contradictory_or_incomplete_options_are_rejected() {
        let cases: &[(&[&str], &str)] = &[
            (&["deploy/web"], "nothing to change"),
            (&["-f", "x.yaml", "--set", "a=1"], "with -f the files hold the new objects"),
            (&["--set", "a=1"], "you must name the objects"),
            (&["deploy/web", "--set", "spec..x=1"], "a key is missing"),
            (&["deploy/web", "--set", "spec.replicas"], "expected PATH=VALUE"),
        ];
        for (line, expected) in cases {
            let err = parse(line).unwrap_err().to_string();
            assert!(err.contains(expected), "{line:?}: {err}");
        }
        for line in [
            &["deploy/web", "--set", "a=1", "--retries", "0"][..],
            &["deploy/web", "--set", "a=1", "--subresource", "scale"],
        ] {
            assert!(parse(line).is_err(), "{line:?}");
        }
    }
}
