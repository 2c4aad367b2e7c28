//! `kubeupd set`: kubectl's setters of fields of pod templates. `set image` sets containers'
//! images, sent as a strategic merge patch from the object as read to the object changed, as
//! kubectl sends it.

use anyhow::anyhow;
use clap::{Args, Subcommand};
use futures::future::join_all;
use serde_json::Value;

use super::flags::{DryRunArg, FieldManagerArg, OutputArgs, SelectionArgs, TargetArgs};
use super::visit::{self, Visited};
use super::{Error, GlobalArgs, Result};
use crate::apply::{DryRun, lost};
use crate::change::image::{self, ImageUpdates};
use crate::change::split_pairs;
use crate::client::{Cluster, WriteOptions};
use crate::merge::KindPatcher;
use crate::output::{self, Printer, Verb};
use crate::resource::{Named, ObjectRef, Rules};

/// Options of `kubeupd set`.
#[derive(Debug, Args)]
pub struct SetArgs {
    #[command(subcommand)]
    pub command: SetCommand,
}

/// The setters.
#[derive(Debug, Subcommand)]
pub enum SetCommand {
    /// Set the images of containers: CONTAINER=IMAGE, or *=IMAGE for every container.
    #[command(after_help = IMAGE_EXAMPLES)]
    Image(ImageArgs),
}

const IMAGE_EXAMPLES: &str = "Examples:
  # Set the image of container app of deployment web
  kubeupd set image deployment/web app=registry.example/app:v2

  # Set the image of every container of every deployment and daemon set
  kubeupd set image deployments,daemonsets --all '*=nginx:1.27'

  # Print the objects of a file with a new image, without contacting the server
  kubeupd set image -f web.yaml app=nginx:1.27 --local -o yaml";

/// Options of `kubeupd set image`.
#[derive(Debug, Args)]
pub struct ImageArgs {
    /// The objects (TYPE NAME..., TYPE/NAME...), then CONTAINER=IMAGE pairs.
    #[command(flatten)]
    pub targets: TargetArgs,
    /// Change the objects of the -f files and print them, without contacting the server.
    #[arg(long)]
    pub local: bool,
    #[command(flatten)]
    pub selection: SelectionArgs,
    #[command(flatten)]
    pub dry_run: DryRunArg,
    #[command(flatten)]
    pub field_manager: FieldManagerArg,
    #[command(flatten)]
    pub output: OutputArgs,
}

/// Runs `kubeupd set`.
pub async fn run(args: SetArgs, global: &GlobalArgs) -> Result {
    match args.command {
        SetCommand::Image(args) => run_image(args, global).await,
    }
}

struct ImagePlan {
    updates: ImageUpdates,
    targets: TargetArgs,
    printer: Option<Printer>,
}

/// Validates the options, in kubectl's order; nothing is sent before this succeeds.
fn plan_image(args: &ImageArgs) -> Result<ImagePlan> {
    let (objects, pairs) = split_pairs(&args.targets.targets, "image").map_err(Error::msg)?;
    let updates = ImageUpdates::parse(&pairs).map_err(|err| Error::Other(anyhow!(err)))?;
    if objects.is_empty() && args.targets.files.filenames.is_empty() {
        return Err(Error::msg(visit::NOTHING_NAMED));
    }
    if args.local && args.dry_run.mode() == DryRun::Server {
        return Err(Error::msg("cannot specify --local and --dry-run=server - did you mean --dry-run=client?"));
    }
    args.selection.validate()?;
    let printer = args.output.printer(Verb::Write)?.cloned();
    Ok(ImagePlan { updates, targets: TargetArgs { targets: objects, files: args.targets.files.clone() }, printer })
}

/// One object changed in memory, waiting to be sent.
struct Changed {
    target: Option<ObjectRef>,
    before: Value,
    after: Value,
}

async fn run_image(args: ImageArgs, global: &GlobalArgs) -> Result {
    let plan = plan_image(&args)?;
    let mut objects = Vec::new();
    let mut errors = Vec::new();
    let cluster = if args.local {
        let rules = Rules { verb: "set image", types_alone: false, selector: false };
        for named in plan.targets.named(rules)? {
            let Named::Manifest(object) = named else {
                return Err(Error::msg("--local sets images of the objects of files: give them with -f"));
            };
            objects.push((None, object.object));
        }
        None
    } else {
        let cluster = global.connect().await?;
        let (resolved, single) = visit::resolve(&cluster, global, "set", &plan.targets, &args.selection).await?;
        // kubectl reads every object first; one that cannot be read stops all.
        let (read, unreadable): (Vec<_>, Vec<_>) =
            visit::read(&cluster, resolved, &args.selection, single).await.objects.into_iter().partition(Result::is_ok);
        if !unreadable.is_empty() {
            return super::print_visited(
                unreadable.into_iter().map(|err| err.map(|_| String::new()).map_err(|err| vec![err])).collect(),
            );
        }
        objects.extend(read.into_iter().flatten().map(|Visited { target, live }| (Some(target), live)));
        Some(cluster)
    };
    let mut changed = Vec::new();
    for (target, before) in objects {
        let mut after = before.clone();
        match plan.updates.apply(&mut after) {
            Ok(missing) => errors.extend(missing.into_iter().map(|err| Error::Other(anyhow!(err)))),
            Err(err) => {
                errors.push(not_a_pod_template(target.as_ref(), &before, err));
                continue;
            }
        }
        // An object the images leave as it was is skipped without a word, as kubectl skips it.
        if after != before {
            changed.push(Changed { target, before, after });
        }
    }
    let results = join_all(changed.into_iter().map(|object| send_image(cluster.as_ref(), &plan, &args, object))).await;
    let mut texts = Vec::new();
    for result in results {
        match result {
            Ok(text) => texts.push(Ok(text)),
            Err(err) => errors.push(err),
        }
    }
    texts.push(if errors.is_empty() { Ok(String::new()) } else { Err(errors) });
    super::print_visited(texts)
}

/// kubectl's words for an object without a pod spec: `error: configmaps/settings the object is
/// not a pod or does not have a pod template: *v1.ConfigMap` (Go's type name, which is
/// `*unstructured.Unstructured` for custom resources). Objects of files are named by their kind,
/// as kubectl names them without a server. The message ends with a newline, as kubectl's does:
/// among several errors, it leaves an empty line.
fn not_a_pod_template(target: Option<&ObjectRef>, object: &Value, err: image::Error) -> Error {
    let kind = object["kind"].as_str().unwrap_or_default();
    let api_version = object["apiVersion"].as_str().unwrap_or_default();
    let name = object["metadata"]["name"].as_str().unwrap_or_default();
    let (resource, version) = match target {
        Some(target) => (target.rt.resource.clone(), target.rt.version.clone()),
        None => (kind.to_lowercase(), api_version.rsplit('/').next().unwrap_or_default().to_string()),
    };
    let go_type = if crate::schema::is_builtin(api_version, kind) {
        format!("*{version}.{kind}")
    } else {
        "*unstructured.Unstructured".to_string()
    };
    Error::msg(format!("error: {resource}/{name} {err}: {go_type}\n"))
}

/// Sends one object's change (unless local or a client dry run) and says what happened.
async fn send_image(cluster: Option<&Cluster>, plan: &ImagePlan, args: &ImageArgs, object: Changed) -> Result<String> {
    let shown = match (cluster, &object.target) {
        (Some(cluster), Some(target)) if args.dry_run.mode() != DryRun::Client => {
            let api_version = target.rt.api_version();
            let schema = cluster.patch_schema(&api_version, &target.rt.kind).await;
            let patch = KindPatcher::for_kind(schema.as_ref())
                .two_way(&object.before, &object.after)
                .map_err(|err| Error::Other(anyhow!(err)))?;
            let write = WriteOptions {
                dry_run: args.dry_run.mode() == DryRun::Server,
                field_manager: Some(args.field_manager.or("kubectl-set")),
                ..WriteOptions::default()
            };
            match cluster.patch(&target.rt, target.namespace.as_deref(), &target.name, &patch, &write).await {
                Ok(answer) => answer,
                Err(cause) => {
                    let node = schema.as_ref().map(|schema| schema.node());
                    let applied = |live: Option<&Value>| {
                        !write.dry_run && live.is_some_and(|live| lost::patched(live, &patch, node))
                    };
                    let context = Some("failed to patch image update to pod template");
                    return Err(visit::write_failed(cluster, target, context, cause, applied).await);
                }
            }
        }
        _ => object.after,
    };
    match &plan.printer {
        Some(printer) => args.output.render(printer, &shown),
        None => Ok(format!("{} image updated{}\n", output::object_name(&shown), args.dry_run.suffix())),
    }
}
