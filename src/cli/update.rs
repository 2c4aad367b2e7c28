//! `kubeupd update`: read-modify-write. Either replace objects with the ones in `-f` files, or
//! change fields of a named object with `--set`, `--set-string` and `--unset`; a write that loses
//! a race with another writer is redone on a fresh read.

use clap::Args;
use futures::future::join_all;
use serde_json::Value;

use super::args::{DryRunArg, FieldManagerArg, OutputArgs, SubresourceArg, TargetArgs, ValidateArg};
use super::validation;
use super::{Error, GlobalArgs, Result};
use crate::apply::{self, DryRun, ModifyError, ModifyOptions};
use crate::change::field_path::FieldChange;
use crate::client::{self, Cluster, FieldValidation, RetryPolicy, WriteOptions};
use crate::output::Verb;
use crate::resource::{Manifest, Named, ObjectRef, Resolved, Resolver, Rules};

/// Options of `kubeupd update`.
#[derive(Debug, Args)]
#[command(mut_arg("subresource", |arg| arg.value_parser(["status"])))]
pub struct UpdateArgs {
    /// TYPE NAME or TYPE/NAME of the objects to change with --set, --set-string and --unset, or
    /// -f files holding objects that replace the live ones.
    #[command(flatten)]
    pub targets: TargetArgs,
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
    #[command(flatten)]
    pub dry_run: DryRunArg,
    #[command(flatten)]
    pub validate: ValidateArg,
    #[command(flatten)]
    pub subresource: SubresourceArg,
    #[command(flatten)]
    pub field_manager: FieldManagerArg,
    #[command(flatten)]
    pub output: OutputArgs,
}

/// What to write, validated.
#[derive(Debug)]
struct Options {
    /// The objects: from files (which replace them) or named (whose fields change).
    objects: Vec<Named>,
    changes: Vec<FieldChange>,
}

const RULES: Rules = Rules { verb: "update", types_alone: false, selector: false };

/// Validates the options and parses the changes; nothing is sent before this succeeds.
fn options(args: &UpdateArgs) -> Result<Options> {
    let sets = args.set.iter().map(|arg| FieldChange::set(arg));
    let set_strings = args.set_string.iter().map(|arg| FieldChange::set_string(arg));
    let unsets = args.unset.iter().map(|arg| FieldChange::unset(arg));
    let changes = sets.chain(set_strings).chain(unsets).collect::<Result<Vec<_>, _>>().map_err(anyhow::Error::from)?;
    args.output.printer(Verb::Write)?;
    let replacing = args.targets.files.given();
    if replacing && !changes.is_empty() {
        return Err(Error::msg(
            "--set, --set-string and --unset change objects named as TYPE/NAME; with -f the files hold the new objects",
        ));
    }
    let objects = args.targets.named(RULES)?;
    if !replacing && changes.is_empty() {
        return Err(Error::msg(
            "nothing to change: give --set, --set-string or --unset, or replace objects with -f FILE",
        ));
    }
    Ok(Options { objects, changes })
}

/// Runs `kubeupd update`.
pub async fn run(args: UpdateArgs, global: &GlobalArgs) -> Result {
    let options = options(&args)?;
    let cluster = global.connect().await?;
    let resolved = Resolver::new(&cluster, global.namespace.as_deref(), false).resolve(options.objects).await?;
    validation::check_files(&cluster, &resolved, args.validate.directive).await?;
    let modify = ModifyOptions {
        retry: RetryPolicy::default().with_attempts(args.retries),
        write: WriteOptions {
            dry_run: false,
            field_manager: Some(args.field_manager.or("kubeupd-update")),
            force: false,
            subresource: args.subresource.name.clone(),
            field_validation: Some(args.validate.directive),
        },
        dry_run: args.dry_run.mode(),
    };
    let results =
        join_all(resolved.iter().map(|item| update_one(&cluster, item, &options.changes, &modify, &args))).await;
    super::print_results(results)
}

async fn update_one(
    cluster: &Cluster,
    item: &Resolved,
    changes: &[FieldChange],
    options: &ModifyOptions,
    args: &UpdateArgs,
) -> Result<String> {
    let (object, changed) = match item {
        Resolved::Manifest(manifest) => replace_from_file(cluster, manifest, options).await?,
        Resolved::Object(target) => {
            // Changed fields are checked as they are made; files were checked before.
            let schema = match options.write.field_validation {
                Some(validation) if validation != FieldValidation::Ignore => {
                    cluster.kind_schema(&target.rt.api_version(), &target.rt.kind).await
                }
                _ => None,
            };
            let mut warnings = Vec::new();
            let change = |object: &mut Value| {
                changes.iter().try_for_each(|change| change.apply(object))?;
                let Some(schema) = &schema else { return Ok(()) };
                let errors = crate::schema::validate(schema.node(), &target.rt.kind, object);
                match options.write.field_validation {
                    _ if errors.is_empty() => Ok(()),
                    Some(FieldValidation::Warn) => {
                        warnings.push(validation::warning(&target.display_name(), &errors));
                        Ok(())
                    }
                    _ => Err(anyhow::anyhow!(validation::refused(&target.display_name(), errors))),
                }
            };
            let modified = apply::read_modify_write(cluster, target, options, change)
                .await
                .map_err(|err| modify_failed(err, target, options))?;
            if let Some(warning) = warnings.last() {
                eprintln!("{warning}");
            }
            (modified.object, modified.changed)
        }
        Resolved::List { .. } => unreachable!("update names objects"),
    };
    args.output.written(&object, "updated", changed, args.dry_run.suffix())
}

/// Replaces the live object with the one a file holds; returns the object written and whether it
/// changed. `update -f` and `replace` do this.
pub(super) async fn replace_from_file(
    cluster: &Cluster,
    manifest: &Manifest,
    options: &ModifyOptions,
) -> Result<(Value, bool)> {
    let (target, replacement) = (&manifest.object, &manifest.document);
    if let Some(pinned) = resource_version(replacement) {
        return replace_pinned(cluster, target, replacement, pinned, options).await;
    }
    let replace = |object: &mut Value| -> anyhow::Result<()> {
        *object = replacement.clone();
        Ok(())
    };
    let modified = apply::read_modify_write(cluster, target, options, replace)
        .await
        .map_err(|err| modify_failed(err, target, options))?;
    Ok((modified.object, modified.changed))
}

fn modify_failed(err: ModifyError<anyhow::Error>, target: &ObjectRef, options: &ModifyOptions) -> Error {
    match err {
        ModifyError::Client(err) => gave_up(err, target, options.retry.attempts),
        ModifyError::Change(err) => Error::Other(err),
    }
}

/// The file pins a resourceVersion: the user asked for optimistic locking, so one attempt only,
/// and a conflict names the version pinned and the live one.
async fn replace_pinned(
    cluster: &Cluster,
    target: &ObjectRef,
    replacement: &Value,
    pinned: &str,
    options: &ModifyOptions,
) -> Result<(Value, bool)> {
    let namespace = target.namespace.as_deref();
    if options.dry_run == DryRun::Client {
        return Ok((replacement.clone(), true));
    }
    let write = WriteOptions { dry_run: options.dry_run == DryRun::Server, ..options.write.clone() };
    match cluster.replace(&target.rt, namespace, &target.name, replacement, &write).await {
        Ok(written) => {
            let changed = resource_version(&written) != Some(pinned) || write.dry_run;
            Ok((written, changed))
        }
        Err(client::Error::Conflict(_)) => {
            let live = cluster.get(&target.rt, namespace, &target.name).await?;
            let live_version = resource_version(&live).unwrap_or("unknown");
            Err(Error::msg(format!(
                "conflict: {} has changed since resourceVersion {pinned:?}, which the file pins; the live object is at \
                 {live_version:?}. Update the file, or remove its metadata.resourceVersion to replace the live object",
                target.display_name()
            )))
        }
        Err(err) => Err(err.into()),
    }
}

/// After the last attempt lost its race, says so instead of the server's "please try again".
fn gave_up(err: client::Error, target: &ObjectRef, attempts: u32) -> Error {
    if !err.is_conflict() {
        return err.into();
    }
    let tries = if attempts == 1 { "1 attempt".to_string() } else { format!("{attempts} attempts") };
    Error::msg(format!(
        "conflict: {} kept changing while it was updated; {tries} lost the race with other writers (use --retries for more)",
        target.display_name()
    ))
}

fn resource_version(object: &Value) -> Option<&str> {
    object.pointer("/metadata/resourceVersion").and_then(Value::as_str).filter(|version| !version.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(line: &[&str]) -> Result<Options> {
        let cli = crate::cli::parse(["kubeupd", "update"].iter().chain(line)).map_err(anyhow::Error::msg)?;
        match cli.command {
            crate::cli::Command::Update(args) => options(&args),
            _ => unreachable!(),
        }
    }

    #[test]
    fn changes_go_to_named_objects() {
        let options = parse(&["deploy/web", "--set", "spec.replicas=2", "--unset", "metadata.labels.x"]).unwrap();
        assert_eq!(
            options.objects,
            [Named::Object { type_arg: "deploy".into(), name: "web".into(), type_apart: false }]
        );
        assert_eq!(options.changes.len(), 2);
    }

    #[test]
    fn contradictory_or_incomplete_options_are_rejected() {
        let cases: &[(&[&str], &str)] = &[
            (&["deploy/web"], "nothing to change"),
            (&["-f", "x.yaml", "--set", "a=1"], "with -f the files hold the new objects"),
            (&["--set", "a=1"], "You must provide one or more resources"),
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
