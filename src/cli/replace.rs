//! `kubeupd replace -f FILE`: kubectl's verb for replacing objects with the ones in files. It is
//! `update -f` under kubectl's name, flags and messages (read-modify-write, or optimistic locking
//! when a file pins a resourceVersion). `--force` deletes each object and creates it again from
//! the file, and never loses it: an object the server would refuse is not deleted, and the
//! original is put back when the create fails anyway.

use clap::Args;
use futures::future::join_all;

use super::flags::{DryRunArg, FieldManagerArg, FileArgs, OutputArgs, ValidateArg};
use super::update::replace_from_file;
use super::validation;
use super::{Error, GlobalArgs, Result};
use crate::apply::{self, DryRun, ModifyOptions};
use crate::client::{self, Cluster, RetryPolicy, WriteOptions};
use crate::output::OutputFormat;
use crate::resource::{self, Manifest, Resolved, Resolver, Rules};

/// kubectl's field manager for `replace`.
const FIELD_MANAGER: &str = "kubectl-replace";

const RULES: Rules = Rules { verb: "replace", types_alone: false, selector: false };

/// Options of `kubeupd replace`.
#[derive(Debug, Args)]
#[command(mut_arg("filenames", |arg| arg.required(true)))]
pub struct ReplaceArgs {
    #[command(flatten)]
    pub files: FileArgs,
    /// Delete each object and create it again from the file. An object the server would refuse is
    /// not deleted; if the create fails anyway, the original is created again.
    #[arg(long)]
    pub force: bool,
    #[command(flatten)]
    pub dry_run: DryRunArg,
    #[command(flatten)]
    pub field_manager: FieldManagerArg,
    #[command(flatten)]
    pub validate: ValidateArg,
    #[command(flatten)]
    pub output: OutputArgs,
}

/// Runs `kubeupd replace`.
pub async fn run(args: ReplaceArgs, global: &GlobalArgs) -> Result {
    let format = args.output.object_format("replace")?;
    if args.force && args.dry_run.mode() != DryRun::None {
        return Err(Error::msg("--dry-run can not be used when --force is set"));
    }
    let named = resource::parse(&[], &args.files.filenames, args.files.recursive, RULES)?;
    let cluster = global.connect().await?;
    let resolved = Resolver::new(&cluster, global.namespace.as_deref(), false).resolve(named).await?;
    validation::check_files(&cluster, &resolved, args.validate.directive).await?;
    let options = ModifyOptions {
        retry: RetryPolicy::default(),
        write: WriteOptions {
            field_manager: Some(args.field_manager.or(FIELD_MANAGER)),
            field_validation: Some(args.validate.directive),
            ..WriteOptions::default()
        },
        dry_run: args.dry_run.mode(),
    };
    let results = join_all(resolved.iter().map(|item| match item {
        Resolved::Manifest(manifest) => replace_one(&cluster, manifest, &options, &args, format),
        _ => unreachable!("replace reads its objects from files"),
    }))
    .await;
    super::print_results(if format == Some(OutputFormat::Yaml) { separated(results) } else { results })
}

/// The objects printed as YAML documents, separated by `---` as kubectl separates them.
fn separated(results: Vec<Result<String>>) -> Vec<Result<String>> {
    let mut first = true;
    results
        .into_iter()
        .map(|result| {
            result.map(|text| if std::mem::replace(&mut first, false) { text } else { format!("---\n{text}") })
        })
        .collect()
}

async fn replace_one(
    cluster: &Cluster,
    manifest: &Manifest,
    options: &ModifyOptions,
    args: &ReplaceArgs,
    format: Option<OutputFormat>,
) -> Result<String> {
    let suffix = args.dry_run.suffix();
    if !args.force {
        let (object, _) = match replace_from_file(cluster, manifest, options).await {
            Ok(replaced) => replaced,
            Err(Error::Client(cause)) if cause.is_transport() => return Err(read_back(cluster, manifest, cause).await),
            Err(err) => return Err(in_source(err, &manifest.source.file)),
        };
        return Ok(args.output.written(&object, "replaced", true, suffix));
    }
    let recreated = apply::recreate(cluster, &manifest.object, &manifest.document, &options.write).await?;
    let mut printed = String::new();
    if recreated.deleted {
        printed = match format {
            Some(OutputFormat::Name) => format!("{}\n", manifest.object.display_name()),
            _ => format!("{} {:?} deleted\n", manifest.object.rt.group_kind_lower(), manifest.object.name),
        };
    }
    printed.push_str(&args.output.written(&recreated.object, "replaced", true, suffix));
    Ok(printed)
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
