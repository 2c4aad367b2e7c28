//! `kubeupd patch`: change objects with a strategic merge, JSON merge or JSON patch, on the server
//! or, with `--local`, on the objects of a file.

use std::path::PathBuf;

use anyhow::{Context as _, anyhow, bail};
use clap::{Args, ValueEnum};
use futures::future::join_all;
use serde_json::Value;

use super::GlobalArgs;
use super::options::{DryRun, ObjectFormat, OutputArgs, Subresource};
use super::targets::{self, ObjectRef, Target};
use crate::client::{Cluster, ConnectOptions, WriteOptions, api_error};
use crate::merge::{PatchType, TypedPatch, TypedPatchError};
use crate::schema::KindSchema;

/// Options of `kubeupd patch`.
#[derive(Debug, Args)]
pub struct PatchArgs {
    /// TYPE NAME... or TYPE/NAME...
    #[arg(value_name = "TYPE[/NAME]")]
    pub targets: Vec<String>,
    /// Files, directories or `-` (stdin) naming the objects to patch.
    #[arg(short = 'f', long = "filename", value_name = "PATH")]
    pub filenames: Vec<PathBuf>,
    /// The patch, as JSON or YAML.
    #[arg(short = 'p', long = "patch", value_name = "PATCH")]
    pub patch: Option<String>,
    /// A file holding the patch, as JSON or YAML.
    #[arg(long, value_name = "FILE")]
    pub patch_file: Option<PathBuf>,
    /// The type of patch.
    #[arg(long = "type", value_enum, value_name = "TYPE", default_value_t = PatchKind::Strategic)]
    pub patch_type: PatchKind,
    /// Patch the objects of the -f files and print them (as YAML unless -o says otherwise),
    /// without contacting the server.
    #[arg(long)]
    pub local: bool,
    /// `client` computes the result and sends nothing; `server` has the server check the patch
    /// without persisting it.
    #[arg(long, value_enum, value_name = "MODE", default_value_t = DryRun::None, num_args = 0..=1, require_equals = true, default_missing_value = "client")]
    pub dry_run: DryRun,
    /// Patch this subresource instead of the object.
    #[arg(long, value_enum, value_name = "NAME")]
    pub subresource: Option<Subresource>,
    /// The manager recorded for the fields this patch sets.
    #[arg(long, value_name = "NAME", default_value = "kubectl-patch")]
    pub field_manager: String,
    #[command(flatten)]
    pub output: OutputArgs,
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
struct Plan {
    patch: TypedPatch,
    objects: Vec<ObjectRef>,
    /// The patch file, named in errors.
    source: Option<String>,
}

/// Validates the options and reads the patch; nothing is sent before this succeeds.
fn plan(args: &PatchArgs) -> anyhow::Result<Plan> {
    let text = match (&args.patch, &args.patch_file) {
        (Some(_), Some(_)) => bail!("cannot specify --patch and --patch-file together"),
        (None, Some(path)) => {
            std::fs::read_to_string(path).with_context(|| format!("unable to read patch file {}", path.display()))?
        }
        (Some(text), None) => text.clone(),
        (None, None) => String::new(),
    };
    if text.trim().is_empty() {
        bail!("must specify --patch or --patch-file containing the contents of the patch");
    }
    if args.local {
        if !args.targets.is_empty() {
            bail!("cannot specify --local and server resources");
        }
        if args.filenames.is_empty() {
            bail!("--local patches the objects of files: give them with -f");
        }
        if args.subresource.is_some() || args.dry_run != DryRun::None {
            bail!("--subresource and --dry-run concern the server, which --local does not contact");
        }
    }
    let source = args.patch_file.as_ref().map(|path| path.display().to_string());
    let patch = TypedPatch::parse(args.patch_type.into(), &text).map_err(|err| match &source {
        Some(source) => anyhow!(err).context(source.clone()),
        None => anyhow!(err),
    })?;
    let objects = targets::plan(&args.targets, &args.filenames)?;
    Ok(Plan { patch, objects, source })
}

/// Runs `kubeupd patch`.
pub async fn run(args: PatchArgs, global: &GlobalArgs) -> anyhow::Result<()> {
    let plan = plan(&args)?;
    if args.local {
        return run_local(plan, &args);
    }
    let cluster = Cluster::connect(&ConnectOptions::from(global)).await?;
    let targets = targets::resolve(&cluster, plan.objects, global.namespace.as_deref()).await?;
    let source = plan.source.as_deref();
    let results = join_all(targets.iter().map(|target| patch_one(&cluster, target, &plan.patch, source, &args))).await;
    super::print_results(results)
}

/// Reads the object (or subresource), patches it on the server or, for a client dry run, locally,
/// and says whether it changed.
async fn patch_one(
    cluster: &Cluster,
    target: &Target,
    patch: &TypedPatch,
    source: Option<&str>,
    args: &PatchArgs,
) -> anyhow::Result<String> {
    let subresource = args.subresource.map(Subresource::as_str);
    let object = match source {
        Some(source) => format!("{} with {source}", target.display_name()),
        None => target.display_name(),
    };
    let namespace = target.namespace.as_deref();
    let before = cluster.get_subresource(&target.rt, namespace, &target.name, subresource).await?;
    let after = if args.dry_run == DryRun::Client {
        let schema = match patch.patch_type() {
            PatchType::Strategic => cluster.patch_schema(api_version(&before), kind(&before)).await?,
            _ => None,
        };
        patch.apply(before.clone(), schema.as_ref().map(KindSchema::node)).map_err(|err| local_failure(err, &object))?
    } else {
        let write = WriteOptions {
            dry_run: args.dry_run == DryRun::Server,
            field_manager: Some(args.field_manager.clone()),
            force: false,
            subresource: subresource.map(String::from),
        };
        cluster
            .patch(&target.rt, namespace, &target.name, patch.patch_type(), patch.body(), &write)
            .await
            .map_err(|err| server_failure(err, patch, &before, &object))?
    };
    Ok(args.output.written(&after, "patched", after != before, ""))
}

/// The server's refusal, in words that say what to do: custom resources take no strategic merge
/// patches (415), and a failed JSON patch is explained by applying it to the object as read,
/// since old servers answer only "the server rejected our request".
fn server_failure(err: anyhow::Error, patch: &TypedPatch, before: &Value, object: &str) -> anyhow::Error {
    let Some(server) = api_error(&err) else { return err };
    match patch.patch_type() {
        PatchType::Strategic if server.code == 415 => local_failure(TypedPatchError::NoPatchMetadata, object),
        PatchType::Json if server.is_invalid() => match patch.apply(before.clone(), None) {
            Err(local) => local_failure(local, object),
            Ok(_) => err,
        },
        _ => err,
    }
}

fn local_failure(err: TypedPatchError, object: &str) -> anyhow::Error {
    match err {
        TypedPatchError::NoPatchMetadata => anyhow!(
            "strategic merge patch does not apply to custom resources such as {object}: use --type merge (or --type json)"
        ),
        other => anyhow!(other).context(format!("cannot patch {object}")),
    }
}

/// `--local`: patches the objects of the files with the embedded patch metadata and prints them.
fn run_local(plan: Plan, args: &PatchArgs) -> anyhow::Result<()> {
    let format = args.output.output.unwrap_or(ObjectFormat::Yaml);
    let results = plan
        .objects
        .into_iter()
        .map(|object_ref| {
            let ObjectRef::FromManifest(object) = object_ref else {
                unreachable!("--local takes objects from files only")
            };
            let schema = KindSchema::for_builtin(None, object.api_version(), object.kind());
            let patched = plan.patch.apply(object.object.clone(), schema.as_ref().map(KindSchema::node)).map_err(
                |err| match err {
                    TypedPatchError::NoPatchMetadata => anyhow!(
                        "strategic merge patch does not apply to {} {:?}, a custom resource, locally: use --type merge",
                        object.kind(),
                        object.name()
                    ),
                    other => anyhow!(other).context(format!(
                        "cannot patch {} {:?} from {}",
                        object.kind(),
                        object.name(),
                        object.source
                    )),
                },
            )?;
            Ok(args.output.render(format, &patched))
        })
        .collect();
    super::print_results(results)
}

fn api_version(object: &Value) -> &str {
    object["apiVersion"].as_str().unwrap_or_default()
}

fn kind(object: &Value) -> &str {
    object["kind"].as_str().unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser as _;

    fn parse(line: &[&str]) -> anyhow::Result<Plan> {
        let cli = crate::cli::Cli::try_parse_from(["kubeupd", "patch"].iter().chain(line))?;
        match cli.command {
            crate::cli::Command::Patch(args) => plan(&args),
            _ => unreachable!(),
        }
    }

    #[test]
    fn plans_name_the_objects_and_hold_the_checked_patch() {
        let plan = parse(&["deploy", "web", "-p", r#"{"spec":{"replicas":2}}"#]).unwrap();
        assert_eq!(plan.objects, [ObjectRef::Named { type_arg: "deploy".into(), name: "web".into() }]);
        assert_eq!(plan.patch.patch_type(), PatchType::Strategic);
        let plan = parse(&["deploy/web", "--type", "json", "-p", r#"[{"op":"remove","path":"/a"}]"#]).unwrap();
        assert_eq!(plan.patch.patch_type(), PatchType::Json);
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
    }
}
