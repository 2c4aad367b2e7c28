//! `kubeupd patch`: change objects with a strategic merge, JSON merge or JSON patch, on the server
//! or, with `--local`, on the objects of a file.

use std::path::PathBuf;

use anyhow::{Context as _, anyhow};
use clap::{Args, ValueEnum};
use futures::future::join_all;
use serde_json::Value;

use super::args::{
    DryRunArg, FieldManagerArg, LocalArg, OutputArgs, RecordArg, SubresourceArg, TargetArgs, ValidateArg,
};
use super::validation;
use super::{Error, GlobalArgs, Result};
use crate::apply::DryRun;
use crate::change::metadata::CHANGE_CAUSE;
use crate::client::{self, Cluster, WriteOptions};
use crate::merge::{Patch, PatchError, PatchType};
use crate::resource::{Named, ObjectRef, Resolver, Rules};
use crate::schema::KindSchema;

/// Options of `kubeupd patch`.
#[derive(Debug, Args)]
#[command(mut_arg("subresource", |arg| arg.value_parser(["status", "scale"])))]
pub struct PatchArgs {
    #[command(flatten)]
    pub targets: TargetArgs,
    /// The patch, as JSON or YAML.
    #[arg(short = 'p', long = "patch", value_name = "PATCH")]
    pub patch: Option<String>,
    /// A file holding the patch, as JSON or YAML.
    #[arg(long, value_name = "FILE")]
    pub patch_file: Option<PathBuf>,
    /// The type of patch: strategic, merge or json (checked with the other options, as kubectl
    /// checks it).
    #[arg(long = "type", value_name = "TYPE", default_value = "strategic")]
    pub patch_type: String,
    #[command(flatten)]
    pub local: LocalArg,
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
    #[command(flatten)]
    pub record: RecordArg,
}

/// `--type`: the patch types a user writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum PatchKind {
    /// Kubernetes strategic merge patch: lists merge by key (built-in kinds only).
    Strategic,
    /// JSON merge patch (RFC 7386): maps merge, lists are replaced.
    Merge,
    /// JSON patch (RFC 6902): a list of operations.
    Json,
}

impl From<PatchKind> for PatchType {
    fn from(kind: PatchKind) -> Self {
        match kind {
            PatchKind::Strategic => PatchType::Strategic,
            PatchKind::Merge => PatchType::Merge,
            PatchKind::Json => PatchType::Json,
        }
    }
}

/// The checked patch and the objects it goes to.
#[derive(Debug)]
struct Options {
    patch: Patch,
    objects: Vec<Named>,
    /// The patch file, named in errors.
    source: Option<String>,
}

const RULES: Rules = Rules { verb: "patch", types_alone: false, selector: false };

/// Validates the options (but for the printer's) and reads the patch; nothing is sent before this
/// succeeds.
fn options(args: &PatchArgs) -> Result<Options> {
    let text = match (&args.patch, &args.patch_file) {
        (Some(_), Some(_)) => return Err(Error::msg("cannot specify --patch and --patch-file together")),
        (None, Some(path)) => {
            std::fs::read_to_string(path).with_context(|| format!("unable to read patch file {}", path.display()))?
        }
        (Some(text), None) => text.clone(),
        (None, None) => String::new(),
    };
    if text.trim().is_empty() {
        return Err(Error::msg("must specify --patch or --patch-file containing the contents of the patch"));
    }
    if args.local.local {
        if !args.targets.targets.is_empty() {
            return Err(Error::msg("cannot specify --local and server resources"));
        }
        if !args.targets.files.given() {
            return Err(Error::msg("--local patches the objects of files: give them with -f"));
        }
        if args.subresource.name.is_some() || args.dry_run.mode() != DryRun::None {
            return Err(Error::msg("--subresource and --dry-run concern the server, which --local does not contact"));
        }
    }
    let source = args.patch_file.as_ref().map(|path| path.display().to_string());
    let kind = PatchKind::from_str(&args.patch_type, false)
        .map_err(|_| Error::msg(format!("--type must be one of [json merge strategic], not {:?}", args.patch_type)))?;
    let patch = Patch::parse(kind.into(), &text).map_err(|err| match &source {
        Some(source) => anyhow!(err).context(source.clone()),
        None => anyhow!(err),
    })?;
    // The printer's options are not checked here: kubectl patches each object, then fails to
    // print it, and a script with a broken --template still leaves the objects patched.
    let objects = args.targets.named(RULES)?;
    Ok(Options { patch, objects, source })
}

/// Runs `kubeupd patch`.
pub async fn run(args: PatchArgs, global: &GlobalArgs) -> Result {
    let options = options(&args)?;
    if args.local.local {
        return run_local(options, &args);
    }
    let cluster = global.connect().await?;
    let resolved = Resolver::new(&cluster, global.namespace.as_deref(), false).resolve(options.objects).await?;
    let source = options.source.as_deref();
    let results = join_all(
        resolved
            .iter()
            .filter_map(|item| item.object())
            .map(|object| patch_one(&cluster, object, &options.patch, source, &args, global)),
    )
    .await;
    // Printed in the order named, once all are written: a printer that fails part way writes what
    // it printed as it fails, so printing as each write ends would mix the objects' order.
    let printed = results.into_iter().map(|result| {
        result.and_then(|(after, changed)| args.output.written(&after, "patched", changed, "")).map_err(|err| vec![err])
    });
    // As kubectl's visit: each object's output, then the errors (several without `error: `).
    super::print_visited(printed.collect())
}

/// Reads the object (or subresource), patches it on the server or, for a client dry run, locally,
/// and says whether it changed.
async fn patch_one(
    cluster: &Cluster,
    target: &ObjectRef,
    patch: &Patch,
    source: Option<&str>,
    args: &PatchArgs,
    global: &GlobalArgs,
) -> Result<(Value, bool)> {
    let subresource = args.subresource.name.as_deref();
    let object = match source {
        Some(source) => format!("{} with {source}", target.display_name()),
        None => target.display_name(),
    };
    let namespace = target.namespace.as_deref();
    let before = cluster.get_subresource(&target.rt, namespace, &target.name, subresource).await?;
    let schema = match patch.patch_type() {
        PatchType::Strategic => cluster.patch_schema(&target.rt.api_version(), &target.rt.kind).await,
        _ => None,
    };
    let patched = patch.apply(before.clone(), schema.as_ref().map(KindSchema::node));
    // The object as the patch would leave it is checked before anything is sent. An unknown field
    // is one the live object lacks (the server drops them), so a patch that adds none is not.
    if let (Ok(patched), None) = (&patched, subresource)
        && adds_fields(&before, patched)
    {
        validation::check(cluster, &target.display_name(), patched, args.validate.directive).await?;
    }
    let after = if args.dry_run.mode() == DryRun::Client {
        patched.map_err(|err| local_failure(err, &object))?
    } else {
        let write = WriteOptions {
            dry_run: args.dry_run.mode() == DryRun::Server,
            field_manager: Some(args.field_manager.or("kubectl-patch")),
            force: false,
            subresource: subresource.map(String::from),
            field_validation: Some(args.validate.directive),
        };
        cluster
            .patch(&target.rt, namespace, &target.name, patch, &write)
            .await
            .map_err(|err| server_failure(err, patch, &before, &object))?
    };
    let changed = after != before;
    let after = if let Some(cause) = args.record.cause(global)
        && args.dry_run.mode() == DryRun::None
    {
        record_change_cause(cluster, target, cause, args).await?
    } else {
        after
    };
    Ok((after, changed))
}

/// `--record`: the command line in the `kubernetes.io/change-cause` annotation, sent as a patch of
/// its own after the user's, as kubectl sends it.
async fn record_change_cause(cluster: &Cluster, target: &ObjectRef, cause: &str, args: &PatchArgs) -> Result<Value> {
    let record = serde_json::json!({"metadata": {"annotations": {CHANGE_CAUSE: cause}}});
    let write = WriteOptions { field_manager: Some(args.field_manager.or("kubectl-patch")), ..WriteOptions::default() };
    let patch = Patch::Merge(record);
    Ok(cluster.patch(&target.rt, target.namespace.as_deref(), &target.name, &patch, &write).await?)
}

/// The server's refusal, in words that say what to do: custom resources take no strategic merge
/// patches (415), and a failed JSON patch is explained by applying it to the object as read,
/// since old servers answer only "the server rejected our request".
fn server_failure(err: client::Error, patch: &Patch, before: &serde_json::Value, object: &str) -> Error {
    match (&err, patch) {
        (client::Error::UnsupportedMediaType(_), Patch::Strategic(_)) => {
            local_failure(PatchError::NoPatchMetadata, object)
        }
        (client::Error::Invalid(_), Patch::Json(_)) => match patch.apply(before.clone(), None) {
            Err(local) => local_failure(local, object),
            Ok(_) => err.into(),
        },
        _ => err.into(),
    }
}

fn local_failure(err: PatchError, object: &str) -> Error {
    match err {
        PatchError::NoPatchMetadata => Error::msg(format!(
            "strategic merge patch does not apply to custom resources such as {object}: use --type merge (or --type json)"
        )),
        other => Error::Other(anyhow!(other).context(format!("cannot patch {object}"))),
    }
}

/// `--local`: patches the objects of the files with the embedded patch metadata and prints them
/// with `-o`, else kubectl's line for each (`configmap/web patched`, `... patched (no change)`).
fn run_local(options: Options, args: &PatchArgs) -> Result {
    let results = options
        .objects
        .into_iter()
        .map(|named| {
            let Named::Manifest(object) = named else { unreachable!("--local takes objects from files only") };
            let schema = KindSchema::for_builtin(None, object.api_version(), object.kind());
            let patched = options.patch.apply(object.object.clone(), schema.as_ref().map(KindSchema::node)).map_err(
                |err| match err {
                    PatchError::NoPatchMetadata => Error::msg(format!(
                        "strategic merge patch does not apply to {} {:?}, a custom resource, locally: use --type merge",
                        object.kind(),
                        object.name()
                    )),
                    other => Error::Other(anyhow!(other).context(format!(
                        "cannot patch {} {:?} from {}",
                        object.kind(),
                        object.name(),
                        object.source
                    ))),
                },
            )?;
            args.output.written(&patched, "patched", patched != object.object, "")
        })
        .collect();
    super::print_results(results)
}

/// Whether `after` has a field (a map key, at any depth) that `before` does not.
fn adds_fields(before: &Value, after: &Value) -> bool {
    match (before, after) {
        (Value::Object(before), Value::Object(after)) => after.iter().any(|(key, value)| match before.get(key) {
            Some(old) => adds_fields(old, value),
            None => true,
        }),
        (Value::Array(before), Value::Array(after)) => {
            after.iter().enumerate().any(|(index, item)| before.get(index).is_none_or(|old| adds_fields(old, item)))
        }
        (_, Value::Object(after)) => !after.is_empty(),
        (_, Value::Array(after)) => !after.is_empty(),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(line: &[&str]) -> Result<Options> {
        let cli = crate::cli::parse(["kubeupd", "patch"].iter().chain(line)).map_err(anyhow::Error::msg)?;
        match cli.command {
            crate::cli::Command::Patch(args) => options(&args),
            _ => unreachable!(),
        }
    }

    #[test]
    fn plans_name_the_objects_and_hold_the_checked_patch() {
        let options = parse(&["deploy", "web", "-p", r#"{"spec":{"replicas":2}}"#]).unwrap();
        assert_eq!(
            options.objects,
            [Named::Object { type_arg: "deploy".into(), name: "web".into(), type_apart: true }]
        );
        assert_eq!(options.patch.patch_type(), PatchType::Strategic);
        let options = parse(&["deploy/web", "--type", "json", "-p", r#"[{"op":"remove","path":"/a"}]"#]).unwrap();
        assert_eq!(options.patch.patch_type(), PatchType::Json);
    }

    #[test]
    fn only_patches_that_add_fields_need_checking() {
        let live = serde_json::json!({"spec": {"replicas": 1, "template": {"containers": [{"name": "a"}]}}});
        let changed = serde_json::json!({"spec": {"replicas": 2, "template": {"containers": [{"name": "b"}]}}});
        assert!(!adds_fields(&live, &changed));
        let typo =
            serde_json::json!({"spec": {"replicas": 1, "replica": 2, "template": {"containers": [{"name": "a"}]}}});
        assert!(adds_fields(&live, &typo));
        let deeper =
            serde_json::json!({"spec": {"replicas": 1, "template": {"containers": [{"name": "a", "portz": []}]}}});
        assert!(adds_fields(&live, &deeper));
        let appended =
            serde_json::json!({"spec": {"replicas": 1, "template": {"containers": [{"name": "a"}, {"name": "b"}]}}});
        assert!(adds_fields(&live, &appended));
    }

    #[test]
    fn bad_options_fail_before_anything_is_sent() {
        let cases: &[(&[&str], &str)] = &[
            (&["deploy", "web"], "must specify --patch or --patch-file"),
            (&["deploy", "web", "-p", ""], "must specify --patch or --patch-file"),
            (&["deploy", "web", "-p", "{}", "--patch-file", "x"], "cannot specify --patch and --patch-file together"),
            (&["deploy", "web", "-p", "{bad"], "unable to parse"),
            (&["deploy", "web", "-p", "[1]"], "must be a JSON object"),
            (&["deploy", "web", "--type", "json", "-p", r#"{"op":"add"}"#], "invalid JSON patch"),
            (&["deploy", "web", "--type", "json", "-p", r#"[{"op":"frob","path":"/a"}]"#], "invalid JSON patch"),
            (&["deploy", "web", "--local", "-p", "{}"], "cannot specify --local and server resources"),
            (&["--local", "-p", "{}"], "give them with -f"),
            (&["deploy", "-p", "{}"], "no name was specified"),
        ];
        for (line, expected) in cases {
            let err = parse(line).unwrap_err().to_string();
            assert!(err.contains(expected), "{line:?}: {err}");
        }
        assert!(parse(&["deploy", "web", "--type", "foo", "-p", "{}"]).is_err());
        assert!(parse(&["deploy", "web", "--dry-run=bogus", "-p", "{}"]).is_err());
        // As in kubectl, a printer that cannot be made fails after the patch, not before.
        assert!(parse(&["deploy", "web", "-p", "{}", "-o", "wide"]).is_ok());
    }
}
