//! `kubeupd replace -f FILE`: kubectl's verb for replacing objects with the ones in files. It is
//! `update -f` under kubectl's name, flags and messages (read-modify-write, or optimistic locking
//! when a file pins a resourceVersion). `--force` deletes each object and creates it again from
//! the file, and never loses it: an object the server would refuse is not deleted, and the
//! original is put back when the create fails anyway.

use clap::Args;
use futures::future::join_all;

use super::args::{
    DeletionArgs, DryRunArg, ExtraArgs, FieldManagerArg, FileArgs, OutputArgs, RawArg, SubresourceArg, ValidateArg,
};
use super::update::replace_from_file;
use super::validation;
use super::{Error, GlobalArgs, Result};
use crate::apply::{self, DryRun, ModifyOptions, last_applied};
use crate::client::{self, Cluster, RetryPolicy, WriteOptions};
use crate::output::{Printer, Verb};
use crate::resource::{self, Manifest, Resolved, Resolver, Rules};

/// kubectl's field manager for `replace`.
const FIELD_MANAGER: &str = "kubectl-replace";

const RULES: Rules = Rules { verb: "replace", types_alone: false, selector: false };

/// Options of `kubeupd replace`.
#[derive(Debug, Args)]
pub struct ReplaceArgs {
    #[command(flatten)]
    pub files: FileArgs,
    /// Delete each object and create it again from the file. An object the server would refuse is
    /// not deleted; if the create fails anyway, the original is created again.
    #[arg(long)]
    pub force: bool,
    #[command(flatten)]
    pub deletion: DeletionArgs,
    /// With --force: how long to wait for each object to be deleted (0: a minute).
    #[arg(long, value_name = "DURATION", default_value = "0s", value_parser = super::pflag::duration, allow_hyphen_values = true)]
    pub timeout: std::time::Duration,
    /// With --force: wait until each object is deleted before creating it again (kubeupd always
    /// does; the flag is accepted for kubectl's scripts).
    #[arg(long)]
    pub wait: bool,
    /// Record the file's configuration in the last-applied annotation, as `apply` would.
    #[arg(long)]
    pub save_config: bool,
    #[command(flatten)]
    pub raw: RawArg,
    #[command(flatten)]
    pub subresource: SubresourceArg,
    #[command(flatten)]
    pub dry_run: DryRunArg,
    #[command(flatten)]
    pub field_manager: FieldManagerArg,
    #[command(flatten)]
    pub validate: ValidateArg,
    #[command(flatten)]
    pub output: OutputArgs,
    /// kubectl reads these words only with --force, where they are refused.
    #[command(flatten)]
    pub extra: ExtraArgs,
}

/// The checked options of `kubeupd replace`.
struct Options {
    /// How `--force` deletes an object before creating it again.
    deletion: apply::Deletion,
    /// kubectl's warning for a boolean `--cascade`, which `run` prints.
    warning: Option<String>,
    /// How each object is written.
    modify: ModifyOptions,
}

/// Validates the options as kubectl does; nothing is read from the server before this succeeds.
fn options(args: &ReplaceArgs) -> Result<Options> {
    args.output.printer(Verb::Write)?;
    args.files.require()?;
    if args.force && args.dry_run.mode() != DryRun::None {
        return Err(Error::msg("--dry-run can not be used when --force is set"));
    }
    if args.deletion.grace_period >= 0 && !args.force {
        return Err(Error::msg("--grace-period must have --force specified"));
    }
    if !args.timeout.is_zero() && !args.force {
        return Err(Error::msg("--timeout must have --force specified"));
    }
    let (delete_options, warning) = args.deletion.options()?;
    let deletion =
        apply::Deletion { options: delete_options, timeout: (!args.timeout.is_zero()).then_some(args.timeout) };
    let modify = ModifyOptions {
        retry: RetryPolicy::default(),
        write: WriteOptions {
            field_manager: Some(args.field_manager.or(FIELD_MANAGER)),
            field_validation: Some(args.validate.directive),
            subresource: args.subresource.name.clone(),
            ..WriteOptions::default()
        },
        dry_run: args.dry_run.mode(),
    };
    Ok(Options { deletion, warning, modify })
}

/// Runs `kubeupd replace`.
pub async fn run(args: ReplaceArgs, global: &GlobalArgs) -> Result {
    let Options { deletion, warning, modify: options } = options(&args)?;
    let printer = args.output.printer(Verb::Write)?;
    if let Some(warning) = warning {
        eprintln!("{warning}");
    }
    if let Some(path) = &args.raw.path {
        return replace_raw(&args, path, global).await;
    }
    if args.force && !args.extra.words.is_empty() {
        // kubectl's forced replace gives them to its builder with the files, which refuses both.
        return Err(Error::msg(
            "when paths, URLs, or stdin is provided as input, you may not specify resource arguments as well",
        ));
    }
    let named = resource::parse(&[], &args.files.files(), RULES)?;
    let cluster = global.connect().await?;
    let resolved = Resolver::new(&cluster, global.namespace.as_deref(), false).resolve(named).await?;
    validation::check_files(&cluster, &resolved, args.validate.directive).await?;
    let results = join_all(resolved.iter().map(|item| match item {
        Resolved::Manifest(manifest) => replace_one(&cluster, manifest, &options, &deletion, &args, printer),
        _ => unreachable!("replace reads its objects from files"),
    }))
    .await;
    // Printed in the files' order once all are written (a printer failing part way writes what
    // it printed as it fails).
    let printed = results
        .into_iter()
        .map(|result| {
            let Replaced { deleted, object } = result?;
            Ok(deleted + &args.output.written(&object, "replaced", true, args.dry_run.suffix())?)
        })
        .collect();
    super::print_results(super::yaml_documents(printer, printed))
}

/// A replaced object, and the line saying it was deleted first (`--force`), if it was.
struct Replaced {
    deleted: String,
    object: serde_json::Value,
}

/// Replaces one object of the files; with `--force`, deletes it and creates it again.
async fn replace_one(
    cluster: &Cluster,
    manifest: &Manifest,
    options: &ModifyOptions,
    deletion: &apply::Deletion,
    args: &ReplaceArgs,
    printer: Option<&Printer>,
) -> Result<Replaced> {
    let saved;
    let manifest = if args.save_config {
        saved = Manifest { document: last_applied::with_annotation(&manifest.document), ..manifest.clone() };
        &saved
    } else {
        manifest
    };
    if !args.force {
        let (object, _) = match replace_from_file(cluster, manifest, options).await {
            Ok(replaced) => replaced,
            Err(Error::Client(cause)) if cause.is_transport() => return Err(read_back(cluster, manifest, cause).await),
            Err(err) => return Err(in_source(err, &manifest.source.file)),
        };
        return Ok(Replaced { deleted: String::new(), object });
    }
    let deleted_line = || match printer {
        Some(Printer::Name) => format!("{}\n", manifest.object.display_name()),
        _ => super::delete::deleted_line(&manifest.object, "deleted", ""),
    };
    let recreated = match apply::recreate(cluster, &manifest.object, &manifest.document, &options.write, deletion).await
    {
        Err(err @ apply::Error::StillThere { .. }) => {
            // Deleted, but not gone in time: kubectl says both.
            super::write_stdout(&deleted_line())?;
            return Err(err.into());
        }
        recreated => recreated?,
    };
    let deleted = if recreated.deleted { deleted_line() } else { String::new() };
    Ok(Replaced { deleted, object: recreated.object })
}

/// `replace --raw PATH -f FILE`: the file's bytes sent with a PUT to PATH, the answer printed as
/// it came, as kubectl does.
async fn replace_raw(args: &ReplaceArgs, path: &str, global: &GlobalArgs) -> Result {
    let [file] = args.files.filenames.as_slice() else {
        return Err(Error::msg("--raw can only use a single local file or stdin"));
    };
    if args.force || args.dry_run.mode() != DryRun::None {
        return Err(Error::msg("--raw cannot be used with --force or --dry-run"));
    }
    let body = if file.as_os_str() == "-" {
        let mut body = Vec::new();
        std::io::Read::read_to_end(&mut std::io::stdin(), &mut body).map_err(|err| Error::Other(err.into()))?;
        body
    } else {
        std::fs::read(file).map_err(|err| Error::msg(format!("cannot read {}: {err}", file.display())))?
    };
    let cluster = global.connect().await?;
    let answer = cluster.raw(http::Method::PUT, path, Some(body)).await?;
    super::write_stdout(&String::from_utf8_lossy(&answer))
}

/// A replace that failed at the transport: while the server answers, the object is read back to
/// say whether it was replaced (never sent again); otherwise the failure as it is.
async fn read_back(cluster: &Cluster, manifest: &Manifest, cause: client::Error) -> Error {
    let mut wanted = manifest.document.clone();
    if let Some(metadata) = wanted.get_mut("metadata").and_then(serde_json::Value::as_object_mut) {
        metadata.remove("resourceVersion");
    }
    let replaced = |live: Option<&serde_json::Value>| live.is_some_and(|live| apply::lost::contains(live, &wanted));
    match apply::lost::check(cluster, &manifest.object, cause.clone(), replaced).await {
        Some(lost) => Error::msg(format!(
            "when replacing {:?} ({}): {lost}",
            manifest.source.file,
            manifest.object.display_name()
        )),
        None => Error::Client(cause),
    }
}

/// The server's error with the file named, as kubectl words it: `Error from server (NotFound):
/// error when replacing "app.yaml": configmaps "x" not found`.
fn in_source(err: Error, file: &str) -> Error {
    match err {
        Error::Client(err) => Error::Client(err.in_context(&format!("error when replacing {file:?}"))),
        other => other,
    }
}
