//! `kubeupd apply view-last-applied` and `kubeupd apply set-last-applied`: read or replace the
//! last-applied configuration that client-side apply keeps on objects.

use std::path::PathBuf;

use anyhow::bail;
use clap::{Args, Subcommand, ValueEnum};
use serde_json::{Value, json};

use super::GlobalArgs;
use super::options::DryRun;
use super::targets;
use crate::client::{Cluster, ConnectOptions, WriteOptions, last_applied};
use crate::merge::PatchType;
use crate::output::{self, OutputFormat};

/// The subcommands of `apply`.
#[derive(Debug, Subcommand)]
pub enum LastAppliedCommand {
    /// Print the last-applied configuration of objects.
    ViewLastApplied(ViewArgs),
    /// Set the last-applied configuration of objects to the files' contents, changing nothing else.
    SetLastApplied(SetArgs),
}

/// How the last-applied configuration is printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ViewFormat {
    Yaml,
    Json,
}

/// Options of `apply view-last-applied`.
#[derive(Debug, Args)]
pub struct ViewArgs {
    /// TYPE NAME or TYPE/NAME.
    #[arg(value_name = "TYPE[/NAME]")]
    targets: Vec<String>,
    /// Files naming the objects.
    #[arg(short = 'f', long = "filename", value_name = "PATH")]
    filenames: Vec<PathBuf>,
    #[arg(short = 'o', long, value_enum, value_name = "FORMAT", default_value_t = ViewFormat::Yaml)]
    output: ViewFormat,
}

/// Options of `apply set-last-applied`.
#[derive(Debug, Args)]
pub struct SetArgs {
    /// Files holding the configurations to record.
    #[arg(short = 'f', long = "filename", value_name = "PATH", required = true)]
    filenames: Vec<PathBuf>,
    /// Add the annotation to objects that have none.
    #[arg(long)]
    create_annotation: bool,
    #[arg(long, value_enum, value_name = "MODE", default_value_t = DryRun::None, num_args = 0..=1, require_equals = true, default_missing_value = "client")]
    dry_run: DryRun,
    #[arg(short = 'o', long, value_enum, value_name = "FORMAT")]
    output: Option<OutputFormat>,
}

pub async fn run(command: LastAppliedCommand, global: &GlobalArgs) -> anyhow::Result<()> {
    let cluster = Cluster::connect(&ConnectOptions::from(global)).await?;
    let namespace_flag = global.namespace.as_deref();
    match command {
        LastAppliedCommand::ViewLastApplied(args) => view(args, &cluster, namespace_flag).await,
        LastAppliedCommand::SetLastApplied(args) => set(args, &cluster, namespace_flag).await,
    }
}

async fn view(args: ViewArgs, cluster: &Cluster, namespace_flag: Option<&str>) -> anyhow::Result<()> {
    let objects = targets::resolve(cluster, targets::plan(&args.targets, &args.filenames)?, namespace_flag).await?;
    for target in objects {
        let object = cluster.get(&target.rt, target.namespace.as_deref(), &target.name).await?;
        let Some(recorded) = last_applied::recorded(&object) else {
            bail!("no last-applied-configuration annotation found on resource: {}", target.name);
        };
        match args.output {
            ViewFormat::Json => print!("{}", output::to_json_indented(&recorded, "  ")),
            ViewFormat::Yaml => print!("{}", output::render_objects(OutputFormat::Yaml, vec![recorded], true)),
        }
    }
    Ok(())
}

async fn set(args: SetArgs, cluster: &Cluster, namespace_flag: Option<&str>) -> anyhow::Result<()> {
    let objects = targets::resolve(cluster, targets::plan(&[], &args.filenames)?, namespace_flag).await?;
    for target in objects {
        let mut document = target.manifest.clone().expect("objects read from files keep their content");
        if let Some(namespace) = &target.namespace {
            document["metadata"]["namespace"] = Value::String(namespace.clone());
        }
        let (rt, namespace, name) = (&target.rt, target.namespace.as_deref(), target.name.as_str());
        let live = cluster.get(rt, namespace, name).await?;
        if last_applied::recorded(&live).is_none() && !args.create_annotation {
            bail!(
                "no last-applied-configuration annotation found on resource: {name}, to create the annotation, run the command with --create-annotation"
            );
        }
        // As kubectl records it here: the document as written (unlike apply, no empty
        // `annotations` map is added).
        let recorded = output::to_compact_json(&document) + "\n";
        let patch = json!({"metadata": {"annotations": {last_applied::ANNOTATION: recorded}}});
        let object = if args.dry_run == DryRun::Client {
            crate::merge::json_merge::apply(live, &patch)
        } else {
            let write = WriteOptions { dry_run: args.dry_run == DryRun::Server, ..WriteOptions::default() };
            cluster.patch(rt, namespace, name, PatchType::Merge, serde_json::to_vec(&patch)?, &write).await?
        };
        match args.output {
            None => println!("{} configured{}", target.display_name(), args.dry_run.suffix()),
            Some(OutputFormat::Name) => println!("{}", target.display_name()),
            Some(format) => {
                let mut object = object;
                output::strip_managed_fields(&mut object);
                print!("{}", output::render_objects(format, vec![object], true));
            }
        }
    }
    Ok(())
}
